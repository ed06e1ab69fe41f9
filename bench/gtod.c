// SPDX-License-Identifier: GPL-2.0
/*
 * gtod: cost of one time read, path by path, measured side by side.
 *
 * Every round runs every selected path once, in an order shuffled afresh
 * each round (seeded: --seed, printed and in the JSON), so drift in the host
 * and the position in a round hit every path alike; each path's figure is
 * the median over rounds of the per-call cost, with min and max. Per-call
 * cost is the wall time of a timed loop of --iters calls divided by
 * --iters, per thread. Every call's return value is checked: a path with a
 * failed call is reported as failed, not timed, and gtod exits 1.
 *
 * Under QEMU/TCG absolute nanoseconds are emulation figures, not hardware
 * ones: compare paths by their ratios.
 *
 * On 32-bit x86 build it with a 64-bit time_t (-D_TIME_BITS=64), as a
 * program that outlives 2038 is: the clock_gettime paths then take the
 * kernel's 64-bit timespec (__vdso_clock_gettime64, clock_gettime64), and
 * the gettimeofday paths the kernel's timeval of two longs, as its vDSO
 * entries and system call write it on either arch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "parse_vdso.h"

#ifdef __i386__
#ifndef __USE_TIME_BITS64
#error "gtod on 32-bit x86 needs a 64-bit time_t: build with -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64"
#endif
#define SYS_CGT		SYS_clock_gettime64
#define VDSO_CGT	"__vdso_clock_gettime64"
#else
#define SYS_CGT		SYS_clock_gettime
#define VDSO_CGT	"__vdso_clock_gettime"
#endif

/* the kernel's struct __kernel_old_timeval: struct timeval where time_t is a long */
struct kold_timeval {
	long tv_sec;
	long tv_usec;
};

typedef int (*cgt_fn)(clockid_t, struct timespec *);
typedef int (*gtod_fn)(struct kold_timeval *, struct timezone *);

#define CLOCK_TOD_REALTIME		12	/* the new timeofday core's wall clock */
#define CLOCK_TOD_REALTIME_COARSE	14	/* the same at the last accumulation */

static cgt_fn vdso_cgt;
static gtod_fn vdso_gtod;
static cgt_fn tod_cgt;		/* __vdso_tod_clock_gettime, NULL on a stock kernel */
static gtod_fn tod_gtod;	/* __vdso_tod_gettimeofday */
static volatile uint64_t sink;

/*
 * One timed loop per path: n calls, each result summed so the calls are
 * not optimised away. Every path is its own function, so that the loop
 * body is exactly the call being measured.
 */
#define GTOD_LOOP(name, call)					\
static uint64_t name(long n, long *errs)			\
{								\
	struct kold_timeval tv = { 0 };				\
	uint64_t s = 0;						\
	long e = 0;						\
								\
	while (n--) {						\
		e += call(&tv, NULL) != 0;			\
		s += tv.tv_usec;				\
	}							\
	*errs += e;						\
	return s;						\
}

#define CGT_LOOP(name, call, clock)				\
static uint64_t name(long n, long *errs)			\
{								\
	struct timespec ts = { 0 };				\
	uint64_t s = 0;						\
	long e = 0;						\
								\
	while (n--) {						\
		e += call(clock, &ts) != 0;			\
		s += ts.tv_nsec;				\
	}							\
	*errs += e;						\
	return s;						\
}

static int syscall_gtod(struct kold_timeval *tv, struct timezone *tz)
{
	return syscall(SYS_gettimeofday, tv, tz);
}

static int syscall_cgt(clockid_t clock, struct timespec *ts)
{
	return syscall(SYS_CGT, clock, ts);
}

