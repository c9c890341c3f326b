/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>

#include "log_capture.h"
#include "port_fixture.h"

static struct unic_mem *mem;

static void setup(void)
{
	logcap_start(UNIC_LOG_WARNING, 0);
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	mem = fixture_mem();
}

static void teardown(void)
{
	unic_mem_destroy(mem);
	logcap_stop();
}

TestSuite(pool, .init = setup, .fini = teardown);

static struct unic_pool *make_pool(uint32_t count, uint32_t obj_size, uint32_t cache)
{
	struct unic_pool_conf c = {
		.sz = sizeof(c), .name = "t", .mem = mem, .count = count,
		.obj_size = obj_size, .cache_size = cache, .numa_node = -1,
	};
	struct unic_pool *p = unic_pool_create(&c);

	cr_assert_not_null(p, "pool create: %s (%s)", strerror(errno), logcap_last);
	return p;
}

Test(pool, exhaustion_returns_an_error_and_counts_it)
{
	const uint32_t caches[] = { 0, 16 };

	for (size_t k = 0; k < UNIC_ARRAY_SIZE(caches); k++) {
		struct unic_pool *p = make_pool(64, 100, caches[k]);
		void *objs[64], *extra = NULL;
		struct unic_pool_stats st;

		for (int i = 0; i < 64; i++)
			cr_assert_eq(unic_pool_get(p, &objs[i]), 0, "object %d of 64 (cache %u)", i, caches[k]);
		cr_assert_eq(unic_pool_in_use_count(p), 64);
		cr_assert_eq(unic_pool_get(p, &extra), -ENOENT);
		cr_assert_null(extra, "a failed get must not hand out anything");
		unic_pool_stats_get(p, &st);
		cr_assert_eq(st.get_fail, 1);
		/* Every object is distinct. */
		for (int i = 0; i < 64; i++)
			for (int j = i + 1; j < 64; j++)
				cr_assert_neq(objs[i], objs[j]);
		unic_pool_put_bulk(p, objs, 64);
		cr_assert_eq(unic_pool_in_use_count(p), 0);
		cr_assert_eq(unic_pool_avail_count(p), 64);
		unic_pool_destroy(p);
	}
}

Test(pool, bulk_get_is_all_or_nothing)
{
	struct unic_pool *p = make_pool(100, 64, 0);
	void *a[60], *b[60];

	cr_assert_eq(unic_pool_get_bulk(p, a, 60), 0);
	cr_assert_eq(unic_pool_get_bulk(p, b, 60), -ENOENT);
	cr_assert_eq(unic_pool_avail_count(p), 40, "a refused bulk get must take nothing");
	cr_assert_eq(unic_pool_get_bulk(p, b, 40), 0);
	cr_assert_eq(unic_pool_avail_count(p), 0);
	unic_pool_put_bulk(p, a, 60);
	unic_pool_put_bulk(p, b, 40);
	cr_assert_eq(unic_pool_in_use_count(p), 0);
	unic_pool_destroy(p);
}

Test(pool, cached_objects_count_as_available_and_flush_returns_them)
{
	struct unic_pool *p = make_pool(1024, 64, 32);
	void *objs[32];

	cr_assert_eq(unic_pool_get_bulk(p, objs, 8), 0);
	/* The first get refilled the cache beyond what was asked. */
	cr_assert_gt(unic_pool_cache_count(p), 0);
	cr_assert_eq(unic_pool_in_use_count(p), 8);
	unic_pool_put_bulk(p, objs, 8);
	cr_assert_eq(unic_pool_in_use_count(p), 0);
	cr_assert_gt(unic_pool_cache_count(p), 0);
	unic_pool_cache_flush(p);
	cr_assert_eq(unic_pool_cache_count(p), 0);
	cr_assert_eq(unic_ring_count(p->ring), 1024);
	unic_pool_destroy(p);
}

Test(pool, cache_never_grows_past_one_and_a_half_its_size)
{
	struct unic_pool *p = make_pool(1024, 64, 32);
	void *objs[512];

	cr_assert_eq(unic_pool_get_bulk(p, objs, 32), 0);
	for (int i = 0; i < 16; i++)
		cr_assert_eq(unic_pool_get_bulk(p, objs + 32 + i * 30, 30), 0);
	for (int i = 0; i < 512; i++)
		unic_pool_put(p, objs[i]);
	cr_assert_lt(unic_pool_cache_count(p), 48 + 1);
	cr_assert_eq(unic_pool_in_use_count(p), 0);
	unic_pool_destroy(p);
}

