// SPDX-License-Identifier: GPL-2.0
/*
 * tod_vdso: the vDSO fast path of the new timeofday core, case by case.
 *
 * One case per run, picked by the command line, so that the harness runs
 * each case in the boots (timesource= choices) where it means something:
 *
 *   order [N]          on every CPU, N interleaved readings
 *                      syscall <= vDSO <= syscall for gettimeofday and the
 *                      four CLOCK_TOD_* ids: zero inversions
 *   xthread [N] [S]    two threads on two CPUs hand readings of tod
 *                      MONOTONIC and REALTIME to each other (ping-pong); a
 *                      reading taken after the hand-over is never older
 *                      than the one handed over: zero inversions
 *   agree [S]          tod REALTIME within 1 ms of the stock CLOCK_REALTIME;
 *                      tod entry, stock vDSO entry and glibc inside a
 *                      syscall sandwich for each id; rate over S seconds
 *                      within 10 ppm of CLOCK_MONOTONIC_RAW
 *   syscalls zero|one [K]  syscalls made by K calls of every entry, counted
 *                      on the raw_syscalls:sys_enter tracepoint: exactly 0
 *                      (TSC, HPET) or exactly K (acpi_pm, jiffies)
 *   getres             vDSO clock_getres of the four ids equals the
 *                      syscall's and is > 0
 *   timens             in a new time namespace the tod clocks read as in
 *                      the root namespace (and nothing hangs)
 *   switch [S] [MS]    readers on every CPU, by vDSO and system call in
 *                      turn, while current_timesource
 *                      rotates every MS ms for S seconds: no inversion, no
 *                      jump beyond the real elapsed time + 1 us + the
 *                      coarsest source's resolution
 *   hpetpage           the tod HPET page (vvar + 5 pages) is readable, and
 *                      counts at the period the HPET reports, while the
 *                      HPET is the current source; it raises SIGBUS
 *                      otherwise
 *   hpetrevoke [NPROC] leaving the HPET unmaps its page everywhere:
 *                      splitting [vvar] is refused; after the switch away,
 *                      a process that moved its [vvar] with mremap, the
 *                      children of a fork storm across the switch, a
 *                      process whose vfork child switched, and NPROC idle
 *                      processes (3 switches, timed) get SIGBUS reading it
 *   lib                libtod (tod.h) returns what the system call returns,
 *                      on any kernel (on a stock one through its fallback)
 *
 * The cases that call the vDSO call its entries directly, and fail when the
 * kernel does not export them: the kernel under test must. Only 'lib' is
 * meant to pass on a stock kernel too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "tod.h"
#include "todtest.h"

#define NSEC_PER_SEC	1000000000LL
#define PAGE		4096UL
#define HPET_PAGE	5		/* page index of the tod HPET page in [vvar] */
#define VVAR_PAGES	6		/* 4 stock pages + tod data + tod HPET */
#define HPET_PERIOD	0x04		/* upper half of GCAP_ID: fs per tick */
#define HPET_COUNTER	0xF0		/* main counter, low 32 bits */
#define TIMENS_OFFSET	1000		/* s added to CLOCK_MONOTONIC in the namespace */

/* The entries under test, straight from the vDSO (they return -errno). */
static gtod_fn vt_gtod;		/* __vdso_tod_gettimeofday */
static cgt_fn vt_cgt;		/* __vdso_tod_clock_gettime */
static cgt_fn vs_cgt;		/* stock __vdso_clock_gettime */
static cgt_fn vs_getres;	/* stock __vdso_clock_getres */

static const struct {
	clockid_t id;
	const char *name;
} tods[] = {
	{ CLOCK_TOD_REALTIME, "CLOCK_TOD_REALTIME" },
	{ CLOCK_TOD_MONOTONIC, "CLOCK_TOD_MONOTONIC" },
	{ CLOCK_TOD_REALTIME_COARSE, "CLOCK_TOD_REALTIME_COARSE" },
	{ CLOCK_TOD_MONOTONIC_COARSE, "CLOCK_TOD_MONOTONIC_COARSE" },
};
#define NTOD ((int)ARRAY_SIZE(tods))

static int cpus[CPU_SETSIZE], ncpus;

/* --- small helpers ------------------------------------------------------- */

/* clock_gettime through the system call: 0 or -errno; *ns is 0 on error. */
static int sys_ns(clockid_t clk, int64_t *ns)
{
	struct timespec ts;

	*ns = 0;
	if (syscall(SYS_clock_gettime, clk, &ts))
		return -errno;
	*ns = ts_ns(&ts);
	return 0;
}

/* A vDSO clock_gettime entry: 0 or -errno; *ns is 0 on error. */
static int vdso_ns(cgt_fn fn, clockid_t clk, int64_t *ns)
{
	struct timespec ts;
	int ret = fn(clk, &ts);

	*ns = ret ? 0 : ts_ns(&ts);
	return ret;
}

static int64_t res_ns(clockid_t clk)
{
	struct timespec ts;

	if (syscall(SYS_clock_getres, clk, &ts))
		return -1;
	return ts_ns(&ts);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The CPUs we may run on, in order; per-CPU checks pin to each in turn. */
static void find_cpus(void)
{
	cpu_set_t set;
	int c;

	if (sched_getaffinity(0, sizeof(set), &set))
		ksft_exit_fail_msg("sched_getaffinity: %s\n", strerror(errno));
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
}

/*
 * Switch the core to NAME: 0, or -errno of the write. Not tod_set_source():
 * the write alone, so that timing it times the switch, and so that the
 * callers that check the result read current_timesource themselves.
 */
static int set_source(const char *name)
{
	return tod_sysfs_write("current_timesource", name);
}

/* Current and available timesources; the case fails without them. */
static void need_sysfs(char *cur, size_t clen, char *avail, size_t alen)
{
	if (tod_sysfs_read("current_timesource", cur, clen) ||
	    tod_sysfs_read("available_timesource", avail, alen))
		ksft_exit_fail_msg("no " TOD_SYSFS ": is this the kernel with CONFIG_NEWTOD?\n");
	ksft_print_msg("timesource: %s (available: %s)\n", cur, avail);
}

static void show_source(void)
{
	char cur[64];

	if (!tod_sysfs_read("current_timesource", cur, sizeof(cur)))
		ksft_print_msg("timesource: %s\n", cur);
}

/* Resolve the entries under test; the kernel under test must have them. */
static void need_vdso(void)
{
	vt_gtod = (gtod_fn)tod_vdso_sym("__vdso_tod_gettimeofday");
	vt_cgt = (cgt_fn)tod_vdso_sym("__vdso_tod_clock_gettime");
	vs_cgt = (cgt_fn)tod_vdso_sym("__vdso_clock_gettime");
	vs_getres = (cgt_fn)tod_vdso_sym("__vdso_clock_getres");
	if (!tod_vdso_available() || !vt_gtod || !vt_cgt)
		ksft_exit_fail_msg("the vDSO does not export __vdso_tod_gettimeofday and __vdso_tod_clock_gettime (LINUX_2.6): not the kernel under test?\n");
	if (!vs_cgt || !vs_getres)
		ksft_exit_fail_msg("the vDSO does not export __vdso_clock_gettime and __vdso_clock_getres\n");
}

/* The rest of the plan cannot run here: skipped, which is not a pass. */
static void skip_rest(const char *why)
{
	while (ksft_test_num() < ksft_plan)
		ksft_test_result_skip("%s\n", why);
}

static long arg_long(int argc, char **argv, int i, long def, long min, long max)
{
	char *end;
	long v;

	if (i >= argc)
		return def;
	errno = 0;
	v = strtol(argv[i], &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "tod_vdso %s: argument '%s' must be an integer in %ld..%ld\n",
			argv[1], argv[i], min, max);
		exit(2);
	}
	return v;
}

/* --- order ----------------------------------------------------------------- */

/*
 * N rounds of syscall, vDSO, syscall for one id; returns the inversions
 * (all N if a call fails). A coarse id is compared with the syscall of the
 * same coarse id: both must return the value of the last accumulation.
 */
static long order_cgt(clockid_t clk, long n)
{
	int64_t a, v, b;
	long bad = 0, i;
	int ret;

	for (i = 0; i < n; i++) {
		if ((ret = sys_ns(clk, &a)) || (ret = vdso_ns(vt_cgt, clk, &v)) ||
		    (ret = sys_ns(clk, &b))) {
			ksft_print_msg("clock %d: %s\n", clk, strerror(-ret));
			return n;
		}
		if (a > v || v > b) {
			if (!bad++)
				ksft_print_msg("clock %d: inversion at %ld: syscall %lld vdso %lld syscall %lld\n",
					       clk, i, (long long)a, (long long)v, (long long)b);
		}
	}
	return bad;
}

/*
 * gettimeofday of the new core against the syscall of CLOCK_TOD_REALTIME,
 * both in microseconds: truncation keeps the order, so the rule is the same.
 */
static long order_gtod(long n)
{
	struct timeval tv;
	int64_t a, b;
	long bad = 0, i;
	int ret;

	for (i = 0; i < n; i++) {
		if ((ret = sys_ns(CLOCK_TOD_REALTIME, &a)) || (ret = vt_gtod(&tv, NULL)) ||
		    (ret = sys_ns(CLOCK_TOD_REALTIME, &b))) {
			ksft_print_msg("gettimeofday: %s\n", strerror(-ret));
			return n;
		}
		if (a / 1000 > tv_us(&tv) || tv_us(&tv) > b / 1000) {
			if (!bad++)
				ksft_print_msg("gettimeofday: inversion at %ld: syscall %lld vdso %lld syscall %lld us\n",
					       i, (long long)(a / 1000), (long long)tv_us(&tv),
					       (long long)(b / 1000));
		}
	}
	return bad;
}

