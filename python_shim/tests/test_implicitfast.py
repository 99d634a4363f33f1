"""The implicitfast integrator against MuJoCo 4.0 (the installed Python package) on the same
files: a stiff position-servoed arm with velocity, affine-gain, tendon, filter (actearly) and
muscle actuators, joint and tendon damping (one tendon across two branches of the tree, whose
coupling MuJoCo's factor drops), a force-limited servo, with and without constraint rows; free
bodies spinning with their centre of mass off the frame origin, which MuJoCo 4.0 solves apart with
the gyroscopic derivative of their tree as one rigid body (one with a welded child that has mass,
one with a massless child; one hung from a damped, actuated spatial tendon); and a box resting
on a plane.  Each case also steps with Euler, which must disagree, so that the comparison can
fail."""

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

N = 6
TOL = 1e-9

ARM = """<mujoco model="arm">
  <compiler angle="radian"/>
  <option timestep="0.01" integrator="{integrator}"/>
  <default>
    <joint damping="0.3" armature="0.01"/>
    <geom contype="0" conaffinity="0"/>
  </default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.05"/>
      <body name="fore" pos="0.4 0 0">
        <joint name="elbow" axis="0 1 0" damping="1" {limit}/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body name="hand" pos="0.3 0 0">
          <joint name="wrist" axis="1 0 0"/>
          <geom type="box" size="0.05 0.08 0.02" pos="0.05 0 0"/>
        </body>
      </body>
    </body>
    <body name="other" pos="0 1 1">
      <joint name="swing" axis="1 0 0" damping="0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.04"/>
      <body name="tip" pos="0 0 -0.3">
        <joint name="slide" type="slide" axis="0 0 1" range="-0.2 0.3"/>
        <geom type="sphere" size="0.05"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="cross" damping="4">
      <joint joint="shoulder" coef="1"/><joint joint="swing" coef="-0.5"/>
    </fixed>
    <fixed name="chain" damping="2">
      <joint joint="elbow" coef="1"/><joint joint="wrist" coef="0.3"/>
    </fixed>
  </tendon>
  <actuator>
    <position joint="shoulder" kp="800" kv="40"/>
    <position joint="elbow" kp="500" kv="20" forcerange="-30 30"/>
    <velocity joint="wrist" kv="5"/>
    <general tendon="chain" gaintype="affine" gainprm="2 0 -3" biastype="affine"
             biasprm="0 -10 -1"/>
    <general joint="swing" dyntype="filter" dynprm="0.05" gaintype="affine" gainprm="1 0 -2"
             actearly="true"/>
    <muscle joint="slide" lengthrange="-0.2 0.3" force="80" range="0.7 1.1" vmax="1"/>
  </actuator>
</mujoco>
"""

FREE = """<mujoco model="free">
  <option timestep="0.005" integrator="{integrator}" gravity="0 0 -9.81"/>
  <worldbody>
    {floor}
    <body name="top" pos="0 0 1">
      <joint type="free" damping="0.02"/>
      <geom type="box" size="0.3 0.1 0.05" pos="0.05 0.02 -0.01" density="500"/>
      <geom type="sphere" size="0.05" pos="-0.2 0 0.1"/>
    </body>
    <body name="pair" pos="1 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="capsule" size="0.05 0.2" euler="0 90 0" pos="0.02 0 0"/>
      <body name="child" pos="0.3 0 0">
        <geom type="sphere" size="0.08" pos="0 0.1 0"/>
      </body>
    </body>
    <body name="marker" pos="-1 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.1 0.2 0.05" pos="0 0.03 0"/>
      <body name="massless" pos="0.1 0 0"><site name="s"/></body>
    </body>
  </worldbody>
</mujoco>
"""

HUNG = """<mujoco model="hung">
  <option timestep="0.01" integrator="{integrator}"/>
  <worldbody>
    <site name="anchor" pos="0 0 2"/>
    <body name="box" pos="0.3 0.1 1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05" density="300"/>
      <site name="corner" pos="0.15 0.05 0.05"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="rope" damping="20" stiffness="50">
      <site site="anchor"/><site site="corner"/>
    </spatial>
  </tendon>
  <actuator>
    <general tendon="rope" gaintype="affine" gainprm="1 0 -30"/>
  </actuator>
</mujoco>
"""

BOX = """<mujoco model="box">
  <option timestep="0.01" integrator="{integrator}"/>
  <worldbody>
    <geom type="plane" size="5 5 0.1"/>
    <body name="box" pos="0 0 0.1">
      <joint type="free" damping="0.5"/>
      <geom type="box" size="0.2 0.1 0.1"/>
    </body>
  </worldbody>
</mujoco>
"""


def load(tmp_path, text, **fmt):
    path = tmp_path / "model.xml"
    path.write_text(text.format(**fmt))
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


