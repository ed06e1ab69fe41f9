#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own (stock) selftests, run unmodified through the kselftest
# runner (tools/testing/selftests/kselftest/runner.sh, the one the
# selftests' Makefiles and run_kselftest.sh source), made into ONE KTAP
# program for guest/run-tests.sh: one case per selftest, in the order given.
#
# Usage: kselftest-stock LANE...
#   LANE   DIR/PROG[:ARG...][,DIR/PROG[:ARG...]...]: selftests run one after
#          the other; the LANEs run at the same time (only selftests that
#          cannot disturb each other: see guest/tests.list). ARGs (':' for a
#          space, as tests.list has no quoting) reach PROG through the
#          runner's own KSELFTEST_<PROG>_ARGS.
# Environment: KSFT_DIR (BASE_DIR, where kselftest/runner.sh and DIR/PROG
# are; default: kselftest/ beside this script), STOCK_XFAIL (default:
# stock-xfail.list beside this script), NEWTOD_BOOT (the boot, default
# newtod.boot= of /proc/cmdline, then "default").
#
# A selftest's case passes when the runner says "ok": its exit status 0 and
# no "not ok" of its own; "ok ... # SKIP" (exit 4) stays a skip, which the
# host judges (guest/skips.list). Expected failures: guest/stock-xfail.list,
# "BOOT[,BOOT...] DIR/PROG CASE WHY", CASE one of the selftest's own results
# ('_' for a space; "program" for a selftest that fails without printing a
# "not ok"). A selftest listed there passes only when it fails and its
# failing cases are exactly the ones listed; if it passes, or fails
# differently (a case more, a case fewer), it fails: the list cannot go
# stale. A timeout fails.
#
# busybox sh: the runner is sourced in a subshell without 'set -eu' (it
# reads variables it never sets), its logfile is /proc/self/fd/1 (the
# guest has no /dev/stdout), and its tap_timeout is replaced: it calls
# "/usr/bin/timeout --foreground", which busybox's timeout does not have.
# Same semantics: the settings file's (or the default 45 s) timeout, none
# for 0, exit 124 on a timeout; but busybox's timeout signals the selftest
# alone, not its children (GNU timeout signals its process group), so the
# runner waits for a child that holds its output until guest/run-tests.sh's
# timeout (the timers' settings have no timeout; the vDSO's run no child).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
ksft=${KSFT_DIR:-$here/kselftest}
xfail=${STOCK_XFAIL:-$here/stock-xfail.list}
boot=default
# shellcheck disable=SC2013 # the command line is words, not lines
for arg in $(cat /proc/cmdline 2>/dev/null); do
	case "$arg" in newtod.boot=*) boot=${arg#newtod.boot=} ;; esac
done
boot=${NEWTOD_BOOT:-$boot}

[ $# -gt 0 ] || {
	echo "usage: kselftest-stock LANE... (LANE: DIR/PROG[:ARG...][,DIR/PROG...])" >&2
	exit 2
}
[ -f "$ksft/kselftest/runner.sh" ] || {
	echo "kselftest-stock: no kselftest runner in $ksft/kselftest/runner.sh" >&2
	exit 2
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run_one N TOKEN: selftest TOKEN through the runner; its output in $tmp/N.out
run_one() {
	n=$1 tok=$2
	path=${tok%%:*} args=
	case "$tok" in *:*) args=$(printf '%s' "${tok#*:}" | tr ':' ' ') ;; esac
	prog=${path##*/} dir=${path%/*}
	var=KSELFTEST_$(printf '%s' "$prog" | tr -c '[:alnum:]_' '_' | tr '[:lower:]' '[:upper:]')_ARGS
	start=$(cut -d' ' -f1 /proc/uptime)
	(
		set +eu
		export BASE_DIR="$ksft"
		export "$var=$args"
		# shellcheck disable=SC1091 # the kernel's runner, in the image
		. "$BASE_DIR/kselftest/runner.sh"
		# the runner writes the selftest's output to its logfile,
		# /dev/stdout, which the guest's devtmpfs (no udev) lacks
		export logfile=/proc/self/fd/1
		# shellcheck disable=SC2317 # called by the runner's run_one
		tap_timeout() {
			if [ "${kselftest_timeout:-0}" -gt 0 ] 2>/dev/null; then
				# shellcheck disable=SC2086 # $1 is the command and its arguments
				timeout -k 5 "$kselftest_timeout" $1
				rc=$?
				case $rc in 137 | 143) rc=124 ;; esac
				return "$rc"
			fi
			# shellcheck disable=SC2086
			$1
		}
		cd "$BASE_DIR/$dir" && run_many "./$prog"
	) >>"$tmp/$n.out" 2>&1 </dev/null || true
	awk -v a="$start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f\n", b - a }' >"$tmp/$n.secs"
}

# Each lane in the background, its selftests in turn; cases numbered in
# the order of the arguments.
n=0 lane=0 pids=
for l in "$@"; do
	lane=$((lane + 1))
	first=$((n + 1))
	cnt=0
	for tok in $(printf '%s' "$l" | tr ',' ' '); do
		n=$((n + 1)) cnt=$((cnt + 1))
		printf '%s\n' "$tok" >"$tmp/$n.tok"
	done
	(
		i=$first
		while [ "$i" -lt $((first + cnt)) ]; do
			run_one "$i" "$(cat "$tmp/$i.tok")"
			i=$((i + 1))
		done
	) &
	pids="$pids $!"
