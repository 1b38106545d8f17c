#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The nx command as a user runs it: found on PATH, from another folder, in a
# plain environment. Exit statuses 0 done, 1 failed, 2 usage; help on stdout;
# errors on stderr naming what was wrong; nx dtypes' columns aligned and its
# values printed by one printer.
# usage: test_cli.sh <folder holding the nx program> <version>
set -u
bin=$1 version=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# nx ARGS...: sets out, err and rc.
nx() {
  env -i PATH="$bin:/usr/bin:/bin" ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} HOME="$work" POCL_DEVICES=pthread POCL_CACHE_DIR="$work/pocl" \
    nx "$@" >"$work/out" 2>"$work/err"
  rc=$?
  out=$(cat "$work/out")
  err=$(cat "$work/err")
}
# expect RC STREAM ARGS...: nx ARGS exits RC, writes to STREAM (out or err)
# only, and the other stream stays empty.
expect() {
  local want=$1 stream=$2
  shift 2
  nx "$@"
  [ "$rc" = "$want" ] || fail "nx $* exited $rc, not $want (stderr: $err)"
  if [ "$stream" = out ]; then
    [ -n "$out" ] || fail "nx $* wrote nothing on stdout"
    [ -z "$err" ] || fail "nx $* wrote on stderr: $err"
  else
    [ -n "$err" ] || fail "nx $* wrote nothing on stderr"
    [ -z "$out" ] || fail "nx $* wrote on stdout: $out"
  fi
}

expect 0 out --version
[ "$out" = "nx $version" ] || fail "nx --version says '$out', not 'nx $version'"
expect 2 err --version extra
for h in --help -h help; do
  expect 0 out $h
  for word in dtypes devices "exit status" "0 done" "1 failed" "2 usage"; do
    case $out in *"$word"*) ;; *) fail "nx $h does not mention '$word'" ;; esac
  done
done
expect 2 err
case $err in *usage:*) ;; *) fail "nx alone does not print the usage: $err" ;; esac
expect 2 err frobnicate
case $err in *"'frobnicate'"*) ;; *) fail "nx frobnicate does not name it: $err" ;; esac
expect 2 err help frobnicate
for sub in dtypes devices; do
  for args in "$sub --help" "$sub -h" "help $sub"; do
    expect 0 out $args
    case $out in "usage: nx $sub"*) ;; *) fail "nx $args does not start with its usage: $out" ;; esac
  done
  expect 2 err $sub --bogus-option
  case $err in *"'--bogus-option'"*) ;; *) fail "nx $sub --bogus-option does not name it: $err" ;; esac
  expect 2 err $sub stray
  case $err in *"'stray'"*) ;; *) fail "nx $sub stray does not name it: $err" ;; esac
  expect 0 out $sub
  # Output that cannot be written is a failure, said on stderr.
  env -i PATH="$bin:/usr/bin:/bin" ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} nx $sub >/dev/full 2>"$work/err"
  rc=$?
  [ "$rc" = 1 ] || fail "nx $sub >/dev/full exited $rc, not 1"
  [ -s "$work/err" ] || fail "nx $sub >/dev/full said nothing on stderr"
done

# Help and version that cannot be written fail too; help takes one command.
for args in --help "help dtypes" "help convert" --version "info --help"; do
  env -i PATH="$bin:/usr/bin:/bin" ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} nx $args >/dev/full 2>"$work/err"
  rc=$?
  [ "$rc" = 1 ] || fail "nx $args >/dev/full exited $rc, not 1"
  grep -q "could not write" "$work/err" || fail "nx $args >/dev/full did not say so: $(cat "$work/err")"
done
expect 2 err help dtypes extra
for sub in dtypes devices info show convert diff; do
  nx $sub --help
  case $out in *"Exit status"*"2 usage"*) ;; *) fail "nx $sub --help gives no exit status" ;; esac
  case $out in *"--help"*) ;; *) fail "nx $sub --help does not list --help" ;; esac
done

# nx dtypes: a header and 21 rows in code order.
nx dtypes
printf '%s\n' "$out" >"$work/table"
[ "$(wc -l <"$work/table")" = 22 ] || fail "nx dtypes printed $(wc -l <"$work/table") lines, not 22"
awk 'NR > 1 && $1 != NR - 2 { print "FAIL: row " NR - 1 " has code " $1; exit 1 }' "$work/table" || fails=$((fails + 1))
# Aligned: every column starts where its heading starts, in every row, after a space.
awk 'NR == 1 { for (i = 1; i <= length($0); i++) if (substr($0, i, 1) != " " && (i == 1 || substr($0, i - 1, 1) == " ")) start[++n] = i; next }
     { for (k = 1; k <= n; k++) { s = start[k]
         if (substr($0, s, 1) == " " || (s > 1 && substr($0, s - 1, 1) != " ")) {
           print "FAIL: row " NR - 1 " (" $2 "): column " k " does not start at " s; bad = 1 } } }
     END { if (n != 13) { print "FAIL: " n " headings, not 13"; bad = 1 } exit bad }' "$work/table" || fails=$((fails + 1))
# One printer: a float format without infinities has its greatest finite
# value as its greatest value, and they must read the same.
awk 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
     $(col["kind"]) == "float" && $(col["inf"]) == "no" && $(col["max_finite"]) != $(col["max_value"]) {
       print "FAIL: " $2 ": max_finite " $(col["max_finite"]) ", max_value " $(col["max_value"]); bad = 1 }
     $(col["kind"]) == "float" && $(col["inf"]) == "no" && "-" $(col["max_finite"]) != $(col["min_value"]) {
       print "FAIL: " $2 ": max_finite " $(col["max_finite"]) ", min_value " $(col["min_value"]); bad = 1 }
     END { exit bad }' "$work/table" || fails=$((fails + 1))
grep -q "float8_e4m3fn" "$work/table" || fail "nx dtypes has no float8_e4m3fn row"

echo "$fails failed"
[ $fails = 0 ]
