#!/bin/sh
# Determinism: the same seed gives byte-identical JSON reports, run after run and build after
# build. Usage: tests/determinism.sh [MODELS_BINARY...] (default: $MODELS_BIN, else
# build/bin/models). Every case runs twice with every binary given; all outputs must equal the
# first byte for byte. `make check` runs it on the one build (two runs each); `make
# check-determinism` gives it -O0 and -O2 builds by gcc, and by clang when installed.
#
# Left out of the comparison, as host-dependent: the "seconds" of the source (wall time of the
# run), replaced by 0 before comparing. Nothing else of these reports depends on the host: the
# algorithms' arrays live at simulated addresses (src/algos/pages.c), random choices come from
# the seed, and reals are printed shortest round-trip (src/core/dtoa.c).
set -eu
[ $# -gt 0 ] || set -- "${MODELS_BIN:-build/bin/models}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One case a line: the arguments of `models`, JSON output added. Algorithms x engines chosen to
# cover every engine family, offline policies (min), seeded random policies, curves, phases, the
# per-site breakdown, GPU algorithms and a trace read back.
cat > "$tmp/cases" <<'CASES'
run scan/random --n 20000 --seed 7 -e count -e footprint -e vat:policy=islru,W=64 -e cache:levels=32k:8:64/256k:8:64,classify=1 -e tlb:machine=x86-64
run heap/sort --n 5000 --seed 3 -e cache:policy=random,seed=3 -e vat:policy=min,curve=1,curve_max=64 -e em:M=4096,B=64
run permute/fisher-yates --n 8000 --seed 11 -e vat:policy=random,seed=5 -e vat:policy=ismin,W=16 --by-site
run quicksort/intro --n 6000 --seed 2 -e footprint:page_bytes=64 -e cache:policy=plru,size=4k,assoc=4
run binsearch/veb --n 4096 --seed 9 -e vat:machine=x86-64,curve=1 -e tlb:machine=x86-64
run reduce/tree --n 65536 -e agpu:b=32,k=16 -e kmodel:k=16 -e msimd -e coalesce:machine=h100 -e banks:machine=h100 -e divergence:machine=h100
run scan/leftright --n 2048 -e kmodel:k=16 -e count
run scan/matrix --n 65536 --param alpha=16 -e agpu:b=32,k=16 -e msimd
analyze -e count -e footprint -e vat:policy=lru,curve=1,curve_max=40 -e cache TRACE
CASES

"$1" run mergesort/bottom-up --n 3000 --seed 4 --engine count --trace-out "$tmp/t.bin.gz" >/dev/null

n=0; fail=0
while IFS= read -r line; do
  n=$((n + 1))
  case_args=$(printf '%s' "$line" | sed "s|TRACE|$tmp/t.bin.gz|")
  ref=""
  for bin in "$@"; do
    for run in 1 2; do
      out="$tmp/case$n.$run.$(printf '%s' "$bin" | tr '/' '_')"
      # shellcheck disable=SC2086
      if ! "$bin" $case_args --format json > "$out.raw" 2> "$out.err"; then
        echo "determinism: $bin $case_args: failed: $(cat "$out.err")"; fail=$((fail + 1)); continue
      fi
      sed -E 's/"seconds": [^,}]*/"seconds": 0/' "$out.raw" > "$out"
      if [ -z "$ref" ]; then
        ref=$out
      elif ! cmp -s "$ref" "$out"; then
        echo "determinism: case $n ($case_args) differs: $bin run $run against the first:"
        diff "$ref" "$out" | head -10
        fail=$((fail + 1))
      fi
    done
  done
done < "$tmp/cases"
echo "determinism: $n cases x $# builds x 2 runs: $fail differ"
[ "$fail" -eq 0 ]
