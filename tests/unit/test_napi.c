/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi over ring ports (no root, no NIC): sudden stop in every mode, the
 * re-check, fairness, back-pressure, injection, teardown under traffic, and
 * the errors a person can cause. The idle tests are in test_napi_idle.c
 * (they measure CPU time and run alone).
 */
#include <sched.h>

#include <unic/event.h>

#include "napi_common.h"
#include "unic_port_driver.h" /* unic_port_device_lost: what a driver calls */

TestSuite(napi, .init = setup, .fini = teardown, .timeout = 240);

/* ---- sudden stop -------------------------------------------------------------- */

/*
 * A producer sends a burst, waits until every packet of it has been handled,
 * waits 0..2 ms, and repeats. A packet stranded behind a sleeping context
 * would wait for the next burst (or forever): more than 50 ms is a failure.
 */
#define SSTOP_BURSTS   10000
#define SSTOP_LIMIT_NS (50 * 1000000ull)
#define SSTOP_GAP_US   2000

struct sstop {
	uint64_t handled;      /* release: written after last_ns */
	uint64_t last_ns;
	uint32_t expect;
	uint32_t disorder;
};

static uint16_t sstop_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
			      uint16_t n, void *arg)
{
	struct sstop *s = arg;

	(void)port;
	(void)q;
	for (uint16_t i = 0; i < n; i++) {
		if (pkt_pay(pkts[i])->seq != s->expect)
			s->disorder++;
		s->expect = pkt_pay(pkts[i])->seq + 1;
	}
	unic_pkt_free_bulk(pkts, n);
	__atomic_store_n(&s->last_ns, unic_time_ns(), __ATOMIC_RELAXED);
	__atomic_store_n(&s->handled, s->handled + n, __ATOMIC_RELEASE);
	return n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void sudden_stop(enum unic_rx_mode mode)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(mode, 0);
	struct sstop s = { 0 };
	struct runner r;
	uint64_t *lat = calloc(SSTOP_BURSTS, sizeof(*lat));
	uint64_t target = 0, late = 0, late_wall = 0, sched_max = 0, t_start = unic_time_ns();
	uint32_t seq = 0, rnd = 12345;
	struct unic_napi_ctx_stats st;

	cr_assert_not_null(lat);
	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, sstop_handler, &s), 0, "%s", logbuf);
	runner_start(&r, ctx);

	for (unsigned b = 0; b < SSTOP_BURSTS; b++) {
		struct unic_pkt *pkts[32];
		uint16_t k, sent = 0;
		uint64_t t0, waited, rd0, rd1;

		rnd = rnd * 1103515245u + 12345u;
		k = (uint16_t)(1 + (rnd >> 16) % 32);
		for (uint16_t i = 0; i < k; i++) {
			pkts[i] = pkt_make(seq++);
			cr_assert_not_null(pkts[i], "pool dry: %u in use", unic_pool_in_use_count(pool));
		}
		rd0 = run_delay_ns(r.ktid) + run_delay_ns(0);
		t0 = unic_time_ns();
		while (sent < k)
			sent = (uint16_t)(sent + unic_tx_burst(tx, 0, pkts + sent, (uint16_t)(k - sent)));
		target += k;
		/* Sleep-wait (a spinning producer would steal the context's core
		 * on a 2-core machine); give up at 2 s to report, not hang. */
		while (__atomic_load_n(&s.handled, __ATOMIC_ACQUIRE) < target &&
		       unic_time_ns() - t0 < 2000000000ull)
			sleep_ns(10000);
		cr_assert_eq(__atomic_load_n(&s.handled, __ATOMIC_ACQUIRE), target,
			     "%s: burst %u of %u packets: %" PRIu64 " of %" PRIu64 " handled after 2 s: stranded",
			     unic_rx_mode_name(mode), b, k, s.handled, target);
		waited = __atomic_load_n(&s.last_ns, __ATOMIC_RELAXED) - t0;
		lat[b] = waited;
		if (waited > SSTOP_LIMIT_NS) {
			/* Late by the wall clock. Stranded means the context was
			 * not even waiting for a CPU: take away the time the
			 * context's thread and ours spent runnable on a busy
			 * machine (a spinning poll context is preempted). */
			rd1 = run_delay_ns(r.ktid) + run_delay_ns(0);
			late_wall++;
			sched_max = UNIC_MAX(sched_max, rd1 - rd0);
			if (waited - UNIC_MIN(waited, rd1 - rd0) > SSTOP_LIMIT_NS)
				late++;
		}
		rnd = rnd * 1103515245u + 12345u;
		sleep_ns((uint64_t)((rnd >> 8) % (SSTOP_GAP_US + 1)) * 1000);
	}
	runner_stop(&r);
	st = ctx_stats(ctx);
	qsort(lat, SSTOP_BURSTS, sizeof(*lat), cmp_u64);
	fprintf(stderr,
		"# sudden stop, %s: %u bursts in %.1f s; burst handled after (us): p50 %.1f p90 %.1f "
		"p99 %.1f p99.9 %.1f max %.1f; over 50 ms: %" PRIu64 " (%" PRIu64 " by the wall clock, "
		"up to %.1f ms of it waiting for a CPU); sleeps %" PRIu64
		" interrupts %" PRIu64 " arms %" PRIu64 " rechecks caught %" PRIu64 "\n",
		unic_rx_mode_name(mode), SSTOP_BURSTS, (double)(unic_time_ns() - t_start) / 1e9,
		lat[SSTOP_BURSTS / 2] / 1e3, lat[SSTOP_BURSTS * 9 / 10] / 1e3,
		lat[SSTOP_BURSTS * 99 / 100] / 1e3, lat[SSTOP_BURSTS * 999 / 1000] / 1e3,
		lat[SSTOP_BURSTS - 1] / 1e3, late, late_wall, sched_max / 1e6, st.sleeps, st.interrupts, st.arms,
		st.rechecks_caught);
	cr_expect_eq(late, 0, "%s: %" PRIu64 " bursts took over 50 ms not explained by waiting for a CPU (max %.1f ms)",
		     unic_rx_mode_name(mode), late, lat[SSTOP_BURSTS - 1] / 1e6);
	cr_expect_eq(s.disorder, 0, "packets out of order: %u", s.disorder);
	if (mode == UNIC_RX_MODE_POLL)
		cr_expect_eq(st.sleeps, 0, "a poll context slept");
	else
		cr_expect_gt(st.sleeps, SSTOP_BURSTS / 2, "the context hardly slept: the test did not test the wake");
	free(lat);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "pool in use: %u", unic_pool_in_use_count(pool));
}

