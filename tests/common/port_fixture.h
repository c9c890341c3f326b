/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports for unit tests: a no-huge memory context with a packet pool, and
 * virtual ports (ring, null) created, set up the usual way (every queue,
 * one rx mode) and taken down, with Criterion assertions whose messages
 * carry the captured log (log_capture.h).
 */
#ifndef TESTS_COMMON_PORT_FIXTURE_H
#define TESTS_COMMON_PORT_FIXTURE_H

#include <stdint.h>

#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

/** A --no-huge memory context (ordinary pages, no root). */
struct unic_mem *fixture_mem(void);
/** A --no-huge memory context in *@p mem and a packet pool of @p count
 * packets (NUMA node -1) in *@p pool. */
void fixture_mem_pool(struct unic_mem **mem, struct unic_pool **pool, const char *name, uint32_t count,
		      uint32_t cache_size);
/** Free what fixture_mem_pool() made. */
void fixture_mem_pool_free(struct unic_mem *mem, struct unic_pool *pool);

/** unic_vdev_create(@p spec), which must succeed. */
struct unic_port *fixture_port_create(const char *spec);
/** Configure @p nq rx and tx queues of @p nb_desc rx descriptors from @p pool
 * (tx at the driver's default size) in rx mode @p mode. */
void fixture_port_configure(struct unic_port *p, struct unic_pool *pool, uint16_t nq, uint16_t nb_desc,
			    enum unic_rx_mode mode);
/** fixture_port_configure(), then start. */
void fixture_port_up(struct unic_port *p, struct unic_pool *pool, uint16_t nq, uint16_t nb_desc,
		     enum unic_rx_mode mode);
/** Stop (when started), close and detach (when not detached yet), put. */
void fixture_port_down(struct unic_port *p);

#endif /* TESTS_COMMON_PORT_FIXTURE_H */
