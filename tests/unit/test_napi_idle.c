/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi when nothing arrives, judged by its metrics and by the CPU time
 * of the context's thread. These run alone (meson: is_parallel false), one
 * after the other, so other tests' threads do not blur the figures.
 */
#include "napi_common.h"

TestSuite(napi_idle, .init = setup, .fini = teardown, .timeout = 120);

#define IDLE_NS (5 * 1000000000ull)

/* @p target_us, @p cpu_budget: hybrid's adaptive policy (0, 0: off). */
static struct unic_napi_ctx_stats idle_run_conf(enum unic_rx_mode mode, uint32_t target_us,
						uint32_t cpu_budget, uint64_t *cpu_ns)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_conf c = { .sz = sizeof(c), .name = unic_rx_mode_name(mode), .mode = mode,
				    .latency_target_us = target_us, .cpu_budget = cpu_budget };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&c);
	struct unic_napi_ctx_stats st;
	struct runner r;
	uint64_t c0;

	cr_assert_not_null(ctx, "napi context: %s (%s)", strerror(errno), logbuf);
	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	runner_start(&r, ctx);
	c0 = thread_cpu_ns(r.tid);
	sleep_ns(IDLE_NS);
	*cpu_ns = thread_cpu_ns(r.tid) - c0;
	runner_stop(&r);
	st = ctx_stats(ctx);
	fprintf(stderr, "# idle %s%s, 5 s: CPU %.2f ms (metric %.2f ms), rounds %" PRIu64 ", polls %" PRIu64
		", empty polls %" PRIu64 ", arms %" PRIu64 ", sleeps %" PRIu64 ", asleep %.3f s, wake-ups %" PRIu64 "\n",
		unic_rx_mode_name(mode), cpu_budget ? " (adaptive)" : "", *cpu_ns / 1e6, st.cpu_ns / 1e6, st.rounds, st.polls,
		st.empty_polls, st.arms, st.sleeps, st.asleep_ns / 1e9, st.wakeups);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	return st;
}

static struct unic_napi_ctx_stats idle_run(enum unic_rx_mode mode, uint64_t *cpu_ns)
{
	return idle_run_conf(mode, 0, 0, cpu_ns);
}

/* With no packet there is no gap estimate, so no busy-wait window: the
 * adaptive policy arms after the empty polls, as the fixed window does,
 * even with a target below any wake-up and the whole core allowed. */
Test(napi_idle, an_idle_adaptive_context_sleeps_and_never_busy_waits)
{
	uint64_t cpu;
	struct unic_napi_ctx_stats st = idle_run_conf(UNIC_RX_MODE_HYBRID, 1, 100, &cpu);

	cr_assert_gt(st.sleeps, 0, "it never slept");
	cr_assert_leq(st.polls, 2ull * UNIC_NAPI_EMPTY_POLLS_DEFAULT,
		      "%" PRIu64 " polls: it should stop after %u empty polls", st.polls,
		      UNIC_NAPI_EMPTY_POLLS_DEFAULT);
	cr_assert_eq(st.busy_polls_kept + st.busy_wait_ns + st.prewakes, 0,
		     "idle, it kept polling %" PRIu64 " times (%" PRIu64 " ns) and pre-woke %" PRIu64 " times",
		     st.busy_polls_kept, st.busy_wait_ns, st.prewakes);
	cr_assert_gt(st.asleep_ns, 4500000000ull, "asleep only %.3f s of 5", st.asleep_ns / 1e9);
	cr_assert_lt(cpu, 50000000ull, "the context's thread used %.2f ms of CPU", cpu / 1e6);
}

Test(napi_idle, an_idle_hybrid_context_sleeps_and_uses_under_50ms_of_cpu_in_5s)
{
	uint64_t cpu;
	struct unic_napi_ctx_stats st = idle_run(UNIC_RX_MODE_HYBRID, &cpu);

	cr_assert_gt(st.sleeps, 0, "it never slept");
	cr_assert_leq(st.polls, 2ull * UNIC_NAPI_EMPTY_POLLS_DEFAULT,
		      "%" PRIu64 " polls: it should stop after %u empty polls", st.polls,
		      UNIC_NAPI_EMPTY_POLLS_DEFAULT);
	cr_assert_gt(st.asleep_ns, 4500000000ull, "asleep only %.3f s of 5", st.asleep_ns / 1e9);
	cr_assert_lt(cpu, 50000000ull, "the context's thread used %.2f ms of CPU", cpu / 1e6);
	cr_assert_lt(st.cpu_ns, 50000000ull, "the cpu_ns metric says %.2f ms", st.cpu_ns / 1e6);
}

