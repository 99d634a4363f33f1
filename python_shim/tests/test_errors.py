"""Every error path: Python exceptions carrying the C++ message, and nothing changed or crashed."""

import numpy as np
import pytest
import zwang

PENDULUM = """<mujoco>
  <worldbody>
    <body name="pole" pos="0 0 1">
      <joint name="hinge" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
      <site name="tip" pos="0 0 -0.5"/>
    </body>
  </worldbody>
  <actuator><motor joint="hinge" ctrlrange="-1 1" ctrllimited="true"/></actuator>
</mujoco>
"""


@pytest.fixture()
def pendulum(tmp_path):
    path = tmp_path / "pendulum.xml"
    path.write_text(PENDULUM)
    return zwang.load(str(path))


def test_load_errors(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        zwang.load(str(tmp_path / "missing.xml"))
    assert "missing.xml" in str(e.value)
    bad = tmp_path / "bad.xml"
    bad.write_text("<mujoco>\n<worldbody>\n<body>\n</worldbody>\n</mujoco>\n")
    with pytest.raises(zwang.ModelError) as e:
        zwang.load(str(bad))
    assert "bad.xml" in str(e.value)
    assert isinstance(e.value, RuntimeError)
    unknown = tmp_path / "unknown.xml"
    unknown.write_text(
        "<mujoco><worldbody><body><joint type='planar'/></body></worldbody></mujoco>"
    )
    with pytest.raises(zwang.ModelError, match="unknown.xml:1"):
        zwang.load(str(unknown))
    with pytest.raises(zwang.ModelError, match="directory"):
        zwang.load(str(tmp_path))
    urdf = tmp_path / "robot.urdf"
    urdf.write_text(
        "<robot name='r'><link name='a'/><joint name='j' type='planar'>"
        "<parent link='a'/><child link='b'/></joint><link name='b'/></robot>"
    )
    with pytest.raises(zwang.ModelError, match="robot.urdf"):
        zwang.load(str(urdf))
    with pytest.raises(ValueError, match="contact_margin must be 'max' or 'sum'"):
        zwang.load(str(bad), contact_margin="mean")


def test_loader_warnings(tmp_path):
    path = tmp_path / "warn.xml"
    path.write_text(
        "<mujoco><option iterations='0'/><worldbody><body><joint/>"
        "<geom size='0.1'/></body></worldbody></mujoco>"
    )
    model = zwang.load(str(path))
    assert len(model.warnings) == 1 and "the constraint solver does not run" in model.warnings[0]
    assert model.warnings[0].startswith(f"{path}:1: ")


def test_name_lookups(pendulum):
    assert pendulum.body_id("pole") == 1 and pendulum.joint_id("hinge") == 0
    assert pendulum.site_id("tip") == 0 and pendulum.actuator_id(pendulum.actuator_names[0]) == 0
    for lookup in (
        pendulum.body_id,
        pendulum.joint_id,
        pendulum.site_id,
        pendulum.geom_id,
        pendulum.actuator_id,
    ):
        with pytest.raises(KeyError, match="nope"):
            lookup("nope")
    assert pendulum.id("body", "pole") == 1 and pendulum.id("joint", "hinge") == 0
    with pytest.raises(KeyError, match="no body named ''"):
        pendulum.id("body", "")
    with pytest.raises(ValueError, match="the dof objects have no names"):
        pendulum.id("dof", "hinge")


def test_renamed_arrays_keep_their_old_names(pendulum):
    """The arrays that took MuJoCo's names answer to the old ones too, with a warning."""
    for before, now in (
        ("jnt_body", "jnt_bodyid"),
        ("dof_jnt", "dof_jntid"),
        ("dof_body", "dof_bodyid"),
        ("dof_parent", "dof_parentid"),
        ("geom_body", "geom_bodyid"),
    ):
        with pytest.warns(DeprecationWarning, match=f"Model.{before} is now Model.{now}"):
            old = getattr(pendulum, before)
        np.testing.assert_array_equal(old, getattr(pendulum, now))
    with pytest.warns(DeprecationWarning):
        parent = pendulum.body_parent
    # zwang's own array: the world's parent is -1 where MuJoCo's body_parentid says 0
    assert parent[0] == -1 and pendulum.body_parentid[0] == 0
    np.testing.assert_array_equal(parent[1:], pendulum.body_parentid[1:])


def test_constructor_errors(pendulum):
    with pytest.raises(ValueError, match="backend must be"):
        zwang.Simulator(pendulum, backend="gpu")
    with pytest.raises(ValueError, match="precision must be"):
        zwang.Simulator(pendulum, precision="f16")
    with pytest.raises(ValueError, match="at least one instance"):
        zwang.Simulator(pendulum, instances=0)
    with pytest.raises(ValueError, match="threads must be non-negative"):
        zwang.Simulator(pendulum, threads=-1)
    with pytest.raises(TypeError):
        zwang.Simulator(pendulum, instances="many")
    try:
        sim = zwang.Simulator(pendulum, backend="cuda")
    except RuntimeError as e:  # no device, or a module built without CUDA: says why
        assert "CUDA" in str(e) or "cuda" in str(e)
    else:
        assert sim.backend.startswith("cuda")
    assert zwang.Simulator(pendulum, backend="auto").backend
    with pytest.raises(ValueError, match="device must be a CUDA device ordinal >= 0"):
        zwang.Simulator(pendulum, device=-1)
    # a device past those there are is an error naming the count; the CPU backend ignores it
    devices, _ = zwang.cuda_status()
    if devices > 0:
        with pytest.raises(RuntimeError, match="device"):
            zwang.Simulator(pendulum, backend="cuda", device=devices)
    assert zwang.Simulator(pendulum, backend="cpu", device=3).backend.startswith("cpu")


def test_reset_errors_change_nothing(pendulum):
    sim = zwang.Simulator(pendulum, instances=4)
    sim.qpos[:] = 0.3
    sim.qvel[:] = 0.2
    before = sim.qpos.copy(), sim.qvel.copy()
    with pytest.raises(ValueError, match=r"qpos has shape \(2,\), expected \(1,\) or \(4, 1\)"):
        sim.reset(qpos=np.zeros(2))
    with pytest.raises(ValueError, match=r"qvel has shape \(3, 1\), expected \(1,\) or \(2, 1\)"):
        sim.reset(instances=[0, 1], qvel=np.zeros((3, 1)))
    with pytest.raises(IndexError, match=r"instance 4 is not in \[0, 4\)"):
        sim.reset(instances=[1, 4])
    with pytest.raises(IndexError, match=r"instance -1 is not in \[0, 4\)"):
        sim.reset(instances=-1)
    with pytest.raises(ValueError, match="instances must be integers"):
        sim.reset(instances=[0.5])
    with pytest.raises(ValueError, match="qpos of instance 2 is not finite"):
        sim.reset(instances=[0, 2], qpos=[[0.1], [np.nan]])
    with pytest.raises(ValueError, match="qvel of instance 3 is not finite"):
        sim.reset(instances=[3], qvel=[np.inf])
    with pytest.raises(ValueError):
        sim.reset(qpos="abc")
    np.testing.assert_array_equal(sim.qpos, before[0])
    np.testing.assert_array_equal(sim.qvel, before[1])


def test_reset_semantics(pendulum):
    sim = zwang.Simulator(pendulum, instances=4)
    sim.ctrl[:] = 0.5
    sim.step(2)
    sim.reset(instances=[1, 3], qpos=[[0.1], [0.3]], qvel=[2.0])
    assert sim.qpos[:, 0].tolist()[1::2] == [0.1, 0.3] and sim.qvel[1::2, 0].tolist() == [2, 2]
    assert sim.ctrl[1, 0] == 0 and sim.ctrl[0, 0] == 0.5 and sim.time[1] == 0
    sim.reset(2)
    assert sim.qpos[2, 0] == 0 and sim.qvel[2, 0] == 0
    sim.reset(qpos=[0.7])
    assert np.all(sim.qpos == 0.7) and np.all(sim.qvel == 0) and np.all(sim.time == 0)


def test_assignment_errors(pendulum):
    sim = zwang.Simulator(pendulum, instances=4)
    with pytest.raises(ValueError):
        sim.qpos = np.zeros((3, 1))
    with pytest.raises(ValueError):
        sim.params.body_mass = np.zeros(7)
    with pytest.raises(AttributeError):
        sim.cinert = 0


def test_step_errors(pendulum):
    sim = zwang.Simulator(pendulum, instances=3)
    with pytest.raises(ValueError, match="step count must be non-negative"):
        sim.step(-1)
    with pytest.raises(TypeError):
        sim.step(1.5)


def test_non_finite_state_stops_only_its_instance(pendulum):
    sim = zwang.Simulator(pendulum, instances=3)
    sim.qpos[:] = 0.2
    sim.qvel[1, 0] = np.nan
    sim.step(5)
    assert sim.status.tolist() == [0, zwang.STATUS_BAD_STATE, 0]
    failures = sim.failures()
    assert [f.instance for f in failures] == [1]
    assert failures[0].status == zwang.STATUS_BAD_STATE
    assert failures[0].message.startswith("instance 1: bad state")
    assert sim.qpos[1, 0] == 0.2 and sim.time[1] == 0
    assert sim.qpos[0, 0] != 0.2 and sim.time[0] > 0
    assert not sim.parameters_exposed  # the steps above skipped the check of the parameters
    sim.params.body_mass[2, 1] = -1.0
    assert sim.parameters_exposed
    sim.step()
    assert sim.status[2] == zwang.STATUS_BAD_PARAMETERS
    sim.reset(1)  # clears the status
    sim.params.body_mass[2, 1] = 1.0
    sim.status[2] = 0
    sim.step()
    assert sim.failures() == []


def test_non_finite_time_stops_only_its_instance(pendulum):
    # a time written as nan or inf through the view stops its instance as a nan qpos does
    sim = zwang.Simulator(pendulum, instances=3)
    sim.time[1] = np.nan
    sim.time[2] = np.inf
    sim.step(3)
    assert sim.status.tolist() == [0, zwang.STATUS_BAD_STATE, zwang.STATUS_BAD_STATE]
    assert "time" in sim.failures()[0].message
    assert sim.time[0] > 0


def test_contradicting_hard_rows_are_named(tmp_path):
    # two drives that agree at t = 0 and part later, on joints tied by a hard equality: the
    # instance stops with STATUS_HARD_CONFLICT and its failure names the three constraints
    path = tmp_path / "tied.xml"
    path.write_text("""<mujoco>
  <custom>
    <numeric name="hard:tie" data="1"/>
    <numeric name="drive:j1" data="0 0 1 3 0"/>
    <numeric name="drive:j2" data="0 0 0.42857142857142855 7 0"/>
  </custom>
  <worldbody>
    <body name="a"><joint name="j1" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05"/>
      <body name="b" pos="0 0 -1"><joint name="j2" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0 0 -1" size="0.05"/></body></body>
  </worldbody>
  <equality><joint name="tie" joint1="j1" joint2="j2"/></equality>
</mujoco>""")
    sim = zwang.Simulator(zwang.load(str(path)), instances=2)
    sim.step(20)
    assert sim.status.tolist() == [zwang.STATUS_HARD_CONFLICT] * 2
    failure = sim.failures()[0]
    for who in ("equality 'tie'", "the drive of joint 'j1'", "the drive of joint 'j2'"):
        assert who in failure.detail
    assert failure.detail in failure.message


def test_balance_inertia_repairs_a_urdf_inertia_only_when_asked(tmp_path):
    # principal moments 1, 1, 3 break A + B >= C: used as given with a warning, or balanced
    # to their mean 5/3 (MuJoCo's balanceinertia) with a warning saying so
    urdf = tmp_path / "arm.urdf"
    urdf.write_text(
        "<robot name='arm'><link name='base'/>"
        "<joint name='j' type='revolute'><parent link='base'/><child link='arm'/>"
        "<axis xyz='0 0 1'/><limit lower='-1' upper='1' effort='1' velocity='1'/></joint>"
        "<link name='arm'><inertial><mass value='1'/>"
        "<inertia ixx='1' iyy='1' izz='3' ixy='0' ixz='0' iyz='0'/></inertial></link></robot>"
    )
    as_given = " ".join(zwang.load(str(urdf)).warnings)
    assert "'arm'" in as_given and "not a rigid body's" in as_given
    assert "balanced" not in as_given
    balanced = " ".join(zwang.load(str(urdf), balance_inertia=True).warnings)
    assert "balanced (balance_inertia): each principal moment 1.66667" in balanced
    mjcf = tmp_path / "one.xml"
    mjcf.write_text(
        "<mujoco><worldbody><body><joint/><geom size='0.1'/></body></worldbody></mujoco>"
    )
    with pytest.raises(zwang.ModelError, match="balance-inertia"):
        zwang.load(str(mjcf), balance_inertia=True)
