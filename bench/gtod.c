// SPDX-License-Identifier: GPL-2.0
/*
 * gtod: cost of one time read, path by path, measured side by side.
 *
 * Every round runs every selected path once (rounds interleave the paths, so
 * drift in the host hits them alike); each path's figure is the median over
 * rounds of the per-call cost, with min and max. Per-call cost is the wall
 * time of a timed loop of --iters calls divided by --iters, per thread.
 *
 * Under QEMU/TCG absolute nanoseconds are emulation figures, not hardware
 * ones: compare paths by their ratios.
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
#include <time.h>
#include <unistd.h>

#include "parse_vdso.h"

typedef int (*cgt_fn)(clockid_t, struct timespec *);
typedef int (*gtod_fn)(struct timeval *, struct timezone *);

#define CLOCK_TOD_REALTIME		12	/* the new timeofday core's wall clock */
#define CLOCK_TOD_REALTIME_COARSE	14	/* the same at the last accumulation */

static cgt_fn vdso_cgt;
static gtod_fn vdso_gtod;
static cgt_fn tod_cgt;		/* __vdso_tod_clock_gettime, NULL on a stock kernel */
static gtod_fn tod_gtod;	/* __vdso_tod_gettimeofday */
static volatile uint64_t sink;

static uint64_t run_vdso_gtod(long n)
{
	struct timeval tv;
	uint64_t s = 0;

	while (n--) {
		vdso_gtod(&tv, NULL);
		s += tv.tv_usec;
	}
	return s;
}

static uint64_t run_syscall_gtod(long n)
{
	struct timeval tv;
	uint64_t s = 0;

	while (n--) {
		syscall(SYS_gettimeofday, &tv, NULL);
		s += tv.tv_usec;
	}
	return s;
}

