"""The implicit integrator against MuJoCo 4.0 (the installed Python package) on the same files:
implicitfast's models (a stiff position-servoed arm with velocity, affine-gain, tendon, filter and
muscle actuators and dampers, free bodies spinning off their frame origin, a free body on a damped
tendon, a box on a plane), a chain of ball, hinge and slide joints in a fluid of the ellipsoid
model (whose derivative is not symmetric) with contacts, and MuJoCo's humanoid with contacts.
implicit's matrix adds the velocity derivative of the Coriolis and centrifugal forces to
implicitfast's: each case also steps with implicitfast, which must disagree, so that the
comparison can fail."""

import pathlib

import numpy as np
import pytest
import zwang
from conftest import random_states
from test_implicitfast import (
    ARM,
    BOX,
    FREE,
    HUNG,
    TOL,
    N,
    arm_states,
    ends_off,
    load,
    rel_error,
    run_both,
)

mujoco = pytest.importorskip("mujoco")

CHAIN = """<mujoco model="chain">
  <option timestep="0.005" integrator="{integrator}" density="600" viscosity="0.02"
          wind="0.3 -0.2 0"/>
  <default>
    <geom fluidshape="ellipsoid" fluidcoef="0.5 0.25 1.5 1 1" contype="1" conaffinity="1"/>
    <joint damping="0.05"/>
  </default>
  <worldbody>
    <geom type="plane" size="5 5 0.1" pos="0 0 0.1" fluidshape="none"/>
    <body name="base" pos="0 0 0.5">
      <joint name="ball" type="ball"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="mid" pos="0.3 0 0" euler="0 0 30">
        <joint name="bend" axis="0 1 0"/>
        <geom type="ellipsoid" size="0.15 0.06 0.03" pos="0.15 0 0" contype="0" conaffinity="0"/>
        <body name="tip" pos="0.3 0 0">
          <joint name="reach" type="slide" axis="1 0 0" range="-0.1 0.1"/>
          <joint name="twist" axis="1 0 0"/>
          <geom type="box" size="0.08 0.03 0.02"/>
        </body>
      </body>
    </body>
    <body name="puck" pos="0.6 0.4 0.4">
      <freejoint/>
      <geom type="cylinder" size="0.1 0.03" euler="20 10 0"/>
    </body>
  </worldbody>
  <contact><exclude body1="base" body2="tip"/></contact>
  <actuator>
    <position joint="bend" kp="200" kv="5"/>
    <velocity joint="twist" kv="2"/>
  </actuator>
</mujoco>
"""


def implicitfast_is_off(tmp_path, text, qpos, qvel, ctrl, steps, ref_qvel, act=None, **fmt):
    """whether implicitfast from the same states ends away from implicit's reference"""
    z, _ = load(tmp_path, text, integrator="implicitfast", **fmt)
    return ends_off(z, qpos, qvel, ctrl, steps, ref_qvel, act, tol=1e2 * TOL, may_stop=False)


@pytest.mark.parametrize("limit", ["", 'range="-0.3 0.3"'])
def test_stiff_arm_matches_mujoco4(tmp_path, limit):
    z, m = load(tmp_path, ARM, integrator="implicit", limit=limit)
    assert z.integrator == "implicit"
    assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_IMPLICIT
    assert z.warnings == []
    qpos, qvel, ctrl, act = arm_states(z, 3)
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, ctrl, 40, act)
    assert rel_error(zq, mq) < TOL, rel_error(zq, mq)
    assert rel_error(zv, mv) < TOL, rel_error(zv, mv)
    assert implicitfast_is_off(tmp_path, ARM, qpos, qvel, ctrl, 40, mv, act, limit=limit)


@pytest.mark.parametrize("floor", ["", '<geom type="plane" size="5 5 0.1" pos="0 0 0.8"/>'])
def test_free_bodies_match_mujoco4(tmp_path, floor):
    # no special case for free bodies: their gyroscopic derivative is in the one LU (implicitfast
    # solves these free bodies apart with the same derivative, so the two agree here)
    z, m = load(tmp_path, FREE, integrator="implicit", floor=floor)
    rng = np.random.default_rng(21)
    qpos = np.tile(m.qpos0, (N, 1))
    qvel = rng.normal(scale=4.0 if not floor else 2.0, size=(N, z.nv))
    steps = 60 if not floor else 80
    tol = TOL if not floor else 1e-7
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, np.zeros((N, 0)), steps)
    assert rel_error(zq, mq) < tol, rel_error(zq, mq)
    assert rel_error(zv, mv) < tol, rel_error(zv, mv)


