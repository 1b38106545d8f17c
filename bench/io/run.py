#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The io benchmark: nx convert of a 1 GiB bfloat16 safetensors file to
float8_e4m3fn with --scale amax, against cp of the same file and against the
same conversion in Python (the safetensors package's numpy API, numpy and
ml_dtypes); and nx info's latency and resident memory on that file and on a
small one, against the target of 10 ms independent of the file's size. All
measured in this one run, the page cache warm.

usage: run.py <nx command> <bench_io binary> [MiB]"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import ml_dtypes
    import safetensors.numpy as stn
except ImportError:
    ml_dtypes = stn = None

nx, bench_io = sys.argv[1], sys.argv[2]
mib = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
TENSORS = 16  # a checkpoint's many tensors, each 1/16 of the file
F8_MAX = 448.0


def run_timed(argv):
    """Wall seconds of one run of argv."""
    t0 = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def spawned(argv, n):
    """Min and median wall seconds of n runs of argv after a warm-up, the
    peak resident KiB of one and the least CPU seconds (user + system, every
    thread) of one, measured by bench_io (a small parent)."""
    out = subprocess.run([bench_io, "spawn", str(n)] + argv, check=True, capture_output=True, text=True).stdout
    v = {line.split()[0]: [float(x) for x in line.split()[1:]] for line in out.splitlines()}
    return v["spawn_us"][0] / 1e6, v["spawn_us"][1] / 1e6, v["rss_kib"][0], v["cpu_us"][0] / 1e6


def best(f, rounds):
    f()  # warm-up: page cache, the peer's imports
    return min(f() for _ in range(rounds))


def raw_tensors(path):
    """name -> (dtype string, bytes) of a safetensors file, read without a
    framework (safetensors' numpy API cannot load float8)."""
    with open(path, "rb") as fh:
        n = struct.unpack("<Q", fh.read(8))[0]
        header = json.loads(fh.read(n))
        data = fh.read()
    return {k: (v["dtype"], data[v["data_offsets"][0]:v["data_offsets"][1]])
            for k, v in header.items() if k != "__metadata__"}


def python_convert(src, dst):
    """The peer: what nx convert --to float8_e4m3fn --scale amax does, in
    numpy: each tensor divided by amax / 448 (float32), cast by ml_dtypes,
    the scale stored as <name>.scale and in the metadata. The division is
    numpy's float32 one, so an element may round twice where nx's float64
    division rounds once."""
    t0 = time.perf_counter()
    out, meta = {}, {}
    for name, x in stn.load_file(src).items():
        x = x.astype(np.float32)
        a = np.abs(x)
        amax = float(a[np.isfinite(a)].max())
        # nx's scale: the least float32 s with amax / s <= 448.
        scale = np.float32(amax / F8_MAX) if amax > 0 else np.float32(1)
        while amax > 0 and amax / float(scale) > F8_MAX:
            scale = np.nextafter(scale, np.float32(np.inf))
        out[name] = (x / scale).astype(ml_dtypes.float8_e4m3fn)
        out[name + ".scale"] = np.array(scale, dtype=np.float32)
        meta["nx.scale." + name] = repr(float(scale))
    stn.save_file(out, dst, metadata=meta)
    return time.perf_counter() - t0


