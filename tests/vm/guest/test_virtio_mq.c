/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net driver's multi-queue side in the QEMU rig's guest, against
 * QEMU 7.2's virtio-net-pci with mq=on,vectors=10,rss=on,hash=on on a
 * 4-queue host tap (boot vfio-aw48, nic3 on tap unic2). The host's peer
 * sends broadcast IPv4/UDP frames, a flow each ("unic-vm host-send
 * unic2/flows N", rig/peer.py flow_frame), whose payload starts with
 * "unic-vm RUN": everything else is a stray, counted apart.
 *
 * The test configures four queue pairs and RSS with its own key; QEMU's
 * model steers by the Toeplitz hash of that key over the table the driver
 * wrote (entry i = queue i mod 4), and reports the hash in the 20-byte
 * header. The test predicts each frame's queue and hash with its own
 * Toeplitz (tests/common/toeplitz.h) and checks both, and that each queue
 * has its own MSI-X vector that wakes a sleeper when a frame lands on it.
 *
 * Suite virtio_mq_shared_rig: nic4, the same device with vectors=3 on the
 * 4-queue tap unic3. The driver's plan (docs/virtio.md, "Interrupts")
 * keeps vector 0 for configuration changes and shares the other two:
 * queues 0 and 2 on vector 1, 1 and 3 on vector 2. Each shared vector
 * must wake a sleeper for frames on either of its queues, every queue
 * must receive, and link events must still arrive on vector 0.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "log_capture.h"
#include "toeplitz.h"

#define NB_Q 4

/* The NIC and its host tap: nic3 on unic2, or (the shared suite) nic4 on unic3. */
static const char *nic_name = "nic3";
static const char *tap = "unic2";

static struct unic_mem *mem;
static struct unic_bus *bus;
static struct unic_pool *pool;
static struct unic_port *vio;
static char run_id[9];

static const uint8_t key[40] = {
	0x3c, 0x1b, 0x77, 0x20, 0x9e, 0x51, 0x04, 0xd2, 0x6a, 0xc8, 0x13, 0x5f, 0xe0, 0x42, 0x8b, 0x99,
	0x27, 0x6d, 0xb4, 0x0e, 0x71, 0xa3, 0x58, 0xfc, 0x15, 0x9a, 0x36, 0xc1, 0x8e, 0x4b, 0x2f, 0xd7,
	0x60, 0x09, 0xbe, 0x73, 0x1d, 0xe5, 0x82, 0x4c,
};

/* What the checks saw, for the scenario's report check (stdout is the TAP stream's). */
#define REPORT "/tmp/virtio-mq-report.txt"

static void report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void report(const char *fmt, ...)
{
	FILE *f = fopen(REPORT, "a");
	va_list ap;

	if (f == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The PCI address of NIC @p name in /etc/unic-vm/nics. */
static void nic_bdf(const char *name, char *bdf, size_t len)
{
	char line[256], n[32], b[32];
	FILE *f = popen("unic-vm nics", "r");

	cr_assert_not_null(f, "unic-vm nics");
	bdf[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %31s", n, b) == 2 && strcmp(n, name) == 0)
			snprintf(bdf, len, "%s", b);
	pclose(f);
	cr_assert(bdf[0], "no %s in unic-vm nics", name);
}

static void setup(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc) };
	struct unic_bus_conf bc = { .sz = sizeof(bc) };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "virtio-mq", .count = 8192, .cache_size = 0 };
	const char *run = getenv("UNIC_VM_RUN");
	char b[32];
	const char *allow[1] = { b };
	int rc;

	if (getenv("UNIC_VM_ACCESS") == NULL)
		cr_skip_test("UNIC_VM_ACCESS is not set: not in the rig's guest");
	snprintf(run_id, sizeof(run_id), "%.8s", run ? run : "norun000");
	logtail_start(true);
	nic_bdf(nic_name, b, sizeof(b));
	mc.iova_mode = UNIC_IOVA_VA;
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem, "unic_mem_create: %s", strerror(errno));
	bc.mem = mem;
	bus = unic_bus_create(&bc);
	cr_assert_not_null(bus, "unic_bus_create: %s", strerror(errno));
	rc = unic_port_probe_pci(bus, allow, 1, &vio, 1);
	cr_assert_eq(rc, 1, "probe of %s: %d; log: %s", b, rc, logtail);
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	cr_assert_not_null(pool, "unic_pktpool_create: %s", strerror(errno));
}

