#!/usr/bin/env bash
# Packs what a CUDA build needs to be checked on a GPU machine that has the NVIDIA driver and the
# CUDA toolkit's libraries but no compiler, network or development packages: the CUDA tests,
# `bench_gpu`, the `zwang` CLI, every shared library they load that is neither the C library nor
# CUDA's, and the contact models of the check in bench/README.md ("GPU verification").
#
#   scripts/gpu_bundle.sh [BUILD_DIR=build/ci] [BUNDLE_DIR=gpu_bundle]   (also BUNDLE_DIR.tar.xz)
#   then, on the GPU machine:  BUNDLE_DIR/group_check.sh RESULTS_DIR   (first, about 5 minutes)
#                              BUNDLE_DIR/run.sh RESULTS_DIR
# run.sh's steps, chosen by environment variables: the CUDA tests (TEST_FILTER), the contact
# comparison with the CPU (SKIP_CONTACTS=1 leaves it out), compute-sanitizer (SANITIZE=1,
# SANITIZE_FILTER), Nsight Compute on one fused step (NCU=1, NCU_MODEL, NCU_INSTANCES), and
# bench_gpu (SKIP_BENCH=1 leaves it out; BENCH_FILTER, BENCH_MIN_TIME, BENCH_MODELS: model
# files of the bundle, e.g. "mj_humanoid").
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
# MuJoCo's humanoid (27 dofs, contacts), the model of the GPU benchmarks beside the examples
if [[ -f /usr/share/mujoco/model/humanoid/humanoid.xml ]]; then
  cp /usr/share/mujoco/model/humanoid/humanoid.xml "$out/models/mj_humanoid.xml"
else
  echo "no /usr/share/mujoco/model/humanoid/humanoid.xml (libmujoco-samples): the bundle's tests and benchmarks leave the humanoid out" >&2
fi
# MuJoCo Warp's humanoid benchmark model (its squat keyframe) as humanoid_mjw.xml, for the anchor
# rows of bench_gpu: from the mujoco-warp wheel on PyPI, kept in the build folder
mjw=$build/mujoco_warp_wheel
if [[ ! -d $mjw ]] || ! compgen -G "$mjw/*.whl" >/dev/null; then
  python3 -m pip download -q --no-deps "mujoco-warp==4.0.0" -d "$mjw" >/dev/null 2>&1 || true
fi
wheel=$(compgen -G "$mjw/*.whl" | head -1 || true)
if [[ -n $wheel ]] && python3 -c 'import sys, zipfile
sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
  "$wheel" mujoco_warp/test_data/humanoid/humanoid.xml >"$out/models/humanoid_mjw.xml" 2>/dev/null; then
  :
else
  rm -f "$out/models/humanoid_mjw.xml"
  echo "no mujoco-warp wheel (pip download mujoco-warp==4.0.0): the anchor rows use MuJoCo's humanoid" >&2
fi
cp scripts/gpu_check.py "$out/"
cp scripts/gpu_group_check.sh "$out/group_check.sh"
# the model files the CUDA tests read (tests/model_cases.h: ZWANG_TEST_DIR, ZWANG_HUMANOID_XML)
mkdir -p "$out/tests/data"
cp -r tests/data/models "$out/tests/data/"
# what both scripts of the bundle set up: `here`, `res` (made), the libraries and the test data
cat >"$out/env.sh" <<'EOF'
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
res=${1:?results folder}
mkdir -p "$res"
cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")")")
export LD_LIBRARY_PATH="$here/lib:$cuda/lib64:$cuda/lib:${LD_LIBRARY_PATH:-}"
export ZWANG_TEST_DIR="$here/tests/data"
[[ -f $here/models/mj_humanoid.xml ]] && export ZWANG_HUMANOID_XML="$here/models/mj_humanoid.xml"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv | tee "$res/gpu.txt"
EOF
cat >"$out/run.sh" <<'EOF'
#!/usr/bin/env bash
# RESULTS_DIR receives the test report, the GPU-vs-CPU contact comparison and the benchmarks
set -uo pipefail
. "$(dirname "$0")/env.sh"
nvcc --version | tail -2 | tee -a "$res/gpu.txt"
ldd "$here/bin/"* | grep "not found" && exit 1
timeout "${TEST_TIMEOUT:-240}" "$here/bin/test_cuda" --gtest_output="xml:$res/test_cuda.xml" \
  ${TEST_FILTER:+--gtest_filter=$TEST_FILTER} 2>&1 | tee "$res/test_cuda.log" | grep -v "^\[       OK\|^\[ RUN"
