#!/bin/sh
# The VAT lab's figure: TC misses per element that the VAT model predicts for the sequential and
# random scans and both binary-search layouts, n = 2^10 .. 2^18, on the lab's small translation
# tree (P=128, K=4, d=20, W=58): flat, log n and log^2 n growth side by side. (Measured times come
# from `models experiment vat`, Part 3 of the lab, which draws its own vat.png.)
# Usage: sh docs/course/vat/figure.sh OUTPUT-DIR
. "$(dirname "$0")/../figure-lib.sh"
fig_setup "$@"
tree=vat:policy=lru,P=128,K=4,d=20,W=58
: > "$out/misses.dat"
for lg in 10 11 12 13 14 15 16 17 18; do
  n=$((1 << lg))
  row=$lg
  for algo in scan/seq scan/random binsearch/sorted binsearch/veb; do
    m=$("$models" run $algo --n $n --engine $tree | counter tc_misses) || exit 1
    row="$row $(echo "$m $n" | awk '{ printf "%g", $1 / $2 }')"
  done
  echo "$row" >> "$out/misses.dat"
done
cat > "$out/vat.gp" <<'GP'
set key top left
set grid
set xlabel "log2 n (elements)"
set ylabel "TC misses per element"
set title "VAT model, LRU, P=128 B, K=4, d=20, W=58"
plot "misses.dat" using 1:2 with linespoints title "scan/seq", \
     "misses.dat" using 1:3 with linespoints title "scan/random", \
     "misses.dat" using 1:4 with linespoints title "binsearch/sorted", \
     "misses.dat" using 1:5 with linespoints title "binsearch/veb"
GP
fig_render vat
