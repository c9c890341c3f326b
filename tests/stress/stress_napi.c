/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/napi with running contexts and other threads feeding them: packets
 * sent over a ring port pair (the receiving side's eventfd doorbell wakes
 * the context) and packets injected with unic_napi_inject, while a
 * control thread removes and adds a queue, turns the contexts' moderation
 * switch (unic_napi_moderation_set, read back) and reads the metrics.
 *
 * Port ring1 (a ring port, peer ring0) has two rx queues:
 *   queue 0 in a hybrid context, queue 1 in an interrupt-mode context.
 * Each queue has two sources, each its own thread: a sender on ring0's tx
 * queue q, and an injector. Every packet names its source and carries
 * the source's sequence number. Sources pause now and then until all they
 * sent was handled, so the contexts go to sleep and the next packet must
 * wake them (the doorbell, or the injector's wake): the contexts' longest
 * sleep is set to 30 s, so a lost wake-up is seen as packets stranded.
 * The hybrid queue's handler refuses part of a batch now and then.
 *
 * Checked:
 *  - each handler sees only its queue's packets, each source's packets in
 *    order and, but for the queue being removed, with no gap (exactly once);
 *  - on the queue removed and added again, every injected packet is
 *    handled or counted as dropped (handled + dropped == injected);
 *  - nothing stays stranded: after a pause, what was sent is handled
 *    within STRANDED_S seconds;
 *  - both contexts slept and were woken; the ports' counters agree with
 *    what was sent and handled; every packet is back in the pool.
 */
#include "stress.h"
#include "stress_napi_rig.h"

#define NQ          2
#define NSRC        (2 * NQ)
#define SRC_RING(q) (2u * (q))
#define SRC_INJ(q)  (2u * (q) + 1u)
#define MAX_BURST   32
#define MAX_SEQ     200000u     /* packets a source sends at most */
#define MIN_SEQ     256u        /* ...and at least, whatever the deadline says */
#define STRANDED_S  10          /* a packet not handled this long after a pause is stranded */
#define REMOVED_Q   1           /* the queue the control thread removes and adds */

struct tpay {
	uint32_t src;
	uint32_t seq;
};

static struct {
	struct stress_napi_rig rig;
	struct unic_napi_ctx *ctx[NQ];
	pthread_barrier_t start;
	uint64_t deadline;
	uint32_t sent[NSRC];        /* atomic: taken by the port or by inject */
	uint32_t handled[NSRC];     /* atomic: consumed by the handler */
	int64_t last[NSRC];         /* the handlers' */
	uint32_t calls[NQ];         /* the handlers' */
	uint32_t refusals;          /* the hybrid handler's */
	uint32_t sources_done;      /* atomic */
	uint32_t cycles;            /* remove/add cycles of REMOVED_Q */
	uint32_t pauses;            /* atomic */
} t;

static const char *src_name(unsigned s)
{
	static const char *const names[NSRC] = { "sender 0", "injector 0", "sender 1", "injector 1" };

	return s < NSRC ? names[s] : "?";
}

static uint16_t handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			void *arg)
{
	uint16_t c = n;

	STRESS_CHECK(port == t.rig.rx && q == (uint16_t)(uintptr_t)arg,
		     "handler of queue %u called for port %s queue %u", (unsigned)(uintptr_t)arg,
		     unic_port_name(port), q);
	/* Back-pressure on the hybrid queue: the rest comes back first, in order. */
	if (q == 0 && n > 1 && ++t.calls[q] % 5 == 0) {
		c = n / 2;
		t.refusals++;
	}
	for (uint16_t i = 0; i < c; i++) {
		const struct tpay *p = unic_pkt_mtod(pkts[i], const struct tpay *);
		unsigned s = p->src;

		STRESS_CHECK(s == SRC_RING(q) || s == SRC_INJ(q),
			     "queue %u got a packet of source %u (%s), which feeds another queue", q, s,
			     src_name(s));
		if (s == SRC_INJ(REMOVED_Q))
			/* Injected packets pending at a removal are dropped (counted). */
			STRESS_CHECK((int64_t)p->seq > t.last[s],
				     "queue %u: %s's packet %u after its packet %" PRId64 " (order lost)", q,
				     src_name(s), p->seq, t.last[s]);
		else
			STRESS_CHECK((int64_t)p->seq == t.last[s] + 1,
				     "queue %u: %s's packet %u after its packet %" PRId64 " (%s)", q,
				     src_name(s), p->seq, t.last[s],
				     (int64_t)p->seq <= t.last[s] ? "handled twice or out of order"
								  : "packets lost");
		t.last[s] = p->seq;
		__atomic_store_n(&t.handled[s], t.handled[s] + 1, __ATOMIC_RELEASE);
	}
	unic_pkt_free_bulk(pkts, c);
	return c;
}

