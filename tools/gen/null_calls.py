#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes a test program that calls every public function of nx with NULL in
each pointer parameter in turn, the other arguments valid.

    python3 tools/gen/null_calls.py OUT.c include/nx_*.h

Every header given is parsed for its NX_API declarations (and its typedefs of
function pointers, which are pointer parameters too). For each function and
each pointer parameter the program forks a child that builds valid objects
for the other arguments, resets the error message, makes the call with NULL
there, and checks the answer: a negative status for a function returning
int, NULL for one returning a pointer, and for every function a message
(nx_error_message()) that names it. A crash, a hang or a wrong answer counts
as a failure. Where a header documents NULL as valid the pair is listed in
NULL_ALLOWED with the reason: only that the call returns is checked.

Arguments are built by type (ARG_BY_TYPE), by parameter name where the name
says more (ARG_BY_NAME) or for one function (ARG_BY_CALL), from the helpers
of tests/api/api_args.h. A pointer type none of the tables knows gets the
documented default, a zeroed block of API_BLOB_BYTES bytes (an out-parameter
or array of any type fits in it), and is listed in the program's output; a
scalar type none knows is zero-initialised. A declaration the parser cannot
read, or a NULL_ALLOWED entry that names no function or parameter, stops the
generator with an error: no function is skipped silently."""
import re
import sys

# (function, parameter) -> why NULL is valid there. Only that the call
# returns (no crash, no hang) is checked for these.
NULL_ALLOWED = {
    ("nx_array_free", "a"): "nx_array.h: NULL is ignored",
    ("nx_set_allocator", "a"): "nx_alloc.h: NULL goes back to the C library's allocator",
    ("nx_buffer_retain", "b"): "nx_rig.h: NULL is ignored",
    ("nx_buffer_release", "b"): "nx_rig.h: NULL is ignored",
    ("nx_shape_session_free", "s"): "nx_shape.h: NULL is a no-op",
    ("nx_shape_snapshot_free", "snap"): "nx_shape.h: NULL is a no-op",
    ("nx_shape_rename_free", "r"): "nx_shape.h: NULL is a no-op",
    ("nx_io_close", "f"): "nx_io.h: NULL is ignored",
    ("nx_io_writer_abort", "w"): "nx_io.h: NULL is ignored",
    ("nx_dtype_of_name", "s"): "nx_dtype.h: NX_NONE for no name, NULL included",
    ("nx_layout_make", "strides"): "nx_layout.h: NULL strides are C-contiguous",
    ("nx_door_host", "ctx"): "the kernel's context, passed through",
    ("nx_door", "ctx"): "the submit function's context, passed through",
    ("nx_array_read", "ctx"): "the read function's context, passed through",
    ("nx_array_write", "ctx"): "the write function's context, passed through",
    ("nx_io_writer_add_transform", "ctx"): "the transform's context, passed through",
    ("nx_rig_submit", "ctx"): "the work's context, passed through",
    ("nx_buffer_wrap_host", "ctx"): "the release function's context, passed through",
    ("nx_buffer_wrap_host", "release"): "nx_rig.h: release may be NULL",
    ("nx_buffer_consume", "reason"): "the reason is optional",
    ("nx_dim_solved", "basis"): "nx_shape.h: NULL for the default basis",
    ("nx_dim_var", "name"): "nx_shape.h: name may be NULL",
    ("nx_row_var_new", "name"): "a row variable's name is optional, as a dim's",
    ("nx_shape_dim_value", "basis"): "nx_shape.h: each out-parameter is optional",
    ("nx_shape_dim_value", "size"): "nx_shape.h: each out-parameter is optional",
    ("nx_tensor_term", "batch"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_term", "input"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_term", "output"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_term", "label"): "a tensor's label is optional",
    ("nx_tensor_param", "input"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_param", "output"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_param", "label"): "a tensor's label is optional",
    ("nx_tensor_fill", "batch"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_fill", "input"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_fill", "output"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_fill", "label"): "a tensor's label is optional",
    ("nx_tensor_unary", "op"): "op only names the operation in traces",
    ("nx_device_name", "d"): "nx_rig.h: NULL gives \"NULL\", for messages that name operands",
    ("nx_device_description", "d"): "nx_rig.h: NULL gives \"NULL\", for messages that name operands",
    ("nx_array_describe", "a"): "nx_array.h: NULL writes \"NULL\", for messages that name operands",
    ("nx_rig_release", "write"): "nx_rig.h: a release does not read write, which may be NULL",
    ("nx_dim_conv", "kernel"): "nx_shape.h: NULL for a convolution without a kernel",
    ("nx_tensor_binary", "op"): "op only names the operation in traces",
    ("nx_tensor_ternary", "op"): "op only names the operation in traces",
    ("nx_shape_rename_var", "r"): "nx_shape.h: 0 for NULL r",
    ("nx_scheme_trace", "ctx"): "the function's context, passed through",
    ("nx_scheme_free", "sc"): "nx_scheme.h: NULL is a no-op",
    ("nx_scheme_handle_free", "h"): "nx_scheme.h: NULL is a no-op",
    ("nx_scheme_instantiate", "application"): "nx_scheme.h: NULL names the application by its arguments",
    ("nx_scheme_instantiate", "args"): "nx_scheme.h: no arguments for a scheme of arity 0",
    ("nx_scheme_apply", "application"): "nx_scheme.h: NULL names the application by its arguments",
    ("nx_scheme_apply", "args"): "no tensor parameters: args is not read",
    ("nx_scheme_apply", "opts"): "no option parameters: opts is not read",
    ("nx_scheme_to_string", "buf"): "nx_scheme.h: NULL with cap 0 measures the text",
    ("nx_scheme_status", "buf"): "nx_scheme.h: NULL with cap 0 measures the text",
    ("nx_scheme_op_shape_schemes", "s"): "nx_scheme.h: the process setting for no session",
    ("nx_scheme_set_event_callback", "f"): "nx_scheme.h: NULL for no callback",
    ("nx_scheme_set_event_callback", "ctx"): "the callback's context, passed through",
    ("nx_scheme_set_log", "log"): "nx_scheme.h: NULL for stderr",
    ("nx_scheme_set_log", "ctx"): "the log's context, passed through",
    ("nx_scheme_check_definition", "ctx"): "the block's context, passed through",
    ("nx_scheme_check_definition", "labels"): "nx_scheme.h: NULL with cap 0 only counts the labels",
    ("nx_tensor_einsum_ex", "opt"): "nx_shape.h: NULL options are none",
    ("nx_tensor_concat_ex", "opt"): "nx_shape.h: NULL options are none, as nx_tensor_einsum_ex's",
    ("nx_tensor_param_fill", "input"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_param_fill", "output"): "nx_shape.h: NULL is a row to infer",
    ("nx_tensor_param_fill", "label"): "a tensor's label is optional",
    ("nx_tensor_of_spec", "label"): "a tensor's label is optional",
    ("nx_proj_axis", "size"): "nx_shape.h: each out-parameter is optional",
    ("nx_proj_axis", "index"): "nx_shape.h: each out-parameter is optional",
    ("nx_proj_padding", "left"): "nx_shape.h: each out-parameter is optional",
    ("nx_proj_padding", "right"): "nx_shape.h: each out-parameter is optional",
    ("nx_tensor_padding", "left"): "nx_shape.h: each out-parameter is optional",
    ("nx_tensor_padding", "right"): "nx_shape.h: each out-parameter is optional",
}
for f in ("nx_shape_add_dim_eq", "nx_shape_add_dim_ineq", "nx_shape_add_row_eq", "nx_shape_add_row_ineq",
          "nx_shape_add_at_least", "nx_shape_add_total_elems", "nx_shape_add_exact", "nx_shape_add_terminal_dim",
          "nx_shape_add_terminal_row", "nx_shape_add_shape_row", "nx_shape_add_total_dim"):
    NULL_ALLOWED[(f, "o")] = "nx_shape.h: the origin is NULL for none"

# Functions returning an int that is a count, not a status: for these only
# the message is checked.
NOT_STATUS = {
    "nx_buffer_refcount": "a count of references, 0 for NULL",
    "nx_row_beg_count": "a count of dims", "nx_row_dims_count": "a count of dims",
    "nx_row_var": "a row variable's id, 0 for none",
    "nx_dim_var_id": "a dim variable's id, 0 for none",
    "nx_shape_rename_var": "a variable's id, 0 for a NULL renaming",
    "nx_io_file_count": "a count of tensors, 0 for NULL",
    "nx_io_file_metadata_count": "a count of metadata entries, 0 for NULL",
    "nx_io_file_bytes": "a size in bytes, 0 for NULL",
}

# A valid argument, by type (const and spacing removed), then by name, then
# for one call. Each is a C expression over tests/api/api_args.h.
ARG_BY_TYPE = {
    "int": "1", "size_t": "API_CAP", "int64_t": "1", "uint64_t": "0", "uint8_t": "0", "double": "1.0",
    "bool": "false", "nx_dtype": "NX_FLOAT32", "nx_kind": "NX_KIND_FLOAT", "nx_value": "nx_dtype_zero(NX_FLOAT32)",
    "nx_memory_kind": "NX_MEMORY_HOST", "nx_access": "NX_ACCESS_READ_WRITE",
    "nx_answer": "(nx_answer)0", "enumnx_axis_kind": "(enum nx_axis_kind)0",
    "enumnx_shape_style": "(enum nx_shape_style)0", "nx_dtype*": "api_blob()", "nx_value*": "api_values()",
    "nx_layout*": "api_layout()", "nx_move*": "api_move()",
    "int64_t*": "api_i64()", "int*": "api_int()", "bool*": "api_bool()", "char*": "api_text()",
    "nx_array*": "api_array()", "nx_array*const*": "api_arrays()", "nx_array**": "api_out_array()",
    "nx_device*": "api_device()", "nx_device**": "(nx_device **)api_blob()",
    "nx_buffer*": "api_buffer()", "nx_buffer*const*": "api_buffers()", "nx_buffer**": "(nx_buffer **)api_blob()",
    "nx_shape_session*": "api_session()", "nx_shape_session**": "(nx_shape_session **)api_blob()",
    "nx_dim*": "api_dim()", "nx_dim*const*": "api_dims()",
    "nx_row*": "api_row()", "nx_row*const*": "api_rows()",
    "nx_tensor*": "api_tensor()", "nx_tensor*const*": "api_tensors()", "nx_tensor**": "(nx_tensor **)api_blob()",
    "nx_shape_origin*": "api_origin()",
    "nx_scheme*": "api_scheme()", "nx_scheme**": "(nx_scheme **)api_blob()",
    "nx_scheme_handle*": "api_scheme_handle()", "nx_scheme_handle**": "(nx_scheme_handle **)api_blob()",
    "nx_scheme_function*": "api_scheme_function()", "char**": "(char **)api_blob()",
    "structDLManagedTensorVersioned*": "api_dlpack()",
    "void*": "api_blob()",
}
ARG_BY_NAME = {
    ("char*", "name"): "\"host\"", ("char*", "buf"): "api_text()", ("char*", "spec"): "\"a=>a\"",
    ("char*", "label"): "\"t\"", ("char*", "op"): "\"op\"", ("char*", "reason"): "\"consumed\"",
    ("char*", "basis"): "\"b\"", ("char*", "batch"): "\"\"", ("char*", "input"): "\"\"", ("char*", "output"): "\"2\"",
    ("char*", "s"): "\"float32\"", ("char*", "basis_out"): "api_text()",
    ("int64_t", "bytes"): "8", ("int", "cap"): "4", ("int", "var"): "0",
    ("int", "nbeg"): "1", ("int", "ndims"): "1", ("int", "nrows"): "1", ("int", "stage"): "1",
}
ARG_BY_CALL = {
    ("nx_array_to_array", "n"): "api_count()",
    ("nx_array_of_array", "n"): "1",
    ("nx_array_of_array", "xs"): "api_values()",
    ("nx_array_refused", "name"): "\"nx_f\"",
    ("nx_buffer_wrap_host", "data"): "api_blob()",
    ("nx_rig_claim", "answers"): "(nx_claim_answer *)api_blob()",
    ("nx_rig_submit_copy", "src"): "api_buffer2()",
    ("nx_tensor_einsum", "n"): "1",
    ("nx_buffer_borrow", "d"): "nx_rig_host()",
    ("nx_array_borrow", "d"): "nx_rig_host()",
    ("nx_array_to_dlpack", "t"): "(struct DLManagedTensorVersioned **)api_blob()",
    ("nx_shape_dim_value", "basis"): "(const char **)api_blob()",
}
DEFAULT_POINTER = "api_blob()"

DECL = re.compile(r"NX_API\s+([^;(]*?)\s*\b(nx_\w+)\s*\((.*?)\)\s*;", re.S)
FN_TYPEDEF = re.compile(r"typedef\s+([^;()]*?)\s*\(\s*\*\s*(\w+)\s*\)\s*\(([^;]*)\)\s*;", re.S)


def fail(msg):
    sys.exit("null_calls.py: " + msg)


def split_params(text):
    """The parameters at depth 0 of a parameter list."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return [] if parts == ["void"] else parts


