// SPDX-License-Identifier: GPL-2.0
/*
 * tod_boot: what a boot with timesource= (or a suspend) left behind.
 *
 *   tod_boot current NAME        the core runs on NAME
 *   tod_boot absent NAME         NAME is not a registered timesource
 *   tod_boot dmesg TEXT          the kernel log says TEXT
 *   tod_boot follow any|none     the follow of stock's wall time onto the
 *                                refined TSC: one if the late sync left it,
 *                                else none ('none': none either way)
 *   tod_boot boottime N          CLOCK_TOD_MONOTONIC within 0.75 ms behind
 *                                and 0.25 ms ahead of CLOCK_BOOTTIME, less
 *                                the gap stock's own TSC calibration made
 *                                (from the kernel log), in N samples
 *                                (on jiffies the closest sample within
 *                                1 ms behind; the farthest within two
 *                                ticks + 1 ms; a closest too far behind
 *                                takes up to 20 windows of N when the
 *                                window shows a late tick, as a busy host
 *                                can hold a tick late)
 *   tod_boot idle SECS           with the guest idle for SECS (NO_HZ), the
 *                                core loses no counter wraps: it agrees with
 *                                CLOCK_MONOTONIC_RAW within 100 ppm
 *   tod_boot suspend SECS        S3 for SECS via the RTC alarm (mem_sleep
 *                                must be deep):
 *                                CLOCK_TOD_MONOTONIC advances by SECS +- 1.5 s
 *                                and within 1 ms of CLOCK_BOOTTIME, and a
 *                                reader never sees it step back
 *   tod_boot cycles N            N S3 cycles of 2, 3, 4, 2, ... s (mem_sleep
 *                                deep; each cycle's stock BOOTTIME advances by
 *                                at least its time - 1.5 s: it slept), syscall
 *                                and vDSO readers running through all:
 *                                each cycle changes (CLOCK_TOD_MONOTONIC -
 *                                CLOCK_BOOTTIME) by at most 1 ms, all N by
 *                                at most 2 ms, (CLOCK_TOD_REALTIME -
 *                                CLOCK_REALTIME) stays within 1 ms of its
 *                                value before the first, no reading goes back
 *                                (on jiffies each limit two ticks more)
 * Several checks can follow each other on one command line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "tod.h"
#include "todtest.h"

#define CUR TOD_SYSFS "current_timesource"

static void check_current(const char *want)
{
	char buf[64] = "";
	FILE *f = fopen(CUR, "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	ksft_test_result(!strcmp(buf, want), "current timesource is '%s' (want '%s')\n", buf, want);
}

static void check_absent(const char *name)
{
	char buf[256] = "", *tok, *save = NULL;
	FILE *f = fopen(TOD_SYSFS "available_timesource", "r");
	int found = 0;

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	ksft_print_msg("available: %s\n", buf);
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		found |= !strcmp(tok, name);
	ksft_test_result(f && !found, "'%s' is not a registered timesource\n", name);
}

static void check_dmesg(const char *text)
{
	static char log[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);

	if (n < 0)
		n = 0;
	log[n] = 0;
	ksft_test_result(strstr(log, text) != NULL, "kernel log says '%s'\n", text);
}

#define FOLLOW_TEXT	"the wall time follows the stock clock onto the refined TSC: "
#define FOLLOW_OPEN	"its switch onto the refined TSC is followed"
#define FOLLOW_SHUT	"no stock event moves it from here"
/*
 * The core takes its wall time from stock at late_initcall_sync and says
 * whether a switch is left to follow (stock on tsc-early then). If so,
 * exactly one follow is logged, after the refinement (waited for, 30 s
 * at most) and with a step within 20 ms: the step is what stock's early
 * calibration (off by up to 0.1 % under TCG) put between the clocks since
 * the late sync where the core does not share it (on the HPET or the PM
 * timer), and the refinement can come 12 s after it (-8.1 ms seen in 11
 * s, below); on the TSC the two share it: -102 and +23 us seen. If not,
 * none is logged. "follow none" also wants the late sync to have said so
 * (a boot with stock on the HPET from the start).
 */
