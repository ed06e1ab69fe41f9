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

#define TIMENS_OFFSET	1000		/* s added to CLOCK_MONOTONIC in the namespace */

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

void case_syscalls(int argc, char **argv)
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

void case_timens(int argc, char **argv)
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
