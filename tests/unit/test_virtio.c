/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net driver (pmd/virtio) without a NIC, against the fake device
 * of fake_virtio.h: a device written from the virtio 1.1/1.2 specification
 * (the status handshake of 3.1.1, the common configuration of 4.1.4.3,
 * split virtqueues of 2.6, notification suppression of 2.6.7/2.6.10, the
 * network header of 5.1.6), acting on the driver's register accesses and
 * reading and writing the rings the driver set up. The driver is reached
 * through its attach entry and the generic port API (unic_port_*,
 * unic_rx_burst, unic_tx_burst); its private state is read only where the
 * port API has no window (the rx queue object for interrupt arming).
 *
 * The suite virtio_malicious is the malicious-device harness: the device
 * writes used entries with ids out of range, lengths past the buffer, a
 * used index that jumps past the ring, completions twice, header garbage;
 * the driver must count it and carry on (run it in the ASan build).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/pkt.h>

#include "fake_virtio.h"
#include "log_capture.h"

static struct fake_virtio fk;
static struct fake_virtio_dev *dev;

#define RXQ 0
#define TXQ 1

static void quiet(void)
{
	logcap_start(UNIC_LOG_WARNING, 0);
}

static void attach(const struct fake_virtio_config *c, bool iommu, void (*before)(struct fake_virtio_dev *))
{
	int rc;

	quiet();
	rc = fake_virtio_create(&fk, c, iommu, before);
	dev = &fk.dev;
	cr_assert_eq(rc, 0, "attach: %d (%s); device error: %s; log: %s", rc, strerror(-rc), dev->err,
		     logcap_buf);
}

static void teardown(void)
{
	fake_virtio_destroy(&fk);
	logcap_stop();
}

static void start(uint16_t nb_desc, uint16_t mtu)
{
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = 1, .nb_txq = 1, .mtu = mtu,
				     .rx_mode = UNIC_RX_MODE_POLL,
				     .rx_offloads = mtu > 1500 ? UNIC_RX_OFFLOAD_SCATTER : 0 };
	int rc = fake_virtio_start(&fk, nb_desc, &pc);

	cr_assert_eq(rc, 0, "configure/setup/start: %d (%s); device error: %s; log: %s", rc, strerror(-rc),
		     dev->err, logcap_buf);
}

static void attach_and_start(void)
{
	attach(NULL, true, NULL);
	start(256, 1500);
}

static void assert_device_happy(void)
{
	cr_assert_eq(dev->nb_err, 0, "the device saw %" PRIu64 " driver error(s), the first: %s", dev->nb_err,
		     dev->err);
}

/* A frame with a pattern that says its sequence number in every byte. */
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

/* The bytes of a (possibly chained) packet into @p out; @return pkt_len. */
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

/* Deliver a frame; the device must have had room. */
static void deliver(const void *frame, size_t len, const struct fv_net_hdr *h)
{
	int rc = fake_virtio_rx(dev, RXQ, h, frame, len);

	cr_assert_geq(rc, 1, "the device could not deliver a %zu-byte frame: %d; device error: %s", len, rc,
		      dev->err);
}

/* ---- the status handshake and feature negotiation (3.1.1) ----------------------- */

TestSuite(virtio_handshake, .fini = teardown);

Test(virtio_handshake, the_driver_resets_acknowledges_drives_and_sets_features_ok_in_that_order)
{
	static const uint8_t want[] = { 0, FV_S_ACKNOWLEDGE, FV_S_ACKNOWLEDGE | FV_S_DRIVER,
					FV_S_ACKNOWLEDGE | FV_S_DRIVER | FV_S_FEATURES_OK };

	attach(NULL, true, NULL);
	cr_assert_geq(dev->nb_status, 4, "only %u status writes", dev->nb_status);
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(dev->status_log[i], want[i], "status write %u: 0x%02x, expected 0x%02x", i,
			     dev->status_log[i], want[i]);
	cr_assert_geq(dev->nb_features_ok, 1, "the device never took FEATURES_OK");
	cr_assert_geq(dev->resets, 1);
	assert_device_happy();
}

Test(virtio_handshake, driver_ok_comes_at_start_after_the_queues_are_enabled)
{
	attach(NULL, true, NULL);
	start(256, 1500);
	cr_assert(dev->driver_ok, "DRIVER_OK not set after start (status 0x%02x)", dev->status);
	cr_assert(dev->q[RXQ].enable && dev->q[TXQ].enable, "rx enabled %u, tx enabled %u", dev->q[RXQ].enable,
		  dev->q[TXQ].enable);
	cr_assert_eq(dev->status & FV_S_FAILED, 0);
	assert_device_happy();
}

Test(virtio_handshake, accepted_features_are_offered_ones_with_version_1_and_access_platform)
{
	static const unsigned wanted[] = { FV_F_VERSION_1, FV_F_ACCESS_PLATFORM, FV_F_MAC, FV_F_STATUS,
					   FV_F_MRG_RXBUF, FV_F_EVENT_IDX };

	attach(NULL, true, NULL);
	start(256, 1500);
	cr_assert_eq(dev->accepted & ~dev->offered, 0, "accepted 0x%" PRIx64 " beyond the offer 0x%" PRIx64,
		     dev->accepted, dev->offered);
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(wanted); i++)
		cr_assert(dev->accepted & FV_BIT(wanted[i]), "feature bit %u offered and not accepted (0x%" PRIx64 ")",
			  wanted[i], dev->accepted);
	cr_assert_eq(fk.vp->hw.features, dev->accepted, "the driver thinks it negotiated 0x%" PRIx64
		     ", the device took 0x%" PRIx64, fk.vp->hw.features, dev->accepted);
}

Test(virtio_handshake, without_an_iommu_access_platform_is_still_accepted_when_offered)
{
	/* QEMU refuses FEATURES_OK when iommu_platform=on and bit 33 is not
	 * accepted, IOMMU or not. */
	attach(NULL, false, NULL);
	cr_assert(dev->last_accepted & FV_BIT(FV_F_ACCESS_PLATFORM), "accepted 0x%" PRIx64, dev->last_accepted);
}

static bool status_written_with(uint8_t bits)
{
	for (unsigned i = 0; i < dev->nb_status; i++)
		if ((dev->status_log[i] & bits) == bits)
			return true;
	return false;
}

static void refuse(struct fake_virtio_dev *d)
{
	d->refuse_features = true;
}

Test(virtio_handshake, a_device_that_refuses_features_ok_fails_the_attach_and_is_marked_failed)
{
	int rc;

	quiet();
	rc = fake_virtio_create(&fk, NULL, true, refuse);
	dev = &fk.dev;
	cr_assert_eq(rc, -ENOTSUP, "attach: %d, expected -ENOTSUP", rc);
	cr_assert_null(fk.port);
	cr_assert(status_written_with(FV_S_FAILED), "FAILED never written to device_status");
	cr_assert_eq(dev->nb_driver_ok, 0);
	cr_assert(logcap_has("FEATURES_OK"), "no message names FEATURES_OK: %s", logcap_buf);
}

Test(virtio_handshake, a_device_without_version_1_is_refused_naming_it)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB & ~FV_BIT(FV_F_VERSION_1),
					.require = FV_BIT(FV_F_ACCESS_PLATFORM) };
	int rc;

	quiet();
	rc = fake_virtio_create(&fk, &c, true, NULL);
	dev = &fk.dev;
	cr_assert_eq(rc, -ENOTSUP, "attach: %d, expected -ENOTSUP", rc);
	cr_assert_eq(dev->nb_features_ok, 0, "FEATURES_OK accepted without VERSION_1");
	cr_assert(logcap_has("VERSION_1"), "no message names VERSION_1: %s", logcap_buf);
}

