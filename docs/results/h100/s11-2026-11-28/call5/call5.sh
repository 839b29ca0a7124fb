#!/bin/bash
# session 11, call 5: the final build's SIMT sorts at 64K keys on 6 threads (issue 13's row),
# three passes, each run pinned to cores 0-6; then the overhead row, main 0b721f3 before and the
# final build after, three rounds alternated on cores 2-3 (issue 18's row).
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/c5; mkdir -p $R
{ nproc; uptime; grep -m1 'model name' /proc/cpuinfo; } > $R/machine.txt 2>&1
for p in 1 2 3; do for s in bitonic warpsort dway-merge gpu-quicksort msimd-quicksort; do
  [ $SECONDS -lt 200 ] || break 2
  echo "== pass $p sort/$s (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
  timeout 40 taskset -c 0-6 .gpu-carry/after/bench-simt sort/$s 65536 2 6; done; done > $R/simt-64k.txt 2>&1
for r in 1 2 3; do for b in before after; do [ $SECONDS -lt 330 ] || break 2
  echo "== round $r $b (t=${SECONDS}s, load $(cut -d' ' -f1-3 /proc/loadavg))"
  taskset -c 2,3 timeout 40 .gpu-carry/$b/bench-vat-overhead 24; done; done > $R/overhead.txt 2>&1
echo "done t=${SECONDS}s" >> $R/machine.txt
cd $OUT && tar cJf c5.tar.xz c5 && rm -rf c5
