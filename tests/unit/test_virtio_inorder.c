/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net driver (pmd/virtio) with VIRTIO_F_IN_ORDER (virtio 1.1
 * sections 2.6.9 and 2.7.9) against the fake device of fake_virtio.h,
 * which offers it, uses buffers in order and reports them in batches of
 * the sizes a test chooses: one used entry per batch naming its last
 * buffer (split: at the batch's first slot, the used index moved by the
 * batch; packed: over the batch's first descriptor). The fake checks the
 * driver's side (split: descriptors in ring order, next = x + 1).
 *
 * Suites virtio_inorder_split and virtio_inorder_packed: traffic both
 * ways with batches of 1 to 8, tx reclaim freeing exactly what was
 * reported, rx delivering every frame of a batch in order with its
 * length. Suite virtio_inorder_malicious: a device that negotiated
 * IN_ORDER and breaks it (an id before older ones, an id never posted)
 * is refused and counted, and the queue goes on (run it in the ASan
 * build). Suite virtio_inorder_not_offered: without the offer nothing
 * changes.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/pkt.h>

#include "fake_virtio.h"
#include "fake_virtio_fixture.h"
#include "log_capture.h"

static struct fake_virtio fk;
static struct fake_virtio_dev *dev;

#define RXQ 0
#define TXQ 1
#define IO_FEATURES (FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_IN_ORDER))
/* A rx buffer: the pool's 2048 bytes of data room and the 12-byte header. */
#define BUF 2060u

static void attach_with(uint64_t features, uint16_t mtu)
{
	dev = &fk.dev;
	fake_virtio_attach_start(&fk, features, mtu);
}

static void attach_split(void)
{
	attach_with(IO_FEATURES, 9000);
}

static void attach_packed(void)
{
	attach_with(IO_FEATURES | FV_BIT(FV_F_RING_PACKED), 9000);
}

static void teardown(void)
{
	fake_virtio_destroy(&fk);
	logcap_stop();
}

static void assert_device_happy(void)
{
	cr_assert_eq(dev->nb_err, 0, "the device saw %" PRIu64 " driver error(s), the first: %s", dev->nb_err,
		     dev->err);
}

static uint64_t xstat(const char *name)
{
	uint64_t v = 0;
	int rc = unic_port_xstat_by_name(fk.port, name, &v);

	cr_assert_eq(rc, 0, "no xstat %s (%d)", name, rc);
	return v;
}

static void set_batches(const uint16_t *sizes, unsigned n, bool hold)
{
	memcpy(dev->io_batch, sizes, n * sizeof(sizes[0]));
	dev->nb_io_batch = n;
	dev->io_hold = hold;
}

static void make_frame(uint8_t *f, size_t len, uint32_t seq)
{
	static const uint8_t dst[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	memcpy(f, dst, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x01", 6);
	f[12] = 0x88, f[13] = 0xb5;
	for (size_t i = 14; i < len; i++)
		f[i] = (uint8_t)(seq * 7 + i);
	if (len >= 18)
		memcpy(f + 14, &seq, 4);
}

static size_t pkt_bytes(const struct unic_pkt *p, uint8_t *out, size_t max)
{
	size_t at = 0;

	for (const struct unic_pkt *s = p; s != NULL; s = s->next) {
		cr_assert_leq(at + s->data_len, max, "packet longer than %zu bytes", max);
		memcpy(out + at, unic_pkt_data(s), s->data_len);
		at += s->data_len;
	}
	cr_assert_eq(at, p->pkt_len, "segments hold %zu bytes, pkt_len %" PRIu32, at, p->pkt_len);
	return at;
}

static struct unic_pkt *tx_pkt(size_t len, uint32_t seq)
{
	struct unic_pkt *p = unic_pkt_alloc(fk.pool);

	cr_assert_not_null(p, "the pool is empty");
	make_frame(unic_pkt_append(p, (uint16_t)len), len, seq);
	return p;
}

/* The frame sizes of a batch test: whole buffers (1, 2 or 3 of them, so a
 * batch may go on past them) and, every fifth, one that ends in a part of
 * a buffer (which ends its batch). */
static size_t frame_len(uint32_t i)
{
	if (i % 5 == 4)
		return 60 + (i * 37) % 3000;
	return (size_t)(1 + i % 3) * BUF - FV_NET_HDR_LEN;
}

static void is_negotiated(void)
{
	struct unic_port_info info;
	char want[64];

	cr_assert(dev->accepted & FV_BIT(FV_F_IN_ORDER), "IN_ORDER offered and not taken (0x%" PRIx64 ")",
		  dev->accepted);
	cr_assert(fk.vp->rxq[0].vq.in_order && fk.vp->txq[0].vq.in_order, "the queues do not use it");
	cr_assert_eq(unic_port_info_get(fk.port, &info), 0);
	snprintf(want, sizeof(want), "virtio1 f=%" PRIx64, dev->accepted);
	cr_assert_str_eq(info.fw_version, want, "the port info does not show what was negotiated");
}

/*
 * Frames in both directions with batches of @p b: @p n frames from the
 * device, held until a batch is full or a frame ends in a part of a
 * buffer, each arriving in order, byte-exact, with its length; then @p n
 * packets out, reported b at a time, each reclaim freeing exactly what
 * was reported.
 */
static void traffic_in_batches_of(uint16_t b, uint32_t n)
{
	static uint8_t f[3 * BUF], got[3 * BUF + 64];
	struct fv_frame out[64];
	struct unic_pkt *p[64];
	uint32_t next = 0, sent = 0;
	unsigned in_use0;

	set_batches(&b, 1, true);
	while (next < n) {
		/* Up to 12 frames, so the held batch may span them. */
		for (unsigned k = 0; k < 12 && sent < n; k++, sent++) {
			size_t len = frame_len(sent);
			int rc;

			make_frame(f, len, sent);
			rc = fake_virtio_rx(dev, RXQ, NULL, f, len);
			cr_assert_geq(rc, 1, "b %u frame %u (%zu bytes): %d; device error: %s", b, sent, len, rc,
				      dev->err);
		}
		fake_virtio_flush(dev, RXQ);
		for (uint16_t got_n; (got_n = unic_rx_burst(fk.port, 0, p, 3)) > 0;) {
			for (uint16_t i = 0; i < got_n; i++, next++) {
				size_t len = frame_len(next);

				cr_assert_eq(p[i]->pkt_len, len, "b %u frame %u: %" PRIu32 " bytes, sent %zu", b, next,
					     p[i]->pkt_len, len);
				make_frame(f, len, next);
				pkt_bytes(p[i], got, sizeof(got));
				cr_assert_arr_eq(got, f, len, "b %u frame %u: bytes differ", b, next);
			}
			unic_pkt_free_bulk(p, got_n);
		}
		cr_assert_eq(next, sent, "b %u: %u frames sent, %u arrived", b, sent, next);
	}

	in_use0 = unic_pool_in_use_count(fk.pool);
	for (uint32_t i = 0; i < n; i += 40) {
		uint32_t m = n - i < 40 ? n - i : 40;
		unsigned in_use, taken;
		int done;

		for (uint32_t k = 0; k < m; k++)
			p[k] = tx_pkt(60 + (i + k) % 1400, i + k);
		cr_assert_eq(unic_tx_burst(fk.port, 0, p, (uint16_t)m), m, "b %u: burst at %u", b, i);
		in_use = unic_pool_in_use_count(fk.pool);
		done = fake_virtio_tx(dev, TXQ, out, m);
		cr_assert_eq(done, (int)m, "b %u: the device took %d of %u; error: %s", b, done, m, dev->err);
		for (uint32_t k = 0; k < m; k++) {
			uint8_t want[1500];

			make_frame(want, 60 + (i + k) % 1400, i + k);
			cr_assert_eq(out[k].len, 60 + (i + k) % 1400);
			cr_assert_arr_eq(out[k].data, want, out[k].len, "b %u: packet %u differs", b, i + k);
			fv_frame_free(&out[k]);
		}
		/* Reported: whole batches; held: the rest. */
		taken = m - m % b;
		unic_tx_reclaim(fk.port, 0);
		cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use - taken,
			     "b %u: %u of %u packets reported used, the reclaim freed %u", b, taken, m,
			     in_use - unic_pool_in_use_count(fk.pool));
		cr_assert_eq(fake_virtio_flush(dev, TXQ), (int)(m % b));
		unic_tx_reclaim(fk.port, 0);
		cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use0, "b %u: the last batch was not freed", b);
	}
	cr_assert_eq(xstat("rx_q0_bad_used") + xstat("tx_q0_bad_used"), 0);
	cr_assert(fk.vp->rxq[0].vq.in_order && fk.vp->txq[0].vq.in_order, "b %u: batching turned off", b);
	assert_device_happy();
}

static void traffic_in_batches_of_1_to_8(void)
{
	is_negotiated();
	for (uint16_t b = 1; b <= 8; b++)
		traffic_in_batches_of(b, 300);
}

/* A batch of eight frames, read three at a time: the batch outlives a burst. */
static void a_batch_is_read_across_bursts(void)
{
	static uint8_t f[3 * BUF];
	uint16_t b = 8;
	struct unic_pkt *p[3];
	unsigned got = 0;

	set_batches(&b, 1, true);
	for (uint32_t i = 0; i < 8; i++) {
		make_frame(f, BUF - FV_NET_HDR_LEN, i);
		cr_assert_eq(fake_virtio_rx(dev, RXQ, NULL, f, BUF - FV_NET_HDR_LEN), 1, "error: %s", dev->err);
		if (i < 7)
			cr_assert_not(unic_rx_pending(fk.port, 0), "a frame before its batch was reported");
	}
	cr_assert(unic_rx_pending(fk.port, 0));
	for (unsigned round = 0; round < 3; round++) {
		uint16_t n = unic_rx_burst(fk.port, 0, p, 3);

		cr_assert_eq(n, round < 2 ? 3 : 2, "round %u: %u frames", round, n);
		for (uint16_t i = 0; i < n; i++, got++) {
			uint32_t seq;

			memcpy(&seq, (uint8_t *)unic_pkt_data(p[i]) + 14, 4);
			cr_assert_eq(seq, got, "frame %u came as %u", got, seq);
			cr_assert_eq(p[i]->pkt_len, BUF - FV_NET_HDR_LEN);
		}
		unic_pkt_free_bulk(p, n);
		cr_assert_eq(unic_rx_pending(fk.port, 0), round < 2, "round %u: pending says otherwise", round);
	}
	assert_device_happy();
}

/* With 1-byte control answers and a command each, the control queue's
 * chains too go in ring order (split: the fake checks next = x + 1). */
static void control_commands_go_in_ring_order(void)
{
	for (unsigned i = 0; i < 100; i++)
		cr_assert_eq(unic_port_promisc_set(fk.port, i & 1), 0, "command %u; device error: %s", i, dev->err);
	assert_device_happy();
}

TestSuite(virtio_inorder_split, .init = attach_split, .fini = teardown);

Test(virtio_inorder_split, traffic_flows_both_ways_in_batches_of_one_to_eight)
{
	cr_assert_not(fk.vp->rxq[0].vq.packed);
	traffic_in_batches_of_1_to_8();
}

Test(virtio_inorder_split, a_batch_of_frames_is_delivered_across_bursts_in_order)
{
	a_batch_is_read_across_bursts();
}

Test(virtio_inorder_split, control_commands_take_descriptors_in_ring_order)
{
	control_commands_go_in_ring_order();
}

TestSuite(virtio_inorder_packed, .init = attach_packed, .fini = teardown);

Test(virtio_inorder_packed, traffic_flows_both_ways_in_batches_of_one_to_eight)
{
	cr_assert(fk.vp->rxq[0].vq.packed);
	traffic_in_batches_of_1_to_8();
}

Test(virtio_inorder_packed, a_batch_of_frames_is_delivered_across_bursts_in_order)
{
	a_batch_is_read_across_bursts();
}

Test(virtio_inorder_packed, control_commands_are_answered)
{
	control_commands_go_in_ring_order();
}

/* ---- without the offer -------------------------------------------------------------- */

/*
 * The descriptor calls over batches: one used entry (descriptor) stands
 * for the batch's buffers, so the count and the status see all of them;
 * a batch read in part (a burst that stopped inside it) still counts
 * what is left of it. Tx: one used descriptor for three packets makes
 * their six positions done.
 */
static void used_count_sees_every_buffer_of_a_batch(void)
{
	static uint8_t f[BUF];
	uint16_t b = 8;
	struct unic_pkt *p[3];

	set_batches(&b, 1, true);
	for (unsigned round = 0; round < 40; round++) { /* 320 buffers: past a lap */
		for (uint32_t i = 0; i < 8; i++) {
			/* Whole buffers: a buffer not written completely would end the batch. */
			make_frame(f, BUF - FV_NET_HDR_LEN, i);
			cr_assert_eq(fake_virtio_rx(dev, RXQ, NULL, f, BUF - FV_NET_HDR_LEN), 1, "error: %s", dev->err);
			cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), i < 7 ? 0 : 8,
				     "round %u: %u frames in a batch of 8 (held)", round, i + 1);
		}
		cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 7), UNIC_DESC_DONE, "round %u", round);
		cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 8), UNIC_DESC_AVAIL, "round %u", round);
		for (unsigned left = 8; left > 0;) {
			uint16_t n = unic_rx_burst(fk.port, 0, p, 3);

			cr_assert_gt(n, 0);
			unic_pkt_free_bulk(p, n);
			left -= n;
			cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), (int)left, "round %u: %u left of the batch",
				     round, left);
		}
	}
	assert_device_happy();
}

