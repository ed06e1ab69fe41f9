// SPDX-License-Identifier: GPL-2.0
/*
 * sections: what the timekeeping write sections cost, the new core's and
 * the stock timekeeper's, on the current timesource and clocksource.
 *
 *   sections [--secs S] [--json FILE]
 *
 * Clears /sys/kernel/debug/newtod_sections (CONFIG_NEWTOD_SECTION_STATS),
 * then for S seconds (default 3) keeps every CPU busy, so that the tick
 * runs on each (an idle CPU stops it), while one thread calls
 * clock_adjtime(ADJ_FREQUENCY) with the frequency each clock already has,
 * on CLOCK_TOD_REALTIME and CLOCK_REALTIME in turn, 500 times a second
 * each. Then it prints the file and writes it as JSON: per section the
 * count, sum, maximum and histogram (quarter octaves of ns), as the kernel
 * counted them. Exit status 1 if anything failed (no file, a call that
 * returned an error, a section that never ran).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mount.h>

#include "load.h"

#define SECTIONS "/sys/kernel/debug/newtod_sections"

static atomic_int stop;

static void *spin(void *arg)
{
	cpu_set_t set;
	volatile unsigned long n = 0;

	CPU_ZERO(&set);
	CPU_SET((int)(long)arg, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		n++;
	return NULL;
}

int main(int argc, char **argv)
{
	int secs, i, ncpu = sysconf(_SC_NPROCESSORS_ONLN), bad = 0, lines = 0;
	const char *json;
	long calls, errors;
	pthread_t th[64];
	char line[4096];
	FILE *f, *out = NULL;

	i = load_args(argc, argv, "sections", &secs, &json);
	if (i)
		return i;
	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > 64)
		ncpu = 64;
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	f = fopen(SECTIONS, "w");
	if (!f || fputs("0\n", f) == EOF || fclose(f)) {
		fprintf(stderr, "sections: cannot clear %s: %s (the kernel needs CONFIG_NEWTOD_SECTION_STATS)\n",
			SECTIONS, strerror(errno));
		return 1;
	}
	for (i = 0; i < ncpu; i++)
		pthread_create(&th[i], NULL, spin, (void *)(long)i);
	load_adjtimex("sections", secs, &calls, &errors);
	atomic_store(&stop, 1);
	for (i = 0; i < ncpu; i++)
		pthread_join(th[i], NULL);

	f = fopen(SECTIONS, "r");
	if (!f) {
		fprintf(stderr, "sections: cannot read %s: %s\n", SECTIONS, strerror(errno));
		return 1;
	}
	if (json && !(out = fopen(json, "w"))) {
		fprintf(stderr, "sections: cannot write %s: %s\n", json, strerror(errno));
		fclose(f);
		return 1;
	}
	if (out)
		fprintf(out, "{\"seconds\": %d, \"cpus\": %d, \"adjtimex_calls\": %ld, \"adjtimex_errors\": %ld,\n \"sections\": [",
			secs, ncpu, calls, errors);
	printf("%d s, %d CPUs busy, %ld adjtimex calls (%ld failed)\n", secs, ncpu, calls, errors);
	i = 0;
	while (fgets(line, sizeof(line), f)) {
		char name[64], *p, *tok, *save = NULL;
		long long count, sum, max;
		int n, first = 1;

		fputs(line, stdout);
		if (line[0] == '#')
			continue;
		if (sscanf(line, "%63s %lld %lld %lld%n", name, &count, &sum, &max, &n) != 4) {
			fprintf(stderr, "sections: cannot parse '%s'\n", line);
			bad = 1;
			continue;
		}
		lines++;
		/* every section but settime and switch runs in this workload */
		if (!count && strcmp(name, "tod_settime_page") && strcmp(name, "tod_switch_page")) {
			fprintf(stderr, "sections: %s never ran\n", name);
			bad = 1;
		}
		if (!out)
			continue;
		fprintf(out, "%s\n  {\"name\": \"%s\", \"count\": %lld, \"sum_ns\": %lld, \"max_ns\": %lld, \"buckets\": [",
			i++ ? "," : "", name, count, sum, max);
		for (p = line + n; (tok = strtok_r(p, " \n", &save)); p = NULL) {
			long long floor, c;

			if (sscanf(tok, "%lld:%lld", &floor, &c) != 2)
				continue;
			fprintf(out, "%s[%lld, %lld]", first ? "" : ", ", floor, c);
			first = 0;
		}
		fprintf(out, "]}");
	}
	fclose(f);
	if (out) {
		fprintf(out, "\n]}\n");
		if (fclose(out)) {
			fprintf(stderr, "sections: writing %s: %s\n", json, strerror(errno));
			bad = 1;
		}
	}
	if (!lines)
		fprintf(stderr, "sections: %s had no sections\n", SECTIONS);
	return bad || errors || !lines ? 1 : 0;
}
