/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness: a malicious virtio-net device. The driver's rx burst
 * and refill, tx burst and reclaim (pmd/virtio/virtio_rxtx.c) and its
 * stats, xstats and link reads (through the port layer) run against the
 * shared fake device (tests/unit/fake_virtio.h): a device written from the
 * virtio specification, BAR4 and the virtqueues in ordinary memory.
 * The input is the device (a tap's: checksum and GSO offered both ways): a
 * first byte picks the MTU (bit 0: 1500, or 9000 with scattered rx), LRO
 * (bit 1: GUEST_TSO negotiated, GSO frames taken), the rx checksum
 * offload (bit 2: flags, no software completion) and the header (bit 3: a
 * device that offers HASH_REPORT, so a 20-byte header both ways, with the
 * hash kept in the packet), the ring format (bit 4: a device that
 * offers RING_PACKED, as QEMU's packed=on) and in-order use (bit 5: a
 * device that offers IN_ORDER; a second byte then gives the sizes its
 * batches of used buffers cycle through, 1 + bits 0-2 and 1 + bits 3-5,
 * and with bit 6 the device holds a batch open until it is full), then
 * each step is an opcode and its operands:
 *
 *   0 used entry     on rx or tx: any id (posted or not, in range or not),
 *                    any length; the used index published or not
 *   1 rx burst       of 1..64; every frame is checked, then sent on tx
 *   2 a frame        delivered the honest way (fake_virtio_rx: posted
 *                    buffers, merged with MRG_RXBUF), 14..9100 bytes, with
 *                    a header of input bytes (num_buffers overwritten in
 *                    the first buffer afterwards, as a lying device would;
 *                    with HASH_REPORT also any hash value and report)
 *   3 tx completion  the device takes up to N chains and completes them
 *                    (with bit 3, then reports the batches it holds)
 *   4 tx burst       of 1..8 packets the harness makes (some chained)
 *   5 tx reclaim
 *   6 used index     set to any value on rx or tx (a jump); on a packed
 *                    ring, any descriptor written at any slot (id, len,
 *                    flags with any wrap bits), the device's used
 *                    position moved past it or not
 *   7 control        stats, xstats, link; or a config status change; or
 *                    the descriptor calls (rx used count and status, tx
 *                    status, a descriptor's dump) or a moderation setting
 *                    and the arm's count of used entries
 *
 * Properties, checked after every step and at the end (abort with a
 * message, so libFuzzer reports the input):
 *   - a frame carries a hash only from a device with HASH_REPORT;
 *   - no frame longer than the queue's max frame (an LRO packet: 64 KiB and
 *     its segment size set, only with LRO; checksum flags only when asked);
 *     every segment 1..buf_len
 *     bytes, the chain's lengths adding up to pkt_len and its count to
 *     nb_segs; each frame from the queue's pool;
 *   - tx takes every frame rx delivered or the ring is full: never refused
 *     as malformed, unless it needs more descriptors than the tx ring has
 *     (a segment each and the header);
 *   - the descriptor calls: the rx used count within what is posted, a
 *     status consistent with it (done below the count, available below
 *     what is posted, else unavailable), tx status done or queued on a
 *     packed ring and refused on a split one, a dump of any entry; an
 *     arm under moderation waits for 1 to half the ring of entries;
 *   - the queues' books: as many buffers in the rx software ring as the
 *     driver says are posted (size - nb_free), as many packets in the tx
 *     software ring as chains in flight, and nb_free never over size;
 *   - progress: after the input the device behaves (finishes the frame in
 *     progress, resynchronises with the driver's indexes, delivers three
 *     good frames and completes every chain): the three frames arrive
 *     intact and tx takes three packets; on a packed ring the port is
 *     stopped and started instead of the resynchronisation (and before an
 *     honest frame after a malicious rx descriptor: the device's view of
 *     which buffers it holds cannot be rebuilt from the driver's);
 *   - after stop every packet is back in the pool, the pool's debug checks
 *     (this harness builds the library with them) saw no double free and
 *     no damaged object.
 * ASan and UBSan stop the run on any memory error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/log.h>

#include "../unit/fake_virtio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...)                                                                  \
	do {                                                                           \
		if (!(c)) {                                                            \
			fprintf(stderr, "fuzz_virtio_dev: %s:%d: %s does not hold: ",    \
				__FILE__, __LINE__, #c);                               \
			fprintf(stderr, __VA_ARGS__);                                  \
			fputc('\n', stderr);                                           \
			abort();                                                       \
		}                                                                      \
	} while (0)

#define NB_DESC 64
#define NB_GOOD 3
#define RXQ 0
#define TXQ 1

static struct fake_virtio fk;
static int dev_mode = -1;  /* the device: bit 0 HASH_REPORT, bit 1 RING_PACKED, bit 2 IN_ORDER
			    * (bits 3, 4, 5 of the first byte) */
static bool packed;
static uint8_t frame[9100];

struct input {
	const uint8_t *d;
	size_t n, i;
};

static uint8_t u8(struct input *in)
{
	return in->i < in->n ? in->d[in->i++] : 0;
}

static uint16_t u16(struct input *in)
{
	return (uint16_t)(u8(in) | u8(in) << 8);
}

static uint32_t u32(struct input *in)
{
	return (uint32_t)u16(in) | (uint32_t)u16(in) << 16;
}

static void quiet_sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg)
{
	(void)ctx;
	if (level <= UNIC_LOG_ERR)
		fprintf(stderr, "unic %s: %s\n", unic_log_comp_name(comp), msg);
}

static struct virtio_rxq *rxq(void)
{
	return &fk.vp->rxq[0];
}

static struct virtio_txq *txq(void)
{
	return &fk.vp->txq[0];
}

static void check_books(void)
{
	const struct virtio_rxq *r = rxq();
	const struct virtio_txq *t = txq();
	unsigned held = 0, flying = 0, descs = 0;

	CHECK(r->vq.nb_free <= r->vq.size, "rx nb_free %u of %u", r->vq.nb_free, r->vq.size);
	CHECK(t->vq.nb_free <= t->vq.size, "tx nb_free %u of %u", t->vq.nb_free, t->vq.size);
	if (packed) {
		/* Buffer ids: each posted one holds a buffer or a packet;
		 * positions: a rx buffer is one, tx positions a skipped bad id
		 * took stay counted until every packet is back. */
		/* With IN_ORDER the used position is past a batch whose
		 * buffers are still being taken (a rx buffer each). */
		uint16_t out_rx = (uint16_t)(r->vq.avail_idx - r->vq.used_idx + r->vq.batch_left);
		uint16_t out_tx = (uint16_t)(t->vq.avail_idx - t->vq.used_idx);

		CHECK(r->vq.nb_free_ids <= r->vq.size && t->vq.nb_free_ids <= t->vq.size, "free ids %u, %u",
		      r->vq.nb_free_ids, t->vq.nb_free_ids);
		for (unsigned i = 0; i < r->vq.size; i++)
			held += r->sw_ring[i] != NULL;
		CHECK(held == (unsigned)(r->vq.size - r->vq.nb_free_ids), "%u rx buffers held, %u ids not free", held,
		      r->vq.size - r->vq.nb_free_ids);
		CHECK(out_rx == r->vq.size - r->vq.nb_free, "%u rx positions outstanding, %u not free", out_rx,
		      r->vq.size - r->vq.nb_free);
		for (unsigned i = 0; i < t->vq.size; i++)
			if (t->sw_ring[i] != NULL) {
				flying++;
				descs += t->chain_len[i];
			}
		CHECK(flying == (unsigned)(t->vq.size - t->vq.nb_free_ids), "%u tx packets, %u ids not free", flying,
		      t->vq.size - t->vq.nb_free_ids);
		CHECK(out_tx <= t->vq.size - t->vq.nb_free && descs <= (unsigned)(t->vq.size - t->vq.nb_free),
		      "tx: %u positions outstanding, %u held by packets, %u not free", out_tx, descs,
		      t->vq.size - t->vq.nb_free);
		return;
	}
	for (unsigned i = 0; i < r->vq.size; i++)
		held += r->sw_ring[i] != NULL;
	CHECK(held == (unsigned)(r->vq.size - r->vq.nb_free), "%u rx buffers held, %u descriptors not free",
	      held, r->vq.size - r->vq.nb_free);
	for (unsigned i = 0; i < t->vq.size; i++)
		if (t->sw_ring[i] != NULL) {
			flying++;
			descs += t->chain_len[i];
		}
	CHECK(descs == (unsigned)(t->vq.size - t->vq.nb_free), "%u tx packets in flight over %u descriptors, %u not free",
	      flying, descs, t->vq.size - t->vq.nb_free);
}

static void check_frame(const struct unic_pkt *p)
{
	const struct virtio_rxq *r = rxq();
	uint32_t len = 0;
	unsigned segs = 0;

	CHECK(p->pool == fk.pool, "a frame not from the queue's pool");
	CHECK((dev_mode & 1) || !(p->ol_flags & UNIC_PKT_RX_RSS_HASH), "a hash from a device without HASH_REPORT");
	if (p->ol_flags & UNIC_PKT_RX_LRO) {
		CHECK(r->lro, "an LRO packet on a queue without LRO");
		CHECK(p->pkt_len <= VIRTIO_LRO_MAX_FRAME && p->tso_segsz != 0,
		      "an LRO packet of %" PRIu32 " bytes, segment size %u", p->pkt_len, p->tso_segsz);
	} else {
		CHECK(p->pkt_len <= r->max_frame, "a %" PRIu32 "-byte frame; the max frame is %" PRIu32, p->pkt_len,
		      r->max_frame);
		CHECK(p->tso_segsz == 0, "a segment size %u on a packet not LRO", p->tso_segsz);
	}
	/* An LRO packet says "not computed" whatever was asked: its field
	 * holds the sum of the whole, which no wire frame carries. */
	CHECK(r->csum_flags ||
	      !(p->ol_flags & (UNIC_PKT_RX_L4_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_BAD |
			       ((p->ol_flags & UNIC_PKT_RX_LRO) ? 0 : UNIC_PKT_RX_L4_CKSUM_NONE))),
	      "checksum flags 0x%" PRIx64 " without the rx checksum offload asked", p->ol_flags);
	CHECK(p->nb_segs >= 1 && p->nb_segs <= r->vq.size, "nb_segs %u (ring of %u)", p->nb_segs, r->vq.size);
	for (const struct unic_pkt *s = p; s != NULL; s = s->next) {
		CHECK(segs < p->nb_segs, "more segments in the chain than nb_segs %u", p->nb_segs);
		CHECK(s->data_len >= 1 && s->data_len <= r->buf_len, "segment %u holds %u bytes (buffers of %u)", segs,
		      s->data_len, r->buf_len);
		CHECK((uint32_t)s->data_off + s->data_len <= s->buf_len, "segment %u: data %u+%u past its buffer of %u",
		      segs, s->data_off, s->data_len, s->buf_len);
		len += s->data_len;
		segs++;
	}
	CHECK(segs == p->nb_segs, "%u segments in the chain, nb_segs %u", segs, p->nb_segs);
	CHECK(len == p->pkt_len, "segments add up to %" PRIu32 ", pkt_len %" PRIu32, len, p->pkt_len);
}

static unsigned rx_and_forward(uint16_t n, struct unic_pkt **got)
{
	uint16_t nb = unic_rx_burst(fk.port, 0, got, n);

	CHECK(nb <= n, "rx burst returned %u for %u", nb, n);
	for (uint16_t i = 0; i < nb; i++) {
		uint64_t refused = unic_counter_read(&txq()->cnt.errors);
		unsigned segs = got[i]->nb_segs;

		check_frame(got[i]);
		got[i]->ol_flags = 0;
		if (unic_tx_burst(fk.port, 0, &got[i], 1) != 1) {
			unic_pkt_free(got[i]); /* the ring is full: the caller keeps it */
			continue;
		}
		/* A frame needs a descriptor a segment and one for the header:
		 * one of more segments than that (rx chains up to its ring's
		 * size of short buffers, when the device leaves them short)
		 * cannot fit a tx ring of the same size and is refused. */
		CHECK(unic_counter_read(&txq()->cnt.errors) == refused || segs > VIRTIO_TX_MAX_SEGS ||
		      segs + 1u > txq()->vq.size, "tx refused a %u-segment frame rx delivered", segs);
	}
	return nb;
}

static void tx_some(struct input *in)
{
	struct unic_pkt *p[8];
	unsigned k = 1 + u8(in) % 8, len = 60 + u8(in) * 6u, taken;

	for (unsigned i = 0; i < k; i++) {
		uint16_t first = (uint16_t)(len > 1500 ? 1500 : len);

		p[i] = unic_pkt_alloc(fk.pool);
		if (p[i] == NULL) {
			k = i;
			break;
		}
		memset(unic_pkt_append(p[i], first), 0x5a, first);
		if (len > 1500) {
			struct unic_pkt *s = unic_pkt_alloc(fk.pool);

			if (s != NULL) {
				memset(unic_pkt_append(s, 100), 0xa5, 100);
				p[i]->next = s;
				p[i]->nb_segs = 2;
				p[i]->pkt_len += 100;
			}
		}
	}
	taken = unic_tx_burst(fk.port, 0, p, (uint16_t)k);
	CHECK(taken <= k, "tx burst took %u of %u", taken, k);
	unic_pkt_free_bulk(p + taken, k - taken);
}

/*
 * The descriptor calls (the control path's, testpmd's show rxq/txq desc
 * and read rxd/txd) over what the device wrote: the rx count within what
 * is posted and a status consistent with it, tx status only on a packed
 * ring, a dump of any entry; and the moderation's arm count within 1 and
 * half the ring whatever num_buffers the device claimed.
 */
static void desc_ops(struct input *in, uint8_t which)
{
	const struct virtio_rxq *r = rxq();
	uint16_t size = r->vq.size, off = (uint16_t)(u16(in) % size);
	uint16_t posted = (uint16_t)(size - r->vq.nb_free);
	uint32_t w[4];
	int rc, cnt;

	switch (which % 4) {
	case 0:
		cnt = unic_port_rx_queue_count(fk.port, 0);
		CHECK(cnt >= 0 && cnt <= posted, "rx_queue_count %d, %u posted", cnt, posted);
		rc = unic_port_desc_status(fk.port, false, 0, off);
		CHECK(rc == (off < cnt ? UNIC_DESC_DONE : off < posted ? UNIC_DESC_AVAIL : UNIC_DESC_UNAVAIL),
		      "rx offset %u: status %d, count %d, posted %u", off, rc, cnt, posted);
		break;
	case 1:
		rc = unic_port_desc_status(fk.port, true, 0, off);
		CHECK(packed ? rc == UNIC_DESC_DONE || rc == UNIC_DESC_AVAIL : rc == -ENOTSUP, "tx offset %u: status %d",
		      off, rc);
		break;
	case 2:
		rc = unic_port_desc_read(fk.port, (which & 4) != 0, 0, off, w, 4);
		CHECK(rc == 4, "read %cxd %u: %d", (which & 4) ? 't' : 'r', off, rc);
		break;
	default: {
		struct unic_coalesce c = { .rx_usecs = 100, .rx_max_frames = (uint32_t)(which >> 2) };
		uint16_t e;

		rc = unic_port_coalesce_set(fk.port, &c);
		CHECK(rc == ((fk.dev.accepted & FV_BIT(FV_F_EVENT_IDX)) ? 0 : -ENOTSUP), "coalesce_set of %u frames: %d",
		      c.rx_max_frames, rc);
		e = virtio_rx_arm_entries(r);
		CHECK(e >= 1 && e <= UNIC_MAX(size / 2, 1), "an arm waits for %u entries of a ring of %u", e, size);
		break;
	}
	}
}

static void control(struct input *in)
{
	uint8_t which = u8(in);
	struct unic_port_stats st;
	struct unic_link l;
	uint64_t v[64];
	int rc;

	switch (which % 8) {
	case 0:
		rc = unic_port_stats_get(fk.port, &st);
		CHECK(rc == 0, "stats_get: %d", rc);
		break;
	case 1:
		rc = unic_port_xstats_get(fk.port, v, 64);
		CHECK(rc > 0, "xstats_get: %d", rc);
		break;
	case 2:
		rc = unic_port_link_get(fk.port, &l);
		CHECK(rc == 0, "link_get of a device that is there: %d", rc);
		CHECK(l.up == ((fk.dev.cfg.net_status & FV_NET_S_LINK_UP) != 0), "link %s, config status 0x%x",
		      l.up ? "up" : "down", fk.dev.cfg.net_status);
		break;
	case 3:
		fake_virtio_set_net_status(&fk.dev, (uint16_t)(which >> 3));
		break;
	default:
		desc_ops(in, (uint8_t)(which >> 3));
		break;
	}
}

/*
 * The device's rx side brought back in line with the driver's: its used
 * index, and the avail entries it has not taken naming each buffer the
 * driver has posted once. Needed before the device writes a frame the
 * honest way after a malicious used entry: that entry gave the driver a
 * buffer the device had not taken, which the driver then freed or posted
 * again, and a device that writes into it anyway writes into a free packet
 * (a device can; the driver cannot stop it: docs/testing.md's threat model).
 */
static void rx_resync(void)
{
	struct virtio_rxq *r = rxq();
	struct fake_virtio_dev *d = &fk.dev;
	struct fv_ring ring;
	struct unic_pkt *got[64];
	uint16_t nb;

	/* IN_ORDER: the rest of a batch the driver is taking first (its
	 * used index is past it), and the device's open batch dropped (the
	 * driver still counts those buffers posted: the device takes them
	 * again below). The avail ring rewritten below is not in ring order. */
	while (r->vq.batch_left > 0 && (nb = unic_rx_burst(fk.port, 0, got, 64)) > 0) {
		for (uint16_t i = 0; i < nb; i++)
			check_frame(got[i]);
		unic_pkt_free_bulk(got, nb);
	}
	d->q[RXQ].io_open = d->q[RXQ].io_ndesc = 0;
	d->io_lax = true;
	CHECK(fake_virtio_ring(d, RXQ, &ring) == 0, "rx ring gone");
	d->q[RXQ].used_idx = r->vq.used_idx;
	__atomic_store_n(&ring.used->idx, r->vq.used_idx, __ATOMIC_RELEASE);
	d->q[RXQ].last_avail = (uint16_t)(r->vq.avail_idx - (r->vq.size - r->vq.nb_free));
	d->q[RXQ].waiting = false;
	for (uint16_t id = 0, at = d->q[RXQ].last_avail; id < r->vq.size; id++)
		if (r->sw_ring[id] != NULL)
			ring.avail->ring[at++ % ring.size] = id;
}

/* Stop and start the port: fresh rings on both sides. */
static void restart(void)
{
	int rc;

	unic_port_stop(fk.port);
	rc = unic_port_start(fk.port);
	CHECK(rc == 0, "restart: %d; device: %s", rc, fk.dev.err);
}

/* The device behaves from now on: the queues must carry frames again. */
static void behave(void)
{
	struct virtio_rxq *r = rxq();
	struct virtio_txq *t = txq();
	struct fake_virtio_dev *d = &fk.dev;
	struct unic_pkt *got[64], *p[NB_GOOD];
	struct fv_ring ring;
	uint16_t nb;

	fake_virtio_set_net_status(d, FV_NET_S_LINK_UP);
	if (packed) {
		restart();
		goto good;
	}
	rx_resync();
	/* The frame in progress, if any, ends with one-buffer frames (each
	 * taken as its continuation), and so does the rest of one being
	 * skipped (its first buffers were dropped). */
	for (unsigned k = 0; r->chain_head != NULL || r->chain_skip > 0; k++) {
		CHECK(k <= r->vq.size, "the frame in progress never ends (chain_left %u, chain_skip %u)",
		      r->chain_left, r->chain_skip);
		memset(frame, 0, 60);
		CHECK(fake_virtio_rx(d, RXQ, NULL, frame, 60 - FV_NET_HDR_LEN) >= 1, "no buffer to end a frame: %s",
		      d->err);
		rx_and_forward(64, got);
	}
	while ((nb = unic_rx_burst(fk.port, 0, got, 64)) > 0)
		unic_pkt_free_bulk(got, nb);
good:
	for (unsigned j = 0; j < NB_GOOD; j++) {
		memset(frame, (int)j + 1, 100 + j);
		CHECK(fake_virtio_rx(d, RXQ, NULL, frame, 100 + j) == 1, "the device finds no buffer for good frame %u: %s",
		      j, d->err);
	}
	nb = unic_rx_burst(fk.port, 0, got, 64);
	CHECK(nb == NB_GOOD, "the device behaves again and %u of %u frames arrive", nb, NB_GOOD);
	for (unsigned j = 0; j < NB_GOOD; j++) {
		const uint8_t *b = unic_pkt_mtod(got[j], const uint8_t *);

		check_frame(got[j]);
		CHECK(got[j]->pkt_len == 100 + j && got[j]->nb_segs == 1, "good frame %u: %" PRIu32 " bytes in %u segments",
		      j, got[j]->pkt_len, got[j]->nb_segs);
		CHECK(b[0] == j + 1 && b[99 + j] == j + 1, "good frame %u: its bytes changed", j);
	}
	unic_pkt_free_bulk(got, nb);
	/* Tx: every chain the driver has in flight completed, in order. */
	CHECK(fake_virtio_ring(d, TXQ, &ring) == 0, "tx ring gone");
	if (packed)
		goto tx;
	d->q[TXQ].used_idx = t->vq.used_idx;
	d->q[TXQ].io_open = d->q[TXQ].io_ndesc = 0;
	if (t->vq.in_order) {
		/* In the order they were made available, from the oldest. */
		uint16_t h = (uint16_t)((t->vq.free_head + t->vq.nb_free) & t->vq.mask);

		for (uint16_t k = 0; k < t->vq.size && t->sw_ring[h] != NULL; k++) {
			fake_virtio_used_put(d, TXQ, h, 0, false);
			h = (uint16_t)((h + t->chain_len[h]) & t->vq.mask);
		}
	} else {
		for (uint16_t id = 0; id < t->vq.size; id++)
			if (t->sw_ring[id] != NULL)
				fake_virtio_used_put(d, TXQ, id, 0, false);
	}
	fake_virtio_used_idx_set(d, TXQ, d->q[TXQ].used_idx);
	d->q[TXQ].last_avail = t->vq.avail_idx;
	unic_tx_reclaim(fk.port, 0);
	CHECK(t->vq.nb_free == t->vq.size, "%u of %u tx descriptors free after every chain completed",
	      t->vq.nb_free, t->vq.size);
tx:
	for (unsigned j = 0; j < NB_GOOD; j++) {
		p[j] = unic_pkt_alloc(fk.pool);
		CHECK(p[j] != NULL, "the pool is empty (%u in use)", unic_pool_in_use_count(fk.pool));
		memset(unic_pkt_append(p[j], 60), 0, 60);
	}
	nb = unic_tx_burst(fk.port, 0, p, NB_GOOD);
	CHECK(nb == NB_GOOD, "tx took %u of %u packets after the device completed everything", nb, NB_GOOD);
	CHECK(fake_virtio_tx(d, TXQ, NULL, 64) == NB_GOOD, "the device found not the three packets: %s", d->err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { .d = data, .n = size };
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = 1, .nb_txq = 1, .rx_mode = UNIC_RX_MODE_POLL };
	struct unic_pool_stats ps0, ps;
	struct unic_pkt *got[64];
	bool tainted = false;
	uint8_t cfg;
	int rc;

	if (size > 4096)
		return 0;
	cfg = size > 0 ? data[0] : 0;
	if (fk.port == NULL || dev_mode != ((cfg >> 3) & 7)) {
		/* The device for this input: a tap's offloads, with or without
		 * HASH_REPORT, split or packed rings. */
		struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_CSUM) |
							    FV_BIT(FV_F_GUEST_CSUM) | FV_BIT(FV_F_HOST_TSO4) |
							    FV_BIT(FV_F_HOST_TSO6) | FV_BIT(FV_F_GUEST_TSO4) |
							    FV_BIT(FV_F_GUEST_TSO6) };

		if (cfg & 8)
			c.features |= FV_BIT(FV_F_HASH_REPORT);
		if (cfg & 16)
			c.features |= FV_BIT(FV_F_RING_PACKED);
		if (cfg & 32)
			c.features |= FV_BIT(FV_F_IN_ORDER);
		if (fk.port != NULL)
			fake_virtio_destroy(&fk);
		unic_log_set_sink(quiet_sink, NULL);
		rc = fake_virtio_create(&fk, &c, true, NULL);
		CHECK(rc == 0, "cannot attach the driver to the fake device: %d", rc);
		CHECK(unic_pool_debug_enabled(), "built without the pool's debug checks");
		dev_mode = (cfg >> 3) & 7;
	}
	packed = (cfg & 16) != 0;
	if (unic_port_state(fk.port) == UNIC_PORT_STARTED)
		unic_port_stop(fk.port);
	CHECK(unic_pool_in_use_count(fk.pool) == 0, "%u packets in use before the input",
	      unic_pool_in_use_count(fk.pool));
	unic_pool_stats_get(fk.pool, &ps0);
	fake_virtio_set_net_status(&fk.dev, FV_NET_S_LINK_UP);
	cfg = u8(&in);
	pc.mtu = (cfg & 1) ? 9000 : 1500;
	pc.rx_offloads = (cfg & 1) ? UNIC_RX_OFFLOAD_SCATTER : 0;
	if (cfg & 2)
		pc.rx_offloads |= UNIC_RX_OFFLOAD_TCP_LRO | UNIC_RX_OFFLOAD_SCATTER;
	if (cfg & 4)
		pc.rx_offloads |= UNIC_RX_OFFLOAD_TCP_CKSUM | UNIC_RX_OFFLOAD_UDP_CKSUM;
	if (cfg & 8)
		pc.rx_offloads |= UNIC_RX_OFFLOAD_RSS_HASH;
	fk.dev.io_lax = false;
	fk.dev.nb_io_batch = 0;
	fk.dev.io_hold = false;
	if (dev_mode & 4) {
		uint8_t b = u8(&in);

		fk.dev.io_batch[0] = (uint16_t)(1 + (b & 7));
		fk.dev.io_batch[1] = (uint16_t)(1 + ((b >> 3) & 7));
		fk.dev.nb_io_batch = 2;
		fk.dev.io_hold = (b & 64) != 0;
	}
	rc = fake_virtio_start(&fk, NB_DESC, &pc);
	CHECK(rc == 0, "start: %d; device: %s", rc, fk.dev.err);
	CHECK(((fk.dev.accepted & FV_BIT(FV_F_IN_ORDER)) != 0) == ((dev_mode & 4) != 0) &&
	      txq()->vq.in_order == ((dev_mode & 4) != 0), "IN_ORDER offered %d, accepted 0x%" PRIx64,
	      (dev_mode & 4) != 0, fk.dev.accepted);

	while (in.i < in.n) {
		uint8_t op = u8(&in);

		switch (op & 7) {
		case 0: {
			uint16_t q = (op & 8) ? TXQ : RXQ;
			uint32_t id = (op & 16) ? u32(&in) : u8(&in);
			uint32_t len = (op & 32) ? u32(&in) : u16(&in);

			fake_virtio_used_put(&fk.dev, q, id, len, (op & 64) == 0);
			tainted |= q == RXQ;
			fk.dev.io_lax = true;
			break;
		}
		case 1:
			rx_and_forward((uint16_t)(1 + u8(&in) % 64), got);
			break;
		case 2: {
			struct fv_net_hdr h = { .flags = u8(&in), .gso_type = u8(&in), .hdr_len = u16(&in),
						.gso_size = u16(&in), .csum_start = u8(&in), .csum_offset = u8(&in) };
			size_t len = 14 + u16(&in) % (sizeof(frame) - 14);
			uint16_t lie = u16(&in);
			struct fv_ring r;
			uint16_t head = 0;
			bool have;

			if (dev_mode & 1) {
				fk.dev.rx_hash_value = u32(&in);
				fk.dev.rx_hash_report = u16(&in);
			}
			if (tainted && packed)
				restart();
			else if (tainted)
				rx_resync();
			tainted = false;
			have = fake_virtio_ring(&fk.dev, RXQ, &r) == 0;
			if (have)
				head = packed ? fk.dev.q[RXQ].pk_avail : r.avail->ring[fk.dev.q[RXQ].last_avail % r.size];
			memset(frame, op, len);
			if (fake_virtio_rx(&fk.dev, RXQ, &h, frame, len) >= 1 && (op & 8) && have && head < r.size) {
				uint8_t *b = fake_virtio_iova(&fk.dev, packed ? r.pdesc[head].addr : r.desc[head].addr,
							      FV_NET_HDR_LEN);

				if (b != NULL)
					memcpy(b + 10, &lie, 2);
			}
			break;
		}
		case 3:
			fake_virtio_tx(&fk.dev, TXQ, NULL, 1 + u8(&in));
			if (op & 8) {
				fake_virtio_flush(&fk.dev, TXQ);
				fake_virtio_flush(&fk.dev, RXQ);
			}
			break;
		case 4:
			tx_some(&in);
			break;
		case 5:
			unic_tx_reclaim(fk.port, 0);
			break;
		case 6:
			if (packed) {
				uint16_t slot = u16(&in), id = u16(&in), flags = u16(&in);
				uint32_t len = (op & 32) ? u32(&in) : u16(&in);

				fake_virtio_packed_put(&fk.dev, (op & 8) ? TXQ : RXQ, slot, id, len, flags, (op & 16) != 0);
			} else {
				fake_virtio_used_idx_set(&fk.dev, (op & 8) ? TXQ : RXQ, u16(&in));
			}
			tainted |= (op & 8) == 0;
			fk.dev.io_lax = true;
			break;
		default:
			control(&in);
			break;
		}
		check_books();
	}
	behave();
	check_books();
	/* Stop: every packet back in the pool, none twice. */
	unic_port_stop(fk.port);
	CHECK(unic_pool_in_use_count(fk.pool) == 0, "%u packets leaked", unic_pool_in_use_count(fk.pool));
	unic_pool_stats_get(fk.pool, &ps);
	CHECK(ps.debug_double_free == ps0.debug_double_free, "%" PRIu64 " double frees",
	      ps.debug_double_free - ps0.debug_double_free);
	CHECK(ps.debug_corrupt == ps0.debug_corrupt && ps.debug_foreign == ps0.debug_foreign,
	      "pool objects damaged or foreign");
	return 0;
}
