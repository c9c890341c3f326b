/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port core with a fake driver defined here: lifecycle and wrong-state
 * errors, reconfiguration without leaks, references across detach, stats and
 * xstats with reset, offload refusals, pool sizing, naming.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include "unic_port_driver.h"
#include "log_capture.h"
#include "refusing_port.h"

/* ---- a fake driver ------------------------------------------------------- */

struct fake_q {
	struct unic_pool *pool;
	struct unic_pkt *held[4096]; /* rx: buffers "posted" to the NIC */
	uint16_t nb;
};

struct fake_priv {
	int configured, started, stopped, closed;
	uint64_t raw_ipackets;       /* grows on every stats read */
	uint64_t raw_x[2];
	struct fake_q rxq[UNIC_PORT_MAX_QUEUES], txq[UNIC_PORT_MAX_QUEUES];
	int filter_rc;               /* what promisc_set/allmulti_set return */
	int promisc_calls, allmulti_calls;
};

static void fake_info(struct unic_port *port, struct unic_port_info *info)
{
	(void)port;
	snprintf(info->driver, sizeof(info->driver), "fake");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "vdev");
	info->max_rxq = 4;
	info->max_txq = 4;
	info->rx_desc_min = 32;
	info->rx_desc_max = 4096;
	info->rx_desc_align = 8;
	info->rx_desc_default = 256;
	info->tx_desc_min = 32;
	info->tx_desc_max = 4096;
	info->tx_desc_align = 8;
	info->tx_desc_default = 256;
	info->min_mtu = 68;
	info->max_mtu = 9000;
	info->rx_offload_capa = UNIC_RX_OFFLOAD_VLAN_STRIP | UNIC_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = UNIC_TX_OFFLOAD_VLAN_INSERT;
}

static int fake_configure(struct unic_port *port, const struct unic_port_conf *c)
{
	(void)c;
	((struct fake_priv *)unic_port_priv(port))->configured++;
	return 0;
}

static int fake_rxq_setup(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *c, void **out)
{
	struct fake_q *fq = &((struct fake_priv *)unic_port_priv(port))->rxq[q];

	fq->pool = c->pool;
	fq->nb = c->nb_desc;
	/* Like a NIC: fill every descriptor with a buffer. */
	if (unic_pkt_alloc_bulk(c->pool, fq->held, c->nb_desc) != 0)
		return -ENOMEM;
	*out = fq;
	return 0;
}

static void fake_rxq_release(struct unic_port *port, uint16_t q, void *rxq)
{
	struct fake_q *fq = rxq;

	(void)port;
	(void)q;
	unic_pkt_free_bulk(fq->held, fq->nb);
	fq->nb = 0;
}

static int fake_txq_setup(struct unic_port *port, uint16_t q, const struct unic_txq_conf *c, void **out)
{
	struct fake_q *fq = &((struct fake_priv *)unic_port_priv(port))->txq[q];

	fq->nb = c->nb_desc;
	*out = fq;
	return 0;
}

static void fake_txq_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)port;
	(void)q;
	(void)txq;
}

static int fake_start(struct unic_port *port)
{
	((struct fake_priv *)unic_port_priv(port))->started++;
	return 0;
}

static void fake_stop(struct unic_port *port)
{
	((struct fake_priv *)unic_port_priv(port))->stopped++;
}

static void fake_close(struct unic_port *port)
{
	((struct fake_priv *)unic_port_priv(port))->closed++;
}

static int fake_stats(struct unic_port *port, struct unic_port_stats *st)
{
	struct fake_priv *p = unic_port_priv(port);

	p->raw_ipackets += 10;
	st->ipackets = p->raw_ipackets;
	st->ibytes = p->raw_ipackets * 64;
	st->q_ipackets[0] = p->raw_ipackets;
	return 0;
}

static int fake_xnames(struct unic_port *port, struct unic_xstat_name *names, unsigned max)
{
	(void)port;
	if (max >= 2) {
		snprintf(names[0].name, sizeof(names[0].name), "fake_a");
		snprintf(names[1].name, sizeof(names[1].name), "fake_b");
	}
	return 2;
}

