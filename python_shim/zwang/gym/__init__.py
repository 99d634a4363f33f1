"""Gymnasium environments over zwang: thousands of envs stepped in one simulator call.

``make_vec(env_id, num_envs, **kwargs)`` builds one of Gymnasium's v5 MuJoCo tasks as a
``gymnasium.vector.VectorEnv`` whose envs are the instances of one ``zwang.Simulator``;
``make(env_id, **kwargs)`` the same task as a single ``gymnasium.Env``; ``VectorEnv`` any model
with numpy functions for observation, reward and termination.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from ._render import tile
from ._tasks import (
    TASKS,
    Ant,
    HalfCheetah,
    Hopper,
    Humanoid,
    InvertedDoublePendulum,
    InvertedPendulum,
    MujocoTaskEnv,
    Pusher,
    Reacher,
    Swimmer,
    Walker2d,
    gymnasium_assets,
)
from ._vector import VectorEnv

ENV_IDS: tuple[str, ...] = tuple(TASKS)

__all__ = [
    "ENV_IDS",
    "SingleEnv",
    "VectorEnv",
    "make",
    "make_vec",
    "MujocoTaskEnv",
    "InvertedPendulum",
    "InvertedDoublePendulum",
    "Reacher",
    "Swimmer",
    "Pusher",
    "Hopper",
    "Walker2d",
    "HalfCheetah",
    "Ant",
    "Humanoid",
    "gymnasium_assets",
    "tile",
]


def _task(env_id: str) -> type[MujocoTaskEnv]:
    key = env_id.split("/")[-1]
    if key not in TASKS:
        raise gymnasium.error.UnregisteredEnv(
            f"zwang has no environment {env_id!r}; it has {', '.join(TASKS)}"
        )
    return TASKS[key]


def make_vec(env_id: str, num_envs: int = 1, **kwargs: Any) -> MujocoTaskEnv:
    """One of Gymnasium's v5 MuJoCo tasks over ``num_envs`` instances.

    ``num_envs`` is an integer of at least 1 (a Python or numpy integer): a float or string
    raises ``TypeError``, as in ``gymnasium.make_vec``, and so does a bool; a count below 1
    raises ``ValueError``.

    ``kwargs`` are those of Gymnasium's v5 environment (``xml_file``, ``frame_skip``, reward
    weights, ``reset_noise_scale``, healthy ranges, ``exclude_current_positions_from_observation``,
    ``include_cfrc_ext_in_observation``...), plus ``max_episode_steps`` (the v5 time limit by
    default, None for none), ``autoreset_mode`` (NEXT_STEP by default), ``seeding`` (``"batch"``
    or ``"per_env"``), the simulator's ``backend``, ``precision``, ``threads`` and ``device``
    (the CUDA device of ``backend="cuda"``), ``array`` (``"numpy"``, or ``"torch"``: actions,
    observations, rewards, terminations and info as torch tensors on the simulator's device,
    over its memory without copies; see ``VectorEnv``), and
    ``outputs``: None (default) keeps every simulator output current, as MuJoCo's ``data``;
    ``"task"`` only those the task reads (``env.sim.outputs`` lists them; reading another raises
    ``zwang.OutputNotKeptError``), which makes each call copy less; a list, those and the
    task's.
    """
    return _task(env_id)(num_envs, **kwargs)


class SingleEnv(gymnasium.Env):
    """One env of a zwang vector environment as a ``gymnasium.Env`` (autoreset disabled).

    Seeded with ``reset(seed=s)``, its reset states are those of ``gymnasium.make(env_id)``
    reset with the same seed: both draw from ``numpy.random.Generator(PCG64(s))`` in the same
    order.
    """

    metadata: dict[str, Any] = {"render_modes": []}

    def __init__(self, vector_env: VectorEnv) -> None:
        if vector_env.num_envs != 1:
            raise ValueError("SingleEnv wraps a vector environment of one env")
        self.vector_env = vector_env
        self.observation_space = vector_env.single_observation_space
        self.action_space = vector_env.single_action_space
        self.metadata = {
            "render_modes": list(vector_env.metadata.get("render_modes", [])),
            "render_fps": vector_env.metadata["render_fps"],
        }
        self.render_mode = vector_env.render_mode

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        obs, info = self.vector_env.reset(seed=seed, options=options)
        return obs[0], _unbatch(info)

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        arrays = self.vector_env.arrays
        obs, reward, terminated, truncated, info = self.vector_env.step(
            arrays.asarray(action, arrays.float64).reshape(1, -1)
        )
        return obs[0], float(reward[0]), bool(terminated[0]), bool(truncated[0]), _unbatch(info)

    def render(self) -> np.ndarray | None:
        """The env's frame in its ``render_mode`` (None without one)."""
        frames = self.vector_env.render()
        return None if frames is None else frames[0]

    def close(self) -> None:
        self.vector_env.close()


def _unbatch(info: dict[str, Any]) -> dict[str, Any]:
    """The first env's entries of a vector info."""
    out = {}
    for key, value in info.items():
        if key.startswith("_") or not info.get("_" + key, np.ones(1, bool))[0]:
            continue
        out[key] = _unbatch(value) if isinstance(value, dict) else value[0]
    return out


def make(env_id: str, **kwargs: Any) -> SingleEnv:
    """One env of a v5 task (``make_vec`` with one env and autoreset disabled)."""
    kwargs.setdefault("autoreset_mode", gymnasium.vector.AutoresetMode.DISABLED)
    return SingleEnv(make_vec(env_id, 1, **kwargs))
