// SPDX-License-Identifier: GPL-2.0
/*
 * tod_adjtimex: clock_adjtime() on CLOCK_TOD_REALTIME against the stock
 * CLOCK_REALTIME, differentially.
 *
 * One scripted sequence of cases (every mode bit, a field x value x mode
 * table with LONG_MIN/LONG_MAX in every field, status transitions, leap
 * states, offset decay, single-shot slews, PLL/FLL updates over stepped
 * intervals, ADJ_SETOFFSET, the cases of the kernel's valid-adjtimex.c,
 * EFAULT and EPERM) is applied to both clocks, each case to the stock
 * clock and then at once to the tod clock. The pass rule, per case: the
 * return value, errno and every field of the returned struct timex are the
 * same on both clocks, except the fields of EXCLUDED[] below. Every
 * difference is printed as "case, field, stock value, tod value".
 *
 * Both NTP state machines run once a second of their own wall clock, but
 * not in the same instant: the stock one when the stock CLOCK_REALTIME
 * passes a whole second, the tod one when CLOCK_TOD_REALTIME does (each at
 * the next accumulation). ADJ_OFFSET also measures its interval in whole
 * seconds of each core's own wall time. So no case is applied within
 * MARGIN_NS of either boundary, and every case runs in the same arc of the
 * second (the one where the difference between the second counts is the
 * one planned at the start): then between any two cases both machines have
 * run the same number of seconds, and the time-dependent fields (maxerror
 * growth, offset decay, the single-shot remainder, the PLL interval) are
 * compared exactly, without tolerance.
 *
 * Before the sequence both clocks are put into one known state; after it
 * they are left synchronised off (STA_UNSYNC), at freq 0, tick 10000,
 * with their TAI offsets as found. Every clock step of the sequence is
 * undone. Run it only in the guest: it steps and slews CLOCK_REALTIME.
 *
 * "--selfcheck [N]" runs the sequence (its first N cases, if N is given)
 * again in a child with one field of the first case's tod reply corrupted
 * ("--corrupt-first [N]"), and passes when that run fails exactly that
 * case: a difference is caught, and only where there is one. "--list"
 * prints the cases only. "--first N" runs the first N cases of the
 * sequence only (make check's smoke run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "todtest.h"

#ifndef ADJ_SETOFFSET
#define ADJ_SETOFFSET	0x0100
#endif
#define ADJ_ADJTIME	0x8000	/* the bit of ADJ_OFFSET_SINGLESHOT without ADJ_OFFSET */
#define NTP_PHASE_LIMIT	16000000L	/* (MAXPHASE / NSEC_PER_USEC) << 5 */
#define NSEC		1000000000LL

#define MARGIN_NS	50000000LL	/* keep this far from any second boundary */
#define NEED_NS		20000000LL	/* a case in this process runs well within it */
#define NEED_FORK_NS	150000000LL	/* a case in a forked child */
#define MAX_CASES	1400

/* case flags */
#define F_NULLPTR	0x01	/* pass NULL */
#define F_BADPTR	0x02	/* pass (void *)8 */
#define F_ROPAGE	0x04	/* the timex is in a read-only page: read, not written back */
#define F_STRADDLE	0x08	/* the timex runs into an unmapped page */
#define F_NOCAP		0x10	/* in a child without CAP_SYS_TIME */
#define F_UNDO_STEP	0x20	/* a successful ADJ_SETOFFSET is undone at once */
#define F_UNDO_TICK	0x40	/* tick is put back to 10000 at once */
#define F_FREQ_RANGE	0x80	/* freq * PPM_SCALE does not fit in 64 bits: see freq_range() */

/* ppm with a 16-bit fraction to the kernel's scaled ns (PPM_SCALE in <linux/timex.h>) */
#define PPM_SCALE	(1000LL << 16)

struct tcase {
	char name[112];
	struct timex tx;
	int flags;
	int waits;		/* NTP seconds to let pass before the case */
};

/* What one case gave on both clocks: [0] stock, [1] tod. */
struct pair {
	int ret[2];
	int err[2];
	struct timex tx[2];
};

static const clockid_t clk[2] = { CLOCK_REALTIME, CLOCK_TOD_REALTIME };

/*
 * 100 ms: the two calls of a case follow each other in one process, tens
 * of us apart under TCG, but the clocks need not have slewed alike by
 * then: a PLL case slews up to 32 ms/s, and each core applies its
 * second's part at its own NTP second. Worst seen (printed at the end of
 * a run): 0.28 ms on x86-64; 4.09 ms and 20.4 ms (case 788, after the
 * PLL cases) on i386 (2026-12-06); 100 ms is 4.9x. It still fails a reply
 * in the wrong unit (1000x) or from another epoch. The check was 1 s.
 */
#define TIME_LIMIT_NS	100000000LL
static int64_t time_off;	/* tod - stock wall time before the first case */
static int64_t time_worst;	/* largest |tod - stock - time_off| of a case's replies */
static const char *const clk_name[2] = { "stock", "tod" };

/*
 * Fields not compared exactly, each with why. time is read from two
 * different clocks at two different instants (and the tod wall clock may
 * have been set apart from the stock one by an earlier test); it is
 * checked for the same units (us or ns, per STA_NANO) and, less the two
 * wall clocks' offset measured before the first case (time_off), to be
 * within TIME_LIMIT_NS: every case steps and slews both clocks alike, so
 * what is left is the time between the two calls. The worst is printed
 * at the end.
 */
static const struct {
	const char *field;
	const char *why;
} EXCLUDED[] = {
	{ "time", "wall time now, of two clocks read at two instants (checked: same units, and within 100 ms of the clocks' offset before the first case)" },
};

#define FIELD(f, fmt) { #f, offsetof(struct timex, f), sizeof(((struct timex *)0)->f), fmt }
static const struct field {
	const char *name;
	size_t off, size;
	int hex;
} FIELDS[] = {
	FIELD(modes, 1), FIELD(offset, 0), FIELD(freq, 0), FIELD(maxerror, 0),
	FIELD(esterror, 0), FIELD(status, 1), FIELD(constant, 0), FIELD(precision, 0),
	FIELD(tolerance, 0), FIELD(tick, 0), FIELD(ppsfreq, 0), FIELD(jitter, 0),
	FIELD(shift, 0), FIELD(stabil, 0), FIELD(jitcnt, 0), FIELD(calcnt, 0),
	FIELD(errcnt, 0), FIELD(stbcnt, 0), FIELD(tai, 0),
};

static struct tcase cases[MAX_CASES];
static int ncases;
static int selfcheck;
static void *ro_page, *edge_page;

/* ------------------------------------------------------------------ */
/* Timing: the arc of the second in which every case runs.             */

/* Integer seconds each realtime clock was stepped by the sequence, ns. */
static int64_t stepped[2];
/* The planned differences of the second counts: stock - tod NTP, stock - tod wall. */
static int64_t plan_d1, plan_d2;
static int64_t last_sec;	/* stock second count of the last case */

struct counts {
	int64_t n[3];		/* second counts: stock wall, tod NTP, tod wall */
	int64_t frac[3];	/* ns into that second */
};

static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
	int64_t q = a / b, r = a % b;

	if (r < 0) {
		r += b;
		q--;
	}
	*rem = r;
	return q;
}

/* The three second counts, dt ns from now. */
static void counts_at(const int64_t now[3], int64_t dt, struct counts *c)
{
	c->n[0] = floor_div(now[0] + dt - stepped[0], NSEC, &c->frac[0]);
	c->n[2] = floor_div(now[2] + dt - stepped[1], NSEC, &c->frac[2]);
	/* the tod NTP second is the tod wall second */
	c->n[1] = c->n[2];
	c->frac[1] = c->frac[2];
}

