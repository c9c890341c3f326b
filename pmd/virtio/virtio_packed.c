/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio-net fast path over packed virtqueues (virtio 1.1 section 2.7),
 * chosen when VIRTIO_F_RING_PACKED was negotiated: virtio_rxtx.c's burst
 * calls branch here once a burst.
 *
 * One ring of descriptors both sides write. The driver makes a descriptor
 * available with its AVAIL flag equal to its wrap counter and USED the
 * inverse; the device writes a used descriptor (buffer id, length) with
 * both flags equal to its own wrap counter, at the next position of its
 * own, and skips as many positions as that buffer took. Positions here are
 * free-running 16-bit counters (avail_idx, used_idx): the slot is idx &
 * mask and the wrap counter (idx & size) == 0, which holds across the
 * 16-bit wrap because size is a power of two.
 *
 * Buffer ids are the driver's: a free list of ids (next[], free_head,
 * nb_free_ids) apart from the count of free positions (nb_free). A rx
 * buffer is one descriptor; a tx packet is a header descriptor and one per
 * segment, or one indirect descriptor whose table holds them
 * (VIRTIO_F_INDIRECT_DESC). The driver keeps each id's position count
 * (tx chain_len) and never reads back what it wrote.
 *
 * Event suppression (2.7.10): the device's structure says when to kick
 * (ENABLE, DISABLE, or DESC: once a given position is made available); the
 * driver's says when it wants an interrupt (DISABLE when disarmed; armed:
 * with EVENT_IDX DESC at the next position it reads, or under moderation
 * the position that many rx buffers on; else ENABLE).
 *
 * Nothing the device writes is trusted: a used position is read only while
 * the driver has positions outstanding; an id that is not outstanding is
 * skipped (bad_used); flags that are neither "still available" nor "used
 * in this lap" are counted once (bad_used) and the queue waits; lengths
 * are checked as for split rings (virtio_rx_seg).
 */
#include <string.h>
#include <unistd.h>

#include "virtio_priv.h"

#define HDR_SLOT ((uint16_t)sizeof(struct virtio_net_hdr_hash)) /* a tx header slot */
#define F_AVAIL VRING_PACKED_DESC_F_AVAIL
#define F_USED VRING_PACKED_DESC_F_USED

/* The wrap counter at position @p idx: 1 on the first lap. */
static inline bool pk_wrap(const struct virtio_vq *vq, uint16_t idx)
{
	return (idx & vq->size) == 0;
}

/* The flags that make the descriptor at @p idx available (2.7.1). */
static inline uint16_t pk_avail_flags(const struct virtio_vq *vq, uint16_t idx)
{
	return pk_wrap(vq, idx) ? F_AVAIL : F_USED;
}

/* The event suppression off_wrap naming position @p idx. */
static inline uint16_t pk_off_wrap(const struct virtio_vq *vq, uint16_t idx)
{
	return (uint16_t)((idx & vq->mask) | (uint16_t)pk_wrap(vq, idx) << VRING_PACKED_EVENT_WRAP_SHIFT);
}

/* Offsets in the queue's DMA zone: the ring, the driver event structure
 * after it, the device's on its own cache line. Smaller than a split
 * virtqueue of the same size (virtio_vq_bytes). */
void virtio_packed_vq_init(struct virtio_vq *vq)
{
	uint8_t *base = vq->dma.va;
	size_t dev_off = UNIC_ALIGN_CEIL((size_t)16 * vq->size + sizeof(struct vring_packed_event),
					 (size_t)UNIC_CACHE_LINE_SIZE);

	memset(base, 0, vq->dma.len);
	vq->mask = (uint16_t)(vq->size - 1);
	vq->pdesc = (volatile struct vring_packed_desc *)base;
	vq->drv_event = (volatile struct vring_packed_event *)(base + 16u * vq->size);
	vq->dev_event = (volatile struct vring_packed_event *)(base + dev_off);
	/* queue_driver / queue_device for virtio_hw_queue_setup. */
	vq->desc = (volatile struct virtq_desc *)base;
	vq->avail = (volatile uint16_t *)vq->drv_event;
	vq->used = (volatile uint16_t *)vq->dev_event;
	vq->used_ring = NULL;
	vq->used_event = vq->avail_event = NULL;
	/* In order (IN_ORDER keeps it so: next[i] = i + 1, wrapping). */
	for (uint16_t i = 0; i < vq->size; i++)
		vq->next[i] = (uint16_t)((i + 1) & vq->mask);
	vq->free_head = 0;
	vq->nb_free = vq->nb_free_ids = vq->size;
	vq->avail_idx = vq->kicked_idx = vq->used_idx = 0;
	vq->batch_left = 0;
	vq->bad_flags_at = 0;
	/* No used-buffer notifications until an rx queue arms. */
	vq->drv_event->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
}

