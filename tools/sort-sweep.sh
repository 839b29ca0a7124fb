#!/bin/bash
# The sorts' baselines on the GPU machine (docs/experiments/sorting.md), in one call: builds the
# CUDA harness (or takes $GK, a build made elsewhere with the same nvcc), checks every sort at every
# distribution and key type at the odd sizes $CHECK_SIZES, then times, each case checked (sorted
# and a permutation of its input) on its first run:
#   1. the GPU sorts ($GPU_SORTS) at $GPU_SIZES for the key sets of $FULL, and baseline/memcpy
#      (the copy bandwidth) at the same sizes;
#   2. the GPU sorts at $ALL_SIZES for every distribution and key type that stage 1 left out;
#   3. the CPU sorts ($CPU_SORTS, one core of the host) at $CPU_SIZES for $CPU_FULL, then at
#      $ALL_SIZES for the other distributions (u32 and f32 at the first size of $ALL_SIZES, u32 at
#      the others: a qsort of 2^24 keys takes seconds), $CPU_REPS timed runs each.
# Stages run one after the other, never at once: a CPU sort timed beside the harness's host
# threads would measure them too. Each stage keeps within what is left of $BUDGET seconds;
# the harness writes each finished case at once, so a stage cut short keeps its rows.
# Output in $OUT: timings.csv (all stages, the harness's columns) and log.txt.
# Usage: OUT=$OUT [GK=path/to/gpu-kernels] bash tools/sort-sweep.sh
# Reading it: models experiment gpu --measured $OUT (on a machine with GLib).
set -u
OUT=${OUT:-sort-out}
WORK=${WORK:-/tmp/sort-sweep}
ARCH=${ARCH:-sm_90}
BUDGET=${BUDGET:-320}
REPS=${REPS:-11}
CPU_REPS=${CPU_REPS:-3}
GPU_SORTS=${GPU_SORTS:-"cub-sort cubmerge-sort thrust-sort"}
CPU_SORTS=${CPU_SORTS:-"qsort-sort introsort-sort"}
GPU_SIZES=${GPU_SIZES:-$(seq -s' ' 10 2 28)}
CPU_SIZES=${CPU_SIZES:-$(seq -s' ' 10 2 24)}
ALL_SIZES=${ALL_SIZES:-"20 24"}
FULL=${FULL:-"uniform:u32 uniform:f32 sorted:u32 zero:u32"}
CPU_FULL=${CPU_FULL:-"uniform:u32 uniform:f32 sorted:u32"}
CHECK_SIZES=${CHECK_SIZES:-1,2,17,1000,65543}
# STAGES: which of check, gpu, cpu to run; CPU_EXTRA: more CPU cases (specs), appended to stage 3.
STAGES=${STAGES:-"check gpu cpu"}
CPU_EXTRA=${CPU_EXTRA:-}
DISTS="uniform gaussian zero sorted bucket staggered reverse few"
deadline=$((SECONDS + BUDGET))
left () { local s=$((deadline - SECONDS)); echo $((s > 1 ? s : 1)); }

rm -rf "$WORK"
mkdir -p "$OUT" "$WORK"
exec > >(tee "$OUT/log.txt") 2>&1
echo "== machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
lscpu | grep -E 'Model name|^CPU\(s\)|MHz' | head -4
GK=${GK:-}
if [ -z "$GK" ]; then
  echo "== build"
  nvcc -O3 -arch="$ARCH" -lineinfo -o "$WORK/gpu-kernels" src/algos/cuda/*.cu || exit 1
  GK=$WORK/gpu-kernels
fi

# case NAME DIST KEYS EXP: one spec.
spec () { echo "baseline/$1:n=$((1 << $4)),dist=$2,keys=$3"; }
in_set () { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# Stage 1 and 2: the GPU sorts.
gpu=()
for s in $GPU_SORTS; do
  for dk in $FULL; do
    for e in $GPU_SIZES; do gpu+=("$(spec "$s" "${dk%:*}" "${dk#*:}" "$e")"); done
  done
done
for e in $GPU_SIZES; do gpu+=("baseline/memcpy:n=$((1 << e))"); done
for s in $GPU_SORTS; do
  for e in $ALL_SIZES; do
    for d in $DISTS; do
      for k in u32 f32; do
        in_set "$d:$k" "$FULL" && in_set "$e" "$GPU_SIZES" && continue
        gpu+=("$(spec "$s" "$d" "$k" "$e")")
      done
    done
  done
done
# Stage 3: the CPU sorts.
cpu=()
for s in $CPU_SORTS; do
  for dk in $CPU_FULL; do
    for e in $CPU_SIZES; do cpu+=("$(spec "$s" "${dk%:*}" "${dk#*:}" "$e")"); done
  done
  first=1
  for e in $ALL_SIZES; do
    for d in $DISTS; do
      for k in u32 f32; do
        [ "$k" = f32 ] && [ $first = 0 ] && continue
        in_set "$d:$k" "$CPU_FULL" && in_set "$e" "$CPU_SIZES" && continue
        cpu+=("$(spec "$s" "$d" "$k" "$e")")
      done
    done
    first=0
  done
done
for c in $CPU_EXTRA; do cpu+=("$c"); done
in_set gpu "$STAGES" || gpu=()
in_set cpu "$STAGES" || cpu=()
echo "${#gpu[@]} GPU cases, ${#cpu[@]} CPU cases"

check_rc=0 gpu_rc=0 cpu_rc=0
touch "$WORK/check.txt" "$WORK/gpu.txt"
if in_set check "$STAGES"; then
  echo "== check at n = $CHECK_SIZES (t=${SECONDS}s)"
  mapfile -t all < <("$GK" --list | grep -E '^baseline/[a-z]+-sort:')
  timeout "$(left)" "$GK" --mode check --n "$CHECK_SIZES" "${all[@]}" > "$WORK/check.txt"
  check_rc=$?
  grep -E "FAIL|^#" "$WORK/check.txt"
fi
if [ ${#gpu[@]} -gt 0 ]; then
  echo "== GPU sorts and memcpy (t=${SECONDS}s)"
  timeout "$(left)" "$GK" --mode time --reps "$REPS" --csv "$WORK/gpu.csv" "${gpu[@]}" \
    > "$WORK/gpu.txt"
  gpu_rc=$?
  grep -E "FAIL|^#" "$WORK/gpu.txt"
fi
if [ ${#cpu[@]} -gt 0 ]; then
  echo "== CPU sorts (t=${SECONDS}s)"
  timeout "$(left)" "$GK" --mode time --reps "$CPU_REPS" --csv "$WORK/cpu.csv" "${cpu[@]}" \
    > "$WORK/cpu.txt"
  cpu_rc=$?
  grep -E "FAIL|^#" "$WORK/cpu.txt"
fi

# One header, then every stage's rows.
cat "$WORK/gpu.csv" "$WORK/cpu.csv" 2>/dev/null | awk 'NR == 1 || !/^launch,/' > "$OUT/timings.csv"
grep -E 'cub-sort:n=268435456,dist=uniform|memcpy:n=268435456' "$WORK/gpu.txt"
cp "$WORK/check.txt" "$OUT/check.txt"
echo "== done (t=${SECONDS}s): $(($(wc -l < "$OUT/timings.csv") - 1)) rows;" \
  "check rc $check_rc, GPU rc $gpu_rc, CPU rc $cpu_rc"
[ "$check_rc" -eq 0 ] && [ "$gpu_rc" -eq 0 ] && [ "$cpu_rc" -eq 0 ]