class Param:
    def __init__(self, text, fnptrs, where):
        self.text = " ".join(text.split())
        m = re.match(r"^(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", self.text)
        if m:  # an inline function pointer: void (*release)(void *ctx)
            self.name, self.fnptr = m.group(2), (m.group(1).strip(), m.group(3))
            self.decl_type = None
            self.pointer = True
            return
        m = re.match(r"^(.*?[\s*])(\w+)$", self.text)
        if not m:
            fail(f"{where}: cannot read parameter '{self.text}'")
        self.decl_type, self.name = m.group(1).strip(), m.group(2)
        base = self.decl_type.replace("const", "").strip()
        self.fnptr = fnptrs.get(base)
        self.pointer = "*" in self.decl_type or self.fnptr is not None
        self.key = re.sub(r"\s+", "", re.sub(r"\bconst\b", "", self.decl_type))
        if self.decl_type.replace(" ", "").endswith("*const*"):
            self.key = re.sub(r"\s+", "", re.sub(r"^\s*const\b", "", self.decl_type))


def parse(headers):
    fnptrs, funcs = {}, []
    for h in headers:
        text = open(h).read()
        text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
        text = "\n".join(l for l in text.split("\n") if not l.lstrip().startswith("#"))
        for m in FN_TYPEDEF.finditer(text):
            fnptrs[m.group(2)] = (m.group(1).strip(), m.group(3))
        count = text.count("NX_API")
        found = list(DECL.finditer(text))
        if len(found) != count:
            fail(f"{h}: {count} NX_API declarations, {len(found)} read: fix the parser, never skip one")
        for m in found:
            ret, name, params = " ".join(m.group(1).split()), m.group(2), m.group(3)
            funcs.append((h, ret, name, params))
    out = []
    for h, ret, name, params in funcs:
        ps = [Param(p, fnptrs, f"{h}: {name}") for p in split_params(params)]
        out.append((h, ret, name, ps))
    return fnptrs, out


