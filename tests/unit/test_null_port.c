/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>

#include "log_capture.h"
#include "port_fixture.h"

static struct unic_mem *mem;
/* The shared capture under this file's old name. */
#define logbuf logcap_buf

static void setup(void)
{
	logcap_start(UNIC_LOG_WARNING, 0);
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	mem = fixture_mem();
}

static void teardown(void)
{
	unic_mem_destroy(mem);
	logcap_stop();
}

TestSuite(null_port, .init = setup, .fini = teardown);

static struct unic_pool *make_pool(uint32_t count, uint32_t cache, uint16_t dataroom)
{
	struct unic_pktpool_conf pc = {
		.sz = sizeof(pc), .name = "nulltest", .mem = mem, .count = count,
		.cache_size = cache, .numa_node = -1, .dataroom = dataroom,
	};
	struct unic_pool *p = unic_pktpool_create(&pc);

	cr_assert_not_null(p, "packet pool: %s (%s)", strerror(errno), logbuf);
	return p;
}

static struct unic_port *create(const char *spec)
{
	return fixture_port_create(spec);
}

/* nb_desc 1: the null port holds no packets, and the core's pool rule
 * (lib/port) counts descriptors. */
static void up(struct unic_port *p, uint16_t nq, struct unic_pool *pool)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = nq, .nb_txq = nq };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 1, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 1, .numa_node = -1 };
	int err;

	cr_assert_eq(unic_port_configure(p, &conf), 0, "configure: %s", logbuf);
	/* tx first: rx setup checks the pool against the tx queues' sizes. */
	for (uint16_t q = 0; q < nq; q++) {
		err = unic_port_tx_queue_setup(p, q, &tc);
		cr_assert_eq(err, 0, "tx queue %u: %s (%s)", q, strerror(-err), logbuf);
	}
	for (uint16_t q = 0; q < nq; q++) {
		err = unic_port_rx_queue_setup(p, q, &rc);
		cr_assert_eq(err, 0, "rx queue %u: %s (%s)", q, strerror(-err), logbuf);
	}
	err = unic_port_start(p);
	cr_assert_eq(err, 0, "start: %s (%s)", strerror(-err), logbuf);
}

#define down fixture_port_down

Test(null_port, rx_hands_out_fresh_packets_of_the_configured_size_and_tx_frees_them)
{
	struct unic_pool *pool = make_pool(1024, 32, 0);
	struct unic_port *p = create("null0,size=128");
	struct unic_port_stats st;
	struct unic_pkt *pkts[32];

	up(p, 4, pool);
	for (uint16_t q = 0; q < 4; q++) {
		for (unsigned round = 0; round <= q; round++) {
			uint16_t n = unic_rx_burst(p, q, pkts, 32);

			cr_assert_eq(n, 32);
			cr_assert_eq(unic_pool_in_use_count(pool), 32, "rx really allocates");
			for (unsigned i = 0; i < n; i++) {
				cr_assert_eq(pkts[i]->pkt_len, 128);
				cr_assert_eq(pkts[i]->data_len, 128);
				cr_assert_eq(pkts[i]->nb_segs, 1);
				cr_assert_eq(pkts[i]->port, unic_port_id(p));
				cr_assert_eq(pkts[i]->queue, q);
				cr_assert_eq(pkts[i]->pool, pool);
				for (unsigned k = 0; k < i; k++)
					cr_assert_neq(pkts[i], pkts[k]);
			}
			/* Send half on queue q, free the rest by hand. */
			cr_assert_eq(unic_tx_burst(p, q, pkts, 16), 16);
			unic_pkt_free_bulk(&pkts[16], 16);
			cr_assert_eq(unic_pool_in_use_count(pool), 0, "tx really frees");
		}
	}

	cr_assert_eq(unic_port_stats_get(p, &st), 0);
	cr_assert_eq(st.ipackets, 32 * (1 + 2 + 3 + 4));
	cr_assert_eq(st.ibytes, 128 * 32 * (1 + 2 + 3 + 4));
	cr_assert_eq(st.opackets, 16 * (1 + 2 + 3 + 4));
	cr_assert_eq(st.obytes, 128 * 16 * (1 + 2 + 3 + 4));
	cr_assert_eq(st.rx_nombuf, 0);
	for (unsigned q = 0; q < 4; q++) {
		cr_assert_eq(st.q_ipackets[q], 32 * (q + 1));
		cr_assert_eq(st.q_ibytes[q], 128 * 32 * (q + 1));
		cr_assert_eq(st.q_opackets[q], 16 * (q + 1));
		cr_assert_eq(st.q_obytes[q], 128 * 16 * (q + 1));
	}
	down(p);
	unic_pool_destroy(pool);
}

