// SPDX-License-Identifier: GPL-2.0
/*
 * tod_leap: a leap second on CLOCK_TOD_REALTIME, side by side with the
 * stock CLOCK_REALTIME.
 *
 *   tod_leap ins|del
 *   tod_leap hold-ins|hold-del
 *
 * Both clocks are set to 10 s before the next UTC midnight (the same
 * instant, back to back), given the same NTP state (synchronised,
 * maxerror 0, tai 37, TIME_OK) and then STA_INS (or STA_DEL). The program
 * samples through the leap, interleaving the tod clock through its vDSO
 * entry and the system call, the stock clock through its vDSO entry and
 * the system call, CLOCK_TOD_MONOTONIC through both, and every 50 ms
 * clock_adjtime(modes 0) of both clocks (return value and tai).
 *
 * Rules, for the stock clock and for the tod clock:
 *  - exactly one jump of more than 0.5 s in the interleaved readings: a
 *    step back of 1 s (ins) or a skip forward of 1 s (del), measured
 *    against CLOCK_MONOTONIC_RAW to 100 us;
 *  - the step happens within 10 ms for tod, 25 ms for stock (the first
 *    tick at HZ=250 is 4 ms later; see TOD_GRACE) after the nominal
 *    instant L: midnight for an insertion (the clock then reads 23:59:59
 *    again), 23:59:59 for a deletion (the clock then reads midnight). Readings are mapped to a continuous timeline C
 *    (post-step readings minus the step; once one reading has stepped,
 *    every later one must have), and C(last pre-step) < L + grace and
 *    C(first post-step) >= L;
 *  - in that mapping the interleaved vDSO and syscall readings never go
 *    back: both paths show the step at the same instant;
 *  - clock_adjtime returns TIME_INS (TIME_DEL) before L, TIME_OOP during
 *    the inserted second, TIME_WAIT after (the same grace after each edge),
 *    with tai 37 before and 38 (36) after;
 * and:
 *  - CLOCK_TOD_MONOTONIC never steps: every increment is >= 0 and at most
 *    the CLOCK_MONOTONIC_RAW time that brackets it plus 1 ms;
 *  - tod and stock: the same sequence of states, the same step (within
 *    100 us), step instants within 25 ms of each other;
 *  - afterwards both clocks are back at the real time (saved
 *    CLOCK_REALTIME + elapsed CLOCK_MONOTONIC_RAW), STA_INS/STA_DEL clear,
 *    tai as before.
 *
 * hold-ins, hold-del: the same leap, but the tod core makes no accumulation
 * from 2 s before the leap instant to 8 s after it (the test hook
 * /sys/kernel/debug/newtod_hold_accumulation; NEWTOD_KUNIT_TEST and
 * DEBUG_FS), as when a vCPU does not run or the tick stops too long. The
 * first accumulation after the gap crosses the leap instant. Rules: the tod
 * clock applied the leap exactly once (one "inserted"/"deleted leap
 * second" line of the core in the kernel log, tai 38/36, CLOCK_TOD_REALTIME
 * within 5 ms of CLOCK_REALTIME, which applied it on time) and ends in
 * TIME_WAIT, as the stock clock does.
 *
 * It sets both wall clocks: run it only in the guest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "tod.h"
#include "todtest.h"

#define NSEC		1000000000LL
#define MSEC		1000000LL
#define USEC		1000LL
/*
 * How late the step and the state edges may come after their instant. The
 * tod core applies the leap at its first accumulation past L, at the next
 * tick (4 ms at HZ=250): measured at L + 1.1 to 4.6 ms in every boot under
 * TCG, so 10 ms is twice the worst. The stock clock is the reference, not
 * what is tested; its step has come as late as L + 12 ms under TCG.
 */
#define TOD_GRACE	(10 * MSEC)
#define STOCK_GRACE	(25 * MSEC)
#define POLL_EVERY	(50 * MSEC)
#define TAI0		37
#define CTX		5		/* readings printed each side of the step */
#define MAXPOLL		1024

static cgt_fn v_tod;	/* __vdso_tod_clock_gettime */
static cgt_fn v_stock;	/* stock __vdso_clock_gettime */

enum { K_VDSO, K_SYS, K_POLL };
static const char *const kind_name[] = { "vdso", "sys ", "poll" };

static int64_t vdso_read(cgt_fn fn, clockid_t c)
{
	struct timespec ts;

	return fn(c, &ts) ? -1 : ts_ns(&ts);
}

static const char *state_name(int s)
{
	static const char *const n[] = { "OK", "INS", "DEL", "OOP", "WAIT", "ERROR" };

	return s >= 0 && s <= 5 ? n[s] : "?";
}

