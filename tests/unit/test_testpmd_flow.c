/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's flow commands: DPDK's grammar parsed into unic's rule
 * (flowparse.c, through tp_cmd_parse), the refusals, and the commands run
 * on a ring port (which has no flow rules: refused naming the driver).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testpmd.h"
#include "testpmd_fixture.h"

static struct tp_cmd cmd;
static char err[8192];

static int parse(const char *line)
{
	return tp_cmd_parse(line, &cmd, err, sizeof(err));
}

static const struct tp_flow_cmd *fc = &cmd.flow;

Test(testpmd_flow, a_create_line_gives_the_attributes_items_and_actions)
{
	const struct unic_flow_item *it;

	cr_assert_eq(parse("flow create 3 group 2 priority 5 ingress pattern eth / ipv4 src is 192.168.0.1 "
			   "dst spec 10.0.0.0 dst prefix 8 / udp dst is 53 / end actions queue index 1 / mark id 7 / "
			   "count / end"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.def->id, TP_CMD_FLOW);
	cr_assert_eq(fc->op, TP_FLOW_CREATE);
	cr_assert_eq(fc->port, 3);
	cr_assert_eq(fc->rule.attr.group, 2);
	cr_assert_eq(fc->rule.attr.priority, 5);
	cr_assert(fc->rule.attr.ingress && !fc->rule.attr.egress && !fc->rule.attr.transfer);
	cr_assert_eq(fc->rule.nb_items, 3);
	cr_assert_eq(fc->rule.item[0].type, UNIC_FLOW_ITEM_ETH);
	cr_assert_not(fc->rule.item[0].has_spec, "eth alone matches any Ethernet frame");
	it = &fc->rule.item[1];
	cr_assert_eq(it->type, UNIC_FLOW_ITEM_IPV4);
	cr_assert(it->has_spec);
	cr_assert_eq(it->spec.ipv4.src, 0xc0a80001u);
	cr_assert_eq(it->mask.ipv4.src, 0xffffffffu, "is: the whole field");
	cr_assert_eq(it->spec.ipv4.dst, 0x0a000000u);
	cr_assert_eq(it->mask.ipv4.dst, 0xff000000u, "prefix 8");
	it = &fc->rule.item[2];
	cr_assert_eq(it->type, UNIC_FLOW_ITEM_UDP);
	cr_assert_eq(it->spec.l4.dst, 53);
	cr_assert_eq(it->mask.l4.dst, 0xffff);
	cr_assert_eq(it->mask.l4.src, 0, "src is not matched");
	cr_assert_eq(fc->rule.nb_actions, 3);
	cr_assert_eq(fc->rule.action[0].type, UNIC_FLOW_ACTION_QUEUE);
	cr_assert_eq(fc->rule.action[0].queue.index, 1);
	cr_assert_eq(fc->rule.action[1].type, UNIC_FLOW_ACTION_MARK);
	cr_assert_eq(fc->rule.action[1].mark.id, 7);
	cr_assert_eq(fc->rule.action[2].type, UNIC_FLOW_ACTION_COUNT);
}

Test(testpmd_flow, vlan_fields_share_the_tci_and_spec_alone_takes_dpdks_default_mask)
{
	cr_assert_eq(parse("flow validate 0 pattern eth type is 0x8100 / vlan vid is 100 pcp is 5 / end actions drop / end"),
		     TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->op, TP_FLOW_VALIDATE);
	cr_assert_eq(fc->rule.item[0].spec.eth.type, 0x8100);
	cr_assert_eq(fc->rule.item[0].mask.eth.type, 0xffff);
	cr_assert_eq(fc->rule.item[1].spec.vlan.tci, (5u << 13) | 100);
	cr_assert_eq(fc->rule.item[1].mask.vlan.tci, 0xe000 | 0x0fff);
	cr_assert_eq(fc->rule.action[0].type, UNIC_FLOW_ACTION_DROP);

	cr_assert_eq(parse("flow validate 0 pattern vlan vid spec 7 / end actions drop / end"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->rule.item[0].spec.vlan.tci, 7);
	cr_assert_eq(fc->rule.item[0].mask.vlan.tci, 0x0fff, "spec alone: the VID, DPDK's default vlan mask");

	cr_assert_eq(parse("flow validate 0 pattern eth dst spec 02:00:00:00:00:01 dst mask ff:ff:ff:00:00:00 / "
			   "ipv6 src is 2001:db8::1 / tcp src is 1000 src last 2000 / end actions rss queues 0 1 end "
			   "types ipv4-tcp ipv6 end key 0x0102 / end"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->rule.item[0].mask.eth.dst[2], 0xff);
	cr_assert_eq(fc->rule.item[0].mask.eth.dst[3], 0);
	cr_assert_eq(fc->rule.item[1].spec.ipv6.src[0], 0x20);
	cr_assert_eq(fc->rule.item[1].spec.ipv6.src[15], 1);
	cr_assert(fc->rule.item[2].has_last);
	cr_assert_eq(fc->rule.item[2].last.l4.src, 2000);
	cr_assert_eq(fc->rule.action[0].type, UNIC_FLOW_ACTION_RSS);
	cr_assert_eq(fc->rule.action[0].rss.nb_queues, 2);
	cr_assert_eq(fc->rule.action[0].rss.types, UNIC_FLOW_RSS_IPV4_TCP | UNIC_FLOW_RSS_IPV6);
	cr_assert_eq(fc->rule.action[0].rss.key_len, 2);
	cr_assert_eq(fc->rule.action[0].rss.key[1], 2);
}

Test(testpmd_flow, the_other_flow_commands_parse)
{
	cr_assert_eq(parse("flow list 1 group 0 group 63"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->op, TP_FLOW_LIST);
	cr_assert_eq(fc->nb_ids, 2);
	cr_assert_eq(fc->ids[1], 63);
	cr_assert_eq(parse("flow destroy 0 rule 42 rule 10 rule 2"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->op, TP_FLOW_DESTROY);
	cr_assert_eq(fc->nb_ids, 3);
	cr_assert_eq(fc->ids[0], 42);
	cr_assert_eq(parse("flow flush 2"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->op, TP_FLOW_FLUSH);
	cr_assert_eq(fc->port, 2);
	cr_assert_eq(parse("flow isolate 0 true"), TP_PARSE_OK, "%s", err);
	cr_assert(fc->on);
	cr_assert_eq(parse("flow isolate 0 0"), TP_PARSE_OK, "%s", err);
	cr_assert_not(fc->on);
	cr_assert_eq(parse("flow query 0 4 count"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->op, TP_FLOW_QUERY);
	cr_assert_eq(fc->ids[0], 4);
	cr_assert_eq(parse("flow aged 0 destroy"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->op, TP_FLOW_AGED);
	cr_assert(fc->on);
	cr_assert_eq(parse("flow create 0 pattern end actions end"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->rule.nb_items, 0);
	cr_assert_eq(fc->rule.nb_actions, 0);
}

Test(testpmd_flow, dpdks_other_flow_commands_items_and_actions_parse_as_refused_with_the_reason)
{
	static const struct {
		const char *line, *why;
	} t[] = {
		{ "flow indirect_action 0 create action_id 100 ingress action rss queues 1 2 end / end", "indirect actions" },
		{ "flow flex_item init 0 3 ipv4_flex_config.json", "flex items" },
		{ "flow queue 0 aged 0", "asynchronous" },
		{ "flow pull 0 queue 0", "asynchronous" },
		{ "flow pattern_template 0 create pattern_template_id 2 template eth / end", "templates" },
		{ "flow configure 0 queues_number 8 queues_size 256", "configuration" },
		{ "flow info 0", "information" },
		{ "flow dump 0 all /tmp/f", "dumps" },
		{ "flow tunnel create 0 type vxlan", "tunnel" },
		{ "flow create 0 ingress pattern eth / ipv4 / vxlan / end actions drop / end", "pattern item 'vxlan'" },
		{ "flow create 0 ingress pattern eth / end actions jump group 1 / end", "action 'jump'" },
		{ "flow create 0 tunnel_set 1 pattern eth / end actions drop / end", "tunnel offload" },
	};

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cr_assert_eq(parse(t[i].line), TP_PARSE_OK, "'%s': %s", t[i].line, err);
		cr_assert_eq(fc->op, TP_FLOW_REFUSED, "'%s'", t[i].line);
		cr_assert_not_null(strstr(fc->why, t[i].why), "'%s': the reason '%s' lacks '%s'", t[i].line, fc->why,
				   t[i].why);
	}
}

Test(testpmd_flow, a_parse_error_names_the_word_and_what_was_expected)
{
	static const struct {
		const char *line, *msg;
	} t[] = {
		{ "flow create 0 pattern eth dst is 02:00 / end actions drop / end",
		  "bad word '02:00' (word 8); expected a MAC address xx:xx:xx:xx:xx:xx for eth dst" },
		{ "flow create 0 pattern eth / ipv4 / end actions queue 1 / end",
		  "bad word '1' (word 12); expected index after queue" },
		{ "flow create 0 pattern eth / bogus / end actions drop / end", "bad word 'bogus' (word 7); expected a pattern item" },
		{ "flow create 0 pattern eth / end actions drop / end extra", "bad word 'extra' (word 12); expected the end of the line" },
		{ "flow create 0 pattern eth / end", "missing actions after the pattern's end at the end of the line" },
		{ "flow create 0 pattern vlan vid is 4096 / end actions drop / end", "bad word '4096' (word 8); expected a number (0..4095" },
		{ "flow create 0 pattern eth colour is 1 / end actions drop / end", "bad word 'colour' (word 6); expected '/' or a field of eth (dst, src, type)" },
		{ "flow create 64 pattern end actions end", "bad word '64' (word 3); expected a port number (0..63)" },
		{ "flow isolate 0 maybe", "bad word 'maybe' (word 4); expected true or false" },
		{ "flow destroy 0 42", "bad word '42' (word 4); expected rule" },
		{ "flow bogus 0", "bad word 'bogus' (word 2); expected validate, create" },
		{ "flow create 0 pattern ipv4 src is 1.2.3 / end actions drop / end", "expected an IPv4 address a.b.c.d for ipv4 src" },
		{ "flow create 0 pattern eth / end actions rss types sctp end / end", "bad word 'sctp' (word 11); expected an RSS type" },
	};

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		cr_assert_eq(parse(t[i].line), TP_PARSE_ERROR, "'%s' parsed", t[i].line);
		cr_assert_not_null(strstr(err, t[i].msg), "'%s': got '%s', want '%s'", t[i].line, err, t[i].msg);
		cr_assert_not_null(strstr(err, "\nusage: flow validate|create"), "'%s': no usage line: %s", t[i].line, err);
	}
}

Test(testpmd_flow, a_long_rule_is_not_cut_at_the_tables_word_limit)
{
	/* 40 words, more than the table's TP_CMD_MAX_TOKENS (32). */
	cr_assert_eq(parse("flow create 0 ingress pattern eth dst is 02:00:00:00:00:01 src is 02:00:00:00:00:02 / "
			   "vlan vid is 5 / ipv4 src is 1.1.1.1 dst is 2.2.2.2 proto is 17 / udp src is 1 dst is 2 / end "
			   "actions queue index 0 / count / end"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(fc->rule.nb_items, 4);
}

/* ---- run on a ring port ---------------------------------------------------------- */

/* Run @p line; what it printed in @p got. @return tp_exec's. */
static int run_flow(const char *line, const char **got)
{
	size_t mark;
	int rc;

	fflush(app->out);
	mark = outlen;
	rc = exec(line);
	fflush(app->out);
	*got = outbuf + mark;
	return rc;
}

Test(testpmd_flow, on_a_ring_port_every_rule_is_refused_naming_the_driver, .init = eng_setup, .fini = eng_teardown)
{
	char line[256];
	const char *got;

	snprintf(line, sizeof(line), "flow create %u ingress pattern eth / ipv4 / end actions queue index 0 / end",
		 near_id);
	cr_assert_eq(run_flow(line, &got), -ENOTSUP);
	cr_assert_not_null(strstr(got, "Caught error type (port): ring40: the ring driver has no flow rules: "
				  "a virtual port has no filter hardware"), "%s", got);
	snprintf(line, sizeof(line), "flow validate %u pattern eth / end actions drop / end", near_id);
	cr_assert_eq(run_flow(line, &got), -ENOTSUP);
	snprintf(line, sizeof(line), "flow isolate %u true", near_id);
	cr_assert_eq(run_flow(line, &got), -ENOTSUP);
	cr_assert_not_null(strstr(got, "cannot restrict ingress traffic"), "%s", got);
	snprintf(line, sizeof(line), "flow list %u", near_id);
	cr_assert_eq(run_flow(line, &got), 0);
	cr_assert_str_eq(got, "", "no rules: nothing printed, as DPDK");
	snprintf(line, sizeof(line), "flow destroy %u rule 3", near_id);
	cr_assert_eq(run_flow(line, &got), 0, "an id that does not exist is passed over, as DPDK");
	cr_assert_str_eq(got, "");
	snprintf(line, sizeof(line), "flow flush %u", near_id);
	cr_assert_eq(run_flow(line, &got), 0);
	snprintf(line, sizeof(line), "flow query %u 3 count", near_id);
	cr_assert_eq(run_flow(line, &got), -ENOENT);
	cr_assert_str_eq(got, "Flow rule #3 not found\n");
	snprintf(line, sizeof(line), "flow aged %u", near_id);
	cr_assert_eq(run_flow(line, &got), 0);
	cr_assert_not_null(strstr(got, "total aged flows: 0"), "%s", got);
	cr_assert_eq(run_flow("flow indirect_action 0 query 100", &got), -ENOTSUP);
	cr_assert_not_null(strstr(got, "flow indirect_action: indirect actions"), "%s", got);
	cr_assert_eq(run_flow("flow create 63 pattern end actions end", &got), -ENODEV, "no port 63");
}

Test(testpmd_flow, help_flow_prints_the_grammar)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(tp_cmd_help(f, "flow"), 0);
	fclose(f);
	cr_assert_not_null(strstr(buf, "usage: flow validate|create <port>"), "%s", buf);
	cr_assert_not_null(strstr(buf, "usage: flow destroy <port> rule N"), "%s", buf);
	free(buf);
}
