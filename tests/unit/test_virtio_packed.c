/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net driver (pmd/virtio) over packed virtqueues (virtio 1.1
 * section 2.7) against the fake device of fake_virtio.h offering
 * VIRTIO_F_RING_PACKED (QEMU's packed=on): rx and tx through many laps of
 * the ring (the wrap counters), mergeable jumbo frames, event suppression
 * both ways (ENABLE/DISABLE, and DESC with EVENT_IDX), the interrupt arm ->
 * re-check rule, multi-segment tx through an indirect table or a chain.
 * The suite virtio_split_indirect checks indirect tables on a split ring.
 *
 * The suite virtio_packed_malicious is the malicious-device harness for
 * packed rings: used descriptors with bad ids, bad lengths, ids never
 * posted or completed twice, flags with garbage wrap bits, used flags on
 * positions the driver never made available; the driver counts them in
 * the split ring's xstats and carries on (run it in the ASan build).
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
#define PACKED_FEATURES (FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_RING_PACKED))

static void attach_with(uint64_t features, uint16_t mtu)
{
	dev = &fk.dev;
	fake_virtio_attach_start(&fk, features, mtu);
	cr_assert(dev->accepted & FV_BIT(FV_F_RING_PACKED), "RING_PACKED offered and not taken (0x%" PRIx64 ")",
		  dev->accepted);
}

static void attach_packed(void)
{
	attach_with(PACKED_FEATURES, 1500);
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

static uint16_t rx(struct unic_pkt **pkts, uint16_t n)
{
	return unic_rx_burst(fk.port, 0, pkts, n);
}

static void deliver(const void *frame, size_t len, const struct fv_net_hdr *h)
{
	int rc = fake_virtio_rx(dev, RXQ, h, frame, len);

	cr_assert_geq(rc, 1, "the device could not deliver a %zu-byte frame: %d; device error: %s", len, rc,
		      dev->err);
}

static struct unic_pkt *tx_pkt(size_t len, uint32_t seq)
{
	struct unic_pkt *p = unic_pkt_alloc(fk.pool);

	cr_assert_not_null(p, "the pool is empty");
	make_frame(unic_pkt_append(p, (uint16_t)len), len, seq);
	return p;
}

/* A packet of @p nseg segments of @p seglen bytes each; *want gets its bytes. */
static struct unic_pkt *tx_chain(unsigned nseg, uint16_t seglen, uint8_t *want)
{
	struct unic_pkt *head = NULL, *tail = NULL;

	for (unsigned i = 0; i < nseg; i++) {
		struct unic_pkt *s = unic_pkt_alloc(fk.pool);
		uint8_t *d;

		cr_assert_not_null(s);
		d = unic_pkt_append(s, seglen);
		cr_assert_not_null(d);
		for (unsigned b = 0; b < seglen; b++)
			d[b] = (uint8_t)(i * 31 + b);
		if (i == 0)
			make_frame(d, seglen, 5);
		memcpy(want + (size_t)i * seglen, d, seglen);
		if (head == NULL) {
			head = tail = s;
		} else {
			tail->next = s;
			tail = s;
			head->nb_segs++;
			head->pkt_len += seglen;
		}
	}
	return head;
}

/* ---- rx and tx through the wrap counters ----------------------------------------- */

TestSuite(virtio_packed, .init = attach_packed, .fini = teardown);

Test(virtio_packed, the_packed_ring_is_negotiated_and_shown_in_the_port_info)
{
	struct unic_port_info info;
	char want[64];

	cr_assert_eq(unic_port_info_get(fk.port, &info), 0);
	snprintf(want, sizeof(want), "virtio1 f=%" PRIx64, dev->accepted);
	cr_assert_str_eq(info.fw_version, want);
	cr_assert(fk.vp->rxq[0].vq.packed && fk.vp->txq[0].vq.packed, "queues not packed");
	assert_device_happy();
}

Test(virtio_packed, frames_of_60_to_1514_bytes_arrive_byte_exact_over_many_laps_of_the_ring)
{
	static uint8_t f[1514], got[2048];
	struct unic_pkt *p[4];

	/* 1455 frames through a ring of 256: over five laps, both wrap counters. */
	for (size_t len = 60; len <= 1514; len++) {
		make_frame(f, len, (uint32_t)len);
		deliver(f, len, NULL);
		cr_assert_eq(rx(p, 4), 1, "len %zu: no frame; device error: %s", len, dev->err);
		cr_assert_eq(p[0]->pkt_len, len);
		pkt_bytes(p[0], got, sizeof(got));
		cr_assert_arr_eq(got, f, len, "len %zu: bytes differ", len);
		unic_pkt_free(p[0]);
	}
	cr_assert_eq(xstat("rx_q0_bad_used"), 0);
	assert_device_happy();
}

Test(virtio_packed, twenty_thousand_frames_arrive_in_order_in_bursts)
{
	static uint8_t f[128];
	struct unic_pkt *p[64];
	uint32_t next = 0, sent = 0;

	while (next < 20000) {
		/* Bursts of 40: the refill threshold of 32 posts in batches. */
		for (unsigned k = 0; k < 40 && sent < 20000; k++, sent++) {
			make_frame(f, 100, sent);
			deliver(f, 100, NULL);
		}
		for (uint16_t n; (n = rx(p, 64)) > 0;) {
			for (uint16_t i = 0; i < n; i++) {
				uint32_t seq;

				memcpy(&seq, (uint8_t *)unic_pkt_data(p[i]) + 14, 4);
				cr_assert_eq(seq, next, "frame %u arrived where %u was due", seq, next);
				next++;
			}
			unic_pkt_free_bulk(p, n);
		}
	}
	cr_assert_eq(dev->q[RXQ].kicks_unasked, 0, "kicks the device did not ask for");
	assert_device_happy();
}

Test(virtio_packed, sent_frames_reach_the_device_byte_exact_over_many_laps_of_the_ring)
{
	static uint8_t f[1514];
	struct fv_frame out[1];

	/* A header and a data descriptor each: 1455 packets, over eleven laps. */
	for (size_t len = 60; len <= 1514; len++) {
		struct unic_pkt *p = tx_pkt(len, (uint32_t)len);

		cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1, "len %zu: tx took nothing", len);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 1), 1, "len %zu: error: %s", len, dev->err);
		make_frame(f, len, (uint32_t)len);
		cr_assert_eq(out[0].len, len);
		cr_assert_arr_eq(out[0].data, f, len, "len %zu: bytes differ", len);
		cr_assert_eq(out[0].hdr.flags, 0);
		fv_frame_free(&out[0]);
	}
	unic_tx_reclaim(fk.port, 0);
	cr_assert_eq(xstat("tx_q0_bad_used"), 0);
	assert_device_happy();
}

