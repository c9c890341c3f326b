/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness: unic-testpmd's csum engine step (apps/testpmd/csum.c)
 * on arbitrary frames. The first two bytes pick the settings (checksums in
 * hardware or software, TSO size), where the frame is split into two
 * segments, and the rx checksum flags; the rest is the frame. Each segment
 * is its own exact-size allocation, so ASan stops any read or write past
 * a segment's data. What the engine claims is then checked: lengths within
 * the first segment, offload flags consistent, the frame's length kept
 * (but for Ethernet padding trimmed off an IP packet).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testpmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                       \
	do {                                                                           \
		if (!(c)) {                                                            \
			fprintf(stderr, "fuzz_testpmd_csum: %s:%d: %s does not hold\n", \
				__FILE__, __LINE__, #c);                               \
			abort();                                                       \
		}                                                                      \
	} while (0)

static struct unic_pkt *seg_new(const uint8_t *d, size_t n)
{
	struct unic_pkt *p = calloc(1, sizeof(*p) + n);

	CHECK(p != NULL);
	memcpy(p + 1, d, n);
	p->data_len = (uint16_t)n;
	p->buf_len = (uint16_t)n;
	p->pkt_len = (uint32_t)n;
	p->nb_segs = 1;
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tp_csum_cfg cfg;
	struct tp_qcnt c;
	struct unic_pkt *p, *q = NULL;
	size_t n, split;
	uint64_t tx;

	if (size < 2 || size > 4096 + 2)
		return 0;
	memset(&cfg, 0, sizeof(cfg));
	memset(&c, 0, sizeof(c));
	cfg.hw_ip = data[0] & 1;
	cfg.hw_udp = data[0] & 2;
	cfg.hw_tcp = data[0] & 4;
	cfg.tso_mss = (data[0] & 8) ? (uint16_t)(data[1] * 8 + 1) : 0;
	n = size - 2;
	split = (data[0] & 16) && n > 0 ? (size_t)data[1] % n : 0;
	if (split) {
		p = seg_new(data + 2, split);
		q = seg_new(data + 2 + split, n - split);
		p->next = q;
		p->pkt_len = (uint32_t)n;
		p->nb_segs = 2;
	} else {
		p = seg_new(data + 2, n);
	}
	p->ol_flags = (uint64_t)(data[0] >> 5) & (UNIC_PKT_RX_IP_CKSUM_GOOD | UNIC_PKT_RX_IP_CKSUM_BAD |
						  UNIC_PKT_RX_L4_CKSUM_GOOD);
	tp_csum_pkt(&cfg, p, &c);

	/* The length holds, or Ethernet padding was trimmed off the last segment. */
	CHECK(p->pkt_len <= n);
	CHECK(p->pkt_len == n || (unic_counter_read(&c.ck_nic) + unic_counter_read(&c.ck_sw) == 1 && p->data_len + (q ? q->data_len : 0u) == p->pkt_len));
	CHECK(q == NULL || q->data_len > 0);
	CHECK(unic_counter_read(&c.bad_hdr) + unic_counter_read(&c.ck_nic) + unic_counter_read(&c.ck_sw) <= 1);
	CHECK(unic_counter_read(&c.bad_ip) <= 1 && unic_counter_read(&c.bad_l4) <= 1);
	tx = p->ol_flags & (UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_CKSUM | UNIC_PKT_TX_UDP_CKSUM |
			    UNIC_PKT_TX_TCP_SEG);
	if (unic_counter_read(&c.bad_hdr))
		CHECK(memcmp(p + 1, data + 2, split ? split : n) == 0); /* unchanged */
	if (tx) {
		/* The headers the NIC is told about are in the first segment. */
		CHECK(p->l2_len == 14 || p->l2_len == 18);
		CHECK((size_t)p->l2_len + p->l3_len + p->l4_len <= p->data_len);
		CHECK(!!(p->ol_flags & UNIC_PKT_TX_IPV4) != !!(p->ol_flags & UNIC_PKT_TX_IPV6));
		if (p->ol_flags & UNIC_PKT_TX_IP_CKSUM)
			CHECK(p->ol_flags & UNIC_PKT_TX_IPV4);
		if (p->ol_flags & UNIC_PKT_TX_TCP_SEG)
			CHECK(cfg.tso_mss && p->tso_segsz == cfg.tso_mss && p->l4_len >= 20);
		if (p->ol_flags & UNIC_PKT_TX_UDP_CKSUM)
			CHECK(p->l4_len == 8);
	}
	free(q);
	free(p);
	return 0;
}
