#!/bin/bash
# The GPU half of `models experiment gpu` (docs/experiments/gpu.md), in one call on the GPU machine:
#   1. builds the harness and the CUDA twins (nvcc -O3 -arch=$ARCH -lineinfo; or takes the build
#      carried as .gpu-carry/gpu-kernels) and keeps their SASS;
#   2. lists the cases: every default case (`gpu-kernels --list`) whose name starts with one of
#      $FAMILIES (default: the seeds' reductions and scans, and the baselines);
#   3. checks every case against its CPU reference at those of $CHECK_SIZES (the issue's sizes)
#      that the sweep does not time (a timed case is checked on its first launch too);
#   4. times the sweep: every case at every size of $SWEEP_SIZES (2^10 .. 2^27), $REPS timed
#      launches after 3 warm-ups -> timings.csv (median, fastest, slowest, the check);
#   5. profiles the algorithms (not the baselines) with Nsight Compute at $PROFILE_SIZES, one ncu
#      run per size so that a run cut by the time budget loses only its size, merged into
#      profile-cases.csv and ncu.csv (launch IDs renumbered as one run would have them);
#   6. when a `models` build runs here (carried as .gpu-carry, see tools/gpu-measure.sh), joins
#      them with the predictions in $PREDICTIONS (made beforehand on a CPU machine with
#      `models experiment gpu --predict-only`; nothing is simulated here: --no-compute) ->
#      gpu.md, gpu.csv, gpu.json and the plots.
# Everything lands in $OUT (default ./gpu-out), at most 8 files: log.txt, timings.csv,
# profile-cases.csv, ncu.csv, gpu.md, gpu-results.tar.gz (all the text and the plots) and
# gpu-raw.tar.gz (SASS and the ncu report, left out when they would pass 15 MiB).
# The whole run keeps within $BUDGET seconds (default 480: the issue asks for 8 minutes of device
# time, and one command of the lent machine may run 10): ncu replays every kernel many times and
# gets what is left of it after the sweep.
# Environment (a short smoke run: SWEEP_SIZES=2^10,2^16 PROFILE_SIZES=2^16 CHECK_SIZES=1,33,2^16):
#   CASES_FILE      the cases, one spec a line (instead of FAMILIES' default cases)    (none)
#   FAMILIES        case-name prefixes, space-separated        "reduce/ scan/ baseline/cub-
#                   (the sorts' baselines, CPU sorts among them,    reduce baseline/cub-scan
#                   only when named: tools/sort-sweep.sh)           baseline/memcpy baseline/copy"
#   CHECK_SIZES     sizes of the check (harness --n syntax)    1,31,32,33,1000,2^20,2^24+7,2^27
#   SWEEP_SIZES     sizes timed                                2^10,2^12,...,2^26,2^27
#   PROFILE_SIZES   sizes profiled                             2^16,2^20
#   REPS            timed launches per case                    11
#   PREDICTIONS     the predictions file                       .gpu-carry/predictions.csv
#   METRICS         ncu metrics, comma-separated               `models measure --metrics`
#   BUDGET          seconds for the whole run                  480
#   MODE            sanitize: instead of all this, every twin's check under compute-sanitizer
#                   (tools/gpu-sanitize.sh, which says what it runs)
# Usage: OUT=$OUT bash tools/gpu-experiment.sh      (MODE=sanitize OUT=$OUT bash ...)
set -u
[ "${MODE:-}" = sanitize ] && exec bash "$(dirname "$0")/gpu-sanitize.sh"
OUT=${OUT:-gpu-out}
ARCH=${ARCH:-sm_90}
WORK=${WORK:-/tmp/gpu-experiment}
MODELS=${MODELS:-build/bin/models}
FAMILIES=${FAMILIES:-"reduce/ scan/ baseline/cub-reduce baseline/cub-scan baseline/memcpy baseline/copy"}
CHECK_SIZES=${CHECK_SIZES:-1,31,32,33,1000,2^20,2^24+7,2^27}
SWEEP_SIZES=${SWEEP_SIZES:-$(seq -s, -f '2^%g' 10 2 26),2^27}
PROFILE_SIZES=${PROFILE_SIZES:-2^16,2^20}
REPS=${REPS:-11}
PREDICTIONS=${PREDICTIONS:-.gpu-carry/predictions.csv}
BUDGET=${BUDGET:-480}
# Seconds kept back at the end for exporting, joining and packing.
RESERVE=45
deadline=$((SECONDS + BUDGET))
# What is left of the budget for a stage (at least 1: `timeout 0` would mean no limit).
left () { local s=$((deadline - RESERVE - SECONDS)); echo $((s > 1 ? s : 1)); }

