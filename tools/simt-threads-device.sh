#!/bin/bash
# Issue 13's rate on a host with cores to spare (docs/models/gpu.md, "Speed"): each sort's SIMT
# twin through the six GPU engines, two builds alternated, results under $OUT. No GPU is used;
# the 16 cores of the GPU machine are the point. Stages, each under its own `timeout`:
#   rows   bench-simt sort/NAME 65536 2 6 for the five sorts, BEFORE then AFTER per sort: the
#          layer into a dropping sink, each engine alone (its worker's share), all six serial by
#          CPU time, then serial against 6 workers by the wall clock, with the producer's rate;
#   queue  AFTER's threaded line for warpsort and bitonic with queues of 16 x 512 KiB (the
#          default, 8 MiB, larger than a core's L2), 16 x 128, 16 x 64 and 8 x 64 KiB,
#          twice (on the development VM with one worker the producer kept 0.65x of the layer's
#          rate with the default and 0.76-1.36x with rings of 0.5 to 2 MiB, under heavy load);
#   large  models run sort/NAME --n 1M through the six engines with --threads 6, BEFORE and AFTER
#          alternated (the events and seconds of each run: the wall-clock rate at 2^20 keys).
# About 2 to 4 minutes on the H100 host's Xeon (bench-simt took 4.5 s of CPU for bitonic and 16 s
# for gpu-quicksort on the development VM); every run's timeout is cut to what is left of LIMIT
# seconds (280 by default), so the call ends within it, the later stages shortened or skipped.
# BEFORE and AFTER are folders holding bench-simt and models; LIBS the folder of their shared
# libraries (GLib and the rest, as docs/contributing.md "Measuring on the GPU machine" copies).
# Usage: BEFORE=.gpu-carry/before AFTER=.gpu-carry/after OUT=... bash tools/simt-threads-device.sh
set -u
BEFORE=${BEFORE:?}
AFTER=${AFTER:?}
OUT=${OUT:-simt-threads-out}
export LD_LIBRARY_PATH=${LIBS:-.gpu-carry/lib}
SORTS="bitonic warpsort dway-merge gpu-quicksort msimd-quicksort"
SIX="-e coalesce:machine=h100 -e banks:machine=h100 -e divergence:machine=h100 -e agpu -e kmodel -e msimd"
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
LIMIT=${LIMIT:-280}
stage () { echo "== $* (t=${SECONDS}s, load $(cut -d' ' -f1-3 /proc/loadavg))"; }
# Runs "$@" under a timeout of at most $1 seconds and what is left of LIMIT; skipped with less
# than 3 s left.
within () {
  local cap=$1 left=$((LIMIT - SECONDS))
  shift
  [ "$left" -lt "$cap" ] && cap=$left
  if [ "$cap" -lt 3 ]; then echo "skipped (time): $*" >&2; return 1; fi
  timeout "$cap" "$@"
}
nproc
lscpu | grep -E 'Model name|^CPU\(s\)|L2|L3'

stage rows
for s in $SORTS; do
  for b in "$BEFORE" "$AFTER"; do
    echo "## $b sort/$s"
    within 50 "$b/bench-simt" "sort/$s" 65536 2 6 | tee -a "$OUT/rows-$(basename "$b").txt"
  done
done

stage queue
for pass in 1 2; do
  for s in warpsort bitonic; do
    for q in "16 512" "16 128" "16 64" "8 64"; do
      within 15 "$AFTER/bench-simt" "sort/$s" 65536 1 6 $q | grep -E "dropping|queue|wall clock"
    done
  done
done

stage large
for s in $SORTS; do
  for b in "$BEFORE" "$AFTER"; do
    r=$(within 15 "$b/models" run "sort/$s" --n 1M $SIX --threads 6 --format json | head -1 \
        | grep -o '"events.*')
    echo "$b sort/$s --n 1M --threads 6: $r"
  done
done
stage done
