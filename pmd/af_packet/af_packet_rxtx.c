/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_packet port's fast path: receive from a TPACKET_V3 rx ring,
 * transmit through a TPACKET_V3 tx ring, the rx re-check and interrupts.
 *
 * Rx ring (packet_mmap.rst, "TPACKET_V3"): the kernel fills one block at a
 * time with variable-sized packets and hands the whole block over by
 * setting TP_STATUS_USER in its block header, when it is full or when the
 * retire timer (tov=) fires on a block that holds a packet; then it wakes
 * the socket (POLLIN). We copy the packets into pool buffers and give the
 * block back (TP_STATUS_KERNEL). Nothing in a block is trusted: the packet
 * count, the first offset, each packet's next offset, tp_mac, tp_snaplen
 * are checked against the block before a byte is read, so a corrupt block
 * costs a counter, never a read outside the mapping.
 *
 * Tx ring: fixed frames; a frame is ours while its status is
 * TP_STATUS_AVAILABLE (timestamp bits aside). We copy a packet in, set
 * TP_STATUS_SEND_REQUEST, and after the burst kick the kernel with a
 * non-blocking send(); it sends every requested frame and gives each back
 * (AVAILABLE) once the driver below has let go of its copy.
 *
 * Ordering with the kernel: the status word is the handover in both
 * directions. We read it with an acquire load before reading what the
 * kernel wrote (it writes the data, then smp_wmb, then the status), and
 * write it with a release store after our own writes (the kernel reads the
 * status, then smp_rmb, then the data).
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/if_ether.h>

#include <unic/net.h>

#include "af_packet_priv.h"

#define AFP_VLAN_HLEN 4
/* Packets in a V3 block start on 8 bytes (the kernel's V3_ALIGNMENT), not
 * on TPACKET_ALIGNMENT. */
#define AFP_V3_ALIGN 8u

static struct tpacket_block_desc *afp_block(const struct afp_rxq *rxq, uint32_t i)
{
	return (struct tpacket_block_desc *)(rxq->ring + (size_t)i * rxq->block_size);
}

static void afp_block_release(struct afp_rxq *rxq)
{
	struct tpacket_block_desc *bd = afp_block(rxq, rxq->cur);

	/* Release: our reads of the block are done before the kernel may
	 * reuse it. */
	unic_store_release(&bd->hdr.bh1.block_status, TP_STATUS_KERNEL);
	rxq->block_open = false;
	rxq->cur = rxq->cur + 1 == rxq->nb_blocks ? 0 : rxq->cur + 1;
}

void afp_rxq_reset(struct afp_rxq *rxq)
{
	for (uint32_t i = 0; i < rxq->nb_blocks; i++)
		unic_store_release(&afp_block(rxq, i)->hdr.bh1.block_status, TP_STATUS_KERNEL);
	rxq->cur = 0;
	rxq->block_open = false;
}

/*
 * Open the current block if the kernel handed it over. A block whose header
 * is out of bounds is counted and given back at once. @return 1 when a block
 * is open with packets to read, 0 when the kernel still owns it, -1 when it
 * was bad and given back (the next block may be ready).
 */
static int afp_block_open(struct afp_rxq *rxq)
{
	struct tpacket_block_desc *bd = afp_block(rxq, rxq->cur);
	uint32_t st, blk_len, first, num;

	st = unic_load_acquire(&bd->hdr.bh1.block_status);
	if (!(st & TP_STATUS_USER))
		return 0;
	blk_len = unic_load_relaxed(&bd->hdr.bh1.blk_len);
	first = unic_load_relaxed(&bd->hdr.bh1.offset_to_first_pkt);
	num = unic_load_relaxed(&bd->hdr.bh1.num_pkts);
	if (UNIC_UNLIKELY(blk_len > rxq->block_size || first < sizeof(*bd) ||
			  first % AFP_V3_ALIGN != 0 ||
			  (uint64_t)first + sizeof(struct tpacket3_hdr) > blk_len || num == 0)) {
		/* Nothing here can be read safely (or there is nothing to
		 * read): one ring error for the block, which goes back. */
		unic_counter_add(&rxq->xcnt.ring_errors, 1);
		unic_counter_add(&rxq->cnt.errors, 1);
		afp_block_release(rxq);
		return -1;
	}
	rxq->blk_len = blk_len;
	rxq->pkt_off = first;
	rxq->pkts_left = num;
	rxq->block_open = true;
	return 1;
}

