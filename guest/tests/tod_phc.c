// SPDX-License-Identifier: GPL-2.0
/*
 * The new core's wall clock as a PTP clock (/dev/ptpN whose clock_name is
 * "newtod"), and linuxptp driving it.
 *
 *   tod_phc dev           what changes the clock or the machine, which the
 *                         selftest tod_ptp (the reads, ioctls and refusals)
 *                         leaves out: settime, ADJ_SETOFFSET and
 *                         ADJ_FREQUENCY through the device, one NTP state
 *                         with the clock id (a query, a step, the PLL),
 *                         PRECISE with the system clock moved to the HPET,
 *                         a virtual clock, the device's permissions and a
 *                         descriptor passed to a process without
 *                         CAP_SYS_TIME
 *   tod_phc phc_ctl       phc_ctl's get, set, adj, freq and caps, each checked
 *                         against CLOCK_TOD_REALTIME and its clock_adjtime()
 *   tod_phc phc2sys SECS [RMS]  phc2sys -s CLOCK_REALTIME -c /dev/ptpN -O 0
 *                         for SECS seconds: over the second half the
 *                         offset's RMS must be under RMS ns (default 100)
 *                         and its largest value under 1.5 us (MAXABS_NS)
 *
 * Output is KTAP; exit status 0 only if every case passed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ptp_clock.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "todtest.h"

#define CLOCKFD		3
#define FD_TO_CLOCKID(fd)	((~(clockid_t)(fd) << 3) | CLOCKFD)

/* the device, found by its clock_name */
static char dev[64];

/* Fill dev with the /dev/ptpN whose clock_name is "newtod"; exits if none. */
static void find_dev(void)
{
	char path[300], name[64];
	struct dirent *e;
	DIR *d = opendir("/sys/class/ptp");

	if (!d)
		ksft_exit_fail_msg("no /sys/class/ptp: %s (is CONFIG_PTP_1588_CLOCK_NEWTOD set?)\n",
				   strerror(errno));
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "ptp", 3))
			continue;
		snprintf(path, sizeof(path), "/sys/class/ptp/%s/clock_name", e->d_name);
		if (read_line(path, name, sizeof(name)) || strcmp(name, "newtod"))
			continue;
		if (dev[0])
			ksft_exit_fail_msg("two PTP clocks named newtod: %s and %s\n", dev,
					   e->d_name);
		snprintf(dev, sizeof(dev), "/dev/%.32s", e->d_name);
	}
	closedir(d);
	if (!dev[0])
		ksft_exit_fail_msg("no PTP clock named newtod in /sys/class/ptp (is CONFIG_PTP_1588_CLOCK_NEWTOD set?)\n");
}

/* The offset of clock c from CLOCK_TOD_REALTIME, ns. */
static int64_t offset_from_tod(clockid_t c)
{
	int64_t mid, val;

	bracket(CLOCK_TOD_REALTIME, c, &mid, &val);
	return val - mid;
}

/* tod realtime minus stock realtime, ns */
static int64_t tod_minus_stock(void)
{
	return -offset_from_tod(CLOCK_REALTIME);
}

static int64_t pct_ns(const struct ptp_clock_time *t)
{
	return t->sec * 1000000000LL + t->nsec;
}

/*
 * tod - CLOCK_MONOTONIC_RAW by PTP_SYS_OFFSET_PRECISE, and the raw time;
 * 0 or the errno
 */
static int precise_offset(int fd, int64_t *off, int64_t *raw)
{
	struct ptp_sys_offset_precise p;

	memset(&p, 0, sizeof(p));
	if (ioctl(fd, PTP_SYS_OFFSET_PRECISE, &p))
		return errno;
	*raw = pct_ns(&p.sys_monoraw);
	*off = pct_ns(&p.device) - *raw;
	return 0;
}

/*
 * PTP_SYS_OFFSET_PRECISE with the system clock moved to the HPET for the
 * call: want is the errno expected, ENODEV if the core is on the TSC (the
 * system clock lacks the counter), EOPNOTSUPP if it is not (checked first).
 */
