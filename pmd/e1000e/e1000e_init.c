/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e1000e initialisation: the steps start takes after the reset, in the
 * datasheet's order (4.6), each programming every register it owns. QEMU
 * 7.2's e1000e keeps its registers between processes on the root bus and
 * its CTRL.RST reloads only RA[0], so nothing is left as found.
 */
#include <string.h>

#include "e1000e_priv.h"

/* Copper link (4.6.7): PHY powered up, autonegotiation on, CTRL.SLU. */
void e1000e_init_link(struct e1000e_port *ep)
{
	int rc = e1000e_link_setup(&ep->hw);

	if (rc < 0)
		UNIC_PORT_LOG(ep->hw.port, WARNING, "PHY access failed (%s); link left as it is", strerror(-rc));
	ep->link_admin_down = false;
}

uint32_t e1000e_rctl_filters(const struct e1000e_port *ep, const struct unic_port *port)
{
	uint32_t r = E1000E_RCTL_BAM;

	if (ep->promisc)
		r |= E1000E_RCTL_UPE | E1000E_RCTL_MPE;
	if (ep->allmulti)
		r |= E1000E_RCTL_MPE;
	if ((port->conf.rx_offloads & UNIC_RX_OFFLOAD_VLAN_FILTER) || ep->flow_vlan_rules)
		r |= E1000E_RCTL_VFE;
	if (port->conf.mtu > 1500)
		r |= E1000E_RCTL_LPE;
	if (ep->fc_set && ep->fc.mac_ctrl_frame_fwd)
		r |= E1000E_RCTL_PMCF;
	return r;
}

/*
 * Receive filters: RA table, MTA, VFTA (10.2.5.12), VET, all rewritten
 * (leftovers must not matter); VLAN mode CTRL.VME for strip or insert.
 */
void e1000e_init_filters(struct e1000e_port *ep, struct unic_port *port)
{
	struct e1000e_hw *hw = &ep->hw;

	if (port->conf.rx_offloads & UNIC_RX_OFFLOAD_VLAN_STRIP ||
	    port->conf.tx_offloads & UNIC_TX_OFFLOAD_VLAN_INSERT)
		set_bits32(hw, E1000E_CTRL, E1000E_CTRL_VME);
	else
		clear_bits32(hw, E1000E_CTRL, E1000E_CTRL_VME);
	memcpy(ep->uc_addr[0], port->mac, UNIC_ETHER_ADDR_LEN);
	ep->uc_used[0] = true;
	for (unsigned i = 0; i < E1000E_RAR_SIZE; i++)
		e1000e_rar_set(hw, i, ep->uc_used[i] ? ep->uc_addr[i] : NULL);
	for (unsigned i = 0; i < E1000E_MTA_SIZE; i++)
		write32(hw, E1000E_MTA(i), ep->mta[i]);
	for (unsigned i = 0; i < E1000E_VFTA_SIZE; i++)
		write32(hw, E1000E_VFTA(i), ep->vfta[i] | ep->flow_vfta[i]);
	write32(hw, E1000E_VET, UNIC_ETHER_TYPE_VLAN);
	if (ep->fc_set)
		e1000e_fc_write(ep);
}

void e1000e_fc_write(struct e1000e_port *ep)
{
	struct e1000e_hw *hw = &ep->hw;
	const struct unic_flow_ctrl *fc = &ep->fc;
	uint32_t ctrl = read32(hw, E1000E_CTRL) & ~(E1000E_CTRL_RFCE | E1000E_CTRL_TFCE);

	write32(hw, E1000E_FCAL, E1000E_FCAL_PAUSE);
	write32(hw, E1000E_FCAH, E1000E_FCAH_PAUSE);
	write32(hw, E1000E_FCT, E1000E_FCT_PAUSE);
	write32(hw, E1000E_FCTTV, fc->pause_time);
	/* The thresholds matter only while pause frames are sent (TFCE). */
	write32(hw, E1000E_FCRTL, (fc->tx_pause ? fc->low_water & E1000E_FCRT_MASK : 0) |
		(fc->tx_pause && fc->send_xon ? E1000E_FCRTL_XONE : 0));
	write32(hw, E1000E_FCRTH, fc->tx_pause ? fc->high_water & E1000E_FCRT_MASK : 0);
	write32(hw, E1000E_CTRL, ctrl | (fc->rx_pause ? E1000E_CTRL_RFCE : 0) |
		(fc->tx_pause ? E1000E_CTRL_TFCE : 0));
}

/* Transmit (4.6.10): every ring register, a queue not in use left empty. */
void e1000e_init_tx(struct e1000e_port *ep, struct unic_port *port)
{
	struct e1000e_hw *hw = &ep->hw;

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
}

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

