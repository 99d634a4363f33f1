"""Fitting a link mass and a joint damping to a recorded trajectory, by gradient descent through
the simulation.

    python fit_parameters.py            # 16 starting guesses at once, a 2 s trajectory
    python fit_parameters.py --quick    # 4 guesses, 0.6 s, for a smoke test

A double pendulum swings freely from a tilted start.  Its "recorded" trajectory is simulated
with the true parameters (the lower link's mass and the damping of both hinges); the fit
starts from wrong guesses, one per instance, all fitted at once in one batch, and minimises the
squared angle error along the trajectory with L-BFGS.  The gradient of that loss with respect to
the parameters comes from ``zwang.torch.step``: each step's exact Jacobians (``A`` for the
state, ``E`` for the parameters) are chained backwards through the rollout by PyTorch.  The
instances are independent, so the sum of their losses has each instance's gradient in its own
entries.
"""

from __future__ import annotations

import argparse
import os
import tempfile

import numpy as np
import torch
import zwang
import zwang.torch

MJCF = """<mujoco model="double pendulum">
  <option timestep="0.005" gravity="0 0 -9.81"/>
  <worldbody>
    <body name="upper">
      <joint name="shoulder" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.04" mass="1"/>
      <body name="lower" pos="0 0 -0.5">
        <joint name="elbow" type="hinge" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0 0 -0.4" size="0.03" mass="1"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

TRUE_MASS, TRUE_DAMPING = 0.7, 0.03
START = np.array([1.2, -0.6])  # the hinge angles (rad) the swing starts from


def rollout(sim, lower_mass, damping, steps, qpos0, qvel0):
    """The hinge angles at every step (steps, N, 2) with the lower link's mass (N,) and both
    hinges' damping (N,); the other masses stay the model's."""
    n = qpos0.shape[0]
    fixed = torch.as_tensor(np.asarray(sim.params.body_mass).copy(), dtype=torch.float64)
    mass = torch.cat([fixed[:, :2], lower_mass[:, None]], dim=1)
    params = {"body_mass": mass, "dof_damping": damping[:, None].expand(n, 2)}
    qpos, qvel, out = qpos0, qvel0, []
    for _ in range(steps):
        qpos, qvel, _ = zwang.torch.step(sim, qpos, qvel, torch.zeros(n, 0), params=params)
        out.append(qpos)
    return torch.stack(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guesses", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="4 guesses, 0.6 s")
    args = parser.parse_args()
    if args.quick:
        args.guesses, args.seconds = 4, 0.6

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "double_pendulum.xml")
        with open(path, "w") as f:
            f.write(MJCF)
        model = zwang.load(path)
    assert model.body_id("lower") == 2
    steps = int(round(args.seconds / model.timestep))
    n = args.guesses
    sim = zwang.Simulator(model, instances=n)
    qpos0 = torch.as_tensor(np.tile(START, (n, 1)), dtype=torch.float64)
    qvel0 = torch.zeros(n, 2, dtype=torch.float64)

    # the recording: every instance with the true parameters
    with torch.no_grad():
        recorded = rollout(
            sim,
            torch.full((n,), TRUE_MASS, dtype=torch.float64),
            torch.full((n,), TRUE_DAMPING, dtype=torch.float64),
            steps,
            qpos0,
            qvel0,
        )

    rng = np.random.default_rng(args.seed)
    # the guesses: log-parameters, so that the fit never proposes a negative mass or damping
    log_mass = torch.tensor(np.log(rng.uniform(0.3, 2.0, n)), requires_grad=True)
    log_damping = torch.tensor(np.log(rng.uniform(0.005, 0.2, n)), requires_grad=True)
    first = (float(np.exp(log_mass.detach()).mean()), float(np.exp(log_damping.detach()).mean()))
    optimizer = torch.optim.LBFGS(
        [log_mass, log_damping],
        lr=1,
        max_iter=60,
        tolerance_grad=1e-12,
        tolerance_change=1e-14,
        line_search_fn="strong_wolfe",
    )

    def closure():
        optimizer.zero_grad()
        angles = rollout(sim, log_mass.exp(), log_damping.exp(), steps, qpos0, qvel0)
        loss = ((angles - recorded) ** 2).mean(dim=(0, 2)).sum()
        loss.backward()
        return loss

    optimizer.step(closure)
    with torch.no_grad():
        angles = rollout(sim, log_mass.exp(), log_damping.exp(), steps, qpos0, qvel0)
        loss = ((angles - recorded) ** 2).mean(dim=(0, 2))
    mass = log_mass.detach().exp().numpy()
    damping = log_damping.detach().exp().numpy()
    print(f"{n} guesses, {steps} steps of {model.timestep:g} s")
    print(f"  start (mean guess): mass {first[0]:.4f} kg, damping {first[1]:.4f} N m s")
    print(f"  true: mass {TRUE_MASS} kg, damping {TRUE_DAMPING} N m s")
    print(f"  largest final loss (mean squared angle error, rad²) {float(loss.max()):.3e}")
    for i in range(n):
        print(f"  guess {i:2d}: mass {mass[i]:.6f} kg, damping {damping[i]:.6f} N m s")
    err = max(np.abs(mass / TRUE_MASS - 1).max(), np.abs(damping / TRUE_DAMPING - 1).max())
    print(f"largest relative error of the fitted parameters {err:.2e}")


if __name__ == "__main__":
    main()
