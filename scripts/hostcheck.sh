#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
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
# newtod-run: one exited 0 after 0.1 s
ok 1 one
# selftest: two
# TAP version 13
# 1..1
# ok 1 only
# newtod-run: two exited 0 after 0.1 s
ok 2 two'

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
	elif [ -n "$want_line" ] && ! grep -qxF -- "$want_line" <<<"$out"; then
		notok "$name: no line '$want_line'"
		printf '%s\n' "$out" | sed 's/^/# /'
	else
		ok "$name"
	fi
}

DONE0='@@NEWTOD-DONE rc=0'
echo "TAP version 13"
printf 'demo 2\n' >"$tmp/suites-ok"
printf '# comment\ndemo 3\n' >"$tmp/suites-3"
printf 'demo 2\nother 1\n' >"$tmp/suites-other"
case_ "clean run passes and counts cases + KUnit" 0 "5 passed, 0 failed" \
	$'boot\n'"$KTAP_PASS" "$TAP_PASS"$'\n'"$DONE0" --tap --kunit
case_ "marker is found behind SeaBIOS escape codes" 0 "3 passed, 0 failed" \
	"x" "$TAP_PASS"$'\n'$'\e[2J\e[01;01H'"$DONE0"$'\r' --tap
case_ "a failing case fails the run" 1 "2 passed, 1 failed" \
	"x" "${TAP_PASS/\# ok 2 second/\# not ok 2 second}"$'\n'"$DONE0" --tap
case_ "a program failing without 'not ok' fails" 1 "3 passed, 1 failed" \
	"x" "${TAP_PASS/two exited 0 after 0.1 s
ok 2 two/two exited 1 after 0.1 s
not ok 2 two}"$'\n'"$DONE0" --tap
case_ "a runner result that disagrees with the exit status logged before it fails" 1 \
	'FAIL: runner result "not ok 2 two" for a program that exited 0 (want ok)' \
	"x" "${TAP_PASS/ok 2 two/not ok 2 two}"$'\n'"$DONE0" --tap
case_ "a runner result with no '# newtod-run:' line before it fails" 1 "" \
	"x" "${TAP_PASS/\# newtod-run: two exited 0 after 0.1 s
/}"$'\n'"$DONE0" --tap
case_ "a results file of the older runner (time after '#', no newtod-run lines) passes" 0 "3 passed, 0 failed" \
	"x" "$(sed -e '/^# newtod-run:/d' -e 's/^ok \([12]\) \(one\|two\)$/ok \1 \2 # 0.1s/' <<<"$TAP_PASS")"$'\n'"$DONE0" --tap
case_ "a runner result with more than a directive after '#' is not KTAP and fails" 1 "" \
	"x" "${TAP_PASS/ok 2 two/ok 2 two \# 0.1s}"$'\n'"$DONE0" --tap
case_ "a runner result whose first '#' holds no directive fails, a SKIP after it notwithstanding" 1 "" \
	"x" "${TAP_PASS/ok 2 two/ok 2 two \# 0.1s \# SKIP}"$'\n'"$DONE0" --tap
case_ "an expected skipped case is a skip, not a pass" 0 "2 passed, 0 failed, 1 skipped" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 second \# SKIP no hpet}"$'\n'"$DONE0" --tap --expect-skips one:1:second
case_ "a skipped case not in the expected skips fails" 1 "" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 second \# SKIP no hpet}"$'\n'"$DONE0" --tap
# program two skips whole (plan 1..0 # SKIP, exit 4)
WHOLE_SKIP=${TAP_PASS/\# 1..1
\# ok 1 only
\# newtod-run: two exited 0 after 0.1 s
ok 2 two/\# 1..0 \# SKIP no hpet
\# newtod-run: two exited 4 after 0.1 s
ok 2 two \# SKIP}
case_ "a whole program that skips (exit 4) unexpectedly fails" 1 "" \
	"x" "$WHOLE_SKIP"$'\n'"$DONE0" --tap
case_ "an expected whole-program skip is a skip" 0 "2 passed, 0 failed, 1 skipped" \
	"x" "$WHOLE_SKIP"$'\n'"$DONE0" --tap --expect-skips two:1:program
case_ "an expected skip that did not happen fails" 1 "" \
	"x" "$TAP_PASS"$'\n'"$DONE0" --tap --expect-skips two:1:program
# A skips.list line names what may skip and how often: a case skip does
# not allow the whole program to skip, nor another case, nor a second one.
case_ "a whole-program skip where one case may skip fails" 1 "" \
	"x" "$WHOLE_SKIP"$'\n'"$DONE0" --tap --expect-skips two:1:only
case_ "a skip of another case than the one allowed fails" 1 "" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 second \# SKIP no hpet}"$'\n'"$DONE0" --tap --expect-skips one:1:first
TWO_SKIPS=${TAP_PASS/\# ok 1 first/\# ok 1 rate a \# SKIP no hpet}
TWO_SKIPS=${TWO_SKIPS/\# ok 2 second/\# ok 2 rate b \# SKIP no hpet}
case_ "two skips where one is allowed fail" 1 "" \
	"x" "$TWO_SKIPS"$'\n'"$DONE0" --tap --expect-skips one:1:rate
case_ "two skips where two are allowed pass" 0 "1 passed, 0 failed, 2 skipped" \
	"x" "$TWO_SKIPS"$'\n'"$DONE0" --tap --expect-skips one:2:rate
case_ "one skip where two are expected fails" 1 "" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 rate b \# SKIP no hpet}"$'\n'"$DONE0" --tap --expect-skips one:2:rate
case_ "a kselftest.h skip ('ok 2 # SKIP why') is named by its message" 0 "2 passed, 0 failed, 1 skipped" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 \# SKIP jiffies: rate is the tick}"$'\n'"$DONE0" --tap --expect-skips one:1:jiffies:
case_ "an --expect-skips entry without its count is refused" 1 "" \
	"x" "$TWO_SKIPS"$'\n'"$DONE0" --tap --expect-skips one
case_ "a case named with spaces, allowed with '_', skips" 0 "2 passed, 0 failed, 1 skipped" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 jiffies: rate is the tick \# SKIP why}"$'\n'"$DONE0" --tap --expect-skips one:1:jiffies:_rate
case_ "plans as pinned pass" 0 "3 passed, 0 failed" \
	"x" "$TAP_PASS"$'\n'"$DONE0" --tap --plans "one:2 two:1"
case_ "a program whose plan shrank below its pin fails" 1 "" \
	"x" "$TAP_PASS"$'\n'"$DONE0" --tap --plans "one:3 two:1"
case_ "a program not pinned fails" 1 "" \
	"x" "$TAP_PASS"$'\n'"$DONE0" --tap --plans "one:2"
case_ "no pins at all (--plans '') fails every program, its plan shown" 1 \
	"FAIL: one ran (plan 2) but guest/plans.list pins no plan for it in this boot" \
	"x" "$TAP_PASS"$'\n'"$DONE0" --tap --plans ""
case_ "a whole-program skip without a plan (exit 4) is plan 0" 0 "" \
	"x" "${TAP_PASS/\# 1..1
\# ok 1 only
\# newtod-run: two exited 0 after 0.1 s
ok 2 two/\# newtod-run: two exited 4 after 0.1 s
ok 2 two \# SKIP}"$'\n'"$DONE0" --tap --expect-skips two:1:program --plans "one:2 two:0"
case_ "--kunit-suites where KUnit printed nothing fails" 1 "" \
	"no ktap" "$DONE0" --kunit-suites "$tmp/suites-ok"
printf '%s\n' 'cannot be enabled (' >"$tmp/msgs-k"
case_ "a warning of the series about a kunit-* source is KUnit's own" 0 "" \
	"[    2.1] timeofday: timesource: kunit-refuses cannot be enabled (-5): staying on kunit-leaving" \
	"$DONE0" --series-msgs "$tmp/msgs-k"
case_ "a pinned program that did not run fails" 1 "" \
	"x" "$TAP_PASS"$'\n'"$DONE0" --tap --plans "one:2 two:1 three:4"
case_ "a whole-program skip is plan 0 against its pin" 1 "" \
	"x" "$WHOLE_SKIP"$'\n'"$DONE0" --tap --expect-skips two:1:program --plans "one:2 two:1"
case_ "a program that planned 16 and printed 2 fails" 1 "" \
	"x" "${TAP_PASS/\# 1..2/\# 1..16}"$'\n'"$DONE0" --tap
case_ "a program that printed nothing and exited 0 fails" 1 "" \
	"x" "${TAP_PASS/\# TAP version 13
\# 1..1
\# ok 1 only/\# nothing}"$'\n'"$DONE0" --tap
case_ "results without a plan fail" 1 "" \
	"x" "${TAP_PASS/\# 1..1
/}"$'\n'"$DONE0" --tap
case_ "pinned KUnit suite with its case count passes" 0 "2 passed, 0 failed" \
	"$KTAP_PASS" "$DONE0" --kunit --kunit-suites "$tmp/suites-ok"
case_ "a pinned KUnit suite with a case missing fails" 1 "" \
	"$KTAP_PASS" "$DONE0" --kunit --kunit-suites "$tmp/suites-3"
case_ "a pinned KUnit suite that did not run fails" 1 "" \
	"$KTAP_PASS" "$DONE0" --kunit --kunit-suites "$tmp/suites-other"
case_ "a console line inside a KUnit suite does not break the count" 0 "2 passed, 0 failed" \
	"${KTAP_PASS/    1..2/    1..2
clocksource: Switched to clocksource tsc}" "$DONE0" --kunit --kunit-suites "$tmp/suites-ok"
case_ "a KUnit suite that stopped after one of two cases fails" 1 "" \
	"${KTAP_PASS/    ok 2 b
/}" "$DONE0" --kunit
case_ "a pinned KUnit suite whose cases all skip fails" 1 "" \
	"${KTAP_PASS//ok [12] [ab]/ok 1 x # SKIP no}" "$DONE0" --kunit --kunit-suites "$tmp/suites-ok"
