/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver kit's queue counters as the port core sums them into
 * unic_port_stats_get: per queue and totals, with stats_reset, queue release
 * and setup again, queues not set up, and the driver's stats_get adding the
 * hardware's part. The fake driver here allocates a fresh, zeroed queue
 * object at every setup and frees it at release (the hard case for the
 * core); the null port keeps its counters across setups (the other case).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include "unic_port_driver.h"
#include "fake_ops.h"
#include "log_capture.h"
#include "port_fixture.h"

/* ---- a fake driver: every burst "moves" n packets of 100 bytes ----------- */

struct cnt_rxq {
	struct unic_rxq_counters cnt;
};

struct cnt_txq {
	struct unic_txq_counters cnt;
};

struct cnt_priv {
	uint64_t hw_missed;          /* what the "hardware" counted */
};

static void cnt_info(struct unic_port *port, struct unic_port_info *info)
{
	(void)port;
	snprintf(info->driver, sizeof(info->driver), "cntfake");
	info->max_rxq = 4;
	info->max_txq = 4;
	info->rx_desc_min = info->tx_desc_min = 1;
	info->rx_desc_max = info->tx_desc_max = 64;
	info->rx_desc_align = info->tx_desc_align = 1;
	info->rx_desc_default = info->tx_desc_default = 1;
	info->min_mtu = 68;
	info->max_mtu = 1500;
}

static int cnt_rxq_setup(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *c, void **out)
{
	struct cnt_rxq *rxq = calloc(1, sizeof(*rxq));

	(void)c;
	if (rxq == NULL)
		return -ENOMEM;
	unic_port_rxq_counters(port, q, &rxq->cnt);
	*out = rxq;
	return 0;
}

static void cnt_rxq_release(struct unic_port *port, uint16_t q, void *rxq)
{
	(void)port;
	(void)q;
	free(rxq);
}

static int cnt_txq_setup(struct unic_port *port, uint16_t q, const struct unic_txq_conf *c, void **out)
{
	struct cnt_txq *txq = calloc(1, sizeof(*txq));

	(void)c;
	if (txq == NULL)
		return -ENOMEM;
	unic_port_txq_counters(port, q, &txq->cnt);
	*out = txq;
	return 0;
}

static void cnt_txq_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)port;
	(void)q;
	free(txq);
}

/* Only the hardware's part: the queues are the core's to sum. */
static int cnt_stats(struct unic_port *port, struct unic_port_stats *st)
{
	struct cnt_priv *p = unic_port_priv(port);

	st->imissed = p->hw_missed;
	st->ierrors += p->hw_missed;
	return 0;
}

/* n packets of 100 bytes; with n == 3, one of them a bad frame (dropped and
 * counted in errors) and one found no buffer. */
static uint16_t cnt_rx(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct cnt_rxq *rxq = q;

	(void)pkts;
	if (n == 3) {
		unic_counter_add(&rxq->cnt.errors, 1);
		unic_counter_add(&rxq->cnt.nombuf, 1);
		n = 1;
	}
	unic_counter_add(&rxq->cnt.packets, n);
	unic_counter_add(&rxq->cnt.bytes, 100u * n);
	return n;
}

/* Takes every packet; with n == 3, drops one of them as refused. */
static uint16_t cnt_tx(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct cnt_txq *txq = q;
	uint16_t good = n == 3 ? 2 : n;

	(void)pkts;
	if (good < n)
		unic_counter_add(&txq->cnt.errors, (uint64_t)(n - good));
	unic_counter_add(&txq->cnt.packets, good);
	unic_counter_add(&txq->cnt.bytes, 100u * good);
	return n;
}

static const struct unic_port_ops cnt_ops = {
	.info_get = cnt_info,
	.configure = fake_op_configure,
	.rx_queue_setup = cnt_rxq_setup,
	.rx_queue_release = cnt_rxq_release,
	.tx_queue_setup = cnt_txq_setup,
	.tx_queue_release = cnt_txq_release,
	.start = fake_op_start,
	.stop = fake_op_nop,
	.close = fake_op_nop,
	.stats_get = cnt_stats,
	.rx_burst = cnt_rx,
	.tx_burst = cnt_tx,
};

static void cnt_setup_ops(struct unic_port *port)
{
	port->ops = &cnt_ops;
}

/* ---- fixtures ------------------------------------------------------------ */

static struct unic_mem *mem;
static struct unic_pool *pool;
/* The last warning or error, for assertion messages. */
#define logbuf logcap_last

