"""The same states through two paths: the Simulator and the command-line tool `zwang dynamics`;
and the GIL released while the simulator steps."""

import json
import subprocess
import threading
import time

import numpy as np
import pytest
import zwang
from conftest import random_states, zwang_cli


@pytest.mark.parametrize("name", ["humanoid.xml", "ant.xml", "pusher_v5.xml"])
def test_dynamics_matches_cli(assets, tmp_path, name):
    cli = zwang_cli()
    if cli is None:
        pytest.skip("no zwang command-line tool (build/ci/zwang or $ZWANG_CLI)")
    path = str(assets / name)
    model = zwang.load(path)
    n = 6
    qpos, qvel, ctrl = random_states(model, n, seed=11, spread=0.4)
    states = tmp_path / "states.json"
    out = tmp_path / "out.json"
    states.write_text(
        json.dumps({"qpos": qpos.tolist(), "qvel": qvel.tolist(), "ctrl": ctrl.tolist()})
    )
    subprocess.run(
        [cli, "dynamics", path, "-i", str(states), "-o", str(out)], check=True, capture_output=True
    )
    ref = json.loads(out.read_text())
    sim = zwang.Simulator(model, instances=n)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.forward()
    nv = model.nv
    np.testing.assert_allclose(
        sim.mass_matrix(), np.array(ref["M"]).reshape(n, nv, nv), rtol=1e-13, atol=1e-13
    )
    np.testing.assert_allclose(sim.bias(), ref["bias"], rtol=1e-13, atol=1e-12)
    np.testing.assert_allclose(sim.qacc, ref["qacc"], rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(sim.qacc_smooth, ref["qacc_smooth"], rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(sim.qfrc_constraint, ref["qfrc_constraint"], rtol=1e-12, atol=1e-10)
    assert sim.ncon.astype(int).tolist() == ref["ncon"]
    for s in range(n):
        k = ref["ncon"][s]
        np.testing.assert_allclose(
            sim.contact_force[s, :k],
            np.array(ref["contact_force"][s]).reshape(k, 6),
            rtol=1e-12,
            atol=1e-10,
        )


def test_step_releases_the_gil(assets):
    model = zwang.load(str(assets / "humanoid.xml"))
    sim = zwang.Simulator(model, instances=256, threads=1)
    # long enough to be seen: about a second of stepping
    start = time.perf_counter()
    sim.step(2)
    steps = max(4, int(1.0 / max(time.perf_counter() - start, 1e-6) * 2))
    done = threading.Event()

    def run():
        sim.step(steps)
        done.set()

    worker = threading.Thread(target=run)
    count = 0
    worker.start()
    while not done.is_set():
        count += 1
    worker.join()
    # Python ran on this thread all along: with the GIL held by step(), the loop would stall
    # for the whole second and count only a few switch intervals' worth
    assert count > 100_000, count
    assert sim.failures() == [] or all(
        f.status == zwang.STATUS_NOT_CONVERGED for f in sim.failures()
    )


def test_concurrent_calls_are_serialised(assets):
    model = zwang.load(str(assets / "hopper.xml"))
    a = zwang.Simulator(model, instances=64, threads=1)
    b = zwang.Simulator(model, instances=64, threads=1)
    threads = [threading.Thread(target=a.step, args=(20,)) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    b.step(60)
    np.testing.assert_array_equal(a.qpos, b.qpos)


SMOOTH_MODEL = """
<mujoco>
  <option integrator="RK4"/>
  <worldbody>
    <body name="torso" pos="0 0 1">
      <freejoint/>
      <geom type="capsule" size="0.1" fromto="-0.3 0 0 0.3 0 0" contype="0" conaffinity="0"/>
      <body name="leg" pos="0.3 0 0">
        <joint name="hip" type="hinge" axis="0 1 0" damping="0.2"/>
        <geom type="capsule" size="0.05" fromto="0 0 0 0 0 -0.4" contype="0" conaffinity="0"/>
        <body name="foot" pos="0 0 -0.4">
          <joint name="ankle" type="ball"/>
          <geom type="sphere" size="0.06" contype="0" conaffinity="0"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator><motor joint="hip" gear="20"/></actuator>
</mujoco>
"""


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_cpu_simd_equals_scalar(tmp_path, precision):
    """The SIMD CPU backend gives the scalar backend's bits, instance by instance."""
    path = tmp_path / "smooth.xml"
    path.write_text(SMOOTH_MODEL)
    model = zwang.load(str(path))
    n = 21
    qpos, qvel, ctrl = random_states(model, n, seed=5, spread=0.3)
    sims = {}
    for simd in ("scalar", "auto"):
        sim = zwang.Simulator(model, instances=n, precision=precision, threads=2, cpu_simd=simd)
        sim.reset(qpos=qpos, qvel=qvel)
        sim.ctrl[:] = ctrl
        sim.step(3)
        sims[simd] = sim
    if "avx" not in sims["auto"].backend:
        pytest.skip(f"this CPU runs the scalar backend only ({sims['auto'].backend})")
    for field in ("qpos", "qvel", "qacc", "xpos", "cfrc_ext", "time"):
        np.testing.assert_array_equal(getattr(sims["auto"], field), getattr(sims["scalar"], field))
    with pytest.raises(ValueError, match="cpu_simd"):
        zwang.Simulator(model, cpu_simd="sse")