static void check_follow(const char *mode)
{
	static char log[1 << 20];
	char *p, *first = NULL, *refined = NULL;
	int n = 0, count = 0, open, shut, i;
	long long step = 0;

	for (i = 0; i < 300; i++) {
		n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1);
		log[n < 0 ? 0 : n] = 0;
		refined = strstr(log, "Refined TSC clocksource calibration");
		if (refined || !strstr(log, FOLLOW_OPEN))
			break;
		usleep(100000);
	}
	open = strstr(log, FOLLOW_OPEN) != NULL;
	shut = strstr(log, FOLLOW_SHUT) != NULL;
	for (p = strstr(log, FOLLOW_TEXT); p; p = strstr(p + 1, FOLLOW_TEXT)) {
		if (!count++) {
			first = p;
			step = strtoll(p + strlen(FOLLOW_TEXT), NULL, 10);
		}
	}
	if (!strcmp(mode, "none") || shut) {
		ksft_test_result(shut && !open && !count,
				 "the late sync %s, and %d follow(s) logged (want none)\n",
				 shut ? "left no switch to follow" : open ? "left one to follow" :
				 "was not logged", count);
		return;
	}
	ksft_test_result(open && count == 1 && refined && refined < first && llabs(step) <= 20000000,
			 "the late sync %s; %d follow(s) logged (want one), %s the refinement, step %+lld ns (limit 20 ms)\n",
			 open ? "left a switch to follow" : "was not logged", count,
			 refined && first && refined < first ? "after" : "not after", step);
}

/*
 * What the stock clock's own calibration put between the two clocks, from
 * the kernel log (/dev/kmsg: its records carry their local_clock() time in
 * us even without CONFIG_PRINTK_TIME).
 *
 * Until stock switches to the refined tsc clocksource, it runs on
 * tsc-early, at the boot-time calibration ("tsc: Detected X MHz"); the
 * refined one ("Refined TSC clocksource calibration: Y MHz", against the
 * HPET or the PM timer over a second) is the better one. Under TCG on a
 * busy host the boot-time one is off by up to 0.1 %, and stock's
 * CLOCK_BOOTTIME gains (Y/X - 1) of every second it runs on tsc-early, for
 * good (-8.1 ms in 11 s was seen: stock's switch to the refined clocksource
 * can come 12 s after it is registered). The core on the HPET or the PM
 * timer does not share that error; on the TSC it shares it until its
 * multiplier takes the refined tsc_khz, at its next tick after the figure
 * is printed. The core starts on jiffies at stock's time and places its
 * instants by stock's CLOCK_MONOTONIC there: the gap counts from when it
 * leaves jiffies. (A later switch back to jiffies would carry its gap on;
 * a boot does not make one.)
 *
 * A boot without a TSC, or whose TSC needs no refinement (a known
 * frequency), has no gap. One whose refinement was rejected runs stock on
 * the boot-time figure for good: the gap is unknown and taken as 0.
 *
 * Returns the expected (CLOCK_TOD_MONOTONIC - CLOCK_BOOTTIME) in ns now,
 * and says how it came about in why; *ok is 0 if the log could not be
 * read whole.
 */
struct boot_event {
	int64_t us;
	char kind;		/* 's' stock clocksource, 't' core timesource, 'r' refined */
	char name[24];
};

#define BOOT_EVENTS 64

/* "2300.012" as kHz; the kernel prints the fraction with %03lu */
static int parse_mhz(const char *s, double *khz)
{
	unsigned long mhz;
	char frac[4] = "";
	int n = 0;

	if (sscanf(s, "%lu.%3[0-9]%n", &mhz, frac, &n) != 2 || strlen(frac) != 3)
		return 0;
	*khz = mhz * 1000.0 + atoi(frac);
	return 1;
}

