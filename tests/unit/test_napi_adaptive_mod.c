/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi's adaptive policy setting the device's interrupt moderation
 * (docs/napi.md, "The device's moderation"). The device is a ring port
 * whose ops table gains a coalesce op that records what it is asked (the
 * ring has no moderation of its own): the tests assert properties of the
 * values asked for under constant, bursty and on/off arrivals, never how
 * long something took:
 *  - arrivals denser than a wake-up get moderation, sparse ones and
 *    bursts far apart none;
 *  - with a latency target, nothing beyond it is asked;
 *  - after traffic stops the moderation goes back to none, and comes
 *    back with the traffic;
 *  - the decisions come at a bounded rate and are counted;
 *  - a port without moderation, or moderation_fixed, is left alone.
 * The context is driven from the test's thread (as in test_napi_adaptive.c):
 * the packets come when the test says.
 */
#include "napi_common.h"
#include "moder_rec.h"
#include "unic_port_driver.h"

TestSuite(napi_moderation, .init = setup, .fini = teardown, .timeout = 120);

static uint16_t count_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			      void *arg)
{
	(void)port;
	(void)q;
	unic_pkt_free_bulk(pkts, n);
	*(uint64_t *)arg += n;
	return n;
}

struct mbench {
	struct unic_port *tx, *rx;
	struct unic_napi_ctx *ctx;
	uint64_t handled, sent;
};

static void mbench_up(struct mbench *b, uint32_t target_us, uint32_t cpu_budget, bool recording,
		      bool fixed)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .name = "moder", .mode = UNIC_RX_MODE_HYBRID,
				    .latency_target_us = target_us, .cpu_budget = cpu_budget,
				    .moderation_fixed = fixed };

	memset(b, 0, sizeof(*b));
	b->tx = port_create("ring0");
	b->rx = port_create("ring1,peer=ring0");
	if (recording)
		rec_attach(b->rx);
	else
		memset(&rec, 0, sizeof(rec));
	b->ctx = unic_napi_ctx_create(&c);
	cr_assert_not_null(b->ctx, "napi context: %s (%s)", strerror(errno), logbuf);
	port_up(b->tx, 1);
	port_up(b->rx, 1);
	cr_assert_eq(unic_napi_queue_add(b->ctx, b->rx, 0, 64, count_handler, &b->handled), 0, "%s", logbuf);
}

