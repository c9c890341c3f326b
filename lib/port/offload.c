/* SPDX-License-Identifier: BSD-3-Clause */
/* Offload names: errors and the CLI speak names, never raw bitmasks. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "port_private.h"

static const struct {
	uint64_t flag;
	const char *name;
} offloads[] = {
	{ UNIC_RX_OFFLOAD_VLAN_STRIP, "vlan_strip" },
	{ UNIC_RX_OFFLOAD_VLAN_FILTER, "vlan_filter" },
	{ UNIC_RX_OFFLOAD_IPV4_CKSUM, "ipv4_cksum" },
	{ UNIC_RX_OFFLOAD_UDP_CKSUM, "udp_cksum" },
	{ UNIC_RX_OFFLOAD_TCP_CKSUM, "tcp_cksum" },
	{ UNIC_RX_OFFLOAD_RSS_HASH, "rss_hash" },
	{ UNIC_RX_OFFLOAD_SCATTER, "scatter" },
	{ UNIC_RX_OFFLOAD_TCP_LRO, "tcp_lro" },
	{ UNIC_TX_OFFLOAD_VLAN_INSERT, "vlan_insert" },
	{ UNIC_TX_OFFLOAD_IPV4_CKSUM, "tx_ipv4_cksum" },
	{ UNIC_TX_OFFLOAD_UDP_CKSUM, "tx_udp_cksum" },
	{ UNIC_TX_OFFLOAD_TCP_CKSUM, "tx_tcp_cksum" },
	{ UNIC_TX_OFFLOAD_TCP_TSO, "tcp_tso" },
	{ UNIC_TX_OFFLOAD_MULTI_SEGS, "multi_segs" },
};

const char *unic_offload_name(uint64_t flag)
{
	for (size_t i = 0; i < UNIC_ARRAY_SIZE(offloads); i++)
		if (offloads[i].flag == flag)
			return offloads[i].name;
	return NULL;
}

int unic_offload_from_name(const char *name, uint64_t *flag)
{
	char list[512];

	for (size_t i = 0; i < UNIC_ARRAY_SIZE(offloads); i++) {
		if (strcmp(offloads[i].name, name) == 0) {
			*flag = offloads[i].flag;
			return 0;
		}
	}
	unic_offload_names(~0ull, list, sizeof(list));
	UNIC_LOG(ERR, PORT, "unknown offload '%s'; known: %s", name, list);
	return -EINVAL;
}

int unic_offload_names(uint64_t flags, char *buf, size_t len)
{
	size_t off = 0;
	int n;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < UNIC_ARRAY_SIZE(offloads); i++) {
		if (!(flags & offloads[i].flag))
			continue;
		n = snprintf(buf + UNIC_MIN(off, len), off < len ? len - off : 0, "%s%s",
			     off ? "," : "", offloads[i].name);
		off += (size_t)n;
	}
	return (int)off;
}

int unic_rss_type_names(uint64_t types, char *buf, size_t len)
{
	static const char *const names[] = { "ipv4", "ipv4-tcp", "ipv4-udp", "ipv6", "ipv6-tcp", "ipv6-udp" };
	size_t off = 0;
	int n;

	if (len)
		buf[0] = '\0';
	if (types == 0)
		return snprintf(buf, len, "none");
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(names); i++) {
		if (!(types & (1ull << i)))
			continue;
		n = snprintf(buf + UNIC_MIN(off, len), off < len ? len - off : 0, "%s%s", off ? " " : "",
			     names[i]);
		off += (size_t)n;
	}
	return (int)off;
}
