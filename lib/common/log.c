/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unic/log.h>

int unic_log_levels[UNIC_LOGC_COUNT] = {
	[0 ... UNIC_LOGC_COUNT - 1] = UNIC_LOG_INFO,
};

static const char *const comp_names[UNIC_LOGC_COUNT] = {
	[UNIC_LOGC_LOG] = "log",   [UNIC_LOGC_MEM] = "mem",
	[UNIC_LOGC_POOL] = "pool", [UNIC_LOGC_RING] = "ring",
	[UNIC_LOGC_ENV] = "env",   [UNIC_LOGC_BUS] = "bus",
	[UNIC_LOGC_PORT] = "port", [UNIC_LOGC_NAPI] = "napi",
	[UNIC_LOGC_PMD] = "pmd",   [UNIC_LOGC_APP] = "app",
	[UNIC_LOGC_TELEMETRY] = "telemetry",
};

static const char *const level_names[] = {
	[UNIC_LOG_ERR] = "error",  [UNIC_LOG_WARNING] = "warning",
	[UNIC_LOG_NOTICE] = "notice", [UNIC_LOG_INFO] = "info",
	[UNIC_LOG_DEBUG] = "debug",
};

static unic_log_sink_fn log_sink;
static void *log_sink_ctx;

const char *unic_log_comp_name(enum unic_log_comp comp)
{
	if ((unsigned)comp >= UNIC_LOGC_COUNT)
		return "?";
	return comp_names[comp];
}

const char *unic_log_level_name(enum unic_log_level level)
{
	if (level < UNIC_LOG_ERR || level > UNIC_LOG_DEBUG)
		return "?";
	return level_names[level];
}

void unic_log_set_sink(unic_log_sink_fn fn, void *ctx)
{
	log_sink_ctx = ctx;
	log_sink = fn;
}

void unic_vlog(enum unic_log_level level, enum unic_log_comp comp,
	       const char *fmt, va_list ap)
{
	char msg[1024];
	int n;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		return;
	/* Messages are single lines without their newline; drop a stray one. */
	n = (int)strnlen(msg, sizeof(msg));
	while (n > 0 && msg[n - 1] == '\n')
		msg[--n] = '\0';

	if (log_sink != NULL) {
		log_sink(log_sink_ctx, level, comp, msg);
		return;
	}
	/* One fprintf call so lines from two threads do not interleave. */
	fprintf(stderr, "unic %s: %s: %s\n", unic_log_comp_name(comp),
		unic_log_level_name(level), msg);
}

void unic_log(enum unic_log_level level, enum unic_log_comp comp,
	      const char *fmt, ...)
{
	va_list ap;

	if ((unsigned)comp >= UNIC_LOGC_COUNT || (int)level > unic_log_levels[comp])
		return;
	va_start(ap, fmt);
	unic_vlog(level, comp, fmt, ap);
	va_end(ap);
}

int unic_log_set_level(int comp, int level)
{
	int i;

	if (level < UNIC_LOG_ERR || level > UNIC_LOG_DEBUG)
		return -EINVAL;
	if (comp == -1) {
		for (i = 0; i < UNIC_LOGC_COUNT; i++)
			unic_log_levels[i] = level;
		return 0;
	}
	if (comp < 0 || comp >= UNIC_LOGC_COUNT)
		return -EINVAL;
	unic_log_levels[comp] = level;
	return 0;
}

int unic_log_get_level(enum unic_log_comp comp)
{
	if ((unsigned)comp >= UNIC_LOGC_COUNT)
		return -EINVAL;
	return unic_log_levels[comp];
}

static int parse_level(const char *s, size_t len)
{
	int i;

	if (len == 1 && s[0] >= '1' && s[0] <= '5')
		return s[0] - '0';
	for (i = UNIC_LOG_ERR; i <= UNIC_LOG_DEBUG; i++)
		if (strlen(level_names[i]) == len && strncasecmp(s, level_names[i], len) == 0)
			return i;
	/* Common spellings. */
	if (len == 3 && strncasecmp(s, "err", 3) == 0)
		return UNIC_LOG_ERR;
	if (len == 4 && strncasecmp(s, "warn", 4) == 0)
		return UNIC_LOG_WARNING;
	return -1;
}

static int parse_comp(const char *s, size_t len)
{
	int i;

	for (i = 0; i < UNIC_LOGC_COUNT; i++)
		if (strlen(comp_names[i]) == len && strncasecmp(s, comp_names[i], len) == 0)
			return i;
	return -1;
}

static const char spec_forms[] =
	"LEVEL or COMPONENT:LEVEL, comma-separated; LEVEL is error, warning, "
	"notice, info, debug or 1..5; COMPONENT is log, mem, pool, ring, env, "
	"bus, port, napi, pmd, app or telemetry";

int unic_log_parse_spec(const char *spec)
{
	int levels[UNIC_LOGC_COUNT];
	const char *p = spec;

	if (spec == NULL || *spec == '\0') {
		UNIC_LOG(ERR, LOG, "--log-level: expected %s; got an empty value", spec_forms);
		return -EINVAL;
	}
	memcpy(levels, unic_log_levels, sizeof(levels));
	while (*p != '\0') {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		const char *colon = memchr(p, ':', len);
		int lvl, comp, i;

		if (colon == NULL) {
			lvl = parse_level(p, len);
			comp = -1;
		} else {
			comp = parse_comp(p, (size_t)(colon - p));
			lvl = parse_level(colon + 1, len - (size_t)(colon - p) - 1);
		}
		if (lvl < 0 || (colon != NULL && comp < 0)) {
			UNIC_LOG(ERR, LOG, "--log-level: bad item '%.*s' in '%s'; expected %s",
				 (int)len, p, spec, spec_forms);
			return -EINVAL;
		}
		if (comp < 0)
			for (i = 0; i < UNIC_LOGC_COUNT; i++)
				levels[i] = lvl;
		else
			levels[comp] = lvl;
		p += len;
		if (*p == ',')
			p++;
	}
	memcpy(unic_log_levels, levels, sizeof(levels));
	return 0;
}