Test(virtio_packed, a_full_tx_ring_takes_packets_again_once_the_device_completes_them)
{
	unsigned in_use0 = unic_pool_in_use_count(fk.pool);

	for (unsigned round = 0; round < 6; round++) {
		unsigned taken = 0;
		struct unic_pkt *p;

		for (unsigned i = 0; i < 300; i++) {
			p = tx_pkt(60, i);
			if (unic_tx_burst(fk.port, 0, &p, 1) != 1) {
				unic_pkt_free(p);
				break;
			}
			taken++;
		}
		cr_assert_eq(taken, dev->q[TXQ].size / 2, "round %u: a ring of %u took %u two-descriptor packets",
			     round, dev->q[TXQ].size, taken);
		cr_assert_geq(xstat("tx_q0_ring_full"), round + 1);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 4096), (int)taken, "error: %s", dev->err);
		unic_tx_reclaim(fk.port, 0);
		cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use0, "round %u: completed packets not freed", round);
	}
	assert_device_happy();
}

Test(virtio_packed, a_chained_packet_goes_out_through_one_indirect_descriptor)
{
	static uint8_t want[5 * 300];
	struct fv_frame out[2];
	struct unic_pkt *p = tx_chain(5, 300, want);

	cr_assert(dev->accepted & FV_BIT(FV_F_INDIRECT_DESC), "INDIRECT_DESC offered and not taken");
	for (unsigned lap = 0; lap < 600; lap++) {
		uint16_t avail0 = fk.vp->txq[0].vq.avail_idx;

		if (lap > 0)
			p = tx_chain(5, 300, want);
		cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
		cr_assert_eq((uint16_t)(fk.vp->txq[0].vq.avail_idx - avail0), 1, "one ring position per packet");
		cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 2), 1, "error: %s", dev->err);
		cr_assert(out[0].indirect, "not sent through an indirect table");
		cr_assert_eq(out[0].nb_desc, 6, "the table holds %u entries: header and 5 segments", out[0].nb_desc);
		cr_assert_eq(out[0].len, sizeof(want));
		cr_assert_arr_eq(out[0].data, want, sizeof(want));
		fv_frame_free(&out[0]);
		unic_tx_reclaim(fk.port, 0);
	}
	assert_device_happy();
}

static void attach_no_indirect(void)
{
	attach_with(PACKED_FEATURES & ~FV_BIT(FV_F_INDIRECT_DESC), 1500);
}

Test(virtio_packed, without_indirect_descriptors_a_chained_packet_goes_out_as_a_chain_across_the_wrap,
     .init = attach_no_indirect)
{
	static uint8_t want[4 * 200];
	struct fv_frame out[2];

	cr_assert_eq(dev->accepted & FV_BIT(FV_F_INDIRECT_DESC), 0);
	/* Four positions a packet, 256 / 4 a lap: 300 packets put chains
	 * across the wrap in several laps. Then one of 5 to misalign them. */
	for (unsigned i = 0; i < 300; i++) {
		struct unic_pkt *p = tx_chain(i == 7 ? 4 : 3, 200, want);
		size_t len = (i == 7 ? 4 : 3) * 200u;

		cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1, "packet %u", i);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 2), 1, "packet %u: error: %s", i, dev->err);
		cr_assert_not(out[0].indirect);
		cr_assert_eq(out[0].len, len);
		cr_assert_arr_eq(out[0].data, want, len, "packet %u", i);
		fv_frame_free(&out[0]);
	}
	unic_tx_reclaim(fk.port, 0);
	assert_device_happy();
}

