// SPDX-License-Identifier: GPL-2.0
/*
 * todread: the timeofday core's x86 vDSO reader, run on the host's own CPU.
 *
 * In the guest (make bench) the reader runs under QEMU/TCG, whose
 * nanoseconds are emulation figures. This program compiles the same reader
 * for user space on the host: build/linux/arch/x86/entry/vdso/vtod_gettime.c
 * and build/linux/include/vdso/tod.h are #included unmodified (shim.h says
 * how and what it replaces), so what is timed is the kernel's TSC path:
 * tod_vdso_read_begin(), lfence;rdtsc, (now - offset_base) & mask, the
 * max_delta compare, the multiply and shift, tod_vdso_read_retry(), and the
 * division to seconds outside the loop.
 *
 * The kernel's side is played by a writer thread. It fills a page-aligned
 * struct tod_vdso_data as kernel/timeofday/vsyscall.c does: the sequence
 * count goes odd before the TSC is read and even once every field is
 * written, base nanoseconds are kept left-shifted by shift with the
 * sub-nanosecond remainder carried, max_delta is computed by the kernel's
 * formula. mult/shift come from a TSC frequency calibrated against
 * CLOCK_MONOTONIC_RAW over about 200 ms, rounded to kHz and turned into
 * mult/shift the way drivers/timesource/tsc.c does; the base times start
 * from CLOCK_REALTIME and CLOCK_MONOTONIC and then advance by the cycle
 * deltas only, every 1 ms, as the tick's accumulation does.
 *
 * The stock reader of the same tree, lib/vdso/gettimeofday.c with x86's
 * hooks (stockread.c), is fed by the same writer: after each of the tod
 * page's updates, the stock page gets the same counter reading, mult,
 * shift and base times, as update_vsyscall() writes it. So tod / stock is
 * reader against reader, compiled and called the same way; tod / host-vdso
 * also carries another kernel's reader and glibc's wrapper.
 *
 * Measured, in rounds that interleave the paths (each round runs each path
 * once, in a rotated order, so drift in the host hits them alike): the ns
 * per call of the tod reader (CLOCK_TOD_REALTIME through
 * __vdso_tod_clock_gettime(), called through a pointer as libtod calls the
 * vDSO), of the stock reader (CLOCK_REALTIME through
 * __cvdso_clock_gettime(), through a pointer too), of the host's vDSO
 * clock_gettime(CLOCK_REALTIME) through glibc, and of bare rdtsc,
 * lfence;rdtsc and rdtscp. The figure of a path is the
 * median over rounds of (wall time of a loop of --iters calls) / --iters,
 * with min and max.
 *
 * Scaling: every path is timed at each thread count of --threads (default
 * 1,2 with two or more allowed CPUs, else 1), all in the same rounds (a
 * round runs every (path, thread count) pair once, in a rotated order).
 * The readers are a pool of threads, reader j pinned to the (j mod n)-th of
 * the n CPUs the process may run on; at T threads readers 0..T-1 start
 * together (a barrier, then a spin until all have arrived) and each times
 * its own loop of --iters calls; the sample of the round is the mean over
 * the T readers of their ns per call. The output gives, per path, the
 * median at T threads over the median at the smallest count (at 1 thread:
 * 1.00 is perfect scaling, the readers share nothing that costs; more is
 * contention, e.g. on the page's cache line). The writer below has the
 * second allowed CPU, so with 2 readers on 2 CPUs reader 1 shares the
 * writer's CPU: the writer, SCHED_FIFO, preempts it once every 1 ms for
 * its accumulation and wake-up (a few us, its CPU time is printed), which
 * lengthens that reader's loops by that duty cycle; small, and the
 * program says so when it happens. More threads than CPUs time-share them,
 * and their figures are wall time, not CPU time: the program warns.
 *
 * Checked (exit status 1 on failure), for the tod reader and then the
 * stock one: over 10^6 reads, each bracketed by two CLOCK_REALTIME reads,
 * the clock never goes backwards, never falls back to the system call (nor
 * in the timed loops), and stays within 50 us + (100 ppm + the host's
 * NTP frequency correction) x (time since the base was set) of the
 * bracket. 50 us covers the offset at the start (the base is set from a
 * CLOCK_REALTIME read next to a TSC read: well under a microsecond unless
 * preempted) with a wide margin; 100 ppm covers the calibration error (a
 * 200 ms window whose ends are read to within a few hundred ns: a few ppm)
 * and the rounding of mult (< 1 ppm at kHz resolution). CLOCK_REALTIME runs
 * at the host kernel's NTP-corrected rate while the TSC frequency was
 * measured against the uncorrected CLOCK_MONOTONIC_RAW, hence the NTP term,
 * read with adjtimex(). A step of the host's CLOCK_REALTIME during the run
 * fails the check, as it should: this clock, like the core, follows only
 * its own base. The program also prints the deviation actually measured
 * (tod minus the midpoint of brackets narrower than 1 us).
 *
 * The TSC must be invariant (constant_tsc and nonstop_tsc in /proc/cpuinfo):
 * otherwise a calibrated TSC clock means nothing and the program says so
 * and exits with status 1. Exit status 2: bad arguments.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>
#include <linux/time_types.h>

#include "shim.h"
#include "stockread.h"
#include <vdso/tod.h>		/* build/linux/include, after the system headers */

/* The vsyscall data page, as in kernel/timeofday/vsyscall.c */
static union {
	struct tod_vdso_data data;
	u8 page[PAGE_SIZE];
} tod_vdso_page __aligned(PAGE_SIZE);

/* <asm/vdso/gettimeofday.h>: where the reader finds the data; no time namespace here */
#define __tod_vdso_data		(&tod_vdso_page.data)
#define __tod_timens_vdso_data	(&tod_vdso_page.data)

/* Never read: the writer publishes TOD_VCLOCK_TSC only (see shim.h). */
static u8 tod_hpet_page[PAGE_SIZE];

/* The reader of the patched tree (-iquote KSRC/arch/x86/entry/vdso) */
#include "vtod_gettime.c"

#define CAL_NS			(200 * NSEC_PER_MSEC)	/* TSC calibration window */
#define ACCUM_NS		NSEC_PER_MSEC		/* writer period */
#define TSC_MAXSEC		600	/* TSC_TIMESOURCE_MAXSEC, drivers/timesource/tsc.c */
#define CHECK_READS		1000000L
#define CHECK_SLACK_NS		50000.0
#define CHECK_PPM		100.0
#define NARROW_NS		1000	/* a bracket not stretched by preemption */
#define MAX_ROUNDS		1000
#define MAX_THREADS		64	/* readers */
#define MAX_TCOUNTS		8	/* entries of --threads */

