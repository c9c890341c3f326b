/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * set verbose: DPDK's packet dump (its util.c dump_pkt_burst fields, those
 * unic has), one write a burst. testpmd.h.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/pool.h>

#include "testpmd.h"

/* DPDK's software packet type (rte_net_get_ptype) of what the first
 * segment holds, its names (rte_get_ptype_name: each followed by a space)
 * and header lengths. */
struct sw_ptype {
	char name[64];
	unsigned l2, l3, l4;   /* 0: not found */
};

static void sw_ptype(const struct unic_pkt *p, struct sw_ptype *t)
{
	const uint8_t *d = unic_pkt_data(p);
	size_t len = p->data_len, off = 12;
	uint16_t type;
	uint8_t proto = 0;
	bool frag = false;
	int n = 0;

	memset(t, 0, sizeof(*t));
	if (len < 14) {
		snprintf(t->name, sizeof(t->name), "UNKNOWN");
		return;
	}
	type = (uint16_t)(d[off] << 8 | d[off + 1]);
	if ((type == 0x8100 || type == 0x88a8) && len >= off + 6) {
		off += 4;
		type = (uint16_t)(d[off] << 8 | d[off + 1]);
		if (type == 0x8100 && len >= off + 6) {
			off += 4;
			type = (uint16_t)(d[off] << 8 | d[off + 1]);
			n = snprintf(t->name, sizeof(t->name), "L2_ETHER_QINQ ");
		} else {
			n = snprintf(t->name, sizeof(t->name), "L2_ETHER_VLAN ");
		}
	} else {
		n = snprintf(t->name, sizeof(t->name), "L2_ETHER ");
	}
	off += 2;
	t->l2 = (unsigned)off;
	if (type == 0x0800 && len >= off + 20 && (d[off] >> 4) == 4) {
		unsigned ihl = (d[off] & 0xfu) * 4;

		n += snprintf(t->name + n, sizeof(t->name) - (size_t)n, ihl == 20 ? "L3_IPV4 " : "L3_IPV4_EXT ");
		t->l3 = ihl;
		proto = d[off + 9];
		frag = ((d[off + 6] & 0x3f) | d[off + 7]) != 0; /* MF or an offset */
	} else if (type == 0x86dd && len >= off + 40) {
		n += snprintf(t->name + n, sizeof(t->name) - (size_t)n, "L3_IPV6 ");
		t->l3 = 40;
		proto = d[off + 6];
		frag = proto == 44;
	}
	if (t->l3 == 0)
		return;
	off += t->l3;
	if (frag) {
		snprintf(t->name + n, sizeof(t->name) - (size_t)n, "L4_FRAG ");
	} else if (proto == 6 && len >= off + 20) {
		snprintf(t->name + n, sizeof(t->name) - (size_t)n, "L4_TCP ");
		t->l4 = (unsigned)(d[off + 12] >> 4) * 4;
	} else if (proto == 17 && len >= off + 8) {
		snprintf(t->name + n, sizeof(t->name) - (size_t)n, "L4_UDP ");
		t->l4 = 8;
	} else if (proto == 132 && len >= off + 12) {
		snprintf(t->name + n, sizeof(t->name) - (size_t)n, "L4_SCTP ");
		t->l4 = 12;
	}
}

/* The offload flags by DPDK's names (rte_get_rx_ol_flag_list and
 * rte_get_tx_ol_flag_list: a checksum state is named even when unknown). */
