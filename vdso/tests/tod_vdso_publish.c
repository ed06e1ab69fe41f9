// SPDX-License-Identifier: GPL-2.0
/*
 * tod_vdso: the publish case, readers on every CPU while adjtimex changes
 * the rate of the tod clock and the core is slow to publish it. Its rule
 * is in tod_vdso.c.
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
#include <sys/mount.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "tod_vdso.h"

/* --- publish --------------------------------------------------------------- */

#define PUB_HOOK	"/sys/kernel/debug/newtod_adjtimex_publish_delay_us"
#define PUB_DELAY_US	1000
#define PUB_TICK_LO	9000		/* us per 1/USER_HZ: -10 % */
#define PUB_TICK_HI	11000		/* +10 % */

/*
 * The core computes a change (here an adjtimex that sets the tick length,
 * which changes the rate by up to 10 %) with readers running on, then
 * publishes it with a short copy. Readers extrapolate the old state
 * meanwhile, at the old rate; the new state must continue from where they
 * got to, or the clock steps back by the time they extrapolated times the
 * change of rate. The hook makes that time 1 ms, so flipping between -10 %
 * and +10 % would step back up to 200 us a flip. (The delay holds tod_lock
 * with interrupts off, as a preempted vCPU would: a tick on the other CPU
 * then waits for the lock, and its reader with it, so only the flips that
 * no tick meets can show a step back; a tick comes every 4 ms.)
 */
struct pub_reader {
	pthread_t th;
	int cpu;
	long n, errors, inv;
	int64_t worst;		/* the largest step back, ns */
};

static atomic_int pub_stop;

static void *pub_thread(void *arg)
{
	struct pub_reader *r = arg;
	int64_t prev[2] = { 0, 0 }, now;
	int i;

	if (pin_cpu(r->cpu)) {
		ksft_print_msg("sched_setaffinity(cpu%d): %s\n", r->cpu, strerror(errno));
		r->errors++;
		return NULL;
	}
	while (!atomic_load_explicit(&pub_stop, memory_order_relaxed)) {
		for (i = 0; i < 2; i++) {
			clockid_t id = i ? CLOCK_TOD_REALTIME : CLOCK_TOD_MONOTONIC;

			/* every other reading by the system call */
			if ((r->n & 1) ? sys_ns(id, &now) : vdso_ns(vt_cgt, id, &now)) {
				r->errors++;
				prev[i] = 0;
				continue;
			}
			if (prev[i] && now < prev[i]) {
				r->inv++;
				if (prev[i] - now > r->worst)
					r->worst = prev[i] - now;
			}
			prev[i] = now;
		}
		r->n++;
	}
	return NULL;
}

