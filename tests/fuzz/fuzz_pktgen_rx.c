/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness: unic-pktgen's receive parser (apps/pktgen/pkt_parse.c)
 * on arbitrary frames (UDP, TCP and ICMP echo). libFuzzer hands over an exact-size buffer, so ASan
 * stops any read past the frame; on top of that, what the parser claims
 * about a frame it accepts is checked against the bytes themselves.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkt_build.h"
#include "pkt_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                   \
	do {                                                                       \
		if (!(c)) {                                                        \
			fprintf(stderr, "fuzz_pktgen_rx: %s:%d: %s does not hold\n", \
				__FILE__, __LINE__, #c);                           \
			abort();                                                   \
		}                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_parsed p;
	enum pg_parse_result r = pg_frame_parse(data, size, &p);
	const uint8_t *udp, *st;

	CHECK((unsigned)r < PG_PARSE_NB);
	CHECK(strcmp(pg_parse_result_name(r), "?") != 0);
	if (r != PG_PARSE_OK)
		return 0;
	/* The headers it found are where it says, inside the frame. */
	CHECK(p.l3_off == PG_ETH_LEN + (p.vlan ? PG_VLAN_LEN : 0u));
	CHECK(pg_get16(data + 12) == (p.vlan ? PG_ETHERTYPE_VLAN : (p.ipv6 ? PG_ETHERTYPE_IPV6 : PG_ETHERTYPE_IPV4)));
	CHECK(p.l4_off >= p.l3_off + (p.ipv6 ? PG_IPV6_LEN : PG_IPV4_LEN));
	CHECK(p.proto < PG_PROTO_NB);
	CHECK(data[p.l3_off + (p.ipv6 ? 6 : 9)] == pg_ip_proto(p.proto, p.ipv6));
	CHECK(p.stamp_off >= p.l4_off + pg_l4_hdr_len(p.proto));
	CHECK((size_t)p.stamp_off + PG_STAMP_LEN <= (size_t)p.l4_off + p.udp_len);
	CHECK((size_t)p.l4_off + p.udp_len <= size);
	udp = data + p.l4_off;
	/* The stamp is the payload's first bytes. */
	st = data + p.stamp_off;
	CHECK(p.stamp.magic == PG_STAMP_MAGIC && pg_get32(st) == PG_STAMP_MAGIC);
	CHECK(p.stamp.stream == pg_get16(st + 4));
	CHECK(p.stamp.seq == pg_get32(st + 6));
	CHECK(p.stamp.tsc == pg_get64(st + 10));
	/* An accepted checksum verifies with the builder's own function
	 * (UDP sends 0 as 0xffff: compare the folded sums). */
	if (p.proto == PG_PROTO_UDP) {
		CHECK(p.stamp_off == p.l4_off + PG_UDP_LEN);
		CHECK(pg_get16(udp + 4) == p.udp_len);
	}
	if (p.proto == PG_PROTO_ICMP)
		CHECK(udp[0] == (p.ipv6 ? 128 : 8) && p.stamp_off == p.l4_off + PG_ICMP_LEN);
	if (p.proto == PG_PROTO_TCP)
		CHECK(p.stamp_off == p.l4_off + (udp[12] >> 4) * 4u);
	if (p.proto != PG_PROTO_UDP || pg_get16(udp + 6) != 0 || p.ipv6) {
		const uint8_t *ip = data + p.l3_off;
		unsigned at = p.proto == PG_PROTO_TCP ? 16 : p.proto == PG_PROTO_ICMP ? 2 : 6;
		uint8_t *copy = malloc(p.udp_len);
		uint16_t c, got = pg_get16(udp + at);

		CHECK(copy != NULL);
		memcpy(copy, udp, p.udp_len);
		copy[at] = copy[at + 1] = 0;
		c = p.proto == PG_PROTO_TCP ? pg_tcp_csum(ip, p.ipv6, copy, p.udp_len)
		    : p.proto == PG_PROTO_ICMP ? pg_icmp_csum(ip, p.ipv6, copy, p.udp_len)
					       : pg_udp_csum(ip, p.ipv6, copy, p.udp_len);
		CHECK(c == got || (c == 0xffff && got == 0) || (c == 0 && got == 0xffff));
		free(copy);
	}
	return 0;
}