/* HH:MM:SS.nnnnnnnnn of a wall time in ns, UTC */
static const char *hms(int64_t ns, char *buf, size_t len)
{
	int64_t s = ns / NSEC, d = s % 86400;

	snprintf(buf, len, "%02d:%02d:%02d.%09d", (int)(d / 3600), (int)(d / 60 % 60),
		 (int)(d % 60), (int)(ns % NSEC));
	return buf;
}

/*
 * One reading of a wall clock: value, its mapping to C, path, and the
 * CLOCK_MONOTONIC_RAW readings just before and just after it.
 */
struct rd {
	int64_t v, c, lo, hi;
	int kind;
};

struct poll {
	int64_t c;
	int state, tai;
};

/* The interleaved vDSO + syscall readings of one wall clock, checked online. */
struct group {
	const char *name;
	clockid_t id;
	int64_t L;		/* nominal step instant, as read before the step */
	int dir;		/* the step in s: -1 insert, +1 delete */
	int64_t n;
	struct rd prev;
	int stepped;
	int jumps;		/* |increment| > 0.5 s */
	int64_t viol;		/* C went back */
	struct rd viol_a, viol_b;
	int64_t max_gap;	/* largest C increment */
	struct rd a, b;		/* last pre-step and first post-step readings */
	struct rd ring[CTX];
	int64_t rn;
	struct rd before[CTX], after[CTX];
	int nbefore, nafter;
	struct poll poll[MAXPOLL];
	int npoll;
	int tai_start;
	int64_t grace;		/* TOD_GRACE or STOCK_GRACE */
};

static void feed(struct group *g, int kind, int64_t v, int64_t lo, int64_t hi)
{
	struct rd x = { .v = v, .c = v, .lo = lo, .hi = hi, .kind = kind };
	int64_t d = v - g->prev.v, j;

	if (g->n && llabs(d) > NSEC / 2) {
		g->jumps++;
		if (!g->stepped && (d > 0) == (g->dir > 0)) {
			g->stepped = 1;
			g->a = g->prev;
			for (j = g->rn > CTX ? g->rn - CTX : 0; j < g->rn; j++)
				g->before[g->nbefore++] = g->ring[j % CTX];
		}
	}
	if (g->stepped)
		x.c = v - (int64_t)g->dir * NSEC;
	if (g->stepped && !g->nafter)
		g->b = x;
	if (g->n) {
		int64_t dc = x.c - g->prev.c;

		if (dc < 0 && !g->viol++) {
			g->viol_a = g->prev;
			g->viol_b = x;
		}
		if (dc > g->max_gap)
			g->max_gap = dc;
	}
	if (g->stepped && g->nafter < CTX)
		g->after[g->nafter++] = x;
	g->ring[g->rn++ % CTX] = x;
	g->prev = x;
	g->n++;
}

/* A syscall reading fed to the group, then clock_adjtime(modes 0). */
static void poll_one(struct group *g)
{
	struct timex tx = { .modes = 0 };
	int64_t lo = raw_ns(), v = ns_of(g->id), hi = raw_ns();
	int ret;

	feed(g, K_POLL, v, lo, hi);
	ret = adj(g->id, &tx);
	if (g->npoll < MAXPOLL)
		g->poll[g->npoll++] = (struct poll){ .c = g->prev.c, .state = ret, .tai = tx.tai };
}

/* Bit mask of the states allowed at C = c. */
static unsigned int allowed(const struct group *g, int64_t c)
{
	if (g->dir < 0) {
		if (c < g->L)
			return 1u << TIME_INS;
		if (c < g->L + g->grace)
			return 1u << TIME_INS | 1u << TIME_OOP;
		if (c < g->L + NSEC)
			return 1u << TIME_OOP;
		if (c < g->L + NSEC + g->grace)
			return 1u << TIME_OOP | 1u << TIME_WAIT;
		return 1u << TIME_WAIT;
	}
	if (c < g->L)
		return 1u << TIME_DEL;
	if (c < g->L + g->grace)
		return 1u << TIME_DEL | 1u << TIME_WAIT;
	return 1u << TIME_WAIT;
}

/* The distinct states in poll order, e.g. "INS>OOP>WAIT". */
static void sequence(const struct group *g, char *buf, size_t len)
{
	int i, last = -100;
	size_t o = 0;

	buf[0] = 0;
	for (i = 0; i < g->npoll && o < len; i++) {
		if (g->poll[i].state == last)
			continue;
		last = g->poll[i].state;
		o += snprintf(buf + o, len - o, "%s%s", o ? ">" : "", state_name(last));
	}
}

