"""Tendon springs with MuJoCo 3's dead band (``springlength`` with two values: no force between
them) against MuJoCo 4.0 (the installed Python package): fixed and spatial tendons, a rest length
(one value), the default (the length at qpos_spring), at states below, inside and above the band,
and a damped trajectory; an empty band is an error naming the line."""

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

N = 12

MODEL = """<mujoco model="springs">
  <option timestep="0.005"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <site name="anchor" pos="0 0 2"/>
    <body name="a" pos="0 0 1">
      <joint name="j0" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
      <body name="b" pos="0.4 0 0">
        <joint name="j1" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <site name="tip" pos="0.3 0 0"/>
      </body>
    </body>
    <body name="c" pos="1 0 1">
      <joint name="j2" type="slide" axis="0 0 1" damping="0.2"/>
      <geom type="sphere" size="0.05"/>
    </body>
  </worldbody>
  <tendon>
    <fixed name="band" stiffness="40" springlength="-0.2 0.3">
      <joint joint="j0" coef="1"/><joint joint="j1" coef="0.5"/>
    </fixed>
    <fixed name="rest" stiffness="10" springlength="0.1">
      <joint joint="j1" coef="1"/><joint joint="j2" coef="-1"/>
    </fixed>
    <fixed name="default" stiffness="5">
      <joint joint="j2" coef="2"/>
    </fixed>
    <spatial name="rope" stiffness="60" damping="1" springlength="1.1 1.3">
      <site site="anchor"/><site site="tip"/>
    </spatial>
  </tendon>
</mujoco>
"""


def test_dead_band_springs_match_mujoco4(tmp_path):
    path = tmp_path / "springs.xml"
    path.write_text(MODEL)
    z, m = zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))
    np.testing.assert_allclose(np.asarray(z.tendon_lengthspring), m.tendon_lengthspring, atol=1e-12)
    rng = np.random.default_rng(2)
    qpos = rng.uniform(-0.9, 0.9, (N, m.nq))
    qvel = rng.normal(size=(N, m.nv))
    sim = zwang.Simulator(z, instances=N, precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.forward()
    d = mujoco.MjData(m)
    where = set()
    for i in range(N):
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        mujoco.mj_forward(m, d)
        np.testing.assert_allclose(sim.qfrc_passive[i], d.qfrc_passive, rtol=1e-10, atol=1e-10)
        lower, upper = m.tendon_lengthspring[0]
        where.add(int(np.sign(d.ten_length[0] - lower) + np.sign(d.ten_length[0] - upper)))
    # the band tendon's length below (−2), inside (0) and above (2) its band
    assert where == {-2, 0, 2}
    sim.reset(qpos=qpos, qvel=qvel)
    sim.step(200)
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        mujoco.mj_step(m, d, nstep=200)
        np.testing.assert_allclose(sim.qpos[i], d.qpos, rtol=1e-9, atol=1e-9)


def test_empty_band_names_the_line(tmp_path):
    path = tmp_path / "bad.xml"
    path.write_text(MODEL.replace('springlength="-0.2 0.3"', 'springlength="0.3 -0.2"'))
    with pytest.raises(zwang.ModelError, match=r"bad.xml:\d+: .*springlength \[0.3, -0.2\]"):
        zwang.load(str(path))