static void teardown(void)
{
	if (vio != NULL) {
		if (unic_port_state(vio) == UNIC_PORT_STARTED)
			unic_port_stop(vio);
		unic_port_detach(vio);
		unic_port_put(vio);
	}
	vio = NULL;
	unic_pool_destroy(pool);
	unic_bus_destroy(bus);
	unic_mem_destroy(mem);
	pool = NULL, bus = NULL, mem = NULL;
}

static void port_up_link(enum unic_rx_mode mode, bool link_intr)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = NB_Q, .nb_txq = NB_Q, .rx_mode = mode,
				       .link_intr = link_intr,
				       .rss_hash_types = UNIC_RSS_IPV4 | UNIC_RSS_IPV4_UDP | UNIC_RSS_IPV4_TCP,
				       .rss_key_len = sizeof(key), .rx_offloads = UNIC_RX_OFFLOAD_RSS_HASH };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 256, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 256, .numa_node = -1 };
	struct unic_link link;
	int r;

	memcpy(conf.rss_key, key, sizeof(key));
	r = unic_port_configure(vio, &conf);
	cr_assert_eq(r, 0, "configure: %s; log: %s", strerror(-r), logtail);
	for (uint16_t q = 0; q < NB_Q; q++) {
		r = unic_port_tx_queue_setup(vio, q, &tc);
		cr_assert_eq(r, 0, "tx queue %u: %s; log: %s", q, strerror(-r), logtail);
	}
	for (uint16_t q = 0; q < NB_Q; q++) {
		r = unic_port_rx_queue_setup(vio, q, &rc);
		cr_assert_eq(r, 0, "rx queue %u: %s; log: %s", q, strerror(-r), logtail);
	}
	r = unic_port_start(vio);
	cr_assert_eq(r, 0, "start: %s; log: %s", strerror(-r), logtail);
	cr_assert_eq(unic_port_link_wait(vio, 5000, &link), 0, "link not up within 5 s");
}

static void port_up(enum unic_rx_mode mode)
{
	port_up_link(mode, false);
}

static void host_flows(unsigned n)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "unic-vm host-send %s/flows %u", tap, n);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
}

/* A flow frame of this run: @return its sequence number, or -1 (a stray). */
static int flow_seq(const struct unic_pkt *p)
{
	const uint8_t *f = unic_pkt_mtod(p, const uint8_t *);
	char tag[24];
	int seq = -1;

	if (p->data_len < 42 + 16 || f[12] != 0x08 || f[13] != 0x00 || f[23] != 17)
		return -1;
	snprintf(tag, sizeof(tag), "unic-vm %s ", run_id);
	if (memcmp(f + 42, tag, strlen(tag)) != 0)
		return -1;
	/* "unic-vm RUN CHECK SEQ" (then zeros): the last word. */
	{
		size_t len = (size_t)(f[38] << 8 | f[39]) - 8;
		char pl[65];
		const char *sp;

		if (len > 64 || 42 + len > p->data_len)
			return -1;
		memcpy(pl, f + 42, len);
		pl[len] = '\0';
		sp = strrchr(pl, ' ');
		if (sp != NULL)
			seq = atoi(sp + 1);
	}
	return seq;
}

