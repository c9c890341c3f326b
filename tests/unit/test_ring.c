/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include <unic/ring.h>
#include <unic/log.h>

#define OBJ(i) ((void *)(uintptr_t)((i) + 1))
#define VAL(p) ((uintptr_t)(p) - 1)

static void quiet(void)
{
	unic_log_set_level(-1, UNIC_LOG_ERR);
	unic_log_set_sink(NULL, NULL);
}

TestSuite(ring, .init = quiet);

static const uint32_t flag_sets[] = {
	UNIC_RING_F_SP_ENQ | UNIC_RING_F_SC_DEQ, 0,
	UNIC_RING_F_SP_ENQ, UNIC_RING_F_SC_DEQ,
};

Test(ring, size_must_be_a_power_of_two)
{
	errno = 0;
	cr_assert_null(unic_ring_create("bad", 100, 0));
	cr_assert_eq(errno, EINVAL);
	cr_assert_null(unic_ring_create("zero", 0, 0));
	cr_assert_null(unic_ring_create("flags", 64, 0x80));
	cr_assert_eq(errno, EINVAL);
	cr_assert_eq(unic_ring_memsize(3), 0);
	struct unic_ring *r = unic_ring_create("one", 1, 0);
	cr_assert_not_null(r);
	cr_assert_eq(unic_ring_capacity(r), 1);
	unic_ring_destroy(r);
	unic_ring_destroy(NULL);
}

Test(ring, dequeue_on_empty_returns_zero)
{
	for (size_t f = 0; f < UNIC_ARRAY_SIZE(flag_sets); f++) {
		struct unic_ring *r = unic_ring_create("e", 8, flag_sets[f]);
		void *objs[4];
		void *o;

		cr_assert(unic_ring_empty(r));
		cr_assert_eq(unic_ring_dequeue_bulk(r, objs, 1), 0);
		cr_assert_eq(unic_ring_dequeue_burst(r, objs, 4), 0);
		cr_assert_eq(unic_ring_dequeue(r, &o), -ENOENT);
		unic_ring_destroy(r);
	}
}

Test(ring, every_slot_is_usable_and_full_refuses_more)
{
	for (size_t f = 0; f < UNIC_ARRAY_SIZE(flag_sets); f++) {
		struct unic_ring *r = unic_ring_create("f", 8, flag_sets[f]);
		void *objs[8];

		for (int i = 0; i < 8; i++)
			objs[i] = OBJ(i);
		cr_assert_eq(unic_ring_enqueue_bulk(r, objs, 8), 8);
		cr_assert(unic_ring_full(r));
		cr_assert_eq(unic_ring_count(r), 8);
		cr_assert_eq(unic_ring_free_count(r), 0);
		cr_assert_eq(unic_ring_enqueue(r, OBJ(99)), -ENOBUFS);
		cr_assert_eq(unic_ring_enqueue_burst(r, objs, 3), 0);
		void *out[8];
		cr_assert_eq(unic_ring_dequeue_bulk(r, out, 8), 8);
		for (int i = 0; i < 8; i++)
			cr_assert_eq(out[i], OBJ(i), "FIFO order broken at %d", i);
		unic_ring_destroy(r);
	}
}

