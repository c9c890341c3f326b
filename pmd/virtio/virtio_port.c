/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio-net control path: PCI probe and virtio_port_attach(), the port
 * ops, start and stop. See docs/virtio.md.
 *
 * Each start runs the whole initialisation (virtio 1.1 3.1.1): reset,
 * feature negotiation, virtqueues, DRIVER_OK, then the rx buffers; each
 * stop resets the device, which stops its DMA, before the buffers go back.
 * Virtqueue memory is a DMA zone of the port's per queue, allocated at
 * queue setup and freed at queue release.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "virtio_priv.h"
#include "unic_pmds.h"

#define HDR_MAX VIRTIO_HDR_MAX /* the header's largest size: headroom needed */

/* The virtqueue numbers of queue pair q (5.1.2): receiveq, transmitq. */
static inline uint16_t vq_rx_index(uint16_t q)
{
	return (uint16_t)(2 * q);
}

static inline uint16_t vq_tx_index(uint16_t q)
{
	return (uint16_t)(2 * q + 1);
}

static bool has(const struct virtio_port *vp, unsigned bit)
{
	return (vp->hw.features & VIRTIO_BIT(bit)) != 0;
}

/* ---- queues ------------------------------------------------------------------ */

static void vq_free(struct unic_port *port, struct virtio_vq *vq)
{
	free(vq->next);
	vq->next = NULL;
	unic_port_dma_free(port, &vq->dma);
	vq->desc = NULL;
	vq->size = 0;
}

static void rxq_free(struct unic_port *port, struct virtio_rxq *rxq)
{
	virtio_rxq_drain(rxq);
	free(rxq->sw_ring);
	rxq->sw_ring = NULL;
	vq_free(port, &rxq->vq);
	rxq->pool = NULL;
}

static void txq_free(struct unic_port *port, struct virtio_txq *txq)
{
	virtio_txq_drain(txq);
	free(txq->sw_ring);
	free(txq->chain_len);
	txq->sw_ring = NULL;
	txq->chain_len = NULL;
	txq->hdrs = NULL;
	txq->indir = NULL;
	vq_free(port, &txq->vq);
}

/* The largest power of two <= @p v, at most VIRTQ_SIZE_MAX (0 for 0). */
static uint16_t pow2_floor(uint16_t v)
{
	uint16_t p = 1;

	if (v == 0)
		return 0;
	while ((uint32_t)p * 2 <= v && p < VIRTQ_SIZE_MAX)
		p = (uint16_t)(p * 2);
	return p;
}

/*
 * The ring size for a request of @p nb_desc (the core gives the default
 * for 0): a split virtqueue's size is a power of two (2.6) no larger than
 * the device's maximum. Any count is taken, as DPDK's virtio driver does
 * (applications tuned for other NICs ask 1024 or 4096): the ring is the
 * largest power of two not above the request and the device's maximum.
 */
static uint16_t ring_size(struct unic_port *port, const char *dir, uint16_t q, uint16_t nb_desc)
{
	struct virtio_port *vp = virtio_priv(port);
	uint16_t size = pow2_floor(nb_desc < vp->max_queue_size ? nb_desc : vp->max_queue_size);

	if (size != nb_desc)
		UNIC_PORT_LOG(port, INFO, "%s queue %u: %u descriptors asked; the virtqueue has %u (a power of two, at most the device's %u)",
			      dir, q, nb_desc, size, vp->max_queue_size);
	return size;
}

static int vq_alloc(struct unic_port *port, const char *dir, uint16_t q, struct virtio_vq *vq, uint16_t size,
		    size_t extra, int numa_node)
{
	char what[48];
	int rc;

	snprintf(what, sizeof(what), "%s queue %u virtqueue", dir, q);
	vq->next = calloc(size, sizeof(*vq->next));
	if (vq->next == NULL)
		return -ENOMEM;
	rc = unic_port_dma_alloc(port, what, virtio_vq_bytes(size, extra), 4096, numa_node, &vq->dma);
	if (rc < 0)
		return rc;
	vq->size = size;
	virtio_vq_init(vq);
	return 0;
}

static int virtio_rx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *conf, void **out)
{
	struct virtio_port *vp = virtio_priv(port);
	struct virtio_rxq *rxq = &vp->rxq[q];
	uint16_t size;
	int rc;

	if (conf->pool->mem == NULL || conf->pool->pkt_headroom < HDR_MAX || conf->pool->pkt_dataroom < 256) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: pool %s has no DMA memory, a headroom under %u bytes (%u) or a data room under 256 bytes (%u); use a packet pool from unic_pktpool_create()",
			      q, conf->pool->name, HDR_MAX, conf->pool->pkt_headroom, conf->pool->pkt_dataroom);
		return -EINVAL;
	}
	size = ring_size(port, "rx", q, conf->nb_desc);
	rxq_free(port, rxq);
	rxq->sw_ring = calloc(size, sizeof(*rxq->sw_ring));
	if (rxq->sw_ring == NULL)
		rc = -ENOMEM;
	else
		rc = vq_alloc(port, "rx", q, &rxq->vq, size, 0, conf->numa_node);
	if (rc < 0) {
		rxq_free(port, rxq);
		return rc;
	}
	rxq->vq.index = vq_rx_index(q);
	rxq->pool = conf->pool;
	rxq->headroom = conf->pool->pkt_headroom;
	rxq->hdr_len = vp->hdr_len;
	rxq->buf_len = conf->pool->pkt_dataroom + rxq->hdr_len;
	rxq->port_id = unic_port_id(port);
	rxq->qid = q;
	rxq->vp = vp;
	rxq->irq_fd = -1;
	rxq->vector = VIRTIO_MSI_NO_VECTOR;
	unic_port_rxq_counters(port, q, &rxq->cnt);
	*out = rxq;
	return 0;
}

static void virtio_rx_queue_release(struct unic_port *port, uint16_t q, void *rxq)
{
	(void)rxq;
	rxq_free(port, &virtio_priv(port)->rxq[q]);
}

static int virtio_tx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_txq_conf *conf, void **out)
{
	struct virtio_port *vp = virtio_priv(port);
	struct virtio_txq *txq = &vp->txq[q];
	size_t indir_off;
	uint16_t size;
	int rc;

	size = ring_size(port, "tx", q, conf->nb_desc);
	/* With INDIRECT_DESC an indirect table a descriptor id, after the headers. */
	indir_off = UNIC_ALIGN_CEIL(virtio_vq_bytes(size, (size_t)size * HDR_MAX), (size_t)UNIC_CACHE_LINE_SIZE);
	txq_free(port, txq);
	txq->sw_ring = calloc(size, sizeof(*txq->sw_ring));
	txq->chain_len = calloc(size, sizeof(*txq->chain_len));
	if (txq->sw_ring == NULL || txq->chain_len == NULL)
		rc = -ENOMEM;
	else
		rc = vq_alloc(port, "tx", q, &txq->vq, size,
			      has(vp, VIRTIO_F_INDIRECT_DESC) ?
				      indir_off - virtio_vq_bytes(size, 0) + (size_t)size * VIRTIO_TX_INDIR_LEN :
				      (size_t)size * HDR_MAX,
			      conf->numa_node);
	if (rc < 0) {
		txq_free(port, txq);
		return rc;
	}
	/* One header per descriptor id, after the rings (virtio_vq_bytes). */
	txq->hdrs = (volatile struct virtio_net_hdr_hash *)((uint8_t *)txq->vq.dma.va + virtio_vq_bytes(size, 0));
	txq->hdrs_iova = txq->vq.dma.iova + virtio_vq_bytes(size, 0);
	if (has(vp, VIRTIO_F_INDIRECT_DESC)) {
		txq->indir = (uint8_t *)txq->vq.dma.va + indir_off;
		txq->indir_iova = txq->vq.dma.iova + indir_off;
	}
	txq->vq.index = vq_tx_index(q);
	txq->qid = q;
	unic_port_txq_counters(port, q, &txq->cnt);
	*out = txq;
	return 0;
}