Test(napi, no_burst_waits_over_50ms_after_traffic_stops_suddenly_in_hybrid_mode)
{
	sudden_stop(UNIC_RX_MODE_HYBRID);
}

Test(napi, no_burst_waits_over_50ms_after_traffic_stops_suddenly_in_interrupt_mode)
{
	sudden_stop(UNIC_RX_MODE_INTERRUPT);
}

Test(napi, no_burst_waits_over_50ms_after_traffic_stops_suddenly_in_poll_mode)
{
	sudden_stop(UNIC_RX_MODE_POLL);
}

/* ---- the re-check --------------------------------------------------------------- */

struct recheck {
	struct unic_port *tx;
	unsigned hook_calls;
	bool sent;
	uint64_t handled;
};

/* Between the drained poll and the arm: send one packet. The interrupt is
 * still off, so the doorbell does not ring; only the re-check can find it. */
static void recheck_pre_arm(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q, void *arg)
{
	struct recheck *rc = arg;
	struct unic_pkt *p;

	(void)ctx;
	(void)port;
	(void)q;
	rc->hook_calls++;
	if (rc->sent)
		return;
	p = pkt_make(7);
	if (p != NULL && unic_tx_burst(rc->tx, 0, &p, 1) == 1)
		rc->sent = true;
}

