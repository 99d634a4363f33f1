"""The examples run end to end in their --quick mode."""

from __future__ import annotations

import csv
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


def test_ppo_inverted_pendulum(tmp_path):
    run("ppo_inverted_pendulum.py", tmp_path, "--out", "curve")
    with open(tmp_path / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and float(rows[-1]["eval_return"]) > 0
