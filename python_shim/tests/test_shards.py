"""`zwang run --shard K/N` and `zwang merge`: the shards of a run, merged, are the whole run bit
for bit (every dataset and attribute of its HDF5 file), with every per-instance draw on
(--randomize, --init-noise, --ctrl random redrawn every record); a missing, duplicated or
foreign shard, or a file that is no shard, is refused with a message naming it, and a refused
merge writes nothing."""

import subprocess

import numpy as np
import pytest
from conftest import zwang_cli

h5py = pytest.importorskip("h5py")

HUMANOID = "/usr/share/mujoco/model/humanoid/humanoid.xml"
RUN = ["-n", "11", "-t", "40", "--record-every", "10", "--ctrl", "random", "--no-progress"]
RUN += ["--randomize", "body_mass=0.8:1.2,dof_damping[0]=normal(0.2,0.05)"]


@pytest.fixture
def cli():
    path = zwang_cli()
    if path is None:
        pytest.skip("no zwang command-line tool (build/ci/zwang or $ZWANG_CLI)")
    return path


def run(cli, out, *extra, seed=5, precision="f64"):
    cmd = [cli, "run", HUMANOID, *RUN, "--seed", str(seed), "--precision", precision]
    subprocess.run(cmd + ["-o", str(out), *extra], check=True, capture_output=True)


def contents(path):
    """Every dataset (by path) and root attribute of an HDF5 file."""
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(
            lambda name, obj: out.__setitem__(name, obj[()]) if hasattr(obj, "dtype") else None
        )
        attrs = {k: np.asarray(v) for k, v in f.attrs.items()}
        dtypes = {name: f[name].dtype for name in out}
    return out, attrs, dtypes


@pytest.mark.parametrize("precision", ["f64", "f32"])
def test_merged_shards_are_the_whole_run(cli, tmp_path, precision):
    whole = tmp_path / "whole.h5"
    run(cli, whole, precision=precision)
    shards = [tmp_path / f"s{k}.h5" for k in range(3)]
    for k, s in enumerate(shards):
        run(cli, s, "--shard", f"{k}/3", precision=precision)
    with h5py.File(shards[2], "r") as f:
        assert f["qpos"].shape[1] == 4 and f.attrs["first"] == 7  # 11 = 3 + 4 + 4
    merged = tmp_path / "merged.h5"
    # any order of the shards on the command line
    out = subprocess.run(
        [cli, "merge", str(merged), str(shards[2]), str(shards[0]), str(shards[1])],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    data, attrs, dtypes = contents(whole)
    got, got_attrs, got_dtypes = contents(merged)
    assert sorted(got) == sorted(data) and len(data) > 20
    for name, value in data.items():
        assert got_dtypes[name] == dtypes[name], name
        assert np.array_equal(got[name], value), name
    assert sorted(got_attrs) == sorted(attrs)
    for name, value in attrs.items():
        assert np.array_equal(got_attrs[name], value), name


def test_merge_refuses_what_is_not_one_run(cli, tmp_path):
    shards = [tmp_path / f"s{k}.h5" for k in range(3)]
    for k, s in enumerate(shards):
        run(cli, s, "--shard", f"{k}/3")
    foreign = tmp_path / "foreign.h5"
    run(cli, foreign, "--shard", "1/3", seed=6)
    text = tmp_path / "notes.txt"
    text.write_text("not a trajectory")
    out = tmp_path / "out.h5"

    def refused(*files):
        r = subprocess.run(
            [cli, "merge", str(out), *map(str, files)], capture_output=True, text=True
        )
        assert r.returncode != 0 and not out.exists() and not (tmp_path / "out.h5.partial").exists()
        return r.stderr

    assert "shard 1/3 of the run missing" in refused(shards[0], shards[2])
    assert f"{shards[1]} and {shards[1]} are both shard 1/3" in refused(*shards, shards[1])
    assert f"{foreign} is not a shard of the run of {shards[0]}: its seed is '6', not '5'" in (
        refused(shards[0], foreign, shards[2])
    )
    assert f"{text}: not an HDF5 file" in refused(*shards, text)
    assert "no such file" in refused(*shards, tmp_path / "gone.h5")
    bad = subprocess.run(
        [cli, "run", HUMANOID, "-n", "2", "--shard", "2/3", "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert bad.returncode != 0 and "2 instances would leave some empty" in bad.stderr
    bad = subprocess.run([cli, "run", HUMANOID, "--shard", "3/3"], capture_output=True, text=True)
    assert bad.returncode != 0 and "--shard must be K/N with 0 <= K < N" in bad.stderr
    # an existing output is kept unless --overwrite
    subprocess.run([cli, "merge", str(out), *map(str, shards)], check=True, capture_output=True)
    again = subprocess.run(
        [cli, "merge", str(out), *map(str, shards)], capture_output=True, text=True
    )
    assert again.returncode != 0 and "--overwrite" in again.stderr