Test(napi_idle, an_idle_poll_context_never_sleeps)
{
	uint64_t cpu;
	struct unic_napi_ctx_stats st = idle_run(UNIC_RX_MODE_POLL, &cpu);

	cr_assert_eq(st.sleeps, 0, "a poll context slept %" PRIu64 " times", st.sleeps);
	cr_assert_gt(st.polls, 10000, "only %" PRIu64 " polls in 5 s", st.polls);
	cr_assert_eq(st.arms, 0);
}

/* ---- what a context asks of the kernel ------------------------------------------------ */

/* Whether some epoll set of this process watches @p fd: /proc/self/fdinfo
 * of an epoll fd lists each watched fd as "tfd: N". */
static bool epoll_watches(int fd)
{
	char path[64], line[256], want[32];
	bool found = false;

	snprintf(want, sizeof(want), "tfd: %8d ", fd);
	for (int e = 0; e < 1024 && !found; e++) {
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", e);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		while (fgets(line, sizeof(line), f))
			if (strncmp(line, want, strlen(want)) == 0)
				found = true;
		fclose(f);
	}
	return found;
}

/* Whether a context in @p mode put rx queue 0's interrupt source into its epoll set. */
static bool ctx_watches_doorbell(enum unic_rx_mode mode)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(mode, 0);
	struct unic_intr_source src;
	bool watched;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_port_intr_sources(rx, &src, 1), 1, "%s", logbuf);
	cr_assert_not(epoll_watches(src.fd), "fd %d is watched before any context has the queue", src.fd);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	unic_napi_run_once(ctx, 0);
	watched = epoll_watches(src.fd);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	return watched;
}

/* A poll context never waits on its epoll set, so a source in it would only
 * cost: the kernel runs the epoll wake-up callback on every doorbell (for
 * AF_XDP and AF_PACKET sockets, on every receive flush, on the CPU that
 * delivers the frames) for a wait that never comes. Hybrid watches it. */
Test(napi_idle, a_poll_context_leaves_interrupt_sources_out_of_its_epoll_set_and_a_hybrid_one_watches_them)
{
	cr_assert(ctx_watches_doorbell(UNIC_RX_MODE_HYBRID), "a hybrid context does not watch the doorbell");
	cr_assert_not(ctx_watches_doorbell(UNIC_RX_MODE_POLL), "a poll context watches the doorbell");
}

/* ---- the sleep itself: bounded, and woken once per doorbell -------------------------- */

static struct unic_napi_ctx *ctx_with_max_sleep(uint32_t max_sleep_ms)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .name = "sleep", .mode = UNIC_RX_MODE_HYBRID,
				    .max_sleep_ms = max_sleep_ms };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&c);

	cr_assert_not_null(ctx, "napi context: %s (%s)", strerror(errno), logbuf);
	return ctx;
}

/* Nothing but max_sleep ends these sleeps (no timeout is passed to
 * epoll_pwait2 for it: a periodic timerfd in the epoll set does it). */