static void print_context(const struct group *g)
{
	char t[32];
	int i;

	ksft_print_msg("%s readings around the step (C = reading %s 1 s after it; L = %s):\n",
		       g->name, g->dir < 0 ? "+" : "-", hms(g->L, t, sizeof(t)));
	for (i = 0; i < g->nbefore; i++)
		ksft_print_msg("  %s %s %s  C-L %+10.3f ms\n", g->name, kind_name[g->before[i].kind],
			       hms(g->before[i].v, t, sizeof(t)),
			       (double)(g->before[i].c - g->L) / MSEC);
	ksft_print_msg("  ---- step ----\n");
	for (i = 0; i < g->nafter; i++)
		ksft_print_msg("  %s %s %s  C-L %+10.3f ms\n", g->name, kind_name[g->after[i].kind],
			       hms(g->after[i].v, t, sizeof(t)),
			       (double)(g->after[i].c - g->L) / MSEC);
}

/* The narrowest raw bracket of n readings. */
static const struct rd *narrowest(const struct rd *r, int n)
{
	const struct rd *best = r;
	int i;

	for (i = 1; i < n; i++)
		if (r[i].hi - r[i].lo < best->hi - best->lo)
			best = &r[i];
	return best;
}

/*
 * The step: the clock's offset from CLOCK_MONOTONIC_RAW after it minus the
 * offset before, each from the reading with the narrowest raw bracket
 * among the CTX on its side (a tick, or the console printing the leap
 * notice, can stall any one reading for milliseconds). *unc: the
 * uncertainty, half the two brackets.
 */
static int64_t step_ns(const struct group *g, int64_t *unc)
{
	const struct rd *a = narrowest(g->before, g->nbefore), *b = narrowest(g->after, g->nafter);

	if (!g->nbefore || !g->nafter) {
		*unc = 0;
		return 0;
	}
	*unc = (a->hi - a->lo + b->hi - b->lo) / 2;
	return (b->v - (b->lo + b->hi) / 2) - (a->v - (a->lo + a->hi) / 2);
}

static void report_group(struct group *g)
{
	int64_t want = (int64_t)g->dir * NSEC, unc, s = step_ns(g, &unc);
	int bad = 0, first = -1, i, tai_bad = 0;
	char seq[64], ta[32], tb[32];

	ksft_test_result(g->stepped && g->jumps == 1 && llabs(s - want) <= 100000,
			 "%s: exactly one jump > 0.5 s in %" PRId64 " readings, a %+d s step (jumps %d, step measured %+.9f s +- %.3f us against CLOCK_MONOTONIC_RAW, limit 100 us)\n",
			 g->name, g->n, g->dir, g->jumps, (double)s / NSEC, (double)unc / 1000);
	ksft_test_result(g->stepped && g->b.c >= g->L && g->a.c < g->L + g->grace,
			 "%s: step at L + %.3f ms (first reading after it; last before it at L %+.3f ms), limit [0, %lld ms)\n",
			 g->name, (double)(g->b.c - g->L) / MSEC, (double)(g->a.c - g->L) / MSEC,
			 (long long)(g->grace / MSEC));
	if (g->viol)
		ksft_print_msg("%s: first inversion: %s %s (C-L %+.6f ms) then %s %s (C-L %+.6f ms)\n",
			       g->name, kind_name[g->viol_a.kind], hms(g->viol_a.v, ta, sizeof(ta)),
			       (double)(g->viol_a.c - g->L) / MSEC, kind_name[g->viol_b.kind],
			       hms(g->viol_b.v, tb, sizeof(tb)), (double)(g->viol_b.c - g->L) / MSEC);
	ksft_test_result(g->stepped && !g->viol,
			 "%s: vDSO and syscall readings mapped past the step never go back (%" PRId64 " inversions; largest gap %.3f ms)\n",
			 g->name, g->viol, (double)g->max_gap / MSEC);

	for (i = 0; i < g->npoll; i++) {
		int s2 = g->poll[i].state;
		int tai_want = TAI0 - ((s2 == TIME_OOP || s2 == TIME_WAIT) ? g->dir : 0);

		if (!(allowed(g, g->poll[i].c) & (1u << (s2 >= 0 && s2 < 31 ? s2 : 31)))) {
			bad++;
			if (first < 0)
				first = i;
		}
		if (g->poll[i].tai != tai_want)
			tai_bad++;
	}
	sequence(g, seq, sizeof(seq));
	if (first >= 0)
		ksft_print_msg("%s: first unexpected state %s at C-L %+.3f ms\n", g->name,
			       state_name(g->poll[first].state), (double)(g->poll[first].c - g->L) / MSEC);
	ksft_test_result(g->npoll > 100 && !bad && !strcmp(seq, g->dir < 0 ? "INS>OOP>WAIT" : "DEL>WAIT"),
			 "%s: clock_adjtime states at %d polls as the rule (%s before L, %sWAIT after): sequence %s, %d off\n",
			 g->name, g->npoll, g->dir < 0 ? "INS" : "DEL",
			 g->dir < 0 ? "OOP in the inserted second, " : "", seq, bad);
	ksft_test_result(g->npoll && !tai_bad && g->poll[g->npoll - 1].tai == TAI0 - g->dir,
			 "%s: tai %d -> %d (expected %d -> %d; %d polls off)\n", g->name,
			 g->npoll ? g->poll[0].tai : -1, g->npoll ? g->poll[g->npoll - 1].tai : -1,
			 TAI0, TAI0 - g->dir, tai_bad);
}

