/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif client's zero-copy path (zero-copy=yes, docs/ports.md "memif
 * zero-copy"): the rx pool's packets are lent to the server, no copy on
 * our side.
 *
 * In memif only the client creates memory (the server maps what it is
 * sent), so only a client can lend buffers. At start every rx queue's pool
 * must lie in one shareable zone (unic_pktpool_conf.shareable: a sealed
 * memfd of lib/mem's), which is sent as one more region (1, 2, ...;
 * region 0 keeps the rings and the copy buffers).
 *
 *   rx (S2C, we write head): each slot lends a pool packet: the descriptor
 *      names (region, offset) of its data room. When the server hands the
 *      slot back (tail), the descriptor must still name exactly the buffer
 *      lent in that slot; anything else (another region, another offset,
 *      a length beyond the room) is counted (rx_zc_bad_addr, rx_too_long)
 *      and dropped, never followed, and the slot's packet is lent again.
 *      A good frame is the lent packet itself; its slot gets a fresh one.
 *   tx (C2S, we write head): a single-segment packet of a lent pool goes
 *      in the descriptor as is and stays in q->zc_pkts[slot] until the
 *      server's tail passes the slot (then it is freed); any other packet
 *      (another pool, a chain) is copied into the slot's region-0 buffer
 *      and freed at once (tx_zc_copied); one longer than that buffer is
 *      dropped (tx_too_long).
 *
 * The queue's thread is the only one that touches q->zc_pkts while the
 * ring is published; the control thread fills it before publishing and
 * empties it after unpublishing (memif_ctrl.c, fences (B1)/(B2)).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/mem.h>

#include "memif_priv.h"
#include "unic_pool_span.h"

/* ---- start: the pools as regions ---- */

int memif_zc_prepare(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);
	struct memif_cfg *cfg = &mp->cfg;
	uint16_t q, i;

	cfg->nb_zc = 0;
	for (q = 0; q < MEMIF_MAX_QUEUES; q++) {
		mp->rxq[q].zc = mp->txq[q].zc = false;
		mp->rxq[q].zcp = mp->txq[q].zcp = NULL;
		mp->rxq[q].nb_zcp = mp->txq[q].nb_zcp = 0;
	}
	if (!cfg->zc)
		return 0;
	for (q = 0; q < cfg->nb_rxq; q++) {
		struct unic_pool *pool = mp->rxq[q].pool;
		struct unic_pool_span span;
		struct memif_zc_pool *zp;
		uint64_t off;
		size_t flen;
		int fd;

		for (i = 0; i < cfg->nb_zc && cfg->zcp[i].pool != pool; i++)
			;
		if (i == cfg->nb_zc) {
			if (pool == NULL || !pool->is_pktpool) {
				UNIC_PORT_LOG(port, ERR, "zero-copy=yes: rx queue %u has no packet pool", q);
				return -EINVAL;
			}
			if (unic_pool_span_get(pool, &span) < 0) {
				UNIC_PORT_LOG(port, ERR, "zero-copy=yes: rx queue %u's pool %s lies in "
					      "several memory zones (PA mode cuts a pool by hugepage); "
					      "a region must hold it whole: use VA mode, or zero-copy=no",
					      q, pool->name);
				return -EINVAL;
			}
			if (unic_mem_zone_fd(span.dma, &fd, &off, &flen) < 0) {
				UNIC_PORT_LOG(port, ERR, "zero-copy=yes: rx queue %u's pool %s is not in "
					      "shareable memory, so the server cannot map it: create it "
					      "with unic_pktpool_conf.shareable = true (unic-testpmd does "
					      "for a port that asks), or use zero-copy=no", q, pool->name);
				return -EINVAL;
			}
			if (flen > MEMIF_REGION_MAX_SIZE) {
				UNIC_PORT_LOG(port, ERR, "zero-copy=yes: pool %s is %zu bytes, over the "
					      "4 GiB a memif region can address; make it smaller",
					      pool->name, flen);
				return -EINVAL;
			}
			zp = &cfg->zcp[cfg->nb_zc++];
			zp->pool = pool;
			zp->region = (uint16_t)cfg->nb_zc; /* 1.. */
			zp->base = (uint8_t *)span.dma->va - off;
			zp->size = flen;
			zp->fd = fd;
			UNIC_PORT_LOG(port, INFO, "memif zero-copy: pool %s (%u packets) lent to the "
				      "server as region %u (%zu bytes): the server can read and write "
				      "every packet of this pool while connected; give the pool to "
				      "this port alone", pool->name, pool->count, zp->region, flen);
		}
		mp->rxq[q].zc = true;
		mp->rxq[q].zcp = &cfg->zcp[i];
		mp->rxq[q].nb_zcp = 1;
	}
	for (q = 0; q < cfg->nb_txq; q++) {
		mp->txq[q].zc = true;
		mp->txq[q].zcp = cfg->zcp;
		mp->txq[q].nb_zcp = cfg->nb_zc;
	}
	return 0;
}

