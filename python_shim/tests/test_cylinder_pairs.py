"""A cylinder against a sphere, capsule, cylinder or box, against MuJoCo 4.0 (the installed Python
package).  Sphere–cylinder is 4.0's own primitive (side, cap or rim): the same contact in every
state.  The others are 4.0's native convex collision (GJK, EPA) with its multi-contact step, a
cylinder's caps as 16-gons and its sides as lines along the axis: random poses from apart to deep
overlap, with and without a margin, give MuJoCo's count in nearly every state and its whole
contact set in most (elsewhere EPA's normal, a few degrees apart, as for ellipsoids).  Where the
two differ, zwang's contact is checked against the geometry itself: the penetration along its
normal, from the two shapes' support functions, is the least over all directions within EPA's
tolerance, and no more than along MuJoCo's normal (MuJoCo 4.0.0 sometimes clips by a cap 30–60°
from the penetration direction, one of the cylinder multi-contact issues its 4.0.1 fixed).  A
cylinder standing on its cap or lying on its side on a box or a cylinder: four or two contacts,
and it stays at rest.  MuJoCo 2.2.2's MPR (``rules="2.2.2"``) agrees with none of this."""

import numpy as np
import pytest
import zwang
from test_mesh_collision import contacts_of_both, same_sets

mujoco = pytest.importorskip("mujoco")

PAIR = """<mujoco>
  <worldbody>
    <body name="A"><freejoint/>
      <geom type="cylinder" size="0.05 0.08" margin="{margin}"/></body>
    <body name="B"><freejoint/><geom {geom} margin="{margin}"/></body>
  </worldbody>
</mujoco>"""

OTHERS = {
    "sphere": 'type="sphere" size="0.06"',
    "capsule": 'type="capsule" size="0.04 0.08"',
    "cylinder": 'type="cylinder" size="0.05 0.08"',
    "box": 'type="box" size="0.05 0.07 0.09"',
}


def random_states(rng, n):
    qpos = np.zeros((n, 14))
    for b in range(2):
        q = rng.normal(size=(n, 4))
        qpos[:, 7 * b + 3 : 7 * b + 7] = q / np.linalg.norm(q, axis=1, keepdims=True)
    qpos[:, 7:10] = rng.normal(size=(n, 3)) * 0.1
    return qpos


def load(tmp_path, other, margin, rules="4.0"):
    path = tmp_path / "pair.xml"
    path.write_text(PAIR.format(geom=OTHERS[other], margin=margin))
    return zwang.load(str(path), rules=rules), mujoco.MjModel.from_xml_path(str(path))


def support(m, d, g, n):
    """The largest ⟨x, n⟩ over geom g (without its margin), from its shape alone."""
    r, p, s = d.geom_xmat[g].reshape(3, 3), d.geom_xpos[g], m.geom_size[g]
    local = r.T @ n
    kind = m.geom_type[g]
    if kind == mujoco.mjtGeom.mjGEOM_SPHERE:
        return p @ n + s[0]
    if kind == mujoco.mjtGeom.mjGEOM_CAPSULE:
        return p @ n + s[0] + s[1] * abs(local[2])
    if kind == mujoco.mjtGeom.mjGEOM_CYLINDER:
        return p @ n + s[0] * np.hypot(local[0], local[1]) + s[1] * abs(local[2])
    return p @ n + s @ np.abs(local)


def penetration(m, d, n):
    """How far geom 0 reaches into geom 1 along the unit n (from 0 to 1): the overlap of their
    extents along n."""
    return support(m, d, 0, n) + support(m, d, 1, -n)


def least_penetration(m, d, rng, start):
    """The least penetration over directions, by a local search from `start`."""
    best_n, best = start, penetration(m, d, start)
    for scale in (0.1, 0.03, 0.01, 0.003, 0.001):
        for n in rng.normal(size=(400, 3)) * scale + best_n:
            n = n / np.linalg.norm(n)
            value = penetration(m, d, n)
            if value < best:
                best_n, best = n, value
    return best


