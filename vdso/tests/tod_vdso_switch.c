// SPDX-License-Identifier: GPL-2.0
/*
 * tod_vdso: the switch case, readers on every CPU while the timesource
 * rotates. Its rule is in tod_vdso.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tod_vdso.h"

/* --- switch ---------------------------------------------------------------- */

/*
 * Readers on every CPU while the main thread rotates the timesource, every
 * other reading by the system call instead of the vDSO. Each
 * reading is sandwiched between two CLOCK_MONOTONIC_RAW reads r0 <= r1.
 *
 * No step back, ever.
 *
 * No jump: the tod clock may not get ahead of where the real time elapsed
 * since its earlier readings allows. With off = tod - raw, a reading's
 * offset is at least tod - r1 and an earlier one's at most tod - r0; the
 * rule is
 *     tod - r1 <= max over earlier readings (tod' - r0') + slack,
 * slack = 2 us + (g + SW_RATE_MARGIN ppm) of the time since the start.
 * g is not any tod source's rate: it is the largest rate gap between the
 * stock clocksource the raw clock counts and the stock counterparts of
 * the sources in the rotation (stock_counterpart()), the guest's own
 * calibration of one oscillator against another (the TSC's has been
 * 21 ppm off the HPET in a boot). It is measured through each source X
 * twice, 1 s with the stock clocksource as found and 1 s with it on X's
 * counterpart: the difference of the two rates is the gap, and X's own
 * rate, which is what the storm tests, cancels out of it. A source that
 * runs fast therefore shows as a jump instead of widening the slack.
 * No allowance is made for jiffies: its tod
 * clock counts whole ticks but starts at the tick after a switch, so it is
 * never ahead. Comparing only consecutive readings (step <= elapsed + 1 us)
 * would be wrong for jiffies: the clock moves only at the tick, and a tick
 * delayed by the emulator makes jiffies advance by two, so one step can
 * catch up with several ms that really elapsed. That per-step figure is
 * printed too.
 */
struct sw_reader {
	pthread_t th;
	int cpu;
	long n, errors, inv[2], jumps[2];
	int64_t worst[2];		/* largest step - elapsed seen, ns */
	int64_t ahead[2];		/* largest (tod - r1) - high-water mark, ns */
	atomic_int ready;		/* SW_READY readings made */
};

/* readings each reader makes on the first source before the rotation starts */
#define SW_READY	1000

static atomic_int sw_stop;
/* rotation index of the current source, -1 while a switch is in progress */
static atomic_int sw_cur = -1;
static const char *const *sw_names;	/* the rotation, for messages */
static int64_t sw_start;		/* raw clock when the readers start */
/*
 * The margin on the measured gap: its error, and a source's own rate
 * error. The gap is the difference of two 1 s rates, each from two
 * narrowest-of-8 syscall brackets. The same brackets over 10 s put the
 * tod rates within 0.022 ppm of a stock clock on the same counter
 * (todtest.h, TOD_RATE_PPM), i.e. 0.22 us of bracket error: 0.22 ppm over
 * 1 s, up to 0.44 ppm for a difference of two. 2 ppm is 4.5x that. The
 * old rule added each source's own measured rate + 5 ppm (1 s rates seen:
 * +0.01, -0.78, -0.59 ppm against a TSC-based raw clock), so a source running fast widened its own slack.
 * Only a positive gap widens the slack (a raw clock slower than the
 * counterpart), and the PIT's 838 ns step adds its own error to the two
 * 1 s rates (4 steps: 3.4 ppm on the gap).
 * The figure this slack bounds, "most ahead", has been negative in every
 * storm measured (-3.5 us, -4.6 us).
 */
#define SW_RATE_MARGIN	2.0
static double sw_ppm = SW_RATE_MARGIN;	/* largest stock gap + SW_RATE_MARGIN */

/* the allowance at raw time r: 2 us + sw_ppm of the run so far */
static int64_t sw_slack(int64_t r)
{
	return 2000 + (int64_t)((double)(r - sw_start) * sw_ppm / 1e6);
}

