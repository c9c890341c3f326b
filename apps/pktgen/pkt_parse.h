/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: parse a received frame (untrusted: every length is checked
 * against the bytes actually there) and extract its stamp.
 */
#ifndef PG_PKT_PARSE_H
#define PG_PKT_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt_build.h"

enum pg_parse_result {
	PG_PARSE_OK = 0,     /* UDP, TCP or ICMP echo with a valid stamp */
	PG_PARSE_SHORT,      /* frame ends inside a header */
	PG_PARSE_NOT_IP,     /* neither IPv4 nor IPv6 (after an optional tag) */
	PG_PARSE_NOT_UDP,    /* IP, but not UDP, TCP or ICMP echo request, or an IPv4
			      * fragment (the name stays "not_udp") */
	PG_PARSE_BAD_LEN,    /* IP, UDP or TCP length disagrees with the frame */
	PG_PARSE_BAD_CSUM,   /* IPv4 header, UDP, TCP or ICMP checksum wrong */
	PG_PARSE_NO_STAMP,   /* L4 payload too short, or magic wrong */
	PG_PARSE_NB
};

struct pg_parsed {
	bool vlan, ipv6;
	uint16_t vlan_tci;
	uint8_t proto;       /* PG_PROTO_UDP, _TCP, _ICMP */
	unsigned l3_off, l4_off;
	uint16_t udp_len;    /* the L4 length (UDP header and payload, TCP segment, ICMP message) */
	unsigned stamp_off;  /* where the stamp starts in the frame */
	struct pg_stamp stamp;
};

/* Parse @p len bytes at @p buf. Reads nothing outside [buf, buf + len).
 * Trailing bytes after the IP datagram (Ethernet padding) are allowed. */
enum pg_parse_result pg_frame_parse(const uint8_t *buf, size_t len, struct pg_parsed *out);

struct unic_pkt;

/* Parse a received packet, one segment or a chain (a jumbo frame from a
 * driver with 2 KiB receive buffers arrives as one). A chain is first copied
 * into @p scratch, @p scratch_len bytes; what does not fit is left out, so
 * the parse then reports PG_PARSE_BAD_LEN. */
enum pg_parse_result pg_pkt_parse(const struct unic_pkt *p, uint8_t *scratch, size_t scratch_len,
				  struct pg_parsed *out);

const char *pg_parse_result_name(enum pg_parse_result r);

#endif /* PG_PKT_PARSE_H */