static int64_t stock_calibration_gap(char *why, size_t len, int *ok)
{
	static struct boot_event ev[BOOT_EVENTS];
	static char rec[8192];	/* CONSOLE_EXT_LOG_MAX: a record never fails to fit */
	double early_khz = 0, ref_khz = 0, f = 0, gap_s = 0, on_early_s = 0;
	char marker[64], stock[24] = "", tod[24] = "";
	int64_t t_prev = 0, ts_us, now_us = -1;
	int fd, n = 0, i, refined = 0, lost = 0, full = 0;
	const char *p;
	ssize_t r;

	*ok = 0;
	fd = open("/dev/kmsg", O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		snprintf(why, len, "/dev/kmsg: %s (run as root)", strerror(errno));
		return 0;
	}
	/* the time of a record written now is now, on the log's own clock */
	snprintf(marker, sizeof(marker), "tod_boot: now %d\n", (int)getpid());
	/* with its newline, or the record stays open and unread */
	if (write(fd, marker, strlen(marker)) < 0) {
		snprintf(why, len, "writing /dev/kmsg: %s", strerror(errno));
		close(fd);
		return 0;
	}
	for (;;) {
		char *msg, *field;

		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE) {	/* records overwritten before we read them */
			lost = 1;
			continue;
		}
		if (r < 0 && errno == EINVAL)	/* cannot happen at this size; the record stays, so stop */
			break;
		if (r <= 0)
			break;
		rec[r] = 0;
		msg = strchr(rec, ';');
		field = strchr(rec, ',');
		field = field ? strchr(field + 1, ',') : NULL;
		if (!msg || !field)
			continue;
		ts_us = strtoll(field + 1, NULL, 10);
		msg++;
		msg[strcspn(msg, "\n")] = 0;
		if (!strncmp(msg, marker, strlen(marker) - 1)) {
			now_us = ts_us;
			break;
		}
		if (!strncmp(msg, "tsc: Detected ", 14) && (!early_khz || strstr(msg, "MHz TSC"))) {
			parse_mhz(msg + 14, &early_khz);
		} else if ((p = strstr(msg, "tsc: Refined TSC clocksource calibration: "))) {
			if (parse_mhz(p + 42, &ref_khz)) {
				if (n < BOOT_EVENTS)
					ev[n++] = (struct boot_event){ ts_us, 'r', "" };
				else
					full = 1;
			}
		} else if (!strncmp(msg, "clocksource: Switched to clocksource ", 37) ||
			   !strncmp(msg, "timeofday: switched to timesource ", 34)) {
			if (n < BOOT_EVENTS) {
				ev[n] = (struct boot_event){ ts_us, msg[0] == 'c' ? 's' : 't', "" };
				snprintf(ev[n].name, sizeof(ev[n].name), "%s", strrchr(msg, ' ') + 1);
				n++;
			} else {
				full = 1;
			}
		}
	}
	close(fd);
	if (now_us < 0 || lost || full) {
		snprintf(why, len, "%s", now_us < 0 ? "this test's marker never came back from /dev/kmsg" :
			 lost ? "the kernel log lost its first records (raise CONFIG_LOG_BUF_SHIFT)" :
			 "more than 64 switches in the log");
		return 0;
	}
	*ok = 1;
	if (!early_khz) {
		snprintf(why, len, "no TSC calibration in the log: no gap");
		return 0;
	}
	if (ref_khz)
		f = ref_khz / early_khz - 1;	/* tsc-early gains f of each second */
	/* the log's events this comes from, on one line, so a failure shows them */
	{
		char line[1024];
		size_t at = 0;

		line[0] = 0;
		for (i = 0; i < n && at < sizeof(line) - 48; i++)
			at += snprintf(line + at, sizeof(line) - at, " %.6f %s%s", ev[i].us / 1e6,
				       ev[i].kind == 's' ? "stock:" : ev[i].kind == 't' ? "tod:" : "refined",
				       ev[i].name);
		ksft_print_msg("boot's events (s):%s%s; now %.6f\n", line, i < n ? " ..." : "",
			       now_us / 1e6);
	}
	for (i = 0; i <= n; i++) {
		int64_t t = i < n ? ev[i].us : now_us;
		double dt = (t - t_prev) / 1e6;
		int stock_early = !strcmp(stock, "tsc-early");
		int tod_early = !strcmp(tod, "tsc") && !refined;

		if (t > t_prev) {
			on_early_s += stock_early ? dt : 0;
			gap_s += ((tod_early ? f : 0) - (stock_early ? f : 0)) * dt;
			t_prev = t;
		}
		if (!strcmp(tod, "jiffies"))
			gap_s = 0;
		if (i == n)
			break;
		if (ev[i].kind == 's')
			snprintf(stock, sizeof(stock), "%s", ev[i].name);
		else if (ev[i].kind == 't')
			snprintf(tod, sizeof(tod), "%s", ev[i].name);
		else
			refined = 1;
	}
	if (ref_khz)
		snprintf(why, len,
			 "TSC calibrated at %.3f MHz, refined to %.3f (%+.1f ppm); stock ran %.3f s on tsc-early: expected %+.3f ms",
			 early_khz / 1000, ref_khz / 1000, f * 1e6, on_early_s, gap_s * 1e3);
	else
		snprintf(why, len,
			 "TSC calibrated at %.3f MHz, not refined (a known frequency, or the refinement failed: then unknown), taken as 0; stock ran %.3f s on tsc-early",
			 early_khz / 1000, on_early_s);
	return (int64_t)(gap_s * 1e9);
}

/*
 * CLOCK_TOD_MONOTONIC against CLOCK_BOOTTIME, which the core starts from:
 * a boot's switches (the core starts on jiffies, then takes the best
 * source) may lose microseconds each, and the sources' rates differ from
 * the stock clock's by a few ppm under TCG, so this runs first in its boot.
 * Stock's own calibration error (stock_calibration_gap()) is taken off
 * first. N samples 1.7 ms apart: within 0.75 ms behind and 0.25 ms ahead. A
 * source that moves once per tick stands for the time its tick began, so a
 * reading lags by up to a tick, and more while the tick is late (under TCG
 * up to a tick more): there the closest sample must be within 1 ms behind
 * and 0.25 ms ahead, and the farthest within two ticks + 1 ms behind.
 *
 * A busy host can hold every tick of N samples late: on a tick source a
 * closest too far behind takes another N samples when stock's own tick was
 * as late in them (tick_window_done(), todtest.h), and fails at once when
 * it was not.
 */