/* Reset the state machine of clock c to TIME_OK (STA_PLL on, then off), set status. */
static int arm(clockid_t c, int status)
{
	struct timex tx = { .modes = ADJ_STATUS, .status = STA_PLL };

	if (adj(c, &tx) < 0)
		return -errno;
	tx = (struct timex){ .modes = ADJ_STATUS | ADJ_MAXERROR | ADJ_ESTERROR | ADJ_TAI,
			     .status = status, .maxerror = 0, .esterror = 0, .constant = TAI0 };
	return adj(c, &tx) < 0 ? -errno : 0;
}

static int state_of(clockid_t c)
{
	struct timex tx = { .modes = 0 };

	return adj(c, &tx);
}

/* What the clocks were at the start, to put them back at the end. */
static struct {
	int64_t real_raw, real, tod_raw, tod;	/* each reading at its raw midpoint */
	int tai_stock, tai_tod;
} saved;

static void save_clocks(void)
{
	struct timex tx = { .modes = 0 };

	adj(CLOCK_REALTIME, &tx);
	saved.tai_stock = tx.tai;
	tx = (struct timex){ .modes = 0 };
	adj(CLOCK_TOD_REALTIME, &tx);
	saved.tai_tod = tx.tai;
	bracket(CLOCK_MONOTONIC_RAW, CLOCK_REALTIME, &saved.real_raw, &saved.real);
	bracket(CLOCK_MONOTONIC_RAW, CLOCK_TOD_REALTIME, &saved.tod_raw, &saved.tod);
}

/* Both wall clocks to t, back to back (the tod one the time between later). */
static void set_both(int64_t t)
{
	struct timespec ts = ns_ts(t);
	int64_t r = raw_ns(), r1;

	if (syscall(TOD_SYS_clock_settime, CLOCK_REALTIME, &ts))
		ksft_exit_fail_msg("clock_settime(CLOCK_REALTIME): %s\n", strerror(errno));
	r1 = raw_ns();
	ts = ns_ts(t + (r1 - r));
	if (syscall(TOD_SYS_clock_settime, CLOCK_TOD_REALTIME, &ts))
		ksft_print_msg("clock_settime(CLOCK_TOD_REALTIME): %s\n", strerror(errno));
}

/* Arm both clocks with sta; wait until both report want. Returns ms waited or -1. */
static int arm_both(int sta, int want)
{
	int waited;

	if (arm(CLOCK_REALTIME, sta) || arm(CLOCK_TOD_REALTIME, sta))
		ksft_print_msg("clock_adjtime ADJ_STATUS: %s\n", strerror(errno));
	/* TIME_OK -> TIME_INS/DEL at the next second (stock) or tick (tod) */
	for (waited = 0; waited < 300; waited++) {
		if (state_of(CLOCK_REALTIME) == want && state_of(CLOCK_TOD_REALTIME) == want)
			return waited * 10;
		usleep(10000);
	}
	return -1;
}

/*
 * Set c to what it read at raw time then_raw plus the raw time since: 0 or
 * -errno. *win: the raw time the call took; the clock lands between 0 and
 * *win behind. A call the host stalls for more than SET_WIN is made again
 * (up to 5 times), so that a set that is slow every time shows as a failure.
 */
#define SET_WIN MSEC
static int set_back(clockid_t c, int64_t then_raw, int64_t then, int64_t *win)
{
	int tries = 0;

	do {
		int64_t r0 = raw_ns();
		struct timespec ts = ns_ts(then + (r0 - then_raw));

		if (syscall(TOD_SYS_clock_settime, c, &ts)) {
			int e = errno;

			ksft_print_msg("clock_settime(%d): %s\n", (int)c, strerror(e));
			return -e;
		}
		*win = raw_ns() - r0;
	} while (*win > SET_WIN && ++tries < 5);
	return 0;
}

