#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Host kernels II benchmark: nx against numpy 2.x in one run (ratio = numpy
seconds / nx seconds, above 1 when nx is faster; best of three each):
float32 matmul 2048^3 (target >= 0.95), the same with a transposed operand
(target: the plain case's speed), bfloat16 matmul 2048^3 against nx's own
float32 FLOP rate (target >= 1), a float8_e4m3fn-weight linear layer against
numpy converting the weights and multiplying (target >= 3), and sort of 16M
float32 against np.sort (target >= 1), and argsort against np.argsort;
conv2d as unfold + matmul (batch 32, 64 -> 64 channels, 56 x 56, 3 x 3,
padding 1) against numpy's einsum over sliding windows (optimize=True, so
BLAS too), and against torch's CPU conv2d where torch imports; the unfold
alone against numpy's sliding-window copy into the same [32, 576, 3136]
matrix. NX_BENCH_CASES=matmul, =sort or =conv runs only that group.

usage: run.py <bench_linalg binary>"""
import subprocess
import sys
import time

import numpy as np

out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True).stdout
v = {k: float(x) for k, x in (line.split() for line in out.splitlines())}


def best(f):
    t = 1e30
    for _ in range(3):
        s = time.perf_counter()
        f()
        t = min(t, time.perf_counter() - s)
    return t


rng = np.random.default_rng(0)
rows = []
if "matmul_f32_2048" in v:
    a = rng.uniform(-1, 1, (2048, 2048)).astype(np.float32)
    b = rng.uniform(-1, 1, (2048, 2048)).astype(np.float32)
    np_mm = best(lambda: a @ b)
    np_mmT = best(lambda: a @ b.T)
    rows.append(("float32 matmul 2048", v["matmul_f32_2048"], np_mm, 0.95))
    rows.append(("float32 matmul 2048, b transposed", v["matmul_f32_2048_bT"], np_mmT, 0.95))
    try:
        import ml_dtypes

        w = rng.uniform(-1, 1, (4096, 4096)).astype(ml_dtypes.float8_e4m3fn)
        x = rng.uniform(-1, 1, (32, 4096)).astype(np.float32)
        np_lin = best(lambda: x @ w.astype(np.float32).T)
        rows.append(("float8_e4m3fn linear 4096, batch 32", v["linear_f8e4m3_4096_b32"], np_lin, 3.0))
    except ImportError:
        print("  (ml_dtypes missing: no float8 peer)")
if "sort_f32_16M" in v:
    s = rng.uniform(-1, 1, 16 << 20).astype(np.float32)
    rows.append(("sort float32 16M", v["sort_f32_16M"], best(lambda: np.sort(s)), 1.0))
    rows.append(("argsort float32 16M", v["argsort_f32_16M"], best(lambda: np.argsort(s)), 1.0))

if "conv2d_unfold_matmul" in v:
    x = rng.uniform(-1, 1, (32, 64, 56, 56)).astype(np.float32)
    w = rng.uniform(-1, 1, (64, 64, 3, 3)).astype(np.float32)

    def windows():
        xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
        return np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3))  # [n, c, h, w, i, j]

    def np_conv():
        return np.einsum("nchwij,ocij->nohw", windows(), w, optimize=True)

    def np_unfold():
        return np.ascontiguousarray(windows().transpose(0, 1, 4, 5, 2, 3)).reshape(32, 576, 3136)

    rows.append(("conv2d unfold+matmul vs numpy einsum", v["conv2d_unfold_matmul"], best(np_conv), None))
    rows.append(("unfold 32x64x56x56 3x3 vs numpy copy", v["conv2d_unfold"], best(np_unfold), None))
    try:
        import torch

        tx, tw = torch.from_numpy(x), torch.from_numpy(w)
        rows.append(("conv2d unfold+matmul vs torch conv2d", v["conv2d_unfold_matmul"],
                     best(lambda: torch.nn.functional.conv2d(tx, tw, padding=1)), None))
    except ImportError:
        print("  (torch missing: no torch conv2d peer)")

print("host kernels II (ratio = numpy time / nx time)")
for name, nx_t, np_t, target in rows:
    r = np_t / nx_t
    verdict = "(reported)" if target is None else f"target >= {target}: {'met' if r >= target else 'MISSED'}"
    print(f"  {name:40s} nx {nx_t * 1e3:9.1f} ms  peer {np_t * 1e3:9.1f} ms  ratio {r:5.2f}  {verdict}")
if "matmul_f32_2048" in v:
    r = v["matmul_f32_2048"] / v["matmul_bf16_2048"]
    print(f"  {'bfloat16 matmul 2048 vs nx float32':40s} nx {v['matmul_bf16_2048'] * 1e3:9.1f} ms  float32 "
          f"{v['matmul_f32_2048'] * 1e3:9.1f} ms  ratio {r:5.2f}  target >= 1: {'met' if r >= 1 else 'MISSED'}")
