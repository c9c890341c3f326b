/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_xdp fast path: the four rings of an AF_XDP socket (the kernel's
 * Documentation/networking/af_xdp.rst). Receive takes descriptors off the rx
 * ring, copies each frame into a packet of the rx pool and gives the frame
 * back to the fill ring; transmit copies each packet into a free transmit
 * frame, puts it on the tx ring and takes frames back from the completion
 * ring. Every address, length and producer index the kernel wrote is
 * checked before use (af_xdp_priv.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include <unic/pool.h>

#include "af_xdp_priv.h"

/*
 * Entries the kernel produced on @p r, at most @p nb. The producer index is
 * loaded with acquire (it pairs with the kernel's release store after it
 * wrote the descriptors). A producer more than a ring ahead of our consumer
 * cannot be the kernel's: it is counted in @p bad and nothing is taken.
 */
static uint32_t afxdp_cons_avail(struct xsk_ring_cons *r, uint32_t nb, struct unic_counter *bad)
{
	uint32_t entries = r->cached_prod - r->cached_cons;

	if (entries == 0) {
		r->cached_prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		entries = r->cached_prod - r->cached_cons;
		if (UNIC_UNLIKELY(entries > r->size)) {
			unic_counter_add(bad, 1);
			r->cached_prod = r->cached_cons;
			return 0;
		}
	}
	return entries < nb ? entries : nb;
}

/* A wake-up the kernel asked for (need_wakeup): recvfrom for the fill
 * ring, sendto for the tx ring. Non-blocking; the caller counts. */
static int afxdp_kick_rx(struct afxdp_queue *xq)
{
	if (xq->fd < 0)
		return 0;
	unic_counter_add(&xq->rx_x[AFXDP_RX_WAKEUPS], 1);
	return (int)recvfrom(xq->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

static uint32_t afxdp_complete(struct afxdp_queue *xq);
static uint32_t afxdp_complete_pool(struct afxdp_queue *xq);

/*
 * The tx kick. In copy mode the kernel sends inside the call, at most 32
 * frames of the tx ring a call (net/xdp/xsk.c, TX_BATCH_SIZE), and says
 * EAGAIN when it stopped with more left (or found the completion ring or
 * the socket's send buffer full); EBUSY when the device was busy. Kick
 * again then, with the completions taken back first, while each call took
 * some frames and some are left, at most as many times as the ring has
 * batches: the frames of a burst leave in this call, not at the next.
 * @return completions taken back.
 */
static uint32_t afxdp_kick_tx(struct afxdp_queue *xq)
{
	uint32_t reaped = 0, tries = xq->nb_tx_frames / 32 + 2, cons;

	if (xq->fd < 0)
		return 0;
	for (;;) {
		cons = __atomic_load_n(xq->tx.consumer, __ATOMIC_ACQUIRE);
		unic_counter_add(&xq->tx_x[AFXDP_TX_WAKEUPS], 1);
		if (sendto(xq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0)
			break;
		if (errno != EAGAIN && errno != EBUSY) {
			if (errno != ENOBUFS && errno != ENETDOWN)
				unic_counter_add(&xq->tx_x[AFXDP_TX_KICK_ERRORS], 1);
			break;
		}
		/* Nothing taken (a full completion ring or send buffer: the
		 * next burst reaps first), nothing left, or enough tries. */
		if (--tries == 0 || __atomic_load_n(xq->tx.consumer, __ATOMIC_ACQUIRE) == cons ||
		    __atomic_load_n(xq->tx.consumer, __ATOMIC_ACQUIRE) == *xq->tx.producer)
			break;
		reaped += xq->pool_umem ? afxdp_complete_pool(xq) : afxdp_complete(xq);
	}
	return reaped;
}

/* Give the stashed receive frames back to the fill ring, as many as it
 * takes now; the rest wait for the next burst. */
static void afxdp_refill(struct afxdp_queue *xq)
{
	uint32_t n = xq->fill_stash_n, idx = 0, got;

	if (n == 0)
		return;
	got = xsk_ring_prod__reserve(&xq->fq, n, &idx);
	for (uint32_t i = 0; i < got; i++) {
		uint32_t f = xq->fill_stash[n - 1 - i];

		xq->owned[f] = 1;
		*xsk_ring_prod__fill_addr(&xq->fq, idx + i) = (uint64_t)f << AFXDP_FRAME_SHIFT;
	}
	xq->fill_stash_n = n - got;
	if (got) {
		xsk_ring_prod__submit(&xq->fq, got);
		if (xsk_ring_prod__needs_wakeup(&xq->fq))
			afxdp_kick_rx(xq);
	}
}

uint32_t afxdp_fill_all(struct afxdp_queue *xq)
{
	xq->fill_stash_n = 0;
	for (uint32_t f = xq->nb_rx_frames; f-- > 0;)
		xq->fill_stash[xq->fill_stash_n++] = f;
	afxdp_refill(xq);
	return xq->nb_rx_frames - xq->fill_stash_n;
}

void afxdp_tx_frames_init(struct afxdp_queue *xq)
{
	xq->tx_free_n = 0;
	for (uint32_t i = xq->nb_tx_frames; i-- > 0;)
		xq->tx_free[xq->tx_free_n++] = xq->nb_rx_frames + i;
}

static uint16_t afxdp_rx_copy(struct afxdp_queue *xq, struct unic_pkt **pkts, uint16_t n)
{
	uint32_t avail, idx, i, out = 0, dataroom;
	uint64_t bytes = 0;

	avail = afxdp_cons_avail(&xq->rx, n, &xq->rx_x[AFXDP_RX_BAD_INDEX]);
	if (avail == 0) {
		afxdp_refill(xq);
		return 0;
	}
	/* A packet for each frame; with fewer, take fewer frames (the rest
	 * wait in the rx ring: better luck next round). */
	if (UNIC_UNLIKELY(unic_pkt_alloc_bulk(xq->pool, pkts, avail) != 0)) {
		uint32_t got;

		for (got = 0; got < avail; got++) {
			pkts[got] = unic_pkt_alloc(xq->pool);
			if (pkts[got] == NULL)
				break;
		}
		unic_counter_add(&xq->rcnt.nombuf, avail - got);
		avail = got;
		if (avail == 0)
			return 0;
	}
	dataroom = xq->pool->pkt_dataroom;
	idx = xq->rx.cached_cons;
	for (i = 0; i < avail; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&xq->rx, idx + i);
		uint64_t addr = d->addr, f = addr >> AFXDP_FRAME_SHIFT;
		uint32_t len = d->len, off = (uint32_t)(addr & (AFXDP_FRAME_SIZE - 1));
		struct unic_pkt *p = pkts[i];

		if (UNIC_UNLIKELY(f >= xq->nb_rx_frames || !xq->owned[f])) {
			/* Not a frame the kernel had: leave it alone. */
			unic_counter_add(&xq->rx_x[AFXDP_RX_BAD_ADDR], 1);
			unic_counter_add(&xq->rcnt.errors, 1);
			unic_pkt_free(p);
			continue;
		}
		xq->owned[f] = 0;
		xq->fill_stash[xq->fill_stash_n++] = (uint32_t)f;
		if (UNIC_UNLIKELY(len == 0 || off + len > AFXDP_FRAME_SIZE)) {
			unic_counter_add(&xq->rx_x[AFXDP_RX_BAD_LEN], 1);
			unic_counter_add(&xq->rcnt.errors, 1);
			unic_pkt_free(p);
			continue;
		}
		if (UNIC_UNLIKELY(len > dataroom)) {
			unic_counter_add(&xq->rx_x[AFXDP_RX_TOO_LONG], 1);
			unic_counter_add(&xq->rcnt.errors, 1);
			unic_pkt_free(p);
			continue;
		}
		memcpy(unic_pkt_data(p), xq->area + addr, len);
		p->data_len = (uint16_t)len;
		p->pkt_len = len;
		p->port = xq->port_id;
		p->queue = xq->qid;
		bytes += len;
		pkts[out++] = p;
	}
	/* libxdp's release publishes the consumer; our peek did not move
	 * the cached copy, so move it here. */
	xq->rx.cached_cons += avail;
	xsk_ring_cons__release(&xq->rx, avail);
	afxdp_refill(xq);
	unic_counter_add(&xq->rcnt.packets, out);
	unic_counter_add(&xq->rcnt.bytes, bytes);
	return (uint16_t)out;
}

/* Take transmitted frames back from the completion ring. @return frames. */
static uint32_t afxdp_complete(struct afxdp_queue *xq)
{
	uint32_t avail, idx, i, done = 0, total = xq->nb_rx_frames + xq->nb_tx_frames;

	avail = afxdp_cons_avail(&xq->cq, xq->nb_tx_frames, &xq->tx_x[AFXDP_TX_BAD_INDEX]);
	idx = xq->cq.cached_cons;
	for (i = 0; i < avail; i++) {
		uint64_t f = *xsk_ring_cons__comp_addr(&xq->cq, idx + i) >> AFXDP_FRAME_SHIFT;

		if (UNIC_UNLIKELY(f < xq->nb_rx_frames || f >= total || !xq->owned[f])) {
			unic_counter_add(&xq->tx_x[AFXDP_TX_BAD_ADDR], 1);
			continue;
		}
		xq->owned[f] = 0;
		xq->tx_free[xq->tx_free_n++] = (uint32_t)f;
		done++;
	}
	if (avail) {
		xq->cq.cached_cons += avail;
		xsk_ring_cons__release(&xq->cq, avail);
	}
	return done;
}

/* Copy a (possibly chained) packet into @p dst; the caller checked pkt_len. */
static void afxdp_copy_out(uint8_t *dst, const struct unic_pkt *p)
{
	for (; p; p = p->next) {
		memcpy(dst, unic_pkt_data(p), p->data_len);
		dst += p->data_len;
	}
}

static uint16_t afxdp_tx_copy(struct afxdp_queue *xq, struct unic_pkt **pkts, uint16_t n)
{
	uint32_t nb, idx = 0, i, used = 0;
	uint64_t bytes = 0, refused = 0;

	afxdp_complete(xq);
	nb = n < xq->tx_free_n ? n : xq->tx_free_n;
	nb = xsk_ring_prod__reserve(&xq->tx, nb, &idx);
	for (i = 0; i < nb; i++) {
		struct unic_pkt *p = pkts[i];
		struct xdp_desc *d;
		uint32_t f;

		if (UNIC_UNLIKELY(p->pkt_len > AFXDP_FRAME_SIZE || p->pkt_len == 0)) {
			refused++;
			unic_counter_add(&xq->tx_x[AFXDP_TX_TOO_LONG], 1);
			continue;
		}
		f = xq->tx_free[--xq->tx_free_n];
		xq->owned[f] = 1;
		afxdp_copy_out(xq->area + ((uint64_t)f << AFXDP_FRAME_SHIFT), p);
		d = xsk_ring_prod__tx_desc(&xq->tx, idx + used);
		d->addr = (uint64_t)f << AFXDP_FRAME_SHIFT;
		d->len = p->pkt_len;
		d->options = 0;
		bytes += p->pkt_len;
		used++;
	}
	/* Refused packets took no descriptor: give those back unpublished. */
	xq->tx.cached_prod -= nb - used;
	if (used)
		xsk_ring_prod__submit(&xq->tx, used);
	/* Copy mode sends only on a kick, and a zero-copy driver asks for one
	 * when it went idle: either way the ring says so. */
	if (xsk_ring_prod__needs_wakeup(&xq->tx))
		afxdp_kick_tx(xq);
	if (nb)
		unic_pkt_free_bulk(pkts, (uint16_t)nb);
	if (nb < n)
		unic_counter_add(&xq->tx_x[AFXDP_TX_RING_FULL], n - nb);
	unic_counter_add(&xq->tcnt.packets, used);
	unic_counter_add(&xq->tcnt.bytes, bytes);
	if (refused)
		unic_counter_add(&xq->tcnt.errors, refused);
	return (uint16_t)nb;
}

/* ---- pool UMEM ----------------------------------------------------------
 * The UMEM is the rx pool's zone (unaligned chunks). An address the kernel
 * hands back names a packet only if it falls in object k's buffer for a k
 * below nb_objs, and only if that packet is on our side of the rings now
 * (rx_owned / tx_owned); anything else is counted and left alone.
 */

/* The object whose buffer holds UMEM offset @p off, exactly at its start
 * when @p exact. @return its index, or UINT32_MAX. */
static uint32_t afxdp_obj(const struct afxdp_queue *xq, uint64_t off, bool exact)
{
	uint64_t k, r;

	if (off < xq->buf0)
		return UINT32_MAX;
	k = afxdp_stride_div(xq, off - xq->buf0, &r);
	if (k >= xq->nb_objs || (exact && r) || r >= xq->chunk)
		return UINT32_MAX;
	return (uint32_t)k;
}

static struct unic_pkt *afxdp_pkt(const struct afxdp_queue *xq, uint32_t k)
{
	return (struct unic_pkt *)(xq->first + (size_t)k * xq->stride);
}

static uint64_t afxdp_umem_off(const struct afxdp_queue *xq, const void *va)
{
	return (uint64_t)((const uint8_t *)va - xq->base);
}

uint32_t afxdp_fill_pool(struct afxdp_queue *xq)
{
	struct unic_pkt *tmp[64];

	while (xq->rx_held < xq->nb_rx_frames) {
		uint32_t want = xq->nb_rx_frames - xq->rx_held, idx = 0, got, k;

		want = want < 64 ? want : 64;
		want = xsk_ring_prod__reserve(&xq->fq, want, &idx);
		if (want == 0)
			break;
		got = want;
		if (UNIC_UNLIKELY(unic_pkt_alloc_bulk(xq->pool, tmp, want) != 0)) {
			for (got = 0; got < want; got++) {
				tmp[got] = unic_pkt_alloc(xq->pool);
				if (tmp[got] == NULL)
					break;
			}
			unic_counter_add(&xq->rcnt.nombuf, want - got);
			xq->fq.cached_prod -= want - got;  /* give back what we cannot fill */
		}
		for (k = 0; k < got; k++) {
			uint64_t off = afxdp_umem_off(xq, unic_pkt_buf(tmp[k]));

			xq->rx_owned[afxdp_obj(xq, off, true)] = 1;
			*xsk_ring_prod__fill_addr(&xq->fq, idx + k) = off;
		}
		if (got == 0)
			break;
		xsk_ring_prod__submit(&xq->fq, got);
		xq->rx_held += got;
		if (got < want)
			break;  /* the pool is short: better luck next burst */
	}
	if (xsk_ring_prod__needs_wakeup(&xq->fq))
		afxdp_kick_rx(xq);
	return xq->rx_held;
}

static uint16_t afxdp_rx_pool(struct afxdp_queue *xq, struct unic_pkt **pkts, uint16_t n)
{
	uint32_t avail, idx, i, out = 0;
	uint64_t bytes = 0;

	avail = afxdp_cons_avail(&xq->rx, n, &xq->rx_x[AFXDP_RX_BAD_INDEX]);
	idx = xq->rx.cached_cons;
	for (i = 0; i < avail; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&xq->rx, idx + i);
		uint64_t base = d->addr & XSK_UNALIGNED_BUF_ADDR_MASK;
		uint32_t off = (uint32_t)(d->addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT), len = d->len;
		uint32_t k = afxdp_obj(xq, base, true);
		struct unic_pkt *p;

		if (UNIC_UNLIKELY(k == UINT32_MAX || !xq->rx_owned[k])) {
			unic_counter_add(&xq->rx_x[AFXDP_RX_BAD_ADDR], 1);
			unic_counter_add(&xq->rcnt.errors, 1);
			continue;
		}
		xq->rx_owned[k] = 0;
		xq->rx_held--;
		p = afxdp_pkt(xq, k);
		if (UNIC_UNLIKELY(len == 0 || (uint64_t)off + len > xq->chunk)) {
			unic_counter_add(&xq->rx_x[AFXDP_RX_BAD_LEN], 1);
			unic_counter_add(&xq->rcnt.errors, 1);
			unic_pkt_free(p);
			continue;
		}
		unic_pkt_reset(p, (uint16_t)off);
		p->data_len = (uint16_t)len;
		p->pkt_len = len;
		p->port = xq->port_id;
		p->queue = xq->qid;
		bytes += len;
		pkts[out++] = p;
	}
	if (avail) {
		xq->rx.cached_cons += avail;
		xsk_ring_cons__release(&xq->rx, avail);
	}
	afxdp_fill_pool(xq);
	unic_counter_add(&xq->rcnt.packets, out);
	unic_counter_add(&xq->rcnt.bytes, bytes);
	return (uint16_t)out;
}

/* Free the packets the completion ring returns, a bulk put per 64.
 * @return packets freed. */
static uint32_t afxdp_complete_pool(struct afxdp_queue *xq)
{
	struct unic_pkt *done_pkts[64];
	uint32_t avail, idx, i, done = 0, nd = 0;

	avail = afxdp_cons_avail(&xq->cq, xq->nb_tx_frames, &xq->tx_x[AFXDP_TX_BAD_INDEX]);
	idx = xq->cq.cached_cons;
	for (i = 0; i < avail; i++) {
		uint64_t a = *xsk_ring_cons__comp_addr(&xq->cq, idx + i) & XSK_UNALIGNED_BUF_ADDR_MASK;
		uint32_t k = afxdp_obj(xq, a, false);

		if (UNIC_UNLIKELY(k == UINT32_MAX || !xq->tx_owned[k])) {
			unic_counter_add(&xq->tx_x[AFXDP_TX_BAD_ADDR], 1);
			continue;
		}
		xq->tx_owned[k] = 0;
		xq->tx_held--;
		done_pkts[nd++] = afxdp_pkt(xq, k);
		if (nd == UNIC_ARRAY_SIZE(done_pkts)) {
			unic_pkt_free_bulk(done_pkts, nd);
			done += nd;
			nd = 0;
		}
	}
	if (nd) {
		unic_pkt_free_bulk(done_pkts, nd);
		done += nd;
	}
	if (avail) {
		xq->cq.cached_cons += avail;
		xsk_ring_cons__release(&xq->cq, avail);
	}
	return done;
}

/* The longest frame transmit takes: what one packet of the UMEM's pool
 * holds (a copy goes into one), and no more than a chunk. */
static uint32_t afxdp_tx_max(const struct afxdp_queue *xq)
{
	if (!xq->pool_umem)
		return AFXDP_FRAME_SIZE;
	return xq->pool->pkt_dataroom < xq->chunk ? xq->pool->pkt_dataroom : xq->chunk;
}

static uint16_t afxdp_tx_pool(struct afxdp_queue *xq, struct unic_pkt **pkts, uint16_t n)
{
	uint32_t nb, idx = 0, i, used = 0, room, max;
	uint64_t bytes = 0, refused = 0;

	afxdp_complete_pool(xq);
	max = afxdp_tx_max(xq);
	room = xq->nb_tx_frames - xq->tx_held;
	nb = n < room ? n : room;
	nb = xsk_ring_prod__reserve(&xq->tx, nb, &idx);
	for (i = 0; i < nb; i++) {
		struct unic_pkt *p = pkts[i], *s = p;
		struct xdp_desc *d;
		uint64_t off;
		uint32_t k;

		if (UNIC_UNLIKELY(p->pkt_len > max || p->pkt_len == 0)) {
			refused++;
			unic_counter_add(&xq->tx_x[AFXDP_TX_TOO_LONG], 1);
			unic_pkt_free(p);
			continue;
		}
		k = p->pool == xq->pool && p->next == NULL ?
		    afxdp_obj(xq, afxdp_umem_off(xq, unic_pkt_data(p)), false) : UINT32_MAX;
		if (UNIC_UNLIKELY(k == UINT32_MAX)) {
			/* Not a packet of the UMEM (another pool, a chain, or
			 * data past the chunk): copy it into one that is. */
			s = unic_pkt_alloc(xq->pool);
			if (s == NULL)
				break;  /* the rest is the caller's: counted as ring full */
			afxdp_copy_out(unic_pkt_data(s), p);
			s->data_len = (uint16_t)p->pkt_len;
			s->pkt_len = p->pkt_len;
			unic_pkt_free(p);
			k = afxdp_obj(xq, afxdp_umem_off(xq, unic_pkt_data(s)), false);
		}
		off = afxdp_umem_off(xq, unic_pkt_data(s));
		xq->tx_owned[k] = 1;
		xq->tx_held++;
		d = xsk_ring_prod__tx_desc(&xq->tx, idx + used);
		d->addr = off;
		d->len = s->pkt_len;
		d->options = 0;
		bytes += s->pkt_len;
		used++;
	}
	/* Descriptors reserved and not written (refused packets, or the
	 * pool ran dry for a copy: pkts[i..] stay the caller's) go back. */
	xq->tx.cached_prod -= nb - used;
	if (used)
		xsk_ring_prod__submit(&xq->tx, used);
	if (xsk_ring_prod__needs_wakeup(&xq->tx))
		afxdp_kick_tx(xq);
	if (i < n)
		unic_counter_add(&xq->tx_x[AFXDP_TX_RING_FULL], n - i);
	unic_counter_add(&xq->tcnt.packets, used);
	unic_counter_add(&xq->tcnt.bytes, bytes);
	if (refused)
		unic_counter_add(&xq->tcnt.errors, refused);
	return (uint16_t)i;
}

void afxdp_release_pool(struct afxdp_queue *xq)
{
	for (uint32_t k = 0; k < xq->nb_objs; k++) {
		if ((xq->rx_owned && xq->rx_owned[k]) || (xq->tx_owned && xq->tx_owned[k]))
			unic_pkt_free(afxdp_pkt(xq, k));
	}
	xq->rx_held = xq->tx_held = 0;
}

uint16_t afxdp_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct afxdp_queue *xq = q;

	if (UNIC_UNLIKELY(n == 0))
		return 0;
	/* SO_PREFER_BUSY_POLL: with the rx ring empty, the syscall runs the
	 * driver's NAPI in this thread (and takes its work off the CPU that
	 * would run it in softirq); with frames waiting it would only cost. */
	if (xq->busy_poll && !afxdp_rx_pending(xq))
		afxdp_kick_rx(xq);
	return xq->pool_umem ? afxdp_rx_pool(xq, pkts, n) : afxdp_rx_copy(xq, pkts, n);
}

uint16_t afxdp_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct afxdp_queue *xq = q;

	return xq->pool_umem ? afxdp_tx_pool(xq, pkts, n) : afxdp_tx_copy(xq, pkts, n);
}