Test(pool, objects_are_cache_aligned_and_have_their_iova)
{
	struct unic_pool *p = make_pool(200, 100, 0);
	void *objs[200];

	cr_assert_eq(unic_pool_get_bulk(p, objs, 200), 0);
	for (int i = 0; i < 200; i++) {
		uint64_t iova = 0;

		cr_assert_eq((uintptr_t)objs[i] % UNIC_CACHE_LINE_SIZE, 0);
		cr_assert_eq(unic_pool_obj_iova(p, objs[i], &iova), 0);
		cr_assert_neq(iova, 0);
		memset(objs[i], 0xa5, 100); /* the whole object is writable */
	}
	unic_pool_put_bulk(p, objs, 200);
	unic_pool_destroy(p);
}

Test(pool, bad_configs_are_refused_with_the_numbers)
{
	struct unic_pool_conf c = {
		.sz = sizeof(c), .name = "bad", .mem = mem, .count = 100, .obj_size = 64,
		.cache_size = 80,
	};

	errno = 0;
	cr_assert_null(unic_pool_create(&c));
	cr_assert_eq(errno, EINVAL);
	cr_assert(strstr(logcap_last, "cache size 80") && strstr(logcap_last, "66"), "message: %s", logcap_last);
	c.cache_size = 0;
	c.count = 0;
	cr_assert_null(unic_pool_create(&c));
	cr_assert(strstr(logcap_last, "count 0"), "message: %s", logcap_last);
	c.count = 10;
	c.obj_size = 0;
	cr_assert_null(unic_pool_create(&c));
	c.obj_size = 8;
	c.mem = NULL;
	cr_assert_null(unic_pool_create(&c));
	c.mem = mem;
	c.sz = 4;
	cr_assert_null(unic_pool_create(&c));
	cr_assert(strstr(logcap_last, "sizeof(struct unic_pool_conf)"), "message: %s", logcap_last);
}

/* ---- packets -------------------------------------------------------------- */

static struct unic_pool *make_pktpool(uint32_t count, uint16_t headroom, uint16_t dataroom)
{
	struct unic_pktpool_conf c = {
		.sz = sizeof(c), .name = "pkt", .mem = mem, .count = count,
		.cache_size = 0, .numa_node = 0, .headroom = headroom, .dataroom = dataroom,
	};
	struct unic_pool *p = unic_pktpool_create(&c);

	cr_assert_not_null(p, "packet pool: %s (%s)", strerror(errno), logcap_last);
	return p;
}

Test(pool, packet_has_defaults_and_buffer_iova)
{
	struct unic_pool *p = make_pktpool(32, 0, 0);
	struct unic_pkt *m = unic_pkt_alloc(p);
	uint64_t iova;

	cr_assert_not_null(m);
	cr_assert_eq(m->pool, p);
	cr_assert_eq(m->data_off, 128);
	cr_assert_eq(m->buf_len, 128 + 2048);
	cr_assert_eq(m->data_len, 0);
	cr_assert_eq(m->nb_segs, 1);
	cr_assert_null(m->next);
	cr_assert_eq(unic_pkt_headroom(m), 128);
	cr_assert_eq(unic_pkt_tailroom(m), 2048);
	cr_assert_eq(unic_mem_va2iova(mem, unic_pkt_buf(m), &iova), 0);
	cr_assert_eq(m->buf_iova, iova, "buf_iova must be the IOVA of the buffer start");
	cr_assert_eq(unic_pkt_data_iova(m), iova + 128);
	unic_pkt_free(m);
	cr_assert_eq(unic_pool_in_use_count(p), 0);
	unic_pool_destroy(p);
}

