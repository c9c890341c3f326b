/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The csum engine's work on one packet (DPDK testpmd's csum engine, for
 * unic's subset: Ethernet with at most one 802.1Q tag, IPv4 or IPv6 without
 * extension headers, UDP or TCP; no tunnels, no SCTP):
 *
 * 1. parse the headers, every length checked against the first segment
 *    (headers) and the packet (payload). A packet whose headers do not hold
 *    together is counted (bad_hdr) and forwarded as it came; one that is
 *    not IPv4/IPv6 (ARP, a second VLAN tag) is forwarded with only its
 *    addresses rewritten;
 * 2. judge the received checksums: by the NIC's rx checksum flags where it
 *    set them (ck_nic), else in software (ck_sw); count bad_ip, bad_l4;
 * 3. MAC forwarding (destination and source of the stream);
 * 4. per the tx port's settings, compute the IPv4 header and TCP/UDP
 *    checksums in software, or leave them to the NIC: the offload flags,
 *    l2/l3/l4_len, the IPv4 checksum field zeroed and the TCP/UDP field
 *    seeded with the pseudo-header sum (docs/e1000e.md, "Tx checksums and
 *    TSO"); a TCP payload above the TSO size asks for TSO (seed without the
 *    length). Ethernet padding after the IP packet is trimmed first.
 */
#include <string.h>

#include <unic/cksum.h>
#include <unic/net.h>

#include "testpmd.h"


#define RX_CK_FLAGS (UNIC_PKT_RX_IP_CKSUM_GOOD | UNIC_PKT_RX_IP_CKSUM_BAD | \
		     UNIC_PKT_RX_L4_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_BAD)

struct hdrs {
	uint32_t l2, l3, l4;   /* header lengths */
	uint32_t l4_bytes;     /* TCP/UDP header + payload (the checksum's span) */
	bool v4, v6;
	uint8_t proto;         /* TCP or UDP, else 0: no L4 work */
};

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* @return 1: IP parsed into @p h; 0: not IP (forward as is); -1: bad headers. */
static int parse(const struct unic_pkt *p, struct hdrs *h)
{
	const uint8_t *d = unic_pkt_data(p);
	uint32_t len = p->data_len, ip_end, l4off;
	uint16_t et;

	memset(h, 0, sizeof(*h));
	if (len < UNIC_ETHER_HDR_LEN)
		return -1;
	h->l2 = UNIC_ETHER_HDR_LEN;
	et = get16(d + UNIC_ETHER_TYPE_OFF);
	if (et == UNIC_ETHER_TYPE_VLAN) {
		if (len < UNIC_ETHER_HDR_LEN + UNIC_VLAN_HDR_LEN)
			return -1;
		h->l2 += UNIC_VLAN_HDR_LEN;
		et = get16(d + UNIC_ETHER_TYPE_OFF + UNIC_VLAN_HDR_LEN);
	}
	if (et == UNIC_ETHER_TYPE_IPV4) {
		const uint8_t *ip = d + h->l2;
		uint32_t tot;

		if (len < h->l2 + UNIC_IPV4_HDR_MIN || unic_ip_version(ip) != 4 || unic_ipv4_hdr_len(ip) < UNIC_IPV4_HDR_MIN)
			return -1;
		h->l3 = unic_ipv4_hdr_len(ip);
		tot = get16(ip + UNIC_IPV4_TOTLEN_OFF);
		if (len < h->l2 + h->l3 || tot < h->l3)
			return -1;
		ip_end = h->l2 + tot;
		h->v4 = true;
		/* A fragment: its L4 checksum spans other packets. */
		if ((get16(ip + 6) & 0x3fff) == 0)
			h->proto = ip[UNIC_IPV4_PROTO_OFF];
	} else if (et == UNIC_ETHER_TYPE_IPV6) {
		const uint8_t *ip = d + h->l2;

		if (len < h->l2 + UNIC_IPV6_HDR_LEN || unic_ip_version(ip) != 6)
			return -1;
		h->l3 = UNIC_IPV6_HDR_LEN;
		ip_end = h->l2 + UNIC_IPV6_HDR_LEN + get16(ip + UNIC_IPV6_PAYLEN_OFF);
		h->v6 = true;
		h->proto = ip[UNIC_IPV6_NEXT_HDR_OFF]; /* an extension header: no L4 work */
	} else {
		return 0;
	}
	/* Ethernet may pad a frame; it must not cut the IP packet short. */
	if (ip_end > p->pkt_len)
		return -1;
	l4off = h->l2 + h->l3;
	h->l4_bytes = ip_end - l4off;
	if (h->proto == UNIC_IPPROTO_TCP) {
		if (len < l4off + UNIC_TCP_HDR_MIN)
			return -1;
		h->l4 = unic_tcp_hdr_len(d + l4off);
		if (h->l4 < UNIC_TCP_HDR_MIN || len < l4off + h->l4 || h->l4_bytes < h->l4)
			return -1;
	} else if (h->proto == UNIC_IPPROTO_UDP) {
		uint32_t ulen;

		if (len < l4off + 8 || h->l4_bytes < 8)
			return -1;
		ulen = get16(d + l4off + 4);
		if (ulen < 8 || ulen > h->l4_bytes)
			return -1;
		h->l4 = 8;
		h->l4_bytes = ulen;
	} else {
		h->proto = 0;
	}
	return 1;
}

