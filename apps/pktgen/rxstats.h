/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen receive statistics: per stream, sequence tracking (received,
 * lost, reordered, duplicated) and a log-linear latency histogram.
 */
#ifndef PG_RXSTATS_H
#define PG_RXSTATS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Log-linear histogram: values below 64 exactly, then 32 buckets per power
 * of two (each bucket at most 1/32 = 3.1% wide relative to its value).
 */
#define PG_HIST_SUB_BITS 5
#define PG_HIST_BUCKETS ((64 - PG_HIST_SUB_BITS) * (1u << PG_HIST_SUB_BITS) + (1u << PG_HIST_SUB_BITS))

struct pg_hist {
	uint64_t count, sum, min, max;
	uint64_t bucket[PG_HIST_BUCKETS];
};

void pg_hist_init(struct pg_hist *h);
void pg_hist_add(struct pg_hist *h, uint64_t v);
unsigned pg_hist_index(uint64_t v);
/* Smallest and largest value bucket @p i holds. */
uint64_t pg_hist_bucket_lo(unsigned i);
uint64_t pg_hist_bucket_hi(unsigned i);
/* The value at percentile @p p (0..100): the upper bound of the bucket that
 * holds the ceil(p/100 * count)-th value, clamped to [min, max]. 0 if empty. */
uint64_t pg_hist_percentile(const struct pg_hist *h, double p);

/* Sequence tracking over a window of PG_SEQ_WINDOW sequence numbers: a
 * frame older than that is counted as reordered (a duplicate that old is
 * not told apart). */
#define PG_SEQ_WINDOW 4096

struct pg_seq {
	bool any;
	uint64_t highest;     /* widened 64-bit sequence number */
	uint64_t unique;      /* distinct sequence numbers received */
	uint64_t received;    /* every frame, duplicates included */
	uint64_t reordered;   /* arrived after a higher number */
	uint64_t duplicated;
	uint64_t seen[PG_SEQ_WINDOW / 64];  /* bit (s % window): s received */
};

void pg_seq_init(struct pg_seq *q);
/* Record 32-bit sequence number @p seq32 (widened around the highest seen). */
void pg_seq_add(struct pg_seq *q, uint32_t seq32);
/* Lost: @p sent minus the distinct numbers received; with @p sent 0
 * (unknown), the gaps below the highest number seen. */
uint64_t pg_seq_lost(const struct pg_seq *q, uint64_t sent);

#define PG_MAX_STREAMS 16

struct pg_stream_stats {
	struct pg_seq seq;
	struct pg_hist lat_ns;
};

struct pg_rxstats {
	uint64_t frames;                /* every frame received */
	uint64_t bytes;
	uint64_t no_stamp;              /* no valid stamp: by parse result */
	uint64_t by_result[8];
	uint64_t bad_stream;            /* stamp with a stream id we do not send */
	struct pg_stream_stats stream[PG_MAX_STREAMS];
};

void pg_rxstats_init(struct pg_rxstats *s);

#endif /* PG_RXSTATS_H */
