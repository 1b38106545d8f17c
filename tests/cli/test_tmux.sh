#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# nx convert run as a person runs it, in a terminal: a shell in a tmux
# session types the commands, and everything the pane receives is recorded
# (tmux pipe-pane), so the progress bar is seen even after nx clears its
# line. With stdout and stderr on the terminal the bar is drawn, from 0% to
# 100%, and its line cleared at the end; with either one redirected to a
# file it is not drawn at all, and a redirected stderr holds no trace of it.
# Skips (77) where tmux is not installed.
# usage: test_tmux.sh <folder holding the nx program>
set -u
bin=$1
command -v tmux >/dev/null || { echo "SKIP: tmux is not installed (tools/install-deps.sh test installs it)"; exit 77; }
work=$(mktemp -d)
sock="$work/tmux.sock"
t() { tmux -S "$sock" "$@"; }
trap 't kill-server 2>/dev/null; rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# A 64 MiB bfloat16 safetensors file of zeros (sparse), long enough for the
# bar to move: the header, its length as 8 little-endian bytes, then the data.
header='{"w":{"dtype":"BF16","shape":[8192,4096],"data_offsets":[0,67108864]}}'
while [ $(( ${#header} % 8 )) != 0 ]; do header="$header "; done
len=${#header}
printf "$(printf '\\%03o' $((len & 255)) $((len >> 8 & 255)) 0 0 0 0 0 0)" >"$work/in.safetensors"
printf '%s' "$header" >>"$work/in.safetensors"
truncate -s $((8 + len + 67108864)) "$work/in.safetensors"

# A shell in a detached session of its own server, 120 columns wide; the
# pane's output appended to pane.log.
env -i PATH="$bin:/usr/bin:/bin" HOME="$work" TERM=xterm ${LSAN_OPTIONS:+LSAN_OPTIONS=$LSAN_OPTIONS} \
  tmux -S "$sock" new-session -d -s nx -x 120 -y 20 "sh" || { echo "FAIL: tmux cannot start a session"; exit 1; }
t pipe-pane -t nx -o "cat >>'$work/pane.log'"
: >"$work/pane.log"

# run MARK COMMAND: types COMMAND and Enter, waits (up to 120 s) until the
# pane shows "MARK=<status>" (the typed command shows "MARK=$?"), and sets rc and seg (what the pane received
# meanwhile).
run() {
  local mark=$1 cmd=$2 start
  start=$(wc -c <"$work/pane.log")
  t send-keys -t nx "$cmd; echo $mark=\$?" Enter
  for _ in $(seq 1200); do
    grep -aq "$mark=[0-9]" "$work/pane.log" && break
    sleep 0.1
  done
  seg=$(tail -c +$((start + 1)) "$work/pane.log")
  rc=$(printf '%s' "$seg" | tr -d '\r' | sed -n "s/.*$mark=\([0-9][0-9]*\).*/\1/p" | tail -1)
}

conv="nx convert '$work/in.safetensors' '$work/out.safetensors' --to float8_e4m3fn --scale amax"
run tty "$conv"
[ "$rc" = 0 ] || fail "nx convert in the terminal exited '$rc': $seg"
[ -s "$work/out.safetensors" ] || fail "nx convert in the terminal wrote no output"
case $seg in *"] 100% "*) ;; *) fail "no bar at 100% in the terminal: $seg" ;; esac
case $seg in *"]   0% "*) ;; *) fail "no bar at 0% in the terminal: $seg" ;; esac
case $seg in *"[##############################]"*) ;; *) fail "the bar is not full at the end: $seg" ;; esac
case $seg in *" w "*) ;; *) fail "the bar does not name the tensor 'w': $seg" ;; esac
# The line is cleared (carriage return, erase to its end) before the prompt.
printf '%s' "$seg" | grep -aq $'\r\033\[K' || fail "the bar's line is not cleared at the end"

rm -f "$work/out.safetensors"
run err "$conv 2>'$work/err'"
[ "$rc" = 0 ] || fail "nx convert 2>file exited '$rc'"
case $seg in *%*) fail "a bar with stderr redirected: $seg" ;; esac
[ ! -s "$work/err" ] || fail "stderr, redirected, holds: $(cat -v "$work/err")"

rm -f "$work/out.safetensors"
run out "$conv >'$work/stdout'"
[ "$rc" = 0 ] || fail "nx convert >file exited '$rc'"
case $seg in *%*) fail "a bar with stdout redirected: $seg" ;; esac
[ ! -s "$work/stdout" ] || fail "stdout, redirected, holds: $(cat -v "$work/stdout")"

# A failure in the terminal: the message on the terminal, no bar left over
# the prompt, exit status 1.
run bad "nx convert '$work/missing.safetensors' '$work/o.safetensors' --to float8_e4m3fn"
[ "$rc" = 1 ] || fail "nx convert of a missing file exited '$rc', not 1"
case $seg in *"missing.safetensors"*) ;; *) fail "the failure does not name the file: $seg" ;; esac

echo "$fails failed"
[ $fails = 0 ]
