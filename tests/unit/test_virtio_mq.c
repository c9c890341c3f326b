/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmd/virtio's multi-queue side against the fake device of fake_virtio.h:
 * N queue pairs (receiveq n = virtqueue 2n, transmitq n = 2n + 1), the MQ
 * control commands (VQ_PAIRS_SET, RSS_CONFIG, HASH_CONFIG) as the
 * specification lays them out (5.1.6.5.5 to 5.1.6.5.7), RSS steering by
 * the device's Toeplitz hash and the 20-byte header's hash report
 * (5.1.6.4.3), and the MSI-X vector plan for few vectors. The suite
 * virtio_intx: INTx with link events, where one ISR read carries both
 * causes and the driver hands each to its consumer (virtio_intx_demux).
 *
 * The suite virtio_mq_malicious feeds the driver a device that lies: hash
 * reports that are not in the specification, MQ commands answered with an
 * error, a vector read back as NO_VECTOR. Run it in the ASan build too.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <unic/event.h>

#include <unic/pkt.h>

#include "fake_virtio.h"
#include "log_capture.h"
#include "toeplitz.h"

static struct fake_virtio fk;
static struct fake_virtio_dev *dev;

static void teardown(void)
{
	fake_virtio_destroy(&fk);
	logcap_stop();
}

/* ---- the MSI-X vector plan (pure) ------------------------------------------------ */

TestSuite(virtio_vec_plan);

Test(virtio_vec_plan, with_a_vector_per_rx_queue_and_one_for_config_each_has_its_own)
{
	struct virtio_vec_plan p;

	virtio_vec_plan(10, 4, true, &p);
	cr_expect_eq(p.nb_vec, 5, "vectors enabled: %u", p.nb_vec);
	cr_expect_eq(p.config, 0);
	for (uint16_t q = 0; q < 4; q++)
		cr_expect_eq(p.rx[q], 1 + q, "rx queue %u on vector %u", q, p.rx[q]);
	cr_expect_not(p.shared);
}

Test(virtio_vec_plan, with_fewer_vectors_than_rx_queues_config_keeps_vector_0_and_rx_queues_go_round_robin)
{
	struct virtio_vec_plan p;
	static const uint16_t want[8] = { 1, 2, 1, 2, 1, 2, 1, 2 };

	virtio_vec_plan(3, 8, true, &p);
	cr_expect_eq(p.nb_vec, 3);
	cr_expect_eq(p.config, 0);
	for (uint16_t q = 0; q < 8; q++)
		cr_expect_eq(p.rx[q], want[q], "rx queue %u on vector %u, want %u", q, p.rx[q], want[q]);
	cr_expect(p.shared);
	/* QEMU's default for one pair (4 vectors) with 4 rx queues: 3 left for rx. */
	virtio_vec_plan(4, 4, true, &p);
	cr_expect_eq(p.rx[3], 1, "rx queue 3 shares vector 1 with queue 0: %u", p.rx[3]);
}

Test(virtio_vec_plan, one_vector_goes_to_the_rx_queues_and_config_changes_get_none)
{
	struct virtio_vec_plan p;

	virtio_vec_plan(1, 4, true, &p);
	cr_expect_eq(p.nb_vec, 1);
	cr_expect_eq(p.config, VIRTIO_MSI_NO_VECTOR);
	for (uint16_t q = 0; q < 4; q++)
		cr_expect_eq(p.rx[q], 0);
	cr_expect(p.shared);
}

Test(virtio_vec_plan, no_msix_means_intx_and_no_link_interrupt_means_no_config_vector)
{
	struct virtio_vec_plan p;

	virtio_vec_plan(0, 2, true, &p);
	cr_expect_eq(p.nb_vec, 0, "no vectors: INTx");
	cr_expect_eq(p.rx[0], VIRTIO_MSI_NO_VECTOR);
	virtio_vec_plan(10, 2, false, &p);
	cr_expect_eq(p.config, VIRTIO_MSI_NO_VECTOR, "no link interrupts asked: no config vector");
	cr_expect_eq(p.rx[0], 1);
	cr_expect_eq(p.rx[1], 2);
	cr_expect_eq(p.nb_vec, 3);
}

/* ---- the RSS configuration's bytes (5.1.6.5.7.1) --------------------------------- */

TestSuite(virtio_rss_layout);

Test(virtio_rss_layout, the_rss_config_is_laid_out_field_by_field_as_the_specification_says)
{
	uint8_t key[40], buf[512];
	size_t n;

	for (unsigned i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0xa0 + i);
	n = virtio_rss_config_build(buf, sizeof(buf), 0x25, 8, 3, 4, key, 40);
	/* le32 hash_types, le16 mask, le16 unclassified, le16 table[8],
	 * le16 max_tx_vq, u8 key length, the key. */
	cr_assert_eq(n, 4 + 2 + 2 + 16 + 2 + 1 + 40, "%zu bytes", n);
	cr_expect_eq(memcmp(buf, "\x25\x00\x00\x00", 4), 0, "hash_types");
	cr_expect_eq(memcmp(buf + 4, "\x07\x00", 2), 0, "indirection_table_mask: 8 entries");
	cr_expect_eq(memcmp(buf + 6, "\x00\x00", 2), 0, "unclassified_queue: receiveq1");
	cr_expect_eq(memcmp(buf + 8, "\x00\x00\x01\x00\x02\x00\x00\x00\x01\x00\x02\x00\x00\x00\x01\x00", 16), 0,
		     "the table spreads over queues 0, 1, 2 round-robin");
	cr_expect_eq(memcmp(buf + 24, "\x04\x00", 2), 0, "max_tx_vq");
	cr_expect_eq(buf[26], 40, "hash_key_length");
	cr_expect_eq(memcmp(buf + 27, key, 40), 0, "hash_key_data");
}

