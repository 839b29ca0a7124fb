#!/bin/bash
# session 11, call 3 (one thing at a time): s11-overhead (bench-vat-overhead 24 and bench-vat lru,
# main 0b721f3 before, merged main after), s11-simt4's prefetch A/B (merged main with and without
# df6b79a's PREFETCHW; gpu-quicksort and bitonic, 64K), the atomic probe's per-op histograms and
# volatile-load row (s11-balance), then the CPU cost model at 8 and 32 MiB (s11-cpu-model).
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* .gpu-carry/models 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/c3; mkdir -p $R
{ nproc; uptime; grep -m1 'model name' /proc/cpuinfo; } > $R/machine.txt 2>&1
for r in 1 2; do for b in before after; do
  echo "== round $r $b (t=${SECONDS}s, load $(cut -d' ' -f1-3 /proc/loadavg))"
  taskset -c 2,3 timeout 60 .gpu-carry/$b/bench-vat-overhead 24; done; done > $R/overhead.txt 2>&1
for r in 1 2; do for b in before after; do
  echo "== round $r $b (t=${SECONDS}s, load $(cut -d' ' -f1-3 /proc/loadavg))"
  taskset -c 2 timeout 30 .gpu-carry/$b/bench-vat 4194304 lru; done; done > $R/vat-lru.txt 2>&1
for r in 1 2; do for s in gpu-quicksort bitonic warpsort; do for b in nopf after; do
  [ $SECONDS -lt 250 ] || break 3
  echo "== round $r $b sort/$s (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
  timeout 40 taskset -c 0-6 .gpu-carry/$b/bench-simt sort/$s 65536 2 6; done; done; done > $R/simt4-ab.txt 2>&1
echo "simt done t=${SECONDS}s" >> $R/machine.txt
nvcc -O3 -arch=sm_90 -o /tmp/atomic-sm-latency tools/atomic-sm-latency.cu > $R/nvcc.txt 2>&1 &&
  timeout 40 /tmp/atomic-sm-latency hist > $R/sm-latency-hist.csv 2> $R/sm-latency-hist.txt &&
  timeout 30 /tmp/atomic-sm-latency > $R/sm-latency.csv 2> $R/sm-latency.txt
echo "probe done t=${SECONDS}s" >> $R/machine.txt
OUT=$R/cpu SIZES="8M 32M" REPS=5 LIMIT=$((540 - SECONDS)) MODELS=.gpu-carry/models bash tools/cpu-model-host.sh > $R/cpu-host.log 2>&1
echo "done t=${SECONDS}s" >> $R/machine.txt
cd $OUT && tar cJf c3.tar.xz c3 && rm -rf c3
