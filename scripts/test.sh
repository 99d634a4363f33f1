#!/usr/bin/env bash
# Sets up the machine, checks the formatting of the C++ (clang-format) and the Python code
# (ruff), builds zwang with warnings as errors (the CUDA backend too when nvcc is present, for
# sm_90 only, lane groups of 32 lanes only, and without the CUDA build report) and runs every
# test; then builds the host code again with clang under AddressSanitizer and
# UndefinedBehaviorSanitizer, with the fuzz targets, and runs every test there too: the whole
# suite (a few tests on fewer instances, docs/checks.md), the fuzzers' regression inputs and a
# 30 s run of each fuzzer.  In between, the Python package is installed with `pip install .`
# into a virtual environment (build/venv) and its tests run there.
set -euo pipefail
cd "$(dirname "$0")/.."
# the seconds since the start at each part, so that a slow part shows in the log
part() { echo "== scripts/test.sh: $1 (at ${SECONDS} s)"; }
part "setup"
bash scripts/setup.sh
# ccache keys on the paths below this folder relative to each build folder, so that a clone at
# another path (each CI run clones to a new one) finds the objects of the previous run; the
# sanitizer build's line tables then keep the first clone's folder as their compile directory
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true

# formatting first, as it takes seconds: C++ by .clang-format, Python by ruff (pyproject.toml)
if [ -d .git ]; then
  git ls-files -z '*.cc' '*.cpp' '*.hpp' '*.h' '*.inl' '*.cu' '*.cuh' | xargs -0 clang-format --dry-run --Werror
else
  find host cuda kernels include tests bench python_shim \( -name '*.cc' -o -name '*.cpp' -o -name '*.hpp' \
    -o -name '*.h' -o -name '*.inl' -o -name '*.cu' -o -name '*.cuh' \) -print0 | xargs -0 clang-format --dry-run --Werror
fi
python3 -m ruff check python_shim scripts bench
python3 -m ruff format --check python_shim scripts bench
part "build (CUDA where nvcc is present)"
# Position-independent code, as the Python package's, so that its build below finds the
# library's objects in ccache.
# A build folder made by another generator is made again.
fresh_ninja() {
  [ ! -f "$1/CMakeCache.txt" ] || grep -q '^CMAKE_GENERATOR:INTERNAL=Ninja$' "$1/CMakeCache.txt" || rm -rf "$1"
}
fresh_ninja build/ci
cmake -S . -B build/ci -G Ninja -DCMAKE_BUILD_TYPE=Release -DZWANG_WERROR=ON \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DZWANG_CUDA_ARCHITECTURES=90 -DZWANG_CUDA_GROUPS=32 \
  -DZWANG_CUDA_REPORT=OFF
cmake --build build/ci -j"$(nproc)"
part "tests"
ctest --test-dir build/ci --output-on-failure -j"$(nproc)"

# the Python package as a user installs it (the CPU backend; build/py-<wheel tag> keeps the build
# between runs, at build/ci's depth so that their relative paths and so their ccache entries
# agree), in a virtual environment that sees the packages setup.sh installed
part "Python package"
python3 -m venv --system-site-packages build/venv
build/venv/bin/python -m pip install -q --no-build-isolation -C cmake.define.ZWANG_WERROR=ON .
part "Python tests"
ZWANG_CLI="$PWD/build/ci/zwang" build/venv/bin/python -m pytest -q python_shim/tests

part "sanitizer build"
# -O1 and line tables only: a third less compile time than -O2 -g, and stacks with lines
fresh_ninja build/asan
CC=clang CXX=clang++ cmake -S . -B build/asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" -DZWANG_WERROR=ON -DZWANG_CUDA=OFF \
  -DZWANG_BUILD_BENCH=OFF -DZWANG_SANITIZE=address,undefined -DZWANG_FUZZ=ON -DZWANG_FUZZ_SECONDS=30
cmake --build build/asan -j"$(nproc)"
part "sanitizer tests"
ctest --test-dir build/asan --output-on-failure -j"$(nproc)"
part "done"
