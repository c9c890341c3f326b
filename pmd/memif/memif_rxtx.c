/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif port's fast path: copy between the peer's shared buffers and
 * unic packets, in both directions and both roles (a zero-copy client's
 * queues go to memif_zc.c instead). No locks, no heap, no logs above debug.
 *
 * The four rings a queue can drive (memif_proto.h):
 *   rx, server: C2S, the client writes head; we read to head, write tail.
 *   rx, client: S2C, we write head (empty buffers handed over), the server
 *               writes tail; we read to tail.
 *   tx, client: C2S, we write head, the server writes tail.
 *   tx, server: S2C, the client writes head, we write tail.
 * q->we_own_head says which: the index we write is kept in q->own and never
 * read back from shared memory (the peer can overwrite it).
 *
 * What the peer writes is checked before use: an index that claims more
 * than the ring holds marks the ring broken (the control thread drops the
 * connection with a message, memif_ctrl.c); a descriptor outside the
 * agreed regions drops its frame (rx: bad_desc) or marks the ring broken
 * (tx into the peer's buffers). Each descriptor is copied once into a local
 * and only the copy is checked and used.
 *
 * Fences:
 *  (B1) entry: busy = 1, fence, load q->ring. Pairs with (B2) in
 *       memif_ctrl.c: ring = NULL, fence, load busy. Either we see NULL, or
 *       the control thread sees busy and waits before it unmaps. Once the
 *       process is registered for membarrier (memif_membarrier_ok), the
 *       entry's fence is a compiler barrier and (B2)'s fence is
 *       membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED), which runs a full
 *       fence on every thread of the process: the same guarantee, paid
 *       by the control thread at a disconnect instead of by every burst.
 *  (D1) tx: store of the index (release), fence, load of the peer's
 *       MASK_INT flag. Pairs with (D2) in memif_rx_intr_enable: clear
 *       MASK_INT, fence, the caller's re-check (memif_rx_pending). One of the
 *       two sides sees the other's store: the sender signals, or the re-check
 *       finds the frame. (A peer without the fence, DPDK's net_memif, can
 *       miss a wake-up in that window; the napi engine's max_sleep bounds
 *       it: docs/ports.md.)
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "memif_priv.h"

/* Frames a fast loop takes in one batch (descriptors checked and data
 * prefetched first, then copied). */
#define MEMIF_BATCH 32

uint32_t memif_membarrier_ok;

static inline struct memif_ring *memif_enter(struct memif_queue *q)
{
	unic_store_relaxed(&q->busy, 1);
	/* (B1). A full fence is a wait for every store still in flight,
	 * on memif the previous burst's to lines the peer's core reads
	 * (about 10 ticks a frame of a receive with the vCPUs far apart:
	 * docs/performance-notebook.md); with membarrier the control thread
	 * pays it instead, once per disconnect. */
	if (UNIC_LIKELY(unic_load_relaxed(&memif_membarrier_ok)))
		unic_compiler_barrier();
	else
		unic_smp_mb();
	return unic_load_acquire(&q->ring);
}

/* memif_enter with a fence whatever membarrier says: for a caller whose
 * store before it must be ordered before the load of the ring (arming
 * the interrupt, against memif_queue_up). */
static inline struct memif_ring *memif_enter_fenced(struct memif_queue *q)
{
	unic_store_relaxed(&q->busy, 1);
	unic_smp_mb();
	return unic_load_acquire(&q->ring);
}

static inline void memif_exit(struct memif_queue *q)
{
	unic_store_release(&q->busy, 0);
}

/* The peer broke the ring: count it, stop using the ring and have the
 * control thread drop the connection (one eventfd write, once). */
static void memif_broken(struct memif_queue *q)
{
	uint64_t one = 1;

	unic_counter_add(&q->bad_index, 1);
	if (__atomic_exchange_n(&q->broken, 1, __ATOMIC_RELAXED) == 0)
		if (write(q->wake_fd, &one, sizeof(one)) < 0)
			UNIC_LOG_DP(DEBUG, PMD, "memif: wake-up write failed");
}

/* Each field loaded once (a relaxed atomic load is never repeated or
 * invented by the compiler): the copy is what is checked and used. */
static inline void memif_desc_read(struct memif_desc *d, const struct memif_desc *shared)
{
	d->flags = unic_load_relaxed(&shared->flags);
	d->region = unic_load_relaxed(&shared->region);
	d->length = unic_load_relaxed(&shared->length);
	d->offset = unic_load_relaxed(&shared->offset);
	d->metadata = 0; /* not used */
}

