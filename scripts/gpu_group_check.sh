#!/usr/bin/env bash
# The first run on a GPU machine for the lane groups (kernels/group.h; ../bench/README.md, "Lane
# groups"): about 5 minutes, so that a rerun fits in a short time on a GPU machine. It runs from a
# bundle of scripts/gpu_bundle.sh, which copies it there as group_check.sh:
#
#   BUNDLE_DIR/group_check.sh RESULTS_DIR        (give it a limit of about 380 s)
#
#   1. tests: Warp<G> against Emu<G> bit for bit, every model case against the CPU, and a call of
#      several steps against one call per step, bit for bit (CudaLoops)
#   2. compute-sanitizer synccheck and racecheck on the group tests (racecheck sees shared memory
#      only: it matters once the groups work in shared-memory tiles)
#   3. the anchor rows of bench_gpu: MuJoCo Warp's humanoid (humanoid_mjw, its squat keyframe,
#      control noise 0.01, step(1) and a synchronize) at 132, 4096, 8192 and 65536 instances,
#      one thread (g1) and lane groups of 16 and 32 lanes per instance (g16, g32), with the mean
#      contacts, rows and Newton iterations, beside the fused device rows
#   4. one Nsight Compute launch of the lane-group step (g32) at 8192 humanoids: instructions,
#      issue use, warps active, barrier stalls, shared-memory bank conflicts, registers
# Each step has its own time limit and its own log; a failing step does not stop the others.
set -uo pipefail
# here, res, the libraries, the test data, the GPU's name and driver (gpu_bundle.sh writes env.sh)
. "$(dirname "$0")/env.sh"

echo "== 1. tests"
timeout 150 "$here/bin/test_cuda" --gtest_filter='CudaGroups*:*CudaModels*:*CudaLoops*' \
  --gtest_output="xml:$res/group_tests.xml" >"$res/group_tests.log" 2>&1
echo "tests exit $?"
grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$res/group_tests.log" | sort | uniq -c | head -20

echo "== 2. synccheck, racecheck"
for tool in synccheck racecheck; do
  timeout 30 compute-sanitizer --tool "$tool" --error-exitcode 9 "$here/bin/test_cuda" \
    --gtest_filter='CudaGroups*' >"$res/$tool.log" 2>&1
  echo "$tool exit $? ($(grep -m1 "ERROR SUMMARY" "$res/$tool.log"))"
done

echo "== 3. anchor rows"
model=(--model="$here/models/humanoid_mjw.xml" --keyframe=squat --ctrl-noise=0.01)
[[ -f $here/models/humanoid_mjw.xml ]] || {
  echo "no models/humanoid_mjw.xml in the bundle: MuJoCo's humanoid instead, from its default state"
  model=(--model="$here/models/mj_humanoid.xml")
}
name=$(basename "${model[0]#--model=}" .xml)
timeout 120 "$here/bin/bench_gpu" "${model[@]}" --benchmark_min_time=0.1 \
  --benchmark_filter="^(anchor/$name/f32/|device/$name/f32/inkernel/fused/instances:(4096|65536)/)" \
  --benchmark_counters_tabular=true --benchmark_out="$res/anchor.json" --benchmark_out_format=json \
  >"$res/anchor.log" 2>&1
echo "bench_gpu exit $?"
grep -E "instances|ERROR" "$res/anchor.log" | cut -c1-180

echo "== 4. Nsight Compute"
timeout 50 ncu --kernel-name regex:step_group_kernel --launch-skip 3 --launch-count 1 --csv --metrics \
  smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,\
sm__warps_active.avg.pct_of_peak_sustained_active,smsp__average_warp_latency_issue_stalled_barrier,\
smsp__average_warp_latency_issue_stalled_no_instruction,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,launch__registers_per_thread,\
launch__shared_mem_per_block_dynamic \
  "$here/bin/bench_gpu" "${model[@]}" --benchmark_min_time=0.01 \
  --benchmark_filter="^anchor/$name/f32/g32/instances:8192/" >"$res/ncu.csv" 2>"$res/ncu.err"
echo "ncu exit $?"
tail -10 "$res/ncu.csv" | cut -c1-200
