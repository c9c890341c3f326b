/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e1000e fast path: rx burst (extended descriptors, chained jumbo frames),
 * batch refill, tx burst (extended data descriptors), batch reclaim.
 *
 * Nothing here logs, allocates from the heap or takes a lock; a failure is
 * a counter. Everything the device wrote (status, length) is checked before
 * use.
 */
#include <endian.h>
#include <string.h>
#include <unistd.h>

#include "e1000e_priv.h"

static inline uint16_t ring_next(uint16_t i, uint16_t nb)
{
	return (uint16_t)(i + 1 == nb ? 0 : i + 1);
}

/* ---- receive ------------------------------------------------------------ */

/*
 * Give buffers to free descriptors, in batches, and move the tail. The
 * descriptor at RDT is never given (tail never equals head on a full ring,
 * datasheet 7.1.4: RDH == RDT means empty), so at most nb_desc - 1 are.
 * Stops when the pool is empty: counted in nombuf, tried again next burst.
 */
static void rx_refill(struct e1000e_rxq *rxq, uint16_t thresh)
{
	struct unic_pkt *bufs[64];
	uint16_t want = (uint16_t)(rxq->nb_desc - 1 - rxq->nb_filled);
	uint16_t ntf = rxq->next_to_fill;

	if (want < thresh || want == 0)
		return;
	while (want > 0) {
		uint16_t k = want < UNIC_ARRAY_SIZE(bufs) ? want : (uint16_t)UNIC_ARRAY_SIZE(bufs);

		if (UNIC_UNLIKELY(unic_pkt_alloc_bulk(rxq->pool, bufs, k) != 0)) {
			unic_counter_add(&rxq->cnt.nombuf, 1);
			break;
		}
		for (uint16_t i = 0; i < k; i++) {
			volatile union e1000e_rx_desc *d = &rxq->ring[ntf];

			rxq->sw_ring[ntf] = bufs[i];
			d->read.buffer_addr = bufs[i]->buf_iova + rxq->headroom;
			d->read.reserved = 0; /* clears the old DD */
			ntf = ring_next(ntf, rxq->nb_desc);
		}
		rxq->nb_filled = (uint16_t)(rxq->nb_filled + k);
		want = (uint16_t)(want - k);
	}
	if (ntf == rxq->next_to_fill)
		return;
	rxq->next_to_fill = ntf;
	/* (W1) descriptors before the tail: pairs with the device reading
	 * descriptors only below RDT after it sees the tail write. */
	unic_io_wmb();
	*rxq->rdt = ntf;
}

int e1000e_rxq_fill(struct e1000e_rxq *rxq)
{
	rx_refill(rxq, 1);
	return rxq->nb_filled == rxq->nb_desc - 1 ? 0 : -ENOBUFS;
}

void e1000e_rxq_drain(struct e1000e_rxq *rxq)
{
	if (rxq->sw_ring == NULL)
		return;
	for (uint16_t i = 0; i < rxq->nb_desc; i++) {
		unic_pkt_free(rxq->sw_ring[i]); /* NULL: a slot without a packet */
		rxq->sw_ring[i] = NULL;
	}
	unic_pkt_free(rxq->chain_head);
	rxq->chain_head = rxq->chain_tail = NULL;
	rxq->chain_drop = false;
	rxq->frame_descs = 0;
	rxq->nb_filled = 0;
	rxq->next_to_clean = rxq->next_to_fill = 0;
}

static inline uint64_t rx_flags(uint32_t staterr)
{
	uint64_t f = 0;

	if (staterr & E1000E_RXD_STAT_IXSM)
		return 0; /* checksums were not looked at */
	if (staterr & E1000E_RXD_STAT_IPCS)
		f |= (staterr & E1000E_RXD_ERR_IPE) ? UNIC_PKT_RX_IP_CKSUM_BAD : UNIC_PKT_RX_IP_CKSUM_GOOD;
	if (staterr & (E1000E_RXD_STAT_TCPCS | E1000E_RXD_STAT_UDPCS))
		f |= (staterr & E1000E_RXD_ERR_TCPE) ? UNIC_PKT_RX_L4_CKSUM_BAD : UNIC_PKT_RX_L4_CKSUM_GOOD;
	return f;
}

