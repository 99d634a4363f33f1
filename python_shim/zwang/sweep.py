"""Monte Carlo sweeps: one simulator, a parameter draw per instance, recorded trajectories.

    result = zwang.sweep("pendulum.xml",
                         params={"dof_damping[0]": ("uniform", 0.0, 0.2),
                                 "body_mass": ("scale", ("normal", 1.0, 0.05))},
                         instances=4096, steps=2000, record=["qpos", "qvel"], every=10, seed=7)
    result.params["dof_damping[0]"]     # (4096,) the damping each instance ran with
    result.records["qpos"]              # (201, 4096, nq): records at steps 0, 10, ..., 2000
    result.to_xarray()                  # xarray.Dataset (when xarray is installed)

Parameter names are those of ``sim.params`` (``zwang.PARAM_FIELDS``).  A bare name selects every
element of the parameter; ``name[i]`` or ``name[i, j]`` one row or one element of its per-instance
shape (``body_mass[2]``: body 2's mass; ``body_ipos[2]``: its centre of mass, 3 values;
``body_ipos[2, 0]``: x only).  A value is one of

- an array: one value per instance, shape ``(N,)`` (the same value for every selected element)
  or ``(N, *selection)``; a scalar sets every instance alike;
- ``("uniform", lo, hi)``, ``("normal", mean, std)``, ``("lognormal", mean, std)`` (of the
  logarithm) or ``("choice", values)``: an independent draw for every selected element of every
  instance (``lo``, ``hi``... may be arrays of the selection's shape);
- a frozen ``scipy.stats`` distribution (anything with ``rvs(size=, random_state=)``), drawn
  like the tuples;
- a callable ``f(rng, n)`` returning ``(n,)`` or ``(n, *selection)`` values;
- ``("scale", value)``: the model's own values multiplied by ``value``'s draw
  (``("scale", ("uniform", 0.8, 1.2))`` scales each selected element by its own factor);
- a string in the grammar of ``zwang run --randomize``: ``"0.8:1.2"``, ``"uniform(0, 0.2)"``,
  ``"scale(normal(1, 0.05))"`` (``zwang.parse_distribution`` gives its tuple).

``params`` may also be one string in that grammar,
``"body_mass+body_inertia=0.8:1.2, dof_damping[0]=uniform(0, 0.2)"``: it is drawn as
``zwang run --randomize`` and ``Simulator.randomize`` draw it (the same values for the same seed;
selections joined by ``+`` share one draw per object), and ``params`` of the result holds every
selection it names.

With ``sensitivities=True`` the sweep also gives the derivative of every recorded ``qpos``,
``qvel``, ``act`` and ``sensordata`` with respect to every swept parameter element, exact (each
step's Jacobians, ``Simulator.step_jacobians``, chained along the trajectory)::

    result.sensitivities["qpos"]        # (R, N, nq, P): ∂qpos/∂p at each record
    result.sensitivity_names            # the P parameter elements: "dof_damping[0]", ...

Draws are reproducible: parameter ``name`` draws from ``numpy.random.Generator(PCG64(
SeedSequence([seed, crc32(name)])))``, so its values depend on the seed and its name only, not on
the order of ``params`` or on the other parameters.  Initial states given as callables draw from
the generators named ``"qpos"`` and ``"qvel"`` likewise.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

# instance-steps from which a progress bar is shown by default
_PROGRESS_MIN_WORK = 10_000_000
# the default max_bytes where the physical memory cannot be read (no os.sysconf)
_FALLBACK_MAX_BYTES = 8 * 2**30
# fields that are part of the state: recording them needs no evaluation of the pipeline
_STATE_FIELDS = frozenset({"qpos", "qvel", "ctrl", "act", "time", "status", "xfrc_applied"})
# the recorded fields that sensitivities are given for
_SENSITIVE_FIELDS = ("qpos", "qvel", "act", "sensordata")
# the element a field's first per-instance axis runs over, by the field's name prefix
_FIRST_AXIS = (
    ("qpos", "coordinate"),
    ("ctrl", "actuator"),
    ("actuator_", "actuator"),
    ("site_", "site"),
    ("jnt_", "joint"),
    ("contact_", "contact"),
    ("q", "dof"),
    ("dof_", "dof"),
    ("body_", "body"),
    ("x", "body"),
    ("c", "body"),
    ("subtree_com", "body"),
)


def parse_name(name: str) -> tuple[str, tuple[int, ...]]:
    """``"body_ipos[2, 0]"`` -> ``("body_ipos", (2, 0))``; ``"body_mass"`` ->
    ``("body_mass", ())``: the names and indices of ``zwang run --randomize``."""
    from zwang import _zwang

    return _zwang.parse_param_name(name)


def _selection_name(base: str, index: tuple[int, ...]) -> str:
    return f"{base}[{', '.join(str(i) for i in index)}]" if index else base


def rng_for(seed: int, name: str) -> np.random.Generator:
    """The generator of ``name`` under ``seed``: independent of every other name."""
    return np.random.Generator(
        np.random.PCG64(np.random.SeedSequence([int(seed), zlib.crc32(name.encode())]))
    )


def draw(
    spec: Any,
    rng: np.random.Generator,
    n: int,
    shape: tuple[int, ...],
    nominal: np.ndarray | None = None,
) -> np.ndarray:
    """Values of one parameter selection for ``n`` instances: an array ``(n, *shape)``.

    ``spec`` is any of the forms the module documents; ``nominal`` (``(n, *shape)``) is what
    ``("scale", ...)`` multiplies.
    """
    full = (n, *shape)
    if isinstance(spec, str):
        from zwang import _zwang

        spec = _zwang.parse_distribution(spec)
    if isinstance(spec, tuple) and spec and isinstance(spec[0], str):
        kind, args = spec[0].lower(), spec[1:]
        if kind == "scale":
            if len(args) != 1 or nominal is None:
                raise ValueError("('scale', value) takes one value and a parameter to scale")
            return nominal * draw(args[0], rng, n, shape)
        if kind == "uniform" and len(args) == 2:
            return rng.uniform(args[0], args[1], size=full)
        if kind == "normal" and len(args) == 2:
            return rng.normal(args[0], args[1], size=full)
        if kind == "lognormal" and len(args) == 2:
            return rng.lognormal(args[0], args[1], size=full)
        if kind == "choice" and len(args) == 1:
            return rng.choice(np.asarray(args[0], dtype=np.float64), size=full)
        raise ValueError(
            f"distribution {spec!r}: expected ('uniform', lo, hi), ('normal', mean, "
            "std), ('lognormal', mean, std), ('choice', values) or ('scale', value)"
        )
    if hasattr(spec, "rvs"):
        return np.asarray(spec.rvs(size=full, random_state=rng), dtype=np.float64)
    values = spec(rng, n) if callable(spec) else spec
    return _broadcast(np.asarray(values, dtype=np.float64), n, shape)


def _broadcast(values: np.ndarray, n: int, shape: tuple[int, ...]) -> np.ndarray:
    if values.ndim == 0:
        return np.full((n, *shape), float(values))
    if values.shape == (n, *shape):
        return values
    if values.shape == (n,):
        return np.broadcast_to(values.reshape((n,) + (1,) * len(shape)), (n, *shape)).copy()
    raise ValueError(f"values of shape {values.shape}: expected ({n},) or {(n, *shape)}")


@dataclass
class SweepResult:
    """What a sweep ran with and what it recorded.

    Attributes:
        params: name -> values each instance ran with, ``(N,)`` or ``(N, *selection)``.
        records: field -> ``(R, N, ...)``, record r taken after ``steps[r]`` steps.
        steps: ``(R,)`` steps taken at each record (0 is the initial state).
        time: ``(R,)`` simulated time of each record, ``steps * timestep``.
        status: ``(N,)`` final status word of each instance (0: ran to the end).
        failures: the simulator's ``failures()`` at the end.
        seed: the seed of the draws.
        names: labels of the elements a field runs over (``body``, ``joint``, ``actuator``,
            ``site`` names; ``coordinate`` (of qpos) and ``dof`` indices), for ``to_xarray``.
        sensitivities: with ``sensitivities=True``, recorded field (of ``qpos``, ``qvel``,
            ``act``, ``sensordata``) -> ``(R, N, ..., P)``, its derivative at each record with
            respect to each of the P swept parameter elements (NaN for an instance from the
            step it stopped at).
        sensitivity_names: the P parameter elements by their full index (``"dof_damping[0]"``,
            ``"body_ipos[1,2]"``).
    """

    params: dict[str, np.ndarray]
    records: dict[str, np.ndarray]
    steps: np.ndarray
    time: np.ndarray
    status: np.ndarray
    failures: list = field(default_factory=list)
    seed: int = 0
    names: dict[str, list[str]] = field(default_factory=dict)
    sensitivities: dict[str, np.ndarray] = field(default_factory=dict)
    sensitivity_names: list[str] = field(default_factory=list)

    def _dims(self, name: str, shape: tuple[int, ...]) -> tuple[list[str], dict[str, Any]]:
        """Dimension names of the trailing axes of a field, and the coordinates of those that
        index named elements (bodies, joints, actuators, sites)."""
        dims, coords = [], {}
        for axis, size in enumerate(shape):
            label = f"{name}_{axis}"
            if axis == 0:
                kind = next((k for p, k in _FIRST_AXIS if name.startswith(p)), None)
                names = self.names.get(kind) if kind else None
                if names is not None and len(names) == size:
                    label, coords[kind] = kind, list(names)
            dims.append(label)
        return dims, coords

    def to_xarray(self) -> Any:
        """An ``xarray.Dataset``: records over (time, instance, ...), parameters over
        (instance, ...), ``status`` over instance."""
        import xarray as xr

        variables, coords = (
            {},
            {
                "time": ("time", self.time),
                "step": ("time", self.steps),
                "instance": np.arange(self.status.shape[0]),
            },
        )
        for name, values in self.records.items():
            dims, extra = self._dims(name, values.shape[2:])
            # a store's arrays are read here (xarray.open_zarr reads them lazily)
            variables[name] = (["time", "instance", *dims], np.asarray(values[...]))
            coords.update(extra)
        for name, values in self.params.items():
            dims, extra = self._dims(name, values.shape[1:])
            variables[name] = (["instance", *dims], values)
            coords.update(extra)
        variables["status"] = (["instance"], self.status)
        return xr.Dataset(variables, coords=coords, attrs={"seed": self.seed})

    def to_dataframe(self) -> Any:
        """A ``pandas.DataFrame`` with one row per (record, instance): columns ``time``, the
        parameters and every recorded component (``qpos[0]``, ``xpos[2,1]``...)."""
        import pandas as pd

        nrec, n = self.time.shape[0], self.status.shape[0]
        columns: dict[str, np.ndarray] = {
            "step": np.repeat(self.steps, n),
            "time": np.repeat(self.time, n),
            "instance": np.tile(np.arange(n), nrec),
        }
        for name, values in self.params.items():
            for suffix, column in _components(values.reshape(n, -1), values.shape[1:]):
                columns[name + suffix] = np.tile(column, nrec)
        for name, values in self.records.items():
            flat = np.asarray(values[...]).reshape(nrec * n, -1)
            for suffix, column in _components(flat, values.shape[2:]):
                columns[name + suffix] = column
        return pd.DataFrame(columns)

    def quantity(self, name: str) -> np.ndarray:
        """A swept parameter, ``(N,)``, or a recorded component, ``(R, N)``, by the names of
        ``to_dataframe``'s columns: ``"dof_damping[0]"``, ``"body_ipos[1][2]"``, ``"qpos[0]"``,
        ``"xpos[2,1]"``; a bare name where it has one component (``"qpos"`` of a pendulum)."""
        for key, values in self.params.items():
            if name == key or (name.startswith(key + "[") and name.endswith("]")):
                return _component(values, 1, key, name[len(key) :])
        field_name, bracket, index = name.partition("[")
        if field_name in self.records:
            return _component(self.records[field_name], 2, field_name, bracket + index)
        known = sorted(self.params) + sorted(self.records)
        raise ValueError(f"{name!r} is neither a swept parameter nor a record: {', '.join(known)}")

    def plot(
        self,
        y: str | np.ndarray,
        x: str | np.ndarray | None = None,
        *,
        color: str | np.ndarray | None = None,
        record: int = -1,
        label: str | None = None,
        max_lines: int = 200,
        ax: Any = None,
    ) -> Any:
        """A matplotlib figure of what the sweep recorded against what it swept.

        With ``x`` (a swept parameter, or any ``(N,)`` array) a scatter of ``y`` over the
        instances, one point each: a parameter, a record at record index ``record`` (the last
        by default), or an ``(N,)`` array computed from the result (a period, a cost), named by
        ``label``.  Without ``x`` the records of ``y`` over time, one line per instance (the
        first ``max_lines``).  ``color`` (a parameter, default the first swept one other than
        ``x``, or an ``(N,)`` array) colours points and lines, with a colour bar.  Stopped
        instances are drawn in grey.  Returns the axes (new ones unless ``ax`` is given).
        """
        import matplotlib
        import matplotlib.pyplot as plt
        from matplotlib.collections import LineCollection
        from matplotlib.lines import Line2D

        n = self.status.shape[0]

        def values(spec: str | np.ndarray, what: str) -> tuple[np.ndarray, str]:
            if isinstance(spec, str):
                return self.quantity(spec), spec
            array = np.asarray(spec, dtype=np.float64)
            if array.shape != (n,):
                raise ValueError(
                    f"{what} of shape {array.shape}: expected ({n},), one per instance"
                )
            return array, (label or what) if what == "y" else what

        y_values, y_label = values(y, "y")
        x_name = x if isinstance(x, str) else None
        if color is None:
            color = next(
                (p for p in self.params if p != x_name and self.params[p][0].size == 1), None
            )
        c_values, c_label = values(color, "colour") if color is not None else (None, "")
        if c_values is not None and c_values.ndim == 2:
            c_values = c_values[record]
        cmap = matplotlib.colormaps["viridis"]
        norm = None
        if c_values is not None:
            norm = matplotlib.colors.Normalize(np.nanmin(c_values), np.nanmax(c_values))
        stopped = self.status != 0

        def colours(index: np.ndarray) -> np.ndarray:
            if norm is None:
                rgba = np.tile(matplotlib.colors.to_rgba("C0"), (index.size, 1))
            else:
                rgba = cmap(norm(c_values[index]))
            rgba[stopped[index]] = (0.6, 0.6, 0.6, 1.0)
            return rgba

        if ax is None:
            _, ax = plt.subplots()
        if x is not None:
            x_values, x_label = values(x, "x")
            if y_values.ndim == 2:
                y_values = y_values[record]
                y_label = f"{y_label} at t = {self.time[record]:g} s"
            if x_values.ndim == 2:
                x_values = x_values[record]
            ax.scatter(x_values, y_values, c=colours(np.arange(n)), s=8)
            ax.set_xlabel(x_label)
        else:
            if y_values.ndim != 2:
                raise ValueError(f"{y_label} is not recorded over time: give x to plot it")
            shown = np.arange(min(n, max_lines))
            times = np.broadcast_to(self.time, (shown.size, self.time.size))
            lines = np.stack([times, y_values[:, shown].T], axis=-1)
            ax.add_collection(LineCollection(lines, colors=colours(shown), linewidths=0.8))
            ax.autoscale()
            ax.set_xlabel("time (s)")
        ax.set_ylabel(y_label)
        if norm is not None:
            mappable = matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap)
            ax.figure.colorbar(mappable, ax=ax, label=c_label)
        if stopped.any():
            ax.legend(handles=[Line2D([], [], color="0.6", marker="o", ls="", label="stopped")])
        return ax


def _component(values: np.ndarray, lead: int, name: str, index: str) -> np.ndarray:
    """The component ``index`` (``""``, ``"[i]"``, ``"[i,j]"``) of ``values``, whose first ``lead``
    axes are records and instances."""
    shape = values.shape[lead:]
    if not index:
        if int(np.prod(shape)) != 1:
            dims = ",".join("ijk"[: len(shape)])
            raise ValueError(
                f"{name} has {int(np.prod(shape))} components: name one, {name}[{dims}]"
            )
        return np.asarray(values[...]).reshape(values.shape[:lead])
    try:
        at = tuple(int(k) for k in index[1:-1].split(","))
    except ValueError:
        raise ValueError(
            f"{name}{index}: the index must be integers, as qpos[0] or xpos[2,1]"
        ) from None
    if len(at) != len(shape) or any(not 0 <= k < n for k, n in zip(at, shape)):
        raise ValueError(f"{name}{index}: {name} has components of shape {shape}")
    return values[(slice(None),) * lead + at]


def _components(flat: np.ndarray, shape: tuple[int, ...]) -> Iterable[tuple[str, np.ndarray]]:
    if not shape:
        yield "", flat[:, 0]
        return
    for k, index in enumerate(np.ndindex(*shape)):
        yield "[" + ",".join(str(i) for i in index) + "]", flat[:, k]


def _rows(values: Any, n: int, width: int, what: str) -> np.ndarray:
    """``(width,)`` for every instance alike, or ``(n, width)``, as an ``(n, width)`` array."""
    values = np.asarray(values, dtype=np.float64)
    if values.shape == (width,):
        return np.tile(values, (n, 1))
    if values.shape == (n, width):
        return values
    raise ValueError(f"{what} of shape {values.shape}: expected ({width},) or ({n}, {width})")


def _initial(spec: Any, width: int, n: int, seed: int, name: str) -> np.ndarray | None:
    if spec is None:
        return None
    values = spec(rng_for(seed, name), n) if callable(spec) else spec
    return _rows(values, n, width, name)


def _default_max_bytes() -> int:
    """Half of this machine's physical memory, or 8 GiB where it cannot be read."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (AttributeError, ValueError, OSError):
        return _FALLBACK_MAX_BYTES


