"""Fluid forces (``<option density viscosity wind>``, geom ``fluidshape``) against MuJoCo 4.0 (the
installed Python package) on the same files: the passive forces at random states, for the
inertia-box model (bodies of one geom, whose principal moments are degenerate; of several geoms;
with ``<inertial>`` given by ``diaginertia`` and ``quat`` or by ``fullinertia``; a massless
body) and for the ellipsoid model (every primitive shape, a thin fin and a flat disk, random
coefficients), with and without wind, per instance, and under the disable flags; the added-mass
coefficients (MuJoCo's quadrature, and Carlson's exact integral where that rule is close); the
fusing of a massless body with an ellipsoid geom; dm_control's fish and swimmer; and
trajectories under Euler, RK4 and implicitfast, whose matrix holds both models' velocity
derivatives (the ellipsoid model's made symmetric on a tree, whole on free bodies that move alone;
with media that make the derivatives matter, as an explicit step of the same forces goes
elsewhere)."""

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

N = 6
TOL = 1e-10

BOXES = """<mujoco model="boxes">
  <option timestep="0.005" integrator="{integrator}" density="{density}" viscosity="{viscosity}"
          wind="{wind}"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="rod" pos="0 0 1">
      <joint name="a" axis="0 1 0"/>
      <joint name="b" axis="1 0 0" pos="0.1 0 0"/>
      <geom type="capsule" fromto="0 0 0 0.6 0.1 0" size="0.05"/>
      <body name="plate" pos="0.6 0.1 0">
        <joint name="c" axis="0 0 1"/>
        <joint name="d" type="slide" axis="1 1 0"/>
        <geom type="box" size="0.2 0.1 0.02" pos="0.2 0 0" euler="10 20 30"/>
        <geom type="sphere" size="0.05" pos="0.4 0.05 0"/>
        <body name="weld" pos="0.3 0 0.1">
          <inertial pos="0.01 0.02 0" mass="0.7" diaginertia="0.01 0.02 0.025" euler="30 0 40"/>
        </body>
      </body>
    </body>
    <body name="free" pos="1 1 1">
      <freejoint/>
      <inertial pos="0.02 0 0.01" mass="2" fullinertia="0.05 0.06 0.08 0.01 -0.005 0.002"/>
      <body name="ghost" pos="0.1 0 0"><site name="s"/></body>
    </body>
    <body name="ball" pos="-1 0 1">
      <freejoint/>
      <geom type="cylinder" size="0.1 0.3" euler="0 40 0"/>
    </body>
  </worldbody>
</mujoco>
"""

ELLIPSOIDS = """<mujoco model="ellipsoids">
  <option timestep="0.005" integrator="{integrator}" density="{density}" viscosity="{viscosity}"
          wind="{wind}"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="fish" pos="0 0 1">
      <freejoint/>
      <geom type="ellipsoid" size="0.3 0.1 0.05" fluidshape="ellipsoid"
            fluidcoef="0.4 0.3 1.2 1.1 0.9"/>
      <geom type="box" size="0.05 0.15 0.01" pos="-0.3 0 0" euler="0 30 0"
            fluidshape="ellipsoid"/>
      <geom type="sphere" size="0.05" pos="0.2 0.05 0"/>
      <body name="fin" pos="0.1 0.1 0">
        <joint axis="1 0 0" damping="0.01"/>
        <geom type="capsule" fromto="0 0 0 0 0.2 0" size="0.02" fluidshape="ellipsoid"
              fluidcoef="0.6 0.2 1.6 0.8 1.3"/>
        <geom type="cylinder" size="0.03 0.05" pos="0 0.25 0" fluidshape="ellipsoid"/>
      </body>
      <body name="tail" pos="-0.4 0 0">
        <joint axis="0 0 1"/>
        <geom type="capsule" fromto="0 0 0 -0.2 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
</mujoco>
"""

# free bodies that move alone, of one and of two ellipsoid geoms, and one with an inertia box
FLOATS = """<mujoco model="floats">
  <option timestep="0.005" integrator="{integrator}" density="{density}" viscosity="{viscosity}"
          wind="{wind}"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <body name="leaf" pos="0 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.01" fluidshape="ellipsoid"/>
    </body>
    <body name="dart" pos="1 0 1">
      <freejoint/>
      <geom type="capsule" size="0.02 0.15" euler="0 90 0" pos="0.05 0 0" fluidshape="ellipsoid"
            fluidcoef="0.3 0.2 1.1 1.4 0.7"/>
      <geom type="box" size="0.04 0.06 0.005" pos="-0.12 0 0" fluidshape="ellipsoid"/>
      <body name="tip" pos="0.2 0 0"><geom type="sphere" size="0.03"/></body>
    </body>
    <body name="brick" pos="-1 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.05 0.03"/>
    </body>
  </worldbody>
</mujoco>
"""