static uint16_t recheck_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
				uint16_t n, void *arg)
{
	struct recheck *rc = arg;

	(void)port;
	(void)q;
	unic_pkt_free_bulk(pkts, n);
	__atomic_fetch_add(&rc->handled, n, __ATOMIC_RELEASE);
	return n;
}

Test(napi, a_packet_sent_between_the_drained_poll_and_the_arm_is_handled_without_another_arriving)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_INTERRUPT, 0);
	struct recheck rc = { .tx = tx };
	struct unic_napi_hooks h = { .sz = sizeof(h), .pre_arm = recheck_pre_arm, .arg = &rc };
	struct unic_napi_queue_stats qst;
	struct runner r;
	uint64_t t0, doorbells = ~0ull;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_hooks_set(ctx, &h), 0);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, recheck_handler, &rc), 0, "%s", logbuf);
	runner_start(&r, ctx);
	t0 = unic_time_ns();
	while (__atomic_load_n(&rc.handled, __ATOMIC_ACQUIRE) == 0 && unic_time_ns() - t0 < 2000000000ull)
		sleep_ns(100000);
	runner_stop(&r);

	cr_assert(rc.sent, "the hook never ran (%u calls)", rc.hook_calls);
	cr_assert_eq(rc.handled, 1, "the packet sent in the window was not handled (%" PRIu64 ")",
		     rc.handled);
	cr_assert_eq(unic_napi_queue_stats_get(ctx, rx, 0, &qst), 0);
	cr_assert_geq(qst.rechecks_caught, 1, "the re-check did not catch it");
	cr_assert_eq(unic_port_xstat_by_name(rx, "rx_doorbell_writes", &doorbells), 0);
	cr_assert_eq(doorbells, 0, "the doorbell rang %" PRIu64 " times: the packet did not test the window",
		     doorbells);
	cr_log_info("re-check: caught %" PRIu64 ", arms %" PRIu64 ", hook calls %u", qst.rechecks_caught,
		    qst.arms, rc.hook_calls);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

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

/* ---- teardown -------------------------------------------------------------------------- */

struct td {
	struct unic_port *tx;
	bool stop;
	uint64_t handled;
	uint64_t after_stop;   /* handler called for a port that was not started */
};

static uint16_t td_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			   void *arg)
{
	struct td *t = arg;

	(void)q;
	/* Stop waits for our round boundary before it leaves "started": a
	 * handler that sees anything else ran after the port was torn down. */
	if (unic_port_state(port) != UNIC_PORT_STARTED)
		__atomic_fetch_add(&t->after_stop, 1, __ATOMIC_RELAXED);
	unic_pkt_free_bulk(pkts, n);
	__atomic_fetch_add(&t->handled, n, __ATOMIC_RELAXED);
	return n;
}

static void *td_blaster(void *arg)
{
	struct td *t = arg;

	while (!__atomic_load_n(&t->stop, __ATOMIC_RELAXED)) {
		struct unic_pkt *pkts[16];
		uint16_t sent;

		if (unic_pkt_alloc_bulk(pool, pkts, 16) != 0) {
			sched_yield();
			continue;
		}
		for (unsigned i = 0; i < 16; i++)
			unic_pkt_append(pkts[i], 60);
		sent = unic_tx_burst(t->tx, 0, pkts, 16);
		if (sent < 16) {
			unic_pkt_free_bulk(pkts + sent, 16u - sent);
			sched_yield();
		}
	}
	unic_pool_cache_flush(pool);
	return NULL;
}

