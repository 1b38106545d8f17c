#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The elementwise benchmark: nx's unary, binary, comparison, where and cast
operations on 4M contiguous elements of float32, float64, int32, int64 (and
int8, int16, uint8, bool where an operation or cast has them), each against
numpy 2.x's ufunc with out= (np.copyto(..., casting='unsafe') for the casts,
np.where for where, which has no out= and allocates its result; np.rint for
round, numpy's nearest to nx's half-away round), in one run: every round runs each case's nx call and
numpy's call in turn, and the figures are the medians of the rounds, in
CPU time of the calling thread on both sides (on a loaded machine the wall
clock measures the scheduler). nx runs
on one thread, as numpy does. The data stay in the last-level cache between
calls (no flush): the stricter comparison for compute, since the memory-bound
part shrinks. Each result is checked against numpy's bit for bit where numpy
means the same; where it does not, on the elements where it does (the
report says how many were left out and why).

usage: run_ops.py <bench_ops binary> [rounds]
NX_BENCH_CASES=<substring>,... runs only the cases whose names contain one;
NX_NO_HUGE=1 turns off numpy's transparent huge pages for its arrays (nx
asks for them on its own large buffers, src/rig/host.c)."""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

N = 1 << 22
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
rng = np.random.default_rng(5)
np.seterr(all="ignore")
if os.environ.get("NX_NO_HUGE"):
    np._core.multiarray._set_madvise_hugepage(False)

DT = {"float32": np.float32, "float64": np.float64, "int8": np.int8, "int16": np.int16, "int32": np.int32,
      "int64": np.int64, "uint8": np.uint8, "bool": np.bool_}
SHORT = {"float32": "f32", "float64": "f64", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
         "uint8": "u8", "bool": "bool"}


def inputs(dt, seed):
    """Values of dt: floats normal times 100 (so that casts into the small
    integers saturate) with a few special values; integers half in
    [-300, 300), half over the whole range; bool 0 or 1."""
    r = np.random.default_rng(seed)
    if dt in ("float32", "float64"):
        a = (r.standard_normal(N) * 100).astype(DT[dt])
        a[:8] = [0.0, -0.0, np.inf, -np.inf, np.nan, 0.5, -2.5, 1e30]
        return a
    if dt == "bool":
        return r.integers(0, 2, N).astype(np.bool_)
    info = np.iinfo(DT[dt])
    small = r.integers(max(-300, info.min), min(300, info.max), N, dtype=np.int64)
    full = r.integers(info.min, info.max, N, dtype=np.int64, endpoint=True)
    return np.where(r.integers(0, 2, N) == 1, small, full).astype(DT[dt])


UNARY = {"neg": np.negative, "abs": np.absolute, "sqrt": np.sqrt, "sign": np.sign, "trunc": np.trunc,
         "ceil": np.ceil, "floor": np.floor, "round": np.rint, "recip": np.reciprocal}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "fdiv": np.divide, "min": np.minimum,
          "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal}


def same_mask(op, src, dst_dt):
    """Where numpy's result means nx's: the elements to compare, and why the
    others differ (None: all compared)."""
    if op == "round":  # np.rint rounds halves to even, nx's round away from zero
        return np.abs(src - np.trunc(src)) != 0.5, "halves (numpy's rint rounds them to even)"
    if op == "sign" and src.dtype.kind == "f":  # numpy's sign(-0) is +0; nx keeps a zero's and a NaN's bits
        return ~np.isnan(src) & (src != 0), "NaN and zeros (nx keeps their bits; numpy's sign of -0 is +0)"
    if op != "cast":
        return None, None
    if dst_dt in ("float32", "float64", "bool") or src.dtype == np.bool_:
        return None, None
    info = np.iinfo(DT[dst_dt])
    if src.dtype.kind == "f":  # numpy's float-to-int outside the range is the C cast's (undefined)
        t = np.trunc(src.astype(np.float64))
        with np.errstate(invalid="ignore"):
            m = (t >= info.min) & (t <= info.max)
        return m, "out of range or NaN (nx saturates, NaN 0; numpy's C cast is undefined there)"
    v = src.astype(np.int64)
    return (v >= info.min) & (v <= info.max), "out of range (nx saturates, numpy wraps)"


class Nx:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        r = self.p.stdout.readline()
        if not r:
            sys.exit(f"bench_ops ended at {line!r}")
        return r.strip()


def main():
    d = tempfile.mkdtemp()
    nx = Nx(sys.argv[1])
    x, y, z = {}, {}, {}
    try:
        for i, dt in enumerate(DT):
            x[dt], y[dt] = inputs(dt, 10 + i), inputs(dt, 50 + i)
            y[dt][::3] = x[dt][::3]  # equal elements for the comparisons
            z[dt] = np.empty(N, DT[dt])
            for nm, a in (("x", x[dt]), ("y", y[dt])):
                path = os.path.join(d, f"{nm}_{dt}.bin")
                a.tofile(path)
                nx.ask(f"load {nm}_{dt} {dt} {N} {path}")
                os.unlink(path)
            nx.ask(f"new z_{dt} {dt} {N}")
        cond = rng.integers(0, 2, N).astype(np.bool_)
        cond.tofile(os.path.join(d, "cond.bin"))
        nx.ask(f"load cond bool {N} {os.path.join(d, 'cond.bin')}")
        nx.ask("threads 1")

        # case: name -> (nx command, numpy call, nx output, numpy output, op, source)
        cases = {}
        for dt in ("float32", "float64", "int32", "int64"):
            fl = dt.startswith("float")
            for op, f in UNARY.items():
                if fl or op in ("neg", "abs", "sign"):
                    cases[f"{op} {SHORT[dt]}"] = (f"run {op} z_{dt} x_{dt}", lambda f=f, dt=dt: f(x[dt], out=z[dt]),
                                                  dt, z[dt], op, x[dt])
            for op, f in BINARY.items():
                if (op == "fdiv" and not fl) or (op in ("and", "or", "xor") and fl):
                    continue
                cases[f"{op} {SHORT[dt]}"] = (f"run {op} z_{dt} x_{dt} y_{dt}",
                                              lambda f=f, dt=dt: f(x[dt], y[dt], out=z[dt]), dt, z[dt], op, x[dt])
        for dt in ("bool", "int8", "uint8"):
            for op in ("and", "or", "xor"):
                f = BINARY[op]
                cases[f"{op} {SHORT[dt]}"] = (f"run {op} z_{dt} x_{dt} y_{dt}",
                                              lambda f=f, dt=dt: f(x[dt], y[dt], out=z[dt]), dt, z[dt], op, x[dt])
        for dt in ("float32", "float64", "int32", "int64", "int8", "uint8"):
            for op, f in COMPARE.items():
                cases[f"{op} {SHORT[dt]}"] = (f"run {op} z_bool x_{dt} y_{dt}",
                                              lambda f=f, dt=dt: f(x[dt], y[dt], out=z["bool"]), "bool", z["bool"],
                                              op, x[dt])
        where_out = {}
        for dt in ("float32", "float64", "int32", "int64", "int8"):
            def wh(dt=dt):
                where_out[dt] = np.where(cond, x[dt], y[dt])
            cases[f"where {SHORT[dt]}"] = (f"run where z_{dt} cond x_{dt} y_{dt}", wh, dt, None, "where", x[dt])
        for src in DT:
            for dst in DT:
                if src != dst:
                    cases[f"cast {SHORT[src]}->{SHORT[dst]}"] = (
                        f"run cast z_{dst} x_{src}",
                        lambda s=src, t=dst: np.copyto(z[t], x[s], casting="unsafe"), dst, z[dst], "cast", x[src])
        only = [c for c in os.environ.get("NX_BENCH_CASES", "").split(",") if c]
        if only:
            cases = {k: v for k, v in cases.items() if any(o in k for o in only)}

        times = {c: ([], []) for c in cases}
        for r in range(ROUNDS + 1):  # the first round warms up (pages, caches) and is not counted
            for c, (cmd, peer, *_rest) in cases.items():
                tn = float(nx.ask(cmd))
                t0 = time.thread_time()
                peer()
                tp = time.thread_time() - t0
                if r:
                    times[c][0].append(tn)
                    times[c][1].append(tp)

        print(f"elementwise: {N} contiguous elements, medians of {ROUNDS} interleaved rounds, in cache, "
              "nx and numpy on 1 thread; ratio = numpy time / nx time, target >= 1")
        missed, differ = [], []
        for c, (cmd, peer, zdt, zout, op, src) in cases.items():
            nx.ask(cmd)
            path = os.path.join(d, "out.bin")
            nx.ask(f"dump z_{zdt} {path}")
            got = np.fromfile(path, dtype=DT[zdt])
            os.unlink(path)
            peer()
            want = where_out[zdt] if op == "where" else zout
            mask, why = same_mask(op, src, zdt)
            u = f"u{got.itemsize}"  # elements compared as their bits
            g, w = got.view(u), want.view(u)
            if mask is None:
                ok = np.array_equal(g, w)
                note = "bit-identical to numpy" if ok else "DIFFERS from numpy"
            else:
                ok = np.array_equal(g[mask], w[mask])
                left = int(N - np.count_nonzero(mask))
                note = (f"bit-identical to numpy on the {N - left} elements numpy means the same on"
                        if ok else "DIFFERS from numpy") + (f"; {left} left out: {why}" if left else "")
            if not ok:
                differ.append(c)
            tn, tp = statistics.median(times[c][0]), statistics.median(times[c][1])
            ratio = tp / tn
            met = ratio >= 1.0
            if not met:
                missed.append(c)
            print(f"  {c:18s} nx {tn * 1e9 / N:6.3f} ns  numpy {tp * 1e9 / N:6.3f} ns  ratio {ratio:5.2f}  "
                  f"{'met' if met else 'MISSED'}; {note}")
        nx.p.stdin.write("quit\n")
        nx.p.stdin.close()
        nx.p.wait()
        print(f"elementwise: {len(cases) - len(missed)} of {len(cases)} cases at numpy's speed or faster"
              + (f"; MISSED: {', '.join(missed)}" if missed else "; every target met"))
        if differ:
            print(f"elementwise: results DIFFER from numpy in {', '.join(differ)}")
    finally:
        for f in os.listdir(d):
            os.unlink(os.path.join(d, f))
        os.rmdir(d)


main()
