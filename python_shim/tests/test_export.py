"""Model.to_mjcf and ``zwang export`` against MuJoCo 4.0 (the installed Python package): for
third-party files (MuJoCo's humanoid, Gymnasium's ten v5 tasks, Gymnasium-Robotics' Fetch and
Shadow hand scenes with their meshes, tendons and mocap welds), MuJoCo compiles the exported
file to the same sizes and masses as the original and computes the same accelerations at random
states, contacts included; zwang reads the export back as the same model.  A built-in example,
which has no file, is exported by the CLI, drawn by ``zwang.render`` and stepped by MuJoCo as
zwang steps it."""

import importlib.util
import pathlib
import subprocess

import numpy as np
import pytest
import zwang
from conftest import random_states, zwang_cli

mujoco = pytest.importorskip("mujoco")

HUMANOID = pathlib.Path("/usr/share/mujoco/model/humanoid/humanoid.xml")
GYM = ["ant", "half_cheetah", "hopper", "humanoid", "humanoidstandup", "inverted_double_pendulum"]
GYM += ["inverted_pendulum", "pusher", "reacher", "swimmer", "walker2d"]
ROBOTICS = ["fetch/pick_and_place.xml", "hand/manipulate_egg.xml", "hand/reach.xml"]


def third_party_files():
    files = [HUMANOID] if HUMANOID.exists() else []
    spec = importlib.util.find_spec("gymnasium")
    if spec is not None:
        assets = pathlib.Path(spec.submodule_search_locations[0]) / "envs" / "mujoco" / "assets"
        files += [assets / f"{name}.xml" for name in GYM]
    spec = importlib.util.find_spec("gymnasium_robotics")
    if spec is not None:
        assets = pathlib.Path(spec.submodule_search_locations[0]) / "envs" / "assets"
        files += [assets / scene for scene in ROBOTICS]
    return files


def mujoco_qacc(m, qpos, qvel, ctrl):
    d = mujoco.MjData(m)
    out = []
    for q, v, u in zip(qpos, qvel, ctrl):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = q, v, u
        mujoco.mj_forward(m, d)
        out.append(d.qacc.copy())
    return np.array(out)


def zwang_qacc(model, qpos, qvel, ctrl):
    sim = zwang.Simulator(model, instances=len(qpos), precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.forward()
    assert not sim.status.any(), sim.status
    return np.array(sim.qacc)


@pytest.mark.parametrize("path", third_party_files(), ids=lambda p: p.stem)
def test_mujoco_compiles_the_export_as_the_original(path, tmp_path):
    model = zwang.load(str(path))
    exported = tmp_path / "exported.xml"
    exported.write_text(model.to_mjcf())
    original = mujoco.MjModel.from_xml_path(str(path))
    again = mujoco.MjModel.from_xml_path(str(exported))
    # zwang's constraint solver is Newton's: a file's PGS (HumanoidStandup's) is not written
    original.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    for size in ("nq", "nv", "nu", "na", "nbody", "njnt", "ngeom", "nsite", "ntendon", "neq"):
        assert getattr(again, size) == getattr(original, size), size
    assert np.allclose(again.body_mass, original.body_mass, rtol=1e-12, atol=0)
    assert np.allclose(again.qpos0, original.qpos0, rtol=0, atol=1e-12)
    # contacts, limits and tendons act at these states; the hull of a mesh is MuJoCo's either way
    qpos, qvel, ctrl = random_states(model, 6, seed=len(path.stem), spread=0.1)
    a = mujoco_qacc(original, qpos, qvel, ctrl)
    b = mujoco_qacc(again, qpos, qvel, ctrl)
    scale = max(1.0, np.abs(a).max())
    assert np.abs(a - b).max() <= 1e-6 * scale, np.abs(a - b).max() / scale
    # and zwang reads the export as the model it was written from
    back = zwang.load(str(exported))
    assert back.nq == model.nq and back.nbody == model.nbody and back.ngeom == model.ngeom
    # (to round-off: inertias and frames are rebuilt from printed numbers)
    a, b = zwang_qacc(back, qpos, qvel, ctrl), zwang_qacc(model, qpos, qvel, ctrl)
    assert np.abs(a - b).max() <= 1e-10 * max(1.0, np.abs(b).max())


def test_a_built_in_example_is_exported_drawn_and_stepped_as_zwang_steps_it(tmp_path):
    out = tmp_path / "floating_base.xml"
    run = subprocess.run(
        [zwang_cli(), "export", "floating_base", "-o", str(out)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    # no overwrite without --overwrite; standard output without -o
    again = subprocess.run(
        [zwang_cli(), "export", "floating_base", "-o", str(out)], capture_output=True, text=True
    )
    assert again.returncode != 0 and "--overwrite" in again.stderr
    text = subprocess.run(
        [zwang_cli(), "export", "floating_base"], capture_output=True, text=True, check=True
    ).stdout
    assert text == out.read_text()

    model = zwang.load(str(out))
    m = mujoco.MjModel.from_xml_path(str(out))
    qpos, qvel, ctrl = random_states(model, 4, seed=2, spread=0.3)
    a = zwang_qacc(model, qpos, qvel, ctrl)
    b = mujoco_qacc(m, qpos, qvel, ctrl)
    assert np.abs(a - b).max() <= 1e-9 * max(1.0, np.abs(a).max())

    first = zwang.render(model, qpos[0], width=64, height=48)
    second = zwang.render(model, qpos[1], width=64, height=48)
    assert first.shape == (48, 64, 3) and first.std() > 0
    assert not np.array_equal(first, second)


def test_export_refuses_a_missing_model(tmp_path):
    run = subprocess.run(
        [zwang_cli(), "export", str(tmp_path / "nothing.xml")], capture_output=True, text=True
    )
    assert run.returncode != 0 and "nothing.xml" in run.stderr