/* The default RSS key (the one Intel's drivers and DPDK use). */
static const uint8_t e1000e_default_key[E1000E_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

const uint8_t *e1000e_rss_key(const struct unic_port *port)
{
	return port->conf.rss_key_len ? port->conf.rss_key : e1000e_default_key;
}

void e1000e_rss_key_write(struct e1000e_hw *hw, const uint8_t *key)
{
	for (unsigned i = 0; i < E1000E_RSS_KEY_LEN / 4; i++)
		write32(hw, E1000E_RSSRK(i), (uint32_t)key[4 * i] | (uint32_t)key[4 * i + 1] << 8 |
			(uint32_t)key[4 * i + 2] << 16 | (uint32_t)key[4 * i + 3] << 24);
}

/* 128 one-byte entries; bit 7 of an entry picks queue 1 (QEMU reads bit 7;
 * the 82574 datasheet 10.2.5.17 gives the queue index there). Entries not
 * set: every other one to queue 1. */
void e1000e_reta_write(struct e1000e_port *ep)
{
	for (unsigned i = 0; i < E1000E_RETA_SIZE / 4; i++) {
		uint32_t w = 0;

		for (unsigned j = 0; j < 4; j++) {
			unsigned q = ep->reta_set ? ep->reta[4 * i + j] : (4 * i + j) & 1;

			w |= (uint32_t)(q ? 0x80 : 0) << (8 * j);
		}
		write32(&ep->hw, E1000E_RETA(i), w);
	}
}

uint32_t e1000e_mrqc_types(uint64_t t)
{
	uint32_t mrq = 0;

	if (t & UNIC_RSS_IPV4)
		mrq |= E1000E_MRQC_IPV4;
	if (t & UNIC_RSS_IPV4_TCP)
		mrq |= E1000E_MRQC_TCP_IPV4;
	if (t & UNIC_RSS_IPV6)
		mrq |= E1000E_MRQC_IPV6 | E1000E_MRQC_IPV6_EX;
	if (t & UNIC_RSS_IPV6_TCP)
		mrq |= E1000E_MRQC_TCP_IPV6 | E1000E_MRQC_TCP_IPV6_EX;
	return mrq;
}

/* RSS: key (RSSRK), redirection table (RETA, 10.2.5.17), hash types (MRQC). */
static void init_rss(struct e1000e_port *ep, const struct unic_port *port)
{
	struct e1000e_hw *hw = &ep->hw;
	uint64_t t = port->conf.rss_hash_types;

	ep->rss_on = port->conf.nb_rxq > 1 && t != 0;
	if (!ep->rss_on) {
		write32(hw, E1000E_MRQC, 0);
		return;
	}
	e1000e_rss_key_write(hw, e1000e_rss_key(port));
	e1000e_reta_write(ep);
	write32(hw, E1000E_MRQC, e1000e_mrqc_types(t) | E1000E_MRQC_RSS_EN);
}

/*
 * Receive (4.6.9): extended descriptors, checksums, RSS, every ring
 * register, then every free descriptor given a buffer. Buffer size and
 * descriptor type are latched when RCTL is written with EN (QEMU), so RCTL
 * stays 0 here and e1000e_init_enable() writes it last.
 * @return 0, or -ENOBUFS (a pool ran out; the buffers given are the caller's to drain).
 */
int e1000e_init_rx(struct e1000e_port *ep, struct unic_port *port)
{
	struct e1000e_hw *hw = &ep->hw;
	bool rss = port->conf.nb_rxq > 1 && port->conf.rss_hash_types != 0;
	uint32_t room = UINT32_MAX;
	uint16_t buf_size;

	for (uint16_t q = 0; q < port->conf.nb_rxq; q++)
		if (ep->rxq[q].pool->pkt_dataroom < room)
			room = ep->rxq[q].pool->pkt_dataroom;
	ep->rctl_bsize = rx_bufsize(room, &buf_size);
	write32(hw, E1000E_RCTL, 0);
	write32(hw, E1000E_RFCTL, E1000E_RFCTL_EXTEN);
	write32(hw, E1000E_RXCSUM, E1000E_RXCSUM_IPOFLD | E1000E_RXCSUM_TUOFLD |
		(rss ? E1000E_RXCSUM_PCSD : 0));
	write32(hw, E1000E_RDTR, 0);
	write32(hw, E1000E_RADV, 0);
	init_rss(ep, port);
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
		if (e1000e_rxq_fill(rxq) < 0) {
			UNIC_PORT_LOG(port, ERR, "rx queue %u: pool %s ran out while filling %u descriptors",
				      q, rxq->pool->name, rxq->nb_desc - 1);
			return -ENOBUFS;
		}
	}
	return 0;
}

/* Interrupts (7.4): every cause masked until a queue arms its own, the
 * throttling programmed, and in interrupt or hybrid mode the vectors. */
int e1000e_init_intr(struct e1000e_port *ep, struct unic_port *port)
{
	write32(&ep->hw, E1000E_IMC, 0xffffffffu);
	e1000e_coalesce_program(ep);
	return e1000e_intr_wanted(port) ? e1000e_intr_on(port) : 0;
}

/* Enable transmit (4.6.10: TCTL) and then receive (4.6.9: RCTL, last). */
void e1000e_init_enable(struct e1000e_port *ep, struct unic_port *port)
{
	struct e1000e_hw *hw = &ep->hw;

	write32(hw, E1000E_TCTL, E1000E_TCTL_EN | E1000E_TCTL_PSP | (0xfu << E1000E_TCTL_CT_SHIFT) |
		(0x3fu << E1000E_TCTL_COLD_SHIFT) | E1000E_TCTL_RTLC);
	write32(hw, E1000E_RCTL, ep->rctl_bsize | e1000e_rctl_filters(ep, port) | E1000E_RCTL_EN |
		E1000E_RCTL_SECRC | E1000E_RCTL_RDMTS_HALF);
	flush32(hw);
}
