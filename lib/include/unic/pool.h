/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Mempool of fixed-size objects in DMA memory, with per-thread caches, and
 * the packet pool built on it.
 *
 * Objects live in zones from a struct unic_mem; in PA mode no object crosses
 * a hugepage boundary. Free objects sit in an MP/MC ring; each thread (by its
 * unic_thread_index()) has a cache in front of the ring: gets and puts hit the
 * cache, which refills from or flushes to the ring in blocks.
 *
 * Bulk get is all-or-nothing: either n objects or -ENOENT, counted in
 * unic_pool_stats.get_fail. Put never fails.
 *
 * With -Dpool_debug=true every object carries a cookie before it (its state,
 * free or in use, and its pool) and one after it, and a checksum of its
 * contents is taken when it is freed: a double free or a put to the wrong pool
 * is refused and counted (debug_double_free, debug_foreign); a write to a free
 * object (use after free), or past an object's end, is counted
 * (debug_corrupt) and logged when the object is next taken or returned.
 *
 * A cache belongs to one thread; objects in a thread's cache count as
 * available, not in use. Call unic_pool_cache_flush() from a thread that is
 * done with a pool to return its cache to the ring.
 */
#ifndef UNIC_POOL_H
#define UNIC_POOL_H

#include <errno.h>
#include <string.h>
#include <unic/common.h>
#include <unic/ring.h>
#include <unic/thread.h>
#include <unic/pkt.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

struct unic_mem;

#define UNIC_POOL_NAMESIZE 32  /**< bytes of a pool name, NUL included */
#define UNIC_POOL_CACHE_MAX 512 /**< largest per-thread cache (cache_size) */

struct unic_pool;

/** Options for unic_pool_create(). Zero-initialise, then set. */
struct unic_pool_conf {
	size_t sz;             /**< sizeof(struct unic_pool_conf) */
	const char *name;      /**< for logs (copied, truncated to UNIC_POOL_NAMESIZE - 1) */
	struct unic_mem *mem;  /**< where objects live (required) */
	uint32_t count;        /**< objects, >= 1 */
	uint32_t obj_size;     /**< bytes per object, >= 1 */
	uint32_t cache_size;   /**< per-thread cache, 0..512 and <= count / 1.5 */
	int numa_node;         /**< -1 is taken as 0 */
	/** Called once per object at creation, with its IOVA. */
	void (*obj_init)(void *arg, struct unic_pool *pool, void *obj,
			 uint64_t iova, uint32_t idx);
	void *obj_init_arg;    /**< first argument of obj_init */
	/** Objects in shareable memory (unic_mem_alloc_shareable(): a memfd
	 *  another process can map), for a port that lends the pool's buffers
	 *  to a peer (memif zero-copy=yes); that peer can then read and write
	 *  every object of the pool. */
	bool shareable;
};

/** Options for unic_pktpool_create(). */
struct unic_pktpool_conf {
	size_t sz;             /**< sizeof(struct unic_pktpool_conf) */
	const char *name;      /**< for logs (copied) */
	struct unic_mem *mem;  /**< where packets live (required) */
	uint32_t count;        /**< packets, >= 1 */
	uint32_t cache_size;   /**< per-thread cache, 0..512 and <= count / 1.5 */
	int numa_node;         /**< -1 is taken as 0 */
	uint16_t headroom;     /**< 0: 128; else >= 128 */
	uint16_t dataroom;     /**< 0: 2048 */
	bool shareable;        /**< as unic_pool_conf.shareable */
};

/** A pool's counters (unic_pool_stats_get()). */
struct unic_pool_stats {
	uint64_t get_fail;          /**< bulk gets refused: pool exhausted */
	uint64_t debug_double_free; /**< pool_debug: puts of a free object */
	uint64_t debug_corrupt;     /**< pool_debug: cookie or poison damaged */
	uint64_t debug_foreign;     /**< pool_debug: put of an object of another pool */
};

/* One thread's cache. Only len is written after creation, and only by the
 * owning thread, so the page of an unused cache is never touched. Other
 * threads read len (unic_pool_avail_count and friends, from a statistics
 * thread), so the owner stores it with a relaxed atomic store (a plain
 * move on x86): a plain store racing with those reads is undefined. */
struct unic_pool_cache {
	uint32_t len;          /**< objects held; atomic, written by the owner only */
	uint32_t pad[15];
	void *objs[UNIC_POOL_CACHE_MAX * 3];
} UNIC_CACHE_ALIGNED;

/**
 * A pool of fixed-size objects in DMA memory. Its fields are visible for
 * the inline get and put below; read them, never write them.
 */
