// SPDX-License-Identifier: GPL-2.0
/*
 * retries: how often a vDSO reader has to wait or retry, the new core's
 * page beside the stock vDSO data, on the current timesource and
 * clocksource.
 *
 *   retries [--secs S] [--json FILE]
 *
 * One reader thread per CPU (at most 2) runs the readers' sequence-count
 * loop on the real pages of [vvar] (the stock vdso_data at +128 of its
 * first page, the core's data at +128 of its fifth), one read of each in turn:
 * take the count, wait while it is odd, read the fields a reader reads and
 * the TSC, and retry if the count changed. A read that waited or retried
 * counts once. Meanwhile the main thread calls clock_adjtime(ADJ_FREQUENCY)
 * with the frequency each clock already has, on CLOCK_TOD_REALTIME and
 * CLOCK_REALTIME in turn, 500 times a second each; the tick writes too.
 * Prints and writes (JSON) the reads and the ones that waited or retried,
 * per page. Exit status 1 if anything failed.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <x86intrin.h>

#include "load.h"

#define PAGE		4096UL
#define STOCK_OFF	128		/* DECLARE_VVAR(128, struct vdso_data, _vdso_data) */
#define TOD_OFF		(4 * PAGE + 128)	/* the core's data: its fifth page, TOD_VDSO_DATA_OFFSET in */

/* the first fields of both pages: u32 seq, s32 mode, then 8-byte fields */
struct page_head {
	uint32_t seq;
	int32_t mode;
	uint64_t f[6];
};

struct counts {
	unsigned long reads, held;
};

struct reader {
	pthread_t th;
	int cpu;
	struct counts c[2];	/* 0 stock, 1 tod */
};

static const volatile struct page_head *pages[2];
static atomic_int stop;
static volatile uint64_t sink;

/* One read of page p as a vDSO reader does it; returns 1 if it waited or retried. */
static int read_once(const volatile struct page_head *p)
{
	uint32_t seq;
	uint64_t v;
	int held = 0;

	for (;;) {
		while ((seq = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE)) & 1)
			held = 1;
		v = p->f[0] + p->f[1] + p->f[2] + p->f[3] + p->f[4] + p->f[5] + __rdtsc();
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&p->seq, __ATOMIC_RELAXED) == seq)
			break;
		held = 1;
	}
	sink = v;
	return held;
}

static void *reader(void *arg)
{
	struct reader *r = arg;
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		for (i = 0; i < 2; i++) {
			r->c[i].reads++;
			r->c[i].held += read_once(pages[i]);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int secs, i, n = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long start = 0, end = 0;
	long errors, calls;
	const char *json, *names[2] = { "stock", "tod" };
	struct counts tot[2] = { { 0 } };
	struct reader r[2];
	char line[256];
	FILE *f;

	i = load_args(argc, argv, "retries", &secs, &json);
	if (i)
		return i;
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[vvar]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			break;
	if (f)
		fclose(f);
	if (!start || end - start < 5 * PAGE)
		return fprintf(stderr, "retries: no [vvar] of at least 5 pages in /proc/self/maps (a kernel without the core's page?)\n"), 1;
	pages[0] = (const volatile struct page_head *)(start + STOCK_OFF);
	pages[1] = (const volatile struct page_head *)(start + TOD_OFF);
	if (n > 2)
		n = 2;
	for (i = 0; i < n; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].cpu = i;
		pthread_create(&r[i].th, NULL, reader, &r[i]);
	}
	load_adjtimex("retries", secs, &calls, &errors);
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++) {
		pthread_join(r[i].th, NULL);
		tot[0].reads += r[i].c[0].reads;
		tot[0].held += r[i].c[0].held;
		tot[1].reads += r[i].c[1].reads;
		tot[1].held += r[i].c[1].held;
	}
	printf("%d s, %d readers, %ld adjtimex calls (%ld failed)\n", secs, n, calls, errors);
	for (i = 0; i < 2; i++)
		printf("  %-5s %10lu reads, %8lu waited or retried (%.1f per million)\n", names[i],
		       tot[i].reads, tot[i].held, tot[i].reads ? 1e6 * tot[i].held / tot[i].reads : 0);
	if (json) {
		f = fopen(json, "w");
		if (!f || fprintf(f, "{\"seconds\": %d, \"readers\": %d, \"adjtimex_calls\": %ld, \"adjtimex_errors\": %ld,\n"
				  " \"stock\": {\"reads\": %lu, \"held\": %lu}, \"tod\": {\"reads\": %lu, \"held\": %lu}}\n",
				  secs, n, calls, errors, tot[0].reads, tot[0].held, tot[1].reads,
				  tot[1].held) < 0 || fclose(f)) {
			fprintf(stderr, "retries: cannot write %s: %s\n", json, strerror(errno));
			return 1;
		}
	}
	return errors || !tot[0].reads || !tot[1].reads ? 1 : 0;
}