/*
 * Check the packet at rxq->pkt_off. @return its header, or NULL when the
 * header or its data would lie outside the block (counted; the block's
 * remaining packets are dropped with it, as nothing past a bad next offset
 * can be found).
 */
static const struct tpacket3_hdr *afp_pkt_check(struct afp_rxq *rxq)
{
	const uint8_t *blk = (const uint8_t *)afp_block(rxq, rxq->cur);
	const struct tpacket3_hdr *h = (const struct tpacket3_hdr *)(blk + rxq->pkt_off);
	uint32_t mac, snap;

	if (UNIC_UNLIKELY((uint64_t)rxq->pkt_off + sizeof(*h) > rxq->blk_len))
		return NULL;
	mac = h->tp_mac;
	snap = h->tp_snaplen;
	if (UNIC_UNLIKELY(mac < sizeof(*h) ||
			  (uint64_t)rxq->pkt_off + mac + snap > rxq->blk_len))
		return NULL;
	return h;
}

/* Copy one packet into @p p; @return false (counted) when it cannot be. */
static bool afp_pkt_copy(struct afp_rxq *rxq, const struct tpacket3_hdr *h, struct unic_pkt *p)
{
	const uint8_t *data = (const uint8_t *)h + h->tp_mac;
	uint32_t snap = h->tp_snaplen;
	bool vlan = (h->tp_status & TP_STATUS_VLAN_VALID) && snap >= 2 * ETH_ALEN;
	uint32_t len = snap + (vlan ? AFP_VLAN_HLEN : 0);
	uint8_t *dst;

	if (UNIC_UNLIKELY(snap < h->tp_len)) {
		/* The kernel cut the frame to fit the block (a GSO frame, or a
		 * frame over blocksz): dropping it is better than a short copy. */
		unic_counter_add(&rxq->xcnt.truncated, 1);
		return false;
	}
	if (UNIC_UNLIKELY(snap < ETH_HLEN || len > unic_pkt_tailroom(p))) {
		unic_counter_add(&rxq->xcnt.too_long, snap >= ETH_HLEN);
		if (snap < ETH_HLEN)
			unic_counter_add(&rxq->xcnt.ring_errors, 1);
		return false;
	}
	dst = unic_pkt_data(p);
	if (vlan) {
		/* The kernel took the tag out of the frame (rx VLAN offload on
		 * the interface) and left it in the header: put it back after
		 * the addresses, with its TPID (802.1Q unless the kernel says). */
		uint16_t tpid = (h->tp_status & TP_STATUS_VLAN_TPID_VALID) && h->hv1.tp_vlan_tpid
					? h->hv1.tp_vlan_tpid : ETH_P_8021Q;

		memcpy(dst, data, 2 * ETH_ALEN);
		unic_net_put16(dst + 2 * ETH_ALEN, tpid);
		unic_net_put16(dst + 2 * ETH_ALEN + 2, (uint16_t)h->hv1.tp_vlan_tci);
		memcpy(dst + 2 * ETH_ALEN + AFP_VLAN_HLEN, data + 2 * ETH_ALEN, snap - 2 * ETH_ALEN);
		unic_counter_add(&rxq->xcnt.vlan_restored, 1);
	} else {
		memcpy(dst, data, snap);
	}
	if (UNIC_UNLIKELY(h->tp_status & TP_STATUS_CSUMNOTREADY))
		/* A local sender's checksum offload (a veth peer): the L4
		 * checksum is not filled in; forwarded as is, the frame's
		 * receiver drops it (docs/ports.md says what to turn off). */
		unic_counter_add(&rxq->xcnt.csum_not_ready, 1);
	if (h->hv1.tp_rxhash != 0) {
		/* The flow hash the fanout spread by (TP_FT_REQ_FILL_RXHASH). */
		p->rss_hash = h->hv1.tp_rxhash;
		p->ol_flags |= UNIC_PKT_RX_RSS_HASH;
	}
	p->data_len = (uint16_t)len;
	p->pkt_len = len;
	p->port = rxq->port_id;
	p->queue = rxq->qid;
	return true;
}

