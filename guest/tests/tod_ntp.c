// SPDX-License-Identifier: GPL-2.0
/*
 * tod_ntp: clock_adjtime() on CLOCK_TOD_REALTIME, measured.
 *
 * - ADJ_FREQUENCY +100 ppm: CLOCK_TOD_MONOTONIC runs 100 +- 1 ppm fast
 *   against the stock CLOCK_MONOTONIC_RAW;
 * - single-shot adjtime of +5 ms: slews at 500 +- 1 ppm, ends (the
 *   remaining offset reads 0), and the clock lands within 1 us of +5 ms;
 * - invalid requests fail exactly as adjtimex(2) on CLOCK_REALTIME does
 *   (same return value or errno), with and without CAP_SYS_TIME;
 * - settime leaves NTP unsynchronised, as in the seed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "todtest.h"


static int adj(clockid_t c, struct timex *tx)
{
	return syscall(SYS_clock_adjtime, c, tx);
}

static double rate_ppm(int secs)
{
	int64_t r0, t0, r1, t1;

	sample(&r0, &t0);
	sleep(secs);
	sample(&r1, &t1);
	return ((double)(t1 - t0) / (double)(r1 - r0) - 1.0) * 1e6;
}

static void test_frequency(void)
{
	struct timex tx = { .modes = ADJ_FREQUENCY, .freq = 100 << 16 };
	double base, ppm;
	int ret;

	base = rate_ppm(3);
	ret = adj(CLOCK_TOD_REALTIME, &tx);
	ppm = rate_ppm(5);
	tx.modes = ADJ_FREQUENCY;
	tx.freq = 0;
	adj(CLOCK_TOD_REALTIME, &tx);
	ksft_test_result(ret >= 0 && ppm - base > 99 && ppm - base < 101,
			 "ADJ_FREQUENCY +100 ppm measured as %+.3f ppm (base %+.3f, limit 100 +- 1)\n",
			 ppm - base, base);
}

static void test_singleshot(void)
{
	struct timex tx = { .modes = ADJ_OFFSET_SINGLESHOT, .offset = 5000 };
	int64_t r0, t0, r1, t1, landed;
	double ppm;
	int ret, waited = 0;

	sample(&r0, &t0);
	ret = adj(CLOCK_TOD_REALTIME, &tx);
	ppm = rate_ppm(4);
	ksft_test_result(ret >= 0 && ppm > 499 && ppm < 501,
			 "single-shot +5 ms slews at %+.3f ppm (limit 500 +- 1)\n", ppm);
	do {
		sleep(1);
		tx.modes = ADJ_OFFSET_SS_READ;
		adj(CLOCK_TOD_REALTIME, &tx);
	} while (tx.offset && ++waited < 20);
	ksft_test_result(tx.offset == 0, "single-shot slew completes (%ld us left after %d s more)\n",
			 tx.offset, waited);
	sleep(3);	/* the fold steers its last nanoseconds */
	sample(&r1, &t1);
	landed = (t1 - r1) - (t0 - r0) - 5000000;
	ksft_test_result(llabs(landed) <= 1000, "single-shot +5 ms lands %lld ns from +5 ms (limit 1 us)\n",
			 (long long)landed);
}

struct vcase {
	const char *what;
	struct timex tx;
	int bad_pointer;
};

/* Same return value or errno on the stock and the tod clock. */
static int same(const struct vcase *c, char *msg, size_t len)
{
	struct timex a = c->tx, b = c->tx;
	int ra, rb, ea, eb;

	errno = 0;
	ra = adj(CLOCK_REALTIME, c->bad_pointer ? (void *)8 : &a);
	ea = ra < 0 ? errno : 0;
	errno = 0;
	rb = adj(CLOCK_TOD_REALTIME, c->bad_pointer ? (void *)8 : &b);
	eb = rb < 0 ? errno : 0;
	snprintf(msg, len, "stock %d/%s, tod %d/%s", ra, strerror(ea), rb, strerror(eb));
	/* a read returns the clock state, which may differ; errors must match */
	return ea == eb && (ra < 0 || rb >= 0);
}

