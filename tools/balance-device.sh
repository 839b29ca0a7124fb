#!/bin/bash
# The device run of the load balancers (docs/experiments/load-balancing.md), one call on the GPU
# machine, results under $OUT: every balancer checked against the CPU reference on every particle
# set at several sizes and shapes, compute-sanitizer memcheck and racecheck at small sizes, then
# the timing grid (blocks at the thesis's n = 500,000, tube and uniform) and the best
# configuration of each balancer with its speed-up over the static list.
# The harness is built beforehand (no GLib there):
#   (cd src/algos/cuda && nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o $GK *.cu)
# Usage: GK=... OUT=... bash tools/balance-device.sh
# Environment: BLOCKS (the grid's block counts; a block is one warp), GRID_SECONDS (the
# grid's time box; a case finished before it keeps its row), SANITIZE=0 (skip the sanitizer stage,
# e.g. when tools/gpu-sanitize.sh runs the balancers with every tool).
set -u
BLOCKS=${BLOCKS:-8 14 20 32 42 66 132 264 528}
GRID_SECONDS=${GRID_SECONDS:-400}
SANITIZE=${SANITIZE:-1}
GK=${GK:?}
OUT=${OUT:-balance-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
stage () { echo "== $* (t=${SECONDS}s)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv

stage check
cases=""
for d in uniform tube clustered; do
  cases="$cases balance/static:dist=$d"
  for b in blocking lockfree abp; do
    cases="$cases balance/$b:dist=$d,blocks=1 balance/$b:dist=$d,blocks=42"
    cases="$cases balance/$b:dist=$d,blocks=264 balance/$b:dist=$d,blocks=1056"
  done
done
timeout 120 "$GK" --mode check --n 1,20,21,1000,65543,500000 $cases | tail -n 3

if [ "$SANITIZE" = 1 ]; then
stage sanitize
small="balance/static:dist=tube balance/blocking:dist=tube,blocks=16"
small="$small balance/lockfree:dist=tube,blocks=16,lazy=2 balance/abp:dist=tube,blocks=16"
for tool in memcheck racecheck; do
  echo "### $tool" >> "$OUT/sanitize.txt"
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$GK" --mode check --n 100,5000 \
    $small >> "$OUT/sanitize.txt" 2>&1
  echo "$tool rc=$?"
done
grep "ERROR SUMMARY\|FAIL\|###" "$OUT/sanitize.txt" | sort | uniq -c | head -8
fi

stage grid
grid=""
for d in tube uniform; do
  grid="$grid balance/static:dist=$d"
  for b in blocking lockfree abp; do
    for k in $BLOCKS; do
      grid="$grid balance/$b:dist=$d,blocks=$k"
    done
  done
done
timeout "$GRID_SECONDS" "$GK" --mode time --reps 5 --csv "$OUT/time-grid.csv" --n 500000 $grid | tail -n 3

stage best
# Per particle set and balancer, the fastest configuration and its speed-up over the fastest
# static list. A row: launch,"case",kernel,"device",mode,seed,mismatches,median_us,...
awk -F'"' 'NR > 1 { split ($2, s, ":"); match ($2, /dist=[a-z]+/); split ($5, f, ",");
              key = s[1] " " substr ($2, RSTART + 5, RLENGTH - 5); t = f[5] + 0;
              if (f[4] == 0 && (!(key in best) || t < best[key])) { best[key] = t; cfg[key] = $2 } }
           END { for (k in best) { split (k, a, " "); st = best["balance/static " a[2]];
                 printf "%-30s %10.1f us  %-60s x%.2f over static\n", k, best[k], cfg[k],
                        st / best[k] } }' "$OUT/time-grid.csv" | sort | tee "$OUT/best.txt"
stage done
