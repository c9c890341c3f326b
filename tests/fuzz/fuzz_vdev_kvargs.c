/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the --vdev spec's argument parser (lib/port/kvargs.c):
 * the input is a spec, NAME[,key=value...]; the arguments after the first
 * comma go through unic_kvargs_syntax, unic_kvargs_check (keys size and
 * peer), unic_kvargs_get and unic_kvargs_u32 (size in 1..9216), and each
 * answer is checked against the grammar written out plainly here:
 *
 * - syntax accepts only non-empty items, each KEY=VALUE with a non-empty
 *   KEY, each key once; it refuses anything else, with a message;
 * - check accepts only what syntax accepts (less the duplicate rule) with
 *   known keys;
 * - u32 accepts only decimal digits, or 0x and hex digits, whose value is in
 *   range, and stores exactly that value; a refusal leaves *out alone and
 *   says why;
 * - unic_vdev_alias (DPDK's names, net_null0 ...) answers 0 for a name that
 *   is not DPDK's and writes nothing; for DPDK's, 1 with unic's driver and
 *   the arguments less the DPDK-only keys whose value is unic's own
 *   behaviour, or -EINVAL with a message when such a key asks for anything
 *   else or the output buffer is too small (never written past).
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ibuild/lib/include -Ilib/include \
 *         -Ilib/internal -Ilib \
 *         tests/fuzz/fuzz_vdev_kvargs.c lib/port/kvargs.c lib/common/log.c -o fuzz_vdev_kvargs
 *   ./fuzz_vdev_kvargs -max_total_time=60
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unic/log.h>

#include "unic_port_driver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SPEC_MAX 512

static unsigned messages;

static void sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg)
{
	(void)ctx;
	(void)level;
	(void)comp;
	if (msg[0] != '\0')
		messages++;
}

static void check(bool ok)
{
	if (!ok)
		abort();
}

/* The grammar, plainly: 1 well-formed (no duplicate), 0 not. */
static bool ref_items(const char *args, bool allow_dup, bool known_only)
{
	static const char *const keys[] = { "size", "peer" };
	const char *item = args;

	if (*args == '\0')
		return true;
	for (;;) {
		const char *end = strchr(item, ',');
		size_t len = end ? (size_t)(end - item) : strlen(item);
		const char *eq = memchr(item, '=', len);
		size_t klen = eq ? (size_t)(eq - item) : 0;

		if (len == 0 || klen == 0)
			return false;
		if (known_only) {
			bool known = false;

			for (unsigned i = 0; i < 2; i++)
				known |= strlen(keys[i]) == klen && memcmp(keys[i], item, klen) == 0;
			if (!known)
				return false;
		}
		if (!allow_dup) {
			for (const char *o = args; o < item;) {
				const char *oe = strchr(o, ',');
				const char *oeq = memchr(o, '=', (size_t)(oe - o));

				if (oeq != NULL && (size_t)(oeq - o) == klen && memcmp(o, item, klen) == 0)
					return false;
				o = oe + 1;
			}
		}
		if (end == NULL)
			return true;
		item = end + 1;
	}
}

