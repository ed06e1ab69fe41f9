/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtod: read the clocks of the new timeofday core from user space.
 *
 * The kernel's vDSO exports __vdso_tod_gettimeofday and
 * __vdso_tod_clock_gettime (version node LINUX_2.6). They are looked up once,
 * on the first call, through getauxval(AT_SYSINFO_EHDR) and the kernel's
 * reference vDSO parser, which works in static binaries (dlsym does not).
 * When the kernel does not export them the calls fall back to the system
 * call, so a program linked with libtod still runs on a stock kernel: there
 * the CLOCK_TOD_* ids fail with EINVAL, exactly as clock_gettime() does.
 *
 * All functions follow the libc convention: 0, or -1 with errno set.
 */
#ifndef NEWTOD_TOD_H
#define NEWTOD_TOD_H

#include <sys/time.h>
#include <time.h>

#define CLOCK_TOD_REALTIME		12
#define CLOCK_TOD_MONOTONIC		13
#define CLOCK_TOD_REALTIME_COARSE	14
#define CLOCK_TOD_MONOTONIC_COARSE	15

/*
 * gettimeofday() of the new core: tv from CLOCK_TOD_REALTIME (microseconds,
 * truncated), tz the kernel's time zone as gettimeofday(2) reports it.
 * Either pointer may be NULL.
 */
int tod_gettimeofday(struct timeval *tv, struct timezone *tz);

/*
 * clock_gettime() for the CLOCK_TOD_* ids through the vDSO. Any other id is
 * passed to the clock_gettime system call unchanged: this library reads the
 * new core's clocks and is no replacement for libc's clock_gettime().
 */
int tod_clock_gettime(clockid_t clk, struct timespec *ts);

/* 1 if the vDSO exports the tod entry points libtod uses (calls make no
 * syscall of their own), 0 if the calls fall back to the system call. On
 * 32-bit x86 that is __vdso_tod_clock_gettime alone: gettimeofday is
 * derived from it there (see tod.c). */
int tod_vdso_available(void);

/*
 * The address of the vDSO symbol NAME of version LINUX_2.6, or NULL. For
 * tests and benchmarks that must call an entry point directly; the entry
 * points return 0 or a negative errno, they do not set errno.
 */
void *tod_vdso_sym(const char *name);

#endif
