"""Height fields against MuJoCo 4.0 (the installed Python package) on the same files.

Loading: the arrays MuJoCo compiles (hfield_size, nrow, ncol, the scaled elevations, the geom's
size, bounding radius and box inertia) from inline elevations, PNG images of every colour type and
bit depth a height-field file may have, and MuJoCo's binary format.

Collision: random height fields, tilted and moved, against every geom type at random poses, with
and without a margin: the same contacts in the same order (one per prism, MuJoCo's grid walk), each
equal to MuJoCo's to EPA's tolerance.  A box or a mesh without a margin is a polytope against a
polytope, where zwang's EPA gives the exact penetration depth: checked against the convex hull of
the Minkowski difference of each prism and the geom (MuJoCo 4.0's EPA stops short there: in its
source the prisms give EPA no vertex ids, so its repeated-vertex test ends the expansion early).
Dynamics: ``qacc`` of objects on a bumpy field, a sphere and a capsule rolling down it, and
Gymnasium's Ant standing on a field, step by step beside MuJoCo.
"""

import struct
import zlib

import numpy as np
import pytest
import zwang
from test_mesh_collision import contacts_of_both

mujoco = pytest.importorskip("mujoco")

SIZE = "0.5 0.4 0.2 0.1"
GEOMS = {
    "sphere": 'type="sphere" size="0.06"',
    "capsule": 'type="capsule" size="0.04 0.08"',
    "ellipsoid": 'type="ellipsoid" size="0.06 0.04 0.05"',
    "cylinder": 'type="cylinder" size="0.05 0.06"',
    "box": 'type="box" size="0.06 0.05 0.04"',
    "mesh": 'type="mesh" mesh="m"',
}
MESH = (
    '<mesh name="m" vertex="-0.05 -0.04 -0.03 0.06 -0.05 -0.02 0 0.07 -0.04 0.01 0 0.06 '
    '-0.03 0.03 0.04 0.05 0.04 0.03"/>'
)


def elevation_text(e):
    return " ".join(f"{v:.9g}" for v in np.ravel(e))


def field_scene(kind, elevation, margin):
    nrow, ncol = elevation.shape
    return f"""<mujoco>
  <asset>
    <hfield name="h" nrow="{nrow}" ncol="{ncol}" size="{SIZE}"
            elevation="{elevation_text(elevation)}"/>
    {MESH}
  </asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="h" pos="0.1 -0.05 0.02" quat="0.98 0.1 -0.05 0.1"
          margin="{margin}"/>
    <body name="object" pos="0 0 1"><freejoint/><geom {GEOMS[kind]} margin="{margin}"/></body>
  </worldbody>
</mujoco>"""


def load(tmp_path, text, name="scene.xml"):
    path = tmp_path / name
    path.write_text(text)
    # MuJoCo 4.0 adds the geoms' margins
    return zwang.load(str(path), contact_margin="sum"), mujoco.MjModel.from_xml_path(str(path))


def random_poses(rng, n):
    qpos = np.zeros((n, 7))
    qpos[:, 0] = rng.uniform(-0.45, 0.45, n)
    qpos[:, 1] = rng.uniform(-0.35, 0.35, n)
    qpos[:, 2] = rng.uniform(0.0, 0.3, n)
    q = rng.normal(size=(n, 4))
    qpos[:, 3:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    return qpos


def contacts(z, m, qpos):
    """Per state: its index, zwang's contacts and MuJoCo 4.0's, each (dist, pos, normal)."""
    for i, both in enumerate(contacts_of_both(z, m, qpos)):
        yield i, *([(d, p, f[:3]) for d, p, f in side] for side in both)


# -- loading ---------------------------------------------------------------------------------


def png(path, pixels, colour=0, depth=8, palette=None):
    """A PNG file of `pixels` (rows top to bottom; samples per pixel by colour type)."""
    pixels = np.asarray(pixels)
    height, width = pixels.shape[:2]
    samples = pixels.reshape(height, width, -1)
    rows = []
    for row in samples:
        if depth == 16:
            data = b"".join(struct.pack(">H", int(v)) for v in row.ravel())
        elif depth == 8:
            data = bytes(int(v) for v in row.ravel())
        else:
            bits = "".join(format(int(v), f"0{depth}b") for v in row.ravel())
            bits += "0" * (-len(bits) % 8)
            data = bytes(int(bits[k : k + 8], 2) for k in range(0, len(bits), 8))
        rows.append(b"\0" + data)

    def chunk(kind, body):
        return (
            struct.pack(">I", len(body))
            + kind
            + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
        )

    out = b"\x89PNG\r\n\x1a\n" + chunk(
        b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0)
    )
    if palette is not None:
        out += chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).ravel()))
    out += chunk(b"IDAT", zlib.compress(b"".join(rows))) + chunk(b"IEND", b"")
    path.write_bytes(out)


