#!/bin/sh
# Guest side of 'make bench': one boot, every path interleaved over rounds
# in a shuffled order. Raw figures are framed by @@JSON-BEGIN/@@JSON-END so
# the host can save them. Every ratio the summary prints comes from one
# process. A failed path (a call that returned an error, a hyperfine probe
# that failed, a vDSO path that makes system calls) is reported and makes
# this script exit 1 after everything else has run.
set -eu
G=/bench/gtod
ITERS=${ITERS:-200000}
ROUNDS=${ROUNDS:-15}
fail=0

frame() { # NAME FILE: send FILE to the host as NAME.json
	echo "@@JSON-BEGIN $1"
	cat "$2"
	echo "@@JSON-END"
}

echo "== bench/gtod: $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# Every path at 1 and at 2 threads, interleaved in every round.
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
if [ -n "$cmds" ]; then
	(
		IFS='|'
		# shellcheck disable=SC2086 # split on | into one argument per command
		hyperfine -N --style basic --warmup 1 --runs "${HF_RUNS:-5}" --export-json /tmp/hyperfine.json ${cmds#|}
	)
	frame hyperfine /tmp/hyperfine.json
fi

# The tod paths on every timesource of the new core, switched through sysfs
# in this boot. Where the stock kernel has the same counter as a clocksource
# (tsc, hpet, acpi_pm), the stock clocksource is switched to it too and the
# stock paths run in the same process, interleaved: each cross-core ratio on
# a source comes from one process (on hpet and acpi_pm the stock vDSO makes
# the system call itself).
TS=/sys/devices/system/timesource/timesource0
CS=/sys/devices/system/clocksource/clocksource0
TOD_PATHS="tod-vdso-gtod,tod-vdso-cgt,tod-vdso-coarse,tod-syscall-cgt"
STOCK_PATHS="stock-vdso-gtod,stock-vdso-cgt,stock-syscall-cgt"
if [ -d "$TS" ]; then
	orig=$(cat "$TS/current_timesource")
	stock=$(cat "$CS/current_clocksource")
	read -r avail <"$TS/available_timesource"
	for s in $avail; do
		echo "$s" >"$TS/current_timesource"
		paths=$TOD_PATHS
		with="stock clocksource $stock"
		if grep -qw "$s" "$CS/available_clocksource"; then
			echo "$s" >"$CS/current_clocksource"
			paths="$paths,$STOCK_PATHS"
			with="stock clocksource $s, stock paths in the same process"
		fi
		echo
		echo "== timesource $s ($with)"
		$G --path "$paths" --iters "$ITERS" --rounds "$ROUNDS" --json "/tmp/gtod-ts-$s.json" || {
			echo "FAILED: bench/gtod on timesource $s: a path had failed calls, see above"
			fail=1
		}
		frame "gtod-ts-$s" "/tmp/gtod-ts-$s.json"
		echo "$stock" >"$CS/current_clocksource"
	done
	echo "$orig" >"$TS/current_timesource"
fi

# Syscalls per call, counted by the raw_syscalls tracepoint, less a
# baseline run of the same path making no calls (the process's own start,
# threads and exit): 0 for a path that stays in user space, 1 for a system
# call path. A vDSO path above 0.001 fails.
echo
echo "== perf stat: syscalls per call (raw_syscalls:sys_enter, less a run with no calls)"
n=100000
calls=$((n + n / 100 + 1)) # the timed loop and its warm-up
perf_count() { # PATH ITERS -> the syscalls of one run
	perf stat -x, -e raw_syscalls:sys_enter -o /tmp/perf.csv $G --path "$1" --iters "$2" --rounds 1 >/dev/null
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
	base=$(perf_count "$p" 0) || exit 1
	sc=$(perf_count "$p" "$n") || exit 1
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
