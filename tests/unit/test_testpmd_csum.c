/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's csum engine in this process (testpmd_fixture.h): wrong
 * checksums fixed in software, bad packets counted and forwarded
 * unchanged, the hardware offload contract (flags, lengths, seeds, TSO).
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <unic/pool.h>

#include "testpmd.h"
#include "testpmd_fixture.h"

/*
 * A frame with deliberately wrong checksums (0xdead): Ethernet [802.1Q 7],
 * IPv4 (10.0.0.1 -> 10.0.0.2) or IPv6 (fd00::1 -> fd00::2), TCP (20-byte
 * header) or UDP, @p pay payload bytes. @return its length.
 */
static size_t make_frame(uint8_t *f, bool v6, uint8_t proto, bool vlan, size_t pay)
{
	size_t l2 = vlan ? 18 : 14, l3 = v6 ? 40 : 20, l4 = proto == 6 ? 20 : 8, n = l2 + l3 + l4 + pay;
	uint8_t *ip = f + l2, *t = ip + l3;

	memset(f, 0, n);
	memset(f, 0x0a, 6);
	memset(f + 6, 0x0b, 6);
	if (vlan) {
		f[12] = 0x81;
		f[15] = 7;
	}
	f[l2 - 2] = v6 ? 0x86 : 0x08;
	f[l2 - 1] = v6 ? 0xdd : 0x00;
	if (v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)((l4 + pay) >> 8);
		ip[5] = (uint8_t)(l4 + pay);
		ip[6] = proto;
		ip[7] = 64;
		ip[8] = ip[24] = 0xfd;
		ip[23] = 1;
		ip[39] = 2;
	} else {
		ip[0] = 0x45;
		ip[2] = (uint8_t)((l3 + l4 + pay) >> 8);
		ip[3] = (uint8_t)(l3 + l4 + pay);
		ip[8] = 64;
		ip[9] = proto;
		ip[10] = 0xde; /* wrong header checksum */
		ip[11] = 0xad;
		ip[12] = ip[16] = 10;
		ip[15] = 1;
		ip[19] = 2;
	}
	t[0] = 0x30; /* ports 12345 -> 80 */
	t[1] = 0x39;
	t[3] = 80;
	if (proto == 6) {
		t[12] = 0x50;  /* 20-byte header */
		t[13] = 0x18;  /* PSH ACK */
		t[14] = 0xff;
		t[16] = 0xde;  /* wrong checksum */
		t[17] = 0xad;
	} else {
		t[4] = (uint8_t)((8 + pay) >> 8);
		t[5] = (uint8_t)(8 + pay);
		t[6] = 0xde;
		t[7] = 0xad;
	}
	for (size_t i = 0; i < pay; i++)
		t[l4 + i] = (uint8_t)(i * 7 + 3);
	return n;
}

/* The pseudo-header sum of the frame at @p ip (not complemented), by hand. */
static uint32_t test_phdr(const uint8_t *ip, bool v6, uint8_t proto, uint32_t len)
{
	uint32_t s = v6 ? sum16(0, ip + 8, 32) : sum16(0, ip + 12, 8);

	return sum16(s + proto + (len >> 16) + (len & 0xffff), NULL, 0);
}

/* Do the frame's checksums hold? Checked with the fixture's own sum16. */
static void assert_good_checksums(const uint8_t *f, size_t n, bool v6, uint8_t proto, bool vlan)
{
	size_t l2 = vlan ? 18 : 14, l3 = v6 ? 40 : 20;
	uint32_t l4len = (uint32_t)(n - l2 - l3);

	if (!v6)
		cr_assert_eq(sum16(0, f + l2, 20), 0xffff, "IPv4 header checksum");
	cr_assert_eq(sum16(test_phdr(f + l2, v6, proto, l4len), f + l2 + l3, l4len), 0xffff,
		     "%s checksum (v6 %d, vlan %d)", proto == 6 ? "TCP" : "UDP", v6, vlan);
	cr_assert_neq(be16(f + l2 + l3 + (proto == 6 ? 16 : 6)), 0xdead, "the wrong value was replaced");
}

