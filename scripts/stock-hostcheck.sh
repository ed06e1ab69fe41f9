#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Host-side checks of the stock selftests' wrapper and lists, no guest:
#   - guest/tests/kselftest-stock.sh under busybox sh alone (as in the
#     guest: busybox applets only, and, as root, without /usr/bin/perl,
#     /usr/bin/stdbuf and /usr/bin/timeout, which the kselftest runner uses
#     when they are there), sourcing the tree's kselftest runner
#     (build/kselftest-base), on fake selftests: each verdict (pass, skip,
#     timeout, expected failures exact / one more / one fewer / passing,
#     "program", exit 0 with a failed case, a malformed list), lanes at
#     once, and a kill (run-tests.sh's timeout) that leaves no selftest
#     behind;
#   - guest/stock-xfail.list: each line names boots of boots.list whose
#     stock_* lines of tests.list run its DIR/PROG.
# Prints ok/not ok lines; exit status 1 on any failure.
# Usage: stock-hostcheck.sh (after 'make guest-bin': it needs the runner)
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

runner=$BUILD/kselftest-base/tools/testing/selftests/kselftest/runner.sh
[ -f "$runner" ] || die "stock-hostcheck: no $runner: run 'make guest-bin'"
bb=${BUSYBOX:-/bin/busybox}
[ -x "$bb" ] || die "stock-hostcheck: no $bb: run 'make deps' (busybox-static)"
wrapper=$TOP/guest/tests/kselftest-stock.sh
fails=0 n=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n $1"; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bb" "$tmp/ks/kselftest" "$tmp/ks/t" "$tmp/ks/h"
for app in $("$bb" --list); do ln -sf "$bb" "$tmp/bb/$app"; done
cp "$runner" "$tmp/ks/kselftest/"
printf 'timeout=3\n' >"$tmp/ks/t/settings"
printf 'timeout=0\n' >"$tmp/ks/h/settings"
fake() { # fake DIR/NAME BODY: a selftest
	printf '#!/bin/sh\n%s\n' "$2" >"$tmp/ks/$1"
	chmod +x "$tmp/ks/$1"
}
fake t/pass 'echo "TAP version 13"; echo 1..2; echo "ok 1 a"; echo "ok 2 b # SKIP no b"; exit 0'
fake t/args 'echo "1..1"; [ "$*" = "-t 5 -n2" ] && echo "ok 1 args $*" && exit 0; echo "not ok 1 args $*"; exit 1'
fake t/two 'echo "1..3"; echo "ok 1 a"; echo "not ok 2 check_rearm"; echo "not ok 3 check delete   "; exit 1'
fake t/three 'echo "1..3"; echo "not ok 1 a"; echo "not ok 2 check_rearm"; echo "not ok 3 check delete"; exit 1'
fake t/one 'echo "1..2"; echo "ok 1 a"; echo "not ok 2 check_rearm"; exit 1'
fake t/fixed 'echo "1..1"; echo "ok 1 check_rearm"; exit 0'
fake t/noplan 'echo "Estimating ... [FAILED]"; exit 1'
fake t/noplan2 'echo "Estimating ... [FAILED]"; exit 1'
fake t/skip 'echo "needs root"; exit 4'
fake t/slow 'exec sleep 30'
fake t/zero 'echo "1..1"; echo "not ok 1 x"; exit 0'
fake h/hang 'echo start; sleep 60'
cat >"$tmp/xfail.list" <<'EOF'
# comment
b1,b2 t/two check_rearm the same on base
b1 t/two check_delete the same on base
b1 t/three check_rearm why
b1 t/three check_delete why
b1 t/one check_rearm why
b1 t/one check_delete why
b1 t/fixed check_rearm why
b1 t/noplan program why
b2 t/pass a why
EOF

# wrap CMD...: run CMD as the guest would, busybox alone on PATH and, as
# root, the runner's optional tools hidden
wrap() {
	if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
		# shellcheck disable=SC2016 # the inner shell expands them
		unshare -m sh -c 'for f in /usr/bin/perl /usr/bin/stdbuf /usr/bin/timeout; do
			[ ! -e "$f" ] || mount --bind /dev/null "$f"; done; exec "$@"' sh "$@"
	else
		"$@"
	fi
}
run() { # run BOOT LANE...: the wrapper's result lines, "ok N name[ # ...]" joined by ';'
	local boot=$1
	shift
	wrap env PATH="$tmp/bb" KSFT_DIR="$tmp/ks" STOCK_XFAIL="$tmp/xfail.list" NEWTOD_BOOT="$boot" \
		"$bb" sh "$wrapper" "$@" >"$tmp/out" 2>&1 || true
	grep -E '^(1\.\.|(not )?ok )' "$tmp/out" | tr '\n' ';'
}
expect() { # expect DESC GOT WANT
	if [ "$2" = "$3" ]; then ok "$1"; else notok "$1: got '$2', want '$3'"; sed 's/^/#   /' "$tmp/out"; fi
}

