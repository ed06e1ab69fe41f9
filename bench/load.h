/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The load bench/sections and bench/retries run under: their shared
 * command line and the adjtimex loop that makes both clocks write.
 */
#ifndef NEWTOD_BENCH_LOAD_H
#define NEWTOD_BENCH_LOAD_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "tod.h"

/*
 * Parse "[--secs S] [--json FILE]" into *secs (default 3, at least 1) and
 * *json (default NULL). Returns 0, or 2 (the exit status for a usage
 * error) after saying what was wrong, prefixed by prog.
 */
static inline int load_args(int argc, char **argv, const char *prog, int *secs, const char **json)
{
	int i;

	*secs = 3;
	*json = NULL;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--secs") && i + 1 < argc) {
			*secs = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--json") && i + 1 < argc) {
			*json = argv[++i];
		} else {
			fprintf(stderr, "usage: %s [--secs S] [--json FILE]\n", prog);
			return 2;
		}
	}
	if (*secs < 1) {
		fprintf(stderr, "%s: --secs must be at least 1\n", prog);
		return 2;
	}
	return 0;
}

/* ADJ_FREQUENCY with the frequency clock c already has: 0 or -errno */
static inline int load_same_freq(clockid_t c)
{
	struct timex tx = { 0 };

	/* (the C library's clock_adjtime: on i386 it takes the 64-bit struct timex to clock_adjtime64) */
	if (clock_adjtime(c, &tx) < 0)
		return -errno;
	tx.modes = ADJ_FREQUENCY;
	return clock_adjtime(c, &tx) < 0 ? -errno : 0;
}

/*
 * For secs seconds, clock_adjtime(ADJ_FREQUENCY) with the frequency each
 * clock has, on CLOCK_TOD_REALTIME and CLOCK_REALTIME in turn, about 500
 * times a second each: both timekeepers take the adjtimex write path at
 * the same rate. Counts the calls in *calls and the failed ones in
 * *errors; the first failure is printed, prefixed by prog.
 */
static inline void load_adjtimex(const char *prog, int secs, long *calls, long *errors)
{
	struct timespec t0, t;
	clockid_t c;
	int ret;

	*calls = *errors = 0;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t0);
	do {
		c = *calls & 1 ? CLOCK_REALTIME : CLOCK_TOD_REALTIME;
		ret = load_same_freq(c);
		if (ret && !(*errors)++)
			fprintf(stderr, "%s: clock_adjtime(%s, ADJ_FREQUENCY): %s\n", prog,
				c == CLOCK_REALTIME ? "CLOCK_REALTIME" : "CLOCK_TOD_REALTIME",
				strerror(-ret));
		(*calls)++;
		usleep(1000);
		clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
}

#endif