Test(virtio_handshake, under_an_iommu_a_device_without_access_platform_is_refused_naming_iommu_platform)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB & ~FV_BIT(FV_F_ACCESS_PLATFORM) };
	int rc;

	quiet();
	rc = fake_virtio_create(&fk, &c, true, NULL);
	dev = &fk.dev;
	cr_assert_eq(rc, -ENOTSUP, "attach: %d, expected -ENOTSUP", rc);
	cr_assert_eq(dev->nb_features_ok, 0);
	cr_assert(logcap_has("iommu_platform=on"), "the message does not say what to do: %s", logcap_buf);
}

static void hang_reset(struct fake_virtio_dev *d)
{
	d->reset_hangs = true;
	d->status = FV_S_ACKNOWLEDGE | FV_S_DRIVER;
}

Test(virtio_handshake, a_reset_that_never_completes_times_out)
{
	int rc;

	quiet();
	rc = fake_virtio_create(&fk, NULL, true, hang_reset);
	dev = &fk.dev;
	cr_assert_eq(rc, -ETIMEDOUT, "attach: %d, expected -ETIMEDOUT", rc);
	cr_assert_eq(dev->nb_features_ok, 0, "the driver went on past a reset that never completed");
	cr_assert_eq(dev->nb_status, 1, "%u status writes after a reset that never completed", dev->nb_status);
	cr_assert(logcap_has("reset"), "no message about the reset: %s", logcap_buf);
}

static void vanish_early(struct fake_virtio_dev *d)
{
	fake_virtio_vanish(d);
}

Test(virtio_handshake, a_device_that_reads_all_ones_fails_the_attach_with_enodev)
{
	int rc;

	quiet();
	rc = fake_virtio_create(&fk, NULL, true, vanish_early);
	dev = &fk.dev;
	cr_assert_eq(rc, -ENODEV, "attach: %d, expected -ENODEV", rc);
}

Test(virtio_handshake, the_mac_address_is_the_device_configs)
{
	uint8_t mac[6];

	attach(NULL, true, NULL);
	cr_assert_eq(unic_port_mac_get(fk.port, mac), 0);
	cr_assert_arr_eq(mac, dev->cfg.mac, 6, "MAC %02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2],
			 mac[3], mac[4], mac[5]);
}

static void tear(struct fake_virtio_dev *d)
{
	d->tear_config_reads = 1;
}

Test(virtio_handshake, a_config_change_during_the_mac_read_is_caught_by_the_generation_and_read_again)
{
	uint8_t mac[6];

	attach(NULL, true, tear);
	cr_assert_eq(dev->tear_config_reads, 0, "the driver never read the MAC from the device config");
	cr_assert_eq(unic_port_mac_get(fk.port, mac), 0);
	cr_assert_arr_eq(mac, dev->cfg.mac, 6,
			 "MAC %02x:%02x:%02x:%02x:%02x:%02x, a torn read (the device's is %02x:..:%02x)", mac[0],
			 mac[1], mac[2], mac[3], mac[4], mac[5], dev->cfg.mac[0], dev->cfg.mac[5]);
}

Test(virtio_handshake, queues_get_a_power_of_two_size_within_the_device_maximum)
{
	struct fake_virtio_config c = { .queue_size = 128 };

	attach(&c, true, NULL);
	start(0, 1500);
	for (unsigned q = RXQ; q <= TXQ; q++) {
		uint16_t s = dev->q[q].size;

		cr_assert(s >= 1 && s <= 128 && (s & (s - 1)) == 0, "queue %u: size %u (device maximum 128)", q, s);
	}
	assert_device_happy();
}

Test(virtio_handshake, a_device_that_answers_driver_ok_with_needs_reset_fails_the_start)
{
	int rc;

	attach(NULL, true, NULL);
	dev->needs_reset_at_driver_ok = true;
	rc = fake_virtio_start(&fk, 256, NULL);
	cr_assert_neq(rc, 0, "start succeeded on a device that set DEVICE_NEEDS_RESET at DRIVER_OK");
	cr_assert(logcap_has("NEEDS_RESET"), "no message names DEVICE_NEEDS_RESET: %s", logcap_buf);
	cr_assert_neq(unic_port_state(fk.port), UNIC_PORT_STARTED);
	/* The device behaves again: the next start works. */
	dev->needs_reset_at_driver_ok = false;
	logcap_clear();
	cr_assert_eq(unic_port_start(fk.port), 0, "start after the device behaves: log %s", logcap_buf);
}

/* ---- rx and tx through the device ---------------------------------------------- */

TestSuite(virtio_rxtx, .init = attach_and_start, .fini = teardown);

Test(virtio_rxtx, frames_of_60_to_1514_bytes_arrive_byte_exact)
{
	static const size_t sizes[] = { 60, 61, 64, 127, 128, 511, 1000, 1024, 1513, 1514 };
	uint8_t f[2048], got[2048];
	struct unic_pkt *p[4];

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(sizes); i++) {
		make_frame(f, sizes[i], i);
		deliver(f, sizes[i], NULL);
		cr_assert_eq(rx(p, 4), 1, "size %zu: no frame", sizes[i]);
		cr_assert_eq(p[0]->pkt_len, sizes[i], "size %zu: pkt_len %" PRIu32, sizes[i], p[0]->pkt_len);
		pkt_bytes(p[0], got, sizeof(got));
		cr_assert_arr_eq(got, f, sizes[i], "size %zu: the bytes differ", sizes[i]);
		unic_pkt_free(p[0]);
	}
	assert_device_happy();
}

Test(virtio_rxtx, ten_thousand_frames_arrive_in_order_across_ring_wraps)
{
	uint8_t f[1514];
	struct unic_pkt *p[32];
	uint32_t next = 0, sent = 0;

	while (next < 10000) {
		/* The device delivers what it has room for, the driver takes
		 * a burst (and refills): a ring wraps every 256. */
		for (unsigned k = 0; k < 40 && sent < 10000; k++) {
			size_t len = 60 + (sent * 37) % 1455;
			int rc;

			make_frame(f, len, sent);
			rc = fake_virtio_rx(dev, RXQ, NULL, f, len);
			if (rc == -EAGAIN)
				break;
			cr_assert_geq(rc, 1, "frame %u: %d; device error: %s", sent, rc, dev->err);
			sent++;
		}
		uint16_t n = rx(p, 32);

		cr_assert(n > 0 || sent > next, "stalled at frame %u: nothing to receive and the device has no buffer (waiting for a kick: %d)",
			  next, dev->q[RXQ].waiting);
		for (uint16_t i = 0; i < n; i++, next++) {
			uint32_t seq;

			cr_assert_eq(p[i]->pkt_len, 60 + (next * 37) % 1455, "frame %u: %" PRIu32 " bytes", next,
				     p[i]->pkt_len);
			memcpy(&seq, unic_pkt_mtod(p[i], uint8_t *) + 14, 4);
			cr_assert_eq(seq, next, "frame %u arrived where %u was expected", seq, next);
		}
		unic_pkt_free_bulk(p, n);
	}
	assert_device_happy();
}

static struct unic_pkt *tx_pkt(size_t len, uint32_t seq)
{
	struct unic_pkt *p = unic_pkt_alloc(fk.pool);

	cr_assert_not_null(p, "the pool is empty");
	make_frame(unic_pkt_append(p, (uint16_t)len), len, seq);
	return p;
}

Test(virtio_rxtx, sent_frames_reach_the_device_byte_exact_behind_a_zero_header)
{
	static const size_t sizes[] = { 60, 61, 128, 1000, 1514 };
	uint8_t f[2048];
	struct fv_frame out[8];

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(sizes); i++) {
		struct unic_pkt *p = tx_pkt(sizes[i], i);

		cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1, "size %zu: tx took nothing", sizes[i]);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 8), 1, "size %zu: the device found %d frames; error: %s",
			     sizes[i], fake_virtio_tx(dev, TXQ, NULL, 0), dev->err);
		make_frame(f, sizes[i], i);
		cr_assert_eq(out[0].len, sizes[i], "the device got %zu bytes, %zu sent", out[0].len, sizes[i]);
		cr_assert_arr_eq(out[0].data, f, sizes[i]);
		cr_assert_eq(out[0].hdr.flags, 0);
		cr_assert_eq(out[0].hdr.gso_type, FV_GSO_NONE);
		fv_frame_free(&out[0]);
	}
	assert_device_happy();
}

