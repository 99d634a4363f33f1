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
from typing import Any

import numpy as np

from .._render import tile  # noqa: F401  (zwang.gym.tile, as before)

# what Gymnasium's v5 MuJoCo environments draw; "human" is zwang's web viewer (zwang.viewer),
# where Gymnasium opens a window
RENDER_MODES = ("human", "rgb_array", "depth_array")

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

# the keyword arguments of render_mode="human": the viewer's address
VIEWER_KWARGS = ("viewer_host", "viewer_port")


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
    raise ValueError(
        f"render_mode must be None, 'human', 'rgb_array' or 'depth_array', not {render_mode!r}"
    )


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