Test(null_port, the_default_packet_size_is_64_bytes)
{
	struct unic_pool *pool = make_pool(256, 0, 0);
	struct unic_port *p = create("null0");
	struct unic_pkt *pkt;

	up(p, 1, pool);
	cr_assert_eq(unic_rx_burst(p, 0, &pkt, 1), 1);
	cr_assert_eq(pkt->pkt_len, 64);
	cr_assert_eq(unic_tx_burst(p, 0, &pkt, 1), 1);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
	down(p);
	unic_pool_destroy(pool);
}

Test(null_port, tx_counts_the_bytes_it_is_given)
{
	struct unic_pool *pool = make_pool(256, 0, 0);
	struct unic_port *p = create("null0");
	struct unic_pkt *pkts[3];
	struct unic_port_stats st;

	up(p, 1, pool);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 3), 0);
	unic_pkt_append(pkts[0], 60);
	unic_pkt_append(pkts[1], 1000);
	unic_pkt_append(pkts[2], 1514);
	cr_assert_eq(unic_tx_burst(p, 0, pkts, 3), 3);
	cr_assert_eq(unic_port_stats_get(p, &st), 0);
	cr_assert_eq(st.opackets, 3);
	cr_assert_eq(st.obytes, 60 + 1000 + 1514);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
	down(p);
	unic_pool_destroy(pool);
}

Test(null_port, with_tx_max_len_a_longer_frame_is_refused_by_prepare_and_counted_by_tx)
{
	struct unic_pool *pool = make_pool(256, 0, 0);
	struct unic_port *p = create("null0,tx_max_len=1000");
	struct unic_pkt *pkts[3];
	struct unic_port_stats st;
	int err = 1;

	up(p, 1, pool);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 3), 0);
	unic_pkt_append(pkts[0], 60);
	unic_pkt_append(pkts[1], 1001);
	unic_pkt_append(pkts[2], 1000);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 3, &err), 1);
	cr_assert_eq(err, -EMSGSIZE);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts + 2, 1, &err), 1, "1000 bytes is not over the limit");
	cr_assert_eq(err, 0);
	/* Sent without preparing: taken, freed, counted as an error. */
	cr_assert_eq(unic_tx_burst(p, 0, pkts, 3), 3);
	cr_assert_eq(unic_port_stats_get(p, &st), 0);
	cr_assert_eq(st.opackets, 2);
	cr_assert_eq(st.obytes, 60 + 1000);
	cr_assert_eq(st.oerrors, 1);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
	down(p);
	unic_pool_destroy(pool);
}

Test(null_port, tx_max_len_out_of_range_is_refused)
{
	struct unic_port *p = NULL;

	cr_assert_eq(unic_vdev_create("null0,tx_max_len=0", &p), -EINVAL);
	cr_assert_eq(unic_vdev_create("null0,tx_max_len=65536", &p), -EINVAL);
}

Test(null_port, an_exhausted_pool_is_counted_as_rx_nombuf)
{
	struct unic_pool *pool = make_pool(50, 0, 0);
	struct unic_port *p = create("null0");
	struct unic_pkt *a[32], *b[32], *c[32];
	struct unic_port_stats st;

	up(p, 1, pool);
	cr_assert_eq(unic_rx_burst(p, 0, a, 32), 32);
	cr_assert_eq(unic_rx_burst(p, 0, b, 32), 18, "the 18 that are left are handed out");
	cr_assert_eq(unic_rx_burst(p, 0, c, 32), 0);
	cr_assert_eq(unic_port_stats_get(p, &st), 0);
	cr_assert_eq(st.ipackets, 50);
	cr_assert_eq(st.rx_nombuf, 14 + 32, "each packet a burst found no buffer for");

	unic_pkt_free_bulk(a, 32);
	unic_pkt_free_bulk(b, 18);
	cr_assert_eq(unic_rx_burst(p, 0, c, 32), 32, "better luck next round");
	unic_pkt_free_bulk(c, 32);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
	down(p);
	unic_pool_destroy(pool);
}

Test(null_port, rx_queue_setup_refuses_a_pool_too_small_for_the_packet_size)
{
	struct unic_pool *pool = make_pool(128, 0, 512);
	struct unic_port *p = create("null0,size=1024");
	/* An MTU that fits the pool, so the core's own check passes. */
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1, .mtu = 400 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 1, .numa_node = -1, .pool = pool };

	cr_assert_eq(unic_port_configure(p, &conf), 0);
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), -EINVAL);
	cr_assert(strstr(logbuf, "512") != NULL && strstr(logbuf, "1024") != NULL,
		  "the message names both sizes: %s", logbuf);
	down(p);
	unic_pool_destroy(pool);
}

