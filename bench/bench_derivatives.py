"""The Jacobians of one step (A, B, C, D) per second, zwang's ``step_jacobians`` against MuJoCo
4.0's ``mjd_transitionFD`` at the same states, one thread each, float64.

    python bench/bench_derivatives.py [--instances 64] [--rounds 3] [--models humanoid,ant,...]

The states: each model's instances after 200 steps under random controls from its keyframe or
qpos0 (the humanoids and the ant on the floor, with contacts).  ``mjd_transitionFD`` has no
RK4, so a model that asks for RK4 (Gymnasium's) is run with Euler by both engines.  zwang
differentiates every instance in one call (the step on dual numbers, ⌈(nx + nu) / 8⌉ passes);
MuJoCo takes one ``mjd_transitionFD`` per instance from the same state and controls, with
centred differences (``flg_centered=1``: 2 (nx + nu) steps, the accuracy zwang is compared
with in its tests) and forward ones (``flg_centered=0``: nx + nu + 1 steps), its Newton solver
converging as the model asks.  Each figure is the best of ``--rounds``, the engines alternating
round by round.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
import time

import mujoco
import numpy as np
import zwang

HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"


def gym_asset(name: str) -> str:
    import gymnasium

    return os.path.join(os.path.dirname(gymnasium.__file__), "envs", "mujoco", "assets", name)


MODELS = {
    "humanoid": lambda: HUMANOID,
    "gym_humanoid": lambda: gym_asset("humanoid.xml"),
    "ant": lambda: gym_asset("ant.xml"),
    "hopper": lambda: gym_asset("hopper.xml"),
}


def euler(path: str, folder: str) -> str:
    """The model file itself, or where it asks for RK4 a copy in ``folder`` with Euler (the
    Gymnasium models read no other files)."""
    with open(path) as f:
        xml = f.read()
    changed = re.sub(r'integrator="RK4"', 'integrator="Euler"', xml)
    if changed == xml:
        return path
    copy = os.path.join(folder, os.path.basename(path))
    with open(copy, "w") as f:
        f.write(changed)
    return copy


def states(path: str, n: int, seed: int) -> tuple[zwang.Simulator, np.ndarray, np.ndarray]:
    """A one-thread simulator of n instances after 200 steps under random controls, and its
    qpos and qvel."""
    model = zwang.load(path)
    sim = zwang.Simulator(model, instances=n, threads=1)
    rng = np.random.default_rng(seed)
    lo, hi = np.asarray(model.actuator_ctrlrange).reshape(-1, 2).T
    for _ in range(20):
        sim.ctrl[...] = rng.uniform(lo, hi, (n, model.nu))
        sim.step(10)
    assert not np.any(np.asarray(sim.status)), "an instance stopped while setting up"
    return sim, np.asarray(sim.qpos).copy(), np.asarray(sim.qvel).copy()


def measure(path: str, n: int, rounds: int, seed: int) -> dict[str, float]:
    """Jacobians per second of zwang and of MuJoCo's centred and forward differences."""
    sim, qpos, qvel = states(path, n, seed)
    ctrl = np.asarray(sim.ctrl).copy()
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    nx = 2 * m.nv + m.na
    A, B = np.zeros((nx, nx)), np.zeros((nx, m.nu))
    C, D = np.zeros((m.nsensordata, nx)), np.zeros((m.nsensordata, m.nu))

    def run_mujoco(centred: int) -> None:
        for i in range(n):
            d.qpos[:] = qpos[i]
            d.qvel[:] = qvel[i]
            d.ctrl[:] = ctrl[i]
            mujoco.mjd_transitionFD(m, d, 1e-6, centred, A, B, C, D)

    runs = {
        "zwang": sim.step_jacobians,
        "centred": lambda: run_mujoco(1),
        "forward": lambda: run_mujoco(0),
    }
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(rounds):
        for key, run in runs.items():
            t0 = time.perf_counter()
            run()
            best[key] = min(best[key], time.perf_counter() - t0)
    return {k: n / t for k, t in best.items()} | {"nv": m.nv, "nu": m.nu}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--instances", type=int, default=64)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--models", default=",".join(MODELS))
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    print(f"zwang {zwang.__version__}, MuJoCo {mujoco.__version__}; one thread, float64")
    print(
        "| model | nv | nu | zwang (Jacobians/s) | MuJoCo centred | MuJoCo forward "
        "| zwang / centred | zwang / forward |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    folder = tempfile.mkdtemp()
    for name in a.models.split(","):
        rate = measure(euler(MODELS[name](), folder), a.instances, a.rounds, a.seed)
        print(
            f"| {name} | {rate['nv']} | {rate['nu']} | {rate['zwang']:.3g} | "
            f"{rate['centred']:.3g} | {rate['forward']:.3g} | "
            f"{rate['zwang'] / rate['centred']:.2f} | {rate['zwang'] / rate['forward']:.2f} |"
        )


if __name__ == "__main__":
    main()
