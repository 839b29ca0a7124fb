#!/bin/bash
# session 10, call 4: s10-simt3's producer on the host, main (72494a6) before, the branch after,
# alternated: 64K keys as the bench runs them (two passes), then 256K keys (one pass, steadier).
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/c3; mkdir -p $R
{ nproc; uptime; } > $R/machine.txt 2>&1
for p in 1 2; do for s in bitonic warpsort dway-merge gpu-quicksort msimd-quicksort; do
  for b in before after; do
    echo "== pass $p $b sort/$s (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
    timeout 60 .gpu-carry/$b/bench-simt sort/$s 65536 2 6; done; done; done > $R/simt3-64k.txt 2>&1
for s in bitonic warpsort dway-merge gpu-quicksort msimd-quicksort; do
  for b in before after; do
    [ $SECONDS -lt 420 ] || break 2
    echo "== $b sort/$s (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
    timeout 60 .gpu-carry/$b/bench-simt sort/$s 262144 3 6; done; done > $R/simt3-256k.txt 2>&1
cd $OUT && tar cJf c3.tar.xz c3 && rm -rf c3