/* The test's prediction: Toeplitz over source, destination, ports (UDP/IPv4). */
static uint32_t predict(const struct unic_pkt *p)
{
	const uint8_t *f = unic_pkt_mtod(p, const uint8_t *);
	uint8_t in[12];

	memcpy(in, f + 26, 8);
	memcpy(in + 8, f + 34, 4);
	return toeplitz(key, in, 12);
}

static uint16_t predict_queue(uint32_t h)
{
	return (uint16_t)((h & 127) % NB_Q); /* a 128-entry table, entry i = queue i mod 4 */
}

TestSuite(virtio_mq_rig, .init = setup, .fini = teardown, .timeout = 240);

Test(virtio_mq_rig, the_port_offers_four_pairs_rss_and_hash_reports)
{
	struct unic_port_info info;

	cr_assert_eq(unic_port_info_get(vio, &info), 0);
	report("nic3: %s, max_rxq %u, reta %u, key %u, rss types 0x%" PRIx64 ", rx offloads 0x%" PRIx64 "\n",
	       info.fw_version, info.max_rxq, info.reta_size, info.rss_key_size, info.rss_hash_capa,
	       info.rx_offload_capa);
	report("probe: %s\n", logtail);
	cr_expect_eq(info.max_rxq, NB_Q, "max_rxq %u: the device's max_virtqueue_pairs is the tap's queues", info.max_rxq);
	cr_expect_eq(info.reta_size, 128);
	cr_expect_eq(info.rss_key_size, 40);
	cr_expect(info.rss_hash_capa & UNIC_RSS_IPV4_UDP, "no UDP/IPv4 RSS: 0x%" PRIx64, info.rss_hash_capa);
	cr_expect(info.rx_offload_capa & UNIC_RX_OFFLOAD_RSS_HASH, "no hash reports");
}

Test(virtio_mq_rig, host_flows_land_on_the_queue_the_tests_toeplitz_picks_with_that_hash)
{
	enum { N = 400 };
	static bool seen[N];
	unsigned per_q[NB_Q] = { 0 }, got = 0, strays = 0, dups = 0, no_hash = 0;
	struct unic_pkt *pkts[32];

	memset(seen, 0, sizeof(seen));
	port_up(UNIC_RX_MODE_POLL);
	host_flows(N);
	for (uint64_t end = now_ms() + 30000; got < N && now_ms() < end;) {
		for (uint16_t q = 0; q < NB_Q; q++) {
			uint16_t n = unic_rx_burst(vio, q, pkts, 32);

			for (uint16_t i = 0; i < n; i++) {
				struct unic_pkt *p = pkts[i];
				int seq = flow_seq(p);
				uint32_t h;

				if (seq < 0 || seq >= N) {
					strays++;
					unic_pkt_free(p);
					continue;
				}
				h = predict(p);
				cr_assert_eq(q, predict_queue(h), "flow %d arrived on queue %u; Toeplitz 0x%08x says %u", seq,
					     q, h, predict_queue(h));
				cr_assert_eq(p->queue, q);
				if (p->ol_flags & UNIC_PKT_RX_RSS_HASH)
					cr_assert_eq(p->rss_hash, h, "flow %d: hash 0x%08x, Toeplitz 0x%08x", seq, p->rss_hash,
						     h);
				else
					no_hash++;
				dups += seen[seq];
				got += !seen[seq];
				seen[seq] = true;
				per_q[q]++;
				unic_pkt_free(p);
			}
		}
	}
	{
		struct unic_port_stats st;
		struct unic_xstat_name names[96];
		uint64_t vals[96];
		int nx = unic_port_xstats_names(vio, names, 96);

		if (unic_port_stats_get(vio, &st) == 0)
			report("stats: ipackets %" PRIu64 " (queues %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
			       "), ierrors %" PRIu64 ", rx_nombuf %" PRIu64 "\n",
			       st.ipackets, st.q_ipackets[0], st.q_ipackets[1], st.q_ipackets[2], st.q_ipackets[3],
			       st.ierrors, st.rx_nombuf);
		if (nx > 0 && nx <= 96 && unic_port_xstats_get(vio, vals, 96) == nx)
			for (int i = 0; i < nx; i++)
				if (vals[i] != 0)
					report("  %s %" PRIu64 "\n", names[i].name, vals[i]);
	}
	report("%u of %u flows: queue 0 %u, 1 %u, 2 %u, 3 %u; %u without a hash, %u strays, %u twice\n", got, N,
	       per_q[0], per_q[1], per_q[2], per_q[3], no_hash, strays, dups);
	cr_expect_eq(got, N, "%u of %u flows arrived", got, N);
	cr_expect_eq(no_hash, 0, "%u frames without a hash report", no_hash);
	for (uint16_t q = 0; q < NB_Q; q++)
		cr_expect_gt(per_q[q], 0, "queue %u got no frame", q);
}

