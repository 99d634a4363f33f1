"""zwang.sweep: parameter selection and distributions, reproducibility from the seed, records,
and the xarray and pandas views."""

from __future__ import annotations

import numpy as np
import pytest
import zwang
from zwang.sweep import SweepResult, draw, parse_name, rng_for, sweep

PENDULUM = """<mujoco>
  <option timestep="0.002" integrator="RK4"/>
  <worldbody>
    <body name="bob">
      <joint name="hinge" type="hinge" axis="0 1 0" damping="0.05"/>
      <inertial pos="0 0 -1" mass="1" diaginertia="1e-4 1e-4 1e-4"/>
    </body>
  </worldbody>
  <actuator><motor joint="hinge" ctrlrange="-1 1" ctrllimited="true"/></actuator>
</mujoco>
"""


@pytest.fixture()
def model(tmp_path):
    path = tmp_path / "pendulum.xml"
    path.write_text(PENDULUM)
    return zwang.load(str(path))


def test_parse_name():
    assert parse_name("body_mass") == ("body_mass", ())
    assert parse_name("body_mass[2]") == ("body_mass", (2,))
    assert parse_name(" body_ipos[1, 2] ") == ("body_ipos", (1, 2))
    with pytest.raises(ValueError):
        parse_name("body_mass[x]")


def test_distribution_forms():
    rng = np.random.default_rng(0)
    assert draw(("uniform", 1.0, 2.0), rng, 1000, ()).shape == (1000,)
    u = draw(("uniform", 1.0, 2.0), np.random.default_rng(1), 1000, (3,))
    assert u.shape == (1000, 3) and u.min() >= 1 and u.max() < 2
    # the tuple draws what numpy's generator draws from the same stream
    np.testing.assert_array_equal(u, np.random.default_rng(1).uniform(1.0, 2.0, (1000, 3)))
    n = draw(("normal", 5.0, 0.1), rng, 20000, ())
    assert abs(n.mean() - 5) < 0.01 and abs(n.std() - 0.1) < 0.01
    c = draw(("choice", [1, 2]), rng, 100, ())
    assert set(np.unique(c)) <= {1.0, 2.0}
    np.testing.assert_array_equal(
        draw(np.arange(4.0), rng, 4, (2,)), np.repeat(np.arange(4.0)[:, None], 2, axis=1)
    )
    np.testing.assert_array_equal(draw(7.0, rng, 3, ()), [7.0, 7.0, 7.0])
    assert draw(lambda r, k: r.uniform(size=k), rng, 5, (2,)).shape == (5, 2)
    scaled = draw(("scale", ("uniform", 2.0, 2.0)), rng, 3, (2,), np.ones((3, 2)) * 3)
    np.testing.assert_array_equal(scaled, np.full((3, 2), 6.0))
    with pytest.raises(ValueError):
        draw(np.arange(3.0), rng, 4, ())
    with pytest.raises(ValueError):
        draw(("beta", 1, 2), rng, 4, ())


def test_scipy_distribution():
    stats = pytest.importorskip("scipy.stats")
    a = draw(stats.norm(3, 0.5), rng_for(1, "x"), 10, ())
    b = stats.norm(3, 0.5).rvs(size=(10,), random_state=rng_for(1, "x"))
    np.testing.assert_array_equal(a, b)


def test_sweep_sets_parameters_and_is_reproducible(model):
    params = {"dof_damping[0]": ("uniform", 0.0, 0.2), "body_mass[1]": ("normal", 1.0, 0.05)}
    a = sweep(
        model,
        params,
        instances=8,
        steps=20,
        record=["qpos", "qvel"],
        every=5,
        seed=3,
        qpos=np.array([0.3]),
    )
    b = sweep(
        model,
        dict(reversed(list(params.items()))),
        instances=8,
        steps=20,
        record=["qpos", "qvel"],
        every=5,
        seed=3,
        qpos=np.array([0.3]),
    )
    for name in params:
        np.testing.assert_array_equal(a.params[name], b.params[name])
    np.testing.assert_array_equal(a.records["qpos"], b.records["qpos"])
    # each parameter's draws depend on the seed and its name only
    np.testing.assert_array_equal(
        a.params["dof_damping[0]"], rng_for(3, "dof_damping[0]").uniform(0.0, 0.2, 8)
    )
    c = sweep(model, params, instances=8, steps=20, every=5, seed=4, qpos=np.array([0.3]))
    assert not np.array_equal(a.params["dof_damping[0]"], c.params["dof_damping[0]"])
    assert a.records["qpos"].shape == (5, 8, 1) and a.steps.tolist() == [0, 5, 10, 15, 20]
    np.testing.assert_allclose(a.time, a.steps * model.timestep)
    assert (a.status == 0).all()
    # the run matches a simulator given the same parameters by hand
    sim = zwang.Simulator(model, instances=8)
    sim.params.dof_damping[:, 0] = a.params["dof_damping[0]"]
    sim.params.body_mass[:, 1] = a.params["body_mass[1]"]
    sim.reset(qpos=np.full((8, 1), 0.3))
    sim.step(20)
    np.testing.assert_array_equal(a.records["qpos"][-1], sim.qpos)