static void far_send_frame(const uint8_t *f, size_t n)
{
	struct unic_pkt *p = unic_pkt_alloc(far_pool);

	cr_assert_not_null(p);
	memcpy(unic_pkt_append(p, (uint16_t)n), f, n);
	cr_assert_eq(unic_tx_burst(far, 0, &p, 1), 1);
}

Test(testpmd_engine, csum_in_software_fixes_wrong_ipv4_ipv6_tcp_udp_checksums_vlan_too, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	static const struct { bool v6; uint8_t proto; bool vlan; size_t pay; } c[] = {
		{ false, 17, false, 100 }, { false, 6, false, 333 }, { true, 17, false, 64 },
		{ true, 6, false, 1001 }, { false, 6, true, 50 }, { true, 17, true, 7 },
	};
	const size_t nc = sizeof(c) / sizeof(c[0]);
	uint8_t f[2048], mac[6];
	struct unic_pkt *p[16];

	cr_assert_eq(exec("set fwd csum"), 0);
	cr_assert_eq(exec("start"), 0);
	for (size_t i = 0; i < nc; i++)
		far_send_frame(f, make_frame(f, c[i].v6, c[i].proto, c[i].vlan, c[i].pay));
	cr_assert_eq(far_recv(p, (unsigned)nc), nc);
	cr_assert_eq(unic_port_mac_get(app->ports[near_id].port, mac), 0);
	for (size_t i = 0; i < nc; i++) {
		const uint8_t *d = unic_pkt_data(p[i]);
		uint8_t want[2048];
		size_t n = make_frame(want, c[i].v6, c[i].proto, c[i].vlan, c[i].pay);
		const uint8_t dst[6] = { 2, 0, 0, 0, 0, (uint8_t)near_id };

		cr_assert_eq(p[i]->pkt_len, n);
		cr_assert_eq(memcmp(d, dst, 6), 0, "MAC forwarding: the peer's destination");
		cr_assert_eq(memcmp(d + 6, mac, 6), 0, "and the tx port's source");
		assert_good_checksums(d, n, c[i].v6, c[i].proto, c[i].vlan);
		/* Nothing else changed: only the checksum fields differ. */
		size_t l2 = c[i].vlan ? 18 : 14, l3 = c[i].v6 ? 40 : 20;
		size_t ck = l2 + l3 + (c[i].proto == 6 ? 16 : 6);

		for (size_t k = 12; k < n; k++)
			if (k != ck && k != ck + 1 && (c[i].v6 || (k != l2 + 10 && k != l2 + 11)))
				cr_assert_eq(d[k], want[k], "frame %zu byte %zu changed", i, k);
		cr_assert_eq(p[i]->ol_flags & (UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_CKSUM |
					       UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_SEG), 0,
			     "software mode asks nothing of the NIC");
	}
	unic_pkt_free_bulk(p, (unsigned)nc);
	cr_assert_eq(exec("stop"), 0);
	fflush(app->out);
	/* Every frame came with a wrong L4 checksum, the 3 IPv4 ones with a
	 * wrong header checksum; the ring port reports none: software. */
	HAS(outbuf, "Bad-ipcsum: 3              Bad-l4csum: 6              Bad-headers: 0");
	HAS(outbuf, "Rx checksums checked by the NIC (rx flags): 0, in software: 6");
}

Test(testpmd_engine, csum_counts_a_truncated_or_inconsistent_packet_and_forwards_it_unchanged,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	uint8_t f[256];
	struct unic_pkt *p[8];
	size_t cut[4];

	cr_assert_eq(exec("set fwd csum"), 0);
	cr_assert_eq(exec("start"), 0);
	/* 1: cut inside the TCP header; 2: IPv4 total length past the frame;
	 * 3: 10 bytes of Ethernet; 4: VLAN tag without its ethertype;
	 * 5: a correct UDP frame after them all, to show the engine goes on. */
	cut[0] = make_frame(f, false, 6, false, 40) - 45;
	far_send_frame(f, cut[0]);
	cut[1] = make_frame(f, false, 17, false, 10);
	f[16] = 0x05; /* total length 1300 */
	far_send_frame(f, cut[1]);
	cut[2] = 10;
	far_send_frame(f, cut[2]);
	cut[3] = 16;
	make_frame(f, false, 17, true, 10);
	far_send_frame(f, cut[3]);
	far_send_frame(f, make_frame(f, true, 17, false, 10));
	cr_assert_eq(far_recv(p, 5), 5);
	for (unsigned i = 0; i < 4; i++) {
		const uint8_t *d = unic_pkt_data(p[i]);

		cr_assert_eq(p[i]->pkt_len, cut[i]);
		cr_assert_eq(d[0], 0x0a, "a bad packet is forwarded unchanged: its MAC too");
		cr_assert_eq(d[6 % cut[i]], 0x0b);
	}
	cr_assert_eq(((uint8_t *)unic_pkt_data(p[1]))[16], 0x05, "the bad length is left alone");
	assert_good_checksums(unic_pkt_data(p[4]), p[4]->pkt_len, true, 17, false);
	unic_pkt_free_bulk(p, 5);
	cr_assert_eq(exec("stop"), 0);
	fflush(app->out);
	HAS(outbuf, "Bad-headers: 4");
}

