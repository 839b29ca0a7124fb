#!/bin/sh
# GPU counters lab figure: bytes moved per byte asked for by a warp's 4-byte loads at stride s
# (gpu/global-stride, 32 warps), under the coalescing rule of four GPU generations.
# Usage: sh docs/course/gpu-counters/figure.sh OUTPUT-DIR
set -eu
. "$(dirname "$0")/../figure-lib.sh"
fig_setup "$@"

machines="h100 g80 gt200 fermi"

overfetch () {  # $1: stride; prints gld_transaction_bytes / gld_requested_bytes per machine
  engines=""
  for m in $machines; do engines="$engines -e coalesce:machine=$m"; done
  # shellcheck disable=SC2086
  "$models" run "gpu/global-stride:stride=$1" --n 1024 $engines -f csv |
    awk -F, '/,,gld_transaction_bytes,/ { moved[++i] = $(NF - 2) }
             /,,gld_requested_bytes,/ { asked[++j] = $(NF - 2) }
             END { for (k = 1; k <= i; k++) printf " %.3f", moved[k] / asked[k]; print "" }'
}

{
  echo "# stride $machines  (bytes moved / bytes requested, 4-byte loads, gld_* of coalesce)"
  s=1
  while [ "$s" -le 32 ]; do
    echo "$s$(overfetch $s)"
    s=$((s + 1))
  done
} > "$out/gpu-counters.dat"

cat > "$out/gpu-counters.gp" <<'GP'
set title "A warp's 4-byte loads at stride s: bytes moved per byte used"
set xlabel "stride s (words between consecutive lanes)"
set ylabel "transaction bytes / requested bytes"
set logscale y 2
set xrange [1:32]
set yrange [0.8:40]
set key bottom right
plot "gpu-counters.dat" using 1:2 with linespoints title "h100 (32-byte sectors)", \
     "gpu-counters.dat" using 1:3 with linespoints title "g80 (cc 1.0: coalesced or one per lane)", \
     "gpu-counters.dat" using 1:4 with linespoints title "gt200 (cc 1.2: shrinking segments)", \
     "gpu-counters.dat" using 1:5 with linespoints title "fermi (128-byte L1 lines)"
GP
fig_check gpu-counters 5
fig_render gpu-counters
