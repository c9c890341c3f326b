/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port configuration commands in DPDK's spelling (testpmd.h): RSS hash
 * types, key and redirection table; offloads by DPDK's names; the
 * multicast list; flow control and UDP tunnel ports (refused with the
 * reason). Results to app->out, refusals to app->err, -errno on failure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "testpmd.h"

/* ---- RSS ------------------------------------------------------------------------- */

/* DPDK's RSS type words and the UNIC_RSS_* bits each stands for. */
static const struct {
	const char *name;
	uint64_t types;
} rss_words[] = {
	{ "ip", UNIC_RSS_IPV4 | UNIC_RSS_IPV6 },
	{ "tcp", UNIC_RSS_IPV4_TCP | UNIC_RSS_IPV6_TCP },
	{ "udp", UNIC_RSS_IPV4_UDP | UNIC_RSS_IPV6_UDP },
	{ "ipv4", UNIC_RSS_IPV4 },
	{ "ipv4-tcp", UNIC_RSS_IPV4_TCP },
	{ "ipv4-udp", UNIC_RSS_IPV4_UDP },
	{ "ipv6", UNIC_RSS_IPV6 },
	{ "ipv6-tcp", UNIC_RSS_IPV6_TCP },
	{ "ipv6-udp", UNIC_RSS_IPV6_UDP },
	{ "none", 0 },
};

#define RSS_WORDS "all, default, ip, tcp, udp, none, ipv4, ipv4-tcp, ipv4-udp, ipv6, ipv6-tcp, ipv6-udp"

/* @return 0 and *types, 1 for "all", or -1 (not a type unic hashes). */
static int rss_word(const char *w, uint64_t *types)
{
	if (strcmp(w, "all") == 0)
		return 1;
	if (strcmp(w, "default") == 0) {
		*types = UNIC_RSS_IPV4 | UNIC_RSS_IPV6; /* testpmd's start-up default */
		return 0;
	}
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(rss_words); i++)
		if (strcmp(w, rss_words[i].name) == 0) {
			*types = rss_words[i].types;
			return 0;
		}
	return -1;
}

static int rss_refuse_word(struct tp_app *app, const char *cmd, const char *w)
{
	fprintf(app->err, "%s: RSS type '%s' is not one unic hashes (no SCTP, tunnels, VLAN, L2 or "
		"fragment types); use one of: " RSS_WORDS "\n", cmd, w);
	return -EINVAL;
}

/* Why a port has no RSS, after the port layer's -ENOTSUP. */
static int rss_err(struct tp_app *app, uint16_t id, const char *what, int rc)
{
	tp_op_err(app, id, what, rc);
	if (rc == -ENOTSUP)
		fprintf(app->err, "port %u (%s) has no RSS: its packets are not hashed to rx queues (ports with RSS: e1000e, virtio whose device offers RSS)\n",
			id, app->ports[id].driver);
	return rc;
}

int tp_rss_show(struct tp_app *app, uint16_t id, bool key)
{
	struct unic_rss_conf r;
	char b[128];
	int rc = tp_port_check(app, id);

	if (rc)
		return rc;
	rc = unic_port_rss_hash_get(app->ports[id].port, &r);
	if (rc)
		return rss_err(app, id, "rss-hash", rc);
	if (r.types == 0) {
		fprintf(app->out, "RSS disabled\n");
		return 0;
	}
	/* DPDK's layout: " name name \n" under the title. */
	fprintf(app->out, "RSS functions:\n ");
	for (uint64_t t = 1; t && t <= r.types; t <<= 1)
		if (r.types & t) {
			unic_rss_type_names(t, b, sizeof(b));
			fprintf(app->out, "%s ", b);
		}
	fprintf(app->out, "\n");
	if (key) {
		fprintf(app->out, "RSS key:\n");
		for (unsigned i = 0; i < r.key_len; i++)
			fprintf(app->out, "%02X", r.key[i]);
		fprintf(app->out, "\n");
	}
	return 0;
}