/* Positions made available and not yet used. */
static inline uint16_t pk_outstanding(const struct virtio_vq *vq)
{
	return (uint16_t)(vq->avail_idx - vq->used_idx);
}

/*
 * Is the descriptor at used_idx used? Its flags (R1: read before the id
 * and length, pairs with the device writing them first). Flags that are
 * neither ours-still-available nor used-in-this-lap are a device's
 * garbage: counted once per position, and the queue waits there.
 */
static inline bool pk_used(struct virtio_vq *vq)
{
	uint16_t flags, want, mine;

	if (pk_outstanding(vq) == 0)
		return false;
	flags = __atomic_load_n(&vq->pdesc[vq->used_idx & vq->mask].flags, __ATOMIC_ACQUIRE) &
		(F_AVAIL | F_USED);
	want = pk_wrap(vq, vq->used_idx) ? (F_AVAIL | F_USED) : 0;
	if (flags == want) {
		unic_io_rmb();
		return true;
	}
	mine = pk_avail_flags(vq, vq->used_idx);
	if (UNIC_UNLIKELY(flags != mine && vq->bad_flags_at != (uint16_t)(vq->used_idx + 1))) {
		vq->bad_flags_at = (uint16_t)(vq->used_idx + 1);
		unic_counter_add(&vq->bad_used, 1);
	}
	return false;
}

/*
 * IN_ORDER on a packed ring (2.7.9): the device may answer a batch of
 * buffers with one used descriptor, written over the batch's first,
 * naming the buffer id of its last, and skip the batch's positions. The
 * driver hands ids out in order (pk_id_get from a list kept in order),
 * so the batch is the outstanding ids from the oldest, (free_head +
 * nb_free_ids), up to the one named, each chain_len positions (1 for
 * rx). The used descriptor carries no count, so a device that uses
 * buffers out of order cannot be told from one that batches: what is
 * checked is that the id is outstanding and the batch within the
 * positions made available.
 * @return VQ_IO_TAKE with *id the oldest outstanding buffer and *len its
 * length (UINT32_MAX: skipped by the batch, used completely), VQ_IO_NONE,
 * VQ_IO_SKIP (an id not outstanding, or a batch past what is available:
 * counted in bad_used, one position passed, nothing taken, and in_order
 * off until the next start: the queue reads one buffer a used
 * descriptor from then on, as without IN_ORDER).
 */
enum { VQ_IO_NONE, VQ_IO_TAKE, VQ_IO_SKIP };

