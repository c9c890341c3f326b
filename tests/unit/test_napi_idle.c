/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi when nothing arrives, judged by its metrics and by the CPU time
 * of the context's thread. These run alone (meson: is_parallel false), one
 * after the other, so other tests' threads do not blur the figures.
 */
#include "napi_common.h"

TestSuite(napi_idle, .init = setup, .fini = teardown, .timeout = 120);

#define IDLE_NS (5 * 1000000000ull)

static uint16_t idle_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			     void *arg)
{
	(void)port;
	(void)q;
	(void)arg;
	unic_pkt_free_bulk(pkts, n);
	return n;
}

static struct unic_napi_ctx_stats idle_run(enum unic_napi_mode mode, uint64_t *cpu_ns)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(mode, 0);
	struct unic_napi_ctx_stats st;
	struct runner r;
	uint64_t c0;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, idle_handler, NULL), 0, "%s", logbuf);
	runner_start(&r, ctx);
	c0 = thread_cpu_ns(r.tid);
	sleep_ns(IDLE_NS);
	*cpu_ns = thread_cpu_ns(r.tid) - c0;
	runner_stop(&r);
	st = ctx_stats(ctx);
	fprintf(stderr, "# idle %s, 5 s: CPU %.2f ms (metric %.2f ms), rounds %" PRIu64 ", polls %" PRIu64
		", empty polls %" PRIu64 ", arms %" PRIu64 ", sleeps %" PRIu64 ", asleep %.3f s, wake-ups %" PRIu64 "\n",
		unic_napi_mode_name(mode), *cpu_ns / 1e6, st.cpu_ns / 1e6, st.rounds, st.polls,
		st.empty_polls, st.arms, st.sleeps, st.asleep_ns / 1e9, st.wakeups);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	return st;
}

Test(napi_idle, an_idle_hybrid_context_sleeps_and_uses_under_50ms_of_cpu_in_5s)
{
	uint64_t cpu;
	struct unic_napi_ctx_stats st = idle_run(UNIC_NAPI_HYBRID, &cpu);

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
	struct unic_napi_ctx_stats st = idle_run(UNIC_NAPI_POLL, &cpu);

	cr_assert_eq(st.sleeps, 0, "a poll context slept %" PRIu64 " times", st.sleeps);
	cr_assert_gt(st.polls, 10000, "only %" PRIu64 " polls in 5 s", st.polls);
	cr_assert_eq(st.arms, 0);
}
