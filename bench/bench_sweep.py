"""The cost of running zwang.sweep over an executor: the same sweep (humanoid.xml with contacts,
drawn masses, qpos recorded every 50 steps) in one process, and in chunks on a Dask LocalCluster
of 1 and 2 single-threaded workers, in instance-steps per second (best of the rounds, the
configurations alternating round by round).

    python bench/bench_sweep.py [--instances 2048] [--steps 500] [--chunk 256] [--rounds 3]
"""

import argparse
import time

import zwang

HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--instances", type=int, default=2048)
    p.add_argument("--steps", type=int, default=500)
    p.add_argument("--chunk", type=int, default=256)
    p.add_argument("--rounds", type=int, default=3)
    a = p.parse_args()
    from distributed import Client, LocalCluster

    def sweep(**kw):
        return zwang.sweep(
            HUMANOID,
            "body_mass=0.8:1.2",
            instances=a.instances,
            steps=a.steps,
            every=50,
            record=["qpos"],
            seed=1,
            progress=False,
            **kw,
        )

    clusters = {
        k: LocalCluster(n_workers=k, threads_per_worker=1, processes=True, dashboard_address=None)
        for k in (1, 2)
    }
    clients = {k: Client(c) for k, c in clusters.items()}
    configs = {
        "one process, 1 thread": lambda: sweep(threads=1),
        "one process, 2 threads": lambda: sweep(threads=2),
        "Dask, 1 worker": lambda: sweep(
            threads=1, executor=clients[1].get_executor(), chunk=a.chunk
        ),
        "Dask, 2 workers": lambda: sweep(
            threads=1, executor=clients[2].get_executor(), chunk=a.chunk
        ),
    }
    for run in configs.values():  # warm: the workers import zwang and load the model once
        run()
    best = {name: float("inf") for name in configs}
    for _ in range(a.rounds):
        for name, run in configs.items():
            t0 = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - t0)
    work = a.instances * a.steps
    base = work / best["one process, 1 thread"]
    print("| configuration | instance-steps/s | / one process, 1 thread |")
    print("| --- | ---: | ---: |")
    for name, seconds in best.items():
        print(f"| {name} | {work / seconds:.3g} | {work / seconds / base:.2f} |")
    for c in clients.values():
        c.close()
    for c in clusters.values():
        c.close()


if __name__ == "__main__":
    main()
