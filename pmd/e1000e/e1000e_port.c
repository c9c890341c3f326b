/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e1000e control path: PCI probe, the port ops, statistics.
 *
 * Where the rings live: the driver gets DMA memory from the rx queue's pool
 * (pool->mem, the memory context the bus maps into the IOMMU). An rx ring is
 * allocated at rx queue setup from its own pool's memory; a tx ring has no
 * pool, so it is allocated at the first start from the memory of rx queue
 * 0's pool (every queue is set up by then), and kept until the queue is
 * released. See docs/e1000e.md.
 *
 * QEMU 7.2's e1000e does not reset between processes on the root bus, so
 * start resets the MAC and programs every ring register and every filter,
 * every time.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e1000e_priv.h"
#include "unic_pmds.h"

/* ---- statistics ------------------------------------------------------------ */

struct e1000e_stat {
	const char *name;   /* DPDK-like xstats name */
	uint32_t reg;
	uint32_t reg_hi;    /* 64-bit counters: high word, read after the low one */
};

/* Every counter QEMU 7.2 implements, and the rest of the 82574's (10.2.8). */
static const struct e1000e_stat e1000e_stats[E1000E_NB_HW_STATS] = {
	{ "hw_rx_good_packets", E1000E_GPRC, 0 },
	{ "hw_rx_good_bytes", E1000E_GORCL, E1000E_GORCH },
	{ "hw_tx_good_packets", E1000E_GPTC, 0 },
	{ "hw_tx_good_bytes", E1000E_GOTCL, E1000E_GOTCH },
	{ "rx_total_packets", E1000E_TPR, 0 },
	{ "rx_total_bytes", E1000E_TORL, E1000E_TORH },
	{ "tx_total_packets", E1000E_TPT, 0 },
	{ "tx_total_bytes", E1000E_TOTL, E1000E_TOTH },
	{ "rx_broadcast_packets", E1000E_BPRC, 0 },
	{ "rx_multicast_packets", E1000E_MPRC, 0 },
	{ "tx_broadcast_packets", E1000E_BPTC, 0 },
	{ "tx_multicast_packets", E1000E_MPTC, 0 },
	{ "rx_crc_errors", E1000E_CRCERRS, 0 },
	{ "rx_alignment_errors", E1000E_ALGNERRC, 0 },
	{ "rx_symbol_errors", E1000E_SYMERRS, 0 },
	{ "rx_errors", E1000E_RXERRC, 0 },
	{ "rx_missed_errors", E1000E_MPC, 0 },
	{ "rx_no_buffer_count", E1000E_RNBC, 0 },
	{ "rx_undersize_errors", E1000E_RUC, 0 },
	{ "rx_fragment_errors", E1000E_RFC, 0 },
	{ "rx_oversize_errors", E1000E_ROC, 0 },
	{ "rx_jabber_errors", E1000E_RJC, 0 },
	{ "rx_length_errors", E1000E_RLEC, 0 },
	{ "tx_single_collision_packets", E1000E_SCC, 0 },
	{ "tx_excessive_collision_packets", E1000E_ECOL, 0 },
	{ "tx_multiple_collision_packets", E1000E_MCC, 0 },
	{ "tx_late_collisions", E1000E_LATECOL, 0 },
	{ "tx_total_collisions", E1000E_COLC, 0 },
	{ "tx_deferred_packets", E1000E_DC, 0 },
	{ "tx_no_carrier_sense_packets", E1000E_TNCRS, 0 },
	{ "rx_carrier_ext_errors", E1000E_CEXTERR, 0 },
	{ "rx_xon_packets", E1000E_XONRXC, 0 },
	{ "tx_xon_packets", E1000E_XONTXC, 0 },
	{ "rx_xoff_packets", E1000E_XOFFRXC, 0 },
	{ "tx_xoff_packets", E1000E_XOFFTXC, 0 },
	{ "rx_flow_control_unsupported_packets", E1000E_FCRUC, 0 },
	{ "rx_size_64_packets", E1000E_PRC64, 0 },
	{ "rx_size_65_to_127_packets", E1000E_PRC127, 0 },
	{ "rx_size_128_to_255_packets", E1000E_PRC255, 0 },
	{ "rx_size_256_to_511_packets", E1000E_PRC511, 0 },
	{ "rx_size_512_to_1023_packets", E1000E_PRC1023, 0 },
	{ "rx_size_1024_to_max_packets", E1000E_PRC1522, 0 },
	{ "tx_size_64_packets", E1000E_PTC64, 0 },
	{ "tx_size_65_to_127_packets", E1000E_PTC127, 0 },
	{ "tx_size_128_to_255_packets", E1000E_PTC255, 0 },
	{ "tx_size_256_to_511_packets", E1000E_PTC511, 0 },
	{ "tx_size_512_to_1023_packets", E1000E_PTC1023, 0 },
	{ "tx_size_1024_to_max_packets", E1000E_PTC1522, 0 },
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
#define E1000E_NB_SW_STATS (sizeof(e1000e_sw_stats) / sizeof(e1000e_sw_stats[0]))

/*
 * Read every counter (clear on read) and add it to the 64-bit sums. A
 * device that vanished reads all-ones everywhere: STATUS is read before
 * the counters and again after them, and when either reads all-ones
 * nothing is added (-ENODEV, the device marked gone and the bus told).
 * Once the device is off (gone, taken back, closed) the sums are what
 * stays: 0, no register read.
 */
static int e1000e_stats_update(struct e1000e_port *ep)
{
	struct e1000e_hw *hw = &ep->hw;
	uint64_t v[E1000E_NB_HW_STATS];

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
	if (e1000e_hw_check_gone(hw))
		return -ENODEV;
	for (unsigned i = 0; i < E1000E_NB_HW_STATS; i++)
		ep->hw_stats[i] += v[i];
	return 0;
}

static int e1000e_stats_get(struct unic_port *port, struct unic_port_stats *st)
{
	struct e1000e_port *ep = e1000e_priv(port);
	int rc = e1000e_stats_update(ep);

	if (rc < 0)
		return rc;
	/* rx_missed_errors (MPC): QEMU 7.2 never counts it (it queues instead). */
	st->imissed = ep->hw_stats[16];
	st->ierrors += ep->hw_stats[12] + ep->hw_stats[13] + ep->hw_stats[15] + ep->hw_stats[22];
	return 0;
}

static int e1000e_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max)
{
	unsigned n = 0;

	(void)port;
	for (unsigned i = 0; i < E1000E_NB_HW_STATS; i++, n++)
		if (n < max)
			snprintf(names[n].name, sizeof(names[n].name), "%s", e1000e_stats[i].name);
	for (unsigned i = 0; i < E1000E_NB_SW_STATS; i++, n++)
		if (n < max)
			snprintf(names[n].name, sizeof(names[n].name), "%s", e1000e_sw_stats[i]);
	return (int)n;
}