static uint64_t ctx_dropped(struct unic_napi_ctx *ctx)
{
	struct unic_napi_ctx_stats st;

	STRESS_CHECK(unic_napi_ctx_stats_get(ctx, &st) == 0, "unic_napi_ctx_stats_get failed");
	return st.dropped;
}

/* Wait until everything source @p s sent is handled (or, for the injector of
 * the queue that is removed, handled or dropped). */
static void catch_up(unsigned s)
{
	uint64_t until = stress_now_ns() + STRANDED_S * 1000000000ull;
	uint32_t sent = __atomic_load_n(&t.sent[s], __ATOMIC_ACQUIRE);

	for (;;) {
		uint64_t done = __atomic_load_n(&t.handled[s], __ATOMIC_ACQUIRE);

		if (s == SRC_INJ(REMOVED_Q))
			done += ctx_dropped(t.ctx[REMOVED_Q]);
		if (done == sent)
			return;
		STRESS_CHECK(done < sent, "%s: %" PRIu64 " packets handled (or dropped), %u sent", src_name(s),
			     done, sent);
		STRESS_CHECK(stress_now_ns() < until,
			     "%s: %u packets sent, %" PRIu64 " handled (or dropped) after %d s: stranded (a lost wake-up?)",
			     src_name(s), sent, done, STRANDED_S);
		stress_sleep_us(50);
	}
}

/* Reset packets carrying source @p s's numbers from @p seq on. */
static bool make_pkts(struct unic_pkt **pkts, uint16_t n, unsigned s, uint32_t seq)
{
	if (unic_pkt_alloc_bulk(t.rig.pool, pkts, n) != 0)
		return false;
	for (uint16_t i = 0; i < n; i++) {
		struct tpay *p = unic_pkt_append(pkts[i], 64);

		p->src = s;
		p->seq = seq + i;
	}
	return true;
}

struct source {
	unsigned q;
	bool inject;
	uint64_t rng;
};