/* ---- indirect tables on a split ring (2.6.5.3) ------------------------------------ */

static void attach_split(void)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB };
	int rc;

	logcap_start(UNIC_LOG_WARNING, 0);
	rc = fake_virtio_create(&fk, &c, true, NULL);
	dev = &fk.dev;
	cr_assert_eq(rc, 0, "attach: %d; log: %s", rc, logcap_buf);
	rc = fake_virtio_start(&fk, 256, NULL);
	cr_assert_eq(rc, 0, "start: %d; device error: %s; log: %s", rc, dev->err, logcap_buf);
	cr_assert_eq(dev->accepted & FV_BIT(FV_F_RING_PACKED), 0);
}

TestSuite(virtio_split_indirect, .init = attach_split, .fini = teardown);

Test(virtio_split_indirect, a_chained_packet_takes_one_descriptor_pointing_at_its_table)
{
	static uint8_t want[4 * 250];
	struct fv_frame out[2];

	cr_assert(dev->accepted & FV_BIT(FV_F_INDIRECT_DESC), "INDIRECT_DESC offered and not taken");
	for (unsigned i = 0; i < 600; i++) {
		struct unic_pkt *p = tx_chain(4, 250, want);
		uint16_t free0 = fk.vp->txq[0].vq.nb_free;

		cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1, "packet %u", i);
		cr_assert_eq((uint16_t)(free0 - fk.vp->txq[0].vq.nb_free), 1, "packet %u: %u descriptors", i,
			     (unsigned)(uint16_t)(free0 - fk.vp->txq[0].vq.nb_free));
		cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 2), 1, "packet %u: error: %s", i, dev->err);
		cr_assert(out[0].indirect);
		cr_assert_eq(out[0].nb_desc, 5, "header and 4 segments: %u", out[0].nb_desc);
		cr_assert_eq(out[0].len, sizeof(want));
		cr_assert_arr_eq(out[0].data, want, sizeof(want));
		fv_frame_free(&out[0]);
		unic_tx_reclaim(fk.port, 0);
	}
	assert_device_happy();
}

/* ---- mergeable buffers ----------------------------------------------------------- */

static void attach_packed_jumbo(void)
{
	attach_with(PACKED_FEATURES, 9000);
}

TestSuite(virtio_packed_mrg, .init = attach_packed_jumbo, .fini = teardown);

Test(virtio_packed_mrg, jumbo_frames_arrive_chained_over_several_buffers_lap_after_lap)
{
	static uint8_t f[9014], got[9100];
	struct unic_pkt *p[4];

	/* 9014 bytes take five 2 KiB buffers: 400 frames are eight laps. */
	for (unsigned i = 0; i < 400; i++) {
		size_t len = 1900 + (i * 397) % (9014 - 1900 + 1);
		int bufs;

		make_frame(f, len, i);
		bufs = fake_virtio_rx(dev, RXQ, NULL, f, len);
		cr_assert_geq(bufs, 1, "frame %u: %d; error: %s", i, bufs, dev->err);
		cr_assert_eq(rx(p, 4), 1, "frame %u of %zu bytes", i, len);
		cr_assert_eq(p[0]->pkt_len, len);
		cr_assert_eq(p[0]->nb_segs, bufs);
		pkt_bytes(p[0], got, sizeof(got));
		cr_assert_arr_eq(got, f, len, "frame %u: bytes differ", i);
		unic_pkt_free(p[0]);
	}
	assert_device_happy();
}

/* The used count is in buffers: a jumbo frame over five counts five. */
Test(virtio_packed_mrg, the_used_count_counts_the_buffers_of_a_merged_frame)
{
	static uint8_t f[9014];
	struct unic_pkt *p[4];
	int bufs;

	for (unsigned i = 0; i < 100; i++) {
		make_frame(f, sizeof(f), i);
		bufs = fake_virtio_rx(dev, RXQ, NULL, f, sizeof(f));
		cr_assert_eq(bufs, 5, "frame %u: %d; error: %s", i, bufs, dev->err);
		cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 5);
		cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 4), UNIC_DESC_DONE);
		cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 5), UNIC_DESC_AVAIL);
		cr_assert_eq(rx(p, 4), 1);
		unic_pkt_free(p[0]);
	}
	assert_device_happy();
}

/* ---- descriptor status, count and dumps (unic_port_desc_status & co) ------------------- */

/*
 * On a packed ring a rx buffer is one position from the next one the
 * driver reads: done when its flags say used in its lap, available when
 * posted, unavailable past what is posted; the count is the used buffers
 * not taken. Lap after lap (the wrap counters): 100 rounds of 1 to 7
 * frames are three laps of 256.
 */