/*
 * Drop the frame in progress: free what it holds, count it once, and drop
 * the rest of its descriptors (up to one with EOP) unless this one ends it.
 */
static inline void rx_frame_drop(struct e1000e_rxq *rxq, struct unic_pkt **head,
				 struct unic_pkt **tail, bool eop)
{
	unic_pkt_free(*head);
	*head = *tail = NULL;
	unic_counter_add(&rxq->cnt.errors, 1);
	rxq->frame_descs = 0;
	rxq->chain_drop = !eop;
}

/*
 * Receive. A frame is the descriptors up to one with EOP; every length and
 * status bit the device wrote is checked, and a frame's chain is bounded, so
 * a device that misbehaves loses its own frames and nothing else:
 *   - a frame error, or a length above the buffer, drops the frame;
 *   - a zero-length segment is trimmed (its buffer freed, the chain goes on
 *     without it; an empty last segment ends the frame at the one before);
 *     a frame with no data at all is dropped;
 *   - a frame longer than max_frame, or one that would take more than
 *     nb_desc - 1 descriptors (a device that never writes EOP), is dropped
 *     as soon as it is known to be, so it cannot hold the ring's buffers.
 * Each dropped frame counts once in errors (ierrors), at the moment it is
 * dropped; the reasons have their own counters (oversize, len_errors,
 * empty_segs for the trims).
 */
uint16_t e1000e_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct e1000e_rxq *rxq = q;
	uint16_t ntc = rxq->next_to_clean, nb_rx = 0;
	uint16_t max_descs = (uint16_t)(rxq->nb_desc - 1);
	uint32_t max_frame = __atomic_load_n(&rxq->max_frame, __ATOMIC_RELAXED);
	struct unic_pkt *head = rxq->chain_head, *tail = rxq->chain_tail;

	while (nb_rx < n && rxq->nb_filled > 0) {
		volatile union e1000e_rx_desc *d = &rxq->ring[ntc];
		uint32_t staterr = d->wb.status_error;
		struct unic_pkt *seg;
		uint16_t len;
		bool eop;

		if (!(staterr & E1000E_RXD_STAT_DD))
			break;
		/* (R1) the rest of the descriptor after DD: pairs with the device
		 * writing DD last (QEMU: a separate DMA write after the rest). */
		unic_io_rmb();
		staterr = d->wb.status_error;
		len = d->wb.length;
		eop = (staterr & E1000E_RXD_STAT_EOP) != 0;
		seg = rxq->sw_ring[ntc];
		rxq->sw_ring[ntc] = NULL;
		rxq->nb_filled--;
		ntc = ring_next(ntc, rxq->nb_desc);

		if (UNIC_UNLIKELY(rxq->chain_drop)) {
			/* The rest of a frame already dropped and counted. */
			unic_pkt_free(seg);
			rxq->chain_drop = !eop;
			continue;
		}
		rxq->frame_descs++;
		if (UNIC_UNLIKELY(len > rxq->buf_size || (staterr & E1000E_RXD_ERR_FRAME))) {
			/* A bad descriptor spoils the whole frame. */
			if (len > rxq->buf_size)
				unic_counter_add(&rxq->len_errors, 1);
			unic_pkt_free(seg);
			rx_frame_drop(rxq, &head, &tail, eop);
			continue;
		}
		if (UNIC_UNLIKELY(len == 0)) {
			/* Trimmed: nothing to keep (and tx refuses empty segments). */
			unic_pkt_free(seg);
			unic_counter_add(&rxq->empty_segs, 1);
			if (eop && head == NULL) {
				rx_frame_drop(rxq, &head, &tail, eop); /* no data at all */
				continue;
			}
		} else {
			seg->data_off = rxq->headroom;
			seg->data_len = len;
			seg->next = NULL;
			if (head == NULL) {
				head = seg;
				head->pkt_len = len;
				head->nb_segs = 1;
			} else {
				tail->next = seg;
				head->pkt_len += len;
				head->nb_segs++;
			}
			tail = seg;
		}
		if (UNIC_UNLIKELY((head != NULL && head->pkt_len > max_frame) ||
				  (!eop && rxq->frame_descs >= max_descs))) {
			/* Too long, or about to be (the ring cannot hold more of
			 * it): drop now, so the frame never holds the ring. */
			unic_counter_add(&rxq->oversize, 1);
			rx_frame_drop(rxq, &head, &tail, eop);
			continue;
		}
		if (!eop)
			continue;
		/* The frame ends here (at the segment before, if this one
		 * was empty); the flags are in its last descriptor. */
		head->ol_flags = rx_flags(staterr);
		if ((staterr & E1000E_RXD_STAT_VP) && rxq->vlan_strip) {
			head->vlan_tci = d->wb.vlan;
			head->ol_flags |= UNIC_PKT_RX_VLAN | UNIC_PKT_RX_VLAN_STRIPPED;
		}
		if (rxq->rss && (d->wb.mrq & E1000E_RXD_MRQ_RSS_TYPE_MASK)) {
			head->rss_hash = d->wb.rss;
			head->ol_flags |= UNIC_PKT_RX_RSS_HASH;
		}
		head->port = rxq->port_id;
		head->queue = rxq->qid;
		unic_counter_add(&rxq->cnt.packets, 1);
		unic_counter_add(&rxq->cnt.bytes, head->pkt_len);
		pkts[nb_rx++] = head;
		head = tail = NULL;
		rxq->frame_descs = 0;
	}
	rxq->next_to_clean = ntc;
	rxq->chain_head = head;
	rxq->chain_tail = tail;
	rx_refill(rxq, E1000E_RX_FREE_THRESH);
	return nb_rx;
}

