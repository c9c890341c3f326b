/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi's per-queue counters in the port's own xstats
 * ("napi_rx_q<q>_<counter>"), over ring ports: there while the queue is in
 * a context, from zero, gone at remove and stop, reset with the port's.
 */
#include "napi_common.h"

TestSuite(napi_xstats, .init = setup, .fini = teardown, .timeout = 60);

/* ---- the port's xstats ------------------------------------------------------------ */

/* Index of @p name among the port's xstats names, -1 if absent; *n: count. */
static int port_xstat_index(struct unic_port *p, const char *name, int *n)
{
	struct unic_xstat_name names[512];

	*n = unic_port_xstats_names(p, names, UNIC_ARRAY_SIZE(names));
	cr_assert_gt(*n, 0);
	cr_assert_leq(*n, (int)UNIC_ARRAY_SIZE(names));
	for (int i = 0; i < *n; i++)
		if (strcmp(names[i].name, name) == 0)
			return i;
	return -1;
}

static unsigned port_xstats_with_prefix(struct unic_port *p, const char *prefix)
{
	struct unic_xstat_name names[512];
	int n = unic_port_xstats_names(p, names, UNIC_ARRAY_SIZE(names));
	unsigned found = 0;

	for (int i = 0; i < n; i++)
		found += strncmp(names[i].name, prefix, strlen(prefix)) == 0;
	return found;
}

static uint64_t port_xstat(struct unic_port *p, const char *name)
{
	uint64_t v = UINT64_MAX;
	int rc = unic_port_xstat_by_name(p, name, &v);

	cr_assert_eq(rc, 0, "%s: %s", name, strerror(-rc));
	return v;
}

Test(napi_xstats, a_queue_in_a_context_shows_its_counters_in_the_port_xstats_while_it_is_there)
{
	static const char *const counters[] = {
		"polls", "empty_polls", "packets", "refused", "injected", "dropped", "arms",
		"arm_failures", "rechecks_caught", "interrupts",
	};
	struct unic_port *tx = port_create("ring0");
	struct unic_port *rx = port_create("ring1,peer=ring0");
	struct unic_napi_ctx *ctx = ctx_make(UNIC_RX_MODE_INTERRUPT, 0);
	struct unic_napi_queue_stats qst;
	int n0, n, good0, good;
	uint64_t v;

	port_up(tx, 2);
	port_up(rx, 2);
	good0 = port_xstat_index(rx, "rx_good_packets", &n0);
	cr_assert_geq(good0, 0);
	cr_assert_eq(port_xstats_with_prefix(rx, "napi_"), 0, "napi counters before any queue was added");

	cr_assert_eq(unic_napi_queue_add(ctx, rx, 0, 64, drop_handler, NULL), 0, "%s", logbuf);
	good = port_xstat_index(rx, "rx_good_packets", &n);
	cr_assert_eq(n, n0 + (int)UNIC_ARRAY_SIZE(counters), "%d xstats, %d before the add", n, n0);
	cr_assert_eq(good, good0, "the port's own xstats moved");
	cr_assert_eq(port_xstats_with_prefix(rx, "napi_rx_q0_"), UNIC_ARRAY_SIZE(counters));
	cr_assert_eq(port_xstats_with_prefix(rx, "napi_rx_q1_"), 0, "queue 1 is in no context");
	cr_assert_eq(port_xstats_with_prefix(tx, "napi_"), 0, "the sender's queues are in no context");

	send_seq(tx, 0, 0, 5);
	cr_assert_eq(unic_napi_run_once(ctx, 0), 5);
	cr_assert_eq(unic_napi_queue_stats_get(ctx, rx, 0, &qst), 0);
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(counters); i++) {
		char name[64];

		snprintf(name, sizeof(name), "napi_rx_q0_%s", counters[i]);
		v = port_xstat(rx, name);
		cr_assert_eq(v, ((const uint64_t *)&qst)[i], "%s: %" PRIu64 " in xstats, %" PRIu64
			     " from unic_napi_queue_stats_get", name, v, ((const uint64_t *)&qst)[i]);
	}
	cr_assert_eq(port_xstat(rx, "napi_rx_q0_packets"), 5);
	cr_assert_geq(port_xstat(rx, "napi_rx_q0_polls"), 1);
	cr_assert_eq(port_xstat(rx, "napi_rx_q0_arms"), 1, "interrupt mode arms after the drained poll");

	/* The port's reset zeroes what its xstats show, not the engine's own. */
	cr_assert_eq(unic_port_stats_reset(rx), 0);
	cr_assert_eq(port_xstat(rx, "napi_rx_q0_packets"), 0);
	send_seq(tx, 0, 5, 3);
	cr_assert_eq(unic_napi_run_once(ctx, 0), 3);
	cr_assert_eq(port_xstat(rx, "napi_rx_q0_packets"), 3);
	cr_assert_eq(port_xstat(rx, "rx_good_packets"), 3);
	cr_assert_eq(unic_napi_queue_stats_get(ctx, rx, 0, &qst), 0);
	cr_assert_eq(qst.packets, 8);

	/* Gone with the queue; back, from zero, when it is added again. */
	cr_assert_eq(unic_napi_queue_remove(ctx, rx, 0), 0);
	cr_assert_eq(unic_port_xstat_by_name(rx, "napi_rx_q0_packets", &v), -ENOENT);
	port_xstat_index(rx, "rx_good_packets", &n);
	cr_assert_eq(n, n0);
	cr_assert_eq(unic_napi_queue_add(ctx, rx, 1, 64, drop_handler, NULL), 0, "%s", logbuf);
	send_seq(tx, 1, 0, 2);
	cr_assert_eq(unic_napi_run_once(ctx, 0), 2);
	cr_assert_eq(port_xstat(rx, "napi_rx_q1_packets"), 2);
	cr_assert_eq(port_xstats_with_prefix(rx, "napi_rx_q0_"), 0);

	/* A stop takes the queue out of the context: its counters leave the
	 * port's xstats with it. */
	cr_assert_eq(unic_port_stop(rx), 0);
	cr_assert_eq(port_xstats_with_prefix(rx, "napi_"), 0);
	unic_napi_ctx_destroy(ctx);
	port_down(rx);
	port_down(tx);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

