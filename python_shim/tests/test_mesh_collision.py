"""Mesh collision against MuJoCo 4.0 (the installed Python package) on the same files.

Plane–mesh: the contact sets (count, dist, pos, frame) of random convex meshes (point clouds,
irregular prisms of 3 to 13 sides, boxes) at random orientations, touching, penetrating and
within the margin; a face exactly parallel to the plane (a box resting flat: its four corners; a
regular prism: points of its bottom face, as many as MuJoCo's); ``qacc`` with the contacts of
several mesh objects on a floor, one of them an STL file of dm_control's; and a mesh box that
stays at rest on four contacts.
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


def contacts_of_zwang(sim, i):
    n = int(sim.ncon[i])
    return [
        (sim.contact_dist[i][c], sim.contact_pos[i][c], sim.contact_frame[i][c]) for c in range(n)
    ]


def contacts_of_mujoco(d):
    return [(c.dist, c.pos.copy(), c.frame.copy()) for c in d.contact[: d.ncon]]


def by_position(contacts):
    return sorted(contacts, key=lambda c: tuple(np.round(c[1], 6)))


def compare(ours, theirs, at):
    assert len(ours) == len(theirs), f"{at}: {len(ours)} contacts, MuJoCo {len(theirs)}"
    for (d1, p1, f1), (d2, p2, f2) in zip(by_position(ours), by_position(theirs)):
        assert abs(d1 - d2) < TOL, f"{at}: dist {d1} vs {d2}"
        assert np.abs(p1 - p2).max() < TOL, f"{at}: pos {p1} vs {p2}"
        assert np.abs(f1 - f2).max() < TOL, f"{at}: frame {f1} vs {f2}"


@pytest.mark.parametrize("shape", [point_cloud, prism, box])
@pytest.mark.parametrize("margin", [0.0, 0.01])
def test_plane_mesh_contacts_match_mujoco4(tmp_path, shape, margin):
    rng = np.random.default_rng(7 + int(100 * margin))
    n = 16
    for trial in range(6):
        z, m = load(tmp_path, shape(rng), margin)
        d = mujoco.MjData(m)
        qpos = np.zeros((n, 7))
        for i in range(n):
            q = rng.normal(size=4)
            q /= np.linalg.norm(q)
            # from clear of the plane (beyond the margin) to 1 cm deep
            qpos[i, 2] = -lowest_point(m, q) + rng.uniform(-0.01, 0.015)
            qpos[i, 3:] = q
        sim = zwang.Simulator(z, instances=n)
        sim.reset(qpos=qpos)
        sim.forward()
        for i in range(n):
            d.qpos[:] = qpos[i]
            mujoco.mj_forward(m, d)
            at = f"{shape.__name__} trial {trial} instance {i}"
            compare(contacts_of_zwang(sim, i), contacts_of_mujoco(d), at)


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


# inertia="legacy" is MuJoCo 4.0's default; zwang's default is still MuJoCo 2.2.2's mesh inertia
OBJECTS = """<mujoco>
  <option timestep="0.002"/>
  <compiler meshdir="{meshdir}"/>
  <asset>
    <mesh name="cube" inertia="legacy" file="cube.stl" scale="0.05 0.05 0.05"/>
    <mesh name="wedge" inertia="legacy"
          vertex="0 0 0  0.2 0 0  0 0.1 0  0 0 0.08  0.2 0 0.08  0 0.1 0.08"/>
    <mesh name="gem" inertia="legacy" vertex="{gem}"/>
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