Test(ring, bulk_is_all_or_nothing_and_burst_takes_what_fits)
{
	for (size_t f = 0; f < UNIC_ARRAY_SIZE(flag_sets); f++) {
		struct unic_ring *r = unic_ring_create("b", 16, flag_sets[f]);
		void *objs[32] = { 0 }, *outp[32];

		for (int i = 0; i < 16; i++)
			objs[i] = OBJ(i);
		cr_assert_eq(unic_ring_enqueue_bulk(r, objs, 10), 10);
		cr_assert_eq(unic_ring_enqueue_bulk(r, objs, 7), 0, "bulk must refuse 7 into 6 free");
		cr_assert_eq(unic_ring_count(r), 10, "a refused bulk must leave the ring as it was");
		cr_assert_eq(unic_ring_enqueue_burst(r, objs + 10, 6 + 3), 6);
		cr_assert_eq(unic_ring_count(r), 16);
		cr_assert_eq(unic_ring_dequeue_bulk(r, outp, 17), 0);
		cr_assert_eq(unic_ring_count(r), 16);
		cr_assert_eq(unic_ring_dequeue_burst(r, outp, 12), 12);
		cr_assert_eq(unic_ring_dequeue_burst(r, outp + 12, 12), 4);
		for (int i = 0; i < 16; i++)
			cr_assert_eq(outp[i], OBJ(i));
		unic_ring_destroy(r);
	}
}

/* Start the free-running indices just below 2^32 and move many elements
 * through, crossing the counter wrap and the slot-array wrap many times. */
Test(ring, free_running_indices_wrap_around)
{
	for (size_t f = 0; f < UNIC_ARRAY_SIZE(flag_sets); f++) {
		struct unic_ring *r = unic_ring_create("w", 16, flag_sets[f]);
		uint32_t start = UINT32_MAX - 37;
		uint64_t next_in = 0, next_out = 0;

		r->prod.head = r->prod.tail = r->prod.other_cache = start;
		r->cons.head = r->cons.tail = r->cons.other_cache = start;
		cr_assert_eq(unic_ring_count(r), 0);

		for (int round = 0; round < 200; round++) {
			void *in[13], *out[13];
			uint32_t n = (uint32_t)(round % 13) + 1, k;

			for (k = 0; k < n; k++)
				in[k] = OBJ(next_in + k);
			uint32_t put = unic_ring_enqueue_burst(r, in, n);
			next_in += put;
			cr_assert_leq(unic_ring_count(r), 16);
			uint32_t got = unic_ring_dequeue_burst(r, out, (n * 2) / 3 + 1);
			for (k = 0; k < got; k++)
				cr_assert_eq(VAL(out[k]), next_out + k,
					     "element out of order after wrap (round %d)", round);
			next_out += got;
			cr_assert_eq(unic_ring_count(r), next_in - next_out);
		}
		cr_assert_lt(r->prod.tail, start, "the test must cross the 2^32 wrap");
		unic_ring_destroy(r);
	}
}

Test(ring, init_in_caller_memory)
{
	size_t sz = unic_ring_memsize(64);
	struct unic_ring *r = aligned_alloc(64, sz);

	cr_assert_eq(unic_ring_init(r, "mine", 64, UNIC_RING_F_SP_ENQ | UNIC_RING_F_SC_DEQ), 0);
	cr_assert_eq(unic_ring_enqueue(r, OBJ(5)), 0);
	void *o;
	cr_assert_eq(unic_ring_dequeue(r, &o), 0);
	cr_assert_eq(o, OBJ(5));
	unic_ring_destroy(r); /* not ours to free: must do nothing */
	cr_assert_eq(unic_ring_init(r, "bad", 63, 0), -EINVAL);
	free(r);
}

/* ---- multi-thread stress ------------------------------------------------ */

/*
 * Two producers and two consumers on one 1024-slot ring, each producer's
 * elements numbered. The work has two bounds: at most STRESS_PER_PROD
 * elements a producer, and a time budget (STRESS_SECONDS, or
 * UNIC_RING_STRESS_SECONDS) after which the producers stop where they are.
 * Four spinning threads on a loaded 2-core machine go slowly: a thread
 * preempted between reserving slots and publishing them holds up every
 * thread behind it ((M1) in ring.h) for the rest of its time slice, and
 * 10M elements took minutes there. The budget keeps the test well inside
 * its timeout; on an idle machine all 10M go through in a few seconds.
 * Whatever was produced must come out exactly once and in each producer's
 * order; every producer must have put something through and all of them
 * together at least STRESS_MIN_TOTAL elements (a ring that stalls or crawls
 * fails, and the check is never on an empty run; the ring is not fair, and
 * under load one producer may get far less than the other). The threads spin (never yield), as the ring's
 * users do: the interleavings that find a defect are those of threads that
 * run at the same time.
 */
