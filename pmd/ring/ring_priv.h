/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring port: two ports linked as a pair, what one transmits on queue q
 * the other receives on queue q (docs/ports.md).
 *
 * Objects and who owns them:
 *
 *   struct ring_pair     shared by the two ports; refcounted (one reference
 *                        per port that is linked to it, taken at creation,
 *                        dropped at close); freed by the last port to close.
 *                        Holds one channel per direction and queue.
 *   struct ring_chan     lives in the pair: the place where side s's rx
 *                        queue q is published for the other side's tx queue q.
 *   struct ring_rxq      in the receiving port's private area. Owns the
 *                        software ring (SP/SC: one sender thread, one poller)
 *                        and the eventfd doorbell; both created at rx queue
 *                        setup, destroyed at release.
 *   struct ring_txq      in the sending port's private area; points at the
 *                        channel it feeds.
 *
 * Lifetimes across the pair (the sender runs while the receiver reconfigures
 * or closes): the sender reaches the receiver's rx queue only through
 * chan->rxq, and only between setting chan->tx_busy and clearing it. Release
 * unpublishes chan->rxq, then waits for tx_busy to clear before it frees the
 * ring or closes the eventfd (fences (B1)/(B2) below). The channel itself is
 * in the pair, which outlives both ports' queues.
 */
#ifndef PMD_RING_PRIV_H
#define PMD_RING_PRIV_H

#include <unic/ring.h>
#include <unic/pool.h>
#include <unic/barrier.h>

#include "unic_port_driver.h"

#define RING_SPEED_MBPS   10000
#define RING_DESC_MIN     32
#define RING_DESC_MAX     32768
#define RING_DESC_DEFAULT 1024

/*
 * One receive queue. The first line is read by the peer's sender on every
 * burst and written rarely (setup, interrupt arm/disarm); the poller's
 * counters are on their own line so counting does not bounce it.
 */
struct ring_rxq {
	struct unic_ring *ring;       /* NULL: not set up */
	uint32_t size;                /* nb_desc: at most this many queued (the ring
				       * itself is the next power of two) */
	int efd;                      /* doorbell, -1: none */
	uint32_t intr_enabled;        /* written by the poller, read by the sender */
	uint16_t port_id;
	uint16_t qid;
	uint64_t doorbell_writes;     /* written by the sender (atomic add) */

	struct unic_rxq_counters cnt UNIC_CACHE_ALIGNED; /* the poller's */
} UNIC_CACHE_ALIGNED;

struct ring_chan {
	struct ring_rxq *rxq;         /* published by the receiver; NULL: none */
	uint32_t tx_busy;             /* the sender is inside a burst */
} UNIC_CACHE_ALIGNED;

struct ring_txq {
	struct ring_chan *chan;       /* NULL: not set up */
	struct unic_txq_counters cnt; /* counters: the sender's */
	struct unic_counter ring_full; /* packets not taken: the peer's ring was full */
	struct unic_counter no_peer;  /* packets not taken: no rx queue on the other side */
} UNIC_CACHE_ALIGNED;

struct ring_pair {
	uint32_t refcnt;              /* under ring_link_lock */
	struct unic_port *side[2];    /* linked ports (not references); under ring_link_lock */
	struct ring_chan chan[2][UNIC_PORT_MAX_QUEUES]; /* [s][q]: into side s, queue q */
};

struct ring_port {
	struct ring_pair *pair;       /* set at creation, cleared at close */
	unsigned side;                /* 0 or 1 in the pair */
	bool link_down;               /* "set link down" (the link is up otherwise) */
	struct ring_rxq rxq[UNIC_PORT_MAX_QUEUES];
	struct ring_txq txq[UNIC_PORT_MAX_QUEUES];
};

/* Fast path (ring_rxtx.c). */
uint16_t ring_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n);
uint16_t ring_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n);
bool ring_rx_pending(void *q);
int ring_rx_intr_enable(void *q);
int ring_rx_intr_disable(void *q);

#endif /* PMD_RING_PRIV_H */
