/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mempool benchmark: cycles per get+put of one object, with a 512-object
 * per-thread cache (bulk 32 and bulk 1) and without a cache (bulk 32), one
 * thread. Uses hugepages unless --no-huge. Compare with DPDK's
 * mempool_perf_autotest, configuration "cache 512, n_get_bulk 32,
 * n_put_bulk 32, n_keep 32, one core" (docs/performance.md).
 */
#include <errno.h>

#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>
#include "bench.h"

#define POOL_OBJS 8191
#define KEEP 32

static double run(struct unic_pool *p, unsigned bulk, unsigned long iters)
{
	void *objs[KEEP];
	uint64_t t0 = 0, t1 = 0;

	for (int pass = 0; pass < 2; pass++) {
		unsigned long n = pass ? iters : iters / 10 + 1;

		t0 = unic_rdtsc();
		for (unsigned long i = 0; i < n; i++) {
			/* Take KEEP objects in bulks, then give them back. */
			for (unsigned k = 0; k < KEEP; k += bulk)
				if (unic_pool_get_bulk(p, &objs[k], bulk) != 0)
					return -1;
			for (unsigned k = 0; k < KEEP; k += bulk)
				unic_pool_put_bulk(p, &objs[k], bulk);
		}
		t1 = unic_rdtsc();
	}
	return (double)(t1 - t0) / ((double)iters * KEEP);
}

static struct unic_pool *make(struct unic_mem *mem, uint32_t cache)
{
	struct unic_pool_conf c = {
		.sz = sizeof(c), .name = "bench", .mem = mem, .count = POOL_OBJS,
		.obj_size = 2048 + 128 + 64, .cache_size = cache, .numa_node = 0,
	};
	return unic_pool_create(&c);
}

int main(int argc, char **argv)
{
	struct bench b;
	struct unic_mem *mem;
	struct unic_pool *p;
	int rc = bench_init(&b, "mempool", argc, argv);

	if (rc)
		return rc;
	mem = bench_mem(&b);
	if (mem == NULL)
		return 1;
	unsigned long it = bench_iters(&b, 1000000);

	p = make(mem, 512);
	if (p == NULL)
		return 1;
	bench_add(&b, "mempool_cache512_bulk32", run(p, 32, it), "cycles/op");
	bench_add(&b, "mempool_cache512_bulk1", run(p, 1, it / 4), "cycles/op");
	unic_pool_destroy(p);

	p = make(mem, 0);
	if (p == NULL)
		return 1;
	bench_add(&b, "mempool_nocache_bulk32", run(p, 32, it / 4), "cycles/op");
	unic_pool_destroy(p);

	bench_finish(&b);
	unic_mem_destroy(mem);
	return 0;
}