static void case_order(int argc, char **argv)
{
	long n = arg_long(argc, argv, 2, 1000000, 1, 1000000000), bad;
	int c, k;

	ksft_set_plan(ncpus * (1 + NTOD));
	show_source();
	need_vdso();
	ksft_print_msg("rule: on every CPU, %ld rounds of syscall <= vDSO <= syscall, zero inversions\n", n);
	for (c = 0; c < ncpus; c++) {
		if (pin_cpu(cpus[c]))
			ksft_exit_fail_msg("sched_setaffinity(cpu%d): %s\n", cpus[c], strerror(errno));
		bad = order_gtod(n);
		ksft_test_result(!bad, "cpu%d __vdso_tod_gettimeofday: syscall<=vdso<=syscall x%ld (%ld inversions)\n",
				 cpus[c], n, bad);
		for (k = 0; k < NTOD; k++) {
			bad = order_cgt(tods[k].id, n);
			ksft_test_result(!bad, "cpu%d %s: syscall<=vdso<=syscall x%ld (%ld inversions)\n",
					 cpus[c], tods[k].name, n, bad);
		}
	}
}

/* --- xthread --------------------------------------------------------------- */

/*
 * Ping-pong between two CPUs. Only the thread whose turn it is touches the
 * plain fields; it gives the turn away with a release store, and the other
 * thread's acquire load of the turn orders its own clock read after the
 * hand-over. So the reading taken after the hand-over happened later in
 * real time than the one handed over, and must not be smaller: a vDSO read
 * that lets the counter read move ahead of the acquire (a missing barrier
 * before rdtsc), or two CPUs whose counters disagree, shows up here.
 */
static struct {
	atomic_int turn;		/* 0 or 1: whose turn; -1: stop */
	int64_t mono, real;		/* the reading handed over */
	long exchanges, limit;
	atomic_long errors;		/* also set by a thread that could not pin */
	long inv_mono, inv_real;
	int64_t deadline;		/* CLOCK_MONOTONIC_RAW */
} xt;

static void *xt_thread(void *arg)
{
	int me = (int)(intptr_t)arg, t;
	int64_t m, r;

	if (pin_cpu(cpus[me])) {
		ksft_print_msg("sched_setaffinity(cpu%d): %s\n", cpus[me], strerror(errno));
		atomic_fetch_add(&xt.errors, 1);
		atomic_store_explicit(&xt.turn, -1, memory_order_release);
		return NULL;
	}
	for (;;) {
		while ((t = atomic_load_explicit(&xt.turn, memory_order_acquire)) != me) {
			if (t < 0)
				return NULL;
			cpu_relax();
		}
		if (xt.exchanges >= xt.limit ||
		    (!(xt.exchanges & 1023) && raw_ns() > xt.deadline)) {
			atomic_store_explicit(&xt.turn, -1, memory_order_release);
			return NULL;
		}
		if (vdso_ns(vt_cgt, CLOCK_TOD_MONOTONIC, &m) || vdso_ns(vt_cgt, CLOCK_TOD_REALTIME, &r)) {
			atomic_fetch_add(&xt.errors, 1);
			atomic_store_explicit(&xt.turn, -1, memory_order_release);
			return NULL;
		}
		if (xt.exchanges) {
			if (m < xt.mono && !xt.inv_mono++)
				ksft_print_msg("cpu%d read CLOCK_TOD_MONOTONIC %lld after cpu%d handed over %lld\n",
					       cpus[me], (long long)m, cpus[!me], (long long)xt.mono);
			if (r < xt.real && !xt.inv_real++)
				ksft_print_msg("cpu%d read CLOCK_TOD_REALTIME %lld after cpu%d handed over %lld\n",
					       cpus[me], (long long)r, cpus[!me], (long long)xt.real);
		}
		xt.mono = m;
		xt.real = r;
		xt.exchanges++;
		atomic_store_explicit(&xt.turn, !me, memory_order_release);
	}
}

static void case_xthread(int argc, char **argv)
{
	long n = arg_long(argc, argv, 2, 100000, 1, 1000000000);
	long secs = arg_long(argc, argv, 3, 30, 1, 3600);
	long errors;
	pthread_t th[2];
	int i;

	ksft_set_plan(2);
	show_source();
	need_vdso();
	if (ncpus < 2) {
		skip_rest("one CPU: nothing to hand readings between");
		return;
	}
	xt.limit = n;
	xt.deadline = raw_ns() + secs * NSEC_PER_SEC;
	ksft_print_msg("rule: cpu%d and cpu%d alternate %ld readings, each >= the one handed over; zero inversions, all %ld exchanges within %ld s\n",
		       cpus[0], cpus[1], n, n, secs);
	for (i = 0; i < 2; i++) {
		int rc = pthread_create(&th[i], NULL, xt_thread, (void *)(intptr_t)i);

		if (rc)
			ksft_exit_fail_msg("pthread_create: %s\n", strerror(rc));
	}
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	errors = atomic_load(&xt.errors);
	if (errors)
		ksft_print_msg("%ld errors (failed reads or pinning)\n", errors);
	ksft_test_result(!xt.inv_mono && !errors && xt.exchanges >= n,
			 "CLOCK_TOD_MONOTONIC across CPUs: %ld exchanges, %ld inversions\n",
			 xt.exchanges, xt.inv_mono);
	ksft_test_result(!xt.inv_real && !errors && xt.exchanges >= n,
			 "CLOCK_TOD_REALTIME across CPUs: %ld exchanges, %ld inversions\n",
			 xt.exchanges, xt.inv_real);
}

/* --- agree ----------------------------------------------------------------- */

/*
 * A reading of CLOCK_TOD_REALTIME (vDSO) between two readings of REF
 * (through glibc, i.e. the stock vDSO); the narrowest of TRIES sandwiches,
 * so that an emulator stall does not count as clock error. *mid is the
 * middle of the sandwich, *half its half-width.
 */
static int sandwich(clockid_t ref, int tries, int64_t *mid, int64_t *tod, int64_t *half)
{
	struct timespec a, b;
	int64_t t, best = INT64_MAX;
	int i, ret;

	for (i = 0; i < tries; i++) {
		clock_gettime(ref, &a);
		ret = vdso_ns(vt_cgt, CLOCK_TOD_REALTIME, &t);
		clock_gettime(ref, &b);
		if (ret)
			return ret;
		if (ts_ns(&b) - ts_ns(&a) < best) {
			best = ts_ns(&b) - ts_ns(&a);
			*mid = ts_ns(&a) + best / 2;
			*half = best / 2;
			*tod = t;
		}
	}
	return 0;
}

/* The tod entry, the stock vDSO entry and glibc, in that order, inside a
 * syscall sandwich of the same id, ROUNDS times. Returns the bad rounds. */
static long agree_id(clockid_t clk, long rounds, int64_t *narrowest)
{
	struct timespec g;
	int64_t a, v, s, b;
	long bad = 0, i;
	int ret;

	*narrowest = INT64_MAX;
	for (i = 0; i < rounds; i++) {
		if ((ret = sys_ns(clk, &a)) || (ret = vdso_ns(vt_cgt, clk, &v)) ||
		    (ret = vdso_ns(vs_cgt, clk, &s)) || (ret = clock_gettime(clk, &g) ? -errno : 0) ||
		    (ret = sys_ns(clk, &b))) {
			ksft_print_msg("clock %d: %s\n", clk, strerror(-ret));
			return rounds;
		}
		if (b - a < *narrowest)
			*narrowest = b - a;
		if (!(a <= v && v <= s && s <= ts_ns(&g) && ts_ns(&g) <= b) && !bad++)
			ksft_print_msg("clock %d: syscall %lld tod-vdso %lld stock-vdso %lld glibc %lld syscall %lld\n",
				       clk, (long long)a, (long long)v, (long long)s,
				       (long long)ts_ns(&g), (long long)b);
	}
	return bad;
}

