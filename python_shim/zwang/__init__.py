"""zwang: thousands of instances of one rigid multibody system stepped at once.

    import zwang
    model = zwang.load("ant.xml")
    sim = zwang.Simulator(model, instances=4096)
    sim.qvel[:] = 0.1            # a NumPy view of the batch, no copy
    sim.step(10)

State, outputs and parameters of a Simulator are NumPy views of its batch (see
``Simulator``); the quantities MuJoCo's mjData holds beyond them (``cinert``, ``cvel``,
``ximat``, ``site_xpos``, ``site_xmat``), and the frames of bodies merged at load
(``fused_xpos``, ``fused_xquat``, ``fused_xmat``, ``fused_xipos``, ``fused_vel``), are computed on
demand as copies.  ``zwang.sweep`` runs Monte Carlo parameter sweeps; ``zwang.render`` draws
instances (MuJoCo's renderer, imported on the first call); ``zwang.viewer`` (import it
explicitly) serves a web viewer of them; ``zwang.gym`` (import it explicitly: it needs
gymnasium) holds Gymnasium vector environments.
"""

from ._render import render, tile
from ._zwang import (
    DATA_FIELDS,
    JNT_BALL,
    JNT_FREE,
    JNT_HINGE,
    JNT_SLIDE,
    PARAM_FIELDS,
    STATUS_BAD_PARAMETERS,
    STATUS_BAD_STATE,
    STATUS_CONTACT_OVERFLOW,
    STATUS_DIVERGED,
    STATUS_FACTORIZATION,
    STATUS_HARD_CONFLICT,
    STATUS_NOT_CONVERGED,
    InstanceFailure,
    Model,
    ModelError,
    OutputNotKeptError,
    Params,
    Simulator,
    cuda_status,
    load,
    parse_distribution,
    parse_param_name,
    parse_randomization,
)
from .sweep import SweepFailure, SweepResult, sweep

__version__ = "0.1.0"

__all__ = [
    "DATA_FIELDS",
    "JNT_BALL",
    "JNT_FREE",
    "JNT_HINGE",
    "JNT_SLIDE",
    "PARAM_FIELDS",
    "STATUS_BAD_PARAMETERS",
    "STATUS_BAD_STATE",
    "STATUS_CONTACT_OVERFLOW",
    "STATUS_DIVERGED",
    "STATUS_FACTORIZATION",
    "STATUS_HARD_CONFLICT",
    "STATUS_NOT_CONVERGED",
    "InstanceFailure",
    "Model",
    "ModelError",
    "OutputNotKeptError",
    "Params",
    "Simulator",
    "SweepFailure",
    "SweepResult",
    "cuda_status",
    "load",
    "parse_distribution",
    "parse_param_name",
    "parse_randomization",
    "render",
    "sweep",
    "tile",
]
