/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/telemetry's own: the answer buffer, the request parser (pure, for the
 * fuzz harness), and the built-in commands (tel_cmds.c).
 */
#ifndef TEL_PRIV_H
#define TEL_PRIV_H

#include <stdbool.h>
#include <stddef.h>

#include <unic/telemetry.h>

struct unic_tel_out {
	char *buf;
	size_t len;          /* bytes written, without the NUL */
	size_t cap;          /* bytes of buf, the NUL included */
	bool overflow;       /* something did not fit: the answer is refused */
	bool has_err;
	char err[256];
};

/* Start an empty answer in @p buf of @p cap bytes. */
void tel_out_init(struct unic_tel_out *o, char *buf, size_t cap);

/*
 * Split a request of @p len bytes (not terminated) into its command and
 * parameter, both NUL-terminated: cmd of up to UNIC_TELEMETRY_CMD_MAX bytes,
 * param of up to UNIC_TELEMETRY_REQ_MAX. One trailing "\n" (or "\r\n") is
 * ignored. @return 0, or -EINVAL with a sentence in @p err naming what was
 * wrong (empty, too long, a byte that is not printable ASCII, a command
 * that does not start with '/' or has a character outside [A-Za-z0-9_/]).
 */
int tel_parse(const char *req, size_t len, char *cmd, char *param, char *err, size_t errlen);

/* Is @p cmd a well-formed command name? */
bool tel_cmd_valid(const char *cmd);

/* Register the built-in commands (tel_cmds.c). @return 0 or -errno. */
int tel_cmds_register(struct unic_telemetry *tel);

/* Parse a decimal id of at most @p max. @return 0 or -EINVAL (message in out). */
int tel_param_id(const char *cmd, const char *param, unsigned long max, unsigned long *id,
		 struct unic_tel_out *out);

#endif /* TEL_PRIV_H */
