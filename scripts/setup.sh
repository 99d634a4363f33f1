#!/usr/bin/env bash
# Installs what zwang needs on a fresh Debian 12 machine: the Debian packages it builds and
# tests with (for the sanitizer build clang with its sanitizer and fuzzer runtimes, LLVM's
# OpenMP and llvm-symbolizer; EGL and Mesa's drivers, so that MuJoCo draws frames without a
# display; Chromium and its WebDriver, the browser that the viewer's tests open; Open MPI, which
# runs a sweep over mpi4py's executor in its tests), the Gymnasium package whose MuJoCo models
# the tests read, MuJoCo 4.0 for the benchmarks and the Python tests, and what the Python
# package builds with (scikit-build-core, nanobind) and is tested with (pytest and the packages
# its tests compare with).  The CUDA toolkit is not installed here: CMake builds the CUDA backend
# when nvcc is on the PATH.
set -euo pipefail

packages=(
  cmake g++ make ninja-build ccache pkg-config
  libeigen3-dev libfmt-dev libgtest-dev libbenchmark-dev
  libpugixml-dev liburdfdom-dev libhdf5-dev nlohmann-json3-dev libcli11-dev
  libassimp-dev libtinyobjloader-dev libqhull-dev libboost-dev libpng-dev
  libmujoco-dev libmujoco-samples
  clang llvm libclang-rt-14-dev libomp-14-dev clang-format
  libegl1 libegl-mesa0 libgl1-mesa-dri
  chromium chromium-driver
  openmpi-bin libopenmpi-dev
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "installing: ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

python_packages=()
python3 -m pip --version >/dev/null 2>&1 || python_packages+=(python3-pip)
python3 -m venv --help >/dev/null 2>&1 || python_packages+=(python3-venv)
if [ ${#python_packages[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${python_packages[@]}" >/dev/null
fi
# gymnasium's models for the loader and contact tests; MuJoCo 4.0 (its wheel ships libmujoco and
# its headers) for bench_contacts, which compares zwang with the MuJoCo release users run
pip_install() {
  python3 -m pip install -q "$@" 2>/dev/null || python3 -m pip install -q --break-system-packages "$@"
}
if ! python3 -c "import gymnasium" 2>/dev/null; then
  echo "installing: gymnasium (PyPI)"
  pip_install gymnasium
fi
# the array API over numpy and torch that zwang.gym's tasks compute with
if ! python3 -c "import array_api_compat" 2>/dev/null; then
  echo "installing: array-api-compat (PyPI)"
  pip_install array-api-compat
fi
# dm_control's suite files (fish, swimmer: fluid forces) for the fluid tests; without its
# dependencies, which pin another MuJoCo: the tests read its XML files only
if ! python3 -c "import importlib.metadata as m; assert m.version('dm-control') == '1.0.50'" 2>/dev/null; then
  echo "installing: dm-control 1.0.50 (PyPI, its files only)"
  pip_install --no-deps dm-control==1.0.50
fi
# Gymnasium-Robotics' Fetch and Shadow hand scenes for the robot-scene tests; its files only, as
# dm_control's
if ! python3 -c "import importlib.metadata as m; assert m.version('gymnasium-robotics') == '1.4.2'" 2>/dev/null; then
  echo "installing: gymnasium-robotics 1.4.2 (PyPI, its files only)"
  pip_install --no-deps gymnasium-robotics==1.4.2
fi
if ! python3 -c "import mujoco; assert mujoco.__version__ == '4.0.0'" 2>/dev/null; then
  echo "installing: mujoco 4.0.0 (PyPI)"
  pip_install mujoco==4.0.0
fi
# Pinocchio (its wheel ships the C++ library, headers and CMake files under cmeel.prefix) and the
# Panda arm's URDF, for the peers of `zwang bench`
if ! python3 -c "import pinocchio; assert pinocchio.__version__ == '4.1.0'" 2>/dev/null; then
  echo "installing: pin 4.1.0 (PyPI)"
  pip_install pin==4.1.0
fi
cmeel_site="$(python3 -c 'import cmeel, os; print(os.path.dirname(os.path.dirname(cmeel.__file__)))' 2>/dev/null || true)"
if [ ! -f "$cmeel_site/cmeel.prefix/share/example-robot-data/robots/panda_description/urdf/panda.urdf" ]; then
  echo "installing: example-robot-data 6.0.0 (PyPI)"
  pip_install example-robot-data==6.0.0
fi
# the Python package: built by scikit-build-core with nanobind (scripts/test.sh installs it into a
# virtual environment that sees these), tested with pytest
if ! python3 -c "import scikit_build_core, nanobind, pytest" 2>/dev/null; then
  echo "installing: scikit-build-core, nanobind, pytest (PyPI)"
  pip_install "scikit-build-core>=0.10" "nanobind>=2.0" pytest
fi
# what Gymnasium's own MuJoCo environments import (the reference of zwang.gym's tests), and the
# optional companions of zwang.sweep and the examples, so that no Python test is skipped
if ! python3 -c "import imageio, tqdm, xarray, pandas, scipy, matplotlib" 2>/dev/null; then
  echo "installing: imageio, tqdm, xarray, pandas, scipy, matplotlib (PyPI)"
  pip_install imageio tqdm xarray pandas scipy matplotlib
fi
# Gymnasium's RecordVideo writes its MP4 with moviepy (and imageio-ffmpeg's ffmpeg), for the
# tests that record a zwang env; the frames come from MuJoCo's renderer through EGL (the Debian
# packages above)
if ! python3 -c "import moviepy, imageio_ffmpeg" 2>/dev/null; then
  echo "installing: moviepy (PyPI)"
  pip_install moviepy
fi
# the web viewer (zwang.viewer: viser serves the page, h5py reads trajectories) and Selenium, which
# drives Chromium in its tests
if ! python3 -c "import viser, h5py, selenium" 2>/dev/null; then
  echo "installing: viser, h5py, selenium (PyPI)"
  pip_install viser h5py selenium
fi
# Dask's distributed scheduler, an executor of zwang.sweep that its tests run a LocalCluster of,
# mpi4py (built against the Open MPI above when there is no wheel), and Zarr, the store a sweep
# writes its chunks to
if ! python3 -c "import dask, distributed, zarr, mpi4py" 2>/dev/null; then
  echo "installing: dask[distributed], zarr, mpi4py (PyPI)"
  pip_install "dask[distributed]" zarr mpi4py
fi
# PyTorch, for zwang.gym's torch environments (array="torch") and the torchrun example in the
# tests: PyPI's Linux wheel, the only one PyPI has, which brings NVIDIA's CUDA libraries with it
# (about 5 GB installed); it runs on the CPU where there is no GPU
if ! python3 -c "import torch" 2>/dev/null; then
  echo "installing: torch 2.15.0 (PyPI)"
  pip_install torch==2.15.0
fi
# cuobjdump and the nvdisasm it runs, for the CUDA build's SASS check
# (tests/cuda/group_sass.cmake): a toolkit may ship nvcc without them; NVIDIA's wheels hold the
# two binaries alone
if command -v nvcc >/dev/null 2>&1 && ! command -v cuobjdump >/dev/null 2>&1 &&
  ! python3 -c "import importlib.metadata as m; m.version('nvidia-cuda-cuobjdump'); m.version('nvidia-cuda-nvdisasm')" 2>/dev/null; then
  echo "installing: nvidia-cuda-cuobjdump, nvidia-cuda-nvdisasm 13.2.51 (PyPI)"
  pip_install nvidia-cuda-cuobjdump==13.2.51 nvidia-cuda-nvdisasm==13.2.51
fi
# the Python code's linter and formatter, at the version whose verdicts scripts/test.sh expects
if ! python3 -c "import importlib.metadata as m; assert m.version('ruff') == '0.17.6'" 2>/dev/null; then
  echo "installing: ruff 0.17.6 (PyPI)"
  pip_install ruff==0.17.6
fi