/* c's offset now from what it read at raw time then_raw plus the raw time since. */
static int64_t off_from(clockid_t c, int64_t then_raw, int64_t then)
{
	int64_t r, v;

	bracket(CLOCK_MONOTONIC_RAW, c, &r, &v);
	return v - (then + (r - then_raw));
}

/*
 * Real time back on both clocks (saved + elapsed raw), state TIME_OK
 * (STA_PLL on, then off), STA_INS/STA_DEL clear, tai as before; checked:
 * each clock between its set call's duration behind and RESTORE_SLOP
 * ahead of the saved time (the slop covers the narrowest raw brackets of
 * the two readings and the few ppm stock's NTP rate may differ from raw).
 */
#define RESTORE_SLOP (200 * USEC)
static void restore_clocks(void)
{
	struct timex a = { .modes = 0 }, b = { .modes = 0 }, tx;
	int64_t win_stock = 0, win_tod = 0, off_stock, off_tod;
	int i, err;

	err = set_back(CLOCK_REALTIME, saved.real_raw, saved.real, &win_stock);
	err = set_back(CLOCK_TOD_REALTIME, saved.tod_raw, saved.tod, &win_tod) ?: err;
	for (i = 0; i < 2; i++) {
		clockid_t c = i ? CLOCK_TOD_REALTIME : CLOCK_REALTIME;

		tx = (struct timex){ .modes = ADJ_STATUS, .status = STA_PLL };
		adj(c, &tx);
		tx = (struct timex){ .modes = ADJ_STATUS | ADJ_TAI, .status = STA_UNSYNC,
				     .constant = i ? saved.tai_tod : saved.tai_stock };
		adj(c, &tx);
	}
	off_stock = off_from(CLOCK_REALTIME, saved.real_raw, saved.real);
	off_tod = off_from(CLOCK_TOD_REALTIME, saved.tod_raw, saved.tod);
	adj(CLOCK_REALTIME, &a);
	adj(CLOCK_TOD_REALTIME, &b);
	ksft_test_result(!err && win_stock <= SET_WIN && win_tod <= SET_WIN &&
			 off_stock >= -win_stock - RESTORE_SLOP && off_stock <= RESTORE_SLOP &&
			 off_tod >= -win_tod - RESTORE_SLOP && off_tod <= RESTORE_SLOP &&
			 !((a.status | b.status) & (STA_INS | STA_DEL)) &&
			 a.tai == saved.tai_stock && b.tai == saved.tai_tod,
			 "restored: stock %+.3f ms from the saved real time (set took %.3f ms), tod %+.3f ms (set took %.3f ms), limits -set-%.1f..+%.1f ms and a set within 1 ms in 5 tries, status %#x/%#x without INS/DEL, tai %d/%d (was %d/%d)\n",
			 (double)off_stock / MSEC, (double)win_stock / MSEC,
			 (double)off_tod / MSEC, (double)win_tod / MSEC,
			 (double)RESTORE_SLOP / MSEC, (double)RESTORE_SLOP / MSEC,
			 a.status, b.status, a.tai, b.tai, saved.tai_stock, saved.tai_tod);
}

/* Lines of the kernel log that contain text. */
static int klog_count(const char *text)
{
	static char log[1 << 20];
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, sizeof(log) - 1), count = 0;
	const char *p = log;

	log[n > 0 ? n : 0] = 0;
	while ((p = strstr(p, text))) {
		count++;
		p += strlen(text);
	}
	return count;
}

#define HOLD_HOOK "/sys/kernel/debug/newtod_hold_accumulation"

static void run_hold(int dir)
{
	const char *msg = dir < 0 ? "timeofday: inserted leap second" :
				    "timeofday: deleted leap second";
	int sta = dir < 0 ? STA_INS : STA_DEL, want = dir < 0 ? TIME_INS : TIME_DEL;
	int64_t mid, L, off, r;
	struct timex a = { .modes = 0 }, b = { .modes = 0 };
	int before, after, waited, ret, sa, sb;
	struct stat st;

	if (stat(HOLD_HOOK, &st))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (stat(HOLD_HOOK, &st))
		ksft_exit_fail_msg("no %s: the kernel needs CONFIG_NEWTOD_KUNIT_TEST and CONFIG_DEBUG_FS\n",
				   HOLD_HOOK);
	mid = (saved.real / NSEC / 86400 + 1) * 86400 * NSEC;
	L = dir < 0 ? mid : mid - NSEC;
	set_both(L - 6 * NSEC);
	waited = arm_both(sta, want);
	ksft_print_msg("armed: both report TIME_%s after %d ms\n", state_name(want), waited);
	before = klog_count(msg);
	/* hold from L - 2 s (tod clock) for 10 s */
	while (ns_of(CLOCK_TOD_REALTIME) < L - 2 * NSEC)
		usleep(5000);
	ret = write_file(HOLD_HOOK, "10000");
	r = raw_ns();
	while (raw_ns() < r + 11500 * MSEC)
		usleep(20000);
	after = klog_count(msg);
	sa = adj(CLOCK_REALTIME, &a);
	sb = adj(CLOCK_TOD_REALTIME, &b);
	off = ns_of(CLOCK_TOD_REALTIME) - ns_of(CLOCK_REALTIME);
	ksft_test_result(ret == 0 && after - before == 1,
			 "hold of 10 s across the leap (write %d): the core applied it %d time(s) (want 1)\n",
			 ret, after - before);
	ksft_test_result(b.tai == TAI0 - dir && a.tai == TAI0 - dir && llabs(off) < 5 * MSEC,
			 "tai %d (tod), %d (stock), want %d; CLOCK_TOD_REALTIME - CLOCK_REALTIME %+.3f ms (limit 5)\n",
			 b.tai, a.tai, TAI0 - dir, (double)off / MSEC);
	ksft_test_result(sa == TIME_WAIT && sb == TIME_WAIT,
			 "both end in TIME_WAIT: stock %s, tod %s\n", state_name(sa), state_name(sb));
}