case_ "KUnit output without its top-level plan fails" 1 "" \
	"${KTAP_PASS/$'\n'1..1$'\n'/$'\n'}" "$DONE0" --kunit
case_ "a runner result without its '# selftest:' line fails" 1 "" \
	"x" "${TAP_PASS/\# selftest: two
/}"$'\n'"$DONE0" --tap
case_ "results numbered 1, 1 against a plan of 2 fail" 1 "" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 1 second}"$'\n'"$DONE0" --tap
case_ "a 'not ok ... # SKIP' is a failure, not a skip" 1 "2 passed, 1 failed" \
	"x" "${TAP_PASS/\# ok 2 second/\# not ok 2 second \# SKIP why}"$'\n'"$DONE0" --tap
case_ "a second plan (a stray '1..0 # SKIP') in a program's output fails" 1 "" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 second
\# 1..0 \# SKIP stray}"$'\n'"$DONE0" --tap --expect-skips one:1:program
case_ "a runner without its plan fails" 1 "" \
	"x" "${TAP_PASS/1..2
/}"$'\n'"$DONE0" --tap
case_ "the end marker printed inside a program's output does not count" 1 "" \
	"x" "${TAP_PASS/\# ok 2 second/\# ok 2 second @@NEWTOD-DONE rc=0}" --tap
# The series' own warnings (series_messages): each fails the boot unless
# skips.list allows it there, at most so many times.
printf '%s\n' 'could not withdraw the unstable TSC:' 'cannot be enabled (' >"$tmp/msgs"
WD='[    1.5] timesource tsc: could not withdraw the unstable TSC: -16'
case_ "a warning of the series in the console fails" 1 "" \
	"$WD" "$DONE0" --series-msgs "$tmp/msgs"
case_ "a warning of the series the boot allows passes" 0 "" \
	"$WD" "$DONE0" --series-msgs "$tmp/msgs" --console-allow "1:could_not_withdraw"
case_ "a warning of the series more often than allowed fails" 1 "" \
	"$WD"$'\n'"$WD" "$DONE0" --series-msgs "$tmp/msgs" --console-allow "1:could_not_withdraw"
case_ "an allowance for another warning does not allow this one" 1 "" \
	"$WD" "$DONE0" --series-msgs "$tmp/msgs" --console-allow "3:cannot_be_enabled"
case_ "stock's hrtimer warning is listed with its length, and passes" 0 \
	"noted (stock's warning, listed, not failed): hrtimer: interrupt took 306.2 ms" \
	'[   12.3] hrtimer: interrupt took 306195159 ns' "$DONE0" --series-msgs "$tmp/msgs"
if out=$(KSRC=$KSRC series_messages) && grep -qxF 'could not withdraw the unstable TSC:' <<<"$out" &&
	grep -qxF 'newtod: no [vvar] pseudo file: the vDSO will not read the HPET' <<<"$out"; then
	ok "series_messages: the series' pr_warn/pr_err formats, conversions cut out"
else
	notok "series_messages: the series' warnings not found in build/linux base..HEAD"
fi
case_ "kernel panic fails" 1 "" \
	"Kernel panic - not syncing: Attempted to kill init!" "$TAP_PASS"$'\n'"$DONE0" --tap
case_ "WARNING: in the console fails" 1 "" \
	"WARNING: CPU: 1 PID: 1 at kernel/time/timekeeping.c:1 x" "$TAP_PASS"$'\n'"$DONE0" --tap
case_ "BUG: in the console fails" 1 "" \
	"BUG: kernel NULL pointer dereference, address: 0000000000000000" "$TAP_PASS"$'\n'"$DONE0"
case_ "Oops in the console fails" 1 "" \
	"Oops: general protection fault" "$DONE0"
# The debug kernels' reports, as they print them (scripts/debug-check.sh
# provokes each in a real boot).
for l in 'WARNING: possible circular locking dependency detected' \
	'BUG: KASAN: slab-out-of-bounds in provoke_kasan+0x49/0x59 [newtod_test_timesource]' \
	'BUG: KFENCE: out-of-bounds read in tod_read+0x1/0x2' \
	'UBSAN: shift-out-of-bounds in kernel/timeofday/timeofday.c:98:4' \
	'UBSAN: array-index-out-of-bounds in kernel/timeofday/timeofday.c:9:9' \
	'ODEBUG: init active (active state 0) object: 0000000012345678 object type: hrtimer' \
	'rcu: INFO: rcu_preempt self-detected stall on CPU' \
	'rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:' \
	'rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 1-... }' \
	'watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [tod_core:90]' \
	'BUG: sleeping function called from invalid context at kernel/locking/mutex.c:586' \
	'BUG: scheduling while atomic: insmod/88/0x00000002' \
	'list_del corruption. prev->next should be 0000, but was 0001' \
	'WARNING: suspicious RCU usage' \
	'INFO: task tod_core:90 blocked for more than 120 seconds.'; do
	case_ "console report '${l%% in *}' fails" 1 "FAIL: kernel: $l" \
		"$l" "$TAP_PASS"$'\n'"$DONE0" --tap
done
printf 'tod_read\ntod_safety_fn\n' >"$tmp/ours"
case_ "KCSAN: a data race naming a function of the series fails" 1 \
	"FAIL: kernel: BUG: KCSAN: data-race in timekeeping_advance / tod_read (names tod_read, a function of the series)" \
	"BUG: KCSAN: data-race in timekeeping_advance / tod_read" "$DONE0" --kcsan-ours "$tmp/ours"
case_ "KCSAN: a data race elsewhere is listed, not failed" 0 "      1   data-race in foo / bar" \
	"BUG: KCSAN: data-race in foo / bar" "$DONE0" --kcsan-ours "$tmp/ours"
# a whole report: the series' function only in a stack frame
kcsan_report() { # kcsan_report FRAME_OF_THE_READ
	printf '%s\n' '[   12.000] ==================================================================' \
		'[   12.001] BUG: KCSAN: data-race in hrtimer_run_queues / ktime_get' '[   12.002] ' \
		'[   12.003] write to 0xffff888003e1c0 of 8 bytes by interrupt on cpu 0:' \
		'[   12.004]  hrtimer_run_queues+0x1c2/0x300' '[   12.005]  update_process_times+0x80/0xd0' \
		'[   12.006] ' '[   12.007] read to 0xffff888003e1c0 of 8 bytes by task 91 on cpu 1:' \
		"[   12.008]  ktime_get+0x21/0x90" "[   12.009]  $1" \
		'[   12.010] ' '[   12.011] Reported by Kernel Concurrency Sanitizer on:' \
		'[   12.012] ==================================================================' \
		'[   12.013]  tod_read+0x10/0x20 (a frame after the report: not part of it)'
}
case_ "KCSAN: a report whose stack names a function of the series fails" 1 \
	"FAIL: kernel: BUG: KCSAN: data-race in hrtimer_run_queues / ktime_get (names tod_safety_fn, a function of the series)" \
	"$(kcsan_report 'tod_safety_fn+0x4a/0x120')" "$DONE0" --kcsan-ours "$tmp/ours"
case_ "KCSAN: a frame of a compiler clone of the series' function fails" 1 \
	"FAIL: kernel: BUG: KCSAN: data-race in hrtimer_run_queues / ktime_get (names tod_safety_fn, a function of the series)" \
	"$(kcsan_report 'tod_safety_fn.isra.0+0x4a/0x120')" "$DONE0" --kcsan-ours "$tmp/ours"
case_ "KCSAN: a stale +0x0 frame (no return address) does not count" 0 \
	"      1   data-race in hrtimer_run_queues / ktime_get" \
	"$(kcsan_report 'tod_safety_fn+0x0/0x120')" "$DONE0" --kcsan-ours "$tmp/ours"
case_ "KCSAN: a report whose stack names only stock functions is listed, not failed" 0 \
	"      1   data-race in hrtimer_run_queues / ktime_get" \
	"$(kcsan_report 'do_nanosleep+0x4a/0x120')" "$DONE0" --kcsan-ours "$tmp/ours"