Test(napi, stopping_a_port_while_its_queue_is_polled_under_traffic_a_thousand_times_is_safe)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct td t = { .tx = tx };
	struct unic_napi_queue_stats qst;
	struct runner r;
	pthread_t blaster;
	uint32_t rnd = 99;
	uint64_t t0 = unic_time_ns();

	port_up(tx, 1);
	port_up(rx, 1);
	runner_start(&r, ctx);
	cr_assert_eq(pthread_create(&blaster, NULL, td_blaster, &t), 0);
	for (unsigned i = 0; i < 1000; i++) {
		int rc = unic_napi_queue_add(ctx, rx, 0, 32, td_handler, &t);

		cr_assert_eq(rc, 0, "add %u: %s (%s)", i, strerror(-rc), logbuf);
		rnd = rnd * 1103515245u + 12345u;
		if ((rnd >> 16) % 4 != 0)
			sleep_ns((rnd >> 8) % 200000); /* sometimes stop at once */
		cr_assert_eq(unic_port_stop(rx), 0, "stop %u (%s)", i, logbuf);
		cr_assert_eq(unic_napi_queue_stats_get(ctx, rx, 0, &qst), -ENOENT,
			     "the queue is still in the context after stop");
		cr_assert_eq(unic_port_start(rx), 0);
	}
	/* Detach does the same. */
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 32, td_handler, &t), 0);
	sleep_ns(1000000);
	cr_assert_eq(unic_port_detach(rx), 0);
	cr_assert_eq(unic_napi_queue_stats_get(ctx, rx, 0, &qst), -ENOENT);
	__atomic_store_n(&t.stop, true, __ATOMIC_RELAXED);
	pthread_join(blaster, NULL);
	runner_stop(&r);
	fprintf(stderr, "# teardown: 1000 stops under traffic in %.2f s, %" PRIu64 " packets handled\n",
		(double)(unic_time_ns() - t0) / 1e9, t.handled);
	cr_assert_eq(t.after_stop, 0, "a handler ran %" PRIu64 " times after its port stopped", t.after_stop);
	cr_assert_gt(t.handled, 0);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "pool in use: %u", unic_pool_in_use_count(pool));
}

/*
 * The bus took the device back (what pmd/e1000e's release callback does,
 * with a ring port standing in): the queue's poller lets go at a round
 * boundary, the port stops, the application hears of it, and the port only
 * answers stats, close and detach from then on.
 */
static int lost_events;

static void lost_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	(void)port;
	cr_assert_eq(ev, UNIC_EVENT_DEV_REQUEST);
	(*(int *)arg)++;
}

Test(napi, a_device_taken_back_stops_its_port_under_traffic_and_leaves_stats_readable)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct td t = { .tx = tx };
	struct unic_napi_queue_stats qst;
	struct unic_port_stats st;
	struct unic_link link;
	struct runner r;
	pthread_t blaster;
	uint64_t handled;

	port_up(tx, 1);
	port_up(rx, 1);
	lost_events = 0;
	cr_assert_eq(unic_event_callback_register(rx, UNIC_EVENT_DEV_REQUEST, lost_cb, &lost_events), 0);
	runner_start(&r, ctx);
	cr_assert_eq(pthread_create(&blaster, NULL, td_blaster, &t), 0);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 32, td_handler, &t), 0);
	while (__atomic_load_n(&t.handled, __ATOMIC_RELAXED) < 10000)
		sleep_ns(100000);

	cr_assert_eq(unic_port_device_lost(rx, false), 0, "%s", logbuf);
	cr_assert_eq(unic_port_state(rx), UNIC_PORT_READY, "the port was not stopped");
	cr_assert_eq(unic_napi_queue_stats_get(ctx, rx, 0, &qst), -ENOENT,
		     "the queue is still in its context");
	handled = __atomic_load_n(&t.handled, __ATOMIC_RELAXED);
	sleep_ns(20000000);
	cr_assert_eq(__atomic_load_n(&t.handled, __ATOMIC_RELAXED), handled,
		     "packets were handled after the device was taken back");
	cr_assert_eq(t.after_stop, 0);

	/* What needs the device says so; stats still read. */
	logbuf[0] = '\0';
	cr_assert_eq(unic_port_link_get(rx, &link), -ENODEV);
	cr_assert(strstr(logbuf, "its device was released") != NULL, "log: %s", logbuf);
	cr_assert_eq(unic_port_start(rx), -ENODEV);
	cr_assert_eq(unic_port_promisc_set(rx, true), -ENODEV);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 32, td_handler, &t) < 0, true);
	cr_assert_eq(unic_port_stats_get(rx, &st), 0);
	cr_assert_geq(st.ipackets, handled, "stats after removal: %" PRIu64, st.ipackets);

	/* The application is told (dispatch runs the callback). */
	for (int i = 0; i < 100 && lost_events == 0; i++) {
		unic_event_dispatch();
		sleep_ns(1000000);
	}
	cr_assert_eq(lost_events, 1, "UNIC_EVENT_DEV_REQUEST reached the callback %d times", lost_events);
	cr_assert_eq(unic_port_device_lost(rx, false), 0, "a second request is harmless");

	__atomic_store_n(&t.stop, true, __ATOMIC_RELAXED);
	pthread_join(blaster, NULL);
	runner_stop(&r);
	unic_event_callback_unregister(rx, UNIC_EVENT_DEV_REQUEST, lost_cb, &lost_events);
	unic_napi_ctx_destroy(ctx);
	port_down(rx); /* close and detach still work */
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "pool in use: %u", unic_pool_in_use_count(pool));
}

