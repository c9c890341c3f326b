/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `flow` commands' parser (flowparse.h). The line is split into words;
 * a cursor walks them, and every refusal names the word it stopped at and
 * what it expected there.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "app_opts.h"
#include "cmd.h"
#include "flowparse.h"

#define FLOW_MAX_WORDS 256

static const char usage[] =
	"usage: flow validate|create <port> [group N] [priority N] [ingress] [egress] [transfer] "
	"pattern ITEM [/ ITEM]... / end actions ACTION [/ ACTION]... / end\n"
	"usage: flow list <port> [group N]...\n"
	"usage: flow destroy <port> rule N [rule N]...\n"
	"usage: flow flush <port>\n"
	"usage: flow isolate <port> true|false\n"
	"usage: flow query <port> <rule> count\n"
	"usage: flow aged <port> [destroy]";

const char *tp_flow_usage(void)
{
	return usage;
}

struct cursor {
	char *w[FLOW_MAX_WORDS];
	unsigned n, i;
	char *err;
	size_t errlen;
};

static const char *peek(const struct cursor *c)
{
	return c->i < c->n ? c->w[c->i] : NULL;
}

static bool take_word(struct cursor *c, const char *word)
{
	if (c->i < c->n && strcmp(c->w[c->i], word) == 0) {
		c->i++;
		return true;
	}
	return false;
}

/* "bad word 'X'; expected WHAT" (or "missing WHAT" at the end of the line). */
static int fail(struct cursor *c, const char *fmt, ...)
{
	const char *w = peek(c);
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (w)
		snprintf(c->err, c->errlen, "bad word '%s' (word %u); expected %s", w, c->i + 1, what);
	else
		snprintf(c->err, c->errlen, "missing %s at the end of the line", what);
	return -1;
}

