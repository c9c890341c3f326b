/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen receive statistics: for each stream sent, sequence tracking
 * (received, lost, reordered, duplicated) and a log-linear latency
 * histogram; frames of other streams and without a stamp, counted apart.
 */
#ifndef PG_RXSTATS_H
#define PG_RXSTATS_H

#include <stdbool.h>
#include <stdint.h>

#include "pkt_parse.h"
#include "stream.h"

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
/* Add @p src's values into @p dst (the total of several streams). */
void pg_hist_merge(struct pg_hist *dst, const struct pg_hist *src);

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

/* Merge @p src into @p dst: two receivers' parts of one sequence (frames of
 * one sender spread over several rx queues): counts added, the highest
 * number the larger. @p dst is then for reading only (its window is not
 * merged). */
void pg_seq_merge(struct pg_seq *dst, const struct pg_seq *src);

/*
 * A stream's frames are numbered per tx queue when several send it
 * (PG_STAMP_QUEUE_SHIFT): one sequence a queue, each tracked on its own
 * (qseq[q]), and seq the sum of them (received, unique, reordered,
 * duplicated; highest + 1 the sum of each queue's highest + 1, so
 * pg_seq_lost(&seq, 0) is the gaps of every queue).
 */
#define PG_MAX_TXQ 16                 /* UNIC_PORT_MAX_QUEUES */
#define PG_STAMP_QUEUE_SHIFT 8        /* the stamp's stream id: id | queue << 8 */

struct pg_stream_stats {
	uint64_t bytes;          /* of the frames counted in seq.received */
	struct pg_seq seq;
	struct pg_hist lat_ns;
	struct pg_seq *qseq;     /* [nq] when nq > 1, else NULL */
	unsigned nq;
};

/* Record sequence number @p seq32 of tx queue @p q (0 with one queue). */
void pg_stream_seq_add(struct pg_stream_stats *st, unsigned q, uint32_t seq32);
/* Tx queue @p q's sequence (the stream's own with one queue). */
const struct pg_seq *pg_stream_qseq(const struct pg_stream_stats *st, unsigned q);
/* Recompute st->seq from the queues' (after pg_seq_merge of each). */
void pg_stream_seq_fold(struct pg_stream_stats *st);

/*
 * What one receiver counts. A run sends one or more streams, each with its
 * own stamp stream id (the single-stream run's is its tx port number); a
 * frame with a valid stamp of any other id came from another sender and is
 * counted apart, never in a stream (and never dropped from every count: it
 * is in frames).
 */
struct pg_rxstats {
	uint16_t stream_id;             /* stream 0's id */
	uint64_t frames;                /* every frame received */
	uint64_t bytes;
	uint64_t no_stamp;              /* no valid stamp: by parse result */
	uint64_t by_result[PG_PARSE_NB];
	uint64_t other_stream;          /* a valid stamp with an id of none of the streams */
	struct pg_stream_stats stream;  /* stream 0's frames */
	unsigned nb_streams;
	unsigned last;                  /* the stream of the last frame pg_rxstats_frame took */
	unsigned last_q;                /* its tx queue (the stamp's id >> PG_STAMP_QUEUE_SHIFT) */
	unsigned nq;                    /* tx queues each stream is sent from */
	uint16_t ids[PG_MAX_STREAMS];
	struct pg_stream_stats *streams[PG_MAX_STREAMS];  /* [0] is &stream; the rest allocated */
	uint8_t index_of[65536];        /* stream id -> index + 1; 0: none of ours */
};

/* One stream, id @p stream_id (stream 0). */
void pg_rxstats_init(struct pg_rxstats *s, uint16_t stream_id);

/* One more stream, id @p id. @return its index, or -EEXIST (the id is
 * taken), -ENOSPC (PG_MAX_STREAMS already), -ENOMEM. */
int pg_rxstats_add_stream(struct pg_rxstats *s, uint16_t id);

/* Every stream is sent from @p nq tx queues (2..PG_MAX_TXQ), each with its
 * own sequence; their stamps carry id | q << PG_STAMP_QUEUE_SHIFT. Call once
 * every stream is added. @return 0, -EINVAL (nq out of range, or a stream
 * id that does not fit below the shift), -EEXIST (an id taken), -ENOMEM. */
int pg_rxstats_set_queues(struct pg_rxstats *s, unsigned nq);

/* Every count back to zero, the streams and their queues kept (a trial's
 * start with threads). */
void pg_rxstats_reset(struct pg_rxstats *s);

/* Add @p src's counts into @p dst (the same streams, in the same order, the
 * same queues): another receive thread's part of the run. */
void pg_rxstats_merge(struct pg_rxstats *dst, const struct pg_rxstats *src);

/* Free what pg_rxstats_add_stream and pg_rxstats_set_queues allocated. */
void pg_rxstats_fini(struct pg_rxstats *s);

/*
 * Count a received frame of @p bytes whose parse gave @p r (and, for
 * PG_PARSE_OK, the stamp @p stamp). @return the statistics of the stream it
 * belongs to (its index in s->last; the caller adds its sequence number
 * and latency), else NULL.
 */
struct pg_stream_stats *pg_rxstats_frame(struct pg_rxstats *s, uint32_t bytes,
					 enum pg_parse_result r, const struct pg_stamp *stamp);

#endif /* PG_RXSTATS_H */