case_ "KCSAN: a report of the debug kernel (no --kcsan-ours) fails" 1 "" \
	"BUG: KCSAN: data-race in foo / bar" "$DONE0"
case_ "missing marker fails" 1 "" "x" "$TAP_PASS" --tap
case_ "non-zero guest rc fails" 1 "" "x" "@@NEWTOD-DONE rc=3"
case_ "timeout fails" 1 "" "x" "$TAP_PASS" --tap --timed-out
case_ "one S3 wake-up by the harness is said and passes" 0 \
	"the harness woke the guest from S3 once (60 s with no wake event: its RTC alarm fired before S3 was entered); allowed once per boot" \
	"x" "$TAP_PASS"$'\n'"$DONE0" --tap --s3-wakeups 1
case_ "two S3 wake-ups by the harness fail" 1 "3 passed, 1 failed" \
	"x" "$TAP_PASS"$'\n'"$DONE0" --tap --s3-wakeups 2
case_ "--s3-wakeups takes a count" 1 "" "x" "$DONE0" --s3-wakeups x
case_ "KUnit failure fails" 1 "1 passed, 1 failed" "$KTAP_FAIL" "$DONE0" --kunit
case_ "missing KUnit output fails" 1 "" "no ktap here" "$DONE0" --kunit
case_ "KUnit turned off in a boot that counts it fails" 1 "" "kunit: disabled" "$DONE0" --kunit
case_ "a KUnit failure in a boot that does not count KUnit fails" 1 "" "$KTAP_FAIL" "$DONE0"
case_ "a passing KUnit in a boot that does not count KUnit passes" 0 "" "$KTAP_PASS" "$DONE0"
case_ "a pinned KUnit suite with a case missing fails a boot that does not count KUnit" 1 "" \
	"$KTAP_PASS" "$DONE0" --kunit-suites "$tmp/suites-3"
case_ "a KUnit suite that stopped early fails a boot that does not count KUnit" 1 "" \
	"${KTAP_PASS/    ok 2 b
/}" "$DONE0"
case_ "KUnit checked in a boot that does not count it adds nothing to the counts" 0 "3 passed, 0 failed" \
	"$KTAP_PASS" "$TAP_PASS"$'\n'"$DONE0" --tap --kunit-suites "$tmp/suites-ok"
case_ "no TAP at all fails" 1 "" "x" "$DONE0" --tap
case_ "a runner that stopped early fails (plan 3, ran 2)" 1 "" \
	"x" "${TAP_PASS/1..2/1..3}"$'\n'"$DONE0" --tap

# series_functions (lib.sh) on a small tree: what the series defines, not
# what it calls.
sf=$tmp/sf
mkdir -p "$sf/o"
git init -q "$sf"
printf '%s\n' 'static inline int stock_inl(int x) { return x + 1; }' >"$sf/old.h"
printf '%s\n' '#include "old.h"' 'int a(int x)' '{' '	return stock_inl(x);' '}' \
	'int b(int x)' '{' '	return x;' '}' >"$sf/stock.c"
git -C "$sf" add . && git -C "$sf" -c user.name=t -c user.email=t@t commit -qm base && git -C "$sf" tag base
printf '%s\n' 'static inline int new_inl(int x)' '{' '	return x * 2;' '}' >"$sf/new.h"
printf '%s\n' '#include "old.h"' '#include "new.h"' 'int ours(int x);' 'int ours(int x)' '{' \
	'	return stock_inl(x) + new_inl(x);' '}' \
	'#define MAKE(n) int n##_made(void) { return 0; }' 'MAKE(gen)' >"$sf/new.c"
printf '%s\n' '#include "old.h"' 'int ours(int x);' 'int a(int x)' '{' '	return stock_inl(x);' '}' \
	'int b(int x)' '{' '	return ours(x);' '}' 'int c(int x)' '{' '	return x - 1;' '}' >"$sf/stock.c"
git -C "$sf" add . && git -C "$sf" -c user.name=t -c user.email=t@t commit -qm series
gcc -O0 -c -o "$sf/o/new.o" "$sf/new.c" && gcc -O0 -c -o "$sf/o/stock.o" "$sf/stock.c"
got=$(KSRC=$sf series_functions "$sf/o" | tr '\n' ' ')
if [ "$got" = "b c gen_made new_inl ours " ]; then
	ok "series_functions: the series' definitions, its headers' inlines, macro-made functions and stock bodies it changes, not stock ones it calls: $got"
else
	notok "series_functions: got '$got', expected 'b c gen_made new_inl ours ' (not a, stock_inl)"
fi

