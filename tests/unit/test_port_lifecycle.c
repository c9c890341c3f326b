/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port core with the fake driver of port_fake.c: naming and look-up,
 * lifecycle and wrong-state errors, reconfiguration without leaks, offload
 * refusals, pool sizing and MTU, descriptor counts, stats and xstats with
 * reset, missing optional ops, references across detach.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>

#include "port_fake.h"

Test(port, name_format_takes_the_first_free_number)
{
	struct unic_port *a = new_port("fake%d"), *b = new_port("fake%d");

	cr_assert_str_eq(unic_port_name(a), "fake0");
	cr_assert_str_eq(unic_port_name(b), "fake1");
	finish(a);
	struct unic_port *c = new_port("fake%d");
	cr_assert_str_eq(unic_port_name(c), "fake0", "a freed number is reused");
	struct unic_port *dup = unic_port_alloc(0, "fake1", fake_setup);
	cr_assert_eq(unic_port_register(dup), -EEXIST);
	unic_port_put(dup);
	finish(b);
	finish(c);
}

Test(port, lookup_by_id_and_name_takes_a_reference)
{
	struct unic_port *a = new_port("look%d");
	struct unic_port *x = unic_port_get_by_name("look0");
	struct unic_port *y = unic_port_get_by_id(unic_port_id(a));

	cr_assert_eq(x, a);
	cr_assert_eq(y, a);
	unic_port_put(x);
	unic_port_put(y);
	cr_assert_null(unic_port_get_by_name("nosuch"));
	finish(a);
	cr_assert_null(unic_port_get_by_name("look0"), "a detached port leaves the list");
}

Test(port, lifecycle_in_order_works)
{
	struct unic_port *p = new_port("life%d");
	struct fake_priv *fp = unic_port_priv(p);
	struct unic_pkt *pk[4];

	cr_assert_eq(unic_port_state(p), UNIC_PORT_ALLOCATED);
	cr_assert_eq(unic_rx_burst(p, 0, pk, 4), 0, "not started: burst returns 0");
	conf_port(p, 2, 64);
	cr_assert_eq(unic_port_state(p), UNIC_PORT_READY);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_port_state(p), UNIC_PORT_STARTED);
	cr_assert_eq(unic_rx_burst(p, 1, pk, 4), 1, "started: the driver's burst runs");
	cr_assert_eq(unic_port_stop(p), 0);
	cr_assert_eq(unic_rx_burst(p, 1, pk, 4), 0);
	cr_assert_eq(unic_port_close(p), 0);
	cr_assert_eq(fp->configured, 1);
	cr_assert_eq(fp->started, 1);
	cr_assert_eq(fp->stopped, 1);
	cr_assert_eq(fp->closed, 1);
	finish(p);
}

Test(port, calls_in_the_wrong_state_are_refused_naming_the_state)
{
	struct unic_port *p = new_port("wrong%d");
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .pool = pool };
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1 };

	cr_assert_eq(unic_port_start(p), -EINVAL);
	cr_assert(strstr(last_err, "needs the port"), "%s", last_err);
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), -EINVAL);
	cr_assert(strstr(last_err, "configured or stopped") && strstr(last_err, "allocated"), "%s", last_err);
	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert_eq(unic_port_start(p), -EINVAL);
	cr_assert(strstr(last_err, "missing: rx0 tx0"), "%s", last_err);
	cr_assert_eq(unic_port_rx_queue_setup(p, 1, &rc), -EINVAL);
	cr_assert(strstr(last_err, "rx queue 1 does not exist"), "%s", last_err);
	conf_port(p, 1, 64);
	cr_assert_eq(unic_port_stop(p), -EINVAL);
	cr_assert(strstr(last_err, "needs the port started"), "%s", last_err);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_port_configure(p, &c), -EBUSY);
	cr_assert(strstr(last_err, "it is started"), "%s", last_err);
	cr_assert_eq(unic_port_close(p), -EBUSY);
	cr_assert(strstr(last_err, "stop it first"), "%s", last_err);
	cr_assert_eq(unic_port_mtu_set(p, 1400), -EBUSY);
	cr_assert(strstr(last_err, "stopped"), "%s", last_err);
	cr_assert_eq(unic_port_stop(p), 0);
	cr_assert_eq(unic_port_close(p), 0);
	cr_assert_eq(unic_port_close(p), -ENODEV);
	cr_assert_eq(unic_port_configure(p, &c), -ENODEV);
	finish(p);
}

Test(port, reconfigure_cycles_return_every_buffer)
{
	struct unic_port *p = new_port("cycle%d");

	for (int i = 0; i < 20; i++) {
		uint16_t nq = (uint16_t)(1 + i % 4), nd = (uint16_t)(64 + 8 * (i % 5));

		conf_port(p, nq, nd);
		cr_assert_eq(unic_pool_in_use_count(pool), (uint32_t)nq * nd);
		cr_assert_eq(unic_port_start(p), 0);
		cr_assert_eq(unic_port_stop(p), 0);
		if (i % 3 == 0)
			cr_assert_eq(unic_port_mtu_set(p, (uint16_t)(1000 + i)), 0);
	}
	/* A queue set up again while stopped gives its old buffers back. */
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 128, .pool = pool, .numa_node = -1 };
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), 0);
	cr_assert_eq(unic_port_close(p), 0);
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "close must release every queue's buffers");
	finish(p);
}