GTOD_LOOP(run_vdso_gtod, vdso_gtod)
GTOD_LOOP(run_syscall_gtod, syscall_gtod)
CGT_LOOP(run_vdso_cgt, vdso_cgt, CLOCK_REALTIME)
CGT_LOOP(run_glibc_cgt, clock_gettime, CLOCK_REALTIME)
CGT_LOOP(run_syscall_cgt, syscall_cgt, CLOCK_REALTIME)
GTOD_LOOP(run_tod_vdso_gtod, tod_gtod)
CGT_LOOP(run_tod_vdso_cgt, tod_cgt, CLOCK_TOD_REALTIME)
CGT_LOOP(run_tod_vdso_coarse, tod_cgt, CLOCK_TOD_REALTIME_COARSE)
/* the stock entry point, dispatching the tod id */
CGT_LOOP(run_tod_stock_vdso_cgt, vdso_cgt, CLOCK_TOD_REALTIME)
CGT_LOOP(run_tod_glibc_cgt, clock_gettime, CLOCK_TOD_REALTIME)
CGT_LOOP(run_tod_syscall_cgt, syscall_cgt, CLOCK_TOD_REALTIME)
/* always fails (EINVAL): shows that a path with failed calls is caught */
CGT_LOOP(run_bad_syscall_cgt, syscall_cgt, (clockid_t)-1)

static uint64_t run_rdtsc(long n, long *errs)
{
	uint64_t s = 0;
	uint32_t lo, hi;

	(void)errs;	/* cannot fail */
	while (n--) {
		asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
		s += lo;
	}
	return s;
}

static uint64_t run_lfence_rdtsc(long n, long *errs)
{
	uint64_t s = 0;
	uint32_t lo, hi;

	(void)errs;	/* cannot fail */
	while (n--) {
		asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
		s += lo;
	}
	return s;
}

static uint64_t run_rdtscp(long n, long *errs)
{
	uint64_t s = 0;
	uint32_t lo, hi, aux;

	(void)errs;	/* cannot fail */
	while (n--) {
		asm volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
		s += lo;
	}
	return s;
}

struct path {
	const char *name;
	const char *what;
	uint64_t (*run)(long n, long *errs);	/* adds the failed calls to *errs */
	int needs_vdso;		/* 1: the stock vDSO, 2: the tod entry points too */
	int ntp;		/* timed while a frequency offset and a slew are in effect */
	int check;		/* a check of gtod itself: run only when named */
};

static const struct path paths[] = {
	{ "stock-vdso-gtod", "stock vDSO gettimeofday", run_vdso_gtod, 1, 0, 0 },
	{ "stock-syscall-gtod", "stock syscall(SYS_gettimeofday)", run_syscall_gtod, 0, 0, 0 },
	{ "stock-vdso-cgt", "stock vDSO clock_gettime(REALTIME)", run_vdso_cgt, 1, 0, 0 },
	{ "stock-glibc-cgt", "glibc clock_gettime(REALTIME)", run_glibc_cgt, 0, 0, 0 },
	{ "stock-syscall-cgt", "stock syscall(SYS_clock_gettime, REALTIME)", run_syscall_cgt, 0, 0, 0 },
	{ "tod-vdso-gtod", "tod vDSO __vdso_tod_gettimeofday", run_tod_vdso_gtod, 2, 0, 0 },
	{ "tod-vdso-gtod-ntp", "tod-vdso-gtod, NTP frequency offset and slew in effect",
	  run_tod_vdso_gtod, 2, 1, 0 },
	{ "tod-vdso-cgt", "tod vDSO __vdso_tod_clock_gettime(TOD_REALTIME)", run_tod_vdso_cgt, 2, 0, 0 },
	{ "tod-vdso-cgt-ntp", "tod-vdso-cgt, NTP frequency offset and slew in effect",
	  run_tod_vdso_cgt, 2, 1, 0 },
	{ "tod-vdso-coarse", "tod vDSO __vdso_tod_clock_gettime(TOD_REALTIME_COARSE)", run_tod_vdso_coarse, 2, 0, 0 },
	{ "tod-stock-vdso-cgt", "stock vDSO clock_gettime(TOD_REALTIME)", run_tod_stock_vdso_cgt, 2, 0, 0 },
	{ "tod-glibc-cgt", "glibc clock_gettime(TOD_REALTIME)", run_tod_glibc_cgt, 2, 0, 0 },
	{ "tod-syscall-cgt", "syscall(SYS_clock_gettime, TOD_REALTIME)", run_tod_syscall_cgt, 2, 0, 0 },
	{ "rdtsc", "bare rdtsc", run_rdtsc, 0, 0, 0 },
	{ "lfence-rdtsc", "lfence; rdtsc", run_lfence_rdtsc, 0, 0, 0 },
	{ "rdtscp", "rdtscp", run_rdtscp, 0, 0, 0 },
	{ "bad-syscall-cgt", "syscall(SYS_clock_gettime, -1): fails, to check the error count",
	  run_bad_syscall_cgt, 0, 0, 1 },
};
#define NPATHS (sizeof(paths) / sizeof(paths[0]))

