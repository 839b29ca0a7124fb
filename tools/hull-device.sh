#!/bin/bash
# The device run of the hull (docs/models/hull.md, docs/experiments/hull.md), one call on the GPU
# machine, results under $OUT. Only baseline/quickhull has CUDA so far (hull/msimd's row is
# TWIN none): checks at n = 1..3, 1000, 2^20, 2^24 on every distribution against the monotone
# chain, compute-sanitizer memcheck and racecheck at small n, and timings 2^16..2^26 on every
# distribution (ring stops at 2^22: one host round trip per hull vertex). At most about 110 s.
# The harness is built beforehand from the merged tree:
#   (cd src/algos/cuda && nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o $GK *.cu)
# Usage: GK=... OUT=... bash tools/hull-device.sh
set -u
GK=${GK:?}
OUT=${OUT:-hull-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
B=baseline/quickhull
DISTS="square disc ring line equal"
stage () { echo "== $* (t=${SECONDS}s)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv

stage check
cases=""
for d in $DISTS; do cases="$cases $B:dist=$d"; done
timeout 40 "$GK" --mode check --n 1,2,3,1000,2^20,2^24 $cases | tail -n 8

stage sanitize
for tool in memcheck racecheck; do
  echo "### $tool" >> "$OUT/sanitize.txt"
  timeout 15 compute-sanitizer --tool $tool --error-exitcode 9 "$GK" --mode check --n 1,3,100,5000 \
    "$B:dist=disc" "$B:dist=ring" "$B:dist=line" >> "$OUT/sanitize.txt" 2>&1
  echo "$tool rc=$?"
done
grep "ERROR SUMMARY\|failed\|###" "$OUT/sanitize.txt" | sort | uniq -c | head -8

stage time
timeout 30 "$GK" --mode time --reps 3 --csv "$OUT/time-square-disc.csv" \
  --n 2^16,2^18,2^20,2^22,2^24,2^26 "$B:dist=square" "$B:dist=disc" | tail -n 3
timeout 15 "$GK" --mode time --reps 1 --csv "$OUT/time-ring.csv" --n 2^16,2^18,2^20,2^22 \
  "$B:dist=ring" | tail -n 3
echo "done t=${SECONDS}s"
