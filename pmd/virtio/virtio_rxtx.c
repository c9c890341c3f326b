/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio-net fast path over split virtqueues (virtio 1.1 section 2.6):
 * rx burst (mergeable buffers chained into one packet, the header's
 * checksum state), batch refill with a notification only when the device
 * asked for one, tx burst (the header in front of a one-segment frame,
 * else a header descriptor and one per segment, or one descriptor and an
 * indirect table; checksum and TSO through the header), reclaim, rx
 * interrupt arm/disarm. A packed virtqueue branches to virtio_packed.c at
 * the top of each call.
 *
 * Nothing here logs, allocates from the heap or takes a lock; a failure is
 * a counter. Every value the device wrote (used index, id, length, the
 * header) is checked before use.
 */
#include <endian.h>
#include <string.h>
#include <unistd.h>

#include <unic/cksum.h>
#include <unic/net.h>

#include "virtio_priv.h"

#define HDR_SLOT ((uint16_t)sizeof(struct virtio_net_hdr_hash)) /* a tx header slot */

/* ---- virtqueue layout and helpers ------------------------------------------ */

/* Offsets in the queue's DMA zone: desc at 0, avail after it, used on
 * its own cache line (the device writes it, the driver writes avail),
 * then @p extra (tx headers), cache-aligned. */
static size_t vq_avail_off(uint16_t size)
{
	return virtq_desc_bytes(size);
}

static size_t vq_used_off(uint16_t size)
{
	return UNIC_ALIGN_CEIL(vq_avail_off(size) + virtq_avail_bytes(size), (size_t)UNIC_CACHE_LINE_SIZE);
}

static size_t vq_extra_off(uint16_t size)
{
	return UNIC_ALIGN_CEIL(vq_used_off(size) + virtq_used_bytes(size) + 2, (size_t)UNIC_CACHE_LINE_SIZE);
}

size_t virtio_vq_bytes(uint16_t size, size_t extra)
{
	return vq_extra_off(size) + extra;
}

void virtio_vq_init(struct virtio_vq *vq)
{
	uint8_t *base = vq->dma.va;

	if (vq->packed) {
		virtio_packed_vq_init(vq);
		return;
	}
	memset(base, 0, vq->dma.len);
	vq->mask = (uint16_t)(vq->size - 1);
	vq->desc = (volatile struct virtq_desc *)base;
	vq->avail = (volatile uint16_t *)(base + vq_avail_off(vq->size));
	vq->used = (volatile uint16_t *)(base + vq_used_off(vq->size));
	vq->used_ring = (volatile struct virtq_used_elem *)(vq->used + 2);
	vq->used_event = &vq->avail[2 + vq->size];
	vq->avail_event = (volatile uint16_t *)&vq->used_ring[vq->size];
	/* In ring order (IN_ORDER keeps it so: next[i] = i + 1, wrapping). */
	for (uint16_t i = 0; i < vq->size; i++)
		vq->next[i] = (uint16_t)((i + 1) & vq->mask);
	vq->free_head = 0;
	vq->nb_free = vq->size;
	vq->avail_idx = vq->kicked_idx = vq->used_idx = 0;
	vq->batch_left = 0;
	/* No used-buffer notifications until an rx queue arms (2.6.7.1):
	 * the flag, and used_event behind every index the device reaches
	 * soon (with event idx the flag is not read). */
	vq->avail[0] = VRING_AVAIL_F_NO_INTERRUPT;
	*vq->used_event = (uint16_t)(0 - 1 - vq->size);
}

static inline uint16_t vq_used_load(const struct virtio_vq *vq)
{
	/* (R1) the used index before the entries it covers: pairs with the
	 * device writing the entries, then the index (2.6.8). */
	uint16_t idx = __atomic_load_n(&vq->used[1], __ATOMIC_ACQUIRE);

	unic_io_rmb();
	return idx;
}

/*
 * How many used entries to read: the device's index minus ours, at most
 * what is posted (size - nb_free). More is a device that jumped its index:
 * counted, and only what is posted is read (each entry is checked anyway).
 */
static inline uint16_t vq_used_count(struct virtio_vq *vq)
{
	uint16_t n = (uint16_t)(vq_used_load(vq) - vq->used_idx);
	uint16_t posted = (uint16_t)(vq->size - vq->nb_free);

	if (UNIC_UNLIKELY(n > posted)) {
		unic_counter_add(&vq->used_jumps, 1);
		n = posted;
	}
	return n;
}

/*
 * IN_ORDER on a split ring (2.6.9): the device may answer a batch of
 * chains with one used entry, at the slot of the batch's first, naming
 * the head of its last chain, and move the used index by the batch's
 * size. The chains of a batch are the oldest outstanding ones, in the
 * order they were made available: the one at (free_head + nb_free),
 * then each next one chain_len descriptors on (1 for rx).
 *
 * Sets *id to the oldest outstanding chain when the device has used it:
 * @return VQ_IO_TAKE, *len its length, or UINT32_MAX for a chain the
 * batch skipped (used completely: an rx buffer's whole length). A new
 * entry is checked before anything is taken: its id must be an
 * outstanding head within the *avail entries the used index covers.
 * Anything else is counted in bad_used, takes no batch, and turns
 * in_order off until the next start (a device that broke the promise
 * once is not trusted with batches again; the queue reads one buffer an
 * entry, as without IN_ORDER):
 *   VQ_IO_SKIP:   an id that is no outstanding head (out of range, never
 *                 posted, already used): its slot passed, nothing taken;
 *   VQ_IO_BROKEN: an outstanding head the index does not reach (the
 *                 device used it before older ones: not in order). The
 *                 caller reads this entry as without IN_ORDER (that
 *                 buffer alone);
 *   VQ_IO_NONE:   nothing used.
 */
enum { VQ_IO_NONE, VQ_IO_TAKE, VQ_IO_SKIP, VQ_IO_BROKEN };

