/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for unic-testpmd's command parser (apps/testpmd/cmd.c):
 * parse (the flow commands' parser, flowparse.c, too: on the line and on
 * "flow " + the line), help, completion and the RSS argument parsers on arbitrary bytes, with the parser's promises
 * checked (a parsed command names a table entry, its words point into the
 * command's own buffers, a refused line always says why).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iapps/testpmd -Iapps/common \
 *         -Ilib/include tests/fuzz/fuzz_testpmd_cmd.c apps/testpmd/cmd.c apps/testpmd/cmd_refused.c \
 *         apps/testpmd/flowparse.c apps/common/app_opts.c -o fuzz_testpmd_cmd
 *   ./fuzz_testpmd_cmd -max_total_time=60
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

static int inside(const char *p, const char *buf, size_t len)
{
	return p >= buf && p < buf + len;
}

/* A parsed flow command keeps within its arrays and says why it refuses. */
static void check_flow(const struct tp_flow_cmd *f)
{
	check(f->op <= TP_FLOW_REFUSED);
	check(f->port <= TP_CMD_MAX_PORT);
	check(f->nb_ids <= TP_FLOW_MAX_IDS);
	check(f->rule.nb_items <= UNIC_FLOW_MAX_ITEMS);
	check(f->rule.nb_actions <= UNIC_FLOW_MAX_ACTIONS);
	for (unsigned i = 0; i < f->rule.nb_items; i++)
		check(f->rule.item[i].type <= UNIC_FLOW_ITEM_TCP);
	for (unsigned i = 0; i < f->rule.nb_actions; i++) {
		const struct unic_flow_action *a = &f->rule.action[i];

		check(a->type <= UNIC_FLOW_ACTION_COUNT);
		if (a->type == UNIC_FLOW_ACTION_RSS)
			check(a->rss.nb_queues <= UNIC_FLOW_RSS_MAX_QUEUES && a->rss.key_len <= UNIC_FLOW_RSS_KEY_MAX);
	}
	if (f->op == TP_FLOW_REFUSED)
		check(f->why[0] != '\0' && memchr(f->why, '\0', sizeof(f->why)) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct tp_cmd cmd;
	static FILE *null;
	static const uint16_t ports[] = { 0, 1, 7, 63 };
	char line[TP_CMD_LINE_MAX + 64];
	char err[8192];
	char cands[16][TP_CMD_CAND_LEN];
	unsigned nb, nr, n;
	const struct tp_cmd_def *t = tp_cmd_table(&nb);
	const struct tp_cmd_def *r = tp_cmd_refused_table(&nr);
	size_t len = size < sizeof(line) - 1 ? size : sizeof(line) - 1, start;
	int rc;

	if (null == NULL)
		null = fopen("/dev/null", "w");
	memcpy(line, data, len);
	line[len] = '\0';

	rc = tp_cmd_parse(line, &cmd, err, sizeof(err));
	check(rc == TP_PARSE_OK || rc == TP_PARSE_EMPTY || rc == TP_PARSE_ERROR);
	if (rc == TP_PARSE_OK) {
		/* A row of the command table, or a refused-by-design one
		 * (which has a reason and a port word inside the syntax). */
		check((cmd.def >= t && cmd.def < t + nb) ||
		      (cmd.def >= r && cmd.def < r + nr && cmd.def->id == TP_CMD_REFUSED &&
		       cmd.def->help[0] != '\0'));
		check(tp_cmd_port_word(&cmd) < (int)cmd.nb_args);
		check(cmd.nb_args >= 1 && cmd.nb_args <= TP_CMD_MAX_TOKENS);
		for (unsigned i = 0; i < cmd.nb_args; i++) {
			const char *s = cmd.arg[i].str;

			check(s == NULL || inside(s, cmd.buf, sizeof(cmd.buf)) ||
			      inside(s, cmd.rest, sizeof(cmd.rest)));
			check(cmd.arg[i].nb_sizes <= TP_CMD_MAX_SIZES);
		}
		check(tp_cmd_knob(&cmd, "budget") >= -1);
		if (cmd.def->id == TP_CMD_FLOW)
			check_flow(&cmd.flow);
	} else if (rc == TP_PARSE_ERROR) {
		check(err[0] != '\0');
	}
	/* The flow grammar, reached from the fuzzer's first byte. */
	{
		static struct tp_flow_cmd fc;
		char fl[TP_CMD_LINE_MAX + 64];

		snprintf(fl, sizeof(fl), "flow %s", line);
		if (tp_flow_parse(fl, &fc, err, sizeof(err)) == 0)
			check_flow(&fc);
		else
			/* a refusal says why; past the line's limits that is all it says,
			 * else the usage lines follow */
			check(err[0] != '\0' && (strstr(err, "usage: flow") != NULL ||
						  strncmp(err, "line too long", 13) == 0 ||
						  strncmp(err, "too many words", 14) == 0));
	}
	/* The RSS commands' argument parsers on the line as one word. */
	{
		uint16_t reta[128];
		uint64_t mask[8] = { 0 };
		uint8_t key[40];
		unsigned nm = 9;

		if (tp_cmd_parse_reta(line, 128, reta, mask, err, sizeof(err)) != 0)
			check(err[0] != '\0');
		if (tp_cmd_parse_masks(line, mask, 2, &nm, err, sizeof(err)) == 0)
			check(nm >= 1 && nm <= 2);
		else
			check(err[0] != '\0');
		if (tp_cmd_parse_hexkey(line, key, 40, err, sizeof(err)) != 0)
			check(err[0] != '\0');
	}
	/* Help with the line as a topic, completion at every 7th position. */
	if (null)
		tp_cmd_help(null, line);
	for (size_t at = 0; at <= len; at += 7) {
		n = tp_cmd_complete(line, at, ports, 4, cands, 16, &start);
		check(n <= 16);
		check(start <= at);
		for (unsigned i = 0; i < n; i++)
			check(memchr(cands[i], '\0', TP_CMD_CAND_LEN) != NULL);
	}
	return 0;
}
