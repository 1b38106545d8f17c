#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""DLPack with a real client: numpy.

Over the shared library (argv[1], libnx.so) through ctypes:
  * nx -> numpy: an nx array exported with nx_array_to_dlpack goes to
    numpy.from_dlpack inside a PyCapsule named "dltensor_versioned"; numpy's
    array has nx's values, its data pointer is nx's buffer (no copy), writes
    through numpy show in nx_array_get, the read-only flag makes a read-only
    numpy array, and the deleter gives the buffer reference back once numpy
    lets the array go (also when numpy refuses a dtype it lacks).
  * numpy -> nx: a numpy array's __dlpack__(max_version=(1, 0)) capsule is
    imported with nx_array_from_dlpack (the capsule renamed
    "used_dltensor_versioned", as the protocol requires); the nx array has
    numpy's values at numpy's data pointer, writes through nx show in numpy,
    and freeing the nx array calls numpy's deleter once (numpy's reference to
    its array goes back).
Exit status 77 ("SKIP: ...") where numpy or a DLPack-versioned numpy is
missing.
"""
import ctypes
import gc
import sys

try:
    import numpy as np
except ImportError:
    print("SKIP: numpy is not installed")
    sys.exit(77)

if tuple(int(p) for p in np.__version__.split(".")[:2]) < (2, 1):
    print("SKIP: numpy %s predates versioned DLPack capsules (2.1)" % np.__version__)
    sys.exit(77)

checks = 0
failures = 0


def check(cond, what):
    global checks, failures
    checks += 1
    if not cond:
        failures += 1
        if failures <= 30:
            print("check failed: %s" % what, file=sys.stderr)


# ---- DLPack structures (include/dlpack/dlpack.h) -----------------------------

class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", DELETER), ("flags", ctypes.c_uint64),
                                     ("dl_tensor", DLTensor)]
PTENSOR = ctypes.POINTER(DLManagedTensorVersioned)
READ_ONLY = 1 << 0
IS_COPIED = 1 << 1


# ---- nx ---------------------------------------------------------------------

class NxComplex(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


class NxValue(ctypes.Union):
    _fields_ = [("f", ctypes.c_double), ("i", ctypes.c_int64), ("u", ctypes.c_uint64),
                ("c", NxComplex), ("b", ctypes.c_bool)]


# nx_dtype codes (nx_dtype.h's table order).
NX = {name: code for code, name in enumerate(
    ["float64", "float32", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn",
     "int64", "uint64", "int32", "uint32", "int16", "uint16", "int8", "uint8", "int4", "uint4",
     "complex128", "complex64", "bool", "bit"])}
NX_ACCESS_READ = 1
NX_MEMORY_DEVICE = 0

if len(sys.argv) < 2:
    print("usage: test_dlpack_numpy.py path/to/libnx.so", file=sys.stderr)
    sys.exit(2)
nx = ctypes.CDLL(sys.argv[1])
P = ctypes.c_void_p
PP = ctypes.POINTER(ctypes.c_void_p)
I64P = ctypes.POINTER(ctypes.c_int64)


def fn(name, res, *args):
    f = getattr(nx, name)
    f.restype = res
    f.argtypes = list(args)
    return f


nx_error_message = fn("nx_error_message", ctypes.c_char_p)
nx_array_of_array = fn("nx_array_of_array", ctypes.c_int, ctypes.c_int, I64P, ctypes.c_int,
                       ctypes.POINTER(NxValue), ctypes.c_int64, PP)
nx_array_free = fn("nx_array_free", None, P)
nx_array_get = fn("nx_array_get", ctypes.c_int, P, I64P, ctypes.POINTER(NxValue))
nx_array_set_ptr = nx["nx_array_set"]  # nx_value by value: called through a wrapper below
nx_array_dtype = fn("nx_array_dtype", ctypes.c_int, P)
nx_array_buffer = fn("nx_array_buffer", P, P)
nx_array_v = fn("nx_array_v", ctypes.c_int, ctypes.c_int, P, P, PP)
nx_layout_contiguous = fn("nx_layout_contiguous", ctypes.c_int, I64P, ctypes.c_int, P)
nx_buffer_create = fn("nx_buffer_create", ctypes.c_int, P, ctypes.c_int, ctypes.c_int, ctypes.c_int64, PP)
nx_buffer_release = fn("nx_buffer_release", None, P)
nx_buffer_refcount = fn("nx_buffer_refcount", ctypes.c_int, P)
nx_buffer_host_address = fn("nx_buffer_host_address", P, P)
nx_buffer_access = fn("nx_buffer_access", ctypes.c_int, P)
nx_buffer_hold_exclusive = fn("nx_buffer_hold_exclusive", ctypes.c_int, P)
nx_rig_host = fn("nx_rig_host", P)
nx_array_to_dlpack = fn("nx_array_to_dlpack", ctypes.c_int, P, ctypes.POINTER(PTENSOR))
nx_array_from_dlpack = fn("nx_array_from_dlpack", ctypes.c_int, P, PP)
nx_array_layout = fn("nx_array_layout", P, P)


class NxLayout(ctypes.Structure):
    _fields_ = [("rank", ctypes.c_int), ("offset", ctypes.c_int64),
                ("extent", ctypes.c_int64 * 32), ("stride", ctypes.c_int64 * 32)]


def err():
    return nx_error_message().decode()


def of_array(dt, shape, values):
    """An nx host array of dtype dt and that shape holding values (C order)."""
    n = len(values)
    xs = (NxValue * max(n, 1))()
    for k, v in enumerate(values):
        if dt.startswith("complex"):
            xs[k].c.re, xs[k].c.im = v.real, v.imag
        elif dt.startswith("float") or dt == "bfloat16":
            xs[k].f = float(v)
        elif dt.startswith("uint"):
            xs[k].u = int(v)
        elif dt.startswith("int"):
            xs[k].i = int(v)
        else:
            xs[k].b = bool(v)
    sh = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    a = ctypes.c_void_p()
    s = nx_array_of_array(NX[dt], sh, len(shape), xs, n, ctypes.byref(a))
    check(s == 0, "nx_array_of_array(%s): %s" % (dt, err()))
    return a


def get(a, index):
    v = NxValue()
    ix = (ctypes.c_int64 * max(len(index), 1))(*index)
    s = nx_array_get(a, ix, ctypes.byref(v))
    check(s == 0, "nx_array_get: %s" % err())
    return v


# nx_array_set takes an nx_value (a 16-byte union) by value, which ctypes
# cannot pass. The x86-64 System V ABI classes its first eightbyte INTEGER (i
# and u beside f) and its second SSE (c.im alone); AArch64 passes it, mixed,
# in two general registers. A struct of a 64-bit integer and a double is
# classed and passed the same way in both, so the call goes through one.
class TwoWords(ctypes.Structure):
    _fields_ = [("lo", ctypes.c_uint64), ("hi", ctypes.c_double)]


nx_array_set_ptr.restype = ctypes.c_int
nx_array_set_ptr.argtypes = [P, I64P, TwoWords]


def set_value(a, index, value):
    v = NxValue()
    if isinstance(value, float):
        v.f = value
    else:
        v.i = int(value)
    w = TwoWords.from_buffer_copy(bytes(v))
    ix = (ctypes.c_int64 * max(len(index), 1))(*index)
    return nx_array_set_ptr(a, ix, w)


# ---- Capsules -----------------------------------------------------------------

api = ctypes.pythonapi
CAPSULE_NAME = b"dltensor_versioned"
USED_NAME = b"used_dltensor_versioned"
PyCapsule_New = api.PyCapsule_New
PyCapsule_New.restype = ctypes.py_object
PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
PyCapsule_GetPointer = api.PyCapsule_GetPointer
PyCapsule_GetPointer.restype = ctypes.c_void_p
PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
PyCapsule_SetName = api.PyCapsule_SetName
PyCapsule_SetName.restype = ctypes.c_int
PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
PyCapsule_IsValid = api.PyCapsule_IsValid
PyCapsule_IsValid.restype = ctypes.c_int
PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
class Exported:
    """What numpy.from_dlpack takes: an object with __dlpack__ and
    __dlpack_device__, handing out one nx-made versioned capsule."""

    def __init__(self, t):
        self.t = t
        self.capsule = None

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        if max_version is None or max_version[0] < 1:
            raise BufferError("nx exports versioned DLPack tensors only")
        if copy:
            raise BufferError("nx exports without a copy")
        # No capsule destructor: a Python one cannot run while the consumer's
        # exception is pending. A capsule the consumer did not take (still
        # named dltensor_versioned) is given back by untaken() instead.
        self.capsule = PyCapsule_New(ctypes.cast(self.t, ctypes.c_void_p), CAPSULE_NAME, None)
        return self.capsule

    def untaken(self):
        """Runs the deleter of a capsule no consumer took; True if it did."""
        if self.capsule is not None and PyCapsule_IsValid(self.capsule, CAPSULE_NAME):
            self.t.contents.deleter(self.t)
            PyCapsule_SetName(self.capsule, USED_NAME)
            return True
        return False

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def export(a):
    t = PTENSOR()
    s = nx_array_to_dlpack(a, ctypes.byref(t))
    check(s == 0 and bool(t), "nx_array_to_dlpack: %s" % err())
    return t


# ---- nx -> numpy ------------------------------------------------------------

NUMPY_OF = {"float64": np.float64, "float32": np.float32, "float16": np.float16, "int64": np.int64,
            "uint64": np.uint64, "int32": np.int32, "uint32": np.uint32, "int16": np.int16,
            "uint16": np.uint16, "int8": np.int8, "uint8": np.uint8, "complex128": np.complex128,
            "complex64": np.complex64, "bool": np.bool_}


def values_for(dt, n):
    if dt.startswith("complex"):
        return [complex(k * 0.5, -k) for k in range(n)]
    if dt.startswith("float"):
        return [k * 0.25 - 1.0 for k in range(n)]
    if dt.startswith("uint"):
        return [(k * 37) % 256 for k in range(n)]
    if dt.startswith("int"):
        return [(k * 37) % 256 - 128 for k in range(n)]
    return [k % 3 == 0 for k in range(n)]


def test_nx_to_numpy():
    shape = (3, 4)
    for dt, npdt in NUMPY_OF.items():
        vals = values_for(dt, 12)
        a = of_array(dt, shape, vals)
        b = nx_array_buffer(a)
        refs = nx_buffer_refcount(b)
        t = export(a)
        if not t:
            nx_array_free(a)
            continue
        data = t.contents.dl_tensor.data
        check(data == nx_buffer_host_address(b), "%s: exported data is not the buffer" % dt)
        e = Exported(t)
        x = np.from_dlpack(e)
        check(not e.untaken(), "%s: numpy did not take the capsule" % dt)
        check(x.dtype == npdt and x.shape == shape, "%s: numpy sees %s %s" % (dt, x.dtype, x.shape))
        check(x.ctypes.data == data, "%s: numpy copied (%#x, nx %#x)" % (dt, x.ctypes.data, data))
        want = np.array(vals, dtype=npdt).reshape(shape)
        check(np.array_equal(x, want), "%s: numpy sees %r, not %r" % (dt, x, want))
        check(x.flags.writeable, "%s: a writable export is read-only in numpy" % dt)
        check(nx_buffer_hold_exclusive(b) != 0, "%s: exported memory held exclusive" % dt)
        # Writes through numpy are nx's elements: one memory.
        if dt != "bool":
            x[2, 3] = 5
            v = get(a, [2, 3])
            if dt.startswith("complex"):
                got = v.c.re
            elif dt.startswith("float"):
                got = v.f
            else:
                got = v.u if dt.startswith("uint") else v.i
            check(got == 5, "%s: numpy's write did not reach nx (%r)" % (dt, got))
        check(nx_buffer_refcount(b) == refs + 1, "%s: the tensor holds no reference" % dt)
        del x
        gc.collect()
        check(nx_buffer_refcount(b) == refs, "%s: after numpy let go, %d references, not %d (deleter not run once)"
              % (dt, nx_buffer_refcount(b), refs))
        nx_array_free(a)

    # A view: offset and negative strides travel.
    a = of_array("int32", (4, 6), list(range(24)))
    flipped = ctypes.c_void_p()
    # nx_array_bitcast/move need nx_move structures; a view is made over the
    # same buffer with nx_array_v and an explicit layout instead.
    lay = NxLayout()
    lay.rank, lay.offset = 2, 23
    lay.extent[0], lay.extent[1] = 4, 3
    lay.stride[0], lay.stride[1] = -6, -2
    s = nx_array_v(NX["int32"], ctypes.byref(lay), nx_array_buffer(a), ctypes.byref(flipped))
    check(s == 0, "nx_array_v: %s" % err())
    t = export(flipped)
    x = np.from_dlpack(Exported(t))
    want = np.arange(24, dtype=np.int32).reshape(4, 6)[::-1, ::-2]
    check(np.array_equal(x, want), "view: numpy sees %r, not %r" % (x, want))
    check(x.strides == (-24, -8), "view strides %r" % (x.strides,))
    check(x.ctypes.data == nx_buffer_host_address(nx_array_buffer(a)) + 23 * 4, "view: numpy copied")
    del x
    gc.collect()
    nx_array_free(flipped)
    check(nx_buffer_refcount(nx_array_buffer(a)) == 1, "view: references left")
    nx_array_free(a)

    # Read-only memory: a read-only numpy array.
    buf = ctypes.c_void_p()
    s = nx_buffer_create(nx_rig_host(), NX_MEMORY_DEVICE, NX_ACCESS_READ, 32, ctypes.byref(buf))
    check(s == 0, "nx_buffer_create: %s" % err())
    lay = NxLayout()
    sh = (ctypes.c_int64 * 1)(8)
    nx_layout_contiguous(sh, 1, ctypes.byref(lay))
    ro = ctypes.c_void_p()
    check(nx_array_v(NX["float32"], ctypes.byref(lay), buf, ctypes.byref(ro)) == 0, "nx_array_v: %s" % err())
    nx_buffer_release(buf)
    t = export(ro)
    check(t.contents.flags == READ_ONLY, "read-only flags %#x" % t.contents.flags)
    x = np.from_dlpack(Exported(t))
    check(not x.flags.writeable, "a read-only export is writable in numpy")
    try:
        x[0] = 1.0
        check(False, "numpy wrote to a read-only export")
    except ValueError:
        pass
    del x
    gc.collect()
    check(nx_buffer_refcount(nx_array_buffer(ro)) == 1, "read-only: references left")
    nx_array_free(ro)

    # bit: a bool copy numpy owns.
    bits = [k % 3 == 1 for k in range(11)]
    a = of_array("bit", (11,), bits)
    t = export(a)
    check(t.contents.flags == IS_COPIED and t.contents.dl_tensor.dtype.code == 6, "bit: flags or code")
    x = np.from_dlpack(Exported(t))
    check(x.dtype == np.bool_ and list(x) == bits, "bit copy: %r" % x)
    check(x.ctypes.data != nx_buffer_host_address(nx_array_buffer(a)), "bit: not a copy")
    del x
    gc.collect()
    nx_array_free(a)

    # A dtype numpy lacks: numpy refuses, the capsule it did not take runs
    # the deleter when it goes.
    for dt in ("bfloat16", "float8_e4m3fn", "int4"):
        a = of_array(dt, (4,), [0, 1, 1, 0])
        b = nx_array_buffer(a)
        t = export(a)
        e = Exported(t)
        try:
            np.from_dlpack(e)
            check(False, "numpy took %s" % dt)
        except (BufferError, TypeError, ValueError, RuntimeError):
            pass
        check(nx_buffer_refcount(b) == 2, "%s: the untaken tensor holds no reference" % dt)
        check(e.untaken(), "%s: numpy refused the dtype but took the capsule" % dt)
        check(nx_buffer_refcount(b) == 1, "%s: the deleter left %d references" % (dt, nx_buffer_refcount(b)))
        nx_array_free(a)


# ---- numpy -> nx ------------------------------------------------------------

def import_numpy(arr):
    """arr's versioned capsule into an nx array; the capsule marked used."""
    cap = arr.__dlpack__(max_version=(1, 0))
    check(PyCapsule_IsValid(cap, CAPSULE_NAME) == 1, "numpy gave no dltensor_versioned capsule")
    ptr = PyCapsule_GetPointer(cap, CAPSULE_NAME)
    # nx_array_from_dlpack takes the tensor whether it succeeds or fails.
    check(PyCapsule_SetName(cap, USED_NAME) == 0, "PyCapsule_SetName")
    a = ctypes.c_void_p()
    s = nx_array_from_dlpack(ptr, ctypes.byref(a))
    del cap
    return s, a


