/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi over ring ports: fairness between a flooded queue and a
 * trickle, back-pressure from a handler that refuses or leaves packets,
 * and packets injected into a queue (the suite: test_napi_wake.c).
 */
#include "napi_common.h"

/* ---- fairness ------------------------------------------------------------------ */

#define FAIR_TRICKLE 2000

struct fair {
	struct unic_napi_ctx *ctx;
	struct unic_port *tx;
	bool stop;
	uint64_t flood_handled;
	uint64_t trickle_handled;
	uint64_t sent_round[FAIR_TRICKLE];
	uint64_t handled_round[FAIR_TRICKLE];
	uint64_t sent_ns[FAIR_TRICKLE];
	uint64_t handled_ns[FAIR_TRICKLE];
	char err[128];
};

static uint64_t rounds_now(struct unic_napi_ctx *ctx)
{
	struct unic_napi_ctx_stats st;

	unic_napi_ctx_stats_get(ctx, &st);
	return st.rounds;
}

static uint16_t flood_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
			      uint16_t n, void *arg)
{
	struct fair *f = arg;

	(void)port;
	(void)q;
	unic_pkt_free_bulk(pkts, n);
	__atomic_store_n(&f->flood_handled, f->flood_handled + n, __ATOMIC_RELAXED);
	return n;
}

static uint16_t trickle_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
				uint16_t n, void *arg)
{
	struct fair *f = arg;
	uint64_t round = rounds_now(f->ctx);

	(void)port;
	(void)q;
	for (uint16_t i = 0; i < n; i++) {
		uint32_t seq = pkt_pay(pkts[i])->seq;

		if (seq < FAIR_TRICKLE) {
			f->handled_round[seq] = round;
			f->handled_ns[seq] = unic_time_ns();
		}
	}
	unic_pkt_free_bulk(pkts, n);
	__atomic_store_n(&f->trickle_handled, f->trickle_handled + n, __ATOMIC_RELEASE);
	return n;
}

/* Keeps queue 0's ring full; one packet at a time on queue 1, 200 us apart. */
static void *fair_producer(void *arg)
{
	struct fair *f = arg;
	uint64_t next = 0;
	uint32_t seq = 0;
	bool warm = false;

	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED) && seq < FAIR_TRICKLE) {
		struct unic_pkt *pkts[32];
		uint16_t n, sent;

		if (unic_pkt_alloc_bulk(pool, pkts, 32) == 0) {
			for (unsigned i = 0; i < 32; i++)
				unic_pkt_append(pkts[i], 60);
			sent = unic_tx_burst(f->tx, 0, pkts, 32);
			if (sent < 32)
				unic_pkt_free_bulk(pkts + sent, 32u - sent);
		}
		/* The trickle starts once the flood has filled a round: the
		 * claim is about a flood that is under way. */
		if (!warm) {
			warm = __atomic_load_n(&f->flood_handled, __ATOMIC_RELAXED) > 10000;
			continue;
		}
		/* A trickle: one packet at a time, the next 200 us after the
		 * last was handled. (Sent by the clock alone, packets pile up
		 * while a loaded machine keeps the context off its CPU, and a
		 * pile is a flood, not a trickle.) */
		if (unic_time_ns() >= next && __atomic_load_n(&f->trickle_handled, __ATOMIC_ACQUIRE) == seq) {
			struct unic_pkt *p = pkt_make(seq);

			if (p == NULL)
				continue;
			n = unic_tx_burst(f->tx, 1, &p, 1);
			if (n != 1) {
				unic_pkt_free(p);
				snprintf(f->err, sizeof(f->err), "trickle packet %u not taken", seq);
				break;
			}
			/* tx_burst fenced after the enqueue (ring's D1): a round
			 * that starts after this load sees the packet. */
			f->sent_round[seq] = rounds_now(f->ctx);
			f->sent_ns[seq++] = unic_time_ns();
			next = unic_time_ns() + 200000;
		}
	}
	unic_pool_cache_flush(pool);
	return NULL;
}

