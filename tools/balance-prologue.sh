# shellcheck shell=bash
# Sourced by the balance device scripts (balance-ncu.sh, balance-atomics.sh,
# balance-atomics-spread.sh) after they set SCRIPT (their name): the shared start. OUT (default
# SCRIPT-out) and WORK (default /tmp/SCRIPT) are made, the output goes to $OUT/log.txt as well,
# ARCH defaults to sm_90, and tools/gpu-tools.sh finds nvcc, ncu and cuobjdump (exits 2 without
# them). None of these scripts needs a models build.
set -u
OUT=${OUT:-$SCRIPT-out}
ARCH=${ARCH:-sm_90}
WORK=${WORK:-/tmp/$SCRIPT}
mkdir -p "$OUT" "$WORK"
exec > >(tee "$OUT/log.txt") 2>&1
MODELS=${MODELS:-}
# shellcheck source=tools/gpu-tools.sh
. "$(dirname "${BASH_SOURCE[0]}")/gpu-tools.sh"
