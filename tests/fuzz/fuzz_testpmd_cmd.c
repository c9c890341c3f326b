/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for unic-testpmd's command parser (apps/testpmd/cmd.c):
 * parse, help, completion and the RSS argument parsers on arbitrary bytes, with the parser's promises
 * checked (a parsed command names a table entry, its words point into the
 * command's own buffers, a refused line always says why).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iapps/testpmd -Iapps/common \
 *         tests/fuzz/fuzz_testpmd_cmd.c apps/testpmd/cmd.c apps/testpmd/cmd_refused.c \
 *         apps/common/app_opts.c -o fuzz_testpmd_cmd
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
	} else if (rc == TP_PARSE_ERROR) {
		check(err[0] != '\0');
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
