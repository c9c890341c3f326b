/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi's adaptive policy (hybrid with latency_target_us / cpu_budget,
 * docs/napi.md "The adaptive policy") over ring ports, with arrival
 * processes the test makes: constant rate (dense and sparse), bursts,
 * on/off. The tests assert properties of the decisions, read from the
 * engine's own counters, never how long something took:
 *  - the knobs are validated;
 *  - arrivals denser than the wake cost are polled through (no sleeps);
 *  - the time spent busy-waiting stays within the CPU budget;
 *  - a latency target below the wake cost makes the context wake itself
 *    before regular packets, and not before irregular ones;
 *  - the gaps between bursts are slept through;
 *  - after traffic stops the context sleeps.
 * The sudden-stop tests (no stranded packet) run in this mode too, in
 * test_napi_wake.c.
 */
#include "napi_common.h"

TestSuite(napi_adaptive, .init = setup, .fini = teardown, .timeout = 120);

static struct unic_napi_ctx *actx_make(uint32_t target_us, uint32_t cpu_budget)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .name = "adaptive", .mode = UNIC_RX_MODE_HYBRID,
				    .latency_target_us = target_us, .cpu_budget = cpu_budget };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&c);

	cr_assert_not_null(ctx, "napi context: %s (%s)", strerror(errno), logbuf);
	return ctx;
}

static uint16_t count_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			      void *arg)
{
	(void)port;
	(void)q;
	unic_pkt_free_bulk(pkts, n);
	__atomic_fetch_add((uint64_t *)arg, n, __ATOMIC_RELEASE);
	return n;
}

/* Wait (sleeping) until @p target packets are handled by the context that
 * thread @p ktid runs: 2 s at most, not counting its waits for a CPU. */
static void wait_handled(const uint64_t *handled, uint64_t target, pid_t ktid)
{
	uint64_t wall, cpu_wait;

	cr_assert(wait_count(handled, target, ktid, 2000000000ull, &wall, &cpu_wait),
		  "stranded: %" PRIu64 " of %" PRIu64 " handled after %.1f s (%.1f s of it waiting for a CPU)",
		  __atomic_load_n(handled, __ATOMIC_ACQUIRE), target, wall / 1e9, cpu_wait / 1e9);
	cr_assert_eq(__atomic_load_n(handled, __ATOMIC_ACQUIRE), target, "more handled than sent: %" PRIu64
		     " of %" PRIu64, *handled, target);
}

/*
 * Send @p n bursts of @p k packets, one burst every @p gap_ns: spinning on
 * the clock when @p spin (dense), else sleeping (sparse: the test's thread
 * must not take the context's core).
 */
static void send_paced(struct unic_port *tx, uint32_t n, uint16_t k, uint64_t gap_ns, bool spin)
{
	uint64_t due = unic_time_ns();

	for (uint32_t i = 0; i < n; i++, due += gap_ns) {
		struct unic_pkt *p[32];
		uint16_t sent = 0;
		uint64_t now;

		while ((now = unic_time_ns()) < due) {
			if (spin)
				unic_pause();
			else
				sleep_ns(due - now);
		}
		for (uint16_t j = 0; j < k; j++) {
			p[j] = pkt_make(i * k + j);
			cr_assert_not_null(p[j]);
		}
		while (sent < k) {
			sent = (uint16_t)(sent + unic_tx_burst(tx, 0, p + sent, (uint16_t)(k - sent)));
			cr_assert_lt(unic_time_ns() - due, 2000000000ull, "ring full for 2 s");
		}
	}
}

/* ---- knobs ------------------------------------------------------------------------ */

static struct unic_napi_ctx *try_conf(enum unic_rx_mode mode, uint32_t target, uint32_t budget,
				      uint32_t idle_us)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .mode = mode, .latency_target_us = target,
				    .cpu_budget = budget, .hybrid_idle_us = idle_us };

	logcap_clear();
	errno = 0;
	return unic_napi_ctx_create(&c);
}

