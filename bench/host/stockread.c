// SPDX-License-Identifier: GPL-2.0
/*
 * stockread.c - the stock kernel's vDSO clock_gettime() reader, run on the
 * host's own CPU beside the timeofday core's (todread.c), so that
 * make bench-host compares reader against reader, both compiled the same
 * way, rather than the tod reader against this host's vDSO through glibc
 * (another kernel's reader, plus glibc's wrapper).
 *
 * build/linux/lib/vdso/gettimeofday.c (unchanged by the series) is
 * included as it is; what the kernel's vDSO build gives it is provided
 * here as the x86-64 kernel of the guest has it: struct vdso_data of
 * <vdso/datapage.h> (CONFIG_GENERIC_VDSO_OVERFLOW_PROTECT, so with
 * max_cycles), CONFIG_TIME_NS, and x86's hooks of
 * arch/x86/include/asm/vdso/gettimeofday.h at the tree's base:
 * __arch_get_hw_counter() (the TSC: rdtsc_ordered() & S64_MAX),
 * arch_vdso_cycles_ok() and x86's vdso_calc_ns(), reproduced below line for
 * line. The headers the reader includes from the kernel, compiled as they
 * are: <vdso/helpers.h> (vdso_read_begin/retry, vdso_write_begin/end, which
 * the writer uses too), <vdso/math64.h>, <vdso/clocksource.h>,
 * <vdso/processor.h>, <vdso/bits.h>, <vdso/limits.h>.
 *
 * The page is written by todread.c's writer thread through stock_publish(),
 * as kernel/time/vsyscall.c's update_vsyscall() writes it: odd sequence
 * counts, clock mode, cycle_last, max_cycles, mask, mult, shift, the
 * CLOCK_REALTIME and CLOCK_MONOTONIC bases as {sec, nsec << shift}, even
 * counts. A read that would fall back to the system call is counted
 * (stock_fallbacks) and fails todread's check.
 */
#include <stdbool.h>
#include <stdint.h>
#include <errno.h>
#include <time.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <linux/time_types.h>

#include "stockread.h"

/* Headers replaced here (their guards, so that including them is a no-op) */
#define __VDSO_DATAPAGE_H
#define __ASM_VDSO_GETTIMEOFDAY_H

/* the guest kernel's options that lib/vdso tests, beside kernel-compat.h's */
#define CONFIG_GENERIC_GETTIMEOFDAY		1
#define CONFIG_GENERIC_VDSO_OVERFLOW_PROTECT	1

#include "kernel-compat.h"

#include <vdso/bits.h>
#include <vdso/limits.h>
#include <vdso/clocksource.h>
#include <vdso/math64.h>
#include <vdso/processor.h>

/* <linux/limits.h>, <uapi/linux/time.h>, <vdso/ktime.h> */
#define U64_MAX			((u64)~0ULL)
#define S64_MAX			((s64)(U64_MAX >> 1))
#define MAX_CLOCKS		16
#define LOW_RES_NSEC		(1000000000L / 250)	/* TICK_NSEC at the guest's HZ */

/* <vdso/datapage.h> */
#define VDSO_BASES	(CLOCK_TAI + 1)
#define VDSO_HRES	(BIT(CLOCK_REALTIME) | BIT(CLOCK_MONOTONIC) | \
			 BIT(CLOCK_BOOTTIME) | BIT(CLOCK_TAI))
#define VDSO_COARSE	(BIT(CLOCK_REALTIME_COARSE) | BIT(CLOCK_MONOTONIC_COARSE))
#define VDSO_RAW	(BIT(CLOCK_MONOTONIC_RAW))
#define CS_HRES_COARSE	0
#define CS_RAW		1
#define CS_BASES	(CS_RAW + 1)

struct vdso_timestamp {
	u64	sec;
	u64	nsec;
};

struct timens_offset {
	s64	sec;
	u64	nsec;
};

struct vdso_data {
	u32			seq;
	s32			clock_mode;
	u64			cycle_last;
	u64			max_cycles;
	u64			mask;
	u32			mult;
	u32			shift;
	union {
		struct vdso_timestamp	basetime[VDSO_BASES];
		struct timens_offset	offset[VDSO_BASES];
	};
	s32			tz_minuteswest;
	s32			tz_dsttime;
	u32			hrtimer_res;
	u32			__unused;
};

