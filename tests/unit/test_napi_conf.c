/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi's refusals and settings, the errors a person can cause: weights,
 * a queue in two contexts, modes, conf sizes, a queue without interrupts,
 * the xstats names, and the tx queue claims of a context (the suite:
 * test_napi_wake.c).
 */
#include "napi_common.h"

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
