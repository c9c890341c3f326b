/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Single-writer counters (unic/counter.h) read while they are written.
 *
 * Phase 1: one thread adds to a struct unic_counter, another reads it. Each
 * add is 2^32 + 1, so every value the counter really held has equal halves:
 * a torn read (half before, half after an add) shows as unequal halves.
 * The reader also checks that what it reads never goes back, and after the
 * join the value is exactly what was added.
 *
 * Phase 2: the same through the driver kit: one thread receives and sends
 * bursts on a null port (its queues count with the kit), another calls
 * unic_port_stats_get meanwhile and checks the core's sums: never going
 * back, per-queue equal to the totals, and exact after the join (packets
 * and bytes are two counters: read during a burst they may be a burst
 * apart, so only each one alone is checked then).
 *
 * Under ThreadSanitizer (build-tsan) any plain access in these paths is
 * reported as a race and fails the program.
 */
#include <unic/counter.h>
#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "stress.h"

#define ADD ((UINT64_C(1) << 32) + 1)
#define MAX_ADDS 100000000u  /* halves stay equal below 2^32 adds */

static struct unic_counter ctr;
static uint32_t done;             /* atomic: the writer finished */
static uint32_t reading;          /* atomic: the reader started */
static uint64_t deadline;

static void *adder_main(void *arg)
{
	uint64_t *adds = arg;
	unsigned spins = 0;

	while (!__atomic_load_n(&reading, __ATOMIC_ACQUIRE))
		stress_backoff(&spins);
	while (*adds < MAX_ADDS && ((*adds & 1023) != 0 || !stress_past(deadline))) {
		unic_counter_add(&ctr, ADD);
		++*adds;
	}
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *reader_main(void *arg)
{
	uint64_t last = 0, *reads = arg;

	__atomic_store_n(&reading, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		uint64_t v = unic_counter_read(&ctr);

		STRESS_CHECK((uint32_t)v == (uint32_t)(v >> 32),
			     "read %#" PRIx64 ": halves differ, a torn read", v);
		STRESS_CHECK(v >= last, "read %" PRIu64 " after %" PRIu64 ": went back", v, last);
		last = v;
		++*reads;
	}
	return NULL;
}

static void phase_counter(void)
{
	uint64_t adds = 0, reads = 0, v;
	pthread_t tid[2];

	deadline = stress_deadline(2);
	stress_spawn(&tid[0], 1, adder_main, &adds, 0);
	stress_spawn(&tid[1], 1, reader_main, &reads, 0);
	stress_join(tid, 2);
	v = unic_counter_read(&ctr);
	STRESS_CHECK(v == adds * ADD, "after %" PRIu64 " adds the counter holds %" PRIu64
		     ", expected %" PRIu64, adds, v, adds * ADD);
	printf("%s: counter: %" PRIu64 " adds, %" PRIu64 " concurrent reads\n", stress_name, adds,
	       reads);
}

/* ---- phase 2: a null port's queues and the core's sums ------------------ */

static struct unic_port *port;
static uint32_t port_done;

static void *burster_main(void *arg)
{
	uint64_t *got = arg;
	struct unic_pkt *pkts[32];

	while (!stress_past(deadline)) {
		uint16_t n = unic_rx_burst(port, 0, pkts, 32);

		*got += n;
		unic_tx_burst(port, 0, pkts, n); /* the null port frees them */
	}
	__atomic_store_n(&port_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *stats_main(void *arg)
{
	uint64_t last = 0, last_bytes = 0, *reads = arg;
	struct unic_port_stats st;

	while (!__atomic_load_n(&port_done, __ATOMIC_ACQUIRE)) {
		int rc = unic_port_stats_get(port, &st);

		STRESS_CHECK(rc == 0, "unic_port_stats_get: %s", strerror(-rc));
		STRESS_CHECK(st.ipackets >= last, "ipackets %" PRIu64 " after %" PRIu64 ": went back",
			     st.ipackets, last);
		STRESS_CHECK(st.ipackets == st.q_ipackets[0] && st.ibytes == st.q_ibytes[0],
			     "totals %" PRIu64 "/%" PRIu64 " are not queue 0's %" PRIu64 "/%" PRIu64,
			     st.ipackets, st.ibytes, st.q_ipackets[0], st.q_ibytes[0]);
		/* Two counters read one after the other may be a burst
		 * apart; each alone is never torn. */
		STRESS_CHECK(st.ibytes % 64 == 0, "%" PRIu64 " bytes: not whole 64-byte packets",
			     st.ibytes);
		STRESS_CHECK(st.ibytes >= last_bytes, "ibytes %" PRIu64 " after %" PRIu64 ": went back",
			     st.ibytes, last_bytes);
		last = st.ipackets;
		last_bytes = st.ibytes;
		++*reads;
	}
	return NULL;
}

static void phase_port(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "stress_counter", .count = 1024,
					  .cache_size = 0, .numa_node = -1 };
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 1, .numa_node = -1 };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 1, .numa_node = -1 };
	struct unic_port_stats st;
	uint64_t got = 0, reads = 0;
	struct unic_mem *mem;
	struct unic_pool *pool;
	pthread_t tid[2];
	int err;

	mem = unic_mem_create(&mc);
	STRESS_CHECK(mem != NULL, "unic_mem_create (no hugepages): %s", strerror(errno));
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	STRESS_CHECK(pool != NULL, "unic_pktpool_create: %s", strerror(errno));
	rc.pool = pool;
	err = unic_vdev_create("null0,size=64", &port);
	STRESS_CHECK(err == 0, "unic_vdev_create(null0): %s", strerror(-err));
	STRESS_CHECK(unic_port_configure(port, &conf) == 0 &&
		     unic_port_tx_queue_setup(port, 0, &tc) == 0 &&
		     unic_port_rx_queue_setup(port, 0, &rc) == 0 && unic_port_start(port) == 0,
		     "setting up null0 failed");
	deadline = stress_deadline(2);
	stress_spawn(&tid[0], 1, burster_main, &got, 0);
	stress_spawn(&tid[1], 1, stats_main, &reads, 0);
	stress_join(tid, 2);
	STRESS_CHECK(unic_port_stats_get(port, &st) == 0, "unic_port_stats_get");
	STRESS_CHECK(st.ipackets == got && st.opackets == got && st.ibytes == got * 64,
		     "received and sent %" PRIu64 ", stats say %" PRIu64 " in, %" PRIu64 " out", got,
		     st.ipackets, st.opackets);
	STRESS_CHECK(unic_port_stop(port) == 0 && unic_port_close(port) == 0 &&
		     unic_port_detach(port) == 0, "stopping null0 failed");
	unic_port_put(port);
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
	printf("%s: port: %" PRIu64 " packets, %" PRIu64 " concurrent stats reads\n", stress_name,
	       got, reads);
}

int main(void)
{
	stress_name = "stress_counter";
	stress_watchdog();
	phase_counter();
	phase_port();
	return 0;
}