static int fake_xget(struct unic_port *port, uint64_t *v, unsigned max)
{
	struct fake_priv *p = unic_port_priv(port);

	if (max >= 2) {
		p->raw_x[0] += 1;
		p->raw_x[1] += 100;
		v[0] = p->raw_x[0];
		v[1] = p->raw_x[1];
	}
	return 2;
}

static uint16_t fake_rx(void *q, struct unic_pkt **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	return n > 0 ? 1 : 0; /* says 1 so tests can tell started from stopped */
}

static uint16_t fake_tx(void *q, struct unic_pkt **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	return n;
}

static const struct unic_port_ops fake_ops = {
	.info_get = fake_info,
	.configure = fake_configure,
	.rx_queue_setup = fake_rxq_setup,
	.rx_queue_release = fake_rxq_release,
	.tx_queue_setup = fake_txq_setup,
	.tx_queue_release = fake_txq_release,
	.start = fake_start,
	.stop = fake_stop,
	.close = fake_close,
	.stats_get = fake_stats,
	.xstats_names = fake_xnames,
	.xstats_get = fake_xget,
	.rx_burst = fake_rx,
	.tx_burst = fake_tx,
};

static int fake_promisc(struct unic_port *port, bool on)
{
	struct fake_priv *p = unic_port_priv(port);

	(void)on;
	p->promisc_calls++;
	return p->filter_rc;
}

static int fake_allmulti(struct unic_port *port, bool on)
{
	struct fake_priv *p = unic_port_priv(port);

	(void)on;
	p->allmulti_calls++;
	return p->filter_rc;
}

/* fake_ops with the receive filter ops (filled in by filter_setup). */
static struct unic_port_ops filter_ops;

static void filter_setup(struct unic_port *port)
{
	filter_ops = fake_ops;
	filter_ops.promisc_set = fake_promisc;
	filter_ops.allmulti_set = fake_allmulti;
	port->ops = &filter_ops;
}

/* The same driver with rx interrupts whose kernel IRQ is 100 + queue: the
 * op records what it was asked. */
static int intr_calls, intr_last_q, intr_last_cpu;

static void fake_info_intr(struct unic_port *port, struct unic_port_info *info)
{
	fake_info(port, info);
	info->has_intr = true;
}

static int fake_rx_intr_affinity(struct unic_port *port, uint16_t q, int cpu)
{
	(void)port;
	intr_calls++;
	intr_last_q = q;
	intr_last_cpu = cpu;
	return 100 + q;
}

static const struct unic_port_ops fake_intr_ops = {
	.info_get = fake_info_intr,
	.configure = fake_configure,
	.rx_queue_setup = fake_rxq_setup,
	.rx_queue_release = fake_rxq_release,
	.tx_queue_setup = fake_txq_setup,
	.tx_queue_release = fake_txq_release,
	.start = fake_start,
	.stop = fake_stop,
	.close = fake_close,
	.stats_get = fake_stats,
	.rx_burst = fake_rx,
	.tx_burst = fake_tx,
	.rx_intr_affinity = fake_rx_intr_affinity,
};

static void fake_intr_setup(struct unic_port *port)
{
	port->ops = &fake_intr_ops;
	port->mac[0] = 0x02;
	port->mac[5] = 0x43;
}

static void fake_setup(struct unic_port *port)
{
	port->ops = &fake_ops;
	port->mac[0] = 0x02;
	port->mac[5] = 0x42;
}

/* ---- fixtures ------------------------------------------------------------ */

static struct unic_mem *mem;
static struct unic_pool *pool;
/* The shared capture under this file's old name. */
#define last_err logcap_last

static void setup(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "port", .count = 4096, .cache_size = 0 };

	logcap_start(UNIC_LOG_WARNING, 0);
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem);
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	cr_assert_not_null(pool);
}

static void teardown(void)
{
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "packets leaked: %u", unic_pool_in_use_count(pool));
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
	logcap_stop();
}

TestSuite(port, .init = setup, .fini = teardown);

static struct unic_port *new_port(const char *fmt)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct fake_priv), fmt, fake_setup);

	cr_assert_not_null(p);
	cr_assert_eq(unic_port_register(p), 0, "register: %s", last_err);
	return p;
}

