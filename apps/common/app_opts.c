/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int app_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int app_parse_mac(const char *v, uint8_t mac[6])
{
	uint8_t m[6];

	if (strlen(v) != 17)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		int h = app_hexval(v[3 * i]), l = app_hexval(v[3 * i + 1]);

		if (h < 0 || l < 0 || (i < 5 && v[3 * i + 2] != ':' && v[3 * i + 2] != '-'))
			return -EINVAL;
		m[i] = (uint8_t)(h << 4 | l);
	}
	memcpy(mac, m, 6);
	return 0;
}