static void virtio_tx_queue_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)txq;
	txq_free(port, &virtio_priv(port)->txq[q]);
}

/* ---- information and configuration ------------------------------------------ */

/* The largest MTU: the device's (VIRTIO_NET_F_MTU), else what the driver
 * chains with mergeable buffers, else what one buffer holds (unknown
 * until a pool is given: 1500). */
static uint16_t max_mtu(const struct virtio_port *vp)
{
	if (vp->dev_mtu)
		return vp->dev_mtu;
	return has(vp, VIRTIO_NET_F_MRG_RXBUF) ? VIRTIO_MAX_MTU : 1500;
}

/* ---- RSS (5.1.6.5.7) ------------------------------------------------------------ */

/* The key Intel's drivers, DPDK and Linux's virtio_net start from. */
const uint8_t virtio_rss_default_key[VIRTIO_NET_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

static const struct {
	uint64_t unic;
	uint32_t dev;
} rss_type_map[] = {
	{ UNIC_RSS_IPV4, VIRTIO_NET_RSS_HASH_TYPE_IPV4 },
	{ UNIC_RSS_IPV4_TCP, VIRTIO_NET_RSS_HASH_TYPE_TCPV4 },
	{ UNIC_RSS_IPV4_UDP, VIRTIO_NET_RSS_HASH_TYPE_UDPV4 },
	{ UNIC_RSS_IPV6, VIRTIO_NET_RSS_HASH_TYPE_IPV6 },
	{ UNIC_RSS_IPV6_TCP, VIRTIO_NET_RSS_HASH_TYPE_TCPV6 },
	{ UNIC_RSS_IPV6_UDP, VIRTIO_NET_RSS_HASH_TYPE_UDPV6 },
};

uint32_t virtio_rss_types(uint64_t t)
{
	uint32_t d = 0;

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(rss_type_map); i++)
		if (t & rss_type_map[i].unic)
			d |= rss_type_map[i].dev;
	return d;
}

uint64_t virtio_rss_capa(uint32_t dev_types)
{
	uint64_t t = 0;

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(rss_type_map); i++)
		if (dev_types & rss_type_map[i].dev)
			t |= rss_type_map[i].unic;
	return t;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

size_t virtio_rss_config_build(uint8_t *buf, size_t len, uint32_t types, uint16_t tbl_len, uint16_t nb_rxq,
			       uint16_t max_tx_vq, const uint8_t *key, uint8_t key_len)
{
	size_t need = VIRTIO_NET_RSS_CONFIG_LEN(tbl_len, key_len), at = 0;

	if (len < need || tbl_len == 0 || (tbl_len & (tbl_len - 1)) != 0 || nb_rxq == 0)
		return 0;
	buf[at++] = (uint8_t)types;
	buf[at++] = (uint8_t)(types >> 8);
	buf[at++] = (uint8_t)(types >> 16);
	buf[at++] = (uint8_t)(types >> 24);
	put_le16(buf + at, (uint16_t)(tbl_len - 1)); /* indirection_table_mask */
	at += 2;
	put_le16(buf + at, 0);                       /* unclassified_queue: receiveq1 */
	at += 2;
	for (uint16_t i = 0; i < tbl_len; i++, at += 2)
		put_le16(buf + at, (uint16_t)(i % nb_rxq));
	put_le16(buf + at, max_tx_vq);
	at += 2;
	buf[at++] = key_len;
	memcpy(buf + at, key, key_len);
	return at + key_len;
}

/* RSS can be used: negotiated, with a key and a table the device takes. */
static bool rss_usable(const struct virtio_port *vp)
{
	return has(vp, VIRTIO_NET_F_RSS) && vp->rss_key_max > 0 && vp->rss_table_max > 0 &&
	       virtio_rss_capa(vp->hash_types) != 0;
}

/* The indirection table: the device's longest, at most 128 entries (a
 * power of two: the mask selects an entry). */
static uint16_t rss_table_len(const struct virtio_port *vp)
{
	uint16_t n = vp->rss_table_max < VIRTIO_NET_RSS_TABLE_MAX ? vp->rss_table_max : VIRTIO_NET_RSS_TABLE_MAX;

	return pow2_floor(n);
}

/* The key: the device's longest, at most 40 bytes. */
static uint8_t rss_key_len(const struct virtio_port *vp)
{
	return vp->rss_key_max < VIRTIO_NET_RSS_KEY_LEN ? vp->rss_key_max : VIRTIO_NET_RSS_KEY_LEN;
}