int tp_rss_set(struct tp_app *app, const struct tp_cmd_arg *pa, const char *word)
{
	uint16_t ids[TP_MAX_PORTS] = { 0 };
	uint64_t want = 0;
	int all = rss_word(word, &want), n, rc = 0;

	if (all < 0)
		return rss_refuse_word(app, "port config rss", word);
	n = tp_ports_of(app, pa, ids);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct tp_port *p = &app->ports[ids[i]];
		struct unic_port_info info;
		struct unic_rss_conf r = { 0 };
		char wb[128], gb[128];
		int r1;

		if ((r1 = tp_info_of(app, ids[i], &info))) {
			rc = rc ? rc : r1;
			continue;
		}
		r.types = all ? info.rss_hash_capa : want & info.rss_hash_capa;
		/* At once on a started port; kept for the next start either way. */
		r1 = tp_port_started(app, ids[i]) ? unic_port_rss_hash_update(p->port, &r) :
		     info.reta_size ? 0 : -ENOTSUP;
		if (r1) {
			rss_err(app, ids[i], "port config rss", r1);
			rc = rc ? rc : r1;
			continue;
		}
		p->rss_set = true;
		p->rss_types = r.types;
		if (!all && r.types != want) {
			unic_rss_type_names(want, wb, sizeof(wb));
			unic_rss_type_names(r.types, gb, sizeof(gb));
			fprintf(app->out, "Port %u modified RSS hash function based on hardware support, requested: %s configured: %s\n",
				ids[i], wb, gb);
		}
		if (!tp_port_started(app, ids[i]))
			fprintf(app->out, "Port %u: RSS %s at the next 'port start %u'\n", ids[i],
				(unic_rss_type_names(r.types, gb, sizeof(gb)), gb), ids[i]);
	}
	return rc;
}

int tp_rss_key(struct tp_app *app, uint16_t id, const char *type, const char *hex)
{
	struct unic_port_info info;
	struct unic_rss_conf r = { 0 }, cur;
	char err[256];
	bool known = false;
	int rc = tp_port_check(app, id);

	if (rc || (rc = tp_info_of(app, id, &info)))
		return rc;
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(rss_words); i++)
		if (strcmp(type, rss_words[i].name) == 0 && strchr(type, 'v'))
			known = true;
	if (!known) {
		fprintf(app->err, "port config rss-hash-key: hash type '%s'; use one of ipv4, ipv4-tcp, "
			"ipv4-udp, ipv6, ipv6-tcp, ipv6-udp (unic ports have one key for every type)\n", type);
		return -EINVAL;
	}
	if (info.rss_key_size == 0)
		return rss_err(app, id, "port config rss-hash-key", -ENOTSUP);
	if (tp_cmd_parse_hexkey(hex, r.key, info.rss_key_size, err, sizeof(err))) {
		fprintf(app->err, "port config rss-hash-key: %s\n", err);
		return -EINVAL;
	}
	r.key_len = info.rss_key_size;
	rc = unic_port_rss_hash_get(app->ports[id].port, &cur);
	if (rc)
		return rss_err(app, id, "port config rss-hash-key", rc);
	/* The key is the port's; the types in effect stay. */
	r.types = cur.types;
	rc = unic_port_rss_hash_update(app->ports[id].port, &r);
	if (rc)
		return rss_err(app, id, "port config rss-hash-key", rc);
	memcpy(app->ports[id].conf.rss_key, r.key, r.key_len);
	app->ports[id].conf.rss_key_len = r.key_len;
	fprintf(app->out, "Port %u: RSS key set (%u bytes)\n", id, r.key_len);
	return 0;
}

