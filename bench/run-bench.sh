#!/bin/sh
# Guest side of 'make bench': one boot, every path interleaved over rounds.
# Raw figures are framed by @@JSON-BEGIN/@@JSON-END so the host can save them.
set -eu
G=/bench/gtod
ITERS=${ITERS:-200000}
ROUNDS=${ROUNDS:-7}

echo "== bench/gtod: $(uname -r), clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
$G --iters "$ITERS" --rounds "$ROUNDS" --json /tmp/gtod-1t.json
echo
$G --iters "$ITERS" --rounds "$ROUNDS" --threads 2 --json /tmp/gtod-2t.json
for f in gtod-1t gtod-2t; do
	echo "@@JSON-BEGIN $f"
	cat "/tmp/$f.json"
	echo "@@JSON-END"
done

# Syscalls per call, counted by the raw_syscalls tracepoint: 0 for a vDSO
# path that stays in user space, 1 for a system call path.
echo
echo "== perf stat: syscalls per call (raw_syscalls:sys_enter / calls)"
n=100000
for p in stock-vdso-gtod stock-vdso-cgt stock-syscall-gtod tod-vdso-gtod tod-vdso-cgt tod-stock-vdso-cgt tod-glibc-cgt tod-syscall-cgt; do
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