static void case_agree(int argc, char **argv)
{
	long secs = arg_long(argc, argv, 2, 10, 1, 3600), bad;
	int64_t mid, tod, half, lim, off, narrow, m0, t0, m1, t1, r0, rt0, r1, rt1;
	char cur[64] = "", avail[256], stock[64];
	double ppm, ppm_rt;
	int k, ret;

	ksft_set_plan(2 + NTOD);
	need_sysfs(cur, sizeof(cur), avail, sizeof(avail));
	need_vdso();

	/*
	 * The core's wall time is taken from the stock one at boot, so they
	 * agree to well under 1 ms. A source that moves only once per tick
	 * (jiffies) lags by up to its resolution, which is added.
	 */
	lim = 1000000 + res_ns(CLOCK_TOD_REALTIME);
	if (sandwich(CLOCK_REALTIME, 200, &mid, &tod, &half))
		ksft_exit_fail_msg("CLOCK_TOD_REALTIME through the vDSO failed\n");
	off = tod - mid;
	ksft_test_result(llabs(off) <= lim + half,
			 "vDSO CLOCK_TOD_REALTIME - stock CLOCK_REALTIME = %+lld ns +- %lld (narrowest of 200 sandwiches; limit %lld)\n",
			 (long long)off, (long long)half, (long long)lim);

	for (k = 0; k < NTOD; k++) {
		bad = agree_id(tods[k].id, 1000, &narrow);
		ksft_test_result(!bad,
				 "%s: syscall <= tod vDSO <= stock vDSO <= glibc <= syscall x1000 (%ld bad; narrowest %lld ns)\n",
				 tods[k].name, bad, (long long)narrow);
	}

	/*
	 * Rate against the stock raw clock: the same TSC as the tod clock on
	 * tsc, a different oscillator (QEMU's virtual clock) on hpet and
	 * acpi_pm, a few ppm apart under TCG. The stock CLOCK_REALTIME rate is
	 * printed too; it is NTP-adjustable, so it is not the rule.
	 */
	/*
	 * Both cores on the same counter, so the rate compares their
	 * arithmetic: under TCG the guest's refined TSC frequency has been
	 * 21 ppm off in a boot, and stock clocks on the TSC then run 21 ppm
	 * off an exact HPET. Jiffies is not a stock clocksource here.
	 */
	if (strcmp(cur, "jiffies")) {
		ret = stock_clocksource_like(cur, stock, sizeof(stock));
		if (ret)
			ksft_exit_fail_msg("making the stock clocksource %s: %s\n", cur, strerror(-ret));
	}
	if (sandwich(CLOCK_MONOTONIC_RAW, 8, &m0, &t0, &half) || sandwich(CLOCK_REALTIME, 8, &r0, &rt0, &half))
		ksft_exit_fail_msg("CLOCK_TOD_REALTIME through the vDSO failed\n");
	sleep(secs);
	if (sandwich(CLOCK_MONOTONIC_RAW, 8, &m1, &t1, &half) || sandwich(CLOCK_REALTIME, 8, &r1, &rt1, &half))
		ksft_exit_fail_msg("CLOCK_TOD_REALTIME through the vDSO failed\n");
	if (strcmp(cur, "jiffies") && (ret = write_file(STOCK_CLOCKSOURCE, stock)))
		ksft_exit_fail_msg("restoring the stock clocksource %s: %s\n", stock, strerror(-ret));
	ppm = ((double)(t1 - t0) / (double)(m1 - m0) - 1.0) * 1e6;
	ppm_rt = ((double)(rt1 - rt0) / (double)(r1 - r0) - 1.0) * 1e6;
	if (!strcmp(cur, "jiffies"))
		ksft_test_result_skip("jiffies: rate is the tick's, not compared (%+.3f ppm vs MONOTONIC_RAW, %+.3f vs REALTIME over %ld s)\n",
				      ppm, ppm_rt, secs);
	else
		ksft_test_result(ppm > -10 && ppm < 10,
				 "vDSO CLOCK_TOD_REALTIME rate vs CLOCK_MONOTONIC_RAW (stock clocksource %s too) over %ld s: %+.3f ppm (limit 10; vs CLOCK_REALTIME %+.3f)\n",
				 cur, secs, ppm, ppm_rt);
}

/* --- syscalls -------------------------------------------------------------- */

enum entry { E_EMPTY, E_GETPPID, E_LIB_GTOD, E_LIB_CGT, E_STOCK_VDSO, E_GLIBC };

static const char *const entry_name[] = {
	[E_EMPTY] = "empty window",
	[E_GETPPID] = "syscall(SYS_getppid)",
	[E_LIB_GTOD] = "libtod tod_gettimeofday",
	[E_LIB_CGT] = "libtod tod_clock_gettime",
	[E_STOCK_VDSO] = "stock __vdso_clock_gettime",
	[E_GLIBC] = "glibc clock_gettime",
};

/* K calls of one entry; returns the number that failed. */
static long run_entry(enum entry e, clockid_t clk, long k)
{
	struct timespec ts;
	struct timeval tv;
	long i, fails = 0;

	for (i = 0; i < k; i++) {
		switch (e) {
		case E_EMPTY:
			break;
		case E_GETPPID:
			syscall(SYS_getppid);
			break;
		case E_LIB_GTOD:
			fails += tod_gettimeofday(&tv, NULL) != 0;
			break;
		case E_LIB_CGT:
			fails += tod_clock_gettime(clk, &ts) != 0;
			break;
		case E_STOCK_VDSO:
			fails += vs_cgt(clk, &ts) != 0;
			break;
		case E_GLIBC:
			fails += clock_gettime(clk, &ts) != 0;
			break;
		}
	}
	return fails;
}

/*
 * Syscalls this thread entered while the counter was on. The ENABLE
 * ioctl's own sys_enter fires before the counter is on, the DISABLE
 * ioctl's while it still is: the empty window measures that overhead (1),
 * which the callers subtract.
 */
static long long count_window(int fd, enum entry e, clockid_t clk, long k, long *fails)
{
	uint64_t c = 0;

	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	*fails = run_entry(e, clk, k);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &c, sizeof(c)) != sizeof(c))
		return -1;
	return (long long)c;
}

