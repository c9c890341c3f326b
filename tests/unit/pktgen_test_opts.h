/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen's option parser on one line of words (split at spaces), for
 * test_pktgen.c and test_pktgen_io.c. @return pg_opts_parse's; @p err gets
 * its message.
 */
#ifndef UNIC_TESTS_PKTGEN_TEST_OPTS_H
#define UNIC_TESTS_PKTGEN_TEST_OPTS_H

#include <stdio.h>
#include <string.h>

#include "pktgen_opts.h"

static inline int pg_test_parse(struct pg_opts *o, const char *line, char *err, size_t errlen)
{
	static char buf[1024];
	char *argv[64];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = (char *)"unic-pktgen";
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	pg_opts_init(o);
	err[0] = '\0';
	return pg_opts_parse(o, argc, argv, err, errlen);
}

#endif