static inline int vq_inorder_take(struct virtio_vq *vq, struct unic_pkt *const *sw_ring, const uint16_t *chain_len,
				  uint16_t *avail, uint16_t *id, uint32_t *len)
{
	uint16_t oldest = (uint16_t)((vq->free_head + vq->nb_free) & vq->mask);

	if (vq->batch_left == 0) {
		volatile struct virtq_used_elem *e;
		uint32_t x, posted = (uint32_t)(vq->size - vq->nb_free), walked = 0;
		uint16_t h = oldest, k;
		bool found = false;

		if (*avail == 0)
			return VQ_IO_NONE;
		e = &vq->used_ring[vq->used_idx & vq->mask];
		x = e->id;
		/* The batch: chains from the oldest up to x, at most as many
		 * as the used index covers, never past what is posted. */
		for (k = 1; k <= *avail && walked < posted && sw_ring[h] != NULL; k++) {
			uint16_t c = chain_len != NULL ? chain_len[h] : 1;

			if (h == x) {
				found = true;
				break;
			}
			walked += c;
			h = (uint16_t)((h + c) & vq->mask);
		}
		if (UNIC_UNLIKELY(!found)) {
			unic_counter_add(&vq->bad_used, 1);
			vq->in_order = false;
			if (x < vq->size && sw_ring[x] != NULL)
				return VQ_IO_BROKEN;
			vq->used_idx++;
			(*avail)--;
			return VQ_IO_SKIP;
		}
		vq->batch_left = k;
		vq->batch_len = e->len;
		vq->used_idx = (uint16_t)(vq->used_idx + k);
		*avail = (uint16_t)(*avail - k);
	}
	*id = oldest;
	*len = vq->batch_left == 1 ? vq->batch_len : UINT32_MAX;
	vq->batch_left--;
	return VQ_IO_TAKE;
}

/*
 * Publish the avail index and notify the device if it asked (2.6.13):
 * with event idx when the new index passes avail_event, else unless
 * VRING_USED_F_NO_NOTIFY is set.
 */
static inline void vq_publish(struct virtio_vq *vq)
{
	uint16_t old = vq->kicked_idx, now = vq->avail_idx;
	bool kick;

	/* (W1) descriptors and avail entries before the index: pairs with
	 * the device's read of the index before the entries. */
	unic_io_wmb();
	__atomic_store_n(&vq->avail[1], now, __ATOMIC_RELEASE);
	/* (M1) the index store before the load of the device's wish: a
	 * store then a load needs a full fence. Pairs with the device
	 * writing avail_event / the flag, then reading our index. */
	unic_smp_mb();
	if (vq->event_idx)
		kick = vring_need_event(*vq->avail_event, now, old);
	else
		kick = !(*vq->used & VRING_USED_F_NO_NOTIFY);
	vq->kicked_idx = now;
	virtio_vq_kick(vq, kick);
}

void virtio_vq_kick(struct virtio_vq *vq, bool kick)
{
	if (kick) {
		*vq->notify = vq->index;
		if (UNIC_UNLIKELY(vq->hw->hooks != NULL))
			vq->hw->hooks->written(vq->hw->hooks_ctx, VIRTIO_REGION_NOTIFY, vq->notify_off, 2);
		unic_counter_add(&vq->kicks, 1);
	} else {
		unic_counter_add(&vq->kicks_suppressed, 1);
	}
}

void virtio_vq_publish(struct virtio_vq *vq)
{
	vq_publish(vq);
}

/* ---- receive --------------------------------------------------------------- */

/*
 * Post buffers at free descriptors, in batches, then publish. One
 * descriptor a buffer: the header (12 or 20 bytes) lands in the headroom just before
 * the packet data (so the first buffer's frame starts at the headroom).
 * Posts when @p thresh buffers are missing, or whenever none is posted (a
 * queue with no buffer never receives again: QEMU waits for a kick).
 * Stops when the pool is empty: counted in nombuf, tried again next burst.
 */
static void rx_refill(struct virtio_rxq *rxq, uint16_t thresh)
{
	struct virtio_vq *vq = &rxq->vq;
	struct unic_pkt *bufs[64];
	uint16_t want = vq->nb_free;
	bool posted = false;

	if (want == 0 || (want < thresh && vq->nb_free != vq->size))
		return;
	while (want > 0) {
		uint16_t k = want < UNIC_ARRAY_SIZE(bufs) ? want : (uint16_t)UNIC_ARRAY_SIZE(bufs);

		if (UNIC_UNLIKELY(unic_pkt_alloc_bulk(rxq->pool, bufs, k) != 0)) {
			/* Fewer than k left: take them one at a time. */
			for (k = 0; k < want && k < UNIC_ARRAY_SIZE(bufs); k++) {
				bufs[k] = unic_pkt_alloc(rxq->pool);
				if (bufs[k] == NULL)
					break;
			}
			unic_counter_add(&rxq->cnt.nombuf, 1);
			want = k; /* the last round */
			if (k == 0)
				break;
		}
		for (uint16_t i = 0; i < k; i++) {
			uint16_t id = vq->free_head;
			volatile struct virtq_desc *d = &vq->desc[id];

			vq->free_head = vq->next[id];
			rxq->sw_ring[id] = bufs[i];
			d->addr = bufs[i]->buf_iova + rxq->headroom - rxq->hdr_len;
			d->len = rxq->buf_len;
			d->flags = VRING_DESC_F_WRITE;
			d->next = 0;
			vq->avail[2 + (vq->avail_idx & vq->mask)] = id;
			vq->avail_idx++;
		}
		vq->nb_free = (uint16_t)(vq->nb_free - k);
		want = (uint16_t)(want - k);
		posted = true;
	}
	if (posted)
		vq_publish(vq);
}

int virtio_rxq_fill(struct virtio_rxq *rxq)
{
	if (rxq->vq.packed)
		virtio_packed_rx_refill(rxq, 1);
	else
		rx_refill(rxq, 1);
	return rxq->vq.nb_free == rxq->vq.size ? -ENOBUFS : 0;
}

void virtio_rxq_drain(struct virtio_rxq *rxq)
{
	if (rxq->sw_ring == NULL)
		return;
	for (uint16_t i = 0; i < rxq->vq.size; i++) {
		unic_pkt_free(rxq->sw_ring[i]); /* NULL: not posted */
		rxq->sw_ring[i] = NULL;
	}
	unic_pkt_free(rxq->chain_head);
	rxq->chain_head = rxq->chain_tail = NULL;
	rxq->chain_left = rxq->chain_skip = 0;
	if (rxq->vq.dma.va != NULL)
		virtio_vq_init(&rxq->vq);
}

/*
 * A partial checksum (NEEDS_CSUM, 5.1.6.4.1): the field at csum_start +
 * csum_offset holds the pseudo-header sum; the checksum is the one's
 * complement of the sum from csum_start to the end. Completed here, so a
 * forwarded packet leaves with a correct checksum. @return false when the
 * offsets are not inside the first segment (the frame is dropped).
 */
