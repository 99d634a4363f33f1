"""A Simulator that keeps only some outputs current (``outputs=``): those, and the derived
quantities computed from them, equal a Simulator's that keeps all, on both CPU backends; the
others raise OutputNotKeptError (an AttributeError); every Gymnasium task observes, rewards and
reports the same with its own list as with every output, across autoresets."""

import numpy as np
import pytest
import zwang
from conftest import random_states

N = 11


@pytest.fixture(scope="module")
def ant(assets):
    return zwang.load(str(assets / "ant.xml"))


def same_states(model, sims, seed):
    qpos, qvel, ctrl = random_states(model, N, seed)
    for sim in sims:
        sim.reset(qpos=qpos, qvel=qvel)
        sim.ctrl[:] = ctrl


@pytest.mark.parametrize("cpu_simd", ["scalar", "auto"])
@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_kept_outputs_equal_those_of_a_full_simulator(ant, cpu_simd, precision):
    kept = ["cinert", "cfrc_ext", "qacc", "mass_matrix"]
    full = zwang.Simulator(ant, N, precision=precision, threads=1, cpu_simd=cpu_simd)
    some = zwang.Simulator(ant, N, precision=precision, threads=1, cpu_simd=cpu_simd, outputs=kept)
    assert some.outputs == ["qacc", "qM", "xquat", "xipos", "subtree_com", "cfrc_ext"]
    assert len(full.outputs) > 30
    same_states(ant, (full, some), 3)
    for call in ("forward", "step1", "step5"):
        for sim in (full, some):
            if call == "forward":
                sim.forward()
            else:
                sim.step(int(call[4:]))
        np.testing.assert_array_equal(some.qpos, full.qpos, err_msg=call)
        np.testing.assert_array_equal(some.qvel, full.qvel, err_msg=call)
        np.testing.assert_array_equal(some.time, full.time, err_msg=call)
        for name in ("cinert", "cfrc_ext", "qacc", "xipos"):
            np.testing.assert_array_equal(
                getattr(some, name), getattr(full, name), err_msg=f"{name} after {call}"
            )
        np.testing.assert_array_equal(some.mass_matrix(), full.mass_matrix(), err_msg=call)
    assert np.abs(full.cfrc_ext).max() > 0


def test_outputs_not_kept_raise_and_bad_lists_are_refused(ant):
    sim = zwang.Simulator(ant, 3, threads=1, outputs=[])
    assert sim.outputs == []
    sim.step(2)
    assert np.all(sim.time > 0)
    with pytest.raises(
        zwang.OutputNotKeptError, match="xpos is not among the outputs this simulator keeps"
    ):
        _ = sim.xpos
    assert issubclass(zwang.OutputNotKeptError, AttributeError)
    assert issubclass(zwang.OutputNotKeptError, RuntimeError)
    assert not hasattr(sim, "cfrc_ext") and getattr(sim, "qacc", None) is None
    with pytest.raises(
        zwang.OutputNotKeptError,
        match="cvel is computed from subtree_com, cvel; this simulator does not "
        "keep subtree_com, cvel",
    ):
        _ = sim.cvel
    with pytest.raises(zwang.OutputNotKeptError, match="list 'mass_matrix' in its outputs"):
        sim.mass_matrix()
    with pytest.raises(ValueError, match="no field or derived quantity is named 'xpso'"):
        zwang.Simulator(ant, 3, outputs=["xpso"])
    with pytest.raises(ValueError, match="body_mass is a parameter"):
        zwang.Simulator(ant, 3, outputs=["body_mass"])
    with pytest.raises(ValueError, match="list of field names"):
        zwang.Simulator(ant, 3, outputs="xpos")


def test_vector_env_passes_outputs_through(ant):
    import zwang.gym

    def obs(sim):
        return np.asarray(sim.xpos).reshape(sim.instances, -1)

    env = zwang.gym.VectorEnv(
        ant, 3, obs, lambda sim, action: np.zeros(sim.instances), outputs=["xpos"]
    )
    assert env.sim.outputs == ["xpos"]
    assert env.reset(seed=1)[0].shape == (3, 3 * ant.nbody)
    with pytest.raises(ValueError, match="list of field names"):
        zwang.gym.VectorEnv(
            ant, 3, obs, lambda sim, action: np.zeros(sim.instances), outputs="xpos"
        )


def assert_same(a, b, where):
    """Equal infos: dicts key by key, object arrays (final observations, None where an env did not
    reset) element by element, arrays bit for bit."""
    if isinstance(b, dict):
        assert a.keys() == b.keys(), where
        for k in b:
            assert_same(a[k], b[k], f"{where}[{k}]")
    elif isinstance(b, np.ndarray) and b.dtype == object:
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{i}]")
    elif b is None:
        assert a is None, where
    else:
        np.testing.assert_array_equal(a, b, err_msg=where)


TASKS = [
    "InvertedPendulum-v5",
    "InvertedDoublePendulum-v5",
    "Reacher-v5",
    "Pusher-v5",
    "Swimmer-v5",
    "HalfCheetah-v5",
    "Hopper-v5",
    "Walker2d-v5",
    "Ant-v5",
    "Humanoid-v5",
]


@pytest.mark.parametrize("env_id", TASKS)
def test_tasks_observe_the_same_with_their_own_outputs(assets, env_id):
    import zwang.gym

    assert sorted(TASKS) == sorted(zwang.gym.TASKS)
    # 5 envs: a full SIMD pack and a partial one; episodes of 3 steps: autoresets within the run
    envs = [
        zwang.gym.make_vec(
            env_id, num_envs=5, threads=1, outputs=o, max_episode_steps=3, autoreset_mode="SameStep"
        )
        for o in ("task", None)
    ]
    assert len(envs[0].sim.outputs) < len(envs[1].sim.outputs)
    rng = np.random.default_rng(5)
    obs = [e.reset(seed=7)[0] for e in envs]
    np.testing.assert_array_equal(obs[0], obs[1])
    for _ in range(7):
        action = rng.uniform(-0.4, 0.4, size=envs[0].action_space.shape)
        out = [e.step(action) for e in envs]
        for k in range(3):
            np.testing.assert_array_equal(out[0][k], out[1][k])
        assert_same(out[0][4], out[1][4], "info")
