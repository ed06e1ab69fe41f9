// SPDX-License-Identifier: GPL-2.0
/*
 * tod_core: the new timeofday core's clock ids, seen from user space.
 *
 * For every timesource the core offers (switched through sysfs): time is
 * continuous across the switch (the readings just before and just after
 * differ by no more than the real elapsed time plus 1 us, and a switch away
 * from jiffies by no more than how far its clock stood behind), all four clock
 * ids are monotonic on every CPU, and CLOCK_TOD_MONOTONIC runs at the rate
 * of the stock CLOCK_MONOTONIC_RAW within TOD_RATE_PPM (not for jiffies, whose
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

/*
 * Inversions of the four ids on each CPU we may run on, pinned to it in
 * turn. A CPU that cannot be pinned to (*unpinned) or a clock that cannot
 * be read (*errs) is counted, never taken for "no inversion"; so is a
 * failure to give the thread back its CPUs at the end.
 */
static long monotonic_on_cpus(long iters, long *errs, int *unpinned)
{
	static const clockid_t ids[] = { CLOCK_TOD_REALTIME, CLOCK_TOD_MONOTONIC,
					 CLOCK_TOD_REALTIME_COARSE, CLOCK_TOD_MONOTONIC_COARSE };
	cpu_set_t allowed;
	int cpu, k;
	long bad = 0, i;

	*errs = 0;
	*unpinned = 0;
	if (sched_getaffinity(0, sizeof(allowed), &allowed)) {
		ksft_print_msg("sched_getaffinity: %s\n", strerror(errno));
		*unpinned = 1;
		return 0;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		if (!CPU_ISSET(cpu, &allowed))
			continue;
		if (pin_cpu(cpu)) {
			if (!(*unpinned)++)
				ksft_print_msg("pinning to cpu%d: %s\n", cpu, strerror(errno));
			continue;
		}
		for (k = 0; k < 4; k++) {
			int64_t prev = -1, now;

			for (i = 0; i <= iters; i++) {
				now = ns_of(ids[k]);
				if (now < 0) {
					if (!(*errs)++)
						ksft_print_msg("clock_gettime(%d) on cpu%d: %s\n",
							       ids[k], cpu, strerror(errno));
					continue;
				}
				if (prev >= 0 && now < prev) {
					if (!bad++)
						ksft_print_msg("clock %d went back %lld ns on cpu%d\n",
							       ids[k], (long long)(prev - now), cpu);
				}
				prev = now;
			}
		}
	}
	if (sched_setaffinity(0, sizeof(allowed), &allowed)) {
		ksft_print_msg("restoring the CPU affinity: %s\n", strerror(errno));
		(*unpinned)++;
	}
	return bad;
}

/*
 * CLOCK_MONOTONIC less CLOCK_TOD_MONOTONIC while the core is on a
 * continuous source: the largest of a few (stock read first, so each
 * difference is short by the time between the two reads, never long),
 * into *ahead. 0, or -1 if a clock could not be read (*ahead INT64_MIN).
 */
static int stock_ahead_of_tod(int64_t *ahead)
{
	int64_t best = INT64_MIN, s, t;
	int i;

	for (i = 0; i < 16; i++) {
		s = ns_of(CLOCK_MONOTONIC);
		t = ns_of(CLOCK_TOD_MONOTONIC);
		if (s < 0 || t < 0) {
			*ahead = INT64_MIN;
			return -1;
		}
		if (s - t > best)
			best = s - t;
	}
	*ahead = best;
	return 0;
}

static void test_source(const char *name)
{
	int64_t a, raw0, raw1, tod0, tod1, t_before, t_after, raw_before, raw_after, stock_before;
	static int64_t ahead = INT64_MIN;	/* stock_ahead_of_tod() before the switch to jiffies */
	static int ahead_err;			/* and whether it failed to read a clock */
	int64_t lag = 0, allowed;
	char cur[64] = "", stock[64], behind[64] = "", unrestored[128] = "";
	const char *like;
	double ppm, lim;
	int ret, from_tick, read_err, unpinned;
	long errs;

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
	read_err = tod_sysfs_read("current_timesource", cur, sizeof(cur)) != 0;
	from_tick = !strcmp(cur, "jiffies");
	if (!from_tick)
		ahead_err = stock_ahead_of_tod(&ahead);
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
	read_err |= ahead_err || raw_before < 0 || stock_before < 0 || t_before < 0 || t_after < 0 ||
		    raw_after < 0;
	if (from_tick && ahead != INT64_MIN) {
		lag = stock_before - ahead - t_before;
		if (lag < 0)
			lag = 0;
	} else if (from_tick) {
		lag = INT64_MAX / 2;	/* booted on jiffies: no reference, only the order is checked */
	}
	/*
	 * 1 us: the step is at most the time elapsed around it (1.353 ms over
	 * 1.393 ms elapsed): the margin is on a figure that
	 * is never positive. 20 us more from jiffies: the two clocks' rates
	 * differ by a few ppm over the seconds on jiffies (one run: a step of
	 * 1835740 ns over 359051 ns elapsed from a clock 1499251 ns behind,
	 * 22.6 us short of elapsed + lag, 2026-12-04).
	 */
	allowed = raw_after - raw_before + 1000 + (from_tick ? lag + 20000 : 0);
	if (from_tick)
		snprintf(behind, sizeof(behind), ", from a clock %lld ns behind", (long long)lag);
	if (read_err)
		ksft_test_result_fail("%s: switch is continuous: reading current_timesource or a clock around the switch failed\n",
				      name);
	else
		ksft_test_result(t_after >= t_before && t_after - t_before <= allowed,
				 "%s: switch is continuous (step %lld ns over %lld ns elapsed%s)\n",
				 name, (long long)(t_after - t_before),
				 (long long)(raw_after - raw_before), behind);

	a = monotonic_on_cpus(20000, &errs, &unpinned);
	if (errs || unpinned)
		ksft_test_result_fail("%s: four clock ids monotonic on every CPU: %ld failed reads, %d failed pins or affinity restores (%ld inversions)\n",
				      name, errs, unpinned, (long)a);
	else
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
	read_err = raw0 <= 0 || tod0 <= 0 || raw1 <= 0 || tod1 <= 0;	/* ns_of() failed */
	ppm = ((double)(tod1 - tod0) / (double)(raw1 - raw0) - 1.0) * 1e6;
	if (ret)
		snprintf(unrestored, sizeof(unrestored),
			 ", and the stock clocksource could not be put back to %s: %s", stock,
			 strerror(-ret));
	lim = tod_rate_limit_ppm(rate_secs);
	ksft_test_result(!read_err && ppm > -lim && ppm < lim && !ret,
			 "%s: rate vs CLOCK_MONOTONIC_RAW (stock clocksource %s) over %d s: %+.3f ppm (limit %.3f)%s%s\n",
			 name, like, rate_secs, ppm, lim, read_err ? ", a clock read failed" : "",
			 unrestored);
}

