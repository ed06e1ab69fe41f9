#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# idle-wakeups.sh - timer expiries of an idle guest, and the core's share
#
# Run in the guest (busybox sh), from the host:
#
#	make run EXTRA=bench CMD='sh /extra/idle-wakeups.sh [SECS [SOURCE...]]'
#
# For each SOURCE (default: tsc hpet acpi_pm) the core and the stock
# clocksource are put on it, the guest idles SECS seconds (default 60)
# while tracefs records every hrtimer expiry and local timer interrupt,
# and one line is printed:
#
#	IDLE SOURCE SECS s: N local timer interrupts, M hrtimer expiries,
#	K of them tod_safety_fn (P %); most frequent: ...
#
# On a kernel without the core (make kernel-base; boot it with
# KOUT=build/kbuild-base scripts/qemu.sh --job run --extra bench --cmd ...)
# only the stock clocksource is switched, and the line says "(no core)":
# stock's own count. An expiry of the core's timer that wakes the CPU is
# not traced (the tick it restarts accumulates and sets the timer again
# first): compare the local timer interrupts.
#
# It idles: run nothing else in the guest meanwhile. The figures are
# QEMU TCG's, whose timer interrupts are not hardware's; compare kernels
# in one session, not the counts across machines.
set -eu

secs=${1:-60}
[ "$#" -gt 0 ] && shift
[ "$#" -gt 0 ] || set -- tsc hpet acpi_pm
T=/sys/kernel/tracing
TOD=/sys/devices/system/timesource/timesource0/current_timesource
STOCK=/sys/devices/system/clocksource/clocksource0/current_clocksource

die() {
	echo "idle-wakeups: $*" >&2
	exit 1
}

case $secs in
'' | *[!0-9]*) die "SECS must be a number of seconds, not '$secs'" ;;
esac
[ -d "$T/events" ] || mount -t tracefs nodev "$T" ||
	die "cannot mount tracefs on $T: is CONFIG_FTRACE in the kernel?"
core=1
if [ ! -e "$TOD" ]; then
	# a kernel without the core (make kernel-base): stock's own count
	core=0
	echo "idle-wakeups: no $TOD: a kernel without the timeofday core; the stock clocksource only" >&2
fi
[ "$core" = 0 ] || [ -w "$TOD" ] || die "$TOD is not writable: run as root"
[ -e "$T/events/timer/hrtimer_expire_entry/enable" ] ||
	die "no timer:hrtimer_expire_entry event in $T: the kernel needs CONFIG_FTRACE's trace events"

for src in "$@"; do
	if [ "$core" = 1 ]; then
		echo "$src" >"$TOD" || die "the core cannot switch to $src (available: $(cat "${TOD%/*}/available_timesource"))"
	fi
	echo "$src" >"$STOCK" || die "stock cannot switch to $src"
	sleep 2
	echo 0 >"$T/tracing_on"
	: >"$T/trace"
	echo 1 >"$T/events/timer/hrtimer_expire_entry/enable"
	lt=0
	if [ -e "$T/events/irq_vectors/local_timer_entry/enable" ]; then
		echo 1 >"$T/events/irq_vectors/local_timer_entry/enable"
		lt=1
	fi
	echo 1 >"$T/tracing_on"
	sleep "$secs"
	echo 0 >"$T/tracing_on"
	echo 0 >"$T/events/timer/hrtimer_expire_entry/enable"
	[ "$lt" = 0 ] || echo 0 >"$T/events/irq_vectors/local_timer_entry/enable"
	grep hrtimer_expire_entry "$T/trace" | sed 's/.*function=\([^ ]*\).*/\1/' >/tmp/idle-fns || true
	total=$(wc -l </tmp/idle-fns)
	tod=$(grep -c '^tod_safety_fn$' /tmp/idle-fns || true)
	ints=$(grep -c local_timer_entry "$T/trace" || true)
	[ "$total" -gt 0 ] || die "no hrtimer expiry traced on $src in $secs s: is tracing working?"
	top=$(sort /tmp/idle-fns | uniq -c | sort -rn | head -n 5 | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1 }')
	if [ "$core" = 1 ]; then
		echo "IDLE $src $secs s: $ints local timer interrupts, $total hrtimer expiries, $tod of them tod_safety_fn ($((100 * tod / total)) %); most frequent: $top"
	else
		echo "IDLE $src $secs s (no core): $ints local timer interrupts, $total hrtimer expiries; most frequent: $top"
	fi
done
