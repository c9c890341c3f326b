/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * struct unic_pkt: the packet buffer header (one cache line).
 *
 * A packet object is the 64-byte header followed at once by its buffer:
 * headroom (>= 128 bytes, for headers prepended on transmit) then the data
 * room (default 2048). The header is laid out by hand and checked with
 * static_assert; drivers read and write it on the fast path.
 *
 * A frame larger than one buffer is a chain: the first segment carries
 * pkt_len (sum of all data_len) and nb_segs, each segment's next points on.
 *
 * Offload flags: what a receive path found (UNIC_PKT_RX_*) and what the
 * application asks of the transmit path (UNIC_PKT_TX_*). "VLAN present" and
 * "VLAN stripped" are separate flags, as are checksum good and bad: none
 * set means "not checked".
 */
#ifndef UNIC_PKT_H
#define UNIC_PKT_H

#include <errno.h>
#include <unic/common.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

struct unic_pool;

/* Receive: set by the driver. */
#define UNIC_PKT_RX_IP_CKSUM_GOOD  (1ull << 0) /**< the NIC checked the IPv4 header checksum: good */
#define UNIC_PKT_RX_IP_CKSUM_BAD   (1ull << 1) /**< ... bad */
#define UNIC_PKT_RX_L4_CKSUM_GOOD  (1ull << 2) /**< the NIC checked the TCP/UDP checksum: good */
#define UNIC_PKT_RX_L4_CKSUM_BAD   (1ull << 3) /**< ... bad */
#define UNIC_PKT_RX_VLAN           (1ull << 4) /**< vlan_tci is valid */
#define UNIC_PKT_RX_VLAN_STRIPPED  (1ull << 5) /**< and the tag was removed */
#define UNIC_PKT_RX_RSS_HASH       (1ull << 6) /**< rss_hash is valid */
/** The TCP/UDP checksum field was not computed (it holds the pseudo-header
 *  sum) but the data is intact: the sending host vouched for it (a virtual
 *  NIC's partial checksum, an LRO packet). Neither good nor bad: complete it
 *  (or ask the tx checksum offload) before the packet leaves this host.
 *  DPDK's RTE_MBUF_F_RX_L4_CKSUM_NONE. */
#define UNIC_PKT_RX_L4_CKSUM_NONE  (1ull << 7)
/** Several TCP segments received as one chained packet
 *  (UNIC_RX_OFFLOAD_TCP_LRO): tso_segsz holds the sender's segment size. */
#define UNIC_PKT_RX_LRO            (1ull << 8)
/* Transmit: set by the application. */
#define UNIC_PKT_TX_IPV4           (1ull << 32) /**< the packet is IPv4 (for the offloads below) */
#define UNIC_PKT_TX_IPV6           (1ull << 33) /**< the packet is IPv6 */
#define UNIC_PKT_TX_IP_CKSUM       (1ull << 34) /**< the NIC fills in the IPv4 header checksum (l2_len, l3_len) */
#define UNIC_PKT_TX_TCP_CKSUM      (1ull << 35) /**< the NIC fills in the TCP checksum (the pseudo-header sum seeded: cksum.h) */
#define UNIC_PKT_TX_UDP_CKSUM      (1ull << 36) /**< the NIC fills in the UDP checksum (seeded likewise) */
#define UNIC_PKT_TX_TCP_SEG        (1ull << 37) /**< TSO: tso_segsz, l2/3/4_len */
#define UNIC_PKT_TX_VLAN           (1ull << 38) /**< insert vlan_tci */

#define UNIC_PKT_HEADROOM_MIN     128  /**< least headroom of a packet pool */
#define UNIC_PKT_HEADROOM_DEFAULT 128  /**< headroom when the pool's config says 0 */
#define UNIC_PKT_DATAROOM_DEFAULT 2048 /**< data room when the pool's config says 0 */

/**
 * A packet buffer (one segment of a frame): this header, one cache line,
 * then the headroom and the data room. Allocated from a packet pool
 * (unic_pkt_alloc()), freed with unic_pkt_free().
 */