bool e1000e_rx_pending(void *q)
{
	struct e1000e_rxq *rxq = q;

	return rxq->nb_filled > 0 &&
	       (rxq->ring[rxq->next_to_clean].wb.status_error & E1000E_RXD_STAT_DD) != 0;
}

/* ---- transmit ----------------------------------------------------------- */

static int tx_reclaim(struct e1000e_txq *txq)
{
	struct unic_pkt *done[64];
	unsigned nb_done = 0;
	int freed = 0;
	uint16_t ntc = txq->next_to_clean;

	while (txq->rs_head != txq->rs_tail) {
		uint16_t last = txq->rs_idx[txq->rs_head];

		if (!(txq->ring[last].data.status_popts & E1000E_TXD_STAT_DD))
			break;
		/* (R2) DD seen: the device is done with every descriptor up to
		 * @last; pairs with its DD write-back, after it read them. */
		unic_io_rmb();
		for (;;) {
			struct unic_pkt *p = txq->sw_ring[ntc];
			uint16_t cur = ntc;

			if (p) {
				txq->sw_ring[ntc] = NULL;
				if (nb_done == UNIC_ARRAY_SIZE(done)) {
					unic_pkt_free_bulk(done, nb_done);
					nb_done = 0;
				}
				done[nb_done++] = p;
				freed++;
			}
			ntc = ring_next(ntc, txq->nb_desc);
			txq->nb_used--;
			if (cur == last)
				break;
		}
		txq->rs_head = ring_next(txq->rs_head, txq->nb_desc);
	}
	if (nb_done)
		unic_pkt_free_bulk(done, nb_done);
	txq->next_to_clean = ntc;
	return freed;
}

int e1000e_tx_reclaim(void *q)
{
	return tx_reclaim(q);
}

void e1000e_txq_drain(struct e1000e_txq *txq)
{
	if (txq->sw_ring == NULL)
		return;
	for (uint16_t i = 0; i < txq->nb_desc; i++) {
		unic_pkt_free(txq->sw_ring[i]); /* NULL: a slot without a packet */
		txq->sw_ring[i] = NULL;
	}
	txq->next_to_use = txq->next_to_clean = 0;
	txq->nb_used = txq->since_rs = 0;
	txq->rs_head = txq->rs_tail = 0;
	txq->ctx_key = 0;
}