struct unic_pool {
	char name[UNIC_POOL_NAMESIZE];   /**< as configured */
	struct unic_ring *ring;          /**< free objects */
	struct unic_pool_cache *caches;  /**< [UNIC_MAX_THREADS] */
	uint32_t count;                  /**< objects in the pool */
	uint32_t obj_size;               /**< bytes an object may use */
	uint32_t elt_size;               /**< stride between objects */
	uint32_t cache_size;             /**< level a cache keeps after a flush */
	uint32_t cache_flush_thresh;     /**< flush down to cache_size above this */
	uint16_t pkt_headroom;           /**< packet pools */
	uint16_t pkt_dataroom;           /**< packet pools: data room after the headroom */
	uint32_t is_pktpool;             /**< 1: made by unic_pktpool_create() */
	uint64_t get_fail;               /**< atomic, slow path only */
	/* Remaining fields are private to lib/pool. */
	struct unic_mem *mem;            /**< lib/pool's own */
	struct unic_pool_priv *priv;     /**< lib/pool's own */
};

/**
 * Create a pool. @return the pool, or NULL with errno: EINVAL (the log says
 * which field and the accepted range), ENOMEM (DMA or heap memory).
 */
struct unic_pool *unic_pool_create(const struct unic_pool_conf *cfg);

/**
 * Create a packet pool: objects are struct unic_pkt + headroom + data room,
 * each with its pool, buf_iova and buf_len set.
 */
struct unic_pool *unic_pktpool_create(const struct unic_pktpool_conf *cfg);

/**
 * Free a pool; NULL is accepted. Objects still in use are reported (count)
 * and their memory goes with the pool.
 */
void unic_pool_destroy(struct unic_pool *pool);

/** Objects available: in the ring and in every thread's cache. */
uint32_t unic_pool_avail_count(const struct unic_pool *pool);
/** Objects taken and not returned (count - available). */
uint32_t unic_pool_in_use_count(const struct unic_pool *pool);
/** Objects held in per-thread caches, all threads. */
uint32_t unic_pool_cache_count(const struct unic_pool *pool);
/** Return this thread's cache to the ring. */
void unic_pool_cache_flush(struct unic_pool *pool);
/**
 * The NUMA node the pool's objects lie on: the node its memory came from
 * (a conf's -1 is taken as 0, so a pool made with -1 answers 0).
 */
int unic_pool_numa_node(const struct unic_pool *pool);

/** Read the pool's counters (any thread). */
void unic_pool_stats_get(const struct unic_pool *pool, struct unic_pool_stats *st);

/** IOVA of an object (slow: looks up its segment). @return 0 or -ENOENT. */
int unic_pool_obj_iova(const struct unic_pool *pool, const void *obj, uint64_t *iova);

/**
 * Call @p fn for every live pool, in creation order, until it returns
 * non-zero (a statistics or telemetry thread enumerating pools). The
 * callback runs under the pools' registry lock: a pool it is handed is not
 * freed until it returns (unic_pool_destroy() waits), so it may read the
 * pool's counts; it must not create or destroy a pool. The fast path never
 * takes that lock.
 * @return 0, fn's first non-zero return, or -EINVAL (fn NULL).
 */
int unic_pool_foreach(int (*fn)(struct unic_pool *pool, void *arg), void *arg);

/** Whether this build checks cookies (-Dpool_debug=true). */
bool unic_pool_debug_enabled(void);

/* ---- fast path ------------------------------------------------------- */

/* unic__name: internal helpers of the inline fast path (see ring.h), not
 * API. */

/* Slow paths and debug hooks, in pool.c. */
int unic_pool_get_slow(struct unic_pool *pool, void **objs, uint32_t n);
void unic_pool_put_slow(struct unic_pool *pool, void *const *objs, uint32_t n);
int unic_pool_debug_get(struct unic_pool *pool, void **objs, uint32_t n);
void unic_pool_debug_put(struct unic_pool *pool, void *const *objs, uint32_t n);

/*
 * memcpy vectorises long runs; a call costs too much for short ones, and a
 * loop would be vectorised behind run-time alias checks that cost more than
 * the copy (bulk 1: about 12% of a get+put, docs/performance.md). Short runs
 * are straight-line copies instead.
 */
#if defined(__GNUC__) && !defined(__clang__)
/* GCC 12 at -O3, inlining a bulk call on a small array of the caller's,
 * warns about the branches that n rules out (-Warray-bounds false
 * positives): keep them from failing -Werror builds of applications. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
static UNIC_ALWAYS_INLINE void unic__pool_copy(void **dst, void *const *src, uint32_t n)
{
	uint32_t i = 0;

	if (n >= 8) {
		memcpy(dst, src, n * sizeof(void *));
		return;
	}
	if (n & 4) {
		dst[0] = src[0];
		dst[1] = src[1];
		dst[2] = src[2];
		dst[3] = src[3];
		i = 4;
	}
	if (n & 2) {
		dst[i] = src[i];
		dst[i + 1] = src[i + 1];
		i += 2;
	}
	if (n & 1)
		dst[i] = src[i];
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Get through this thread's cache, or the ring directly. */
static UNIC_ALWAYS_INLINE int
unic__pool_get_cached(struct unic_pool *pool, void **objs, uint32_t n)
{
	uint32_t t = unic_thread_index();
	struct unic_pool_cache *c;
	uint32_t len;

	if (UNIC_UNLIKELY(pool->cache_size == 0 || t >= UNIC_MAX_THREADS ||
			  n > pool->cache_size))
		return unic_pool_get_slow(pool, objs, n);

	c = &pool->caches[t];
	len = c->len;
	if (UNIC_UNLIKELY(len < n)) {
		/* Refill to size + n so the next gets hit the cache too; settle
		 * for just what is missing when the ring runs low. */
		uint32_t want = pool->cache_size + n - len;

		if (unic_ring_mc_dequeue_bulk(pool->ring, &c->objs[len], want) == 0) {
			want = n - len;
			if (unic_ring_mc_dequeue_bulk(pool->ring, &c->objs[len], want) == 0)
				return unic_pool_get_slow(pool, objs, n); /* counts it */
		}
		len += want;
	}
	/* Hand out the most recently freed objects (the top n): they are warm. */
	len -= n;
	unic__pool_copy(objs, &c->objs[len], n);
	unic_store_relaxed(&c->len, len); /* see struct unic_pool_cache */
	return 0;
}