Test(pool, packet_append_prepend_adj_trim_respect_the_rooms)
{
	struct unic_pool *p = make_pktpool(4, 256, 1000);
	struct unic_pkt *m = unic_pkt_alloc(p);
	uint8_t *d;

	d = unic_pkt_append(m, 1000);
	cr_assert_not_null(d);
	memset(d, 1, 1000);
	cr_assert_null(unic_pkt_append(m, 1), "no tailroom left");
	cr_assert_eq(m->pkt_len, 1000);
	d = unic_pkt_prepend(m, 14);
	cr_assert_eq(d, unic_pkt_buf(m) + 256 - 14);
	cr_assert_eq(m->data_len, 1014);
	cr_assert_null(unic_pkt_prepend(m, 243));
	cr_assert_not_null(unic_pkt_adj(m, 14));
	cr_assert_eq(m->pkt_len, 1000);
	cr_assert_eq(unic_pkt_trim(m, 1001), -EINVAL);
	cr_assert_eq(unic_pkt_trim(m, 500), 0);
	cr_assert_eq(m->data_len, 500);
	unic_pkt_free(m);
	unic_pool_destroy(p);
}

Test(pool, freeing_a_chain_returns_every_segment)
{
	struct unic_pool *p = make_pktpool(16, 0, 0);
	struct unic_pkt *s[3];

	cr_assert_eq(unic_pkt_alloc_bulk(p, s, 3), 0);
	s[0]->next = s[1];
	s[1]->next = s[2];
	s[0]->nb_segs = 3;
	unic_pkt_free(s[0]);
	cr_assert_eq(unic_pool_in_use_count(p), 0);
	unic_pool_destroy(p);
}

Test(pool, free_bulk_handles_mixed_pools_and_chains)
{
	struct unic_pool *a = make_pktpool(16, 0, 0), *b = make_pktpool(16, 0, 0);
	struct unic_pkt *v[8], *seg;

	for (int i = 0; i < 8; i++)
		v[i] = unic_pkt_alloc(i % 3 == 0 ? b : a);
	seg = unic_pkt_alloc(b);
	v[4]->next = seg;
	cr_assert_eq(unic_pool_in_use_count(a) + unic_pool_in_use_count(b), 9);
	unic_pkt_free_bulk(v, 8);
	cr_assert_eq(unic_pool_in_use_count(a), 0);
	cr_assert_eq(unic_pool_in_use_count(b), 0);
	unic_pool_destroy(a);
	unic_pool_destroy(b);
}

Test(pool, packet_pool_refuses_small_headroom)
{
	struct unic_pktpool_conf c = {
		.sz = sizeof(c), .name = "small", .mem = mem, .count = 8, .headroom = 64,
	};

	cr_assert_null(unic_pktpool_create(&c));
	cr_assert_eq(errno, EINVAL);
	cr_assert(strstr(logcap_last, "headroom 64") && strstr(logcap_last, ">= 128"), "message: %s", logcap_last);
}

/* ---- threads -------------------------------------------------------------- */

#define MT_ROUNDS 200000

struct mt {
	struct unic_pool *p;
	uint8_t *owner; /* per object: 0 free, else thread id + 1 */
	uint64_t conflicts;
	void *base;
};

static uint32_t obj_index(struct mt *m, void *o)
{
	uint64_t iova_unused;

	(void)iova_unused;
	return (uint32_t)(((uint8_t *)o - (uint8_t *)m->base) / m->p->elt_size);
}

struct mt_arg {
	struct mt *m;
	uint8_t id;
};

static void *mt_worker(void *v)
{
	struct mt_arg *a = v;
	struct mt *m = a->m;
	void *held[48];

	for (int r = 0; r < MT_ROUNDS; r++) {
		uint32_t n = (uint32_t)(r % 47) + 1;

		if (unic_pool_get_bulk(m->p, held, n) != 0)
			continue;
		for (uint32_t k = 0; k < n; k++) {
			uint8_t prev = __atomic_exchange_n(&m->owner[obj_index(m, held[k])], a->id,
							   __ATOMIC_RELAXED);
			if (prev != 0)
				__atomic_fetch_add(&m->conflicts, 1, __ATOMIC_RELAXED);
		}
		for (uint32_t k = 0; k < n; k++)
			__atomic_store_n(&m->owner[obj_index(m, held[k])], 0, __ATOMIC_RELAXED);
		unic_pool_put_bulk(m->p, held, n);
	}
	unic_pool_cache_flush(m->p);
	return NULL;
}