static void read_now(int64_t now[3])
{
	now[1] = ns_of(CLOCK_MONOTONIC_RAW);
	now[0] = ns_of(CLOCK_REALTIME);
	now[2] = ns_of(CLOCK_TOD_REALTIME);
}

/* No boundary within the margin, and need ns of room. */
static int clear_of_boundaries(const struct counts *c, int64_t need)
{
	int i;

	for (i = 0; i < 3; i++)
		if (c->frac[i] < MARGIN_NS || c->frac[i] + need > NSEC - MARGIN_NS)
			return 0;
	return 1;
}

/*
 * Choose the longest arc of the next two seconds that is clear of all
 * three boundaries; its count differences are the plan. Returns its length.
 */
static int64_t plan_arc(void)
{
	int64_t now[3], dt, run = 0, best = 0, d1 = 0, d2 = 0;
	struct counts c;

	read_now(now);
	for (dt = 0; dt < 2 * NSEC; dt += 1000000) {
		counts_at(now, dt, &c);
		if (!clear_of_boundaries(&c, 0)) {
			run = 0;
			continue;
		}
		if (run && (c.n[0] - c.n[1] != d1 || c.n[0] - c.n[2] != d2))
			run = 0;
		d1 = c.n[0] - c.n[1];
		d2 = c.n[0] - c.n[2];
		run += 1000000;
		if (run > best) {
			best = run;
			plan_d1 = d1;
			plan_d2 = d2;
		}
	}
	return best;
}

/*
 * Wait until now is in the planned arc with need ns of room, at least
 * waits stock seconds after the last case.
 */