with tempfile.TemporaryDirectory(dir=os.environ.get("NX_BENCH_DIR")) as d:
    src = os.path.join(d, "model.safetensors")
    small = os.path.join(d, "small.safetensors")
    rng = np.random.default_rng(11)
    per = mib * (1 << 20) // 2 // TENSORS
    rows = per // 4096
    if ml_dtypes is None or stn is None:
        sys.exit("io benchmark: needs ml_dtypes and safetensors (tools/install-deps.sh)")
    tensors = {f"layer{k}.weight": (rng.standard_normal((rows, 4096), dtype=np.float32) * (k + 1) * 0.02)
               .astype(ml_dtypes.bfloat16) for k in range(TENSORS)}
    stn.save_file(tensors, src)
    stn.save_file({"w": tensors["layer0.weight"][:4]}, small)
    del tensors
    size = os.path.getsize(src)
    subprocess.run(["cat", src], stdout=subprocess.DEVNULL, check=True)  # the page cache warm

    out_cp, out_nx, out_py = (os.path.join(d, n) for n in ("cp.safetensors", "nx.safetensors", "py.safetensors"))
    t_cp = best(lambda: run_timed(["cp", src, out_cp]), 3)
    t_cp_sync = best(lambda: run_timed(["sh", "-c", f"cp '{src}' '{out_cp}' && sync '{out_cp}'"]), 3)
    os.remove(out_cp)
    conv = [nx, "convert", src, out_nx, "--to", "float8_e4m3fn", "--scale", "amax"]
    t_nx, _, rss_nx, cpu_nx = spawned(conv, 3)
    t_py = best(lambda: python_convert(src, out_py), 1)

    # The two conversions' tensors, element by element (they may differ where
    # x / scale rounds differently in numpy's float32 than in nx's float64).
    a, b = raw_tensors(out_nx), raw_tensors(out_py)
    differ = sum(int(np.count_nonzero(np.frombuffer(a[k][1], np.uint8) != np.frombuffer(b[k][1], np.uint8)))
                 for k in a if k in b and not k.endswith(".scale"))
    scales_equal = all(a[k][1] == b[k][1] for k in a if k.endswith(".scale"))

    info = {}
    for name, path in (("1 GiB" if mib == 1024 else f"{mib} MiB", src), ("4 rows", small)):
        info[name] = spawned([nx, "info", path], 31)[:3] + (path,)
    lib = subprocess.run([bench_io, "open", src, small], check=True, capture_output=True, text=True).stdout
    open_us = {k.split(":", 1)[1]: float(v) for k, v in (line.split() for line in lib.splitlines())}
    t_true = spawned(["true"], 31)[0]

gbs = lambda t: size / t / 1e9
print(f"io: nx convert of a {size / (1 << 20):.0f} MiB bfloat16 safetensors file ({TENSORS} tensors) "
      f"to float8_e4m3fn --scale amax, page cache warm, best of 3")
print(f"  cp                       {t_cp:7.3f} s  {gbs(t_cp):6.2f} GB/s")
print(f"  cp + sync of the output  {t_cp_sync:7.3f} s  {gbs(t_cp_sync):6.2f} GB/s  (nx convert fsyncs its output)")
print(f"  nx convert               {t_nx:7.3f} s  {gbs(t_nx):6.2f} GB/s  peak RSS {rss_nx / 1024:.0f} MiB  "
      f"CPU {cpu_nx:.3f} s (user + system, every thread)")
print(f"  Python (safetensors, numpy, ml_dtypes) {t_py:7.3f} s")
r_cp, r_py = t_cp / t_nx, t_py / t_nx
print(f"  speed against cp         ratio {r_cp:5.2f} (target >= 0.5: {'met' if r_cp >= 0.5 else 'MISSED'}); "
      f"against cp + sync {t_cp_sync / t_nx:5.2f}")
print(f"  speed against Python     ratio {r_py:5.2f} (target >= 5: {'met' if r_py >= 5 else 'MISSED'})")
print(f"  nx and Python outputs: {differ} float8 elements differ; scales {'identical' if scales_equal else 'DIFFER'}")
print(f"nx info (wall time of the process, 31 runs after a warm-up, the verdict on the best as for the other "
      f"figures; a process running true takes {t_true * 1e3:.2f} ms)")
for name, (lo, med, rss, path) in info.items():
    print(f"  {name:8s} min {lo * 1e3:6.2f} ms  median {med * 1e3:6.2f} ms  peak RSS {rss / 1024:5.1f} MiB  "
          f"nx_io_open+close {open_us[path]:7.1f} us  (target < 10 ms: {'met' if lo < 0.010 else 'MISSED'})")