static bool rx_csum_complete(struct unic_pkt *p, uint16_t start, uint16_t off)
{
	uint32_t at = (uint32_t)start + off, sum = 0;
	uint16_t c;

	if (at + 2 > p->data_len || start >= p->pkt_len)
		return false;
	if (unic_pkt_cksum_sum(p, start, p->pkt_len - start, &sum) < 0)
		return false;
	c = unic_cksum_finish(sum);
	if (c == 0 && off == UNIC_UDP_CKSUM_OFF)
		c = 0xffff; /* UDP sends a zero checksum as all-ones (RFC 768) */
	unic_net_put16((uint8_t *)unic_pkt_data(p) + at, c);
	return true;
}

/* Software VLAN strip: the tag out of the frame, into vlan_tci. */
static inline void rx_vlan_strip(struct unic_pkt *p)
{
	uint8_t *d = unic_pkt_data(p);

	if (p->data_len < UNIC_ETHER_VLAN_HDR_LEN || unic_net_get16(d + UNIC_ETHER_TYPE_OFF) != UNIC_ETHER_TYPE_VLAN)
		return;
	p->vlan_tci = unic_net_get16(d + UNIC_ETHER_HDR_LEN);
	memmove(d + 4, d, 2 * UNIC_ETHER_ADDR_LEN);
	p->data_off = (uint16_t)(p->data_off + 4);
	p->data_len = (uint16_t)(p->data_len - 4);
	p->pkt_len -= 4;
	p->ol_flags |= UNIC_PKT_RX_VLAN | UNIC_PKT_RX_VLAN_STRIPPED;
}

/*
 * Drop the frame in progress (counted once, in errors). The buffers it
 * still has to come (chain_left, from a num_buffers already checked) are
 * skipped as they arrive, never read as frames of their own.
 */
static inline void rx_frame_drop(struct virtio_rxq *rxq, struct unic_pkt **head, struct unic_pkt **tail)
{
	unic_pkt_free(*head);
	*head = *tail = NULL;
	rxq->chain_skip = rxq->chain_left;
	rxq->chain_left = 0;
	unic_counter_add(&rxq->cnt.errors, 1);
}

/* The longest chain a frame may grow to: a GSO frame's with LRO. */
static inline uint32_t rx_chain_max(const struct virtio_rxq *rxq)
{
	return rxq->lro ? VIRTIO_LRO_MAX_FRAME : rxq->max_frame;
}

/*
 * A GSO frame (5.1.6.4: the host's TCP segments not cut, or coalesced),
 * taken only with GUEST_TSO4/6 negotiated (LRO asked): TCPV4 or TCPV6
 * (no ECN, no UDP: not negotiated) and a segment size. It becomes one
 * packet flagged LRO with the sender's segment size, its checksum field
 * holding the pseudo-header sum of the whole (a checksum no wire frame
 * carries): not computed. @return false: dropped (gso_errors).
 */
static inline bool rx_gso(struct virtio_rxq *rxq, struct unic_pkt *head, const struct virtio_net_hdr *h)
{
	uint8_t type = h->gso_type;

	if (UNIC_UNLIKELY(!rxq->lro || (type != VIRTIO_NET_HDR_GSO_TCPV4 && type != VIRTIO_NET_HDR_GSO_TCPV6) ||
			  h->gso_size == 0)) {
		unic_counter_add(&rxq->gso_errors, 1);
		return false;
	}
	head->tso_segsz = h->gso_size;
	head->ol_flags |= UNIC_PKT_RX_LRO | UNIC_PKT_RX_L4_CKSUM_NONE;
	unic_counter_add(&rxq->lro_pkts, 1);
	return true;
}

/*
 * The header's checksum state (5.1.6.4.1), read with GUEST_CSUM. With the
 * rx checksum offload asked: DATA_VALID is a good checksum; NEEDS_CSUM at
 * a TCP or UDP checksum field is "not computed, data intact" (the field
 * holds the pseudo-header sum; DPDK's virtio driver flags it alike), any
 * other partial checksum is completed here and then good. Not asked: no
 * flag, and a partial checksum is completed here, so a forwarded packet
 * leaves with a correct one. @return false: dropped (offsets outside the
 * first segment).
 */
static inline bool rx_csum(struct virtio_rxq *rxq, struct unic_pkt *head, const struct virtio_net_hdr *h)
{
	if (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		uint16_t off = h->csum_offset;

		unic_counter_add(&rxq->csum_partial, 1);
		if (rxq->csum_flags && (off == UNIC_TCP_CKSUM_OFF || off == UNIC_UDP_CKSUM_OFF) &&
		    (uint32_t)h->csum_start + off + 2 <= head->data_len) {
			head->ol_flags |= UNIC_PKT_RX_L4_CKSUM_NONE;
			return true;
		}
		if (!rx_csum_complete(head, h->csum_start, off))
			return false;
		if (rxq->csum_flags)
			head->ol_flags |= UNIC_PKT_RX_L4_CKSUM_GOOD;
	} else if (rxq->csum_flags && (h->flags & VIRTIO_NET_HDR_F_DATA_VALID)) {
		head->ol_flags |= UNIC_PKT_RX_L4_CKSUM_GOOD;
	}
	return true;
}

/*
 * The hash the device reported (HASH_REPORT, 5.1.6.4.3): kept with
 * UNIC_PKT_RX_RSS_HASH when it says what it hashed; NONE is no hash, and a
 * report the specification does not have is counted and ignored.
 */
static inline void rx_hash(struct virtio_rxq *rxq, struct unic_pkt *head, const struct virtio_net_hdr_hash *hh)
{
	uint16_t report = hh->hash_report;

	if (report == VIRTIO_NET_HASH_REPORT_NONE)
		return;
	if (UNIC_UNLIKELY(report > VIRTIO_NET_HASH_REPORT_MAX)) {
		unic_counter_add(&rxq->hash_bad, 1);
		return;
	}
	head->rss_hash = hh->hash_value;
	head->ol_flags |= UNIC_PKT_RX_RSS_HASH;
}

/*
 * Finish a frame whose buffers are all in: the header (in the headroom of
 * the first buffer) to flags and the segment size, the VLAN strip.
 * @return false: dropped.
 */