def test_sweep_records_derived_fields_at_the_recorded_state(model):
    r = sweep(
        model, None, instances=2, steps=7, record=["qpos", "xpos"], every=3, qpos=np.array([0.5])
    )
    assert r.steps.tolist() == [0, 3, 6, 7]
    # the bob's body frame sits on the hinge; its centre of mass follows qpos
    sim = zwang.Simulator(model, instances=2)
    for k, q in enumerate(r.records["qpos"]):
        sim.reset(qpos=q)
        sim.forward()
        np.testing.assert_allclose(r.records["xpos"][k], sim.xpos, atol=1e-14)


def test_whole_parameter_and_scale(model):
    r = sweep(
        model, {"body_inertia": ("scale", ("uniform", 0.5, 2.0))}, instances=4, steps=1, seed=1
    )
    nominal = np.array(zwang.Simulator(model, instances=1).params.body_inertia[0])
    values = r.params["body_inertia"]
    assert values.shape == (4, *nominal.shape)
    nonzero = nominal != 0
    ratio = values[:, nonzero] / nominal[nonzero]
    assert ((ratio >= 0.5) & (ratio <= 2.0)).all() and np.unique(ratio).size == ratio.size
    assert (values[:, ~nonzero] == 0).all()


def test_controls_constant_and_callable(model):
    r1 = sweep(model, None, instances=3, steps=10, every=10, ctrl=np.array([0.5]))
    r2 = sweep(
        model, None, instances=3, steps=10, every=10, ctrl=lambda sim, k: np.full((3, 1), 0.5)
    )
    np.testing.assert_allclose(r1.records["qpos"], r2.records["qpos"], rtol=0, atol=1e-14)
    assert r1.records["qpos"][-1, 0, 0] > 0


def test_grammar_of_the_command_line():
    assert zwang.parse_param_name("body_ipos[2, 0]") == ("body_ipos", (2, 0))
    assert zwang.parse_distribution("0.8:1.2") == ("scale", ("uniform", 0.8, 1.2))
    assert zwang.parse_distribution("scale(normal(1, 0.1))") == ("scale", ("normal", 1.0, 0.1))
    assert zwang.parse_distribution("choice(1, 2.5)") == ("choice", [1.0, 2.5])
    assert zwang.parse_distribution(" 0.5 ") == 0.5
    assert zwang.parse_randomization("body_mass+body_inertia=0.9:1.1, gravity[2]=-9") == [
        (
            "body_mass+body_inertia",
            [("body_mass", ()), ("body_inertia", ())],
            ("scale", ("uniform", 0.9, 1.1)),
        ),
        ("gravity[2]", [("gravity", (2,))], -9.0),
    ]
    with pytest.raises(ValueError, match="unknown distribution 'gauss'"):
        zwang.parse_distribution("gauss(0, 1)")
    with pytest.raises(ValueError, match=r"'mass=1': unknown parameter 'mass' \(the parameters: "):
        zwang.parse_randomization("mass=1")


def test_string_values_draw_as_their_tuples(model):
    """A value written in the command line's grammar is the tuple form it parses to."""
    common = dict(instances=64, steps=1, seed=4)
    a = sweep(model, {"dof_damping[0]": "uniform(0, 0.2)", "body_mass": "0.5:2"}, **common)
    b = sweep(
        model,
        {"dof_damping[0]": ("uniform", 0, 0.2), "body_mass": ("scale", ("uniform", 0.5, 2))},
        **common,
    )
    for name in a.params:
        np.testing.assert_array_equal(a.params[name], b.params[name])