done
total=$n

echo "TAP version 13"
echo "1..$total"
echo "# kselftest-stock: boot $boot, $lane lane(s) at once, runner $ksft/kselftest/runner.sh"
# Killed (guest/run-tests.sh's timeout): stop every lane's selftests, then
# report what finished; the rest fail without a result line.
# (busybox has no pgrep: the children from ps)
kill_tree() {
	for c in $(ps -o pid,ppid 2>/dev/null | awk -v p="$1" '$2 == p { print $1 }'); do
		kill_tree "$c"
	done
	kill -TERM "$1" 2>/dev/null || true
}
stop() {
	echo "# kselftest-stock: terminated: stopping the selftests still running"
	for pid in $pids; do kill_tree "$pid"; done
}
trap 'stop' TERM INT
for pid in $pids; do
	wait "$pid" || true
done
trap - TERM INT

# words LINES: the lines as one line
words() { printf '%s\n' "$1" | tr '\n' ' ' | sed 's/ *$//'; }
# expected failures of DIR/PROG in this boot, one CASE a line, sorted
expected() {
	[ -f "$xfail" ] || return 0
	awk -v b="$boot" -v p="$1" '
		/^[ \t]*(#|$)/ { next }
		{
			n = split($1, t, ",")
			for (i = 1; i <= n; i++) if (t[i] == b && $2 == p) print $3
		}' "$xfail" | LC_ALL=C sort -u
}
# a malformed xfail line fails every case: it would silently expect nothing
bad_list=
if [ -f "$xfail" ]; then
	bad_list=$(awk '/^[ \t]*(#|$)/ { next } NF < 4 || $2 !~ /\// { print FILENAME ":" FNR ": want BOOT[,BOOT] DIR/PROG CASE WHY" }' "$xfail")
fi

fails=0 i=0
while [ "$i" -lt "$total" ]; do
	i=$((i + 1))
	tok=$(cat "$tmp/$i.tok")
	name=${tok%%:*}
	out=$tmp/$i.out
	[ -f "$out" ] || : >"$out"
	sed 's/^/# /' "$out"
	res=$(grep -E '^(not )?ok [0-9]+ selftests: ' "$out" | tail -n 1 || true)
	# the selftest's own failed results: "# not ok N desc" once the runner
	# prefixed them; a directive dropped, '_' for spaces
	got=$(sed -n 's/^# not ok [0-9][0-9]* //p' "$out" | sed -e 's/ # .*//' -e 's/^- //' -e 's/[[:space:]]*$//' \
		-e 's/[[:space:]]\{1,\}/_/g' | LC_ALL=C sort -u)
	want=$(expected "$name")
	secs=$(cat "$tmp/$i.secs" 2>/dev/null || echo '?')
	echo "# kselftest-stock: $name ran ${secs} s: ${res:-no result line from the runner}"
	if [ -n "$bad_list" ]; then
		printf '# %s\n' "$bad_list"
		echo "not ok $i $name # malformed $xfail"
		fails=$((fails + 1))
		continue
	fi
	case "$res" in
	"ok "*"# SKIP"*)
		echo "ok $i $name # SKIP${res#*# SKIP}"
		;;
	"ok "*)
		if [ -z "$got" ] && [ -z "$want" ]; then
			echo "ok $i $name"
		elif [ -n "$got" ] && [ "$got" = "$want" ]; then
			echo "ok $i $name # XFAIL $(words "$want")"
		elif [ -z "$got" ]; then
			echo "# kselftest-stock: $name passed, but $(basename "$xfail") expects it to fail: $(words "$want"): drop those lines if it passes on purpose"
			echo "not ok $i $name # XPASS"
			fails=$((fails + 1))
		else
			echo "# kselftest-stock: $name exited 0 but printed failed results: $(words "$got")"
			[ -z "$want" ] || echo "# kselftest-stock: $(basename "$xfail") expects exactly: $(words "$want")"
			echo "not ok $i $name # failed results"
			fails=$((fails + 1))
		fi
		;;
	"not ok "*"# TIMEOUT"*)
		echo "not ok $i $name # TIMEOUT${res#*# TIMEOUT}"
		fails=$((fails + 1))
		;;
	*)
		[ -n "$got" ] || got=program
		[ -n "$res" ] || got=no-result
		if [ -n "$want" ] && [ "$got" = "$want" ]; then
			echo "ok $i $name # XFAIL $(words "$want")"
		else
			echo "# kselftest-stock: $name failed: $(words "$got")"
			[ -z "$want" ] || echo "# kselftest-stock: $(basename "$xfail") expects exactly: $(words "$want")"
			case "$res" in
			"") why="no result line" ;;
			*"# "*) why=${res##*# } ;;
			*) why="runner: $res" ;;
			esac
			echo "not ok $i $name # $why"
			fails=$((fails + 1))
		fi
		;;
	esac
done
[ "$fails" = 0 ]
