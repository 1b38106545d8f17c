#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The kernels benchmark: nx's public kernels against numpy 2.x (and
ml_dtypes for bfloat16) on 16M elements (4096 x 4096), measured in this one
run: each round flushes the caches (a write of twice the last-level cache)
before every call and alternates nx's call with its peer's; the medians of
the rounds give the ratios. nx runs on one thread against numpy's one, but
for the thread-scaling case, which also prints a plain-pthread control
(two threads without the pool) beside it. Results are cross-checked in the same run: the
adds bit for bit against numpy, the transcendentals' max ulp error of both
sides against float64 numpy rounded once, the sum's error of both sides
against math.fsum (the correctly rounded sum). The bfloat16 add is also
printed against its memory floor (a streamed read-2-read-2-write-2 loop) and
at nx's default thread count.

usage: run.py <bench_kernels binary> [rounds]
NX_BENCH_CASES=<case>,... runs only those cases."""
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import ml_dtypes
except ImportError:
    ml_dtypes = None

SIDE = 4096
N = SIDE * SIDE
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
rng = np.random.default_rng(11)
flush_buf = np.empty(80 << 20, dtype=np.float64)  # 640 MiB: over twice a 260 MiB last-level cache


def flush():
    flush_buf.fill(1.0)


x = rng.standard_normal((SIDE, SIDE)).astype(np.float32)
y = rng.standard_normal((SIDE, SIDE)).astype(np.float32)
z = np.empty_like(x)
inputs = {
    "exp": rng.uniform(-80, 80, (SIDE, SIDE)).astype(np.float32),
    "log": np.exp(rng.uniform(-80, 80, (SIDE, SIDE))).astype(np.float32),
    "sin": rng.uniform(-100, 100, (SIDE, SIDE)).astype(np.float32),
    "tanh": rng.uniform(-10, 10, (SIDE, SIDE)).astype(np.float32),
}
x16, y16 = x.astype(np.float16), y.astype(np.float16)
z16 = np.empty_like(x16)
if ml_dtypes:
    xb, yb = x.astype(ml_dtypes.bfloat16), y.astype(ml_dtypes.bfloat16)
    zb = np.empty_like(xb)
else:
    xb = yb = zb = None
row = y[:1, :]

# case: (peer label, peer call, target description, target ratio (peer / nx time), check)
cases = {
    "add_f32": ("numpy", lambda: np.add(x, y, out=z), 0.95),
    "add_f32_one_transposed": ("numpy", lambda: np.add(x.T, y, out=z), 3.0),
    "add_f32_all_transposed": ("numpy", lambda: np.add(x.T, y.T, out=z.T), 1.0),
    "add_f32_row": ("numpy", lambda: np.add(x, row, out=z), 1.0),
    "add_f16": ("numpy", lambda: np.add(x16, y16, out=z16), 3.0),
    "add_bf16": ("ml_dtypes", (lambda: np.add(xb, yb, out=zb)) if ml_dtypes else None, 10.0),
    "exp_f32": ("numpy", lambda: np.exp(inputs["exp"], out=z), 1 / 1.5),
    "log_f32": ("numpy", lambda: np.log(inputs["log"], out=z), 1 / 1.5),
    "sin_f32": ("numpy", lambda: np.sin(inputs["sin"], out=z), 1 / 1.5),
    "tanh_f32": ("numpy", lambda: np.tanh(inputs["tanh"], out=z), 1 / 1.5),
    "sum_f32": ("numpy", lambda: np.sum(x), 1.0),
}


# NX_BENCH_CASES=a,b runs only those cases (and the thread cases only where
# "exp_threads" is among them, the threshold never).
only = [c for c in os.environ.get("NX_BENCH_CASES", "").split(",") if c]
threads_case = not only or "exp_threads" in only
if only:
    cases = {c: v for c, v in cases.items() if c in only}


class Nx:
    def __init__(self, binary, d):
        self.p = subprocess.Popen([binary, d], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        r = self.p.stdout.readline()
        if not r:
            sys.exit(f"bench_kernels ended at {line!r}")
        return r.strip()

    def lines(self, line):
        """The lines a command prints before its "ok"."""
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        out = []
        while (r := self.p.stdout.readline().strip()) != "ok":
            if not r:
                sys.exit(f"bench_kernels ended at {line!r}")
            out.append(r)
        return out

    def time(self, case):
        return float(self.ask(case))


def timed(f):
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def ulps(got, ref64):
    """Max ulp error of float32 results against float64 references."""
    ref32 = ref64.astype(np.float32)
    fin = np.isfinite(ref64) & np.isfinite(got) & (np.abs(ref64) < 3.4e38)
    sp = np.spacing(np.abs(ref32[fin])).astype(np.float64)
    err = np.abs(got[fin].astype(np.float64) - ref64[fin]) / sp
    bad = int(np.count_nonzero(np.isfinite(ref64) != np.isfinite(got)))
    return float(err.max()), bad


def main():
    d = tempfile.mkdtemp()
    try:
        for name, a in [("x32", x), ("y32", y), ("x16", x16), ("y16", y16)] + [("in_" + k, v) for k, v in inputs.items()]:
            a.tofile(os.path.join(d, name + ".bin"))
        (xb if ml_dtypes else x16).tofile(os.path.join(d, "xb16.bin"))
        (yb if ml_dtypes else y16).tofile(os.path.join(d, "yb16.bin"))
        nx = Nx(sys.argv[1], d)
        nx.ask("threads 1")
        times = {c: ([], []) for c in cases}
        for _ in range(ROUNDS):
            for c, (_, peer, _) in cases.items():
                flush()
                times[c][0].append(nx.time(c))
                if peer:
                    flush()
                    times[c][1].append(timed(peer))
        # bfloat16 add beside its memory floor (read 2 + 2 bytes, write 2,
        # streamed) and at nx's default thread count, in the same rounds.
        bf = {"floor": [], "default": [], "floor_default": []}
        for _ in range(ROUNDS if "add_bf16" in cases else 0):
            flush()
            bf["floor"].append(nx.time("floor_16"))
            flush()
            bf["floor_default"].append(nx.time("floor_16_threads"))
            nx.ask("threads default")
            flush()
            bf["default"].append(nx.time("add_bf16"))
            nx.ask("threads 1")
        # exp on 1 and 2 threads, and the plain-pthread control (nx_exp on
        # one thread over blocks of rows claimed by two plain pthreads):
        # what two threads give on this machine without the pool; the
        # compute-only probe on 1 and 2 threads (two cores or one).
        thr = {1: [], 2: [], "control": [], "p1": [], "p2": []}
        for _ in range(ROUNDS if threads_case else 0):
            for k in (1, 2):
                nx.ask(f"threads {k}")
                flush()
                thr[k].append(nx.time("exp_f32"))
            nx.ask("threads 1")
            flush()
            thr["control"].append(nx.time("exp_control"))
            thr["p1"].append(nx.time("probe 1"))
            thr["p2"].append(nx.time("probe 2"))
        nx.ask("threads 1")

        def out(case, dtype):
            nx.ask("dump " + case)
            return np.fromfile(os.path.join(d, f"out_{case}.bin"), dtype=dtype)

        print(f"kernels: 16M elements ({SIDE} x {SIDE}), medians of {ROUNDS} interleaved rounds, caches flushed, "
              "nx on 1 thread; ratio = peer time / nx time")
        met_all = True
        for c, (label, peer, target) in cases.items():
            tn = statistics.median(times[c][0])
            note = ""
            if c.startswith("add"):
                if peer:
                    peer()
                    want = {"add_f16": z16, "add_bf16": zb}.get(c, z)
                    got = out(c, want.dtype).reshape(SIDE, SIDE)
                    same = np.array_equal(got.view(np.uint16 if want.itemsize == 2 else np.uint32),
                                          want.view(np.uint16 if want.itemsize == 2 else np.uint32))
                    note = "bit-identical to the peer" if same else "DIFFERS from the peer"
                    met_all &= same
            elif c == "sum_f32":
                exact = math.fsum(x.ravel().astype(np.float64).tolist())
                got = float(out(c, np.float32)[0])
                mine, theirs = abs(got - exact) / abs(exact), abs(float(np.sum(x)) - exact) / abs(exact)
                note = f"relative error nx {mine:.2e}, numpy {theirs:.2e}"
                ok = mine <= theirs
                met_all &= ok
                note += "" if ok else " (nx LESS accurate)"
            else:
                fn = c[:-4]
                ref = getattr(np, fn)(inputs[fn].astype(np.float64))
                got = out(c, np.float32).reshape(SIDE, SIDE)
                peer()
                e_nx, b_nx = ulps(got, ref)
                e_np, b_np = ulps(z, ref)
                note = f"max ulp nx {e_nx:.3f}, numpy {e_np:.3f}"
                if b_nx or b_np:
                    note += f" (non-finite mismatches nx {b_nx}, numpy {b_np})"
                ok = e_nx <= 1 and b_nx == 0
                met_all &= ok
            if peer:
                tp = statistics.median(times[c][1])
                r = tp / tn
                met = r >= target
                met_all &= met
                tgt = f">= {target:.2f}" if target >= 0.9 else f">= {target:.2f} (within {1 / target:.1f}x)"
                print(f"  {c:24s} nx {tn * 1e9 / N:7.3f} ns  {label:9s} {tp * 1e9 / N:7.3f} ns  ratio {r:6.2f}"
                      f"  target {tgt}: {'met' if met else 'MISSED'}; {note}")
            else:
                print(f"  {c:24s} nx {tn * 1e9 / N:7.3f} ns  (no {label}); {note}")
        if bf["floor"]:
            fl, tb, tp = statistics.median(bf["floor"]), statistics.median(times["add_bf16"][0]), None
            print(f"  add_bf16 floor           memory floor {fl * 1e9 / N:7.3f} ns (read 2 + 2 bytes, write 2, streamed; "
                  f"one thread)  nx at {tb / fl:5.2f}x the floor")
            if ml_dtypes:
                tp = statistics.median(times["add_bf16"][1])
                print(f"  add_bf16 floor           ml_dtypes / floor {tp / fl:6.2f}: the most any one-thread kernel "
                      f"could reach against ml_dtypes (target 10)")
            td, fd = statistics.median(bf["default"]), statistics.median(bf["floor_default"])
            nthr = nx.ask("nthreads")
            line = f"  add_bf16 default threads nx on {nthr} threads {td * 1e9 / N:7.3f} ns"
            if tp:
                line += f"  ml_dtypes {tp * 1e9 / N:7.3f} ns  ratio {tp / td:6.2f} (target 10 is for one thread)"
            print(line)
            print(f"  add_bf16 default threads memory floor on {nthr} threads {fd * 1e9 / N:7.3f} ns  nx at {td / fd:5.2f}x"
                  f" that floor; ml_dtypes / that floor {tp / fd if tp else float('nan'):6.2f}")
        if not threads_case:
            nx.p.stdin.write("quit\n")
            nx.p.stdin.close()
            nx.p.wait()
            return
        t1, t2, tc = statistics.median(thr[1]), statistics.median(thr[2]), statistics.median(thr["control"])
        r, rc = t1 / t2, t1 / tc
        met_all &= r >= 1.7
        print(f"  exp_f32 threads          1 thread {t1 * 1e9 / N:7.3f} ns  2 threads {t2 * 1e9 / N:7.3f} ns"
              f"  speed-up {r:5.2f}  target >= 1.70: {'met' if r >= 1.7 else 'MISSED'}")
        print(f"  exp_f32 threads          plain-pthread control {tc * 1e9 / N:7.3f} ns  speed-up {rc:5.2f}"
              f" (what two threads give on this machine); nx's pool at {r / rc:5.2f} of the control")
        p1, p2 = statistics.median(thr["p1"]), statistics.median(thr["p2"])
        print(f"  exp_f32 threads          compute-only probe (FMA in registers, the same work per thread): "
              f"2 threads give {2 * p1 / p2:4.2f}x one (2: two free cores; 1: one core, or hyperthreads of one)")
        if only:
            nx.p.stdin.write("quit\n")
            nx.p.stdin.close()
            nx.p.wait()
            return
        # The serial threshold: one thread against two below and above it,
        # in cache; the crossover is the smallest size from which two threads
        # stay faster.
        rows = {}
        for ln in nx.lines("threshold"):
            _, op, n, t1, t2 = ln.split()
            rows.setdefault(op, []).append((int(n), float(t1), float(t2)))
        for op, bytes_per in (("add", 12), ("exp", 8)):
            r = rows[op]
            cross = next((n for i, (n, _, _) in enumerate(r) if all(b < a for _, a, b in r[i:])), None)
            sizes = "  ".join(f"{n}:{a / b:.2f}" for n, a, b in r)
            where = f"{cross} elements ({cross * bytes_per} bytes moved)" if cross else "none"
            print(f"  threshold {op}: 2-thread speed-up by size  {sizes}")
            print(f"  threshold {op}: two threads win from {where}")
        nx.p.stdin.write("quit\n")
        nx.p.stdin.close()
        nx.p.wait()
        print(f"kernels: {'every target met' if met_all else 'some targets MISSED'}")
    finally:
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        os.rmdir(d)


main()
