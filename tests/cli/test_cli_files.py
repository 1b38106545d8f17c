#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""nx convert, diff and show on tensor files written here byte by byte (the
standard library only, so it runs wherever python3 does): a <name>.scale
applied whatever the tensor's dtype, and an integer tensor into an integer
dtype kept scaled; a --scale amax that no float32 scale can meet refused
with no output; every line of diff --json a JSON object; show of a tensor
of no element "[]" whatever its shape.

usage: test_cli_files.py <nx program>"""
import json
import math
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

NX = sys.argv[1]
tmp = tempfile.mkdtemp(prefix="nx-cli-files-")
failures = 0


def check(cond, what):
    global failures
    if not cond:
        failures += 1
        print("FAIL: %s" % what)


def path(name):
    return os.path.join(tmp, name)


def nx(*args):
    p = subprocess.run([NX] + [str(a) for a in args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def save_st(name, tensors, metadata=None):
    """tensors: name -> (dtype string, shape, bytes)."""
    header, data = {}, b""
    for k, (dt, shape, raw) in tensors.items():
        header[k] = {"dtype": dt, "shape": list(shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path(name), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


def load_st(name):
    """name -> (dtype string, shape, bytes), and the metadata."""
    with open(path(name), "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    meta = header.pop("__metadata__", {})
    return {k: (v["dtype"], v["shape"], raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]])
            for k, v in header.items()}, meta


def npy(descr, shape, raw):
    shape_text = "(%s)" % "".join("%d," % d for d in shape) if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))
    h = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape_text)
    h += " " * (-(len(h) + 11) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode("latin-1") + raw


def npy_data(raw):
    """The element bytes of a version 1 .npy."""
    return raw[10 + struct.unpack("<H", raw[8:10])[0]:]


# ---- a <name>.scale applies whatever the tensor's dtype ------------------
# int8 [1, 2, 3] of scale 0.5 is [0.5, 1, 1.5]: convert multiplies it back
# into a float dtype, and diff, which compares scaled values, agrees.
save_st("q.safetensors", {"a": ("I8", [3], struct.pack("<3b", 1, 2, 3)), "a.scale": ("F32", [], struct.pack("<f", 0.5))},
        {"nx.scale.a": "0.5"})
save_st("qf.safetensors", {"a": ("F32", [3], struct.pack("<3f", 0.5, 1, 1.5))})
rc, o, e = nx("diff", path("q.safetensors"), path("qf.safetensors"))
check(rc == 0, "diff of int8 [1, 2, 3] scaled by 0.5 and float32 [0.5, 1, 1.5]: exit %d %s%s" % (rc, o, e))
rc, o, e = nx("convert", path("q.safetensors"), path("qc.safetensors"), "--to", "float32")
check(rc == 0 and e == "", "convert of a scaled int8 tensor to float32: %d %s" % (rc, e))
if rc == 0:
    t, meta = load_st("qc.safetensors")
    check(set(t) == {"a"} and "nx.scale.a" not in meta, "multiplied back, the scale is gone: %s %s" % (list(t), meta))
    check(t.get("a", (0, 0, b""))[2] == struct.pack("<3f", 0.5, 1, 1.5), "int8 times its scale: %r" % (t.get("a"),))
    rc, o, e = nx("show", path("qc.safetensors"))
    check(rc == 0 and o == "[0.5, 1, 1.5]\n", "show of the converted tensor: %r %s" % (o, e))
    rc, o, e = nx("diff", path("q.safetensors"), path("qc.safetensors"))
    check(rc == 0, "diff of the scaled int8 and its conversion agrees: %d %s%s" % (rc, o, e))
# An integer tensor into an integer dtype stays scaled: its integers cast,
# its scale written again (multiplying back would truncate 0.5 and 1.5).
rc, o, e = nx("convert", path("q.safetensors"), path("q16.safetensors"), "--to", "int16")
check(rc == 0, "convert of a scaled int8 tensor to int16: %d %s" % (rc, e))
if rc == 0:
    t, meta = load_st("q16.safetensors")
    check(t.get("a") == ("I16", [3], struct.pack("<3h", 1, 2, 3)), "the integers cast: %r" % (t.get("a"),))
    check(t.get("a.scale") == ("F32", [], struct.pack("<f", 0.5)) and meta.get("nx.scale.a") == "0.5",
          "the scale kept: %r %s" % (t.get("a.scale"), meta))
    rc, o, e = nx("diff", path("q.safetensors"), path("q16.safetensors"))
    check(rc == 0, "diff of the scaled int8 and its int16 agrees: %d %s%s" % (rc, o, e))
# A float tensor into an integer dtype: multiplied back, then the integer
# store truncates toward zero (1.5 -> 1, -2.5 -> -2).
save_st("h.safetensors", {"f": ("F16", [2], struct.pack("<2e", 3, -5)), "f.scale": ("F32", [], struct.pack("<f", 0.5))})
rc, o, e = nx("convert", path("h.safetensors"), path("hi.safetensors"), "--to", "int32")
check(rc == 0, "convert of a scaled float16 tensor to int32: %d %s" % (rc, e))
if rc == 0:
    t, meta = load_st("hi.safetensors")
    check(set(t) == {"f"} and t["f"] == ("I32", [2], struct.pack("<2i", 1, -2)), "float16 times 0.5, truncated: %r" % t)
# A scaled int8 tensor into float8 with --scale amax: its values (times
# 0.5) scaled by their amax, 1.5.
rc, o, e = nx("convert", path("q.safetensors"), path("q8.safetensors"), "--to", "float8_e4m3fn", "--scale", "amax")
check(rc == 0, "convert of a scaled int8 tensor to float8 --scale amax: %d %s" % (rc, e))
if rc == 0:
    t, meta = load_st("q8.safetensors")
    s = struct.unpack("<f", t["a.scale"][2])[0] if "a.scale" in t else 0
    check(s > 0 and 1.5 / s <= 448 and 1.5 / s > 447, "the scale maps 1.5 (3 x 0.5) onto 448: %r" % s)
    rc, o, e = nx("diff", path("q.safetensors"), path("q8.safetensors"), "--tol", "0.05")
    check(rc == 0, "diff of the scaled int8 and its float8: %d %s%s" % (rc, o, e))

# ---- --scale amax refused where no float32 scale reaches ----------------
# amax 1e300: amax / 448 is past float32's range, so no float32 s has
# amax / s <= 448. Refused, exit 1, no output (not a scale of inf and zeros).
os.mkdir(path("big"))
with open(path("big/h.npy"), "wb") as f:
    f.write(npy("<f8", [3], struct.pack("<3d", 1e300, 1.0, -3e299)))
rc, o, e = nx("convert", path("big/h.npy"), path("big/o.npz"), "--to", "float8_e4m3fn", "--scale", "amax")
check(rc == 1 and o == "" and "float32" in e and "'arr'" in e, "amax past any float32 scale refused: %d %r %r" % (rc, o, e))
check(sorted(os.listdir(path("big"))) == ["h.npy"], "no output written: %s" % os.listdir(path("big")))
# Just inside: amax 1e41, amax / 448 about 2.2e38 < FLT_MAX.
with open(path("big/g.npy"), "wb") as f:
    f.write(npy("<f8", [2], struct.pack("<2d", 1e41, -1.0)))
rc, o, e = nx("convert", path("big/g.npy"), path("big/g.npz"), "--to", "float8_e4m3fn", "--scale", "amax")
check(rc == 0, "amax 1e41 has a float32 scale: %d %s" % (rc, e))
if rc == 0:
    with zipfile.ZipFile(path("big/g.npz")) as z:
        s = struct.unpack("<f", npy_data(z.read("arr.scale.npy")))[0]
        q = npy_data(z.read("arr.npy"))
    check(math.isfinite(s) and 1e41 / s <= 448 and q[0] == 0x7E, "a finite scale, amax onto 448: %r %r" % (s, q))

# ---- diff --json: every line a JSON object -------------------------------
save_st("d1.safetensors", {"a": ("F32", [3], bytes(12)), "c": ("F32", [2], bytes(8)), "x": ("F32", [2], bytes(8)),
                           "same": ("F32", [1], bytes(4))})
save_st("d2.safetensors", {"a": ("F32", [4], bytes(16)), "b": ("F32", [2], bytes(8)), "x": ("C64", [2], bytes(16)),
                           "same": ("F32", [1], bytes(4))})
rc, o, e = nx("diff", "--json", path("d1.safetensors"), path("d2.safetensors"))
check(rc == 1, "diff --json with tensors that do not match: exit %d" % rc)
lines = {}
for line in o.splitlines():
    try:
        d = json.loads(line)
        check(isinstance(d, dict) and "name" in d, "diff --json line %r is an object with a name" % line)
        lines[d["name"]] = d
    except (ValueError, TypeError, KeyError):
        check(False, "diff --json line %r is JSON" % line)
check(lines.get("a") == {"name": "a", "a": "float32", "b": "float32", "a_shape": [3], "b_shape": [4], "mismatch": "shapes"},
      "shapes that differ: %r" % lines.get("a"))
check(lines.get("x", {}).get("mismatch") == "kinds" and lines["x"].get("b") == "complex64", "kinds: %r" % lines.get("x"))
check(lines.get("c") == {"name": "c", "only_in": "a", "file": path("d1.safetensors")}, "only in A: %r" % lines.get("c"))
check(lines.get("b") == {"name": "b", "only_in": "b", "file": path("d2.safetensors")}, "only in B: %r" % lines.get("b"))
check(lines.get("same", {}).get("differ") == 0, "a tensor compared: %r" % lines.get("same"))
rc, o, e = nx("diff", path("d1.safetensors"), path("d2.safetensors"))
check(rc == 1 and "shapes differ: float32 [3] and float32 [4]" in o and "only in " + path("d2.safetensors") in o,
      "the text form unchanged: %r" % o)


# ---- show: a tensor of no element is "[]" whatever its shape ------------
def show(spec, *args):
    """nx show's exit status and at most 64 KiB of its stdout: a show that
    prints without bound is cut there (and killed)."""
    p = subprocess.Popen([NX, "show", spec] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read(65536)
    if p.poll() is None and len(out) == 65536:
        p.kill()
    p.stdout.close()
    return p.wait(), out.decode("utf-8", "replace")


save_st("e.safetensors", {"huge": ("F32", [3000000000, 3000000000, 0], b""), "mid": ("F32", [2, 0, 3], b""),
                          "flat": ("F32", [0], b""), "some": ("F32", [2, 3], bytes(24))})
for spec, want in (("huge", "[]\n"), ("mid", "[]\n"), ("flat", "[]\n"), ("mid[1:1]", "[]\n"), ("some[:, 3:]", "[]\n"),
                   ("some[1:]", "[[0, 0, 0]]\n")):
    for args in ((), ("--full",)):
        rc, o = show(path("e.safetensors") + ":" + spec, *args)
        check(rc == 0 and o == want, "show %s %s prints %r, not %r" % (spec, " ".join(args), o[:200], want))
rc, o = show(path("e.safetensors"))
check(rc == 0 and o.count("[]\n") == 3 and len(o) < 500, "show of every tensor: %r" % o[:300])


# ---- a --only that matches nothing fails, as convert's does: a mistyped
# glob must not read as "no difference"
rc, o, e = nx("diff", path("d1.safetensors"), path("d2.safetensors"), "--only", "zz*")
check(rc == 1 and "matches zz*" in e and o == "", "diff --only matching nothing: %d %r %r" % (rc, o, e))
rc, o, e = nx("diff", path("d1.safetensors"), path("d1.safetensors"), "--only", "sa*")
check(rc == 0, "diff --only matching a tensor in both: %d %s" % (rc, e))

# ---- option spellings: --opt=value is --opt value; after --, a name that
# starts with '-' is a file
rc, o, e = nx("diff", "--only=zz*", path("d1.safetensors"), path("d2.safetensors"))
check(rc == 1 and "matches zz*" in e, "diff --only=GLOB: %d %r" % (rc, e))
save_st("-dash.safetensors", {"t": ("F32", [2], struct.pack("<2f", 1.5, -2))})
here = os.getcwd()
os.chdir(os.path.dirname(path("-dash.safetensors")))
try:
    rc, o, e = nx("convert", "--to=float16", "--", "-dash.safetensors", "-dash.npy")
    check(rc == 0 and os.path.exists("-dash.npy"), "convert -- -dash...: %d %s" % (rc, e))
    rc, o, e = nx("info", "--", "-dash.safetensors")
    check(rc == 0 and "1 tensor, 8 bytes of data" in o, "info -- -dash, one tensor counted in the singular: %r %s" % (o, e))
    rc, o, e = nx("info", "-dash.safetensors")
    check(rc == 2 and "unknown option" in e, "without --, -dash is an option: %d %s" % (rc, e))
finally:
    os.chdir(here)

print("%d failed" % failures)
sys.exit(1 if failures else 0)
