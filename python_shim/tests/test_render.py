"""Frames of zwang.gym environments against Gymnasium's own (``render_mode="rgb_array"``): for each
of the ten v5 tasks, at random states set in both, zwang's frame equals the one Gymnasium's
environment draws (the same renderer, camera and model file: to the pixel); frames of different
states differ, so that the comparison can fail.  Gymnasium's ``RecordVideo`` over a zwang env
writes a playable MP4 with a frame per step; rendering imports nothing at ``import zwang``."""

import os
import socket
import subprocess
import sys

import numpy as np
import pytest
import zwang.gym

gymnasium = pytest.importorskip("gymnasium")
pytest.importorskip("mujoco")

# no display on the test machines: EGL, Mesa's software rasteriser without a GPU
os.environ.setdefault("MUJOCO_GL", "egl")

SIZE = {"width": 96, "height": 80}


@pytest.mark.parametrize("env_id", zwang.gym.ENV_IDS)
def test_frames_equal_gymnasiums(env_id):
    ours = zwang.gym.make_vec(env_id, 3, render_mode="rgb_array", **SIZE)
    ours.reset(seed=5)
    theirs = gymnasium.make(env_id, render_mode="rgb_array", **SIZE).unwrapped
    theirs.reset(seed=5)
    rng = np.random.default_rng(len(env_id))
    qpos = np.asarray(ours.sim.qpos) + rng.normal(size=(3, ours.model.nq)) * 0.2
    qvel = rng.normal(size=(3, ours.model.nv))
    ours.sim.reset(qpos=qpos, qvel=qvel)
    frames = ours.render()
    assert len(frames) == 3
    for i, frame in enumerate(frames):
        assert frame.shape == (80, 96, 3) and frame.dtype == np.uint8
        theirs.set_state(qpos[i], qvel[i])
        assert np.array_equal(frame, theirs.render()), f"{env_id} env {i}"
        # something is drawn: not one colour
        assert frame.reshape(-1, 3).std(axis=0).max() > 1
    assert not np.array_equal(frames[0], frames[1])
    theirs.close()
    ours.close()


def test_depth_and_chosen_envs():
    env = zwang.gym.make_vec("Hopper-v5", 4, render_mode="depth_array", render_envs=[3, 1], **SIZE)
    env.reset(seed=0)
    frames = env.render()
    assert len(frames) == 2 and frames[0].shape == (80, 96) and frames[0].dtype == np.float32
    theirs = gymnasium.make("Hopper-v5", render_mode="depth_array", **SIZE).unwrapped
    theirs.reset(seed=0)
    theirs.set_state(np.asarray(env.sim.qpos[3]), np.asarray(env.sim.qvel[3]))
    assert np.array_equal(frames[0], theirs.render())
    with pytest.raises(ValueError, match="render_envs must name envs 0..3"):
        zwang.gym.make_vec("Hopper-v5", 4, render_mode="rgb_array", render_envs=[4])


def test_human_mode_shows_the_env_in_the_viewer():
    pytest.importorskip("viser")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = zwang.gym.make("Hopper-v5", render_mode="human", viewer_port=port)
    env.reset(seed=2)
    viewer = env.vector_env._viewer
    assert viewer.url == f"http://127.0.0.1:{port}" and viewer.instances == [0]
    for _ in range(5):
        env.step(env.action_space.sample())
    # step() updated the viewer: it shows the state the env is at
    shown = np.array(viewer._poses[0]["geom_xpos"])
    sim = env.vector_env.sim
    sim.forward()
    np.testing.assert_allclose(shown, sim.geom_xpos[0], atol=1e-12)
    assert env.render() is None
    env.close()
    assert env.vector_env._viewer is None


def test_render_modes():
    assert zwang.gym.make_vec("Reacher-v5", 2).render() is None
    with pytest.raises(ValueError, match="render_mode must be None, 'human', 'rgb_array'"):
        zwang.gym.make("Reacher-v5", render_mode="rgb")
    env = zwang.gym.make("Reacher-v5", render_mode="rgb_array", **SIZE)
    assert env.render_mode == "rgb_array" and "rgb_array" in env.metadata["render_modes"]


def test_record_video_writes_a_frame_per_step(tmp_path):
    pytest.importorskip("moviepy")
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")
    # HalfCheetah never ends an episode early: 30 random steps are 30 frames after the reset's
    env = zwang.gym.make("HalfCheetah-v5", render_mode="rgb_array", **SIZE)
    env = gymnasium.wrappers.RecordVideo(
        env, str(tmp_path / "videos"), episode_trigger=lambda e: True
    )
    env.reset(seed=0)
    env.action_space.seed(0)
    steps = 30
    for _ in range(steps):
        _, _, terminated, truncated, _ = env.step(env.action_space.sample())
        assert not (terminated or truncated)
    env.close()
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1
    # ffmpeg decodes it: the reset's frame and one per step
    frames, _ = imageio_ffmpeg.count_frames_and_secs(str(videos[0]))
    assert frames == steps + 1


def test_import_draws_in_nothing():
    code = "import sys, zwang, zwang.gym; assert 'mujoco' not in sys.modules, 'mujoco imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_check_env_with_its_render_check():
    from gymnasium.utils.env_checker import check_env

    check_env(zwang.gym.make("Hopper-v5", render_mode="rgb_array", **SIZE))


def test_tile_puts_frames_in_a_grid():
    env = zwang.gym.make_vec("Reacher-v5", 5, render_mode="rgb_array", **SIZE)
    env.reset(seed=2)
    frames = env.render()
    grid = zwang.gym.tile(frames)
    # five frames: rows of three, the sixth place black
    assert grid.shape == (2 * 80, 3 * 96, 3)
    for k, f in enumerate(frames):
        r, c = divmod(k, 3)
        assert np.array_equal(grid[r * 80 : (r + 1) * 80, c * 96 : (c + 1) * 96], f)
    assert not grid[80:, 192:].any()
    assert zwang.gym.tile(frames, columns=5).shape == (80, 5 * 96, 3)
    with pytest.raises(ValueError, match="one shape"):
        zwang.gym.tile([frames[0], frames[0][:10]])
    with pytest.raises(ValueError, match="at least one frame"):
        zwang.gym.tile([])
