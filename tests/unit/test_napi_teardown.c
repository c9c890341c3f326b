/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi when ports go away under traffic: a port stopped while its
 * queue is polled, a device taken back by the bus, a handler that stops
 * its own port (the suite: test_napi_wake.c).
 */
#include <sched.h>

#include <unic/event.h>

#include "napi_common.h"
#include "unic_port_driver.h" /* unic_port_device_lost: what a driver calls */

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
