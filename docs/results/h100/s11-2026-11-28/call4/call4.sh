#!/bin/bash
# session 11, call 4: the lock-free queue's sites counted unpatched (tools/balance-sites.sh, s11-
# balance: the dequeue's and the enqueue's CAS failures without ncu's SASS patching, and the SASS
# of lockfree_kernel), then the CPU cost model at 256 MiB with what time is left (merged main).
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/models 2>/dev/null
R=$OUT/c4; mkdir -p $R
{ nproc; uptime; grep -m1 'model name' /proc/cpuinfo; } > $R/machine.txt 2>&1
OUT=$R/sites RUNS=5 timeout 330 bash tools/balance-sites.sh > /dev/null 2>&1
echo "sites done t=${SECONDS}s rc $?" >> $R/machine.txt
OUT=$R/cpu256 SIZES=256M REPS_LARGE=1 LIMIT=$((555 - SECONDS)) MODELS=.gpu-carry/models bash tools/cpu-model-host.sh > $R/cpu-host.log 2>&1
echo "done t=${SECONDS}s" >> $R/machine.txt
cd $OUT && tar cJf c4.tar.xz c4 && rm -rf c4
