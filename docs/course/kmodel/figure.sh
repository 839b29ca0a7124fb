#!/bin/sh
# K-model lab figure: the up-sweep's store latency T against n for the three tree layouts
# (one stream element of n words, k = 16). Usage: sh docs/course/kmodel/figure.sh OUTPUT-DIR
set -eu
. "$(dirname "$0")/../figure-lib.sh"
fig_setup "$@"

upsweep_store_T () {  # $1: scan layout, $2: n
  "$models" run "scan/$1:block=$2" --n "$2" -e kmodel:k=16 -f csv |
    awk -F, '/,upsweep,T_shared_stores,/ { print $(NF - 2) }'
}

{
  echo "# n nopad padding leftright  (up-sweep T_shared_stores, kmodel:k=16)"
  for n in 32 64 128 256 512 1024 2048 4096; do
    echo "$n $(upsweep_store_T nopad $n) $(upsweep_store_T padding $n) $(upsweep_store_T leftright $n)"
  done
} > "$out/kmodel.dat"

cat > "$out/kmodel.gp" <<'GP'
set title "K-model (k = 16): latency of the up-sweep's stores, one stream element of n words"
set xlabel "n (words)"
set ylabel "T of the up-sweep's shared stores"
set logscale xy 2
set key top left
plot "kmodel.dat" using 1:2 with linespoints title "NoPadding (Harris)", \
     "kmodel.dat" using 1:3 with linespoints title "Padding", \
     "kmodel.dat" using 1:4 with linespoints title "LeftRight (Capannini)", \
     "kmodel.dat" using 1:($1-1)/16 with lines dashtype 2 title "(n-1)/k: no conflicts, full lanes"
GP
fig_check kmodel 4
fig_render kmodel