static uint64_t run_vdso_cgt(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	while (n--) {
		vdso_cgt(CLOCK_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

static uint64_t run_glibc_cgt(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	while (n--) {
		clock_gettime(CLOCK_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

static uint64_t run_syscall_cgt(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	while (n--) {
		syscall(SYS_clock_gettime, CLOCK_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

static uint64_t run_tod_vdso_gtod(long n)
{
	struct timeval tv;
	uint64_t s = 0;

	while (n--) {
		tod_gtod(&tv, NULL);
		s += tv.tv_usec;
	}
	return s;
}

static uint64_t run_tod_vdso_cgt(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	while (n--) {
		tod_cgt(CLOCK_TOD_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

static uint64_t run_tod_vdso_coarse(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	while (n--) {
		tod_cgt(CLOCK_TOD_REALTIME_COARSE, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

/* the stock entry point, dispatching the tod id */
static uint64_t run_tod_stock_vdso_cgt(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	while (n--) {
		vdso_cgt(CLOCK_TOD_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

static uint64_t run_tod_glibc_cgt(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	while (n--) {
		clock_gettime(CLOCK_TOD_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

static uint64_t run_tod_syscall_cgt(long n)
{
	struct timespec ts;
	uint64_t s = 0;

	while (n--) {
		syscall(SYS_clock_gettime, CLOCK_TOD_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

static uint64_t run_rdtsc(long n)
{
	uint64_t s = 0;
	uint32_t lo, hi;

	while (n--) {
		asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
		s += lo;
	}
	return s;
}

static uint64_t run_lfence_rdtsc(long n)
{
	uint64_t s = 0;
	uint32_t lo, hi;

	while (n--) {
		asm volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
		s += lo;
	}
	return s;
}

static uint64_t run_rdtscp(long n)
{
	uint64_t s = 0;
	uint32_t lo, hi, aux;

	while (n--) {
		asm volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
		s += lo;
	}
	return s;
}

struct path {
	const char *name;
	const char *what;
	uint64_t (*run)(long n);
	int needs_vdso;		/* 1: the stock vDSO, 2: the tod entry points too */
};

static const struct path paths[] = {
	{ "stock-vdso-gtod", "stock vDSO gettimeofday", run_vdso_gtod, 1 },
	{ "stock-syscall-gtod", "stock syscall(SYS_gettimeofday)", run_syscall_gtod, 0 },
	{ "stock-vdso-cgt", "stock vDSO clock_gettime(REALTIME)", run_vdso_cgt, 1 },
	{ "stock-glibc-cgt", "glibc clock_gettime(REALTIME)", run_glibc_cgt, 0 },
	{ "stock-syscall-cgt", "stock syscall(SYS_clock_gettime, REALTIME)", run_syscall_cgt, 0 },
	{ "tod-vdso-gtod", "tod vDSO __vdso_tod_gettimeofday", run_tod_vdso_gtod, 2 },
	{ "tod-vdso-cgt", "tod vDSO __vdso_tod_clock_gettime(TOD_REALTIME)", run_tod_vdso_cgt, 2 },
	{ "tod-vdso-coarse", "tod vDSO __vdso_tod_clock_gettime(TOD_REALTIME_COARSE)", run_tod_vdso_coarse, 2 },
	{ "tod-stock-vdso-cgt", "stock vDSO clock_gettime(TOD_REALTIME)", run_tod_stock_vdso_cgt, 2 },
	{ "tod-glibc-cgt", "glibc clock_gettime(TOD_REALTIME)", run_tod_glibc_cgt, 2 },
	{ "tod-syscall-cgt", "syscall(SYS_clock_gettime, TOD_REALTIME)", run_tod_syscall_cgt, 2 },
	{ "rdtsc", "bare rdtsc", run_rdtsc, 0 },
	{ "lfence-rdtsc", "lfence; rdtsc", run_lfence_rdtsc, 0 },
	{ "rdtscp", "rdtscp", run_rdtscp, 0 },
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
	{ "tod-vdso-cgt", "stock-vdso-cgt" },
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
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
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
	t->sum = t->p->run(t->iters / 100 + 1); /* warm up */
	pthread_barrier_wait(t->bar);
	t0 = now_ns();
	t->sum += t->p->run(t->iters);
	t->ns = (now_ns() - t0) / t->iters;
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

/* One timed run of path p on nthreads threads: mean per-call ns. */
static double measure(const struct path *p, long iters, int nthreads)
{
	struct thread_arg args[64];
	pthread_t tid[64];
	pthread_barrier_t bar;
	double sum = 0;
	int i, rc;

	pthread_barrier_init(&bar, NULL, nthreads);
	for (i = 0; i < nthreads; i++) {
		args[i] = (struct thread_arg){ p, iters, cpus[i % ncpus], &bar, 0, 0 };
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
	}
	pthread_barrier_destroy(&bar);
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
		"          [--threads N] [--json FILE|-] [--list] [--help]\n"
		"Time one clock read per path; rounds interleave the paths.\n"
		"  --path     paths to run (default: all)\n"
		"  --iters    calls per timed loop (default 200000)\n"
		"  --rounds   rounds; the median over rounds is reported (default 5)\n"
		"  --threads  threads, pinned round-robin to the online CPUs (default 1)\n"
		"  --json     also write the raw figures as JSON to FILE (- = stdout)\n"
		"  --list     list the paths and exit\n"
		"paths:\n",
		argv0);
	for (i = 0; i < NPATHS; i++)
		fprintf(f, "  %-20s %s\n", paths[i].name, paths[i].what);
}

static long parse_pos(const char *opt, const char *s, long max, const char *argv0)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v <= 0 || v > max) {
		fprintf(stderr, "gtod: %s needs an integer in 1..%ld, got '%s'\n", opt, max, s);
		usage(stderr, argv0);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "iters", required_argument, NULL, 'i' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int sel[NPATHS] = { 0 }, any = 0, ncpu, c, threads = 1;
	long iters = 200000, rounds = 5;
	const char *json = NULL;
	double *res[NPATHS], med[NPATHS];
	unsigned long base;
	size_t i, r;

	while ((c = getopt_long(argc, argv, "p:i:r:t:j:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': {
			char *s = strdup(optarg), *tok, *save = NULL;

			for (tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
				int found = 0;

				for (i = 0; i < NPATHS; i++)
					if (!strcmp(tok, "all") || !strcmp(tok, paths[i].name))
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
		case 'i': iters = parse_pos("--iters", optarg, 1000000000L, argv[0]); break;
		case 'r': rounds = parse_pos("--rounds", optarg, 1000, argv[0]); break;
		case 't': threads = parse_pos("--threads", optarg, 64, argv[0]); break;
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
			sel[i] = 1;

	base = getauxval(AT_SYSINFO_EHDR);
	if (base) {
		vdso_init_from_sysinfo_ehdr(base);
		vdso_cgt = (cgt_fn)vdso_sym("LINUX_2.6", "__vdso_clock_gettime");
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
	}
	find_cpus();
	ncpu = ncpus;

	for (i = 0; i < NPATHS; i++) {
		res[i] = calloc(rounds, sizeof(double));
		if (!res[i]) {
			fprintf(stderr, "gtod: out of memory\n");
			return 1;
		}
	}
	for (r = 0; r < (size_t)rounds; r++)
		for (i = 0; i < NPATHS; i++)
			if (sel[i])
				res[i][r] = measure(&paths[i], iters, threads);

	printf("gtod: %ld rounds x %ld calls, %d thread(s), %d CPU(s); ns per call\n",
	       rounds, iters, threads, ncpu);
	printf("%-20s %10s %10s %10s  %s\n", "path", "median", "min", "max", "what");
	for (i = 0; i < NPATHS; i++) {
		double *v;

		if (!sel[i])
			continue;
		v = malloc(rounds * sizeof(double));
		if (!v)
			return 1;
		memcpy(v, res[i], rounds * sizeof(double));
		qsort(v, rounds, sizeof(double), cmp_double);
		med[i] = rounds % 2 ? v[rounds / 2] : (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
		printf("%-20s %10.1f %10.1f %10.1f  %s\n", paths[i].name, med[i], v[0],
		       v[rounds - 1], paths[i].what);
		free(v);
	}
	printf("ratios of medians:\n");
	for (r = 0; r < sizeof(ratios) / sizeof(ratios[0]); r++) {
		int a = -1, b = -1;

		for (i = 0; i < NPATHS; i++) {
			if (!strcmp(paths[i].name, ratios[r][0]) && sel[i])
				a = i;
			if (!strcmp(paths[i].name, ratios[r][1]) && sel[i])
				b = i;
		}
		if (a >= 0 && b >= 0 && med[b] > 0)
			printf("  %-20s / %-20s = %6.2f\n", ratios[r][0], ratios[r][1], med[a] / med[b]);
	}

	if (json) {
		FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;
		int first = 1;

		if (!f) {
			fprintf(stderr, "gtod: cannot write %s: %s\n", json, strerror(errno));
			return 1;
		}
		fprintf(f, "{\"iters\": %ld, \"rounds\": %ld, \"threads\": %d, \"cpus\": %d, \"paths\": [",
			iters, rounds, threads, ncpu);
		for (i = 0; i < NPATHS; i++) {
			if (!sel[i])
				continue;
			fprintf(f, "%s\n  {\"name\": \"%s\", \"median_ns\": %.3f, \"samples_ns\": [",
				first ? "" : ",", paths[i].name, med[i]);
			for (r = 0; r < (size_t)rounds; r++)
				fprintf(f, "%s%.3f", r ? ", " : "", res[i][r]);
			fprintf(f, "]}");
			first = 0;
		}
		fprintf(f, "\n]}\n");
		if (f != stdout)
			fclose(f);
	}
	return 0;
}