static int pub_write(const char *path, long val)
{
	char buf[32];
	int fd = open(path, O_WRONLY), ret = 0, len;

	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%ld", val);
	if (write(fd, buf, len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

static int pub_tick(long tick)
{
	struct timex tx = { .modes = ADJ_TICK, .tick = tick };

	return syscall(TOD_SYS_clock_adjtime, CLOCK_TOD_REALTIME, &tx) < 0 ? -errno : 0;
}

void case_publish(int argc, char **argv)
{
	long secs = arg_long(argc, argv, 2, 5, 1, 600), flips = 0, n = 0, inv = 0, errors = 0, late = 0;
	struct pub_reader r[CPU_SETSIZE];
	struct timex tx = { 0 };
	int64_t worst = 0, end, shortest = INT64_MAX;
	int i, ret;

	ksft_set_plan(1);
	need_vdso();
	/* a reader must run while the writer's CPU holds tod_lock */
	if (ncpus < 2)
		ksft_exit_skip("one CPU: no reader can run while the writer holds the lock\n");
	/* jiffies publishes in a long section: there is no late publish to test */
	if (res_ns(CLOCK_TOD_MONOTONIC) >= 1000000)
		ksft_exit_fail_msg("the core is on a source that counts ticks: run this on tsc, hpet or acpi_pm\n");
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (syscall(TOD_SYS_clock_adjtime, CLOCK_TOD_REALTIME, &tx) < 0)
		ksft_exit_fail_msg("clock_adjtime(CLOCK_TOD_REALTIME): %s\n", strerror(errno));
	ret = pub_write(PUB_HOOK, PUB_DELAY_US);
	if (ret)
		ksft_exit_fail_msg("%s: %s (the kernel needs CONFIG_NEWTOD_TEST_HOOKS, and DEBUG_FS)\n",
				   PUB_HOOK, strerror(-ret));
	atomic_store(&pub_stop, 0);
	for (i = 0; i < ncpus; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].cpu = cpus[i];
		pthread_create(&r[i].th, NULL, pub_thread, &r[i]);
	}
	end = raw_ns() + secs * NSEC_PER_SEC;
	while (raw_ns() < end) {
		int64_t t0 = raw_ns();

		ret = pub_tick(flips & 1 ? PUB_TICK_LO : PUB_TICK_HI);
		/*
		 * The hook delayed the publish: the call took that long at
		 * least. The hook waits on CLOCK_MONOTONIC_RAW, as this
		 * measures; 90 % of it leaves room for the two clocks' reads.
		 */
		t0 = raw_ns() - t0;
		late += t0 >= PUB_DELAY_US * 900LL;
		if (t0 < shortest)
			shortest = t0;
		if (ret) {
			ksft_print_msg("clock_adjtime(ADJ_TICK): %s\n", strerror(-ret));
			errors++;
			break;
		}
		flips++;
		usleep(2000);
	}
	atomic_store(&pub_stop, 1);
	for (i = 0; i < ncpus; i++) {
		pthread_join(r[i].th, NULL);
		n += r[i].n;
		inv += r[i].inv;
		errors += r[i].errors;
		if (r[i].worst > worst)
			worst = r[i].worst;
	}
	pub_write(PUB_HOOK, 0);
	ret = pub_tick(tx.tick);
	if (ret)
		ksft_print_msg("could not put the tick back to %lld: %s\n", (long long)tx.tick, strerror(-ret));
	ksft_print_msg("%ld readings on %d CPUs, %ld flips of the tick between %d and %d us, each published %d us late\n",
		       n, ncpus, flips, PUB_TICK_LO, PUB_TICK_HI, PUB_DELAY_US);
	ksft_test_result(inv == 0 && errors == 0 && flips >= 10 && n > flips && late == flips,
			 "no reading stepped back across a late publish: %ld inversions (worst %lld ns), %ld errors, %ld of %ld calls delayed (the shortest took %lld us)\n",
			 inv, (long long)worst, errors, late, flips, (long long)(shortest / 1000));
}

/* --- query ----------------------------------------------------------------- */

#define Q_CALLS		2000
#define Q_STOCK_DATA	128		/* the stock vdso_data: DECLARE_VVAR(128, ...) */
#define Q_TOD_DATA	(4 * PAGE + 128)	/* the core's: its fifth page, TOD_VDSO_DATA_OFFSET in */

/*
 * Q_CALLS clock_adjtime(clk) calls with MODES (and FREQ): how many of them
 * saw the sequence count at SEQ change across the call; -1 if a call failed.
 */
static long q_moved(const volatile uint32_t *seq, clockid_t clk, unsigned int modes, long freq)
{
	long moved = 0, i;

	for (i = 0; i < Q_CALLS; i++) {
		struct timex tx = { .modes = modes, .freq = freq };
		uint32_t before = __atomic_load_n(seq, __ATOMIC_ACQUIRE);

		if (syscall(TOD_SYS_clock_adjtime, clk, &tx) < 0) {
			ksft_print_msg("clock_adjtime(%d, modes %#x): %s\n", (int)clk, modes, strerror(errno));
			return -1;
		}
		moved += __atomic_load_n(seq, __ATOMIC_ACQUIRE) != before;
	}
	return moved;
}

/*
 * A tick that comes right after an accumulation has nothing to publish:
 * as stock's, it leaves the page alone. For Q_TICKS_SECS, changes (the same
 * frequency again) one after the other: each publishes once (the count
 * moves by 2), and a tick between two of them finds the last accumulation
 * microseconds old. Only where this process did not run for half a tick
 * or more (the vCPU taken away) may a tick publish: one for each tick of
 * such a gap past its first half tick, counted on CLOCK_MONOTONIC_RAW
 * around each call, plus 2 (the safety timer, the loop's ends). A tick is
 * CLOCK_REALTIME_COARSE's resolution. The frequency is written back as
 * read; a PLL would see it as set by hand.
 */
#define Q_TICKS_SECS	1

static void q_ticks(const volatile uint32_t *seq, long freq)
{
	int64_t tick = res_ns(CLOCK_REALTIME_COARSE), t0, prev, now, gap;
	uint32_t before = __atomic_load_n(seq, __ATOMIC_ACQUIRE), moved;
	long calls = 0, allowed = 2, ticks, extra;

	if (tick <= 0)
		ksft_exit_fail_msg("clock_getres(CLOCK_REALTIME_COARSE): %s\n", strerror(errno));
	t0 = prev = raw_ns();
	do {
		struct timex tx = { .modes = ADJ_FREQUENCY, .freq = freq };

		if (syscall(TOD_SYS_clock_adjtime, CLOCK_TOD_REALTIME, &tx) < 0) {
			ksft_test_result_fail("clock_adjtime(ADJ_FREQUENCY): %s\n", strerror(errno));
			return;
		}
		calls++;
		now = raw_ns();
		gap = now - prev;
		if (gap >= tick / 2)
			allowed += (gap - tick / 2 + tick - 1) / tick;
		prev = now;
	} while (now - t0 < Q_TICKS_SECS * NSEC_PER_SEC);
	moved = __atomic_load_n(seq, __ATOMIC_ACQUIRE) - before;
	ticks = (now - t0) / tick;
	extra = (long)(moved / 2) - calls;
	ksft_test_result(extra >= 0 && extra <= allowed && allowed < ticks / 2,
			 "ticks among changes made one after the other published %ld times in %ld ticks (at most %ld: gaps of half a tick or more; %ld changes, the count moved by %u)\n",
			 extra, ticks, allowed, calls, moved);
}

/*
 * A query of adjtimex (modes 0, or adjtime(3)'s read) changes nothing, so
 * the core must not write its page for it: readers would retry on every
 * query, as they do on a change. Stock's query leaves its vDSO data alone.
 * A tick may land inside a call and move the count, so a query may move it
 * in a few calls out of Q_CALLS (at most 1 in 10 is allowed); a change moves
 * it in every call, which shows the count read is the one the core writes.
 */
void case_query(int argc, char **argv)
{
	unsigned long start, end;
	const volatile uint32_t *tod, *stock;
	struct timex tx = { 0 };
	long q0, qss, chg, st;

	(void)argc;
	(void)argv;
	ksft_set_plan(4);
	if (find_vvar(&start, &end) || end - start < 5 * PAGE)
		ksft_exit_fail_msg("no [vvar] of 5 pages or more in /proc/self/maps: is this the kernel with CONFIG_NEWTOD?\n");
	tod = (const volatile uint32_t *)(start + Q_TOD_DATA);
	stock = (const volatile uint32_t *)(start + Q_STOCK_DATA);
	if (syscall(TOD_SYS_clock_adjtime, CLOCK_TOD_REALTIME, &tx) < 0)
		ksft_exit_fail_msg("clock_adjtime(CLOCK_TOD_REALTIME): %s\n", strerror(errno));

	q0 = q_moved(tod, CLOCK_TOD_REALTIME, 0, 0);
	ksft_test_result(q0 >= 0 && q0 <= Q_CALLS / 10,
			 "a modes 0 query left the core's page alone: its count moved in %ld of %d calls\n",
			 q0, Q_CALLS);
	qss = q_moved(tod, CLOCK_TOD_REALTIME, ADJ_OFFSET_SS_READ, 0);
	ksft_test_result(qss >= 0 && qss <= Q_CALLS / 10,
			 "adjtime(3)'s read (ADJ_OFFSET_SS_READ) left the core's page alone: moved in %ld of %d calls\n",
			 qss, Q_CALLS);
	/* the same frequency again: a change as adjtimex sees it, and no harm */
	chg = q_moved(tod, CLOCK_TOD_REALTIME, ADJ_FREQUENCY, tx.freq);
	ksft_test_result(chg == Q_CALLS,
			 "a change (ADJ_FREQUENCY, the same value) wrote the page every time: moved in %ld of %d calls\n",
			 chg, Q_CALLS);
	q_ticks(tod, tx.freq);
	st = q_moved(stock, CLOCK_REALTIME, 0, 0);
	ksft_print_msg("for comparison, stock: a modes 0 query of CLOCK_REALTIME moved its vDSO count in %ld of %d calls\n",
		       st, Q_CALLS);
}