static inline int pk_inorder_take(struct virtio_vq *vq, struct unic_pkt *const *sw_ring, const uint16_t *chain_len,
				  uint16_t *id, uint32_t *len)
{
	uint16_t oldest = (uint16_t)((vq->free_head + vq->nb_free_ids) & vq->mask);

	if (vq->batch_left == 0) {
		volatile struct vring_packed_desc *d;
		uint32_t x, outstanding = pk_outstanding(vq), ids = (uint32_t)(vq->size - vq->nb_free_ids), pos = 0;
		uint16_t h = oldest, k;
		bool found = false;

		if (!pk_used(vq))
			return VQ_IO_NONE;
		d = &vq->pdesc[vq->used_idx & vq->mask];
		x = d->id;
		for (k = 1; k <= ids && sw_ring[h] != NULL; k++) {
			uint16_t c = chain_len != NULL ? chain_len[h] : 1;

			if (pos + c > outstanding)
				break;
			pos += c;
			if (h == x) {
				found = true;
				break;
			}
			h = (uint16_t)((h + 1) & vq->mask);
		}
		if (UNIC_UNLIKELY(!found)) {
			unic_counter_add(&vq->bad_used, 1);
			vq->in_order = false;
			vq->used_idx++;
			return VQ_IO_SKIP;
		}
		vq->batch_left = k;
		vq->batch_len = d->len;
		vq->used_idx = (uint16_t)(vq->used_idx + pos);
	}
	*id = oldest;
	*len = vq->batch_left == 1 ? vq->batch_len : UINT32_MAX;
	vq->batch_left--;
	return VQ_IO_TAKE;
}

static inline uint16_t pk_id_get(struct virtio_vq *vq)
{
	uint16_t id = vq->free_head;

	vq->free_head = vq->next[id];
	vq->nb_free_ids--;
	return id;
}

static inline void pk_id_put(struct virtio_vq *vq, uint16_t id)
{
	vq->next[id] = vq->free_head;
	vq->free_head = id;
	vq->nb_free_ids++;
}

/*
 * Does the device want a kick for the positions kicked_idx..avail_idx
 * (2.7.10)? The device structure's flags; with DESC its off_wrap names a
 * position, which is taken as the one at or before avail_idx - 1 (within
 * two laps: the wrap counter tells the lap), and the kick is due when it
 * lies in the range just made available. (M1) the descriptors' flags
 * before the load of the device's wish: a store then a load.
 */
static inline void pk_publish(struct virtio_vq *vq)
{
	uint16_t now = vq->avail_idx, old = vq->kicked_idx, flags, off_wrap;
	bool kick;

	unic_smp_mb();
	off_wrap = vq->dev_event->off_wrap;
	flags = vq->dev_event->flags & 3u;
	if (flags == VRING_PACKED_EVENT_FLAG_DESC && vq->event_idx) {
		uint32_t laps2 = 2u * vq->size - 1u;
		uint16_t ev = (uint16_t)((off_wrap & 0x7fffu) |
					 ((off_wrap >> VRING_PACKED_EVENT_WRAP_SHIFT) ? 0u : vq->size));

		/* Distance back from now - 1 to the event position, within two laps. */
		kick = (((uint32_t)(uint16_t)(now - 1u - ev)) & laps2) < (uint16_t)(now - old);
	} else {
		/* DESC without EVENT_IDX is the device's error: kicked. */
		kick = flags != VRING_PACKED_EVENT_FLAG_DISABLE;
	}
	vq->kicked_idx = now;
	virtio_vq_kick(vq, kick);
}

/* ---- receive --------------------------------------------------------------- */

void virtio_packed_rx_refill(struct virtio_rxq *rxq, uint16_t thresh)
{
	struct virtio_vq *vq = &rxq->vq;
	struct unic_pkt *bufs[64];
	uint16_t want = vq->nb_free < vq->nb_free_ids ? vq->nb_free : vq->nb_free_ids;
	uint16_t first = vq->avail_idx, first_flags = 0;
	bool posted = false;

	if (want == 0 || (want < thresh && pk_outstanding(vq) != 0))
		return;
	while (want > 0) {
		uint16_t k = want < UNIC_ARRAY_SIZE(bufs) ? want : (uint16_t)UNIC_ARRAY_SIZE(bufs);

		if (UNIC_UNLIKELY(unic_pkt_alloc_bulk(rxq->pool, bufs, k) != 0)) {
			for (k = 0; k < want && k < UNIC_ARRAY_SIZE(bufs); k++) {
				bufs[k] = unic_pkt_alloc(rxq->pool);
				if (bufs[k] == NULL)
					break;
			}
			unic_counter_add(&rxq->cnt.nombuf, 1);
			want = k;
			if (k == 0)
				break;
		}
		for (uint16_t i = 0; i < k; i++) {
			uint16_t id = pk_id_get(vq), flags = VRING_DESC_F_WRITE | pk_avail_flags(vq, vq->avail_idx);
			volatile struct vring_packed_desc *d = &vq->pdesc[vq->avail_idx & vq->mask];

			rxq->sw_ring[id] = bufs[i];
			d->addr = bufs[i]->buf_iova + rxq->headroom - rxq->hdr_len;
			d->len = rxq->buf_len;
			d->id = id;
			/* The batch's first flags last: the device sees all or none. */
			if (vq->avail_idx == first)
				first_flags = flags;
			else
				d->flags = flags;
			vq->avail_idx++;
		}
		vq->nb_free = (uint16_t)(vq->nb_free - k);
		want = (uint16_t)(want - k);
		posted = true;
	}
	if (!posted)
		return;
	/* (W1) the descriptors before the first one's flags. */
	unic_io_wmb();
	__atomic_store_n(&vq->pdesc[first & vq->mask].flags, first_flags, __ATOMIC_RELEASE);
	pk_publish(vq);
}

