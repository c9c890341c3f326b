/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A NIC driver's cost per packet inside rx_burst and tx_burst, between two
 * ports of the QEMU rig's guest (tests/bench/compare-virtio-guest,
 * docs/performance.md "virtio-net in the rig"). The DPDK side of the
 * comparison, tests/bench/dpdk/nic_burst_ref.c, runs the same loop through
 * rte_eth_tx_burst/rte_eth_rx_burst: keep the two in step.
 *
 * The loop, per burst: BURST 64-byte frames are allocated and written
 * (not timed), handed to tx_burst on the first port (timed), then the
 * second port's rx_burst is polled until all of them arrived (each call
 * timed; calls that return nothing are counted apart, as the device
 * delivers asynchronously). Received packets are freed outside the timed
 * calls. WARMUP frames first, not counted.
 *
 * Usage: bench_nic_burst TX_BDF RX_BDF [--frames N] [--burst B] [--desc D]
 * Prints one line of figures, "key=value" pairs.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/bus.h>
#include <unic/cycles.h>
#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

enum { WARMUP = 2000, MAX_BURST = 64, FRAME = 64 };

static struct unic_pool *pool;

static int port_up(struct unic_port *p, uint16_t nb_desc)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = nb_desc, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = nb_desc, .numa_node = -1 };
	struct unic_link link;
	int r;

	if ((r = unic_port_configure(p, &conf)) < 0 || (r = unic_port_rx_queue_setup(p, 0, &rc)) < 0 ||
	    (r = unic_port_tx_queue_setup(p, 0, &tc)) < 0 || (r = unic_port_start(p)) < 0) {
		fprintf(stderr, "bench_nic_burst: setting up %s: %s\n", unic_port_name(p), strerror(-r));
		return r;
	}
	if (unic_port_link_wait(p, 5000, &link) < 0)
		fprintf(stderr, "bench_nic_burst: %s: link not up within 5 s (going on)\n", unic_port_name(p));
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

/* Sends @p total frames in bursts of @p burst and receives them; adds to @p f. */
static void run(struct unic_port *tx, struct unic_port *rx, const uint8_t *frame, uint32_t total, uint16_t burst,
		struct figures *f)
{
	uint64_t hz = unic_tsc_hz();
	uint32_t sent = 0;

