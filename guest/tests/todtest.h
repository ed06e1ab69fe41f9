/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the guest tests of the new timeofday core: the clock
 * ids, time conversions, reading a clock through the system call,
 * sandwiched readings of one clock between two of another,
 * clock_adjtime(), dropping CAP_SYS_TIME, pinning to a CPU, small file
 * reads and writes, and the core's sysfs directory.
 *
 * One copy of each: a private copy in a test drifts apart from the others
 * (an error return of -1 here, -errno there) without anyone noticing.
 */
#ifndef NEWTOD_TODTEST_H
#define NEWTOD_TODTEST_H

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#define CLOCK_TOD_REALTIME		12
#define CLOCK_TOD_MONOTONIC		13
#define CLOCK_TOD_REALTIME_COARSE	14
#define CLOCK_TOD_MONOTONIC_COARSE	15
#ifndef TOD_SYSFS		/* -DTOD_SYSFS=... points a test at another tree */
#define TOD_SYSFS "/sys/devices/system/timesource/timesource0/"
#endif

/*
 * The system calls that take the kernel's 64-bit time structures. A 32-bit
 * x86 test is built with 64-bit time_t (-D_TIME_BITS=64), where struct
 * timespec and struct timex are the kernel's __kernel_timespec and
 * __kernel_timex: those are what the *_time64 calls take, the plain ones
 * take the old 32-bit layouts.
 */
#ifdef __i386__
#ifndef __USE_TIME_BITS64
#error "32-bit tests need a 64-bit time_t: build them with -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64"
#endif
#define TOD_SYS_clock_gettime	SYS_clock_gettime64
#define TOD_SYS_clock_getres	SYS_clock_getres_time64
#define TOD_SYS_clock_adjtime	SYS_clock_adjtime64
#define TOD_SYS_clock_settime	SYS_clock_settime64
#define TOD_SYS_clock_nanosleep	SYS_clock_nanosleep_time64
#else
#define TOD_SYS_clock_gettime	SYS_clock_gettime
#define TOD_SYS_clock_getres	SYS_clock_getres
#define TOD_SYS_clock_adjtime	SYS_clock_adjtime
#define TOD_SYS_clock_settime	SYS_clock_settime
#define TOD_SYS_clock_nanosleep	SYS_clock_nanosleep
#endif

/*
 * What gettimeofday() writes in the kernel (its system call and every vDSO
 * entry): struct __kernel_old_timeval, two longs, whatever the program's
 * time_t. On x86-64 it is struct timeval; on 32-bit x86 it is not.
 */
struct kernel_old_timeval {
	long tv_sec;
	long tv_usec;
};

/* A vDSO clock_gettime or gettimeofday entry: 0 or -errno (errno untouched). */
typedef int (*cgt_fn)(clockid_t, struct timespec *);
typedef int (*gtod_fn)(struct kernel_old_timeval *, struct timezone *);

/* A timespec in ns. */
static inline int64_t ts_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* ns as a timespec; tv_nsec is in [0, 1e9) for a negative NS too. */
static inline struct timespec ns_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += 1000000000;
	}
	return ts;
}

/* A gettimeofday() result from the kernel or the vDSO, in us. */
static inline int64_t tv_us(const struct kernel_old_timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

/* A struct timeval (libc's, libtod's) in us. */
static inline int64_t timeval_us(const struct timeval *tv)
{
	return (int64_t)tv->tv_sec * 1000000 + tv->tv_usec;
}

/*
 * The stock CLOCK_MONOTONIC_RAW through glibc (the stock vDSO), in ns: the
 * real elapsed time, against which the tests time the tod clocks.
 */
static inline int64_t raw_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts_ns(&ts);
}

/*
 * clock_adjtime() through the system call: the clock state (TIME_OK ...),
 * or -1 with errno set.
 */
static inline int adj(clockid_t c, struct timex *tx)
{
	return syscall(TOD_SYS_clock_adjtime, c, tx);
}

/* clock_gettime through the system call, in ns; -1 on error */
static inline int64_t ns_of(clockid_t c)
{
	struct timespec ts;

	if (syscall(TOD_SYS_clock_gettime, c, &ts))
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * One reading of clock inner between two of clock outer, all by system
 * call (a dynamic posix clock id works too): the narrowest of 8 such
 * sandwiches is kept, so a syscall delayed by the emulator does not pass
 * for a rate or offset error. *mid is outer's midpoint, *val inner's
 * reading.
 *
 * Return: the kept sandwich's width in ns (the reading's error is at most
 * half of it).
 */
