// SPDX-License-Identifier: GPL-2.0
/*
 * tod_ntp_parity [SECS]: the stock CLOCK_REALTIME and CLOCK_TOD_REALTIME
 * side by side for SECS (20) seconds under each of
 *   ADJ_TICK +10 % and -10 %, and
 *   a PLL offset of 400 us (STA_PLL, STA_NANO) at time constant 0 and 4,
 * the same request applied to both clocks at once. At the end, read in the
 * middle of both clocks' seconds:
 *   - maxerror is the same on both, to the microsecond (both grow 500 us per
 *     second of their own adjusted wall clock);
 *   - the PLL offset left is the same, within 1 us;
 *   - the tod clock advanced against CLOCK_MONOTONIC_RAW within 0.2 ppm of
 *     the stock clock's advance, and under ADJ_TICK within 0.05 ppm of the
 *     rate asked for. (The stock clock is itself 0.06 to 0.12 ppm off the
 *     rate ADJ_TICK +-10 % asks for, so a limit of 0.1 ppm against it, as
 *     first asked for, would measure the stock clock's error.)
 * Both clocks are put back to tick 10000, freq 0, STA_UNSYNC afterwards.
 * Run it only in the guest: it slews CLOCK_REALTIME.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "todtest.h"

#define NSEC 1000000000LL
static const clockid_t clk[2] = { CLOCK_REALTIME, CLOCK_TOD_REALTIME };

static void reset(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct timex tx = {
			.modes = ADJ_STATUS | ADJ_TICK | ADJ_FREQUENCY | ADJ_MAXERROR |
				 ADJ_ESTERROR | ADJ_TIMECONST | ADJ_MICRO,
			.status = STA_UNSYNC, .tick = 10000, .maxerror = 0, .constant = 0,
		};

		if (adj(clk[i], &tx) < 0)
			ksft_exit_fail_msg("resetting clock %d: %s\n", clk[i], strerror(errno));
	}
}

/* Wait until both clocks are in [lo, hi) ns of their second. */
static void mid_second(int64_t lo, int64_t hi)
{
	int tries;

	for (tries = 0; tries < 4000; tries++) {
		int64_t s = ns_of(CLOCK_REALTIME) % NSEC, t = ns_of(CLOCK_TOD_REALTIME) % NSEC;

		if (s >= lo && s < hi && t >= lo && t < hi)
			return;
		usleep(1000);
	}
	ksft_exit_fail_msg("the stock and tod seconds never overlap in [%lld, %lld) ms\n",
			   (long long)lo / 1000000, (long long)hi / 1000000);
}

struct scenario {
	const char *name;
	struct timex tx;
};

static void run(const struct scenario *sc, int secs)
{
	struct timex tx[2];
	int64_t r0[2], v0[2], r1[2], v1[2], end;
	double rate[2], ppm, want, tod_err;
	long me[2], off[2];
	int i, ret[2];

	reset();
	mid_second(300000000, 500000000);
	for (i = 0; i < 2; i++) {
		tx[i] = sc->tx;
		ret[i] = adj(clk[i], &tx[i]);
	}
	for (i = 0; i < 2; i++)
		bracket(CLOCK_MONOTONIC_RAW, clk[i], &r0[i], &v0[i]);
	if (ret[0] < 0 || ret[1] < 0)
		ksft_exit_fail_msg("%s: clock_adjtime: stock %d, tod %d (%s)\n", sc->name,
				   ret[0], ret[1], strerror(errno));
	/* SECS seconds of raw time, then the middle of the seconds again */
	end = r0[0] + secs * NSEC;
	while (ns_of(CLOCK_MONOTONIC_RAW) < end)
		usleep(20000);
	mid_second(300000000, 700000000);
	for (i = 0; i < 2; i++) {
		memset(&tx[i], 0, sizeof(tx[i]));
		adj(clk[i], &tx[i]);
		me[i] = tx[i].maxerror;
		off[i] = tx[i].offset;	/* ns: STA_NANO, or us */
		if (!(tx[i].status & STA_NANO))
			off[i] *= 1000;
	}
	for (i = 0; i < 2; i++)
		bracket(CLOCK_MONOTONIC_RAW, clk[i], &r1[i], &v1[i]);
	/*
	 * Each clock's advance per raw second, over its own raw interval (the
	 * two are read some microseconds apart, at up to 1.1 s per s).
	 */
	for (i = 0; i < 2; i++)
		rate[i] = (double)(v1[i] - v0[i]) / (double)(r1[i] - r0[i]);
	ppm = (rate[1] - rate[0]) * 1e6;
	/* the rate ADJ_TICK asks for (a PLL slews in steps: compared with stock only) */
	want = sc->tx.modes & ADJ_TICK ? (sc->tx.tick - 10000) * 100.0 : 0;
	tod_err = sc->tx.modes & ADJ_TICK ? (rate[1] - 1) * 1e6 - want : 0;
	ksft_print_msg("%s: %.6f s raw; rate - 1: stock %+.4f ppm, tod %+.4f ppm, tick asks %+.4f; maxerror %ld / %ld us; offset %ld / %ld ns\n",
		       sc->name, (r1[0] - r0[0]) / 1e9, (rate[0] - 1) * 1e6, (rate[1] - 1) * 1e6,
		       want, me[0], me[1], off[0], off[1]);
	ksft_test_result(me[0] == me[1], "%s: maxerror %ld (stock) and %ld us (tod) are equal\n",
			 sc->name, me[0], me[1]);
	ksft_test_result(labs(off[0] - off[1]) <= 1000,
			 "%s: offset left %ld (stock) and %ld ns (tod), within 1 us\n",
			 sc->name, off[0], off[1]);
	ksft_test_result(tod_err <= 0.05 && tod_err >= -0.05 && ppm <= 0.2 && ppm >= -0.2,
			 "%s: tod advance %+.4f ppm off the tick asked (0.05), %+.4f ppm off the stock advance (0.2)\n",
			 sc->name, tod_err, ppm);
}

int main(int argc, char **argv)
{
	int secs = argc > 1 ? atoi(argv[1]) : 20;
	static const struct scenario sc[] = {
		{ "ADJ_TICK +10 %", { .modes = ADJ_TICK, .tick = 11000 } },
		{ "ADJ_TICK -10 %", { .modes = ADJ_TICK, .tick = 9000 } },
		{ "PLL 400 us, constant 0", { .modes = ADJ_STATUS | ADJ_NANO | ADJ_TIMECONST | ADJ_OFFSET,
					      .status = STA_PLL, .constant = 0, .offset = 400000 } },
		{ "PLL 400 us, constant 4", { .modes = ADJ_STATUS | ADJ_NANO | ADJ_TIMECONST | ADJ_OFFSET,
					      .status = STA_PLL, .constant = 4, .offset = 400000 } },
	};
	unsigned int i;

	ksft_print_header();
	ksft_set_plan(3 * sizeof(sc) / sizeof(sc[0]));
	for (i = 0; i < sizeof(sc) / sizeof(sc[0]); i++)
		run(&sc[i], secs);
	reset();
	ksft_finished();
}