/*
 * QEMU quirk: the emulated device maps each tx buffer through the vIOMMU in
 * one piece and drops the whole frame, silently, when the mapping is
 * shorter than the buffer, i.e. when it crosses an IOMMU page boundary
 * (net_tx_pkt_add_raw_fragment). So no data descriptor crosses a 4 KiB
 * boundary: a segment that does is split. Harmless on real parts.
 */
#define E1000E_TX_SPLIT 4096u

static inline uint16_t seg_descs(uint64_t iova, uint32_t len)
{
	return (uint16_t)(((iova + len - 1) / E1000E_TX_SPLIT) - (iova / E1000E_TX_SPLIT) + 1);
}

/* ---- transmit offloads: context descriptors (datasheet 7.2.10.2) ------- */

#define E1000E_TSO_MAX 65535u  /* 16-bit IP total length on the wire */

/*
 * What a context descriptor can hold (7.2.10.2): header offsets and
 * HDRLEN are 8 bits, and a TSO packet needs a segment size and a payload
 * of at most E1000E_TSO_MAX bytes. Whether the lengths match the headers is
 * lib/net's check (unic_tx_offload_check).
 */
static inline bool tx_ctx_fits(const struct unic_pkt *p)
{
	uint32_t hdr = (uint32_t)p->l2_len + p->l3_len + p->l4_len;

	return !(p->ol_flags & UNIC_PKT_TX_TCP_SEG) ||
	       (p->tso_segsz != 0 && hdr <= 255 && p->pkt_len > hdr && p->pkt_len <= E1000E_TSO_MAX + hdr);
}

/* The context the packet needs, as one comparable key (0: none). */
static inline uint64_t tx_ctx_key(const struct unic_pkt *p)
{
	uint64_t f = p->ol_flags & (UNIC_PKT_TX_OFFLOAD_MASK | UNIC_PKT_TX_IPV4);

	if (!(f & UNIC_PKT_TX_OFFLOAD_MASK))
		return 0;
	return (f >> 32) << 48 | (uint64_t)p->l2_len << 40 | (uint64_t)p->l3_len << 32 |
	       (uint64_t)p->l4_len << 24 | ((f & UNIC_PKT_TX_TCP_SEG) ? (uint64_t)p->tso_segsz << 8 : 0) | 1;
}

static void tx_ctx_write(volatile union e1000e_tx_desc *d, const struct unic_pkt *p)
{
	uint64_t f = p->ol_flags;
	uint32_t l2 = p->l2_len, l3 = p->l3_len, l4 = p->l4_len;
	uint32_t tucmd = E1000E_TXD_CMD_DEXT | E1000E_TXD_DTYP_C;
	bool tcp = (f & (UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_TCP_SEG)) != 0;

	if (tcp)
		tucmd |= E1000E_TXD_TUCMD_TCP;
	if (f & UNIC_PKT_TX_IPV4)
		tucmd |= E1000E_TXD_TUCMD_IP;
	/* IPCSS locates the IP header (TSO updates its length in every
	 * segment, IPv6 too); IPCSO/IPCSE only exist for the IPv4 header
	 * checksum, and are 0 for IPv6 (as Intel's drivers write them). */
	d->ctx.ipcss = (uint8_t)l2;
	if (f & UNIC_PKT_TX_IPV4) {
		d->ctx.ipcso = (uint8_t)(l2 + UNIC_IPV4_CKSUM_OFF);
		d->ctx.ipcse = (uint16_t)(l2 + l3 - 1);
	} else {
		d->ctx.ipcso = 0;
		d->ctx.ipcse = 0;
	}
	d->ctx.tucss = (uint8_t)(l2 + l3);
	d->ctx.tucso = (uint8_t)(l2 + l3 + (tcp ? UNIC_TCP_CKSUM_OFF : UNIC_UDP_CKSUM_OFF));
	d->ctx.tucse = 0; /* to the end of the packet */
	if (f & UNIC_PKT_TX_TCP_SEG) {
		tucmd |= E1000E_TXD_CMD_TSE | (p->pkt_len - l2 - l3 - l4);
		d->ctx.hdr_len = (uint8_t)(l2 + l3 + l4);
		d->ctx.mss = p->tso_segsz;
	} else {
		d->ctx.hdr_len = 0;
		d->ctx.mss = 0;
	}
	d->ctx.status = 0;
	d->ctx.cmd_len = tucmd;
}