int tp_rss_reta_set(struct tp_app *app, uint16_t id, const char *list)
{
	struct unic_port_info info;
	uint16_t reta[UNIC_RETA_SIZE_MAX] = { 0 };
	uint64_t mask[UNIC_RETA_SIZE_MAX / 64] = { 0 };
	char err[256];
	int rc = tp_port_check(app, id);

	if (rc || (rc = tp_info_of(app, id, &info)))
		return rc;
	if (info.reta_size == 0 || info.reta_size > UNIC_RETA_SIZE_MAX)
		return rss_err(app, id, "port config rss reta", -ENOTSUP);
	if (tp_cmd_parse_reta(list, info.reta_size, reta, mask, err, sizeof(err))) {
		fprintf(app->err, "port config rss reta: %s\n", err);
		return -EINVAL;
	}
	rc = unic_port_rss_reta_update(app->ports[id].port, reta, mask, info.reta_size);
	if (rc == -EINVAL) {
		fprintf(app->err, "port config rss reta: a queue is past the port's %u rx queue%s (0..%u); "
			"'port config %u rxq N' adds queues\n", app->ports[id].conf.nb_rxq,
			app->ports[id].conf.nb_rxq == 1 ? "" : "s", app->ports[id].conf.nb_rxq - 1, id);
		return rc;
	}
	if (rc)
		return rss_err(app, id, "port config rss reta", rc);
	fprintf(app->out, "Port %u: RSS redirection table updated\n", id);
	return 0;
}

int tp_rss_reta_show(struct tp_app *app, uint16_t id, uint64_t size, const char *masks)
{
	struct unic_port_info info;
	uint16_t reta[UNIC_RETA_SIZE_MAX];
	uint64_t mask[UNIC_RETA_SIZE_MAX / 64] = { 0 };
	unsigned nm = 0;
	char err[256];
	int rc = tp_port_check(app, id);

	if (rc || (rc = tp_info_of(app, id, &info)))
		return rc;
	if (info.reta_size == 0 || info.reta_size > UNIC_RETA_SIZE_MAX)
		return rss_err(app, id, "show port rss reta", -ENOTSUP);
	if (size != info.reta_size) {
		fprintf(app->err, "show port rss reta: size %" PRIu64 "; port %u's table has %u entries\n", size, id,
			info.reta_size);
		return -EINVAL;
	}
	/* Masks: hex, 64 entries each, comma-separated, optionally in (). */
	if (tp_cmd_parse_masks(masks, mask, (info.reta_size + 63u) / 64u, &nm, err, sizeof(err))) {
		fprintf(app->err, "show port rss reta: %s\n", err);
		return -EINVAL;
	}
	rc = unic_port_rss_reta_query(app->ports[id].port, reta, info.reta_size);
	if (rc)
		return rss_err(app, id, "show port rss reta", rc);
	for (unsigned i = 0; i < info.reta_size; i++)
		if (mask[i / 64] & (1ull << (i % 64)))
			fprintf(app->out, "RSS RETA configuration: hash index=%u, queue=%u\n", i, reta[i]);
	return 0;
}

/* ---- offloads by DPDK's names ---------------------------------------------------- */

/* DPDK's offload names (rx_offload, tx_offload) and unic's flag; 0: unic
 * has no such offload. */
