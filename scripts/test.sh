#!/usr/bin/env bash
# Sets up the machine, builds zwang with warnings as errors (the CUDA backend too when nvcc is
# present, for sm_90 only) and runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build/ci -DCMAKE_BUILD_TYPE=Release -DZWANG_WERROR=ON -DZWANG_CUDA_ARCHITECTURES=90
cmake --build build/ci -j"$(nproc)"
ctest --test-dir build/ci --output-on-failure -j"$(nproc)"
