/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen --arp-reply (arp.h). Frames are untrusted: every field is
 * read only after checking that the frame holds it. */
#include <errno.h>
#include <string.h>

#include <unic/cksum.h>
#include <unic/pkt.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "arp.h"

void pg_arp_init(struct pg_arp *a)
{
	memset(a, 0, sizeof(*a));
}

int pg_arp_add(struct pg_arp *a, int port, bool ipv6, const struct pg_ip_range *r, const uint8_t mac[6])
{
	for (unsigned i = 0; i < a->nb; i++) {
		const struct pg_arp_entry *e = &a->e[i];

		if (e->port == port && e->ipv6 == ipv6 && e->range.count == r->count &&
		    memcmp(e->range.lo, r->lo, 16) == 0 && memcmp(e->mac, mac, 6) == 0)
			return 0;  /* already there (two streams, one range) */
	}
	if (a->nb >= PG_ARP_MAX)
		return -ENOSPC;
	a->e[a->nb].port = port;
	a->e[a->nb].ipv6 = ipv6;
	a->e[a->nb].range = *r;
	memcpy(a->e[a->nb].mac, mac, 6);
	a->nb++;
	return 0;
}

/* The MAC answering for address @p ip on @p port, or NULL. */
static const uint8_t *lookup(const struct pg_arp *a, int port, bool ipv6, const uint8_t *ip)
{
	unsigned off = ipv6 ? 12 : 0;
	uint32_t v = pg_get32(ip + off);

	for (unsigned i = 0; i < a->nb; i++) {
		const struct pg_arp_entry *e = &a->e[i];
		uint32_t lo;

		if (e->port != port || e->ipv6 != ipv6 || (ipv6 && memcmp(e->range.lo, ip, 12) != 0))
			continue;
		lo = pg_get32(e->range.lo + off);
		if (v >= lo && (uint64_t)v - lo < e->range.count)
			return e->mac;
	}
	return NULL;
}

/* After the Ethernet header and an optional tag: the EtherType's offset. */
static size_t l2_len(const uint8_t *f, size_t len, bool *vlan)
{
	*vlan = len >= 18 && pg_get16(f + 12) == PG_ETHERTYPE_VLAN;
	return *vlan ? 16 : 12;
}

bool pg_arp_is_nd(const uint8_t *f, size_t len)
{
	bool vlan;
	size_t t = l2_len(f, len, &vlan);

	if (len < t + 2)
		return false;
	if (pg_get16(f + t) == PG_ETHERTYPE_ARP)
		return true;
	/* IPv6, next header ICMPv6, type 133..137 (RFC 4861 4). */
	return pg_get16(f + t) == PG_ETHERTYPE_IPV6 && len >= t + 2 + PG_IPV6_LEN + 1 &&
	       f[t + 2 + 6] == PG_IPPROTO_ICMPV6 && f[t + 2 + PG_IPV6_LEN] >= 133 &&
	       f[t + 2 + PG_IPV6_LEN] <= 137;
}

/* Ethernet header (and the request's tag) of a reply to frame @p f. */
static size_t reply_l2(uint8_t *out, const uint8_t *f, bool vlan, const uint8_t *mac, uint16_t type)
{
	memcpy(out, f + 6, 6);   /* to the asker */
	memcpy(out + 6, mac, 6);
	if (vlan) {
		memcpy(out + 12, f + 12, 4);
		pg_put16(out + 16, type);
		return 18;
	}
	pg_put16(out + 12, type);
	return 14;
}

static unsigned answer_arp(struct pg_arp *a, int port, const uint8_t *f, size_t len, size_t t,
			   bool vlan, uint8_t *out)
{
	const uint8_t *arp = f + t + 2, *mac;
	size_t off;

	/* Ethernet/IPv4 request: htype 1, ptype 0x0800, hlen 6, plen 4, op 1. */
	if (len < t + 2 + 28 || pg_get16(arp) != 1 || pg_get16(arp + 2) != PG_ETHERTYPE_IPV4 ||
	    arp[4] != 6 || arp[5] != 4 || pg_get16(arp + 6) != 1)
		return 0;
	mac = lookup(a, port, false, arp + 24);   /* target protocol address */
	if (mac == NULL)
		return 0;
	off = reply_l2(out, f, vlan, mac, PG_ETHERTYPE_ARP);
	memcpy(out + off, arp, 6);              /* htype, ptype, hlen, plen */
	pg_put16(out + off + 6, 2);             /* reply */
	memcpy(out + off + 8, mac, 6);          /* sender: us */
	memcpy(out + off + 14, arp + 24, 4);
	memcpy(out + off + 18, arp + 8, 10);    /* target: the asker's MAC and address */
	off += 28;
	if (off < PG_SIZE_MIN) {                /* padded to the minimum frame */
		memset(out + off, 0, PG_SIZE_MIN - off);
		off = PG_SIZE_MIN;
	}
	a->arp_replies++;
	return (unsigned)off;
}