static int e1000e_xstats_get(struct unic_port *port, uint64_t *values, unsigned max)
{
	struct e1000e_port *ep = e1000e_priv(port);
	uint64_t sw[E1000E_NB_SW_STATS] = { 0 };
	unsigned n = 0;
	int rc = e1000e_stats_update(ep);

	if (rc < 0)
		return rc;
	if (!e1000e_hw_off(ep)) {
		uint32_t tsctc = read32(&ep->hw, E1000E_TSCTC), iac = read32(&ep->hw, E1000E_IAC);

		if (e1000e_hw_check_gone(&ep->hw))
			return -ENODEV;
		ep->tsctc += tsctc;
		ep->iac += iac;
	}
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++) {
		sw[0] += unic_counter_read(&ep->rxq[q].cnt.errors);
		sw[1] += unic_counter_read(&ep->rxq[q].len_errors);
		sw[2] += unic_counter_read(&ep->rxq[q].cnt.nombuf);
		sw[3] += unic_counter_read(&ep->txq[q].cnt.errors);
		sw[4] += unic_counter_read(&ep->txq[q].ring_full);
	}
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++)
		sw[5] += unic_counter_read(&ep->txq[q].tso);
	sw[6] = ep->tsctc;
	sw[7] = ep->iac;
	sw[8] = unic_load_relaxed(&ep->link_events);
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++) {
		sw[9] += unic_counter_read(&ep->rxq[q].oversize);
		sw[10] += unic_counter_read(&ep->rxq[q].empty_segs);
	}
	for (unsigned i = 0; i < E1000E_NB_HW_STATS; i++, n++)
		if (n < max)
			values[n] = ep->hw_stats[i];
	for (unsigned i = 0; i < E1000E_NB_SW_STATS; i++, n++)
		if (n < max)
			values[n] = sw[i];
	return (int)n;
}

/* ---- queues ---------------------------------------------------------------- */

static void rxq_free(struct e1000e_rxq *rxq)
{
	e1000e_rxq_drain(rxq);
	free(rxq->sw_ring);
	rxq->sw_ring = NULL;
	if (rxq->mem)
		unic_mem_free(rxq->mem, &rxq->dma);
	memset(&rxq->dma, 0, sizeof(rxq->dma));
	rxq->mem = NULL;
	rxq->ring = NULL;
	rxq->pool = NULL;
}

static void txq_free(struct e1000e_txq *txq)
{
	e1000e_txq_drain(txq);
	free(txq->sw_ring);
	free(txq->rs_idx);
	txq->sw_ring = NULL;
	txq->rs_idx = NULL;
	if (txq->mem)
		unic_mem_free(txq->mem, &txq->dma);
	memset(&txq->dma, 0, sizeof(txq->dma));
	txq->mem = NULL;
	txq->ring = NULL;
	txq->nb_desc = 0;
}

static int e1000e_rx_queue_setup(struct unic_port *port, uint16_t q,
				 const struct unic_rxq_conf *conf, void **out)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_rxq *rxq = &ep->rxq[q];
	size_t len = (size_t)conf->nb_desc * sizeof(union e1000e_rx_desc);
	int rc;

	if (conf->pool->mem == NULL || conf->pool->pkt_dataroom < 256) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: pool %s has no DMA memory or a data room under 256 bytes (%u); use a packet pool from unic_pktpool_create()",
			      q, conf->pool->name, conf->pool->pkt_dataroom);
		return -EINVAL;
	}
	rxq_free(rxq);
	rxq->sw_ring = calloc(conf->nb_desc, sizeof(*rxq->sw_ring));
	if (rxq->sw_ring == NULL)
		return -ENOMEM;
	/* 7.1.4: the ring base is 16-byte aligned, its length a multiple of 128 bytes. */
	rc = unic_mem_alloc(conf->pool->mem, len, 128, conf->numa_node, &rxq->dma);
	if (rc < 0) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: cannot allocate a %zu-byte descriptor ring in DMA memory: %s",
			      q, len, strerror(-rc));
		free(rxq->sw_ring);
		rxq->sw_ring = NULL;
		return rc;
	}
	rxq->mem = conf->pool->mem;
	rxq->ring = rxq->dma.va;
	rxq->pool = conf->pool;
	rxq->nb_desc = conf->nb_desc;
	rxq->headroom = conf->pool->pkt_headroom;
	rxq->port_id = unic_port_id(port);
	rxq->qid = q;
	rxq->ep = ep;
	rxq->icr_cause = E1000E_ICR_RXQ(q);
	rxq->rdt = (volatile uint32_t *)(ep->hw.regs + E1000E_RDT(q));
	unic_port_rxq_counters(port, q, &rxq->cnt);
	*out = rxq;
	return 0;
}

