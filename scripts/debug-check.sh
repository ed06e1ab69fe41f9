#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Show that every class of debug-kernel report fails a run: boot the debug
# kernel once per class with a job that loads the test timesource module
# with provoke=CLASS (a deliberate lock inversion, out-of-bounds write, ...)
# and exits 0, and expect scripts/check-run.sh to fail the run on the
# console report alone, naming it. A boot that loads the module without
# provoke= must pass. TAP on stdout; exit status 0 when every case holds.
# Usage: debug-check.sh [debug|kcsan]   (kcsan: the data race, on the KCSAN kernel)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

kernel=${1:-debug}
kout=$BUILD/kbuild-$kernel
[ -f "$kout/arch/x86/boot/bzImage" ] || die "no kernel in ${kout#"$TOP"/}: run 'make kernel-$kernel'"
[ -f "$kout/kernel/timeofday/newtod_test_timesource.ko" ] ||
	die "${kout#"$TOP"/} has no newtod_test_timesource.ko: CONFIG_NEWTOD_TEST_TIMESOURCE=m is missing"

# CLASS|what the failed run must name
case "$kernel" in
debug)
	cases=(
		'lockdep|WARNING: possible circular locking dependency'
		'kasan|BUG: (KASAN: slab-out-of-bounds|KFENCE: out-of-bounds write) in provoke_kasan'
		'ubsan-shift|UBSAN: shift-out-of-bounds'
		'ubsan-bounds|UBSAN: array-index-out-of-bounds'
		'sleep|BUG: sleeping function called from invalid context'
		'schedule|BUG: scheduling while atomic'
		'list|WARNING: .* at lib/list_debug.c'
		'objects|ODEBUG: object'
		'rcu-stall|detected stall'
		'warn|WARNING: .* at kernel/timeofday/newtod_test_timesource.c'
	)
	;;
kcsan)
	cases=('race|BUG: KCSAN: data-race in provoke_race_thread.*a function of the series')
	mkdir -p "$RESULTS"
	# the list scripts/test.sh gives check-run.sh for the KCSAN kernel
	series_functions "$kout" >"$RESULTS/kcsan-ours.txt"
	;;
*) die "debug-check.sh: say debug or kcsan, not '$kernel'" ;;
esac
opts=()
[ "$kernel" = kcsan ] && opts=(--kcsan-ours "$RESULTS/kcsan-ours.txt")

n=0 fails=0
echo "TAP version 13"
echo "1..$((${#cases[@]} + 1))"
# boot CLASS: run the provocation (none for ''), leave its output in $out
boot() {
	local arg=${1:+ provoke=$1} rc=0
	out=$(KOUT=$kout "$TOP/scripts/qemu.sh" --job run --name "debug-check-${1:-none}" "${opts[@]}" \
		--cmd "insmod /tests/newtod_test_timesource.ko$arg" --timeout 300 2>&1) || rc=$?
	return "$rc"
}
last=''
for c in "${cases[@]}"; do
	class=${c%%|*} want=${c#*|}
	n=$((n + 1))
	# one boot per class, however many lines it must show
	if [ "$class" != "$last" ]; then
		rc=0
		boot "$class" || rc=$?
		last=$class
	fi
	if [ "$rc" != 0 ] && printf '%s\n' "$out" | grep -qE "^FAIL: kernel: .*$want"; then
		echo "ok $n provoke=$class fails the run, naming '$want'"
	else
		fails=$((fails + 1))
		echo "not ok $n provoke=$class: wanted a failed run naming '$want' (exit $rc)"
		printf '%s\n' "$out" | grep -E '^FAIL|ERROR' | head -5 | sed 's/^/# /' || true
	fi
done
n=$((n + 1))
rc=0
boot '' || rc=$?
if [ "$rc" = 0 ]; then
	echo "ok $n loading the module without provoke= passes (a clean console)"
else
	fails=$((fails + 1))
	echo "not ok $n loading the module without provoke= failed (exit $rc)"
	printf '%s\n' "$out" | grep -E '^FAIL|ERROR' | head -5 | sed 's/^/# /' || true
fi
echo "# $((n - fails)) passed, $fails failed"
[ "$fails" = 0 ]
