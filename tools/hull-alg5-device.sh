#!/bin/bash
# The device run of hull/msimd part=alg5 (Algorithm 5 in the CUDA twin's independent stage,
# src/algos/cuda/hull.cu; docs/experiments/hull.md), one call on the GPU machine. Everything it
# writes goes into ONE tar, $OUT/hull-alg5.tar.gz, rewritten after every stage, so that a run cut
# short keeps the stages it finished. Each stage has its own `timeout`, and none runs past $LIMIT s
# (145 by default):
#   check     (28 s) against the monotone chain: part=alg5 f32 and f64 on every distribution at
#             n = 1, 2, 3, 31, 33, 1000, 4097, 2^16+3 and 2^20 (P = 480), at n = 1000, 2^16+3 and
#             2^20 with P = 4 (a few warps: long independent stages, deep stacks), n = 0 (a case
#             of its own: --n takes no 0), and part=copy at the same sizes (the collaborative
#             prologue was folded into one helper: copy must stay right);
#   sanitize  (2 x 12 s) compute-sanitizer memcheck and racecheck at n = 2^12: part=alg5 f32 on
#             every distribution, f64 on the disc and the ring, P = 4 on the disc and the ring;
#   time      (9 x $TIME_BOX s, 10 by default) part=alg5, part=copy and baseline/quickhull at
#             2^20, then 2^24, on the disc, the square and the ring: median of 5 launches after 3
#             warm-ups (CUDA events),
#             every case's first launch checked (the `mismatches` column).
# The harness is built beforehand from the merged tree:
#   (cd src/algos/cuda && nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o $GK *.cu)
# Usage: GK=... OUT=... [LIMIT=145] [TIME_BOX=10] bash tools/hull-alg5-device.sh
#   LIMIT: seconds for the whole run; TIME_BOX: seconds for each timed case (both sizes).
set -u
LIMIT=${LIMIT:-145}
TIME_BOX=${TIME_BOX:-10}
GK=${GK:?}
OUT=${OUT:?}
H=hull/msimd
B=baseline/quickhull
A5=part=alg5
DISTS="square disc ring line equal"
SEED=1
W=$(mktemp -d)
mkdir -p "$OUT"
say () { echo "$*" | tee -a "$W/log.txt"; }
TAR="$OUT/hull-alg5.tar.gz"
pack () { tar -czf "$TAR.part" -C "$W" . && mv "$TAR.part" "$TAR"; }
# A stage's box: @1 seconds, or what is left of $LIMIT s if that is less.
box () { local left=$((LIMIT - SECONDS)); echo $(($1 < left ? $1 : left)); }
# Runs the harness under `timeout` for at most @1 seconds, output to @2; the rest are its
# arguments. Says the exit status and the lines that did not pass.
gk () {
  local t=$(box "$1") f=$2
  shift 2
  if [ "$t" -lt 2 ]; then say "skipped (no time left): $f"; return; fi
  timeout "$t" "$GK" --seed $SEED "$@" >> "$W/$f" 2>&1
  say "$f: rc=$? (0 all passed, 1 a check failed, 2 a CUDA error or a bad case, 124 timed out)"
  grep -v " ok \|^#" "$W/$f" | tail -n 6 | tee -a "$W/log.txt"
}
stage () { say "== $* (t=${SECONDS}s)"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$W/gpu.txt"

stage check
specs=""
copies=""
zeros=""
for d in $DISTS; do
  specs="$specs $H:dist=$d,$A5 $H:dist=$d,$A5,prec=f64"
  copies="$copies $H:dist=$d $H:dist=$d,prec=f64"
  zeros="$zeros $H:n=0,dist=$d,$A5 $H:n=0,dist=$d,$A5,prec=f64 $H:n=0,dist=$d"
done
few=""
for s in $specs; do few="$few $s,P=4"; done
gk 10 check-alg5.txt --mode check --n 1,2,3,31,33,1000,4097,2^16+3,2^20 $specs
gk 6 check-alg5-P4.txt --mode check --n 1000,2^16+3,2^20 $few
gk 3 check-n0.txt --mode check $zeros
gk 9 check-copy.txt --mode check --n 1,2,3,31,33,1000,4097,2^16+3,2^20 $copies
pack

stage sanitize
san=""
for d in $DISTS; do san="$san $H:dist=$d,$A5"; done
for d in disc ring; do san="$san $H:dist=$d,$A5,prec=f64 $H:dist=$d,$A5,P=4"; done
for tool in memcheck racecheck; do
  t=$(box 12)
  if [ "$t" -lt 2 ]; then say "skipped (no time left): $tool"; continue; fi
  timeout "$t" compute-sanitizer --tool $tool --error-exitcode 9 "$GK" --seed $SEED --mode check \
    --n 2^12 $san > "$W/sanitize-$tool.txt" 2>&1
  say "$tool: rc=$? (0 clean, 9 errors found, 1 a check failed, 2 a CUDA error, 124 timed out)"
  grep "ERROR SUMMARY\|RACECHECK SUMMARY\|FAIL\|gave up" "$W/sanitize-$tool.txt" | sort | uniq -c |
    head -n 6 | tee -a "$W/log.txt"
done
pack

stage time
for d in disc square ring; do
  for kind in alg5 copy quickhull; do
    case $kind in
      alg5) a="$H:dist=$d,$A5" ;;
      copy) a="$H:dist=$d" ;;
      quickhull) a="$B:dist=$d" ;;
    esac
    t=$(box $TIME_BOX)
    if [ "$t" -lt 2 ]; then say "skipped (no time left): $a"; continue; fi
    timeout "$t" "$GK" --seed $SEED --mode time --reps 5 --csv "$W/time-$kind-$d.csv" \
      --n 2^20,2^24 "$a" > "$W/time-$kind-$d.txt" 2>&1
    say "$a: rc=$? (0 all passed, 1 a check failed, 2 a CUDA error or a bad case, 124 timed out)"
    grep -v "^#" "$W/time-$kind-$d.txt" | tail -n 4 | tee -a "$W/log.txt"
  done
done
say "done t=${SECONDS}s"
pack
rm -rf "$W"