Test(virtio_rss_layout, a_table_that_is_not_a_power_of_two_or_a_short_buffer_builds_nothing)
{
	uint8_t key[40] = { 0 }, buf[512];

	cr_expect_eq(virtio_rss_config_build(buf, sizeof(buf), 1, 6, 2, 2, key, 40), 0);
	cr_expect_eq(virtio_rss_config_build(buf, 60, 1, 128, 2, 2, key, 40), 0);
	cr_expect_eq(virtio_rss_config_build(buf, sizeof(buf), 1, 8, 0, 2, key, 40), 0);
}

Test(virtio_rss_layout, unic_hash_types_map_to_the_devices_and_back)
{
	cr_expect_eq(virtio_rss_types(UNIC_RSS_IPV4 | UNIC_RSS_IPV4_UDP), 0x1 | 0x4);
	cr_expect_eq(virtio_rss_types(UNIC_RSS_IPV6 | UNIC_RSS_IPV6_TCP | UNIC_RSS_IPV6_UDP), 0x8 | 0x10 | 0x20);
	cr_expect_eq(virtio_rss_types(UNIC_RSS_IPV4_TCP), 0x2);
	cr_expect_eq(virtio_rss_capa(0x1ff), UNIC_RSS_IPV4 | UNIC_RSS_IPV4_TCP | UNIC_RSS_IPV4_UDP | UNIC_RSS_IPV6 |
						     UNIC_RSS_IPV6_TCP | UNIC_RSS_IPV6_UDP,
		     "the _EX types have no unic name and are left out");
	cr_expect_eq(virtio_rss_capa(0x40), 0);
}

/* ---- features ------------------------------------------------------------------- */

Test(virtio_rss_layout, multi_queue_rss_and_hash_reports_are_taken_only_with_the_control_queue)
{
	uint64_t mq = VIRTIO_BIT(VIRTIO_NET_F_MQ) | VIRTIO_BIT(VIRTIO_NET_F_RSS) |
		      VIRTIO_BIT(VIRTIO_NET_F_HASH_REPORT);
	uint64_t base = VIRTIO_BIT(VIRTIO_F_VERSION_1);

	cr_expect_eq(virtio_features_wanted(base | mq, true) & mq, 0);
	cr_expect_eq(virtio_features_wanted(base | mq | VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ), true) & mq, mq);
}

/* ---- a vector the device does not take ------------------------------------------- */

TestSuite(virtio_mq_malicious, .fini = teardown);

Test(virtio_mq_malicious, a_queue_vector_read_back_as_no_vector_fails_the_start_naming_the_queue)
{
	struct fake_virtio_config c = { .nb_vectors = 2 };
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = 1, .nb_txq = 1, .mtu = 1500,
				     .rx_mode = UNIC_RX_MODE_POLL };
	struct unic_rxq_conf rq = { .sz = sizeof(rq), .numa_node = -1 };
	struct unic_txq_conf tq = { .sz = sizeof(tq), .numa_node = -1 };
	int rc;

	logcap_start(UNIC_LOG_WARNING, 0);
	cr_assert_eq(fake_virtio_create(&fk, &c, true, NULL), 0, "attach: %s", logcap_buf);
	dev = &fk.dev;
	rq.pool = fk.pool;
	cr_assert_eq(unic_port_configure(fk.port, &pc), 0);
	cr_assert_eq(unic_port_rx_queue_setup(fk.port, 0, &rq), 0);
	cr_assert_eq(unic_port_tx_queue_setup(fk.port, 0, &tq), 0);
	/* As the interrupt plan would for a device with more vectors: the
	 * device has 2, so vector 3 reads back NO_VECTOR (4.1.5.1.2). */
	fk.vp->rxq[0].vector = 3;
	rc = unic_port_start(fk.port);
	cr_expect_eq(rc, -EIO, "start: %d", rc);
	cr_expect(strstr(logcap_buf, "rx queue 0 (virtqueue 0) lost its interrupt") != NULL, "log: %s", logcap_buf);
	cr_expect(strstr(logcap_buf, "NO_VECTOR") != NULL, "log: %s", logcap_buf);
}

/* ---- N queue pairs on the fake device --------------------------------------------- */

#define PAIRS 4
#define FEATURES_MQ                                                                                       \
	(FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_MQ) | FV_BIT(FV_F_RSS) | FV_BIT(FV_F_HASH_REPORT))

static uint8_t test_key[40];

