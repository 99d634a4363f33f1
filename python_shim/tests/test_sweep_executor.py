"""zwang.sweep over executors: a sweep run in chunks by a ProcessPoolExecutor or by a Dask
LocalCluster (two worker processes), or by mpi4py's MPIPoolExecutor under mpiexec (a manager and
two workers), equals the same sweep in one process bit for bit: every
parameter each instance ran with, every record, the status words and the failures, whatever the
chunk size and the order the chunks complete in.  Faults: a Dask worker killed in the middle of
a chunk (Dask runs the chunk again elsewhere), and a sweep that fails halfway and is run again
against its Zarr store (only the missing chunks run), end with the same complete result."""

import concurrent.futures
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys

import numpy as np
import pytest
import zwang

HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"
N = 23


def feedback(sim, step):
    """A control law of each instance's own state (picklable: module level)."""
    return np.tanh(np.asarray(sim.qvel)[:, 6 : 6 + sim.nu] * 0.3 + 0.01 * step)


def pool():
    return concurrent.futures.ProcessPoolExecutor(
        2, mp_context=multiprocessing.get_context("spawn")
    )


def run(**kwargs):
    model = zwang.load(HUMANOID)
    return zwang.sweep(
        model,
        kwargs.pop("params"),
        instances=N,
        steps=30,
        every=7,
        record=["qpos", "qvel", "xpos", "qacc"],
        seed=11,
        qpos=lambda rng, n: np.asarray(model.qpos0) + rng.normal(0, 0.05, (n, model.nq)),
        **kwargs,
    )


def assert_same(a, b):
    assert sorted(a.params) == sorted(b.params)
    for name in a.params:
        assert np.array_equal(a.params[name], b.params[name]), name
    assert sorted(a.records) == sorted(b.records)
    for name in a.records:
        assert a.records[name].dtype == b.records[name].dtype
        assert np.array_equal(a.records[name], b.records[name]), name
    assert np.array_equal(a.steps, b.steps) and np.array_equal(a.time, b.time)
    assert np.array_equal(a.status, b.status)
    key = [(f.instance, f.status, f.message) for f in a.failures]
    assert key == [(f.instance, f.status, f.message) for f in b.failures]


GRAMMAR = "body_mass+body_inertia=0.8:1.2, dof_damping[6]=normal(0.5, 0.1)"
MAPPING = {
    "body_mass[1]": ("scale", ("uniform", 0.9, 1.1)),
    "dof_damping": ("lognormal", -1.0, 0.3),
    "gravity[2]": lambda rng, n: -9.81 + rng.normal(0, 0.2, n),
    # instance 9 has a negative armature: it stops, the others run on
    "dof_armature[7]": np.where(np.arange(N) == 9, -1.0, 0.01),
}


@pytest.mark.parametrize("params", [GRAMMAR, MAPPING], ids=["grammar", "mapping"])
def test_process_pool_equals_one_process(params):
    one = run(params=params)
    assert one.records["qpos"].shape == (6, N, 28)
    stopped = [f.instance for f in one.failures]
    assert stopped == ([9] if isinstance(params, dict) else [])
    # the lambdas of MAPPING and of the initial qpos need not pickle: those draws are made here
    with pool() as ex:
        for chunk in (5, N):
            assert_same(one, run(params=params, executor=ex, chunk=chunk))


def test_control_callable_in_workers():
    one = run(params=GRAMMAR, ctrl=feedback)
    with pool() as ex:
        chunked = run(params=GRAMMAR, ctrl=feedback, executor=ex, chunk=4)
    assert_same(one, chunked)


def test_dask_local_cluster_equals_one_process():
    distributed = pytest.importorskip("distributed")
    one = run(params=GRAMMAR)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        chunked = run(params=GRAMMAR, executor=client.get_executor(), chunk=3)
    assert_same(one, chunked)


def test_executor_arguments():
    forking = concurrent.futures.ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("fork")
    )
    with forking, pytest.raises(ValueError, match="get_context\\('spawn'\\)"):
        run(params=GRAMMAR, executor=forking)
    with concurrent.futures.ThreadPoolExecutor(1) as ex:
        with pytest.raises(ValueError, match="chunk must be at least 1"):
            run(params=GRAMMAR, executor=ex, chunk=0)
        with pytest.raises(ValueError, match="unknown parameter"):
            run(params="nothing=1:2", executor=ex)


def crash(task):
    raise RuntimeError("the worker running this chunk died")


