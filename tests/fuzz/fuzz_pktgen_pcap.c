/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness: unic-pktgen's capture loader for --replay
 * (pg_capture_load_file, apps/pktgen/pcap_io.c) on arbitrary files, read
 * through libpcap from memory. A capture it accepts must hold what it says:
 * frames of 14..PG_REPLAY_FRAME_MAX bytes, back to back, the largest and the
 * MTU it needs where it says. And the frame limit holds: a capture that
 * loaded N frames is refused whole under a limit of N - 1, and loads the
 * same under a limit of N.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcap_io.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                      \
	do {                                                                          \
		if (!(c)) {                                                           \
			fprintf(stderr, "fuzz_pktgen_pcap: %s:%d: %s does not hold\n", \
				__FILE__, __LINE__, #c);                              \
			abort();                                                      \
		}                                                                     \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pg_capture c;
	char err[512] = "";
	uint64_t off = 0;
	uint32_t max = 0, mtu = 0;
	FILE *f;

	if (size == 0)
		return 0;   /* fmemopen refuses an empty buffer */
	f = fmemopen((void *)(uintptr_t)data, size, "rb");
	CHECK(f != NULL);
	if (pg_capture_load_file(&c, f, "fuzz", err, sizeof(err)) != 0) {
		CHECK(err[0] != '\0');
		CHECK(c.nb == 0 && c.data == NULL);
		return 0;
	}
	CHECK(c.nb > 0);
	for (uint32_t i = 0; i < c.nb; i++) {
		const uint8_t *d = c.data + c.off[i];
		uint32_t l3 = c.len[i] - 14;

		CHECK(c.len[i] >= 14 && c.len[i] <= PG_REPLAY_FRAME_MAX);
		CHECK(c.off[i] == off);
		off += c.len[i];
		if (c.len[i] >= 18 && d[12] == 0x81 && d[13] == 0)
			l3 -= 4;
		max = c.len[i] > max ? c.len[i] : max;
		mtu = l3 > mtu ? l3 : mtu;
	}
	CHECK(off == c.bytes);
	CHECK(max == c.max_len && c.len[c.max_len_idx] == max);
	CHECK(mtu == c.mtu_needed);
	if (c.nb > 1) {
		struct pg_capture d;
		uint32_t nb = c.nb;

		f = fmemopen((void *)(uintptr_t)data, size, "rb");
		CHECK(f != NULL);
		CHECK(pg_capture_load_file_limit(&d, f, "fuzz", nb - 1, err, sizeof(err)) == -EINVAL);
		CHECK(strstr(err, "holds more than") != NULL);
		CHECK(d.nb == 0 && d.data == NULL && d.off == NULL && d.len == NULL);
		f = fmemopen((void *)(uintptr_t)data, size, "rb");
		CHECK(f != NULL);
		CHECK(pg_capture_load_file_limit(&d, f, "fuzz", nb, err, sizeof(err)) == 0);
		CHECK(d.nb == nb && d.bytes == c.bytes && memcmp(d.data, c.data, c.bytes) == 0);
		pg_capture_free(&d);
	}
	pg_capture_free(&c);
	return 0;
}
