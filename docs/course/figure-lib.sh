# Shared by every lab's figure.sh (sourced: `. "$(dirname "$0")/../figure-lib.sh"`): finds the
# tools, reads counters from `models` reports, and draws one gnuplot script as NAME.svg and, where
# gnuplot has pngcairo, NAME.png. POSIX sh.

# figure_start NAME OUTDIR: checks the tools and the output directory; sets MODELS, FIG_NAME, FIG_OUT.
figure_start () {
  FIG_NAME=$1
  FIG_OUT=${2:-}
  if [ -z "$FIG_OUT" ]; then
    echo "$FIG_NAME/figure.sh: usage: figure.sh OUTPUT-DIR" >&2
    exit 2
  fi
  mkdir -p "$FIG_OUT" || exit 1
  MODELS=${MODELS:-build/bin/models}
  if ! command -v "$MODELS" >/dev/null 2>&1; then
    echo "$FIG_NAME/figure.sh: no models command at $MODELS (build it with make, or set MODELS)" >&2
    exit 1
  fi
  if ! command -v gnuplot >/dev/null 2>&1; then
    echo "$FIG_NAME/figure.sh: gnuplot is missing (tools/deps.sh --plot installs it)" >&2
    exit 1
  fi
}

# counter NAME [K]: the whole-run value of counter NAME of the K-th engine (default 1) in the
# table report on stdin, commas dropped. Whole-run counters are indented by two spaces, a phase's
# by four.
counter () {
  awk -v name="$1" -v want="${2:-1}" '
    /^  [^ ]/ && $1 == name && ++seen == want { gsub(",", "", $2); print $2; exit }
    END { if (seen < want) { print "figure: no counter " name " of engine " want > "/dev/stderr"; exit 1 } }'
}

# figure_plot SCRIPT: runs the gnuplot SCRIPT (without terminal and output) in FIG_OUT.
figure_plot () {
  (cd "$FIG_OUT" &&
   gnuplot -e "set terminal svg size 900,420 dynamic font 'sans,11'; set output '$FIG_NAME.svg'" "$1") || exit 1
  if gnuplot -e "set terminal" 2>&1 | grep -q pngcairo; then
    (cd "$FIG_OUT" &&
     gnuplot -e "set terminal pngcairo size 900,420 font 'sans,10'; set output '$FIG_NAME.png'" "$1") || exit 1
  fi
  echo "$FIG_NAME: wrote $FIG_OUT/$FIG_NAME.svg"
}