static inline bool rx_frame_done(struct virtio_rxq *rxq, struct unic_pkt *head)
{
	const struct virtio_net_hdr *h = (const void *)((uint8_t *)unic_pkt_data(head) - rxq->hdr_len);
	bool gso = h->gso_type != VIRTIO_NET_HDR_GSO_NONE;
	uint32_t max = gso ? rx_chain_max(rxq) : rxq->max_frame;

	head->ol_flags = 0;
	head->tso_segsz = 0;
	if (UNIC_UNLIKELY(head->pkt_len > max || head->pkt_len < UNIC_ETHER_HDR_LEN)) {
		unic_counter_add(&rxq->oversize, head->pkt_len > max);
		unic_counter_add(&rxq->len_errors, head->pkt_len < UNIC_ETHER_HDR_LEN);
		return false;
	}
	if (gso) {
		if (!rx_gso(rxq, head, h))
			return false;
	} else if (rxq->csum && !rx_csum(rxq, head, h)) {
		return false;
	}
	if (rxq->hash)
		rx_hash(rxq, head, (const struct virtio_net_hdr_hash *)h);
	if (rxq->vlan_strip)
		rx_vlan_strip(head);
	head->port = rxq->port_id;
	head->queue = rxq->qid;
	return true;
}

/*
 * The mean buffers a frame takes (mergeable buffers), for the moderation:
 * a moving average over about the last 8 frames, x VIRTIO_RX_BPF_ONE;
 * @p nbuf is a checked num_buffers (1..ring size), so it stays in range.
 */
static inline void rx_bpf_update(struct virtio_rxq *rxq, uint16_t nbuf)
{
	int32_t m = (int32_t)rxq->bufs_per_frame;

	m += ((int32_t)nbuf * (int32_t)VIRTIO_RX_BPF_ONE - m) / 8;
	rxq->bufs_per_frame = (uint32_t)m;
}

/*
 * One used buffer into the frame being assembled (rxq->chain_head/tail).
 * A frame is one buffer, or with mergeable buffers the number its header's
 * num_buffers says, in used order. A length under the header or over the
 * buffer drops the frame (len_errors); num_buffers 0 or over what the ring
 * can hold drops it (oversize). @return true and *out: a frame is complete.
 */
static inline bool rx_seg(struct virtio_rxq *rxq, struct unic_pkt *seg, uint32_t len, struct unic_pkt **out)
{
	struct unic_pkt *head = rxq->chain_head;

	if (UNIC_UNLIKELY(rxq->chain_skip > 0)) {
		/* The rest of a frame already dropped and counted. */
		rxq->chain_skip--;
		unic_pkt_free(seg);
		return false;
	}
	if (head == NULL) {
		/* The first buffer of a frame: the header, then data. */
		uint16_t nbuf = 1;

		if (UNIC_UNLIKELY(len < rxq->hdr_len || len > rxq->buf_len)) {
			unic_counter_add(&rxq->len_errors, 1);
			unic_pkt_free(seg);
			rx_frame_drop(rxq, &rxq->chain_head, &rxq->chain_tail);
			return false;
		}
		if (rxq->mrg) {
			const struct virtio_net_hdr *h =
				(const void *)((uint8_t *)unic_pkt_buf(seg) + rxq->headroom - rxq->hdr_len);

			nbuf = h->num_buffers;
			if (UNIC_UNLIKELY(nbuf == 0 || nbuf > rxq->vq.size)) {
				unic_counter_add(&rxq->oversize, 1);
				unic_pkt_free(seg);
				rx_frame_drop(rxq, &rxq->chain_head, &rxq->chain_tail);
				return false;
			}
			rx_bpf_update(rxq, nbuf);
		}
		seg->data_off = rxq->headroom;
		seg->data_len = (uint16_t)(len - rxq->hdr_len);
		seg->next = NULL;
		seg->nb_segs = 1;
		seg->pkt_len = seg->data_len;
		head = rxq->chain_head = rxq->chain_tail = seg;
		rxq->chain_left = (uint16_t)(nbuf - 1);
	} else {
		/* A following buffer: data from its start (no header). */
		rxq->chain_left--;
		if (UNIC_UNLIKELY(len > rxq->buf_len)) {
			unic_counter_add(&rxq->len_errors, 1);
			unic_pkt_free(seg);
			/* The frame's other buffers are skipped as they come. */
			rx_frame_drop(rxq, &rxq->chain_head, &rxq->chain_tail);
			return false;
		}
		if (len == 0) {
			unic_pkt_free(seg);
		} else {
			seg->data_off = (uint16_t)(rxq->headroom - rxq->hdr_len);
			seg->data_len = (uint16_t)len;
			seg->next = NULL;
			rxq->chain_tail->next = seg;
			rxq->chain_tail = seg;
			head->pkt_len += len;
			head->nb_segs++;
		}
		if (UNIC_UNLIKELY(head->pkt_len > rx_chain_max(rxq))) {
			/* Too long already: drop it now, so it never holds
			 * the ring; its remaining buffers are skipped. */
			unic_counter_add(&rxq->oversize, 1);
			rx_frame_drop(rxq, &rxq->chain_head, &rxq->chain_tail);
			return false;
		}
	}
	if (rxq->chain_left > 0)
		return false;
	if (UNIC_UNLIKELY(!rx_frame_done(rxq, head))) {
		rx_frame_drop(rxq, &rxq->chain_head, &rxq->chain_tail);
		return false;
	}
	rxq->chain_head = rxq->chain_tail = NULL;
	unic_counter_add(&rxq->cnt.packets, 1);
	unic_counter_add(&rxq->cnt.bytes, head->pkt_len);
	*out = head;
	return true;
}

bool virtio_rx_seg(struct virtio_rxq *rxq, struct unic_pkt *seg, uint32_t len, struct unic_pkt **out)
{
	return rx_seg(rxq, seg, len, out);
}

/*
 * Receive: the used entries in order, each checked: an id that is not a
 * posted descriptor is skipped (bad_used); the buffer goes to rx_seg.
 * A packed virtqueue goes to virtio_packed.c (one branch a burst).
 */
