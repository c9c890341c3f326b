/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e1000e control path: PCI probe, the port ops, start and stop.
 *
 * Descriptor rings are DMA zones of the port's (unic_port_dma_alloc, from
 * the memory the bus maps for the device), allocated at queue setup and
 * freed at queue release, as DPDK's em driver does. See docs/e1000e.md.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e1000e_priv.h"
#include "unic_pmds.h"

/* ---- queues ---------------------------------------------------------------- */

static void rxq_free(struct unic_port *port, struct e1000e_rxq *rxq)
{
	e1000e_rxq_drain(rxq);
	free(rxq->sw_ring);
	rxq->sw_ring = NULL;
	unic_port_dma_free(port, &rxq->dma);
	rxq->ring = NULL;
	rxq->pool = NULL;
}

static void txq_free(struct unic_port *port, struct e1000e_txq *txq)
{
	e1000e_txq_drain(txq);
	free(txq->sw_ring);
	free(txq->rs_idx);
	txq->sw_ring = NULL;
	txq->rs_idx = NULL;
	unic_port_dma_free(port, &txq->dma);
	txq->ring = NULL;
	txq->nb_desc = 0;
}

/* A descriptor ring: base 16-byte aligned, length a multiple of 128 bytes (7.1.4; tx alike). */
static int ring_alloc(struct unic_port *port, const char *dir, uint16_t q, size_t len, int numa_node,
		      struct unic_dma *dma)
{
	char what[48];

	snprintf(what, sizeof(what), "%s queue %u descriptor ring", dir, q);
	return unic_port_dma_alloc(port, what, len, 128, numa_node, dma);
}

static int e1000e_rx_queue_setup(struct unic_port *port, uint16_t q,
				 const struct unic_rxq_conf *conf, void **out)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_rxq *rxq = &ep->rxq[q];
	size_t len = (size_t)conf->nb_desc * sizeof(union e1000e_rx_desc);
	int rc = -ENOMEM;

	if (conf->pool->mem == NULL || conf->pool->pkt_dataroom < 256) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: pool %s has no DMA memory or a data room under 256 bytes (%u); use a packet pool from unic_pktpool_create()",
			      q, conf->pool->name, conf->pool->pkt_dataroom);
		return -EINVAL;
	}
	rxq_free(port, rxq);
	rxq->sw_ring = calloc(conf->nb_desc, sizeof(*rxq->sw_ring));
	if (rxq->sw_ring == NULL || (rc = ring_alloc(port, "rx", q, len, conf->numa_node, &rxq->dma)) < 0) {
		rxq_free(port, rxq);
		return rc;
	}
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
	rxq_free(port, &e1000e_priv(port)->rxq[q]);
}

static int e1000e_tx_queue_setup(struct unic_port *port, uint16_t q,
				 const struct unic_txq_conf *conf, void **out)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_txq *txq = &ep->txq[q];
	int rc = -ENOMEM;

	txq_free(port, txq);
	txq->sw_ring = calloc(conf->nb_desc, sizeof(*txq->sw_ring));
	txq->rs_idx = calloc(conf->nb_desc, sizeof(*txq->rs_idx));
	if (txq->sw_ring == NULL || txq->rs_idx == NULL ||
	    (rc = ring_alloc(port, "tx", q, (size_t)conf->nb_desc * sizeof(union e1000e_tx_desc),
			     conf->numa_node, &txq->dma)) < 0) {
		txq_free(port, txq);
		return rc;
	}
	txq->ring = txq->dma.va;
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
	txq_free(port, &e1000e_priv(port)->txq[q]);
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

/*
 * Start: the 82574's initialisation sequence (datasheet 4.6), every step
 * programming every register it owns, every time (e1000e_init.c).
 */
static int e1000e_start(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);
	int rc = e1000e_hw_reset(&ep->hw); /* 4.6.1, 4.6.3: quiet the MAC, reset it */

	if (rc < 0)
		return rc;
	e1000e_init_link(ep);              /* 4.6.7: copper link, autonegotiated */
	e1000e_init_filters(ep, port);     /* RA, MTA, VFTA (10.2.5), CTRL.VME */
	e1000e_init_tx(ep, port);          /* 4.6.10: tx rings, TIPG, TARC */
	rc = e1000e_init_rx(ep, port);     /* 4.6.9: rx rings, RSS, buffers given */
	if (rc == 0)
		rc = e1000e_init_intr(ep, port); /* 7.4: masked, throttled, vectors */
	if (rc < 0) {
		e1000e_stop(port); /* rx and tx still off: interrupts off, buffers back */
		return rc;
	}
	e1000e_init_enable(ep, port);      /* 4.6.10, 4.6.9: TCTL.EN, then RCTL.EN */
	return 0;
}