static void precise_on_hpet(int fd, int want)
{
	char old[32], now[32] = "";
	int64_t o, r;
	int err, ret;

	ret = stock_clocksource_like("hpet", old, sizeof(old));
	if (ret) {
		ksft_test_result_fail("PTP_SYS_OFFSET_PRECISE with the system clock on the HPET: cannot switch it (%s)\n",
				      strerror(-ret));
		return;
	}
	if (read_line(STOCK_CLOCKSOURCE, now, sizeof(now)) || strcmp(now, "hpet")) {
		ret = write_file(STOCK_CLOCKSOURCE, old);
		ksft_test_result_fail("PTP_SYS_OFFSET_PRECISE with the system clock on the HPET: the clocksource is '%s', not hpet (%s put back: %s)\n",
				      now, old, strerror(-ret));
		return;
	}
	err = precise_offset(fd, &o, &r);
	ret = write_file(STOCK_CLOCKSOURCE, old);
	ksft_test_result(err == want && !ret,
			 "PTP_SYS_OFFSET_PRECISE with the system clock on the HPET: %s (got %s; %s put back: %s)\n",
			 strerror(want), strerror(err), old, strerror(-ret));
}

/*
 * PTP_SYS_OFFSET_PRECISE with the system clock moved off the TSC: ENODEV
 * when the core is on the TSC, EOPNOTSUPP when it is not (the core's error
 * comes first). The selftest tod_ptp checks the call where the clocks
 * are; moving the system clock is for a machine whose time is a test's.
 */
static void test_precise(int fd)
{
	char core[32] = "";

	if (read_line(TOD_SYSFS "current_timesource", core, sizeof(core))) {
		ksft_test_result_fail("PTP_SYS_OFFSET_PRECISE: cannot read the current timesource\n");
		return;
	}
	precise_on_hpet(fd, strcmp(core, "tsc") ? EOPNOTSUPP : ENODEV);
}

/*
 * A virtual clock on the PTP clock counts from the core's monotonic time:
 * stepping CLOCK_TOD_REALTIME by +1000 s does not move it, and the PTP
 * clock can still be stepped through its own device (not EBUSY).
 */
static void test_vclock(void)
{
	char path[300], name[64], want[80], vdev[64] = "";
	int64_t v0, v1, r0, r1;
	int fd, vfd, ret, step_id, step_dev;
	struct timex tx;
	struct dirent *e;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/ptp/%s/n_vclocks", dev + 5);
	ret = write_file(path, "1");
	if (ret) {
		ksft_test_result_fail("a virtual clock: writing 1 to %s: %s\n", path, strerror(-ret));
		return;
	}
	snprintf(want, sizeof(want), "%s_virt", dev + 5);
	d = opendir("/sys/class/ptp");
	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/sys/class/ptp/%s/clock_name", e->d_name);
		if (!strncmp(e->d_name, "ptp", 3) && !read_line(path, name, sizeof(name)) &&
		    !strcmp(name, want))
			snprintf(vdev, sizeof(vdev), "/dev/%.32s", e->d_name);
	}
	if (d)
		closedir(d);
	vfd = vdev[0] ? open(vdev, O_RDONLY) : -1;
	fd = open(dev, O_RDWR);
	if (vfd < 0 || fd < 0) {
		ksft_test_result_fail("a virtual clock: no %s, or cannot open it or %s (%s)\n", want,
				      dev, strerror(errno));
	} else {
		bracket(CLOCK_MONOTONIC_RAW, FD_TO_CLOCKID(vfd), &r0, &v0);
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_SETOFFSET | ADJ_NANO;
		tx.time.tv_sec = 1000;
		step_id = clock_adjtime(CLOCK_TOD_REALTIME, &tx) < 0 ? errno : 0;
		tx.time.tv_sec = -1000;
		step_dev = clock_adjtime(FD_TO_CLOCKID(fd), &tx) < 0 ? errno : 0;
		if (!step_id != !step_dev) {
			/* one step went through: undo it, for the tests after this one */
			tx.time.tv_sec = step_id ? 1000 : -1000;
			clock_adjtime(CLOCK_TOD_REALTIME, &tx);
		}
		bracket(CLOCK_MONOTONIC_RAW, FD_TO_CLOCKID(vfd), &r1, &v1);
		ksft_test_result(!step_id && !step_dev && llabs((v1 - v0) - (r1 - r0)) < 1000000,
				 "a virtual clock (%s) runs on while the clock is stepped +1000 s by id (%s) and -1000 s by %s (%s): moved %lld us more than CLOCK_MONOTONIC_RAW (limit 1000)\n",
				 vdev, strerror(step_id), dev, strerror(step_dev),
				 (long long)((v1 - v0) - (r1 - r0)) / 1000);
	}
	if (vfd >= 0)
		close(vfd);
	if (fd >= 0)
		close(fd);
	snprintf(path, sizeof(path), "/sys/class/ptp/%s/n_vclocks", dev + 5);
	ret = write_file(path, "0");
	if (ret)
		ksft_exit_fail_msg("cannot remove the virtual clock (%s): %s\n", path, strerror(-ret));
}

