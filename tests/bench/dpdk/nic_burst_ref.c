/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DPDK side of tests/bench/bench_nic_burst.c: the same loop, line for
 * line, through DPDK's public API (rte_eth_tx_burst / rte_eth_rx_burst on
 * a PMD such as net_virtio or net_e1000_em), for the comparison of
 * tests/bench/compare-virtio-guest (docs/performance.md, "virtio-net in
 * the rig"). Links DPDK only, never libunic.
 *
 * Usage: nic_burst_ref [EAL options, -a TX_BDF -a RX_BDF] -- TX_BDF RX_BDF
 *        [--frames N] [--burst B] [--desc D]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

enum { WARMUP = 2000, MAX_BURST = 64, FRAME = 64 };

static struct rte_mempool *pool;

static int port_up(uint16_t port, uint16_t nb_desc)
{
	struct rte_eth_conf conf;
	struct rte_eth_link link;
	int r;

	memset(&conf, 0, sizeof(conf));
	if ((r = rte_eth_dev_configure(port, 1, 1, &conf)) < 0 ||
	    (r = rte_eth_rx_queue_setup(port, 0, nb_desc, rte_eth_dev_socket_id(port), NULL, pool)) < 0 ||
	    (r = rte_eth_tx_queue_setup(port, 0, nb_desc, rte_eth_dev_socket_id(port), NULL)) < 0 ||
	    (r = rte_eth_dev_start(port)) < 0) {
		fprintf(stderr, "nic_burst_ref: setting up port %u: %s\n", port, strerror(-r));
		return r;
	}
	for (int i = 0; i < 50; i++) {
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status)
			break;
		rte_delay_ms(100);
	}
	return 0;
}

struct figures {
	uint64_t tx_cyc, tx_calls, sent, rx_cyc, rx_calls, got, empty_cyc, empty_calls, refused, lost;
	/* Cycles of each tx_burst that took a whole burst and of each
	 * rx_burst that returned a whole burst: their medians leave out the
	 * calls the host descheduled the guest's vCPU in. */
	uint64_t *tx_full, *rx_full;
	uint32_t nb_tx_full, nb_rx_full, max_full;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The @p q quantile (0..1) of @p n samples (sorts them), 0 without any. */
static double quantile(uint64_t *v, uint32_t n, double q)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	return (double)v[(uint32_t)(q * (n - 1) + 0.5)];
}

static void run(uint16_t tx, uint16_t rx, const uint8_t *frame, uint32_t total, uint16_t burst, struct figures *f)
{
	uint64_t hz = rte_get_tsc_hz();
	uint32_t sent = 0;

	while (sent < total) {
		struct rte_mbuf *pkts[MAX_BURST];
		uint64_t t0, t1, last;
		uint32_t inflight;
		uint16_t took, n;

		if (rte_pktmbuf_alloc_bulk(pool, pkts, burst) != 0) {
			fprintf(stderr, "nic_burst_ref: the pool ran dry\n");
			exit(1);
		}
		for (uint16_t i = 0; i < burst; i++)
			memcpy(rte_pktmbuf_append(pkts[i], FRAME), frame, FRAME);
		t0 = rte_rdtsc();
		took = rte_eth_tx_burst(tx, 0, pkts, burst);
		t1 = rte_rdtsc();
		f->tx_cyc += t1 - t0;
		f->tx_calls++;
		f->sent += took;
		f->refused += (uint64_t)(burst - took);
		if (took == burst && f->nb_tx_full < f->max_full)
			f->tx_full[f->nb_tx_full++] = t1 - t0;
		if (took < burst)
			rte_pktmbuf_free_bulk(pkts + took, (unsigned)(burst - took));
		sent += burst;
		inflight = took;
		last = rte_rdtsc();
		while (inflight > 0) {
			t0 = rte_rdtsc();
			n = rte_eth_rx_burst(rx, 0, pkts, MAX_BURST);
			t1 = rte_rdtsc();
			if (n > 0) {
				f->rx_cyc += t1 - t0;
				f->rx_calls++;
				f->got += n;
				if (n == burst && f->nb_rx_full < f->max_full)
					f->rx_full[f->nb_rx_full++] = t1 - t0;
				inflight = n > inflight ? 0 : inflight - n;
				rte_pktmbuf_free_bulk(pkts, n);
				last = t1;
			} else {
				f->empty_cyc += t1 - t0;
				f->empty_calls++;
				if (t1 - last > 2 * hz) { /* 2 s without a frame: lost */
					f->lost += inflight;
					break;
				}
			}
		}
	}
}

