/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared between the files of lib/env; not installed. */
#ifndef UNIC_ENV_PRIV_H
#define UNIC_ENV_PRIV_H

#include <stddef.h>

/* Accepted forms of a core list, for messages. */
#define ENV_CPU_LIST_FORMS \
	"core numbers or ranges N-M (ascending), comma-separated, e.g. 0,2-3 or 0-3,8"

/* Largest core number a list may name; far above any kernel's NR_CPUS. */
#define ENV_CPU_ID_MAX 65535

/*
 * Parse a core list into @p cores without logging; on error the reason
 * ("core 2 is listed twice") is written to @p why.
 * Returns the number of cores, -EINVAL or -E2BIG.
 */
int env_cpu_list_parse(const char *s, int *cores, unsigned max,
		       char *why, size_t whylen);

/*
 * Is @p cpu online? Writes the online list (as in sysfs, "0-3") to
 * @p online. Returns 1, 0, or -errno if the online list cannot be read.
 */
int env_cpu_online(int cpu, char *online, size_t len);

#endif /* UNIC_ENV_PRIV_H */