static int open_sys_enter(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	struct perf_event_attr pe;
	long long id = -1;
	size_t i;
	int fd;

	for (i = 0; i < ARRAY_SIZE(paths) && id < 0; i++) {
		FILE *f = fopen(paths[i], "r");

		if (f) {
			if (fscanf(f, "%lld", &id) != 1)
				id = -1;
			fclose(f);
		}
	}
	if (id < 0)
		ksft_exit_fail_msg("no raw_syscalls/sys_enter tracepoint id: tracefs not mounted, or no CONFIG_FTRACE_SYSCALLS?\n");
	memset(&pe, 0, sizeof(pe));
	pe.size = sizeof(pe);
	pe.type = PERF_TYPE_TRACEPOINT;
	pe.config = id;
	pe.disabled = 1;
	/* this thread only, on any CPU; the tracepoint fires in the kernel */
	fd = syscall(SYS_perf_event_open, &pe, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		ksft_exit_fail_msg("perf_event_open(raw_syscalls:sys_enter): %s\n", strerror(errno));
	return fd;
}

static void case_syscalls(int argc, char **argv)
{
	static const enum entry per_id[] = { E_LIB_CGT, E_STOCK_VDSO, E_GLIBC };
	long k, fails, want, over_fails;
	long long over, c;
	int fd, one, i, j;

	if (argc < 3 || (strcmp(argv[2], "zero") && strcmp(argv[2], "one"))) {
		fprintf(stderr, "usage: tod_vdso syscalls zero|one [K]\n");
		exit(2);
	}
	one = !strcmp(argv[2], "one");
	k = arg_long(argc, argv, 3, 10000, 1, 100000000);
	ksft_set_plan(2 + NTOD * ARRAY_SIZE(per_id));
	show_source();
	fd = open_sys_enter();
	over = count_window(fd, E_EMPTY, 0, 0, &over_fails);
	ksft_print_msg("counter overhead (empty window): %lld syscalls, subtracted below\n", over);

	/* The counter must count, or "zero" would pass on a broken one. */
	c = count_window(fd, E_GETPPID, 0, k, &fails) - over;
	ksft_test_result(c == k, "counter check: %lld syscalls in %ld getppid() calls (want %ld)\n", c, k, k);

	need_vdso();
	want = one ? k : 0;
	/*
	 * 'one': on acpi_pm and jiffies the vDSO cannot read the counter and
	 * makes exactly one syscall per call of gettimeofday and the two high
	 * resolution ids. The coarse ids need no counter: they are served from
	 * the data page in every mode (as the stock vDSO serves its coarse
	 * clocks), so they make none.
	 */
	ksft_print_msg("rule: %ld calls of each entry make exactly %ld syscalls ('%s' mode; coarse ids: 0); libtod calls __vdso_tod_*\n",
		       k, want, argv[2]);
	c = count_window(fd, E_LIB_GTOD, 0, k, &fails) - over;
	ksft_test_result(c == want && !fails, "%s: %lld syscalls in %ld calls (%ld failed)\n",
			 entry_name[E_LIB_GTOD], c, k, fails);
	for (i = 0; i < NTOD; i++) {
		for (j = 0; j < (int)ARRAY_SIZE(per_id); j++) {
			long w = tods[i].id >= CLOCK_TOD_REALTIME_COARSE ? 0 : want;

			c = count_window(fd, per_id[j], tods[i].id, k, &fails) - over;
			ksft_test_result(c == w && !fails,
					 "%s(%s): %lld syscalls in %ld calls (%ld failed)\n",
					 entry_name[per_id[j]], tods[i].name, c, k, fails);
		}
	}
	close(fd);
}

/* --- getres ---------------------------------------------------------------- */

static void case_getres(int argc, char **argv)
{
	struct timespec s, v;
	int k, rs, rv;

	(void)argc;
	(void)argv;
	ksft_set_plan(NTOD);
	show_source();
	need_vdso();
	ksft_print_msg("rule: __vdso_clock_getres(id) == clock_getres syscall(id) > 0\n");
	for (k = 0; k < NTOD; k++) {
		memset(&s, 0xff, sizeof(s));
		memset(&v, 0xff, sizeof(v));
		rs = syscall(SYS_clock_getres, tods[k].id, &s) ? -errno : 0;
		rv = vs_getres(tods[k].id, &v);
		ksft_test_result(!rs && !rv && s.tv_sec == v.tv_sec && s.tv_nsec == v.tv_nsec &&
				 ts_ns(&s) > 0,
				 "%s: vDSO %lld ns (ret %d), syscall %lld ns (ret %d)\n", tods[k].name,
				 rv ? -1LL : (long long)ts_ns(&v), rv, rs ? -1LL : (long long)ts_ns(&s), rs);
	}
}

/* --- timens ---------------------------------------------------------------- */

/* What the child in the namespace saw: the min and max of each clock. */
struct ns_seen {
	int done, err;
	int64_t lo[NTOD], hi[NTOD];	/* tod entry, stock entry and syscall, per id */
	int64_t gtod_lo, gtod_hi;	/* __vdso_tod_gettimeofday, us */
	int64_t mono_vdso, mono_sys;	/* stock CLOCK_MONOTONIC */
};

static void ns_note(struct ns_seen *s, int k, int64_t v)
{
	if (v < s->lo[k])
		s->lo[k] = v;
	if (v > s->hi[k])
		s->hi[k] = v;
}

static void ns_child(struct ns_seen *s)
{
	struct timespec ts;
	struct timeval tv;
	int64_t v;
	int i, k;

	/* a reader spinning on a sequence count that never settles hangs here */
	alarm(10);
	for (k = 0; k < NTOD; k++) {
		s->lo[k] = INT64_MAX;
		s->hi[k] = INT64_MIN;
	}
	s->gtod_lo = INT64_MAX;
	s->gtod_hi = INT64_MIN;
	for (i = 0; i < 1000; i++) {
		for (k = 0; k < NTOD; k++) {
			if (vdso_ns(vt_cgt, tods[k].id, &v))
				s->err++;
			else
				ns_note(s, k, v);
			if (vdso_ns(vs_cgt, tods[k].id, &v))
				s->err++;
			else
				ns_note(s, k, v);
			if (sys_ns(tods[k].id, &v))
				s->err++;
			else
				ns_note(s, k, v);
		}
		if (vt_gtod(&tv, NULL)) {
			s->err++;
		} else {
			if (tv_us(&tv) < s->gtod_lo)
				s->gtod_lo = tv_us(&tv);
			if (tv_us(&tv) > s->gtod_hi)
				s->gtod_hi = tv_us(&tv);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->mono_vdso = ts_ns(&ts);
	if (sys_ns(CLOCK_MONOTONIC, &s->mono_sys))
		s->err++;
	s->done = 1;
	_exit(0);
}

static void case_timens(int argc, char **argv)
{
	int64_t before[NTOD], after[NTOD], mono0, mono1, off = TIMENS_OFFSET * NSEC_PER_SEC;
	struct ns_seen *s;
	char buf[64];
	int k, st, ok;
	pid_t pid;
	int fd;

	(void)argc;
	(void)argv;
	ksft_set_plan(2 + NTOD);
	show_source();
	need_vdso();
	if (unshare(CLONE_NEWTIME)) {
		if (errno == EPERM) {
			skip_rest("unshare(CLONE_NEWTIME) needs CAP_SYS_ADMIN");
			return;
		}
		ksft_exit_fail_msg("unshare(CLONE_NEWTIME): %s (CONFIG_TIME_NS?)\n", strerror(errno));
	}
	/* offsets can only be set before the namespace's first process */
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	snprintf(buf, sizeof(buf), "monotonic %d 0\n", TIMENS_OFFSET);
	if (fd < 0 || write(fd, buf, strlen(buf)) < 0)
		ksft_exit_fail_msg("writing /proc/self/timens_offsets: %s\n", strerror(errno));
	close(fd);
	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(s, 0, sizeof(*s));
	ksft_print_msg("rule: in a time namespace with CLOCK_MONOTONIC +%d s, each tod clock read in the child (tod vDSO, stock vDSO, syscall) lies between the parent's readings before fork and after waitpid\n",
		       TIMENS_OFFSET);

	for (k = 0; k < NTOD; k++)
		sys_ns(tods[k].id, &before[k]);
	sys_ns(CLOCK_MONOTONIC, &mono0);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid == 0)
		ns_child(s);
	waitpid(pid, &st, 0);
	sys_ns(CLOCK_MONOTONIC, &mono1);
	for (k = 0; k < NTOD; k++)
		sys_ns(tods[k].id, &after[k]);

	ksft_test_result(WIFEXITED(st) && WEXITSTATUS(st) == 0 && s->done && !s->err,
			 "the child in the namespace read every clock (%s, %d failed reads)\n",
			 WIFSIGNALED(st) ? (WTERMSIG(st) == SIGALRM ? "HUNG: killed by alarm after 10 s" :
					    strsignal(WTERMSIG(st))) : "exited", s->err);
	/* the proof that the child is in the new namespace at all */
	ok = s->done && s->mono_vdso >= mono0 + off && s->mono_vdso <= mono1 + off &&
	     s->mono_sys >= mono0 + off && s->mono_sys <= mono1 + off;
	ksft_test_result(ok, "stock CLOCK_MONOTONIC in the child is shifted by +%d s (vdso %+lld ns, syscall %+lld ns from the parent's before)\n",
			 TIMENS_OFFSET, (long long)(s->mono_vdso - mono0), (long long)(s->mono_sys - mono0));
	for (k = 0; k < NTOD; k++) {
		ok = s->done && s->lo[k] >= before[k] && s->hi[k] <= after[k];
		if (tods[k].id == CLOCK_TOD_REALTIME)
			ok = ok && s->gtod_lo >= before[k] / 1000 && s->gtod_hi <= after[k] / 1000;
		ksft_test_result(ok, "%s in the namespace is not shifted: child [%+lld, %+lld] ns within parent [0, %+lld] ns\n",
				 tods[k].name, (long long)(s->lo[k] - before[k]),
				 (long long)(s->hi[k] - before[k]), (long long)(after[k] - before[k]));
	}
	munmap(s, sizeof(*s));
}

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
 * slack = 2 us + (r + 5 ppm) of the time since the start, r the fastest
 * rate against the raw clock measured for tsc, hpet and acpi_pm before the
 * storm (1 s each): the sources are different oscillators, and the raw
 * clock's TSC calibration has been 21 ppm off the HPET in a boot; 5 ppm
 * covers the error of those 1 s measurements. No allowance is made for jiffies: its tod
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
};

static atomic_int sw_stop;
static int64_t sw_start;		/* raw clock when the readers start */
static double sw_ppm = 5;		/* the fastest source's rate + 5 ppm */

/* the allowance at raw time r: 2 us + sw_ppm of the run so far */
static int64_t sw_slack(int64_t r)
{
	return 2000 + (int64_t)((double)(r - sw_start) * sw_ppm / 1e6);
}

/*
 * The time one switch loses, both ways bounded. Switching accumulates the
 * old source up to its last read and starts the new one at its first read;
 * the time between is lost (under TCG an HPET or ACPI PM read is an exit to
 * the emulator: about 20 us a switch, and up to 260 us on the debug kernel
 * while the host was busy, since a host stall inside the switch is lost
 * time for the guest). A source switch may lose at most
 * SW_LOSS_MAX and gain at most SW_GAIN_MAX. On jiffies the clock moves only
 * at the tick, so a reading there is up to a tick behind the time: a switch
 * to or from jiffies may seem to lose or gain one tick more (the storm's
 * "ahead" rule checks that jiffies never really runs ahead).
 */
#define SW_LOSS_MAX	(1000 * 1000)
#define SW_GAIN_MAX	(5 * 1000)

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
	int have = 0, i;

	if (pin_cpu(r->cpu)) {
		ksft_print_msg("sched_setaffinity(cpu%d): %s\n", r->cpu, strerror(errno));
		r->errors++;
		return NULL;
	}
	r->worst[0] = r->worst[1] = INT64_MIN;
	r->ahead[0] = r->ahead[1] = INT64_MIN;
	while (!atomic_load_explicit(&sw_stop, memory_order_relaxed)) {
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
		if (have) {
			el = r1 - prev_r0;
			for (i = 0; i < 2; i++) {
				d = now[i] - prev[i];
				if (d < 0 && !r->inv[i]++)
					ksft_print_msg("cpu%d: clock %d stepped back %lld ns\n",
						       r->cpu, sw_ids[i], (long long)-d);
				if (now[i] - r1 - hw[i] > sw_slack(r1) && !r->jumps[i]++)
					ksft_print_msg("cpu%d: clock %d jumped %lld ns in %lld ns elapsed, %lld ns ahead of its earlier readings\n",
						       r->cpu, sw_ids[i], (long long)d, (long long)el,
						       (long long)(now[i] - r1 - hw[i]));
				if (now[i] - r1 - hw[i] > r->ahead[i])
					r->ahead[i] = now[i] - r1 - hw[i];
				if (d - el > r->worst[i])
					r->worst[i] = d - el;
			}
		}
		for (i = 0; i < 2; i++)
			if (now[i] - r0 > hw[i])
				hw[i] = now[i] - r0;
		prev[0] = now[0];
		prev[1] = now[1];
		prev_r0 = r0;
		have = 1;
		r->n++;
	}
	return NULL;
}

