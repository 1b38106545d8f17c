#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""DLPack exchange with numpy, over libnx.so through ctypes.

nx -> numpy: an nx array exported with nx_array_to_dlpack becomes a numpy
array over the same bytes (numpy.from_dlpack, no copy).
numpy -> nx: a numpy array's versioned DLPack capsule becomes an nx array
(nx_array_from_dlpack), again without a copy.

usage: dlpack_numpy.py [path/to/libnx.so]   (default: the one the loader finds)
Needs numpy 2.1 or later (versioned DLPack capsules).
"""
import ctypes
import ctypes.util
import sys

import numpy as np

lib = sys.argv[1] if len(sys.argv) > 1 else ctypes.util.find_library("nx")
if not lib:
    sys.exit("libnx.so not found: pass its path")
nx = ctypes.CDLL(lib)
P, PP = ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)
I64P = ctypes.POINTER(ctypes.c_int64)


class Value(ctypes.Union):  # nx_value
    _fields_ = [("f", ctypes.c_double), ("i", ctypes.c_int64), ("u", ctypes.c_uint64),
                ("c", ctypes.c_double * 2), ("b", ctypes.c_bool)]


class Managed(ctypes.Structure):  # DLManagedTensorVersioned, up to its deleter
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", P),
                ("deleter", ctypes.CFUNCTYPE(None, P))]


def fn(name, res, *args):
    f = getattr(nx, name)
    f.restype, f.argtypes = res, list(args)
    return f


error = fn("nx_error_message", ctypes.c_char_p)
of_array = fn("nx_array_of_array", ctypes.c_int, ctypes.c_int, I64P, ctypes.c_int, ctypes.POINTER(Value),
              ctypes.c_int64, PP)
get = fn("nx_array_get", ctypes.c_int, P, I64P, ctypes.POINTER(Value))
free = fn("nx_array_free", None, P)
to_dlpack = fn("nx_array_to_dlpack", ctypes.c_int, P, PP)
from_dlpack = fn("nx_array_from_dlpack", ctypes.c_int, P, PP)
describe = fn("nx_array_describe", ctypes.c_char_p, P, ctypes.c_char_p, ctypes.c_size_t)
NX_FLOAT32 = 1  # nx_dtype codes: nx dtypes lists them
USED = b"used_dltensor_versioned"

capsule_new = ctypes.pythonapi.PyCapsule_New
capsule_new.restype, capsule_new.argtypes = ctypes.py_object, [P, ctypes.c_char_p, P]
capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype, capsule_pointer.argtypes = P, [ctypes.py_object, ctypes.c_char_p]
capsule_rename = ctypes.pythonapi.PyCapsule_SetName
capsule_rename.restype, capsule_rename.argtypes = ctypes.c_int, [ctypes.py_object, ctypes.c_char_p]


def ok(status, what):
    if status != 0:
        sys.exit("%s: %s" % (what, error().decode()))


class Exported:
    """What numpy.from_dlpack takes: __dlpack__ hands out nx's tensor in a
    capsule named as the protocol says; numpy calls the tensor's deleter
    when its array goes."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        return capsule_new(self.tensor, b"dltensor_versioned", None)

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


# nx -> numpy
shape = (ctypes.c_int64 * 2)(2, 3)
values = (Value * 6)(*[Value(f=v) for v in (0.5, 1, 1.5, 2, 2.5, 3)])
a = P()
ok(of_array(NX_FLOAT32, shape, 2, values, 6, ctypes.byref(a)), "nx_array_of_array")
t = P()
ok(to_dlpack(a, ctypes.byref(t)), "nx_array_to_dlpack")
view = np.from_dlpack(Exported(t))
print("numpy sees nx's array:", view.dtype, view.shape, view.tolist())
view[1, 2] = 42  # a write through numpy lands in nx's buffer
v = Value()
ok(get(a, (ctypes.c_int64 * 2)(1, 2), ctypes.byref(v)), "nx_array_get")
print("nx reads back the element numpy wrote:", v.f)
del view  # numpy lets go: the deleter gives nx's buffer reference back
free(a)

# numpy -> nx
n = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]  # a strided view
cap = n.__dlpack__(max_version=(1, 0))
t = capsule_pointer(cap, b"dltensor_versioned")
b = P()
ok(from_dlpack(t, ctypes.byref(b)), "nx_array_from_dlpack")
# The consumer took it: renamed as the protocol says, and let go now, while
# the name (which the capsule does not copy) is alive.
capsule_rename(cap, USED)
del cap
buf = ctypes.create_string_buffer(64)
print("nx sees numpy's array:", describe(b, buf, 64).decode())
ok(get(b, (ctypes.c_int64 * 2)(2, 1), ctypes.byref(v)), "nx_array_get")
print("element [2, 1] through nx:", v.f, "numpy:", float(n[2, 1]))
free(b)  # nx calls numpy's deleter: numpy's reference to its array goes back
sys.exit(0 if v.f == n[2, 1] else 1)