def stub(sig, tag, stubs):
    """A function of the signature (return type, params) that does nothing."""
    ret, params = sig
    name = f"api_stub_{tag}"
    if name not in stubs:
        named = []
        for i, p in enumerate(split_params(params)):
            t = re.sub(r"\b\w+$", "", p).strip() if re.search(r"[\s*]\w+$", p) else p
            named.append(f"{t} p{i}")
        uses = "".join(f" (void)p{i};" for i in range(len(named)))
        body = "" if ret == "void" else f" return ({ret})0;"
        stubs[name] = f"static {ret} {name}({', '.join(named) or 'void'}) {{{uses}{body} }}"
    return name


def arg(fn, p, stubs, unknown):
    if (fn, p.name) in ARG_BY_CALL:
        return ARG_BY_CALL[(fn, p.name)]
    if p.fnptr is not None:
        return stub(p.fnptr, re.sub(r"\W", "_", p.decl_type.replace("const", "").strip() if p.decl_type else f"{fn}_{p.name}"), stubs)
    if (p.key, p.name) in ARG_BY_NAME:
        return ARG_BY_NAME[(p.key, p.name)]
    if p.key in ARG_BY_TYPE:
        e = ARG_BY_TYPE[p.key]
        return e if p.key.startswith("int") or "*" not in p.key else f"({p.decl_type}){e}"
    if p.pointer:
        unknown.add(p.decl_type)
        return f"({p.decl_type}){DEFAULT_POINTER}"
    unknown.add(p.decl_type)
    return f"({p.decl_type}){{0}}"


