"""The shapes of a zwang Model's geoms as triangle meshes in their geom frames, and their colours.

The shapes come from the Model itself (types, sizes, height fields), so that every model zwang
loads can be drawn; the meshes themselves (zwang keeps their convex hulls only), the colours
(rgba, or the material's) and MuJoCo's visible geom groups come from MuJoCo's compiled model of
the same file when it can read it, and otherwise the hulls are drawn with a palette by body.
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass

import numpy as np

# mjtGeom, as zwang numbers its geom types
PLANE, HFIELD, SPHERE, CAPSULE, ELLIPSOID, CYLINDER, BOX, MESH = range(8)

# MuJoCo draws geom groups 0, 1 and 2 by default (mjvOption.geomgroup)
VISIBLE_GROUPS = 3

# a palette for models MuJoCo cannot read: a colour per body, in body order
PALETTE = np.array(
    [
        [0.80, 0.55, 0.30],
        [0.30, 0.55, 0.80],
        [0.45, 0.70, 0.35],
        [0.75, 0.40, 0.55],
        [0.60, 0.50, 0.80],
        [0.85, 0.70, 0.30],
    ]
)

# what a plane of size 0 (infinite) is drawn as: this many times the model's extent, at least
INFINITE_PLANE = 20.0


@dataclass
class GeomShape:
    """One geom to draw: its mesh in the geom frame and its colour."""

    geom: int
    vertices: np.ndarray  # (V, 3) float32
    faces: np.ndarray  # (F, 3) uint32
    rgba: np.ndarray  # (4,) in [0, 1]
    plane: bool


def _sphere(radius: np.ndarray, subdivisions: int = 2) -> tuple[np.ndarray, np.ndarray]:
    import trimesh

    s = trimesh.creation.icosphere(subdivisions=subdivisions, radius=1.0)
    return np.asarray(s.vertices) * radius, np.asarray(s.faces)


def _shape(model, g: int, extent: float, mj=None) -> tuple[np.ndarray, np.ndarray] | None:
    """Geom g's mesh in its frame; a mesh geom's from MuJoCo's model ``mj`` (the mesh itself)
    when given, else zwang's convex hull of it."""
    import trimesh

    kind = int(model.geom_type[g])
    size = np.asarray(model.geom_size[g], dtype=float)
    if kind == PLANE:
        # a plane's size is its half extents; 0 is infinite
        half = [s if s > 0 else INFINITE_PLANE * extent for s in size[:2]]
        v = np.array([[-half[0], -half[1], 0], [half[0], -half[1], 0], [half[0], half[1], 0]])
        v = np.vstack([v, [-half[0], half[1], 0]])
        return v, np.array([[0, 1, 2], [0, 2, 3]])
    if kind == SPHERE:
        return _sphere(np.full(3, size[0]))
    if kind == ELLIPSOID:
        return _sphere(size[:3])
    if kind == CAPSULE:
        c = trimesh.creation.capsule(height=2 * size[1], radius=size[0], count=[16, 16])
        return np.asarray(c.vertices), np.asarray(c.faces)
    if kind == CYLINDER:
        c = trimesh.creation.cylinder(radius=size[0], height=2 * size[1], sections=24)
        return np.asarray(c.vertices), np.asarray(c.faces)
    if kind == BOX:
        b = trimesh.creation.box(extents=2 * size[:3])
        return np.asarray(b.vertices), np.asarray(b.faces)
    if kind == MESH and mj is not None and int(mj.geom_dataid[g]) >= 0:
        k = int(mj.geom_dataid[g])
        va, vn = int(mj.mesh_vertadr[k]), int(mj.mesh_vertnum[k])
        fa, fn = int(mj.mesh_faceadr[k]), int(mj.mesh_facenum[k])
        return np.asarray(mj.mesh_vert[va : va + vn]), np.asarray(mj.mesh_face[fa : fa + fn])
    if kind == MESH:
        k = int(model.geom_dataid[g])
        va, vn = int(model.mesh_vertadr[k]), int(model.mesh_vertnum[k])
        fa, fn = int(model.mesh_faceadr[k]), int(model.mesh_facenum[k])
        return np.asarray(model.mesh_vert[va : va + vn]), np.asarray(model.mesh_face[fa : fa + fn])
    if kind == HFIELD:
        return _hfield(model, int(model.geom_dataid[g]))
    return None


def _hfield(model, k: int) -> tuple[np.ndarray, np.ndarray]:
    """MuJoCo's height field k: nrow x ncol heights in [0, 1] (row-major, rows along y), over
    [−rx, rx] x [−ry, ry], scaled by the elevation; a base below down to −base."""
    nrow, ncol = int(model.hfield_nrow[k]), int(model.hfield_ncol[k])
    rx, ry, elevation, base = (float(s) for s in model.hfield_size[k])
    adr = int(model.hfield_adr[k])
    h = np.asarray(model.hfield_data[adr : adr + nrow * ncol], dtype=float).reshape(nrow, ncol)
    x = np.linspace(-rx, rx, ncol)
    y = np.linspace(-ry, ry, nrow)
    xx, yy = np.meshgrid(x, y)
    top = np.stack([xx, yy, h * elevation], axis=-1).reshape(-1, 3)
    i = np.arange(nrow * ncol).reshape(nrow, ncol)
    a, b, c, d = i[:-1, :-1], i[:-1, 1:], i[1:, 1:], i[1:, :-1]
    faces = np.concatenate(
        [np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]
    )
    # the base: the border's heights down to −base, and the bottom
    border = np.concatenate([i[0, :], i[1:, -1], i[-1, -2::-1], i[-2:0:-1, 0]])
    low = top[border].copy()
    low[:, 2] = -base
    n = len(top)
    vertices = np.vstack([top, low])
    m = len(border)
    sides = []
    for s in range(m):
        t = (s + 1) % m
        sides += [[border[s], n + s, n + t], [border[s], n + t, border[t]]]
    bottom = [[n, n + s + 1, n + s] for s in range(1, m - 1)]
    return vertices, np.concatenate([faces, np.array(sides), np.array(bottom)])


