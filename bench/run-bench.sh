#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Guest side of 'make bench': one boot, every path interleaved over rounds
# in a shuffled order. Raw figures are framed by @@JSON-BEGIN/@@JSON-END so
# the host can save them. Every ratio the summary prints comes from one
# process. A failed path (a call that returned an error, a hyperfine probe
# that failed, a vDSO path that makes system calls) is reported and makes
# this script exit 1 after everything else has run.
set -eu
G=/bench/gtod
# The i386 guest (make bench-i386) has no hyperfine or perf: Debian's are
# amd64 builds in the x86-64 initramfs only. There those two sections are
# skipped, said so; tod_vdso syscalls counts the system calls on i386.
i386=0
case "$(uname -m)" in i?86) i386=1 ;; esac
ITERS=${ITERS:-200000}
ROUNDS=${ROUNDS:-15}
fail=0

frame() { # NAME FILE: send FILE to the host as NAME.json
	if [ ! -s "$2" ]; then
		echo "FAILED: no $1 figures ($2 was not written: see the errors above)"
		fail=1
		return 0
	fi
	echo "@@JSON-BEGIN $1"
	cat "$2"
	echo "@@JSON-END"
}

# Whatever happens below, the boot's clocksource and timesource are put back.
TS=/sys/devices/system/timesource/timesource0
CS=/sys/devices/system/clocksource/clocksource0
orig_cs=$(cat "$CS/current_clocksource")
orig_ts=$(cat "$TS/current_timesource" 2>/dev/null || true)
restore() {
	echo "$orig_cs" >"$CS/current_clocksource" || true
	[ -z "$orig_ts" ] || echo "$orig_ts" >"$TS/current_timesource" || true
}
trap restore EXIT

echo "== bench/gtod: $(uname -r), clocksource $orig_cs"
# Every path at 1 and at 2 threads, interleaved in every round.
rm -f /tmp/gtod.json
$G --iters "$ITERS" --rounds "$ROUNDS" --threads 1,2 --json /tmp/gtod.json || {
	echo "FAILED: bench/gtod (all paths): a path had failed calls, see above"
	fail=1
}
frame gtod /tmp/gtod.json

# Whole runs of the main paths against each other: process start and exit
# are in every run alike, the loop is 2*10^6 calls. The first command is
# the reference, the stock vDSO gettimeofday.
echo
echo "== hyperfine: whole bench/gtod runs, one path each (2000000 calls); reference stock-vdso-gtod"
hf=""
for p in stock-vdso-gtod tod-vdso-gtod stock-vdso-cgt tod-vdso-cgt tod-syscall-cgt; do
	if $G --path "$p" --iters 1 --rounds 1 >/tmp/probe.txt 2>&1; then
		hf="$hf $p"
	else
		echo "FAILED: hyperfine probe of $p (bench/gtod --path $p --iters 1 --rounds 1):"
		sed 's/^/  /' /tmp/probe.txt
		fail=1
	fi
done
# shellcheck disable=SC2086 # $hf is a list of path names without spaces
set -- $hf
cmds=""
for p in "$@"; do
	cmds="$cmds|$G --path $p --iters 2000000 --rounds 1"
done
if [ "$i386" = 1 ] && ! command -v hyperfine >/dev/null; then
	echo "skipped: no hyperfine in the i386 guest (an amd64 package in the x86-64 guest only)"
elif ! command -v hyperfine >/dev/null; then
	echo "FAILED: no hyperfine in the guest (the initramfs installs it: run 'make deps initramfs')"
	fail=1
elif [ -n "$cmds" ]; then
	rm -f /tmp/hyperfine.json
	if ! (
		IFS='|'
		# shellcheck disable=SC2086 # split on | into one argument per command
		hyperfine -N --style basic --warmup 1 --runs "${HF_RUNS:-5}" --export-json /tmp/hyperfine.json ${cmds#|}
	); then
		echo "FAILED: hyperfine (a command failed, see above)"
		fail=1
	fi
	frame hyperfine /tmp/hyperfine.json
fi

# The tod paths on every timesource of the new core, switched through sysfs
# in this boot. Where the stock kernel has the same counter as a clocksource
# (tsc, hpet, acpi_pm), the stock clocksource is switched to it too and the
# stock paths run in the same process, interleaved: each cross-core ratio on
# a source comes from one process (on hpet and acpi_pm the stock vDSO makes
# the system call itself).
TOD_PATHS="tod-vdso-gtod,tod-vdso-cgt,tod-vdso-coarse,tod-syscall-cgt"
STOCK_PATHS="stock-vdso-gtod,stock-vdso-cgt,stock-syscall-cgt"
if [ -d "$TS" ]; then
	read -r avail <"$TS/available_timesource"
	read -r stock_avail <"$CS/available_clocksource"
	for s in $avail; do
		echo "$s" >"$TS/current_timesource"
		paths=$TOD_PATHS
		with="stock clocksource $orig_cs"
		case " $stock_avail " in
		*" $s "*)
			echo "$s" >"$CS/current_clocksource"
			paths="$paths,$STOCK_PATHS"
			with="stock clocksource $s, stock paths in the same process"
			;;
		esac
		echo
		echo "== timesource $s ($with)"
		rm -f "/tmp/gtod-ts-$s.json"
		$G --path "$paths" --iters "$ITERS" --rounds "$ROUNDS" --json "/tmp/gtod-ts-$s.json" || {
			echo "FAILED: bench/gtod on timesource $s: a path had failed calls, see above"
			fail=1
		}
		frame "gtod-ts-$s" "/tmp/gtod-ts-$s.json"
		restore
	done