static int gate(int64_t need, int waits)
{
	struct timespec ms = { 0, 1000000 };
	int64_t now[3];
	struct counts a, b;
	int tries;

	for (tries = 0; tries < 6000; tries++) {
		read_now(now);
		counts_at(now, 0, &a);
		counts_at(now, need, &b);
		if (clear_of_boundaries(&a, need) &&
		    a.n[0] - a.n[1] == plan_d1 && a.n[0] - a.n[2] == plan_d2 &&
		    a.n[0] >= last_sec + waits) {
			last_sec = a.n[0];
			return 0;
		}
		nanosleep(&ms, NULL);
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* Building the sequence.                                              */

static __attribute__((format(printf, 3, 4)))
struct timex *add(int flags, unsigned int modes, const char *fmt, ...)
{
	struct tcase *c;
	va_list ap;

	if (ncases == MAX_CASES)
		ksft_exit_fail_msg("more than %d cases\n", MAX_CASES);
	c = &cases[ncases++];
	memset(c, 0, sizeof(*c));
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
	c->flags = flags;
	c->tx.modes = modes;
	return &c->tx;
}

static void add_wait(int waits, unsigned int modes, const char *what)
{
	add(0, modes, "after %d NTP second(s): %s", waits, what);
	cases[ncases - 1].waits = waits;
}

static void add_read(const char *what)
{
	add(0, 0, "read (%s)", what);
}

/*
 * One known state: PLL on (so ADJ_OFFSET 0 clears the phase offset and
 * the stock STA_MODE), then every field set, then the single-shot slew
 * stopped, TAI 0; status as given, in us or ns.
 */
static void add_sync(int status, int nano, const char *why)
{
	struct timex *t;

	t = add(0, ADJ_STATUS, "sync %s: STA_PLL", why);
	t->status = STA_PLL;
	t = add(0, ADJ_STATUS | ADJ_FREQUENCY | ADJ_MAXERROR | ADJ_ESTERROR | ADJ_TIMECONST |
		ADJ_OFFSET | ADJ_TICK | (nano ? ADJ_NANO : ADJ_MICRO),
		"sync %s: all fields, %s", why, nano ? "ns" : "us");
	t->status = STA_PLL;
	t->maxerror = 100000;
	t->esterror = 1000;
	t->constant = 2;
	t->tick = 10000;
	t = add(0, ADJ_OFFSET_SINGLESHOT, "sync %s: single-shot 0", why);
	t = add(0, ADJ_TAI, "sync %s: TAI 0", why);
	t = add(0, ADJ_STATUS, "sync %s: status %#x", why, status);
	t->status = status;
}

/*
 * The values written to each field. The fields are 64 bits on both
 * x86-64 (long) and i386 (64-bit time: the kernel's __kernel_timex), so
 * the extremes are INT64's ("LONG_MIN" in the names, as on x86-64).
 */
static const int64_t XVALS[] = {
	INT64_MIN, INT64_MIN + 1, INT_MIN, -1000000001, -1000000000, -500000001,
	-500000000, -499999999, -32768001, -32768000, -1000001, -1000000, -500001,
	-500000, -499999, -65536, -1001, -1000, -999, -251, -250, -1, 0, 1, 249, 250,
	999, 1000, 1001, 65536, 100000, 499999, 500000, 500001, 1000000, 1000001,
	16000000, 16000001, 32768000, 32768001, 123456789, 500000000, 500000001,
	1000000000, INT_MAX, INT64_MAX - 1, INT64_MAX,
	/* the largest freq that scales within 64 bits, and one past it, either way */
	INT64_MIN / PPM_SCALE - 1, INT64_MIN / PPM_SCALE, INT64_MAX / PPM_SCALE,
	INT64_MAX / PPM_SCALE + 1,
};
#define TX64(f) (sizeof(((struct timex *)0)->f) == sizeof(int64_t))
_Static_assert(TX64(offset) && TX64(freq) && TX64(maxerror) && TX64(esterror) &&
	       TX64(constant) && TX64(tick), "the fields XVALS are written to are 64 bits");
#define NXVALS (sizeof(XVALS) / sizeof(XVALS[0]))

static const char *vname(int64_t v, char *buf, size_t len)
{
	if (v == INT64_MIN)
		return "LONG_MIN";
	if (v == INT64_MAX)
		return "LONG_MAX";
	if (v == INT64_MIN + 1)
		return "LONG_MIN+1";
	if (v == INT64_MAX - 1)
		return "LONG_MAX-1";
	snprintf(buf, len, "%" PRId64, v);
	return buf;
}

/* field x value x mode: each row after a sync, every value of XVALS */
static void gen_table(void)
{
	static const struct row {
		const char *what;
		unsigned int modes;
		size_t off;
		int status, nano;
	} rows[] = {
		{ "ADJ_OFFSET us (PLL)", ADJ_OFFSET, offsetof(struct timex, offset), STA_PLL, 0 },
		{ "ADJ_OFFSET|ADJ_NANO ns (PLL)", ADJ_OFFSET | ADJ_NANO,
		  offsetof(struct timex, offset), STA_PLL, 1 },
		{ "ADJ_OFFSET us (PLL off)", ADJ_OFFSET, offsetof(struct timex, offset), STA_UNSYNC, 0 },
		{ "ADJ_FREQUENCY", ADJ_FREQUENCY, offsetof(struct timex, freq), STA_PLL, 0 },
		{ "ADJ_MAXERROR", ADJ_MAXERROR, offsetof(struct timex, maxerror), STA_PLL, 0 },
		{ "ADJ_ESTERROR", ADJ_ESTERROR, offsetof(struct timex, esterror), STA_PLL, 0 },
		{ "ADJ_TIMECONST us", ADJ_TIMECONST, offsetof(struct timex, constant), STA_PLL, 0 },
		{ "ADJ_TIMECONST|ADJ_NANO", ADJ_TIMECONST | ADJ_NANO,
		  offsetof(struct timex, constant), STA_PLL, 1 },
		{ "ADJ_TAI", ADJ_TAI, offsetof(struct timex, constant), STA_PLL, 0 },
		{ "ADJ_TICK", ADJ_TICK, offsetof(struct timex, tick), STA_PLL, 0 },
		{ "ADJ_OFFSET_SINGLESHOT", ADJ_OFFSET_SINGLESHOT, offsetof(struct timex, offset),
		  STA_UNSYNC, 0 },
	};
	static const long ticks[] = { 8999, 9000, 9001, 9999, 10000, 10001, 10999, 11000, 11001 };
	char buf[32];
	size_t r, i;

	for (r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
		const struct row *w = &rows[r];
		int undo = w->modes == ADJ_TICK ? F_UNDO_TICK : 0;

		add_sync(w->status, w->nano, w->what);
		if (w->modes & ADJ_OFFSET && w->status == STA_PLL) {
			/* time constant 10: a big offset slews slowly between arcs */
			struct timex *t = add(0, ADJ_TIMECONST, "%s: constant 10", w->what);

			t->constant = w->nano ? 10 : 6;	/* +4 in us mode */
		}
		for (i = 0; i < NXVALS; i++) {
			struct timex *t = add(undo, w->modes, "%s = %s", w->what,
					      vname(XVALS[i], buf, sizeof(buf)));

			*(int64_t *)((char *)t + w->off) = XVALS[i];
			if (w->modes == ADJ_FREQUENCY &&
			    (XVALS[i] < INT64_MIN / PPM_SCALE || XVALS[i] > INT64_MAX / PPM_SCALE))
				cases[ncases - 1].flags |= F_FREQ_RANGE;
			if (w->modes == ADJ_TICK && XVALS[i] == 10000)
				cases[ncases - 1].flags = 0;
		}
		if (w->modes == ADJ_TICK)
			for (i = 0; i < sizeof(ticks) / sizeof(ticks[0]); i++)
				add(ticks[i] != 10000 ? F_UNDO_TICK : 0, ADJ_TICK,
				    "ADJ_TICK = %ld", ticks[i])->tick = ticks[i];
		if (w->modes == ADJ_OFFSET_SINGLESHOT)
			add(0, ADJ_OFFSET_SINGLESHOT, "ADJ_OFFSET_SINGLESHOT = 0 (stop)");
		add_read(w->what);
	}
}

/* the ADJ_FREQUENCY and ADJ_SETOFFSET cases of selftests/timers/valid-adjtimex.c */
static void gen_valid_adjtimex(void)
{
	static const long ppm[] = { -499, -450, -400, -350, -300, -250, -200, -150, -100, -75,
				    -50, -25, -10, -5, -1, 1, 5, 10, 25, 50, 75, 100, 150,
				    200, 250, 300, 350, 400, 450, 499 };
	static const long outofrange[] = { -1000, -550, 550, 1000 };
	static const long long ns_off[] = { NSEC - 1, -NSEC + 1, -NSEC - 1, 5 * NSEC, -5 * NSEC,
					    5 * NSEC + NSEC / 2, -5 * NSEC - NSEC / 2 };
	static const long long us_off[] = { 999999, -999999, -1000001, 5000000, -5000000,
					    5500000, -5500000 };
	static const long bad[][3] = {	/* sec, usec, nano */
		{ 0, -1, 1 }, { 0, -1, 0 }, { 0, 2 * NSEC, 1 }, { 0, 2000000, 0 },
		{ 0, NSEC, 1 }, { 0, 1000000, 0 }, { 0, -NSEC, 1 }, { 0, -1000000, 0 },
	};
	size_t i;
	int n;

	add_sync(0, 0, "valid-adjtimex");
	for (i = 0; i < sizeof(ppm) / sizeof(ppm[0]); i++)
		add(0, ADJ_FREQUENCY, "valid-adjtimex: ADJ_FREQUENCY %ld ppm", ppm[i])->freq =
			ppm[i] << 16;
	add(0, ADJ_FREQUENCY, "valid-adjtimex: ADJ_FREQUENCY -1000 (scaled)")->freq = -1000;
	for (i = 0; i < sizeof(outofrange) / sizeof(outofrange[0]); i++)
		add(0, ADJ_FREQUENCY, "valid-adjtimex: ADJ_FREQUENCY %ld ppm (clamped)",
		    outofrange[i])->freq = outofrange[i] << 16;
	add(0, ADJ_FREQUENCY, "valid-adjtimex: ADJ_FREQUENCY LONG_MAX")->freq = LONG_MAX;
	add(0, ADJ_FREQUENCY, "valid-adjtimex: ADJ_FREQUENCY LONG_MIN")->freq = LONG_MIN;
	add(0, ADJ_FREQUENCY, "valid-adjtimex: ADJ_FREQUENCY 0");

	for (n = 0; n < 2; n++) {
		const long long *v = n ? us_off : ns_off;
		long long unit = n ? 1000000 : NSEC;

		for (i = 0; i < 7; i++) {
			struct timex *t = add(F_UNDO_STEP, ADJ_SETOFFSET | (n ? 0 : ADJ_NANO),
					      "valid-adjtimex: ADJ_SETOFFSET%s %lld %s (and back)",
					      n ? "" : "|ADJ_NANO", v[i], n ? "us" : "ns");

			t->time.tv_sec = v[i] / unit;
			t->time.tv_usec = v[i] % unit;
			if (v[i] < 0 && t->time.tv_usec) {
				t->time.tv_sec -= 1;
				t->time.tv_usec += unit;
			}
		}
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct timex *t = add(F_UNDO_STEP, ADJ_SETOFFSET | (bad[i][2] ? ADJ_NANO : 0),
				      "valid-adjtimex: invalid ADJ_SETOFFSET%s {%ld, %ld}",
				      bad[i][2] ? "|ADJ_NANO" : "", bad[i][0], bad[i][1]);

		t->time.tv_sec = bad[i][0];
		t->time.tv_usec = bad[i][1];
	}
}

/* every mode bit alone, and combinations */
static void gen_modes(void)
{
	static const struct {
		unsigned int modes;
		const char *what;
	} combos[] = {
		{ ADJ_ADJTIME, "ADJ_ADJTIME without ADJ_OFFSET" },
		{ ADJ_ADJTIME | ADJ_NANO, "ADJ_ADJTIME|ADJ_OFFSET_READONLY without ADJ_OFFSET" },
		{ ADJ_ADJTIME | ADJ_FREQUENCY, "ADJ_ADJTIME|ADJ_FREQUENCY" },
		{ ADJ_OFFSET_SINGLESHOT | ADJ_FREQUENCY, "ADJ_OFFSET_SINGLESHOT|ADJ_FREQUENCY" },
		{ ADJ_OFFSET_SINGLESHOT | ADJ_TICK, "ADJ_OFFSET_SINGLESHOT|ADJ_TICK (tick 0 not checked)" },
		{ ADJ_OFFSET_SINGLESHOT | ADJ_STATUS | ADJ_MAXERROR,
		  "ADJ_OFFSET_SINGLESHOT|ADJ_STATUS|ADJ_MAXERROR (others ignored)" },
		{ ADJ_OFFSET_SS_READ | ADJ_STATUS, "ADJ_OFFSET_SS_READ|ADJ_STATUS" },
		{ ADJ_MICRO | ADJ_NANO, "ADJ_MICRO|ADJ_NANO (micro wins)" },
		{ ADJ_OFFSET | ADJ_FREQUENCY, "ADJ_OFFSET|ADJ_FREQUENCY" },
		{ ADJ_TAI | ADJ_TIMECONST, "ADJ_TAI|ADJ_TIMECONST (one constant)" },
		{ ADJ_STATUS | ADJ_NANO, "ADJ_STATUS|ADJ_NANO" },
		{ 0x0040 | 0x0200 | 0x0400 | 0x0800, "unknown mode bits 0x0e40" },
		{ 0x7fff0000, "unknown mode bits 0x7fff0000" },
		{ 0x80000000, "mode bit 31" },
		{ 0xffff7fff & ~ADJ_SETOFFSET, "every bit but ADJ_ADJTIME and ADJ_SETOFFSET" },
		{ 0xffffffff & ~ADJ_SETOFFSET, "every bit but ADJ_SETOFFSET (read-only adjtime)" },
		{ 0xffffffff, "every bit (read-only adjtime and a zero ADJ_SETOFFSET)" },
	};
	struct timex *t;
	size_t i;
	int b;

	add_sync(STA_PLL, 0, "modes");
	for (b = 0; b < 32; b++) {
		t = add(0, 1u << b, "mode bit %#x alone, other fields as a read returns them", 1u << b);
		t->tick = 10000;
		t->status = STA_PLL;
		t->constant = 6;
		t->maxerror = 100000;
		t->esterror = 1000;
		if (1u << b == ADJ_SETOFFSET)	/* a zero step clears NTP on the stock clock */
			add_sync(STA_PLL, 0, "after ADJ_SETOFFSET");
	}
	add_sync(STA_PLL, 0, "mode combinations");
	for (i = 0; i < sizeof(combos) / sizeof(combos[0]); i++) {
		t = add(0, combos[i].modes, "modes %#x: %s", combos[i].modes, combos[i].what);
		t->offset = 700;
		t->freq = 3 << 16;
		t->maxerror = 2000;
		t->esterror = 300;
		t->status = STA_PLL;
		t->constant = 3;
		t->tick = 10000;
		add_read(combos[i].what);
	}
	add(0, ADJ_NANO, "ADJ_NANO");
	add(0, ADJ_NANO, "ADJ_NANO again");
	add(0, ADJ_MICRO, "ADJ_MICRO");
	add(0, ADJ_MICRO, "ADJ_MICRO again");
}

static void gen_status(void)
{
	static const struct {
		int status;
		const char *what;
	} st[] = {
		{ 0, "0" }, { STA_UNSYNC, "STA_UNSYNC" }, { STA_PLL, "STA_PLL" },
		{ STA_PLL | STA_UNSYNC, "STA_PLL|STA_UNSYNC" }, { STA_UNSYNC, "PLL off again" },
		{ STA_FLL, "STA_FLL" }, { STA_PLL | STA_FLL, "STA_PLL|STA_FLL" },
		{ STA_PLL | STA_FREQHOLD, "STA_PLL|STA_FREQHOLD" },
		{ STA_PLL | STA_PPSFREQ | STA_PPSTIME, "STA_PLL|STA_PPSFREQ|STA_PPSTIME" },
		{ STA_PLL | STA_PPSSIGNAL, "+ read-only STA_PPSSIGNAL" },
		{ STA_PLL | STA_PPSJITTER, "+ read-only STA_PPSJITTER" },
		{ STA_PLL | STA_PPSWANDER, "+ read-only STA_PPSWANDER" },
		{ STA_PLL | STA_PPSERROR, "+ read-only STA_PPSERROR" },
		{ STA_PLL | STA_CLOCKERR, "+ read-only STA_CLOCKERR" },
		{ STA_PLL | STA_NANO, "+ read-only STA_NANO" },
		{ STA_PLL | STA_MODE, "+ read-only STA_MODE" },
		{ STA_PLL | STA_CLK, "+ read-only STA_CLK" },
		{ 0xffff & ~(STA_INS | STA_DEL), "all 16 bits but INS/DEL" },
		{ (int)0xffff0000, "high 16 bits" },
		{ -1 & ~(STA_INS | STA_DEL), "all bits but INS/DEL" },
		{ INT_MIN, "INT_MIN" },
		{ STA_PLL, "STA_PLL" }, { 0, "PLL off to 0" },
	};
	size_t i;

	add_sync(STA_UNSYNC, 0, "status");
	for (i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
		add(0, ADJ_STATUS, "ADJ_STATUS %s", st[i].what)->status = st[i].status;
		add_read(st[i].what);
	}
	add(0, ADJ_NANO, "STA_NANO by ADJ_NANO");
	add(0, ADJ_STATUS, "ADJ_STATUS 0 keeps STA_NANO");
	add(0, ADJ_MICRO, "STA_NANO off by ADJ_MICRO");
}

/* leap second states: the state machine runs once a second */
static void gen_leap(void)
{
	static const struct {
		int status;
		const char *what;
	} lp[] = {
		{ STA_PLL | STA_INS, "STA_INS" },
		{ STA_PLL | STA_DEL, "STA_DEL" },
		{ STA_PLL | STA_INS | STA_DEL, "STA_INS|STA_DEL" },
	};
	size_t i;

	for (i = 0; i < sizeof(lp) / sizeof(lp[0]); i++) {
		add_sync(STA_PLL, 0, lp[i].what);
		add(0, ADJ_STATUS, "ADJ_STATUS STA_PLL|%s", lp[i].what)->status = lp[i].status;
		add_read("leap flag just set, state not yet advanced");
		add_wait(1, 0, "leap pending");
		add_wait(1, 0, "leap still pending");
		add(0, ADJ_STATUS, "ADJ_STATUS STA_PLL (leap flag cleared)")->status = STA_PLL;
		add_read("leap flag just cleared");
		add_wait(1, 0, "leap cancelled");
		add(0, ADJ_STATUS, "ADJ_STATUS STA_PLL|%s again", lp[i].what)->status = lp[i].status;
		add_wait(1, 0, "leap pending again");
		add(0, ADJ_STATUS, "ADJ_STATUS %s without STA_PLL (PLL off resets the state)",
		    lp[i].what)->status = lp[i].status & ~STA_PLL;
		add_read("after PLL off with a leap flag");
		add_wait(1, 0, "leap flag without PLL");
		/* PLL on, then off: the leap state is TIME_OK again on both */
		add(0, ADJ_STATUS, "ADJ_STATUS STA_PLL")->status = STA_PLL;
		add(0, ADJ_STATUS, "ADJ_STATUS STA_UNSYNC (leap state reset)")->status = STA_UNSYNC;
	}
}

/* what happens over NTP seconds: maxerror, offset decay, single-shot, PLL interval */
static void gen_time_dependent(void)
{
	struct timex *t;
	int i;

	add_sync(STA_PLL, 0, "maxerror growth");
	add(0, ADJ_MAXERROR, "ADJ_MAXERROR 0")->maxerror = 0;
	for (i = 1; i <= 3; i++)
		add_wait(1, 0, "maxerror grows 500 us a second");
	add(0, ADJ_MAXERROR, "ADJ_MAXERROR limit - 600")->maxerror = NTP_PHASE_LIMIT - 600;
	add_wait(1, 0, "maxerror at limit - 100");
	add_wait(1, 0, "maxerror over the limit: clamped, STA_UNSYNC");

	add_sync(STA_PLL, 0, "offset decay us");
	add(0, ADJ_OFFSET, "ADJ_OFFSET 1000 us (constant 2+4)")->offset = 1000;
	for (i = 1; i <= 3; i++)
		add_wait(1, 0, "PLL offset decay, us");
	add_sync(STA_PLL, 1, "offset decay ns");
	add(0, ADJ_TIMECONST | ADJ_NANO, "ADJ_TIMECONST 0 ns")->constant = 0;
	add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET 1234567 ns")->offset = 1234567;
	for (i = 1; i <= 3; i++)
		add_wait(1, 0, "PLL offset decay, ns, constant 0");
	add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET +128 ms ns (constant 0: 32 ms the first second)")
		->offset = 128000000;
	add_wait(1, 0, "one second of a 32 ms/s phase slew");
	add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET -128 ms ns")->offset = -128000000;
	add_wait(1, 0, "one second of a -32 ms/s phase slew");
	add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET 0 ns (stop)");

	add_sync(STA_PLL | STA_FLL, 0, "FLL offset decay");
	add(0, ADJ_OFFSET, "ADJ_OFFSET 2000 us with STA_FLL")->offset = 2000;
	add_wait(1, 0, "FLL offset decay");
	add_wait(1, 0, "FLL offset decay");
	add(0, ADJ_OFFSET, "ADJ_OFFSET 0 (stop)");

	add_sync(STA_UNSYNC, 0, "single-shot decay");
	add(0, ADJ_OFFSET_SINGLESHOT, "ADJ_OFFSET_SINGLESHOT 1200 us")->offset = 1200;
	add(0, ADJ_OFFSET_SS_READ, "ADJ_OFFSET_SS_READ just after");
	for (i = 1; i <= 4; i++)
		add_wait(1, ADJ_OFFSET_SS_READ, "single-shot remainder");
	add(0, ADJ_OFFSET_SINGLESHOT, "ADJ_OFFSET_SINGLESHOT -700 us")->offset = -700;
	for (i = 1; i <= 3; i++)
		add_wait(1, ADJ_OFFSET_SS_READ, "single-shot remainder, negative");
	add(0, ADJ_OFFSET_SINGLESHOT, "ADJ_OFFSET_SINGLESHOT 0 (stop)");

	/* the PLL frequency update over 1 and 2 s */
	add_sync(STA_PLL, 1, "PLL interval");
	add(0, ADJ_TIMECONST | ADJ_NANO, "ADJ_TIMECONST 0 ns")->constant = 0;
	add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET 1 ms ns: sets the reference time")->offset = 1000000;
	t = add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET 10 ms ns, 1 s after");
	t->offset = 10000000;
	cases[ncases - 1].waits = 1;
	t = add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET -7777777 ns, 2 s after");
	t->offset = -7777777;
	cases[ncases - 1].waits = 2;
	add(0, ADJ_STATUS, "STA_FREQHOLD")->status = STA_PLL | STA_FREQHOLD;
	t = add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET 5 ms ns, 1 s after, STA_FREQHOLD");
	t->offset = 5000000;
	cases[ncases - 1].waits = 1;
	add(0, ADJ_STATUS, "STA_PLL")->status = STA_PLL;
	t = add(0, ADJ_OFFSET, "ADJ_OFFSET 321 us, 1 s after, us mode");
	t->offset = 321;
	cases[ncases - 1].waits = 1;
	add(0, ADJ_OFFSET | ADJ_NANO, "ADJ_OFFSET 0 (stop)");
}

/* ADJ_SETOFFSET: clears NTP on the stock clock; long PLL/FLL intervals by stepping */
static void gen_setoffset(void)
{
	static const struct {
		int64_t sec, usec;	/* the 64-bit fields of time (64-bit time_t on i386) */
		unsigned int extra;
		const char *what;
	} so[] = {
		{ 0, 0, 0, "zero step us" },
		{ 0, 0, ADJ_NANO, "zero step ns" },
		{ 0, 999999, 0, "+999999 us" },
		{ 0, 999999999, ADJ_NANO, "+999999999 ns" },
		{ -1, 1, ADJ_NANO, "-999999999 ns" },
		{ 1, 0, ADJ_STATUS, "+1 s with ADJ_STATUS STA_PLL" },
		{ 0, 500, ADJ_OFFSET_SS_READ, "+500 us with ADJ_OFFSET_SS_READ" },
		{ 0, 0, ADJ_OFFSET_SINGLESHOT, "zero step with ADJ_OFFSET_SINGLESHOT 700" },
		{ 0, 0, ADJ_MAXERROR | ADJ_OFFSET, "zero step with ADJ_MAXERROR 2000, ADJ_OFFSET 700" },
		{ INT64_MAX, 0, 0, "LONG_MAX s (invalid result)" },
		{ INT64_MIN, 0, 0, "LONG_MIN s (before boot)" },
		{ -4000000000LL, 0, 0, "-4e9 s (before boot)" },
		{ 9000000000LL, 0, 0, "+9e9 s (beyond the settod limit)" },
		{ 0, INT64_MAX, 0, "usec LONG_MAX" },
		{ 0, INT64_MIN, 0, "usec LONG_MIN" },
		{ 0, INT64_MAX, ADJ_NANO, "nsec LONG_MAX" },
		{ 0, 1000000, ADJ_NANO, "nsec 10^6 (valid in ns)" },
	};
	struct timex *t;
	size_t i;

	for (i = 0; i < sizeof(so) / sizeof(so[0]); i++) {
		add_sync(STA_PLL, 0, "setoffset");
		t = add(0, ADJ_OFFSET | ADJ_MAXERROR, "setoffset prep: offset 5000 us, maxerror 1000");
		t->offset = 5000;
		t->maxerror = 1000;
		add(0, ADJ_OFFSET_SINGLESHOT, "setoffset prep: single-shot 3000 us")->offset = 3000;
		t = add(F_UNDO_STEP, ADJ_SETOFFSET | so[i].extra, "ADJ_SETOFFSET %s (and back)",
			so[i].what);
		t->time.tv_sec = so[i].sec;
		t->time.tv_usec = so[i].usec;
		t->status = STA_PLL;
		t->offset = 700;
		t->maxerror = 2000;
		add_read(so[i].what);
	}

	/* the PLL/FLL interval over steps of whole seconds (kept for the next cases) */
	add_sync(STA_PLL, 0, "long interval");
	add(0, ADJ_OFFSET, "ADJ_OFFSET 1000 us: sets the reference time")->offset = 1000;
	t = add(0, ADJ_SETOFFSET, "ADJ_SETOFFSET +300 s");
	t->time.tv_sec = 300;
	add(0, ADJ_OFFSET, "ADJ_OFFSET 1000 us, 300 s after (PLL, interval clamped)")->offset = 1000;
	t = add(0, ADJ_SETOFFSET, "ADJ_SETOFFSET +3000 s");
	t->time.tv_sec = 3000;
	add(0, ADJ_OFFSET, "ADJ_OFFSET 1000 us, 3000 s after (FLL without STA_FLL)")->offset = 1000;
	add(0, ADJ_STATUS, "STA_PLL|STA_FLL")->status = STA_PLL | STA_FLL;
	add(0, ADJ_OFFSET, "ADJ_OFFSET 1000 us, 0 s after, STA_FLL")->offset = 1000;
	t = add(0, ADJ_SETOFFSET, "ADJ_SETOFFSET +300 s");
	t->time.tv_sec = 300;
	add(0, ADJ_OFFSET, "ADJ_OFFSET 1000 us, 300 s after, STA_FLL")->offset = 1000;
	add(0, ADJ_OFFSET, "ADJ_OFFSET 0, 0 s after, STA_FLL (clears STA_MODE)");
	t = add(0, ADJ_SETOFFSET, "ADJ_SETOFFSET -3610 s (back, and 10 s before)");
	t->time.tv_sec = -3610;
	add(0, ADJ_STATUS, "STA_PLL")->status = STA_PLL;
	add(0, ADJ_OFFSET, "ADJ_OFFSET 1000 us, -10 s after (clock stepped back)")->offset = 1000;
	t = add(0, ADJ_SETOFFSET, "ADJ_SETOFFSET +10 s (restores the clock)");
	t->time.tv_sec = 10;
	add(0, ADJ_OFFSET, "ADJ_OFFSET 0");
}

static void gen_extremes(void)
{
	static const long ext[] = { LONG_MIN, LONG_MAX, -1, 0 };
	char buf[32];
	size_t i;
	int w;

	add_sync(STA_PLL, 0, "extremes");
	for (w = 0; w < 2; w++) {
		for (i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
			unsigned int m = w ? ADJ_OFFSET | ADJ_FREQUENCY | ADJ_MAXERROR | ADJ_ESTERROR |
					     ADJ_STATUS | ADJ_TIMECONST | ADJ_TAI : 0;
			struct timex *t = add(0, m, "%s, every field %s",
					      w ? "all of OFFSET FREQUENCY MAXERROR ESTERROR STATUS TIMECONST TAI" :
					      "read", vname(ext[i], buf, sizeof(buf)));
			t->offset = t->freq = t->maxerror = t->esterror = ext[i];
			t->constant = t->precision = t->tolerance = t->tick = ext[i];
			t->ppsfreq = t->jitter = t->stabil = t->jitcnt = ext[i];
			t->calcnt = t->errcnt = t->stbcnt = ext[i];
			t->status = t->shift = t->tai = (int)ext[i];
			t->time.tv_sec = t->time.tv_usec = ext[i];
			if (w && (ext[i] == LONG_MAX || ext[i] == LONG_MIN))
				/* would be -EINVAL as a whole; see the case after the loop */
				t->freq = ext[i] > 0 ? 1000L * 65536 : -1000L * 65536;
		}
		add_read(w ? "after extremes" : "after extreme reads");
	}
	/* status -1 set STA_INS|STA_DEL: PLL on then off resets the leap state */
	add_sync(STA_UNSYNC, 0, "after extremes");
	/* ADJ_FREQUENCY with LONG_MAX is -EINVAL as a whole */
	add(0, ADJ_FREQUENCY | ADJ_MAXERROR, "ADJ_FREQUENCY LONG_MAX with ADJ_MAXERROR 5 (rejected whole)")
		->freq = LONG_MAX;
	add_read("after a rejected request");
}

static void gen_faults(void)
{
	add_sync(STA_PLL, 0, "faults");
	add(F_NULLPTR, 0, "NULL pointer: EFAULT");
	add(F_BADPTR, 0, "pointer 8: EFAULT");
	add(F_STRADDLE, ADJ_MAXERROR, "timex running into an unmapped page: EFAULT, nothing set");
	add_read("after the straddling request");
	add(F_ROPAGE, 0, "read-only page, read: EFAULT on the way back");
	add(F_ROPAGE, ADJ_MAXERROR, "read-only page, ADJ_MAXERROR 4321: set, then EFAULT");
	add_read("after the read-only page");
}

static void gen_nocap(void)
{
	static const struct {
		unsigned int modes;
		const char *what;
	} nc[] = {
		{ 0, "modes 0 (a free read)" },
		{ ADJ_OFFSET_SS_READ, "ADJ_OFFSET_SS_READ (a free read)" },
		{ ADJ_OFFSET_SINGLESHOT, "ADJ_OFFSET_SINGLESHOT" },
		{ ADJ_ADJTIME, "ADJ_ADJTIME alone (EINVAL before EPERM)" },
		{ ADJ_OFFSET, "ADJ_OFFSET" }, { ADJ_FREQUENCY, "ADJ_FREQUENCY" },
		{ ADJ_MAXERROR, "ADJ_MAXERROR" }, { ADJ_ESTERROR, "ADJ_ESTERROR" },
		{ ADJ_STATUS, "ADJ_STATUS" }, { ADJ_TIMECONST, "ADJ_TIMECONST" },
		{ ADJ_TAI, "ADJ_TAI" }, { ADJ_SETOFFSET, "ADJ_SETOFFSET" },
		{ ADJ_MICRO, "ADJ_MICRO" }, { ADJ_NANO, "ADJ_NANO" }, { ADJ_TICK, "ADJ_TICK 0 (EPERM first)" },
		{ ADJ_OFFSET_SS_READ | ADJ_SETOFFSET, "ADJ_OFFSET_SS_READ|ADJ_SETOFFSET" },
		{ 0x0200, "unknown mode bit 0x200" },
	};
	size_t i;

	add_sync(STA_PLL, 0, "no CAP_SYS_TIME");
	for (i = 0; i < sizeof(nc) / sizeof(nc[0]); i++) {
		struct timex *t = add(F_NOCAP, nc[i].modes, "no CAP_SYS_TIME: %s", nc[i].what);

		t->offset = 5;
		t->freq = 1;
		t->status = STA_PLL;
	}
	add(F_NOCAP, ADJ_FREQUENCY, "no CAP_SYS_TIME: ADJ_FREQUENCY LONG_MAX")->freq = LONG_MAX;
	add(F_NOCAP | F_BADPTR, 0, "no CAP_SYS_TIME: pointer 8");
	add_read("after the unprivileged requests");
}

/* ------------------------------------------------------------------ */
/* Running a case.                                                      */

static void *case_ptr(const struct tcase *c, struct timex *own, int i)
{
	if (c->flags & F_NULLPTR)
		return NULL;
	if (c->flags & F_BADPTR)
		return (void *)8;
	if (c->flags & F_ROPAGE)
		return ro_page;
	if (c->flags & F_STRADDLE)
		return (char *)edge_page - offsetof(struct timex, tick);
	(void)i;
	return own;
}

static void apply(const struct tcase *c, struct pair *p)
{
	int i;

	if (c->flags & F_ROPAGE) {
		mprotect(ro_page, 4096, PROT_READ | PROT_WRITE);
		memcpy(ro_page, &c->tx, sizeof(c->tx));
		mprotect(ro_page, 4096, PROT_READ);
	}
	if (c->flags & F_STRADDLE)
		memcpy((char *)edge_page - offsetof(struct timex, tick), &c->tx,
		       offsetof(struct timex, tick));
	for (i = 0; i < 2; i++) {
		p->tx[i] = c->tx;
		errno = 0;
		p->ret[i] = adj(clk[i], case_ptr(c, &p->tx[i], i));
		p->err[i] = p->ret[i] < 0 ? errno : 0;
	}
}

/* The same case in a child without CAP_SYS_TIME; results come back over a pipe. */
static int apply_nocap(const struct tcase *c, struct pair *p)
{
	int fd[2], st;
	pid_t pid;
	ssize_t n;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		if (drop_cap_sys_time())
			_exit(3);
		apply(c, p);
		_exit(write(fd[1], p, sizeof(*p)) == sizeof(*p) ? 0 : 4);
	}
	close(fd[1]);
	n = read(fd[0], p, sizeof(*p));
	close(fd[0]);
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) || n != sizeof(*p))
		return -1;
	return 0;
}