Test(virtio_rxtx, a_chained_packet_goes_out_as_one_frame)
{
	struct unic_pkt *p = tx_pkt(600, 1), *s = unic_pkt_alloc(fk.pool);
	struct fv_frame out[2];
	uint8_t want[1000];

	cr_assert_not_null(s);
	memset(unic_pkt_append(s, 400), 0xa5, 400);
	p->next = s;
	p->nb_segs = 2;
	p->pkt_len = 1000;
	memcpy(want, unic_pkt_data(p), 600);
	memset(want + 600, 0xa5, 400);
	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 2), 1, "error: %s", dev->err);
	cr_assert_eq(out[0].len, 1000);
	cr_assert_arr_eq(out[0].data, want, 1000);
	fv_frame_free(&out[0]);
	assert_device_happy();
}

Test(virtio_rxtx, tx_descriptors_come_back_once_the_device_completes_them)
{
	unsigned in_use0 = unic_pool_in_use_count(fk.pool), taken = 0, done;
	struct unic_pkt *p;

	/* Fill the ring: the device completes nothing. */
	for (unsigned i = 0; i < 1024; i++) {
		p = tx_pkt(60, i);
		if (unic_tx_burst(fk.port, 0, &p, 1) != 1) {
			unic_pkt_free(p);
			break;
		}
		taken++;
	}
	cr_assert(taken >= 1 && taken <= dev->q[TXQ].size, "the ring of %u took %u packets", dev->q[TXQ].size,
		  taken);
	done = (unsigned)fake_virtio_tx(dev, TXQ, NULL, 4096);
	cr_assert_eq(done, taken, "the device found %u of %u", done, taken);
	unic_tx_reclaim(fk.port, 0);
	p = tx_pkt(60, 0);
	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1, "the ring is still full after every completion");
	cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 4096), 1);
	unic_tx_reclaim(fk.port, 0);
	cr_assert_leq(unic_pool_in_use_count(fk.pool), in_use0 + 1,
		      "%u packets in use, %u before: completed packets not freed",
		      unic_pool_in_use_count(fk.pool), in_use0);
	assert_device_happy();
}

/*
 * A one-segment packet carries its header in its headroom (stale bytes
 * there are overwritten): one descriptor a frame. With less than 12 bytes
 * of headroom it takes a header descriptor of the driver's own. Both
 * arrive byte-exact behind a zero header.
 */
Test(virtio_rxtx, a_one_segment_packet_takes_one_descriptor_with_its_header_in_the_headroom)
{
	struct unic_pkt *p[2] = { tx_pkt(200, 1), unic_pkt_alloc(fk.pool) };
	static const struct fv_net_hdr zero;
	struct fv_frame out[2];
	uint8_t f[200];

	cr_assert_not_null(p[1]);
	memset((uint8_t *)unic_pkt_data(p[0]) - 12, 0xff, 12);
	p[1]->data_off = 8;
	make_frame(unic_pkt_append(p[1], 200), 200, 2);
	cr_assert_eq(unic_tx_burst(fk.port, 0, p, 2), 2);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 2), 2, "error: %s", dev->err);
	for (unsigned i = 0; i < 2; i++) {
		make_frame(f, 200, i + 1);
		cr_assert_eq(out[i].len, 200);
		cr_assert_arr_eq(out[i].data, f, 200);
		cr_assert_arr_eq(&out[i].hdr, &zero, FV_NET_HDR_LEN, "frame %u: flags %u gso %u", i, out[i].hdr.flags,
				 out[i].hdr.gso_type);
		cr_assert_eq(out[i].nb_desc, i == 0 ? 1u : 2u, "frame %u took %u descriptors", i, out[i].nb_desc);
		fv_frame_free(&out[i]);
	}
	assert_device_happy();
}

/* ---- jumbo frames: mergeable rx buffers (5.1.6.3) ----------------------------------- */

static void attach_jumbo(void)
{
	attach(NULL, true, NULL);
	start(256, 9000);
}

TestSuite(virtio_mrg, .init = attach_jumbo, .fini = teardown);

Test(virtio_mrg, a_9014_byte_frame_arrives_as_one_chained_packet_over_several_buffers)
{
	static uint8_t f[9014], got[9100];
	struct unic_pkt *p[4];
	int bufs;

	cr_assert(dev->accepted & FV_BIT(FV_F_MRG_RXBUF), "MRG_RXBUF not negotiated");
	make_frame(f, sizeof(f), 77);
	bufs = fake_virtio_rx(dev, RXQ, NULL, f, sizeof(f));
	cr_assert_geq(bufs, 2, "the device used %d buffer(s); error: %s", bufs, dev->err);
	cr_assert_eq(rx(p, 4), 1);
	cr_assert_eq(p[0]->pkt_len, sizeof(f));
	cr_assert_geq(p[0]->nb_segs, 2);
	pkt_bytes(p[0], got, sizeof(got));
	cr_assert_arr_eq(got, f, sizeof(f));
	unic_pkt_free(p[0]);
	assert_device_happy();
}

Test(virtio_mrg, frames_of_every_size_around_the_buffer_edges_arrive_byte_exact)
{
	static uint8_t f[9014], got[9100];
	struct unic_pkt *p[4];

	for (size_t len = 1900; len <= 9014; len += 397) {
		make_frame(f, len, (uint32_t)len);
		deliver(f, len, NULL);
		cr_assert_eq(rx(p, 4), 1, "len %zu", len);
		cr_assert_eq(p[0]->pkt_len, len);
		pkt_bytes(p[0], got, sizeof(got));
		cr_assert_arr_eq(got, f, len, "len %zu: bytes differ", len);
		unic_pkt_free(p[0]);
	}
	assert_device_happy();
}

/* ---- checksum state in the header (5.1.6.4) -------------------------------------- */

static void attach_csum(void)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_CSUM) |
						    FV_BIT(FV_F_GUEST_CSUM) | FV_BIT(FV_F_HOST_TSO4) |
						    FV_BIT(FV_F_HOST_TSO6) };
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = 1, .nb_txq = 1, .mtu = 1500,
				     .rx_offloads = UNIC_RX_OFFLOAD_UDP_CKSUM | UNIC_RX_OFFLOAD_TCP_CKSUM,
				     .tx_offloads = UNIC_TX_OFFLOAD_UDP_CKSUM | UNIC_TX_OFFLOAD_TCP_CKSUM |
						    UNIC_TX_OFFLOAD_TCP_TSO | UNIC_TX_OFFLOAD_MULTI_SEGS };
	struct unic_rxq_conf rq = { .sz = sizeof(rq), .numa_node = -1 };
	struct unic_txq_conf tq = { .sz = sizeof(tq), .numa_node = -1 };
	int rc;

	attach(&c, true, NULL);
	rq.pool = fk.pool;
	rc = unic_port_configure(fk.port, &pc);
	cr_assert_eq(rc, 0, "configure with checksum offloads: %d; log: %s", rc, logcap_buf);
	cr_assert_eq(unic_port_rx_queue_setup(fk.port, 0, &rq), 0);
	cr_assert_eq(unic_port_tx_queue_setup(fk.port, 0, &tq), 0);
	cr_assert_eq(unic_port_start(fk.port), 0, "start: log %s", logcap_buf);
}

TestSuite(virtio_csum, .init = attach_csum, .fini = teardown);