Test(virtio_packed, rx_descriptor_status_and_used_count_follow_the_flags_lap_after_lap)
{
	struct unic_pkt *p[8];
	uint8_t f[60];

	for (unsigned round = 0; round < 100; round++) {
		const struct virtio_vq *vq = &fk.vp->rxq[0].vq;
		uint16_t k = (uint16_t)(1 + round % 7), posted;

		cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 0, "round %u", round);
		cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 0), UNIC_DESC_AVAIL, "round %u", round);
		for (uint16_t i = 0; i < k; i++) {
			make_frame(f, sizeof(f), i);
			deliver(f, sizeof(f), NULL);
		}
		posted = (uint16_t)(vq->size - vq->nb_free);
		cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), k, "round %u: %u frames, count %d", round, k,
			     unic_port_rx_queue_count(fk.port, 0));
		for (uint16_t o = 0; o < k; o++)
			cr_assert_eq(unic_port_desc_status(fk.port, false, 0, o), UNIC_DESC_DONE, "round %u, offset %u",
				     round, o);
		cr_assert_eq(unic_port_desc_status(fk.port, false, 0, k), UNIC_DESC_AVAIL, "round %u", round);
		cr_assert_eq(unic_port_desc_status(fk.port, false, 0, (uint16_t)(posted - 1)), UNIC_DESC_AVAIL);
		if (posted < vq->size)
			cr_assert_eq(unic_port_desc_status(fk.port, false, 0, posted), UNIC_DESC_UNAVAIL,
				     "round %u: posted %u", round, posted);
		cr_assert_eq(rx(p, 8), k);
		unic_pkt_free_bulk(p, k);
	}
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 256), -EINVAL, "past the ring");
	assert_device_happy();
}

/* Garbage wrap bits at the next position are not "used": the count stops there. */
Test(virtio_packed, garbage_flags_are_not_counted_as_used)
{
	struct fv_ring r;
	uint16_t slot, used;
	uint8_t f[60];

	make_frame(f, sizeof(f), 1);
	deliver(f, sizeof(f), NULL);
	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	slot = fake_virtio_packed_used_slot(dev, RXQ, &used);
	fake_virtio_packed_put(dev, RXQ, slot, r.pdesc[slot].id, 72, (uint16_t)(used ^ FV_PDESC_F_AVAIL), true);
	make_frame(f, sizeof(f), 2);
	fake_virtio_packed_put(dev, RXQ, (uint16_t)((slot + 1) % r.size), r.pdesc[(slot + 1) % r.size].id, 72,
			       used, false);
	cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 1, "garbage flags counted as a used buffer");
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 0), UNIC_DESC_DONE);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 1), UNIC_DESC_AVAIL);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 2), UNIC_DESC_AVAIL,
		     "a used descriptor after garbage counted");
}

/* A descriptor's four words: address, length, then id | flags << 16,
 * as the driver posted it and as the device wrote it back. */
Test(virtio_packed, a_descriptor_reads_as_the_driver_posted_it_then_as_the_device_used_it)
{
	const struct virtio_rxq *rxq = fk.port->rxq[0].q;
	uint16_t slot = rxq->vq.used_idx & rxq->vq.mask;
	uint32_t w[4];
	uint8_t f[60];

	cr_assert_eq(unic_port_desc_read(fk.port, false, 0, slot, w, 4), 4);
	cr_assert_eq(((uint64_t)w[1] << 32 | w[0]), rxq->vq.pdesc[slot].addr);
	cr_assert_eq(w[2], rxq->buf_len);
	cr_assert_eq(w[3] & 0xffff, rxq->vq.pdesc[slot].id);
	cr_assert_eq(w[3] >> 16, VRING_DESC_F_WRITE | VRING_PACKED_DESC_F_AVAIL, "flags 0x%x: WRITE and AVAIL (lap 1)",
		     w[3] >> 16);
	make_frame(f, sizeof(f), 1);
	deliver(f, sizeof(f), NULL);
	cr_assert_eq(unic_port_desc_read(fk.port, false, 0, slot, w, 4), 4);
	cr_assert_eq(w[2], 60 + FV_NET_HDR_LEN, "the used length");
	cr_assert_eq(w[3] >> 16, VRING_PACKED_DESC_F_AVAIL | VRING_PACKED_DESC_F_USED, "flags 0x%x: used in lap 1",
		     w[3] >> 16);
	cr_assert_eq(unic_port_desc_read(fk.port, true, 0, 0, w, 4), 4, "tx descriptors read too");
}

/*
 * Tx: from the next position the driver fills, the free positions are
 * done, then the outstanding ones from the oldest: done once the device
 * used their chain, else queued (DPDK's FULL). Lap after lap.
 */
