# SPDX-License-Identifier: Apache-2.0
"""Projections against numpy: runs test_shape_proj --dump, which prints each
case's operands and the result its projections computed, and checks each
result against the numpy expression the case names (np.einsum, a slice, a
sliding window), element for element."""
import subprocess
import sys

try:
    import numpy as np
    from numpy.lib.stride_tricks import sliding_window_view  # noqa: F401
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)


def parse(line):
    head, _, vals = line.partition(":")
    parts = head.split()
    dims = [int(x) for x in parts[2:2 + int(parts[1])]]
    return np.array([float(v) for v in vals.split()], dtype=np.float64).reshape(dims)


def main():
    out = subprocess.run([sys.argv[1], "--dump"], check=True, capture_output=True, text=True).stdout
    cases, failures = 0, 0
    expr, ops = None, []
    for line in out.splitlines():
        if line.startswith("case "):
            expr, ops = line[5:], []
        elif line.startswith("op "):
            ops.append(parse(line))
        elif line.startswith("res "):
            got = parse(line)
            env = {"np": np, "sliding_window_view": sliding_window_view}
            env.update({"A%d" % i: a for i, a in enumerate(ops)})
            want = np.asarray(eval(expr, env), dtype=np.float64)
            cases += 1
            if want.shape != got.shape or not np.array_equal(want, got):
                failures += 1
                print("mismatch: %s\n  numpy %s\n  projections %s" % (expr, want.tolist(), got.tolist()))
    print("%d cases against numpy, %d failed" % (cases, failures))
    if cases < 10:
        print("too few cases ran")
        return 1
    return 1 if failures else 0


sys.exit(main())
