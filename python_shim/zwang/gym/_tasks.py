"""Gymnasium's v5 MuJoCo tasks over a zwang batch: observations, rewards, terminations and reset
distributions as Gymnasium's ``gymnasium/envs/mujoco/*_v5.py`` define them, over all envs at once.

Where a v5 task reads MuJoCo's derived quantities (body and site positions, ``cinert``, ``cvel``,
``cfrc_ext``, ``qfrc_constraint``, ``qfrc_actuator``) after ``mj_step``, MuJoCo holds them at the
state its last evaluation used: the state before the last step under Euler, the last RK4 stage
under RK4.  zwang's batch holds them at the same state, so the numbers are the same.

The tasks compute with the array API standard's functions (``self.xp``) on numpy arrays or torch
tensors (``array="torch"``): one definition of each task for both.  Reset states are drawn with
numpy on the host in both cases.
"""

from __future__ import annotations

import os
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

import zwang

from .._render import rows
from ._render import (
    RENDER_KWARGS,
    RENDER_MODES,
    VIEWER_KWARGS,
    TaskRenderer,
    check_render_mode,
    gymnasium_render_defaults,
)
from ._vector import VectorEnv, load_model


def gymnasium_assets() -> str:
    """The folder of the MuJoCo models that the installed Gymnasium ships."""
    import gymnasium

    # found by path: importing gymnasium.envs.mujoco would import MuJoCo and its renderer
    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets")


def expand_model_path(xml_file: str) -> str:
    """Gymnasium's rule: a path starting with '.', '/' or '~' is a file path, any other a file
    in Gymnasium's assets folder."""
    if xml_file.startswith((".", "/")):
        path = xml_file
    elif xml_file.startswith("~"):
        path = os.path.expanduser(xml_file)
    else:
        path = os.path.join(gymnasium_assets(), xml_file)
    if not os.path.exists(path):
        raise OSError(f"model file {path} does not exist")
    return path


def _sum_squares(xp: Any, x: Any) -> Any:
    return xp.sum(xp.square(x), axis=1)


def _norm(xp: Any, x: Any) -> Any:
    """Euclidean norm of each row."""
    return xp.linalg.vector_norm(x, axis=1)


