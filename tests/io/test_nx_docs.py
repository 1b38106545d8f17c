#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docs/nx.md's examples, run: every ```console block of its "## Examples"
section, in order, in a fresh folder holding the repository's examples/ and
an empty out/, with the nx command under test first on PATH. Each "$ " line
runs in sh; its stdout must equal the lines under it, exactly.

usage: test_nx_docs.py <nx command> <repository root>"""
import os
import re
import subprocess
import sys
import tempfile

nx, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
doc = open(os.path.join(root, "docs", "nx.md"), encoding="utf-8").read()
section = doc.split("\n## Examples\n", 1)
if len(section) != 2:
    sys.exit("docs/nx.md has no '## Examples' section")
section = re.split(r"\n## ", section[1], maxsplit=1)[0]
blocks = re.findall(r"```console\n(.*?)```", section, re.S)

# (command, expected output) in the order the section gives them.
cases = []
for block in blocks:
    for line in block.splitlines():
        if line.startswith("$ "):
            cases.append([line[2:], []])
        elif cases:
            cases[-1][1].append(line)

checks = failures = 0
with tempfile.TemporaryDirectory(prefix="nx-docs-") as d:
    os.symlink(os.path.join(root, "examples"), os.path.join(d, "examples"))
    os.mkdir(os.path.join(d, "out"))
    env = dict(os.environ, PATH=os.path.dirname(nx) + os.pathsep + os.environ.get("PATH", ""))
    for cmd, want in cases:
        p = subprocess.run(["sh", "-c", cmd], cwd=d, env=env, capture_output=True, text=True)
        got = p.stdout.splitlines()
        checks += 1
        if got != want:
            failures += 1
            print("check failed: docs/nx.md: $ %s\n--- the document\n%s\n--- nx (stderr %r)\n%s" %
                  (cmd, "\n".join(want), p.stderr, "\n".join(got)), file=sys.stderr)
    # Every file the examples write lands in out/ and nowhere else.
    checks += 1
    if sorted(os.listdir(d)) != ["examples", "out"]:
        failures += 1
        print("check failed: the examples wrote outside out/: %s" % os.listdir(d), file=sys.stderr)

if len(cases) < 5:
    failures += 1
    print("check failed: only %d example commands found in docs/nx.md" % len(cases), file=sys.stderr)
print("%d checks, %d failed" % (checks, failures))
sys.exit(1 if failures else 0)