Test(port, unsupported_offloads_are_refused_by_name)
{
	struct unic_port *p = new_port("offl%d");
	struct unic_port_conf c = {
		.sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1,
		.rx_offloads = UNIC_RX_OFFLOAD_VLAN_STRIP | UNIC_RX_OFFLOAD_TCP_CKSUM | UNIC_RX_OFFLOAD_RSS_HASH,
	};

	cr_assert_eq(unic_port_configure(p, &c), -EINVAL);
	cr_assert(strstr(last_err, "tcp_cksum,rss_hash"), "%s", last_err);
	cr_assert(strstr(last_err, "supports: vlan_strip,scatter"), "%s", last_err);
	cr_assert_null(strstr(last_err, "0x"), "no raw bitmask: %s", last_err);
	c.rx_offloads = 0;
	c.tx_offloads = UNIC_TX_OFFLOAD_TCP_TSO;
	cr_assert_eq(unic_port_configure(p, &c), -EINVAL);
	cr_assert(strstr(last_err, "tx offloads") && strstr(last_err, "tcp_tso"), "%s", last_err);
	finish(p);
}

Test(port, offload_names_round_trip)
{
	uint64_t f = 0;
	char buf[256];

	cr_assert_eq(unic_offload_from_name("tcp_tso", &f), 0);
	cr_assert_eq(f, UNIC_TX_OFFLOAD_TCP_TSO);
	cr_assert_str_eq(unic_offload_name(UNIC_RX_OFFLOAD_VLAN_STRIP), "vlan_strip");
	cr_assert_eq(unic_offload_from_name("warp_drive", &f), -EINVAL);
	cr_assert(strstr(last_err, "warp_drive") && strstr(last_err, "vlan_insert"), "%s", last_err);
	unic_offload_names(UNIC_RX_OFFLOAD_SCATTER | UNIC_TX_OFFLOAD_MULTI_SEGS, buf, sizeof(buf));
	cr_assert_str_eq(buf, "scatter,multi_segs");
}

Test(port, a_pool_too_small_is_refused_with_the_numbers)
{
	struct unic_port *p = new_port("small%d");
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "tiny", .mem = mem, .count = 300 };
	struct unic_pool *tiny = unic_pktpool_create(&pc);
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 256, .pool = tiny };

	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), -ENOBUFS);
	cr_assert(strstr(last_err, "has 300 packets") && strstr(last_err, "rx descriptors 256") &&
		  strstr(last_err, "tx descriptors 256") && strstr(last_err, "at least 544"), "%s", last_err);
	finish(p);
	unic_pool_destroy(tiny);
}

Test(port, mtu_beyond_the_buffer_needs_scatter)
{
	struct unic_port *p = new_port("jumbo%d");
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1, .mtu = 9000 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 64, .pool = pool };

	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), -EINVAL);
	cr_assert(strstr(last_err, "scatter"), "%s", last_err);
	c.rx_offloads = UNIC_RX_OFFLOAD_SCATTER;
	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), 0);
	c.mtu = 9500;
	cr_assert_eq(unic_port_configure(p, &c), -EINVAL);
	cr_assert(strstr(last_err, "68..9000"), "%s", last_err);
	finish(p);
}

/* The same rule when the MTU changes after the rx queues were set up. */
Test(port, an_mtu_set_later_must_fit_the_rx_buffers_too)
{
	struct unic_port *p = new_port("jumbo%d");
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 64, .pool = pool };

	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), 0);
	cr_assert_eq(unic_port_mtu_set(p, 9000), -EINVAL);
	cr_assert(strstr(last_err, "rx queue 0") && strstr(last_err, "scatter"), "%s", last_err);
	cr_assert_eq(unic_port_mtu_set(p, 1500), 0);
	c.rx_offloads = UNIC_RX_OFFLOAD_SCATTER;
	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), 0);
	cr_assert_eq(unic_port_mtu_set(p, 9000), 0);
	finish(p);
}

Test(port, descriptor_counts_are_checked)
{
	struct unic_port *p = new_port("desc%d");
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 100, .pool = pool };

	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert_eq(unic_port_rx_queue_setup(p, 0, &rc), -EINVAL);
	cr_assert(strstr(last_err, "100 rx descriptors") && strstr(last_err, "32..4096 in multiples of 8"),
		  "%s", last_err);
	c.nb_rxq = 5;
	cr_assert_eq(unic_port_configure(p, &c), -EINVAL);
	cr_assert(strstr(last_err, "1..4 rx"), "%s", last_err);
	finish(p);
}