/* An IPv4/UDP frame of 60 bytes. */
static void udp_frame(uint8_t *f)
{
	memset(f, 0, 60);
	memcpy(f, "\x52\x54\x00\x12\x34\x56\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	f[14] = 0x45;
	f[16] = 0, f[17] = 46;
	f[22] = 64, f[23] = 17;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[34] = 0x04, f[35] = 0xd2, f[36] = 0x16, f[37] = 0x2e;
	f[38] = 0, f[39] = 26;
}

Test(virtio_csum, data_valid_becomes_a_good_l4_checksum_and_no_flag_no_verdict)
{
	struct fv_net_hdr h = { .flags = FV_HDR_F_DATA_VALID };
	struct unic_pkt *p[2];
	uint8_t f[60];

	cr_assert(dev->accepted & FV_BIT(FV_F_GUEST_CSUM), "GUEST_CSUM offered and not accepted");
	udp_frame(f);
	deliver(f, 60, &h);
	cr_assert_eq(rx(p, 2), 1);
	cr_assert(p[0]->ol_flags & UNIC_PKT_RX_L4_CKSUM_GOOD, "DATA_VALID: ol_flags 0x%" PRIx64, p[0]->ol_flags);
	cr_assert_eq(p[0]->ol_flags & UNIC_PKT_RX_L4_CKSUM_BAD, 0);
	unic_pkt_free(p[0]);
	deliver(f, 60, NULL);
	cr_assert_eq(rx(p, 2), 1);
	cr_assert_eq(p[0]->ol_flags & (UNIC_PKT_RX_L4_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_BAD), 0,
		     "no header flag, yet ol_flags 0x%" PRIx64, p[0]->ol_flags);
	unic_pkt_free(p[0]);
}

Test(virtio_csum, needs_csum_is_a_partial_checksum_never_a_bad_one)
{
	struct fv_net_hdr h = { .flags = FV_HDR_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 6 };
	struct unic_pkt *p[2];
	uint8_t f[60];

	udp_frame(f);
	deliver(f, 60, &h);
	cr_assert_eq(rx(p, 2), 1);
	cr_assert_eq(p[0]->ol_flags & UNIC_PKT_RX_L4_CKSUM_BAD, 0, "NEEDS_CSUM marked bad: 0x%" PRIx64,
		     p[0]->ol_flags);
	unic_pkt_free(p[0]);
}

Test(virtio_csum, a_udp_checksum_request_becomes_needs_csum_at_the_udp_checksum)
{
	struct unic_pkt *p = unic_pkt_alloc(fk.pool);
	struct fv_frame out[2];
	uint8_t *f;

	cr_assert_not_null(p);
	f = unic_pkt_append(p, 60);
	cr_assert_not_null(f, "a 60-byte append to an empty packet failed");
	udp_frame(f);
	p->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_UDP_CKSUM;
	p->l2_len = 14;
	p->l3_len = 20;
	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1, "tx refused a UDP checksum request; log: %s", logcap_buf);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 2), 1, "error: %s", dev->err);
	cr_assert_eq(out[0].hdr.flags, FV_HDR_F_NEEDS_CSUM);
	cr_assert_eq(out[0].hdr.csum_start, 34, "csum_start %u", out[0].hdr.csum_start);
	cr_assert_eq(out[0].hdr.csum_offset, 6, "csum_offset %u (UDP's checksum is at 6)", out[0].hdr.csum_offset);
	cr_assert_eq(out[0].hdr.gso_type, FV_GSO_NONE);
	fv_frame_free(&out[0]);
	assert_device_happy();
}

/* A TCP/IPv4 packet of 54 header bytes and @p payload bytes (one segment). */
static struct unic_pkt *tcp4_pkt(uint16_t payload)
{
	struct unic_pkt *p = unic_pkt_alloc(fk.pool);
	uint8_t *f;

	cr_assert_not_null(p);
	f = unic_pkt_append(p, (uint16_t)(54 + payload));
	cr_assert_not_null(f, "no room for %u bytes", 54 + payload);
	memset(f, 0, 54u + payload);
	memcpy(f, "\x52\x54\x00\x12\x34\x56\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	f[14] = 0x45;
	f[16] = (uint8_t)((40 + payload) >> 8), f[17] = (uint8_t)(40 + payload);
	f[22] = 64, f[23] = 6;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[46] = 0x50; /* data offset 5 */
	for (unsigned i = 0; i < payload; i++)
		f[54 + i] = (uint8_t)i;
	p->l2_len = 14;
	p->l3_len = 20;
	p->l4_len = 20;
	return p;
}

Test(virtio_csum, a_tso_packet_goes_out_whole_with_the_gso_fields_of_its_headers)
{
	struct unic_pkt *p = tcp4_pkt(1800);
	struct fv_frame out[2];

	cr_assert(dev->accepted & FV_BIT(FV_F_HOST_TSO4), "HOST_TSO4 offered and not accepted (0x%" PRIx64 ")",
		  dev->accepted);
	p->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_TCP_SEG;
	p->tso_segsz = 500;
	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1, "tx refused a TSO packet; log: %s", logcap_buf);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 2), 1, "error: %s", dev->err);
	cr_assert_eq(out[0].len, 54 + 1800, "the device got %zu bytes: the packet must go whole", out[0].len);
	cr_assert_eq(out[0].hdr.gso_type, FV_GSO_TCPV4, "gso_type %u", out[0].hdr.gso_type);
	cr_assert_eq(out[0].hdr.gso_size, 500, "gso_size %u", out[0].hdr.gso_size);
	cr_assert_eq(out[0].hdr.flags & FV_HDR_F_NEEDS_CSUM, FV_HDR_F_NEEDS_CSUM, "TSO without NEEDS_CSUM (5.1.6.2)");
	cr_assert_eq(out[0].hdr.csum_start, 34);
	cr_assert_eq(out[0].hdr.csum_offset, 16, "csum_offset %u (TCP's checksum is at 16)", out[0].hdr.csum_offset);
	cr_assert_eq(out[0].hdr.hdr_len, 54, "hdr_len %u", out[0].hdr.hdr_len);
	fv_frame_free(&out[0]);
	assert_device_happy();
}

Test(virtio_csum, a_packet_without_offload_flags_has_an_empty_header)
{
	struct unic_pkt *p = tcp4_pkt(100);
	struct fv_frame out[2];
	static const struct fv_net_hdr zero;

	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, out, 2), 1, "error: %s", dev->err);
	cr_assert_arr_eq(&out[0].hdr, &zero, FV_NET_HDR_LEN, "flags %u gso %u csum %u/%u", out[0].hdr.flags,
			 out[0].hdr.gso_type, out[0].hdr.csum_start, out[0].hdr.csum_offset);
	fv_frame_free(&out[0]);
}

/* ---- notifications: kicks (2.6.7, 2.6.10) ---------------------------------------- */

TestSuite(virtio_notify, .init = attach_and_start, .fini = teardown);

static void refill_kicks_after_running_out(void)
{
	uint8_t f[60];
	struct unic_pkt *p[64];
	unsigned delivered = 0;
	int rc;

	make_frame(f, 60, 0);
	/* Take every posted buffer: the device then waits for a kick (QEMU). */
	while ((rc = fake_virtio_rx(dev, RXQ, NULL, f, 60)) >= 1)
		delivered++;
	cr_assert_eq(rc, -EAGAIN, "rx: %d; error: %s", rc, dev->err);
	cr_assert(dev->q[RXQ].waiting, "the device is not waiting after %u frames", delivered);
	/* The driver receives everything (and refills). */
	for (unsigned got = 0; got < delivered;) {
		uint16_t n = rx(p, 64);

		cr_assert_gt(n, 0, "%u of %u frames received, then nothing", got, delivered);
		unic_pkt_free_bulk(p, n);
		got += n;
	}
	rx(p, 64);
	cr_assert_eq(dev->q[RXQ].waiting, false,
		     "the driver posted %d buffers and never kicked: QEMU's device would stall here",
		     fake_virtio_avail_count(dev, RXQ));
	cr_assert_geq(fake_virtio_rx(dev, RXQ, NULL, f, 60), 1, "the device cannot deliver after the refill");
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
	cr_assert_eq(dev->q[TXQ].kicks, k0, "%" PRIu64 " kicks the device did not ask for",
		     dev->q[TXQ].kicks - k0);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 64), 20);
	fake_virtio_kick_policy(dev, TXQ, FV_KICK_ALWAYS);
	for (unsigned i = 0; i < 5; i++) {
		p = tx_pkt(60, i);
		cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
		cr_assert_eq(dev->q[TXQ].kicks, k0 + i + 1, "burst %u: the device asked for a kick and got none", i);
		cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 64), 1);
	}
	cr_assert_eq(dev->q[TXQ].kicks_unasked, 0);
	cr_assert_eq(dev->bad_notify, 0, "a notify write with the wrong queue index");
}