Test(virtio_packed, tx_descriptor_status_follows_the_device_lap_after_lap)
{
	const struct virtio_vq *vq = &fk.vp->txq[0].vq;

	for (unsigned round = 0; round < 100; round++) {
		struct unic_pkt *p[3] = { tx_pkt(60, 1), tx_pkt(60, 2), tx_pkt(60, 3) };
		uint16_t free_pos, out;

		cr_assert_eq(unic_tx_burst(fk.port, 0, p, 3), 3);
		out = (uint16_t)(vq->avail_idx - vq->used_idx);
		cr_assert_geq(out, 6, "three packets of two positions each");
		free_pos = (uint16_t)(vq->size - out);
		cr_assert_eq(unic_port_desc_status(fk.port, true, 0, 0), UNIC_DESC_DONE);
		cr_assert_eq(unic_port_desc_status(fk.port, true, 0, (uint16_t)(free_pos - 1)), UNIC_DESC_DONE);
		for (uint16_t o = free_pos; o < vq->size; o++)
			cr_assert_eq(unic_port_desc_status(fk.port, true, 0, o), UNIC_DESC_AVAIL, "round %u: offset %u",
				     round, o);
		/* The first packet completed: its two positions are done. */
		cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 1), 1, "error: %s", dev->err);
		cr_assert_eq(unic_port_desc_status(fk.port, true, 0, (uint16_t)(vq->size - 6)), UNIC_DESC_DONE);
		cr_assert_eq(unic_port_desc_status(fk.port, true, 0, (uint16_t)(vq->size - 5)), UNIC_DESC_DONE);
		cr_assert_eq(unic_port_desc_status(fk.port, true, 0, (uint16_t)(vq->size - 4)), UNIC_DESC_AVAIL,
			     "round %u: a packet not sent is done", round);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 8), 2, "error: %s", dev->err);
		for (uint16_t o = 0; o < vq->size; o++)
			cr_assert_eq(unic_port_desc_status(fk.port, true, 0, o), UNIC_DESC_DONE, "round %u: offset %u",
				     round, o);
		unic_tx_reclaim(fk.port, 0);
		cr_assert_eq(unic_port_desc_status(fk.port, true, 0, (uint16_t)(vq->size - 1)), UNIC_DESC_DONE);
	}
	assert_device_happy();
}

/* ---- event suppression (2.7.10) ------------------------------------------------------ */

static void refill_kicks_after_running_out(void)
{
	uint8_t f[60];
	struct unic_pkt *p[64];
	unsigned delivered = 0;
	int rc;

	make_frame(f, 60, 0);
	for (unsigned round = 0; round < 4; round++) {
		delivered = 0;
		while ((rc = fake_virtio_rx(dev, RXQ, NULL, f, 60)) >= 1)
			delivered++;
		cr_assert_eq(rc, -EAGAIN, "rx: %d; error: %s", rc, dev->err);
		cr_assert(dev->q[RXQ].waiting, "the device is not waiting after %u frames", delivered);
		for (unsigned got = 0; got < delivered;) {
			uint16_t n = rx(p, 64);

			cr_assert_gt(n, 0, "%u of %u frames received, then nothing", got, delivered);
			unic_pkt_free_bulk(p, n);
			got += n;
		}
		rx(p, 64);
		cr_assert_eq(dev->q[RXQ].waiting, false, "round %u: buffers posted and no kick: the device stalls",
			     round);
	}
	cr_assert_eq(dev->q[RXQ].kicks_unasked, 0);
}

static void kicks_only_when_asked(void)
{
	struct unic_pkt *p;
	uint64_t k0;

	fake_virtio_kick_policy(dev, TXQ, FV_KICK_NEVER);
	k0 = dev->q[TXQ].kicks;
	for (unsigned i = 0; i < 20; i++) {
		p = tx_pkt(60, i);
		cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
	}
	cr_assert_eq(dev->q[TXQ].kicks, k0, "%" PRIu64 " kicks the device did not ask for", dev->q[TXQ].kicks - k0);
	cr_assert_geq(xstat("tx_q0_kicks_suppressed"), 20);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 64), 20);
	fake_virtio_kick_policy(dev, TXQ, FV_KICK_ALWAYS);
	/* 300 packets: the event position goes round the ring and its wrap bit flips. */
	for (unsigned i = 0; i < 300; i++) {
		p = tx_pkt(60, i);
		cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
		cr_assert_eq(dev->q[TXQ].kicks, k0 + i + 1, "burst %u: the device asked for a kick and got none", i);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 64), 1);
	}
	cr_assert_eq(dev->q[TXQ].kicks_unasked, 0);
	cr_assert_eq(dev->bad_notify, 0, "a notify write with the wrong queue index");
}

TestSuite(virtio_packed_notify, .init = attach_packed, .fini = teardown);

Test(virtio_packed_notify, with_event_idx_a_refill_after_the_device_ran_out_kicks_it)
{
	cr_assert(dev->accepted & FV_BIT(FV_F_EVENT_IDX));
	refill_kicks_after_running_out();
	assert_device_happy();
}

Test(virtio_packed_notify, with_event_idx_no_kick_is_sent_unless_the_device_asks)
{
	kicks_only_when_asked();
	assert_device_happy();
}

static void attach_packed_no_event_idx(void)
{
	attach_with(PACKED_FEATURES & ~FV_BIT(FV_F_EVENT_IDX), 1500);
	cr_assert_eq(dev->accepted & FV_BIT(FV_F_EVENT_IDX), 0);
}

Test(virtio_packed_notify, with_flags_only_a_refill_after_the_device_ran_out_kicks_it,
     .init = attach_packed_no_event_idx)
{
	refill_kicks_after_running_out();
	assert_device_happy();
}

Test(virtio_packed_notify, with_flags_only_no_kick_is_sent_unless_the_device_asks,
     .init = attach_packed_no_event_idx)
{
	kicks_only_when_asked();
	assert_device_happy();
}

