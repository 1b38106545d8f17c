#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Puts an SPDX licence line at the top of every source, header, build and
# script file git tracks (after a #! line and a Python coding line), and
# leaves alone files that have one in their first lines and the vendored
# DLPack header, which keeps its own licence. Running it twice changes
# nothing. usage: tools/spdx.sh [--check]  (--check: list files without one,
# exit 1 if there are any, 77 outside a git checkout)
set -eu
cd "$(dirname "$0")/.."
id="SPDX-License-Identifier: Apache-2.0"
check=0
[ "${1:-}" = "--check" ] && check=1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "SKIP: not a git checkout: the tracked files are unknown"
  exit 77
fi
[ -f LICENSE ] || { echo "no LICENSE"; exit 1; }
missing=0
while IFS= read -r -d '' f; do
  case "$f" in
    include/dlpack/*|LICENSE|*.md) continue ;;
    *.c|*.h|*.cpp|*.cu|*.cl) line="/* $id */" ;;
    *.cmake|*CMakeLists.txt|*.sh|*.py|*.in|*.supp|Makefile|.gitignore|.ci/*) line="# $id" ;;
    *) continue ;;
  esac
  [ -f "$f" ] || continue
  head -n 3 "$f" | grep -q "SPDX-License-Identifier" && continue
  if [ $check = 1 ]; then
    echo "no SPDX line: $f (tools/spdx.sh adds it)"
    missing=1
    continue
  fi
  # After a #! line, and after a coding line that must stay in the first two.
  skip=0
  head -n 1 "$f" | grep -q '^#!' && skip=1
  [ $skip = 1 ] && sed -n 2p "$f" | grep -q 'coding[:=]' && skip=2
  tmp=$(mktemp)
  { head -n $skip "$f"; echo "$line"; tail -n +$((skip + 1)) "$f"; } >"$tmp"
  chmod --reference="$f" "$tmp"
  mv "$tmp" "$f"
done < <(git ls-files -z)
[ $check = 0 ] || [ $missing = 0 ]
