/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi's moderation switch (unic_napi_moderation_set) handed to a
 * context that runs the adaptive policy on its own thread while a sender
 * thread keeps its queue busy, and a control thread, over and over:
 * switches the port to fixed, writes a value by hand, lets the policy run
 * through three decision intervals or more, checks that the value is
 * still the hand's, and gives the port back (adaptive).
 *
 * The port is a ring port (ring1, peer ring0) whose ops table gains a
 * coalesce op that records each value and who wrote it (the ring has no
 * moderation of its own). The policy (cpu_budget 100) writes at its first
 * decision after each switch back, since it forgets its last value then.
 *
 * Checked:
 *  - no hand value is overwritten while the port is fixed;
 *  - the policy wrote after switches back (it was running, and took the
 *    port back);
 *  - every packet sent is handled; every packet is back in the pool.
 * Under ThreadSanitizer (tests/run-all's build-tsan), the hand-over of the
 * switch and the policy's state between the threads is checked too.
 */
#include "stress.h"
#include "stress_napi_rig.h"
#include "unic_port_driver.h"

#define CYCLES_MIN 20

static struct {
	struct stress_napi_rig rig;
	struct unic_napi_ctx *ctx;
	struct unic_port_ops ops;      /* ring1's, with the coalesce op */
	/* The device's moderation: written by coalesce_set, under the port's
	 * lock, by the policy (the context's thread) or by hand. */
	uint32_t rx_usecs, tx_usecs;
	uint32_t policy_writes, hand_writes;
	uint64_t deadline;
	bool stop_sender;              /* atomic */
	uint32_t sent, handled;        /* atomic */
	uint32_t cycles;
} t;

static __thread bool by_hand;

static int rec_get(struct unic_port *port, struct unic_coalesce *c)
{
	(void)port;
	c->rx_usecs = t.rx_usecs;
	c->tx_usecs = t.tx_usecs;
	return 0;
}

static int rec_set(struct unic_port *port, const struct unic_coalesce *c)
{
	(void)port;
	t.rx_usecs = c->rx_usecs;
	t.tx_usecs = c->tx_usecs;
	if (by_hand)
		t.hand_writes++;
	else
		t.policy_writes++;
	return 0;
}

static uint16_t handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n, void *arg)
{
	(void)port, (void)q, (void)arg;
	unic_pkt_free_bulk(pkts, n);
	__atomic_fetch_add(&t.handled, n, __ATOMIC_RELEASE);
	return n;
}

/* A packet now and then, a few us apart: dense as a wake-up sees it. */
static void *sender_main(void *arg)
{
	unsigned spins = 0;

	(void)arg;
	while (!__atomic_load_n(&t.stop_sender, __ATOMIC_ACQUIRE)) {
		struct unic_pkt *p;

		if (unic_pkt_alloc_bulk(t.rig.pool, &p, 1) != 0) {
			stress_backoff(&spins);
			continue;
		}
		unic_pkt_append(p, 64);
		while (unic_tx_burst(t.rig.tx, 0, &p, 1) != 1)
			stress_backoff(&spins);
		__atomic_fetch_add(&t.sent, 1, __ATOMIC_RELEASE);
		spins = 0;
		stress_sleep_us(2);
	}
	return NULL;
}

static void *control_main(void *arg)
{
	(void)arg;
	by_hand = true;
	while (t.cycles < CYCLES_MIN || !stress_past(t.deadline)) {
		uint32_t hand = 1000 + t.cycles;
		struct unic_coalesce c;
		int rc;

		rc = unic_napi_moderation_set(t.ctx, t.rig.rx, true);
		STRESS_CHECK(rc == 0, "unic_napi_moderation_set(fixed): %s", strerror(-rc));
		STRESS_CHECK(unic_port_coalesce_get(t.rig.rx, &c) == 0, "coalesce_get");
		c.rx_usecs = hand;
		STRESS_CHECK(unic_port_coalesce_set(t.rig.rx, &c) == 0, "coalesce_set");
		stress_sleep_us(35000); /* three decision intervals and more */
		STRESS_CHECK(unic_port_coalesce_get(t.rig.rx, &c) == 0, "coalesce_get");
		STRESS_CHECK(c.rx_usecs == hand,
			     "cycle %u: the port is fixed, the hand wrote %u, the device has %u: the policy wrote over it",
			     t.cycles, hand, c.rx_usecs);
		rc = unic_napi_moderation_set(t.ctx, t.rig.rx, false);
		STRESS_CHECK(rc == 0, "unic_napi_moderation_set(adaptive): %s", strerror(-rc));
		stress_sleep_us(15000); /* a decision or more: the policy takes it back */
		t.cycles++;
	}
	return NULL;
}

int main(void)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .name = "moder", .mode = UNIC_RX_MODE_HYBRID,
				     .cpu_budget = 100 };
	struct stress_napi_runner run;
	pthread_t stid, ctid;
	uint64_t t0 = stress_now_ns(), until;
	int rc;

	stress_name = "stress_napi_moder";
	stress_watchdog();
	stress_napi_rig_up(&t.rig, 4096, 1);
	/* No other thread uses the port yet. */
	t.ops = *t.rig.rx->ops;
	t.ops.coalesce_get = rec_get;
	t.ops.coalesce_set = rec_set;
	t.rig.rx->ops = &t.ops;
	t.ctx = unic_napi_ctx_create(&nc);
	STRESS_CHECK(t.ctx != NULL, "unic_napi_ctx_create: %s", strerror(errno));
	rc = unic_napi_queue_add(t.ctx, t.rig.rx, 0, 64, handler, NULL);
	STRESS_CHECK(rc == 0, "unic_napi_queue_add: %s", strerror(-rc));
	stress_napi_runner_start(&run, t.ctx);
	t.deadline = stress_deadline(1);
	stress_spawn(&stid, 1, sender_main, NULL, 0);
	stress_spawn(&ctid, 1, control_main, NULL, 0);
	stress_join(&ctid, 1);
	__atomic_store_n(&t.stop_sender, true, __ATOMIC_RELEASE);
	stress_join(&stid, 1);

	until = stress_now_ns() + 10000000000ull;
	while (__atomic_load_n(&t.handled, __ATOMIC_ACQUIRE) != __atomic_load_n(&t.sent, __ATOMIC_ACQUIRE)) {
		STRESS_CHECK(stress_now_ns() < until, "%u packets sent, %u handled after 10 s: stranded",
			     t.sent, t.handled);
		stress_sleep_us(100);
	}
	stress_napi_runner_stop(&run);
	STRESS_CHECK(t.hand_writes == t.cycles, "%u hand writes in %u cycles", t.hand_writes, t.cycles);
	STRESS_CHECK(t.policy_writes > 0, "the policy never wrote in %u switches back to adaptive (%u packets)",
		     t.cycles, t.sent);
	unic_napi_ctx_destroy(t.ctx);
	stress_napi_rig_down(&t.rig);
	printf("%s: %u cycles (fixed, hand value, adaptive), %u policy writes, %u packets; %.2f s\n", stress_name,
	       t.cycles, t.policy_writes, t.sent, (stress_now_ns() - t0) / 1e9);
	stress_napi_rig_free(&t.rig);
	printf("%s: ok\n", stress_name);
	return 0;
}
