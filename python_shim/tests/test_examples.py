"""The examples run end to end in their --quick mode."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys

import pytest

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
pytest.importorskip("gymnasium")


def run(script: str, cwd, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, script), "--quick", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_random_rollout(tmp_path):
    out = run("random_rollout.py", tmp_path)
    assert "env steps/s" in out and "raw (one sim.step call)" in out


def test_pendulum_sweep(tmp_path):
    pytest.importorskip("matplotlib")
    out = run("pendulum_sweep.py", tmp_path, "--out", "sweep.png")
    assert (tmp_path / "sweep.png").stat().st_size > 0
    # the measured period agrees with the damped linear pendulum's to well under a percent
    err = float(out.split("relative difference from theory")[1].split()[0])
    assert err < 5e-3


def test_fit_parameters(tmp_path):
    """Every starting guess recovers the lower link's mass and the damping."""
    pytest.importorskip("torch")
    out = run("fit_parameters.py", tmp_path)
    err = float(out.split("largest relative error of the fitted parameters")[1].split()[0])
    assert err < 1e-4


def test_ppo_inverted_pendulum(tmp_path):
    run("ppo_inverted_pendulum.py", tmp_path, "--out", "curve")
    with open(tmp_path / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and float(rows[-1]["eval_return"]) > 0


def test_multi_gpu_rollout_under_torchrun(tmp_path):
    """Two CPU processes under torchrun (gloo): each rank's rollout is the one a single process
    gives with the rank's seed, and rank 0 sums the ranks' rates."""
    pytest.importorskip("torch")
    script = os.path.join(EXAMPLES, "multi_gpu_rollout.py")
    args = ["--backend", "cpu", "--env", "Hopper-v5", "--num-envs", "6", "--steps", "40"]
    result = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]
        + [script, *args, "--seed", "7", "--json", str(tmp_path / "ranks.json")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "2 ranks:" in result.stdout and "env steps/s in all" in result.stdout
    with open(tmp_path / "ranks.json") as f:
        summary = json.load(f)
    ranks = summary["ranks"]
    assert summary["world"] == 2 and [r["rank"] for r in ranks] == [0, 1]
    assert [r["seed"] for r in ranks] == [7, 8] and {r["device"] for r in ranks} == {"cpu"}
    rates = [r["env_steps"] / r["seconds"] for r in ranks]
    assert summary["env_steps_per_s"] == pytest.approx(sum(rates), rel=1e-12)

    spec = importlib.util.spec_from_file_location("multi_gpu_rollout", script)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    for r in ranks:
        alone = example.rollout("Hopper-v5", 6, 40, r["seed"], "cpu", 0, 1)
        assert alone["reward_sum"] == r["reward_sum"] and alone["episodes"] == r["episodes"]
    assert ranks[0]["reward_sum"] != ranks[1]["reward_sum"] and ranks[0]["episodes"] > 0