static void virtio_info_get(struct unic_port *port, struct unic_port_info *info)
{
	struct virtio_port *vp = virtio_priv(port);
	uint16_t qmax = vp->max_queue_size;

	snprintf(info->driver, sizeof(info->driver), "virtio");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "%s", vp->bus_addr);
	/* What was negotiated, as far as the field holds: "virtio 1.x" and
	 * the feature bits (docs/virtio.md; the names: xstats and the log). */
	snprintf(info->fw_version, sizeof(info->fw_version), "virtio1 f=%" PRIx64, vp->hw.features);
	/* Queue pairs: the device's max_virtqueue_pairs (MQ), at most
	 * VIRTIO_MAX_PAIRS; one without MQ. */
	info->max_rxq = vp->pairs_max;
	info->max_txq = vp->pairs_max;
	info->rx_desc_min = info->tx_desc_min = qmax < VIRTIO_DESC_MIN ? qmax : VIRTIO_DESC_MIN;
	/* Any count up to a virtqueue's largest is taken: the ring is the
	 * power of two at or below it and the device's maximum (ring_size). */
	info->rx_desc_max = info->tx_desc_max = VIRTQ_SIZE_MAX;
	info->rx_desc_align = info->tx_desc_align = 1;
	info->rx_desc_default = info->tx_desc_default = qmax < VIRTIO_DESC_DEFAULT ? qmax : VIRTIO_DESC_DEFAULT;
	info->min_mtu = VIRTIO_MIN_MTU;
	info->max_mtu = max_mtu(vp);
	info->rx_offload_capa = UNIC_RX_OFFLOAD_VLAN_STRIP;
	if ((vp->hw.dev_features & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ)) &&
	    (vp->hw.dev_features & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VLAN)))
		info->rx_offload_capa |= UNIC_RX_OFFLOAD_VLAN_FILTER;
	if (has(vp, VIRTIO_NET_F_MRG_RXBUF))
		info->rx_offload_capa |= UNIC_RX_OFFLOAD_SCATTER;
	if (has(vp, VIRTIO_NET_F_GUEST_CSUM))
		info->rx_offload_capa |= UNIC_RX_OFFLOAD_TCP_CKSUM | UNIC_RX_OFFLOAD_UDP_CKSUM;
	/* What a start asking for LRO would negotiate, not what the last
	 * start did (without LRO it leaves GUEST_TSO4/6 out). */
	if (virtio_features_wanted(vp->hw.dev_features, vp->iommu) &
	    (VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4) | VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6)))
		info->rx_offload_capa |= UNIC_RX_OFFLOAD_TCP_LRO;
	if (has(vp, VIRTIO_NET_F_HASH_REPORT) && vp->rss_key_max > 0 && virtio_rss_capa(vp->hash_types) != 0)
		info->rx_offload_capa |= UNIC_RX_OFFLOAD_RSS_HASH;
	/* RSS steering (VIRTIO_NET_F_RSS); without it the device's default
	 * steering spreads frames over the queue pairs (QEMU over a
	 * multiqueue tap: the host's tap picks the queue by flow). */
	if (rss_usable(vp)) {
		info->rss_hash_capa = virtio_rss_capa(vp->hash_types);
		info->reta_size = rss_table_len(vp);
		info->rss_key_size = rss_key_len(vp);
	}
	info->tx_offload_capa = UNIC_TX_OFFLOAD_VLAN_INSERT | UNIC_TX_OFFLOAD_MULTI_SEGS;
	if (has(vp, VIRTIO_NET_F_CSUM))
		info->tx_offload_capa |= UNIC_TX_OFFLOAD_IPV4_CKSUM | UNIC_TX_OFFLOAD_TCP_CKSUM |
					 UNIC_TX_OFFLOAD_UDP_CKSUM;
	if (has(vp, VIRTIO_NET_F_HOST_TSO4) && has(vp, VIRTIO_NET_F_HOST_TSO6))
		info->tx_offload_capa |= UNIC_TX_OFFLOAD_TCP_TSO;
	info->speed_capa_mbps = 10000;
	info->has_intr = vp->dev != NULL &&
			 (unic_pci_irq_count(vp->dev, UNIC_PCI_IRQ_MSIX) >= 1 ||
			  unic_pci_irq_count(vp->dev, UNIC_PCI_IRQ_INTX) >= 1);
}

static int virtio_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	struct virtio_port *vp = virtio_priv(port);

	/* The core checked the counts against max_rxq/max_txq and the RSS
	 * types against rss_hash_capa (0 without VIRTIO_NET_F_RSS). */
	if (conf->nb_rxq < conf->nb_txq && conf->rss_hash_types == 0) {
		UNIC_PORT_LOG(port, ERR, "%u rx and %u tx queues: virtio enables queues in pairs, and without RSS the device spreads frames over the rx queues of all %u pairs; ask as many rx queues as tx queues (or RSS, whose table names only the %u rx queues)",
			      conf->nb_rxq, conf->nb_txq, conf->nb_txq, conf->nb_rxq);
		return -EINVAL;
	}
	if ((conf->tx_offloads & UNIC_TX_OFFLOAD_TCP_TSO) &&
	    !(has(vp, VIRTIO_NET_F_HOST_TSO4) && has(vp, VIRTIO_NET_F_HOST_TSO6))) {
		UNIC_PORT_LOG(port, ERR, "TSO: the device offers no HOST_TSO4/HOST_TSO6 (QEMU offers them only toward a tap with vnet_hdr=on)");
		return -EINVAL;
	}
	if ((conf->rx_offloads & UNIC_RX_OFFLOAD_TCP_LRO) && !(conf->rx_offloads & UNIC_RX_OFFLOAD_SCATTER)) {
		UNIC_PORT_LOG(port, ERR, "LRO: packets of up to 64 KiB arrive as chains of buffers; ask the scatter rx offload too");
		return -EINVAL;
	}
	return 0;
}

/* ---- start and stop ---------------------------------------------------------- */

static void virtio_stop(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);

	/* The reset stops the device's DMA (QEMU: synchronous) before any
	 * buffer goes back to its pool. */
	if (!virtio_hw_off(vp))
		(void)virtio_hw_reset(&vp->hw);
	virtio_ctrl_stop(&vp->hw);
	virtio_intr_off(port);
	for (uint16_t q = 0; q < VIRTIO_MAX_PAIRS; q++) {
		virtio_rxq_drain(&vp->rxq[q]);
		virtio_txq_drain(&vp->txq[q]);
		vp->rxq[q].intr_on = false;
	}
}

/* Rx buffer settings for the configuration now: the largest frame, and
 * whether it fits (without mergeable buffers one buffer holds a frame). */
static int rx_prepare(struct unic_port *port, struct virtio_rxq *rxq, uint16_t q)
{
	struct virtio_port *vp = virtio_priv(port);
	uint32_t max_frame = (uint32_t)port->conf.mtu + UNIC_ETHER_VLAN_HDR_LEN;

	rxq->mrg = has(vp, VIRTIO_NET_F_MRG_RXBUF);
	rxq->csum = has(vp, VIRTIO_NET_F_GUEST_CSUM);
	rxq->hdr_len = vp->hdr_len;
	rxq->buf_len = rxq->pool->pkt_dataroom + rxq->hdr_len;
	rxq->hash = has(vp, VIRTIO_NET_F_HASH_REPORT) && (port->conf.rx_offloads & UNIC_RX_OFFLOAD_RSS_HASH);
	rxq->csum_flags = (port->conf.rx_offloads & (UNIC_RX_OFFLOAD_TCP_CKSUM | UNIC_RX_OFFLOAD_UDP_CKSUM)) != 0;
	rxq->lro = has(vp, VIRTIO_NET_F_GUEST_TSO4) || has(vp, VIRTIO_NET_F_GUEST_TSO6);
	rxq->vlan_strip = (port->conf.rx_offloads & UNIC_RX_OFFLOAD_VLAN_STRIP) != 0;
	rxq->max_frame = max_frame;
	/* A device waits until the posted buffers hold a whole frame (QEMU:
	 * virtio_net_has_buffers): with LRO, a 64 KiB one must fit in what
	 * stays posted between refills, or the queue stalls for good. */
	if (rxq->lro && (uint64_t)(rxq->vq.size - (VIRTIO_RX_FREE_THRESH - 1)) * rxq->buf_len <
				(uint64_t)VIRTIO_LRO_MAX_FRAME + rxq->hdr_len) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: LRO takes frames of up to %u bytes over mergeable buffers, and the %u buffers of %u bytes always posted hold less; use more rx descriptors or a larger data room",
			      q, VIRTIO_LRO_MAX_FRAME, rxq->vq.size - (VIRTIO_RX_FREE_THRESH - 1), rxq->buf_len);
		return -EINVAL;
	}
	if (!rxq->mrg && rxq->buf_len < max_frame + rxq->hdr_len) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: the device has no mergeable buffers, so one buffer must hold a whole frame: %u bytes with the header, and pool %s gives %u; use a larger data room or a smaller MTU",
			      q, max_frame + rxq->hdr_len, rxq->pool->name, rxq->buf_len);
		return -EINVAL;
	}
	return 0;
}

/* The table entries of a built RSS_CONFIG (5.1.6.5.7.1: after the 8-byte
 * head) from the one set, when it fits the queues in use. */