static void attach_mq(uint64_t features)
{
	struct fake_virtio_config c = { .features = features, .max_pairs = PAIRS, .nb_queues = 2 * PAIRS + 1,
					.nb_vectors = 2 * PAIRS + 2 };
	int rc;

	logcap_start(UNIC_LOG_WARNING, 0);
	rc = fake_virtio_create(&fk, &c, true, NULL);
	dev = &fk.dev;
	cr_assert_eq(rc, 0, "attach: %d; device error: %s; log: %s", rc, dev->err, logcap_buf);
	for (unsigned i = 0; i < sizeof(test_key); i++)
		test_key[i] = (uint8_t)(i * 37 + 11);
}

static int start_mq(uint16_t nb_rxq, uint16_t nb_txq, uint64_t rss_types, uint64_t rx_offloads)
{
	struct unic_port_conf pc = { .sz = sizeof(pc), .nb_rxq = nb_rxq, .nb_txq = nb_txq, .mtu = 1500,
				     .rx_mode = UNIC_RX_MODE_POLL, .rss_hash_types = rss_types,
				     .rx_offloads = rx_offloads };

	if (rss_types) {
		memcpy(pc.rss_key, test_key, sizeof(test_key));
		pc.rss_key_len = sizeof(test_key);
	}
	{
		/* 4 pairs of 64 descriptors: the fake's 1024-packet pool holds
		 * them (tx first: a tx queue not set up counts at 256). */
		struct unic_rxq_conf rq = { .sz = sizeof(rq), .nb_desc = 64, .numa_node = -1, .pool = fk.pool };
		struct unic_txq_conf tq = { .sz = sizeof(tq), .nb_desc = 64, .numa_node = -1 };
		int rc = unic_port_configure(fk.port, &pc);

		for (uint16_t q = 0; rc == 0 && q < nb_txq; q++)
			rc = unic_port_tx_queue_setup(fk.port, q, &tq);
		for (uint16_t q = 0; rc == 0 && q < nb_rxq; q++)
			rc = unic_port_rx_queue_setup(fk.port, q, &rq);
		return rc == 0 ? unic_port_start(fk.port) : rc;
	}
}

static void assert_device_happy(void)
{
	cr_assert_eq(dev->nb_err, 0, "the device saw %" PRIu64 " driver error(s), the first: %s", dev->nb_err,
		     dev->err);
}

/* An Ethernet/IPv4/UDP frame of flow @p i (ports and source vary). */
static size_t udp_frame(uint8_t *f, unsigned i)
{
	static const uint8_t dst[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	size_t len = 14 + 20 + 8 + 32;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x02", 6);
	f[12] = 0x08, f[13] = 0x00;
	f[14] = 0x45;
	f[16] = 0, f[17] = (uint8_t)(20 + 8 + 32);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, (uint8_t[]){ 10, 1, (uint8_t)(i >> 8), (uint8_t)i, 10, 2, 0, 1 }, 8);
	f[34] = (uint8_t)((1024 + i * 7) >> 8), f[35] = (uint8_t)(1024 + i * 7);
	f[36] = (uint8_t)((5000 + i) >> 8), f[37] = (uint8_t)(5000 + i);
	f[39] = 8 + 32;
	for (size_t k = 42; k < len; k++)
		f[k] = (uint8_t)(i + k);
	return len;
}

/* The test's own prediction: Toeplitz over src, dst, sport, dport. */
static uint32_t predict_hash(const uint8_t *f, bool ports)
{
	uint8_t in[12];

	memcpy(in, f + 26, 8);
	memcpy(in + 8, f + 34, 4);
	return toeplitz(test_key, in, ports ? 12 : 8);
}

TestSuite(virtio_mq, .fini = teardown);

Test(virtio_mq, the_port_offers_the_devices_pairs_and_its_rss_limits)
{
	struct unic_port_info info;

	attach_mq(FEATURES_MQ);
	cr_assert_eq(unic_port_info_get(fk.port, &info), 0);
	cr_expect_eq(info.max_rxq, PAIRS);
	cr_expect_eq(info.max_txq, PAIRS);
	cr_expect_eq(info.reta_size, 128);
	cr_expect_eq(info.rss_key_size, 40);
	cr_expect_eq(info.rss_hash_capa, UNIC_RSS_IPV4 | UNIC_RSS_IPV4_TCP | UNIC_RSS_IPV4_UDP | UNIC_RSS_IPV6 |
						 UNIC_RSS_IPV6_TCP | UNIC_RSS_IPV6_UDP);
	cr_expect(info.rx_offload_capa & UNIC_RX_OFFLOAD_RSS_HASH);
}

