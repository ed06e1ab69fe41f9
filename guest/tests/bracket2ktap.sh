#!/bin/sh
# bracket2ktap PROGRAM [ARGS...]: run a selftest that reports in the
# "[RUN]" / "[OK]" / "[FAIL]" / "[SKIP]" style of the x86 and vDSO
# selftests (vdso_test_correctness), and print its output with a KTAP plan
# and result lines, which the harness counts: one result per [OK], [FAIL]
# or [SKIP] line, named by the [RUN] line just before it, if any, and by its
# own message (a [RUN] may have several results, one per CPU). The output
# comes first, unchanged. Exit status: the program's, or 1 if it printed a
# [FAIL] or no result at all.
set -eu
[ "$#" -ge 1 ] || { echo "usage: bracket2ktap PROGRAM [ARGS...]" >&2; exit 2; }
out=$(mktemp) || { echo "bracket2ktap: mktemp failed: is /tmp writable?" >&2; exit 1; }
trap 'rm -f "$out"' EXIT
status=0
"$@" >"$out" 2>&1 || status=$?
cat "$out"
echo "TAP version 13"
awk -v status="$status" '
	/^\[RUN\]/ { run = $0; sub(/^\[RUN\][ \t]*/, "", run); fresh = 1; next }
	/^\[(OK|FAIL|SKIP)\]/ {
		tag = substr($0, 2, index($0, "]") - 2)
		msg = $0; sub(/^\[[A-Z]+\][ \t]*/, "", msg)
		n++
		r[n] = (tag == "FAIL" ? "not ok " : "ok ") n " " (fresh ? run ": " : "") msg (tag == "SKIP" ? " # SKIP" : "")
		fresh = 0
		if (tag == "FAIL") fails++
	}
	END {
		print "1.." n + 0
		for (i = 1; i <= n; i++) print r[i]
		if (status != 0) { print "# exit status " status; exit status }
		if (fails || !n) exit 1
	}' "$out"
