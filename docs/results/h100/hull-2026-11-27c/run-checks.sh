#!/bin/bash
# Call B (2026-11-27c): the 2^26 checks that call A had no time for, one process per case so the
# host's checks (the monotone chain, single-threaded) run side by side.
set -u
xz -d .gpu-carry/gpu-kernels.xz && chmod +x .gpu-carry/gpu-kernels
GK=$PWD/.gpu-carry/gpu-kernels
W=$(mktemp -d)
i=0
for a in hull/msimd:dist=line,part=alg5 hull/msimd:dist=equal,part=alg5 hull/msimd:dist=line \
  hull/msimd:dist=equal baseline/quickhull:dist=line baseline/quickhull:dist=equal \
  hull/msimd:dist=ring,part=alg5,prec=f64 hull/msimd:dist=square,part=alg5,prec=f64 \
  hull/msimd:dist=disc,part=alg5,prec=f64 hull/msimd:dist=ring,prec=f64 \
  hull/msimd:dist=square,prec=f64 hull/msimd:dist=disc,prec=f64; do
  i=$((i + 1))
  ( timeout 300 $GK --seed 1 --mode check --n 2^26 "$a" > $W/check-$i.txt 2>&1; echo "$a rc=$?" >> $W/check-$i.txt ) &
done
wait
cat $W/check-*.txt > $OUT/check-2e26.txt
