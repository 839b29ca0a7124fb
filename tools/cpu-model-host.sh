#!/usr/bin/env bash
# The CPU cost model (docs/experiments/cpu-model.md) timed on a quiet machine: the lent GPU
# machine's host, 16 cores nobody else loads, from a carried `models` build (the .gpu-carry
# folder of docs/contributing.md: the binary and its libraries). One call:
#
#   OUT=$OUT bash tools/cpu-model-host.sh
#
# writes under $OUT: machine.txt (CPU, load, the host preset as `models list machines` reads it)
# and per bound cpu-model-SIZE/ (vat.txt, vat.json, vat-models.csv, ... of `models experiment
# vat`) and run-SIZE.log (a progress line every 15 s, the stages' times in vat.txt's notes).
#
# The bounds run one after the other, each with --jobs (default: every core): its timings first,
# alone on the machine, then its instrumented runs on every core. Running two bounds at once
# would set one's instrumented runs beside the other's timings, which share the L3 and the memory
# bandwidth. The smaller bound goes first so that a larger one cut by the limit leaves it whole;
# each gets what is left of LIMIT (seconds, default 540: a call is at most 600, and the start and
# the copies back take the rest).
#
# With REPS=5 (s10) the 8 and 32 MiB bounds' timings take 5/3 of s8's (21 and 52 s): about 75 s
# and 150 s per bound with the instrumented runs.
#
# Estimated wall time on the 16-core Xeon (from the measurements in cpu-model.md, "Where the
# time goes"): 8M about 40 s (timings 20 s, instrumented runs 230 s of CPU on 16 cores); 256M
# about 360 s with REPS_LARGE=1 (timings about 160 s: binary search and heapsort on 2^25
# elements take 38 s and 19 s a run on the EPYC; instrumented runs about 2800 s of CPU, 200 s on
# 16 cores, the three largest points split into 4 runs of about 100 s): about 400 s for both.
# Three repetitions at 256M would add about 320 s of timings and not fit. 4G does not fit a call: its instrumented runs are about 16 times
# 256M's (12 hours of CPU, 45 minutes on 16 cores).
set -u
OUT=${OUT:-cpu-out}
MODELS=${MODELS:-.gpu-carry/models}
SIZES=${SIZES:-8M 256M}
GROWTH=${GROWTH:-2}
LIMIT=${LIMIT:-540}
JOBS=${JOBS:-$(nproc)}
REPS=${REPS:-5}               # passes of the bounds under LARGE (5 since s10: one pass alone
                              # moved LOAO R² by up to 1.5, two by 0.05; cpu-model.md, "Session 10")
REPS_LARGE=${REPS_LARGE:-1}   # of LARGE and above
LARGE=${LARGE:-256M}
export LD_LIBRARY_PATH=.gpu-carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
mkdir -p "$OUT"
[ -x "$MODELS" ] || { echo "cpu-model-host: no models build at $MODELS (carry .gpu-carry)"; exit 2; }
{
  nproc
  uptime
  free -g
  lscpu 2>/dev/null | head -25
  "$MODELS" list machines | grep -A14 "^  host "
} > "$OUT/machine.txt" 2>&1
bytes () { numfmt --from=iec "${1^^}"; }
end=$(( $(date +%s) + LIMIT ))
for size in $SIZES; do
  left=$(( end - $(date +%s) ))
  reps=$REPS
  [ "$(bytes "$size")" -ge "$(bytes "$LARGE")" ] && reps=$REPS_LARGE
  if [ "$left" -le 10 ]; then
    echo "skipped: no time left" > "$OUT/run-$size.log"
    continue
  fi
  start=$(date +%s)
  timeout "$left" "$MODELS" experiment vat --max-bytes "$size" --growth "$GROWTH" --reps "$reps" \
    --no-huge --jobs "$JOBS" --progress -o "$OUT/cpu-model-$size" > "$OUT/run-$size.log" 2>&1
  echo "exit $? after $(( $(date +%s) - start )) s (--reps $reps --jobs $JOBS)" >> "$OUT/run-$size.log"
done
tail -n 1 "$OUT"/run-*.log
grep -h -E "^(timed|instrumented) runs" "$OUT"/cpu-model-*/vat.txt 2>/dev/null
