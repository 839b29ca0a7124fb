#!/bin/sh
# Ensure that `make install` gives users what the README promises: the examples build with
# `cc app.c $(pkg-config --cflags --libs models)` against the installed copy and run against the
# installed shared library (which exports only MDL_API symbols).
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
echo "install-check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