/* The bytes @p d points at, if its region and [offset, offset + len) are
 * inside what the handshake agreed; else NULL. */
static inline uint8_t *memif_buf(const struct memif_region *regions, uint16_t nb_regions,
				 const struct memif_desc *d, uint32_t len)
{
	const struct memif_region *r;

	if (UNIC_UNLIKELY(d->region >= nb_regions))
		return NULL;
	r = &regions[d->region];
	if (UNIC_UNLIKELY(r->addr == NULL || (uint64_t)d->offset + len > r->size))
		return NULL;
	return r->addr + d->offset;
}

/*
 * Copy @p len bytes. memif carries short frames mostly: from 16 to 128
 * bytes the copy is inline, two fixed-size copies that overlap in the
 * middle (reading and writing only [0, len) of each buffer), where a call
 * to memcpy cost about as much as the rest of the frame's work (see
 * docs/performance-notebook.md, "memif and af_xdp per frame"). Longer
 * or shorter ones go to memcpy.
 */
static inline void memif_copy(uint8_t *restrict dst, const uint8_t *restrict src, uint32_t len)
{
	if (UNIC_LIKELY(len >= 16 && len <= 128)) {
		if (len > 64) {
			memcpy(dst, src, 64);
			memcpy(dst + len - 64, src + len - 64, 64);
		} else if (len > 32) {
			memcpy(dst, src, 32);
			memcpy(dst + len - 32, src + len - 32, 32);
		} else {
			memcpy(dst, src, 16);
			memcpy(dst + len - 16, src + len - 16, 16);
		}
		return;
	}
	memcpy(dst, src, len);
}

/*
 * Whether the CPU has PREFETCHW (CPUID 0x80000001 ECX bit 8: AMD since
 * K8, Intel since Broadwell). Asked once, on the first transmit; a race
 * asks twice and writes the same answer. 1 yes, 0 no, -1 not asked.
 */
static int memif_prefetchw_state = -1;

static bool memif_have_prefetchw(void)
{
	int st = unic_load_relaxed(&memif_prefetchw_state);

	if (UNIC_UNLIKELY(st < 0)) {
#if defined(__x86_64__) || defined(__i386__)
		unsigned a, b, c, d;

		st = __get_cpuid(0x80000001u, &a, &b, &c, &d) && (c & (1u << 8)) ? 1 : 0;
#else
		st = 1; /* __builtin_prefetch(p, 1) is the architecture's own */
#endif
		unic_store_relaxed(&memif_prefetchw_state, st);
	}
	return st;
}

/* Ask for the line at @p p with the right to write it: the sender's
 * buffer and descriptor lines were last read by the receiver on the other
 * core, so a store to them waits for that core to give them up. */
static inline void memif_prefetchw(const void *p)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("prefetchw %0" : : "m"(*(const uint8_t *)p));
#else
	__builtin_prefetch(p, 1, 3);
#endif
}

/* Client rx: hand every free slot back to the server with our buffer. */
static void memif_rx_refill(struct memif_queue *q, struct memif_ring *ring)
{
	uint16_t head = q->own, end = (uint16_t)(q->last + q->size);

	while (head != end) {
		uint16_t s = head & q->mask;
		struct memif_desc d = { .flags = 0, .region = 0, .length = q->bsize,
					.offset = q->buf_off + (uint32_t)s * q->bsize, .metadata = 0 };

		memcpy(&ring->desc[s], &d, sizeof(d)); /* a slot the server does not own yet */
		head++;
	}
	if (head != q->own) {
		q->own = head;
		/* Release: the descriptors above before the head that hands them. */
		unic_store_release(&ring->head, head);
	}
}