def test_free_body_on_a_damped_tendon_matches_mujoco4(tmp_path):
    z, m = load(tmp_path, HUNG, integrator="implicit")
    rng = np.random.default_rng(23)
    qpos = np.tile(m.qpos0, (N, 1))
    qvel = rng.normal(scale=2.0, size=(N, z.nv))
    ctrl = rng.uniform(-1, 1, (N, 1))
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, ctrl, 20)
    assert rel_error(zq, mq) < TOL, rel_error(zq, mq)
    assert rel_error(zv, mv) < TOL, rel_error(zv, mv)


def test_box_rests_on_a_plane(tmp_path):
    z, m = load(tmp_path, BOX, integrator="implicit")
    qpos = np.tile(m.qpos0, (N, 1))
    qpos[:, 2] = 0.1
    (zq, zv), (mq, _) = run_both(z, m, qpos, np.zeros((N, z.nv)), np.zeros((N, 0)), 200)
    assert rel_error(zq, mq) < 1e-7, rel_error(zq, mq)
    assert np.abs(zv).max() < 1e-3


@pytest.mark.parametrize("cpu_simd", ["scalar", "auto"])
def test_chain_in_a_fluid_matches_mujoco4(tmp_path, cpu_simd):
    z, m = load(tmp_path, CHAIN, integrator="implicit")
    qpos, qvel, ctrl = random_states(z, N, seed=5, spread=1.5)
    qpos[:, 5] = np.clip(qpos[:, 5], -0.1, 0.1)  # the slide, within its range
    sim = zwang.Simulator(z, instances=N, precision="f64", cpu_simd=cpu_simd)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.step(50)
    assert not sim.status.any(), sim.status
    d = mujoco.MjData(m)
    ref = []
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        for _ in range(50):
            mujoco.mj_step(m, d)
        ref.append(np.concatenate([d.qpos, d.qvel]))
    ref = np.array(ref)
    assert rel_error(np.hstack([sim.qpos, sim.qvel]), ref) < 1e-8
    assert implicitfast_is_off(tmp_path, CHAIN, qpos, qvel, ctrl, 50, ref[:, z.nq :])


def test_humanoid_with_contacts_matches_mujoco4(tmp_path):
    source = pathlib.Path("/usr/share/mujoco/model/humanoid/humanoid.xml")
    if not source.exists():
        pytest.skip("MuJoCo's model files are not installed (scripts/setup.sh installs them)")
    text = source.read_text().replace("<option ", '<option integrator="implicit" ', 1)
    assert 'integrator="implicit"' in text
    path = tmp_path / "humanoid.xml"
    path.write_text(text)
    z, m = zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))
    assert z.integrator == "implicit"
    qpos, qvel, ctrl = random_states(z, N, seed=8, spread=0.5)
    qpos[:, 2] = 0.6  # low enough that some limb touches the floor
    d = mujoco.MjData(m)
    touching = 0
    for q in qpos:
        d.qpos[:] = q
        mujoco.mj_forward(m, d)
        touching += d.ncon > 0
    assert touching >= N // 2, touching
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, ctrl, 10)
    assert rel_error(zq, mq) < 1e-8, rel_error(zq, mq)
    assert rel_error(zv, mv) < 1e-8, rel_error(zv, mv)
    fast = text.replace('integrator="implicit"', 'integrator="implicitfast"', 1)
    assert implicitfast_is_off(
        tmp_path, fast.replace("{", "{{").replace("}", "}}"), qpos, qvel, ctrl, 10, mv
    )


def test_hard_rows_are_refused(tmp_path):
    path = tmp_path / "hard.xml"
    path.write_text("""<mujoco>
  <option integrator="implicit"/>
  <custom><numeric name="hard:tie" data="1"/></custom>
  <worldbody>
    <body name="a"><joint name="j1" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05"/>
      <body name="b" pos="0 0 -1"><joint name="j2" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05"/></body></body>
  </worldbody>
  <equality><joint name="tie" joint1="j1" joint2="j2"/></equality>
</mujoco>""")
    message = r"hard.xml:2: the implicit integrator cannot hold the 1 hard rows"
    with pytest.raises(zwang.ModelError, match=message):
        zwang.load(str(path))