static void e1000e_close(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);

	ep->hw.dev = NULL; /* closing: the close releases the device itself */
	for (uint16_t q = 0; q < E1000E_MAX_QUEUES; q++) {
		rxq_free(port, &ep->rxq[q]);
		txq_free(port, &ep->txq[q]);
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

	if (e1000e_hw_live(ep) < 0)
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

/* RCTL's filter bits for the settings now (a started port). @return 0 or -ENODEV. */
static int rctl_update(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);
	uint32_t keep = ~(E1000E_RCTL_UPE | E1000E_RCTL_MPE | E1000E_RCTL_VFE | E1000E_RCTL_LPE | E1000E_RCTL_BAM |
			  E1000E_RCTL_PMCF);
	int rc = e1000e_hw_live(ep);

	if (rc == 0 && unic_port_state(port) == UNIC_PORT_STARTED)
		write32(&ep->hw, E1000E_RCTL, (read32(&ep->hw, E1000E_RCTL) & keep) | e1000e_rctl_filters(ep, port));
	return rc;
}

static int e1000e_promisc_set(struct unic_port *port, bool on)
{
	e1000e_priv(port)->promisc = on;
	return rctl_update(port);
}

static int e1000e_allmulti_set(struct unic_port *port, bool on)
{
	e1000e_priv(port)->allmulti = on;
	return rctl_update(port);
}

static int e1000e_mtu_set(struct unic_port *port, uint16_t mtu)
{
	uint16_t old = port->conf.mtu;
	int rc;

	port->conf.mtu = mtu;
	rc = rctl_update(port);
	port->conf.mtu = old; /* the core stores it on success */
	if (rc < 0)
		return rc;
	/* The receive paths drop frames longer than this from now on. */
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++)
		__atomic_store_n(&e1000e_priv(port)->rxq[q].max_frame, (uint32_t)mtu + 22, __ATOMIC_RELAXED);
	return 0;
}

static int e1000e_mac_set(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct e1000e_port *ep = e1000e_priv(port);

	if (e1000e_hw_live(ep) < 0)
		return -ENODEV;
	memcpy(ep->uc_addr[0], mac, UNIC_ETHER_ADDR_LEN);
	e1000e_rar_set(&ep->hw, 0, mac);
	return 0;
}

/* The RA slot (1 on) holding @p mac, or with NULL the first free one; 0:
 * none. Slots of flow rules are theirs (e1000e_flow.c): never found. */
static unsigned uc_find(const struct e1000e_port *ep, const uint8_t *mac)
{
	for (unsigned i = 1; i < E1000E_RAR_SIZE; i++)
		if (mac ? ep->uc_used[i] && !ep->uc_flow[i] && memcmp(ep->uc_addr[i], mac, UNIC_ETHER_ADDR_LEN) == 0 : !ep->uc_used[i])
			return i;
	return 0;
}

static int e1000e_mac_add(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct e1000e_port *ep = e1000e_priv(port);
	unsigned i = uc_find(ep, NULL);

	if (uc_find(ep, mac))
		return 0;
	if (i == 0) {
		UNIC_PORT_LOG(port, ERR, "the receive address table is full (%u addresses); remove one or turn promiscuous mode on",
			      E1000E_RAR_SIZE);
		return -ENOSPC;
	}
	memcpy(ep->uc_addr[i], mac, UNIC_ETHER_ADDR_LEN);
	ep->uc_used[i] = true;
	e1000e_rar_set(&ep->hw, i, mac);
	return 0;
}

