"""Box–box contacts against MuJoCo 4.0 (the installed Python package), whose box–box separates
by axes and clips the incident face against the reference face (up to eight contacts), or takes
one contact between two edges: the contact sets (count, dist, pos, frame) at random poses from
apart to deep overlap, with and without a margin; boxes of the same orientation (face–face,
touching and sunk); a box resting on another (four contacts) and staying there; a box turned 45°
on another (a clipped octagon); edge on edge.  MuJoCo 2.2.2's box–box (``rules="2.2.2"``) gives
other contact sets, which the last test checks, so that the comparison can fail."""

import numpy as np
import pytest
import zwang
from test_mesh_collision import compare, contacts_of_both

mujoco = pytest.importorskip("mujoco")

TOL = 1e-12

PAIR = """<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="a"><freejoint/>
      <geom type="box" size="{s1}" margin="{margin}"/></body>
    <body name="b" pos="0 0 1"><freejoint/>
      <geom type="box" size="{s2}" margin="{margin}"/></body>
  </worldbody>
</mujoco>"""


def load(tmp_path, s1, s2, margin=0.0, rules="4.0"):
    path = tmp_path / "pair.xml"
    path.write_text(
        PAIR.format(s1=" ".join(map(str, s1)), s2=" ".join(map(str, s2)), margin=margin)
    )
    return zwang.load(str(path), rules=rules), mujoco.MjModel.from_xml_path(str(path))


def unit_quat(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=1, keepdims=True)


def poses(rng, n, spread, same=False):
    qpos = np.zeros((n, 14))
    qpos[:, 3:7] = unit_quat(rng, n)
    qpos[:, 7:10] = rng.uniform(-spread, spread, (n, 3))
    qpos[:, 10:14] = qpos[:, 3:7] if same else unit_quat(rng, n)
    return qpos


@pytest.mark.parametrize("margin", [0.0, 0.02])
@pytest.mark.parametrize("same", [False, True])
def test_random_pairs_match_mujoco4(tmp_path, margin, same):
    rng = np.random.default_rng(3 + int(same) + int(100 * margin))
    touching = 0
    for trial in range(8):
        z, m = load(tmp_path, rng.uniform(0.05, 0.3, 3), rng.uniform(0.05, 0.3, 3), margin)
        qpos = poses(rng, 32, 0.45, same)
        for k, (ours, theirs) in enumerate(contacts_of_both(z, m, qpos)):
            compare(ours, theirs, f"trial {trial} pose {k}", TOL)
            touching += len(theirs) > 0
    assert touching > 40


def test_face_on_face_and_turned(tmp_path):
    z, m = load(tmp_path, (0.1, 0.1, 0.05), (0.12, 0.12, 0.05))
    qpos = np.zeros((4, 14))
    qpos[:, 3] = qpos[:, 10] = 1
    qpos[:, 9] = [0.1, 0.099, 0.095, 0.1005]  # touching, sunk, deeper, a gap
    turned = qpos.copy()
    turned[:, 10] = np.cos(np.pi / 8)
    turned[:, 13] = np.sin(np.pi / 8)  # 45° about z: the top face clipped to an octagon
    counts = []
    for state in (qpos, turned):
        for k, (ours, theirs) in enumerate(contacts_of_both(z, m, state)):
            compare(ours, theirs, f"pose {k}", TOL)
            counts.append(len(theirs))
    assert counts[:3] == [4, 4, 4] and counts[3] == 0
    assert counts[4:7] == [8, 8, 8]


def test_edge_on_edge(tmp_path):
    z, m = load(tmp_path, (0.1, 0.1, 0.1), (0.1, 0.1, 0.1))
    qpos = np.zeros((3, 14))
    qpos[:, 3] = 1
    # box b turned 45° about x and then about z: an edge down, across box a's top edge
    qx = np.array([np.cos(np.pi / 8), np.sin(np.pi / 8), 0, 0])
    qz = np.array([np.cos(np.pi / 8), 0, 0, np.sin(np.pi / 8)])
    q = np.zeros(4)
    mujoco.mju_mulQuat(q, qz, qx)
    qpos[:, 10:14] = q
    qpos[:, 7] = 0.1
    qpos[:, 9] = 0.1 + 0.1 * np.sqrt(2) - np.array([0.0, 0.01, 0.03])
    for k, (ours, theirs) in enumerate(contacts_of_both(z, m, qpos)):
        compare(ours, theirs, f"pose {k}", TOL)


