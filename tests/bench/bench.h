/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Output shared by the benchmarks: one line per figure, "<name> <value>
 * <unit>", or with --json one JSON document with the same figures.
 */
#ifndef UNIC_BENCH_H
#define UNIC_BENCH_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/cycles.h>
#include <unic/log.h>
#include <unic/mem.h>

#define BENCH_MAX_RESULTS 1024

struct bench {
	const char *name;
	bool json;
	bool no_huge;
	double scale;     /* multiplies iteration counts (--scale) */
	unsigned nb;
	struct {
		char name[64];
		double value;
		const char *unit;
	} res[BENCH_MAX_RESULTS];
};

static inline void bench_usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--json] [--no-huge] [--scale X]\n"
		"  --json      print one JSON document instead of lines\n"
		"  --no-huge   ordinary pages instead of hugepages\n"
		"  --scale X   multiply iteration counts by X (default 1)\n",
		prog);
}

/* @return 0, or 2 after printing usage for a bad argument. */
static inline int bench_init(struct bench *b, const char *name, int argc, char **argv)
{
	memset(b, 0, sizeof(*b));
	b->name = name;
	b->scale = 1.0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--json") == 0) {
			b->json = true;
		} else if (strcmp(argv[i], "--no-huge") == 0) {
			b->no_huge = true;
		} else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
			char *end;
			b->scale = strtod(argv[++i], &end);
			if (*end != '\0' || b->scale <= 0) {
				fprintf(stderr, "%s: --scale expects a positive number, got '%s'\n",
					argv[0], argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "%s: unknown argument '%s'\n", argv[0], argv[i]);
			bench_usage(argv[0]);
			return 2;
		}
	}
	return 0;
}

static inline void bench_add(struct bench *b, const char *name, double value, const char *unit)
{
	if (b->nb >= BENCH_MAX_RESULTS) {
		/* Never silently: say which figure was dropped. */
		fprintf(stderr, "%s: more than %d figures; %s not kept (raise BENCH_MAX_RESULTS)\n",
			b->name, BENCH_MAX_RESULTS, name);
		return;
	}
	snprintf(b->res[b->nb].name, sizeof(b->res[b->nb].name), "%s", name);
	b->res[b->nb].value = value;
	b->res[b->nb].unit = unit;
	b->nb++;
	if (!b->json) {
		printf("%s %.3f %s\n", name, value, unit);
		fflush(stdout);
	}
}

static inline void bench_finish(struct bench *b)
{
	if (!b->json)
		return;
	printf("{\"benchmark\": \"%s\", \"tsc_hz\": %llu, \"results\": [", b->name,
	       (unsigned long long)unic_tsc_hz());
	for (unsigned i = 0; i < b->nb; i++)
		printf("%s\n  {\"name\": \"%s\", \"value\": %.3f, \"unit\": \"%s\"}", i ? "," : "",
		       b->res[i].name, b->res[i].value, b->res[i].unit);
	printf("\n]}\n");
}

static inline unsigned long bench_iters(const struct bench *b, unsigned long base)
{
	unsigned long n = (unsigned long)((double)base * b->scale);
	return n ? n : 1;
}

/* The memory context the command line asks for (--no-huge: ordinary
 * pages, else hugepages), with the library's log at warnings. NULL after
 * saying why on stderr. */
static inline struct unic_mem *bench_mem(const struct bench *b)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = b->no_huge };
	struct unic_mem *mem;

	unic_log_set_level(-1, UNIC_LOG_WARNING);
	mem = unic_mem_create(&mc);
	if (mem == NULL)
		fprintf(stderr, "cannot set up memory (%s); run with --no-huge, or reserve hugepages as the message above says\n",
			strerror(errno));
	return mem;
}

#endif /* UNIC_BENCH_H */
