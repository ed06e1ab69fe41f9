#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Print guest/plans.list from the results of the boots of the last make test
# (build/results/test-BOOT-results.txt): BOOT NAME CASES for each program
# that reported, CASES its plan ("# 1..N"; 0 for a whole-program skip).
# Review the difference before replacing the file: a plan that shrinks
# is what the pins exist to catch. A boot whose guest job failed (a 'not
# ok' of the runner, no '@@NEWTOD-DONE rc=0') is refused.
# Usage: plans.sh [BOOT...]   (default: the boots of make test, not the
#        on-demand ones, that have results)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

if [ $# -gt 0 ]; then
	boots=("$@")
else
	boot_list=$(list_boots "$TOP/guest/boots.list")
	mapfile -t boots < <(awk '$2 == "run" { print $1 }' <<<"$boot_list")
fi
echo "# The plan (number of cases) of every program in every boot, checked by"
echo "# scripts/check-run.sh --plans: BOOT NAME CASES (0: the whole program"
echo "# skips). Printed by scripts/plans.sh from a passing make test; a change"
echo "# here says why in its commit."
for b in "${boots[@]}"; do
	r=$RESULTS/test-$b-results.txt
	if [ ! -f "$r" ]; then
		[ $# -eq 0 ] || die "no $r: run 'ONLY=$b scripts/test.sh' first"
		continue
	fi
	tr -d '\r' <"$r" | grep -aqE '^@@NEWTOD-DONE rc=0' ||
		die "boot $b did not finish cleanly (no '@@NEWTOD-DONE rc=0' in ${r#"$TOP"/}): pin plans from a passing run"
	! tr -d '\r' <"$r" | grep -aqE '^not ok [0-9]+ ' ||
		die "boot $b has a failed program in ${r#"$TOP"/}: pin plans from a passing run"
	tr -d '\r' <"$r" | awk -v b="$b" '
		/^# selftest: / { name = $3; plan = -1; next }
		name != "" && plan == -1 && /^# 1\.\.[0-9]+/ { split($2, a, "\\.\\."); plan = a[2] + 0; next }
		name != "" && /^(not )?ok [0-9]+ / {
			if (plan == -1 && / # SKIP( |$)/) plan = 0	# a whole-program skip (exit 4)
			if (plan == -1) { print "plans.sh: " name " printed no plan in boot " b > "/dev/stderr"; exit 1 }
			printf "%-12s %-26s %d\n", b, name, plan
			name = ""
		}'
done
