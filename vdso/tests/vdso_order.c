// SPDX-License-Identifier: GPL-2.0
/*
 * vdso_order: the vDSO agrees with the system call it replaces.
 *
 * For CLOCK_REALTIME, CLOCK_MONOTONIC and gettimeofday(), on every CPU in
 * turn, read syscall, vDSO, syscall interleaved and require
 *     syscall <= vDSO <= syscall
 * every time. Any inversion means the vDSO and the kernel disagree about the
 * time (a stale vvar page, a wrong mult/shift, a missing clamp).
 *
 * The vDSO is found through getauxval(AT_SYSINFO_EHDR) and the kernel's own
 * parse_vdso.c, which work in a static binary (dlopen does not).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "parse_vdso.h"
#include "kselftest.h"
#include "todtest.h"

static long iters = 100000;

/* Returns the number of inversions; prints the first one. */
static long check_cgt(cgt_fn vcgt, clockid_t clk)
{
	struct timespec a, v, b;
	long bad = 0, i;

	for (i = 0; i < iters; i++) {
		int ret = 0;

		if (syscall(TOD_SYS_clock_gettime, clk, &a) || (ret = vcgt(clk, &v)) ||
		    syscall(TOD_SYS_clock_gettime, clk, &b)) {
			/* the vDSO returns -errno; the syscall wrapper sets errno */
			ksft_print_msg("clock_gettime(%d) failed: %s\n", clk,
				       strerror(ret ? -ret : errno));
			return iters;
		}
		if (ts_ns(&a) > ts_ns(&v) || ts_ns(&v) > ts_ns(&b)) {
			if (!bad++)
				ksft_print_msg("inversion at %ld: syscall %lld vdso %lld syscall %lld\n",
					       i, (long long)ts_ns(&a), (long long)ts_ns(&v),
					       (long long)ts_ns(&b));
		}
	}
	return bad;
}

static long check_gtod(gtod_fn vgtod)
{
	struct kernel_old_timeval a, v, b;
	long bad = 0, i;

	for (i = 0; i < iters; i++) {
		int ret = 0;

		if (syscall(SYS_gettimeofday, &a, NULL) || (ret = vgtod(&v, NULL)) ||
		    syscall(SYS_gettimeofday, &b, NULL)) {
			ksft_print_msg("gettimeofday failed: %s\n", strerror(ret ? -ret : errno));
			return iters;
		}
		if (tv_us(&a) > tv_us(&v) || tv_us(&v) > tv_us(&b)) {
			if (!bad++)
				ksft_print_msg("inversion at %ld: syscall %lld vdso %lld syscall %lld us\n",
					       i, (long long)tv_us(&a), (long long)tv_us(&v),
					       (long long)tv_us(&b));
		}
	}
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);
	char cs[64] = "";
	cpu_set_t all;
	cgt_fn vcgt;
	gtod_fn vgtod;
	int cpu, ncpu;
	FILE *f;

	if (argc > 1)
		iters = strtol(argv[1], NULL, 0);
	if (sched_getaffinity(0, sizeof(all), &all))
		ksft_exit_fail_msg("sched_getaffinity: %s\n", strerror(errno));
	ncpu = CPU_COUNT(&all);
	if (iters <= 0) {
		fprintf(stderr, "usage: %s [iterations > 0]\n", argv[0]);
		return 2;
	}

	ksft_print_header();
	ksft_set_plan(3 + 3 * ncpu);

	/* Only a clocksource the vDSO can read exercises the fast path. */
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
	if (f) {
		if (!fgets(cs, sizeof(cs), f))
			cs[0] = 0;
		fclose(f);
	}
	cs[strcspn(cs, "\n")] = 0;
	ksft_test_result(!strcmp(cs, "tsc"), "clocksource is '%s': tsc, which the vDSO reads\n", cs);

	if (!base)
		ksft_exit_fail_msg("no vDSO: AT_SYSINFO_EHDR is not in the auxiliary vector\n");
	vdso_init_from_sysinfo_ehdr(base);
	vcgt = (cgt_fn)vdso_sym("LINUX_2.6", "__vdso_clock_gettime");
	vgtod = (gtod_fn)vdso_sym("LINUX_2.6", "__vdso_gettimeofday");
	ksft_test_result(vcgt != NULL, "vDSO exports __vdso_clock_gettime\n");
	ksft_test_result(vgtod != NULL, "vDSO exports __vdso_gettimeofday\n");
	if (!vcgt || !vgtod)
		ksft_exit_fail_msg("vDSO symbols missing; cannot compare\n");

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		long bad;

		if (!CPU_ISSET(cpu, &all))
			continue;
		if (pin_cpu(cpu))
			ksft_exit_fail_msg("sched_setaffinity(cpu %d): %s\n", cpu, strerror(errno));
		bad = check_cgt(vcgt, CLOCK_REALTIME);
		ksft_test_result(!bad, "cpu%d CLOCK_REALTIME syscall<=vdso<=syscall x%ld (%ld inversions)\n",
				 cpu, iters, bad);
		bad = check_cgt(vcgt, CLOCK_MONOTONIC);
		ksft_test_result(!bad, "cpu%d CLOCK_MONOTONIC syscall<=vdso<=syscall x%ld (%ld inversions)\n",
				 cpu, iters, bad);
		bad = check_gtod(vgtod);
		ksft_test_result(!bad, "cpu%d gettimeofday syscall<=vdso<=syscall x%ld (%ld inversions)\n",
				 cpu, iters, bad);
	}
	ksft_finished();
}
