/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtod: read the new timeofday core's clocks from user space.
 *
 * The vDSO entry points __vdso_tod_gettimeofday and __vdso_tod_clock_gettime
 * (version LINUX_2.6) are looked up once, through getauxval(AT_SYSINFO_EHDR),
 * which works in static binaries too. When the kernel does not export them,
 * the calls fall back to the system call; on a kernel without the new core
 * at all, tod_clock_gettime() then fails as clock_gettime() does (EINVAL)
 * for the CLOCK_TOD_* ids, and works for the stock ids.
 */
#ifndef NEWTOD_TOD_H
#define NEWTOD_TOD_H

#include <sys/time.h>
#include <time.h>

#define CLOCK_TOD_REALTIME		12
#define CLOCK_TOD_MONOTONIC		13
#define CLOCK_TOD_REALTIME_COARSE	14
#define CLOCK_TOD_MONOTONIC_COARSE	15

/* clock_gettime() for any clock id; returns 0 or -1 with errno set. */
int tod_clock_gettime(clockid_t clk, struct timespec *ts);
/* gettimeofday() of the new core (CLOCK_TOD_REALTIME); 0 or -1 with errno. */
int tod_gettimeofday(struct timeval *tv, struct timezone *tz);
/* 1 if the calls go through the vDSO, 0 if they fall back to the syscall. */
int tod_have_vdso(void);

#endif