uint16_t virtio_packed_rx_burst(struct virtio_rxq *rxq, struct unic_pkt **pkts, uint16_t n)
{
	struct virtio_vq *vq = &rxq->vq;
	uint16_t nb_rx = 0;

	while (nb_rx < n) {
		volatile struct vring_packed_desc *d;
		uint32_t id, len;
		struct unic_pkt *seg;

		if (vq->in_order) {
			uint16_t oid;
			int r = pk_inorder_take(vq, rxq->sw_ring, NULL, &oid, &len);

			if (r == VQ_IO_NONE)
				break;
			/* A rx buffer is one position; ids come back in order
			 * (the list is untouched). */
			vq->nb_free++;
			if (r == VQ_IO_SKIP)
				continue;
			seg = rxq->sw_ring[oid];
			rxq->sw_ring[oid] = NULL;
			vq->nb_free_ids++;
			if (virtio_rx_seg(rxq, seg, len == UINT32_MAX ? rxq->buf_len : len, &pkts[nb_rx]))
				nb_rx++;
			continue;
		}
		if (!pk_used(vq))
			break;
		d = &vq->pdesc[vq->used_idx & vq->mask];
		id = d->id;
		len = d->len;

		/* A rx buffer is one position, whatever the id says. */
		vq->used_idx++;
		vq->nb_free++;
		if (UNIC_UNLIKELY(id >= vq->size || rxq->sw_ring[id] == NULL)) {
			/* Not an outstanding buffer: skipped. Its position is
			 * free again; no id comes back. */
			unic_counter_add(&vq->bad_used, 1);
			continue;
		}
		seg = rxq->sw_ring[id];
		rxq->sw_ring[id] = NULL;
		pk_id_put(vq, (uint16_t)id);
		if (virtio_rx_seg(rxq, seg, len, &pkts[nb_rx]))
			nb_rx++;
	}
	virtio_packed_rx_refill(rxq, VIRTIO_RX_FREE_THRESH);
	return nb_rx;
}

bool virtio_packed_rx_pending(struct virtio_rxq *rxq)
{
	struct virtio_vq *vq = &rxq->vq;
	uint16_t flags, want;

	if (vq->batch_left != 0)
		return true;
	if (pk_outstanding(vq) == 0)
		return false;
	flags = __atomic_load_n(&vq->pdesc[vq->used_idx & vq->mask].flags, __ATOMIC_ACQUIRE) & (F_AVAIL | F_USED);
	want = pk_wrap(vq, vq->used_idx) ? (F_AVAIL | F_USED) : 0;
	return flags == want;
}

/*
 * Arm: with EVENT_IDX, DESC at the position @p entries - 1 past the next
 * one the driver reads (the device interrupts when it marks that one
 * used: at once for 1, after that many rx buffers under moderation),
 * else ENABLE. The off_wrap before the flags. Disarm: DISABLE. The
 * caller's fence and re-check follow (virtio_rx_intr_enable).
 */