/* A handler may stop the port it is polling: the context's own thread
 * releases the queue at once instead of waiting for itself. */
struct selfstop {
	struct unic_port *port;
	int rc;
	bool done;
};

static uint16_t selfstop_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
				 uint16_t n, void *arg)
{
	struct selfstop *s = arg;

	(void)q;
	if (!s->done) {
		s->done = true;
		s->rc = unic_port_stop(port);
	}
	unic_pkt_free_bulk(pkts, n);
	return n;
}

Test(napi, a_handler_can_stop_its_own_port)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct selfstop s = { .port = rx };
	struct unic_napi_queue_stats qst;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 4, selfstop_handler, &s), 0);
	send_seq(tx, 0, 0, 10);
	cr_assert_geq(unic_napi_run_once(ctx, 0), 0);
	cr_assert(s.done);
	cr_assert_eq(s.rc, 0, "stop from the handler: %s", strerror(-s.rc));
	cr_assert_eq(unic_port_state(rx), UNIC_PORT_READY);
	cr_assert_eq(unic_napi_queue_stats_get(ctx, rx, 0, &qst), -ENOENT);
	cr_assert_geq(unic_napi_run_once(ctx, 0), 0);
	unic_napi_ctx_destroy(ctx);
	port_down(rx); /* frees the 6 packets still in the ring */
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "pool in use: %u", unic_pool_in_use_count(pool));
}

/* ---- errors ---------------------------------------------------------------------------- */

Test(napi, a_weight_of_zero_is_refused_with_a_clear_error)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 0, drop_handler, NULL), -EINVAL);
	cr_assert(log_has("weight 0 refused"), "log: %s", logbuf);
	cr_assert(log_has("never be polled"), "log: %s", logbuf);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, UNIC_NAPI_WEIGHT_MAX + 1, drop_handler, NULL), -EINVAL);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, NULL, NULL), -EINVAL);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 3, 64, drop_handler, NULL), -EINVAL, "queue 3 does not exist");
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
}

