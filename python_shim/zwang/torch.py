"""A zwang step as a PyTorch autograd function, differentiated by ``Simulator.step_jacobians``.

    import torch, zwang, zwang.torch
    sim = zwang.Simulator(zwang.load("inverted_double_pendulum.xml"), instances=64)
    qpos, qvel, act = ..., ..., ...                 # (64, nq), (64, nv), (64, na) float64
    for t in range(50):
        qpos, qvel, act = zwang.torch.step(sim, qpos, qvel, ctrl[t], act)
    loss(qpos, qvel).backward()                      # gradients reach ctrl (and the start)

The forward pass puts every instance at the given state and controls and steps it once (the
simulator is left there, as after ``sim.step()``); the backward pass multiplies by the step's
exact Jacobians (A and B of ``step_jacobians``, computed in the forward pass).  A ball or free
joint's quaternion is differentiated on the unit sphere: its component along q is ignored (the
kinematics normalise it); pass unit quaternions, as every state the simulator makes has.
Tensors are float64 on the CPU or on a GPU; the Jacobians are computed on the host.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import zwang

__all__ = ["step", "tangent_maps"]


def tangent_maps(model: zwang.Model, qpos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P, P⁺) at each configuration of ``qpos`` (n, nq): P (n, nq, nv) maps a tangent δ to
    the change of qpos it makes (a rotation's ½ q ⊗ (0, δ)), P⁺ (n, nv, nq) a change of qpos to
    its tangent (2 vec(q̄ ⊗ dq) / |q|², 0 along q), P⁺ P = 1."""
    qpos = np.asarray(qpos, dtype=np.float64)
    n, nq, nv = qpos.shape[0], int(model.nq), int(model.nv)
    P = np.zeros((n, nq, nv))
    Pinv = np.zeros((n, nv, nq))
    types = np.asarray(model.jnt_type).tolist()
    qadr, dadr = np.asarray(model.jnt_qposadr), np.asarray(model.jnt_dofadr)
    for j, jtype in enumerate(types):
        qa, da = int(qadr[j]), int(dadr[j])
        linear = {0: 3, 1: 0}.get(int(jtype), 1)
        for r in range(linear):
            P[:, qa + r, da + r] = 1
            Pinv[:, da + r, qa + r] = 1
        if linear == 1:
            continue
        qa, da = qa + linear, da + linear
        w, x, y, z = (qpos[:, qa + k] for k in range(4))
        # q ⊗ (0, e_k) for k = x, y, z: columns of the 4 × 3 matrix L(q)
        L = np.stack(
            [
                np.stack([-x, w, z, -y], axis=1),
                np.stack([-y, -z, w, x], axis=1),
                np.stack([-z, y, -x, w], axis=1),
            ],
            axis=2,
        )
        P[:, qa : qa + 4, da : da + 3] = 0.5 * L
        # vec(q̄ ⊗ dq) = L(q)ᵀ dq for a unit q (L's columns are orthonormal and ⊥ q)
        norm2 = (w * w + x * x + y * y + z * z)[:, None, None]
        Pinv[:, da : da + 3, qa : qa + 4] = 2 * np.swapaxes(L, 1, 2) / norm2
    return P, Pinv


class _Step(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, sim: zwang.Simulator, qpos, qvel, act, ctrl):  # noqa: D102
        model = sim.model
        host = [t.detach().to("cpu", torch.float64).numpy() for t in (qpos, qvel, act, ctrl)]
        sim.qpos[...] = host[0]
        sim.qvel[...] = host[1]
        if model.na:
            sim.act[...] = host[2]
        if model.nu:
            sim.ctrl[...] = host[3]
        jac = sim.step_jacobians()
        failed = np.flatnonzero(jac["status"] & ~zwang.STATUS_NOT_CONVERGED)
        if failed.size:
            raise RuntimeError(
                f"zwang.torch.step: instance {int(failed[0])} stopped "
                f"(status {int(jac['status'][failed[0]])}): its step has no derivative"
            )
        sim.step(1)
        _, Pinv = tangent_maps(model, host[0])
        P, _ = tangent_maps(model, jac["qpos"])
        ctx.saved = (jac["A"], jac["B"], P, Pinv, int(model.nv), qpos.device)
        like = dict(dtype=torch.float64, device=qpos.device)
        return (
            torch.as_tensor(jac["qpos"], **like),
            torch.as_tensor(jac["qvel"], **like),
            torch.as_tensor(jac["act"], **like),
        )

    @staticmethod
    def backward(ctx: Any, g_qpos, g_qvel, g_act):  # noqa: D102
        A, B, P, Pinv, nv, device = ctx.saved
        g = [t.detach().to("cpu", torch.float64).numpy() for t in (g_qpos, g_qvel, g_act)]
        # the cotangent of x⁺ = (δ⁺, qvel⁺, act⁺), then of x and ctrl
        g_next = np.concatenate([np.einsum("nqv,nq->nv", P, g[0]), g[1], g[2]], axis=1)
        g_x = np.einsum("nij,ni->nj", A, g_next)
        g_ctrl = np.einsum("nij,ni->nj", B, g_next)
        g_qpos_in = np.einsum("nvq,nv->nq", Pinv, g_x[:, :nv])
        like = dict(dtype=torch.float64, device=device)
        return (
            None,
            torch.as_tensor(g_qpos_in, **like),
            torch.as_tensor(g_x[:, nv : 2 * nv], **like),
            torch.as_tensor(g_x[:, 2 * nv :], **like),
            torch.as_tensor(g_ctrl, **like),
        )


def step(sim: zwang.Simulator, qpos, qvel, ctrl, act=None):
    """One step of every instance of ``sim`` from (qpos (N, nq), qvel (N, nv), act (N, na))
    under ctrl (N, nu), differentiable in all four: returns (qpos⁺, qvel⁺, act⁺) as float64
    tensors on qpos's device.  ``act=None`` takes the simulator's current activations, as a
    constant (pass act⁺ back in to differentiate through them).  The simulator is left at the
    step's result.  RuntimeError naming the instance when one stops (a non-finite state, a
    failed factorisation)."""
    n, model = int(sim.instances), sim.model
    qpos = torch.as_tensor(qpos, dtype=torch.float64)
    like = dict(dtype=torch.float64, device=qpos.device)
    qvel = torch.as_tensor(qvel, **like)
    ctrl = torch.as_tensor(ctrl, **like)
    if act is None:
        act = torch.as_tensor(np.array(sim.act, dtype=np.float64).reshape(n, -1), **like)
    act = torch.as_tensor(act, **like)
    for name, t, width in (
        ("qpos", qpos, model.nq),
        ("qvel", qvel, model.nv),
        ("act", act, model.na),
        ("ctrl", ctrl, model.nu),
    ):
        if tuple(t.shape) != (n, int(width)):
            raise ValueError(f"{name} must have shape ({n}, {int(width)}), got {tuple(t.shape)}")
    return _Step.apply(sim, qpos, qvel, act, ctrl)
