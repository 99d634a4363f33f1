"""A random-policy rollout of thousands of Gymnasium envs, against raw simulator stepping.

    python random_rollout.py                       # HalfCheetah-v5, 4096 envs, 200 env steps
    python random_rollout.py --env Ant-v5 --num-envs 1024
    python random_rollout.py --quick               # a few envs and steps, for a smoke test
    python random_rollout.py --all-outputs         # every simulator output kept current

Three timings of the same model and instances:

- env: ``zwang.gym.make_vec`` stepped with uniform random actions (the actions are drawn before
  the timed loop, so the time is the environment's, not the policy's);
- per call: ``sim.step(frame_skip)`` once per env step, the simulator calls the env makes,
  without observations or rewards;
- raw: one ``sim.step(steps * frame_skip)`` call.

The env layer's cost is env versus raw: observation and reward arithmetic in numpy, the copies
of the outputs, autoresets and the overhead of one simulator call per env step.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import zwang
import zwang.gym


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="HalfCheetah-v5", help="a v5 task id")
    parser.add_argument("--num-envs", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200, help="env steps")
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (0: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--quick", action="store_true", help="16 envs, 5 steps")
    parser.add_argument(
        "--all-outputs",
        action="store_true",
        help="keep every simulator output current, not only those the task reads",
    )
    args = parser.parse_args()
    if args.quick:
        args.num_envs, args.steps = 16, 5

    env = zwang.gym.make_vec(
        args.env, args.num_envs, threads=args.threads, outputs=None if args.all_outputs else "task"
    )
    n, fs = env.num_envs, env.frame_skip
    rng = np.random.default_rng(args.seed)
    space = env.single_action_space
    actions = rng.uniform(space.low, space.high, size=(args.steps, n, space.shape[0])).astype(
        np.float32
    )

    # env: a warm-up step outside the timing, then the timed loop
    env.reset(seed=args.seed)
    env.step(actions[0])
    episodes = 0
    start = time.perf_counter()
    for t in range(args.steps):
        _, _, terminated, truncated, _ = env.step(actions[t])
        episodes += int(np.count_nonzero(terminated | truncated))
    env_s = time.perf_counter() - start

    # per call and raw: a fresh simulator at the same initial states, keeping the same outputs
    sim = zwang.Simulator(
        env.model,
        instances=n,
        threads=args.threads,
        outputs=None if args.all_outputs else env.sim.outputs,
    )
    qpos0, qvel0 = np.array(env.sim.qpos), np.array(env.sim.qvel)
    sim.reset(qpos=qpos0, qvel=qvel0)
    sim.ctrl[...] = actions[0]
    sim.step(fs)
    start = time.perf_counter()
    for _ in range(args.steps):
        sim.step(fs)
    call_s = time.perf_counter() - start

    sim.reset(qpos=qpos0, qvel=qvel0)
    start = time.perf_counter()
    sim.step(args.steps * fs)
    raw_s = time.perf_counter() - start

    sim_steps = n * args.steps * fs
    print(
        f"{args.env}: {n} envs x {args.steps} env steps x frame_skip {fs} "
        f"({env.model.timestep:g} s timestep), {episodes} episodes ended; outputs kept: "
        f"{'all' if args.all_outputs else ', '.join(env.sim.outputs) or 'none'}"
    )
    for label, seconds in (
        ("env (zwang.gym)", env_s),
        ("per call (sim.step per env step)", call_s),
        ("raw (one sim.step call)", raw_s),
    ):
        print(
            f"  {label:34s} {seconds:8.3f} s  {n * args.steps / seconds:12,.0f} env steps/s  "
            f"{sim_steps / seconds:12,.0f} simulator steps/s"
        )
    print(
        f"  env layer over raw stepping: {100 * (env_s / raw_s - 1):+.1f} %  "
        f"(over one call per env step: {100 * (env_s / call_s - 1):+.1f} %)"
    )


if __name__ == "__main__":
    main()