static void rss_table_apply(const struct virtio_port *vp, uint8_t *buf, uint16_t tbl_len, uint16_t nb_rxq)
{
	if (!vp->reta_set)
		return;
	for (uint16_t i = 0; i < tbl_len; i++)
		if (vp->reta[i] >= nb_rxq)
			return; /* set for more queues than now: round-robin */
	for (uint16_t i = 0; i < tbl_len; i++)
		put_le16(buf + 8 + 2 * i, vp->reta[i]);
}

/* RSS_CONFIG with @p types and @p key, the table in use, on a started port. */
static int rss_config_send(struct unic_port *port, uint64_t types, const uint8_t *key)
{
	struct virtio_port *vp = virtio_priv(port);
	uint8_t buf[VIRTIO_NET_RSS_CONFIG_LEN(VIRTIO_NET_RSS_TABLE_MAX, VIRTIO_NET_RSS_KEY_LEN)];
	uint16_t tbl = rss_table_len(vp);
	size_t n = virtio_rss_config_build(buf, sizeof(buf), virtio_rss_types(types), tbl, port->conf.nb_rxq,
					   vp->nb_pairs, key, rss_key_len(vp));

	if (n == 0)
		return -EINVAL;
	rss_table_apply(vp, buf, tbl, port->conf.nb_rxq);
	return virtio_ctrl_cmd(&vp->hw, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, buf, n,
			       "RSS configuration (MQ RSS_CONFIG)");
}

/*
 * Queue pairs, RSS and hash reports, by control commands after DRIVER_OK
 * (the device reset at start forgot the last ones: one pair, no RSS):
 *   RSS asked (rss_hash_types) and RSS negotiated: RSS_CONFIG with the
 *     types, the port's key (or the default one), a table spreading over
 *     the rx queues round-robin, and max_tx_vq = the pairs in use (it sets
 *     them, as VQ_PAIRS_SET does);
 *   else with MQ: VQ_PAIRS_SET, and the device steers by its own rule
 *     (QEMU over a multiqueue tap: the host's tap picks the queue);
 *   hash reports asked (UNIC_RX_OFFLOAD_RSS_HASH) without RSS: HASH_CONFIG
 *     with the asked types (all the device has if none).
 * @return 0 or the command's error (logged by virtio_ctrl_cmd, naming it).
 */
static int mq_configure(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);
	const struct unic_port_conf *c = &port->conf;
	uint16_t pairs = c->nb_rxq > c->nb_txq ? c->nb_rxq : c->nb_txq;
	uint8_t buf[VIRTIO_NET_RSS_CONFIG_LEN(VIRTIO_NET_RSS_TABLE_MAX, VIRTIO_NET_RSS_KEY_LEN)];
	size_t n;
	int rc;

	vp->rss_on = false;
	vp->nb_pairs = pairs;
	if (c->rss_hash_types != 0 && rss_usable(vp)) {
		uint8_t klen = rss_key_len(vp);
		const uint8_t *key = c->rss_key_len ? c->rss_key : virtio_rss_default_key;

		n = virtio_rss_config_build(buf, sizeof(buf), virtio_rss_types(c->rss_hash_types), rss_table_len(vp),
					    c->nb_rxq, pairs, key, klen);
		rss_table_apply(vp, buf, rss_table_len(vp), c->nb_rxq);
		rc = virtio_ctrl_cmd(&vp->hw, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_RSS_CONFIG, buf, n,
				     "RSS configuration (MQ RSS_CONFIG)");
		if (rc < 0)
			return rc;
		vp->rss_on = true;
		return 0;
	}
	if (has(vp, VIRTIO_NET_F_MQ)) {
		uint8_t le[2] = { (uint8_t)pairs, (uint8_t)(pairs >> 8) };

		rc = virtio_ctrl_cmd(&vp->hw, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET, le, sizeof(le),
				     "queue pairs (MQ VQ_PAIRS_SET)");
		if (rc < 0)
			return rc;
	}
	if (has(vp, VIRTIO_NET_F_HASH_REPORT) && (c->rx_offloads & UNIC_RX_OFFLOAD_RSS_HASH)) {
		uint32_t types = virtio_rss_types(c->rss_hash_types ? c->rss_hash_types : virtio_rss_capa(vp->hash_types));
		const uint8_t *key = c->rss_key_len ? c->rss_key : virtio_rss_default_key;

		/* struct virtio_net_hash_config: the RSS layout with a one-entry
		 * zero table and max_tx_vq 0 in its reserved fields. */
		n = virtio_rss_config_build(buf, sizeof(buf), types, 1, 1, 0, key, rss_key_len(vp));
		rc = virtio_ctrl_cmd(&vp->hw, VIRTIO_NET_CTRL_MQ, VIRTIO_NET_CTRL_MQ_HASH_CONFIG, buf, n,
				     "hash reports (MQ HASH_CONFIG)");
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int virtio_start(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);
	struct virtio_hw *hw = &vp->hw;
	int rc;

	if (virtio_hw_off(vp))
		return -ENODEV;
	/* Left out of this negotiation, by the configuration:
	 * - CTRL_VLAN without the VLAN filter offload: the device filters VLANs
	 *   once it is negotiated (QEMU: all of them until added);
	 * - receive GSO without LRO: a host's 64 KiB frames would otherwise
	 *   reach an application that takes MTU-sized ones (without
	 *   GUEST_TSO4/6 the host cuts them before the device). */
	hw->features_off = 0;
	if (!(port->conf.rx_offloads & UNIC_RX_OFFLOAD_VLAN_FILTER))
		hw->features_off |= VIRTIO_BIT(VIRTIO_NET_F_CTRL_VLAN);
	if (!(port->conf.rx_offloads & UNIC_RX_OFFLOAD_TCP_LRO))
		hw->features_off |= VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4) | VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6);
	/* 3.1.1: reset, ACKNOWLEDGE, DRIVER, features, FEATURES_OK. */
	rc = virtio_hw_init(hw, vp->iommu);
	if (rc < 0)
		return rc;
	vp->hdr_len = has(vp, VIRTIO_NET_F_HASH_REPORT) ? (uint16_t)sizeof(struct virtio_net_hdr_hash)
							: (uint16_t)sizeof(struct virtio_net_hdr);
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		rc = rx_prepare(port, &vp->rxq[q], q);
		if (rc < 0)
			goto fail;
	}
	if (virtio_intr_wanted(port)) {
		rc = virtio_intr_on(port);
		if (rc < 0)
			goto fail;
	}
	/* Step 7: the virtqueues. */
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		struct virtio_rxq *rxq = &vp->rxq[q];

		rxq->vq.packed = has(vp, VIRTIO_F_RING_PACKED);
		rxq->vq.in_order = has(vp, VIRTIO_F_IN_ORDER);
		virtio_rxq_drain(rxq);
		rxq->bufs_per_frame = VIRTIO_RX_BPF_ONE;
		rxq->vq.event_idx = has(vp, VIRTIO_F_EVENT_IDX);
		rxq->intr_on = vp->intr_on;
		rc = virtio_hw_queue_setup(hw, &rxq->vq, rxq->vector);
		if (rc < 0)
			goto fail;
	}
	for (uint16_t q = 0; q < port->conf.nb_txq; q++) {
		struct virtio_txq *txq = &vp->txq[q];

		txq->vq.packed = has(vp, VIRTIO_F_RING_PACKED);
		txq->vq.in_order = has(vp, VIRTIO_F_IN_ORDER);
		virtio_txq_drain(txq);
		txq->vq.event_idx = has(vp, VIRTIO_F_EVENT_IDX);
		txq->indirect = has(vp, VIRTIO_F_INDIRECT_DESC) && txq->indir != NULL;
		txq->csum = has(vp, VIRTIO_NET_F_CSUM);
		txq->tso4 = has(vp, VIRTIO_NET_F_HOST_TSO4);
		txq->tso6 = has(vp, VIRTIO_NET_F_HOST_TSO6);
		txq->vlan_insert = (port->conf.tx_offloads & UNIC_TX_OFFLOAD_VLAN_INSERT) != 0;
		txq->hdr_len = vp->hdr_len;
		rc = virtio_hw_queue_setup(hw, &txq->vq, VIRTIO_MSI_NO_VECTOR);
		if (rc < 0)
			goto fail;
	}
	rc = virtio_ctrl_setup(hw);
	if (rc < 0)
		goto fail;
	/* Step 8: DRIVER_OK, then the rx buffers (their kick reaches a live
	 * device: QEMU takes no frame before DRIVER_OK). */
	virtio_hw_status_set(hw, VIRTIO_STATUS_DRIVER_OK);
	if (virtio_hw_status(hw) & VIRTIO_STATUS_NEEDS_RESET) {
		UNIC_PORT_LOG(port, ERR, "the device set DEVICE_NEEDS_RESET right after DRIVER_OK (device_status 0x%02x): it found the virtqueue setup bad",
			      virtio_hw_status(hw));
		rc = -EIO;
		goto fail;
	}
	/* The filters the reset took away, before any frame is taken. */
	rc = virtio_ctrl_restore(port);
	if (rc < 0)
		goto fail;
	rc = mq_configure(port);
	if (rc < 0)
		goto fail;
	vp->link_up_last = true;
	if (has(vp, VIRTIO_NET_F_STATUS)) {
		uint16_t st = 0;

		if (virtio_hw_cfg_read(hw, VIRTIO_NET_CFG_STATUS, &st, sizeof(st)) == 0)
			vp->link_up_last = (st & VIRTIO_NET_S_LINK_UP) != 0;
	}
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		if (virtio_rxq_fill(&vp->rxq[q]) < 0) {
			UNIC_PORT_LOG(port, ERR, "rx queue %u: pool %s has no buffer to post", q,
				      vp->rxq[q].pool->name);
			rc = -ENOBUFS;
			goto fail;
		}
	}
	/*
	 * A frame steered to a queue that had no buffers yet is held by the
	 * device for the queue it came in on (QEMU 7.2's software RSS holds
	 * that whole tap queue) until that queue is kicked: with several
	 * pairs, every rx queue is kicked once all have their buffers.
	 */
	if (vp->nb_pairs > 1)
		for (uint16_t q = 0; q < port->conf.nb_rxq; q++)
			virtio_vq_kick(&vp->rxq[q].vq, true);
	return 0;