void virtio_packed_intr_arm(struct virtio_vq *vq, bool on, uint16_t entries)
{
	if (!on) {
		vq->drv_event->flags = VRING_PACKED_EVENT_FLAG_DISABLE;
		return;
	}
	if (vq->event_idx) {
		vq->drv_event->off_wrap = pk_off_wrap(vq, (uint16_t)(vq->used_idx + UNIC_MAX(entries, 1u) - 1u));
		unic_io_wmb();
		vq->drv_event->flags = VRING_PACKED_EVENT_FLAG_DESC;
	} else {
		vq->drv_event->flags = VRING_PACKED_EVENT_FLAG_ENABLE;
	}
}

/* ---- descriptor status (the control path) ----------------------------------- */

/* Is the descriptor at position @p pos used in its lap? (R1 as pk_used.) */
static inline bool pk_used_at(const struct virtio_vq *vq, uint16_t pos)
{
	uint16_t flags = __atomic_load_n(&vq->pdesc[pos & vq->mask].flags, __ATOMIC_ACQUIRE) & (F_AVAIL | F_USED);

	return flags == (pk_wrap(vq, pos) ? (F_AVAIL | F_USED) : 0);
}

/*
 * The rx buffers the device used that the driver has not taken, reading
 * what the burst would read and taking nothing: the rest of an IN_ORDER
 * batch already read (batch_left), then each used position from the next
 * one, one buffer a position; under IN_ORDER a used descriptor stands for
 * the buffers from the oldest outstanding id up to the one it names (ids
 * are handed out in ring order). A position not used, or an id that does
 * not fit what is outstanding, ends the count (the burst counts it).
 */
uint16_t virtio_packed_rx_done(const struct virtio_rxq *rxq, uint16_t limit)
{
	const struct virtio_vq *vq = &rxq->vq;
	uint16_t out = pk_outstanding(vq), seen = 0, done = vq->batch_left;
	uint16_t next_id = (uint16_t)((vq->free_head + vq->nb_free_ids + vq->batch_left) & vq->mask);

	while (done < limit && seen < out) {
		uint16_t pos = (uint16_t)(vq->used_idx + seen), k = 1;

		if (!pk_used_at(vq, pos))
			break;
		if (vq->in_order) {
			uint16_t id;

			unic_io_rmb();
			id = vq->pdesc[pos & vq->mask].id;
			k = (uint16_t)(((uint16_t)(id - next_id) & vq->mask) + 1u);
			if (id >= vq->size || k > out - seen)
				break;
			next_id = (uint16_t)((id + 1u) & vq->mask);
		}
		seen = (uint16_t)(seen + k);
		done = (uint16_t)(done + k);
	}
	return done < limit ? done : limit;
}

/*
 * The tx positions the device used from the oldest outstanding one: each
 * used descriptor names a buffer id whose chain took chain_len positions
 * (under IN_ORDER: the chains from the oldest outstanding id up to the
 * one named). An id that is not outstanding, or a chain past what is
 * outstanding, ends the count. Read-only.
 */
uint16_t virtio_packed_tx_done(const struct virtio_txq *txq)
{
	const struct virtio_vq *vq = &txq->vq;
	uint16_t out = pk_outstanding(vq), seen = 0;
	uint16_t next_id = (uint16_t)((vq->free_head + vq->nb_free_ids) & vq->mask), ids = 0;

	while (seen < out) {
		uint16_t pos = (uint16_t)(vq->used_idx + seen), id;
		uint32_t k = 0;

		if (!pk_used_at(vq, pos))
			break;
		unic_io_rmb();
		id = vq->pdesc[pos & vq->mask].id;
		if (id >= vq->size || txq->sw_ring[id] == NULL)
			break;
		if (vq->in_order) {
			uint16_t h = next_id;
			bool found = false;

			/* The chains from the oldest outstanding through id. */
			while (ids < (uint16_t)(vq->size - vq->nb_free_ids) && txq->sw_ring[h] != NULL) {
				k += txq->chain_len[h];
				ids++;
				if (h == id) {
					found = true;
					break;
				}
				h = (uint16_t)((h + 1u) & vq->mask);
			}
			if (!found)
				break;
			next_id = (uint16_t)((id + 1u) & vq->mask);
		} else {
			k = txq->chain_len[id];
		}
		if (k == 0 || k > (uint32_t)(out - seen))
			break;
		seen = (uint16_t)(seen + k);
	}
	return seen;
}