/*
 * The time one switch loses, both ways bounded. A switch joins the old
 * source and the new one at the pair of reads (old, new, old, up to three
 * times) whose two old reads lie closest, so it loses about one emulated
 * counter read, and a host stall inside the switch no longer shows unless
 * it hits every pair (before the patch that keeps a stall out of the
 * join, 2.0-120.6 us a switch, and 2536.8 us in one CI run). The figure
 * is (raw elapsed - tod elapsed) between two sample()s around the sysfs
 * write, so it carries their bracket error too. A source switch may lose at most
 * sw_loss_max() and gain at most sw_gain_max().
 *
 * On jiffies the clock moves only when jiffies does, so a reading there is
 * behind the time by up to a tick plus the time the tick's interrupt is
 * late, and under TCG nothing bounds that: 6.1 ms was seen at HZ=250 with
 * the host idle, 10.3 ms in a CI run whose boot also logged "hrtimer:
 * interrupt took 48.3 ms". A switch to jiffies therefore seems to lose that
 * much, and the switch away wins it back (the core takes the time since the
 * count began from CLOCK_MONOTONIC). Neither figure alone is what the core
 * loses; the round trip X -> jiffies -> Y, sampled on X before and on Y
 * after, is, and it is bounded both ways (sw_trip_max()). Each half keeps
 * the bound it can keep whatever the tick does: going to jiffies gains no
 * more than any switch, leaving it loses no more than any switch.
 */
/*
 * 45 us: since the patch that keeps a stall out of the join, 0.2-9.2 us
 * (default boot, 2026-12-05)
 * and 0.0-8.8 us (default boot, CI of 98fa94c), 4.9x the worst. The debug
 * kernels: no figure since that patch; before it 11.6-24.8 us
 * (debug, host idle), 81 us (debug, a review run) and 16.1-33.2 us (KCSAN)
 * in passing runs, so 200 us (2.5x the 81 us). Before the patch a host
 * stall made 259.9 us (debug, under a parallel build) and 2536.8 us
 * (default, one CI run); the limit was 1 ms.
 */
#define SW_LOSS_MAX		(45 * 1000)
#define SW_LOSS_MAX_DEBUG	(200 * 1000)
/*
 * 5 us: no switch gains (the new read follows the old one it is paired
 * with), so what shows is sample()'s error, the difference of two syscall
 * brackets' midpoints: -0.3 us seen (that patch's review), 0.0 us
 * in the CI of 98fa94c. Kept above 5x: no bracket width under load is
 * recorded to size it by. The debug kernels: -0.1 and -1.5 us in passing
 * runs, and -8.3 us with the host busy (2026-12-06, a debug boot with
 * the PIT's latches stalling): 40 us, 4.8x.
 */
#define SW_GAIN_MAX		(5 * 1000)
#define SW_GAIN_MAX_DEBUG	(40 * 1000)

static int64_t sw_loss_max(void)
{
	return tod_debug_kernel() ? SW_LOSS_MAX_DEBUG : SW_LOSS_MAX;
}

static int64_t sw_gain_max(void)
{
	return tod_debug_kernel() ? SW_GAIN_MAX_DEBUG : SW_GAIN_MAX;
}

/*
 * A round trip through jiffies makes two joins, each held to what a switch
 * may lose, so it may lose twice that (the ~20 ms on jiffies run at stock
 * CLOCK_MONOTONIC's rate, which an NTP slew of 500 ppm moves by 10 us
 * more): 90 us, against 0.4-9.2 us in three
 * storms (ts-pit boot, 2026-12-07). Before the core paired a tick source's
 * join with a ktime_get() the same figure was 4.7-185.8 us, and that
 * kernel fails here.
 */
static int64_t sw_trip_max(void)
{
	return 2 * sw_loss_max();
}

struct sw_loss {
	long n;
	int64_t sum, most, least;
};

static void sw_loss_add(struct sw_loss *l, int64_t loss)
{
	if (!l->n || loss > l->most)
		l->most = loss;
	if (!l->n || loss < l->least)
		l->least = loss;
	l->sum += loss;
	l->n++;
}
static const clockid_t sw_ids[2] = { CLOCK_TOD_MONOTONIC, CLOCK_TOD_REALTIME };

