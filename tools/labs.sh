#!/bin/sh
# `make labs`: every course lab of docs/course/ as a test. Draws each lab's figure with its own
# figure.sh into $B/labs/NAME/ and checks the SVG is there and not empty, then reruns every command
# of the labs' pages (lab.md, solutions.md) through test-docs and compares the shown output.
# Usage: tools/labs.sh   (B: the build directory, default build; MODELS: the models command)
set -u
B="${B:-build}"
MODELS="${MODELS:-$B/bin/models}"
export MODELS
if ! tools/deps.sh --plot || ! command -v gnuplot >/dev/null 2>&1; then
  echo "labs: gnuplot is missing and could not be installed (tools/deps.sh --plot); the figures need it" >&2
  exit 1
fi
failed=0
for script in docs/course/*/figure.sh; do
  name=$(basename "$(dirname "$script")")
  out="$B/labs/$name"
  rm -rf "$out" && mkdir -p "$out"
  if ! sh "$script" "$out"; then
    echo "labs: $script failed" >&2
    failed=1
  elif [ ! -s "$out/$name.svg" ]; then
    echo "labs: $script wrote no $out/$name.svg" >&2
    failed=1
  else
    echo "labs: $name: $out/$name.svg"
  fi
done
if ! MODELS_BIN="$MODELS" MODELS_DOCS=docs/course B="$B" "$B/tests/test-docs"; then
  echo "labs: a command of docs/course/ no longer prints what its page shows (test-docs above)" >&2
  failed=1
fi
exit $failed
