"""A Monte Carlo sweep of a pendulum's length and damping: period and decay against theory.

    python pendulum_sweep.py                  # 1024 pendulums, 10 s each, writes pendulum_sweep.png
    python pendulum_sweep.py --quick          # 64 pendulums, 3 s, for a smoke test

The pendulum is a bob of mass m on a massless rod: one hinge, and a body whose centre of mass
sits a distance L below the hinge with a small inertia I_c about it.  For the dynamics, the
length *is* that centre-of-mass distance: a rigid body on a hinge moves by its mass, its centre
of mass and its inertia alone (geoms only add contacts and pictures; this model has none), so
sweeping ``body_ipos`` of the bob sweeps the length exactly, per instance, in one model.  The
inertia about the hinge is I = I_c + m L², and the linearised motion

    I θ̈ + b θ̇ + m g L θ = 0

has the decay rate σ = b / (2 I) and the period 2π / sqrt(ω₀² − σ²), ω₀² = m g L / I, which
the small-amplitude correction (1 + θ₀²/16) lengthens slightly.
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
import zwang
from zwang.sweep import sweep

MASS, I_C, G, THETA0 = 1.0, 1e-4, 9.81, 0.1

MJCF = f"""<mujoco model="swept pendulum">
  <option timestep="0.001" integrator="RK4" gravity="0 0 -{G}"/>
  <worldbody>
    <body name="bob">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <inertial pos="0 0 -1" mass="{MASS}" diaginertia="{I_C} {I_C} {I_C}"/>
    </body>
  </worldbody>
</mujoco>
"""


def measure(t: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Period (mean spacing of upward zero crossings) and decay rate (slope of log peak
    amplitude over time) of every column of theta (records x instances)."""
    n = theta.shape[1]
    period, decay = np.full(n, np.nan), np.full(n, np.nan)
    for i in range(n):
        x = theta[:, i]
        up = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
        # crossing times by linear interpolation between records
        tc = t[up] - x[up] * (t[up + 1] - t[up]) / (x[up + 1] - x[up])
        if tc.size >= 2:
            period[i] = np.mean(np.diff(tc))
        peaks = np.flatnonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:]) & (x[1:-1] > 0)) + 1
        if peaks.size >= 2:
            decay[i] = -np.polyfit(t[peaks], np.log(x[peaks]), 1)[0]
    return period, decay


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--instances", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="pendulum_sweep.png")
    parser.add_argument("--quick", action="store_true", help="64 pendulums for 3 s")
    args = parser.parse_args()
    if args.quick:
        args.instances, args.seconds = 64, 3.0

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pendulum.xml")
        with open(path, "w") as f:
            f.write(MJCF)
        model = zwang.load(path)
    bob = model.body_id("bob")
    steps = int(round(args.seconds / model.timestep))
    result = sweep(
        model,
        params={
            f"body_ipos[{bob},2]": ("uniform", -2.0, -0.25),  # L from 0.25 m to 2 m
            "dof_damping[0]": ("uniform", 0.0, 0.05),
        },  # b in N m s
        instances=args.instances,
        steps=steps,
        record=["qpos"],
        every=5,
        seed=args.seed,
        qpos=np.array([THETA0]),
    )

    length = -result.params[f"body_ipos[{bob},2]"]
    damping = result.params["dof_damping[0]"]
    period, decay = measure(result.time, result.records["qpos"][:, :, 0])

    inertia = I_C + MASS * length**2
    sigma = damping / (2 * inertia)
    omega0_sq = MASS * G * length / inertia
    period_theory = 2 * np.pi / np.sqrt(omega0_sq - sigma**2) * (1 + THETA0**2 / 16)
    err_period = np.nanmax(np.abs(period / period_theory - 1))
    err_decay = np.nanmax(np.abs(decay - sigma))
    print(f"{args.instances} pendulums, {steps} steps of {model.timestep:g} s, seed {args.seed}")
    print(f"  period: largest relative difference from theory {err_period:.2e}")
    print(
        f"  decay rate: largest difference from b/(2I) {err_decay:.2e} 1/s "
        f"(rates up to {np.nanmax(sigma):.3f} 1/s)"
    )

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot")
        return
    fig, (ax0, ax1, ax2) = plt.subplots(1, 3, figsize=(15, 4))
    # the swings over time, one line per pendulum, coloured by its damping
    result.plot("qpos[0]", color="dof_damping[0]", max_lines=100, ax=ax0)
    ax0.set_ylabel("angle (rad)")
    result.plot(period, x=length, label="period (s)", color="dof_damping[0]", ax=ax1)
    grid = np.linspace(length.min(), length.max(), 200)
    i_grid = I_C + MASS * grid**2
    ax1.plot(
        grid,
        2 * np.pi * np.sqrt(i_grid / (MASS * G * grid)) * (1 + THETA0**2 / 16),
        "k--",
        lw=1,
        label="theory, b = 0",
    )
    ax1.set_xlabel("length L (m)")
    ax1.legend()
    result.plot(decay, x=sigma, label="measured decay rate (1/s)", color="dof_damping[0]", ax=ax2)
    lim = [0, np.nanmax(sigma) * 1.05]
    ax2.plot(lim, lim, "k--", lw=1, label="measured = b / (2 I)")
    ax2.set_xlabel("theory b / (2 I) (1/s)")
    ax2.legend()
    fig.suptitle(f"zwang.sweep: {args.instances} pendulums, length and damping drawn per instance")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
