"""Mesh collision against MuJoCo 4.0 (the installed Python package) on the same files.

Plane–mesh: the contact sets (count, dist, pos, frame) of random convex meshes (point clouds,
irregular prisms of 3 to 13 sides, boxes) at random orientations, touching, penetrating and
within the margin; a face exactly parallel to the plane (a box resting flat: its four corners; a
regular prism: points of its bottom face, as many as MuJoCo's); ``qacc`` with the contacts of
several mesh objects on a floor, one of them an STL file of dm_control's; and a mesh box that
stays at rest on four contacts.

A mesh against the other geoms (GJK, EPA, the multi-contact step): random poses from apart to
deep overlap against MuJoCo's contacts (sphere exact where its centre is outside the hull; the
smooth geoms' depths to EPA's tolerance; capsules and cylinders along a face with a contact at
each end; box–mesh and mesh–mesh contact sets); boxes and cube meshes resting flat or tilted on a
mesh slab, apart within the margin or overlapping (four contacts, as MuJoCo's); a cube mesh at
rest on a slab; deep overlaps GJK leaves with a triangle or a segment; a mesh without a hull; a
sphere on a mesh's centre.
"""

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

# Mesh vertices are single precision in both engines, in mesh frames that may differ in the
# order and signs of the axes (where the principal moments leave a choice): a vertex's world
# position agrees to a few units of float rounding, not to double's.
TOL = 2e-7

SCENE = """<mujoco>
  <option timestep="0.002"/>
  <asset><mesh name="m" vertex="{vertex}"/></asset>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" margin="{margin}"/>
    <body name="object"><freejoint/><geom type="mesh" mesh="m"/></body>
  </worldbody>
</mujoco>"""


def point_cloud(rng):
    return rng.normal(size=(rng.integers(5, 40), 3)) * [0.1, 0.07, 0.05]


def prism(rng, regular=False):
    """A prism of 3 to 13 sides; irregular unless asked, since the four-corner pruning of a
    regular polygon compares equal areas, which rounding in the two mesh frames decides."""
    k = rng.integers(3, 14)
    a = 2 * np.pi * (np.arange(k) + (0 if regular else rng.uniform(-0.3, 0.3, k))) / k
    r = 0.1 * (np.ones(k) if regular else rng.uniform(0.8, 1.2, k))
    return np.array(
        [[r[j] * np.cos(a[j]), r[j] * np.sin(a[j]), z] for j in range(k) for z in (-0.05, 0.05)]
    )


def regular_prism(rng):
    return prism(rng, regular=True)


def box(rng):
    return np.array([[x, y, z] for x in (-0.1, 0.1) for y in (-0.08, 0.08) for z in (-0.05, 0.05)])


def load(tmp_path, vertex, margin):
    text = SCENE.format(vertex=" ".join(f"{x:.6g}" for x in np.ravel(vertex)), margin=margin)
    path = tmp_path / "scene.xml"
    path.write_text(text)
    z = zwang.load(str(path), contact_margin="sum")
    return z, mujoco.MjModel.from_xml_path(str(path))


def lowest_point(m, quat):
    d = mujoco.MjData(m)
    d.qpos[3:7] = quat
    mujoco.mj_kinematics(m, d)
    R = d.geom_xmat[1].reshape(3, 3)
    return (d.geom_xpos[1] + m.mesh_vert.astype(float) @ R.T)[:, 2].min()


def contacts_of_both(z, m, qpos):
    """Per state of qpos (one per row): zwang's contacts and MuJoCo 4.0's."""
    sim = zwang.Simulator(z, instances=len(qpos))
    sim.reset(qpos=qpos)
    sim.forward()
    d = mujoco.MjData(m)
    for i in range(len(qpos)):
        d.qpos[:] = qpos[i]
        mujoco.mj_forward(m, d)
        yield contacts_of_zwang(sim, i), contacts_of_mujoco(d)


def contacts_of_zwang(sim, i):
    n = int(sim.ncon[i])
    return [
        (sim.contact_dist[i][c], sim.contact_pos[i][c], sim.contact_frame[i][c]) for c in range(n)
    ]


def contacts_of_mujoco(d):
    return [(c.dist, c.pos.copy(), c.frame.copy()) for c in d.contact[: d.ncon]]


def by_position(contacts):
    return sorted(contacts, key=lambda c: tuple(np.round(c[1], 6)))