static const struct {
	bool tx;
	const char *name;
	uint64_t flag;
} dpdk_offloads[] = {
	{ false, "vlan_strip", UNIC_RX_OFFLOAD_VLAN_STRIP },
	{ false, "ipv4_cksum", UNIC_RX_OFFLOAD_IPV4_CKSUM },
	{ false, "udp_cksum", UNIC_RX_OFFLOAD_UDP_CKSUM },
	{ false, "tcp_cksum", UNIC_RX_OFFLOAD_TCP_CKSUM },
	{ false, "tcp_lro", UNIC_RX_OFFLOAD_TCP_LRO },
	{ false, "qinq_strip", 0 },
	{ false, "outer_ipv4_cksum", 0 },
	{ false, "macsec_strip", 0 },
	{ false, "vlan_filter", UNIC_RX_OFFLOAD_VLAN_FILTER },
	{ false, "vlan_extend", 0 },
	{ false, "scatter", UNIC_RX_OFFLOAD_SCATTER },
	{ false, "timestamp", 0 },
	{ false, "security", 0 },
	{ false, "keep_crc", 0 },
	{ false, "sctp_cksum", 0 },
	{ false, "outer_udp_cksum", 0 },
	{ false, "rss_hash", UNIC_RX_OFFLOAD_RSS_HASH },
	{ false, "buffer_split", 0 },
	{ true, "vlan_insert", UNIC_TX_OFFLOAD_VLAN_INSERT },
	{ true, "ipv4_cksum", UNIC_TX_OFFLOAD_IPV4_CKSUM },
	{ true, "udp_cksum", UNIC_TX_OFFLOAD_UDP_CKSUM },
	{ true, "tcp_cksum", UNIC_TX_OFFLOAD_TCP_CKSUM },
	{ true, "sctp_cksum", 0 },
	{ true, "tcp_tso", UNIC_TX_OFFLOAD_TCP_TSO },
	{ true, "udp_tso", 0 },
	{ true, "outer_ipv4_cksum", 0 },
	{ true, "qinq_insert", 0 },
	{ true, "vxlan_tnl_tso", 0 },
	{ true, "gre_tnl_tso", 0 },
	{ true, "ipip_tnl_tso", 0 },
	{ true, "geneve_tnl_tso", 0 },
	{ true, "macsec_insert", 0 },
	{ true, "mt_lockfree", 0 },
	{ true, "multi_segs", UNIC_TX_OFFLOAD_MULTI_SEGS },
	{ true, "mbuf_fast_free", 0 },
	{ true, "security", 0 },
	{ true, "udp_tnl_tso", 0 },
	{ true, "ip_tnl_tso", 0 },
	{ true, "outer_udp_cksum", 0 },
	{ true, "send_on_timestamp", 0 },
};

/* The offloads in @p f as DPDK prints them (upper case, space-separated). */
static void offl_upper(FILE *f, bool tx, uint64_t flags)
{
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(dpdk_offloads); i++) {
		if (dpdk_offloads[i].tx != tx || !dpdk_offloads[i].flag || !(flags & dpdk_offloads[i].flag))
			continue;
		fputc(' ', f);
		for (const char *c = dpdk_offloads[i].name; *c; c++)
			fputc(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c, f);
	}
	fputc('\n', f);
}

/* The tx offloads testpmd configures at the next start (ports.c's). */
static uint64_t tx_wanted(const struct tp_port *p)
{
	uint64_t f = p->conf.tx_offloads & ~(UNIC_TX_OFFLOAD_VLAN_INSERT | UNIC_TX_OFFLOAD_TCP_TSO |
					     UNIC_TX_OFFLOAD_IPV4_CKSUM | UNIC_TX_OFFLOAD_UDP_CKSUM |
					     UNIC_TX_OFFLOAD_TCP_CKSUM);

	f |= p->tx_vlan_on ? UNIC_TX_OFFLOAD_VLAN_INSERT : 0;
	f |= p->tso_mss ? UNIC_TX_OFFLOAD_TCP_TSO : 0;
	f |= p->csum_hw[0] ? UNIC_TX_OFFLOAD_IPV4_CKSUM : 0;
	f |= p->csum_hw[1] ? UNIC_TX_OFFLOAD_UDP_CKSUM : 0;
	f |= p->csum_hw[2] ? UNIC_TX_OFFLOAD_TCP_CKSUM : 0;
	return f;
}

