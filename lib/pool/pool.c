/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mempool: objects in DMA zones, free ones in an MP/MC ring, per-thread
 * caches in front (see pool.h for the fast path).
 *
 * Object layout, one element per object, elements cache-line aligned:
 *
 *   normal:  [object, padded to a cache line]
 *   debug:   [header: cookie, pool, checksum (64 B)][object][trailer cookie]
 *
 * Objects are placed in chunks no larger than unic_mem_max_contig(), so in
 * PA mode no object crosses a hugepage (and its IOVA range is contiguous).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/mman.h>

#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>

#include "unic_conf.h"
#include "unic_pool_span.h"

#define POOL_COOKIE_FREE  0xf7ee0b1ec7f7ee00ull
#define POOL_COOKIE_USED  0x05ed0b1ec7005ed0ull
#define POOL_COOKIE_TRAIL 0x7a11c0071e7a11c0ull
#define POOL_DEBUG_HDR    64u

struct pool_debug_hdr {
	uint64_t cookie;
	struct unic_pool *pool;
	uint64_t sum;      /* checksum of the object when it was freed */
	uint32_t idx;
};

struct unic_pool_priv {
	struct unic_dma *chunks;
	unsigned nb_chunks;
	size_t caches_len;      /* bytes mmapped for the caches */
	uint64_t debug_double_free; /* atomic */
	uint64_t debug_corrupt;     /* atomic */
	uint64_t debug_foreign;     /* atomic */
	uint64_t put_overflow;      /* atomic: puts the ring could not take */
	struct unic_pool *reg_next; /* pool_registry */
};

/*
 * Every live pool, for unic_pool_foreach() (a statistics or telemetry
 * thread). A pool is linked once it is complete and unlinked before it is
 * freed, both under the lock, and foreach calls its callback under the
 * lock: a pool it hands out is not freed meanwhile. Only create, destroy
 * and foreach take it; the fast path never does.
 */
static pthread_mutex_t pool_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct unic_pool *pool_registry;

static void pool_registry_add(struct unic_pool *pool)
{
	struct unic_pool **pp;

	pthread_mutex_lock(&pool_registry_lock);
	for (pp = &pool_registry; *pp; pp = &(*pp)->priv->reg_next)
		;
	*pp = pool;
	pthread_mutex_unlock(&pool_registry_lock);
}

static void pool_registry_del(struct unic_pool *pool)
{
	pthread_mutex_lock(&pool_registry_lock);
	for (struct unic_pool **pp = &pool_registry; *pp; pp = &(*pp)->priv->reg_next) {
		if (*pp == pool) {
			*pp = pool->priv->reg_next;
			break;
		}
	}
	pthread_mutex_unlock(&pool_registry_lock);
}

int unic_pool_foreach(int (*fn)(struct unic_pool *pool, void *arg), void *arg)
{
	int rc = 0;

	if (fn == NULL)
		return -EINVAL;
	pthread_mutex_lock(&pool_registry_lock);
	for (struct unic_pool *p = pool_registry; p && rc == 0; p = p->priv->reg_next)
		rc = fn(p, arg);
	pthread_mutex_unlock(&pool_registry_lock);
	return rc;
}

bool unic_pool_debug_enabled(void)
{
	return UNIC_POOL_DEBUG;
}

static uint32_t pool_elt_size(uint32_t obj_size)
{
	if (UNIC_POOL_DEBUG)
		return UNIC_ALIGN_CEIL(POOL_DEBUG_HDR + UNIC_ALIGN_CEIL(obj_size, 8u) + 8u,
				       (uint32_t)UNIC_CACHE_LINE_SIZE);
	return UNIC_ALIGN_CEIL(obj_size, (uint32_t)UNIC_CACHE_LINE_SIZE);
}

/* Offset of the object inside its element. */
static uint32_t pool_obj_off(void)
{
	return UNIC_POOL_DEBUG ? POOL_DEBUG_HDR : 0;
}