def _size(nbytes: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if nbytes < 1024:
            return f"{nbytes:.3g} {unit}"
        nbytes /= 1024
    return f"{nbytes:.3g} TiB"


def _check_size(
    nrec: int, fields: Mapping[str, np.ndarray], n: int, max_bytes: int, columns: int = 0
) -> None:
    """Refuses a sweep whose records would take more than ``max_bytes``: each record holds every
    field of every instance (``fields``: their arrays, instances first, of all ``n`` instances
    or of one), plus its step (int64) and time (float64), and with ``columns`` swept parameters
    the sensitivities of the fields that have them, float64."""
    each = {name: a.nbytes // max(1, a.shape[0]) for name, a in fields.items()}
    sens = {
        name: 8 * columns * (a.size // max(1, a.shape[0]))
        for name, a in fields.items()
        if columns and name in _SENSITIVE_FIELDS
    }
    per_record = n * (sum(each.values()) + sum(sens.values())) + 16
    total = nrec * per_record
    if total <= max_bytes:
        return
    parts = ", ".join(f"{name} {b} B" for name, b in each.items())
    parts += "".join(f", sensitivities of {name} {b} B" for name, b in sens.items())
    raise ValueError(
        f"zwang.sweep would record {total} bytes ({_size(total)}): {nrec} records of "
        f"{per_record} bytes ({n} instances x ({parts}) + 16 B of step and time), more than "
        f"max_bytes={max_bytes} ({_size(max_bytes)}). Take fewer records (a larger `every`), "
        f"fewer fields in `record`, fewer instances or steps, or pass a larger `max_bytes`."
    )


def _progress_bar(progress: bool | None, total: int, work: int) -> Any:
    if progress is False or (progress is None and work < _PROGRESS_MIN_WORK):
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if progress:
            print("zwang.sweep: install tqdm for a progress bar", file=sys.stderr)
        return None
    return tqdm(total=total, unit="step", desc="zwang.sweep")


@dataclass(frozen=True)
class SweepFailure:
    """An instance that stopped in a sweep run over an executor, as ``InstanceFailure``: its
    index in the sweep, status word, detail and message."""

    instance: int
    status: int
    detail: str
    message: str


def _stepping(
    sim, record, nrec, every, steps, ctrl_fn, bar, sens=None
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The records of a simulator whose instances are set up: R = nrec records of each field of
    ``record``, record r after min(r every, steps) steps; and with ``sens`` = (parameter
    fields, columns of E) the sensitivities of the recorded fields of ``_SENSITIVE_FIELDS``.

    The sensitivity of the state, S = ∂x/∂p in the tangent space, starts at 0 and follows
    S⁺ = A S + E (every step's Jacobians); qpos's is P(q) S, sensordata's C S + F at the
    recorded state."""
    from zwang._tangent import tangent_maps

    derived = any(name not in _STATE_FIELDS for name in record)
    first = {name: np.asarray(getattr(sim, name)) for name in record}
    records = {name: np.empty((nrec, *a.shape), dtype=a.dtype) for name, a in first.items()}
    model, n = sim.model, int(sim.instances)
    nv = int(model.nv)
    sensitive, S, fields, cols = {}, None, [], None
    if sens is not None:
        fields, cols = sens
        S = np.zeros((n, 2 * nv + int(model.na), len(cols)))
        for name in record:
            if name in _SENSITIVE_FIELDS:
                shape = (nrec, *first[name].shape, len(cols))
                sensitive[name] = np.empty(shape)
    del first
    jac = None

    def jacobians() -> dict[str, np.ndarray]:
        nonlocal jac
        if jac is None:
            jac = sim.step_jacobians(params=fields)
        return jac

    def take(r: int) -> None:
        if derived:
            sim.forward()
        for name in record:
            records[name][r] = getattr(sim, name)
        for name, out in sensitive.items():
            if name == "qpos":
                P, _ = tangent_maps(model, np.asarray(sim.qpos, dtype=np.float64))
                out[r] = np.einsum("nqv,nvp->nqp", P, S[:, :nv])
            elif name == "qvel":
                out[r] = S[:, nv : 2 * nv]
            elif name == "act":
                out[r] = S[:, 2 * nv :]
            else:
                j = jacobians()
                out[r] = np.einsum("nsx,nxp->nsp", j["C"], S) + j["F"][:, :, cols]

    take(0)
    done = 0
    for r in range(1, nrec):
        mark = min(r * every, steps)
        while done < mark:
            if ctrl_fn is not None:
                sim.ctrl[...] = ctrl_fn(sim, done)
                jac = None
                chunk = 1
            else:
                chunk = mark - done
            if S is not None:
                # one step at a time, S carried along
                chunk = 1
                j = jacobians()
                S = np.einsum("nij,njp->nip", j["A"], S) + j["E"][:, :, cols]
                jac = None
            sim.step(chunk)
            done += chunk
            if bar is not None:
                bar.update(chunk)
        take(r)
    return records, sensitive


def _sensitivity_columns(sim, params) -> tuple[list[str], np.ndarray, list[str]]:
    """For sensitivities with respect to what ``params`` sweeps: the parameter fields to ask
    step_jacobians for, the columns of its E that are the swept elements, and their names."""
    import zwang

    if isinstance(params, str):
        selections = [s for _, sel, _ in zwang.parse_randomization(params) for s in sel]
    else:
        selections = [parse_name(name) for name in (params or {})]
    if not selections:
        raise ValueError("sensitivities: the sweep varies no parameter")
    fields = list(dict.fromkeys(base for base, _ in selections))
    offset, first = {}, 0
    for base in fields:
        offset[base] = first
        first += int(np.prod(np.asarray(getattr(sim.params, base)).shape[1:], dtype=np.int64))
    cols, names = [], []
    for base, index in selections:
        shape = np.asarray(getattr(sim.params, base)).shape[1:]
        flat = np.arange(int(np.prod(shape, dtype=np.int64))).reshape(shape)
        chosen = np.atleast_1d(flat[index]).ravel()
        for k in chosen:
            at = np.unravel_index(int(k), shape)
            label = base + ("[" + ",".join(str(int(i)) for i in at) + "]" if shape else "")
            if label in names:
                continue
            cols.append(offset[base] + int(k))
            names.append(label)
    return fields, np.array(cols, dtype=np.int64), names


def _callable_digest(fn) -> str | None:
    """A control law's name and, where it has one, a digest of its code (so that a store does
    not resume with an edited or another law)."""
    if fn is None:
        return None
    import marshal

    code = getattr(fn, "__code__", None) or getattr(getattr(fn, "func", None), "__code__", None)
    name = getattr(fn, "__qualname__", type(fn).__qualname__)
    digest = hashlib.sha256(marshal.dumps(code)).hexdigest() if code is not None else ""
    return f"{getattr(fn, '__module__', '')}.{name}:{digest}"


def _load_spec(model) -> dict[str, Any]:
    """What a worker loads the model with: zwang.load's arguments that made it."""
    if model.path is None:
        raise ValueError("a sweep in chunks needs a model loaded from a file (Model.path)")
    return dict(model.load_arguments)


def _set_up(sim, grammar, seed, first, values, qpos, qvel, ctrl) -> dict[str, np.ndarray]:
    """A sweep's instances first, first + 1, ... in ``sim``: the string grammar drawn as those
    instances draw it in the whole sweep (returned, by selection), the parameter ``values``
    (drawn for them already), the initial state and held controls."""
    import zwang

    drawn: dict[str, np.ndarray] = {}
    if grammar is not None:
        # the grammar of zwang run --randomize, drawn as it draws
        sim.randomize(grammar, seed, first=first)
        for _, selections, _ in zwang.parse_randomization(grammar):
            for base, index in selections:
                got = getattr(sim.params, base)[(slice(None), *index)]
                drawn[_selection_name(base, index)] = np.array(got, dtype=np.float64)
    for name, v in values.items():
        base, index = parse_name(name)
        getattr(sim.params, base)[(slice(None), *index)] = v
    if qpos is not None or qvel is not None:
        sim.reset(qpos=qpos, qvel=qvel)
    if ctrl is not None:
        sim.ctrl[...] = ctrl
    return drawn


def _run_chunk(task: dict[str, Any]) -> dict[str, Any]:
    """One chunk of a sweep, in whatever process the executor runs it: instances
    [lo, lo + count) with their slices of the draws, the string grammar's drawn with
    ``first = lo`` (the values those instances draw in the whole sweep)."""
    import zwang

    model = zwang.load(**task["model"])
    lo, n = task["lo"], task["count"]
    sim = zwang.Simulator(
        model,
        instances=n,
        backend=task["backend"],
        precision=task["precision"],
        threads=task["threads"],
    )
    drawn = _set_up(
        sim,
        task["grammar"],
        task["seed"],
        lo,
        task["values"],
        task["qpos"],
        task["qvel"],
        task["ctrl"],
    )
    records, sensitive = _stepping(
        sim,
        task["record"],
        task["nrec"],
        task["every"],
        task["steps"],
        task["ctrl_fn"],
        None,
        task["sensitivities"],
    )
    failures = []
    for f in sim.failures():
        # the message names the instance: its index in the sweep
        local, message = f"instance {int(f.instance)}", f.message
        if message.startswith(local):
            message = f"instance {lo + int(f.instance)}" + message[len(local) :]
        failures.append((lo + int(f.instance), int(f.status), f.detail, message))
    return {
        "lo": lo,
        "records": records,
        "sensitivities": sensitive,
        "drawn": drawn,
        "status": np.array(sim.status),
        "failures": failures,
    }


def sweep(
    model: Any,
    params: Mapping[str, Any] | str | None = None,
    *,
    instances: int,
    steps: int,
    record: Iterable[str] = ("qpos", "qvel"),
    every: int = 1,
    seed: int = 0,
    backend: str = "cpu",
    precision: str = "f64",
    threads: int = 0,
    qpos: Any = None,
    qvel: Any = None,
    ctrl: np.ndarray | Callable[[Any, int], np.ndarray] | None = None,
    progress: bool | None = None,
    max_bytes: int | None = None,
    executor: Any = None,
    chunk: int | None = None,
    store: str | os.PathLike | None = None,
    sensitivities: bool = False,
) -> SweepResult:
    """Runs ``instances`` instances of ``model`` for ``steps`` steps with drawn parameters.

    Args:
        model: a ``zwang.Model`` or the path of a model file.
        params: parameter name -> distribution or values (see the module).
        instances: N, the instances stepped together.
        steps: steps of every instance.
        record: simulator fields recorded (``qpos``, ``qvel``, ``xpos``, ``qacc``, ``cfrc_ext``,
            ``cvel``, ``site_xpos``, ``time``...), each as ``(R, N, ...)``.
        every: steps between records; records are taken at steps 0, every, 2 every... and at
            ``steps``.  Fields beyond the state are evaluated at the recorded state (the sweep
            calls ``forward()`` first, which leaves the trajectory unchanged).
        seed: seed of every draw.
        backend, precision, threads: those of ``zwang.Simulator``.
        qpos, qvel: initial state: ``(nq,)``/``(nv,)``, ``(N, nq)``/``(N, nv)`` or a callable
            ``f(rng, n)``; the model's default state when None.
        ctrl: controls: ``(nu,)`` or ``(N, nu)`` held throughout, or ``f(sim, step)`` returning
            ``(N, nu)`` before every step (then the simulator advances one step per call).
        progress: a tqdm bar: True, False, or None for runs of at least 10⁷ instance-steps.
        max_bytes: the most memory the records may take, ``R * (N * bytes of every recorded
            field of one instance + 16)`` with R records (the 16: each record's step and time),
            and with ``sensitivities`` 8 bytes per element of each recorded field that has
            them and swept parameter element; half of the physical memory when None.  A sweep
            over it raises ``ValueError`` before it steps or allocates anything per record.
        executor: a ``concurrent.futures.Executor`` (``ProcessPoolExecutor``, Dask's
            ``client.get_executor()``, mpi4py's ``MPIPoolExecutor``) that runs the sweep in
            chunks of ``chunk`` instances, each in a simulator of its own; the result is the
            same sweep's in one process, bit for bit on the CPU backend, whatever the chunks,
            workers or order of completion (every draw is made here or keyed by the instance's
            index).  The model must come from a file (workers load it); a ``ctrl`` callable is
            called with each chunk's simulator and must be picklable.  A
            ``ProcessPoolExecutor`` must spawn its workers (``mp_context=
            multiprocessing.get_context("spawn")``): forked ones would hang in OpenMP.
        chunk: instances per chunk (default: N / 16, at least 1); with ``chunk`` or ``store``
            and no executor the chunks run one after another in this process.
        store: a Zarr store (a directory path) that each chunk's records, drawn parameters,
            status and failures are written to as the chunk finishes, so that a sweep larger
            than memory completes (the result's records are then the store's arrays, read on
            demand, and ``max_bytes`` does not apply); a sweep run again with the same
            arguments against its store runs only the chunks it lacks (a resume after a crash),
            and a store of another sweep is refused.
        sensitivities: also the derivatives of the recorded ``qpos``, ``qvel``, ``act`` and
            ``sensordata`` with respect to every swept parameter element (``SweepResult.
            sensitivities``), exact: each step's Jacobians (``Simulator.step_jacobians``, in
            float64) chained along the trajectory, so the simulator advances one step at a
            time at several times a step's cost.  Controls are held as given: a ``ctrl``
            callable's dependence on the state is not differentiated.  Not with ``store``.

    Returns:
        a ``SweepResult``.
    """
    import zwang

    if isinstance(model, (str, os.PathLike)):
        model = zwang.load(os.fspath(model))
    from zwang._counts import count

    record = list(record)
    # integers only: 4.5 instances or 2.5 steps are a mistake, not 4 or 2
    n = count(instances, "instances")
    steps = count(steps, "steps", minimum=0)
    every = count(every, "every")
    if sensitivities and store is not None:
        raise ValueError("sensitivities are not written to a store: run without store=")
    if sensitivities and not any(name in _SENSITIVE_FIELDS for name in record):
        raise ValueError(
            "sensitivities are given for the recorded "
            + ", ".join(_SENSITIVE_FIELDS)
            + f"; record has none of them: {record}"
        )
    if executor is not None or chunk is not None or store is not None:
        return _sweep_chunks(
            model,
            params,
            (n, steps, every, record),
            {"seed": seed, "backend": backend, "precision": precision, "threads": threads},
            {"qpos": qpos, "qvel": qvel, "ctrl": ctrl},
            (progress, max_bytes, executor, chunk, store, sensitivities),
        )
    sim = zwang.Simulator(model, instances=n, backend=backend, precision=precision, threads=threads)
    for name in record:
        if not hasattr(sim, name):
            raise ValueError(f"the simulator has no field {name!r} to record")
    # R = ⌊steps / every⌋ + 1 records, one more when every does not divide steps
    nrec = steps // every + 1 + (steps % every != 0)
    sens, sens_names = None, []
    if sensitivities:
        fields, cols, sens_names = _sensitivity_columns(sim, params)
        sens = (fields, cols)
    first = {name: np.asarray(getattr(sim, name)) for name in record}
    limit = _default_max_bytes() if max_bytes is None else int(max_bytes)
    _check_size(nrec, first, n, limit, len(sens_names))
    del first

    grammar = params if isinstance(params, str) else None
    values = _draw_params(sim, None if grammar is not None else params, seed, n)
    ctrl_fn = ctrl if callable(ctrl) else None
    drawn = _set_up(
        sim,
        grammar,
        seed,
        0,
        values,
        _initial(qpos, model.nq, n, seed, "qpos"),
        _initial(qvel, model.nv, n, seed, "qvel"),
        _rows(ctrl, n, model.nu, "ctrl") if ctrl is not None and ctrl_fn is None else None,
    )
    drawn.update(values)

    bar = _progress_bar(progress, steps, n * steps)
    try:
        records, sensitive = _stepping(sim, record, nrec, every, steps, ctrl_fn, bar, sens)
    finally:
        if bar is not None:
            bar.close()
    result = _result(
        model, drawn, records, nrec, every, steps, np.array(sim.status), list(sim.failures()), seed
    )
    result.sensitivities, result.sensitivity_names = sensitive, sens_names
    return result


def _draw_params(sim, params, seed: int, n: int) -> dict[str, np.ndarray]:
    """The values of each parameter of a ``params`` mapping for the N instances, drawn from the
    model's values in ``sim`` (whose instances hold the model's parameters)."""
    drawn = {}
    for name, spec in (params or {}).items():
        base, index = parse_name(name)
        target = getattr(sim.params, base)
        try:
            one = np.array(target[(slice(0, 1), *index)], dtype=np.float64)
        except IndexError as err:
            raise ValueError(
                f"parameter {name!r}: index out of range for per-instance shape {target.shape[1:]}"
            ) from err
        nominal = np.broadcast_to(one, (n, *one.shape[1:]))
        values = draw(spec, rng_for(seed, name), n, nominal.shape[1:], nominal)
        drawn[name] = np.array(np.broadcast_to(values, nominal.shape), dtype=np.float64)
    return drawn


def _result(model, drawn, records, nrec, every, steps, status, failures, seed) -> SweepResult:
    names = {
        "body": list(model.body_names),
        "joint": list(model.joint_names),
        "actuator": list(model.actuator_names),
        "site": list(getattr(model, "site_names", [])),
        "coordinate": list(range(model.nq)),
        "dof": list(range(model.nv)),
    }
    marks = np.minimum(np.arange(nrec, dtype=np.int64) * every, steps)
    return SweepResult(
        params=drawn,
        records=records,
        steps=marks,
        time=marks * float(model.timestep),
        status=status,
        failures=failures,
        seed=int(seed),
        names=names,
    )


def _sweep_chunks(model, params, shape, options, inputs, running) -> SweepResult:
    """sweep() over an executor: every draw that is not keyed by instance is made here, for all
    N instances, and each chunk gets its slice."""
    import zwang

    n, steps, every, record = shape
    seed, precision = options["seed"], options["precision"]
    qpos, qvel, ctrl = inputs["qpos"], inputs["qvel"], inputs["ctrl"]
    progress, max_bytes, executor, chunk, store, sensitivities = running
    if executor is None:
        from concurrent.futures import ThreadPoolExecutor

        ex = ThreadPoolExecutor(1)
        try:
            return _sweep_chunks(
                model,
                params,
                shape,
                options,
                inputs,
                (progress, max_bytes, ex, chunk, store, sensitivities),
            )
        finally:
            ex.shutdown(cancel_futures=True)

    context = getattr(executor, "_mp_context", None)
    if context is not None and context.get_start_method() == "fork":
        # a child forked from a process whose OpenMP threads run stops in its first parallel
        # region (LLVM's and GNU's OpenMP runtimes alike)
        raise ValueError(
            "a ProcessPoolExecutor that forks its workers would hang in zwang's OpenMP threads: "
            "give it mp_context=multiprocessing.get_context('spawn') (or 'forkserver')"
        )
    size = max(1, -(-n // 16)) if chunk is None else int(chunk)
    if size < 1:
        raise ValueError(f"chunk must be at least 1, got {chunk}")
    spec = _load_spec(model)
    probe = zwang.Simulator(model, instances=1, backend="cpu", precision=precision)
    for name in record:
        if not hasattr(probe, name):
            raise ValueError(f"the simulator has no field {name!r} to record")
    nrec = steps // every + 1 + (steps % every != 0)
    sens, sens_names = None, []
    if sensitivities:
        fields, cols, sens_names = _sensitivity_columns(probe, params)
        sens = (fields, cols)
    one = {name: np.asarray(getattr(probe, name)) for name in record}
    if store is None:
        limit = _default_max_bytes() if max_bytes is None else int(max_bytes)
        _check_size(nrec, one, n, limit, len(sens_names))
    grammar = params if isinstance(params, str) else None
    if grammar is not None:
        zwang.parse_randomization(grammar)  # its errors here, not in a worker
    values = _draw_params(probe, None if grammar is not None else params, seed, n)
    qpos0 = _initial(qpos, model.nq, n, seed, "qpos")
    qvel0 = _initial(qvel, model.nv, n, seed, "qvel")
    ctrl_fn = ctrl if callable(ctrl) else None
    ctrl0 = _rows(ctrl, n, model.nu, "ctrl") if ctrl is not None and ctrl_fn is None else None

    def part(a, lo, hi):
        return None if a is None else np.ascontiguousarray(a[lo:hi])

    tasks = []
    for lo in range(0, n, size):
        hi = min(n, lo + size)
        tasks.append(
            {
                "model": spec,
                "lo": lo,
                "count": hi - lo,
                **options,
                "seed": int(seed),
                "grammar": grammar,
                "values": {k: v[lo:hi] for k, v in values.items()},
                "qpos": part(qpos0, lo, hi),
                "qvel": part(qvel0, lo, hi),
                "ctrl": part(ctrl0, lo, hi),
                "ctrl_fn": ctrl_fn,
                "record": record,
                "nrec": nrec,
                "every": every,
                "steps": steps,
                "sensitivities": sens,
            }
        )
    saved = None
    if store is not None:
        from ._sweep_store import SweepStore, inputs_digest

        with open(spec["path"], "rb") as f:
            source = hashlib.sha256(f.read()).hexdigest()
        settings = {**options, "seed": int(seed)}
        text = json.dumps(
            [grammar, settings, spec, source, _callable_digest(ctrl_fn), record, n, steps]
            + [every, size, zwang.__version__]
        )
        signature = {
            "instances": n,
            "steps": steps,
            "every": every,
            "record": record,
            "chunk": size,
            "model": spec["path"],
            "inputs": inputs_digest({**values, "qpos": qpos0, "qvel": qvel0, "ctrl": ctrl0}, text),
        }
        shapes = {k: ((nrec, n, *a.shape[1:]), a.dtype) for k, a in one.items()}
        saved = SweepStore(store, signature, shapes, size, len(tasks))
        records = {}
    else:
        records = {k: np.empty((nrec, n, *a.shape[1:]), dtype=a.dtype) for k, a in one.items()}
    sensitive: dict[str, np.ndarray] = {}
    status = np.empty(n, dtype=np.asarray(probe.status).dtype)
    drawn = dict(values)
    failures = []
    todo = [t for t in tasks if saved is None or not saved.done[t["lo"] // size]]
    bar = _progress_bar(progress, len(todo), n * steps)
    if bar is not None:
        bar.unit = "chunk"
    futures: dict = {}
    try:
        from concurrent.futures import as_completed

        futures = {executor.submit(_run_chunk, t): t for t in todo}
        failed = []
        for future in as_completed(futures):
            # a chunk that failed does not stop the others: what they finish is written to the
            # store, and the failures are raised at the end
            try:
                out = future.result()
            except Exception as e:
                t = futures[future]
                failed.append((t["lo"], t["lo"] + t["count"], e))
                continue
            lo = out["lo"]
            if saved is not None:
                saved.write(lo // size, lo, out)
            else:
                k = len(out["status"])
                for name, a in out["records"].items():
                    records[name][:, lo : lo + k] = a
                for name, a in out["sensitivities"].items():
                    into = sensitive.setdefault(name, np.empty((nrec, n, *a.shape[2:])))
                    into[:, lo : lo + k] = a
                status[lo : lo + k] = out["status"]
                for name, a in out["drawn"].items():
                    into = drawn.setdefault(name, np.empty((n, *a.shape[1:]), dtype=a.dtype))
                    into[lo : lo + k] = a
                failures += [SweepFailure(*f) for f in out["failures"]]
            if bar is not None:
                bar.update(1)
    finally:
        # an interrupt (or an error here) leaves no chunk queued to run for nothing
        for future in futures:
            future.cancel()
        if bar is not None:
            bar.close()
    if failed:
        failed.sort(key=lambda f: f[0])
        lo, hi, e = failed[0]
        more = f" (and {len(failed) - 1} more chunks)" if len(failed) > 1 else ""
        kept = f"; the store {saved.path} keeps the other chunks" if saved is not None else ""
        raise RuntimeError(
            f"the chunk of instances {lo} to {hi - 1} failed{more}: {e}{kept}"
        ) from e
    if saved is not None:
        records, status = saved.records(), saved.status()
        drawn.update(saved.drawn())
        failures = [SweepFailure(*f) for f in saved.failures()]
    failures.sort(key=lambda f: f.instance)
    result = _result(model, drawn, records, nrec, every, steps, status, failures, seed)
    result.sensitivities, result.sensitivity_names = sensitive, sens_names
    return result