/* Every source's eventfd emptied (a count from before). */
static void drain_fds(const struct unic_intr_source *src, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t v;

		while (read(src[i].fd, &v, sizeof(v)) == (ssize_t)sizeof(v)) {
		}
	}
}

Test(virtio_mq_rig, a_sleeper_on_queue_k_wakes_on_its_own_vector_when_a_frame_lands_on_k)
{
	struct unic_intr_source src[8];
	struct unic_pkt *pkts[32];
	int n;

	port_up(UNIC_RX_MODE_HYBRID);
	n = unic_port_intr_sources(vio, src, 8);
	cr_assert_eq(n, NB_Q, "%d interrupt sources for %u rx queues (10 vectors: one each); log: %s", n, NB_Q,
		     logtail);
	for (int i = 0; i < n; i++) {
		int fl = fcntl(src[i].fd, F_GETFL);

		cr_assert_eq(src[i].queue_mask, 1u << i, "source %d carries queues 0x%x", i, src[i].queue_mask);
		fcntl(src[i].fd, F_SETFL, fl | O_NONBLOCK);
	}
	/* QEMU sends a queue's first used-buffer notification after a reset
	 * whatever the driver asked (virtio_split_should_notify: no
	 * notification signalled yet): one round of flows first, so that
	 * every queue has had it. */
	host_flows(40);
	for (uint64_t end = now_ms() + 2000; now_ms() < end;)
		for (uint16_t q = 0; q < NB_Q; q++)
			for (uint16_t got; (got = unic_rx_burst(vio, q, pkts, 32)) > 0;)
				unic_pkt_free_bulk(pkts, got);
	for (uint16_t k = 0; k < NB_Q; k++) {
		struct pollfd pfd[NB_Q];
		unsigned on_k = 0;

		/* The last round's flows for the other queues may still be
		 * coming (the host paces them, and the round ended at the first
		 * frame on its queue): drain until every queue has been quiet
		 * for 300 ms. Then arm k alone, re-check (a frame already there
		 * is taken), and sleep on k's vector while the host sends 40
		 * flows. */
		for (uint64_t quiet = now_ms() + 300; now_ms() < quiet;)
			for (uint16_t q = 0; q < NB_Q; q++)
				for (uint16_t got; (got = unic_rx_burst(vio, q, pkts, 32)) > 0;) {
					unic_pkt_free_bulk(pkts, got);
					quiet = now_ms() + 300;
				}
		drain_fds(src, n);
		cr_assert_eq(unic_rx_intr_enable(vio, k), 0);
		cr_assert_not(unic_rx_pending(vio, k), "queue %u: a frame between the drain and the arm", k);
		host_flows(40);
		for (int i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = src[i].fd, .events = POLLIN };
		cr_assert_eq(poll(&pfd[k], 1, 10000), 1, "queue %u: armed, 40 flows sent, no wake in 10 s", k);
		cr_assert_eq(unic_rx_intr_disable(vio, k), 0);
		for (uint64_t end = now_ms() + 3000; now_ms() < end && on_k == 0;) {
			uint16_t got = unic_rx_burst(vio, k, pkts, 32);

			for (uint16_t i = 0; i < got; i++) {
				on_k += flow_seq(pkts[i]) >= 0;
				unic_pkt_free(pkts[i]);
			}
		}
		cr_expect_gt(on_k, 0, "queue %u woke with no flow frame on it", k);
		/* The disarmed queues' vectors stayed quiet. */
		cr_expect_eq(poll(pfd, (nfds_t)n, 0) - (pfd[k].revents ? 1 : 0), 0,
			     "queue %u armed alone, and another queue's vector fired", k);
		report("queue %u: armed alone, woke on vector %u, %u flow frames on it\n", k, src[k].index, on_k);
		/* The rest of the 40 (the other queues) is drained at the next round. */
	}
}

