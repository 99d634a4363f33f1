"""Maps between changes of qpos and tangent vectors (MuJoCo's mjd_transitionFD convention), for
``zwang.torch`` and the sensitivities of ``zwang.sweep``."""

from __future__ import annotations

import numpy as np

import zwang


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
