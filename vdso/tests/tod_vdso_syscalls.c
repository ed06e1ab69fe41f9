// SPDX-License-Identifier: GPL-2.0
/*
 * tod_vdso: the cases about where the entries run rather than what they
 * read: the system calls they make (syscalls) and the time namespace they
 * read in (timens). Their rules are in tod_vdso.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tod_vdso.h"

/* --- syscalls -------------------------------------------------------------- */

enum entry { E_EMPTY, E_GETPPID, E_TOD_GTOD, E_LIB_GTOD, E_TOD_CGT, E_LIB_CGT, E_STOCK_VDSO,
	     E_STOCK_VDSO32, E_GLIBC, E_STOCK_GETRES };

static const char *const entry_name[] = {
	[E_EMPTY] = "empty window",
	[E_GETPPID] = "syscall(SYS_getppid)",
	[E_TOD_GTOD] = "__vdso_tod_gettimeofday",
	[E_LIB_GTOD] = "libtod tod_gettimeofday",
	[E_TOD_CGT] = "__vdso_tod_clock_gettime",
	[E_LIB_CGT] = "libtod tod_clock_gettime",
	[E_STOCK_VDSO] = VS_CGT_NAME,
	[E_STOCK_VDSO32] = "stock __vdso_clock_gettime (32-bit timespec)",
	[E_GLIBC] = "glibc clock_gettime",
	[E_STOCK_GETRES] = "stock __vdso_clock_getres",
};

