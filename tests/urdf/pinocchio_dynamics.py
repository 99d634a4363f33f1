"""Pinocchio's dynamics of URDF files at given states, for the URDF tests (test_urdf_pinocchio.cc).

    python3 pinocchio_dynamics.py REQUEST.json  >  RESPONSE.json

REQUEST: {"robots": [{"file": PATH, "joints": [NAME, ...], "states": [{"q", "v", "tau"}]}]}
with one coordinate and one velocity per joint, in the order of `joints` (zwang's: hinges and
slides, each URDF joint a coordinate, a continuous joint's an angle).  Each robot is built by
pinocchio.buildModelFromUrdf with a fixed base (fixed joints merged, mimic joints independent, as
zwang has them) and, at each state, gives
    M     crba(q), the joint-space inertia matrix, row-major
    bias  nle(q, v) = C(q, v) v + g(q)
    qacc  aba(q, v, tau)
in the order of `joints`, a value that is not finite as null.  A robot whose "joints" is null
(one zwang refuses) gets instead, at Pinocchio's neutral configuration, "singular": whether M is
singular (its smallest eigenvalue at most 1e-12 of its largest) and "aba_finite": whether q̈ at
rest is finite.  RESPONSE: {"pinocchio": VERSION, "robots": [{"ok", "error", ...}]}.
"""

import json
import math
import sys

import numpy as np
import pinocchio as pin


def values(a):
    return [float(x) if math.isfinite(x) else None for x in np.asarray(a).reshape(-1)]


def robot_dynamics(request):
    try:
        model = pin.buildModelFromUrdf(request["file"])
    except Exception as e:  # Pinocchio's refusal is an answer too
        return {"ok": False, "error": str(e).splitlines()[0] if str(e) else type(e).__name__}
    data = model.createData()
    joints = request["joints"]
    if joints is None:
        q = pin.neutral(model)
        mass = pin.crba(model, data, q)
        mass = np.triu(mass) + np.triu(mass, 1).T
        eig = np.linalg.eigvalsh(mass) if model.nv else np.ones(1)
        qacc = pin.aba(model, data, q, np.zeros(model.nv), np.zeros(model.nv))
        return {"ok": True, "error": "", "singular": bool(eig[0] <= 1e-12 * eig[-1]),
                "aba_finite": bool(np.all(np.isfinite(qacc)))}
    if model.nv != len(joints) or model.njoints - 1 != len(joints):
        return {"ok": False, "error": f"Pinocchio has {model.njoints - 1} joints and nv "
                                      f"{model.nv}, zwang {len(joints)} joints"}
    ids = []
    for name in joints:
        if not model.existJointName(name):
            return {"ok": False, "error": f"no joint '{name}' in Pinocchio's model"}
        joint = model.joints[model.getJointId(name)]
        if joint.nv != 1 or joint.nq not in (1, 2):
            return {"ok": False, "error": f"joint '{name}' is a {joint.shortname()}"}
        ids.append(joint)
    order = [j.idx_v for j in ids]
    out = []
    for state in request["states"]:
        q = pin.neutral(model)
        v = np.zeros(model.nv)
        tau = np.zeros(model.nv)
        for k, j in enumerate(ids):
            angle = state["q"][k]
            if j.nq == 2:  # a continuous joint: (cos, sin)
                q[j.idx_q], q[j.idx_q + 1] = math.cos(angle), math.sin(angle)
            else:
                q[j.idx_q] = angle
            v[j.idx_v] = state["v"][k]
            tau[j.idx_v] = state["tau"][k]
        mass = pin.crba(model, data, q)
        mass = np.triu(mass) + np.triu(mass, 1).T
        bias = pin.nle(model, data, q, v)
        qacc = pin.aba(model, data, q, v, tau)
        out.append({
            "M": values(mass[np.ix_(order, order)]),
            "bias": values(bias[order]),
            "qacc": values(qacc[order]),
        })
    return {"ok": True, "error": "", "states": out}


def main():
    with open(sys.argv[1]) as f:
        request = json.load(f)
    answer = {"pinocchio": pin.__version__,
              "robots": [robot_dynamics(r) for r in request["robots"]]}
    json.dump(answer, sys.stdout, allow_nan=False)


if __name__ == "__main__":
    main()
