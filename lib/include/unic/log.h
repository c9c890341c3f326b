/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Logging with levels and components.
 *
 * One macro, UNIC_LOG(level, component, fmt, ...), prints
 * "unic <component>: <level>: <message>" to stderr, or hands the formatted
 * message to a sink the application installs. Levels are set per component
 * with unic_log_set_level() or with an option spec such as
 * "info,mem:debug,pmd:warning" (unic_log_parse_spec(), used by --log-level).
 *
 * UNIC_LOG_DP() is for the fast path (rx/tx burst, the napi loop): it
 * compiles to nothing unless the build sets -Dlog_datapath=true.
 *
 * The log state is process-wide, as stderr is; everything else in unic lives
 * in explicit objects.
 */
#ifndef UNIC_LOG_H
#define UNIC_LOG_H

#include <stdarg.h>
#include <unic/common.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

/** Message levels, most severe first; a component logs its level and above. */
enum unic_log_level {
	UNIC_LOG_ERR = 1,     /**< an operation failed */
	UNIC_LOG_WARNING = 2, /**< something is wrong and the library goes on */
	UNIC_LOG_NOTICE = 3,  /**< worth knowing, not wrong */
	UNIC_LOG_INFO = 4,    /**< what was set up (the default level) */
	UNIC_LOG_DEBUG = 5,   /**< detail for debugging */
};

/** Log components: each has its own level (--log-level "info,mem:debug"). */
enum unic_log_comp {
	UNIC_LOGC_LOG,   /**< the logger itself */
	UNIC_LOGC_MEM,   /**< lib/mem */
	UNIC_LOGC_POOL,  /**< lib/pool */
	UNIC_LOGC_RING,  /**< lib/ring */
	UNIC_LOGC_ENV,   /**< lib/env: options, threads */
	UNIC_LOGC_BUS,   /**< lib/bus: PCI, VFIO, UIO */
	UNIC_LOGC_PORT,  /**< lib/port */
	UNIC_LOGC_NAPI,  /**< lib/napi */
	UNIC_LOGC_PMD,   /**< drivers */
	UNIC_LOGC_APP,   /**< applications and tests */
	UNIC_LOGC_TELEMETRY, /**< lib/telemetry */
	UNIC_LOGC_COUNT  /**< number of components */
};

/** Current level per component; read by UNIC_LOG before formatting. */
extern int unic_log_levels[UNIC_LOGC_COUNT];

/** Receives each message that passes its component's level (no newline). */
typedef void (*unic_log_sink_fn)(void *ctx, enum unic_log_level level,
				 enum unic_log_comp comp, const char *msg);

/** Format and emit one message; prefer the UNIC_LOG macro. */
void unic_log(enum unic_log_level level, enum unic_log_comp comp,
	      const char *fmt, ...) UNIC_PRINTF(3, 4);
/** unic_log() with a va_list. */
void unic_vlog(enum unic_log_level level, enum unic_log_comp comp,
	       const char *fmt, va_list ap) UNIC_PRINTF(3, 0);

/**
 * Log a message when @p comp's level lets @p level through; the arguments
 * are not evaluated otherwise. UNIC_LOG(WARNING, PORT, "fmt", ...): the level
 * and component without their prefixes.
 */
#define UNIC_LOG(level, comp, ...)                                        \
	do {                                                              \
		if ((int)(UNIC_LOG_##level) <= unic_log_levels[UNIC_LOGC_##comp]) \
			unic_log(UNIC_LOG_##level, UNIC_LOGC_##comp, __VA_ARGS__); \
	} while (0)

#if UNIC_LOG_DATAPATH
/** UNIC_LOG on the fast path: compiled away unless built with -Dlog_datapath=true. */
#define UNIC_LOG_DP(level, comp, ...) UNIC_LOG(level, comp, __VA_ARGS__)
#else
#define UNIC_LOG_DP(level, comp, ...) \
	do { if (0) unic_log(UNIC_LOG_##level, UNIC_LOGC_##comp, __VA_ARGS__); } while (0)
#endif

/**
 * Set the level of one component, or of all with comp = -1.
 * @return 0, or -EINVAL for an unknown component or a level outside 1..5.
 */
int unic_log_set_level(int comp, int level);
/** The level of component @p comp, or -EINVAL for an unknown one. */
int unic_log_get_level(enum unic_log_comp comp);

/**
 * Apply a level spec: a comma-separated list of "LEVEL" (all components) or
 * "COMPONENT:LEVEL". LEVEL is a name (err, warning, notice, info, debug) or
 * 1..5. The spec is applied only if every item parses.
 * @return 0, or -EINVAL with a message naming the bad item and the accepted
 *         forms.
 */
int unic_log_parse_spec(const char *spec);

/** "log", "mem", "pool", ...: the name --log-level takes; "?" for an unknown one. */
const char *unic_log_comp_name(enum unic_log_comp comp);
/** "err", "warning", "notice", "info", "debug"; "?" for an unknown one. */
const char *unic_log_level_name(enum unic_log_level level);

/** Install a sink (NULL restores stderr). Not thread-safe against logging. */
void unic_log_set_sink(unic_log_sink_fn fn, void *ctx);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_LOG_H */
