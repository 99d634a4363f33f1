"""The Simulator's fields as NumPy views: shapes and dtypes of every view in both precisions,
no copies, writes reaching the next step, views outliving their Simulator object."""

import gc
import weakref

import numpy as np
import pytest
import zwang
from conftest import random_states

N = 5


@pytest.fixture(scope="module")
def ant(assets):
    return zwang.load(str(assets / "ant.xml"))


def expected_shapes(model, sim):
    nb, nq, nv, nu = model.nbody, model.nq, model.nv, model.nu
    con = sim.contact_dist.shape[1]
    return {
        "qpos": (nq,),
        "qvel": (nv,),
        "ctrl": (nu,),
        "act": (model.na,),
        "act_dot": (model.na,),
        "xfrc_applied": (nb, 6),
        "mocap_pos": (0, 3),
        "mocap_quat": (0, 4),
        "qacc": (nv,),
        "qfrc_bias": (nv,),
        "qfrc_passive": (nv,),
        "qfrc_actuator": (nv,),
        "qfrc_applied": (nv,),
        "actuator_force": (nu,),
        "xpos": (nb, 3),
        "xquat": (nb, 4),
        "xipos": (nb, 3),
        "qacc_smooth": (nv,),
        "qfrc_constraint": (nv,),
        "efc_force": sim.efc_force.shape[1:],
        "drive_force": (0,),
        "efc_nactive": (),
        "solver_niter": (),
        "solver_residual": (),
        "ncon": (),
        "contact_geom": (con, 2),
        "contact_dist": (con,),
        "contact_pos": (con, 3),
        "contact_frame": (con, 9),
        "contact_force": (con, 6),
        "geom_xpos": (model.ngeom, 3),
        "geom_xmat": (model.ngeom, 9),
        "subtree_com": (nb, 3),
        "cfrc_ext": (nb, 6),
        "sensordata": (model.nsensordata,),
        "ten_length": (0,),
        "ten_velocity": (0,),
    }


@pytest.mark.parametrize("precision,dtype", [("f64", np.float64), ("f32", np.float32)])
def test_shapes_and_dtypes(ant, precision, dtype):
    sim = zwang.Simulator(ant, instances=N, precision=precision)
    assert sim.dtype == dtype and sim.precision == precision
    shapes = expected_shapes(ant, sim)
    assert set(zwang.DATA_FIELDS) == set(shapes)
    assert sim.contact_dist.shape[1] > 0
    for name in zwang.DATA_FIELDS:
        view = getattr(sim, name)
        assert view.shape == (N,) + shapes[name], name
        assert view.dtype == dtype, name
        assert view.flags.writeable, name
    params = {
        "body_mass": (ant.nbody,),
        "body_ipos": (ant.nbody, 3),
        "body_inertia": (ant.nbody, 6),
        "body_gravcomp": (ant.nbody,),
        "dof_damping": (ant.nv,),
        "dof_armature": (ant.nv,),
        "jnt_stiffness": (ant.njnt,),
        "qpos_spring": (ant.nq,),
        "actuator_gear": (ant.nu,),
        "actuator_gainprm": (ant.nu, 3),
        "actuator_biasprm": (ant.nu, 3),
        "actuator_dynprm": (ant.nu, 3),
        "gravity": (3,),
        "density": (),
        "viscosity": (),
        "wind": (3,),
        "drive_prm": (0, 5),
        "tendon_stiffness": (0,),
        "tendon_damping": (0,),
    }
    assert set(zwang.PARAM_FIELDS) == set(params)
    for name, shape in params.items():
        view = getattr(sim.params, name)
        assert view.shape == (N,) + shape and view.dtype == dtype, name
    assert sim.time.shape == (N,) and sim.time.dtype == np.float64
    assert sim.status.shape == (N,) and sim.status.dtype == np.int32
    sim.forward()
    nb, nv = ant.nbody, ant.nv
    for name, shape in [
        ("ximat", (nb, 9)),
        ("cinert", (nb, 10)),
        ("cvel", (nb, 6)),
        ("site_xpos", (0, 3)),
        ("site_xmat", (0, 9)),
        ("fused_xpos", (0, 3)),
        ("fused_xquat", (0, 4)),
        ("fused_xmat", (0, 9)),
        ("fused_xipos", (0, 3)),
        ("fused_vel", (0, 6)),
    ]:
        value = getattr(sim, name)
        assert value.shape == (N,) + shape and value.dtype == dtype, name
    assert sim.mass_matrix().shape == (N, nv, nv) and sim.mass_matrix().dtype == dtype
    assert sim.bias().shape == (N, nv)
    np.testing.assert_array_equal(sim.params.body_mass[1], ant.body_mass.astype(dtype))
    np.testing.assert_array_equal(sim.params.gravity[2], np.array([0, 0, -9.81], dtype))


