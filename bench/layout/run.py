#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The layout benchmark: per-call costs of movements, distinctness and byte
overlap, against the layouts issue's targets (is_distinct of a transposed
1000x1000 view and of a sliced 4-D view under 1 us), and the cost of an exact
search that runs to its bound (NX_LAYOUT_WORK steps).

usage: run.py <bench_layout binary>"""
import subprocess
import sys

out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
cost = {k: float(v) for k, v in (line.split() for line in out.splitlines())}
targets = {"distinct_transposed_1000x1000": 1000.0, "distinct_sliced_4d": 1000.0}
print("layouts (ns per call; target where the issue sets one)")
for name, ns in cost.items():
    t = targets.get(name)
    verdict = f"  target < {t:.0f} ns: {'met' if ns < t else 'MISSED'}" if t else ""
    print(f"  {name:34s} {ns:12.1f}{verdict}")