typedef int (*cgt_fn)(clockid_t, struct __kernel_timespec *);

/*
 * Called through a pointer, as a program calls the vDSO (libtod, glibc); a
 * volatile one, so that the compiler cannot inline the reader into the
 * timed loop, which a real vDSO call cannot do either.
 */
static cgt_fn volatile tod_cgt = __vdso_tod_clock_gettime;
static int tod_errors;		/* a timed tod call returned non-zero */
/* the stock reader (stockread.c), called the same way */
static cgt_fn volatile stock_cgt = stock_clock_gettime;
static int stock_errors;

static u64 now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* ---- the host --------------------------------------------------------------------------- */

struct host_info {
	char model[128];
	char clocksource[64];
	char hv_vendor[13];
	bool constant_tsc, nonstop_tsc, hypervisor, rdtscp, tsc_known_freq;
	double ntp_ppm;		/* adjtimex() frequency correction of CLOCK_REALTIME */
	bool ntp_unsync;
	int cpus[CPU_SETSIZE];	/* the allowed CPUs; reader j on cpus[j % ncpus] */
	int ncpus;
	int reader_cpu, writer_cpu;	/* main thread (and the check), writer */
	bool writer_fifo;
};

static struct host_info host;

static bool has_flag(const char *flags, const char *flag)
{
	size_t n = strlen(flag);
	const char *p = flags;

	while ((p = strstr(p, flag))) {
		if ((p == flags || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(buf, len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

static int probe_host(void)
{
	static char line[8192];
	unsigned int a, b, c, d;
	struct timex tx = { 0 };
	bool flags = false;
	FILE *f;

	snprintf(host.model, sizeof(host.model), "unknown");
	f = fopen("/proc/cpuinfo", "r");
	if (!f) {
		fprintf(stderr, "todread: cannot read /proc/cpuinfo: %s\n", strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += 1 + (v[1] == ' ');
		if (!strncmp(line, "model name", 10)) {
			v[strcspn(v, "\n")] = '\0';
			snprintf(host.model, sizeof(host.model), "%s", v);
		} else if (!strncmp(line, "flags", 5) && !flags) {
			flags = true;
			host.constant_tsc = has_flag(v, "constant_tsc");
			host.nonstop_tsc = has_flag(v, "nonstop_tsc");
			host.hypervisor = has_flag(v, "hypervisor");
			host.rdtscp = has_flag(v, "rdtscp");
			host.tsc_known_freq = has_flag(v, "tsc_known_freq");
		}
	}
	fclose(f);
	if (!flags) {
		fprintf(stderr, "todread: no 'flags' line in /proc/cpuinfo: not x86?\n");
		return -1;
	}
	if (host.hypervisor) {
		__cpuid(0x40000000, a, b, c, d);
		memcpy(host.hv_vendor, &b, 4);
		memcpy(host.hv_vendor + 4, &c, 4);
		memcpy(host.hv_vendor + 8, &d, 4);
		for (a = 0; a < 12; a++)
			if (host.hv_vendor[a] < ' ' || host.hv_vendor[a] > '~')
				host.hv_vendor[a] = host.hv_vendor[a] ? '?' : '\0';
	}
	read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  host.clocksource, sizeof(host.clocksource));
	if (adjtimex(&tx) >= 0) {
		host.ntp_ppm = tx.freq / 65536.0;
		host.ntp_unsync = tx.status & STA_UNSYNC;
	}
	return 0;
}

/*
 * Main thread (and reader 0) on the first allowed CPU, writer on the next
 * one if there is one; readers round-robin over all of them.
 */
static void pick_cpus(void)
{
	cpu_set_t set;
	int i;

	host.reader_cpu = -1;
	host.writer_cpu = -1;
	host.ncpus = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			host.cpus[host.ncpus++] = i;
	if (!host.ncpus)
		return;
	host.reader_cpu = host.cpus[0];
	host.writer_cpu = host.cpus[host.ncpus > 1];
}

/* The CPU of reader j, or -1 (not pinned) if the affinity could not be read */
static int reader_cpu(int j)
{
	return host.ncpus ? host.cpus[j % host.ncpus] : -1;
}

static void pin(pthread_t t, int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(t, sizeof(set), &set);
}

/* ---- the kernel's role -------------------------------------------------------------------- */

struct tsc_cal {
	double hz;	/* measured */
	u32 khz;	/* as the kernel's tsc_khz */
	u32 mult, shift;
};

static struct tsc_cal cal;

/* A (ns, cycles) pair read together: the tightest bracket of a few tries. */
static void sample_pair(clockid_t clock, u64 *ns, u64 *cyc)
{
	u64 best = UINT64_MAX, a, b, c;
	int i;

	for (i = 0; i < 15; i++) {
		a = now_ns(clock);
		c = rdtsc_ordered();
		b = now_ns(clock);
		if (b - a < best) {
			best = b - a;
			*ns = a + (b - a) / 2;
			*cyc = c;
		}
	}
}

/*
 * mult/shift for a conversion from @from to @to units, with @maxsec (in
 * @from's time unit) of input not overflowing 64 bits: the algorithm of
 * clocks_calc_mult_shift(), kernel/time/clocksource.c.
 */
static void calc_mult_shift(u32 *mult, u32 *shift, u32 from, u32 to, u32 maxsec)
{
	u64 tmp = ((u64)maxsec * from) >> 32;
	u32 sft, sftacc = 32;

	while (tmp) {
		tmp >>= 1;
		sftacc--;
	}
	for (sft = 32; sft > 0; sft--) {
		tmp = ((u64)to << sft) + from / 2;
		tmp /= from;
		if ((tmp >> sftacc) == 0)
			break;
	}
	*mult = tmp;
	*shift = sft;
}

static int calibrate(void)
{
	struct timespec w = { 0, CAL_NS };
	u64 ns0, c0, ns1, c1;

	sample_pair(CLOCK_MONOTONIC_RAW, &ns0, &c0);
	nanosleep(&w, NULL);
	sample_pair(CLOCK_MONOTONIC_RAW, &ns1, &c1);
	if (ns1 <= ns0 || c1 <= c0) {
		fprintf(stderr, "todread: TSC calibration failed: %s did not advance\n",
			ns1 <= ns0 ? "CLOCK_MONOTONIC_RAW" : "the TSC");
		return -1;
	}
	cal.hz = (double)(c1 - c0) * NSEC_PER_SEC / (ns1 - ns0);
	cal.khz = (u32)(cal.hz / 1000 + 0.5);
	/* as drivers/timesource/tsc.c: from kHz, so maxsec counts milliseconds */
	calc_mult_shift(&cal.mult, &cal.shift, cal.khz, NSEC_PER_MSEC, TSC_MAXSEC * 1000);
	cal.mult = (((u64)NSEC_PER_MSEC << cal.shift) + cal.khz / 2) / cal.khz;
	return 0;
}

/* The core's state that the page is filled from (struct tod_vsyscall_state) */
struct tod_core {
	u64 offset_base, mask;
	u32 mult, shift;
	u64 wall_ns, mono_ns;	/* at offset_base */
	u64 frac;		/* sub-ns part of both, << shift */
	u64 t0_wall_ns;		/* wall_ns when the base was set */
	u64 updates, max_gap;	/* accumulations, longest delta (cycles) */
	u64 cpu_ns;		/* the writer thread's CPU time, at its end */
	int stop;
};

static struct tod_core core;

/* tod_vsyscall_begin(): odd seq visible before any field */
static void writer_begin(struct tod_vdso_data *vd)
{
	WRITE_ONCE(vd->seq, vd->seq + 1);
	smp_wmb();	/* odd seq visible before any field; pairs with tod_vdso_read_retry() */
}

/* ns into the page's {sec, nsec << shift} form, plus frac: tod_vdso_set_base() */
static void writer_set_base(struct tod_vdso_base *b, u64 ns, u64 frac, u32 shift)
{
	b->sec = ns / NSEC_PER_SEC;
	b->nsec = ((ns % NSEC_PER_SEC) << shift) + frac;
}

/* tod_vsyscall_end(): fill every field, then the even seq */
static void writer_end(struct tod_vdso_data *vd, const struct tod_core *s)
{
	u64 lim = (UINT64_MAX - ((u64)NSEC_PER_SEC << s->shift)) / s->mult;

	vd->vclock_mode = TOD_VCLOCK_TSC;
	vd->offset_base = s->offset_base;
	vd->mask = s->mask;
	vd->mult = s->mult;
	vd->shift = s->shift;
	vd->max_delta = lim < s->mask >> 1 ? lim : s->mask >> 1;
	vd->hres_res = ((u64)s->mult + (1ULL << s->shift) - 1) >> s->shift;
	vd->coarse_res = ACCUM_NS;
	writer_set_base(&vd->base[TOD_VDSO_REALTIME], s->wall_ns, s->frac, s->shift);
	writer_set_base(&vd->base[TOD_VDSO_MONOTONIC], s->mono_ns, s->frac, s->shift);
	writer_set_base(&vd->base[TOD_VDSO_REALTIME_COARSE], s->wall_ns, 0, 0);
	writer_set_base(&vd->base[TOD_VDSO_MONOTONIC_COARSE], s->mono_ns, 0, 0);
	smp_wmb();	/* fields visible before the even seq; pairs with tod_vdso_read_begin() */
	WRITE_ONCE(vd->seq, vd->seq + 1);
}

/*
 * The stock page, from the same state: the same counter reading, mult and
 * shift (stock's TSC clocksource takes them from tsc_khz the same way),
 * max_cycles as clocks_calc_max_nsecs() gives it (the multiply bound at
 * mult + 11 %, or the mask), the bases as {sec, nsec << shift} with the
 * same sub-nanosecond part.
 */
static void stock_write(const struct tod_core *s)
{
	u64 lim = UINT64_MAX / (s->mult + (u64)s->mult * 11 / 100);
	struct stock_state st = {
		.cycle_last = s->offset_base,
		.max_cycles = lim < s->mask ? lim : s->mask,
		.mask = s->mask,
		.mult = s->mult,
		.shift = s->shift,
		.wall_sec = s->wall_ns / NSEC_PER_SEC,
		.wall_nsec_shifted = ((s->wall_ns % NSEC_PER_SEC) << s->shift) + s->frac,
		.mono_sec = s->mono_ns / NSEC_PER_SEC,
		.mono_nsec_shifted = ((s->mono_ns % NSEC_PER_SEC) << s->shift) + s->frac,
	};

	stock_publish(&st);
}

/* The tick's accumulation: fold the cycles since offset_base into the base times. */
static void writer_accumulate(struct tod_vdso_data *vd, struct tod_core *s)
{
	u64 now, delta;
	u128 t;

	writer_begin(vd);
	now = rdtsc_ordered();
	delta = (now - s->offset_base) & s->mask;
	if (delta > s->mask >> 1)	/* timesource_delta(): a TSC behind reads as no time */
		delta = 0;
	t = (u128)delta * s->mult + s->frac;
	s->wall_ns += (u64)(t >> s->shift);
	s->mono_ns += (u64)(t >> s->shift);
	s->frac = (u64)t & ((1ULL << s->shift) - 1);
	s->offset_base = now;
	if (delta > s->max_gap)
		s->max_gap = delta;
	s->updates++;
	writer_end(vd, s);
	stock_write(s);
}

/* The base: CLOCK_REALTIME and CLOCK_MONOTONIC next to a TSC read. */
static void writer_init(struct tod_vdso_data *vd, struct tod_core *s)
{
	u64 mono, cm, c0;

	writer_begin(vd);
	s->mask = UINT64_MAX;	/* timesource_tsc.mask */
	s->mult = cal.mult;
	s->shift = cal.shift;
	sample_pair(CLOCK_MONOTONIC, &mono, &cm);
	sample_pair(CLOCK_REALTIME, &s->wall_ns, &c0);
	/* both bases at the same cycle, c0 */
	s->mono_ns = mono + (u64)((u128)(c0 - cm) * s->mult >> s->shift);
	s->offset_base = c0;
	s->frac = 0;
	s->t0_wall_ns = s->wall_ns;
	writer_end(vd, s);
	stock_write(s);
}

static void *writer_thread(void *arg)
{
	struct timespec next;
	u64 t;

	(void)arg;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!__atomic_load_n(&core.stop, __ATOMIC_RELAXED)) {
		t = (u64)next.tv_sec * NSEC_PER_SEC + next.tv_nsec + ACCUM_NS;
		next.tv_sec = t / NSEC_PER_SEC;
		next.tv_nsec = t % NSEC_PER_SEC;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		writer_accumulate(&tod_vdso_page.data, &core);
	}
	core.cpu_ns = now_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* ---- the paths ---------------------------------------------------------------------------- */

/* n calls of a reader through its pointer, as libtod calls the vDSO; a failed one sets *failed */
static __always_inline u64 run_reader(cgt_fn volatile *fn, clockid_t clock, int *failed, long n)
{
	struct __kernel_timespec ts;
	u64 s = 0;
	int err = 0;

	while (n--) {
		err |= (*fn)(clock, &ts);
		s += ts.tv_nsec;
	}
	if (err)
		__atomic_store_n(failed, 1, __ATOMIC_RELAXED);
	return s;
}

static u64 run_tod(long n)
{
	return run_reader(&tod_cgt, CLOCK_TOD_REALTIME, &tod_errors, n);
}

static u64 run_stock(long n)
{
	return run_reader(&stock_cgt, CLOCK_REALTIME, &stock_errors, n);
}

static u64 run_host_vdso(long n)
{
	struct timespec ts;
	u64 s = 0;

	while (n--) {
		clock_gettime(CLOCK_REALTIME, &ts);
		s += ts.tv_nsec;
	}
	return s;
}

static u64 run_rdtsc(long n)
{
	u64 s = 0;

	while (n--)
		s += rdtsc();
	return s;
}

static u64 run_lfence_rdtsc(long n)
{
	u64 s = 0;

	while (n--)
		s += rdtsc_ordered();
	return s;
}

static u64 run_rdtscp(long n)
{
	u64 s = 0;
	u32 lo, hi, aux;

	while (n--) {
		__asm__ __volatile__("rdtscp" : "=a" (lo), "=d" (hi), "=c" (aux));
		s += (u64)hi << 32 | lo;
	}
	return s;
}

static const struct path {
	const char *name;
	const char *what;
	u64 (*run)(long n);
	bool rdtscp;
} paths[] = {
	{ "tod", "__vdso_tod_clock_gettime(CLOCK_TOD_REALTIME): build/linux's reader",
	  run_tod, false },
	{ "stock", "__cvdso_clock_gettime(CLOCK_REALTIME): build/linux's lib/vdso reader",
	  run_stock, false },
	{ "host-vdso", "glibc clock_gettime(CLOCK_REALTIME): this host's vDSO", run_host_vdso,
	  false },
	{ "rdtsc", "bare rdtsc", run_rdtsc, false },
	{ "lfence-rdtsc", "lfence; rdtsc (rdtsc_ordered, the reader's counter read)",
	  run_lfence_rdtsc, false },
	{ "rdtscp", "rdtscp", run_rdtscp, true },
};

#define NPATHS	ARRAY_SIZE(paths)

static const char *const ratios[][2] = {
	{ "tod", "stock" },
	{ "tod", "host-vdso" },
	{ "tod", "rdtsc" },
	{ "tod", "lfence-rdtsc" },
};

#define NRATIOS	ARRAY_SIZE(ratios)

/* ---- the readers ------------------------------------------------------------------------- */

/* One reader thread of the pool; a cache line each, so that they share none. */
static struct reader {
	pthread_t tid;
	int id;
	double ns;		/* ns per call of its last timed loop */
	volatile u64 sink;	/* keeps the timed loops' results alive */
} __aligned(64) readers[MAX_THREADS];

/* The job the readers wait for: readers 0..nthreads-1 time path, the others idle. */
static struct pool {
	pthread_barrier_t start, done;	/* nreaders + the main thread */
	int nreaders;
	const struct path *path;
	long iters;
	int nthreads;
	int ready;		/* readers of the job at the start line */
	bool quit;
} pool;

/* ns per call of one timed loop */
static double measure(const struct path *p, long iters, struct reader *rd)
{
	u64 t0, t1;

	t0 = now_ns(CLOCK_MONOTONIC_RAW);
	rd->sink += p->run(iters);
	t1 = now_ns(CLOCK_MONOTONIC_RAW);
	return (double)(t1 - t0) / iters;
}

static void *reader_thread(void *arg)
{
	struct reader *rd = arg;
	unsigned int spins = 0;

	for (;;) {
		pthread_barrier_wait(&pool.start);
		if (pool.quit)
			return NULL;
		if (rd->id < pool.nthreads) {
			/* start together: the barrier wakes them one by one */
			__atomic_add_fetch(&pool.ready, 1, __ATOMIC_ACQ_REL);
			while (__atomic_load_n(&pool.ready, __ATOMIC_ACQUIRE) < pool.nthreads) {
				if (++spins % 4096)
					cpu_relax();
				else
					sched_yield();	/* more threads than CPUs */
			}
			rd->ns = measure(pool.path, pool.iters, rd);
		}
		pthread_barrier_wait(&pool.done);
	}
}

/* Start @n readers, each pinned to its CPU; they wait for jobs. */
static int start_readers(int n)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int j, c;

	pool.nreaders = n;
	if (pthread_barrier_init(&pool.start, NULL, n + 1) ||
	    pthread_barrier_init(&pool.done, NULL, n + 1))
		return -1;
	for (j = 0; j < n; j++) {
		pthread_attr_init(&attr);
		if (reader_cpu(j) >= 0) {
			CPU_ZERO(&set);
			CPU_SET(reader_cpu(j), &set);
			pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		}
		readers[j].id = j;
		c = pthread_create(&readers[j].tid, &attr, reader_thread, &readers[j]);
		pthread_attr_destroy(&attr);
		if (c) {
			fprintf(stderr, "todread: cannot start reader thread %d\n", j);
			return -1;
		}
	}
	return 0;
}

static void stop_readers(void)
{
	int j;

	pool.quit = true;
	pthread_barrier_wait(&pool.start);
	for (j = 0; j < pool.nreaders; j++)
		pthread_join(readers[j].tid, NULL);
}

/* @p timed by @nthreads readers at once: the mean of their ns per call */
static double run_job(const struct path *p, long iters, int nthreads)
{
	double sum = 0;
	int j;

	pool.path = p;
	pool.iters = iters;
	pool.nthreads = nthreads;
	pool.ready = 0;
	pthread_barrier_wait(&pool.start);	/* publishes the job */
	pthread_barrier_wait(&pool.done);	/* and collects the readers' ns */
	for (j = 0; j < nthreads; j++)
		sum += readers[j].ns;
	return sum / nthreads;
}

/* ---- the check ---------------------------------------------------------------------------- */

struct check {
	long reads, backwards, outside, fallbacks;
	double max_dev_ns;	/* largest distance outside the [before, after] bracket */
	double bound_ns;	/* the bound at the read that came closest to it */
	long narrow;		/* reads whose bracket is at most NARROW_NS wide */
	double min_off_ns, max_off_ns;	/* tod - bracket midpoint, narrow brackets */
	double mean_off_ns;
	double mean_age_s;	/* time since the base was set, mean over those reads */
	double elapsed_s;	/* since the base was set, at the end */
	double span_ms;		/* duration of the check */
	double allowed_ppm;
	bool passed;
};

/* the tod reader's, then the stock reader's */
static struct check chk[2];
static const char *const chk_name[2] = { "tod", "stock" };

static void run_check(struct check *c, cgt_fn volatile *fn, clockid_t clock)
{
	double worst = -1e300;
	u64 prev = 0, a, b, t, c0;
	struct __kernel_timespec ts;
	long i;

	c->allowed_ppm = CHECK_PPM + (host.ntp_ppm < 0 ? -host.ntp_ppm : host.ntp_ppm);
	c->min_off_ns = 1e300;
	c->max_off_ns = -1e300;
	c0 = now_ns(CLOCK_MONOTONIC);
	for (i = 0; i < CHECK_READS; i++) {
		double dev = 0, off, bound;

		a = now_ns(CLOCK_REALTIME);
		if ((*fn)(clock, &ts)) {
			c->fallbacks++;
			continue;
		}
		b = now_ns(CLOCK_REALTIME);
		t = (u64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
		c->reads++;
		if (t < prev)
			c->backwards++;
		prev = t;
		if (t < a)
			dev = (double)(a - t);
		else if (t > b)
			dev = (double)(t - b);
		if (b - a <= NARROW_NS) {
			off = (double)t - (double)a - (double)(b - a) / 2;
			if (off < c->min_off_ns)
				c->min_off_ns = off;
			if (off > c->max_off_ns)
				c->max_off_ns = off;
			c->mean_off_ns += off;
			c->mean_age_s += (double)(t - core.t0_wall_ns) / 1e9;
			c->narrow++;
		}
		bound = CHECK_SLACK_NS + c->allowed_ppm * (double)(t - core.t0_wall_ns) / 1e6;
		if (dev > bound)
			c->outside++;
		if (dev > c->max_dev_ns)
			c->max_dev_ns = dev;
		if (dev - bound > worst) {
			worst = dev - bound;
			c->bound_ns = bound;
		}
	}
	c->span_ms = (now_ns(CLOCK_MONOTONIC) - c0) / 1e6;
	c->elapsed_s = (double)(prev - core.t0_wall_ns) / 1e9;
	if (c->narrow) {
		c->mean_off_ns /= c->narrow;
		c->mean_age_s /= c->narrow;
	}
	c->passed = c->reads == CHECK_READS && !c->backwards && !c->outside && !c->fallbacks;
}

/* ---- output ------------------------------------------------------------------------------- */

/* the thread counts of --threads, ascending */
static int tcounts[MAX_TCOUNTS];
static int ntc;

/* per path and thread count: one figure per round, and their median, min and max */
static struct result {
	bool sel;
	double ns[MAX_ROUNDS];
	double med, lo, hi;
} res[NPATHS][MAX_TCOUNTS];

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void summarise(long rounds)
{
	static double v[MAX_ROUNDS];
	struct result *rs;
	size_t i;
	int t;

	for (i = 0; i < NPATHS; i++) {
		for (t = 0; t < ntc; t++) {
			rs = &res[i][t];
			if (!rs->sel)
				continue;
			memcpy(v, rs->ns, rounds * sizeof(double));
			qsort(v, rounds, sizeof(double), cmp_double);
			rs->med = rounds % 2 ? v[rounds / 2] :
			     (v[rounds / 2 - 1] + v[rounds / 2]) / 2;
			rs->lo = v[0];
			rs->hi = v[rounds - 1];
		}
	}
}

/* ratio of the medians of two paths at tcounts[t], or 0 if one was not measured */
static double ratio(size_t r, int t)
{
	int a = -1, b = -1;
	size_t i;

	for (i = 0; i < NPATHS; i++) {
		if (res[i][t].sel && !strcmp(paths[i].name, ratios[r][0]))
			a = i;
		if (res[i][t].sel && !strcmp(paths[i].name, ratios[r][1]))
			b = i;
	}
	return a >= 0 && b >= 0 && res[b][t].med > 0 ? res[a][t].med / res[b][t].med : 0;
}

/* median of path i at tcounts[t] over its median at the smallest count, or 0 */
static double scaling(size_t i, int t)
{
	return res[i][t].sel && res[i][0].med > 0 ? res[i][t].med / res[i][0].med : 0;
}

/* the first reader that shares the writer's CPU when @nthreads run, or -1 */
static int shares_writer(int nthreads)
{
	int j;

	for (j = 0; j < nthreads; j++)
		if (reader_cpu(j) >= 0 && reader_cpu(j) == host.writer_cpu)
			return j;
	return -1;
}

/* the writer's CPU time per accumulation, in us */
static double writer_us(void)
{
	return core.updates ? core.cpu_ns / 1e3 / core.updates : 0;
}

/* Say so when a reader shares a CPU with the writer or with another reader. */
static void print_sharing(int nthreads)
{
	double duty = writer_us() * 1e3 / ACCUM_NS * 100;
	int j = shares_writer(nthreads);

	if (j >= 0)
		printf("note: at %d thread%s, reader %d shares CPU %d with the writer, which\n"
		       "  (SCHED_FIFO) preempts it every %ld us for its CPU time above (%.2f%%)\n"
		       "  and the switches: that reader's loops take about as much longer, the\n"
		       "  mean over the %d reader%s 1/%d of it\n",
		       nthreads, nthreads > 1 ? "s" : "", j, host.writer_cpu,
		       ACCUM_NS / NSEC_PER_USEC, duty, nthreads, nthreads > 1 ? "s" : "",
		       nthreads);
	if (nthreads > host.ncpus)
		printf("note: at %d threads, more readers than the %d allowed CPUs: they\n"
		       "  time-share them, and ns per call is wall time, not CPU time\n",
		       nthreads, host.ncpus);
}

static void print_report(long iters, long rounds)
{
	char hdr[32];
	size_t i, r;
	int t, k;

	printf("\n%ld rounds x %ld calls per reader thread, interleaved over paths and thread\n"
	       "counts; ns per call (at T threads: the mean over the T readers)\n", rounds, iters);
	printf("%-14s %7s %9s %9s %9s  %s\n", "path", "threads", "median", "min", "max", "what");
	for (i = 0; i < NPATHS; i++) {
		if (!res[i][0].sel) {
			printf("%-14s %7s %9s %9s %9s  %s (not on this CPU)\n", paths[i].name,
			       "-", "-", "-", "-", paths[i].what);
			continue;
		}
		for (t = 0; t < ntc; t++)
			printf("%-14s %7d %9.2f %9.2f %9.2f%s%s\n", paths[i].name, tcounts[t],
			       res[i][t].med, res[i][t].lo, res[i][t].hi, t ? "" : "  ",
			       t ? "" : paths[i].what);
	}
	if (ntc > 1) {
		printf("scaling, median at T threads / median at %d thread%s (1.00: no cost):\n",
		       tcounts[0], tcounts[0] > 1 ? "s" : "");
		printf("  %-14s", "path");
		for (t = 1; t < ntc; t++) {
			snprintf(hdr, sizeof(hdr), "%dt/%dt", tcounts[t], tcounts[0]);
			printf(" %9s", hdr);
		}
		printf("\n");
		for (i = 0; i < NPATHS; i++) {
			if (!res[i][0].sel)
				continue;
			printf("  %-14s", paths[i].name);
			for (t = 1; t < ntc; t++)
				printf(" %9.2f", scaling(i, t));
			printf("\n");
		}
		printf("  (rdtsc reads no shared memory: its ratio is what the CPUs lose by\n"
		       "  running together, e.g. SMT siblings or a VM's vCPUs on shared cores)\n");
	}
	printf("ratios of medians:%14s", "");
	for (t = 0; t < ntc; t++) {
		snprintf(hdr, sizeof(hdr), "%dt", tcounts[t]);
		printf(" %7s", hdr);
	}
	printf("\n");
	for (r = 0; r < NRATIOS; r++) {
		if (ratio(r, 0) <= 0)
			continue;
		printf("  %-4s / %-13s%10s", ratios[r][0], ratios[r][1], "");
		for (t = 0; t < ntc; t++)
			printf(" %7.2f", ratio(r, t));
		printf("\n");
	}
	printf("writer: %llu accumulations, longest interval %.1f us; %.1f us of thread CPU\n"
	       "  time each, %.2f%% of CPU %d\n",
	       (unsigned long long)core.updates, core.max_gap * 1e6 / cal.hz, writer_us(),
	       writer_us() * 1e3 / ACCUM_NS * 100, host.writer_cpu);
	for (t = 0; t < ntc; t++)
		print_sharing(tcounts[t]);

	for (k = 0; k < 2; k++) {
		const struct check *c = &chk[k];

		printf("\ncheck of the %s reader: %ld reads, each between two CLOCK_REALTIME reads, over %.0f ms;\n"
		       "  the last %.2f s after the base was set\n",
		       chk_name[k], c->reads, c->span_ms, c->elapsed_s);
		printf("  backwards steps: %ld; system call fallbacks: %ld%s\n", c->backwards,
		       c->fallbacks, (k ? stock_errors : tod_errors) ? " (and some in the timed loops)" : "");
		printf("  max deviation outside [before, after]: %.0f ns; reads beyond the bound: %ld\n"
		       "  (bound there %.0f ns = 50 us + %.1f ppm x time since the base was set)\n",
		       c->max_dev_ns, c->outside, c->bound_ns, c->allowed_ppm);
		if (c->narrow)
			printf("  %s - CLOCK_REALTIME (bracket midpoint), the %ld brackets under %d ns:\n"
			       "  %.0f .. %.0f ns, max |deviation| %.0f ns; mean %.0f ns, %.3f ppm of the\n"
			       "  time since the base was set\n",
			       chk_name[k], c->narrow, NARROW_NS, c->min_off_ns, c->max_off_ns,
			       -c->min_off_ns > c->max_off_ns ? -c->min_off_ns : c->max_off_ns,
			       c->mean_off_ns,
			       c->mean_age_s > 0 ? c->mean_off_ns / c->mean_age_s / 1e3 : 0);
		printf("check of the %s reader: %s\n", chk_name[k], c->passed ? "PASS" : "FAIL");
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < ' ')
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static const char *json_bool(bool b)
{
	return b ? "true" : "false";
}

static int write_json(const char *file, long iters, long rounds)
{
	FILE *f = fopen(file, "w");
	const char *sep = "";
	size_t i, r;
	int t, j, k;

	if (!f) {
		fprintf(stderr, "todread: cannot write %s: %s\n", file, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"iters\": %ld, \"rounds\": %ld, \"threads\": [", iters, rounds);
	for (t = 0; t < ntc; t++)
		fprintf(f, "%s%d", t ? ", " : "", tcounts[t]);
	fprintf(f, "],\n \"host\": {\"model\": ");
	json_str(f, host.model);
	fprintf(f, ", \"hypervisor\": %s, \"hypervisor_vendor\": ", json_bool(host.hypervisor));
	json_str(f, host.hv_vendor);
	fprintf(f, ", \"constant_tsc\": %s, \"nonstop_tsc\": %s, \"tsc_known_freq\": %s",
		json_bool(host.constant_tsc), json_bool(host.nonstop_tsc),
		json_bool(host.tsc_known_freq));
	fprintf(f, ", \"clocksource\": ");
	json_str(f, host.clocksource);
	fprintf(f, ", \"ntp_freq_ppm\": %.3f, \"reader_cpu\": %d, \"reader_cpus\": [",
		host.ntp_ppm, host.reader_cpu);
	for (j = 0; j < tcounts[ntc - 1]; j++)
		fprintf(f, "%s%d", j ? ", " : "", reader_cpu(j));
	fprintf(f, "], \"writer_cpu\": %d, \"writer_fifo\": %s},\n", host.writer_cpu,
		json_bool(host.writer_fifo));
	fprintf(f, " \"tsc\": {\"hz\": %.0f, \"khz\": %u, \"mult\": %u, \"shift\": %u",
		cal.hz, cal.khz, cal.mult, cal.shift);
	fprintf(f, ", \"accumulations\": %llu, \"max_accumulation_us\": %.1f",
		(unsigned long long)core.updates, core.max_gap * 1e6 / cal.hz);
	fprintf(f, ", \"writer_cpu_us_per_accumulation\": %.3f},\n", writer_us());
	fprintf(f, " \"paths\": [");
	for (i = 0; i < NPATHS; i++) {
		for (t = 0; t < ntc; t++) {
			if (!res[i][t].sel)
				continue;
			fprintf(f, "%s\n  {\"name\": \"%s\", \"threads\": %d", sep, paths[i].name,
				tcounts[t]);
			fprintf(f, ", \"median_ns\": %.3f, \"min_ns\": %.3f, \"max_ns\": %.3f",
				res[i][t].med, res[i][t].lo, res[i][t].hi);
			fprintf(f, ", \"samples_ns\": [");
			for (r = 0; r < (size_t)rounds; r++)
				fprintf(f, "%s%.3f", r ? ", " : "", res[i][t].ns[r]);
			fprintf(f, "]}");
			sep = ",";
		}
	}
	/* "ratios": {"<threads>": {"tod/host-vdso": ...}}, of medians at that count */
	fprintf(f, "\n ],\n \"ratios\": {");
	for (t = 0; t < ntc; t++) {
		fprintf(f, "%s\"%d\": {", t ? ", " : "", tcounts[t]);
		for (sep = "", r = 0; r < NRATIOS; r++) {
			if (ratio(r, t) <= 0)
				continue;
			fprintf(f, "%s\"%s/%s\": %.3f", sep, ratios[r][0], ratios[r][1],
				ratio(r, t));
			sep = ", ";
		}
		fprintf(f, "}");
	}
	/* "scaling": {"<T>/<smallest>": {"tod": ...}}, median at T over at the smallest */
	fprintf(f, "},\n \"scaling\": {");
	for (t = 1; t < ntc; t++) {
		fprintf(f, "%s\"%d/%d\": {", t > 1 ? ", " : "", tcounts[t], tcounts[0]);
		for (sep = "", i = 0; i < NPATHS; i++) {
			if (scaling(i, t) <= 0)
				continue;
			fprintf(f, "%s\"%s\": %.3f", sep, paths[i].name, scaling(i, t));
			sep = ", ";
		}
		fprintf(f, "}");
	}
	/* "writer_shared": {"<threads>": reader}, the reader on the writer's CPU */
	fprintf(f, "},\n \"writer_shared\": {");
	for (sep = "", t = 0; t < ntc; t++) {
		j = shares_writer(tcounts[t]);
		if (j < 0)
			continue;
		fprintf(f, "%s\"%d\": %d", sep, tcounts[t], j);
		sep = ", ";
	}
	for (k = 0; k < 2; k++) {
		const struct check *c = &chk[k];

		fprintf(f, "},\n \"%s\": {\"passed\": %s, \"reads\": %ld, \"backwards\": %ld",
			k ? "stock_check" : "check", json_bool(c->passed), c->reads, c->backwards);
		fprintf(f, ", \"fallbacks\": %ld, \"outside\": %ld, \"max_deviation_ns\": %.0f",
			c->fallbacks, c->outside, c->max_dev_ns);
		fprintf(f, ", \"bound_ns\": %.0f, \"allowed_ppm\": %.3f, \"narrow_reads\": %ld",
			c->bound_ns, c->allowed_ppm, c->narrow);
		fprintf(f, ", \"min_offset_ns\": %.0f, \"max_offset_ns\": %.0f, \"mean_offset_ns\": %.1f",
			c->min_off_ns, c->max_off_ns, c->mean_off_ns);
		fprintf(f, ", \"elapsed_s\": %.3f", c->elapsed_s);
	}
	fprintf(f, "}}\n");
	if (fclose(f)) {
		fprintf(stderr, "todread: writing %s: %s\n", file, strerror(errno));
		return -1;
	}
	return 0;
}

static void usage(FILE *f, const char *argv0)
{
	size_t i;

	fprintf(f,
		"usage: %s [--iters N] [--rounds N] [--threads LIST] [--json FILE] [--help]\n"
		"Time the timeofday core's vDSO reader and the stock one (lib/vdso), both\n"
		"compiled from build/linux and fed by one writer, on this CPU beside the\n"
		"host's vDSO and the TSC instructions; check both against CLOCK_REALTIME.\n"
		"  --iters    calls per timed loop, in each reader thread (default 1000000)\n"
		"  --rounds   rounds interleaving the paths and thread counts; median, min, max\n"
		"             of them (default 9)\n"
		"  --threads  comma-separated numbers of reader threads that time each path at\n"
		"             once, pinned round-robin to the allowed CPUs (1..%d, at most %d\n"
		"             numbers; default 1,2 with 2 or more allowed CPUs, else 1)\n"
		"  --json     also write the figures and the check as JSON to FILE\n"
		"Exit status: 0 ok; 1 the check failed, the TSC is not invariant, or an error;\n"
		"2 bad arguments.\n"
		"paths:\n",
		argv0, MAX_THREADS, MAX_TCOUNTS);
	for (i = 0; i < NPATHS; i++)
		fprintf(f, "  %-14s %s\n", paths[i].name, paths[i].what);
}

static long parse_pos(const char *opt, const char *s, long max, const char *argv0)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || end == s || *end || v <= 0 || v > max) {
		fprintf(stderr, "todread: %s needs an integer in 1..%ld, got '%s'\n", opt, max, s);
		usage(stderr, argv0);
		exit(2);
	}
	return v;
}

/* --threads: into tcounts[], ascending, without repeats */
static void parse_threads(const char *s, const char *argv0)
{
	char buf[16];
	size_t len;
	int v, t;

	ntc = 0;
	for (;;) {
		len = strcspn(s, ",");
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;	/* too long a number: rejected below */
		memcpy(buf, s, len);
		buf[len] = '\0';
		v = parse_pos("--threads", buf, MAX_THREADS, argv0);
		for (t = ntc; t > 0 && tcounts[t - 1] > v; t--)
			;
		if (!t || tcounts[t - 1] != v) {
			if (ntc == MAX_TCOUNTS) {
				fprintf(stderr, "todread: --threads takes at most %d numbers\n",
					MAX_TCOUNTS);
				usage(stderr, argv0);
				exit(2);
			}
			memmove(&tcounts[t + 1], &tcounts[t], (ntc - t) * sizeof(int));
			tcounts[t] = v;
			ntc++;
		}
		s += strcspn(s, ",");
		if (!*s++)
			break;
	}
}

/* "0,1,0": the CPUs of readers 0..n-1 */
static void reader_cpus(char *buf, size_t len, int n)
{
	size_t o = 0;
	int j;

	buf[0] = '\0';
	for (j = 0; j < n && o < len; j++)
		o += snprintf(buf + o, len - o, "%s%d", j ? "," : "", reader_cpu(j));
}

/* What the host is; false if its TSC cannot carry a calibrated clock. */
static bool print_host(void)
{
	printf("todread: %s\n", host.model);
	printf("  cpuinfo flags: constant_tsc %s, nonstop_tsc %s, tsc_known_freq %s, rdtscp %s\n",
	       host.constant_tsc ? "yes" : "NO", host.nonstop_tsc ? "yes" : "NO",
	       host.tsc_known_freq ? "yes" : "no", host.rdtscp ? "yes" : "no");
	if (host.hypervisor)
		printf("  hypervisor flag: yes, vendor '%s': a VM, the TSC is the hypervisor's\n",
		       host.hv_vendor);
	else
		printf("  hypervisor flag: no (bare metal)\n");
	printf("  host clocksource: %s; NTP frequency correction of CLOCK_REALTIME: %.3f ppm%s\n",
	       host.clocksource, host.ntp_ppm, host.ntp_unsync ? " (unsynchronised)" : "");
	if (host.constant_tsc && host.nonstop_tsc)
		return true;
	fprintf(stderr,
		"todread: the TSC is not invariant (no %s in /proc/cpuinfo): its rate may follow\n"
		"  the CPU frequency or it may stop in deep idle, so a TSC clock calibrated once,\n"
		"  as this program builds, means nothing here; not measuring\n",
		!host.constant_tsc ? "constant_tsc" : "nonstop_tsc");
	return false;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iters", required_argument, NULL, 'i' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	long iters = 1000000, rounds = 9;
	const char *json = NULL;
	struct sched_param sp = { .sched_priority = 1 };
	pthread_t writer;
	size_t i, r, k, ncombo;
	char cpus[128];
	int c, t, ret = 0;

	while ((c = getopt_long(argc, argv, "i:r:t:j:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			iters = parse_pos("--iters", optarg, 1000000000L, argv[0]);
			break;
		case 'r':
			rounds = parse_pos("--rounds", optarg, MAX_ROUNDS, argv[0]);
			break;
		case 't':
			parse_threads(optarg, argv[0]);
			break;
		case 'j':
			json = optarg;
			break;
		case 'h':
			usage(stdout, argv[0]);
			return 0;
		default:
			usage(stderr, argv[0]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "todread: unexpected argument '%s'\n", argv[optind]);
		usage(stderr, argv[0]);
		return 2;
	}

	if (probe_host() || !print_host())
		return 1;
	pick_cpus();
	if (!ntc) {
		tcounts[ntc++] = 1;
		if (host.ncpus >= 2)
			tcounts[ntc++] = 2;
	}
	pin(pthread_self(), host.reader_cpu);
	if (calibrate())
		return 1;
	printf("  TSC: %.0f Hz against CLOCK_MONOTONIC_RAW over %ld ms;\n"
	       "  as tsc_khz %u: mult %u, shift %u\n",
	       cal.hz, CAL_NS / NSEC_PER_MSEC, cal.khz, cal.mult, cal.shift);

	writer_init(&tod_vdso_page.data, &core);
	if (pthread_create(&writer, NULL, writer_thread, NULL)) {
		fprintf(stderr, "todread: cannot start the writer thread\n");
		return 1;
	}
	pin(writer, host.writer_cpu);
	host.writer_fifo = !pthread_setschedparam(writer, SCHED_FIFO, &sp);
	if (start_readers(tcounts[ntc - 1])) {
		fprintf(stderr, "todread: cannot start the reader threads\n");
		return 1;
	}
	reader_cpus(cpus, sizeof(cpus), tcounts[ntc - 1]);
	printf("  readers 0..%d on CPUs %s (round-robin over the %d allowed);\n"
	       "  main thread and the check on CPU %d; writer (every %ld us%s) on CPU %d\n",
	       tcounts[ntc - 1] - 1, cpus, host.ncpus, host.reader_cpu,
	       ACCUM_NS / NSEC_PER_USEC, host.writer_fifo ? ", SCHED_FIFO" : "",
	       host.writer_cpu);

	for (i = 0; i < NPATHS; i++)
		for (t = 0; t < ntc; t++)
			res[i][t].sel = !paths[i].rdtscp || host.rdtscp;
	/* warm up caches, branch predictors and the CPU's clock */
	for (i = 0; i < NPATHS; i++)
		for (t = 0; t < ntc; t++)
			if (res[i][t].sel)
				run_job(&paths[i], iters / 10 + 1, tcounts[t]);
	/* a round: each (path, thread count), the counts of a path one after another */
	ncombo = NPATHS * ntc;
	for (r = 0; r < (size_t)rounds; r++)
		for (k = 0; k < ncombo; k++) {
			i = (r + k) % ncombo / ntc;
			t = (r + k) % ncombo % ntc;
			if (res[i][t].sel)
				res[i][t].ns[r] = run_job(&paths[i], iters, tcounts[t]);
		}
	stop_readers();
	run_check(&chk[0], &tod_cgt, CLOCK_TOD_REALTIME);
	run_check(&chk[1], &stock_cgt, CLOCK_REALTIME);
	__atomic_store_n(&core.stop, 1, __ATOMIC_RELAXED);
	pthread_join(writer, NULL);
	/* the stock reader's fallback succeeds: counted, in the check and the timed loops */
	chk[1].fallbacks += stock_fallbacks;
	if (tod_errors)
		chk[0].passed = false;
	if (stock_errors || stock_fallbacks)
		chk[1].passed = false;

	summarise(rounds);
	print_report(iters, rounds);
	if (!chk[0].passed || !chk[1].passed)
		ret = 1;
	if (json && write_json(json, iters, rounds))
		ret = 1;
	return ret;
}
