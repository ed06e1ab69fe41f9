#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# 'make test' in the guest: one boot per line of guest/boots.list, each
# running its tests from guest/tests.list, with the skips guest/skips.list
# expects of it; KUnit is counted from the log of the first boot of each
# kernel that does not turn it off (kunit.enable=0), with the suites of
# guest/kunit.suites pinned; a KUnit failure in another boot fails that
# boot. A boot whose first word is @NAME boots the kernel of
# build/kbuild-NAME (make kernel-NAME).
# Ends with the total "N passed, N failed[, N skipped]" and a non-zero
# status if any boot failed.
# Usage: test.sh [TIMEOUT_PER_BOOT | --list]
#   --list         prints the boots that would run (NAME KOUT PARAMS), no boot
#   ONLY='NAME...' runs only the boots it names (space-separated); a word
#                  @KERNEL names every boot of that kernel (@i386: the
#                  boots on build/kbuild-i386; @default: those on
#                  build/kbuild) that is not on-demand. A boot marked
#                  on-demand in boots.list runs only when ONLY names it
#                  (make check, make test-kcsan). On a KCSAN kernel data races fail the run
#                  only when they name a function of the series.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tmo=${1:-900} list=0
[ "$tmo" = --list ] && list=1
[[ $list = 1 || $tmo =~ ^[0-9]+$ ]] || die "test.sh: want a timeout per boot in seconds or --list, not '$tmo'"
"$TOP/scripts/check-lists.sh"
boot_list=$(list_boots "$TOP/guest/boots.list")
boot_names=$(awk '{ printf "%s ", $1 }' <<<"$boot_list")
boot_kernels=$(awk '{ printf "@%s ", $3 }' <<<"$boot_list")
read -ra only <<<"${ONLY:-}"
ONLY=${only[*]}
for w in "${only[@]}"; do
	[[ " $boot_names $boot_kernels" == *" $w "* ]] ||
		die "ONLY names '$w', which is not a boot of guest/boots.list (${boot_names% }) nor a kernel of its boots (@KERNEL): fix the name"
done
[ -z "$ONLY" ] || [ "${1:-}" = --list ] ||
	echo "NOTE: ONLY='$ONLY': only these boots run; the verdict is theirs, not make test's"