static void e1000e_rx_queue_release(struct unic_port *port, uint16_t q, void *rxq)
{
	(void)rxq;
	rxq_free(&e1000e_priv(port)->rxq[q]);
}

static int e1000e_tx_queue_setup(struct unic_port *port, uint16_t q,
				 const struct unic_txq_conf *conf, void **out)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_txq *txq = &ep->txq[q];

	txq_free(txq);
	txq->sw_ring = calloc(conf->nb_desc, sizeof(*txq->sw_ring));
	txq->rs_idx = calloc(conf->nb_desc, sizeof(*txq->rs_idx));
	if (txq->sw_ring == NULL || txq->rs_idx == NULL) {
		txq_free(txq);
		return -ENOMEM;
	}
	txq->nb_desc = conf->nb_desc;
	txq->qid = q;
	txq->tdt = (volatile uint32_t *)(ep->hw.regs + E1000E_TDT(q));
	unic_port_txq_counters(port, q, &txq->cnt);
	*out = txq;
	return 0;
}

static void e1000e_tx_queue_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)txq;
	txq_free(&e1000e_priv(port)->txq[q]);
}

/* ---- information and configuration ------------------------------------------ */

static void e1000e_info_get(struct unic_port *port, struct unic_port_info *info)
{
	struct e1000e_port *ep = e1000e_priv(port);
	uint16_t ver = 0;

	snprintf(info->driver, sizeof(info->driver), "e1000e");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "%s", ep->bdf);
	/* EEPROM word 5: image version (datasheet 6.1.2), major.minor. */
	if (!e1000e_hw_off(ep) && e1000e_eeprom_read(&ep->hw, 5, &ver) == 0)
		snprintf(info->fw_version, sizeof(info->fw_version), "eeprom %u.%u-%u",
			 (ver >> 12) & 0xf, (ver >> 4) & 0xff, ver & 0xf);
	info->numa_node = port->numa_node;
	info->max_rxq = E1000E_MAX_QUEUES;
	info->max_txq = E1000E_MAX_QUEUES;
	info->rx_desc_min = info->tx_desc_min = E1000E_DESC_MIN;
	info->rx_desc_max = info->tx_desc_max = E1000E_DESC_MAX;
	info->rx_desc_align = info->tx_desc_align = E1000E_DESC_ALIGN;
	info->rx_desc_default = info->tx_desc_default = E1000E_DESC_DEFAULT;
	info->min_mtu = E1000E_MIN_MTU;
	info->max_mtu = E1000E_MAX_MTU;
	info->rx_offload_capa = UNIC_RX_OFFLOAD_VLAN_STRIP | UNIC_RX_OFFLOAD_VLAN_FILTER |
				UNIC_RX_OFFLOAD_IPV4_CKSUM | UNIC_RX_OFFLOAD_UDP_CKSUM |
				UNIC_RX_OFFLOAD_TCP_CKSUM | UNIC_RX_OFFLOAD_RSS_HASH |
				UNIC_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = UNIC_TX_OFFLOAD_VLAN_INSERT | UNIC_TX_OFFLOAD_MULTI_SEGS |
				UNIC_TX_OFFLOAD_IPV4_CKSUM | UNIC_TX_OFFLOAD_TCP_CKSUM |
				UNIC_TX_OFFLOAD_UDP_CKSUM | UNIC_TX_OFFLOAD_TCP_TSO;
	info->rss_hash_capa = UNIC_RSS_IPV4 | UNIC_RSS_IPV4_TCP | UNIC_RSS_IPV6 | UNIC_RSS_IPV6_TCP;
	info->reta_size = E1000E_RETA_SIZE;
	info->rss_key_size = E1000E_RSS_KEY_LEN;
	info->speed_capa_mbps = E1000E_SPEED_MAX;
	info->has_intr = ep->dev != NULL && (unic_pci_irq_count(ep->dev, UNIC_PCI_IRQ_MSIX) >= E1000E_NB_VEC ||
					     unic_pci_irq_count(ep->dev, UNIC_PCI_IRQ_INTX) >= 1);
}

static int e1000e_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	uint64_t bad = conf->rss_hash_types & ~(uint64_t)(UNIC_RSS_IPV4 | UNIC_RSS_IPV4_TCP |
							   UNIC_RSS_IPV6 | UNIC_RSS_IPV6_TCP);

	if (bad) {
		UNIC_PORT_LOG(port, ERR, "RSS hash types 0x%" PRIx64 " are not offered: the 82574 hashes IPv4, IPv4-TCP, IPv6 and IPv6-TCP (UDP on its addresses only)",
			      bad);
		return -EINVAL;
	}
	if (conf->rss_key_len != 0 && conf->rss_key_len != E1000E_RSS_KEY_LEN) {
		UNIC_PORT_LOG(port, ERR, "RSS key of %u bytes; the 82574 takes %u (or 0 for the default)",
			      conf->rss_key_len, E1000E_RSS_KEY_LEN);
		return -EINVAL;
	}
	return 0;
}

/* ---- start and stop ---------------------------------------------------------- */

