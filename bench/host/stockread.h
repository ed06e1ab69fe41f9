/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stockread.h - the stock vDSO reader of stockread.c, as todread.c calls
 * and feeds it.
 */
#ifndef NEWTOD_BENCH_HOST_STOCKREAD_H
#define NEWTOD_BENCH_HOST_STOCKREAD_H

#include <stdint.h>
#include <time.h>
#include <linux/time_types.h>

/* What update_vsyscall() takes from the timekeeper, for the TSC */
struct stock_state {
	uint64_t cycle_last, max_cycles, mask;
	uint32_t mult, shift;
	uint64_t wall_sec, wall_nsec_shifted;	/* tk->xtime_sec, tkr_mono.xtime_nsec */
	uint64_t mono_sec, mono_nsec_shifted;
};

/* __vdso_clock_gettime(): lib/vdso/gettimeofday.c's __cvdso_clock_gettime() */
int stock_clock_gettime(clockid_t clock, struct __kernel_timespec *ts);

/* update_vsyscall(): the page between vdso_write_begin() and vdso_write_end() */
void stock_publish(const struct stock_state *s);

/* reads that fell back to the system call */
extern long stock_fallbacks;

#endif /* NEWTOD_BENCH_HOST_STOCKREAD_H */
