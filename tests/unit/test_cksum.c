/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic/cksum.h against known answers: RFC 1071's worked example, the IPv4
 * header of a worked example, and three captured frames (cksum_frames.h) whose
 * IPv4, TCP and UDP checksums another implementation (the Linux kernel,
 * checked by tshark) computed; and the packet walker over chained
 * segments of odd sizes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include <unic/cksum.h>
#include <unic/mem.h>
#include <unic/pool.h>

#include "cksum_frames.h"

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

Test(cksum, rfc1071_example_sums_to_ddf2)
{
	/* RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sum to dd f2 (with
	 * the carries folded in). */
	static const uint8_t b[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

	cr_assert_eq(unic_cksum_add(0, b, sizeof(b)), 0xddf2);
	cr_assert_eq(unic_cksum_finish(0xddf2), 0x220d);
	/* Byte order independence: split anywhere even, the sum is the same. */
	cr_assert_eq(unic_cksum_add(unic_cksum_add(0, b, 2), b + 2, 6), 0xddf2);
	/* An odd last byte is the high byte of a word. */
	cr_assert_eq(unic_cksum_add(0, b, 3), 0x0001 + 0xf200);
}

Test(cksum, ipv4_header_checksum_of_a_real_header)
{
	/* The IPv4 header of Wikipedia's worked example (192.168.0.1 -> 192.168.0.199, UDP), whose
	 * checksum field holds b861. */
	static const uint8_t h[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
				       0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	uint8_t z[20];

	cr_assert_eq(unic_ipv4_cksum(h, 20), 0xb861);
	memcpy(z, h, 20);
	z[10] = 0x12; /* the field's contents do not matter */
	z[11] = 0x34;
	cr_assert_eq(unic_ipv4_cksum(z, 20), 0xb861);
	cr_assert_eq(unic_cksum_add(0, h, 20), 0xffff, "a good header sums to all ones");
}

/* Check the captured frame's L4 checksum: pseudo-header + segment. */
static void check_l4(const uint8_t *f, size_t len, bool v6, uint8_t proto, size_t csum_off)
{
	size_t l3 = v6 ? 40 : (size_t)(f[14] & 0xf) * 4, l4off = 14 + l3;
	uint32_t l4len = (uint32_t)(len - l4off);
	uint16_t ph = v6 ? unic_ipv6_phdr_sum(f + 14, proto, l4len) : unic_ipv4_phdr_sum(f + 14, proto, l4len);
	uint8_t copy[2048];
	uint16_t want = be16(f + l4off + csum_off);

	cr_assert_leq(len, sizeof(copy));
	/* Verify: the whole segment with its checksum sums to all ones. */
	cr_assert_eq(unic_cksum_add(ph, f + l4off, l4len), 0xffff);
	/* Compute: field zeroed, the checksum comes out as captured. */
	memcpy(copy, f, len);
	copy[l4off + csum_off] = copy[l4off + csum_off + 1] = 0;
	cr_assert_eq(unic_cksum_finish(unic_cksum_add(ph, copy + l4off, l4len)), want,
		     "computed %04x, captured %04x",
		     unic_cksum_finish(unic_cksum_add(ph, copy + l4off, l4len)), want);
}

Test(cksum, captured_tcp_and_udp_over_ipv4_and_ipv6_check_out)
{
	cr_assert_eq(unic_ipv4_cksum(frame_tcp4 + 14, 20), be16(frame_tcp4 + 24));
	cr_assert_eq(unic_ipv4_cksum(frame_udp4 + 14, 20), be16(frame_udp4 + 24));
	check_l4(frame_tcp4, sizeof(frame_tcp4), false, 6, 16);
	check_l4(frame_udp4, sizeof(frame_udp4), false, 17, 6);
	check_l4(frame_tcp6, sizeof(frame_tcp6), true, 6, 16);
}

Test(cksum, a_wrong_checksum_does_not_verify)
{
	uint8_t f[sizeof(frame_udp4)];
	uint16_t ph = unic_ipv4_phdr_sum(frame_udp4 + 14, 17, sizeof(f) - 34);

	memcpy(f, frame_udp4, sizeof(f));
	f[100] ^= 0x01; /* one payload bit */
	cr_assert_neq(unic_cksum_add(ph, f + 34, sizeof(f) - 34), 0xffff);
	f[100] ^= 0x01;
	f[15] ^= 0x04; /* the TOS byte: the header checksum no longer holds */
	cr_assert_neq(unic_cksum_add(0, f + 14, 20), 0xffff);
}

Test(cksum, tso_seed_leaves_the_length_out)
{
	uint16_t full = unic_ipv4_phdr_sum(frame_tcp4 + 14, 6, 220);
	uint16_t seed = unic_ipv4_phdr_sum(frame_tcp4 + 14, 6, 0);

	cr_assert_eq(unic_cksum_add(seed, (const uint8_t[]){ 0, 220 }, 2), full);
	/* IPv6: 32-bit lengths are summed as two words. */
	uint16_t a = unic_ipv6_phdr_sum(frame_tcp6 + 14, 6, 0x10002);
	uint16_t b = unic_ipv6_phdr_sum(frame_tcp6 + 14, 6, 3);

	cr_assert_eq(a, b, "0x10002 folds to 1 + 2");
}

Test(cksum, packet_walker_keeps_word_alignment_across_odd_segments)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_mem *mem = unic_mem_create(&mc);
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "ck", .count = 64, .numa_node = -1 };
	struct unic_pool *pool;
	struct unic_pkt *s[4];
	const size_t sizes[4] = { 41, 7, 500, sizeof(frame_udp4) - 548 };
	size_t off = 0;
	uint32_t sum = 0;

	cr_assert_not_null(mem);
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	cr_assert_not_null(pool);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, s, 4), 0);
	for (unsigned i = 0; i < 4; i++) {
		memcpy(unic_pkt_append(s[i], (uint16_t)sizes[i]), frame_udp4 + off, sizes[i]);
		off += sizes[i];
		if (i)
			s[i - 1]->next = s[i];
	}
	s[0]->pkt_len = (uint32_t)off;
	s[0]->nb_segs = 4;
	cr_assert_eq(unic_pkt_cksum_sum(s[0], 34, (uint32_t)off - 34, &sum), 0);
	cr_assert_eq(unic_cksum_add(0, frame_udp4 + 34, off - 34), sum, "same sum as the flat frame");
	cr_assert_eq(unic_cksum_add(unic_ipv4_phdr_sum(frame_udp4 + 14, 17, (uint32_t)off - 34), &(uint8_t[]){
		(uint8_t)(sum >> 8), (uint8_t)sum }, 2), 0xffff, "and it verifies the captured UDP checksum");
	/* From an odd offset: the same as the flat bytes from there. */
	sum = 0;
	cr_assert_eq(unic_pkt_cksum_sum(s[0], 45, 300, &sum), 0);
	cr_assert_eq(sum, unic_cksum_add(0, frame_udp4 + 45, 300));
	/* Out of the packet: refused, the sum untouched. */
	sum = 0x1234;
	cr_assert_eq(unic_pkt_cksum_sum(s[0], 34, (uint32_t)off, &sum), -EINVAL);
	cr_assert_eq(sum, 0x1234);
	s[2]->data_len--; /* segments no longer add up to pkt_len */
	cr_assert_eq(unic_pkt_cksum_sum(s[0], 0, 10, &sum), -EINVAL);
	s[2]->data_len++;
	unic_pkt_free(s[0]);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
}

/* RFC 1071's definition, one network-order 16-bit word at a time, folded
 * at the end: what unic_cksum_add must equal, however it walks the bytes. */
static uint32_t ref_sum(uint32_t sum, const uint8_t *b, size_t len)
{
	uint64_t s = sum;

	for (size_t i = 0; i + 1 < len; i += 2)
		s += be16(b + i);
	if (len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

Test(cksum, the_word_at_a_time_sum_equals_the_definition_for_every_length_and_alignment)
{
	uint8_t buf[300];
	uint32_t x = 12345;

	for (int fill = 0; fill < 3; fill++)
		for (size_t off = 0; off < 8; off++)
			for (size_t len = 0; len <= 280; len++) {
				for (size_t i = 0; i < sizeof(buf); i++) {
					x = x * 1103515245u + 12345u;
					buf[i] = fill == 0 ? 0 : fill == 1 ? 0xff : (uint8_t)(x >> 16);
				}
				for (uint32_t sum = 0; sum < 0x20000; sum += 0x7fff)
					cr_assert_eq(unic_cksum_add(sum, buf + off, len), ref_sum(sum, buf + off, len),
						     "length %zu at offset %zu, fill %d, sum %#x", len, off, fill, sum);
			}
}
