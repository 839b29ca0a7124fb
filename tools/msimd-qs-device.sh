#!/bin/bash
# The device run of sort/msimd-quicksort (docs/models/sort-msimd-quicksort.md), one call on the
# GPU machine, results under $OUT: checks on every distribution (odd sizes up to 2^24; 2^26 in the
# timed sweep, whose first launch is checked), timings 2^10..2^26 per distribution, the
# processor/configuration sweep at 2^26 uniform, CUB radix sort on the same keys, compute-sanitizer
# memcheck and racecheck at small sizes, and Nsight Compute: every kernel's duration at 2^26 and
# memory counters of one commit and the independent stage at 2^20.
# The harness is built beforehand (no GLib there; the build is faster here); CUB is its
# baseline/cub-sort row:
#   (cd src/algos/cuda && nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o $GK *.cu)
# Usage: GK=... OUT=... bash tools/msimd-qs-device.sh   (about 6 minutes; the first run, with
# 60 s for the configurations, lost P = 8448, commit=direct and rule=literal at 2^26)
set -u
GK=${GK:?}
OUT=${OUT:-mqs-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
A=sort/msimd-quicksort
DISTS="uniform gaussian zero sorted bucket staggered reverse few"
stage () { echo "== $* (t=${SECONDS}s)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu --format=csv

stage check
cases=""
for d in $DISTS; do cases="$cases $A:dist=$d,P=1056"; done
timeout 60 "$GK" --mode check --n 1,31,32,33,1000,65543,2^20+5,2^24 $cases \
  "$A:P=1" "$A:P=16,base=32" "$A:P=16,commit=direct" "$A:P=132,rule=literal" | tail -n 3

stage sweep
timeout 70 "$GK" --mode time --reps 5 --csv "$OUT/time-dists.csv" \
  --n 2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26 $cases | grep -v "^ *$" | tail -n 3

stage configurations at 2^26 uniform
cfg=""
for p in 132 264 528 1056 2112 4224 8448; do for b in 256 1024; do cfg="$cfg $A:P=$p,base=$b"; done; done
timeout 200 "$GK" --mode time --reps 5 --csv "$OUT/time-config.csv" --n 2^26 $cfg \
  "$A:P=1056,commit=direct" "$A:P=1056,rule=literal" | tail -n 2

stage cub
cub=""
for d in $DISTS; do cub="$cub baseline/cub-sort:dist=$d"; done
timeout 60 "$GK" --mode time --reps 5 --csv "$OUT/cub.csv" --n 2^20,2^26 $cub | tail -n 3
timeout 20 "$GK" --mode time --reps 5 --csv "$OUT/cub-2e28.csv" --n 2^28 baseline/cub-sort | tail -n 2

stage sanitize
for tool in memcheck racecheck; do
  echo "### $tool" >> "$OUT/sanitize.txt"
  timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 "$GK" --mode check --n 1,100,5000 \
    "$A:P=16,base=32" "$A:P=16,commit=direct,base=32" "$A:P=7,rule=literal" "$A:dist=few,P=64" \
    >> "$OUT/sanitize.txt" 2>&1
  echo "$tool rc=$?"
done
grep "ERROR SUMMARY\|failed\|###" "$OUT/sanitize.txt" | sort | uniq -c | head -8

stage ncu
timeout 45 ncu --clock-control none --csv --metrics gpu__time_duration.sum -k regex:msimd_qs \
  "$GK" --mode profile --n 2^26 "$A:P=1056" > "$OUT/ncu-durations.csv"
echo "durations rc=$?"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
M=$M,sm__warps_active.avg.pct_of_peak_sustained_active
for k in msimd_qs_collect msimd_qs_commit msimd_qs_independent; do
  timeout 30 ncu --clock-control none --csv --metrics $M -k regex:$k --launch-count 1 \
    "$GK" --mode profile --n 2^20 "$A:P=1056"
done > "$OUT/ncu-2e20.csv"
echo "counters rc=$?"
stage done