def _mujoco_model(model, path: str | None):
    """MuJoCo's model of the file, None when MuJoCo is missing, cannot read it, or its geoms
    are not the Model's."""
    if path is None:
        return None
    try:
        import mujoco
    except ImportError:
        return None
    try:
        mj = mujoco.MjModel.from_xml_path(os.fspath(path))
    except Exception as e:
        warnings.warn(
            f"zwang.viewer: MuJoCo cannot read {path} ({e}); colours by body", stacklevel=3
        )
        return None
    names = [mj.geom(g).name for g in range(mj.ngeom)]
    if mj.ngeom != model.ngeom or names != list(model.geom_names):
        warnings.warn(
            f"zwang.viewer: MuJoCo's model of {path} has other geoms than zwang's; colours by body",
            stacklevel=3,
        )
        return None
    return mj


def _mujoco_colors(mj) -> tuple[np.ndarray, np.ndarray]:
    """(rgba (ngeom, 4), group (ngeom,)): a geom's material colours it where its own rgba is
    MuJoCo's default, as MuJoCo draws it."""
    rgba = np.array(mj.geom_rgba, dtype=float)
    mat = np.asarray(mj.geom_matid)
    default = np.all(rgba == [0.5, 0.5, 0.5, 1.0], axis=1)
    use = (mat >= 0) & default
    rgba[use] = np.asarray(mj.mat_rgba)[mat[use]]
    return rgba, np.asarray(mj.geom_group)


def geom_shapes(model, path: str | None, extent: float) -> list[GeomShape]:
    """The geoms a person would see: opaque ones (an alpha 0 geom is invisible in MuJoCo too) of
    MuJoCo's visible groups, each as a mesh in its geom frame."""
    mj = _mujoco_model(model, path)
    colors = None if mj is None else _mujoco_colors(mj)
    shapes = []
    for g in range(model.ngeom):
        if colors is not None:
            rgba, group = colors[0][g], colors[1][g]
            if group >= VISIBLE_GROUPS or rgba[3] == 0:
                continue
        else:
            if not model.geom_visible[g]:
                continue
            rgba = np.append(PALETTE[int(model.geom_bodyid[g]) % len(PALETTE)], 1.0)
        mesh = _shape(model, g, extent, mj)
        if mesh is None:
            continue
        v, f = mesh
        shapes.append(
            GeomShape(
                g,
                np.asarray(v, dtype=np.float32),
                np.asarray(f, dtype=np.uint32),
                np.asarray(rgba, dtype=float),
                int(model.geom_type[g]) == PLANE,
            )
        )
    return shapes


def matrix_to_wxyz(r: np.ndarray) -> np.ndarray:
    """Unit quaternions (w, x, y, z) of rotation matrices (..., 3, 3), by the largest of the four
    squared components (Shepperd's method), so that no branch divides by a small number."""
    r = np.asarray(r, dtype=float)
    t = np.stack(
        [
            1 + r[..., 0, 0] + r[..., 1, 1] + r[..., 2, 2],
            1 + r[..., 0, 0] - r[..., 1, 1] - r[..., 2, 2],
            1 - r[..., 0, 0] + r[..., 1, 1] - r[..., 2, 2],
            1 - r[..., 0, 0] - r[..., 1, 1] + r[..., 2, 2],
        ],
        axis=-1,
    )
    k = np.argmax(t, axis=-1)
    s = np.sqrt(np.maximum(np.take_along_axis(t, k[..., None], -1)[..., 0], 1e-300))
    w = np.stack(
        [
            t[..., 0],
            r[..., 2, 1] - r[..., 1, 2],
            r[..., 0, 2] - r[..., 2, 0],
            r[..., 1, 0] - r[..., 0, 1],
        ],
        -1,
    )
    x = np.stack(
        [
            r[..., 2, 1] - r[..., 1, 2],
            t[..., 1],
            r[..., 1, 0] + r[..., 0, 1],
            r[..., 0, 2] + r[..., 2, 0],
        ],
        -1,
    )
    y = np.stack(
        [
            r[..., 0, 2] - r[..., 2, 0],
            r[..., 1, 0] + r[..., 0, 1],
            t[..., 2],
            r[..., 2, 1] + r[..., 1, 2],
        ],
        -1,
    )
    z = np.stack(
        [
            r[..., 1, 0] - r[..., 0, 1],
            r[..., 0, 2] + r[..., 2, 0],
            r[..., 2, 1] + r[..., 1, 2],
            t[..., 3],
        ],
        -1,
    )
    rows = np.stack([w, x, y, z], axis=-2)  # (..., 4 components, 4 cases)
    q = np.take_along_axis(rows, k[..., None, None].repeat(4, -2), -1)[..., 0] / (2 * s[..., None])
    return q / np.linalg.norm(q, axis=-1, keepdims=True)
