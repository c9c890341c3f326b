/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_opts.h"

int app_parse_u64(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out,
		  char *err, size_t errlen)
{
	char *end;
	unsigned long long x;

	errno = 0;
	if (v[0] < '0' || v[0] > '9')
		goto bad;
	x = strtoull(v, &end, 10);
	if (errno || *end != '\0' || x < min || x > max)
		goto bad;
	*out = x;
	return 0;
bad:
	snprintf(err, errlen, "option %s: bad value '%s'; expected a whole number from %" PRIu64
		 " to %" PRIu64, opt, v, min, max);
	return -EINVAL;
}
