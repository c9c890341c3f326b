/* SPDX-License-Identifier: BSD-3-Clause */
/* The recording coalesce op of moder_rec.h. */
#include <stdio.h>
#include <string.h>

#include <unic/common.h>
#include <unic/cycles.h>

#include "moder_rec.h"

struct moder_rec rec;

static int rec_coalesce_get(struct unic_port *port, struct unic_coalesce *c)
{
	(void)port;
	c->rx_usecs = rec.rx_usecs;
	c->tx_usecs = rec.tx_usecs;
	if (rec.counting)
		c->rx_max_frames = rec.frames;
	return 0;
}

static int (*ring_intr_enable)(void *rxq);

static int rec_rx_intr_enable(void *rxq)
{
	if (rec.counting && rec.frames > 1) {
		rec.arms_held++;
		return 0;
	}
	rec.arms_rung++;
	return ring_intr_enable(rxq);
}

static int rec_coalesce_set(struct unic_port *port, const struct unic_coalesce *c)
{
	(void)port;
	if (rec.sets < REC_MAX) {
		rec.rx[rec.sets] = c->rx_usecs;
		rec.at[rec.sets] = unic_time_ns();
	}
	rec.sets++;
	rec.max_rx = UNIC_MAX(rec.max_rx, c->rx_usecs);
	rec.rx_usecs = c->rx_usecs;
	rec.tx_usecs = c->tx_usecs;
	rec.frames = c->rx_max_frames;
	return 0;
}

void rec_attach(struct unic_port *p)
{
	memset(&rec, 0, sizeof(rec));
	rec.ops = *p->ops;
	rec.ops.coalesce_get = rec_coalesce_get;
	rec.ops.coalesce_set = rec_coalesce_set;
	ring_intr_enable = p->ops->rx_intr_enable;
	rec.ops.rx_intr_enable = rec_rx_intr_enable;
	rec.tx_usecs = 7;
	p->ops = &rec.ops;
}

const char *rec_list(void)
{
	static char buf[128];
	size_t o = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < rec.sets && i < 16 && o < sizeof(buf) - 12; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%u", i ? " " : "", rec.rx[i]);
	return buf;
}