static inline int64_t bracket(clockid_t outer, clockid_t inner, int64_t *mid, int64_t *val)
{
	int64_t best = INT64_MAX, a, t, b;
	int i;

	*mid = *val = 0;
	for (i = 0; i < 8; i++) {
		a = ns_of(outer);
		t = ns_of(inner);
		b = ns_of(outer);
		if (b - a < best) {
			best = b - a;
			*mid = a + (b - a) / 2;
			*val = t;
		}
	}
	return best;
}

/* One reading of CLOCK_TOD_MONOTONIC against CLOCK_MONOTONIC_RAW. */
static inline void sample(int64_t *raw, int64_t *tod)
{
	bracket(CLOCK_MONOTONIC_RAW, CLOCK_TOD_MONOTONIC, raw, tod);
}

/* Drop CAP_SYS_TIME from this process (effective and permitted). */
static inline int drop_cap_sys_time(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_SYS_TIME / 32].effective &= ~(1u << (CAP_SYS_TIME % 32));
	d[CAP_SYS_TIME / 32].permitted &= ~(1u << (CAP_SYS_TIME % 32));
	return syscall(SYS_capset, &h, d);
}

/* Write s to path; 0 or -errno. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* Run the calling thread on CPU only: 0 or -1 (errno set). */
static inline int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The first line of PATH, without its newline, into BUF: 0 or -errno. */
static inline int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* 1 if NAME is one of the space-separated words of LIST. */
static inline int in_word_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = list; (p = strstr(p, name)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == 0 || p[n] == ' '))
			return 1;
	return 0;
}

/* The first line of the core's sysfs FILE (in TOD_SYSFS) into BUF: 0 or -errno. */
static inline int tod_sysfs_read(const char *file, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), TOD_SYSFS "%s", file);
	return read_line(path, buf, len);
}

/* Write VAL to the core's sysfs FILE (in TOD_SYSFS): 0 or -errno. */
static inline int tod_sysfs_write(const char *file, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), TOD_SYSFS "%s", file);
	return write_file(path, val);
}

/* Make NAME the core's timesource and check that it is: 0 or -errno. */
static inline int tod_set_source(const char *name)
{
	char now[64];
	int ret = write_file(TOD_SYSFS "current_timesource", name);

	if (ret)
		return ret;
	if (read_line(TOD_SYSFS "current_timesource", now, sizeof(now)))
		return -EIO;
	return strcmp(now, name) ? -EAGAIN : 0;
}

/*
 * The limit on a tod clock's rate against CLOCK_MONOTONIC_RAW with the stock
 * clocksource on the same counter (stock_clocksource_like()): tod_core,
 * tod_vdso agree, tod_hotplug. What is left is the core's arithmetic and
 * the error of two narrowest-of-8 brackets over the run.
 *
 * 0.1 ppm: the worst seen is +0.022 ppm (pit, stock on the HPET, agree
 * over 10 s, 2026-12-05), of 14 figures in 7 runs, 4-10 s each:
 * tod_core on x86-64 and i386 (tsc, hpet, acpi_pm, pit: at most 0.006),
 * tod_vdso agree (tsc, hpet, acpi_pm, pit) and tod_hotplug (default and
 * debug kernels, 4 s segments, at most 0.01). The larger figures
 * seen (-0.40, -0.46 ppm; -0.78 in the switch storm; +21 in
 * one boot) had the stock clocks on another counter, where the guest's
 * calibration of one oscillator against the other is what they measure.
 * Over 5 s, 0.1 ppm is 0.5 us of bracket error; the old limit was 10.
 */
#define TOD_RATE_PPM	0.1

/*
 * The limit for a rate measured over secs seconds on the current source:
 * TOD_RATE_PPM, plus what the source's own step can put in two readings
 * (clock_getres() of CLOCK_TOD_MONOTONIC each; the PIT's 838 ns is 0.34 ppm
 * over 5 s, a TSC's 1 ns nothing). A tick source (getres of a millisecond
 * or more) has no rate to compare: its limit is TOD_RATE_PPM.
 */
static inline double tod_rate_limit_ppm(double secs)
{
	struct timespec ts;

	if (secs <= 0 || syscall(TOD_SYS_clock_getres, CLOCK_TOD_MONOTONIC, &ts) ||
	    ts.tv_sec || ts.tv_nsec >= 1000000)
		return TOD_RATE_PPM;
	return TOD_RATE_PPM + 2e-3 * (double)ts.tv_nsec / secs;
}

