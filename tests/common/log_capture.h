/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The library's log, captured for a test: one sink instead of a copy in each
 * test file. logcap_start() keeps every message at or above a level (by
 * severity) in logcap_buf, one a line, the last one in logcap_last, and
 * counts them by level; the library's own level (unic_log_set_level) stays
 * the caller's choice. The sink takes a lock, so threads may log while a
 * test reads with logcap_has(); reading logcap_buf directly is for when no
 * other thread logs. logtail_start() is the rig guest's variant: the last
 * 2 KiB kept for assertion messages (Criterion's TAP output does not carry
 * a test's stderr), every message on stderr too if asked.
 */
#ifndef TESTS_COMMON_LOG_CAPTURE_H
#define TESTS_COMMON_LOG_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>

#include <unic/log.h>

#define LOGCAP_SIZE (64 * 1024)
#define LOGCAP_LAST_SIZE 1024
#define LOGTAIL_SIZE 2048

/** logcap_start() flags. */
enum {
	LOGCAP_COMP = 1 << 0,   /**< lines read "<component>: <message>" */
};

/** Every kept message, one a line, cut at LOGCAP_SIZE - 1 bytes. Writing
 * '\0' at [0] empties it (what logcap_clear() does, without the lock). */
extern char logcap_buf[LOGCAP_SIZE];
/** The last kept message, without its newline or component. */
extern char logcap_last[LOGCAP_LAST_SIZE];
/** The level of the last kept message, 0 before any. */
extern int logcap_last_level;
/** How many messages were kept, by level (index UNIC_LOG_ERR..UNIC_LOG_DEBUG). */
extern int logcap_nb[UNIC_LOG_DEBUG + 1];
/** How many messages were kept, all levels. */
extern int logcap_total;

/**
 * Empty the capture and install its sink: it keeps messages of level
 * @p keep or more severe (numerically lower); 0 keeps none, which silences
 * the library. @p flags: LOGCAP_*.
 */
void logcap_start(int keep, unsigned flags);
/** The capture's sink, to install again after a test borrowed the log
 * (logcap_start() would empty the capture). */
void logcap_sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg);
/** Restore the default sink (stderr). */
void logcap_stop(void);
/** Empty the buffer, the last message and the counters. */
void logcap_clear(void);
/** @return whether @p needle was logged since the last clear. */
bool logcap_has(const char *needle);
/** @return how many times @p needle was logged since the last clear. */
int logcap_count(const char *needle);

/** The rig guest's log tail: the last messages, each followed by " | ". */
extern char logtail[LOGTAIL_SIZE];
/** Empty the tail and install logtail_sink; @p echo: print each message on
 * stderr too. */
void logtail_start(bool echo);
/** Append @p msg to the tail (a sink, to chain). */
void logtail_sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg);

#endif /* TESTS_COMMON_LOG_CAPTURE_H */