def hfield_sources(tmp_path, rng):
    """(asset element, description) for each way a height field is given."""
    grey = rng.integers(0, 256, (5, 7))
    yield f'<hfield name="h" file="{png_file(tmp_path, "g8.png", grey)}" size="{SIZE}"/>', "grey8"
    deep = rng.integers(0, 65536, (4, 6))
    path = tmp_path / "g16.png"
    png(path, deep, depth=16)
    yield f'<hfield name="h" file="{path}" size="{SIZE}"/>', "grey16"
    low = rng.integers(0, 4, (6, 5))
    path = tmp_path / "g2.png"
    png(path, low, depth=2)
    yield f'<hfield name="h" file="{path}" size="{SIZE}"/>', "grey2"
    rgb = rng.integers(0, 256, (4, 5, 3))
    path = tmp_path / "rgb.png"
    png(path, rgb, colour=2)
    yield f'<hfield name="h" file="{path}" size="{SIZE}"/>', "rgb (its red channel)"
    rgba = rng.integers(0, 256, (3, 4, 4))
    path = tmp_path / "rgba.png"
    png(path, rgba, colour=6)
    yield f'<hfield name="h" file="{path}" size="{SIZE}"/>', "rgba"
    palette = rng.integers(0, 256, (8, 3))
    path = tmp_path / "palette.png"
    png(path, rng.integers(0, 8, (5, 5)), colour=3, palette=palette)
    yield f'<hfield name="h" file="{path}" size="{SIZE}"/>', "palette"
    values = rng.uniform(-2, 3, (4, 7)).astype(np.float32)
    path = tmp_path / "field.bin"
    path.write_bytes(struct.pack("<ii", 4, 7) + values.tobytes())
    yield f'<hfield name="h" file="{path}" size="{SIZE}"/>', "binary"
    path = tmp_path / "grey_alpha.png"
    png(path, rng.integers(0, 256, (4, 4, 2)), colour=4)
    yield f'<hfield name="h" file="{path}" size="{SIZE}"/>', "grey and alpha"
    path = tmp_path / "rgb16.png"
    png(path, rng.integers(0, 65536, (3, 5, 3)), colour=2, depth=16)
    yield f'<hfield name="h" file="{path}" size="{SIZE}"/>', "rgb, 16 bits"
    tiny = 1 + 1e-6 * rng.uniform(0, 1, (3, 3))
    yield (
        f'<hfield name="h" nrow="3" ncol="3" size="{SIZE}" elevation="{elevation_text(tiny)}"/>',
        "a range of a few float steps",
    )
    e = rng.uniform(-1, 2, (6, 4))
    yield (
        f'<hfield name="h" nrow="6" ncol="4" size="{SIZE}" elevation="{elevation_text(e)}"/>',
        ("inline"),
    )
    yield f'<hfield name="h" nrow="3" ncol="5" size="{SIZE}"/>', "nrow and ncol alone (zeros)"


def png_file(tmp_path, name, pixels):
    path = tmp_path / name
    png(path, pixels)
    return path