uint16_t memif_rx_burst(void *qv, struct unic_pkt **pkts, uint16_t n)
{
	struct memif_queue *q = qv;
	struct memif_ring *ring = memif_enter(q);
	uint16_t prod, avail, max_avail, got = 0, want, next = 0, last, mask, nb_regions, headroom;
	const struct memif_region *regions;
	uint64_t bytes = 0;
	bool bulk;

	if (UNIC_UNLIKELY(ring == NULL || unic_load_relaxed(&q->broken))) {
		memif_exit(q);
		return 0;
	}
	if (q->zc) { /* client zero-copy: memif_zc.c */
		got = memif_zc_rx_burst(q, ring, pkts, n);
		memif_exit(q);
		return got;
	}
	/* Acquire: the descriptors and data the peer wrote before the index. */
	if (q->we_own_head) {
		prod = unic_load_acquire(&ring->tail);
		max_avail = (uint16_t)(q->own - q->last); /* only what we handed over */
	} else {
		prod = unic_load_acquire(&ring->head);
		max_avail = q->size;
	}
	last = q->last;
	avail = (uint16_t)(prod - last);
	if (UNIC_UNLIKELY(avail > max_avail)) {
		memif_broken(q);
		memif_exit(q);
		return 0;
	}
	want = UNIC_MIN(n, avail);
	if (want == 0)
		goto refill;
	/* The copies below store through byte pointers, which may alias
	 * anything: what they need from q is read once, here. */
	mask = q->mask;
	regions = q->regions;
	nb_regions = q->nb_regions;
	headroom = q->pool->pkt_headroom;
	/* One bulk get for the burst, into pkts[] itself: frame i takes
	 * pkts[next] with next >= i, so a delivered frame never overwrites
	 * one not taken yet; what is left over goes back at the end. Each
	 * packet is reset where it is filled (its header line is written
	 * once). When the pool has fewer, one at a time. */
	bulk = unic_pool_get_bulk(q->pool, (void **)pkts, want) == 0;
	if (UNIC_LIKELY(bulk)) {
		/* The common case first: one descriptor a frame, good, fitting.
		 * Frame i fills pkts[i] (got == next); anything else goes to
		 * the general loop below, which takes over from there.
		 *
		 * In batches of up to MEMIF_BATCH frames, in two passes: the
		 * first reads and checks the batch's descriptors into locals
		 * and prefetches each frame's bytes, the second copies. Every
		 * line read here was just written by the sender on another
		 * core, so each is a cache miss of one core-to-core transfer
		 * (from 50 to over 200 ns on the test machine, by where the
		 * host runs the two vCPUs: docs/performance-notebook.md);
		 * frame by frame, the descriptor's miss and then the data's
		 * are paid one after the other, and only as many frames
		 * overlap as the core's window holds. Here the batch's
		 * descriptor lines are all asked for first, then every
		 * frame's data line, so the misses of a batch overlap. */
		uint16_t port_id = q->port_id, qid = q->qid;

		while (got < want) {
			const uint8_t *src[MEMIF_BATCH];
			uint32_t len[MEMIF_BATCH];
			uint16_t k, j, m = UNIC_MIN((uint16_t)(want - got), (uint16_t)MEMIF_BATCH);

			for (k = 0; k < m; k += 4)
				unic_prefetch0(&ring->desc[(uint16_t)(last + k) & mask]);
			unic_prefetch0(&ring->desc[(uint16_t)(last + m - 1) & mask]);
			for (k = 0; k < m; k++) {
				struct memif_desc d;
				const uint8_t *b;

				memif_desc_read(&d, &ring->desc[(uint16_t)(last + k) & mask]);
				if (UNIC_UNLIKELY(d.flags & MEMIF_DESC_FLAG_NEXT))
					break;
				b = memif_buf(regions, nb_regions, &d, d.length);
				if (UNIC_UNLIKELY(b == NULL || d.length == 0 ||
						  d.length > (uint32_t)(pkts[got + k]->buf_len - headroom)))
					break;
				unic_prefetch0(b);
				if (d.length > UNIC_CACHE_LINE_SIZE)
					unic_prefetch0(b + d.length - 1);
				src[k] = b;
				len[k] = d.length;
			}
			for (j = 0; j < k; j++) {
				struct unic_pkt *p = pkts[got + j];

				unic_pkt_reset(p, headroom);
				memif_copy(unic_pkt_data(p), src[j], len[j]);
				p->data_len = (uint16_t)len[j];
				p->pkt_len = len[j];
				p->port = port_id;
				p->queue = qid;
				bytes += len[j];
			}
			got = (uint16_t)(got + k);
			last = (uint16_t)(last + k);
			avail = (uint16_t)(avail - k);
			if (k < m)
				break;
		}
		next = got;
	}
	while (avail > 0 && got < n) {
		struct unic_pkt *p;
		uint32_t room, flen = 0;
		uint16_t used = 0;
		bool bad = false, too_long = false, more;
		uint8_t *dst;

		if (bulk) {
			p = next < want ? pkts[next++] : NULL;
			if (p != NULL)
				unic_pkt_reset(p, headroom);
		} else {
			p = unic_pkt_alloc(q->pool);
			if (UNIC_UNLIKELY(p == NULL))
				unic_counter_add(&q->rxc.nombuf, 1);
		}
		if (UNIC_UNLIKELY(p == NULL))
			break;
		room = (uint32_t)(p->buf_len - p->data_off);
		dst = unic_pkt_data(p);
		do {
			struct memif_desc d;
			const uint8_t *src;

			if (UNIC_UNLIKELY(used == avail)) {
				unic_pkt_free(p);
				/* A frame that goes on past the whole ring never ends. */
				if (avail == max_avail)
					memif_broken(q);
				goto done;
			}
			memif_desc_read(&d, &ring->desc[(uint16_t)(last + used) & mask]);
			used++;
			more = d.flags & MEMIF_DESC_FLAG_NEXT;
			if (bad || too_long)
				continue;
			src = memif_buf(regions, nb_regions, &d, d.length);
			if (UNIC_UNLIKELY(src == NULL))
				bad = true;
			else if (UNIC_UNLIKELY(flen + (uint64_t)d.length > room))
				too_long = true;
			else {
				memif_copy(dst + flen, src, d.length);
				flen += d.length;
			}
		} while (UNIC_UNLIKELY(more));
		last = (uint16_t)(last + used);
		avail = (uint16_t)(avail - used);
		if (UNIC_UNLIKELY(bad || too_long || flen == 0)) {
			unic_counter_add(too_long ? &q->too_long : &q->bad_desc, 1);
			unic_counter_add(&q->rxc.errors, 1);
			unic_pkt_free(p);
			continue;
		}
		p->data_len = (uint16_t)flen;
		p->pkt_len = flen;
		p->port = q->port_id;
		p->queue = q->qid;
		bytes += flen;
		pkts[got++] = p;
	}
done:
	/* Not reset, so not unic_pkt_free_bulk (it follows p->next). */
	if (bulk && next < want)
		unic_pool_put_bulk(q->pool, (void *const *)(pkts + next), (uint32_t)(want - next));
	q->last = last;
refill:
	if (q->we_own_head)
		memif_rx_refill(q, ring);
	else if (q->own != q->last) {
		/* Release: our reads of the slots before the peer may reuse them.
		 * Only when it moved: a store, even of the same value, takes
		 * the cache line from the sender, which reads it every burst. */
		q->own = q->last;
		unic_store_release(&ring->tail, q->own);
	}
	memif_exit(q);
	unic_counter_add(&q->rxc.packets, got);
	unic_counter_add(&q->rxc.bytes, bytes);
	return got;
}