static uint16_t phdr(const uint8_t *ip, const struct hdrs *h, uint32_t l4_len)
{
	return h->v4 ? unic_ipv4_phdr_sum(ip, h->proto, l4_len) : unic_ipv6_phdr_sum(ip, h->proto, l4_len);
}

/* Sum of the TCP/UDP span, the checksum field included. */
static bool l4_sum(const struct unic_pkt *p, const uint8_t *ip, const struct hdrs *h, uint32_t *sum)
{
	*sum = phdr(ip, h, h->l4_bytes);
	return unic_pkt_cksum_sum(p, h->l2 + h->l3, h->l4_bytes, sum) == 0;
}

/* Step 2: the received checksums. */
static void rx_judge(const struct unic_pkt *p, const uint8_t *d, const struct hdrs *h, struct tp_qcnt *c)
{
	const uint8_t *ip = d + h->l2;
	uint64_t f = p->ol_flags;
	bool bad_ip = false, bad_l4 = false;

	if (f & RX_CK_FLAGS) {
		unic_counter_add(&c->ck_nic, 1);
		bad_ip = (f & UNIC_PKT_RX_IP_CKSUM_BAD) != 0;
		bad_l4 = (f & UNIC_PKT_RX_L4_CKSUM_BAD) != 0;
	} else {
		uint32_t sum;

		unic_counter_add(&c->ck_sw, 1);
		if (h->v4)
			bad_ip = unic_cksum_add(0, ip, h->l3) != 0xffff;
		/* "Not computed, data intact" (a virtual NIC's partial
		 * checksum, an LRO packet): the field holds the pseudo-header
		 * sum, there is no verdict to find; step 1 fills it in. */
		if (h->proto && !(f & UNIC_PKT_RX_L4_CKSUM_NONE)) {
			uint16_t field = get16(ip + h->l3 + (h->proto == UNIC_IPPROTO_TCP ? UNIC_TCP_CKSUM_OFF : UNIC_UDP_CKSUM_OFF));

			/* UDP over IPv4 may go without a checksum (0). */
			if (!(h->proto == UNIC_IPPROTO_UDP && h->v4 && field == 0))
				bad_l4 = !l4_sum(p, ip, h, &sum) || sum != 0xffff;
		}
	}
	if (bad_ip)
		unic_counter_add(&c->bad_ip, 1);
	if (bad_l4)
		unic_counter_add(&c->bad_l4, 1);
}

/*
 * Ethernet padding after the IP packet (a short frame padded to 60 bytes)
 * goes: a NIC's TCP/UDP checksum or TSO covers everything to the end of the
 * frame, so it would sum the padding in (the NIC pads again on the way
 * out). Only where the last segment holds all of it.
 */
