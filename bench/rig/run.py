#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The rig benchmark: claims of three operands (alone and with two threads on
disjoint buffers, started together), host <-> OpenCL copy bandwidth against
memcpy's (interleaved, medians), and the
submit-to-completion latency of an empty command on every device, with the
rig issue's targets.

usage: run.py <bench_rig binary>"""
import os
import subprocess
import sys

env = dict(os.environ, POCL_DEVICES=os.environ.get("POCL_DEVICES", "pthread pthread"))
out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True, env=env).stdout
v = {k: float(x) for k, x in (line.split() for line in out.splitlines())}
alone, two = v["claim3_alone_ns"], v["claim3_two_threads_ns"]
print("rig")
print(f"  claim+release of 3 operands, one thread   {alone:8.1f} ns  target < 100 ns: {'met' if alone < 100 else 'MISSED'}")
print(f"  the same, two threads on disjoint buffers {two:8.1f} ns  ratio {two / alone:5.2f} (target <= 2)")
if "host_to_opencl_gbps" in v:
    m = v["memcpy_gbps"]
    for k in ["host_to_opencl_gbps", "opencl_to_host_gbps"]:
        r = v[k] / m
        print(f"  {k[:-5]:40s} {v[k]:8.2f} GB/s  memcpy {m:6.2f} GB/s  ratio {r:5.2f} (target >= 0.5)")
for k, x in v.items():
    if k.startswith("latency_us:"):
        print(f"  submit-to-completion, empty work, {k[11:]:10s} {x:8.2f} us")
