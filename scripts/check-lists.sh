#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Check the lists that drive 'make test' against each other, so that no
# line is silently never run:
#   - every boot tag of tests.list (one, or several joined by commas)
#     names a boot of boots.list;
#   - a boot's @KERNEL has its fragment, kernel-KERNEL.config, beside boots.list;
#   - boot names are unique, and test names unique within a boot;
#   - every skips.list line names a boot and a test of that boot (or
#     'console'), a count and what skips (or may be printed), and why;
#   - tests.list lines have a numeric timeout, kunit.suites lines a count;
#   - each kernel that make test boots has a boot that runs KUnit (no
#     kunit.enable=0), where it is counted.
#   - plans.list pins each test once, and names only tests of its boot
#     (that every program of a boot is pinned is checked when it runs:
#     check-run.sh --plans shows the plan of one that is not).
# Usage: check-lists.sh [TESTS_LIST BOOTS_LIST SKIPS_LIST KUNIT_SUITES PLANS_LIST]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tests=${1:-$TOP/guest/tests.list}
boots=${2:-$TOP/guest/boots.list}
skips=${3:-$TOP/guest/skips.list}
suites=${4:-$TOP/guest/kunit.suites}
plans=${5:-$TOP/guest/plans.list}
for f in "$tests" "$boots" "$skips" "$suites"; do
	[ -f "$f" ] || die "check-lists.sh: no $f"
done
[ -f "$plans" ] || die "check-lists.sh: no $plans: create it (an empty file will do: each program's first run then fails, its plan shown) and fill it from a run with scripts/plans.sh"

# NAME WHEN KERNEL KUNIT: KUNIT 1 where the boot runs KUnit (kunit_off, lib.sh)
boot_list=$(list_boots "$boots" | while read -r name when kernel params; do
	kunit=1
	! kunit_off "$params" || kunit=0
	echo "$name $when $kernel $kunit"
done)
errs=$(awk -v B="$boots" -v T="$tests" -v S="$skips" -v K="$suites" -v P="$plans" -v dir="$(dirname "$boots")" '
	# the boots: NAME WHEN KERNEL KUNIT
	FILENAME == "-" {
		if (!NF) next	# an empty list, from the here-string
		boot[$1] = 1
		# KUnit is counted in the first boot of a kernel that runs it
		# (scripts/test.sh): each kernel of make test needs one
		if ($2 == "run") {
			inrun[$3] = 1
			if ($4) counted[$3] = 1
		}
		if ($3 != "default") {
			frag = dir "/kernel-" $3 ".config"
			if ((getline junk < frag) < 0)
				print B ": boot " $1 " wants kernel @" $3 ", but there is no " frag
			close(frag)
		}
		next
	}
	/^[ \t]*(#|$)/ { next }
	FILENAME == T {
		if (NF < 4 || $3 !~ /^[0-9]+$/) {
			print FILENAME ":" FNR ": want BOOT NAME TIMEOUT COMMAND [ARGS...], TIMEOUT in seconds"
			next
		}
		nb = split($1, tags, ",")
		for (i = 1; i <= nb; i++) {
			if (!(tags[i] in boot))
				print FILENAME ":" FNR ": boot tag \"" tags[i] "\" is not in " B ": this line would never run there"
			if ((tags[i] SUBSEP $2) in test)
				print FILENAME ":" FNR ": test " $2 " appears twice in boot " tags[i]
			test[tags[i], $2] = 1
			ntests[tags[i]]++
		}
		next
	}
	FILENAME == P {
		if (NF != 3 || $3 !~ /^[0-9]+$/)
			print FILENAME ":" FNR ": want BOOT NAME CASES, CASES a number (0: the whole program skips)"
		else if (!(($1 SUBSEP $2) in test))
			print FILENAME ":" FNR ": boot " $1 " runs no test " $2 " (see " T ")"
		else if (($1 SUBSEP $2) in pinned)
			print FILENAME ":" FNR ": " $2 " pinned twice in boot " $1
		pinned[$1, $2] = 1
		npinned[$1]++
		next
	}
	FILENAME == S {
		if (NF < 5 || $3 !~ /^[1-9][0-9]*$/ || ($4 == "program" && $3 != 1))
			print FILENAME ":" FNR ": want BOOT NAME COUNT WHAT WHY: COUNT a positive number (1 for WHAT program), WHAT program or a case description with _ for spaces, and why it skips"
		else if ((($1 SUBSEP $2 SUBSEP $4) in skipline))
			print FILENAME ":" FNR ": " $2 " may skip " $4 " twice in boot " $1 ": say it once, with its count"
		skipline[$1, $2, $4] = 1
		# BOOT console COUNT TEXT WHY: a warning of the series this boot may print
		if ($2 == "console") { if (!($1 in boot)) print FILENAME ":" FNR ": boot " $1 " is not in " B; next }
		if (!($1 in boot)) print FILENAME ":" FNR ": boot " $1 " is not in " B
		else if (!(($1 SUBSEP $2) in test)) print FILENAME ":" FNR ": boot " $1 " runs no test " $2 " (see " T ")"
		next
	}
	FILENAME == K {
		if (NF != 2 || $2 !~ /^[0-9]+$/ || $2 == 0) print FILENAME ":" FNR ": want SUITE CASES, CASES a positive number"
		else if ($1 in suite) print FILENAME ":" FNR ": suite " $1 " pinned twice"
		suite[$1] = 1
	}
	END {
		for (kern in inrun)
			if (!(kern in counted))
				print B ": every boot of kernel " (kern == "default" ? "(default)" : "@" kern) " turns KUnit off (kunit.enable=0): its KUnit would never be counted; let one of them run it"
	}' - "$tests" "$skips" "$suites" "$plans" <<<"$boot_list" | sort | sed 's/^/ERROR: /')
if [ -n "$errs" ]; then
	printf '%s\n' "$errs" >&2
	die "the test lists disagree: fix the lines above"
fi