/*
 * QEMU quirk: the emulated 82574 takes at most 64 data descriptors for one
 * packet (E1000E_MAX_TX_FRAGS) and drops the whole packet, silently, past
 * that; a 64 KiB TSO packet in 2 KiB buffers split at 4 KiB needs up to 64.
 */
#define E1000E_TX_MAX_DATA_DESC 64u

/* Descriptors a packet needs, checked: @return the count, or 0 if the
 * chain is malformed (a zero-length segment, nb_segs or pkt_len not what
 * it holds, more than 64 segments) or needs more than 64 data descriptors. */
static inline uint16_t tx_descs(const struct unic_pkt *p)
{
	uint32_t len = 0;
	uint16_t n = 0, d = 0;

	for (const struct unic_pkt *s = p; s != NULL; s = s->next) {
		if (UNIC_UNLIKELY(s->data_len == 0 || n == 64))
			return 0;
		len += s->data_len;
		d = (uint16_t)(d + seg_descs(unic_pkt_data_iova(s), s->data_len));
		n++;
	}
	if (UNIC_UNLIKELY(n != p->nb_segs || len != p->pkt_len || d > E1000E_TX_MAX_DATA_DESC))
		return 0;
	return d;
}

/*
 * What makes tx_burst refuse a packet: @return the descriptors the packet
 * needs, a context descriptor included when it asks for an offload
 * (whether or not the queue holds that context already, so the answer
 * does not depend on what was sent before), or 0 and the reason in *err.
 * tx_prepare checks what the ring and the context need; unic_tx_prepare
 * has checked the headers before it (@p hdrs false). tx_burst checks them
 * too (@p hdrs true): a packet sent without prepare is refused, not sent
 * with a context built on lengths its headers do not have.
 */
static inline uint16_t tx_check(const struct e1000e_txq *txq, const struct unic_pkt *p,
				uint64_t key, bool hdrs, int *err)
{
	uint16_t need = tx_descs(p);

	if (UNIC_UNLIKELY(need == 0 || (key != 0 && (!tx_ctx_fits(p) ||
	    (hdrs && unic_tx_offload_check(p) != UNIC_TX_OFFLOAD_OK))))) {
		*err = -EINVAL;
		return 0;
	}
	need = (uint16_t)(need + (key != 0));
	if (UNIC_UNLIKELY(need > txq->nb_desc - 1)) {
		*err = -EMSGSIZE;
		return 0;
	}
	return need;
}

uint16_t e1000e_tx_prepare(void *q, struct unic_pkt **pkts, uint16_t n, int *err)
{
	const struct e1000e_txq *txq = q;

	for (uint16_t i = 0; i < n; i++)
		if (UNIC_UNLIKELY(tx_check(txq, pkts[i], tx_ctx_key(pkts[i]), false, err) == 0))
			return i;
	*err = 0;
	return n;
}

