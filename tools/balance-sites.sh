#!/bin/bash
# The lock-free queue's operations site by site on the GPU without ncu's SASS patching
# (docs/experiments/load-balancing.md, "Session 11"): the harness built with
# -DMDL_BALANCE_SITES=1 counts, in thread 0's registers, the dequeue's and the enqueue's slot CASes
# and failures, the gets that found no task and the slots each scan read (src/algos/cuda/balance.cu,
# Tally), and its check prints them. For tube and uniform, n = 500,000, 132 blocks, RUNS runs each
# (the root's launch and the persistent one together, as the SIMT twin's MdlOctreeStats):
#   sites.txt             the "lockfree sites:" lines, one a run
#   lockfree-sass.txt     the SASS of the default harness's lockfree_kernel (cuobjdump), to set
#                         the dequeue loop's loads and CASes beside the SIMT twin's
# About 200 s to build the counting harness (all of src/algos/cuda), a few seconds a run.
# Usage: OUT=... [RUNS=5] bash tools/balance-sites.sh
SCRIPT=balance-sites
RUNS=${RUNS:-5}
# shellcheck source=tools/balance-prologue.sh
. "$(dirname "$0")/balance-prologue.sh"

nvidia-smi --query-gpu=name,driver_version --format=csv
build_harness || exit 1
awk '/Function : .*lockfree_kernel/,/\.\.\.\.\.\.\.\.\.\./' "$WORK/sass.txt" > "$OUT/lockfree-sass.txt"
echo "lockfree_kernel SASS: $(wc -l < "$OUT/lockfree-sass.txt") lines (t=${SECONDS}s)"
"$NVCC" -O3 -arch="$ARCH" -DMDL_BALANCE_SITES=1 -o "$WORK/gpu-kernels-sites" src/algos/cuda/*.cu \
  2> "$WORK/nvcc-sites.txt" || { cat "$WORK/nvcc-sites.txt"; exit 1; }
echo "counting harness built (t=${SECONDS}s)"
: > "$OUT/sites.txt"
for d in tube uniform; do
  for _ in $(seq "$RUNS"); do
    timeout 60 "$WORK/gpu-kernels-sites" --mode check --n 500000 \
      "balance/lockfree:dist=$d,blocks=132" | grep '^lockfree sites:' >> "$OUT/sites.txt"
  done
  echo "$d done (t=${SECONDS}s)"
done
# Failures a success and slots an attempt, as tools/balance-cas-model prints them.
awk '{ for (i = 4; i < NF; i += 2) v[$i] = $(i + 1)
       printf "%s dequeue %.2f failures a success, %.2f slots an attempt; enqueue %.2f, %.2f\n", $3,
         v["dequeue_failed"] / (v["dequeue_cas"] - v["dequeue_failed"]),
         v["dequeue_slots"] / (v["dequeue_cas"] + v["empty_gets"]),
         v["enqueue_failed"] / (v["enqueue_cas"] - v["enqueue_failed"]),
         v["enqueue_slots"] / v["enqueue_cas"] }' "$OUT/sites.txt"