Test(napi, a_trickle_queue_next_to_a_flooded_one_waits_at_most_one_round)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	/* Budget = the flood's weight: the flooded queue alone could eat every
	 * round; it must not starve the other. */
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 64);
	struct fair *f = calloc(1, sizeof(*f));
	struct runner r;
	pthread_t prod;
	uint64_t worst = 0, hist[4] = { 0 };

	cr_assert_not_null(f);
	f->ctx = ctx;
	f->tx = tx;
	port_up(tx, 2);
	port_up(rx, 2);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, flood_handler, f), 0, "%s", logbuf);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 1, 64, trickle_handler, f), 0, "%s", logbuf);
	runner_start(&r, ctx);
	cr_assert_eq(pthread_create(&prod, NULL, fair_producer, f), 0);
	pthread_join(prod, NULL);
	{
		uint64_t t0 = unic_time_ns();

		while (__atomic_load_n(&f->trickle_handled, __ATOMIC_ACQUIRE) < FAIR_TRICKLE &&
		       unic_time_ns() - t0 < 2000000000ull)
			sleep_ns(1000000);
	}
	runner_stop(&r);
	cr_assert_eq(f->err[0], '\0', "%s", f->err);
	cr_assert_eq(f->trickle_handled, FAIR_TRICKLE);
	/* sent_round is read after the send, so a packet handled at once
	 * may show a round before it: what counts is that it never waits past
	 * the next round. */
	for (unsigned i = 0; i < FAIR_TRICKLE; i++) {
		int64_t w = (int64_t)(f->handled_round[i] - f->sent_round[i]);

		worst = w > (int64_t)worst ? (uint64_t)w : worst;
		if (w > 1 && hist[2] + hist[3] < 5)
			fprintf(stderr, "# packet %u: sent in round %" PRIu64 ", handled in round %" PRIu64
				", %.1f us later\n", i, f->sent_round[i], f->handled_round[i],
				(double)(f->handled_ns[i] - f->sent_ns[i]) / 1e3);
		hist[w <= 0 ? 0 : w < 3 ? w : 3]++;
	}
	fprintf(stderr, "# fairness: trickle packets handled in the round current at sending (or earlier): %" PRIu64
		", one round later: %" PRIu64 ", two: %" PRIu64 ", more: %" PRIu64 "; flood packets %" PRIu64 "\n",
		hist[0], hist[1], hist[2], hist[3], f->flood_handled);
	cr_assert_leq(worst, 1, "a trickle packet waited %" PRIu64 " rounds", worst);
	cr_assert_gt(f->flood_handled, 50ull * FAIR_TRICKLE, "queue 0 was not flooded (%" PRIu64 ")",
		     f->flood_handled);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	free(f);
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "pool in use: %u", unic_pool_in_use_count(pool));
}

struct qcount {
	uint64_t n[2];
};

static uint16_t qcount_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
			       uint16_t n, void *arg)
{
	struct qcount *c = arg;

	(void)port;
	c->n[q] += n;
	unic_pkt_free_bulk(pkts, n);
	return n;
}

/*
 * Deterministic half of the claim above: the flooded queue comes first in
 * the round and alone could take the whole budget (budget = its weight); the
 * other queue's packet is handled in that same round all the same.
 */