Test(napi, a_queue_belongs_to_one_context_and_is_added_once)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *a = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct unic_napi_ctx *b = ctx_make(UNIC_RX_MODE_POLL, 0);
	struct unic_napi_queue_stats qst;
	struct unic_pkt *p;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(a, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	cr_assert_eq(unic_napi_queue_add(a, rx, 0, 64, drop_handler, NULL), -EEXIST);
	cr_assert(log_has("in this context already"), "log: %s", logbuf);
	cr_assert_eq(unic_napi_queue_add(b, rx, 0, 64, drop_handler, NULL), -EBUSY);
	cr_assert(log_has("polled by another context"), "log: %s", logbuf);
	cr_assert_eq(unic_napi_queue_remove(b, rx, 0), -ENOENT);
	p = pkt_make(0);
	cr_assert_eq(unic_napi_inject(b, rx, 0, &p, 1), -ENOENT);
	/* Removed from a, it may go to b. */
	cr_assert_eq(unic_napi_queue_remove(a, rx, 0), 0);
	cr_assert_eq(unic_napi_queue_stats_get(a, rx, 0, &qst), -ENOENT);
	cr_assert_eq(unic_napi_queue_add(b, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	cr_assert_eq(unic_napi_inject(b, rx, 0, &p, 1), 1);
	cr_assert_geq(unic_napi_run_once(b, 0), 1);
	/* A stopped port's queues leave their context and cannot be added. */
	cr_assert_eq(unic_port_stop(rx), 0);
	cr_assert_eq(unic_napi_queue_stats_get(b, rx, 0, &qst), -ENOENT);
	cr_assert_eq(unic_napi_queue_add(b, rx, 0, 64, drop_handler, NULL), -EINVAL);
	cr_assert(log_has("must be started"), "log: %s", logbuf);
	unic_napi_ctx_destroy(a);
	unic_napi_ctx_destroy(b);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(napi, a_mode_left_zero_makes_a_hybrid_context_and_a_named_mode_is_kept)
{
	static const enum unic_rx_mode named[] = { UNIC_RX_MODE_POLL, UNIC_RX_MODE_INTERRUPT,
						   UNIC_RX_MODE_HYBRID };
	struct unic_napi_conf c = { .sz = sizeof(c) };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&c);

	cr_assert_not_null(ctx, "%s", logbuf);
	cr_assert_eq(unic_napi_ctx_mode(ctx), UNIC_RX_MODE_HYBRID, "mode: %s",
		     unic_rx_mode_name(unic_napi_ctx_mode(ctx)));
	unic_napi_ctx_destroy(ctx);
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(named); i++) {
		c.mode = named[i];
		ctx = unic_napi_ctx_create(&c);
		cr_assert_not_null(ctx, "%s", logbuf);
		cr_assert_eq(unic_napi_ctx_mode(ctx), named[i], "asked %s, got %s", unic_rx_mode_name(named[i]),
			     unic_rx_mode_name(unic_napi_ctx_mode(ctx)));
		unic_napi_ctx_destroy(ctx);
	}
}

Test(napi, a_context_refuses_a_conf_without_its_size_or_with_a_bad_mode)
{
	struct unic_napi_conf c = { 0 };

	errno = 0;
	cr_assert_null(unic_napi_ctx_create(&c));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_has("sizeof(struct unic_napi_conf)"), "log: %s", logbuf);
	c.sz = sizeof(c);
	c.mode = (enum unic_rx_mode)7;
	cr_assert_null(unic_napi_ctx_create(&c));
	c.mode = UNIC_RX_MODE_HYBRID;
	c.budget = UNIC_NAPI_BUDGET_MAX + 1;
	cr_assert_null(unic_napi_ctx_create(&c));
	unic_napi_ctx_destroy(NULL);
}

Test(napi, a_queue_without_interrupts_is_polled_and_keeps_the_context_awake)
{
	struct unic_port *np = port_create("null0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .numa_node = -1 };
	struct unic_napi_ctx_stats st;

	cr_assert_eq(unic_port_configure(np, &conf), 0);
	cr_assert_eq(unic_port_rx_queue_setup(np, 0, &rc), 0, "%s", logbuf);
	cr_assert_eq(unic_port_tx_queue_setup(np, 0, &tc), 0);
	cr_assert_eq(unic_port_start(np), 0);
	cr_assert_eq(unic_napi_queue_add(ctx, np, 0, 8, drop_handler, NULL), 0, "%s", logbuf);
	cr_assert(log_has("has no rx interrupt"), "log: %s", logbuf);
	for (unsigned i = 0; i < 100; i++)
		cr_assert_eq(unic_napi_run_once(ctx, 10000), 8);
	st = ctx_stats(ctx);
	cr_assert_eq(st.sleeps, 0);
	cr_assert_eq(st.arm_failures, 1);
	cr_assert_eq(st.packets, 800);
	unic_napi_ctx_destroy(ctx);
	port_down(np);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(napi, xstats_name_every_counter_of_the_context_and_its_queues)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_INTERRUPT, 0);
	struct unic_xstat_name names[256];
	uint64_t vals[256];
	int n, m;
	bool rounds = false, qpackets = false;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0);
	send_seq(tx, 0, 0, 5);
	cr_assert_eq(unic_napi_run_once(ctx, 0), 5);
	n = unic_napi_xstats_names(ctx, names, 256);
	m = unic_napi_xstats_get(ctx, vals, 256);
	cr_assert_gt(n, 50);
	cr_assert_eq(n, m);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i].name, "napi_rounds") == 0)
			rounds = vals[i] == 1;
		if (strcmp(names[i].name, "napi_ring1_q0_packets") == 0)
			qpackets = vals[i] == 5;
	}
	cr_assert(rounds && qpackets, "napi_rounds = 1 and napi_ring1_q0_packets = 5 expected");
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
}