/* adjtimex(2)'s NTP_PHASE_LIMIT: the maximum error ntp_clear() sets, us */
#define MAXERROR_CLEARED	16000000

/* clock_adjtime() on clock c with the given modes and frequency; its return */
static int set_freq(clockid_t c, long long freq)
{
	struct timex tx = { .modes = ADJ_FREQUENCY, .freq = freq };

	return clock_adjtime(c, &tx);
}

/*
 * The device and CLOCK_TOD_REALTIME are one clock with one NTP state (the
 * policy of Documentation/timers/newtod.rst, stock's for CLOCK_REALTIME
 * steered by phc2sys and ntpd at once):
 * - a query through the device reports the frequency set by the clock id,
 *   as clock_adjtime(CLOCK_TOD_REALTIME) does (the framework's own record
 *   of the last adjfine() said 0 here);
 * - a step through the device clears the NTP state as ADJ_SETOFFSET on
 *   the id does: STA_UNSYNC, the maximum error at 16 s, a running
 *   single-shot slew dropped (none left to begin, and tod - raw still
 *   over the next 0.5 s, where the slew ran 500 ppm);
 * - a frequency through the device, with STA_PLL on, replaces the PLL's
 *   frequency and leaves STA_PLL on.
 * Leaves no slew, the frequency 0 and the status STA_UNSYNC in microseconds,
 * as a boot has them.
 */
