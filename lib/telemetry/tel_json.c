/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The answer buffer and the request parser: no socket, no thread, so the
 * unit tests and the fuzz harness (tests/fuzz/fuzz_telemetry_req.c) take
 * them alone.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tel_priv.h"

void tel_out_init(struct unic_tel_out *o, char *buf, size_t cap)
{
	memset(o, 0, sizeof(*o));
	o->buf = buf;
	o->cap = cap;
	if (cap)
		buf[0] = '\0';
}

static void tel_out_vprintf(struct unic_tel_out *o, const char *fmt, va_list ap)
{
	size_t room;
	int n;

	if (o->overflow || o->cap == 0) {
		o->overflow = true;
		return;
	}
	room = o->cap - o->len;
	n = vsnprintf(o->buf + o->len, room, fmt, ap);
	if (n < 0 || (size_t)n >= room) {
		o->overflow = true;
		o->buf[o->len] = '\0';
		return;
	}
	o->len += (size_t)n;
}

void unic_tel_out_printf(struct unic_tel_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tel_out_vprintf(o, fmt, ap);
	va_end(ap);
}

static void tel_out_putc(struct unic_tel_out *o, char c)
{
	if (o->overflow || o->len + 1 >= o->cap) {
		o->overflow = true;
		return;
	}
	o->buf[o->len++] = c;
	o->buf[o->len] = '\0';
}

void unic_tel_out_str(struct unic_tel_out *o, const char *s)
{
	tel_out_putc(o, '"');
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '"' || *p == '\\') {
			tel_out_putc(o, '\\');
			tel_out_putc(o, (char)*p);
		} else if (*p < 0x20 || *p == 0x7f) {
			unic_tel_out_printf(o, "\\u%04x", *p);
		} else {
			tel_out_putc(o, (char)*p);
		}
	}
	tel_out_putc(o, '"');
}

void unic_tel_out_error(struct unic_tel_out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->err, sizeof(o->err), fmt, ap);
	va_end(ap);
	o->has_err = true;
}

bool tel_cmd_valid(const char *cmd)
{
	size_t len = strlen(cmd);

	if (len == 0 || len > UNIC_TELEMETRY_CMD_MAX || cmd[0] != '/')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = cmd[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '/'))
			return false;
	}
	return true;
}

int tel_parse(const char *req, size_t len, char *cmd, char *param, char *err, size_t errlen)
{
	size_t clen;
	const char *comma;

	cmd[0] = param[0] = '\0';
	if (len > UNIC_TELEMETRY_REQ_MAX) {
		snprintf(err, errlen, "request of %zu bytes; the limit is %u", len,
			 UNIC_TELEMETRY_REQ_MAX);
		return -EINVAL;
	}
	if (len > 0 && req[len - 1] == '\n')
		len--;
	if (len > 0 && req[len - 1] == '\r')
		len--;
	if (len == 0) {
		snprintf(err, errlen, "empty request; send a command such as /ports/list ('/' lists them)");
		return -EINVAL;
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)req[i];

		if (c < 0x20 || c >= 0x7f) {
			snprintf(err, errlen, "byte 0x%02x at offset %zu of the request; expected printable ASCII",
				 c, i);
			return -EINVAL;
		}
	}
	comma = memchr(req, ',', len);
	clen = comma ? (size_t)(comma - req) : len;
	if (clen > UNIC_TELEMETRY_CMD_MAX) {
		snprintf(err, errlen, "command of %zu bytes; the longest is %u", clen,
			 UNIC_TELEMETRY_CMD_MAX);
		return -EINVAL;
	}
	memcpy(cmd, req, clen);
	cmd[clen] = '\0';
	if (!tel_cmd_valid(cmd)) {
		char shown[UNIC_TELEMETRY_CMD_MAX + 1];
		size_t j = 0;

		/* Quote it without what would break the JSON string. */
		for (size_t i = 0; i < clen; i++)
			if (cmd[i] != '"' && cmd[i] != '\\')
				shown[j++] = cmd[i];
		shown[j] = '\0';
		snprintf(err, errlen, "bad command '%s'; a command starts with '/' and has letters, digits, '_' and '/' ('/' lists them)",
			 shown);
		cmd[0] = '\0';
		return -EINVAL;
	}
	if (comma) {
		memcpy(param, comma + 1, len - clen - 1);
		param[len - clen - 1] = '\0';
	}
	return 0;
}

int tel_param_id(const char *cmd, const char *param, unsigned long max, unsigned long *id,
		 struct unic_tel_out *out)
{
	char *end;
	unsigned long v;

	if (param[0] < '0' || param[0] > '9') {
		unic_tel_out_error(out, "%s needs a number: %s,N (got '%.32s')", cmd, cmd, param);
		return -EINVAL;
	}
	errno = 0;
	v = strtoul(param, &end, 10);
	if (errno || *end != '\0' || v > max) {
		unic_tel_out_error(out, "%s: bad number '%.32s'; expected 0 to %lu", cmd, param, max);
		return -EINVAL;
	}
	*id = v;
	return 0;
}
