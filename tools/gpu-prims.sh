#!/bin/bash
# The measured half of the warp-primitive micro-kernels (gpu/shuffle, gpu/vote, gpu/atomic), in
# one short call on a machine with an NVIDIA GPU and no GLib (the lent H100):
#   1. takes the CUDA harness carried as .gpu-carry/gpu-kernels (or builds it, as gpu-measure.sh)
#      and keeps the SASS of the prim_* kernels -> sass-prims.txt;
#   2. checks and times every default case of the three families -> timings.csv;
#   3. profiles one launch of each with Nsight Compute, asking for the metrics listed in
#      .gpu-carry/metrics.txt (`models measure --metrics`, made where `models` builds) plus every
#      instruction and L1 counter this ncu has for shuffles, votes, atomics and reductions
#      -> ncu-sv.csv, profile-cases-sv.csv (shuffles, votes), ncu-at.csv, profile-cases-at.csv
#      (atomics); the names of all such counters -> metrics-related.txt.
# The predicted side is then `models measure --measured DIR` on a machine with the library
# (tests/test-prims-h100.c keeps the H100's numbers). Usage: OUT=dir bash tools/gpu-prims.sh
set -u
OUT=${OUT:-gpu-out}
ARCH=${ARCH:-sm_90}
WORK=${WORK:-/tmp/gpu-prims}
MODELS=${MODELS:-build/bin/models}
mkdir -p "$OUT" "$WORK"
exec > >(tee "$OUT/log.txt") 2>&1
SCRIPT=gpu-prims
# shellcheck source=tools/gpu-tools.sh
. "$(dirname "$0")/gpu-tools.sh"

echo "== machine"
nvidia-smi -L || { echo "gpu-prims: no NVIDIA GPU"; exit 2; }
"$NVCC" --version | tail -1
"$NCU" --version | tail -1

echo "== build"
build_harness || exit 1
awk '/Function : .*prim_/ {on = 1} /Function : / && !/prim_/ {on = 0} on' "$WORK/sass.txt" \
  > "$OUT/sass-prims.txt"
grep -c -E "SHFL|VOTE|ATOM|RED" "$OUT/sass-prims.txt"

mapfile -t CASES < <("$WORK/gpu-kernels" --list | grep -E '^gpu/(shuffle|vote|atomic)(:|$)')
echo "cases: ${#CASES[@]}"

echo "== check and time"
"$WORK/gpu-kernels" --mode time --reps 5 --csv "$WORK/timings.csv" "${CASES[@]}"
check_rc=$?

echo "== Nsight Compute"
METRICS=${METRICS:-$(paste -sd, .gpu-carry/metrics.txt)}
"$NCU" --query-metrics > "$WORK/metrics-available.txt" 2>&1
grep -i -E "shfl|vote|atom|_red" "$WORK/metrics-available.txt" > "$OUT/metrics-related.txt"
EXTRA=$(grep -o -E '^(smsp__(sass_)?inst_executed_op_[a-z0-9_]*(shfl|vote|atom|red)[a-z0-9_]*|l1tex__(t_requests|t_sectors|data_pipe_lsu_wavefronts|data_bank_conflicts)_pipe_lsu_mem_(global|shared)_op_(atom|red))[[:space:]]' \
  "$WORK/metrics-available.txt" | awk '{print $1 ".sum"}' | sort -u | paste -sd,)
METRICS="$METRICS,$EXTRA"
ncu_metrics
echo "metrics: $METRIC_LIST"
# Two profiles (shuffles and votes, then atomics), each bounded, so that a slow one leaves the
# other's report; each has its own launch numbering (ncu.csv IDs and profile-cases.csv launch).
profile () {
  local tag=$1 limit=$2
  shift 2
  timeout "$limit" "$NCU" --clock-control none --metrics "$METRIC_LIST" -f -o "$WORK/profile-$tag" \
    "$WORK/gpu-kernels" --mode profile --csv "$WORK/profile-cases-$tag.csv" "$@" \
    > "$WORK/ncu-run-$tag.txt" 2>&1
  echo "ncu $tag rc $? at $(date +%T)"
  tail -3 "$WORK/ncu-run-$tag.txt"
  "$NCU" -i "$WORK/profile-$tag.ncu-rep" --csv --page raw --print-units base > "$WORK/ncu-$tag.csv"
  echo "ncu $tag rows: $(($(wc -l < "$WORK/ncu-$tag.csv") - 2))"
  cp "$WORK/ncu-$tag.csv" "$WORK/profile-cases-$tag.csv" "$OUT"/
}
date +%T
mapfile -t SV < <(printf '%s\n' "${CASES[@]}" | grep -v '^gpu/atomic')
mapfile -t AT < <(printf '%s\n' "${CASES[@]}" | grep '^gpu/atomic')
profile sv 70 "${SV[@]}"
profile at 150 "${AT[@]}"
cp "$WORK"/timings.csv "$OUT"/ 2>/dev/null
echo "== done: check rc $check_rc"
