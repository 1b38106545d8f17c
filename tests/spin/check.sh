#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# check.sh MODEL WORKDIR: checks the Spin model of the claim protocol
# exhaustively (spin -a, gcc, pan): both scenes (CLAIMS, JOBS) must hold
# every property, and every deliberately broken variant must be rejected.
# Prints each run's states and verdict. Skips (77) where spin is absent.
set -u
model=$1 work=$2
command -v spin >/dev/null || { echo "SKIP: spin is not installed (Debian: spin; tools/install-deps.sh test)"; exit 77; }
command -v gcc >/dev/null || { echo "SKIP: gcc is not installed: pan cannot be compiled"; exit 77; }
mkdir -p "$work" && cd "$work" || exit 1
status=0
verify() { # want (holds|rejected), defines...
  want=$1; shift
  rm -f pan pan.c pan.* ./*.trail
  if ! spin -a "$@" "$model" >spin.log 2>&1 || ! gcc -O2 -w -o pan pan.c >>spin.log 2>&1; then
    cat spin.log; echo "FAIL: $* did not build"; status=1; return
  fi
  ./pan -m100000 >pan.log 2>&1
  errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' pan.log)
  states=$(sed -n 's/^ *\([0-9e+.]*\) states, stored.*/\1/p' pan.log)
  why=$(grep -m1 -E "^pan:1: (assertion violated|invalid end state|acceptance cycle)" pan.log)
  got=holds
  [ "${errors:-1}" = 0 ] || got=rejected
  echo "${*:-CLAIMS}: $states states, errors ${errors:-?}: $got${why:+ ($why)}"
  grep -q "search depth too small" pan.log && { echo "FAIL: the search was cut short"; status=1; }
  [ "$got" = "$want" ] || { cat pan.log; echo "FAIL: $*: want $want"; status=1; }
}
verify holds
verify holds -DJOBS
verify rejected -DBROKEN_CLAIM
verify rejected -DJOBS -DBROKEN_ORDER
verify rejected -DJOBS -DBROKEN_LOSS
exit $status
