"""zwang against MuJoCo 4.0's Python bindings on Gymnasium's models, at the same random states
after forward(): kinematics, the derived quantities (ximat, cinert, cvel, site frames), the mass
matrix, bias, passive and actuator forces, and the constraint forces and cfrc_ext.

zwang follows MuJoCo 2.2.2 (its C++ tests compare with it to 1e-12); the models are loaded with
``contact_margin="sum"``, MuJoCo 4.0's rule for a contact's margin and gap, and then contacts
and their forces agree with 4.0 as well, Swimmer's fluid forces included.
"""

import numpy as np
import pytest
import zwang
from conftest import GYM_MODELS, random_states

mujoco = pytest.importorskip("mujoco")

TOL = 1e-9
N = 12


def close(a, b, what, tol=TOL):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert a.shape == b.shape, what
    scale = 1.0 + np.abs(b).max(initial=0.0)
    err = np.abs(a - b).max(initial=0.0) / scale
    assert err < tol, f"{what}: relative error {err:.3g}"


def mujoco_at(m, d, qpos, qvel, ctrl):
    d.qpos[:] = qpos
    d.qvel[:] = qvel
    d.ctrl[:] = ctrl
    mujoco.mj_forward(m, d)
    mujoco.mj_rnePostConstraint(m, d)


def setup(assets, name, seed, spread, contact_margin="sum"):
    path = str(assets / name)
    z = zwang.load(path, contact_margin=contact_margin)
    m = mujoco.MjModel.from_xml_path(path)
    # a converged solve for the comparison: the humanoid asks for 50 PGS iterations; zwang's
    # Newton solver runs to its tolerance
    m.opt.solver = mujoco.mjtSolver.mjSOL_NEWTON
    m.opt.iterations = 200
    m.opt.tolerance = 1e-14
    d = mujoco.MjData(m)
    qpos, qvel, ctrl = random_states(z, N, seed, spread)
    sim = zwang.Simulator(z, instances=N)
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.forward()
    return z, m, d, sim, (qpos, qvel, ctrl)


