"""Env steps per second of zwang.gym's vector environments with numpy arrays and with torch
tensors (``array="torch"``), the same task, envs and actions, the two alternating round by round
(best of the rounds, after a warm-up).

    python bench/bench_envs.py [--envs Ant-v5,Humanoid-v5] [--num-envs 1024] [--steps 100]
                               [--backend cpu|cuda] [--threads 0] [--rounds 3]

The actions are drawn before the timed loop (numpy arrays for the numpy environment, tensors on
the simulator's device for the torch one), so the time is the environment's.  Each environment
keeps only the outputs its task reads (``outputs="task"``).
"""

import argparse
import time
import warnings

import numpy as np
import torch
import zwang.gym


def rate(env, actions, backend: str) -> float:
    """Env steps per second of ``env`` stepped through ``actions`` from a reset."""
    env.reset(seed=0)
    if backend == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    for action in actions:
        env.step(action)
    if backend == "cuda":
        torch.cuda.synchronize()
    return env.num_envs * len(actions) / (time.perf_counter() - start)


def compare(env_id: str, n: int, a: argparse.Namespace) -> dict[str, float]:
    """Best rates of the numpy and torch environments of a task, alternating round by round."""
    envs = {}
    for kind in ("numpy", "torch"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            envs[kind] = zwang.gym.make_vec(
                env_id,
                n,
                array=kind,
                backend=a.backend,
                precision=a.precision,
                threads=a.threads,
                outputs="task",
            )
    space = envs["numpy"].single_action_space
    rng = np.random.default_rng(0)
    actions = rng.uniform(space.low, space.high, size=(a.steps, n, space.shape[0]))
    inputs = {
        "numpy": list(actions),
        "torch": list(torch.from_numpy(actions).to(envs["torch"].arrays.device)),
    }
    for kind, env in envs.items():  # warm-up
        rate(env, inputs[kind], a.backend)
    best = dict.fromkeys(envs, 0.0)
    for _ in range(a.rounds):
        for kind, env in envs.items():
            best[kind] = max(best[kind], rate(env, inputs[kind], a.backend))
    for env in envs.values():
        env.close()
    return best


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", default="Ant-v5,Humanoid-v5", help="v5 task ids, comma-separated")
    p.add_argument("--num-envs", default="1024", help="env counts, comma-separated")
    p.add_argument("--steps", type=int, default=100, help="env steps per round")
    p.add_argument("--backend", default="cpu", choices=("cpu", "cuda"))
    p.add_argument("--precision", default="f64", choices=("f64", "f32"))
    p.add_argument("--threads", type=int, default=0, help="CPU threads (0: all)")
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()

    print(f"backend {a.backend}, {a.precision}, threads {a.threads or 'all'}, {a.steps} steps")
    print("| task | envs | numpy env steps/s | torch env steps/s | torch / numpy |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for env_id in a.envs.split(","):
        for n in (int(k) for k in a.num_envs.split(",")):
            best = compare(env_id, n, a)
            ratio = best["torch"] / best["numpy"]
            print(f"| {env_id} | {n} | {best['numpy']:.3g} | {best['torch']:.3g} | {ratio:.2f} |")


if __name__ == "__main__":
    main()