static void case_switch(int argc, char **argv)
{
	static const char *const order[] = { "tsc", "hpet", "acpi_pm", "jiffies" };
	long secs = arg_long(argc, argv, 2, 10, 1, 3600);
	long period = arg_long(argc, argv, 3, 100, 1, 60000);
	const char *rot[ARRAY_SIZE(order)];
	char orig[64], avail[256], now[64];
	struct sw_reader *rd;
	long switches = 0, failed = 0, n = 0, inv[2] = { 0, 0 }, jumps[2] = { 0, 0 }, fewest = -1;
	int64_t res, end, worst[2] = { INT64_MIN, INT64_MIN };
	int64_t ahead[2] = { INT64_MIN, INT64_MIN }, tick = 0;
	struct sw_loss loss[2] = { 0 };
	int nrot = 0, i, c, k, start = 0, ret;
	size_t j;

	ksft_set_plan(5);
	need_sysfs(orig, sizeof(orig), avail, sizeof(avail));
	need_vdso();
	for (j = 0; j < ARRAY_SIZE(order); j++) {
		if (in_word_list(avail, order[j])) {
			if (!strcmp(order[j], orig))
				start = nrot + 1;
			rot[nrot++] = order[j];
		}
	}
	if (nrot < 2)
		ksft_exit_fail_msg("fewer than two of tsc, hpet, acpi_pm, jiffies are available\n");
	if (geteuid()) {
		skip_rest("writing current_timesource needs root");
		return;
	}

	/* each source once: its resolution, and its rate against the raw clock */
	for (i = 0; i < nrot; i++) {
		int64_t r0, t0, r1, t1;
		double ppm;

		if ((ret = set_source(rot[i])))
			ksft_exit_fail_msg("switching to %s: %s\n", rot[i], strerror(-ret));
		res = res_ns(CLOCK_TOD_MONOTONIC);
		if (!strcmp(rot[i], "jiffies")) {
			tick = res;
			ksft_print_msg("%s: clock_getres(CLOCK_TOD_MONOTONIC) = %lld ns\n", rot[i],
				       (long long)res);
			continue;
		}
		sample(&r0, &t0);
		usleep(1000000);
		sample(&r1, &t1);
		ppm = ((double)(t1 - t0) - (double)(r1 - r0)) * 1e6 / (double)(r1 - r0);
		if (ppm + 5 > sw_ppm)
			sw_ppm = ppm + 5;
		ksft_print_msg("%s: clock_getres(CLOCK_TOD_MONOTONIC) = %lld ns, rate %+.2f ppm against the raw clock\n",
			       rot[i], (long long)res, ppm);
	}

	/* the time each switch loses: every ordered pair, 5 times */
	for (k = 0; k < 5; k++) {
		for (i = 0; i < nrot; i++) {
			for (c = 0; c < nrot; c++) {
				int64_t r0, t0, r1, t1;
				int jif = !strcmp(rot[i], "jiffies") || !strcmp(rot[c], "jiffies");

				if (i == c)
					continue;
				if (set_source(rot[i]))
					ksft_exit_fail_msg("switching to %s failed\n", rot[i]);
				usleep(10000);
				sample(&r0, &t0);
				if (set_source(rot[c]))
					ksft_exit_fail_msg("switching %s -> %s failed\n", rot[i], rot[c]);
				sample(&r1, &t1);
				sw_loss_add(&loss[jif], (r1 - r0) - (t1 - t0));
			}
		}
	}
	for (i = 0; i < 2; i++)
		if (loss[i].n)
			ksft_print_msg("time lost per switch%s: mean %.1f us, from %.1f to %.1f us (%ld switches)\n",
				       i ? " to or from jiffies" : " between tsc, hpet, acpi_pm",
				       loss[i].sum / 1e3 / loss[i].n, loss[i].least / 1e3,
				       loss[i].most / 1e3, loss[i].n);
	set_source(orig);
	ksft_print_msg("rule: %d readers, rotation every %ld ms for %ld s; no step back, never ahead of earlier readings + elapsed + 2 us + %.1f ppm of the run\n",
		       ncpus, period, secs, sw_ppm);
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
	end = raw_ns() + secs * NSEC_PER_SEC;
	for (i = start; raw_ns() < end; i++) {
		const char *to = rot[i % nrot];

		ret = set_source(to);
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
	ksft_test_result(loss[0].n && loss[0].most <= SW_LOSS_MAX && loss[0].least >= -SW_GAIN_MAX &&
			 (!loss[1].n || (loss[1].most <= tick + SW_LOSS_MAX &&
					 loss[1].least >= -tick - SW_GAIN_MAX)),
			 "a switch loses at most %d us and gains at most %d us (a tick of %lld us more either way with jiffies): between tsc, hpet, acpi_pm %.1f to %.1f us, with jiffies %.1f to %.1f us\n",
			 SW_LOSS_MAX / 1000, SW_GAIN_MAX / 1000, (long long)tick / 1000,
			 loss[0].least / 1e3, loss[0].most / 1e3, loss[1].least / 1e3, loss[1].most / 1e3);
	ksft_test_result(!ret && !tod_sysfs_read("current_timesource", now, sizeof(now)) &&
			 !strcmp(now, orig),
			 "original timesource '%s' restored\n", orig);
}

/* --- hpetpage -------------------------------------------------------------- */

/* The [vvar] mapping of this process; 0 if found. */
static int find_vvar(unsigned long *start, unsigned long *end)
{
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");
	int found = 0;

	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, "[vvar]") && sscanf(line, "%lx-%lx", start, end) == 2;
	fclose(f);
	return found ? 0 : -1;
}

struct hpet_probe {
	uint32_t a, b, period_fs;
	int64_t min_ns, max_ns;		/* real time between the two counter reads */
};

/*
 * Read the HPET page in a fresh child: this process never touches it, so
 * no mapping made while the HPET was current can linger here and be
 * inherited. Returns 0 if the child read it (*p filled), else the signal
 * that killed the child, or -1.
 */
static int probe_hpet(unsigned long page, struct hpet_probe *p)
{
	struct hpet_probe *sh;
	int st, ret;
	pid_t pid;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return -1;
	pid = fork();
	if (pid == 0) {
		volatile uint32_t *h = (volatile uint32_t *)page;
		int64_t r0, r0b, r1, r1b;

		alarm(10);
		r0 = raw_ns();
		sh->a = h[HPET_COUNTER / 4];
		r0b = raw_ns();
		/* 100 ms: a few ms of emulator stall stay under 1 % */
		while ((r1 = raw_ns()) < r0b + 100000000)
			;
		sh->b = h[HPET_COUNTER / 4];
		r1b = raw_ns();
		sh->period_fs = h[HPET_PERIOD / 4];
		sh->min_ns = r1 - r0b;
		sh->max_ns = r1b - r0;
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		ret = -1;
	else if (WIFSIGNALED(st))
		ret = WTERMSIG(st);
	else
		ret = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
	*p = *sh;
	munmap(sh, sizeof(*sh));
	return ret;
}

/* One result: the page behaves as it must while SRC is current. */
static void check_hpet_page(unsigned long page, const char *src, const char *when)
{
	struct hpet_probe p;
	int sig = probe_hpet(page, &p);
	double ns;

	if (strcmp(src, "hpet")) {
		ksft_test_result(sig == SIGBUS, "%s (%s): a fresh process reading the HPET page gets SIGBUS (%s)\n",
				 when, src, sig > 0 ? strsignal(sig) : sig ? "error" : "it read it");
		return;
	}
	if (sig) {
		ksft_test_result_fail("%s (hpet): a fresh process reading the HPET page: %s\n", when,
				      sig > 0 ? strsignal(sig) : "error");
		return;
	}
	/* the counter runs at the period its own capabilities register gives */
	ns = (double)(uint32_t)(p.b - p.a) * p.period_fs / 1e6;
	ksft_test_result(p.period_fs && p.b != p.a && ns >= p.min_ns * 0.99 && ns <= p.max_ns * 1.01,
			 "%s (hpet): the HPET page is readable and counting: %u ticks of %u fs = %.0f ns in [%lld, %lld] ns real\n",
			 when, (uint32_t)(p.b - p.a), p.period_fs, ns, (long long)p.min_ns,
			 (long long)p.max_ns);
}

static sigjmp_buf bus_env;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_env, 1);
}

/* Read the HPET counter through PAGE: 0 if it read, 1 on SIGBUS. */
static int touch_hpet(unsigned long page)
{
	volatile uint32_t *h = (volatile uint32_t *)page;

	if (sigsetjmp(bus_env, 1))
		return 1;
	(void)h[HPET_COUNTER / 4];
	return 0;
}

/*
 * The first touch of a child: 0 if it read the page (and so has it
 * mapped), 1 if it faulted. Leaves SIGBUS at its default, so that a later
 * unguarded touch that faults ends the child with SIGBUS.
 */
static int touch_hpet_guarded(unsigned long page)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, dfl = { .sa_handler = SIG_DFL };
	int ret;

	sigaction(SIGBUS, &sa, NULL);
	ret = touch_hpet(page);
	sigaction(SIGBUS, &dfl, NULL);
	return ret;
}

/* A child of the test dies with its parent: no process outlives a killed test. */
static void die_with_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(9);
}

/*
 * How child PID ended: the signal that killed it, 0 if it exited 0,
 * 256 + its status if it exited otherwise, -1 if it could not be waited for.
 */
static int child_end(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		return WTERMSIG(st);
	return WIFEXITED(st) ? (WEXITSTATUS(st) ? 256 + WEXITSTATUS(st) : 0) : -1;
}