static int64_t field_val(const struct timex *t, const struct field *f)
{
	const char *p = (const char *)t + f->off;

	if (f->size == sizeof(int64_t))
		return *(const int64_t *)p;
	return f->hex ? (int64_t)*(const unsigned int *)p : (int64_t)*(const int *)p;
}

/* Whether the kernel is a 32-bit one (uname -m i386 .. i686). */
static int kernel_32bit(void)
{
	static int k = -1;
	struct utsname u;

	if (k < 0)
		k = !uname(&u) && u.machine[0] == 'i' && !strcmp(u.machine + 2, "86");
	return k;
}

/*
 * A freq whose scaled value does not fit in 64 bits. A 64-bit stock
 * kernel refuses it with EINVAL, and the tod clock matches that. A 32-bit
 * stock kernel does not check it (timekeeping_validate_timex() checks on
 * 64-bit kernels only) and wraps freq * PPM_SCALE. The tod clock refuses
 * it there too, as on 64-bit: what is checked; stock's reply is shown.
 */
static int freq_range(const char *what, const struct pair *p)
{
	if (p->ret[1] == -1 && p->err[1] == EINVAL) {
		ksft_print_msg("%s: 32-bit stock took it (ret %d, freq %lld after its overflow); tod refused it with EINVAL, as 64-bit stock does\n",
			       what, p->ret[0], (long long)p->tx[0].freq);
		return 0;
	}
	ksft_print_msg("MISMATCH %s: tod returned %d (%s), not EINVAL as a 64-bit stock kernel does\n",
		       what, p->ret[1], p->err[1] ? strerror(p->err[1]) : "-");
	return 1;
}