def test_spec_string_draws_as_the_command_line(model):
    """A whole spec draws as ``zwang run --randomize SPEC --seed S`` and ``sim.randomize``: a
    body's mass and inertia by one factor, the damping of every instance its own."""
    spec = "body_mass+body_inertia=0.5:2, dof_damping[0]=uniform(0, 0.2)"
    r = sweep(model, spec, instances=32, steps=1, seed=9)
    sim = zwang.Simulator(model, instances=32)
    sim.randomize(spec, seed=9)
    np.testing.assert_array_equal(r.params["body_mass"], sim.params.body_mass)
    np.testing.assert_array_equal(r.params["body_inertia"], sim.params.body_inertia)
    np.testing.assert_array_equal(r.params["dof_damping[0]"], sim.params.dof_damping[:, 0])
    factor = r.params["body_mass"][:, 1] / model.body_mass[1]
    assert np.all((factor >= 0.5) & (factor <= 2)) and len(set(factor)) == 32
    np.testing.assert_allclose(
        r.params["body_inertia"][:, 1, :3] / model.body_inertia[1, :3],
        np.repeat(factor[:, None], 3, axis=1),
        rtol=1e-15,
    )
    with pytest.raises(ValueError, match="index 3 is not in"):
        sim.randomize("body_mass[3]=1")


def test_errors(model):
    with pytest.raises(ValueError, match="unknown parameter"):
        sweep(model, {"mass": 1.0}, instances=2, steps=1)
    with pytest.raises(ValueError, match="index"):
        sweep(model, {"body_mass[9]": 1.0}, instances=2, steps=1)
    with pytest.raises(ValueError):
        sweep(model, None, instances=2, steps=1, record=["nothing"])


def test_xarray_and_pandas_views(model):
    pytest.importorskip("xarray")
    pytest.importorskip("pandas")
    r = sweep(
        model,
        {"dof_damping[0]": ("uniform", 0, 0.1), "body_ipos[1]": ("uniform", -1, 1)},
        instances=3,
        steps=4,
        every=2,
        record=["qpos", "xpos"],
    )
    ds = r.to_xarray()
    assert ds["qpos"].dims == ("time", "instance", "coordinate")
    assert ds["xpos"].dims[:3] == ("time", "instance", "body")
    assert list(ds["body"].values) == list(model.body_names)
    np.testing.assert_array_equal(ds["dof_damping[0]"].values, r.params["dof_damping[0]"])
    df = r.to_dataframe()
    assert len(df) == 3 * 3
    np.testing.assert_array_equal(df["qpos[0]"].to_numpy(), r.records["qpos"].reshape(-1))
    np.testing.assert_array_equal(df["dof_damping[0]"].to_numpy()[:3], r.params["dof_damping[0]"])
    assert isinstance(r, SweepResult)


def test_records_over_max_bytes_are_refused_before_stepping(model):
    # 11 records (steps 0, 10, ..., 100) of 4 instances x (qpos + qvel) float64, plus each
    # record's int64 step and float64 time
    nrec = 100 // 10 + 1
    need = nrec * (4 * (model.nq + model.nv) * 8 + 16)
    r = sweep(model, None, instances=4, steps=100, every=10, max_bytes=need)
    assert r.records["qpos"].shape == (nrec, 4, model.nq)
    assert r.steps.tolist() == list(range(0, 101, 10))
    with pytest.raises(ValueError) as err:
        sweep(model, None, instances=4, steps=100, every=10, max_bytes=need - 1)
    message = str(err.value)
    for part in (
        f"{need} bytes",
        f"{nrec} records",
        f"{need // nrec} bytes",
        f"max_bytes={need - 1}",
        "every",
        "record",
        "instances or steps",
    ):
        assert part in message, part