static const char *end_str(int end)
{
	static char buf[32];

	if (end > 255) {
		snprintf(buf, sizeof(buf), "exited %d", end - 256);
		return buf;
	}
	return end > 0 ? strsignal(end) : end ? "error (see above)" : "it read it";
}

/*
 * A process that read the HPET page while the HPET was current, and so has
 * it mapped, must lose it when the core leaves the HPET: the switch unmaps
 * it everywhere before the sysfs write returns. Called with hpet current;
 * a child reads the page through the [vvar] at VVAR, then the test switches
 * to AWAY and the child reads it again. With LEN, the child first moves its
 * whole [vvar] (LEN bytes) with mremap and reads the page at its new place;
 * it uses no vDSO after the move (the vDSO finds [vvar] at a fixed distance
 * from its code). Returns how the child's second read ended (child_end():
 * SIGBUS is wanted), or -1 on an error, said in a message.
 */
static int stale_hpet(unsigned long vvar, unsigned long len, const char *away)
{
	unsigned long page = vvar + HPET_PAGE * PAGE;
	int up[2], down[2], sw = -EIO, end;
	pid_t pid, self = getpid();
	char c = 0;

	if (pipe(up) || pipe(down))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid == 0) {
		die_with_parent(self);
		alarm(30);
		close(up[0]);
		close(down[1]);
		if (touch_hpet_guarded(page))		/* maps the page */
			_exit(2);
		if (len) {
			void *to = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (to == MAP_FAILED ||
			    mremap((void *)vvar, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to) != to)
				_exit(3);
			page = (unsigned long)to + HPET_PAGE * PAGE;
			if (touch_hpet_guarded(page))
				_exit(4);
		}
		if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(5);
		(void)((volatile uint32_t *)page)[HPET_COUNTER / 4];	/* must fault now */
		_exit(0);
	}
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	close(up[1]);
	close(down[0]);
	/* EOF when the child failed before the switch: no switch then */
	if (read(up[0], &c, 1) == 1) {
		sw = set_source(away);
		if (!sw && write(down[1], &c, 1) != 1)
			sw = -EIO;
	}
	close(down[1]);		/* without the go, the child reads EOF and exits */
	close(up[0]);
	end = child_end(pid);
	if (sw) {
		ksft_print_msg("no switch hpet -> %s: %s (child: %s)\n", away,
			       sw == -EIO ? "the child failed first" : strerror(-sw), end_str(end));
		return -1;
	}
	return end;
}

static void case_hpetpage(int argc, char **argv)
{
	char cur[64], avail[256], other[64] = "";
	unsigned long start = 0, end = 0, page;
	int ret;

	(void)argc;
	(void)argv;
	ksft_set_plan(5);
	need_sysfs(cur, sizeof(cur), avail, sizeof(avail));
	if (find_vvar(&start, &end))
		ksft_exit_fail_msg("no [vvar] in /proc/self/maps\n");
	ksft_test_result(end - start == VVAR_PAGES * PAGE,
			 "[vvar] at %#lx is %lu pages (want %d: 4 stock, tod data, tod HPET)\n",
			 start, (end - start) / PAGE, VVAR_PAGES);
	page = start + HPET_PAGE * PAGE;
	check_hpet_page(page, cur, "as booted");

	/* Then the other state: to the HPET and back, or away and back. */
	if (!in_word_list(avail, "hpet") || geteuid()) {
		ksft_test_result_skip("no switch: %s\n", geteuid() ? "not root" : "hpet not available");
		ksft_test_result_skip("no switch back\n");
		ksft_test_result_skip("no switch away from a mapped HPET page\n");
		return;
	}
	if (strcmp(cur, "hpet"))
		snprintf(other, sizeof(other), "hpet");
	else
		snprintf(other, sizeof(other), "%s", in_word_list(avail, "tsc") ? "tsc" : "jiffies");
	ret = set_source(other);
	if (ret)
		ksft_test_result_fail("switching to %s: %s\n", other, strerror(-ret));
	else
		check_hpet_page(page, other, "after switching");
	ret = set_source(cur);
	if (ret)
		ksft_test_result_fail("switching back to %s: %s\n", cur, strerror(-ret));
	else
		check_hpet_page(page, cur, "after switching back");

	/* to the HPET, map the page in a child, switch away: the child loses it */
	snprintf(other, sizeof(other), "%s", in_word_list(avail, "tsc") ? "tsc" : "jiffies");
	ret = set_source("hpet");
	if (ret) {
		ksft_test_result_fail("switching to hpet: %s\n", strerror(-ret));
	} else {
		ret = stale_hpet(start, 0, other);
		ksft_test_result(ret == SIGBUS,
				 "a process that read the HPET page, after the switch hpet -> %s: reading it again gets SIGBUS (%s)\n",
				 other, end_str(ret));
	}
	set_source(cur);
}

/* --- hpetrevoke ------------------------------------------------------------ */

static void *shared_map(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		ksft_exit_fail_msg("mmap of %zu shared bytes: %s\n", len, strerror(errno));
	memset(p, 0, len);
	return p;
}

/* Sleep until *word differs from val (shared between processes). */
static void futex_wait(atomic_int *word, int val)
{
	while (atomic_load(word) == val)
		syscall(SYS_futex, word, FUTEX_WAIT, val, NULL, NULL, 0);
}

