"""zwang.render: pictures of instances without a display, by MuJoCo's renderer.

zwang draws nothing itself: MuJoCo's ``mujoco.Renderer`` (OpenGL through EGL or OSMesa without
a display) draws a MuJoCo model of the same file (``Model.path``) into which the instances'
state is copied, as Gymnasium's own frames are made.  MuJoCo is imported on the first call,
never at ``import zwang``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

# the state fields a picture depends on, copied into MuJoCo's data
STATE_FIELDS = ("qpos", "qvel", "act", "mocap_pos", "mocap_quat")


def tile(frames: Sequence[np.ndarray], columns: int | None = None) -> np.ndarray:
    """Frames of one size side by side in rows of ``columns`` (about the square root of their
    count by default), left to right and top to bottom; the last row's gaps are black (zero).
    For a vector env's ``render()``: ``zwang.tile(envs.render())``."""
    frames = [np.asarray(f) for f in frames]
    if not frames:
        raise ValueError("tile needs at least one frame")
    shape = frames[0].shape
    if any(f.shape != shape for f in frames):
        raise ValueError(f"frames must have one shape, got {sorted({f.shape for f in frames})}")
    count = len(frames)
    if columns is None:
        columns = int(np.ceil(np.sqrt(count)))
    if columns < 1:
        raise ValueError(f"columns must be at least 1, got {columns}")
    rows = -(-count // columns)
    height, width = shape[:2]
    out = np.zeros((rows * height, columns * width, *shape[2:]), dtype=frames[0].dtype)
    for k, f in enumerate(frames):
        r, c = divmod(k, columns)
        out[r * height : (r + 1) * height, c * width : (c + 1) * width] = f
    return out


class Painter:
    """MuJoCo's renderer over the file of a zwang Model, at one size: ``paint(state)`` draws one
    instance's state (a mapping of STATE_FIELDS, qpos at least) and returns (height, width, 3)
    uint8 RGB.  ``camera``: None (MuJoCo's free camera, framing the model), a camera name or
    index of the model, or a ``mujoco.MjvCamera``."""

    def __init__(self, model, width: int, height: int, camera: Any = None, path=None) -> None:
        headless = sys.platform.startswith("linux") and not os.environ.get("DISPLAY")
        if "MUJOCO_GL" not in os.environ and headless:
            os.environ["MUJOCO_GL"] = "egl"
        import mujoco

        path = path if path is not None else model.path
        if path is None:
            raise ValueError("render: the model has no file (Model.path) for MuJoCo to draw")
        if width < 1 or height < 1:
            raise ValueError(f"render: width and height must be positive, got {width}x{height}")
        self._mujoco = mujoco
        self.mj = mujoco.MjModel.from_xml_path(os.fspath(path))
        if (self.mj.nq, self.mj.nv, self.mj.na, self.mj.nmocap) != (
            model.nq,
            model.nv,
            model.na,
            model.nmocap,
        ):
            raise ValueError(
                f"render: MuJoCo's model of {path} has nq, nv, na, nmocap = "
                f"{self.mj.nq}, {self.mj.nv}, {self.mj.na}, {self.mj.nmocap}; zwang's "
                f"{model.nq}, {model.nv}, {model.na}, {model.nmocap}"
            )
        self.data = mujoco.MjData(self.mj)
        self.mj.vis.global_.offwidth = max(width, self.mj.vis.global_.offwidth)
        self.mj.vis.global_.offheight = max(height, self.mj.vis.global_.offheight)
        self.renderer = mujoco.Renderer(self.mj, height, width)
        named = isinstance(camera, str)
        if named and mujoco.mj_name2id(self.mj, mujoco.mjtObj.mjOBJ_CAMERA, camera) < 0:
            raise ValueError(f"render: {path} has no camera {camera!r}")
        if isinstance(camera, (int, np.integer)) and not -1 <= camera < self.mj.ncam:
            raise ValueError(f"render: camera {camera} is out of range ({self.mj.ncam} cameras)")
        self.camera = -1 if camera is None else camera
        # a model without geoms (one built in code and exported) is drawn as its bodies'
        # equivalent inertia boxes
        self.options = mujoco.MjvOption()
        if self.mj.ngeom == 0:
            self.options.flags[mujoco.mjtVisFlag.mjVIS_INERTIA] = True

    def paint(self, state: Mapping[str, np.ndarray]) -> np.ndarray:
        d = self.data
        for name in STATE_FIELDS:
            if name in state and np.size(state[name]):
                getattr(d, name)[:] = np.asarray(state[name], dtype=float).reshape(
                    getattr(d, name).shape
                )
        self._mujoco.mj_forward(self.mj, d)
        self.renderer.update_scene(d, camera=self.camera, scene_option=self.options)
        return self.renderer.render().copy()

    def close(self) -> None:
        self.renderer.close()


def rows(sim, name: str, idx: Sequence[int]) -> np.ndarray:
    """Rows ``idx`` of a field of ``sim``: on the CUDA backend only those rows leave the device
    (through torch with CUDA, when it is installed); otherwise the host view."""
    if str(sim.backend).startswith("cuda"):
        try:
            import torch

            t = torch.from_dlpack(sim.device_field(name))
            return t[torch.as_tensor(list(idx), device=t.device)].cpu().numpy()
        except Exception:
            pass  # no torch, or a torch without CUDA: the host view below
    return np.array(np.asarray(getattr(sim, name))[list(idx)])


def _instance_states(sim, idx: Sequence[int]) -> list[dict[str, np.ndarray]]:
    fields = [
        name
        for name in STATE_FIELDS
        if not (name == "act" and sim.model.na == 0)
        and not (name.startswith("mocap") and sim.model.nmocap == 0)
    ]
    got = {name: np.asarray(rows(sim, name, idx), dtype=float) for name in fields}
    return [{name: got[name][j] for name in fields} for j in range(len(idx))]


def render(
    source,
    state: Mapping[str, Any] | np.ndarray | None = None,
    *,
    instances: int | Sequence[int] = 0,
    camera: Any = None,
    width: int = 640,
    height: int = 480,
) -> np.ndarray:
    """Pictures of instances, drawn by MuJoCo's renderer (headless: EGL, or OSMesa with
    ``MUJOCO_GL=osmesa``) on a MuJoCo model of the file the zwang Model was loaded from.

    ``source`` is a Simulator (its instances' current qpos, qvel, act and mocap poses) or a
    Model; ``state`` overrides that: a qpos array (nq,) or (k, nq), or a mapping of qpos, qvel,
    act, mocap_pos, mocap_quat with one row per picture.  ``instances``: an index (one picture,
    (height, width, 3) uint8) or a sequence ((k, height, width, 3)), of the Simulator.
    ``camera``: None (MuJoCo's free camera), a camera name or index, or a mujoco.MjvCamera."""
    import zwang

    if isinstance(source, zwang.Simulator):
        sim, model = source, source.model
    elif isinstance(source, zwang.Model):
        sim, model = None, source
    else:
        kind = type(source).__name__
        raise TypeError(f"render needs a zwang.Simulator or zwang.Model, not {kind}")
    one = isinstance(instances, (int, np.integer))
    idx = [int(instances)] if one else [int(i) for i in instances]
    if sim is not None:
        for i in idx:
            if not 0 <= i < sim.instances:
                raise IndexError(f"render: instance {i} is out of range ({sim.instances})")
    if state is None:
        if sim is None:
            states = [{"qpos": np.asarray(model.qpos0)} for _ in idx]
        else:
            states = _instance_states(sim, idx)
    else:
        if not isinstance(state, Mapping):
            state = {"qpos": state}
        rows = {k: np.atleast_2d(np.asarray(v, dtype=float)) for k, v in state.items()}
        unknown = set(rows) - set(STATE_FIELDS)
        if unknown:
            raise ValueError(f"render: unknown state fields {sorted(unknown)}; use {STATE_FIELDS}")
        count = max(len(v) for v in rows.values())
        if one and count == 1:
            idx = idx[:1]
        states = [{k: v[min(j, len(v) - 1)] for k, v in rows.items()} for j in range(count)]
        one = one and count == 1
    painter = Painter(model, width, height, camera)
    try:
        frames = [painter.paint(s) for s in states]
    finally:
        painter.close()
    return frames[0] if one else np.stack(frames)
