/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmd/virtio's multi-queue side against the fake device of fake_virtio.h:
 * N queue pairs (receiveq n = virtqueue 2n, transmitq n = 2n + 1), the MQ
 * control commands (VQ_PAIRS_SET, RSS_CONFIG, HASH_CONFIG) as the
 * specification lays them out (5.1.6.5.5 to 5.1.6.5.7), RSS steering by
 * the device's Toeplitz hash and the 20-byte header's hash report
 * (5.1.6.4.3), and the MSI-X vector plan for few vectors.
 *
 * The suite virtio_mq_malicious feeds the driver a device that lies: hash
 * reports that are not in the specification, MQ commands answered with an
 * error, a vector read back as NO_VECTOR. Run it in the ASan build too.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
