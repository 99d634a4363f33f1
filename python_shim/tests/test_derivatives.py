"""Derivatives of a step (``sim.step_jacobians``, ``sim.derivatives``) against MuJoCo 4.0's
``mjd_transitionFD``: A, B, C, D at the same states of Gymnasium's models and MuJoCo's
humanoid.xml, MuJoCo's centred differences with its solver run to rounding on both sides."""

from __future__ import annotations

import os
import xml.etree.ElementTree as ElementTree

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"
GYMNASIUM_MODELS = [
    "inverted_pendulum.xml",
    "inverted_double_pendulum.xml",
    "reacher.xml",
    "swimmer.xml",
    "hopper.xml",
    "walker2d_v5.xml",
    "half_cheetah.xml",
    "ant.xml",
    "humanoid.xml",
]


def converged_copy(path: str, out_dir) -> str:
    """The model file with Newton's solver run to rounding (tolerance 1e-15, 300 iterations), so
    that MuJoCo's differences see the solution rather than the solver's tolerance, and Euler
    for RK4; its assets are still read from the original folder."""
    tree = ElementTree.parse(path)
    root = tree.getroot()
    option = root.find("option")
    if option is None:
        option = ElementTree.Element("option")
        root.insert(0, option)
    # mjd_transitionFD has no RK4 (zwang's RK4 Jacobians are checked against differences of
    # its own step, tests/model/test_derivatives.cc)
    if option.get("integrator", "").lower() == "rk4":
        option.set("integrator", "Euler")
    option.set("solver", "Newton")
    option.set("tolerance", "1e-15")
    option.set("iterations", "300")
    option.set("ls_tolerance", "1e-15")
    compiler = root.find("compiler")
    if compiler is None:
        compiler = ElementTree.Element("compiler")
        root.insert(0, compiler)
    folder = os.path.dirname(path)
    compiler.set("meshdir", os.path.join(folder, compiler.get("meshdir", "")))
    target = os.path.join(out_dir, os.path.basename(path))
    tree.write(target)
    return target


@pytest.fixture(scope="module")
def gym_assets():
    gymnasium = pytest.importorskip("gymnasium")
    from pathlib import Path

    return Path(os.path.dirname(gymnasium.__file__)) / "envs" / "mujoco" / "assets"


@pytest.mark.parametrize("name", GYMNASIUM_MODELS + ["mujoco_humanoid"])
def test_step_jacobians_match_mujoco_transition_fd(name, gym_assets, tmp_path):
    path = HUMANOID if name == "mujoco_humanoid" else str(gym_assets / name)
    if not os.path.exists(path):
        pytest.skip(f"{path} is not installed")
    path = converged_copy(path, tmp_path)
    m = mujoco.MjModel.from_xml_path(path)
    d = mujoco.MjData(m)
    # a state reached by a short rollout with random controls inside their ranges
    rng = np.random.default_rng(5)
    d.qvel[:] = rng.uniform(-0.3, 0.3, m.nv)
    lo, hi = m.actuator_ctrlrange[:, 0], m.actuator_ctrlrange[:, 1]
    limited = m.actuator_ctrllimited.astype(bool)
    ctrl = np.where(limited, lo + rng.uniform(0.3, 0.7, m.nu) * (hi - lo), 0.2)
    d.ctrl[:] = ctrl
    for _ in range(10):
        mujoco.mj_step(m, d)
    nx = 2 * m.nv + m.na
    A = np.zeros((nx, nx))
    B = np.zeros((nx, m.nu))
    C = np.zeros((m.nsensordata, nx))
    D = np.zeros((m.nsensordata, m.nu))
    state = (d.qpos.copy(), d.qvel.copy(), d.act.copy(), d.time)
    sensors = m.nsensordata > 0
    mujoco.mjd_transitionFD(m, d, 1e-6, True, A, B, C if sensors else None, D if sensors else None)

    model = zwang.load(path)
    sim = zwang.Simulator(model, instances=2)
    sim.reset(qpos=state[0], qvel=state[1], act=state[2] if m.na else None)
    sim.ctrl[:] = ctrl
    jac = sim.step_jacobians()
    assert (jac["status"] & ~zwang.STATUS_NOT_CONVERGED == 0).all()
    for key, expected in (("A", A), ("B", B), ("C", C), ("D", D)):
        got = jac[key][0]
        assert got.shape == expected.shape, key
        np.testing.assert_array_equal(got, jac[key][1], err_msg=f"{key}: instances differ")
        # MuJoCo's differences against the exact values, column by column: 1e-9 relative to the
        # column's largest entry is the differences' own error
        scale = np.maximum(1.0, np.abs(expected).max(axis=0, initial=0))
        err = np.abs(got - expected) / scale
        worst = err.max(initial=0)
        assert worst < 1e-5, (key, np.unravel_index(err.argmax(), err.shape), worst)
    # the step's values are MuJoCo's step from the same state
    mujoco.mj_step(m, d)
    np.testing.assert_allclose(jac["qvel"][0], d.qvel, rtol=1e-9, atol=1e-9)


