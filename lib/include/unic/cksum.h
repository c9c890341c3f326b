/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Internet checksums (RFC 1071) for IPv4 headers and TCP/UDP over IPv4 and
 * IPv6: the software fallback when a NIC does not offload them, the
 * pseudo-header seed a NIC's TCP/UDP checksum offload wants in the checksum
 * field (docs/e1000e.md, "Tx checksums and TSO"), and receive-side checks.
 *
 * Sums are of 16-bit big-endian words, kept as a 32-bit value that every
 * function folds (end-around carry) before it returns, so sums can be
 * chained without overflow. Values returned for a checksum field are in
 * host order: store them big-endian (byte 0 = value >> 8).
 *
 * Nothing here allocates, logs or fails on good input; lengths are the
 * caller's to check against the buffer (unic_pkt_cksum_sum checks them
 * against the packet).
 */
#ifndef UNIC_CKSUM_H
#define UNIC_CKSUM_H

#include <stddef.h>
#include <stdint.h>

#include <unic/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

/**
 * Add @p len bytes at @p buf to @p sum as big-endian 16-bit words; an odd
 * last byte counts as the high byte of a word whose low byte is zero (so
 * when chaining, every piece but the last must have an even length; see
 * unic_pkt_cksum_sum for packets). @return the folded sum (<= 0xffff).
 */
uint32_t unic_cksum_add(uint32_t sum, const void *buf, size_t len);

/** The checksum of a sum: its one's complement, 16 bits. */
static inline uint16_t unic_cksum_finish(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/**
 * The IPv4 header checksum of the @p hdr_len bytes at @p iph (20..60, the
 * IHL times 4), the checksum field (bytes 10-11) taken as zero whatever it
 * holds. @return the value for the field.
 */
uint16_t unic_ipv4_cksum(const void *iph, size_t hdr_len);

/**
 * The IPv4 pseudo-header sum (source, destination, zero, @p proto, @p
 * l4_len), folded and NOT complemented: the seed a TCP/UDP checksum offload
 * wants in the checksum field, and the start of a full software checksum.
 * For TSO the seed leaves the length out: pass @p l4_len 0.
 */
uint16_t unic_ipv4_phdr_sum(const void *iph, uint8_t proto, uint32_t l4_len);

/** The same for IPv6 (RFC 8200 8.1): source, destination, @p l4_len, @p proto. */
uint16_t unic_ipv6_phdr_sum(const void *ip6h, uint8_t proto, uint32_t l4_len);

/**
 * Add bytes [@p off, @p off + @p len) of packet @p p, across its segments,
 * to *@p sum (the words keep their alignment from @p off whatever the
 * segment sizes). @return 0, or -EINVAL when the range is not in the
 * packet (the chain holds fewer bytes, or a segment's data_len disagrees
 * with pkt_len); *@p sum is then unchanged.
 */
int unic_pkt_cksum_sum(const struct unic_pkt *p, uint32_t off, uint32_t len, uint32_t *sum);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_CKSUM_H */
