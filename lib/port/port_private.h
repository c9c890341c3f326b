/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared between the files of lib/port. */
#ifndef UNIC_PORT_PRIVATE_H
#define UNIC_PORT_PRIVATE_H

#include "unic_port_driver.h"

/* A claim on one queue (unic_port_poller_claim). */
struct unic_port_poller {
	unic_port_poller_fn release;      /* NULL: nobody claimed the queue */
	void *owner;
	const struct unic_port_poller_stats *stats;  /* NULL: none published */
	uint64_t stats_base[UNIC_PORT_POLLER_STATS_MAX];  /* at the last stats_reset */
};

/*
 * The core's own part of a port, around the drivers' struct unic_port. One
 * allocation: [struct port_core ... | struct unic_port][private area]; the
 * port pointer everyone holds is &core->port, so the fast path (port->fp at
 * offset 0 of struct unic_port) reads it with no indirection. Only lib/port
 * sees these fields.
 */
struct port_core {
	pthread_mutex_t lock;             /* control path */
	uint32_t refcnt;                  /* atomic */
	uint16_t id;
	bool registered;
	enum unic_port_state state;
	struct unic_port_stats stats_base;  /* subtracted: stats_reset */
	/* What released queues counted (their counters summed by the core). */
	struct unic_port_stats cnt_base;
	/* DMA memory for the driver's rings (unic_port_dma_*), and the zones
	 * it holds, freed at close if the driver did not. */
	struct unic_mem *dma_mem;
	struct unic_port_dma_zone *dma_zones;
	uint64_t *xstats_base;              /* driver xstats at the last reset */
	unsigned nb_xstats_base;
	/* Pollers of the queues (lib/napi): rx 0..15, then tx 0..15. Under
	 * lock; stopping is set while stop releases them (claims refused). */
	struct unic_port_poller pollers[2 * UNIC_PORT_MAX_QUEUES];
	bool stopping;
	/* The bus took the device back (unic_port_device_lost): only stats,
	 * info, close and detach work from then on. Written under the lock with
	 * a release store; drivers load it with acquire without the lock
	 * (unic_port_is_removed). */
	bool removed;
	/* close is running the driver's close op (which may wait for the bus's
	 * release handler): unic_port_device_lost must not wait for the lock. */
	bool closing;
	/* Receive filters as last set through the port layer (promisc_set,
	 * allmulti_set succeeded); the drivers keep them across stop/start. */
	bool promisc, allmulti;
	/* Flow rules created through the port layer (flow.c), newest first;
	 * ids from flow_next_id, never reused while the port lives. */
	struct port_flow *flows;
	uint32_t flow_next_id;
	bool flow_isolated;
	size_t priv_size;
	struct unic_port port;            /* last: the private area follows */
};

static inline struct port_core *port_core(const struct unic_port *port)
{
	return UNIC_CONTAINER_OF(port, struct port_core, port);
}

/* The driver's reason for its largest MTU (unic_driver mtu_max_why), or NULL. */
static inline const char *port_mtu_why(const struct unic_port *port)
{
	return port->drv ? port->drv->mtu_max_why : NULL;
}

/* Lock the port and check it may still call its driver (not closed, not
 * detached). @return 0 with the lock held, or -ENODEV without it. */
int port_lock_alive(struct unic_port *port, const char *what);
void port_unlock(struct unic_port *port);
/* Lock held: -ENODEV (and the message) once the device was taken back. */
int port_check_removed(struct unic_port *port, const char *what);

/* Packets a port's queues may hold from @p pool, as queue setup counts it. */
uint64_t port_pool_need(const struct unic_port *port, const struct unic_pool *pool,
			uint16_t q, uint16_t nb_desc, char *why, size_t why_len);

/* probe.c: probe through @p table (unic_drivers, or a test's). Ports
 * created are stored in @p ports (up to @p max, with the drivers'
 * references) and counted in *nb_created, whatever the result. @return
 * their number, or the first error (unic_port_probe_pci's list). */
int port_probe_table(struct unic_bus *bus, const struct unic_driver *const *table,
		     const char *const *allow, unsigned nb_allow,
		     struct unic_port **ports, unsigned max, unsigned *nb_created);
/* unic_port_probe_pci through @p table: on an error, the ports created are
 * detached and released. */
int port_probe_pci_table(struct unic_bus *bus, const struct unic_driver *const *table,
			 const char *const *allow, unsigned nb_allow,
			 struct unic_port **ports, unsigned max);

/* counters.c, lock held. Release rx (tx: tx) queue @p q if it is set up
 * (the driver's release op) and clear port->rxq[q] (txq[q]), keeping what
 * its counters counted in the sums. */
void port_queue_release(struct unic_port *port, bool tx, unsigned q);
/* The sum of the queues' counters since the port was created, into @p st
 * (every field written). */
void port_stats_sum(struct unic_port *port, struct unic_port_stats *st);

/* flow.c: forget every rule; with @p driver, have the driver undo each
 * first (close, lock held; the last put frees only the memory). */
void port_flow_free_all(struct unic_port *port, bool driver);

/* dma.c: free every DMA zone the driver still holds (close, last put). */
void port_dma_free_all(struct unic_port *port);

#endif /* UNIC_PORT_PRIVATE_H */