def test_hfield_arrays_match_mujoco4(tmp_path):
    rng = np.random.default_rng(3)
    for asset, what in hfield_sources(tmp_path, rng):
        text = f"""<mujoco>
  <asset>{asset}</asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="h"/>
    <body name="carried" pos="0 0 2"><freejoint/>
      <geom type="hfield" hfield="h" density="300" euler="10 20 30"/>
    </body>
  </worldbody>
</mujoco>"""
        z, m = load(tmp_path, text)
        assert z.nhfield == m.nhfield == 1, what
        np.testing.assert_array_equal(z.hfield_size, m.hfield_size, err_msg=what)
        np.testing.assert_array_equal(z.hfield_nrow, m.hfield_nrow, err_msg=what)
        np.testing.assert_array_equal(z.hfield_ncol, m.hfield_ncol, err_msg=what)
        # MuJoCo's float elevations, scaled in float: exactly its values
        np.testing.assert_array_equal(z.hfield_data, m.hfield_data.astype(np.float64), err_msg=what)
        np.testing.assert_array_equal(z.geom_dataid, m.geom_dataid, err_msg=what)
        np.testing.assert_allclose(z.geom_size, m.geom_size, rtol=1e-15, err_msg=what)
        np.testing.assert_allclose(z.geom_rbound, m.geom_rbound, rtol=1e-15, err_msg=what)
        # a height field on a moving body weighs as the box of its geom_size
        assert z.body_mass[1] == pytest.approx(m.body_mass[1], rel=1e-12), what
        inertia = np.asarray(z.body_inertia[1])
        full = np.array([[inertia[0], inertia[3], inertia[4]],
                         [inertia[3], inertia[1], inertia[5]],
                         [inertia[4], inertia[5], inertia[2]]])  # fmt: skip
        np.testing.assert_allclose(
            np.sort(np.linalg.eigvalsh(full)), np.sort(m.body_inertia[1]), rtol=1e-9, err_msg=what
        )


@pytest.mark.parametrize(
    "asset, message",
    [
        ('<hfield name="h" nrow="2" ncol="3" size="1 1 1 1" elevation="1 2 3"/>', "elevation"),
        ('<hfield name="h" nrow="2" ncol="2" size="1 1 0 1"/>', "size[2]"),
        ('<hfield name="h" nrow="1" ncol="4" size="1 1 1 1"/>', "at least 2"),
        ('<hfield name="h" size="1 1 1 1"/>', "nrow and ncol"),
        ('<hfield name="h" nrow="2" ncol="2"/>', "size"),
        ('<hfield name="h" file="missing.png" size="1 1 1 1"/>', "missing.png"),
        ('<hfield name="h" file="bad.png" size="1 1 1 1"/>', "not a PNG"),
        ('<hfield name="h" file="short.bin" size="1 1 1 1"/>', "bytes"),
        ('<hfield name="h" file="x.png" content_type="image/jpeg" size="1 1 1 1"/>', "jpeg"),
    ],
)
def test_bad_hfields_name_the_file_and_line(tmp_path, asset, message):
    (tmp_path / "bad.png").write_bytes(b"not an image at all")
    (tmp_path / "short.bin").write_bytes(struct.pack("<ii", 3, 3) + b"\0" * 12)
    path = tmp_path / "bad.xml"
    path.write_text(
        f"""<mujoco>
  <asset>{asset}</asset>
  <worldbody><geom type="hfield" hfield="h"/></worldbody>
</mujoco>"""
    )
    with pytest.raises(Exception) as e:
        zwang.load(str(path))
    assert message in str(e.value)
    assert "bad.xml:2:" in str(e.value)


def test_hfield_geom_needs_a_known_hfield(tmp_path):
    path = tmp_path / "geom.xml"
    for geom, message in [
        ('<geom type="hfield"/>', "needs the attribute 'hfield'"),
        ('<geom type="hfield" hfield="nope"/>', "'nope' is not defined"),
        ('<geom type="sphere" size="1" hfield="h"/>', "cannot have a height field"),
    ]:
        path.write_text(
            f"""<mujoco>
  <asset><hfield name="h" nrow="2" ncol="2" size="1 1 1 1"/></asset>
  <worldbody>{geom}</worldbody>
</mujoco>"""
        )
        with pytest.raises(Exception, match=message):
            zwang.load(str(path))


# -- collision -------------------------------------------------------------------------------


