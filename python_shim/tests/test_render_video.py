"""zwang.render and `zwang render` (videos of trajectories).

zwang.render draws with MuJoCo's renderer, so what it can get wrong is the state it hands over:
an instance stepped by zwang is drawn as MuJoCo draws the same instance stepped by MuJoCo itself
(humanoid.xml with contacts, 60 steps: the two engines' states agree to far below a pixel), and
different states draw differently.  The video has one decodable frame per record, of the tiled
size."""

import os
import subprocess
import sys

import numpy as np
import pytest
import zwang
from conftest import zwang_cli

mujoco = pytest.importorskip("mujoco")

HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"
W, H = 160, 120


def mujoco_frame(m, d, camera=-1):
    m.vis.global_.offwidth = max(W, m.vis.global_.offwidth)
    m.vis.global_.offheight = max(H, m.vis.global_.offheight)
    with mujoco.Renderer(m, H, W) as r:
        r.update_scene(d, camera=camera)
        return r.render().copy()


def test_render_draws_zwangs_state_as_mujoco_draws_its_own():
    model = zwang.load(HUMANOID)
    sim = zwang.Simulator(model, instances=3)
    m = mujoco.MjModel.from_xml_path(HUMANOID)
    rng = np.random.default_rng(4)
    qpos = np.tile(model.qpos0, (3, 1))
    qpos[:, 7:] += rng.normal(0, 0.2, (3, model.nq - 7))
    qvel = rng.normal(0, 0.5, (3, model.nv))
    sim.reset(qpos=qpos, qvel=qvel)
    sim.step(60)
    frames = zwang.render(sim, instances=[0, 1, 2], width=W, height=H)
    assert frames.shape == (3, H, W, 3) and frames.dtype == np.uint8
    for i in range(3):
        d = mujoco.MjData(m)
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        for _ in range(60):
            mujoco.mj_step(m, d)
        # mj_step leaves the bodies where its evaluation placed them, one step before the state
        mujoco.mj_forward(m, d)
        theirs = mujoco_frame(m, d)
        # the states agree to far below a pixel: at most a few pixels of rounding at edges
        differ = np.abs(frames[i].astype(int) - theirs.astype(int)).max(-1) > 8
        assert differ.mean() < 0.002, f"instance {i}: {differ.sum()} pixels differ"
    # another state, another picture; one instance is one frame
    one = zwang.render(sim, instances=1, width=W, height=H)
    assert one.shape == (H, W, 3)
    assert (np.abs(one.astype(int) - frames[0].astype(int)).max(-1) > 8).mean() > 0.01


def test_render_arguments():
    model = zwang.load(HUMANOID)
    standing = zwang.render(model, width=W, height=H)
    m = mujoco.MjModel.from_xml_path(HUMANOID)
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert np.array_equal(standing, mujoco_frame(m, d))
    # a state of qpos rows, lying on its back
    lying = np.array(model.qpos0)
    lying[2], lying[3:7] = 0.2, (np.sqrt(0.5), 0, np.sqrt(0.5), 0)
    two = zwang.render(model, np.stack([model.qpos0, lying]), width=W, height=H)
    assert two.shape == (2, H, W, 3) and np.array_equal(two[0], standing)
    assert not np.array_equal(two[1], standing)
    sim = zwang.Simulator(model, instances=2)
    with pytest.raises(IndexError, match="out of range"):
        zwang.render(sim, instances=[2])
    with pytest.raises(ValueError, match="no camera"):
        zwang.render(sim, camera="nowhere")
    with pytest.raises(ValueError, match="unknown state fields"):
        zwang.render(sim, {"qpos": model.qpos0, "speed": [1]})
    with pytest.raises(TypeError):
        zwang.render("humanoid.xml")


def test_zwang_render_writes_a_video(tmp_path):
    cli = zwang_cli()
    if cli is None:
        pytest.skip("no zwang command-line tool (build/ci/zwang or $ZWANG_CLI)")
    imageio_ffmpeg = pytest.importorskip("imageio_ffmpeg")
    run, video = tmp_path / "run.h5", tmp_path / "run.mp4"
    subprocess.run(
        [cli, "run", HUMANOID, "-n", "4", "-t", "60", "--record-every", "5", "-o", str(run)]
        + ["--no-progress"],
        check=True,
        capture_output=True,
    )
    env = dict(os.environ, ZWANG_PYTHON=sys.executable)
    cmd = [cli, "render", str(run), "-i", "0,2,3", "-o", str(video), "--width", "96"]
    out = subprocess.run(cmd + ["--height", "64"], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    frames, _ = imageio_ffmpeg.count_frames_and_secs(str(video))
    assert frames == 13  # the first state and one record every 5 of 60 steps
    reader = imageio_ffmpeg.read_frames(str(video))
    meta = next(reader)
    assert tuple(meta["size"]) == (2 * 96, 2 * 64)  # three instances tiled 2 x 2
    # errors name what is wrong
    bad = subprocess.run(
        [cli, "render", str(run), "-i", "7", "-o", str(video)],
        capture_output=True,
        text=True,
        env=env,
    )
    assert bad.returncode == 2 and "out of range" in bad.stderr