static void *sw_thread(void *arg)
{
	struct sw_reader *r = arg;
	int64_t prev[2] = { 0, 0 }, now[2], r0, r1, prev_r0 = 0, el, d;
	int64_t hw[2] = { INT64_MIN, INT64_MIN };	/* max earlier tod - r0 */
	int64_t hw_at[2] = { 0, 0 };	/* ... and when it was set */
	int hw_src[2] = { -1, -1 }, have = 0, i, src, src1;

	if (pin_cpu(r->cpu)) {
		ksft_print_msg("sched_setaffinity(cpu%d): %s\n", r->cpu, strerror(errno));
		r->errors++;
		return NULL;
	}
	r->worst[0] = r->worst[1] = INT64_MIN;
	r->ahead[0] = r->ahead[1] = INT64_MIN;
	while (!atomic_load_explicit(&sw_stop, memory_order_relaxed)) {
		src = atomic_load(&sw_cur);
		r0 = raw_ns();
		/* every other reading by the system call */
		if ((r->n & 1) ? (now[0] = ns_of(sw_ids[0])) < 0 || (now[1] = ns_of(sw_ids[1])) < 0
			       : vdso_ns(vt_cgt, sw_ids[0], &now[0]) ||
				 vdso_ns(vt_cgt, sw_ids[1], &now[1])) {
			r->errors++;
			have = 0;
			continue;
		}
		r1 = raw_ns();
		src1 = atomic_load(&sw_cur);
		if (src1 != src)
			src = -1;
		if (have) {
			el = r1 - prev_r0;
			for (i = 0; i < 2; i++) {
				d = now[i] - prev[i];
				if (d < 0 && !r->inv[i]++)
					ksft_print_msg("cpu%d: clock %d stepped back %lld ns\n",
						       r->cpu, sw_ids[i], (long long)-d);
				if (now[i] - r1 - hw[i] > sw_slack(r1) && !r->jumps[i]++)
					ksft_print_msg("cpu%d: clock %d jumped %lld ns in %lld ns elapsed, %lld ns ahead of its earlier readings, at %.6f s on %s (the most ahead of them at %.6f s on %s)\n",
						       r->cpu, sw_ids[i], (long long)d, (long long)el,
						       (long long)(now[i] - r1 - hw[i]),
						       (r1 - sw_start) / 1e9, src < 0 ? "?" : sw_names[src],
						       (hw_at[i] - sw_start) / 1e9,
						       hw_src[i] < 0 ? "?" : sw_names[hw_src[i]]);
				if (now[i] - r1 - hw[i] > r->ahead[i])
					r->ahead[i] = now[i] - r1 - hw[i];
				if (d - el > r->worst[i])
					r->worst[i] = d - el;
			}
		}
		for (i = 0; i < 2; i++)
			if (now[i] - r0 > hw[i]) {
				hw[i] = now[i] - r0;
				hw_at[i] = r0;
				hw_src[i] = src;
			}
		prev[0] = now[0];
		prev[1] = now[1];
		prev_r0 = r0;
		have = 1;
		if (++r->n == SW_READY)
			atomic_store(&r->ready, 1);
	}
	return NULL;
}

/* CLOCK_TOD_MONOTONIC's rate against the raw clock over 1 s, in ppm */
static double sw_rate(void)
{
	int64_t r0, t0, r1, t1;

	sample(&r0, &t0);
	usleep(1000000);
	sample(&r1, &t1);
	return ((double)(t1 - t0) - (double)(r1 - r0)) * 1e6 / (double)(r1 - r0);
}

