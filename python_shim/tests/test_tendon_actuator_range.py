"""MuJoCo 3's ``actuatorfrcrange`` on tendons against MuJoCo 4.0 (the installed Python package):
the actuators on a limited tendon scaled together so that their total force stays in the range,
before each one's own forcerange; fixed and spatial tendons, autolimits, a default class, a
trajectory on the scalar and SIMD backends; invalid ranges are errors naming the line."""

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

N = 48

MODEL = """<mujoco model="tendon actuator range">
  <compiler autolimits="true"/>
  <option timestep="0.002"/>
  <default>
    <geom contype="0" conaffinity="0"/>
    <default class="capped"><tendon actuatorfrcrange="-1.5 0.8"/></default>
  </default>
  <worldbody>
    <site name="anchor" pos="0 0 1.5"/>
    <body name="a" pos="0 0 1">
      <joint name="j0" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
      <site name="tip" pos="0.4 0 0"/>
      <body name="b" pos="0.4 0 0">
        <joint name="j1" axis="0 1 0" damping="0.1"/>
        <joint name="j2" type="slide" axis="1 0 0" damping="0.5"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="f" actuatorfrcrange="-1 0.5">
      <joint joint="j0" coef="1"/><joint joint="j1" coef="-0.5"/>
    </fixed>
    <spatial name="s" actuatorfrcrange="-2 0">
      <site site="anchor"/><site site="tip"/>
    </spatial>
    <fixed name="c" class="capped"><joint joint="j2" coef="1"/></fixed>
    <fixed name="off" class="capped" actuatorfrclimited="false"><joint joint="j1" coef="1"/>
    </fixed>
  </tendon>
  <actuator>
    <motor tendon="f" gear="2"/>
    <position tendon="f" kp="3"/>
    <motor tendon="s" ctrlrange="-3 3"/>
    <velocity tendon="s" kv="2"/>
    <motor tendon="c" gear="1.5" forcerange="-0.6 0.6"/>
    <motor tendon="c"/>
    <motor tendon="off"/>
    <motor joint="j0"/>
  </actuator>
</mujoco>
"""


def load_both(tmp_path, text=MODEL):
    path = tmp_path / "range.xml"
    path.write_text(text)
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


def states(m, count, seed):
    rng = np.random.default_rng(seed)
    qpos = rng.uniform(-1, 1, (count, m.nq))
    qvel = rng.normal(size=(count, m.nv))
    ctrl = rng.uniform(-2.5, 2.5, (count, m.nu))
    return qpos, qvel, ctrl


def test_model_arrays_are_mujocos(tmp_path):
    # a reversed range without actuatorfrclimited limits nothing (MuJoCo 4's autolimits)
    z, m = load_both(tmp_path, MODEL.replace('"-1 0.5"', '"0.5 -1"'))
    assert list(z.tendon_actfrclimited) == list(m.tendon_actfrclimited) == [0, 1, 1, 0]
    z, m = load_both(tmp_path)
    np.testing.assert_array_equal(np.asarray(z.tendon_actfrclimited), m.tendon_actfrclimited)
    np.testing.assert_array_equal(
        np.asarray(z.tendon_actfrcrange).reshape(-1, 2), m.tendon_actfrcrange
    )
    assert not any("actuatorfrcrange" in w for w in z.warnings), z.warnings


@pytest.mark.parametrize("cpu_simd", ["scalar", "auto"])
def test_forces_match_mujoco4(tmp_path, cpu_simd):
    z, m = load_both(tmp_path)
    qpos, qvel, ctrl = states(m, N, 4)
    sim = zwang.Simulator(z, instances=N, precision="f64", cpu_simd=cpu_simd)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.forward()
    d = mujoco.MjData(m)
    scaled = np.zeros(m.ntendon, bool)
    for i in range(N):
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_forward(m, d)
        np.testing.assert_allclose(sim.actuator_force[i], d.actuator_force, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(sim.qfrc_actuator[i], d.qfrc_actuator, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(sim.qacc[i], d.qacc, rtol=1e-10, atol=1e-10)
        # which limited tendons' actuators were scaled in this state
        for t in range(m.ntendon):
            on = (m.actuator_trntype == mujoco.mjtTrn.mjTRN_TENDON) & (m.actuator_trnid[:, 0] == t)
            total = d.actuator_force[on].sum()
            lo, hi = m.tendon_actfrcrange[t]
            if m.tendon_actfrclimited[t] and np.isclose(total, lo) | np.isclose(total, hi):
                scaled[t] = True
    # every limited tendon hits its range in some state
    assert scaled[:3].all(), scaled


@pytest.mark.parametrize("cpu_simd", ["scalar", "auto"])
def test_trajectory_matches_mujoco4(tmp_path, cpu_simd):
    z, m = load_both(tmp_path)
    qpos, qvel, ctrl = states(m, 6, 8)
    sim = zwang.Simulator(z, instances=6, precision="f64", cpu_simd=cpu_simd)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.step(300)
    d = mujoco.MjData(m)
    for i in range(6):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_step(m, d, nstep=300)
        np.testing.assert_allclose(sim.qpos[i], d.qpos, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    "attrs,message",
    [
        ('actuatorfrcrange="1 2"', "actuatorfrcrange"),
        ('actuatorfrcrange="-1 -0.5"', "actuatorfrcrange"),
        ('actuatorfrclimited="true" actuatorfrcrange="0.5 -0.5"', "actuatorfrcrange"),
        ('actuatorfrclimited="true"', "actuatorfrcrange"),
    ],
)
def test_bad_ranges_name_the_line(tmp_path, attrs, message):
    text = f"""<mujoco>
  <worldbody><body><joint name="j"/><geom size="0.1"/></body></worldbody>
  <tendon>
    <fixed {attrs}><joint joint="j" coef="1"/></fixed>
  </tendon>
</mujoco>"""
    path = tmp_path / "bad.xml"
    path.write_text(text)
    with pytest.raises(zwang.ModelError, match=message) as err:
        zwang.load(str(path))
    assert "bad.xml:4" in str(err.value)
