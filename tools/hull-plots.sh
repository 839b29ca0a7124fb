#!/bin/sh
# Regenerates the hull's table and figures of docs/experiments/hull.md from the committed H100
# results, through the GPU experiment's join (`models experiment gpu`, its hull section):
#
#   tools/hull-plots.sh [OUT]          (default OUT: docs/results/h100/hull-plots)
#
# The measured directory it joins is one timings.csv: the GPU experiment's run (the reductions and
# scans, whose fits predict the hull left out) and every hull run on disc, square and ring. A case
# measured in two runs keeps the row of the first file listed below: the seed-1 runs come before
# the first run, whose seeds were random. The predictions are the GPU experiment's and the hull's
# SIMT twins' (OUT/hull-predictions.csv.gz, made by `PREDICT=1 tools/hull-plots.sh`: about 2 hours
# on two cores). Writes into OUT: hulls.md (gpu.md's hull section), gpu-fits.csv, gpu-hull.csv
# (gpu.csv's hull rows), gpu-hull-time.png and gpu-hull-fit.png (gnuplot: tools/deps.sh --plot);
# and the fits made on the hull's cases alone, gpu-fits-hull-alone.csv and gpu-hull-fit-alone.png.
# Environment: MODELS (default build/bin/models), JOBS (SIMT runs at once with PREDICT=1).
set -eu

MODELS=${MODELS:-build/bin/models}
OUT=${1:-docs/results/h100/hull-plots}
R=docs/results/h100
GPU=$R/gpu-experiment
PREDICTED=$OUT/hull-predictions.csv.gz
# The hull cases the SIMT twins predict, at the sizes measured with seed 1; the disc's copy
# partition also at the first run's 2^16 and 2^18; 2^26 (the ring's twin takes about 35 minutes
# a case there).
SIZES=2^20,2^24,100000,1000000,10000000

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$OUT" "$tmp/measured"

if [ "${PREDICT:-0}" = 1 ]; then
  for d in disc square ring; do
    printf 'hull/msimd:dist=%s,part=alg5\nhull/msimd:dist=%s\n' "$d" "$d"
  done > "$tmp/cases.txt"
  printf 'hull/msimd:n=65536,dist=disc\nhull/msimd:n=262144,dist=disc\n' >> "$tmp/cases.txt"
  for d in disc square ring; do
    printf 'hull/msimd:n=67108864,dist=%s,part=alg5\nhull/msimd:n=67108864,dist=%s\n' "$d" "$d"
  done >> "$tmp/cases.txt"
  [ -f "$PREDICTED" ] && gunzip -c "$PREDICTED" > "$tmp/hull.csv"
  "$MODELS" experiment gpu --predict-only --cases "$tmp/cases.txt" --n "$SIZES" \
    --predictions "$tmp/hull.csv" --jobs "${JOBS:-2}" > /dev/null
  gzip -9nc "$tmp/hull.csv" > "$PREDICTED"
fi

# Hull rows, preferred first (a glob that matches nothing is skipped).
set -- $R/hull-2026-11-27c/time-*.csv \
  $R/hull-alg5-2026-11-27/time-*-disc.csv $R/hull-alg5-2026-11-27/time-*-square.csv \
  $R/hull-alg5-2026-11-27/time-*-ring.csv $R/hull-alg5-2026-11-27/paper-sizes/paper-*.csv \
  $R/hull-2026-11-27/time-msimd-disc.csv $R/hull-2026-11-27/time-msimd-2e26.csv
{
  cat "$GPU/timings.csv"
  for f in "$@"; do
    [ -f "$f" ] && tail -n +2 "$f"
  done
} | awk -F, '
  # the case is the second field, quoted when it holds a comma
  { key = $2; if (match ($0, /^[0-9]+,"[^"]*"/)) key = substr ($0, RSTART, RLENGTH) }
  { sub (/^[0-9]+,/, "", key) }
  NR == 1 || !seen[key]++' > "$tmp/measured/timings.csv"

cp "$GPU/profile-cases.csv" "$GPU/ncu.csv" "$tmp/measured/"
gunzip -c "$GPU/predictions.csv.gz" > "$tmp/predictions.csv"
gunzip -c "$PREDICTED" | tail -n +2 >> "$tmp/predictions.csv"

"$MODELS" experiment gpu --measured "$tmp/measured" --predictions "$tmp/predictions.csv" \
  --no-compute -o "$tmp/join" > /dev/null
# The same fits made on the hull's cases alone (its two partitions, in-sample: no LOAO): how far
# the models' costs explain the hull's own times.
"$MODELS" experiment gpu --measured "$tmp/measured" --predictions "$tmp/predictions.csv" \
  --no-compute -o "$tmp/alone" hull/msimd > /dev/null

sed -n '/^## Hulls$/,/^## Notes$/p' "$tmp/join/gpu.md" | sed '$d' > "$OUT/hulls.md"
sed -n '/^## Notes$/,$p' "$tmp/join/gpu.md" | sed "s|$tmp/measured|the joined directory|; s|$tmp/||" >> "$OUT/hulls.md"
cp "$tmp/join/gpu-fits.csv" "$OUT/"
cp "$tmp/alone/gpu-fits.csv" "$OUT/gpu-fits-hull-alone.csv"
awk -F, 'NR == 1 || $0 ~ /^"(hull\/|baseline\/quickhull)/' "$tmp/join/gpu.csv" > "$OUT/gpu-hull.csv"
for png in join/gpu-hull-time.png join/gpu-hull-fit.png alone/gpu-hull-fit.png; do
  if [ ! -f "$tmp/$png" ]; then
    echo "hull-plots: no $png (gnuplot missing? tools/deps.sh --plot)" >&2
  elif [ "${png%%/*}" = alone ]; then
    cp "$tmp/$png" "$OUT/gpu-hull-fit-alone.png"
  else
    cp "$tmp/$png" "$OUT/"
  fi
done
echo "hull-plots: wrote $OUT"
