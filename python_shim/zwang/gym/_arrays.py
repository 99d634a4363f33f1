"""The arrays a vector environment computes with.

``"numpy"``: numpy arrays over the simulator's host views.  ``"torch"``: torch tensors over the
same memory, without a copy: the host views on the CPU backend (``torch.from_numpy``), the device
fields on the CUDA backend (``torch.from_dlpack(sim.device_field(name))``), so that actions,
observations, rewards and terminations stay on the simulator's device.  The tasks compute with
the array API standard's functions (``array_api_compat``), the same code for both.

On the CUDA backend the tensors' work runs on zwang's stream (``sim.cuda_stream``) inside
``Arrays.on_stream()``: the step's kernels and the task's arithmetic are ordered by the stream,
with no host synchronisation between them.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import array_api_compat
import numpy as np

import zwang

ARRAYS: tuple[str, ...] = ("numpy", "torch")

# the fields the simulator stores (views of its memory); any other name is derived on request
_STORED = frozenset(zwang.DATA_FIELDS) | {"time", "status"}


def _torch() -> Any:
    try:
        import torch
    except ImportError as error:
        raise ImportError(
            "array='torch' needs PyTorch (pip install torch); array='numpy' does not"
        ) from error
    return torch


class Arrays:
    """numpy arrays or torch tensors over one simulator's fields.

    Args:
        sim: the simulator.
        kind: ``"numpy"`` or ``"torch"``.
        device: its CUDA device ordinal, on the CUDA backend.
    """

    def __init__(self, sim: zwang.Simulator, kind: str, device: int) -> None:
        if kind not in ARRAYS:
            raise ValueError(f"array must be one of {', '.join(ARRAYS)}, got {kind!r}")
        self.sim = sim
        self.kind = kind
        # the backend the simulator runs (backend="auto" names none)
        self.cuda = str(sim.backend).startswith("cuda")
        self._views: dict[str, Any] = {}
        if kind == "numpy":
            self.torch = None
            self.device = None
            self.xp = array_api_compat.array_namespace(np.zeros(0))
            self.float64, self.bool, self.int64 = np.float64, np.bool_, np.int64
            return
        torch = self.torch = _torch()
        if self.cuda:
            self.device = torch.device("cuda", int(device))
            self._stream = torch.cuda.ExternalStream(int(sim.cuda_stream), device=self.device)
        else:
            self.device = torch.device("cpu")
        self.xp = array_api_compat.array_namespace(torch.zeros(0))
        self.float64, self.bool, self.int64 = torch.float64, torch.bool, torch.int64

    # ------------------------------------------------------------------ fields
    def view(self, name: str) -> Any:
        """The simulator's field ``name`` as an array of its precision, sharing its memory.  A
        derived quantity (``site_xpos``, ``cinert``, ``cvel``...: not in ``zwang.DATA_FIELDS``)
        is computed on the host from the state, a new array at each call (on the CUDA backend
        copied to the device)."""
        if self.kind == "numpy":
            return getattr(self.sim, name)
        if name not in _STORED:
            values = self.torch.from_numpy(np.asarray(getattr(self.sim, name)))
            return values.to(self.device) if self.cuda else values
        return self._shared(name, name, self.sim)

    def param(self, name: str) -> Any:
        """The per-instance parameter ``name`` in float64 (``sim.params.<name>``)."""
        if self.kind == "numpy":
            return np.asarray(getattr(self.sim.params, name), dtype=np.float64)
        return self._shared("params." + name, name, self.sim.params).to(self.torch.float64)

    def _shared(self, key: str, name: str, owner: Any) -> Any:
        """The tensor over stored field ``name`` (an attribute of ``owner`` on the host), made
        once: the memory stays where it is for the simulator's lifetime."""
        view = self._views.get(key)
        if view is None:
            if self.cuda:
                view = self.torch.from_dlpack(self.sim.device_field(name))
            else:
                view = self.torch.from_numpy(np.asarray(getattr(owner, name)))
            self._views[key] = view
        return view

    def field(self, name: str) -> Any:
        """The field's current values in float64 (the view itself when the precision is f64)."""
        if self.kind == "numpy":
            return np.asarray(getattr(self.sim, name), dtype=np.float64)
        return self.view(name).to(self.torch.float64)

    def write(self, name: str, values: Any) -> None:
        """Writes ``values`` (N, ...) into the field."""
        if self.kind == "numpy":
            getattr(self.sim, name)[...] = values
            return
        self.view(name).copy_(values)
        if self.cuda:
            self.sim.mark_device_written(name)

    def reset_rows(self, rows: np.ndarray, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """Resets instances ``rows`` (host indices) and puts them at (qpos, qvel) (host rows).
        On the CUDA backend the reset runs on the device and only the rows' states are copied
        there, so no field makes a round trip through the host."""
        if not self.cuda or self.kind == "numpy":
            self.sim.reset(instances=rows, qpos=qpos, qvel=qvel)
            return
        torch = self.torch
        sizes = {"qpos": int(self.sim.nq), "qvel": int(self.sim.nv)}
        for name, values in (("qpos", qpos), ("qvel", qvel)):
            if values.shape != (rows.size, sizes[name]):
                raise ValueError(
                    f"{name} must have shape ({rows.size}, {sizes[name]}), got {values.shape}"
                )
            bad = np.flatnonzero(~np.isfinite(values).all(axis=1))
            if bad.size:
                raise ValueError(f"{name} of instance {int(rows[bad[0]])} is not finite")
        # the reset kernel, then the rows' states, in order on zwang's stream
        with self.on_stream():
            self.sim.reset(instances=rows)
            index = torch.as_tensor(rows, dtype=torch.int64).to(self.device)
            for name, values in (("qpos", qpos), ("qvel", qvel)):
                view = self.view(name)
                view[index] = torch.as_tensor(values).to(self.device, view.dtype)
                self.sim.mark_device_written(name)

    # ------------------------------------------------------------------ conversions
    def asarray(self, values: Any, dtype: Any = None) -> Any:
        """``values`` (an array of either kind, or a sequence) as an array of this kind on the
        simulator's device, of ``dtype`` (None: the values' own)."""
        if self.kind == "numpy":
            if self.torch_tensor(values):
                values = values.detach().cpu().numpy()
            return np.asarray(values, dtype=dtype)
        return self.torch.as_tensor(values, dtype=dtype, device=self.device)

    def torch_tensor(self, values: Any) -> bool:
        return type(values).__module__.startswith("torch")

    def host(self, values: Any) -> np.ndarray:
        """``values`` as a numpy array (a copy from the device on CUDA)."""
        if self.kind == "torch" or self.torch_tensor(values):
            return values.detach().cpu().numpy()
        return np.asarray(values)

    def index(self, rows: np.ndarray) -> Any:
        """Host indices as an index array of this kind."""
        if self.kind == "numpy":
            return rows
        return self.torch.as_tensor(rows, dtype=self.torch.int64, device=self.device)

    def copy(self, values: Any) -> Any:
        return values.copy() if self.kind == "numpy" else values.clone()

    def zeros(self, shape: Any, dtype: Any = None) -> Any:
        return self.xp.zeros(shape, dtype=self.float64 if dtype is None else dtype, **self._on())

    def ones(self, shape: Any, dtype: Any = None) -> Any:
        return self.xp.ones(shape, dtype=self.float64 if dtype is None else dtype, **self._on())

    def _on(self) -> dict[str, Any]:
        return {} if self.kind == "numpy" else {"device": self.device}

    # ------------------------------------------------------------------ streams
    @contextlib.contextmanager
    def on_stream(self) -> Iterator[None]:
        """Runs the enclosed tensor work on zwang's stream (CUDA), after the caller's current
        stream's work (the actions it produced), and makes the caller's stream wait for it.
        Nested uses run on the same stream."""
        if self.kind == "numpy" or not self.cuda:
            yield
            return
        torch = self.torch
        caller = torch.cuda.current_stream(self.device)
        if caller == self._stream:
            yield
            return
        self._stream.wait_stream(caller)
        try:
            with torch.cuda.stream(self._stream):
                yield
        finally:
            caller.wait_stream(self._stream)

    def handed_out(self, values: Any) -> Any:
        """Marks tensors made on zwang's stream as used by the caller's stream too, so that the
        caching allocator does not hand their memory to zwang's stream while the caller may
        still read them (a tensor, or a tuple, list or dict of them)."""
        if self.kind == "numpy" or not self.cuda:
            return values
        stream = self.torch.cuda.current_stream(self.device)
        if isinstance(values, self.torch.Tensor):
            if values.device.type == "cuda":
                values.record_stream(stream)
        elif isinstance(values, dict):
            for value in values.values():
                self.handed_out(value)
        elif isinstance(values, (tuple, list)) or (
            isinstance(values, np.ndarray) and values.dtype == object
        ):
            for value in values:
                self.handed_out(value)
        return values

    def release(self) -> None:
        """Drops the tensors over the simulator's memory (they keep the simulator alive)."""
        self._views.clear()