int tp_offload_show(struct tp_app *app, uint16_t id, bool tx, bool conf)
{
	struct unic_port_info info;
	struct unic_port_conf c;
	struct tp_port *p;
	const char *dir = tx ? "Tx" : "Rx";
	int rc = tp_port_check(app, id);

	if (rc || (rc = tp_info_of(app, id, &info)))
		return rc;
	p = &app->ports[id];
	if (!conf) {
		/* unic's offloads are per port: the per-queue list is empty. */
		fprintf(app->out, "%s Offloading Capabilities of port %u :\n", dir, id);
		fprintf(app->out, "  Per Queue :\n  Per Port  :");
		offl_upper(app->out, tx, tx ? info.tx_offload_capa : info.rx_offload_capa);
		return 0;
	}
	/* What the port runs with, else (not configured yet) what the next start sets. */
	if (unic_port_conf_get(p->port, &c) != 0 || p->need_config) {
		c = p->conf;
		c.tx_offloads = tx_wanted(p);
	}
	fprintf(app->out, "%s Offloading Configuration of port %u :\n", dir, id);
	fprintf(app->out, "  Port :");
	offl_upper(app->out, tx, tx ? c.tx_offloads : c.rx_offloads);
	for (uint16_t q = 0; q < (tx ? c.nb_txq : c.nb_rxq); q++) {
		fprintf(app->out, "  Queue[%2u] :", q);
		offl_upper(app->out, tx, tx ? c.tx_offloads : c.rx_offloads);
	}
	if (p->need_config)
		fprintf(app->out, "(not in effect yet: 'port start %u' applies it)\n", id);
	return 0;
}

int tp_offload_set(struct tp_app *app, uint16_t id, bool tx, const char *name, bool on)
{
	const char *dir = tx ? "tx_offload" : "rx_offload";
	struct unic_port_info info;
	struct tp_port *p;
	uint64_t flag = 0;
	bool known = false;
	char b[512];
	int rc = tp_port_check(app, id);

	if (rc)
		return rc;
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(dpdk_offloads); i++)
		if (dpdk_offloads[i].tx == tx && strcmp(dpdk_offloads[i].name, name) == 0) {
			known = true;
			flag = dpdk_offloads[i].flag;
		}
	if (!known) {
		fprintf(app->err, "port config %s: unknown offload '%s'; DPDK's names:", dir, name);
		for (unsigned i = 0; i < UNIC_ARRAY_SIZE(dpdk_offloads); i++)
			if (dpdk_offloads[i].tx == tx)
				fprintf(app->err, " %s", dpdk_offloads[i].name);
		fprintf(app->err, "\n");
		return -EINVAL;
	}
	if ((rc = tp_info_of(app, id, &info)))
		return rc;
	if (flag == 0 || (on && !((tx ? info.tx_offload_capa : info.rx_offload_capa) & flag))) {
		if (!on && flag == 0) {
			fprintf(app->out, "Port %u: %s %s is off (unic has no such offload)\n", id, dir, name);
			return 0;
		}
		fprintf(app->err, "port %u (%s) has no %s offload %s (it offers: %s) (-ENOTSUP)\n", id,
			app->ports[id].driver, dir, name,
			tp_offl(tx ? info.tx_offload_capa : info.rx_offload_capa, b, sizeof(b)));
		return -ENOTSUP;
	}
	if ((rc = tp_port_started(app, id) ? -EBUSY : 0)) {
		fprintf(app->err, "port %u must be stopped first: run 'port stop %u'\n", id, id);
		return rc;
	}
	p = &app->ports[id];
	if (!tx) {
		if (on)
			p->conf.rx_offloads |= flag;
		else
			p->conf.rx_offloads &= ~flag;
	} else if (flag == UNIC_TX_OFFLOAD_TCP_TSO && on && p->tso_mss == 0) {
		fprintf(app->err, "port config %u tx_offload tcp_tso on: TSO needs a segment size: use 'tso set MSS %u'\n",
			id, id);
		return -EINVAL;
	} else if (flag == UNIC_TX_OFFLOAD_TCP_TSO) {
		p->tso_mss = 0;
	} else if (flag == UNIC_TX_OFFLOAD_VLAN_INSERT) {
		p->tx_vlan_on = on; /* the tag: 'tx_vlan set' (0 until then) */
	} else if (flag == UNIC_TX_OFFLOAD_IPV4_CKSUM || flag == UNIC_TX_OFFLOAD_UDP_CKSUM ||
		   flag == UNIC_TX_OFFLOAD_TCP_CKSUM) {
		/* The csum engine's setting: the same as 'csum set ... hw|sw'. */
		p->csum_hw[flag == UNIC_TX_OFFLOAD_IPV4_CKSUM ? 0 : flag == UNIC_TX_OFFLOAD_UDP_CKSUM ? 1 : 2] = on;
	} else if (on) {
		p->conf.tx_offloads |= flag;
	} else {
		p->conf.tx_offloads &= ~flag;
	}
	p->need_config = true;
	fprintf(app->out, "Port %u: %s %s %s at the next 'port start %u'\n", id, dir, name, on ? "on" : "off", id);
	return 0;
}

