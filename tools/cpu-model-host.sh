#!/usr/bin/env bash
# The CPU cost model (docs/experiments/cpu-model.md) timed on a quiet machine: the lent GPU
# machine's host, whose 16 cores nobody else loads, from a carried `models` build (the
# .gpu-carry folder of docs/contributing.md: the binary and its libraries). One call:
#
#   OUT=$OUT bash tools/cpu-model-host.sh
#
# writes under $OUT: machine.txt (CPU, load, the host preset as `models list machines` reads it)
# and per bound cpu-model-SIZE/ (vat.txt, vat.json, vat-models.csv, ... of `models experiment
# vat`) and run-SIZE.log.
# Each bound of SIZES runs its own experiment pinned to its own core (taskset), so a larger one
# that does not finish leaves the smaller one's results: `models experiment vat` cannot be
# interrupted with results, and LIMIT (seconds, default 235) is a hard stop. They share the
# socket's L3 and memory bandwidth, nothing else; the other cores stay idle. Defaults: 8M, 16M and
# 32M, growth 2 (the experiment estimates 2, 3 and 4 minutes of CPU time on the
# development VM; 256M, 22 minutes, does not fit a call).
set -u
OUT=${OUT:-cpu-out}
MODELS=${MODELS:-.gpu-carry/models}
SIZES=${SIZES:-8M 16M 32M}
GROWTH=${GROWTH:-2}
LIMIT=${LIMIT:-235}
export LD_LIBRARY_PATH=.gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUT"
[ -x "$MODELS" ] || { echo "cpu-model-host: no models build at $MODELS (carry .gpu-carry)"; exit 2; }
{
  nproc
  uptime
  lscpu 2>/dev/null | head -25
  "$MODELS" list machines | grep -A14 "^  host "
} > "$OUT/machine.txt" 2>&1
core=${FIRST_CORE:-2}
for size in $SIZES; do
  (
    start=$(date +%s)
    timeout "$LIMIT" taskset -c "$core" "$MODELS" experiment vat --max-bytes "$size" \
      --growth "$GROWTH" --no-huge -o "$OUT/cpu-model-$size" > "$OUT/run-$size.log" 2>&1
    echo "exit $? after $(( $(date +%s) - start )) s" >> "$OUT/run-$size.log"
  ) &
  core=$((core + 4))
done
wait
tail -n 1 "$OUT"/run-*.log
