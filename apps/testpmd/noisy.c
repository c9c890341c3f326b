/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The noisy engine (DPDK's noisy_vnf): io forwarding through a tx FIFO per
 * stream, with simulated lookups per packet in a table of its own.
 * docs/testpmd.md "Forwarding". Each stream's state is its thread's; the
 * counters are read relaxed by "show fwd stats".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <unic/cycles.h>
#include <unic/pool.h>

#include "testpmd.h"

static inline uint64_t noisy_rand(struct tp_noisy *z)
{
	/* xorshift64: cheap, enough to spread the lookups. */
	z->rand ^= z->rand << 13;
	z->rand ^= z->rand >> 7;
	z->rand ^= z->rand << 17;
	return z->rand;
}

/* The simulated route lookups of @p n packets: writes, reads and
 * read-writes of random cache lines of the lookup table, per packet. */
static void noisy_sim(struct tp_stream *s, uint16_t n)
{
	struct tp_noisy *z = &s->noisy;
	const struct tp_noisy_conf *c = &s->nconf;
	uint64_t sink = z->sink;

	if (z->mem == NULL || n == 0)
		return;
	for (uint16_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < c->writes; j++)
			z->mem[(noisy_rand(z) % z->mem_lines) * UNIC_CACHE_LINE_SIZE] = (uint8_t)z->rand;
		for (uint32_t j = 0; j < c->reads; j++)
			sink += *(volatile uint8_t *)&z->mem[(noisy_rand(z) % z->mem_lines) * UNIC_CACHE_LINE_SIZE];
		for (uint32_t j = 0; j < c->rw; j++) {
			uint8_t *m = &z->mem[(noisy_rand(z) % z->mem_lines) * UNIC_CACHE_LINE_SIZE];

			sink += *(volatile uint8_t *)m;
			*m = (uint8_t)(sink + 1);
		}
	}
	z->sink = sink;
	tp_stat_add(&z->writes, (uint64_t)n * (c->writes + c->rw));
	tp_stat_add(&z->reads, (uint64_t)n * (c->reads + c->rw));
}

/* Send the @p k oldest packets of the FIFO. */
static void fifo_send(struct tp_stream *s, uint32_t k)
{
	struct tp_noisy *z = &s->noisy;
	struct unic_pkt *b[TP_BURST_MAX];

	while (k) {
		uint32_t m = k < TP_BURST_MAX ? k : TP_BURST_MAX;

		for (uint32_t j = 0; j < m; j++) {
			b[j] = z->fifo[z->head];
			z->head = z->head + 1 == s->nconf.bufsz ? 0 : z->head + 1;
		}
		z->count -= m;
		k -= m;
		tp_tx_send(s, b, (uint16_t)m);
	}
	__atomic_store_n(&z->buffered, z->count, __ATOMIC_RELAXED);
}

/* One received burst: the lookups, then into the FIFO; what does not fit
 * pushes the oldest out first (a burst larger than the FIFO sends its own
 * first packets after them), so the order is kept. Without a FIFO: sent. */
void tp_noisy_burst(struct tp_stream *s, struct unic_pkt **pkts, uint16_t n)
{
	struct tp_noisy *z = &s->noisy;
	uint32_t size = s->nconf.bufsz, room, direct;

	noisy_sim(s, n);
	if (size == 0) {
		tp_tx_send(s, pkts, n);
		return;
	}
	room = size - z->count;
	if (n > room) {
		uint32_t k = z->count < n - room ? z->count : n - room;

		if (k) {
			fifo_send(s, k);
			tp_stat_add(&z->flush_full, 1);
		}
		room += k;
	}
	direct = n > room ? n - room : 0;
	if (direct)
		tp_tx_send(s, pkts, (uint16_t)direct);
	if (z->count == 0)
		z->last_ns = unic_time_ns(); /* the flush time counts from the oldest packet in */
	for (uint32_t i = direct; i < n; i++) {
		uint32_t at = z->head + z->count;

		z->fifo[at >= size ? at - size : at] = pkts[i];
		z->count++;
	}
	__atomic_store_n(&z->buffered, z->count, __ATOMIC_RELAXED);
}

/* Flush the FIFOs whose time is up (--noisy-tx-sw-buffer-flushtime). */
void tp_noisy_round(struct unic_napi_ctx *ctx, void *arg)
{
	struct tp_thread *t = arg;
	uint64_t now = unic_time_ns();

	(void)ctx;
	for (unsigned i = 0; i < t->nb_streams; i++) {
		struct tp_stream *s = t->streams[i];
		struct tp_noisy *z = &s->noisy;

		if (z->count && now - z->last_ns >= (uint64_t)s->nconf.flush_ms * 1000000) {
			uint64_t t0 = s->app->record_cycles ? unic_rdtsc() : 0;

			fifo_send(s, z->count);
			tp_stat_add(&z->flush_time, 1);
			z->last_ns = now;
			if (t0)
				tp_stat_add(&s->rxc->busy_cycles, unic_rdtsc() - t0);
		}
	}
}

