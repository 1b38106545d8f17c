#!/usr/bin/env bash
# make bench: every benchmark, each printing its ratios against its peer.
set -eu
build=${1:-build/bench}
python3 bench/dtype/run.py "$build/bench/bench_dtype"
python3 bench/layout/run.py "$build/bench/bench_layout"
python3 bench/rig/run.py "$build/bench/bench_rig"
python3 bench/array/run.py "$build/bench/bench_array"
"$build/bench/bench_shape"
python3 bench/kernels/run_cast.py "$build/bench/bench_cast"
# The kernels benchmark's peers (numpy, ml_dtypes) from the project's virtual
# environment where there is one.
py=${NX_VENV:-build/venv}/bin/python
[ -x "$py" ] || py=python3
"$py" bench/kernels/run.py "$build/bench/bench_kernels"
"$py" bench/linalg/run.py "$build/bench/bench_linalg"