Test(virtio_notify, after_the_device_ran_out_of_rx_buffers_the_refill_kicks_it)
{
	cr_assert(dev->accepted & FV_BIT(FV_F_EVENT_IDX), "EVENT_IDX offered and not taken");
	refill_kicks_after_running_out();
}

Test(virtio_notify, no_kick_is_sent_when_the_device_asks_for_none)
{
	kicks_only_when_asked();
}

/* The same without VIRTIO_F_EVENT_IDX: VRING_USED_F_NO_NOTIFY and
 * VRING_AVAIL_F_NO_INTERRUPT in place of avail_event and used_event. */
static void attach_no_event_idx(void)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB & ~FV_BIT(FV_F_EVENT_IDX) };

	attach(&c, true, NULL);
	start(256, 1500);
	cr_assert_eq(dev->accepted & FV_BIT(FV_F_EVENT_IDX), 0);
}

TestSuite(virtio_notify_flags, .init = attach_no_event_idx, .fini = teardown);

Test(virtio_notify_flags, after_the_device_ran_out_of_rx_buffers_the_refill_kicks_it)
{
	refill_kicks_after_running_out();
}

Test(virtio_notify_flags, no_kick_is_sent_when_the_device_asks_for_none)
{
	kicks_only_when_asked();
}

/* ---- rx interrupts: arm, re-check (2.6.10) ------------------------------------------- */

/* The fake has no PCI device, so no vector: the queue's interrupt is
 * switched on by hand (what interrupt mode does with an MSI-X vector), and
 * the device's notifications are counted, not delivered. */
static void attach_intr(void)
{
	attach_and_start();
	fk.vp->rxq[0].intr_on = true;
	fk.vp->rxq[0].irq_fd = -1;
}

TestSuite(virtio_intr, .init = attach_intr, .fini = teardown);

static struct virtio_rxq *rxq0(void)
{
	return &fk.vp->rxq[0];
}

static void arming_lets_the_device_notify_and_disarming_stops_it(void)
{
	cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
	cr_assert_eq(fake_virtio_intr_suppressed(dev, RXQ), false, "armed, yet the device may not notify");
	cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
	cr_assert(fake_virtio_intr_suppressed(dev, RXQ), "disarmed, yet the device would notify");
}

static void a_frame_that_lands_before_the_arm_is_seen_by_the_re_check(void)
{
	uint8_t f[60];
	struct unic_pkt *p[2];

	make_frame(f, 60, 1);
	virtio_rx_intr_disable(rxq0());
	cr_assert_eq(virtio_rx_pending(rxq0()), false);
	deliver(f, 60, NULL);
	cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
	cr_assert(virtio_rx_pending(rxq0()), "a frame in the used ring, and the re-check after the arm misses it");
	cr_assert_eq(rx(p, 2), 1);
	unic_pkt_free(p[0]);
}

static void a_frame_after_the_arm_sends_an_interrupt_and_none_when_disarmed(void)
{
	uint8_t f[60];
	struct unic_pkt *p[2];
	uint64_t i0;

	make_frame(f, 60, 1);
	for (unsigned cycle = 0; cycle < 50; cycle++) {
		cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
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
}

Test(virtio_intr, arming_lets_the_device_notify_and_disarming_stops_it)
{
	arming_lets_the_device_notify_and_disarming_stops_it();
}

Test(virtio_intr, a_frame_that_lands_before_the_arm_is_seen_by_the_re_check)
{
	a_frame_that_lands_before_the_arm_is_seen_by_the_re_check();
}

Test(virtio_intr, a_frame_after_the_arm_sends_an_interrupt_and_none_when_disarmed)
{
	a_frame_after_the_arm_sends_an_interrupt_and_none_when_disarmed();
}

static void attach_intr_flags(void)
{
	attach_no_event_idx();
	fk.vp->rxq[0].intr_on = true;
	fk.vp->rxq[0].irq_fd = -1;
}

TestSuite(virtio_intr_flags, .init = attach_intr_flags, .fini = teardown);

Test(virtio_intr_flags, arming_lets_the_device_notify_and_disarming_stops_it)
{
	arming_lets_the_device_notify_and_disarming_stops_it();
}

Test(virtio_intr_flags, a_frame_that_lands_before_the_arm_is_seen_by_the_re_check)
{
	a_frame_that_lands_before_the_arm_is_seen_by_the_re_check();
}

Test(virtio_intr_flags, a_frame_after_the_arm_sends_an_interrupt_and_none_when_disarmed)
{
	a_frame_after_the_arm_sends_an_interrupt_and_none_when_disarmed();
}

/* ---- link and a vanished device ---------------------------------------------------- */

TestSuite(virtio_link, .init = attach_and_start, .fini = teardown);

Test(virtio_link, the_link_follows_the_device_config_status)
{
	struct unic_link l;

	cr_assert_eq(unic_port_link_get(fk.port, &l), 0);
	cr_assert(l.up, "link down with LINK_UP in the config");
	fake_virtio_set_net_status(dev, 0);
	cr_assert_eq(unic_port_link_get(fk.port, &l), 0);
	cr_assert_eq(l.up, false, "link up with the status 0");
	fake_virtio_set_net_status(dev, FV_NET_S_LINK_UP);
	cr_assert_eq(unic_port_link_get(fk.port, &l), 0);
	cr_assert(l.up);
}

Test(virtio_link, a_vanished_device_reads_as_gone_not_as_a_link)
{
	struct unic_link l;
	struct unic_port_stats st;

	fake_virtio_vanish(dev);
	cr_assert_eq(unic_port_link_get(fk.port, &l), -ENODEV, "link_get of an all-ones device");
	cr_assert(fk.vp->hw.gone, "the driver did not mark the device gone");
	cr_assert_eq(unic_port_stats_get(fk.port, &st), 0, "stats are the driver's own counts");
}

Test(virtio_link, a_device_that_vanishes_under_traffic_costs_no_crash_and_no_packet)
{
	uint8_t f[60];
	struct unic_pkt *p[8];
	make_frame(f, 60, 1);
	deliver(f, 60, NULL);
	for (unsigned i = 0; i < 4; i++) {
		struct unic_pkt *t = tx_pkt(60, i);

		cr_assert_eq(unic_tx_burst(fk.port, 0, &t, 1), 1);
	}
	fake_virtio_vanish(dev);
	/* The rings are the process's memory: what the device wrote before it
	 * went is received; a kick into a vanished BAR is lost, not fatal. */
	cr_assert_eq(rx(p, 8), 1);
	unic_pkt_free(p[0]);
	for (unsigned i = 0; i < 4; i++) {
		struct unic_pkt *t = tx_pkt(60, i);

		if (unic_tx_burst(fk.port, 0, &t, 1) != 1)
			unic_pkt_free(t);
	}
	unic_tx_reclaim(fk.port, 0);
	cr_assert_eq(unic_port_stop(fk.port), 0, "stop of a vanished device; log: %s", logcap_buf);
	cr_assert_eq(unic_pool_in_use_count(fk.pool), 0, "%u packets not back in the pool after stop",
		     unic_pool_in_use_count(fk.pool));
}

/* ---- the malicious device ------------------------------------------------------------- */

TestSuite(virtio_malicious, .init = attach_and_start, .fini = teardown);

static uint64_t xstat(const char *name)
{
	uint64_t v = 0;
	int rc = unic_port_xstat_by_name(fk.port, name, &v);

	cr_assert_eq(rc, 0, "no xstat %s (%d)", name, rc);
	return v;
}

/* The device behaves again: three good frames arrive intact, tx works. */
static void behaves_again(void)
{
	struct unic_pkt *p[64];
	uint8_t f[200], got[256];
	struct fv_ring r;
	uint16_t n;

	/* Whatever the driver still thinks is in flight, a device that
	 * behaves starts from where the driver is. */
	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	while ((n = rx(p, 64)) > 0)
		unic_pkt_free_bulk(p, n);
	dev->q[RXQ].used_idx = fk.vp->rxq[0].vq.used_idx;
	__atomic_store_n(&r.used->idx, dev->q[RXQ].used_idx, __ATOMIC_RELEASE);
	dev->q[RXQ].last_avail = (uint16_t)(__atomic_load_n(&r.avail->idx, __ATOMIC_ACQUIRE) -
					    (fk.vp->rxq[0].vq.size - fk.vp->rxq[0].vq.nb_free));
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
}

Test(virtio_malicious, a_used_id_out_of_range_is_counted_and_skipped)
{
	struct unic_pkt *p[8];
	unsigned in_use = unic_pool_in_use_count(fk.pool);

	fake_virtio_used_put(dev, RXQ, 0xffff, 60, false);
	fake_virtio_used_put(dev, RXQ, dev->q[RXQ].size, 60, false);
	fake_virtio_used_put(dev, RXQ, 0x10000 + 1, 60, true);
	cr_assert_eq(rx(p, 8), 0, "a frame from a used entry with a bad id");
	cr_assert_geq(xstat("rx_q0_bad_used") + 0, 3, "bad used entries not counted");
	cr_assert_leq(unic_pool_in_use_count(fk.pool), in_use);
	behaves_again();
}

Test(virtio_malicious, a_used_length_past_the_buffer_or_under_the_header_drops_the_frame_and_counts_it)
{
	struct fv_ring r;
	struct unic_pkt *p[8];
	uint16_t head;
	uint16_t n;

	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	head = r.avail->ring[dev->q[RXQ].last_avail % r.size];
	fake_virtio_used_put(dev, RXQ, head, 1u << 20, true);
	dev->q[RXQ].last_avail++;
	head = r.avail->ring[dev->q[RXQ].last_avail % r.size];
	fake_virtio_used_put(dev, RXQ, head, 5, true);
	dev->q[RXQ].last_avail++;
	n = rx(p, 8);
	for (uint16_t i = 0; i < n; i++)
		cr_assert_leq(p[i]->pkt_len, 1518, "a %" PRIu32 "-byte frame delivered", p[i]->pkt_len);
	unic_pkt_free_bulk(p, n);
	cr_assert_eq(n, 0, "%u frames from bad lengths", n);
	behaves_again();
}

Test(virtio_malicious, a_used_index_jumping_past_the_ring_is_counted_and_the_queue_carries_on)
{
	struct unic_pkt *p[64];
	uint16_t n;

	fake_virtio_used_idx_set(dev, RXQ, (uint16_t)(dev->q[RXQ].used_idx + 1000));
	n = rx(p, 64);
	cr_assert_leq(n, 64);
	unic_pkt_free_bulk(p, n);
	while ((n = rx(p, 64)) > 0)
		unic_pkt_free_bulk(p, n);
	behaves_again();
}

Test(virtio_malicious, a_tx_completion_given_twice_frees_the_packet_once)
{
	struct unic_pkt *p = tx_pkt(60, 1);
	struct fv_ring r;
	uint16_t head;
	unsigned in_use;

	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
	cr_assert_eq(fake_virtio_ring(dev, TXQ, &r), 0);
	head = r.avail->ring[dev->q[TXQ].last_avail % r.size];
	cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 1), 1);
	fake_virtio_used_put(dev, TXQ, head, 0, true);
	fake_virtio_used_put(dev, TXQ, head, 0, true);
	unic_tx_reclaim(fk.port, 0);
	in_use = unic_pool_in_use_count(fk.pool);
	/* The pool counts a double free as a put: it would show as fewer in use. */
	p = tx_pkt(60, 2);
	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
	cr_assert_eq(fake_virtio_tx(dev, TXQ, NULL, 1), 1, "error: %s", dev->err);
	unic_tx_reclaim(fk.port, 0);
	cr_assert_eq(unic_pool_in_use_count(fk.pool), in_use, "packets in use went from %u to %u", in_use,
		     unic_pool_in_use_count(fk.pool));
}