fail:
	if (!hw->gone)
		virtio_hw_status_set(hw, VIRTIO_STATUS_FAILED);
	virtio_stop(port);
	return rc;
}

static void virtio_close(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);

	vp->hw.dev = NULL; /* closing: the close releases the device itself */
	for (uint16_t q = 0; q < VIRTIO_MAX_PAIRS; q++) {
		rxq_free(port, &vp->rxq[q]);
		txq_free(port, &vp->txq[q]);
	}
	if (!virtio_hw_off(vp))
		(void)virtio_hw_reset(&vp->hw);
	virtio_ctrl_free(&vp->hw);
	if (vp->dev) {
		if (!virtio_hw_off(vp))
			unic_pci_bus_master(vp->dev, false);
		unic_pci_close(vp->dev);
		vp->dev = NULL;
	}
	vp->hw.gone = true; /* no register access after close */
}

/* ---- link, MTU ------------------------------------------------------------------ */

static int virtio_link_get(struct unic_port *port, struct unic_link *link)
{
	struct virtio_port *vp = virtio_priv(port);
	uint16_t st = VIRTIO_NET_S_LINK_UP;
	uint32_t speed = 0;
	int rc;

	if (virtio_hw_off(vp) || virtio_hw_check_gone(&vp->hw))
		return -ENODEV;
	/* Without VIRTIO_NET_F_STATUS the link is always up (5.1.4). */
	if (has(vp, VIRTIO_NET_F_STATUS)) {
		rc = virtio_hw_cfg_read(&vp->hw, VIRTIO_NET_CFG_STATUS, &st, sizeof(st));
		if (rc < 0)
			return rc;
	}
	if (has(vp, VIRTIO_NET_F_SPEED_DUPLEX) &&
	    virtio_hw_cfg_read(&vp->hw, VIRTIO_NET_CFG_SPEED, &speed, sizeof(speed)) < 0)
		speed = 0;
	link->up = (st & VIRTIO_NET_S_LINK_UP) != 0;
	/* Speed: the device's when it says (SPEED_DUPLEX; -1 is unknown),
	 * else 10 Gb/s, what a virtual link is usually shown as. */
	link->speed_mbps = !link->up ? 0 : (speed != 0 && speed != UINT32_MAX) ? speed : 10000;
	link->full_duplex = link->up;
	link->autoneg = false;
	return 0;
}

static int virtio_link_set(struct unic_port *port, bool up)
{
	UNIC_PORT_LOG(port, ERR, "link %s: a virtio-net device has no link control; its link is the host's (QEMU: set_link on the monitor)",
		      up ? "up" : "down");
	return -ENOTSUP;
}

static int virtio_mtu_set(struct unic_port *port, uint16_t mtu)
{
	struct virtio_port *vp = virtio_priv(port);

	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		struct virtio_rxq *rxq = &vp->rxq[q];
		uint32_t max_frame = (uint32_t)mtu + UNIC_ETHER_VLAN_HDR_LEN;

		if (rxq->pool != NULL && !has(vp, VIRTIO_NET_F_MRG_RXBUF) && rxq->buf_len < max_frame + rxq->hdr_len) {
			UNIC_PORT_LOG(port, ERR, "MTU %u: without mergeable buffers one rx buffer holds a frame, and rx queue %u's hold %u bytes",
				      mtu, q, rxq->buf_len - rxq->hdr_len);
			return -EINVAL;
		}
	}
	/* The receive paths drop frames longer than this from now on. */
	for (uint16_t q = 0; q < VIRTIO_MAX_PAIRS; q++)
		__atomic_store_n(&vp->rxq[q].max_frame, (uint32_t)mtu + UNIC_ETHER_VLAN_HDR_LEN, __ATOMIC_RELAXED);
	return 0;
}

/* ---- statistics ------------------------------------------------------------------ */

static const char *const rxq_xstats[] = {
	"kicks", "kicks_suppressed", "bad_used", "used_jumps", "len_errors", "oversize",
	"csum_partial", "intr_armed", "lro", "gso_errors", "hash_bad",
};
static const char *const txq_xstats[] = {
	"kicks", "kicks_suppressed", "bad_used", "used_jumps", "ring_full", "tso", "csum",
};
#define NB_PORT_XSTATS 8 /* link_events, config_changes, tx_refused_packets, tx_tso_packets, ctrl_* */