static void check_boottime(int n)
{
	struct timespec r;
	int64_t mid, tod, lead, lag, farthest = INT64_MAX, lead_lim = 250000, lag_lim;
	int64_t tick = 0, gap, slag, l;
	char why[320];
	int i, w, windows, known;

	if (syscall(TOD_SYS_clock_getres, CLOCK_TOD_MONOTONIC, &r))
		ksft_exit_fail_msg("clock_getres(CLOCK_TOD_MONOTONIC): %s\n", strerror(errno));
	if (r.tv_sec || r.tv_nsec >= 1000000)
		tick = ts_ns(&r);
	/*
	 * The limits against what was seen (after stock's
	 * calibration gap is taken off, 2026-12-04/05): a continuous source
	 * -0.158 to +0.051 ms in 32 boots (default, hpet, acpi_pm,
	 * tsc=unstable, debug, i386; -0.158 on a loaded host): 750 us behind
	 * (4.7x) and 250 us ahead (4.9x); the limit behind was 1 ms. A tick
	 * source: the closest -0.11 to -0.40 ms in passing runs, 1 ms behind
	 * (2.5x); the farthest -3.10 to -3.98 ms, two ticks + 1 ms (9 ms at
	 * HZ=250). The one boot the model missed (by -1.80 ms, CI of fea0929,
	 * before it took stock's calibration off) and the i386 boots of
	 * an earlier run (2-5 ms behind, unexplained) still fail.
	 */
	lag_lim = tick ? 1000000 : 750000;
	gap = stock_calibration_gap(why, sizeof(why), &known);
	ksft_print_msg("stock's calibration: %s\n", why);
	windows = tick && known && n > 0 ? TICK_WINDOWS : 1;
	for (w = 1; ; w++) {
		lead = INT64_MIN;
		lag = INT64_MAX;
		slag = INT64_MAX;
		for (i = 0; i < n; i++) {
			bracket(CLOCK_BOOTTIME, CLOCK_TOD_MONOTONIC, &mid, &tod);
			if (tod - mid - gap > lead)
				lead = tod - mid - gap;
			if (tod - mid - gap < lag)
				lag = tod - mid - gap;
			l = stock_tick_lag();
			if (l < slag)
				slag = l;
			usleep(1700);
		}
		if (lag < farthest)
			farthest = lag;
		if (tick_window_done(w, windows, lead, lag, farthest, tick, lag_lim, slag))
			break;
	}
	if (tick)
		ksft_test_result(known && n > 0 && lead <= lead_lim && lead >= -lag_lim &&
				 farthest >= -2 * tick - lag_lim,
				 "CLOCK_TOD_MONOTONIC - CLOCK_BOOTTIME - stock's calibration gap (%+.3f ms), window %d of up to %d, %d samples: closest %+lld ns (limits -%lld, +%lld), farthest in all windows %+lld (limit -%lld)\n",
				 gap / 1e6, w, windows, n, (long long)lead, (long long)lag_lim,
				 (long long)lead_lim, (long long)farthest,
				 (long long)(2 * tick + lag_lim));
	else
		ksft_test_result(known && n > 0 && lead <= lead_lim && lag >= -lag_lim,
				 "CLOCK_TOD_MONOTONIC - CLOCK_BOOTTIME - stock's calibration gap (%+.3f ms), %d samples: from %+lld to %+lld ns (limits -%lld, +%lld)\n",
				 gap / 1e6, n, (long long)lag, (long long)lead, (long long)lag_lim,
				 (long long)lead_lim);
}

static void check_idle(int secs)
{
	int64_t r0 = ns_of(CLOCK_MONOTONIC_RAW), t0 = ns_of(CLOCK_TOD_MONOTONIC), r1, t1;
	double ppm;

	sleep(secs);
	t1 = ns_of(CLOCK_TOD_MONOTONIC);
	r1 = ns_of(CLOCK_MONOTONIC_RAW);
	ppm = ((double)(t1 - t0) / (double)(r1 - r0) - 1.0) * 1e6;
	/*
	 * 100 ppm: -9.9, -6.4 and -26.9 ppm (that one without the safety
	 * hrtimer) in passing runs (2026-12-03); the stock raw clock
	 * counts the TSC here, up to 21 ppm off the PM timer by its
	 * calibration, and a host stall is lost guest time (-232.5 ppm once
	 * under a parallel kernel build). A lost 24-bit wrap is -156000 ppm.
	 */
	ksft_test_result(ppm > -100 && ppm < 100,
			 "idle %d s: CLOCK_TOD_MONOTONIC vs MONOTONIC_RAW %+.3f ppm (limit 100; a lost 24-bit wrap is -%.0f)\n",
			 secs, ppm, 4.69e6 / secs);
}

