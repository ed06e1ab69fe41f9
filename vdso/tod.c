// SPDX-License-Identifier: GPL-2.0
/*
 * libtod: the new timeofday core's clocks through the vDSO, with the system
 * call as fallback. See tod.h for the interface.
 *
 * The vDSO symbols are resolved once under pthread_once(): parse_vdso.c's
 * init function is not thread-safe (vdso_sym() is, once init is done), and
 * pthread_once() also orders the stores of the function pointers before
 * every later call that returns from it, so the pointers need no atomics.
 * After the first call the cost of pthread_once() is one acquire load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "parse_vdso.h"
#include "tod.h"

/*
 * On 32-bit x86 libtod needs a 64-bit time_t (-D_TIME_BITS=64): struct
 * timespec is then the kernel's __kernel_timespec, which both
 * __vdso_tod_clock_gettime and the clock_gettime64 system call take.
 */
#ifdef __i386__
#ifndef __USE_TIME_BITS64
#error "libtod on 32-bit x86 needs a 64-bit time_t: build with -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64"
#endif
#define SYS_tod_clock_gettime	SYS_clock_gettime64
#else
#define SYS_tod_clock_gettime	SYS_clock_gettime
#endif

/*
 * __vdso_tod_gettimeofday writes the kernel's struct __kernel_old_timeval,
 * two longs: that is struct timeval only where time_t is a long too (not
 * on 32-bit x86 with a 64-bit time_t, where gettimeofday is derived from
 * the clock_gettime entry, as the C library derives it).
 */
#define TIMEVAL_IS_OLD	(sizeof(((struct timeval *)0)->tv_sec) == sizeof(long))

typedef int (*gtod_fn)(struct timeval *, struct timezone *);
typedef int (*cgt_fn)(clockid_t, struct timespec *);

static pthread_once_t resolved = PTHREAD_ONCE_INIT;
static int have_vdso;		/* AT_SYSINFO_EHDR was there and parsed */
static gtod_fn vdso_gtod;
static cgt_fn vdso_cgt;

static void resolve(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);

	if (!base)
		return;		/* no vDSO at all (vdso=0): syscalls only */
	vdso_init_from_sysinfo_ehdr(base);
	have_vdso = 1;
	if (TIMEVAL_IS_OLD)
		vdso_gtod = (gtod_fn)vdso_sym("LINUX_2.6", "__vdso_tod_gettimeofday");
	vdso_cgt = (cgt_fn)vdso_sym("LINUX_2.6", "__vdso_tod_clock_gettime");
}

static int is_tod_clock(clockid_t clk)
{
	return clk >= CLOCK_TOD_REALTIME && clk <= CLOCK_TOD_MONOTONIC_COARSE;
}

/* The vDSO entries return -errno like the raw syscall; libc sets errno. */
static int from_vdso(int ret)
{
	if (ret < 0) {
		errno = -ret;
		return -1;
	}
	return 0;
}

int tod_vdso_available(void)
{
	pthread_once(&resolved, resolve);
	return vdso_cgt && (vdso_gtod || !TIMEVAL_IS_OLD);
}

void *tod_vdso_sym(const char *name)
{
	pthread_once(&resolved, resolve);
	return have_vdso ? vdso_sym("LINUX_2.6", name) : NULL;
}

int tod_clock_gettime(clockid_t clk, struct timespec *ts)
{
	/*
	 * Only the tod ids go to the tod entry: what it does with the ids it
	 * does not own is the kernel's business, the syscall's answer is not.
	 */
	if (is_tod_clock(clk)) {
		pthread_once(&resolved, resolve);
		if (vdso_cgt)
			return from_vdso(vdso_cgt(clk, ts));
	}
	return syscall(SYS_tod_clock_gettime, clk, ts);
}

int tod_gettimeofday(struct timeval *tv, struct timezone *tz)
{
	struct timespec ts;

	pthread_once(&resolved, resolve);
	if (vdso_gtod)
		return from_vdso(vdso_gtod(tv, tz));

	/*
	 * No gettimeofday entry of the right layout. SYS_gettimeofday would
	 * report the stock clock, not the new core's, so the time comes from
	 * CLOCK_TOD_REALTIME (the vDSO's if it has one, truncated to
	 * microseconds, as the kernel's gettimeofday truncates); the time zone
	 * is not a property of either clock and comes from the stock call,
	 * asked only when wanted.
	 */
	if (tv) {
		if (tod_clock_gettime(CLOCK_TOD_REALTIME, &ts))
			return -1;
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = ts.tv_nsec / 1000;
	}
	if (tz && syscall(SYS_gettimeofday, NULL, tz))
		return -1;
	return 0;
}