Test(pool, two_threads_with_caches_never_share_an_object, .timeout = 120)
{
	struct mt m = { 0 };
	pthread_t th[2];
	struct mt_arg args[2];
	void *all[256];

	/* One chunk (VA mode), so an object's index is its offset / stride. */
	m.p = make_pool(256, 64, 32);
	cr_assert_eq(unic_pool_get_bulk(m.p, all, 256), 0);
	m.base = all[0];
	for (int i = 0; i < 256; i++)
		if ((uintptr_t)all[i] < (uintptr_t)m.base)
			m.base = all[i];
	unic_pool_put_bulk(m.p, all, 256);
	unic_pool_cache_flush(m.p);
	m.owner = calloc(256, 1);
	for (int i = 0; i < 2; i++) {
		args[i].m = &m;
		args[i].id = (uint8_t)(i + 1);
		pthread_create(&th[i], NULL, mt_worker, &args[i]);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	cr_assert_eq(m.conflicts, 0, "%" PRIu64 " objects were handed to two threads at once", m.conflicts);
	cr_assert_eq(unic_pool_in_use_count(m.p), 0);
	cr_assert_eq(unic_pool_cache_count(m.p), 0, "both threads flushed their caches");
	free(m.owner);
	unic_pool_destroy(m.p);
}

Test(pool, bulk_larger_than_the_cache_still_reaches_cached_objects)
{
	struct unic_pool *p = make_pool(64, 64, 8);
	void *objs[64];

	cr_assert_eq(unic_pool_get_bulk(p, objs, 4), 0);
	unic_pool_put_bulk(p, objs, 4);
	cr_assert_gt(unic_pool_cache_count(p), 0, "the put went to this thread's cache");
	cr_assert_eq(unic_pool_get_bulk(p, objs, 64), 0, "every object is available to this thread");
	cr_assert_eq(unic_pool_in_use_count(p), 64);
	cr_assert_eq(unic_pool_cache_count(p), 0);
	unic_pool_put_bulk(p, objs, 64);
	unic_pool_destroy(p);
}

/* ---- shareable pools (memif zero-copy lends their buffers) ---- */

#include <sys/mman.h>
#include <unistd.h>

#include "unic_pool_span.h"

Test(pool, shareable_packet_pool_lies_in_one_memfd_a_peer_can_map)
{
	struct unic_pktpool_conf c = {
		.sz = sizeof(c), .name = "shm", .mem = mem, .count = 64,
		.numa_node = -1, .shareable = true,
	};
	struct unic_pool *p = unic_pktpool_create(&c);
	struct unic_pool_span span;
	struct unic_pkt *pkt;
	uint64_t off, pkt_off;
	size_t flen;
	uint8_t *peer;
	int fd;

	cr_assert_not_null(p, "%s (%s)", strerror(errno), logcap_last);
	cr_assert_eq(unic_pool_span_get(p, &span), 0);
	cr_assert_eq(unic_mem_zone_fd(span.dma, &fd, &off, &flen), 0, "%s", logcap_last);
	peer = mmap(NULL, flen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(peer, MAP_FAILED, "%s", strerror(errno));
	pkt = unic_pkt_alloc(p);
	cr_assert_not_null(pkt);
	pkt_off = off + (uint64_t)((uint8_t *)unic_pkt_buf(pkt) - (uint8_t *)span.zone);
	cr_assert_leq(pkt_off + pkt->buf_len, flen);
	memset(unic_pkt_buf(pkt), 0x5a, pkt->buf_len);
	cr_assert_eq(peer[pkt_off], 0x5a, "the peer sees the packet's buffer");
	cr_assert_eq(peer[pkt_off + pkt->buf_len - 1], 0x5a);
	munmap(peer, flen);
	unic_pkt_free(pkt);
	unic_pool_destroy(p);
}

Test(pool, ordinary_pool_has_no_fd_to_lend)
{
	struct unic_pool *p = make_pool(16, 64, 0);
	struct unic_pool_span span;
	uint64_t off;
	size_t flen;
	int fd;

	cr_assert_eq(unic_pool_span_get(p, &span), 0);
	cr_assert_eq(unic_mem_zone_fd(span.dma, &fd, &off, &flen), -EINVAL);
	cr_assert(strstr(logcap_buf, ".shareable = true") != NULL, "%s", logcap_buf);
	unic_pool_destroy(p);
}
