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
