#!/bin/sh
# The load balancers' model grid (docs/experiments/load-balancing.md): every balancer over
# threads x blocks on one machine preset, one CSV row per configuration with the agpu time
# (atomics=serial), the launches, the atomic chain, the CAS lanes that failed and the occupancy
# engine's latency rounds (regs=40, the octree kernel's assumed registers). The persistent
# kernels run with as many blocks resident at once as the occupancy calculator lets the preset
# hold (resident_blocks_max of a small run of the same shape), interleaved by the SIMT layer.
# Usage: tools/balance-grid.sh [MACHINE [DIST [N [BLOCKS [THREADS]]]]]
set -eu
machine=${1:-8800gt}
dist=${2:-tube}
n=${3:-500000}
blocks=${4:-"8 14 20 32 42"}
threads=${5:-"32 64 72"}
models=${MODELS:-models}
occ="occupancy:machine=$machine,regs=40"
# The blocks of a persistent launch of $2 threads and $3 blocks that the preset holds at once.
resident () {
  "$models" run "balance/$1:dist=$dist,threads=$2,blocks=$3" --n 2000 -e "$occ" |
    awk '$1 == "resident_blocks_max" { gsub (",", "", $2); print $2 }'
}
row () {
  "$models" run "balance/$1:dist=$dist,threads=$2$3" --n "$n" \
    -e "agpu:machine=$machine,atomics=serial" -e "$occ" |
    awk -v b="$1" -v t="$2" -v k="$4" -v r="$5" '
      { gsub (",", "", $2) }
      $1 == "time" { time = $2 }
      $1 == "launches" && launches == "" { launches = $2 }
      $1 == "atomic_chain" { chain = $2 }
      $1 == "cas_failed_lanes" { failed = $2 }
      $1 == "latency_rounds" { rounds = $2 }
      END { print b "," t "," k "," r "," time "," launches "," chain "," failed "," rounds }'
}
echo "balancer,threads,blocks,resident,agpu_time,launches,atomic_chain,cas_failed_lanes,latency_rounds"
for t in $threads; do
  row static "$t" "" "per-task" ""
  for b in $blocks; do
    r=$(resident blocking "$t" "$b")
    for bal in blocking lockfree abp; do
      row "$bal" "$t" ",blocks=$b,resident=$r" "$b" "$r"
    done
  done
done