class Failing(concurrent.futures.ThreadPoolExecutor):
    """Runs the chunks in a thread, one after another, but the third one submitted fails (a
    crashed worker); counts the chunks it was given."""

    def __init__(self, fail: bool):
        super().__init__(1)
        self.fail, self.given = fail, 0

    def submit(self, fn, *args, **kwargs):
        self.given += 1
        return super().submit(crash if self.fail and self.given == 3 else fn, *args, **kwargs)


def test_store_resumes_a_failed_sweep(tmp_path):
    pytest.importorskip("zarr")
    one = run(params=GRAMMAR)
    store = tmp_path / "sweep.zarr"
    with Failing(fail=True) as ex, pytest.raises(RuntimeError) as failure:
        run(params=GRAMMAR, executor=ex, chunk=4, store=store)
    assert "the chunk of instances 8 to 11 failed: the worker running this chunk died" in str(
        failure.value
    )
    # 6 chunks: the run again finds the five others written and runs the failed one only
    with Failing(fail=False) as ex:
        resumed = run(params=GRAMMAR, executor=ex, chunk=4, store=store)
        assert ex.given == 1
    as_arrays = dict(resumed.records)
    resumed.records = {k: np.asarray(v[:]) for k, v in as_arrays.items()}
    assert_same(one, resumed)
    # once complete, nothing runs again; another sweep's arguments are refused
    with Failing(fail=False) as ex:
        again = run(params=GRAMMAR, executor=ex, chunk=4, store=store)
        assert ex.given == 0
    assert np.array_equal(np.asarray(again.records["qpos"][:]), one.records["qpos"])
    with pytest.raises(ValueError, match="holds another sweep: its inputs"):
        run(params=GRAMMAR.replace("0.8", "0.7"), chunk=4, store=store)
    with pytest.raises(ValueError, match="holds another sweep: its chunk"):
        run(params=GRAMMAR, chunk=5, store=store)
    xr = pytest.importorskip("xarray")
    opened = xr.open_zarr(store, group="records", consolidated=False)
    assert np.array_equal(opened["qpos"].values, one.records["qpos"])


def die_once(sim, step):
    """Kills the worker process the first time any worker calls it (a marker file says so)."""
    marker = os.environ["ZWANG_TEST_MARKER"]
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        return feedback(sim, step)
    os.close(fd)
    os.kill(os.getpid(), signal.SIGKILL)


def test_dask_retries_a_chunk_whose_worker_was_killed(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    marker = tmp_path / "killed"
    monkeypatch.setenv("ZWANG_TEST_MARKER", str(marker))
    one = run(params=GRAMMAR, ctrl=feedback)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        chunked = run(params=GRAMMAR, ctrl=die_once, executor=client.get_executor(), chunk=4)
    assert marker.exists()  # a worker did die
    assert_same(one, chunked)


MPI_SCRIPT = """
import sys
import numpy as np
import zwang
from mpi4py.futures import MPIPoolExecutor

if __name__ == "__main__":
    with MPIPoolExecutor() as ex:
        r = zwang.sweep(sys.argv[1], sys.argv[2], instances=int(sys.argv[3]), steps=30, every=7,
                        record=["qpos", "qvel", "xpos", "qacc"], seed=11, executor=ex, chunk=4)
    np.savez(sys.argv[4], status=r.status, **r.records,
             **{"param " + k: v for k, v in r.params.items()})
"""


def test_mpi_pool_under_mpiexec_equals_one_process(tmp_path):
    pytest.importorskip("mpi4py")
    mpiexec = shutil.which("mpiexec")
    version = (
        subprocess.run([mpiexec, "--version"], capture_output=True, text=True) if mpiexec else None
    )
    # Open MPI 4 calls itself OpenRTE there, 5 Open MPI (--oversubscribe is theirs)
    text = "" if version is None else version.stdout + version.stderr
    if "Open MPI" not in text and "OpenRTE" not in text:
        pytest.skip("no Open MPI's mpiexec (scripts/setup.sh installs Debian's)")
    script, out = tmp_path / "sweep_mpi.py", tmp_path / "out.npz"
    script.write_text(MPI_SCRIPT)
    # a manager and two workers; as root, Open MPI asks for these two variables
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [mpiexec, "-n", "3", "--oversubscribe", sys.executable, "-m", "mpi4py.futures"]
    done = subprocess.run(
        cmd + [str(script), HUMANOID, GRAMMAR, str(N), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    got = np.load(out)
    one = zwang.sweep(
        HUMANOID,
        GRAMMAR,
        instances=N,
        steps=30,
        every=7,
        record=["qpos", "qvel", "xpos", "qacc"],
        seed=11,
    )
    assert np.array_equal(got["status"], one.status)
    for name, value in one.records.items():
        assert np.array_equal(got[name], value), name
    for name, value in one.params.items():
        assert np.array_equal(got["param " + name], value), name