Test(virtio_inorder_split, the_used_count_and_status_see_every_buffer_of_a_batch)
{
	used_count_sees_every_buffer_of_a_batch();
}

Test(virtio_inorder_packed, the_used_count_and_status_see_every_buffer_of_a_batch)
{
	const struct virtio_vq *tvq = &fk.vp->txq[0].vq;
	uint16_t b = 3;

	used_count_sees_every_buffer_of_a_batch();
	set_batches(&b, 1, true);
	for (unsigned round = 0; round < 60; round++) {
		struct unic_pkt *t[3] = { tx_pkt(60, 1), tx_pkt(60, 2), tx_pkt(60, 3) };

		cr_assert_eq(unic_tx_burst(fk.port, 0, t, 3), 3);
		cr_assert_eq((uint16_t)(tvq->avail_idx - tvq->used_idx), 6);
		cr_assert_eq(unic_port_desc_status(fk.port, true, 0, (uint16_t)(tvq->size - 6)), UNIC_DESC_AVAIL);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 8), 3, "error: %s", dev->err);
		for (uint16_t o = (uint16_t)(tvq->size - 6); o < tvq->size; o++)
			cr_assert_eq(unic_port_desc_status(fk.port, true, 0, o), UNIC_DESC_DONE,
				     "round %u: offset %u of a batch of 3 packets", round, o);
		unic_tx_reclaim(fk.port, 0);
	}
	assert_device_happy();
}