Test(napi_adaptive, the_knobs_are_validated_with_errors_that_say_what_to_do)
{
	struct unic_napi_ctx *ctx;
	struct unic_napi_ctx_stats st;

	/* Poll and interrupt modes never decide when to sleep. */
	cr_assert_null(try_conf(UNIC_RX_MODE_POLL, 100, 0, 0));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_has("hybrid mode's adaptive policy"), "log: %s", logbuf);
	cr_assert_null(try_conf(UNIC_RX_MODE_INTERRUPT, 0, 30, 0));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_has("UNIC_RX_MODE_HYBRID"), "log: %s", logbuf);
	/* Ranges. */
	cr_assert_null(try_conf(UNIC_RX_MODE_HYBRID, 0, 101, 0));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_has("1..100"), "log: %s", logbuf);
	cr_assert_null(try_conf(UNIC_RX_MODE_HYBRID, UNIC_NAPI_LATENCY_TARGET_MAX_US + 1, 0, 0));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_has("latency_target_us"), "log: %s", logbuf);
	/* The fixed window and the adaptive policy: one or the other. */
	cr_assert_null(try_conf(UNIC_RX_MODE_HYBRID, 50, 0, 20));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_has("leave hybrid_idle_us 0"), "log: %s", logbuf);
	/* Accepted: left to the default mode (hybrid), the edges. */
	ctx = try_conf(UNIC_RX_MODE_DEFAULT, UNIC_NAPI_LATENCY_TARGET_MAX_US, 100, 0);
	cr_assert_not_null(ctx, "%s", logbuf);
	unic_napi_ctx_destroy(ctx);
	ctx = try_conf(UNIC_RX_MODE_HYBRID, 0, 1, 0);
	cr_assert_not_null(ctx, "%s", logbuf);
	unic_napi_ctx_destroy(ctx);
	/* A target alone: the default budget, 25% of 100 ms of busy-waiting. */
	ctx = try_conf(UNIC_RX_MODE_HYBRID, 10, 0, 0);
	cr_assert_not_null(ctx, "%s", logbuf);
	cr_assert_geq(unic_napi_run_once(ctx, 1000), 0); /* a sleep publishes the estimates */
	st = ctx_stats(ctx);
	cr_assert_eq(st.budget_left_ns, UNIC_NAPI_CPU_BUDGET_DEFAULT * 1000000ull,
		     "budget %" PRIu64 " ns", st.budget_left_ns);
	cr_assert_gt(st.est_wake_ns, 0);
	unic_napi_ctx_destroy(ctx);
	/* Without the knobs, the adaptive counters stay 0. */
	ctx = try_conf(UNIC_RX_MODE_HYBRID, 0, 0, 0);
	cr_assert_not_null(ctx, "%s", logbuf);
	cr_assert_geq(unic_napi_run_once(ctx, 1000), 0);
	st = ctx_stats(ctx);
	cr_assert_eq(st.budget_left_ns + st.est_wake_ns + st.busy_polls_kept, 0);
	unic_napi_ctx_destroy(ctx);
}

/*
 * The arrival processes are driven from the context's own thread: the test
 * sends, then runs rounds (unic_napi_run_once) until the next packet is
 * due, each allowed to sleep until then at most (a sleep the policy
 * chooses ends when the packet would have rung). No second thread competes
 * for the two cores, and the packets come exactly when the test says, so
 * what the counters show is the policy's doing, not the scheduler's.
 */

/* A round's packets, counted by count_handler. */
static uint64_t drive_handled;

/*
 * @p n bursts of @p k packets, one every @p gap_ns +- up to @p jitter_ns
 * (uniform); @return the wall time
 * it took (ns). Asserts every packet was handled.
 */
static uint64_t drive_timed(struct unic_napi_ctx *ctx, struct unic_port *tx, uint32_t n, uint16_t k,
			    uint64_t gap_ns, uint64_t jitter_ns)
{
	uint64_t t0 = unic_time_ns(), due = t0, base = drive_handled;
	uint32_t rnd = 12345;

	for (uint32_t i = 0; i < n; i++) {
		struct unic_pkt *p[32];
		uint16_t sent = 0;
		uint64_t now;

		while ((now = unic_time_ns()) < due)
			cr_assert_geq(unic_napi_run_once(ctx, (int64_t)((due - now) / 1000)), 0);
		for (uint16_t j = 0; j < k; j++) {
			p[j] = pkt_make(i * k + j);
			cr_assert_not_null(p[j]);
		}
		while (sent < k)
			sent = (uint16_t)(sent + unic_tx_burst(tx, 0, p + sent, (uint16_t)(k - sent)));
		/* The next one a gap after this one (no catching up after a
		 * preemption: no bursts the test did not ask for). */
		rnd = rnd * 1103515245u + 12345u;
		due = now + gap_ns - jitter_ns + (jitter_ns ? (uint64_t)(rnd >> 8) % (2 * jitter_ns) : 0);
	}
	for (unsigned i = 0; i < 100 && drive_handled - base < (uint64_t)n * k; i++)
		cr_assert_geq(unic_napi_run_once(ctx, 0), 0);
	cr_assert_eq(drive_handled - base, (uint64_t)n * k, "stranded: %" PRIu64 " of %u handled",
		     drive_handled - base, n * k);
	return unic_time_ns() - t0;
}

