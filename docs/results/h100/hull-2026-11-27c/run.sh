#!/bin/bash
# Call A (2026-11-27c): hull family under compute-sanitizer at every size class, then the 2^26
# series (disc, square, ring; part=alg5, part=copy, baseline/quickhull) and 2^26 checks of the
# remaining distributions. One tar, rewritten after every stage.
set -u
xz -d .gpu-carry/gpu-kernels.xz && chmod +x .gpu-carry/gpu-kernels
GK=$PWD/.gpu-carry/gpu-kernels
W=$(mktemp -d); mkdir -p $W/t
pack () { tar -czf $OUT/callA.tar.gz.part -C $W . && mv $OUT/callA.tar.gz.part $OUT/callA.tar.gz; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > $W/gpu.txt
FAMILIES="hull/ baseline/quickhull" SIZES=1,31,33,1000,2^16+3,2^20+5 RACE_SIZES=1,33,1000,2^16+3 \
  BUDGET=190 OUT=$W/san bash tools/gpu-sanitize.sh > $W/san-stdout.txt 2>&1
echo "sanitize rc=$? t=$SECONDS" >> $W/t/log.txt; pack
for d in square ring disc; do for k in alg5 copy quickhull; do
  case $k in alg5) a=hull/msimd:dist=$d,part=alg5;; copy) a=hull/msimd:dist=$d;; quickhull) a=baseline/quickhull:dist=$d;; esac
  left=$((520 - SECONDS)); [ $left -gt 45 ] && left=45; [ $left -lt 5 ] && { echo "skipped $a" >> $W/t/log.txt; continue; }
  timeout $left $GK --seed 1 --mode time --reps 5 --csv $W/t/time-$k-$d.csv --n 2^26 "$a" > $W/t/time-$k-$d.txt 2>&1
  echo "$a rc=$? t=$SECONDS" >> $W/t/log.txt; pack
done; done
left=$((550 - SECONDS)); [ $left -gt 5 ] && timeout $left $GK --seed 1 --mode check --n 2^26 \
  hull/msimd:dist=line,part=alg5 hull/msimd:dist=equal,part=alg5 hull/msimd:dist=line hull/msimd:dist=equal \
  hull/msimd:dist=ring,part=alg5,prec=f64 hull/msimd:dist=square,part=alg5,prec=f64 hull/msimd:dist=disc,part=alg5,prec=f64 \
  > $W/t/check-2e26.txt 2>&1
echo "check rc=$? t=$SECONDS" >> $W/t/log.txt; pack