Test(virtio_mq, four_pairs_are_enabled_with_vq_pairs_set_and_each_queue_carries_its_frames)
{
	struct unic_pkt *pkts[8];
	uint8_t f[128];

	attach_mq(FEATURES_MQ & ~FV_BIT(FV_F_RSS));
	cr_assert_eq(start_mq(PAIRS, PAIRS, 0, 0), 0, "start: %s; device: %s", logcap_buf, dev->err);
	cr_expect_eq(dev->rss.nb_pairs_set, 1, "VQ_PAIRS_SET sent %u times", dev->rss.nb_pairs_set);
	cr_expect_eq(dev->rss.raw_len, 2);
	cr_expect_eq(memcmp(dev->rss.raw, "\x04\x00", 2), 0, "le16 virtqueue_pairs");
	cr_expect_eq(dev->vq_pairs, PAIRS);
	cr_expect(dev->q[2 * PAIRS].enable, "the control queue is virtqueue 2 x max_virtqueue_pairs");
	for (uint16_t q = 0; q < PAIRS; q++) {
		cr_expect(dev->q[2 * q].enable && dev->q[2 * q + 1].enable, "pair %u enabled", q);
		udp_frame(f, q);
		cr_assert_geq(fake_virtio_rx(dev, (uint16_t)(2 * q), NULL, f, 74), 1, "rx queue %u: %s", q,
			      dev->err);
	}
	for (uint16_t q = 0; q < PAIRS; q++) {
		uint16_t n = unic_rx_burst(fk.port, q, pkts, 8);

		cr_assert_eq(n, 1, "rx queue %u got %u frames", q, n);
		cr_expect_eq(pkts[0]->queue, q);
		cr_expect_eq(((const uint8_t *)unic_pkt_data(pkts[0]))[29], q, "the frame given to virtqueue %u", 2 * q);
		cr_expect_not(pkts[0]->ol_flags & UNIC_PKT_RX_RSS_HASH);
		/* Back out on tx queue q: the device takes it from virtqueue 2q+1. */
		cr_assert_eq(unic_tx_burst(fk.port, q, pkts, 1), 1);
	}
	for (uint16_t q = 0; q < PAIRS; q++) {
		struct fv_frame out;

		cr_assert_eq(fake_virtio_tx(dev, (uint16_t)(2 * q + 1), &out, 1), 1, "tx queue %u", q);
		cr_expect_eq(out.len, 74);
		cr_expect_eq(out.data[29], q);
		fv_frame_free(&out);
	}
	assert_device_happy();
}

Test(virtio_mq, fewer_rx_than_tx_queues_without_rss_are_refused)
{
	attach_mq(FEATURES_MQ);
	cr_expect_eq(start_mq(2, 4, 0, 0), -EINVAL);
	cr_expect(strstr(logcap_buf, "as many rx queues as tx queues") != NULL, "log: %s", logcap_buf);
}

Test(virtio_mq, the_rss_config_command_carries_the_key_the_table_and_the_types_byte_for_byte)
{
	uint8_t want[8 + 256 + 3 + 40];
	size_t at = 0;

	attach_mq(FEATURES_MQ);
	cr_assert_eq(start_mq(PAIRS, PAIRS, UNIC_RSS_IPV4 | UNIC_RSS_IPV4_TCP | UNIC_RSS_IPV4_UDP, 0), 0,
		     "start: %s; device: %s", logcap_buf, dev->err);
	/* 5.1.6.5.7.1, written out here byte by byte. */
	want[at++] = 0x07, want[at++] = 0, want[at++] = 0, want[at++] = 0; /* IPv4 | TCPv4 | UDPv4 */
	want[at++] = 127, want[at++] = 0;                                   /* mask: 128 entries */
	want[at++] = 0, want[at++] = 0;                                     /* unclassified: queue 0 */
	for (unsigned i = 0; i < 128; i++)
		want[at++] = (uint8_t)(i % PAIRS), want[at++] = 0;
	want[at++] = PAIRS, want[at++] = 0; /* max_tx_vq */
	want[at++] = 40;
	memcpy(want + at, test_key, 40);
	at += 40;
	cr_assert_eq(dev->rss.nb_rss_config, 1, "RSS_CONFIG sent %u times", dev->rss.nb_rss_config);
	cr_assert_eq(dev->rss.raw_len, at, "%zu bytes, want %zu", dev->rss.raw_len, at);
	for (size_t i = 0; i < at; i++)
		cr_assert_eq(dev->rss.raw[i], want[i], "byte %zu: 0x%02x, want 0x%02x", i, dev->rss.raw[i], want[i]);
	cr_expect_eq(dev->rss.nb_pairs_set, 0, "RSS_CONFIG sets the pairs; no VQ_PAIRS_SET");
	cr_expect_eq(dev->vq_pairs, PAIRS);
	assert_device_happy();
}

Test(virtio_mq, frames_land_on_the_queue_the_tests_own_toeplitz_picks_and_carry_the_hash)
{
	unsigned per_queue[PAIRS] = { 0 };
	struct unic_pkt *pkts[4];
	uint8_t f[128];

	attach_mq(FEATURES_MQ);
	cr_assert_eq(start_mq(PAIRS, PAIRS, UNIC_RSS_IPV4 | UNIC_RSS_IPV4_UDP, UNIC_RX_OFFLOAD_RSS_HASH), 0,
		     "start: %s; device: %s", logcap_buf, dev->err);
	for (unsigned i = 0; i < 200; i++) {
		size_t len = udp_frame(f, i);
		uint32_t h = predict_hash(f, true);
		uint16_t want_q = (uint16_t)((h & 127) % PAIRS), n;
		int got = fake_virtio_rx_steer(dev, f, len);

		cr_assert_eq(got, want_q, "flow %u: the device put it on queue %d, Toeplitz says %u", i, got, want_q);
		n = unic_rx_burst(fk.port, want_q, pkts, 4);
		cr_assert_eq(n, 1, "flow %u: rx queue %u gave %u frames", i, want_q, n);
		cr_expect(pkts[0]->ol_flags & UNIC_PKT_RX_RSS_HASH, "flow %u: no hash flag", i);
		cr_expect_eq(pkts[0]->rss_hash, h, "flow %u: hash 0x%08x, want 0x%08x", i, pkts[0]->rss_hash, h);
		cr_expect_eq(pkts[0]->queue, want_q);
		cr_expect_eq(pkts[0]->pkt_len, len, "the 20-byte header is not in the frame");
		per_queue[want_q]++;
		unic_pkt_free(pkts[0]);
	}
	for (unsigned q = 0; q < PAIRS; q++)
		cr_expect_gt(per_queue[q], 20, "queue %u got %u of 200 flows", q, per_queue[q]);
	assert_device_happy();
}