uint16_t virtio_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct virtio_rxq *rxq = q;
	struct virtio_vq *vq = &rxq->vq;
	uint16_t nb_rx = 0, avail;

	if (vq->packed)
		return virtio_packed_rx_burst(rxq, pkts, n);
	avail = vq_used_count(vq);
	while (nb_rx < n) {
		volatile struct virtq_used_elem *e;
		uint32_t id, len;
		struct unic_pkt *seg;

		if (vq->in_order) {
			uint16_t oid;
			int r = vq_inorder_take(vq, rxq->sw_ring, NULL, &avail, &oid, &len);

			if (r == VQ_IO_NONE)
				break;
			if (r == VQ_IO_SKIP)
				continue;
			if (r == VQ_IO_TAKE) {
				/* Given back in ring order: the free list is untouched. */
				seg = rxq->sw_ring[oid];
				rxq->sw_ring[oid] = NULL;
				vq->nb_free++;
				if (rx_seg(rxq, seg, len == UINT32_MAX ? rxq->buf_len : len, &pkts[nb_rx]))
					nb_rx++;
				continue;
			}
			/* VQ_IO_BROKEN: this entry as without IN_ORDER. */
		}
		if (avail == 0)
			break;
		e = &vq->used_ring[vq->used_idx & vq->mask];
		id = e->id;
		len = e->len;
		vq->used_idx++;
		avail--;
		if (UNIC_UNLIKELY(id >= vq->size || rxq->sw_ring[id] == NULL)) {
			unic_counter_add(&vq->bad_used, 1);
			continue;
		}
		seg = rxq->sw_ring[id];
		rxq->sw_ring[id] = NULL;
		vq->next[id] = vq->free_head;
		vq->free_head = (uint16_t)id;
		vq->nb_free++;
		if (rx_seg(rxq, seg, len, &pkts[nb_rx]))
			nb_rx++;
	}
	rx_refill(rxq, VIRTIO_RX_FREE_THRESH);
	return nb_rx;
}

bool virtio_rx_pending(void *q)
{
	struct virtio_rxq *rxq = q;

	if (rxq->vq.packed)
		return virtio_packed_rx_pending(rxq);
	return __atomic_load_n(&rxq->vq.used[1], __ATOMIC_ACQUIRE) != rxq->vq.used_idx || rxq->vq.batch_left != 0;
}

/*
 * Rx interrupts (2.6.7.1): without event idx, VRING_AVAIL_F_NO_INTERRUPT
 * clear asks for one; with it, used_event = the next used index we read
 * asks for one as soon as the device adds an entry, and with moderation
 * (virtio_coalesce_set: N frames, E used entries) used_event = that
 * index + E - 1 asks for one when the device adds the E-th (its used
 * index passes used_event). Then a full fence and the caller re-checks
 * (unic_rx_pending): an entry the device added before it saw our request
 * sends no interrupt, and the re-check finds it.
 */
/*
 * Used entries this arm waits for. The event index counts used entries
 * (buffers) and rx_max_frames counts frames: with mergeable buffers a
 * frame takes num_buffers entries, which the device writes together and
 * publishes at once (QEMU: one flush and one notification check per
 * frame). So N frames are about N x the mean buffers a frame took
 * (rounded), and the frame in progress (chain_left buffers still to
 * come, or chain_skip of one dropped) is one of the N. An approximation
 * when frame sizes vary: a run of frames smaller than the mean makes the
 * interrupt come after more than N, bounded by the poller's rx_usecs as
 * any wait under moderation is. At least 1, at most half the ring.
 */
uint16_t virtio_rx_arm_entries(const struct virtio_rxq *rxq)
{
	uint32_t n = __atomic_load_n(&rxq->vp->rx_frames, __ATOMIC_RELAXED);
	uint32_t pending = (uint32_t)rxq->chain_left + rxq->chain_skip;
	uint64_t e;

	if (n <= 1)
		return 1;
	if (pending > 0)
		n--;
	e = pending + ((uint64_t)n * rxq->bufs_per_frame + VIRTIO_RX_BPF_ONE / 2) / VIRTIO_RX_BPF_ONE;
	return (uint16_t)UNIC_MAX(UNIC_MIN(e, (uint64_t)rxq->vq.size / 2), 1u);
}

int virtio_rx_intr_enable(void *q)
{
	struct virtio_rxq *rxq = q;
	struct virtio_vq *vq = &rxq->vq;
	uint64_t stale;

	if (!rxq->intr_on)
		return -ENOTSUP;
	/* A count from before this arm (an interrupt the last poll already
	 * covered) would wake the poller for nothing: drop it first. */
	if (rxq->irq_fd >= 0 && read(rxq->irq_fd, &stale, sizeof(stale)) < 0) {
		/* EAGAIN: nothing stale. */
	}
	if (vq->packed)
		virtio_packed_intr_arm(vq, true, virtio_rx_arm_entries(rxq));
	else if (vq->event_idx)
		*vq->used_event = (uint16_t)(vq->used_idx + virtio_rx_arm_entries(rxq) - 1);
	else
		vq->avail[0] = 0;
	/* (M2) the request before the caller's re-check of the used index:
	 * pairs with the device writing used idx, then reading our request. */
	unic_smp_mb();
	rxq->intr_armed = true;
	unic_counter_add(&rxq->intr, 1);
	return 0;
}

int virtio_rx_intr_disable(void *q)
{
	struct virtio_rxq *rxq = q;
	struct virtio_vq *vq = &rxq->vq;

	if (!rxq->intr_on)
		return -ENOTSUP;
	/* With event idx the device honours used_event only: leave it where
	 * it is and it fires at most once more (the arm's), then not until we
	 * arm again, since used_event stays behind the index. */
	if (vq->packed)
		virtio_packed_intr_arm(vq, false, 0);
	else if (!vq->event_idx)
		vq->avail[0] = VRING_AVAIL_F_NO_INTERRUPT;
	else
		*vq->used_event = (uint16_t)(vq->used_idx - 1 - vq->size);
	rxq->intr_armed = false;
	return 0;
}

/* ---- transmit -------------------------------------------------------------- */

/* Reclaim the chains the device used: back on the free list, packets freed. */
static int tx_reclaim(struct virtio_txq *txq)
{
	struct virtio_vq *vq = &txq->vq;
	struct unic_pkt *done[64];
	unsigned nb_done = 0;
	int freed = 0;
	uint16_t avail = vq_used_count(vq);

	for (;;) {
		uint32_t id;
		uint16_t cnt, tail;

		if (vq->in_order) {
			uint16_t oid;
			uint32_t len;
			int r = vq_inorder_take(vq, txq->sw_ring, txq->chain_len, &avail, &oid, &len);

			if (r == VQ_IO_NONE)
				break;
			if (r == VQ_IO_SKIP)
				continue;
			if (r == VQ_IO_TAKE) {
				/* Given back in ring order: no free list walk. */
				vq->nb_free = (uint16_t)(vq->nb_free + txq->chain_len[oid]);
				if (nb_done == UNIC_ARRAY_SIZE(done)) {
					unic_pkt_free_bulk(done, nb_done);
					nb_done = 0;
				}
				done[nb_done++] = txq->sw_ring[oid];
				txq->sw_ring[oid] = NULL;
				freed++;
				continue;
			}
			/* VQ_IO_BROKEN: this entry as without IN_ORDER. */
		}
		if (avail == 0)
			break;
		avail--;
		id = vq->used_ring[vq->used_idx & vq->mask].id;
		vq->used_idx++;
		if (UNIC_UNLIKELY(id >= vq->size || txq->sw_ring[id] == NULL)) {
			unic_counter_add(&vq->bad_used, 1);
			continue;
		}
		/* The chain is next[] from its head, chain_len long (our copy:
		 * what the device wrote into the descriptors is not read). */
		cnt = txq->chain_len[id];
		tail = (uint16_t)id;
		for (uint16_t i = 1; i < cnt; i++)
			tail = vq->next[tail];
		vq->next[tail] = vq->free_head;
		vq->free_head = (uint16_t)id;
		vq->nb_free = (uint16_t)(vq->nb_free + cnt);
		if (nb_done == UNIC_ARRAY_SIZE(done)) {
			unic_pkt_free_bulk(done, nb_done);
			nb_done = 0;
		}
		done[nb_done++] = txq->sw_ring[id];
		txq->sw_ring[id] = NULL;
		freed++;
	}
	if (nb_done)
		unic_pkt_free_bulk(done, nb_done);
	return freed;
}