static void setup(void)
{
	logcap_start(UNIC_LOG_WARNING, 0);
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	fixture_mem_pool(&mem, &pool, "cnt", 512, 0);
}

static void teardown(void)
{
	fixture_mem_pool_free(mem, pool);
	logcap_stop();
}

TestSuite(port_counters, .init = setup, .fini = teardown);

static struct unic_port *fake_create(void)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct cnt_priv), "cnt%d", cnt_setup_ops);

	cr_assert_not_null(p);
	cr_assert_eq(unic_port_register(p), 0);
	return p;
}

static void rxq_setup(struct unic_port *p, uint16_t q)
{
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 1, .numa_node = -1, .pool = pool };
	int err = unic_port_rx_queue_setup(p, q, &rc);

	cr_assert_eq(err, 0, "rx queue %u: %s (%s)", q, strerror(-err), logbuf);
}

static void txq_setup(struct unic_port *p, uint16_t q)
{
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 1, .numa_node = -1 };
	int err = unic_port_tx_queue_setup(p, q, &tc);

	cr_assert_eq(err, 0, "tx queue %u: %s (%s)", q, strerror(-err), logbuf);
}

/* Configure @p nq queues each way, set up all of them and start. */
static void up(struct unic_port *p, uint16_t nq)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = nq, .nb_txq = nq };

	cr_assert_eq(unic_port_configure(p, &conf), 0, "configure: %s", logbuf);
	for (uint16_t q = 0; q < nq; q++) {
		txq_setup(p, q);
		rxq_setup(p, q);
	}
	cr_assert_eq(unic_port_start(p), 0, "start: %s", logbuf);
}

#define down fixture_port_down

static void rx(struct unic_port *p, uint16_t q, uint16_t n)
{
	struct unic_pkt *pkts[32];

	unic_rx_burst(p, q, pkts, n);
}

static void tx(struct unic_port *p, uint16_t q, uint16_t n)
{
	struct unic_pkt *pkts[32] = { 0 };

	cr_assert_eq(unic_tx_burst(p, q, pkts, n), n);
}

static struct unic_port_stats stats(struct unic_port *p)
{
	struct unic_port_stats st;

	cr_assert_eq(unic_port_stats_get(p, &st), 0, "stats_get: %s", logbuf);
	return st;
}

/* ---- tests --------------------------------------------------------------- */

Test(port_counters, two_queues_are_summed_per_queue_and_in_total)
{
	struct unic_port *p = fake_create();
	struct unic_port_stats st;

	up(p, 2);
	rx(p, 0, 5);
	rx(p, 1, 7);
	rx(p, 1, 3);    /* one good, one bad frame, one without a buffer */
	tx(p, 0, 4);
	tx(p, 1, 3);    /* two sent, one refused */
	((struct cnt_priv *)unic_port_priv(p))->hw_missed = 2;
	st = stats(p);
	cr_assert_eq(st.q_ipackets[0], 5);
	cr_assert_eq(st.q_ipackets[1], 8);
	cr_assert_eq(st.q_ibytes[0], 500);
	cr_assert_eq(st.q_ibytes[1], 800);
	cr_assert_eq(st.q_errors[0], 0);
	cr_assert_eq(st.q_errors[1], 1);
	cr_assert_eq(st.q_opackets[0], 4);
	cr_assert_eq(st.q_opackets[1], 2);
	cr_assert_eq(st.q_obytes[1], 200);
	cr_assert_eq(st.ipackets, 13);
	cr_assert_eq(st.ibytes, 1300);
	cr_assert_eq(st.opackets, 6);
	cr_assert_eq(st.obytes, 600);
	cr_assert_eq(st.rx_nombuf, 1);
	cr_assert_eq(st.oerrors, 1);
	/* The driver's stats_get adds the hardware's part to the core's sum. */
	cr_assert_eq(st.imissed, 2);
	cr_assert_eq(st.ierrors, 1 + 2, "queue errors and the hardware's: %lu",
		     (unsigned long)st.ierrors);
	down(p);
}