Test(null_port, has_no_rx_interrupts)
{
	struct unic_pool *pool = make_pool(64, 0, 0);
	struct unic_port *p = create("null0");
	struct unic_port_info info;
	struct unic_intr_source src;

	up(p, 1, pool);
	cr_assert_eq(unic_port_info_get(p, &info), 0);
	cr_assert_not(info.has_intr);
	cr_assert(info.rx_synthetic, "receive makes packets up: the info says so");
	cr_assert_str_eq(info.driver, "null");
	cr_assert_eq(info.max_rxq, 16);
	cr_assert_eq(info.max_txq, 16);
	cr_assert_eq(unic_rx_intr_enable(p, 0), -ENOTSUP);
	cr_assert_eq(unic_port_intr_sources(p, &src, 1), -ENOTSUP);
	down(p);
	unic_pool_destroy(pool);
}

Test(null_port, the_link_is_up_at_10_gbps_and_macs_are_distinct)
{
	struct unic_port *p = create("null0");
	struct unic_port *q = create("null1");
	uint8_t m1[UNIC_ETHER_ADDR_LEN], m2[UNIC_ETHER_ADDR_LEN];
	struct unic_link link;

	cr_assert_eq(unic_port_link_get(p, &link), 0);
	cr_assert(link.up);
	cr_assert(link.full_duplex);
	cr_assert_eq(link.speed_mbps, 10000);
	cr_assert_eq(unic_port_mac_get(p, m1), 0);
	cr_assert_eq(unic_port_mac_get(q, m2), 0);
	cr_assert_eq(m1[0], 0x02, "locally administered");
	cr_assert_neq(memcmp(m1, m2, sizeof(m1)), 0);
	down(q);
	down(p);
}

static void create_fails(const char *spec, const char *const *needles)
{
	struct unic_port *p = NULL;
	int rc;

	logbuf[0] = '\0';
	rc = unic_vdev_create(spec, &p);
	cr_assert_eq(rc, -EINVAL, "unic_vdev_create(\"%s\") = %d (%s)", spec, rc, logbuf);
	for (; *needles != NULL; needles++)
		cr_assert(strstr(logbuf, *needles) != NULL,
			  "\"%s\": the message should mention \"%s\": %s", spec, *needles, logbuf);
	cr_assert_null(unic_port_get_by_name("null0"), "a failed create leaves no port behind");
}

Test(null_port, an_unknown_key_is_refused_and_named)
{
	create_fails("null0,peer=null1", (const char *[]){ "peer", NULL });
}

Test(null_port, a_size_with_a_leading_zero_is_decimal)
{
	struct unic_pool *pool = make_pool(256, 0, 0);
	struct unic_port *p = create("null0,size=010");
	struct unic_pkt *pkt;

	up(p, 1, pool);
	cr_assert_eq(unic_rx_burst(p, 0, &pkt, 1), 1);
	cr_assert_eq(pkt->pkt_len, 10, "size=010 is ten bytes, not eight (octal)");
	cr_assert_eq(unic_tx_burst(p, 0, &pkt, 1), 1);
	down(p);
	unic_pool_destroy(pool);
}

Test(null_port, empty_arguments_are_refused_and_the_keys_after_them_are_not_skipped)
{
	create_fails("null0,,,bogus=1", (const char *[]){ "null0,,,bogus=1", "empty", NULL });
	create_fails("null0,,size=abc", (const char *[]){ "null0,,size=abc", "empty", NULL });
	create_fails("null0,size=64,", (const char *[]){ "null0,size=64,", "empty", NULL });
}

Test(null_port, a_size_with_a_sign_or_trailing_characters_is_refused_naming_the_key)
{
	create_fails("null0,size=+64", (const char *[]){ "size=+64", "decimal", NULL });
	create_fails("null0,size=64k", (const char *[]){ "size=64k", "decimal", NULL });
	create_fails("null0,size=-1", (const char *[]){ "size=-1", "decimal", NULL });
}

Test(null_port, a_size_of_zero_is_refused_with_the_accepted_range)
{
	create_fails("null0,size=0", (const char *[]){ "size", "9216", NULL });
}

Test(null_port, a_size_above_a_jumbo_frame_is_refused)
{
	create_fails("null0,size=100000", (const char *[]){ "size", "100000", NULL });
}

Test(null_port, a_size_that_is_not_a_number_is_refused)
{
	create_fails("null0,size=big", (const char *[]){ "size", "big", NULL });
}
