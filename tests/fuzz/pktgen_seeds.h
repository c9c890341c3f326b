/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The seed corpus of fuzz_pktgen_rx (tests/fuzz/corpus/fuzz_pktgen_rx/): one
 * frame per entry, made by the pktgen builder from these parameters. The unit
 * test pktgen::seed_corpus_is_what_the_builder_makes rebuilds each and
 * compares it byte for byte with its file, so the seeds stay valid frames.
 */
#ifndef PG_FUZZ_SEEDS_H
#define PG_FUZZ_SEEDS_H

#include <string.h>

#include "pkt_build.h"

struct pg_seed {
	const char *name;
	bool ipv6, vlan;
	unsigned size;       /* built size */
	unsigned pad;        /* zero bytes after it (Ethernet padding) */
};

static const struct pg_seed pg_seeds[] = {
	{ "ipv4-60", false, false, 60, 0 },
	{ "ipv4-vlan-64", false, true, 64, 0 },
	{ "ipv4-200-padded", false, false, 200, 8 },
	{ "ipv6-80", true, false, 80, 0 },
	{ "ipv6-vlan-300", true, true, 300, 0 },
};

/* Build seed @p s into @p buf (room for size + pad). @return its length. */
static inline unsigned pg_seed_build(const struct pg_seed *s, uint8_t *buf)
{
	struct pg_frame_tmpl t = { .dst_mac = { 2, 0, 0, 0, 0, 1 }, .src_mac = { 2, 0, 0, 0, 0, 2 },
				   .ipv6 = s->ipv6, .vlan = s->vlan, .vlan_tci = 0x000a, .ttl = 64 };
	struct pg_flow f = { .src_port = 1024, .dst_port = 1024 };
	struct pg_stamp st = { PG_STAMP_MAGIC, 0, 41, 0x1122334455667788ull };

	if (s->ipv6) {
		f.src_ip[0] = f.dst_ip[0] = 0xfd;
		f.src_ip[15] = 1;
		f.dst_ip[15] = 2;
	} else {
		memcpy(f.src_ip, (uint8_t[]){ 10, 0, 0, 1 }, 4);
		memcpy(f.dst_ip, (uint8_t[]){ 10, 0, 0, 2 }, 4);
	}
	pg_frame_build(buf, s->size, &t, &f, &st);
	memset(buf + s->size, 0, s->pad);
	return s->size + s->pad;
}

#endif /* PG_FUZZ_SEEDS_H */
