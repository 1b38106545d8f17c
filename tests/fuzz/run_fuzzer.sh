#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# run_fuzzer.sh FUZZER SEEDS FOUND SECONDS: runs FUZZER for SECONDS over the
# committed seed corpus SEEDS, writing what it finds to FOUND (never into
# SEEDS), and prints libFuzzer's final statistics (executions, rate, corpus).
# A crash or a failed property exits 1 and leaves the input in FOUND
# (libFuzzer's own code for it, 77, is ctest's code for a skip).
set -u
fuzzer=$1 seeds=$2 found=$3 secs=$4
mkdir -p "$found"
exec "$fuzzer" -max_total_time="$secs" -print_final_stats=1 -timeout=20 -rss_limit_mb=2048 -error_exitcode=1 \
  -artifact_prefix="$found/" "$found" "$seeds"
