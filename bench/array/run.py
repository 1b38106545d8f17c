#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The array benchmark: the door's overhead on a 3-operand call of 1 element
(target < 200 ns; claims, waits and the rest reported apart), and to_device
host -> OpenCL and transfer of contiguous arrays against submit_copy of the
same bytes (target: within 1.5x), interleaved round by round, medians;
to_device warm (its pages reused) and in steady state (fresh pages each call).

usage: run.py <bench_array binary>"""
import os
import subprocess
import sys

env = dict(os.environ, POCL_DEVICES=os.environ.get("POCL_DEVICES", "pthread pthread"))
out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True, env=env).stdout
v = {k: float(x) for k, x in (line.split() for line in out.splitlines())}
d = v["door_empty_kernel_ns"]
print("arrays and the door")
print(f"  door, 3 operands of 1 element, empty kernel {d:8.1f} ns  target < 200 ns: {'met' if d < 200 else 'MISSED'}")
for k in ["door_claims_ns", "door_waits_ns", "door_checks_and_answer_ns", "cpu_add_1_element_ns"]:
    print(f"    {k[:-3]:40s} {v[k]:8.1f} ns")
if "submit_copy_16MiB_ms" in v:
    c = v["submit_copy_16MiB_ms"]
    for k in ["to_device_warm_16MiB_ms", "to_device_steady_16MiB_ms", "transfer_16MiB_ms"]:
        r = v[k] / c
        print(f"  {k[:-3]:28s} {v[k]:8.3f} ms  submit_copy {c:8.3f} ms  ratio {r:5.2f} (target <= 1.5)")
