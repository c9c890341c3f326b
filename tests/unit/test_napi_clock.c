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

Test(napi_clock, a_poll_mode_context_reads_the_clock_once_in_many_rounds)
{
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_POLL, 0);
	struct unic_napi_ctx_stats st;
	uint64_t reads = 0, handled = 0;

	port_up(tx, 1);
	port_up(rx, 1);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
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
	st = ctx_stats(ctx);
	cr_assert_eq(handled, st.packets, "handled %" PRIu64 ", the context counted %" PRIu64,
		     handled, st.packets);
	cr_assert_gt(handled, ROUNDS / 16, "only %" PRIu64 " packets handled", handled);
	/* One read every 4096 rounds (NAPI_CPU_ROUNDS), the first included. */
	cr_assert_leq(reads, ROUNDS / 4096 + 1,
		      "%u poll-mode rounds read CLOCK_MONOTONIC %" PRIu64 " times (expected at most %u)",
		      ROUNDS, reads, ROUNDS / 4096 + 1);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}
