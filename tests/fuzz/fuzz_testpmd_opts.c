/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for unic-testpmd's command-line options
 * (apps/testpmd/opts.c): the input is split into arguments at NUL bytes
 * and newlines, and parsed; the promises checked: a refusal says why and
 * names an option or argument, an accepted command line gives values in
 * their documented ranges.
 *
 * Inputs that name --eth-peers-configfile (or a prefix of it) are skipped:
 * the option reads a file, and a fuzzer should not open /dev/stdin.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
	if (!ok)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	char buf[2048], err[1024], *argv[65];
	struct tp_opts o;
	int argc = 1;
	size_t len = size < sizeof(buf) - 1 ? size : sizeof(buf) - 1;

	if (null == NULL)
		null = fopen("/dev/null", "w");
	memcpy(buf, data, len);
	buf[len] = '\0';
	argv[0] = "unic-testpmd";
	for (char *p = buf; argc < 64 && p < buf + len;) {
		char *e = p;

		while (e < buf + len && *e != '\0' && *e != '\n')
			e++;
		*e = '\0';
		if (strstr(p, "--eth-peers") || strstr(p, "--eth-p") == p)
			return 0;
		argv[argc++] = p;
		p = e + 1;
	}
	argv[argc] = NULL;
	err[0] = '\0';
	if (tp_opts_parse(&o, argc, argv, null, err, sizeof(err)) != 0) {
		check(err[0] != '\0');
		check(strstr(err, "option") != NULL || strstr(err, "argument") != NULL);
		return 0;
	}
	check(o.burst <= 256 && o.nbcore <= 64 && o.rxq <= 16 && o.txq <= 16);
	check(o.nb_txpkts <= TP_CMD_MAX_SIZES);
	check(o.nb_txpkts == 0 || o.txpkts[0] >= 42);
	check(o.max_pkt_len == 0 || (o.max_pkt_len >= 64 && o.max_pkt_len <= 65535));
	check(o.mbuf_size == 0 || (o.mbuf_size >= 192 && o.mbuf_size <= 65535));
	check(o.total_mbufs == 0 || o.total_mbufs > 1024);
	check(o.engine >= -1 && o.engine < 7 && o.mode >= -1 && o.mode < 3);
	check(o.topology <= TP_TOPO_LOOP && o.rss <= TP_RSS_OFF);
	return 0;
}