/* ---- the control thread's part ---- */

static inline uint32_t memif_zc_off(const struct memif_zc_pool *zp, const struct unic_pkt *p,
				    uint16_t headroom)
{
	return (uint32_t)(unic_pkt_buf(p) + headroom - zp->base);
}

/* Lend slot @p s's packet: the descriptor names its data room. */
static inline void memif_zc_lend(struct memif_ring *ring, uint16_t s, const struct memif_zc_pool *zp,
				 const struct unic_pkt *p, uint16_t headroom)
{
	struct memif_desc d = { .flags = 0, .region = zp->region,
				.length = (uint32_t)(p->buf_len - headroom),
				.offset = memif_zc_off(zp, p, headroom), .metadata = 0 };

	memcpy(&ring->desc[s], &d, sizeof(d)); /* a slot the server does not own yet */
}

int memif_zc_queue_up(struct memif_queue *q, struct memif_ring *ring, bool rx)
{
	uint16_t s;

	q->zc_pkts = calloc(q->size, sizeof(*q->zc_pkts));
	if (q->zc_pkts == NULL) {
		UNIC_LOG(ERR, PMD, "memif zero-copy: queue %u: no memory for %u slots; the queue "
			 "stays down", q->qid, q->size);
		return -ENOMEM;
	}
	q->zc_done = 0;
	if (!rx)
		return 0;
	for (s = 0; s < q->size; s++) {
		struct unic_pkt *p = unic_pkt_alloc(q->zcp->pool);

		if (p == NULL) {
			/* Lend what there is; the fast path lends the rest. */
			unic_counter_add(&q->rxc.nombuf, 1);
			break;
		}
		q->zc_pkts[s] = p;
		memif_zc_lend(ring, s, q->zcp, p, q->zcp->pool->pkt_headroom);
	}
	q->own = s;
	unic_store_release(&ring->head, q->own);
	return 0;
}

void memif_zc_queue_down(struct memif_queue *q)
{
	if (q->zc_pkts == NULL)
		return;
	for (uint32_t s = 0; s < q->size; s++)
		if (q->zc_pkts[s] != NULL)
			unic_pkt_free(q->zc_pkts[s]);
	free(q->zc_pkts);
	q->zc_pkts = NULL;
}

/* ---- fast path ---- */

/* As memif_rxtx.c: count it, stop using the ring, wake the control thread. */
static void memif_zc_broken(struct memif_queue *q)
{
	uint64_t one = 1;

	unic_counter_add(&q->bad_index, 1);
	if (__atomic_exchange_n(&q->broken, 1, __ATOMIC_RELAXED) == 0)
		if (write(q->wake_fd, &one, sizeof(one)) < 0)
			UNIC_LOG_DP(DEBUG, PMD, "memif: wake-up write failed");
}

uint16_t memif_zc_rx_burst(struct memif_queue *q, struct memif_ring *ring,
			   struct unic_pkt **pkts, uint16_t n)
{
	const struct memif_zc_pool *zp = q->zcp;
	uint16_t headroom = zp->pool->pkt_headroom, mask = q->mask, region = zp->region;
	uint16_t prod, avail, max_avail, last = q->last, head, end, got = 0;
	struct unic_pkt **slots = q->zc_pkts;
	uint64_t bytes = 0;