int virtio_tx_reclaim(void *q)
{
	struct virtio_txq *txq = q;

	if (txq->vq.packed)
		return virtio_packed_tx_reclaim(txq);
	return tx_reclaim(txq);
}

void virtio_txq_drain(struct virtio_txq *txq)
{
	if (txq->sw_ring == NULL)
		return;
	for (uint16_t i = 0; i < txq->vq.size; i++) {
		unic_pkt_free(txq->sw_ring[i]);
		txq->sw_ring[i] = NULL;
	}
	if (txq->vq.dma.va != NULL)
		virtio_vq_init(&txq->vq);
}

/* Segments of a well-formed chain, or 0 (a zero-length segment, nb_segs or
 * pkt_len not what it holds, more than VIRTIO_TX_MAX_SEGS). */
static inline uint16_t tx_segs(const struct unic_pkt *p)
{
	uint32_t len = 0;
	uint16_t n = 0;

	for (const struct unic_pkt *s = p; s != NULL; s = s->next) {
		if (UNIC_UNLIKELY(s->data_len == 0 || n == VIRTIO_TX_MAX_SEGS))
			return 0;
		len += s->data_len;
		n++;
	}
	if (UNIC_UNLIKELY(n != p->nb_segs || len != p->pkt_len))
		return 0;
	return n;
}

/* Can the device do what the packet asks (negotiated features)? */
static inline bool tx_offload_ok(const struct virtio_txq *txq, const struct unic_pkt *p)
{
	uint64_t f = p->ol_flags;

	if (!(f & UNIC_PKT_TX_OFFLOAD_MASK))
		return true;
	if ((f & (UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_SEG)) && !txq->csum)
		return false;
	if (f & UNIC_PKT_TX_TCP_SEG) {
		if ((f & UNIC_PKT_TX_IPV4) ? !txq->tso4 : !txq->tso6)
			return false;
		/* The frame's IP header must hold its length (tx_hdr_fill). */
		if (p->tso_segsz == 0 || p->pkt_len - p->l2_len > 0xffffu)
			return false;
	}
	/* The IPv4 header checksum is computed here: the headers must be in
	 * the first segment, which unic_tx_offload_check() makes sure of. */
	return true;
}

/* Software VLAN insert needs 4 bytes of headroom in the first segment. */
static inline bool tx_vlan_ok(const struct virtio_txq *txq, const struct unic_pkt *p)
{
	return !(txq->vlan_insert && (p->ol_flags & UNIC_PKT_TX_VLAN)) ||
	       (p->data_off >= 4 && p->data_len >= 2 * UNIC_ETHER_ADDR_LEN);
}

/*
 * What makes tx_burst refuse a packet: @return the descriptors it needs
 * (header + segments), or 0 and the reason in *err. @p hdrs: also check the
 * offload requests against the headers (tx_burst: a packet sent without
 * unic_tx_prepare is refused, not sent with a header built on lengths the
 * packet does not have).
 */
static inline uint16_t tx_check(const struct virtio_txq *txq, const struct unic_pkt *p, bool hdrs, int *err)
{
	uint16_t segs = tx_segs(p);

	if (UNIC_UNLIKELY(segs == 0 || !tx_offload_ok(txq, p) || !tx_vlan_ok(txq, p) ||
			  (hdrs && (p->ol_flags & UNIC_PKT_TX_OFFLOAD_MASK) &&
			   unic_tx_offload_check(p) != UNIC_TX_OFFLOAD_OK))) {
		*err = -EINVAL;
		return 0;
	}
	if (UNIC_UNLIKELY(segs + 1u > txq->vq.size)) {
		*err = -EMSGSIZE;
		return 0;
	}
	return (uint16_t)(segs + 1);
}

uint16_t virtio_tx_check(const struct virtio_txq *txq, const struct unic_pkt *p, bool hdrs, int *err)
{
	return tx_check(txq, p, hdrs, err);
}

uint16_t virtio_tx_prepare(void *q, struct unic_pkt **pkts, uint16_t n, int *err)
{
	const struct virtio_txq *txq = q;

	for (uint16_t i = 0; i < n; i++)
		if (UNIC_UNLIKELY(tx_check(txq, pkts[i], false, err) == 0))
			return i;
	*err = 0;
	return n;
}

/* The header for the packet's offload requests (5.1.6.2). @p shift: bytes
 * inserted before the IP header (a software VLAN tag). */
static inline void tx_hdr_fill(struct virtio_txq *txq, volatile struct virtio_net_hdr_hash *hh,
			       struct unic_pkt *p, uint16_t shift)
{
	volatile struct virtio_net_hdr *h = &hh->hdr;
	uint64_t f = p->ol_flags;
	uint16_t l3 = (uint16_t)(p->l2_len + shift);