/* Where slot @p s's buffer is and how much it takes: ours (client, C2S),
 * or the one the client put in the descriptor (server, S2C). @return NULL
 * if the peer's descriptor is bad. */
static inline uint8_t *memif_tx_buf(const struct memif_queue *q, const struct memif_ring *ring,
				    uint16_t s, uint32_t *cap)
{
	struct memif_desc d;
	uint8_t *dst;

	if (q->we_own_head) {
		*cap = q->bsize;
		return q->regions[0].addr + q->buf_off + (uint32_t)s * q->bsize;
	}
	memif_desc_read(&d, &ring->desc[s]);
	*cap = d.length;
	dst = memif_buf(q->regions, q->nb_regions, &d, d.length);
	return d.length == 0 ? NULL : dst;
}

/* Write slot @p s's descriptor: @p len bytes, more to follow or not. */
static inline void memif_tx_desc(const struct memif_queue *q, struct memif_ring *ring, uint16_t s,
				 uint32_t len, bool more)
{
	struct memif_desc *sd = &ring->desc[s];

	if (q->we_own_head) {
		sd->region = 0;
		sd->offset = q->buf_off + (uint32_t)s * q->bsize;
	}
	sd->length = len;
	sd->flags = more ? MEMIF_DESC_FLAG_NEXT : 0;
}

/* Copy @p p into slots from q->own + @p first on; @return the slots used,
 * 0 if the ring has too few free (nothing is published), -1 if the peer's
 * buffer is bad. */
