#!/bin/sh
# The load balancers' model grid (docs/experiments/load-balancing.md): every balancer over
# threads x blocks on one machine preset, one CSV row per configuration with the agpu time
# (atomics=serial), the launches, the atomic chain, the CAS lanes that failed and the occupancy
# engine's latency rounds (regs=40, the octree kernel's assumed registers).
# Usage: tools/balance-grid.sh [MACHINE [DIST [N [BLOCKS [THREADS]]]]]
set -eu
machine=${1:-8800gt}
dist=${2:-tube}
n=${3:-100000}
blocks=${4:-"8 14 20 32 42"}
threads=${5:-"32 64 72"}
models=${MODELS:-models}
row () {
  "$models" run "balance/$1:dist=$dist,threads=$2$3" --n "$n" \
    -e "agpu:machine=$machine,atomics=serial" -e "occupancy:machine=$machine,regs=40" |
    awk -v b="$1" -v t="$2" -v k="$4" '
      { gsub (",", "", $2) }
      $1 == "time" { time = $2 }
      $1 == "launches" && launches == "" { launches = $2 }
      $1 == "atomic_chain" { chain = $2 }
      $1 == "cas_failed_lanes" { failed = $2 }
      $1 == "latency_rounds" { rounds = $2 }
      END { print b "," t "," k "," time "," launches "," chain "," failed "," rounds }'
}
echo "balancer,threads,blocks,agpu_time,launches,atomic_chain,cas_failed_lanes,latency_rounds"
for t in $threads; do
  row static "$t" "" "per-task"
  for b in $blocks; do
    for bal in blocking lockfree abp; do
      row "$bal" "$t" ",blocks=$b" "$b"
    done
  done
done
