#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Judge the logs a finished make test left (test-BOOT-serial.log and
# test-BOOT-results.txt in RESULTS) again, with this tree's lists, as
# scripts/test.sh judges each boot: the same check-run.sh options. For a
# harness change (skips.list, plans.list, a rule) checked on a run's
# logs without booting again.
# Usage: judge-run.sh [RESULTS_DIR]   (default build/results; KSRC for kunit.py)
# Ends with "N passed, N failed[, N skipped]"; exit status 1 if a boot of
# make test failed or has no logs.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

res=${1:-$RESULTS}
[ -f "$res/series-msgs.txt" ] || die "judge-run.sh: no $res/series-msgs.txt: is $res the results of a make test?"
boot_list=$(list_boots "$TOP/guest/boots.list")
tp=0 tf=0 ts=0 bad=() done_k=' '
while read -r name when kernel params; do
	[ -n "$name" ] || continue # an empty list
	[ "$when" = run ] || continue
	if [ ! -f "$res/test-$name-results.txt" ]; then
		echo "== $name: no logs in $res"
		bad+=("$name")
		continue
	fi
	skips=$(awk -v b="$name" '/^[ \t]*(#|$)/ { next } $1 == b && $2 != "console" { printf "%s:%s:%s ", $2, $3, $4 }' "$TOP/guest/skips.list")
	allow=$(awk -v b="$name" '/^[ \t]*(#|$)/ { next } $1 == b && $2 == "console" { printf "%s:%s ", $3, $4 }' "$TOP/guest/skips.list")
	plans=$(awk -v b="$name" '/^[ \t]*(#|$)/ { next } $1 == b { printf "%s:%s ", $2, $3 }' "$TOP/guest/plans.list")
	opts=(--tap --expect-skips "$skips" --series-msgs "$res/series-msgs.txt" --console-allow "$allow" --plans "$plans")
	if ! kunit_off "$params ${APPEND:-}"; then
		opts+=(--kunit-suites "$TOP/guest/kunit.suites")
		if [[ $done_k != *" $kernel "* ]]; then
			opts+=(--kunit)
			done_k+="$kernel "
		fi
	fi
	rc=0
	out=$("$TOP/scripts/check-run.sh" "${opts[@]}" "$res/test-$name-serial.log" "$res/test-$name-results.txt" 2>&1) || rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' <<<"$out" | tail -1 || true)
	[ -n "$line" ] || line="0 passed, 1 failed"
	echo "== $name${params:+ ($params)}: $line"
	grep '^FAIL' <<<"$out" | head -5 || true
	read -r p _ f _ s _ <<<"${line//,/}"
	tp=$((tp + p)) tf=$((tf + f)) ts=$((ts + ${s:-0}))
	[ "$rc" = 0 ] || bad+=("$name")
done <<<"$boot_list"
[ ${#bad[@]} -eq 0 ] || echo "FAILED boots: ${bad[*]}" >&2
echo "$tp passed, $tf failed, $ts skipped"
[ ${#bad[@]} -eq 0 ]
