/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding threads. Each runs one napi context holding the rx queues
 * of its ports; the handler rewrites the Ethernet addresses and sends the
 * burst on the paired port's tx queue of the same number (rx queue N -> tx
 * queue N: order holds per flow, docs/l2fwd.md). What the tx queue refuses
 * (unic_tx_prepare) or does not take is freed and counted as dropped, every
 * packet of it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/cycles.h>
#include <unic/log.h>
#include <unic/pool.h>

#include "l2fwd.h"
#include "../pktgen/pkt_parse.h"  /* --stamp-age: pktgen's own parser */

static void send_now(struct l2fwd_route *r, uint16_t q, struct unic_pkt **pkts, uint16_t n)
{
	uint16_t sent, dropped;

	sent = unic_tx_burst_or_free(r->out, q, pkts, n, &dropped);
	if (UNIC_UNLIKELY(dropped))
		unic_counter_add(&r->out_cnt->dropped, dropped);
	unic_counter_add(&r->out_cnt->tx, sent);
}

void l2fwd_txb_flush(struct l2fwd_route *r, uint16_t q)
{
	struct l2fwd_txbuf *b = &r->txb[q];

	if (b->n == 0)
		return;
	send_now(r, q, b->pkts, b->n);
	b->n = 0;
}

/*
 * --tx-drain-us: a burst that comes less than the drain time after the
 * route's previous one on this queue is held with the frames before it
 * (dense traffic: one doorbell for several bursts, as DPDK's l2fwd holds
 * frames up to its drain timer); one after a quiet spell is sent at once
 * with whatever is held, so that sparse traffic waits for nothing. Held
 * frames leave when L2FWD_TXB_MAX have gathered, or when the oldest has
 * waited the drain time (l2fwd_txb_round, each round of the thread).
 */
static void hold_or_send(struct l2fwd_route *r, uint16_t q, struct unic_pkt **pkts, uint16_t n)
{
	struct l2fwd_txbuf *b = &r->txb[q];
	uint64_t now = unic_rdtsc();
	bool dense = b->last_tsc != 0 && now - b->last_tsc < r->drain_tsc;

	b->last_tsc = now;
	while (n > 0) {
		uint16_t m = (uint16_t)UNIC_MIN((unsigned)n, (unsigned)(L2FWD_TXB_MAX - b->n));

		if (b->n == 0)
			b->first_tsc = now;
		memcpy(&b->pkts[b->n], pkts, m * sizeof(pkts[0]));
		b->n = (uint16_t)(b->n + m);
		pkts += m;
		n = (uint16_t)(n - m);
		if (b->n == L2FWD_TXB_MAX)
			l2fwd_txb_flush(r, q);
	}
	if (!dense)
		l2fwd_txb_flush(r, q);
}

void l2fwd_txb_round(struct l2fwd_worker *w, uint64_t now_tsc)
{
	for (unsigned i = 0; i < w->nb_routes; i++) {
		struct l2fwd_route *r = w->routes[i];

		if (r->txb == NULL)
			continue;
		for (uint16_t q = 0; q < w->nb_queues; q++) {
			struct l2fwd_txbuf *b = &r->txb[q];

			if (b->n && now_tsc - b->first_tsc >= r->drain_tsc)
				l2fwd_txb_flush(r, q);
		}
	}
}

uint64_t l2fwd_txb_deadline_ns(const struct l2fwd_worker *w)
{
	uint64_t now_tsc = unic_rdtsc(), left = UINT64_MAX, hz = unic_tsc_hz();

	for (unsigned i = 0; i < w->nb_routes; i++) {
		const struct l2fwd_route *r = w->routes[i];

		if (r->txb == NULL)
			continue;
		for (uint16_t q = 0; q < w->nb_queues; q++) {
			const struct l2fwd_txbuf *b = &r->txb[q];
			uint64_t due = b->first_tsc + r->drain_tsc;

			if (b->n)
				left = UNIC_MIN(left, due > now_tsc ? due - now_tsc : 0);
		}
	}
	if (left == UINT64_MAX)
		return UINT64_MAX;
	return unic_time_ns() + (uint64_t)((unsigned __int128)left * 1000000000u / hz); /* hz is never 0 */
}

