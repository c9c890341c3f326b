/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reference figures for tests/bench/bench_pool.c, measured on DPDK's mempool
 * through its public API only. Built with -Ddpdk_ref=true when libdpdk is
 * installed; run by tests/bench/compare-dpdk (docs/performance.md).
 *
 * Two measurements of the same operation, cycles per get+put of one object:
 *
 *  - mempool_cache512_bulk32, mempool_cache512_bulk1, mempool_nocache_bulk32:
 *    the loop of bench_pool.c, line for line (same pool size, object size,
 *    KEEP, iteration counts, warm-up pass, rdtsc around the measured pass),
 *    with rte_mempool_generic_get/put on this lcore's default cache in place
 *    of unic_pool_get_bulk/put_bulk. These are the figures to pair with
 *    unic's.
 *
 *  - mempool_cache512_bulk32_timed: the way DPDK's mempool_perf_autotest
 *    measures its "cache 512, n_get_bulk 32, n_put_bulk 32, n_keep 32, one
 *    core" configuration: the bulk sizes are run-time values (not constants
 *    the compiler can fold), the loop runs for a fixed time in chunks of
 *    65536 objects, and the result is an object rate, converted here to
 *    cycles with rte_get_tsc_hz(). It checks that the first figure is
 *    comparable with what mempool_perf_autotest would print.
 *
 * Usage: mempool_ref [EAL options] -- [--json] [--scale X] [--time S]
 * e.g.   mempool_ref -l 0 --no-pci -- --json
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#define POOL_OBJS 8191
#define OBJ_SIZE (2048 + 128 + 64)
#define KEEP 32
#define CHUNK 65536 /* objects between two looks at the clock (timed loop) */

static struct {
	bool json;
	double scale;
	double time_s;
	unsigned nb;
	struct {
		char name[64];
		double value;
	} res[16];
} out = { .scale = 1.0, .time_s = 1.0 };

static void add(const char *name, double value)
{
	if (out.nb >= 16)
		return;
	snprintf(out.res[out.nb].name, sizeof(out.res[out.nb].name), "%s", name);
	out.res[out.nb].value = value;
	out.nb++;
	if (!out.json) {
		printf("%s %.3f cycles/op\n", name, value);
		fflush(stdout);
	}
}

static void finish(void)
{
	if (!out.json)
		return;
	printf("{\"benchmark\": \"mempool_dpdk_ref\", \"tsc_hz\": %llu, \"results\": [",
	       (unsigned long long)rte_get_tsc_hz());
	for (unsigned i = 0; i < out.nb; i++)
		printf("%s\n  {\"name\": \"%s\", \"value\": %.3f, \"unit\": \"cycles/op\"}",
		       i ? "," : "", out.res[i].name, out.res[i].value);
	printf("\n]}\n");
}

static unsigned long iters(unsigned long base)
{
	unsigned long n = (unsigned long)((double)base * out.scale);

	return n ? n : 1;
}

/*
 * bench_pool.c's run(), on DPDK's mempool. Not inlined: as compiled in
 * bench_pool (and as in mempool_perf_autotest), the bulk size is a run-time
 * value; a constant would let the compiler specialise DPDK's copy loops.
 */
static __attribute__((noinline, noclone)) double run(struct rte_mempool *mp, unsigned bulk, unsigned long n_iter)
{
	struct rte_mempool_cache *cache = rte_mempool_default_cache(mp, rte_lcore_id());
	void *objs[KEEP];
	uint64_t t0 = 0, t1 = 0;

	for (int pass = 0; pass < 2; pass++) {
		unsigned long n = pass ? n_iter : n_iter / 10 + 1;

		t0 = rte_rdtsc();
		for (unsigned long i = 0; i < n; i++) {
			for (unsigned k = 0; k < KEEP; k += bulk)
				if (rte_mempool_generic_get(mp, &objs[k], bulk, cache) != 0)
					return -1;
			for (unsigned k = 0; k < KEEP; k += bulk)
				rte_mempool_generic_put(mp, &objs[k], bulk, cache);
		}
		t1 = rte_rdtsc();
	}
	return (double)(t1 - t0) / ((double)n_iter * KEEP);
}

/* Run-time values, as in mempool_perf_autotest: nothing to constant-fold. */
static volatile unsigned timed_get_bulk = 32, timed_put_bulk = 32, timed_keep = 32;

static double run_timed(struct rte_mempool *mp, double seconds)
{
	struct rte_mempool_cache *cache = rte_mempool_default_cache(mp, rte_lcore_id());
	const unsigned get_bulk = timed_get_bulk, put_bulk = timed_put_bulk;
	const unsigned keep = timed_keep;
	void *objs[128];
	uint64_t hz = rte_get_tsc_hz();
	uint64_t limit = (uint64_t)(seconds * (double)hz);
	uint64_t start, now, count = 0;

	if (keep > 128 || keep % get_bulk || keep % put_bulk)
		return -1;
	start = rte_rdtsc();
	do {
		for (unsigned c = 0; c < CHUNK / keep; c++) {
			for (unsigned k = 0; k < keep; k += get_bulk)
				if (rte_mempool_generic_get(mp, &objs[k], get_bulk, cache) != 0)
					return -1;
			for (unsigned k = 0; k < keep; k += put_bulk)
				rte_mempool_generic_put(mp, &objs[k], put_bulk, cache);
		}
		count += CHUNK;
		now = rte_rdtsc();
	} while (now - start < limit);
	/* rate = count / elapsed seconds; cycles per object = hz / rate. */
	return (double)(now - start) / (double)count;
}

static int parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *end;

		if (strcmp(argv[i], "--json") == 0) {
			out.json = true;
		} else if (strcmp(argv[i], "--scale") == 0 && i + 1 < argc) {
			out.scale = strtod(argv[++i], &end);
			if (*end != '\0' || out.scale <= 0)
				return -1;
		} else if (strcmp(argv[i], "--time") == 0 && i + 1 < argc) {
			out.time_s = strtod(argv[++i], &end);
			if (*end != '\0' || out.time_s <= 0)
				return -1;
		} else {
			return -1;
		}
	}
	return 0;
}

static struct rte_mempool *make(const char *name, unsigned cache)
{
	struct rte_mempool *mp = rte_mempool_create(name, POOL_OBJS, OBJ_SIZE, cache, 0,
						    NULL, NULL, NULL, NULL,
						    (int)rte_socket_id(), 0);

	if (mp == NULL)
		fprintf(stderr, "rte_mempool_create(%s): %s\n", name,
			rte_strerror(rte_errno));
	return mp;
}

int main(int argc, char **argv)
{
	struct rte_mempool *mp;
	int n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	if (parse(argc, argv) != 0) {
		fprintf(stderr, "usage: mempool_ref [EAL options] -- [--json] [--scale X] [--time S]\n");
		rte_eal_cleanup();
		return 2;
	}
	unsigned long it = iters(1000000);

	mp = make("ref_cache512", RTE_MEMPOOL_CACHE_MAX_SIZE);
	if (mp == NULL)
		return 1;
	add("mempool_cache512_bulk32", run(mp, 32, it));
	add("mempool_cache512_bulk1", run(mp, 1, it / 4));
	add("mempool_cache512_bulk32_timed", run_timed(mp, out.time_s * out.scale));
	rte_mempool_free(mp);

	mp = make("ref_nocache", 0);
	if (mp == NULL)
		return 1;
	add("mempool_nocache_bulk32", run(mp, 32, it / 4));
	rte_mempool_free(mp);

	finish();
	rte_eal_cleanup();
	return 0;
}