def rel_error(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.abs(a - b).max(initial=0.0) / (1.0 + np.abs(b).max(initial=0.0))


def ends_off(z, qpos, qvel, ctrl, steps, ref_qvel, act=None, tol=1e3 * TOL, may_stop=True):
    """whether another integrator (z's) from the same states ends more than `tol` away from the
    reference, or stops where it `may_stop`"""
    sim = zwang.Simulator(z, instances=len(qpos), precision="f64")
    sim.reset(qpos=qpos, qvel=qvel, act=act)
    sim.ctrl[:] = ctrl
    sim.step(steps)
    if not may_stop:
        assert not sim.status.any(), sim.status
    return sim.status.any() or rel_error(sim.qvel, ref_qvel) > tol


def run_both(z, m, qpos, qvel, ctrl, steps, act=None):
    """zwang's and MuJoCo's states after `steps` steps from each instance's start"""
    sim = zwang.Simulator(z, instances=len(qpos), precision="f64")
    sim.reset(qpos=qpos, qvel=qvel, act=act)
    sim.ctrl[:] = ctrl
    sim.step(steps)
    assert not sim.status.any(), sim.status
    d = mujoco.MjData(m)
    ref_qpos, ref_qvel = [], []
    for i in range(len(qpos)):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        if act is not None:
            d.act[:] = act[i]
        for _ in range(steps):
            mujoco.mj_step(m, d)
        ref_qpos.append(d.qpos.copy())
        ref_qvel.append(d.qvel.copy())
    return (sim.qpos.copy(), sim.qvel.copy()), (np.array(ref_qpos), np.array(ref_qvel))


def arm_states(z, seed):
    rng = np.random.default_rng(seed)
    qpos = rng.uniform(-0.8, 0.8, (N, z.nq))
    qpos[:, 4] = rng.uniform(-0.15, 0.25, N)  # the muscle's slide, within its length range
    qvel = rng.normal(scale=2.0, size=(N, z.nv))
    ctrl = np.column_stack(
        [
            rng.uniform(-1, 1, (N, 5)),
            rng.uniform(0, 1, N),  # the muscle
        ]
    )
    act = rng.uniform(-0.5, 0.5, (N, z.na))
    return qpos, qvel, ctrl, act


@pytest.mark.parametrize("limit", ["", 'range="-0.3 0.3"'])
def test_stiff_arm_matches_mujoco4(tmp_path, limit):
    z, m = load(tmp_path, ARM, integrator="implicitfast", limit=limit)
    assert z.integrator == "implicitfast"
    assert m.opt.integrator == mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    assert z.warnings == []
    qpos, qvel, ctrl, act = arm_states(z, 3)
    # the servo at the force limit drops out of the matrix: some instances start there
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, ctrl, 40, act)
    assert rel_error(zq, mq) < TOL, rel_error(zq, mq)
    assert rel_error(zv, mv) < TOL, rel_error(zv, mv)
    # Euler on the same states is far off or diverges: kp 800 and kv 40 at h = 0.01 are stiff
    ze, _ = load(tmp_path, ARM, integrator="Euler", limit=limit)
    assert ends_off(ze, qpos, qvel, ctrl, 40, mv, act)


def test_free_bodies_match_mujoco4(tmp_path):
    z, m = load(tmp_path, FREE, integrator="implicitfast", floor="")
    # every free joint here moves its tree alone, welded children and all
    assert list(z.jnt_freebody) == [1, 2, 4]
    rng = np.random.default_rng(11)
    qpos = np.tile(m.qpos0, (N, 1))
    qvel = rng.normal(scale=4.0, size=(N, z.nv))
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, np.zeros((N, 0)), 60)
    assert rel_error(zq, mq) < TOL, rel_error(zq, mq)
    assert rel_error(zv, mv) < TOL, rel_error(zv, mv)
    ze, _ = load(tmp_path, FREE, integrator="Euler", floor="")
    assert ends_off(ze, qpos, qvel, np.zeros((N, 0)), 60, mv)


def test_free_bodies_on_a_floor_match_mujoco4(tmp_path):
    floor = '<geom type="plane" size="5 5 0.1" pos="0 0 0.8"/>'
    z, m = load(tmp_path, FREE, integrator="implicitfast", floor=floor)
    rng = np.random.default_rng(12)
    qpos = np.tile(m.qpos0, (N, 1))
    qvel = rng.normal(scale=2.0, size=(N, z.nv))
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, np.zeros((N, 0)), 80)
    assert rel_error(zq, mq) < 1e-7, rel_error(zq, mq)
    assert rel_error(zv, mv) < 1e-7, rel_error(zv, mv)


def test_free_body_on_a_damped_tendon_matches_mujoco4(tmp_path):
    # a spatial tendon's damper and its actuator's velocity term reach the free joint's 6 dofs
    z, m = load(tmp_path, HUNG, integrator="implicitfast")
    assert list(z.jnt_freebody) == [1]
    rng = np.random.default_rng(13)
    qpos = np.tile(m.qpos0, (N, 1))
    qvel = rng.normal(scale=2.0, size=(N, z.nv))
    ctrl = rng.uniform(-1, 1, (N, 1))
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, ctrl, 20)
    assert rel_error(zq, mq) < TOL, rel_error(zq, mq)
    assert rel_error(zv, mv) < TOL, rel_error(zv, mv)
    ze, _ = load(tmp_path, HUNG, integrator="Euler")
    assert ends_off(ze, qpos, qvel, ctrl, 20, mv)


def test_box_rests_on_a_plane(tmp_path):
    z, m = load(tmp_path, BOX, integrator="implicitfast")
    qpos = np.tile(m.qpos0, (N, 1))
    qpos[:, 2] = 0.1
    qvel = np.zeros((N, z.nv))
    (zq, zv), (mq, mv) = run_both(z, m, qpos, qvel, np.zeros((N, 0)), 200)
    assert rel_error(zq, mq) < 1e-7, rel_error(zq, mq)
    assert np.abs(zv).max() < 1e-3
    assert np.abs(zq[:, 2] - mq[:, 2]).max() < 1e-6
