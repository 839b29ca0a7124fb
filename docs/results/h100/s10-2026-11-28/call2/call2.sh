#!/bin/bash
# session 10, call 2: the helpers' before/after rows, one after the other on a quiet host.
# before/ = main at 72494a6; gpueng/, curves/, vatmin/, overhead/ = the branches' builds.
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
C=.gpu-carry; R=$OUT/c2; mkdir -p $R
{ nproc; uptime; lscpu | grep -E "Model name|MHz"; } > $R/machine.txt 2>&1
for r in 1 2 3; do for b in before gpueng; do echo "== $b round $r load $(cut -d' ' -f1 /proc/loadavg)"
  taskset -c 3 $C/$b/bench-gpu-engines 40; done; done > $R/gpu-engines.txt 2>&1
for r in 1 2 3; do for b in before curves; do echo "== $b round $r load $(cut -d' ' -f1 /proc/loadavg)"
  taskset -c 2 $C/$b/bench-vat 4194304 "min curve*" "ismin curve*"; done; done > $R/curves.txt 2>&1
for r in 1 2 3; do for b in before vatmin; do echo "== $b round $r load $(cut -d' ' -f1 /proc/loadavg)"
  taskset -c 2 $C/$b/bench-vat 4194304 min ismin; done; done > $R/vatmin.txt 2>&1
taskset -c 2 $C/vatmin/bench-nextuse 4194304 3 > $R/nextuse.txt 2>&1
for r in 1 2; do for b in before overhead; do echo "== $b round $r load $(cut -d' ' -f1 /proc/loadavg)"
  taskset -c 2,3 timeout 60 $C/$b/bench-vat-overhead 24; done; done > $R/overhead.txt 2>&1
cd $OUT && tar cJf c2.tar.xz c2 && rm -rf c2