def compare(ours, theirs, at, tol=TOL):
    assert len(ours) == len(theirs), f"{at}: {len(ours)} contacts, MuJoCo {len(theirs)}"
    for (d1, p1, f1), (d2, p2, f2) in zip(by_position(ours), by_position(theirs)):
        assert abs(d1 - d2) < tol, f"{at}: dist {d1} vs {d2}"
        assert np.abs(p1 - p2).max() < tol, f"{at}: pos {p1} vs {p2}"
        assert np.abs(f1 - f2).max() < tol, f"{at}: frame {f1} vs {f2}"


@pytest.mark.parametrize("shape", [point_cloud, prism, box])
@pytest.mark.parametrize("margin", [0.0, 0.01])
def test_plane_mesh_contacts_match_mujoco4(tmp_path, shape, margin):
    rng = np.random.default_rng(7 + int(100 * margin))
    n = 16
    for trial in range(6):
        z, m = load(tmp_path, shape(rng), margin)
        qpos = np.zeros((n, 7))
        for i in range(n):
            q = rng.normal(size=4)
            q /= np.linalg.norm(q)
            # from clear of the plane (beyond the margin) to 1 cm deep
            qpos[i, 2] = -lowest_point(m, q) + rng.uniform(-0.01, 0.015)
            qpos[i, 3:] = q
        for i, (ours, theirs) in enumerate(contacts_of_both(z, m, qpos)):
            compare(ours, theirs, f"{shape.__name__} trial {trial} instance {i}")