/* Ratios printed under the table: numerator / denominator. */
static const char *const ratios[][2] = {
	{ "stock-vdso-gtod", "rdtsc" },
	{ "stock-syscall-gtod", "stock-vdso-gtod" },
	{ "stock-vdso-cgt", "rdtsc" },
	{ "stock-syscall-cgt", "stock-vdso-cgt" },
	{ "stock-glibc-cgt", "stock-vdso-cgt" },
	{ "tod-vdso-gtod", "stock-vdso-gtod" },
	{ "tod-vdso-gtod", "rdtsc" },
	{ "tod-vdso-cgt", "stock-vdso-cgt" },
	{ "tod-vdso-gtod-ntp", "tod-vdso-gtod" },
	{ "tod-vdso-cgt-ntp", "tod-vdso-cgt" },
	{ "tod-stock-vdso-cgt", "stock-vdso-cgt" },
	{ "tod-syscall-cgt", "tod-vdso-cgt" },
	{ "tod-vdso-cgt", "rdtsc" },
};

struct thread_arg {
	const struct path *p;
	long iters;
	int cpu;
	pthread_barrier_t *bar;
	double ns;
	uint64_t sum;
	long errs;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * The NTP-active paths: the tod clock runs with a frequency offset of
 * NTP_FREQ_PPM and a single-shot slew of NTP_SLEW_US (500 ppm) in effect
 * while they are timed; both are folded into the multiplier at accumulation,
 * so the vDSO read should cost what it costs idle. Before the loop the
 * state is set, after it checked (the slew still running) and undone: the
 * frequency is restored and the slew cancelled (adjtime(0)). A run killed
 * in between leaves the offset in place: `adjtimex`-style reset with
 * clock_adjtime(12, {ADJ_FREQUENCY, 0}).
 */
#define NTP_FREQ_PPM	100
#define NTP_SLEW_US	100000

static long long ntp_saved_freq;	/* struct timex's freq: 64-bit with a 64-bit time_t */

static void tod_adjtime(struct timex *tx, const char *what)
{
	if (clock_adjtime(CLOCK_TOD_REALTIME, tx) < 0) {
		fprintf(stderr, "gtod: clock_adjtime(CLOCK_TOD_REALTIME) to %s: %s%s\n", what,
			strerror(errno), errno == EPERM ? " (the -ntp paths need CAP_SYS_TIME: run as root)" : "");
		exit(1);
	}
}

static void ntp_begin(void)
{
	struct timex tx = { 0 };

	tod_adjtime(&tx, "read the frequency");
	ntp_saved_freq = tx.freq;
	tx = (struct timex){ .modes = ADJ_FREQUENCY, .freq = ntp_saved_freq + (NTP_FREQ_PPM << 16) };
	tod_adjtime(&tx, "set a frequency offset");
	tx = (struct timex){ .modes = ADJ_OFFSET_SINGLESHOT, .offset = NTP_SLEW_US };
	tod_adjtime(&tx, "start a slew");
}

static void ntp_end(const char *path)
{
	struct timex tx = { .modes = ADJ_OFFSET_SS_READ };
	long long left, freq;

	tod_adjtime(&tx, "read the slew");
	left = tx.offset;
	freq = tx.freq;
	tx = (struct timex){ .modes = ADJ_OFFSET_SINGLESHOT, .offset = 0 };
	tod_adjtime(&tx, "cancel the slew");
	tx = (struct timex){ .modes = ADJ_FREQUENCY, .freq = ntp_saved_freq };
	tod_adjtime(&tx, "restore the frequency");
	if (left <= 0 || left > NTP_SLEW_US || freq != ntp_saved_freq + (NTP_FREQ_PPM << 16)) {
		fprintf(stderr, "gtod: %s: the NTP adjustment was not in effect (slew left %lld us of %d, freq %lld)\n",
			path, left, NTP_SLEW_US, freq);
		exit(1);
	}
}

static void *thread_fn(void *a)
{
	struct thread_arg *t = a;
	cpu_set_t set;
	double t0;

	CPU_ZERO(&set);
	CPU_SET(t->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "gtod: cannot pin a thread to cpu%d: %s\n", t->cpu, strerror(errno));
		exit(1);
	}
	if (t->iters)
		t->sum = t->p->run(t->iters / 100 + 1, &t->errs); /* warm up */
	pthread_barrier_wait(t->bar);
	t0 = now_ns();
	t->sum += t->p->run(t->iters, &t->errs);
	t->ns = t->iters ? (now_ns() - t0) / t->iters : 0;
	return NULL;
}