static int memif_tx_one(struct memif_queue *q, struct memif_ring *ring, const struct unic_pkt *p,
			uint16_t first, uint16_t free)
{
	const struct unic_pkt *seg = p;
	uint32_t seg_off = 0, left = p->pkt_len;
	uint16_t used = 0;

	while (left > 0) {
		uint16_t s = (uint16_t)(q->own + first + used) & q->mask;
		uint32_t cap, off = 0;
		uint8_t *dst;

		if (used == free)
			return 0;
		dst = memif_tx_buf(q, ring, s, &cap);
		if (UNIC_UNLIKELY(dst == NULL))
			return -1;
		while (off < cap && left > 0) {
			uint32_t chunk;

			while (seg != NULL && seg_off == seg->data_len) {
				seg = seg->next;
				seg_off = 0;
			}
			if (UNIC_UNLIKELY(seg == NULL)) {
				left = 0; /* pkt_len beyond the segments: send what there is */
				break;
			}
			chunk = UNIC_MIN(cap - off, (uint32_t)seg->data_len - seg_off);
			chunk = UNIC_MIN(chunk, left);
			memif_copy(dst + off, (const uint8_t *)unic_pkt_data(seg) + seg_off, chunk);
			off += chunk;
			seg_off += chunk;
			left -= chunk;
		}
		memif_tx_desc(q, ring, s, off, left > 0);
		used++;
	}
	return used;
}

/*
 * Transmit, the common case: single-segment frames that fit one buffer,
 * from slot q->own on. Client (C2S): our own buffers, each descriptor
 * written whole in one store. Server (S2C): the buffer the
 * client put in the slot's descriptor, read once and checked; only length
 * and flags are written. @return the frames taken: it stops at the first
 * other frame (longer than the buffer, chained, empty, or a descriptor
 * that is bad: the general loop deals with those) or when @p free slots
 * are used; *bytes grows by theirs.
 */
static uint16_t memif_tx_fast(struct memif_queue *q, struct memif_ring *ring,
			      struct unic_pkt *const *pkts, uint16_t n, uint16_t free, uint64_t *bytes)
{
	const struct memif_region *regions = q->regions;
	uint16_t own = q->own, mask = q->mask, nb_regions = q->nb_regions, i, k = UNIC_MIN(n, free);

	if (q->we_own_head) {
		uint8_t *base = regions[0].addr + q->buf_off;
		uint32_t bsize = q->bsize, buf_off = q->buf_off;

		/* Our slots' lines first, all of them, so that the burst's
		 * transfers from the receiver's core overlap; the stores
		 * below would take them one after the other (see
		 * memif_rx_burst). Only the first line of each buffer: a
		 * longer frame's next lines follow in the copy. */
		if (k > 0 && memif_have_prefetchw()) {
			for (i = 0; i < k; i++) {
				uint16_t s = (uint16_t)(own + i) & mask;

				memif_prefetchw(base + (uint32_t)s * bsize);
				if (i == 0 || (s & 3) == 0)
					memif_prefetchw(&ring->desc[s]);
			}
		}
		for (i = 0; i < k; i++) {
			const struct unic_pkt *p = pkts[i];
			uint32_t len = p->pkt_len;
			uint16_t s = (uint16_t)(own + i) & mask;
			struct memif_desc d = { .flags = 0, .region = 0, .length = len,
						.offset = buf_off + (uint32_t)s * bsize, .metadata = 0 };

			if (UNIC_UNLIKELY(p->next != NULL || len != p->data_len || len > bsize || len == 0))
				break;
			memif_copy(base + (uint32_t)s * bsize, unic_pkt_data(p), len);
			memcpy(&ring->desc[s], &d, sizeof(d)); /* our own slot: one store */
			*bytes += len;
		}
		return i;
	}
	for (i = 0; i < k; i++) {
		const struct unic_pkt *p = pkts[i];
		uint32_t len = p->pkt_len;
		struct memif_desc *sd = &ring->desc[(uint16_t)(own + i) & mask];
		struct memif_desc d;
		uint8_t *dst;

		if (UNIC_UNLIKELY(p->next != NULL || len != p->data_len || len == 0))
			break;
		memif_desc_read(&d, sd);
		dst = memif_buf(regions, nb_regions, &d, d.length);
		if (UNIC_UNLIKELY(dst == NULL || len > d.length))
			break;
		memif_copy(dst, unic_pkt_data(p), len);
		unic_store_relaxed(&sd->length, len);
		unic_store_relaxed(&sd->flags, (uint16_t)0);
		*bytes += len;
	}
	return i;
}

