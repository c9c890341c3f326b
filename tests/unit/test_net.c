/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic/net.h: the header accessors, and unic_tx_offload_check() on packets
 * built byte by byte: each request it must accept, and each one it must
 * refuse, with the reason it gives.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <unic/net.h>

/* A one-segment packet holding exactly @p len bytes of data (under ASan a
 * read past data_len is a heap-buffer-overflow). */
static struct unic_pkt *pkt(uint16_t len)
{
	struct unic_pkt *p = calloc(1, sizeof(*p) + len);

	cr_assert_not_null(p);
	p->data_len = len;
	p->pkt_len = len;
	p->nb_segs = 1;
	return p;
}

/* Ethernet (+ one 802.1Q tag when @p vlan) + IPv4 (IHL 5) or IPv6 + TCP
 * (data offset 5) or UDP, then @p pay payload bytes, with lengths and
 * flags that match: @p l4 is UNIC_IPPROTO_TCP or UNIC_IPPROTO_UDP. */
static struct unic_pkt *frame(bool v6, bool vlan, uint8_t l4, uint16_t pay)
{
	uint16_t l2 = vlan ? UNIC_ETHER_VLAN_HDR_LEN : UNIC_ETHER_HDR_LEN;
	uint16_t l3 = v6 ? UNIC_IPV6_HDR_LEN : UNIC_IPV4_HDR_MIN;
	uint16_t l4len = l4 == UNIC_IPPROTO_TCP ? UNIC_TCP_HDR_MIN : UNIC_UDP_HDR_LEN;
	struct unic_pkt *p = pkt((uint16_t)(l2 + l3 + l4len + pay));
	uint8_t *h = unic_pkt_data(p);

	if (vlan) {
		unic_net_put16(h + UNIC_ETHER_TYPE_OFF, UNIC_ETHER_TYPE_VLAN);
		unic_net_put16(h + UNIC_ETHER_TYPE_OFF + 2, 42);
	}
	unic_net_put16(h + l2 - 2, v6 ? UNIC_ETHER_TYPE_IPV6 : UNIC_ETHER_TYPE_IPV4);
	if (v6) {
		h[l2] = 0x60;
		h[l2 + UNIC_IPV6_NEXT_HDR_OFF] = l4;
	} else {
		h[l2] = 0x45;
		h[l2 + UNIC_IPV4_PROTO_OFF] = l4;
	}
	if (l4 == UNIC_IPPROTO_TCP)
		h[l2 + l3 + UNIC_TCP_DOFF_OFF] = 5 << 4;
	p->l2_len = (uint8_t)l2;
	p->l3_len = (uint8_t)l3;
	p->l4_len = (uint8_t)l4len;
	p->ol_flags = (v6 ? UNIC_PKT_TX_IPV6 : UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM) |
		      (l4 == UNIC_IPPROTO_TCP ? UNIC_PKT_TX_TCP_CKSUM : UNIC_PKT_TX_UDP_CKSUM);
	return p;
}

Test(net, accessors_read_the_header_fields_big_endian)
{
	uint8_t b[40] = { 0x45, 0x00, 0x12, 0x34 };

	cr_assert_eq(unic_net_get16(b + 2), 0x1234);
	unic_net_put16(b + 4, 0xabcd);
	cr_assert_eq(b[4], 0xab);
	cr_assert_eq(b[5], 0xcd);
	cr_assert_eq(unic_ip_version(b), 4);
	cr_assert_eq(unic_ipv4_hdr_len(b), 20);
	b[0] = 0x4f;
	cr_assert_eq(unic_ipv4_hdr_len(b), UNIC_IPV4_HDR_MAX);
	b[UNIC_TCP_DOFF_OFF] = 8 << 4;
	cr_assert_eq(unic_tcp_hdr_len(b), 32);
}

Test(net, matching_requests_and_packets_without_requests_pass)
{
	struct {
		const char *what;
		struct unic_pkt *p;
	} ok[] = {
		{ "IPv4 header and TCP checksums", frame(false, false, UNIC_IPPROTO_TCP, 10) },
		{ "IPv4 and UDP checksums", frame(false, false, UNIC_IPPROTO_UDP, 10) },
		{ "IPv6 TCP checksum", frame(true, false, UNIC_IPPROTO_TCP, 10) },
		{ "IPv6 UDP checksum behind an 802.1Q tag", frame(true, true, UNIC_IPPROTO_UDP, 10) },
		{ "IPv4 TSO behind an 802.1Q tag", frame(false, true, UNIC_IPPROTO_TCP, 3000) },
		{ "no offload request, no headers at all", pkt(1) },
	};

	ok[1].p->l4_len = 0; /* UDP: 0 means the 8-byte header */
	ok[4].p->ol_flags |= UNIC_PKT_TX_TCP_SEG;
	ok[4].p->tso_segsz = 1000;
	ok[5].p->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_VLAN; /* no checksum or TSO asked */
	for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		enum unic_tx_offload_err e = unic_tx_offload_check(ok[i].p);

		cr_assert_eq(e, UNIC_TX_OFFLOAD_OK, "%s: refused: %s", ok[i].what, unic_tx_offload_strerror(e));
		free(ok[i].p);
	}
}