static void mbench_down(struct mbench *b)
{
	unic_napi_ctx_destroy(b->ctx);
	port_down(b->rx);
	port_down(b->tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

static void send1(struct mbench *b, uint16_t k)
{
	struct unic_pkt *p[32];
	uint16_t sent = 0;

	for (uint16_t j = 0; j < k; j++) {
		p[j] = pkt_make((uint32_t)b->sent++);
		cr_assert_not_null(p[j]);
	}
	while (sent < k)
		sent = (uint16_t)(sent + unic_tx_burst(b->tx, 0, p + sent, (uint16_t)(k - sent)));
}

/* Dense for @p ms: a packet, then 6 rounds (a few us: less than a wake). */
static void drive_dense(struct mbench *b, unsigned ms)
{
	uint64_t end = unic_time_ns() + (uint64_t)ms * 1000000;

	while (unic_time_ns() < end) {
		send1(b, 1);
		for (unsigned r = 0; r < 6; r++)
			cr_assert_geq(unic_napi_run_once(b->ctx, 0), 0);
	}
}

/* @p n bursts of @p k, one every @p gap_ns; rounds sleep until the next is due. */
static void drive_paced(struct mbench *b, uint32_t n, uint16_t k, uint64_t gap_ns)
{
	uint64_t due = unic_time_ns();

	for (uint32_t i = 0; i < n; i++) {
		uint64_t now;

		while ((now = unic_time_ns()) < due)
			cr_assert_geq(unic_napi_run_once(b->ctx, (int64_t)((due - now) / 1000)), 0);
		send1(b, k);
		due = now + gap_ns;
	}
}

/* Rounds, sleeping as the context likes, for @p ms with no traffic. */
static void drive_idle(struct mbench *b, unsigned ms)
{
	uint64_t end = unic_time_ns() + (uint64_t)ms * 1000000;

	while (unic_time_ns() < end)
		cr_assert_geq(unic_napi_run_once(b->ctx, 1000), 0);
}

static void drain(struct mbench *b)
{
	for (unsigned i = 0; i < 100 && b->handled < b->sent; i++)
		cr_assert_geq(unic_napi_run_once(b->ctx, 0), 0);
	cr_assert_eq(b->handled, b->sent, "stranded: %" PRIu64 " of %" PRIu64, b->handled, b->sent);
}

static int64_t queue_mod_us(struct mbench *b)
{
	struct unic_napi_queue_info qi;

	cr_assert_eq(unic_napi_queues_get(b->ctx, &qi, 1), 1);
	return qi.moderation_us;
}

/* What the engine read back from the port after its last set. */
static int64_t queue_mod_effect_us(struct mbench *b)
{
	struct unic_napi_queue_info qi;

	cr_assert_eq(unic_napi_queues_get(b->ctx, &qi, 1), 1);
	return qi.moderation_effect_us;
}

/* The premise of a dense phase, as the engine saw it: gaps under half its
 * wake cost (a preemption of the test's thread can make them look sparse:
 * then the phase is run again). */
static bool dense_seen(struct mbench *b)
{
	struct unic_napi_ctx_stats st = ctx_stats(b->ctx);

	return st.est_gap_ns > 0 && st.est_gap_ns < st.est_wake_ns / 2;
}

/* ---- constant arrivals --------------------------------------------------------------------- */

/*
 * Packets a few microseconds apart (denser than a wake-up): the policy asks
 * the device to hold its interrupt back (rx_usecs > 0, at most 250 us), and
 * leaves tx_usecs alone. Then a packet every 500 us on a fresh context:
 * each would have its own interrupt anyway, so no delay is asked.
 */
Test(napi_moderation, dense_arrivals_get_moderation_and_sparse_ones_none)
{
	struct mbench b;
	struct unic_napi_ctx_stats st;
	bool dense = false;

	for (unsigned attempt = 0; attempt < 5 && !dense; attempt++) {
		mbench_up(&b, 0, 100, true, false);
		drive_dense(&b, 60);
		drain(&b);
		dense = dense_seen(&b);
		st = ctx_stats(b.ctx);
		fprintf(stderr, "# moderation, dense: gap %.2f us, wake cost %.1f us, %u sets (%s), last rx_usecs %u, "
			"queue's moderation_us %" PRId64 "\n", st.est_gap_ns / 1e3, st.est_wake_ns / 1e3,
			rec.sets, rec_list(), rec.rx_usecs, queue_mod_us(&b));
		if (dense) {
			cr_expect_gt(rec.sets, 0, "dense arrivals, no moderation asked");
			cr_expect_gt(rec.rx_usecs, 0, "dense arrivals (%.2f us apart, wake %.1f us): rx_usecs %u",
				     st.est_gap_ns / 1e3, st.est_wake_ns / 1e3, rec.rx_usecs);
			cr_expect_leq(rec.max_rx, 250, "rx_usecs %u asked: above the policy's bound", rec.max_rx);
			cr_expect_eq(rec.tx_usecs, 7, "tx_usecs changed to %u", rec.tx_usecs);
			cr_expect_eq(st.moderation_set, rec.sets, "moderation_set %" PRIu64 ", %u sets seen",
				     st.moderation_set, rec.sets);
			cr_expect_eq(queue_mod_us(&b), (int64_t)rec.rx_usecs);
			cr_expect_eq(queue_mod_effect_us(&b), (int64_t)rec.rx_usecs);
		}
		mbench_down(&b);
	}
	cr_assert(dense, "in five runs the packets were never dense as the engine saw them");

	mbench_up(&b, 0, 100, true, false);
	drive_paced(&b, 300, 1, 500000);
	drain(&b);
	st = ctx_stats(b.ctx);
	fprintf(stderr, "# moderation, a packet every 500 us: gap %.1f us, wake cost %.1f us, %u sets, "
		"largest rx_usecs %u\n", st.est_gap_ns / 1e3, st.est_wake_ns / 1e3, rec.sets, rec.max_rx);
	cr_expect_gt(rec.sets, 0, "sparse arrivals: the policy never said what it wants");
	cr_expect_eq(rec.max_rx, 0, "sparse arrivals (500 us apart): rx_usecs %u asked", rec.max_rx);
	mbench_down(&b);
}

/*
 * With a latency target, no moderation delay beyond it: dense arrivals
 * with a 30 us target never get more than 30 us, and a 1 us target (below
 * any wake-up) gets none at all.
 */
Test(napi_moderation, a_latency_target_bounds_the_moderation)
{
	static const uint32_t targets[] = { 30, 1 };

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(targets); i++) {
		bool dense = false;

		for (unsigned attempt = 0; attempt < 5 && !dense; attempt++) {
			struct mbench b;

			mbench_up(&b, targets[i], 100, true, false);
			drive_dense(&b, 60);
			drain(&b);
			dense = dense_seen(&b);
			fprintf(stderr, "# moderation, dense, target %u us: %u sets, largest rx_usecs %u\n",
				targets[i], rec.sets, rec.max_rx);
			if (dense) {
				cr_expect_gt(rec.sets, 0, "target %u us: nothing asked", targets[i]);
				cr_expect_leq(rec.max_rx, targets[i] - 1, "target %u us: rx_usecs %u asked",
					      targets[i], rec.max_rx);
			}
			mbench_down(&b);
		}
		cr_assert(dense, "in five runs the packets were never dense as the engine saw them");
	}
}

/* ---- bursts --------------------------------------------------------------------------------- */

/*
 * Bursts of 32 every 2 ms: one poll takes a whole burst, and one interrupt
 * per burst is what any moderation short of 2 ms gives too: none is asked.
 */
Test(napi_moderation, bursts_far_apart_get_no_moderation)
{
	struct mbench b;

	mbench_up(&b, 0, 100, true, false);
	drive_paced(&b, 100, 32, 2000000);
	drain(&b);
	fprintf(stderr, "# moderation, 32 every 2 ms: %u sets, largest rx_usecs %u\n", rec.sets, rec.max_rx);
	cr_expect_gt(rec.sets, 0, "bursts: the policy never said what it wants");
	cr_expect_eq(rec.max_rx, 0, "bursts 2 ms apart: rx_usecs %u asked", rec.max_rx);
	mbench_down(&b);
}

/* ---- on/off --------------------------------------------------------------------------------- */

/*
 * Dense, silent for 100 ms, dense again: moderation while dense, none
 * within the silence (a lone packet after it is not held back), and back
 * with the traffic. The decisions come at most every 10 ms: never more
 * sets than 10 ms intervals, and the counter matches.
 */
Test(napi_moderation, on_off_arrivals_turn_the_moderation_on_and_off_at_a_bounded_rate)
{
	bool done = false;

	for (unsigned attempt = 0; attempt < 5 && !done; attempt++) {
		struct mbench b;
		struct unic_napi_ctx_stats st;
		uint32_t on1, off, on2;
		uint64_t t0;

		mbench_up(&b, 0, 100, true, false);
		t0 = unic_time_ns();
		drive_dense(&b, 60);
		drain(&b);
		if (!dense_seen(&b)) {
			mbench_down(&b);
			continue;
		}
		on1 = rec.rx_usecs;
		drive_idle(&b, 100);
		off = rec.rx_usecs;
		drive_dense(&b, 60);
		drain(&b);
		if (!dense_seen(&b)) {
			mbench_down(&b);
			continue;
		}
		on2 = rec.rx_usecs;
		st = ctx_stats(b.ctx);
		fprintf(stderr, "# moderation, on/off: rx_usecs %u, after 100 ms idle %u, then %u; %u sets in "
			"%.0f ms\n", on1, off, on2, rec.sets, (unic_time_ns() - t0) / 1e6);
		cr_expect_gt(on1, 0, "dense: rx_usecs %u", on1);
		cr_expect_eq(off, 0, "after 100 ms without traffic: rx_usecs %u", off);
		cr_expect_gt(on2, 0, "dense again: rx_usecs %u", on2);
		cr_expect_leq(rec.sets, (unic_time_ns() - t0) / 10000000 + 1, "%u sets in %.0f ms", rec.sets,
			      (unic_time_ns() - t0) / 1e6);
		for (unsigned i = 1; i < rec.sets && i < REC_MAX; i++)
			/* 10 ms between the rounds' start times: the calls
			 * themselves come a little later in their round. */
			cr_expect_geq(rec.at[i] - rec.at[i - 1], 9000000ull, "sets %u and %u %.2f ms apart",
				      i - 1, i, (rec.at[i] - rec.at[i - 1]) / 1e6);
		cr_expect_eq(st.moderation_set, rec.sets);
		done = true;
		mbench_down(&b);
	}
	cr_assert(done, "in five runs the packets were never dense as the engine saw them");
}

/* ---- left alone ------------------------------------------------------------------------------- */

/*
 * A port without moderation (the plain ring: -ENOTSUP) is asked once and
 * then left alone, nothing counted, nothing logged above debug; with
 * moderation_fixed a port that has it is never asked; without the
 * adaptive policy neither.
 */
Test(napi_moderation, ports_without_it_or_with_it_fixed_are_left_alone)
{
	struct mbench b;
	struct unic_napi_ctx_stats st;

	mbench_up(&b, 0, 100, false, false);
	logcap_clear();
	drive_dense(&b, 30);
	drain(&b);
	st = ctx_stats(b.ctx);
	cr_expect_eq(st.moderation_set, 0);
	cr_expect_eq(queue_mod_us(&b), -1);
	cr_expect_eq(queue_mod_effect_us(&b), -1);
	cr_expect_eq(logbuf[0], 0, "logged: %s", logbuf);
	mbench_down(&b);

	mbench_up(&b, 0, 100, true, true);
	drive_dense(&b, 30);
	drain(&b);
	cr_expect_eq(rec.sets, 0, "moderation_fixed: %u sets", rec.sets);
	cr_expect_eq(ctx_stats(b.ctx).moderation_set, 0);
	mbench_down(&b);

	mbench_up(&b, 0, 0, true, false);
	drive_dense(&b, 30);
	drain(&b);
	cr_expect_eq(rec.sets, 0, "the fixed window: %u sets", rec.sets);
	mbench_down(&b);
}

/* ---- no toggling ------------------------------------------------------------------------------ */

/*
 * On/off with short gaps: dense for 5 ms, silent for 25 ms, over and
 * over, as a sender that stalls now and then gives. Each silence holds
 * one or two whole 10-ms decision intervals without a packet, and judged
 * interval by interval the moderation would flip off and on with every
 * cycle (two register writes). The policy keeps the value until it is
 * wanted in three decisions in a row: over 20 on/off cycles (600 ms,
 * about 60 decisions) it writes a handful of values at most, the first
 * among them a moderation (the traffic is dense more often than not),
 * and every frame is handed over.
 */
Test(napi_moderation, on_off_arrivals_with_short_gaps_do_not_toggle_the_moderation)
{
	bool done = false;

	for (unsigned attempt = 0; attempt < 5 && !done; attempt++) {
		struct mbench b;
		unsigned dense_phases = 0;
		uint64_t t0;

		mbench_up(&b, 0, 100, true, false);
		t0 = unic_time_ns();
		for (unsigned cycle = 0; cycle < 20; cycle++) {
			drive_dense(&b, 5);
			dense_phases += dense_seen(&b);
			drive_idle(&b, 25);
		}
		drain(&b);
		fprintf(stderr, "# moderation, 20 x (5 ms dense, 25 ms silent): %u of 20 phases dense as seen, "
			"%u sets in %.0f ms (%s)\n", dense_phases, rec.sets, (unic_time_ns() - t0) / 1e6, rec_list());
		if (dense_phases < 15) {
			mbench_down(&b);
			continue; /* preempted too often to call the traffic dense */
		}
		cr_expect_gt(rec.sets, 0, "dense phases: nothing asked");
		cr_expect_leq(rec.sets, 4, "%u values written in 20 on/off cycles: the moderation toggles (%s)",
			      rec.sets, rec_list());
		cr_expect_eq(ctx_stats(b.ctx).moderation_set, rec.sets);
		done = true;
		mbench_down(&b);
	}
	cr_assert(done, "in five runs the packets were never dense enough as the engine saw them");
}

/* ---- a device that counts frames ------------------------------------------------------------- */

/* Idle rounds for @p ms, each sleeping up to 10 ms: @return the wake-ups. */
static uint64_t idle_wakeups(struct mbench *b, unsigned ms)
{
	uint64_t w0 = ctx_stats(b->ctx).wakeups, end = unic_time_ns() + (uint64_t)ms * 1000000;

	while (unic_time_ns() < end)
		cr_assert_geq(unic_napi_run_once(b->ctx, 10000), 0);
	return ctx_stats(b->ctx).wakeups - w0;
}

/*
 * A device whose moderation counts frames and has no timer (virtio's event
 * index: rx_max_frames > 1 read back) interrupts only when the frames it
 * waits for have come: the context keeps the time bound itself. Dense
 * arrivals get a moderation of several frames (rate x time); then, while
 * its queue is armed under it and nothing rings, the context sleeps no
 * longer than rx_usecs: in 20 ms of rounds that may each sleep 10 ms it
 * wakes far more than twice. A frame sent meanwhile is handed over without
 * any interrupt. After the traffic stopped the moderation goes back to
 * none, the queue is armed again as usual (an arm that rings) and the
 * context sleeps its 10 ms again.
 */
Test(napi_moderation, under_a_frame_counting_moderation_the_context_sleeps_no_longer_than_rx_usecs)
{
	bool done = false;

	for (unsigned attempt = 0; attempt < 5 && !done; attempt++) {
		struct mbench b;
		uint64_t w_held, w_after, h0, i0;
		uint32_t frames, usecs;
		unsigned k;

		mbench_up(&b, 0, 100, true, false);
		rec.counting = true;
		drive_dense(&b, 60);
		drain(&b);
		if (!dense_seen(&b) || rec.rx_usecs == 0) {
			mbench_down(&b);
			continue;
		}
		frames = rec.frames;
		usecs = rec.rx_usecs;
		cr_expect_gt(frames, 1, "dense (gap %.2f us), rx_usecs %u: rx_max_frames %u",
			     ctx_stats(b.ctx).est_gap_ns / 1e3, usecs, frames);
		w_held = idle_wakeups(&b, 20);
		/* A frame under the held arm: no interrupt will come. */
		h0 = b.handled;
		send1(&b, 1);
		for (k = 0; k < 50 && b.handled == h0; k++)
			cr_assert_geq(unic_napi_run_once(b.ctx, 10000), 0);
		cr_expect_gt(b.handled, h0, "a frame under the held arm was never handed over");
		i0 = rec.arms_rung;
		drive_idle(&b, 100);
		w_after = idle_wakeups(&b, 30);
		fprintf(stderr, "# moderation, counting device: rx_usecs %u, rx_max_frames %u, %u arms held; "
			"20 ms armed under it: %" PRIu64 " wake-ups; the frame sent then: %u rounds; "
			"after the traffic stopped rx_usecs %u, 30 ms: %" PRIu64 " wake-ups\n",
			usecs, frames, rec.arms_held, w_held, k, rec.rx_usecs, w_after);
		cr_expect_gt(rec.arms_held, 0, "the queue was never armed under the moderation");
		cr_expect_geq(w_held, 10, "armed under %u frames (rx_usecs %u): %" PRIu64 " wake-ups in 20 ms: "
			      "the sleeps are not bounded by rx_usecs", frames, usecs, w_held);
		cr_expect_eq(rec.rx_usecs, 0, "100 ms without traffic: rx_usecs %u", rec.rx_usecs);
		cr_expect_leq(w_after, 8, "no moderation: %" PRIu64 " wake-ups in 30 ms of 10-ms sleeps", w_after);
		cr_expect_gt(rec.arms_rung, i0, "the moderation went, and the queue stayed armed under its count "
			     "(no arm since): the next frame would not ring");
		drain(&b);
		done = true;
		mbench_down(&b);
	}
	cr_assert(done, "in five runs the packets were never dense as the engine saw them");
}

/* ---- the switch: adaptive or fixed, at run time ------------------------------------------------ */

/*
 * ethtool's adaptive-rx off, then on (unic_napi_moderation_set): once
 * the port is switched to fixed, a value set by hand stays through ten
 * decision intervals of arrivals for which the policy wants another value
 * (it had written a moderation for dense ones, and sparse ones want none);
 * switched back to adaptive, the policy's next decision replaces the hand
 * value at once. Dense arrivals first, so that what the policy last wrote
 * differs from what it wants next: a switch that did nothing would let it
 * overwrite the hand value after three decisions.
 */
Test(napi_moderation, a_hand_value_survives_the_policy_once_fixed_and_adaptive_resumes_after)
{
	struct unic_coalesce c = { .rx_usecs = 77, .tx_usecs = 7 };
	struct mbench b;
	unsigned sets;
	bool dense = false;

	for (unsigned attempt = 0; attempt < 5 && !dense; attempt++) {
		mbench_up(&b, 0, 100, true, false);
		cr_assert_eq(unic_napi_moderation_get(b.ctx, b.rx), 0, "adaptive at create");
		cr_assert_eq(unic_napi_moderation_get(b.ctx, NULL), 0);
		drive_dense(&b, 60);
		drain(&b);
		dense = rec.rx_usecs > 0;
		if (!dense)
			mbench_down(&b);
	}
	cr_assert(dense, "in five runs the policy never wrote a moderation for dense arrivals (%s)", rec_list());

	cr_assert_eq(unic_napi_moderation_set(b.ctx, b.rx, true), 0, "%s", logbuf);
	cr_assert_eq(unic_napi_moderation_get(b.ctx, b.rx), 1);
	cr_assert_eq(unic_port_coalesce_set(b.rx, &c), 0);
	sets = rec.sets;
	drive_paced(&b, 200, 1, 500000); /* 100 ms: ten decisions that want 0 */
	drain(&b);
	cr_expect_eq(rec.sets, sets, "fixed: the policy wrote %u times more (%s)", rec.sets - sets, rec_list());
	cr_expect_eq(rec.rx_usecs, 77, "fixed: the hand value 77 became %u", rec.rx_usecs);
	cr_expect_eq(rec.tx_usecs, 7);

	cr_assert_eq(unic_napi_moderation_set(b.ctx, b.rx, false), 0);
	cr_assert_eq(unic_napi_moderation_get(b.ctx, b.rx), 0);
	drive_paced(&b, 60, 1, 500000); /* 30 ms: the first decision writes */
	drain(&b);
	cr_expect_gt(rec.sets, sets, "adaptive again: the policy never wrote");
	cr_expect_eq(rec.rx_usecs, 0, "adaptive again, sparse arrivals: rx_usecs %u", rec.rx_usecs);
	cr_expect_eq(queue_mod_us(&b), 0);
	mbench_down(&b);
}

/*
 * The switch for a context that runs on its own thread (unic_napi_run):
 * the call returns once the context took it, so the hand value written
 * right after is never overwritten by a decision under the old switch
 * (the policy had written nothing yet: its first decision writes at
 * once). The TSan build runs this one for the hand-over.
 */
Test(napi_moderation, the_switch_is_taken_by_a_running_context_before_the_call_returns)
{
	struct unic_coalesce c = { .rx_usecs = 77, .tx_usecs = 7 };
	struct mbench b;
	struct runner r;

	mbench_up(&b, 0, 100, true, false);
	runner_start(&r, b.ctx);
	cr_assert_eq(unic_napi_moderation_set(b.ctx, NULL, true), 0);
	cr_assert_eq(unic_port_coalesce_set(b.rx, &c), 0);
	for (unsigned i = 0; i < 60; i++) { /* 60 ms: six decisions */
		send1(&b, 1);
		sleep_ns(1000000);
	}
	/* Only the hand's write so far (the runner writes rec only through
	 * the policy, which must not have run). */
	cr_expect_eq(rec.sets, 1, "fixed: %u writes (%s)", rec.sets, rec_list());
	cr_expect_eq(rec.rx_usecs, 77, "fixed: the hand value 77 became %u", rec.rx_usecs);
	cr_assert_eq(unic_napi_moderation_set(b.ctx, NULL, false), 0);
	cr_assert_eq(unic_napi_moderation_get(b.ctx, b.rx), 0);
	for (unsigned i = 0; i < 60; i++) {
		send1(&b, 1);
		sleep_ns(1000000);
	}
	runner_stop(&r);
	drain(&b);
	cr_expect_geq(rec.sets, 2, "the hand value, then the policy's (%s)", rec_list());
	cr_expect_eq(rec.rx_usecs, 0, "adaptive again, sparse arrivals: rx_usecs %u", rec.rx_usecs);
	mbench_down(&b);
}

/* A port the context does not hold: refused, named. */
Test(napi_moderation, the_switch_of_a_port_the_context_does_not_hold_is_refused)
{
	struct mbench b;

	mbench_up(&b, 0, 100, true, false);
	logcap_clear();
	cr_expect_eq(unic_napi_moderation_set(b.ctx, b.tx, true), -ENOENT);
	cr_expect(strstr(logbuf, "has no rx queue in this context") != NULL, "logged: %s", logbuf);
	cr_expect_eq(unic_napi_moderation_get(b.ctx, b.tx), -ENOENT);
	cr_expect_eq(unic_napi_moderation_get(b.ctx, b.rx), 0, "the other port's switch is untouched");
	cr_expect_eq(unic_napi_moderation_set(NULL, b.rx, true), -EINVAL);
	mbench_down(&b);
}