# a box or a mesh without a margin: test_polytope_depths_are_exact
@pytest.mark.parametrize(
    "kind, margin",
    [(k, 0.0) for k in GEOMS if k not in ("box", "mesh")] + [(k, 0.01) for k in GEOMS],
)
def test_hfield_contacts_match_mujoco4(tmp_path, kind, margin):
    rng = np.random.default_rng(11 + list(GEOMS).index(kind) + int(1000 * margin))
    close = exact = total = 0
    for trial in range(2):
        z, m = load(tmp_path, field_scene(kind, rng.uniform(0, 1, (7, 9)), margin))
        for i, ours, theirs in contacts(z, m, random_poses(rng, 48)):
            at = f"{kind} margin {margin}, field {trial}, pose {i}"
            assert len(ours) == len(theirs), f"{at}: {len(ours)} contacts, MuJoCo {len(theirs)}"
            # the same prisms in the same order; each contact to EPA's tolerance (where EPA ends
            # after its 35 iterations, a deep contact's depth a few 1e-4 apart, its normal by a
            # few degrees)
            for (d1, p1, n1), (d2, p2, n2) in zip(ours, theirs):
                assert abs(d1 - d2) < 2e-4, f"{at}: dist {d1} vs {d2}"
                assert np.abs(p1 - p2).max() < 1e-2, f"{at}: pos {p1} vs {p2}"
                assert np.abs(n1 - n2).max() < 0.2, f"{at}: normal {n1} vs {n2}"
                total += 1
                exact += max(abs(d1 - d2), np.abs(p1 - p2).max(), np.abs(n1 - n2).max()) < 1e-9
                # mesh vertices are single precision in both engines
                close += (
                    abs(d1 - d2) < 2e-6
                    and np.abs(p1 - p2).max() < 1e-5
                    and (np.abs(n1 - n2).max() < 1e-5)
                )
    assert total > 200
    if kind == "sphere" and margin == 0:
        # a sphere's centre against the prism (outside it in these poses): exact in both
        assert exact == total, f"{exact} of {total} sphere contacts agree to 1e-9"
    # most contacts agree to the tolerance itself: the same iterations in both engines
    assert close >= 0.5 * total, f"{close} of {total} contacts agree to 1e-5"


def prism_depths(m, d, geom):
    """The penetration depth of each prism of the height field (geom 0) that the convex geom
    overlaps, from the convex hull of their Minkowski difference (SciPy's Qhull)."""
    spatial = pytest.importorskip("scipy.spatial")
    nrow, ncol = m.hfield_nrow[0], m.hfield_ncol[0]
    s = m.hfield_size[0]
    e = m.hfield_data.astype(float).reshape(nrow, ncol) * s[2]
    R0, p0 = d.geom_xmat[0].reshape(3, 3), d.geom_xpos[0]
    R, p = d.geom_xmat[geom].reshape(3, 3), d.geom_xpos[geom]
    if m.geom_type[geom] == mujoco.mjtGeom.mjGEOM_BOX:
        signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])
        local = signs * m.geom_size[geom]
    else:
        mesh = m.geom_dataid[geom]
        start, count = m.mesh_vertadr[mesh], m.mesh_vertnum[mesh]
        local = m.mesh_vert[start : start + count].astype(float)
    # the geom's corners in the height field's frame
    corners = ((local @ R.T + p) - p0) @ R0
    x = np.linspace(-s[0], s[0], ncol)
    y = np.linspace(-s[1], s[1], nrow)
    depths = []
    for r in range(nrow - 1):
        for c in range(1, ncol):
            for tri in ([(r + 1, c - 1), (r, c - 1), (r + 1, c)], [(r, c - 1), (r + 1, c), (r, c)]):
                top = np.array([[x[cc], y[rr], e[rr, cc]] for rr, cc in tri])
                prism = np.vstack([top * [1, 1, 0] - [0, 0, s[3]], top])
                diff = (prism[:, None, :] - corners[None, :, :]).reshape(-1, 3)
                hull = spatial.ConvexHull(diff)
                if np.all(hull.equations[:, 3] < 0):
                    depths.append(-hull.equations[:, 3].max())
    return sorted(depths)


@pytest.mark.parametrize("kind", ["box", "mesh"])
def test_polytope_depths_are_exact(tmp_path, kind):
    rng = np.random.default_rng(5 if kind == "box" else 6)
    z, m = load(tmp_path, field_scene(kind, rng.uniform(0, 1, (5, 6)), 0.0))
    qpos = random_poses(rng, 40)
    d = mujoco.MjData(m)
    checked = 0
    for i, ours, theirs in contacts(z, m, qpos):
        # MuJoCo finds the same prisms
        assert len(ours) == len(theirs), f"pose {i}: {len(ours)} contacts, MuJoCo {len(theirs)}"
        d.qpos[:] = qpos[i]
        mujoco.mj_kinematics(m, d)
        exact = prism_depths(m, d, 1)
        depths = sorted(-c[0] for c in ours)
        assert len(depths) == len(exact), f"pose {i}: {len(depths)} contacts, {len(exact)} prisms"
        # mesh vertices are single precision
        np.testing.assert_allclose(depths, exact, atol=1e-9 if kind == "box" else 1e-6)
        checked += len(exact)
    assert checked > 40


# -- dynamics --------------------------------------------------------------------------------