uint16_t afxdp_tx_prepare(void *q, struct unic_pkt **pkts, uint16_t n, int *err)
{
	uint32_t max = afxdp_tx_max(q);

	*err = 0;
	for (uint16_t i = 0; i < n; i++)
		if (pkts[i]->pkt_len > max || pkts[i]->pkt_len == 0) {
			*err = -EMSGSIZE;
			return i;
		}
	return n;
}

int afxdp_tx_reclaim(void *q)
{
	struct afxdp_queue *xq = q;
	bool busy = xq->pool_umem ? xq->tx_held > 0 : xq->tx_free_n < xq->nb_tx_frames;
	uint32_t reaped = 0;

	/* Frames still on the tx ring in copy mode go out only on a kick. */
	if (busy && xsk_ring_prod__needs_wakeup(&xq->tx))
		reaped = afxdp_kick_tx(xq);
	return (int)(reaped + (xq->pool_umem ? afxdp_complete_pool(xq) : afxdp_complete(xq)));
}

bool afxdp_rx_pending(void *q)
{
	struct afxdp_queue *xq = q;

	return __atomic_load_n(xq->rx.producer, __ATOMIC_ACQUIRE) != xq->rx.cached_cons;
}

/*
 * The socket's fd is the interrupt: the napi engine watches it for POLLIN,
 * level-triggered, and the kernel reports POLLIN while the rx ring holds a
 * descriptor. So there is nothing to unmask and no race to close: a frame
 * that lands after the engine's re-check keeps the fd readable. Arming
 * only gives the fill ring its wake-up if the kernel asked for one, so a
 * zero-copy driver has buffers while we sleep.
 */
int afxdp_rx_intr_enable(void *q)
{
	struct afxdp_queue *xq = q;

	__atomic_store_n(&xq->intr_enabled, 1, __ATOMIC_RELAXED);
	if (xq->pool_umem)
		afxdp_fill_pool(xq);
	else
		afxdp_refill(xq);
	if (xsk_ring_prod__needs_wakeup(&xq->fq))
		afxdp_kick_rx(xq);
	return 0;
}

int afxdp_rx_intr_disable(void *q)
{
	struct afxdp_queue *xq = q;

	__atomic_store_n(&xq->intr_enabled, 0, __ATOMIC_RELAXED);
	return 0;
}