class MujocoTaskEnv(VectorEnv):
    """Base of the v5 tasks: model file, frame skip and time limit defaults of the task.

    ``contact_margin`` is MuJoCo 4.0's rule by default (None, as ``zwang.load``): MuJoCo 3.5 and
    later (so 4.0, on which Gymnasium's own environments run today) add the margins and gaps of
    two geoms; ``"max"`` takes the larger, as MuJoCo up to 3.4 does.

    ``outputs``: None (the default) keeps every simulator output current; ``"task"`` only those
    the task reads (``sim.xpos`` for Ant, ``sim.cinert`` for Humanoid...), so that each step
    copies no others back; a list keeps those and the task's (for wrappers that read more).

    ``render_mode``: None, ``"rgb_array"`` or ``"depth_array"``, drawn by Gymnasium's own
    renderer with the task's camera and Gymnasium's drawing arguments (``width``, ``height``,
    ``camera_id``, ``camera_name``, ``default_camera_config``, ``max_geom``,
    ``visual_options``); ``render_envs`` the envs ``render()`` draws (all by default), one frame
    each.  ``"human"`` shows the envs of ``render_envs`` (env 0 by default) in zwang's web viewer
    (``zwang.viewer``, at ``viewer_host``:``viewer_port``, 127.0.0.1:8080 by default; its URL is
    printed), updated at every reset and step.
    """

    default_xml: str = ""
    default_frame_skip: int = 1
    default_max_episode_steps: int | None = None
    reward_threshold: float | None = None
    _reads_derived = False
    # the simulator outputs the task reads besides qpos and qvel (zwang.Simulator's `outputs`)
    _outputs: tuple[str, ...] = ()

    def __init__(
        self,
        num_envs: int,
        *,
        xml_file: str | None = None,
        frame_skip: int | None = None,
        reset_noise_scale: float = 0.0,
        max_episode_steps: int | None | str = "default",
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        seeding: str = "batch",
        backend: str = "cpu",
        precision: str = "f64",
        threads: int = 0,
        contact_margin: str | None = None,
        render_mode: str | None = None,
        render_envs: Sequence[int] | None = None,
        outputs: str | Sequence[str] | None = None,
        device: int = 0,
        array: str = "numpy",
        **render_kwargs: Any,
    ) -> None:
        check_render_mode(render_mode)
        unknown = set(render_kwargs) - set(RENDER_KWARGS) - set(VIEWER_KWARGS)
        if unknown:
            raise TypeError(
                f"{type(self).__name__} got unexpected keyword arguments {sorted(unknown)}"
            )
        self.xml_path = expand_model_path(xml_file or self.default_xml)
        # by default a contact's margin and gap as MuJoCo 3.5 and later combine them, so that the
        # tasks behave as Gymnasium's on the MuJoCo users install today
        model = load_model(self.xml_path, contact_margin)
        self._bind(model)
        if max_episode_steps == "default":
            max_episode_steps = self.default_max_episode_steps
        super().__init__(
            model,
            num_envs,
            frame_skip=self.default_frame_skip if frame_skip is None else frame_skip,
            max_episode_steps=max_episode_steps,
            reset_noise_scale=reset_noise_scale,
            autoreset_mode=autoreset_mode,
            seeding=seeding,
            backend=backend,
            precision=precision,
            threads=threads,
            outputs=self._task_outputs(outputs),
            device=device,
            array=array,
        )
        self.render_mode = render_mode
        self.metadata["render_modes"] = list(RENDER_MODES)
        self._render_kwargs = render_kwargs
        if render_mode == "human" and render_envs is None:
            render_envs = [0]
        self._render_envs = self._checked_render_envs(render_envs)
        self._renderer: TaskRenderer | None = None
        self._viewer = None

    def _checked_render_envs(self, render_envs: Sequence[int] | None) -> list[int]:
        if render_envs is None:
            return list(range(self.num_envs))
        envs = [int(i) for i in render_envs]
        bad = [i for i in envs if not 0 <= i < self.num_envs]
        if bad or not envs:
            raise ValueError(
                f"render_envs must name envs 0..{self.num_envs - 1}, got {list(render_envs)}"
            )
        return envs

    def render(self) -> tuple[np.ndarray, ...] | None:
        """One frame per env of ``render_envs`` (Gymnasium's vector ``render``): the env's
        current state as Gymnasium's own environment draws it; None without a render mode."""
        if self.render_mode is None:
            return None
        if self.render_mode == "human":
            self._show()
            return None
        if self._renderer is None:
            env_id = next(k for k, v in TASKS.items() if isinstance(self, v)).split("-")[0]
            settings = gymnasium_render_defaults(env_id)
            settings.update(self._render_kwargs)
            self._renderer = TaskRenderer(self.xml_path, self.render_mode, settings)
        # only the drawn envs' rows leave a GPU
        qpos, qvel = (rows(self.sim, name, self._render_envs) for name in ("qpos", "qvel"))
        return tuple(self._renderer.render(q, v) for q, v in zip(qpos, qvel))

    def _show(self) -> None:
        """The envs of render_envs in the web viewer, started on the first call; at most
        render_fps updates a second, as Gymnasium's window plays a human-mode env in real
        time."""
        if self._viewer is not None:
            wait = self._shown_at + 1.0 / self.metadata["render_fps"] - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        if self._viewer is None:
            from ..viewer import Viewer

            settings = {k: v for k, v in self._render_kwargs.items() if k in VIEWER_KWARGS}
            self._viewer = Viewer(
                self.sim,
                self._render_envs,
                model_path=self.xml_path,
                host=settings.get("viewer_host", "127.0.0.1"),
                port=settings.get("viewer_port", 8080),
            )
        else:
            self._viewer.update()
        self._shown_at = time.monotonic()

    def reset(self, **kwargs: Any) -> tuple[np.ndarray, dict[str, Any]]:
        out = super().reset(**kwargs)
        if self.render_mode == "human":
            self._show()
        return out

    def step(self, actions: Any):
        out = super().step(actions)
        if self.render_mode == "human":
            self._show()
        return out

    def close_extras(self, **kwargs: Any) -> None:
        if self._viewer is not None:
            self._viewer.close()
            self._viewer = None
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        super().close_extras(**kwargs)

    def _task_outputs(self, outputs: str | Sequence[str] | None) -> list[str] | None:
        if outputs is None:
            return None
        if isinstance(outputs, str):
            if outputs != "task":
                raise ValueError(
                    f"outputs must be 'task', None or a list of names, got {outputs!r}"
                )
            return list(self._outputs)
        return list(self._outputs) + list(outputs)

    def _bind(self, model: zwang.Model) -> None:
        """Looks up the bodies and sites the task reads."""

    def _sample_uniform(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """``qpos0 + U(-s, s)`` and ``U(-s, s)`` (Hopper, Walker2d, Swimmer, Humanoid...)."""
        s = self.reset_noise_scale
        qpos = self.init_qpos + rng.uniform(low=-s, high=s, size=(n, self.model.nq))
        qvel = self.init_qvel + rng.uniform(low=-s, high=s, size=(n, self.model.nv))
        return qpos, qvel

    def _sample_uniform_normal(
        self, rng: np.random.Generator, n: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """``qpos0 + U(-s, s)`` and ``s N(0, 1)`` (HalfCheetah, Ant, InvertedDoublePendulum)."""
        s = self.reset_noise_scale
        qpos = self.init_qpos + rng.uniform(low=-s, high=s, size=(n, self.model.nq))
        qvel = self.init_qvel + s * rng.standard_normal(size=(n, self.model.nv))
        return qpos, qvel

    def _body(self, model: zwang.Model, name: str | int) -> int:
        if isinstance(name, (int, np.integer)):
            return int(name)
        return list(model.body_names).index(name)

    def _qpos(self) -> Any:
        return self._field("qpos")

    def _qvel(self) -> Any:
        return self._field("qvel")

    def _flag(self, mask: Any) -> Any:
        """A bool mask as float64 0 or 1."""
        return self.xp.astype(mask, self.xp.float64)

    def _never(self) -> Any:
        return self.arrays.zeros(self.num_envs, self.arrays.bool)


class _ForwardMixin:
    """Velocity of a coordinate-based position, forward reward and control cost."""

    def _velocity(self, before: Any) -> Any:
        return (self._progress - before) / self.dt


class InvertedPendulum(MujocoTaskEnv):
    """InvertedPendulum-v5: obs (qpos, qvel); reward 1 while |hinge| <= 0.2."""

    default_xml, default_frame_skip = "inverted_pendulum.xml", 2
    default_max_episode_steps, reward_threshold = 1000, 950.0

    def __init__(self, num_envs: int, *, reset_noise_scale: float = 0.01, **kwargs: Any) -> None:
        super().__init__(num_envs, reset_noise_scale=reset_noise_scale, **kwargs)

    def _sample_reset(self, rng, n):
        return self._sample_uniform(rng, n)

    def _observe(self):
        return self.xp.concat([self._qpos(), self._qvel()], axis=1)

    def _evaluate(self, action, before):
        xp, obs = self.xp, self._obs
        terminated = ~xp.all(xp.isfinite(obs), axis=1) | (xp.abs(obs[:, 1]) > 0.2)
        reward = self._flag(~terminated)
        return reward, terminated, {"reward_survive": self.arrays.copy(reward)}


class InvertedDoublePendulum(MujocoTaskEnv):
    """InvertedDoublePendulum-v5: tip site height and distance penalties, ends when tip y <= 1."""

    default_xml, default_frame_skip = "inverted_double_pendulum.xml", 5
    default_max_episode_steps, reward_threshold = 1000, 9100.0
    _reads_derived = True
    _outputs = ("qfrc_constraint", "site_xpos")

    def __init__(
        self,
        num_envs: int,
        *,
        healthy_reward: float = 10.0,
        reset_noise_scale: float = 0.1,
        **kwargs: Any,
    ) -> None:
        self._healthy_reward = healthy_reward
        super().__init__(num_envs, reset_noise_scale=reset_noise_scale, **kwargs)

    def _sample_reset(self, rng, n):
        return self._sample_uniform_normal(rng, n)

    def _observe(self):
        xp, qpos, qvel = self.xp, self._qpos(), self._qvel()
        qfrc = self._field("qfrc_constraint")
        return xp.concat(
            [
                qpos[:, :1],
                xp.sin(qpos[:, 1:]),
                xp.cos(qpos[:, 1:]),
                xp.clip(qvel, -10.0, 10.0),
                xp.clip(qfrc, -10.0, 10.0)[:, :1],
            ],
            axis=1,
        )

    def _evaluate(self, action, before):
        # the first site, at the tip of the second pole
        tip = self._field("site_xpos")[:, 0]
        x, y = tip[:, 0], tip[:, 2]
        terminated = y <= 1
        v1, v2 = self._qvel()[:, 1], self._qvel()[:, 2]
        dist_penalty = 0.01 * x**2 + (y - 2) ** 2
        vel_penalty = 1e-3 * v1**2 + 5e-3 * v2**2
        alive_bonus = self._healthy_reward * self._flag(~terminated)
        reward = alive_bonus - dist_penalty - vel_penalty
        return (
            reward,
            terminated,
            {
                "reward_survive": alive_bonus,
                "distance_penalty": -dist_penalty,
                "velocity_penalty": -vel_penalty,
            },
        )


class Reacher(MujocoTaskEnv):
    """Reacher-v5: fingertip-to-target distance and control cost; never terminates."""

    default_xml, default_frame_skip = "reacher.xml", 2
    default_max_episode_steps, reward_threshold = 50, -3.75
    _reads_derived = True
    _outputs = ("xpos",)

    def __init__(
        self,
        num_envs: int,
        *,
        reward_dist_weight: float = 1,
        reward_control_weight: float = 1,
        **kwargs: Any,
    ) -> None:
        self._reward_dist_weight = reward_dist_weight
        self._reward_control_weight = reward_control_weight
        super().__init__(num_envs, **kwargs)

    def _bind(self, model):
        self._fingertip, self._target = self._body(model, "fingertip"), self._body(model, "target")

    def _sample_reset(self, rng, n):
        qpos = rng.uniform(low=-0.1, high=0.1, size=(n, self.model.nq)) + self.init_qpos
        # goals uniform in the square, redrawn until inside the disc of radius 0.2
        goal = rng.uniform(low=-0.2, high=0.2, size=(n, 2))
        redraw = np.flatnonzero(np.linalg.norm(goal, axis=1) >= 0.2)
        while redraw.size:
            goal[redraw] = rng.uniform(low=-0.2, high=0.2, size=(redraw.size, 2))
            redraw = redraw[np.linalg.norm(goal[redraw], axis=1) >= 0.2]
        qpos[:, -2:] = goal
        qvel = self.init_qvel + rng.uniform(low=-0.005, high=0.005, size=(n, self.model.nv))
        qvel[:, -2:] = 0
        return qpos, qvel

    def _vec(self):
        xpos = self._field("xpos")
        return xpos[:, self._fingertip] - xpos[:, self._target]

    def _observe(self):
        xp, qpos, qvel = self.xp, self._qpos(), self._qvel()
        theta = qpos[:, :2]
        return xp.concat(
            [xp.cos(theta), xp.sin(theta), qpos[:, 2:], qvel[:, :2], self._vec()[:, :2]], axis=1
        )

    def _evaluate(self, action, before):
        xp = self.xp
        reward_dist = -_norm(xp, self._vec()) * self._reward_dist_weight
        reward_ctrl = -_sum_squares(xp, action) * self._reward_control_weight
        return (
            reward_dist + reward_ctrl,
            self._never(),
            {"reward_dist": reward_dist, "reward_ctrl": reward_ctrl},
        )


class Pusher(MujocoTaskEnv):
    """Pusher-v5: arm tip near the object, object near the goal, control cost."""

    default_xml, default_frame_skip = "pusher_v5.xml", 5
    default_max_episode_steps, reward_threshold = 100, 0.0
    _reads_derived = True
    _outputs = ("xpos",)

    def __init__(
        self,
        num_envs: int,
        *,
        reward_near_weight: float = 0.5,
        reward_dist_weight: float = 1,
        reward_control_weight: float = 0.1,
        **kwargs: Any,
    ) -> None:
        self._reward_near_weight = reward_near_weight
        self._reward_dist_weight = reward_dist_weight
        self._reward_control_weight = reward_control_weight
        super().__init__(num_envs, **kwargs)

    def _bind(self, model):
        self._bodies = [self._body(model, b) for b in ("tips_arm", "object", "goal")]

    def _sample_reset(self, rng, n):
        qpos = np.tile(self.init_qpos, (n, 1))
        goal = np.zeros(2)

        def draw(k: int) -> np.ndarray:
            # x then y of each env, as two draws of one number
            return np.stack(
                [rng.uniform(low=-0.3, high=0, size=k), rng.uniform(low=-0.2, high=0.2, size=k)],
                axis=1,
            )

        cylinder = draw(n)
        redraw = np.flatnonzero(np.linalg.norm(cylinder - goal, axis=1) <= 0.17)
        while redraw.size:
            cylinder[redraw] = draw(redraw.size)
            redraw = redraw[np.linalg.norm(cylinder[redraw] - goal, axis=1) <= 0.17]
        qpos[:, -4:-2] = cylinder
        qpos[:, -2:] = goal
        qvel = self.init_qvel + rng.uniform(low=-0.005, high=0.005, size=(n, self.model.nv))
        qvel[:, -4:] = 0
        return qpos, qvel

    def _positions(self):
        xpos = self._field("xpos")
        return [xpos[:, b] for b in self._bodies]

    def _observe(self):
        tips, obj, goal = self._positions()
        return self.xp.concat([self._qpos()[:, :7], self._qvel()[:, :7], tips, obj, goal], axis=1)

    def _evaluate(self, action, before):
        xp = self.xp
        tips, obj, goal = self._positions()
        reward_near = -_norm(xp, obj - tips) * self._reward_near_weight
        reward_dist = -_norm(xp, obj - goal) * self._reward_dist_weight
        reward_ctrl = -_sum_squares(xp, action) * self._reward_control_weight
        return (
            reward_dist + reward_ctrl + reward_near,
            self._never(),
            {"reward_dist": reward_dist, "reward_ctrl": reward_ctrl, "reward_near": reward_near},
        )


class Swimmer(MujocoTaskEnv, _ForwardMixin):
    """Swimmer-v5: three links swimming through a viscous medium (its fluid forces)."""

    default_xml, default_frame_skip = "swimmer.xml", 4
    default_max_episode_steps, reward_threshold = 1000, 360.0

    def __init__(
        self,
        num_envs: int,
        *,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-4,
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._exclude = bool(exclude_current_positions_from_observation)
        super().__init__(num_envs, reset_noise_scale=reset_noise_scale, **kwargs)

    def _sample_reset(self, rng, n):
        return self._sample_uniform(rng, n)

    def _progress_position(self):
        return self.arrays.copy(self._qpos()[:, 0:2])

    def _observe(self):
        return self.xp.concat([self._qpos()[:, 2 * self._exclude :], self._qvel()], axis=1)

    def _position_info(self):
        return _xy_info(self.arrays, self._qpos())

    def _evaluate(self, action, before):
        v = self._velocity(before)
        forward = self._forward_reward_weight * v[:, 0]
        ctrl_cost = self._ctrl_cost_weight * _sum_squares(self.xp, action)
        return (
            forward - ctrl_cost,
            self._never(),
            {
                **self._position_info(),
                "x_velocity": v[:, 0],
                "y_velocity": v[:, 1],
                "reward_forward": forward,
                "reward_ctrl": -ctrl_cost,
            },
        )

    def _reset_info(self):
        return self._position_info()


class HalfCheetah(MujocoTaskEnv, _ForwardMixin):
    """HalfCheetah-v5: forward velocity minus control cost; never terminates."""

    default_xml, default_frame_skip = "half_cheetah.xml", 5
    default_max_episode_steps, reward_threshold = 1000, 4800.0

    def __init__(
        self,
        num_envs: int,
        *,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 0.1,
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._exclude = bool(exclude_current_positions_from_observation)
        super().__init__(num_envs, reset_noise_scale=reset_noise_scale, **kwargs)

    def _sample_reset(self, rng, n):
        return self._sample_uniform_normal(rng, n)

    def _progress_position(self):
        return self.arrays.copy(self._qpos()[:, 0:1])

    def _observe(self):
        return self.xp.concat([self._qpos()[:, int(self._exclude) :], self._qvel()], axis=1)

    def _evaluate(self, action, before):
        v = self._velocity(before)[:, 0]
        forward = self._forward_reward_weight * v
        ctrl_cost = self._ctrl_cost_weight * _sum_squares(self.xp, action)
        return (
            forward - ctrl_cost,
            self._never(),
            {
                "x_position": self.arrays.copy(self._qpos()[:, 0]),
                "x_velocity": v,
                "reward_forward": forward,
                "reward_ctrl": -ctrl_cost,
            },
        )

    def _reset_info(self):
        return {"x_position": self.arrays.copy(self._qpos()[:, 0])}


class _PlanarWalker(MujocoTaskEnv, _ForwardMixin):
    """Hopper-v5 and Walker2d-v5: forward velocity, health bonus, control cost, termination."""

    def __init__(
        self,
        num_envs: int,
        *,
        forward_reward_weight: float,
        ctrl_cost_weight: float,
        healthy_reward: float,
        terminate_when_unhealthy: bool,
        healthy_z_range: tuple[float, float],
        healthy_angle_range: tuple[float, float],
        reset_noise_scale: float,
        exclude_current_positions_from_observation: bool,
        **kwargs: Any,
    ) -> None:
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._healthy_reward = healthy_reward
        self._terminate_when_unhealthy = terminate_when_unhealthy
        self._healthy_z_range = healthy_z_range
        self._healthy_angle_range = healthy_angle_range
        self._exclude = bool(exclude_current_positions_from_observation)
        super().__init__(num_envs, reset_noise_scale=reset_noise_scale, **kwargs)

    def _sample_reset(self, rng, n):
        return self._sample_uniform(rng, n)

    def _progress_position(self):
        return self.arrays.copy(self._qpos()[:, 0:1])

    def _observe(self):
        xp = self.xp
        return xp.concat(
            [self._qpos()[:, int(self._exclude) :], xp.clip(self._qvel(), -10.0, 10.0)], axis=1
        )

    def _is_healthy(self) -> Any:
        qpos = self._qpos()
        z, angle = qpos[:, 1], qpos[:, 2]
        (zmin, zmax), (amin, amax) = self._healthy_z_range, self._healthy_angle_range
        return (zmin < z) & (z < zmax) & (amin < angle) & (angle < amax)

    def _position_info(self):
        qpos = self._qpos()
        return {
            "x_position": self.arrays.copy(qpos[:, 0]),
            "z_distance_from_origin": qpos[:, 1] - float(self.init_qpos[1]),
        }

    def _evaluate(self, action, before):
        v = self._velocity(before)[:, 0]
        healthy = self._is_healthy()
        forward = self._forward_reward_weight * v
        survive = self._flag(healthy) * float(self._healthy_reward)
        ctrl_cost = self._ctrl_cost_weight * _sum_squares(self.xp, action)
        terminated = ~healthy & bool(self._terminate_when_unhealthy)
        return (
            forward + survive - ctrl_cost,
            terminated,
            {
                **self._position_info(),
                "x_velocity": v,
                "reward_forward": forward,
                "reward_ctrl": -ctrl_cost,
                "reward_survive": survive,
            },
        )

    def _reset_info(self):
        return self._position_info()


class Hopper(_PlanarWalker):
    """Hopper-v5."""

    default_xml, default_frame_skip = "hopper.xml", 4
    default_max_episode_steps, reward_threshold = 1000, 3800.0

    def __init__(
        self,
        num_envs: int,
        *,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-3,
        healthy_reward: float = 1.0,
        terminate_when_unhealthy: bool = True,
        healthy_state_range: tuple[float, float] = (-100.0, 100.0),
        healthy_z_range: tuple[float, float] = (0.7, float("inf")),
        healthy_angle_range: tuple[float, float] = (-0.2, 0.2),
        reset_noise_scale: float = 5e-3,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        self._healthy_state_range = healthy_state_range
        super().__init__(
            num_envs,
            forward_reward_weight=forward_reward_weight,
            ctrl_cost_weight=ctrl_cost_weight,
            healthy_reward=healthy_reward,
            terminate_when_unhealthy=terminate_when_unhealthy,
            healthy_z_range=healthy_z_range,
            healthy_angle_range=healthy_angle_range,
            reset_noise_scale=reset_noise_scale,
            exclude_current_positions_from_observation=exclude_current_positions_from_observation,
            **kwargs,
        )

    def _is_healthy(self):
        # every coordinate and velocity past the root's x and z inside the open state range
        xp = self.xp
        state = xp.concat([self._qpos(), self._qvel()], axis=1)[:, 2:]
        lo, hi = self._healthy_state_range
        return super()._is_healthy() & xp.all((lo < state) & (state < hi), axis=1)


class Walker2d(_PlanarWalker):
    """Walker2d-v5."""

    default_xml, default_frame_skip = "walker2d_v5.xml", 4
    default_max_episode_steps = 1000

    def __init__(
        self,
        num_envs: int,
        *,
        forward_reward_weight: float = 1.0,
        ctrl_cost_weight: float = 1e-3,
        healthy_reward: float = 1.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (0.8, 2.0),
        healthy_angle_range: tuple[float, float] = (-1.0, 1.0),
        reset_noise_scale: float = 5e-3,
        exclude_current_positions_from_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(
            num_envs,
            forward_reward_weight=forward_reward_weight,
            ctrl_cost_weight=ctrl_cost_weight,
            healthy_reward=healthy_reward,
            terminate_when_unhealthy=terminate_when_unhealthy,
            healthy_z_range=healthy_z_range,
            healthy_angle_range=healthy_angle_range,
            reset_noise_scale=reset_noise_scale,
            exclude_current_positions_from_observation=exclude_current_positions_from_observation,
            **kwargs,
        )


def _xy_info(arrays: Any, qpos: Any) -> dict[str, Any]:
    return {
        "x_position": arrays.copy(qpos[:, 0]),
        "y_position": arrays.copy(qpos[:, 1]),
        "distance_from_origin": _norm(arrays.xp, qpos[:, 0:2]),
    }


class Ant(MujocoTaskEnv, _ForwardMixin):
    """Ant-v5: torso velocity, health bonus, control and contact costs."""

    default_xml, default_frame_skip = "ant.xml", 5
    default_max_episode_steps, reward_threshold = 1000, 6000.0
    _reads_derived = True
    _outputs = ("xpos", "cfrc_ext")

    def __init__(
        self,
        num_envs: int,
        *,
        forward_reward_weight: float = 1,
        ctrl_cost_weight: float = 0.5,
        contact_cost_weight: float = 5e-4,
        healthy_reward: float = 1.0,
        main_body: int | str = 1,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (0.2, 1.0),
        contact_force_range: tuple[float, float] = (-1.0, 1.0),
        reset_noise_scale: float = 0.1,
        exclude_current_positions_from_observation: bool = True,
        include_cfrc_ext_in_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._contact_cost_weight = contact_cost_weight
        self._healthy_reward = healthy_reward
        self._main_body_name = main_body
        self._terminate_when_unhealthy = terminate_when_unhealthy
        self._healthy_z_range = healthy_z_range
        self._contact_force_range = contact_force_range
        self._exclude = bool(exclude_current_positions_from_observation)
        self._include_cfrc_ext = bool(include_cfrc_ext_in_observation)
        super().__init__(num_envs, reset_noise_scale=reset_noise_scale, **kwargs)

    def _bind(self, model):
        self._main_body = self._body(model, self._main_body_name)

    def _sample_reset(self, rng, n):
        return self._sample_uniform_normal(rng, n)

    def _progress_position(self):
        return self.arrays.copy(self._field("xpos")[:, self._main_body, :2])

    def _contact_forces(self) -> Any:
        lo, hi = self._contact_force_range
        return self.xp.clip(self._field("cfrc_ext"), float(lo), float(hi))

    def _observe(self):
        xp = self.xp
        parts = [self._qpos()[:, 2 * self._exclude :], self._qvel()]
        if self._include_cfrc_ext:
            parts.append(xp.reshape(self._contact_forces()[:, 1:], (self.num_envs, -1)))
        return xp.concat(parts, axis=1)

    def _evaluate(self, action, before):
        xp = self.xp
        v = self._velocity(before)
        qpos = self._qpos()
        state = xp.concat([qpos, self._qvel()], axis=1)
        zmin, zmax = self._healthy_z_range
        healthy = xp.all(xp.isfinite(state), axis=1) & (zmin <= qpos[:, 2]) & (qpos[:, 2] <= zmax)
        forward = v[:, 0] * self._forward_reward_weight
        survive = self._flag(healthy) * float(self._healthy_reward)
        ctrl_cost = self._ctrl_cost_weight * _sum_squares(xp, action)
        contact_cost = self._contact_cost_weight * _sum_squares(
            xp, xp.reshape(self._contact_forces(), (self.num_envs, -1))
        )
        terminated = ~healthy & bool(self._terminate_when_unhealthy)
        return (
            forward + survive - ctrl_cost - contact_cost,
            terminated,
            {
                **_xy_info(self.arrays, qpos),
                "x_velocity": v[:, 0],
                "y_velocity": v[:, 1],
                "reward_forward": forward,
                "reward_ctrl": -ctrl_cost,
                "reward_contact": -contact_cost,
                "reward_survive": survive,
            },
        )

    def _reset_info(self):
        return _xy_info(self.arrays, self._qpos())


def fixed_tendons(path: str, joint_names: list[str]) -> list[list[tuple[int, float]]]:
    """The fixed tendons of an MJCF file: for each, its (joint index, coefficient) pairs."""
    tendons = []
    for fixed in ElementTree.parse(path).getroot().iter("fixed"):
        tendons.append(
            [
                (joint_names.index(j.get("joint")), float(j.get("coef", "1")))
                for j in fixed.iter("joint")
            ]
        )
    return tendons


class Humanoid(MujocoTaskEnv, _ForwardMixin):
    """Humanoid-v5: centre-of-mass velocity, health bonus, control and contact costs."""

    default_xml, default_frame_skip = "humanoid.xml", 5
    default_max_episode_steps = 1000
    _reads_derived = True
    _outputs = ("xipos", "cinert", "cvel", "qfrc_actuator", "cfrc_ext")

    def __init__(
        self,
        num_envs: int,
        *,
        forward_reward_weight: float = 1.25,
        ctrl_cost_weight: float = 0.1,
        contact_cost_weight: float = 5e-7,
        contact_cost_range: tuple[float, float] = (-np.inf, 10.0),
        healthy_reward: float = 5.0,
        terminate_when_unhealthy: bool = True,
        healthy_z_range: tuple[float, float] = (1.0, 2.0),
        reset_noise_scale: float = 1e-2,
        exclude_current_positions_from_observation: bool = True,
        include_cinert_in_observation: bool = True,
        include_cvel_in_observation: bool = True,
        include_qfrc_actuator_in_observation: bool = True,
        include_cfrc_ext_in_observation: bool = True,
        **kwargs: Any,
    ) -> None:
        self._forward_reward_weight = forward_reward_weight
        self._ctrl_cost_weight = ctrl_cost_weight
        self._contact_cost_weight = contact_cost_weight
        self._contact_cost_range = contact_cost_range
        self._healthy_reward = healthy_reward
        self._terminate_when_unhealthy = terminate_when_unhealthy
        self._healthy_z_range = healthy_z_range
        self._exclude = bool(exclude_current_positions_from_observation)
        self._include = (
            bool(include_cinert_in_observation),
            bool(include_cvel_in_observation),
            bool(include_qfrc_actuator_in_observation),
            bool(include_cfrc_ext_in_observation),
        )
        super().__init__(num_envs, reset_noise_scale=reset_noise_scale, **kwargs)

    def _bind(self, model):
        names = list(model.joint_names)
        tendons = fixed_tendons(self.xml_path, names)
        # tendon length Σ coef q and velocity Σ coef q̇: per tendon, the coordinates, the dofs
        # and the coefficients of its joints
        self._tendons = [
            (
                [int(model.jnt_qposadr[j]) for j, _ in pairs],
                [int(model.jnt_dofadr[j]) for j, _ in pairs],
                np.array([coef for _, coef in pairs]),
            )
            for pairs in tendons
        ]

    def _sample_reset(self, rng, n):
        return self._sample_uniform(rng, n)

    def _progress_position(self):
        # the centre of mass of the bodies, Σ m_k xipos_k / Σ m_k, in x and y; the model's masses
        # while no parameter view was handed out (a view would make every call check them all)
        xp = self.xp
        if self.sim.parameters_exposed:
            mass = self.arrays.param("body_mass")
        else:
            if getattr(self, "_model_mass", None) is None:
                row = np.asarray(self.model.body_mass, dtype=self.sim.dtype).astype(np.float64)
                self._model_mass = self.arrays.asarray(row.reshape(1, -1))
            mass = self._model_mass
        xipos = self._field("xipos")
        com = xp.sum(mass[:, :, None] * xipos, axis=1) / xp.sum(mass, axis=1, keepdims=True)
        return com[:, :2]

    def _observe(self):
        xp, n = self.xp, self.num_envs
        parts = [self._qpos()[:, 2 * self._exclude :], self._qvel()]
        cinert, cvel, qfrc_actuator, cfrc_ext = self._include
        if cinert:
            parts.append(xp.reshape(self._field("cinert")[:, 1:], (n, -1)))
        if cvel:
            parts.append(xp.reshape(self._field("cvel")[:, 1:], (n, -1)))
        if qfrc_actuator:
            parts.append(self._field("qfrc_actuator")[:, 6:])
        if cfrc_ext:
            parts.append(xp.reshape(self._field("cfrc_ext")[:, 1:], (n, -1)))
        return xp.concat(parts, axis=1)

    def _tendon_info(self):
        # sums of a few products per env rather than a matrix product, which would wake a BLAS
        # thread pool for a (num_envs, 2) result
        xp, a = self.xp, self.arrays
        if getattr(self, "_tendon_coefs", None) is None:
            self._tendon_coefs = [a.asarray(coef) for _, _, coef in self._tendons]
        if not self._tendons:
            return {
                "tendon_length": a.zeros((self.num_envs, 0)),
                "tendon_velocity": a.zeros((self.num_envs, 0)),
            }
        qpos, qvel = self._qpos(), self._qvel()
        length = [
            xp.sum(qpos[:, q] * c, axis=1)
            for (q, _, _), c in zip(self._tendons, self._tendon_coefs)
        ]
        velocity = [
            xp.sum(qvel[:, v] * c, axis=1)
            for (_, v, _), c in zip(self._tendons, self._tendon_coefs)
        ]
        return {
            "tendon_length": xp.stack(length, axis=1),
            "tendon_velocity": xp.stack(velocity, axis=1),
        }

    def _evaluate(self, action, before):
        xp = self.xp
        v = self._velocity(before)
        qpos = self._qpos()
        zmin, zmax = self._healthy_z_range
        healthy = (zmin < qpos[:, 2]) & (qpos[:, 2] < zmax)
        forward = self._forward_reward_weight * v[:, 0]
        survive = self._flag(healthy) * float(self._healthy_reward)
        ctrl_cost = self._ctrl_cost_weight * _sum_squares(xp, action)
        cfrc = xp.reshape(self._field("cfrc_ext"), (self.num_envs, -1))
        lo, hi = self._contact_cost_range
        contact_cost = xp.clip(
            self._contact_cost_weight * _sum_squares(xp, cfrc), float(lo), float(hi)
        )
        terminated = ~healthy & bool(self._terminate_when_unhealthy)
        return (
            forward + survive - ctrl_cost - contact_cost,
            terminated,
            {
                **_xy_info(self.arrays, qpos),
                **self._tendon_info(),
                "x_velocity": v[:, 0],
                "y_velocity": v[:, 1],
                "reward_survive": survive,
                "reward_forward": forward,
                "reward_ctrl": -ctrl_cost,
                "reward_contact": -contact_cost,
            },
        )

    def _reset_info(self):
        return {**_xy_info(self.arrays, self._qpos()), **self._tendon_info()}


TASKS: dict[str, type[MujocoTaskEnv]] = {
    "InvertedPendulum-v5": InvertedPendulum,
    "InvertedDoublePendulum-v5": InvertedDoublePendulum,
    "Reacher-v5": Reacher,
    "Swimmer-v5": Swimmer,
    "Pusher-v5": Pusher,
    "Hopper-v5": Hopper,
    "Walker2d-v5": Walker2d,
    "HalfCheetah-v5": HalfCheetah,
    "Ant-v5": Ant,
    "Humanoid-v5": Humanoid,
}