# Every kernel the boots want, before the first boot: not after an hour of
# the others
if [ "$list" = 0 ]; then
	while read -r bname bkout _; do
		[[ $bkout == */kbuild-* ]] || continue
		[[ $bkout == /* ]] || bkout=$TOP/$bkout
		[ -f "$bkout/arch/x86/boot/bzImage" ] ||
			die "boot $bname wants the kernel of ${bkout#"$TOP"/}, which is not built: run 'make kernel-${bkout##*/kbuild-}'"
	done < <(ONLY=$ONLY "$0" --list)
fi
# the series' warnings and errors, which fail a boot that does not allow them
if [ "$list" = 0 ]; then
	mkdir -p "$RESULTS"
	if ! series_messages >"$RESULTS/series-msgs.txt" || [ ! -s "$RESULTS/series-msgs.txt" ]; then
		die "found no pr_warn/pr_err of the series in build/linux (base..HEAD, tag base): run 'make tree'"
	fi
fi
passed=0 failed=0 skipped=0 bad=() first=1 kunit_done=' ' digest=''
# fd 3: this script's output, where qemu.sh streams each program's result
# while the guest runs (its own output is captured and judged after)
exec 3>&1

# failures NAME OUT: a failed boot's failing lines, each failing case with
# the last five diagnostics printed before it (from its results file), at
# most 16 lines, a result line once (without its time); repeated at the
# end of the run, where a log cut to its last lines (CI's) still shows why
failures() {
	local name=$1 out=$2 res=$RESULTS/test-$1-results.txt
	{
		printf '%s\n' "$out" | grep -E '^(FAIL|ERROR)|not ok' || true
		if [ -f "$res" ]; then
			awk '/^(# )*not ok / { for (i = n - 5; i < n; i++) if (i >= 0) print r[i % 5]; print; n = 0; next }
			     /^(# )*# selftest:/ { n = 0; next }
			     /^(# )*# [^ ]/ && !/^(# )*# (ok |Totals:|TAP version|1\.\.)/ { r[n++ % 5] = $0 }' "$res"
		fi
	} | awk -v b="$name" '{ sub(/^[ \t]+/, ""); sub(/ \((exit [0-9]+, )?[0-9.]+ s\)$/, "") } !seen[$0]++ && ++c <= 16 { print "  " b ": " $0 }'
}

# detail NAME: where a boot fails, each failing program's last 20 lines
# of output (or, if the boot ended inside one, the unfinished program's),
# then the console's last 10 lines, with the paths of the whole logs
detail() {
	local name=$1 res=$RESULTS/test-$1-results.txt ser=$RESULTS/test-$1-serial.log
	if [ -f "$res" ]; then
		tr -d '\r' <"$res" | awk -v b="$name" '
			function last(head) {
				print "-- " b ": " head ", its last lines:"
				for (i = (n > 20 ? n - 20 : 0); i < n; i++) print "   " buf[i % 20]
			}
			/^# selftest: / { prog = substr($0, 13); n = 0; inner = 0; next }
			/^not ok [0-9]+ / { last($0); prog = ""; n = 0; inner = 0; next }
			# a program that exits 0 but reports a failing case of its own
			/^ok [0-9]+ / { if (inner) last($0 " (exit 0, but a case failed)"); prog = ""; n = 0; inner = 0; next }
			/^# *not ok [0-9]+/ { inner = 1 }
			{ buf[n++ % 20] = $0 }
			END { if (prog != "") last(prog " did not finish") }'
	fi
	if [ -f "$ser" ]; then
		echo "-- $name: the console's last 10 lines (whole logs: ${ser#"$TOP"/}, ${res#"$TOP"/}):"
		tr -d '\r' <"$ser" | tail -10 | sed 's/^/   /'
	fi
}

while read -r name when kernel params; do
	[ -n "$name" ] || continue # an empty list
	ondemand=0
	[ "$when" = run ] || ondemand=1
	kout=$KOUT
	[ "$kernel" = default ] || kout=$BUILD/kbuild-$kernel
	# named, or (not on-demand) its kernel named, or no ONLY at all
	if [[ " ${ONLY:-} " != *" $name "* ]]; then
		[ "$ondemand" = 0 ] || continue
		[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" @$kernel "* ]] || continue
	fi
	if [ "$list" = 1 ]; then
		first=0
		echo "$name ${kout#"$TOP"/} $params"
		continue
	fi
	# the skips this boot must show (guest/skips.list), and no others
	skips=$(awk -v b="$name" '/^[ \t]*(#|$)/ { next } $1 == b && $2 != "console" { printf "%s:%s:%s ", $2, $3, $4 }' "$TOP/guest/skips.list")
	# the series' warnings it allows in the console (skips.list's console lines)
	allow=$(awk -v b="$name" '/^[ \t]*(#|$)/ { next } $1 == b && $2 == "console" { printf "%s:%s ", $3, $4 }' "$TOP/guest/skips.list")
	opts=(--tap --expect-skips "$skips" --series-msgs "$RESULTS/series-msgs.txt" --console-allow "$allow")
	# the plans it pins (guest/plans.list): every program of a boot of
	# make test must be pinned (one that is not fails, its plan shown);
	# an on-demand boot may pin none
	plans=$(awk -v b="$name" '/^[ \t]*(#|$)/ { next } $1 == b { printf "%s:%s ", $2, $3 }' "$TOP/guest/plans.list")
	if [ -n "$plans" ] || [ "$ondemand" = 0 ]; then
		opts+=(--plans "$plans")
	else
		echo "NOTE: on-demand boot $name pins no plans in guest/plans.list: its programs' case counts are not checked"
	fi
	# KUnit runs at every boot: count it once per kernel, in its first
	# boot that does not turn it off
	if ! kunit_off "$params ${APPEND:-}"; then
		opts+=(--kunit-suites "$TOP/guest/kunit.suites")
		# counted in its first boot, checked (plan, pins) in the others
		if [[ $kunit_done != *" $kernel "* ]]; then
			opts+=(--kunit)
			kunit_done+="$kernel "
		fi
	fi
	if grep -q '^CONFIG_KCSAN=y' "$kout/.config"; then
		mkdir -p "$RESULTS"
		series_functions "$kout" >"$RESULTS/kcsan-ours.txt"
		opts+=(--kcsan-ours "$RESULTS/kcsan-ours.txt")
	fi
	first=0
	echo "== boot $name${params:+ ($params)}$([ "$kernel" = default ] || echo " on ${kout#"$TOP"/}")"
	rc=0
	out=$(KOUT=$kout APPEND="newtod.boot=$name $params ${APPEND:-}" LIVE_FD=3 \
		"$TOP/scripts/qemu.sh" --job test "${opts[@]}" --name "test-$name" --timeout "$tmo" 2>&1) || rc=$?
	printf '%s\n' "$out" | grep -v -E '^>>> qemu: booting' || true
	counts=$(printf '%s\n' "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed' | tail -1 || true)
	[ -n "$counts" ] || counts="0 passed, 1 failed"
	read -r p _ f _ s _ <<<"${counts//,/}"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + ${s:-0}))
	if [ "$rc" != 0 ]; then
		detail "$name"
		bad+=("$name")
		digest+="$(failures "$name" "$out")"$'\n'
	fi
done <<<"$boot_list"

if [ "$list" = 1 ] && [ "$first" = 0 ]; then
	exit 0
fi
if [ "$first" = 1 ]; then
	bad+=("${ONLY:-(none)}")
	echo "ERROR: no boot ran: ONLY='${ONLY:-}' names none of ${boot_names}(guest/boots.list)" >&2
fi
if [ -n "$digest" ]; then
	echo "== why each failed boot failed (whole logs: build/results/test-NAME-serial.log, test-NAME-results.txt)"
	printf '%s' "$digest"
fi
[ ${#bad[@]} -eq 0 ] || printf 'FAILED boots: %s (logs: build/results/test-NAME-serial.log and test-NAME-results.txt)\n' "${bad[*]}" >&2
# a run of some boots says so where the verdict stands
partial=''
[ -z "$ONLY" ] || partial=" (partial: ONLY='$ONLY', not the verdict of make test)"
if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped$partial"
else
	echo "$passed passed, $failed failed$partial"
fi
[ ${#bad[@]} -eq 0 ] && [ "$failed" = 0 ]
