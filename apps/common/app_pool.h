/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Packet pools of the applications: how many packets a port's pool must
 * hold, and one pool per port, named after it, on its NUMA node.
 *
 * One pool per port, not one for every port: a memif client with
 * zero-copy=yes lends its whole rx pool to the server (docs/ports.md,
 * "Zero-copy (client)"), which can then read and write every packet of it;
 * a pool of its own keeps the other ports' packets out of the peer's reach.
 */
#ifndef UNIC_APP_POOL_H
#define UNIC_APP_POOL_H

#include <stdint.h>

struct unic_mem;
struct unic_pool;
struct unic_port;

/* What holds a port's packets at once. */
struct app_pool_need {
	uint32_t nb_rxq, nb_txq;    /* the port's queues */
	uint32_t rxd, txd;          /* descriptors of each rx queue; of each tx queue its packets sit in */
	uint32_t rx_burst;          /* packets one poll of an rx queue may hold outside the ring */
	uint32_t tx_burst;          /* packets waiting for a tx queue outside its ring */
	uint32_t nb_threads;        /* threads that may keep a cache of the pool */
	uint32_t cache_size;        /* the pool's per-thread cache */
};

/*
 * Packets of the port layer's rule (docs/port-layer.md, "Pool sizing"):
 * nb_rxq * (rxd + rx_burst) + nb_txq * (txd + tx_burst) + one cache per
 * thread at its flush threshold (1.5 * cache_size); at most UINT32_MAX / 2.
 */
static inline uint32_t app_pool_need(const struct app_pool_need *n)
{
	uint64_t per_cache = (uint64_t)n->cache_size + (n->cache_size + 1) / 2;
	uint64_t v = (uint64_t)n->nb_rxq * ((uint64_t)n->rxd + n->rx_burst) +
		     (uint64_t)n->nb_txq * ((uint64_t)n->txd + n->tx_burst) + n->nb_threads * per_cache;

	return v > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)v;
}

/*
 * Create @p port's packet pool: @p count packets, a per-thread cache of
 * @p cache_size, a data room of @p dataroom (0: the default), named
 * "<app>-<port name>" (truncated to UNIC_POOL_NAMESIZE - 1), on the port's
 * NUMA node, in shareable memory when the port lends its rx buffers to a
 * peer (unic_port_info.rx_pool_shareable: memif zero-copy=yes).
 * @return the pool, or NULL with errno as unic_pktpool_create() sets it.
 */
struct unic_pool *app_port_pool_create(struct unic_mem *mem, struct unic_port *port, const char *app,
				       uint32_t count, uint32_t cache_size, uint16_t dataroom);

/*
 * The same for an application that names and places its pools itself
 * (unic-testpmd: --no-numa, --socket-num): @p name as given, on
 * @p numa_node (-1: none asked, which the pool takes as node 0).
 */
struct unic_pool *app_pool_create(struct unic_mem *mem, struct unic_port *port, const char *name,
				  uint32_t count, uint32_t cache_size, uint16_t dataroom, int numa_node);

#endif /* UNIC_APP_POOL_H */
