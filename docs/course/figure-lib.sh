# Sourced by the labs' figure.sh scripts (POSIX sh): the models command, the output directory,
# counters read from a `models run` table, and the rendering of a gnuplot script. Without gnuplot a
# lab still writes its data and script, so `make check` never needs gnuplot (tools/deps.sh --plot).

# fig_setup OUTPUT-DIR: sets $out (created) and $models ($MODELS, else build/bin/models, else PATH).
fig_setup () {
  out=${1:?usage: figure.sh OUTPUT-DIR}
  mkdir -p "$out" || exit 1
  if [ -n "${MODELS:-}" ]; then
    models=$MODELS
  elif [ -x build/bin/models ]; then
    models=build/bin/models
  else
    models=$(command -v models) || { echo "figure: no models command: set MODELS or run make" >&2; exit 1; }
  fi
}

# fig_check NAME COLUMNS: stops the script unless every data line of $out/NAME.dat has COLUMNS
# numbers (a models run that failed inside a pipeline leaves a field empty, and must not be drawn).
fig_check () {
  awk -v cols="$2" -v f="$out/$1.dat" '!/^#/ {
      for (i = 1; i <= NF; i++) if ($i !~ /^-?[0-9.]+(e[-+]?[0-9]+)?$/) NF = 0
      if (NF != cols) { printf "figure: %s:%d: expected %d numbers, got \"%s\"\n", f, NR, cols, $0; bad = 1 }
    }
    END { exit bad }' "$out/$1.dat" >&2 || exit 1
}

# fig_render NAME: draws $out/NAME.gp into NAME.svg, and NAME.png where gnuplot has pngcairo.
fig_render () {
  if ! command -v gnuplot >/dev/null 2>&1; then
    echo "figure: gnuplot not found: wrote $out/$1.dat and $out/$1.gp only (tools/deps.sh --plot)"
    return 0
  fi
  (cd "$out" && gnuplot -e "set terminal svg size 800,480 dynamic; set output '$1.svg'; set grid" "$1.gp") || exit 1
  echo "figure: wrote $out/$1.svg"
  if gnuplot -e 'set terminal' 2>&1 | grep -q pngcairo; then
    (cd "$out" && gnuplot -e "set terminal pngcairo size 800,480; set output '$1.png'; set grid" "$1.gp") || exit 1
    echo "figure: wrote $out/$1.png"
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
