// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/tod0, the new core's wall clock as a dynamic posix clock, and
 * linuxptp driving it.
 *
 *   tod_phc dev           the posix clock calls and PTP ioctls, permissions
 *   tod_phc phc_ctl       phc_ctl's get, set, adj, freq and caps, each checked
 *                         against CLOCK_TOD_REALTIME and its clock_adjtime()
 *   tod_phc phc2sys SECS  phc2sys -s CLOCK_REALTIME -c /dev/tod0 -O 0 for SECS
 *                         seconds: the offset must be under 10 us over the
 *                         second half; prints its RMS and largest value
 *
 * Output is KTAP; exit status 0 only if every case passed.
 */
#define _GNU_SOURCE
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

#define DEV		"/dev/tod0"
#define CLOCKFD		3
#define FD_TO_CLOCKID(fd)	((~(clockid_t)(fd) << 3) | CLOCKFD)
/*
 * The word after n_samples is 'clockid' since Linux 6.11 and rsv[0] before:
 * set it by position, whichever uapi header the build host has.
 */
static void set_ext_clockid(struct ptp_sys_offset_extended *e, int id)
{
	memcpy((char *)e + sizeof(e->n_samples), &id, sizeof(id));
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

static int test_dev(void)
{
	struct ptp_sys_offset_extended *ext;
	struct ptp_clock_caps caps;
	struct timespec ts, r1, r2;
	struct timex tx;
	int fd, ok, i, ret, child, st;
	clockid_t clk;
	int64_t off;

	ksft_print_header();
	ksft_set_plan(17);

	fd = open(DEV, O_RDWR);
	if (fd < 0)
		ksft_exit_fail_msg("open %s: %s (is CONFIG_NEWTOD_POSIX_CLOCK set?)\n", DEV,
				   strerror(errno));
	clk = FD_TO_CLOCKID(fd);

	off = offset_from_tod(clk);
	ksft_test_result(llabs(off) < 100000,
			 "clock_gettime on /dev/tod0 reads CLOCK_TOD_REALTIME (%lld ns apart, limit 100 us)\n",
			 (long long)off);

	ret = clock_getres(clk, &r1);
	ok = !ret && !clock_getres(CLOCK_TOD_REALTIME, &r2) && r1.tv_sec == r2.tv_sec &&
	     r1.tv_nsec == r2.tv_nsec && r1.tv_nsec > 0;
	ksft_test_result(ok, "clock_getres on /dev/tod0 = CLOCK_TOD_REALTIME's (%ld ns)\n",
			 r1.tv_nsec);

	/* set through the device: CLOCK_TOD_REALTIME moves, then back */
	off = tod_minus_stock();
	clock_gettime(CLOCK_TOD_REALTIME, &ts);
	ts.tv_sec += 1000;
	ret = clock_settime(clk, &ts);
	i = (int)((tod_minus_stock() - off) / 1000000);	/* ms */
	ksft_test_result(!ret && i > 999000 && i < 1001000,
			 "clock_settime on /dev/tod0 sets CLOCK_TOD_REALTIME (+%d ms of +1000000)\n", i);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_SETOFFSET | ADJ_NANO;
	tx.time.tv_sec = -1000;
	ret = clock_adjtime(clk, &tx);
	i = (int)((tod_minus_stock() - off) / 1000);	/* us */
	ksft_test_result(ret >= 0 && abs(i) < 1000,
			 "clock_adjtime(ADJ_SETOFFSET) on /dev/tod0 steps it back (%d us from the start)\n",
			 i);

	/* frequency through the device, read back through the clock id */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	tx.freq = 1234567;
	ret = clock_adjtime(clk, &tx);
	memset(&tx, 0, sizeof(tx));
	clock_adjtime(CLOCK_TOD_REALTIME, &tx);
	ksft_test_result(ret >= 0 && tx.freq == 1234567,
			 "clock_adjtime(ADJ_FREQUENCY) on /dev/tod0 is CLOCK_TOD_REALTIME's (freq %ld)\n",
			 tx.freq);
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	tx.freq = 0;
	clock_adjtime(clk, &tx);

	/* the same validation as adjtimex(2) */
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_TICK;
	tx.tick = 1;
	errno = 0;
	ret = clock_adjtime(clk, &tx);
	ksft_test_result(ret == -1 && errno == EINVAL,
			 "clock_adjtime(ADJ_TICK, 1) on /dev/tod0: EINVAL (got %d, %s)\n", ret,
			 strerror(errno));
	errno = 0;
	ret = syscall(SYS_clock_adjtime, clk, (void *)8);
	ksft_test_result(ret == -1 && errno == EFAULT,
			 "clock_adjtime with a bad pointer: EFAULT (got %d, %s)\n", ret, strerror(errno));

	memset(&caps, 0xa5, sizeof(caps));
	ret = ioctl(fd, PTP_CLOCK_GETCAPS, &caps);
	ksft_test_result(!ret && caps.max_adj == 500000 && !caps.n_alarm && !caps.n_ext_ts &&
			 !caps.n_per_out && !caps.pps && !caps.n_pins,
			 "PTP_CLOCK_GETCAPS: max_adj %d ppb (want 500000), nothing else\n",
			 caps.max_adj);

	ext = calloc(1, sizeof(*ext));
	if (!ext)
		ksft_exit_fail_msg("out of memory\n");
	ext->n_samples = 5;
	set_ext_clockid(ext, CLOCK_REALTIME);
	ret = ioctl(fd, PTP_SYS_OFFSET_EXTENDED, ext);
	ok = !ret;
	off = 0;
	for (i = 0; ok && i < 5; i++) {
		int64_t pre = ext->ts[i][0].sec * 1000000000LL + ext->ts[i][0].nsec;
		int64_t tod = ext->ts[i][1].sec * 1000000000LL + ext->ts[i][1].nsec;
		int64_t post = ext->ts[i][2].sec * 1000000000LL + ext->ts[i][2].nsec;

		ok = pre <= post && post - pre < 1000000;
		off = tod - (pre + (post - pre) / 2);
	}
	ksft_test_result(ok && llabs(off - tod_minus_stock()) < 200000,
			 "PTP_SYS_OFFSET_EXTENDED: 5 sandwiches, tod - realtime %lld ns (as measured from user space within 200 us)\n",
			 (long long)off);
	ext->n_samples = PTP_MAX_SAMPLES + 1;
	errno = 0;
	ret = ioctl(fd, PTP_SYS_OFFSET_EXTENDED, ext);
	ksft_test_result(ret == -1 && errno == EINVAL,
			 "PTP_SYS_OFFSET_EXTENDED with %d samples: EINVAL (got %s)\n",
			 PTP_MAX_SAMPLES + 1, strerror(errno));
	ext->n_samples = 1;
	set_ext_clockid(ext, CLOCK_TOD_REALTIME);
	errno = 0;
	ret = ioctl(fd, PTP_SYS_OFFSET_EXTENDED, ext);
	ksft_test_result(ret == -1 && errno == EINVAL,
			 "PTP_SYS_OFFSET_EXTENDED against clock id 12: EINVAL (got %s)\n",
			 strerror(errno));
	free(ext);
	errno = 0;
	ret = ioctl(fd, PTP_SYS_OFFSET_EXTENDED, (void *)8);
	ksft_test_result(ret == -1 && errno == EFAULT,
			 "PTP_SYS_OFFSET_EXTENDED with a bad pointer: EFAULT (got %s)\n",
			 strerror(errno));
	errno = 0;
	ret = ioctl(fd, PTP_ENABLE_PPS, 1);
	ksft_test_result(ret == -1 && errno == EOPNOTSUPP,
			 "PTP_ENABLE_PPS: EOPNOTSUPP (got %s)\n", strerror(errno));
	close(fd);

	/* without CAP_SYS_TIME: read-only only */
	child = fork();
	if (child == 0) {
		int rfd, bad = 0;

		if (drop_cap_sys_time())
			_exit(10);
		if (open(DEV, O_RDWR) >= 0 || errno != EPERM)
			bad |= 1;
		rfd = open(DEV, O_RDONLY);
		if (rfd < 0)
			_exit(11);
		memset(&tx, 0, sizeof(tx));
		if (clock_adjtime(FD_TO_CLOCKID(rfd), &tx) < 0)
			bad |= 2;
		if (clock_gettime(FD_TO_CLOCKID(rfd), &ts))
			bad |= 4;
		if (clock_settime(FD_TO_CLOCKID(rfd), &ts) == 0 || errno != EACCES)
			bad |= 8;
		tx.modes = ADJ_FREQUENCY;
		if (clock_adjtime(FD_TO_CLOCKID(rfd), &tx) >= 0 || errno != EACCES)
			bad |= 16;
		_exit(bad);
	}
	waitpid(child, &st, 0);
	ksft_test_result(WIFEXITED(st) && (WEXITSTATUS(st) & 1) == 0 && WEXITSTATUS(st) < 10,
			 "without CAP_SYS_TIME: open O_RDWR is EPERM (status %d)\n", WEXITSTATUS(st));
	ksft_test_result(WIFEXITED(st) && (WEXITSTATUS(st) & 6) == 0 && WEXITSTATUS(st) < 10,
			 "without CAP_SYS_TIME: O_RDONLY reads, clock_adjtime(modes 0) works (status %d)\n",
			 WEXITSTATUS(st));
	ksft_test_result(WIFEXITED(st) && (WEXITSTATUS(st) & 24) == 0 && WEXITSTATUS(st) < 10,
			 "read-only descriptor: settime and adjtime are EACCES (status %d)\n",
			 WEXITSTATUS(st));

	/*
	 * A writable descriptor carries the right, as a PTP clock's does: a
	 * process without CAP_SYS_TIME that inherits one opened with it can
	 * adjust and set the clock through it.
	 */
	fd = open(DEV, O_RDWR);
	if (fd < 0)
		ksft_exit_fail_msg("open %s O_RDWR: %s\n", DEV, strerror(errno));
	child = fork();
	if (child == 0) {
		int bad = 0;

		if (drop_cap_sys_time())
			_exit(10);
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_FREQUENCY;
		tx.freq = 0;
		if (clock_adjtime(FD_TO_CLOCKID(fd), &tx) < 0)
			bad |= 1;
		memset(&tx, 0, sizeof(tx));
		tx.modes = ADJ_SETOFFSET | ADJ_NANO;
		tx.time.tv_usec = 1000;	/* +1 us */
		if (clock_adjtime(FD_TO_CLOCKID(fd), &tx) < 0)
			bad |= 2;
		if (clock_gettime(FD_TO_CLOCKID(fd), &ts) || clock_settime(FD_TO_CLOCKID(fd), &ts))
			bad |= 4;
		/* the clock id itself still needs the capability */
		tx.modes = ADJ_FREQUENCY;
		if (clock_adjtime(CLOCK_TOD_REALTIME, &tx) >= 0 || errno != EPERM)
			bad |= 8;
		_exit(bad);
	}
	waitpid(child, &st, 0);
	close(fd);
	ksft_test_result(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			 "a writable descriptor passed to a process without CAP_SYS_TIME: adjtime (freq, setoffset) and settime work through it, CLOCK_TOD_REALTIME is EPERM (status %d: 1 freq, 2 setoffset, 4 settime, 8 id)\n",
			 WEXITSTATUS(st));
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

static int test_phc_ctl(void)
{
	char out[4096];
	struct timex tx;
	int64_t before, after, t;
	double got;
	int rc;
	char *s;

	ksft_print_header();
	ksft_set_plan(5);

	rc = run("phc_ctl -q " DEV " caps 2>&1", out, sizeof(out));
	ksft_print_msg("%s", out);
	ksft_test_result(rc == 0 && strstr(out, "500000 maximum frequency adjustment"),
			 "phc_ctl caps: 500000 ppb maximum frequency adjustment\n");

	rc = run("phc_ctl -q " DEV " get 2>&1", out, sizeof(out));
	ksft_print_msg("%s", out);
	s = strstr(out, "clock time is ");
	got = s ? strtod(s + 14, NULL) : 0;
	t = ns_of(CLOCK_TOD_REALTIME);
	ksft_test_result(rc == 0 && s && fabs(got - t / 1e9) < 5,
			 "phc_ctl get: %.3f, CLOCK_TOD_REALTIME %.3f (limit 5 s: process start)\n",
			 got, t / 1e9);

	before = tod_minus_stock();
	rc = run("phc_ctl -q " DEV " adj 2.5 2>&1", out, sizeof(out));
	ksft_print_msg("%s", out);
	after = tod_minus_stock();
	ksft_test_result(rc == 0 && llabs(after - before - 2500000000LL) < 1000000,
			 "phc_ctl adj 2.5: CLOCK_TOD_REALTIME stepped by %.6f s\n",
			 (after - before) / 1e9);

	rc = run("phc_ctl -q " DEV " set 2>&1", out, sizeof(out));
	ksft_print_msg("%s", out);
	after = tod_minus_stock();
	ksft_test_result(rc == 0 && llabs(after) < 50000000,
			 "phc_ctl set (to CLOCK_REALTIME): tod - realtime %lld us (limit 50 ms: phc_ctl's own latency)\n",
			 (long long)(after / 1000));

	rc = run("phc_ctl -q " DEV " freq 12345 2>&1", out, sizeof(out));
	ksft_print_msg("%s", out);
	memset(&tx, 0, sizeof(tx));
	clock_adjtime(CLOCK_TOD_REALTIME, &tx);
	/* linuxptp: freq = ppb * 65.536 (scaled ppm), rounded toward zero */
	ksft_test_result(rc == 0 && llabs(tx.freq - (long)(12345 * 65.536)) <= 1,
			 "phc_ctl freq 12345: CLOCK_TOD_REALTIME's freq %ld (want %ld)\n", tx.freq,
			 (long)(12345 * 65.536));
	memset(&tx, 0, sizeof(tx));
	tx.modes = ADJ_FREQUENCY;
	clock_adjtime(CLOCK_TOD_REALTIME, &tx);
	ksft_finished();	/* exits: every planned result passed, or 1 */
}

/*
 * phc2sys for secs seconds with summary lines every second (-u 1 is
 * not in every version: the per-update lines are parsed, "... sys offset
 * N s2 freq ..."). Samples after secs/2 must all be under 10 us.
 */
static int test_phc2sys(int secs)
{
	char cmd[256], line[512];
	double sum2 = 0, maxabs = 0, t0 = -1, t, off;
	int n = 0, total = 0, late_locked = 0, st;
	FILE *p;

	ksft_print_header();
	ksft_set_plan(2);
	snprintf(cmd, sizeof(cmd),
		 "timeout -s INT %d phc2sys -s CLOCK_REALTIME -c " DEV " -O 0 -m -q -R 8 2>&1", secs);
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
		if (t - t0 >= secs / 2.0) {
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
	ksft_test_result(n >= secs * 2 && late_locked == n,
			 "phc2sys ran and stayed locked: %d updates in the last %d s, all s2\n", n,
			 secs / 2);
	ksft_test_result(n > 0 && maxabs < 10000,
			 "phc2sys holds /dev/tod0 to CLOCK_REALTIME: last %d s RMS %.0f ns, max %.0f ns (limit 10 us)\n",
			 secs / 2, n ? sqrt(sum2 / n) : 0, maxabs);
	ksft_finished();	/* exits: every planned result passed, or 1 */
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "dev"))
		return test_dev();
	if (argc == 2 && !strcmp(argv[1], "phc_ctl"))
		return test_phc_ctl();
	if (argc == 3 && !strcmp(argv[1], "phc2sys")) {
		int secs = atoi(argv[2]);

		if (secs >= 4 && secs <= 3600)
			return test_phc2sys(secs);
	}
	fprintf(stderr, "usage: %s dev | phc_ctl | phc2sys SECS (4..3600)\n", argv[0]);
	return 2;
}