/* Decimal, or 0x + hex, of @p len bytes: its value, or -1 (malformed), -2 (> 2^32). */
static int64_t ref_number(const char *s, size_t len)
{
	bool hex = len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	size_t i = hex ? 2 : 0;
	bool big = false;
	uint64_t v = 0;

	if (i == len)
		return -1;
	for (; i < len; i++) {
		char c = s[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (hex && c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (hex && c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -1;
		v = v * (hex ? 16 : 10) + d;
		if (v > UINT32_MAX)
			big = true, v = UINT32_MAX + 1ull;
	}
	return big ? -2 : (int64_t)v;
}

/* DPDK's names and the keys unic drops (value "0") or refuses, plainly. */
static const struct {
	const char *dpdk, *unic;
	const char *keys[3];  /* DPDK-only keys */
	bool droppable;       /* key=0 is dropped; else always refused */
} aliases[] = {
	{ "net_null", "null", { "copy", "no-rx", NULL }, true },
	{ "net_ring", "ring", { "nodeaction", NULL, NULL }, false },
	{ "net_af_xdp", "af_xdp", { "shared_umem", NULL, NULL }, true },
	{ "net_af_packet", "af_packet", { NULL, NULL, NULL }, false },
	{ "net_memif", "memif", { NULL, NULL, NULL }, false },
};

/*
 * What unic_vdev_alias should give for alias @p a: @return 1 and the
 * arguments in @p want, or -EINVAL (a DPDK-only key it cannot honour).
 */
static int ref_alias(unsigned a, const char *args, char *want)
{
	const char *item = args;
	size_t off = 0;

	want[0] = '\0';
	if (*args == '\0')
		return 1;
	for (;;) {
		const char *end = strchr(item, ',');
		size_t len = end ? (size_t)(end - item) : strlen(item);
		bool drop = false;

		for (unsigned k = 0; aliases[a].keys[k]; k++) {
			size_t kl = strlen(aliases[a].keys[k]);

			if (len > kl && memcmp(item, aliases[a].keys[k], kl) == 0 && item[kl] == '=') {
				if (!aliases[a].droppable || len != kl + 2 || item[kl + 1] != '0')
					return -EINVAL;
				drop = true;
			}
		}
		if (!drop) {
			if (off)
				want[off++] = ',';
			memcpy(want + off, item, len);
			off += len;
			want[off] = '\0';
		}
		if (end == NULL)
			return 1;
		item = end + 1;
	}
}

static void check_alias(const char *spec, const char *args)
{
	char drv[SPEC_MAX + 1], out[SPEC_MAX + 2], want[SPEC_MAX + 1];
	size_t dlen = strcspn(spec, ","), alen = strlen(args);
	const char *udrv = "none";
	unsigned before, a;
	int rc, ref;

	memcpy(drv, spec, dlen);
	while (dlen > 0 && drv[dlen - 1] >= '0' && drv[dlen - 1] <= '9')
		dlen--;
	drv[dlen] = '\0';
	for (a = 0; a < sizeof(aliases) / sizeof(aliases[0]); a++)
		if (strcmp(drv, aliases[a].dpdk) == 0)
			break;
	/* A guard byte after the buffer: never written. */
	memset(out, 'Z', sizeof(out));
	before = messages;
	rc = unic_vdev_alias(spec, drv, args, &udrv, out, alen + 1);
	check(out[alen + 1] == 'Z');
	if (a == sizeof(aliases) / sizeof(aliases[0])) {
		check(rc == 0 && strcmp(udrv, "none") == 0 && out[0] == 'Z');
		return;
	}
	ref = ref_alias(a, args, want);
	check(rc == ref);
	if (rc == 1)
		check(strcmp(udrv, aliases[a].unic) == 0 && strcmp(out, want) == 0);
	else
		check(messages > before);
	/* One byte short: refused, nothing past the buffer. */
	memset(out, 'Z', sizeof(out));
	before = messages;
	rc = unic_vdev_alias(spec, drv, args, &udrv, out, alen);
	check(rc == -EINVAL && messages > before && (alen == 0 || out[alen] == 'Z'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "size", "peer", NULL };
	char spec[SPEC_MAX + 1];
	const char *comma, *args, *v;
	size_t len = size < SPEC_MAX ? size : SPEC_MAX;
	uint32_t x = 0xdeadbeef;
	unsigned before;
	int rc, vlen;

	unic_log_set_sink(sink, NULL);
	memcpy(spec, data, len);
	spec[len] = '\0';
	comma = strchr(spec, ',');
	args = comma != NULL ? comma + 1 : "";

	before = messages;
	rc = unic_kvargs_syntax(spec, comma != NULL ? args : NULL);
	check(rc == 0 || rc == -EINVAL);
	check((rc == 0) == (ref_items(args, false, false) && !(comma != NULL && *args == '\0')));
	check(rc == 0 || messages > before);

	before = messages;
	rc = unic_kvargs_check("null", args, keys);
	check(rc == 0 || rc == -EINVAL);
	check((rc == 0) == ref_items(args, true, true));
	check(rc == 0 || messages > before);

	vlen = unic_kvargs_get(args, "size", &v);
	check(vlen == -ENOENT || (vlen >= 0 && v >= args && v + vlen <= args + strlen(args) &&
				  memcmp(v - 5, "size=", 5) == 0 && (v[vlen] == ',' || v[vlen] == '\0')));

	before = messages;
	rc = unic_kvargs_u32("null", args, "size", 1, 9216, &x);
	if (vlen == -ENOENT) {
		check(rc == -ENOENT && x == 0xdeadbeef);
	} else {
		int64_t want = ref_number(v, (size_t)vlen);

		if (want >= 1 && want <= 9216) {
			check(rc == 0 && x == (uint32_t)want);
		} else {
			check(rc == -EINVAL && x == 0xdeadbeef);
			check(messages > before);
		}
	}
	check_alias(spec, args);
	return 0;
}