# The lists: a tests.list line whose boot is not in boots.list never runs.
lists_() { # lists_ NAME EXPECT_RC TESTS BOOTS SKIPS [SUITES [PLANS]]; LISTS_WANT: a text the output must hold
	local rc=0
	printf '%s' "$3" >"$tmp/tests.list"
	printf '%s' "$4" >"$tmp/boots.list"
	printf '%s' "$5" >"$tmp/skips.list"
	printf '%s\n' "${6:-demo 2}" >"$tmp/kunit.suites"
	# PLANS by default: every test of TESTS pinned at 1 case, once per boot
	if [ $# -ge 7 ]; then
		printf '%s' "$7" >"$tmp/plans.list"
	else
		awk '/^[ \t]*(#|$)/ { next }
			{ n = split($1, t, ","); for (i = 1; i <= n; i++) if (!((t[i], $2) in s)) { s[t[i], $2]; print t[i], $2, 1 } }' \
			"$tmp/tests.list" >"$tmp/plans.list"
	fi
	"$TOP/scripts/check-lists.sh" "$tmp/tests.list" "$tmp/boots.list" "$tmp/skips.list" \
		"$tmp/kunit.suites" "$tmp/plans.list" >"$tmp/out" 2>&1 || rc=$?
	if { [ "$rc" = "$2" ] || { [ "$2" != 0 ] && [ "$rc" != 0 ]; }; } &&
		{ [ -z "${LISTS_WANT:-}" ] || grep -qF -- "$LISTS_WANT" "$tmp/out"; }; then
		ok "$1"
	else
		notok "$1: exit $rc, expected $2${LISTS_WANT:+, and a line with: $LISTS_WANT}"
		sed 's/^/# /' "$tmp/out"
	fi
}
if "$TOP/scripts/check-lists.sh" >"$tmp/out" 2>&1; then
	ok "the repository's test lists agree"
else
	notok "the repository's test lists agree"
	sed 's/^/# /' "$tmp/out"
fi
lists_ "an empty boots.list with a test line fails" 1 "default a 10 ./a" "" ""
lists_ "empty lists pass" 0 "" "" "" "demo 2" ""
LISTS_WANT="boot default defined twice (line 1 too)" \
	lists_ "a boot defined twice fails" 1 "default a 10 ./a" "default"$'\n'"default tsc=unstable" ""
: >"$tmp/kernel-x.config"
LISTS_WANT='"on-demand" after the kernel parameters' \
	lists_ "a boots.list line with on-demand after its @KERNEL fails" 1 \
	"default a 10 ./a"$'\n'"b a 10 ./a" "default"$'\n'"b @x on-demand" "" "demo 2" "default a 1"
LISTS_WANT='"@x" after the kernel parameters' \
	lists_ "a boots.list line with @KERNEL after a kernel parameter fails" 1 \
	"default a 10 ./a"$'\n'"b a 10 ./a" "default"$'\n'"b hpet=force @x" "" "demo 2" "default a 1"
LISTS_WANT='"#" after the kernel parameters' \
	lists_ "a boots.list comment after a boot's parameters fails" 1 \
	"default a 10 ./a" "default x=1 # why" "" "demo 2" "default a 1"
LISTS_WANT='boot name "a,b"' \
	lists_ "a boot name with a comma fails" 1 "default a 10 ./a" "default"$'\n'"a,b" "" "demo 2" "default a 1"
LISTS_WANT='a carriage return' \
	lists_ "a boots.list line with a carriage return fails" 1 "default a 10 ./a" "default"$'\r' "" "demo 2" "default a 1"
rm -f "$tmp/kernel-x.config"
# list_boots: the one reading of boots.list that every script uses
printf '# c\n\na\nb on-demand\nc @x y=1\nd on-demand @x y=1 z\n' >"$tmp/boots.list"
got=$(list_boots "$tmp/boots.list" 2>&1 | tr '\n' ';') || true
want='a run default;b on-demand default;c run x y=1;d on-demand x y=1 z;'
if [ "$got" = "$want" ]; then
	ok "list_boots: NAME WHEN KERNEL PARAMS for each boot, comments skipped"
else
	notok "list_boots: got '$got', expected '$want'"
fi
lists_ "an empty tests.list with an expected skip fails" 1 "" "default" "default a 1 program why"
lists_ "a tests.list line without a numeric timeout fails" 1 "default a ./a" "default" ""
lists_ "a kunit.suites line without a count fails" 1 "default a 10 ./a" "default" "" "demo"
lists_ "a tests.list boot tag missing from boots.list fails" 1 \
	"default a 10 ./a"$'\n'"typo b 10 ./b" "default" ""
lists_ "an expected skip of a test the boot does not run fails" 1 \
	"default a 10 ./a" "default" "default b 1 program why"
lists_ "a plans.list that pins only some tests is accepted (the run fails the others)" 0 \
	"default a 10 ./a"$'\n'"default b 10 ./b" "default" "" "demo 2" "default a 3"
lists_ "a plan pinned for a test the boot does not run fails" 1 \
	"default a 10 ./a" "default" "" "demo 2" "default a 3"$'\n'"default z 3"
lists_ "a plan pinned twice fails" 1 \
	"default a 10 ./a" "default" "" "demo 2" "default a 3"$'\n'"default a 4"
lists_ "an on-demand boot with no pins passes (its counts are not checked)" 0 \
	"default a 10 ./a"$'\n'"od a 10 ./a" "default"$'\n'"od on-demand" "" "demo 2" "default a 3"
lists_ "a plans.list line without its count fails" 1 \
	"default a 10 ./a" "default" "" "demo 2" "default a"
lists_ "a skips.list line that names what skips and how often passes" 0 \
	"default a 10 ./a" "default" "default a 2 jiffies:_rate why"
lists_ "a skips.list line without its count and what (BOOT NAME WHY) fails" 1 \
	"default a 10 ./a" "default" "default a why it skips"
lists_ "a whole-program skip counted twice fails" 1 \
	"default a 10 ./a" "default" "default a 2 program why"
lists_ "a skips.list line without its reason fails" 1 \
	"default a 10 ./a" "default" "default a 1 program"
lists_ "a boot of a kernel without its fragment (guest/kernel-NAME.config) fails" 1 \
	"dbg a 10 ./a" "dbg @nosuch" ""
: >"$tmp/kernel-dbg.config"
lists_ "a boot of a kernel with its fragment passes" 0 "dbg a 10 ./a" "dbg @dbg" ""
lists_ "a kernel whose every boot turns KUnit off fails (never counted)" 1 \
	"dbg a 10 ./a"$'\n'"dbg2 a 10 ./a" "dbg @dbg kunit.enable=0"$'\n'"dbg2 @dbg x kunit.enable=off" ""
lists_ "a kernel with one boot that runs KUnit passes" 0 \
	"dbg a 10 ./a"$'\n'"dbg2 a 10 ./a" "dbg @dbg kunit.enable=0"$'\n'"dbg2 @dbg kunit.enable=0 kunit.enable=1" ""
# on-demand boots: never in 'make test', alone when ONLY names them; the
# i386 boots are in 'make test'
all=$(env -u ONLY "$TOP/scripts/test.sh" --list 2>&1 | awk '{ print $1 }' | tr '\n' ' ') || all="(test.sh --list failed: $all)"
if [[ " $all" == *" default "* && " $all" != *" check "* && " $all" != *" kcsan "* &&
	" $all" == *" debug "* && " $all" == *" i386 "* && " $all" == *" i386-hpet "* ]]; then
	ok "test.sh runs no on-demand boot (check, kcsan) unless named, and runs the debug and i386 boots: $all"
else
	notok "test.sh runs no on-demand boot (check, kcsan) unless named, and runs the debug and i386 boots: it would run $all"
fi
one=$(ONLY=check "$TOP/scripts/test.sh" --list 2>&1) || true
if [ "$one" = "check build/kbuild " ]; then
	ok "ONLY=check runs the check boot alone, on the normal kernel"
else
	notok "ONLY=check runs the check boot alone, on the normal kernel: it would run '$one'"
fi
one=$(ONLY='i386-hpet i386' "$TOP/scripts/test.sh" --list 2>&1 | awk '{ print $1, $2 }' | tr '\n' ' ') || true
if [ "$one" = "i386 build/kbuild-i386 i386-hpet build/kbuild-i386 " ]; then
	ok "ONLY='i386-hpet i386' runs the two i386 boots, in boots.list's order, on the i386 kernel"
else
	notok "ONLY='i386-hpet i386' runs the two i386 boots, in boots.list's order, on the i386 kernel: it would run '$one'"
fi
one=$(ONLY='@i386' "$TOP/scripts/test.sh" --list 2>&1 | awk '{ print $1 }' | tr '\n' ' ') || true
if [ "$one" = "i386 i386-hpet i386-stock " ]; then
	ok "ONLY=@i386 runs the i386 kernel's boots that are not on-demand"
else
	notok "ONLY=@i386 runs the i386 kernel's boots that are not on-demand: it would run '$one'"
fi
# make help names every target of the Makefile's .PHONY lines and every
# setting it defaults with ?=
help=$(make -s -C "$TOP" --no-print-directory help 2>&1) || true
missing=$(
	sed -n '/^\.PHONY:/,/[^\\]$/p' "$TOP/Makefile" | sed 's/^\.PHONY://; s/\\$//' | tr -s ' \t' '\n' |
		grep -v '^$' | sort -u | while read -r t; do
		grep -qE "make ([a-z0-9-]+, )*$t([ ,]|\$)" <<<"$help" || printf '%s ' "$t"
	done
	grep -oE '^[A-Z_]+ \?=' "$TOP/Makefile" | cut -d' ' -f1 | while read -r v; do
		grep -q "$v=" <<<"$help" || printf '%s ' "$v"
	done
)
if [ -z "$missing" ] && [ -n "$help" ]; then
	ok "make help names every .PHONY target and every ?= setting"
else
	notok "make help names every .PHONY target and every ?= setting: it lacks ${missing:-everything (no output)}"
fi
rc=0
one=$(ONLY='i386 i368' "$TOP/scripts/test.sh" --list 2>&1) || rc=$?
if [ "$rc" != 0 ] && [[ $one == *"ONLY names 'i368', which is not a boot"* ]]; then
	ok "ONLY naming a boot that does not exist fails (a typo would drop that boot silently)"
else
	notok "ONLY naming a boot that does not exist fails: rc $rc, '$one'"
fi
lists_ "an on-demand boot of a kernel without its fragment fails" 1 \
	"dbg a 10 ./a" "dbg on-demand @nosuch" ""
lists_ "an on-demand boot of a kernel with its fragment passes" 0 \
	"dbg a 10 ./a" "dbg on-demand @dbg" ""
lists_ "a test named twice in one boot fails" 1 \
	"default a 10 ./a"$'\n'"default a 10 ./a x" "default" ""
lists_ "a comma list of boots passes when each is in boots.list" 0 \
	"b1,b2 a 10 ./a"$'\n'"b2 c 10 ./c" "b1"$'\n'"b2" ""
lists_ "a comma list with one boot missing from boots.list fails" 1 \
	"b1,typo a 10 ./a" "b1" ""
lists_ "a comma list that repeats a boot's test fails" 1 \
	"b1,b2 a 10 ./a"$'\n'"b2 a 10 ./a" "b1"$'\n'"b2" ""

# The guest runner on the host, under busybox alone as in the guest: a
# comma-list line runs in each of its boots.
bb=${BUSYBOX:-/bin/busybox}
[ -x "$bb" ] || die "hostcheck: no $bb to run the guest's runner with: run 'make deps' (busybox-static)"
mkdir -p "$tmp/bb"
for app in $("$bb" --list); do ln -sf "$bb" "$tmp/bb/$app"; done
runner_() { # runner_ NAME BOOT EXPECTED_RESULT_LINES
	local got
	mkdir -p "$tmp/rt"
	printf '%s\n' "b1,b2 t1 10 true" "b2 t2 10 false" "b3,b1 t3 10 true" "# b1 t4 10 false" \
		>"$tmp/rt/tests.list"
	got=$(PATH=$tmp/bb TESTS_DIR="$tmp/rt" NEWTOD_BOOT="$2" "$bb" sh "$TOP/guest/run-tests.sh" 2>&1 |
		grep -E '^(1\.\.|(not )?ok )' | sed 's/ # .*//' | tr '\n' ';') || true
	if [ "$got" = "$3" ]; then
		ok "$1"
	else
		notok "$1: got '$got', expected '$3'"
	fi
}
runner_ "run-tests.sh: boot b1 runs the lines that name it, in order" b1 "1..2;ok 1 t1;ok 2 t3;"
runner_ "run-tests.sh: boot b2 runs its two lines" b2 "1..2;ok 1 t1;not ok 2 t2;"
runner_ "run-tests.sh: a boot no line names runs nothing" b4 "1..0;"
# Its output is KTAP: a result line carries nothing after "#" but a
# directive, its time and exit status go in the "# newtod-run:" line
# before it (result_lines puts them back for the console), and the
# kernel's own KTAP parser reads the whole of it.
mkdir -p "$tmp/rt"
printf '%s\n' "b5 t1 10 true" "b5 t2 10 false" "b5 t3 10 sh skip.sh" "b5 t4 1 sleep 5" >"$tmp/rt/tests.list"
echo 'exit 4' >"$tmp/rt/skip.sh"
PATH=$tmp/bb TESTS_DIR="$tmp/rt" NEWTOD_BOOT=b5 "$bb" sh "$TOP/guest/run-tests.sh" >"$tmp/ktap" 2>&1 || true
bad=$(grep -E '^(not )?ok [0-9]+ .*#' "$tmp/ktap" | grep -vE ' # (SKIP|TODO|XFAIL|TIMEOUT|ERROR)( |$)' || true)
got=$(result_lines 0 <"$tmp/ktap" | sed -E 's/([( ])([0-9]+)\.[0-9] s\)$/\1\2.N s)/' | sed -E 's/exit (124|137|143),/exit T,/' | tr '\n' ';')
want='ok 1 t1 (0.N s);not ok 2 t2 (exit 1, 0.N s);ok 3 t3 # SKIP (0.N s);not ok 4 t4 # TIMEOUT 1s (exit T, 1.N s);'
if [ -z "$bad" ] && [ "$got" = "$want" ]; then
	ok "run-tests.sh: result lines carry only KTAP directives after '#'; result_lines gives each its time"
else
	notok "run-tests.sh: result lines '${bad//$'\n'/;}' carry more than a directive, or result_lines gave '$got', not '$want'"
fi
kunit_py=$KSRC/tools/testing/kunit/kunit.py
[ -f "$kunit_py" ] || die "hostcheck: no $kunit_py: run 'make tree'"
got=$(cd "$KSRC" && python3 "$kunit_py" parse "$tmp/ktap" 2>&1 | sed 's/^\[[0-9:]*\] //') || true
if grep -qx 'Testing complete. Ran 4 tests: passed: 1, failed: 2, skipped: 1' <<<"$got" &&
	! grep -qiE 'error|could not|invalid|not found|expected' <<<"$got"; then
	ok "kunit.py parse reads run-tests.sh's whole output: 4 tests, 1 passed, 2 failed, 1 skipped"
else
	notok "kunit.py parse of run-tests.sh's output:"
	printf '#   %s\n' "$got"
fi

# The bench: bench/gtod counts failed calls, shuffles each round by its
# seed; bench/summary.py marks failed paths and gives ranges over boots.
G=$BUILD/guest-bin/bench/gtod
[ -x "$G" ] || die "hostcheck: no $G: run 'make guest-bin'"
if "$G" --path rdtsc,rdtscp --iters 1000 --rounds 2 >/dev/null 2>&1; then
	ok "gtod: paths without failed calls exit 0"
else
	notok "gtod: rdtsc,rdtscp failed"
fi
rc=0
"$G" --path bad-syscall-cgt,rdtsc --iters 1000 --rounds 2 --json "$tmp/bad.json" >"$tmp/bad.txt" 2>&1 || rc=$?
if [ "$rc" = 1 ] && grep -q 'bad-syscall-cgt .*FAILED' "$tmp/bad.txt" &&
	python3 -c 'import json,sys; p={x["name"]: x for x in json.load(open(sys.argv[1]))["paths"]}
sys.exit(not (p["bad-syscall-cgt"]["failed"] and p["bad-syscall-cgt"]["errors"] > 0 and not p["rdtsc"]["failed"]))' "$tmp/bad.json"; then
	ok "gtod: a path whose calls fail is FAILED, not timed, and gtod exits 1"
else
	notok "gtod: a failing path was not caught (exit $rc)"
	sed 's/^/# /' "$tmp/bad.txt"
fi
orders() { # SEED -> the per-round orders as one line
	"$G" --path rdtsc,rdtscp,lfence-rdtsc --threads 1,2 --iters 10 --rounds 4 --seed "$1" --json "$tmp/o.json" >/dev/null &&
		python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))["orders"]
