#!/bin/bash
# The device run of the hull (docs/models/hull.md, docs/experiments/hull.md), one call on the GPU
# machine, results under $OUT: hull/msimd (the CUDA twin, src/algos/cuda/hull.cu) and
# baseline/quickhull (level-synchronous Thrust quickhull), each checked against the monotone chain.
# Every stage has its own `timeout`, and the timings go one CSV per algorithm and distribution
# (--reps 5 --csv: a row is flushed as soon as its case ends, so a timeout keeps the rows before
# it). The timeouts add up to 140 s (the extras get what is left of 145 s):
#   check     (30 s) n = 1, 2, 3, 1000, 2^20, every distribution: hull/msimd f32 and f64,
#             baseline/quickhull; n = 2^24 is checked by the time stage (every case's first
#             launch is checked there; the `mismatches` column), which saves the chain's sort of
#             2^24 points (about 3 s on the host) per case twice over;
#   sanitize  (2 x 12 s) compute-sanitizer memcheck and racecheck, hull/msimd at n = 1000 and 2^14;
#   time      (10 x 8.5 s) 2^24 first, then 2^16..2^22, both algorithms, every distribution,
#             median of 5 after 3 warm-ups; then, while the box lasts, P = 1056 and 2112 (8 and 16
#             warps per SM of an H100) at 2^24 and both algorithms at 2^26 on the disc.
# The harness is built beforehand from the merged tree:
#   (cd src/algos/cuda && nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo -o $GK *.cu)
# Usage: GK=... OUT=... bash tools/hull-device.sh
set -u
GK=${GK:?}
OUT=${OUT:-hull-out}
mkdir -p "$OUT"
exec > >(tee "$OUT/log.txt") 2>&1
H=hull/msimd
B=baseline/quickhull
DISTS="square disc ring line equal"
stage () { echo "== $* (t=${SECONDS}s)"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv

stage check
cases=""
for d in $DISTS; do cases="$cases $H:dist=$d $H:dist=$d,prec=f64 $B:dist=$d"; done
timeout 30 "$GK" --mode check --csv "$OUT/check.csv" --n 1,2,3,1000,2^20 $cases > "$OUT/check.txt" 2>&1
echo "check rc=$? (0 all passed, 1 a check failed, 124 timed out)"
grep -v " ok " "$OUT/check.txt" | tail -n 12

stage sanitize
for tool in memcheck racecheck; do
  echo "### $tool" >> "$OUT/sanitize.txt"
  timeout 12 compute-sanitizer --tool $tool --error-exitcode 9 "$GK" --mode check --n 1000,2^14 \
    "$H:dist=disc" "$H:dist=ring" "$H:dist=square,prec=f64" "$H:dist=line" \
    >> "$OUT/sanitize.txt" 2>&1
  echo "$tool rc=$? (0 clean, 9 errors, 124 timed out)"
done
grep "ERROR SUMMARY\|FAIL\|###" "$OUT/sanitize.txt" | sort | uniq -c | head -8

stage time
for d in square disc ring line equal; do
  for a in $H $B; do
    f="$OUT/time-${a#*/}-$d.csv"
    timeout 8.5 "$GK" --mode time --reps 5 --csv "$f" --n 2^24,2^16,2^18,2^20,2^22 "$a:dist=$d" \
      | grep -v "^#"
  done
done

stage extra
left () { echo $((145 - SECONDS)); }
[ "$(left)" -gt 3 ] && timeout "$(left)" "$GK" --mode time --reps 5 --csv "$OUT/time-P.csv" \
  --n 2^24 "$H:dist=disc,P=1056" "$H:dist=disc,P=2112" "$H:dist=ring,P=1056" | grep -v "^#"
for a in $H $B; do
  [ "$(left)" -gt 3 ] && timeout "$(left)" "$GK" --mode time --reps 3 \
    --csv "$OUT/time-${a#*/}-2e26.csv" --n 2^26 "$a:dist=disc" | grep -v "^#"
done
echo "done t=${SECONDS}s"
