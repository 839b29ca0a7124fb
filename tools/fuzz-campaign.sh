#!/bin/sh
# A fuzzing campaign over every libFuzzer target of tests/fuzz/ (docs/reliability.md).
#
#   tools/fuzz-campaign.sh [-n RUNS] [-j JOBS] [-t SECONDS] [-o DIR] [-b] [-B DIR] [TARGET...]
#
#   -n RUNS     executions per target, over all its jobs (default 10000000)
#   -j JOBS     parallel fuzzing processes per target (default 1), sharing one corpus
#   -t SECONDS  also stop each target after this long (default: no limit); a time-boxed
#               campaign then reports the executions it reached
#   -o DIR      where corpora, logs, crashes and results.md go (default fuzz-campaign/)
#   -b          only build (the TARGETs named, else every one) and say which shared libraries
#               the targets still need
#   -B DIR      run the targets found in DIR instead of building them (binaries built by -b on
#               another machine: they need no clang, only the shared libraries -b lists)
#   TARGET      fuzz-bin, fuzz-warp, ... (default: every target)
#
# Built with clang, ASan and UBSan (every UB report aborts), GLib and its helpers linked
# statically where the machine has their .a files. For each target it writes DIR/TARGET/
# (corpus/, crash artifacts, one log per job) and a row of DIR/results.md: executions, the
# coverage of the final corpus (libFuzzer's cov and ft, replayed once with -runs=0), the number of
# crash, leak, timeout and out-of-memory artifacts, and the command that ran (from DIR/TARGET/,
# where each job's log is fuzz-N.log). Exits 1 when any target left an artifact.
set -eu

runs=10000000 jobs=1 seconds=0 out=fuzz-campaign build_only=0 bin_dir=
while getopts n:j:t:o:bB: opt; do
  case $opt in
    n) runs=$OPTARG ;;
    j) jobs=$OPTARG ;;
    t) seconds=$OPTARG ;;
    o) out=$OPTARG ;;
    b) build_only=1 ;;
    B) bin_dir=$OPTARG ;;
    *) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

# Limits that every job runs under: a unit slower than 25 s or a process above 2.5 GiB is a
# finding (the engines' tables are sized from the input); inputs up to 4 KiB, as `make fuzz`.
limits="-max_len=4096 -timeout=25 -rss_limit_mb=2560 -malloc_limit_mb=2560"

if [ -z "$bin_dir" ]; then
  bin_dir=build-fuzz-static/fuzz
  pkgs="glib-2.0 gio-2.0 gio-unix-2.0"
  # -lNAME becomes -l:libNAME.a where the archive exists; libc, libm, libdl and pthread stay shared.
  libdir=$(pkg-config --variable=libdir glib-2.0)
  libs=
  for l in $(pkg-config --static --libs $pkgs); do
    case $l in
      -lm | -ldl | -lpthread | -lc | -pthread) ;;
      -l*) if [ -f "$libdir/lib${l#-l}.a" ]; then l="-l:lib${l#-l}.a"; fi ;;
    esac
    case " $libs " in *" $l "*) ;; *) libs="$libs $l" ;; esac
  done
  # A static archive needs its dependencies after it: the list is given twice, in a group.
  libs="-Wl,--start-group $libs -Wl,--end-group -ldl -lm -pthread"
  tools/deps.sh clang libclang-rt-dev
  # Only the targets named, when some are: each links the whole library, built once either way.
  goals=fuzz-build
  [ $# -eq 0 ] || goals=$(for t in "$@"; do printf '%s/%s ' "$bin_dir" "$t"; done)
  make -s --no-print-directory -j"${MAKE_JOBS:-2}" B=build-fuzz-static CC="${FUZZ_CC:-clang}" \
    CFLAGS="-O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
            -Wno-missing-field-initializers" \
    LDFLAGS="-fsanitize=address,undefined -static-libstdc++ -static-libgcc" FUZZ_LIBS="$libs" \
    $goals
  echo "fuzz-campaign: built into $bin_dir; shared libraries the targets still need:"
  ldd "$bin_dir/${1:-fuzz-bin}" | awk '{print "  " $1}' | sort -u
fi
[ "$build_only" -eq 0 ] || exit 0

if [ $# -eq 0 ]; then
  set -- $(cd "$bin_dir" && ls fuzz-* | grep -v '\.' || true)
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
bin_dir=$(cd "$bin_dir" && pwd)
results="$out/results.md"
{
  echo "| target | executions | cov | ft | corpus | findings | seconds | command |"
  echo "|---|---|---|---|---|---|---|---|"
} > "$results"

status=0
for name in "$@"; do
  bin="$bin_dir/$name"
  dir="$out/$name"
  [ -x "$bin" ] || { echo "fuzz-campaign: no target $bin" >&2; exit 2; }
  mkdir -p "$dir/corpus"
  dict=
  [ ! -f "tests/fuzz/$name.dict" ] || dict="-dict=$root/tests/fuzz/$name.dict"
  time_opt=
  [ "$seconds" -eq 0 ] || time_opt="-max_total_time=$seconds"
  # JOBS processes (libFuzzer's -jobs and -workers), each of runs/JOBS executions, sharing the
  # corpus directory (each reloads what the others add). A finding ends its process: the table
  # then shows fewer executions. Not -fork: on this libFuzzer (clang 14) its short child jobs ran
  # some targets hundreds of times slower (fuzz-din: 20 inputs a second against 4000).
  per_job=$(( (runs + jobs - 1) / jobs ))
  cmd="$bin -jobs=$jobs -workers=$jobs -runs=$per_job $time_opt"
  cmd="$cmd $limits $dict -artifact_prefix=$dir/ $dir/corpus $root/tests/data/seeds-$name"
  cmd="$cmd $root/tests/data/regress"
  echo "== $name: $runs executions in $jobs job(s)${time_opt:+, at most $seconds s}"
  start=$(date +%s)
  rm -f "$dir"/fuzz-*.log
  (cd "$dir" && $cmd > log 2>&1) || true
  elapsed=$(( $(date +%s) - start ))
  # Executions: each job's "Done N runs", or the last "#N" line of a job that a finding ended.
  execs=$(for f in "$dir"/fuzz-*.log; do
            awk '/^#[0-9]+/ { n = substr($1, 2) + 0 } /^Done [0-9]+ runs/ { n = $2 }
                 END { print n + 0 }' "$f"
          done | awk '{ s += $1 } END { print s + 0 }')
  findings=$(cat "$dir"/fuzz-*.log | grep -c '^SUMMARY: ' || true)
  cov_line=$("$bin" -runs=0 $limits "$dir/corpus" 2>&1 |
             grep -E '^#[0-9]+[[:space:]]+(INITED|DONE)' | tail -1)
  cov=$(echo "$cov_line" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$cov_line" | sed -n 's/.*ft: \([0-9]*\).*/\1/p')
  corpus=$(ls "$dir/corpus" | wc -l)
  crashes=$(ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null | wc -l)
  [ "$crashes" -eq 0 ] || status=1
  echo "| $name | $execs | $cov | $ft | $corpus | $crashes ($findings reports) | $elapsed |" \
    "\`$cmd\` |" >> "$results"
  echo "   $execs executions, cov $cov, ft $ft, corpus $corpus, $crashes artifact(s)" \
    "($findings sanitizer or libFuzzer reports), $elapsed s"
done
echo "fuzz-campaign: results in $results"
exit $status