static void test_one_state(clockid_t clk)
{
	struct timex tx, q;
	int64_t drift;
	int ret, ret2;

	/* +100 ppm by the id, read back through the device */
	ret = set_freq(CLOCK_TOD_REALTIME, 100LL << 16);
	memset(&q, 0, sizeof(q));
	ret2 = clock_adjtime(clk, &q);
	ksft_test_result(ret >= 0 && ret2 == 0 && q.freq == 100LL << 16,
			 "ADJ_FREQUENCY +100 ppm on CLOCK_TOD_REALTIME, a modes 0 query on the device: freq %lld (want %lld)\n",
			 (long long)q.freq, 100LL << 16);
	set_freq(CLOCK_TOD_REALTIME, 0);

	/* synchronised, with a slew running; then a step through the device */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR;
	tx.status = 0;
	tx.maxerror = 1000;
	tx.esterror = 100;
	ret = clock_adjtime(CLOCK_TOD_REALTIME, &tx) < 0;
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_OFFSET_SINGLESHOT;
	tx.offset = 500000;	/* 0.5 s: 1000 s to slew at 500 ppm */
	ret |= clock_adjtime(CLOCK_TOD_REALTIME, &tx) < 0;
	usleep(100000);		/* the slew under way */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_SETOFFSET | ADJ_NANO;
	tx.time.tv_usec = 1000;	/* +1 us */
	ret2 = clock_adjtime(clk, &tx);
	memset(&q, 0, sizeof(q));
	q.modes = ADJ_OFFSET_SS_READ;
	clock_adjtime(CLOCK_TOD_REALTIME, &q);
	/*
	 * The slew dropped, not only its part not yet begun: 500 ppm is 250 us
	 * in 0.5 s. Against the raw clock, which nothing steers: stock's
	 * CLOCK_REALTIME may itself be slewing (a failed tod_ntp_parity left
	 * stock's PLL running once, and this case measured stock's slew).
	 */
	drift = offset_from_tod(CLOCK_MONOTONIC_RAW);
	usleep(500000);
	drift = drift - offset_from_tod(CLOCK_MONOTONIC_RAW);
	ksft_test_result(!ret && ret2 == 0 && (q.status & STA_UNSYNC) &&
			 q.maxerror == MAXERROR_CLEARED && q.esterror == MAXERROR_CLEARED &&
			 q.offset == 0 && llabs(drift) < 50000,
			 "a step through the device clears the NTP state as ADJ_SETOFFSET does: status %#x (STA_UNSYNC %s), maxerror %ld, esterror %ld (want %d), single-shot left %ld us (want 0), tod - CLOCK_MONOTONIC_RAW moved %+lld ns in 0.5 s (limit 50000; the slew was 250000)\n",
			 q.status, q.status & STA_UNSYNC ? "set" : "CLEAR", (long)q.maxerror,
			 (long)q.esterror, MAXERROR_CLEARED, (long)q.offset, (long long)drift);

	/* the PLL on; a frequency through the device replaces its frequency */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS;
	tx.status = STA_PLL;
	ret = clock_adjtime(CLOCK_TOD_REALTIME, &tx) < 0;
	ret |= set_freq(CLOCK_TOD_REALTIME, 20LL << 16) < 0;
	ret2 = set_freq(clk, -(30LL << 16));
	memset(&q, 0, sizeof(q));
	clock_adjtime(CLOCK_TOD_REALTIME, &q);
	ksft_test_result(!ret && ret2 == 0 && q.freq == -(30LL << 16) && (q.status & STA_PLL),
			 "with STA_PLL on, ADJ_FREQUENCY -30 ppm through the device: the id reads freq %lld (want %lld), STA_PLL %s\n",
			 (long long)q.freq, -(30LL << 16), q.status & STA_PLL ? "still on" : "OFF");
	/* no slew, microseconds (STA_NANO off), unsynchronised, frequency 0 */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_OFFSET_SINGLESHOT;
	ret = clock_adjtime(CLOCK_TOD_REALTIME, &tx) < 0;
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_STATUS | ADJ_FREQUENCY | ADJ_MICRO;
	tx.status = STA_UNSYNC;
	tx.freq = 0;
	if (ret || clock_adjtime(CLOCK_TOD_REALTIME, &tx) < 0)
		ksft_exit_fail_msg("restoring CLOCK_TOD_REALTIME's slew, status and frequency: %s\n",
				   strerror(errno));
}

