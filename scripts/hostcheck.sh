#!/usr/bin/env bash
# Host-side tests of the harness itself: the run judge (check-run.sh) on
# canned console/result logs for every way a guest run can go wrong, and
# ShellCheck over every script. Output is TAP; fails on any "not ok".
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $*"; }

KTAP_PASS='KTAP version 1
1..1
    KTAP version 1
    # Subtest: demo
    # module: demo
    1..2
    ok 1 a
    ok 2 b
# demo: pass:2 fail:0 skip:0 total:2
ok 1 demo'
KTAP_FAIL=${KTAP_PASS/ok 2 b/not ok 2 b}
KTAP_FAIL=${KTAP_FAIL/ok 1 demo/not ok 1 demo}

TAP_PASS='TAP version 13
1..2
# selftest: one
# TAP version 13
# 1..2
# ok 1 first
# ok 2 second
ok 1 one # 0.1s
# selftest: two
# no TAP of its own
ok 2 two # 0.1s'

# case NAME EXPECT_RC EXPECT_LINE SERIAL RESULTS [OPTS...]
case_() {
	local name=$1 want_rc=$2 want_line=$3 serial=$4 results=$5 rc=0 out
	shift 5
	printf '%s\n' "$serial" >"$tmp/serial"
	printf '%s\n' "$results" >"$tmp/results"
	out=$("$TOP/scripts/check-run.sh" "$@" "$tmp/serial" "$tmp/results" 2>&1) || rc=$?
	if [ "$rc" != "$want_rc" ]; then
		notok "$name: exit $rc, expected $want_rc"
		printf '%s\n' "$out" | sed 's/^/# /'
	elif [ -n "$want_line" ] && ! printf '%s\n' "$out" | grep -qxF "$want_line"; then
		notok "$name: no line '$want_line'"
		printf '%s\n' "$out" | sed 's/^/# /'
	else
		ok "$name"
	fi
}

DONE0='@@NEWTOD-DONE rc=0'
echo "TAP version 13"
case_ "clean run passes and counts cases + KUnit" 0 "5 passed, 0 failed" \
	$'boot\n'"$KTAP_PASS" "$TAP_PASS"$'\n'"$DONE0" --tap --kunit
case_ "marker is found behind SeaBIOS escape codes" 0 "3 passed, 0 failed" \
	"x" "$TAP_PASS"$'\n'$'\e[2J\e[01;01H'"$DONE0"$'\r' --tap
case_ "a failing case fails the run" 1 "2 passed, 1 failed" \
	"x" "${TAP_PASS/\# ok 2 second/\# not ok 2 second}"$'\n'"$DONE0" --tap
case_ "a program failing without 'not ok' fails" 1 "2 passed, 1 failed" \
	"x" "${TAP_PASS/ok 2 two \# 0.1s/not ok 2 two \# exit=139}"$'\n'"$DONE0" --tap
case_ "a skipped case is not a pass" 0 "2 passed, 0 failed, 1 skipped" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 second \# SKIP no hpet}"$'\n'"$DONE0" --tap
case_ "kernel panic fails" 1 "" \
	"Kernel panic - not syncing: Attempted to kill init!" "$TAP_PASS"$'\n'"$DONE0" --tap
case_ "WARNING: in the console fails" 1 "" \
	"WARNING: CPU: 1 PID: 1 at kernel/time/timekeeping.c:1 x" "$TAP_PASS"$'\n'"$DONE0" --tap
case_ "BUG: in the console fails" 1 "" \
	"BUG: kernel NULL pointer dereference, address: 0000000000000000" "$TAP_PASS"$'\n'"$DONE0"
case_ "Oops in the console fails" 1 "" \
	"Oops: general protection fault" "$DONE0"
case_ "missing marker fails" 1 "" "x" "$TAP_PASS" --tap
case_ "non-zero guest rc fails" 1 "" "x" "@@NEWTOD-DONE rc=3"
case_ "timeout fails" 1 "" "x" "$TAP_PASS" --tap --timed-out
case_ "KUnit failure fails" 1 "1 passed, 1 failed" "$KTAP_FAIL" "$DONE0" --kunit
case_ "missing KUnit output fails" 1 "" "no ktap here" "$DONE0" --kunit
case_ "no TAP at all fails" 1 "" "x" "$DONE0" --tap
case_ "a runner that stopped early fails (plan 3, ran 2)" 1 "" \
	"x" "${TAP_PASS/1..2/1..3}"$'\n'"$DONE0" --tap

if shellcheck -x "$TOP"/scripts/*.sh "$TOP/.ci/run" &&
	shellcheck -s sh "$TOP/guest/init" "$TOP/guest/run-tests.sh" "$TOP/bench/run-bench.sh"; then
	ok "shellcheck: every script is clean"
else
	notok "shellcheck: fix the findings above"
fi

echo "1..$n"
[ "$fails" = 0 ] || die "hostcheck: $fails of $n harness checks failed"
log "hostcheck: $n harness checks passed"