/* A whole number, decimal or 0x hex, up to @p max. */
static int num(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	int base = 10;

	if (s == NULL || *s == '\0')
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (*s == '\0')
			return -1;
	}
	for (; *s; s++) {
		int d = base == 16 ? app_hexval(*s) : (*s >= '0' && *s <= '9' ? *s - '0' : -1);

		if (d < 0 || (uint64_t)d > max || v > (max - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static int take_num(struct cursor *c, uint64_t max, uint64_t *out, const char *what)
{
	if (num(peek(c), max, out) != 0)
		return fail(c, "%s (0..%llu)", what, (unsigned long long)max);
	c->i++;
	return 0;
}

/* ---- pattern items ------------------------------------------------------------ */

enum fkind { F_NUM, F_MAC, F_IP4, F_IP6 };

struct field {
	const char *name;
	enum fkind kind;
	size_t off;      /* in union unic_flow_hdr */
	unsigned size;   /* bytes: 1, 2, 4 (F_NUM) */
	unsigned bits;   /* F_NUM: width */
	unsigned shift;  /* F_NUM: position in the stored value */
};

#define HOFF(m) offsetof(union unic_flow_hdr, m)

static const struct field eth_fields[] = {
	{ "dst", F_MAC, HOFF(eth.dst), 6, 48, 0 },
	{ "src", F_MAC, HOFF(eth.src), 6, 48, 0 },
	{ "type", F_NUM, HOFF(eth.type), 2, 16, 0 },
	{ NULL, F_NUM, 0, 0, 0, 0 },
};
static const struct field vlan_fields[] = {
	{ "tci", F_NUM, HOFF(vlan.tci), 2, 16, 0 },
	{ "vid", F_NUM, HOFF(vlan.tci), 2, 12, 0 },
	{ "pcp", F_NUM, HOFF(vlan.tci), 2, 3, 13 },
	{ "dei", F_NUM, HOFF(vlan.tci), 2, 1, 12 },
	{ "inner_type", F_NUM, HOFF(vlan.inner_type), 2, 16, 0 },
	{ NULL, F_NUM, 0, 0, 0, 0 },
};
static const struct field ipv4_fields[] = {
	{ "src", F_IP4, HOFF(ipv4.src), 4, 32, 0 },
	{ "dst", F_IP4, HOFF(ipv4.dst), 4, 32, 0 },
	{ "proto", F_NUM, HOFF(ipv4.proto), 1, 8, 0 },
	{ "tos", F_NUM, HOFF(ipv4.tos), 1, 8, 0 },
	{ "ttl", F_NUM, HOFF(ipv4.ttl), 1, 8, 0 },
	{ NULL, F_NUM, 0, 0, 0, 0 },
};
static const struct field ipv6_fields[] = {
	{ "src", F_IP6, HOFF(ipv6.src), 16, 128, 0 },
	{ "dst", F_IP6, HOFF(ipv6.dst), 16, 128, 0 },
	{ "proto", F_NUM, HOFF(ipv6.proto), 1, 8, 0 },
	{ NULL, F_NUM, 0, 0, 0, 0 },
};
static const struct field l4_fields[] = {
	{ "src", F_NUM, HOFF(l4.src), 2, 16, 0 },
	{ "dst", F_NUM, HOFF(l4.dst), 2, 16, 0 },
	{ NULL, F_NUM, 0, 0, 0, 0 },
};
static const struct field no_fields[] = { { NULL, F_NUM, 0, 0, 0, 0 } };

static const struct {
	const char *name;
	enum unic_flow_item_type type;
	const struct field *fields;
	const char *field_list;
} items[] = {
	{ "eth", UNIC_FLOW_ITEM_ETH, eth_fields, "dst, src, type" },
	{ "vlan", UNIC_FLOW_ITEM_VLAN, vlan_fields, "tci, vid, pcp, dei, inner_type" },
	{ "ipv4", UNIC_FLOW_ITEM_IPV4, ipv4_fields, "src, dst, proto, tos, ttl" },
	{ "ipv6", UNIC_FLOW_ITEM_IPV6, ipv6_fields, "src, dst, proto" },
	{ "udp", UNIC_FLOW_ITEM_UDP, l4_fields, "src, dst" },
	{ "tcp", UNIC_FLOW_ITEM_TCP, l4_fields, "src, dst" },
	{ "any", UNIC_FLOW_ITEM_ANY, no_fields, "none" },
	{ "void", UNIC_FLOW_ITEM_VOID, no_fields, "none" },
};

/* DPDK 22.11 pattern items unic does not match: the rule is refused. */
static const char *const dpdk_items[] = {
	"raw", "invert", "pf", "vf", "phy_port", "port_id", "port_representor",
	"represented_port", "mark", "icmp", "sctp", "vxlan", "e_tag", "nvgre", "mpls",
	"gre", "gre_key", "gre_option", "fuzzy", "gtp", "gtpc", "gtpu", "geneve", "vxlan-gpe",
	"arp_eth_ipv4", "ipv6_ext", "ipv6_frag_ext", "icmp6", "icmp6_nd_ns", "icmp6_nd_na",
	"icmp6_nd_opt", "icmp6_nd_opt_sla_eth", "icmp6_nd_opt_tla_eth", "meta", "tag",
	"gtp_psc", "pppoes", "pppoed", "pppoe_proto_id", "higig2", "l2tpv3oip", "esp", "ah",
	"pfcp", "ecpri", "geneve-opt", "integrity", "conntrack", "flex", "l2tpv2", "ppp",
	"ib_bth", "meter_color", "tx_queue", "quota", "aggr_affinity", "gre_seq",
	"send_to_kernel", "ptype", "nsh", "igmp",
};

static const char *const dpdk_actions[] = {
	"jump", "flag", "pf", "vf", "phy_port", "port_id", "meter", "security",
	"of_set_mpls_ttl", "of_dec_mpls_ttl", "of_set_nw_ttl", "of_dec_nw_ttl",
	"of_copy_ttl_out", "of_copy_ttl_in", "of_pop_vlan", "of_push_vlan",
	"of_set_vlan_vid", "of_set_vlan_pcp", "of_pop_mpls", "of_push_mpls",
	"vxlan_encap", "vxlan_decap", "nvgre_encap", "nvgre_decap", "l2_encap", "l2_decap",
	"mplsogre_encap", "mplsogre_decap", "mplsoudp_encap", "mplsoudp_decap",
	"set_ipv4_src", "set_ipv4_dst", "set_ipv6_src", "set_ipv6_dst", "set_tp_src",
	"set_tp_dst", "mac_swap", "dec_ttl", "set_ttl", "set_mac_src", "set_mac_dst",
	"inc_tcp_seq", "dec_tcp_seq", "inc_tcp_ack", "dec_tcp_ack", "raw_encap", "raw_decap",
	"set_tag", "set_meta", "set_ipv4_dscp", "set_ipv6_dscp", "age", "sample", "indirect",
	"modify_field", "conntrack", "meter_color", "meter_mark", "port_representor",
	"represented_port", "send_to_kernel", "quota", "vxlan_encap_tos_ttl",
};

static bool in_list(const char *w, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(w, list[i]) == 0)
			return true;
	return false;
}

/* Store the low @p f->bits of @p v (shifted) into the number at @p p. */
static void put_num(uint8_t *p, const struct field *f, uint64_t v)
{
	uint64_t m = (f->bits >= 64 ? ~0ull : (1ull << f->bits) - 1) << f->shift;
	uint64_t cur = 0;

	switch (f->size) {
	case 1: cur = *p; break;
	case 2: { uint16_t x; memcpy(&x, p, 2); cur = x; break; }
	default: { uint32_t x; memcpy(&x, p, 4); cur = x; break; }
	}
	cur = (cur & ~m) | ((v << f->shift) & m);
	switch (f->size) {
	case 1: *p = (uint8_t)cur; break;
	case 2: { uint16_t x = (uint16_t)cur; memcpy(p, &x, 2); break; }
	default: { uint32_t x = (uint32_t)cur; memcpy(p, &x, 4); break; }
	}
}

/* A value of field @p f: its bytes as stored. @return 0 or -1. */
static int field_value(const struct field *f, const char *s, uint8_t *p)
{
	uint64_t v;

	switch (f->kind) {
	case F_NUM:
		if (num(s, f->bits >= 64 ? ~0ull : (1ull << f->bits) - 1, &v))
			return -1;
		put_num(p, f, v);
		return 0;
	case F_MAC:
		return app_parse_mac(s, p) ? -1 : 0;
	case F_IP4: {
		struct in_addr a;

		if (inet_pton(AF_INET, s, &a) != 1)
			return -1;
		v = ntohl(a.s_addr);
		{
			uint32_t x = (uint32_t)v;

			memcpy(p, &x, 4);
		}
		return 0;
	}
	case F_IP6:
		return inet_pton(AF_INET6, s, p) == 1 ? 0 : -1;
	}
	return -1;
}

/* The first @p len bits of the field set in the mask at @p p. */
static void field_prefix(const struct field *f, unsigned len, uint8_t *p)
{
	if (f->kind == F_NUM) {
		uint64_t v = len == 0 ? 0 : (((1ull << len) - 1) << (f->bits - len));

		put_num(p, f, v);
	} else if (f->kind == F_IP4) {
		uint32_t x = len == 0 ? 0 : (uint32_t)(0xffffffffull << (32 - len));

		memcpy(p, &x, 4);
	} else {
		for (unsigned b = 0; b < f->size; b++) {
			unsigned bits = len > b * 8 ? len - b * 8 : 0;

			p[b] = bits >= 8 ? 0xff : (uint8_t)(0xff00u >> bits);
		}
	}
}

static const char *expects_value(const struct field *f, char *buf, size_t len)
{
	switch (f->kind) {
	case F_MAC:
		return "a MAC address xx:xx:xx:xx:xx:xx";
	case F_IP4:
		return "an IPv4 address a.b.c.d";
	case F_IP6:
		return "an IPv6 address";
	default:
		break;
	}
	snprintf(buf, len, "a number (0..%llu, decimal or 0x hex)",
		 (unsigned long long)((1ull << f->bits) - 1));
	return buf;
}

/* DPDK's default masks: what a spec alone matches. */
static void default_mask(struct unic_flow_item *it)
{
	memset(&it->mask, 0, sizeof(it->mask));
	switch (it->type) {
	case UNIC_FLOW_ITEM_ETH:
		memset(it->mask.eth.dst, 0xff, 6);
		memset(it->mask.eth.src, 0xff, 6);
		break;
	case UNIC_FLOW_ITEM_VLAN:
		it->mask.vlan.tci = 0x0fff;
		break;
	case UNIC_FLOW_ITEM_IPV4:
		it->mask.ipv4.src = it->mask.ipv4.dst = 0xffffffffu;
		break;
	case UNIC_FLOW_ITEM_IPV6:
		memset(it->mask.ipv6.src, 0xff, 16);
		memset(it->mask.ipv6.dst, 0xff, 16);
		break;
	case UNIC_FLOW_ITEM_UDP:
	case UNIC_FLOW_ITEM_TCP:
		it->mask.l4.src = it->mask.l4.dst = 0xffff;
		break;
	default:
		break;
	}
}

/* One item and its fields, up to the '/' (taken) that ends it. */
static int parse_item(struct cursor *c, struct tp_flow_cmd *cmd, bool *end)
{
	const char *w = peek(c);
	struct unic_flow_item *it;
	bool mask_set = false;
	size_t k;

	*end = false;
	if (w == NULL)
		return fail(c, "a pattern item (eth, vlan, ipv4, ipv6, udp, tcp, any, void) or end");
	if (strcmp(w, "end") == 0) {
		c->i++;
		*end = true;
		return 0;
	}
	for (k = 0; k < sizeof(items) / sizeof(items[0]); k++)
		if (strcmp(w, items[k].name) == 0)
			break;
	if (k == sizeof(items) / sizeof(items[0])) {
		if (in_list(w, dpdk_items, sizeof(dpdk_items) / sizeof(dpdk_items[0]))) {
			cmd->op = TP_FLOW_REFUSED;
			snprintf(cmd->why, sizeof(cmd->why),
				 "pattern item '%s': unic's flow rules match eth, vlan, ipv4, ipv6, udp and tcp only", w);
			return 1;
		}
		return fail(c, "a pattern item (eth, vlan, ipv4, ipv6, udp, tcp, any, void) or end");
	}
	if (cmd->rule.nb_items == UNIC_FLOW_MAX_ITEMS)
		return fail(c, "end (a pattern has at most %d items)", UNIC_FLOW_MAX_ITEMS);
	c->i++;
	it = &cmd->rule.item[cmd->rule.nb_items++];
	memset(it, 0, sizeof(*it));
	it->type = items[k].type;
	for (;;) {
		const struct field *f;
		const char *fw = peek(c), *op;

		if (fw && strcmp(fw, "/") == 0) {
			c->i++;
			break;
		}
		for (f = items[k].fields; f->name; f++)
			if (fw && strcmp(fw, f->name) == 0)
				break;
		if (f->name == NULL)
			return fail(c, "'/' or a field of %s (%s)", items[k].name, items[k].field_list);
		c->i++;
		op = peek(c);
		if (op == NULL || (strcmp(op, "is") && strcmp(op, "spec") && strcmp(op, "mask") &&
				   strcmp(op, "last") && strcmp(op, "prefix")))
			return fail(c, "is, spec, mask, last or prefix after %s %s", items[k].name, f->name);
		c->i++;
		if (strcmp(op, "prefix") == 0) {
			uint64_t len;

			if (take_num(c, f->bits, &len, "a prefix length"))
				return -1;
			field_prefix(f, (unsigned)len, (uint8_t *)&it->mask + f->off);
			mask_set = true;
			continue;
		}
		{
			union unic_flow_hdr *dst = op[0] == 'm' ? &it->mask : op[0] == 'l' ? &it->last : &it->spec;
			char what[64];

			if (peek(c) == NULL || field_value(f, peek(c), (uint8_t *)dst + f->off) != 0)
				return fail(c, "%s for %s %s", expects_value(f, what, sizeof(what)), items[k].name,
					    f->name);
			c->i++;
			if (strcmp(op, "is") == 0) {
				/* is: spec with the field's whole mask */
				if (f->kind == F_NUM)
					field_prefix(f, f->bits, (uint8_t *)&it->mask + f->off);
				else
					memset((uint8_t *)&it->mask + f->off, 0xff, f->size);
				mask_set = true;
				it->has_spec = true;
			} else if (op[0] == 's') {
				it->has_spec = true;
			} else if (op[0] == 'm') {
				mask_set = true;
			} else {
				it->has_last = true;
			}
		}
	}
	if (it->has_spec && !mask_set)
		default_mask(it);
	return 0;
}

/* ---- actions -------------------------------------------------------------------- */

static const struct {
	const char *name;
	uint32_t bits;
} rss_types[] = {
	{ "eth", UNIC_FLOW_RSS_ETH },
	{ "ipv4", UNIC_FLOW_RSS_IPV4 },
	{ "ipv4-tcp", UNIC_FLOW_RSS_IPV4_TCP },
	{ "ipv4-udp", UNIC_FLOW_RSS_IPV4_UDP },
	{ "ipv6", UNIC_FLOW_RSS_IPV6 },
	{ "ipv6-tcp", UNIC_FLOW_RSS_IPV6_TCP },
	{ "ipv6-udp", UNIC_FLOW_RSS_IPV6_UDP },
	{ "ip", UNIC_FLOW_RSS_IPV4 | UNIC_FLOW_RSS_IPV6 },
	{ "tcp", UNIC_FLOW_RSS_IPV4_TCP | UNIC_FLOW_RSS_IPV6_TCP },
	{ "udp", UNIC_FLOW_RSS_IPV4_UDP | UNIC_FLOW_RSS_IPV6_UDP },
};

static int parse_rss(struct cursor *c, struct unic_flow_action *a)
{
	for (;;) {
		const char *w = peek(c);

		if (w == NULL || strcmp(w, "/") == 0)
			return 0;
		c->i++;
		if (strcmp(w, "queues") == 0) {
			while (!take_word(c, "end")) {
				uint64_t q;

				if (a->rss.nb_queues == UNIC_FLOW_RSS_MAX_QUEUES)
					return fail(c, "end (at most %d queues)", UNIC_FLOW_RSS_MAX_QUEUES);
				if (take_num(c, 65535, &q, "a queue number or end"))
					return -1;
				a->rss.queue[a->rss.nb_queues++] = (uint16_t)q;
			}
		} else if (strcmp(w, "types") == 0) {
			while (!take_word(c, "end")) {
				size_t k;

				for (k = 0; k < sizeof(rss_types) / sizeof(rss_types[0]); k++)
					if (peek(c) && strcmp(peek(c), rss_types[k].name) == 0)
						break;
				if (k == sizeof(rss_types) / sizeof(rss_types[0]))
					return fail(c, "an RSS type unic hashes (eth, ip, tcp, udp, ipv4, ipv4-tcp, "
						    "ipv4-udp, ipv6, ipv6-tcp, ipv6-udp) or end");
				a->rss.types |= rss_types[k].bits;
				c->i++;
			}
		} else if (strcmp(w, "key") == 0) {
			const char *h = peek(c);
			size_t n = h ? strlen(h) : 0;

			if (h && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) {
				h += 2;
				n -= 2;
			}
			if (h == NULL || n == 0 || n % 2 || n / 2 > UNIC_FLOW_RSS_KEY_MAX)
				return fail(c, "a key of 1..%d bytes in hex", UNIC_FLOW_RSS_KEY_MAX);
			for (size_t i = 0; i < n; i += 2) {
				int hi = app_hexval(h[i]), lo = app_hexval(h[i + 1]);

				if (hi < 0 || lo < 0)
					return fail(c, "a key in hex digits (0-9, a-f)");
				a->rss.key[i / 2] = (uint8_t)(hi << 4 | lo);
			}
			a->rss.key_len = (uint8_t)(n / 2);
			c->i++;
		} else {
			c->i--;
			return fail(c, "queues, types, key, '/' after rss");
		}
	}
}

/* One action, up to the '/' (taken) that ends it. @return 0, 1 (refused), -1. */
static int parse_action(struct cursor *c, struct tp_flow_cmd *cmd, bool *end)
{
	const char *w = peek(c);
	struct unic_flow_action *a;
	uint64_t v;

	*end = false;
	if (w == NULL)
		return fail(c, "an action (queue, rss, drop, mark, count, passthru, void) or end");
	if (strcmp(w, "end") == 0) {
		c->i++;
		*end = true;
		return 0;
	}
	if (in_list(w, dpdk_actions, sizeof(dpdk_actions) / sizeof(dpdk_actions[0]))) {
		cmd->op = TP_FLOW_REFUSED;
		snprintf(cmd->why, sizeof(cmd->why),
			 "action '%s': unic's flow rules do queue, rss, drop, mark, count and passthru only", w);
		return 1;
	}
	if (cmd->rule.nb_actions == UNIC_FLOW_MAX_ACTIONS)
		return fail(c, "end (a rule has at most %d actions)", UNIC_FLOW_MAX_ACTIONS);
	a = &cmd->rule.action[cmd->rule.nb_actions];
	memset(a, 0, sizeof(*a));
	c->i++;
	if (strcmp(w, "queue") == 0) {
		a->type = UNIC_FLOW_ACTION_QUEUE;
		if (!take_word(c, "index"))
			return fail(c, "index after queue");
		if (take_num(c, 65535, &v, "a queue number"))
			return -1;
		a->queue.index = (uint16_t)v;
	} else if (strcmp(w, "mark") == 0) {
		a->type = UNIC_FLOW_ACTION_MARK;
		if (!take_word(c, "id"))
			return fail(c, "id after mark");
		if (take_num(c, UINT32_MAX, &v, "a mark id"))
			return -1;
		a->mark.id = (uint32_t)v;
	} else if (strcmp(w, "rss") == 0) {
		a->type = UNIC_FLOW_ACTION_RSS;
		if (parse_rss(c, a))
			return -1;
	} else if (strcmp(w, "drop") == 0) {
		a->type = UNIC_FLOW_ACTION_DROP;
	} else if (strcmp(w, "count") == 0) {
		a->type = UNIC_FLOW_ACTION_COUNT;
	} else if (strcmp(w, "passthru") == 0) {
		a->type = UNIC_FLOW_ACTION_PASSTHRU;
	} else if (strcmp(w, "void") == 0) {
		a->type = UNIC_FLOW_ACTION_VOID;
	} else {
		c->i--;
		return fail(c, "an action (queue, rss, drop, mark, count, passthru, void) or end");
	}
	cmd->rule.nb_actions++;
	if (!take_word(c, "/"))
		return fail(c, "'/' after the %s action", w);
	return 0;
}

/* ---- commands -------------------------------------------------------------------- */

static int parse_rule(struct cursor *c, struct tp_flow_cmd *cmd)
{
	struct unic_flow_attr *at = &cmd->rule.attr;
	bool end = false;
	uint64_t v;
	int rc;

	for (;;) {
		const char *w = peek(c);

		if (take_word(c, "group")) {
			if (take_num(c, UINT32_MAX, &v, "a group number"))
				return -1;
			at->group = (uint32_t)v;
		} else if (take_word(c, "priority")) {
			if (take_num(c, UINT32_MAX, &v, "a priority level"))
				return -1;
			at->priority = (uint32_t)v;
		} else if (take_word(c, "ingress")) {
			at->ingress = true;
		} else if (take_word(c, "egress")) {
			at->egress = true;
		} else if (take_word(c, "transfer")) {
			at->transfer = true;
		} else if (w && (strcmp(w, "tunnel_set") == 0 || strcmp(w, "tunnel_match") == 0 ||
				 strcmp(w, "user_id") == 0)) {
			cmd->op = TP_FLOW_REFUSED;
			snprintf(cmd->why, sizeof(cmd->why), "attribute '%s': unic has no %s", w,
				 w[0] == 'u' ? "user rule ids (rules are numbered by the port)" : "tunnel offload");
			return 0;
		} else if (take_word(c, "pattern")) {
			break;
		} else {
			return fail(c, "group, priority, ingress, egress, transfer or pattern");
		}
	}
	/* pattern ITEM [/ ITEM]... / end: each item takes its '/'. */
	while (!end) {
		rc = parse_item(c, cmd, &end);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return 0;
	}
	if (!take_word(c, "actions"))
		return fail(c, "actions after the pattern's end");
	end = false;
	while (!end) {
		rc = parse_action(c, cmd, &end);
		if (rc < 0)
			return -1;
		if (rc > 0)
			return 0;
	}
	return 0;
}

static const struct {
	const char *word;
	const char *why;
} refused_subs[] = {
	{ "indirect_action", "indirect actions (shared between rules): unic's rules carry their own actions" },
	{ "flex_item", "flex items (a parser programmed for a custom header): no unic driver has one" },
	{ "queue", "the asynchronous flow API (rules enqueued on flow queues): unic creates rules at once" },
	{ "push", "the asynchronous flow API (push): unic creates rules at once" },
	{ "pull", "the asynchronous flow API (pull): unic creates rules at once" },
	{ "pattern_template", "pattern templates (the template API): unic creates rules one by one" },
	{ "actions_template", "actions templates (the template API): unic creates rules one by one" },
	{ "template_table", "template tables (the template API): unic creates rules one by one" },
	{ "table", "template tables (the template API): unic creates rules one by one" },
	{ "configure", "flow engine configuration (flow queues, counters, meters): unic's rules need none" },
	{ "info", "flow engine information (flow queues, counters, meters): unic has no such engine" },
	{ "dump", "dumps of the hardware's flow tables: no unic driver has a readable one; 'flow list' shows the rules" },
	{ "tunnel", "tunnel offload: unic parses no tunnels" },
};

static int port_arg(struct cursor *c, struct tp_flow_cmd *cmd)
{
	uint64_t v;

	if (num(peek(c), TP_CMD_MAX_PORT, &v) != 0)
		return fail(c, "a port number (0..%d)", TP_CMD_MAX_PORT);
	c->i++;
	cmd->port = (uint16_t)v;
	return 0;
}

static int parse_words(struct cursor *c, struct tp_flow_cmd *cmd)
{
	const char *sub;
	uint64_t v;

	if (!take_word(c, "flow"))
		return fail(c, "flow");
	sub = peek(c);
	for (size_t i = 0; sub && i < sizeof(refused_subs) / sizeof(refused_subs[0]); i++)
		if (strcmp(sub, refused_subs[i].word) == 0) {
			cmd->op = TP_FLOW_REFUSED;
			snprintf(cmd->why, sizeof(cmd->why), "flow %s: %s", sub, refused_subs[i].why);
			return 0;
		}
	if (take_word(c, "validate") || take_word(c, "create")) {
		cmd->op = strcmp(sub, "create") == 0 ? TP_FLOW_CREATE : TP_FLOW_VALIDATE;
		if (port_arg(c, cmd) || parse_rule(c, cmd))
			return -1;
		if (cmd->op == TP_FLOW_REFUSED)
			return 0;
	} else if (take_word(c, "list")) {
		cmd->op = TP_FLOW_LIST;
		if (port_arg(c, cmd))
			return -1;
		while (take_word(c, "group")) {
			if (cmd->nb_ids == TP_FLOW_MAX_IDS)
				return fail(c, "at most %d groups", TP_FLOW_MAX_IDS);
			if (take_num(c, UINT32_MAX, &v, "a group number"))
				return -1;
			cmd->ids[cmd->nb_ids++] = (uint32_t)v;
		}
	} else if (take_word(c, "destroy")) {
		cmd->op = TP_FLOW_DESTROY;
		if (port_arg(c, cmd))
			return -1;
		do {
			if (!take_word(c, "rule"))
				return fail(c, "rule");
			if (cmd->nb_ids == TP_FLOW_MAX_IDS)
				return fail(c, "at most %d rules", TP_FLOW_MAX_IDS);
			if (take_num(c, UINT32_MAX, &v, "a rule id"))
				return -1;
			cmd->ids[cmd->nb_ids++] = (uint32_t)v;
		} while (peek(c));
	} else if (take_word(c, "flush")) {
		cmd->op = TP_FLOW_FLUSH;
		if (port_arg(c, cmd))
			return -1;
	} else if (take_word(c, "isolate")) {
		static const char *const yes[] = { "true", "1", "on", "yes", "enabled" };
		static const char *const no[] = { "false", "0", "off", "no", "disabled" };
		const char *b;

		cmd->op = TP_FLOW_ISOLATE;
		if (port_arg(c, cmd))
			return -1;
		b = peek(c);
		if (b && in_list(b, yes, 5))
			cmd->on = true;
		else if (b && in_list(b, no, 5))
			cmd->on = false;
		else
			return fail(c, "true or false (or 1, 0, on, off)");
		c->i++;
	} else if (take_word(c, "query")) {
		cmd->op = TP_FLOW_QUERY;
		if (port_arg(c, cmd))
			return -1;
		if (take_num(c, UINT32_MAX, &v, "a rule id"))
			return -1;
		cmd->ids[cmd->nb_ids++] = (uint32_t)v;
		if (peek(c) && strcmp(peek(c), "count") != 0 &&
		    in_list(peek(c), dpdk_actions, sizeof(dpdk_actions) / sizeof(dpdk_actions[0]))) {
			cmd->op = TP_FLOW_REFUSED;
			snprintf(cmd->why, sizeof(cmd->why), "flow query %s: only the count action has results", peek(c));
			return 0;
		}
		if (!take_word(c, "count"))
			return fail(c, "count (the only action with results)");
	} else if (take_word(c, "aged")) {
		cmd->op = TP_FLOW_AGED;
		if (port_arg(c, cmd))
			return -1;
		cmd->on = take_word(c, "destroy");
	} else {
		return fail(c, "validate, create, list, destroy, flush, isolate, query, aged (or one of DPDK's "
			    "other flow commands: indirect_action, flex_item, queue, push, pull, pattern_template, "
			    "actions_template, template_table, configure, info, dump, tunnel)");
	}
	if (peek(c))
		return fail(c, "the end of the line");
	return 0;
}

int tp_flow_parse(const char *line, struct tp_flow_cmd *cmd, char *err, size_t errlen)
{
	char buf[TP_CMD_LINE_MAX];
	struct cursor c;
	size_t n = strnlen(line, sizeof(buf));
	char *p = buf;
	char dummy[1];

	if (errlen == 0) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	err[0] = '\0';
	memset(cmd, 0, sizeof(*cmd));
	if (n >= sizeof(buf)) {
		snprintf(err, errlen, "line too long (the limit is %d characters)", TP_CMD_LINE_MAX - 1);
		return -1;
	}
	memcpy(buf, line, n + 1);
	c.n = c.i = 0;
	c.err = err;
	c.errlen = errlen;
	for (;;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (*p == '\0' || *p == '#')
			break;
		if (c.n == FLOW_MAX_WORDS) {
			snprintf(err, errlen, "too many words (the limit is %d)", FLOW_MAX_WORDS);
			return -1;
		}
		c.w[c.n++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		*p++ = '\0';
	}
	if (parse_words(&c, cmd) != 0) {
		size_t l = strnlen(err, errlen);

		if (l + 1 < errlen)
			snprintf(err + l, errlen - l, "\n%s", usage);
		return -1;
	}
	return 0;
}
