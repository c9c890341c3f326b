/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen receive parser. Input is untrusted: each header is read only
 * after checking that the frame holds it, and the IP and UDP lengths are
 * checked against what remains (fuzz target: tests/unit/test_pktgen.c feeds
 * truncated and random frames under ASan).
 */
#include <string.h>

#include <unic/cksum.h>
#include <unic/pkt.h>

#include "pkt_parse.h"

const char *pg_parse_result_name(enum pg_parse_result r)
{
	static const char *const names[PG_PARSE_NB] = {
		[PG_PARSE_OK] = "ok", [PG_PARSE_SHORT] = "short", [PG_PARSE_NOT_IP] = "not_ip",
		[PG_PARSE_NOT_UDP] = "not_udp", [PG_PARSE_BAD_LEN] = "bad_len",
		[PG_PARSE_BAD_CSUM] = "bad_csum", [PG_PARSE_NO_STAMP] = "no_stamp",
	};

	return (unsigned)r < PG_PARSE_NB ? names[r] : "?";
}

/* An IP protocol number we send: PG_PROTO_*, or -1. */
static int proto_of(uint8_t ipp, bool ipv6)
{
	if (ipp == PG_IPPROTO_UDP)
		return PG_PROTO_UDP;
	if (ipp == PG_IPPROTO_TCP)
		return PG_PROTO_TCP;
	if (ipp == (ipv6 ? PG_IPPROTO_ICMPV6 : PG_IPPROTO_ICMP))
		return PG_PROTO_ICMP;
	return -1;
}

enum pg_parse_result pg_frame_parse(const uint8_t *buf, size_t len, struct pg_parsed *out)
{
	const uint8_t *ip, *l4, *st;
	size_t off = 12, ip_total, l4_len, hl;
	uint16_t type;
	uint32_t sum;
	int proto;

