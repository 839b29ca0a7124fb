#!/bin/bash
# Every sort on one card in one call (issue 13's combined sweep, docs/experiments/sorting.md): the
# seeds' sorts at their default and best configurations beside CUB radix and merge sort, thrust::sort,
# the device copy and the CPU sorts, all on the same inputs, each timed case checked (sorted and a
# permutation of its input) on its first launch:
#   1. every default sort case of the harness (`gpu-kernels --list`: every configuration and
#      distribution) checked at the odd sizes $CHECK_SIZES;
#   2. the cases of $CASES (tools/sort-cases.txt) through tools/gpu-experiment.sh: timed at every
#      size of $SWEEP_SIZES, the seeds' sorts profiled with Nsight Compute at $PROFILE_SIZES;
#   3. by distribution: the configurations of $DIST_CASES at $DIST_SIZES on all eight
#      distributions, CUB radix sort beside them;
#   4. GPU-Quicksort (default configuration) checked on all eight distributions at $BIG;
#   5. the CPU sorts (libc qsort, the C introsort; one core) on uniform keys at $CPU_SIZES.
# Each stage keeps within its share of the time; the harness writes each finished case at once.
# The whole takes about 12 minutes on an H200 (the sweep alone 6: the 2^28 runs of warpsort and
# the merge sorts take 2 s each): on a machine that runs ten minutes a command, split it with
# STAGES (e.g. "check sweep", then "dist big cpu").
# Output in $OUT: log.txt and sorts.tgz (the experiment's directory, which `models experiment gpu
# --measured DIR --predictions FILE` joins with the SIMT twins' predictions, plus dist.csv, cpu.csv,
# check.txt, big.txt).
# Usage: GK=path/to/gpu-kernels METRICS=$(models measure --metrics | paste -sd,) OUT=$OUT \
#          bash tools/sorts-device.sh        (GK carried as .gpu-carry/gpu-kernels)
set -u
OUT=${OUT:-sorts-out}
WORK=${WORK:-/tmp/sorts-device}
GK=${GK:-.gpu-carry/gpu-kernels}
CASES=${CASES:-tools/sort-cases.txt}
CHECK_SIZES=${CHECK_SIZES:-1,2,17,1000,65543}
SWEEP_SIZES=${SWEEP_SIZES:-$(seq -s, -f '2^%g' 10 2 28)}
PROFILE_SIZES=${PROFILE_SIZES:-2^16,2^20}
DIST_SIZES=${DIST_SIZES:-2^20,2^24}
BIG=${BIG:-2^28}
CPU_SIZES=${CPU_SIZES:-$(seq -s, -f '2^%g' 10 2 20)}
REPS=${REPS:-5}
EXP_SECONDS=${EXP_SECONDS:-480}
STAGES=${STAGES:-"check sweep dist big cpu"}
DISTS="uniform gaussian zero sorted bucket staggered reverse few"
DIST_CASES=${DIST_CASES:-"sort/gpu-quicksort:threads=512,maxseq=8192,minsize=1024
sort/msimd-quicksort:P=4224,rule=spare,commit=buffered,base=256
sort/bitonic:layout=greedy,tile=32768,k=32,block=1024,regs=16,pad=1
sort/warpsort:b=128,l=0,sigma=0
sort/dway-merge:b=128,d=4,l=0,sigma=0
baseline/cub-sort:keys=u32"}

rm -rf "$WORK"
mkdir -p "$OUT" "$WORK"
exec > >(tee "$OUT/log.txt") 2>&1
stage () { echo "== $* (t=${SECONDS}s)"; }
want () { case " $STAGES " in *" $1 "*) return 0 ;; esac; return 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
lscpu | grep -E 'Model name|^CPU\(s\)' | head -2

if want check; then
stage "1. check every sort case at n = $CHECK_SIZES"
mapfile -t all < <("$GK" --list | grep -E '^(sort/|baseline/[a-z]+-sort:)')
timeout 60 "$GK" --mode check --n "$CHECK_SIZES" "${all[@]}" > "$WORK/check.txt"
echo "rc $?: $(grep '^# [0-9]* cases' "$WORK/check.txt")"
grep FAIL "$WORK/check.txt" | head
fi

if want sweep; then
stage "2. the sweep and the profiles"
mkdir -p "$WORK/exp"
OUT=$WORK/exp WORK=$WORK/exp-work CASES_FILE=$CASES SWEEP_SIZES=$SWEEP_SIZES \
  PROFILE_SIZES=$PROFILE_SIZES CHECK_SIZES=$CHECK_SIZES REPS=$REPS BUDGET=$EXP_SECONDS \
  bash "$(dirname "$0")/gpu-experiment.sh" | grep -E '^==|FAIL|profiled|failed|rc'
fi

if want dist; then
stage "3. by distribution at n = $DIST_SIZES"
dist=()
while read -r c; do
  for d in $DISTS; do dist+=("$c,dist=$d"); done
done <<< "$DIST_CASES"
timeout 100 "$GK" --mode time --reps "$REPS" --n "$DIST_SIZES" --csv "$WORK/dist.csv" \
  "${dist[@]}" > "$WORK/dist.txt"
echo "rc $?: $(grep '^# [0-9]* cases' "$WORK/dist.txt")"
fi

if want big; then
stage "4. GPU-Quicksort on every distribution at n = $BIG"
big=()
for d in $DISTS; do big+=("sort/gpu-quicksort:dist=$d"); done
# Time mode with one launch: each case's row (its check in `mismatches`) is written at once.
timeout 150 "$GK" --mode time --reps 1 --n "$BIG" --csv "$WORK/big.csv" "${big[@]}" \
  > "$WORK/big.txt"
echo "rc $?"; cut -d, -f2,7,8 "$WORK/big.csv"
fi

if want cpu; then
stage "5. the CPU sorts at n = $CPU_SIZES"
timeout 40 "$GK" --mode time --reps 3 --n "$CPU_SIZES" --csv "$WORK/cpu.csv" \
  baseline/qsort-sort:dist=uniform,keys=u32 baseline/introsort-sort:dist=uniform,keys=u32 \
  > "$WORK/cpu.txt"
echo "rc $?: $(grep '^# [0-9]* cases' "$WORK/cpu.txt")"
fi

stage pack
tar czf "$OUT/sorts.tgz" -C "$WORK" --exclude gpu-kernels --exclude '*.ncu-rep' --exclude exp-work --exclude gpu-raw.tar.gz .
ls -l "$OUT"
