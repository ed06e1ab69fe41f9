/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tod_vdso: what its files share. tod_vdso.c has the command line, the
 * cases and their rules; each case is in the file of its concern:
 *
 *   tod_vdso_read.c        order, xthread, agree, getres, lib: readings
 *                          against the system call, each other and libtod
 *   tod_vdso_syscalls.c    syscalls, timens: the system calls the entries
 *                          make, and the time namespace they read in
 *   tod_vdso_switch.c      switch: readers while the timesource rotates
 *   tod_vdso_publish.c     publish: readers while a rate change is late;
 *                          query: a query of adjtimex writes no page
 *   tod_vdso_hpet.c        hpetpage, and the HPET page helpers
 *   tod_vdso_hpetrevoke.c  hpetrevoke: the page revoked everywhere
 *   tod_vdso_common.c      the vDSO entries, the clock ids, the CPUs, sysfs
 *
 * Each file defines _GNU_SOURCE before it includes this header.
 */
#ifndef NEWTOD_TOD_VDSO_H
#define NEWTOD_TOD_VDSO_H

#include <errno.h>
#include <sched.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/*
 * kselftest.h keeps the plan and the counts in static variables: each file
 * that includes it has its own. The cases, the helpers that end a case
 * (need_vdso(), skip_rest()) and main()'s ksft_finished() are in different
 * files and must see the same counts, so these two macros make its
 * ksft_cnt and ksft_plan stand for the one copy in tod_vdso_common.c,
 * through a pointer defined just after the include.
 */
#ifdef __KSELFTEST_H
#error "tod_vdso's files include kselftest.h through tod_vdso.h only"
#endif
#define ksft_cnt	(*tod_vdso_ksft_cnt)
#define ksft_plan	(*tod_vdso_ksft_plan)
#include "kselftest.h"

extern struct ksft_count tod_vdso_ksft_count;
extern unsigned int tod_vdso_ksft_planned;
static struct ksft_count *tod_vdso_ksft_cnt = &tod_vdso_ksft_count;
static unsigned int *tod_vdso_ksft_plan = &tod_vdso_ksft_planned;

#include "tod.h"
#include "todtest.h"

#define NSEC_PER_SEC	1000000000LL

/* The entries under test, straight from the vDSO (they return -errno); need_vdso() sets them. */
extern gtod_fn vt_gtod;		/* __vdso_tod_gettimeofday */
extern cgt_fn vt_cgt;		/* __vdso_tod_clock_gettime */
extern cgt_fn vs_cgt;		/* stock __vdso_clock_gettime(64): VS_CGT_NAME */
extern cgt_fn vs_getres;	/* stock __vdso_clock_getres */
#ifdef __i386__
/*
 * 32-bit x86: the stock entry of the 64-bit timespec is
 * __vdso_clock_gettime64; __vdso_clock_gettime and __vdso_clock_getres take
 * the old 32-bit timespec, so vs_cgt32 and vs_getres call them through a
 * wrapper that converts (tod_vdso_common.c).
 */
#define VS_CGT_NAME	"stock __vdso_clock_gettime64"
extern cgt_fn vs_cgt32;		/* stock __vdso_clock_gettime, 32-bit timespec */
#else
#define VS_CGT_NAME	"stock __vdso_clock_gettime"
#define vs_cgt32	vs_cgt	/* one entry: the 32-bit timespec's is i386's only */
#endif

/* The four tod clock ids and their names. */
struct tod_clock {
	clockid_t id;
	const char *name;
};
#define NTOD 4
extern const struct tod_clock tods[NTOD];

/* The CPUs we may run on, in order (find_cpus()); per-CPU checks pin to each in turn. */
extern int cpus[CPU_SETSIZE], ncpus;

/* clock_gettime through the system call: 0 or -errno; *ns is 0 on error. */
static inline int sys_ns(clockid_t clk, int64_t *ns)
{
	struct timespec ts;

	*ns = 0;
	if (syscall(TOD_SYS_clock_gettime, clk, &ts))
		return -errno;
	*ns = ts_ns(&ts);
	return 0;
}

/* A vDSO clock_gettime entry: 0 or -errno; *ns is 0 on error. */
static inline int vdso_ns(cgt_fn fn, clockid_t clk, int64_t *ns)
{
	struct timespec ts;
	int ret = fn(clk, &ts);

	*ns = ret ? 0 : ts_ns(&ts);
	return ret;
}

/* clock_getres through the system call, in ns; -1 on error. */
static inline int64_t res_ns(clockid_t clk)
{
	struct timespec ts;

	if (syscall(TOD_SYS_clock_getres, clk, &ts))
		return -1;
	return ts_ns(&ts);
}

/* tod_vdso_common.c */
void find_cpus(void);
int set_source(const char *name);
void need_sysfs(char *cur, size_t clen, char *avail, size_t alen);
void show_source(void);
void need_vdso(void);
void skip_rest(const char *why);
long arg_long(int argc, char **argv, int i, long def, long min, long max);

/* The tod HPET page (tod_vdso_hpet.c), read by hpetpage and hpetrevoke. */
#define PAGE		4096UL
#define HPET_PAGE	5		/* page index of the tod HPET page in [vvar] */
#define HPET_COUNTER	0xF0		/* main counter, low 32 bits */

extern sigjmp_buf bus_env;		/* where on_sigbus() returns to */
int find_vvar(unsigned long *start, unsigned long *end);
void on_sigbus(int sig);
int touch_hpet(unsigned long page);
int touch_hpet_guarded(unsigned long page);
void die_with_parent(pid_t parent);
int child_end(pid_t pid);
const char *end_str(int end);
int stale_hpet(unsigned long vvar, unsigned long len, const char *away);

/* The cases, as tod_vdso.c's cases[] names them. */
void case_order(int argc, char **argv);
void case_xthread(int argc, char **argv);
void case_agree(int argc, char **argv);
void case_syscalls(int argc, char **argv);
void case_getres(int argc, char **argv);
void case_y2038(int argc, char **argv);
void case_timens(int argc, char **argv);
void case_switch(int argc, char **argv);
void case_hpetpage(int argc, char **argv);
void case_hpetrevoke(int argc, char **argv);
void case_publish(int argc, char **argv);
void case_query(int argc, char **argv);
void case_lib(int argc, char **argv);

#endif
