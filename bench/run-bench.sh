#!/bin/sh
# Guest side of 'make bench': one boot, every path interleaved over rounds.
# Raw figures are framed by @@JSON-BEGIN/@@JSON-END so the host can save them.
set -eu
G=/bench/gtod
ITERS=${ITERS:-200000}
ROUNDS=${ROUNDS:-15}

echo "== bench/gtod: $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# Every path at 1 and at 2 threads, interleaved in every round.
$G --iters "$ITERS" --rounds "$ROUNDS" --threads 1,2 --json /tmp/gtod.json
echo "@@JSON-BEGIN gtod"
cat /tmp/gtod.json
echo "@@JSON-END"

# Whole runs of the main paths against each other: process start and exit
# are in every run alike, the loop is 2*10^6 calls.
echo
echo "== hyperfine: whole bench/gtod runs, one path each (2000000 calls)"
hf=""
for p in tod-vdso-gtod stock-vdso-gtod tod-vdso-cgt stock-vdso-cgt tod-syscall-cgt; do
	if $G --path "$p" --iters 1 --rounds 1 >/dev/null 2>&1; then
		hf="$hf $p"
	fi
done
# shellcheck disable=SC2086 # $hf is a list of path names without spaces
set -- $hf
cmds=""
for p in "$@"; do
	cmds="$cmds|$G --path $p --iters 2000000 --rounds 1"
done
(
	IFS='|'
	# shellcheck disable=SC2086 # split on | into one argument per command
	hyperfine -N --style basic --warmup 1 --runs "${HF_RUNS:-5}" --export-json /tmp/hyperfine.json ${cmds#|}
)
echo "@@JSON-BEGIN hyperfine"
cat /tmp/hyperfine.json
echo "@@JSON-END"

# The tod paths on every timesource of the new core, switched through sysfs
# in this boot; then the stock paths with the stock clocksource on the HPET,
# where the stock vDSO falls back to the system call on every call.
TS=/sys/devices/system/timesource/timesource0
CS=/sys/devices/system/clocksource/clocksource0
TOD_PATHS=tod-vdso-gtod,tod-vdso-cgt,tod-vdso-coarse,tod-syscall-cgt
if [ -d "$TS" ]; then
	orig=$(cat "$TS/current_timesource")
	read -r avail <"$TS/available_timesource"
	for s in $avail; do
		echo "$s" >"$TS/current_timesource"
		echo
		echo "== tod paths, timesource $s"
		$G --path "$TOD_PATHS" --iters "$ITERS" --rounds "$ROUNDS" --json "/tmp/gtod-ts-$s.json"
		echo "@@JSON-BEGIN gtod-ts-$s"
		cat "/tmp/gtod-ts-$s.json"
		echo "@@JSON-END"
	done
	echo "$orig" >"$TS/current_timesource"
fi
if grep -qw hpet "$CS/available_clocksource"; then
	stock=$(cat "$CS/current_clocksource")
	echo hpet >"$CS/current_clocksource"
	echo
	echo "== stock paths, stock clocksource hpet"
	$G --path stock-vdso-gtod,stock-vdso-cgt,stock-syscall-cgt --iters "$ITERS" --rounds "$ROUNDS" \
		--json /tmp/gtod-cs-hpet.json
	echo "@@JSON-BEGIN gtod-cs-hpet"
	cat /tmp/gtod-cs-hpet.json
	echo "@@JSON-END"
	echo "$stock" >"$CS/current_clocksource"
fi

# Syscalls per call, counted by the raw_syscalls tracepoint: 0 for a vDSO
# path that stays in user space, 1 for a system call path.
echo
echo "== perf stat: syscalls per call (raw_syscalls:sys_enter / calls)"
n=100000
for p in stock-vdso-gtod stock-vdso-cgt stock-syscall-gtod tod-vdso-gtod tod-vdso-cgt tod-vdso-gtod-ntp \
	tod-vdso-coarse tod-stock-vdso-cgt tod-glibc-cgt tod-syscall-cgt; do
	perf stat -x, -e task-clock,raw_syscalls:sys_enter -o /tmp/perf.csv \
		$G --path "$p" --iters "$n" --rounds 1 >/dev/null
	sc=$(awk -F, '$3 ~ /raw_syscalls:sys_enter/ { print $1 }' /tmp/perf.csv)
	case "$sc" in
	'' | *[!0-9]*)
		echo "perf did not count raw_syscalls:sys_enter for $p: '$sc' (is tracefs mounted?)" >&2
		exit 1
		;;
	esac
	awk -v p="$p" -v sc="$sc" -v n="$n" \
		'BEGIN { printf "  %-20s %10s syscalls for %d calls (+ warm-up): %.3f per call\n", p, sc, n * 1.01, sc / (n * 1.01) }'
done
