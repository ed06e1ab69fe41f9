// SPDX-License-Identifier: GPL-2.0
/*
 * tod_core: the new timeofday core's clock ids, seen from user space.
 *
 * For every timesource the core offers (switched through sysfs): time is
 * continuous across the switch (the readings just before and just after
 * differ by no more than the real elapsed time plus 1 us, and a switch away
 * from jiffies by no more than how far its clock stood behind), all four clock
 * ids are monotonic on every CPU, and CLOCK_TOD_MONOTONIC runs at the rate
 * of the stock CLOCK_MONOTONIC_RAW within 10 ppm (not for jiffies, whose
 * rate is the tick's). Then the error cases: unknown clock ids, timers and
 * sleeps on the tod ids, bad pointers, bad sysfs writes, settime with and
 * without CAP_SYS_TIME.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "todtest.h"

static int rate_secs = 5;

static long monotonic_on_cpus(long iters)
{
	static const clockid_t ids[] = { CLOCK_TOD_REALTIME, CLOCK_TOD_MONOTONIC,
					 CLOCK_TOD_REALTIME_COARSE, CLOCK_TOD_MONOTONIC_COARSE };
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), cpu, k;
	long bad = 0, i;

	for (cpu = 0; cpu < ncpu; cpu++) {
		pin_cpu(cpu);	/* best effort: on failure, this round runs on the last CPU */
		for (k = 0; k < 4; k++) {
			int64_t prev = ns_of(ids[k]), now;

			for (i = 0; i < iters; i++) {
				now = ns_of(ids[k]);
				if (now < prev) {
					if (!bad++)
						ksft_print_msg("clock %d went back %lld ns on cpu%d\n",
							       ids[k], (long long)(prev - now), cpu);
				}
				prev = now;
			}
		}
	}
	return bad;
}

/*
 * CLOCK_MONOTONIC less CLOCK_TOD_MONOTONIC while the core is on a
 * continuous source: the largest of a few (stock read first, so each
 * difference is short by the time between the two reads, never long).
 */
static int64_t stock_ahead_of_tod(void)
{
	int64_t best = INT64_MIN, d;
	int i;

	for (i = 0; i < 16; i++) {
		d = ns_of(CLOCK_MONOTONIC);
		d -= ns_of(CLOCK_TOD_MONOTONIC);
		if (d > best)
			best = d;
	}
	return best;
}