TestSuite(virtio_inorder_not_offered, .fini = teardown);

Test(virtio_inorder_not_offered, a_device_that_does_not_offer_it_does_not_get_it)
{
	attach_with(FV_FEATURES_QEMU_HUB, 1500);
	cr_assert_eq(dev->accepted & FV_BIT(FV_F_IN_ORDER), 0);
	cr_assert_not(fk.vp->rxq[0].vq.in_order || fk.vp->txq[0].vq.in_order);
}

/* ---- a device that breaks its promise ------------------------------------------------ */

/* The head of the chain the driver made available @p k entries after
 * the device's last one (split). */
static uint16_t posted_head(uint16_t qn, uint16_t k)
{
	struct fv_ring r;

	cr_assert_eq(fake_virtio_ring(dev, qn, &r), 0);
	return r.avail->ring[(uint16_t)(dev->q[qn].last_avail + k) % r.size];
}

TestSuite(virtio_inorder_malicious, .fini = teardown);

/*
 * Four packets out; the device uses the second before the first and
 * says so with one entry (the used index moved by one): refused as a
 * batch (the first is not freed on its word), counted, and the queue
 * reads an entry a buffer from then on: each packet is freed when named.
 */
Test(virtio_inorder_malicious, a_tx_id_used_before_older_ones_is_refused_as_a_batch_and_counted,
     .init = attach_split)
{
	struct unic_pkt *p[4];
	uint16_t h[4];
	unsigned in_use;

	for (unsigned k = 0; k < 4; k++)
		p[k] = tx_pkt(60, k);
	cr_assert_eq(unic_tx_burst(fk.port, 0, p, 4), 4);
	for (uint16_t k = 0; k < 4; k++)
		h[k] = posted_head(TXQ, k);
	in_use = unic_pool_in_use_count(fk.pool);
	fake_virtio_used_put(dev, TXQ, h[1], 0, true);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 1, "an out-of-order entry freed more than its own packet");
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use - 1);
	cr_assert_eq(xstat("tx_q0_bad_used"), 1, "the broken promise was not counted");
	cr_assert_not(fk.vp->txq[0].vq.in_order, "batches still trusted");
	fake_virtio_used_put(dev, TXQ, h[3], 0, true);
	fake_virtio_used_put(dev, TXQ, h[0], 0, true);
	fake_virtio_used_put(dev, TXQ, h[2], 0, true);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 3);
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use - 4);
	cr_assert_eq(xstat("tx_q0_bad_used"), 1);
	/* The queue goes on: a packet out, completed, freed. */
	p[0] = tx_pkt(80, 9);
	cr_assert_eq(unic_tx_burst(fk.port, 0, p, 1), 1);
	fake_virtio_used_put(dev, TXQ, posted_head(TXQ, 4), 0, true);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 1);
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use - 4);
}

