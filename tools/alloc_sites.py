#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Routes every allocation in src/ through nx's allocator (src/base/alloc.h):
rewrites raw malloc, calloc, realloc, aligned_alloc, free, strdup and
strndup calls into their nx__ forms (nx__malloc, ...), and adds
the include where a file needs it. Idempotent: run it again after merging
code that allocates. src/base/alloc.c, the allocator itself, is left alone.

usage: tools/alloc_sites.py          rewrite, listing the files changed
       tools/alloc_sites.py --check  change nothing; list every raw call
                                     left and exit 1 if there is one"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SRC = os.path.join(ROOT, "src")
ALLOCATOR = os.path.join("src", "base", "alloc.c")
# A call: the name, not part of a longer identifier or a member (->free).
CALL = re.compile(r"(?<![\w.>])(malloc|calloc|realloc|aligned_alloc|free|strdup|strndup)\s*\(")
# Calls of other libraries that allocate with the C library's malloc memory
# nx would free, or free with the C library's free memory nx allocated: with
# a program's allocator (nx_set_allocator) either is a mismatch. --check
# reports them; they are rewritten by hand (json_dumpb into nx's memory, a
# zip source that does not free its buffer).
FOREIGN = re.compile(r"(?<![\w.>])(json_dumps|zip_source_buffer(?:_create)?\s*\([^;]*,\s*1\s*[,)])")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def code_calls(text):
    """The raw calls outside comments and strings, as (line, name)."""
    stripped = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    stripped = re.sub(r'"(\\.|[^"\\\n])*"', lambda m: " " * len(m.group(0)), stripped)
    return [(stripped.count("\n", 0, m.start()) + 1, m.group(1), m.start()) for m in CALL.finditer(stripped)]


def foreign_calls(text):
    """The calls of FOREIGN outside comments and strings, as (line, name)."""
    stripped = COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    return [(stripped.count("\n", 0, m.start()) + 1, m.group(1), m.start()) for m in FOREIGN.finditer(stripped)]


def include_line(path):
    rel = os.path.relpath(os.path.join(SRC, "base", "alloc.h"), os.path.dirname(path))
    return f'#include "{rel}"'


def rewrite(path, text):
    calls = code_calls(text)
    if not calls:
        return text
    for _, name, start in reversed(calls):
        text = text[:start] + "nx__" + text[start:]
    inc = include_line(path)
    if inc not in text:
        # After the last include of the opening block of includes (never
        # inside a conditional that follows it).
        lines = text.split("\n")
        first = next(i for i, l in enumerate(lines) if l.startswith("#include"))
        last = first
        for i in range(first, len(lines)):
            if lines[i].startswith("#include"):
                last = i
            elif lines[i].strip():
                break
        lines.insert(last + 1, inc)
        text = "\n".join(lines)
    return text


def sources():
    for d, _, files in os.walk(SRC):
        for f in sorted(files):
            if f.endswith((".c", ".h")):
                p = os.path.join(d, f)
                if os.path.relpath(p, ROOT) != ALLOCATOR:
                    yield p


def main():
    check = sys.argv[1:] == ["--check"]
    if sys.argv[1:] and not check:
        print(__doc__)
        return 2
    left = 0
    for p in sources():
        with open(p) as f:
            text = f.read()
        rel = os.path.relpath(p, ROOT)
        if check:
            for line, name, _ in code_calls(text):
                print(f"{rel}:{line}: raw {name}() (tools/alloc_sites.py rewrites it)")
                left += 1
            for line, name, _ in foreign_calls(text):
                print(f"{rel}:{line}: {name.split('(')[0].strip()}() allocates or frees with the C library's functions")
                left += 1
            continue
        new = rewrite(p, text)
        if new != text:
            with open(p, "w") as f:
                f.write(new)
            print(f"rewrote {rel}")
    if check:
        print(f"{left} raw allocation calls in src/ outside {ALLOCATOR}")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
