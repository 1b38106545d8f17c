#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make fuzz: builds the fuzz configuration (clang, -DNX_FUZZ=ON) in
# build/fuzz and runs each fuzzer for SECONDS (default 60) over its seed
# corpus, printing its executions, rate and corpus size. What a fuzzer finds
# stays in build/fuzz/tests/fuzz/found/<fuzzer>, crashes as crash-* files.
# usage: tools/ci/fuzz.sh [SECONDS]
set -u
cd "$(dirname "$0")/../.."
secs=${1:-60}
command -v clang >/dev/null || { echo "fuzz: no clang (tools/install-deps.sh test installs it)"; exit 1; }
mkdir -p build
if ! cmake -S . -B build/fuzz -DCMAKE_C_COMPILER=clang -DNX_FUZZ=ON -DNX_TESTS=OFF -DNX_BENCH=OFF \
       -DCMAKE_BUILD_TYPE=RelWithDebInfo >build/fuzz.log 2>&1 || ! cmake --build build/fuzz -j >>build/fuzz.log 2>&1; then
  tail -40 build/fuzz.log
  echo "build failed: build/fuzz.log"
  exit 1
fi
status=0
for f in fuzz_dtype fuzz_layout fuzz_door fuzz_shape; do
  bin=build/fuzz/tests/fuzz/$f
  [ -x "$bin" ] || { echo "fuzz: $f was not built (clang's libFuzzer runtime is missing?)"; status=1; continue; }
  log=build/fuzz/$f.log
  tests/fuzz/run_fuzzer.sh "$bin" tests/fuzz/corpus/$f build/fuzz/tests/fuzz/found/$f "$secs" >"$log" 2>&1 || status=1
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  corpus=$(ls build/fuzz/tests/fuzz/found/$f | grep -cv '^crash-\|^leak-\|^timeout-\|^oom-')
  seeds=$(ls tests/fuzz/corpus/$f | wc -l)
  echo "$f: ${execs:-?} executions in ${secs} s (${rate:-?}/s), seeds $seeds, corpus found $corpus$( [ $status = 0 ] || echo ", FAILED: see $log")"
done
exit $status