void case_switch(int argc, char **argv)
{
	static const char *const order[] = { "tsc", "hpet", "acpi_pm", "pit", "jiffies" };
	long secs = arg_long(argc, argv, 2, 10, 1, 3600);
	long period = arg_long(argc, argv, 3, 100, 1, 60000);
	const char *rot[ARRAY_SIZE(order)], *first;
	char orig[64], avail[256], now[64], stock0[64], stock[64];
	struct sw_reader *rd;
	long switches = 0, failed = 0, n = 0, inv[2] = { 0, 0 }, jumps[2] = { 0, 0 }, fewest = -1;
	int64_t res, end, worst[2] = { INT64_MIN, INT64_MIN };
	int64_t ahead[2] = { INT64_MIN, INT64_MIN }, tick = 0;
	struct sw_loss loss = { 0 }, to_jif = { 0 }, from_jif = { 0 }, trip = { 0 };
	int64_t pair_most[ARRAY_SIZE(order)][ARRAY_SIZE(order)];	/* most lost, from -> to */
	long to_jif_n[ARRAY_SIZE(order)] = { 0 }, from_jif_n[ARRAY_SIZE(order)] = { 0 };
	int nrot = 0, i, c, k, start = 0, ret, jif = -1;
	size_t j;

	ksft_set_plan(5);
	need_sysfs(orig, sizeof(orig), avail, sizeof(avail));
	need_vdso();
	for (j = 0; j < ARRAY_SIZE(order); j++) {
		if (in_word_list(avail, order[j])) {
			if (!strcmp(order[j], orig))
				start = nrot + 1;
			if (!strcmp(order[j], "jiffies"))
				jif = nrot;
			rot[nrot++] = order[j];
		}
	}
	if (nrot < 2)
		ksft_exit_fail_msg("fewer than two of tsc, hpet, acpi_pm, pit, jiffies are available\n");
	if (geteuid()) {
		skip_rest("writing current_timesource needs root");
		return;
	}

	/*
	 * Each source once: its resolution, its rate against the raw clock
	 * with the stock clocksource as found, and, when that is not the
	 * source's stock counterpart, again with the stock clocksource on the
	 * counterpart: the difference is the stock clocks' gap (see sw_slack()).
	 */
	if (read_line(STOCK_CLOCKSOURCE, stock0, sizeof(stock0)))
		ksft_exit_fail_msg("cannot read %s\n", STOCK_CLOCKSOURCE);
	for (i = 0; i < nrot; i++) {
		const char *like = stock_counterpart(rot[i]);
		double ppm, own, gap = 0, slack;

		if ((ret = set_source(rot[i])))
			ksft_exit_fail_msg("switching to %s: %s\n", rot[i], strerror(-ret));
		res = res_ns(CLOCK_TOD_MONOTONIC);
		if (!strcmp(rot[i], "jiffies")) {
			tick = res;
			ksft_print_msg("%s: clock_getres(CLOCK_TOD_MONOTONIC) = %lld ns\n", rot[i],
				       (long long)res);
			continue;
		}
		ppm = own = sw_rate();
		if (strcmp(like, stock0)) {
			ret = stock_clocksource_like(rot[i], stock, sizeof(stock));
			if (ret)
				ksft_exit_fail_msg("making the stock clocksource %s: %s\n", like,
						   strerror(-ret));
			own = sw_rate();
			if ((ret = write_file(STOCK_CLOCKSOURCE, stock)))
				ksft_exit_fail_msg("restoring the stock clocksource %s: %s\n", stock,
						   strerror(-ret));
			gap = ppm - own;
			/*
			 * Only a positive gap (the raw clock as found slower
			 * than the counterpart) lets a reading run ahead of it;
			 * each 1 s rate may be off by two steps of the source
			 * (the PIT's 838 ns: 1.7 ppm), the gap by four.
			 */
			slack = (gap > 0 ? gap : 0) + SW_RATE_MARGIN + 4e-3 * (double)res;
			if (slack > sw_ppm)
				sw_ppm = slack;
		}
		ksft_print_msg("%s: clock_getres(CLOCK_TOD_MONOTONIC) = %lld ns, rate %+.2f ppm against the raw clock on %s, %+.2f on %s (stock gap %+.2f ppm)\n",
			       rot[i], (long long)res, ppm, stock0, own, like, gap);
	}

	/*
	 * The time each switch loses: every ordered pair of the sources that
	 * count continuously, 5 times, and every round trip X -> jiffies -> Y
	 * through them, 5 times (see sw_trip_max()).
	 */
	for (k = 0; k < 5; k++) {
		for (i = 0; i < nrot; i++) {
			for (c = 0; c < nrot; c++) {
				int64_t r0, t0, r1, t1;

				if (i == c || i == jif || c == jif)
					continue;
				if (set_source(rot[i]))
					ksft_exit_fail_msg("switching to %s failed\n", rot[i]);
				usleep(10000);
				sample(&r0, &t0);
				if (set_source(rot[c]))
					ksft_exit_fail_msg("switching %s -> %s failed\n", rot[i], rot[c]);
				sample(&r1, &t1);
				sw_loss_add(&loss, (r1 - r0) - (t1 - t0));
				if (!k || (r1 - r0) - (t1 - t0) > pair_most[i][c])
					pair_most[i][c] = (r1 - r0) - (t1 - t0);
			}
		}
		for (i = 0; jif >= 0 && i < nrot; i++) {
			for (c = 0; c < nrot; c++) {
				int64_t r[4], t[4], in, out;

				if (i == jif || c == jif)
					continue;
				if (set_source(rot[i]))
					ksft_exit_fail_msg("switching to %s failed\n", rot[i]);
				usleep(10000);
				sample(&r[0], &t[0]);
				if (set_source("jiffies"))
					ksft_exit_fail_msg("switching %s -> jiffies failed\n", rot[i]);
				sample(&r[1], &t[1]);
				usleep(10000);
				sample(&r[2], &t[2]);
				if (set_source(rot[c]))
					ksft_exit_fail_msg("switching jiffies -> %s failed\n", rot[c]);
				sample(&r[3], &t[3]);
				in = (r[1] - r[0]) - (t[1] - t[0]);
				out = (r[3] - r[2]) - (t[3] - t[2]);
				sw_loss_add(&to_jif, in);
				sw_loss_add(&from_jif, out);
				sw_loss_add(&trip, (r[3] - r[0]) - (t[3] - t[0]));
				if (!to_jif_n[i]++ || in > pair_most[i][jif])
					pair_most[i][jif] = in;
				if (!from_jif_n[c]++ || out > pair_most[jif][c])
					pair_most[jif][c] = out;
			}
		}
	}
	ksft_print_msg("time lost per switch between tsc, hpet, acpi_pm, pit: mean %.1f us, from %.1f to %.1f us (%ld switches)\n",
		       loss.n ? loss.sum / 1e3 / loss.n : 0, loss.least / 1e3, loss.most / 1e3,
		       loss.n);
	if (jif >= 0) {
		ksft_print_msg("on the way through jiffies: to it %.1f to %.1f us, from it %.1f to %.1f us (readings there stand at the tick), the round trip %.1f to %.1f us, mean %.1f us (%ld round trips)\n",
			       to_jif.least / 1e3, to_jif.most / 1e3, from_jif.least / 1e3,
			       from_jif.most / 1e3, trip.least / 1e3, trip.most / 1e3,
			       trip.sum / 1e3 / trip.n, trip.n);
	}
	for (i = 0; i < nrot; i++)
		for (c = 0; c < nrot; c++)
			if (i != c)
				ksft_print_msg("most lost %s -> %s: %.1f us%s\n", rot[i], rot[c],
					       pair_most[i][c] / 1e3,
					       i == jif || c == jif ? " (with the tick's lag)" : "");
	/*
	 * The readers' rule takes their earlier readings as the time; a
	 * reading on jiffies is behind it (the time its tick began), so they
	 * start on a source that counts continuously.
	 */
	first = rot[(start + nrot - 1) % nrot];
	if (!strcmp(first, "jiffies")) {
		first = rot[0];		/* jiffies is last in order[] */
		start = 1;
	}
	if ((ret = set_source(first)))
		ksft_exit_fail_msg("switching to %s: %s\n", first, strerror(-ret));
	sw_names = rot;
	for (c = 0; c < nrot; c++)
		if (!strcmp(rot[c], first))
			atomic_store(&sw_cur, c);
	ksft_print_msg("rule: %d readers, rotation every %ld ms for %ld s; no step back, never ahead of earlier readings + elapsed + 2 us + %.1f ppm of the run (largest stock gap + %.0f)\n",
		       ncpus, period, secs, sw_ppm, SW_RATE_MARGIN);
	sw_start = raw_ns();

	rd = calloc(ncpus, sizeof(*rd));
	if (!rd)
		ksft_exit_fail_msg("out of memory\n");
	for (c = 0; c < ncpus; c++) {
		rd[c].cpu = cpus[c];
		ret = pthread_create(&rd[c].th, NULL, sw_thread, &rd[c]);
		if (ret)
			ksft_exit_fail_msg("pthread_create: %s\n", strerror(ret));
	}
	/*
	 * The rotation starts once every reader has read the first source:
	 * a reader whose first reading came after a switch to jiffies would
	 * take the clock standing until the first count for the time (see
	 * tod_start_at_tick()) and call the count's catch-up a jump.
	 */
	end = raw_ns() + 10 * NSEC_PER_SEC;
	for (c = 0; c < ncpus; c++) {
		while (!atomic_load(&rd[c].ready) && raw_ns() < end)
			usleep(1000);
		if (!atomic_load(&rd[c].ready))
			ksft_exit_fail_msg("cpu%d's reader made fewer than %d readings in 10 s: is the CPU starved?\n",
					   rd[c].cpu, SW_READY);
	}
	end = raw_ns() + secs * NSEC_PER_SEC;
	for (i = start; raw_ns() < end; i++) {
		const char *to = rot[i % nrot];

		atomic_store(&sw_cur, -1);
		ret = set_source(to);
		atomic_store(&sw_cur, i % nrot);
		if (ret || tod_sysfs_read("current_timesource", now, sizeof(now)) ||
		    strcmp(now, to)) {
			if (!failed++)
				ksft_print_msg("switch to %s: %s (now '%s')\n", to,
					       ret ? strerror(-ret) : "did not take effect", now);
		}
		switches++;
		usleep(period * 1000);
	}
	atomic_store(&sw_stop, 1);
	for (c = 0; c < ncpus; c++) {
		pthread_join(rd[c].th, NULL);
		ksft_print_msg("cpu%d: %ld readings, %ld errors; most ahead of earlier readings: mono %lld ns, real %lld ns; largest step - elapsed: mono %lld ns, real %lld ns\n",
			       rd[c].cpu, rd[c].n, rd[c].errors, (long long)rd[c].ahead[0],
			       (long long)rd[c].ahead[1], (long long)rd[c].worst[0],
			       (long long)rd[c].worst[1]);
		n += rd[c].n;
		failed += rd[c].errors;
		if (fewest < 0 || rd[c].n < fewest)
			fewest = rd[c].n;
		for (i = 0; i < 2; i++) {
			inv[i] += rd[c].inv[i];
			jumps[i] += rd[c].jumps[i];
			if (rd[c].worst[i] > worst[i])
				worst[i] = rd[c].worst[i];
			if (rd[c].ahead[i] > ahead[i])
				ahead[i] = rd[c].ahead[i];
		}
	}
	free(rd);
	ret = set_source(orig);

	ksft_test_result(!failed && switches >= nrot,
			 "%ld switches over %d sources, every one took effect (%ld failed)\n",
			 switches, nrot, failed);
	/* readers that hardly ran would pass vacuously */
	ksft_test_result(!inv[0] && !jumps[0] && fewest >= 1000,
			 "CLOCK_TOD_MONOTONIC: %ld readings (fewest per CPU %ld), %ld steps back, %ld jumps (most ahead %lld ns, allowed at the end %lld; largest step - elapsed %lld ns)\n",
			 n, fewest, inv[0], jumps[0], (long long)ahead[0], (long long)sw_slack(raw_ns()),
			 (long long)worst[0]);
	ksft_test_result(!inv[1] && !jumps[1] && fewest >= 1000,
			 "CLOCK_TOD_REALTIME: %ld readings (fewest per CPU %ld), %ld steps back, %ld jumps (most ahead %lld ns, allowed at the end %lld; largest step - elapsed %lld ns)\n",
			 n, fewest, inv[1], jumps[1], (long long)ahead[1], (long long)sw_slack(raw_ns()),
			 (long long)worst[1]);
	ksft_test_result((loss.n || trip.n) &&
			 (!loss.n || (loss.most <= sw_loss_max() && loss.least >= -sw_gain_max())) &&
			 (jif < 0 || (trip.n && to_jif.least >= -sw_gain_max() &&
				      from_jif.most <= sw_loss_max() &&
				      trip.most <= sw_trip_max() && trip.least >= -sw_gain_max())),
			 "a switch loses at most %lld us%s and gains at most %lld us: between tsc, hpet, acpi_pm, pit %.1f to %.1f us; through jiffies (tick %lld us) going to it %.1f us at least, leaving it %.1f us at most, a round trip %.1f to %.1f us (at most %lld us)\n",
			 (long long)sw_loss_max() / 1000, tod_debug_kernel() ? " (debug kernel)" : "",
			 (long long)sw_gain_max() / 1000, loss.least / 1e3, loss.most / 1e3,
			 (long long)tick / 1000, to_jif.least / 1e3, from_jif.most / 1e3,
			 trip.least / 1e3, trip.most / 1e3, (long long)sw_trip_max() / 1000);
	ksft_test_result(!ret && !tod_sysfs_read("current_timesource", now, sizeof(now)) &&
			 !strcmp(now, orig),
			 "original timesource '%s' restored\n", orig);
}