static int test_dev(void)
{
	struct timespec ts;
	struct timex tx;
	int fd, ok, i, ret, child, st, unchanged;
	int64_t off, offset_before;
	long long freq_before;
	clockid_t clk;

	ksft_print_header();
	ksft_set_plan(10);
	find_dev();
	ksft_print_msg("the newtod PTP clock is %s\n", dev);

	fd = open(dev, O_RDWR);
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s\n", dev, strerror(errno));
	clk = FD_TO_CLOCKID(fd);

	/* set through the device: CLOCK_TOD_REALTIME moves, then back */
	off = tod_minus_stock();
	clock_gettime(CLOCK_TOD_REALTIME, &ts);
	ts.tv_sec += 1000;
	ret = clock_settime(clk, &ts);
	i = (int)((tod_minus_stock() - off) / 1000000);	/* ms */
	ksft_test_result(!ret && i > 999000 && i < 1001000,
			 "clock_settime sets CLOCK_TOD_REALTIME (+%d ms of +1000000)\n", i);
	/* steps measured from there: -1000 s, then -1.5 s as {-2 s, +0.5 s}, then +1.5 s */
	{
		static const struct { long sec, nsec; } step[3] = {
			{ -1000, 0 }, { -2, 500000000 }, { 1, 500000000 },
		};
		int64_t want, got, worst = 0;
		int k;

		ok = 1;
		for (k = 0; k < 3; k++) {
			off = tod_minus_stock();
			memset(&tx, 0, sizeof(tx));
			tx.modes = ADJ_SETOFFSET | ADJ_NANO;
			tx.time.tv_sec = step[k].sec;
			tx.time.tv_usec = step[k].nsec;
			ret = clock_adjtime(clk, &tx);
			got = tod_minus_stock() - off;
			want = step[k].sec * 1000000000LL + step[k].nsec;
			if (ret || llabs(got - want) >= 1000000)
				ok = 0;
			if (llabs(got - want) > llabs(worst))
				worst = got - want;
		}
		ksft_test_result(ok,
				 "clock_adjtime(ADJ_SETOFFSET) steps -1000 s, -1.5 s and +1.5 s and returns 0 (worst %lld us off, limit 1000)\n",
				 (long long)(worst / 1000));
	}

	/* frequency through the device (adjfine), read back through the clock id */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	tx.freq = 1234567;
	ret = clock_adjtime(clk, &tx);
	memset(&tx, 0, sizeof(tx));
	clock_adjtime(CLOCK_TOD_REALTIME, &tx);
	ksft_test_result(ret == 0 && tx.freq == 1234567,
			 "clock_adjtime(ADJ_FREQUENCY) sets CLOCK_TOD_REALTIME's freq (%lld)\n",
			 (long long)tx.freq);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	tx.freq = 0;
	clock_adjtime(clk, &tx);

	test_one_state(clk);
	test_precise(fd);
	test_vclock();

	close(fd);

	/* the device file's permission is the right: another user cannot open it */
	child = fork();
	if (child == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(10);
		if (open(dev, O_RDONLY) >= 0)
			_exit(1);
		_exit(errno == EACCES ? 0 : 2);
	}
	waitpid(child, &st, 0);
	ksft_test_result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			 "user nobody cannot open %s: EACCES (status %d)\n", dev, WEXITSTATUS(st));

	/*
	 * A writable descriptor is not the right to change this clock, as it
	 * is for other PTP clocks: CLOCK_TOD_REALTIME is every process's
	 * clock, so a change through the device takes CAP_SYS_TIME, as the
	 * clock id does. A process without it that inherits a descriptor
	 * opened with write access may read the clock (gettime, a modes 0
	 * query) but gets EPERM from settime, ADJ_FREQUENCY and ADJ_SETOFFSET,
	 * and the clock's frequency and offset stay as they were. (With it,
	 * the cases above set and adjusted the clock through the device.)
	 */
	fd = open(dev, O_RDWR);
	if (fd < 0)
		ksft_exit_fail_msg("open %s O_RDWR: %s\n", dev, strerror(errno));
	memset(&tx, 0, sizeof(tx));
	if (clock_adjtime(CLOCK_TOD_REALTIME, &tx) < 0)
		ksft_exit_fail_msg("clock_adjtime(CLOCK_TOD_REALTIME) query: %s\n", strerror(errno));
	freq_before = tx.freq;
	offset_before = tod_minus_stock();
	child = fork();
	if (child == 0) {
		int bad = 0;

		if (drop_cap_sys_time())
			_exit(64);
		if (clock_gettime(FD_TO_CLOCKID(fd), &ts))
			bad |= 1;
		memset(&tx, 0, sizeof(tx));
		if (clock_adjtime(FD_TO_CLOCKID(fd), &tx) < 0)
			bad |= 2;
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_FREQUENCY;
		tx.freq = freq_before + 65536;	/* +1 ppm */
		errno = 0;
		if (clock_adjtime(FD_TO_CLOCKID(fd), &tx) != -1 || errno != EPERM)
			bad |= 4;
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_SETOFFSET | ADJ_NANO;
		tx.time.tv_sec = 10;	/* +10 s: plain to see had it happened */
		errno = 0;
		if (clock_adjtime(FD_TO_CLOCKID(fd), &tx) != -1 || errno != EPERM)
			bad |= 8;
		ts.tv_sec += 20;
		errno = 0;
		if (clock_settime(FD_TO_CLOCKID(fd), &ts) != -1 || errno != EPERM)
			bad |= 16;
		/* the clock id refuses it too */
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_FREQUENCY;
		errno = 0;
		if (clock_adjtime(CLOCK_TOD_REALTIME, &tx) != -1 || errno != EPERM)
			bad |= 32;
		_exit(bad);
	}
	waitpid(child, &st, 0);
	close(fd);
	memset(&tx, 0, sizeof(tx));
	off = tod_minus_stock() - offset_before;
	/* 5 ms: the smallest refused step is 10 s; the two readings are us apart */
	unchanged = clock_adjtime(CLOCK_TOD_REALTIME, &tx) >= 0 && tx.freq == freq_before &&
		    llabs(off) < 5000000;
	ksft_test_result(WIFEXITED(st) && WEXITSTATUS(st) == 0 && unchanged,
			 "a writable descriptor in a process without CAP_SYS_TIME: gettime and a modes 0 query work, ADJ_FREQUENCY, ADJ_SETOFFSET and settime are EPERM, as on CLOCK_TOD_REALTIME (status %d: 1 gettime, 2 query, 4 freq, 8 setoffset, 16 settime, 32 id, 64 capset); frequency %s, tod - stock moved %+lld ns\n",
			 WIFEXITED(st) ? WEXITSTATUS(st) : -1, tx.freq == freq_before ? "unchanged" : "CHANGED",
			 (long long)off);
	ksft_finished();	/* exits: every planned result passed, or 1 */
}