struct unic_pkt {
	struct unic_pool *pool;  /**< owner; where unic_pkt_free returns it */
	uint64_t buf_iova;       /**< IOVA of the buffer start (after header) */
	struct unic_pkt *next;   /**< next segment of a chained frame, or NULL */
	uint64_t ol_flags;       /**< UNIC_PKT_RX_* / UNIC_PKT_TX_* */
	uint32_t pkt_len;        /**< whole frame, all segments */
	uint32_t rss_hash;       /**< RSS hash (UNIC_PKT_RX_RSS_HASH) */
	uint16_t data_off;       /**< data start, from the buffer start */
	uint16_t data_len;       /**< data in this segment */
	uint16_t buf_len;        /**< headroom + data room */
	uint16_t vlan_tci;       /**< 802.1Q tag control (UNIC_PKT_RX_VLAN, UNIC_PKT_TX_VLAN) */
	uint16_t port;           /**< receive: the port id it came from */
	uint16_t queue;          /**< receive: the rx queue it came from */
	uint16_t nb_segs;        /**< segments in the chain (first segment) */
	uint16_t tso_segsz;      /**< TSO: payload bytes per segment; rx with UNIC_PKT_RX_LRO: the sender's */
	uint8_t l2_len;          /**< tx offloads: Ethernet header bytes (VLAN tag included) */
	uint8_t l3_len;          /**< tx offloads: IP header bytes */
	uint8_t l4_len;          /**< TSO: TCP header bytes */
	uint8_t reserved;        /**< zero */
	uint32_t user;           /**< free for the application */
};

static_assert(sizeof(struct unic_pkt) == 64, "struct unic_pkt must be one cache line");

/** Start of the buffer (headroom included). */
static inline uint8_t *unic_pkt_buf(const struct unic_pkt *p)
{
	return (uint8_t *)(uintptr_t)(p + 1);
}

/** First byte of data in this segment. */
static inline void *unic_pkt_data(const struct unic_pkt *p)
{
	return unic_pkt_buf(p) + p->data_off;
}

/** unic_pkt_data(p) cast to @p type (DPDK's rte_pktmbuf_mtod). */
#define unic_pkt_mtod(p, type) ((type)unic_pkt_data(p))

/** IOVA of the first byte of data, for descriptors. */
static inline uint64_t unic_pkt_data_iova(const struct unic_pkt *p)
{
	return p->buf_iova + p->data_off;
}

/** Bytes before the data in the buffer. */
static inline uint16_t unic_pkt_headroom(const struct unic_pkt *p)
{
	return p->data_off;
}

/** Bytes after the data in the buffer. */
static inline uint16_t unic_pkt_tailroom(const struct unic_pkt *p)
{
	return (uint16_t)(p->buf_len - p->data_off - p->data_len);
}

/** Set data_off to the headroom, lengths to 0, one segment, no flags. */
static inline void unic_pkt_reset(struct unic_pkt *p, uint16_t headroom)
{
	p->next = NULL;
	p->ol_flags = 0;
	p->pkt_len = 0;
	p->data_len = 0;
	p->data_off = headroom;
	p->nb_segs = 1;
	p->vlan_tci = 0;
	p->tso_segsz = 0;
	p->l2_len = p->l3_len = p->l4_len = 0;
}

/**
 * Append @p len bytes at the end of a single-segment packet.
 * @return a pointer to them, or NULL if the tailroom is too small.
 */
static inline void *unic_pkt_append(struct unic_pkt *p, uint16_t len)
{
	void *tail;

	if (UNIC_UNLIKELY(len > unic_pkt_tailroom(p)))
		return NULL;
	tail = (uint8_t *)unic_pkt_data(p) + p->data_len;
	p->data_len = (uint16_t)(p->data_len + len);
	p->pkt_len += len;
	return tail;
}

/** Prepend @p len bytes. @return the new data start, or NULL (no room). */
static inline void *unic_pkt_prepend(struct unic_pkt *p, uint16_t len)
{
	if (UNIC_UNLIKELY(len > p->data_off))
		return NULL;
	p->data_off = (uint16_t)(p->data_off - len);
	p->data_len = (uint16_t)(p->data_len + len);
	p->pkt_len += len;
	return unic_pkt_data(p);
}

/** Remove @p len bytes from the front. @return new start, or NULL. */
static inline void *unic_pkt_adj(struct unic_pkt *p, uint16_t len)
{
	if (UNIC_UNLIKELY(len > p->data_len))
		return NULL;
	p->data_off = (uint16_t)(p->data_off + len);
	p->data_len = (uint16_t)(p->data_len - len);
	p->pkt_len -= len;
	return unic_pkt_data(p);
}

/** Remove @p len bytes from the end. @return 0 or -EINVAL. */
static inline int unic_pkt_trim(struct unic_pkt *p, uint16_t len)
{
	if (UNIC_UNLIKELY(len > p->data_len))
		return -EINVAL;
	p->data_len = (uint16_t)(p->data_len - len);
	p->pkt_len -= len;
	return 0;
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_PKT_H */