static void futex_wake_all(atomic_int *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* Splitting [vvar] is refused: munmap and mprotect of one page fail with EINVAL. */
static void revoke_split(unsigned long start)
{
	int mu, mp, eu = 0, ep = 0;
	pid_t pid = fork();

	if (pid == 0) {
		/* in a child: if the split were allowed, this process is damaged */
		mu = munmap((void *)(start + PAGE), PAGE);
		eu = errno;
		mp = mprotect((void *)start, PAGE, PROT_NONE);
		ep = errno;
		if (mu || mp)
			ksft_print_msg("munmap of page 1: %s; mprotect of page 0: %s\n",
				       mu ? strerror(eu) : "done", mp ? strerror(ep) : "done");
		_exit(mu == -1 && eu == EINVAL && mp == -1 && ep == EINVAL ? 0 : 1);
	}
	ksft_test_result(pid > 0 && child_end(pid) == 0,
			 "splitting [vvar] is refused: munmap and mprotect of one of its pages fail with EINVAL\n");
}

/* The same as hpetpage's last case, in a process that moved its whole [vvar]. */
static void revoke_mremap(unsigned long start, unsigned long len, const char *away)
{
	int end = stale_hpet(start, len, away);

	ksft_test_result(end == SIGBUS,
			 "a process that moved its whole [vvar] with mremap and read the HPET page there: after hpet -> %s, reading it again gets SIGBUS (%s)\n",
			 away, end_str(end));
}

enum { STORM_BEFORE, STORM_SWITCHING, STORM_SWITCHED };

struct storm {
	atomic_int state;		/* STORM_*: where the switch away stands */
	atomic_int forked, before, during, after, bus, readable, other;
	atomic_int probe;		/* minor faults of a child's first read, -1 SIGBUS */
};

/* Minor faults taken by one read of *p. */
static __attribute__((noinline)) long read_faults(volatile uint32_t *p)
{
	struct rusage r0, r1;

	getrusage(RUSAGE_SELF, &r0);
	(void)*p;
	getrusage(RUSAGE_SELF, &r1);
	return r1.ru_minflt - r0.ru_minflt;
}

/*
 * In a child just forked from a process with the HPET page mapped: the
 * minor faults its first read of the page takes, 0 when it inherited the
 * parent's page table entry (the case the revocation must catch), or -1
 * on SIGBUS. pagemap and mincore cannot tell: they skip PFN mappings. A
 * first read of memory this child has already touched takes the faults
 * of the code and stack it runs on.
 */
static int inherited_faults(unsigned long page)
{
	struct sigaction sa = { .sa_handler = on_sigbus };
	volatile uint32_t here = 0;
	long n;

	sigaction(SIGBUS, &sa, NULL);
	if (sigsetjmp(bus_env, 1))
		return -1;
	read_faults(&here);
	n = read_faults((volatile uint32_t *)page + HPET_COUNTER / 4);
	return n > 100 ? 100 : (int)n;
}

#define STORM_ROUNDS 5
#define STORM_BALLAST 500

/*
 * A process that has the HPET page mapped forks children without pause
 * while the test switches away from the HPET; each child, once the switch
 * has returned, reads the page: all must get SIGBUS, whether they were
 * forked before, during or after the switch. A fork counts as during the
 * switch when the switch was under way at its start or its end. Five
 * rounds: the race the test is after (a child copying the parent's page
 * table entry while the unmap runs) is narrow; 500 idle processes widen
 * it for an unmap that visits every process. Each round first checks that
 * a child does inherit the entry (no fault on its first read).
 */
static void revoke_fork_storm(unsigned long page, const char *away)
{
	struct storm *s = shared_map(sizeof(*s));
	int r, ret = 0, bad_end = 0, forked = 0, before = 0, during = 0, after = 0;
	int bus = 0, readable = 0, other = 0, probe_faults = 0, r_end;
	pid_t pid, self = getpid(), ballast[STORM_BALLAST];
	int i, nballast;
	siginfo_t si;

	for (nballast = 0; nballast < STORM_BALLAST; nballast++) {
		ballast[nballast] = fork();
		if (ballast[nballast] == 0) {
			die_with_parent(self);
			pause();
			_exit(0);
		}
		if (ballast[nballast] < 0)
			break;
	}
	for (r = 0; r < STORM_ROUNDS && !ret; r++) {
		memset(s, 0, sizeof(*s));
		ret = set_source("hpet");
		if (ret)
			break;
		pid = fork();
		if (pid == 0) {
			int n = 0, nafter = 0, st, st0, st1;
			pid_t kid, storm = getpid();

			die_with_parent(self);
			alarm(120);
			if (touch_hpet_guarded(page))
				_exit(2);
			kid = fork();
			if (kid == 0) {
				atomic_store(&s->probe, inherited_faults(page));
				_exit(0);
			}
			if (kid < 0 || waitpid(kid, NULL, 0) != kid)
				_exit(3);
			while (nafter < 40 && n < 2000) {
				st0 = atomic_load(&s->state);
				kid = fork();
				if (kid == 0) {
					die_with_parent(storm);
					futex_wait(&s->state, STORM_BEFORE);
					futex_wait(&s->state, STORM_SWITCHING);
					(void)((volatile uint32_t *)page)[HPET_COUNTER / 4];
					_exit(0);
				}
				if (kid < 0)
					_exit(4);
				st1 = atomic_load(&s->state);
				n++;
				if (st1 == STORM_BEFORE)
					atomic_fetch_add(&s->before, 1);
				else if (st0 == STORM_SWITCHED)
					atomic_fetch_add(&s->after, 1);
				else
					atomic_fetch_add(&s->during, 1);
				nafter += st0 == STORM_SWITCHED;
				atomic_store(&s->forked, n);
			}
			while ((kid = wait(&st)) > 0 || errno == EINTR) {
				if (kid < 0)
					continue;
				if (WIFSIGNALED(st) && WTERMSIG(st) == SIGBUS)
					atomic_fetch_add(&s->bus, 1);
				else if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
					atomic_fetch_add(&s->readable, 1);
				else
					atomic_fetch_add(&s->other, 1);
			}
			_exit(0);
		}
		if (pid < 0)
			ksft_exit_fail_msg("fork: %s\n", strerror(errno));
		/* switch once the storm is under way (or it ended early) */
		si.si_pid = 0;
		while (atomic_load(&s->forked) < 20 &&
		       !waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) && !si.si_pid)
			usleep(1000);
		atomic_store(&s->state, STORM_SWITCHING);
		futex_wake_all(&s->state);
		ret = set_source(away);
		atomic_store(&s->state, STORM_SWITCHED);
		futex_wake_all(&s->state);
		r_end = child_end(pid);
		if (r_end)
			ksft_print_msg("storm process of round %d: %s\n", r + 1, end_str(r_end));
		bad_end += r_end != 0;
		if (atomic_load(&s->probe))
			ksft_print_msg("round %d: a child's first read of the inherited page: %d minor faults\n",
				       r + 1, atomic_load(&s->probe));
		probe_faults += atomic_load(&s->probe) != 0;
		forked += atomic_load(&s->forked);
		before += atomic_load(&s->before);
		during += atomic_load(&s->during);
		after += atomic_load(&s->after);
		bus += atomic_load(&s->bus);
		readable += atomic_load(&s->readable);
		other += atomic_load(&s->other);
	}
	for (i = 0; i < nballast; i++)
		kill(ballast[i], SIGKILL);
	for (i = 0; i < nballast; i++)
		waitpid(ballast[i], NULL, 0);
	ksft_test_result(!ret && r == STORM_ROUNDS && !bad_end && !probe_faults &&
			 nballast == STORM_BALLAST &&
			 before >= 20 * STORM_ROUNDS && after >= 40 * STORM_ROUNDS && bus == forked,
			 "fork storm across hpet -> %s, %d rounds (%s): children inherit the mapped page (rounds where a child faulted on it: %d); %d children forked %d before the switch, %d during, %d after; reading it after the switch: %d SIGBUS, %d read it, %d other ends (storm processes failed: %d)\n",
			 away, r, ret ? strerror(-ret) : "ok", probe_faults, forked, before, during,
			 after, bus, readable, other, bad_end);
	munmap(s, sizeof(*s));
}

/*
 * A process with the HPET page mapped vforks; the vfork child, which shares
 * its mm, switches the core away from the HPET (a write(2) on a descriptor
 * the parent opened) and exits. The parent then reads the page: SIGBUS.
 */
static void revoke_vfork(unsigned long page, const char *away)
{
	pid_t self = getpid(), pid = fork();
	int end;

	if (pid == 0) {
		int fd, st;
		size_t len = strlen(away);
		pid_t v;

		die_with_parent(self);
		alarm(30);
		if (touch_hpet_guarded(page))
			_exit(2);
		fd = open(TOD_SYSFS "current_timesource", O_WRONLY | O_TRUNC);
		if (fd < 0)
			_exit(3);
		v = vfork();
		if (v == 0)
			_exit(syscall(SYS_write, fd, away, len) == (long)len ? 0 : 1);
		if (v < 0 || waitpid(v, &st, 0) != v || !WIFEXITED(st) || WEXITSTATUS(st))
			_exit(4);
		(void)((volatile uint32_t *)page)[HPET_COUNTER / 4];
		_exit(0);
	}
	end = pid > 0 ? child_end(pid) : -1;
	ksft_test_result(end == SIGBUS,
			 "a process with the HPET page mapped whose vfork child switched hpet -> %s: reading it again gets SIGBUS (%s)\n",
			 away, end_str(end));
}

struct idle {
	atomic_int phase;		/* odd: map the page; even: read it after the switch */
	atomic_int acks, mapped, bus, readable;
};

/* Wait up to 60 s for *acks to reach n: 0, or -1 on timeout. */
static int wait_acks(atomic_int *acks, int n)
{
	int64_t end = raw_ns() + 60 * NSEC_PER_SEC;

	while (atomic_load(acks) < n)
		if (raw_ns() > end)
			return -1;
		else
			usleep(1000);
	return 0;
}

/* Start phase P of the idle processes; 0 once all NPROC have done it, -1 on timeout. */
static int idle_phase(struct idle *s, int p, int nproc)
{
	atomic_store(&s->phase, p);
	futex_wake_all(&s->phase);
	return wait_acks(&s->acks, nproc * p);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Time one switch to AWAY, in us. */
static int64_t timed_switch(const char *away, int *ret)
{
	int64_t t0 = raw_ns();

	*ret = set_source(away);
	return (raw_ns() - t0) / 1000;
}

/*
 * NPROC idle processes, blocked in futex_wait(), each with the HPET page
 * mapped: every switch away from the HPET must unmap it from all of them.
 * Prints how long the sysfs write takes, with them and with none (the
 * figure for NOTES.md; a measurement, not a pass condition); passes when
 * all of them had the page and all lost it, in each of ROUNDS switches.
 */
#define REVOKE_ROUNDS 3
static void revoke_idle(unsigned long page, const char *away, int nproc)
{
	int64_t none[REVOKE_ROUNDS], with[REVOKE_ROUNDS];
	struct idle *s = shared_map(sizeof(*s));
	int i, r, ret = 0, rr, rs, forked = 0;
	pid_t *kids = calloc(nproc, sizeof(*kids)), self = getpid();

	if (!kids)
		ksft_exit_fail_msg("calloc of %d pids failed\n", nproc);
	for (r = 0; r < REVOKE_ROUNDS; r++) {
		rr = set_source("hpet");
		none[r] = timed_switch(away, &rs);
		ret = ret ? ret : rr ? rr : rs;
	}
	for (i = 0; i < nproc; i++, forked++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			struct sigaction sa = { .sa_handler = on_sigbus };
			int p;

			die_with_parent(self);
			sigaction(SIGBUS, &sa, NULL);
			for (p = 1; p <= 2 * REVOKE_ROUNDS; p++) {
				futex_wait(&s->phase, p - 1);
				if (p & 1)
					atomic_fetch_add(&s->mapped, !touch_hpet(page));
				else if (touch_hpet(page))
					atomic_fetch_add(&s->bus, 1);
				else
					atomic_fetch_add(&s->readable, 1);
				atomic_fetch_add(&s->acks, 1);
			}
			_exit(0);
		}
		if (kids[i] < 0) {
			ksft_print_msg("fork %d of %d: %s\n", i + 1, nproc, strerror(errno));
			break;
		}
	}
	for (r = 0; r < REVOKE_ROUNDS && forked == nproc; r++) {
		rr = set_source("hpet");
		ret = ret ? ret : rr;
		if (idle_phase(s, 2 * r + 1, nproc)) {	/* all map the page */
			ret = -ETIMEDOUT;
			break;
		}
		with[r] = timed_switch(away, &rr);
		ret = ret ? ret : rr;
		if (idle_phase(s, 2 * r + 2, nproc)) {	/* all read it again */
			ret = -ETIMEDOUT;
			break;
		}
	}
	if (ret == -ETIMEDOUT) {
		ksft_print_msg("idle processes: %d of the acks expected after 60 s; killing them\n",
			       atomic_load(&s->acks));
		for (i = 0; i < forked; i++)
			kill(kids[i], SIGKILL);
	} else if (forked < nproc) {
		atomic_store(&s->phase, 2 * REVOKE_ROUNDS);
		futex_wake_all(&s->phase);
	}
	for (i = 0; i < forked; i++)
		waitpid(kids[i], NULL, 0);
	free(kids);
	qsort(none, REVOKE_ROUNDS, sizeof(none[0]), cmp_i64);
	if (forked == nproc && r == REVOKE_ROUNDS) {
		qsort(with, REVOKE_ROUNDS, sizeof(with[0]), cmp_i64);
		ksft_print_msg("switch hpet -> %s, median of %d: %lld us with %d idle processes mapping the HPET page (min %lld, max %lld), %lld us with none (min %lld, max %lld)\n",
			       away, REVOKE_ROUNDS, (long long)with[REVOKE_ROUNDS / 2], nproc,
			       (long long)with[0], (long long)with[REVOKE_ROUNDS - 1],
			       (long long)none[REVOKE_ROUNDS / 2], (long long)none[0],
			       (long long)none[REVOKE_ROUNDS - 1]);
	}
	ksft_test_result(!ret && forked == nproc &&
			 atomic_load(&s->mapped) == nproc * REVOKE_ROUNDS &&
			 atomic_load(&s->bus) == nproc * REVOKE_ROUNDS,
			 "%d idle processes x %d switches hpet -> %s (%s): %d mapped the HPET page, %d got SIGBUS reading it after the switch, %d read it\n",
			 nproc, REVOKE_ROUNDS, away, ret ? strerror(-ret) : "ok", atomic_load(&s->mapped),
			 atomic_load(&s->bus), atomic_load(&s->readable));
	munmap(s, sizeof(*s));
}