assert all(sorted(r) == sorted(o[0]) and len(set(r)) == 6 for r in o), "not a permutation"
print(o)' "$tmp/o.json"
}
if [ "$(orders 1)" = "$(orders 1)" ] && [ "$(orders 1)" != "$(orders 2)" ] &&
	[ "$(orders 1 | python3 -c 'import ast,sys; o=ast.literal_eval(sys.stdin.read()); print(len(set(map(tuple,o))))')" -gt 1 ]; then
	ok "gtod: each round is a permutation, reshuffled every round, reproducible from the seed"
else
	notok "gtod: the round orders are not seeded shuffles"
fi
bench_json() { # DIR FAILED_PATH PERF_OK SCALE: a synthetic boot's gtod.json and perf.json
	mkdir -p "$1"
	python3 - "$@" <<'PY'
import json, sys
d, bad, perf_ok, k = sys.argv[1], sys.argv[2], sys.argv[3] == "1", float(sys.argv[4])
base = {"rdtsc": 10, "stock-vdso-gtod": 20, "tod-vdso-gtod": 18, "stock-vdso-cgt": 21, "tod-vdso-cgt": 19,
        "stock-glibc-cgt": 25}
paths = [{"name": n, "threads": 1, "errors": 5 if n == bad else 0, "failed": n == bad,
          "median_ns": 0 if n == bad else v * k, "min_ns": 0 if n == bad else v * k * 0.9,
          "max_ns": 0 if n == bad else v * k * 1.1,
          "samples_ns": [0, 0, 0] if n == bad else [v * k * 0.9, v * k, v * k * 1.1]}
         for n, v in base.items()]
base.update({"tod-vdso-gtod-ntp": 18, "tod-vdso-cgt-ntp": 19})
def entry(n, v, t=1):
    return {"name": n, "threads": t, "errors": 0, "failed": False, "median_ns": v, "min_ns": v * 0.9,
            "max_ns": v * 1.1, "samples_ns": [v * 0.9, v, v * 1.1]}
paths += [entry(n, base[n] * k) for n in ("tod-vdso-gtod-ntp", "tod-vdso-cgt-ntp")]
paths += [entry("tod-vdso-gtod", 18 * k * 1.05, 2)]
json.dump({"iters": 1000, "rounds": 3, "cpus": 2, "seed": 9, "threads": [1, 2], "paths": paths},
          open(d + "/gtod.json", "w"))
json.dump({"iters": 1000, "rounds": 3, "cpus": 2, "seed": 9, "threads": [1],
           "paths": [entry("tod-vdso-cgt", 150 * k), entry("stock-syscall-cgt", 600 * k)]},
          open(d + "/gtod-ts-hpet.json", "w"))
json.dump({"calls": 1000, "paths": [{"name": "tod-vdso-gtod", "syscalls": 40 if perf_ok else 540,
                                     "baseline": 40, "ok": perf_ok}]}, open(d + "/perf.json", "w"))
PY
}
summary_() { # NAME EXPECT_RC EXPECT_REGEX DIR
	local rc=0 out
	out=$(python3 "$TOP/bench/summary.py" "$4" 2>&1) || rc=$?
	if [ "$rc" = "$2" ] && grep -qE -- "$3" <<<"$out"; then
		ok "$1"
	else
		notok "$1: exit $rc (expected $2), or no line matching '$3'"
		printf '%s
' "$out" | sed 's/^/# /'
	fi
}
bench_json "$tmp/b1" none 1 1
summary_ "summary.py: a good run exits 0 with its ratios" 0 'tod-vdso-gtod / stock-vdso-gtod +0\.90 ' "$tmp/b1"
summary_ "summary.py: the 2-thread target is n/a under TCG, with rdtsc's floor beside it" 0 \
	'tod-vdso-gtod 2 threads / 1 thread .* n/a under TCG: bare rdtsc is ([0-9.]+|not measured) at 2 threads / 1$' "$tmp/b1"
bench_json "$tmp/b2" tod-vdso-gtod 1 1
summary_ "summary.py: a failed path is FAILED and exits 3" 3 'tod-vdso-gtod / stock-vdso-gtod +FAILED' "$tmp/b2"
bench_json "$tmp/b3" none 0 1
summary_ "summary.py: a vDSO path with syscalls is FAILED and exits 3" 3 'tod-vdso-gtod +0\.5000 +FAILED' "$tmp/b3"
bench_json "$tmp/b5" stock-glibc-cgt 1 1
summary_ "summary.py: a failed path no ratio uses is FAILED and exits 3" 3 \
	'^FAILED: gtod\.json, stock-glibc-cgt at 1 thread\(s\): 5 failed calls' "$tmp/b5"
bench_json "$tmp/b6/boot1" none 1 1
mkdir -p "$tmp/b6/boot2"
summary_ "summary.py: a boot that returned no figures is FAILED and exits 3" 3 \
	'^FAILED: .*boot2 has no gtod\.json' "$tmp/b6"
