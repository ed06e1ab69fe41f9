// SPDX-License-Identifier: GPL-2.0
/*
 * tod_vdso: the tod HPET page. The helpers that find it, read it and tell
 * how a child that read it ended, shared with hpetrevoke (tod_vdso.h), and
 * the hpetpage case. Its rule is in tod_vdso.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tod_vdso.h"

#define VVAR_PAGES	7		/* 4 stock + tod data + tod HPET + tod data in a time namespace */
#define HPET_PERIOD	0x04		/* upper half of GCAP_ID: fs per tick */

/* --- hpetpage -------------------------------------------------------------- */

/* The [vvar] mapping of this process; 0 if found. */
int find_vvar(unsigned long *start, unsigned long *end)
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

sigjmp_buf bus_env;

void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_env, 1);
}

/* Read the HPET counter through PAGE: 0 if it read, 1 on SIGBUS. */
int touch_hpet(unsigned long page)
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
int touch_hpet_guarded(unsigned long page)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, dfl = { .sa_handler = SIG_DFL };
	int ret;

	sigaction(SIGBUS, &sa, NULL);
	ret = touch_hpet(page);
	sigaction(SIGBUS, &dfl, NULL);
	return ret;
}

/* A child of the test dies with its parent: no process outlives a killed test. */
void die_with_parent(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(9);
}

/*
 * How child PID ended: the signal that killed it, 0 if it exited 0,
 * 256 + its status if it exited otherwise, -1 if it could not be waited for.
 */
int child_end(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	if (WIFSIGNALED(st))
		return WTERMSIG(st);
	return WIFEXITED(st) ? (WEXITSTATUS(st) ? 256 + WEXITSTATUS(st) : 0) : -1;
}

const char *end_str(int end)
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
int stale_hpet(unsigned long vvar, unsigned long len, const char *away)
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

void case_hpetpage(int argc, char **argv)
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
			 "[vvar] at %#lx is %lu pages (want %d: 4 stock, tod data, tod HPET, tod data in a time namespace)\n",
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