def test_box_rests_on_a_box(tmp_path):
    # a small box dropped flat on a static slab settles on four contacts, as in MuJoCo 4.0
    path = tmp_path / "rest.xml"
    path.write_text(
        PAIR.format(s1="0.3 0.3 0.05", s2="0.1 0.08 0.05", margin=0.0).replace(
            '<body name="a"><freejoint/>', '<body name="a">'
        )
    )
    z, m = zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))
    qpos = np.array([[0.02, -0.01, 0.1005, 1, 0, 0, 0]])
    sim = zwang.Simulator(z, instances=1)
    sim.reset(qpos=qpos)
    sim.step(500)
    assert not sim.status.any()
    assert int(sim.ncon[0]) == 4
    assert np.abs(sim.qvel).max() < 1e-3
    d = mujoco.MjData(m)
    d.qpos[:] = qpos[0]
    for _ in range(500):
        mujoco.mj_step(m, d)
    assert d.ncon == 4
    assert np.abs(sim.qpos[0] - d.qpos).max() < 1e-6


def test_mujoco2_rules_give_2_2_2s_contacts(tmp_path):
    rng = np.random.default_rng(11)
    s1, s2 = rng.uniform(0.05, 0.3, 3), rng.uniform(0.05, 0.3, 3)
    z4, m = load(tmp_path, s1, s2)
    z2, _ = load(tmp_path, s1, s2, rules="2.2.2")
    qpos = poses(rng, 64, 0.3)
    sims = []
    for z in (z4, z2):
        sim = zwang.Simulator(z, instances=len(qpos))
        sim.reset(qpos=qpos)
        sim.forward()
        sims.append(sim)
    assert (sims[0].ncon != sims[1].ncon).any()


SPHERE_IN_BOX = """<mujoco>
  <worldbody>
    <body name="a"><freejoint/><geom type="box" size="0.2 0.15 0.1"/></body>
    <body name="b"><freejoint/><geom type="{geom}" size="{size}"/></body>
  </worldbody>
</mujoco>"""


@pytest.mark.parametrize("geom,size", [("sphere", "0.05"), ("capsule", "0.04 0.03")])
def test_centre_inside_a_box_matches_mujoco4(tmp_path, geom, size):
    # the sphere's centre (a capsule's ends) inside the box: depth under the nearest face plus
    # the radius, as MuJoCo 4.0; MuJoCo 2.2.2 gives the radius alone
    path = tmp_path / "inside.xml"
    path.write_text(SPHERE_IN_BOX.format(geom=geom, size=size))
    m = mujoco.MjModel.from_xml_path(str(path))
    rng = np.random.default_rng(5)
    qpos = np.zeros((16, 14))
    qpos[:, 3] = 1
    qpos[:, 7:10] = rng.uniform(-1, 1, (16, 3)) * [0.15, 0.1, 0.06]
    q = rng.normal(size=(16, 4))
    qpos[:, 10:14] = q / np.linalg.norm(q, axis=1, keepdims=True)
    for rules in ("4.0", "2.2.2"):
        z = zwang.load(str(path), rules=rules)
        same = 0
        for k, (ours, theirs) in enumerate(contacts_of_both(z, m, qpos)):
            assert theirs and min(c[0] for c in theirs) < -0.05
            if rules == "4.0":
                compare(ours, theirs, f"pose {k}", TOL)
            same += len(ours) == len(theirs) and all(
                abs(a[0] - b[0]) < 1e-9 for a, b in zip(ours, theirs)
            )
        assert same == (16 if rules == "4.0" else 0)