/* ---- multicast list, flow control, tunnels ---------------------------------------- */

int tp_mcast(struct tp_app *app, uint16_t id, bool add, const uint8_t *mac)
{
	struct tp_port *p;
	uint8_t list[TP_MAX_MCAST][6];
	unsigned n, at;
	char b[32];
	int rc = tp_port_check(app, id);

	if (rc)
		return rc;
	tp_fmt_mac(b, sizeof(b), mac);
	if (!(mac[0] & 1)) {
		fprintf(app->err, "mcast_addr: %s is not a multicast address (the first byte's low bit is 0); "
			"'mac_addr add %u %s' adds a unicast one\n", b, id, b);
		return -EINVAL;
	}
	p = &app->ports[id];
	n = p->nb_mcast;
	memcpy(list, p->mcast, sizeof(list));
	for (at = 0; at < n && memcmp(list[at], mac, 6) != 0; at++)
		;
	if (add && at < n) {
		fprintf(app->err, "mcast_addr add: %s is already in port %u's list\n", b, id);
		return -EEXIST;
	}
	if (!add && at == n) {
		fprintf(app->err, "mcast_addr remove: %s is not in port %u's list\n", b, id);
		return -ENOENT;
	}
	if (add && n == TP_MAX_MCAST) {
		fprintf(app->err, "mcast_addr add: port %u's list is full (%d addresses)\n", id, TP_MAX_MCAST);
		return -ENOSPC;
	}
	if (add)
		memcpy(list[n++], mac, 6);
	else
		memmove(list[at], list[at + 1], (n-- - at - 1) * 6);
	rc = unic_port_mc_addr_list_set(p->port, (const uint8_t (*)[6])list, n);
	if (rc)
		return tp_op_err(app, id, add ? "mcast_addr add" : "mcast_addr remove", rc);
	memcpy(p->mcast, list, sizeof(list));
	p->nb_mcast = n;
	fprintf(app->out, "Port %u: multicast %s %s (%u in the list)\n", id, b, add ? "added" : "removed", n);
	return 0;
}

static int fc_err(struct tp_app *app, uint16_t id, const char *what, int rc)
{
	tp_op_err(app, id, what, rc);
	if (rc == -ENOTSUP)
		fprintf(app->err, "port %u (%s) has no 802.3x flow control (virtual ports have no pause frames; "
			"e1000e has it)\n", id, app->ports[id].driver);
	return rc;
}

int tp_flow_ctrl_show(struct tp_app *app, uint16_t id)
{
	struct unic_flow_ctrl fc;
	int rc = tp_port_check(app, id);

	if (rc)
		return rc;
	rc = unic_port_flow_ctrl_get(app->ports[id].port, &fc);
	if (rc)
		return fc_err(app, id, "show port flow_ctrl", rc);
	fprintf(app->out, "\n********************* Flow control infos for port %-2u *********************\n", id);
	fprintf(app->out, "FC mode:\n   Rx pause: %s\n   Tx pause: %s\n", fc.rx_pause ? "on" : "off",
		fc.tx_pause ? "on" : "off");
	fprintf(app->out, "Autoneg: %s\n", fc.autoneg ? "on" : "off");
	fprintf(app->out, "Pause time: 0x%x\n", fc.pause_time);
	fprintf(app->out, "High waterline: 0x%x\n", fc.high_water);
	fprintf(app->out, "Low waterline: 0x%x\n", fc.low_water);
	fprintf(app->out, "Send XON: %s\n", fc.send_xon ? "on" : "off");
	fprintf(app->out, "Forward MAC control frames: %s\n", fc.mac_ctrl_frame_fwd ? "on" : "off");
	return 0;
}

