/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * memif's fast path in one thread: a client (tx) and a server (rx) of this
 * process over an abstract socket, 64-byte frames, bursts of 32: tx_burst
 * on the client, rx_burst on the server, free. Prints the cycles per frame
 * inside each call, as the mean over the run and as the median of the
 * bursts (a burst the scheduler cut into is an outlier there, so the
 * median moves less with the machine's load). One core, warm caches: the bookkeeping and copies of
 * the driver, not the cache-line transfers between two cores (those are
 * compare-memif's). Run it under `valgrind --tool=callgrind` for
 * instructions per frame (docs/performance-notebook.md). Uses hugepages
 * unless --no-huge.
 *
 * --two-cores: the client's tx_burst on a thread on CPU 0 and the server's
 * rx_burst on one on CPU 1 for --scale x 5 seconds, each with its own
 * pool: the median cycles per frame inside each call (over the calls
 * that moved a full burst), where the cache lines do move between two
 * cores. A call the scheduler cut into is an outlier the median ignores,
 * so the figure holds on a loaded machine better than a rate does. The
 * cost follows where the host runs the two vCPUs (see c2c-probe).
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>
#include "bench.h"
#include "vdev_port.h"

#define BURST 32
#define FRAME 64
#define POOL_PKTS 8192
#define POOL_CACHE 256

static struct unic_port *make_port(const char *spec, struct unic_pool *pool)
{
	const struct vdev_port_conf c = { .spec = spec, .pool = pool, .nb_queues = 1, .nb_rxd = 1024,
					  .nb_txd = 1024, .numa_node = 0, .rx_mode = UNIC_RX_MODE_POLL };
	char why[256];
	struct unic_port *p = vdev_port_open(&c, why, sizeof(why));

	if (p == NULL)
		fprintf(stderr, "%s\n", why);
	return p;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static double median_per_frame(uint32_t *v, unsigned long n)
{
	qsort(v, n, sizeof(*v), cmp_u32);
	return (double)v[n / 2] / BURST;
}

struct side {
	struct unic_port *port;
	struct unic_pool *pool;  /* tx: where the frames come from */
	int cpu;
	uint64_t end_tsc;
	uint32_t *samples;
	unsigned long nb, max;
	uint64_t frames, calls;
	double cpu_s;
};

static int pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static double thread_cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One burst's figures: its time is sampled only when the burst was full. */
static void side_note(struct side *sd, uint16_t n, uint64_t t0, uint64_t t1)
{
	if (n == BURST && sd->nb < sd->max)
		sd->samples[sd->nb++] = (uint32_t)UNIC_MIN(t1 - t0, (uint64_t)UINT32_MAX);
	sd->frames += n;
	sd->calls++;
}

static void *tx_side(void *arg)
{
	struct side *sd = arg;
	double c0;

	if (pin_self(sd->cpu) != 0)
		return NULL;
	c0 = thread_cpu_s();
	while (unic_rdtsc() < sd->end_tsc) {
		struct unic_pkt *pkts[BURST];
		uint64_t t0, t1;
		uint16_t s;

		if (unic_pkt_alloc_bulk(sd->pool, pkts, BURST) != 0)
			break;
		for (unsigned k = 0; k < BURST; k++)
			memset(unic_pkt_append(pkts[k], FRAME), (int)k, FRAME);
		t0 = unic_rdtsc();
		s = unic_tx_burst(sd->port, 0, pkts, BURST);
		t1 = unic_rdtsc();
		if (s < BURST)
			unic_pkt_free_bulk(pkts + s, BURST - s);
		side_note(sd, s, t0, t1);
	}
	sd->cpu_s = thread_cpu_s() - c0;
	return NULL;
}

static void *rx_side(void *arg)
{
	struct side *sd = arg;
	double c0;

	if (pin_self(sd->cpu) != 0)
		return NULL;
	c0 = thread_cpu_s();
	while (unic_rdtsc() < sd->end_tsc) {
		struct unic_pkt *pkts[BURST];
		uint64_t t0, t1;
		uint16_t r;

		t0 = unic_rdtsc();
		r = unic_rx_burst(sd->port, 0, pkts, BURST);
		t1 = unic_rdtsc();
		unic_pkt_free_bulk(pkts, r);
		side_note(sd, r, t0, t1);
	}
	sd->cpu_s = thread_cpu_s() - c0;
	return NULL;
}

static int two_cores(struct bench *b, struct unic_port *cli, struct unic_pool *txpool,
		     struct unic_port *srv)
{
	double secs = 5.0 * b->scale;
	uint64_t end = unic_rdtsc() + (uint64_t)(secs * (double)unic_tsc_hz());
	unsigned long max = 50000000;
	struct side tx = { .port = cli, .pool = txpool, .cpu = 0, .end_tsc = end, .max = max };
	struct side rx = { .port = srv, .cpu = 1, .end_tsc = end, .max = max };
	pthread_t th[2];

	tx.samples = calloc(max, sizeof(uint32_t));
	rx.samples = calloc(max, sizeof(uint32_t));
	if (tx.samples == NULL || rx.samples == NULL ||
	    pthread_create(&th[0], NULL, tx_side, &tx) != 0 ||
	    pthread_create(&th[1], NULL, rx_side, &rx) != 0) {
		fprintf(stderr, "cannot start the two threads\n");
		return 1;
	}
	pthread_join(th[0], NULL);
	pthread_join(th[1], NULL);
	if (tx.nb == 0 || rx.nb == 0) {
		fprintf(stderr, "no full burst on one side (tx %lu, rx %lu): did the threads get pinned to CPUs 0 and 1?\n",
			tx.nb, rx.nb);
		return 1;
	}
	bench_add(b, "memif_2core_tx_burst32_64B_median_cycles", median_per_frame(tx.samples, tx.nb),
		  "cycles/frame");
	bench_add(b, "memif_2core_rx_burst32_64B_median_cycles", median_per_frame(rx.samples, rx.nb),
		  "cycles/frame");
	bench_add(b, "memif_2core_rx_full_bursts", 100.0 * (double)rx.nb / (double)rx.calls, "%");
	bench_add(b, "memif_2core_frames_per_s", (double)rx.frames / secs, "frames/s");
	bench_add(b, "memif_2core_frames_per_rx_cpu_s", rx.cpu_s > 0 ? (double)rx.frames / rx.cpu_s : 0,
		  "frames/s");
	bench_add(b, "memif_2core_tx_cpu", 100.0 * tx.cpu_s / secs, "%");
	bench_add(b, "memif_2core_rx_cpu", 100.0 * rx.cpu_s / secs, "%");
	free(tx.samples);
	free(rx.samples);
	return 0;
}

static bool link_up(struct unic_port *p)
{
	struct unic_link link;

	return unic_port_link_get(p, &link) == 0 && link.up;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "memifb", .count = POOL_PKTS,
					  .cache_size = POOL_CACHE, .numa_node = 0 };
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *srv, *cli;
	char spec[160];
	bool two = false;
	int rc;

	if (argc > 1 && strcmp(argv[argc - 1], "--two-cores") == 0) {
		two = true;
		argc--;
	}
	rc = bench_init(&b, two ? "memif_two_cores" : "memif", argc, argv);

	if (rc)
		return rc;
	mem = bench_mem(&b);
	if (mem == NULL)
		return 1;
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	if (pool == NULL) {
		fprintf(stderr, "cannot create the packet pool: %s\n", strerror(errno));
		return 1;
	}
	snprintf(spec, sizeof(spec), "memif0,role=server,socket=unic-bench-memif-%d", (int)getpid());
	srv = make_port(spec, pool);
	snprintf(spec, sizeof(spec), "memif1,role=client,socket=unic-bench-memif-%d", (int)getpid());
	cli = srv ? make_port(spec, pool) : NULL;
	if (cli == NULL) {
		fprintf(stderr, "cannot set up a memif server and client (see the messages above)\n");
		return 1;
	}
	for (int i = 0; i < 5000 && !(link_up(srv) && link_up(cli)); i++)
		usleep(1000);
	if (!link_up(srv) || !link_up(cli)) {
		fprintf(stderr, "the memif pair did not connect within 5 s\n");
		return 1;
	}

	if (two) {
		struct unic_pktpool_conf tc = pc;
		struct unic_pool *txpool;

		tc.name = "memifbtx";
		txpool = unic_pktpool_create(&tc);
		if (txpool == NULL) {
			fprintf(stderr, "cannot create the sender's packet pool: %s\n", strerror(errno));
			return 1;
		}
		rc = two_cores(&b, cli, txpool, srv);
		bench_finish(&b);
		vdev_port_close(cli);
		vdev_port_close(srv);
		unic_pool_destroy(txpool);
		unic_pool_destroy(pool);
		unic_mem_destroy(mem);
		return rc;
	}

	unsigned long iters = bench_iters(&b, 2000000);
	uint64_t tx_cyc = 0, rx_cyc = 0, sent = 0, got = 0, lost = 0;
	uint32_t *tx_b = calloc(iters, sizeof(uint32_t)), *rx_b = calloc(iters, sizeof(uint32_t));
	unsigned long nb = 0;

	if (tx_b == NULL || rx_b == NULL) {
		fprintf(stderr, "out of memory for %lu samples\n", iters);
		return 1;
	}

	for (unsigned long i = 0; i < iters + iters / 10; i++) {
		struct unic_pkt *pkts[BURST];
		uint64_t c0, c1, c2;
		uint16_t s, r;

		if (i == iters / 10) /* after the warm-up */
			tx_cyc = rx_cyc = sent = got = 0;
		if (unic_pkt_alloc_bulk(pool, pkts, BURST) != 0) {
			fprintf(stderr, "the pool ran dry: frames are leaking\n");
			return 1;
		}
		for (unsigned k = 0; k < BURST; k++) {
			uint8_t *d = unic_pkt_append(pkts[k], FRAME);

			memset(d, (int)k, FRAME);
		}
		c0 = unic_rdtsc();
		s = unic_tx_burst(cli, 0, pkts, BURST);
		c1 = unic_rdtsc();
		if (s < BURST) {
			unic_pkt_free_bulk(pkts + s, BURST - s);
			lost += BURST - s;
		}
		r = unic_rx_burst(srv, 0, pkts, BURST);
		c2 = unic_rdtsc();
		unic_pkt_free_bulk(pkts, r);
		tx_cyc += c1 - c0;
		rx_cyc += c2 - c1;
		if (i >= iters / 10 && s == BURST && r == BURST && nb < iters) {
			tx_b[nb] = (uint32_t)UNIC_MIN(c1 - c0, (uint64_t)UINT32_MAX);
			rx_b[nb] = (uint32_t)UNIC_MIN(c2 - c1, (uint64_t)UINT32_MAX);
			nb++;
		}
		sent += s;
		got += r;
	}
	if (got == 0 || sent == 0) {
		fprintf(stderr, "nothing went through (sent %llu, received %llu)\n",
			(unsigned long long)sent, (unsigned long long)got);
		return 1;
	}
	bench_add(&b, "memif_tx_burst32_64B_cycles", (double)tx_cyc / (double)sent, "cycles/frame");
	bench_add(&b, "memif_rx_burst32_64B_cycles", (double)rx_cyc / (double)got, "cycles/frame");
	if (nb > 0) {
		bench_add(&b, "memif_tx_burst32_64B_median_cycles", median_per_frame(tx_b, nb), "cycles/frame");
		bench_add(&b, "memif_rx_burst32_64B_median_cycles", median_per_frame(rx_b, nb), "cycles/frame");
	}
	bench_add(&b, "memif_frames_not_taken", (double)lost, "frames");
	bench_finish(&b);

	free(tx_b);
	free(rx_b);
	vdev_port_close(cli);
	vdev_port_close(srv);
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
	return 0;
}
