/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Bounded lock-free ring of pointers.
 *
 * Size is a power of two and every slot is usable (capacity == size).
 * Indices are free-running 32-bit counters, masked on access; the count of
 * used slots is prod.tail - cons.tail in unsigned arithmetic, which stays
 * right across wrap-around.
 *
 * Each side has a head (reserved up to) and a tail (published up to), on
 * its own cache line. A side also keeps a cached copy of the other side's
 * tail and reads the real one only when the cache says there is not enough
 * room (or not enough entries): the other side's line is then touched once
 * per refill, not once per call (libxdp's cached_cons idea).
 *
 * Variants: single-producer/single-consumer (no atomics but acquire/release
 * on the tails) and multi-producer/multi-consumer (a CAS on the head, then
 * publishing the tail in reservation order). unic_ring_enqueue_bulk() and
 * friends pick the variant from the flags given at creation; the explicit
 * unic_ring_sp_* / _mp_* / _sc_* / _mc_* forms skip that test.
 *
 * Bulk calls move all n or nothing; burst calls move as many as fit.
 *
 * Memory ordering (pairs):
 *  (P1) the producer's release store of prod.tail pairs with the consumer's
 *       acquire load of prod.tail: slot contents written before the store are
 *       visible to a consumer that sees the new tail.
 *  (C1) the consumer's release store of cons.tail pairs with the producer's
 *       acquire load of cons.tail: a slot is read before a producer that sees
 *       the new cons.tail may overwrite it.
 *  (M1) in MP/MC, a thread waits (acquire) for the previous reserver to
 *       publish its tail before publishing its own, so the tail only moves
 *       over slots that are complete, and the chain of release/acquire
 *       carries every earlier reserver's slots to the other side.
 *  (M2) in MP/MC the cached copy of the other side's tail is shared by
 *       the side's threads: one thread may reserve slots on the strength
 *       of a tail another thread read. So the cache is stored with release
 *       after the acquire load of the tail, and loaded with acquire: what
 *       (P1)/(C1) made visible to the thread that read the tail is visible
 *       to every thread that trusts its copy. (A relaxed cache let a
 *       consumer read slots whose contents it had no ordering with, and a
 *       producer overwrite slots a consumer might still be reading: a race
 *       in C11, and stale reads on CPUs weaker than x86.) On x86 these are
 *       plain loads and stores, as relaxed ones are.
 *  (M3) in MP/MC a call for 0 elements returns before it reserves: an
 *       empty reservation would wait in (M1) for a tail that others may
 *       already have moved past.
 */
#ifndef UNIC_RING_H
#define UNIC_RING_H

#include <errno.h>
#include <string.h>
#include <unic/common.h>
#include <unic/barrier.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

/** Creation flags. */
#define UNIC_RING_F_SP_ENQ 0x1u /**< one producer thread at a time */
#define UNIC_RING_F_SC_DEQ 0x2u /**< one consumer thread at a time */

#define UNIC_RING_NAMESIZE 32       /**< bytes of a ring name, NUL included */
#define UNIC_RING_SZ_MAX (1u << 28) /**< most slots of a ring */

/** One side of the ring. Only this side writes head, tail and the cache. */
struct unic_ring_side {
	uint32_t head;        /**< reserved up to (exclusive) */
	uint32_t tail;        /**< published up to (exclusive) */
	uint32_t other_cache; /**< last seen tail of the other side */
	uint32_t single;      /**< 1: SP or SC */
} UNIC_CACHE_ALIGNED;

/**
 * A ring of pointers. Its fields are visible for the inline enqueue and
 * dequeue below; read them, never write them.
 */
struct unic_ring {
	char name[UNIC_RING_NAMESIZE]; /**< as created */
	uint32_t size;     /**< power of two */
	uint32_t mask;     /**< size - 1 */
	uint32_t capacity; /**< == size */
	uint32_t flags;    /**< UNIC_RING_F_* */
	uint32_t allocated; /**< 1: unic_ring_destroy() releases the memory */
	struct unic_ring_side prod; /**< the producers' side, on its own cache line */
	struct unic_ring_side cons; /**< the consumers' side, on its own cache line */
	void *slots[] UNIC_CACHE_ALIGNED; /**< size entries */
};

static_assert(offsetof(struct unic_ring, prod) % UNIC_CACHE_LINE_SIZE == 0,
	      "producer state must start its own cache line");
static_assert(offsetof(struct unic_ring, cons) - offsetof(struct unic_ring, prod) >=
		      UNIC_CACHE_LINE_SIZE,
	      "producer and consumer state must not share a cache line");

/** Bytes a ring of @p count slots needs (count: power of two), or 0. */
size_t unic_ring_memsize(uint32_t count);

/**
 * Initialise a ring in memory the caller owns (unic_ring_memsize() bytes,
 * cache-line aligned).
 * @return 0, or -EINVAL if count is not a power of two in 1..2^28 or flags
 *         has unknown bits.
 */
int unic_ring_init(struct unic_ring *r, const char *name, uint32_t count,
		   uint32_t flags);

/**
 * Allocate and initialise a ring on the heap (control-path memory).
 * @return the ring, or NULL with errno EINVAL (bad count/flags) or ENOMEM.
 */
struct unic_ring *unic_ring_create(const char *name, uint32_t count,
				   uint32_t flags);

/** Free a ring from unic_ring_create(); NULL is accepted. */
void unic_ring_destroy(struct unic_ring *r);

/** Drop every entry. Only when no thread is using the ring. */
void unic_ring_reset(struct unic_ring *r);

/* ---- internals of the fast path ------------------------------------- */

/* unic__name: inline because the public fast path below is, and so in this
 * header, but not API: no program calls them and they may change in any
 * release. The double underscore after the library's prefix (not before
 * it, as in DPDK's __rte_ring_*: C reserves identifiers that start with
 * two underscores for the compiler and libc) marks them internal while
 * keeping every name this header defines inside unic's own namespace. */

static UNIC_ALWAYS_INLINE void
unic__ring_copy_in(struct unic_ring *r, uint32_t head, void *const *objs, uint32_t n)
{
	uint32_t idx = head & r->mask;
	uint32_t i;

	if (UNIC_LIKELY(idx + n <= r->size)) {
		/* memcpy vectorises long runs; a call is too dear for short ones. */
		if (n >= 8)
			memcpy(&r->slots[idx], objs, n * sizeof(void *));
		else
			for (i = 0; i < n; i++)
				r->slots[idx + i] = objs[i];
	} else {
		uint32_t first = r->size - idx;
		for (i = 0; i < first; i++)
			r->slots[idx + i] = objs[i];
		for (; i < n; i++)
			r->slots[i - first] = objs[i];
	}
}

static UNIC_ALWAYS_INLINE void
unic__ring_copy_out(const struct unic_ring *r, uint32_t head, void **objs, uint32_t n)
{
	uint32_t idx = head & r->mask;
	uint32_t i;

	if (UNIC_LIKELY(idx + n <= r->size)) {
		if (n >= 8)
			memcpy(objs, &r->slots[idx], n * sizeof(void *));
		else
			for (i = 0; i < n; i++)
				objs[i] = r->slots[idx + i];
	} else {
		uint32_t first = r->size - idx;
		for (i = 0; i < first; i++)
			objs[i] = r->slots[idx + i];
		for (; i < n; i++)
			objs[i] = r->slots[i - first];
	}
}

/*
 * Room for a producer whose head is @p head, using the cached consumer tail
 * first. The cache may be stale (smaller than the real tail), which only
 * understates the room; the difference is taken as signed for that reason.
 * Acquire on cons.tail: pairs with (C1); on the cache: (M2).
 */
static UNIC_ALWAYS_INLINE uint32_t
unic__ring_prod_room(struct unic_ring *r, uint32_t head, uint32_t want)
{
	int32_t room = (int32_t)(r->capacity + unic_load_acquire(&r->prod.other_cache) - head);

	if (room < (int32_t)want) {
		uint32_t ct = unic_load_acquire(&r->cons.tail); /* pairs with (C1) */
		unic_store_release(&r->prod.other_cache, ct); /* (M2) */
		room = (int32_t)(r->capacity + ct - head);
	}
	return room > 0 ? (uint32_t)room : 0;
}

/* Entries for a consumer whose head is @p head. Acquire on prod.tail pairs
 * with (P1); on the cache: (M2). */
static UNIC_ALWAYS_INLINE uint32_t
unic__ring_cons_avail(struct unic_ring *r, uint32_t head, uint32_t want)
{
	int32_t avail = (int32_t)(unic_load_acquire(&r->cons.other_cache) - head);

	if (avail < (int32_t)want) {
		uint32_t pt = unic_load_acquire(&r->prod.tail); /* pairs with (P1) */
		unic_store_release(&r->cons.other_cache, pt); /* (M2) */
		avail = (int32_t)(pt - head);
	}
	return avail > 0 ? (uint32_t)avail : 0;
}

static UNIC_ALWAYS_INLINE uint32_t
unic__ring_sp_enqueue(struct unic_ring *r, void *const *objs, uint32_t n, bool bulk)
{
	uint32_t head = r->prod.head;
	uint32_t room = unic__ring_prod_room(r, head, n);

	if (room < n) {
		if (bulk || room == 0)
			return 0;
		n = room;
	}
	unic__ring_copy_in(r, head, objs, n);
	r->prod.head = head + n;
	/* (P1): slots above are visible before the new tail. */
	unic_store_release(&r->prod.tail, head + n);
	return n;
}

static UNIC_ALWAYS_INLINE uint32_t
unic__ring_mp_enqueue(struct unic_ring *r, void *const *objs, uint32_t n, bool bulk)
{
	uint32_t head = unic_load_relaxed(&r->prod.head);
	uint32_t want, room;

	/* (M3): a reservation of nothing leaves head where it is, so the
	 * next reserver gets the same head; that one may publish and move
	 * the tail past head while this one waits for tail == head, forever. */
	if (UNIC_UNLIKELY(n == 0))
		return 0;
	do {
		want = n;
		room = unic__ring_prod_room(r, head, want);
		if (room < want) {
			if (bulk || room == 0)
				return 0;
			want = room;
		}
		/* Reserve [head, head + want); a failed CAS reloads head. The
		 * slots are protected by (C1) through unic__ring_prod_room's acquire. */
	} while (!__atomic_compare_exchange_n(&r->prod.head, &head, head + want,
					      true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));

	unic__ring_copy_in(r, head, objs, want);

	/* (M1): earlier reservers publish first. */
	while (unic_load_acquire(&r->prod.tail) != head)
		unic_pause();
	/* (P1) */
	unic_store_release(&r->prod.tail, head + want);
	return want;
}

static UNIC_ALWAYS_INLINE uint32_t
unic__ring_sc_dequeue(struct unic_ring *r, void **objs, uint32_t n, bool bulk)
{
	uint32_t head = r->cons.head;
	uint32_t avail = unic__ring_cons_avail(r, head, n);

	if (avail < n) {
		if (bulk || avail == 0)
			return 0;
		n = avail;
	}
	unic__ring_copy_out(r, head, objs, n);
	r->cons.head = head + n;
	/* (C1): slots above were read before the producer may reuse them. */
	unic_store_release(&r->cons.tail, head + n);
	return n;
}

static UNIC_ALWAYS_INLINE uint32_t
unic__ring_mc_dequeue(struct unic_ring *r, void **objs, uint32_t n, bool bulk)
{
	uint32_t head = unic_load_relaxed(&r->cons.head);
	uint32_t want, avail;

	if (UNIC_UNLIKELY(n == 0))
		return 0; /* (M3) */
	do {
		want = n;
		avail = unic__ring_cons_avail(r, head, want);
		if (avail < want) {
			if (bulk || avail == 0)
				return 0;
			want = avail;
		}
	} while (!__atomic_compare_exchange_n(&r->cons.head, &head, head + want,
					      true, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));

	unic__ring_copy_out(r, head, objs, want);

	/* (M1) */
	while (unic_load_acquire(&r->cons.tail) != head)
		unic_pause();
	/* (C1) */
	unic_store_release(&r->cons.tail, head + want);
	return want;
}

/* ---- public fast path -------------------------------------------------- */

/**
 * Enqueue all @p n pointers or none.
 * @return n, or 0 if the ring has fewer than n free slots.
 */
static inline uint32_t
unic_ring_enqueue_bulk(struct unic_ring *r, void *const *objs, uint32_t n)
{
	return r->prod.single ? unic__ring_sp_enqueue(r, objs, n, true)
			      : unic__ring_mp_enqueue(r, objs, n, true);
}

/** Enqueue as many of @p n pointers as fit. @return how many (0..n). */
static inline uint32_t
unic_ring_enqueue_burst(struct unic_ring *r, void *const *objs, uint32_t n)
{
	return r->prod.single ? unic__ring_sp_enqueue(r, objs, n, false)
			      : unic__ring_mp_enqueue(r, objs, n, false);
}

/** Dequeue exactly @p n pointers or none. @return n or 0. */
static inline uint32_t
unic_ring_dequeue_bulk(struct unic_ring *r, void **objs, uint32_t n)
{
	return r->cons.single ? unic__ring_sc_dequeue(r, objs, n, true)
			      : unic__ring_mc_dequeue(r, objs, n, true);
}

/** Dequeue up to @p n pointers. @return how many (0..n). */
static inline uint32_t
unic_ring_dequeue_burst(struct unic_ring *r, void **objs, uint32_t n)
{
	return r->cons.single ? unic__ring_sc_dequeue(r, objs, n, false)
			      : unic__ring_mc_dequeue(r, objs, n, false);
}

/** @return 0, or -ENOBUFS when the ring is full. */
static inline int unic_ring_enqueue(struct unic_ring *r, void *obj)
{
	return unic_ring_enqueue_bulk(r, &obj, 1) ? 0 : -ENOBUFS;
}

/** @return 0, or -ENOENT when the ring is empty. */
static inline int unic_ring_dequeue(struct unic_ring *r, void **obj)
{
	return unic_ring_dequeue_bulk(r, obj, 1) ? 0 : -ENOENT;
}

/**
 * @{
 * Explicit variants of the four calls above: the caller promises the
 * threading model, whatever the ring's flags say. sp/mp: one producer
 * thread at a time, or several; sc/mc: one consumer thread at a time, or
 * several. _bulk: all n or none (@return n or 0); _burst: as many as there
 * are or fit (@return how many, 0..n).
 */
static inline uint32_t
unic_ring_sp_enqueue_bulk(struct unic_ring *r, void *const *objs, uint32_t n)
{ return unic__ring_sp_enqueue(r, objs, n, true); }
static inline uint32_t
unic_ring_mp_enqueue_bulk(struct unic_ring *r, void *const *objs, uint32_t n)
{ return unic__ring_mp_enqueue(r, objs, n, true); }
static inline uint32_t
unic_ring_sp_enqueue_burst(struct unic_ring *r, void *const *objs, uint32_t n)
{ return unic__ring_sp_enqueue(r, objs, n, false); }
static inline uint32_t
unic_ring_mp_enqueue_burst(struct unic_ring *r, void *const *objs, uint32_t n)
{ return unic__ring_mp_enqueue(r, objs, n, false); }
static inline uint32_t
unic_ring_sc_dequeue_bulk(struct unic_ring *r, void **objs, uint32_t n)
{ return unic__ring_sc_dequeue(r, objs, n, true); }
static inline uint32_t
unic_ring_mc_dequeue_bulk(struct unic_ring *r, void **objs, uint32_t n)
{ return unic__ring_mc_dequeue(r, objs, n, true); }
static inline uint32_t
unic_ring_sc_dequeue_burst(struct unic_ring *r, void **objs, uint32_t n)
{ return unic__ring_sc_dequeue(r, objs, n, false); }
static inline uint32_t
unic_ring_mc_dequeue_burst(struct unic_ring *r, void **objs, uint32_t n)
{ return unic__ring_mc_dequeue(r, objs, n, false); }

/** @} */

/**
 * Entries in the ring. Exact when no other thread is moving it; a snapshot
 * otherwise (never above capacity).
 */
static inline uint32_t unic_ring_count(const struct unic_ring *r)
{
	uint32_t ct = unic_load_acquire(&r->cons.tail);
	uint32_t pt = unic_load_acquire(&r->prod.tail);
	uint32_t c = pt - ct;

	return c > r->capacity ? r->capacity : c;
}

/** Free slots (the capacity minus unic_ring_count()). */
static inline uint32_t unic_ring_free_count(const struct unic_ring *r)
{
	return r->capacity - unic_ring_count(r);
}

/** How many entries the ring holds at most. */
static inline uint32_t unic_ring_capacity(const struct unic_ring *r)
{
	return r->capacity;
}

/** Is the ring empty (as unic_ring_count())? */
static inline bool unic_ring_empty(const struct unic_ring *r)
{
	return unic_ring_count(r) == 0;
}

/** Is the ring full (as unic_ring_count())? */
static inline bool unic_ring_full(const struct unic_ring *r)
{
	return unic_ring_count(r) == r->capacity;
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_RING_H */