@pytest.mark.parametrize("shape", [regular_prism, box])
def test_face_on_the_plane(tmp_path, shape):
    """Every bottom vertex equally deep: the same count and depths as MuJoCo, at corners of the
    bottom face; a box's four corners exactly."""
    rng = np.random.default_rng(3)
    for _ in range(8):
        vertex = shape(rng)
        z, m = load(tmp_path, vertex, 0.0)
        d = mujoco.MjData(m)
        d.qpos[2] = 0.05 - 0.002
        d.qpos[3] = 1
        mujoco.mj_forward(m, d)
        sim = zwang.Simulator(z, instances=1)
        sim.reset(qpos=d.qpos[None, :].copy())
        sim.forward()
        ours, theirs = contacts_of_zwang(sim, 0), contacts_of_mujoco(d)
        assert len(ours) == len(theirs) == min(4, len(vertex) // 2)
        for dist, pos, frame in ours:
            assert abs(dist + 0.002) < TOL
            assert np.allclose(frame[:3], [0, 0, 1], atol=TOL)
            corner = np.abs(vertex[:, :2] - pos[:2]).max(axis=1).min()
            assert corner < 1e-7 and abs(pos[2] + 0.001) < TOL
        if shape is box:
            compare(ours, theirs, "box")


# the meshes' inertia by default: MuJoCo 4.0's legacy rule
OBJECTS = """<mujoco>
  <option timestep="0.002"/>
  <compiler meshdir="{meshdir}"/>
  <asset>
    <mesh name="cube" file="cube.stl" scale="0.05 0.05 0.05"/>
    <mesh name="wedge"
          vertex="0 0 0  0.2 0 0  0 0.1 0  0 0 0.08  0.2 0 0.08  0 0.1 0.08"/>
    <mesh name="gem" vertex="{gem}"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1" euler="4 -3 0"/>
    <body name="cube" pos="0 0 0.1"><freejoint/><geom type="mesh" mesh="cube"/></body>
    <body name="wedge" pos="0.5 0 0.1"><freejoint/><geom type="mesh" mesh="wedge"/></body>
    <body name="gem" pos="-0.5 0 0.1">
      <freejoint/><geom type="mesh" mesh="gem" margin="0.005"/>
    </body>
  </worldbody>
</mujoco>"""


def dm_control_meshes():
    dm_control = pytest.importorskip("dm_control")
    from pathlib import Path

    return Path(dm_control.__file__).parent / "mujoco" / "testing" / "assets"


def test_qacc_with_mesh_contacts_matches_mujoco4(tmp_path):
    rng = np.random.default_rng(11)
    gem = rng.normal(size=(24, 3)) * [0.06, 0.05, 0.04]
    path = tmp_path / "objects.xml"
    path.write_text(
        OBJECTS.format(meshdir=dm_control_meshes(), gem=" ".join(f"{x:.6g}" for x in gem.ravel()))
    )
    z = zwang.load(str(path), contact_margin="sum")
    m = mujoco.MjModel.from_xml_path(str(path))
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    m.opt.iterations = 200
    m.opt.tolerance = 1e-14
    d = mujoco.MjData(m)
    n = 12
    qpos = np.tile(m.qpos0, (n, 1))
    qvel = rng.normal(size=(n, m.nv)) * 0.3
    for i in range(n):
        for b in range(3):
            q = rng.normal(size=4)
            q /= np.linalg.norm(q)
            qpos[i, 7 * b + 3 : 7 * b + 7] = q
            # each object's lowest vertex from 1 cm deep to 4 mm above the floor
            d.qpos[:] = qpos[i]
            mujoco.mj_kinematics(m, d)
            g = b + 1
            R = d.geom_xmat[g].reshape(3, 3)
            mesh = m.geom_dataid[g]
            v = m.mesh_vert[m.mesh_vertadr[mesh] : m.mesh_vertadr[mesh] + m.mesh_vertnum[mesh]]
            floor_n = d.geom_xmat[0].reshape(3, 3)[:, 2]
            low = ((d.geom_xpos[g] + v.astype(float) @ R.T) @ floor_n).min()
            qpos[i, 7 * b + 2] += (-low + rng.uniform(-0.01, 0.004)) / floor_n[2]
    sim = zwang.Simulator(z, instances=n)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.forward()
    touching = 0
    for i in range(n):
        d.qpos[:] = qpos[i]
        d.qvel[:] = qvel[i]
        mujoco.mj_forward(m, d)
        at = f"instance {i}"
        compare(contacts_of_zwang(sim, i), contacts_of_mujoco(d), at)
        touching += d.ncon
        # the contacts' dist agree to float rounding of the vertices (TOL); the rows' stiffness
        # (≈ 3·10³ s⁻² at the default solref) and the objects' small radii carry that into qacc
        scale = 1 + np.abs(d.qacc).max()
        assert np.abs(sim.qacc[i] - d.qacc).max() < 1e-6 * scale, at
    assert touching > 3 * n


def test_mesh_box_rests_on_four_contacts(tmp_path):
    z, m = load(tmp_path, box(None), 0.0)
    sim = zwang.Simulator(z, instances=1)
    qpos = np.array([[0.3, -0.2, 0.05, 1, 0, 0, 0]])
    sim.reset(qpos=qpos)
    for _ in range(1000):
        sim.step()
    assert int(sim.ncon[0]) == 4
    assert np.abs(sim.qvel[0]).max() < 1e-6
    assert np.abs(sim.qpos[0][:2] - qpos[0, :2]).max() < 1e-6
    assert abs(sim.qpos[0][2] - 0.05) < 1e-3
    assert np.abs(sim.qpos[0][4:]).max() < 1e-6


# ------------------------------------------------------------------------------------------------
# a mesh against the other geoms: GJK and EPA, and the multi-contact step of two polytopes

PAIR = """<mujoco>
  <asset><mesh name="a" vertex="{a}"/><mesh name="b" vertex="{b}"/></asset>
  <worldbody>
    <body name="A"><freejoint/><geom type="mesh" mesh="a" margin="{margin}"/></body>
    <body name="B"><freejoint/><geom {geom}/></body>
  </worldbody>
</mujoco>"""

OTHERS = {
    "sphere": 'type="sphere" size="0.06"',
    "capsule": 'type="capsule" size="0.04 0.08"',
    "ellipsoid": 'type="ellipsoid" size="0.05 0.07 0.09"',
    "cylinder": 'type="cylinder" size="0.05 0.08"',
    "box": 'type="box" size="0.05 0.07 0.09"',
    "mesh": 'type="mesh" mesh="b"',
}


def random_pairs(tmp_path, other, margin, seed, n=1500):
    """Both geoms at random orientations, B's centre about 12 cm from A's: states from apart to
    deep overlap; the contacts of zwang and of MuJoCo 4.0 per state."""
    rng = np.random.default_rng(seed)

    def cloud(k):
        return " ".join(f"{x:.6g}" for x in (rng.normal(size=(k, 3)) * [0.1, 0.07, 0.05]).ravel())

    path = tmp_path / "pair.xml"
    path.write_text(PAIR.format(a=cloud(20), b=cloud(12), margin=margin, geom=OTHERS[other]))
    z = zwang.load(str(path), contact_margin="sum")
    m = mujoco.MjModel.from_xml_path(str(path))
    qpos = np.zeros((n, 14))
    for i in range(n):
        for b in range(2):
            q = rng.normal(size=4)
            qpos[i, 7 * b + 3 : 7 * b + 7] = q / np.linalg.norm(q)
        qpos[i, 7:10] = rng.normal(size=3) * 0.12
    yield from contacts_of_both(z, m, qpos)


@pytest.mark.parametrize("margin", [0.0, 0.01])
def test_sphere_mesh_contacts_match_mujoco4(tmp_path, margin):
    """Where the sphere's centre is outside the hull, GJK's distance is exact: the same contact
    to rounding (with a margin the hull is rounded by it and GJK converges to its tolerance; up
    to a tenth of the states then differ, by less than 2e-5); deeper, EPA's depth agrees to twice
    its tolerance (2e-6)."""
    shallow = deep = off = 0
    for ours, theirs in random_pairs(tmp_path, "sphere", margin, seed=3):
        assert len(ours) == len(theirs)
        if not theirs:
            continue
        (d1, p1, f1), (d2, p2, f2) = ours[0], theirs[0]
        if d2 > -0.06 + 1e-3:
            shallow += 1
            exact = abs(d1 - d2) < 1e-7 and np.abs(p1 - p2).max() < 1e-6
            exact = exact and np.abs(f1[:3] - f2[:3]).max() < 1e-5
            assert exact or (margin > 0 and abs(d1 - d2) < 2e-5)
            off += not exact
        else:
            deep += 1
            assert abs(d1 - d2) < 2e-6
    assert shallow > 100 and deep > 100
    assert off < 0.1 * shallow


def same_sets(ours, theirs, tol=1e-6):
    if len(ours) != len(theirs):
        return False
    for (d1, p1, f1), (d2, p2, f2) in zip(by_position(ours), by_position(theirs)):
        if abs(d1 - d2) > tol or np.abs(p1 - p2).max() > 10 * tol:
            return False
        if np.abs(f1[:3] - f2[:3]).max() > 10 * tol:
            return False
    return True


@pytest.mark.parametrize("other", ["capsule", "ellipsoid", "cylinder"])
def test_smooth_geom_mesh_contacts_match_mujoco4(tmp_path, other):
    """A capsule, ellipsoid or cylinder against a mesh, from apart to deep overlap.  Ellipsoid:
    always MuJoCo's count and distance (EPA's tolerance), the same contact in most states (else
    EPA's normal, a few degrees apart).  Capsule and cylinder, with MuJoCo 4.0's contact at each end
    of one lying along a face and a cylinder's cap clipped by a face it stands on: the same
    contact sets in most states; where deep overlaps leave several faces nearly aligned the two
    may clip by different ones (docs/contacts.md)."""
    states = exact = counts = 0
    for ours, theirs in random_pairs(tmp_path, other, 0.0, seed=4):
        assert (len(ours) == 0) == (len(theirs) == 0)
        if not theirs:
            continue
        states += 1
        counts += len(ours) == len(theirs)
        exact += same_sets(ours, theirs)
        if other == "ellipsoid":
            assert len(ours) == 1 and abs(ours[0][0] - theirs[0][0]) < 2e-6
    assert states > 500
    floor = {"ellipsoid": 0.85, "capsule": 0.75, "cylinder": 0.72}[other]
    assert exact > floor * states, f"{exact} of {states}"
    assert counts > (0.97 if other == "capsule" else 0.92) * states, f"{counts} of {states}"


@pytest.mark.parametrize("other", ["box", "mesh"])
def test_polytope_contact_sets_match_mujoco4(tmp_path, other):
    """A box or a mesh against a mesh, shallow overlaps (the deepest contact less than 1 cm): the
    same contact sets as MuJoCo 4.0 (count, dist, pos, frame to 1e-6) in most states; where the
    faces meet at a few degrees MuJoCo's multi-contact step may choose another feature (docs)."""
    same = compared = 0
    for ours, theirs in random_pairs(tmp_path, other, 0.0, seed=5, n=3000):
        if not ours and not theirs:
            continue
        if min(c[0] for c in ours + theirs) < -0.01:
            continue
        compared += 1
        try:
            compare(ours, theirs, "pair")
        except AssertionError:
            continue
        same += 1
    assert compared > 150
    assert same > 0.8 * compared, f"{same} of {compared}"


RESTING = """<mujoco>
  <asset>
    <mesh name="slab" vertex="{slab}"/>
    <mesh name="cube" vertex="{cube}"/>
  </asset>
  <worldbody>
    <geom type="mesh" mesh="slab" margin="{margin}"/>
    <body pos="0.01 0.02 {z}" euler="0 {tilt} 0"><freejoint/><geom {geom}/></body>
  </worldbody>
</mujoco>"""


def corners(hx, hy, hz):
    return " ".join(
        f"{v:g}" for x in (-hx, hx) for y in (-hy, hy) for z in (-hz, hz) for v in (x, y, z)
    )


@pytest.mark.parametrize("geom", ['type="box" size="0.05 0.05 0.05"', 'type="mesh" mesh="cube"'])
@pytest.mark.parametrize("margin", [0.0, 0.01])
@pytest.mark.parametrize("gap", [-0.002, 0.004])
@pytest.mark.parametrize("tilt", [0, 2])
def test_face_on_face_contacts_match_mujoco4(tmp_path, geom, margin, gap, tilt):
    """A box or a cube mesh on a mesh slab, flat or tilted 2°, overlapping by 2 mm or 4 mm apart:
    MuJoCo 4.0's four contacts at the corners (none apart beyond the margin)."""
    path = tmp_path / "resting.xml"
    path.write_text(
        RESTING.format(
            slab=corners(0.3, 0.3, 0.05),
            cube=corners(0.05, 0.05, 0.05),
            margin=margin,
            z=0.1 + gap,
            tilt=tilt,
            geom=geom,
        )
    )
    z = zwang.load(str(path), contact_margin="sum")
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    sim = zwang.Simulator(z, instances=1)
    sim.reset(qpos=d.qpos[None, :].copy())
    sim.forward()
    theirs = contacts_of_mujoco(d)
    # four corners where the faces overlap or lie flat within the margin; none beyond it
    if gap < 0 or (margin > gap and tilt == 0):
        assert len(theirs) == 4
    elif margin < gap:
        assert len(theirs) == 0
    ours = contacts_of_zwang(sim, 0)
    at = f"{geom} margin {margin} gap {gap} tilt {tilt}"
    if "box" in geom or tilt == 0:
        compare(ours, theirs, at)
        return
    # the tilted cube mesh: each contact midway between a cube corner and its projection on the
    # slab; MuJoCo 4.0 moves the corner along the cube face's normal mirrored about the slab's
    # (rotated by Rᵀ, not R), which shifts its midpoint by |d| sin(θ)/2 along the slab
    assert len(ours) == len(theirs), at
    for (d1, p1, f1), (d2, p2, f2) in zip(by_position(ours), by_position(theirs)):
        assert abs(d1 - d2) < 1e-5 and np.abs(f1 - f2).max() < 1e-5, at
        shift = abs(d2) * np.sin(np.radians(tilt)) / 2
        assert np.abs(p1 - p2).max() < 1e-5 + 1.01 * shift, at


def test_mesh_cube_rests_on_a_mesh_slab(tmp_path):
    path = tmp_path / "resting.xml"
    path.write_text(
        RESTING.format(
            slab=corners(0.3, 0.3, 0.05),
            cube=corners(0.05, 0.05, 0.05),
            margin=0,
            z=0.1,
            tilt=0,
            geom='type="mesh" mesh="cube"',
        )
    )
    sim = zwang.Simulator(zwang.load(str(path), contact_margin="sum"), instances=1)
    sim.reset()
    start = sim.qpos[0].copy()
    for _ in range(1000):
        sim.step()
    assert int(sim.ncon[0]) == 4
    assert np.abs(sim.qvel[0]).max() < 1e-6
    assert np.abs(sim.qpos[0][:2] - start[:2]).max() < 1e-6
    assert abs(sim.qpos[0][2] - 0.1) < 1e-3
    assert np.abs(sim.qpos[0][4:]).max() < 1e-6


def test_round_geoms_deep_in_a_mesh_box_have_contacts(tmp_path):
    """Spheres as ellipsoids of equal radii deep in a mesh box, where GJK's last simplex is a
    triangle or a segment: a contact wherever MuJoCo 4.0 has one, at its depth."""
    rng = np.random.default_rng(9)
    found = 0
    for r in (0.05, 0.1, 0.25):
        path = tmp_path / "deep.xml"
        path.write_text(
            f"""<mujoco><asset><mesh name="m" vertex="{corners(0.5, 0.3, 0.2)}"/></asset>
            <worldbody><geom type="mesh" mesh="m"/>
            <body><freejoint/><geom type="ellipsoid" size="{r} {r} {r}"/></body>
            </worldbody></mujoco>"""
        )
        z = zwang.load(str(path))
        m = mujoco.MjModel.from_xml_path(str(path))
        d = mujoco.MjData(m)
        n = 500
        qpos = np.zeros((n, 7))
        qpos[:, :3] = rng.uniform([-0.6, -0.4, -0.3], [0.6, 0.4, 0.3], (n, 3))
        qpos[:, 3] = 1
        sim = zwang.Simulator(z, instances=n)
        sim.reset(qpos=qpos)
        sim.forward()
        for i in range(n):
            d.qpos[:] = qpos[i]
            mujoco.mj_forward(m, d)
            assert int(sim.ncon[i]) == d.ncon, f"radius {r} instance {i}"
            if d.ncon:
                found += 1
                assert abs(sim.contact_dist[i][0] - d.contact[0].dist) < 2e-6
    assert found > 1000


def test_a_mesh_without_hull_in_a_pair_collides_with_nothing(tmp_path):
    """A flat mesh (no hull) that cannot collide, named in a <pair> with a sphere: under MuJoCo
    2.2.2's rules it loads, steps, and has no contact; MuJoCo 4.0 refuses the mesh, and so does
    zwang under 4.0's rules, naming it."""
    path = tmp_path / "flat.xml"
    path.write_text(
        """<mujoco><asset>
          <mesh name="flat" vertex="0 0 0 1 0 0 0 1 0 1 1 0" face="0 1 2 1 3 2"/>
        </asset><worldbody>
          <body><inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>
            <geom name="sheet" type="mesh" mesh="flat" contype="0" conaffinity="0"/></body>
          <body><freejoint/><geom name="ball" size="0.1"/></body>
        </worldbody>
        <contact><pair geom1="sheet" geom2="ball"/></contact></mujoco>"""
    )
    with pytest.raises(zwang.ModelError, match=r"flat.xml:2: mesh 'flat': its volume is too small"):
        zwang.load(str(path))
    with pytest.raises(ValueError, match="coplanar"):
        mujoco.MjModel.from_xml_path(str(path))
    z = zwang.load(str(path), rules="2.2.2")
    assert z.mesh_vertnum[0] == 0
    sim = zwang.Simulator(z, instances=1)
    sim.reset()
    sim.step(10)
    assert int(sim.ncon[0]) == 0 and np.all(np.isfinite(sim.qpos))


def test_a_sphere_on_a_mesh_centre_collides(tmp_path):
    """A sphere whose centre is an irregular mesh's: MuJoCo 4.0's GJK stops there without a
    contact; zwang starts from a support point and finds the overlap, as deep as with the sphere
    0.1 mm off the centre (the ordinary start)."""
    gem = np.random.default_rng(2).normal(size=(16, 3)) * [0.1, 0.07, 0.05]
    depth = []
    for offset in (0.0, 1e-4):
        path = tmp_path / "centre.xml"
        path.write_text(
            f"""<mujoco><asset><mesh name="m" vertex="{" ".join(f"{x:.6g}" for x in gem.ravel())}"/>
            </asset><worldbody><geom type="mesh" mesh="m"/>
            <body><freejoint/><geom size="0.02"/></body></worldbody></mujoco>"""
        )
        z = zwang.load(str(path))
        sim = zwang.Simulator(z, instances=1)
        qpos = np.zeros((1, 7))
        qpos[0, :3] = np.asarray(z.geom_pos)[0] + offset
        qpos[0, 3] = 1
        sim.reset(qpos=qpos)
        sim.forward()
        assert int(sim.ncon[0]) == 1
        depth.append(sim.contact_dist[0][0])
    # the depth changes by at most the offset's length
    assert depth[0] < -0.02 and abs(depth[0] - depth[1]) < 2e-4
