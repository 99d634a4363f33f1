#!/usr/bin/env bash
# Sets up the machine, builds zwang and runs the main job: a batched rollout of the built-in
# 8-link chain (4096 instances, 1000 steps), printing instance-steps per second.  Arguments
# are passed to `zwang run` (see `zwang run --help`); relative paths are relative to where the
# script is called from.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
cmake -S "$root" -B "$root/build/release" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build/release" -j"$(nproc)" --target zwang_cli
"$root/build/release/zwang" run "$@"
