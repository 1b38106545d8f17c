#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Every public header compiles alone, included twice, as C99, C11 and C++17
# with -Wall -Wextra -Werror -pedantic. The list is read from the include
# folder when the test runs, so a new header is covered without registering it.
# usage: check_headers.sh <include dir> <C compiler> [<C++ compiler>]
set -u
inc=$1 cc=$2 cxx=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags="-Wall -Wextra -Werror -pedantic -fsyntax-only -I$inc"
failed=0 checked=0
cd "$inc"
headers=$(find . -name '*.h' | sed 's|^\./||' | sort)
[ -n "$headers" ] || { echo "no headers under $inc"; exit 1; }
for h in $headers; do
  printf '#include <%s>\n#include <%s>\nint nx__header_check;\n' "$h" "$h" >"$tmp/t.c"
  cp "$tmp/t.c" "$tmp/t.cpp"
  for std in c99 c11; do
    checked=$((checked + 1))
    "$cc" -std=$std $flags -x c "$tmp/t.c" 2>"$tmp/err" \
      || { echo "FAIL: $h as $std"; cat "$tmp/err"; failed=$((failed + 1)); }
  done
  if [ -n "$cxx" ]; then
    checked=$((checked + 1))
    "$cxx" -std=c++17 $flags -x c++ "$tmp/t.cpp" 2>"$tmp/err" \
      || { echo "FAIL: $h as c++17"; cat "$tmp/err"; failed=$((failed + 1)); }
  fi
done
echo "$checked compilations of $(echo "$headers" | wc -l) headers, $failed failed"
[ -n "$cxx" ] || { echo "SKIP: no C++ compiler, so C++17 was not checked"; [ $failed = 0 ] && exit 77; }
[ $failed = 0 ]