/* K calls of one entry; returns the number that failed. */
static long run_entry(enum entry e, clockid_t clk, long k)
{
	struct timespec ts;
	struct timeval tv;
	struct kernel_old_timeval ktv;
	long i, fails = 0;

	for (i = 0; i < k; i++) {
		switch (e) {
		case E_EMPTY:
			break;
		case E_GETPPID:
			syscall(SYS_getppid);
			break;
		case E_TOD_GTOD:
			fails += vt_gtod(&ktv, NULL) != 0;
			break;
		case E_LIB_GTOD:
			fails += tod_gettimeofday(&tv, NULL) != 0;
			break;
		case E_TOD_CGT:
			fails += vt_cgt(clk, &ts) != 0;
			break;
		case E_LIB_CGT:
			fails += tod_clock_gettime(clk, &ts) != 0;
			break;
		case E_STOCK_VDSO:
			fails += vs_cgt(clk, &ts) != 0;
			break;
		case E_STOCK_VDSO32:
			fails += vs_cgt32(clk, &ts) != 0;
			break;
		case E_GLIBC:
			fails += clock_gettime(clk, &ts) != 0;
			break;
		case E_STOCK_GETRES:
			fails += vs_getres(clk, &ts) != 0;
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

void case_syscalls(int argc, char **argv)
{
	static const enum entry gtod[] = { E_TOD_GTOD, E_LIB_GTOD };
#ifdef __i386__
	static const enum entry per_id[] = { E_TOD_CGT, E_LIB_CGT, E_STOCK_VDSO, E_STOCK_VDSO32,
					     E_GLIBC, E_STOCK_GETRES };
#else
	static const enum entry per_id[] = { E_TOD_CGT, E_LIB_CGT, E_STOCK_VDSO, E_GLIBC,
					     E_STOCK_GETRES };
#endif
	long k, fails, want, over_fails;
	long long over, c;
	int fd, one, i, j;

	if (argc < 3 || (strcmp(argv[2], "zero") && strcmp(argv[2], "one"))) {
		fprintf(stderr, "usage: tod_vdso syscalls zero|one [K]\n");
		exit(2);
	}
	one = !strcmp(argv[2], "one");
	k = arg_long(argc, argv, 3, 10000, 1, 100000000);
	ksft_set_plan(1 + ARRAY_SIZE(gtod) + NTOD * ARRAY_SIZE(per_id));
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
	 * 'one': on acpi_pm, pit and jiffies the vDSO cannot read the counter and
	 * makes exactly one syscall per call of gettimeofday and the two high
	 * resolution ids. The coarse ids need no counter: they are served from
	 * the data page in every mode (as the stock vDSO serves its coarse
	 * clocks), so they make none; nor does clock_getres, in any mode.
	 */
	ksft_print_msg("rule: %ld calls of each entry make exactly %ld syscalls ('%s' mode; coarse ids: 0); __vdso_tod_* are called directly (found by parse_vdso) and through libtod\n",
		       k, want, argv[2]);
	for (j = 0; j < (int)ARRAY_SIZE(gtod); j++) {
		c = count_window(fd, gtod[j], 0, k, &fails) - over;
		ksft_test_result(c == want && !fails, "%s: %lld syscalls in %ld calls (%ld failed)\n",
				 entry_name[gtod[j]], c, k, fails);
	}
	for (i = 0; i < NTOD; i++) {
		for (j = 0; j < (int)ARRAY_SIZE(per_id); j++) {
			/* the coarse ids and every resolution come from the page */
			long w = tods[i].id >= CLOCK_TOD_REALTIME_COARSE ||
				 per_id[j] == E_STOCK_GETRES ? 0 : want;

			c = count_window(fd, per_id[j], tods[i].id, k, &fails) - over;
			ksft_test_result(c == w && !fails,
					 "%s(%s): %lld syscalls in %ld calls (%ld failed)\n",
					 entry_name[per_id[j]], tods[i].name, c, k, fails);
		}
	}
	close(fd);
}

/* --- timens ---------------------------------------------------------------- */

/*
 * The namespaces: CLOCK_MONOTONIC +500 s in both (the tod clocks must not
 * follow it), CLOCK_BOOTTIME +1000 s in one and -1000 s in the other. The
 * kernel keeps a namespace's clocks non-negative, so while the boot is
 * younger than 1000 s the negative offset is the boot's age less 2 s.
 */
#define TIMENS_MONO	500

/* What the child in the namespace saw: the min and max of each clock. */
struct ns_seen {
	int done, err, res_err;
	int64_t lo[NTOD], hi[NTOD];	/* tod entry, stock entry and syscall, per id */
	int64_t gtod_lo, gtod_hi;	/* __vdso_tod_gettimeofday, us */
	int64_t mono_vdso, mono_sys;	/* stock CLOCK_MONOTONIC */
	int64_t boot_vdso, boot_sys;	/* stock CLOCK_BOOTTIME */
};

/* One namespace's run, filled by a helper process in the root namespace. */
struct ns_run {
	int setup_err;			/* errno of the namespace's setup, or 0 */
	int status;			/* the child's wait status */
	int64_t before[NTOD], after[NTOD];	/* the helper's readings, root namespace */
	int64_t mono0, mono1, boot0, boot1;
	struct ns_seen s;
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
	struct kernel_old_timeval tv;
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
#ifdef __i386__
			if (vdso_ns(vs_cgt32, tods[k].id, &v))
				s->err++;
			else
				ns_note(s, k, v);
#endif
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
	/* clock_getres reads the core's page too, not the namespace's */
	for (k = 0; k < NTOD; k++) {
		if (vs_getres(tods[k].id, &ts) || ts.tv_sec || ts.tv_nsec <= 0 ||
		    ts.tv_nsec != res_ns(tods[k].id))
			s->res_err++;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->mono_vdso = ts_ns(&ts);
	clock_gettime(CLOCK_BOOTTIME, &ts);
	s->boot_vdso = ts_ns(&ts);
	if (sys_ns(CLOCK_MONOTONIC, &s->mono_sys) || sys_ns(CLOCK_BOOTTIME, &s->boot_sys))
		s->err++;
	s->done = 1;
	_exit(0);
}

/*
 * In a helper process: a new time namespace with the offsets, the
 * readings of every clock before and after a child of it reads them.
 */
static void ns_helper(struct ns_run *r, long boot_off)
{
	char buf[96];
	pid_t pid;
	int k, fd, n;

	if (unshare(CLONE_NEWTIME)) {
		r->setup_err = errno;
		_exit(1);
	}
	/* offsets can only be set before the namespace's first process */
	n = snprintf(buf, sizeof(buf), "monotonic %d 0\nboottime %ld 0\n", TIMENS_MONO, boot_off);
	fd = open("/proc/self/timens_offsets", O_WRONLY);
	if (fd < 0 || write(fd, buf, n) != n) {
		r->setup_err = errno ? errno : EIO;
		_exit(1);
	}
	close(fd);
	for (k = 0; k < NTOD; k++)
		sys_ns(tods[k].id, &r->before[k]);
	sys_ns(CLOCK_MONOTONIC, &r->mono0);
	sys_ns(CLOCK_BOOTTIME, &r->boot0);
	pid = fork();
	if (pid < 0) {
		r->setup_err = errno;
		_exit(1);
	}
	if (pid == 0)
		ns_child(&r->s);
	waitpid(pid, &r->status, 0);
	sys_ns(CLOCK_BOOTTIME, &r->boot1);
	sys_ns(CLOCK_MONOTONIC, &r->mono1);
	for (k = 0; k < NTOD; k++)
		sys_ns(tods[k].id, &r->after[k]);
	_exit(0);
}

static int ns_monotonic(clockid_t id)
{
	return id == CLOCK_TOD_MONOTONIC || id == CLOCK_TOD_MONOTONIC_COARSE;
}

/* 2 + NTOD results for one namespace with CLOCK_BOOTTIME moved by boot_off s */
static void ns_case(long boot_off)
{
	int64_t off = (int64_t)boot_off * NSEC_PER_SEC, mono = (int64_t)TIMENS_MONO * NSEC_PER_SEC, o;
	struct ns_run *r;
	const struct ns_seen *s;
	int k, st, ok;
	pid_t pid;

	r = mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	memset(r, 0, sizeof(*r));
	s = &r->s;
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_msg("fork: %s\n", strerror(errno));
	if (pid == 0)
		ns_helper(r, boot_off);
	waitpid(pid, &st, 0);
	if (r->setup_err)
		ksft_exit_fail_msg("a time namespace with CLOCK_BOOTTIME %+ld s: %s (unshare(CLONE_NEWTIME) needs CAP_SYS_ADMIN and CONFIG_TIME_NS; ERANGE: the namespace's clock would be negative)\n",
				   boot_off, strerror(r->setup_err));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		ksft_exit_fail_msg("the namespace helper failed (wait status %#x)\n", st);

	st = r->status;
	ksft_test_result(WIFEXITED(st) && WEXITSTATUS(st) == 0 && s->done && !s->err && !s->res_err,
			 "boottime %+ld s: the child in the namespace read every clock (%s, %d failed reads), and the vDSO's clock_getres equals the syscall's (%d differ)\n",
			 boot_off, WIFSIGNALED(st) ? (WTERMSIG(st) == SIGALRM ?
			 "HUNG: killed by alarm after 10 s" : strsignal(WTERMSIG(st))) : "exited", s->err,
			 s->res_err);
	/* the proof that the child is in the namespace, with both offsets */
	ok = s->done && s->mono_vdso >= r->mono0 + mono && s->mono_vdso <= r->mono1 + mono &&
	     s->mono_sys >= r->mono0 + mono && s->mono_sys <= r->mono1 + mono &&
	     s->boot_vdso >= r->boot0 + off && s->boot_vdso <= r->boot1 + off &&
	     s->boot_sys >= r->boot0 + off && s->boot_sys <= r->boot1 + off;
	ksft_test_result(ok, "boottime %+ld s: stock CLOCK_MONOTONIC is %+d s and CLOCK_BOOTTIME %+ld s in the child (vdso %+lld, %+lld ns from the parent's before)\n",
			 boot_off, TIMENS_MONO, boot_off, (long long)(s->mono_vdso - r->mono0),
			 (long long)(s->boot_vdso - r->boot0));
	for (k = 0; k < NTOD; k++) {
		o = ns_monotonic(tods[k].id) ? off : 0;
		ok = s->done && s->lo[k] >= r->before[k] + o && s->hi[k] <= r->after[k] + o;
		if (tods[k].id == CLOCK_TOD_REALTIME)
			ok = ok && s->gtod_lo >= r->before[k] / 1000 && s->gtod_hi <= r->after[k] / 1000;
		ksft_test_result(ok, "boottime %+ld s: %s in the namespace is moved by %+lld s: child [%+lld, %+lld] ns from the parent's before + offset, within [0, %+lld] ns\n",
				 boot_off, tods[k].name, (long long)(o / NSEC_PER_SEC),
				 (long long)(s->lo[k] - r->before[k] - o),
				 (long long)(s->hi[k] - r->before[k] - o),
				 (long long)(r->after[k] - r->before[k]));
	}
	munmap(r, sizeof(*r));
}

void case_timens(int argc, char **argv)
{
	int64_t boot;
	long neg;

	(void)argc;
	(void)argv;
	ksft_set_plan(2 * (2 + NTOD));
	show_source();
	need_vdso();
	if (sys_ns(CLOCK_BOOTTIME, &boot))
		ksft_exit_fail_msg("clock_gettime(CLOCK_BOOTTIME): %s\n", strerror(errno));
	neg = boot / NSEC_PER_SEC - 2;
	if (neg > 1000)
		neg = 1000;
	if (neg < 1)
		ksft_exit_fail_msg("the boot is %lld ms old: a negative BOOTTIME offset needs 3 s\n",
				   (long long)(boot / 1000000));
	ksft_print_msg("rule: in a time namespace (CLOCK_MONOTONIC %+d s, CLOCK_BOOTTIME +1000 s, then -%ld s), CLOCK_TOD_MONOTONIC and its coarse variant read in a child (tod vDSO, stock vDSO, syscall) lie between the parent's readings before fork and after waitpid, moved by the BOOTTIME offset; the realtime ones are not moved\n",
		       TIMENS_MONO, neg);
	ns_case(1000);
	ns_case(-neg);
}
