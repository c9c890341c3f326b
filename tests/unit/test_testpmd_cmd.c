/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's command parser: the table, typed values, errors with the
 * usage lines, completion, help.
 */
#include <criterion/criterion.h>
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

/* ---- the parser ----------------------------------------------------------------- */

Test(testpmd_cmd, every_command_in_the_table_parses_from_a_sample_of_its_syntax)
{
	unsigned nb;
	const struct tp_cmd_def *t = tp_cmd_table(&nb);

	cr_assert_eq(nb, TP_CMD_COUNT, "one entry per command id");
	for (unsigned i = 0; i < nb; i++) {
		char line[512] = "";
		const char *s = t[i].syntax;

		cr_assert_eq(t[i].id, i, "table in id order");
		if (t[i].id == TP_CMD_FLOW) /* its own grammar (flowparse.c) */
			s = "flow flush <port>";
		/* A sample: the first alternative of each literal, a value per placeholder. */
		while (*s) {
			size_t l = strcspn(s, " ");
			char w[256];

			snprintf(w, sizeof(w), "%.*s", (int)l, s);
			if (w[0] == '[')
				;
			else if (strcmp(w, "<mac>") == 0)
				strcat(line, "02:00:00:00:00:09 ");
			else if (strcmp(w, "<sizes>") == 0)
				strcat(line, "64,128 ");
			else if (strcmp(w, "<level>") == 0)
				strcat(line, "debug ");
			else if (strcmp(w, "<spec>") == 0 || strcmp(w, "<words...>") == 0)
				strcat(line, "ring5 ");
			else if (w[0] == '<')
				strcat(line, "1 ");
			else {
				w[strcspn(w, "|")] = '\0';
				strcat(line, w);
				strcat(line, " ");
			}
			s += l;
			while (*s == ' ')
				s++;
		}
		cr_assert_eq(parse(line), TP_PARSE_OK, "'%s' (%s): %s", line, t[i].syntax, err);
		cr_assert_eq(cmd.def->id, t[i].id, "'%s' parsed as %s", line, cmd.def->syntax);
	}
}

