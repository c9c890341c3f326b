/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen --arp-reply: answer ARP requests (RFC 826) and IPv6 neighbour
 * solicitations (RFC 4861 7.2.3) for the streams' addresses, so a router
 * under test can resolve them: on a stream's tx port its source addresses
 * (with its source MAC), on its rx port its destination addresses (with the
 * rx port's MAC, where the frames are to arrive). A request with an 802.1Q
 * tag is answered with the same tag. docs/pktgen.md, "ARP and NDP".
 */
#ifndef PG_ARP_H
#define PG_ARP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream.h"

#define PG_ETHERTYPE_ARP 0x0806
#define PG_ARP_MAX (2 * PG_MAX_STREAMS)
#define PG_ARP_REPLY_MAX 90   /* the largest reply: 802.1Q + IPv6 + a 32-byte NA */

/* Addresses answered for on one port. */
struct pg_arp_entry {
	int port;
	bool ipv6;
	struct pg_ip_range range;
	uint8_t mac[6];
};

struct pg_arp {
	unsigned nb;
	struct pg_arp_entry e[PG_ARP_MAX];
	uint64_t arp_replies, na_replies;   /* answers built */
	uint64_t tx_fail;                   /* answers the port did not take (freed) */
};

void pg_arp_init(struct pg_arp *a);

/* Answer for range @p r (family @p ipv6) on port @p port with @p mac.
 * @return 0, or -ENOSPC past PG_ARP_MAX. */
int pg_arp_add(struct pg_arp *a, int port, bool ipv6, const struct pg_ip_range *r, const uint8_t mac[6]);

/*
 * Frame @p f of @p len bytes received on port @p port: an ARP request or
 * a neighbour solicitation for one of our addresses there? Then write the
 * reply into @p out (PG_ARP_REPLY_MAX bytes), count it and @return its
 * length; else 0 (the frame is not such a request, or not for us). Reads
 * nothing outside [f, f + len).
 */
unsigned pg_arp_answer(struct pg_arp *a, int port, const uint8_t *f, size_t len, uint8_t *out);

/* Is @p f an ARP frame or an ICMPv6 neighbour discovery message (what
 * --arp-reply takes off the receive statistics)? */
bool pg_arp_is_nd(const uint8_t *f, size_t len);

struct unic_port;
struct unic_pkt;
struct unic_pool;

/*
 * Received packet @p p on port @p port (number @p idx): if it is an ARP or
 * neighbour discovery frame, answer it when it asks for one of ours (the
 * reply from @p pool, sent on @p port's queue 0; one the port does not take
 * is freed and counted in tx_fail) and @return true; else false (stream
 * traffic, untouched). @p p stays the caller's.
 */
bool pg_arp_handle(struct pg_arp *a, struct unic_port *port, int idx, const struct unic_pkt *p,
		   struct unic_pool *pool);

#endif /* PG_ARP_H */