static int ol_names(char *b, size_t l, uint64_t f, bool rx)
{
	int n = 0;

#define OL(cond, name) do { if ((cond) && (size_t)n < l) n += snprintf(b + n, l - (size_t)n, "%s ", name); } while (0)
	if (rx) {
		OL(f & UNIC_PKT_RX_VLAN, "RTE_MBUF_F_RX_VLAN");
		OL(f & UNIC_PKT_RX_RSS_HASH, "RTE_MBUF_F_RX_RSS_HASH");
		OL(f & UNIC_PKT_RX_L4_CKSUM_GOOD, "RTE_MBUF_F_RX_L4_CKSUM_GOOD");
		OL(f & UNIC_PKT_RX_L4_CKSUM_BAD, "RTE_MBUF_F_RX_L4_CKSUM_BAD");
		OL(f & UNIC_PKT_RX_L4_CKSUM_NONE, "RTE_MBUF_F_RX_L4_CKSUM_NONE");
		OL(!(f & (UNIC_PKT_RX_L4_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_BAD | UNIC_PKT_RX_L4_CKSUM_NONE)),
		   "RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN");
		OL(f & UNIC_PKT_RX_IP_CKSUM_GOOD, "RTE_MBUF_F_RX_IP_CKSUM_GOOD");
		OL(f & UNIC_PKT_RX_IP_CKSUM_BAD, "RTE_MBUF_F_RX_IP_CKSUM_BAD");
		OL(!(f & (UNIC_PKT_RX_IP_CKSUM_GOOD | UNIC_PKT_RX_IP_CKSUM_BAD)), "RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN");
		OL(f & UNIC_PKT_RX_VLAN_STRIPPED, "RTE_MBUF_F_RX_VLAN_STRIPPED");
		OL(f & UNIC_PKT_RX_LRO, "RTE_MBUF_F_RX_LRO");
		OL(true, "RTE_MBUF_F_RX_OUTER_L4_CKSUM_UNKNOWN");
	} else {
		OL(f & UNIC_PKT_TX_VLAN, "RTE_MBUF_F_TX_VLAN");
		OL(f & UNIC_PKT_TX_IP_CKSUM, "RTE_MBUF_F_TX_IP_CKSUM");
		OL(f & UNIC_PKT_TX_TCP_CKSUM, "RTE_MBUF_F_TX_TCP_CKSUM");
		OL(f & UNIC_PKT_TX_UDP_CKSUM, "RTE_MBUF_F_TX_UDP_CKSUM");
		OL(!(f & (UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_UDP_CKSUM)), "RTE_MBUF_F_TX_L4_NO_CKSUM");
		OL(f & UNIC_PKT_TX_TCP_SEG, "RTE_MBUF_F_TX_TCP_SEG");
		OL(f & UNIC_PKT_TX_IPV4, "RTE_MBUF_F_TX_IPV4");
		OL(f & UNIC_PKT_TX_IPV6, "RTE_MBUF_F_TX_IPV6");
	}
#undef OL
	return n;
}

void tp_verbose_dump(FILE *f, uint16_t port, uint16_t q, const char *what, struct unic_pkt **pkts,
		     uint16_t n)
{
	/* One write per burst, so that threads' lines do not interleave. */
	const size_t per = 512;
	size_t cap = 96 + (size_t)n * per, off = 0;
	bool rx = strcmp(what, "received") == 0;
	char *buf;
	int l;

	if (n == 0 || (buf = malloc(cap)) == NULL)
		return;
	l = snprintf(buf, cap, "port %u/queue %u: %s %u packets\n", port, q, what, n);
	off = l > 0 ? (size_t)l : 0;
	for (uint16_t i = 0; i < n; i++) {
		const struct unic_pkt *p = pkts[i];
		const uint8_t *d = unic_pkt_data(p);
		size_t end = off + per - 1; /* each packet's own share: never past it */
		struct sw_ptype t;
		char fl[384];

#define PUT(...) do { if (off < end) { l = snprintf(buf + off, end - off, __VA_ARGS__); \
			off += l > 0 ? ((size_t)l < end - off ? (size_t)l : end - off - 1) : 0; } } while (0)
		if (p->data_len < 14) {
			PUT("  (runt: %u bytes) - pool=%s - length=%u - nb_segs=%u\n", p->data_len,
			    p->pool ? p->pool->name : "?", p->pkt_len, p->nb_segs);
			continue;
		}
		PUT("  src=%02X:%02X:%02X:%02X:%02X:%02X - dst=%02X:%02X:%02X:%02X:%02X:%02X - pool=%s - type=0x%04x - length=%u - nb_segs=%u",
		    d[6], d[7], d[8], d[9], d[10], d[11], d[0], d[1], d[2], d[3], d[4], d[5],
		    p->pool ? p->pool->name : "?", (unsigned)(d[12] << 8 | d[13]), p->pkt_len, p->nb_segs);
		if (p->ol_flags & UNIC_PKT_RX_RSS_HASH)
			PUT(" - RSS hash=0x%x - RSS queue=0x%x", p->rss_hash, q);
		if ((rx && (p->ol_flags & UNIC_PKT_RX_VLAN)) || (!rx && (p->ol_flags & UNIC_PKT_TX_VLAN)))
			PUT(" - VLAN tci=0x%x", p->vlan_tci);
		sw_ptype(p, &t);
		PUT(" - sw ptype: %s", t.name);
		if (t.l2)
			PUT(" - l2_len=%u", t.l2);
		if (t.l3)
			PUT(" - l3_len=%u", t.l3);
		if (t.l4)
			PUT(" - l4_len=%u", t.l4);
		PUT(" - %s queue=0x%x\n", rx ? "Receive" : "Send", q);
		ol_names(fl, sizeof(fl), p->ol_flags, rx);
		PUT("  ol_flags: %s\n", fl);
#undef PUT
	}
	fwrite(buf, 1, off, f);
	fflush(f);
	free(buf);
}
