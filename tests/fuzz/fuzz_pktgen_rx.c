/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness: unic-pktgen's receive parser (apps/pktgen/pkt_parse.c)
 * on arbitrary frames. libFuzzer hands over an exact-size buffer, so ASan
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
	const uint8_t *udp;

	CHECK((unsigned)r < PG_PARSE_NB);
	CHECK(strcmp(pg_parse_result_name(r), "?") != 0);
	if (r != PG_PARSE_OK)
		return 0;
	/* The headers it found are where it says, inside the frame. */
	CHECK(p.l3_off == PG_ETH_LEN + (p.vlan ? PG_VLAN_LEN : 0u));
	CHECK(pg_get16(data + 12) == (p.vlan ? PG_ETHERTYPE_VLAN : (p.ipv6 ? PG_ETHERTYPE_IPV6 : PG_ETHERTYPE_IPV4)));
	CHECK(p.l4_off >= p.l3_off + (p.ipv6 ? PG_IPV6_LEN : PG_IPV4_LEN));
	CHECK(p.udp_len >= PG_UDP_LEN + PG_STAMP_LEN);
	CHECK((size_t)p.l4_off + p.udp_len <= size);
	udp = data + p.l4_off;
	CHECK(pg_get16(udp + 4) == p.udp_len);
	/* The stamp is the payload's first bytes. */
	CHECK(p.stamp.magic == PG_STAMP_MAGIC && pg_get32(udp + 8) == PG_STAMP_MAGIC);
	CHECK(p.stamp.stream == pg_get16(udp + 12));
	CHECK(p.stamp.seq == pg_get32(udp + 14));
	CHECK(p.stamp.tsc == pg_get64(udp + 18));
	/* An accepted UDP checksum verifies with the builder's own function
	 * (which sends 0 as 0xffff: compare the folded sums). */
	if (pg_get16(udp + 6) != 0 || p.ipv6) {
		const uint8_t *ip = data + p.l3_off;
		uint8_t *copy = malloc(p.udp_len);
		uint16_t c;

		CHECK(copy != NULL);
		memcpy(copy, udp, p.udp_len);
		copy[6] = copy[7] = 0;
		c = pg_udp_csum(ip, p.ipv6, copy, p.udp_len);
		CHECK(c == pg_get16(udp + 6) || (c == 0xffff && pg_get16(udp + 6) == 0));
		free(copy);
	}
	return 0;
}