/*
 * Rx: the device names the third buffer alone (index moved by one) with
 * a frame in it: refused as a batch, counted; that frame alone is taken
 * with its own length, and the buffers before it are not delivered as
 * frames on the device's word.
 */
Test(virtio_inorder_malicious, an_rx_id_used_before_older_ones_delivers_no_older_buffer,
     .init = attach_split)
{
	struct unic_pkt *p[8];
	uint16_t h = posted_head(RXQ, 2);
	struct unic_pkt *b = fk.vp->rxq[0].sw_ring[h];
	uint16_t room = fk.vp->rxq[0].headroom;
	uint8_t f[100], *at;

	cr_assert_not_null(b);
	make_frame(f, 100, 77);
	at = (uint8_t *)unic_pkt_buf(b) + room;
	memset(at - FV_NET_HDR_LEN, 0, FV_NET_HDR_LEN);
	at[-2] = 1; /* num_buffers */
	memcpy(at, f, 100);
	fake_virtio_used_put(dev, RXQ, h, FV_NET_HDR_LEN + 100, true);
	cr_assert_eq(unic_rx_burst(fk.port, 0, p, 8), 1, "not just the frame named");
	cr_assert_eq(p[0]->pkt_len, 100);
	cr_assert_arr_eq(unic_pkt_data(p[0]), f, 100);
	unic_pkt_free(p[0]);
	cr_assert_eq(xstat("rx_q0_bad_used"), 1);
	cr_assert_not(fk.vp->rxq[0].vq.in_order);
}

