/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: build Ethernet [802.1Q] / IPv4|IPv6 / UDP|TCP|ICMP echo frames
 * that carry a stamp. docs/pktgen.md.
 *
 * Frame size: the bytes the application builds, without the 4-byte FCS the
 * NIC appends (60 is the Ethernet minimum; on the link it is 64 bytes, plus
 * 20 bytes of preamble and inter-frame gap).
 *
 * The stamp is the first PG_STAMP_LEN bytes of the L4 payload (after the UDP
 * header, the 20-byte TCP header, or the ICMP echo header), big-endian:
 *   0  magic      32 bits  PG_STAMP_MAGIC
 *   4  stream id  16 bits
 *   6  sequence   32 bits  (the receiver widens it to 64 bits)
 *   10 tx time    64 bits  TSC at build time
 * 18 bytes, so a 60-byte IPv4 frame without a tag holds it exactly. The rest
 * of the payload is zero.
 */
#ifndef PG_PKT_BUILD_H
#define PG_PKT_BUILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <unic/net.h>

#define PG_STAMP_MAGIC 0x756e6963u  /* "unic" */
#define PG_STAMP_LEN 18
#define PG_ETH_LEN UNIC_ETHER_HDR_LEN
#define PG_VLAN_LEN UNIC_VLAN_HDR_LEN
#define PG_IPV4_LEN UNIC_IPV4_HDR_MIN
#define PG_IPV6_LEN UNIC_IPV6_HDR_LEN
#define PG_UDP_LEN UNIC_UDP_HDR_LEN
#define PG_TCP_LEN 20               /* no options */
#define PG_ICMP_LEN 8               /* echo: type, code, checksum, identifier, sequence */
#define PG_FCS_LEN 4
#define PG_WIRE_EXTRA 20            /* preamble 8 + inter-frame gap 12 */
#define PG_SIZE_MIN 60
#define PG_SIZE_MAX 9000

#define PG_ETHERTYPE_IPV4 UNIC_ETHER_TYPE_IPV4
#define PG_ETHERTYPE_IPV6 UNIC_ETHER_TYPE_IPV6
#define PG_ETHERTYPE_VLAN UNIC_ETHER_TYPE_VLAN

/* The L4 protocol a template builds (0, the default, is UDP). */
#define PG_PROTO_UDP 0
#define PG_PROTO_TCP 1
#define PG_PROTO_ICMP 2   /* ICMP echo request (ICMPv6 over IPv6) */
#define PG_PROTO_NB 3

#define PG_IPPROTO_ICMP 1
#define PG_IPPROTO_TCP 6
#define PG_IPPROTO_UDP 17
#define PG_IPPROTO_ICMPV6 58

struct pg_stamp {
	uint32_t magic;
	uint16_t stream;
	uint32_t seq;
	uint64_t tsc;
};

/* What stays the same from frame to frame. */
struct pg_frame_tmpl {
	uint8_t dst_mac[6], src_mac[6];
	bool ipv6;
	bool vlan;
	uint16_t vlan_tci;   /* VID (12 bits) and priority */
	uint8_t ttl;         /* hop limit for IPv6 */
	uint8_t proto;       /* PG_PROTO_UDP (0), _TCP, _ICMP */
};

/* What changes: the flow. Addresses in network order (IPv4 in ip[0..3]).
 * ICMP echo: the identifier is the stamp's stream id, the ports unused. */
struct pg_flow {
	uint8_t src_ip[16], dst_ip[16];
	uint16_t src_port, dst_port;
};

/* Smallest frame size that holds the headers and the stamp (UDP). */
unsigned pg_frame_min_size(bool ipv6, bool vlan);
/* The same for L4 protocol @p proto (PG_PROTO_*). */
unsigned pg_frame_min_size_proto(bool ipv6, bool vlan, uint8_t proto);
/* The L4 header's length for @p proto. */
unsigned pg_l4_hdr_len(uint8_t proto);
/* The IP protocol number (next header) of @p proto over IPv4/IPv6. */
uint8_t pg_ip_proto(uint8_t proto, bool ipv6);

/*
 * Check a frame size for the template. @return 0, or -EINVAL with a message
 * in @p err that says the minimum (or maximum).
 */
int pg_frame_size_check(const struct pg_frame_tmpl *t, unsigned size, char *err, size_t errlen);

/*
 * Write a frame of @p size bytes into @p buf (room for @p size bytes).
 * @p size must have passed pg_frame_size_check. @return size, or 0 if it had
 * not (nothing written).
 */
unsigned pg_frame_build(uint8_t *buf, unsigned size, const struct pg_frame_tmpl *t,
			const struct pg_flow *f, const struct pg_stamp *s);

/* The UDP checksum of a datagram (@p udp, @p len bytes, its checksum field
 * zero) under the IPv4 or IPv6 header @p ip (for the pseudo-header's
 * addresses). 0 is sent as 0xffff. */
uint16_t pg_udp_csum(const uint8_t *ip, bool ipv6, const uint8_t *udp, size_t len);

/* The TCP checksum (RFC 9293 3.1) of a segment, ICMPv4 (RFC 792: over the
 * message alone) or ICMPv6 (RFC 4443 2.3: with the pseudo-header) of a
 * message, @p l4 of @p len bytes with its checksum field zero. */
uint16_t pg_tcp_csum(const uint8_t *ip, bool ipv6, const uint8_t *tcp, size_t len);
uint16_t pg_icmp_csum(const uint8_t *ip, bool ipv6, const uint8_t *icmp, size_t len);

/* Big-endian helpers. */
static inline void pg_put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void pg_put32(uint8_t *p, uint32_t v)
{
	pg_put16(p, (uint16_t)(v >> 16));
	pg_put16(p + 2, (uint16_t)v);
}
static inline void pg_put64(uint8_t *p, uint64_t v)
{
	pg_put32(p, (uint32_t)(v >> 32));
	pg_put32(p + 4, (uint32_t)v);
}
static inline uint16_t pg_get16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static inline uint32_t pg_get32(const uint8_t *p) { return (uint32_t)pg_get16(p) << 16 | pg_get16(p + 2); }
static inline uint64_t pg_get64(const uint8_t *p) { return (uint64_t)pg_get32(p) << 32 | pg_get32(p + 4); }

#endif /* PG_PKT_BUILD_H */