# a thin fin and a flat disk on the tail, whose added masses MuJoCo's quadrature gets percents
# off the exact integral (their stiff added-mass forces make trajectories sensitive: forces only)
FLAT = ELLIPSOIDS.replace(
    '<geom type="capsule" fromto="0 0 0 -0.2 0 0" size="0.03"/>',
    """<geom type="capsule" fromto="0 0 0 -0.2 0 0" size="0.03"/>
        <geom type="box" size="0.2 0.01 0.0004" pos="-0.2 0 0" fluidshape="ellipsoid"/>
        <geom type="cylinder" size="0.1 0.0001" pos="-0.3 0 0" euler="90 0 0"
              fluidshape="ellipsoid"/>""",
)

MEDIA = [
    {"density": 1000, "viscosity": 0.5, "wind": "0 0 0"},
    {"density": 1.2, "viscosity": 0, "wind": "3 -1 0.5"},
    {"density": 0, "viscosity": 2, "wind": "0.5 0 0"},
]


def load(tmp_path, text, **fmt):
    path = tmp_path / "model.xml"
    path.write_text(text.format(**fmt))
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


def rel_error(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.abs(a - b).max(initial=0.0) / (1.0 + np.abs(b).max(initial=0.0))


def states(m, seed, scale=2.0):
    rng = np.random.default_rng(seed)
    qpos = np.tile(m.qpos0, (N, 1))
    d = mujoco.MjData(m)
    for i in range(N):
        d.qpos[:] = m.qpos0
        mujoco.mj_integratePos(m, d.qpos, rng.normal(scale=0.5, size=m.nv), 1.0)
        qpos[i] = d.qpos
    return qpos, rng.normal(scale=scale, size=(N, m.nv))


def passive_both(z, m, qpos, qvel):
    sim = zwang.Simulator(z, instances=len(qpos), precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.forward()
    assert not sim.status.any(), sim.status
    d = mujoco.MjData(m)
    ref = []
    for i in range(len(qpos)):
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        mujoco.mj_forward(m, d)
        ref.append(d.qfrc_passive.copy())
    return sim.qfrc_passive.copy(), np.array(ref)


def run_both(z, m, qpos, qvel, steps):
    sim = zwang.Simulator(z, instances=len(qpos), precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.step(steps)
    assert not sim.status.any(), sim.status
    d = mujoco.MjData(m)
    ref = []
    for i in range(len(qpos)):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        for _ in range(steps):
            mujoco.mj_step(m, d)
        ref.append(np.concatenate([d.qpos, d.qvel]))
    return np.hstack([sim.qpos, sim.qvel]), np.array(ref)


@pytest.mark.parametrize("medium", MEDIA)
def test_inertia_box_forces_match_mujoco4(tmp_path, medium):
    z, m = load(tmp_path, BOXES, integrator="Euler", **medium)
    assert z.warnings == []
    # MuJoCo's principal frames where the model gives them (a single geom's, diaginertia's)
    qpos, qvel = states(m, 1)
    zp, mp = passive_both(z, m, qpos, qvel)
    assert np.abs(mp).max() > 1e-3  # the medium acts
    assert rel_error(zp, mp) < TOL, rel_error(zp, mp)


def test_per_instance_medium(tmp_path):
    z, m = load(tmp_path, BOXES, integrator="Euler", **MEDIA[0])
    qpos, qvel = states(m, 2)
    sim = zwang.Simulator(z, instances=N, precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.params.density[:] = np.linspace(0, 2000, N)
    sim.params.viscosity[:] = np.linspace(1, 0, N)
    sim.params.wind[:] = np.linspace(-1, 1, 3 * N).reshape(N, 3)
    sim.forward()
    d = mujoco.MjData(m)
    for i in range(N):
        m.opt.density = sim.params.density[i]
        m.opt.viscosity = sim.params.viscosity[i]
        m.opt.wind[:] = sim.params.wind[i]
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        mujoco.mj_forward(m, d)
        assert rel_error(sim.qfrc_passive[i], d.qfrc_passive) < TOL
    # a negative density is an invalid parameter of that instance alone
    sim.params.density[2] = -1
    sim.forward()
    assert sim.status[2] != 0 and not np.delete(sim.status, 2).any()


@pytest.mark.parametrize(
    "flags",
    [
        'passive="disable"',
        'spring="disable" damper="disable"',
        'damper="disable"',
        'spring="disable"',
    ],
)
@pytest.mark.parametrize("model,integrator", [(ELLIPSOIDS, "Euler"), (BOXES, "implicitfast")])
def test_disable_flags(tmp_path, flags, model, integrator):
    # the fluid forces are off with all passive forces (2.2's passive flag; 3's spring and
    # damper both), on with either of spring and damper; their derivative likewise
    def with_flags(f):
        return model.replace("/>\n  <default>", "><flag " + f + "/></option>\n  <default>", 1)

    path = tmp_path / "model.xml"
    path.write_text(with_flags(flags).format(integrator=integrator, **MEDIA[0]))
    z = zwang.load(str(path))
    # MuJoCo 3 and 4 have no passive flag: its spring and damper flags instead
    mj_flags = 'spring="disable" damper="disable"' if "passive" in flags else flags
    m = load(tmp_path, with_flags(mj_flags), integrator=integrator, **MEDIA[0])[1]
    qpos, qvel = states(m, 8)
    zp, mp = passive_both(z, m, qpos, qvel)
    assert rel_error(zp, mp) < TOL, rel_error(zp, mp)
    off = "passive" in flags or ("spring" in flags and "damper" in flags)
    assert (np.abs(zp).max() == 0) == off
    # the steps too, except under 2.2's passive flag, which leaves Euler's implicit damping in
    # (as MuJoCo 2.2.2) where MuJoCo 4's damper flag takes it out
    if "passive" not in flags:
        zs, ms = run_both(z, m, qpos, 0.2 * qvel, 20)
        assert rel_error(zs, ms) < 1e-9, rel_error(zs, ms)


def test_massless_body_with_an_ellipsoid_geom_stays(tmp_path):
    # fusestatic keeps a massless body of a fluid geom, as MuJoCo 4.0 does: merged, its geom
    # would put its parent on the ellipsoid model
    text = """<mujoco>
  <compiler fusestatic="true"/>
  <option density="1000" viscosity="0.1"/>
  <worldbody>
    <body name="hull" pos="0 0 1">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="vane" pos="0.3 0 0">
        <geom type="ellipsoid" size="0.1 0.05 0.01" mass="0" fluidshape="ellipsoid"/>
      </body>
      <body name="ballast" pos="-0.3 0 0"><geom type="sphere" size="0.02" mass="0"/></body>
    </body>
  </worldbody>
</mujoco>
"""
    z, m = load(tmp_path, text)
    assert z.nbody == m.nbody == 3
    assert list(z.body_fluidshape) == [0, 0, 1]
    qpos, qvel = states(m, 9)
    zp, mp = passive_both(z, m, qpos, qvel)
    assert rel_error(zp, mp) < TOL, rel_error(zp, mp)


def test_added_mass_coefficients(tmp_path):
    special = pytest.importorskip("scipy.special")
    z, m = load(tmp_path, FLAT, integrator="Euler", **MEDIA[0])
    assert list(z.geom_fluidshape) == [1, 1, 0, 1, 1, 0, 1, 1]
    assert list(z.body_fluidshape) == [0, 1, 1, 1]
    zf, mf = np.asarray(z.geom_fluid), np.asarray(m.geom_fluid)
    # MuJoCo's rule
    np.testing.assert_allclose(zf, mf, rtol=1e-12, atol=0)
    for g in np.flatnonzero(z.geom_fluidshape):
        size, t = m.geom_size[g], int(m.geom_type[g])
        semi = {  # MuJoCo's types: sphere 2, capsule 3, cylinder 5; the others their sizes
            2: [size[0]] * 3,
            3: [size[0], size[0], size[1] + size[0]],
            5: [size[0], size[0], size[1]],
        }.get(t, list(size))
        x, y, w = semi
        volume = 4 / 3 * np.pi * x * y * w
        exact = []
        for p, q, r in [(x, y, w), (y, w, x), (w, x, y)]:
            kappa = 2 / 3 * p * q * r * special.elliprd(q * q, r * r, p * p)
            exact.append(volume * kappa / (2 - kappa))
        # the rule is close to Carlson's integral for moderate shapes, not for the fin and the
        # disk (aspect ratios 500 and 1000)
        err = np.abs(zf[g, 6:9] / np.array(exact) - 1).max()
        assert err < 1e-5 if max(semi) / min(semi) < 20 else err > 1e-4, (g, err)


@pytest.mark.parametrize("medium", MEDIA)
def test_ellipsoid_forces_match_mujoco4(tmp_path, medium):
    z, m = load(tmp_path, FLAT, integrator="Euler", **medium)
    assert z.warnings == []
    qpos, qvel = states(m, 3)
    zp, mp = passive_both(z, m, qpos, qvel)
    assert np.abs(mp).max() > 1e-3
    assert rel_error(zp, mp) < TOL, rel_error(zp, mp)


@pytest.mark.parametrize("integrator", ["Euler", "RK4"])
@pytest.mark.parametrize("model", [BOXES, ELLIPSOIDS])
def test_trajectories_match_mujoco4(tmp_path, integrator, model):
    # a medium the explicit steps keep stable in (water's density makes the light plate's
    # quadratic drag too stiff for Euler at this step, in MuJoCo as in zwang)
    medium = {"density": 100, "viscosity": 0.5, "wind": "1 0 -0.5"}
    z, m = load(tmp_path, model, integrator=integrator, **medium)
    qpos, qvel = states(m, 4)
    zs, ms = run_both(z, m, qpos, qvel, 50)
    assert rel_error(zs, ms) < 1e-9, rel_error(zs, ms)


def test_implicitfast_holds_the_fluid_derivative(tmp_path):
    # a thick medium: its drag dominates the light bodies' inertia
    medium = {"density": 1000, "viscosity": 10, "wind": "1 0 0"}
    z, m = load(tmp_path, BOXES, integrator="implicitfast", **medium)
    qpos, qvel = states(m, 5)
    zs, ms = run_both(z, m, qpos, qvel, 40)
    assert rel_error(zs, ms) < 1e-9, rel_error(zs, ms)
    # the same forces stepped explicitly (Euler) go elsewhere on the hinged chain, whose only
    # velocity derivative is the fluid's (the free bodies' also has their gyroscopic term)
    ze, _ = load(tmp_path, BOXES, integrator="Euler", **medium)
    sim = zwang.Simulator(ze, instances=N, precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.step(40)
    assert not sim.status.any(), sim.status
    chain = m.nq + np.arange(4)  # qvel of the hinges a, b, c and the slide d
    assert rel_error(np.hstack([sim.qpos, sim.qvel])[:, chain], ms[:, chain]) > 1e-4


@pytest.mark.parametrize("model", [ELLIPSOIDS, FLOATS])
def test_implicitfast_holds_the_ellipsoid_derivative(tmp_path, model):
    # the ellipsoid model's derivative: made symmetric on the fish (its free joint has joints
    # below), whole in the LU of the free bodies that move alone (FLOATS)
    medium = {"density": 1000, "viscosity": 2, "wind": "0.5 0 -0.2"}
    z, m = load(tmp_path, model, integrator="implicitfast", **medium)
    qpos, qvel = states(m, 10)
    zs, ms = run_both(z, m, qpos, qvel, 40)
    assert rel_error(zs, ms) < 1e-9, rel_error(zs, ms)
    ze, _ = load(tmp_path, model, integrator="Euler", **medium)
    sim = zwang.Simulator(ze, instances=N, precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.step(40)
    assert sim.status.any() or rel_error(np.hstack([sim.qpos, sim.qvel]), ms) > 1e-4


def test_negative_density_names_the_line(tmp_path):
    path = tmp_path / "model.xml"
    path.write_text(BOXES.format(integrator="Euler", density=-1, viscosity=0, wind="0 0 0"))
    with pytest.raises(zwang.ModelError, match=r"model.xml:2.*density -1 is negative"):
        zwang.load(str(path))


def dm_control_suite():
    """dm_control's suite folder (setup.sh installs the package's files), or a skip"""
    import importlib.util
    import pathlib

    spec = importlib.util.find_spec("dm_control")
    if spec is None:
        pytest.skip("dm_control is not installed (scripts/setup.sh installs its files)")
    return pathlib.Path(spec.submodule_search_locations[0]) / "suite"


@pytest.mark.parametrize("name", ["fish.xml", "swimmer.xml"])
def test_dm_control_swimmers_match_mujoco4(name):
    # fish: a free torso with fins in water (density 5000, no gravity); swimmer: the head of
    # dm_control's swimmer (its links are added in Python), density 3000
    path = str(dm_control_suite() / name)
    z, m = zwang.load(path), mujoco.MjModel.from_xml_path(path)
    assert z.warnings == [] and m.opt.density > 0
    qpos, qvel = states(m, 6)
    zp, mp = passive_both(z, m, qpos, qvel)
    assert np.abs(mp).max() > 1e-2
    assert rel_error(zp, mp) < TOL, rel_error(zp, mp)
    # swimming speeds (the random ones above are too fast for an explicit step in water)
    qpos, qvel = states(m, 7, scale=0.2)
    zs, ms = run_both(z, m, qpos, qvel, 200)
    assert rel_error(zs, ms) < 1e-9, rel_error(zs, ms)