rm -rf "$WORK"
mkdir -p "$OUT" "$WORK"
exec > >(tee "$OUT/log.txt") 2>&1
stage () { echo "== $* (t=${SECONDS}s)"; }
SCRIPT=gpu-experiment
# shellcheck source=tools/gpu-tools.sh
. "$(dirname "$0")/gpu-tools.sh"
have_models=0
"$MODELS" --help > /dev/null 2>&1 && have_models=1

# The metrics: the engines' (what `models measure --metrics` lists), else the ones the
# experiment's counters fit needs.
if [ -z "${METRICS:-}" ]; then
  if [ "$have_models" = 1 ]; then
    METRICS=$("$MODELS" measure --metrics | paste -sd, -)
  else
    echo "gpu-experiment: no models build here: profiling the counters fit's metrics only"
    METRICS=gpu__time_duration.sum,smsp__inst_executed.sum
    for op in ld st atom; do
      METRICS=$METRICS,l1tex__t_sectors_pipe_lsu_mem_global_op_$op.sum
    done
    for op in ld st; do
      METRICS=$METRICS,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_$op.sum
    done
  fi
fi

stage machine
nvidia-smi -L || { echo "gpu-experiment: no NVIDIA GPU (nvidia-smi failed)"; exit 2; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv
"$NVCC" --version | tail -1
"$NCU" --version | tail -1

stage build
build_harness || exit 1

stage cases
if [ -n "${CASES_FILE:-}" ]; then
  grep -v '^[[:space:]]*$' "$CASES_FILE" > "$WORK/cases.txt"
else
  read -ra families <<< "$FAMILIES"
  pattern=$(printf '%s\n' "${families[@]}" | sed 's/[.]/\\./g; s/^/^/' | paste -sd'|' -)
  "$WORK/gpu-kernels" --list | grep -E "$pattern" > "$WORK/cases.txt"
fi
grep -v '^baseline/' "$WORK/cases.txt" > "$WORK/algorithms.txt"
echo "$(wc -l < "$WORK/cases.txt") cases, $(wc -l < "$WORK/algorithms.txt") of them algorithms"
mapfile -t cases < "$WORK/cases.txt"
mapfile -t algorithms < "$WORK/algorithms.txt"
[ ${#cases[@]} -gt 0 ] || { echo "gpu-experiment: no case in ${CASES_FILE:-the families $FAMILIES}"; exit 2; }

# The sizes of the check that the sweep does not time (as written: 2^20 and 1048576 are two).
check_only=$(comm -23 <(tr , '\n' <<< "$CHECK_SIZES" | sort -u) <(tr , '\n' <<< "$SWEEP_SIZES" | sort -u) |
  paste -sd, -)
check_rc=0
if [ -n "$check_only" ]; then
  stage "check at n = $check_only (the sweep checks the others)"
  timeout "$(left)" "$WORK/gpu-kernels" --mode check --n "$check_only" --csv "$WORK/check.csv" \
    "${cases[@]}" > "$WORK/check.txt"
  check_rc=$?
  grep -E "FAIL|^#" "$WORK/check.txt"
fi

stage "time at n = $SWEEP_SIZES"
timeout "$(left)" "$WORK/gpu-kernels" --mode time --reps "$REPS" --n "$SWEEP_SIZES" \
  --csv "$WORK/timings.csv" "${cases[@]}" > "$WORK/time.txt"
time_rc=$?
tail -3 "$WORK/time.txt"

stage "Nsight Compute at n = $PROFILE_SIZES"
ncu_metrics
ncu_rc=0
offset=0
rm -f "$WORK/profile-cases.csv" "$WORK/ncu.csv"
for size in ${PROFILE_SIZES//,/ }; do
  if [ "$(left)" -le 20 ]; then
    echo "out of time: n = $size and larger not profiled"
    ncu_rc=124
    break
  fi
  tag=${size//^/_}
  timeout "$(left)" "$NCU" --clock-control none --metrics "$METRIC_LIST" \
    -f -o "$WORK/profile-$tag" "$WORK/gpu-kernels" --mode profile --n "$size" --csv "$WORK/profile-$tag.csv" \
    "${algorithms[@]}" > "$WORK/ncu-run-$tag.txt" 2>&1
  rc=$?
  if [ $rc -ne 0 ] || [ ! -f "$WORK/profile-$tag.ncu-rep" ]; then
    echo "ncu at n = $size failed (rc $rc): $(tail -2 "$WORK/ncu-run-$tag.txt")"
    ncu_rc=$rc
    break
  fi
  "$NCU" -i "$WORK/profile-$tag.ncu-rep" --csv --page raw --print-units base \
    > "$WORK/ncu-$tag.csv"
  # Renumber this run's launches after the earlier runs': profile-cases.csv's first field is
  # unquoted, ncu's ID is the first quoted field of a row after the header and units lines.
  first=0
  [ "$offset" -eq 0 ] && first=1
  awk -F, -v off="$offset" -v first="$first" \
    'NR == 1 { if (first) print; next } { $1 = $1 + off; print }' OFS=, \
    "$WORK/profile-$tag.csv" >> "$WORK/profile-cases.csv"
  awk -v off="$offset" -v first="$first" '
    /^==/ { next }
    !seen_header { seen_header = 1; if (first) print; next }
    !seen_units { seen_units = 1; if (first) print; next }
    match ($0, /^"[0-9]+"/) { id = substr ($0, 2, RLENGTH - 2) + off
                              print "\"" id "\"" substr ($0, RLENGTH + 1); next }
    { print }' "$WORK/ncu-$tag.csv" >> "$WORK/ncu.csv"
  n_rows=$(grep -c '^"[0-9]' "$WORK/ncu-$tag.csv")
  echo "n = $size: $n_rows kernel launches profiled (t=${SECONDS}s)"
  offset=$((offset + n_rows))
done

if [ "$have_models" = 1 ]; then
  stage "predicted against measured"
  predictions=()
  if [ -f "$PREDICTIONS" ]; then
    predictions=(--predictions "$PREDICTIONS")
  else
    echo "no predictions file $PREDICTIONS: times and baselines only (make it on a CPU machine:"
    echo "  models experiment gpu --predict-only --cases cases.txt --n SIZES --predictions FILE)"
  fi
  "$MODELS" experiment gpu --measured "$WORK" "${predictions[@]}" --no-compute \
    --output-dir "$WORK/experiment" > "$WORK/experiment.md"
  head -30 "$WORK/experiment.md"
  cp "$WORK/experiment/gpu.md" "$OUT/" 2>/dev/null
fi

stage pack
cp "$WORK"/timings.csv "$WORK"/profile-cases.csv "$WORK"/ncu.csv "$OUT"/ 2>/dev/null
tar czf "$OUT/gpu-results.tar.gz" -C "$WORK" --exclude gpu-kernels --exclude '*.ncu-rep' \
  --exclude sass.txt --exclude metrics-available.txt .
mapfile -t raw < <(cd "$WORK" && ls sass.txt profile-*.ncu-rep 2>/dev/null)
tar czf "$OUT/gpu-raw.tar.gz" -C "$WORK" "${raw[@]}"
if [ "$(stat -c %s "$OUT/gpu-raw.tar.gz")" -gt $((15 << 20)) ]; then
  echo "SASS and ncu reports pass 15 MiB packed: keeping the SASS only"
  tar czf "$OUT/gpu-raw.tar.gz" -C "$WORK" sass.txt 2>/dev/null
fi
ls -l "$OUT"
echo "== done (t=${SECONDS}s): check rc $check_rc, time rc $time_rc, ncu rc $ncu_rc"
[ "$check_rc" -eq 0 ] && [ "$time_rc" -eq 0 ] && [ "$ncu_rc" -eq 0 ]