Test(napi, a_queue_with_work_gets_part_of_the_budget_even_behind_a_flooded_queue)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_POLL, 64);
	struct qcount c = { { 0, 0 } };

	port_up(tx, 2);
	port_up(rx, 2);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, qcount_handler, &c), 0, "%s", logbuf);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 1, 64, qcount_handler, &c), 0, "%s", logbuf);
	for (unsigned round = 0; round < 20; round++) {
		uint64_t before0 = c.n[0];
		int got;

		send_seq(tx, 0, round * 100, 100);
		send_seq(tx, 1, round, 1);
		got = unic_napi_run_once(ctx, 0);
		cr_assert_eq(c.n[1], round + 1, "round %u: the trickle packet waited (flood got %" PRIu64 ")",
			     round, c.n[0] - before0);
		/* Round 0 polls the flood first (both queues new, in order):
		 * it gets an equal part of the budget with the waiting queue.
		 * From then on the trickle, light, goes first and the flood,
		 * heavy, gets the rest: the whole budget is used. */
		cr_assert_geq(c.n[0] - before0, 32, "round %u: the flood got %" PRIu64, round, c.n[0] - before0);
		if (round > 0)
			cr_assert_eq(got, 64, "round %u: %d of the budget of 64 used", round, got);
	}
	/* What the flood still holds comes through once the trickle is quiet. */
	while (unic_napi_run_once(ctx, 0) > 0)
		;
	cr_assert_eq(c.n[0], 2000);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/* ---- back-pressure ----------------------------------------------------------------- */

struct bp {
	bool refuse;
	uint16_t take_max;     /* 0: everything */
	uint32_t expect;
	uint32_t disorder;
	uint32_t calls;
	uint64_t handled;
	uint64_t last_ns;
};

static uint16_t bp_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			   void *arg)
{
	struct bp *b = arg;
	uint16_t take = n;

	(void)port;
	(void)q;
	b->calls++;
	if (__atomic_load_n(&b->refuse, __ATOMIC_ACQUIRE))
		return 0;
	if (b->take_max && take > b->take_max)
		take = b->take_max;
	for (uint16_t i = 0; i < take; i++) {
		if (pkt_pay(pkts[i])->seq != b->expect)
			b->disorder++;
		b->expect = pkt_pay(pkts[i])->seq + 1;
	}
	unic_pkt_free_bulk(pkts, take);
	__atomic_store_n(&b->last_ns, unic_time_ns(), __ATOMIC_RELAXED);
	__atomic_store_n(&b->handled, b->handled + take, __ATOMIC_RELEASE);
	return take;
}

Test(napi, packets_refused_for_10ms_are_handled_within_5ms_of_the_handler_accepting_again)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct bp b = { .refuse = true };
	struct unic_napi_ctx_stats st0, st;
	struct runner r;
	uint64_t t_accept, cpu0, cpu1;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, bp_handler, &b), 0, "%s", logbuf);
	runner_start(&r, ctx);
	send_seq(tx, 0, 0, 200);
	sleep_ns(1000000);
	st0 = ctx_stats(ctx);
	cpu0 = thread_cpu_ns(r.tid);
	sleep_ns(9000000);
	st = ctx_stats(ctx);
	cpu1 = thread_cpu_ns(r.tid);
	t_accept = unic_time_ns();
	__atomic_store_n(&b.refuse, false, __ATOMIC_RELEASE);
	while (__atomic_load_n(&b.handled, __ATOMIC_ACQUIRE) < 200 && unic_time_ns() - t_accept < 2000000000ull)
		sleep_ns(50000);
	runner_stop(&r);

	cr_assert_eq(b.handled, 200, "%" PRIu64 " of 200 handled", b.handled);
	cr_assert_eq(b.disorder, 0, "order broken %u times", b.disorder);
	fprintf(stderr, "# back-pressure: all handled %.3f ms after the handler accepted again; "
		"while refusing (9 ms): %" PRIu64 " retry sleeps, %" PRIu64 " handler calls, %.2f ms CPU\n",
		(double)(b.last_ns - t_accept) / 1e6, st.sleeps_retry - st0.sleeps_retry, (uint64_t)b.calls,
		(double)(cpu1 - cpu0) / 1e6);
	cr_expect_lt(b.last_ns - t_accept, 5000000ull, "the held packets took %.3f ms",
		     (double)(b.last_ns - t_accept) / 1e6);
	cr_expect_gt(st.sleeps_retry, st0.sleeps_retry, "the context spun instead of sleeping the retry interval");
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(napi, packets_a_handler_leaves_come_back_first_and_in_order)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_POLL, 0);
	struct bp b = { .take_max = 3 };
	struct unic_napi_queue_stats qst;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 16, bp_handler, &b), 0, "%s", logbuf);
	send_seq(tx, 0, 0, 100);
	for (unsigned i = 0; i < 200 && b.handled < 100; i++) {
		if (i == 10)
			send_seq(tx, 0, 100, 50); /* more behind the held ones */
		cr_assert_geq(unic_napi_run_once(ctx, 0), 0);
	}
	for (unsigned i = 0; i < 200 && b.handled < 150; i++)
		cr_assert_geq(unic_napi_run_once(ctx, 0), 0);
	cr_assert_eq(b.handled, 150);
	cr_assert_eq(b.disorder, 0, "order broken %u times", b.disorder);
	cr_assert_eq(unic_napi_queue_stats_get(ctx, rx, 0, &qst), 0);
	cr_assert_eq(qst.packets, 150);
	cr_assert_gt(qst.refused, 0);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/* ---- injection ---------------------------------------------------------------------- */

