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

void pg_seq_merge(struct pg_seq *dst, const struct pg_seq *src)
{
	if (!src->any)
		return;
	if (!dst->any || src->highest > dst->highest)
		dst->highest = src->highest;
	dst->any = true;
	dst->unique += src->unique;
	dst->received += src->received;
	dst->reordered += src->reordered;
	dst->duplicated += src->duplicated;
}

const struct pg_seq *pg_stream_qseq(const struct pg_stream_stats *st, unsigned q)
{
	return st->nq > 1 ? &st->qseq[q < st->nq ? q : 0] : &st->seq;
}

void pg_stream_seq_fold(struct pg_stream_stats *st)
{
	uint64_t expect = 0;
	struct pg_seq *a = &st->seq;

	if (st->nq <= 1)
		return;
	a->any = false;
	a->unique = a->received = a->reordered = a->duplicated = 0;
	for (unsigned q = 0; q < st->nq; q++) {
		const struct pg_seq *x = &st->qseq[q];

		if (!x->any)
			continue;
		a->any = true;
		expect += x->highest + 1;
		a->unique += x->unique;
		a->received += x->received;
		a->reordered += x->reordered;
		a->duplicated += x->duplicated;
	}
	a->highest = expect ? expect - 1 : 0;
}

void pg_stream_seq_add(struct pg_stream_stats *st, unsigned q, uint32_t seq32)
{
	struct pg_seq *x, *a = &st->seq;
	uint64_t before;

	if (st->nq <= 1) {
		pg_seq_add(a, seq32);
		return;
	}
	/* The sum kept as it goes: this queue's change added to it. */
	x = &st->qseq[q < st->nq ? q : 0];
	before = x->any ? x->highest + 1 : 0;
	a->unique -= x->unique;
	a->reordered -= x->reordered;
	a->duplicated -= x->duplicated;
	pg_seq_add(x, seq32);
	a->received++;
	a->unique += x->unique;
	a->reordered += x->reordered;
	a->duplicated += x->duplicated;
	a->highest = (a->any ? a->highest + 1 : 0) + x->highest + 1 - before - 1;
	a->any = true;
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

int pg_rxstats_set_queues(struct pg_rxstats *s, unsigned nq)
{
	if (nq < 2 || nq > PG_MAX_TXQ)
		return -EINVAL;
	for (unsigned i = 0; i < s->nb_streams; i++)
		if (s->ids[i] >> PG_STAMP_QUEUE_SHIFT)
			return -EINVAL;
	for (unsigned i = 0; i < s->nb_streams; i++)
		for (unsigned q = 1; q < nq; q++)
			if (s->index_of[s->ids[i] | q << PG_STAMP_QUEUE_SHIFT])
				return -EEXIST;
	for (unsigned i = 0; i < s->nb_streams; i++) {
		struct pg_stream_stats *st = s->streams[i];

		st->qseq = calloc(nq, sizeof(*st->qseq));
		if (st->qseq == NULL)
			return -ENOMEM;
		st->nq = nq;
		for (unsigned q = 1; q < nq; q++)
			s->index_of[s->ids[i] | q << PG_STAMP_QUEUE_SHIFT] = (uint8_t)(i + 1);
	}
	s->nq = nq;
	return 0;
}

void pg_rxstats_reset(struct pg_rxstats *s)
{
	s->frames = s->bytes = s->no_stamp = s->other_stream = 0;
	memset(s->by_result, 0, sizeof(s->by_result));
	for (unsigned i = 0; i < s->nb_streams; i++) {
		struct pg_stream_stats *st = s->streams[i];

		st->bytes = 0;
		pg_seq_init(&st->seq);
		pg_hist_init(&st->lat_ns);
		if (st->qseq)
			memset(st->qseq, 0, st->nq * sizeof(*st->qseq));
	}
}

void pg_rxstats_merge(struct pg_rxstats *dst, const struct pg_rxstats *src)
{
	dst->frames += src->frames;
	dst->bytes += src->bytes;
	dst->no_stamp += src->no_stamp;
	dst->other_stream += src->other_stream;
	for (unsigned r = 0; r < PG_PARSE_NB; r++)
		dst->by_result[r] += src->by_result[r];
	for (unsigned i = 0; i < dst->nb_streams && i < src->nb_streams; i++) {
		struct pg_stream_stats *d = dst->streams[i];
		const struct pg_stream_stats *x = src->streams[i];

		d->bytes += x->bytes;
		pg_hist_merge(&d->lat_ns, &x->lat_ns);
		if (d->nq > 1 && x->nq == d->nq) {
			for (unsigned q = 0; q < d->nq; q++)
				pg_seq_merge(&d->qseq[q], &x->qseq[q]);
			pg_stream_seq_fold(d);
		} else {
			pg_seq_merge(&d->seq, &x->seq);
		}
	}
}

void pg_rxstats_fini(struct pg_rxstats *s)
{
	for (unsigned i = 0; i < s->nb_streams; i++) {
		free(s->streams[i]->qseq);
		s->streams[i]->qseq = NULL;
		s->streams[i]->nq = 0;
	}
	s->nq = 0;
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
	s->last_q = s->nq > 1 ? stamp->stream >> PG_STAMP_QUEUE_SHIFT : 0;
	return s->streams[k - 1];
}
