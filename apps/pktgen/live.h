/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen while it runs: the rate change requested from another thread
 * (a telemetry command, a key) and handed to the sending loop, the scaling
 * of every stream's rate keeping their shares, and the live status screen
 * formatted into a buffer. Pure parts, unit-tested. docs/pktgen.md, "The
 * live screen".
 */
#ifndef PG_LIVE_H
#define PG_LIVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rate.h"
#include "stream.h"

/*
 * A rate change on its way to the sending loop: any thread stores one
 * (the last stored wins), the loop takes it between bursts. The loop's
 * check is one relaxed load of @c pending when nothing is asked.
 */
struct pg_rate_req {
	pthread_mutex_t lock;
	int pending;               /* atomic: a request waits */
	struct pg_rate_spec spec;
	char text[32];             /* as given: "50kpps" */
};

void pg_rate_req_init(struct pg_rate_req *q);
/* Store a request (any thread); it replaces one not yet taken. */
void pg_rate_req_put(struct pg_rate_req *q, const struct pg_rate_spec *spec, const char *text);
/* Take the waiting request into @p spec and @p text (32 bytes), the
 * sending loop's side. @return whether there was one. */
bool pg_rate_req_take(struct pg_rate_req *q, struct pg_rate_spec *spec, char *text);

/*
 * The rate of a stream with @p share percent of the whole @p total (the
 * same unit, the value scaled). PG_RATE_NONE stays unlimited.
 */
struct pg_rate_spec pg_rate_share(const struct pg_rate_spec *total, double share);

/*
 * @p cur scaled by @p factor (a key's +10 %: 1.1), clamped to the limits
 * of its unit (a percentage at most 100). @return 0, or -EINVAL with a
 * message when the rate is unlimited (nothing to scale) or would leave the
 * limits.
 */
int pg_rate_scale(const struct pg_rate_spec *cur, double factor, struct pg_rate_spec *out, char *err,
		  size_t errlen);

/* A rate as --rate takes it back: "50kpps", "1.2Mbps-wire", "10%". */
void pg_rate_spec_format(const struct pg_rate_spec *r, char *buf, size_t len);

/* One row of the live screen: a port or a stream over the last second. */
struct pg_screen_row {
	int id;                         /* port number or stream id */
	bool has_tx, has_rx, has_lat;   /* which columns the row has */
	double tx_pps, tx_mbps, rx_pps, rx_mbps;
	uint64_t sent, received, lost;
	uint64_t p50_ns, p99_ns;        /* latency of the last second (has_lat) */
};

#define PG_SCREEN_ROWS_MAX 64

struct pg_screen {
	double elapsed_s;
	char rate[32];                  /* the current --rate, or "unlimited" */
	struct pg_screen_row txp[PG_SCREEN_ROWS_MAX], rxp[PG_SCREEN_ROWS_MAX], st[PG_SCREEN_ROWS_MAX];
	unsigned nb_txp, nb_rxp, nb_st;
	struct pg_screen_row total;
	char msg[160];                  /* the last key's or command's outcome, or "" */
	bool keys;                      /* the keys work (stdin is a terminal) */
};

/*
 * The screen as text into @p buf (@p len bytes, terminated): a title, the
 * rows, the totals and a footer with the keys, each line ended by an
 * erase-to-end-of-line so a shorter redraw leaves nothing behind. @p home:
 * start with the cursor-home sequence (the redraw in place). @return the
 * length it needed (as snprintf).
 */
size_t pg_screen_format(const struct pg_screen *s, bool home, char *buf, size_t len);

/*
 * The same second as one line (when the output is not a terminal: a pipe, a
 * file, CI): elapsed time, the total's tx and rx rates, sent, received, lost
 * so far and the last second's latency p50 ("-" when none came back), each
 * port's rate when there are several, the rate asked; ended by a newline.
 * @return the length it needed (as snprintf).
 */
size_t pg_screen_line(const struct pg_screen *s, char *buf, size_t len);

/* What /pktgen/stats answers: the loop's counts, copied every 100 ms. */
struct pg_live_snap {
	pthread_mutex_t lock;
	double t_s;
	char rate[32];
	unsigned nb;
	uint16_t id[PG_MAX_STREAMS];
	uint64_t sent[PG_MAX_STREAMS], received[PG_MAX_STREAMS], lost[PG_MAX_STREAMS];
	uint64_t sent_all, rx_frames;
	unsigned nb_changes;
	bool published;  /* a copy has been taken (the run set phase 1 before its loop's first copy) */
};

/*
 * /pktgen/stats's answer from the snapshot, under its lock, as one JSON
 * object into @p buf (@p len bytes, terminated; cut short if it does not
 * fit). @return the length it needed (as snprintf), or -EAGAIN before the
 * loop's first copy: the run has set its phase to sending but has no
 * counts yet, and an answer then would be a run with no rate and no
 * streams.
 */
int pg_live_stats_json(struct pg_live_snap *s, char *buf, size_t len);
/* A buffer that holds the widest answer: the head's fields and every
 * stream's row at their widest (20-digit counts, a 31-character rate). */
#define PG_LIVE_STATS_JSON_MAX (256 + PG_MAX_STREAMS * 112)

#endif /* PG_LIVE_H */
