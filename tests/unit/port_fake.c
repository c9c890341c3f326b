/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port core's fake driver and fixtures, shared by test_port_*.c: see
 * port_fake.h.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "fake_ops.h"
#include "port_fake.h"
#include "port_fixture.h"

/* ---- a fake driver ------------------------------------------------------- */

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
	.tx_queue_release = fake_op_queue_release,
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

void filter_setup(struct unic_port *port)
{
	filter_ops = fake_ops;
	filter_ops.promisc_set = fake_promisc;
	filter_ops.allmulti_set = fake_allmulti;
	port->ops = &filter_ops;
}

/* The same driver with rx interrupts whose kernel IRQ is 100 + queue: the
 * op records what it was asked. */
int intr_calls, intr_last_q, intr_last_cpu;

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
	.tx_queue_release = fake_op_queue_release,
	.start = fake_start,
	.stop = fake_stop,
	.close = fake_close,
	.stats_get = fake_stats,
	.rx_burst = fake_rx,
	.tx_burst = fake_tx,
	.rx_intr_affinity = fake_rx_intr_affinity,
};

void fake_intr_setup(struct unic_port *port)
{
	port->ops = &fake_intr_ops;
	port->mac[0] = 0x02;
	port->mac[5] = 0x43;
}

void fake_setup(struct unic_port *port)
{
	port->ops = &fake_ops;
	port->mac[0] = 0x02;
	port->mac[5] = 0x42;
}

/* ---- fixtures ------------------------------------------------------------ */

struct unic_mem *mem;
struct unic_pool *pool;

static void setup(void)
{
	logcap_start(UNIC_LOG_WARNING, 0);
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	fixture_mem_pool(&mem, &pool, "port", 4096, 0);
}

static void teardown(void)
{
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "packets leaked: %u", unic_pool_in_use_count(pool));
	fixture_mem_pool_free(mem, pool);
	logcap_stop();
}

TestSuite(port, .init = setup, .fini = teardown);

struct unic_port *new_port(const char *fmt)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct fake_priv), fmt, fake_setup);

	cr_assert_not_null(p);
	cr_assert_eq(unic_port_register(p), 0, "register: %s", last_err);
	return p;
}

void finish(struct unic_port *p)
{
	unic_port_detach(p);
	unic_port_put(p);
}

void conf_port(struct unic_port *p, uint16_t nq, uint16_t nb_desc)
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