/* ---- rx interrupts: arm, re-check --------------------------------------------------- */

static struct virtio_rxq *rxq0(void)
{
	return &fk.vp->rxq[0];
}

static void intr_on(void)
{
	fk.vp->rxq[0].intr_on = true;
	fk.vp->rxq[0].irq_fd = -1;
}

static void arm_recheck_cycles(void)
{
	uint8_t f[60];
	struct unic_pkt *p[2];
	uint64_t i0;

	intr_on();
	make_frame(f, 60, 1);
	cr_assert(fake_virtio_intr_suppressed(dev, RXQ), "a queue starts disarmed");
	/* A frame that lands before the arm: the re-check finds it. */
	deliver(f, 60, NULL);
	cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
	cr_assert(virtio_rx_pending(rxq0()), "a used descriptor, and the re-check after the arm misses it");
	cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
	cr_assert_eq(rx(p, 2), 1);
	unic_pkt_free(p[0]);
	cr_assert_not(virtio_rx_pending(rxq0()));
	/* 600 cycles: over two laps, so the DESC position wraps. */
	for (unsigned cycle = 0; cycle < 600; cycle++) {
		cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
		cr_assert_not(fake_virtio_intr_suppressed(dev, RXQ), "cycle %u: armed, yet the device may not notify",
			      cycle);
		i0 = dev->q[RXQ].interrupts;
		deliver(f, 60, NULL);
		cr_assert_eq(dev->q[RXQ].interrupts, i0 + 1, "cycle %u: armed, a frame, and no interrupt", cycle);
		cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
		cr_assert_eq(rx(p, 2), 1);
		unic_pkt_free(p[0]);
		i0 = dev->q[RXQ].interrupts;
		deliver(f, 60, NULL);
		cr_assert_eq(dev->q[RXQ].interrupts, i0, "cycle %u: disarmed, and the device was let notify", cycle);
		cr_assert_eq(rx(p, 2), 1);
		unic_pkt_free(p[0]);
	}
	cr_assert_geq(xstat("rx_q0_intr_armed"), 600);
}

TestSuite(virtio_packed_intr, .fini = teardown);

Test(virtio_packed_intr, with_event_idx_arm_recheck_and_disarm_work_lap_after_lap, .init = attach_packed)
{
	arm_recheck_cycles();
	assert_device_happy();
}

Test(virtio_packed_intr, with_flags_only_arm_recheck_and_disarm_work_lap_after_lap,
     .init = attach_packed_no_event_idx)
{
	arm_recheck_cycles();
	assert_device_happy();
}

/* ---- a malicious device ---------------------------------------------------------------- */

TestSuite(virtio_packed_malicious, .init = attach_packed, .fini = teardown);

/* The device behaves again from where the driver is: good frames arrive, tx works. */
static void behaves_again(void)
{
	struct virtio_vq *vq = &fk.vp->rxq[0].vq;
	struct unic_pkt *p[64], *t;
	uint8_t f[200], got[256];
	uint16_t n;

	while ((n = rx(p, 64)) > 0)
		unic_pkt_free_bulk(p, n);
	dev->q[RXQ].pk_avail = dev->q[RXQ].pk_used = vq->used_idx & vq->mask;
	dev->q[RXQ].pk_avail_wrap = dev->q[RXQ].pk_used_wrap = (vq->used_idx & vq->size) == 0;
	dev->q[RXQ].waiting = false;
	for (unsigned j = 0; j < 3; j++) {
		make_frame(f, 100 + j, 900 + j);
		deliver(f, 100 + j, NULL);
		cr_assert_eq(rx(p, 64), 1, "the device behaves again and good frame %u does not arrive", j);
		cr_assert_eq(p[0]->pkt_len, 100 + j);
		pkt_bytes(p[0], got, sizeof(got));
		cr_assert_arr_eq(got, f, 100 + j);
		unic_pkt_free(p[0]);
	}
	t = tx_pkt(80, 1);
	cr_assert_eq(unic_tx_burst(fk.port, 0, &t, 1), 1);
}

Test(virtio_packed_malicious, a_used_id_out_of_range_is_counted_and_skipped)
{
	struct unic_pkt *p[8];
	unsigned in_use = unic_pool_in_use_count(fk.pool);

	fake_virtio_used_put(dev, RXQ, 0xffff, 60, true);
	fake_virtio_used_put(dev, RXQ, dev->q[RXQ].size, 60, true);
	cr_assert_eq(rx(p, 8), 0, "a frame from a used descriptor with a bad id");
	cr_assert_eq(xstat("rx_q0_bad_used"), 2, "bad used descriptors not counted");
	cr_assert_leq(unic_pool_in_use_count(fk.pool), in_use);
	behaves_again();
}

