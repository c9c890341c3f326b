/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit offload requests checked against the packet's headers
 * (unic/net.h). A NIC builds its checksum and TSO context from l2/l3/l4_len
 * alone: lengths that do not match the headers make it write checksums
 * into the payload or cut segments at the wrong place, so such a packet is
 * refused before it reaches a ring.
 */
#include <errno.h>

#include <unic/net.h>

enum unic_tx_offload_err unic_tx_offload_check(const struct unic_pkt *p)
{
	const uint8_t *h = unic_pkt_data(p);
	uint64_t f = p->ol_flags;
	uint32_t l2 = p->l2_len, l3 = p->l3_len, l4 = p->l4_len, proto;
	bool v4 = (f & UNIC_PKT_TX_IPV4) != 0, v6 = (f & UNIC_PKT_TX_IPV6) != 0;
	bool tcp = (f & (UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_TCP_SEG)) != 0;
	bool udp = (f & UNIC_PKT_TX_UDP_CKSUM) != 0;

	if (!(f & UNIC_PKT_TX_OFFLOAD_MASK))
		return UNIC_TX_OFFLOAD_OK;
	if (v4 == v6)
		return UNIC_TX_OFFLOAD_ERR_IP_TYPE;
	if (tcp && udp)
		return UNIC_TX_OFFLOAD_ERR_L4_TYPE;
	if (l2 < UNIC_ETHER_HDR_LEN)
		return UNIC_TX_OFFLOAD_ERR_L2_LEN;
	if (l3 < UNIC_IPV4_HDR_MIN)
		return UNIC_TX_OFFLOAD_ERR_L3_LEN;
	if ((f & UNIC_PKT_TX_IP_CKSUM) && !v4)
		return UNIC_TX_OFFLOAD_ERR_IP_CKSUM;
	/* TCP needs its header length: its data offset is read below, and
	 * with l4_len 0 that read would be past the data. */
	if (tcp && l4 < UNIC_TCP_HDR_MIN)
		return UNIC_TX_OFFLOAD_ERR_L4_LEN;
	if (p->data_len < l2 + l3 + ((tcp || udp) ? (l4 ? l4 : UNIC_UDP_HDR_LEN) : 0u))
		return UNIC_TX_OFFLOAD_ERR_SHORT;
	if (l2 != UNIC_ETHER_HDR_LEN &&
	    !(l2 == UNIC_ETHER_VLAN_HDR_LEN && unic_net_get16(h + UNIC_ETHER_TYPE_OFF) == UNIC_ETHER_TYPE_VLAN))
		return UNIC_TX_OFFLOAD_ERR_L2_LEN;
	if (unic_net_get16(h + l2 - 2) != (v4 ? UNIC_ETHER_TYPE_IPV4 : UNIC_ETHER_TYPE_IPV6))
		return UNIC_TX_OFFLOAD_ERR_ETHER_TYPE;
	if (unic_ip_version(h + l2) != (v4 ? 4u : 6u))
		return UNIC_TX_OFFLOAD_ERR_IP_VERSION;
	if (l3 != (v4 ? unic_ipv4_hdr_len(h + l2) : UNIC_IPV6_HDR_LEN))
		return UNIC_TX_OFFLOAD_ERR_L3_LEN; /* IPv6: no extension headers */
	proto = h[l2 + (v4 ? UNIC_IPV4_PROTO_OFF : UNIC_IPV6_NEXT_HDR_OFF)];
	if ((tcp && proto != UNIC_IPPROTO_TCP) || (udp && proto != UNIC_IPPROTO_UDP))
		return UNIC_TX_OFFLOAD_ERR_L4_PROTO;
	if ((tcp && unic_tcp_hdr_len(h + l2 + l3) != l4) || (udp && l4 != 0 && l4 != UNIC_UDP_HDR_LEN))
		return UNIC_TX_OFFLOAD_ERR_L4_LEN;
	if ((f & UNIC_PKT_TX_TCP_SEG) && (p->tso_segsz == 0 || p->pkt_len <= l2 + l3 + l4))
		return UNIC_TX_OFFLOAD_ERR_TSO;
	return UNIC_TX_OFFLOAD_OK;
}

const char *unic_tx_offload_strerror(enum unic_tx_offload_err err)
{
	static const char *const why[] = {
		[UNIC_TX_OFFLOAD_OK] = "the offload request matches the headers",
		[UNIC_TX_OFFLOAD_ERR_IP_TYPE] = "not exactly one of the IPv4 and IPv6 flags",
		[UNIC_TX_OFFLOAD_ERR_L4_TYPE] = "both a TCP and a UDP offload asked",
		[UNIC_TX_OFFLOAD_ERR_IP_CKSUM] = "an IPv4 header checksum asked on an IPv6 packet",
		[UNIC_TX_OFFLOAD_ERR_L2_LEN] = "l2_len is not 14, nor 18 with an 802.1Q tag",
		[UNIC_TX_OFFLOAD_ERR_L3_LEN] = "l3_len is not the IP header's length",
		[UNIC_TX_OFFLOAD_ERR_L4_LEN] = "l4_len is not the TCP or UDP header's length",
		[UNIC_TX_OFFLOAD_ERR_SHORT] = "the headers end past the first segment",
		[UNIC_TX_OFFLOAD_ERR_ETHER_TYPE] = "the EtherType is not that of the IP flag",
		[UNIC_TX_OFFLOAD_ERR_IP_VERSION] = "the IP header's version is not that of the IP flag",
		[UNIC_TX_OFFLOAD_ERR_L4_PROTO] = "the IP protocol is not the TCP or UDP asked",
		[UNIC_TX_OFFLOAD_ERR_TSO] = "TSO without a segment size or without payload",
	};

	if ((unsigned)err >= sizeof(why) / sizeof(why[0]))
		return "unknown offload check result";
	return why[err];
}

uint16_t unic_tx_offload_prepare(struct unic_pkt **pkts, uint16_t n, int *err)
{
	for (uint16_t i = 0; i < n; i++) {
		if (UNIC_UNLIKELY(unic_tx_offload_check(pkts[i]) != UNIC_TX_OFFLOAD_OK)) {
			*err = -EINVAL;
			return i;
		}
	}
	*err = 0;
	return n;
}
