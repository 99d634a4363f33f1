"""Sensors from Python: the model's sensor names, types, addresses and sizes, ``sensordata`` as a
view of the batch in both precisions, and its values after ``forward()`` and ``step()`` against
MuJoCo's (the ``mujoco`` package) at the same states."""

import numpy as np
import pytest
import zwang
from conftest import random_states

XML = """<mujoco>
  <option magnetic="0 -0.3 0.4"><flag contact="disable"/></option>
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 -0.2" size="0.05"/>
      <site name="tip" pos="0.4 0 -0.2" euler="10 20 30"/>
      <body name="hand" pos="0.4 0 -0.2">
        <joint name="ball" type="ball"/>
        <geom name="hand_geom" type="box" size="0.05 0.03 0.02" pos="0.05 0 0"/>
      </body>
    </body>
    <body name="box" pos="1 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.1"/>
      <site name="imu" pos="0.05 0 0.02" euler="30 0 -20"/>
    </body>
  </worldbody>
  <actuator><motor name="motor" joint="hinge" gear="3"/></actuator>
  <sensor>
    <jointpos name="angle" joint="hinge"/>
    <accelerometer name="acc" site="imu"/>
    <gyro name="gyro" site="imu" noise="0.1"/>
    <velocimeter site="tip"/>
    <magnetometer site="tip"/>
    <force site="tip"/>
    <ballquat joint="ball"/>
    <framequat objtype="geom" objname="hand_geom" reftype="site" refname="imu"/>
    <framelinacc objtype="xbody" objname="hand"/>
    <subtreeangmom body="arm"/>
    <actuatorfrc actuator="motor" cutoff="1"/>
    <clock/>
    <touch site="tip"/>
  </sensor>
</mujoco>
"""

N = 6


@pytest.fixture(scope="module")
def model_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sensors") / "sensors.xml"
    path.write_text(XML)
    return path


def test_model_describes_the_sensors(model_file):
    model = zwang.load(str(model_file))
    assert model.nsensor == 13
    assert model.nsensordata == 1 + 3 * 5 + 4 + 4 + 3 + 3 + 1 + 1 + 1
    assert model.sensor_names[:3] == ["angle", "acc", "gyro"]
    assert model.sensor_names[3] == "sensor3"
    assert model.sensor_types[1] == "accelerometer"
    assert model.sensor_types[-1] == "touch"
    assert not any("touch" in w for w in model.warnings)
    np.testing.assert_array_equal(model.sensor_dim, [1, 3, 3, 3, 3, 3, 4, 4, 3, 3, 1, 1, 1])
    np.testing.assert_array_equal(model.sensor_adr, np.cumsum([0, *model.sensor_dim[:-1]]))
    assert model.sensor_objtype[1] == "site" and model.sensor_objtype[-2] == ""
    # the framequat's reference frame is the site imu; the framelinacc's the world
    assert model.sensor_reftype[7] == "site" and model.sensor_reftype[8] == ""
    assert model.sensor_refid[7] == model.site_id("imu") and model.sensor_refid[8] == -1
    assert model.sensor_objid[0] == model.joint_id("hinge")
    assert model.sensor_noise[2] == 0.1 and model.sensor_cutoff[10] == 1
    assert model.sensor_id("gyro") == 2
    assert model.sensor_slice("gyro") == slice(4, 7)
    with pytest.raises(KeyError, match="no sensor named 'nope'"):
        model.sensor_id("nope")


@pytest.mark.parametrize("precision,dtype", [("f64", np.float64), ("f32", np.float32)])
def test_sensordata_is_a_view(model_file, precision, dtype):
    model = zwang.load(str(model_file))
    sim = zwang.Simulator(model, instances=N, precision=precision)
    assert "sensordata" in zwang.DATA_FIELDS
    assert sim.sensordata.shape == (N, model.nsensordata) and sim.sensordata.dtype == dtype
    assert np.shares_memory(sim.sensordata, sim.sensordata)
    sim.time[:] = 0.25
    sim.forward()
    np.testing.assert_array_equal(sim.sensordata[:, model.sensor_slice("sensor11")], 0.25)
    # the touch sensor is written at every evaluation: 0 without contacts
    sim.sensordata[:, -1] = 7
    sim.forward()
    np.testing.assert_array_equal(sim.sensordata[:, -1], 0)


def test_sensordata_matches_mujoco(model_file):
    mujoco = pytest.importorskip("mujoco")
    model = zwang.load(str(model_file))
    m = mujoco.MjModel.from_xml_path(str(model_file))
    d = mujoco.MjData(m)
    qpos, qvel, ctrl = random_states(model, N, seed=4)
    time = np.linspace(0.1, 0.6, N)
    sim = zwang.Simulator(model, instances=N, precision="f64")
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.time[:] = time
    sim.forward()
    stepped = zwang.Simulator(model, instances=N, precision="f64")
    stepped.reset(qpos=qpos, qvel=qvel)
    stepped.ctrl[:] = ctrl
    stepped.time[:] = time
    stepped.step()
    computed = np.array([t != "user" for t in model.sensor_types])
    mask = np.repeat(computed, model.sensor_dim)
    for i in range(N):
        mujoco.mj_resetData(m, d)
        d.qpos[:], d.qvel[:], d.ctrl[:], d.time = qpos[i], qvel[i], ctrl[i], time[i]
        mujoco.mj_forward(m, d)
        np.testing.assert_allclose(
            sim.sensordata[i, mask],
            d.sensordata[mask],
            rtol=0,
            atol=1e-10 * max(1, np.abs(d.sensordata).max()),
        )
        # after a step: the sensors of the state it started from, as after mj_step
        mujoco.mj_step(m, d)
        np.testing.assert_allclose(
            stepped.sensordata[i, mask],
            d.sensordata[mask],
            rtol=0,
            atol=1e-10 * max(1, np.abs(d.sensordata).max()),
        )