def main():
    if len(sys.argv) < 3:
        fail("usage: null_calls.py OUT.c HEADER...")
    outpath, headers = sys.argv[1], sorted(sys.argv[2:])
    fnptrs, funcs = parse(headers)
    names = {(f, p.name) for _, _, f, ps in funcs for p in ps}
    for f in NOT_STATUS:
        if f not in {fn for _, _, fn, _ in funcs}:
            fail(f"NOT_STATUS names {f}, which no header declares")
    for key in NULL_ALLOWED:
        if key not in names:
            fail(f"NULL_ALLOWED names {key[0]}({key[1]}), which no header declares")
    stubs, unknown, cases, bare = {}, set(), [], []
    for h, ret, fn, ps in funcs:
        ptrs = [i for i, p in enumerate(ps) if p.pointer]
        if not ptrs:
            bare.append(fn)
        for i in ptrs:
            locals_, args = [], []
            for j, p in enumerate(ps):
                if j == i:
                    args.append("NULL")
                elif p.decl_type is None:
                    args.append(arg(fn, p, stubs, unknown))
                else:  # built before the message is primed
                    locals_.append(f"{p.decl_type} a{j} = {arg(fn, p, stubs, unknown)};")
                    args.append(f"a{j}")
            call = f"{fn}({', '.join(args)})"
            allowed = NULL_ALLOWED.get((fn, ps[i].name))
            if ret == "void":
                kind = "void"
            elif ret == "int" and fn not in NOT_STATUS:
                kind = "status"
            elif "*" in ret:
                kind = "pointer"
            else:
                kind = "value"
            cases.append((fn, ps[i].name, kind, call, allowed, locals_))
    w = []
    w.append("/* Generated by tools/gen/null_calls.py from " + ", ".join(h.split("/")[-1] for h in headers) +
             ": do not edit.\n   Every public function with NULL in each pointer parameter in turn. */")
    w.append('#include "api_args.h"')
    w.extend(f'#include "{h.split("/")[-1]}"' for h in headers)  # each header parsed, in nx.h or not
    w.append("")
    w.extend(sorted(stubs.values()))
    w.append("")
    w.append("static void run_case(int k) {\n  switch (k) {")
    for k, (fn, pname, kind, call, allowed, locals_) in enumerate(cases):
        if kind == "void":
            body = f"{call}; api_result(\"{fn}\", {int(bool(allowed))}, API_VOID, 0, NULL);"
        elif kind == "status":
            body = f"int r = {call}; api_result(\"{fn}\", {int(bool(allowed))}, API_STATUS, r, NULL);"
        elif kind == "pointer":
            body = (f"const void *r = (const void *)(uintptr_t){call}; "
                    f"api_result(\"{fn}\", {int(bool(allowed))}, API_POINTER, 0, r);")
        else:
            body = f"(void){call}; api_result(\"{fn}\", {int(bool(allowed))}, API_VALUE, 0, NULL);"
        pre = "".join(f"    {l}\n" for l in locals_)
        w.append(f"  case {k}: {{ /* {fn}({pname} NULL){' allowed: ' + allowed if allowed else ''} */\n"
                 f"{pre}    api_prime(\"{fn}\");\n    {body}\n    break;\n  }}")
    w.append("  }\n}\n")
    w.append("static const char *const case_names[] = {")
    for fn, pname, kind, call, allowed, _ in cases:
        w.append(f"  \"{fn}({pname} NULL)\",")
    w.append("};\n")
    w.append(f"static const char *const unknown_types[] = {{{', '.join(chr(34) + t + chr(34) for t in sorted(unknown))}"
             f"{', ' if unknown else ''}NULL}};")
    w.append(f"static const int functions = {len(funcs)}, without_pointers = {len(bare)};\n")
    w.append("int main(void) {\n  return api_main(run_case, case_names, (int)(sizeof case_names / sizeof *case_names),\n"
             "                  unknown_types, functions, without_pointers);\n}")
    open(outpath, "w").write("\n".join(w) + "\n")


if __name__ == "__main__":
    main()
