/* SPDX-License-Identifier: BSD-3-Clause */
/* Internet checksums (unic/cksum.h): RFC 1071's sum, folded as it goes. */
#include <errno.h>
#include <string.h>

#include <unic/cksum.h>

static inline uint32_t fold(uint64_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

uint32_t unic_cksum_add(uint32_t sum, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	uint64_t s = 0;

	/* Words in the CPU's byte order, 32 bits at a time: a one's-complement
	 * sum taken in the other byte order is the same sum byte-swapped
	 * (RFC 1071, 2(B)), so one swap at the end gives the network order's.
	 * A 32-bit word counts as its two 16-bit halves (2^16 = 1 in this
	 * arithmetic). The accumulator takes 2^31 eight-byte steps (16 GiB)
	 * before it could carry out. */
	for (; len >= 8; b += 8, len -= 8) {
		uint64_t w;

		memcpy(&w, b, 8);
		s += (uint32_t)w;
		s += w >> 32;
	}
	if (len >= 4) {
		uint32_t w;

		memcpy(&w, b, 4);
		s += w;
		b += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t w;

		memcpy(&w, b, 2);
		s += w;
		b += 2;
		len -= 2;
	}
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (len)
		s += b[0];  /* the high byte of a network-order word: the low byte here */
	s = fold(s);
	s = (s & 0xff) << 8 | s >> 8;
#else
	if (len)
		s += (uint32_t)b[0] << 8;
	s = fold(s);
#endif
	return fold((uint64_t)sum + s);
}

uint16_t unic_ipv4_cksum(const void *iph, size_t hdr_len)
{
	const uint8_t *h = iph;
	uint32_t s = unic_cksum_add(0, h, 10);

	s = unic_cksum_add(s, h + 12, hdr_len - 12);
	return unic_cksum_finish(s);
}

uint16_t unic_ipv4_phdr_sum(const void *iph, uint8_t proto, uint32_t l4_len)
{
	const uint8_t *h = iph;
	uint64_t s = unic_cksum_add(0, h + 12, 8);

	s += proto;
	s += (l4_len >> 16) + (l4_len & 0xffff);
	return (uint16_t)fold(s);
}

uint16_t unic_ipv6_phdr_sum(const void *ip6h, uint8_t proto, uint32_t l4_len)
{
	const uint8_t *h = ip6h;
	uint64_t s = unic_cksum_add(0, h + 8, 32);

	s += proto;
	s += (l4_len >> 16) + (l4_len & 0xffff);
	return (uint16_t)fold(s);
}

int unic_pkt_cksum_sum(const struct unic_pkt *p, uint32_t off, uint32_t len, uint32_t *sum)
{
	uint64_t s = *sum;
	uint32_t pos = 0, total = 0;
	bool odd = false; /* the next byte is the low byte of a word */

	if ((uint64_t)off + len > p->pkt_len)
		return -EINVAL;
	for (const struct unic_pkt *seg = p; seg != NULL; seg = seg->next)
		total += seg->data_len;
	if (total != p->pkt_len)
		return -EINVAL;
	for (const struct unic_pkt *seg = p; seg != NULL && len > 0; seg = seg->next) {
		const uint8_t *d = unic_pkt_data(seg);
		uint32_t from = 0, n;

		if (pos + seg->data_len <= off) {
			pos += seg->data_len;
			continue;
		}
		if (off > pos)
			from = off - pos;
		n = seg->data_len - from;
		if (n > len)
			n = len;
		pos += seg->data_len;
		d += from;
		len -= n;
		if (odd && n > 0) {
			s += *d++;
			n--;
			odd = false;
		}
		s = unic_cksum_add((uint32_t)fold(s), d, n);
		if (n & 1)
			odd = true;
	}
	*sum = fold(s);
	return 0;
}