static void get_vdso(void)
{
	v_tod = (cgt_fn)tod_vdso_sym("__vdso_tod_clock_gettime");
	v_stock = (cgt_fn)tod_vdso_sym("__vdso_clock_gettime");
	if (!v_tod || !v_stock)
		ksft_exit_fail_msg("the vDSO lacks __vdso_tod_clock_gettime or __vdso_clock_gettime\n");
}

/*
 * setoffset: ADJ_SETOFFSET while a leap second is armed. The stock
 * adjtimex clears NTP on ADJ_SETOFFSET (timekeeping_inject_offset() updates
 * with TK_CLEAR_NTP, even when it refuses the offset): STA_UNSYNC, maxerror
 * at the limit, the pending leap forgotten, so a jump over midnight applies
 * no leap second. The tod clock must do the same.
 */
static void run_setoffset(void)
{
	struct timex ts_ = { .modes = 0 }, tt = { .modes = 0 };
	struct timex s1, t1;
	int64_t mid, r, end, last_s = 0, last_t = 0;
	int rs, rt, es, et, jumps_s = 0, jumps_t = 0, ms, n = 0;
	char tb[32], tb2[32];

	mid = (saved.real / NSEC / 86400 + 1) * 86400 * NSEC;

	/* 1. a refused ADJ_SETOFFSET (the result would be before boot) */
	set_both(mid - 10 * NSEC);
	ms = arm_both(STA_INS, TIME_INS);
	ksft_print_msg("armed STA_INS at %s; both TIME_INS after %d ms\n", hms(mid - 10 * NSEC, tb, sizeof(tb)), ms);
	s1 = (struct timex){ .modes = ADJ_SETOFFSET, .time = { .tv_sec = -(mid / NSEC) - 100000 } };
	t1 = s1;
	errno = 0;
	rs = adj(CLOCK_REALTIME, &s1);
	es = rs < 0 ? errno : 0;
	errno = 0;
	rt = adj(CLOCK_TOD_REALTIME, &t1);
	et = rt < 0 ? errno : 0;
	rs = adj(CLOCK_REALTIME, &ts_);
	rt = adj(CLOCK_TOD_REALTIME, &tt);
	ksft_test_result(es == EINVAL && et == EINVAL && rs == rt &&
			 (ts_.status & STA_UNSYNC) == (tt.status & STA_UNSYNC) && ts_.maxerror == tt.maxerror,
			 "refused ADJ_SETOFFSET (%s/%s) leaves NTP as stock: then stock %s status %#x maxerror %ld, tod %s status %#x maxerror %ld\n",
			 strerrorname_np(es) ?: "0", strerrorname_np(et) ?: "0", state_name(rs), ts_.status,
			 ts_.maxerror, state_name(rt), tt.status, tt.maxerror);

	/* 2. ADJ_SETOFFSET +20 s from 23:59:51 or so, over midnight */
	ms = arm_both(STA_INS, TIME_INS);
	r = raw_ns();
	s1 = (struct timex){ .modes = ADJ_SETOFFSET, .time = { .tv_sec = 20 } };
	t1 = s1;
	rs = adj(CLOCK_REALTIME, &s1);
	rt = adj(CLOCK_TOD_REALTIME, &t1);
	ksft_print_msg("re-armed (TIME_INS after %d ms); ADJ_SETOFFSET +20 s at %s returned stock %s, tod %s\n",
		       ms, hms(ns_of(CLOCK_REALTIME) - 20 * NSEC - (raw_ns() - r), tb, sizeof(tb)),
		       state_name(rs), state_name(rt));
	ts_ = (struct timex){ .modes = 0 };
	tt = (struct timex){ .modes = 0 };
	rs = adj(CLOCK_REALTIME, &ts_);
	rt = adj(CLOCK_TOD_REALTIME, &tt);
	ksft_test_result(rs == rt && (ts_.status & STA_UNSYNC) == (tt.status & STA_UNSYNC) &&
			 ts_.maxerror == tt.maxerror,
			 "ADJ_SETOFFSET clears NTP as stock: then stock %s status %#x maxerror %ld, tod %s status %#x maxerror %ld\n",
			 state_name(rs), ts_.status, ts_.maxerror, state_name(rt), tt.status, tt.maxerror);

	/* 3. two seconds of readings: a leap second applied after the jump shows as a 1 s step */
	end = raw_ns() + 2 * NSEC;
	while (raw_ns() < end) {
		int64_t v;

		v = vdso_read(v_stock, CLOCK_REALTIME);
		jumps_s += n && llabs(v - last_s) > NSEC / 2;
		last_s = v;
		v = ns_of(CLOCK_REALTIME);
		jumps_s += llabs(v - last_s) > NSEC / 2;
		last_s = v;
		v = vdso_read(v_tod, CLOCK_TOD_REALTIME);
		if (n && llabs(v - last_t) > NSEC / 2 && !jumps_t)
			ksft_print_msg("tod steps from %s to %s\n", hms(last_t, tb, sizeof(tb)),
				       hms(v, tb2, sizeof(tb2)));
		jumps_t += n && llabs(v - last_t) > NSEC / 2;
		last_t = v;
		v = ns_of(CLOCK_TOD_REALTIME);
		jumps_t += llabs(v - last_t) > NSEC / 2;
		last_t = v;
		n++;
	}
	ts_ = (struct timex){ .modes = 0 };
	tt = (struct timex){ .modes = 0 };
	rs = adj(CLOCK_REALTIME, &ts_);
	rt = adj(CLOCK_TOD_REALTIME, &tt);
	ksft_test_result(jumps_s == 0 && jumps_t == 0,
			 "no leap second after ADJ_SETOFFSET over midnight: jumps > 0.5 s in 2 s of readings: stock %d, tod %d (expected 0, 0); now stock %s tai %d, tod %s tai %d\n",
			 jumps_s, jumps_t, state_name(rs), ts_.tai, state_name(rt), tt.tai);
	ksft_test_result(rs == rt && ts_.tai == tt.tai,
			 "after the jump tod and stock agree: state stock %s, tod %s; tai stock %d, tod %d\n",
			 state_name(rs), state_name(rt), ts_.tai, tt.tai);
}