static unsigned answer_ns(struct pg_arp *a, int port, const uint8_t *f, size_t len, size_t t,
			  bool vlan, uint8_t *out)
{
	const uint8_t *ip = f + t + 2, *icmp = ip + PG_IPV6_LEN, *mac;
	static const uint8_t unspec[16];
	size_t plen, off;
	uint8_t *oip, *na;

	if (len < t + 2 + PG_IPV6_LEN || (ip[0] >> 4) != 6 || ip[6] != PG_IPPROTO_ICMPV6)
		return 0;
	plen = pg_get16(ip + 4);
	/* RFC 4861 7.1.1: hop limit 255, code 0, 24 bytes or more, checksum. */
	if (plen < 24 || plen > len - t - 2 - PG_IPV6_LEN || ip[7] != 255 || icmp[0] != 135 ||
	    icmp[1] != 0)
		return 0;
	if (unic_cksum_finish(unic_cksum_add(unic_ipv6_phdr_sum(ip, PG_IPPROTO_ICMPV6, (uint32_t)plen),
					     icmp, plen)) != 0)
		return 0;
	/* Duplicate address detection (from ::) is not answered here. */
	if (memcmp(ip + 8, unspec, 16) == 0)
		return 0;
	mac = lookup(a, port, true, icmp + 8);   /* the target address */
	if (mac == NULL)
		return 0;
	off = reply_l2(out, f, vlan, mac, PG_ETHERTYPE_IPV6);
	oip = out + off;
	na = oip + PG_IPV6_LEN;
	pg_put32(oip, 6u << 28);
	pg_put16(oip + 4, 32);
	oip[6] = PG_IPPROTO_ICMPV6;
	oip[7] = 255;
	memcpy(oip + 8, icmp + 8, 16);           /* from the target */
	memcpy(oip + 24, ip + 8, 16);            /* to the solicitor */
	memset(na, 0, 32);
	na[0] = 136;                             /* neighbour advertisement */
	na[4] = 0x60;                            /* solicited, override */
	memcpy(na + 8, icmp + 8, 16);
	na[24] = 2;                              /* target link-layer address option */
	na[25] = 1;                              /* 8 bytes */
	memcpy(na + 26, mac, 6);
	pg_put16(na + 2, pg_icmp_csum(oip, true, na, 32));
	a->na_replies++;
	return (unsigned)(off + PG_IPV6_LEN + 32);
}

unsigned pg_arp_answer(struct pg_arp *a, int port, const uint8_t *f, size_t len, uint8_t *out)
{
	bool vlan;
	size_t t = l2_len(f, len, &vlan);

	if (len < t + 2)
		return 0;
	if (pg_get16(f + t) == PG_ETHERTYPE_ARP)
		return answer_arp(a, port, f, len, t, vlan, out);
	if (pg_get16(f + t) == PG_ETHERTYPE_IPV6)
		return answer_ns(a, port, f, len, t, vlan, out);
	return 0;
}

bool pg_arp_handle(struct pg_arp *a, struct unic_port *port, int idx, const struct unic_pkt *p,
		   struct unic_pool *pool)
{
	uint8_t out[PG_ARP_REPLY_MAX];
	struct unic_pkt *r;
	unsigned n;

	if (!pg_arp_is_nd(unic_pkt_data(p), p->data_len))
		return false;
	n = pg_arp_answer(a, idx, unic_pkt_data(p), p->data_len, out);
	if (n == 0)
		return true;
	r = unic_pkt_alloc(pool);
	if (r == NULL || unic_pkt_append(r, (uint16_t)n) == NULL) {
		unic_pkt_free(r);
		a->tx_fail++;
		return true;
	}
	memcpy(unic_pkt_data(r), out, n);
	if (unic_tx_burst(port, 0, &r, 1) != 1) {
		unic_pkt_free(r);
		a->tx_fail++;
	}
	return true;
}
