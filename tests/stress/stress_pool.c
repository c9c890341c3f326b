/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/pool's per-thread caches under several threads at once: gets and
 * puts of 1..(1.5 x cache) objects (so both the cache and the ring paths
 * run), objects passed from thread to thread (taken from one cache, freed
 * into another, as a forwarding app does), the pool run dry on purpose,
 * and a statistics thread reading the counts meanwhile.
 *
 * Each object carries its owner in its first word, claimed with a
 * compare-and-swap. Checked:
 *  - no object is handed to a thread while another holds it, and none
 *    comes back to a thread that did not take it;
 *  - a refused bulk get is counted (get_fail equals the refusals seen) and
 *    a bulk get is all or nothing;
 *  - the counts a reader sees stay in range, and at the end no object is
 *    in use, every object is distinct and free, and the pool's debug
 *    counters (with -Dpool_debug=true) saw nothing.
 */
#include <unic/mem.h>
#include <unic/pool.h>

#include "stress.h"

#define NB_OBJS     2048
#define CACHE       64
#define NB_WORKERS  4
#define MAX_HELD    512         /* 4 x 512 > 2048: the pool runs dry */
#define MAX_GET     (CACHE + CACHE / 2)
#define HANDOFF     0xFFFFFFFFu /* owner while in the handoff ring */
#define ROUNDS      200000u     /* operations a worker makes at most */

struct obj {
	uint32_t owner;             /* 0: free; id + 1: held; HANDOFF */
	uint32_t gen;
};

static struct {
	struct unic_pool *pool;
	struct unic_ring *handoff;  /* MP/MC: objects on their way to another thread */
	pthread_barrier_t start, returned, checked;
	uint64_t deadline;
	uint32_t workers_done;
	uint64_t refused;           /* bulk gets that returned -ENOENT */
	uint64_t ops;
} t;

struct worker {
	unsigned id;
	uint64_t rng;
	uint32_t nb_held;
	struct obj *held[MAX_HELD];
};