static int cpus[CPU_SETSIZE], ncpus;

/* The CPUs this process may run on, in order: threads are pinned to them. */
static void find_cpus(void)
{
	cpu_set_t set;
	int c;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		fprintf(stderr, "gtod: sched_getaffinity: %s\n", strerror(errno));
		exit(1);
	}
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
}

/*
 * One timed run of path p on nthreads threads: mean per-call ns; the failed
 * calls of all threads are added to *errs.
 */
static double measure(const struct path *p, long iters, int nthreads, long *errs)
{
	struct thread_arg args[64];
	pthread_t tid[64];
	pthread_barrier_t bar;
	double sum = 0;
	int i, rc;

	if (p->ntp)
		ntp_begin();
	pthread_barrier_init(&bar, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		args[i] = (struct thread_arg){ p, iters, cpus[i % ncpus], &bar, 0, 0, 0 };
		rc = pthread_create(&tid[i], NULL, thread_fn, &args[i]);
		if (rc) {
			fprintf(stderr, "gtod: pthread_create: %s\n", strerror(rc));
			exit(1);
		}
	}
	for (i = 0; i < nthreads; i++) {
		pthread_join(tid[i], NULL);
		sum += args[i].ns;
		sink += args[i].sum;
		*errs += args[i].errs;
	}
	pthread_barrier_destroy(&bar);
	if (p->ntp)
		ntp_end(p->name);
	return sum / nthreads;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void usage(FILE *f, const char *argv0)
{
	size_t i;

	fprintf(f,
		"usage: %s [--path NAME[,NAME...]|all] [--iters N] [--rounds N]\n"
		"          [--threads N[,N...]] [--seed N] [--json FILE|-] [--list] [--help]\n"
		"Time one clock read per path; rounds interleave the paths (and thread counts)\n"
		"in an order shuffled each round.\n"
		"  --path     paths to run (default: all)\n"
		"  --iters    calls per timed loop and thread (default 200000; 0 makes no\n"
		"             calls, a baseline for counting the process's own syscalls)\n"
		"  --rounds   rounds; the median over rounds is reported (default 5)\n"
		"  --threads  thread counts, each run in every round; threads are pinned\n"
		"             round-robin to the CPUs this process may use (default 1)\n"
		"  --seed     seed of the round order (default: from the time and pid)\n"
		"  --json     also write the raw figures as JSON to FILE (- = stdout)\n"
		"  --list     list the paths and exit\n"
		"A path with a failed call is reported as failed, and gtod exits 1.\n"
		"The -ntp paths change the tod clock's NTP state while they run (root only).\n"
		"paths:\n",
		argv0);
	for (i = 0; i < NPATHS; i++)
		fprintf(f, "  %-20s %s\n", paths[i].name, paths[i].what);
}

static long parse_range(const char *opt, const char *s, long min, long max, const char *argv0)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < min || v > max) {
		fprintf(stderr, "gtod: %s needs an integer in %ld..%ld, got '%s'\n", opt, min, max, s);
		usage(stderr, argv0);
		exit(2);
	}
	return v;
}

