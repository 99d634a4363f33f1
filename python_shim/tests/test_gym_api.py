"""The vector-environment contract of zwang.gym: spaces, dtypes, autoreset modes, time limits,
seeding, and Gymnasium's own environment checker on a single env."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")
zg = pytest.importorskip("zwang.gym")
import zwang  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

PENDULUM = """<mujoco>
  <option timestep="0.01"/>
  <worldbody>
    <body name="pole">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.1"/>
      <inertial pos="0 0 0.5" mass="1" diaginertia="0.01 0.01 0.001"/>
    </body>
  </worldbody>
  <actuator><motor joint="hinge" gear="1" ctrlrange="-2 2" ctrllimited="true"/></actuator>
</mujoco>
"""


def make(env_id, n=4, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return zg.make_vec(env_id, n, **kwargs)


@pytest.mark.parametrize("env_id", zg.ENV_IDS)
def test_spaces_shapes_and_dtypes(env_id):
    env = make(env_id, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = gymnasium.make(env_id)
    assert env.single_observation_space.shape == ref.observation_space.shape
    assert env.single_observation_space.dtype == np.float64
    assert env.single_action_space == ref.action_space
    assert env.observation_space.shape == (3, *ref.observation_space.shape)
    assert env.action_space.shape == (3, *ref.action_space.shape)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert env.dt == pytest.approx(ref.unwrapped.dt)
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float64 and env.observation_space.contains(obs)
    obs, reward, terminated, truncated, info = env.step(env.action_space.sample())
    assert obs.shape == env.observation_space.shape
    assert reward.shape == (3,) and reward.dtype == np.float64
    assert terminated.dtype == np.bool_ and truncated.dtype == np.bool_
    for key, value in info.items():
        assert len(value) == 3, key
    assert env.max_episode_steps == ref.spec.max_episode_steps


def test_seeding_is_reproducible():
    a, b = make("Hopper-v5"), make("Hopper-v5")
    np.testing.assert_array_equal(a.reset(seed=3)[0], b.reset(seed=3)[0])
    assert not np.array_equal(a.reset(seed=4)[0], b.reset(seed=3)[0])
    actions = np.random.default_rng(0).uniform(-1, 1, (20, 4, 3))
    a.reset(seed=9)
    b.reset(seed=9)
    for act in actions:
        out_a, out_b = a.step(act), b.step(act)
        for x, y in zip(out_a[:4], out_b[:4]):
            np.testing.assert_array_equal(x, y)


def test_next_step_autoreset_and_time_limit():
    env = make("InvertedPendulum-v5", 2, max_episode_steps=3)
    obs0, _ = env.reset(seed=1)
    for _ in range(3):
        obs, reward, terminated, truncated, info = env.step(np.zeros((2, 1)))
    assert truncated.all() and not terminated.any()
    # the next step resets: reward 0, not done, reset info only (no reward components)
    obs, reward, terminated, truncated, info = env.step(np.ones((2, 1)))
    assert (reward == 0).all() and not (terminated | truncated).any()
    assert not info["_reward_survive"].any()
    assert np.abs(obs).max() <= 0.01 + 1e-12  # InvertedPendulum's reset noise bound
    obs, reward, *_ = env.step(np.zeros((2, 1)))
    assert (reward == 1).all()


def test_termination_then_reset_next_step():
    env = make("InvertedPendulum-v5", 2)
    env.reset(seed=0)
    push = np.array([[3.0], [0.0]])
    for _ in range(200):
        obs, reward, terminated, truncated, info = env.step(push)
        if terminated[0]:
            break
    assert terminated[0] and reward[0] == 0 and abs(obs[0, 1]) > 0.2
    assert not terminated[1] and info["_reward_survive"].all()
    obs, reward, terminated, truncated, info = env.step(push)
    assert reward[0] == 0 and not terminated[0] and abs(obs[0, 1]) <= 0.01 + 1e-12
    assert info["_reward_survive"].tolist() == [False, True]


def test_same_step_autoreset_gives_final_obs():
    env = make("InvertedPendulum-v5", 2, max_episode_steps=2, autoreset_mode="SameStep")
    env.reset(seed=0)
    env.step(np.zeros((2, 1)))
    obs, reward, terminated, truncated, info = env.step(np.zeros((2, 1)))
    assert truncated.all() and info["_final_obs"].all()
    assert np.abs(obs).max() <= 0.01 + 1e-12  # already the next episode's start
    assert not np.allclose(info["final_obs"][0], obs[0])
    assert info["final_info"]["_reward_survive"].all()


def test_disabled_autoreset_needs_reset_mask():
    env = make("InvertedPendulum-v5", 2, max_episode_steps=1, autoreset_mode="Disabled")
    env.reset(seed=0)
    env.step(np.zeros((2, 1)))
    with pytest.raises(RuntimeError):
        env.step(np.zeros((2, 1)))
    obs, _ = env.reset(options={"reset_mask": np.array([True, True])})
    env.step(np.zeros((2, 1)))


def test_reset_mask_resets_only_masked_envs():
    env = make("Hopper-v5", 3)
    obs0, _ = env.reset(seed=0)
    for _ in range(5):
        obs1, *_ = env.step(np.full((3, 3), 0.5))
    obs2, info = env.reset(options={"reset_mask": np.array([False, True, False])})
    np.testing.assert_array_equal(obs2[[0, 2]], obs1[[0, 2]])
    assert not np.allclose(obs2[1], obs1[1])
    assert info["_x_position"].tolist() == [False, True, False]


def test_frame_skip_steps_the_simulator():
    env = make("HalfCheetah-v5", 2, frame_skip=3)
    assert env.dt == pytest.approx(3 * env.model.timestep)
    env.reset(seed=0)
    qpos, qvel = np.array(env.sim.qpos), np.array(env.sim.qvel)
    env.step(np.full((2, 6), 0.3))
    sim = zwang.Simulator(env.model, instances=2)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[...] = 0.3
    sim.step(3)
    np.testing.assert_allclose(env.sim.qpos, sim.qpos, rtol=0, atol=1e-12)


def test_gymnasium_env_checker_on_single_env():
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(zg.make("Hopper-v5"), skip_render_check=True)
        check_env(zg.make("Reacher-v5"), skip_render_check=True)


def test_generic_vector_env(tmp_path):
    path = tmp_path / "pendulum.xml"
    path.write_text(PENDULUM)

    def obs_fn(sim):
        return np.concatenate([np.cos(sim.qpos), np.sin(sim.qpos), sim.qvel], axis=1)

    def reward_fn(sim, action):
        return -np.square(sim.qpos[:, 0]) - 0.01 * np.square(action[:, 0])

    def terminated_fn(sim):
        return np.abs(sim.qvel[:, 0]) > 50

    env = zg.VectorEnv(
        str(path),
        5,
        obs_fn,
        reward_fn,
        terminated_fn,
        frame_skip=2,
        max_episode_steps=10,
        reset_noise_scale=0.1,
    )
    assert env.single_observation_space.shape == (3,)
    assert env.single_action_space.low.tolist() == [-2.0]
    obs, _ = env.reset(seed=0)
    assert np.abs(np.arctan2(obs[:, 1], obs[:, 0])).max() <= 0.1
    qpos, qvel = np.array(env.sim.qpos), np.array(env.sim.qvel)
    action = np.linspace(-1, 1, 5)[:, None]
    obs, reward, terminated, truncated, _ = env.step(action)
    # the same two steps on a separate simulator
    sim = zwang.Simulator(env.model, instances=5)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[...] = action
    sim.step(2)
    np.testing.assert_allclose(obs[:, 2], sim.qvel[:, 0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        reward, -(sim.qpos[:, 0] ** 2) - 0.01 * action[:, 0] ** 2, rtol=0, atol=1e-12
    )
    for _ in range(9):
        *_, truncated, _ = env.step(action)
    assert truncated.all()


def test_unknown_env_and_bad_kwargs():
    with pytest.raises(gymnasium.error.Error):
        zg.make_vec("CartPole-v1", 2)
    with pytest.raises(TypeError):
        zg.make_vec("Hopper-v5", 2, not_an_option=1)
    with pytest.raises(ValueError):
        make("Hopper-v5", 2).step(np.zeros((3, 3)))


@pytest.mark.parametrize("count", [4.5, 4.0, "4", True, np.float64(4.0), np.float64(4.5), None])
def test_num_envs_must_be_an_integer(count):
    message = "num_envs must be an integer, got.*" + re.escape(repr(count))
    with pytest.raises(TypeError, match=message):
        zg.make_vec("InvertedPendulum-v5", count)
    if count is not True:
        # Gymnasium's own make_vec refuses it as well (it takes range(num_envs))
        with pytest.raises(TypeError):
            gymnasium.make_vec("CartPole-v1", count, vectorization_mode="sync")


@pytest.mark.parametrize("count", [0, -1, np.int64(0)])
def test_num_envs_must_be_positive(count):
    with pytest.raises(ValueError, match=f"num_envs must be at least 1, got {int(count)}"):
        zg.make_vec("InvertedPendulum-v5", count)


@pytest.mark.parametrize(
    "kwargs", [{"frame_skip": 2.5}, {"max_episode_steps": 10.5}, {"frame_skip": True}]
)
def test_step_counts_must_be_integers(kwargs):
    # int(2.5) would step twice per action silently
    with pytest.raises(TypeError, match=next(iter(kwargs)) + ".* must be an integer"):
        zg.make_vec("InvertedPendulum-v5", 2, **kwargs)


def test_num_envs_takes_numpy_integers(tmp_path):
    env = make("InvertedPendulum-v5", np.int64(3))
    assert env.num_envs == 3 and type(env.num_envs) is int
    assert env.sim.instances == 3 and env.action_space.shape == (3, 1)
    path = tmp_path / "pendulum.xml"
    path.write_text(PENDULUM)
    with pytest.raises(TypeError, match="num_envs"):
        zg.VectorEnv(str(path), 2.5, lambda sim: sim.qpos, lambda sim, a: sim.qpos[:, 0])


def _no_nan(info):
    for key, value in info.items():
        if isinstance(value, dict):
            _no_nan(value)
        elif np.asarray(value).dtype.kind == "f":
            assert np.isfinite(value).all(), key


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_action_stops_only_its_env(bad):
    env, ref = make("Hopper-v5", 3), make("Hopper-v5", 3)
    obs0, _ = env.reset(seed=5)
    ref.reset(seed=5)
    action = np.full((3, 3), 0.4)
    action[1, 2] = bad
    obs, reward, terminated, truncated, info = env.step(action)
    # the other envs step as a batch given only finite actions does
    good = action.copy()
    good[1] = 0.4
    obs_ref, reward_ref, *_ = ref.step(good)
    np.testing.assert_array_equal(obs[[0, 2]], obs_ref[[0, 2]])
    np.testing.assert_array_equal(reward[[0, 2]], reward_ref[[0, 2]])
    assert np.isfinite(obs).all() and np.isfinite(reward).all() and reward[1] == 0
    assert terminated.tolist() == [False, True, False]
    _no_nan(info)
    assert info["_failure"].tolist() == [False, True, False]
    assert "not finite" in info["failure"][1]
    assert info["status"][1] & zwang.STATUS_BAD_STATE
    # no reward components for the env that did not step
    assert info["_reward_ctrl"].tolist() == [True, False, True]
    # its instance kept the state from before the step
    np.testing.assert_array_equal(obs[1], obs0[1])
    # next step it starts over (NEXT_STEP) and the others go on
    obs, reward, terminated, truncated, info = env.step(np.full((3, 3), 0.4))
    assert reward[1] == 0 and not terminated.any() and np.isfinite(obs).all()
    assert "_failure" not in info and (np.asarray(env.sim.status) == 0).all()


def test_stopped_env_with_a_non_finite_state_reports_finite_values(tmp_path):
    path = tmp_path / "pendulum.xml"
    path.write_text(PENDULUM)
    env = zg.VectorEnv(
        str(path),
        3,
        lambda sim: np.concatenate([sim.qpos, sim.qvel], axis=1),
        lambda sim, action: -np.square(sim.qvel[:, 0]),
        info_fn=lambda sim: {"speed": np.abs(sim.qvel[:, 0])},
        autoreset_mode="SameStep",
    )
    env.reset(seed=0)
    # a state written through the simulator's view: the instance stops at the next step
    env.sim.qvel[2, 0] = np.nan
    obs, reward, terminated, truncated, info = env.step(np.zeros((3, 1)))
    assert terminated.tolist() == [False, False, True]
    assert np.isfinite(reward).all() and reward[2] == 0
    assert np.isfinite(obs).all()
    # SAME_STEP: the ended env starts over and its last step's info is in final_info
    final = info["final_info"]
    assert final["_failure"].tolist() == [False, False, True]
    assert "not finite" in final["failure"][2]
    # the stopped env did not step: no step info, in final_info or the reset env's info
    assert not final["_speed"].any() and info["_speed"].tolist() == [True, True, False]
    assert np.isfinite(info["final_obs"][2]).all() and info["final_obs"][2][1] == 0
    _no_nan(info)


def test_single_env_reports_a_non_finite_action():
    env = zg.make("Hopper-v5")
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(np.array([0.0, np.nan, 0.0]))
    assert reward == 0.0 and terminated and not truncated
    assert "not finite" in info["failure"] and "reward_ctrl" not in info
    with pytest.raises(RuntimeError):
        env.step(np.zeros(3))
    env.reset(seed=1)
    assert np.isfinite(env.step(np.zeros(3))[1])