static atomic_int stop;
static atomic_long backwards;

static void *reader(void *arg)
{
	int64_t prev = ns_of(CLOCK_TOD_MONOTONIC), now;

	(void)arg;
	while (!atomic_load(&stop)) {
		now = ns_of(CLOCK_TOD_MONOTONIC);
		if (now < prev)
			atomic_fetch_add(&backwards, 1);
		prev = now;
	}
	return NULL;
}

/*
 * 'mem' must be S3 (deep), not s2idle: under s2idle the counters and the
 * tick may run on, and a cycle would not test a resume at all.
 */
static void check_mem_sleep(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/power/mem_sleep", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	/*
	 * Not deep: stop here. Under TCG an s2idle suspend does not wake on
	 * the RTC alarm, and the boot would hang until its timeout.
	 */
	if (!strstr(buf, "[deep]"))
		ksft_exit_fail_msg("/sys/power/mem_sleep does not select deep (S3): '%s'\n",
				   f ? buf : strerror(errno));
	ksft_test_result_pass("/sys/power/mem_sleep selects deep (S3): '%s'\n", buf);
}

/* stock BOOTTIME slept over a suspend of secs s, with the RTC's 1 s steps */
#define SLEPT_SLACK_NS 1500000000LL

static void check_suspend(int secs)
{
	int64_t t0, t1, b0, b1;
	char alarm[16];
	pthread_t th;
	int ret;

	check_mem_sleep();
	snprintf(alarm, sizeof(alarm), "+%d", secs);
	write_file("/sys/class/rtc/rtc0/wakealarm", "0");
	ret = write_file("/sys/class/rtc/rtc0/wakealarm", alarm);
	if (ret) {
		ksft_test_result_fail("cannot set the RTC wake alarm: %s\n", strerror(-ret));
		ksft_test_result_fail("S3 of %d s: not run\n", secs);
		ksft_test_result_fail("reader across the suspend: not run\n");
		return;
	}
	pthread_create(&th, NULL, reader, NULL);
	t0 = ns_of(CLOCK_TOD_MONOTONIC);
	b0 = ns_of(CLOCK_BOOTTIME);
	ret = write_file("/sys/power/state", "mem");
	t1 = ns_of(CLOCK_TOD_MONOTONIC);
	b1 = ns_of(CLOCK_BOOTTIME);
	usleep(200000);
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	ksft_test_result(ret == 0, "echo mem > /sys/power/state: %s\n", ret ? strerror(-ret) : "resumed");
	ksft_test_result(llabs((t1 - t0) - secs * 1000000000LL) <= SLEPT_SLACK_NS &&
			 llabs((t1 - t0) - (b1 - b0)) <= 1000000,
			 "S3 of %d s: CLOCK_TOD_MONOTONIC advanced %.3f s, %+.3f ms from stock BOOTTIME (limits %d +- 1.5 s, +-1 ms from BOOTTIME)\n",
			 secs, (t1 - t0) / 1e9, ((t1 - t0) - (b1 - b0)) / 1e6, secs);
	ksft_test_result(atomic_load(&backwards) == 0,
			 "a reader across the suspend never saw CLOCK_TOD_MONOTONIC step back (%ld times)\n",
			 atomic_load(&backwards));
}

static atomic_long vdso_backwards, vdso_errors;

static void *vdso_reader(void *arg)
{
	struct timespec ts;
	int64_t prev = 0, now;

	(void)arg;
	while (!atomic_load(&stop)) {
		if (tod_clock_gettime(CLOCK_TOD_MONOTONIC, &ts)) {
			atomic_fetch_add(&vdso_errors, 1);
			continue;
		}
		now = ts_ns(&ts);
		if (now < prev)
			atomic_fetch_add(&vdso_backwards, 1);
		prev = now;
	}
	return NULL;
}

/*
 * (inner - outer) in ns, from the narrowest of bracket()'s sandwiches,
 * taking up to DIFF_TRIES brackets until one is at most DIFF_NARROW_NS wide:
 * with the two reader threads spinning on both CPUs a sandwich can hold a
 * preemption. *err (if not NULL) grows to the largest error seen (half the
 * kept width); a caller fails a reading whose error exceeds DIFF_ERR_MAX_NS
 * rather than widen its limit without bound.
 */