static void test_source(const char *name)
{
	int64_t a, raw0, raw1, tod0, tod1, t_before, t_after, raw_before, raw_after, stock_before;
	static int64_t ahead = INT64_MIN;	/* stock_ahead_of_tod() before the switch to jiffies */
	int64_t lag = 0, allowed;
	char cur[64] = "", stock[64], behind[64] = "";
	const char *like;
	double ppm;
	int ret, from_tick;

	/*
	 * Continuity across the switch. The clock of a tick source (jiffies)
	 * stands between counts, at the time the last one began, and starts
	 * at the next count after the switch to it. A switch away takes it to
	 * where a continuous clock would stand: a step of the elapsed time
	 * plus how far it stood behind, which is a tick and however late the
	 * next one is (more than a tick when the host stalls the guest). That
	 * lag is measured against the stock CLOCK_MONOTONIC, whose distance
	 * from CLOCK_TOD_MONOTONIC was taken on the continuous source before.
	 */
	tod_sysfs_read("current_timesource", cur, sizeof(cur));
	from_tick = !strcmp(cur, "jiffies");
	if (!from_tick)
		ahead = stock_ahead_of_tod();
	raw_before = ns_of(CLOCK_MONOTONIC_RAW);
	stock_before = ns_of(CLOCK_MONOTONIC);
	t_before = ns_of(CLOCK_TOD_MONOTONIC);
	ret = tod_sysfs_write("current_timesource", name);
	t_after = ns_of(CLOCK_TOD_MONOTONIC);
	raw_after = ns_of(CLOCK_MONOTONIC_RAW);
	if (ret) {
		ksft_test_result_fail("%s: switching through sysfs: %s\n", name, strerror(-ret));
		return;
	}
	tod_sysfs_read("current_timesource", cur, sizeof(cur));
	ksft_test_result(!strcmp(cur, name), "%s: current_timesource reads back '%s'\n", name, cur);
	if (from_tick && ahead != INT64_MIN) {
		lag = stock_before - ahead - t_before;
		if (lag < 0)
			lag = 0;
	} else if (from_tick) {
		lag = INT64_MAX / 2;	/* booted on jiffies: no reference, only the order is checked */
	}
	/* 20 us: the two clocks' rates differ by a few ppm over the seconds on jiffies */
	allowed = raw_after - raw_before + 1000 + (from_tick ? lag + 20000 : 0);
	if (from_tick)
		snprintf(behind, sizeof(behind), ", from a clock %lld ns behind", (long long)lag);
	ksft_test_result(t_after >= t_before && t_after - t_before <= allowed,
			 "%s: switch is continuous (step %lld ns over %lld ns elapsed%s)\n",
			 name, (long long)(t_after - t_before), (long long)(raw_after - raw_before),
			 behind);

	a = monotonic_on_cpus(20000);
	ksft_test_result(a == 0, "%s: four clock ids monotonic on every CPU (%ld inversions)\n",
			 name, (long)a);

	if (!strcmp(name, "jiffies")) {
		ksft_test_result_skip("jiffies: rate is the tick's; not compared to MONOTONIC_RAW\n");
		return;
	}
	/* the stock clocks on the same counter: see stock_clocksource_like() */
	like = stock_counterpart(name);
	ret = stock_clocksource_like(name, stock, sizeof(stock));
	if (ret) {
		ksft_test_result_fail("%s: making the stock clocksource %s: %s\n", name, like,
				      strerror(-ret));
		return;
	}
	sample(&raw0, &tod0);
	sleep(rate_secs);
	sample(&raw1, &tod1);
	ret = write_file(STOCK_CLOCKSOURCE, stock);
	ppm = ((double)(tod1 - tod0) / (double)(raw1 - raw0) - 1.0) * 1e6;
	ksft_test_result(ppm > -10 && ppm < 10 && !ret,
			 "%s: rate vs CLOCK_MONOTONIC_RAW (stock clocksource %s) over %d s: %+.3f ppm (limit 10)%s\n",
			 name, like, rate_secs, ppm,
			 ret ? ", and the stock clocksource was not restored" : "");
}

