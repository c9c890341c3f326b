/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a pool's objects lie, for a driver that registers them with the
 * kernel as one memory area (af_xdp: the rx pool as the socket's UMEM, so
 * received frames are packets with no copy). Not for applications.
 */
#ifndef UNIC_POOL_SPAN_H
#define UNIC_POOL_SPAN_H

#include <stddef.h>

#include <unic/mem.h>
#include <unic/pool.h>

/** The objects of a pool laid out in one run: object k is at first + k * stride. */
struct unic_pool_span {
	void *first;          /* object 0 */
	size_t stride;        /* pool->elt_size */
	uint32_t count;       /* objects */
	void *zone;           /* the memory zone that holds them */
	size_t zone_len;
	const struct unic_dma *dma; /* the zone; for a shareable pool,
				       unic_mem_zone_fd(dma, ...) gives its fd */
};

/**
 * Fill @p span when every object of @p pool is in one zone (one chunk: a
 * pool in VA mode, or one that fits a page in PA mode).
 * @return 0, or -E2BIG (the objects are in several zones).
 */
int unic_pool_span_get(const struct unic_pool *pool, struct unic_pool_span *span);

#endif /* UNIC_POOL_SPAN_H */
