"""Spatial tendons wrapped around spheres and cylinders against MuJoCo 4.0 (the installed Python
package): lengths, velocities (the Jacobian along random q̇), passive and actuator forces and q̈ at
random states, with side sites outside and inside the geoms (MuJoCo 4.0 calls a side site inside
when its distance from the centre is below the radius; 2.2.2 projected it first), a path through
two wraps and a pulley, sites in line with a sphere's centre; trajectories on the scalar and the
SIMD backends; a muscle-driven arm around two cylinders (MuJoCo's arm26 layout); the loader's
errors."""

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

N = 64

MODEL = """<mujoco model="wraps">
  <option timestep="0.002"/>
  <default><geom contype="0" conaffinity="0"/></default>
  <worldbody>
    <site name="w0" pos="-0.3 0 0.8"/>
    <site name="w_side" pos="0 -0.3 1.1"/>
    <site name="w_in" pos="0.02 0.03 1.01"/>
    <geom name="ball" type="sphere" pos="0 0 1" size="0.08"/>
    <geom name="post" type="cylinder" pos="0.1 0.2 0.9" size="0.06 0.2" euler="20 10 0"/>
    <body name="arm" pos="0 0 1">
      <joint name="h1" axis="0 1 0" damping="0.1"/>
      <joint name="s1" type="slide" axis="0 0 1" damping="0.5"/>
      <geom type="capsule" fromto="0.1 0 0 0.4 0 0" size="0.03"/>
      <site name="a1" pos="0.3 0.02 0.06"/>
      <site name="a2" pos="0.3 -0.03 -0.06"/>
      <site name="a3" pos="0.2 0.25 0.1"/>
      <body name="fore" pos="0.4 0 0">
        <joint name="h2" axis="0 1 0" damping="0.05"/>
        <joint name="h3" axis="1 0 0" damping="0.05"/>
        <geom name="elbow" type="cylinder" size="0.05 0.04" euler="90 0 0"/>
        <geom name="knob" type="sphere" pos="0.15 0 0" size="0.04"/>
        <geom type="capsule" fromto="0.05 0 0 0.35 0 0" size="0.025"/>
        <site name="b1" pos="0.3 0.03 0.05"/>
        <site name="b2" pos="0.3 -0.02 -0.05"/>
        <site name="elbow_side" pos="0.01 0.2 -0.1"/>
        <site name="knob_in" pos="0.16 0 0.01"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="over_ball" stiffness="3" damping="0.2">
      <site site="w0"/><geom geom="ball"/><site site="b1"/>
    </spatial>
    <spatial name="ball_side" stiffness="2" damping="0.1">
      <site site="w0"/><geom geom="ball" sidesite="w_side"/><site site="a2"/>
    </spatial>
    <spatial name="ball_inside" stiffness="1">
      <site site="w0"/><geom geom="ball" sidesite="w_in"/><site site="b2"/>
    </spatial>
    <spatial name="elbow" stiffness="1">
      <site site="a1"/><geom geom="elbow"/><site site="b1"/>
    </spatial>
    <spatial name="elbow_side" damping="0.2">
      <site site="a2"/><geom geom="elbow" sidesite="elbow_side"/><site site="b2"/>
    </spatial>
    <spatial name="knob_inside" stiffness="0.5">
      <site site="a3"/><geom geom="knob" sidesite="knob_in"/><site site="b2"/>
    </spatial>
    <spatial name="post" stiffness="2">
      <site site="a3"/><geom geom="post"/><site site="w0"/>
    </spatial>
    <spatial name="two_wraps" damping="0.3">
      <site site="w0"/><geom geom="ball" sidesite="w_side"/><site site="a3"/>
      <geom geom="elbow" sidesite="elbow_side"/><site site="b2"/>
      <pulley divisor="2"/>
      <site site="w0"/><geom geom="post"/><site site="b1"/>
    </spatial>
    <spatial name="halved" stiffness="4">
      <pulley divisor="2"/><site site="a1"/><geom geom="ball" sidesite="w_side"/><site site="w0"/>
    </spatial>
  </tendon>
  <actuator>
    <motor name="pull" tendon="over_ball" gear="2"/>
    <position tendon="elbow" kp="3"/>
    <velocity tendon="two_wraps" kv="0.5"/>
    <motor tendon="post"/>
  </actuator>
</mujoco>
"""


def load_both(tmp_path, text, name="wraps.xml"):
    path = tmp_path / name
    path.write_text(text)
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


def random_states(m, count, seed):
    rng = np.random.default_rng(seed)
    qpos = rng.uniform(-1.6, 1.6, (count, m.nq))
    qpos[:, 1] *= 0.1  # the slide
    qvel = rng.normal(size=(count, m.nv))
    ctrl = rng.uniform(-1, 1, (count, m.nu))
    return qpos, qvel, ctrl