static void finish(struct unic_port *p)
{
	unic_port_detach(p);
	unic_port_put(p);
}

static void conf_port(struct unic_port *p, uint16_t nq, uint16_t nb_desc)
{
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = nq, .nb_txq = nq };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = nb_desc, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = nb_desc, .numa_node = -1 };

	cr_assert_eq(unic_port_configure(p, &c), 0, "configure: %s", last_err);
	for (uint16_t q = 0; q < nq; q++) {
		cr_assert_eq(unic_port_rx_queue_setup(p, q, &rc), 0, "rxq %u: %s", q, last_err);
		cr_assert_eq(unic_port_tx_queue_setup(p, q, &tc), 0, "txq %u: %s", q, last_err);
	}
}

/* ---- tests ----------------------------------------------------------------- */

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

Test(port, interrupt_mode_without_interrupts_degrades_to_poll)
{
	struct unic_port *p = new_port("intr%d");
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1, .rx_mode = UNIC_RX_MODE_HYBRID };
	struct unic_port_conf got;

	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert(strstr(last_err, "no rx interrupts; using poll mode"), "%s", last_err);
	cr_assert_eq(unic_port_conf_get(p, &got), 0);
	cr_assert_eq(got.rx_mode, UNIC_RX_MODE_POLL);
	finish(p);
}

Test(port, promisc_and_allmulti_get_report_what_the_driver_took)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct fake_priv), "filt%d", filter_setup);
	struct fake_priv *fp;

	cr_assert_not_null(p);
	cr_assert_eq(unic_port_register(p), 0, "%s", last_err);
	fp = unic_port_priv(p);
	cr_assert_eq(unic_port_promisc_get(p), 0, "off until set");
	cr_assert_eq(unic_port_allmulti_get(p), 0);
	cr_assert_eq(unic_port_promisc_set(p, true), 0);
	cr_assert_eq(unic_port_promisc_get(p), 1);
	cr_assert_eq(unic_port_allmulti_get(p), 0, "the two are apart");
	cr_assert_eq(unic_port_allmulti_set(p, true), 0);
	cr_assert_eq(unic_port_allmulti_get(p), 1);
	cr_assert_eq(fp->promisc_calls, 1);
	cr_assert_eq(fp->allmulti_calls, 1);
	/* A set the driver refuses changes nothing. */
	fp->filter_rc = -EIO;
	cr_assert_eq(unic_port_promisc_set(p, false), -EIO);
	cr_assert_eq(unic_port_promisc_get(p), 1, "still on: the driver refused");
	cr_assert_eq(unic_port_allmulti_set(p, false), -EIO);
	cr_assert_eq(unic_port_allmulti_get(p), 1);
	fp->filter_rc = 0;
	cr_assert_eq(unic_port_promisc_set(p, false), 0);
	cr_assert_eq(unic_port_promisc_get(p), 0);
	cr_assert_eq(unic_port_close(p), 0);
	cr_assert_eq(unic_port_promisc_get(p), -ENODEV, "a closed port has no state to report");
	cr_assert_eq(unic_port_allmulti_get(p), -ENODEV);
	finish(p);
}

Test(port, null_and_ring_ports_filter_nothing_so_promisc_and_allmulti_read_on)
{
	const char *const specs[] = { "null7", "ring7" };

	for (unsigned i = 0; i < 2; i++) {
		struct unic_port *p = NULL;

		cr_assert_eq(unic_vdev_create(specs[i], &p), 0, "%s", last_err);
		cr_assert_eq(unic_port_promisc_get(p), 1, "%s receives every frame", specs[i]);
		cr_assert_eq(unic_port_allmulti_get(p), 1, "%s", specs[i]);
		cr_assert_eq(unic_port_promisc_set(p, false), -ENOTSUP, "no filter to turn on or off");
		cr_assert_eq(unic_port_promisc_get(p), 1, "and the answer stays true");
		cr_assert_eq(unic_port_allmulti_set(p, false), -ENOTSUP);
		cr_assert_eq(unic_port_allmulti_get(p), 1);
		finish(p);
	}
}