static void trim_padding(struct unic_pkt *p, const struct hdrs *h)
{
	uint32_t end = h->l2 + h->l3 + h->l4_bytes, pad;
	struct unic_pkt *last = p;

	if (h->proto == UNIC_IPPROTO_UDP) /* l4_bytes is the UDP length: the IP end may be later */
		end = h->l2 + (h->v4 ? get16(unic_pkt_mtod(p, const uint8_t *) + h->l2 + 2) :
				   40u + get16(unic_pkt_mtod(p, const uint8_t *) + h->l2 + 4));
	if (p->pkt_len <= end)
		return;
	pad = p->pkt_len - end;
	while (last->next != NULL)
		last = last->next;
	if (pad >= last->data_len) /* no empty segment: a NIC refuses one */
		return;
	last->data_len = (uint16_t)(last->data_len - pad);
	p->pkt_len -= pad;
}

void tp_csum_pkt(const struct tp_csum_cfg *cfg, struct unic_pkt *p, struct tp_qcnt *c)
{
	uint8_t *d = unic_pkt_data(p), *ip, *l4;
	uint64_t fl = 0;
	struct hdrs h;
	int rc = parse(p, &h);

	if (rc < 0) {
		unic_counter_add(&c->bad_hdr, 1);
		return;
	}
	if (rc > 0)
		rx_judge(p, d, &h, c);
	memcpy(d, cfg->eth, 12);
	/* What the receive side set means nothing to the transmit side. */
	p->ol_flags &= ~(RX_CK_FLAGS | UNIC_PKT_RX_L4_CKSUM_NONE | UNIC_PKT_RX_LRO | UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IPV6 | UNIC_PKT_TX_IP_CKSUM |
			 UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_SEG);
	if (rc == 0)
		return;
	ip = d + h.l2;
	l4 = ip + h.l3;
	trim_padding(p, &h);
	bool tso = h.proto == UNIC_IPPROTO_TCP && cfg->tso_mss && h.l4_bytes - h.l4 > cfg->tso_mss;

	if (h.v4) {
		put16(ip + 10, 0);
		if (cfg->hw_ip || tso)
			fl |= UNIC_PKT_TX_IP_CKSUM; /* TSO: the NIC writes each segment's */
		else
			put16(ip + 10, unic_ipv4_cksum(ip, h.l3));
	}
	if (h.proto) {
		uint8_t *field = l4 + (h.proto == UNIC_IPPROTO_TCP ? UNIC_TCP_CKSUM_OFF : UNIC_UDP_CKSUM_OFF);
		bool hw = tso || (h.proto == UNIC_IPPROTO_TCP ? cfg->hw_tcp : cfg->hw_udp);

		if (tso) {
			fl |= UNIC_PKT_TX_TCP_SEG;
			p->tso_segsz = cfg->tso_mss;
			put16(field, phdr(ip, &h, 0)); /* the NIC adds each segment's length */
		} else if (hw) {
			fl |= h.proto == UNIC_IPPROTO_TCP ? UNIC_PKT_TX_TCP_CKSUM : UNIC_PKT_TX_UDP_CKSUM;
			put16(field, phdr(ip, &h, h.l4_bytes));
		} else if (!(h.proto == UNIC_IPPROTO_UDP && h.v4 && get16(field) == 0)) {
			uint32_t sum;
			uint16_t ck;

			put16(field, 0);
			if (l4_sum(p, ip, &h, &sum)) {
				ck = unic_cksum_finish(sum);
				/* UDP sends a computed 0 as all ones (0 means "none"). */
				put16(field, (h.proto == UNIC_IPPROTO_UDP && ck == 0) ? 0xffff : ck);
			}
		}
	}
	if (fl)
		fl |= h.v4 ? UNIC_PKT_TX_IPV4 : UNIC_PKT_TX_IPV6;
	p->ol_flags |= fl;
	p->l2_len = (uint8_t)h.l2;
	p->l3_len = (uint8_t)h.l3;
	p->l4_len = (uint8_t)h.l4;
}
