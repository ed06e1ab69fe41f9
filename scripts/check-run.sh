#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Judge one guest run from its two logs:
#   SERIAL   the kernel console (ttyS0): panics, WARNING:, BUG:, Oops, KUnit KTAP
#   RESULTS  what the guest job wrote to ttyS1: TAP and the @@NEWTOD-DONE marker
# Usage: check-run.sh [--tap] [--kunit] [--expect-skips "NAME:COUNT:WHAT..."] [--plans "NAME:CASES..."]
#                     [--kunit-suites FILE] [--series-msgs FILE] [--console-allow "COUNT:TEXT..."]
#                     [--kcsan-ours FILE] [--s3-wakeups N] [--timed-out]
#                     SERIAL RESULTS
#   --tap           count the guest's TAP results (see guest/run-tests.sh); each
#                   program must print results, as many as its own plan says
#   --expect-skips  the skips this boot must show, "NAME:COUNT:WHAT ...": the
#                   program NAME (a tests.list name) skips exactly COUNT cases
#                   whose description starts with WHAT ('_' for a space), or
#                   WHAT 'program': the whole program skips (COUNT 1). Any
#                   other skip fails, and so does a missing one
#   --plans         the plans this boot pins, "NAME:CASES ...": every program
#                   that runs must be pinned, print that plan (0 for a whole-
#                   program skip), and every pinned one must run
#   --kunit         count KUnit results from the console's KTAP (kunit.py parse);
#                   without it, KUnit in the console is checked (plan, pins,
#                   failures) but not counted
#   --kunit-suites  FILE of "SUITE CASES" lines: each suite must run, pass and
#                   have exactly that many cases
#   --series-msgs   FILE of the series' warnings and errors (series_messages in
#                   lib.sh): a console line holding one fails the run unless
#                   --console-allow allows it
#   --console-allow "COUNT:TEXT ...": a console line holding TEXT ('_' for a
#                   space) may appear up to COUNT times in this boot
#   --kcsan-ours    FILE of the series' function names: a KCSAN report naming
#                   one fails the run, other KCSAN reports are only listed
#   --s3-wakeups N  the harness woke the guest from S3 N times (scripts/qemu-watch.py:
#                   60 s there with no wake event, its RTC alarm fired before S3
#                   was entered). One is a slow suspend under TCG and is said;
#                   more fail: a kernel that does not wake on its RTC alarm
# Prints what it found; with --tap/--kunit ends with "N passed, N failed".
# Exit status 0 only when the run is clean and nothing failed.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

tap=0 kunit=0 timed_out=0 s3_wakeups=0 expect_skips='' suites='' kcsan_ours='' plans='-' msgs='' allow=''
usage='usage: check-run.sh [--tap] [--kunit] [--expect-skips "NAME:COUNT:WHAT..."] [--plans "NAME:CASES..."] [--kunit-suites FILE] [--series-msgs FILE] [--console-allow "COUNT:TEXT..."] [--kcsan-ours FILE] [--s3-wakeups N] [--timed-out] SERIAL RESULTS'
while [ $# -gt 2 ]; do
	case "$1" in
	--tap) tap=1 ;;
	--kunit) kunit=1 ;;
	--timed-out) timed_out=1 ;;
	--expect-skips) expect_skips=$2; shift ;;
	--kunit-suites) suites=$2; shift ;;
	--plans) plans=$2; shift ;;
	--series-msgs) msgs=$2; shift ;;
	--console-allow) allow=$2; shift ;;
	--kcsan-ours) kcsan_ours=$2; shift ;;
	--s3-wakeups) s3_wakeups=$2; shift ;;
	*) die "check-run.sh: unknown option '$1' ($usage)" ;;
	esac
	shift