/* The driver is asked for a queue's IRQ only for a set-up queue of a
 * port started in interrupt or hybrid mode; otherwise the core says why. */
Test(port, a_queues_irq_is_asked_of_the_driver_only_while_it_can_have_one)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct fake_priv), "irq%d", fake_intr_setup);
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 2, .nb_txq = 2, .rx_mode = UNIC_RX_MODE_HYBRID };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 64, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 64, .numa_node = -1 };

	cr_assert_not_null(p);
	cr_assert_eq(unic_port_register(p), 0, "register: %s", last_err);
	intr_calls = 0;
	cr_assert_eq(unic_port_configure(p, &c), 0, "%s", last_err);
	for (uint16_t q = 0; q < 2; q++) {
		cr_assert_eq(unic_port_rx_queue_setup(p, q, &rc), 0, "%s", last_err);
		cr_assert_eq(unic_port_tx_queue_setup(p, q, &tc), 0, "%s", last_err);
	}
	cr_assert_eq(unic_port_rx_intr_affinity_set(p, 0, 1), -EINVAL, "configured, not started");
	cr_assert(strstr(last_err, "only while the port is started in interrupt or hybrid rx mode"), "%s", last_err);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_port_rx_intr_affinity_set(p, 2, 1), -EINVAL, "queue 2 does not exist");
	cr_assert(strstr(last_err, "rx queue 2 is not set up"), "%s", last_err);
	cr_assert_eq(unic_port_rx_intr_affinity_set(p, 1, -3), -EINVAL, "a negative CPU");
	cr_assert_eq(intr_calls, 0, "the driver was asked when it should not have been");
	cr_assert_eq(unic_port_rx_intr_affinity_set(p, 1, 3), 101);
	cr_assert_eq(intr_last_q, 1);
	cr_assert_eq(intr_last_cpu, 3);
	cr_assert_eq(unic_port_rx_intr_irq(p, 0), 100);
	cr_assert_eq(intr_last_cpu, -1, "a look-up moves nothing");
	cr_assert_eq(intr_calls, 2);
	cr_assert_eq(unic_port_stop(p), 0);
	cr_assert_eq(unic_port_rx_intr_irq(p, 0), -EINVAL, "stopped: the vectors are gone");
	cr_assert_eq(intr_calls, 2);
	finish(p);
}

Test(port, vdev_spec_errors_are_explained)
{
	struct unic_port *p;

	cr_assert_eq(unic_vdev_create("bogus0", &p), -EINVAL);
	cr_assert(strstr(last_err, "no virtual driver 'bogus'") && strstr(last_err, "ring"), "%s", last_err);
	/* The caller may be any application: the message names the spec it
	 * was given, never a command-line option it may not have. */
	cr_assert(strstr(last_err, "virtual device 'bogus0'"), "%s", last_err);
	cr_assert_null(strstr(last_err, "--vdev"), "%s", last_err);
	cr_assert_eq(unic_vdev_create("ring8,peer=nosuch0", &p), -EINVAL);
	cr_assert(strstr(last_err, "peer 'nosuch0' does not exist"), "%s", last_err);
	cr_assert_null(strstr(last_err, "--vdev"), "%s", last_err);
	cr_assert_eq(unic_vdev_create("", &p), -EINVAL);
	cr_assert_eq(unic_vdev_create("ri ng0", &p), -EINVAL);
}

Test(port, kvargs_parse_and_check)
{
	static const char *const keys[] = { "size", "peer", NULL };
	const char *v;
	uint32_t x;

	cr_assert_eq(unic_kvargs_get("size=64,peer=ring0", "peer", &v), 5);
	cr_assert_eq(strncmp(v, "ring0", 5), 0);
	cr_assert_eq(unic_kvargs_get("size=64", "peer", &v), -ENOENT);
	cr_assert_eq(unic_kvargs_check("ring", "size=64,peer=x", keys), 0);
	cr_assert_eq(unic_kvargs_check("ring", "size=64,colour=red", keys), -EINVAL);
	cr_assert(strstr(last_err, "colour=red") && strstr(last_err, "size=..."), "%s", last_err);
	cr_assert_eq(unic_kvargs_u32("null", "size=128", "size", 14, 9000, &x), 0);
	cr_assert_eq(x, 128);
	cr_assert_eq(unic_kvargs_u32("null", "size=2", "size", 14, 9000, &x), -EINVAL);
	cr_assert(strstr(last_err, "size=2 in 'size=2' is out of range; expected a number from 14 "
			 "to 9000"), "%s", last_err);
	cr_assert_eq(unic_kvargs_u32("null", "size=12x", "size", 14, 9000, &x), -EINVAL);
}

