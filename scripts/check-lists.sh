#!/usr/bin/env bash
# Check the lists that drive 'make test' against each other, so that no
# line is silently never run:
#   - every boot tag of tests.list names a boot of boots.list;
#   - boot names are unique, and test names unique within a boot;
#   - every skips.list line names a boot and a test of that boot.
# Usage: check-lists.sh [TESTS_LIST BOOTS_LIST SKIPS_LIST]
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tests=${1:-$TOP/guest/tests.list}
boots=${2:-$TOP/guest/boots.list}
skips=${3:-$TOP/guest/skips.list}
for f in "$tests" "$boots" "$skips"; do
	[ -f "$f" ] || die "check-lists.sh: no $f"
done

errs=$(awk '
	FNR == 1 { file++ }
	/^[ \t]*(#|$)/ { next }
	file == 1 {
		if ($1 in boot) print FILENAME ":" FNR ": boot " $1 " defined twice"
		boot[$1] = 1
		next
	}
	file == 2 {
		if (!($1 in boot)) print FILENAME ":" FNR ": boot tag " $1 " is not in " ARGV[1] ": this line would never run"
		if (($1 SUBSEP $2) in test) print FILENAME ":" FNR ": test " $2 " appears twice in boot " $1
		test[$1, $2] = 1
		next
	}
	file == 3 {
		if (!($1 in boot)) print FILENAME ":" FNR ": boot " $1 " is not in " ARGV[1]
		else if (!(($1 SUBSEP $2) in test)) print FILENAME ":" FNR ": boot " $1 " runs no test " $2 " (see " ARGV[2] ")"
	}' "$boots" "$tests" "$skips")
if [ -n "$errs" ]; then
	printf 'ERROR: %s\n' "$errs" >&2
	die "the test lists disagree: fix the lines above"
fi
