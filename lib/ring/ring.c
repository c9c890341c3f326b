/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/ring.h>
#include <unic/log.h>

size_t unic_ring_memsize(uint32_t count)
{
	if (!unic_is_pow2(count) || count > UNIC_RING_SZ_MAX)
		return 0;
	return UNIC_ALIGN_CEIL(sizeof(struct unic_ring) + (size_t)count * sizeof(void *),
			       (size_t)UNIC_CACHE_LINE_SIZE);
}

int unic_ring_init(struct unic_ring *r, const char *name, uint32_t count,
		   uint32_t flags)
{
	if (!unic_is_pow2(count) || count > UNIC_RING_SZ_MAX) {
		UNIC_LOG(ERR, RING, "ring '%s': size %u is not a power of two in 1..%u",
			 name ? name : "", count, UNIC_RING_SZ_MAX);
		return -EINVAL;
	}
	if (flags & ~(UNIC_RING_F_SP_ENQ | UNIC_RING_F_SC_DEQ)) {
		UNIC_LOG(ERR, RING, "ring '%s': unknown flags 0x%x (known: SP_ENQ 0x1, SC_DEQ 0x2)",
			 name ? name : "", flags);
		return -EINVAL;
	}
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name ? name : "");
	r->size = count;
	r->mask = count - 1;
	r->capacity = count;
	r->flags = flags;
	r->prod.single = !!(flags & UNIC_RING_F_SP_ENQ);
	r->cons.single = !!(flags & UNIC_RING_F_SC_DEQ);
	return 0;
}

struct unic_ring *unic_ring_create(const char *name, uint32_t count, uint32_t flags)
{
	size_t sz = unic_ring_memsize(count);
	struct unic_ring *r;
	int rc;

	if (sz == 0) {
		UNIC_LOG(ERR, RING, "ring '%s': size %u is not a power of two in 1..%u",
			 name ? name : "", count, UNIC_RING_SZ_MAX);
		errno = EINVAL;
		return NULL;
	}
	r = aligned_alloc(UNIC_CACHE_LINE_SIZE, sz);
	if (r == NULL) {
		UNIC_LOG(ERR, RING, "ring '%s': cannot allocate %zu bytes", name ? name : "", sz);
		errno = ENOMEM;
		return NULL;
	}
	rc = unic_ring_init(r, name, count, flags);
	if (rc < 0) {
		free(r);
		errno = -rc;
		return NULL;
	}
	r->allocated = 1;
	return r;
}

void unic_ring_destroy(struct unic_ring *r)
{
	if (r != NULL && r->allocated)
		free(r);
}

void unic_ring_reset(struct unic_ring *r)
{
	r->prod.head = r->prod.tail = r->prod.other_cache = 0;
	r->cons.head = r->cons.tail = r->cons.other_cache = 0;
}