Test(net, each_mismatch_is_refused_with_its_reason)
{
	struct {
		const char *what;
		struct unic_pkt *p;
		enum unic_tx_offload_err want;
	} c[] = {
		{ "neither IPv4 nor IPv6 flag", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_IP_TYPE },
		{ "both IP flags", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_IP_TYPE },
		{ "TCP and UDP checksums", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_L4_TYPE },
		{ "IPv4 header checksum on IPv6", frame(true, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_IP_CKSUM },
		{ "l2_len 0", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_L2_LEN },
		{ "l2_len 18 without a tag", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_L2_LEN },
		{ "l3_len under 20", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_L3_LEN },
		{ "l3_len 24 on an IHL 5 header", frame(false, false, UNIC_IPPROTO_UDP, 10), UNIC_TX_OFFLOAD_ERR_L3_LEN },
		{ "IPv6 l3_len 48 (extension headers)", frame(true, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_L3_LEN },
		{ "TCP with l4_len 0", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_L4_LEN },
		{ "TCP l4_len 24 on a 20-byte header", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_L4_LEN },
		{ "UDP l4_len 12", frame(false, false, UNIC_IPPROTO_UDP, 10), UNIC_TX_OFFLOAD_ERR_L4_LEN },
		{ "headers longer than the first segment", frame(false, false, UNIC_IPPROTO_TCP, 0), UNIC_TX_OFFLOAD_ERR_SHORT },
		{ "IPv4 flag on an IPv6 EtherType", frame(true, false, UNIC_IPPROTO_UDP, 10), UNIC_TX_OFFLOAD_ERR_ETHER_TYPE },
		{ "IPv4 EtherType, IPv6 version", frame(false, false, UNIC_IPPROTO_UDP, 10), UNIC_TX_OFFLOAD_ERR_IP_VERSION },
		{ "TCP checksum on a UDP packet", frame(false, false, UNIC_IPPROTO_UDP, 20), UNIC_TX_OFFLOAD_ERR_L4_PROTO },
		{ "UDP checksum on a TCP packet", frame(true, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_L4_PROTO },
		{ "TSO without a segment size", frame(false, false, UNIC_IPPROTO_TCP, 10), UNIC_TX_OFFLOAD_ERR_TSO },
		{ "TSO without payload", frame(false, false, UNIC_IPPROTO_TCP, 0), UNIC_TX_OFFLOAD_ERR_TSO },
	};
	unsigned i = 0;

	c[i++].p->ol_flags &= ~UNIC_PKT_TX_IPV4 & ~UNIC_PKT_TX_IP_CKSUM;
	c[i++].p->ol_flags |= UNIC_PKT_TX_IPV6;
	c[i++].p->ol_flags |= UNIC_PKT_TX_UDP_CKSUM;
	c[i++].p->ol_flags |= UNIC_PKT_TX_IP_CKSUM;
	c[i++].p->l2_len = 0;
	c[i++].p->l2_len = UNIC_ETHER_VLAN_HDR_LEN;
	c[i++].p->l3_len = 16;
	c[i++].p->l3_len = 24;
	c[i++].p->l3_len = 48;
	c[i++].p->l4_len = 0;
	c[i++].p->l4_len = 24;
	c[i++].p->l4_len = 12;
	c[i].p->data_len = (uint16_t)(c[i].p->data_len - 1); /* the TCP header cut by one byte */
	c[i++].p->pkt_len--;
	c[i++].p->ol_flags ^= UNIC_PKT_TX_IPV6 | UNIC_PKT_TX_IPV4;
	((uint8_t *)unic_pkt_data(c[i++].p))[UNIC_ETHER_HDR_LEN] = 0x65;
	c[i].p->ol_flags ^= UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_CKSUM;
	c[i++].p->l4_len = UNIC_TCP_HDR_MIN; /* so the length checks pass */
	c[i++].p->ol_flags ^= UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_CKSUM;
	c[i++].p->ol_flags |= UNIC_PKT_TX_TCP_SEG;
	c[i].p->ol_flags |= UNIC_PKT_TX_TCP_SEG;
	c[i++].p->tso_segsz = 1000;
	cr_assert_eq(i, sizeof(c) / sizeof(c[0]));
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		enum unic_tx_offload_err e = unic_tx_offload_check(c[i].p);

		cr_assert_eq(e, c[i].want, "%s: got \"%s\", want \"%s\"", c[i].what,
			     unic_tx_offload_strerror(e), unic_tx_offload_strerror(c[i].want));
		free(c[i].p);
	}
}

Test(net, every_reason_has_its_own_sentence)
{
	for (int a = UNIC_TX_OFFLOAD_OK; a <= UNIC_TX_OFFLOAD_ERR_TSO; a++) {
		cr_assert_not_null(unic_tx_offload_strerror((enum unic_tx_offload_err)a));
		for (int b = UNIC_TX_OFFLOAD_OK; b < a; b++)
			cr_assert_str_neq(unic_tx_offload_strerror((enum unic_tx_offload_err)a),
					  unic_tx_offload_strerror((enum unic_tx_offload_err)b));
	}
	cr_assert_str_eq(unic_tx_offload_strerror((enum unic_tx_offload_err)1000),
			 "unknown offload check result");
}

Test(net, prepare_stops_at_the_first_refused_packet)
{
	struct unic_pkt *b[3] = {
		frame(false, false, UNIC_IPPROTO_TCP, 10),
		frame(false, false, UNIC_IPPROTO_TCP, 10),
		frame(false, false, UNIC_IPPROTO_TCP, 10),
	};
	int err = 1;

	cr_assert_eq(unic_tx_offload_prepare(b, 3, &err), 3);
	cr_assert_eq(err, 0);
	b[1]->l4_len = 0;
	cr_assert_eq(unic_tx_offload_prepare(b, 3, &err), 1);
	cr_assert_eq(err, -EINVAL);
	cr_assert_eq(unic_tx_offload_prepare(b + 2, 1, &err), 1);
	cr_assert_eq(err, 0);
	cr_assert_eq(unic_tx_offload_prepare(b, 0, &err), 0);
	for (unsigned i = 0; i < 3; i++)
		free(b[i]);
}