static void take(struct worker *w, struct obj *o, uint32_t from)
{
	uint32_t expect = from;

	if (!__atomic_compare_exchange_n(&o->owner, &expect, w->id + 1, false, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		if (expect == HANDOFF)
			stress_fail("thread %u got object %p from the pool while it was in the handoff ring",
				    w->id, (void *)o);
		else if (from == HANDOFF)
			stress_fail("thread %u took object %p from the handoff ring, but it is marked %s %u",
				    w->id, (void *)o, expect ? "held by thread" : "free:", expect ? expect - 1 : 0);
		else
			stress_fail("thread %u got object %p from the pool while thread %u holds it",
				    w->id, (void *)o, expect - 1);
	}
	o->gen++;
	w->held[w->nb_held++] = o;
}

/* Give up held[i..i+n-1]: mark them @p to (0: free, HANDOFF) and drop them from held. */
static void release(struct worker *w, void **out, uint32_t n, uint32_t to)
{
	for (uint32_t k = 0; k < n; k++) {
		struct obj *o = w->held[--w->nb_held];
		uint32_t expect = w->id + 1;

		if (!__atomic_compare_exchange_n(&o->owner, &expect, to, false, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			stress_fail("thread %u holds object %p, but it is marked as owner %u", w->id,
				    (void *)o, expect);
		out[k] = o;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	void *objs[MAX_GET];
	unsigned spins = 0;
	uint64_t ops = 0;

	pthread_barrier_wait(&t.start);
	for (uint32_t r = 0; r < ROUNDS && !stress_past(t.deadline); r++) {
		uint32_t op = stress_rand(&w->rng) % 8;
		uint32_t n = 1 + stress_rand(&w->rng) % MAX_GET;

		ops++;
		if (op < 3) {                           /* get */
			int rc;

			if (n > MAX_HELD - w->nb_held)
				continue;
			for (uint32_t k = 0; k < n; k++)
				objs[k] = NULL;
			rc = n == 1 ? unic_pool_get(t.pool, objs) : unic_pool_get_bulk(t.pool, objs, n);
			if (rc == -ENOENT) {
				for (uint32_t k = 0; k < n; k++)
					STRESS_CHECK(objs[k] == NULL,
						     "a refused get of %u wrote objects (all or nothing)", n);
				__atomic_fetch_add(&t.refused, 1, __ATOMIC_RELAXED);
				stress_backoff(&spins);
				continue;
			}
			STRESS_CHECK(rc == 0, "unic_pool_get_bulk(%u): %d", n, rc);
			spins = 0;
			for (uint32_t k = 0; k < n; k++)
				take(w, objs[k], 0);
		} else if (op < 6) {                    /* put */
			if (n > w->nb_held)
				n = w->nb_held;
			if (n == 0)
				continue;
			release(w, objs, n, 0);
			if (n == 1)
				unic_pool_put(t.pool, objs[0]);
			else
				unic_pool_put_bulk(t.pool, objs, n);
		} else if (op == 6) {                   /* pass to another thread */
			uint32_t k;

			if (n > w->nb_held)
				n = w->nb_held;
			if (n == 0)
				continue;
			release(w, objs, n, HANDOFF);
			k = unic_ring_enqueue_burst(t.handoff, objs, n);
			for (uint32_t i = k; i < n; i++) /* full: keep them */
				take(w, objs[i], HANDOFF);
		} else {                                /* take what others passed */
			uint32_t k;

			if (n > MAX_HELD - w->nb_held)
				n = MAX_HELD - w->nb_held;
			k = unic_ring_dequeue_burst(t.handoff, objs, n);
			for (uint32_t i = 0; i < k; i++)
				take(w, objs[i], HANDOFF);
		}
	}
	/* Give everything back, from this thread. */
	while (w->nb_held) {
		uint32_t n = w->nb_held < MAX_GET ? w->nb_held : MAX_GET;

		release(w, objs, n, 0);
		unic_pool_put_bulk(t.pool, objs, n);
	}
	__atomic_fetch_add(&t.ops, ops, __ATOMIC_RELAXED);
	__atomic_fetch_add(&t.workers_done, 1, __ATOMIC_RELEASE);
	/* main checks the counts while the caches still hold objects (they
	 * count as available), then the caches go back to the ring. */
	pthread_barrier_wait(&t.returned);
	pthread_barrier_wait(&t.checked);
	unic_pool_cache_flush(t.pool);
	return NULL;
}

/* An application's statistics thread: reads the counts while the workers run. */
static void *reader_main(void *arg)
{
	uint64_t *reads = arg;

	pthread_barrier_wait(&t.start);
	while (__atomic_load_n(&t.workers_done, __ATOMIC_ACQUIRE) < NB_WORKERS) {
		uint32_t in_use = unic_pool_in_use_count(t.pool);
		uint32_t avail = unic_pool_avail_count(t.pool);
		uint32_t cached = unic_pool_cache_count(t.pool);
		struct unic_pool_stats st;

		STRESS_CHECK(in_use <= NB_OBJS && avail <= NB_OBJS,
			     "while the workers run: %u in use, %u available, of %u objects", in_use,
			     avail, NB_OBJS);
		STRESS_CHECK(cached <= (NB_WORKERS + 1) * (CACHE + CACHE / 2 + MAX_GET),
			     "while the workers run: %u objects in caches, more than %u threads can hold",
			     cached, NB_WORKERS + 1);
		unic_pool_stats_get(t.pool, &st);
		(*reads)++;
		stress_sleep_us(200);
	}
	return NULL;
}

int main(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pool_conf pc = {
		.sz = sizeof(pc), .name = "stress", .count = NB_OBJS, .obj_size = sizeof(struct obj),
		.cache_size = CACHE, .numa_node = -1,
	};
	static struct worker w[NB_WORKERS];
	static void *all[NB_OBJS];
	pthread_t tids[NB_WORKERS], rtid;
	struct unic_pool_stats st;
	struct unic_mem *mem;
	uint64_t reads = 0, t0 = stress_now_ns();
	void *o;

	stress_name = "stress_pool";
	stress_watchdog();
	mem = unic_mem_create(&mc);
	STRESS_CHECK(mem != NULL, "unic_mem_create (no hugepages): %s", strerror(errno));
	pc.mem = mem;
	t.pool = unic_pool_create(&pc);
	STRESS_CHECK(t.pool != NULL, "unic_pool_create: %s", strerror(errno));
	t.handoff = unic_ring_create("handoff", 1024, 0);
	STRESS_CHECK(t.handoff != NULL, "unic_ring_create: %s", strerror(errno));
	pthread_barrier_init(&t.start, NULL, NB_WORKERS + 2);
	pthread_barrier_init(&t.returned, NULL, NB_WORKERS + 1);
	pthread_barrier_init(&t.checked, NULL, NB_WORKERS + 1);
	for (unsigned i = 0; i < NB_WORKERS; i++)
		w[i] = (struct worker){ .id = i, .rng = 0x9E3779B97F4A7C15ull * (i + 1) };
	stress_spawn(tids, NB_WORKERS, worker_main, w, sizeof(w[0]));
	stress_spawn(&rtid, 1, reader_main, &reads, 0);
	t.deadline = stress_deadline(1);
	pthread_barrier_wait(&t.start);
	pthread_barrier_wait(&t.returned);
	stress_join(&rtid, 1);

	/* What is left in the handoff ring goes back from here. */
	while (unic_ring_dequeue(t.handoff, &o) == 0) {
		struct obj *ob = o;

		STRESS_CHECK(ob->owner == HANDOFF, "object %p in the handoff ring is marked %u", o,
			     ob->owner);
		ob->owner = 0;
		unic_pool_put(t.pool, o);
	}
	unic_pool_stats_get(t.pool, &st);
	STRESS_CHECK(st.get_fail == t.refused,
		     "the pool counted %" PRIu64 " failed gets, the workers saw %" PRIu64 " refused",
		     st.get_fail, t.refused);
	STRESS_CHECK(unic_pool_in_use_count(t.pool) == 0,
		     "%u objects in use after every thread gave everything back",
		     unic_pool_in_use_count(t.pool));
	STRESS_CHECK(unic_pool_avail_count(t.pool) == NB_OBJS, "%u of %u objects available",
		     unic_pool_avail_count(t.pool), NB_OBJS);
	STRESS_CHECK(st.debug_double_free == 0 && st.debug_corrupt == 0 && st.debug_foreign == 0,
		     "the pool's debug checks saw %" PRIu64 " double frees, %" PRIu64 " damaged objects, %" PRIu64 " foreign puts",
		     st.debug_double_free, st.debug_corrupt, st.debug_foreign);
	pthread_barrier_wait(&t.checked);
	stress_join(tids, NB_WORKERS);

	/* Every object once: the workers have flushed their caches, so this
	 * thread can take them all; a duplicate would be seen held. */
	{
		static struct worker me = { .id = NB_WORKERS };
		uint32_t got = 0;

		while (got < NB_OBJS && unic_pool_get(t.pool, &all[got]) == 0) {
			if (me.nb_held == MAX_HELD)
				me.nb_held = 0; /* only the marks matter here */
			take(&me, all[got], 0);
			got++;
		}
		STRESS_CHECK(got == NB_OBJS, "took %u objects of %u after every cache was flushed",
			     got, NB_OBJS);
		for (uint32_t i = 0; i < got; i++) {
			((struct obj *)all[i])->owner = 0;
			unic_pool_put(t.pool, all[i]);
		}
	}

	printf("%s: %d threads, %" PRIu64 " operations, %" PRIu64 " refused gets (counted), %" PRIu64 " reads of the counts, %.2f s\n",
	       stress_name, NB_WORKERS, t.ops, t.refused, reads, (stress_now_ns() - t0) / 1e9);
	unic_ring_destroy(t.handoff);
	unic_pool_destroy(t.pool);
	unic_mem_destroy(mem);
	pthread_barrier_destroy(&t.start);
	pthread_barrier_destroy(&t.returned);
	pthread_barrier_destroy(&t.checked);
	printf("%s: ok\n", stress_name);
	return 0;
}
