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

unsigned pg_frame_min_size(bool ipv6, bool vlan)
{
	unsigned n = PG_ETH_LEN + (vlan ? PG_VLAN_LEN : 0) + (ipv6 ? PG_IPV6_LEN : PG_IPV4_LEN) +
		     PG_UDP_LEN + PG_STAMP_LEN;

	return n < PG_SIZE_MIN ? PG_SIZE_MIN : n;
}

int pg_frame_size_check(const struct pg_frame_tmpl *t, unsigned size, char *err, size_t errlen)
{
	unsigned min = pg_frame_min_size(t->ipv6, t->vlan);

	if (size < min) {
		snprintf(err, errlen,
			 "frame size %u is too small for %s%s/UDP and the %d-byte stamp (magic, stream, sequence, timestamp); the minimum is %u (sizes exclude the 4-byte FCS)",
			 size, t->vlan ? "802.1Q/" : "", t->ipv6 ? "IPv6" : "IPv4", PG_STAMP_LEN, min);
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
	unsigned off = 0, l3, l4, udp_len;
	uint8_t *ip, *udp;

	if (size < pg_frame_min_size(t->ipv6, t->vlan) || size > PG_SIZE_MAX)
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
	udp = buf + l4;
	udp_len = size - l4;
	if (t->ipv6) {
		pg_put32(ip, 6u << 28);               /* version, class 0, flow label 0 */
		pg_put16(ip + 4, (uint16_t)udp_len);  /* payload length */
		ip[6] = 17;
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
		ip[9] = 17;
		pg_put16(ip + 10, 0);
		memcpy(ip + 12, f->src_ip, 4);
		memcpy(ip + 16, f->dst_ip, 4);
		pg_put16(ip + 10, unic_ipv4_cksum(ip, PG_IPV4_LEN));
	}
	pg_put16(udp, f->src_port);
	pg_put16(udp + 2, f->dst_port);
	pg_put16(udp + 4, (uint16_t)udp_len);
	pg_put16(udp + 6, 0);
	pg_put32(udp + 8, s->magic);
	pg_put16(udp + 12, s->stream);
	pg_put32(udp + 14, s->seq);
	pg_put64(udp + 18, s->tsc);
	memset(udp + 8 + PG_STAMP_LEN, 0, udp_len - 8 - PG_STAMP_LEN);
	pg_put16(udp + 6, pg_udp_csum(ip, t->ipv6, udp, udp_len));
	return size;
}