@pytest.mark.parametrize("margin", [0.0, 0.01])
def test_sphere_cylinder_matches_mujoco4(tmp_path, margin):
    z, m = load(tmp_path, "sphere", margin)
    rng = np.random.default_rng(5)
    qpos = random_states(rng, 600)
    # the sphere's centre inside, on the axis, at a cap's centre, at the rim, on the side
    special = [[0.0, 0.0, 0.03], [0.0, 0.0, 0.0], [0.0, 0.0, 0.1], [0.04, 0.0, 0.1], [0.09, 0, 0]]
    qpos[: len(special), 7:10] = special
    qpos[: len(special), 3:7] = [1, 0, 0, 0]
    touching = 0
    for ours, theirs in contacts_of_both(z, m, qpos):
        assert len(ours) == len(theirs)
        touching += len(theirs)
        for (d1, p1, f1), (d2, p2, f2) in zip(ours, theirs):
            assert abs(d1 - d2) < 1e-12 and np.abs(p1 - p2).max() < 1e-12
            assert np.abs(f1 - f2).max() < 1e-12
    assert touching > 200


# the share of states whose whole contact set agrees, measured, less five points
FLOOR = {
    0.0: {"capsule": 0.82, "cylinder": 0.79, "box": 0.82},
    0.01: {"capsule": 0.67, "cylinder": 0.6, "box": 0.7},
}


@pytest.mark.parametrize("margin", [0.0, 0.01])
@pytest.mark.parametrize("other", ["capsule", "cylinder", "box"])
def test_cylinder_pairs_match_mujoco4(tmp_path, other, margin):
    z, m = load(tmp_path, other, margin)
    rng = np.random.default_rng(3)
    qpos = random_states(rng, 600)
    d = mujoco.MjData(m)
    # normals from MuJoCo's geom1, the geom of the smaller type, to geom2
    flip = -1 if m.geom_type[1] < m.geom_type[0] else 1
    states = counts = exact = checked = 0
    for i, (ours, theirs) in enumerate(contacts_of_both(z, m, qpos)):
        assert (len(ours) == 0) == (len(theirs) == 0)
        if not theirs:
            continue
        states += 1
        counts += len(ours) == len(theirs)
        d.qpos[:] = qpos[i]
        mujoco.mj_kinematics(m, d)
        # no contact deeper than the shapes overlap along its normal
        for dist, _, frame in ours:
            assert -dist <= penetration(m, d, flip * frame[:3]) + 1e-9
        if same_sets(ours, theirs):
            exact += 1
            continue
        if len(ours) > 1:
            continue
        # one contact of EPA's: the least penetration, and no more than along MuJoCo's normal
        n_ours, n_theirs = flip * ours[0][2][:3], flip * theirs[0][2][:3]
        along_ours = penetration(m, d, n_ours)
        assert abs(-ours[0][0] - along_ours) < 2e-4
        assert along_ours <= penetration(m, d, n_theirs) + 1e-4
        assert along_ours <= least_penetration(m, d, rng, n_ours) + 2e-4
        checked += 1
    assert states > 200 and checked > 10
    assert counts > 0.96 * states, f"{counts} of {states}"
    assert exact > FLOOR[margin][other] * states, f"{exact} of {states}"


SCENE = """<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom type="{base}" size="{size}" margin="{margin}"/>
    <body name="c" pos="0 0 1"><freejoint/>
      <geom type="cylinder" size="0.05 0.08" margin="{margin}"/></body>
  </worldbody>
</mujoco>"""

BASES = {"box": ("box", "0.3 0.3 0.05"), "cylinder": ("cylinder", "0.3 0.05")}
STANDING = [0.01, 0.02, 0.128, 1, 0, 0, 0]
LYING = [0.01, 0.02, 0.098, np.cos(np.pi / 4), np.sin(np.pi / 4), 0, 0]


def load_scene(tmp_path, base, margin=0.0):
    path = tmp_path / "scene.xml"
    kind, size = BASES[base]
    path.write_text(SCENE.format(base=kind, size=size, margin=margin))
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