BUMPS = """<mujoco>
  <option timestep="0.002"/>
  <asset>
    <hfield name="bumps" nrow="{nrow}" ncol="{ncol}" size="1.5 1.2 0.15 0.1"
            elevation="{elevation}"/>
    {mesh}
  </asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="bumps" quat="0.995 0.07 0.05 0"/>
    {bodies}
  </worldbody>
</mujoco>"""


def bumpy(rng, nrow=15, ncol=19):
    x, y = np.meshgrid(np.linspace(0, 3, ncol), np.linspace(0, 2.4, nrow))
    return np.sin(2.1 * x) * np.cos(1.7 * y) + 0.3 * rng.uniform(-1, 1, (nrow, ncol))


def bodies(kinds, margin=0.002):
    out = []
    for k, kind in enumerate(kinds):
        x, y = -0.9 + 0.45 * (k % 5), -0.4 + 0.5 * (k // 5)
        out.append(
            f'<body name="b{k}" pos="{x} {y} 0.4" euler="{10 * k} {5 * k} 0"><freejoint/>'
            f'<geom {GEOMS[kind]} margin="{margin}"/></body>'
        )
    return "\n".join(out)


def run_mujoco(m, steps):
    d = mujoco.MjData(m)
    states = []
    for _ in range(steps):
        mujoco.mj_step(m, d)
        states.append((d.qpos.copy(), d.qvel.copy()))
    return states


def test_qacc_of_objects_on_a_field_matches_mujoco4(tmp_path):
    rng = np.random.default_rng(21)
    # spheres and capsules (the feet of legged robots): their contacts are exact where the core
    # (centre, segment) is outside the prism; the others' are EPA's approximations, whose
    # normals may be degrees apart in the two engines, checked contact by contact above
    kinds = ["sphere", "capsule"] * 6
    text = BUMPS.format(
        nrow=15, ncol=19, elevation=elevation_text(bumpy(rng)), mesh=MESH, bodies=bodies(kinds)
    )
    z, m = load(tmp_path, text)
    states = run_mujoco(m, 600)[99::100]
    sim = zwang.Simulator(z, instances=len(states))
    sim.reset(qpos=np.array([s[0] for s in states]), qvel=np.array([s[1] for s in states]))
    sim.forward()
    d = mujoco.MjData(m)
    resting = 0
    for i, (qpos, qvel) in enumerate(states):
        d.qpos[:], d.qvel[:] = qpos, qvel
        mujoco.mj_forward(m, d)
        assert int(sim.ncon[i]) == d.ncon, f"state {i}: {int(sim.ncon[i])} contacts vs {d.ncon}"
        resting += d.ncon
        scale = np.abs(d.qacc).max() + 9.81
        np.testing.assert_allclose(sim.qacc[i], d.qacc, atol=1e-4 * scale, err_msg=f"state {i}")
    # the objects lie on the field
    assert resting >= 6 * len(kinds)


@pytest.mark.parametrize("kind", ["sphere", "capsule"])
def test_rolling_down_a_field_matches_mujoco4(tmp_path, kind):
    rng = np.random.default_rng(4)
    text = BUMPS.format(
        nrow=15, ncol=19, elevation=elevation_text(bumpy(rng)), mesh="", bodies=bodies([kind], 0)
    )
    z, m = load(tmp_path, text)
    states = run_mujoco(m, 400)
    sim = zwang.Simulator(z, instances=1)
    sim.reset()
    start = np.array(states[0][0])
    for k in range(400):
        sim.step()
        if k % 50 == 49:
            # the bodies' paths over the bumps, to the solver's and EPA's tolerance
            np.testing.assert_allclose(sim.qpos[0][:3], states[k][0][:3], atol=2e-4, err_msg=f"{k}")
    # it moved over the field, down its slopes
    assert np.linalg.norm(states[-1][0][:2] - start[:2]) > 0.05


def test_ant_stands_on_a_field_as_in_mujoco4(tmp_path):
    gymnasium = pytest.importorskip("gymnasium")
    from pathlib import Path

    ant = (Path(gymnasium.__file__).parent / "envs/mujoco/assets/ant.xml").read_text()
    rng = np.random.default_rng(8)
    field = (
        f'<asset><hfield name="ground" nrow="31" ncol="31" size="4 4 0.08 0.2" '
        f'elevation="{elevation_text(rng.uniform(0, 1, (31, 31)))}"/></asset>'
    )
    ant = ant.replace("<worldbody>", field + "<worldbody>", 1)
    start = ant.index('<geom conaffinity="1" condim="3" material="MatPlane" name="floor"')
    end = ant.index("/>", start) + 2
    ant = (
        ant[:start]
        + '<geom conaffinity="1" condim="3" name="floor" type="hfield" hfield="ground"/>'
        + ant[end:]
    )
    z, m = load(tmp_path, ant, "ant.xml")
    states = run_mujoco(m, 500)
    sim = zwang.Simulator(z, instances=1)
    sim.reset()
    for k in range(500):
        sim.step()
        if k % 100 == 99:
            np.testing.assert_allclose(sim.qpos[0], states[k][0], atol=1e-3, err_msg=f"step {k}")
    # it stands on its legs, its torso above the field
    assert 0.25 < states[-1][0][2] < 0.9 and sim.qpos[0][2] > 0.25


# -- rangefinders ----------------------------------------------------------------------------

RAYS = """<mujoco>
  <asset>
    <hfield name="h" nrow="{nrow}" ncol="{ncol}" size="{SIZE}"
            elevation="{elevation}"/>
    <mesh name="rock" scale="5 5 5" vertex="-0.05 -0.04 -0.03 0.06 -0.05 -0.02 0 0.07 -0.04
                                            0.01 0 0.06 -0.03 0.03 0.04 0.05 0.04 0.03"/>
  </asset>
  <worldbody>
    <geom name="terrain" type="hfield" hfield="h" pos="0.1 -0.05 0.02" quat="0.98 0.1 -0.05 0.1"/>
    <geom name="rock" type="mesh" mesh="rock" pos="0.2 0.1 0.35" euler="20 30 40"/>
    <body name="scanner" pos="0 0 0.5"><freejoint/>
      <geom type="sphere" size="0.01"/>
      {sites}
    </body>
  </worldbody>
  <sensor>{sensors}</sensor>
</mujoco>"""


def test_rangefinders_see_fields_and_meshes_as_mujoco4(tmp_path):
    rng = np.random.default_rng(31)
    directions = rng.normal(size=(24, 3))
    # most rays downwards, towards the field; some level, some up (its sides, the rock, nothing)
    directions[:16, 2] = -np.abs(directions[:16, 2]) - 1
    sites, sensors = [], []
    for k, z in enumerate(directions):
        sites.append(f'<site name="s{k}" zaxis="{z[0]:.6f} {z[1]:.6f} {z[2]:.6f}"/>')
        sensors.append(f'<rangefinder site="s{k}"/>')
    text = RAYS.format(
        nrow=7,
        ncol=9,
        SIZE=SIZE,
        elevation=elevation_text(rng.uniform(0, 1, (7, 9))),
        sites="\n      ".join(sites),
        sensors="".join(sensors),
    )
    z, m = load(tmp_path, text)
    n = 64
    qpos = np.zeros((n, 7))
    qpos[:, 0] = rng.uniform(-0.7, 0.7, n)
    qpos[:, 1] = rng.uniform(-0.6, 0.6, n)
    qpos[:, 2] = rng.uniform(-0.05, 0.6, n)
    q = rng.normal(size=(n, 4))
    qpos[:, 3:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    sim = zwang.Simulator(z, instances=n)
    sim.reset(qpos=qpos)
    sim.forward()
    d = mujoco.MjData(m)
    hits = {"terrain": 0, "rock": 0, "none": 0}
    for i in range(n):
        d.qpos[:] = qpos[i]
        mujoco.mj_forward(m, d)
        for k in range(len(directions)):
            site = d.site(f"s{k}")
            geomid = np.zeros(1, np.int32)
            mujoco.mj_ray(m, d, site.xpos, site.xmat.reshape(3, 3)[:, 2], None, 1, 1, geomid)
            met = ["none", "terrain", "rock", "scanner"][geomid[0] + 1]
            hits[met] += 1
            # the rock's vertices are single precision in both engines, in frames that may
            # differ by float rounding; the field's data are the same floats
            tol = 1e-6 if met == "rock" else 1e-9
            assert abs(sim.sensordata[i][k] - d.sensordata[k]) < tol, (
                f"state {i}, ray {k} ({met}): {sim.sensordata[i][k]} vs MuJoCo {d.sensordata[k]}"
            )
    # the rays met the field (its top, its sides, its base) and the rock, and missed
    assert hits["terrain"] > 300 and hits["rock"] > 20 and hits["none"] > 100, hits
