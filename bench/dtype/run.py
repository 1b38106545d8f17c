#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The dtype benchmark: nx's scalar stores from double and pp_value, against
gcc's (_Float16)x, numpy's astype from float64 and ml_dtypes' astype, all on
the same standard normal doubles, measured in this one run. Prints each cost
and the ratios the dtypes issue sets as targets.

usage: run.py <bench_dtype binary>"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import ml_dtypes
except ImportError:  # the peers for the non-numpy formats
    ml_dtypes = None

N = 1 << 20
x = np.random.default_rng(1).standard_normal(N)


def per_element(f, rounds=7):
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t0)
    return best * 1e9 / N


with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "inputs.f64")
    x.tofile(path)
    out = subprocess.run([sys.argv[1], path], check=True, capture_output=True, text=True).stdout
nx = {k: float(v) for k, v in (line.split() for line in out.splitlines())}

peers = {"float16": per_element(lambda: x.astype(np.float16))}
if ml_dtypes is not None:
    for name in ["bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"]:
        peers[name] = per_element(lambda: x.astype(getattr(ml_dtypes, name)))

print("scalar store of a double (ns per element; ratio = peer / nx, > 1 means nx is faster)")
for name in ["float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"]:
    ours = nx[f"store_{name}"]
    line = f"  {name:14s} nx {ours:7.3f}"
    if name in peers:
        peer = "numpy astype" if name == "float16" else "ml_dtypes astype"
        line += f"  {peer} {peers[name]:7.3f}  ratio {peers[name] / ours:6.2f}"
    if name == "float16" and "gcc_float16" in nx:
        line += f"  gcc (_Float16)x {nx['gcc_float16']:7.3f}  ratio {nx['gcc_float16'] / ours:6.2f} (target >= 2)"
    print(line)
print("pp_value (million values per second on one core; targets: float64 >= 10, 16 bits or fewer >= 50)")
for name in ["float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn"]:
    print(f"  {name:14s} {1e3 / nx['pp_' + name]:7.1f}")
