/* SPDX-License-Identifier: BSD-3-Clause */
/* Option helpers shared by the applications. */
#ifndef UNIC_APP_OPTS_H
#define UNIC_APP_OPTS_H

#include <stddef.h>
#include <stdint.h>

/**
 * Parse @p v, option @p opt's value, as an unsigned decimal in [min, max].
 * @return 0 and *out, or -EINVAL with a message in @p err naming the option,
 *         the value and the accepted range.
 */
int app_parse_u64(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out,
		  char *err, size_t errlen);

/** The value of one hex digit (0-9, a-f, A-F), or -1 for any other character. */
int app_hexval(char c);

/**
 * Parse a MAC address written as six two-digit hex bytes separated by ':'
 * or '-' (02:00:00:00:00:01), into @p mac; @p mac is left alone on an error.
 * @return 0, or -EINVAL.
 */
int app_parse_mac(const char *v, uint8_t mac[6]);

#endif /* UNIC_APP_OPTS_H */