Test(virtio_malicious, header_garbage_is_counted_and_the_frames_behind_it_arrive)
{
	static const uint16_t bad_nb[] = { 0, 2, 300, 0xffff };
	struct unic_pkt *p[8];
	uint8_t f[60];

	make_frame(f, 60, 3);
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(bad_nb); i++) {
		/* A one-buffer frame that claims num_buffers: a device lying in
		 * its header (deliver writes its own num_buffers: overwrite). */
		struct fv_net_hdr h = { .flags = 0xff, .gso_type = 0x7f, .hdr_len = 0xffff, .gso_size = 0xffff,
					.csum_start = 0xffff, .csum_offset = 0xffff };
		struct fv_ring r;
		uint16_t head, n;
		uint8_t *buf;

		cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
		head = r.avail->ring[dev->q[RXQ].last_avail % r.size];
		deliver(f, 60, &h);
		buf = fake_virtio_iova(dev, r.desc[head].addr, 12);
		cr_assert_not_null(buf);
		memcpy(buf + 10, &bad_nb[i], 2);
		n = rx(p, 8);
		for (uint16_t k = 0; k < n; k++)
			cr_assert_leq(p[k]->pkt_len, 1518);
		unic_pkt_free_bulk(p, n);
	}
	behaves_again();
}

/* ---- receive checksum flags and LRO (5.1.6.4: the host's GSO frames) --------------- */

/* Checksum state as flags with the rx checksum offload asked (virtio_csum
 * asks for it): a partial checksum at a TCP/UDP field is flagged "not
 * computed" and left as the device wrote it. */
Test(virtio_csum, needs_csum_at_a_udp_field_is_flagged_not_computed_and_left_as_it_came)
{
	struct fv_net_hdr h = { .flags = FV_HDR_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 6 };
	struct unic_pkt *p[2];
	uint8_t f[60];

	udp_frame(f);
	f[40] = 0x12, f[41] = 0x34; /* the pseudo-header sum, as the host leaves it */
	deliver(f, 60, &h);
	cr_assert_eq(rx(p, 2), 1);
	cr_assert_eq(p[0]->ol_flags & (UNIC_PKT_RX_L4_CKSUM_NONE | UNIC_PKT_RX_L4_CKSUM_GOOD |
				       UNIC_PKT_RX_L4_CKSUM_BAD),
		     UNIC_PKT_RX_L4_CKSUM_NONE, "NEEDS_CSUM: ol_flags 0x%" PRIx64, p[0]->ol_flags);
	cr_assert_eq(((uint8_t *)unic_pkt_data(p[0]))[40], 0x12, "the partial checksum was rewritten");
	cr_assert_eq(((uint8_t *)unic_pkt_data(p[0]))[41], 0x34, "the partial checksum was rewritten");
	unic_pkt_free(p[0]);
}

/* Without the rx checksum offload: no verdict in the flags, and a partial
 * checksum completed in software (a forwarded packet leaves correct). */
static void attach_csum_unasked(void)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_GUEST_CSUM) };

	attach(&c, true, NULL);
	start(256, 1500);
}

TestSuite(virtio_csum_unasked, .init = attach_csum_unasked, .fini = teardown);

