/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for unic-pktgen's stream file parser,
 * pg_stream_file_parse (apps/pktgen/stream.c): the input is a stream file.
 * Each answer is checked against the grammar written out plainly here:
 *
 * - a file is accepted only if every line, once '#' and what follows it and
 *   the blanks at its ends are gone, is empty or a stream; no NUL byte, no
 *   line over PG_STREAM_LINE_MAX; as many streams as such lines, at most
 *   the room given;
 * - a stream is items separated by ',', each KEY=VALUE with a known key
 *   given once, no blank inside, tx= and rx= among them;
 * - what it accepts is what pg_stream_parse makes of the line alone, and
 *   in range: ports 0..63, a known protocol, every size from the minimum
 *   for its headers (pg_frame_min_size_proto) to PG_SIZE_MAX, a share in
 *   0..100, address and port ranges of at least one;
 * - a refusal names the file and a line in the file, and leaves the
 *   streams already counted alone.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iapps/pktgen -Ibuild/lib/include -Ilib/include \
 *         tests/fuzz/fuzz_pktgen_streams.c apps/pktgen/stream.c apps/pktgen/pkt_build.c lib/net/cksum.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOM 8

#define CHECK(c)                                                                        \
	do {                                                                            \
		if (!(c)) {                                                             \
			fprintf(stderr, "fuzz_pktgen_streams: %s:%d: %s does not hold\n", \
				__FILE__, __LINE__, #c);                                \
			abort();                                                        \
		}                                                                       \
	} while (0)

static const char *const keys[] = {
	"tx", "rx", "size", "share", "proto", "l3", "vlan", "src-ip", "dst-ip", "src-port",
	"dst-port", "src-mac", "dst-mac",
};

/* The grammar of one stream's items, plainly (values are not judged). */
static int ref_items_ok(const char *s)
{
	unsigned seen = 0;
	const char *item = s;

	if (*s == '\0' || strpbrk(s, " \t\r"))
		return 0;
	for (;;) {
		const char *end = strchr(item, ','), *eq;
		size_t n = end ? (size_t)(end - item) : strlen(item), k;
		unsigned i;

		/* strtok skips empty items: ",," and a leading/trailing ',' */
		if (n == 0)
			goto next;
		eq = memchr(item, '=', n);
		if (eq == NULL || eq == item)
			return 0;
		k = (size_t)(eq - item);
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strlen(keys[i]) == k && memcmp(keys[i], item, k) == 0)
				break;
		if (i == sizeof(keys) / sizeof(keys[0]) || (seen & (1u << i)))
			return 0;
		seen |= 1u << i;
next:
		if (end == NULL)
			break;
		item = end + 1;
	}
	return (seen & 3) == 3;
}

static void check_spec(const struct pg_stream_spec *s)
{
	unsigned min = pg_frame_min_size_proto(s->ipv6, s->vlan, s->proto);

	CHECK(s->tx_port >= 0 && s->tx_port < 64 && s->rx_port >= 0 && s->rx_port < 64);
	CHECK(s->proto < PG_PROTO_NB);
	CHECK(s->nb_sizes <= PG_MAX_SIZES);
	if (s->nb_sizes == 0)
		CHECK(s->size_lo >= min && s->size_lo <= s->size_hi && s->size_hi <= PG_SIZE_MAX);
	for (unsigned i = 0; i < s->nb_sizes; i++)
		CHECK(s->sizes[i] >= min && s->sizes[i] <= PG_SIZE_MAX);
	CHECK(s->share >= 0 && s->share <= 100);
	CHECK(s->src_ip.count >= 1 && s->dst_ip.count >= 1);
	CHECK(s->src_port.count >= 1 && s->src_port.lo + s->src_port.count - 1 <= 65535);
	CHECK(s->dst_port.count >= 1 && s->dst_port.lo + s->dst_port.count - 1 <= 65535);
	CHECK(!(s->proto == PG_PROTO_ICMP && (s->src_port.count != 1 || s->dst_port.count != 1)));
	CHECK(s->vid <= 4095);
}

/* Field by field (a struct copy need not copy padding). */
static int same_spec(const struct pg_stream_spec *a, const struct pg_stream_spec *b)
{
	return a->tx_port == b->tx_port && a->rx_port == b->rx_port && a->nb_sizes == b->nb_sizes &&
	       memcmp(a->sizes, b->sizes, sizeof(a->sizes)) == 0 && a->size_lo == b->size_lo &&
	       a->size_hi == b->size_hi && a->imix == b->imix && a->share == b->share &&
	       a->ipv6 == b->ipv6 && a->vlan == b->vlan && a->vid == b->vid && a->proto == b->proto &&
	       memcmp(a->src_ip.lo, b->src_ip.lo, 16) == 0 && a->src_ip.count == b->src_ip.count &&
	       memcmp(a->dst_ip.lo, b->dst_ip.lo, 16) == 0 && a->dst_ip.count == b->dst_ip.count &&
	       a->src_port.lo == b->src_port.lo && a->src_port.count == b->src_port.count &&
	       a->dst_port.lo == b->dst_port.lo && a->dst_port.count == b->dst_port.count &&
	       a->src_mac_given == b->src_mac_given && a->dst_mac_given == b->dst_mac_given &&
	       memcmp(a->src_mac, b->src_mac, 6) == 0 && memcmp(a->dst_mac, b->dst_mac, 6) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct pg_stream_spec out[ROOM], one;
	static char err[2048], err2[2048], line[PG_STREAM_LINE_MAX + 2];
	const char *text = (const char *)data;
	unsigned nb = 1, want = 1, lines = 0;
	size_t pos = 0;
	int rc, ref_ok = 1;

	memset(&out[0], 0x5a, sizeof(out[0]));  /* a stream counted before: must stay */
	err[0] = '\0';
	rc = pg_stream_file_parse(text, size, "f", out, ROOM, &nb, err, sizeof(err));
	CHECK(rc == 0 || rc == -22);
	/* The reference: line by line. */
	while (pos < size && ref_ok) {
		size_t end = pos, n, a, b;
		char *hash;

		while (end < size && text[end] != '\n')
			end++;
		n = end - pos;
		lines++;
		if (memchr(text + pos, '\0', n) || n > PG_STREAM_LINE_MAX) {
			ref_ok = 0;
			break;
		}
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos = end + 1;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		for (a = 0; line[a] == ' ' || line[a] == '\t'; a++)
			;
		for (b = strlen(line); b > a && strchr(" \t\r", line[b - 1]); b--)
			;
		line[b] = '\0';
		if (a == b)
			continue;
		if (!ref_items_ok(line + a) || want >= ROOM) {
			ref_ok = 0;
			break;
		}
		/* The values: pg_stream_parse on the line alone decides; the
		 * file must agree with it. */
		if (pg_stream_parse(line + a, &one, "l", err2, sizeof(err2)) != 0) {
			ref_ok = 0;
			break;
		}
		check_spec(&one);
		if (rc == 0)
			CHECK(same_spec(&one, &out[want]));
		want++;
	}
	{
		unsigned char z[sizeof(out[0])];

		memset(z, 0x5a, sizeof(z));
		CHECK(memcmp(&out[0], z, sizeof(z)) == 0);
	}
	if (rc == 0) {
		CHECK(ref_ok);
		CHECK(nb == want);
	} else {
		CHECK(!ref_ok);
		CHECK(strncmp(err, "stream file 'f' line ", 21) == 0);
		CHECK(strtoul(err + 21, NULL, 10) >= 1 && strtoul(err + 21, NULL, 10) <= lines + 1);
		CHECK(nb <= want);
	}
	return 0;
}