def test_default_max_bytes_refuses_a_billion_records_at_once(model, tmp_path):
    import os
    import subprocess
    import sys

    nrec = 10**9 + 1
    need = nrec * (1024 * (model.nq + model.nv) * 8 + 16)
    assert need > os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    path = tmp_path / "pendulum.xml"
    path.write_text(PENDULUM)
    # 4 GiB of address space: a list of 10⁹ marks or records fails at once instead of swamping
    # the machine
    script = (
        "import resource, time\n"
        "resource.setrlimit(resource.RLIMIT_AS, (4 * 2**30, 4 * 2**30))\n"
        "from zwang.sweep import sweep\n"
        "start = time.monotonic()\n"
        "try:\n"
        f"    sweep({str(path)!r}, None, instances=1024, steps=10**9, every=1)\n"
        "except ValueError as err:\n"
        "    print(time.monotonic() - start)\n"
        "    print(err)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    seconds, message = run.stdout.split("\n", 1)
    assert float(seconds) < 1.0
    assert f"{need} bytes" in message and f"{nrec} records" in message and "TiB" in message


def test_records_follow_the_fields_shapes_and_dtypes(model):
    # a last record at steps when every does not divide it; per instance: time float64, status
    # int32, xpos float32 in f32
    r = sweep(
        model,
        None,
        instances=3,
        steps=7,
        every=3,
        record=["time", "status", "xpos"],
        precision="f32",
        max_bytes=4 * (3 * (8 + 4 + model.nbody * 3 * 4) + 16),
    )
    assert r.steps.tolist() == [0, 3, 6, 7]
    assert r.records["time"].shape == (4, 3) and r.records["time"].dtype == np.float64
    assert r.records["xpos"].dtype == np.float32
    assert r.records["status"].dtype == np.int32
    assert r.records["xpos"].shape == (4, 3, model.nbody, 3)
    np.testing.assert_allclose(r.records["time"][:, 0], r.steps * model.timestep, rtol=1e-6)


@pytest.mark.parametrize(
    "kwargs",
    [{"instances": 4.5}, {"steps": 2.5}, {"every": 1.0}, {"instances": True}, {"steps": "10"}],
)
def test_counts_must_be_integers(model, kwargs):
    # int() would take 4.5 instances for 4 silently
    args = {"instances": 4, "steps": 10, "every": 5, **kwargs}
    with pytest.raises(TypeError, match=next(iter(kwargs)) + " must be an integer"):
        sweep(model, **args, progress=False)


def test_counts_must_be_in_range(model):
    with pytest.raises(ValueError, match="steps must be at least 0"):
        sweep(model, instances=4, steps=-1, progress=False)
    with pytest.raises(ValueError, match="every must be at least 1"):
        sweep(model, instances=4, steps=10, every=0, progress=False)


def test_quantity_names_the_columns_of_the_dataframe(model):
    r = sweep(
        model,
        params={"dof_damping[0]": ("uniform", 0.0, 0.1), "body_ipos[1]": ("uniform", -1.0, 1.0)},
        instances=6,
        steps=20,
        record=["qpos", "xpos"],
        every=5,
        seed=2,
    )
    frame = r.to_dataframe()
    np.testing.assert_array_equal(r.quantity("dof_damping[0]"), r.params["dof_damping[0]"])
    np.testing.assert_array_equal(r.quantity("body_ipos[1][2]"), r.params["body_ipos[1]"][:, 2])
    np.testing.assert_array_equal(
        r.quantity("body_ipos[1][2]"), frame["body_ipos[1][2]"].to_numpy()[: r.status.size]
    )
    np.testing.assert_array_equal(r.quantity("qpos"), r.records["qpos"][:, :, 0])
    np.testing.assert_array_equal(r.quantity("xpos[1,2]").ravel(), frame["xpos[1,2]"].to_numpy())
    for bad, what in [
        ("nope", "neither a swept parameter nor a record"),
        ("xpos", "components: name one"),
        ("body_ipos[1]", "components: name one"),
        ("xpos[2,0]", "components of shape"),
        ("qpos[a]", "must be integers"),
    ]:
        with pytest.raises(ValueError, match=what):
            r.quantity(bad)


def test_plot_draws_the_records_and_parameters_it_names(model):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = 12
    mass = np.ones(n)
    mass[4] = -1.0  # stops at its first step: drawn in grey
    r = sweep(
        model,
        params={"dof_damping[0]": ("uniform", 0.0, 0.1), "body_mass[1]": mass},
        instances=n,
        steps=40,
        record=["qpos", "qvel"],
        every=10,
        seed=3,
        qpos=np.array([0.3]),
    )
    assert r.status[4] != 0 and (r.status[np.arange(n) != 4] == 0).all()
    grey = (0.6, 0.6, 0.6, 1.0)
    # over time: one line per instance, the time and the record, coloured by the damping
    ax = r.plot("qvel[0]", max_lines=10)
    (lines,) = ax.collections
    segments = lines.get_segments()
    assert len(segments) == 10
    for i, segment in enumerate(segments):
        np.testing.assert_array_equal(segment[:, 0], r.time)
        np.testing.assert_array_equal(segment[:, 1], r.records["qvel"][:, i, 0])
    colours = lines.get_colors()
    assert tuple(colours[4]) == grey and len({tuple(c) for c in colours}) > 2
    assert ax.get_xlabel() == "time (s)" and ax.get_ylabel() == "qvel[0]"
    assert ax.figure.axes[-1].get_ylabel() == "dof_damping[0]"  # the colour bar
    plt.close(ax.figure)
    # against a parameter: one point per instance at the record asked for
    ax = r.plot("qpos[0]", x="dof_damping[0]", record=2)
    (points,) = ax.collections
    np.testing.assert_array_equal(
        points.get_offsets(),
        np.column_stack([r.params["dof_damping[0]"], r.records["qpos"][2, :, 0]]),
    )
    assert tuple(points.get_facecolors()[4]) == grey
    assert ax.get_ylabel() == f"qpos[0] at t = {r.time[2]:g} s"
    plt.close(ax.figure)
    # an array computed from the result, on given axes
    fig, given = plt.subplots()
    peak = np.abs(r.records["qpos"][:, :, 0]).max(axis=0)
    assert r.plot(peak, x="dof_damping[0]", label="peak angle", ax=given) is given
    np.testing.assert_array_equal(given.collections[0].get_offsets()[:, 1], peak)
    assert given.get_ylabel() == "peak angle"
    plt.close(fig)
    with pytest.raises(ValueError, match="expected \\(12,\\)"):
        r.plot(np.zeros(3), x="dof_damping[0]")
    with pytest.raises(ValueError, match="not recorded over time"):
        r.plot("dof_damping[0]")
    plt.close("all")


SENSED = """<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <body name="arm">
      <joint name="shoulder" type="ball" damping="0.02"/>
      <inertial pos="0.1 0 -0.5" mass="1" diaginertia="0.02 0.03 0.01"/>
      <site name="tip" pos="0 0 -0.6"/>
      <body name="forearm" pos="0 0 -0.6">
        <joint name="elbow" type="hinge" axis="0 1 0" damping="0.05"/>
        <inertial pos="0 0 -0.3" mass="0.5" diaginertia="0.005 0.005 0.001"/>
      </body>
    </body>
  </worldbody>
  <actuator><motor name="drive" joint="elbow" gear="2"/></actuator>
  <sensor>
    <jointvel joint="elbow"/>
    <framepos objtype="site" objname="tip"/>
    <actuatorfrc actuator="drive"/>
  </sensor>
</mujoco>
"""


def test_sensitivities_match_differences_of_the_sweep(tmp_path):
    """A ball joint and a hinge, swept in a mass, a centre of mass, damping and a gear: the
    sensitivities of qpos (a quaternion's coordinates too), qvel and sensordata at every record
    against centred differences of the same sweep with the parameters moved by ±h."""
    path = tmp_path / "arm.xml"
    path.write_text(SENSED)
    arm = zwang.load(str(path))
    n, h = 3, 1e-6
    rng = np.random.default_rng(4)
    params = {
        "body_mass[2]": rng.uniform(0.4, 0.6, n),
        "body_ipos[1,0]": rng.uniform(0.05, 0.15, n),
        "dof_damping": rng.uniform(0.01, 0.05, (n, arm.nv)),
        "actuator_gear[0]": rng.uniform(1.5, 2.5, n),
    }
    qpos = np.array([np.cos(0.3), np.sin(0.3), 0, 0, 0.4])
    run = dict(
        instances=n,
        steps=60,
        every=20,
        record=["qpos", "qvel", "sensordata", "xpos"],
        qpos=qpos,
        ctrl=[0.3],
    )
    r = sweep(arm, params, sensitivities=True, **run)
    names = r.sensitivity_names
    assert names == [
        "body_mass[2]",
        "body_ipos[1,0]",
        "dof_damping[0]",
        "dof_damping[1]",
        "dof_damping[2]",
        "dof_damping[3]",
        "actuator_gear[0]",
    ]
    assert set(r.sensitivities) == {"qpos", "qvel", "sensordata"}
    assert r.sensitivities["qpos"].shape == (4, n, arm.nq, len(names))
    # nothing depends on the parameters at the start
    assert not np.any(r.sensitivities["qpos"][0]) and not np.any(r.sensitivities["qvel"][0])
    for p, label in enumerate(names):
        base, _, rest = label.partition("[")
        index = tuple(int(k) for k in rest[:-1].split(","))
        moved = {}
        for sign in (1, -1):
            values = {k: np.array(v, dtype=np.float64) for k, v in params.items()}
            key = next(k for k in values if k.split("[")[0] == base)
            if key == "dof_damping":
                values[key][:, index[0]] += sign * h
            else:
                values[key] += sign * h
            moved[sign] = sweep(arm, values, **run).records
        for name in ("qpos", "qvel", "sensordata"):
            central = (moved[1][name] - moved[-1][name]) / (2 * h)
            np.testing.assert_allclose(
                r.sensitivities[name][..., p], central, rtol=1e-5, atol=1e-7, err_msg=label
            )
    # the elbow's velocity sensor is its qvel; a motor's force (in actuator space, before the
    # gear) is its control, whatever the gear
    sens = r.sensitivities
    np.testing.assert_array_equal(sens["sensordata"][:, :, 0], sens["qvel"][:, :, 3])
    assert not np.any(sens["sensordata"][:, :, 4, 6])


def test_sensitivities_in_chunks_equal_one_process(model):
    run = dict(
        params={"dof_damping[0]": ("uniform", 0.0, 0.1), "body_ipos[1,2]": ("uniform", -1.5, -0.5)},
        instances=5,
        steps=30,
        every=10,
        record=["qpos", "qvel"],
        qpos=[0.2],
        seed=3,
        sensitivities=True,
    )
    whole = sweep(model, **run)
    chunks = sweep(model, chunk=2, **run)
    assert (
        chunks.sensitivity_names
        == whole.sensitivity_names
        == [
            "dof_damping[0]",
            "body_ipos[1,2]",
        ]
    )
    for name in ("qpos", "qvel"):
        np.testing.assert_array_equal(chunks.sensitivities[name], whole.sensitivities[name])
    # a grammar string sweeps its selections
    rest = {k: v for k, v in run.items() if k not in ("params", "instances")}
    spec = sweep(model, "dof_damping[0]=uniform(0, 0.1)", instances=2, **rest)
    assert spec.sensitivity_names == ["dof_damping[0]"]
    # an instance that stops (a negative mass) has NaN sensitivities, the others are kept
    mass = {"body_mass[1]": np.array([1.0, -1.0]), "dof_damping[0]": ("uniform", 0.0, 0.1)}
    stop = sweep(model, mass, instances=2, **rest)
    assert stop.status[1] != 0 and stop.status[0] == 0
    assert np.isnan(stop.sensitivities["qvel"][-1, 1]).all()
    assert np.isfinite(stop.sensitivities["qvel"][-1, 0]).all()


def test_sensitivities_errors(model, tmp_path):
    base = dict(instances=2, steps=4, sensitivities=True)
    with pytest.raises(ValueError, match="varies no parameter"):
        sweep(model, **base)
    with pytest.raises(ValueError, match="record has none of them"):
        sweep(model, {"dof_damping[0]": 0.1}, record=["xpos"], **base)
    with pytest.raises(ValueError, match="not written to a store"):
        sweep(model, {"dof_damping[0]": 0.1}, store=str(tmp_path / "s.zarr"), **base)
    # the sensitivities count against max_bytes: 3 records of qvel (nv = 1) for 2 instances
    # take 3 (2 · 8 + 16) bytes, with two swept elements 3 · 2 · 8 · 2 more
    two = {"dof_damping[0]": 0.1, "body_mass[1]": 2.0}
    need = 3 * (2 * 8 + 16) + 3 * 2 * 8 * 2
    sweep(model, two, record=["qvel"], every=2, max_bytes=need, **base)
    for chunk in (None, 1):
        with pytest.raises(ValueError, match="sensitivities of qvel 16 B"):
            sweep(model, two, record=["qvel"], every=2, max_bytes=need - 1, chunk=chunk, **base)
    # a record given as a generator is read once
    r = sweep(model, two, record=(f for f in ["qvel"]), every=2, **base)
    assert list(r.records) == ["qvel"] and r.sensitivities["qvel"].shape == (3, 2, 1, 2)
