"""A sweep's results in a Zarr store, written chunk by chunk as the chunks finish.

The store holds ``records/<field>`` as ``(R, N, ...)`` arrays chunked by the sweep's chunks,
``params/<name>`` for the parameters drawn in the chunks (the string grammar), ``status``
``(N,)``, a ``done`` flag per chunk and, in its attributes, the sweep it belongs to (its
signature) and each chunk's failures.  A chunk's flag is set after its data: a run that stops in
the middle of writing a chunk leaves it to be run again.  One sweep writes a store at a time (the
failures attribute is rewritten whole).  ``xarray.open_zarr(path,
group="records", consolidated=False)`` reads the records.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np

# bumped when the layout changes: a store of another layout is refused, not misread
LAYOUT = 1


def inputs_digest(arrays: Mapping[str, Any], text: str) -> str:
    """A digest of what the sweep's chunks are given: the drawn arrays (by name) and a text."""
    h = hashlib.sha256(text.encode())
    for name in sorted(arrays):
        a = arrays[name]
        if a is None:
            continue
        a = np.ascontiguousarray(a)
        h.update(f"{name}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


class SweepStore:
    """The Zarr group at ``path``, for the sweep of ``signature``: created with its arrays, or
    opened when it holds that sweep already (ValueError naming the difference otherwise)."""

    def __init__(
        self,
        path: str | os.PathLike,
        signature: dict[str, Any],
        records: Mapping[str, tuple[tuple[int, ...], np.dtype]],
        chunk: int,
        nchunks: int,
    ) -> None:
        import zarr

        self.path = os.fspath(path)
        signature = {"layout": LAYOUT, **signature}
        self.group = zarr.open_group(self.path, mode="a")
        held = self.group.attrs.get("zwang_sweep")
        if held is None:
            if len(list(self.group.keys())) > 0:
                raise ValueError(f"store {self.path}: it holds something other than a sweep")
            self._create(signature, records, chunk, nchunks)
        else:
            held = json.loads(held)
            for key in sorted(set(held) | set(signature)):
                if held.get(key) != signature.get(key):
                    raise ValueError(
                        f"store {self.path} holds another sweep: its {key} is "
                        f"{held.get(key)!r}, this sweep's {signature.get(key)!r}; give another "
                        "store, or delete it to start over"
                    )
        self.done = np.array(self.group["done"][:], dtype=bool)

    def _create(self, signature, records, chunk, nchunks) -> None:
        g = self.group
        n = signature["instances"]
        for name, (shape, dtype) in records.items():
            dims = ["record", "instance"] + [f"{name}_{k}" for k in range(len(shape) - 2)]
            g.create_array(
                f"records/{name}",
                shape=shape,
                chunks=(shape[0], chunk, *shape[2:]),
                dtype=dtype,
                dimension_names=dims,
                fill_value=0,
            )
        g.create_array(
            "status", shape=(n,), chunks=(chunk,), dtype="int32", dimension_names=["instance"]
        )
        # a flag per storage chunk: writing one rewrites no other
        g.create_array(
            "done", shape=(nchunks,), chunks=(1,), dtype="bool", dimension_names=["chunk"]
        )
        g.attrs["failures"] = json.dumps({})
        # last: a store whose creation stopped halfway has no signature and is refused
        g.attrs["zwang_sweep"] = json.dumps(signature)

    def write(self, index: int, lo: int, out: Mapping[str, Any]) -> None:
        """Chunk ``index`` (instances from ``lo``): its records, drawn parameters, status and
        failures; then its flag."""
        g = self.group
        k = len(out["status"])
        for name, a in out["records"].items():
            g[f"records/{name}"][:, lo : lo + k] = a
        n = g["status"].shape[0]
        for name, a in out["drawn"].items():
            key = f"params/{name}"
            if key not in g:
                g.create_array(
                    key,
                    shape=(n, *a.shape[1:]),
                    chunks=(g["status"].chunks[0], *a.shape[1:]),
                    dtype=a.dtype,
                    fill_value=0,
                )
            g[key][lo : lo + k] = a
        g["status"][lo : lo + k] = np.asarray(out["status"], dtype=np.int32)
        failures = json.loads(g.attrs["failures"])
        failures[str(index)] = [list(f) for f in out["failures"]]
        g.attrs["failures"] = json.dumps(failures)
        g["done"][index] = True
        self.done[index] = True

    def records(self) -> dict[str, Any]:
        g = self.group["records"]
        return {name: g[name] for name in g.array_keys()}

    def drawn(self) -> dict[str, np.ndarray]:
        if "params" not in self.group:
            return {}
        g = self.group["params"]
        return {name: np.asarray(g[name][:]) for name in g.array_keys()}

    def status(self) -> np.ndarray:
        return np.asarray(self.group["status"][:])

    def failures(self) -> list[tuple]:
        held = json.loads(self.group.attrs["failures"])
        return [tuple(f) for k in sorted(held, key=int) for f in held[k]]
