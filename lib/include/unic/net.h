/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Packet headers: named constants for Ethernet, 802.1Q, IPv4, IPv6, TCP and
 * UDP, accessors that read header fields from bytes (no alignment assumed,
 * big-endian on the wire), and the check of a packet's transmit offload
 * request against its own headers.
 *
 * unic_tx_prepare() (unic/port.h) runs unic_tx_offload_check() on every
 * packet before the driver's own checks when the port offers a checksum or
 * TSO offload, so a driver builds its offload context only from lengths
 * that match the headers. Nothing here allocates, logs or takes a lock.
 */
#ifndef UNIC_NET_H
#define UNIC_NET_H

#include <stdint.h>

#include <unic/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

/* ---- Ethernet and 802.1Q ------------------------------------------------- */

#define UNIC_ETHER_HDR_LEN 14        /**< destination, source, EtherType */
#define UNIC_ETHER_TYPE_OFF 12       /**< EtherType (or TPID) in the header */
#define UNIC_VLAN_HDR_LEN 4          /**< an 802.1Q tag: TPID and TCI */
#define UNIC_ETHER_VLAN_HDR_LEN (UNIC_ETHER_HDR_LEN + UNIC_VLAN_HDR_LEN) /**< Ethernet and one tag */

#define UNIC_ETHER_TYPE_IPV4 0x0800  /**< EtherType of IPv4 */
#define UNIC_ETHER_TYPE_IPV6 0x86dd  /**< EtherType of IPv6 */
#define UNIC_ETHER_TYPE_VLAN 0x8100  /**< 802.1Q TPID */

/* ---- IPv4 (RFC 791) and IPv6 (RFC 8200) ---------------------------------- */

#define UNIC_IPV4_HDR_MIN 20         /**< no options (IHL 5) */
#define UNIC_IPV4_HDR_MAX 60         /**< IHL 15 */
#define UNIC_IPV4_TOTLEN_OFF 2       /**< IPv4 total length (16 bits) */
#define UNIC_IPV4_PROTO_OFF 9        /**< IPv4 protocol (8 bits) */
#define UNIC_IPV4_CKSUM_OFF 10       /**< IPv4 header checksum (16 bits) */
#define UNIC_IPV6_HDR_LEN 40         /**< the fixed header, no extension headers */
#define UNIC_IPV6_PAYLEN_OFF 4       /**< IPv6 payload length (16 bits) */
#define UNIC_IPV6_NEXT_HDR_OFF 6     /**< IPv6 next header (8 bits) */
#define UNIC_IP_LEN_MAX 65535        /**< a 16-bit IP length field */

#define UNIC_IPPROTO_TCP 6           /**< IP protocol number of TCP */
#define UNIC_IPPROTO_UDP 17          /**< IP protocol number of UDP */

/* ---- TCP (RFC 9293) and UDP (RFC 768) ------------------------------------ */

#define UNIC_TCP_HDR_MIN 20          /**< no options (data offset 5) */
#define UNIC_TCP_DOFF_OFF 12         /**< data offset: the high nibble */
#define UNIC_TCP_CKSUM_OFF 16        /**< TCP checksum (16 bits) */
#define UNIC_UDP_HDR_LEN 8           /**< the UDP header */
#define UNIC_UDP_CKSUM_OFF 6         /**< UDP checksum (16 bits) */

/** The big-endian 16-bit field at @p p. */
static inline uint16_t unic_net_get16(const void *p)
{
	const uint8_t *b = (const uint8_t *)p;

	return (uint16_t)(b[0] << 8 | b[1]);
}

/** Store @p v big-endian at @p p. */
static inline void unic_net_put16(void *p, uint16_t v)
{
	uint8_t *b = (uint8_t *)p;

	b[0] = (uint8_t)(v >> 8);
	b[1] = (uint8_t)v;
}

/** The IP version (4 or 6) of the IP header at @p iph. */
static inline unsigned unic_ip_version(const void *iph)
{
	return *(const uint8_t *)iph >> 4;
}

/** The IPv4 header's length in bytes, from its IHL (20..60 when valid). */
static inline unsigned unic_ipv4_hdr_len(const void *iph)
{
	return (*(const uint8_t *)iph & 0xfu) * 4u;
}

/** The TCP header's length in bytes, from its data offset. */
static inline unsigned unic_tcp_hdr_len(const void *tcph)
{
	return (((const uint8_t *)tcph)[UNIC_TCP_DOFF_OFF] >> 4) * 4u;
}

/* ---- transmit offload requests ------------------------------------------- */

/** The checksum and TSO requests unic_tx_offload_check() looks at. */
#define UNIC_PKT_TX_OFFLOAD_MASK (UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_CKSUM | \
				  UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_SEG)

/** Why unic_tx_offload_check() refuses a packet (0: it does not). */
enum unic_tx_offload_err {
	UNIC_TX_OFFLOAD_OK = 0,
	UNIC_TX_OFFLOAD_ERR_IP_TYPE,      /**< not exactly one of UNIC_PKT_TX_IPV4 and _IPV6 */
	UNIC_TX_OFFLOAD_ERR_L4_TYPE,      /**< both a TCP (checksum or TSO) and a UDP request */
	UNIC_TX_OFFLOAD_ERR_IP_CKSUM,     /**< an IPv4 header checksum asked on IPv6 */
	UNIC_TX_OFFLOAD_ERR_L2_LEN,       /**< l2_len is not 14, nor 18 with an 802.1Q tag */
	UNIC_TX_OFFLOAD_ERR_L3_LEN,       /**< l3_len is not the IP header's length */
	UNIC_TX_OFFLOAD_ERR_L4_LEN,       /**< l4_len is not the TCP or UDP header's length */
	UNIC_TX_OFFLOAD_ERR_SHORT,        /**< the headers end past the first segment */
	UNIC_TX_OFFLOAD_ERR_ETHER_TYPE,   /**< the EtherType is not that of the IP flag */
	UNIC_TX_OFFLOAD_ERR_IP_VERSION,   /**< the IP header's version is not the flag's */
	UNIC_TX_OFFLOAD_ERR_L4_PROTO,     /**< the IP protocol is not TCP or UDP as asked */
	UNIC_TX_OFFLOAD_ERR_TSO,          /**< TSO with a segment size of 0 or no payload */
};

/**
 * Check packet @p p's checksum and TSO requests (ol_flags, l2/l3/l4_len,
 * tso_segsz) against its headers, which must all be in its first segment.
 * A packet with no such request passes. Reads at most the first segment's
 * data_len bytes; changes nothing.
 *
 * Accepted: Ethernet with at most one 802.1Q tag; IPv4 with the IHL as
 * l3_len, or IPv6 without extension headers (l3_len 40); TCP with its data
 * offset as l4_len (at least 20), or UDP with l4_len 0 or 8; for TSO a TCP
 * request, a segment size and at least one payload byte.
 * @return UNIC_TX_OFFLOAD_OK (0), or the first reason found.
 */
enum unic_tx_offload_err unic_tx_offload_check(const struct unic_pkt *p);

/** A sentence for @p err ("l4_len is not the TCP header's length"). */
const char *unic_tx_offload_strerror(enum unic_tx_offload_err err);

/**
 * unic_tx_offload_check() over pkts[0..n-1], stopping at the first refused.
 * @param pkts the packets, in the order they would be sent.
 * @param n how many.
 * @param err set to 0 when every packet passes, else -EINVAL (not NULL).
 * @return the number of leading packets that pass.
 */
uint16_t unic_tx_offload_prepare(struct unic_pkt **pkts, uint16_t n, int *err);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_NET_H */
