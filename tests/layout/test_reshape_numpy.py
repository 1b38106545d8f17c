#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""nx's reshape (nx_layout_move with nx_move_reshape) against numpy's no-copy
reshape, on random strided views of small extents.

A layout becomes a numpy view of a uint8 buffer through
np.lib.stride_tricks.as_strided (strides in elements = bytes at itemsize 1),
then numpy reshapes it without a copy: reshape(..., copy=False) where numpy
has it (>= 2.1), else the `a.shape = ...` setter, which raises where a copy
would be needed. nx must answer None exactly where numpy refuses, and
otherwise the view numpy makes: the same offset and the same strides on
every axis of extent 2 or more (for a result with an element).

Usage: test_reshape_numpy.py path/to/libnx.so. Exits 77 (skipped) without
numpy."""
import ctypes
import random
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

MAX_RANK = 32
NONE = 1
EINVAL = -1


class Layout(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int), ("offset", ctypes.c_int64),
                ("extent", ctypes.c_int64 * MAX_RANK), ("stride", ctypes.c_int64 * MAX_RANK)]


class Move(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("n", ctypes.c_int),
                ("a", ctypes.c_int64 * MAX_RANK), ("b", ctypes.c_int64 * MAX_RANK),
                ("c", ctypes.c_int64 * MAX_RANK)]


def main():
    if len(sys.argv) != 2:
        print("usage: test_reshape_numpy.py libnx.so")
        return 2
    lib = ctypes.CDLL(sys.argv[1])
    I64P = ctypes.POINTER(ctypes.c_int64)
    lib.nx_layout_make.argtypes = [ctypes.c_int, I64P, I64P, ctypes.c_int64, ctypes.POINTER(Layout)]
    lib.nx_layout_make.restype = ctypes.c_int
    lib.nx_move_reshape.argtypes = [ctypes.POINTER(Move), I64P, ctypes.c_int]
    lib.nx_move_reshape.restype = ctypes.c_int
    lib.nx_layout_move.argtypes = [ctypes.POINTER(Move), ctypes.POINTER(Layout), ctypes.POINTER(Layout)]
    lib.nx_layout_move.restype = ctypes.c_int
    lib.nx_error_message.restype = ctypes.c_char_p

    has_copy_arg = tuple(int(x) for x in np.__version__.split(".")[:2]) >= (2, 1)

    def numpy_reshape(view, shape):
        """The no-copy reshape of view, or None where numpy would copy."""
        if has_copy_arg:
            try:
                return view.reshape(shape, copy=False)
            except ValueError:
                return None
        v = view.view()
        try:
            v.shape = shape
        except AttributeError:
            return None
        return v

    def arr(xs):
        return (ctypes.c_int64 * max(1, len(xs)))(*xs)

    rng = random.Random(20240617)
    buf = np.zeros(1 << 16, dtype=np.uint8)
    base = buf.__array_interface__["data"][0]
    cases = nones = fails = 0
    for _ in range(20000):
        rank = rng.randint(0, 4)
        ext = [0 if rng.random() < 0.05 else rng.randint(1, 4) for _ in range(rank)]
        style = rng.random()
        if style < 0.4:
            # A view of a dense array: contiguous, then permuted, sliced, flipped.
            strides = [0] * rank
            s = 1
            for k in reversed(range(rank)):
                strides[k] = s * rng.choice([1, 1, 2])
                s *= max(ext[k], 1) * rng.choice([1, 1, 2])
            order = list(range(rank))
            rng.shuffle(order)
            strides = [strides[o] * rng.choice([1, -1]) for o in order]
        else:
            strides = [rng.randint(-6, 6) for _ in range(rank)]
        low = sum(st * (e - 1) for st, e in zip(strides, ext) if st < 0 and e > 0)
        offset = -low + rng.randint(0, 3)
        count = 1
        for e in ext:
            count *= e
        # A target shape: a factorization of the count, with 1s.
        n = rng.randint(0, 5)
        shape = [1] * n
        if count == 0:
            n = max(n, 1)
            shape = [rng.randint(0, 4) for _ in range(n)]
            shape[rng.randrange(n)] = 0
        elif n == 0:
            if count != 1:
                shape = [count]
        else:
            c, p = count, 2
            while c > 1:
                while c % p == 0:
                    shape[rng.randrange(n)] *= p
                    c //= p
                p += 1

        lay = Layout()
        st = lib.nx_layout_make(rank, arr(ext), arr(strides), offset, ctypes.byref(lay))
        if st != 0:
            print("nx_layout_make failed:", lib.nx_error_message().decode())
            fails += 1
            continue
        mv = Move()
        lib.nx_move_reshape(ctypes.byref(mv), arr(shape), len(shape))
        res = Layout()
        st = lib.nx_layout_move(ctypes.byref(mv), ctypes.byref(lay), ctypes.byref(res))

        view = np.lib.stride_tricks.as_strided(buf[offset:], shape=tuple(ext), strides=tuple(strides))
        got = numpy_reshape(view, tuple(shape))
        cases += 1
        what = "layout extents %s strides %s offset %d, reshape to %s" % (ext, strides, offset, shape)
        if got is None:
            nones += 1
            if st != NONE:
                fails += 1
                if fails <= 30:
                    print("FAIL: %s: numpy needs a copy, nx status %d" % (what, st))
            continue
        if st != 0:
            fails += 1
            if fails <= 30:
                print("FAIL: %s: numpy gives strides %s, nx status %d" % (what, got.strides, st))
            continue
        r_ext = list(res.extent[:res.rank])
        r_str = list(res.stride[:res.rank])
        ok = res.rank == len(shape) and r_ext == list(got.shape)
        if ok and got.size > 0:
            np_off = got.__array_interface__["data"][0] - base
            ok = res.offset == np_off and all(a == b for a, b, e in zip(r_str, got.strides, r_ext) if e >= 2)
        if not ok:
            fails += 1
            if fails <= 30:
                print("FAIL: %s: numpy gives strides %s offset %d, nx extents %s strides %s offset %d" % (
                    what, got.strides, got.__array_interface__["data"][0] - base, r_ext, r_str, res.offset))
    print("numpy %s (%s): %d reshapes, %d need a copy, %d failed" % (
        np.__version__, "copy=False" if has_copy_arg else "shape setter", cases, nones, fails))
    return 1 if fails or cases == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
