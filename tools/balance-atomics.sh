#!/bin/bash
# What decides the lock-free queue's atomics on the H100 (docs/experiments/load-balancing.md,
# "The lock-free queue's atomics" and "The H100's atomic_ps"). Writes under $OUT:
#   sass-atomics.txt   every atomic instruction (ATOM*, RED*) of the four balancers' kernels and of
#                      tools/atomic-chain.cu, with the warp-level instructions a merged add needs
#                      (VOTE, REDUX, POPC, FLO, MATCH, SHFL) around them: is a CAS of the queue one
#                      ATOMG.E.CAS, and are the octree's leaf adds (and atomic-chain's) one ATOMG
#                      per lane or merged per warp;
#   lockfree-DIST-source.csv   ncu's source page (SourceCounters) of the lock-free queue's
#                      persistent launch, tube and uniform, n = 500,000, 132 blocks: the
#                      executions of every SASS instruction, so the dequeue's and the enqueue's
#                      CAS apart (the model makes 371,425 and 876,191 of them on tube, 23.4 and
#                      56.7 failures a task);
#   lockfree-DIST-atomics.csv  those rows of it that are atomics;
#   atomic-chain.txt   tools/atomic-chain.cu again, with its `lane` rows (unequal adds).
# The harness is the carried .gpu-carry/gpu-kernels (built with -lineinfo) when there is one, else
# built here (tools/gpu-tools.sh). About 90 s, at most 270 (each ncu run is cut at 120 s).
# Usage: OUT=... bash tools/balance-atomics.sh
SCRIPT=balance-atomics
# shellcheck source=tools/balance-prologue.sh
. "$(dirname "$0")/balance-prologue.sh"

# The atomic and warp-level lines of the functions whose names match $1, each under its name.
sass_atomics () {
  awk -v want="$1" '
    /Function :/ { fn = $NF; keep = fn ~ want; if (keep) print "== " fn; next }
    keep && /(ATOM|RED|VOTE|REDUX|POPC|FLO|MATCH|SHFL)/ { print }' "$2"
}

nvidia-smi --query-gpu=name,driver_version --format=csv
build_harness || exit 1
[ -n "$CUOBJDUMP" ] || { echo "$SCRIPT: cuobjdump not found"; exit 2; }
sass_atomics "(static|blocking|lockfree|abp)_kernel" "$WORK/sass.txt" > "$OUT/sass-atomics.txt"
"$NVCC" -O2 -arch="$ARCH" -o "$WORK/atomic-chain" tools/atomic-chain.cu || exit 1
"$CUOBJDUMP" -sass "$WORK/atomic-chain" > "$WORK/atomic-chain-sass.txt"
sass_atomics "chain_kernel" "$WORK/atomic-chain-sass.txt" >> "$OUT/sass-atomics.txt"
echo "atomic lines: $(grep -c -E 'ATOM|RED[^U]' "$OUT/sass-atomics.txt") (t=${SECONDS}s)"
"$WORK/atomic-chain" > "$OUT/atomic-chain.txt"

# The second lockfree_kernel launch is the persistent one (the first splits the root).
for d in tube uniform; do
  timeout 120 "$NCU" --clock-control none --section SourceCounters -k regex:lockfree_kernel \
    --launch-skip 1 --launch-count 1 -f -o "$WORK/lockfree-$d" \
    "$WORK/gpu-kernels" --mode profile --n 500000 "balance/lockfree:dist=$d,blocks=132" \
    > "$OUT/ncu-$d.txt" 2>&1
  echo "ncu $d rc=$? (t=${SECONDS}s)"
  "$NCU" -i "$WORK/lockfree-$d.ncu-rep" --page source --csv --print-source sass \
    > "$OUT/lockfree-$d-source.csv"
  { head -2 "$OUT/lockfree-$d-source.csv"; grep -E 'ATOM|RED[^U]' "$OUT/lockfree-$d-source.csv"; } \
    > "$OUT/lockfree-$d-atomics.csv"
done