static void test_errors(void)
{
	struct timespec ts;
	struct sigevent sev = { .sigev_notify = SIGEV_NONE };
	timer_t t;
	int64_t before, after, tick;
	pid_t pid;
	int st, back;

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
	 * less (the clock is never ahead). The 10 ms above +100 s is the time
	 * between the two readings (the case line prints it; make limits
	 * collects it); a host stall of 2.5 ms inside one system call was seen
	 * (one CI run), 4x.
	 */
	syscall(TOD_SYS_clock_getres, CLOCK_TOD_REALTIME, &ts);
	tick = ts.tv_sec == 0 && ts.tv_nsec >= 1000000 ? ts.tv_nsec : 0;
	before = ns_of(CLOCK_TOD_REALTIME);
	ts.tv_sec = before / 1000000000 + 100;
	ts.tv_nsec = before % 1000000000;
	st = before < 0 ? -1 : syscall(TOD_SYS_clock_settime, CLOCK_TOD_REALTIME, &ts);
	after = ns_of(CLOCK_TOD_REALTIME);
	ts.tv_sec -= 100;
	errno = 0;
	back = st == 0 ? syscall(TOD_SYS_clock_settime, CLOCK_TOD_REALTIME, &ts) : 0;
	ksft_test_result(before >= 0 && after >= 0 && st == 0 && !back &&
			 after - before >= 100000000000LL - tick && after - before < 100010000000LL,
			 "clock_settime(CLOCK_TOD_REALTIME) as root moves it by +100 s (%lld ns%s%s%s)\n",
			 (long long)(after - before),
			 before < 0 || after < 0 ? ", clock_gettime failed" : "",
			 back ? ", and setting it back failed: " : "", back ? strerror(errno) : "");
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
		if (syscall(TOD_SYS_clock_gettime, CLOCK_TOD_REALTIME, &now))
			_exit(4);
		if (syscall(TOD_SYS_clock_settime, CLOCK_TOD_REALTIME, &now) != -1 || errno != EPERM)
			_exit(1);
		if (tod_sysfs_write("current_timesource", "jiffies") != -EPERM)
			_exit(2);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		st = -1;	/* not an exit status: the case fails */
	ksft_test_result(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0,
			 "without CAP_SYS_TIME: settime and the sysfs switch fail with EPERM (child %d)\n",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
	char avail[256], orig[64], *tok, *save = NULL;
	int64_t stock, tod;
	int n = 0, ret;

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
	/*
	 * 1 ms: 0.33 ms seen (the one figure recorded then), 3x;
	 * tod_vdso agree measures the same offset more closely (300 us) earlier
	 * in the boot, before tod_hotplug's switches, which lose microseconds
	 * each.
	 */
	stock = ns_of(CLOCK_REALTIME);
	tod = ns_of(CLOCK_TOD_REALTIME);
	ksft_test_result(stock >= 0 && tod >= 0 && llabs(tod - stock) < 1000000,
			 "CLOCK_TOD_REALTIME within 1 ms of CLOCK_REALTIME after boot (%lld ns)\n",
			 (long long)(tod - stock));

	for (tok = strtok_r(avail, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		test_source(tok);
	ret = tod_set_source(orig);
	if (ret)
		ksft_exit_fail_msg("restoring current_timesource to %s: %s\n", orig, strerror(-ret));
	test_errors();
	ret = tod_set_source(orig);
	if (ret)
		ksft_exit_fail_msg("restoring current_timesource to %s: %s\n", orig, strerror(-ret));
	ksft_finished();
}
