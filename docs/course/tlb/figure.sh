#!/bin/sh
# The TLB lab's figure: per translation of the random scan, n = 2^12 .. 2^22, the L1 DTLB misses
# and page walks of the x86-64 preset with 4 KiB pages, the walks with 2 MiB pages, and the leaf
# misses the VAT model predicts for the same tree (P=4096, K=512, d=4) with W = 1638, the preset's
# TLB and paging-structure-cache entries together.
# Usage: sh docs/course/tlb/figure.sh OUTPUT-DIR
. "$(dirname "$0")/../figure-lib.sh"
fig_setup "$@"
: > "$out/misses.dat"
for lg in 12 13 14 15 16 17 18 19 20 21 22; do
  r=$("$models" run scan/random --n $((1 << lg)) --engine tlb:machine=x86-64 \
      --engine tlb:machine=x86-64,page_bytes=2M --engine vat:P=4096,K=512,d=4,W=1638) || exit 1
  t=$(echo "$r" | counter translations) && l1=$(echo "$r" | counter l1_misses) &&
    w4=$(echo "$r" | counter walks) && w2=$(echo "$r" | counter walks 2) &&
    v=$(echo "$r" | counter tc_misses_l0) || exit 1
  echo "$lg $t $l1 $w4 $w2 $v" |
    awk '{ printf "%d %g %g %g %g\n", $1, $3 / $2, $4 / $2, $5 / $2, $6 / $2 }' >> "$out/misses.dat"
done
cat > "$out/tlb.gp" <<'GP'
set key top left
set grid
set xlabel "log2 n (random scan: pi read in order, A at random, n 8-byte elements each)"
set ylabel "per translation"
set title "x86-64 preset, 4 KiB pages: A (8n bytes) passes the L1 DTLB reach (256 KiB) at n = 2^{15}, the STLB's (6 MiB) at 2^{19.6}"
set arrow from 15, graph 0 to 15, graph 1 nohead dashtype 2
set arrow from 19.58, graph 0 to 19.58, graph 1 nohead dashtype 2
plot "misses.dat" using 1:2 with linespoints title "L1 DTLB misses, 4 KiB pages", \
     "misses.dat" using 1:3 with linespoints title "page walks, 4 KiB pages", \
     "misses.dat" using 1:4 with linespoints title "page walks, 2 MiB pages", \
     "misses.dat" using 1:5 with linespoints title "VAT leaf misses, W = 1638"
GP
fig_render tlb
