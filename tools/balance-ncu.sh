#!/bin/bash
# Nsight Compute's counters of the balancers' CUDA twins on the cases where the model and the H100
# part (docs/experiments/load-balancing.md, "The H100 against the model"): n = 500,000, tube and
# uniform, the static list, ABP at 8, 132 and 264 blocks, lock-free at 132, blocking at 66, one
# launch each (gpu-kernels --mode profile), every kernel of it profiled. Writes under $OUT:
# profile-cases.csv (which launches are whose), ncu.csv (raw page, one row per kernel) and
# ncu-run.txt; tools/balance-compare.py ncu $OUT then sets them beside the model.
# The harness is the carried .gpu-carry/gpu-kernels when there is one, else built here
# (tools/gpu-tools.sh, a minute or two). Usage: OUT=... bash tools/balance-ncu.sh
SCRIPT=balance-ncu
# shellcheck source=tools/balance-prologue.sh
. "$(dirname "$0")/balance-prologue.sh"

# Time, warp instructions and global requests by op (what the model counts), and what says
# whether a kernel waits on memory: achieved occupancy, the long-scoreboard and membar (fence)
# stalls per issued instruction, the issue slots used.
METRICS=gpu__time_duration.sum,smsp__inst_executed.sum
for op in ld st atom red; do
  METRICS=$METRICS,l1tex__t_requests_pipe_lsu_mem_global_op_$op.sum
done
METRICS=$METRICS,sm__warps_active.avg.pct_of_peak_sustained_active
METRICS=$METRICS,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
METRICS=$METRICS,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio
METRICS=$METRICS,smsp__issue_active.avg.pct_of_peak_sustained_active

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
build_harness || exit 1
ncu_metrics
cases=()
for d in tube uniform; do
  cases+=("balance/static:dist=$d" "balance/lockfree:dist=$d,blocks=132"
          "balance/blocking:dist=$d,blocks=66")
  for b in 8 132 264; do
    cases+=("balance/abp:dist=$d,blocks=$b")
  done
done
timeout 360 "$NCU" --clock-control none --metrics "$METRIC_LIST" -f -o "$WORK/profile" \
  "$WORK/gpu-kernels" --mode profile --n 500000 --csv "$OUT/profile-cases.csv" "${cases[@]}" \
  > "$OUT/ncu-run.txt" 2>&1
echo "ncu rc=$? (t=${SECONDS}s)"
tail -3 "$OUT/ncu-run.txt"
"$NCU" -i "$WORK/profile.ncu-rep" --csv --page raw --print-units base > "$OUT/ncu.csv"
echo "kernels profiled: $(grep -c '^"[0-9]' "$OUT/ncu.csv")"