/*
 * A source that moves once per tick (jiffies) read against a continuous
 * stock clock: a window of samples 1.7 ms apart (every phase of a tick)
 * lags by up to a tick, and by more while ticks come late; its closest
 * sample shows the core's own offset only when the window's ticks came on
 * time. Under TCG on a busy host every tick of a window can come late by
 * the same amount, which shifts the whole window and does not widen it (a
 * CI run: closest -1.40 ms, farthest -3.88 ms, a 4 ms tick, where the
 * windows of every other run were within -0.09 to -0.68 ms), so a window's
 * spread cannot tell a late window from an offset. Stock's own tick can:
 * stock's coarse clocks are updated by the same tick, so the least of
 * CLOCK_MONOTONIC - CLOCK_MONOTONIC_COARSE over the window
 * (stock_tick_lag(), each sample) is how late that window's ticks were.
 *
 * tick_window_done() is called after window w of windows with its closest
 * and farthest samples (ns, negative behind), the farthest of all windows
 * so far, and stock's least tick lag in the window; it returns 1 when the
 * caller stops: the window passed, it was the last, the farthest already
 * failed, or the closest is farther behind than stock's tick lag explains
 * (an offset of the core: no retry). Otherwise, a late window, it says so,
 * waits 200 ms and returns 0: another window, up to TICK_WINDOWS (about
 * 5 s), and the caller's limits on the farthest sample (in every window)
 * and on a sample ahead (in the last) still hold.
 */
#define TICK_WINDOWS 20

/* Stock's tick lag now: CLOCK_MONOTONIC - CLOCK_MONOTONIC_COARSE, ns (never negative). */
static inline int64_t stock_tick_lag(void)
{
	struct timespec c, f;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &c);
	clock_gettime(CLOCK_MONOTONIC, &f);
	return ts_ns(&f) - ts_ns(&c);
}

static inline int tick_window_done(int w, int windows, int64_t closest, int64_t farthest,
				   int64_t farthest_all, int64_t tick, int64_t behind_lim,
				   int64_t stock_lag)
{
	if (closest >= -behind_lim || w >= windows || farthest_all < -2 * tick - behind_lim)
		return 1;
	if (-closest - stock_lag > behind_lim) {
		printf("# tick source, window %d: closest %+lld ns, more than %lld behind, and stock's own tick was at most %lld ns late: an offset of the core, no retry\n",
		       w, (long long)closest, (long long)behind_lim, (long long)stock_lag);
		return 1;
	}
	printf("# tick source, window %d of up to %d: closest %+lld ns, more than %lld behind, with stock's own tick %lld ns late (farthest %+lld): a late window, the next in 200 ms\n",
	       w, windows, (long long)closest, (long long)behind_lim, (long long)stock_lag,
	       (long long)farthest);
	fflush(stdout);
	usleep(200000);
	return 0;
}

/*
 * A debug kernel (the "debug" and "kcsan" boots: PROVE_LOCKING, which makes
 * /proc/lockdep): several times slower under TCG, so a check whose figure
 * is a duration may have a limit of its own there.
 */
static inline int tod_debug_kernel(void)
{
	return access("/proc/lockdep", F_OK) == 0;
}

#define STOCK_CLOCKSOURCE "/sys/devices/system/clocksource/clocksource0/current_clocksource"

/*
 * The stock clocksource that counts what the tod source NAME counts: the
 * same name, but for the PIT, which stock registers only where it is the
 * tick: a PC divides the PIT's and the HPET's clocks from one 14.31818 MHz
 * crystal, and QEMU counts both on its virtual clock.
 */
static inline const char *stock_counterpart(const char *name)
{
	return strcmp(name, "pit") ? name : "hpet";
}

/*
 * Make the stock timekeeping count the same hardware counter as the tod
 * source NAME (stock_counterpart()), so that comparing the two cores'
 * rates measures their arithmetic, not the guest's TSC calibration: under
 * TCG the refined TSC frequency has been 21 ppm off in a boot, and the
 * stock clocks then run 21 ppm off an HPET that is exact. The old name
 * goes to OLD (LEN bytes). Returns 0 or -errno.
 */
static inline int stock_clocksource_like(const char *name, char *old, size_t len)
{
	int fd = open(STOCK_CLOCKSOURCE, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, old, len - 1);
	close(fd);
	if (n <= 0)
		return n ? -errno : -EIO;
	old[n] = 0;
	old[strcspn(old, "\n")] = 0;
	return write_file(STOCK_CLOCKSOURCE, stock_counterpart(name));
}

#endif
