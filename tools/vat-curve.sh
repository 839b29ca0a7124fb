#!/bin/sh
# Plots the one-pass miss curve of `vat` engines: TC misses per access against W.
#
#   models analyze --engine vat:machine=x86-64,policy=lru,curve=1 \
#                  --engine vat:machine=x86-64,policy=min,curve=1 --format csv prog.lackey \
#     | tools/vat-curve.sh curve.png
#
# Reads `models analyze --format csv` on standard input; every vat report with curve=1 becomes one
# line, titled by its policy. Needs gnuplot: when it is missing, the deps step installs it
# (`tools/deps.sh gnuplot-nox`).
# Writes PNG to $1 (default vat-curve.png); with a second argument `-`, prints the data instead.
set -eu
out=${1:-vat-curve.png}
data=$(mktemp)
names=$(mktemp)
trap 'rm -f "$data" "$names"' EXIT
# Fields are counted from the end: the spec column is quoted and holds commas. Totals have an empty
# phase column. One gnuplot data block (two blank lines apart) per report.
awk -F, -v names="$names" '
  $(NF-4) != "" { next }
  $(NF-3) == "accesses" {
    if (blocks++) printf "\n\n"
    n = $(NF-2)
    policy = "vat"
    if (match($0, /policy=[a-z]+/)) policy = substr($0, RSTART + 7, RLENGTH - 7)
    printf "# %s\n", policy
    printf "%s ", policy > names
  }
  $(NF-3) ~ /^tc_misses_w[0-9]+$/ && n > 0 { print substr($(NF-3), 12), $(NF-2) / n }
' > "$data"
titles=$(cat "$names")
if [ "${2:-}" = "-" ]; then cat "$data"; exit 0; fi
command -v gnuplot >/dev/null 2>&1 || "$(dirname "$0")/deps.sh" gnuplot-nox >&2
[ -n "$titles" ] || { echo "vat-curve.sh: no vat report on standard input" >&2; exit 1; }
count=$(echo "$titles" | wc -w)
gnuplot <<GP
set terminal pngcairo size 900,560
set output '$out'
set logscale x 2
set xlabel 'W (TC capacity, tree nodes)'
set ylabel 'TC misses per access'
set key top right
set grid
titles = '$titles'
plot for [i=0:$count-1] '$data' index i using 1:2 with lines linewidth 2 title word(titles, i+1)
GP
echo "vat-curve.sh: wrote $out"