/* ---- nic4: 3 vectors for 4 rx queues ------------------------------------------------ */

static void setup_shared(void)
{
	nic_name = "nic4";
	tap = "unic3";
	setup();
}

TestSuite(virtio_mq_shared_rig, .init = setup_shared, .fini = teardown, .timeout = 240);

/* Frames until every queue has been quiet for 300 ms; @p per_q counts
 * the flow frames of each queue (NULL: none counted). */
static void drain_quiet(unsigned *per_q)
{
	struct unic_pkt *pkts[32];

	for (uint64_t quiet = now_ms() + 300; now_ms() < quiet;)
		for (uint16_t q = 0; q < NB_Q; q++)
			for (uint16_t got; (got = unic_rx_burst(vio, q, pkts, 32)) > 0;) {
				for (uint16_t i = 0; i < got; i++)
					if (per_q != NULL && flow_seq(pkts[i]) >= 0)
						per_q[q]++;
				unic_pkt_free_bulk(pkts, got);
				quiet = now_ms() + 300;
			}
}

Test(virtio_mq_shared_rig, each_shared_vector_wakes_for_both_its_queues_and_every_queue_receives)
{
	struct unic_intr_source src[8];
	unsigned total[NB_Q] = { 0 };
	int n;

	port_up(UNIC_RX_MODE_HYBRID);
	n = unic_port_intr_sources(vio, src, 8);
	report("nic4 (vectors=3): %d sources; log: %s\n", n, logtail);
	/* The plan: vector 0 for configuration changes, queue q on vector
	 * 1 + q mod 2. */
	cr_assert_eq(n, 2, "%d interrupt sources for 4 rx queues on 2 rx vectors; log: %s", n, logtail);
	for (int i = 0; i < n; i++) {
		int fl = fcntl(src[i].fd, F_GETFL);

		cr_assert_eq(src[i].index, i + 1, "source %d is vector %u", i, src[i].index);
		cr_assert_eq(src[i].queue_mask, i == 0 ? 0x5u : 0xau, "vector %u carries queues 0x%x", src[i].index,
			     src[i].queue_mask);
		fcntl(src[i].fd, F_SETFL, fl | O_NONBLOCK);
	}
	/* QEMU's first notification of each queue after the reset (see the
	 * test above): one round of flows, drained. */
	host_flows(40);
	for (uint64_t end = now_ms() + 2000; now_ms() < end;)
		drain_quiet(NULL);
	for (int v = 0; v < n; v++) {
		struct pollfd pfd[2];
		unsigned per_q[NB_Q] = { 0 };

		drain_quiet(NULL);
		drain_fds(src, n);
		/* Arm both queues of the vector, re-check, sleep on it. */
		for (uint16_t q = 0; q < NB_Q; q++)
			if (src[v].queue_mask & (1u << q)) {
				cr_assert_eq(unic_rx_intr_enable(vio, q), 0);
				cr_assert_not(unic_rx_pending(vio, q), "queue %u: a frame between the drain and the arm", q);
			}
		host_flows(40);
		for (int i = 0; i < n; i++)
			pfd[i] = (struct pollfd){ .fd = src[i].fd, .events = POLLIN };
		cr_assert_eq(poll(&pfd[v], 1, 10000), 1, "vector %u (queues 0x%x): armed, 40 flows sent, no wake in 10 s",
			     src[v].index, src[v].queue_mask);
		for (uint16_t q = 0; q < NB_Q; q++)
			if (src[v].queue_mask & (1u << q))
				cr_assert_eq(unic_rx_intr_disable(vio, q), 0);
		/* The other vector's queues were disarmed: it stayed quiet. */
		cr_expect_eq(poll(&pfd[1 - v], 1, 0), 0, "vector %u armed alone, and vector %u fired", src[v].index,
			     src[1 - v].index);
		drain_quiet(per_q);
		for (uint16_t q = 0; q < NB_Q; q++)
			total[q] += per_q[q];
		report("vector %u (queues 0x%x) woke; flow frames per queue after it: %u %u %u %u\n", src[v].index,
		       src[v].queue_mask, per_q[0], per_q[1], per_q[2], per_q[3]);
		/* RSS spreads 40 flows over the 4 queues: both of this vector's
		 * queues had frames behind the wake. */
		for (uint16_t q = 0; q < NB_Q; q++)
			if (src[v].queue_mask & (1u << q))
				cr_expect_gt(per_q[q], 0, "vector %u woke, yet its queue %u received no flow", src[v].index,
					     q);
	}
	for (uint16_t q = 0; q < NB_Q; q++)
		cr_expect_gt(total[q], 0, "rx queue %u received nothing in two rounds of 40 flows", q);
}