#define DIFF_TRIES	64
#define DIFF_NARROW_NS	20000
#ifndef DIFF_ERR_MAX_NS		/* -DDIFF_ERR_MAX_NS=0 sees the cap fail */
#define DIFF_ERR_MAX_NS	100000
#endif

static int64_t clock_diff(clockid_t outer, clockid_t inner, int64_t *err)
{
	int64_t mid = 0, val = 0, m, v, w, best = INT64_MAX;
	int i;

	for (i = 0; i < DIFF_TRIES && best > DIFF_NARROW_NS; i++) {
		w = bracket(outer, inner, &m, &v);
		if (w < best) {
			best = w;
			mid = m;
			val = v;
		}
	}
	if (err && best / 2 > *err)
		*err = best / 2;
	return val - mid;
}

/*
 * CLOCK_TOD_MONOTONIC - CLOCK_BOOTTIME, or on a source that counts ticks
 * (tick != 0) against stock's BOOTTIME as of its last tick
 * (CLOCK_MONOTONIC_COARSE + BOOTTIME - MONOTONIC): a tick the host holds
 * back holds back both, where the precise BOOTTIME runs on without it (a
 * CI run lost 124 ms in one cycle that way, and stalled for 2 s).
 */
static int64_t boot_diff(int tick, int64_t *err)
{
	int64_t e1 = 0, e2 = 0, d;

	if (!tick)
		return clock_diff(CLOCK_BOOTTIME, CLOCK_TOD_MONOTONIC, err);
	d = clock_diff(CLOCK_MONOTONIC_COARSE, CLOCK_TOD_MONOTONIC, &e1) -
	    clock_diff(CLOCK_MONOTONIC, CLOCK_BOOTTIME, &e2);
	if (e1 + e2 > *err)
		*err = e1 + e2;
	return d;
}

/* CLOCK_TOD_REALTIME - CLOCK_REALTIME, the same way */
static int64_t real_diff(int tick, int64_t *err)
{
	return clock_diff(tick ? CLOCK_REALTIME_COARSE : CLOCK_REALTIME, CLOCK_TOD_REALTIME, err);
}

/*
 * The kernel's account of the cycle just past, from the records /dev/kmsg
 * (opened at its end before the cycle) got since: the stock sleep injected,
 * the core's sleep, a stalled interrupt, a late RTC (pm_debug_messages on,
 * for the first two). Printed with each cycle, so a change of the clocks
 * comes with what the kernel saw.
 */
static void cycle_kernel_log(int fd, char *out, size_t len)
{
	static const char *const keep[] = {	/* at the start of a message */
		"Timekeeping suspended for ", "timeofday: ", "hrtimer: interrupt took ",
		"hpet: Lost ",
	};
	static char rec[8192];
	size_t at = 0, k;
	ssize_t r;
	char *msg;

	out[0] = 0;
	if (fd < 0)
		return;
	while ((r = read(fd, rec, sizeof(rec) - 1)) > 0 || (r < 0 && errno == EPIPE)) {
		if (r < 0) {	/* records overwritten: the read goes on at the oldest left */
			if (at < len - 1)
				at += snprintf(out + at, len - at, "%s(records lost)", at ? " " : "");
			continue;
		}
		rec[r] = 0;
		msg = strchr(rec, ';');
		if (!msg)
			continue;
		msg++;
		msg[strcspn(msg, "\n")] = 0;
		for (k = 0; k < sizeof(keep) / sizeof(keep[0]); k++) {
			if (!strncmp(msg, keep[k], strlen(keep[k]))) {
				if (at < len - 1)
					at += snprintf(out + at, len - at, "%s[%s]", at ? " " : "", msg);
				break;
			}
		}
	}
}

/*
 * The debug kernel can take seconds to enter S3 on a busy host (1.7 to
 * 4.2 s of a cycle awake beside a kernel build, 2026-12-06): an alarm due
 * before S3 is entered is lost (the HPET's emulation of the RTC's interrupt
 * drops it), and only the harness's watcher wakes the guest, a minute
 * later. Its alarms come this many seconds later.
 */
#define DEBUG_ALARM_EXTRA 8