Test(port_counters, stats_reset_starts_every_queue_and_total_from_zero)
{
	struct unic_port *p = fake_create();
	struct unic_port_stats st;

	up(p, 2);
	rx(p, 0, 5);
	tx(p, 1, 4);
	cr_assert_eq(unic_port_stats_reset(p), 0);
	st = stats(p);
	cr_assert_eq(st.ipackets, 0);
	cr_assert_eq(st.q_ipackets[0], 0);
	cr_assert_eq(st.opackets, 0);
	cr_assert_eq(st.q_obytes[1], 0);
	rx(p, 1, 2);
	tx(p, 1, 1);
	st = stats(p);
	cr_assert_eq(st.q_ipackets[0], 0);
	cr_assert_eq(st.q_ipackets[1], 2);
	cr_assert_eq(st.ipackets, 2);
	cr_assert_eq(st.q_opackets[1], 1);
	cr_assert_eq(st.opackets, 1);
	down(p);
}

Test(port_counters, a_queue_set_up_again_keeps_what_it_counted_and_counts_on)
{
	struct unic_port *p = fake_create();
	struct unic_port_stats st;

	up(p, 2);
	rx(p, 0, 5);
	rx(p, 1, 7);
	tx(p, 1, 4);
	cr_assert_eq(unic_port_stats_reset(p), 0);
	rx(p, 1, 1);
	/* The driver frees queue 1 and hands over fresh, zeroed counters. */
	cr_assert_eq(unic_port_stop(p), 0);
	rxq_setup(p, 1);
	txq_setup(p, 1);
	st = stats(p);
	cr_assert_eq(st.q_ipackets[1], 1, "released queue's count lost or doubled: %lu",
		     (unsigned long)st.q_ipackets[1]);
	cr_assert_eq(st.ipackets, 1);
	cr_assert_eq(st.opackets, 0);
	cr_assert_eq(unic_port_start(p), 0);
	rx(p, 1, 2);
	tx(p, 1, 1);
	st = stats(p);
	cr_assert_eq(st.q_ipackets[0], 0);
	cr_assert_eq(st.q_ipackets[1], 3);
	cr_assert_eq(st.q_ibytes[1], 300);
	cr_assert_eq(st.ipackets, 3);
	cr_assert_eq(st.q_opackets[1], 1);
	cr_assert_eq(st.opackets, 1);
	/* Fewer queues: queue 1 is released; what it counted stays. */
	cr_assert_eq(unic_port_stop(p), 0);
	{
		struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1 };

		cr_assert_eq(unic_port_configure(p, &conf), 0, "configure: %s", logbuf);
	}
	st = stats(p);
	cr_assert_eq(st.q_ipackets[1], 3);
	cr_assert_eq(st.ipackets, 3);
	cr_assert_eq(st.opackets, 1);
	down(p);
}

Test(port_counters, a_port_with_queues_not_set_up_sums_those_that_are)
{
	struct unic_port *p = fake_create();
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 3, .nb_txq = 3 };
	struct unic_port_stats st;

	cr_assert_eq(unic_port_configure(p, &conf), 0, "configure: %s", logbuf);
	rxq_setup(p, 2);
	txq_setup(p, 0);
	st = stats(p);
	cr_assert_eq(st.ipackets, 0);
	cr_assert_eq(st.opackets, 0);
	cr_assert_eq(st.imissed, 0);
	down(p);
}

Test(port_counters, the_null_port_keeps_its_counters_across_setups_and_the_sum_counts_them_once)
{
	struct unic_port *p = NULL;
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 2, .nb_txq = 2 };
	struct unic_pkt *pkts[8];
	struct unic_port_stats st;
	uint16_t n;

	cr_assert_eq(unic_vdev_create("null0,size=64", &p), 0, "%s", logbuf);
	cr_assert_eq(unic_port_configure(p, &conf), 0, "configure: %s", logbuf);
	for (uint16_t q = 0; q < 2; q++) {
		txq_setup(p, q);
		rxq_setup(p, q);
	}
	cr_assert_eq(unic_port_start(p), 0);
	n = unic_rx_burst(p, 1, pkts, 8);
	cr_assert_eq(n, 8);
	cr_assert_eq(unic_tx_burst(p, 0, pkts, n), n);
	cr_assert_eq(unic_port_stop(p), 0);
	rxq_setup(p, 1);
	txq_setup(p, 0);
	cr_assert_eq(unic_port_start(p), 0);
	n = unic_rx_burst(p, 1, pkts, 2);
	cr_assert_eq(unic_tx_burst(p, 0, pkts, n), n);
	st = stats(p);
	cr_assert_eq(st.q_ipackets[1], 10, "got %lu", (unsigned long)st.q_ipackets[1]);
	cr_assert_eq(st.ipackets, 10);
	cr_assert_eq(st.ibytes, 640);
	cr_assert_eq(st.q_opackets[0], 10);
	cr_assert_eq(st.opackets, 10);
	down(p);
}
