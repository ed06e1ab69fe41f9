// SPDX-License-Identifier: GPL-2.0
/*
 * tod_vdso: the vDSO entries under test, the tod clock ids, the CPUs, the
 * core's sysfs files and the arguments, for all cases (tod_vdso.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tod_vdso.h"

/* kselftest.h's plan and counts, for every file (see tod_vdso.h) */
struct ksft_count tod_vdso_ksft_count;
unsigned int tod_vdso_ksft_planned;

/* The entries under test (tod_vdso.h), set by need_vdso() */
gtod_fn vt_gtod;
cgt_fn vt_cgt, vs_cgt, vs_getres;

const struct tod_clock tods[] = {
	{ CLOCK_TOD_REALTIME, "CLOCK_TOD_REALTIME" },
	{ CLOCK_TOD_MONOTONIC, "CLOCK_TOD_MONOTONIC" },
	{ CLOCK_TOD_REALTIME_COARSE, "CLOCK_TOD_REALTIME_COARSE" },
	{ CLOCK_TOD_MONOTONIC_COARSE, "CLOCK_TOD_MONOTONIC_COARSE" },
};

int cpus[CPU_SETSIZE], ncpus;

/* The CPUs we may run on, in order; per-CPU checks pin to each in turn. */
void find_cpus(void)
{
	cpu_set_t set;
	int c;

	if (sched_getaffinity(0, sizeof(set), &set))
		ksft_exit_fail_msg("sched_getaffinity: %s\n", strerror(errno));
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
}

/*
 * Switch the core to NAME: 0, or -errno of the write. Not tod_set_source():
 * the write alone, so that timing it times the switch, and so that the
 * callers that check the result read current_timesource themselves.
 */
int set_source(const char *name)
{
	return tod_sysfs_write("current_timesource", name);
}

/* Current and available timesources; the case fails without them. */
void need_sysfs(char *cur, size_t clen, char *avail, size_t alen)
{
	if (tod_sysfs_read("current_timesource", cur, clen) ||
	    tod_sysfs_read("available_timesource", avail, alen))
		ksft_exit_fail_msg("no " TOD_SYSFS ": is this the kernel with CONFIG_NEWTOD?\n");
	ksft_print_msg("timesource: %s (available: %s)\n", cur, avail);
}

void show_source(void)
{
	char cur[64];

	if (!tod_sysfs_read("current_timesource", cur, sizeof(cur)))
		ksft_print_msg("timesource: %s\n", cur);
}

#ifdef __i386__
/* The kernel's struct old_timespec32, and the entries that take it. */
struct old_timespec32 {
	int32_t tv_sec;
	int32_t tv_nsec;
};

typedef int (*cgt32_fn)(clockid_t, struct old_timespec32 *);
static cgt32_fn vs_cgt32_raw, vs_getres32_raw;
cgt_fn vs_cgt32;

static int from_ts32(int ret, const struct old_timespec32 *o, struct timespec *ts)
{
	if (!ret && ts) {
		ts->tv_sec = o->tv_sec;
		ts->tv_nsec = o->tv_nsec;
	}
	return ret;
}

/* (o starts as garbage: an entry that returns 0 without writing it shows) */
static int vs_cgt32_call(clockid_t clk, struct timespec *ts)
{
	struct old_timespec32 o;

	memset(&o, 0xff, sizeof(o));
	return from_ts32(vs_cgt32_raw(clk, &o), &o, ts);
}

static int vs_getres32_call(clockid_t clk, struct timespec *ts)
{
	struct old_timespec32 o;

	memset(&o, 0xff, sizeof(o));
	return from_ts32(vs_getres32_raw(clk, ts ? &o : NULL), &o, ts);
}
#endif

/* Resolve the entries under test; the kernel under test must have them. */
void need_vdso(void)
{
	vt_gtod = (gtod_fn)tod_vdso_sym("__vdso_tod_gettimeofday");
	vt_cgt = (cgt_fn)tod_vdso_sym("__vdso_tod_clock_gettime");
#ifdef __i386__
	vs_cgt = (cgt_fn)tod_vdso_sym("__vdso_clock_gettime64");
	vs_cgt32_raw = (cgt32_fn)tod_vdso_sym("__vdso_clock_gettime");
	vs_getres32_raw = (cgt32_fn)tod_vdso_sym("__vdso_clock_getres");
	vs_cgt32 = vs_cgt32_raw ? vs_cgt32_call : NULL;
	vs_getres = vs_getres32_raw ? vs_getres32_call : NULL;
	if (!vs_cgt32)
		ksft_exit_fail_msg("the vDSO does not export __vdso_clock_gettime\n");
#else
	vs_cgt = (cgt_fn)tod_vdso_sym("__vdso_clock_gettime");
	vs_getres = (cgt_fn)tod_vdso_sym("__vdso_clock_getres");
#endif
	if (!tod_vdso_available() || !vt_gtod || !vt_cgt)
		ksft_exit_fail_msg("the vDSO does not export __vdso_tod_gettimeofday and __vdso_tod_clock_gettime (LINUX_2.6): not the kernel under test?\n");
	if (!vs_cgt || !vs_getres)
		ksft_exit_fail_msg("the vDSO does not export %s and __vdso_clock_getres\n",
				   VS_CGT_NAME + 6);
}

/* The rest of the plan cannot run here: skipped, which is not a pass. */
void skip_rest(const char *why)
{
	while (ksft_test_num() < ksft_plan)
		ksft_test_result_skip("%s\n", why);
}

long arg_long(int argc, char **argv, int i, long def, long min, long max)
{
	char *end;
	long v;

	if (i >= argc)
		return def;
	errno = 0;
	v = strtol(argv[i], &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "tod_vdso %s: argument '%s' must be an integer in %ld..%ld\n",
			argv[1], argv[i], min, max);
		exit(2);
	}
	return v;
}
