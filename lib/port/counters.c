/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver kit's queue counters: the core sums the counters each driver
 * keeps in its queues (struct unic_rxq_counters, unic_txq_counters) into
 * struct unic_port_stats.
 *
 * Under the port lock. A queue's counters may hold counts from before it
 * was handed over (a driver that keeps them across setups) and its object
 * may go away at release, so the core counts from the values at hand-over
 * (port->rxq[q].cnt_origin) and, just before the driver's release op, moves
 * what the queue counted into port_core(port)->cnt_base. The sum (base plus what each
 * queue set up now counted) counts every packet since the port was created
 * once and never goes back, whatever the driver does with its struct
 * between setups; stats_reset works on top of it.
 */
#include <stdio.h>
#include <string.h>

#include "port_private.h"

static void rx_values(const struct unic_rxq_counters *c, uint64_t v[4])
{
	v[0] = unic_counter_read(&c->packets);
	v[1] = unic_counter_read(&c->bytes);
	v[2] = unic_counter_read(&c->errors);
	v[3] = unic_counter_read(&c->nombuf);
}

static void tx_values(const struct unic_txq_counters *c, uint64_t v[4])
{
	v[0] = unic_counter_read(&c->packets);
	v[1] = unic_counter_read(&c->bytes);
	v[2] = unic_counter_read(&c->errors);
	v[3] = 0;
}

/* Add what rx queue @p q counted since it was handed over to @p st. */
static void rxq_add(struct unic_port_stats *st, unsigned q, const struct unic_port_queue_info *qi)
{
	uint64_t v[4];

	rx_values(qi->rx_cnt, v);
	for (unsigned i = 0; i < 4; i++)
		v[i] -= qi->cnt_origin[i];
	st->q_ipackets[q] += v[0];
	st->q_ibytes[q] += v[1];
	st->q_errors[q] += v[2];
	st->ipackets += v[0];
	st->ibytes += v[1];
	st->ierrors += v[2];
	st->rx_nombuf += v[3];
}

static void txq_add(struct unic_port_stats *st, unsigned q, const struct unic_port_queue_info *qi)
{
	uint64_t v[4];

	tx_values(qi->tx_cnt, v);
	for (unsigned i = 0; i < 3; i++)
		v[i] -= qi->cnt_origin[i];
	st->q_opackets[q] += v[0];
	st->q_obytes[q] += v[1];
	st->opackets += v[0];
	st->obytes += v[1];
	st->oerrors += v[2];
}

void unic_port_rxq_counters(struct unic_port *port, uint16_t q, struct unic_rxq_counters *cnt)
{
	struct unic_port_queue_info *qi;

	if (q >= UNIC_PORT_MAX_QUEUES || cnt == NULL)
		return;
	qi = &port->rxq[q];
	if (qi->rx_cnt) /* handed over twice in one setup: keep the first's counts */
		rxq_add(&port_core(port)->cnt_base, q, qi);
	qi->rx_cnt = cnt;
	rx_values(cnt, qi->cnt_origin);
}

void unic_port_txq_counters(struct unic_port *port, uint16_t q, struct unic_txq_counters *cnt)
{
	struct unic_port_queue_info *qi;

	if (q >= UNIC_PORT_MAX_QUEUES || cnt == NULL)
		return;
	qi = &port->txq[q];
	if (qi->tx_cnt)
		txq_add(&port_core(port)->cnt_base, q, qi);
	qi->tx_cnt = cnt;
	tx_values(cnt, qi->cnt_origin);
}

void port_queue_release(struct unic_port *port, bool tx, unsigned q)
{
	struct unic_port_queue_info *qi = tx ? &port->txq[q] : &port->rxq[q];

	/* Before the release op: the counters may be freed with the queue. */
	if (!tx && qi->rx_cnt)
		rxq_add(&port_core(port)->cnt_base, q, qi);
	if (tx && qi->tx_cnt)
		txq_add(&port_core(port)->cnt_base, q, qi);
	if (qi->q && tx)
		port->ops->tx_queue_release(port, (uint16_t)q, qi->q);
	else if (qi->q)
		port->ops->rx_queue_release(port, (uint16_t)q, qi->q);
	memset(qi, 0, sizeof(*qi));
}

void port_stats_sum(struct unic_port *port, struct unic_port_stats *st)
{
	*st = port_core(port)->cnt_base;
	for (unsigned q = 0; q < UNIC_PORT_MAX_QUEUES; q++) {
		if (port->rxq[q].rx_cnt)
			rxq_add(st, q, &port->rxq[q]);
		if (port->txq[q].tx_cnt)
			txq_add(st, q, &port->txq[q]);
	}
}

int unic_port_xstats_names_fill(struct unic_xstat_name *names, unsigned max, const char *const *table,
				unsigned nb)
{
	for (unsigned i = 0; i < nb && i < max; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s", table[i]);
	return (int)nb;
}

int unic_port_xstats_values_fill(uint64_t *values, unsigned max, const uint64_t *v, unsigned nb)
{
	for (unsigned i = 0; i < nb && i < max; i++)
		values[i] = v[i];
	return (int)nb;
}