/* ---- transmit -------------------------------------------------------------- */

int virtio_packed_tx_reclaim(struct virtio_txq *txq)
{
	struct virtio_vq *vq = &txq->vq;
	struct unic_pkt *done[64];
	unsigned nb_done = 0;
	int freed = 0;

	for (;;) {
		uint16_t id, cnt;

		if (vq->in_order) {
			uint32_t len;
			int r = pk_inorder_take(vq, txq->sw_ring, txq->chain_len, &id, &len);

			if (r == VQ_IO_NONE)
				break;
			if (r == VQ_IO_SKIP)
				continue; /* one position passed, nothing freed */
			/* Ids come back in order: the list is untouched. */
			cnt = txq->chain_len[id];
			vq->nb_free = (uint16_t)(vq->nb_free + cnt);
			vq->nb_free_ids++;
			if (nb_done == UNIC_ARRAY_SIZE(done)) {
				unic_pkt_free_bulk(done, nb_done);
				nb_done = 0;
			}
			done[nb_done++] = txq->sw_ring[id];
			txq->sw_ring[id] = NULL;
			freed++;
			continue;
		}
		if (!pk_used(vq))
			break;
		id = vq->pdesc[vq->used_idx & vq->mask].id;

		if (UNIC_UNLIKELY(id >= vq->size || txq->sw_ring[id] == NULL ||
				  txq->chain_len[id] > pk_outstanding(vq))) {
			/* Not an outstanding packet: one position skipped (the
			 * device's own count is unknown), nothing freed. */
			unic_counter_add(&vq->bad_used, 1);
			vq->used_idx++;
			continue;
		}
		cnt = txq->chain_len[id];
		vq->used_idx = (uint16_t)(vq->used_idx + cnt);
		vq->nb_free = (uint16_t)(vq->nb_free + cnt);
		pk_id_put(vq, id);
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

/* Free positions, taking back what skipped used positions lost: the
 * positions no id holds (a device that named bad ids) are free once every
 * packet is back. */
static inline uint16_t pk_tx_free(struct virtio_vq *vq)
{
	if (vq->nb_free_ids == vq->size && pk_outstanding(vq) == 0)
		vq->nb_free = vq->size;
	return vq->nb_free_ids ? vq->nb_free : 0;
}

uint16_t virtio_packed_tx_burst(struct virtio_txq *txq, struct unic_pkt **pkts, uint16_t n)
{
	struct virtio_vq *vq = &txq->vq;
	uint16_t i, start = vq->avail_idx;

	if (vq->nb_free < vq->size / 4)
		virtio_packed_tx_reclaim(txq);
	for (i = 0; i < n; i++) {
		struct unic_pkt *p = pkts[i];
		volatile struct vring_packed_desc *d;
		uint16_t id, pos, head_flags;
		int err;
		uint16_t need = virtio_tx_check(txq, p, true, &err);
		bool ind;

		if (UNIC_UNLIKELY(need == 0)) {
			unic_counter_add(&txq->cnt.errors, 1);
			unic_pkt_free(p);
			continue;
		}
		/* Several segments go through an indirect table: one position. */
		ind = txq->indirect && need > 2;
		if (ind)
			need = 1;
		if (UNIC_UNLIKELY(need > pk_tx_free(vq))) {
			virtio_packed_tx_reclaim(txq);
			if (need > pk_tx_free(vq)) {
				unic_counter_add(&txq->ring_full, 1);
				break;
			}
		}
		id = pk_id_get(vq);
		virtio_tx_hdr(txq, p, id);
		pos = vq->avail_idx;
		head_flags = pk_avail_flags(vq, pos);
		if (ind) {
			volatile struct vring_packed_desc *t =
				(volatile struct vring_packed_desc *)(txq->indir + (size_t)id * VIRTIO_TX_INDIR_LEN);
			uint16_t k = 1;

			t[0].addr = txq->hdrs_iova + (uint64_t)id * HDR_SLOT;
			t[0].len = txq->hdr_len;
			t[0].id = 0;
			t[0].flags = 0;
			for (struct unic_pkt *s = p; s != NULL; s = s->next, k++) {
				t[k].addr = unic_pkt_data_iova(s);
				t[k].len = s->data_len;
				t[k].id = 0;
				t[k].flags = 0;
			}
			d = &vq->pdesc[pos & vq->mask];
			d->addr = txq->indir_iova + (uint64_t)id * VIRTIO_TX_INDIR_LEN;
			d->len = (uint32_t)k * 16u;
			d->id = id;
			head_flags |= VRING_DESC_F_INDIRECT;
		} else {
			uint16_t at = (uint16_t)(pos + 1);

			d = &vq->pdesc[pos & vq->mask];
			d->addr = txq->hdrs_iova + (uint64_t)id * HDR_SLOT;
			d->len = txq->hdr_len;
			d->id = id;
			head_flags |= VRING_DESC_F_NEXT;
			for (struct unic_pkt *s = p; s != NULL; s = s->next, at++) {
				volatile struct vring_packed_desc *sd = &vq->pdesc[at & vq->mask];

				sd->addr = unic_pkt_data_iova(s);
				sd->len = s->data_len;
				sd->id = id;
				sd->flags = (uint16_t)((s->next ? VRING_DESC_F_NEXT : 0) | pk_avail_flags(vq, at));
			}
		}
		/* (W1) the chain before its head's flags. */
		unic_io_wmb();
		__atomic_store_n(&d->flags, head_flags, __ATOMIC_RELEASE);
		vq->avail_idx = (uint16_t)(vq->avail_idx + need);
		vq->nb_free = (uint16_t)(vq->nb_free - need);
		txq->sw_ring[id] = p;
		txq->chain_len[id] = need;
		unic_counter_add(&txq->cnt.packets, 1);
		unic_counter_add(&txq->cnt.bytes, p->pkt_len);
	}
	if (vq->avail_idx != start)
		pk_publish(vq);
	return i;
}

/* ---- one request at a time (a control queue) ------------------------------- */

int virtio_packed_request(struct virtio_vq *vq, const struct virtio_req_seg *segs, unsigned n)
{
	uint16_t pos = vq->avail_idx, head_flags = 0;

	if (n == 0 || n > vq->size)
		return -EINVAL;
	if (pk_outstanding(vq) != 0)
		return -EBUSY;
	for (unsigned k = 0; k < n; k++) {
		uint16_t at = (uint16_t)(pos + k);
		volatile struct vring_packed_desc *d = &vq->pdesc[at & vq->mask];
		uint16_t flags = (uint16_t)((k + 1 < n ? VRING_DESC_F_NEXT : 0) |
					    (segs[k].write ? VRING_DESC_F_WRITE : 0) | pk_avail_flags(vq, at));

		d->addr = segs[k].iova;
		d->len = segs[k].len;
		d->id = 0;
		if (k == 0)
			head_flags = flags;
		else
			d->flags = flags;
	}
	unic_io_wmb();
	__atomic_store_n(&vq->pdesc[pos & vq->mask].flags, head_flags, __ATOMIC_RELEASE);
	vq->avail_idx = (uint16_t)(pos + n);
	pk_publish(vq);
	return 0;
}

int virtio_packed_request_done(struct virtio_vq *vq, uint32_t *len)
{
	volatile struct vring_packed_desc *d;
	uint16_t id;

	if (!pk_used(vq))
		return 0;
	d = &vq->pdesc[vq->used_idx & vq->mask];
	id = d->id;
	*len = d->len;
	/* The one request is over, whatever the device says of it. */
	vq->used_idx = vq->avail_idx;
	if (UNIC_UNLIKELY(id != 0)) {
		unic_counter_add(&vq->bad_used, 1);
		return -EPROTO;
	}
	return 1;
}
