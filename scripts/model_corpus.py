"""Loads the MJCF files of third-party packages with MuJoCo 4.0 and with zwang, and tallies what
zwang refuses and warns about in the files MuJoCo compiles.

    python3 scripts/model_corpus.py [--packages dm-control gymnasium-robotics ...] [--dir DIR]

The packages' wheels come from PyPI (pip download, no dependencies) into DIR (a temporary
directory unless given) and are unpacked there; every .xml file in them is tried.  Needs the
`mujoco` and `zwang` Python packages.  docs/mjcf.md gives the result and what the reasons mean.
"""

import argparse
import collections
import pathlib
import re
import subprocess
import sys
import tempfile
import zipfile

PACKAGES = ["dm-control", "gymnasium-robotics", "mujoco-warp", "myosuite"]


def fetch(packages, where):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(where), *packages],
        check=True,
    )
    for wheel in where.glob("*.whl"):
        with zipfile.ZipFile(wheel) as z:
            z.extractall(where / wheel.name.split("-")[0])


def reason(message):
    """a message without its file, line, names and numbers: one key per kind of refusal"""
    first = message.splitlines()[0]
    first = re.sub(r"^.*?:\d+: ", "", first)
    first = re.sub(r"'[^']*'", "'…'", first)
    first = re.sub(r" at \S+", "", first)
    return re.sub(r"\d+(\.\d+)?", "N", first)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--packages", nargs="+", default=PACKAGES)
    parser.add_argument("--dir", type=pathlib.Path)
    args = parser.parse_args()
    import mujoco
    import zwang

    with tempfile.TemporaryDirectory() as scratch:
        where = args.dir or pathlib.Path(scratch)
        where.mkdir(parents=True, exist_ok=True)
        fetch(args.packages, where)
        refused, warned, examples = collections.Counter(), collections.Counter(), {}
        compiled = loaded = 0
        for path in sorted(where.rglob("*.xml")):
            try:
                mujoco.MjModel.from_xml_path(str(path))
            except Exception:
                continue
            compiled += 1
            try:
                model = zwang.load(str(path))
            except Exception as e:
                key = reason(str(e))
                refused[key] += 1
                examples.setdefault(key, str(path.relative_to(where)))
                continue
            loaded += 1
            for w in model.warnings:
                warned[reason(w)] += 1
        print(f"{compiled} files compile in MuJoCo {mujoco.__version__}; zwang loads {loaded}")
        print("\nrefused (files, reason, an example):")
        for key, n in refused.most_common():
            print(f"{n:5d}  {key}\n       {examples[key]}")
        print("\nwarnings in the files loaded (warnings, reason):")
        for key, n in warned.most_common():
            print(f"{n:5d}  {key}")


if __name__ == "__main__":
    main()