/* A number of the set flow_ctrl commands within @p max. */
static int fc_num(struct tp_app *app, const char *what, uint64_t v, uint64_t max, uint32_t *out)
{
	if (v > max) {
		fprintf(app->err, "set flow_ctrl: %s %" PRIu64 "; expected 0..%" PRIu64 "\n", what, v, max);
		return -EINVAL;
	}
	*out = (uint32_t)v;
	return 0;
}

int tp_flow_ctrl_set(struct tp_app *app, const struct tp_cmd *cmd)
{
	const struct tp_cmd_arg *a = cmd->arg;
	struct unic_flow_ctrl fc;
	unsigned pi = cmd->nb_args - 1;
	uint16_t id = (uint16_t)a[pi].num;
	uint32_t pause = 0, xon = 0;
	int rc = tp_port_check(app, a[pi].num);

	if (rc)
		return rc;
	rc = unic_port_flow_ctrl_get(app->ports[id].port, &fc);
	if (rc)
		return fc_err(app, id, "set flow_ctrl", rc);
	pause = fc.pause_time;
	xon = fc.send_xon;
	if (cmd->def->id == TP_CMD_SET_FLOW_CTRL) {
		/* set flow_ctrl rx X tx X HIGH LOW PAUSE XON mac_ctrl_frame_fwd X autoneg X PORT */
		if ((rc = fc_num(app, "high_water", a[6].num, UINT32_MAX, &fc.high_water)) ||
		    (rc = fc_num(app, "low_water", a[7].num, UINT32_MAX, &fc.low_water)) ||
		    (rc = fc_num(app, "pause_time", a[8].num, UINT16_MAX, &pause)) ||
		    (rc = fc_num(app, "send_xon", a[9].num, 1, &xon)))
			return rc;
		fc.rx_pause = a[3].kw == 0;
		fc.tx_pause = a[5].kw == 0;
		fc.mac_ctrl_frame_fwd = a[11].kw == 0;
		fc.autoneg = a[13].kw == 0;
	} else if (cmd->def->id == TP_CMD_SET_FLOW_CTRL_ONE) {
		bool on = a[3].kw == 0;

		if (a[2].kw == 0)
			fc.rx_pause = on;
		else if (a[2].kw == 1)
			fc.tx_pause = on;
		else if (a[2].kw == 2)
			fc.mac_ctrl_frame_fwd = on;
		else
			fc.autoneg = on;
	} else {
		static const char *const what[] = { "high_water", "low_water", "pause_time", "send_xon" };
		static const uint64_t max[] = { UINT32_MAX, UINT32_MAX, UINT16_MAX, 1 };
		uint32_t *to[] = { &fc.high_water, &fc.low_water, &pause, &xon };

		if ((rc = fc_num(app, what[a[2].kw], a[3].num, max[a[2].kw], to[a[2].kw])))
			return rc;
	}
	fc.pause_time = (uint16_t)pause;
	fc.send_xon = xon != 0;
	rc = unic_port_flow_ctrl_set(app->ports[id].port, &fc);
	if (rc == -EINVAL) {
		fprintf(app->err, "set flow_ctrl: port %u (%s) refused these settings (the line above says why)%s\n", id,
			app->ports[id].driver, fc.autoneg ? "; try autoneg off" : "");
		return rc;
	}
	if (rc)
		return fc_err(app, id, "set flow_ctrl", rc);
	fprintf(app->out, "Port %u: flow control rx pause %s, tx pause %s\n", id, fc.rx_pause ? "on" : "off",
		fc.tx_pause ? "on" : "off");
	return 0;
}

int tp_udp_tunnel(struct tp_app *app, uint16_t id, const char *type)
{
	int rc = tp_port_check(app, id);

	if (rc)
		return rc;
	fprintf(app->err, "port config %u udp_tunnel_port: unic has no tunnel offloads (no %s parsing in "
		"the NICs' rx path or the csum engine): tunnels are out of scope (-ENOTSUP)\n", id, type);
	return -ENOTSUP;
}
