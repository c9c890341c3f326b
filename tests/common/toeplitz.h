/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Toeplitz hash (Microsoft RSS), for tests that predict which rx queue
 * a NIC's RSS puts a flow on. Header-only, no Criterion.
 */
#ifndef TESTS_COMMON_TOEPLITZ_H
#define TESTS_COMMON_TOEPLITZ_H

#include <stdint.h>

/** The Toeplitz hash of @p len bytes at @p in over @p key (at least
 * @p len + 4 bytes: the 40-byte RSS key covers inputs up to 36 bytes). */
static inline uint32_t toeplitz(const uint8_t *key, const uint8_t *in, unsigned len)
{
	uint32_t hash = 0, v = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];

	for (unsigned i = 0; i < len; i++) {
		for (int b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				hash ^= v;
			v <<= 1;
			if (key[i + 4] & (1u << b))
				v |= 1;
		}
	}
	return hash;
}

#endif /* TESTS_COMMON_TOEPLITZ_H */
