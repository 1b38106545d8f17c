#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks that no test suite drops out of the build: every test source under
the given folder (test_*.c, test_*.py, test_*.sh, fuzz_*.c) is named in a
CMakeLists.txt or .cmake file of that folder's tree, which registers it.
A suite that cannot run in a configuration registers itself as skipped
(nx_test_skipped), so the count of suites stays the same everywhere.

usage: tools/ci/registry.py TESTS_DIR"""
import os
import re
import sys


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    root = sys.argv[1]
    cmake, sources = "", []
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            if f == "CMakeLists.txt" or f.endswith(".cmake"):
                with open(p) as fh:
                    cmake += fh.read() + "\n"
            elif re.match(r"(test|fuzz)_\w+\.(c|py|sh)$", f):
                sources.append(os.path.relpath(p, root))
    missing = [s for s in sorted(sources) if not re.search(r"\b%s\b" % re.escape(os.path.basename(s)), cmake)
               and not re.search(r"\b%s\b" % re.escape(os.path.splitext(os.path.basename(s))[0]), cmake)]
    for s in missing:
        print(f"{s}: no CMakeLists.txt registers it")
    print(f"{len(sources)} test sources, {len(missing)} unregistered")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