	while (sent < total) {
		struct unic_pkt *pkts[MAX_BURST];
		uint64_t t0, t1, last;
		uint32_t inflight;
		uint16_t took, n;

		if (unic_pkt_alloc_bulk(pool, pkts, burst) != 0) {
			fprintf(stderr, "bench_nic_burst: the pool ran dry\n");
			exit(1);
		}
		for (uint16_t i = 0; i < burst; i++)
			memcpy(unic_pkt_append(pkts[i], FRAME), frame, FRAME);
		t0 = unic_rdtsc();
		took = unic_tx_burst(tx, 0, pkts, burst);
		t1 = unic_rdtsc();
		f->tx_cyc += t1 - t0;
		f->tx_calls++;
		f->sent += took;
		f->refused += (uint64_t)(burst - took);
		if (took == burst && f->nb_tx_full < f->max_full)
			f->tx_full[f->nb_tx_full++] = t1 - t0;
		unic_pkt_free_bulk(pkts + took, (unsigned)(burst - took));
		sent += burst;
		inflight = took;
		last = unic_rdtsc();
		while (inflight > 0) {
			t0 = unic_rdtsc();
			n = unic_rx_burst(rx, 0, pkts, MAX_BURST);
			t1 = unic_rdtsc();
			if (n > 0) {
				f->rx_cyc += t1 - t0;
				f->rx_calls++;
				f->got += n;
				if (n == burst && f->nb_rx_full < f->max_full)
					f->rx_full[f->nb_rx_full++] = t1 - t0;
				inflight = n > inflight ? 0 : inflight - n;
				unic_pkt_free_bulk(pkts, n);
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

enum { MAX_XSTATS = 256 };

/* The port's doorbell counters (xstats named *kick*), into @p v; @return how many. */
static unsigned kicks_get(struct unic_port *p, struct unic_xstat_name *names, uint64_t *v)
{
	int n = unic_port_xstats_names(p, names, MAX_XSTATS);

	if (n <= 0 || n > MAX_XSTATS || unic_port_xstats_get(p, v, (unsigned)n) != n)
		return 0;
	return (unsigned)n;
}

/* " name=delta" for each doorbell counter that moved during the measured run. */
static void kicks_print(struct unic_port *p, const char *side, struct unic_xstat_name *names, const uint64_t *before)
{
	static struct unic_xstat_name after_names[MAX_XSTATS];
	static uint64_t after[MAX_XSTATS];
	unsigned n = kicks_get(p, after_names, after);

	for (unsigned i = 0; i < n; i++)
		if (strstr(after_names[i].name, "kick") && strcmp(after_names[i].name, names[i].name) == 0)
			printf(" %s_%s=%" PRIu64, side, after_names[i].name, after[i] - before[i]);
}

int main(int argc, char **argv)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .iova_mode = UNIC_IOVA_VA };
	struct unic_bus_conf bc = { .sz = sizeof(bc) };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "bench-nic", .count = 8191, .cache_size = 256 };
	struct unic_port *ports[2], *tx = NULL, *rx = NULL;
	struct figures warm = { 0 }, f = { 0 };
	struct unic_port_info info;
	uint32_t total = 200000;
	uint16_t burst = 32, nb_desc = 256;
	uint8_t frame[FRAME] = { 0 };
	struct unic_mem *mem;
	struct unic_bus *bus;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: %s TX_BDF RX_BDF [--frames N] [--burst B] [--desc D]\n", argv[0]);
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
			fprintf(stderr, "%s: bad option %s %s\n", argv[0], argv[i], argv[i + 1]);
			return 2;
		}
	}
	if (getenv("UNIC_IOVA_PA"))
		mc.iova_mode = UNIC_IOVA_PA;
	mem = unic_mem_create(&mc);
	if (mem == NULL) {
		fprintf(stderr, "bench_nic_burst: unic_mem_create: %s\n", strerror(errno));
		return 1;
	}
	bc.mem = mem;
	bus = unic_bus_create(&bc);
	pc.mem = mem;
	pool = bus ? unic_pktpool_create(&pc) : NULL;
	if (pool == NULL) {
		fprintf(stderr, "bench_nic_burst: bus or pool: %s\n", strerror(errno));
		return 1;
	}
	rc = unic_port_probe_pci(bus, (const char *const *)argv + 1, 2, ports, 2);
	if (rc != 2) {
		fprintf(stderr, "bench_nic_burst: probing %s and %s: %d (%s)\n", argv[1], argv[2], rc,
			strerror(rc < 0 ? -rc : 0));
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		memset(&info, 0, sizeof(info));
		unic_port_info_get(ports[i], &info);
		if (strcmp(info.bus_addr, argv[1]) == 0 || (strlen(argv[1]) > 5 && strcmp(info.bus_addr, argv[1] + 5) == 0))
			tx = ports[i];
		else
			rx = ports[i];
	}
	if (tx == NULL || rx == NULL) {
		fprintf(stderr, "bench_nic_burst: neither port has the address %s (%s, %s)\n", argv[1],
			unic_port_name(ports[0]), unic_port_name(ports[1]));
		return 1;
	}
	if (port_up(tx, nb_desc) < 0 || port_up(rx, nb_desc) < 0)
		return 1;
	unic_port_mac_get(rx, frame);
	unic_port_mac_get(tx, frame + 6);
	frame[12] = 0x88;
	frame[13] = 0xb5;
	for (int i = 14; i < FRAME; i++)
		frame[i] = (uint8_t)i;
	unic_port_info_get(tx, &info);
	run(tx, rx, frame, WARMUP, burst, &warm);
	f.max_full = total / burst + 1;
	f.tx_full = calloc(f.max_full, sizeof(uint64_t));
	f.rx_full = calloc(f.max_full, sizeof(uint64_t));
	warm.max_full = 0;
	if (f.tx_full == NULL || f.rx_full == NULL)
		return 1;
	static struct unic_xstat_name tx_names[MAX_XSTATS], rx_names[MAX_XSTATS];
	static uint64_t tx_before[MAX_XSTATS], rx_before[MAX_XSTATS];

	kicks_get(tx, tx_names, tx_before);
	kicks_get(rx, rx_names, rx_before);
	run(tx, rx, frame, total, burst, &f);
	printf("side=unic driver=%s frames=%" PRIu64 " burst=%u tx_cycles_per_pkt=%.1f rx_cycles_per_pkt=%.1f "
	       "rx_pkts_per_call=%.2f tx_med_cycles_per_pkt=%.1f tx_p90_cycles_per_pkt=%.1f rx_med_cycles_per_pkt=%.1f "
	       "rx_p90_cycles_per_pkt=%.1f full_tx_calls=%u full_rx_calls=%u empty_rx_cycles_per_call=%.1f empty_rx_calls_per_burst=%.2f refused=%" PRIu64
	       " lost=%" PRIu64 " tsc_ghz=%.3f",
	       info.driver, f.sent, burst, (double)f.tx_cyc / (double)(f.sent ? f.sent : 1),
	       (double)f.rx_cyc / (double)(f.got ? f.got : 1),
	       (double)f.got / (double)(f.rx_calls ? f.rx_calls : 1),
	       quantile(f.tx_full, f.nb_tx_full, 0.5) / burst, quantile(f.tx_full, f.nb_tx_full, 0.9) / burst,
	       quantile(f.rx_full, f.nb_rx_full, 0.5) / burst, quantile(f.rx_full, f.nb_rx_full, 0.9) / burst,
	       f.nb_tx_full, f.nb_rx_full,
	       (double)f.empty_cyc / (double)(f.empty_calls ? f.empty_calls : 1),
	       (double)f.empty_calls / (double)(f.tx_calls ? f.tx_calls : 1), f.refused, f.lost,
	       (double)unic_tsc_hz() / 1e9);
	kicks_print(tx, "txport", tx_names, tx_before);
	kicks_print(rx, "rxport", rx_names, rx_before);
	printf("\n");
	for (int i = 0; i < 2; i++) {
		unic_port_stop(ports[i]);
		unic_port_detach(ports[i]);
		unic_port_put(ports[i]);
	}
	unic_pool_destroy(pool);
	unic_bus_destroy(bus);
	unic_mem_destroy(mem);
	return f.lost || f.refused ? 3 : 0;
}
