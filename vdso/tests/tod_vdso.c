// SPDX-License-Identifier: GPL-2.0
/*
 * tod_vdso: the vDSO fast path of the new timeofday core, case by case.
 *
 * One case per run, picked by the command line, so that the harness runs
 * each case in the boots (timesource= choices) where it means something:
 *
 *   order [N]          on every CPU, N interleaved readings
 *                      syscall <= vDSO <= syscall for gettimeofday and the
 *                      four CLOCK_TOD_* ids: zero inversions
 *   xthread [N] [S]    two threads on two CPUs hand readings of tod
 *                      MONOTONIC and REALTIME to each other (ping-pong); a
 *                      reading taken after the hand-over is never older
 *                      than the one handed over: zero inversions
 *   agree [S]          tod REALTIME within 1 ms of the stock CLOCK_REALTIME
 *                      in 25 samples (on jiffies the closest within 1 ms
 *                      behind and 0.1 ms ahead, the farthest within two
 *                      ticks + 1 ms behind; a closest too far behind
 *                      takes up to 20 windows of 25 when the window shows
 *                      a late tick, as a busy host can hold a tick late);
 *                      tod entry, stock vDSO entry and glibc inside a
 *                      syscall sandwich for each id; rate over S seconds
 *                      within 0.1 ppm of CLOCK_MONOTONIC_RAW, more for a coarse
 *                      counter (tod_rate_limit_ppm())
 *   syscalls zero|one [K]  syscalls made by K calls of every entry, counted
 *                      on the raw_syscalls:sys_enter tracepoint: exactly 0
 *                      (TSC, HPET) or exactly K (acpi_pm, pit, jiffies)
 *   getres             vDSO clock_getres of the four ids equals the
 *                      syscall's and is > 0
 *   y2038              CLOCK_TOD_REALTIME set to 2^31 - 4 s and read
 *                      for 6 s through every entry in turn: no step back,
 *                      none ahead of the elapsed time by 1 us, past 2^31
 *                      at the end; on i386 the 32-bit timespec entry
 *                      truncates as the legacy syscall does; the clock is
 *                      put back after
 *   timens             in time namespaces (BOOTTIME +1000 s, then -1000 s
 *                      or as far back as the boot allows; MONOTONIC +500
 *                      s) the tod monotonic clocks move by the BOOTTIME
 *                      offset, by vDSO and syscall, and the realtime ones
 *                      do not (and nothing hangs)
 *   switch [S] [MS]    readers on every CPU, by vDSO and system call in
 *                      turn, while current_timesource
 *                      rotates every MS ms for S seconds: no inversion, no
 *                      jump beyond the real elapsed time + 1 us + the
 *                      coarsest source's resolution
 *   hpetpage           the tod HPET page (vvar + 5 pages) is readable, and
 *                      counts at the period the HPET reports, while the
 *                      HPET is the current source; it raises SIGBUS
 *                      otherwise
 *   hpetrevoke [NPROC [timens]]
 *                      leaving the HPET unmaps its page everywhere:
 *                      splitting [vvar] is refused; after the switch away,
 *                      a process that moved its [vvar] with mremap, the
 *                      children of a fork storm across the switch, a
 *                      process whose vfork child switched, and NPROC idle
 *                      processes (3 switches, timed) get SIGBUS reading it;
 *                      with timens, all of it from a new time namespace
 *   publish [S]        readers on every CPU, by vDSO and system call in
 *                      turn, while adjtimex flips the tod tick length
 *                      between 9000 and 11000 us (-10 %, +10 %) every 2
 *                      ms for S seconds, each change published 1 ms after
 *                      it was computed (a debugfs hook): no reading steps
 *                      back
 *   query              a query of adjtimex (modes 0, ADJ_OFFSET_SS_READ)
 *                      leaves the core's page alone: its sequence count
 *                      moves in at most 1 call in 10 (a tick), where a
 *                      change moves it in every call; a tick among
 *                      changes made one after the other (1 s) publishes
 *                      nothing, as stock's, but where the process did not
 *                      run for half a tick or more
 *   lib                libtod (tod.h) found the tod vDSO entries
 *                      (tod_vdso_available()), reads every id that exists
 *                      (the four tod ids included) inside a syscall
 *                      sandwich, and fails on id 16 as the syscall does
 *
 * The cases that call the vDSO call its entries directly, and fail when the
 * kernel does not export them: the kernel under test must. 'lib' calls
 * them through libtod, and fails on a stock kernel too (libtod's fallback
 * works there, but the tod ids do not).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "tod_vdso.h"

/* --- main ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(int argc, char **argv);
	const char *args;
} cases[] = {
	{ "order", case_order, "[N]" },
	{ "xthread", case_xthread, "[N] [MAX_SECONDS]" },
	{ "agree", case_agree, "[SECONDS]" },
	{ "syscalls", case_syscalls, "zero|one [K]" },
	{ "getres", case_getres, "" },
	{ "y2038", case_y2038, "" },
	{ "timens", case_timens, "" },
	{ "switch", case_switch, "[SECONDS] [PERIOD_MS]" },
	{ "hpetpage", case_hpetpage, "" },
	{ "hpetrevoke", case_hpetrevoke, "[NPROC [timens]]" },
	{ "publish", case_publish, "[SECONDS]" },
	{ "query", case_query, "" },
	{ "lib", case_lib, "" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: tod_vdso CASE [ARGS]   (the cases and their rules are at the top of tod_vdso.c)\n");
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		fprintf(f, "  tod_vdso %s %s\n", cases[i].name, cases[i].args);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (strcmp(argv[1], cases[i].name))
			continue;
		find_cpus();
		ksft_print_header();
		cases[i].fn(argc, argv);
		ksft_finished();
	}
	fprintf(stderr, "tod_vdso: unknown case '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
