"""A zwang step as a PyTorch autograd function, differentiated by ``Simulator.step_jacobians``.

    import torch, zwang, zwang.torch
    sim = zwang.Simulator(zwang.load("inverted_double_pendulum.xml"), instances=64)
    qpos, qvel, act = ..., ..., ...                 # (64, nq), (64, nv), (64, na) float64
    for t in range(50):
        qpos, qvel, act = zwang.torch.step(sim, qpos, qvel, ctrl[t], act)
    loss(qpos, qvel).backward()                      # gradients reach ctrl (and the start)

    mass = torch.full((64, sim.model.nbody), 1.0, dtype=torch.float64, requires_grad=True)
    qpos, qvel, act = zwang.torch.step(sim, qpos, qvel, ctrl[0], act, params={"body_mass": mass})

The forward pass puts every instance at the given state, controls and parameters (``params``:
fields of ``sim.params`` by name, tensors of their shape) and steps it once (the simulator is
left there, as after ``sim.step()``, with those parameters); the backward pass multiplies by
the step's exact Jacobians (A, B and E of ``step_jacobians``, computed in the forward pass).
A ball or free
joint's quaternion is differentiated on the unit sphere: its component along q is ignored (the
kinematics normalise it); pass unit quaternions, as every state the simulator makes has.
Tensors are float64 on the CPU or on a GPU; the Jacobians are computed on the host.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

import zwang
from zwang._tangent import tangent_maps

__all__ = ["step", "tangent_maps"]


class _Step(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, sim: zwang.Simulator, qpos, qvel, act, ctrl, names, *params):  # noqa: D102
        model = sim.model
        host = _write(sim, qpos, qvel, act, ctrl, names, params)
        jac = sim.step_jacobians(params=list(names))
        _raise_stopped(jac["status"])
        sim.step(1)
        _, Pinv = tangent_maps(model, host[0])
        P, _ = tangent_maps(model, jac["qpos"])
        shapes = [tuple(t.shape) for t in params]
        ctx.saved = (jac["A"], jac["B"], jac["E"], shapes, P, Pinv, int(model.nv), qpos.device)
        like = dict(dtype=torch.float64, device=qpos.device)
        return (
            torch.as_tensor(jac["qpos"], **like),
            torch.as_tensor(jac["qvel"], **like),
            torch.as_tensor(jac["act"], **like),
        )

    @staticmethod
    def backward(ctx: Any, g_qpos, g_qvel, g_act):  # noqa: D102
        A, B, E, shapes, P, Pinv, nv, device = ctx.saved
        g = [t.detach().to("cpu", torch.float64).numpy() for t in (g_qpos, g_qvel, g_act)]
        # the cotangent of x⁺ = (δ⁺, qvel⁺, act⁺), then of x and ctrl
        g_next = np.concatenate([np.einsum("nqv,nq->nv", P, g[0]), g[1], g[2]], axis=1)
        g_x = np.einsum("nij,ni->nj", A, g_next)
        g_ctrl = np.einsum("nij,ni->nj", B, g_next)
        g_params = np.einsum("nij,ni->nj", E, g_next)
        g_qpos_in = np.einsum("nvq,nv->nq", Pinv, g_x[:, :nv])
        like = dict(dtype=torch.float64, device=device)
        # E's columns: each parameter field's elements, field after field
        per_field, first = [], 0
        for shape in shapes:
            size = int(np.prod(shape[1:], dtype=np.int64))
            part = g_params[:, first : first + size].reshape(shape)
            per_field.append(torch.as_tensor(part, **like))
            first += size
        return (
            None,
            torch.as_tensor(g_qpos_in, **like),
            torch.as_tensor(g_x[:, nv : 2 * nv], **like),
            torch.as_tensor(g_x[:, 2 * nv :], **like),
            torch.as_tensor(g_ctrl, **like),
            None,
            *per_field,
        )


def step(sim: zwang.Simulator, qpos, qvel, ctrl, act=None, params=None):
    """One step of every instance of ``sim`` from (qpos (N, nq), qvel (N, nv), act (N, na))
    under ctrl (N, nu), differentiable in all four: returns (qpos⁺, qvel⁺, act⁺) as float64
    tensors on qpos's device.  ``act=None`` takes the simulator's current activations, as a
    constant (pass act⁺ back in to differentiate through them).  ``params``: a dict of
    parameter fields (``sim.params``'s names, ``zwang.PARAM_FIELDS``) to tensors of their shape
    (N, ...), written into the simulator and differentiated too; the others stay as they are,
    constants.  The simulator is left at the step's result, with those parameters.
    RuntimeError naming the instance when one stops (a non-finite state, a failed
    factorisation, parameters outside their range); ValueError for a wrong shape or a name
    that is not a parameter.  Where nothing needs a gradient (``torch.no_grad()``, or no
    input that requires one) the Jacobians are not computed: the simulator's step alone, its
    state returned (for an f32 simulator that is its f32 step, where the differentiated one
    returns the step taken in float64)."""
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
    names, tensors = [], []
    for name, value in (params or {}).items():
        if name not in zwang.PARAM_FIELDS:
            raise ValueError(
                f"params: '{name}' is not a parameter field ({', '.join(zwang.PARAM_FIELDS)})"
            )
        shape = tuple(np.asarray(getattr(sim.params, name)).shape)
        value = torch.as_tensor(value, **like)
        if tuple(value.shape) != shape:
            raise ValueError(f"params['{name}'] must have shape {shape}, got {tuple(value.shape)}")
        names.append(name)
        tensors.append(value)
    inputs = (qpos, qvel, act, ctrl, *tensors)
    if torch.is_grad_enabled() and any(t.requires_grad for t in inputs):
        return _Step.apply(sim, qpos, qvel, act, ctrl, tuple(names), *tensors)
    # nothing to differentiate: the simulator's own step, without its Jacobians
    _write(sim, qpos, qvel, act, ctrl, names, tensors)
    sim.step(1)
    _raise_stopped(np.asarray(sim.status))
    return tuple(
        torch.as_tensor(np.array(getattr(sim, f), dtype=np.float64).reshape(n, -1), **like)
        for f in ("qpos", "qvel", "act")
    )


def _write(sim: zwang.Simulator, qpos, qvel, act, ctrl, names, params) -> list[np.ndarray]:
    """The state, controls and parameters into the simulator; the first four as float64 arrays."""
    model = sim.model
    host = [t.detach().to("cpu", torch.float64).numpy() for t in (qpos, qvel, act, ctrl)]
    sim.qpos[...] = host[0]
    sim.qvel[...] = host[1]
    if model.na:
        sim.act[...] = host[2]
    if model.nu:
        sim.ctrl[...] = host[3]
    for name, value in zip(names, params):
        getattr(sim.params, name)[...] = value.detach().to("cpu", torch.float64).numpy()
    return host


def _raise_stopped(status: np.ndarray) -> None:
    failed = np.flatnonzero(status & ~zwang.STATUS_NOT_CONVERGED)
    if failed.size:
        raise RuntimeError(
            f"zwang.torch.step: instance {int(failed[0])} stopped "
            f"(status {int(status[failed[0]])}): its step has no derivative"
        )
