#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest test runner: runs every line of /tests/tests.list in turn, prints KTAP
# the way the kselftest runner does: each program's own output prefixed
# with "# ", then a "# newtod-run: NAME exited RC after T s" line and one
# "ok N name" or "not ok N name" line per program, from its exit status. A program that fails with no "not ok" of its own still
# fails here.
#
# tests.list: one test a line, "BOOTS NAME TIMEOUT COMMAND [ARGS...]",
# BOOTS one boot or several joined by commas; only the lines of this boot
# (newtod.boot= on the command line) run. TESTS_DIR and NEWTOD_BOOT
# replace /tests and the command line's boot (make hostcheck runs it so).
set -u
dir=${TESTS_DIR:-/tests}
list=$dir/tests.list
selftest=${1:-}
boot=default
# shellcheck disable=SC2013 # the command line is words, not lines
for arg in $(cat /proc/cmdline); do
	case "$arg" in newtod.boot=*) boot=${arg#newtod.boot=} ;; esac
done
boot=${NEWTOD_BOOT:-$boot}
tmp=$(mktemp -d) || exit 1
grep -v '^[[:space:]]*\(#\|$\)' "$list" |
	awk -v b="$boot" '{ n = split($1, t, ","); for (i = 1; i <= n; i++) if (t[i] == b) { $1 = ""; print; next } }' \
	>"$tmp/tests.this"
n=$(wc -l <"$tmp/tests.this")
[ "$selftest" = fail ] && n=$((n + 1))

echo "TAP version 13"
echo "1..$n"
i=0
echo "# boot: $boot"
# Boot is over for the stock clocks when the TSC's refined calibration has
# replaced tsc-early (about a second after init under TCG; up to 1800 ppm
# apart): until then stock's wall time runs at the early rate, and the
# core takes stock's wall time again at the switch, so a test that
# compares the two before it measures the early calibration. Wait for it,
# at most 30 s (a kernel that never refines goes on, and says so).
cs=/sys/devices/system/clocksource/clocksource0/current_clocksource
w=0
while [ "$(cat "$cs" 2>/dev/null)" = tsc-early ] && [ "$w" -lt 300 ]; do
	sleep 0.1
	w=$((w + 1))
done
echo "# stock clocksource $(cat "$cs" 2>/dev/null) after waiting $w x 0.1 s for tsc-early to end"
while read -r name tmo cmd; do
	i=$((i + 1))
	echo "# selftest: $name"
	start=$(cut -d' ' -f1 /proc/uptime)
	rm -f "$tmp/rc"
	# shellcheck disable=SC2086 # cmd holds the command and its arguments
	{ (cd "$dir" && timeout -k 5 "$tmo" $cmd </dev/null) 2>&1; echo "$?" >"$tmp/rc"; } | sed 's/^/# /'
	rc=$(cat "$tmp/rc" 2>/dev/null)
	[ -n "$rc" ] || rc=255
	secs=$(awk -v a="$start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
	# its exit status and time in a diagnostic line: after "#" on a result
	# line parsers read the first word as a directive (SKIP, TIMEOUT)
	echo "# newtod-run: $name exited $rc after $secs s"
	case "$rc" in
	0) echo "ok $i $name" ;;
	4) echo "ok $i $name # SKIP" ;;
	124 | 137 | 143) echo "not ok $i $name # TIMEOUT ${tmo}s" ;;
	*) echo "not ok $i $name" ;;
	esac
done <"$tmp/tests.this"
if [ "$selftest" = fail ]; then
	echo "# selftest: harness-selftest-fail"
	echo "# 1..1"
	echo "# not ok 1 newtod.selftest=fail: a test that always fails"
	echo "# newtod-run: harness-selftest-fail exited 1 after 0.0 s"
	echo "not ok $n harness-selftest-fail"
fi
rm -rf "$tmp"