Test(napi, injected_packets_wake_a_sleeping_context_at_once)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct bp b = { 0 };
	struct unic_pkt *pkts[10];
	struct unic_napi_ctx_stats st;
	struct runner r;
	uint64_t t0;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, bp_handler, &b), 0, "%s", logbuf);
	runner_start(&r, ctx);
	t0 = unic_time_ns();
	while (ctx_stats(ctx).sleeps == 0 && unic_time_ns() - t0 < 2000000000ull)
		sleep_ns(1000000);
	sleep_ns(2000000); /* asleep: nothing arrives */
	for (uint32_t i = 0; i < 10; i++)
		pkts[i] = pkt_make(i);
	t0 = unic_time_ns();
	cr_assert_eq(unic_napi_inject(ctx, rx, 0, pkts, 10), 10);
	while (__atomic_load_n(&b.handled, __ATOMIC_ACQUIRE) < 10 && unic_time_ns() - t0 < 2000000000ull)
		sleep_ns(20000);
	runner_stop(&r);
	st = ctx_stats(ctx);
	cr_assert_eq(b.handled, 10);
	cr_assert_eq(b.disorder, 0);
	cr_assert_eq(st.injected, 10);
	fprintf(stderr, "# injection: handled %.1f us after the inject call\n", (double)(b.last_ns - t0) / 1e3);
	/* max_sleep is 100 ms: well under it means the wake fd woke it. */
	cr_expect_lt(b.last_ns - t0, 50000000ull, "handled %.1f ms after injection",
		     (double)(b.last_ns - t0) / 1e6);
	cr_assert_eq(unic_napi_inject(ctx, tx, 0, pkts, 1), -ENOENT);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(napi, the_context_keeps_counting_packets_injected_into_a_queue_that_left_it)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct unic_pkt *pkts[5];
	struct unic_napi_ctx_stats st;

	port_up(tx, 1);
	port_up(rx, 1);
	/* The context never runs: injected packets wait, and the removal
	 * drops them. */
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	for (uint32_t i = 0; i < 5; i++)
		pkts[i] = pkt_make(i);
	cr_assert_eq(unic_napi_inject(ctx, rx, 0, pkts, 5), 5);
	cr_assert_eq(unic_napi_queue_remove(ctx, rx, 0), 0);
	st = ctx_stats(ctx);
	cr_assert_eq(st.injected, 5);
	cr_assert_eq(st.dropped, 5);
	/* The slot is taken again and its own counters restart... */
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	pkts[0] = pkt_make(5);
	cr_assert_eq(unic_napi_inject(ctx, rx, 0, pkts, 1), 1);
	/* ...the context's go on: 5 before, 1 now. */
	st = ctx_stats(ctx);
	cr_assert_eq(st.injected, 6, "the context counts %" PRIu64 " injected packets, 6 were", st.injected);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}
