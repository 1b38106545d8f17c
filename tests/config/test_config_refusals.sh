#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Contradictory options are refused when CMake configures, with a message
# naming them, and nothing is left half-configured to build.
# usage: test_config_refusals.sh SOURCE_DIR WORK_DIR
src=$1 work=$2
fail=0
refused() { # name, expected text, options...
  name=$1 want=$2
  shift 2
  rm -rf "$work/$name"
  if cmake -S "$src" -B "$work/$name" -DNX_TESTS=OFF "$@" >"$work/$name.log" 2>&1; then
    echo "FAIL: $name: cmake accepted $*"
    fail=1
  elif ! grep -q "$want" "$work/$name.log"; then
    echo "FAIL: $name: the refusal does not say '$want':"
    tail -5 "$work/$name.log"
    fail=1
  else
    echo "ok: $name refused: $(grep -m1 "$want" "$work/$name.log" | sed 's/^ *//')"
  fi
}
mkdir -p "$work"
refused asan_tsan "NX_SANITIZE and NX_TSAN" -DNX_SANITIZE=ON -DNX_TSAN=ON
refused fuzz_tsan "NX_FUZZ and NX_TSAN" -DNX_FUZZ=ON -DNX_TSAN=ON
if [ "$(basename "${CC:-gcc}")" != clang ]; then
  refused fuzz_gcc "NX_FUZZ needs clang" -DNX_FUZZ=ON -DCMAKE_C_COMPILER=gcc
fi
exit $fail