/* After freq_range(): stock's freq back to the tod clock's, which refused the value. */
static void freq_align(void)
{
	struct timex t = { .modes = 0 };

	if (adj(clk[1], &t) < 0)
		return;
	t = (struct timex){ .modes = ADJ_FREQUENCY, .freq = t.freq };
	adj(clk[0], &t);
}

/* Compare; print every difference. Returns the number of differences. */
static int compare(const char *what, const struct pair *p, int wrote_back)
{
	struct timex a = p->tx[0], b = p->tx[1];
	int bad = 0, nano;
	size_t i;

	if (p->ret[0] != p->ret[1] || p->err[0] != p->err[1]) {
		ksft_print_msg("MISMATCH %s: return: stock %d (%s), tod %d (%s)\n", what,
			       p->ret[0], p->err[0] ? strerror(p->err[0]) : "-",
			       p->ret[1], p->err[1] ? strerror(p->err[1]) : "-");
		bad++;
	}
	if (!wrote_back)
		return bad;
	for (i = 0; i < sizeof(FIELDS) / sizeof(FIELDS[0]); i++) {
		const struct field *f = &FIELDS[i];
		int64_t va = field_val(&a, f), vb = field_val(&b, f);

		if (va == vb)
			continue;
		if (f->hex)
			ksft_print_msg("MISMATCH %s: field %s: stock %#" PRIx64 ", tod %#" PRIx64 "\n",
				       what, f->name, va, vb);
		else
			ksft_print_msg("MISMATCH %s: field %s: stock %" PRId64 ", tod %" PRId64 " (tod - stock %+" PRId64 ")\n",
				       what, f->name, va, vb, vb - va);
		bad++;
	}
	/* everything else but time: the padding is copied back as it went in */
	for (i = 0; i < sizeof(FIELDS) / sizeof(FIELDS[0]); i++) {
		memset((char *)&a + FIELDS[i].off, 0, FIELDS[i].size);
		memset((char *)&b + FIELDS[i].off, 0, FIELDS[i].size);
	}
	memset(&a.time, 0, sizeof(a.time));
	memset(&b.time, 0, sizeof(b.time));
	if (memcmp(&a, &b, sizeof(a))) {
		ksft_print_msg("MISMATCH %s: padding bytes differ\n", what);
		bad++;
	}
	/* time: excluded, but in the same units and close */
	if (p->ret[0] >= 0 && p->ret[1] >= 0) {
		int64_t ta, tb;

		nano = p->tx[0].status & STA_NANO;
		ta = p->tx[0].time.tv_sec * NSEC + p->tx[0].time.tv_usec * (nano ? 1 : 1000);
		tb = p->tx[1].time.tv_sec * NSEC + p->tx[1].time.tv_usec * (nano ? 1 : 1000);
		if (llabs(tb - ta - time_off) > time_worst)
			time_worst = llabs(tb - ta - time_off);
		if (p->tx[1].time.tv_usec < 0 || p->tx[1].time.tv_usec >= (nano ? NSEC : 1000000) ||
		    llabs(tb - ta - time_off) > TIME_LIMIT_NS) {
			ksft_print_msg("MISMATCH %s: field time (sanity): stock {%lld, %lld}, tod {%lld, %lld}: tod - stock %+lld ns, %+lld from before the first case (limit %lld)\n",
				       what, (long long)p->tx[0].time.tv_sec,
				       (long long)p->tx[0].time.tv_usec,
				       (long long)p->tx[1].time.tv_sec,
				       (long long)p->tx[1].time.tv_usec, (long long)(tb - ta),
				       (long long)(tb - ta - time_off), TIME_LIMIT_NS);
			bad++;
		}
	}
	return bad;
}