static void check_cycles(int n, const char *state)
{
	int64_t m0, r0, m, r, prev, step, worst_step = 0, worst_real = 0, slack = 0;
	/* each reading's error (half its bracket), the first's and the last's */
	int64_t em0 = 0, er0 = 0, em, er, eprev, worst_err = 0, steps_bad = 0, real_bad = 0;
	int64_t b0, slept, worst_slept = 0, longest_slept = 0;
	int i, ok = 0, secs, slept_ok = 0;
	struct timespec res;
	pthread_t th[2];
	char alarm[16], klog[512], pmdbg[8] = "";
	int kfd, pmdbg_ok, debug = tod_debug_kernel();

	/*
	 * On a source that counts ticks (jiffies: a resolution of a tick) each
	 * reading is behind by up to a tick plus the time the tick is late
	 * (under TCG up to another tick): two ticks more on every limit, and
	 * the reference is stock's clock as of its last tick. A tick lost per
	 * cycle still fails the total.
	 */
	if (!syscall(TOD_SYS_clock_getres, CLOCK_TOD_MONOTONIC, &res) && ts_ns(&res) >= 1000000)
		slack = 2 * ts_ns(&res);

	check_mem_sleep();
	/* the kernel's sleep accounting into the log, for each cycle's line */
	pmdbg_ok = !read_line("/sys/power/pm_debug_messages", pmdbg, sizeof(pmdbg));
	if (pmdbg_ok)
		write_file("/sys/power/pm_debug_messages", "1");
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	ksft_print_msg("vDSO entry points: %s\n", tod_vdso_available() ? "yes" : "no (syscall)");
	atomic_store(&stop, 0);
	pthread_create(&th[0], NULL, reader, NULL);
	pthread_create(&th[1], NULL, vdso_reader, NULL);
	if (slack)
		ksft_print_msg("a source that counts ticks: BOOTTIME and REALTIME below are stock's as of its last tick (the _COARSE clocks)\n");
	m0 = prev = boot_diff(!!slack, &em0);
	r0 = real_diff(!!slack, &er0);
	m = m0;
	em = eprev = em0;
	worst_err = em0 > er0 ? em0 : er0;
	ksft_print_msg("before: TOD_MONOTONIC-BOOTTIME %+.3f ms, TOD_REALTIME-REALTIME %+.3f ms (readings' error at most %.3f, %.3f ms)\n",
		       m0 / 1e6, r0 / 1e6, em0 / 1e6, er0 / 1e6);
	for (i = 0; i < n; i++) {
		secs = 2 + i % 3 + (debug ? DEBUG_ALARM_EXTRA : 0);
		snprintf(alarm, sizeof(alarm), "+%d", secs);
		write_file("/sys/class/rtc/rtc0/wakealarm", "0");
		b0 = ns_of(CLOCK_BOOTTIME);
		if (write_file("/sys/class/rtc/rtc0/wakealarm", alarm) ||
		    write_file("/sys/power/state", state)) {
			ksft_print_msg("cycle %d: the RTC alarm or echo %s failed: %s\n", i,
				       state, strerror(errno));
			break;
		}
		ok++;
		/*
		 * it slept: stock BOOTTIME went on by at least the alarm's time
		 * (less the RTC's step). Longer is a late wake-up, not a fault
		 * of either clock: the debug kernel under TCG once took so long
		 * to enter S3 that the alarm fired first and the guest woke
		 * 18 s late (the clocks' agreement is checked below).
		 */
		slept = ns_of(CLOCK_BOOTTIME) - b0 - secs * 1000000000LL;
		if (b0 > 0 && slept >= -SLEPT_SLACK_NS)
			slept_ok++;
		if (i == 0 || slept < worst_slept)
			worst_slept = slept;
		if (slept > longest_slept)
			longest_slept = slept;
		/*
		 * A source that counts ticks lags by as long as the tick is
		 * late, and under TCG the first resume of a boot can stall the
		 * tick for a quarter second ("hrtimer: interrupt took 261871701
		 * ns": -42 ms in one cycle, +41 ms in the next, in a CI run).
		 * Read once the tick has run again: a tick really lost stays
		 * lost, and still fails the limits.
		 */
		if (slack)
			usleep(100000);
		em = er = 0;
		m = boot_diff(!!slack, &em);
		r = real_diff(!!slack, &er);
		step = m - prev;
		cycle_kernel_log(kfd, klog, sizeof(klog));
		ksft_print_msg("cycle %d (%d s): TOD_MONOTONIC-BOOTTIME changed %+.3f ms (total %+.3f), TOD_REALTIME-REALTIME %+.3f ms from before (readings' error at most %.3f, %.3f ms); slept %.6f s by BOOTTIME; kernel: %s\n",
			       i, secs, step / 1e6, (m - m0) / 1e6, (r - r0) / 1e6, em / 1e6, er / 1e6,
			       (slept + secs * 1000000000LL) / 1e9, klog[0] ? klog : "-");
		/* a change is judged with the two readings' errors added */
		if (llabs(step) > 1000000 + slack + eprev + em)
			steps_bad++;
		if (llabs(r - r0) > 1000000 + slack + er0 + er)
			real_bad++;
		if (llabs(step) > llabs(worst_step))
			worst_step = step;
		if (llabs(r - r0) > llabs(worst_real))
			worst_real = r - r0;
		if (em > worst_err)
			worst_err = em;
		if (er > worst_err)
			worst_err = er;
		prev = m;
		eprev = em;
	}
	if (kfd >= 0)
		close(kfd);
	if (pmdbg_ok)
		write_file("/sys/power/pm_debug_messages", pmdbg);
	usleep(200000);
	atomic_store(&stop, 1);
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	ksft_test_result(ok == n, "%d of %d '%s' cycles resumed\n", ok, n, state);
	ksft_test_result(ok == n && slept_ok == n,
			 "%d of %d cycles slept their %d-%d s: stock CLOCK_BOOTTIME advanced by at least the alarm's time, shortest %+.3f s off (limit -%.1f s, the RTC's steps; longest %+.3f s)\n",
			 slept_ok, n, 2 + (debug ? DEBUG_ALARM_EXTRA : 0), 4 + (debug ? DEBUG_ALARM_EXTRA : 0), worst_slept / 1e9, SLEPT_SLACK_NS / 1e9, longest_slept / 1e9);
	if (worst_err > DIFF_ERR_MAX_NS)
		ksft_print_msg("a reading's error was %.3f ms, more than %.3f: the changes below are not known to that precision, and fail\n",
			       worst_err / 1e6, DIFF_ERR_MAX_NS / 1e6);
	ksft_test_result(ok == n && !steps_bad && worst_err <= DIFF_ERR_MAX_NS,
			 "each cycle: (CLOCK_TOD_MONOTONIC - CLOCK_BOOTTIME) changed at most %+.3f ms (largest; limit 1 + %.0f for the tick + the two readings' errors, at most %.3f each, limit 0.1)\n",
			 worst_step / 1e6, slack / 1e6, worst_err / 1e6);
	ksft_test_result(ok == n && llabs(m - m0) <= 2000000 + slack + em0 + em &&
			 worst_err <= DIFF_ERR_MAX_NS,
			 "%d cycles: (CLOCK_TOD_MONOTONIC - CLOCK_BOOTTIME) changed %+.3f ms in all (limit 2 + %.0f for the tick + %.3f, the readings' errors)\n",
			 ok, (m - m0) / 1e6, slack / 1e6, (em0 + em) / 1e6);
	ksft_test_result(ok == n && !real_bad && worst_err <= DIFF_ERR_MAX_NS,
			 "(CLOCK_TOD_REALTIME - CLOCK_REALTIME) at most %+.3f ms from before the first cycle (largest; limit 1 + %.0f for the tick + the two readings' errors, at most %.3f each, limit 0.1)\n",
			 worst_real / 1e6, slack / 1e6, worst_err / 1e6);
	ksft_test_result(atomic_load(&backwards) == 0,
			 "syscall reader: CLOCK_TOD_MONOTONIC never stepped back (%ld times)\n",
			 atomic_load(&backwards));
	ksft_test_result(tod_vdso_available() && atomic_load(&vdso_backwards) == 0 &&
			 atomic_load(&vdso_errors) == 0,
			 "vDSO reader: CLOCK_TOD_MONOTONIC never stepped back (%ld times, %ld errors)\n",
			 atomic_load(&vdso_backwards), atomic_load(&vdso_errors));
}

