/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi over ring ports (no root, no NIC), when packets are handled:
 * no packet is stranded when traffic stops suddenly (every mode), the
 * re-check between the drained poll and the arm, and hybrid's polling
 * window. The other napi tests: test_napi_fair.c (fairness,
 * back-pressure, injection), test_napi_teardown.c, test_napi_conf.c
 * (errors, xstats, tx queue claims); the idle tests are in
 * test_napi_idle.c (they measure CPU time and run alone).
 */
#include "napi_common.h"

/* The suite of every test_napi_*.c file in this binary. */
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

/* In @p mode; hybrid with the adaptive policy when @p cpu_budget is set. */
static void sudden_stop_conf(enum unic_rx_mode mode, uint32_t latency_target_us, uint32_t cpu_budget)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_conf c = { .sz = sizeof(c), .name = unic_rx_mode_name(mode), .mode = mode,
				    .latency_target_us = latency_target_us, .cpu_budget = cpu_budget };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&c);
	struct sstop s = { 0 };
	struct runner r;
	uint64_t *lat = calloc(SSTOP_BURSTS, sizeof(*lat));
	uint64_t target = 0, late = 0, late_wall = 0, sched_max = 0, t_start = unic_time_ns();
	uint32_t seq = 0, rnd = 12345;
	struct unic_napi_ctx_stats st;

	cr_assert_not_null(ctx, "napi context: %s (%s)", strerror(errno), logbuf);
	cr_assert_not_null(lat);
	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, sstop_handler, &s), 0, "%s", logbuf);
	runner_start(&r, ctx);

	for (unsigned b = 0; b < SSTOP_BURSTS; b++) {
		struct unic_pkt *pkts[32];
		uint16_t k, sent = 0;
		uint64_t t0, waited, rd0, rd1, wall, cpu_wait;

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
		 * on a 2-core machine); give up after 2 s that the context did
		 * not spend waiting for a CPU, to report, not hang. */
		cr_assert(wait_count(&s.handled, target, r.ktid, 2000000000ull, &wall, &cpu_wait),
			  "%s: burst %u of %u packets: %" PRIu64 " of %" PRIu64 " handled after %.1f s "
			  "(%.1f s of it waiting for a CPU): stranded",
			  unic_rx_mode_name(mode), b, k, __atomic_load_n(&s.handled, __ATOMIC_ACQUIRE), target,
			  wall / 1e9, cpu_wait / 1e9);
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
		"# sudden stop, %s%s: %u bursts in %.1f s; burst handled after (us): p50 %.1f p90 %.1f "
		"p99 %.1f p99.9 %.1f max %.1f; over 50 ms: %" PRIu64 " (%" PRIu64 " by the wall clock, "
		"up to %.1f ms of it waiting for a CPU); sleeps %" PRIu64
		" interrupts %" PRIu64 " arms %" PRIu64 " rechecks caught %" PRIu64 "\n",
		unic_rx_mode_name(mode), cpu_budget ? " (adaptive)" : "", SSTOP_BURSTS,
		(double)(unic_time_ns() - t_start) / 1e9,
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

static void sudden_stop(enum unic_rx_mode mode)
{
	sudden_stop_conf(mode, 0, 0);
}

/* The adaptive policy (docs/napi.md): with the CPU budget alone (it
 * busy-waits only through gaps shorter than a wake-up), and with a latency
 * target below any wake-up (it also wakes itself before expected packets,
 * disarming queues on its own). */
Test(napi, no_burst_waits_over_50ms_after_traffic_stops_suddenly_in_adaptive_hybrid_mode)
{
	sudden_stop_conf(UNIC_RX_MODE_HYBRID, 0, 50);
}

Test(napi, no_burst_waits_over_50ms_after_traffic_stops_suddenly_in_adaptive_hybrid_mode_with_a_latency_target)
{
	sudden_stop_conf(UNIC_RX_MODE_HYBRID, 1, 25);
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
