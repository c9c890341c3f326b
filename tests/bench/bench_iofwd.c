/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * io-forward: one thread forwards between two null ports, burst 32, both
 * directions (rx port 0 -> tx port 1, rx port 1 -> tx port 0), as DPDK's
 * `dpdk-testpmd --no-pci --vdev net_null0 --vdev net_null1 --
 * --forward-mode=io --burst=32 --nb-cores=1` does. The null port really
 * allocates on rx and frees on tx. Prints Mpps and cycles per packet.
 * Uses hugepages unless --no-huge. See docs/performance.md.
 */
#include <errno.h>

#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>
#include "bench.h"
#include "vdev_port.h"

#define BURST 32
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

static inline uint64_t fwd(struct unic_port *in, struct unic_port *out)
{
	struct unic_pkt *pkts[BURST];
	uint16_t n = unic_rx_burst(in, 0, pkts, BURST), sent;

	if (n == 0)
		return 0;
	sent = unic_tx_burst(out, 0, pkts, n);
	if (UNIC_UNLIKELY(sent < n))
		unic_pkt_free_bulk(pkts + sent, (uint32_t)(n - sent));
	return sent;
}

int main(int argc, char **argv)
{
	struct bench b;
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "iofwd", .count = POOL_PKTS,
					  .cache_size = POOL_CACHE, .numa_node = 0 };
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *p0, *p1;
	int rc = bench_init(&b, "iofwd", argc, argv);

	if (rc)
		return rc;
	mem = bench_mem(&b);
	if (mem == NULL)
		return 1;
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	p0 = pool ? make_port("null0", pool) : NULL;
	p1 = p0 ? make_port("null1", pool) : NULL;
	if (p1 == NULL) {
		fprintf(stderr, "cannot set up two null ports (see the messages above)\n");
		return 1;
	}

	unsigned long iters = bench_iters(&b, 20000000);
	uint64_t pkts = 0, c0, c1, t0, t1;

	for (unsigned long i = 0; i < iters / 10; i++) /* warm up */
		pkts += fwd(p0, p1) + fwd(p1, p0);
	pkts = 0;
	t0 = unic_time_ns();
	c0 = unic_rdtsc();
	for (unsigned long i = 0; i < iters; i++)
		pkts += fwd(p0, p1) + fwd(p1, p0);
	c1 = unic_rdtsc();
	t1 = unic_time_ns();

	bench_add(&b, "iofwd_null_burst32_mpps", (double)pkts / ((double)(t1 - t0) / 1e3), "Mpps");
	bench_add(&b, "iofwd_null_burst32_cycles", (double)(c1 - c0) / (double)pkts, "cycles/pkt");
	bench_finish(&b);

	unic_port_detach(p0);
	unic_port_detach(p1);
	unic_port_put(p0);
	unic_port_put(p1);
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
	return 0;
}