@pytest.mark.parametrize("instances", [3, 40])  # unpadded and padded batches
def test_views_are_the_batch(ant, instances):
    sim = zwang.Simulator(ant, instances=instances)
    assert np.shares_memory(sim.qpos, sim.qpos)
    assert np.shares_memory(sim.xpos, sim.xpos)
    assert np.shares_memory(sim.params.body_mass, sim.params.body_mass)
    assert not np.shares_memory(sim.qpos, sim.qvel)
    assert not np.shares_memory(sim.cinert, sim.cinert)  # derived: copies
    # strides: instance i element j at base[j * ld + i]
    itemsize = sim.qpos.itemsize
    assert sim.qpos.strides[0] == itemsize
    ld = sim.qpos.strides[1] // itemsize
    assert ld >= instances and sim.xpos.strides == (itemsize, 3 * ld * itemsize, ld * itemsize)
    # a write through one view is seen by the next
    sim.qpos[instances - 1, 2] = 7.5
    assert sim.qpos[instances - 1, 2] == 7.5
    sim.params.body_mass[0, 1] = 3.0
    assert sim.params.body_mass[0, 1] == 3.0
    sim.qvel = 0.25  # assignment writes into the view
    assert np.all(sim.qvel == 0.25)


def test_write_through_view_changes_the_step(ant):
    qpos, qvel, ctrl = random_states(ant, N, seed=4, spread=0.3)
    qpos[:, 2] += 1.0
    a = zwang.Simulator(ant, instances=N)
    a.qpos[:] = qpos
    a.qvel[:] = qvel
    a.ctrl[:] = ctrl
    b = zwang.Simulator(ant, instances=N)
    b.reset(qpos=qpos, qvel=qvel)
    b.ctrl[:] = ctrl
    a.step(3)
    b.step(3)
    np.testing.assert_array_equal(a.qpos, b.qpos)
    np.testing.assert_array_equal(a.qvel, b.qvel)
    c = zwang.Simulator(ant, instances=N)
    c.reset(qpos=qpos, qvel=qvel)
    c.step(3)
    assert not np.array_equal(a.qpos, c.qpos)  # ctrl written through the view mattered


def test_parameter_views_change_the_dynamics(ant):
    sim = zwang.Simulator(ant, instances=3)
    sim.params.body_mass[1, 1] *= 2.0
    sim.forward()
    H = sim.mass_matrix()
    total = np.sum(ant.body_mass)
    # translation block of the free joint: the total mass times the identity
    np.testing.assert_allclose(H[0, :3, :3], total * np.eye(3), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(H[1, :3, :3], (total + ant.body_mass[1]) * np.eye(3), rtol=1e-12)
    np.testing.assert_array_equal(H[0], H[2])
    sim.params.gravity[2] = [0, 0, 0]
    sim.forward()
    assert np.all(sim.bias()[2] == 0)  # at rest and without gravity, no bias force


def test_views_keep_the_simulator_alive(ant):
    sim = zwang.Simulator(ant, instances=2)
    ref = weakref.ref(sim)
    qpos, mass, time = sim.qpos, sim.params.body_mass, sim.time
    del sim
    gc.collect()
    assert ref() is not None
    qpos[:] = 1.0
    mass[:] = 2.0
    time[:] = 0.5
    assert qpos.sum() == 2 * ant.nq and time.sum() == 1.0
    del qpos, mass, time
    gc.collect()
    assert ref() is None


def test_time_and_status(ant):
    sim = zwang.Simulator(ant, instances=2)
    sim.step(4)
    np.testing.assert_allclose(sim.time, 4 * ant.timestep)
    assert np.all(sim.status == 0)
    sim.reset(instances=[1])
    assert sim.time[1] == 0 and sim.time[0] > 0


def test_f32_close_to_f64(ant):
    qpos, qvel, ctrl = random_states(ant, N, seed=8, spread=0.3)
    qpos[:, 2] += 1.0
    sims = [zwang.Simulator(ant, instances=N, precision=p) for p in ("f64", "f32")]
    for s in sims:
        s.reset(qpos=qpos, qvel=qvel)
        s.ctrl[:] = ctrl
        s.forward()
    for name in ("xpos", "qfrc_bias", "qacc", "cinert", "cvel"):
        a, b = getattr(sims[0], name), getattr(sims[1], name)
        np.testing.assert_allclose(b, a, rtol=1e-3, atol=1e-3 * (1 + np.abs(a).max()), err_msg=name)


def test_model_attributes(ant):
    assert (ant.nq, ant.nv, ant.nu, ant.nbody) == (15, 14, 8, 14)
    assert ant.integrator == "RK4" and ant.timestep == 0.01
    assert ant.body_names[0] == "world" and ant.body_id("torso") == 1
    assert ant.joint_names[0] == "root" and ant.jnt_type[0] == zwang.JNT_FREE
    assert ant.jnt_type[1] == zwang.JNT_HINGE
    assert list(ant.jnt_qposadr[:3]) == [0, 7, 8] and list(ant.jnt_dofadr[:3]) == [0, 6, 7]
    assert ant.body_parentid[0] == 0 and ant.body_parentid[1] == 0
    assert ant.actuator_ctrlrange.shape == (8, 2) and ant.actuator_ctrllimited.all()
    assert ant.qpos0.shape == (15,) and not ant.qpos0.flags.writeable
    assert ant.actuator_id(ant.actuator_names[3]) == 3
    assert ant.geom_id(ant.geom_names[1]) == 1
    sim = zwang.Simulator(ant, instances=2, threads=1)
    assert sim.model.nq == 15 and sim.nq == 15 and sim.nv == 14 and sim.nu == 8
    assert sim.instances == 2 and sim.backend.startswith("cpu") and "(1 thread)" in sim.backend
