#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bracket2ktap [-p TEXT] PROGRAM [ARGS...]: run a selftest that reports in
# the "[RUN]" / "[OK]" / "[FAIL]" / "[SKIP]" style of the x86 and vDSO
# selftests (vdso_test_correctness), and print its output with a KTAP plan
# and result lines, which the harness counts: one result per [OK], [FAIL]
# or [SKIP] line, named by the [RUN] line just before it, if any, and by its
# own message (a [RUN] may have several results, one per CPU).
#   - A [WARN] line is a failed result: the selftest prints it where it
#     could not test (a clock's syscall failed with an error other than
#     EINVAL, no vDSO found) and goes on without a result of its own.
#   - -p TEXT: each [RUN] whose line holds TEXT must end in a pass: a run
#     with no result fails, and so does its "[OK] No such clock." (both
#     paths said EINVAL: the clock is missing, which is what it tests);
#     and some [RUN] must hold TEXT (a selftest without those clocks fails).
# The output comes first, unchanged. Exit status: the program's, or 1 if
# a result failed or there was none at all.
set -eu
must=''
if [ "${1:-}" = -p ]; then
	[ "$#" -ge 3 ] || { echo "usage: bracket2ktap [-p TEXT] PROGRAM [ARGS...]" >&2; exit 2; }
	must=$2
	shift 2
fi
[ "$#" -ge 1 ] || { echo "usage: bracket2ktap [-p TEXT] PROGRAM [ARGS...]" >&2; exit 2; }
out=$(mktemp) || { echo "bracket2ktap: mktemp failed: is /tmp writable?" >&2; exit 1; }
trap 'rm -f "$out"' EXIT
status=0
"$@" >"$out" 2>&1 || status=$?
cat "$out"
echo "TAP version 13"
awk -v status="$status" -v must="$must" '
	function result(ok, text, skip) {
		n++
		r[n] = (ok ? "ok " : "not ok ") n " " text (skip ? " # SKIP" : "")
		if (!ok) fails++
	}
	# a [RUN] that must pass and printed no result
	function close_run() {
		if (inrun && mustpass && !results)
			result(0, run ": no result (it must pass: bracket2ktap -p " must ")", 0)
		inrun = 0
	}
	/^\[RUN\]/ {
		close_run()
		run = $0; sub(/^\[RUN\][ \t]*/, "", run)
		inrun = 1; results = 0; fresh = 1
		mustpass = must != "" && index(run, must) > 0
		if (mustpass) musts++
		next
	}
	/^\[(OK|FAIL|SKIP|WARN)\]/ {
		tag = substr($0, 2, index($0, "]") - 2)
		msg = $0; sub(/^\[[A-Z]+\][ \t]*/, "", msg)
		text = (fresh ? run ": " : "") msg
		fresh = 0
		results++
		if (tag == "WARN")
			result(0, text " (a [WARN] is no result: fails)", 0)
		else if (tag == "OK" && inrun && mustpass && msg ~ /^No such clock/)
			result(0, text " (it must pass: bracket2ktap -p " must ")", 0)
		else if (tag == "SKIP" && inrun && mustpass)
			result(0, text " (skipped, but it must pass: bracket2ktap -p " must ")", 0)
		else
			result(tag != "FAIL", text, tag == "SKIP")
	}
	END {
		close_run()
		if (must != "" && !musts)
			result(0, "no [RUN] line holds " must " (bracket2ktap -p): the selftest does not test those clocks", 0)
		print "1.." n + 0
		for (i = 1; i <= n; i++) print r[i]
		if (status != 0) { print "# exit status " status; exit status }
		if (fails || !n) exit 1
	}' "$out"