/* The default RSS key (the one Intel's drivers and DPDK use). */
static const uint8_t e1000e_default_key[E1000E_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* RCTL.BSIZE/BSEX for the largest hardware buffer size that fits @p room. */
static uint32_t rx_bufsize(uint32_t room, uint16_t *size)
{
	static const struct { uint16_t size; uint32_t bits; } sizes[] = {
		{ 16384, E1000E_RCTL_BSEX | (1u << E1000E_RCTL_BSIZE_SHIFT) },
		{ 8192, E1000E_RCTL_BSEX | (2u << E1000E_RCTL_BSIZE_SHIFT) },
		{ 4096, E1000E_RCTL_BSEX | (3u << E1000E_RCTL_BSIZE_SHIFT) },
		{ 2048, 0u << E1000E_RCTL_BSIZE_SHIFT },
		{ 1024, 1u << E1000E_RCTL_BSIZE_SHIFT },
		{ 512, 2u << E1000E_RCTL_BSIZE_SHIFT },
		{ 256, 3u << E1000E_RCTL_BSIZE_SHIFT },
	};

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(sizes); i++) {
		if (sizes[i].size <= room) {
			*size = sizes[i].size;
			return sizes[i].bits;
		}
	}
	*size = 256;
	return 3u << E1000E_RCTL_BSIZE_SHIFT;
}

static uint32_t rctl_filters(const struct e1000e_port *ep, const struct unic_port *port)
{
	uint32_t r = E1000E_RCTL_BAM;

	if (ep->promisc)
		r |= E1000E_RCTL_UPE | E1000E_RCTL_MPE;
	if (ep->allmulti)
		r |= E1000E_RCTL_MPE;
	if (port->conf.rx_offloads & UNIC_RX_OFFLOAD_VLAN_FILTER)
		r |= E1000E_RCTL_VFE;
	if (port->conf.mtu > 1500)
		r |= E1000E_RCTL_LPE;
	return r;
}

/* Receive filters: RA table, MTA, VFTA; all rewritten (leftovers must not matter). */
static void program_filters(struct e1000e_port *ep, struct unic_port *port)
{
	struct e1000e_hw *hw = &ep->hw;

	memcpy(ep->uc_addr[0], port->mac, UNIC_ETHER_ADDR_LEN);
	ep->uc_used[0] = true;
	for (unsigned i = 0; i < E1000E_RAR_SIZE; i++)
		e1000e_rar_set(hw, i, ep->uc_used[i] ? ep->uc_addr[i] : NULL);
	for (unsigned i = 0; i < E1000E_MTA_SIZE; i++)
		write32(hw, E1000E_MTA(i), ep->mta[i]);
	for (unsigned i = 0; i < E1000E_VFTA_SIZE; i++)
		write32(hw, E1000E_VFTA(i), ep->vfta[i]);
	write32(hw, E1000E_VET, 0x8100);
}

static void program_rss(struct e1000e_port *ep, struct unic_port *port)
{
	struct e1000e_hw *hw = &ep->hw;
	const uint8_t *key = port->conf.rss_key_len ? port->conf.rss_key : e1000e_default_key;
	uint64_t t = port->conf.rss_hash_types;
	uint32_t mrq = 0;

	if (port->conf.nb_rxq < 2 || t == 0) {
		write32(hw, E1000E_MRQC, 0);
		return;
	}
	for (unsigned i = 0; i < E1000E_RSS_KEY_LEN / 4; i++)
		write32(hw, E1000E_RSSRK(i), (uint32_t)key[4 * i] | (uint32_t)key[4 * i + 1] << 8 |
			(uint32_t)key[4 * i + 2] << 16 | (uint32_t)key[4 * i + 3] << 24);
	/* 128 one-byte entries; bit 7 of an entry picks queue 1 (QEMU reads
	 * bit 7; the 82574 datasheet 10.2.5.17 gives the queue index there). */
	for (unsigned i = 0; i < E1000E_RETA_SIZE / 4; i++) {
		uint32_t w = 0;

		for (unsigned j = 0; j < 4; j++)
			w |= (uint32_t)(((4 * i + j) & 1) ? 0x80 : 0) << (8 * j);
		write32(hw, E1000E_RETA(i), w);
	}
	if (t & UNIC_RSS_IPV4)
		mrq |= E1000E_MRQC_IPV4;
	if (t & UNIC_RSS_IPV4_TCP)
		mrq |= E1000E_MRQC_TCP_IPV4;
	if (t & UNIC_RSS_IPV6)
		mrq |= E1000E_MRQC_IPV6 | E1000E_MRQC_IPV6_EX;
	if (t & UNIC_RSS_IPV6_TCP)
		mrq |= E1000E_MRQC_TCP_IPV6 | E1000E_MRQC_TCP_IPV6_EX;
	write32(hw, E1000E_MRQC, mrq | E1000E_MRQC_RSS_EN);
}

