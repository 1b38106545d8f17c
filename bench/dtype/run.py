#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The dtype benchmark, in one run: nx's stores of float64 through the entry
points a user calls (nx_dtype_store_bits in a loop writing an output array,
and the bulk nx_dtype_store_n) against numpy's and ml_dtypes' casts into a
preallocated array, beside the memory floor (a loop that reads 8 bytes and
writes 2, or 1, per element); then nx_dtype_format_value against the C++
library's std::to_chars (Ryu's algorithm) for float64 and float32.

Data sets, 16M (out of cache) and 1M elements each:
  normal  standard normal doubles;
  mixed   25% normal, 65% log-uniform over 2^-30..2^20, 4% below float32's
          range (log-uniform 2^-1074..2^-150), 4% above it (2^129..2^1023),
          1% infinities and 1% NaN, random signs, shuffled.
nx and the peer run interleaved, on both data sets in every round, the
order turning from round to round, and the medians of the rounds are
printed; times are the thread's CPU time (the same as wall time on an idle
machine; on a shared one a preemption does not count). A round of the 1M sets makes 16 passes of
each (nx's and the peer's), one after another, and takes the median pass:
a single pass of a few milliseconds is at the mercy of the timer, a wake-up
or a preemption, and read the 1M stores 40% slower than the 16M ones. Every nx result is checked against the
peer's in the same run: the count of elements that differ, by reason; and the
bulk store against the scalar one (0 differ, or the run fails). The targets
of the scalar stores on mixed against normal data and of the bulk store
against the memory floor are judged by the ratios of adjacent passes
(bench_dtype's pair), which a shared machine's load moves far less than
figures timed apart.

usage: run.py <bench_dtype binary> [rounds]"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import ml_dtypes
except ImportError:  # the peers for the formats numpy lacks
    ml_dtypes = None

ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
SIZES = [("16M", 1 << 24), ("1M", 1 << 20)]
PASS_ELEMENTS = 1 << 24  # a round's passes over a set span at least this many elements
rng = np.random.default_rng(1)


def normal(n):
    return rng.standard_normal(n)


def mixed(n):
    kind = rng.choice(6, size=n, p=[0.25, 0.65, 0.04, 0.04, 0.01, 0.01])
    sign = rng.choice([-1.0, 1.0], size=n)
    x = np.empty(n)
    for k, f in enumerate([
        lambda m: rng.standard_normal(m),
        lambda m: np.exp2(rng.uniform(-30, 20, m)),
        lambda m: np.exp2(rng.uniform(-1074, -150, m)),
        lambda m: np.exp2(rng.uniform(129, 1023, m)),
        lambda m: np.full(m, np.inf),
        lambda m: np.full(m, np.nan),
    ]):
        sel = kind == k
        x[sel] = f(int(sel.sum()))
    return x * sign


FORMATS = [(2, "float16", np.float16, "numpy")]
if ml_dtypes is not None:
    FORMATS += [(3, "bfloat16", ml_dtypes.bfloat16, "ml_dtypes"), (4, "float8_e4m3fn", ml_dtypes.float8_e4m3fn, "ml_dtypes"),
                (5, "float8_e5m2", ml_dtypes.float8_e5m2, "ml_dtypes"), (6, "float4_e2m1fn", ml_dtypes.float4_e2m1fn, "ml_dtypes")]

proc = subprocess.Popen([sys.argv[1]], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def ask(cmd):
    proc.stdin.write(cmd + "\n")
    proc.stdin.flush()
    ans = proc.stdout.readline().split()
    if not ans or ans[0] == "error":
        sys.exit(f"bench_dtype: {cmd}: {' '.join(ans)}")
    return ans


def reasons(code, x, nx, peer, ptype):
    """The elements where nx and the peer differ, counted by why."""
    d = np.nonzero(nx != peer)[0]
    why = {}
    if len(d) == 0:
        return 0, why
    xd = x[d]
    via32 = xd.astype(np.float32).astype(ptype).view(peer.dtype)
    pd = peer[d]
    isnan_peer = np.isnan(peer.view(ptype)[d].astype(np.float64))
    for i in range(len(d)):
        xi = xd[i]
        if np.isnan(xi):
            r = "NaN: float4_e2m1fn has none, nx stores +0" if code == 6 else "NaN bits (sign or payload)"
        elif code == 4 and abs(xi) >= 464 and isnan_peer[i]:
            r = "overflow: the peer gives NaN, the store rule saturates to 448"
        elif pd[i] == via32[i]:
            r = "the peer rounds through float32 (double rounding)"
        else:
            r = "other"
        why[r] = why.get(r, 0) + 1
    return len(d), why


def cpu_ns():
    return time.thread_time_ns()  # the thread's CPU time, as bench_dtype's passes


results = []  # (size, set, format, peer name, medians, differ, why)
with tempfile.TemporaryDirectory() as tmp:
    for size, n in SIZES:
        xs = {}
        for setname, gen in [("normal", normal), ("mixed", mixed)]:
            xs[setname] = gen(n)
            path = os.path.join(tmp, f"{setname}_{size}.f64")
            xs[setname].tofile(path)
            ask(f"data {setname}_{size} {path}")
            os.unlink(path)
        reps = max(1, PASS_ELEMENTS // n)
        for code, fmt, ptype, peername in FORMATS:
            width = 2 if np.dtype(ptype).itemsize == 2 else 1
            outs = {s: np.empty(n, dtype=ptype) for s in xs}
            t = {(s, k): [] for s in xs for k in ("scalar", "bulk", "peer", "floor", "pair", "mix")}
            # Both data sets in every round, so that their ratio compares
            # figures taken at the same time of a run.
            for r in range(ROUNDS):
                def peer_run(s):
                    ts = []
                    for _ in range(reps):
                        t0 = cpu_ns()
                        with np.errstate(all="ignore"):
                            np.copyto(outs[s], xs[s], casting="unsafe")
                        ts.append((cpu_ns() - t0) / n)
                    t[(s, "peer")].append(statistics.median(ts))
                def nx_run(s):
                    name = f"{s}_{size}"
                    t[(s, "scalar")].append(float(ask(f"store scalar {code} {name} {reps}")[0]))
                    t[(s, "bulk")].append(float(ask(f"store bulk {code} {name} {reps}")[0]))
                    t[(s, "floor")].append(float(ask(f"store floor{width} {code} {name} {reps}")[0]))
                    t[(s, "pair")].append(float(ask(f"pair {code} bulk {name} floor{width} {name} {max(reps, 5)}")[0]))
                    if s == "mixed":
                        t[(s, "mix")].append(float(ask(f"pair {code} scalar {name} scalar normal_{size} {max(reps, 5)}")[0]))
                order = [(nx_run, "normal"), (peer_run, "normal"), (nx_run, "mixed"), (peer_run, "mixed")]
                if r % 2:
                    order = [order[1], order[0], order[3], order[2]]
                if r % 4 >= 2:
                    order = order[2:] + order[:2]
                for f, s in order:
                    f(s)
            for setname, x in xs.items():
                name = f"{setname}_{size}"
                ask(f"store scalar {code} {name}")
                dump = os.path.join(tmp, "nx.bin")
                ask(f"dump {dump}")
                nxbits = np.fromfile(dump, dtype=np.uint16 if width == 2 else np.uint8)
                os.unlink(dump)
                peerbits = outs[setname].view(np.uint16 if width == 2 else np.uint8)
                with np.errstate(all="ignore"):
                    differ, why = reasons(code, x, nxbits, peerbits, ptype)
                bulk_bad = int(ask(f"agree {code} {name}")[0])
                if bulk_bad:
                    sys.exit(f"bench_dtype: nx_dtype_store_n differs from nx_dtype_store_bits on {bulk_bad} elements of {fmt}, {name}")
                m = {k: statistics.median(t[(setname, k)]) if t[(setname, k)] else 0
                     for k in ("scalar", "bulk", "peer", "floor", "pair", "mix")}
                results.append((size, setname, fmt, peername, m, differ, why))

print(f"stores of float64 (ns of thread CPU time per element, medians of {ROUNDS} interleaved rounds; ratio = peer / nx, > 1: nx faster)")
ORDER = {k: i for i, k in enumerate([s for s, _ in SIZES] + ["normal", "mixed"] + [f[1] for f in FORMATS])}
for size, setname, fmt, peername, m, differ, why in sorted(results, key=lambda r: (ORDER[r[0]], ORDER[r[1]], ORDER[r[2]])):
    print(f"  {size:3s} {setname:6s} {fmt:14s} nx_dtype_store_bits {m['scalar']:6.3f}  nx_dtype_store_n {m['bulk']:6.3f}  "
          f"{peername} {m['peer']:6.3f}  floor {m['floor']:6.3f}  | peer/scalar {m['peer'] / m['scalar']:5.2f}  "
          f"peer/bulk {m['peer'] / m['bulk']:6.2f}  bulk/floor {m['bulk'] / m['floor']:5.2f} (adjacent passes {m['pair']:5.2f})")
    print(f"        differ from {peername}: {differ} of the elements" + "".join(f"; {v} {k}" for k, v in sorted(why.items())))
print("targets")
by = {(r[0], r[1], r[2]): r[4] for r in results}
missed = 0


def verdict(ok):
    global missed
    missed += not ok
    return "met" if ok else "MISSED"


for size, _ in SIZES:
    for code, fmt, _, peername in FORMATS:
        mix, nor = by[(size, "mixed", fmt)], by[(size, "normal", fmt)]
        ratio = mix['mix']
        line = (f"  {size:3s} {fmt:14s} scalar mixed/normal (adjacent passes) {ratio:5.2f}, timed apart "
                f"{mix['scalar'] / nor['scalar']:5.2f} (target <= 1.3: {verdict(ratio <= 1.3)})")
        if code != 2:
            need = 1 if code == 3 else 3
            worst_s = min(by[(size, s, fmt)]['peer'] / by[(size, s, fmt)]['scalar'] for s in ("normal", "mixed"))
            worst_b = min(by[(size, s, fmt)]['peer'] / by[(size, s, fmt)]['bulk'] for s in ("normal", "mixed"))
            line += (f"  vs {peername}, worst set: scalar {worst_s:5.2f}, bulk {worst_b:6.2f} "
                     f"(target >= {need}: {verdict(min(worst_s, worst_b) >= need)})")
        if code in (2, 3):
            worst = max(by[(size, s, fmt)]['pair'] for s in ('normal', 'mixed'))
            line += f"  bulk/floor (adjacent passes), worst set {worst:5.2f} (target <= 2: {verdict(worst <= 2)})"
        print(line)

print(f"printing (ns per value, 1M values, medians of {ROUNDS} interleaved rounds; ratio = std::to_chars / nx, target >= 1)")
for code, fmt in [(0, "float64"), (1, "float32")]:
    for setname, what in [("bits", "random finite bit patterns"), ("normal", "standard normal values")]:
        a = ask(f"print {code} {setname} {ROUNDS}")
        nxt, peer, differ, values = float(a[0]), float(a[1]), int(a[2]), int(a[3])
        print(f"  {fmt:8s} {what:27s} nx_dtype_format_value {nxt:7.2f}  std::to_chars {peer:7.2f}  ratio {peer / nxt:5.2f}  "
              f"digits differ on {differ} ({values} of them different values)  (target >= 1: {verdict(peer / nxt >= 1)})")
CROSS = 20  # million random bit patterns of each format, beside the timed million
for code, fmt in [(0, "float64"), (1, "float32")]:
    a = ask(f"crosscheck {code} {CROSS}")
    print(f"  {fmt:8s} digits against std::to_chars on {a[0]} more random finite bit patterns: {a[1]} differ")
    if int(a[1]):
        sys.exit(f"bench_dtype: nx_dtype_format_value's digits differ from std::to_chars on {a[1]} {fmt} values")
print(f"pp_value of the formats of 16 bits or fewer (M values/s of thread CPU time, 1M values of codes drawn uniformly, median of {ROUNDS} rounds; target >= 50)")
for code, fmt in [(2, "float16"), (3, "bfloat16"), (4, "float8_e4m3fn"), (5, "float8_e5m2"), (6, "float4_e2m1fn")]:
    a = ask(f"pp {code} {ROUNDS}")
    if int(a[1]):
        sys.exit(f"bench_dtype: nx_dtype_pp_value failed on {fmt}")
    print(f"  {fmt:14s} {float(a[0]):7.2f} M values/s  (target >= 50: {verdict(float(a[0]) >= 50)})")
print(f"{missed} target(s) MISSED" if missed else "every target met")
proc.stdin.write("quit\n")
proc.stdin.close()
proc.wait()