sections_json() { # FILE TOD_PAGE_NS [MISSING_SECTION]: a synthetic sections-SRC.json
	python3 - "$@" <<'PY'
import json, sys
f, tod, missing = sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else ""
lens = {"tod_tick_page": tod, "tod_tick_locked": 4000, "tod_adjtimex_page": 200,
        "tod_adjtimex_locked": 2000, "stock_tick_seq": 1792, "stock_tick_vdso": 224,
        "stock_tick_locked": 4096, "stock_adjtimex_seq": 320, "stock_adjtimex_locked": 640,
        "stock_adjtimex_advance_seq": 1536}
secs = [{"name": n, "count": 0 if n == missing else 100, "sum_ns": 0 if n == missing else 100 * v,
         "max_ns": 0 if n == missing else 2 * v, "buckets": [] if n == missing else [[v, 99], [2 * v, 1]]}
        for n, v in lens.items()]
json.dump({"seconds": 3, "cpus": 2, "adjtimex_calls": 3000, "adjtimex_errors": 0, "sections": secs},
          open(f, "w"))
PY
}
bench_json "$tmp/b7" none 1 1
sections_json "$tmp/b7/sections-tsc.json" 384
sections_json "$tmp/b7/sections-hpet.json" 2048
summary_ "summary.py: the write sections, tod beside stock, met where tod's is shorter" 0 \
	'tod_tick_page <= stock_tick_seq \(p50 and p99\): met' "$tmp/b7"
summary_ "summary.py: a tod write section longer than stock's is MISSED" 0 \
	'tod_tick_page <= stock_tick_seq \(p50 and p99\): MISSED' "$tmp/b7"
retries_json() { # FILE TOD_HELD STOCK_HELD TOD_READS: a synthetic retries-SRC.json
	printf '{"seconds": 3, "readers": 2, "adjtimex_calls": 1500, "adjtimex_errors": 0, "stock": {"reads": 1000000, "held": %d}, "tod": {"reads": %d, "held": %d}}\n' \
		"$3" "$4" "$2" >"$1"
}
retries_json "$tmp/b7/retries-tsc.json" 65 35 1000000
summary_ "summary.py: the vDSO reads that waited or retried, per million, tod beside stock" 0 \
	'^  tsc +65\.0 +35\.0 +1000000' "$tmp/b7"
bench_json "$tmp/b9" none 1 1
retries_json "$tmp/b9/retries-hpet.json" 0 0 0
summary_ "summary.py: a retries run without reads is FAILED and exits 3" 3 '^  hpet +FAILED' "$tmp/b9"
bench_json "$tmp/b8" none 1 1
sections_json "$tmp/b8/sections-acpi_pm.json" 384 stock_tick_seq
summary_ "summary.py: a section that was not counted is FAILED and exits 3" 3 \
	'stock tick: tk_core.seq odd +FAILED \(not counted\)' "$tmp/b8"
bench_json "$tmp/b4/boot1" none 1 1
bench_json "$tmp/b4/boot2" none 1 2
bench_json "$tmp/b4/boot3" none 1 1
python3 - "$tmp/b4/boot2/gtod.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["paths"]:
    if p["name"] == "tod-vdso-gtod":  # boot 2: tod slower, 1.00 of stock
        p["median_ns"], p["min_ns"], p["samples_ns"] = 40, 36, [36, 40, 44]
json.dump(d, open(sys.argv[1], "w"))
PY
summary_ "summary.py: several boots give each ratio's median and range, met by most boots" 0 \
	'tod-vdso-gtod / stock-vdso-gtod +0\.90 \[0\.90-1\.00\].* met \(2 of 3 boots met\)' "$tmp/b4"

# scripts/limits.py: the worst figure of a check over several runs'
# results, against the limit its lines print; a check no run printed says so.
limits_() { # NAME EXPECT_RC EXPECT_REGEX DIR...
	local rc=0 out name=$1 want=$2 re=$3
	shift 3
	out=$(python3 "$TOP/scripts/limits.py" "$@" 2>&1) || rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$re" <<<"$out" && ! grep -q Traceback <<<"$out"; then
		ok "$name"
	else
		notok "$name: exit $rc (expected $want), or no line matching '$re'"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}
mkdir -p "$tmp/lim1" "$tmp/lim2" "$tmp/lim3"
printf '%s\n' '# ok 10 tsc: rate vs CLOCK_MONOTONIC_RAW (stock clocksource tsc) over 10 s: +0.002 ppm (limit 0.100)' \
	'# ok 3 phc2sys holds /dev/ptp0 to CLOCK_REALTIME: last 30 s RMS 12 ns (limit 100), max 300 ns (limit 1.5 us)' \
	>"$tmp/lim1/test-default-results.txt"
printf '%s\n' '# not ok 22 pit: rate vs CLOCK_MONOTONIC_RAW (stock clocksource hpet) over 5 s: -0.057 ppm (limit 0.435)' \
	>"$tmp/lim2/test-i386-results.txt"
limits_ "limits.py: the worst figure over two runs, with its boot, ratio and counts" 0 \
	'^\| tod rate vs MONOTONIC_RAW, stock on the same counter \(tod_core\) \| 0.1-0.435 ppm \| -0.057 ppm \(i386\) \| 7\.6 \| 2, 2 \|$' \
	"$tmp/lim1" "$tmp/lim2"
limits_ "limits.py: a limit in us against a figure in ns" 0 \
	'^\| phc2sys largest offset \(tod_phc\) \| 1500 ns \| \+300 ns \(default\) \| 5\.0 \| 1, 1 \|$' "$tmp/lim1"
limits_ "limits.py: a check no run printed says so" 0 '^\| safety-timer gap \(tod_hotplug\) \| - \| not printed by these runs' "$tmp/lim1"
limits_ "limits.py: a directory without results is refused" 1 'no test-\*-results.txt' "$tmp/lim3"

# bench/notes.py: NOTES.md's generated section from a run's summary and
# run.json, the rest of the file untouched; refusals say what is missing.
notes_() { # NAME EXPECT_RC EXPECT_REGEX RUN NOTES [FLAG...]: a refusal must leave NOTES as it was
	local rc=0 out name=$1 want=$2 re=$3 run=$4 notes=$5
	shift 5
	cp "$notes" "$tmp/notes.before"
	out=$(python3 "$TOP/bench/notes.py" "$@" "$run" "$notes" 2>&1) || rc=$?
	if [ "$rc" = "$want" ] && grep -qE -- "$re" <<<"$out" && ! grep -q Traceback <<<"$out" &&
		{ [ "$rc" = 0 ] || cmp -s "$notes" "$tmp/notes.before"; }; then
		ok "$name"
	else
		notok "$name: exit $rc (expected $want), no line matching '$re', a traceback, or a refusal that changed $notes"
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
}
record_() { # RUN_JSON COMMIT FAILED: a run record as scripts/bench.sh writes it, BOOTS=3
	BENCH_DATE="2026-12-04 14:00 UTC" BENCH_COMMIT=$2 BENCH_BOOTS=3 BENCH_FAILED=$3 \
		python3 "$TOP/bench/notes.py" --record "$1"
}
python3 "$TOP/bench/summary.py" "$tmp/b7" >"$tmp/b7/summary.txt" || true
record_ "$tmp/b7/run.json" abc1234 0
printf '# notes\nbefore\n<!-- bench-summary:begin -->\nold figures\n<!-- bench-summary:end -->\nafter\n' >"$tmp/N.md"
ntables=$(awk 'NF && !p { n++ } { p = NF } END { print n }' "$tmp/b7/summary.txt")
# the tables of one boot past the first go to bench/summary-latest.txt only
nlater=$(awk 'NF && !p && /, boot ([2-9]|[1-9][0-9]+) \(/ { n++ } { p = NF } END { print n + 0 }' "$tmp/b7/summary.txt")
notes_ "notes.py: a run's tables go between the markers" 0 "N\\.md: $ntables tables" "$tmp/b7" "$tmp/N.md"
# shellcheck disable=SC2016 # the backquotes are markdown
if [ "$(grep -c '^2026-12-04 14:00 UTC, commit abc1234, `make bench BOOTS=3` (3 boots); every table below is of this run' "$tmp/N.md")" = 1 ] &&
	[ "$(grep -c '^```$' "$tmp/N.md")" = "$((2 * (ntables - nlater)))" ] &&
	! grep -qE '^[a-z].*, boot [2-9] \(' "$tmp/N.md" &&
	cmp -s "$tmp/b7/summary.txt" "$tmp/bench/summary-latest.txt" &&
	grep -q 'tod_tick_page <= stock_tick_seq (p50 and p99): MISSED' "$tmp/N.md" &&
	! grep -q 'old figures' "$tmp/N.md" && [ "$(sed -n 2p "$tmp/N.md")" = before ] &&
	[ "$(grep -c "bench-summary:" "$tmp/N.md")" = 2 ] &&
	[ "$(tail -n 1 "$tmp/N.md")" = after ]; then
	ok "notes.py: the $((ntables - nlater)) tables of the run and of its boot 1 under its date, commit and command, the other $nlater in bench/summary-latest.txt; the old section gone, the rest kept"
else
	notok "notes.py: the generated NOTES is wrong"
	sed 's/^/# /' "$tmp/N.md"