#define STRESS_PRODUCERS 2
#define STRESS_CONSUMERS 2
#define STRESS_TOTAL 10000000u
#define STRESS_PER_PROD (STRESS_TOTAL / STRESS_PRODUCERS)
#define STRESS_MIN_TOTAL 10000u
#define STRESS_SECONDS 10

struct stress {
	struct unic_ring *r;
	uint8_t *seen[STRESS_PRODUCERS];
	uint64_t produced[STRESS_PRODUCERS]; /* each producer's count, at its end */
	uint64_t produced_total; /* atomic, added by each producer at its end */
	unsigned producers_left; /* atomic */
	uint64_t consumed; /* atomic */
	uint64_t order_errors; /* atomic */
	uint64_t deadline_ns;
	bool bulk;
};

struct stress_arg {
	struct stress *s;
	unsigned id;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *stress_producer(void *v)
{
	struct stress_arg *a = v;
	struct stress *s = a->s;
	uint64_t seq = 0;
	unsigned burst = 1 + a->id * 7, calls = 0;

	while (seq < STRESS_PER_PROD) {
		void *objs[32];
		uint32_t n = (uint32_t)UNIC_MIN((uint64_t)burst, STRESS_PER_PROD - seq), k, put;

		if (++calls % 1024 == 0 && mono_ns() > s->deadline_ns)
			break;
		for (k = 0; k < n; k++)
			objs[k] = OBJ(((uint64_t)a->id << 40) | (seq + k));
		put = s->bulk ? unic_ring_enqueue_bulk(s->r, objs, n)
			      : unic_ring_enqueue_burst(s->r, objs, n);
		if (put == 0)
			unic_pause();
		seq += put;
		burst = burst % 32 + 1;
	}
	s->produced[a->id] = seq;
	__atomic_fetch_add(&s->produced_total, seq, __ATOMIC_RELAXED);
	__atomic_fetch_sub(&s->producers_left, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Done when every producer has ended and all they produced is consumed. */
static bool stress_done(struct stress *s)
{
	if (__atomic_load_n(&s->producers_left, __ATOMIC_ACQUIRE) != 0)
		return false;
	return __atomic_load_n(&s->consumed, __ATOMIC_RELAXED) >=
	       __atomic_load_n(&s->produced_total, __ATOMIC_RELAXED);
}

static void *stress_consumer(void *v)
{
	struct stress_arg *a = v;
	struct stress *s = a->s;
	uint64_t last[STRESS_PRODUCERS];
	unsigned burst = 3 + a->id * 5;

	for (int p = 0; p < STRESS_PRODUCERS; p++)
		last[p] = UINT64_MAX;
	while (!stress_done(s)) {
		void *objs[32];
		uint32_t got = s->bulk ? unic_ring_dequeue_bulk(s->r, objs, burst)
				       : unic_ring_dequeue_burst(s->r, objs, burst);

		for (uint32_t k = 0; k < got; k++) {
			uint64_t val = VAL(objs[k]);
			unsigned p = (unsigned)(val >> 40);
			uint64_t seq = val & ((1ull << 40) - 1);

			if (p >= STRESS_PRODUCERS || seq >= STRESS_PER_PROD) {
				__atomic_fetch_add(&s->order_errors, 1, __ATOMIC_RELAXED);
				continue;
			}
			/* One consumer sees each producer's elements in order. */
			if (last[p] != UINT64_MAX && seq <= last[p])
				__atomic_fetch_add(&s->order_errors, 1, __ATOMIC_RELAXED);
			last[p] = seq;
			__atomic_fetch_add(&s->seen[p][seq], 1, __ATOMIC_RELAXED);
		}
		if (got)
			__atomic_fetch_add(&s->consumed, got, __ATOMIC_RELAXED);
		else
			unic_pause();
		/* Down to 1 now and then: a bulk request for more than is
		 * left after the producers stopped would never succeed. */
		burst = burst % 32 + 1;
	}
	return NULL;
}

static void run_stress(bool bulk)
{
	struct stress s = { .bulk = bulk, .producers_left = STRESS_PRODUCERS };
	pthread_t th[STRESS_PRODUCERS + STRESS_CONSUMERS];
	struct stress_arg args[STRESS_PRODUCERS + STRESS_CONSUMERS];
	const char *env = getenv("UNIC_RING_STRESS_SECONDS");
	uint64_t seconds = env && atoi(env) > 0 ? (uint64_t)atoi(env) : STRESS_SECONDS, t0;

	s.r = unic_ring_create("stress", 1024, 0);
	cr_assert_not_null(s.r);
	for (int p = 0; p < STRESS_PRODUCERS; p++)
		s.seen[p] = calloc(STRESS_PER_PROD, 1);
	t0 = mono_ns();
	s.deadline_ns = t0 + seconds * 1000000000u;
	for (unsigned i = 0; i < STRESS_PRODUCERS + STRESS_CONSUMERS; i++) {
		args[i].s = &s;
		args[i].id = i < STRESS_PRODUCERS ? i : i - STRESS_PRODUCERS;
		pthread_create(&th[i], NULL,
			       i < STRESS_PRODUCERS ? stress_producer : stress_consumer,
			       &args[i]);
	}
	for (unsigned i = 0; i < STRESS_PRODUCERS + STRESS_CONSUMERS; i++)
		pthread_join(th[i], NULL);
	cr_log_info("%s: %" PRIu64 " + %" PRIu64 " elements in %.1f s (budget %" PRIu64 " s)",
		    bulk ? "bulk" : "burst", s.produced[0], s.produced[1], (double)(mono_ns() - t0) / 1e9, seconds);

	cr_assert_geq(s.produced_total, STRESS_MIN_TOTAL,
		      "%" PRIu64 " elements went through in %" PRIu64 " s, expected at least %u (the ring stalls or crawls)",
		      s.produced_total, seconds, STRESS_MIN_TOTAL);
	cr_assert_eq(s.consumed, s.produced_total, "consumed %" PRIu64 " of %" PRIu64 " produced",
		     s.consumed, s.produced_total);
	cr_assert_eq(s.order_errors, 0, "%" PRIu64 " elements bad or out of order", s.order_errors);
	for (int p = 0; p < STRESS_PRODUCERS; p++) {
		uint64_t missing = 0, dup = 0, extra = 0;

		cr_assert_gt(s.produced[p], 0, "producer %d put nothing through in %" PRIu64 " s", p, seconds);
		for (uint64_t k = 0; k < STRESS_PER_PROD; k++) {
			if (k < s.produced[p]) {
				missing += s.seen[p][k] == 0;
				dup += s.seen[p][k] > 1;
			} else {
				extra += s.seen[p][k] != 0;
			}
		}
		cr_assert_eq(missing, 0, "producer %d: %" PRIu64 " elements never arrived", p, missing);
		cr_assert_eq(dup, 0, "producer %d: %" PRIu64 " elements arrived twice", p, dup);
		cr_assert_eq(extra, 0, "producer %d: %" PRIu64 " elements arrived that it never produced", p, extra);
		free(s.seen[p]);
	}
	cr_assert(unic_ring_empty(s.r));
	unic_ring_destroy(s.r);
}

Test(ring, mpmc_two_producers_two_consumers_burst_deliver_each_element_once, .timeout = 240)
{
	run_stress(false);
}

Test(ring, mpmc_two_producers_two_consumers_bulk_deliver_each_element_once, .timeout = 240)
{
	run_stress(true);
}
