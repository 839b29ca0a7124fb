#!/bin/sh
# MSIMD lab figure: the model's speedup T(1)/T(P) of sort/msimd-quicksort on 2^16 keys against
# the number P of SIMD-processors, for M = 1024 (= S^2, the paper's choice) and M = 32 (= S).
# Usage: sh docs/course/msimd/figure.sh OUTPUT-DIR
set -eu
. "$(dirname "$0")/../figure-lib.sh"
fig_setup "$@"

cost () {  # $1: P; prints the msimd cost T for M = 1024 and M = 32 (both engines in one run)
  "$models" run "sort/msimd-quicksort:P=$1" --n 64k -e "msimd:P=$1,M=1024" -e "msimd:P=$1,M=32" -f csv |
    awk -F, '/,,cost,/ { if (index($0, "M=1024")) big = $(NF - 2); else small = $(NF - 2) }
             END { if (big != "" && small != "") print big, small }'
}

for p in 1 2 4 8 16 32 64 128 256; do
  echo "$p $(cost $p)"
done > "$out/msimd.costs"
# Speedups against P = 1; a line with a missing cost is kept as it is, for fig_check to report.
awk 'BEGIN { print "# P T(M=1024) T(M=32) speedup(M=1024) speedup(M=32)  (sort/msimd-quicksort, n = 65536)" }
     NR == 1 { big1 = $2; small1 = $3 }
     NF == 3 && big1 && small1 { printf "%d %d %d %.2f %.2f\n", $1, $2, $3, big1 / $2, small1 / $3; next }
     { print }' "$out/msimd.costs" > "$out/msimd.dat"
rm "$out/msimd.costs"

cat > "$out/msimd.gp" <<'GP'
set title "MSIMD quicksort of 2^{16} keys: the model's speedup T(1)/T(P)"
set xlabel "P (SIMD-processors)"
set ylabel "T(1) / T(P)"
set logscale xy 2
set key top left
plot "msimd.dat" using 1:4 with linespoints title "M = 1024 (S^2)", \
     "msimd.dat" using 1:5 with linespoints title "M = 32 (S)", \
     "msimd.dat" using 1:1 with lines dashtype 2 title "ideal: P"
GP
fig_check msimd 5
fig_render msimd