/* Run a command, capture its stdout+stderr into out; its exit status. */
static int run(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n = 0;
	int st;

	if (!p)
		return -1;
	while (n + 1 < len && fgets(out + n, len - n, p))
		n += strlen(out + n);
	out[n] = 0;
	while (fgetc(p) != EOF)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* "phc_ctl -q -- DEV ARGS 2>&1" in buf ("--": ARGS may start with a minus) */
static const char *phc_ctl(char *buf, size_t len, const char *args)
{
	snprintf(buf, len, "phc_ctl -q -- %s %s 2>&1", dev, args);
	return buf;
}

static int test_phc_ctl(void)
{
	char out[4096], cmd[160];
	struct timex tx;
	int64_t before, after, t;
	double got;
	int rc;
	char *s;

	ksft_print_header();
	ksft_set_plan(6);
	find_dev();

	rc = run(phc_ctl(cmd, sizeof(cmd), "caps"), out, sizeof(out));
	ksft_print_msg("%s", out);
	ksft_test_result(rc == 0 && strstr(out, "500000 maximum frequency adjustment"),
			 "phc_ctl caps: 500000 ppb maximum frequency adjustment\n");

	rc = run(phc_ctl(cmd, sizeof(cmd), "get"), out, sizeof(out));
	ksft_print_msg("%s", out);
	s = strstr(out, "clock time is ");
	got = s ? strtod(s + 14, NULL) : 0;
	t = ns_of(CLOCK_TOD_REALTIME);
	ksft_test_result(rc == 0 && s && fabs(got - t / 1e9) < 5,
			 "phc_ctl get: %.3f, CLOCK_TOD_REALTIME %.3f (limit 5 s: process start)\n",
			 got, t / 1e9);

	before = tod_minus_stock();
	rc = run(phc_ctl(cmd, sizeof(cmd), "adj 2.5"), out, sizeof(out));
	ksft_print_msg("%s", out);
	after = tod_minus_stock();
	ksft_test_result(rc == 0 && llabs(after - before - 2500000000LL) < 1000000,
			 "phc_ctl adj 2.5: CLOCK_TOD_REALTIME stepped by %.6f s\n",
			 (after - before) / 1e9);
	before = after;
	rc = run(phc_ctl(cmd, sizeof(cmd), "adj -2.5"), out, sizeof(out));
	ksft_print_msg("%s", out);
	after = tod_minus_stock();
	ksft_test_result(rc == 0 && llabs(after - before + 2500000000LL) < 1000000,
			 "phc_ctl adj -2.5: CLOCK_TOD_REALTIME stepped by %.6f s\n",
			 (after - before) / 1e9);

	rc = run(phc_ctl(cmd, sizeof(cmd), "set"), out, sizeof(out));
	ksft_print_msg("%s", out);
	after = tod_minus_stock();
	ksft_test_result(rc == 0 && llabs(after) < 50000000,
			 "phc_ctl set (to CLOCK_REALTIME): tod - realtime %lld us (limit 50 ms: phc_ctl's own latency)\n",
			 (long long)(after / 1000));

	rc = run(phc_ctl(cmd, sizeof(cmd), "freq 12345"), out, sizeof(out));
	ksft_print_msg("%s", out);
	memset(&tx, 0, sizeof(tx));
	clock_adjtime(CLOCK_TOD_REALTIME, &tx);
	/* linuxptp: freq = ppb * 65.536 (scaled ppm), rounded toward zero */
	ksft_test_result(rc == 0 && llabs(tx.freq - (long)(12345 * 65.536)) <= 1,
			 "phc_ctl freq 12345: CLOCK_TOD_REALTIME's freq %lld (want %ld)\n",
			 (long long)tx.freq, (long)(12345 * 65.536));
	/* back to 0 through the device: its record of the frequency is reset too */
	run(phc_ctl(cmd, sizeof(cmd), "freq 0"), out, sizeof(out));
	ksft_finished();	/* exits: every planned result passed, or 1 */
}

/*
 * phc2sys for secs seconds with summary lines every second (-u 1 is
 * not in every version: the per-update lines are parsed, "... sys offset
 * N s2 freq ..."). Over the second half the RMS must be under rms_limit
 * ns (100 on the kernel as configured for use; the debug kernels, slowed
 * down several times by their checkers, run it for those checkers with a
 * looser limit) and every sample under MAXABS_NS. phc2sys uses
 * PTP_SYS_OFFSET_PRECISE where it works (the core and the system clock on
 * the TSC), as its first lines say. When the RMS check fails, the second
 * half's updates are printed (up to the last 256), so a failure explains
 * itself.
 *
 * The RMS limits, against what was seen (tests.list): 100 ns in
 * the default boot, worst 23 ns passing (ts-hpet, EXTENDED; 10-18 ns on
 * PRECISE), 102 ns once while an i386 kernel built on the host; 500 ns in
 * the debug boots (tests.list's argument), 7-9 ns in 4 runs and 110 ns
 * once in the CI of fbe45c1: 4.5x the worst. The largest sample, limit
 * MAXABS_NS: 64-69 ns passing, 361 ns in that 110 ns run.
 */
#define MAXABS_NS	1500	/* 4.2x the 361 ns of the CI of fbe45c1 (debug) */
#define PHC2SYS_KEEP	256

static int test_phc2sys(int secs, int rms_limit)
{
	static char kept[PHC2SYS_KEEP][512];
	char cmd[256], line[512], core[32] = "", stock[32] = "";
	double sum2 = 0, maxabs = 0, t0 = -1, t, off;
	int n = 0, total = 0, late_locked = 0, delayed = 0, st, precise, fd;
	struct timex tx;
	FILE *p;

	ksft_print_header();
	ksft_set_plan(3);
	find_dev();
	if (read_line(TOD_SYSFS "current_timesource", core, sizeof(core)) ||
	    read_line(STOCK_CLOCKSOURCE, stock, sizeof(stock)))
		ksft_exit_fail_msg("cannot read the current timesource and clocksource\n");
	precise = !strcmp(core, "tsc") && !strcmp(stock, "tsc");
	snprintf(cmd, sizeof(cmd),
		 "timeout -s INT %d phc2sys -s CLOCK_REALTIME -c %s -O 0 -m -q -R 8 2>&1", secs, dev);
	p = popen(cmd, "r");
	if (!p)
		ksft_exit_fail_msg("cannot run phc2sys: %s\n", strerror(errno));
	while (fgets(line, sizeof(line), p)) {
		char *s = strstr(line, " offset ");

		if (sscanf(line, "phc2sys[%lf]", &t) != 1 || !s)
			continue;
		if (t0 < 0)
			t0 = t;
		off = strtod(s + 8, NULL);
		total++;
		s = strstr(line, " delay ");
		if (!s || strtol(s + 7, NULL, 10) != 0)
			delayed++;
		if (t - t0 >= secs / 2.0) {
			snprintf(kept[n % PHC2SYS_KEEP], sizeof(kept[0]), "%s", line);
			n++;
			if (strstr(line, " s2 "))
				late_locked++;
			sum2 += off * off;
			if (fabs(off) > maxabs)
				maxabs = fabs(off);
		}
		if (total <= 5 || (total % 40) == 0)
			ksft_print_msg("%s", line);
	}
	st = pclose(p);
	ksft_print_msg("phc2sys exit status %d, %d updates\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1,
		       total);
	/* its servo's frequency, back to 0 through the device (and its record there) */
	fd = open(dev, O_RDWR);
	if (fd >= 0) {
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_FREQUENCY;
		clock_adjtime(FD_TO_CLOCKID(fd), &tx);
		close(fd);
	}
	ksft_test_result(n >= secs * 2 && late_locked == n,
			 "phc2sys ran and stayed locked: %d updates in the last %d s, all s2\n", n,
			 secs / 2);
	/* PTP_SYS_OFFSET_PRECISE has no delay; the other methods' is the sandwich's */
	ksft_test_result(precise ? !delayed && total : delayed == total && total,
			 "phc2sys measured with %s: %d of %d updates with a delay (core on %s, system clock on %s)\n",
			 precise ? "PTP_SYS_OFFSET_PRECISE" : "a sandwich", delayed, total, core, stock);
	if (!(n > 0 && sqrt(sum2 / n) < rms_limit && maxabs < MAXABS_NS)) {
		int i = n > PHC2SYS_KEEP ? n - PHC2SYS_KEEP : 0;

		ksft_print_msg("the updates of the last %d s:\n", secs / 2);
		for (; i < n; i++)
			ksft_print_msg("%s", kept[i % PHC2SYS_KEEP]);
	}
	ksft_test_result(n > 0 && sqrt(sum2 / n) < rms_limit && maxabs < MAXABS_NS,
			 "phc2sys holds %s to CLOCK_REALTIME: last %d s RMS %.0f ns (limit %d), max %.0f ns (limit %d)\n",
			 dev, secs / 2, n ? sqrt(sum2 / n) : 0, rms_limit, maxabs, MAXABS_NS);
	ksft_finished();	/* exits: every planned result passed, or 1 */
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "dev"))
		return test_dev();
	if (argc == 2 && !strcmp(argv[1], "phc_ctl"))
		return test_phc_ctl();
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "phc2sys")) {
		int secs = atoi(argv[2]), rms = argc == 4 ? atoi(argv[3]) : 100;

		if (secs >= 4 && secs <= 3600 && rms >= 1 && rms <= 10000)
			return test_phc2sys(secs, rms);
	}
	fprintf(stderr, "usage: %s dev | phc_ctl | phc2sys SECS (4..3600) [RMS_LIMIT_NS (1..10000, default 100)]\n",
		argv[0]);
	return 2;
}