/* Undo a successful ADJ_SETOFFSET on the clocks where it succeeded. */
static int undo_step(const struct tcase *c, const struct pair *p, const char *name)
{
	long unit = c->tx.modes & ADJ_NANO ? NSEC : 1000000;
	struct pair q;
	char what[240];
	int i;

	for (i = 0; i < 2; i++) {
		q.tx[i] = (struct timex){ .modes = ADJ_SETOFFSET | (c->tx.modes & ADJ_NANO) };
		q.tx[i].time.tv_sec = -c->tx.time.tv_sec - (c->tx.time.tv_usec ? 1 : 0);
		q.tx[i].time.tv_usec = c->tx.time.tv_usec ? unit - c->tx.time.tv_usec : 0;
		if (p->ret[i] < 0) {
			q.ret[i] = -2;	/* nothing to undo */
			q.err[i] = 0;
			continue;
		}
		errno = 0;
		q.ret[i] = adj(clk[i], &q.tx[i]);
		q.err[i] = q.ret[i] < 0 ? errno : 0;
		if (q.ret[i] < 0)
			ksft_print_msg("%s: cannot undo the step on the %s clock: %s\n", name,
				       clk_name[i], strerror(q.err[i]));
	}
	if (q.ret[0] == -2 || q.ret[1] == -2)
		return 0;	/* one clock did not step: already reported */
	snprintf(what, sizeof(what), "%.200s [undo]", name);
	return compare(what, &q, 1);
}

