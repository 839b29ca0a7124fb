#!/bin/bash
# session 12, call 2 (a fresh H200 machine): issue 13's row again with session 12's final build
# (bench-simt built from a280daa on the dev VM and carried): the five SIMT sorts at 64K keys
# through all six GPU engines on 6 threads, four passes, pinned to cores 0-6, to see how often a
# host's run falls below 20 M/s.
cd "$(dirname "$0")/../../../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/c2; mkdir -p $R
{ nproc; uptime; grep -m1 'model name' /proc/cpuinfo; } > $R/machine.txt 2>&1
for p in 1 2 3 4; do for s in bitonic warpsort dway-merge gpu-quicksort msimd-quicksort; do
  [ $SECONDS -lt 200 ] || break 2
  echo "== pass $p sort/$s (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
  timeout 40 taskset -c 0-6 .gpu-carry/main/bench-simt sort/$s 65536 2 6; done; done > $R/simt-64k.txt 2>&1
echo "done t=${SECONDS}s" >> $R/machine.txt
cd $OUT && tar cJf c2.tar.xz c2 && rm -rf c2
