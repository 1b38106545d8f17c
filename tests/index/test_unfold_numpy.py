#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""nx_unfold and nx_fold against numpy, through the shared library with
ctypes: unfold of random float64 arrays (1 to 3 windowed axes, strides,
dilations, uneven padding) against numpy's sliding_window_view of the
padded array, element for element; conv2d as nx_unfold + nx_matmul against
numpy's einsum over the windows (float64 values that are small multiples
of 1/8, so every sum is exact and the comparison is bit for bit); fold
against numpy's np.add.at of the windows back into a padded array.

Usage: test_unfold_numpy.py path/to/libnx.so. Exits 77 (skipped) without
numpy."""
import ctypes
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

I64P = ctypes.POINTER(ctypes.c_int64)
VP = ctypes.c_void_p


def main():
    if len(sys.argv) != 2:
        print("usage: test_unfold_numpy.py libnx.so")
        return 2
    lib = ctypes.CDLL(sys.argv[1])
    lib.nx_error_message.restype = ctypes.c_char_p
    lib.nx_dtype_of_name.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
    lib.nx_array_host.argtypes = [ctypes.c_int, I64P, ctypes.c_int, ctypes.POINTER(VP)]
    lib.nx_array_buffer.argtypes = [VP]
    lib.nx_array_buffer.restype = VP
    lib.nx_buffer_host_address.argtypes = [VP]
    lib.nx_buffer_host_address.restype = VP
    lib.nx_array_free.argtypes = [VP]
    lib.nx_unfold_new.argtypes = [ctypes.POINTER(VP), VP, ctypes.c_int, I64P, I64P, I64P, I64P]
    lib.nx_fold_new.argtypes = [ctypes.POINTER(VP), VP, ctypes.c_int, I64P, I64P, I64P, I64P, I64P]
    lib.nx_matmul_new.argtypes = [ctypes.POINTER(VP), VP, VP]
    f64 = ctypes.c_int()
    assert lib.nx_dtype_of_name(b"float64", ctypes.byref(f64)) == 0

    def i64s(xs):
        return (ctypes.c_int64 * max(1, len(xs)))(*xs)

    def to_nx(a):
        a = np.ascontiguousarray(a, dtype=np.float64)
        h = VP()
        assert lib.nx_array_host(f64.value, i64s(a.shape), a.ndim, ctypes.byref(h)) == 0
        ctypes.memmove(lib.nx_buffer_host_address(lib.nx_array_buffer(h)), a.ctypes.data, a.nbytes)
        return h

    def from_nx(h, shape):
        out = np.empty(shape, dtype=np.float64)
        ctypes.memmove(out.ctypes.data, lib.nx_buffer_host_address(lib.nx_array_buffer(h)), out.nbytes)
        return out

    def np_unfold(x, k, size, stride, dil, pad):
        """[B..., C, s...] -> [B..., C * W, L] from numpy's windows."""
        lead = x.shape[: x.ndim - k]
        xp = np.pad(x, [(0, 0)] * len(lead) + [(pad[2 * j], pad[2 * j + 1]) for j in range(k)])
        spans = [dil[j] * (size[j] - 1) + 1 for j in range(k)]
        axes = tuple(range(len(lead), x.ndim))
        win = np.lib.stride_tricks.sliding_window_view(xp, spans, axis=axes)
        # every stride-th window, every dilation-th element of it
        win = win[(Ellipsis,) + tuple(slice(None, None, stride[j]) for j in range(k))
                  + tuple(slice(None, None, dil[j]) for j in range(k))]
        out = win.shape[len(lead): len(lead) + k]
        # [B..., C, o..., i...] -> [B..., C, i..., o...]
        n = len(lead)
        order = list(range(n)) + [n + k + j for j in range(k)] + [n + j for j in range(k)]
        w = np.ascontiguousarray(win.transpose(order))
        return w.reshape(lead[:-1] + (lead[-1] * int(np.prod(size)), int(np.prod(out)))), out

    rng = np.random.default_rng(11)
    failures = 0
    checks = 0
    cases = [
        ((2, 3, 7, 6), 2, (3, 2), (2, 1), (1, 2), (1, 0, 2, 1)),
        ((3, 11), 1, (4,), (3,), (2,), (3, 1)),
        ((2, 2, 5, 4, 6), 3, (2, 2, 3), (1, 2, 1), (2, 1, 1), (0, 1, 1, 0, 2, 2)),
        ((1, 4, 9, 9), 2, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1)),
    ]
    for shape, k, size, stride, dil, pad in cases:
        x = rng.integers(-8, 8, shape) / 8.0
        want, _ = np_unfold(x, k, size, stride, dil, pad)
        hx, hz = to_nx(x), VP()
        s = lib.nx_unfold_new(ctypes.byref(hz), hx, k, i64s(size), i64s(stride), i64s(dil), i64s(pad))
        checks += 1
        if s != 0:
            print("unfold", shape, "failed:", lib.nx_error_message().decode())
            failures += 1
            continue
        got = from_nx(hz, want.shape)
        checks += 1
        if not np.array_equal(got, want):
            print("unfold", shape, size, stride, dil, pad, ": differs from numpy in",
                  int((got != want).sum()), "of", want.size)
            failures += 1
        # fold: np.add.at of the windows back where unfold took them from
        cols = rng.integers(-8, 8, want.shape) / 8.0
        lead = shape[: len(shape) - k]
        padded = np.zeros(lead + tuple(shape[len(lead) + j] + pad[2 * j] + pad[2 * j + 1] for j in range(k)))
        idx = np.arange(padded.size).reshape(padded.shape)
        pidx, _ = np_unfold(idx.astype(np.float64), k, size, stride, dil, (0,) * (2 * k))
        flat = padded.reshape(-1)
        np.add.at(flat, pidx.astype(np.int64).reshape(-1), cols.reshape(-1))
        inner = tuple(slice(pad[2 * j], pad[2 * j] + shape[len(lead) + j]) for j in range(k))
        want_f = padded[(Ellipsis,) + inner]
        hc, hf = to_nx(cols), VP()
        s = lib.nx_fold_new(ctypes.byref(hf), hc, k, i64s(shape[len(lead):]), i64s(size), i64s(stride),
                            i64s(dil), i64s(pad))
        checks += 1
        if s != 0 or not np.array_equal(from_nx(hf, shape), want_f):
            print("fold", shape, "differs from numpy:", lib.nx_error_message().decode() if s else "")
            failures += 1
        for h in (hx, hz, hc, hf):
            lib.nx_array_free(h)

    # conv2d: w [O, C*3*3] @ unfold(x) against einsum over numpy's windows
    # (float64 matmul needs BLAS)
    lib.nx_have_blas.restype = ctypes.c_bool
    if not lib.nx_have_blas():
        print("(no BLAS: conv2d not checked)")
        print(f"{checks} checks, {failures} failed")
        return 1 if failures else 0
    x = rng.integers(-8, 8, (2, 3, 10, 9)) / 8.0
    w = rng.integers(-8, 8, (5, 3, 3, 3)) / 8.0
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.einsum("nchwij,ocij->nohw", np.lib.stride_tricks.sliding_window_view(xp, (3, 3), axis=(2, 3)), w)
    hx, hw, hc, hy = to_nx(x), to_nx(w.reshape(5, 27)), VP(), VP()
    s = lib.nx_unfold_new(ctypes.byref(hc), hx, 2, i64s((3, 3)), i64s((1, 1)), i64s((1, 1)), i64s((1, 1, 1, 1)))
    if s == 0:
        s = lib.nx_matmul_new(ctypes.byref(hy), hw, hc)
    checks += 1
    if s != 0:
        print("conv2d:", lib.nx_error_message().decode())
        failures += 1
    elif not np.array_equal(from_nx(hy, (2, 5, 90)).reshape(2, 5, 10, 9), ref):
        print("conv2d differs from numpy's einsum")
        failures += 1
    for h in (hx, hw, hc, hy):
        if h:
            lib.nx_array_free(h)
    print(f"{checks} checks, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
