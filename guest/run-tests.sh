#!/bin/sh
# Guest test runner: runs every line of /tests/tests.list in turn, prints KTAP
# the way the kselftest runner does: each program's own output prefixed
# with "# ", then one "ok N name" or "not ok N name" line per program, from
# its exit status. A program that fails with no "not ok" of its own still
# fails here.
#
# tests.list: one test a line, "NAME TIMEOUT COMMAND [ARGS...]"; # comments.
set -u
list=/tests/tests.list
selftest=${1:-}
n=$(grep -cv '^[[:space:]]*\(#\|$\)' "$list")
[ "$selftest" = fail ] && n=$((n + 1))

echo "TAP version 13"
echo "1..$n"
i=0
grep -v '^[[:space:]]*\(#\|$\)' "$list" | while read -r name tmo cmd; do
	i=$((i + 1))
	echo "# selftest: $name"
	start=$(cut -d' ' -f1 /proc/uptime)
	rm -f /tmp/rc
	# shellcheck disable=SC2086 # cmd holds the command and its arguments
	{ (cd /tests && timeout -k 5 "$tmo" $cmd </dev/null) 2>&1; echo "$?" >/tmp/rc; } | sed 's/^/# /'
	rc=$(cat /tmp/rc 2>/dev/null)
	[ -n "$rc" ] || rc=255
	secs=$(awk -v a="$start" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
	case "$rc" in
	0) echo "ok $i $name # ${secs}s" ;;
	4) echo "ok $i $name # SKIP" ;;
	124 | 137 | 143) echo "not ok $i $name # TIMEOUT ${tmo}s" ;;
	*) echo "not ok $i $name # exit=$rc" ;;
	esac
done
if [ "$selftest" = fail ]; then
	echo "# selftest: harness-selftest-fail"
	echo "# not ok 1 newtod.selftest=fail: a test that always fails"
	echo "not ok $n harness-selftest-fail # exit=1"
fi
