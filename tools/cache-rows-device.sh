#!/bin/bash
# Issue 18's cache rows on the GPU machine's host (docs/engines.md, "Speed targets"): the cache
# engine from memory against the naive move-to-front lists, its replay of the binary trace, and
# the binary trace's read+count against plain read+sum, two builds alternated, each run pinned to
# one core. No GPU is used. ROUNDS rounds (3 by default) of, for BEFORE then AFTER:
#   bench-cache synthetic   the cache rows on the synthetic trace (what a host without valgrind
#                           measures; a few seconds);
#   bench-trace read        the read rows on 64 M records (1 GiB in /dev/shm; about 10 s).
# About 60 to 120 s in all; each run under its own timeout. The last lines of log.txt give each
# run's engine / naive and read+count / plain ratios (by CPU time).
# BEFORE and AFTER are folders holding bench-cache and bench-trace; LIBS the folder of their shared
# libraries (GLib and the rest, as docs/contributing.md "Measuring on the GPU machine" copies).
# Usage: BEFORE=.gpu-carry/before AFTER=.gpu-carry/after OUT=... bash tools/cache-rows-device.sh
set -u
BEFORE=${BEFORE:?}
AFTER=${AFTER:?}
OUT=${OUT:-cache-rows-out}
ROUNDS=${ROUNDS:-3}
CORE=${CORE:-2}
export LD_LIBRARY_PATH=${LIBS:-.gpu-carry/lib}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for round in $(seq "$ROUNDS"); do
  for build in "$BEFORE" "$AFTER"; do
    echo "== $build round $round bench-cache synthetic (load $(cut -d' ' -f1-3 /proc/loadavg))"
    timeout 60 taskset -c "$CORE" "$build/bench-cache" synthetic
    echo "== $build round $round bench-trace read (load $(cut -d' ' -f1-3 /proc/loadavg))"
    timeout 90 taskset -c "$CORE" "$build/bench-trace" read
  done
done
echo "== summary: build round | cache engine / naive, replay M refs/s | read+count / plain (cpu)"
awk 'function rate (  i) { for (i = 1; i < NF; i++) if ($(i + 1) == "M") return $i }
     /^== .* bench-cache/ { run = $2 " " $4 }
     /cache engine, from memory/ { mem = rate() }
     /replaying the binary trace/ { rep = rate() }
     /naive move-to-front lists/ { printf "%s | %.2f, %s", run, mem / rate(), rep }
     /by CPU time/ { sub (/^\(/, "", $7); printf " | %s\n", $7 }' "$OUT/log.txt"
