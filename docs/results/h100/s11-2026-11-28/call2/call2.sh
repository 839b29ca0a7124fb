#!/bin/bash
# session 11, call 2: s11-simt4 (batch lines prefetched for writing, pipeline fields on their own
# lines, the stage lines) on the host: main at 0b721f3 before, merged main (375c402) after,
# alternated, two passes, each run pinned to cores 0-6 (producer and six workers).
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/c2; mkdir -p $R
{ nproc; uptime; grep -m1 'model name' /proc/cpuinfo; } > $R/machine.txt 2>&1
for p in 1 2; do for s in bitonic warpsort dway-merge gpu-quicksort msimd-quicksort; do
  for b in before after; do [ $SECONDS -lt 200 ] || break 3
    echo "== pass $p $b sort/$s (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
    timeout 60 taskset -c 0-6 .gpu-carry/$b/bench-simt sort/$s 65536 2 6
  done; done; done > $R/simt4-64k.txt 2>&1
for s in warpsort gpu-quicksort; do for b in before after; do [ $SECONDS -lt 300 ] || break 2
    echo "== $b sort/$s 256K (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
    timeout 60 taskset -c 0-6 .gpu-carry/$b/bench-simt sort/$s 262144 3 6
  done; done > $R/simt4-256k.txt 2>&1
echo "done t=${SECONDS}s" >> $R/machine.txt
cd $OUT && tar cJf c2.tar.xz c2 && rm -rf c2
