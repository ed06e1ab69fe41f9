// SPDX-License-Identifier: GPL-2.0
/*
 * tod_follow: the core's wall time follows the stock CLOCK_REALTIME only
 * while the system boots, never after: once boot is over, no stock event
 * moves CLOCK_TOD_REALTIME. Run it in a boot where nothing has set or
 * adjusted the tod wall clock (the rule for a set clock is simpler: it
 * never follows), with stock on the TSC and an HPET present. It steps the
 * stock clock and marks the TSC unstable: run it last.
 *
 * tod - stock (the narrowest of 8 stock-tod-stock sandwiches) is read
 * before and after each event:
 *   1. stock stepped +10 s: tod - stock moves by -10 s (the core does not
 *      take a step of the stock clock);
 *   2, 3. a stock clocksource change, tsc -> hpet and back, through sysfs:
 *      tod - stock does not move (limit LIMIT_NS);
 *   4. stock stepped -20 s: tod - stock moves by +20 s;
 *   5. the TSC marked unstable at run time (the test hook calls
 *      mark_tsc_unstable(), as the clocksource watchdog would): stock and
 *      the core leave it, and tod - stock does not move;
 *   6. stock stepped +10 s back: tod - stock back where it began.
 * Before the fix the core retook its wall time from stock at every stock
 * clocksource change until its own was set: events 2, 3 and 5 then moved
 * tod - stock by the 10 s and 20 s of the steps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "tod.h"
#include "todtest.h"

#define NSEC		1000000000LL
#define HOOK		"/sys/kernel/debug/newtod_mark_tsc_unstable"
#define STOCK_CS	"/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define STOCK_AVAIL	"/sys/devices/system/clocksource/clocksource0/available_clocksource"
/*
 * An event that is no step moves tod - stock by the drift between the two
 * clocks over the few ms around it (ppm of the TSC against the HPET under
 * TCG), plus the reading error, half the widest of the two sandwiches
 * (tens of us). 1 ms is the limit the issue set; the figures are printed.
 */
#define LIMIT_NS	1000000LL
/* a step moves it by the step, less what the settime itself took */
#define STEP_SLACK_NS	5000000LL

/* tod - stock, in ns, read in the narrowest of up to 4 x 8 sandwiches */
static int64_t tod_minus_stock(int64_t *width)
{
	int64_t mid, t, w, best = INT64_MAX, d = 0;
	int i;

	for (i = 0; i < 4 && best > 100000; i++) {
		w = bracket(CLOCK_REALTIME, CLOCK_TOD_REALTIME, &mid, &t);
		if (w < best) {
			best = w;
			d = t - mid;
		}
	}
	*width = best;
	return d;
}

static int stock_step(int64_t delta)
{
	struct timespec ts;
	int64_t now = ns_of(CLOCK_REALTIME) + delta;

	ts.tv_sec = now / NSEC;
	ts.tv_nsec = now % NSEC;
	return clock_settime(CLOCK_REALTIME, &ts) ? -errno : 0;
}

static int stock_on(const char *name)
{
	char cur[64];

	return !read_line(STOCK_CS, cur, sizeof(cur)) && !strcmp(cur, name);
}

/* the case: d moved from before to after by want, within slack */
static void moved(const char *what, int64_t before, int64_t after, int64_t wb, int64_t wa,
		  int64_t want, int64_t slack)
{
	int64_t m = after - before - want;

	ksft_test_result(llabs(m) <= slack,
			 "%s: tod - stock %+.6f s -> %+.6f s, moved %+.3f ms against %+.3f ms expected (limit %.3f ms; sandwiches %lld and %lld ns)\n",
			 what, (double)before / NSEC, (double)after / NSEC,
			 (double)(after - before) / 1e6, (double)want / 1e6, (double)slack / 1e6,
			 (long long)wb, (long long)wa);
}

int main(void)
{
	int64_t d0, d1, w0, w1;
	char avail[256];
	struct stat st;
	int i, ret;

	ksft_print_header();
	ksft_set_plan(6);
	if (stat(HOOK, &st))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (stat(HOOK, &st))
		ksft_exit_fail_msg("no %s: the kernel needs CONFIG_NEWTOD_KUNIT_TEST and CONFIG_DEBUG_FS\n",
				   HOOK);
	if (!stock_on("tsc"))
		ksft_exit_fail_msg("the stock clocksource is not tsc: run this in a boot that uses it\n");
	if (read_line(STOCK_AVAIL, avail, sizeof(avail)) || !in_word_list(avail, "hpet"))
		ksft_exit_fail_msg("stock offers no hpet (%s): run this on a machine with one\n", avail);

	d0 = tod_minus_stock(&w0);
	ret = stock_step(10 * NSEC);
	if (ret)
		ksft_exit_fail_msg("clock_settime(CLOCK_REALTIME): %s\n", strerror(-ret));
	d1 = tod_minus_stock(&w1);
	moved("stock stepped +10 s", d0, d1, w0, w1, -10 * NSEC, STEP_SLACK_NS);

	d0 = d1, w0 = w1;
	ret = write_file(STOCK_CS, "hpet");
	d1 = tod_minus_stock(&w1);
	if (ret || !stock_on("hpet"))
		ksft_print_msg("stock clocksource hpet: %s\n", ret ? strerror(-ret) : "not taken");
	moved("stock clocksource tsc -> hpet", d0, d1, w0, w1, 0, LIMIT_NS);

	d0 = d1, w0 = w1;
	ret = write_file(STOCK_CS, "tsc");
	d1 = tod_minus_stock(&w1);
	if (ret || !stock_on("tsc"))
		ksft_print_msg("stock clocksource tsc: %s\n", ret ? strerror(-ret) : "not taken");
	moved("stock clocksource hpet -> tsc", d0, d1, w0, w1, 0, LIMIT_NS);

	d0 = d1, w0 = w1;
	ret = stock_step(-20 * NSEC);
	if (ret)
		ksft_exit_fail_msg("clock_settime(CLOCK_REALTIME): %s\n", strerror(-ret));
	d1 = tod_minus_stock(&w1);
	moved("stock stepped -20 s", d0, d1, w0, w1, 20 * NSEC, STEP_SLACK_NS);

	d0 = d1, w0 = w1;
	ret = write_file(HOOK, "1");
	/* the watchdog's work moves stock off the TSC: wait for it, 3 s at most */
	for (i = 0; i < 300 && stock_on("tsc"); i++)
		usleep(10000);
	d1 = tod_minus_stock(&w1);
	if (ret || stock_on("tsc"))
		ksft_print_msg("marking the TSC unstable: %s\n",
			       ret ? strerror(-ret) : "stock still on tsc after 3 s");
	moved("TSC marked unstable, stock and the core leave it", d0, d1, w0, w1, 0, LIMIT_NS);

	d0 = d1, w0 = w1;
	ret = stock_step(10 * NSEC);
	if (ret)
		ksft_exit_fail_msg("clock_settime(CLOCK_REALTIME): %s\n", strerror(-ret));
	d1 = tod_minus_stock(&w1);
	moved("stock stepped +10 s back", d0, d1, w0, w1, -10 * NSEC, STEP_SLACK_NS);
	ksft_finished();
}