done
[ $# -eq 2 ] || die "$usage"
[ -z "$suites" ] || [ -f "$suites" ] || die "check-run.sh: no KUnit suite list $suites (see guest/kunit.suites)"
[ -z "$msgs" ] || [ -s "$msgs" ] || die "check-run.sh: no message list $msgs (the series' warnings; see scripts/test.sh)"
[ -z "$kcsan_ours" ] || [ -s "$kcsan_ours" ] || die "check-run.sh: no symbol list $kcsan_ours (the series' functions; see scripts/test.sh)"
serial=$1 results=$2
[ -f "$serial" ] || die "no serial log $serial: did QEMU start? (run with V=1 to see its output)"
[ -f "$results" ] || : >"$results"

problems=()
[[ $s3_wakeups =~ ^[0-9]+$ ]] || die "check-run.sh: --s3-wakeups takes a count, not '$s3_wakeups'"
if [ "$s3_wakeups" -gt 1 ]; then
	problems+=("the harness had to wake the guest from S3 $s3_wakeups times (60 s each with no wake event; one is allowed, a slow suspend whose RTC alarm fired first): does the kernel wake on its RTC alarm?")
elif [ "$s3_wakeups" = 1 ]; then
	echo "the harness woke the guest from S3 once (60 s with no wake event: its RTC alarm fired before S3 was entered); allowed once per boot"
fi
if [ "$timed_out" = 1 ]; then
	problems+=("the guest did not finish before the timeout (hung?); last console lines:")
fi
# The kernel's own alarms, anywhere in a console line: panics, oopses and
# warnings, and the reports of the debug kernels (lockdep and DEBUG_LIST
# print "WARNING:", KASAN, KFENCE, KCSAN and atomic sleep "BUG:", UBSAN
# and debug objects their own prefix; RCU stalls and hung tasks).
alarms='Kernel panic|WARNING:|BUG:|Oops|general protection fault|UBSAN:|ODEBUG:'
alarms+='|detected (expedited )?stall|blocked for more than|soft lockup|scheduling while atomic|list_(add|del) corruption'
kcsan_other=()
while IFS= read -r l; do
	# --kcsan-ours: data races are judged below, report by report
	if [ -n "$kcsan_ours" ] && [[ $l == *"BUG: KCSAN:"* ]]; then
		continue
	fi
	if [ "${#problems[@]}" -lt 8 ]; then problems+=("kernel: $l"); fi
done < <(tr -d '\r' <"$serial" | grep -aE "$alarms" || true)
# A KCSAN report, from its "BUG: KCSAN:" title to the closing line of
# '=', fails the run if its title or any frame of either access's stack
# names a function of the series (a race in stock code reached from ours
# counts); the others are listed. Each report becomes one line: the title,
# a tab, the functions of the title and of the frames ("name+0x12/0x40").
if [ -n "$kcsan_ours" ]; then
	while IFS=$'\t' read -r title funcs; do
		ours=''
		read -ra fl <<<"$funcs"
		for f in "${fl[@]}"; do
			if grep -qxF -- "$f" "$kcsan_ours"; then ours=$f; break; fi
		done
		if [ -n "$ours" ]; then
			problems+=("kernel: $title (names $ours, a function of the series)")
		else
			kcsan_other+=("$title")
		fi
	done < <(tr -d '\r' <"$serial" | sed 's/^\[ *[0-9.]*\] //' | awk '
		function flush() { if (title != "") print title "\t" funcs; title = "" }
		/BUG: KCSAN:/ {
			flush()
			title = substr($0, index($0, "BUG: KCSAN:"))
			t = title; sub(/.* in /, "", t); gsub(/\//, " ", t)
			funcs = ""
			n = split(t, w, " ")
			for (i = 1; i <= n; i++) { sub(/[+.].*/, "", w[i]); funcs = funcs " " w[i] }
			next
		}
		title != "" && /^=+$/ { flush(); next }
		# a frame at +0x0 is no return address: a stale word of the guessing unwinder
		title != "" && match($0, /^ *[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+/) &&
		    $0 !~ /\+0x0\// {
			f = substr($0, RSTART, RLENGTH); sub(/^ */, "", f); sub(/[+.].*/, "", f)
			funcs = funcs " " f
		}
		END { flush() }')
fi
# The series' own warnings and errors ("could not withdraw the unstable
# TSC", "cannot be enabled ... staying on"): each fails the run unless this
# boot allows it (guest/skips.list's console lines), at most so often. A
# line naming a source kunit-* is KUnit's own (registry_enable_refused
# makes kunit-refuses refuse on purpose): KUnit judges those cases.
if [ -n "$msgs" ]; then
	while IFS= read -r l; do
		problems+=("$l")
	done < <(tr -d '\r' <"$serial" | grep -aFf "$msgs" | grep -av ' kunit-[a-z0-9-]* ' | awk -v allow="$allow" '
		BEGIN {
			n = split(allow, e, " ")
			for (i = 1; i <= n; i++) {
				c = index(e[i], ":")
				if (!c || substr(e[i], 1, c - 1) !~ /^[0-9]+$/) {
					print "--console-allow entry \"" e[i] "\" is not COUNT:TEXT"; continue
				}
				t = substr(e[i], c + 1)
				max[t] = substr(e[i], 1, c - 1) + 0; seen[t] = 0
			}
		}
		{
			l = $0; gsub(/ /, "_", l)
			for (t in max) if (index(l, t)) { if (++seen[t] > max[t]) print "the series warned " seen[t] " times, more than the " max[t] " this boot allows (guest/skips.list): " $0; next }
			if (++shown <= 8) print "the series warned or failed (not allowed in this boot by guest/skips.list): " $0
		}')
fi
# Stock's pr_warn_once "hrtimer: interrupt took N ns" (a timer interrupt
# that ran long) is listed with its length, not failed: under TCG a host
# that deschedules the vCPU makes it, and the unpatched kernel's boots
# print it too (stock-base 20 ms, stock 17-60 ms; ts-hpet up to 813 ms,
# where every HPET read traps to the emulator). Failing on it would fail
# a correct kernel; the clocks' own checks judge what such a stall did.
hrt=$(tr -d '\r' <"$serial" | grep -aoE 'hrtimer: interrupt took [0-9]+ ns' | head -1 |
	awk '{ printf "%.1f", $4 / 1e6 }' || true)
if [ -n "$hrt" ]; then
	echo "noted (stock's warning, listed, not failed): hrtimer: interrupt took $hrt ms"
fi
if [ ${#kcsan_other[@]} -gt 0 ]; then
	echo "KCSAN reports outside the series (listed, not failed):"
	printf '%s\n' "${kcsan_other[@]}" | sed 's/^.*BUG: KCSAN: /  /' | sort | uniq -c
fi

# The marker starts its line once terminal escape codes (SeaBIOS) are gone,
# so that a program printing it cannot end the job early.
marker=$(tr -d '\r' <"$results" | sed 's/\x1b\[[0-9;]*[A-Za-z]//g' |
	grep -aoE '^@@NEWTOD-DONE rc=[0-9]+' | tail -1 || true)
if [ -z "$marker" ]; then
	problems+=("no @@NEWTOD-DONE marker: the guest job did not complete")
elif [ "${marker#*rc=}" != 0 ]; then
	problems+=("guest job exited with ${marker#@@NEWTOD-DONE }")
fi

passed=0 failed=0 skipped=0
if [ "$tap" = 1 ]; then
	# Cases are the programs' own "# ok N"/"# not ok N" lines, which must
	# number what the program's own plan ("# 1..N") says; a program that
	# printed no result fails, even with exit status 0. A program whose exit
	# status failed counts as a failure even when its cases passed (it
	# crashed after them, or lost a result). Skips, of a case or of a whole
	# program, are allowed only as --expect-skips says: which, and how many.
	# a results file from before the runner's "# newtod-run:" lines
	legacy=1
	! grep -aq '^# newtod-run: ' "$results" || legacy=0
	[ "$legacy" = 0 ] || echo "NOTE: ${results##*/} has no '# newtod-run:' line: a run from before 2026-12-07, its times and exit statuses read from its result lines"
	tapout=$(tr -d '\r' <"$results" | awk -v expect="$expect_skips" -v plans="$plans" -v legacy="$legacy" '
		BEGIN {
			pinning = plans != "-"
			n = split(plans == "-" ? "" : plans, e, " ")
			for (i = 1; i <= n; i++) {
				c1 = index(e[i], ":")
				if (!c1 || substr(e[i], c1 + 1) !~ /^[0-9]+$/) {
					print "PROBLEM --plans entry \"" e[i] "\" is not NAME:CASES"; f++
					continue
				}
				pin[substr(e[i], 1, c1 - 1)] = substr(e[i], c1 + 1) + 0
			}
			n = split(expect, e, " ")
			for (i = 1; i <= n; i++) {
				c1 = index(e[i], ":"); rest = substr(e[i], c1 + 1); c2 = index(rest, ":")
				if (!c1 || !c2 || substr(rest, 1, c2 - 1) !~ /^[0-9]+$/) {
					print "PROBLEM --expect-skips entry \"" e[i] "\" is not NAME:COUNT:WHAT"; f++
					continue
				}
				key = substr(e[i], 1, c1 - 1) SUBSEP substr(rest, c2 + 1)
				want[key] = substr(rest, 1, c2 - 1) + 0; seen[key] = 0
			}
			runplan = -1
		}
		function problem(msg) { f++; print "PROBLEM " msg }
		function reset() { name = ""; inner = 0; innerfail = 0; plan = -1; skipped = 0; wholeskip = 0 }
		# a skip of WHAT ("program", or a case description) in program name
		function skip(what,   k, w, d) {
			d = what; gsub(/ /, "_", d)
			for (k in want) {
				split(k, w, SUBSEP)
				if (w[1] != name) continue
				if (w[2] == "program" ? d == "program" : substr(d, 1, length(w[2])) == w[2]) { seen[k]++; return }
			}
			problem(name " skipped \"" what "\", which guest/skips.list does not allow in this boot")
		}
		# the plan against guest/plans.list: a program that tests less fails
		function done_prog() {
			if (pinning) {
				got = wholeskip ? 0 : plan
				if (!(name in pin))
					problem(name " ran (plan " got ") but guest/plans.list pins no plan for it in this boot")
				else if (got != pin[name])
					problem(name " planned " got " cases; guest/plans.list pins " pin[name] " in this boot (update it, with why, if the program changed on purpose)")
				ran[name] = 1
			}
			reset()
		}
		/^1\.\.[0-9]+$/ { split($0, a, "\\.\\."); runplan = a[2] + 0; next }
		/^# newtod-run: [^ ]+ exited [0-9]+ after [0-9.]+ s$/ { rc[$3] = $5; next }
		/^# selftest: / {
			if (name != "")
				problem(name " has no result line of the runner (the runner stopped?)")
			reset(); name = $3; next
		}
		name != "" && /^# 1\.\.[0-9]+/ {
			if (plan != -1) { problem(name " printed a second plan: " substr($0, 3)); next }
			split($2, a, "\\.\\."); plan = a[2] + 0
			if (plan == 0 && / # SKIP( |$)/) { skipped = 1; wholeskip = 1; skip("program") }
			next
		}
		name != "" && /^# (not )?ok [0-9]+( |$)/ {
			num = ($2 == "not") ? $4 : $3
			inner++
			if (num != inner)
				problem(name " numbered result " inner " as " num)
			if ($2 == "not") { f++; innerfail++ }
			else if (/ # SKIP( |$)/) {
				s++; skipped = 1
				# the description: before "# SKIP" (ok 3 name # SKIP why),
				# or after it (kselftest.h: ok 3 # SKIP why)
				d = $0; sub(/^# ok [0-9]+ ?/, "", d); sub(/^- /, "", d)
				match(d, /(^| )# SKIP ?/)
				skip(RSTART > 1 ? substr(d, 1, RSTART - 1) : substr(d, RSTART + RLENGTH))
			}
			else p++
			next
		}
		/^(not )?ok [0-9]+( |$)/ {
			isfail = ($1 == "not")
			prog = isfail ? $4 : $3
			if (name == "") {
				problem("runner result \"" $0 "\" without a \"# selftest:\" line before it")
				next
			}
			if (prog != name)
				problem("runner result for " prog " after \"# selftest: " name "\"")
			# After "#" the runner writes a directive only: a parser takes
			# the word there for one. Its time and exit status are in the
			# "# newtod-run:" line before; a results file from before that
			# line existed (legacy: none in the file) had them here.
			d = index($0, " # ") ? substr($0, index($0, " # ") + 3) : ""
			if (d != "" && d !~ /^(SKIP|TODO|XFAIL|TIMEOUT|ERROR)( |$)/ &&
			    !(legacy && d ~ /^([0-9.]+s|exit=[0-9]+)$/))
				problem("runner result \"" $0 "\": after \"#\" comes a directive (SKIP, TIMEOUT) only, the time and exit status go in the \"# newtod-run:\" line before it; is guest/run-tests.sh the runner?")
			# the result the runner gave against the exit status it logged
			if (name in rc) {
				rwant = rc[name] == 0 ? "ok" : rc[name] == 4 ? "ok SKIP" : \
					rc[name] ~ /^(124|137|143)$/ ? "not ok TIMEOUT" : "not ok"
				rgot = (isfail ? "not ok" : "ok") (d ~ /^(SKIP|TIMEOUT)/ ? " " substr(d, 1, index(d " ", " ") - 1) : "")
				if (rgot != rwant)
					problem("runner result \"" $0 "\" for a program that exited " rc[name] " (want " rwant ")")
			} else if (!legacy)
				problem(name " has no \"# newtod-run:\" line before its result (is guest/run-tests.sh the runner?)")
			if (/# TIMEOUT/)
				problem(name " " substr($0, index($0, "# TIMEOUT") + 2) " (killed: see its output above)")
			if (!isfail && / # SKIP( |$)/) {
				if (!inner) { s++; if (!wholeskip) { skip("program"); wholeskip = 1 } }
				skipped = 1
			} else if (!inner) {
				f++
				if (!isfail) print "PROBLEM " name " printed no results of its own (exit 0 is not a pass)"
			} else if (isfail && !innerfail) f++
			if (inner && plan == -1)
				problem(name " printed " inner " results without a plan (1..N)")
			else if (plan >= 0 && inner != plan && !wholeskip)
				problem(name " planned " plan " results and printed " inner)
			done_prog()
			next
		}
		END {
			if (name != "")
				problem(name " has no result line of the runner (the runner stopped?)")
			if (runplan == -1)
				problem("the runner printed no plan (1..N): is guest/run-tests.sh the runner?")
			for (k in want) if (seen[k] != want[k]) {
				split(k, w, SUBSEP)
				problem(w[1] " skipped \"" w[2] "\" " seen[k] " times in this boot; guest/skips.list expects " want[k])
			}
			for (x in pin) if (!(x in ran))
				problem(x " is pinned in guest/plans.list for this boot and did not report")
			print "COUNTS", p + 0, f + 0, s + 0
		}')
	while IFS= read -r l; do
		case "$l" in PROBLEM\ *) problems+=("${l#PROBLEM }") ;; esac
	done <<<"$tapout"
	counts=$(printf '%s\n' "$tapout" | grep '^COUNTS ' || true)
	[ -n "$counts" ] || die "check-run.sh: internal error: the TAP count printed no COUNTS line"
	read -r _ p f s <<<"$counts"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	# The plan "1..N" against the programs that reported: a runner that
	# stopped early must not pass.
	read -r plan ran < <(tr -d '\r' <"$results" | awk '
		/^1\.\.[0-9]+$/ { split($0, a, "\\.\\."); plan = a[2] }
		/^(not )?ok [0-9]+/ { ran++ }
		END { print (plan == "" ? -1 : plan), ran + 0 }')
	if [ "$plan" != -1 ] && [ "$plan" != "$ran" ]; then
		problems+=("the guest ran $ran of the $plan planned test programs (or its last line lacks a newline)")
		failed=$((failed + plan - ran))
	fi
	result_lines 1 <"$results" | sed 's/^/  /' || true
	[ $((p + f + s)) -gt 0 ] || problems+=("no TAP results from the guest")
fi

# KUnit is counted in one boot of each kernel (--kunit), but it runs in
# every boot that does not turn it off: there it is held to the same plan
# and pin checks, and a failure fails the boot, without being counted.
# (--kunit-suites without --kunit: KUnit must have run here too)
if [ "$kunit" = 0 ] && { [ -n "$suites" ] || grep -aq 'KTAP version' "$serial"; }; then
	kunit=check
fi
if [ "$kunit" != 0 ]; then
	kpy=$KSRC/tools/testing/kunit/kunit.py
	if [ "$kunit" = 1 ]; then
		need_cmd python3
		[ -f "$kpy" ] || die "$kpy not found: run 'make tree'"
	fi
	if grep -aq 'kunit: disabled' "$serial"; then
		problems+=("KUnit was turned off (kunit.enable= on the kernel command line) in a boot that counts it: count it in another boot of this kernel, or drop kunit.enable from this one (guest/boots.list, APPEND)")
	elif ! grep -aq 'KTAP version' "$serial"; then
		problems+=("no KUnit KTAP in the console log (CONFIG_KUNIT tests did not run?)")
	else
		# kunit.py shows the results; the counting is ours, line by line,
		# so that a console message printed in the middle of a suite (a
		# clocksource switch) cannot turn into a parse error or a pass.
		if [ "$kunit" = 1 ]; then
			kout=$(tr -d '\r' <"$serial" | python3 "$kpy" parse 2>&1 || true)
			printf '%s\n' "$kout" | grep -E '\[(PASSED|FAILED|SKIPPED|CRASHED)\]' | sed 's/^/  kunit: /' || true
		fi
		kres=$(tr -d '\r' <"$serial" | awk -v list="$suites" '
			BEGIN {
				while (list != "" && (getline line < list) > 0) {
					if (line ~ /^[ \t]*(#|$)/)
						continue
					split(line, w, " ")
					want[w[1]] = w[2] + 0
				}
				top = -1
			}
			/^KTAP version / { inktap = 1; next }
			inktap && /^1\.\.[0-9]+$/ {
				split($0, a, "\\.\\.")
				top = (top == -1 ? 0 : top) + a[2]
				inktap = 0
				next
			}
			/^    # Subtest: / { suite = $3; plan[suite] = -1; cases[suite] = 0; next }
			/^    1\.\.[0-9]+/ { if (suite != "") { split($1, a, "\\.\\."); plan[suite] = a[2] + 0 } next }
			/^    (not )?ok [0-9]+( |$)/ {
				if (suite == "")
					next
				cases[suite]++
				if ($1 == "ok" && / # SKIP( |$)/) { s++; skips[suite]++ }
				else if ($1 == "not") { f++; print "INFO   kunit: FAILED " suite ": " substr($0, 5) }
				else p++
				next
			}
			/^(not )?ok [0-9]+( |$)/ {
				if (suite != "") {
					result[suite] = $1
					if ($1 == "ok" && / # SKIP( |$)/) suiteskip[suite] = 1
					nsuites++
				}
				suite = ""
				next
			}
			END {
				for (x in plan) {
					if (plan[x] >= 0 && cases[x] != plan[x]) {
						f++; print "PROBLEM KUnit suite " x " planned " plan[x] " cases and reported " cases[x] " (crashed?)"
					}
					if (!(x in result)) {
						f++; print "PROBLEM KUnit suite " x " has no result line (crashed?)"
					}
				}
				if (top == -1) {
					f++; print "PROBLEM KUnit printed no top-level plan (1..N)"
				} else if (nsuites != top) {
					f++; print "PROBLEM KUnit ran " nsuites + 0 " of the " top " suites it planned"
				}
				for (x in want) {
					if (!(x in plan)) {
						f++; print "PROBLEM KUnit suite " x " did not run (pinned in guest/kunit.suites)"
						continue
					}
					if (plan[x] != want[x] || cases[x] != want[x]) {
						f++; print "PROBLEM KUnit suite " x ": plan " plan[x] ", " cases[x] " case results, guest/kunit.suites pins " want[x] " (update guest/kunit.suites if the suite changed on purpose)"
					}
					if (result[x] != "ok" || suiteskip[x] || skips[x]) {
						f++; print "PROBLEM KUnit suite " x " did not pass (" (result[x] != "ok" ? "not ok" : "skipped") "): a pinned suite must run every case"
					}
				}
				print "COUNTS", p + 0, f + 0, s + 0
			}')
		while IFS= read -r l; do
			case "$l" in
			PROBLEM\ *) problems+=("${l#PROBLEM }") ;;
			INFO\ *) echo "${l#INFO }" ;;
			esac
		done <<<"$kres"
		counts=$(printf '%s\n' "$kres" | grep '^COUNTS ' || true)
		[ -n "$counts" ] || die "check-run.sh: internal error: the KUnit count printed no COUNTS line"
		read -r _ kp kf ks <<<"$counts"
		[ $((kp + kf + ks)) -gt 0 ] || problems+=("no KUnit case results in the console log")
		if [ "$kunit" = 1 ]; then
			echo "  kunit: $kp passed, $kf failed, $ks skipped"
			passed=$((passed + kp)) failed=$((failed + kf)) skipped=$((skipped + ks))
		else
			echo "  kunit (checked, counted in the kernel's first boot): $kp passed, $kf failed, $ks skipped"
			[ "$kf" = 0 ] ||
				problems+=("KUnit failed in this boot ($kf failed; counted only in the first boot of each kernel, a failure fails any boot)")
		fi
	fi
fi

status=0
if [ ${#problems[@]} -gt 0 ]; then
	printf 'FAIL: %s\n' "${problems[@]}" >&2
	[ "$timed_out" = 1 ] && tr -d '\r' <"$serial" | tail -15 | sed 's/^/  | /' >&2
	status=1
fi
if [ "$tap" = 1 ] || [ "$kunit" = 1 ]; then
	[ "$failed" = 0 ] || status=1
	# Problems that are not a counted test (panic, hang) count as one failure.
	[ ${#problems[@]} -eq 0 ] || failed=$((failed + 1))
	if [ "$skipped" -gt 0 ]; then
		echo "$passed passed, $failed failed, $skipped skipped"
	else
		echo "$passed passed, $failed failed"
	fi
fi
exit $status
