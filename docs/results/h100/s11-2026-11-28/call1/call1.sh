#!/bin/bash
# session 11, call 1 (carried as .gpu-carry/tools/call1.sh): s11-vatmin (min/ismin fast runs) and
# s11-trace-cache (count and the reader's check in vector lanes) on the host: main at 0b721f3
# before, merged main after, alternated, each run pinned to core 2, one bench at a time.
# Its first run had only GLib and PCRE2 in .gpu-carry/lib, so the cache rows failed to load
# (bench-cache and bench-trace also need GIO and the rest); they ran again at once with the
# libraries and the vat rows skipped (R=$OUT/c1b): cache-rows.txt is that second run's log.
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/c1; mkdir -p $R
{ nproc; uptime; grep -m1 'model name' /proc/cpuinfo; } > $R/machine.txt 2>&1
for i in 1 2 3; do for b in before after; do
  echo "== $b $i (t=${SECONDS}s, load $(cut -d' ' -f1 /proc/loadavg))"
  timeout 80 taskset -c 2 .gpu-carry/$b/bench-vat 4194304 min ismin; done; done > $R/vatmin-rows.txt 2>&1
BEFORE=.gpu-carry/before AFTER=.gpu-carry/after OUT=$R/cache-rows ROUNDS=3 bash tools/cache-rows-device.sh > /dev/null 2>&1
echo "done t=${SECONDS}s" >> $R/machine.txt
cd $OUT && tar cJf c1.tar.xz c1 && rm -rf c1
