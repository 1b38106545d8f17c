#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Host kernels II benchmark: nx against numpy 2.x in one run (ratio = numpy
seconds / nx seconds, above 1 when nx is faster; best of three each, the
matmuls and sorts in interleaved rounds, the median round's ratio the figure):
float32 matmul 2048^3 (target >= 0.95), the same with a transposed operand
(target: the plain case's speed), bfloat16 matmul 2048^3 against nx's own
float32 FLOP rate (target >= 1), a float8_e4m3fn-weight linear layer against
numpy converting the weights and multiplying (target >= 3), and sort of 16M
float32 (target >= 1) against np.sort, nx_sort_new beside it (both make
a new array), and nx_sort into an existing array against numpy copying into
one and sorting it in place (the same work), argsort against np.argsort,
and np.sort(kind="stable") for reference (numpy's default sort is not
stable; for float32 values nx's stability shows only in the zeros' signs
and the NaNs' payloads), the sorts in interleaved rounds
(NX_BENCH_SORT_ROUNDS, default 5; the matmuls NX_BENCH_MATMUL_ROUNDS, 5);
conv2d as unfold + matmul (batch 32, 64 -> 64 channels, 56 x 56, 3 x 3,
padding 1) against numpy's einsum over sliding windows (optimize=True, so
BLAS too), and against torch's CPU conv2d where torch imports; the unfold
alone against numpy's sliding-window copy into the same [32, 576, 3136]
matrix. NX_BENCH_CASES=matmul, =sort or =conv runs only that group.
The sorts are first checked against numpy on nx's own input (values bit for
bit, the permutation numpy's stable argsort's), numpy is timed on that
input, and the CPU times of both (all of nx's threads) are reported too.

usage: run.py <bench_linalg binary>"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

dump = tempfile.TemporaryDirectory()
out = subprocess.run([sys.argv[1]], check=True, capture_output=True, text=True,
                     env=dict(os.environ, NX_BENCH_DIR=dump.name)).stdout
v = {k: float(x) for k, x in (line.split() for line in out.splitlines())}


def best(f, clock=time.perf_counter):
    t = 1e30
    for _ in range(3):
        s = clock()
        f()
        t = min(t, clock() - s)
    return t


rng = np.random.default_rng(0)
rows = []
def rerun(cases):
    """One more run of the binary on the given group of cases."""
    return {k: float(x) for k, x in (line.split() for line in subprocess.run(
        [sys.argv[1]], check=True, capture_output=True, text=True,
        env=dict(os.environ, NX_BENCH_CASES=cases)).stdout.splitlines())}


def median_round(runs, key):
    """The (nx, peer) pair of the median round's ratio, and the ratios sorted."""
    pairs = sorted((p[key] for p in runs), key=lambda q: q[1] / q[0])
    return pairs[len(pairs) // 2], [q[1] / q[0] for q in pairs]


mm_rows = []
mm_runs = []
if "matmul_f32_2048" in v:
    a = rng.uniform(-1, 1, (2048, 2048)).astype(np.float32)
    b = rng.uniform(-1, 1, (2048, 2048)).astype(np.float32)
    try:
        import ml_dtypes

        w = rng.uniform(-1, 1, (4096, 4096)).astype(ml_dtypes.float8_e4m3fn)
        x = rng.uniform(-1, 1, (32, 4096)).astype(np.float32)
    except ImportError:
        w = None
        print("  (ml_dtypes missing: no float8 peer)")
    # rounds of nx (a run of the binary, best of three within it) and numpy
    # (best of three) interleaved, so that a slow spell of the machine falls
    # on both; the figure is the median round's ratio
    for r in range(int(os.environ.get("NX_BENCH_MATMUL_ROUNDS", "5"))):
        m = v if r == 0 else rerun("matmul")
        one = {"mm": (m["matmul_f32_2048"], best(lambda: a @ b)),
               "mmT": (m["matmul_f32_2048_bT"], best(lambda: a @ b.T)),
               "bf16": (m["matmul_bf16_2048"], m["matmul_f32_2048"])}
        if w is not None:
            one["lin"] = (m["linear_f8e4m3_4096_b32"], best(lambda: x @ w.astype(np.float32).T))
        mm_runs.append(one)
    for key, name, target in (("mm", "float32 matmul 2048", 0.95),
                              ("mmT", "float32 matmul 2048, b transposed", 0.95),
                              ("lin", "float8_e4m3fn linear 4096, batch 32", 3.0)):
        if key in mm_runs[0]:
            (nx_t, np_t), ratios = median_round(mm_runs, key)
            mm_rows.append((name, nx_t, np_t, ratios, target))
cpu_rows = []
sort_rows = []
if "sort_f32_16M" in v:
    # numpy sorts nx's own input, and nx's results must be numpy's: the
    # values bit for bit, the permutation numpy's stable one
    s = np.fromfile(os.path.join(dump.name, "sort_in.f32"), dtype=np.float32)
    nx_sorted = np.fromfile(os.path.join(dump.name, "sort_out.f32"), dtype=np.float32)
    nx_perm = np.fromfile(os.path.join(dump.name, "argsort_out.i32"), dtype=np.int32)
    same_sort = np.array_equal(nx_sorted.view(np.uint32), np.sort(s).view(np.uint32))
    same_perm = np.array_equal(nx_perm, np.argsort(s, kind="stable"))
    print(f"  sort check against numpy: {'same' if same_sort else 'DIFFERENT'}; "
          f"argsort against np.argsort(kind='stable'): {'same' if same_perm else 'DIFFERENT'}")
    if not (same_sort and same_perm):
        sys.exit("sort results differ from numpy's")
    print(f"  nx threads: {int(v['sort_threads'])}")
    t = np.empty_like(s)

    def np_into():
        # the same work as nx_sort into an existing array: copy, sort in place
        t[...] = s
        t.sort()

    # rounds of nx (a run of the binary, best of three within it) and numpy
    # (best of three) interleaved; the figure is the median round's ratio
    rounds = int(os.environ.get("NX_BENCH_SORT_ROUNDS", "5"))
    runs = []
    for r in range(rounds):
        w = v if r == 0 else rerun("sort")
        runs.append({
            "new": (w["sort_new_f32_16M"], best(lambda: np.sort(s))),
            "into": (w["sort_f32_16M"], best(np_into)),
            "arg": (w["argsort_f32_16M"], best(lambda: np.argsort(s))),
            "cpu": (w["sort_f32_16M_cpu"], best(lambda: np.sort(s), time.process_time)),
            "argcpu": (w["argsort_f32_16M_cpu"], best(lambda: np.argsort(s), time.process_time)),
        })
    stable = best(lambda: np.sort(s, kind="stable"))
    for key, name, target in (("new", "sort float32 16M, new array vs np.sort", 1.0),
                              ("into", "sort float32 16M, into z vs copy+sort", 1.0),
                              ("arg", "argsort float32 16M vs np.argsort", 1.0),
                              ("cpu", "sort float32 16M (into z), CPU time", None),
                              ("argcpu", "argsort float32 16M, CPU time", None)):
        (nx_t, np_t), ratios = median_round(runs, key)
        sort_rows.append((name, nx_t, np_t, ratios, target))
    sort_rows.append(("sort float32 16M, new array vs stable", runs[0]["new"][0], stable, None, None))

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
        print("  (torch missing: no torch conv2d peer; NX_BENCH_TORCH=1 tools/install-deps.sh bench installs it)")

print("host kernels II (ratio = numpy time / nx time)")
for name, nx_t, np_t, target in rows:
    r = np_t / nx_t
    verdict = "(reported)" if target is None else f"target >= {target}: {'met' if r >= target else 'MISSED'}"
    print(f"  {name:40s} nx {nx_t * 1e3:9.1f} ms  peer {np_t * 1e3:9.1f} ms  ratio {r:5.2f}  {verdict}")
if mm_rows:
    print(f"  matmuls: the median of {len(mm_runs)} interleaved rounds [the rounds' lowest and highest ratio]")
for name, nx_t, np_t, ratios, target in mm_rows:
    print(f"  {name:40s} nx {nx_t * 1e3:9.1f} ms  peer {np_t * 1e3:9.1f} ms  ratio {np_t / nx_t:5.2f}  "
          f"[{ratios[0]:.2f}, {ratios[-1]:.2f}] target >= {target}: {'met' if np_t / nx_t >= target else 'MISSED'}")
if sort_rows:
    print(f"  sorts: the median of {len(runs)} interleaved rounds [the rounds' lowest and highest ratio]")
for name, nx_t, np_t, ratios, target in sort_rows:
    r = np_t / nx_t
    spread = f"[{ratios[0]:.2f}, {ratios[-1]:.2f}] " if ratios else ""
    verdict = "(reported)" if target is None else f"target >= {target}: {'met' if r >= target else 'MISSED'}"
    print(f"  {name:40s} nx {nx_t * 1e3:9.1f} ms  peer {np_t * 1e3:9.1f} ms  ratio {r:5.2f}  {spread}{verdict}")
for name, nx_t, np_t in cpu_rows:
    print(f"  {name:40s} nx {nx_t * 1e3:9.1f} ms  peer {np_t * 1e3:9.1f} ms  ratio {np_t / nx_t:5.2f}  (reported)")
if mm_runs:
    (bf, f32), ratios = median_round(mm_runs, "bf16")
    print(f"  {'bfloat16 matmul 2048 vs nx float32':40s} nx {bf * 1e3:9.1f} ms  float32 {f32 * 1e3:9.1f} ms  "
          f"ratio {f32 / bf:5.2f}  [{ratios[0]:.2f}, {ratios[-1]:.2f}] target >= 1: {'met' if f32 / bf >= 1 else 'MISSED'}")