static int e1000e_start(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_hw *hw = &ep->hw;
	bool rss = port->conf.nb_rxq > 1 && port->conf.rss_hash_types != 0;
	uint32_t room = UINT32_MAX, rctl, ctrl;
	uint16_t buf_size;
	int rc;

	rc = e1000e_hw_reset(hw);
	if (rc < 0)
		return rc;
	/* Tx rings: allocated at the first start (see the head of this file). */
	for (uint16_t q = 0; q < port->conf.nb_txq; q++) {
		struct e1000e_txq *txq = &ep->txq[q];
		size_t len = (size_t)txq->nb_desc * sizeof(union e1000e_tx_desc);

		if (txq->ring != NULL)
			continue;
		rc = unic_mem_alloc(ep->rxq[0].mem, len, 128, port->numa_node, &txq->dma);
		if (rc < 0) {
			UNIC_PORT_LOG(port, ERR, "tx queue %u: cannot allocate a %zu-byte descriptor ring in DMA memory: %s",
				      q, len, strerror(-rc));
			return rc;
		}
		txq->mem = ep->rxq[0].mem;
		txq->ring = txq->dma.va;
	}
	rc = e1000e_link_setup(hw);
	if (rc < 0)
		UNIC_PORT_LOG(port, WARNING, "PHY access failed (%s); link left as it is", strerror(-rc));
	ep->link_admin_down = false;

	ctrl = read32(hw, E1000E_CTRL);
	if (port->conf.rx_offloads & UNIC_RX_OFFLOAD_VLAN_STRIP ||
	    port->conf.tx_offloads & UNIC_TX_OFFLOAD_VLAN_INSERT)
		ctrl |= E1000E_CTRL_VME;
	else
		ctrl &= ~E1000E_CTRL_VME;
	write32(hw, E1000E_CTRL, ctrl);
	program_filters(ep, port);

	/* Transmit (datasheet 4.6.10). */
	for (uint16_t q = 0; q < E1000E_MAX_QUEUES; q++) {
		struct e1000e_txq *txq = &ep->txq[q];
		bool on = q < port->conf.nb_txq;

		write32(hw, E1000E_TDBAL(q), on ? (uint32_t)txq->dma.iova : 0);
		write32(hw, E1000E_TDBAH(q), on ? (uint32_t)(txq->dma.iova >> 32) : 0);
		write32(hw, E1000E_TDLEN(q), on ? txq->nb_desc * (uint32_t)sizeof(union e1000e_tx_desc) : 0);
		write32(hw, E1000E_TDH(q), 0);
		write32(hw, E1000E_TDT(q), 0);
		write32(hw, E1000E_TXDCTL(q), E1000E_TXDCTL_DEFAULT);
		set_bits32(hw, E1000E_TARC(q), E1000E_TARC_ENABLE);
		if (on) {
			e1000e_txq_drain(txq);
			memset(txq->dma.va, 0, txq->dma.len);
			txq->vlan_insert = (port->conf.tx_offloads & UNIC_TX_OFFLOAD_VLAN_INSERT) != 0;
		}
	}
	write32(hw, E1000E_TIPG, E1000E_TIPG_DEFAULT);
	write32(hw, E1000E_TIDV, 0);
	write32(hw, E1000E_TADV, 0);

	/* Receive (datasheet 4.6.9). Buffer size and descriptor type are
	 * latched when RCTL is written with EN (QEMU): everything else first. */
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++)
		if (ep->rxq[q].pool->pkt_dataroom < room)
			room = ep->rxq[q].pool->pkt_dataroom;
	rctl = rx_bufsize(room, &buf_size);
	write32(hw, E1000E_RCTL, 0);
	write32(hw, E1000E_RFCTL, E1000E_RFCTL_EXTEN);
	write32(hw, E1000E_RXCSUM, E1000E_RXCSUM_IPOFLD | E1000E_RXCSUM_TUOFLD |
		(rss ? E1000E_RXCSUM_PCSD : 0));
	write32(hw, E1000E_RDTR, 0);
	write32(hw, E1000E_RADV, 0);
	program_rss(ep, port);
	for (uint16_t q = 0; q < E1000E_MAX_QUEUES; q++) {
		struct e1000e_rxq *rxq = &ep->rxq[q];
		bool on = q < port->conf.nb_rxq;

		write32(hw, E1000E_RDBAL(q), on ? (uint32_t)rxq->dma.iova : 0);
		write32(hw, E1000E_RDBAH(q), on ? (uint32_t)(rxq->dma.iova >> 32) : 0);
		write32(hw, E1000E_RDLEN(q), on ? rxq->nb_desc * (uint32_t)sizeof(union e1000e_rx_desc) : 0);
		write32(hw, E1000E_RDH(q), 0);
		write32(hw, E1000E_RDT(q), 0);
		if (!on)
			continue;
		e1000e_rxq_drain(rxq);
		memset(rxq->dma.va, 0, rxq->dma.len);
		rxq->buf_size = buf_size;
		__atomic_store_n(&rxq->max_frame, (uint32_t)port->conf.mtu + 22, __ATOMIC_RELAXED);
		rxq->vlan_strip = (port->conf.rx_offloads & UNIC_RX_OFFLOAD_VLAN_STRIP) != 0;
		rxq->rss = rss;
		rc = e1000e_rxq_fill(rxq);
		if (rc < 0) {
			UNIC_PORT_LOG(port, ERR, "rx queue %u: pool %s ran out while filling %u descriptors",
				      q, rxq->pool->name, rxq->nb_desc - 1);
			goto fail;
		}
	}
	write32(hw, E1000E_IMC, 0xffffffffu); /* every cause masked until a queue arms its own */
	e1000e_coalesce_program(ep);
	if (e1000e_intr_wanted(port)) {
		rc = e1000e_intr_on(port);
		if (rc < 0)
			goto fail;
	}
	write32(hw, E1000E_TCTL, E1000E_TCTL_EN | E1000E_TCTL_PSP | (0xfu << E1000E_TCTL_CT_SHIFT) |
		(0x3fu << E1000E_TCTL_COLD_SHIFT) | E1000E_TCTL_RTLC);
	write32(hw, E1000E_RCTL, rctl | rctl_filters(ep, port) | E1000E_RCTL_EN | E1000E_RCTL_SECRC |
		E1000E_RCTL_RDMTS_HALF);
	flush32(hw);
	return 0;
fail:
	e1000e_intr_off(port);
	for (uint16_t q = 0; q < E1000E_MAX_QUEUES; q++)
		e1000e_rxq_drain(&ep->rxq[q]);
	return rc;
}

static void e1000e_stop(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_hw *hw = &ep->hw;

	e1000e_intr_off(port);
	if (!hw->gone) {
		write32(hw, E1000E_RCTL, 0);
		write32(hw, E1000E_TCTL, E1000E_TCTL_PSP);
		flush32(hw);
		usleep(1000); /* let the last descriptor writes land before the buffers go */
	}
	(void)e1000e_stats_update(ep); /* -ENODEV: gone, the sums stay as they were */
	for (uint16_t q = 0; q < E1000E_MAX_QUEUES; q++) {
		e1000e_rxq_drain(&ep->rxq[q]);
		e1000e_txq_drain(&ep->txq[q]);
	}
}

