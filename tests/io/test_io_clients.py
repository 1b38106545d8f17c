#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The io module with real clients, through the nx command (argv[1]):
numpy (np.save, np.savez, np.savez_compressed, np.load), ml_dtypes, the
safetensors package and the gguf package write files that nx reads bit for
bit, and read the files nx writes; the subcommands' --help, exit codes and
messages; a sparse 8 GiB safetensors file inspected and one tensor of it
converted with the resident memory bounded. Exit 77 ("SKIP: ...") where a
client is missing."""
import io
import json
import os
import pty
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

try:
    import ml_dtypes
    import numpy as np
    import safetensors
    import safetensors.numpy
    import gguf
except ImportError as e:
    print("SKIP: a client is not installed (%s): tools/install-deps.sh installs numpy, ml_dtypes, safetensors, gguf" % e)
    sys.exit(77)

NX = sys.argv[1]
checks = 0
failures = 0


def check(cond, what):
    global checks, failures
    checks += 1
    if not cond:
        failures += 1
        if failures <= 40:
            print("check failed: %s" % what, file=sys.stderr)


def nx(*args):
    p = subprocess.run([NX] + [str(a) for a in args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


tmp = tempfile.mkdtemp(prefix="nx-io-clients-")


def path(name):
    return os.path.join(tmp, name)


def same_bits(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    a = np.ascontiguousarray(a.astype(a.dtype.newbyteorder("<")))
    b = np.ascontiguousarray(b.astype(b.dtype.newbyteorder("<")))
    return a.tobytes() == b.tobytes()


rng = np.random.default_rng(5)
numeric = {"float64": "f8", "float32": "f4", "float16": "f2", "int64": "i8", "uint64": "u8", "int32": "i4",
           "uint32": "u4", "int16": "i2", "uint16": "u2", "int8": "i1", "uint8": "u1", "complex128": "c16",
           "complex64": "c8", "bool": "b1"}
numeric_name = {v: k for k, v in numeric.items()}


def sample(code, shape):
    dt = np.dtype(code)
    n = int(np.prod(shape))
    raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).tobytes()
    if dt.kind == "b":
        return (np.frombuffer(raw, np.uint8)[:n] & 1).astype(bool).reshape(shape)
    return np.frombuffer(raw, dt).reshape(shape).copy()


# ---- numpy writes, nx reads (every descr, both byte orders, Fortran, 0-d)
for name, code in numeric.items():
    for order in "<>":
        if order == ">" and code in ("i1", "u1", "b1"):
            continue
        for shape, fortran in (((3, 4), False), ((3, 4), True), ((), False), ((0, 2), False)):
            x = sample(order + code, shape)
            if fortran:
                x = np.asfortranarray(x)
            src, out = path("in.npy"), path("out.npz")
            np.save(src, x)
            rc, o, e = nx("convert", src, out, "--to", name)
            check(rc == 0, "nx convert of np.save %s%s %s: %s" % (order, code, shape, e))
            if rc == 0:
                y = np.load(out)["arr"]
                check(same_bits(x, y), "np.save %s%s %s fortran=%s read bit for bit" % (order, code, shape, fortran))

# ---- .npy versions 2 and 3 (numpy writes them for headers past 65535 bytes
# and for non-Latin-1 field names), on their own and inside an .npz
for version in ((2, 0), (3, 0)):
    for code, shape, fortran in (("<f4", (3, 4), False), (">f8", (3, 4), True), ("<i2", (), False), ("<c8", (5,), False)):
        x = sample(code, shape)
        if fortran:
            x = np.asfortranarray(x)
        with open(path("v.npy"), "wb") as fh:
            np.lib.format.write_array(fh, x, version=version)
        with open(path("v.npy"), "rb") as fh:
            check(fh.read(8)[6:8] == bytes(version), "numpy wrote version %s" % (version,))
        rc, o, e = nx("convert", path("v.npy"), path("v1.npy"), "--to", numeric_name[code[1:]])
        check(rc == 0 and same_bits(x, np.load(path("v1.npy"))),
              ".npy version %d.%d %s %s fortran=%s read bit for bit: %s" % (version + (code, shape, fortran, e)))
        buf = io.BytesIO()
        np.lib.format.write_array(buf, x, version=version)
        with zipfile.ZipFile(path("v.npz"), "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("w.npy", buf.getvalue())
        rc, o, e = nx("convert", path("v.npz"), path("v1.npz"), "--to", numeric_name[code[1:]])
        check(rc == 0 and same_bits(x, np.load(path("v1.npz"))["w"]),
              "an .npz entry of .npy version %d.%d %s read bit for bit: %s" % (version + (code, e)))
# nx writes version 1: its longest header, 32 axes of int64 extents, fits in
# version 1's 65535 bytes, and version 3's field names are for structured
# dtypes, which nx does not write. The largest rank reads back in numpy.
x = np.arange(2, dtype="<f4").reshape((2,) + (1,) * 31)
np.save(path("r32.npy"), x)
rc, o, e = nx("convert", path("r32.npy"), path("r32out.npy"), "--to", "float32")
with open(path("r32out.npy"), "rb") as fh:
    head = fh.read(10)
check(rc == 0 and head[6:8] == b"\x01\x00" and same_bits(x, np.load(path("r32out.npy"))),
      "a rank-32 array written as .npy version 1 that numpy reads: %s %r" % (e, head))

# ---- ml_dtypes' descrs: <V2, |V1 and <f1 read as raw bytes / float8_e5m2
x = (rng.standard_normal(10) * 4).astype(ml_dtypes.bfloat16)
np.save(path("bf.npy"), x)
rc, o, e = nx("info", "--json", path("bf.npy"))
info = json.loads(o) if rc == 0 else {}
check(rc == 0 and info["tensors"][0]["dtype"] == "raw16" and info["tensors"][0]["type"] in ("<V2", "|V2"),
      "a bfloat16 .npy is raw 16-bit bytes: %s %s" % (o, e))
rc, o, e = nx("convert", path("bf.npy"), path("bf.safetensors"), "--to", "bfloat16", "--as", "bfloat16")
check(rc == 0, "--as bfloat16: %s" % e)
if rc == 0:
    d = dict(safetensors.deserialize(open(path("bf.safetensors"), "rb").read()))
    check(d["arr"]["dtype"] in ("BF16", "bfloat16") and bytes(d["arr"]["data"]) == x.tobytes(), "raw <V2 as bfloat16")
# without --as the raw codes are no numbers: convert, show and diff refuse
for args in (("convert", path("bf.npy"), path("bf2.safetensors"), "--to", "bfloat16"), ("show", path("bf.npy")),
             ("diff", path("bf.npy"), path("bf.npy"))):
    rc, o, e = nx(*args)
    check(rc == 1 and "holds raw 16-bit elements" in e and "--as" in e, "%s of a raw tensor without --as: %s %s" % (args[0], rc, e))
# ml_dtypes' 4-bit formats, one element per byte (|V1 or <V1): --as reads them
for t, vals in ((ml_dtypes.int4, [-1, 1, -6, 5, 0, 7, -8]), (ml_dtypes.uint4, [1, 15, 0, 7, 3]),
                (ml_dtypes.float4_e2m1fn, [-1, 1, -6, 0.5, 0, 3, -0.0])):
    x = np.array(vals, dtype=t)
    np.save(path("q4.npy"), x)
    name = t.__name__
    # through float32 and back: each value read from its byte's low nibble
    rc, o, e = nx("convert", path("q4.npy"), path("q4f.npy"), "--as", name, "--to", "float32")
    y = np.load(path("q4f.npy")) if rc == 0 else None
    check(y is not None and same_bits(x.astype(np.float32), y), "%s via --as: %s %s" % (name, y, e))
    rc, o, e = nx("convert", path("q4.npy"), path("q4b.npy"), "--as", name, "--to", name)
    y = np.load(path("q4b.npy")).view(t) if rc == 0 else None
    check(y is not None and same_bits(x.view(np.uint8) & 0xF, y.view(np.uint8) & 0xF), "%s kept: %s %s" % (name, y, e))

# nx's .npy of the formats numpy lacks is np.save's of ml_dtypes' arrays,
# byte for byte ('<V2', '<V1'), but float8_e5m2: ml_dtypes' '<f1' is one
# numpy's reader refuses, so nx writes '<V1' there
for name in ("bfloat16", "float8_e4m3fn", "float8_e5m2", "float4_e2m1fn", "int4", "uint4"):
    t = getattr(ml_dtypes, name)
    x = np.array([0, 1, -1, 2, 0.5] if "float" in name else [0, 1, 3, 2, 5], dtype=np.float32)
    np.save(path("src32.npy"), x)
    rc, o, e = nx("convert", path("src32.npy"), path("small.npy"), "--to", name)
    ref = path("ref.npy")
    np.save(ref, x.astype(t))
    got = open(path("small.npy"), "rb").read() if rc == 0 else b""
    want = open(ref, "rb").read()
    if name == "float8_e5m2":
        want = want.replace(b"'<f1'", b"'<V1'")
    check(got == want, "%s written as np.save writes ml_dtypes: %s %r %r" % (name, e, got[:70], want[:70]))

# ---- descrs other writers use, which numpy's reader takes: type characters,
# names, no byte order; np.load's values are the reference
def npy_with(descr, data):
    d = "{'descr': '%s', 'fortran_order': False, 'shape': (%d,), }" % (descr, len(data) // np.dtype(descr).itemsize)
    d += " " * (63 - (10 + len(d)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode() + data
for descr in ("f4", "?", "float32", "d", "int16", "B", "u8", "c8", "e"):
    data = sample(np.dtype(descr).str, (6,)).tobytes()
    with open(path("d.npy"), "wb") as fh:
        fh.write(npy_with(descr, data))
    want = np.load(path("d.npy"))
    name = "bool" if want.dtype == np.bool_ else str(want.dtype)
    rc, o, e = nx("convert", path("d.npy"), path("d2.npy"), "--to", name)
    check(rc == 0 and same_bits(want, np.load(path("d2.npy"))), "descr %r read as numpy reads it: %s" % (descr, e))
with open(path("d.npy"), "wb") as fh:
    fh.write(npy_with("<f16", b"\0" * 32))
rc, o, e = nx("info", path("d.npy"))
check(rc == 1 and "of 16 bytes, which nx has no dtype for" in e, "long double named as such: %s" % e)

# ---- .npz entry names as numpy's zipfile reads them: an ASCII name with a
# control byte is its bytes; a non-ASCII one UTF-8
np.savez(path("names.npz"), **{"e\x01f": np.arange(3, dtype=np.int32), "caf\u00e9": np.ones(2, np.float32)})
rc, o, e = nx("info", "--json", path("names.npz"))
names = sorted(t["name"] for t in json.loads(o)["tensors"]) if rc == 0 else []
check(names == sorted(np.load(path("names.npz")).files), "npz names as numpy reads them: %r %s" % (names, e))

# ---- nx diff: integers compared exactly (past 2^53 too), a complex element counted once
np.save(path("i1.npy"), np.array([2**60, 5, -2**62], np.int64))
np.save(path("i2.npy"), np.array([2**60 + 1, 5, -2**62 + 1], np.int64))
np.save(path("u1.npy"), np.array([2**64 - 1], np.uint64))
np.save(path("u2.npy"), np.array([2**64 - 2], np.uint64))
np.save(path("c1.npy"), np.array([1 + 1j, 2, 3], np.complex64))
np.save(path("c2.npy"), np.array([1 + 2j, 2, 3], np.complex64))
for a, b, n, differ in (("i1", "i2", 3, 2), ("u1", "u2", 1, 1), ("i1", "i1", 3, 0), ("c1", "c2", 3, 1)):
    rc, o, e = nx("diff", path(a + ".npy"), path(b + ".npy"), "--json")
    d = json.loads(o) if o.strip() else {}
    check(rc == (1 if differ else 0) and d.get("elements") == n and d.get("differ") == differ,
          "diff %s %s: %d of %d differ: %s %s" % (a, b, differ, n, o, e))
    if a == "c1" and d:
        check(abs(d["rms"] - (1 / 3) ** 0.5) < 1e-12 and d["max_abs"] == 1, "complex diff by modulus: %s" % o)

# ---- np.savez and np.savez_compressed (ZIP64 local headers), nx reads
for save in (np.savez, np.savez_compressed):
    for name, code in numeric.items():
        xs = {"a": sample("<" + code, (5, 3)), "b": sample("<" + code, (7,)), "c": sample("<" + code, ())}
        save(path("in.npz"), **xs)
        rc, o, e = nx("convert", path("in.npz"), path("out.npz"), "--to", name)
        check(rc == 0, "%s %s: %s" % (save.__name__, name, e))
        if rc == 0:
            y = np.load(path("out.npz"))
            check(sorted(y.files) == ["a", "b", "c"] and all(same_bits(xs[k], y[k]) for k in xs),
                  "%s %s read bit for bit" % (save.__name__, name))

# ---- safetensors writes, nx reads; nx writes, safetensors reads
st_numeric = {k: v for k, v in numeric.items() if k != "complex128"}
for name, code in st_numeric.items():
    xs = {"w": sample("<" + code, (4, 6)), "s": sample("<" + code, ()), "z": sample("<" + code, (0, 3))}
    safetensors.numpy.save_file(xs, path("in.safetensors"), metadata={"who": "safetensors"})
    rc, o, e = nx("convert", path("in.safetensors"), path("out.safetensors"), "--to", name)
    check(rc == 0, "safetensors %s: %s" % (name, e))
    if rc == 0:
        y = safetensors.numpy.load_file(path("out.safetensors"))
        check(all(same_bits(xs[k], y[k]) for k in xs), "safetensors %s both ways bit for bit" % name)
        with safetensors.safe_open(path("out.safetensors"), "np") as f:
            check(f.metadata() == {"who": "safetensors"}, "metadata kept: %s" % f.metadata())

# nx's float8, float4 and bfloat16 stores against ml_dtypes (round to nearest
# even, values inside the range), read back by safetensors' own parser.
x = (rng.standard_normal(256) * 3).astype(np.float32)
x[:4] = [0.0, -0.0, 1.0, -2.5]
safetensors.numpy.save_file({"x": x}, path("f32.safetensors"))
for to, ml, st in (("bfloat16", ml_dtypes.bfloat16, "bfloat16"), ("float8_e4m3fn", ml_dtypes.float8_e4m3fn, "float8_e4m3fn"),
                   ("float8_e5m2", ml_dtypes.float8_e5m2, "float8_e5m2")):
    rc, o, e = nx("convert", path("f32.safetensors"), path("low.safetensors"), "--to", to)
    check(rc == 0, "to %s: %s" % (to, e))
    if rc == 0:
        d = dict(safetensors.deserialize(open(path("low.safetensors"), "rb").read()))
        check(bytes(d["x"]["data"]) == x.astype(ml).tobytes(), "nx's %s stores are ml_dtypes'" % to)
y = np.clip(x, -6, 6)
safetensors.numpy.save_file({"y": y}, path("f32b.safetensors"))
rc, o, e = nx("convert", path("f32b.safetensors"), path("f4.safetensors"), "--to", "float4_e2m1fn")
check(rc == 0, "to float4: %s" % e)
if rc == 0:
    d = dict(safetensors.deserialize(open(path("f4.safetensors"), "rb").read()))
    codes = y.astype(ml_dtypes.float4_e2m1fn).view(np.uint8)
    packed = (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8).tobytes()
    check(bytes(d["y"]["data"]) == packed, "float4 packed two to a byte, element 0 low")

# --scale amax: float8 keeps the range; <name>.scale and the metadata hold it.
big = (rng.standard_normal((8, 8)) * 1000).astype(np.float32)
safetensors.numpy.save_file({"big": big}, path("big.safetensors"))
rc, o, e = nx("convert", path("big.safetensors"), path("big8.safetensors"), "--to", "float8_e4m3fn", "--scale", "amax")
check(rc == 0, "--scale amax: %s" % e)
if rc == 0:
    d = dict(safetensors.deserialize(open(path("big8.safetensors"), "rb").read()))
    scale = np.frombuffer(bytes(d["big.scale"]["data"]), np.float32)[0]
    q = np.frombuffer(bytes(d["big"]["data"]), ml_dtypes.float8_e4m3fn).astype(np.float64).reshape(8, 8)
    check(np.max(np.abs(q)) <= 448 and np.max(np.abs(q)) > 400, "amax maps onto 448: %s" % np.max(np.abs(q)))
    check(bytes(d["big"]["data"]) == (big.astype(np.float64) / np.float64(scale)).astype(ml_dtypes.float8_e4m3fn).tobytes(),
          "each element is x / scale stored once")
    with safetensors.safe_open(path("big8.safetensors"), "np") as f:
        meta = f.metadata()
    check(meta and abs(float(meta["nx.scale.big"]) - scale) <= 1e-6 * scale, "the scale in the metadata: %s" % meta)
    rc, o, e = nx("diff", path("big.safetensors"), path("big8.safetensors"), "--json")
    r = json.loads(o.splitlines()[0]) if o else {}
    check(rc == 1 and r.get("ulp_histogram", {}).get(">4", 1) == 0 and r["ulp_histogram"]["<=1"] == 0
          and r["ulp_histogram"]["<=2"] == 0, "every error at most half an ulp of float8: %s" % o)
    rc, o, e = nx("diff", path("big.safetensors"), path("big8.safetensors"), "--tol", "1000")
    check(rc == 0, "within --tol: exit 0")

# ---- diff --json stays JSON where an error is infinite; kinds that differ said so
safetensors.numpy.save_file({"x": np.array([np.nan, np.inf, 1, 0], np.float32)}, path("na.safetensors"))
safetensors.numpy.save_file({"x": np.array([1, -np.inf, 2, 0], np.float32)}, path("nb.safetensors"))
rc, o, e = nx("diff", "--json", path("na.safetensors"), path("nb.safetensors"))
try:
    r = json.loads(o.splitlines()[0])
except (ValueError, IndexError):
    r = None
check(rc == 1 and r is not None and r["max_abs"] == "inf" and r["rms"] == "inf", "diff --json with inf: %r %s" % (o, e))
safetensors.numpy.save_file({"x": np.zeros((3, 5), np.complex64)}, path("cx.safetensors"))
safetensors.numpy.save_file({"x": np.zeros((3, 5), np.float32)}, path("re.safetensors"))
rc, o, e = nx("diff", path("cx.safetensors"), path("re.safetensors"))
check(rc == 1 and "kinds (complex and real) differ" in o and "shapes" not in o, "diff complex against real: %r" % o)

# ---- gguf writes, nx reads; quantized types listed and refused
w = gguf.GGUFWriter(path("m.gguf"), "llama")
w.add_uint32("answer", 42)
w.add_string("name", "tiny")
w.add_array("list", [1, 2, 3])
w.add_array("words", ["a", "b,c", "", 'say "hi"'])
w.add_string("lines", "one\ntwo")
gx = {"f32": sample("<f4", (3, 8)), "f16": sample("<f2", (2, 4)), "i8": sample("<i1", (5,)), "i32": sample("<i4", (2, 2)),
      "f64": sample("<f8", (3,))}
for k, v in gx.items():
    w.add_tensor(k, v)
w.add_tensor("q", np.zeros((2, 34), np.uint8), raw_shape=(2, 34), raw_dtype=gguf.GGMLQuantizationType.Q8_0)
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()
rc, o, e = nx("info", "--json", path("m.gguf"))
check(rc == 0, "gguf info: %s" % e)
if rc == 0:
    info = json.loads(o)
    t = {x["name"]: x for x in info["tensors"]}
    check(t["q"]["type"] == "Q8_0" and t["q"]["dtype"] is None and t["q"]["shape"] == [2, 32], "Q8_0 listed: %s" % t["q"])
    check(t["f32"]["shape"] == [3, 8] and info["metadata"]["answer"] == "42" and info["metadata"]["name"] == "tiny",
          "gguf shapes in C order and metadata: %s" % info)
    check(info["metadata"]["list"] == "[1, 2, 3] (3 values)" and
          info["metadata"]["words"] == '["a", "b,c", "", "say \\"hi\\""] (4 values)',
          "gguf arrays, strings in them quoted: %r %r" % (info["metadata"]["list"], info["metadata"]["words"]))
rc, o, e = nx("info", path("m.gguf"))
check(rc == 0 and "  lines: one\\ntwo\n" in o, "a line break in a value shown escaped, one pair a line: %r" % o)
for name, v in gx.items():
    rc, o, e = nx("convert", path("m.gguf"), path("g.npz"), "--only", name, "--to", str(v.dtype) if v.dtype != np.float16 else "float16")
    check(rc == 0 and same_bits(v, np.load(path("g.npz"))[name]), "gguf %s read bit for bit: %s" % (name, e))
rc, o, e = nx("convert", path("m.gguf"), path("gq.npz"), "--to", "float32")
check(rc == 1 and "Q8_0" in e and "'q'" in e and not os.path.exists(path("gq.npz")),
      "a quantized tensor refused, nothing written: %s" % e)

# ---- what the peers make and refuse at the formats' edges
# GGUF: a string value past 256 bytes is cut between characters; keys are
# unique and UTF-8, as gguf's reader requires
w = gguf.GGUFWriter(path("u.gguf"), "llama")
w.add_string("long", "a" * 255 + "\u00e9" * 10)
w.add_tensor("t", np.zeros(2, np.float32))
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
rc, o, e = nx("info", "--json", path("u.gguf"))
try:
    info = json.loads(o)
except ValueError:
    info = {}
check(rc == 0 and info.get("metadata", {}).get("long") == "a" * 255, "a long GGUF string cut between characters: %r %s" % (o[:400], e))
raw = open(path("u.gguf"), "rb").read()
for bad, what in ((raw.replace(b"long", b"lon\xff", 1), "not UTF-8"), (raw.replace(b"general.architecture", b"long".ljust(20, b"\0"), 1), None)):
    open(path("bad.gguf"), "wb").write(bad)
    rc, o, e = nx("info", path("bad.gguf"))
    check(rc == 1 and "nx_io_open" in e and (what or "given twice" in e or "NUL" in e) and (what is None or what in e),
          "a GGUF key refused (%s): %s" % (what or "repeated", e))
# the same key twice, as gguf's reader refuses it
def gguf_kv(key, value):
    k, v = key.encode(), value.encode()
    return struct.pack("<Q", len(k)) + k + struct.pack("<I", 8) + struct.pack("<Q", len(v)) + v
dup = b"GGUF" + struct.pack("<IQQ", 3, 0, 2) + gguf_kv("a", "1") + gguf_kv("a", "2")
open(path("dup.gguf"), "wb").write(dup)
rc, o, e = nx("info", path("dup.gguf"))
check(rc == 1 and "key 'a' is given twice" in e, "a GGUF key given twice: %s" % e)
# an array value past the text's bound: whole strings, valid UTF-8, the count
# kept, and carried into safetensors metadata (which must be UTF-8)
w = gguf.GGUFWriter(path("arr.gguf"), "x")
w.add_array("k", ["\u00e9" * 100] * 20)
w.add_tensor("t", np.ones(4, np.float32))
w.write_header_to_file(); w.write_kv_data_to_file(); w.write_tensors_to_file(); w.close()
rc, o, e = nx("info", "--json", path("arr.gguf"))
try:
    k = json.loads(o)["metadata"]["k"]
except (ValueError, KeyError):
    k = ""
check(rc == 0 and k.startswith('["' + "\u00e9" * 100 + '", ') and k.endswith('", ...] (20 values)'),
      "a long GGUF array cut between whole strings, the count kept: %r %s" % (k[-60:], e))
rc, o, e = nx("convert", path("arr.gguf"), path("arr.safetensors"), "--to", "float32")
meta = {}
if rc == 0:
    with safetensors.safe_open(path("arr.safetensors"), "np") as f:
        meta = f.metadata() or {}
check(rc == 0 and meta.get("k") == k, "its metadata carried into safetensors: %s" % e)
# a string value that is not UTF-8 or holds a NUL (a tokenizer's byte tokens
# may): the file opens, the value mended with U+FFFD, as a "replace" decoding
# gives it, and carried into safetensors metadata as valid UTF-8
raw = open(path("arr.gguf"), "rb").read()
for bad in (raw.replace("\u00e9".encode(), b"\xff\xff", 1), raw.replace("\u00e9".encode(), b"\0\0", 1)):
    open(path("bad.gguf"), "wb").write(bad)
    rc, o, e = nx("info", "--json", path("bad.gguf"))
    meta = json.loads(o).get("metadata", {}) if rc == 0 else {}
    shown = meta.get("k", "") if isinstance(meta, dict) else ""
    check(rc == 0 and shown.startswith('["\ufffd\ufffd'), "a GGUF string value mended: %s %r" % (e, shown[:40]))
    rc, o, e = nx("convert", path("bad.gguf"), path("bad.safetensors"), "--to", "float32")
    check(rc == 0, "a mended value carried into safetensors: %s" % e)
# safetensors: "__metadata__": null is no metadata, as the reference reads it
hdr = json.dumps({"__metadata__": None, "x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode()
open(path("null.safetensors"), "wb").write(struct.pack("<Q", len(hdr)) + hdr + b"\0\0\x80\x3f")
with safetensors.safe_open(path("null.safetensors"), "np") as f:
    peer = f.get_tensor("x")
rc, o, e = nx("show", path("null.safetensors") + ":x")
check(rc == 0 and "1" in o and peer[0] == 1, "__metadata__ null read: %s %s" % (o, e))
# .npz: numpy's entry of the name "" is ".npy"
np.savez(path("blank.npz"), **{"": np.arange(3, dtype=np.int16)})
rc, o, e = nx("info", "--json", path("blank.npz"))
try:
    names = [t["name"] for t in json.loads(o)["tensors"]]
except (ValueError, KeyError):
    names = None
check(rc == 0 and names == [""], "an npz entry named '' read: %r %s" % (o, e))

# ASCII names with control bytes: written as np.savez writes them (the
# bytes, no UTF-8 flag), read back by numpy
for k in ("a\x08b", "\x01\x1f\x7f", "a\nb", "plain"):
    safetensors.numpy.save_file({k: np.arange(3, dtype=np.float32)}, path("ctl.safetensors"))
    rc, o, e = nx("convert", path("ctl.safetensors"), path("ctl.npz"), "--to", "float32")
    np.savez(path("ctlref.npz"), **{k: np.arange(3, dtype=np.float32)})
    got = [(i.filename, i.flag_bits & 0x800) for i in zipfile.ZipFile(path("ctl.npz")).infolist()] if rc == 0 else None
    want = [(i.filename, i.flag_bits & 0x800) for i in zipfile.ZipFile(path("ctlref.npz")).infolist()]
    check(got == want and list(np.load(path("ctl.npz")).keys()) == [k], "npz entry %r as np.savez names it: %s %s" % (k, got, e))

# a tensor name with a colon: FILE:NAME cuts at the longest FILE that exists
safetensors.numpy.save_file({"a:b": np.array([7], np.int8)}, path("colon.safetensors"))
rc, o, e = nx("show", path("colon.safetensors") + ":a:b")
check(rc == 0 and "7" in o, "show of a tensor named a:b: %r %s" % (o, e))

# names and metadata with characters JSON escapes: the header nx writes is
# the reference writer's byte for byte (its escapes in lower-case hex)
xs = {"w\x1fq": np.arange(6, dtype=np.float32).reshape(2, 3), "a\n\"b\\\t\x08\x0c\r": np.arange(3, dtype=np.float32),
      "c\x7f\u00e9/": np.array([1, 2], np.float32)}
safetensors.numpy.save_file(xs, path("esc.safetensors"), metadata={"k\x01": "v\x7f\u00e9\x1f", "z": "1"})
rc, o, e = nx("convert", path("esc.safetensors"), path("esc2.safetensors"), "--to", "float32")
got = open(path("esc2.safetensors"), "rb").read() if rc == 0 else b""
want = open(path("esc.safetensors"), "rb").read()
check(got == want, "escaped names written as the reference writes them: %s %r %r" % (e, got[:120], want[:120]))

# ---- the command as a person uses it
rc, o, e = nx("--version")
check(rc == 0 and o.startswith("nx ") and o.strip().split()[1][0].isdigit() and e == "", "nx --version: %r" % o)
for sub in ("dtypes", "devices", "info", "show", "convert", "diff"):
    rc, o, e = nx(sub, "--help")
    check(rc == 0 and o.startswith("usage: nx " + sub) and e == "", "nx %s --help: %d %r %r" % (sub, rc, o[:40], e))
for args in (("dtypes", "--bogus"), ("devices", "--bogus"), ("info", "--bogus", "x"), ("show", "--bogus"),
             ("convert", "a", "b", "--bogus"), ("diff", "--bogus")):
    rc, o, e = nx(*args)
    check(rc == 2 and "--bogus" in e and o == "", "nx %s: unknown option named, exit 2: %d %r" % (args[0], rc, e))
rc, o, e = nx("convert", path("f32.safetensors"), path("x.safetensors"))
check(rc == 2 and "--to" in e, "convert without --to: usage")
rc, o, e = nx("info", path("missing.safetensors"))
check(rc == 1 and "missing.safetensors" in e and o == "", "a missing file names the file, exit 1: %r" % e)
open(path("bad.safetensors"), "wb").write(struct.pack("<Q", 10) + b'{"a": 1}  ')
rc, o, e = nx("convert", path("bad.safetensors"), path("never.safetensors"), "--to", "float32")
check(rc == 1 and "bad.safetensors" in e and "nx_io_open" in e and not os.path.exists(path("never.safetensors")),
      "a malformed input: exit 1, no output: %r" % e)
# Malformed .npz files of the committed corpus: refused naming the file and
# why, exit 1, nothing written.
seeds = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fuzz", "seeds", "npz")
for name, why in (("bomb.npz", "zip bomb"), ("duplicate.npz", "two entries have the same name")):
    rc, o, e = nx("convert", os.path.join(seeds, name), path("never.npz"), "--to", "float32")
    check(rc == 1 and name in e and why in e and o == "" and not os.path.exists(path("never.npz")),
          "%s: exit 1 naming it and why, no output: %d %r" % (name, rc, e))

# The progress bar: on stderr when stdout and stderr are both a terminal (a
# pseudo-terminal here), never when either is a pipe or a file.
def convert_on(stdout_tty, stderr_tty):
    master, slave = pty.openpty()
    args = [NX, "convert", path("f32.safetensors"), path("bar.npz"), "--to", "float16"]
    p = subprocess.Popen(args, stdout=slave if stdout_tty else subprocess.PIPE,
                         stderr=slave if stderr_tty else subprocess.PIPE)
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:  # EIO: every writer of the terminal has closed it
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    out, err = p.communicate()
    return p.returncode, seen + (out or b"") + (err or b"")


rc, text = convert_on(True, True)
check(rc == 0 and b"\r[" in text and b"100%" in text and b"#" in text, "a progress bar on a terminal: %r" % text)
for so, se in ((False, True), (True, False), (False, False)):
    rc, text = convert_on(so, se)
    check(rc == 0 and b"\r[" not in text and b"%" not in text,
          "no bar with stdout %s, stderr %s: %r" % ("a terminal" if so else "a pipe", "a terminal" if se else "a pipe", text))
os.unlink(path("bar.npz"))

rc, o, e = nx("show", path("f32.safetensors") + ":nope")
check(rc == 1 and "nope" in e, "show of a missing tensor names it: %r" % e)
rc, o, e = nx("show", path("big.safetensors") + ":big[1, :3]")
vals = big[1, :3]
printed = o.strip().strip("[]").split(", ") if rc == 0 else []
check(len(printed) == 3 and all(np.float32(float(p)) == v for p, v in zip(printed, vals)),
      "show prints text that reads back to each element: %r" % o)
leftovers = [f for f in os.listdir(tmp) if f.startswith(".")]
check(leftovers == [], "no temporary file left: %s" % leftovers)

# ---- a sparse 8 GiB safetensors file: info reads the header only, and one
# tensor converts through the mapping with the resident memory bounded.
sparse = path("sparse.safetensors")
n_big = (8 << 30) // 2
header = {"big": {"dtype": "BF16", "shape": [n_big // 4096, 4096], "data_offsets": [0, n_big * 2]},
          "small": {"dtype": "BF16", "shape": [1024], "data_offsets": [n_big * 2, n_big * 2 + 2048]}}
h = json.dumps(header).encode()
h += b" " * (-len(h) % 8)
with open(sparse, "wb") as f:
    f.write(struct.pack("<Q", len(h)) + h)
    f.truncate(8 + len(h) + n_big * 2 + 2048)
t0 = time.perf_counter()
rc, o, e = nx("info", sparse)
t_info = time.perf_counter() - t0
check(rc == 0 and "8589934592" in o, "info of the 8 GiB file: %s" % e)
# The baseline is the same conversion of a small file: the process and the
# rig's device discovery (the OpenCL runtime) without any of the 8 GiB.
def rss_of(args):
    p = subprocess.Popen([NX] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(p.pid, 0)
    return os.waitstatus_to_exitcode(status), p.stderr.read().decode(), usage.ru_maxrss


small = path("small.safetensors")
with open(small, "wb") as f:
    hs = json.dumps({"small": header["small"] | {"data_offsets": [0, 2048]}}).encode()
    hs += b" " * (-len(hs) % 8)
    f.write(struct.pack("<Q", len(hs)) + hs + bytes(2048))
rc0, e0, base_kib = rss_of(["convert", small, path("s8.safetensors"), "--to", "float8_e4m3fn", "--scale", "amax"])
rc, e, rss_kib = rss_of(["convert", sparse, path("small8.safetensors"), "--only", "small", "--to", "float8_e4m3fn",
                         "--scale", "amax"])
check(rc == 0 and rc0 == 0, "one tensor of the 8 GiB file: %s %s" % (e, e0))
print("8 GiB sparse safetensors: nx info %.1f ms (with process start); convert --only small: max RSS %d KiB, "
      "%d KiB over the same conversion of a small file" % (t_info * 1000, rss_kib, rss_kib - base_kib))
if not os.environ.get("NX_SANITIZED"):
    check(rss_kib - base_kib < 8 * 1024, "the resident memory grows by under 8 MiB: %d KiB" % (rss_kib - base_kib))
os.unlink(sparse)

for f in os.listdir(tmp):
    os.unlink(os.path.join(tmp, f))
os.rmdir(tmp)
print("%d checks, %d failed" % (checks, failures))
sys.exit(1 if failures or checks == 0 else 0)