int main(int argc, char **argv)
{
	struct figures warm = { 0 }, f = { 0 };
	struct rte_ether_addr a;
	struct rte_eth_dev_info info;
	uint32_t total = 200000;
	uint16_t burst = 32, nb_desc = 256, tx, rx;
	uint8_t frame[FRAME] = { 0 };
	int n = rte_eal_init(argc, argv);

	if (n < 0) {
		fprintf(stderr, "nic_burst_ref: rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	argc -= n;
	argv += n;
	if (argc < 3) {
		fprintf(stderr, "usage: nic_burst_ref [EAL options] -- TX_BDF RX_BDF [--frames N] [--burst B] [--desc D]\n");
		return 2;
	}
	for (int i = 3; i + 1 < argc; i += 2) {
		long v = strtol(argv[i + 1], NULL, 0);

		if (strcmp(argv[i], "--frames") == 0 && v > 0)
			total = (uint32_t)v;
		else if (strcmp(argv[i], "--burst") == 0 && v > 0 && v <= MAX_BURST)
			burst = (uint16_t)v;
		else if (strcmp(argv[i], "--desc") == 0 && v > 0 && v <= 4096)
			nb_desc = (uint16_t)v;
		else {
			fprintf(stderr, "nic_burst_ref: bad option %s %s\n", argv[i], argv[i + 1]);
			return 2;
		}
	}
	if (rte_eth_dev_get_port_by_name(argv[1], &tx) != 0 || rte_eth_dev_get_port_by_name(argv[2], &rx) != 0) {
		fprintf(stderr, "nic_burst_ref: no port for %s or %s (%u ports); are both given with -a?\n", argv[1],
			argv[2], rte_eth_dev_count_avail());
		return 1;
	}
	/* As bench_nic_burst's pool: 8191 buffers, a 256-buffer cache,
	 * 2048 bytes of data room behind the headroom. */
	pool = rte_pktmbuf_pool_create("bench-nic", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (pool == NULL) {
		fprintf(stderr, "nic_burst_ref: rte_pktmbuf_pool_create: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (port_up(tx, nb_desc) < 0 || port_up(rx, nb_desc) < 0)
		return 1;
	rte_eth_macaddr_get(rx, &a);
	memcpy(frame, a.addr_bytes, 6);
	rte_eth_macaddr_get(tx, &a);
	memcpy(frame + 6, a.addr_bytes, 6);
	frame[12] = 0x88;
	frame[13] = 0xb5;
	for (int i = 14; i < FRAME; i++)
		frame[i] = (uint8_t)i;
	rte_eth_dev_info_get(tx, &info);
	run(tx, rx, frame, WARMUP, burst, &warm);
	f.max_full = total / burst + 1;
	f.tx_full = calloc(f.max_full, sizeof(uint64_t));
	f.rx_full = calloc(f.max_full, sizeof(uint64_t));
	warm.max_full = 0;
	if (f.tx_full == NULL || f.rx_full == NULL)
		return 1;
	run(tx, rx, frame, total, burst, &f);
	printf("side=dpdk driver=%s frames=%" PRIu64 " burst=%u tx_cycles_per_pkt=%.1f rx_cycles_per_pkt=%.1f "
	       "rx_pkts_per_call=%.2f tx_med_cycles_per_pkt=%.1f tx_p90_cycles_per_pkt=%.1f rx_med_cycles_per_pkt=%.1f "
	       "rx_p90_cycles_per_pkt=%.1f full_tx_calls=%u full_rx_calls=%u empty_rx_cycles_per_call=%.1f empty_rx_calls_per_burst=%.2f refused=%" PRIu64
	       " lost=%" PRIu64 " tsc_ghz=%.3f\n",
	       info.driver_name, f.sent, burst, (double)f.tx_cyc / (double)(f.sent ? f.sent : 1),
	       (double)f.rx_cyc / (double)(f.got ? f.got : 1),
	       (double)f.got / (double)(f.rx_calls ? f.rx_calls : 1),
	       quantile(f.tx_full, f.nb_tx_full, 0.5) / burst, quantile(f.tx_full, f.nb_tx_full, 0.9) / burst,
	       quantile(f.rx_full, f.nb_rx_full, 0.5) / burst, quantile(f.rx_full, f.nb_rx_full, 0.9) / burst,
	       f.nb_tx_full, f.nb_rx_full,
	       (double)f.empty_cyc / (double)(f.empty_calls ? f.empty_calls : 1),
	       (double)f.empty_calls / (double)(f.tx_calls ? f.tx_calls : 1), f.refused, f.lost,
	       (double)rte_get_tsc_hz() / 1e9);
	rte_eth_dev_stop(tx);
	rte_eth_dev_stop(rx);
	rte_eth_dev_close(tx);
	rte_eth_dev_close(rx);
	rte_eal_cleanup();
	return f.lost || f.refused ? 3 : 0;
}