Test(virtio_csum_unasked, a_partial_checksum_is_completed_and_no_flag_is_set)
{
	struct fv_net_hdr h = { .flags = FV_HDR_F_NEEDS_CSUM, .csum_start = 34, .csum_offset = 6 };
	struct fv_net_hdr valid = { .flags = FV_HDR_F_DATA_VALID };
	struct unic_pkt *p[2];
	uint8_t f[60];
	uint32_t s = 0;

	cr_assert(dev->accepted & FV_BIT(FV_F_GUEST_CSUM), "GUEST_CSUM offered and not accepted");
	udp_frame(f);
	/* The pseudo-header sum of 10.0.0.1 -> 10.0.0.2, UDP, length 26. */
	s = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 17 + 26;
	f[40] = (uint8_t)(s >> 8), f[41] = (uint8_t)s;
	deliver(f, 60, &h);
	cr_assert_eq(rx(p, 2), 1);
	cr_assert_eq(p[0]->ol_flags, 0, "no rx checksum offload asked, yet ol_flags 0x%" PRIx64, p[0]->ol_flags);
	{
		/* The UDP checksum now verifies: the one's complement sum of
		 * the pseudo-header and the datagram is 0xffff. */
		const uint8_t *d = unic_pkt_data(p[0]);
		uint32_t v = 0x0a00 + 0x0001 + 0x0a00 + 0x0002 + 17 + 26;

		for (unsigned i = 34; i < 60; i += 2)
			v += (uint32_t)d[i] << 8 | d[i + 1];
		while (v >> 16)
			v = (v & 0xffff) + (v >> 16);
		cr_assert_eq(v, 0xffff, "the completed UDP checksum does not verify (sum 0x%x)", v);
	}
	unic_pkt_free(p[0]);
	deliver(f, 60, &valid);
	cr_assert_eq(rx(p, 2), 1);
	cr_assert_eq(p[0]->ol_flags, 0, "DATA_VALID without the offload asked: ol_flags 0x%" PRIx64,
		     p[0]->ol_flags);
	unic_pkt_free(p[0]);
}

/* A device as QEMU's toward a vnet_hdr tap: checksum and GSO both ways. */
#define FV_FEATURES_QEMU_TAP                                                                       \
	(FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_CSUM) | FV_BIT(FV_F_GUEST_CSUM) | FV_BIT(FV_F_HOST_TSO4) | \
	 FV_BIT(FV_F_HOST_TSO6) | FV_BIT(FV_F_GUEST_TSO4) | FV_BIT(FV_F_GUEST_TSO6))
#define GUEST_TSO (FV_BIT(FV_F_GUEST_TSO4) | FV_BIT(FV_F_GUEST_TSO6))

static void start_lro(uint64_t rx_offloads)
{
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = 1, .nb_txq = 1, .mtu = 1500,
				     .rx_offloads = rx_offloads };
	int rc = fake_virtio_start(&fk, 256, &pc);

	cr_assert_eq(rc, 0, "start with rx offloads 0x%" PRIx64 ": %d (%s); device error: %s; log: %s", rx_offloads,
		     rc, strerror(-rc), dev->err, logcap_buf);
}

static void attach_tap(void)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_TAP };

	attach(&c, true, NULL);
}

TestSuite(virtio_lro, .init = attach_tap, .fini = teardown);

/* A TCP frame of @p len bytes with headers of IPv4 (or IPv6) and a payload
 * pattern; the TCP checksum field holds 0xabcd (a partial sum). */
static void tcp_frame(uint8_t *f, size_t len, bool v6)
{
	size_t l3 = v6 ? 40 : 20, ip_len = len - 14;

	memset(f, 0, 14 + l3 + 20);
	memcpy(f, "\x52\x54\x00\x12\x34\x56\x02\x00\x00\x00\x00\x01", 12);
	if (v6) {
		f[12] = 0x86, f[13] = 0xdd, f[14] = 0x60;
		f[18] = (uint8_t)((ip_len - 40) >> 8), f[19] = (uint8_t)(ip_len - 40);
		f[20] = 6, f[21] = 64;
		f[22] = 0xfd, f[37] = 1, f[38] = 0xfd, f[53] = 2;
	} else {
		f[12] = 0x08, f[13] = 0x00, f[14] = 0x45;
		f[16] = (uint8_t)(ip_len >> 8), f[17] = (uint8_t)ip_len;
		f[22] = 64, f[23] = 6;
		memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	}
	f[14 + l3 + 12] = 0x50;
	f[14 + l3 + 16] = 0xab, f[14 + l3 + 17] = 0xcd;
	for (size_t i = 14 + l3 + 20; i < len; i++)
		f[i] = (uint8_t)(i * 7 + (i >> 8));
}

Test(virtio_lro, a_64_kib_gso_frame_arrives_as_one_chain_flagged_lro_with_its_segment_size)
{
	static uint8_t f[14 + 65535], got[14 + 65535 + 64];
	static const struct {
		bool v6;
		uint8_t type;
		uint16_t mss;
	} c[] = { { false, FV_GSO_TCPV4, 1448 }, { true, FV_GSO_TCPV6, 1428 } };
	struct unic_pkt *p[2];

	start_lro(UNIC_RX_OFFLOAD_TCP_LRO | UNIC_RX_OFFLOAD_SCATTER);
	cr_assert_eq(dev->accepted & GUEST_TSO, GUEST_TSO, "LRO asked, GUEST_TSO4/6 not negotiated (0x%" PRIx64 ")",
		     dev->accepted);
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(c); i++) {
		size_t len = sizeof(f);
		uint16_t l3 = c[i].v6 ? 40 : 20;
		struct fv_net_hdr h = { .flags = FV_HDR_F_NEEDS_CSUM, .gso_type = c[i].type,
					.hdr_len = (uint16_t)(14 + l3 + 20), .gso_size = c[i].mss,
					.csum_start = (uint16_t)(14 + l3), .csum_offset = 16 };

		tcp_frame(f, len, c[i].v6);
		deliver(f, len, &h);
		cr_assert_eq(rx(p, 2), 1, "case %u: the %zu-byte GSO frame did not arrive; log: %s", i, len, logcap_buf);
		cr_assert_eq(p[0]->pkt_len, len, "case %u: pkt_len %" PRIu32, i, p[0]->pkt_len);
		cr_assert_geq(p[0]->nb_segs, 32, "case %u: %u segments for 64 KiB in 2 KiB buffers", i, p[0]->nb_segs);
		pkt_bytes(p[0], got, sizeof(got));
		cr_assert_arr_eq(got, f, len, "case %u: bytes differ", i);
		cr_assert_eq(p[0]->ol_flags & (UNIC_PKT_RX_LRO | UNIC_PKT_RX_L4_CKSUM_NONE | UNIC_PKT_RX_L4_CKSUM_GOOD),
			     UNIC_PKT_RX_LRO | UNIC_PKT_RX_L4_CKSUM_NONE, "case %u: ol_flags 0x%" PRIx64, i,
			     p[0]->ol_flags);
		cr_assert_eq(p[0]->tso_segsz, c[i].mss, "case %u: tso_segsz %u", i, p[0]->tso_segsz);
		unic_pkt_free(p[0]);
	}
	cr_assert_eq(xstat("rx_q0_lro"), 2);
	/* An MTU-sized frame after them: no LRO flag, no segment size. */
	tcp_frame(f, 1514, false);
	deliver(f, 1514, NULL);
	cr_assert_eq(rx(p, 2), 1);
	cr_assert_eq(p[0]->ol_flags & UNIC_PKT_RX_LRO, 0);
	cr_assert_eq(p[0]->tso_segsz, 0, "a plain frame after an LRO one kept tso_segsz %u", p[0]->tso_segsz);
	unic_pkt_free(p[0]);
	assert_device_happy();
}

Test(virtio_lro, guest_tso_is_negotiated_only_when_lro_is_asked_and_offered_either_way)
{
	struct unic_port_info info;

	memset(&info, 0, sizeof(info));
	cr_assert_eq(unic_port_info_get(fk.port, &info), 0);
	cr_assert(info.rx_offload_capa & UNIC_RX_OFFLOAD_TCP_LRO, "tcp_lro not in the capabilities");
	start_lro(UNIC_RX_OFFLOAD_TCP_CKSUM);
	cr_assert_eq(dev->accepted & GUEST_TSO, 0, "LRO not asked, yet GUEST_TSO negotiated (0x%" PRIx64 ")",
		     dev->accepted);
	cr_assert_eq(unic_port_info_get(fk.port, &info), 0);
	cr_assert(info.rx_offload_capa & UNIC_RX_OFFLOAD_TCP_LRO, "a start without LRO took tcp_lro off the capabilities");
	unic_port_stop(fk.port);
	start_lro(UNIC_RX_OFFLOAD_TCP_LRO | UNIC_RX_OFFLOAD_SCATTER);
	cr_assert_eq(dev->accepted & GUEST_TSO, GUEST_TSO);
}

