/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one rule for option structs (docs/port-layer.md, "Option structs"):
 * the first member is size_t sz = sizeof(the struct) as the caller's
 * headers knew it. A smaller struct (a program built against older
 * headers) is taken, and the members past its end are zero, i.e. their
 * defaults; sz 0 (not set), or larger than this library's struct (newer
 * headers: members it cannot honour), is refused.
 */
#ifndef UNIC_CONF_H
#define UNIC_CONF_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Copy the caller's struct @p src into @p dst (this library's size
 * @p dst_size), zeroing what the caller's struct does not have.
 * @return 0, or -EINVAL (src NULL, sz 0 or above dst_size). */
static inline int unic_conf_copy(void *dst, size_t dst_size, const void *src)
{
	size_t sz;

	if (src == NULL)
		return -EINVAL;
	memcpy(&sz, src, sizeof(sz));
	if (sz < sizeof(sz) || sz > dst_size)
		return -EINVAL;
	memset(dst, 0, dst_size);
	memcpy(dst, src, sz);
	memcpy(dst, &dst_size, sizeof(dst_size));
	return 0;
}

#endif /* UNIC_CONF_H */