Test(napi_idle, a_sleep_that_nothing_ends_lasts_at_most_max_sleep)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_with_max_sleep(20);
	struct unic_napi_ctx_stats s0, s1;
	uint64_t t0, rd0, wall, cpu_wait, wakes;
	struct runner r;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	runner_start(&r, ctx);
	sleep_ns(100000000);
	s0 = ctx_stats(ctx);
	t0 = unic_time_ns();
	rd0 = run_delay_ns(r.ktid);
	sleep_ns(1000000000);
	s1 = ctx_stats(ctx);
	wall = unic_time_ns() - t0;
	cpu_wait = run_delay_ns(r.ktid) - rd0;
	runner_stop(&r);
	wakes = s1.wakeups - s0.wakeups;
	fprintf(stderr, "# max_sleep 20 ms, %.2f s idle (%.1f ms of it waiting for a CPU): %" PRIu64
		" wake-ups, %" PRIu64 " interrupts\n", wall / 1e9, cpu_wait / 1e6, wakes,
		s1.interrupts - s0.interrupts);
	/* 50 a second if each sleep lasts 20 ms; under half that, over the
	 * time the context's thread was not waiting for a CPU (expiries of
	 * the periodic timer that pass meanwhile make one wake-up), means
	 * sleeps longer than the bound; far more, a sleep that does not
	 * sleep. The window is what our own thread's sleep turned out to be. */
	cr_assert_geq(wakes, (wall - UNIC_MIN(wall, cpu_wait)) / 40000000ull,
		      "%" PRIu64 " wake-ups in %.2f s (%.2f s of it waiting for a CPU) with max_sleep 20 ms",
		      wakes, wall / 1e9, cpu_wait / 1e9);
	cr_assert_leq(wakes, wall * 60 / 1000000000ull, "%" PRIu64 " wake-ups in %.2f s with max_sleep 20 ms",
		      wakes, wall / 1e9);
	cr_assert_eq(s1.interrupts, s0.interrupts, "nothing was sent, yet interrupts were counted");
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
}

/* An arm that reports success but never enables the doorbell: the
 * interrupt of every packet from then on is lost. */
static int lossy_arm(void *rxq)
{
	(void)rxq;
	return 0;
}

static uint16_t count_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n, void *arg)
{
	(void)port;
	(void)q;
	unic_pkt_free_bulk(pkts, n);
	__atomic_fetch_add((uint64_t *)arg, n, __ATOMIC_RELEASE);
	return n;
}

/* What a test waits for in a context's statistics: each at least. */
struct stats_goal {
	struct unic_napi_ctx *ctx;
	uint64_t sleeps, arms, packets;
	struct unic_napi_ctx_stats st; /* the last look */
};

static bool stats_reached(void *arg)
{
	struct stats_goal *g = arg;

	g->st = ctx_stats(g->ctx);
	return g->st.sleeps >= g->sleeps && g->st.arms >= g->arms && g->st.packets >= g->packets;
}

/*
 * Wait, looking every @p period_ns, until @p g holds for the context that
 * runner @p r runs: 2 s at most that neither its thread nor ours spent
 * waiting for a CPU, so a loaded machine does not pass for a packet or a
 * wake that never comes. Asserts, with packet @p i and @p what did not
 * happen. @return the statistics that met the goal.
 */
static struct unic_napi_ctx_stats wait_stats(const struct runner *r, struct stats_goal g, uint64_t period_ns,
					     unsigned i, const char *what)
{
	uint64_t wall, cpu_wait;

	cr_assert(wait_until(stats_reached, &g, period_ns, r->ktid, 2000000000ull, &wall, &cpu_wait),
		  "packet %u: %s after %.1f s (%.1f s of it waiting for a CPU): sleeps %" PRIu64 ", arms %" PRIu64
		  ", packets %" PRIu64, i, what, wall / 1e9, cpu_wait / 1e9, g.st.sleeps, g.st.arms, g.st.packets);
	return g.st;
}

/*
 * A lost rx interrupt (a device or platform that drops a message: the arm
 * succeeded, the packet is on the ring, nothing rings) costs latency, not a
 * stranded packet: the context's max_sleep wake-up looks at every armed
 * queue (unic_rx_pending) and handles what is there. Five packets, each
 * sent to a context asleep with the queue armed; each must be handled
 * within 2 s that the context's thread and ours did not spend waiting for a
 * CPU (max_sleep is 50 ms), and no interrupt may be counted.
 */
