#!/bin/bash
# session 10, call 1: nvcc check of the harness (balance-atomics-spread builds it), the spread run,
# s9-simt2's host rates (pre = 04211a6, main = 72494a6), bench-vat-overhead with the worker row.
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/pre/* .gpu-carry/main/*
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/c1; mkdir -p $R
{ nproc; uptime; nvidia-smi --query-gpu=name,driver_version --format=csv; } > $R/machine.txt 2>&1
# GPU side on cores 0-3: builds the harness with nvcc (the cuda-check.h check), then ncu runs
( taskset -c 0-3 env OUT=$R/spread WORK=/tmp/bas bash tools/balance-atomics-spread.sh > $R/spread.log 2>&1;
  echo "spread rc $?" >> $R/spread.log ) &
spread=$!
# CPU side on cores 6-15
start=$SECONDS
for p in 1 2; do for s in msimd-quicksort warpsort gpu-quicksort bitonic dway-merge; do for b in pre main; do
  [ $((SECONDS-start)) -lt 150 ] || break 3
  echo "== pass $p $b sort/$s load $(cut -d' ' -f1 /proc/loadavg)"
  taskset -c 6-15 .gpu-carry/$b/bench-simt sort/$s 65536 2 6
done; done; done > $R/simt2.txt 2>&1
for r in 1 2; do
  echo "== overhead round $r load $(cut -d' ' -f1 /proc/loadavg)"
  taskset -c 6-15 timeout 60 .gpu-carry/main/bench-vat-overhead 24
done > $R/overhead.txt 2>&1
# the CUDA tools through cuda-check.h
for t in atomic-chain launch-latency; do
  nvcc -O3 -arch=sm_90 -o /tmp/$t tools/$t.cu > $R/nvcc-$t.txt 2>&1; echo "rc $?" >> $R/nvcc-$t.txt
done
wait $spread
cd $OUT && tar cJf c1.tar.xz c1 && rm -rf c1
