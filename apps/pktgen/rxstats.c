/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen receive statistics (rxstats.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rxstats.h"

#define SUB (1u << PG_HIST_SUB_BITS)

void pg_hist_init(struct pg_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

unsigned pg_hist_index(uint64_t v)
{
	unsigned m;

	if (v < 2 * SUB)
		return (unsigned)v;
	m = 63u - (unsigned)__builtin_clzll(v);   /* >= PG_HIST_SUB_BITS + 1 */
	/* [2^m, 2^(m+1)) split in SUB buckets of width 2^(m - SUB_BITS). */
	return (m - PG_HIST_SUB_BITS) * SUB + (unsigned)(v >> (m - PG_HIST_SUB_BITS));
}

uint64_t pg_hist_bucket_lo(unsigned i)
{
	unsigned k;

	if (i < 2 * SUB)
		return i;
	k = i / SUB - 1;  /* shift: m - SUB_BITS */
	return (uint64_t)(i % SUB + SUB) << k;
}

uint64_t pg_hist_bucket_hi(unsigned i)
{
	if (i < 2 * SUB)
		return i;
	if (i + 1 >= PG_HIST_BUCKETS)
		return UINT64_MAX;
	return pg_hist_bucket_lo(i + 1) - 1;
}

void pg_hist_add(struct pg_hist *h, uint64_t v)
{
	h->bucket[pg_hist_index(v)]++;
	h->count++;
	h->sum += v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

uint64_t pg_hist_percentile(const struct pg_hist *h, double p)
{
	uint64_t rank, cum = 0, v;
	unsigned i;

	if (h->count == 0)
		return 0;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (i = 0; i < PG_HIST_BUCKETS; i++) {
		cum += h->bucket[i];
		if (cum >= rank)
			break;
	}
	v = pg_hist_bucket_hi(i < PG_HIST_BUCKETS ? i : PG_HIST_BUCKETS - 1);
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

void pg_seq_init(struct pg_seq *q)
{
	memset(q, 0, sizeof(*q));
}

static bool seq_test_set(struct pg_seq *q, uint64_t s)
{
	unsigned b = (unsigned)(s % PG_SEQ_WINDOW);
	uint64_t m = 1ull << (b % 64);
	bool was = q->seen[b / 64] & m;

	q->seen[b / 64] |= m;
	return was;
}

static void seq_clear(struct pg_seq *q, uint64_t s)
{
	unsigned b = (unsigned)(s % PG_SEQ_WINDOW);

	q->seen[b / 64] &= ~(1ull << (b % 64));
}

void pg_seq_add(struct pg_seq *q, uint32_t seq32)
{
	uint64_t s;

	q->received++;
	if (!q->any) {
		/* Streams start at 0; a first number far from 0 still counts from 0. */
		q->any = true;
		q->highest = seq32;
		memset(q->seen, 0, sizeof(q->seen));
		seq_test_set(q, seq32);
		q->unique++;
		return;
	}
	/* Widen: the 64-bit number nearest the highest seen with these low bits. */
	s = (q->highest & ~0xffffffffull) | seq32;
	if (s > q->highest && s - q->highest > 0x80000000ull && s >= 0x100000000ull)
		s -= 0x100000000ull;
	else if (s < q->highest && q->highest - s > 0x80000000ull)
		s += 0x100000000ull;
	if (s > q->highest) {
		uint64_t gap = s - q->highest;

		if (gap >= PG_SEQ_WINDOW) {
			memset(q->seen, 0, sizeof(q->seen));
		} else {
			for (uint64_t x = q->highest + 1; x < s; x++)
				seq_clear(q, x);
		}
		seq_clear(q, s);
		seq_test_set(q, s);
		q->highest = s;
		q->unique++;
		return;
	}
	if (q->highest - s >= PG_SEQ_WINDOW) {  /* too old to tell: late */
		q->reordered++;
		q->unique++;
		return;
	}
	if (seq_test_set(q, s)) {
		q->duplicated++;
		return;
	}
	q->reordered++;
	q->unique++;
}

uint64_t pg_seq_lost(const struct pg_seq *q, uint64_t sent)
{
	uint64_t expect = sent;

	if (expect == 0)
		expect = q->any ? q->highest + 1 : 0;
	return expect > q->unique ? expect - q->unique : 0;
}

void pg_hist_merge(struct pg_hist *dst, const struct pg_hist *src)
{
	if (src->count == 0)
		return;
	for (unsigned i = 0; i < PG_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
	dst->count += src->count;
	dst->sum += src->sum;
	dst->min = src->min < dst->min ? src->min : dst->min;
	dst->max = src->max > dst->max ? src->max : dst->max;
}

void pg_rxstats_init(struct pg_rxstats *s, uint16_t stream_id)
{
	/* Zeroes the stream's sequence state as pg_seq_init would (calling
	 * it here trips a false -Warray-bounds in GCC's sanitizer builds). */
	memset(s, 0, sizeof(*s));
	s->stream_id = stream_id;
	pg_hist_init(&s->stream.lat_ns);
	s->nb_streams = 1;
	s->ids[0] = stream_id;
	s->streams[0] = &s->stream;
	s->index_of[stream_id] = 1;
}

int pg_rxstats_add_stream(struct pg_rxstats *s, uint16_t id)
{
	struct pg_stream_stats *st;

	if (s->index_of[id])
		return -EEXIST;
	if (s->nb_streams >= PG_MAX_STREAMS)
		return -ENOSPC;
	st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	pg_hist_init(&st->lat_ns);
	s->ids[s->nb_streams] = id;
	s->streams[s->nb_streams] = st;
	s->index_of[id] = (uint8_t)(s->nb_streams + 1);
	return (int)s->nb_streams++;
}

void pg_rxstats_fini(struct pg_rxstats *s)
{
	for (unsigned i = 1; i < s->nb_streams; i++) {
		free(s->streams[i]);
		s->streams[i] = NULL;
	}
	s->nb_streams = s->nb_streams ? 1 : 0;
}

struct pg_stream_stats *pg_rxstats_frame(struct pg_rxstats *s, uint32_t bytes,
					 enum pg_parse_result r, const struct pg_stamp *stamp)
{
	unsigned k;

	s->frames++;
	s->bytes += bytes;
	s->by_result[(unsigned)r < PG_PARSE_NB ? r : PG_PARSE_NO_STAMP]++;
	if (r != PG_PARSE_OK) {
		s->no_stamp++;
		return NULL;
	}
	k = s->index_of[stamp->stream];
	if (k == 0) {
		s->other_stream++;
		return NULL;
	}
	s->last = k - 1;
	return s->streams[k - 1];
}
