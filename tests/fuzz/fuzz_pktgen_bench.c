/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for unic-pktgen's benchmark options: --sweep RATES
 * (pg_sweep_parse, apps/pktgen/sweep.c), a rate (pg_rate_parse, rate.c),
 * --rfc2544 MODE (pg_rfc2544_mode_parse) and --frame-sizes
 * (pg_frame_sizes_parse, rfc2544.c). The input's first byte picks the
 * parser, the rest is the option's value (a NUL in it ends it, as on a
 * command line). Each answer is checked against what the options promise:
 *
 * - a rate is accepted only in one of its units, finite, above 0 and inside
 *   the unit's limits (rate.h: PG_RATE_*_MIN/MAX, a percentage up to 100);
 * - a sweep is accepted only as a list of such rates (each what
 *   pg_rate_parse makes of its item alone, in order, at most the room; units
 *   may differ, as each step is turned into frames a second) or as
 *   START:STOP:STEPS[:lin|log] with STEPS in 2..room, both ends in one unit,
 *   STOP above START: then STEPS rates of that unit, the first START, the
 *   last exactly STOP, never decreasing, each inside the unit's limits;
 * - an RFC 2544 mode is ndr (no loss), pdr, or pdr:LOSS with 0 < LOSS < 1;
 * - frame sizes are at most the room, each 64..PG_SIZE_MAX + 4;
 * - every refusal writes a message naming its option, NUL-terminated
 *   inside the buffer given.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iapps/pktgen -Iapps/common -Ibuild/lib/include \
 *         -Ilib/include tests/fuzz/fuzz_pktgen_bench.c apps/pktgen/sweep.c apps/pktgen/rate.c \
 *         apps/pktgen/rfc2544.c apps/pktgen/trial.c apps/common/app_opts.c -lm
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkt_build.h"
#include "rate.h"
#include "rfc2544.h"
#include "sweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROOM 16
#define ERRLEN 200

#define CHECK(c)                                                                       \
	do {                                                                           \
		if (!(c)) {                                                            \
			fprintf(stderr, "fuzz_pktgen_bench: %s:%d: %s does not hold\n", \
				__FILE__, __LINE__, #c);                               \
			abort();                                                       \
		}                                                                      \
	} while (0)

static void check_rate(const struct pg_rate_spec *r)
{
	CHECK(isfinite(r->value) && r->value > 0);
	switch (r->unit) {
	case PG_RATE_PPS:
		CHECK(r->value >= PG_RATE_PPS_MIN && r->value <= PG_RATE_PPS_MAX);
		break;
	case PG_RATE_BPS_L2:
	case PG_RATE_BPS_WIRE:
		CHECK(r->value >= PG_RATE_BPS_MIN && r->value <= PG_RATE_BPS_MAX);
		break;
	case PG_RATE_PCT:
		CHECK(r->value <= 100);
		break;
	default:
		CHECK(!"a rate in no unit");
	}
}

/* The message of a refusal: written, ended inside the buffer, naming @p opt. */
static void check_err(const char *err, const char *opt)
{
	CHECK(memchr(err, '\0', ERRLEN) != NULL);
	CHECK(err[0] != '\0');
	CHECK(strstr(err, opt) != NULL);
}

static void fuzz_sweep(const char *s)
{
	struct pg_rate_spec out[ROOM], one;
	char err[ERRLEN], why[ERRLEN];
	unsigned n = 0;
	int rc;

	memset(err, 'x', sizeof(err));
	rc = pg_sweep_parse(s, out, ROOM, &n, err, sizeof(err));
	if (rc != 0) {
		CHECK(rc < 0);
		check_err(err, "--sweep");
		return;
	}
	CHECK(n >= 1 && n <= ROOM);
	for (unsigned i = 0; i < n; i++)
		check_rate(&out[i]);
	if (strchr(s, ':') == NULL) {
		/* A list: each item is what the rate parser makes of it alone. */
		char buf[1024], *save = NULL, *t;
		unsigned i = 0;

		CHECK(strlen(s) < sizeof(buf));
		CHECK(s[0] != ',' && s[strlen(s) - 1] != ',' && strstr(s, ",,") == NULL);
		snprintf(buf, sizeof(buf), "%s", s);
		for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save), i++) {
			CHECK(i < n);
			CHECK(pg_rate_parse(t, &one, why, sizeof(why)) == 0);
			CHECK(one.unit == out[i].unit && one.value == out[i].value);
		}
		CHECK(i == n);
		return;
	}
	/* START:STOP:STEPS[:lin|log] */
	CHECK(n >= 2);
	for (unsigned i = 1; i < n; i++)
		CHECK(out[i].unit == out[0].unit && out[i].value >= out[i - 1].value);
	CHECK(out[n - 1].value > out[0].value);
	{
		char buf[1024], *stop;

		snprintf(buf, sizeof(buf), "%s", s);
		stop = strchr(buf, ':');
		CHECK(stop != NULL);
		*stop++ = '\0';
		CHECK(pg_rate_parse(buf, &one, why, sizeof(why)) == 0);
		CHECK(one.unit == out[0].unit && one.value == out[0].value);
		*strchr(stop, ':') = '\0';
		CHECK(pg_rate_parse(stop, &one, why, sizeof(why)) == 0);
		CHECK(one.unit == out[n - 1].unit && one.value == out[n - 1].value);
	}
}

static void fuzz_rate(const char *s)
{
	struct pg_rate_spec r;
	char err[ERRLEN];
	int rc;

	memset(err, 'x', sizeof(err));
	rc = pg_rate_parse(s, &r, err, sizeof(err));
	if (rc != 0) {
		CHECK(rc < 0);
		check_err(err, "--rate");
		return;
	}
	check_rate(&r);
}

static void fuzz_mode(const char *s)
{
	enum pg_rfc2544_mode mode;
	double tol = -1;
	char err[ERRLEN];
	int rc;

	memset(err, 'x', sizeof(err));
	rc = pg_rfc2544_mode_parse(s, &mode, &tol, err, sizeof(err));
	if (rc != 0) {
		CHECK(rc < 0);
		check_err(err, "--rfc2544");
		return;
	}
	if (strcmp(s, "ndr") == 0) {
		CHECK(mode == PG_RFC2544_NDR && tol == 0);
		return;
	}
	CHECK(strncmp(s, "pdr", 3) == 0);
	CHECK(mode == PG_RFC2544_PDR && tol > 0 && tol < 1);
}

static void fuzz_sizes(const char *s)
{
	unsigned out[ROOM], n = 0;
	char err[ERRLEN];
	int rc;

	memset(err, 'x', sizeof(err));
	rc = pg_frame_sizes_parse(s, out, ROOM, &n, err, sizeof(err));
	if (rc != 0) {
		CHECK(rc < 0);
		check_err(err, "--frame-sizes");
		return;
	}
	CHECK(n >= 1 && n <= ROOM);
	for (unsigned i = 0; i < n; i++)
		CHECK(out[i] >= PG_SIZE_MIN + PG_FCS_LEN && out[i] <= PG_SIZE_MAX + PG_FCS_LEN);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 2048)
		return 0;
	s = malloc(size);
	if (s == NULL)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	switch (data[0] & 3) {
	case 0: fuzz_sweep(s); break;
	case 1: fuzz_rate(s); break;
	case 2: fuzz_mode(s); break;
	default: fuzz_sizes(s); break;
	}
	free(s);
	return 0;
}