Test(napi_idle, a_packet_whose_interrupt_is_lost_is_handled_at_the_next_max_sleep_wake_up)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_with_max_sleep(50);
	struct unic_port_fastpath *fp = &((struct unic_port_head *)(void *)rx)->fp;
	struct unic_napi_ctx_stats st;
	uint64_t lat[5], handled = 0;
	struct runner r;

	port_up(tx, 1);
	port_up(rx, 1);
	__atomic_store_n(&fp->rx_intr_enable, lossy_arm, __ATOMIC_RELEASE);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, count_handler, &handled), 0, "%s", logbuf);
	runner_start(&r, ctx);
	for (unsigned i = 0; i < 5; i++) {
		struct unic_napi_ctx_stats s0 = ctx_stats(ctx);
		uint64_t t0, wall, cpu_wait;

		/* Asleep with the queue armed: armed again after the packet
		 * before (i + 1 arms in all), and a sleep began since. */
		wait_stats(&r, (struct stats_goal){ .ctx = ctx, .sleeps = s0.sleeps + 1, .arms = i + 1 }, 5000000, i,
			   "the context did not arm and sleep");
		t0 = unic_time_ns();
		send_seq(tx, 0, i, 1);
		cr_assert(wait_count(&handled, i + 1, r.ktid, 2000000000ull, &wall, &cpu_wait),
			  "packet %u, its interrupt lost: not handled after %.1f s (%.1f s of it waiting for a CPU; "
			  "max_sleep 50 ms): stranded", i, wall / 1e9, cpu_wait / 1e9);
		lat[i] = unic_time_ns() - t0;
		cr_assert_eq(__atomic_load_n(&handled, __ATOMIC_ACQUIRE), i + 1, "packet %u: %" PRIu64 " handled", i,
			     __atomic_load_n(&handled, __ATOMIC_ACQUIRE));
	}
	runner_stop(&r);
	st = ctx_stats(ctx);
	fprintf(stderr, "# lost interrupts, max_sleep 50 ms: handled after %.1f %.1f %.1f %.1f %.1f ms; "
		"interrupts %" PRIu64 ", arms %" PRIu64 ", sleeps %" PRIu64 "\n", lat[0] / 1e6, lat[1] / 1e6,
		lat[2] / 1e6, lat[3] / 1e6, lat[4] / 1e6, st.interrupts, st.arms, st.sleeps);
	cr_assert_eq(st.interrupts, 0, "%" PRIu64 " interrupts counted, yet none could ring", st.interrupts);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
}

/* The ring port's doorbell (an eventfd, as MSI-X) is never read by the
 * engine: epoll reports it edge-triggered. Each packet sent to a sleeping
 * context wakes it once, and a rung doorbell does not keep waking it. */
Test(napi_idle, each_doorbell_wakes_a_sleeping_context_once_and_an_unread_one_does_not_wake_it_again)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_with_max_sleep(1000);
	struct unic_napi_ctx_stats s0, s1, s2;
	struct runner r;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	runner_start(&r, ctx);
	wait_stats(&r, (struct stats_goal){ .ctx = ctx, .sleeps = 1 }, 1000000, 0, "the context never slept");
	sleep_ns(2000000);
	s0 = ctx_stats(ctx);
	for (uint32_t i = 0; i < 100; i++) {
		uint64_t before = ctx_stats(ctx).sleeps;
		struct unic_napi_ctx_stats st;

		send_seq(tx, 0, i, 1);
		st = wait_stats(&r, (struct stats_goal){ .ctx = ctx, .packets = i + 1 }, 100000, i, "not handled");
		cr_assert_eq(st.packets, i + 1, "packet %u: %" PRIu64 " handled", i, st.packets);
		/* Wait until it sleeps again (armed) before the next one. */
		wait_stats(&r, (struct stats_goal){ .ctx = ctx, .sleeps = before + 1 }, 100000, i,
			   "handled, the context did not sleep again");
		sleep_ns(500000);
	}
	s1 = ctx_stats(ctx);
	sleep_ns(500000000); /* idle: only max_sleep (1 s) may end a sleep */
	s2 = ctx_stats(ctx);
	runner_stop(&r);
	fprintf(stderr, "# 100 packets one by one: %" PRIu64 " interrupts, %" PRIu64
		" wake-ups; then 0.5 s idle: %" PRIu64 " wake-ups\n",
		s1.interrupts - s0.interrupts, s1.wakeups - s0.wakeups, s2.wakeups - s1.wakeups);
	/* Each packet found the queue armed and rang once. A few wakes may
	 * be the timer's; none is a doorbell read twice. */
	cr_assert_geq(s1.interrupts - s0.interrupts, 95, "%" PRIu64 " interrupts for 100 doorbells",
		      s1.interrupts - s0.interrupts);
	cr_assert_leq(s1.interrupts - s0.interrupts, 101, "%" PRIu64 " interrupts for 100 doorbells",
		      s1.interrupts - s0.interrupts);
	cr_assert_leq(s2.wakeups - s1.wakeups, 2, "%" PRIu64 " wake-ups in 0.5 s idle after the doorbells",
		      s2.wakeups - s1.wakeups);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
}