int l2fwd_route_txb_init(struct l2fwd_route *r, uint16_t nb_queues, uint32_t drain_us)
{
	uint64_t hz = unic_tsc_hz();

	r->txb = NULL;
	r->drain_tsc = 0;
	if (drain_us == 0)
		return 0;
	r->txb = calloc(nb_queues, sizeof(*r->txb));
	if (r->txb == NULL)
		return -ENOMEM;
	r->drain_tsc = (uint64_t)((unsigned __int128)drain_us * hz / 1000000u);
	return 0;
}

void l2fwd_route_txb_free(struct l2fwd_route *r)
{
	free(r->txb);
	r->txb = NULL;
}

/*
 * --stamp-age: each frame's age, from unic-pktgen's send (the TSC it put
 * in its stamp) to now, into its port's histogram; a frame without a valid
 * stamp (another sender, a chain longer than the scratch, a TSC of 0 or
 * ahead of ours) is counted unstamped. The stamp is read before the
 * addresses are rewritten (they are not part of it either way).
 */
uint16_t l2fwd_stamp_ages(struct l2fwd_port_counters *c, uint64_t hz, struct unic_pkt **pkts, uint16_t n,
			  uint64_t *tsc)
{
	uint64_t now = unic_rdtsc();
	uint8_t scratch[256];
	uint16_t stamped = 0;

	for (uint16_t i = 0; i < n; i++) {
		struct pg_parsed pp;
		uint64_t ns;

		tsc[i] = 0;
		if (pg_pkt_parse(pkts[i], scratch, sizeof(scratch), &pp) != PG_PARSE_OK || pp.stamp.tsc > now ||
		    pp.stamp.tsc == 0) {
			unic_counter_add(&c->unstamped, 1);
			continue;
		}
		ns = (uint64_t)((unsigned __int128)(now - pp.stamp.tsc) * 1000000000u / hz);
		unic_counter_add(&c->age_ns[l2fwd_age_bucket(ns)], 1);
		unic_counter_add(&c->stamped, 1);
		stamped++;
		tsc[i] = pp.stamp.tsc;
	}
	return stamped;
}

void l2fwd_sent_ages(struct l2fwd_port_counters *c, uint64_t hz, const uint64_t *tsc, uint16_t n)
{
	uint64_t now = unic_rdtsc();

	for (uint16_t i = 0; i < n; i++) {
		if (tsc[i] == 0 || tsc[i] > now)
			continue;
		unic_counter_add(&c->sent_age_ns[l2fwd_age_bucket(
					 (uint64_t)((unsigned __int128)(now - tsc[i]) * 1000000000u / hz))], 1);
	}
}

void l2fwd_tx_call(struct l2fwd_port_counters *c, uint64_t hz, uint64_t t0, uint64_t t1)
{
	if (t1 >= t0)
		unic_counter_add(&c->tx_call_ns[l2fwd_age_bucket(
					 (uint64_t)((unsigned __int128)(t1 - t0) * 1000000000u / hz))], 1);
}

static void forward(struct l2fwd_route *r, uint16_t q, struct unic_pkt **pkts, uint16_t n)
{
	if (r->mac_updating) {
		for (uint16_t i = 0; i < n; i++) {
			struct unic_pkt *p = pkts[i];

			if (i + 1 < n)
				unic_prefetch0(unic_pkt_data(pkts[i + 1]));
			/* A runt shorter than the two addresses goes out as it came. */
			if (UNIC_LIKELY(p->data_len >= sizeof(r->hdr)))
				memcpy(unic_pkt_data(p), r->hdr, sizeof(r->hdr));
		}
	}
	if (r->txb)
		hold_or_send(r, q, pkts, n);
	else
		send_now(r, q, pkts, n);
}

/* --stamp-age: the handler's slow path, apart so that the stamps' array is
 * on no other path's stack. */
static __attribute__((noinline)) void forward_stamped(struct l2fwd_route *r, uint16_t q, struct unic_pkt **pkts,
						     uint16_t n)
{
	uint64_t tsc[UNIC_NAPI_WEIGHT_MAX];

	while (n > 0) {
		uint16_t k = (uint16_t)UNIC_MIN((unsigned)n, (unsigned)UNIC_NAPI_WEIGHT_MAX);
		uint16_t stamped = l2fwd_stamp_ages(r->in_cnt, r->stamp_hz, pkts, k, tsc);
		uint64_t t0 = unic_rdtsc();

		forward(r, q, pkts, k);
		if (stamped) {
			l2fwd_sent_ages(r->in_cnt, r->stamp_hz, tsc, k);
			l2fwd_tx_call(r->in_cnt, r->stamp_hz, t0, unic_rdtsc());
		}
		pkts += k;
		n = (uint16_t)(n - k);
	}
}