uint16_t e1000e_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct e1000e_txq *txq = q;
	uint16_t ntu = txq->next_to_use, i;

	if (txq->nb_desc - 1 - txq->nb_used < E1000E_TX_RS_THRESH)
		tx_reclaim(txq);
	for (i = 0; i < n; i++) {
		struct unic_pkt *p = pkts[i];
		uint32_t vlan_cmd = 0, vlan_field = 0, popts = 0, tse = 0;
		uint64_t key = tx_ctx_key(p);
		bool new_ctx = key != 0 && key != txq->ctx_key;
		int err;
		uint16_t need = tx_check(txq, p, key, true, &err), last = ntu;

		if (key != 0 && !new_ctx && need != 0)
			need--; /* the device holds this context already */
		if (UNIC_UNLIKELY(need == 0)) {
			/* Refused and counted, never sent corrupt; the packet is
			 * taken (unic_tx_prepare refuses it before). */
			unic_counter_add(&txq->cnt.errors, 1);
			unic_pkt_free(p);
			continue;
		}
		if (UNIC_UNLIKELY(need > txq->nb_desc - 1 - txq->nb_used)) {
			tx_reclaim(txq);
			if (need > txq->nb_desc - 1 - txq->nb_used) {
				unic_counter_add(&txq->ring_full, 1);
				break;
			}
		}
		if ((p->ol_flags & UNIC_PKT_TX_VLAN) && txq->vlan_insert) {
			vlan_cmd = E1000E_TXD_CMD_VLE;
			vlan_field = (uint32_t)p->vlan_tci << E1000E_TXD_VLAN_SHIFT;
		}
		if (key != 0) {
			if (new_ctx) {
				/* One context per queue is kept (sticky): sent
				 * only when the packet needs a different one. */
				tx_ctx_write(&txq->ring[ntu], p);
				txq->sw_ring[ntu] = NULL;
				txq->ctx_key = key;
				ntu = ring_next(ntu, txq->nb_desc);
			}
			if (p->ol_flags & (UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_SEG))
				popts |= (p->ol_flags & UNIC_PKT_TX_IPV4) ? E1000E_TXD_POPTS_IXSM : 0;
			if (p->ol_flags & (UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_SEG))
				popts |= E1000E_TXD_POPTS_TXSM;
			if (p->ol_flags & UNIC_PKT_TX_TCP_SEG) {
				tse = E1000E_TXD_CMD_TSE;
				unic_counter_add(&txq->tso, 1);
			}
		}
		for (struct unic_pkt *s = p; s != NULL; s = s->next) {
			uint64_t addr = unic_pkt_data_iova(s);
			uint32_t left = s->data_len;

			while (left > 0) {
				volatile union e1000e_tx_desc *d = &txq->ring[ntu];
				uint32_t room = E1000E_TX_SPLIT - (uint32_t)(addr % E1000E_TX_SPLIT);
				uint32_t chunk = left < room ? left : room;
				uint32_t cmd = chunk | E1000E_TXD_DTYP_D | E1000E_TXD_CMD_DEXT |
					       E1000E_TXD_CMD_IFCS | vlan_cmd | tse;

				if (s->next == NULL && chunk == left)
					cmd |= E1000E_TXD_CMD_EOP;
				d->data.buffer_addr = addr;
				d->data.cmd_len = cmd;
				d->data.status_popts = vlan_field | popts; /* clears the old DD */
				txq->sw_ring[ntu] = NULL;
				last = ntu;
				ntu = ring_next(ntu, txq->nb_desc);
				addr += chunk;
				left -= chunk;
			}
		}
		txq->sw_ring[last] = p;
		txq->nb_used = (uint16_t)(txq->nb_used + need);
		txq->since_rs = (uint16_t)(txq->since_rs + need);
		if (txq->since_rs >= E1000E_TX_RS_THRESH) {
			txq->ring[last].data.cmd_len |= E1000E_TXD_CMD_RS;
			txq->rs_idx[txq->rs_tail] = last;
			txq->rs_tail = ring_next(txq->rs_tail, txq->nb_desc);
			txq->since_rs = 0;
		}
		unic_counter_add(&txq->cnt.packets, 1);
		unic_counter_add(&txq->cnt.bytes, p->pkt_len);
	}
	if (ntu != txq->next_to_use) {
		txq->next_to_use = ntu;
		/* (W2) descriptors before the tail: pairs with the device
		 * fetching descriptors below TDT once it sees the write. */
		unic_io_wmb();
		*txq->tdt = ntu;
	}
	return i;
}

/* ---- rx interrupts (the scheme: e1000e_intr.c) ------------------------- */

int e1000e_rx_intr_enable(void *q)
{
	struct e1000e_rxq *rxq = q;
	struct e1000e_hw *hw = &rxq->ep->hw;
	uint64_t stale;

	if (!rxq->ep->intr_on)
		return -ENOTSUP;
	/* INTx: every queue's cause is the shared RXT0; note this one armed. */
	if (rxq->ep->intx)
		__atomic_fetch_or(&rxq->ep->intx_armed, 1u << rxq->qid, __ATOMIC_RELAXED);
	/* A cause still pending in ICR would suppress the next message. */
	write32(hw, E1000E_ICR, rxq->icr_cause);
	/* What the eventfd holds now came before this arm: QEMU 7.2's
	 * causeless message at the vector's throttle-timer expiry, or a
	 * message the guest handed over late (docs/e1000e.md, "Interrupts");
	 * with INTx and link events, a count the event thread relayed
	 * (e1000e_intr.c). Drop it before unmasking; a frame from now on sets
	 * ICR and fires after the IMS write. One that lands after this read
	 * wakes the poller once for nothing. INTx alone has no eventfd (-1). */
	if (rxq->irq_fd >= 0 && read(rxq->irq_fd, &stale, sizeof(stale)) < 0) {
		/* EAGAIN: nothing stale. */
	}
	write32(hw, E1000E_IMS, rxq->icr_cause);
	return 0;
}