static void test_errors(void)
{
	struct timespec ts;
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	timer_t t;
	int64_t before, after, tick;
	pid_t pid;
	int st;

	errno = 0;
	ksft_test_result(syscall(TOD_SYS_clock_gettime, 16, &ts) == -1 && errno == EINVAL,
			 "clock_gettime(16) fails with EINVAL\n");
	errno = 0;
	ksft_test_result(syscall(TOD_SYS_clock_getres, 16, &ts) == -1 && errno == EINVAL,
			 "clock_getres(16) fails with EINVAL\n");
	errno = 0;
	ksft_test_result(syscall(SYS_timer_create, CLOCK_TOD_REALTIME, &sev, &t) == -1 &&
			 errno == EOPNOTSUPP, "timer_create(CLOCK_TOD_REALTIME) fails with EOPNOTSUPP (%s)\n",
			 strerror(errno));
	ts.tv_sec = 0;
	ts.tv_nsec = 1000;
	errno = 0;
	ksft_test_result(syscall(TOD_SYS_clock_nanosleep, CLOCK_TOD_MONOTONIC, 0, &ts, NULL) == -1 &&
			 errno == EOPNOTSUPP, "clock_nanosleep(CLOCK_TOD_MONOTONIC) fails with EOPNOTSUPP (%s)\n",
			 strerror(errno));
	errno = 0;
	ksft_test_result(syscall(TOD_SYS_clock_gettime, CLOCK_TOD_REALTIME, (void *)8) == -1 &&
			 errno == EFAULT, "clock_gettime(CLOCK_TOD_REALTIME, bad pointer) fails with EFAULT\n");
	ksft_test_result(tod_sysfs_write("current_timesource", "no-such-source") == -EINVAL,
			 "writing an unknown name to current_timesource fails with EINVAL\n");
	ksft_test_result(syscall(TOD_SYS_clock_getres, CLOCK_TOD_MONOTONIC, &ts) == 0 && ts.tv_sec == 0 &&
			 ts.tv_nsec >= 1, "clock_getres(CLOCK_TOD_MONOTONIC) = %ld ns\n", ts.tv_nsec);

	/*
	 * settime as root: +100 s, read back, and set back. A source that
	 * counts ticks (jiffies) reads the time its tick began: the time set
	 * is placed inside the tick, so the reading after may be up to a tick
	 * less (the clock is never ahead).
	 */
	syscall(TOD_SYS_clock_getres, CLOCK_TOD_REALTIME, &ts);
	tick = ts.tv_sec == 0 && ts.tv_nsec >= 1000000 ? ts.tv_nsec : 0;
	before = ns_of(CLOCK_TOD_REALTIME);
	ts.tv_sec = before / 1000000000 + 100;
	ts.tv_nsec = before % 1000000000;
	st = syscall(TOD_SYS_clock_settime, CLOCK_TOD_REALTIME, &ts);
	after = ns_of(CLOCK_TOD_REALTIME);
	ksft_test_result(st == 0 && after - before >= 100000000000LL - tick &&
			 after - before < 100010000000LL,
			 "clock_settime(CLOCK_TOD_REALTIME) as root moves it by +100 s (%lld ns)\n",
			 (long long)(after - before));
	ts.tv_sec -= 100;
	syscall(TOD_SYS_clock_settime, CLOCK_TOD_REALTIME, &ts);
	errno = 0;
	ts.tv_nsec = 2000000000;
	ksft_test_result(syscall(TOD_SYS_clock_settime, CLOCK_TOD_REALTIME, &ts) == -1 && errno == EINVAL,
			 "clock_settime with tv_nsec = 2e9 fails with EINVAL\n");
	errno = 0;
	ksft_test_result(syscall(TOD_SYS_clock_settime, CLOCK_TOD_MONOTONIC, &ts) == -1 && errno == EINVAL,
			 "clock_settime(CLOCK_TOD_MONOTONIC) fails with EINVAL\n");

	/* without CAP_SYS_TIME: EPERM for settime and for the sysfs switch */
	pid = fork();
	if (pid == 0) {
		struct timespec now;

		if (drop_cap_sys_time())
			_exit(3);
		syscall(TOD_SYS_clock_gettime, CLOCK_TOD_REALTIME, &now);
		if (syscall(TOD_SYS_clock_settime, CLOCK_TOD_REALTIME, &now) != -1 || errno != EPERM)
			_exit(1);
		if (tod_sysfs_write("current_timesource", "jiffies") != -EPERM)
			_exit(2);
		_exit(0);
	}
	waitpid(pid, &st, 0);
	ksft_test_result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			 "without CAP_SYS_TIME: settime and the sysfs switch fail with EPERM (child %d)\n",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
	char avail[256], orig[64], *tok, *save = NULL;
	int64_t stock, tod;
	int n = 0;

	if (argc > 1)
		rate_secs = atoi(argv[1]);
	ksft_print_header();
	if (tod_sysfs_read("available_timesource", avail, sizeof(avail)) ||
	    tod_sysfs_read("current_timesource", orig, sizeof(orig)))
		ksft_exit_fail_msg("no " TOD_SYSFS ": is CONFIG_NEWTOD on?\n");
	ksft_print_msg("available: %s; current: %s\n", avail, orig);
	for (tok = avail; *tok; tok++)
		n += *tok == ' ';
	ksft_set_plan(4 * (n + 1) + 13);
	ksft_test_result(strstr(avail, "tsc") && strstr(avail, "hpet") && strstr(avail, "acpi_pm") &&
			 strstr(avail, "pit") && strstr(avail, "jiffies"),
			 "tsc, hpet, acpi_pm, pit and jiffies are all registered\n");

	/*
	 * Before any switch: tod realtime agrees with the stock realtime it was
	 * started from (the jiffies source, tested below, drifts with the tick).
	 */
	stock = ns_of(CLOCK_REALTIME);
	tod = ns_of(CLOCK_TOD_REALTIME);
	ksft_test_result(llabs(tod - stock) < 1000000,
			 "CLOCK_TOD_REALTIME within 1 ms of CLOCK_REALTIME after boot (%lld ns)\n",
			 (long long)(tod - stock));

	for (tok = strtok_r(avail, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		test_source(tok);
	tod_sysfs_write("current_timesource", orig);
	test_errors();
	tod_sysfs_write("current_timesource", orig);
	ksft_finished();
}