static unsigned xstats_count(const struct unic_port *port)
{
	return NB_PORT_XSTATS + port->conf.nb_rxq * (unsigned)UNIC_ARRAY_SIZE(rxq_xstats) +
	       port->conf.nb_txq * (unsigned)UNIC_ARRAY_SIZE(txq_xstats);
}

static int virtio_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max)
{
	unsigned n = 0;

#define NAME(...) do { if (n < max) snprintf(names[n].name, sizeof(names[n].name), __VA_ARGS__); n++; } while (0)
	NAME("link_events");
	NAME("config_changes");
	/* Totals under e1000e's names, for tools that read either driver. */
	NAME("tx_refused_packets");
	NAME("tx_tso_packets");
	NAME("ctrl_commands");
	NAME("ctrl_errors");
	NAME("ctrl_timeouts");
	NAME("ctrl_bad_used");
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++)
		for (unsigned i = 0; i < UNIC_ARRAY_SIZE(rxq_xstats); i++)
			NAME("rx_q%u_%s", q, rxq_xstats[i]);
	for (uint16_t q = 0; q < port->conf.nb_txq; q++)
		for (unsigned i = 0; i < UNIC_ARRAY_SIZE(txq_xstats); i++)
			NAME("tx_q%u_%s", q, txq_xstats[i]);
#undef NAME
	return (int)n;
}

static int virtio_xstats_get(struct unic_port *port, uint64_t *values, unsigned max)
{
	struct virtio_port *vp = virtio_priv(port);
	unsigned n = 0;

#define VAL(v) do { if (n < max) values[n] = (v); n++; } while (0)
	uint64_t refused = 0, tso = 0;

	for (uint16_t q = 0; q < port->conf.nb_txq; q++) {
		refused += unic_counter_read(&vp->txq[q].cnt.errors);
		tso += unic_counter_read(&vp->txq[q].tso);
	}
	VAL(unic_load_relaxed(&vp->link_events));
	VAL(unic_load_relaxed(&vp->config_changes));
	VAL(refused);
	VAL(tso);
	{
		const struct virtio_ctrlq *cq = vp->hw.ctrl;

		VAL(cq ? unic_counter_read(&cq->cmds) : 0);
		VAL(cq ? unic_counter_read(&cq->errors) : 0);
		VAL(cq ? unic_counter_read(&cq->timeouts) : 0);
		VAL(cq ? unic_counter_read(&cq->vq.bad_used) + unic_counter_read(&cq->vq.used_jumps) : 0);
	}
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		const struct virtio_rxq *r = &vp->rxq[q];

		VAL(unic_counter_read(&r->vq.kicks));
		VAL(unic_counter_read(&r->vq.kicks_suppressed));
		VAL(unic_counter_read(&r->vq.bad_used));
		VAL(unic_counter_read(&r->vq.used_jumps));
		VAL(unic_counter_read(&r->len_errors));
		VAL(unic_counter_read(&r->oversize));
		VAL(unic_counter_read(&r->csum_partial));
		VAL(unic_counter_read(&r->intr));
		VAL(unic_counter_read(&r->lro_pkts));
		VAL(unic_counter_read(&r->gso_errors));
		VAL(unic_counter_read(&r->hash_bad));
	}
	for (uint16_t q = 0; q < port->conf.nb_txq; q++) {
		const struct virtio_txq *t = &vp->txq[q];

		VAL(unic_counter_read(&t->vq.kicks));
		VAL(unic_counter_read(&t->vq.kicks_suppressed));
		VAL(unic_counter_read(&t->vq.bad_used));
		VAL(unic_counter_read(&t->vq.used_jumps));
		VAL(unic_counter_read(&t->ring_full));
		VAL(unic_counter_read(&t->tso));
		VAL(unic_counter_read(&t->csum_req));
	}
#undef VAL
	(void)xstats_count;
	return (int)n;
}

/* Errors the queues count beyond frames dropped: bad used entries. */
static int virtio_stats_get(struct unic_port *port, struct unic_port_stats *st)
{
	struct virtio_port *vp = virtio_priv(port);

	for (uint16_t q = 0; q < VIRTIO_MAX_PAIRS; q++)
		st->ierrors += unic_counter_read(&vp->rxq[q].vq.bad_used);
	return 0;
}

/* ---- RSS ops: the port layer checked the arguments against info ----------------- */

static int virtio_rss_hash_get(struct unic_port *port, struct unic_rss_conf *rss)
{
	struct virtio_port *vp = virtio_priv(port);

	rss->types = port->conf.rss_hash_types;
	rss->key_len = rss_key_len(vp);
	memcpy(rss->key, port->conf.rss_key_len ? port->conf.rss_key : virtio_rss_default_key, rss->key_len);
	return 0;
}

/* At once (RSS_CONFIG) on a port started with RSS, else from the next start. */
static int virtio_rss_hash_update(struct unic_port *port, const struct unic_rss_conf *rss)
{
	struct virtio_port *vp = virtio_priv(port);
	const uint8_t *key = rss->key_len ? rss->key :
			     port->conf.rss_key_len ? port->conf.rss_key : virtio_rss_default_key;

	if (!vp->rss_on || unic_port_state(port) != UNIC_PORT_STARTED)
		return 0;
	return rss_config_send(port, rss->types, key) < 0 ? -EIO : 0;
}

static int virtio_rss_reta_query(struct unic_port *port, uint16_t *reta)
{
	struct virtio_port *vp = virtio_priv(port);
	uint16_t nb = port->conf.nb_rxq ? port->conf.nb_rxq : 1;

	for (uint16_t i = 0; i < rss_table_len(vp); i++)
		reta[i] = vp->reta_set ? vp->reta[i] : (uint16_t)(i % nb);
	return 0;
}

static int virtio_rss_reta_update(struct unic_port *port, const uint16_t *reta)
{
	struct virtio_port *vp = virtio_priv(port);

	memcpy(vp->reta, reta, sizeof(reta[0]) * rss_table_len(vp));
	vp->reta_set = true;
	if (!vp->rss_on || unic_port_state(port) != UNIC_PORT_STARTED)
		return 0;
	return rss_config_send(port, port->conf.rss_hash_types,
			       port->conf.rss_key_len ? port->conf.rss_key : virtio_rss_default_key) < 0 ? -EIO : 0;
}

