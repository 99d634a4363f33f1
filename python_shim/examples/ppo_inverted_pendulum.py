"""PPO on InvertedPendulum-v5 with a numpy policy: no deep-learning framework.

    python ppo_inverted_pendulum.py  # trains until solved, writes ppo_curve.{csv,png}
    python ppo_inverted_pendulum.py --quick         # two short iterations, for a smoke test

Policy: a Gaussian whose mean is a tanh MLP of the observation (4 -> 32 -> 1) and whose log
standard deviation is one learned number; value: a tanh MLP (4 -> 64 -> 1).  Both are trained
with the clipped PPO objective, GAE(λ) advantages and Adam, every gradient written out below.
Solved means Gymnasium's reward threshold for the task: a mean return of 950 over episodes of
up to 1000 steps, measured with the mean action on fresh envs.
"""

from __future__ import annotations

import argparse
import csv
import time

import numpy as np
import zwang.gym


class MLP:
    """y = W2 tanh(W1 x + b1) + b2, with its gradient by hand."""

    def __init__(
        self, sizes: tuple[int, int, int], rng: np.random.Generator, out_scale: float = 1.0
    ) -> None:
        n_in, n_hidden, n_out = sizes
        self.params = [
            rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_hidden)),
            np.zeros(n_hidden),
            rng.normal(0, out_scale / np.sqrt(n_hidden), (n_hidden, n_out)),
            np.zeros(n_out),
        ]

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, tuple]:
        w1, b1, w2, b2 = self.params
        h = np.tanh(x @ w1 + b1)
        return h @ w2 + b2, (x, h)

    def backward(self, cache: tuple, dy: np.ndarray) -> list[np.ndarray]:
        """Gradients of the loss with respect to the parameters, given dloss/dy."""
        x, h = cache
        w2 = self.params[2]
        # through tanh: d(tanh z)/dz = 1 - tanh² z
        dz = (dy @ w2.T) * (1 - h**2)
        return [x.T @ dz, dz.sum(axis=0), h.T @ dy, dy.sum(axis=0)]


class Adam:
    """Adam over a list of arrays, updated in place."""

    def __init__(self, params: list[np.ndarray], lr: float, betas=(0.9, 0.999), eps=1e-8) -> None:
        self.params, self.lr, self.betas, self.eps = params, lr, betas, eps
        self.m = [np.zeros_like(p) for p in params]
        self.v = [np.zeros_like(p) for p in params]
        self.t = 0

    def step(self, grads: list[np.ndarray], max_norm: float = 0.5) -> None:
        # clip the global gradient norm, then the bias-corrected moment update
        norm = np.sqrt(sum(float(np.sum(g * g)) for g in grads))
        scale = min(1.0, max_norm / (norm + 1e-12))
        self.t += 1
        b1, b2 = self.betas
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            g = g * scale
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= self.lr * (m / (1 - b1**self.t)) / (np.sqrt(v / (1 - b2**self.t)) + self.eps)


