/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ring benchmark: cycles per element for an enqueue plus a dequeue, SP/SC and
 * MP/MC, bulk 32 and single element, on one thread and across two threads
 * (producer and consumer pinned to different cores when there are two).
 * Compare with DPDK: DPDK_TEST=ring_perf_autotest dpdk-test --no-pci
 * (docs/performance.md).
 */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <unic/ring.h>
#include <unic/log.h>
#include "bench.h"

#define RING_SIZE 4096

static double one_thread(struct unic_ring *r, unsigned burst, bool sp_sc, unsigned long iters)
{
	void *objs[32] = { 0 };
	uint64_t t0, t1;

	for (unsigned i = 0; i < burst; i++)
		objs[i] = (void *)(uintptr_t)(i + 1);
	/* Warm up, then measure. */
	for (int pass = 0; pass < 2; pass++) {
		unsigned long n = pass ? iters : iters / 10 + 1;

		t0 = unic_rdtsc();
		if (sp_sc) {
			for (unsigned long i = 0; i < n; i++) {
				unic_ring_sp_enqueue_bulk(r, objs, burst);
				unic_ring_sc_dequeue_bulk(r, objs, burst);
			}
		} else {
			for (unsigned long i = 0; i < n; i++) {
				unic_ring_mp_enqueue_bulk(r, objs, burst);
				unic_ring_mc_dequeue_bulk(r, objs, burst);
			}
		}
		t1 = unic_rdtsc();
	}
	return (double)(t1 - t0) / ((double)iters * burst);
}

struct two {
	struct unic_ring *r;
	unsigned burst;
	unsigned long total;
	bool sp_sc;
	int cpu;
	uint64_t cycles;
	volatile int *go;
};

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *producer(void *v)
{
	struct two *t = v;
	void *objs[32];
	unsigned long sent = 0;

	pin(t->cpu);
	for (unsigned i = 0; i < 32; i++)
		objs[i] = (void *)(uintptr_t)(i + 1);
	while (!*t->go)
		unic_pause();
	uint64_t t0 = unic_rdtsc();
	while (sent < t->total) {
		uint32_t k = t->sp_sc ? unic_ring_sp_enqueue_bulk(t->r, objs, t->burst)
				      : unic_ring_mp_enqueue_bulk(t->r, objs, t->burst);

		/* Full: back off, as a poll loop would (and as DPDK's
		 * ring_perf_autotest does), instead of hammering the
		 * consumer's line. */
		if (k == 0)
			unic_pause();
		sent += k;
	}
	t->cycles = unic_rdtsc() - t0;
	return NULL;
}

static void *consumer(void *v)
{
	struct two *t = v;
	void *objs[32];
	unsigned long got = 0;

	pin(t->cpu);
	while (!*t->go)
		unic_pause();
	uint64_t t0 = unic_rdtsc();
	while (got < t->total) {
		uint32_t k = t->sp_sc ? unic_ring_sc_dequeue_bulk(t->r, objs, t->burst)
				      : unic_ring_mc_dequeue_bulk(t->r, objs, t->burst);

		if (k == 0) /* empty: back off, as above */
			unic_pause();
		got += k;
	}
	t->cycles = unic_rdtsc() - t0;
	return NULL;
}

/* Cycles per element seen by the slower side. */
static double two_threads(struct unic_ring *r, unsigned burst, bool sp_sc, unsigned long total)
{
	volatile int go = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct two p = { r, burst, total, sp_sc, 0, 0, &go };
	struct two c = { r, burst, total, sp_sc, ncpu > 1 ? 1 : 0, 0, &go };
	pthread_t tp, tc;

	pthread_create(&tp, NULL, producer, &p);
	pthread_create(&tc, NULL, consumer, &c);
	go = 1;
	pthread_join(tp, NULL);
	pthread_join(tc, NULL);
	return (double)UNIC_MAX(p.cycles, c.cycles) / (double)total;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct unic_ring *r;
	int rc = bench_init(&b, "ring", argc, argv);

	if (rc)
		return rc;
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	r = unic_ring_create("bench", RING_SIZE, 0);
	if (r == NULL) {
		fprintf(stderr, "cannot create the ring\n");
		return 1;
	}
	unsigned long it = bench_iters(&b, 2000000);

	bench_add(&b, "ring_spsc_bulk32_1thread", one_thread(r, 32, true, it), "cycles/elem");
	bench_add(&b, "ring_mpmc_bulk32_1thread", one_thread(r, 32, false, it), "cycles/elem");
	bench_add(&b, "ring_spsc_single_1thread", one_thread(r, 1, true, it * 4), "cycles/elem");
	bench_add(&b, "ring_mpmc_single_1thread", one_thread(r, 1, false, it * 4), "cycles/elem");
	unsigned long total = bench_iters(&b, 20000000) / 32 * 32;
	bench_add(&b, "ring_spsc_bulk32_2threads", two_threads(r, 32, true, total), "cycles/elem");
	bench_add(&b, "ring_mpmc_bulk32_2threads", two_threads(r, 32, false, total), "cycles/elem");
	bench_add(&b, "ring_spsc_single_2threads", two_threads(r, 1, true, total / 8), "cycles/elem");
	bench_add(&b, "ring_mpmc_single_2threads", two_threads(r, 1, false, total / 8), "cycles/elem");
	bench_finish(&b);
	unic_ring_destroy(r);
	return 0;
}