/* A ring pair and an adaptive context on its rx queue. */
struct bench {
	struct unic_port *tx, *rx;
	struct unic_napi_ctx *ctx;
};

static void bench_up(struct bench *b, uint32_t target_us, uint32_t cpu_budget)
{
	b->tx = port_create("ring0");
	b->rx = port_create("ring1,peer=ring0");
	b->ctx = actx_make(target_us, cpu_budget);
	port_up(b->tx, 1);
	port_up(b->rx, 1);
	drive_handled = 0;
	cr_assert_eq(unic_napi_queue_add(b->ctx, b->rx, 0, 64, count_handler, &drive_handled), 0, "%s",
		     logbuf);
}

static void bench_down(struct bench *b)
{
	unic_napi_ctx_destroy(b->ctx);
	port_down(b->rx);
	port_down(b->tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/* ---- dense: polled through ------------------------------------------------------------ */

/*
 * A packet every 6 rounds (a few us: far less than a wake-up costs; the
 * test checks that against the engine's estimate): the next packet always
 * comes sooner than a wake would, so the policy keeps polling between them
 * and hardly ever arms (the decision to sleep). The fixed window at its
 * floor, and interrupt mode, arm after every packet.
 */
Test(napi_adaptive, arrivals_denser_than_the_wake_cost_are_polled_through_without_sleeping)
{
	const uint32_t n = 20000;
	double gap_us = 0, mean_us = 0, wake_us = 0;

	/*
	 * The premise is checked as the engine saw it (its own gap estimate
	 * against its wake cost). A preemption of the test's thread near the
	 * end makes the arrivals look sparse, and then the policy is right to
	 * sleep: such a run proves nothing either way and is run again, up to
	 * five times (CI's ASan build, two tests at a time, once saw 6.3 us
	 * apart against a wake cost of 12 us). The policy is judged on the
	 * first run whose arrivals were dense.
	 */
	for (unsigned attempt = 0; attempt < 5; attempt++) {
		struct bench b;
		struct unic_napi_ctx_stats st;
		uint64_t t0, t;

		bench_up(&b, 0, 100);
		t0 = unic_time_ns();
		for (uint32_t i = 0; i < n; i++) {
			struct unic_pkt *p = pkt_make(i);

			cr_assert_not_null(p);
			cr_assert_eq(unic_tx_burst(b.tx, 0, &p, 1), 1);
			for (unsigned r = 0; r < 6; r++)
				cr_assert_geq(unic_napi_run_once(b.ctx, 0), 0);
		}
		t = unic_time_ns() - t0;
		st = ctx_stats(b.ctx);
		fprintf(stderr, "# adaptive, dense (a packet every 6 rounds, %.2f us; wake cost %.1f us): "
			"%.4f arms per packet, %" PRIu64 " sleeps avoided, %" PRIu64 " polls kept, gap %.2f us\n",
			t / 1e3 / n, st.est_wake_ns / 1e3, (double)st.arms / n, st.sleeps_avoided,
			st.busy_polls_kept, st.est_gap_ns / 1e3);
		cr_assert_eq(drive_handled, n);
		cr_assert_gt(st.est_gap_ns, 0, "no gap estimate after %u packets", n);
		gap_us = st.est_gap_ns / 1e3;
		mean_us = t / 1e3 / n;
		wake_us = st.est_wake_ns / 1e3;
		if (st.est_gap_ns < st.est_wake_ns / 2) {
			cr_expect_lt(st.arms, n / 20, "%" PRIu64 " arms for %u packets denser than the wake cost",
				     st.arms, n);
			cr_expect_gt(st.sleeps_avoided, n / 2, "busy-waiting bridged only %" PRIu64 " of %u gaps",
				     st.sleeps_avoided, n);
			bench_down(&b);
			return;
		}
		bench_down(&b);
	}
	cr_assert_fail("in five runs the packets were never dense: the engine saw them %.2f us apart last "
		       "(%.2f us on average), wake cost %.2f us",
		       gap_us, mean_us, wake_us);
}

/* ---- the CPU budget ------------------------------------------------------------------- */

/*
 * A latency target of 1 us (below any wake cost) over sparse, regular
 * traffic (a packet every 500 us): the policy would wake before each
 * packet and poll until it comes, several percent of the time. With
 * cpu_budget 1, the time the engine counts as busy-waiting stays within 1%
 * of the wall time (plus the bucket's 1 ms, and slack for the rounds
 * charged before a refusal), and the budget did bind (budget_arms).
 */
Test(napi_adaptive, busy_waiting_stays_within_the_cpu_budget)
{
	struct bench b;
	struct unic_napi_ctx_stats st;
	const uint32_t n = 3000;
	double share;
	uint64_t t;

	bench_up(&b, 1, 1);
	t = drive_timed(b.ctx, b.tx, n, 1, 500000, 0);
	st = ctx_stats(b.ctx);
	share = (double)st.busy_wait_ns / (double)t;
	fprintf(stderr, "# adaptive, budget 1%%, target 1 us, a packet every 500 us: busy-waiting %.2f%% "
		"of %.2f s, budget arms %" PRIu64 ", prewakes %" PRIu64 ", sleeps %" PRIu64
		", target met %" PRIu64 " missed %" PRIu64 ", wake cost %.1f us, gap %.1f us\n",
		100.0 * share, t / 1e9, st.budget_arms, st.prewakes, st.sleeps, st.target_met,
		st.target_missed, st.est_wake_ns / 1e3, st.est_gap_ns / 1e3);
	cr_expect_gt(st.busy_polls_kept, 0, "the policy never kept polling: the test tested nothing");
	cr_expect_gt(st.budget_arms, 0, "the budget never bound: the test tested nothing");
	cr_expect_lt(share, 0.02, "busy-waiting %.2f%% of the time with cpu_budget 1", 100.0 * share);
	bench_down(&b);
}

/* ---- a latency target below the wake cost ------------------------------------------------ */

/*
 * The same sparse, regular traffic with the whole core allowed: instead of
 * sleeping until each packet, the context wakes itself before it is due
 * and polls: a pre-wake and a packet found by busy-waiting (a sleep
 * avoided) for most packets. Without the
 * target (cpu_budget alone) the same traffic is slept through: no pre-wake.
 */
static void sparse_regular(uint32_t target_us, struct unic_napi_ctx_stats *st, uint32_t n)
{
	struct bench b;
	uint64_t t;

	bench_up(&b, target_us, 100);
	t = drive_timed(b.ctx, b.tx, n, 1, 500000, 0);
	*st = ctx_stats(b.ctx);
	fprintf(stderr, "# adaptive, budget 100%%, target %u us, a packet every 500 us: prewakes %" PRIu64
		", sleeps avoided %" PRIu64 ", sleeps %" PRIu64 ", busy-waiting %.1f%%, target met %" PRIu64
		" missed %" PRIu64 ", gap %.1f us, wake cost %.1f us\n",
		target_us, st->prewakes, st->sleeps_avoided, st->sleeps, 100.0 * st->busy_wait_ns / t,
		st->target_met, st->target_missed, st->est_gap_ns / 1e3, st->est_wake_ns / 1e3);
	bench_down(&b);
}

Test(napi_adaptive, a_target_below_the_wake_cost_wakes_the_context_before_regular_packets)
{
	struct unic_napi_ctx_stats with, without;
	const uint32_t n = 2000;

	sparse_regular(1, &with, n);
	sparse_regular(0, &without, n);
	cr_expect_gt(with.prewakes, n / 4, "%" PRIu64 " pre-wakes for %u regular packets", with.prewakes, n);
	cr_expect_gt(with.sleeps_avoided, n / 4, "%" PRIu64 " of %u packets found by busy-waiting",
		     with.sleeps_avoided, n);
	/* Counted for every poll that found a packet (met or not depends on
	 * how long a round takes: a microsecond is about one here, more
	 * under a sanitizer, so no share is asserted). */
	cr_expect_geq(with.target_met + with.target_missed, n / 2, "target met %" PRIu64 ", missed %" PRIu64
		      " for %u packets", with.target_met, with.target_missed, n);
	cr_expect_eq(without.prewakes, 0, "pre-wakes without a target");
	cr_expect_eq(without.target_met + without.target_missed, 0, "a target counted without one");
	cr_expect_gt(without.sleeps, n / 2, "without a target, %" PRIu64 " sleeps for %u packets 500 us apart",
		     without.sleeps, n);
}

/*
 * Gaps drawn at random between 100 and 900 us: a pre-wake would seldom
 * find the packet near where the mean gap puts it, so the policy does not
 * try (a few, while the deviation estimate settles), and the packets are
 * slept for, target missed, budget kept.
 */
Test(napi_adaptive, irregular_arrivals_are_not_woken_for)
{
	struct bench b;
	struct unic_napi_ctx_stats st;
	const uint32_t n = 2000;
	uint64_t t;

	bench_up(&b, 1, 100);
	t = drive_timed(b.ctx, b.tx, n, 1, 500000, 400000);
	st = ctx_stats(b.ctx);
	fprintf(stderr, "# adaptive, budget 100%%, target 1 us, a packet every 100..900 us: prewakes %" PRIu64
		", sleeps %" PRIu64 ", busy-waiting %.2f%%, gap %.1f us\n", st.prewakes, st.sleeps,
		100.0 * st.busy_wait_ns / t, st.est_gap_ns / 1e3);
	cr_expect_lt(st.prewakes, n / 20, "%" PRIu64 " pre-wakes for %u packets at random gaps", st.prewakes, n);
	cr_expect_gt(st.sleeps, n / 2, "%" PRIu64 " sleeps for %u packets", st.sleeps, n);
	cr_expect_lt((double)st.busy_wait_ns / (double)t, 0.05, "busy-waiting %.1f%% of the time for packets at "
		     "random gaps", 100.0 * st.busy_wait_ns / t);
	bench_down(&b);
}

/*
 * A pacer's pattern: a packet every 500 us on a grid, but every 16th is
 * 450 us late and the next one follows it 20 us later (the sender
 * catching up), then the grid goes on. The late one comes after its
 * window (a miss nothing avoids). Taken as a gap, the 20 us would halve
 * the gap estimate and make the deviation jump past the regularity
 * test, and the next few packets, on time, would not be pre-woken for;
 * taken as a catch-up (napi_adaptive_arrival), the estimates stay and
 * they are. Driven from the context's thread, as drive_timed.
 */
static void drive_catch_up(struct unic_napi_ctx *ctx, struct unic_port *tx, uint32_t n, uint64_t gap_ns,
			   uint32_t every, uint64_t late_ns)
{
	uint64_t grid = unic_time_ns(), base = drive_handled;

	for (uint32_t i = 0; i < n; i++) {
		bool late = i % every == every - 1 && i + 1 < n;
		uint64_t due, now;
		struct unic_pkt *p;

		grid += gap_ns;
		due = grid + (late ? late_ns : 0);
		while ((now = unic_time_ns()) < due)
			cr_assert_geq(unic_napi_run_once(ctx, (int64_t)((due - now) / 1000)), 0);
		p = pkt_make(i);
		cr_assert_not_null(p);
		cr_assert_eq(unic_tx_burst(tx, 0, &p, 1), 1);
		if (late) {  /* polled 20 us (no sleep), then the packet owed */
			while (unic_time_ns() < now + 20000)
				cr_assert_geq(unic_napi_run_once(ctx, 0), 0);
			p = pkt_make(++i);
			cr_assert_not_null(p);
			cr_assert_eq(unic_tx_burst(tx, 0, &p, 1), 1);
			grid += gap_ns;
		}
		if (unic_time_ns() > grid + gap_ns) /* preempted: restart the grid, no catching up */
			grid = unic_time_ns();
	}
	for (unsigned i = 0; i < 100 && drive_handled - base < n; i++)
		cr_assert_geq(unic_napi_run_once(ctx, 0), 0);
	cr_assert_eq(drive_handled - base, n, "stranded: %" PRIu64 " of %u handled", drive_handled - base, n);
}

Test(napi_adaptive, a_pacers_catch_up_does_not_close_the_next_windows)
{
	struct bench b;
	struct unic_napi_ctx_stats st;
	const uint32_t n = 3200, every = 16, late = n / every;

	bench_up(&b, 1, 100);
	drive_catch_up(b.ctx, b.tx, n, 500000, every, 450000);
	st = ctx_stats(b.ctx);
	fprintf(stderr, "# adaptive, budget 100%%, target 1 us, every 500 us, every %uth 450 us late and one 20 us "
		"after it: prewakes %" PRIu64 ", found in the window %" PRIu64 ", target met %" PRIu64 " missed %" PRIu64
		" (woken: before the window %" PRIu64 ", in it %" PRIu64 ", after it %" PRIu64 ", no window %" PRIu64
		") for %u late packets, gap %.1f us, wake cost %.1f us\n", every, st.prewakes, st.sleeps_avoided,
		st.target_met, st.target_missed, st.target_early,
		st.target_late_wake, st.target_after_window, st.target_no_window, late, st.est_gap_ns / 1e3,
		st.est_wake_ns / 1e3);
	/* Each catch-up taken as a gap costs the pre-wakes of the next few
	 * packets: about a third of the packets were pre-woken for then, and
	 * a quarter found in their window (seen without the catch-up rule:
	 * about 1010 and 810 of 3200, in the default and the ASan builds
	 * alike; with it, 2300-3000 and 2100-2800). Found in the window is
	 * the target met as far as the window goes: whether the 1 us target
	 * was too depends on how long a round takes (more than that under a
	 * sanitizer, where none is met), so no share of target_met is
	 * asserted. */
	cr_expect_gt(st.prewakes, n / 2, "%" PRIu64 " pre-wakes for %u packets on a grid", st.prewakes, n);
	cr_expect_gt(st.sleeps_avoided, n / 2, "%" PRIu64 " of %u packets on a grid found in their window",
		     st.sleeps_avoided, n);
	cr_expect_leq(st.target_early + st.target_late_wake + st.target_after_window + st.target_no_window,
		      st.target_missed,
		      "the misses' causes add up to more than the misses");
	bench_down(&b);
}

/*
 * The sender stalls now and then: a packet every 500 us, but every 32nd
 * gap is 3 ms (the grid goes on from there). The gap sample of a stall
 * is far from the estimate; counted whole in the deviation it would shut
 * the regularity test for the next several packets, on time, and they
 * would not be pre-woken for. Counted up to 3/4 of a gap
 * (napi_adaptive_arrival), it moves the test by 3/16 of a gap. The
 * pre-wakes in the 8 gaps after each stall are compared with those in
 * the 8 before it, so a loaded machine, which costs pre-wakes everywhere,
 * does not decide it (seen on an idle machine: 480-492 of 792 after, the
 * gap estimate taking a few packets to come back; 4 with the whole
 * deviation counted). Driven from the context's thread, as drive_timed.
 */
Test(napi_adaptive, a_stall_of_the_sender_does_not_close_the_next_windows)
{
	struct bench b;
	struct unic_napi_ctx_stats st;
	const uint32_t n = 3200, every = 32, span = 8;
	uint64_t grid, before = 0, after = 0, mark = 0;

	bench_up(&b, 1, 100);
	grid = unic_time_ns();
	for (uint32_t i = 0; i < n; i++) {
		uint64_t now;
		struct unic_pkt *p;

		grid += 500000 + (i % every == 0 && i ? 2500000 : 0);
		while ((now = unic_time_ns()) < grid)
			cr_assert_geq(unic_napi_run_once(b.ctx, (int64_t)((grid - now) / 1000)), 0);
		if (i % every == every - span || i % every == 0 || i % every == span) {
			uint64_t pw = ctx_stats(b.ctx).prewakes;

			if (i % every == 0 && i)        /* the stalled one: the 8 before end */
				before += pw - mark;
			else if (i % every == span && i > every)  /* 8 after the stall */
				after += pw - mark;
			mark = pw;
		}
		p = pkt_make(i);
		cr_assert_not_null(p);
		cr_assert_eq(unic_tx_burst(b.tx, 0, &p, 1), 1);
		if (unic_time_ns() > grid + 500000) /* preempted: restart the grid, no catching up */
			grid = unic_time_ns();
	}
	for (unsigned i = 0; i < 100 && drive_handled < n; i++)
		cr_assert_geq(unic_napi_run_once(b.ctx, 0), 0);
	cr_assert_eq(drive_handled, n, "stranded: %" PRIu64 " of %u handled", drive_handled, n);
	st = ctx_stats(b.ctx);
	fprintf(stderr, "# adaptive, budget 100%%, target 1 us, every 500 us, one gap in %u of 3 ms: prewakes %" PRIu64
		" (%" PRIu64 " in the %u gaps before the stalls, %" PRIu64 " in the %u after), target met %" PRIu64
		" missed %" PRIu64 ", gap %.1f us, wake cost %.1f us\n", every, st.prewakes, before,
		span * (n / every - 1), after, span * (n / every - 1), st.target_met, st.target_missed,
		st.est_gap_ns / 1e3, st.est_wake_ns / 1e3);
	cr_expect_gt(before, span * (n / every - 1) / 4, "%" PRIu64 " pre-wakes in the gaps before the stalls: "
		     "the test tested nothing", before);
	cr_expect_gt(after * 3, before, "%" PRIu64 " pre-wakes in the %u gaps after the stalls, %" PRIu64
		     " in the ones before", after, span * (n / every - 1), before);
	bench_down(&b);
}

/* ---- bursts: the gaps between them are slept through ---------------------------------------- */

/*
 * Bursts of 32 packets every 2 ms: the gap that matters is the one between
 * bursts, far above the wake cost, so the context sleeps in each (about a
 * sleep per burst) and hardly busy-waits, with the whole core allowed.
 */
Test(napi_adaptive, the_gaps_between_bursts_are_slept_through)
{
	struct bench b;
	struct unic_napi_ctx_stats st;
	const uint32_t bursts = 500;
	double share;
	uint64_t t;

	bench_up(&b, 0, 100);
	t = drive_timed(b.ctx, b.tx, bursts, 32, 2000000, 0);
	st = ctx_stats(b.ctx);
	share = (double)st.busy_wait_ns / (double)t;
	fprintf(stderr, "# adaptive, bursts of 32 every 2 ms: %.2f sleeps per burst, busy-waiting %.2f%%, "
		"gap estimate %.1f us, wake cost %.1f us\n", (double)st.sleeps / bursts, 100.0 * share,
		st.est_gap_ns / 1e3, st.est_wake_ns / 1e3);
	cr_expect_gt(st.sleeps, bursts / 2, "%" PRIu64 " sleeps for %u bursts 2 ms apart", st.sleeps, bursts);
	cr_expect_lt(share, 0.05, "busy-waiting %.1f%% of the time between bursts", 100.0 * share);
	bench_down(&b);
}

/* ---- on/off: after traffic stops, the context sleeps ------------------------------------------ */

/*
 * Dense traffic (polled through), then silence: the context must go to
 * sleep, whatever its estimates say, and stay asleep: its rounds stop
 * moving (a handful a second: the max_sleep wake-ups) and it stops
 * busy-waiting. Three on/off cycles, so stale estimates cannot keep it up.
 */
Test(napi_adaptive, after_traffic_stops_the_context_sleeps)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = actx_make(1, 100);
	uint64_t handled = 0;
	struct runner r;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, count_handler, &handled), 0, "%s", logbuf);
	runner_start(&r, ctx);
	for (unsigned cycle = 0; cycle < 3; cycle++) {
		struct unic_napi_ctx_stats a = { 0 }, b = { 0 };
		uint64_t t0 = unic_time_ns();
		bool asleep = false;

		send_paced(tx, 5000, 1, 2000, true);
		wait_handled(&handled, 5000ull * (cycle + 1), r.ktid);
		/* Asleep: fewer than 5 rounds and no busy-waiting in 200 ms.
		 * Give it 3 s to get there (a loaded machine). */
		while (!asleep && unic_time_ns() - t0 < 3000000000ull) {
			a = ctx_stats(ctx);
			sleep_ns(200000000);
			b = ctx_stats(ctx);
			asleep = b.rounds - a.rounds < 5 && b.busy_wait_ns == a.busy_wait_ns;
		}
		fprintf(stderr, "# adaptive, on/off cycle %u: asleep %s %.2f s after the last packet "
			"(rounds %" PRIu64 " in the last 200 ms, polls kept %" PRIu64 ")\n", cycle,
			asleep ? "within" : "not after", (unic_time_ns() - t0) / 1e9, b.rounds - a.rounds,
			b.busy_polls_kept);
		cr_assert(asleep, "cycle %u: still polling 3 s after the traffic stopped (%" PRIu64
			  " rounds in 200 ms)", cycle, b.rounds - a.rounds);
	}
	runner_stop(&r);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}