	/* Acquire: the descriptors and data the server wrote before tail. */
	prod = unic_load_acquire(&ring->tail);
	max_avail = (uint16_t)(q->own - last); /* only what we lent */
	avail = (uint16_t)(prod - last);
	if (UNIC_UNLIKELY(avail > max_avail)) {
		memif_zc_broken(q);
		return 0;
	}
	while (avail > 0 && got < n) {
		uint16_t s = last & mask, used = 1;
		struct unic_pkt *p = slots[s];
		struct memif_desc d;

		d.flags = unic_load_relaxed(&ring->desc[s].flags);
		d.region = unic_load_relaxed(&ring->desc[s].region);
		d.length = unic_load_relaxed(&ring->desc[s].length);
		d.offset = unic_load_relaxed(&ring->desc[s].offset);
		if (UNIC_UNLIKELY(d.flags & MEMIF_DESC_FLAG_NEXT)) {
			/* A chain: longer than the room we lent. Skip to its end;
			 * every slot keeps its packet, lent again below. */
			while (used < avail &&
			       (unic_load_relaxed(&ring->desc[(uint16_t)(last + used) & mask].flags) &
				MEMIF_DESC_FLAG_NEXT))
				used++;
			if (used == avail) {
				if (avail == max_avail)
					memif_zc_broken(q); /* never ends */
				break;                      /* its end is not here yet */
			}
			used++;
			unic_counter_add(&q->too_long, 1);
			unic_counter_add(&q->rxc.errors, 1);
		} else if (UNIC_UNLIKELY(p == NULL || d.region != region ||
					 d.offset != memif_zc_off(zp, p, headroom))) {
			/* Not the buffer this slot lent: never followed. */
			unic_counter_add(&q->zc_bad_addr, 1);
			unic_counter_add(&q->rxc.errors, 1);
		} else if (UNIC_UNLIKELY(d.length == 0 || d.length > (uint32_t)(p->buf_len - headroom))) {
			unic_counter_add(d.length ? &q->too_long : &q->bad_desc, 1);
			unic_counter_add(&q->rxc.errors, 1);
		} else {
			unic_pkt_reset(p, headroom);
			p->data_len = (uint16_t)d.length;
			p->pkt_len = d.length;
			p->port = q->port_id;
			p->queue = q->qid;
			bytes += d.length;
			pkts[got++] = p;
			slots[s] = NULL;
		}
		last = (uint16_t)(last + used);
		avail = (uint16_t)(avail - used);
	}
	q->last = last;

	/* Lend every free slot: a fresh packet where one was delivered. */
	head = q->own;
	end = (uint16_t)(last + q->size);
	while (head != end) {
		uint16_t s = head & mask;
		struct unic_pkt *p = slots[s];

		if (p == NULL) {
			p = unic_pkt_alloc(zp->pool);
			if (UNIC_UNLIKELY(p == NULL)) {
				unic_counter_add(&q->rxc.nombuf, 1); /* better luck next burst */
				break;
			}
			slots[s] = p;
		}
		memif_zc_lend(ring, s, zp, p, headroom);
		head++;
	}
	if (head != q->own) {
		q->own = head;
		/* Release: the descriptors above before the head that lends them. */
		unic_store_release(&ring->head, head);
	}
	unic_counter_add(&q->rxc.packets, got);
	unic_counter_add(&q->rxc.bytes, bytes);
	return got;
}

/* The lent pool @p p belongs to, if it may go as is (one segment). */
static inline const struct memif_zc_pool *memif_zc_pool_of(const struct memif_queue *q,
							    const struct unic_pkt *p)
{
	if (p->next != NULL || p->data_len != p->pkt_len)
		return NULL;
	for (uint16_t i = 0; i < q->nb_zcp; i++)
		if (q->zcp[i].pool == p->pool)
			return &q->zcp[i];
	return NULL;
}

/* Copy @p p (any segments) into slot @p s's region-0 buffer; false if it
 * does not fit. */
