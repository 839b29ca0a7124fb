#!/bin/sh
# GPU sorting lab figure: global-memory sectors per key (loads, stores and atomics, coalesce on the
# H100 preset) of the five seeds' sorts, default parameters, uniform keys, n = 2^10 .. 2^18.
# Usage: sh docs/course/gpu-sorting/figure.sh OUTPUT-DIR
set -eu
. "$(dirname "$0")/../figure-lib.sh"
fig_setup "$@"

sorts="gpu-quicksort msimd-quicksort bitonic warpsort dway-merge"

sectors_per_key () {  # $1: sort, $2: n
  "$models" run "sort/$1" --n "$2" -e coalesce:machine=h100 -f csv |
    awk -F, -v n="$2" '/,,(gld|gst|gatom)_sectors,/ { s += $(NF - 2); rows++ }
                        END { if (rows == 3) printf " %.3f", s / n }'
}

{
  echo "# n $sorts  (global sectors per key, coalesce:machine=h100)"
  for e in 10 12 14 16 18; do
    n=$((1 << e))
    line=$n
    for s in $sorts; do line="$line$(sectors_per_key "$s" "$n")"; done
    echo "$line"
  done
} > "$out/gpu-sorting.dat"

cat > "$out/gpu-sorting.gp" <<'GP'
set title "The seeds' GPU sorts under the H100's coalescing rule: global traffic per key"
set xlabel "n (keys)"
set ylabel "32-byte sectors per key (loads + stores + atomics)"
set logscale x 2
set key top left
plot for [c = 2:6] "gpu-sorting.dat" using 1:c with linespoints \
     title word("gpu-quicksort msimd-quicksort bitonic warpsort dway-merge", c - 1), \
     0.25 with lines dashtype 2 title "one read and one write of every key (0.25)"
GP
fig_check gpu-sorting 6
fig_render gpu-sorting