def first_address(a):
    lay = ctypes.cast(nx_array_layout(a), ctypes.POINTER(NxLayout)).contents
    return nx_buffer_host_address(nx_array_buffer(a)), lay


def test_numpy_to_nx():
    NX_OF = {np.dtype(v): k for k, v in NUMPY_OF.items()}
    for npdt in (np.float64, np.float32, np.float16, np.int64, np.uint64, np.int32, np.uint32, np.int16,
                 np.uint16, np.int8, np.uint8, np.complex128, np.complex64, np.bool_):
        base = (np.arange(24) * 3 % 7 - 2).astype(npdt).reshape(4, 6)
        for name, arr in (("whole", base), ("view", base[1:, ::-2]), ("scalar", base[2, 3, ...])):
            refs = sys.getrefcount(arr)
            s, a = import_numpy(arr)
            what = "%s %s" % (np.dtype(npdt).name, name)
            check(s == 0, "%s: nx_array_from_dlpack: %s" % (what, err()))
            if s:
                continue
            check(nx_array_dtype(a) == NX[NX_OF[np.dtype(npdt)]], "%s: nx dtype %d" % (what, nx_array_dtype(a)))
            check(sys.getrefcount(arr) > refs, "%s: numpy's tensor holds no reference" % what)
            host, lay = first_address(a)
            item = arr.itemsize
            check(host + lay.offset * item == arr.ctypes.data,
                  "%s: nx's first element at %#x, numpy's at %#x (a copy)"
                  % (what, host + lay.offset * item, arr.ctypes.data))
            check(lay.rank == arr.ndim and all(lay.extent[j] == arr.shape[j] for j in range(arr.ndim)),
                  "%s: shape" % what)
            check(all(lay.stride[j] * item == arr.strides[j] for j in range(arr.ndim) if arr.shape[j] > 1),
                  "%s: strides" % what)
            bad = 0
            for index in np.ndindex(*arr.shape):
                v = get(a, list(index))
                want = arr[index]
                if npdt in (np.complex128, np.complex64):
                    got = complex(v.c.re, v.c.im)
                elif npdt in (np.float64, np.float32, np.float16):
                    got = v.f
                elif npdt == np.bool_:
                    got = v.b
                elif np.dtype(npdt).kind == "u":
                    got = v.u
                else:
                    got = v.i
                bad += got != want
            check(bad == 0, "%s: %d elements differ" % (what, bad))
            if npdt in (np.float64, np.int32):
                # Writes through nx land in numpy's memory.
                index = [0] * arr.ndim
                check(set_value(a, index, 41.0 if npdt == np.float64 else 41) == 0, "%s: set: %s" % (what, err()))
                check(arr[tuple(index)] == 41, "%s: nx's write is not in numpy (%r)" % (what, arr[tuple(index)]))
            nx_array_free(a)
            gc.collect()
            check(sys.getrefcount(arr) == refs, "%s: numpy's deleter not run once (refcount %d, was %d)"
                  % (what, sys.getrefcount(arr), refs))

    # A read-only numpy array: a Read buffer that refuses writes.
    arr = np.arange(5, dtype=np.float64)
    arr.flags.writeable = False
    s, a = import_numpy(arr)
    check(s == 0, "read-only import: %s" % err())
    if s == 0:
        check(nx_buffer_access(nx_array_buffer(a)) == NX_ACCESS_READ, "read-only numpy: access %d"
              % nx_buffer_access(nx_array_buffer(a)))
        check(set_value(a, [1], 2.0) != 0 and "admits no write" in err(), "set on read-only: %s" % err())
        check(get(a, [4]).f == 4.0, "read-only values")
        nx_array_free(a)

    # Round trip numpy -> nx -> numpy: one memory throughout.
    arr = np.linspace(0, 1, 9, dtype=np.float32).reshape(3, 3)
    s, a = import_numpy(arr)
    check(s == 0, "import for the round trip: %s" % err())
    t = export(a)
    y = np.from_dlpack(Exported(t))
    check(y.ctypes.data == arr.ctypes.data and np.array_equal(y, arr), "numpy -> nx -> numpy copied")
    y[1, 1] = -3
    check(arr[1, 1] == -3, "round trip: the write did not reach the first array")
    refs = sys.getrefcount(arr)
    nx_array_free(a)
    check(sys.getrefcount(arr) == refs, "numpy's deleter ran while numpy still held nx's export")
    del y
    gc.collect()
    check(sys.getrefcount(arr) == refs - 1, "numpy's deleter did not run once the export went")


def main():
    test_nx_to_numpy()
    test_numpy_to_nx()
    print("%d checks, %d failed" % (checks, failures))
    return 1 if failures or checks == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