static void link_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	(void)port, (void)ev;
	__atomic_add_fetch((unsigned *)arg, 1, __ATOMIC_RELAXED);
}

static bool link_reads(bool up, unsigned ms)
{
	struct unic_link l;

	for (uint64_t end = now_ms() + ms; now_ms() < end; usleep(20000))
		if (unic_port_link_get(vio, &l) == 0 && l.up == up)
			return true;
	return false;
}

/* The cable back in whatever happened: a failed case must not leave the
 * link down for the cases after it. */
static void teardown_link_on(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "unic-vm link %s on", nic_name);
	if (system(cmd) != 0)
		fprintf(stderr, "%s failed\n", cmd);
	teardown();
}

Test(virtio_mq_shared_rig, a_cable_pull_reaches_the_link_callback_through_vector_0, .fini = teardown_link_on)
{
	unsigned events = 0, seen;
	uint64_t le = 0;
	char cmd[64];

	port_up_link(UNIC_RX_MODE_HYBRID, true);
	cr_assert_eq(unic_event_callback_register(vio, UNIC_EVENT_LINK, link_cb, &events), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	for (unsigned up = 0; up < 2; up++) {
		seen = __atomic_load_n(&events, __ATOMIC_RELAXED);
		snprintf(cmd, sizeof(cmd), "unic-vm link %s %s", nic_name, up ? "on" : "off");
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		cr_assert(link_reads(up, 10000), "the link does not read %s 10 s after %s", up ? "up" : "down", cmd);
		for (uint64_t end = now_ms() + 5000; __atomic_load_n(&events, __ATOMIC_RELAXED) == seen && now_ms() < end;)
			usleep(20000);
		cr_assert_gt(__atomic_load_n(&events, __ATOMIC_RELAXED), seen,
			     "%s did not reach the link callback within 5 s; log: %s", cmd, logtail);
	}
	unic_event_thread_stop();
	cr_assert_eq(unic_port_xstat_by_name(vio, "link_events", &le), 0);
	cr_assert_geq(le, 2, "link_events %" PRIu64 " after two changes", le);
	report("nic4: a cable pull and back: %u link callbacks, link_events %" PRIu64 "\n", events, le);
}
