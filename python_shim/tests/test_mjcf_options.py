"""MJCF options that MuJoCo 4.0 reads and 2.2.2 does not, against MuJoCo 4.0's Python bindings on
the same text: the flags of MuJoCo 3 and 4 (spring, damper, eulerdamp) beside 2.2.2's, body
gravcomp, mocap bodies posed per instance, keyframes through ``Simulator.reset(keyframe=)``, and
``<compiler fusestatic>`` (and URDF links on fixed joints merged, as MuJoCo's URDF importer does)
with MuJoCo 4.0's rule for the bodies it keeps (those with joints, and
those another element names: a sensor, a contact exclusion, the site of a force sensor; 2.2.2
fuses only models without such elements, tests/mjcf/test_mjcf.cc compares one).  The smooth dynamics
agree to 1e-9 relative (tests/mjcf/test_mjcf_options.cc checks MuJoCo 2.2.2)."""

import pathlib
import warnings

import numpy as np
import pytest
import zwang

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
N = 8

FINGER = """<mujoco model="finger">
  <compiler angle="radian"/>
  <option timestep="0.01"><flag constraint="disable" {flags}/></option>
  <default>
    <joint type="hinge" axis="0 -1 0" damping="0.05" armature="0.01" stiffness="0.2"/>
    <motor ctrllimited="true" ctrlrange="-1 1"/>
  </default>
  <worldbody>
    <body name="proximal" pos="-0.2 0 0.4" gravcomp="{gravcomp}">
      <joint name="proximal" springref="0.3"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.17" size="0.04"/>
      <body name="distal" pos="0 0 -0.18" gravcomp="{gravcomp}">
        <joint name="distal" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.01 0 -0.16" size="0.03"/>
      </body>
    </body>
    <body name="spinner" pos="0.2 0 0.4">
      <joint name="hinge" damping="0.5" stiffness="0"/>
      <geom type="box" size="0.2 0.02 0.03" pos="0.1 0 0.02"/>
    </body>
    <body name="target" mocap="true" pos="0 0.3 0.5"><geom size="0.02" contype="0"/></body>
  </worldbody>
  <actuator>
    <motor name="proximal" joint="proximal" gear="3"/>
    <motor name="distal" joint="distal" gear="1.5"/>
    <position name="servo" joint="hinge" kp="2" ctrlrange="-0.5 0.5"/>
  </actuator>
  <keyframe>
    <key name="bent" time="2" qpos="0.5 -1 0.2" qvel="1 0 -1" ctrl="0.2 0.3 2"
         mpos="0.1 0.2 0.3" mquat="0 0 0 3"/>
    <key qvel="0 0.5 0"/>
  </keyframe>
</mujoco>
"""


def close(a, b, what, tol=TOL):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, what
    scale = 1.0 + np.abs(b).max(initial=0.0)
    err = np.abs(a - b).max(initial=0.0) / scale
    assert err < tol, f"{what}: relative error {err:.3g}"


def both(tmp_path, flags="", gravcomp=0):
    path = tmp_path / "finger.xml"
    path.write_text(FINGER.format(flags=flags, gravcomp=gravcomp))
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


def mujoco_forward(m, d, qpos, qvel, ctrl):
    """MuJoCo's mj_forward at one state; its mass matrix, dense"""
    d.qpos[:], d.qvel[:], d.ctrl[:] = qpos, qvel, ctrl
    mujoco.mj_forward(m, d)
    M = np.zeros((m.nv, m.nv))
    mujoco.mj_fullM(m, d, M)
    return M


def load_text(tmp_path, name, text):
    """the same MJCF text loaded by zwang and by MuJoCo 4.0"""
    path = tmp_path / name
    path.write_text(text)
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


def zwang_forward(z, qpos, qvel, ctrl):
    """a simulator of N instances after forward() at the given states and controls"""
    sim = zwang.Simulator(z, instances=N)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.forward()
    return sim


def states(model, seed):
    rng = np.random.default_rng(seed)
    qpos = rng.uniform(-2, 2, (N, model.nq))
    qvel = rng.normal(size=(N, model.nv))
    ctrl = rng.uniform(-1.5, 1.5, (N, model.nu))
    return qpos, qvel, ctrl


@pytest.mark.parametrize(
    "flags",
    [
        "",
        'gravity="disable"',
        'spring="disable"',
        'damper="disable"',
        'spring="disable" damper="disable"',
        'eulerdamp="disable"',
        'actuation="disable"',
        'clampctrl="disable"',
        'gravity="disable" damper="disable" clampctrl="disable"',
    ],
)
@pytest.mark.parametrize("gravcomp", [0, 0.7])
def test_flags_and_gravcomp_match_mujoco4(tmp_path, flags, gravcomp):
    z, m = both(tmp_path, flags, gravcomp)
    assert z.warnings == []
    d = mujoco.MjData(m)
    qpos, qvel, ctrl = states(z, 5)
    sim = zwang.Simulator(z, instances=N)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.forward()
    H, bias = sim.mass_matrix(), sim.qfrc_bias
    for i in range(N):
        M = mujoco_forward(m, d, qpos[i], qvel[i], ctrl[i])
        at = f"<flag {flags}> gravcomp {gravcomp} instance {i}"
        close(H[i], M, f"H {at}")
        close(bias[i], d.qfrc_bias, f"qfrc_bias {at}")
        close(sim.qfrc_passive[i], d.qfrc_passive, f"qfrc_passive {at}")
        close(sim.qfrc_actuator[i], d.qfrc_actuator, f"qfrc_actuator {at}")
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force {at}")
        close(sim.qacc[i], d.qacc, f"qacc {at}")
    # one Euler step: implicit damping unless damper or eulerdamp is off
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.step(1)
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_step(m, d)
        close(sim.qpos[i], d.qpos, f"stepped qpos <flag {flags}> instance {i}")
        close(sim.qvel[i], d.qvel, f"stepped qvel <flag {flags}> instance {i}")