def test_derivatives_arranges_the_blocks(gym_assets):
    model = zwang.load(str(gym_assets / "hopper.xml"))
    sim = zwang.Simulator(model, instances=3)
    sim.ctrl[:] = 0.3
    sim.step(5)
    jac = sim.step_jacobians(instances=[2, 0])
    nv = model.nv
    got = sim.derivatives(wrt=("ctrl", "qvel"), of=("qvel",), instances=[2, 0])
    assert got.shape == (2, nv, model.nu + nv)
    np.testing.assert_array_equal(got[:, :, : model.nu], jac["B"][:, nv : 2 * nv])
    np.testing.assert_array_equal(got[:, :, model.nu :], jac["A"][:, nv : 2 * nv, nv : 2 * nv])
    full = sim.derivatives()
    assert full.shape == (3, 2 * nv + model.nsensordata, 2 * nv + model.nu)
    with pytest.raises(ValueError, match="'qacc'"):
        sim.derivatives(of=("qacc",))
    with pytest.raises(IndexError):
        sim.step_jacobians(instances=[7])


def test_several_steps_follow_the_chain_rule(gym_assets):
    """The Jacobians of three steps with the controls held: A₃ A₂ A₁ and A₃ A₂ B₁ + A₃ B₂ + B₃,
    each step's from the state it starts at, and the state after the three."""
    model = zwang.load(str(gym_assets / "hopper.xml"))
    sim = zwang.Simulator(model, instances=2)
    sim.ctrl[:] = [[0.3, -0.2, 0.5], [-0.4, 0.1, 0.2]]
    sim.step(30)
    params = ["body_mass", "dof_damping"]
    three = sim.step_jacobians(params=params, steps=3)
    A = np.broadcast_to(np.eye(2 * model.nv), three["A"].shape)
    B, E = np.zeros_like(three["B"]), np.zeros_like(three["E"])
    for _ in range(3):
        j = sim.step_jacobians(params=params)
        A, B, E = j["A"] @ A, j["A"] @ B + j["B"], j["A"] @ E + j["E"]
        sim.step(1)
    np.testing.assert_allclose(three["A"], A, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(three["B"], B, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(three["E"], E, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(three["qpos"], sim.qpos)
    np.testing.assert_array_equal(three["qvel"], sim.qvel)
    got = sim.derivatives(wrt=("ctrl",), of=("qvel",), steps=2)
    assert got.shape == (2, model.nv, model.nu)
    with pytest.raises(ValueError, match="step_jacobians: steps is 0"):
        sim.step_jacobians(steps=0)
    with pytest.raises(ValueError, match="derivatives: steps is -1"):
        sim.derivatives(steps=-1)
    with pytest.raises(ValueError, match="listed twice"):
        sim.step_jacobians(params=["body_mass", "body_mass"])


SLIDER = """<mujoco>
  <option timestep="0.01" gravity="0 0 0" integrator="Euler"/>
  <worldbody>
    <body name="cart">
      <joint name="x" type="slide" axis="1 0 0" damping="0.7"/>
      <geom type="box" size="0.1 0.1 0.1" mass="2" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator><motor joint="x" gear="3"/></actuator>
</mujoco>"""


def test_parameter_derivatives_of_a_damped_slider_are_the_closed_form(tmp_path):
    """A slider of mass m, damping b and gear g under ctrl u: MuJoCo's Euler step integrates
    the damping implicitly, q̈ = (g u − b v) / (m + h b), v⁺ = v + h q̈, q⁺ = q + h v⁺."""
    path = tmp_path / "slider.xml"
    path.write_text(SLIDER)
    model = zwang.load(str(path))
    sim = zwang.Simulator(model, instances=1)
    sim.reset(qpos=[0.1], qvel=[0.4])
    sim.ctrl[:] = 0.5
    jac = sim.step_jacobians(params=["body_mass", "dof_damping", "actuator_gear"])
    m, b, g, u, v, h = 2.0, 0.7, 3.0, 0.5, 0.4, 0.01
    f, den = g * u - b * v, m + h * b
    dv = {
        "m": -h * f / den**2,
        "b": h * (-v * den - f * h) / den**2,
        "g": h * u / den,
    }
    # columns: body_mass of the world and the cart, dof_damping, actuator_gear
    assert jac["E"].shape == (1, 2, 4)
    E = jac["E"][0]
    np.testing.assert_allclose(E[:, 0], 0, atol=0)
    expected = np.array([[h * dv[k], dv[k]] for k in ("m", "b", "g")]).T
    np.testing.assert_allclose(E[:, 1:], expected, rtol=1e-13, atol=1e-16)
    assert jac["F"].shape == (1, 0, 4)


def test_parameter_derivatives_match_differences_of_the_step(gym_assets):
    """The hopper on the floor after a few steps: E against centred differences of the step in
    each listed parameter, written through sim.params."""
    model = zwang.load(str(gym_assets / "hopper.xml"))
    names = ("body_mass", "body_inertia", "dof_damping", "actuator_gear", "gravity")
    sim = zwang.Simulator(model, instances=1)
    sim.ctrl[:] = 0.4
    sim.step(20)
    state = {k: np.asarray(getattr(sim, k)).copy() for k in ("qpos", "qvel", "act", "ctrl")}
    params = {k: np.asarray(getattr(sim.params, k)).copy() for k in names}
    E = sim.step_jacobians(params=list(names))["E"][0]
    got = sim.derivatives(wrt=tuple("params." + k for k in names), of=("qvel",))[0]
    np.testing.assert_array_equal(got, E[model.nv : 2 * model.nv])

    def qvel_after(name, flat, delta):
        sim.reset(qpos=state["qpos"][0], qvel=state["qvel"][0])
        sim.ctrl[:] = state["ctrl"]
        for k, v in params.items():
            getattr(sim.params, k)[:] = v
        view = getattr(sim.params, name)
        view.reshape(1, -1)[0, flat] += delta
        sim.step(1)
        return np.asarray(sim.qvel)[0].copy()

    column = 0
    checked = 0
    for name in names:
        for flat in range(params[name].reshape(1, -1).shape[1]):
            p = params[name].reshape(-1)[flat]
            h = 1e-6 * max(1.0, abs(p))
            if p == 0 and name != "gravity":
                column += 1  # at 0 a mass, inertia or damping has no negative side
                continue
            central = (qvel_after(name, flat, h) - qvel_after(name, flat, -h)) / (2 * h)
            np.testing.assert_allclose(
                got[:, column], central, rtol=1e-5, atol=1e-6, err_msg=f"{name}[{flat}]"
            )
            column += 1
            checked += 1
    assert column == got.shape[1]
    assert checked >= 3 * (model.nbody - 1)
    with pytest.raises(ValueError, match="'qpos' is not a parameter"):
        sim.step_jacobians(params=["qpos"])
    with pytest.raises(ValueError, match="params.NAME"):
        sim.derivatives(wrt=("params",))


def test_stopped_instance_gives_nan(gym_assets):
    model = zwang.load(str(gym_assets / "hopper.xml"))
    sim = zwang.Simulator(model, instances=2)
    sim.qvel[1, 0] = np.nan
    jac = sim.step_jacobians()
    assert jac["status"][1] & zwang.STATUS_BAD_STATE and jac["status"][0] == 0
    assert np.isnan(jac["A"][1]).all() and np.isfinite(jac["A"][0]).all()


def test_panda_matches_pinocchio_aba_derivatives():
    """Smooth dynamics of the Panda arm: with Euler and no damping, qvel⁺ = qvel + h q̈, so the
    qvel rows of A give ∂q̈/∂q and ∂q̈/∂v, which Pinocchio's computeABADerivatives gives
    analytically."""
    pin = pytest.importorskip("pinocchio")
    cmeel = pytest.importorskip("cmeel")
    prefix = os.path.join(os.path.dirname(os.path.dirname(cmeel.__file__)), "cmeel.prefix")
    urdf = os.path.join(prefix, "share/example-robot-data/robots/panda_description/urdf/panda.urdf")
    if not os.path.exists(urdf):
        pytest.skip("example-robot-data's Panda is not installed")
    model = zwang.load(urdf)
    sim = zwang.Simulator(model, instances=1)
    sim.params.dof_damping[:] = 0  # ABA has no damping
    names = list(model.joint_names)
    pmodel = pin.buildModelFromUrdf(urdf)
    pdata = pmodel.createData()
    order = [names.index(n) for n in list(pmodel.names)[1:]]  # Pinocchio's joint k is ours
    lo, hi = np.asarray(model.jnt_range).reshape(-1, 2).T
    rng = np.random.default_rng(2)
    q = (lo + hi) / 2 + rng.uniform(-0.2, 0.2, model.nq) * (hi - lo)  # inside the limits
    v = rng.uniform(-0.5, 0.5, model.nv)
    sim.reset(qpos=q, qvel=v)
    A = sim.step_jacobians()["A"][0]
    nv, h = model.nv, float(model.timestep)
    dqacc_dq = A[nv:, :nv] / h
    dqacc_dv = (A[nv:, nv:] - np.eye(nv)) / h
    pin.computeABADerivatives(pmodel, pdata, q[order], v[order], np.zeros(nv))
    for ours, theirs in ((dqacc_dq, pdata.ddq_dq), (dqacc_dv, pdata.ddq_dv)):
        ours = ours[np.ix_(order, order)]
        scale = np.abs(theirs).max()
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-8 * scale)


def test_torch_step_passes_gradcheck_over_a_short_rollout(gym_assets):
    torch = pytest.importorskip("torch")
    import zwang.torch

    model = zwang.load(str(gym_assets / "inverted_double_pendulum.xml"))
    sim = zwang.Simulator(model, instances=2)
    rng = np.random.default_rng(1)
    qpos0 = torch.tensor(
        np.asarray(model.qpos0) + rng.uniform(-0.1, 0.1, (2, model.nq)), requires_grad=True
    )
    qvel0 = torch.tensor(rng.uniform(-0.2, 0.2, (2, model.nv)), requires_grad=True)
    ctrl = torch.tensor(rng.uniform(-0.5, 0.5, (3, 2, model.nu)), requires_grad=True)

    def rollout(qpos, qvel, ctrl):
        for t in range(3):
            qpos, qvel, _ = zwang.torch.step(sim, qpos, qvel, ctrl[t])
        return qpos, qvel

    assert torch.autograd.gradcheck(rollout, (qpos0, qvel0, ctrl), eps=1e-6, atol=1e-6)
    # without gradients the simulator's step alone, the same values
    with_grad = rollout(qpos0, qvel0, ctrl)
    with torch.no_grad():
        without = rollout(qpos0, qvel0, ctrl)
    for a, b in zip(with_grad, without):
        assert a.requires_grad and not b.requires_grad
        assert torch.equal(a.detach(), b)


def test_torch_step_differentiates_parameters(gym_assets):
    """gradcheck over a three-step rollout in the links' masses and the hinges' damping (the
    world's mass, at 0 where a negative one is refused, held constant)."""
    torch = pytest.importorskip("torch")
    import zwang.torch

    model = zwang.load(str(gym_assets / "inverted_double_pendulum.xml"))
    sim = zwang.Simulator(model, instances=2)
    rng = np.random.default_rng(3)
    qpos0 = torch.tensor(np.asarray(model.qpos0) + rng.uniform(-0.1, 0.1, (2, model.nq)))
    qvel0 = torch.tensor(rng.uniform(-0.2, 0.2, (2, model.nv)))
    ctrl = torch.tensor(rng.uniform(-0.5, 0.5, (3, 2, model.nu)))
    world = torch.zeros(2, 1, dtype=torch.float64)
    links = torch.tensor(np.asarray(sim.params.body_mass)[:, 1:].copy(), requires_grad=True)
    damping = torch.tensor(rng.uniform(0.05, 0.2, (2, model.nv)), requires_grad=True)

    def rollout(links, damping):
        qpos, qvel = qpos0, qvel0
        params = {"body_mass": torch.cat([world, links], dim=1), "dof_damping": damping}
        for t in range(3):
            qpos, qvel, _ = zwang.torch.step(sim, qpos, qvel, ctrl[t], params=params)
        return qpos, qvel

    assert torch.autograd.gradcheck(rollout, (links, damping), eps=1e-6, atol=1e-6)
    with pytest.raises(ValueError, match="'qpos' is not a parameter field"):
        zwang.torch.step(sim, qpos0, qvel0, ctrl[0], params={"qpos": qpos0})
    with pytest.raises(ValueError, match=r"params\['dof_damping'\] must have shape"):
        zwang.torch.step(sim, qpos0, qvel0, ctrl[0], params={"dof_damping": damping[:, :1]})


def test_torch_step_through_free_joints_and_contacts(gym_assets):
    """The Ant on the floor: quaternions differentiated on the unit sphere, contacts pushing;
    the gradient of a loss on the next state against differences of the loss."""
    torch = pytest.importorskip("torch")
    import zwang.torch

    model = zwang.load(str(gym_assets / "ant.xml"))
    sim = zwang.Simulator(model, instances=1)
    sim.ctrl[:] = 0.2
    sim.step(150)  # fallen and settled onto its legs
    sim.forward()
    assert int(np.asarray(sim.ncon).ravel()[0]) > 0  # touching the floor
    qpos = torch.tensor(np.asarray(sim.qpos).copy(), requires_grad=True)
    qvel = torch.tensor(np.asarray(sim.qvel).copy(), requires_grad=True)
    ctrl = torch.full((1, model.nu), 0.3, dtype=torch.float64, requires_grad=True)
    weights = torch.as_tensor(np.random.default_rng(0).normal(size=model.nq + model.nv))

    def loss(qpos, qvel, ctrl):
        q, v, _ = zwang.torch.step(sim, qpos, qvel, ctrl)
        return (torch.cat([q, v], dim=1)[0] * weights).sum()

    loss(qpos, qvel, ctrl).backward()
    h = 1e-6
    # qpos's quaternion entries too: the loss does not depend on the quaternion's length (the
    # kinematics normalise it), so a difference along an entry is the tangent part's
    for name, x, grad in (
        ("qpos", qpos, qpos.grad),
        ("qvel", qvel, qvel.grad),
        ("ctrl", ctrl, ctrl.grad),
    ):
        for k in range(x.shape[1]):
            e = torch.zeros_like(x)
            e[0, k] = h
            args = {"qpos": qpos.detach(), "qvel": qvel.detach(), "ctrl": ctrl.detach()}
            args[name] = x.detach() + e
            plus = loss(**args).item()
            args[name] = x.detach() - e
            minus = loss(**args).item()
            central = (plus - minus) / (2 * h)
            assert grad[0, k].item() == pytest.approx(central, rel=1e-5, abs=1e-6), (name, k)
