#!/bin/bash
# session 12, call 1 (an H200 machine; main 06a863b built on the dev VM and carried):
# 1. issue 13's row: the five SIMT sorts at 64K keys through all six GPU engines on 6 threads,
#    three passes, pinned to cores 0-6 (bench-simt sort/NAME 65536 2 6);
# 2. issue 15: the per-SM latency table of this card (tools/atomic-sm-latency.cu, its per-op
#    histograms too), then the lock-free queue's sites counted without ncu (tools/balance-sites.sh,
#    5 runs each of tube and uniform, n = 500,000, 132 blocks): the model is then run on the dev
#    VM with this card's table, fitted to nothing, against these counts.
cd "$(dirname "$0")/../../../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/c1; mkdir -p $R
{ nproc; uptime; grep -m1 'model name' /proc/cpuinfo; lscpu | grep -E 'Thread|Core|Socket|MHz|NUMA node'
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv; } > $R/machine.txt 2>&1
for p in 1 2 3; do for s in bitonic warpsort dway-merge gpu-quicksort msimd-quicksort; do
  [ $SECONDS -lt 200 ] || break 2
  echo "== pass $p sort/$s (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
  timeout 40 taskset -c 0-6 .gpu-carry/main/bench-simt sort/$s 65536 2 6; done; done > $R/simt-64k.txt 2>&1
echo "simt done t=${SECONDS}s" >> $R/machine.txt
nvcc -O3 -arch=sm_90 -o /tmp/atomic-sm-latency tools/atomic-sm-latency.cu > $R/nvcc.txt 2>&1 &&
  timeout 40 /tmp/atomic-sm-latency hist > $R/sm-latency-hist.csv 2> $R/sm-latency-hist.txt &&
  timeout 30 /tmp/atomic-sm-latency > $R/sm-latency.csv 2> $R/sm-latency.txt
echo "probe done t=${SECONDS}s" >> $R/machine.txt
OUT=$R/sites RUNS=5 timeout $((560 - SECONDS)) bash tools/balance-sites.sh > /dev/null 2>&1
echo "sites done t=${SECONDS}s rc $?" >> $R/machine.txt
cd $OUT && tar cJf c1.tar.xz c1 && rm -rf c1