@pytest.mark.parametrize("margin", [0.0, 0.01])
@pytest.mark.parametrize("base", list(BASES))
def test_cylinder_on_a_face(tmp_path, base, margin):
    """Standing 2 mm deep: four corners of the bottom rim's 16-gon, each 2 mm deep, spanning
    nearly the largest area (MuJoCo's search for it); lying 2 mm deep: the two ends of the lowest
    line.  The lying pair, and the standing pair on a cylinder, are MuJoCo's; standing on a box,
    MuJoCo keeps four other corners of the same rim.  A margin changes none of it (the margins
    sum to 0.02: the rim's other points are within it, and the four kept are the same)."""
    z, m = load_scene(tmp_path, base, margin)
    (standing, theirs_standing), (lying, theirs_lying) = contacts_of_both(
        z, m, np.array([STANDING, LYING])
    )
    assert len(standing) == len(theirs_standing) == 4
    rim = np.array([c[1][:2] - [0.01, 0.02] for c in standing])
    assert np.allclose(np.linalg.norm(rim, axis=1), 0.05, atol=1e-12)
    assert np.allclose([c[0] for c in standing], -0.002, atol=1e-12)
    assert np.allclose([c[1][2] for c in standing], 0.049, atol=1e-12)
    # a quadrilateral of nearly the largest area (a square's, 2r²)
    rim = rim[np.argsort(np.arctan2(rim[:, 1], rim[:, 0]))]
    x, y = rim[:, 0], rim[:, 1]
    area = 0.5 * abs(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))
    assert area > 0.95 * 2 * 0.05**2
    if base == "cylinder":
        assert same_sets(standing, theirs_standing, tol=1e-12)
    assert len(lying) == len(theirs_lying) == 2
    ends = sorted(c[1][1] for c in lying)
    assert np.allclose(ends, [0.02 - 0.08, 0.02 + 0.08], atol=1e-12)
    # EPA's support point on the rim: within 2e-4 of the lowest line across, so no more than
    # r (1 − cos(2e-4 / r)) = 4e-7 above it
    assert all(abs(c[1][0] - 0.01) < 2e-4 for c in lying)
    assert np.allclose([c[0] for c in lying], -0.002, atol=4e-7)
    assert same_sets(lying, theirs_lying, tol=2e-5)


@pytest.mark.parametrize("pose", ["standing", "lying"])
@pytest.mark.parametrize("base", list(BASES))
def test_cylinder_rests(tmp_path, base, pose):
    """Dropped from 3 mm, standing or lying, a cylinder settles on its four or two contacts and
    stays there for 3 s: upright or level, at its resting height, slower than 1 cm/s (one contact
    would rock it over).  Lying, it may roll slowly: its contact line is EPA's support point on the
    rim, within 2e-4 of the lowest, as in MuJoCo 4.0, which rolls too."""
    z, m = load_scene(tmp_path, base)
    start = np.array(STANDING if pose == "standing" else LYING)
    start[2] += 0.003
    sim = zwang.Simulator(z, instances=1)
    sim.reset(qpos=start[None])
    rest = 0.05 + (0.08 if pose == "standing" else 0.05)
    axis = 2 if pose == "standing" else 1
    for _ in range(3):
        sim.step(500)
        assert not sim.status.any()
        assert int(sim.ncon[0]) == (4 if pose == "standing" else 2)
        qpos = sim.qpos[0]
        assert abs(qpos[2] - rest) < 3e-4
        r = np.empty(9)
        mujoco.mju_quat2Mat(r, qpos[3:7])
        assert abs(abs(r.reshape(3, 3)[axis, 2]) - 1) < 1e-6
        assert np.abs(sim.qvel[0][:3]).max() < 0.01


def test_capsule_on_a_cap(tmp_path):
    """A capsule lying on a cylinder's cap 1 mm deep: a contact at each end of its segment, as
    MuJoCo 4.0."""
    z, m = load(tmp_path, "capsule", 0.0)
    qpos = np.zeros((1, 14))
    qpos[0, 3:7] = [1, 0, 0, 0]
    qpos[0, 7:14] = [0.0, 0.01, 0.08 + 0.04 - 0.001, np.cos(np.pi / 4), 0, np.sin(np.pi / 4), 0]
    ((ours, theirs),) = contacts_of_both(z, m, qpos)
    assert len(ours) == len(theirs) == 2
    assert same_sets(ours, theirs, tol=1e-9)


def test_mujoco2_rules_give_2_2_2s_contacts(tmp_path):
    z, m = load(tmp_path, "box", 0.0, rules="2.2.2")
    touching = same = 0
    for ours, theirs in contacts_of_both(z, m, random_states(np.random.default_rng(1), 200)):
        touching += len(theirs) > 0
        same += len(theirs) > 0 and same_sets(ours, theirs)
    assert touching > 50 and same < 0.1 * touching
