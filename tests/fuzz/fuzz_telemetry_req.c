/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the telemetry request parser and the answer's JSON
 * strings (lib/telemetry/tel_json.c): the input is a request as a client
 * sends it, any bytes, any length.
 *
 * - tel_parse accepts only a request of at most UNIC_TELEMETRY_REQ_MAX
 *   bytes, printable ASCII but for one trailing "\n" or "\r\n", whose
 *   command (up to the first comma) starts with '/', has only letters,
 *   digits, '_' and '/', and at most UNIC_TELEMETRY_CMD_MAX bytes; then the
 *   command and the parameter put back together are the request. A refusal
 *   always says why.
 * - unic_tel_out_str writes any string as a JSON string that decodes back
 *   to it (quotes and backslashes escaped, control bytes as \uXXXX), or
 *   marks the answer overflowed, never past its buffer.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ibuild/lib/include -Ilib/include \
 *         -Ilib/internal -Ilib tests/fuzz/fuzz_telemetry_req.c lib/telemetry/tel_json.c \
 *         -o fuzz_telemetry_req
 *   ./fuzz_telemetry_req -max_total_time=60 tests/fuzz/corpus/fuzz_telemetry_req
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/telemetry/tel_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* What the parser must say, written out plainly. */
static bool expect_ok(const char *r, size_t n)
{
	size_t clen;
	const char *comma;

	if (n > UNIC_TELEMETRY_REQ_MAX)
		return false;
	if (n && r[n - 1] == '\n')
		n--;
	if (n && r[n - 1] == '\r')
		n--;
	if (n == 0 || !printable(r, n) || r[0] != '/')
		return false;
	comma = memchr(r, ',', n);
	clen = comma ? (size_t)(comma - r) : n;
	if (clen > UNIC_TELEMETRY_CMD_MAX)
		return false;
	for (size_t i = 0; i < clen; i++) {
		char c = r[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '/'))
			return false;
	}
	return true;
}

/* Decode the JSON string at @p s (quotes included) into @p out. */
static bool json_decode(const char *s, size_t len, char *out, size_t *outlen)
{
	size_t o = 0;

	if (len < 2 || s[0] != '"' || s[len - 1] != '"')
		return false;
	for (size_t i = 1; i < len - 1; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == '"')
			return false;            /* raw control byte or bare quote */
		if (c != '\\') {
			out[o++] = (char)c;
			continue;
		}
		if (++i >= len - 1)
			return false;
		if (s[i] == '"' || s[i] == '\\') {
			out[o++] = s[i];
		} else if (s[i] == 'u' && i + 4 < len - 1) {
			char hex[5] = { s[i + 1], s[i + 2], s[i + 3], s[i + 4], 0 };

			out[o++] = (char)strtoul(hex, NULL, 16);
			i += 4;
		} else {
			return false;
		}
	}
	*outlen = o;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char cmd[UNIC_TELEMETRY_CMD_MAX + 1], param[UNIC_TELEMETRY_REQ_MAX + 1], err[320];
	const char *req = (const char *)data;
	bool ok = expect_ok(req, size);
	int rc;

	memset(err, 0, sizeof(err));
	rc = tel_parse(req, size, cmd, param, err, sizeof(err));
	if ((rc == 0) != ok) {
		fprintf(stderr, "tel_parse %s a request the grammar %s: %.*s\n", rc == 0 ? "accepted" : "refused",
			ok ? "accepts" : "refuses", (int)(size > 80 ? 80 : size), req);
		abort();
	}
	if (rc != 0 && err[0] == '\0') {
		fprintf(stderr, "a refusal without a reason\n");
		abort();
	}
	if (rc == 0) {
		size_t n = size, cl = strlen(cmd), pl = strlen(param);

		if (n && req[n - 1] == '\n')
			n--;
		if (n && req[n - 1] == '\r')
			n--;
		/* cmd [, param] is the request again. */
		if (!tel_cmd_valid(cmd) || memcmp(req, cmd, cl) != 0 ||
		    (cl < n && (req[cl] != ',' || pl != n - cl - 1 || memcmp(req + cl + 1, param, pl) != 0)) ||
		    (cl == n && pl != 0)) {
			fprintf(stderr, "command '%s' and parameter '%s' are not the request\n", cmd, param);
			abort();
		}
	}

	/* The input (up to its first NUL) as a JSON string, in a buffer of a
	 * size the input picks: decodes back to it, or overflowed. */
	{
		char *s = malloc(size + 1), *buf, *dec;
		size_t cap = size ? (data[0] % 64) * 8 + 1 : 1, slen, dlen = 0;
		struct unic_tel_out o;

		memcpy(s, data, size);
		s[size] = '\0';
		slen = strlen(s);
		buf = malloc(cap);
		dec = malloc(slen + 1);
		tel_out_init(&o, buf, cap);
		unic_tel_out_str(&o, s);
		if (o.len >= cap || buf[o.len] != '\0') {
			fprintf(stderr, "the answer ran past its buffer\n");
			abort();
		}
		if (!o.overflow && (!json_decode(buf, o.len, dec, &dlen) || dlen != slen ||
				    memcmp(dec, s, slen) != 0)) {
			fprintf(stderr, "not a JSON string of the input: %s\n", buf);
			abort();
		}
		free(s);
		free(buf);
		free(dec);
	}
	return 0;
}