def wrap_kinds(m, d):
    """per tendon of MuJoCo's path: the number of wrap geoms it bent around"""
    objects = d.wrap_obj.reshape(-1)
    return [
        int((objects[d.ten_wrapadr[t] : d.ten_wrapadr[t] + d.ten_wrapnum[t]] >= 0).sum()) // 2
        for t in range(m.ntendon)
    ]


def test_model_arrays_are_mujocos(tmp_path):
    z, m = load_both(tmp_path, MODEL)
    np.testing.assert_array_equal(np.asarray(z.wrap_type), m.wrap_type)
    np.testing.assert_array_equal(np.asarray(z.wrap_objid), m.wrap_objid)
    np.testing.assert_array_equal(np.asarray(z.wrap_prm), m.wrap_prm)
    np.testing.assert_allclose(np.asarray(z.tendon_length0), m.tendon_length0, rtol=1e-12)
    np.testing.assert_allclose(
        np.asarray(z.tendon_lengthspring).reshape(-1, 2), m.tendon_lengthspring, rtol=1e-12
    )


@pytest.mark.parametrize("cpu_simd", ["scalar", "auto"])
def test_forward_matches_mujoco4(tmp_path, cpu_simd):
    z, m = load_both(tmp_path, MODEL)
    qpos, qvel, ctrl = random_states(m, N, 5)
    sim = zwang.Simulator(z, instances=N, precision="f64", cpu_simd=cpu_simd)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.forward()
    d = mujoco.MjData(m)
    bent = np.zeros(m.ntendon, int)
    inside = 0
    for i in range(N):
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_forward(m, d)
        np.testing.assert_allclose(sim.ten_length[i], d.ten_length, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(sim.ten_velocity[i], d.ten_velocity, rtol=1e-10, atol=1e-11)
        np.testing.assert_allclose(sim.qfrc_passive[i], d.qfrc_passive, rtol=1e-10, atol=1e-11)
        np.testing.assert_allclose(sim.qfrc_actuator[i], d.qfrc_actuator, rtol=1e-10, atol=1e-11)
        np.testing.assert_allclose(sim.qacc[i], d.qacc, rtol=1e-9, atol=1e-9)
        bent += np.minimum(wrap_kinds(m, d), 1)
        # ball_inside: the touching point from within (MuJoCo's wrap points coincide)
        adr, points = d.ten_wrapadr[2], d.wrap_xpos.reshape(-1, 3)
        if d.ten_wrapnum[2] == 4:
            inside += np.allclose(points[adr + 1], points[adr + 2])
    # every tendon wraps in some states and runs straight in others
    assert np.all(bent > 0) and np.all(bent < N), bent
    assert inside > 0


def test_sites_in_line_with_the_centre(tmp_path):
    """p₀ ∥ p₁ through a sphere's centre: the plane of the wrap is MuJoCo's fallback"""
    text = """<mujoco>
  <worldbody>
    <site name="s0" pos="-0.5 0 1"/>
    <geom name="ball" type="sphere" pos="0 0 1" size="0.1" contype="0" conaffinity="0"/>
    <body name="b" pos="0.5 0 1">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="y" type="slide" axis="0 1 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <geom size="0.05" mass="1"/>
      <site name="s1"/>
    </body>
  </worldbody>
  <tendon><spatial stiffness="10"><site site="s0"/><geom geom="ball"/><site site="s1"/></spatial>
  </tendon>
</mujoco>"""
    z, m = load_both(tmp_path, text, "line.xml")
    qpos = np.array([[0, 0, 0], [0.3, 0, 0], [0, 1e-17, 0], [0, 0, 1e-9], [0, 0.01, 0.0]])
    qvel = np.random.default_rng(1).normal(size=qpos.shape)
    sim = zwang.Simulator(z, instances=len(qpos), precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.forward()
    d = mujoco.MjData(m)
    for i in range(len(qpos)):
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        mujoco.mj_forward(m, d)
        assert wrap_kinds(m, d) == [1]
        np.testing.assert_allclose(sim.ten_length[i], d.ten_length, rtol=1e-12)
        np.testing.assert_allclose(sim.ten_velocity[i], d.ten_velocity, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(sim.qacc[i], d.qacc, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("cpu_simd", ["scalar", "auto"])
def test_large_geom_with_side_site_inside(tmp_path, cpu_simd):
    """a sphere of radius > 1 on a moving body, its side site inside, segments that cross it and
    segments that miss it: no lane's unused candidate may reach the Jacobian"""
    text = """<mujoco>
  <worldbody>
    <site name="s0" pos="-3 0 0"/>
    <body name="b" pos="0 0 0">
      <joint name="x" type="slide" axis="1 0 0"/>
      <joint name="z" type="slide" axis="0 0 1"/>
      <joint name="h" axis="0 1 0"/>
      <geom name="big" size="1.5" mass="1"/>
      <site name="in" pos="0.2 0 0.3"/>
    </body>
    <body name="c" pos="3 0 0">
      <joint name="cz" type="slide" axis="0 0 1"/>
      <geom size="0.1" mass="1"/>
      <site name="s1"/>
    </body>
  </worldbody>
  <tendon>
    <spatial stiffness="2" damping="0.5">
      <site site="s0"/><geom geom="big" sidesite="in"/><site site="s1"/>
    </spatial>
  </tendon>
</mujoco>"""
    z, m = load_both(tmp_path, text, "big.xml")
    rng = np.random.default_rng(7)
    qpos = np.column_stack(
        [rng.uniform(-1, 1, N), rng.uniform(-3, 3, N), rng.uniform(-3, 3, N), rng.uniform(-3, 3, N)]
    )
    qvel = rng.normal(size=(N, m.nv))
    sim = zwang.Simulator(z, instances=N, precision="f64", cpu_simd=cpu_simd)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.forward()
    d = mujoco.MjData(m)
    kinds = set()
    for i in range(N):
        d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
        mujoco.mj_forward(m, d)
        kinds.add(wrap_kinds(m, d)[0])
        np.testing.assert_allclose(sim.ten_length[i], d.ten_length, rtol=1e-12)
        np.testing.assert_allclose(sim.ten_velocity[i], d.ten_velocity, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(sim.qacc[i], d.qacc, rtol=1e-9, atol=1e-9)
    assert kinds == {0, 1}


@pytest.mark.parametrize("cpu_simd", ["scalar", "auto"])
def test_trajectory_matches_mujoco4(tmp_path, cpu_simd):
    z, m = load_both(tmp_path, MODEL)
    qpos, qvel, ctrl = random_states(m, 8, 9)
    sim = zwang.Simulator(z, instances=len(qpos), precision="f64", cpu_simd=cpu_simd)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.step(250)
    d = mujoco.MjData(m)
    for i in range(len(qpos)):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_step(m, d, nstep=250)
        np.testing.assert_allclose(sim.qpos[i], d.qpos, rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(sim.qvel[i], d.qvel, rtol=1e-7, atol=1e-7)


ARM = """<mujoco model="arm">
  <option timestep="0.005"/>
  <default>
    <joint axis="0 0 1" limited="true" range="0 120" damping="0.1"/>
    <muscle ctrllimited="true" ctrlrange="0 1"/>
  </default>
  <worldbody>
    <site name="s0" pos="-0.15 0 0"/>
    <site name="x0" pos="0 -0.15 0"/>
    <body>
      <geom type="capsule" size="0.045" fromto="0 0 0 0.5 0 0"/>
      <joint name="shoulder"/>
      <geom name="shoulder" type="cylinder" size=".1 .05" mass="0" contype="0" conaffinity="0"/>
      <site name="s1" pos="0.15 0.06 0"/>
      <site name="s2" pos="0.15 -0.06 0"/>
      <site name="s3" pos="0.4 0.06 0"/>
      <site name="s4" pos="0.4 -0.06 0"/>
      <site name="s5" pos="0.25 0.1 0"/>
      <site name="s6" pos="0.25 -0.1 0"/>
      <site name="x1" pos="0.5 -0.15 0"/>
      <body pos="0.5 0 0">
        <geom type="capsule" size="0.035" fromto="0 0 0 0.5 0 0"/>
        <joint name="elbow"/>
        <geom name="elbow" type="cylinder" size=".08 .05" mass="0" contype="0" conaffinity="0"/>
        <site name="s7" pos="0.11 0.05 0"/>
        <site name="s8" pos="0.11 -0.05 0"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="SF"><site site="s0"/><geom geom="shoulder"/><site site="s1"/></spatial>
    <spatial name="SE"><site site="s0"/><geom geom="shoulder" sidesite="x0"/><site site="s2"/>
    </spatial>
    <spatial name="EF"><site site="s3"/><geom geom="elbow"/><site site="s7"/></spatial>
    <spatial name="EE"><site site="s4"/><geom geom="elbow" sidesite="x1"/><site site="s8"/>
    </spatial>
    <spatial name="BF"><site site="s0"/><geom geom="shoulder"/><site site="s5"/>
      <geom geom="elbow"/><site site="s7"/></spatial>
    <spatial name="BE"><site site="s0"/><geom geom="shoulder" sidesite="x0"/><site site="s6"/>
      <geom geom="elbow" sidesite="x1"/><site site="s8"/></spatial>
  </tendon>
  <actuator>
MUSCLES  </actuator>
</mujoco>
"""


def test_muscle_arm_matches_mujoco4(tmp_path):
    """six muscles over the shoulder and elbow; their length ranges (model input for both, as
    zwang does not find them by simulation) from the tendon lengths over the joints' ranges"""
    plain = ARM.replace("MUSCLES", "")
    m0 = mujoco.MjModel.from_xml_string(plain)
    d0 = mujoco.MjData(m0)
    grid = np.radians(np.linspace(0, 120, 25))
    lengths = []
    for a in grid:
        for b in grid:
            d0.qpos[:] = a, b
            mujoco.mj_kinematics(m0, d0)
            mujoco.mj_tendon(m0, d0)
            lengths.append(d0.ten_length.copy())
    lo, hi = np.min(lengths, axis=0), np.max(lengths, axis=0)
    muscles = "".join(
        f'    <muscle name="m{t}" tendon="{n}" lengthrange="{lo[t]:.17g} {hi[t]:.17g}"/>\n'
        for t, n in enumerate(["SF", "SE", "EF", "EE", "BF", "BE"])
    )
    z, m = load_both(tmp_path, ARM.replace("MUSCLES", muscles), "arm.xml")
    np.testing.assert_allclose(
        np.asarray(z.actuator_lengthrange).reshape(-1, 2), m.actuator_lengthrange, rtol=1e-15
    )
    rng = np.random.default_rng(3)
    count = 16
    qpos = rng.uniform(-0.2, 2.3, (count, 2))
    qvel = rng.normal(size=(count, 2))
    ctrl = rng.uniform(0, 1, (count, 6))
    sim = zwang.Simulator(z, instances=count, precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.step(100)
    d = mujoco.MjData(m)
    for i in range(count):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_step(m, d, nstep=100)
        np.testing.assert_allclose(sim.qpos[i], d.qpos, rtol=1e-8, atol=1e-8)
        np.testing.assert_allclose(sim.act[i], d.act, rtol=1e-8, atol=1e-8)


def test_mujoco2_rules_are_an_option(tmp_path):
    """MuJoCo 2.2.2's side-site rules change some paths; the option is checked and reported"""
    path = tmp_path / "wraps.xml"
    path.write_text(MODEL)
    new, old = zwang.load(str(path)), zwang.load(str(path), wrap_rules="2.2.2")
    assert (new.wrap_rules, old.wrap_rules) == ("4.0", "2.2.2")
    m = mujoco.MjModel.from_xml_path(str(path))
    qpos, qvel, _ = random_states(m, N, 5)
    lengths = []
    for model in (new, old):
        sim = zwang.Simulator(model, instances=N, precision="f64")
        sim.reset(qpos=qpos, qvel=qvel)
        sim.forward()
        lengths.append(np.array(sim.ten_length))
    differ = np.abs(lengths[0] - lengths[1]) > 1e-9
    # the tendons without a side site agree; some with one do not
    assert not differ[:, [0, 3, 6]].any()
    assert differ.any()
    with pytest.raises(ValueError, match="wrap_rules must be"):
        zwang.load(str(path), wrap_rules="3.0")


@pytest.mark.parametrize(
    "path,message",
    [
        (
            '<site site="s0"/><geom geom="box"/><site site="s1"/>',
            "geom 'box' is a box; tendons wrap around spheres and cylinders",
        ),
        ('<site site="s0"/><geom geom="nope"/><site site="s1"/>', "unknown geom 'nope'"),
        (
            '<site site="s0"/><geom geom="ball" sidesite="nope"/><site site="s1"/>',
            "unknown side site 'nope'",
        ),
        (
            '<site site="s0"/><geom geom="ball"/><geom geom="ball"/><site site="s1"/>',
            "needs a site before and after it",
        ),
        (
            '<site site="s0"/><site site="s1"/><geom geom="ball"/>',
            "ends at a site and starts at a site or a pulley",
        ),
        ('<site site="s0"/><geom/><site site="s1"/>', "<geom> needs the attribute 'geom'"),
    ],
)
def test_bad_paths_name_the_line(tmp_path, path, message):
    text = f"""<mujoco>
  <worldbody>
    <site name="s0"/>
    <geom name="ball" size="0.1"/>
    <geom name="box" type="box" size="0.1 0.1 0.1"/>
    <body><joint/><geom size="0.1"/><site name="s1" pos="1 0 0"/></body>
  </worldbody>
  <tendon>
    <spatial>{path}</spatial>
  </tendon>
</mujoco>"""
    file = tmp_path / "bad.xml"
    file.write_text(text)
    with pytest.raises(zwang.ModelError, match=message) as err:
        zwang.load(str(file))
    assert "bad.xml:" in str(err.value)
