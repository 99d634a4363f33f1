"""Actuator activations: sim.act and sim.act_dot, reset(act=...), keyframes' act, and steps of a
model with integrator, filter, cylinder and filterexact actuators (the last with actearly: both
are MuJoCo 3's) and a motor after them (MuJoCo 3's order
rules: 2.2.2 wants the actuators without activation first) against MuJoCo (the installed Python
package; its actearly defaults to false, MuJoCo 2.2.2's semantics)."""

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

N = 6

MODEL = """<mujoco>
  <option timestep="0.002" integrator="{integrator}"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body pos="0 0 1">
      <joint name="h1" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body pos="0.3 0 0">
        <joint name="s2" type="slide" axis="1 0 0"/>
        <geom type="box" size="0.05 0.05 0.05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <general joint="h1" dyntype="integrator" gainprm="3" actlimited="true" actrange="-0.5 0.8"/>
    <general joint="s2" dyntype="filter" dynprm="0.05" gaintype="affine" gainprm="4 1 -0.5"
             biastype="affine" biasprm="0 -2 -0.1"/>
    <cylinder joint="s2" timeconst="0.2" area="0.1" bias="0.5 -3 -0.4"/>
    <general joint="h1" dyntype="filterexact" dynprm="0.03" gainprm="2" actlimited="true"
             actrange="-0.4 0.9" actearly="true"/>
    <motor joint="h1" gear="2"/>
  </actuator>
  <keyframe><key name="k" act="0.1 0.2 0.3 0.4"/></keyframe>
</mujoco>
"""


def both(tmp_path, integrator):
    path = tmp_path / f"act_{integrator}.xml"
    path.write_text(MODEL.format(integrator=integrator))
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


def close(a, b, what, tol=1e-9):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, what
    err = np.abs(a - b).max(initial=0.0) / (1.0 + np.abs(b).max(initial=0.0))
    assert err < tol, f"{what}: relative error {err:.3g}"


@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
def test_steps_match_mujoco(tmp_path, integrator):
    model, m = both(tmp_path, integrator)
    assert model.na == m.na == 4
    rng = np.random.default_rng(4)
    qpos = rng.uniform(-1, 1, (N, model.nq))
    qvel = rng.normal(size=(N, model.nv))
    ctrl = rng.uniform(-1.5, 1.5, (N, model.nu))
    act = rng.normal(size=(N, model.na))
    sim = zwang.Simulator(model, instances=N, precision="f64")
    sim.reset(qpos=qpos, qvel=qvel, act=act)
    np.testing.assert_array_equal(sim.act, act)
    sim.ctrl[:] = ctrl
    sim.forward()
    d = mujoco.MjData(m)
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:], d.act[:] = qpos[i], qvel[i], ctrl[i], act[i]
        mujoco.mj_forward(m, d)
        close(sim.act_dot[i], d.act_dot, f"act_dot {i}")
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force {i}")
        close(sim.qacc[i], d.qacc, f"qacc {i}")
    steps = 40
    sim.step(steps)
    assert not sim.status.any()
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:], d.act[:] = qpos[i], qvel[i], ctrl[i], act[i]
        for _ in range(steps):
            mujoco.mj_step(m, d)
        close(sim.act[i], d.act, f"act {i}")
        close(sim.qpos[i], d.qpos, f"qpos {i}")
        close(sim.qvel[i], d.qvel, f"qvel {i}")
    assert sim.act[:, 0].min() >= -0.5 and sim.act[:, 0].max() <= 0.8
    assert sim.act[:, 3].min() >= -0.4 and sim.act[:, 3].max() <= 0.9


def test_keyframe_and_reset_shapes(tmp_path):
    model, m = both(tmp_path, "Euler")
    np.testing.assert_array_equal(model.key_act, m.key_act)
    sim = zwang.Simulator(model, instances=3, precision="f32")
    assert sim.act.shape == (3, 4) and sim.act_dot.shape == (3, 4)
    assert sim.act.dtype == np.float32
    sim.reset(keyframe="k")
    np.testing.assert_allclose(sim.act, np.tile([0.1, 0.2, 0.3, 0.4], (3, 1)), rtol=1e-7)
    sim.reset(instances=[1], act=[1, 2, 3, 4])
    np.testing.assert_array_equal(sim.act[1], [1, 2, 3, 4])
    np.testing.assert_allclose(sim.act[0], [0.1, 0.2, 0.3, 0.4], rtol=1e-7)
    sim.reset()
    assert not sim.act.any()
    with pytest.raises(ValueError, match=r"act has shape \(2,\), expected \(4,\) or \(3, 4\)"):
        sim.reset(act=[1, 2])
    with pytest.raises(ValueError, match="act of instance 0 is not finite"):
        sim.reset(act=[np.nan, 0, 0, 0])


MUSCLES = """<mujoco>
  <compiler><lengthrange uselimit="true"/></compiler>
  <option timestep="0.002" integrator="{integrator}"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body pos="0 0 1">
      <joint name="h1" axis="0 1 0" limited="true" range="-60 60" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body pos="0.3 0 0">
        <joint name="s2" type="slide" axis="1 0 0"/>
        <geom type="box" size="0.05 0.05 0.05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <muscle joint="h1" gear="1.2"/>
    <motor joint="s2"/>
    <muscle joint="s2" lengthrange="-0.2 0.3" force="50" timeconst="0.02 0.05" range="0.7 1.1"
            lmin="0.4" lmax="1.7" vmax="2" fpmax="1.5" fvmax="1.3"/>
  </actuator>
</mujoco>
"""


@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
def test_muscles_match_mujoco(tmp_path, integrator):
    path = tmp_path / f"muscles_{integrator}.xml"
    path.write_text(MUSCLES.format(integrator=integrator))
    model, m = zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))
    assert model.na == m.na == 2
    rng = np.random.default_rng(8)
    # lengths within the length ranges: MuJoCo 3 and 4 give no active force below lmin, where
    # 2.2.2's curve (and zwang's) goes on (tests/kernels/test_actuator_dynamics.cc checks 2.2.2
    # there)
    qpos = np.stack([rng.uniform(-1.0, 1.0, N), rng.uniform(-0.2, 0.3, N)], axis=1)
    qvel = rng.normal(size=(N, model.nv))
    ctrl = rng.uniform(-0.5, 1.5, (N, model.nu))
    act = rng.uniform(-0.2, 1.2, (N, model.na))
    sim = zwang.Simulator(model, instances=N, precision="f64")
    sim.reset(qpos=qpos, qvel=qvel, act=act)
    sim.ctrl[:] = ctrl
    sim.forward()
    d = mujoco.MjData(m)
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:], d.act[:] = qpos[i], qvel[i], ctrl[i], act[i]
        mujoco.mj_forward(m, d)
        close(sim.act_dot[i], d.act_dot, f"act_dot {i}")
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force {i}")
    sim.step(30)
    assert not sim.status.any()
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:], d.act[:] = qpos[i], qvel[i], ctrl[i], act[i]
        for _ in range(30):
            mujoco.mj_step(m, d)
        close(sim.act[i], d.act, f"act {i}")
        close(sim.qvel[i], d.qvel, f"qvel {i}")
