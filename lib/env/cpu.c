/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Core lists ("0,2-3") and pinning threads to cores.
 */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <unic/env.h>
#include <unic/log.h>

#include "env_priv.h"

#define CPU_ONLINE_PATH "/sys/devices/system/cpu/online"

typedef int (*range_fn)(void *ctx, int lo, int hi, char *why, size_t whylen);

/* Read a decimal core number at *p; advance *p past it. */
static int parse_cpu_id(const char **p, int *out, char *why, size_t whylen)
{
	const char *s = *p;
	long v = 0;

	if (!isdigit((unsigned char)*s)) {
		if (*s == '\0')
			snprintf(why, whylen, "a core number is missing at the end");
		else
			snprintf(why, whylen, "expected a core number at '%s'", s);
		return -EINVAL;
	}
	while (isdigit((unsigned char)*s)) {
		v = v * 10 + (*s - '0');
		if (v > ENV_CPU_ID_MAX) {
			snprintf(why, whylen, "core number at '%s' is above %d",
				 *p, ENV_CPU_ID_MAX);
			return -EINVAL;
		}
		s++;
	}
	*out = (int)v;
	*p = s;
	return 0;
}

/*
 * Walk "N,N-M,..." and call @p fn for each range. The grammar is the kernel's
 * cpulist format without strides: no spaces, no empty items, ascending ranges.
 */
static int cpu_ranges_walk(const char *s, range_fn fn, void *ctx,
			   char *why, size_t whylen)
{
	const char *p = s;
	int lo, hi, rc;

	if (*p == '\0') {
		snprintf(why, whylen, "the list is empty");
		return -EINVAL;
	}
	for (;;) {
		rc = parse_cpu_id(&p, &lo, why, whylen);
		if (rc < 0)
			return rc;
		hi = lo;
		if (*p == '-') {
			p++;
			rc = parse_cpu_id(&p, &hi, why, whylen);
			if (rc < 0)
				return rc;
			if (hi < lo) {
				snprintf(why, whylen,
					 "range %d-%d is descending (write %d-%d)",
					 lo, hi, hi, lo);
				return -EINVAL;
			}
		}
		rc = fn(ctx, lo, hi, why, whylen);
		if (rc < 0)
			return rc;
		if (*p == '\0')
			return 0;
		if (*p != ',') {
			snprintf(why, whylen, "unexpected '%c' at '%s'", *p, p);
			return -EINVAL;
		}
		p++;
	}
}

struct collect {
	int *cores;
	unsigned max;
	unsigned n;
};

static int collect_range(void *ctx, int lo, int hi, char *why, size_t whylen)
{
	struct collect *c = ctx;
	unsigned i;
	int cpu;

	for (cpu = lo; cpu <= hi; cpu++) {
		for (i = 0; i < c->n; i++) {
			if (c->cores[i] == cpu) {
				snprintf(why, whylen, "core %d is listed twice", cpu);
				return -EINVAL;
			}
		}
		if (c->n == c->max) {
			snprintf(why, whylen, "it names more than %u cores (the limit)",
				 c->max);
			return -E2BIG;
		}
		c->cores[c->n++] = cpu;
	}
	return 0;
}

int env_cpu_list_parse(const char *s, int *cores, unsigned max,
		       char *why, size_t whylen)
{
	struct collect c = { .cores = cores, .max = max };
	int rc;

	if (s == NULL || cores == NULL) {
		snprintf(why, whylen, "no list given");
		return -EINVAL;
	}
	rc = cpu_ranges_walk(s, collect_range, &c, why, whylen);
	return rc < 0 ? rc : (int)c.n;
}

int unic_cpu_list_parse(const char *s, int *cores, unsigned max)
{
	char why[128];
	int rc;

	rc = env_cpu_list_parse(s, cores, max, why, sizeof(why));
	if (rc < 0)
		UNIC_LOG(ERR, ENV, "bad core list '%s': %s; expected %s",
			 s ? s : "(null)", why, ENV_CPU_LIST_FORMS);
	return rc;
}

struct member {
	int cpu;
	bool found;
};

static int member_range(void *ctx, int lo, int hi, char *why, size_t whylen)
{
	struct member *m = ctx;

	(void)why;
	(void)whylen;
	if (m->cpu >= lo && m->cpu <= hi)
		m->found = true;
	return 0;
}

int env_cpu_online(int cpu, char *online, size_t len)
{
	struct member m = { .cpu = cpu };
	char why[128];
	size_t n;
	FILE *f;

	snprintf(online, len, "unknown");
	f = fopen(CPU_ONLINE_PATH, "re");
	if (f == NULL)
		return -errno;
	if (fgets(online, (int)len, f) == NULL) {
		fclose(f);
		snprintf(online, len, "unknown");
		return -EIO;
	}
	fclose(f);
	n = strlen(online);
	while (n > 0 && isspace((unsigned char)online[n - 1]))
		online[--n] = '\0';
	if (cpu_ranges_walk(online, member_range, &m, why, sizeof(why)) < 0)
		return -EIO;
	return m.found;
}

int unic_thread_pin_self(int cpu)
{
	char online[256];
	cpu_set_t *set;
	size_t sz;
	int rc;

	if (cpu < 0) {
		UNIC_LOG(ERR, ENV, "cannot pin to CPU %d: CPU numbers start at 0", cpu);
		return -EINVAL;
	}
	/* An unreadable online list is no reason to refuse: the kernel checks
	 * again below. */
	if (env_cpu_online(cpu, online, sizeof(online)) == 0) {
		UNIC_LOG(ERR, ENV, "cannot pin to CPU %d: it is not online; online CPUs: %s",
			 cpu, online);
		return -EINVAL;
	}
	set = CPU_ALLOC(cpu + 1);
	if (set == NULL)
		return -ENOMEM;
	sz = CPU_ALLOC_SIZE(cpu + 1);
	CPU_ZERO_S(sz, set);
	CPU_SET_S(cpu, sz, set);
	rc = pthread_setaffinity_np(pthread_self(), sz, set);
	CPU_FREE(set);
	if (rc == EINVAL) {
		UNIC_LOG(ERR, ENV,
			 "cannot pin to CPU %d: it is outside the CPUs this process may use (cgroup cpuset or taskset); online CPUs: %s",
			 cpu, online);
		return -EINVAL;
	}
	if (rc != 0) {
		UNIC_LOG(ERR, ENV, "cannot pin to CPU %d: %s", cpu, strerror(rc));
		return -rc;
	}
	return 0;
}