echo "test_cuda exit ${PIPESTATUS[0]}"
if [[ -z ${SKIP_CONTACTS:-} ]]; then
  timeout "${CONTACT_TIMEOUT:-120}" python3 "$here/gpu_check.py" "$here" 2>&1 | tee "$res/contacts.log"
fi
# compute-sanitizer's four tools on the CUDA tests (SANITIZE_FILTER: a gtest filter; the whole
# suite under memcheck takes long), one log each
if [[ -n ${SANITIZE:-} ]]; then
  for tool in memcheck initcheck racecheck synccheck; do
    timeout "${SANITIZE_TIMEOUT:-120}" compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$here/bin/test_cuda" --gtest_filter="${SANITIZE_FILTER:-Examples/CudaVsCpu.*/chain_f32*:Cuda.*}" \
      >"$res/sanitize_$tool.log" 2>&1
    echo "compute-sanitizer $tool exit $? ($(grep -c "========= " "$res/sanitize_$tool.log") report lines)"
    grep -m 5 "=========   \|ERROR SUMMARY" "$res/sanitize_$tool.log"
  done
fi
# Nsight Compute on one launch of the fused step (NCU_MODEL, NCU_INSTANCES): DRAM bytes,
# achieved occupancy, warp stall reasons
if [[ -n ${NCU:-} ]]; then
  model=${NCU_MODEL:-chain}
  extra=()
  [[ -f $here/models/$model.xml ]] && extra=(--model="$here/models/$model.xml")
  timeout "${NCU_TIMEOUT:-180}" ncu --kernel-name regex:step_fused --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats \
    --section MemoryWorkloadAnalysis --csv --page details \
    "$here/bin/bench_gpu" "${extra[@]}" --benchmark_min_time=0.01 \
    --benchmark_filter="^device/$model/${NCU_PRECISION:-f32}/inkernel/fused/instances:${NCU_INSTANCES:-65536}" \
    >"$res/ncu_$model.csv" 2>"$res/ncu_$model.err"
  echo "ncu exit $?"
fi
if [[ -z ${SKIP_BENCH:-} ]]; then
  models=()
  for m in ${BENCH_MODELS:-}; do models+=(--model="$here/models/$m.xml"); done
  timeout "${BENCH_TIMEOUT:-300}" "$here/bin/bench_gpu" "${models[@]}" --benchmark_counters_tabular=true \
    --benchmark_min_time="${BENCH_MIN_TIME:-0.2}" ${BENCH_FILTER:+--benchmark_filter=$BENCH_FILTER} \
    --benchmark_out="$res/bench_gpu.json" --benchmark_out_format=json 2>&1 | tee "$res/bench_gpu.log"
fi
EOF
chmod +x "$out/run.sh"
# the binaries without their symbol tables (most of their size is device code, once in each),
# and the whole folder as one archive beside it for a machine reached by file transfer: there,
# `tar -xJf gpu_bundle.tar.xz` (python3's lzma module where xz is missing)
strip "$out/bin/"*
XZ_OPT="-9 -T0" tar -C "$(dirname "$out")" -cJf "$out.tar.xz" "$(basename "$out")"
du -sh "$out" "$out.tar.xz"
