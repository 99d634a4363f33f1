"""zwang.viewer.Viewer: chosen instances of a Simulator or of a trajectory, drawn by viser."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._render import rows as _rows
from ._geometry import geom_shapes, matrix_to_wxyz

LAYOUTS = ("side by side", "overlaid")


def parse_instances(text: str | Sequence[int] | int, count: int) -> list[int]:
    """Instance indices from "0, 5, 17" or a sequence; ValueError naming a bad or out-of-range
    one."""
    if isinstance(text, (int, np.integer)):
        items: list[Any] = [text]
    elif isinstance(text, str):
        items = [t for t in text.replace(",", " ").split() if t]
    else:
        items = list(text)
    out = []
    for t in items:
        try:
            i = int(t)
        except (TypeError, ValueError):
            raise ValueError(f"instances: {t!r} is not an integer") from None
        if not 0 <= i < count:
            raise ValueError(f"instances: {i} is out of range (there are {count})")
        if i not in out:
            out.append(i)
    if not out:
        raise ValueError("instances: none given")
    return out


def _text(value) -> str:
    """An HDF5 string attribute, which h5py may return as bytes."""
    if isinstance(value, (bytes, np.bytes_)):
        return value.decode()
    return str(value)


class Trajectory:
    """The records of a ``zwang run -o RUN.h5`` file: qpos, qvel, ctrl, act, time and the
    parameters of each instance, read with h5py record by record (a file of many instances is
    not loaded to show a few)."""

    STATE = ("qpos", "qvel", "ctrl", "act")

    def __init__(self, path: str) -> None:
        import h5py

        self.path = str(path)
        try:
            with h5py.File(self.path, "r") as f:
                missing = [k for k in ("qpos", "qvel", "time") if k not in f]
                if missing:
                    raise ValueError(
                        f"{self.path}: not a zwang trajectory (no {', '.join(missing)})"
                    )
                self.model = _text(f.attrs.get("model", ""))
                self.rules = _text(f.attrs.get("rules", "4.0")) or "4.0"
                self.records = int(f["qpos"].shape[0])
                self.instances = int(f["qpos"].shape[1])
                self.nq = int(f["qpos"].shape[2])
                self.status = _text(f.attrs.get("status", ""))
                self.timestep = float(f.attrs.get("timestep", 0.0))
                self.record_every = int(f.attrs.get("record_every", 1))
                self.fields = [k for k in self.STATE if k in f]
                self.parameters = list(f["parameters"].keys()) if "parameters" in f else []
        except OSError as e:
            raise OSError(f"{self.path}: cannot read it as HDF5 ({e})") from e
        if self.records == 0:
            raise ValueError(f"{self.path}: the trajectory has no records")

    def qpos_width(self) -> int:
        return self.nq

    def _read(self, name: str, at: tuple, idx: Sequence[int]) -> np.ndarray:
        import h5py

        # h5py reads rows in increasing order
        order = np.argsort(idx)
        rows = np.asarray(idx)[order]
        with h5py.File(self.path, "r") as f:
            got = np.asarray(f[name][(*at, rows)])
        out = np.empty_like(got)
        out[order] = got
        return out

    def state(self, record: int, instances: Sequence[int]) -> dict[str, np.ndarray]:
        return {k: self._read(k, (record,), instances) for k in self.fields}

    def params(self, instances: Sequence[int]) -> dict[str, np.ndarray]:
        """The parameters the instances ran with, by name."""
        return {k: self._read(f"parameters/{k}", (), instances) for k in self.parameters}

    def time(self, record: int) -> float:
        return float(self._read("time", (record,), [0])[0])


def model_of(trajectory: Trajectory | None) -> str | None:
    """The model file a trajectory names; ValueError when it names none that exists here (a
    built-in example, a file moved or of another machine)."""
    if trajectory is None:
        return None
    if not os.path.isfile(trajectory.model):
        raise ValueError(
            f"{trajectory.path}: its model {trajectory.model!r} is not a file here; give the "
            "MODEL file (for a built-in example, `zwang export NAME -o NAME.xml` writes one)"
        )
    return trajectory.model


def _stopped(status: int, finite: bool) -> str:
    """What a shown instance's status says, in words; '' for a running instance (one whose
    solver did not converge runs on: that flag alone is no stop)."""
    import zwang

    stopping = status & ~int(zwang.STATUS_NOT_CONVERGED)
    words = [
        name[len("STATUS_") :].lower().replace("_", " ")
        for name in dir(zwang)
        if name.startswith("STATUS_") and stopping & int(getattr(zwang, name))
    ]
    parts = [f"stopped ({', '.join(words) or status})"] if stopping else []
    if not finite:
        parts.append("state not finite, drawn where it was")
    return "; ".join(parts)


def zwang_param_fields() -> tuple[str, ...]:
    import zwang

    return tuple(zwang.PARAM_FIELDS)


class Viewer:
    """A web viewer of instances of a zwang Simulator (live) or Model (its default state, or a
    Trajectory's records), served by viser at ``url``.

    ``v = Viewer(sim, instances=[0, 1, 2])`` then ``v.update()`` after steps: it reads the shown
    instances' state only (qpos, qvel, act, ctrl, mocap poses, status), places them by a CPU
    simulator of those instances (``forward()``: zwang's own kinematics and contacts at that
    state, with the model's parameters), and sends the poses to the browsers connected.
    Instances that stopped (a nonzero status) are labelled with the reason and keep the pose
    they had.  The page has an instance picker, side by side or overlaid layouts, toggles for
    contact points and forces, body frames and centres of mass, and for a trajectory a record
    slider with play and pause.
    """

    def __init__(
        self,
        source,
        instances: Sequence[int] | str | int = (0,),
        *,
        trajectory: Trajectory | None = None,
        model_path: str | None = None,
        layout: str = "side by side",
        host: str = "127.0.0.1",
        port: int = 8080,
        verbose: bool = True,
    ) -> None:
        import viser

        import zwang

        if isinstance(source, zwang.Simulator):
            self.sim, self.model = source, source.model
        elif isinstance(source, zwang.Model):
            self.sim, self.model = None, source
        else:
            raise TypeError(
                f"Viewer needs a zwang.Simulator or zwang.Model, not {type(source).__name__}"
            )
        if layout not in LAYOUTS:
            raise ValueError(f"layout must be one of {LAYOUTS}, not {layout!r}")
        self.trajectory = trajectory
        if self.sim is not None:
            self.count = self.sim.instances
        elif trajectory is not None:
            self.count = trajectory.instances
            if trajectory.qpos_width() != self.model.nq:
                raise ValueError(
                    f"{trajectory.path}: records of nq = {trajectory.qpos_width()}, the model has "
                    f"nq = {self.model.nq}"
                )
        else:
            self.count = 1 << 30
        self.instances = parse_instances(instances, self.count)
        self.path = model_path if model_path is not None else getattr(self.model, "path", None)
        self.layout = layout
        self.record = 0
        self._lock = threading.RLock()
        self._playing = False
        self._closed = False
        self._side = None
        self._trajectory_params = None
        self._centre = np.zeros(3)
        self._extent = self._model_extent()
        self._shapes = geom_shapes(self.model, self.path, self._extent)
        self.server = viser.ViserServer(host=host, port=port, verbose=False)
        self.server.scene.set_up_direction("+z")
        self.server.gui.configure_theme(show_logo=False, show_share_button=False)
        # a grid on the ground plane z = 0, as a scale
        self.server.scene.add_grid(
            "/grid",
            width=40 * self._extent,
            height=40 * self._extent,
            cell_size=0.5 * self._extent,
            section_size=2.5 * self._extent,
            position=(0.0, 0.0, 1e-3 * self._extent),
        )
        self._handles: dict[str, Any] = {}
        self._poses: dict[int, dict[str, np.ndarray]] = {}
        self._gui()
        self.show(self.instances)
        self._camera()
        if verbose:
            print(f"zwang viewer: {self.url}", flush=True)
        if trajectory is not None:
            self._player = threading.Thread(target=self._play_loop, daemon=True)
            self._player.start()

    @property
    def url(self) -> str:
        host = self.server.get_host()
        return f"http://{'127.0.0.1' if host in ('0.0.0.0', '') else host}:{self.server.get_port()}"

    # -- state --------------------------------------------------------------------------------

    def _model_extent(self) -> float:
        """Half the size of the model at its default state (its geoms, planes aside), at least
        0.25: what the layout and the camera are scaled by."""
        import zwang

        s = zwang.Simulator(self.model, instances=1, backend="cpu")
        s.forward()
        pos = np.asarray(s.geom_xpos[0])
        keep = np.asarray(self.model.geom_type) != 0
        if not keep.any():
            return 1.0
        r = np.asarray(self.model.geom_rbound)[keep][:, None]
        lo, hi = (pos[keep] - r).min(0), (pos[keep] + r).max(0)
        self._centre = 0.5 * (lo + hi)
        return max(0.25, 0.5 * float(np.max(hi - lo)))

    def _state(self) -> dict[str, np.ndarray]:
        idx = self.instances
        if self.trajectory is not None:
            return self.trajectory.state(self.record, idx)
        if self.sim is None:
            q0 = np.asarray(self.model.qpos0)
            return {"qpos": np.tile(q0, (len(idx), 1))}
        out = {k: _rows(self.sim, k, idx) for k in ("qpos", "qvel", "ctrl", "status")}
        if self.model.na > 0:
            out["act"] = _rows(self.sim, "act", idx)
        if self.model.nmocap > 0:
            out["mocap_pos"] = _rows(self.sim, "mocap_pos", idx)
            out["mocap_quat"] = _rows(self.sim, "mocap_quat", idx)
        return out

    def _params(self) -> dict[str, np.ndarray]:
        """The shown instances' parameters: a trajectory's, or a simulator's once any were
        written (sim.parameters_exposed); {} when they are the model's."""
        if self.trajectory is not None:
            if self._trajectory_params is None:
                self._trajectory_params = self.trajectory.params(self.instances)
            return self._trajectory_params
        if self.sim is None or not self.sim.parameters_exposed:
            return {}
        return {
            name: np.asarray(getattr(self.sim.params, name))[self.instances]
            for name in zwang_param_fields()
        }

    def _evaluate(self, state: dict[str, np.ndarray]) -> None:
        """The poses and contacts of the shown instances at `state`, by zwang's forward() on a
        CPU simulator of them; an instance whose state is not finite keeps its last poses."""
        import zwang

        k = len(self.instances)
        if self._side is None or self._side.instances != k:
            self._side = zwang.Simulator(self.model, instances=k, backend="cpu")
        side = self._side
        finite = np.ones(k, dtype=bool)
        for j in range(k):
            row = {n: state[n][j] for n in ("qpos", "qvel", "act") if n in state}
            try:
                side.reset(j, **row)
            except ValueError:
                finite[j] = False
        # a control that is not finite draws as 0 (it moves nothing that is drawn but forces)
        for n in ("ctrl", "mocap_pos", "mocap_quat"):
            if n in state and state[n].size:
                v = np.asarray(state[n], dtype=float)[finite]
                getattr(side, n)[finite] = np.where(np.isfinite(v), v, 0.0)
        # the shown instances' own parameters, where they may differ from the model's
        for name, values in self._params().items():
            if hasattr(side.params, name):
                target = getattr(side.params, name)
                target[...] = np.asarray(values).reshape(target.shape)
        side.forward()
        fields = ("geom_xpos", "geom_xmat", "xpos", "xquat", "xipos", "ncon")
        got = {n: np.array(getattr(side, n)) for n in fields}
        for n in ("contact_pos", "contact_frame", "contact_force"):
            got[n] = np.array(getattr(side, n))
        status = state.get("status", np.zeros(k))
        for j, i in enumerate(self.instances):
            if finite[j]:
                self._poses[i] = {n: v[j] for n, v in got.items()}
            elif i not in self._poses:
                self._poses[i] = {n: np.full(v[j].shape, np.nan) for n, v in got.items()}
            self._poses[i]["status"] = np.int64(status[j])
            self._poses[i]["finite"] = np.bool_(finite[j])

    # -- scene --------------------------------------------------------------------------------

    def _offset(self, j: int) -> np.ndarray:
        if self.layout == "overlaid":
            return np.zeros(3)
        return np.array([2.0 * self._extent * j, 0.0, 0.0])

    def _camera(self) -> None:
        k = len(self.instances)
        centre = self._centre + 0.5 * (self._offset(k - 1) + self._offset(0))
        width = 2 * self._extent + float(np.linalg.norm(self._offset(k - 1)))
        cam = self.server.initial_camera
        cam.look_at = tuple(centre)
        cam.position = tuple(centre + np.array([0.0, -0.9 * width, 0.4 * width]))
        cam.up = (0.0, 0.0, 1.0)

    def _clear(self) -> None:
        for h in self._handles.values():
            h.remove()
        self._handles.clear()

    def show(self, instances: Sequence[int] | str | int) -> None:
        """Shows these instances instead (the scene is built again)."""
        with self._lock:
            self.instances = parse_instances(instances, self.count)
            self._poses = {}
            self._trajectory_params = None
            self._clear()
            scene = self.server.scene
            for j, i in enumerate(self.instances):
                base = f"/instance{i}"
                for s in self._shapes:
                    # planes once, from the first instance: they reach under the others
                    if s.plane and j > 0:
                        continue
                    color = tuple(int(c) for c in np.clip(s.rgba[:3] * 255, 0, 255))
                    self._handles[f"{base}/geom{s.geom}"] = scene.add_mesh_simple(
                        f"{base}/geom{s.geom}",
                        s.vertices,
                        s.faces,
                        color=color,
                        opacity=None if s.rgba[3] >= 1 else float(s.rgba[3]),
                        side="double" if s.plane else "front",
                        flat_shading=False,
                    )
                self._handles[f"{base}/label"] = scene.add_label(
                    f"{base}/label", f"instance {i}", visible=False
                )
            self._evaluate(self._state())
            self._draw()

    def _draw(self) -> None:
        scene = self.server.scene
        gui = self._controls
        with self.server.atomic():
            for j, i in enumerate(self.instances):
                base, p, off = f"/instance{i}", self._poses[i], self._offset(j)
                wxyz = matrix_to_wxyz(p["geom_xmat"].reshape(-1, 3, 3))
                for s in self._shapes:
                    h = self._handles.get(f"{base}/geom{s.geom}")
                    if h is None:
                        continue
                    if np.all(np.isfinite(p["geom_xpos"][s.geom])):
                        h.position = p["geom_xpos"][s.geom] + off
                        h.wxyz = wxyz[s.geom]
                text = _stopped(int(p["status"]), bool(p["finite"]))
                label = self._handles[f"{base}/label"]
                label.visible = bool(text)
                if text:
                    label.position = self._centre + off + np.array([0, 0, 1.2 * self._extent])
                    label.text = f"instance {i}: {text}"
                self._draw_extras(scene, gui, base, p, off)

    def _draw_extras(self, scene, gui, base: str, p: dict, off: np.ndarray) -> None:
        ncon = int(p["ncon"]) if np.isfinite(p["ncon"]) else 0
        pos = p["contact_pos"][:ncon] + off
        show_contacts = gui["contacts"].value and ncon > 0
        self._handles[f"{base}/contacts"] = scene.add_point_cloud(
            f"{base}/contacts",
            points=pos.reshape(-1, 3).astype(np.float32) if ncon else np.zeros((1, 3), np.float32),
            colors=(230, 40, 40),
            point_size=0.04 * self._extent,
            point_shape="circle",
            visible=bool(show_contacts),
        )
        # the normal force on geom2, along the contact normal (the first row of its frame): the
        # model's weight is half its extent long
        normal = p["contact_frame"][:ncon].reshape(-1, 3, 3)[:, 0] if ncon else np.zeros((0, 3))
        fn = p["contact_force"][:ncon, 0] if ncon else np.zeros(0)
        ends = pos + normal * (fn * self._force_scale)[:, None]
        show_forces = gui["forces"].value and ncon > 0
        segments = np.stack([pos, ends], 1) if ncon else np.zeros((1, 2, 3))
        self._handles[f"{base}/forces"] = scene.add_line_segments(
            f"{base}/forces",
            points=segments.astype(np.float32),
            colors=(250, 150, 0),
            thickness=0.01 * self._extent,
            visible=bool(show_forces),
        )
        bodies = p["xpos"][1:] + off
        q = p["xquat"][1:]
        self._handles[f"{base}/frames"] = scene.add_batched_axes(
            f"{base}/frames",
            batched_wxyzs=q.astype(np.float32),
            batched_positions=bodies.astype(np.float32),
            axes_length=0.15 * self._extent,
            axes_radius=0.008 * self._extent,
            visible=bool(gui["frames"].value) and len(bodies) > 0,
        )
        com = p["xipos"][1:] + off
        self._handles[f"{base}/com"] = scene.add_point_cloud(
            f"{base}/com",
            points=com.astype(np.float32) if len(com) else np.zeros((1, 3), np.float32),
            colors=(40, 40, 230),
            point_size=0.05 * self._extent,
            point_shape="diamond",
            visible=bool(gui["com"].value) and len(com) > 0,
        )

    @property
    def _force_scale(self) -> float:
        mass = float(np.sum(self.model.body_mass))
        g = float(np.linalg.norm(self.model.gravity)) or 9.81
        return 0.5 * self._extent / max(mass * g, 1e-9)

    # -- controls -----------------------------------------------------------------------------

    def _gui(self) -> None:
        gui = self.server.gui
        c: dict[str, Any] = {}
        name = os.path.basename(self.path) if self.path else "a model built in code"
        gui.add_markdown(f"**zwang** · {name}")
        c["instances"] = gui.add_text("Instances", ", ".join(map(str, self.instances)))
        c["layout"] = gui.add_dropdown("Layout", LAYOUTS, initial_value=self.layout)
        c["contacts"] = gui.add_checkbox("Contact points", True)
        c["forces"] = gui.add_checkbox("Contact forces", False)
        c["frames"] = gui.add_checkbox("Body frames", False)
        c["com"] = gui.add_checkbox("Centres of mass", False)
        self._controls = c

        @c["instances"].on_update
        def _(_event) -> None:
            try:
                self.show(c["instances"].value)
                self._camera()
            except ValueError as e:
                c["instances"].value = ", ".join(map(str, self.instances))
                print(f"zwang viewer: {e}", flush=True)

        @c["layout"].on_update
        def _(_event) -> None:
            with self._lock:
                self.layout = c["layout"].value
                self.show(self.instances)
                self._camera()

        for key in ("contacts", "forces", "frames", "com"):
            c[key].on_update(lambda _event: self._redraw())

        t = self.trajectory
        if t is not None:
            c["record"] = gui.add_slider("Record", 0, t.records - 1, 1, 0)
            c["play"] = gui.add_checkbox("Play", False)
            c["speed"] = gui.add_number("Speed", 1.0, min=0.01, max=100.0, step=0.1)
            c["time"] = gui.add_markdown(f"t = {t.time(0):.4f} s")

            @c["record"].on_update
            def _(_event) -> None:
                # seek() moving the slider calls this too
                if int(c["record"].value) != self.record:
                    self.seek(int(c["record"].value))

            @c["play"].on_update
            def _(_event) -> None:
                self._playing = bool(c["play"].value)

    def _redraw(self) -> None:
        with self._lock:
            self._draw()

    def seek(self, record: int) -> None:
        """Shows this record of the trajectory."""
        if self.trajectory is None:
            raise RuntimeError("seek: the viewer shows no trajectory")
        if not 0 <= record < self.trajectory.records:
            raise ValueError(f"record {record} is out of range ({self.trajectory.records} records)")
        with self._lock:
            self.record = record
            self._evaluate(self._state())
            self._draw()
            c = self._controls
            if int(c["record"].value) != record:
                c["record"].value = record
            c["time"].content = f"t = {self.trajectory.time(record):.4f} s"

    def play(self, playing: bool = True) -> None:
        """Plays the trajectory (in real time times the speed) or pauses it."""
        if self.trajectory is None:
            raise RuntimeError("play: the viewer shows no trajectory")
        self._controls["play"].value = playing
        self._playing = playing

    def _play_loop(self) -> None:
        t = self.trajectory
        dt = max(t.timestep * t.record_every, 1e-3)
        while not self._closed:
            if not self._playing:
                time.sleep(0.05)
                continue
            start = time.monotonic()
            self.seek((self.record + 1) % t.records)
            speed = float(self._controls["speed"].value) or 1.0
            time.sleep(max(0.0, dt / speed - (time.monotonic() - start)))

    # -- live ---------------------------------------------------------------------------------

    def update(self) -> None:
        """Reads the shown instances' state from the Simulator and redraws them."""
        if self.sim is None:
            raise RuntimeError("update: the viewer shows no Simulator (it was given a Model)")
        with self._lock:
            self._evaluate(self._state())
            self._draw()

    def close(self) -> None:
        self._closed = True
        self.server.stop()

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