class Policy:
    """Gaussian policy: mean from an MLP, one log standard deviation per action."""

    def __init__(self, n_obs: int, n_act: int, rng: np.random.Generator) -> None:
        self.mean = MLP((n_obs, 32, n_act), rng, out_scale=0.01)
        self.log_std = np.full(n_act, -0.5)

    @property
    def params(self) -> list[np.ndarray]:
        return [*self.mean.params, self.log_std]

    def sample(self, obs: np.ndarray, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        mu, _ = self.mean.forward(obs)
        act = mu + np.exp(self.log_std) * rng.standard_normal(mu.shape)
        return act, self.log_prob(mu, act)

    def log_prob(self, mu: np.ndarray, act: np.ndarray) -> np.ndarray:
        # log N(a; μ, σ²) summed over the action's components
        z = (act - mu) / np.exp(self.log_std)
        return (-0.5 * z**2 - self.log_std - 0.5 * np.log(2 * np.pi)).sum(axis=1)


def gae(rewards, values, next_values, terminated, ended, valid, gamma, lam):
    """GAE(λ) advantages over a (T, N) rollout.

    δ_t = r_t + γ V(s_{t+1}) (1 - terminated_t) - V(s_t); A_t = δ_t + γ λ (1 - ended_t) A_{t+1}.
    ``ended`` (terminated or truncated) stops the sum at an episode's end; rows that are not
    ``valid`` (the autoreset step after an end) carry no advantage.
    """
    adv = np.zeros_like(rewards)
    last = np.zeros(rewards.shape[1])
    for t in reversed(range(rewards.shape[0])):
        delta = rewards[t] + gamma * next_values[t] * (1 - terminated[t]) - values[t]
        last = np.where(valid[t], delta + gamma * lam * (1 - ended[t]) * last, 0.0)
        adv[t] = last
    return adv


def evaluate(policy: Policy, num_envs: int, seed: int, max_steps: int) -> float:
    """Mean return of the mean action over one episode of each of num_envs fresh envs."""
    env = zwang.gym.make_vec(
        "InvertedPendulum-v5",
        num_envs,
        max_episode_steps=max_steps,
        autoreset_mode="Disabled",
        threads=1,
    )
    obs, _ = env.reset(seed=seed)
    total = np.zeros(num_envs)
    alive = np.ones(num_envs, dtype=bool)
    while alive.any():
        mu, _ = policy.mean.forward(obs)
        obs, reward, terminated, truncated, _ = env.step(mu)
        total += reward * alive
        alive &= ~(terminated | truncated)
        if alive.any() and (terminated | truncated).any():
            # ended envs are not stepped again: mark them reset so the batch goes on
            env.reset(options={"reset_mask": terminated | truncated})
    return float(total.mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--num-envs", type=int, default=32)
    parser.add_argument("--horizon", type=int, default=256, help="steps per env per iteration")
    parser.add_argument("--iterations", type=int, default=60, help="at most")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--minibatch", type=int, default=512)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="ppo_curve", help="prefix of the CSV and PNG written")
    parser.add_argument("--quick", action="store_true", help="2 iterations of 8 envs x 32 steps")
    args = parser.parse_args()
    if args.quick:
        args.num_envs, args.horizon, args.iterations, args.minibatch = 8, 32, 2, 64
    eval_steps = 100 if args.quick else 1000
    gamma, lam, clip, ent_coef, threshold = 0.99, 0.95, 0.2, 0.0, 950.0

    rng = np.random.default_rng(args.seed)
    env = zwang.gym.make_vec("InvertedPendulum-v5", args.num_envs, threads=1)
    n, n_obs = env.num_envs, env.single_observation_space.shape[0]
    n_act = env.single_action_space.shape[0]
    low, high = env.single_action_space.low, env.single_action_space.high
    policy, value = Policy(n_obs, n_act, rng), MLP((n_obs, 64, 1), rng)
    pi_opt, v_opt = Adam(policy.params, args.lr), Adam(value.params, 1e-3)

    obs, _ = env.reset(seed=args.seed)
    valid_next = np.ones(n, dtype=bool)
    episode_return, finished = np.zeros(n), []
    rows, start, env_steps = [], time.perf_counter(), 0
    for it in range(args.iterations):
        T = args.horizon
        buf_obs = np.zeros((T, n, n_obs))
        buf_act, buf_logp = np.zeros((T, n, n_act)), np.zeros((T, n))
        buf_rew, buf_next = np.zeros((T, n)), np.zeros((T, n, n_obs))
        buf_term, buf_end = np.zeros((T, n)), np.zeros((T, n))
        buf_valid = np.zeros((T, n), dtype=bool)
        for t in range(T):
            act, logp = policy.sample(obs, rng)
            next_obs, reward, terminated, truncated, _ = env.step(np.clip(act, low, high))
            buf_obs[t], buf_act[t], buf_logp[t], buf_rew[t] = obs, act, logp, reward
            buf_next[t], buf_term[t] = next_obs, terminated
            buf_end[t], buf_valid[t] = terminated | truncated, valid_next
            # returns of finished episodes; the step after an end is the autoreset
            episode_return += reward * valid_next
            ended = (terminated | truncated) & valid_next
            finished.extend(episode_return[ended].tolist())
            episode_return[ended] = 0
            valid_next = ~(terminated | truncated)
            obs = next_obs
        env_steps += T * n

        values = value.forward(buf_obs.reshape(-1, n_obs))[0].reshape(T, n)
        next_values = value.forward(buf_next.reshape(-1, n_obs))[0].reshape(T, n)
        adv = gae(buf_rew, values, next_values, buf_term, buf_end, buf_valid, gamma, lam)
        ret = adv + values
        keep = buf_valid.reshape(-1)
        x, a = buf_obs.reshape(-1, n_obs)[keep], buf_act.reshape(-1, n_act)[keep]
        logp_old, adv_f, ret_f = (
            buf_logp.reshape(-1)[keep],
            adv.reshape(-1)[keep],
            ret.reshape(-1)[keep],
        )

        for _ in range(args.epochs):
            order = rng.permutation(x.shape[0])
            for lo in range(0, order.size, args.minibatch):
                idx = order[lo : lo + args.minibatch]
                b = idx.size
                mb_adv = (adv_f[idx] - adv_f[idx].mean()) / (adv_f[idx].std() + 1e-8)
                mu, cache = policy.mean.forward(x[idx])
                ratio = np.exp(policy.log_prob(mu, a[idx]) - logp_old[idx])
                # d/d log π of -min(r A, clip(r) A): -r A where the unclipped term is the min
                clipped = ((mb_adv > 0) & (ratio > 1 + clip)) | ((mb_adv < 0) & (ratio < 1 - clip))
                g_logp = np.where(clipped, 0.0, -ratio * mb_adv) / b
                var = np.exp(2 * policy.log_std)
                diff = a[idx] - mu
                # d log π/dμ = (a - μ)/σ², d log π/d log σ = (a - μ)²/σ² - 1, entropy' = 1
                d_mu = g_logp[:, None] * diff / var
                d_log_std = (g_logp[:, None] * (diff**2 / var - 1)).sum(axis=0) - ent_coef
                pi_opt.step([*policy.mean.backward(cache, d_mu), d_log_std])
                v, v_cache = value.forward(x[idx])
                v_opt.step(value.backward(v_cache, (v - ret_f[idx, None]) / b))

        recent = float(np.mean(finished[-50:])) if finished else float("nan")
        score = evaluate(policy, 8 if args.quick else 16, 10_000 + it, eval_steps)
        elapsed = time.perf_counter() - start
        rows.append((it + 1, env_steps, round(elapsed, 2), recent, score))
        print(
            f"iter {it + 1:3d}  env steps {env_steps:7d}  {elapsed:6.1f} s  "
            f"train return {recent:7.1f}  eval return {score:7.1f}",
            flush=True,
        )
        if not args.quick and score >= threshold:
            print(f"solved: mean return {score:.1f} >= {threshold:g} in {elapsed:.1f} s")
            break

    with open(args.out + ".csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["iteration", "env_steps", "seconds", "train_return", "eval_return"])
        writer.writerows(rows)
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: wrote the CSV only")
        return
    data = np.array(rows, dtype=float)
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(data[:, 1], data[:, 3], label="training episodes (last 50)")
    ax.plot(data[:, 1], data[:, 4], label="mean action, fresh envs")
    ax.axhline(threshold, color="gray", ls="--", label="reward threshold 950")
    ax.set_xlabel("env steps")
    ax.set_ylabel("episode return")
    ax.set_title("PPO (numpy) on zwang InvertedPendulum-v5")
    ax.legend()
    fig.tight_layout()
    fig.savefig(args.out + ".png", dpi=120)
    print(f"wrote {args.out}.csv and {args.out}.png")


if __name__ == "__main__":
    main()
