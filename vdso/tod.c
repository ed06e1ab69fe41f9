// SPDX-License-Identifier: GPL-2.0
/*
 * libtod: the new timeofday core's clocks through the vDSO, with the
 * system call as fallback. See tod.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "parse_vdso.h"
#include "tod.h"

typedef int (*cgt_fn)(clockid_t, struct timespec *);
typedef int (*gtod_fn)(struct timeval *, struct timezone *);

static cgt_fn vdso_cgt;
static gtod_fn vdso_gtod;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	unsigned long base = getauxval(AT_SYSINFO_EHDR);

	if (!base)
		return;
	vdso_init_from_sysinfo_ehdr(base);
	vdso_cgt = (cgt_fn)vdso_sym("LINUX_2.6", "__vdso_tod_clock_gettime");
	vdso_gtod = (gtod_fn)vdso_sym("LINUX_2.6", "__vdso_tod_gettimeofday");
}

int tod_have_vdso(void)
{
	pthread_once(&once, resolve);
	return vdso_cgt && vdso_gtod;
}

int tod_clock_gettime(clockid_t clk, struct timespec *ts)
{
	int ret;

	pthread_once(&once, resolve);
	if (vdso_cgt) {
		/* the vDSO returns -errno rather than setting errno */
		ret = vdso_cgt(clk, ts);
		if (ret < 0) {
			errno = -ret;
			return -1;
		}
		return ret;
	}
	return syscall(SYS_clock_gettime, clk, ts);
}

int tod_gettimeofday(struct timeval *tv, struct timezone *tz)
{
	struct timespec ts;
	int ret;

	pthread_once(&once, resolve);
	if (vdso_gtod) {
		ret = vdso_gtod(tv, tz);
		if (ret < 0) {
			errno = -ret;
			return -1;
		}
		return ret;
	}
	if (tz) {
		/* the time zone is the stock kernel's, as gettimeofday() reports it */
		struct timeval dummy;

		if (syscall(SYS_gettimeofday, &dummy, tz))
			return -1;
	}
	if (!tv)
		return 0;
	ret = syscall(SYS_clock_gettime, CLOCK_TOD_REALTIME, &ts);
	if (ret)
		return ret;
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}
