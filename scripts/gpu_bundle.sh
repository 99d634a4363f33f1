#!/usr/bin/env bash
# Packs what a CUDA build needs to be checked on a GPU machine that has the NVIDIA driver and the
# CUDA toolkit's libraries but no compiler, network or development packages: the CUDA tests,
# `bench_gpu`, the `zwang` CLI, every shared library they load that is neither the C library nor
# CUDA's, and the contact models of the check in bench/README.md ("GPU verification").
#
#   scripts/gpu_bundle.sh [BUILD_DIR=build/ci] [BUNDLE_DIR=gpu_bundle]
#   then, on the GPU machine:  BUNDLE_DIR/run.sh RESULTS_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/ci}
out=${2:-gpu_bundle}
bins=("$build/tests/test_cuda" "$build/bench/bench_gpu" "$build/zwang")
for b in "${bins[@]}"; do
  [[ -x $b ]] || { echo "missing $b: build it first (cmake --build $build --target test_cuda bench_gpu zwang_cli)" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/models"
cp "${bins[@]}" "$out/bin/"
# the C runtime, the driver and the CUDA toolkit come from the GPU machine
skip='^(linux-vdso|ld-linux|libc\.|libm\.|libdl\.|libpthread\.|librt\.|libresolv\.|libcuda\.|libcudart|libcublas|libcusolver|libcusparse|libnvJitLink)'
ldd "${bins[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
  while read -r name path; do
    [[ $name =~ $skip ]] || cp -L "$path" "$out/lib/$name"
  done
gym=$(python3 -c 'import gymnasium, os; print(os.path.dirname(gymnasium.__file__))' 2>/dev/null || true)
if [[ -n $gym ]]; then
  for m in ant humanoid hopper walker2d_v5 half_cheetah; do
    cp "$gym/envs/mujoco/assets/$m.xml" "$out/models/"
  done
fi
cp scripts/gpu_check.py "$out/"
cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# RESULTS_DIR receives the test report, the GPU-vs-CPU contact comparison and the benchmarks
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
res=${1:?results folder}
mkdir -p "$res"
cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
export LD_LIBRARY_PATH="$here/lib:$cuda/lib64:$cuda/lib:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$res/gpu.txt"
nvcc --version | tail -2 | tee -a "$res/gpu.txt"
ldd "$here/bin/"* | grep "not found" && exit 1
timeout "${TEST_TIMEOUT:-240}" "$here/bin/test_cuda" --gtest_output="xml:$res/test_cuda.xml" \
  ${TEST_FILTER:+--gtest_filter=$TEST_FILTER} 2>&1 | tee "$res/test_cuda.log" | grep -v "^\[       OK\|^\[ RUN"
echo "test_cuda exit ${PIPESTATUS[0]}"
if [[ -z ${SKIP_CONTACTS:-} ]]; then
  timeout "${CONTACT_TIMEOUT:-120}" python3 "$here/gpu_check.py" "$here" 2>&1 | tee "$res/contacts.log"
fi
if [[ -z ${SKIP_BENCH:-} ]]; then
  timeout "${BENCH_TIMEOUT:-300}" "$here/bin/bench_gpu" --benchmark_counters_tabular=true \
    --benchmark_min_time="${BENCH_MIN_TIME:-0.2}" ${BENCH_FILTER:+--benchmark_filter=$BENCH_FILTER} \
    --benchmark_out="$res/bench_gpu.json" --benchmark_out_format=json 2>&1 | tee "$res/bench_gpu.log"
fi
EOF
chmod +x "$out/run.sh"
du -sh "$out"