Test(virtio_mq, without_rss_hash_asked_the_hash_stays_out_of_the_packet)
{
	struct unic_pkt *p;
	uint8_t f[128];
	size_t len = udp_frame(f, 3);
	int q;

	attach_mq(FEATURES_MQ);
	cr_assert_eq(start_mq(PAIRS, PAIRS, UNIC_RSS_IPV4, 0), 0, "start: %s", logcap_buf);
	q = fake_virtio_rx_steer(dev, f, len);
	cr_assert_geq(q, 0);
	cr_assert_eq(unic_rx_burst(fk.port, (uint16_t)q, &p, 1), 1);
	cr_expect_not(p->ol_flags & UNIC_PKT_RX_RSS_HASH);
	cr_expect_eq(p->pkt_len, len);
	unic_pkt_free(p);
}

Test(virtio_mq, one_queue_with_hash_reports_asks_hash_config_and_the_header_is_20_bytes_both_ways)
{
	struct unic_pkt *p;
	struct fv_frame out;
	uint8_t f[128];
	size_t len = udp_frame(f, 9);

	attach_mq(FEATURES_MQ & ~FV_BIT(FV_F_RSS));
	cr_assert_eq(start_mq(1, 1, 0, UNIC_RX_OFFLOAD_RSS_HASH), 0, "start: %s; device: %s", logcap_buf, dev->err);
	cr_expect_eq(dev->rss.nb_hash_config, 1, "HASH_CONFIG sent %u times", dev->rss.nb_hash_config);
	cr_expect_eq(dev->rss.hash_types, 0x3f, "every type the device hashes: 0x%x", dev->rss.hash_types);
	cr_expect_eq(dev->rss.raw_len, 8 + 2 + 3 + 40);
	cr_expect_eq(memcmp(dev->rss.raw + 4, "\0\0\0\0\0\0\0\0", 8), 0, "reserved[4] are zero");
	cr_expect_eq(fake_virtio_hdr_len(dev), 20);
	/* A hash report put by the device reaches the packet. */
	dev->rx_hash_value = 0xdeadbeef;
	dev->rx_hash_report = FV_REPORT_UDPV4;
	cr_assert_geq(fake_virtio_rx(dev, 0, NULL, f, len), 1, "%s", dev->err);
	cr_assert_eq(unic_rx_burst(fk.port, 0, &p, 1), 1);
	cr_expect_eq(p->rss_hash, 0xdeadbeef);
	cr_expect(p->ol_flags & UNIC_PKT_RX_RSS_HASH);
	cr_expect_eq(p->pkt_len, len);
	cr_expect_eq(memcmp(unic_pkt_data(p), f, len), 0, "byte-exact behind the 20-byte header");
	/* And out: the device reads a 20-byte header, then the frame. */
	cr_assert_eq(unic_tx_burst(fk.port, 0, &p, 1), 1);
	cr_assert_eq(fake_virtio_tx(dev, 1, &out, 1), 1);
	cr_expect_eq(out.len, len, "the device found %zu bytes after the header, want %zu", out.len, len);
	cr_expect_eq(memcmp(out.data, f, len), 0);
	fv_frame_free(&out);
	assert_device_happy();
}

/* ---- a lying device ----------------------------------------------------------------- */

Test(virtio_mq_malicious, a_hash_report_outside_the_specification_is_counted_and_the_frame_still_arrives)
{
	struct unic_xstat_name names[128];
	uint64_t vals[128];
	struct unic_pkt *p;
	uint8_t f[128];
	size_t len = udp_frame(f, 1);
	int n;

	attach_mq(FEATURES_MQ & ~FV_BIT(FV_F_RSS));
	cr_assert_eq(start_mq(1, 1, 0, UNIC_RX_OFFLOAD_RSS_HASH), 0, "start: %s", logcap_buf);
	for (unsigned i = 0; i < 3; i++) {
		dev->rx_hash_value = 0x12345678 + i;
		dev->rx_hash_report = (uint16_t)(i == 0 ? 10 : i == 1 ? 0xffff : FV_REPORT_NONE);
		cr_assert_geq(fake_virtio_rx(dev, 0, NULL, f, len), 1);
		cr_assert_eq(unic_rx_burst(fk.port, 0, &p, 1), 1, "frame %u dropped", i);
		cr_expect_not(p->ol_flags & UNIC_PKT_RX_RSS_HASH, "frame %u: a hash from report %u", i,
			      dev->rx_hash_report);
		cr_expect_eq(memcmp(unic_pkt_data(p), f, len), 0);
		unic_pkt_free(p);
	}
	n = unic_port_xstats_names(fk.port, names, 128);
	cr_assert_gt(n, 0);
	cr_assert_eq(unic_port_xstats_get(fk.port, vals, 128), n);
	for (int i = 0; i < n; i++)
		if (strcmp(names[i].name, "rx_q0_hash_bad") == 0) {
			cr_expect_eq(vals[i], 2, "rx_q0_hash_bad %" PRIu64 ", want 2 (reports 10 and 0xffff)", vals[i]);
			return;
		}
	cr_assert_fail("no xstat rx_q0_hash_bad");
}

