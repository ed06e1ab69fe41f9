// SPDX-License-Identifier: GPL-2.0
/*
 * tod_unstable: the kernel marks the TSC unstable at run time (the test
 * hook /sys/kernel/debug/newtod_mark_tsc_unstable calls mark_tsc_unstable(),
 * as the clocksource watchdog would) while vDSO and system call readers run
 * on both CPUs. Pass rules:
 *   - when the write returns, the tod vsyscall page no longer says TSC (the
 *     vDSO must not read a TSC the kernel distrusts, not even for a tick);
 *   - within 2 s the core has left the TSC and available_timesource no
 *     longer lists it;
 *   - no reader ever saw CLOCK_TOD_MONOTONIC, CLOCK_TOD_REALTIME or the
 *     stock CLOCK_MONOTONIC go back.
 * It leaves the boot without a TSC: run it last.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kselftest.h"
#include "tod.h"
#include "todtest.h"

#define HOOK "/sys/kernel/debug/newtod_mark_tsc_unstable"
#define TOD_DATA_PAGE 4		/* page index of the tod data page in [vvar] */
#define TOD_DATA_OFFSET 128	/* TOD_VDSO_DATA_OFFSET in <vdso/tod.h> */
#define TOD_VCLOCK_TSC 1	/* enum tod_vclock_mode in <vdso/tod.h> */

static atomic_int stop;
static atomic_long back[2], errors[2], reads[2];

static void *reader(void *arg)
{
	long cpu = (long)arg;
	static const clockid_t ids[] = { CLOCK_TOD_MONOTONIC, CLOCK_TOD_REALTIME };
	int64_t prev[2][2] = { { 0 } }, prev_stock = 0, now;
	struct timespec ts;
	int i;

	pin_cpu(cpu);	/* best effort: unpinned, the reader still checks */
	while (!atomic_load(&stop)) {
		for (i = 0; i < 2; i++) {
			/* the vDSO, then the system call */
			if (tod_clock_gettime(ids[i], &ts)) {
				atomic_fetch_add(&errors[cpu], 1);
				continue;
			}
			now = ts_ns(&ts);
			if (now < prev[i][0] || now < prev[i][1])
				atomic_fetch_add(&back[cpu], 1);
			prev[i][0] = now;
			now = ns_of(ids[i]);
			if (now < prev[i][0])
				atomic_fetch_add(&back[cpu], 1);
			prev[i][1] = now;
		}
		clock_gettime(CLOCK_MONOTONIC, &ts);
		if (ts_ns(&ts) < prev_stock)
			atomic_fetch_add(&back[cpu], 1);
		prev_stock = ts_ns(&ts);
		atomic_fetch_add(&reads[cpu], 1);
	}
	return NULL;
}

static int vvar_tod_mode(void)
{
	unsigned long start = 0, end = 0;
	char line[256];
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[vvar]") && sscanf(line, "%lx-%lx", &start, &end) == 2)
			break;
	fclose(f);
	if (!start || end - start < (TOD_DATA_PAGE + 1) * 4096UL)
		return -1;
	/* struct tod_vdso_data: u32 seq, s32 vclock_mode */
	return *(volatile int32_t *)(start + TOD_DATA_PAGE * 4096UL + TOD_DATA_OFFSET + 4);
}

static int sysfs_has(const char *file, const char *word)
{
	char buf[256] = "", *tok, *save = NULL;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, word))
			return 1;
	return 0;
}

int main(void)
{
	int mode_before, mode_after, i, ret, left_cur = 0, left_avail = 0;
	pthread_t th[2];
	struct stat st;

	ksft_print_header();
	ksft_set_plan(4);
	if (stat(HOOK, &st))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	if (stat(HOOK, &st))
		ksft_exit_fail_msg("no %s: the kernel needs CONFIG_NEWTOD_TEST_HOOKS (and DEBUG_FS)\n",
				   HOOK);
	if (sysfs_has(TOD_SYSFS "current_timesource", "tsc") != 1)
		ksft_exit_fail_msg("the core is not on the TSC: run this in a boot that uses it\n");
	mode_before = vvar_tod_mode();
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, reader, (void *)(long)i);
	usleep(300000);

	ret = write_file(HOOK, "1");
	mode_after = vvar_tod_mode();

	for (i = 0; i < 200 && !(left_cur && left_avail); i++) {
		usleep(10000);
		left_cur = sysfs_has(TOD_SYSFS "current_timesource", "tsc") == 0;
		left_avail = sysfs_has(TOD_SYSFS "available_timesource", "tsc") == 0;
	}
	usleep(300000);
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);

	ksft_test_result(ret == 0 && mode_before == TOD_VCLOCK_TSC && mode_after != TOD_VCLOCK_TSC,
			 "when the hook's write returns the vsyscall page is off the TSC (mode %d before, %d after, write %d)\n",
			 mode_before, mode_after, ret);
	ksft_test_result(left_cur, "the core left the TSC (after %d ms)\n", i * 10);
	ksft_test_result(left_avail, "available_timesource no longer lists tsc\n");
	ksft_test_result(!back[0] && !back[1] && !errors[0] && !errors[1] && reads[0] && reads[1],
			 "readers on both CPUs (%ld, %ld rounds): no clock went back (%ld, %ld), no errors (%ld, %ld)\n",
			 reads[0], reads[1], back[0], back[1], errors[0], errors[1]);
	ksft_finished();
}