static void test_validation(void)
{
	/* every case is invalid (or a pure read) so the stock clock is not changed */
	static const struct vcase root_cases[] = {
		{ .what = "ADJ_TICK below 90%", .tx = { .modes = ADJ_TICK, .tick = 8999 } },
		{ .what = "ADJ_TICK above 110%", .tx = { .modes = ADJ_TICK, .tick = 11001 } },
		{ .what = "ADJ_FREQUENCY LONG_MAX", .tx = { .modes = ADJ_FREQUENCY, .freq = LONG_MAX } },
		{ .what = "ADJ_FREQUENCY LONG_MIN", .tx = { .modes = ADJ_FREQUENCY, .freq = LONG_MIN } },
		{ .what = "ADJ_ADJTIME without single-shot", .tx = { .modes = 0x8000 | ADJ_FREQUENCY } },
		{ .what = "ADJ_SETOFFSET with negative usec", .tx = { .modes = ADJ_SETOFFSET, .time = { 0, -1 } } },
		{ .what = "ADJ_SETOFFSET with usec 10^6", .tx = { .modes = ADJ_SETOFFSET, .time = { 0, 1000000 } } },
		{ .what = "ADJ_SETOFFSET|ADJ_NANO with nsec 10^9",
		  .tx = { .modes = ADJ_SETOFFSET | ADJ_NANO, .time = { 0, 1000000000 } } },
		{ .what = "modes 0 (read)", .tx = { .modes = 0 } },
		{ .what = "ADJ_OFFSET_SS_READ (read)", .tx = { .modes = ADJ_OFFSET_SS_READ } },
		{ .what = "bad pointer", .bad_pointer = 1 },
	};
	static const struct vcase user_cases[] = {
		{ .what = "no CAP_SYS_TIME: modes 0 is a free read", .tx = { .modes = 0 } },
		{ .what = "no CAP_SYS_TIME: ADJ_FREQUENCY", .tx = { .modes = ADJ_FREQUENCY, .freq = 1 } },
		{ .what = "no CAP_SYS_TIME: ADJ_OFFSET_SINGLESHOT", .tx = { .modes = ADJ_OFFSET_SINGLESHOT, .offset = 1 } },
		{ .what = "no CAP_SYS_TIME: ADJ_OFFSET_SS_READ", .tx = { .modes = ADJ_OFFSET_SS_READ } },
		{ .what = "no CAP_SYS_TIME: ADJ_SETOFFSET", .tx = { .modes = ADJ_SETOFFSET } },
		{ .what = "no CAP_SYS_TIME: ADJ_STATUS", .tx = { .modes = ADJ_STATUS } },
	};
	char msg[160];
	size_t i;

	for (i = 0; i < sizeof(root_cases) / sizeof(root_cases[0]); i++) {
		int ok = same(&root_cases[i], msg, sizeof(msg));

		ksft_test_result(ok, "clock_adjtime %s: as stock (%s)\n", root_cases[i].what, msg);
	}
	for (i = 0; i < sizeof(user_cases) / sizeof(user_cases[0]); i++) {
		int p[2], st, ok = 0;
		pid_t pid;

		if (pipe(p))
			ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
		pid = fork();
		if (pid == 0) {
			close(p[0]);
			if (drop_cap_sys_time())
				_exit(3);
			ok = same(&user_cases[i], msg, sizeof(msg));
			if (write(p[1], msg, strlen(msg) + 1) < 0)
				_exit(4);
			_exit(ok ? 0 : 1);
		}
		close(p[1]);
		msg[0] = 0;
		if (read(p[0], msg, sizeof(msg) - 1) < 0)
			msg[0] = 0;
		msg[sizeof(msg) - 1] = 0;
		close(p[0]);
		waitpid(pid, &st, 0);
		ok = WIFEXITED(st) && WEXITSTATUS(st) == 0;
		ksft_test_result(ok, "clock_adjtime %s: as stock (%s)\n", user_cases[i].what, msg);
	}
}

static void test_settime_clears(void)
{
	struct timex tx = { .modes = ADJ_STATUS | ADJ_MAXERROR, .status = STA_PLL, .maxerror = 1000 };
	struct timespec now;
	int ret;

	adj(CLOCK_TOD_REALTIME, &tx);
	tx.modes = 0;
	ret = adj(CLOCK_TOD_REALTIME, &tx);
	ksft_test_result(ret == TIME_OK && !(tx.status & STA_UNSYNC) && tx.maxerror <= 1500,
			 "ADJ_STATUS/ADJ_MAXERROR: synchronised (ret %d, status %#x, maxerror %ld)\n",
			 ret, tx.status, tx.maxerror);
	syscall(SYS_clock_gettime, CLOCK_TOD_REALTIME, &now);
	syscall(SYS_clock_settime, CLOCK_TOD_REALTIME, &now);
	tx.modes = 0;
	ret = adj(CLOCK_TOD_REALTIME, &tx);
	ksft_test_result(ret == TIME_ERROR && (tx.status & STA_UNSYNC) && tx.maxerror >= 16000000,
			 "settime clears NTP: TIME_ERROR, STA_UNSYNC, maxerror at the limit (ret %d, maxerror %ld)\n",
			 ret, tx.maxerror);
	tx.modes = ADJ_STATUS;
	tx.status = STA_UNSYNC;
	adj(CLOCK_TOD_REALTIME, &tx);
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(1 + 3 + 11 + 6 + 2);
	test_frequency();
	test_singleshot();
	test_validation();
	test_settime_clears();
	ksft_finished();
}