/*
 * A batch entry naming an id that was never posted frees nothing and is
 * counted; a real batch after it is still taken (the index covers it).
 */
Test(virtio_inorder_malicious, a_tx_batch_naming_an_id_never_posted_frees_nothing, .init = attach_split)
{
	struct unic_pkt *p[2] = { tx_pkt(60, 1), tx_pkt(60, 2) };
	uint16_t h1, never;
	unsigned in_use;

	cr_assert_eq(unic_tx_burst(fk.port, 0, p, 2), 2);
	h1 = posted_head(TXQ, 1);
	never = (uint16_t)(h1 + 5);
	cr_assert_null(fk.vp->txq[0].sw_ring[never]);
	in_use = unic_pool_in_use_count(fk.pool);
	fake_virtio_used_put(dev, TXQ, never, 0, false);
	fake_virtio_used_put(dev, TXQ, 0xffff, 0, false);
	fake_virtio_used_idx_set(dev, TXQ, 2);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 0, "an entry naming nothing posted freed a packet");
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use);
	cr_assert_eq(xstat("tx_q0_bad_used"), 2);
	/* The device names both packets now, one entry each. */
	fake_virtio_used_put(dev, TXQ, posted_head(TXQ, 0), 0, true);
	fake_virtio_used_put(dev, TXQ, h1, 0, true);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 2);
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use - 2);
}