Test(testpmd_cmd, values_come_out_typed_in_their_syntax_positions)
{
	cr_assert_eq(parse("show port stats all"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.def->id, TP_CMD_SHOW_PORT);
	cr_assert_eq(cmd.arg[2].kw, 1, "stats is the second alternative");
	cr_assert_eq(cmd.arg[3].num, TP_CMD_PORT_ALL);

	cr_assert_eq(parse("  mac_addr add 3 02:aB:cd:EF:00:ff  # comment"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.def->id, TP_CMD_MAC_ADDR);
	cr_assert_eq(cmd.arg[1].kw, 1);
	cr_assert_eq(cmd.arg[2].num, 3);
	const uint8_t mac[6] = { 0x02, 0xab, 0xcd, 0xef, 0x00, 0xff };

	cr_assert_eq(memcmp(cmd.arg[3].mac, mac, 6), 0);

	cr_assert_eq(parse("set txpkts 64,128,2"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.arg[2].nb_sizes, 3);
	cr_assert_eq(cmd.arg[2].sizes[1], 128);

	cr_assert_eq(parse("set msglevel 2 warning"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.arg[3].num, 2);
	cr_assert_eq(parse("set msglevel 2 5"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.arg[3].num, 5);

	cr_assert_eq(parse("set rx-mode 1 interrupt weight=16 budget=64"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.arg[3].kw, 1);
	int b = tp_cmd_knob(&cmd, "budget"), w = tp_cmd_knob(&cmd, "weight"), e = tp_cmd_knob(&cmd, "idle-us");

	cr_assert(b > 0 && w > 0 && e > 0);
	cr_assert(cmd.arg[b].set);
	cr_assert_eq(cmd.arg[b].num, 64);
	cr_assert_eq(cmd.arg[w].num, 16);
	cr_assert(!cmd.arg[e].set, "a knob not given is not set");
	cr_assert_eq(tp_cmd_knob(&cmd, "nope"), -1);

	cr_assert_eq(parse("help port config"), TP_PARSE_OK);
	cr_assert_eq(cmd.def->id, TP_CMD_HELP_TOPIC);
	cr_assert_str_eq(cmd.arg[1].str, "port config");

	/* DPDK's spellings land on the same actions. */
	cr_assert_eq(parse("vlan set strip on 0"), TP_PARSE_OK);
	cr_assert_eq(cmd.def->id, TP_CMD_VLAN_SET_DPDK);
	cr_assert_eq(parse("port config mtu 0 9000"), TP_PARSE_OK);
	cr_assert_eq(cmd.def->id, TP_CMD_PORT_MTU_DPDK);
	cr_assert_eq(parse("set link-down port 1"), TP_PARSE_OK);
	cr_assert_eq(cmd.def->id, TP_CMD_SET_LINK_DPDK);
}

Test(testpmd_cmd, blank_lines_and_comments_are_empty)
{
	cr_assert_eq(parse(""), TP_PARSE_EMPTY);
	cr_assert_eq(parse("   \t "), TP_PARSE_EMPTY);
	cr_assert_eq(parse("# start"), TP_PARSE_EMPTY);
}

Test(testpmd_cmd, errors_say_what_is_wrong_and_give_the_usage_lines)
{
	cr_assert_eq(parse("frobnicate 1"), TP_PARSE_ERROR);
	HAS(err, "unknown command 'frobnicate'; type 'help' for the list");

	cr_assert_eq(parse("port config 0 mtu"), TP_PARSE_ERROR);
	HAS(err, "missing argument <n>");
	HAS(err, "usage: port config <port> mtu <n>");

	cr_assert_eq(parse("show port stats 64"), TP_PARSE_ERROR);
	HAS(err, "bad value '64' for <port|all>; expected a port number (0..63) or 'all'");
	HAS(err, "usage: show port info|stats|xstats|link|regs|eeprom|napi|summary <port|all>");

	cr_assert_eq(parse("show port bogus 0"), TP_PARSE_ERROR);
	HAS(err, "bad word 'bogus'; expected info|stats|xstats|link|regs|eeprom|napi|summary|capabilities");

	cr_assert_eq(parse("set fwd warp"), TP_PARSE_ERROR);
	HAS(err, "expected io|mac|macswap|rxonly|txonly|flowgen");

	cr_assert_eq(parse("stop now"), TP_PARSE_ERROR);
	HAS(err, "unexpected 'now'");
	HAS(err, "usage: stop");

	cr_assert_eq(parse("mac_addr set 0 02:00:00:00:00"), TP_PARSE_ERROR);
	HAS(err, "expected a MAC address");
	cr_assert_eq(parse("rx_vlan add 4096 0"), TP_PARSE_ERROR);
	HAS(err, "a VLAN id (0..4095)");
	cr_assert_eq(parse("set txpkts 64,,1"), TP_PARSE_ERROR);
	cr_assert_eq(parse("set txpkts 1,2,3,4,5,6,7,8,9"), TP_PARSE_ERROR);
	HAS(err, "at most 8");
	cr_assert_eq(parse("set burst 99999999999"), TP_PARSE_ERROR);
	cr_assert_eq(parse("set burst -1"), TP_PARSE_ERROR);
	cr_assert_eq(parse("set msglevel 0 loud"), TP_PARSE_ERROR);
	HAS(err, "error, warning, notice, info, debug or 1..5");

	cr_assert_eq(parse("set rx-mode 0 poll budget=1 budget=2"), TP_PARSE_ERROR);
	HAS(err, "'budget=2' given twice");
	cr_assert_eq(parse("set rx-mode 0 poll budget"), TP_PARSE_ERROR);
	HAS(err, "bad value 'budget'");
	cr_assert_eq(parse("set rx-mode 0 poll speed=3"), TP_PARSE_ERROR);
	HAS(err, "unexpected 'speed=3'");
}

Test(testpmd_cmd, overlong_lines_and_too_many_words_are_refused)
{
	static char line[TP_CMD_LINE_MAX + 10];

	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	cr_assert_eq(parse(line), TP_PARSE_ERROR);
	HAS(err, "line too long");
	line[0] = '\0';
	for (int i = 0; i < 40; i++)
		strcat(line, "x ");
	cr_assert_eq(parse(line), TP_PARSE_ERROR);
	HAS(err, "too many words");
}

static unsigned complete(const char *line, char (*c)[TP_CMD_CAND_LEN], size_t *start)
{
	static const uint16_t ports[] = { 0, 1, 12 };

	return tp_cmd_complete(line, strlen(line), ports, 3, c, 64, start);
}

static bool cand(char (*c)[TP_CMD_CAND_LEN], unsigned n, const char *s)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(c[i], s) == 0)
			return true;
	return false;
}

Test(testpmd_cmd, completion_offers_words_and_port_numbers)
{
	char c[64][TP_CMD_CAND_LEN];
	size_t start;
	unsigned n;

	n = complete("sh", c, &start);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(c[0], "show");
	cr_assert_eq(start, 0);

	n = complete("show port ", c, &start);
	cr_assert(cand(c, n, "info") && cand(c, n, "stats") && cand(c, n, "capabilities"));
	cr_assert_eq(start, 10);

	n = complete("show port info ", c, &start);
	cr_assert_eq(n, 4);
	cr_assert(cand(c, n, "0") && cand(c, n, "1") && cand(c, n, "12") && cand(c, n, "all"));

	n = complete("show port info 1", c, &start);
	cr_assert_eq(n, 2, "1 and 12");
	cr_assert_eq(start, 15);

	n = complete("port detach ", c, &start);
	cr_assert(!cand(c, n, "all"), "detach takes one port");
	cr_assert(cand(c, n, "12"));

	n = complete("set fwd mac", c, &start);
	cr_assert_eq(n, 2);
	cr_assert(cand(c, n, "mac") && cand(c, n, "macswap"));

	n = complete("set rx-mode 0 hybrid ", c, &start);
	cr_assert(cand(c, n, "budget=") && cand(c, n, "max-sleep-ms="));
	n = complete("set rx-mode 0 hybrid budget=3 we", c, &start);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(c[0], "weight=");

	n = complete("set msglevel all d", c, &start);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(c[0], "debug");

	n = complete("show config fwd ", c, &start);
	cr_assert_eq(n, 0, "nothing follows");
	n = complete("nonsense ", c, &start);
	cr_assert_eq(n, 0);
	/* The cursor may sit before the end: only what is before it counts. */
	n = tp_cmd_complete("sta 0 1", 3, NULL, 0, c, 64, &start);
	cr_assert(cand(c, n, "start"));
}

Test(testpmd_cmd, help_lists_everything_or_a_topic)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(tp_cmd_help(f, NULL), 0);
	fflush(f);
	HAS(buf, "show port info|stats|xstats|link|regs|eeprom|napi|summary <port|all>");
	HAS(buf, "port detach <port>");
	fclose(f);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	cr_assert_eq(tp_cmd_help(f, "port config"), 0);
	fflush(f);
	HAS(buf, "port config <port> mtu <n>\n    MTU (port stopped)");
	HAS(buf, "port config <port> coalesce rx-usecs|tx-usecs <n>");
	HASNT(buf, "port detach");
	cr_assert_eq(tp_cmd_help(f, "warp drive"), -1);
	fflush(f);
	HAS(buf, "no command starts with 'warp drive'");
	fclose(f);
	free(buf);
}

Test(testpmd_cmd, a_bad_word_lists_every_candidate_and_its_usage_line)
{
	unsigned nb, nset = 0;
	const struct tp_cmd_def *t = tp_cmd_table(&nb);

	cr_assert_eq(parse("set bogus"), TP_PARSE_ERROR);
	HAS(err, "bad word 'bogus'; expected fwd|burst|nbcore|txpkts|promisc|allmulti|link|link-up|link-down|"
		 "rx-mode|msglevel|eth-peer");
	/* One usage line for each "set" command, the last ones included. */
	for (unsigned i = 0; i < nb; i++) {
		char want[512];

		if (strncmp(t[i].syntax, "set ", 4) != 0)
			continue;
		snprintf(want, sizeof(want), "usage: %s", t[i].syntax);
		HAS(err, want);
		nset++;
	}
	cr_assert_gt(nset, 8, "more candidates than the old cap of 8");
	/* Each word once, where two commands share some of their words. */
	cr_assert_eq(parse("show port 0 bogus"), TP_PARSE_ERROR);
	HAS(err, "|rxq|txq|macs|");
}

Test(testpmd_cmd, set_eth_peer_takes_a_port_and_an_address)
{
	cr_assert_eq(parse("set eth-peer 1 02:00:00:00:00:aa"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.def->id, TP_CMD_SET_ETH_PEER);
	cr_assert_eq(cmd.arg[2].num, 1);
	cr_assert_eq(cmd.arg[3].mac[5], 0xaa);
	cr_assert_eq(parse("set eth-peer 1 02:00:00"), TP_PARSE_ERROR);
	HAS(err, "bad value '02:00:00' for <mac>");
}

Test(testpmd_cmd, completion_leaves_out_words_that_are_always_refused)
{
	char c[64][TP_CMD_CAND_LEN];
	size_t start;
	unsigned n;

	n = complete("csum set ", c, &start);
	cr_assert(cand(c, n, "ip") && cand(c, n, "udp") && cand(c, n, "tcp"));
	cr_assert(!cand(c, n, "sctp") && !cand(c, n, "outer-ip") && !cand(c, n, "outer-udp"), "n=%u", n);
	n = complete("csum parse-tunnel ", c, &start);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(c[0], "off");
	/* They still parse, for the refusal that says why. */
	cr_assert_eq(parse("csum set sctp hw 0"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(parse("csum parse-tunnel on 0"), TP_PARSE_OK, "%s", err);
}

Test(testpmd_cmd, rss_arguments_parse_as_dpdk_writes_them_and_bad_ones_say_why)
{
	uint16_t reta[128] = { 0 };
	uint64_t mask[2] = { 0, 0 }, m[2];
	uint8_t key[4];
	unsigned nm;

	cr_assert_eq(tp_cmd_parse_reta("(0,1),(5,0),(127,1)", 128, reta, mask, err, sizeof(err)), 0);
	cr_assert_eq(reta[0], 1);
	cr_assert_eq(reta[127], 1);
	cr_assert_eq(mask[0], (1ull << 0) | (1ull << 5));
	cr_assert_eq(mask[1], 1ull << 63);
	cr_assert_eq(tp_cmd_parse_reta("(128,0)", 128, reta, mask, err, sizeof(err)), -1);
	HAS(err, "entry 128; the port's table has 128 (0..127)");
	cr_assert_eq(tp_cmd_parse_reta("(0,1)(1,0)", 128, reta, mask, err, sizeof(err)), -1);
	HAS(err, "expected (entry,queue)");
	cr_assert_eq(tp_cmd_parse_reta("(0,1),", 128, reta, mask, err, sizeof(err)), -1);
	cr_assert_eq(tp_cmd_parse_reta("", 128, reta, mask, err, sizeof(err)), -1);
	cr_assert_eq(tp_cmd_parse_reta("(0,70000)", 128, reta, mask, err, sizeof(err)), -1);

	cr_assert_eq(tp_cmd_parse_masks("0xffffffffffffffff,0x1", m, 2, &nm, err, sizeof(err)), 0);
	cr_assert_eq(nm, 2);
	cr_assert_eq(m[0], UINT64_MAX);
	cr_assert_eq(m[1], 1);
	cr_assert_eq(tp_cmd_parse_masks("(0x3)", m, 2, &nm, err, sizeof(err)), 0);
	cr_assert_eq(nm, 1);
	cr_assert_eq(m[0], 3);
	cr_assert_eq(tp_cmd_parse_masks("0x1,0x2,0x3", m, 2, &nm, err, sizeof(err)), -1);
	HAS(err, "expected 2 hex masks");
	cr_assert_eq(tp_cmd_parse_masks("0x1ffffffffffffffff", m, 2, &nm, err, sizeof(err)), -1);
	cr_assert_eq(tp_cmd_parse_masks("(0x1", m, 2, &nm, err, sizeof(err)), -1);
	cr_assert_eq(tp_cmd_parse_masks("zz", m, 2, &nm, err, sizeof(err)), -1);

	cr_assert_eq(tp_cmd_parse_hexkey("6d5A56da", key, 4, err, sizeof(err)), 0);
	cr_assert_eq(key[0], 0x6d);
	cr_assert_eq(key[1], 0x5a);
	cr_assert_eq(key[3], 0xda);
	cr_assert_eq(tp_cmd_parse_hexkey("6d5a56", key, 4, err, sizeof(err)), -1);
	HAS(err, "the key is 6 hex digits; this port takes 4 bytes, 8 hex digits");
	cr_assert_eq(tp_cmd_parse_hexkey("6d5a56zz", key, 4, err, sizeof(err)), -1);
	HAS(err, "'zz' at digit 6 is not hex");
}

/* One cell of a Markdown table row: from @p p to the next unescaped '|';
 * "\|" becomes '|', backticks are dropped. @return past the '|', or NULL. */
static const char *md_cell(const char *p, char *cell, size_t len)
{
	size_t n = 0;

	for (; *p && *p != '\n'; p++) {
		if (p[0] == '\\' && p[1] == '|') {
			p++;
		} else if (*p == '|') {
			break;
		} else if (*p == '`') {
			continue;
		}
		if (n + 1 < len)
			cell[n++] = *p;
	}
	while (n && cell[n - 1] == ' ')
		n--;
	cell[n] = '\0';
	{
		size_t k = 0;

		while (cell[k] == ' ')
			k++;
		memmove(cell, cell + k, n - k + 1);
	}
	return *p == '|' ? p + 1 : NULL;
}

Test(testpmd_cmd, the_dpdk_command_list_in_the_docs_matches_the_parser)
{
	const char *dir = getenv("UNIC_DOCS");
	char path[4096], line[2048], heading[256], example[1024], state[64];
	unsigned rows = 0, parsing = 0;
	bool in = false;
	FILE *f;

	cr_assert_not_null(dir, "UNIC_DOCS is not set: run this test through meson test, which sets it");
	snprintf(path, sizeof(path), "%s/testpmd.md", dir);
	f = fopen(path, "r");
	cr_assert_not_null(f, "%s: cannot open", path);
	while (fgets(line, sizeof(line), f)) {
		const char *p;

		if (strncmp(line, "### dpdk-testpmd's commands, one by one", 39) == 0) {
			in = true;
			continue;
		}
		if (!in)
			continue;
		if (line[0] == '#')
			break;
		if (line[0] != '|' || strncmp(line, "|---", 4) == 0 || strncmp(line, "| DPDK command |", 16) == 0)
			continue;
		p = md_cell(line + 1, heading, sizeof(heading));
		cr_assert_not_null(p, "row without cells: %s", line);
		p = md_cell(p, example, sizeof(example));
		cr_assert_not_null(p, "row without an example: %s", line);
		p = md_cell(p, state, sizeof(state));
		cr_assert_not_null(p, "row without a state: %s", line);
		rows++;
		if (strcmp(state, "works") == 0 || strcmp(state, "works differently") == 0 ||
		    strcmp(state, "refused") == 0) {
			cr_expect_eq(parse(example), TP_PARSE_OK, "'%s' (%s) is listed as %s but does not parse: %s",
				     example, heading, state, err);
			parsing++;
		} else {
			cr_assert_str_eq(state, "not done", "'%s': unknown state '%s'", heading, state);
			cr_expect_neq(parse(example), TP_PARSE_OK,
				      "'%s' (%s) parses: the list says not done; give its state", example, heading);
		}
	}
	fclose(f);
	cr_assert(in, "%s has no \"dpdk-testpmd's commands, one by one\" section", path);
	cr_assert_geq(rows, 200, "the list has %u rows; DPDK 22.11's guide has over 200 commands", rows);
	cr_assert_geq(parsing, 60);
}