	memset(out, 0, sizeof(*out));
	if (len < PG_ETH_LEN)
		return PG_PARSE_SHORT;
	type = pg_get16(buf + off);
	if (type == PG_ETHERTYPE_VLAN) {
		if (len < PG_ETH_LEN + PG_VLAN_LEN)
			return PG_PARSE_SHORT;
		out->vlan = true;
		out->vlan_tci = pg_get16(buf + off + 2);
		off += 4;
		type = pg_get16(buf + off);
	}
	off += 2;
	out->l3_off = (unsigned)off;
	ip = buf + off;
	if (type == PG_ETHERTYPE_IPV4) {
		size_t ihl;

		if (len - off < PG_IPV4_LEN)
			return PG_PARSE_SHORT;
		if (ip[0] >> 4 != 4)
			return PG_PARSE_NOT_IP;
		ihl = (size_t)(ip[0] & 0xf) * 4;
		if (ihl < PG_IPV4_LEN)
			return PG_PARSE_BAD_LEN;
		if (len - off < ihl)
			return PG_PARSE_SHORT;
		ip_total = pg_get16(ip + 2);
		if (ip_total < ihl || ip_total > len - off)
			return PG_PARSE_BAD_LEN;
		proto = proto_of(ip[9], false);
		if (proto < 0 || (pg_get16(ip + 6) & 0x3fff) != 0)  /* ours, not a fragment */
			return PG_PARSE_NOT_UDP;
		if (unic_cksum_finish(unic_cksum_add(0, ip, ihl)) != 0)  /* sums to all ones */
			return PG_PARSE_BAD_CSUM;
		off += ihl;
		l4_len = ip_total - ihl;
	} else if (type == PG_ETHERTYPE_IPV6) {
		if (len - off < PG_IPV6_LEN)
			return PG_PARSE_SHORT;
		if (ip[0] >> 4 != 6)
			return PG_PARSE_NOT_IP;
		out->ipv6 = true;
		proto = proto_of(ip[6], true);  /* no extension headers: we send none */
		if (proto < 0)
			return PG_PARSE_NOT_UDP;
		l4_len = pg_get16(ip + 4);
		if (l4_len > len - off - PG_IPV6_LEN)
			return PG_PARSE_BAD_LEN;
		off += PG_IPV6_LEN;
	} else {
		return PG_PARSE_NOT_IP;
	}
	out->proto = (uint8_t)proto;
	out->l4_off = (unsigned)off;
	l4 = buf + off;
	/* l4_len bytes from off are inside the frame (checked above). */
	switch (proto) {
	case PG_PROTO_UDP:
		if (l4_len < PG_UDP_LEN)
			return PG_PARSE_SHORT;
		if (pg_get16(l4 + 4) != l4_len)
			return PG_PARSE_BAD_LEN;
		hl = PG_UDP_LEN;
		if (pg_get16(l4 + 6) == 0 && !out->ipv6)  /* IPv4 may omit it; IPv6 must not */
			break;
		sum = out->ipv6 ? unic_ipv6_phdr_sum(ip, PG_IPPROTO_UDP, (uint32_t)l4_len)
				: unic_ipv4_phdr_sum(ip, PG_IPPROTO_UDP, (uint32_t)l4_len);
		if (unic_cksum_finish(unic_cksum_add(sum, l4, l4_len)) != 0)
			return PG_PARSE_BAD_CSUM;
		break;
	case PG_PROTO_TCP:
		if (l4_len < PG_TCP_LEN)
			return PG_PARSE_SHORT;
		hl = (size_t)(l4[12] >> 4) * 4;  /* data offset: options allowed */
		if (hl < PG_TCP_LEN || hl > l4_len)
			return PG_PARSE_BAD_LEN;
		sum = out->ipv6 ? unic_ipv6_phdr_sum(ip, PG_IPPROTO_TCP, (uint32_t)l4_len)
				: unic_ipv4_phdr_sum(ip, PG_IPPROTO_TCP, (uint32_t)l4_len);
		if (unic_cksum_finish(unic_cksum_add(sum, l4, l4_len)) != 0)
			return PG_PARSE_BAD_CSUM;
		break;
	default:  /* ICMP: only an echo request carries a stamp */
		if (l4_len < PG_ICMP_LEN)
			return PG_PARSE_SHORT;
		if (l4[0] != (out->ipv6 ? 128 : 8) || l4[1] != 0)
			return PG_PARSE_NOT_UDP;
		hl = PG_ICMP_LEN;
		sum = out->ipv6 ? unic_ipv6_phdr_sum(ip, PG_IPPROTO_ICMPV6, (uint32_t)l4_len) : 0;
		if (unic_cksum_finish(unic_cksum_add(sum, l4, l4_len)) != 0)
			return PG_PARSE_BAD_CSUM;
		break;
	}
	out->udp_len = (uint16_t)l4_len;
	if (l4_len < hl + PG_STAMP_LEN || pg_get32(l4 + hl) != PG_STAMP_MAGIC)
		return PG_PARSE_NO_STAMP;
	st = l4 + hl;
	out->stamp_off = (unsigned)(off + hl);
	out->stamp.magic = PG_STAMP_MAGIC;
	out->stamp.stream = pg_get16(st + 4);
	out->stamp.seq = pg_get32(st + 6);
	out->stamp.tsc = pg_get64(st + 10);
	return PG_PARSE_OK;
}

enum pg_parse_result pg_pkt_parse(const struct unic_pkt *p, uint8_t *scratch, size_t scratch_len,
				  struct pg_parsed *out)
{
	size_t n = 0;

	if (p->next == NULL)
		return pg_frame_parse(unic_pkt_data(p), p->data_len, out);
	for (const struct unic_pkt *s = p; s != NULL && n < scratch_len; s = s->next) {
		size_t k = s->data_len < scratch_len - n ? s->data_len : scratch_len - n;

		memcpy(scratch + n, unic_pkt_data(s), k);
		n += k;
	}
	return pg_frame_parse(scratch, n, out);
}
