#!/bin/bash
# session 10, the CPU model call: the per-SM latency probe (GPU, ~30 s), then the 8 and 32 MiB
# cost-model runs of merged main (s10-cpu-model) twice: run2 retimes run1's points with its counts.
cd "$(dirname "$0")/../.." || exit 2
find .gpu-carry -name "*.xz" -exec xz -d {} +
chmod +x .gpu-carry/*/* 2>/dev/null
export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib
R=$OUT/cc; mkdir -p $R
{ nproc; uptime; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } > $R/machine.txt 2>&1
nvcc -O3 -arch=sm_90 -o /tmp/atomic-sm-latency tools/atomic-sm-latency.cu > $R/nvcc.txt 2>&1 && \
  timeout 60 /tmp/atomic-sm-latency > $R/sm-latency.csv 2> $R/sm-latency.txt
echo "probe rc $?" >> $R/sm-latency.txt
export MODELS=.gpu-carry/cpu/models
OUT=$R/run1 SIZES="8M 32M" REPS=5 LIMIT=260 bash tools/cpu-model-host.sh
t=(70 130); i=0
for s in 8M 32M; do d=$R/run2/cpu-model-$s; mkdir -p $d
  grep -v -E '^(probe|probe_end|thp|time),' $R/run1/cpu-model-$s/vat-journal.csv > $d/vat-journal.csv
  timeout ${t[i]} $MODELS experiment vat --resume $d --max-bytes $s --growth 2 --reps 5 \
    --no-huge --jobs 16 > $R/run2/run-$s.log 2>&1; echo "exit $?" >> $R/run2/run-$s.log; i=$((i+1)); done
cd $OUT && tar cJf cc.tar.xz cc && rm -rf cc
