/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake port for the apps' tests whose transmit refuses some packets, as
 * e1000e refuses an offload request it cannot meet: a packet that asks for
 * TSO with a segment size of 0 is refused by tx_prepare (-EINVAL) and, if
 * sent anyway, freed and counted by tx_burst (oerrors) while tx_burst
 * reports it taken. Every other packet is taken, counted and freed; rx
 * receives nothing. One queue each way; the tests call the burst functions
 * from one thread.
 */
#ifndef TEST_REFUSING_PORT_H
#define TEST_REFUSING_PORT_H

#include <errno.h>
#include <stdio.h>

#include <unic/pool.h>
#include <unic/port.h>
#include "unic_port_driver.h"
#include "fake_ops.h"

struct refusing_priv {
	int q;                   /* the queue object's address */
	uint64_t sent, refused;  /* by tx_burst */
	uint32_t sent_mark[64];  /* byte 12 of each packet sent, in order */
};

/* The bad packet: TSO asked, no segment size. */
static inline void refusing_mark_bad(struct unic_pkt *p)
{
	p->ol_flags |= UNIC_PKT_TX_TCP_SEG;
	p->tso_segsz = 0;
}

static inline bool refusing_bad(const struct unic_pkt *p)
{
	return (p->ol_flags & UNIC_PKT_TX_TCP_SEG) && p->tso_segsz == 0;
}

static void refusing_info(struct unic_port *port, struct unic_port_info *info)
{
	(void)port;
	snprintf(info->driver, sizeof(info->driver), "refusing");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "vdev");
	info->max_rxq = info->max_txq = 1;
	info->rx_desc_min = info->tx_desc_min = 32;
	info->rx_desc_max = info->tx_desc_max = 4096;
	info->rx_desc_align = info->tx_desc_align = 1;
	info->rx_desc_default = info->tx_desc_default = 256;
	info->min_mtu = 68;
	info->max_mtu = 9000;
	info->tx_offload_capa = UNIC_TX_OFFLOAD_TCP_TSO;
}

static int refusing_qsetup_rx(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *c, void **out)
{
	(void)q;
	(void)c;
	*out = &((struct refusing_priv *)unic_port_priv(port))->q;
	return 0;
}

static int refusing_qsetup_tx(struct unic_port *port, uint16_t q, const struct unic_txq_conf *c, void **out)
{
	(void)q;
	(void)c;
	*out = &((struct refusing_priv *)unic_port_priv(port))->q;
	return 0;
}

static int refusing_stats(struct unic_port *port, struct unic_port_stats *st)
{
	struct refusing_priv *p = unic_port_priv(port);

	st->opackets = p->sent;
	st->oerrors = p->refused;
	return 0;
}

static uint16_t refusing_rx(void *q, struct unic_pkt **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

static uint16_t refusing_tx(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct refusing_priv *p = UNIC_CONTAINER_OF((int *)q, struct refusing_priv, q);

	for (uint16_t i = 0; i < n; i++) {
		if (refusing_bad(pkts[i])) {
			p->refused++;
		} else {
			if (p->sent < 64)
				p->sent_mark[p->sent] = ((const uint8_t *)unic_pkt_data(pkts[i]))[12];
			p->sent++;
		}
		unic_pkt_free(pkts[i]);
	}
	return n;
}

static uint16_t refusing_prepare(void *q, struct unic_pkt **pkts, uint16_t n, int *err)
{
	(void)q;
	for (uint16_t i = 0; i < n; i++)
		if (refusing_bad(pkts[i])) {
			*err = -EINVAL;
			return i;
		}
	*err = 0;
	return n;
}

static const struct unic_port_ops refusing_ops = {
	.info_get = refusing_info,
	.configure = fake_op_configure,
	.rx_queue_setup = refusing_qsetup_rx,
	.rx_queue_release = fake_op_queue_release,
	.tx_queue_setup = refusing_qsetup_tx,
	.tx_queue_release = fake_op_queue_release,
	.start = fake_op_start,
	.stop = fake_op_nop,
	.close = fake_op_nop,
	.stats_get = refusing_stats,
	.rx_burst = refusing_rx,
	.tx_burst = refusing_tx,
	.tx_prepare = refusing_prepare,
};

static void refusing_setup(struct unic_port *port)
{
	port->ops = &refusing_ops;
	port->mac[0] = 0x02;
	port->mac[5] = 0x77;
}

/* A started refusing port (one queue each way) receiving into @p pool. */
static inline struct unic_port *refusing_port_up(struct unic_pool *pool)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct refusing_priv), "refusing%d", refusing_setup);
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 64, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 64, .numa_node = -1 };

	if (p == NULL || unic_port_register(p) != 0 || unic_port_configure(p, &c) != 0 ||
	    unic_port_rx_queue_setup(p, 0, &rc) != 0 || unic_port_tx_queue_setup(p, 0, &tc) != 0 ||
	    unic_port_start(p) != 0)
		return NULL;
	return p;
}

static inline struct refusing_priv *refusing_priv(struct unic_port *p)
{
	return unic_port_priv(p);
}

static inline void refusing_port_down(struct unic_port *p)
{
	unic_port_stop(p);
	unic_port_close(p);
	unic_port_detach(p);
	unic_port_put(p);
}

#endif /* TEST_REFUSING_PORT_H */