static void e1000e_close(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);

	ep->hw.dev = NULL; /* closing: the close releases the device itself */
	for (uint16_t q = 0; q < E1000E_MAX_QUEUES; q++) {
		rxq_free(&ep->rxq[q]);
		txq_free(&ep->txq[q]);
	}
	if (ep->dev) {
		if (!e1000e_hw_off(ep)) {
			(void)e1000e_hw_reset(&ep->hw);
			unic_pci_bus_master(ep->dev, false);
		}
		unic_pci_close(ep->dev);
		ep->dev = NULL;
	}
	ep->hw.gone = true; /* no register access after close */
}

/* ---- link, filters, MTU -------------------------------------------------------- */

static int e1000e_link_get(struct unic_port *port, struct unic_link *link)
{
	struct e1000e_port *ep = e1000e_priv(port);
	int rc;

	if (e1000e_hw_off(ep))
		return -ENODEV;
	rc = e1000e_link_read(&ep->hw, link);
	if (rc < 0)
		return rc;
	if (ep->link_admin_down) {
		/* Set down by link_set(false): down whatever STATUS says
		 * (QEMU 7.2 keeps STATUS.LU through SLU and PHY power-down). */
		link->up = false;
		link->speed_mbps = 0;
		link->full_duplex = false;
	}
	return 0;
}

/*
 * Link down: CTRL.SLU clear and the PHY powered down (datasheet 4.6.7,
 * PHY control bit 11): on an 82574 the link drops and the partner sees it.
 * QEMU 7.2 emulates neither (STATUS.LU stays set), so the driver also
 * stops the MAC itself: receive and transmit are disabled (RCTL.EN,
 * TCTL.EN) until link_set(true), and link_get reports the link down.
 * Link up: SLU, PHY powered up, autonegotiation restarted (QEMU: LSC after
 * 500 ms), the MAC enabled again if the port is started. start brings the
 * link up as well.
 */
static int e1000e_link_set(struct unic_port *port, bool up)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_hw *hw = &ep->hw;
	bool started = unic_port_state(port) == UNIC_PORT_STARTED;
	uint16_t bmcr;
	int rc;

	if (hw->gone)
		return -ENODEV;
	if (up) {
		ep->link_admin_down = false;
		set_bits32(hw, E1000E_CTRL, E1000E_CTRL_SLU);
		if (started) {
			set_bits32(hw, E1000E_TCTL, E1000E_TCTL_EN);
			set_bits32(hw, E1000E_RCTL, E1000E_RCTL_EN);
		}
		return e1000e_link_restart(hw);
	}
	ep->link_admin_down = true;
	if (started) {
		clear_bits32(hw, E1000E_RCTL, E1000E_RCTL_EN);
		clear_bits32(hw, E1000E_TCTL, E1000E_TCTL_EN);
	}
	clear_bits32(hw, E1000E_CTRL, E1000E_CTRL_SLU);
	rc = e1000e_phy_read(hw, E1000E_PHY_CTRL, &bmcr);
	if (rc == 0)
		rc = e1000e_phy_write(hw, E1000E_PHY_CTRL, (uint16_t)(bmcr | E1000E_PHY_CTRL_POWER_DOWN));
	return rc;
}

static void rctl_update(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);
	uint32_t keep = read32(&ep->hw, E1000E_RCTL) &
			~(E1000E_RCTL_UPE | E1000E_RCTL_MPE | E1000E_RCTL_VFE | E1000E_RCTL_LPE | E1000E_RCTL_BAM);

	if (unic_port_state(port) == UNIC_PORT_STARTED)
		write32(&ep->hw, E1000E_RCTL, keep | rctl_filters(ep, port));
}

static int e1000e_promisc_set(struct unic_port *port, bool on)
{
	e1000e_priv(port)->promisc = on;
	rctl_update(port);
	return 0;
}

static int e1000e_allmulti_set(struct unic_port *port, bool on)
{
	e1000e_priv(port)->allmulti = on;
	rctl_update(port);
	return 0;
}

static int e1000e_mtu_set(struct unic_port *port, uint16_t mtu)
{
	uint16_t old = port->conf.mtu;

	port->conf.mtu = mtu;
	rctl_update(port);
	port->conf.mtu = old; /* the core stores it on success */
	/* The receive paths drop frames longer than this from now on. */
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++)
		__atomic_store_n(&e1000e_priv(port)->rxq[q].max_frame, (uint32_t)mtu + 22, __ATOMIC_RELAXED);
	return 0;
}

static int e1000e_mac_set(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct e1000e_port *ep = e1000e_priv(port);

	memcpy(ep->uc_addr[0], mac, UNIC_ETHER_ADDR_LEN);
	e1000e_rar_set(&ep->hw, 0, mac);
	return 0;
}

static int e1000e_mac_add(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct e1000e_port *ep = e1000e_priv(port);

	for (unsigned i = 1; i < E1000E_RAR_SIZE; i++) {
		if (ep->uc_used[i] && memcmp(ep->uc_addr[i], mac, UNIC_ETHER_ADDR_LEN) == 0)
			return 0;
	}
	for (unsigned i = 1; i < E1000E_RAR_SIZE; i++) {
		if (!ep->uc_used[i]) {
			memcpy(ep->uc_addr[i], mac, UNIC_ETHER_ADDR_LEN);
			ep->uc_used[i] = true;
			e1000e_rar_set(&ep->hw, i, mac);
			return 0;
		}
	}
	UNIC_PORT_LOG(port, ERR, "the receive address table is full (%u addresses); remove one or turn promiscuous mode on",
		      E1000E_RAR_SIZE);
	return -ENOSPC;
}

