/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/ring under several producers and consumers at once: SP/SC, MP/MC and
 * the two mixed forms, each with bulk and burst calls of random sizes on a
 * small ring (so it is often full and often empty, and copies wrap), and
 * calls that ask for nothing (n = 0) among them.
 *
 * Every element names its producer and its sequence number. Checked:
 *  - every element produced is consumed exactly once (a bitmap per
 *    producer: a second delivery, or one never produced, fails at once);
 *  - a bulk call moves all or nothing, a burst call at most what it asked,
 *    a call for 0 moves nothing (and does not hang: stress.h's watchdog);
 *  - order: each consumer sees each producer's elements in increasing
 *    order; a single consumer sees them with no gap (seq == previous + 1);
 *  - at the end the ring is empty and the counts agree.
 */
#include <unic/ring.h>

#include "stress.h"

#define RING_SIZE  256
#define MAX_BURST  40          /* > 32: the copies' memcpy path, and wraps */
#define MAX_THR    3
#define PER_PROD   (1u << 18)  /* elements a producer makes at most */
#define MIN_PROD   1024        /* ...and at least, whatever the deadline says */

struct ring_case {
	const char *name;
	uint32_t flags;
	unsigned nb_prod, nb_cons;
};

static const struct ring_case cases[] = {
	/* The fast cases first: time they leave goes to the later ones. */
	{ "SP/SC", UNIC_RING_F_SP_ENQ | UNIC_RING_F_SC_DEQ, 1, 1 },
	{ "SP/MC", UNIC_RING_F_SP_ENQ, 1, 3 },
	{ "MP/SC", UNIC_RING_F_SC_DEQ, 3, 1 },
	{ "MP/MC", 0, 3, 3 },
};

static struct {
	const struct ring_case *c;
	struct unic_ring *r;
	pthread_barrier_t start;        /* the workers and main; the deadline is set just before */
	uint64_t deadline;
	uint32_t prod_done;            /* producers finished (release) */
	uint32_t produced[MAX_THR];    /* each producer's count, final once done */
	uint64_t consumed;             /* atomic */
	uint64_t *seen[MAX_THR];       /* bitmap per producer, atomic or */
} t;

struct worker {
	unsigned id;
	uint64_t rng;
};

static void *elt(unsigned prod, uint32_t seq)
{
	return (void *)(uintptr_t)(((uint64_t)(prod + 1) << 32) | seq);
}

static uint32_t enq(void *const *objs, uint32_t n, bool bulk)
{
	/* The explicit variant matching the ring's flags half the time, the
	 * generic one (which picks it from the flags) otherwise. */
	if (n & 1)
		return bulk ? unic_ring_enqueue_bulk(t.r, objs, n) : unic_ring_enqueue_burst(t.r, objs, n);
	if (t.c->flags & UNIC_RING_F_SP_ENQ)
		return bulk ? unic_ring_sp_enqueue_bulk(t.r, objs, n) : unic_ring_sp_enqueue_burst(t.r, objs, n);
	return bulk ? unic_ring_mp_enqueue_bulk(t.r, objs, n) : unic_ring_mp_enqueue_burst(t.r, objs, n);
}

static uint32_t deq(void **objs, uint32_t n, bool bulk)
{
	if (n & 1)
		return bulk ? unic_ring_dequeue_bulk(t.r, objs, n) : unic_ring_dequeue_burst(t.r, objs, n);
	if (t.c->flags & UNIC_RING_F_SC_DEQ)
		return bulk ? unic_ring_sc_dequeue_bulk(t.r, objs, n) : unic_ring_sc_dequeue_burst(t.r, objs, n);
	return bulk ? unic_ring_mc_dequeue_bulk(t.r, objs, n) : unic_ring_mc_dequeue_burst(t.r, objs, n);
}

static void *producer(void *arg)
{
	struct worker *w = arg;
	void *objs[MAX_BURST];
	uint32_t seq = 0;
	unsigned spins = 0;

	pthread_barrier_wait(&t.start);
	/* At least MIN_PROD elements: on a loaded machine (ThreadSanitizer, two
	 * cores, seven threads) a producer may first run after the deadline. */
	while (seq < PER_PROD && (seq < MIN_PROD || !stress_past(t.deadline))) {
		uint32_t n = stress_rand(&w->rng) % (MAX_BURST + 1);
		bool bulk = stress_rand(&w->rng) & 1;
		uint32_t k;

		if (n == 0) {
			/* Asking for nothing is allowed and moves nothing. */
			k = enq(objs, 0, bulk);
			STRESS_CHECK(k == 0, "%s: producer %u: an enqueue of 0 returned %u", t.c->name, w->id, k);
			continue;
		}
		if (n > PER_PROD - seq)
			n = PER_PROD - seq;
		for (uint32_t i = 0; i < n; i++)
			objs[i] = elt(w->id, seq + i);
		k = enq(objs, n, bulk);
		STRESS_CHECK(bulk ? (k == 0 || k == n) : k <= n,
			     "%s: producer %u: %s enqueue of %u returned %u (expected %s)", t.c->name,
			     w->id, bulk ? "bulk" : "burst", n, k, bulk ? "0 or all" : "at most n");
		seq += k;
		if (k == 0)
			stress_backoff(&spins);
		else
			spins = 0;
	}
	t.produced[w->id] = seq;
	__atomic_fetch_add(&t.prod_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *consumer(void *arg)
{
	struct worker *w = arg;
	int64_t last[MAX_THR];
	void *objs[MAX_BURST];
	unsigned spins = 0;

	for (unsigned p = 0; p < MAX_THR; p++)
		last[p] = -1;
	pthread_barrier_wait(&t.start);
	for (;;) {
		/* Read before the dequeue: if every producer had finished and
		 * this dequeue then finds nothing to reserve, nothing is left. */
		bool done = __atomic_load_n(&t.prod_done, __ATOMIC_ACQUIRE) == t.c->nb_prod;
		uint32_t n = stress_rand(&w->rng) % (MAX_BURST + 1);
		bool bulk = !done && (stress_rand(&w->rng) & 1);
		uint32_t k = deq(objs, n, bulk);

		if (n == 0) {
			STRESS_CHECK(k == 0, "%s: consumer %u: a dequeue of 0 returned %u", t.c->name, w->id, k);
			continue;
		}

		STRESS_CHECK(bulk ? (k == 0 || k == n) : k <= n,
			     "%s: consumer %u: %s dequeue of %u returned %u (expected %s)", t.c->name,
			     w->id, bulk ? "bulk" : "burst", n, k, bulk ? "0 or all" : "at most n");
		if (k == 0) {
			if (done)
				break;
			stress_backoff(&spins);
			continue;
		}
		spins = 0;
		for (uint32_t i = 0; i < k; i++) {
			uint64_t v = (uint64_t)(uintptr_t)objs[i];
			unsigned p = (unsigned)(v >> 32) - 1;
			uint32_t seq = (uint32_t)v;
			uint64_t bit, old;

			STRESS_CHECK(p < t.c->nb_prod && seq < PER_PROD,
				     "%s: consumer %u got %p, which no producer made", t.c->name, w->id,
				     objs[i]);
			STRESS_CHECK((int64_t)seq > last[p],
				     "%s: consumer %u got producer %u's element %u after its element %" PRId64 " (order lost)",
				     t.c->name, w->id, p, seq, last[p]);
			STRESS_CHECK(t.c->nb_cons > 1 || (int64_t)seq == last[p] + 1,
				     "%s: the only consumer got producer %u's element %u after %" PRId64 ": %" PRId64 " element(s) skipped",
				     t.c->name, p, seq, last[p], (int64_t)seq - last[p] - 1);
			last[p] = seq;
			bit = 1ull << (seq % 64);
			old = __atomic_fetch_or(&t.seen[p][seq / 64], bit, __ATOMIC_RELAXED);
			STRESS_CHECK(!(old & bit), "%s: producer %u's element %u was delivered twice",
				     t.c->name, p, seq);
		}
		__atomic_fetch_add(&t.consumed, k, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void run_case(const struct ring_case *c, uint64_t end, unsigned left)
{
	struct worker prod[MAX_THR], cons[MAX_THR];
	pthread_t ptid[MAX_THR], ctid[MAX_THR];
	uint64_t produced = 0;
	uint64_t t0 = stress_now_ns();

	memset(&t, 0, sizeof(t));
	t.c = c;
	t.r = unic_ring_create("stress", RING_SIZE, c->flags);
	STRESS_CHECK(t.r != NULL, "unic_ring_create(%u, %s): %s", RING_SIZE, c->name, strerror(errno));
	for (unsigned p = 0; p < c->nb_prod; p++) {
		t.seen[p] = calloc(PER_PROD / 64, sizeof(uint64_t));
		STRESS_CHECK(t.seen[p] != NULL, "out of memory");
	}
	for (unsigned i = 0; i < MAX_THR; i++) {
		prod[i] = (struct worker){ .id = i, .rng = 0x9E3779B97F4A7C15ull * (i + 1) };
		cons[i] = (struct worker){ .id = i, .rng = 0xD1B54A32D192ED03ull * (i + 1) };
	}
	pthread_barrier_init(&t.start, NULL, c->nb_prod + c->nb_cons + 1);
	stress_spawn(ctid, c->nb_cons, consumer, cons, sizeof(cons[0]));
	stress_spawn(ptid, c->nb_prod, producer, prod, sizeof(prod[0]));
	/* The case's share of the time left, from when its threads exist. */
	t.deadline = stress_share(end, left);
	pthread_barrier_wait(&t.start);
	stress_join(ptid, c->nb_prod);
	stress_join(ctid, c->nb_cons);
	pthread_barrier_destroy(&t.start);

	for (unsigned p = 0; p < c->nb_prod; p++) {
		uint32_t n = t.produced[p];

		STRESS_CHECK(n >= MIN_PROD, "%s: producer %u enqueued %u elements; it makes %u at least",
			     c->name, p, n, MIN_PROD);
		produced += n;
		for (uint32_t s = 0; s < PER_PROD; s++) {
			bool got = (t.seen[p][s / 64] >> (s % 64)) & 1;

			STRESS_CHECK(got == (s < n), "%s: producer %u's element %u (of %u made) was %s",
				     c->name, p, s, n, got ? "consumed, never produced" : "never consumed");
		}
		free(t.seen[p]);
	}
	STRESS_CHECK(produced > 0, "%s: nothing was enqueued in %.2f s", c->name,
		     (stress_now_ns() - t0) / 1e9);
	STRESS_CHECK(t.consumed == produced, "%s: %" PRIu64 " consumed, %" PRIu64 " produced",
		     c->name, t.consumed, produced);
	STRESS_CHECK(unic_ring_count(t.r) == 0 && unic_ring_empty(t.r),
		     "%s: the ring holds %u entries after everything was consumed", c->name,
		     unic_ring_count(t.r));
	unic_ring_destroy(t.r);
	printf("%s: %s: %u producer(s), %u consumer(s): %" PRIu64 " elements, each once, in order, %.2f s\n",
	       stress_name, c->name, c->nb_prod, c->nb_cons, produced, (stress_now_ns() - t0) / 1e9);
}

int main(void)
{
	uint64_t end = stress_deadline(1);

	stress_name = "stress_ring";
	stress_watchdog();
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(cases); i++)
		run_case(&cases[i], end, (unsigned)(UNIC_ARRAY_SIZE(cases) - i));
	printf("%s: ok\n", stress_name);
	return 0;
}