static void undo_tick(const struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct timex t = { .modes = ADJ_TICK, .tick = 10000 };

		if (p->ret[i] >= 0)
			adj(clk[i], &t);
	}
}

/* Record persistent whole-second steps, so the second counts stay comparable. */
static void note_step(const struct tcase *c, const struct pair *p)
{
	int i;

	if (!(c->tx.modes & ADJ_SETOFFSET) || (c->flags & F_UNDO_STEP))
		return;
	for (i = 0; i < 2; i++)
		if (p->ret[i] >= 0)
			stepped[i] += c->tx.time.tv_sec * NSEC;
	if (stepped[0] != stepped[1])
		ksft_exit_fail_msg("%s: the clocks stepped apart (stock %+lld s, tod %+lld s); giving up\n",
				   c->name, (long long)stepped[0] / NSEC, (long long)stepped[1] / NSEC);
}

static void run_case(int n, const struct tcase *c)
{
	struct pair p;
	int64_t need;
	int bad = 0, back;
	char what[sizeof(c->name) + 32];

	snprintf(what, sizeof(what), "case %d '%.112s'", n, c->name);
	need = c->flags & F_NOCAP ? NEED_FORK_NS : NEED_NS;
	if (gate(need, c->waits)) {
		/* the seconds drifted apart (a large slew): later cases may differ by a second */
		ksft_print_msg("%s: no instant in the planned arc; planned again (%lld ms)\n", what,
			       (long long)plan_arc() / 1000000);
	}
	if (gate(need, c->waits)) {
		ksft_test_result_error("%s: no instant in the planned arc of the second\n", c->name);
		return;
	}
	memset(&p, 0, sizeof(p));
	if (c->flags & F_NOCAP) {
		if (apply_nocap(c, &p)) {
			ksft_test_result_error("%s: the unprivileged child failed\n", c->name);
			return;
		}
	} else {
		apply(c, &p);
	}
	if (c->flags & F_UNDO_TICK)
		undo_tick(&p);
	if (selfcheck && n == 1)
		p.tx[1].tolerance++;	/* a deliberately wrong tod reply */
	back = !(c->flags & (F_NULLPTR | F_BADPTR | F_ROPAGE | F_STRADDLE));
	if ((c->flags & F_FREQ_RANGE) && kernel_32bit()) {
		bad += freq_range(what, &p);
		freq_align();
	} else
		bad += compare(what, &p, back);
	if ((c->flags & F_UNDO_STEP) && (p.ret[0] >= 0 || p.ret[1] >= 0))
		bad += undo_step(c, &p, what);
	note_step(c, &p);
	ksft_test_result(!bad, "%s: returns %d/%d%s\n", c->name, p.ret[0], p.ret[1],
			 bad ? ", differs" : "");
}