/* The vvar page: the data at offset 128, as DECLARE_VVAR(128, ...) puts it */
static union {
	u8 page[PAGE_SIZE];
	struct {
		u8 pad[128];
		struct vdso_data vd[CS_BASES];
	} v;
} stock_vvar __aligned(PAGE_SIZE);

long stock_fallbacks;

/* <asm/vdso/gettimeofday.h> of the base tree, x86-64, no pvclock or Hyper-V clock */
static __always_inline long clock_gettime_fallback(clockid_t clock, struct __kernel_timespec *ts)
{
	__atomic_add_fetch(&stock_fallbacks, 1, __ATOMIC_RELAXED);
	return syscall(SYS_clock_gettime, clock, ts) ? -errno : 0;
}

static __always_inline long gettimeofday_fallback(struct __kernel_old_timeval *tv,
						  struct timezone *tz)
{
	__atomic_add_fetch(&stock_fallbacks, 1, __ATOMIC_RELAXED);
	return syscall(SYS_gettimeofday, tv, tz) ? -errno : 0;
}

static __always_inline const struct vdso_data *__arch_get_vdso_data(void)
{
	return stock_vvar.v.vd;
}

static __always_inline const struct vdso_data *__arch_get_timens_vdso_data(const struct vdso_data *vd)
{
	return vd;	/* no time namespace here: the reader never takes that path */
}

static inline u64 __arch_get_hw_counter(s32 clock_mode, const struct vdso_data *vd __maybe_unused)
{
	if (likely(clock_mode == VDSO_CLOCKMODE_TSC))
		return (u64)rdtsc_ordered() & S64_MAX;
	return U64_MAX;
}

static inline bool arch_vdso_clocksource_ok(const struct vdso_data *vd __maybe_unused)
{
	return true;
}
#define vdso_clocksource_ok arch_vdso_clocksource_ok

static inline bool arch_vdso_cycles_ok(u64 cycles)
{
	return (s64)cycles >= 0;
}
#define vdso_cycles_ok arch_vdso_cycles_ok

static __always_inline u64 vdso_calc_ns(const struct vdso_data *vd, u64 cycles, u64 base)
{
	u64 delta = cycles - vd->cycle_last;

	if (unlikely(delta > vd->max_cycles)) {
		if (delta & (1ULL << 62))
			return base >> vd->shift;
		return mul_u64_u32_add_u64_shr(delta & S64_MAX, vd->mult, base, vd->shift);
	}
	return ((delta * vd->mult) + base) >> vd->shift;
}
#define vdso_calc_ns vdso_calc_ns

/* The stock reader (-iquote KSRC/lib/vdso) */
#include "gettimeofday.c"

/* __vdso_clock_gettime() of arch/x86/entry/vdso/vclock_gettime.c */
int stock_clock_gettime(clockid_t clock, struct __kernel_timespec *ts)
{
	return __cvdso_clock_gettime(clock, ts);
}

/* update_vsyscall() and update_vdso_data() of kernel/time/vsyscall.c */
void stock_publish(const struct stock_state *s)
{
	struct vdso_data *vd = stock_vvar.v.vd;

	vdso_write_begin(vd);
	vd[CS_HRES_COARSE].clock_mode = VDSO_CLOCKMODE_TSC;
	vd[CS_RAW].clock_mode = VDSO_CLOCKMODE_TSC;
	vd[CS_HRES_COARSE].cycle_last = s->cycle_last;
	vd[CS_HRES_COARSE].max_cycles = s->max_cycles;
	vd[CS_HRES_COARSE].mask = s->mask;
	vd[CS_HRES_COARSE].mult = s->mult;
	vd[CS_HRES_COARSE].shift = s->shift;
	vd[CS_HRES_COARSE].basetime[CLOCK_REALTIME].sec = s->wall_sec;
	vd[CS_HRES_COARSE].basetime[CLOCK_REALTIME].nsec = s->wall_nsec_shifted;
	vd[CS_HRES_COARSE].basetime[CLOCK_MONOTONIC].sec = s->mono_sec;
	vd[CS_HRES_COARSE].basetime[CLOCK_MONOTONIC].nsec = s->mono_nsec_shifted;
	vd[CS_HRES_COARSE].hrtimer_res = 1;
	vdso_write_end(vd);
}