Test(virtio_lro, lro_without_scatter_is_refused_naming_scatter)
{
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = 1, .nb_txq = 1,
				     .rx_offloads = UNIC_RX_OFFLOAD_TCP_LRO };

	logcap_start(UNIC_LOG_ERR, 0);
	cr_assert_eq(unic_port_configure(fk.port, &pc), -EINVAL);
	cr_assert(logcap_has("scatter"), "the error does not name scatter: %s", logcap_buf);
}

Test(virtio_lro, rx_buffers_too_few_to_hold_a_64_kib_frame_are_refused_at_start)
{
	struct unic_pktpool_conf ppc = { .sz = sizeof(ppc), .name = "small", .count = 512, .dataroom = 512,
					 .mem = fk.mem };
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = 1, .nb_txq = 1,
				     .rx_offloads = UNIC_RX_OFFLOAD_TCP_LRO | UNIC_RX_OFFLOAD_SCATTER };
	struct unic_rxq_conf rq = { .sz = sizeof(rq), .nb_desc = 64, .numa_node = -1 };
	struct unic_txq_conf tq = { .sz = sizeof(tq), .numa_node = -1 };
	struct unic_pool *small = unic_pktpool_create(&ppc);

	cr_assert_not_null(small);
	rq.pool = small;
	logcap_start(UNIC_LOG_ERR, 0);
	cr_assert_eq(unic_port_configure(fk.port, &pc), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_rx_queue_setup(fk.port, 0, &rq), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_tx_queue_setup(fk.port, 0, &tq), 0);
	/* 64 descriptors of 512-byte buffers: a device would wait forever
	 * for room for a 64 KiB frame. */
	cr_assert_eq(unic_port_start(fk.port), -EINVAL, "started a queue that cannot hold a GSO frame");
	cr_assert(logcap_has("use more rx descriptors or a larger data room"), "log: %s", logcap_buf);
	cr_assert_eq(unic_port_rx_queue_setup(fk.port, 0, &(struct unic_rxq_conf){ .sz = sizeof(rq), .nb_desc = 64,
										    .numa_node = -1, .pool = fk.pool }),
		     0);
	cr_assert_eq(unic_port_start(fk.port), 0, "64 buffers of 2 KiB hold one: log %s", logcap_buf);
	unic_port_stop(fk.port);
	unic_port_rx_queue_setup(fk.port, 0, &(struct unic_rxq_conf){ .sz = sizeof(rq), .numa_node = -1,
								       .pool = fk.pool });
	unic_pool_destroy(small);
}

Test(virtio_lro, a_device_without_mergeable_buffers_offers_no_lro)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_TAP & ~FV_BIT(FV_F_MRG_RXBUF) };
	struct unic_port_info info;

	fake_virtio_destroy(&fk);
	attach(&c, true, NULL);
	memset(&info, 0, sizeof(info));
	cr_assert_eq(unic_port_info_get(fk.port, &info), 0);
	cr_assert_eq(info.rx_offload_capa & UNIC_RX_OFFLOAD_TCP_LRO, 0,
		     "LRO offered without mergeable buffers: a 64 KiB frame would need 64 KiB buffers");
}

/* Malicious: GSO frames the driver did not ask for, or of a kind it did not
 * negotiate, are dropped and counted; the frames behind them arrive. */
Test(virtio_lro, gso_frames_not_negotiated_or_malformed_are_dropped_counted_and_the_queue_carries_on)
{
	static uint8_t f[4000];
	struct fv_net_hdr bad[] = {
		{ .flags = FV_HDR_F_NEEDS_CSUM, .gso_type = FV_GSO_UDP, .gso_size = 1000, .csum_start = 34, .csum_offset = 6 },
		{ .flags = FV_HDR_F_NEEDS_CSUM, .gso_type = FV_GSO_TCPV4 | FV_GSO_ECN, .gso_size = 1000, .csum_start = 34, .csum_offset = 16 },
		{ .flags = FV_HDR_F_NEEDS_CSUM, .gso_type = FV_GSO_TCPV4, .gso_size = 0, .csum_start = 34, .csum_offset = 16 },
		{ .gso_type = 0x42, .gso_size = 1000 },
	};
	struct unic_pkt *p[4];

	start_lro(UNIC_RX_OFFLOAD_TCP_LRO | UNIC_RX_OFFLOAD_SCATTER);
	tcp_frame(f, sizeof(f), false);
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(bad); i++) {
		deliver(f, sizeof(f), &bad[i]);
		cr_assert_eq(rx(p, 4), 0, "bad GSO header %u: a packet was delivered", i);
	}
	cr_assert_eq(xstat("rx_q0_gso_errors"), UNIC_ARRAY_SIZE(bad));
	/* Without LRO asked, even a well-formed GSO frame is one the device
	 * must not send (GUEST_TSO4 not negotiated). */
	unic_port_stop(fk.port);
	start_lro(0);
	{
		struct fv_net_hdr h = { .flags = FV_HDR_F_NEEDS_CSUM, .gso_type = FV_GSO_TCPV4, .gso_size = 1000,
					.csum_start = 34, .csum_offset = 16 };

		deliver(f, 1000, &h);
		cr_assert_eq(rx(p, 4), 0, "a GSO frame arrived on a port that did not ask for LRO");
		cr_assert_eq(xstat("rx_q0_gso_errors"), UNIC_ARRAY_SIZE(bad) + 1, "counted %" PRIu64,
			     xstat("rx_q0_gso_errors"));
	}
	/* An over-MTU frame without GSO is oversize, LRO or not. */
	unic_port_stop(fk.port);
	start_lro(UNIC_RX_OFFLOAD_TCP_LRO | UNIC_RX_OFFLOAD_SCATTER);
	deliver(f, sizeof(f), NULL);
	cr_assert_eq(rx(p, 4), 0, "a 4000-byte frame without GSO passed an MTU of 1500");
	cr_assert_eq(xstat("rx_q0_oversize"), 1);
	behaves_again();
}

/* The descriptor calls of the port layer on a split ring: rx buffers the
 * device returned (done), posted (available); a table entry's raw words. */
Test(virtio_rxtx, rx_descriptor_status_and_used_count_follow_the_used_ring)
{
	uint8_t f[64];
	uint32_t w[4];
	struct unic_pkt *p[4];

	cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 0);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 0), UNIC_DESC_AVAIL);
	make_frame(f, sizeof(f), 1);
	deliver(f, sizeof(f), NULL);
	make_frame(f, sizeof(f), 2);
	deliver(f, sizeof(f), NULL);
	cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 2);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 1), UNIC_DESC_DONE);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 2), UNIC_DESC_AVAIL);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 256), -EINVAL, "past the ring");
	/* Tx: the used ring counts chains: no per-descriptor answer. */
	cr_assert_eq(unic_port_desc_status(fk.port, true, 0, 0), -ENOTSUP);
	/* Descriptor 0 as posted: the buffer's address, its length, WRITE. */
	cr_assert_eq(unic_port_desc_read(fk.port, false, 0, 0, w, 4), 4);
	{
		const struct virtio_rxq *rxq = fk.port->rxq[0].q;

		cr_assert_eq(((uint64_t)w[1] << 32 | w[0]), rxq->vq.desc[0].addr);
		cr_assert_eq(w[2], rxq->vq.desc[0].len);
		cr_assert(w[3] & VRING_DESC_F_WRITE, "rx buffers are device-writable: %#x", w[3]);
	}
	cr_assert_eq(rx(p, 4), 2);
	unic_pkt_free_bulk(p, 2);
	cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 0);
	assert_device_happy();
}
