/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring port's fast path: burst calls, the rx re-check and the rx
 * interrupt (an eventfd doorbell the sender rings).
 *
 * No locks, no heap, no logs above debug. Each queue is used by one thread,
 * so the software rings are SP/SC: the producer is the peer's tx queue q, the
 * consumer this port's rx queue q.
 *
 * Fences (x86: unic_smp_mb is a locked add; elsewhere a seq_cst fence):
 *
 *  (B1) ring_tx_burst: tx_busy = 1, fence, load chan->rxq.
 *       Pairs with (B2) in ring_port.c (rx queue release): chan->rxq = NULL,
 *       fence, load tx_busy. Either the sender sees NULL and touches nothing,
 *       or the release sees tx_busy set and waits until the burst is over
 *       before freeing the ring and closing the eventfd.
 *
 *  (D1) ring_tx_burst: publish the packets (the ring's release store of its
 *       producer tail), fence, load rxq->intr_enabled.
 *       Pairs with (D2) in ring_rx_intr_enable: intr_enabled = 1, fence, then
 *       the caller's re-check (unic_rx_pending: load of the producer tail).
 *       Store then load on both sides, so without the fences both loads could
 *       see the old values: the sender would skip the doorbell and the poller
 *       would find the ring empty and sleep, with a packet stranded. With
 *       them, at least one side sees the other's store: the sender rings, or
 *       the re-check finds the packet. Nothing else between the poller's
 *       store and its load is a barrier (the engine's napi_complete calls the
 *       two back to back), so (D2) is needed on x86 too: tests/unit/
 *       test_ring_port.c's lockstep and litmus tests fail with either fence
 *       removed.
 */
#include <errno.h>
#include <unistd.h>

#include "ring_priv.h"

uint16_t ring_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct ring_rxq *rxq = q;
	uint64_t bytes = 0;
	uint32_t got, i;

	/* Acquire on the producer tail (inside): the packets' contents
	 * written by the sender before it enqueued are visible (ring.h (P1)). */
	got = unic_ring_sc_dequeue_burst(rxq->ring, (void **)pkts, n);
	for (i = 0; i < got; i++) {
		struct unic_pkt *p = pkts[i];

		p->port = rxq->port_id;
		p->queue = rxq->qid;
		bytes += p->pkt_len;
	}
	unic_counter_add(&rxq->cnt.packets, got);
	unic_counter_add(&rxq->cnt.bytes, bytes);
	return (uint16_t)got;
}

static void ring_doorbell(struct ring_rxq *rxq)
{
	uint64_t one = 1;

	/* Non-blocking eventfd: the write only fails if the counter would
	 * overflow (2^64 - 2 unread rings), and then it is readable anyway. */
	if (write(rxq->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
		__atomic_fetch_add(&rxq->doorbell_writes, 1, __ATOMIC_RELAXED);
}

uint16_t ring_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct ring_txq *txq = q;
	struct ring_chan *chan = txq->chan;
	struct ring_rxq *rxq;
	uint64_t bytes = 0;
	uint32_t sent, i;

	unic_store_relaxed(&chan->tx_busy, 1);
	unic_smp_mb(); /* (B1): pairs with (B2) in ring_rxq_release */
	rxq = unic_load_acquire(&chan->rxq); /* pairs with the release store at setup */
	if (UNIC_UNLIKELY(rxq == NULL)) {
		/* The other side has no rx queue q (no peer, not set up, or
		 * closed): nothing is taken, as a NIC with nowhere to send. */
		unic_counter_add(&txq->no_peer, n);
		unic_store_release(&chan->tx_busy, 0);
		return 0;
	}

	/* Sizes are read while the packets are still ours: once enqueued, the
	 * receiver may free them at any moment. */
	if (UNIC_UNLIKELY(rxq->size < unic_ring_capacity(rxq->ring))) {
		/* A queue of nb_desc slots in a ring of the next power of
		 * two: keep at most nb_desc queued. We are the only producer,
		 * so the count only overestimates (a stale consumer tail). */
		uint32_t used = unic_ring_count(rxq->ring);
		uint32_t room = used < rxq->size ? rxq->size - used : 0;

		if (room < n) {
			unic_counter_add(&txq->ring_full, n - room);
			n = (uint16_t)room;
		}
	}
	for (i = 0; i < n; i++)
		bytes += pkts[i]->pkt_len;
	sent = unic_ring_sp_enqueue_burst(rxq->ring, (void *const *)pkts, n);
	if (UNIC_UNLIKELY(sent < n)) {
		/* The caller keeps pkts[sent..n-1]; they are still ours. */
		for (i = sent; i < n; i++)
			bytes -= pkts[i]->pkt_len;
		unic_counter_add(&txq->ring_full, n - sent);
	}
	if (sent > 0) {
		unic_smp_mb(); /* (D1): pairs with (D2) in ring_rx_intr_enable */
		if (unic_load_relaxed(&rxq->intr_enabled))
			ring_doorbell(rxq);
	}
	/* Release: every access to rxq above happens before a release that
	 * sees tx_busy == 0 (B2) goes on to free its ring. */
	unic_store_release(&chan->tx_busy, 0);

	unic_counter_add(&txq->cnt.packets, sent);
	unic_counter_add(&txq->cnt.bytes, bytes);
	UNIC_LOG_DP(DEBUG, PMD, "ring tx: %u of %u", sent, n);
	return (uint16_t)sent;
}

bool ring_rx_pending(void *q)
{
	const struct ring_rxq *rxq = q;

	/* Acquire load of the producer tail: the re-check half of (D2). */
	return !unic_ring_empty(rxq->ring);
}

int ring_rx_intr_enable(void *q)
{
	struct ring_rxq *rxq = q;

	unic_store_relaxed(&rxq->intr_enabled, 1);
	/* (D2): pairs with (D1) in ring_tx_burst. The caller's re-check
	 * (ring_rx_pending) is the load this fence orders after the store. */
	unic_smp_mb();
	return 0;
}

int ring_rx_intr_disable(void *q)
{
	struct ring_rxq *rxq = q;

	/* No fence: a sender that saw the old value rings once more, which is
	 * a spurious wake, never a lost one. */
	unic_store_relaxed(&rxq->intr_enabled, 0);
	return 0;
}
