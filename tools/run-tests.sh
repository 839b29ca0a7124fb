#!/bin/sh
# Runs each test program given on the command line, then prints one summary line:
# "check: N passed, N failed". Exits non-zero when any failed.
pass=0; fail=0; failed=""
for t in "$@"; do
  if [ -x "$t" ]; then
    if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $(basename "$t")"; fi
  fi
done
[ -z "$failed" ] || echo "check: failed:$failed"
echo "check: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