uint16_t afp_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct afp_rxq *rxq = q;
	uint64_t bytes = 0, errors = 0;
	struct unic_pkt *spare = NULL;
	uint32_t bad_blocks = 0;
	uint16_t got = 0;

	while (got < n) {
		const struct tpacket3_hdr *h;
		uint32_t next;

		if (!rxq->block_open) {
			int r = afp_block_open(rxq);

			if (r == 0)
				break;
			/* A bad block went back; try the next, but never more
			 * than the ring holds in one burst (a kernel that kept
			 * handing bad blocks over would hold us here). */
			if (r < 0 && ++bad_blocks < rxq->nb_blocks)
				continue;
			if (r < 0)
				break;
		}
		h = afp_pkt_check(rxq);
		if (UNIC_UNLIKELY(h == NULL)) {
			/* One ring error for the header; the block goes back
			 * with whatever it claims to hold after it (a count we
			 * cannot trust, so not added to the errors). */
			unic_counter_add(&rxq->xcnt.ring_errors, 1);
			errors++;
			afp_block_release(rxq);
			continue;
		}
		/* Without PACKET_IGNORE_OUTGOING the socket also sees what the
		 * host sends on the interface; the sockaddr_ll after the header
		 * (inside tp_mac, checked) says so. */
		if (rxq->filter_outgoing &&
		    h->tp_mac >= TPACKET_ALIGN(sizeof(*h)) + sizeof(struct sockaddr_ll) &&
		    ((const struct sockaddr_ll *)((const uint8_t *)h + TPACKET_ALIGN(sizeof(*h))))
				    ->sll_pkttype == PACKET_OUTGOING) {
			unic_counter_add(&rxq->xcnt.outgoing, 1);
		} else {
			struct unic_pkt *p = spare != NULL ? spare : unic_pkt_alloc(rxq->pool);

			spare = NULL;
			if (UNIC_UNLIKELY(p == NULL)) {
				/* The packet stays in the block for the next
				 * burst ("better luck next round"). */
				unic_counter_add(&rxq->cnt.nombuf, 1);
				break;
			}
			if (afp_pkt_copy(rxq, h, p)) {
				pkts[got++] = p;
				bytes += p->pkt_len;
			} else {
				spare = p;
				errors++;
			}
		}
		if (--rxq->pkts_left == 0) {
			afp_block_release(rxq);
			continue;
		}
		next = h->tp_next_offset;
		if (UNIC_UNLIKELY(next < sizeof(*h) || next % AFP_V3_ALIGN != 0 ||
				  (uint64_t)rxq->pkt_off + next >= rxq->blk_len)) {
			unic_counter_add(&rxq->xcnt.ring_errors, 1);
			errors++;
			afp_block_release(rxq);
			continue;
		}
		rxq->pkt_off += next;
	}
	if (spare != NULL)
		unic_pkt_free(spare);
	unic_counter_add(&rxq->cnt.packets, got);
	unic_counter_add(&rxq->cnt.bytes, bytes);
	if (UNIC_UNLIKELY(errors))
		unic_counter_add(&rxq->cnt.errors, errors);
	return got;
}

bool afp_rx_pending(void *q)
{
	const struct afp_rxq *rxq = q;

	/* Acquire: the re-check. The kernel sets the status, then wakes the
	 * socket; see afp_rx_intr_enable for why this is enough. */
	return rxq->block_open ||
	       (unic_load_acquire(&afp_block(rxq, rxq->cur)->hdr.bh1.block_status) & TP_STATUS_USER);
}

/*
 * The socket's fd is the interrupt source and stays in the engine's epoll
 * set while the port runs, so there is nothing to arm in the kernel: the
 * kernel writes a block's status (TP_STATUS_USER) and then wakes the
 * socket's wait queue; the socket stays readable until the block is given
 * back (a level-triggered source, UNIC_INTR_SOCKET). The poller arms
 * (here), re-checks (afp_rx_pending), then sleeps: a block handed over
 * before the re-check is seen by it; one handed over after it leaves the
 * socket readable, which ends (or prevents) the sleep.
 * The fence keeps the re-check's load after whatever the caller did before
 * arming, as on the PCI drivers.
 */
int afp_rx_intr_enable(void *q)
{
	struct afp_rxq *rxq = q;

	unic_store_relaxed(&rxq->intr_enabled, 1);
	unic_smp_mb();
	return 0;
}

int afp_rx_intr_disable(void *q)
{
	struct afp_rxq *rxq = q;

	unic_store_relaxed(&rxq->intr_enabled, 0);
	return 0;
}

/* ---- transmit ----------------------------------------------------------- */