uint16_t l2fwd_handle(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
		      uint16_t n, void *arg)
{
	struct l2fwd_route *r = arg;

	(void)port;
	unic_counter_add(&r->in_cnt->rx, n);
	if (UNIC_UNLIKELY(r->stamp_hz))
		forward_stamped(r, q, pkts, n);
	else
		forward(r, q, pkts, n);
	return n;
}

static void worker_round(struct unic_napi_ctx *ctx, void *arg)
{
	(void)ctx;
	l2fwd_txb_round(arg, unic_rdtsc());
}

static uint64_t worker_deadline(struct unic_napi_ctx *ctx, void *arg)
{
	(void)ctx;
	return l2fwd_txb_deadline_ns(arg);
}

int l2fwd_worker_setup(struct l2fwd_worker *w, const struct unic_napi_conf *conf)
{
	struct unic_napi_conf c = *conf;
	FILE *err = w->err ? w->err : stderr;
	uint32_t nq = w->nb_routes * w->nb_queues;
	int rc;

	/* A slot for every rx queue the thread polls and every tx queue it
	 * sends on: each send needs its claim (below). */
	if (c.max_queues < nq)
		c.max_queues = nq;
	if (c.max_txqs < nq)
		c.max_txqs = nq;
	w->ctx = unic_napi_ctx_create(&c);
	if (w->ctx == NULL)
		return -errno;
	for (unsigned i = 0; i < w->nb_routes; i++) {
		if (w->routes[i]->txb == NULL)
			continue;
		struct unic_napi_hooks h = { .sz = sizeof(h), .round = worker_round,
					     .next_deadline = worker_deadline, /* held frames bound the sleep */
					     .arg = w };

		rc = unic_napi_hooks_set(w->ctx, &h);
		if (rc)
			return rc;
		break;
	}
	/* Every queue of a port goes to the port's thread, so each counter
	 * keeps a single writer; rx queue q sends on tx queue q (the handler). */
	for (unsigned i = 0; i < w->nb_routes; i++) {
		struct l2fwd_route *r = w->routes[i];

		for (uint16_t q = 0; q < w->nb_queues; q++) {
			rc = unic_napi_queue_add(w->ctx, r->in, q, w->weight, l2fwd_handle, r);
			if (rc) {
				fprintf(err, "unic-l2fwd: error: thread %u: cannot poll %s rx queue %u: %s\n",
					w->idx, unic_port_name(r->in), q, strerror(-rc));
				return rc;
			}
			/* The handler sends on the out port's tx queue q: only
			 * with the claim may it (a stop, detach or device loss
			 * of that port waits for this thread only if it holds
			 * one), and the engine reclaims the queue's completions
			 * before it sleeps. -EEXIST: this thread holds it
			 * already. */
			rc = unic_napi_txq_add(w->ctx, r->out, q);
			if (rc && rc != -EEXIST) {
				fprintf(err, "unic-l2fwd: error: thread %u: cannot claim %s tx queue %u to send on: %s; a thread sends only on tx queues it claimed (the line above says why)\n",
					w->idx, unic_port_name(r->out), q, strerror(-rc));
				return rc;
			}
		}
	}
	return 0;
}

void l2fwd_worker_flush(struct l2fwd_worker *w)
{
	/* Held frames go out before the ports stop (the thread still holds
	 * its tx queues' claims here). */
	for (unsigned i = 0; i < w->nb_routes; i++)
		for (uint16_t q = 0; w->routes[i]->txb && q < w->nb_queues; q++)
			l2fwd_txb_flush(w->routes[i], q);
	for (unsigned p = 0; w->pools && p < w->nb_pools; p++)
		if (w->pools[p])
			unic_pool_cache_flush(w->pools[p]);
}

int l2fwd_worker_main(void *arg)
{
	struct l2fwd_worker *w = arg;
	clockid_t cid;

	if (pthread_getcpuclockid(pthread_self(), &cid) == 0) {
		w->cpu_clock = cid;
		__atomic_store_n(&w->cpu_clock_ok, 1, __ATOMIC_RELEASE);
	}
	w->ret = unic_napi_run(w->ctx, w->stop);
	l2fwd_worker_flush(w);
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		__atomic_store_n(&w->cpu_ns_final, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
				 __ATOMIC_RELEASE);
	return w->ret;
}