start=$(date +%s)
got=$(run b1 t/pass,t/args:-t:5:-n2,t/skip t/two,t/three t/one,t/fixed t/noplan,t/noplan2,t/zero t/slow)
secs=$(($(date +%s) - start))
expect "kselftest-stock: every verdict, lanes at once" "$got" "1..11;ok 1 t/pass;ok 2 t/args;ok 3 t/skip # SKIP;\
ok 4 t/two # XFAIL check_delete check_rearm;not ok 5 t/three # exit=1;not ok 6 t/one # exit=1;\
not ok 7 t/fixed # XPASS;ok 8 t/noplan # XFAIL program;not ok 9 t/noplan2 # exit=1;\
not ok 10 t/zero # failed results;not ok 11 t/slow # TIMEOUT 3 seconds;"
# the slow lane (3 s timeout) and the others at once
if [ "$secs" -lt 25 ]; then ok "kselftest-stock: the lanes ran at once ($secs s)"; else notok "kselftest-stock: took $secs s"; fi
got=$(run b2 t/pass,t/two)
expect "kselftest-stock: the list's lines are per boot" "$got" "1..2;not ok 1 t/pass # XPASS;not ok 2 t/two # exit=1;"
got=$(run b3 t/two,t/pass)
expect "kselftest-stock: a boot the list does not name expects nothing" "$got" "1..2;not ok 1 t/two # exit=1;ok 2 t/pass;"
echo "b1 t/pass" >>"$tmp/xfail.list"
got=$(run b3 t/pass)
expect "kselftest-stock: a malformed list fails" "$got" "1..1;not ok 1 t/pass # malformed $tmp/xfail.list;"
sed -i '$d' "$tmp/xfail.list"
# killed as guest/run-tests.sh's timeout kills it: reports, leaves nothing running
start=$(date +%s)
wrap env PATH="$tmp/bb" KSFT_DIR="$tmp/ks" STOCK_XFAIL="$tmp/xfail.list" NEWTOD_BOOT=b1 \
	"$bb" timeout -k 5 3 "$bb" sh "$wrapper" h/hang t/pass >"$tmp/out" 2>&1 || true
secs=$(($(date +%s) - start))
got=$(grep -E '^(1\.\.|(not )?ok )' "$tmp/out" | tr '\n' ';')
sleep 1
# (its exit status: whichever of the runner's processes the kill reached
# first; on a loaded host the kill can come before the selftest's status
# is taken, and the wrapper reports it as a selftest with no result line)
if [[ $got == "1..2;not ok 1 h/hang # exit="*";ok 2 t/pass;" ||
	$got == "1..2;not ok 1 h/hang # no result line;ok 2 t/pass;" ]] && [ "$secs" -lt 8 ] &&
	! pgrep -f "^sh $tmp/ks/h/hang" >/dev/null; then
	ok "kselftest-stock: killed, it stops its selftests and reports"
else
	notok "kselftest-stock: killed: '$got' after $secs s"
	sed 's/^/#   /' "$tmp/out"
fi

# guest/stock-xfail.list against boots.list and tests.list
boot_list=$(list_boots "$TOP/guest/boots.list")
bad=$(awk -v T="$TOP/guest/tests.list" '
	FILENAME == "-" { boot[$1] = 1; next }
	/^[ \t]*(#|$)/ { next }
	FILENAME == T {
		if ($4 != "./kselftest-stock") next
		nb = split($1, b, ",")
		for (i = 1; i <= nb; i++) for (j = 5; j <= NF; j++) {
			nt = split($j, t, ",")
			for (k = 1; k <= nt; k++) { sub(/:.*/, "", t[k]); runs[b[i], t[k]] = 1 }
		}
		next
	}
	{
		if (NF < 4) { print FILENAME ":" FNR ": want BOOT[,BOOT] DIR/PROG CASE WHY"; next }
		nb = split($1, b, ",")
		for (i = 1; i <= nb; i++)
			if (!(b[i] in boot)) print FILENAME ":" FNR ": boot " b[i] " is not in boots.list"
			else if (!((b[i] SUBSEP $2) in runs)) print FILENAME ":" FNR ": boot " b[i] " runs no " $2 " (tests.list)"
	}' - "$TOP/guest/tests.list" "$TOP/guest/stock-xfail.list" <<<"$boot_list")
if [ -z "$bad" ]; then
	ok "stock-xfail.list: every line names a boot that runs its selftest"
else
	notok "stock-xfail.list:"
	printf '#   %s\n' "$bad"
fi
echo "$((n - fails)) passed, $fails failed"
[ "$fails" = 0 ]