/* The next flush: no sleep lasts past it. */
uint64_t tp_noisy_deadline(struct unic_napi_ctx *ctx, void *arg)
{
	struct tp_thread *t = arg;
	uint64_t next = UINT64_MAX;

	(void)ctx;
	for (unsigned i = 0; i < t->nb_streams; i++) {
		const struct tp_stream *s = t->streams[i];
		uint64_t d = s->noisy.last_ns + (uint64_t)s->nconf.flush_ms * 1000000;

		if (s->noisy.count && d < next)
			next = d;
	}
	return next;
}

/* Forwarding stops: what the FIFO holds is sent (or, not taken, freed and
 * counted as dropped), never left behind. In the stream's thread. */
void tp_noisy_drain(struct tp_stream *s)
{
	uint32_t k = s->noisy.count;

	if (k) {
		fifo_send(s, k);
		tp_stat_add(&s->noisy.flushed_at_stop, k);
	}
}

/* The FIFO and the lookup table of every stream (forwarding start). */
int tp_noisy_setup(struct tp_app *app)
{
	const struct tp_noisy_conf *c = &app->noisy;

	if ((c->writes || c->reads || c->rw) && c->lkup_mb == 0) {
		fprintf(app->err, "noisy: --noisy-lkup-num-writes/-reads/-reads-writes simulate lookups in a table "
			"of --noisy-lkup-memory MB, which is 0; give it (e.g. --noisy-lkup-memory=16)\n");
		return -EINVAL;
	}
	for (unsigned i = 0; i < app->nb_streams; i++) {
		struct tp_stream *s = &app->streams[i];
		struct tp_noisy *z = &s->noisy;

		if (c->bufsz) {
			z->fifo = calloc(c->bufsz, sizeof(*z->fifo));
			if (z->fifo == NULL) {
				fprintf(app->err, "noisy: no memory for a FIFO of %u packets (--noisy-tx-sw-buffer-size)\n",
					c->bufsz);
				return -ENOMEM;
			}
		}
		if (c->lkup_mb && (c->writes || c->reads || c->rw)) {
			size_t sz = (size_t)c->lkup_mb << 20;

			z->mem = aligned_alloc(UNIC_CACHE_LINE_SIZE, sz);
			if (z->mem == NULL) {
				fprintf(app->err, "noisy: no memory for a lookup table of %u MB per stream "
					"(--noisy-lkup-memory; %u streams)\n", c->lkup_mb, app->nb_streams);
				return -ENOMEM;
			}
			memset(z->mem, 0, sz); /* touched: the lookups miss caches, not page tables */
			z->mem_lines = sz / UNIC_CACHE_LINE_SIZE;
		}
		z->rand = 0x9e3779b97f4a7c15ull ^ ((uint64_t)s->rx_port << 32 | s->rx_q);
	}
	return 0;
}

/* Free the FIFOs and tables; packets a FIFO still holds (its thread never
 * ran) are freed and counted as dropped. */
void tp_noisy_free(struct tp_app *app)
{
	for (unsigned i = 0; i < app->nb_streams; i++) {
		struct tp_stream *s = &app->streams[i];
		struct tp_noisy *z = &s->noisy;

		while (z->count) {
			unic_pkt_free(z->fifo[z->head]);
			z->head = z->head + 1 == s->nconf.bufsz ? 0 : z->head + 1;
			z->count--;
			unic_counter_add(&s->txc->dropped, 1);
		}
		free(z->fifo);
		free(z->mem);
		z->fifo = NULL;
		z->mem = NULL;
	}
}

/* noisy: what its FIFOs and lookups did, over the streams receiving on @p id. */
void tp_noisy_line(struct tp_app *app, FILE *f, uint16_t id)
{
	uint64_t buf = 0, full = 0, tm = 0, atstop = 0, rd = 0, wr = 0;

	for (unsigned i = 0; i < app->nb_streams; i++) {
		const struct tp_noisy *z = &app->streams[i].noisy;

		if (app->streams[i].rx_port != id)
			continue;
		buf += __atomic_load_n(&z->buffered, __ATOMIC_RELAXED);
		full += __atomic_load_n(&z->flush_full, __ATOMIC_RELAXED);
		tm += __atomic_load_n(&z->flush_time, __ATOMIC_RELAXED);
		atstop += __atomic_load_n(&z->flushed_at_stop, __ATOMIC_RELAXED);
		rd += __atomic_load_n(&z->reads, __ATOMIC_RELAXED);
		wr += __atomic_load_n(&z->writes, __ATOMIC_RELAXED);
	}
	fprintf(f, "  Noisy FIFO: buffered %" PRIu64 " - flushes full %" PRIu64 ", timed %" PRIu64
		" - sent at stop %" PRIu64 "; lookups: reads %" PRIu64 ", writes %" PRIu64 "\n",
		buf, full, tm, atstop, rd, wr);
}