int e1000e_rx_intr_disable(void *q)
{
	struct e1000e_rxq *rxq = q;

	if (!rxq->ep->intr_on)
		return -ENOTSUP;
	/* INTx: the last queue to disarm masks the shared cause. */
	if (!rxq->ep->intx ||
	    __atomic_and_fetch(&rxq->ep->intx_armed, ~(1u << rxq->qid), __ATOMIC_RELAXED) == 0)
		write32(&rxq->ep->hw, E1000E_IMC, rxq->icr_cause);
	return 0;
}

/* ---- descriptors, for the control path (no burst runs meanwhile) -------- */

/* An rx descriptor @p offset past the next the device fills: one without a
 * buffer is unavailable; one with DD holds a frame not yet taken. */
static int rx_desc_status(const struct e1000e_rxq *rxq, uint16_t offset)
{
	uint16_t d = (uint16_t)((rxq->next_to_clean + offset) % rxq->nb_desc);

	if (offset >= rxq->nb_filled)
		return UNIC_DESC_UNAVAIL;
	return rxq->ring[d].wb.status_error & E1000E_RXD_STAT_DD ? UNIC_DESC_DONE : UNIC_DESC_AVAIL;
}

/* A tx descriptor @p offset past the next the driver fills: free ones are
 * done; one in flight is done when the device wrote DD back on the RS
 * descriptor that ends its batch (only those get DD: 3.3.3.1). */
static int tx_desc_status(const struct e1000e_txq *txq, uint16_t offset)
{
	uint16_t n = txq->nb_desc;
	uint16_t d = (uint16_t)((txq->next_to_use + offset) % n);
	uint16_t rel = (uint16_t)((d + n - txq->next_to_clean) % n); /* from the oldest in flight */

	if (rel >= txq->nb_used)
		return UNIC_DESC_DONE;
	for (uint16_t i = txq->rs_head; i != txq->rs_tail; i = (uint16_t)((i + 1) % n)) {
		uint16_t last = txq->rs_idx[i];

		if ((uint16_t)((last + n - txq->next_to_clean) % n) >= rel)
			return txq->ring[last].data.status_popts & E1000E_TXD_STAT_DD ? UNIC_DESC_DONE :
											 UNIC_DESC_AVAIL;
	}
	return UNIC_DESC_AVAIL; /* queued after the last RS: not reported yet */
}

int e1000e_desc_status(struct unic_port *port, bool tx, uint16_t q, uint16_t offset)
{
	return tx ? tx_desc_status(port->txq[q].q, offset) : rx_desc_status(port->rxq[q].q, offset);
}

int e1000e_rx_queue_count(struct unic_port *port, uint16_t q)
{
	const struct e1000e_rxq *rxq = port->rxq[q].q;
	int n = 0;

	while (n < rxq->nb_filled && rx_desc_status(rxq, (uint16_t)n) == UNIC_DESC_DONE)
		n++;
	return n;
}

int e1000e_desc_read(struct unic_port *port, bool tx, uint16_t q, uint16_t desc, uint32_t *words,
		     unsigned max)
{
	const volatile uint32_t *w = tx ? (const volatile uint32_t *)&((struct e1000e_txq *)port->txq[q].q)->ring[desc] :
					  (const volatile uint32_t *)&((struct e1000e_rxq *)port->rxq[q].q)->ring[desc];

	for (unsigned i = 0; i < 4 && i < max; i++)
		words[i] = le32toh(w[i]);
	return 4;
}
