#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Sums ctest's JUnit reports into one line, "N passed, M failed, K skipped",
with every skip's reason (the test's "SKIP: ..." line) listed above it.
The reports named are the ones expected: a missing one, or a failed build,
counts as a failure. Exit status 1 on
any failure."""
import os
import sys
import xml.etree.ElementTree as ET

passed = failed = skipped = 0
reasons, failures = [], []
for path in sys.argv[1:]:
    run = os.path.basename(os.path.dirname(path)) or path
    if path.endswith(".buildfail"):
        failed += 1
        failures.append(f"{os.path.basename(path)[:-10]}: build failed")
        continue
    if not os.path.exists(path):
        # Every report named was expected: a run whose report is missing
        # (ctest crashed, or ran nothing) fails rather than vanishing.
        failed += 1
        failures.append(f"{run}: its report {path} is missing")
        continue
    for case in ET.parse(path).getroot().iter("testcase"):
        name = f"{run}/{case.get('name')}"
        out = "".join(e.text or "" for e in case.iter("system-out"))
        if case.get("status") == "notrun" or case.find("skipped") is not None:
            skipped += 1
            why = [l[6:] for l in out.splitlines() if l.startswith("SKIP: ")]
            reasons.append(f"skipped {name}: {why[0] if why else 'no reason given'}")
        elif case.find("failure") is not None or case.find("error") is not None or case.get("status") == "fail":
            failed += 1
            failures.append(name)
        else:
            passed += 1
for r in reasons:
    print(r)
for f in failures:
    print(f"FAILED {f}")
line = f"{passed} passed, {failed} failed"
if skipped:
    line += f", {skipped} skipped"
print(line)
sys.exit(1 if failed or passed == 0 else 0)