Test(virtio_packed_malicious, an_rx_id_that_is_not_posted_is_counted_and_frees_nothing)
{
	struct unic_pkt *p[8];
	uint8_t f[60];
	uint16_t id;

	make_frame(f, 60, 1);
	deliver(f, 60, NULL);
	cr_assert_eq(rx(p, 8), 1);
	unic_pkt_free(p[0]);
	/* That buffer's id is free now (the refill waits for 32): the device
	 * names it again, twice. */
	id = fk.vp->rxq[0].vq.free_head;
	cr_assert_null(fk.vp->rxq[0].sw_ring[id], "id %u is posted", id);
	fake_virtio_used_put(dev, RXQ, id, 60, true);
	fake_virtio_used_put(dev, RXQ, id, 60, true);
	cr_assert_eq(rx(p, 8), 0, "a frame from a buffer that was never posted");
	cr_assert_eq(xstat("rx_q0_bad_used"), 2);
	behaves_again();
}

Test(virtio_packed_malicious, a_used_length_past_the_buffer_or_under_the_header_drops_the_frame)
{
	struct unic_pkt *p[8];
	struct fv_ring r;
	uint16_t n, slot, id;

	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	/* The buffers posted at the device's next positions, wrong lengths. */
	for (unsigned k = 0; k < 2; k++) {
		slot = fake_virtio_packed_used_slot(dev, RXQ, NULL);
		id = r.pdesc[slot].id;
		fake_virtio_used_put(dev, RXQ, id, k == 0 ? 1u << 20 : 5, true);
		dev->q[RXQ].pk_avail = dev->q[RXQ].pk_used;
		dev->q[RXQ].pk_avail_wrap = dev->q[RXQ].pk_used_wrap;
	}
	n = rx(p, 8);
	unic_pkt_free_bulk(p, n);
	cr_assert_eq(n, 0, "%u frames from bad lengths", n);
	cr_assert_eq(xstat("rx_q0_len_errors"), 2);
	behaves_again();
}

Test(virtio_packed_malicious, garbage_wrap_bits_are_counted_once_and_the_queue_waits_for_a_real_used_descriptor)
{
	struct unic_pkt *p[8];
	struct fv_ring r;
	uint16_t slot, used, id, bad;
	struct fv_net_hdr h = { .num_buffers = 1 };
	uint8_t f[60];

	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	slot = fake_virtio_packed_used_slot(dev, RXQ, &used);
	id = r.pdesc[slot].id;
	/* Lap 1: used is AVAIL|USED; the driver posted AVAIL alone. USED
	 * alone is neither. */
	bad = (uint16_t)(used ^ FV_PDESC_F_AVAIL);
	fake_virtio_packed_put(dev, RXQ, slot, id, 72, bad, false);
	for (unsigned i = 0; i < 5; i++)
		cr_assert_eq(rx(p, 8), 0, "garbage flags 0x%x read as used", bad);
	cr_assert_not(virtio_rx_pending(rxq0()));
	cr_assert_eq(xstat("rx_q0_bad_used"), 1, "garbage counted %" PRIu64 " times", xstat("rx_q0_bad_used"));
	/* A used descriptor of the previous lap's wrap (both flags clear): not used either. */
	fake_virtio_packed_put(dev, RXQ, slot, id, 72, (uint16_t)(used ^ (FV_PDESC_F_AVAIL | FV_PDESC_F_USED)), false);
	cr_assert_eq(rx(p, 8), 0);
	/* The device writes it right: the frame it wrote arrives. */
	make_frame(f, 60, 4);
	memcpy(fake_virtio_iova(dev, r.pdesc[slot].addr, 12), &h, 12);
	memcpy(fake_virtio_iova(dev, r.pdesc[slot].addr + 12, 60), f, 60);
	fake_virtio_packed_put(dev, RXQ, slot, id, 72, used, true);
	dev->q[RXQ].pk_avail = dev->q[RXQ].pk_used;
	dev->q[RXQ].pk_avail_wrap = dev->q[RXQ].pk_used_wrap;
	cr_assert_eq(rx(p, 8), 1);
	cr_assert_eq(p[0]->pkt_len, 60);
	unic_pkt_free(p[0]);
	behaves_again();
}

Test(virtio_packed_malicious, used_flags_on_positions_never_made_available_are_not_read)
{
	struct virtio_vq *vq = &fk.vp->txq[0].vq;
	unsigned in_use = unic_pool_in_use_count(fk.pool);
	struct unic_pkt *p;

	/* Nothing sent: every tx position looks used to a driver that would
	 * read them, ids of nothing. */
	for (uint16_t s = 0; s < vq->size; s++)
		fake_virtio_packed_put(dev, TXQ, s, s, 0, FV_PDESC_F_AVAIL | FV_PDESC_F_USED, false);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 0);
	cr_assert_eq(xstat("tx_q0_bad_used"), 0);
	/* Sending over them works: the driver's own flags replace them. */
	p = tx_pkt(60, 1);
	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 8), 1, "error: %s", dev->err);
	unic_tx_reclaim(fk.port, 0);
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use);
}