/* Increments of CLOCK_TOD_MONOTONIC between consecutive readings. */
struct mono {
	int64_t n, back, fast, max, min;
	int64_t fast_d, fast_bound;	/* the first increment beyond its bound */
};

/* One increment d, whose raw bracket plus 1 ms is bound: never < 0 nor > bound. */
static void mono_step(struct mono *m, int64_t d, int64_t bound)
{
	m->n++;
	if (d < 0)
		m->back++;
	if (d > bound && !m->fast++) {
		m->fast_d = d;
		m->fast_bound = bound;
	}
	m->max = d > m->max ? d : m->max;
	m->min = d < m->min ? d : m->min;
}

int main(int argc, char **argv)
{
	static struct group stock, tod;
	struct group *g[2] = { &stock, &tod };
	int dir, sta, want, i, waited;
	int64_t mid, T, last_poll, end, mprev = -1, rprev = 0;
	struct mono mono = { .min = INT64_MAX };
	char tbuf[32];

	if (argc < 2 || (strcmp(argv[1], "ins") && strcmp(argv[1], "del") &&
			 strcmp(argv[1], "setoffset") && strcmp(argv[1], "hold-ins") &&
			 strcmp(argv[1], "hold-del")))
		ksft_exit_fail_msg("usage: tod_leap ins|del|setoffset|hold-ins|hold-del\n");
	ksft_print_header();
	if (!strncmp(argv[1], "hold-", 5)) {
		ksft_set_plan(3 + 1);
		get_vdso();
		save_clocks();
		run_hold(!strcmp(argv[1], "hold-ins") ? -1 : 1);
		restore_clocks();
		ksft_finished();
	}
	if (!strcmp(argv[1], "setoffset")) {
		ksft_set_plan(4 + 1);
		get_vdso();
		save_clocks();
		run_setoffset();
		restore_clocks();
		ksft_finished();
	}
	dir = !strcmp(argv[1], "ins") ? -1 : 1;
	sta = dir < 0 ? STA_INS : STA_DEL;
	want = dir < 0 ? TIME_INS : TIME_DEL;
	ksft_set_plan(2 * 5 + 5);
	get_vdso();
	save_clocks();

	/* both clocks to 10 s before the next midnight, back to back */
	mid = (saved.real / NSEC / 86400 + 1) * 86400 * NSEC;
	T = mid - 10 * NSEC;
	set_both(T);
	stock = (struct group){ .name = "stock", .id = CLOCK_REALTIME, .dir = dir,
				.L = dir < 0 ? mid : mid - NSEC, .grace = STOCK_GRACE };
	tod = stock;
	tod.name = "tod  ";
	tod.grace = TOD_GRACE;
	tod.id = CLOCK_TOD_REALTIME;
	waited = arm_both(sta, want);
	ksft_print_msg("%s armed at %s; both report TIME_%s after %d ms (stock %s, tod %s)\n",
		       argv[1], hms(T, tbuf, sizeof(tbuf)), state_name(want), waited,
		       state_name(state_of(CLOCK_REALTIME)), state_name(state_of(CLOCK_TOD_REALTIME)));

	last_poll = 0;
	end = saved.real_raw + 20 * NSEC;
	for (;;) {
		int64_t ra = raw_ns(), r1, r2, r3, r4, v, mv, ms, rb;

		v = vdso_read(v_tod, CLOCK_TOD_REALTIME);
		r1 = raw_ns();
		feed(&tod, K_VDSO, v, ra, r1);
		v = vdso_read(v_stock, CLOCK_REALTIME);
		r2 = raw_ns();
		feed(&stock, K_VDSO, v, r1, r2);
		v = ns_of(CLOCK_TOD_REALTIME);
		r3 = raw_ns();
		feed(&tod, K_SYS, v, r2, r3);
		v = ns_of(CLOCK_REALTIME);
		r4 = raw_ns();
		feed(&stock, K_SYS, v, r3, r4);
		mv = vdso_read(v_tod, CLOCK_TOD_MONOTONIC);
		ms = ns_of(CLOCK_TOD_MONOTONIC);
		rb = raw_ns();
		/* CLOCK_TOD_MONOTONIC: pairs (previous syscall, vDSO) and (vDSO, syscall) */
		if (mprev >= 0)
			mono_step(&mono, mv - mprev, rb - rprev + MSEC);
		mono_step(&mono, ms - mv, rb - r4 + MSEC);
		mprev = ms;
		rprev = r4;
		if (rb - last_poll >= POLL_EVERY) {
			poll_one(&tod);
			poll_one(&stock);
			last_poll = rb;
		}
		if ((stock.prev.c >= stock.L + 3 * NSEC && tod.prev.c >= tod.L + 3 * NSEC) || rb > end)
			break;
	}

	for (i = 0; i < 2; i++)
		if (g[i]->stepped)
			print_context(g[i]);
	for (i = 0; i < 2; i++)
		report_group(g[i]);

	ksft_test_result(!mono.back && !mono.fast,
			 "CLOCK_TOD_MONOTONIC never steps: %" PRId64 " increments (vDSO/syscall), %" PRId64 " negative, %" PRId64 " beyond the bracketing raw time + 1 ms (first %+.3f ms, bound %.3f ms); min %+" PRId64 " ns, max %.3f ms\n",
			 mono.n, mono.back, mono.fast, (double)mono.fast_d / MSEC,
			 (double)mono.fast_bound / MSEC, mono.min, (double)mono.max / MSEC);
	{
		char s1[64], s2[64];

		sequence(&tod, s1, sizeof(s1));
		sequence(&stock, s2, sizeof(s2));
		ksft_test_result(tod.npoll && !strcmp(s1, s2),
				 "tod and stock pass through the same states: tod %s, stock %s\n", s1, s2);
	}
	{
		int64_t ut, us, st = step_ns(&tod, &ut), ss = step_ns(&stock, &us);

		ksft_test_result(tod.stepped && stock.stepped && llabs(st - ss) <= 100000,
				 "tod and stock step alike: tod %+.9f s, stock %+.9f s (limit 100 us apart)\n",
				 (double)st / NSEC, (double)ss / NSEC);
	}
	ksft_test_result(tod.stepped && stock.stepped && llabs(tod.b.c - stock.b.c) <= STOCK_GRACE,
			 "tod and stock step together: tod at L + %.3f ms, stock at L + %.3f ms (limit 25 ms apart)\n",
			 (double)(tod.b.c - tod.L) / MSEC, (double)(stock.b.c - stock.L) / MSEC);

	restore_clocks();
	ksft_finished();
}