	if (txq->hdr_len > sizeof(*h)) {
		/* The hash fields are the device's to fill (rx); with a 12-byte
		 * header they are not there (the header may sit in a packet's
		 * headroom, right before the frame). */
		hh->hash_value = 0;
		hh->hash_report = 0;
		hh->padding = 0;
	}
	h->flags = 0;
	h->gso_type = VIRTIO_NET_HDR_GSO_NONE;
	h->hdr_len = 0;
	h->gso_size = 0;
	h->csum_start = 0;
	h->csum_offset = 0;
	h->num_buffers = 0;
	if (!(f & UNIC_PKT_TX_OFFLOAD_MASK))
		return;
	if (f & UNIC_PKT_TX_TCP_SEG) {
		/* The device hands a TSO frame to the host as one frame, whose
		 * stack checks its IP header before its GSO cuts it (Linux:
		 * ip_rcv on a routed tap): the header must describe the whole
		 * frame, as a TSO NIC's per-segment rewrite would not need. */
		uint8_t *iph = (uint8_t *)unic_pkt_data(p) + l3;
		uint32_t ip_len = p->pkt_len - l3;

		if (f & UNIC_PKT_TX_IPV4) {
			unic_net_put16(iph + 2, (uint16_t)ip_len);
			unic_net_put16(iph + UNIC_IPV4_CKSUM_OFF, unic_ipv4_cksum(iph, p->l3_len));
		} else {
			unic_net_put16(iph + 4, (uint16_t)(ip_len - p->l3_len));
		}
	} else if (f & UNIC_PKT_TX_IP_CKSUM) {
		/* No IPv4 header checksum offload in virtio: done here. */
		uint8_t *iph = (uint8_t *)unic_pkt_data(p) + l3;

		unic_net_put16(iph + UNIC_IPV4_CKSUM_OFF, unic_ipv4_cksum(iph, p->l3_len));
	}
	if (f & (UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_SEG)) {
		/* The field holds the pseudo-header seed (unic/cksum.h). */
		h->flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = (uint16_t)(l3 + p->l3_len);
		h->csum_offset = (f & UNIC_PKT_TX_UDP_CKSUM) ? UNIC_UDP_CKSUM_OFF : UNIC_TCP_CKSUM_OFF;
		unic_counter_add(&txq->csum_req, 1);
	}
	if (f & UNIC_PKT_TX_TCP_SEG) {
		/* The seed for TSO leaves the TCP length out (unic/cksum.h, as
		 * Intel NICs want it); a virtio device hands the frame to the
		 * host's GSO, which wants the seed of the whole frame's TCP
		 * length and adjusts it per segment (Linux tcp_gso_segment): the
		 * length goes in here. */
		uint8_t *ck = (uint8_t *)unic_pkt_data(p) + h->csum_start + UNIC_TCP_CKSUM_OFF;
		uint32_t tcp_len = p->pkt_len - h->csum_start;
		uint32_t sum = (uint32_t)unic_net_get16(ck) + (tcp_len >> 16) + (tcp_len & 0xffff);

		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		unic_net_put16(ck, (uint16_t)sum);
		h->gso_type = (f & UNIC_PKT_TX_IPV4) ? VIRTIO_NET_HDR_GSO_TCPV4 : VIRTIO_NET_HDR_GSO_TCPV6;
		h->gso_size = p->tso_segsz;
		h->hdr_len = (uint16_t)(l3 + p->l3_len + p->l4_len);
		unic_counter_add(&txq->tso, 1);
	}
}

/* Software VLAN insert: the tag after the addresses (tx_vlan_ok checked room). */
static inline void tx_vlan_insert(struct unic_pkt *p)
{
	uint8_t *d = unic_pkt_prepend(p, 4);

	if (UNIC_UNLIKELY(d == NULL))
		return; /* tx_vlan_ok checked the headroom */
	memmove(d, d + 4, 2 * UNIC_ETHER_ADDR_LEN);
	unic_net_put16(d + UNIC_ETHER_TYPE_OFF, UNIC_ETHER_TYPE_VLAN);
	unic_net_put16(d + UNIC_ETHER_HDR_LEN, p->vlan_tci);
}

/* A header descriptor at @p head and one per segment, from the free list;
 * *last: the chain's last descriptor. */
static inline void tx_chain(struct virtio_txq *txq, const struct unic_pkt *p, uint16_t head, uint16_t *last)
{
	struct virtio_vq *vq = &txq->vq;
	uint16_t id = head;

	vq->desc[id].addr = txq->hdrs_iova + (uint64_t)head * HDR_SLOT;
	vq->desc[id].len = txq->hdr_len;
	vq->desc[id].flags = VRING_DESC_F_NEXT;
	vq->desc[id].next = vq->next[id];
	for (const struct unic_pkt *s = p; s != NULL; s = s->next) {
		id = vq->next[id];
		vq->desc[id].addr = unic_pkt_data_iova(s);
		vq->desc[id].len = s->data_len;
		vq->desc[id].flags = s->next ? VRING_DESC_F_NEXT : 0;
		vq->desc[id].next = s->next ? vq->next[id] : 0;
	}
	*last = id;
}

/* One descriptor at @p head pointing at its indirect table (2.6.5.3):
 * the header and the segments, chained inside the table. */
static inline void tx_indirect(struct virtio_txq *txq, const struct unic_pkt *p, uint16_t head)
{
	volatile struct virtq_desc *t = (volatile struct virtq_desc *)(txq->indir + (size_t)head * VIRTIO_TX_INDIR_LEN);
	volatile struct virtq_desc *d = &txq->vq.desc[head];
	uint16_t k = 0;

	t[0].addr = txq->hdrs_iova + (uint64_t)head * HDR_SLOT;
	t[0].len = txq->hdr_len;
	t[0].flags = VRING_DESC_F_NEXT;
	t[0].next = 1;
	for (const struct unic_pkt *s = p; s != NULL; s = s->next) {
		k++;
		t[k].addr = unic_pkt_data_iova(s);
		t[k].len = s->data_len;
		t[k].flags = s->next ? VRING_DESC_F_NEXT : 0;
		t[k].next = s->next ? (uint16_t)(k + 1) : 0;
	}
	d->addr = txq->indir_iova + (uint64_t)head * VIRTIO_TX_INDIR_LEN;
	d->len = (uint32_t)(k + 1) * 16u;
	d->flags = VRING_DESC_F_INDIRECT;
	d->next = 0;
}

void virtio_tx_hdr(struct virtio_txq *txq, struct unic_pkt *p, uint16_t id)
{
	uint16_t shift = 0;

	if (txq->vlan_insert && (p->ol_flags & UNIC_PKT_TX_VLAN)) {
		tx_vlan_insert(p);
		shift = 4;
	}
	tx_hdr_fill(txq, &txq->hdrs[id], p, shift);
}