Test(virtio_packed_malicious, a_tx_completion_given_twice_or_for_an_id_never_sent_frees_nothing_more)
{
	struct unic_pkt *p[2] = { tx_pkt(60, 1), tx_pkt(60, 2) }, *c;
	struct fv_ring r;
	uint16_t slot, ids[2], idc, again;
	unsigned in_use;

	cr_assert_eq(fake_virtio_ring(dev, TXQ, &r), 0);
	slot = fake_virtio_packed_used_slot(dev, TXQ, NULL);
	cr_assert_eq(unic_tx_burst(fk.port, 0, p, 2), 2);
	ids[0] = r.pdesc[slot].id;
	ids[1] = r.pdesc[(slot + 2) % r.size].id;
	cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 2), 2);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 2);
	in_use = unic_pool_in_use_count(fk.pool);
	/* One more packet; the device completes the packet before it again
	 * (an id already given back), then an id never sent. */
	c = tx_pkt(60, 3);
	cr_assert_eq(unic_tx_burst(fk.port, 0, &c, 1), 1);
	idc = r.pdesc[(slot + 4) % r.size].id;
	again = ids[0] != idc ? ids[0] : ids[1];
	fake_virtio_used_put(dev, TXQ, again, 0, true);
	fake_virtio_used_put(dev, TXQ, 200, 0, true);
	cr_assert_eq(unic_tx_reclaim(fk.port, 0), 0, "a completion freed a packet it does not name");
	cr_assert_eq(xstat("tx_q0_bad_used"), 2);
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use + 1, "packets in use went from %u to %u", in_use + 1,
		     unic_pool_in_use_count(fk.pool));
}

/* ---- one request at a time (what a control queue needs) ----------------------------- */

/* The packed tx queue, idle, carries requests the device takes as frames. */
Test(virtio_packed, a_request_chain_is_used_once_and_another_can_follow_lap_after_lap)
{
	struct virtio_vq *vq = &fk.vp->txq[0].vq;
	struct unic_pkt *b = unic_pkt_alloc(fk.pool);
	struct fv_frame out[1];
	struct virtio_req_seg segs[3];
	uint8_t *d;
	uint32_t len = 99;

	cr_assert_not_null(b);
	d = unic_pkt_append(b, 64);
	memset(d, 0, 12);
	memset(d + 12, 0x3c, 52);
	segs[0] = (struct virtio_req_seg){ .iova = unic_pkt_data_iova(b), .len = 12 };
	segs[1] = (struct virtio_req_seg){ .iova = unic_pkt_data_iova(b) + 12, .len = 40 };
	segs[2] = (struct virtio_req_seg){ .iova = unic_pkt_data_iova(b) + 52, .len = 12 };
	/* 200 requests of three positions: over two laps of 256. */
	for (unsigned i = 0; i < 200; i++) {
		cr_assert_eq(virtio_packed_request(vq, segs, 3), 0, "request %u", i);
		cr_assert_eq(virtio_packed_request(vq, segs, 3), -EBUSY, "two requests at once");
		cr_assert_eq(virtio_packed_request_done(vq, &len), 0, "request %u used before the device took it", i);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 1), 1, "request %u: error: %s", i, dev->err);
		cr_assert_eq(out[0].len, 52);
		cr_assert_eq(out[0].data[0], 0x3c);
		fv_frame_free(&out[0]);
		cr_assert_eq(virtio_packed_request_done(vq, &len), 1, "request %u not seen used", i);
		cr_assert_eq(len, 0);
	}
	/* A device that answers with another id: refused, counted, and over. */
	cr_assert_eq(virtio_packed_request(vq, segs, 1), 0);
	fake_virtio_used_put(dev, TXQ, 7, 1, true);
	cr_assert_eq(virtio_packed_request_done(vq, &len), -EPROTO);
	cr_assert_eq(xstat("tx_q0_bad_used"), 1);
	cr_assert_eq(virtio_packed_request(vq, segs, 1), 0, "the queue is stuck after a bad answer");
	unic_pkt_free(b);
	assert_device_happy();
}

/* The control queue has the negotiated format too: on a packed device its
 * commands go through the packed ring, and a bad answer there is refused. */
Test(virtio_packed, control_commands_go_through_a_packed_control_queue_and_a_bad_used_id_is_refused)
{
	uint64_t before = dev->ctrl_cmds;

	cr_assert(!dev->filter.promisc, "start did not turn promiscuous mode off over the packed control queue");
	cr_assert_eq(unic_port_promisc_set(fk.port, true), 0);
	cr_assert(dev->filter.promisc);
	cr_assert_eq(dev->ctrl_cmds, before + 1);
	dev->ctrl_mode = FV_CTRL_BAD_ID;
	dev->ctrl_bad = 5;
	cr_assert_eq(unic_port_promisc_set(fk.port, false), -EIO, "a used descriptor with another buffer id taken");
	cr_assert_gt(xstat("ctrl_bad_used"), 0, "the bad used descriptor was not counted");
	dev->ctrl_mode = FV_CTRL_ANSWER;
	cr_assert_eq(unic_port_promisc_set(fk.port, false), -EIO, "the queue must stay out of service until a restart");
	unic_port_stop(fk.port);
	cr_assert_eq(unic_port_start(fk.port), 0);
	/* The refused "off" was not recorded: the restart restores "on". */
	cr_assert(dev->filter.promisc, "the restart did not restore promiscuous mode on");
	cr_assert_eq(unic_port_promisc_set(fk.port, true), 0, "the control queue works again after a restart");
}