Test(port, kvargs_check_refuses_empty_items_and_checks_the_keys_after_them)
{
	static const char *const keys[] = { "size", NULL };

	cr_assert_eq(unic_kvargs_check("null", ",,bogus=1", keys), -EINVAL);
	cr_assert(strstr(last_err, "null: an empty argument in ',,bogus=1'"), "%s", last_err);
	cr_assert_eq(unic_kvargs_check("null", "size=64,", keys), -EINVAL);
	cr_assert_eq(unic_kvargs_check("null", ",size=64", keys), -EINVAL);
	cr_assert_eq(unic_kvargs_check("null", "size=64,,size=32", keys), -EINVAL);
	cr_assert_eq(unic_kvargs_check("null", "size", keys), -EINVAL);
	cr_assert(strstr(last_err, "'size' is not key=value"), "%s", last_err);
	cr_assert_eq(unic_kvargs_check("null", "=64", keys), -EINVAL);
	cr_assert_eq(unic_kvargs_check("null", "", keys), 0, "no arguments at all is fine");
	cr_assert_eq(unic_kvargs_check("null", "size=64", keys), 0);
}

Test(port, kvargs_numbers_are_decimal_and_hexadecimal_only_with_0x)
{
	static const struct { const char *args; uint32_t want; } good[] = {
		{ "size=0100", 100 }, { "size=0x40", 64 }, { "size=0X1f", 31 }, { "size=9000", 9000 },
		{ "size=00000000000000000000000064", 64 },
	};
	static const char *const bad[] = {
		"size=-1", "size=+64", "size= 64", "size=64 ", "size=64x", "size=0x", "size=",
		"size=0b101", "size=1e3", "size=0x1g", "size=99999999999999999999999",
		"size=18446744073709551680", "size=4294967360", "size=9001", "size=13",
	};
	uint32_t x;

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(good); i++) {
		cr_assert_eq(unic_kvargs_u32("null", good[i].args, "size", 14, 9000, &x), 0, "%s: %s",
			     good[i].args, last_err);
		cr_assert_eq(x, good[i].want, "%s read as %u", good[i].args, x);
	}
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(bad); i++) {
		x = 77;
		last_err[0] = '\0';
		cr_assert_eq(unic_kvargs_u32("null", bad[i], "size", 14, 9000, &x), -EINVAL, "%s", bad[i]);
		cr_assert_eq(x, 77, "%s: nothing is stored", bad[i]);
		cr_assert(strstr(last_err, "null: ") && strstr(last_err, bad[i]) &&
			  strstr(last_err, "14 to 9000"), "%s: the message names the key, the "
			  "arguments and the range: %s", bad[i], last_err);
	}
	cr_assert_eq(unic_kvargs_u32("null", "size=0x", "size", 14, 9000, &x), -EINVAL);
	cr_assert(strstr(last_err, "found no digits after 0x"), "%s", last_err);
	cr_assert_eq(unic_kvargs_u32("null", "size=64x", "size", 14, 9000, &x), -EINVAL);
	cr_assert(strstr(last_err, "found 'x' where a decimal digit belongs"), "%s", last_err);
}