fi

# The kernel side: how long each write section holds readers, and what the
# tick and adjtimex cost, the core's beside the stock timekeeper's, with
# both on the same counter (bench/sections: every CPU busy so the tick
# runs, adjtimex 500 times a second on each clock); then how often a vDSO
# reader of each page had to wait or retry (bench/retries: a reader per
# CPU, the same adjtimex load).
kernel_side() { # PROGRAM SOURCE TITLE: run /bench/PROGRAM, frame its JSON as PROGRAM-SOURCE
	echo
	echo "== $3"
	rm -f "/tmp/$1-$2.json"
	"/bench/$1" --secs "${SECTION_SECS:-3}" --json "/tmp/$1-$2.json" || {
		echo "FAILED: bench/$1 on $2 (see above)"
		fail=1
	}
	frame "$1-$2" "/tmp/$1-$2.json"
}
if [ -d "$TS" ]; then
	for s in tsc hpet acpi_pm; do
		case " $avail " in *" $s "*) ;; *) continue ;; esac
		case " $stock_avail " in *" $s "*) ;; *) continue ;; esac
		echo "$s" >"$TS/current_timesource"
		echo "$s" >"$CS/current_clocksource"
		sleep 1
		kernel_side sections "$s" "write sections on $s (timesource and clocksource)"
		kernel_side retries "$s" "vDSO reads that waited or retried on $s (2 readers, the same adjtimex load)"
		restore
	done
fi

# Syscalls per call, counted by the raw_syscalls tracepoint, less a
# baseline run of the same path making no calls (the process's own start,
# threads and exit): 0 for a path that stays in user space, 1 for a system
# call path. A vDSO path above 0.001 fails.
echo
echo "== perf stat: syscalls per call (raw_syscalls:sys_enter, less a run with no calls)"
if [ "$i386" = 1 ] && ! command -v perf >/dev/null; then
	echo "skipped: no perf in the i386 guest (an amd64 package in the x86-64 guest only;"
	echo "make test's i386 boots count the vDSO's system calls on the same tracepoint: tod_vdso syscalls)"
	[ "$fail" = 0 ] || echo "make bench: FAILED paths above; their figures are not timings"
	exit "$fail"
fi
n=100000
calls=$((n + n / 100 + 1)) # the timed loop and its warm-up
perf_count() { # PATH ITERS -> the syscalls of one run
	rm -f /tmp/perf.csv
	if ! perf stat -x, -e raw_syscalls:sys_enter -o /tmp/perf.csv $G --path "$1" --iters "$2" --rounds 1 >/dev/null; then
		echo "perf stat of bench/gtod --path $1 --iters $2 failed (see above)" >&2
		return 1
	fi
	c=$(awk -F, '$3 ~ /raw_syscalls:sys_enter/ { print $1 }' /tmp/perf.csv)
	case "$c" in
	'' | *[!0-9]*)
		echo "perf did not count raw_syscalls:sys_enter for $1: '$c' (is tracefs mounted?)" >&2
		return 1
		;;
	esac
	echo "$c"
}
printf '{"calls": %d, "paths": [' "$calls" >/tmp/perf.json
sep=""
for p in stock-vdso-gtod stock-vdso-cgt stock-syscall-gtod tod-vdso-gtod tod-vdso-cgt tod-vdso-gtod-ntp \
	tod-vdso-coarse tod-stock-vdso-cgt tod-glibc-cgt tod-syscall-cgt; do
	if ! base=$(perf_count "$p" 0) || ! sc=$(perf_count "$p" "$n"); then
		echo "  $p: FAILED (perf stat)"
		printf '%s\n  {"name": "%s", "syscalls": 0, "baseline": 0, "ok": false}' "$sep" "$p" >>/tmp/perf.json
		sep=","
		fail=1
		continue
	fi
	case "$p" in
	*syscall*) want=1 ;;
	*) want=0 ;;
	esac
	verdict=$(awk -v sc="$sc" -v b="$base" -v c="$calls" -v w="$want" 'BEGIN {
		x = (sc - b) / c
		if (w == 0) print (x <= 0.001 ? "ok" : "FAILED (a vDSO path above 0.001)")
		else print (x >= 0.99 && x <= 1.01 ? "ok" : "FAILED (a system call path not at 1)") }')
	awk -v p="$p" -v sc="$sc" -v b="$base" -v c="$calls" -v v="$verdict" \
		'BEGIN { printf "  %-20s %8d - %5d baseline for %d calls: %.4f per call  %s\n", p, sc, b, c, (sc - b) / c, v }'
	printf '%s\n  {"name": "%s", "syscalls": %d, "baseline": %d, "ok": %s}' "$sep" "$p" "$sc" "$base" \
		"$([ "$verdict" = ok ] && echo true || echo false)" >>/tmp/perf.json
	sep=","
	[ "$verdict" = ok ] || fail=1
done
printf '\n]}\n' >>/tmp/perf.json
frame perf /tmp/perf.json
[ "$fail" = 0 ] || echo "make bench: FAILED paths above; their figures are not timings"
exit "$fail"