@pytest.mark.parametrize("name", GYM_MODELS)
def test_forward_matches_mujoco(assets, name):
    z, m, d, sim, (qpos, qvel, ctrl) = setup(assets, name, seed=1, spread=0.5)
    assert not any("fluid" in w for w in z.warnings)
    H, bias = sim.mass_matrix(), sim.bias()
    ximat, cinert, cvel = sim.ximat, sim.cinert, sim.cvel
    site_xpos, site_xmat = sim.site_xpos, sim.site_xmat
    body_inertia = sim.params.body_inertia
    contacts = 0
    for i in range(N):
        mujoco_at(m, d, qpos[i], qvel[i], ctrl[i])
        at = f"{name} instance {i}"
        close(sim.xpos[i], d.xpos, f"xpos {at}")
        close(sim.xquat[i], d.xquat, f"xquat {at}")
        close(sim.xipos[i], d.xipos, f"xipos {at}")
        close(sim.subtree_com[i], d.subtree_com, f"subtree_com {at}")
        close(cinert[i], d.cinert, f"cinert {at}")
        close(cvel[i], d.cvel, f"cvel {at}")
        close(site_xpos[i], d.site_xpos, f"site_xpos {at}")
        close(site_xmat[i], d.site_xmat, f"site_xmat {at}")
        close(sim.geom_xpos[i], d.geom_xpos, f"geom_xpos {at}")
        M = np.zeros((m.nv, m.nv))
        mujoco.mj_fullM(m, d, M)
        close(H[i], M, f"mass matrix {at}")
        close(bias[i], d.qfrc_bias, f"qfrc_bias {at}")
        close(sim.qfrc_actuator[i], d.qfrc_actuator, f"qfrc_actuator {at}")
        close(sim.actuator_force[i], d.actuator_force, f"actuator_force {at}")
        close(sim.qfrc_passive[i], d.qfrc_passive, f"qfrc_passive {at}")
        # ximat: a principal frame of the same world inertia (MuJoCo's columns may differ in
        # sign, or by a rotation where two moments are equal)
        R = ximat[i].reshape(-1, 3, 3)
        assert np.allclose(R @ R.transpose(0, 2, 1), np.eye(3), atol=1e-12)
        assert np.allclose(np.linalg.det(R[1:]), 1.0, atol=1e-12)
        Rm = d.ximat.reshape(-1, 3, 3)
        world_mj = Rm @ (m.body_inertia[:, :, None] * Rm.transpose(0, 2, 1))
        I6 = body_inertia[i]
        body_I = np.stack(
            [
                np.stack([I6[:, 0], I6[:, 3], I6[:, 4]], -1),
                np.stack([I6[:, 3], I6[:, 1], I6[:, 5]], -1),
                np.stack([I6[:, 4], I6[:, 5], I6[:, 2]], -1),
            ],
            -2,
        )
        xmat = np.stack([zwang_xmat(q) for q in sim.xquat[i]])
        principal = R.transpose(0, 2, 1) @ xmat @ body_I @ xmat.transpose(0, 2, 1) @ R
        # diagonal in its frame, moments decreasing, the same tensor as MuJoCo's
        close(
            principal - np.einsum("bii->bi", principal)[:, :, None] * np.eye(3),
            0 * principal,
            f"ximat diagonalises {at}",
            tol=1e-12,
        )
        moments = np.einsum("bii->bi", principal)
        assert np.all(np.diff(moments, axis=1) <= 1e-12 * (1 + moments.max())), at
        close(xmat @ body_I @ xmat.transpose(0, 2, 1), world_mj, f"world inertia {at}")
        close(moments, m.body_inertia, f"principal moments {at}")
        # the same contacts, and the same forces
        n = int(sim.ncon[i])
        assert n == d.ncon, at
        contacts += n
        force = np.zeros(6)
        inert = False  # a contact that moves nothing (see below)
        for c in range(n):
            con = d.contact[c]
            assert sim.contact_geom[i][c].tolist() == [con.geom1, con.geom2], at
            close(sim.contact_dist[i][c], con.dist, f"contact_dist {at}")
            close(sim.contact_pos[i][c], con.pos, f"contact_pos {at}")
            close(sim.contact_frame[i][c], con.frame, f"contact_frame {at}")
            # a contact whose rows have no Jacobian (pusher: the table under an object that
            # slides in x and y) moves nothing: its force, and so cfrc_ext, is a regularisation
            # artefact, which MuJoCo 4.0 scales by another R than 2.2.2's; qfrc_constraint and
            # qacc below are compared all the same
            rows = d.efc_J.reshape(d.nefc, m.nv)[con.efc_address : con.efc_address + con.dim]
            inert |= not np.abs(rows).max() > 0
            if np.abs(rows).max() > 0:
                mujoco.mj_contactForce(m, d, c, force)
                close(
                    sim.contact_force[i][c][: con.dim],
                    force[: con.dim],
                    f"contact_force {at}",
                    tol=1e-7,
                )
        close(sim.qfrc_constraint[i], d.qfrc_constraint, f"qfrc_constraint {at}", tol=1e-7)
        if not inert:
            close(sim.cfrc_ext[i], d.cfrc_ext, f"cfrc_ext {at}", tol=1e-7)
        close(sim.qacc[i], d.qacc, f"qacc {at}", tol=1e-7)
    if name in ("ant.xml", "hopper.xml", "walker2d_v5.xml", "humanoid.xml", "half_cheetah.xml"):
        assert contacts > 0, f"{name}: no state touches the floor"


