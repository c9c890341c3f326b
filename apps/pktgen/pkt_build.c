/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen frame builder: headers written byte by byte in network order
 * (no struct overlays, so no alignment or packing questions), checksums by
 * the library's unic/cksum.h (RFC 1071; IPv4 header, RFC 791; UDP over IPv4
 * and IPv6 pseudo-headers, RFC 768 and RFC 8200 section 8.1).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <unic/cksum.h>

#include "pkt_build.h"

uint16_t pg_udp_csum(const uint8_t *ip, bool ipv6, const uint8_t *udp, size_t len)
{
	uint32_t sum = ipv6 ? unic_ipv6_phdr_sum(ip, 17, (uint32_t)len) : unic_ipv4_phdr_sum(ip, 17, (uint32_t)len);
	uint16_t c = unic_cksum_finish(unic_cksum_add(sum, udp, len));

	return c == 0 ? 0xffff : c;
}

uint16_t pg_tcp_csum(const uint8_t *ip, bool ipv6, const uint8_t *tcp, size_t len)
{
	uint32_t sum = ipv6 ? unic_ipv6_phdr_sum(ip, PG_IPPROTO_TCP, (uint32_t)len)
			    : unic_ipv4_phdr_sum(ip, PG_IPPROTO_TCP, (uint32_t)len);

	return unic_cksum_finish(unic_cksum_add(sum, tcp, len));
}

uint16_t pg_icmp_csum(const uint8_t *ip, bool ipv6, const uint8_t *icmp, size_t len)
{
	uint32_t sum = ipv6 ? unic_ipv6_phdr_sum(ip, PG_IPPROTO_ICMPV6, (uint32_t)len) : 0;

	return unic_cksum_finish(unic_cksum_add(sum, icmp, len));
}

unsigned pg_l4_hdr_len(uint8_t proto)
{
	return proto == PG_PROTO_TCP ? PG_TCP_LEN : proto == PG_PROTO_ICMP ? PG_ICMP_LEN : PG_UDP_LEN;
}

uint8_t pg_ip_proto(uint8_t proto, bool ipv6)
{
	if (proto == PG_PROTO_TCP)
		return PG_IPPROTO_TCP;
	if (proto == PG_PROTO_ICMP)
		return ipv6 ? PG_IPPROTO_ICMPV6 : PG_IPPROTO_ICMP;
	return PG_IPPROTO_UDP;
}

unsigned pg_frame_min_size_proto(bool ipv6, bool vlan, uint8_t proto)
{
	unsigned n = PG_ETH_LEN + (vlan ? PG_VLAN_LEN : 0) + (ipv6 ? PG_IPV6_LEN : PG_IPV4_LEN) +
		     pg_l4_hdr_len(proto) + PG_STAMP_LEN;

	return n < PG_SIZE_MIN ? PG_SIZE_MIN : n;
}

unsigned pg_frame_min_size(bool ipv6, bool vlan)
{
	return pg_frame_min_size_proto(ipv6, vlan, PG_PROTO_UDP);
}

static const char *proto_label(uint8_t proto, bool ipv6)
{
	if (proto == PG_PROTO_TCP)
		return "TCP";
	if (proto == PG_PROTO_ICMP)
		return ipv6 ? "ICMPv6 echo" : "ICMP echo";
	return "UDP";
}

int pg_frame_size_check(const struct pg_frame_tmpl *t, unsigned size, char *err, size_t errlen)
{
	unsigned min = pg_frame_min_size_proto(t->ipv6, t->vlan, t->proto);

	if (size < min) {
		snprintf(err, errlen,
			 "frame size %u is too small for %s%s/%s and the %d-byte stamp (magic, stream, sequence, timestamp); the minimum is %u (sizes exclude the 4-byte FCS)",
			 size, t->vlan ? "802.1Q/" : "", t->ipv6 ? "IPv6" : "IPv4",
			 proto_label(t->proto, t->ipv6), PG_STAMP_LEN, min);
		return -EINVAL;
	}
	if (size > PG_SIZE_MAX) {
		snprintf(err, errlen, "frame size %u is above the maximum %u", size, PG_SIZE_MAX);
		return -EINVAL;
	}
	return 0;
}