static long parse_pos(const char *opt, const char *s, long max, const char *argv0)
{
	return parse_range(opt, s, 1, max, argv0);
}

/* xorshift64*: the round order, reproducible from the seed */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

#define MAX_TCOUNTS 8

static int find_path(const char *name, const int *sel)
{
	size_t i;

	for (i = 0; i < NPATHS; i++)
		if (!strcmp(paths[i].name, name) && sel[i])
			return i;
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "iters", required_argument, NULL, 'i' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "seed", required_argument, NULL, 's' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int sel[NPATHS] = { 0 }, any = 0, c, tcount[MAX_TCOUNTS] = { 1 }, ntc = 1;
	long iters = 200000, rounds = 5, errs[NPATHS][MAX_TCOUNTS] = { { 0 } };
	unsigned long long seed = 0;
	int seeded = 0, failed = 0;
	size_t order[NPATHS * MAX_TCOUNTS], norder = 0, *orders;
	const char *json = NULL;
	double *res[NPATHS][MAX_TCOUNTS], med[NPATHS][MAX_TCOUNTS], lo[NPATHS][MAX_TCOUNTS],
		hi[NPATHS][MAX_TCOUNTS];
	unsigned long base;
	size_t i, r, k;

	while ((c = getopt_long(argc, argv, "p:i:r:t:j:s:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *s = strdup(optarg), *tok, *save = NULL;

			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				int found = 0;

				for (i = 0; i < NPATHS; i++)
					if ((!strcmp(tok, "all") && !paths[i].check) ||
					    !strcmp(tok, paths[i].name))
						sel[i] = found = any = 1;
				if (!found) {
					fprintf(stderr, "gtod: unknown path '%s' (see --list)\n", tok);
					usage(stderr, argv[0]);
					return 2;
				}
			}
			free(s);
			break;
		}
		case 'i': iters = parse_range("--iters", optarg, 0, 1000000000L, argv[0]); break;
		case 's': {
			char *end;

			errno = 0;
			seed = strtoull(optarg, &end, 0);
			if (errno || *end || !*optarg || *optarg == '-') {
				fprintf(stderr, "gtod: --seed needs an unsigned integer, got '%s'\n", optarg);
				usage(stderr, argv[0]);
				return 2;
			}
			seeded = 1;
			break;
		}
		case 'r': rounds = parse_pos("--rounds", optarg, 1000, argv[0]); break;
		case 't': {
			char *s = strdup(optarg), *tok, *save = NULL;

			ntc = 0;
			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				if (ntc == MAX_TCOUNTS) {
					fprintf(stderr, "gtod: --threads takes at most %d counts\n", MAX_TCOUNTS);
					usage(stderr, argv[0]);
					return 2;
				}
				tcount[ntc++] = parse_pos("--threads", tok, 64, argv[0]);
			}
			free(s);
			if (!ntc)
				parse_pos("--threads", optarg, 64, argv[0]);
			break;
		}
		case 'j': json = optarg; break;
		case 'l':
			for (i = 0; i < NPATHS; i++)
				printf("%s\n", paths[i].name);
			return 0;
		case 'h': usage(stdout, argv[0]); return 0;
		default: usage(stderr, argv[0]); return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gtod: unexpected argument '%s'\n", argv[optind]);
		usage(stderr, argv[0]);
		return 2;
	}
	if (!any)
		for (i = 0; i < NPATHS; i++)
			sel[i] = !paths[i].check;

	base = getauxval(AT_SYSINFO_EHDR);
	if (base) {
		vdso_init_from_sysinfo_ehdr(base);
		vdso_cgt = (cgt_fn)vdso_sym("LINUX_2.6", VDSO_CGT);
		vdso_gtod = (gtod_fn)vdso_sym("LINUX_2.6", "__vdso_gettimeofday");
		tod_cgt = (cgt_fn)vdso_sym("LINUX_2.6", "__vdso_tod_clock_gettime");
		tod_gtod = (gtod_fn)vdso_sym("LINUX_2.6", "__vdso_tod_gettimeofday");
	}
	for (i = 0; i < NPATHS; i++) {
		if (!sel[i] || !paths[i].needs_vdso)
			continue;
		if (!vdso_cgt || !vdso_gtod) {
			fprintf(stderr, "gtod: path %s needs the vDSO, which this kernel does not provide\n",
				paths[i].name);
			return 1;
		}
		if (paths[i].needs_vdso == 2 && (!tod_cgt || !tod_gtod)) {
			if (!any) {	/* everything by default: measure what exists */
				fprintf(stderr, "gtod: no __vdso_tod_* in this kernel's vDSO (not CONFIG_NEWTOD): skipping %s\n",
					paths[i].name);
				sel[i] = 0;
				continue;
			}
			fprintf(stderr, "gtod: path %s needs __vdso_tod_clock_gettime and __vdso_tod_gettimeofday (a CONFIG_NEWTOD kernel)\n",
				paths[i].name);
			return 1;
		}
		if (paths[i].ntp && !any && geteuid()) {
			fprintf(stderr, "gtod: not root: skipping %s (it adjusts the tod clock)\n",
				paths[i].name);
			sel[i] = 0;
		}
	}
	find_cpus();

	for (i = 0; i < NPATHS; i++)
		for (k = 0; k < (size_t)ntc; k++) {
			res[i][k] = calloc(rounds, sizeof(double));
			if (!res[i][k]) {
				fprintf(stderr, "gtod: out of memory\n");
				return 1;
			}
		}
	if (!seeded)
		seed = (unsigned long long)time(NULL) * 1000003ULL ^ (unsigned long long)getpid();
	rng_state = seed ? seed : 1;
	for (i = 0; i < NPATHS; i++)
		for (k = 0; k < (size_t)ntc; k++)
			if (sel[i])
				order[norder++] = i * MAX_TCOUNTS + k;
	orders = calloc(rounds * norder + 1, sizeof(*orders));
	if (!orders) {
		fprintf(stderr, "gtod: out of memory\n");
		return 1;
	}
	for (r = 0; r < (size_t)rounds; r++) {
		/* Fisher-Yates: a fresh order every round */
		for (size_t n = norder; n > 1; n--) {
			size_t j = rng_next() % n, t = order[n - 1];

			order[n - 1] = order[j];
			order[j] = t;
		}
		memcpy(&orders[r * norder], order, norder * sizeof(*order));
		for (size_t n = 0; n < norder; n++) {
			i = order[n] / MAX_TCOUNTS;
			k = order[n] % MAX_TCOUNTS;
			res[i][k][r] = measure(&paths[i], iters, tcount[k], &errs[i][k]);
		}
	}

	printf("gtod: %ld rounds x %ld calls per thread, %d CPU(s), order seed %llu; ns per call\n",
	       rounds, iters, ncpus, seed);
	printf("%-20s %7s %10s %10s %10s  %s\n", "path", "threads", "median", "min", "max", "what");
	for (i = 0; i < NPATHS; i++) {
		double *v;

		if (!sel[i])
			continue;
		v = malloc(rounds * sizeof(double));
		if (!v)
			return 1;
		for (k = 0; k < (size_t)ntc; k++) {
			memcpy(v, res[i][k], rounds * sizeof(double));
			qsort(v, rounds, sizeof(double), cmp_double);
			med[i][k] = rounds % 2 ? v[rounds / 2] : (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
			lo[i][k] = v[0];
			hi[i][k] = v[rounds - 1];
			if (errs[i][k]) {
				/* not a timing: a failed call may return at once */
				printf("%-20s %7d %32s  %s\n", paths[i].name, tcount[k], "FAILED", paths[i].what);
				fprintf(stderr, "gtod: %s (%d thread%s): %ld of %ld calls failed: not timed\n",
					paths[i].name, tcount[k], tcount[k] == 1 ? "" : "s", errs[i][k],
					rounds * (iters + (iters ? iters / 100 + 1 : 0)) * tcount[k]);
				med[i][k] = lo[i][k] = hi[i][k] = 0;
				failed = 1;
				continue;
			}
			printf("%-20s %7d %10.1f %10.1f %10.1f  %s\n", paths[i].name, tcount[k],
			       med[i][k], lo[i][k], hi[i][k], paths[i].what);
		}
		free(v);
	}
	printf("ratios of medians (%d thread%s):\n", tcount[0], tcount[0] == 1 ? "" : "s");
	for (r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++) {
		int a = find_path(ratios[r][0], sel), b = find_path(ratios[r][1], sel);

		if (a >= 0 && b >= 0 && med[a][0] > 0 && med[b][0] > 0)
			printf("  %-20s / %-20s = %6.2f\n", ratios[r][0], ratios[r][1],
			       med[a][0] / med[b][0]);
	}
	for (k = 1; k < (size_t)ntc; k++) {
		printf("scaling: per-call cost at %d threads / at %d:\n", tcount[k], tcount[0]);
		for (i = 0; i < NPATHS; i++)
			if (sel[i] && med[i][0] > 0 && med[i][k] > 0)
				printf("  %-20s %6.2f\n", paths[i].name, med[i][k] / med[i][0]);
	}

	if (json) {
		FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;
		int first = 1;

		if (!f) {
			fprintf(stderr, "gtod: cannot write %s: %s\n", json, strerror(errno));
			return 1;
		}
		fprintf(f, "{\"iters\": %ld, \"rounds\": %ld, \"cpus\": %d, \"seed\": %llu, \"threads\": [",
			iters, rounds, ncpus, seed);
		for (k = 0; k < (size_t)ntc; k++)
			fprintf(f, "%s%d", k ? ", " : "", tcount[k]);
		fprintf(f, "], \"paths\": [");
		for (i = 0; i < NPATHS; i++) {
			if (!sel[i])
				continue;
			for (k = 0; k < (size_t)ntc; k++) {
				fprintf(f, "%s\n  {\"name\": \"%s\", \"threads\": %d, \"errors\": %ld, \"failed\": %s, \"median_ns\": %.3f, \"min_ns\": %.3f, \"max_ns\": %.3f, \"samples_ns\": [",
					first ? "" : ",", paths[i].name, tcount[k], errs[i][k],
					errs[i][k] ? "true" : "false", med[i][k], lo[i][k], hi[i][k]);
				for (r = 0; !errs[i][k] && r < (size_t)rounds; r++)
					fprintf(f, "%s%.3f", r ? ", " : "", res[i][k][r]);
				fprintf(f, "]}");
				first = 0;
			}
		}
		/* the order of each round: "path/threads" */
		fprintf(f, "\n], \"orders\": [");
		for (r = 0; r < (size_t)rounds; r++) {
			fprintf(f, "%s\n  [", r ? "," : "");
			for (size_t n = 0; n < norder; n++) {
				size_t o = orders[r * norder + n];

				fprintf(f, "%s\"%s/%d\"", n ? ", " : "", paths[o / MAX_TCOUNTS].name,
					tcount[o % MAX_TCOUNTS]);
			}
			fprintf(f, "]");
		}
		fprintf(f, "\n]}\n");
		if (f != stdout && fclose(f)) {
			fprintf(stderr, "gtod: writing %s: %s\n", json, strerror(errno));
			return 1;
		}
	}
	return failed;
}
