#!/usr/bin/env bash
# Sets up the machine, builds zwang and runs the main job: a batched rollout of the built-in
# 8-link chain (4096 instances, 1000 steps), printing instance-steps per second.  Arguments
# are passed to `zwang run` (see `zwang run --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j"$(nproc)" --target zwang_cli
build/release/zwang run "$@"