Test(port, vdev_spec_with_an_empty_item_or_a_key_twice_is_refused_naming_the_spec)
{
	static const char *const bad[] = {
		"null9,,,bogus=1", "null9,", "null9,size=64,", "null9,,size=64", "null9,size=64,,",
		"null9,size", "null9,=64", "null9,size=64,size=128",
	};
	struct unic_port *p = NULL;

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(bad); i++) {
		last_err[0] = '\0';
		cr_assert_eq(unic_vdev_create(bad[i], &p), -EINVAL, "%s", bad[i]);
		cr_assert_null(p);
		cr_assert(strstr(last_err, bad[i]), "%s: the message names the spec: %s", bad[i],
			  last_err);
		cr_assert_null(unic_port_get_by_name("null9"), "%s: no port is left behind", bad[i]);
	}
	cr_assert_eq(unic_vdev_create("null9,,,bogus=1", &p), -EINVAL);
	cr_assert(strstr(last_err, "virtual device 'null9,,,bogus=1': argument 1 is empty"),
		  "%s", last_err);
	cr_assert_eq(unic_vdev_create("null9,size=64,size=128", &p), -EINVAL);
	cr_assert(strstr(last_err, "key 'size' is given twice"), "%s", last_err);
}

static int unmask_calls;

static int count_unmask(void *ctx)
{
	(void)ctx;
	unmask_calls++;
	return 0;
}

Test(port, intr_source_ack_drains_the_eventfd_and_unmasks)
{
	int fd = eventfd(0, EFD_NONBLOCK);
	struct unic_intr_source src = {
		.fd = fd, .kind = UNIC_INTR_EVENTFD, .queue_mask = 1, .unmask = count_unmask,
	};
	uint64_t one = 1;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	cr_assert_geq(fd, 0);
	cr_assert_eq(unic_intr_source_ack(&src), -EAGAIN, "nothing pending");
	cr_assert_eq(write(fd, &one, 8), 8);
	cr_assert_eq(write(fd, &one, 8), 8);
	cr_assert_eq(poll(&pfd, 1, 0), 1);
	cr_assert_eq(unic_intr_source_ack(&src), 0);
	cr_assert_eq(unmask_calls, 1);
	cr_assert_eq(poll(&pfd, 1, 0), 0, "one ack drains every pending count");
	close(fd);
}

/* ---- the grace period: stubs first, then the pollers, then the driver ----- */

struct grace_seen {
	unsigned calls;
	unsigned rx_got, tx_took;      /* what a burst did inside the release */
	int stops_at_claim;            /* the driver's stop count when the claims were made */
	unsigned stopped_before;       /* the driver's stop had run since */
	unsigned released_before;      /* the queues had been released */
};

static void grace_release(struct unic_port *port, bool tx, uint16_t q, void *owner)
{
	struct grace_seen *s = owner;
	struct fake_priv *fp = unic_port_priv(port);
	struct unic_pkt *pk[4] = { 0 };

	s->calls++;
	/* A poller that was inside a burst when the stop began has returned
	 * by now; one that calls again must reach the stubs. */
	if (tx)
		s->tx_took += unic_tx_burst(port, q, pk, 4);
	else
		s->rx_got += unic_rx_burst(port, q, pk, 4);
	s->stopped_before += fp->stopped != s->stops_at_claim;
	s->released_before += unic_port_state(port) == UNIC_PORT_CLOSED;
}

static void grace_claim_all(struct unic_port *p, struct grace_seen *s)
{
	s->stops_at_claim = ((struct fake_priv *)unic_port_priv(p))->stopped;
	for (uint16_t q = 0; q < 2; q++) {
		cr_assert_eq(unic_port_poller_claim(p, false, q, grace_release, s, NULL), 0);
		cr_assert_eq(unic_port_poller_claim(p, true, q, grace_release, s, NULL), 0);
	}
}