static int e1000e_mac_remove(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct e1000e_port *ep = e1000e_priv(port);
	unsigned i = uc_find(ep, mac);

	if (i == 0)
		return -ENOENT;
	ep->uc_used[i] = false;
	e1000e_rar_set(&ep->hw, i, NULL);
	return 0;
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
	if (e1000e_hw_live(ep) < 0)
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

	if (e1000e_hw_live(ep) < 0)
		return -ENODEV;
	if (on)
		ep->vfta[vlan_id >> 5] |= bit;
	else
		ep->vfta[vlan_id >> 5] &= ~bit;
	write32(&ep->hw, E1000E_VFTA(vlan_id >> 5), ep->vfta[vlan_id >> 5] | ep->flow_vfta[vlan_id >> 5]);
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

	if (e1000e_hw_live(ep) < 0)
		return -ENODEV;
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

/* ---- RSS (10.2.5.17-10.2.5.19): the port layer checked the arguments ---------- */

static int e1000e_rss_hash_get(struct unic_port *port, struct unic_rss_conf *rss)
{
	rss->types = port->conf.rss_hash_types;
	memcpy(rss->key, e1000e_rss_key(port), E1000E_RSS_KEY_LEN);
	rss->key_len = E1000E_RSS_KEY_LEN;
	return 0;
}

/* The registers now when the port runs with RSS, else at the next start
 * (from port->conf, which the port layer updates). Types 0 on a running
 * port: MRQC 0, every packet to queue 0 (RXCSUM.PCSD stays until the next
 * start; the rx path reads the hash only with an RSS type set). */
static int e1000e_rss_hash_update(struct unic_port *port, const struct unic_rss_conf *rss)
{
	struct e1000e_port *ep = e1000e_priv(port);

	if (e1000e_hw_live(ep) < 0)
		return -ENODEV;
	if (!ep->rss_on || unic_port_state(port) != UNIC_PORT_STARTED)
		return 0;
	if (rss->key_len)
		e1000e_rss_key_write(&ep->hw, rss->key);
	write32(&ep->hw, E1000E_MRQC, rss->types ? e1000e_mrqc_types(rss->types) | E1000E_MRQC_RSS_EN : 0);
	return 0;
}

static int e1000e_rss_reta_query(struct unic_port *port, uint16_t *reta)
{
	struct e1000e_port *ep = e1000e_priv(port);

	for (unsigned i = 0; i < E1000E_RETA_SIZE; i++)
		reta[i] = ep->reta_set ? ep->reta[i] : (uint16_t)(i & 1);
	return 0;
}

static int e1000e_rss_reta_update(struct unic_port *port, const uint16_t *reta)
{
	struct e1000e_port *ep = e1000e_priv(port);

	if (e1000e_hw_live(ep) < 0)
		return -ENODEV;
	for (unsigned i = 0; i < E1000E_RETA_SIZE; i++)
		ep->reta[i] = (uint8_t)reta[i];
	ep->reta_set = true;
	e1000e_reta_write(ep);
	return 0;
}

/* ---- flow control (3.7.6) --------------------------------------------------------- */

static int e1000e_flow_ctrl_get(struct unic_port *port, struct unic_flow_ctrl *fc)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_hw *hw = &ep->hw;
	uint32_t ctrl, fcrtl;

	if (e1000e_hw_live(ep) < 0)
		return -ENODEV;
	ctrl = read32(hw, E1000E_CTRL);
	fcrtl = read32(hw, E1000E_FCRTL);
	fc->rx_pause = (ctrl & E1000E_CTRL_RFCE) != 0;
	fc->tx_pause = (ctrl & E1000E_CTRL_TFCE) != 0;
	fc->high_water = read32(hw, E1000E_FCRTH) & E1000E_FCRT_MASK;
	fc->low_water = fcrtl & E1000E_FCRT_MASK;
	fc->send_xon = (fcrtl & E1000E_FCRTL_XONE) != 0;
	fc->pause_time = (uint16_t)read32(hw, E1000E_FCTTV);
	fc->mac_ctrl_frame_fwd = ep->fc_set && ep->fc.mac_ctrl_frame_fwd;
	fc->autoneg = false;
	return 0;
}

static int e1000e_flow_ctrl_set(struct unic_port *port, const struct unic_flow_ctrl *fc)
{
	struct e1000e_port *ep = e1000e_priv(port);

	if (fc->autoneg) {
		UNIC_PORT_LOG(port, ERR, "flow control: pause autonegotiation is not done by this driver; "
			      "set rx/tx pause with autoneg off (they are forced in CTRL.RFCE/TFCE)");
		return -EINVAL;
	}
	if (fc->tx_pause && (fc->high_water > E1000E_RX_FIFO || fc->low_water >= fc->high_water ||
			     fc->high_water < 8)) {
		UNIC_PORT_LOG(port, ERR, "flow control: high water %u, low water %u bytes; this device takes "
			      "low < high, high from 8 to %u (its rx buffer)", fc->high_water, fc->low_water,
			      E1000E_RX_FIFO);
		return -EINVAL;
	}
	if (e1000e_hw_live(ep) < 0)
		return -ENODEV;
	ep->fc = *fc;
	ep->fc_set = true;
	e1000e_fc_write(ep);
	return rctl_update(port);
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
	.flow_validate = e1000e_flow_validate,
	.flow_create = e1000e_flow_create,
	.flow_destroy = e1000e_flow_destroy,
	.rss_hash_get = e1000e_rss_hash_get,
	.rss_hash_update = e1000e_rss_hash_update,
	.rss_reta_query = e1000e_rss_reta_query,
	.rss_reta_update = e1000e_rss_reta_update,
	.flow_ctrl_get = e1000e_flow_ctrl_get,
	.flow_ctrl_set = e1000e_flow_ctrl_set,
	.desc_status = e1000e_desc_status,
	.rx_queue_count = e1000e_rx_queue_count,
	.desc_read = e1000e_desc_read,
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
	unic_port_dma_mem_set(port, unic_pci_dma_mem(dev)); /* the rings' memory */
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
	e1000e_stats_clear(ep);
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
