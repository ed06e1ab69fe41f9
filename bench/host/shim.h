/* SPDX-License-Identifier: GPL-2.0 */
/*
 * shim.h - what the x86 vDSO reader of the timeofday core needs from the
 * kernel, provided in user space, so that todread.c can compile the
 * reader itself: build/linux/arch/x86/entry/vdso/vtod_gettime.c and
 * build/linux/include/vdso/tod.h, both included unmodified.
 *
 * The reader's headers are found through the compiler's search path, set
 * by the Makefile (target bench-host):
 *
 *	-iquote KSRC/arch/x86/entry/vdso		"vtod_gettime.c", "extable.h"
 *	-idirafter KSRC/include			<vdso/...>
 *	-idirafter KSRC/arch/x86/include	<asm/barrier.h>, <asm/vdso/...>
 *
 * -idirafter puts the kernel's directories after the system ones, so glibc
 * keeps its own <linux/...> (uapi) headers. Of the headers the reader
 * includes, these are the kernel's own, compiled as they are:
 *
 *	<vdso/tod.h>		the page layout, tod_vdso_read_begin/retry()
 *	<vdso/math64.h>		__iter_div_u64_rem(), mul_u64_u32_add_u64_shr()
 *				(its 128-bit form, as in the x86-64 kernel:
 *				CONFIG_ARCH_SUPPORTS_INT128 below)
 *	<vdso/processor.h>	cpu_relax() (rep; nop), via <asm/vdso/processor.h>
 *
 * and these are replaced by this file: their include guards are defined
 * here, so that including them is a no-op, and what the reader takes from
 * them is defined below (should a guard ever be renamed, the real header
 * comes in and the build fails loudly, it does not go wrong quietly):
 *
 *	<linux/time.h>		(uapi; clashes with glibc's <time.h>) CLOCK_TOD_*
 *	<vdso/datapage.h>	the whole vDSO datapage; the reader needs only
 *				rdtsc_ordered(), clock_gettime_syscall(),
 *				tod_vdso_clockid() (from <asm/vdso/gettimeofday.h>),
 *				and for its time namespace path the stock
 *				page's offsets (zero here: no namespace)
 *	<vdso/gettime.h>	prototypes of the stock __vdso_* entry points
 *	<asm/barrier.h>		x86 alternatives; smp_rmb()/smp_wmb() are
 *				barrier() on x86-64 (TSO), as kernel-compat.h
 *				(shared with stockread.c) defines them
 *	<linux/build_bug.h>	static_assert(), as C11's _Static_assert
 *	"extable.h"		the vDSO exception table (see below)
 *
 * The exception table: vtod_gettime.c reads the HPET through an asm
 * statement with a vDSO exception-table entry, so that a fault on the HPET
 * page (unmapped after a switch away from the HPET) becomes a system call.
 * User space has no such fixup, so _ASM_VDSO_EXTABLE_HANDLE() is empty
 * here: the HPET branch compiles (against a zeroed tod_hpet_page that
 * todread.c provides) but is never taken, since the writer in todread.c
 * publishes TOD_VCLOCK_TSC only. The TSC path is the kernel's, unchanged.
 *
 * The including file provides the data page (tod_page), tod_hpet_page, and
 * must have included <time.h>, <sys/time.h> and <linux/time_types.h>.
 */
#ifndef NEWTOD_BENCH_HOST_SHIM_H
#define NEWTOD_BENCH_HOST_SHIM_H

#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/time_types.h>	/* struct __kernel_timespec, __kernel_old_timeval */

/* Headers replaced by this file (see above). */
#define _LINUX_TIME_H
#define __VDSO_DATAPAGE_H
#define _VDSO_GETTIME_H
#define __VDSO_EXTABLE_H
#define _LINUX_BUILD_BUG_H

#include <stddef.h>		/* offsetof */
#define static_assert(expr, ...)	_Static_assert(expr, #expr)
#include "kernel-compat.h"
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))

/* <uapi/linux/time.h> of the patched tree: fixed ABI (design.md, "User-visible interface") */
#define CLOCK_TOD_REALTIME		12
#define CLOCK_TOD_MONOTONIC		13
#define CLOCK_TOD_REALTIME_COARSE	14
#define CLOCK_TOD_MONOTONIC_COARSE	15

/* "extable.h": no exception fixup in user space */
#define _ASM_VDSO_EXTABLE_HANDLE(from, to)	""

/* <vdso/datapage.h>: the stock page, for its time namespace offsets (none here) */
#define CS_HRES_COARSE		0
#define VDSO_BASES		2
struct timens_offset {
	s64 sec;
	u64 nsec;
};

struct vdso_data {
	struct timens_offset offset[16];
};

static const struct vdso_data shim_vdso_data[VDSO_BASES];

static __always_inline const struct vdso_data *__arch_get_vdso_data(void)
{
	return shim_vdso_data;
}

/* <asm/vdso/gettimeofday.h> */
static __always_inline long clock_gettime_syscall(clockid_t clock, struct __kernel_timespec *ts)
{
	long ret = syscall(SYS_clock_gettime, clock, ts);

	return ret ? -errno : 0;
}

static __always_inline bool tod_vdso_clockid(clockid_t clock)
{
	return (u32)clock - CLOCK_TOD_REALTIME < 4;
}

/*
 * <vdso/gettime.h>: the stock entry points, which vtod_gettime.c calls for
 * the clocks that are not its own; here they are glibc's.
 */
static inline int __vdso_clock_gettime(clockid_t clock, struct __kernel_timespec *ts)
{
	struct timespec t;

	if (clock_gettime(clock, &t))
		return -errno;
	ts->tv_sec = t.tv_sec;
	ts->tv_nsec = t.tv_nsec;
	return 0;
}

static inline int __vdso_gettimeofday(struct __kernel_old_timeval *tv, struct timezone *tz)
{
	struct timeval t;

	if (gettimeofday(&t, tz))
		return -errno;
	if (tv) {
		tv->tv_sec = t.tv_sec;
		tv->tv_usec = t.tv_usec;
	}
	return 0;
}

#endif /* NEWTOD_BENCH_HOST_SHIM_H */
