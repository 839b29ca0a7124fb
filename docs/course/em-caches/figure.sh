#!/bin/sh
# The EM and caches lab's figure: block transfers per element as n grows past the fast memory
# (M = 32 KiB of 64-byte blocks), for the sequential scan, the random scan under LRU, under OPT
# and in an 8-way set-associative LRU cache of the same size, and the sorted binary search.
# Usage: sh docs/course/em-caches/figure.sh OUTPUT-DIR
. "$(dirname "$0")/../figure-lib.sh"
fig_setup "$@"
lru=em:M=32k,B=64
opt=em:M=32k,B=64,policy=opt
set8=cache:size=32k,assoc=8,line=64
: > "$out/misses.dat"
for lg in 8 9 10 11 12 13 14 15 16; do
  n=$((1 << lg))
  seq=$("$models" run scan/seq --n $n --engine $lru | counter misses) || exit 1
  rnd=$("$models" run scan/random --n $n --engine $lru --engine $opt --engine $set8) || exit 1
  r_lru=$(echo "$rnd" | counter misses 1) && r_opt=$(echo "$rnd" | counter misses 2) &&
    r_set=$(echo "$rnd" | counter misses 3) || exit 1
  bs=$("$models" run binsearch/sorted --n $n --engine $lru | counter misses) || exit 1
  echo "$lg $seq $r_lru $r_opt $r_set $bs $n" |
    awk '{ printf "%d %g %g %g %g %g\n", $1, $2 / $7, $3 / $7, $4 / $7, $5 / $7, $6 / $7 }' \
    >> "$out/misses.dat"
done
cat > "$out/em-caches.gp" <<'GP'
set key top left
set grid
set xlabel "log2 n (elements of 8 bytes)"
set ylabel "block transfers (misses) per element"
set title "M = 32 KiB, B = 64 bytes; the random scan's two arrays fill M at n = 2^{11}"
set arrow from 11, graph 0 to 11, graph 1 nohead dashtype 2
plot "misses.dat" using 1:2 with linespoints title "scan/seq, EM LRU", \
     "misses.dat" using 1:3 with linespoints title "scan/random, EM LRU", \
     "misses.dat" using 1:4 with linespoints title "scan/random, EM OPT", \
     "misses.dat" using 1:5 with linespoints title "scan/random, 8-way LRU cache", \
     "misses.dat" using 1:6 with linespoints title "binsearch/sorted, EM LRU"
GP
fig_render em-caches
