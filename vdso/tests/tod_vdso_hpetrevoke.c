// SPDX-License-Identifier: GPL-2.0
/*
 * tod_vdso: the hpetrevoke case, leaving the HPET unmaps its page from
 * every process that has it. Its rule is in tod_vdso.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tod_vdso.h"

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
 * Prints how long the sysfs write takes, with them and with none (a
 * measurement, not a pass condition); passes when
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

/*
 * hpetrevoke NPROC timens: the whole case from the first process of a new
 * time namespace (MONOTONIC and BOOTTIME +1000 s), whose [vvar] has the
 * namespace's page where the clocks' data was: the HPET page must be
 * revoked there too. Returns in that process; this one waits for it and
 * exits with its status.
 */
static void enter_timens(void)
{
	static const char offsets[] = "monotonic 1000 0\nboottime 1000 0\n";
	int fd, status;
	ssize_t n;
	pid_t pid;

	if (unshare(CLONE_NEWTIME))
		ksft_exit_fail_msg("unshare(CLONE_NEWTIME): %s (needs CAP_SYS_ADMIN and CONFIG_TIME_NS)\n",
				   strerror(errno));
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	n = fd < 0 ? -1 : write(fd, offsets, sizeof(offsets) - 1);
	if (n != (ssize_t)sizeof(offsets) - 1)
		ksft_exit_fail_msg("writing /proc/self/timens_offsets: %s\n", strerror(errno));
	close(fd);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork into the time namespace: %s\n", strerror(errno));
	if (pid == 0)
		return;
	if (waitpid(pid, &status, 0) != pid)
		ksft_exit_fail_msg("waitpid: %s\n", strerror(errno));
	if (!WIFEXITED(status)) {
		printf("# the process in the time namespace ended by signal %d\n", WTERMSIG(status));
		exit(KSFT_FAIL);
	}
	exit(WEXITSTATUS(status));
}

void case_hpetrevoke(int argc, char **argv)
{
	char cur[64], avail[256], away[64];
	unsigned long start = 0, end = 0, page;
	int nproc = argc > 2 ? atoi(argv[2]) : 1000, ret;

	if (argc > 3) {
		if (strcmp(argv[3], "timens"))
			ksft_exit_fail_msg("hpetrevoke [NPROC [timens]]: unknown '%s'\n", argv[3]);
		enter_timens();
		if (ns_of(CLOCK_MONOTONIC) < 1000000000000LL)
			ksft_exit_fail_msg("CLOCK_MONOTONIC in the time namespace does not read the +1000 s offset\n");
	}
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
