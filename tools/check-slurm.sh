#!/bin/sh
# `make check-slurm`: `models sweep --slurm` for real. Starts a one-node Slurm (tools/slurm-local.sh),
# runs a small sweep locally, submits the same grid as a job array of 3 shards, waits for it, merges
# the shards' tables and checks that the export is byte for byte the local one. Not part of
# `make check`: it needs slurm-wlm (tools/deps.sh --slurm) and starts daemons.
set -eu
models=$(cd "$(dirname "${MODELS_BIN:-build/bin/models}")" && pwd)/$(basename "${MODELS_BIN:-build/bin/models}")
tools=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/models-check-slurm.XXXXXX")
trap '"$tools/slurm-local.sh" stop "$work/slurm"; rm -rf "$work"' EXIT
"$tools/slurm-local.sh" start "$work/slurm"
export SLURM_CONF="$work/slurm/slurm.conf"

cat > "$work/grid.ini" <<'INI'
[sweep]
algos=scan/seq,scan/random;binsearch/sorted
n=1k..8k
engines=vat:policy=lru,islru,W=8..32;count;footprint
INI
"$models" sweep "$work/grid.ini" --db "$work/local.db" --format csv -o "$work/local.csv"
"$models" sweep "$work/grid.ini" --slurm --shards 3 --slurm-dir "$work/array" --threads 1
timeout 300 sbatch --wait "$work/array/sweep.sbatch"
"$models" sweep --merge "$work"/array/shard-*.db -o "$work/merged.db"
"$models" sweep --db "$work/merged.db" --format csv -o "$work/merged.csv"
if ! cmp "$work/local.csv" "$work/merged.csv"; then
  echo "check-slurm: the merged shards differ from the local run" >&2
  for f in "$work"/array/shard-*.log; do echo "== $f"; cat "$f"; done >&2
  exit 1
fi
echo "check-slurm: 3 array tasks merged = the local run ($(wc -l < "$work/local.csv") CSV lines, byte for byte)"
