#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make bench: every benchmark, each printing its ratios against its peer.
set -eu
build=${1:-build/bench}
# The drivers and their peers (numpy, ml_dtypes) run in the project's virtual
# environment (tools/install-deps.sh bench makes it).
py=${NX_VENV:-build/venv}/bin/python
[ -x "$py" ] || { echo "bench: no $py; run tools/install-deps.sh bench" >&2; exit 1; }
"$py" bench/dtype/run.py "$build/bench/bench_dtype"
"$py" bench/layout/run.py "$build/bench/bench_layout"
"$py" bench/rig/run.py "$build/bench/bench_rig"
"$py" bench/array/run.py "$build/bench/bench_array"
"$build/bench/bench_shape"
"$build/bench/bench_scheme"
"$py" bench/kernels/run_cast.py "$build/bench/bench_cast"
"$py" bench/kernels/run.py "$build/bench/bench_kernels"
"$py" bench/kernels/run_ops.py "$build/bench/bench_ops"
"$py" bench/io/run.py "$build/tools/nx" "$build/bench/bench_io"
"$py" bench/linalg/run.py "$build/bench/bench_linalg"
# The OpenCL device kernels against the host's (it says so and exits without a device).
"$build/bench/bench_opencl"
# The CUDA benchmark where CUDA is built (it says so and exits without a GPU).
[ ! -x "$build/bench/bench_devices" ] || "$build/bench/bench_devices"
