"""Counts from Python callers: integers, never silently truncated floats."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np


def count(value: Any, name: str, minimum: int = 1) -> int:
    """``value`` as an integer (Python or numpy) of at least ``minimum``.

    A float, a string or a bool raises ``TypeError`` (``int(4.5)`` would be 4, and ``True`` is 1
    only by accident); a smaller value raises ``ValueError``; both name ``name``.
    """
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be an integer, got the bool {value!r}")
    try:
        result = operator.index(value)
    except TypeError:
        raise TypeError(
            f"{name} must be an integer, got {value!r} ({type(value).__name__})"
        ) from None
    if result < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {result}")
    return result