Test(port, stop_detach_and_device_loss_switch_to_stubs_before_any_poller_is_released)
{
	struct unic_port *p = new_port("grace%d");
	struct fake_priv *fp = unic_port_priv(p);
	struct grace_seen s = { 0 };
	struct unic_pkt *pk[4] = { 0 };

	conf_port(p, 2, 64);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_tx_burst(p, 1, pk, 4), 4, "started: the driver takes them");

	grace_claim_all(p, &s);
	cr_assert_eq(unic_port_stop(p), 0);
	cr_assert_eq(s.calls, 4, "every claim, rx and tx, is released");
	cr_assert_eq(s.tx_took + s.rx_got, 0, "a burst during the release reaches the stubs");
	cr_assert_eq(s.stopped_before, 0, "the driver stops only after every release");
	cr_assert_eq(fp->stopped, 1);

	memset(&s, 0, sizeof(s));
	cr_assert_eq(unic_port_start(p), 0);
	grace_claim_all(p, &s);
	cr_assert_eq(unic_port_device_lost(p, false), 0);
	cr_assert_eq(s.calls, 4);
	cr_assert_eq(s.tx_took + s.rx_got, 0, "device loss: stubs before the releases");
	cr_assert_eq(s.stopped_before, 0);
	cr_assert_eq(fp->stopped, 2);
	finish(p);

	p = new_port("grace%d");
	fp = unic_port_priv(p);
	memset(&s, 0, sizeof(s));
	conf_port(p, 2, 64);
	cr_assert_eq(unic_port_start(p), 0);
	grace_claim_all(p, &s);
	cr_assert_eq(unic_port_detach(p), 0);
	cr_assert_eq(s.calls, 4);
	cr_assert_eq(s.tx_took + s.rx_got, 0, "detach: stubs before the releases");
	cr_assert_eq(s.stopped_before + s.released_before, 0, "no stop, no queue release before");
	cr_assert_eq(fp->stopped, 1);
	unic_port_put(p);
}

Test(port, tx_prepare_gives_the_leading_packets_the_driver_accepts_and_why_the_next_is_refused)
{
	struct unic_port *p = refusing_port_up(pool);
	struct unic_pkt *pkts[4];
	int err = 1;

	cr_assert_not_null(p, "%s", last_err);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 4), 0);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 4, &err), 4);
	cr_assert_eq(err, 0, "every packet accepted: err is 0");
	refusing_mark_bad(pkts[2]);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 4, &err), 2, "pkts[2] is refused");
	cr_assert_eq(err, -EINVAL);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts + 3, 1, NULL), 1, "err may be NULL");
	cr_assert_eq(unic_tx_prepare(p, 0, pkts + 2, 2, NULL), 0);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 0, &err), 0);
	cr_assert_eq(refusing_priv(p)->sent + refusing_priv(p)->refused, 0, "prepare sends nothing");

	/* Stopped: the driver is not called; every packet passes (and the
	 * stub tx_burst takes none). */
	cr_assert_eq(unic_port_stop(p), 0);
	err = 1;
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 4, &err), 4);
	cr_assert_eq(err, 0);
	cr_assert_eq(unic_tx_burst(p, 0, pkts, 4), 0);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 4, &err), 2, "started again: the driver's checks");
	unic_pkt_free_bulk(pkts, 4);
	refusing_port_down(p);
}

Test(port, tx_prepare_checks_offload_headers_before_the_driver_on_a_port_offering_tso)
{
	struct unic_port *p = refusing_port_up(pool);
	struct unic_pkt *pkts[3];
	int err = 1;

	cr_assert_not_null(p, "%s", last_err);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 3), 0);
	/* The driver accepts it (a TSO segment size is all it checks), but
	 * an IPv4 checksum request without l2/l3 lengths matches no header:
	 * lib/net refuses it first. */
	pkts[1]->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM;
	cr_assert_eq(unic_tx_offload_check(pkts[1]), UNIC_TX_OFFLOAD_ERR_L2_LEN);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 3, &err), 1, "the header check did not run");
	cr_assert_eq(err, -EINVAL);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts + 2, 1, &err), 1);
	cr_assert_eq(err, 0);
	cr_assert_eq(refusing_priv(p)->sent + refusing_priv(p)->refused, 0, "prepare sends nothing");
	unic_pkt_free_bulk(pkts, 3);
	refusing_port_down(p);
}

Test(port, tx_prepare_accepts_every_packet_when_the_driver_has_no_checks)
{
	struct unic_port *p = new_port("fake%d");
	struct unic_pkt *pkts[3];
	int err = 1;

	conf_port(p, 1, 64);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 3), 0);
	refusing_mark_bad(pkts[0]);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 3, &err), 3);
	cr_assert_eq(err, 0);
	unic_pkt_free_bulk(pkts, 3);
	cr_assert_eq(unic_port_stop(p), 0);
	unic_port_close(p);
	finish(p);
}
