#!/bin/sh
# Speed-up of `models sweep` with its worker threads (issue 18: >= 12x at 16 threads on 256
# configurations). One grid of 256 configurations (4 algorithms x 4 sizes x 16 vat specs: 16
# algorithm runs of 16 engines each) runs into a fresh table at each thread count; the script
# prints the wall time, the speed-up over the first count, and checks that every table exports
# the same bytes as the first. Other work on the machine skews the numbers: it prints the load.
# Usage: tools/sweep-speedup.sh [MODELS]        (default build/bin/models)
#        THREADS="1 2 4 8 16" N=32k..256k tools/sweep-speedup.sh
# On the lent GPU machine (no GLib there): carry the binary and its libraries as
# docs/contributing.md shows, then LD_LIBRARY_PATH=.gpu-carry/lib tools/sweep-speedup.sh .gpu-carry/models
set -eu
models=${1:-build/bin/models}
threads=${THREADS:-1 2 4 8 16}
sizes=${N:-32k..256k}
work=$(mktemp -d "${TMPDIR:-/tmp}/models-sweep-speedup.XXXXXX")
trap 'rm -rf "$work"' EXIT
set -- --algo scan/seq,scan/random,binsearch/sorted,heap/sort --n "$sizes" \
  --engine vat:policy=lru,islru,min,ismin,W=16..128
echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
"$models" sweep "$@" --dry-run
printf '%8s %10s %8s\n' threads seconds speedup
first=""
for t in $threads; do
  start=$(date +%s.%N)
  "$models" sweep "$@" --db "$work/t$t.db" --threads "$t" 2>/dev/null
  end=$(date +%s.%N)
  "$models" sweep --db "$work/t$t.db" --format csv -o "$work/t$t.csv"
  if [ -z "$first" ]; then
    first=$t
    base=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  elif ! cmp -s "$work/t$first.csv" "$work/t$t.csv"; then
    echo "sweep-speedup: the table of $t threads differs from that of $first" >&2
    exit 1
  fi
  awk -v t="$t" -v a="$start" -v b="$end" -v base="$base" \
    'BEGIN { printf "%8d %10.2f %8.2f\n", t, b - a, base / (b - a) }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
