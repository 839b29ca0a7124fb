#!/bin/bash
# How far the lock-free queue's CAS counts on the H100 move from run to run, and whether ncu's
# per-instruction counts (collected by patching the SASS) move them
# (docs/experiments/load-balancing.md, "The H100's queue CASes, site by site"). For tube and
# uniform, n = 500,000, 132 blocks, the persistent launch of the lock-free queue:
#   counters-DIST.csv   RUNS runs of the hardware counters alone (global atomic requests, warp
#                       instructions, time): no patching, the run-to-run spread;
#   source-DIST-K.csv   RUNS runs of the source page, each split by site with
#                       tools/balance-cas-sites.py into sites-DIST.txt: the spread of the
#                       per-site failures a task under patching.
# The harness is the carried .gpu-carry/gpu-kernels when there is one, else built here
# (tools/gpu-tools.sh, about 190 s). About 80 s with the carried harness, at most 420.
# Usage: OUT=... [RUNS=3] bash tools/balance-atomics-spread.sh
SCRIPT=balance-atomics-spread
RUNS=${RUNS:-3}
# shellcheck source=tools/balance-prologue.sh
. "$(dirname "$0")/balance-prologue.sh"

nvidia-smi --query-gpu=name,driver_version --format=csv
build_harness || exit 1

# The second lockfree_kernel launch is the persistent one (the first splits the root).
profile () {
  timeout 60 "$NCU" --clock-control none -k regex:lockfree_kernel --launch-skip 1 --launch-count 1 \
    "$@" "$WORK/gpu-kernels" --mode profile --n 500000 "balance/lockfree:dist=$d,blocks=132"
}

COUNTERS=l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,smsp__inst_executed.sum
COUNTERS=$COUNTERS,gpu__time_duration.sum
for d in tube uniform; do
  : > "$OUT/counters-$d.csv"
  for k in $(seq "$RUNS"); do
    profile --metrics "$COUNTERS" --csv >> "$OUT/counters-$d.csv" 2> "$WORK/err.txt" \
      || cat "$WORK/err.txt"
  done
  echo "counters $d done (t=${SECONDS}s)"
  for k in $(seq "$RUNS"); do
    profile --section SourceCounters -f -o "$WORK/source-$d-$k" > "$WORK/ncu-$d-$k.txt" 2>&1 \
      || cat "$WORK/ncu-$d-$k.txt"
    "$NCU" -i "$WORK/source-$d-$k.ncu-rep" --page source --csv --print-source sass \
      > "$OUT/source-$d-$k.csv"
  done
  python3 tools/balance-cas-sites.py "$OUT"/source-"$d"-*.csv > "$OUT/sites-$d.txt"
  echo "source $d done (t=${SECONDS}s)"
done
grep -h -E 'op_atom|dequeue|enqueue' "$OUT"/counters-*.csv "$OUT"/sites-*.txt