Test(virtio_mq_malicious, an_rss_config_answered_with_an_error_fails_the_start_naming_the_command)
{
	int rc;

	attach_mq(FEATURES_MQ);
	dev->mq_answer_err = true;
	rc = start_mq(PAIRS, PAIRS, UNIC_RSS_IPV4, 0);
	cr_expect_eq(rc, -EIO, "start: %d", rc);
	cr_expect(strstr(logcap_buf, "RSS configuration (MQ RSS_CONFIG)") != NULL, "log: %s", logcap_buf);
	cr_expect(strstr(logcap_buf, "VIRTIO_NET_ERR") != NULL, "log: %s", logcap_buf);
	{
		bool failed = false;

		for (unsigned i = 0; i < dev->nb_status; i++)
			failed |= (dev->status_log[i] & FV_S_FAILED) != 0;
		cr_expect(failed, "the device was never marked FAILED");
	}
}

Test(virtio_mq_malicious, a_vq_pairs_set_answered_with_an_error_fails_the_start_naming_the_command)
{
	attach_mq(FEATURES_MQ & ~FV_BIT(FV_F_RSS));
	dev->mq_answer_err = true;
	cr_expect_eq(start_mq(PAIRS, PAIRS, 0, 0), -EIO);
	cr_expect(strstr(logcap_buf, "queue pairs (MQ VQ_PAIRS_SET)") != NULL, "log: %s", logcap_buf);
}

Test(virtio_mq_malicious, a_device_whose_pairs_do_not_fit_its_virtqueues_is_refused)
{
	struct fake_virtio_config c = { .features = FEATURES_MQ, .max_pairs = 4, .nb_queues = 5 };

	logcap_start(UNIC_LOG_WARNING, 0);
	cr_expect_eq(fake_virtio_create(&fk, &c, true, NULL), -ENODEV);
	cr_expect(strstr(logcap_buf, "max_virtqueue_pairs 4 and 5 virtqueues") != NULL, "log: %s", logcap_buf);
}

/* ---- the napi sources of a shared plan ------------------------------------------------ */

Test(virtio_mq, with_three_vectors_for_four_rx_queues_each_source_carries_the_queues_sharing_it)
{
	struct unic_intr_source src[8];
	int n;

	attach_mq(FEATURES_MQ);
	cr_assert_eq(start_mq(PAIRS, PAIRS, UNIC_RSS_IPV4, 0), 0, "start: %s", logcap_buf);
	/* As virtio_intr_on() leaves it for a device with 3 vectors (the fake
	 * has no PCI device, so no interrupts of its own): eventfd numbers
	 * stand in for the vectors' eventfds. */
	virtio_vec_plan(3, PAIRS, true, &fk.vp->plan);
	fk.vp->intr_on = true;
	fk.vp->nb_irq = fk.vp->plan.nb_vec;
	for (unsigned v = 0; v < 3; v++)
		fk.vp->irq_fds[v] = 100 + (int)v;
	fk.port->conf.rx_mode = UNIC_RX_MODE_HYBRID;
	n = virtio_intr_sources(fk.port, src, 8);
	fk.port->conf.rx_mode = UNIC_RX_MODE_POLL;
	fk.vp->intr_on = false;
	for (unsigned v = 0; v < 3; v++)
		fk.vp->irq_fds[v] = -1;
	cr_assert_eq(n, 2, "%d sources; vector 0 (configuration changes) carries no rx queue", n);
	cr_expect_eq(src[0].index, 1);
	cr_expect_eq(src[0].fd, 101);
	cr_expect_eq(src[0].queue_mask, 0x5, "vector 1: queues 0 and 2, mask 0x%x", src[0].queue_mask);
	cr_expect_eq(src[1].index, 2);
	cr_expect_eq(src[1].fd, 102);
	cr_expect_eq(src[1].queue_mask, 0xa, "vector 2: queues 1 and 3, mask 0x%x", src[1].queue_mask);
}

/* ---- INTx with link events: one ISR read, two consumers ------------------------------ */

static int intx_links;

static void intx_link_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	(void)port, (void)ev;
	(*(int *)arg)++;
}

/*
 * One pair started, then the interrupt state virtio_intx_on() leaves with
 * link events on (the fake has no PCI device, so no INTx of its own): the
 * event thread's demux owns ISR and relays the queue cause to an eventfd,
 * the rx queue's one source.
 */
