#!/bin/sh
# Installs the Debian packages libmodels needs that are missing, and says what it does.
# Usage: tools/deps.sh [PACKAGE...]   (default: the base set for building and testing)
#        tools/deps.sh --plot         gnuplot, for the plots of `models experiment vat` and the demo
#                                     (optional: without it they write the data and the script)
#        tools/deps.sh --slurm        Slurm and munge, for `make check-slurm` only (CI does not run it)
set -eu
# libsqlite3-dev: `models sweep` keeps its results in SQLite.
# valgrind: `models trace` runs programs under Lackey, and the Cachegrind cross-check test needs it.
# groff-base: tests/test-man.c renders every man page with warnings on; man-db: install-check
# finds the installed pages with man -w.
# libdw-dev (elfutils): `models annotate` maps instructions to source lines through DWARF.
base="libglib2.0-dev libcmocka-dev libsqlite3-dev pkg-config valgrind groff-base man-db libdw-dev"
plot="gnuplot-nox"
slurm="slurm-wlm munge"
if [ "${1:-}" = "--plot" ]; then
  shift
  set -- $plot "$@"
elif [ "${1:-}" = "--slurm" ]; then
  shift
  set -- $slurm "$@"
fi
wanted="${*:-$base}"
missing=""
for p in $wanted; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing="$missing $p"
  fi
done
if [ -z "$missing" ]; then
  echo "deps: all present ($wanted)"
  exit 0
fi
echo "deps: installing$missing"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
echo "deps: done"