uint16_t memif_tx_burst(void *qv, struct unic_pkt **pkts, uint16_t n)
{
	struct memif_queue *q = qv;
	struct memif_ring *ring = memif_enter(q);
	uint16_t peer, free, slot = 0, sent = 0;
	uint64_t bytes = 0, dropped = 0;

	if (UNIC_UNLIKELY(ring == NULL || unic_load_relaxed(&q->broken))) {
		memif_exit(q);
		unic_counter_add(&q->link_down, n);
		return 0;
	}
	if (q->zc) { /* client zero-copy: memif_zc.c */
		sent = memif_zc_tx_burst(q, ring, pkts, n);
		memif_exit(q);
		return sent;
	}
	/* The peer's index is read only when the slots known free do not
	 * cover the burst: its line is written by the peer's core on every
	 * burst it takes, and a read is a transfer from that core (hundreds
	 * of cycles on the test machine), paid before anything else can
	 * start. Slots known free stay free: only this side hands them back. */
	free = q->tx_free;
	if (free < n) {
		if (q->we_own_head) {
			uint16_t inflight;

			peer = unic_load_acquire(&ring->tail); /* the server is done with those */
			inflight = (uint16_t)(q->own - peer);
			if (UNIC_UNLIKELY(inflight > q->size))
				goto broken;
			free = (uint16_t)(q->size - inflight);
		} else {
			peer = unic_load_acquire(&ring->head); /* the buffers the client handed */
			free = (uint16_t)(peer - q->own);
			if (UNIC_UNLIKELY(free > q->size))
				goto broken;
		}
	}
	slot = sent = memif_tx_fast(q, ring, pkts, n, free, &bytes);
	for (; sent < n; sent++) {
		const struct unic_pkt *p = pkts[sent];
		uint32_t len = p->pkt_len;
		int used;

		if (UNIC_UNLIKELY(len == 0)) {
			dropped++; /* nothing to send: taken and counted */
			continue;
		}
		used = memif_tx_one(q, ring, p, slot, (uint16_t)(free - slot));
		if (used == 0)
			break;
		if (UNIC_UNLIKELY(used < 0)) {
			memif_broken(q);
			break;
		}
		slot = (uint16_t)(slot + used);
		bytes += len;
	}
	q->tx_free = (uint16_t)(free - slot);
	if (slot > 0) {
		q->own = (uint16_t)(q->own + slot);
		/* Release: the buffers and descriptors before the index. */
		if (q->we_own_head)
			unic_store_release(&ring->head, q->own);
		else
			unic_store_release(&ring->tail, q->own);
		unic_smp_mb(); /* (D1) */
		if (!(unic_load_relaxed(&ring->flags) & MEMIF_RING_FLAG_MASK_INT) && q->efd >= 0) {
			uint64_t one = 1;

			if (write(q->efd, &one, sizeof(one)) == (ssize_t)sizeof(one))
				__atomic_fetch_add(&q->signals, 1, __ATOMIC_RELAXED);
		}
	}
	memif_exit(q);
	if (sent < n)
		unic_counter_add(&q->ring_full, n - sent);
	unic_pkt_free_bulk(pkts, sent);
	unic_counter_add(&q->txc.packets, sent - dropped);
	unic_counter_add(&q->txc.bytes, bytes);
	if (dropped)
		unic_counter_add(&q->txc.errors, dropped);
	return sent;

broken:
	memif_broken(q);
	memif_exit(q);
	unic_counter_add(&q->link_down, n);
	return 0;
}

bool memif_rx_pending(void *qv)
{
	struct memif_queue *q = qv;
	struct memif_ring *ring = memif_enter(q);
	bool pending = false;

	if (ring != NULL && !unic_load_relaxed(&q->broken))
		pending = (q->we_own_head ? unic_load_acquire(&ring->tail)
					  : unic_load_acquire(&ring->head)) != q->last;
	memif_exit(q);
	return pending;
}

int memif_rx_intr_enable(void *qv)
{
	struct memif_queue *q = qv;
	struct memif_ring *ring;

	unic_store_relaxed(&q->intr_enabled, 1);
	ring = memif_enter_fenced(q); /* orders the store above before the load of ring */
	if (ring != NULL)
		__atomic_and_fetch(&ring->flags, (uint16_t)~MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
	/* (D2): pairs with (D1) in the peer's tx; the caller re-checks next. */
	unic_smp_mb();
	memif_exit(q);
	return 0;
}

int memif_rx_intr_disable(void *qv)
{
	struct memif_queue *q = qv;
	struct memif_ring *ring;

	unic_store_relaxed(&q->intr_enabled, 0);
	ring = memif_enter(q);
	/* No fence: a peer that saw the old flag signals once more, a
	 * spurious wake, never a lost one. */
	if (ring != NULL)
		__atomic_or_fetch(&ring->flags, (uint16_t)MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
	memif_exit(q);
	return 0;
}