def test_gravcomp_is_a_parameter(tmp_path):
    z, _ = both(tmp_path, gravcomp=1)
    sim = zwang.Simulator(z, instances=2)
    np.testing.assert_array_equal(sim.params.body_gravcomp[0], [0, 1, 1, 0, 0])
    sim.params.body_gravcomp[1] = 0
    sim.forward()
    assert np.any(sim.qfrc_passive[0] != sim.qfrc_passive[1])


def test_mocap_poses_per_instance(tmp_path):
    z, m = both(tmp_path)
    assert z.nmocap == 1 and list(z.body_mocapid) == [-1, -1, -1, -1, 0]
    d = mujoco.MjData(m)
    sim = zwang.Simulator(z, instances=N)
    assert sim.mocap_pos.shape == (N, 1, 3) and sim.mocap_quat.shape == (N, 1, 4)
    np.testing.assert_array_equal(sim.mocap_pos[:, 0], np.tile([0, 0.3, 0.5], (N, 1)))
    rng = np.random.default_rng(3)
    sim.mocap_pos[:] = rng.uniform(-1, 1, sim.mocap_pos.shape)
    sim.mocap_quat[:] = rng.normal(size=sim.mocap_quat.shape)
    sim.forward()
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.mocap_pos[:], d.mocap_quat[:] = sim.mocap_pos[i], sim.mocap_quat[i]
        mujoco.mj_forward(m, d)
        close(sim.xpos[i], d.xpos, f"xpos instance {i}", 1e-12)
        q, r = sim.xquat[i], d.xquat
        q = q * np.sign(np.sum(q * r, axis=1))[:, None]
        close(q, r, f"xquat instance {i}", 1e-12)


def test_reset_to_keyframe_matches_mujoco4(tmp_path):
    z, m = both(tmp_path)
    assert z.nkey == 2 and z.key_names == ["bent", ""] and z.key_id("bent") == 0
    d = mujoco.MjData(m)
    sim = zwang.Simulator(z, instances=3)
    sim.qvel[:] = 5
    for key, instances in (("bent", [0, 2]), (1, 1)):
        sim.reset(instances=instances, keyframe=key)
        mujoco.mj_resetDataKeyframe(m, d, key if isinstance(key, int) else m.key(key).id)
        for i in np.atleast_1d(instances):
            assert sim.time[i] == d.time
            np.testing.assert_array_equal(sim.qpos[i], d.qpos)
            np.testing.assert_array_equal(sim.qvel[i], d.qvel)
            np.testing.assert_array_equal(sim.ctrl[i], d.ctrl)
            np.testing.assert_array_equal(sim.mocap_pos[i], d.mocap_pos)
            np.testing.assert_array_equal(sim.mocap_quat[i], d.mocap_quat)
    np.testing.assert_array_equal(z.key_mquat[0], [[0, 0, 0, 1]])
    # qpos and qvel given beside the keyframe replace its own
    sim.reset(instances=0, keyframe="bent", qvel=np.zeros(z.nv))
    assert sim.time[0] == 2 and not sim.qvel[0].any() and sim.qpos[0][1] == -1
    with pytest.raises(KeyError, match="no keyframe named 'nope'"):
        sim.reset(keyframe="nope")
    with pytest.raises(IndexError, match=r"keyframe 2 is not in \[0, 2\)"):
        sim.reset(keyframe=2)


WELDED = """<mujoco model="welded">
  <compiler angle="degree" fusestatic="{fuse}"/>
  <option timestep="0.005"><flag contact="disable"/></option>
  <worldbody>
    <geom type="plane" size="3 3 0.1"/>
    <body name="post" pos="1 0 0.2"><geom type="box" size="0.05 0.05 0.2"/></body>
    <body name="base" pos="0 0 1" euler="0 10 0">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="visor" pos="0.2 0 0.05" euler="0 0 40">
        <geom type="box" size="0.05 0.1 0.02" mass="0.3"/>
        <site name="lens" pos="0.05 0 0"/>
      </body>
      <body name="tracked" pos="-0.2 0 0"><geom type="sphere" size="0.05"/></body>
      <body name="scale" pos="0 0.15 0">
        <geom type="sphere" size="0.03"/>
        <site name="load"/>
      </body>
      <body pos="0 -0.15 0" euler="30 0 0">
        <geom type="capsule" fromto="0 0 0 0 0 0.1" size="0.02"/>
        <body name="arm" pos="0 0 0.12">
          <joint name="elbow" axis="1 0 0" damping="0.2"/>
          <geom type="capsule" fromto="0 0 0 0 0 0.3" size="0.02"/>
          <body name="grip" pos="0 0 0.3"><geom type="box" size="0.02 0.03 0.04"/></body>
          <body name="tip" pos="0 0.02 0.34" euler="0 45 0">
            <geom type="ellipsoid" size="0.03 0.02 0.01"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <contact><exclude body1="grip" body2="base"/></contact>
  <actuator><motor joint="elbow" gear="2"/></actuator>
  <sensor>
    <subtreecom body="tracked"/>
    <force site="load"/>
    <framepos objtype="site" objname="lens"/>
    <subtreelinvel body="base"/>
  </sensor>
</mujoco>
"""


def welded(tmp_path, fuse):
    path = tmp_path / "welded.xml"
    path.write_text(WELDED.format(fuse=fuse))
    return zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))