int main(int argc, char **argv)
{
	int i, plan = 0;

	for (i = 1; i + 1 < argc; i += 2)
		plan += !strcmp(argv[i], "suspend") ? 4 : !strcmp(argv[i], "cycles") ? 8 : 1;
	if (argc < 3 || argc % 2 == 0) {
		fprintf(stderr, "usage: %s {current NAME|absent NAME|dmesg TEXT|follow any|none|boottime N|idle SECS|suspend SECS|cycles N}...\n",
			argv[0]);
		return 2;
	}
	ksft_print_header();
	ksft_set_plan(plan);
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "current"))
			check_current(argv[i + 1]);
		else if (!strcmp(argv[i], "absent"))
			check_absent(argv[i + 1]);
		else if (!strcmp(argv[i], "dmesg"))
			check_dmesg(argv[i + 1]);
		else if (!strcmp(argv[i], "follow"))
			check_follow(argv[i + 1]);
		else if (!strcmp(argv[i], "boottime"))
			check_boottime(atoi(argv[i + 1]));
		else if (!strcmp(argv[i], "idle"))
			check_idle(atoi(argv[i + 1]));
		else if (!strcmp(argv[i], "suspend"))
			check_suspend(atoi(argv[i + 1]));
		else if (!strcmp(argv[i], "cycles"))
			check_cycles(atoi(argv[i + 1]), "mem");
		else
			ksft_exit_fail_msg("unknown check '%s'\n", argv[i]);
	}
	ksft_finished();
}