static void intx_setup(void)
{
	attach_mq(FEATURES_MQ & ~(FV_BIT(FV_F_RSS) | FV_BIT(FV_F_HASH_REPORT)));
	cr_assert_eq(start_mq(1, 1, 0, 0), 0, "start: %s; device: %s", logcap_buf, dev->err);
	fk.vp->intx_rx_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	cr_assert_geq(fk.vp->intx_rx_fd, 0);
	fk.vp->intr_on = fk.vp->intx = fk.vp->intx_demux = true;
	fk.vp->nb_irq = 1;
	fk.vp->cfg_gen_last = dev->bar[FV_CC_CFG_GEN];
	fk.vp->rxq[0].irq_fd = fk.vp->intx_rx_fd;
	fk.vp->rxq[0].intr_on = true;
	fk.port->conf.rx_mode = UNIC_RX_MODE_HYBRID;
	fk.port->conf.link_intr = true;
	intx_links = 0;
	cr_assert_eq(unic_event_callback_register(fk.port, UNIC_EVENT_LINK, intx_link_cb, &intx_links), 0);
	while (unic_event_dispatch() > 0) {
	}
}

static void intx_teardown(void)
{
	if (fk.port != NULL) {
		unic_event_callback_unregister(fk.port, UNIC_EVENT_LINK, intx_link_cb, &intx_links);
		close(fk.vp->intx_rx_fd);
		fk.vp->intx_rx_fd = -1;
		fk.vp->intr_on = fk.vp->intx = fk.vp->intx_demux = false;
		fk.vp->rxq[0].irq_fd = -1;
		fk.vp->rxq[0].intr_on = false;
		fk.port->conf.rx_mode = UNIC_RX_MODE_POLL;
		fk.port->conf.link_intr = false;
	}
	teardown();
}

