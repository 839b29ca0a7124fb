#!/bin/bash
# The device run of the seed sorts' float keys and GPU-Quicksort's phase one without atomics
# (docs/models/sort-gpu-quicksort.md, docs/experiments/sorting.md), one call on the GPU machine,
# at most 120 s (the timeouts add up to 99 s), results under $OUT:
#   check.txt   every seed sort with keys=f32 on every distribution at n = 1, 17, 1000, 2^20,
#               and GPU-Quicksort with phase1=host (u32 and f32) at the same sizes;
#   time.csv    keys=u32 against keys=f32 and phase1=atomic against phase1=host at 2^20 and 2^24
#               (median of 5 after the harness's warm-ups; every timed case is checked too);
#   sanitize.txt compute-sanitizer memcheck and racecheck of the f32 and phase1=host paths at
#               small sizes.
# The harness is built beforehand from the merged tree (no GLib there):
#   (cd src/algos/cuda && nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o $GK *.cu)
# Usage: GK=... OUT=... bash tools/sort-float-device.sh
set -u
GK=${GK:?}
OUT=${OUT:-sort-float-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
DISTS="uniform gaussian zero sorted bucket staggered reverse few special"
SORTS="sort/gpu-quicksort sort/msimd-quicksort:P=1056 sort/bitonic sort/warpsort:b=256
sort/dway-merge:b=256"
stage () { echo "== $* (t=${SECONDS}s)"; }
spec () { case "$1" in *:*) echo "$1,$2" ;; *) echo "$1:$2" ;; esac; }
nvidia-smi --query-gpu=name,driver_version --format=csv

stage check keys=f32, every distribution
cases=""
for s in $SORTS; do for d in $DISTS; do cases="$cases $(spec "$s" "dist=$d,keys=f32")"; done; done
for d in $DISTS; do
  cases="$cases sort/gpu-quicksort:dist=$d,phase1=host"
  cases="$cases sort/gpu-quicksort:dist=$d,phase1=host,keys=f32"
done
timeout 40 "$GK" --mode check --n 1,17,1000,2^20 $cases > "$OUT/check.txt" 2>&1
echo "check rc=$? (0: every case sorted, 1: a check failed)"
grep -c "^" "$OUT/check.txt"; grep -i "out of place\|fail" "$OUT/check.txt" | head -5

stage time u32 vs f32, atomic vs host
timed=""
for s in $SORTS; do timed="$timed $(spec "$s" keys=u32) $(spec "$s" keys=f32)"; done
timed="$timed sort/gpu-quicksort:phase1=host sort/gpu-quicksort:phase1=host,keys=f32"
timed="$timed sort/gpu-quicksort:dist=zero sort/gpu-quicksort:dist=zero,phase1=host"
timed="$timed baseline/cub-sort:keys=u32 baseline/cub-sort:keys=f32"
timeout 35 "$GK" --mode time --reps 5 --csv "$OUT/time.csv" --n 2^20,2^24 $timed | tail -n 3
echo "time rc=$?"

stage sanitize
for tool in memcheck racecheck; do
  echo "### $tool" >> "$OUT/sanitize.txt"
  timeout 12 compute-sanitizer --tool $tool --error-exitcode 9 "$GK" --mode check --n 1,100,5000 \
    sort/gpu-quicksort:keys=f32,dist=special sort/gpu-quicksort:phase1=host,minsize=32 \
    sort/gpu-quicksort:phase1=host,pivot=median,keys=f32,maxseq=16 sort/bitonic:keys=f32 \
    sort/msimd-quicksort:P=16,keys=f32 sort/dway-merge:keys=f32 >> "$OUT/sanitize.txt" 2>&1
  echo "$tool rc=$?"
done
grep "ERROR SUMMARY\|RACECHECK SUMMARY\|###" "$OUT/sanitize.txt" | sort | uniq -c | head -8
stage done
