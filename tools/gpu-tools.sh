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
    # The list names base metrics; a rollup can have two suffixes (.avg.pct_of_peak_...).
    if grep -q "^${m%%.*}[[:space:]]" "$WORK/metrics-available.txt"; then
      wanted+=("$m")
    else
      echo "not offered by this ncu: $m"
    fi
  done
  METRIC_LIST=$(IFS=,; echo "${wanted[*]}")
}

# Puts the harness at $WORK/gpu-kernels, with its register report in $WORK/ptxas.txt and its SASS
# in $WORK/sass.txt: the build carried as .gpu-carry/gpu-kernels when there is one (made on a CPU
# machine with the same nvcc: `nvcc -O3 -arch=sm_90 -lineinfo -Xptxas -v -o
# .gpu-carry/gpu-kernels src/algos/cuda/*.cu 2> .gpu-carry/ptxas.txt`; the lent machine's
# minutes are scarce and the scans' kernels take a minute or two to compile), else built here.
build_harness () {
  if [ -x .gpu-carry/gpu-kernels ]; then
    echo "carried build .gpu-carry/gpu-kernels"
    cp .gpu-carry/gpu-kernels "$WORK/gpu-kernels"
    cp .gpu-carry/ptxas.txt "$WORK/ptxas.txt" 2>/dev/null
  else
    "$NVCC" -O3 -arch="$ARCH" -lineinfo -Xptxas -v -o "$WORK/gpu-kernels" src/algos/cuda/*.cu \
      2> "$WORK/ptxas.txt" || { cat "$WORK/ptxas.txt"; return 1; }
  fi
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" -sass "$WORK/gpu-kernels" > "$WORK/sass.txt"
  echo "SASS: $(wc -l < "$WORK/sass.txt" 2>/dev/null || echo 0) lines"
}
