/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e1000e statistics: the MAC's clear-on-read counters (E1000E_HW_STATS in
 * e1000e_priv.h) widened into 64-bit sums, the port's stats and the xstats
 * (hardware counters, then the driver's own).
 */
#include <stdio.h>
#include <string.h>

#include "e1000e_priv.h"

struct e1000e_stat {
	const char *name;   /* DPDK-like xstats name */
	uint32_t reg;
	uint32_t reg_hi;    /* 64-bit counters: high word, read after the low one */
};

#define E1000E_STAT_ENTRY(id, reg, reg_hi, name) [E1000E_STAT_##id] = { name, reg, reg_hi },
static const struct e1000e_stat e1000e_stats[E1000E_NB_HW_STATS] = {
	E1000E_HW_STATS(E1000E_STAT_ENTRY)
};

/* Software counters after the hardware ones in xstats. */
static const char *const e1000e_sw_stats[] = {
	"rx_desc_errors",         /* frames dropped for descriptor errors or lengths */
	"rx_length_over_buffer",  /* descriptors claiming more than the buffer */
	"rx_mbuf_allocation_errors",
	"tx_refused_packets",     /* malformed chains, refused and freed */
	"tx_ring_full",
	"tx_tso_packets",         /* TSO packets handed to the device */
	"tx_tso_contexts_hw",     /* TSCTC */
	"interrupt_assert_count", /* IAC */
	"link_events",
	"rx_oversize_frames_dropped", /* over the max frame or nb_desc - 1 descriptors */
	"rx_empty_segments_trimmed",  /* zero-length descriptors cut out of frames */
};
#define E1000E_NB_XSTATS (E1000E_NB_HW_STATS + UNIC_ARRAY_SIZE(e1000e_sw_stats))

/*
 * Read every counter (clear on read) and add it to the 64-bit sums. A
 * device that vanished reads all-ones everywhere: STATUS is read before
 * the counters and again after them, and when either reads all-ones
 * nothing is added (-ENODEV, the device marked gone and the bus told).
 * Once the device is off (gone, taken back, closed) the sums are what
 * stays: 0, no register read.
 */
int e1000e_stats_update(struct e1000e_port *ep)
{
	struct e1000e_hw *hw = &ep->hw;
	uint64_t v[E1000E_NB_HW_STATS];
	uint32_t tsctc, iac;

	if (e1000e_hw_off(ep))
		return 0;
	if (e1000e_hw_check_gone(hw))
		return -ENODEV;
	for (unsigned i = 0; i < E1000E_NB_HW_STATS; i++) {
		const struct e1000e_stat *s = &e1000e_stats[i];

		v[i] = read32(hw, s->reg); /* low word first: the high read clears both */
		if (s->reg_hi)
			v[i] |= (uint64_t)read32(hw, s->reg_hi) << 32;
	}
	tsctc = read32(hw, E1000E_TSCTC); /* xstats after the table's (e1000e_sw_stats) */
	iac = read32(hw, E1000E_IAC);
	if (e1000e_hw_check_gone(hw))
		return -ENODEV;
	for (unsigned i = 0; i < E1000E_NB_HW_STATS; i++)
		ep->hw_stats[i] += v[i];
	ep->tsctc += tsctc;
	ep->iac += iac;
	return 0;
}

void e1000e_stats_clear(struct e1000e_port *ep)
{
	(void)e1000e_stats_update(ep); /* clear what a previous process left ... */
	memset(ep->hw_stats, 0, sizeof(ep->hw_stats)); /* ... and count from here */
	ep->tsctc = ep->iac = 0;
}

int e1000e_stats_get(struct unic_port *port, struct unic_port_stats *st)
{
	struct e1000e_port *ep = e1000e_priv(port);
	const uint64_t *hw = ep->hw_stats;
	int rc = e1000e_stats_update(ep);

	if (rc < 0)
		return rc;
	/* rx_missed_errors (MPC): QEMU 7.2 never counts it (it queues instead). */
	st->imissed = hw[E1000E_STAT_MPC];
	st->ierrors += hw[E1000E_STAT_CRCERRS] + hw[E1000E_STAT_ALGNERRC] + hw[E1000E_STAT_RXERRC] +
		       hw[E1000E_STAT_RLEC];
	return 0;
}

int e1000e_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max)
{
	(void)port;
	for (unsigned i = 0; i < E1000E_NB_XSTATS && i < max; i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s", i < E1000E_NB_HW_STATS ?
			 e1000e_stats[i].name : e1000e_sw_stats[i - E1000E_NB_HW_STATS]);
	return (int)E1000E_NB_XSTATS;
}

int e1000e_xstats_get(struct unic_port *port, uint64_t *values, unsigned max)
{
	struct e1000e_port *ep = e1000e_priv(port);
	uint64_t v[E1000E_NB_XSTATS] = { 0 };
	uint64_t *sw = v + E1000E_NB_HW_STATS;
	int rc = e1000e_stats_update(ep);

	if (rc < 0)
		return rc;
	memcpy(v, ep->hw_stats, sizeof(ep->hw_stats));
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++) {
		sw[0] += unic_counter_read(&ep->rxq[q].cnt.errors);
		sw[1] += unic_counter_read(&ep->rxq[q].len_errors);
		sw[2] += unic_counter_read(&ep->rxq[q].cnt.nombuf);
		sw[3] += unic_counter_read(&ep->txq[q].cnt.errors);
		sw[4] += unic_counter_read(&ep->txq[q].ring_full);
		sw[5] += unic_counter_read(&ep->txq[q].tso);
		sw[9] += unic_counter_read(&ep->rxq[q].oversize);
		sw[10] += unic_counter_read(&ep->rxq[q].empty_segs);
	}
	sw[6] = ep->tsctc;
	sw[7] = ep->iac;
	sw[8] = unic_load_relaxed(&ep->link_events);
	for (unsigned i = 0; i < E1000E_NB_XSTATS && i < max; i++)
		values[i] = v[i];
	return (int)E1000E_NB_XSTATS;
}
