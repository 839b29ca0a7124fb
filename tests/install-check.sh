#!/bin/sh
# Ensure that `make install` gives users what the README promises: the examples build with
# `cc app.c $(pkg-config --cflags --libs models)` against the installed copy and run against the
# installed shared library (which exports only MDL_API symbols); and that the man pages (one per
# command, and libmodels(3)) and the bash completion are where man and bash-completion look.
set -eu
B=${B:-build}
CC=${CC:-cc}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make --no-print-directory B="$B" install PREFIX="$prefix" >/dev/null
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
pass=0; fail=0
for src in examples/*.c; do
  name=$(basename "$src" .c)
  # shellcheck disable=SC2046,SC2086
  if $CC -std=c11 -Wall -Wextra -Werror ${CFLAGS:-} $(pkg-config --cflags models) "$src" -o "$prefix/$name" \
       ${LDFLAGS:-} $(pkg-config --libs models) \
     && { [ "$name" = analyze_trace ] || LD_LIBRARY_PATH="$prefix/lib" "$prefix/$name" >/dev/null; }; then
    pass=$((pass + 1))
  else
    echo "install-check: $name failed to build or run against the installed models.pc"
    fail=$((fail + 1))
  fi
done
# man finds every page by name in the installed tree, and the completion file defines _models.
for page in $(cd "$B/man" && ls man1/*.1 man3/*.3); do
  name=$(basename "$page"); section=${name##*.}; name=${name%.*}
  if ! MANPATH="$prefix/share/man" man -w "$section" "$name" 2>/dev/null | grep -q "^$prefix/"; then
    echo "install-check: man $section $name does not find the installed page"
    fail=$((fail + 1))
  fi
done
if ! bash --norc -c ". '$prefix/share/bash-completion/completions/models' && complete -p models" \
     | grep -q _models; then
  echo "install-check: the bash completion is not installed or does not load"
  fail=$((fail + 1))
fi
echo "install-check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