uint16_t virtio_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct virtio_txq *txq = q;
	struct virtio_vq *vq = &txq->vq;
	uint16_t i, start = vq->avail_idx;

	if (vq->packed)
		return virtio_packed_tx_burst(txq, pkts, n);
	if (vq->nb_free < vq->size / 4)
		tx_reclaim(txq);
	for (i = 0; i < n; i++) {
		struct unic_pkt *p = pkts[i];
		uint16_t shift = 0, head, id;
		int err;
		uint16_t need = tx_check(txq, p, true, &err);
		bool vlan = txq->vlan_insert && (p->ol_flags & UNIC_PKT_TX_VLAN);
		/* A one-segment packet with room for the header in its headroom
		 * (even-aligned, after a VLAN insert's 4 bytes) carries it
		 * there: one descriptor instead of two (VERSION_1 lifts the
		 * layout rule, 5.1.6.2). Packets are never shared: the
		 * headroom is ours while the device holds it. */
		bool push = need == 2 && p->data_off >= txq->hdr_len + (vlan ? 4 : 0) && !(p->data_off & 1);
		bool ind;

		if (UNIC_UNLIKELY(need == 0)) {
			/* Refused and counted, never sent corrupt; the packet is
			 * taken (unic_tx_prepare refuses it before). */
			unic_counter_add(&txq->cnt.errors, 1);
			unic_pkt_free(p);
			continue;
		}
		/* Several segments go through an indirect table: one descriptor. */
		ind = txq->indirect && need > 2;
		if (ind)
			need = 1;
		else
			need = (uint16_t)(need - push);
		if (UNIC_UNLIKELY(need > vq->nb_free)) {
			tx_reclaim(txq);
			if (need > vq->nb_free) {
				unic_counter_add(&txq->ring_full, 1);
				break;
			}
		}
		if (vlan) {
			tx_vlan_insert(p);
			shift = 4;
		}
		head = id = vq->free_head;
		if (push) {
			tx_hdr_fill(txq, (volatile struct virtio_net_hdr_hash *)((uint8_t *)unic_pkt_data(p) - txq->hdr_len),
				    p, shift);
			vq->desc[id].addr = unic_pkt_data_iova(p) - txq->hdr_len;
			vq->desc[id].len = (uint32_t)p->data_len + txq->hdr_len;
			vq->desc[id].flags = 0;
			vq->desc[id].next = 0;
		} else {
			tx_hdr_fill(txq, &txq->hdrs[head], p, shift);
			if (ind)
				tx_indirect(txq, p, head);
			else
				tx_chain(txq, p, head, &id);
		}
		vq->free_head = vq->next[id];
		vq->nb_free = (uint16_t)(vq->nb_free - need);
		txq->sw_ring[head] = p;
		txq->chain_len[head] = need;
		vq->avail[2 + (vq->avail_idx & vq->mask)] = head;
		vq->avail_idx++;
		unic_counter_add(&txq->cnt.packets, 1);
		unic_counter_add(&txq->cnt.bytes, p->pkt_len);
	}
	if (vq->avail_idx != start)
		vq_publish(vq);
	return i;
}

/* ---- descriptors, for the control path (no burst runs meanwhile) -------- */

/* Used buffers the device returned that the driver has not taken: the
 * entries past the driver's used index, and under IN_ORDER the rest of a
 * batch a burst read in part (the index is already past it). */
static uint16_t rx_used_pending(const struct virtio_vq *vq)
{
	uint16_t n = (uint16_t)(__atomic_load_n(&vq->used[1], __ATOMIC_ACQUIRE) - vq->used_idx + vq->batch_left);
	uint16_t posted = (uint16_t)(vq->size - vq->nb_free);

	return n < posted ? n : posted; /* a device that jumped its index: only what is posted */
}

/*
 * Rx: the @p offset-th buffer from the next the driver takes: returned by
 * the device (done), posted and waiting for a frame (available), or not
 * posted (unavailable). Buffers, not table slots: a split ring's
 * descriptors are taken from a free list in any order; a packed ring's
 * buffers are one position each, in ring order from the next the driver
 * reads, and a position is done when its flags say used in its lap.
 * Tx: a split ring's used ring counts chains, not descriptors, so there
 * is no per-descriptor answer; a packed ring's positions are in order.
 */
int virtio_desc_status(struct unic_port *port, bool tx, uint16_t q, uint16_t offset)
{
	const struct virtio_rxq *rxq;
	uint16_t posted, done;

	if (tx) {
		const struct virtio_txq *txq = port->txq[q].q;
		const struct virtio_vq *vq = &txq->vq;
		uint16_t out, free_pos;

		if (!vq->packed) {
			UNIC_LOG(ERR, PMD, "%s: tx descriptor status: a split virtqueue's used ring counts chains, not descriptors (a packed ring, QEMU's packed=on, has it)",
				 port->name);
			return -ENOTSUP;
		}
		/* From the next position the driver fills: the free ones
		 * (done, as DPDK counts them), then the oldest outstanding
		 * on: used by the device (done) or still queued. */
		out = (uint16_t)(vq->avail_idx - vq->used_idx);
		free_pos = (uint16_t)(vq->size - UNIC_MIN(out, vq->size));
		if (offset < free_pos)
			return UNIC_DESC_DONE;
		return (uint16_t)(offset - free_pos) < virtio_packed_tx_done(txq) ? UNIC_DESC_DONE : UNIC_DESC_AVAIL;
	}
	rxq = port->rxq[q].q;
	posted = (uint16_t)(rxq->vq.size - rxq->vq.nb_free);
	if (rxq->vq.packed)
		done = virtio_packed_rx_done(rxq, (uint16_t)(offset + 1u));
	else
		done = rx_used_pending(&rxq->vq);
	if (offset < done)
		return UNIC_DESC_DONE;
	return offset < posted ? UNIC_DESC_AVAIL : UNIC_DESC_UNAVAIL;
}

/* Buffers the device returned that the driver has not taken. */
int virtio_rx_queue_count(struct unic_port *port, uint16_t q)
{
	const struct virtio_rxq *rxq = port->rxq[q].q;

	if (rxq->vq.packed)
		return virtio_packed_rx_done(rxq, rxq->vq.size);
	return rx_used_pending(&rxq->vq);
}

/*
 * Descriptor table entry @p desc as the device reads it (or last wrote
 * it), four 32-bit words: split: address (two words), length, flags and
 * next; packed: address (two), length, buffer id and flags (the AVAIL
 * and USED bits say whose it is now).
 */
int virtio_desc_read(struct unic_port *port, bool tx, uint16_t q, uint16_t desc, uint32_t *words, unsigned max)
{
	const struct virtio_vq *vq = tx ? &((const struct virtio_txq *)port->txq[q].q)->vq :
					  &((const struct virtio_rxq *)port->rxq[q].q)->vq;
	const volatile uint32_t *w = (const volatile uint32_t *)&vq->desc[desc];

	for (unsigned i = 0; i < 4 && i < max; i++)
		words[i] = le32toh(w[i]);
	return 4;
}