fi
# a run of three boots: boot 2's and 3's own tables are left to the summary file
mkdir -p "$tmp/b3"
printf '%s\n' 'ratios (3 boots; ...)' '  a / b   0.90' '' 'per timesource, boot 1 (1 thread)' '  tsc 55.1' '' \
	'per timesource, boot 2 (1 thread)' '  tsc 62.1' '' 'per timesource, boot 12 (1 thread)' '  tsc 53.8' >"$tmp/b3/summary.txt"
record_ "$tmp/b3/run.json" abc1234 0
printf '<!-- bench-summary:begin -->\n<!-- bench-summary:end -->\n' >"$tmp/N3.md"
notes_ "notes.py: a run of several boots" 0 'N3\.md: 4 tables .*\(2 in it' "$tmp/b3" "$tmp/N3.md"
if grep -q '^per timesource, boot 1 (1 thread)$' "$tmp/N3.md" && ! grep -q 'boot 2 (\|boot 12 (' "$tmp/N3.md" &&
	grep -q '(the other boots.* are in \[bench/summary-latest.txt\]' "$tmp/N3.md" &&
	cmp -s "$tmp/b3/summary.txt" "$tmp/bench/summary-latest.txt"; then
	ok "notes.py: of a run of several boots, boot 1's per-boot tables are shown, all in bench/summary-latest.txt"
else
	notok "notes.py: a run of several boots: a later boot's table shown, boot 1's missing, or the summary not copied"
	sed 's/^/# /' "$tmp/N3.md"
fi
# the README beside NOTES: its headline, between its markers, from the run's ratios
mkdir -p "$tmp/bh" "$tmp/h"
printf '%s\n' 'ratios (3 boots; ...)' \
	'  tod-vdso-gtod / stock-vdso-gtod                      0.89 [0.87-0.90]   0.90 [0.89-0.90]' \
	'  both on hpet: tod-vdso-cgt / stock-syscall-cgt       0.30 [0.30-0.30]   0.30 [0.30-0.30]' \
	>"$tmp/bh/summary.txt"
record_ "$tmp/bh/run.json" abc1234 0
printf '<!-- bench-summary:begin -->\n<!-- bench-summary:end -->\n' >"$tmp/h/N.md"
printf '# x\nintro\n<!-- bench-headline:begin -->\nold headline\n<!-- bench-headline:end -->\nrest\n' >"$tmp/h/README.md"
notes_ "notes.py: the README's headline" 0 'README\.md: the headline' "$tmp/bh" "$tmp/h/N.md"
# shellcheck disable=SC2016 # the backquotes are markdown
if grep -q '^Headline: on the TSC the core.s vDSO `gettimeofday` took 0\.89x the stock vDSO.s time, and on the HPET its vDSO `clock_gettime` 0\.30x the stock system call.s (medians over 3 boots; .*`make bench BOOTS=3` at commit abc1234, 2026-12-04 14:00 UTC;' "$tmp/h/README.md" &&
	! grep -q 'old headline' "$tmp/h/README.md" && [ "$(sed -n 2p "$tmp/h/README.md")" = intro ] &&
	[ "$(tail -n 1 "$tmp/h/README.md")" = rest ]; then
	ok "notes.py: the README's headline is the run's two ratios under its date, commit and command, the rest kept"
else
	notok "notes.py: the README's headline is wrong"
	sed 's/^/# /' "$tmp/h/README.md"
fi
grep -v 'both on hpet' "$tmp/bh/summary.txt" >"$tmp/bh/s" && mv "$tmp/bh/s" "$tmp/bh/summary.txt"
cp "$tmp/h/README.md" "$tmp/h/R.before"
notes_ "notes.py: a summary without a headline ratio is refused" 1 "has 0 ratio lines 'both on hpet" "$tmp/bh" "$tmp/h/N.md"
if cmp -s "$tmp/h/README.md" "$tmp/h/R.before"; then
	ok "notes.py: the refusal leaves the README as it was"
else
	notok "notes.py: a refused run changed the README"
fi
cp "$tmp/N.md" "$tmp/N1.md"
rc=0
python3 "$TOP/bench/notes.py" "$tmp/b7" "$tmp/N.md" >/dev/null 2>&1 || rc=$?
if [ "$rc" = 0 ] && cmp -s "$tmp/N.md" "$tmp/N1.md"; then
	ok "notes.py: regenerating from the same run succeeds and changes nothing"
else
	notok "notes.py: a second run exited $rc or changed the file"
	diff "$tmp/N1.md" "$tmp/N.md" | sed 's/^/# /'
fi
# the chart: summary.py's figures for it, one row per ratio and a column
# per boot; notes.py copies the run's ratios.svg beside NOTES and shows it
rc=0
python3 "$TOP/bench/summary.py" "$tmp/b7" "$tmp/b7/ratios.dat" >/dev/null 2>&1 || rc=$?
nb7=$(find "$tmp/b7" -maxdepth 1 -name 'boot[0-9]*' | wc -l)
if [ "$rc" = 0 ] && [ "$(head -n 1 "$tmp/b7/ratios.dat" | awk '{ print NF - 3 }')" = "$((nb7 > 0 ? nb7 : 1))" ] &&
	grep -qE '^"tod-vdso-gtod / stock-vdso-gtod" 0\.900( [0-9.]+)+$' "$tmp/b7/ratios.dat" &&
	! grep -q 'FAILED' "$tmp/b7/ratios.dat"; then
	ok "summary.py: RATIOS_DAT has a row per ratio, its target and a figure per boot"
else
	notok "summary.py: RATIOS_DAT is wrong (exit $rc)"
	sed 's/^/# /' "$tmp/b7/ratios.dat" 2>/dev/null || true
fi
if grep -q '^(no chart: ' "$tmp/N.md" && [ ! -e "$tmp/bench/ratios-latest.svg" ]; then
	ok "notes.py: a run without ratios.svg says so, and copies nothing"
else
	notok "notes.py: a run without ratios.svg: no '(no chart' line, or a chart copied"
fi
printf '<svg>boots</svg>\n' >"$tmp/b7/ratios.svg"
notes_ "notes.py: a run with ratios.svg" 0 'tables' "$tmp/b7" "$tmp/N.md"
if cmp -s "$tmp/b7/ratios.svg" "$tmp/bench/ratios-latest.svg" &&
	grep -q '^!\[the ratios of every boot, .*\](bench/ratios-latest\.svg)$' "$tmp/N.md" &&
	! grep -q '^(no chart: ' "$tmp/N.md"; then
	ok "notes.py: the run's ratios.svg is copied to bench/ratios-latest.svg and shown"
else
	notok "notes.py: ratios.svg not copied beside NOTES, or not shown"
	sed 's/^/# /' "$tmp/N.md"
fi
: >"$tmp/b7/ratios.svg"
notes_ "notes.py: a run with an empty ratios.svg (gnuplot failed)" 0 'tables' "$tmp/b7" "$tmp/N.md"
if grep -q '^(no chart: ' "$tmp/N.md" && [ ! -e "$tmp/bench/ratios-latest.svg" ]; then
	ok "notes.py: an empty ratios.svg is no chart, and the previous run's chart is removed"
else
	notok "notes.py: an empty ratios.svg was shown, or the previous run's chart kept"
fi
rm -f "$tmp/b7/ratios.svg" "$tmp/b7/ratios.dat"
printf '# notes\nno markers\n' >"$tmp/M.md"
notes_ "notes.py: a NOTES without its markers is refused" 1 'must hold one' "$tmp/b7" "$tmp/M.md"
record_ "$tmp/b7/run.json" abc1234 1
notes_ "notes.py: a failed run is refused" 1 'failed: its figures are not timings' "$tmp/b7" "$tmp/N.md"
notes_ "notes.py: --allow-failed quotes it anyway" 0 'tables' "$tmp/b7" "$tmp/N.md" --allow-failed
record_ "$tmp/b7/run.json" abc1234 ""
notes_ "notes.py: a run that did not finish is refused" 1 'did not finish' "$tmp/b7" "$tmp/N.md"
record_ "$tmp/b7/run.json" abc1234-dirty 0
notes_ "notes.py: a run from a dirty tree is refused" 1 'names no commit' "$tmp/b7" "$tmp/N.md"
notes_ "notes.py: --allow-dirty quotes it anyway" 0 'tables' "$tmp/b7" "$tmp/N.md" --allow-dirty
if grep -q 'commit abc1234-dirty, ' "$tmp/N.md"; then
	ok "notes.py: a dirty run quoted anyway says -dirty"
else
	notok "notes.py: a dirty run quoted anyway hides it"
fi
record_ "$tmp/b7/run.json" nogit 0
notes_ "notes.py: a run from no git tree is refused" 1 'names no commit' "$tmp/b7" "$tmp/N.md"
printf '[1, 2]\n' >"$tmp/b7/run.json"
notes_ "notes.py: a run.json that is not a record is refused, without a traceback" 1 'not the run record' \
	"$tmp/b7" "$tmp/N.md"