/* tp_csum_pkt on one packet of @p n bytes copied from @p f (in one or two segments). */
static struct unic_pkt *csum_one(const struct tp_csum_cfg *cfg, const uint8_t *f, size_t n, size_t seg1,
				 struct tp_qcnt *c)
{
	struct unic_pkt *p = unic_pkt_alloc(far_pool), *q;

	cr_assert_not_null(p);
	if (seg1 == 0 || seg1 >= n) {
		memcpy(unic_pkt_append(p, (uint16_t)n), f, n);
	} else {
		q = unic_pkt_alloc(far_pool);
		cr_assert_not_null(q);
		memcpy(unic_pkt_append(p, (uint16_t)seg1), f, seg1);
		memcpy(unic_pkt_append(q, (uint16_t)(n - seg1)), f + seg1, n - seg1);
		p->next = q;
		p->pkt_len = (uint32_t)n;
		p->nb_segs = 2;
	}
	tp_csum_pkt(cfg, p, c);
	return p;
}

Test(testpmd_engine, csum_in_hardware_sets_flags_lengths_and_the_offload_contract_fields, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	/* The ring port offers no tx offloads, so this drives the engine's
	 * per-packet step directly with a tx port that offers them (an
	 * e1000e); the rig's testpmd scenario runs it on one. */
	struct tp_csum_cfg cfg = { .hw_ip = true, .hw_udp = true, .hw_tcp = true };
	struct tp_qcnt c;
	uint8_t f[4096];
	struct unic_pkt *p;
	const uint8_t *d;
	size_t n;

	memset(&c, 0, sizeof(c));
	memset(cfg.eth, 0x22, 12);
	/* IPv4/UDP: IPv4 field zeroed, UDP field = pseudo-header sum (with the length). */
	n = make_frame(f, false, 17, false, 100);
	p = csum_one(&cfg, f, n, 0, &c);
	d = unic_pkt_data(p);
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_UDP_CKSUM);
	cr_assert_eq(p->l2_len, 14);
	cr_assert_eq(p->l3_len, 20);
	cr_assert_eq(p->l4_len, 8);
	cr_assert_eq(be16(d + 24), 0, "IPv4 checksum field zeroed for the NIC");
	cr_assert_eq(be16(d + 40), test_phdr(d + 14, false, 17, 108), "UDP seeded with the pseudo-header sum");
	cr_assert_eq(d[0], 0x22, "MAC forwarding");
	unic_pkt_free(p);

	/* IPv6/TCP behind a VLAN tag: l2_len 18, IPV6 (never IP_CKSUM). */
	n = make_frame(f, true, 6, true, 300);
	p = csum_one(&cfg, f, n, 0, &c);
	d = unic_pkt_data(p);
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV6 | UNIC_PKT_TX_TCP_CKSUM);
	cr_assert_eq(p->l2_len, 18);
	cr_assert_eq(p->l3_len, 40);
	cr_assert_eq(p->l4_len, 20);
	cr_assert_eq(be16(d + 18 + 40 + 16), test_phdr(d + 18, true, 6, 320));
	unic_pkt_free(p);

	/* IP in hardware, TCP in software: the TCP checksum is whole. */
	cfg.hw_tcp = false;
	n = make_frame(f, false, 6, false, 77);
	p = csum_one(&cfg, f, n, 60, &c); /* two segments */
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM);
	{
		uint8_t flat[256];

		memcpy(flat, unic_pkt_data(p), 60);
		memcpy(flat + 60, unic_pkt_data(p->next), n - 60);
		cr_assert_eq(sum16(test_phdr(flat + 14, false, 6, (uint32_t)(n - 34)), flat + 34, n - 34), 0xffff);
		cr_assert_eq(be16(flat + 24), 0);
	}
	unic_pkt_free(p);

	/* TSO: a TCP payload above the size asks for segmentation, seed without the length. */
	cfg.tso_mss = 1000;
	n = make_frame(f, false, 6, false, 3000);
	p = csum_one(&cfg, f, n, 1500, &c);
	d = unic_pkt_data(p);
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_SEG);
	cr_assert_eq(p->tso_segsz, 1000);
	cr_assert_eq(p->l4_len, 20);
	cr_assert_eq(be16(d + 50), test_phdr(d + 14, false, 6, 0), "TSO seed leaves the length out");
	unic_pkt_free(p);
	/* At or below the size: no TSO (TCP in software here). */
	n = make_frame(f, false, 6, false, 1000);
	p = csum_one(&cfg, f, n, 0, &c);
	cr_assert_eq(p->ol_flags & UNIC_PKT_TX_TCP_SEG, 0);
	unic_pkt_free(p);
	/* UDP is never segmented. */
	n = make_frame(f, false, 17, false, 3000);
	p = csum_one(&cfg, f, n, 1500, &c);
	cr_assert_eq(p->ol_flags & UNIC_PKT_TX_TCP_SEG, 0);
	unic_pkt_free(p);

	/* A short frame padded to 60 bytes: the padding goes before the NIC
	 * is asked to checksum to the end of the frame. */
	cfg.hw_tcp = true;
	n = make_frame(f, false, 6, false, 0);
	cr_assert_eq(n, 54);
	memset(f + 54, 0xee, 6);
	p = csum_one(&cfg, f, 60, 0, &c);
	cr_assert_eq(p->pkt_len, 54, "padding trimmed");
	cr_assert_eq(p->data_len, 54);
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_CKSUM);
	unic_pkt_free(p);

	/* Rx verdicts: the NIC's flags when it set them, else software. */
	cr_assert_eq(unic_counter_read(&c.ck_sw), 7);
	cr_assert_eq(unic_counter_read(&c.ck_nic), 0);
	cr_assert_eq(unic_counter_read(&c.bad_l4), 7, "every frame came with 0xdead");
	n = make_frame(f, false, 17, false, 10);
	{
		struct unic_pkt *q = unic_pkt_alloc(far_pool);

		memcpy(unic_pkt_append(q, (uint16_t)n), f, n);
		q->ol_flags = UNIC_PKT_RX_IP_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_GOOD;
		tp_csum_pkt(&cfg, q, &c);
		cr_assert_eq(unic_counter_read(&c.ck_nic), 1);
		cr_assert_eq(unic_counter_read(&c.bad_l4), 7, "the NIC said good: believed");
		cr_assert_eq(q->ol_flags & (UNIC_PKT_RX_IP_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_GOOD), 0,
			     "rx flags do not go on to the tx side");
		unic_pkt_free(q);
	}
	{
		/* A partial checksum flagged "not computed" (virtio-net's
		 * NEEDS_CSUM): judged in software, its 0xdead L4 field not
		 * counted bad; the flag stays on the rx side. */
		struct unic_pkt *q = unic_pkt_alloc(far_pool);

		memcpy(unic_pkt_append(q, (uint16_t)n), f, n);
		q->ol_flags = UNIC_PKT_RX_L4_CKSUM_NONE;
		tp_csum_pkt(&cfg, q, &c);
		cr_assert_eq(unic_counter_read(&c.ck_sw), 8);
		cr_assert_eq(unic_counter_read(&c.bad_l4), 7, "a checksum flagged not computed was counted bad");
		cr_assert_eq(q->ol_flags & UNIC_PKT_RX_L4_CKSUM_NONE, 0, "rx flags do not go on to the tx side");
		unic_pkt_free(q);
	}
	cr_assert_eq(unic_pool_in_use_count(far_pool), 0);
}
