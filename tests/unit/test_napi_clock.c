/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi's clock reads in poll mode. A poll-mode context does not read
 * the clock every round: in a guest whose clocksource is the HPET (QEMU
 * TCG) each read is an exit into the device model under QEMU's global
 * lock, and a forwarder that read it every round slowed the whole guest
 * (docs/napi.md, "Poll mode in the rig"). This binary defines
 * clock_gettime itself, so libunic's reads (linked in statically) come
 * here and are counted on the thread that asks.
 */
#include "napi_common.h"

TestSuite(napi_clock, .init = setup, .fini = teardown, .timeout = 60);

static __thread bool counting;
static __thread uint64_t mono_reads;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (counting && id == CLOCK_MONOTONIC)
		mono_reads++;
	return (int)syscall(SYS_clock_gettime, id, ts);
}

/* The interposer sees libunic's reads: else the test below proves nothing. */
Test(napi_clock, the_interposer_counts_the_librarys_clock_reads)
{
	counting = true;
	mono_reads = 0;
	(void)unic_time_ns();
	(void)unic_time_ns();
	counting = false;
	cr_assert_eq(mono_reads, 2, "unic_time_ns read CLOCK_MONOTONIC %" PRIu64 " times here, not 2",
		     mono_reads);
}

#define ROUNDS 8192u

/* CLOCK_MONOTONIC, not counted (the interposer counts libunic's reads). */
static uint64_t raw_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * ROUNDS rounds of a context in @p conf's mode that never sleep (a timeout
 * of 0), some finding packets, some not. @return the library's
 * CLOCK_MONOTONIC reads in them; *elapsed_ns gets how long they took.
 */
static uint64_t rounds_clock_reads(struct unic_napi_conf *conf, uint64_t *elapsed_ns)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx;
	struct unic_napi_ctx_stats st;
	uint64_t reads = 0, handled = 0, t0;

	conf->sz = sizeof(*conf);
	conf->name = unic_rx_mode_name(conf->mode);
	ctx = unic_napi_ctx_create(conf);
	cr_assert_not_null(ctx, "napi context: %s (%s)", strerror(errno), logbuf);
	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	t0 = raw_ns();
	for (unsigned i = 0; i < ROUNDS; i++) {
		int got;

		if (i % 16 == 0) /* rounds that find packets, and empty ones */
			send_seq(tx, 0, i, 1 + i % 3);
		counting = true;
		mono_reads = 0;
		got = unic_napi_run_once(ctx, 0);
		counting = false;
		cr_assert_geq(got, 0, "round %u: %s", i, strerror(-got));
		reads += mono_reads;
		handled += (uint64_t)got;
	}
	*elapsed_ns = raw_ns() - t0;
	st = ctx_stats(ctx);
	cr_assert_eq(handled, st.packets, "handled %" PRIu64 ", the context counted %" PRIu64,
		     handled, st.packets);
	cr_assert_gt(handled, ROUNDS / 16, "only %" PRIu64 " packets handled", handled);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
	return reads;
}

/* At most one read per UNIC_TSC_CLOCK_SPAN_NS the rounds took, and two. */
static void check_reads(const char *what, uint64_t reads, uint64_t elapsed_ns)
{
	uint64_t most = 2 + elapsed_ns / UNIC_TSC_CLOCK_SPAN_NS;

	cr_assert_leq(reads, most,
		      "%u %s rounds (%.1f ms) read CLOCK_MONOTONIC %" PRIu64 " times (expected at most %" PRIu64
		      ": a read every %llu ms, from the TSC clock's anchors)",
		      ROUNDS, what, (double)elapsed_ns / 1e6, reads, most, UNIC_TSC_CLOCK_SPAN_NS / 1000000);
}

Test(napi_clock, a_poll_mode_context_reads_the_clock_once_in_many_rounds)
{
	struct unic_napi_conf c = { .mode = UNIC_RX_MODE_POLL };
	uint64_t el, reads = rounds_clock_reads(&c, &el);

	check_reads("poll-mode", reads, el);
}

Test(napi_clock, an_interrupt_mode_context_reads_the_clock_once_in_many_rounds)
{
	struct unic_napi_conf c = { .mode = UNIC_RX_MODE_INTERRUPT };
	uint64_t el, reads = rounds_clock_reads(&c, &el);

	check_reads("interrupt-mode", reads, el);
}

Test(napi_clock, a_hybrid_context_reads_the_clock_once_in_many_rounds)
{
	struct unic_napi_conf c = { .mode = UNIC_RX_MODE_HYBRID };
	uint64_t el, reads = rounds_clock_reads(&c, &el);

	check_reads("hybrid", reads, el);
}

Test(napi_clock, an_adaptive_hybrid_context_reads_the_clock_once_in_many_rounds)
{
	struct unic_napi_conf c = { .mode = UNIC_RX_MODE_HYBRID, .cpu_budget = 50, .latency_target_us = 100 };
	uint64_t el, reads = rounds_clock_reads(&c, &el);

	check_reads("adaptive hybrid", reads, el);
}

/* The TSC clock itself: never back, within a little of CLOCK_MONOTONIC
 * (read just before and just after it), and anchored about every span. */
Test(napi_clock, the_tsc_clock_follows_the_kernels_and_never_goes_back)
{
	struct unic_tsc_clock clk;
	uint64_t prev = 0, t_end, n = 0, bad = 0, worst = 0;
	const uint64_t slack = 5000000; /* 5 ms: a descheduled thread between the reads */

	unic_tsc_clock_init(&clk);
	t_end = raw_ns() + 3 * UNIC_TSC_CLOCK_SPAN_NS + UNIC_TSC_CLOCK_SPAN_NS / 2;
	for (;;) {
		uint64_t k0 = raw_ns(), t = unic_tsc_clock_ns(&clk), k1 = raw_ns();

		cr_assert_geq(t, prev, "the TSC clock went back: %" PRIu64 " after %" PRIu64, t, prev);
		prev = t;
		if (t + slack < k0 || t > k1 + slack) {
			bad++;
			worst = UNIC_MAX(worst, t > k1 ? t - k1 : k0 - t);
		}
		n++;
		if (k1 >= t_end)
			break;
	}
	cr_assert_leq(bad, n / 100, "%" PRIu64 " of %" PRIu64 " reads more than 5 ms off CLOCK_MONOTONIC (worst %" PRIu64
		      " ns)", bad, n, worst);
	/* 3.5 spans: 3 anchors after the first, and not one a read. */
	cr_assert(clk.anchors >= 3 && clk.anchors <= 6, "%" PRIu64 " anchors in 3.5 spans", clk.anchors);
}
