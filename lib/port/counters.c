/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver kit's queue counters: the core sums the counters each driver
 * keeps in its queues (struct unic_rxq_counters, unic_txq_counters) into
 * struct unic_port_stats.
 *
 * Under the port lock. A queue's counters count from whenever the driver
 * last zeroed them, and its object may go away at release, so the core
 * keeps one base (port->cnt_base, in the shape of the stats) to which it
 * adds the sum of the queues set up now: a released queue's counts move
 * into the base, and a queue handed over is subtracted from it as it is
 * then (unsigned arithmetic, exact modulo 2^64). The sum counts every packet
 * since the port was created, once, and never goes back, whatever the driver
 * does with its struct between setups; stats_reset works on top of it.
 */
#include <string.h>

#include "port_private.h"

/* Add the rx queue counters @p c (negated: @p sub) to queue @p q of @p st. */
static void rxq_add(struct unic_port_stats *st, unsigned q, const struct unic_rxq_counters *c,
		    bool sub)
{
	uint64_t pk = unic_counter_read(&c->packets), by = unic_counter_read(&c->bytes);
	uint64_t er = unic_counter_read(&c->errors), nb = unic_counter_read(&c->nombuf);

	if (sub) {
		pk = -pk;
		by = -by;
		er = -er;
		nb = -nb;
	}
	st->q_ipackets[q] += pk;
	st->q_ibytes[q] += by;
	st->q_errors[q] += er;
	st->ipackets += pk;
	st->ibytes += by;
	st->ierrors += er;
	st->rx_nombuf += nb;
}

static void txq_add(struct unic_port_stats *st, unsigned q, const struct unic_txq_counters *c,
		    bool sub)
{
	uint64_t pk = unic_counter_read(&c->packets), by = unic_counter_read(&c->bytes);
	uint64_t er = unic_counter_read(&c->errors);

	if (sub) {
		pk = -pk;
		by = -by;
		er = -er;
	}
	st->q_opackets[q] += pk;
	st->q_obytes[q] += by;
	st->opackets += pk;
	st->obytes += by;
	st->oerrors += er;
}

void unic_port_rxq_counters(struct unic_port *port, uint16_t q, struct unic_rxq_counters *cnt)
{
	struct unic_port_queue_info *qi;

	if (q >= UNIC_PORT_MAX_QUEUES || cnt == NULL)
		return;
	qi = &port->rxq[q];
	if (qi->rx_cnt)
		rxq_add(&port->cnt_base, q, qi->rx_cnt, false);
	rxq_add(&port->cnt_base, q, cnt, true);
	qi->rx_cnt = cnt;
}

void unic_port_txq_counters(struct unic_port *port, uint16_t q, struct unic_txq_counters *cnt)
{
	struct unic_port_queue_info *qi;

	if (q >= UNIC_PORT_MAX_QUEUES || cnt == NULL)
		return;
	qi = &port->txq[q];
	if (qi->tx_cnt)
		txq_add(&port->cnt_base, q, qi->tx_cnt, false);
	txq_add(&port->cnt_base, q, cnt, true);
	qi->tx_cnt = cnt;
}

void port_queue_forget(struct unic_port *port, bool tx, unsigned q)
{
	struct unic_port_queue_info *qi = tx ? &port->txq[q] : &port->rxq[q];

	if (!tx && qi->rx_cnt)
		rxq_add(&port->cnt_base, q, qi->rx_cnt, false);
	if (tx && qi->tx_cnt)
		txq_add(&port->cnt_base, q, qi->tx_cnt, false);
	memset(qi, 0, sizeof(*qi));
}

void port_stats_sum(struct unic_port *port, struct unic_port_stats *st)
{
	*st = port->cnt_base;
	for (unsigned q = 0; q < UNIC_PORT_MAX_QUEUES; q++) {
		if (port->rxq[q].rx_cnt)
			rxq_add(st, q, port->rxq[q].rx_cnt, false);
		if (port->txq[q].tx_cnt)
			txq_add(st, q, port->txq[q].tx_cnt, false);
	}
}