const struct unic_port_ops virtio_ops = {
	.info_get = virtio_info_get,
	.rss_hash_get = virtio_rss_hash_get,
	.rss_hash_update = virtio_rss_hash_update,
	.rss_reta_query = virtio_rss_reta_query,
	.rss_reta_update = virtio_rss_reta_update,
	.configure = virtio_configure,
	.rx_queue_setup = virtio_rx_queue_setup,
	.rx_queue_release = virtio_rx_queue_release,
	.tx_queue_setup = virtio_tx_queue_setup,
	.tx_queue_release = virtio_tx_queue_release,
	.start = virtio_start,
	.stop = virtio_stop,
	.close = virtio_close,
	.stats_get = virtio_stats_get,
	.rx_burst = virtio_rx_burst,
	.tx_burst = virtio_tx_burst,
	.tx_prepare = virtio_tx_prepare,
	.rx_pending = virtio_rx_pending,
	.desc_status = virtio_desc_status,
	.rx_queue_count = virtio_rx_queue_count,
	.desc_read = virtio_desc_read,
	.tx_reclaim = virtio_tx_reclaim,
	.rx_intr_enable = virtio_rx_intr_enable,
	.rx_intr_disable = virtio_rx_intr_disable,
	.intr_sources = virtio_intr_sources,
	.rx_intr_affinity = virtio_rx_intr_affinity,
	.coalesce_get = virtio_coalesce_get,
	.coalesce_set = virtio_coalesce_set,
	.link_get = virtio_link_get,
	.link_set = virtio_link_set,
	.mtu_set = virtio_mtu_set,
	.promisc_set = virtio_promisc_set,
	.allmulti_set = virtio_allmulti_set,
	.mac_set = virtio_mac_set,
	.mac_add = virtio_mac_add,
	.mac_remove = virtio_mac_remove,
	.mc_addr_list_set = virtio_mc_addr_list_set,
	.vlan_filter_set = virtio_vlan_filter_set,
	.xstats_names = virtio_xstats_names,
	.xstats_get = virtio_xstats_get,
};

/* ---- attach and probe ----------------------------------------------------------- */

static void virtio_setup(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);

	port->ops = &virtio_ops;
	port->drv = &unic_virtio_driver;
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(vp->irq_fds); i++)
		vp->irq_fds[i] = -1;
	vp->intx_rx_fd = -1;
	for (unsigned q = 0; q < VIRTIO_MAX_PAIRS; q++)
		vp->rxq[q].irq_fd = -1;
}

static bool mac_valid(const uint8_t *m)
{
	static const uint8_t zero[UNIC_ETHER_ADDR_LEN];

	return !(m[0] & 1) && memcmp(m, zero, sizeof(zero)) != 0;
}

/* Device facts read once: MAC, MTU, queue pairs, the rx ring's maximum. */
static int read_device(struct unic_port *port, struct virtio_port *vp, const char *name)
{
	struct virtio_hw *hw = &vp->hw;
	uint16_t qmax;
	int rc;

	if (hw->len[VIRTIO_REGION_DEVICE] < VIRTIO_NET_CFG_LEN_MIN &&
	    (has(vp, VIRTIO_NET_F_MTU) || has(vp, VIRTIO_NET_F_MQ))) {
		UNIC_LOG(ERR, PMD, "%s: the device configuration is %u bytes, too short for the MTU it offers",
			 name, hw->len[VIRTIO_REGION_DEVICE]);
		return -ENODEV;
	}
	if (hw->num_queues < 2) {
		UNIC_LOG(ERR, PMD, "%s: the device has %u virtqueues; a network device has at least a receive and a transmit queue",
			 name, hw->num_queues);
		return -ENODEV;
	}
	qmax = virtio_hw_queue_max(hw, 0);
	if (virtio_hw_queue_max(hw, 1) < qmax)
		qmax = virtio_hw_queue_max(hw, 1);
	/* A split virtqueue's size is a power of two (2.6); a device that
	 * gives another maximum gets the power of two below it. */
	vp->max_queue_size = pow2_floor(qmax);
	if (vp->max_queue_size < 2) {
		UNIC_LOG(ERR, PMD, "%s: the device's receive and transmit queues take %u entries at most", name, qmax);
		return -ENODEV;
	}
	vp->max_pairs = 1;
	vp->dev_mtu = 0;
	vp->hdr_len = has(vp, VIRTIO_NET_F_HASH_REPORT) ? (uint16_t)sizeof(struct virtio_net_hdr_hash)
							: (uint16_t)sizeof(struct virtio_net_hdr);
	if (has(vp, VIRTIO_NET_F_MQ)) {
		uint16_t pairs;

		rc = virtio_hw_cfg_read(hw, VIRTIO_NET_CFG_MAX_PAIRS, &pairs, sizeof(pairs));
		if (rc < 0)
			return rc;
		/* 5.1.4: 1..0x8000 pairs, each two virtqueues, the control
		 * queue after them (5.1.2). */
		if (pairs < VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN || pairs > VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX ||
		    2u * pairs + 1u > hw->num_queues) {
			UNIC_LOG(ERR, PMD, "%s: the device offers multi-queue with max_virtqueue_pairs %u and %u virtqueues; the specification wants 1..32768 pairs and 2 x pairs + 1 virtqueues (the last one the control queue)",
				 name, pairs, hw->num_queues);
			return -ENODEV;
		}
		vp->max_pairs = pairs;
	}
	vp->pairs_max = vp->max_pairs < VIRTIO_MAX_PAIRS ? vp->max_pairs : VIRTIO_MAX_PAIRS;
	vp->rss_key_max = 0;
	vp->rss_table_max = 0;
	vp->hash_types = 0;
	if (has(vp, VIRTIO_NET_F_RSS) || has(vp, VIRTIO_NET_F_HASH_REPORT)) {
		uint32_t types = 0;
		uint16_t tbl = 0;
		uint8_t key = 0;

		if (hw->len[VIRTIO_REGION_DEVICE] < VIRTIO_NET_CFG_LEN_RSS ||
		    virtio_hw_cfg_read(hw, VIRTIO_NET_CFG_RSS_KEY_MAX, &key, sizeof(key)) < 0 ||
		    virtio_hw_cfg_read(hw, VIRTIO_NET_CFG_RSS_TBL_MAX, &tbl, sizeof(tbl)) < 0 ||
		    virtio_hw_cfg_read(hw, VIRTIO_NET_CFG_HASH_TYPES, &types, sizeof(types)) < 0) {
			UNIC_LOG(ERR, PMD, "%s: the device offers RSS or hash reports but its configuration (%u bytes) does not hold the key size, table length and hash types (%u bytes)",
				 name, hw->len[VIRTIO_REGION_DEVICE], VIRTIO_NET_CFG_LEN_RSS);
			return -ENODEV;
		}
		vp->rss_key_max = key;
		vp->rss_table_max = has(vp, VIRTIO_NET_F_RSS) ? tbl : 0;
		vp->hash_types = types;
		if (has(vp, VIRTIO_NET_F_RSS) && !rss_usable(vp))
			UNIC_LOG(WARNING, PMD, "%s: the device offers RSS with a key of up to %u bytes, a table of up to %u entries and hash types 0x%x; no RSS with that (the device's default steering applies)",
				 name, key, tbl, types);
	}
	if (has(vp, VIRTIO_NET_F_MTU)) {
		uint16_t mtu;

		rc = virtio_hw_cfg_read(hw, VIRTIO_NET_CFG_MTU, &mtu, sizeof(mtu));
		if (rc < 0)
			return rc;
		/* A device MTU under the minimum is not believed. */
		vp->dev_mtu = mtu >= VIRTIO_MIN_MTU ? mtu : 0;
		if (mtu < VIRTIO_MIN_MTU)
			UNIC_LOG(WARNING, PMD, "%s: the device says its MTU is %u; ignored", name, mtu);
	}
	if (has(vp, VIRTIO_NET_F_MAC)) {
		rc = virtio_hw_cfg_read(hw, VIRTIO_NET_CFG_MAC, port->mac, UNIC_ETHER_ADDR_LEN);
		if (rc < 0)
			return rc;
	}
	if (!has(vp, VIRTIO_NET_F_MAC) || !mac_valid(port->mac)) {
		/* No address from the device: a random locally administered
		 * one, as Linux's virtio_net does (5.1.5). */
		FILE *f = fopen("/dev/urandom", "r");

		if (f == NULL || fread(port->mac, 1, UNIC_ETHER_ADDR_LEN, f) != UNIC_ETHER_ADDR_LEN)
			memcpy(port->mac, (uint8_t[]){ 0x02, 0, 0, 0, 0, 1 }, UNIC_ETHER_ADDR_LEN);
		if (f)
			fclose(f);
		port->mac[0] = (uint8_t)((port->mac[0] & 0xfe) | 0x02);
		UNIC_LOG(WARNING, PMD, "%s: the device gives no valid MAC address; using a random one", name);
	}
	/* What the device filters on until told otherwise (none: zero). */
	if (has(vp, VIRTIO_NET_F_MAC) && mac_valid(port->mac))
		memcpy(vp->dev_mac, port->mac, UNIC_ETHER_ADDR_LEN);
	return 0;
}