notes_ "notes.py: a run without run.json is refused" 1 'run\.json is missing' "$tmp/b1" "$tmp/N.md"
if APPEND="timesource=hpet foo=1" TSC_PARAM='' BENCH_DATE=d BENCH_COMMIT=abc1234 BENCH_BOOTS=8 BENCH_FAILED=0 \
	python3 "$TOP/bench/notes.py" --record "$tmp/r.json" &&
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
assert d["command"] == "make bench BOOTS=8 APPEND='"'"'timesource=hpet foo=1'"'"' TSC_PARAM='"''"'", d
assert d["boots"] == 8 and d["failed"] is False, d' "$tmp/r.json"; then
	ok "notes.py --record: the command names BOOTS and every setting that changes the guest"
else
	notok "notes.py --record: wrong record"
	sed 's/^/# /' "$tmp/r.json"
fi

# test-notes.py reads each program's time from check-run.sh's copy of its
# result line, in the form result_lines gives it and in the one before
printf '%s\n' '== boot b1' '  ok 1 fast (1.5 s)' '  not ok 2 slow # TIMEOUT 60s (exit 124, 60.2 s)' \
	'  ok 3 old # 7.0s' '>>> qemu: guest ran 70 s' '3 passed, 1 failed' '3 passed, 1 failed' >"$tmp/tn.log"
got=$(python3 "$TOP/scripts/test-notes.py" "$tmp/tn.log" --commit c --date d --command m --print 2>&1 | grep '^| b1 ') || true
if [ "$got" = "| b1 | - | 70 | 3 | 1 | 0 | slow 60 (failed), old 7, fast 2 |" ]; then
	ok "test-notes.py: each program's time, from '(T s)' and the older '# Ts'"
else
	notok "test-notes.py: boot row '$got'"
fi
# --readme: the closing line and the run's time, each between its markers
printf '%s\n' 'a' '<!-- test-summary:begin -->' 'old' '<!-- test-summary:end -->' >"$tmp/tn-notes.md"
printf '%s\n' 'x <!-- test-time:begin -->old<!-- test-time:end --> y' '<!-- pass-line:begin -->' 'old' \
	'<!-- pass-line:end -->' >"$tmp/tn-readme.md"
# shellcheck disable=SC2016 # the backquotes are markdown
tn_want='x <!-- test-time:begin -->10.0 min for `m` at c0ffee1, d (1.2 min of guests, 0.0 of kernel builds; generated by scripts/test-notes.py)<!-- test-time:end --> y'
if python3 "$TOP/scripts/test-notes.py" "$tmp/tn.log" --commit c0ffee1 --date d --command m --wall 600 \
	--notes "$tmp/tn-notes.md" --readme "$tmp/tn-readme.md" >/dev/null 2>&1 &&
	grep -qxF "$tn_want" "$tmp/tn-readme.md" &&
	grep -qxF '    3 passed, 1 failed' "$tmp/tn-readme.md"; then
	ok "test-notes.py --readme: the run's time and its closing line, each between its markers"
else
	notok "test-notes.py --readme:"
	sed 's/^/# /' "$tmp/tn-readme.md"
fi
# limits.py --notes: the table between its markers, under the stamp given
mkdir -p "$tmp/lim"
echo '# ok 1 tsc: rate vs CLOCK_MONOTONIC_RAW (stock clocksource tsc) over 10 s: -0.050 ppm (limit 0.1)' \
	>"$tmp/lim/test-b1-results.txt"
printf '%s\n' 'a' '<!-- limits:begin -->' 'old' '<!-- limits:end -->' 'z' >"$tmp/lim-notes.md"
if python3 "$TOP/scripts/limits.py" --notes "$tmp/lim-notes.md" --stamp 'STAMP' "$tmp/lim" >/dev/null 2>&1 &&
	grep -qxF 'STAMP' "$tmp/lim-notes.md" && ! grep -qx 'old' "$tmp/lim-notes.md" &&
	grep -qF '| -0.05 ppm (b1) | 2.0 | 1, 1 |' "$tmp/lim-notes.md" && [ "$(tail -1 "$tmp/lim-notes.md")" = z ]; then
	ok "limits.py --notes: the table and its stamp between the markers, the rest kept"
else
	notok "limits.py --notes:"
	sed 's/^/# /' "$tmp/lim-notes.md"
fi
# NOTES.md: its current results and limits fit a reader's sitting
lines=$(awk '/^## History/ { print NR - 1; exit }' "$TOP/NOTES.md")
if [ -n "$lines" ] && [ "$lines" -le 400 ]; then
	ok "NOTES.md: $lines lines before its History (at most 400)"
else
	notok "NOTES.md: ${lines:-no '## History' and all} lines before its History, more than 400: condense what stands, or move what changed into the History"
fi

# bracket2ktap: the vDSO selftest's [RUN]/[OK] lines as TAP. A tod clock
# that both paths call missing ("[OK] No such clock.") and a [WARN] fail.
b2k_() { # b2k_ NAME EXPECT_RC EXPECT_REGEX OUTPUT [OPTS...]
	local name=$1 want_rc=$2 want=$3 rc=0 got
	printf '%s\n' "$4" >"$tmp/b2k.out"
	shift 4
	got=$("$bb" sh "$TOP/guest/tests/bracket2ktap.sh" "$@" cat "$tmp/b2k.out" 2>&1) || rc=$?
	if [ "$rc" != "$want_rc" ] || ! grep -qE -- "$want" <<<"$got"; then
		notok "bracket2ktap: $name: exit $rc (expected $want_rc), or no line matching '$want'"
		printf '%s\n' "$got" | sed 's/^/# /'
	else
		ok "bracket2ktap: $name"
	fi
}
TOD_RUN=$'[RUN]\tTesting clock_gettime for clock CLOCK_TOD_REALTIME (12)...'
TOD_PASS=$'\t1.000000000 1.000000001 1.000000002\n[OK]\tTest Passed.'
b2k_ "a tod clock that passes is ok" 0 '^ok 2 Testing clock_gettime for clock CLOCK_TOD_REALTIME' \
	$'[RUN]\tTesting clock_gettime for clock CLOCK_REALTIME (0)...\n[OK]\tTest Passed.\n'"$TOD_RUN"$'\n'"$TOD_PASS" \
	-p CLOCK_TOD_
b2k_ "a tod clock that both paths call missing fails under -p" 1 '^not ok 1 .*CLOCK_TOD_REALTIME.*No such clock' \
	"$TOD_RUN"$'\n[OK]\tNo such clock.' -p CLOCK_TOD_
b2k_ "a missing clock the run need not pass is ok" 0 '^ok 2 .*invalid.*No such clock' \
	"$TOD_RUN"$'\n'"$TOD_PASS"$'\n[RUN]\tTesting clock_gettime for clock invalid (-1)...\n[OK]\tNo such clock.' -p CLOCK_TOD_
b2k_ "a [WARN] is a failed result" 1 '^not ok 1 .*syscall returned error 22 \(a \[WARN\]' \
	"$TOD_RUN"$'\n[WARN]\t clock_gettime(12) syscall returned error 22' -p CLOCK_TOD_
b2k_ "a tod clock's run with no result fails under -p" 1 '^not ok 1 .*CLOCK_TOD_REALTIME.*no result' \
	"$TOD_RUN"$'\n[RUN]\tTesting gettimeofday...\n[OK]\ttimezones match' -p CLOCK_TOD_
b2k_ "a tod clock's run that skips fails under -p" 1 '^not ok 1 .*skipped, but it must pass' \
	"$TOD_RUN"$'\n[SKIP]\tno' -p CLOCK_TOD_
b2k_ "-p TEXT where no [RUN] holds TEXT fails (a selftest without the tod ids)" 1 'no \[RUN\] line holds CLOCK_TOD_' \
	$'[RUN]\tTesting clock_gettime for clock CLOCK_REALTIME (0)...\n[OK]\tTest Passed.' -p CLOCK_TOD_
b2k_ "a skip outside the runs that must pass is a skip" 0 '^ok 3 No vDSO.* # SKIP$' \
	"$TOD_RUN"$'\n'"$TOD_PASS"$'\n[RUN]\tTesting clock_gettime for clock invalid (-1)...\n[OK]\tNo such clock.\n[SKIP]\tNo vDSO, so skipping clock_gettime64() tests' \
	-p CLOCK_TOD_

# scripts/deps.sh on replayed machines (a new one among them)
# shellcheck source=scripts/hostcheck-deps.sh
. "$TOP/scripts/hostcheck-deps.sh"

if shellcheck -x "$TOP"/scripts/*.sh "$TOP/.ci/run" &&
	shellcheck -s sh "$TOP/guest/init" "$TOP/guest/run-tests.sh" "$TOP/bench/run-bench.sh" \
		"$TOP/guest/tests/bracket2ktap.sh" "$TOP/guest/tests/kselftest-stock.sh"; then
	ok "shellcheck: every script is clean"
else
	notok "shellcheck: fix the findings above"
fi

echo "1..$n"
[ "$fails" = 0 ] || die "hostcheck: $fails of $n harness checks failed"
log "hostcheck: $n harness checks passed"