static int e1000e_mac_remove(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct e1000e_port *ep = e1000e_priv(port);

	for (unsigned i = 1; i < E1000E_RAR_SIZE; i++) {
		if (ep->uc_used[i] && memcmp(ep->uc_addr[i], mac, UNIC_ETHER_ADDR_LEN) == 0) {
			ep->uc_used[i] = false;
			e1000e_rar_set(&ep->hw, i, NULL);
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Multicast list: the MTA holds one bit per 12-bit hash (RCTL.MO stays 00,
 * address bits 47:36); a frame to a group address whose bit is set passes
 * the filter (and so can an unlisted address with the same hash).
 */
static int e1000e_mc_addr_list_set(struct unic_port *port, const uint8_t (*addrs)[UNIC_ETHER_ADDR_LEN],
				   unsigned nb)
{
	struct e1000e_port *ep = e1000e_priv(port);

	e1000e_mta_build(addrs, nb, 0, ep->mta);
	if (ep->hw.gone)
		return -ENODEV;
	for (unsigned i = 0; i < E1000E_MTA_SIZE; i++)
		write32(&ep->hw, E1000E_MTA(i), ep->mta[i]);
	return 0;
}

/* VFTA (datasheet 10.2.5.12): 4096 bits, word id >> 5, bit id & 31. */
static int e1000e_vlan_filter_set(struct unic_port *port, uint16_t vlan_id, bool on)
{
	struct e1000e_port *ep = e1000e_priv(port);
	uint32_t bit = 1u << (vlan_id & 31);

	if (on)
		ep->vfta[vlan_id >> 5] |= bit;
	else
		ep->vfta[vlan_id >> 5] &= ~bit;
	write32(&ep->hw, E1000E_VFTA(vlan_id >> 5), ep->vfta[vlan_id >> 5]);
	return 0;
}

/* ---- register dump, EEPROM --------------------------------------------------- */

static const uint32_t e1000e_dump_regs[] = {
	E1000E_CTRL, E1000E_STATUS, E1000E_CTRL_EXT, E1000E_RCTL, E1000E_TCTL, E1000E_TIPG,
	E1000E_RFCTL, E1000E_RXCSUM, E1000E_MRQC, E1000E_IMS, E1000E_IVAR, E1000E_ITR,
	E1000E_EIAC, E1000E_IAM,
	E1000E_RDBAL(0), E1000E_RDBAH(0), E1000E_RDLEN(0), E1000E_RDH(0), E1000E_RDT(0),
	E1000E_RDBAL(1), E1000E_RDBAH(1), E1000E_RDLEN(1), E1000E_RDH(1), E1000E_RDT(1),
	E1000E_TDBAL(0), E1000E_TDBAH(0), E1000E_TDLEN(0), E1000E_TDH(0), E1000E_TDT(0),
	E1000E_TDBAL(1), E1000E_TDBAH(1), E1000E_TDLEN(1), E1000E_TDH(1), E1000E_TDT(1),
	E1000E_TXDCTL(0), E1000E_TXDCTL(1), E1000E_TARC(0), E1000E_TARC(1),
	E1000E_EITR(0), E1000E_EITR(1), E1000E_EITR(2), E1000E_EITR(3), E1000E_EITR(4),
	E1000E_RAL(0), E1000E_RAH(0),
};

static int e1000e_regs_get(struct unic_port *port, struct unic_regs *regs)
{
	struct e1000e_port *ep = e1000e_priv(port);
	unsigned n = 0;

	regs->version = 1;
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(e1000e_dump_regs) && n < regs->count_max; i++, n++) {
		regs->offset[n] = e1000e_dump_regs[i];
		regs->value[n] = read32(&ep->hw, e1000e_dump_regs[i]); /* ICR is not dumped: reads clear it */
	}
	regs->count = n;
	return 0;
}

#define E1000E_EEPROM_WORDS 64 /* 82574: words 0x00-0x3f hold the MAC and settings */

static int e1000e_eeprom_get(struct unic_port *port, uint32_t offset, uint32_t len, uint8_t *buf)
{
	struct e1000e_port *ep = e1000e_priv(port);

	if (offset + len < offset || offset + len > E1000E_EEPROM_WORDS * 2u)
		return -EINVAL;
	for (uint32_t i = 0; i < len; i++) {
		uint16_t w;
		int rc = e1000e_eeprom_read(&ep->hw, (uint16_t)((offset + i) / 2), &w);

		if (rc < 0)
			return rc;
		buf[i] = (uint8_t)(((offset + i) & 1) ? w >> 8 : w);
	}
	return 0;
}

const struct unic_port_ops e1000e_ops = {
	.info_get = e1000e_info_get,
	.configure = e1000e_configure,
	.rx_queue_setup = e1000e_rx_queue_setup,
	.rx_queue_release = e1000e_rx_queue_release,
	.tx_queue_setup = e1000e_tx_queue_setup,
	.tx_queue_release = e1000e_tx_queue_release,
	.start = e1000e_start,
	.stop = e1000e_stop,
	.close = e1000e_close,
	.stats_get = e1000e_stats_get,
	.rx_burst = e1000e_rx_burst,
	.tx_burst = e1000e_tx_burst,
	.tx_prepare = e1000e_tx_prepare,
	.rx_pending = e1000e_rx_pending,
	.tx_reclaim = e1000e_tx_reclaim,
	.rx_intr_enable = e1000e_rx_intr_enable,
	.rx_intr_disable = e1000e_rx_intr_disable,
	.intr_sources = e1000e_intr_sources,
	.rx_intr_affinity = e1000e_rx_intr_affinity,
	.coalesce_get = e1000e_coalesce_get,
	.coalesce_set = e1000e_coalesce_set,
	.vlan_filter_set = e1000e_vlan_filter_set,
	.link_get = e1000e_link_get,
	.link_set = e1000e_link_set,
	.mac_set = e1000e_mac_set,
	.mac_add = e1000e_mac_add,
	.mac_remove = e1000e_mac_remove,
	.promisc_set = e1000e_promisc_set,
	.allmulti_set = e1000e_allmulti_set,
	.mc_addr_list_set = e1000e_mc_addr_list_set,
	.mtu_set = e1000e_mtu_set,
	.regs_get = e1000e_regs_get,
	.eeprom_get = e1000e_eeprom_get,
	.xstats_names = e1000e_xstats_names,
	.xstats_get = e1000e_xstats_get,
};

/* ---- probe --------------------------------------------------------------------- */

static void e1000e_setup(struct unic_port *port)
{
	port->ops = &e1000e_ops;
	port->drv = &unic_e1000e_driver;
	e1000e_priv(port)->intx_rx_fd = -1;
}

static bool mac_valid(const uint8_t *m)
{
	static const uint8_t zero[UNIC_ETHER_ADDR_LEN];

	return !(m[0] & 1) && memcmp(m, zero, sizeof(zero)) != 0;
}

/*
 * The bus's release callback (its event dispatch): the kernel asks for the
 * device back, or it vanished. Stop the port through the core, which first
 * takes the queues back from their pollers (lib/napi waits for a round
 * boundary), so nothing touches BAR0 once the bus unmaps it.
 */
static int e1000e_released(struct unic_pci_device *dev, void *arg)
{
	struct unic_port *port = arg;
	struct e1000e_port *ep = e1000e_priv(port);
	bool gone = unic_pci_is_gone(dev);
	int rc;

	if (gone)
		__atomic_store_n(&ep->hw.gone, true, __ATOMIC_RELEASE); /* stop writes nothing */
	rc = unic_port_device_lost(port, gone);
	if (rc == 0)
		__atomic_store_n(&ep->hw.gone, true, __ATOMIC_RELEASE);
	return rc;
}

static int e1000e_pci_probe(struct unic_bus *bus, struct unic_pci_device *dev, struct unic_port **out)
{
	const struct unic_pci_info *info = unic_pci_info(dev);
	struct unic_port *port;
	struct e1000e_port *ep;
	void *va;
	size_t len;
	int rc;

	rc = unic_pci_bar_map(dev, 0, &va, &len);
	if (rc < 0) {
		UNIC_LOG(ERR, PMD, "%s: cannot map BAR0: %s", info->bdf, strerror(-rc));
		return rc;
	}
	if (len < E1000E_BAR0_LEN) {
		UNIC_LOG(ERR, PMD, "%s: BAR0 is %zu bytes; an 82574 has %u", info->bdf, len, E1000E_BAR0_LEN);
		return -EINVAL;
	}
	port = unic_port_alloc(sizeof(*ep), "e1000e%d", e1000e_setup);
	if (port == NULL)
		return -errno;
	ep = e1000e_priv(port);
	ep->hw.regs = va;
	ep->hw.port = port;
	ep->dev = dev;
	ep->bus = bus;
	snprintf(ep->bdf, sizeof(ep->bdf), "%s", info->bdf);
	port->numa_node = info->numa_node;

	rc = e1000e_hw_reset(&ep->hw);
	if (rc < 0) {
		UNIC_LOG(ERR, PMD, "%s: reset failed: %s", info->bdf, strerror(-rc));
		goto put;
	}
	/* DMA only once the device is quiet (the reset stopped rx and tx). */
	rc = unic_pci_bus_master(dev, true);
	if (rc < 0) {
		UNIC_LOG(ERR, PMD, "%s: cannot enable bus mastering: %s", info->bdf, strerror(-rc));
		goto put;
	}
	rc = e1000e_mac_read(&ep->hw, port->mac);
	if (rc < 0 || !mac_valid(port->mac)) {
		UNIC_LOG(ERR, PMD, "%s: no valid MAC address in RA[0] or the EEPROM (%s)", info->bdf,
			 rc < 0 ? strerror(-rc) : "zero or multicast");
		rc = rc < 0 ? rc : -EINVAL;
		goto master_off;
	}
	memcpy(ep->perm_mac, port->mac, sizeof(ep->perm_mac));
	(void)e1000e_stats_update(ep); /* clear what a previous process left ... */
	memset(ep->hw_stats, 0, sizeof(ep->hw_stats)); /* ... and count from here */
	(void)read32(&ep->hw, E1000E_TSCTC);
	(void)read32(&ep->hw, E1000E_IAC);
	rc = e1000e_link_setup(&ep->hw);
	if (rc < 0)
		UNIC_LOG(WARNING, PMD, "%s: PHY access failed (%s)", info->bdf, strerror(-rc));
	rc = unic_port_register(port);
	if (rc < 0)
		goto master_off;
	/* Registered: the port outlives the callback (its close closes the
	 * device, which waits for a running release handler). */
	unic_pci_on_release(dev, e1000e_released, port);
	ep->hw.dev = dev; /* all-ones reads tell the bus from now on */
	UNIC_PORT_LOG(port, INFO, "%s: 82574L, MAC %02x:%02x:%02x:%02x:%02x:%02x", info->bdf,
		      port->mac[0], port->mac[1], port->mac[2], port->mac[3], port->mac[4], port->mac[5]);
	*out = port;
	return 0;
master_off:
	unic_pci_bus_master(dev, false);
put:
	ep->dev = NULL; /* the bus closes it on failure */
	unic_port_put(port);
	return rc;
}

static const struct unic_pci_id e1000e_pci_ids[] = {
	{ 0x8086, 0x10d3 }, /* 82574L */
	{ 0, 0 },
};

const struct unic_driver unic_e1000e_driver = {
	.name = "e1000e",
	.pci_ids = e1000e_pci_ids,
	.pci_probe = e1000e_pci_probe,
};
