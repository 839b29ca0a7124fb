#!/bin/bash
# The measured half of the GPU micro-kernels, in one call on a machine with an NVIDIA GPU:
#   1. builds the CUDA twins (src/algos/cuda/*.cu: the harness and one file per twin) with
#      nvcc -O3 -arch=$ARCH -lineinfo;
#   2. keeps their SASS (cuobjdump -sass), the evidence for branch and access-width questions;
#   3. checks every kernel against its CPU reference on fresh random inputs and times it
#      (CUDA events, 3 warm-ups, median of 21 launches) -> timings.csv;
#   4. profiles one launch of every kernel with Nsight Compute (--clock-control none), asking
#      for the metrics `models measure --metrics` lists (or $METRICS, comma-separated) that this
#      ncu knows -> ncu.csv (raw page);
#   5. when a `models` build runs here ($MODELS, default build/bin/models), joins the two with
#      the SIMT twins' predictions: models measure --measured DIR -> measure.csv, measure.json.
# Everything lands in $OUT (default ./gpu-out): log.txt, timings.csv, ncu.csv, sass.txt,
# measure.csv, measure.json and gpu-results.tar.gz with all of it plus the ncu report.
# Usage: bash tools/gpu-measure.sh [CASE...]     (no CASE: every default case)
# A machine without GLib (the lent GPU machines) runs step 5 from a carried build, made here with
#   mkdir -p .gpu-carry/lib && cp build/bin/models .gpu-carry/ &&
#   ldd build/bin/models | awk '/=> \// {print $3}' | grep -v -E 'libc\.|libm\.' | xargs -I{} cp -L {} .gpu-carry/lib/
# (.gpu-carry is git-ignored through .git/info/exclude; name it in the run's carry list).
set -u
OUT=${OUT:-gpu-out}
ARCH=${ARCH:-sm_90}
WORK=${WORK:-/tmp/gpu-measure}
MODELS=${MODELS:-build/bin/models}
mkdir -p "$OUT" "$WORK"
exec > >(tee "$OUT/log.txt") 2>&1
SCRIPT=gpu-measure
# shellcheck source=tools/gpu-tools.sh
. "$(dirname "$0")/gpu-tools.sh"

# The metrics to collect are the library's (the engines' metric names): from $METRICS, which
# `models measure` sets when it runs this script, else from the models build.
if [ -z "${METRICS:-}" ]; then
  [ -x "$MODELS" ] || {
    echo "gpu-measure: no models build to list the metrics (carry .gpu-carry or set METRICS)"
    exit 2
  }
  METRICS=$("$MODELS" measure --metrics | paste -sd, -)
fi

echo "== machine"
nvidia-smi -L || { echo "gpu-measure: no NVIDIA GPU (nvidia-smi failed)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
"$NVCC" --version | tail -1
"$NCU" --version | tail -1

echo "== build"
build_harness || exit 1

echo "== check and time"
"$WORK/gpu-kernels" --mode time --csv "$WORK/timings.csv" "$@"
check_rc=$?

echo "== Nsight Compute"
ncu_metrics
grep -E "tags|branch_targets|wavefronts_mem_shared|bank_conflicts_pipe_lsu_mem_shared" \
  "$WORK/metrics-available.txt" > "$WORK/metrics-related.txt"
set -x
timeout 480 "$NCU" --clock-control none --metrics "$METRIC_LIST" -f -o "$WORK/profile" \
  "$WORK/gpu-kernels" --mode profile --csv "$WORK/profile-cases.csv" "$@" > "$WORK/ncu-run.txt" 2>&1
ncu_rc=$?
"$NCU" -i "$WORK/profile.ncu-rep" --csv --page raw --print-units base > "$WORK/ncu.csv" \
  || "$NCU" -i "$WORK/profile.ncu-rep" --csv --page raw > "$WORK/ncu.csv"
"$NCU" -i "$WORK/profile.ncu-rep" --csv --page details --print-units base > "$WORK/ncu-details.csv"
set +x
tail -5 "$WORK/ncu-run.txt"
echo "ncu rows: $(($(wc -l < "$WORK/ncu.csv") - 2))"

if [ -x "$MODELS" ]; then
  echo "== predicted against measured"
  "$MODELS" measure --measured "$WORK" --format csv --output "$WORK/measure.csv"
  "$MODELS" measure --measured "$WORK" --format json --output "$WORK/measure.json"
  "$MODELS" measure --measured "$WORK" | tee "$WORK/measure.txt" | tail -40
  cp "$WORK"/measure.txt "$OUT"/ 2>/dev/null
fi

cp "$WORK"/timings.csv "$WORK"/ncu.csv "$OUT"/ 2>/dev/null
cp "$WORK"/sass.txt "$OUT"/ 2>/dev/null
cp "$WORK"/measure.csv "$WORK"/measure.json "$OUT"/ 2>/dev/null
tar czf "$OUT/gpu-results.tar.gz" -C "$WORK" --exclude gpu-kernels .
echo "== done: check rc $check_rc, ncu rc $ncu_rc; results in $OUT"
[ "$check_rc" -eq 0 ] && [ "$ncu_rc" -eq 0 ]