/* The relayed rx wakes waiting in the eventfd (read, so it is empty after). */
static uint64_t relayed(void)
{
	uint64_t v = 0;

	if (read(fk.vp->intx_rx_fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		cr_assert_eq(errno, EAGAIN, "read of the relay eventfd: %s", strerror(errno));
	return v;
}

static uint64_t intx_xstat(const char *name)
{
	uint64_t v = 0;

	cr_assert_eq(unic_port_xstat_by_name(fk.port, name, &v), 0, "xstat %s", name);
	return v;
}

/* Link callbacks run by one dispatch. */
static int dispatched_links(void)
{
	int before = intx_links;

	while (unic_event_dispatch() > 0) {
	}
	return intx_links - before;
}

TestSuite(virtio_intx, .init = intx_setup, .fini = intx_teardown);

Test(virtio_intx, one_isr_read_with_both_causes_hands_each_to_its_consumer_once)
{
	struct unic_link l;
	uint64_t reads = dev->isr_reads;

	/* The cable is pulled and a frame lands before the event thread runs:
	 * one ISR value with bit 1 (configuration) and bit 0 (a used buffer). */
	fake_virtio_set_net_status(dev, 0);
	fake_virtio_interrupt(dev, 0);
	cr_assert_eq(virtio_intx_demux(fk.port), 3, "ISR read back: both causes");
	cr_expect_eq(dev->isr_reads - reads, 1, "%" PRIu64 " ISR reads for one interrupt", dev->isr_reads - reads);
	cr_expect_eq(relayed(), 1, "the rx cause woke the pollers' eventfd once");
	cr_expect_eq(intx_xstat("config_changes"), 1);
	cr_expect_eq(intx_xstat("link_events"), 1);
	cr_expect_eq(dispatched_links(), 1, "the link callback ran once");
	cr_assert_eq(unic_port_link_get(fk.port, &l), 0);
	cr_expect_not(l.up);
	/* The read cleared both: the next round finds nothing to hand on. */
	cr_expect_eq(virtio_intx_demux(fk.port), 0, "ISR not cleared by the read");
	cr_expect_eq(relayed(), 0, "an rx wake relayed twice");
	cr_expect_eq(intx_xstat("config_changes"), 1);
	cr_expect_eq(intx_xstat("link_events"), 1);
	cr_expect_eq(dispatched_links(), 0, "a link event delivered twice");
	/* And the cable back: a configuration cause alone. */
	fake_virtio_set_net_status(dev, FV_NET_S_LINK_UP);
	cr_expect_eq(virtio_intx_demux(fk.port), 2);
	cr_expect_eq(relayed(), 0, "a configuration change woke the pollers");
	cr_expect_eq(intx_xstat("link_events"), 2);
	cr_expect_eq(dispatched_links(), 1);
	cr_assert_eq(unic_port_link_get(fk.port, &l), 0);
	cr_expect(l.up);
}

Test(virtio_intx, an_rx_cause_alone_wakes_the_pollers_and_posts_no_link_event)
{
	fake_virtio_interrupt(dev, 0);
	cr_assert_eq(virtio_intx_demux(fk.port), 1);
	cr_expect_eq(relayed(), 1);
	cr_expect_eq(intx_xstat("config_changes"), 0);
	cr_expect_eq(intx_xstat("link_events"), 0);
	cr_expect_eq(dispatched_links(), 0);
}

Test(virtio_intx, a_link_down_and_up_between_two_reads_is_still_a_link_event)
{
	struct unic_link l;

	/* Both changes share one ISR bit; config_generation moved by two. */
	fake_virtio_set_net_status(dev, 0);
	fake_virtio_set_net_status(dev, FV_NET_S_LINK_UP);
	cr_assert_eq(virtio_intx_demux(fk.port), 2);
	cr_expect_eq(intx_xstat("config_changes"), 2, "two changes, one ISR bit");
	cr_expect_eq(intx_xstat("link_events"), 1, "the link reads as before, yet it went down and up");
	cr_expect_eq(dispatched_links(), 1);
	cr_assert_eq(unic_port_link_get(fk.port, &l), 0);
	cr_expect(l.up);
}

Test(virtio_intx, the_rx_source_is_the_relay_eventfd_and_the_arm_drops_a_stale_wake)
{
	struct unic_intr_source src;

	cr_assert_eq(virtio_intr_sources(fk.port, &src, 1), 1);
	cr_expect_eq(src.fd, fk.vp->intx_rx_fd, "the pollers must sleep on the relay, not on the line");
	cr_expect_eq(src.kind, UNIC_INTR_EVENTFD);
	cr_expect_null(src.unmask, "a poller's unmask would read ISR and steal the event thread's causes");
	cr_expect_eq(src.queue_mask, 1u);
	/* A wake relayed while the queue was disarmed is not the next arm's. */
	fake_virtio_interrupt(dev, 0);
	cr_assert_eq(virtio_intx_demux(fk.port), 1);
	cr_assert_eq(unic_rx_intr_enable(fk.port, 0), 0);
	cr_expect_eq(relayed(), 0, "a stale relayed wake survived the arm");
	cr_assert_eq(unic_rx_intr_disable(fk.port, 0), 0);
}

Test(virtio_intx, a_device_gone_reads_no_cause_and_wakes_nobody)
{
	fake_virtio_interrupt(dev, 0);
	fake_virtio_vanish(dev);
	cr_expect_eq(virtio_intx_demux(fk.port), 0);
	cr_expect_eq(relayed(), 0);
	cr_expect(fk.vp->hw.gone, "the driver did not mark the device gone");
}

/* ---- RSS ops through the port layer (unic_port_rss_*) ----------------------------- */

Test(virtio_mq, reta_and_hash_updates_on_a_running_port_resend_rss_config_with_the_new_table_and_key)
{
	uint16_t reta[128], back[128];
	uint64_t mask[2] = { UINT64_MAX, UINT64_MAX };
	struct unic_rss_conf r = { .types = UNIC_RSS_IPV4, .key_len = 40 };
	struct unic_port_info info;

	attach_mq(FEATURES_MQ);
	cr_assert_eq(start_mq(PAIRS, PAIRS, UNIC_RSS_IPV4 | UNIC_RSS_IPV4_TCP, 0), 0, "start: %s; device: %s",
		     logcap_buf, dev->err);
	cr_assert_eq(unic_port_info_get(fk.port, &info), 0);
	cr_assert_eq(info.reta_size, 128);
	cr_assert_eq(unic_port_rss_reta_query(fk.port, back, 128), 0);
	cr_assert_eq(back[5], 5 % PAIRS, "round-robin until set");
	/* Every entry to queue 3 but entry 0 to queue 1. */
	for (unsigned i = 0; i < 128; i++)
		reta[i] = 3;
	reta[0] = 1;
	cr_assert_eq(unic_port_rss_reta_update(fk.port, reta, mask, 128), 0, "%s", logcap_buf);
	cr_assert_eq(dev->rss.nb_rss_config, 2, "RSS_CONFIG sent again: %u", dev->rss.nb_rss_config);
	cr_assert_eq(dev->rss.table[0], 1);
	cr_assert_eq(dev->rss.table[1], 3);
	cr_assert_eq(dev->rss.table[127], 3);
	cr_assert_eq(dev->rss.hash_types, 0x03, "IPv4 and TCPv4 kept: 0x%x", dev->rss.hash_types);
	cr_assert_eq(unic_port_rss_reta_query(fk.port, back, 128), 0);
	cr_assert_eq(back[0], 1);
	cr_assert_eq(back[64], 3);
	/* A queue past the four in use is refused before the device hears of it. */
	reta[7] = PAIRS;
	cr_assert_eq(unic_port_rss_reta_update(fk.port, reta, mask, 128), -EINVAL);
	cr_assert_eq(dev->rss.nb_rss_config, 2);
	/* New types and key: the table stays. */
	for (unsigned i = 0; i < 40; i++)
		r.key[i] = (uint8_t)(0xa0 + i);
	cr_assert_eq(unic_port_rss_hash_update(fk.port, &r), 0, "%s", logcap_buf);
	cr_assert_eq(dev->rss.nb_rss_config, 3);
	cr_assert_eq(dev->rss.hash_types, 0x01);
	cr_assert_eq(dev->rss.key[0], 0xa0);
	cr_assert_eq(dev->rss.key[39], 0xa0 + 39);
	cr_assert_eq(dev->rss.table[0], 1);
	cr_assert_eq(dev->rss.table[1], 3);
	memset(&r, 0, sizeof(r));
	cr_assert_eq(unic_port_rss_hash_get(fk.port, &r), 0);
	cr_assert_eq(r.types, UNIC_RSS_IPV4);
	cr_assert_eq(r.key[0], 0xa0);
	assert_device_happy();
}
