"""Weld equalities against MuJoCo 4.0 (the installed Python package): a free body welded to a
static body and to a mocap body (relpose, torquescale, solref and solimp), and a hinged child
welded to it with torquescale 0.3, at random poses and velocities; MuJoCo 4.0 takes the residual
of a weld's rotational rows scaled by torquescale, their R from the bodies' rotational
invweight0, and J̇ q̇ out of every row's reference acceleration, where MuJoCo 2.2.2
(zwang.load(..., rules="2.2.2")) does none of these, which must then differ."""

import numpy as np
import pytest
import zwang
from conftest import random_states

mujoco = pytest.importorskip("mujoco")

N = 6

# a free body b and its hinged child c, with an optional body before them and equalities
BODIES = """<mujoco>
  <option timestep="0.002" tolerance="1e-13" iterations="200"/>
  <worldbody>
    {before}
    <body name="b" pos="0.3 0.1 0.5" euler="10 20 30">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.02"/>
      <body name="c" pos="0.15 0 0">
        <joint name="hinge" axis="0 0 1"/>
        <geom type="capsule" size="0.02 0.05" euler="0 90 0" pos="0.05 0 0"/>
      </body>
    </body>
  </worldbody>
  <equality>
    {equality}
  </equality>
</mujoco>
"""

WELD = BODIES.format(
    before='<body name="anchor" pos="0.3 0.1 0.5" {mocap}/>',
    equality='<weld body1="anchor" body2="b" {extra}/>\n'
    '    <weld body1="b" body2="c" torquescale="0.3" solref="0.01 1"/>',
)

EXTRAS = [
    "",
    'relpose="0.1 0 0 0.9 0.1 0 0.2"',
    'torquescale="0.5" solimp="0.9 0.95 0.001" solref="0.02 1"',
]


def rel_error(a, b):
    return np.abs(a - b).max() / (1 + np.abs(b).max())


def both(tmp_path, mocap, extra, rules="4.0"):
    path = tmp_path / "weld.xml"
    path.write_text(WELD.format(mocap=mocap, extra=extra))
    return zwang.load(str(path), rules=rules), mujoco.MjModel.from_xml_path(str(path))


def run(z, m, qpos, qvel, mocap_pos, steps):
    sim = zwang.Simulator(z, instances=len(qpos), precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    if m.nmocap:
        sim.mocap_pos[:, 0] = mocap_pos
    if steps:
        sim.step(steps)
    else:
        sim.forward()
    assert not sim.status.any(), sim.status
    d = mujoco.MjData(m)
    ref = []
    for i in range(len(qpos)):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        if m.nmocap:
            d.mocap_pos[:] = mocap_pos[i]
        if steps:
            for _ in range(steps):
                mujoco.mj_step(m, d)
            ref.append(np.concatenate([d.qpos, d.qvel]))
        else:
            mujoco.mj_forward(m, d)
            ref.append(d.qacc.copy())
    got = np.hstack([sim.qpos, sim.qvel]) if steps else sim.qacc
    return got, np.array(ref)


def states(z, seed):
    qpos, qvel, _ = random_states(z, N, seed=seed, spread=0.3)
    mocap_pos = np.array([0.3, 0.1, 0.5]) + np.random.default_rng(seed).uniform(-0.05, 0.05, (N, 3))
    return qpos, qvel, mocap_pos


@pytest.mark.parametrize("mocap", ["", 'mocap="true"'])
@pytest.mark.parametrize("extra", EXTRAS)
def test_weld_matches_mujoco4(tmp_path, mocap, extra):
    z, m = both(tmp_path, mocap, extra)
    assert z.rules == "4.0"
    qpos, qvel, mocap_pos = states(z, 4)
    got, ref = run(z, m, qpos, qvel, mocap_pos, 0)
    assert rel_error(got, ref) < 1e-10, rel_error(got, ref)
    got, ref = run(z, m, qpos, qvel, mocap_pos, 100)
    assert rel_error(got, ref) < 1e-8, rel_error(got, ref)
    # MuJoCo 2.2.2's rotational rows give other accelerations
    z2, _ = both(tmp_path, mocap, extra, rules="2.2.2")
    assert z2.rules == "2.2.2"
    got2, ref = run(z2, m, qpos, qvel, mocap_pos, 0)
    assert rel_error(got2, ref) > 1e-3, rel_error(got2, ref)


CONNECT = BODIES.format(
    before="",
    equality='<connect body1="b" body2="world" anchor="0.08 0.03 0.01"/>\n'
    '    <connect body1="c" body2="b" anchor="0.1 0 0"/>',
)


def test_connect_matches_mujoco4(tmp_path):
    # anchors off the bodies' origins: their points' J̇ q̇ leaves MuJoCo 4.0's reference
    path = tmp_path / "connect.xml"
    path.write_text(CONNECT)
    m = mujoco.MjModel.from_xml_path(str(path))
    qpos, qvel, _ = random_states(zwang.load(str(path)), N, seed=6, spread=0.3)
    for rules, near in (("4.0", True), ("2.2.2", False)):
        z = zwang.load(str(path), rules=rules)
        got, ref = run(z, m, qpos, qvel, None, 0)
        assert (rel_error(got, ref) < 1e-10) == near, (rules, rel_error(got, ref))
    got, ref = run(zwang.load(str(path)), m, qpos, qvel, None, 100)
    assert rel_error(got, ref) < 1e-8, rel_error(got, ref)