int virtio_port_attach(const struct virtio_attach *a, struct unic_port **out)
{
	const char *name = a->bus_addr ? a->bus_addr : "fake";
	struct virtio_pci_caps caps;
	struct unic_port *port;
	struct virtio_port *vp;
	char why[256], names[512];
	int rc;

	rc = virtio_caps_parse(a->cfg, a->cfg_len, &caps, why, sizeof(why));
	if (rc < 0) {
		UNIC_LOG(ERR, PMD, "%s: %s", name, why);
		return rc;
	}
	port = unic_port_alloc(sizeof(*vp), "virtio%d", virtio_setup);
	if (port == NULL)
		return -errno;
	vp = virtio_priv(port);
	vp->hw.port = port;
	vp->hw.hooks = a->hooks;
	vp->hw.hooks_ctx = a->hooks_ctx;
	vp->dma_mem = a->dma_mem;
	vp->iommu = a->iommu;
	port->numa_node = a->numa_node;
	snprintf(vp->bus_addr, sizeof(vp->bus_addr), "%s", name);
	unic_port_dma_mem_set(port, a->dma_mem);
	rc = virtio_hw_map(&vp->hw, &caps, a, name);
	if (rc < 0)
		goto put;
	/* Negotiate now, to read what the device is: start does it again. */
	rc = virtio_hw_init(&vp->hw, a->iommu);
	if (rc < 0)
		goto put;
	rc = read_device(port, vp, name);
	if (rc < 0)
		goto reset;
	(void)virtio_hw_reset(&vp->hw); /* quiet until start */
	rc = unic_port_register(port);
	if (rc < 0)
		goto put;
	vp->dev = a->dev;
	virtio_features_names(vp->hw.features, names, sizeof(names));
	UNIC_PORT_LOG(port, INFO, "%s: virtio-net, MAC %02x:%02x:%02x:%02x:%02x:%02x, %u virtqueues of up to %u entries, features %s",
		      name, port->mac[0], port->mac[1], port->mac[2], port->mac[3], port->mac[4], port->mac[5],
		      vp->hw.num_queues, vp->max_queue_size, names);
	*out = port;
	return 0;
reset:
	(void)virtio_hw_reset(&vp->hw);
put:
	unic_port_put(port);
	return rc;
}

/*
 * The bus's release callback (its event dispatch): the kernel asks for the
 * device back, or it vanished. Stop the port through the core, which first
 * takes the queues back from their pollers, so nothing touches BAR4 once
 * the bus unmaps it.
 */
static int virtio_released(struct unic_pci_device *dev, void *arg)
{
	struct unic_port *port = arg;
	struct virtio_port *vp = virtio_priv(port);
	bool gone = unic_pci_is_gone(dev);
	int rc;

	if (gone)
		__atomic_store_n(&vp->hw.gone, true, __ATOMIC_RELEASE); /* stop writes nothing */
	rc = unic_port_device_lost(port, gone);
	if (rc == 0)
		__atomic_store_n(&vp->hw.gone, true, __ATOMIC_RELEASE);
	return rc;
}

static int virtio_pci_probe(struct unic_bus *bus, struct unic_pci_device *dev, struct unic_port **out)
{
	const struct unic_pci_info *info = unic_pci_info(dev);
	struct virtio_attach a = {
		.dma_mem = unic_pci_dma_mem(dev),
		.dev = dev,
		.iommu = unic_pci_access(dev) == UNIC_PCI_ACCESS_VFIO,
		.bus_addr = info->bdf,
		.numa_node = info->numa_node,
	};
	uint8_t cfg[PCI_CFG_SPACE_LEN];
	struct virtio_pci_caps caps;
	struct unic_port *port;
	char why[256];
	int rc;

	(void)bus;
	rc = unic_pci_cfg_read(dev, 0, cfg, sizeof(cfg));
	if (rc != (int)sizeof(cfg)) {
		UNIC_LOG(ERR, PMD, "%s: cannot read the PCI configuration space: %s", info->bdf,
			 strerror(rc < 0 ? -rc : EIO));
		return rc < 0 ? rc : -EIO;
	}
	/* Map the BARs the capabilities name (usually BAR4 alone). */
	rc = virtio_caps_parse(cfg, sizeof(cfg), &caps, why, sizeof(why));
	if (rc < 0) {
		UNIC_LOG(ERR, PMD, "%s: %s", info->bdf, why);
		return rc;
	}
	for (unsigned r = 0; r < VIRTIO_NB_REGIONS; r++) {
		unsigned bar = caps.loc[r].bar;

		if (a.bar[bar].va != NULL)
			continue;
		rc = unic_pci_bar_map(dev, bar, &a.bar[bar].va, &a.bar[bar].len);
		if (rc < 0) {
			UNIC_LOG(ERR, PMD, "%s: cannot map BAR%u: %s", info->bdf, bar, strerror(-rc));
			return rc;
		}
	}
	a.cfg = cfg;
	a.cfg_len = sizeof(cfg);
	rc = unic_pci_bus_master(dev, true);
	if (rc < 0) {
		UNIC_LOG(ERR, PMD, "%s: cannot enable bus mastering: %s", info->bdf, strerror(-rc));
		return rc;
	}
	rc = virtio_port_attach(&a, &port);
	if (rc < 0) {
		unic_pci_bus_master(dev, false);
		return rc;
	}
	/* Registered: the port outlives the callback (its close closes the
	 * device, which waits for a running release handler). */
	unic_pci_on_release(dev, virtio_released, port);
	virtio_priv(port)->hw.dev = dev; /* all-ones reads tell the bus from now on */
	*out = port;
	return 0;
}

static const struct unic_pci_id virtio_pci_ids[] = {
	{ VIRTIO_PCI_VENDOR, VIRTIO_PCI_DEVICE_NET },    /* modern */
	{ VIRTIO_PCI_VENDOR, VIRTIO_PCI_DEVICE_NET_TR }, /* transitional, driven in modern mode */
	{ 0, 0 },
};

const struct unic_driver unic_virtio_driver = {
	.name = "virtio",
	.flow_why = "virtio-net has no flow steering (its VLAN and MAC filters are the port's vlan and mac_addr commands)",
	.pci_ids = virtio_pci_ids,
	.pci_probe = virtio_pci_probe,
};
