/* SPDX-License-Identifier: BSD-3-Clause */
/* "key=value,key=value" arguments of virtual device specs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port_private.h"

/* Walk the items of @p args: @return the next item's length, 0 at the end. */
static size_t kv_next(const char **p)
{
	const char *s = *p, *e;

	if (*s == ',')
		s++;
	*p = s;
	e = strchr(s, ',');
	return e ? (size_t)(e - s) : strlen(s);
}

int unic_kvargs_get(const char *args, const char *key, const char **val)
{
	const char *p = args ? args : "";
	size_t klen = strlen(key);

	for (;;) {
		size_t len = kv_next(&p);

		if (len == 0)
			return -ENOENT;
		if (len > klen && strncmp(p, key, klen) == 0 && p[klen] == '=') {
			*val = p + klen + 1;
			return (int)(len - klen - 1);
		}
		p += len;
	}
}

int unic_kvargs_check(const char *drv, const char *args, const char *const *keys)
{
	const char *p = args ? args : "";

	for (;;) {
		size_t len = kv_next(&p), klen;
		const char *eq;
		bool known = false;

		if (len == 0)
			return 0;
		eq = memchr(p, '=', len);
		klen = eq ? (size_t)(eq - p) : len;
		for (unsigned i = 0; keys[i]; i++)
			if (strlen(keys[i]) == klen && strncmp(p, keys[i], klen) == 0)
				known = true;
		if (!eq || !known) {
			char list[256] = "";
			size_t off = 0;

			for (unsigned i = 0; keys[i] && off < sizeof(list); i++)
				off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s=...",
							i ? ", " : "", keys[i]);
			UNIC_LOG(ERR, PORT, "%s: argument '%.*s' %s; accepted: %s", drv, (int)len, p,
				 eq ? "is unknown" : "is not key=value", list[0] ? list : "none");
			return -EINVAL;
		}
		p += len;
	}
}

int unic_kvargs_u32(const char *drv, const char *args, const char *key,
		    uint32_t min, uint32_t max, uint32_t *out)
{
	const char *v;
	char buf[32], *end;
	int len = unic_kvargs_get(args, key, &v);
	unsigned long x;

	if (len < 0)
		return len;
	if (len == 0 || len >= (int)sizeof(buf))
		goto bad;
	memcpy(buf, v, (size_t)len);
	buf[len] = '\0';
	errno = 0;
	x = strtoul(buf, &end, 0);
	if (errno || *end != '\0' || buf[0] == '-' || x < min || x > max)
		goto bad;
	*out = (uint32_t)x;
	return 0;
bad:
	UNIC_LOG(ERR, PORT, "%s: %s=%.*s; expected a number in %u..%u", drv, key, len < 0 ? 0 : len,
		 len < 0 ? "" : v, min, max);
	return -EINVAL;
}