/* ---- hybrid's polling window ------------------------------------------------------- */

/* Counts handled packets (for the window test's producer to wait on). */
static uint16_t count_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			      void *arg)
{
	(void)port;
	(void)q;
	unic_pkt_free_bulk(pkts, n);
	__atomic_fetch_add((uint64_t *)arg, n, __ATOMIC_RELEASE);
	return n;
}

/* Send @p n packets, one every @p gap_ns (spinning on the clock), then wait
 * until all are handled. */
static void paced_send(struct unic_port *tx, uint32_t n, uint64_t gap_ns, const uint64_t *handled,
		       uint64_t target)
{
	uint64_t due = unic_time_ns();

	for (uint32_t i = 0; i < n; i++, due += gap_ns) {
		struct unic_pkt *p;

		while (unic_time_ns() < due)
			unic_pause();
		p = pkt_make(i);
		cr_assert_not_null(p);
		while (unic_tx_burst(tx, 0, &p, 1) == 0) /* ring full: the context was preempted */
			cr_assert_lt(unic_time_ns() - due, 2000000000ull, "ring full for 2 s");
	}
	while (__atomic_load_n(handled, __ATOMIC_ACQUIRE) < target)
		sleep_ns(100000);
}

/*
 * Dense traffic (a packet every 10 us, under hybrid_idle_us = 50) grows the
 * window: the context polls through the gaps instead of taking an interrupt
 * for each packet. Then traffic whose gaps (80 us) no window up to 50 us can
 * bridge must shrink it back: polling there is CPU spent for nothing.
 * (The rule before judged by the length of the sleep alone, which a window
 * near 50 us keeps short under 80 us gaps; that state needs pacing more
 * exact than a busy 2-core machine gives, so this test guards the two
 * behaviours, not that state: the old rule passes it too.)
 */
Test(napi, hybrid_polls_through_dense_traffic_and_stops_polling_when_gaps_exceed_its_window)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_HYBRID, 0);
	struct unic_napi_ctx_stats s0, s1, s2;
	uint64_t handled = 0, c1, c2, t1, t2;
	double dense_ipp, sparse_cpu, sparse_polls;
	struct runner r;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, count_handler, &handled), 0, "%s", logbuf);
	runner_start(&r, ctx);
	sleep_ns(20000000);
	s0 = ctx_stats(ctx);
	paced_send(tx, 20000, 10000, &handled, 20000);
	s1 = ctx_stats(ctx);
	c1 = thread_cpu_ns(r.tid);
	t1 = unic_time_ns();
	paced_send(tx, 5000, 80000, &handled, 25000);
	s2 = ctx_stats(ctx);
	c2 = thread_cpu_ns(r.tid);
	t2 = unic_time_ns();
	runner_stop(&r);

	dense_ipp = (double)(s1.interrupts - s0.interrupts) / 20000.0;
	sparse_cpu = (double)(c2 - c1) / (double)(t2 - t1);
	sparse_polls = (double)(s2.empty_polls - s1.empty_polls) / 5000.0;
	fprintf(stderr, "# hybrid window: every 10 us: %.3f interrupts per packet; every 80 us: "
		"%.1f%% CPU, %.0f empty polls and %.3f interrupts per packet, asleep %.0f%%\n",
		dense_ipp, 100.0 * sparse_cpu, sparse_polls,
		(double)(s2.interrupts - s1.interrupts) / 5000.0,
		100.0 * (double)(s2.asleep_ns - s1.asleep_ns) / (double)(t2 - t1));
	cr_expect_lt(dense_ipp, 0.5, "every 10 us: %.3f interrupts per packet: the window did not grow",
		     dense_ipp);
	/* A window stuck near 50 us would keep the thread busy for most of
	 * every 80 us gap; without it, a wake, a handler call, a few empty polls
	 * and a sleep take a few us per packet. */
	cr_expect_lt(sparse_cpu, 0.3, "every 80 us: %.1f%% CPU (%.0f empty polls per packet): the window "
		     "did not shrink", 100.0 * sparse_cpu, sparse_polls);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/* ---- tx queue claims ------------------------------------------------------ */