static UNIC_ALWAYS_INLINE void
unic__pool_put_cached(struct unic_pool *pool, void *const *objs, uint32_t n)
{
	uint32_t t = unic_thread_index();
	struct unic_pool_cache *c;
	uint32_t len;

	if (UNIC_UNLIKELY(pool->cache_size == 0 || t >= UNIC_MAX_THREADS ||
			  n > pool->cache_size)) {
		unic_pool_put_slow(pool, objs, n);
		return;
	}
	c = &pool->caches[t];
	len = c->len;
	unic__pool_copy(&c->objs[len], objs, n);
	len += n;
	if (UNIC_UNLIKELY(len >= pool->cache_flush_thresh)) {
		/* The ring can hold every object of the pool: this never fails. */
		unic_ring_mp_enqueue_bulk(pool->ring, &c->objs[pool->cache_size],
					  len - pool->cache_size);
		len = pool->cache_size;
	}
	unic_store_relaxed(&c->len, len); /* see struct unic_pool_cache */
}

/**
 * Take @p n objects, all or none.
 * @return 0, or -ENOENT when fewer than n are available (counted).
 */
static inline int unic_pool_get_bulk(struct unic_pool *pool, void **objs, uint32_t n)
{
#if UNIC_POOL_DEBUG
	return unic_pool_debug_get(pool, objs, n);
#else
	return unic__pool_get_cached(pool, objs, n);
#endif
}

/** Return @p n objects taken from this pool. */
static inline void unic_pool_put_bulk(struct unic_pool *pool, void *const *objs, uint32_t n)
{
#if UNIC_POOL_DEBUG
	unic_pool_debug_put(pool, objs, n);
#else
	unic__pool_put_cached(pool, objs, n);
#endif
}

/** Take one object. @return 0, or -ENOENT when the pool is empty (counted). */
static inline int unic_pool_get(struct unic_pool *pool, void **obj)
{
	return unic_pool_get_bulk(pool, obj, 1);
}

/** Return one object taken from this pool. */
static inline void unic_pool_put(struct unic_pool *pool, void *obj)
{
	unic_pool_put_bulk(pool, &obj, 1);
}

/* ---- packets ---------------------------------------------------------- */

/** One packet, reset (data at the headroom, length 0), or NULL. */
static inline struct unic_pkt *unic_pkt_alloc(struct unic_pool *pool)
{
	void *o;

	if (UNIC_UNLIKELY(unic_pool_get_bulk(pool, &o, 1) != 0))
		return NULL;
	unic_pkt_reset((struct unic_pkt *)o, pool->pkt_headroom);
	return (struct unic_pkt *)o;
}

/** @p n reset packets, all or none. @return 0 or -ENOENT. */
static inline int unic_pkt_alloc_bulk(struct unic_pool *pool, struct unic_pkt **pkts,
				      uint32_t n)
{
	uint32_t i;

	if (UNIC_UNLIKELY(unic_pool_get_bulk(pool, (void **)pkts, n) != 0))
		return -ENOENT;
	for (i = 0; i < n; i++)
		unic_pkt_reset(pkts[i], pool->pkt_headroom);
	return 0;
}

/** Free a packet and every segment chained to it; NULL is accepted. */
static inline void unic_pkt_free(struct unic_pkt *p)
{
	while (p != NULL) {
		struct unic_pkt *next = p->next;

		unic_pool_put(p->pool, p);
		p = next;
	}
}

/**
 * Free @p n packets. Runs of single-segment packets from one pool go back
 * in one bulk put.
 */
static inline void unic_pkt_free_bulk(struct unic_pkt *const *pkts, uint32_t n)
{
	uint32_t i, start = 0;

	for (i = 0; i < n; i++) {
		struct unic_pkt *p = pkts[i];

		if (UNIC_LIKELY(p->next == NULL && p->pool == pkts[start]->pool))
			continue;
		unic_pool_put_bulk(pkts[start]->pool, (void *const *)&pkts[start], i - start);
		if (p->next != NULL) {
			unic_pkt_free(p);
			start = i + 1;
		} else {
			start = i;
		}
	}
	if (start < n)
		unic_pool_put_bulk(pkts[start]->pool, (void *const *)&pkts[start], n - start);
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_POOL_H */
