#!/bin/sh
# Issue 18's two rows on the lent 16-core host, main's build against a branch's, alternated: the
# 256-configuration sweep at 1, 4 and 16 threads (tools/sweep-speedup.sh, each thread count's
# timeline kept for tools/sweep-schedule.py) and instrumented scan/random + vat against native
# (bench-vat-overhead). About 200 s on the H100 host.
# Layout (carried, not committed): .gpu-carry/before/ and .gpu-carry/after/ each hold `models` and
# `bench-vat-overhead`; .gpu-carry/lib/ the shared libraries they need (docs/contributing.md).
# Usage: OUT=DIR tools/sweep-device.sh     (N, THREADS as for sweep-speedup.sh, LOG2_N=24; writes DIR/sweep-speedup.txt, DIR/overhead.txt and
#        DIR/times/BUILD-ROUND/tT.json)
set -eu
out=${OUT:?set OUT to the output folder}
carry=${CARRY:-.gpu-carry}
export LD_LIBRARY_PATH="$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
mkdir -p "$out"
for round in 1 2; do
  for build in before after; do
    echo "== $build, round $round"
    THREADS=${THREADS:-1 4 16} TIMES="$out/times/$build-$round" \
      tools/sweep-speedup.sh "$carry/$build/models"
  done
done > "$out/sweep-speedup.txt" 2>&1
for round in 1 2; do
  for build in before after; do
    echo "== $build, round $round, load $(cut -d' ' -f1-3 /proc/loadavg)"
    "$carry/$build/bench-vat-overhead" "${LOG2_N:-24}" || true   # exits 1 above 10x; the numbers still count
  done
done > "$out/overhead.txt" 2>&1
