/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Single-writer counters: a 64-bit count that one thread adds to and any
 * thread may read while it does.
 *
 * The rule: at any time at most one thread adds to a given counter (a
 * queue's poller, a napi context's thread, a forwarding thread). Another
 * thread may take over later if the hand-over itself orders the two (a lock,
 * a release/acquire pair, a thread join): the counter holds no lock of its
 * own.
 *
 * Why that is enough: the writer is the only thread that changes the value,
 * so a relaxed load followed by a relaxed store of the sum loses nothing and
 * needs no locked read-modify-write (on x86-64 it is a plain mov, add, mov).
 * Both accesses are atomic, so a reader on another thread sees either the
 * value before or after an add, never a torn mix of the two halves, and in
 * C11 terms the concurrent read and write are not a data race (a plain
 * `count++` read by another thread is one, and ThreadSanitizer reports it).
 * Relaxed order: a reader gets no ordering with the writer's other memory,
 * only a value the counter really held; counters are for statistics, not
 * for synchronisation. Two counters read one after the other (packets, then
 * bytes) may be from different moments: the writer may add in between.
 *
 * Two writers adding to one counter at the same time lose counts: give
 * each writer its own counter and sum them when reading.
 */
#ifndef UNIC_COUNTER_H
#define UNIC_COUNTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * One single-writer counter. A struct, so that a plain `++` or `+=` does
 * not compile: every access goes through unic_counter_add(),
 * unic_counter_set() and unic_counter_read(). Zero-initialised memory is a
 * counter at 0.
 */
struct unic_counter {
	uint64_t value; /**< only through unic_counter_add/_set/_read */
};

/** Add @p n to @p c. Only the counter's one writer calls this. */
static inline void unic_counter_add(struct unic_counter *c, uint64_t n)
{
	__atomic_store_n(&c->value, __atomic_load_n(&c->value, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
}

/**
 * Set @p c to @p v: the writer restarting a counter at 0, or keeping a
 * value it measures (a CPU time). Only the counter's one writer calls this.
 */
static inline void unic_counter_set(struct unic_counter *c, uint64_t v)
{
	__atomic_store_n(&c->value, v, __ATOMIC_RELAXED);
}

/** The value of @p c, from any thread, while the writer may be adding. */
static inline uint64_t unic_counter_read(const struct unic_counter *c)
{
	return __atomic_load_n(&c->value, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* UNIC_COUNTER_H */
