"""Shared fixtures: Gymnasium's MuJoCo models, seeded random states, and zwang and MuJoCo
simulations of the same model at the same states."""

import os
import pathlib

import numpy as np
import pytest
import zwang

GYM_MODELS = [
    "ant.xml",
    "humanoid.xml",
    "hopper.xml",
    "walker2d_v5.xml",
    "half_cheetah.xml",
    "inverted_double_pendulum.xml",
    "reacher.xml",
    "pusher_v5.xml",
    "swimmer.xml",
    "inverted_pendulum.xml",
]

REPO = pathlib.Path(__file__).resolve().parents[2]

# no display on the test machines: MuJoCo's renderer draws through EGL (Mesa's software
# rasteriser without a GPU); it reads this when MuJoCo is imported
if not os.environ.get("DISPLAY"):
    os.environ.setdefault("MUJOCO_GL", "egl")

try:
    import mujoco

    # MuJoCo 4.0 warns that Gymnasium's files use the deprecated settotalmass; without a handler
    # it appends each warning to MUJOCO_LOG.TXT in the working directory
    mujoco.set_mju_user_warning(lambda message: None)
except ImportError:
    pass


def gym_assets():
    """Gymnasium's MuJoCo model directory (or $ZWANG_GYM_ASSETS, a copy of its files on a
    machine without gymnasium), None when there is neither."""
    if os.environ.get("ZWANG_GYM_ASSETS"):
        return pathlib.Path(os.environ["ZWANG_GYM_ASSETS"])
    try:
        import gymnasium
    except ImportError:
        return None
    return pathlib.Path(gymnasium.__file__).parent / "envs" / "mujoco" / "assets"


@pytest.fixture(scope="session")
def assets():
    path = gym_assets()
    if path is None:
        pytest.skip("gymnasium is not installed")
    return path


def random_states(model, count, seed, spread=1.0):
    """qpos near qpos0 (hinges ± spread rad, slides ± 0.2 spread m, free bodies moved by ± 0.2
    and turned to a random orientation, balls random), qvel ~ N(0, spread²), ctrl uniform in
    each actuator's range (or [-1, 1])."""
    rng = np.random.default_rng(seed)
    qpos = np.tile(model.qpos0, (count, 1))
    for kind, adr in zip(model.jnt_type, model.jnt_qposadr):
        if kind == zwang.JNT_FREE:
            qpos[:, adr : adr + 3] += rng.uniform(-0.2, 0.2, (count, 3))
            q = rng.standard_normal((count, 4))
            qpos[:, adr + 3 : adr + 7] = q / np.linalg.norm(q, axis=1, keepdims=True)
        elif kind == zwang.JNT_BALL:
            q = rng.standard_normal((count, 4))
            qpos[:, adr : adr + 4] = q / np.linalg.norm(q, axis=1, keepdims=True)
        elif kind == zwang.JNT_HINGE:
            qpos[:, adr] += rng.uniform(-spread, spread, count)
        else:
            qpos[:, adr] += rng.uniform(-0.2 * spread, 0.2 * spread, count)
    qvel = spread * rng.standard_normal((count, model.nv))
    low = np.where(model.actuator_ctrllimited, model.actuator_ctrlrange[:, 0], -1.0)
    high = np.where(model.actuator_ctrllimited, model.actuator_ctrlrange[:, 1], 1.0)
    ctrl = rng.uniform(low, high, (count, model.nu))
    return qpos, qvel, ctrl


def zwang_cli():
    """The command-line tool of a CMake build, or None: $ZWANG_CLI, else build/ci/zwang."""
    for path in (os.environ.get("ZWANG_CLI"), REPO / "build" / "ci" / "zwang"):
        if path and os.access(path, os.X_OK):
            return str(path)
    return None