static struct tpacket3_hdr *afp_frame(const struct afp_txq *txq, uint32_t i)
{
	return (struct tpacket3_hdr *)(txq->ring + (size_t)i * txq->frame_size);
}

/* The longest frame the queue sends: what a tx frame holds, or what the
 * kernel takes (the MTU plus header and VLAN tag), the lesser. */
static uint32_t afp_tx_room(const struct afp_txq *txq)
{
	uint32_t room = txq->frame_size - AFP_TX_DATA_OFF;
	uint32_t max = unic_load_relaxed(&txq->max_len);

	return max != 0 && max < room ? max : room;
}

uint16_t afp_tx_prepare(void *q, struct unic_pkt **pkts, uint16_t n, int *err)
{
	const struct afp_txq *txq = q;

	*err = 0;
	for (uint16_t i = 0; i < n; i++) {
		if (pkts[i]->pkt_len > afp_tx_room(txq)) {
			*err = -EMSGSIZE;
			return i;
		}
		if (pkts[i]->pkt_len < ETH_HLEN) {
			*err = -EINVAL;
			return i;
		}
	}
	return n;
}

/* Copy a packet (all its segments) into frame data @p dst. @return false
 * when the chain holds fewer bytes than pkt_len. */
static bool afp_tx_copy(uint8_t *dst, const struct unic_pkt *p)
{
	uint32_t off = 0;

	for (const struct unic_pkt *s = p; s != NULL && off < p->pkt_len; s = s->next) {
		uint32_t len = s->data_len;

		if (len > p->pkt_len - off)
			len = p->pkt_len - off;
		memcpy(dst + off, unic_pkt_data(s), len);
		off += len;
	}
	return off == p->pkt_len;
}

uint16_t afp_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct afp_txq *txq = q;
	uint64_t bytes = 0, refused = 0;
	uint16_t taken = 0, queued = 0;

	for (; taken < n; taken++) {
		struct unic_pkt *p = pkts[taken];
		struct tpacket3_hdr *f = afp_frame(txq, txq->next);
		uint32_t st = unic_load_acquire(&f->tp_status);

		/* Timestamp bits may come back with a completed frame. */
		st &= ~(uint32_t)(TP_STATUS_TS_SOFTWARE | TP_STATUS_TS_SYS_HARDWARE |
				  TP_STATUS_TS_RAW_HARDWARE);
		if (st == TP_STATUS_SEND_REQUEST || st == TP_STATUS_SENDING)
			break;  /* the ring is full: the caller keeps the rest */
		if (UNIC_UNLIKELY(st != TP_STATUS_AVAILABLE)) {
			if (st == TP_STATUS_WRONG_FORMAT)
				unic_counter_add(&txq->wrong_format, 1);
			else
				unic_counter_add(&txq->ring_errors, 1);
			/* The kernel is done with it (it refused it, or
			 * the status is nothing the kernel writes while it
			 * owns a frame): reuse it. */
		}
		if (UNIC_UNLIKELY(p->pkt_len > afp_tx_room(txq) || p->pkt_len < ETH_HLEN ||
				  !afp_tx_copy((uint8_t *)f + AFP_TX_DATA_OFF, p))) {
			/* tx_prepare says why; here the frame is freed and
			 * counted, as a NIC drops what it cannot send. */
			refused++;
			unic_pkt_free(p);
			continue;
		}
		f->tp_len = p->pkt_len;
		f->tp_snaplen = p->pkt_len;
		f->tp_next_offset = 0;
		bytes += p->pkt_len;
		unic_pkt_free(p);
		/* Release: the data is written before the kernel sees the request. */
		unic_store_release(&f->tp_status, TP_STATUS_SEND_REQUEST);
		txq->next = txq->next + 1 == txq->nb_frames ? 0 : txq->next + 1;
		queued++;
	}
	if (taken < n)
		unic_counter_add(&txq->ring_full, n - taken);
	if (queued > 0 && txq->fd >= 0 &&
	    send(txq->fd, NULL, 0, MSG_DONTWAIT) < 0 && errno != EAGAIN && errno != ENOBUFS)
		/* The frames stay requested and go with the next kick. */
		unic_counter_add(&txq->kick_errors, 1);
	unic_counter_add(&txq->cnt.packets, queued);
	unic_counter_add(&txq->cnt.bytes, bytes);
	if (UNIC_UNLIKELY(refused))
		unic_counter_add(&txq->cnt.errors, refused);
	return taken;
}