unsigned pg_frame_build(uint8_t *buf, unsigned size, const struct pg_frame_tmpl *t,
			const struct pg_flow *f, const struct pg_stamp *s)
{
	unsigned off = 0, l3, l4, l4_len, hl = pg_l4_hdr_len(t->proto);
	uint8_t *ip, *l4p, *st, ipp = pg_ip_proto(t->proto, t->ipv6);

	if (t->proto >= PG_PROTO_NB || size < pg_frame_min_size_proto(t->ipv6, t->vlan, t->proto) ||
	    size > PG_SIZE_MAX)
		return 0;
	memcpy(buf, t->dst_mac, 6);
	memcpy(buf + 6, t->src_mac, 6);
	off = 12;
	if (t->vlan) {
		pg_put16(buf + off, PG_ETHERTYPE_VLAN);
		pg_put16(buf + off + 2, t->vlan_tci);
		off += 4;
	}
	pg_put16(buf + off, t->ipv6 ? PG_ETHERTYPE_IPV6 : PG_ETHERTYPE_IPV4);
	l3 = off + 2;
	ip = buf + l3;
	l4 = l3 + (t->ipv6 ? PG_IPV6_LEN : PG_IPV4_LEN);
	l4p = buf + l4;
	l4_len = size - l4;
	if (t->ipv6) {
		pg_put32(ip, 6u << 28);               /* version, class 0, flow label 0 */
		pg_put16(ip + 4, (uint16_t)l4_len);   /* payload length */
		ip[6] = ipp;
		ip[7] = t->ttl;
		memcpy(ip + 8, f->src_ip, 16);
		memcpy(ip + 24, f->dst_ip, 16);
	} else {
		ip[0] = 0x45;
		ip[1] = 0;
		pg_put16(ip + 2, (uint16_t)(size - l3));
		pg_put16(ip + 4, (uint16_t)s->seq);   /* identification */
		pg_put16(ip + 6, 0x4000);             /* don't fragment */
		ip[8] = t->ttl;
		ip[9] = ipp;
		pg_put16(ip + 10, 0);
		memcpy(ip + 12, f->src_ip, 4);
		memcpy(ip + 16, f->dst_ip, 4);
		pg_put16(ip + 10, unic_ipv4_cksum(ip, PG_IPV4_LEN));
	}
	memset(l4p, 0, hl);
	st = l4p + hl;
	pg_put32(st, s->magic);
	pg_put16(st + 4, s->stream);
	pg_put32(st + 6, s->seq);
	pg_put64(st + 10, s->tsc);
	memset(st + PG_STAMP_LEN, 0, l4_len - hl - PG_STAMP_LEN);
	switch (t->proto) {
	case PG_PROTO_TCP:
		/* A segment of an established connection: PSH|ACK, the
		 * stream's sequence number in bytes, no options. */
		pg_put16(l4p, f->src_port);
		pg_put16(l4p + 2, f->dst_port);
		pg_put32(l4p + 4, s->seq);
		pg_put32(l4p + 8, 1);                 /* acknowledgment number */
		l4p[12] = (PG_TCP_LEN / 4) << 4;      /* data offset */
		l4p[13] = 0x18;                       /* PSH, ACK */
		pg_put16(l4p + 14, 65535);            /* window */
		pg_put16(l4p + 16, pg_tcp_csum(ip, t->ipv6, l4p, l4_len));
		break;
	case PG_PROTO_ICMP:
		l4p[0] = t->ipv6 ? 128 : 8;           /* echo request */
		pg_put16(l4p + 4, s->stream);         /* identifier */
		pg_put16(l4p + 6, (uint16_t)s->seq);  /* sequence number */
		pg_put16(l4p + 2, pg_icmp_csum(ip, t->ipv6, l4p, l4_len));
		break;
	default:
		pg_put16(l4p, f->src_port);
		pg_put16(l4p + 2, f->dst_port);
		pg_put16(l4p + 4, (uint16_t)l4_len);
		pg_put16(l4p + 6, pg_udp_csum(ip, t->ipv6, l4p, l4_len));
		break;
	}
	return size;
}