static struct unic_port *null_up(const char *spec, uint16_t nq)
{
	struct unic_port *p = port_create(spec);
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = nq, .nb_txq = nq };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 32, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 32, .numa_node = -1 };

	cr_assert_eq(unic_port_configure(p, &conf), 0, "%s", logbuf);
	for (uint16_t q = 0; q < nq; q++) {
		cr_assert_eq(unic_port_rx_queue_setup(p, q, &rc), 0, "%s", logbuf);
		cr_assert_eq(unic_port_tx_queue_setup(p, q, &tc), 0, "%s", logbuf);
	}
	cr_assert_eq(unic_port_start(p), 0, "%s", logbuf);
	return p;
}

Test(napi, a_context_claims_as_many_tx_queues_as_its_max_txqs_and_says_when_it_is_full)
{
	struct unic_port *a = null_up("null0", 16), *b = null_up("null1", 16);
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_POLL, 0); /* max_txqs 0: max_queues, 32 */
	struct unic_napi_conf c = { .sz = sizeof(c), .mode = UNIC_RX_MODE_POLL, .max_txqs = 1025 };
	struct unic_napi_ctx *small;

	/* Every tx queue of two 16-queue ports: 32 claims, well past 8. */
	for (uint16_t q = 0; q < 16; q++) {
		cr_assert_eq(unic_napi_txq_add(ctx, a, q), 0, "a tx %u: %s", q, logbuf);
		cr_assert_eq(unic_napi_txq_add(ctx, b, q), 0, "b tx %u: %s", q, logbuf);
	}
	cr_assert_eq(unic_napi_txq_add(ctx, a, 15), -EEXIST);
	/* Stopping b takes all 16 of its claims back (each one found and
	 * released): after a start they can all be claimed again. */
	cr_assert_eq(unic_port_stop(b), 0);
	cr_assert_eq(unic_port_start(b), 0);
	for (uint16_t q = 0; q < 16; q++)
		cr_assert_eq(unic_napi_txq_add(ctx, b, q), 0, "b tx %u after a restart: %s", q, logbuf);
	unic_napi_ctx_destroy(ctx);

	/* A context sized for 3: the fourth claim is refused, with what to do,
	 * and leaves no claim behind (another context may take the queue). */
	c.max_txqs = 3;
	small = unic_napi_ctx_create(&c);
	cr_assert_not_null(small, "%s", logbuf);
	for (uint16_t q = 0; q < 3; q++)
		cr_assert_eq(unic_napi_txq_add(small, a, q), 0, "%s", logbuf);
	cr_assert_eq(unic_napi_txq_add(small, a, 3), -ENOSPC);
	cr_assert(log_has("null0 tx queue 3: all 3 tx queue slots are in use; create the context with a larger max_txqs"),
		  "log: %s", logbuf);
	ctx = ctx_make(UNIC_RX_MODE_POLL, 0);
	cr_assert_eq(unic_napi_txq_add(ctx, a, 3), 0, "%s", logbuf);
	unic_napi_ctx_destroy(ctx);
	unic_napi_ctx_destroy(small);

	c.max_txqs = 1025;
	errno = 0;
	cr_assert_null(unic_napi_ctx_create(&c));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_has("max_txqs 1025 (up to 1024)"), "log: %s", logbuf);
	port_down(a);
	port_down(b);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}