/* A batch longer than the used index says: the buffers past the index are
 * not taken on the entry's word. The entry names the eighth packet, the
 * index moves by three, the two other entries name the first and second:
 * those three are freed, the third to seventh are not. */
Test(virtio_inorder_malicious, a_batch_the_used_index_does_not_cover_is_not_taken, .init = attach_split)
{
	struct unic_pkt *p[8];
	uint16_t h[8];
	unsigned in_use;

	for (unsigned k = 0; k < 8; k++)
		p[k] = tx_pkt(60, k);
	cr_assert_eq(unic_tx_burst(fk.port, 0, p, 8), 8);
	for (uint16_t k = 0; k < 8; k++)
		h[k] = posted_head(TXQ, k);
	in_use = unic_pool_in_use_count(fk.pool);
	fake_virtio_used_put(dev, TXQ, h[7], 0, false);
	fake_virtio_used_put(dev, TXQ, h[0], 0, false);
	fake_virtio_used_put(dev, TXQ, h[1], 0, false);
	fake_virtio_used_idx_set(dev, TXQ, 3);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 3);
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use - 3);
	for (unsigned k = 2; k < 7; k++)
		cr_assert_not_null(fk.vp->txq[0].sw_ring[h[k]], "packet %u freed on a batch past the index", k);
	cr_assert_eq(xstat("tx_q0_bad_used"), 1);
}

/* Packed: a used descriptor naming an id not outstanding frees nothing,
 * is counted, and batching is off from then on. */
Test(virtio_inorder_malicious, a_packed_batch_naming_an_id_not_outstanding_frees_nothing, .init = attach_packed)
{
	struct unic_pkt *p[2] = { tx_pkt(60, 1), tx_pkt(60, 2) };
	uint16_t flags, slot;
	unsigned in_use;

	cr_assert_eq(unic_tx_burst(fk.port, 0, p, 2), 2);
	in_use = unic_pool_in_use_count(fk.pool);
	slot = fake_virtio_packed_used_slot(dev, TXQ, &flags);
	fake_virtio_packed_put(dev, TXQ, slot, 200, 0, flags, true);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 0, "a batch naming no outstanding id freed a packet");
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use);
	cr_assert_eq(xstat("tx_q0_bad_used"), 1);
	cr_assert_not(fk.vp->txq[0].vq.in_order);
}

/* Packed rx: the same for an id out of range; good frames after a stop and
 * start arrive in batches again. */
Test(virtio_inorder_malicious, a_packed_rx_id_out_of_range_is_counted_and_a_restart_brings_batches_back,
     .init = attach_packed)
{
	static uint8_t f[BUF];
	struct unic_pkt *p[8];
	uint16_t flags, slot, b = 4;

	slot = fake_virtio_packed_used_slot(dev, RXQ, &flags);
	fake_virtio_packed_put(dev, RXQ, slot, 0xffff, 60, flags, true);
	cr_assert_eq(unic_rx_burst(fk.port, 0, p, 8), 0);
	cr_assert_eq(xstat("rx_q0_bad_used"), 1);
	cr_assert_not(fk.vp->rxq[0].vq.in_order);
	cr_assert_eq(unic_port_stop(fk.port), 0);
	cr_assert_eq(unic_port_start(fk.port), 0, "device error: %s", dev->err);
	cr_assert(fk.vp->rxq[0].vq.in_order, "a start does not bring batching back");
	set_batches(&b, 1, true);
	for (uint32_t i = 0; i < 4; i++) {
		make_frame(f, BUF - FV_NET_HDR_LEN, i);
		cr_assert_eq(fake_virtio_rx(dev, RXQ, NULL, f, BUF - FV_NET_HDR_LEN), 1, "error: %s", dev->err);
	}
	cr_assert_eq(unic_rx_burst(fk.port, 0, p, 8), 4);
	unic_pkt_free_bulk(p, 4);
	assert_device_happy();
}
