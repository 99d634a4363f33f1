"""Frames of zwang's envs drawn by Gymnasium's own MuJoCo renderer.

A task env keeps a MuJoCo model of its file, built on the first ``render()`` (MuJoCo and its
renderer are imported then, never at ``import zwang``): each drawn env's ``qpos`` and ``qvel``
are copied into its data, ``mj_forward`` places the bodies, and Gymnasium's ``MujocoRenderer``
draws them with the task's camera, size and options, so a frame is the one Gymnasium's
environment draws at the same state.  Gymnasium draws a stepped env as MuJoCo's ``data`` holds
it after ``mj_step``: the bodies where the step's last evaluation placed them, one substep before
the state; zwang draws the state itself.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

# what Gymnasium's v5 MuJoCo environments draw
RENDER_MODES = ("rgb_array", "depth_array")

# the keyword arguments of Gymnasium's MujocoEnv that set how it draws
RENDER_KWARGS = (
    "width",
    "height",
    "camera_id",
    "camera_name",
    "default_camera_config",
    "max_geom",
    "visual_options",
)


def gymnasium_render_defaults(env_id: str) -> dict[str, Any]:
    """The drawing arguments' defaults of Gymnasium's own ``<env_id>-v5`` class."""
    import gymnasium

    spec = gymnasium.spec(f"{env_id}-v5")
    cls = gymnasium.envs.registration.load_env_creator(spec.entry_point)
    defaults: dict[str, Any] = {}
    for klass in inspect.getmro(cls):
        if "__init__" not in vars(klass):
            continue
        for name, p in inspect.signature(klass.__init__).parameters.items():
            if name in RENDER_KWARGS and name not in defaults and p.default is not p.empty:
                defaults[name] = p.default
    return defaults


def check_render_mode(render_mode: str | None) -> None:
    if render_mode is None or render_mode in RENDER_MODES:
        return
    if render_mode == "human":
        raise ValueError(
            "render_mode='human' needs a window, which zwang does not open; use 'rgb_array' "
            "(Gymnasium's RecordVideo records it)"
        )
    raise ValueError(f"render_mode must be None, 'rgb_array' or 'depth_array', not {render_mode!r}")


class TaskRenderer:
    """Gymnasium's ``MujocoRenderer`` over a MuJoCo model of ``xml_path``."""

    def __init__(self, xml_path: str, render_mode: str, settings: dict[str, Any]) -> None:
        # a machine without a display draws through EGL, Mesa's software rasteriser where there
        # is no GPU; MUJOCO_GL chooses otherwise
        if "MUJOCO_GL" not in os.environ and not os.environ.get("DISPLAY"):
            os.environ["MUJOCO_GL"] = "egl"
        import mujoco
        from gymnasium.envs.mujoco.mujoco_rendering import MujocoRenderer

        self._mujoco = mujoco
        self.render_mode = render_mode
        self.model = mujoco.MjModel.from_xml_path(xml_path)
        self.data = mujoco.MjData(self.model)
        width, height = settings["width"], settings["height"]
        # as Gymnasium's MujocoEnv: the offscreen buffer of the frame's size
        self.model.vis.global_.offwidth = width
        self.model.vis.global_.offheight = height
        self.renderer = MujocoRenderer(
            self.model,
            self.data,
            settings["default_camera_config"],
            width,
            height,
            settings["max_geom"],
            settings["camera_id"],
            settings["camera_name"],
            settings["visual_options"],
        )

    def render(self, qpos: np.ndarray, qvel: np.ndarray) -> np.ndarray:
        self.data.qpos[:] = qpos
        self.data.qvel[:] = qvel
        self._mujoco.mj_forward(self.model, self.data)
        return self.renderer.render(self.render_mode)

    def close(self) -> None:
        self.renderer.close()


def tile(frames: Sequence[np.ndarray], columns: int | None = None) -> np.ndarray:
    """Frames of one size side by side in rows of ``columns`` (about the square root of their
    count by default), left to right and top to bottom; the last row's gaps are black (zero).
    For a vector env's ``render()``: ``zwang.gym.tile(envs.render())``."""
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