def zwang_xmat(q):
    w, x, y, z = q
    return np.array(
        [
            [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
        ]
    )


def test_cfrc_ext_from_applied_forces(assets):
    """cfrc_ext of xfrc_applied (no contacts: the ant lifted off the floor)."""
    z, m, d, sim, (qpos, qvel, ctrl) = setup(assets, "ant.xml", seed=3, spread=0.1)
    qpos[:, 2] += 2.0
    rng = np.random.default_rng(5)
    xfrc = rng.standard_normal((N, z.nbody, 6))
    xfrc[:, 0] = 0
    sim.reset(qpos=qpos, qvel=qvel)
    sim.ctrl[:] = ctrl
    sim.xfrc_applied[:] = xfrc
    sim.forward()
    for i in range(N):
        d.xfrc_applied[:] = xfrc[i]
        mujoco_at(m, d, qpos[i], qvel[i], ctrl[i])
        assert d.ncon == 0 and sim.ncon[i] == 0
        close(sim.cfrc_ext[i], d.cfrc_ext, f"cfrc_ext instance {i}")
        # zwang's qfrc_applied is Σ J_kᵀ xfrc_applied_k: MuJoCo's mj_applyFT at each COM
        # (MuJoCo's own qfrc_applied is a user input, which zwang does not have)
        qfrc = np.zeros(m.nv)
        for b in range(1, m.nbody):
            mujoco.mj_applyFT(m, d, xfrc[i, b, :3], xfrc[i, b, 3:], d.xipos[b], b, qfrc)
        close(sim.qfrc_applied[i], qfrc, f"qfrc_applied instance {i}")
        close(sim.qacc[i], d.qacc, f"qacc instance {i}")


@pytest.mark.parametrize(
    "name", ["inverted_double_pendulum.xml", "reacher.xml", "half_cheetah.xml", "hopper.xml"]
)
def test_after_step_matches_mj_step(assets, name):
    """After step(), the outputs and derived quantities hold what MuJoCo's mj_step leaves in
    mjData (Euler: the state before the step; RK4: its last stage), and qpos, qvel the new
    state; the states are lifted off the floor, so that no contact forces differ."""
    z, m, d, sim, (qpos, qvel, ctrl) = setup(assets, name, seed=2, spread=0.3)
    if name in ("half_cheetah.xml", "hopper.xml"):
        qpos[:, 1] += 2.0
        sim.reset(qpos=qpos, qvel=qvel)
        sim.ctrl[:] = ctrl
    sim.step(1)
    cinert, cvel, site_xpos = sim.cinert, sim.cvel, sim.site_xpos
    for i in range(N):
        d.qpos[:] = qpos[i]
        d.qvel[:] = qvel[i]
        d.ctrl[:] = ctrl[i]
        d.time = 0
        mujoco.mj_step(m, d)
        mujoco.mj_rnePostConstraint(m, d)
        at = f"{name} instance {i}"
        assert d.ncon == 0 and sim.ncon[i] == 0, at
        close(sim.qpos[i], d.qpos, f"qpos {at}")
        close(sim.qvel[i], d.qvel, f"qvel {at}")
        close(sim.xpos[i], d.xpos, f"xpos {at}")
        close(sim.xquat[i], d.xquat, f"xquat {at}")
        close(sim.subtree_com[i], d.subtree_com, f"subtree_com {at}")
        close(cinert[i], d.cinert, f"cinert {at}")
        close(cvel[i], d.cvel, f"cvel {at}")
        close(site_xpos[i], d.site_xpos, f"site_xpos {at}")
        close(sim.cfrc_ext[i], d.cfrc_ext, f"cfrc_ext {at}")
        close(sim.qfrc_actuator[i], d.qfrc_actuator, f"qfrc_actuator {at}")
        close(sim.time[i], d.time, f"time {at}")


# arrays that share MuJoCo's name but not its meaning
DIFFERENT = {
    "body_inertia": "the 6-value tensor about the COM in the body frame, not principal moments",
    "body_jntadr": "a body without joints has the index its first joint would have, not -1",
    "body_invweight0": "MuJoCo 2.2.2's (tests/mjcf/test_mjcf_constraints.cc); 4.0's differ",
    "dof_invweight0": "MuJoCo 2.2.2's, as body_invweight0",
    "body_iquat": "a principal frame, MuJoCo's up to the order and signs of its axes (below)",
    "mesh_vert": "the convex hull's vertices, not the mesh's",
    "mesh_vertadr": "the convex hull's",
    "mesh_vertnum": "the convex hull's",
    "mesh_face": "the convex hull's triangles",
    "mesh_faceadr": "the convex hull's",
    "mesh_facenum": "the convex hull's",
}


@pytest.mark.parametrize("name", GYM_MODELS)
def test_model_arrays_match_mujoco(assets, name):
    """Every Model array named as one of MuJoCo's holds MuJoCo's values; where MuJoCo keeps more
    columns (actuator_gear's 6, gainprm's 10) zwang's are its first."""
    z = zwang.load(str(assets / name), contact_margin="sum")
    m = mujoco.MjModel.from_xml_path(str(assets / name))
    compared = []
    for field in dir(type(z)):
        if field.startswith("_") or field in DIFFERENT or not hasattr(m, field):
            continue
        ours, theirs = getattr(z, field), getattr(m, field)
        if not isinstance(ours, np.ndarray) or not isinstance(theirs, np.ndarray):
            continue
        if theirs.shape != ours.shape and theirs.ndim == 2 and len(theirs) == len(ours):
            width = ours.shape[1] if ours.ndim == 2 else 1
            theirs = theirs[:, :width].reshape(ours.shape)
        close(ours, theirs, f"{name}: {field}")
        compared.append(field)
    expected = {"body_mass", "jnt_qposadr", "geom_size", "geom_friction", "actuator_gear"}
    assert expected <= set(compared), compared


@pytest.mark.parametrize("name", GYM_MODELS)
def test_principal_frames_are_mujocos(assets, name):
    """body_iquat diagonalises each body's inertia and is MuJoCo's frame up to the order and the
    signs of its axes (what the fluid forces' inertia box depends on: nothing)."""
    z = zwang.load(str(assets / name), contact_margin="sum")
    m = mujoco.MjModel.from_xml_path(str(assets / name))
    for b in range(1, z.nbody):
        rz, rm = np.zeros(9), np.zeros(9)
        mujoco.mju_quat2Mat(rz, np.asarray(z.body_iquat[b], dtype=float))
        mujoco.mju_quat2Mat(rm, m.body_iquat[b])
        rz, rm = rz.reshape(3, 3), rm.reshape(3, 3)
        i6 = z.body_inertia[b]
        inertia = np.array(
            [[i6[0], i6[3], i6[4]], [i6[3], i6[1], i6[5]], [i6[4], i6[5], i6[2]]], dtype=float
        )
        local = rz.T @ inertia @ rz
        scale = np.trace(inertia)
        assert np.abs(local - np.diag(np.diag(local))).max() <= 1e-9 * scale, (name, b)
        perm = rz.T @ rm
        assert np.allclose(np.abs(perm) @ np.ones(3), 1, atol=1e-9), (name, b, perm)
        assert np.allclose(np.abs(perm).max(axis=0), 1, atol=1e-9), (name, b, perm)


@pytest.mark.parametrize("name", GYM_MODELS)
def test_id_is_mujocos_name2id(assets, name):
    """Model.id(kind, name) finds each named object where MuJoCo's mj_name2id does."""
    z = zwang.load(str(assets / name), contact_margin="sum")
    m = mujoco.MjModel.from_xml_path(str(assets / name))
    looked_up = 0
    for kind, count in (
        ("body", m.nbody),
        ("joint", m.njnt),
        ("geom", m.ngeom),
        ("site", m.nsite),
        ("actuator", m.nu),
        ("tendon", m.ntendon),
        ("sensor", m.nsensor),
        ("key", m.nkey),
    ):
        obj = getattr(mujoco.mjtObj, f"mjOBJ_{kind.upper()}")
        for i in range(count):
            label = mujoco.mj_id2name(m, obj, i)
            if label:
                assert z.id(kind, label) == mujoco.mj_name2id(m, obj, label) == i, (kind, label)
                looked_up += 1
        with pytest.raises(KeyError, match=f"no {kind} named 'no such name'"):
            z.id(kind, "no such name")
        # "" names no object, not the first unnamed one
        assert mujoco.mj_name2id(m, obj, "") == -1
        with pytest.raises(KeyError):
            z.id(kind, "")
    assert looked_up > 0
    with pytest.raises(ValueError, match="no kind of object is named 'planet'"):
        z.id("planet", "torso")
