#!/bin/sh
# The AGPU lab's figure, under AGPU(b = 32, k = 16): left, global block accesses (io) per warp of
# gpu/global-stride as the stride between lanes grows; right, the time (slowest multiprocessor's
# instructions) of the naive transpose and of the shared-memory tiled one without and with
# padding, n = 2^12 .. 2^20 elements.
# Usage: sh docs/course/agpu/figure.sh OUTPUT-DIR
. "$(dirname "$0")/../figure-lib.sh"
fig_setup "$@"
agpu=agpu:b=32,k=16
: > "$out/stride.dat"
for s in 1 2 4 8 16 32 64; do
  r=$("$models" run gpu/global-stride:stride=$s --n 64k --engine $agpu --engine count) || exit 1
  io=$(echo "$r" | counter io) && warps=$(echo "$r" | counter warp_ld_global) || exit 1
  echo "$s $io $warps" | awk '{ printf "%d %g\n", $1, $2 / $3 }' >> "$out/stride.dat"
done
: > "$out/transpose.dat"
for lg in 12 14 16 18 20; do
  row=$lg
  for v in variant=naive variant=shared,pad=0 variant=shared,pad=1; do
    t=$("$models" run gpu/transpose:$v --n $((1 << lg)) --engine $agpu | counter time) || exit 1
    row="$row $t"
  done
  echo "$row" >> "$out/transpose.dat"
done
cat > "$out/agpu.gp" <<'GP'
set multiplot layout 1,2
set grid
set key top left
set logscale x 2
set xlabel "stride between lanes (4-byte elements)"
set ylabel "global block accesses per warp"
set title "gpu/global-stride: one strided load and one coalesced store"
plot "stride.dat" using 1:2 with linespoints title "io per warp"
unset logscale x
set logscale y 2
set xlabel "log2 n (4-byte elements)"
set ylabel "AGPU time (instructions of the slowest MP)"
set title "gpu/transpose"
plot "transpose.dat" using 1:2 with linespoints title "naive (strided stores)", \
     "transpose.dat" using 1:3 with linespoints title "shared tile, no padding", \
     "transpose.dat" using 1:4 with linespoints title "shared tile, padded"
unset multiplot
GP
fig_render agpu