static struct pool_debug_hdr *pool_hdr(void *obj)
{
	return (struct pool_debug_hdr *)((uint8_t *)obj - POOL_DEBUG_HDR);
}

static uint64_t *pool_trailer(const struct unic_pool *pool, void *obj)
{
	return (uint64_t *)((uint8_t *)obj + UNIC_ALIGN_CEIL(pool->obj_size, 8u));
}

/* FNV-1a over 64-bit words: cheap, and any write changes it. */
static uint64_t pool_obj_sum(const struct unic_pool *pool, const void *obj)
{
	const uint8_t *p = obj;
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t i;

	for (i = 0; i < pool->obj_size; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint32_t unic_pool_cache_count(const struct unic_pool *pool)
{
	uint32_t i, n = 0;

	if (pool->cache_size == 0)
		return 0;
	for (i = 0; i < UNIC_MAX_THREADS; i++)
		n += unic_load_relaxed(&pool->caches[i].len);
	return n;
}

uint32_t unic_pool_avail_count(const struct unic_pool *pool)
{
	uint32_t n = unic_ring_count(pool->ring) + unic_pool_cache_count(pool);

	return n > pool->count ? pool->count : n;
}

uint32_t unic_pool_in_use_count(const struct unic_pool *pool)
{
	return pool->count - unic_pool_avail_count(pool);
}

void unic_pool_cache_flush(struct unic_pool *pool)
{
	uint32_t t = unic_thread_index();
	struct unic_pool_cache *c;

	if (pool->cache_size == 0 || t >= UNIC_MAX_THREADS)
		return;
	c = &pool->caches[t];
	if (c->len)
		unic_ring_mp_enqueue_bulk(pool->ring, c->objs, c->len);
	unic_store_relaxed(&c->len, 0); /* read by other threads: pool.h */
}

int unic_pool_numa_node(const struct unic_pool *pool)
{
	/* Every chunk comes from the one node the conf asked for. */
	return pool->priv->chunks[0].seg->numa_node;
}

void unic_pool_stats_get(const struct unic_pool *pool, struct unic_pool_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->get_fail = unic_load_relaxed(&pool->get_fail);
	st->debug_double_free = unic_load_relaxed(&pool->priv->debug_double_free);
	st->debug_corrupt = unic_load_relaxed(&pool->priv->debug_corrupt);
	st->debug_foreign = unic_load_relaxed(&pool->priv->debug_foreign);
}

int unic_pool_obj_iova(const struct unic_pool *pool, const void *obj, uint64_t *iova)
{
	return unic_mem_va2iova(pool->mem, obj, iova);
}

int unic_pool_get_slow(struct unic_pool *pool, void **objs, uint32_t n)
{
	uint32_t t = unic_thread_index();
	struct unic_pool_cache *c = NULL;
	uint32_t from_cache = 0, i;

	if (UNIC_LIKELY(unic_ring_mc_dequeue_bulk(pool->ring, objs, n) == n))
		return 0;
	/* The ring alone is short: this thread's own cache may make up the
	 * difference (a large bulk get bypasses the cache otherwise). */
	if (pool->cache_size != 0 && t < UNIC_MAX_THREADS)
		c = &pool->caches[t];
	if (c != NULL && c->len != 0) {
		from_cache = UNIC_MIN(c->len, n);
		if (from_cache == n ||
		    unic_ring_mc_dequeue_bulk(pool->ring, objs + from_cache, n - from_cache) != 0) {
			for (i = 0; i < from_cache; i++)
				objs[i] = c->objs[c->len - 1 - i];
			unic_store_relaxed(&c->len, c->len - from_cache);
			return 0;
		}
	}
	__atomic_fetch_add(&pool->get_fail, 1, __ATOMIC_RELAXED);
	UNIC_LOG_DP(DEBUG, POOL, "pool %s: %u objects asked, %u available",
		    pool->name, n, unic_pool_avail_count(pool));
	return -ENOENT;
}

void unic_pool_put_slow(struct unic_pool *pool, void *const *objs, uint32_t n)
{
	/* The ring has room for every object of the pool; more means objects
	 * that are not ours, or were put twice. Count it: never lose silently. */
	if (UNIC_UNLIKELY(unic_ring_mp_enqueue_bulk(pool->ring, objs, n) != n))
		__atomic_fetch_add(&pool->priv->put_overflow, n, __ATOMIC_RELAXED);
}

/* ---- debug builds ------------------------------------------------------ */

int unic_pool_debug_get(struct unic_pool *pool, void **objs, uint32_t n)
{
	int rc = unic__pool_get_cached(pool, objs, n);
	uint32_t i;

	if (rc != 0)
		return rc;
	for (i = 0; i < n; i++) {
		struct pool_debug_hdr *h = pool_hdr(objs[i]);

		if (h->cookie != POOL_COOKIE_FREE || *pool_trailer(pool, objs[i]) != POOL_COOKIE_TRAIL ||
		    h->sum != pool_obj_sum(pool, objs[i])) {
			__atomic_fetch_add(&pool->priv->debug_corrupt, 1, __ATOMIC_RELAXED);
			UNIC_LOG(ERR, POOL,
				 "pool %s: object %u (%p) was changed while free (use after free) or its cookies are damaged: cookie %s, trailer %s, contents %s",
				 pool->name, h->idx, objs[i],
				 h->cookie == POOL_COOKIE_FREE ? "ok" : "bad",
				 *pool_trailer(pool, objs[i]) == POOL_COOKIE_TRAIL ? "ok" : "bad",
				 h->sum == pool_obj_sum(pool, objs[i]) ? "unchanged" : "written to");
		}
		h->cookie = POOL_COOKIE_USED;
	}
	return 0;
}

void unic_pool_debug_put(struct unic_pool *pool, void *const *objs, uint32_t n)
{
	void *ok[64];
	uint32_t i, nb_ok = 0;

	for (i = 0; i < n; i++) {
		void *obj = objs[i];
		struct pool_debug_hdr *h = pool_hdr(obj);

		if (h->pool != pool) {
			__atomic_fetch_add(&pool->priv->debug_foreign, 1, __ATOMIC_RELAXED);
			UNIC_LOG(ERR, POOL, "pool %s: put of %p, which is not an object of this pool: refused",
				 pool->name, obj);
			continue;
		}
		if (h->cookie == POOL_COOKIE_FREE) {
			__atomic_fetch_add(&pool->priv->debug_double_free, 1, __ATOMIC_RELAXED);
			UNIC_LOG(ERR, POOL, "pool %s: double free of object %u (%p): refused",
				 pool->name, h->idx, obj);
			continue;
		}
		if (h->cookie != POOL_COOKIE_USED || *pool_trailer(pool, obj) != POOL_COOKIE_TRAIL) {
			__atomic_fetch_add(&pool->priv->debug_corrupt, 1, __ATOMIC_RELAXED);
			UNIC_LOG(ERR, POOL, "pool %s: object %u (%p) has damaged cookies (written past its end?)",
				 pool->name, h->idx, obj);
			*pool_trailer(pool, obj) = POOL_COOKIE_TRAIL;
		}
		h->cookie = POOL_COOKIE_FREE;
		h->sum = pool_obj_sum(pool, obj);
		ok[nb_ok++] = obj;
		if (nb_ok == UNIC_ARRAY_SIZE(ok)) {
			unic__pool_put_cached(pool, ok, nb_ok);
			nb_ok = 0;
		}
	}
	if (nb_ok)
		unic__pool_put_cached(pool, ok, nb_ok);
}

/* ---- creation ----------------------------------------------------------- */

static int pool_check_config(const struct unic_pool_conf *cfg)
{
	const char *name = cfg->name ? cfg->name : "";

	if (cfg->mem == NULL) {
		UNIC_LOG(ERR, POOL, "pool %s: no memory context given (.mem)", name);
		return -EINVAL;
	}
	if (cfg->count == 0 || cfg->count > UNIC_RING_SZ_MAX) {
		UNIC_LOG(ERR, POOL, "pool %s: count %u, expected 1..%u", name, cfg->count, UNIC_RING_SZ_MAX);
		return -EINVAL;
	}
	if (cfg->obj_size == 0 || cfg->obj_size > (1u << 30)) {
		UNIC_LOG(ERR, POOL, "pool %s: object size %u, expected 1..%u", name, cfg->obj_size, 1u << 30);
		return -EINVAL;
	}
	if (cfg->cache_size > UNIC_POOL_CACHE_MAX ||
	    (uint64_t)cfg->cache_size * 3 > (uint64_t)cfg->count * 2) {
		UNIC_LOG(ERR, POOL,
			 "pool %s: cache size %u, expected 0..%u and at most count / 1.5 = %u (each thread's cache may hold up to 1.5 times its size)",
			 name, cfg->cache_size, UNIC_POOL_CACHE_MAX,
			 (uint32_t)UNIC_MIN((uint64_t)UNIC_POOL_CACHE_MAX, (uint64_t)cfg->count * 2 / 3));
		return -EINVAL;
	}
	return 0;
}

static void pool_release(struct unic_pool *pool)
{
	unsigned i;

	if (pool->priv) {
		for (i = 0; i < pool->priv->nb_chunks; i++)
			unic_mem_free(pool->mem, &pool->priv->chunks[i]);
		free(pool->priv->chunks);
		if (pool->caches)
			munmap(pool->caches, pool->priv->caches_len);
		free(pool->priv);
	}
	unic_ring_destroy(pool->ring);
	free(pool);
}

/* Allocate the chunks and lay the objects out; every object goes into the
 * ring. */
static int pool_populate(struct unic_pool *pool, const struct unic_pool_conf *cfg)
{
	struct unic_pool_priv *priv = pool->priv;
	size_t max_contig = unic_mem_max_contig(pool->mem);
	uint64_t per_chunk = max_contig / pool->elt_size;
	uint32_t idx = 0;
	unsigned nb_chunks, c;

	if (per_chunk == 0) {
		UNIC_LOG(ERR, POOL,
			 "pool %s: an element of %u bytes does not fit in %zu contiguous bytes (one page in PA mode); use smaller objects or VA mode",
			 pool->name, pool->elt_size, max_contig);
		return -EINVAL;
	}
	if (per_chunk > pool->count)
		per_chunk = pool->count;
	nb_chunks = (unsigned)((pool->count + per_chunk - 1) / per_chunk);
	priv->chunks = calloc(nb_chunks, sizeof(*priv->chunks));
	if (priv->chunks == NULL)
		return -ENOMEM;

	for (c = 0; c < nb_chunks; c++) {
		uint32_t n = (uint32_t)UNIC_MIN(per_chunk, (uint64_t)(pool->count - idx));
		struct unic_dma *z = &priv->chunks[c];
		uint32_t k;
		int rc;

		rc = (cfg->shareable ? unic_mem_alloc_shareable : unic_mem_alloc)
			(pool->mem, (size_t)n * pool->elt_size, UNIC_CACHE_LINE_SIZE,
			 cfg->numa_node, z);
		if (rc < 0) {
			UNIC_LOG(ERR, POOL, "pool %s: cannot allocate %u objects of %u bytes (chunk %u of %u): %s",
				 pool->name, n, pool->elt_size, c + 1, nb_chunks, strerror(-rc));
			return rc;
		}
		priv->nb_chunks++;
		for (k = 0; k < n; k++, idx++) {
			size_t off = (size_t)k * pool->elt_size + pool_obj_off();
			void *obj = (uint8_t *)z->va + off;

			if (cfg->obj_init)
				cfg->obj_init(cfg->obj_init_arg, pool, obj, z->iova + off, idx);
			if (UNIC_POOL_DEBUG) {
				struct pool_debug_hdr *h = pool_hdr(obj);

				h->cookie = POOL_COOKIE_FREE;
				h->pool = pool;
				h->idx = idx;
				*pool_trailer(pool, obj) = POOL_COOKIE_TRAIL;
				h->sum = pool_obj_sum(pool, obj);
			}
			if (unic_ring_sp_enqueue_bulk(pool->ring, &obj, 1) != 1)
				return -ENOSPC; /* cannot happen: the ring is sized for count */
		}
	}
	return 0;
}

/* Packet pools pass their room sizes so obj_init can read them from the
 * pool while it is being populated. */
static struct unic_pool *pool_create(const struct unic_pool_conf *ucfg,
				     uint16_t headroom, uint16_t dataroom)
{
	struct unic_pool_conf c, *cfg = &c;
	struct unic_pool *pool;
	uint32_t ring_size;
	int rc;

	if (unic_conf_copy(&c, sizeof(c), ucfg) < 0) {
		UNIC_LOG(ERR, POOL, "pool: config missing, or .sz %zu not in %zu..%zu (set .sz = sizeof(struct unic_pool_conf))",
			 ucfg ? ucfg->sz : 0, sizeof(size_t), sizeof(c));
		errno = EINVAL;
		return NULL;
	}
	rc = pool_check_config(cfg);
	if (rc < 0) {
		errno = -rc;
		return NULL;
	}
	pool = aligned_alloc(UNIC_CACHE_LINE_SIZE, UNIC_ALIGN_CEIL(sizeof(*pool), (size_t)UNIC_CACHE_LINE_SIZE));
	if (pool == NULL)
		goto err_nomem;
	memset(pool, 0, sizeof(*pool));
	snprintf(pool->name, sizeof(pool->name), "%s", cfg->name ? cfg->name : "");
	pool->mem = cfg->mem;
	pool->count = cfg->count;
	pool->obj_size = cfg->obj_size;
	pool->elt_size = pool_elt_size(cfg->obj_size);
	pool->cache_size = cfg->cache_size;
	pool->cache_flush_thresh = cfg->cache_size + (cfg->cache_size + 1) / 2;
	pool->pkt_headroom = headroom;
	pool->pkt_dataroom = dataroom;
	pool->is_pktpool = dataroom != 0;
	pool->priv = calloc(1, sizeof(*pool->priv));
	if (pool->priv == NULL)
		goto err_free_pool;

	ring_size = unic_pow2_ceil32(cfg->count);
	pool->ring = unic_ring_create(pool->name, ring_size, 0);
	if (pool->ring == NULL)
		goto err_free_pool;

	if (cfg->cache_size) {
		/* Anonymous mapping: zeroed, and a thread's cache pages are only
		 * touched when that thread first uses the pool. */
		size_t len = sizeof(struct unic_pool_cache) * UNIC_MAX_THREADS;
		void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (m == MAP_FAILED)
			goto err_free_pool;
		pool->caches = m;
		pool->priv->caches_len = len;
	}

	rc = pool_populate(pool, cfg);
	if (rc < 0) {
		pool_release(pool);
		errno = -rc;
		return NULL;
	}
	UNIC_LOG(DEBUG, POOL, "pool %s: %u objects of %u bytes (element %u), cache %u, %u chunk(s)",
		 pool->name, pool->count, pool->obj_size, pool->elt_size, pool->cache_size,
		 pool->priv->nb_chunks);
	pool_registry_add(pool);
	return pool;

err_free_pool:
	pool_release(pool);
err_nomem:
	UNIC_LOG(ERR, POOL, "pool %s: out of heap memory", cfg->name ? cfg->name : "");
	errno = ENOMEM;
	return NULL;
}

struct unic_pool *unic_pool_create(const struct unic_pool_conf *cfg)
{
	return pool_create(cfg, 0, 0);
}

void unic_pool_destroy(struct unic_pool *pool)
{
	uint32_t in_use;

	if (pool == NULL)
		return;
	pool_registry_del(pool);   /* first: a reader in unic_pool_foreach() is done with it */
	in_use = unic_pool_in_use_count(pool);
	if (in_use)
		UNIC_LOG(WARNING, POOL, "pool %s freed with %u of %u objects still in use",
			 pool->name, in_use, pool->count);
	if (pool->priv->put_overflow)
		UNIC_LOG(WARNING, POOL, "pool %s: %" PRIu64 " objects were put that the pool could not hold (not its own, or put twice)",
			 pool->name, pool->priv->put_overflow);
	pool_release(pool);
}

/* ---- packet pools ------------------------------------------------------- */

static void pktpool_obj_init(void *arg, struct unic_pool *pool, void *obj,
			     uint64_t iova, uint32_t idx)
{
	struct unic_pkt *p = obj;

	(void)arg;
	(void)idx;
	memset(p, 0, sizeof(*p));
	p->pool = pool;
	p->buf_iova = iova + sizeof(struct unic_pkt);
	p->buf_len = (uint16_t)(pool->pkt_headroom + pool->pkt_dataroom);
	p->port = UINT16_MAX;
	unic_pkt_reset(p, pool->pkt_headroom);
}

struct unic_pool *unic_pktpool_create(const struct unic_pktpool_conf *ucfg)
{
	struct unic_pktpool_conf c, *cfg = &c;
	struct unic_pool_conf pc = { .sz = sizeof(pc) };
	uint32_t headroom, dataroom;

	if (unic_conf_copy(&c, sizeof(c), ucfg) < 0) {
		UNIC_LOG(ERR, POOL, "packet pool: config missing, or .sz %zu not in %zu..%zu (set .sz = sizeof(struct unic_pktpool_conf))",
			 ucfg ? ucfg->sz : 0, sizeof(size_t), sizeof(c));
		errno = EINVAL;
		return NULL;
	}
	headroom = cfg->headroom ? cfg->headroom : UNIC_PKT_HEADROOM_DEFAULT;
	dataroom = cfg->dataroom ? cfg->dataroom : UNIC_PKT_DATAROOM_DEFAULT;
	if (headroom < UNIC_PKT_HEADROOM_MIN || headroom + dataroom > UINT16_MAX) {
		UNIC_LOG(ERR, POOL,
			 "packet pool %s: headroom %u + data room %u; expected headroom >= %u and a sum <= %u",
			 cfg->name ? cfg->name : "", headroom, dataroom, UNIC_PKT_HEADROOM_MIN, UINT16_MAX);
		errno = EINVAL;
		return NULL;
	}
	pc.name = cfg->name;
	pc.mem = cfg->mem;
	pc.count = cfg->count;
	pc.cache_size = cfg->cache_size;
	pc.numa_node = cfg->numa_node;
	pc.shareable = cfg->shareable;
	pc.obj_size = (uint32_t)sizeof(struct unic_pkt) + headroom + dataroom;
	pc.obj_init = pktpool_obj_init;

	return pool_create(&pc, (uint16_t)headroom, (uint16_t)dataroom);
}

int unic_pool_span_get(const struct unic_pool *pool, struct unic_pool_span *span)
{
	const struct unic_pool_priv *priv = pool->priv;

	if (priv == NULL || priv->nb_chunks != 1)
		return -E2BIG;
	span->first = (uint8_t *)priv->chunks[0].va + pool_obj_off();
	span->stride = pool->elt_size;
	span->count = pool->count;
	span->zone = priv->chunks[0].va;
	span->zone_len = priv->chunks[0].len;
	span->dma = &priv->chunks[0];
	return 0;
}
