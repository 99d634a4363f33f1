"""GPU against CPU with contacts, and contact throughput, through `zwang run` (bench/README.md).

    python3 gpu_check.py BUNDLE_DIR

For each model in BUNDLE_DIR/models: the same rollout (seed, initial noise, random controls) on
the CUDA and the CPU backend, f64 and f32, recorded every step; prints the largest difference
in qpos after 1, 2, 5, 10, 20 and 50 steps (contact dynamics are chaotic: differences of
rounding grow with time, so the early records are the check) and whether the contact counts
agree. Then instance-steps per second of both backends at 65536 instances (ant, humanoid).
"""

import os
import re
import subprocess
import sys
import tempfile

import h5py
import numpy as np


def run(zwang, model, out, backend, precision, n, steps, every, threads):
    cmd = [
        zwang,
        "run",
        model,
        "-n",
        str(n),
        "-t",
        str(steps),
        "--backend",
        backend,
        "--precision",
        precision,
        "--seed",
        "7",
        "--ctrl",
        "random",
        "--record-every",
        str(every),
        "--threads",
        str(threads),
        "--no-progress",
    ]
    if out:
        cmd += ["-o", out]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        print(" ".join(cmd), "failed:", p.returncode, p.stderr[-2000:])
        return None
    m = re.search(r"([0-9.e+]+) instance-steps/s", p.stdout)
    return float(m.group(1)) if m else None


def main():
    here = sys.argv[1]
    scratch = tempfile.mkdtemp()
    zwang = os.path.join(here, "bin", "zwang")
    models = sorted(os.listdir(os.path.join(here, "models")))
    threads = os.cpu_count()
    for name in models:
        path = os.path.join(here, "models", name)
        for precision in ("f64", "f32"):
            files = {}
            for backend in ("cuda", "cpu"):
                files[backend] = os.path.join(scratch, f"{name}.{precision}.{backend}.h5")
                run(zwang, path, files[backend], backend, precision, 1024, 50, 1, threads)
            if not all(os.path.exists(f) for f in files.values()):
                continue
            with h5py.File(files["cuda"]) as g, h5py.File(files["cpu"]) as c:
                q_g, q_c = g["qpos"][...], c["qpos"][...]
                n_g, n_c = g["ncon"][...], c["ncon"][...]
                errs = [float(np.nanmax(np.abs(q_g[r] - q_c[r]))) for r in (1, 2, 5, 10, 20, 50)]
                same_ncon = [float(np.mean(n_g[r] == n_c[r])) for r in (1, 10, 50)]
                print(
                    f"{name} {precision}: max |qpos gpu - cpu| after 1,2,5,10,20,50 steps "
                    + " ".join(f"{e:.2e}" for e in errs)
                    + f"; ncon equal in {same_ncon} of instances; mean ncon "
                    f"{n_g[50].mean():.2f} / {n_c[50].mean():.2f}; nan gpu "
                    f"{int(np.isnan(q_g[50]).any(axis=1).sum())}",
                    flush=True,
                )
            for f in files.values():
                os.remove(f)
    for name in ("ant.xml", "humanoid.xml"):
        path = os.path.join(here, "models", name)
        for precision in ("f32", "f64"):
            gpu = run(zwang, path, None, "cuda", precision, 65536, 100, 100, threads)
            cpu = run(zwang, path, None, "cpu", precision, 65536, 10, 10, threads)
            print(
                f"{name} {precision} 65536 instances: cuda {gpu} cpu ({threads} threads) {cpu} "
                "instance-steps/s",
                flush=True,
            )


if __name__ == "__main__":
    main()
