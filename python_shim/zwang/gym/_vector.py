"""A Gymnasium vector environment over one zwang simulator: every env is an instance.

The environment owns a ``zwang.Simulator`` with ``num_envs`` instances.  ``step`` writes the
actions into ``sim.ctrl``, advances every instance ``frame_skip`` steps in one call and computes
observations, rewards, terminations and truncations as arrays over the instances; nothing loops
over envs in Python except the optional per-env seeding mode.  The arrays are numpy arrays or,
with ``array="torch"``, torch tensors on the simulator's device (``_arrays.py``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any, Callable

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

import zwang
from zwang._counts import count

from ._arrays import Arrays

# status bits that only warn: the instance keeps stepping (the constraint solver stopped at its
# iteration cap); any other bit means the instance stopped
_STATUS_WARNING_BITS = int(getattr(zwang, "STATUS_NOT_CONVERGED", 0))

ObsFn = Callable[["zwang.Simulator"], np.ndarray]
RewardFn = Callable[["zwang.Simulator", np.ndarray], np.ndarray]
TerminatedFn = Callable[["zwang.Simulator"], np.ndarray]
InfoFn = Callable[["zwang.Simulator"], dict]
ResetFn = Callable[[np.random.Generator, int], tuple]


def load_model(model_or_path: Any, contact_margin: str | None = None) -> zwang.Model:
    """Returns ``model_or_path`` itself when it is a model, else the model loaded from the file
    with ``contact_margin`` (see ``zwang.load``; None: MuJoCo 4.0's rule, the sum)."""
    if isinstance(model_or_path, (str, os.PathLike)):
        return zwang.load(os.fspath(model_or_path), contact_margin=contact_margin)
    return model_or_path


def stopped(status: Any, xp: Any = np) -> Any:
    """True for every instance whose status word has a bit that stops it (not a warning);
    ``xp`` is the array namespace of ``status``."""
    return (xp.astype(status, xp.int64) & ~_STATUS_WARNING_BITS) != 0


def env_count(value: Any, name: str = "num_envs", minimum: int = 1) -> int:
    """``value`` as a count of envs (or steps): an integer of at least ``minimum``
    (``zwang._counts.count``).  Gymnasium's ``make_vec`` takes ``range(num_envs)``, which refuses
    anything without ``__index__`` (4.5, 4.0, "4")."""
    return count(value, name, minimum)


class VectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` instances of one model, observed and rewarded by numpy functions.

    Args:
        model_or_path: a ``zwang.Model`` or the path of a model file (MJCF or URDF).
        num_envs: instances stepped together.
        obs_fn: ``obs_fn(sim) -> (num_envs, ...)`` array, read after each step and reset.
        reward_fn: ``reward_fn(sim, action) -> (num_envs,)``, read after each step; ``action``
            is the ``(num_envs, nu)`` float64 array the step applied.
        terminated_fn: ``terminated_fn(sim) -> (num_envs,)`` booleans; never terminate if None.
        info_fn: ``info_fn(sim) -> {key: (num_envs, ...) array}`` added to each step's info.
        reset_fn: ``reset_fn(rng, n) -> (qpos (n, nq), qvel (n, nv))`` draws reset states; by
            default ``qpos0 + U(-s, s)`` and ``U(-s, s)`` with ``s = reset_noise_scale``, each
            quaternion normalised.
        frame_skip: simulator steps per env step (``dt = timestep * frame_skip``).
        max_episode_steps: env steps after which an episode is truncated; None: never.
        reset_noise_scale: ``s`` of the default ``reset_fn``.
        autoreset_mode: Gymnasium's ``AutoresetMode`` (or its value); NEXT_STEP by default.
        seeding: ``"batch"``, one ``numpy.random.Generator`` for all envs (vectorised draws), or
            ``"per_env"``, one generator per env seeded ``seed + i`` as Gymnasium's
            ``SyncVectorEnv`` seeds its envs, so reset states equal those of
            ``gymnasium.make_vec(..., vectorization_mode="sync")`` (draws loop over the envs).
        backend, precision, threads, device: passed to ``zwang.Simulator``.
        outputs: passed to ``zwang.Simulator``: None keeps every output current; a list of the
            fields and derived quantities the functions read (``["xpos", "cfrc_ext"]``) keeps
            only those, which makes each step cheaper with many envs.
        array: ``"numpy"`` (numpy arrays) or ``"torch"``: actions, observations, rewards,
            terminations, truncations and the info's arrays are torch tensors on the simulator's
            device (``"cpu"``, or ``"cuda:<device>"`` with ``backend="cuda"``), computed over
            the simulator's memory without a copy; the functions then get and return tensors.
            Reset states are drawn on the host by the same numpy generators (the same states as
            with ``"numpy"``) and only the resetting rows are copied to the device.  Each step
            reads one pair of booleans on the host: whether any env stopped or starts over.

    In ``obs_fn``, ``reward_fn`` and ``terminated_fn`` the simulator's ``qpos``, ``qvel`` and
    ``time`` are those after the step; its derived quantities (``xpos``, ``cfrc_ext``, ``cvel``,
    ``site_xpos``...) are those of the state the last step evaluated, as in MuJoCo after
    ``mj_step``: the state before the last step under Euler, the last stage under RK4.  After a
    reset they are those of the reset state.

    An env whose instance stopped in a step (a non-finite action or state, a failed
    factorisation: ``sim.failures()``) did not advance: it is reported terminated, with reward
    0, no step info, observation entries that are not finite read as 0, and
    ``info["failure"]`` (the reason, a string) and ``info["status"]`` (the status word,
    ``zwang.STATUS_*``); the other envs step as if it were not there.
    """

    metadata: dict[str, Any] = {"render_modes": [], "autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(
        self,
        model_or_path: Any,
        num_envs: int,
        obs_fn: ObsFn | None = None,
        reward_fn: RewardFn | None = None,
        terminated_fn: TerminatedFn | None = None,
        info_fn: InfoFn | None = None,
        *,
        reset_fn: ResetFn | None = None,
        frame_skip: int = 1,
        max_episode_steps: int | None = None,
        reset_noise_scale: float = 0.0,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        seeding: str = "batch",
        backend: str = "cpu",
        precision: str = "f64",
        threads: int = 0,
        outputs: Sequence[str] | None = None,
        device: int = 0,
        array: str = "numpy",
    ) -> None:
        num_envs = env_count(num_envs)
        frame_skip = env_count(frame_skip, "frame_skip")
        if max_episode_steps is not None:
            max_episode_steps = env_count(max_episode_steps, "max_episode_steps (or None)")
        if seeding not in ("batch", "per_env"):
            raise ValueError(f"seeding must be 'batch' or 'per_env', got {seeding!r}")
        self._obs_fn, self._reward_fn = obs_fn, reward_fn
        self._terminated_fn, self._info_fn, self._reset_fn = terminated_fn, info_fn, reset_fn
        if type(self)._observe is VectorEnv._observe and obs_fn is None:
            raise TypeError("VectorEnv needs obs_fn")
        if type(self)._evaluate is VectorEnv._evaluate and reward_fn is None:
            raise TypeError("VectorEnv needs reward_fn")

        self.model = load_model(model_or_path)
        self.num_envs = int(num_envs)
        self.frame_skip = int(frame_skip)
        self.max_episode_steps = None if max_episode_steps is None else int(max_episode_steps)
        self.reset_noise_scale = float(reset_noise_scale)
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        self.seeding = seeding
        self.sim = zwang.Simulator(
            self.model,
            instances=self.num_envs,
            backend=backend,
            precision=precision,
            threads=threads,
            outputs=outputs if outputs is None or isinstance(outputs, str) else list(outputs),
            device=device,
        )
        self.arrays = Arrays(self.sim, array, device)
        self.xp = self.arrays.xp
        self.dt = float(self.model.timestep) * self.frame_skip
        self.metadata = dict(type(self).metadata)
        self.metadata["autoreset_mode"] = self.autoreset_mode
        self.metadata["render_fps"] = int(np.round(1.0 / self.dt))
        self.render_mode = None

        # the model's default state, as MuJoCo's mj_resetData leaves it
        self.init_qpos = np.asarray(self.model.qpos0, dtype=np.float64).copy()
        self.init_qvel = np.zeros(self.model.nv)
        self._env_rngs: list[np.random.Generator] | None = None
        with self.arrays.on_stream():
            self._elapsed = self.arrays.zeros(self.num_envs, self.arrays.int64)
            self._autoreset = self.arrays.zeros(self.num_envs, self.arrays.bool)

        self.single_action_space = self._make_action_space()
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        # the observation's shape is that of obs_fn at the default state
        with self.arrays.on_stream():
            self._set_state(
                np.arange(self.num_envs),
                np.tile(self.init_qpos, (self.num_envs, 1)),
                np.zeros((self.num_envs, self.model.nv)),
            )
            self._obs = self._observation()
            self._progress = self._progress_position()
        self.single_observation_space = spaces.Box(
            -np.inf, np.inf, shape=tuple(self._obs.shape[1:]), dtype=np.float64
        )
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)

    # ------------------------------------------------------------------ hooks of a task
    def _make_action_space(self) -> spaces.Box:
        """Box of the actuators' control ranges (unbounded where a control is not limited)."""
        nu = int(self.model.nu)
        rng = np.asarray(self.model.actuator_ctrlrange, dtype=np.float64).reshape(nu, 2)
        limited = np.asarray(self.model.actuator_ctrllimited, dtype=bool).reshape(nu)
        low = np.where(limited, rng[:, 0], -np.inf).astype(np.float32)
        high = np.where(limited, rng[:, 1], np.inf).astype(np.float32)
        return spaces.Box(low=low, high=high, dtype=np.float32)

    def _sample_reset(self, rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Reset states of n envs from ``rng``: (qpos (n, nq), qvel (n, nv))."""
        if self._reset_fn is not None:
            qpos, qvel = self._reset_fn(rng, n)
            return (
                np.asarray(qpos, dtype=np.float64).reshape(n, self.model.nq),
                np.asarray(qvel, dtype=np.float64).reshape(n, self.model.nv),
            )
        s = self.reset_noise_scale
        qpos = self.init_qpos + rng.uniform(-s, s, size=(n, self.model.nq))
        qvel = self.init_qvel + rng.uniform(-s, s, size=(n, self.model.nv))
        normalize_quaternions(self.model, qpos)
        return qpos, qvel

    def _observe(self) -> Any:
        """Observations of every env: (num_envs, ...)."""
        return self._obs_fn(self.sim)

    def _observation(self) -> Any:
        """``_observe()`` as a float64 array of the env's kind."""
        return self.arrays.asarray(self._observe(), self.arrays.float64)

    def _evaluate(self, action: Any, progress_before: Any) -> tuple[Any, Any, dict[str, Any]]:
        """(reward, terminated, info) of every env after a step."""
        a = self.arrays
        reward = a.asarray(self._reward_fn(self.sim, action), a.float64)
        if self._terminated_fn is None:
            terminated = a.zeros(self.num_envs, a.bool)
        else:
            terminated = a.asarray(self._terminated_fn(self.sim), a.bool)
        info = {} if self._info_fn is None else dict(self._info_fn(self.sim))
        return reward, terminated, info

    def _reset_info(self) -> dict[str, np.ndarray]:
        """Info of every env at its reset state (only the reset rows are reported)."""
        return {}

    def _progress_position(self) -> Any:
        """The position a task differentiates for its velocity reward, (num_envs, k)."""
        return self.arrays.zeros((self.num_envs, 0))

    def _field(self, name: str) -> Any:
        """The simulator's field ``name`` in float64, an array of the env's kind (the
        simulator's memory itself where its precision is f64: do not write to it)."""
        return self.arrays.field(name)

    # whether observations read derived quantities, so a reset needs the kinematics of its state
    _reads_derived = True

    # ------------------------------------------------------------------ state
    def _set_state(self, rows: np.ndarray, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """Puts rows of the batch at (qpos, qvel), time 0, and evaluates them when needed."""
        if rows.size == 0:
            return
        self.arrays.reset_rows(rows, qpos, qvel)
        if self._reads_derived:
            self.sim.forward()

    def set_state(self, qpos: Any, qvel: Any) -> Any:
        """Puts every env at (qpos (num_envs, nq), qvel (num_envs, nv)), as MuJoCo's
        ``MujocoEnv.set_state``, and returns the observations there.  Episodes go on: the step
        counters are kept."""
        rows = np.arange(self.num_envs)
        a = self.arrays
        with a.on_stream():
            self._set_state(
                rows,
                a.host(a.asarray(qpos, a.float64)).reshape(self.num_envs, -1),
                a.host(a.asarray(qvel, a.float64)).reshape(self.num_envs, -1),
            )
            self.sim.forward()
            self._obs = self._observation()
            self._progress = self._progress_position()
            obs = a.copy(self._obs)
        return a.handed_out(obs)

    def _draw_rows(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Reset states for ``rows`` from the batch generator or from each env's own."""
        if self._env_rngs is None:
            return self._sample_reset(self.np_random, rows.size)
        pairs = [self._sample_reset(self._env_rngs[i], 1) for i in rows]
        return (np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs]))

    def _reset_rows(self, rows: np.ndarray) -> dict[str, Any]:
        """Resets ``rows`` (host indices) and returns their reset info as full-width arrays."""
        qpos, qvel = self._draw_rows(rows)
        self._set_state(rows, qpos, qvel)
        index = self.arrays.index(rows)
        self._elapsed[index] = 0
        self._autoreset[index] = False
        if rows.size:
            self._obs[index] = self._observation()[index]
            self._progress[index] = self._progress_position()[index]
        return self._reset_info()

    def _seed(self, seed: int | Sequence[int] | None, rows: np.ndarray) -> None:
        if self.seeding == "batch":
            if seed is not None:
                if not isinstance(seed, (int, np.integer)):
                    raise TypeError(
                        "seeding='batch' takes one integer seed; use seeding='per_env' "
                        "for a seed per env"
                    )
                self._np_random, self._np_random_seed = seeding.np_random(int(seed))
            return
        if self._env_rngs is None:
            self._env_rngs = [seeding.np_random(None)[0] for _ in range(self.num_envs)]
        if seed is None:
            return
        if isinstance(seed, (int, np.integer)):
            seeds = [int(seed) + i for i in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise ValueError(f"{len(seeds)} seeds for {self.num_envs} envs")
        for i in rows:
            if seeds[i] is not None:
                self._env_rngs[i] = seeding.np_random(int(seeds[i]))[0]

    # ------------------------------------------------------------------ Gymnasium API
    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        """Resets every env, or those of ``options["reset_mask"]`` (a (num_envs,) bool array:
        numpy, or with ``array="torch"`` also a torch tensor).

        ``seed``: an integer seeds the batch generator (``seeding="batch"``) or env i with
        ``seed + i`` (``seeding="per_env"``, which also takes a list of per-env seeds); None
        continues the current streams.
        """
        a = self.arrays
        mask = np.ones(self.num_envs, dtype=bool)
        if options is not None and "reset_mask" in options:
            given = options["reset_mask"]
            if a.torch_tensor(given) and a.kind == "torch":
                if given.dtype != a.torch.bool:
                    raise TypeError("options['reset_mask'] must be a bool tensor or array")
                given = a.host(given)
            elif not isinstance(given, np.ndarray) or given.dtype != np.bool_:
                raise TypeError(
                    "options['reset_mask'] must be a numpy bool array"
                    + (" or a torch bool tensor" if a.kind == "torch" else "")
                )
            mask = given
            if mask.shape != (self.num_envs,):
                raise ValueError(
                    f"options['reset_mask'] must have shape ({self.num_envs},), "
                    f"got {tuple(mask.shape)}"
                )
            if not mask.any():
                raise ValueError("options['reset_mask'] resets no env")
        rows = np.flatnonzero(mask)
        self._seed(seed, rows)
        with a.on_stream():
            reset_info = self._reset_rows(rows)
            info = self._reset_info_rows(reset_info, a.asarray(mask, a.bool))
            out = a.copy(self._obs), info
        return a.handed_out(out)

    def step(self, actions: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        """Steps every env by ``frame_skip`` simulator steps; see the class for the autoreset."""
        a = self.arrays
        with a.on_stream():
            out = self._step(a.asarray(actions, a.float64))
        return a.handed_out(out)

    def _step(self, action: Any) -> tuple[Any, Any, Any, Any, dict[str, Any]]:
        a, xp = self.arrays, self.xp
        if tuple(action.shape) != (self.num_envs, self.model.nu):
            raise ValueError(
                f"actions must have shape ({self.num_envs}, {self.model.nu}), "
                f"got {tuple(action.shape)}"
            )
        pending = a.copy(self._autoreset)
        disabled = self.autoreset_mode == AutoresetMode.DISABLED
        if disabled and bool(xp.any(pending)):
            raise RuntimeError(
                "autoreset is disabled and envs "
                f"{np.flatnonzero(a.host(pending)).tolist()} ended: reset them with "
                "reset(options={'reset_mask': mask}) before stepping"
            )

        progress_before = self._progress
        a.write("ctrl", action)
        self.sim.step(self.frame_skip)
        self._obs = obs = self._observation()
        self._progress = self._progress_position()
        reward, terminated, info = self._evaluate(action, progress_before)
        halted = stopped(a.view("status"), xp)
        terminated = terminated | halted
        self._elapsed += 1
        if self.max_episode_steps is None:
            truncated = a.zeros(self.num_envs, a.bool)
        else:
            truncated = self._elapsed >= self.max_episode_steps
        info = {key: _info_array(a, value) for key, value in info.items()}
        info = {**info, **{"_" + key: ~halted for key in info}}
        # the one read on the host per step: whether any env stopped, whether any starts over
        any_halted, any_pending = a.host(xp.stack([xp.any(halted), xp.any(pending)])).tolist()
        if any_halted:
            # NEXT_STEP: the envs that ended last step start over below; their action is void
            void = pending if self.autoreset_mode == AutoresetMode.NEXT_STEP else None
            reward, info = self._report_stopped(halted, void, action, obs, reward, info)

        if self.autoreset_mode == AutoresetMode.NEXT_STEP and any_pending:
            # envs that ended last step start over; their action is not applied
            reward[pending] = 0.0
            terminated[pending] = False
            truncated[pending] = False
            rows = np.flatnonzero(a.host(pending))
            info = merge_reset_info(info, self._reset_rows(rows), pending, a)
        elif self.autoreset_mode == AutoresetMode.SAME_STEP:
            done = terminated | truncated
            rows = np.flatnonzero(a.host(done))
            if rows.size:
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in rows:
                    final_obs[i] = a.copy(obs[int(i)])
                final_info = {key: value for key, value in info.items()}
                for key in list(final_info):
                    if not key.startswith("_"):
                        final_info["_" + key] = final_info["_" + key] & done
                info = merge_reset_info(info, self._reset_rows(rows), done, a)
                info["final_obs"], info["_final_obs"] = final_obs, a.copy(done)
                info["final_info"], info["_final_info"] = final_info, a.copy(done)
        self._autoreset = terminated | truncated
        return a.copy(self._obs), reward, terminated, truncated, info

    def _report_stopped(
        self,
        halted: Any,
        void: Any | None,
        action: Any,
        obs: Any,
        reward: Any,
        info: dict[str, Any],
    ) -> tuple[Any, dict[str, Any]]:
        """Reward 0, finite observations (in place) and no step info for the ``halted`` envs,
        whose instances kept their state from before the step; ``failure`` and ``status`` give
        the reason for those not in ``void``."""
        a, xp = self.arrays, self.xp
        rows = xp.reshape(halted, (-1, *(1,) * (obs.ndim - 1)))
        obs[rows & ~xp.isfinite(obs)] = 0.0
        reward = xp.where(halted, xp.zeros_like(reward), reward)
        info = dict(info)
        for key in [k for k in info if not k.startswith("_")]:
            value = a.copy(info[key])
            value[halted] = 0
            info[key] = value
        report = halted if void is None else halted & ~void
        report_host = a.host(report)
        if not report_host.any():
            return reward, info
        failure = np.full(self.num_envs, None, dtype=object)
        status = np.zeros(self.num_envs, dtype=np.int32)
        bad_action = ~a.host(xp.all(xp.isfinite(action), axis=1))
        action_host = a.host(action)
        for f in self.sim.failures():
            i = int(f.instance)
            if report_host[i]:
                failure[i] = (
                    f"the action {action_host[i].tolist()} is not finite: {f.message}"
                    if bad_action[i]
                    else f.message
                )
                status[i] = int(f.status)
        info["failure"], info["_failure"] = failure, a.copy(report)
        info["status"], info["_status"] = a.asarray(status, None), a.copy(report)
        return reward, info

    def _reset_info_rows(self, reset_info: dict[str, Any], rows: Any) -> dict[str, Any]:
        return merge_reset_info({}, reset_info, rows, self.arrays)

    def close_extras(self, **kwargs: Any) -> None:
        """Releases the simulator."""
        self.arrays.release()
        self.sim = None


def _info_array(arrays: Arrays, value: Any) -> Any:
    """An info value as an array of the env's kind: a tensor or array keeps its dtype, a Python
    number or list becomes what numpy makes of it (float64 for floats)."""
    if isinstance(value, np.ndarray) or arrays.torch_tensor(value):
        return arrays.asarray(value, None)
    return arrays.asarray(np.asarray(value), None)


def merge_reset_info(
    info: dict[str, Any], reset_info: dict[str, Any], rows: Any, arrays: Arrays | None = None
) -> dict[str, Any]:
    """Gymnasium's vector info where ``rows`` (bool mask) report their reset info instead of
    their step info: each key keeps a ``_key`` mask of the envs that report it.  ``arrays``:
    the kind of the arrays (numpy when None)."""
    copy = np.array if arrays is None else arrays.copy
    asarray = np.asarray if arrays is None else (lambda v: _info_array(arrays, v))
    zeros_like = np.zeros_like if arrays is None else arrays.xp.zeros_like
    out = dict(info)
    for key in [k for k in info if not k.startswith("_")]:
        if key not in reset_info:
            value = copy(out[key])
            value[rows] = 0
            out[key], out["_" + key] = value, out["_" + key] & ~rows
    for key, value in reset_info.items():
        value = asarray(value)
        if key in out:
            merged = copy(out[key])
            merged[rows] = value[rows]
            out[key], out["_" + key] = merged, out["_" + key] | rows
        else:
            merged = zeros_like(value)
            merged[rows] = value[rows]
            out[key], out["_" + key] = merged, copy(rows)
    return out


def normalize_quaternions(model: zwang.Model, qpos: np.ndarray) -> None:
    """Normalises, in place, the quaternion of every ball and free joint in ``qpos`` (n, nq)."""
    for j, jtype in enumerate(np.asarray(model.jnt_type).tolist()):
        kind = joint_kind(jtype)
        if kind in ("free", "ball"):
            a = int(model.jnt_qposadr[j]) + (3 if kind == "free" else 0)
            q = qpos[:, a : a + 4]
            q /= np.linalg.norm(q, axis=1, keepdims=True)


def joint_kind(jtype: Any) -> str:
    """'free', 'ball', 'slide' or 'hinge' for a joint type (MuJoCo's numbering 0-3 or a name)."""
    if isinstance(jtype, (int, np.integer)):
        return ("free", "ball", "slide", "hinge")[int(jtype)]
    name = str(getattr(jtype, "name", jtype)).lower()
    for kind in ("free", "ball", "slide", "hinge"):
        if kind in name:
            return kind
    raise ValueError(f"unknown joint type {jtype!r}")