static bool memif_zc_copy(const struct memif_queue *q, struct memif_ring *ring, uint16_t s,
			  const struct unic_pkt *p)
{
	uint8_t *dst = q->regions[0].addr + q->buf_off + (uint32_t)s * q->bsize;
	uint32_t off = 0;
	struct memif_desc d;

	if (p->pkt_len > q->bsize)
		return false;
	for (const struct unic_pkt *seg = p; seg != NULL && off < p->pkt_len; seg = seg->next) {
		uint32_t len = UNIC_MIN((uint32_t)seg->data_len, p->pkt_len - off);

		memcpy(dst + off, unic_pkt_data(seg), len);
		off += len;
	}
	d = (struct memif_desc){ .flags = 0, .region = 0, .length = off,
				 .offset = q->buf_off + (uint32_t)s * q->bsize, .metadata = 0 };
	memcpy(&ring->desc[s], &d, sizeof(d));
	return true;
}

uint16_t memif_zc_tx_burst(struct memif_queue *q, struct memif_ring *ring,
			   struct unic_pkt **pkts, uint16_t n)
{
	uint16_t tail, inflight, free, slot = 0, sent, own = q->own, mask = q->mask;
	struct unic_pkt **slots = q->zc_pkts;
	uint64_t bytes = 0, dropped = 0;

	/* Acquire: the server is done with the slots before its tail. */
	tail = unic_load_acquire(&ring->tail);
	inflight = (uint16_t)(own - tail);
	if (UNIC_UNLIKELY(inflight > q->size ||
			  (uint16_t)(tail - q->zc_done) > (uint16_t)(own - q->zc_done))) {
		memif_zc_broken(q);
		unic_counter_add(&q->link_down, n);
		return 0;
	}
	/* Completion: the packets the server consumed go back to their pool,
	 * a bulk put at a time. */
	if (q->zc_done != tail) {
		struct unic_pkt *done[64];
		uint32_t nd = 0;

		while (q->zc_done != tail) {
			uint16_t s = q->zc_done & mask;

			if (slots[s] != NULL) {
				done[nd++] = slots[s];
				slots[s] = NULL;
				if (nd == UNIC_ARRAY_SIZE(done)) {
					unic_pkt_free_bulk(done, nd);
					nd = 0;
				}
			}
			q->zc_done++;
		}
		unic_pkt_free_bulk(done, nd);
	}
	free = (uint16_t)(q->size - inflight);
	for (sent = 0; sent < n && slot < free; sent++) {
		struct unic_pkt *p = pkts[sent];
		const struct memif_zc_pool *zp = memif_zc_pool_of(q, p);
		uint16_t s = (uint16_t)(own + slot) & mask;
		uint32_t len = p->pkt_len;

		if (UNIC_UNLIKELY(len == 0)) {
			dropped++;
			unic_pkt_free(p);
			continue;
		}
		if (UNIC_LIKELY(zp != NULL)) {
			struct memif_desc d = { .flags = 0, .region = zp->region, .length = len,
						.offset = (uint32_t)((uint8_t *)unic_pkt_data(p) - zp->base),
						.metadata = 0 };

			memcpy(&ring->desc[s], &d, sizeof(d)); /* our own slot: one store */
			slots[s] = p; /* freed once the server is past it */
		} else if (memif_zc_copy(q, ring, s, p)) {
			unic_counter_add(&q->zc_copied, 1);
			unic_pkt_free(p);
		} else {
			unic_counter_add(&q->too_long, 1);
			dropped++;
			unic_pkt_free(p);
			continue;
		}
		bytes += len;
		slot++;
	}
	if (slot > 0) {
		q->own = (uint16_t)(own + slot);
		/* Release: the buffers and descriptors before the index. */
		unic_store_release(&ring->head, q->own);
		unic_smp_mb(); /* (D1) of memif_rxtx.c */
		if (!(unic_load_relaxed(&ring->flags) & MEMIF_RING_FLAG_MASK_INT) && q->efd >= 0) {
			uint64_t one = 1;

			if (write(q->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
				__atomic_fetch_add(&q->signals, 1, __ATOMIC_RELAXED);
		}
	}
	if (sent < n)
		unic_counter_add(&q->ring_full, n - sent);
	unic_counter_add(&q->txc.packets, sent - dropped);
	unic_counter_add(&q->txc.bytes, bytes);
	if (dropped)
		unic_counter_add(&q->txc.errors, dropped);
	return sent;
}
