# shellcheck shell=bash disable=SC2034
# Sourced by tools/gpu-measure.sh and tools/gpu-experiment.sh, after they set MODELS and SCRIPT
# (their name, for messages): a `models` build carried to a machine without GLib (.gpu-carry: the
# binary and its libraries), and the CUDA tools, found on the PATH or where CUDA and Nsight
# Compute install them. Sets MODELS, NVCC, NCU and CUOBJDUMP (empty when missing); exits 2 without
# nvcc or ncu. ncu_metrics keeps of $METRICS what this ncu offers.
if [ ! -x "$MODELS" ] && [ -x .gpu-carry/models ]; then
  MODELS=.gpu-carry/models
  export LD_LIBRARY_PATH=$PWD/.gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi

find_tool () {
  command -v "$1" 2>/dev/null && return
  for d in /usr/local/cuda/bin /opt/nvidia/nsight-compute/*; do
    [ -x "$d/$1" ] && { echo "$d/$1"; return; }
  done
  return 1
}
NVCC=${NVCC:-$(find_tool nvcc)} || { echo "$SCRIPT: nvcc not found"; exit 2; }
NCU=${NCU:-$(find_tool ncu)} || { echo "$SCRIPT: ncu not found"; exit 2; }
CUOBJDUMP=$(find_tool cuobjdump) || CUOBJDUMP=

# Sets METRIC_LIST to the metrics of $METRICS (comma-separated) that this ncu offers, as
# `ncu --query-metrics` (kept in $WORK/metrics-available.txt) lists them, and names the others.
ncu_metrics () {
  local wanted=() m
  "$NCU" --query-metrics > "$WORK/metrics-available.txt" 2>&1
  for m in ${METRICS//,/ }; do
    if grep -q "^${m%.*}[[:space:]]" "$WORK/metrics-available.txt"; then
      wanted+=("$m")
    else
      echo "not offered by this ncu: $m"
    fi
  done
  METRIC_LIST=$(IFS=,; echo "${wanted[*]}")
}
