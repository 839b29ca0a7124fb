#!/bin/bash
# The CUDA twins under compute-sanitizer (docs/reliability.md), in one call on the GPU machine:
# every algorithm case of the GPU experiment (`gpu-kernels --list`, the names starting with one of
# $FAMILIES; CUB's baselines are not ours and stay out) runs its check against the CPU reference
# under each tool of $TOOLS at every size class of $SIZES: one element, a part of a warp, a part
# of a block, several blocks with a ragged end, several levels of blocks.
# Writes to $OUT: sanitize.csv (tool, sizes, cases, exit status, errors reported, seconds) and
# sanitize-TOOL.txt (the tool's report, cut to its first 2000 lines).
# Environment:
#   FAMILIES   case-name prefixes, space-separated                  "reduce/ scan/ baseline/memcpy"
#   TOOLS      compute-sanitizer tools                               memcheck initcheck synccheck racecheck
#   SIZES      sizes (harness --n syntax)                            1,31,33,1000,2^16+3,2^20+5,2^24+7
#   RACE_SIZES sizes under racecheck, the slowest tool               1,33,1000,2^16+3,2^20+5
#   BUDGET     seconds for the whole run                             540
# Usage: OUT=$OUT bash tools/gpu-sanitize.sh
set -u
OUT=${OUT:-gpu-sanitize}
ARCH=${ARCH:-sm_90}
WORK=${WORK:-/tmp/gpu-sanitize}
MODELS=${MODELS:-build/bin/models}
FAMILIES=${FAMILIES:-"reduce/ scan/ baseline/memcpy"}
TOOLS=${TOOLS:-"memcheck initcheck synccheck racecheck"}
SIZES=${SIZES:-1,31,33,1000,2^16+3,2^20+5,2^24+7}
RACE_SIZES=${RACE_SIZES:-1,33,1000,2^16+3,2^20+5}
BUDGET=${BUDGET:-540}
deadline=$((SECONDS + BUDGET))

rm -rf "$WORK"
mkdir -p "$OUT" "$WORK"
exec > >(tee "$OUT/sanitize-log.txt") 2>&1
SCRIPT=gpu-sanitize
# shellcheck source=tools/gpu-tools.sh
. "$(dirname "$0")/gpu-tools.sh"
SANITIZER=$(find_tool compute-sanitizer) || { echo "$SCRIPT: compute-sanitizer not found"; exit 2; }
"$SANITIZER" --version | tail -1
build_harness || exit 1

read -ra families <<< "$FAMILIES"
pattern=$(printf '%s\n' "${families[@]}" | sed 's/[.]/\\./g; s/^/^/' | paste -sd'|' -)
mapfile -t cases < <("$WORK/gpu-kernels" --list | grep -E "$pattern")
[ ${#cases[@]} -gt 0 ] || { echo "$SCRIPT: no case matches $FAMILIES"; exit 2; }
echo "${#cases[@]} cases"

echo "tool,sizes,cases,rc,errors,seconds" > "$OUT/sanitize.csv"
status=0
for tool in $TOOLS; do
  sizes=$SIZES
  [ "$tool" = racecheck ] && sizes=$RACE_SIZES
  left=$((deadline - SECONDS - 10))
  [ $left -gt 1 ] || { echo "$tool: no time left"; status=1; continue; }
  echo "== $tool at n = $sizes (t=${SECONDS}s, ${left}s left)"
  start=$SECONDS
  extra=()
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  timeout "$left" "$SANITIZER" --tool "$tool" "${extra[@]}" --error-exitcode 1 \
    "$WORK/gpu-kernels" --mode check --n "$sizes" "${cases[@]}" > "$WORK/$tool.txt" 2>&1
  rc=$?
  # The tool's summary line: "ERROR SUMMARY: N errors" (racecheck: "RACECHECK SUMMARY: N hazards").
  errors=$(grep -oE '(ERROR|RACECHECK) SUMMARY: [0-9]+' "$WORK/$tool.txt" |
    awk '{ s += $NF; n++ } END { if (n) print s }')
  echo "$tool,\"$sizes\",${#cases[@]},$rc,${errors:-unknown},$((SECONDS - start))" \
    >> "$OUT/sanitize.csv"
  head -2000 "$WORK/$tool.txt" > "$OUT/sanitize-$tool.txt"
  grep -E 'SUMMARY|FAIL' "$WORK/$tool.txt" | tail -3
  [ $rc -eq 0 ] || status=1
done
cat "$OUT/sanitize.csv"
exit $status