static void *source_main(void *arg)
{
	struct source *src = arg;
	unsigned q = src->q, s = src->inject ? SRC_INJ(q) : SRC_RING(q);
	struct unic_pkt *pkts[MAX_BURST];
	unsigned spins = 0;
	uint32_t seq = 0;

	pthread_barrier_wait(&t.start);
	/* At least MIN_SEQ packets: on a loaded machine a source may first run
	 * after the deadline. */
	while (seq < MAX_SEQ && (seq < MIN_SEQ || !stress_past(t.deadline))) {
		uint16_t n = (uint16_t)(1 + stress_rand(&src->rng) % MAX_BURST), done = 0;

		if (!make_pkts(pkts, n, s, seq)) {
			stress_backoff(&spins);
			continue;
		}
		while (done < n) {
			int k;

			if (src->inject)
				k = unic_napi_inject(t.ctx[q], t.rig.rx, (uint16_t)q, pkts + done, (uint16_t)(n - done));
			else
				k = unic_tx_burst(t.rig.tx, (uint16_t)q, pkts + done, (uint16_t)(n - done));
			/* -ENOENT: the queue is out of its context for a moment. */
			STRESS_CHECK(k >= 0 || (k == -ENOENT && q == REMOVED_Q),
				     "%s: unic_napi_inject: %s", src_name(s), strerror(-k));
			if (k > 0) {
				done = (uint16_t)(done + k);
				__atomic_store_n(&t.sent[s], t.sent[s] + (uint32_t)k, __ATOMIC_RELEASE);
				spins = 0;
			} else {
				stress_backoff(&spins);
			}
		}
		seq += n;
		if (stress_rand(&src->rng) % 16 == 0) {
			/* Let the context drain and sleep; the next packet must wake it. */
			catch_up(s);
			__atomic_fetch_add(&t.pauses, 1, __ATOMIC_RELAXED);
			stress_sleep_us(stress_rand(&src->rng) % 8 == 0 ? 3000 : 300);
		}
	}
	__atomic_fetch_add(&t.sources_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Removes and adds REMOVED_Q again and again, and reads the metrics. */
static void *control_main(void *arg)
{
	uint64_t rng = 0xC0FFEEull;
	struct unic_xstat_name names[256];
	uint64_t values[256];

	(void)arg;
	pthread_barrier_wait(&t.start);
	while (__atomic_load_n(&t.sources_done, __ATOMIC_ACQUIRE) < NSRC) {
		struct unic_napi_queue_stats qst;
		struct unic_napi_ctx_stats st;
		int rc, nx;

		stress_sleep_us(500 + stress_rand(&rng) % 2000);
		rc = unic_napi_queue_remove(t.ctx[REMOVED_Q], t.rig.rx, REMOVED_Q);
		STRESS_CHECK(rc == 0, "unic_napi_queue_remove: %s", strerror(-rc));
		STRESS_CHECK(unic_napi_queue_stats_get(t.ctx[REMOVED_Q], t.rig.rx, REMOVED_Q, &qst) == -ENOENT,
			     "queue %u still has counters in its context after its removal", REMOVED_Q);
		stress_sleep_us(stress_rand(&rng) % 300);
		rc = unic_napi_queue_add(t.ctx[REMOVED_Q], t.rig.rx, REMOVED_Q, 64, handler,
					 (void *)(uintptr_t)REMOVED_Q);
		STRESS_CHECK(rc == 0, "unic_napi_queue_add: %s", strerror(-rc));
		t.cycles++;
		/* The moderation switch, handed to the running contexts (a
		 * port's, and a context's for every port), read back. */
		{
			bool fixed = t.cycles & 1;

			rc = unic_napi_moderation_set(t.ctx[0], t.rig.rx, fixed);
			STRESS_CHECK(rc == 0, "unic_napi_moderation_set: %s", strerror(-rc));
			rc = unic_napi_moderation_set(t.ctx[REMOVED_Q], NULL, !fixed);
			STRESS_CHECK(rc == 0, "unic_napi_moderation_set (no port): %s", strerror(-rc));
			STRESS_CHECK(unic_napi_moderation_get(t.ctx[0], t.rig.rx) == (int)fixed &&
				     unic_napi_moderation_get(t.ctx[REMOVED_Q], t.rig.rx) == (int)!fixed,
				     "the moderation switch did not read back as set");
		}
		for (unsigned q = 0; q < NQ; q++) {
			STRESS_CHECK(unic_napi_ctx_stats_get(t.ctx[q], &st) == 0, "ctx stats");
			STRESS_CHECK(unic_napi_queue_stats_get(t.ctx[q], t.rig.rx, (uint16_t)q, &qst) == 0,
				     "queue %u stats: not in its context", q);
		}
		nx = unic_port_xstats_names(t.rig.rx, names, UNIC_ARRAY_SIZE(names));
		STRESS_CHECK(nx > 0 && nx <= (int)UNIC_ARRAY_SIZE(names), "xstats names: %d", nx);
		STRESS_CHECK(unic_port_xstats_get(t.rig.rx, values, UNIC_ARRAY_SIZE(values)) >= 0, "xstats");
	}
	return NULL;
}

int main(void)
{
	static const enum unic_rx_mode modes[NQ] = { UNIC_RX_MODE_HYBRID, UNIC_RX_MODE_INTERRUPT };
	struct source src[NSRC];
	struct stress_napi_runner run[NQ];
	pthread_t stid[NSRC], ctid;
	struct unic_napi_ctx_stats st[NQ];
	struct unic_port_stats pst;
	uint64_t ring_sent = 0, t0 = stress_now_ns();

	stress_name = "stress_napi";
	stress_watchdog();
	stress_napi_rig_up(&t.rig, 8192, NQ);
	for (unsigned q = 0; q < NQ; q++) {
		struct unic_napi_conf c = { .sz = sizeof(c), .name = unic_rx_mode_name(modes[q]),
					    .mode = modes[q], .max_sleep_ms = 30000 };
		int rc;

		t.ctx[q] = unic_napi_ctx_create(&c);
		STRESS_CHECK(t.ctx[q] != NULL, "unic_napi_ctx_create: %s", strerror(errno));
		rc = unic_napi_queue_add(t.ctx[q], t.rig.rx, (uint16_t)q, 64, handler, (void *)(uintptr_t)q);
		STRESS_CHECK(rc == 0, "unic_napi_queue_add(queue %u): %s", q, strerror(-rc));
		stress_napi_runner_start(&run[q], t.ctx[q]);
	}
	for (unsigned s = 0; s < NSRC; s++) {
		t.last[s] = -1;
		src[s] = (struct source){ .q = s / 2, .inject = s % 2, .rng = 0x9E3779B97F4A7C15ull * (s + 1) };
	}
	pthread_barrier_init(&t.start, NULL, NSRC + 2);
	stress_spawn(stid, NSRC, source_main, src, sizeof(src[0]));
	stress_spawn(&ctid, 1, control_main, NULL, 0);
	t.deadline = stress_deadline(1);
	pthread_barrier_wait(&t.start);
	stress_join(stid, NSRC);
	stress_join(&ctid, 1);

	for (unsigned s = 0; s < NSRC; s++)
		catch_up(s);
	for (unsigned q = 0; q < NQ; q++) {
		stress_napi_runner_stop(&run[q]);
		STRESS_CHECK(unic_napi_ctx_stats_get(t.ctx[q], &st[q]) == 0, "ctx stats");
	}
	for (unsigned s = 0; s < NSRC; s++)
		STRESS_CHECK(t.sent[s] > 0, "%s sent nothing before the deadline", src_name(s));
	for (unsigned q = 0; q < NQ; q++) {
		STRESS_CHECK(st[q].sleeps > 0 && st[q].wakeups > 0,
			     "the %s context never slept (%" PRIu64 " sleeps, %" PRIu64 " wake-ups): the doorbells were not exercised",
			     unic_rx_mode_name(modes[q]), st[q].sleeps, st[q].wakeups);
		STRESS_CHECK(st[q].injected == t.sent[SRC_INJ(q)], "%s context: %" PRIu64 " injected, the injector counted %u",
			     unic_rx_mode_name(modes[q]), st[q].injected, t.sent[SRC_INJ(q)]);
		ring_sent += t.sent[SRC_RING(q)];
	}
	STRESS_CHECK(st[0].dropped == 0, "the hybrid context dropped %" PRIu64 " packets; its queue was never removed",
		     st[0].dropped);
	STRESS_CHECK(unic_port_stats_get(t.rig.tx, &pst) == 0 && pst.opackets == ring_sent,
		     "%s sent %" PRIu64 " packets, the senders counted %" PRIu64, unic_port_name(t.rig.tx),
		     pst.opackets, ring_sent);
	STRESS_CHECK(unic_port_stats_get(t.rig.rx, &pst) == 0 && pst.ipackets == ring_sent,
		     "%s received %" PRIu64 " packets, %" PRIu64 " were sent", unic_port_name(t.rig.rx),
		     pst.ipackets, ring_sent);

	for (unsigned q = 0; q < NQ; q++)
		unic_napi_ctx_destroy(t.ctx[q]);
	stress_napi_rig_down(&t.rig);
	printf("%s: sent %u+%u, injected %u+%u (%" PRIu64 " dropped at %u removals), %u pauses, %u refusals; hybrid: %" PRIu64 " sleeps, %" PRIu64 " interrupts; interrupt: %" PRIu64 " sleeps, %" PRIu64 " interrupts; %.2f s\n",
	       stress_name, t.sent[0], t.sent[2], t.sent[1], t.sent[3], st[1].dropped, t.cycles,
	       t.pauses, t.refusals, st[0].sleeps, st[0].interrupts, st[1].sleeps, st[1].interrupts,
	       (stress_now_ns() - t0) / 1e9);
	stress_napi_rig_free(&t.rig);
	pthread_barrier_destroy(&t.start);
	printf("%s: ok\n", stress_name);
	return 0;
}