def welded_states(m, seed):
    """N states of WELDED: the free base moved and turned, the elbow bent, random velocities and
    controls"""
    rng = np.random.default_rng(seed)
    qpos = np.tile(m.qpos0, (N, 1))
    qpos[:, :3] += rng.uniform(-0.5, 0.5, (N, 3))
    quat = rng.normal(size=(N, 4))
    qpos[:, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    qpos[:, 7] = rng.uniform(-2, 2, N)
    return qpos, rng.normal(size=(N, m.nv)), rng.uniform(-1, 1, (N, m.nu))


def names(m):
    return [m.body(i).name for i in range(m.nbody)]


@pytest.mark.parametrize("fuse", ["true", "false"])
def test_fused_tree_matches_mujoco4(tmp_path, fuse):
    z, m = welded(tmp_path, fuse)
    assert z.warnings == []
    if fuse == "true":
        # visor, the unnamed mount and tip go; post goes into the world
        assert names(m) == ["world", "base", "tracked", "scale", "arm", "grip"]
    else:
        assert m.nbody == 10
    # zwang names an unnamed body by its index
    assert len(z.body_names) == m.nbody
    assert all(a == b for a, b in zip(z.body_names, names(m)) if b)
    np.testing.assert_array_equal(z.body_parentid, m.body_parentid)
    np.testing.assert_array_equal(z.geom_bodyid, m.geom_bodyid)
    close(z.body_mass, m.body_mass, "body_mass", 1e-12)


@pytest.mark.parametrize("fuse", ["true", "false"])
def test_fused_dynamics_match_mujoco4(tmp_path, fuse):
    z, m = welded(tmp_path, fuse)
    d = mujoco.MjData(m)
    qpos, qvel, ctrl = welded_states(m, 11)
    sim = zwang.Simulator(z, instances=N)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.forward()
    H = sim.mass_matrix()
    for i in range(N):
        M = mujoco_forward(m, d, qpos[i], qvel[i], ctrl[i])
        at = f"fusestatic={fuse} instance {i}"
        close(H[i], M, f"H {at}")
        close(sim.qfrc_bias[i], d.qfrc_bias, f"qfrc_bias {at}")
        close(sim.qacc[i], d.qacc, f"qacc {at}")
        close(sim.xpos[i], d.xpos, f"xpos {at}", 1e-12)
        close(sim.geom_xpos[i], d.geom_xpos, f"geom_xpos {at}", 1e-12)
        close(sim.sensordata[i], d.sensordata, f"sensordata {at}")


ONE_WELD = """<mujoco>
  <compiler fusestatic="true" {compiler}/>
  <option {option}/>
  <worldbody>
    <body name="p" pos="0 0 1" gravcomp="0.5"><freejoint/><geom size="{parent_size}"/>
      <body {body} pos="0.3 0 0.1" euler="0 30 0"><geom size="0.05"/>{inside}</body>
    </body>
    <body name="post" pos="1 0 0.2" {post}><geom type="box" size="0.05 0.05 0.2"/></body>
  </worldbody>
  {after}
</mujoco>
"""


@pytest.mark.parametrize(
    "compiler,option,body,inside,after,stays",
    [
        ("", "", 'name="k" gravcomp="0.5"', "", "", False),
        ("", "", 'name="k" gravcomp="1"', "", "", True),
        ("", "", 'name="k" gravcomp="0.5" fuse="false"', "", "", True),
        ("", 'density="1.2"', 'name="k" gravcomp="0.5"', "", "", True),
        ("", 'viscosity="0.1"', 'name="k" gravcomp="0.5"', "", "", True),
        ("", 'wind="1 0 0"', 'name="k" gravcomp="0.5"', "", "", False),
        ('settotalmass="10"', "", 'name="k" gravcomp="0.5"', "", "", False),
        ('boundmass="1"', "", 'name="k" gravcomp="0.5"', "", "", False),
        ('inertiafromgeom="true" boundmass="1"', "", 'name="k" gravcomp="0.5"', "", "", True),
        ('inertiafromgeom="true" boundmass="0.1"', "", 'name="k" gravcomp="0.5"', "", "", False),
        ('inertiafromgeom="true" boundinertia="0.1"', "", 'name="k" gravcomp="0.5"', "", "", True),
        ('boundinertia="0.1"', "", 'name="k" gravcomp="0.5"', "", "", False),
        ("", "", 'gravcomp="0.5"', '<site name="s"/>', '<sensor><force site="s"/></sensor>', True),
        (
            "",
            "",
            'gravcomp="0.5"',
            '<site name="s"/>',
            '<sensor><framepos objtype="site" objname="s"/></sensor>',
            False,
        ),
    ],
)
def test_which_bodies_fuse_matches_mujoco4(tmp_path, compiler, option, body, inside, after, stays):
    # the world-welded post merges into the world whatever its gravcomp, fluid or bounds
    path = tmp_path / "one_weld.xml"
    path.write_text(
        ONE_WELD.format(
            compiler=compiler,
            option=option,
            body=body,
            inside=inside,
            after=after,
            parent_size="0.1",
            post='gravcomp="1"',
        )
    )
    z = zwang.load(str(path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = mujoco.MjModel.from_xml_path(str(path))
    assert m.nbody == (3 if stays else 2)
    assert z.nbody == m.nbody
    close(z.body_mass, m.body_mass, "body_mass", 1e-12)
    if not stays:
        sim = zwang.Simulator(z, instances=1)
        sim.forward()
        d = mujoco.MjData(m)
        M = mujoco_forward(m, d, m.qpos0, np.zeros(m.nv), np.zeros(m.nu))
        close(sim.mass_matrix()[0], M, "H")


def test_merged_bodies_are_where_mujoco4_has_them_unmerged(tmp_path):
    z, _ = welded(tmp_path, "true")
    _, m = welded(tmp_path, "false")
    # document order; the unnamed mount keeps no name
    assert z.fused_names == ["post", "visor", "", "tip"]
    assert z.nfused == 4 and z.fused_bodyid.tolist() == [0, 1, 1, 4]
    assert z.fused_pos.shape == (4, 3) and z.fused_quat.shape == (4, 4)
    assert z.fused_ipos.shape == (4, 3) and z.fused_mass.shape == (4,)
    assert z.fused_id("tip") == 3
    with pytest.raises(KeyError, match="merged into body 'arm'.*fused_id"):
        z.body_id("tip")
    with pytest.raises(KeyError, match="no merged body named 'base'"):
        z.fused_id("base")
    # MuJoCo's bodies of the merged ones: by name, and the unnamed ones in body order
    unnamed = iter(b for b in range(1, m.nbody) if not m.body(b).name)
    ids = [m.body(name).id if name else next(unnamed) for name in z.fused_names]
    d = mujoco.MjData(m)
    qpos, qvel, _ = welded_states(m, 3)
    for precision, tol in [("f64", 1e-12), ("f32", 2e-6)]:
        sim = zwang.Simulator(z, instances=N, precision=precision)
        sim.reset(qpos=qpos, qvel=qvel)
        sim.forward()
        xpos, xquat, xmat = sim.fused_xpos, sim.fused_xquat, sim.fused_xmat
        xipos, vel = sim.fused_xipos, sim.fused_vel
        assert sim.nfused == 4
        assert xpos.shape == (N, 4, 3) and xquat.shape == (N, 4, 4) and vel.shape == (N, 4, 6)
        for i in range(N):
            d.qpos[:], d.qvel[:] = qpos[i], qvel[i]
            mujoco.mj_forward(m, d)
            for f, b in enumerate(ids):
                name = z.fused_names[f]
                at = f"{precision} instance {i} {name}"
                close(z.fused_mass[f], m.body_mass[b], f"mass {name}", 1e-12)
                close(xpos[i, f], d.xpos[b], f"fused_xpos {at}", tol)
                q = xquat[i, f] * np.sign(xquat[i, f] @ d.xquat[b])
                close(q, d.xquat[b], f"fused_xquat {at}", tol)
                close(xmat[i, f], d.xmat[b], f"fused_xmat {at}", tol)
                close(xipos[i, f], d.xipos[b], f"fused_xipos {at}", tol)
                v = np.zeros(6)
                mujoco.mj_objectVelocity(m, d, mujoco.mjtObj.mjOBJ_XBODY, b, v, 0)
                close(vel[i, f], v, f"fused_vel {at}", tol)
    kept = zwang.Simulator(z, instances=2, outputs=["fused_xpos"])
    kept.forward()
    assert kept.fused_xpos.shape == (2, 4, 3)
    with pytest.raises(zwang.OutputNotKeptError, match="fused_vel is computed from"):
        _ = kept.fused_vel


URDF_DIR = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "urdf"


@pytest.mark.parametrize("robot", ["serial_arm", "mobile_base", "tree"])
def test_urdf_fuse_static_matches_mujoco4_importer(robot):
    # MuJoCo's URDF importer merges the links on fixed joints unless told otherwise
    path = str(URDF_DIR / f"{robot}.urdf")
    z, m = zwang.load(path, fuse_static=True), mujoco.MjModel.from_xml_path(path)
    assert z.body_names == names(m)
    np.testing.assert_array_equal(z.body_parentid, m.body_parentid)
    close(z.body_mass, m.body_mass, "body_mass", 1e-12)
    assert zwang.load(path).nbody > m.nbody
    d = mujoco.MjData(m)
    rng = np.random.default_rng(5)
    qpos, qvel = rng.uniform(-1, 1, (N, m.nq)), rng.normal(size=(N, m.nv))
    sim = zwang.Simulator(z, instances=N)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.forward()
    for i in range(N):
        M = mujoco_forward(m, d, qpos[i], qvel[i], np.zeros(m.nu))
        # tree.urdf's full tensors: MuJoCo's eigen-solver rebuilds them to 6e-7
        # (test_urdf_mujoco.cc)
        close(sim.mass_matrix()[i], M, f"H {robot} instance {i}", 1e-6)
        close(sim.qfrc_bias[i], d.qfrc_bias, f"qfrc_bias {robot} instance {i}", 1e-6)
        close(sim.xpos[i], d.xpos, f"xpos {robot} instance {i}", 1e-12)


def test_fuse_static_option_is_for_urdf(tmp_path):
    path = tmp_path / "one.xml"
    path.write_text(
        "<mujoco><worldbody><body><joint/><geom size='0.1'/></body></worldbody></mujoco>"
    )
    with pytest.raises(zwang.ModelError, match="fusestatic"):
        zwang.load(str(path), fuse_static=True)


def test_a_bound_on_the_parent_keeps_its_welded_child(tmp_path):
    # inertiafromgeom="true": boundmass raises the free body's mass, and MuJoCo 4.0 then keeps the
    # body welded to it, whose own mass is above the bound
    path = tmp_path / "bounded.xml"
    path.write_text(
        ONE_WELD.format(
            compiler='inertiafromgeom="true" boundmass="0.3"',
            option="",
            body='name="k" gravcomp="0.5"',
            inside="",
            after="",
            parent_size="0.01",
            post="",
        )
    )
    z, m = zwang.load(str(path)), mujoco.MjModel.from_xml_path(str(path))
    assert names(m) == ["world", "p", "k"]
    assert z.body_names == names(m)
    close(z.body_mass, m.body_mass, "body_mass", 1e-12)


AUTOLIMITS = """<mujoco model="autolimits">
  <compiler angle="radian" {compiler}/>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" range="-0.4 0.6" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="elbow" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="sum" range="-0.5 0.5">
      <joint joint="shoulder" coef="1"/>
      <joint joint="elbow" coef="1"/>
    </fixed>
  </tendon>
  <actuator>
    <motor name="shoulder" joint="shoulder" ctrlrange="-1 1" forcerange="-0.5 0.5"/>
    <motor name="elbow" joint="elbow" ctrlrange="-2 2"/>
  </actuator>
</mujoco>
"""


@pytest.mark.parametrize("compiler", ["", 'autolimits="true"'])
def test_ranges_without_limited_are_limits_as_in_mujoco4(tmp_path, compiler):
    """MuJoCo 4.0's default autolimits: a range without `limited` (joint, tendon, ctrl, force)
    is a limit; the same states in both engines, some past the limits, with the limit rows on"""
    z, m = load_text(tmp_path, "autolimits.xml", AUTOLIMITS.format(compiler=compiler))
    assert z.warnings == []
    np.testing.assert_array_equal(z.actuator_ctrllimited, m.actuator_ctrllimited.astype(bool))
    assert all(m.jnt_limited == [1, 0]) and all(m.tendon_limited == [1])
    d = mujoco.MjData(m)
    qpos, qvel, ctrl = states(z, 7)
    sim = zwang_forward(z, qpos, qvel, ctrl)
    active = 0
    for i in range(N):
        mujoco_forward(m, d, qpos[i], qvel[i], ctrl[i])
        active += d.nefc
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force, instance {i}")
        close(sim.qacc[i], d.qacc, f"qacc, instance {i}", tol=1e-8)
    # the states reach past the limits: the rows are in play, not only possible
    assert active > 0


def test_autolimits_false_needs_limited(tmp_path):
    """2.2.2's default, asked for: a range without `limited` is refused, naming the line"""
    path = tmp_path / "autolimits.xml"
    path.write_text(AUTOLIMITS.format(compiler='autolimits="false"'))
    with pytest.raises(zwang.ModelError, match=r"autolimits.xml:5: <joint> has .range. but not"):
        zwang.load(str(path))
    with pytest.raises(ValueError, match="limited"):
        mujoco.MjModel.from_xml_path(str(path))


INHERIT = """<mujoco model="inheritrange">
  <compiler angle="{angle}"/>
  <default><default class="servo"><position kp="3" inheritrange="0.8"/></default></default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" range="{range}"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="slider" type="slide" axis="1 0 0" range="-0.05 0.15"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="sum" range="-0.3 0.9">
      <joint joint="shoulder" coef="1"/>
      <joint joint="slider" coef="2"/>
    </fixed>
  </tendon>
  <actuator>
    <position joint="shoulder" kp="2" inheritrange="1"/>
    <position joint="slider" class="servo"/>
    <position tendon="sum" kp="5" inheritrange="2" ctrllimited="false"/>
    <position joint="shoulder" kp="1" ctrlrange="-0.1 0.1"/>
  </actuator>
</mujoco>
"""


@pytest.mark.parametrize(
    "angle, joint_range", [("radian", "-0.4 1.1"), ("degree", "-30 60"), ("radian", "0.2 0.3")]
)
def test_inheritrange_matches_mujoco4(tmp_path, angle, joint_range):
    """MuJoCo 3's inheritrange on position actuators (joint, slide joint, tendon, from a default
    class, with ctrllimited off) gives MuJoCo 4.0's ctrlrange, and the same actuator forces"""
    z, m = load_text(tmp_path, "inheritrange.xml", INHERIT.format(angle=angle, range=joint_range))
    assert z.warnings == []
    np.testing.assert_array_equal(z.actuator_ctrllimited, m.actuator_ctrllimited.astype(bool))
    d = mujoco.MjData(m)
    qpos, qvel, _ = states(z, 3)
    ctrl = np.random.default_rng(4).uniform(-2, 2, (N, z.nu))
    sim = zwang_forward(z, qpos, qvel, ctrl)
    for i in range(N):
        mujoco_forward(m, d, qpos[i], qvel[i], ctrl[i])
        # the clamped control shows in the force: kp (clamp(u) − l)
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force, instance {i}", tol=1e-12)


@pytest.mark.parametrize(
    "actuator, message",
    [
        ('<position joint="free" inheritrange="1"/>', "needs a range of its joint"),
        ('<position joint="hinge" inheritrange="1" ctrlrange="0 1"/>', "both 'ctrlrange' and"),
        ('<position joint="hinge" inheritrange="-1"/>', "'inheritrange': -1 is negative"),
    ],
)
def test_inheritrange_errors_name_the_line(tmp_path, actuator, message):
    path = tmp_path / "bad.xml"
    path.write_text(
        '<mujoco>\n<worldbody>\n<body>\n<joint name="hinge" range="0 1"/>\n'
        '<joint name="free" axis="1 0 0"/>\n<geom size="0.1"/>\n</body>\n</worldbody>\n'
        f"<actuator>\n{actuator}\n</actuator>\n</mujoco>\n"
    )
    with pytest.raises(zwang.ModelError, match="bad.xml:10: .*" + message):
        zwang.load(str(path))


def test_inheritrange_is_a_position_actuators(tmp_path):
    """on another actuator the attribute is unknown: a warning naming it (MuJoCo refuses it)"""
    path = tmp_path / "motor.xml"
    path.write_text(
        '<mujoco>\n<worldbody>\n<body>\n<joint name="hinge" range="0 1"/>\n<geom size="0.1"/>\n'
        '</body>\n</worldbody>\n<actuator>\n<motor joint="hinge" inheritrange="1"/>\n'
        "</actuator>\n</mujoco>\n"
    )
    z = zwang.load(str(path))
    unknown = "attribute 'inheritrange' of <motor> is not supported; ignored"
    assert z.warnings == [f"{path}:9: {unknown}"]
    assert not z.actuator_ctrllimited[0]


SERVOS = """<mujoco model="servos">
  <default><default class="damped"><position kp="4" kv="0.3"/></default></default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="elbow" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position joint="shoulder" kp="10" kv="1.5"/>
    <position joint="elbow" class="damped"/>
    <position joint="elbow" class="damped" kp="2"/>
    <position joint="shoulder" kp="3"/>
  </actuator>
</mujoco>
"""


def test_position_kv_is_damping_as_in_mujoco4(tmp_path):
    """MuJoCo 3's kv of a position actuator (given, and from a position of its default class):
    f = kp (u − l) − kv l̇, the same forces and accelerations as MuJoCo 4.0, and one Euler step"""
    z, m = load_text(tmp_path, "servos.xml", SERVOS)
    assert z.warnings == []
    d = mujoco.MjData(m)
    qpos, qvel, ctrl = states(z, 9)
    sim = zwang_forward(z, qpos, qvel, ctrl)
    for i in range(N):
        mujoco_forward(m, d, qpos[i], qvel[i], ctrl[i])
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force, instance {i}")
        close(sim.qacc[i], d.qacc, f"qacc, instance {i}")
    sim.step(1)
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_step(m, d)
        close(sim.qvel[i], d.qvel, f"stepped qvel, instance {i}")


FORCE_RANGES = """<mujoco model="force ranges">
  <default><default class="capped"><joint actuatorfrcrange="-0.4 0.3"/></default></default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" actuatorfrcrange="-1 0.8" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="slider" class="capped" type="slide" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="hand" pos="0.3 0 0">
          <joint name="wrist" type="ball" actuatorfrcrange="-1 1"/>
          <geom size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="shoulder" gear="2"/>
    <position joint="shoulder" kp="3"/>
    <motor joint="slider"/>
  </actuator>
</mujoco>
"""


def test_joint_actuator_force_range_matches_mujoco4(tmp_path):
    """MuJoCo 3's actuatorfrcrange clamps a hinge's or slide's total actuator force (two
    actuators on one joint, a default class; a ball joint's range is unused, as in MuJoCo):
    the same qfrc_actuator, qacc and one Euler step as MuJoCo 4.0, clamped and not"""
    z, m = load_text(tmp_path, "force_ranges.xml", FORCE_RANGES)
    assert z.warnings == []
    np.testing.assert_array_equal(z.jnt_actfrclimited, m.jnt_actfrclimited)
    close(z.jnt_actfrcrange[:2], m.jnt_actfrcrange[:2], "jnt_actfrcrange")
    d = mujoco.MjData(m)
    qpos = np.zeros((N, z.nq))
    qpos[:, 2] = 1  # the ball's quaternion
    qvel = np.random.default_rng(2).normal(size=(N, z.nv))
    ctrl = np.random.default_rng(3).uniform(-1, 1, (N, z.nu)) * np.linspace(0.05, 1, N)[:, None]
    sim = zwang_forward(z, qpos, qvel, ctrl)
    clamped = 0
    for i in range(N):
        mujoco_forward(m, d, qpos[i], qvel[i], ctrl[i])
        close(sim.qfrc_actuator[i], d.qfrc_actuator, f"qfrc_actuator, instance {i}")
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force, instance {i}")
        close(sim.qacc[i], d.qacc, f"qacc, instance {i}")
        unclamped = np.array([2 * d.actuator_force[0] + d.actuator_force[1], d.actuator_force[2]])
        clamped += int(np.any(np.abs(d.qfrc_actuator[:2] - unclamped) > 1e-12))
    # some instances are clamped, some are not
    assert 0 < clamped < N
    sim.step(1)
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_step(m, d)
        close(sim.qvel[i], d.qvel, f"stepped qvel, instance {i}")


LEVELS = """<mujoco model="levels">
  <compiler angle="radian"/>
  <default>
    <default class="inherit"><position kp="2" inheritrange="1"/>
      <default class="ranged"><position ctrlrange="-0.2 0.1"/></default>
    </default>
    <default class="range"><position kp="2" ctrlrange="-0.3 0.4"/></default>
  </default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" range="-0.4 1.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="lower" pos="0.3 0 0">
        <joint name="free_elbow" axis="0 1 0" range="-0.5 0.5" limited="false"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="hand" pos="0.3 0 0">
          <joint name="wrist" type="ball" actuatorfrclimited="true"/>
          <joint name="odd" type="slide" range="1 -1" actuatorfrcrange="2 2"/>
          <geom size="0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position joint="shoulder" class="inherit"/>
    <motor joint="shoulder" class="inherit"/>
    <general joint="shoulder" class="inherit"/>
    <position joint="shoulder" class="ranged"/>
    <position joint="shoulder" class="range" inheritrange="0.5"/>
    <position joint="shoulder" class="inherit" inheritrange="0" ctrlrange="-1 2"/>
    <position joint="free_elbow" inheritrange="1"/>
  </actuator>
</mujoco>
"""


def test_ranges_through_classes_match_mujoco4(tmp_path):
    """where inheritrange and ctrlrange meet across default classes, the one given last holds;
    a position class's inheritrange reaches general actuators, not motors; an unlimited joint's
    range is inherited; a ball joint's actuatorfrclimited is unused; under autolimits a range
    that is no interval limits nothing: MuJoCo 4.0's limits and ranges"""
    z, m = load_text(tmp_path, "levels.xml", LEVELS)
    assert z.warnings == []
    np.testing.assert_array_equal(z.actuator_ctrllimited, m.actuator_ctrllimited.astype(bool))
    close(z.actuator_ctrlrange, m.actuator_ctrlrange, "actuator_ctrlrange", tol=1e-15)
    np.testing.assert_array_equal(z.jnt_limited, m.jnt_limited)
    np.testing.assert_array_equal(z.jnt_actfrclimited, m.jnt_actfrclimited)


DAMPRATIOS = """<mujoco model="damping ratios">
  <default>
    <default class="critical"><position kp="40" dampratio="1"/></default>
    <default class="overdamped"><position kp="10" kv="2"/>
      <default class="ratio"><position dampratio="1.5"/></default>
    </default>
  </default>
  <worldbody>
    <body name="upper" pos="0 0 1">
      <joint name="shoulder" axis="0 1 0" armature="0.02"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
      <body name="lower" pos="0.4 0 0">
        <joint name="slider" type="slide" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="hand" pos="0.3 0 0">
          <joint name="wrist" axis="1 0 0"/>
          <geom type="box" size="0.05 0.08 0.02"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="pair"><joint joint="shoulder" coef="0.5"/><joint joint="wrist" coef="-1"/></fixed>
  </tendon>
  <actuator>
    <position joint="shoulder" kp="50" dampratio="0.7" gear="2"/>
    <position class="critical" joint="slider"/>
    <position class="ratio" joint="wrist"/>
    <position class="overdamped" tendon="pair" dampratio="2" gear="1.5"/>
    <general class="critical" joint="wrist" gainprm="40" biastype="affine" biasprm="0 -40 1"/>
    <general joint="slider" gainprm="5" biastype="affine" biasprm="0 -5 0.5"/>
  </actuator>
</mujoco>
"""


def test_damping_ratios_match_mujoco4(tmp_path):
    """MuJoCo 3's dampratio of a position servo (given, from its class, on a tendon), and a
    general actuator's positive bias2 where gain0 = −bias1, which MuJoCo 3 and 4 read as a damping
    ratio: kv = ratio 2 √(kp m), m the inertia at qpos0 reflected through the moment; the same
    biasprm as MuJoCo 4.0 and the same forces and Euler step"""
    z, m = load_text(tmp_path, "ratios.xml", DAMPRATIOS)
    assert z.warnings == []
    np.testing.assert_allclose(z.actuator_biasprm, m.actuator_biasprm[:, :3], rtol=1e-12)
    assert (z.actuator_biasprm[:, 2] < 0).all()
    d = mujoco.MjData(m)
    qpos, qvel, ctrl = states(z, 10)
    sim = zwang_forward(z, qpos, qvel, ctrl)
    for i in range(N):
        mujoco_forward(m, d, qpos[i], qvel[i], ctrl[i])
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force, instance {i}")
    sim.step(1)
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:] = qpos[i], qvel[i], ctrl[i]
        mujoco.mj_step(m, d)
        close(sim.qvel[i], d.qvel, f"stepped qvel, instance {i}")


CLASS_BIAS = """<mujoco model="class bias">
  <default>
    <default class="general_ratio"><general gainprm="10" biastype="affine" biasprm="0 -10 0.7"/>
    </default>
    <default class="ratio_then_kv"><position kp="10" dampratio="1"/>
      <default class="kv"><general biasprm="0 -10 -2"/></default>
    </default>
  </default>
  <worldbody>
    <body pos="0 0 1">
      <joint name="a" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
      <body pos="0.4 0 0">
        <joint name="b" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position class="general_ratio" joint="a"/>
    <position class="kv" joint="b"/>
  </actuator>
</mujoco>
"""


def test_position_keeps_its_class_bias2_as_mujoco4(tmp_path):
    """a <position> without kv or dampratio keeps its class's bias2, whatever element set it"""
    z, m = load_text(tmp_path, "class_bias.xml", CLASS_BIAS)
    assert z.warnings == []
    np.testing.assert_allclose(z.actuator_biasprm, m.actuator_biasprm[:, :3], rtol=1e-12)


@pytest.mark.parametrize(
    "change, message",
    [
        ('kp="50" kv="1" dampratio="0.7"', "'kv' and 'dampratio'"),
        ('kp="50" dampratio="-0.7"', "dampratio cannot be negative"),
    ],
)
def test_kv_and_dampratio_errors_name_the_line(tmp_path, change, message):
    text = DAMPRATIOS.replace('kp="50" dampratio="0.7"', change)
    path = tmp_path / "bad.xml"
    path.write_text(text)
    with pytest.raises(zwang.ModelError, match=r"bad.xml:\d+.*" + message):
        zwang.load(str(path))


GRAVCOMP_ACTUATORS = """<mujoco model="gravity compensation by actuators">
  <default><joint damping="0.1"/></default>
  <worldbody>
    <body name="upper" pos="0 0 1" gravcomp="1">
      <joint name="shoulder" axis="0 1 0" actuatorgravcomp="true" actuatorfrcrange="-2 2"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.05"/>
      <body name="lower" pos="0.4 0 0" gravcomp="0.5">
        <joint name="elbow" axis="0 1 0" actuatorgravcomp="true"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body name="hand" pos="0.3 0 0" gravcomp="1">
          <joint name="wrist" type="ball"/>
          <geom type="box" size="0.05 0.08 0.02"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor joint="shoulder" gear="2"/>
    <position joint="elbow" kp="5"/>
  </actuator>
</mujoco>
"""


@pytest.mark.parametrize("flags", ["", 'actuation="disable"', 'gravity="disable"'])
def test_actuator_gravcomp_matches_mujoco4(tmp_path, flags):
    """MuJoCo 3's actuatorgravcomp: the gravity compensation of a joint's dofs in qfrc_actuator
    (clamped by its actuatorfrcrange) instead of qfrc_passive; the ball joint's stays passive"""
    text = GRAVCOMP_ACTUATORS.replace("<worldbody>", f"<option><flag {flags}/></option><worldbody>")
    z, m = load_text(tmp_path, "actgravcomp.xml", text)
    assert z.warnings == []
    np.testing.assert_array_equal(z.jnt_actgravcomp, m.jnt_actgravcomp)
    d = mujoco.MjData(m)
    qpos, qvel, ctrl = states(z, 11)
    qpos[:, 2:6] /= np.linalg.norm(qpos[:, 2:6], axis=1, keepdims=True)  # the wrist's quaternion
    sim = zwang_forward(z, qpos, qvel, ctrl)
    for i in range(N):
        mujoco_forward(m, d, qpos[i], qvel[i], ctrl[i])
        at = f"<flag {flags}> instance {i}"
        close(sim.qfrc_passive[i], d.qfrc_passive, f"qfrc_passive {at}")
        close(sim.qfrc_actuator[i], d.qfrc_actuator, f"qfrc_actuator {at}")
        close(sim.qacc[i], d.qacc, f"qacc {at}")


def test_actuator_gravcomp_needs_actuators_as_in_mujoco4(tmp_path):
    """without any actuator MuJoCo computes no actuation: the compensation is gone"""
    start, end = GRAVCOMP_ACTUATORS.index("<actuator>"), GRAVCOMP_ACTUATORS.index("</actuator>")
    text = GRAVCOMP_ACTUATORS[:start] + GRAVCOMP_ACTUATORS[end + len("</actuator>") :]
    z, m = load_text(tmp_path, "no_actuators.xml", text)
    assert z.nu == 0
    d = mujoco.MjData(m)
    qpos, qvel, _ = states(z, 12)
    qpos[:, 2:6] /= np.linalg.norm(qpos[:, 2:6], axis=1, keepdims=True)
    sim = zwang_forward(z, qpos, qvel, np.zeros((N, 0)))
    for i in range(N):
        mujoco_forward(m, d, qpos[i], qvel[i], [])
        close(sim.qfrc_actuator[i], d.qfrc_actuator, f"qfrc_actuator instance {i}")
        close(sim.qacc[i], d.qacc, f"qacc instance {i}")


RULES = """<mujoco>
  <worldbody>
    <geom type="plane" size="2 2 0.1" margin="0.03"/>
    <body name="ball" pos="0 0 0.14">
      <freejoint/>
      <geom type="sphere" size="0.1" margin="0.03"/>
    </body>
  </worldbody>
</mujoco>
"""


@pytest.mark.parametrize(
    "options,margin,wrap",
    [
        ({}, "sum", "4.0"),
        ({"rules": "4.0"}, "sum", "4.0"),
        ({"rules": "2.2.2"}, "max", "2.2.2"),
        ({"rules": "2.2.2", "contact_margin": "sum"}, "sum", "2.2.2"),
        ({"wrap_rules": "2.2.2"}, "sum", "2.2.2"),
        ({"contact_margin": "max"}, "max", "4.0"),
    ],
)
def test_rules_choose_mujoco4s_or_2_2_2s_meaning(tmp_path, options, margin, wrap):
    # a ball 0.04 above the floor: within the summed margins (0.06, MuJoCo 4.0 finds a contact)
    # but outside the larger (0.03)
    path = tmp_path / "rules.xml"
    path.write_text(RULES)
    z = zwang.load(str(path), **options)
    assert (z.contact_margin, z.wrap_rules) == (margin, wrap)
    sim = zwang.Simulator(z, instances=1)
    sim.forward()
    m = mujoco.MjModel.from_xml_path(str(path))
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    assert d.ncon == 1
    assert sim.ncon[0] == (1 if margin == "sum" else 0)


def test_rules_must_be_a_mujoco_version(tmp_path):
    path = tmp_path / "rules.xml"
    path.write_text(RULES)
    with pytest.raises(ValueError, match="rules must be '4.0' or '2.2.2', not '3.0'"):
        zwang.load(str(path), rules="3.0")


# two tetrahedra apart in one mesh: its signed, positive and convex-hull volumes all differ
MESH_INERTIA = """<mujoco>
  <asset>
    <mesh name="m" {inertia}
          vertex="0 0 0  1 0 0  0 1 0  0 0 1  3 0 0  4 0 0  3 1 0  3 0 1"
          face="0 2 1  0 1 3  0 3 2  1 2 3  4 6 5  4 5 7  4 7 6  5 6 7"/>
  </asset>
  <worldbody>
    <body pos="0.1 0.2 0.3" euler="10 20 30"><freejoint/>
      <geom type="mesh" mesh="m" pos="0.05 0 0" euler="0 0 40" density="700"/></body>
  </worldbody>
</mujoco>
"""


def inertia_in_body_frame(mass, ipos, iquat, tensor):
    r = np.empty(9)
    mujoco.mju_quat2Mat(r, iquat)
    r = r.reshape(3, 3)
    return mass, ipos, r @ tensor @ r.T


def zwang_inertia(z, body):
    # about the centre of mass, in the body frame already
    xx, yy, zz, xy, xz, yz = z.body_inertia[body]
    tensor = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    return z.body_mass[body], z.body_ipos[body], tensor


@pytest.mark.parametrize("inertia", ["", "legacy", "exact", "convex", "shell"])
def test_mesh_inertia_matches_mujoco4(tmp_path, inertia):
    # no inertia attribute: MuJoCo 4.0's default, legacy (positive volumes)
    path = tmp_path / "mesh.xml"
    path.write_text(MESH_INERTIA.format(inertia=f'inertia="{inertia}"' if inertia else ""))
    z = zwang.load(str(path))
    m = mujoco.MjModel.from_xml_path(str(path))
    ours = zwang_inertia(z, 1)
    theirs = inertia_in_body_frame(
        m.body_mass[1], m.body_ipos[1], m.body_iquat[1], np.diag(m.body_inertia[1])
    )
    assert abs(ours[0] - theirs[0]) < 1e-9 * theirs[0]
    close(ours[1], theirs[1], "body_ipos", 1e-9)
    close(ours[2], theirs[2], "inertia", 1e-9 * np.abs(theirs[2]).max())


def test_mesh_inertia_by_2_2_2s_rules_differs(tmp_path):
    # MuJoCo 2.2.2 spreads the mass over the equivalent inertia box's volume
    path = tmp_path / "mesh.xml"
    path.write_text(MESH_INERTIA.format(inertia=""))
    m = mujoco.MjModel.from_xml_path(str(path))
    z2 = zwang.load(str(path), rules="2.2.2")
    assert abs(z2.body_mass[1] / m.body_mass[1] - 1) > 0.2
    # inertia="legacy" is 4.0's under either rules
    path.write_text(MESH_INERTIA.format(inertia='inertia="legacy"'))
    z2 = zwang.load(str(path), rules="2.2.2")
    assert abs(z2.body_mass[1] - m.body_mass[1]) < 1e-9 * m.body_mass[1]


def test_mesh_shellinertia_on_the_geom_is_2_2_2s(tmp_path):
    # MuJoCo 4.0 takes a mesh's inertia from the mesh asset only; 2.2.2 read geom shellinertia
    path = tmp_path / "mesh.xml"
    path.write_text(MESH_INERTIA.format(inertia="").replace('density="700"', 'shellinertia="true"'))
    with pytest.raises(zwang.ModelError, match=r'mesh.xml:\d+: .*shellinertia.*inertia="shell"'):
        zwang.load(str(path))
    assert zwang.load(str(path), rules="2.2.2").body_mass[1] > 0


def test_exactmeshinertia_keeps_2_2_2s_meaning_with_a_warning(tmp_path):
    # MuJoCo 4.0 refuses the attribute; zwang reads it as 2.2.2 did (signed volumes: the mass of
    # 4.0's inertia="exact") and says so under 4.0's rules
    path = tmp_path / "mesh.xml"
    path.write_text(
        MESH_INERTIA.format(inertia="").replace(
            "<asset>", '<compiler exactmeshinertia="true"/>\n  <asset>'
        )
    )
    with pytest.raises(ValueError, match="exactmeshinertia"):
        mujoco.MjModel.from_xml_path(str(path))
    z = zwang.load(str(path))
    assert any("exactmeshinertia is MuJoCo 2.2.2's" in w for w in z.warnings), z.warnings
    assert zwang.load(str(path), rules="2.2.2").warnings == []
    exact = tmp_path / "exact.xml"
    exact.write_text(MESH_INERTIA.format(inertia='inertia="exact"'))
    m = mujoco.MjModel.from_xml_path(str(exact))
    # 2.2.2's rule runs in single precision, as 2.2.2 did
    assert abs(z.body_mass[1] - m.body_mass[1]) < 1e-6 * m.body_mass[1]
