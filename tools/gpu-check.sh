#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/gpu-check.sh [build-dir]: the CUDA parts on a machine with a GPU.
# Builds the library with CUDA (Release), runs the CUDA suites (the device
# kernels bit for bit against the host, the rig's CUDA devices and the loss
# by a faulting kernel, the nvcc compile checks) and the device benchmark
# (casts and add on 1 GiB against the device-to-device copy, host <-> device
# copies against the driver's pinned copies), then prints a summary. Meant
# to finish within 5 minutes on one H200. Where no GPU answers it says so
# and exits 0 before building anything.
set -u
cd "$(dirname "$0")/.."
build=${1:-build/gpu}
start=$(date +%s)
log=$build/gpu-check.log

say() { printf 'gpu-check: %s\n' "$*"; }

# The quick look: a driver and a GPU, before minutes of building.
nvcc=$(command -v nvcc || true)
[ -n "$nvcc" ] || { [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc; }
if [ -z "$nvcc" ]; then
  say "no GPU check here: nvcc (the CUDA toolkit) is not installed"
  exit 0
fi
if ! { ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; } && ! ls /usr/lib*/libcuda.so.1 /usr/lib/*/libcuda.so.1 >/dev/null 2>&1; then
  say "no GPU here: the CUDA driver (libcuda.so.1) is not installed; nothing to check"
  exit 0
fi
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" = 0 ]; then
  say "no GPU here: nvidia-smi lists none; nothing to check"
  exit 0
fi
say "$gpus GPU(s): $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

mkdir -p "$build"
: >"$log"
jobs=$(nproc 2>/dev/null || echo 4)
# Only what the checks need: the test variant of the library, the CUDA
# suites and the benchmark.
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DNX_CUDA=ON -DNX_TESTS=ON -DNX_BENCH=ON \
     -DNX_NVCC="$nvcc" >>"$log" 2>&1; then
  say "configure failed (see $log)"
  exit 1
fi
if ! cmake --build "$build" -j "$jobs" --target test_devices_cuda test_rig_cuda bench_devices >>"$log" 2>&1; then
  say "build failed (see $log)"
  tail -20 "$log"
  exit 1
fi
built=$(date +%s)
say "built in $((built - start)) s"

status=0
(cd "$build" && ctest -L cuda -j 4 --output-on-failure --timeout 240) >"$build/gpu-tests.log" 2>&1 || status=1
tested=$(date +%s)
say "tests in $((tested - built)) s:"
grep -E 'tests passed|Passed|Failed|Skipped|\*\*\*' "$build/gpu-tests.log" | sed 's/^/  /'
grep -hE 'agreed bit for bit|cuda:[0-9]: ' "$build/gpu-tests.log" | sort -u | sed 's/^/  /'

"$build/bench/bench_devices" >"$build/gpu-bench.log" 2>&1 || status=1
say "benchmark in $(($(date +%s) - tested)) s:"
sed 's/^/  /' "$build/gpu-bench.log"

say "total $(($(date +%s) - start)) s; logs in $build (gpu-check.log, gpu-tests.log, gpu-bench.log)"
[ $status = 0 ] && say "PASS" || say "FAIL"
exit $status