/* ------------------------------------------------------------------ */

static void gen_all(void)
{
	gen_valid_adjtimex();
	gen_table();
	gen_modes();
	gen_status();
	gen_leap();
	gen_time_dependent();
	gen_setoffset();
	gen_extremes();
	gen_faults();
	gen_nocap();
	add_sync(STA_UNSYNC, 0, "end");
}

/* Put one clock into the known state (not compared: leftovers may differ). */
static void reset_clock(clockid_t c, long tai)
{
	struct timex t[] = {
		{ .modes = ADJ_OFFSET_SINGLESHOT },
		{ .modes = ADJ_STATUS, .status = STA_PLL },
		{ .modes = ADJ_STATUS | ADJ_NANO | ADJ_FREQUENCY | ADJ_MAXERROR | ADJ_ESTERROR |
			   ADJ_TIMECONST | ADJ_OFFSET | ADJ_TICK,
		  .status = STA_PLL, .maxerror = NTP_PHASE_LIMIT, .esterror = NTP_PHASE_LIMIT,
		  .constant = 2, .tick = 10000 },
		{ .modes = ADJ_TAI, .constant = tai },
		{ .modes = ADJ_STATUS | ADJ_MICRO, .status = STA_UNSYNC },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (adj(c, &t[i]) < 0)
			ksft_print_msg("reset %s: step %zu: %s\n", c ? "tod" : "stock", i, strerror(errno));
}

/* Leap seconds take effect at UTC midnight: keep well away from it. */
static void avoid_midnight(void)
{
	time_t now = time(NULL);
	long left = 86400 - now % 86400;

	if (left < 240) {
		ksft_print_msg("%ld s to UTC midnight: waiting until it has passed\n", left);
		sleep(left + 2);
	}
}

static void *map_pages(void)
{
	char *m = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	return m;
}

/* the N of --first N, --selfcheck N: a number of cases >= 1, else exit 2 */
static int cases_arg(const char *opt, const char *arg)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(arg, &end, 10);
	if (errno || *end || end == arg || n < 1 || n > INT_MAX) {
		fprintf(stderr, "tod_adjtimex: %s wants a number of cases >= 1, not '%s'\n", opt, arg);
		exit(2);
	}
	return n;
}

/* --selfcheck: see the comment at the top. */
static void run_selfcheck(const char *ncases_arg)
{
	int fd[2], st, first = 0, bad = 0, good = 0, plan = -1;
	char line[512];
	FILE *f;
	pid_t pid;

	ksft_print_header();
	ksft_set_plan(3);
	if (pipe(fd))
		ksft_exit_fail_msg("pipe: %s\n", strerror(errno));
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid == 0) {
		/* dies with this process: a timeout must not leave it adjusting clocks */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(126);
		dup2(fd[1], STDOUT_FILENO);
		dup2(fd[1], STDERR_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl("/proc/self/exe", "tod_adjtimex", "--corrupt-first", ncases_arg, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	if (!f)
		ksft_exit_fail_msg("fdopen: %s\n", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (plan < 0 && sscanf(line, "1..%d", &plan) == 1)
			continue;
		if (!strncmp(line, "not ok ", 7)) {
			first |= !strncmp(line, "not ok 1 ", 9);
			bad++;
			ksft_print_msg("corrupted run: %s", line);
		} else if (!strncmp(line, "ok ", 3)) {
			good++;
		}
	}
	fclose(f);
	if (waitpid(pid, &st, 0) != pid)
		ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
	ksft_test_result(first, "the corrupted tod reply of case 1 fails case 1\n");
	ksft_test_result(bad == first && good + bad == plan,
			 "and only it: %d other cases pass, %d fail, of the %d planned\n", good, bad - first,
			 plan);
	ksft_test_result(WIFEXITED(st) && WEXITSTATUS(st) == 1,
			 "the corrupted run exits 1 (%s %d)\n", WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	ksft_finished();
}

int main(int argc, char **argv)
{
	struct timex tai[2] = { { .modes = 0 }, { .modes = 0 } };
	int64_t arc;
	char *m;
	int i, first = -1;

	if (argc > 1 && !strcmp(argv[1], "--selfcheck"))
		run_selfcheck(argc > 2 && cases_arg(argv[1], argv[2]) ? argv[2] : NULL);
	selfcheck = argc > 1 && !strcmp(argv[1], "--corrupt-first");
	if (argc > 1 && !strcmp(argv[1], "--list")) {
		gen_all();
		for (i = 0; i < ncases; i++)
			printf("%d %s\n", i + 1, cases[i].name);
		return 0;
	}
	if (argc > 2 && (!strcmp(argv[1], "--first") || selfcheck)) {
		first = cases_arg(argv[1], argv[2]);
	} else if (argc > 1 && strcmp(argv[1], "--corrupt-first")) {
		fprintf(stderr, "usage: tod_adjtimex [--first N | --selfcheck [N] | --list]\n");
		return 2;
	}
	ksft_print_header();
	if (adj(CLOCK_TOD_REALTIME, &tai[1]) < 0)
		ksft_exit_skip("clock_adjtime(CLOCK_TOD_REALTIME): %s\n", strerror(errno));
	adj(CLOCK_REALTIME, &tai[0]);

	m = map_pages();	/* one read-only page */
	ro_page = m;
	m = map_pages();	/* a page followed by an unmapped one */
	munmap(m + 4096, 4096);
	edge_page = m + 4096;

	gen_all();
	if (first > 0 && first < ncases)
		ncases = first;

	ksft_print_msg("%d cases, each on CLOCK_REALTIME then CLOCK_TOD_REALTIME; pass: same return, errno and struct timex\n",
		       ncases);
	for (i = 0; i < (int)(sizeof(EXCLUDED) / sizeof(EXCLUDED[0])); i++)
		ksft_print_msg("excluded field %s: %s\n", EXCLUDED[i].field, EXCLUDED[i].why);
	ksft_print_msg("no tolerance on time-dependent fields: cases run in one arc of the second, so both NTP machines have run the same seconds\n");

	avoid_midnight();
	reset_clock(CLOCK_REALTIME, tai[0].tai);
	reset_clock(CLOCK_TOD_REALTIME, tai[1].tai);
	{
		int64_t mid, tod;

		bracket(CLOCK_REALTIME, CLOCK_TOD_REALTIME, &mid, &tod);
		time_off = tod - mid;
		ksft_print_msg("CLOCK_TOD_REALTIME - CLOCK_REALTIME before the first case: %+lld ns\n",
			       (long long)time_off);
	}
	arc = plan_arc();
	ksft_print_msg("arc of the second clear of all boundaries: %lld ms\n", (long long)arc / 1000000);
	if (arc < NEED_FORK_NS + 20000000)
		ksft_exit_fail_msg("the stock and tod wall seconds leave no arc of %lld ms\n",
				   (long long)(NEED_FORK_NS + 20000000) / 1000000);

	ksft_set_plan(ncases);
	for (i = 0; i < ncases; i++)
		run_case(i + 1, &cases[i]);

	reset_clock(CLOCK_REALTIME, tai[0].tai);
	reset_clock(CLOCK_TOD_REALTIME, tai[1].tai);
	ksft_print_msg("field time: tod - stock at most %lld ns from their offset before the first case (limit %lld)\n",
		       (long long)time_worst, TIME_LIMIT_NS);
	ksft_finished();
}
