#!/bin/sh
# Speed-up of `models sweep` with its worker threads (issue 18: >= 12x at 16 threads on 256
# configurations). One grid of 256 configurations (4 algorithms x 4 sizes x 16 vat specs: 16
# algorithm runs of 16 engines each) runs into a fresh table at each thread count; the script
# prints the wall time, the speed-up over the first count, the CPU time (user + system, with
# /usr/bin/time: what the threads cost in all, so that a wall time stretched by other work on the
# machine can be told from overhead), and checks that every table exports the same bytes as the
# first. It prints the load average before and after. With TIMES=DIR it keeps each thread
# count's table with its times and timeline as DIR/tT.json (`--format json --times`), which
# tools/sweep-schedule.py replays on simulated workers (docs/howto/sweeps.md, "The critical path").
# Usage: tools/sweep-speedup.sh [MODELS]        (default build/bin/models)
#        THREADS="1 2 4 8 16" N=32k..256k TIMES=DIR tools/sweep-speedup.sh
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
printf '%8s %10s %8s %12s\n' threads seconds speedup cpu-seconds
first=""
for t in $threads; do
  start=$(date +%s.%N)
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f '%U %S' -o "$work/cpu" "$models" sweep "$@" --db "$work/t$t.db" \
      --threads "$t" 2>/dev/null
    cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$work/cpu")
  else
    "$models" sweep "$@" --db "$work/t$t.db" --threads "$t" 2>/dev/null
    cpu=-
  fi
  end=$(date +%s.%N)
  "$models" sweep --db "$work/t$t.db" --format csv -o "$work/t$t.csv"
  if [ -n "${TIMES:-}" ]; then
    mkdir -p "$TIMES"
    "$models" sweep --db "$work/t$t.db" --format json --times -o "$TIMES/t$t.json"
  fi
  if [ -z "$first" ]; then
    first=$t
    base=$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')
  elif ! cmp -s "$work/t$first.csv" "$work/t$t.csv"; then
    echo "sweep-speedup: the table of $t threads differs from that of $first" >&2
    exit 1
  fi
  awk -v t="$t" -v a="$start" -v b="$end" -v base="$base" -v cpu="$cpu" \
    'BEGIN { printf "%8d %10.2f %8.2f %12s\n", t, b - a, base / (b - a), cpu }'
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
