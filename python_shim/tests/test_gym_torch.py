"""zwang.gym with ``array="torch"``: the ten v5 tasks as torch tensors over the simulator's memory.

On the CPU backend each torch environment is compared, step for step, with the numpy
environment of the same task, seed and actions: observations and rewards to a few units in the
last place (numpy and PyTorch evaluate sin, cos and sums with different vectorised code),
terminations, truncations, autoresets and info masks exactly.  The CUDA test compares the torch
environment on the device with the numpy one on the same backend.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
zg = pytest.importorskip("zwang.gym")
import torch  # noqa: E402
import zwang  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

# relative to 1 + |value|: the two libraries' rounding, far below any physical difference
CLOSE = 1e-13


def make(env_id, n, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return zg.make_vec(env_id, n, **kwargs)


def assert_close(expected, got, what):
    got = got.detach().cpu().numpy() if isinstance(got, torch.Tensor) else np.asarray(got)
    expected = np.asarray(expected)
    assert got.shape == expected.shape, what
    if expected.dtype == bool or expected.dtype.kind in "iu":
        np.testing.assert_array_equal(got, expected, err_msg=what)
    else:
        scale = 1 + np.abs(expected)
        assert (np.abs(got - expected) <= CLOSE * scale).all(), what


def assert_same_info(expected, got, what):
    assert set(got) == set(expected), (what, set(got) ^ set(expected))
    for key, value in expected.items():
        if isinstance(value, dict):
            assert_same_info(value, got[key], f"{what} {key}")
        elif isinstance(value, np.ndarray) and value.dtype == object:
            assert len(got[key]) == len(value)
            for i, item in enumerate(value):
                if item is None:
                    assert got[key][i] is None, (what, key, i)
                elif isinstance(item, str):
                    assert got[key][i] == item, (what, key, i)
                else:
                    assert_close(item, got[key][i], f"{what} {key}[{i}]")
        else:
            assert isinstance(got[key], torch.Tensor), (what, key)
            assert_close(value, got[key], f"{what} {key}")


def run_pair(env_id, n, steps, mode, seed=3, **kwargs):
    """Steps the numpy and torch envs of a task with the same seed and actions; returns how many
    envs ended (terminated or truncated) over the run."""
    env = make(env_id, n, autoreset_mode=mode, **kwargs)
    tenv = make(env_id, n, autoreset_mode=mode, array="torch", **kwargs)
    obs, info = env.reset(seed=seed)
    tobs, tinfo = tenv.reset(seed=seed)
    assert isinstance(tobs, torch.Tensor) and tobs.dtype == torch.float64
    assert_close(obs, tobs, f"{env_id} reset obs")
    assert_same_info(info, tinfo, f"{env_id} reset info")
    rng = np.random.default_rng(seed)
    low, high = env.single_action_space.low, env.single_action_space.high
    ended = 0
    for t in range(steps):
        action = rng.uniform(np.maximum(low, -1.5), np.minimum(high, 1.5), size=(n, len(low)))
        expected = env.step(action)
        got = tenv.step(torch.from_numpy(action))
        what = f"{env_id} {mode.value} step {t}"
        for name, a, b in zip(("obs", "reward", "terminated", "truncated"), expected, got):
            assert isinstance(b, torch.Tensor), (what, name)
            assert_close(a, b, f"{what} {name}")
        assert got[2].dtype == torch.bool and got[3].dtype == torch.bool
        assert_same_info(expected[4], got[4], f"{what} info")
        ended += int((expected[2] | expected[3]).sum())
    return ended


@pytest.mark.parametrize("env_id", zg.ENV_IDS)
def test_torch_env_equals_the_numpy_env_step_for_step(env_id):
    # a time limit of 25 steps: every env truncates and starts over at least twice
    ended = run_pair(env_id, 5, 60, AutoresetMode.NEXT_STEP, max_episode_steps=25)
    assert ended >= 10


@pytest.mark.parametrize("env_id", ["Hopper-v5", "Ant-v5", "Reacher-v5"])
def test_same_step_autoreset_and_final_obs(env_id):
    ended = run_pair(env_id, 4, 40, AutoresetMode.SAME_STEP, seed=8, max_episode_steps=15)
    assert ended >= 8


def test_per_env_seeding_and_float32():
    run_pair("Walker2d-v5", 3, 30, AutoresetMode.NEXT_STEP, seeding="per_env", precision="f32")


def test_tensors_share_the_simulator_memory():
    env = make("Ant-v5", 4, array="torch")
    env.reset(seed=0)
    qpos = env.arrays.view("qpos")
    assert qpos.data_ptr() == np.asarray(env.sim.qpos).__array_interface__["data"][0]
    action = torch.full((4, env.model.nu), 0.25, dtype=torch.float64)
    action[2] = -0.5
    env.step(action)
    # the action is in the simulator's controls, and the state the step left is the tensor's
    np.testing.assert_array_equal(np.asarray(env.sim.ctrl), action.numpy())
    np.testing.assert_array_equal(env.arrays.view("qpos").numpy(), np.asarray(env.sim.qpos))


def test_reset_mask_takes_a_tensor_and_refuses_other_masks():
    env = make("Hopper-v5", 4, array="torch")
    env.reset(seed=1)
    stepped = env.step(torch.zeros(4, 3))[0]
    moved, _ = env.reset(options={"reset_mask": torch.tensor([False, True, False, False])})
    kept = [0, 2, 3]
    assert torch.equal(moved[kept], stepped[kept]) and not torch.equal(moved[1], stepped[1])
    with pytest.raises(TypeError, match="bool"):
        env.reset(options={"reset_mask": torch.ones(4)})
    with pytest.raises(ValueError, match="shape"):
        env.reset(options={"reset_mask": torch.ones(3, dtype=torch.bool)})
    with pytest.raises(ValueError, match="shape"):
        env.step(torch.zeros(4, 2))


def test_non_finite_action_stops_only_its_env():
    env = make("Hopper-v5", 3)
    tenv = make("Hopper-v5", 3, array="torch")
    env.reset(seed=5)
    tenv.reset(seed=5)
    action = np.full((3, 3), 0.4)
    action[1, 2] = np.nan
    expected = env.step(action)
    got = tenv.step(torch.from_numpy(action))
    for a, b in zip(expected[:4], got[:4]):
        assert_close(a, b, "step with a NaN action")
    assert got[2].tolist() == [False, True, False]
    assert "not finite" in got[4]["failure"][1]
    assert int(got[4]["status"][1]) & zwang.STATUS_BAD_STATE
    assert_same_info(expected[4], got[4], "info")


def test_unknown_array_kind():
    with pytest.raises(ValueError, match="array must be one of numpy, torch"):
        make("Hopper-v5", 2, array="jax")


def test_set_state_and_info_from_python_numbers_stay_float64():
    env, tenv = make("Hopper-v5", 2), make("Hopper-v5", 2, array="torch")
    qpos = [[0.1, 1.35, 0.1, 0.0, 0.0, 0.0]] * 2
    qvel = [[0.1] * 6] * 2
    assert_close(env.set_state(qpos, qvel), tenv.set_state(qpos, qvel), "set_state")

    def info_fn(sim):
        return {"constant": [0.1, 0.2]}

    path = zg.gymnasium_assets() + "/inverted_pendulum.xml"
    kwargs = dict(obs_fn=lambda sim: sim.qpos, reward_fn=lambda sim, a: sim.qvel[:, 0])
    tgen = zg.VectorEnv(path, 2, info_fn=info_fn, array="torch", **kwargs)
    tgen.reset(seed=0)
    info = tgen.step(torch.zeros(2, 1))[4]
    assert info["constant"].dtype == torch.float64 and info["constant"][0].item() == 0.1


def test_single_env_takes_and_returns_tensors():
    env = zg.make("Hopper-v5", array="torch")
    ref = zg.make("Hopper-v5")
    obs, _ = env.reset(seed=3)
    assert_close(ref.reset(seed=3)[0], obs, "reset")
    got = env.step(torch.full((3,), 0.2, dtype=torch.float64))
    expected = ref.step(np.full(3, 0.2))
    assert isinstance(got[0], torch.Tensor)
    assert_close(expected[0], got[0], "obs")
    assert got[1] == pytest.approx(expected[1], rel=1e-13) and got[2] == expected[2]


def test_backend_auto_follows_the_simulator():
    env = make("Hopper-v5", 2, array="torch", backend="auto")
    assert env.arrays.cuda == str(env.sim.backend).startswith("cuda")
    assert env.reset(seed=0)[0].device == env.arrays.device


def cuda_or_skip():
    devices, reason = zwang.cuda_status()
    if devices == 0:
        pytest.skip(f"no CUDA device for zwang: {reason}")


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_cuda_torch_env_equals_the_numpy_env_on_the_same_backend(precision):
    cuda_or_skip()
    for env_id in ("Ant-v5", "Humanoid-v5", "InvertedDoublePendulum-v5"):
        kwargs = dict(backend="cuda", max_episode_steps=20, precision=precision)
        env, tenv = make(env_id, 64, **kwargs), make(env_id, 64, array="torch", **kwargs)
        obs, _ = env.reset(seed=2)
        tobs, _ = tenv.reset(seed=2)
        assert tobs.device.type == "cuda"
        assert_close(obs, tobs, f"{env_id} reset")
        rng = np.random.default_rng(2)
        side = torch.cuda.Stream()
        for t in range(45):
            action = rng.uniform(-0.4, 0.4, size=(64, env.model.nu))
            expected = env.step(action)
            # the actions come late from another stream: the env must wait for them
            with torch.cuda.stream(side):
                torch.cuda._sleep(10**7)
                late = torch.from_numpy(action).to("cuda", non_blocking=False) * 1.0
                got = tenv.step(late)
            side.synchronize()
            what = f"{env_id} {precision} cuda step {t}"
            for name, a, b in zip(("obs", "reward", "terminated", "truncated"), expected, got):
                assert b.device.type == "cuda", name
                assert_close(a, b, f"{what} {name}")
            assert_same_info(expected[4], got[4], f"{what} info")


def test_humanoid_with_per_instance_masses():
    # the centre of mass of the forward reward then weighs each env's own masses (params)
    env, tenv = make("Humanoid-v5", 3), make("Humanoid-v5", 3, array="torch")
    for e in (env, tenv):
        e.sim.params.body_mass[:, 2] *= np.array([0.5, 1.0, 2.0])
        e.reset(seed=4)
    rng = np.random.default_rng(4)
    for t in range(8):
        action = rng.uniform(-0.4, 0.4, size=(3, env.model.nu))
        expected, got = env.step(action), tenv.step(torch.from_numpy(action))
        assert_close(expected[1], got[1], f"reward {t}")
        assert_close(expected[4]["x_velocity"], got[4]["x_velocity"], f"x_velocity {t}")
    assert tenv.sim.parameters_exposed