Test(port, stats_grow_and_reset_only_on_request)
{
	struct unic_port *p = new_port("stats%d");
	struct unic_port_stats st;
	uint64_t v;

	conf_port(p, 1, 64);
	cr_assert_eq(unic_port_stats_get(p, &st), 0);
	cr_assert_eq(st.ipackets, 10);
	cr_assert_eq(unic_port_stats_get(p, &st), 0);
	cr_assert_eq(st.ipackets, 20);
	cr_assert_eq(st.ibytes, 20 * 64);
	cr_assert_eq(unic_port_stats_reset(p), 0); /* raw 30 becomes the base */
	cr_assert_eq(unic_port_stats_get(p, &st), 0);
	cr_assert_eq(st.ipackets, 10);
	cr_assert_eq(st.q_ipackets[0], 10);
	/* xstats: generic names first, then the driver's, reset with the rest. */
	cr_assert_eq(unic_port_xstat_by_name(p, "fake_b", &v), 0);
	cr_assert_eq(v, 100, "one read after reset: +100");
	cr_assert_eq(unic_port_xstat_by_name(p, "rx_good_packets", &v), 0);
	cr_assert_eq(v, 30, "raw 60 (every fake read adds 10) less the base 30");
	cr_assert_eq(unic_port_xstat_by_name(p, "rx_q0_packets", &v), 0);
	cr_assert_eq(unic_port_xstat_by_name(p, "no_such_counter", &v), -ENOENT);
	struct unic_xstat_name names[64];
	int n = unic_port_xstats_names(p, names, 64);
	cr_assert_eq(n, 8 + 3 + 2 + 2, "8 generic, 3 per rx queue, 2 per tx queue, 2 driver: %d", n);
	cr_assert_str_eq(names[0].name, "rx_good_packets");
	cr_assert_str_eq(names[n - 1].name, "fake_b");
	cr_assert_eq(unic_port_xstats_names(p, NULL, 0), n);
	finish(p);
}

Test(port, missing_optional_ops_return_enotsup)
{
	struct unic_port *p = new_port("opt%d");
	struct unic_link link;
	struct unic_coalesce co = { 0 };
	uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 1 }, buf[4];

	cr_assert_eq(unic_port_link_get(p, &link), -ENOTSUP);
	cr_assert_eq(unic_port_promisc_set(p, true), -ENOTSUP);
	cr_assert_eq(unic_port_coalesce_set(p, &co), -ENOTSUP);
	cr_assert_eq(unic_port_eeprom_get(p, 0, 4, buf), -ENOTSUP);
	cr_assert_eq(unic_port_mac_set(p, mac), -ENOTSUP);
	mac[0] = 0x01;
	cr_assert_eq(unic_port_mac_set(p, mac), -EINVAL, "multicast refused before the driver");
	cr_assert_eq(unic_port_mac_get(p, mac), 0);
	cr_assert_eq(mac[5], 0x42);
	{
		static const uint8_t groups[2][6] = { { 0x01, 0, 0x5e, 0, 0, 1 }, { 0x02, 0, 0, 0, 0, 1 } };

		cr_assert_eq(unic_port_mc_addr_list_set(p, groups, 1), -ENOTSUP);
		cr_assert_eq(unic_port_mc_addr_list_set(p, groups, 2), -EINVAL,
			     "a unicast address in the multicast list refused before the driver");
		cr_assert_eq(unic_port_mc_addr_list_set(p, groups, UNIC_PORT_MC_ADDR_MAX + 1), -EINVAL);
		cr_assert_eq(unic_port_mc_addr_list_set(p, NULL, 1), -EINVAL);
		cr_assert_eq(unic_port_mc_addr_list_set(p, NULL, 0), -ENOTSUP);
	}
	cr_assert_eq(unic_port_msglevel_set(p, 9), -EINVAL);
	cr_assert_eq(unic_port_msglevel_set(p, UNIC_LOG_DEBUG), 0);
	cr_assert_eq(unic_port_msglevel_get(p), UNIC_LOG_DEBUG);
	finish(p);
}

/* A reader holding a reference loops on stats while the port is detached
 * and its owner lets go: under ASan any touch of freed memory fails. */
struct reader {
	struct unic_port *port;
	uint64_t ok, gone;
	volatile int stop;
};

static void *reader_main(void *v)
{
	struct reader *r = v;
	struct unic_port_stats st;

	while (!r->stop) {
		int rc = unic_port_stats_get(r->port, &st);

		if (rc == 0)
			r->ok++;
		else if (rc == -ENODEV)
			r->gone++;
		else
			break;
	}
	unic_port_put(r->port);
	return NULL;
}

Test(port, a_reader_with_a_reference_survives_detach_and_free)
{
	for (int round = 0; round < 50; round++) {
		struct unic_port *p = new_port("rd%d");
		struct reader r = { .port = unic_port_get(p) };
		pthread_t th;

		conf_port(p, 1, 64);
		cr_assert_eq(unic_port_start(p), 0);
		pthread_create(&th, NULL, reader_main, &r);
		while (r.ok == 0)
			sched_yield();
		cr_assert_eq(unic_port_detach(p), 0);
		unic_port_put(p); /* the owner's reference: only the reader's is left */
		while (r.gone == 0)
			sched_yield();
		r.stop = 1;
		pthread_join(th, NULL);
		cr_assert_gt(r.ok, 0);
		cr_assert_gt(r.gone, 0, "after detach the reader gets -ENODEV");
	}
}
