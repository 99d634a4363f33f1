"""Random-action rollouts on several GPUs under torchrun: one zwang simulator per process.

    torchrun --nproc-per-node 4 multi_gpu_rollout.py --env Ant-v5 --num-envs 4096
    torchrun --nproc-per-node 2 multi_gpu_rollout.py --backend cpu     # no GPU: gloo, CPU threads
    torchrun --nnodes 2 --nproc-per-node 8 --rdzv-endpoint HOST:29500 multi_gpu_rollout.py

Each process (rank) builds ``zwang.gym.make_vec(env, num_envs, array="torch")`` on its own GPU
(``backend="cuda"``, ``device=LOCAL_RANK``) or on the CPU (``backend="cpu"``, the machine's
cores shared out between the local ranks), seeded ``seed + rank``, and steps it with uniform
random actions drawn on its device by a ``torch.Generator`` of the same seed: observations,
rewards and resets never leave the device.  The ranks' results are gathered with
``torch.distributed`` (NCCL between GPUs, gloo between CPU processes) and rank 0 prints each
rank's env steps per second, their sum, and the mean reward per env step.

``--json PATH``: rank 0 also writes the per-rank results there.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import torch
import torch.distributed as dist
import zwang
import zwang.gym


def rollout(
    env_id: str,
    num_envs: int,
    steps: int,
    seed: int,
    backend: str,
    device: int,
    threads: int,
) -> dict:
    """One rank's rollout: env steps, seconds, and the summed reward and episode count."""
    env = zwang.gym.make_vec(
        env_id,
        num_envs,
        backend=backend,
        device=device,
        threads=threads,
        array="torch",
        outputs="task",
    )
    place = env.arrays.device
    generator = torch.Generator(device=place).manual_seed(seed)
    low = torch.as_tensor(env.single_action_space.low, dtype=torch.float64, device=place)
    high = torch.as_tensor(env.single_action_space.high, dtype=torch.float64, device=place)
    env.reset(seed=seed)
    total = torch.zeros((), dtype=torch.float64, device=place)
    episodes = torch.zeros((), dtype=torch.int64, device=place)
    start = time.perf_counter()
    for _ in range(steps):
        u = torch.rand((num_envs, len(low)), generator=generator, dtype=torch.float64, device=place)
        _, reward, terminated, truncated, _ = env.step(low + (high - low) * u)
        total += reward.sum()
        episodes += (terminated | truncated).sum()
    if place.type == "cuda":
        torch.cuda.synchronize(place)
    seconds = time.perf_counter() - start
    env.close()
    return {
        "device": str(place),
        "env_steps": num_envs * steps,
        "seconds": seconds,
        "reward_sum": float(total),
        "episodes": int(episodes),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="Ant-v5", help="a v5 task id")
    parser.add_argument("--num-envs", type=int, default=4096, help="envs per rank")
    parser.add_argument("--steps", type=int, default=200, help="env steps")
    parser.add_argument("--seed", type=int, default=0, help="rank r uses seed + r")
    parser.add_argument(
        "--backend",
        choices=("auto", "cuda", "cpu"),
        default="auto",
        help="auto: cuda when zwang sees a device, else cpu",
    )
    parser.add_argument("--json", help="rank 0 writes the per-rank results to this file")
    parser.add_argument("--quick", action="store_true", help="16 envs, 10 steps")
    args = parser.parse_args()
    if args.quick:
        args.num_envs, args.steps = 16, 10

    backend = args.backend
    if backend == "auto":
        backend = "cuda" if zwang.cuda_status()[0] > 0 else "cpu"
    dist.init_process_group("nccl" if backend == "cuda" else "gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
    if backend == "cuda":
        torch.cuda.set_device(local_rank)
    # the CPU's cores shared out between the ranks on this machine
    threads = max(1, (os.cpu_count() or 1) // local_world) if backend == "cpu" else 0
    result = rollout(
        args.env, args.num_envs, args.steps, args.seed + rank, backend, local_rank, threads
    )
    result.update(rank=rank, seed=args.seed + rank)
    results: list = [None] * world
    dist.all_gather_object(results, result)
    if rank == 0:
        rate = sum(r["env_steps"] / r["seconds"] for r in results)
        episodes = sum(r["episodes"] for r in results)
        reward = sum(r["reward_sum"] for r in results)
        for r in results:
            print(
                f"rank {r['rank']} on {r['device']}: {r['env_steps'] / r['seconds']:.4g} env "
                f"steps/s, {r['episodes']} episodes ended"
            )
        print(f"{world} ranks: {rate:.4g} env steps/s in all ({args.env}, {backend})")
        print(f"reward per env step: {reward / sum(r['env_steps'] for r in results):.6g}")
        if episodes:
            print(f"{episodes} episodes ended")
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"world": world, "env_steps_per_s": rate, "ranks": results}, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