/* The source the test found, put back however the test ends. */
static char restore_src[64];
static pid_t restore_pid;

static void restore_source(void)
{
	int ret;

	if (getpid() != restore_pid || !restore_src[0])
		return;
	ret = set_source(restore_src);
	if (ret)
		ksft_print_msg("switching back to %s: %s\n", restore_src, strerror(-ret));
	restore_src[0] = 0;
}

static void case_hpetrevoke(int argc, char **argv)
{
	char cur[64], avail[256], away[64];
	unsigned long start = 0, end = 0, page;
	int nproc = argc > 2 ? atoi(argv[2]) : 1000, ret;

	ksft_set_plan(5);
	need_sysfs(cur, sizeof(cur), avail, sizeof(avail));
	if (nproc < 1)
		ksft_exit_fail_msg("NPROC must be at least 1 (got '%s')\n", argv[2]);
	if (geteuid() || !in_word_list(avail, "hpet"))
		ksft_exit_fail_msg("hpetrevoke needs root and the hpet timesource (%s)\n",
				   geteuid() ? "not root" : "hpet not available");
	if (find_vvar(&start, &end))
		ksft_exit_fail_msg("no [vvar] in /proc/self/maps\n");
	page = start + HPET_PAGE * PAGE;
	snprintf(away, sizeof(away), "%s", in_word_list(avail, "tsc") ? "tsc" : "jiffies");
	snprintf(restore_src, sizeof(restore_src), "%s", cur);
	restore_pid = getpid();
	atexit(restore_source);

	revoke_split(start);
#define TO_HPET() do {							\
		ret = set_source("hpet");				\
		if (ret)						\
			ksft_exit_fail_msg("switching to hpet: %s\n", strerror(-ret)); \
	} while (0)
	TO_HPET();
	revoke_mremap(start, end - start, away);
	revoke_fork_storm(page, away);
	TO_HPET();
	revoke_vfork(page, away);
	revoke_idle(page, away, nproc);
#undef TO_HPET
	restore_source();
}

/* --- lib ------------------------------------------------------------------- */

/*
 * libtod against the system call, on whatever kernel this is: for each id
 * the library fails exactly when the syscall does, with the same errno, and
 * otherwise reads between two syscall readings. On a stock kernel this is
 * the fallback path (the tod ids fail with EINVAL); on the kernel under
 * test it is the vDSO.
 */
static int lib_id(clockid_t clk, char *why, size_t len)
{
	struct timespec ts;
	int64_t a, b;
	int i, ra, rl, el;

	for (i = 0; i < 1000; i++) {
		ra = sys_ns(clk, &a);
		errno = 0;
		rl = tod_clock_gettime(clk, &ts);
		el = errno;
		if (ra || rl) {
			snprintf(why, len, "syscall %s, libtod %d errno %s", ra ? strerror(-ra) : "ok",
				 rl, strerror(el));
			return ra == -el && rl == -1;
		}
		sys_ns(clk, &b);
		if (ts_ns(&ts) < a || ts_ns(&ts) > b) {
			snprintf(why, len, "libtod %lld outside syscall [%lld, %lld]",
				 (long long)ts_ns(&ts), (long long)a, (long long)b);
			return 0;
		}
	}
	snprintf(why, len, "inside the syscall sandwich x1000");
	return 1;
}

static void case_lib(int argc, char **argv)
{
	static const struct {
		clockid_t id;
		const char *name;
	} ids[] = {
		{ CLOCK_REALTIME, "CLOCK_REALTIME" },
		{ CLOCK_MONOTONIC, "CLOCK_MONOTONIC" },
		{ CLOCK_TOD_REALTIME, "CLOCK_TOD_REALTIME" },
		{ CLOCK_TOD_MONOTONIC, "CLOCK_TOD_MONOTONIC" },
		{ CLOCK_TOD_REALTIME_COARSE, "CLOCK_TOD_REALTIME_COARSE" },
		{ CLOCK_TOD_MONOTONIC_COARSE, "CLOCK_TOD_MONOTONIC_COARSE" },
		{ 16, "clock id 16" },
	};
	struct timezone tz, ktz;
	struct timeval tv;
	int64_t a, b;
	char why[160];
	size_t i;
	int ra, rl, el;

	(void)argc;
	(void)argv;
	ksft_set_plan(ARRAY_SIZE(ids) + 2);
	ksft_print_msg("libtod reads through the %s\n",
		       tod_vdso_available() ? "vDSO (__vdso_tod_*)" : "system call (fallback)");
	ksft_print_msg("rule: libtod fails exactly when the syscall does (same errno), else reads inside a syscall sandwich\n");
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		int ok = lib_id(ids[i].id, why, sizeof(why));

		ksft_test_result(ok, "tod_clock_gettime(%s): %s\n", ids[i].name, why);
	}

	/* gettimeofday: time as CLOCK_TOD_REALTIME in us, tz as the kernel's */
	if (syscall(SYS_gettimeofday, NULL, &ktz))
		ksft_exit_fail_msg("gettimeofday(NULL, tz): %s\n", strerror(errno));
	memset(&tz, 0x5a, sizeof(tz));	/* an entry that ignores tz shows */
	ra = sys_ns(CLOCK_TOD_REALTIME, &a);
	errno = 0;
	rl = tod_gettimeofday(&tv, &tz);
	el = errno;
	if (ra || rl)
		ksft_test_result(ra == -el && rl == -1,
				 "tod_gettimeofday(tv, tz): syscall %s, libtod %d errno %s\n",
				 ra ? strerror(-ra) : "ok", rl, strerror(el));
	else {
		sys_ns(CLOCK_TOD_REALTIME, &b);
		ksft_test_result(tv_us(&tv) >= a / 1000 && tv_us(&tv) <= b / 1000 &&
				 tz.tz_minuteswest == ktz.tz_minuteswest && tz.tz_dsttime == ktz.tz_dsttime,
				 "tod_gettimeofday(tv, tz): %lld us in [%lld, %lld], tz %d/%d (kernel %d/%d)\n",
				 (long long)tv_us(&tv), (long long)(a / 1000), (long long)(b / 1000),
				 tz.tz_minuteswest, tz.tz_dsttime, ktz.tz_minuteswest, ktz.tz_dsttime);
	}
	/* the time zone alone needs no tod clock: it works on any kernel */
	memset(&tz, 0x5a, sizeof(tz));
	rl = tod_gettimeofday(NULL, &tz);
	ksft_test_result(rl == 0 && tz.tz_minuteswest == ktz.tz_minuteswest && tz.tz_dsttime == ktz.tz_dsttime,
			 "tod_gettimeofday(NULL, tz): ret %d, tz %d/%d (kernel %d/%d)\n", rl,
			 tz.tz_minuteswest, tz.tz_dsttime, ktz.tz_minuteswest, ktz.tz_dsttime);
}

/* --- main ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(int argc, char **argv);
	const char *args;
} cases[] = {
	{ "order", case_order, "[N]" },
	{ "xthread", case_xthread, "[N] [MAX_SECONDS]" },
	{ "agree", case_agree, "[SECONDS]" },
	{ "syscalls", case_syscalls, "zero|one [K]" },
	{ "getres", case_getres, "" },
	{ "timens", case_timens, "" },
	{ "switch", case_switch, "[SECONDS] [PERIOD_MS]" },
	{ "hpetpage", case_hpetpage, "" },
	{ "hpetrevoke", case_hpetrevoke, "[NPROC]" },
	{ "lib", case_lib, "" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: tod_vdso CASE [ARGS]   (the cases and their rules are at the top of tod_vdso.c)\n");
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		fprintf(f, "  tod_vdso %s %s\n", cases[i].name, cases[i].args);
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		if (strcmp(argv[1], cases[i].name))
			continue;
		find_cpus();
		ksft_print_header();
		cases[i].fn(argc, argv);
		ksft_finished();
	}
	fprintf(stderr, "tod_vdso: unknown case '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
