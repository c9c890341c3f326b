/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stop, device loss and detach of a port while another thread forwards into
 * it, many times over (plain C, no Criterion, so it also runs under
 * ThreadSanitizer).
 *
 * A napi context in poll mode, run by its own thread, polls a null port (the
 * source) and sends every burst into the target port T; it also polls T's
 * own rx queue. The main thread cycles T: wait until packets went into T,
 * then one of
 *   stop   unic_port_stop, start again, claim the queues again;
 *   lost   unic_port_device_lost (then the "bus" takes the registers away,
 *          as it unmaps BAR0), detach, and a new T;
 *   detach unic_port_detach while started, and a new T.
 * The target kinds: the null port, a ring pair (T's traffic arrives at its
 * peer, which sends it back into T's rx queue), a memif client (its peer a
 * memif server of this process that sends everything back; a stop
 * disconnects and a start reconnects), and an e1000e whose fast
 * path is the real driver's (pmd/e1000e/e1000e_rxtx.c) over rings and
 * registers in ordinary memory; its stop drains and its queue release frees
 * the rings as the driver's do, and "device loss" unmaps its registers.
 *
 * Checks, any of which fails the run with a message:
 *  - packets went into T before every stop (forwarding made progress);
 *  - T's opackets, read after each stop, equal what the forwarder saw T
 *    accept (no burst ran into a stopping port unseen);
 *  - every claim is taken again after a start;
 *  - at the end the pool has as many packets in use as before (nothing
 *    leaked, nothing freed twice);
 * and, under a sanitizer, no report: a burst inside a port whose queues are
 * being freed or whose registers are unmapped is a use-after-free, a write
 * to unmapped memory or a data race.
 *
 * Usage: stress_port_stop [cycles per kind] (default 1000).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/log.h>
#include <unic/mem.h>
#include <unic/napi.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "../../pmd/e1000e/e1000e_priv.h"
#include "fake_ops.h"

#define BURST 32
#define NB_DESC 64
#define PROGRESS_TIMEOUT_NS (20ull * 1000000000ull)

static void fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "stress_port_stop: FAILED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

/* ---- a fake-register e1000e ----------------------------------------------------
 *
 * The driver's own fast path over rings in ordinary memory; the "device"
 * completes every posted descriptor at the next burst (it reads its tail
 * register, TDT, and writes DD back), so transmit keeps flowing. Its stop
 * drains the rings (frees the buffers) as e1000e_stop does, its queue release
 * frees the rings as the driver's does, and fake_e1000e_unmap() takes the
 * register window away as the bus unmaps BAR0 after a device loss.
 */
struct fake_e1000e {
	uint8_t *bar;                     /* E1000E_BAR0_LEN of anonymous memory */
	struct e1000e_rxq rxq;
	struct e1000e_txq txq;
	struct unic_pool *pool;
};

static struct fake_e1000e *fake_priv(struct unic_port *port)
{
	return unic_port_priv(port);
}

static void fake_info(struct unic_port *port, struct unic_port_info *info)
{
	(void)port;
	snprintf(info->driver, sizeof(info->driver), "fake_e1000e");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "memory");
	info->max_rxq = info->max_txq = 1;
	info->rx_desc_min = info->tx_desc_min = 32;
	info->rx_desc_max = info->tx_desc_max = 4096;
	info->rx_desc_align = info->tx_desc_align = 8;
	info->rx_desc_default = info->tx_desc_default = NB_DESC;
	info->min_mtu = 68;
	info->max_mtu = 1500;
}

static void fake_rxq_free(struct e1000e_rxq *rxq)
{
	e1000e_rxq_drain(rxq);
	free(rxq->sw_ring);
	free((void *)(uintptr_t)rxq->ring);
	memset(rxq, 0, sizeof(*rxq));
}

static void fake_txq_free(struct e1000e_txq *txq)
{
	e1000e_txq_drain(txq);
	free(txq->sw_ring);
	free(txq->rs_idx);
	free((void *)(uintptr_t)txq->ring);
	memset(txq, 0, sizeof(*txq));
}

static int fake_rxq_setup(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *conf,
			  void **out)
{
	struct fake_e1000e *f = fake_priv(port);
	struct e1000e_rxq *rxq = &f->rxq;

	fake_rxq_free(rxq);
	rxq->sw_ring = calloc(conf->nb_desc, sizeof(*rxq->sw_ring));
	rxq->ring = aligned_alloc(128, conf->nb_desc * sizeof(union e1000e_rx_desc));
	if (rxq->sw_ring == NULL || rxq->ring == NULL) {
		fake_rxq_free(rxq);
		return -ENOMEM;
	}
	memset((void *)(uintptr_t)rxq->ring, 0, conf->nb_desc * sizeof(union e1000e_rx_desc));
	rxq->nb_desc = conf->nb_desc;
	rxq->pool = conf->pool;
	rxq->buf_size = 2048;
	rxq->headroom = conf->pool->pkt_headroom;
	rxq->port_id = unic_port_id(port);
	rxq->qid = q;
	rxq->irq_fd = -1;
	rxq->rdt = (volatile uint32_t *)(f->bar + E1000E_RDT(q));
	*out = rxq;
	return 0;
}

static void fake_rxq_release(struct unic_port *port, uint16_t q, void *rxq)
{
	(void)q;
	(void)rxq;
	fake_rxq_free(&fake_priv(port)->rxq);
}

static int fake_txq_setup(struct unic_port *port, uint16_t q, const struct unic_txq_conf *conf,
			  void **out)
{
	struct fake_e1000e *f = fake_priv(port);
	struct e1000e_txq *txq = &f->txq;

	fake_txq_free(txq);
	txq->sw_ring = calloc(conf->nb_desc, sizeof(*txq->sw_ring));
	txq->rs_idx = calloc(conf->nb_desc, sizeof(*txq->rs_idx));
	txq->ring = aligned_alloc(128, conf->nb_desc * sizeof(union e1000e_tx_desc));
	if (txq->sw_ring == NULL || txq->rs_idx == NULL || txq->ring == NULL) {
		fake_txq_free(txq);
		return -ENOMEM;
	}
	memset((void *)(uintptr_t)txq->ring, 0, conf->nb_desc * sizeof(union e1000e_tx_desc));
	txq->nb_desc = conf->nb_desc;
	txq->qid = q;
	txq->tdt = (volatile uint32_t *)(f->bar + E1000E_TDT(q));
	*out = txq;
	return 0;
}

static void fake_txq_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)q;
	(void)txq;
	fake_txq_free(&fake_priv(port)->txq);
}

static int fake_start(struct unic_port *port)
{
	struct fake_e1000e *f = fake_priv(port);

	if (f->bar == NULL)
		return -ENODEV;
	memset(f->bar, 0, E1000E_BAR0_LEN);
	memset((void *)(uintptr_t)f->txq.ring, 0, f->txq.nb_desc * sizeof(union e1000e_tx_desc));
	memset((void *)(uintptr_t)f->rxq.ring, 0, f->rxq.nb_desc * sizeof(union e1000e_rx_desc));
	return e1000e_rxq_fill(&f->rxq);
}

static void fake_stop(struct unic_port *port)
{
	struct fake_e1000e *f = fake_priv(port);

	/* As e1000e_stop: every buffer the rings hold goes back to the pool. */
	e1000e_rxq_drain(&f->rxq);
	e1000e_txq_drain(&f->txq);
}

static void fake_close(struct unic_port *port)
{
	struct fake_e1000e *f = fake_priv(port);

	fake_rxq_free(&f->rxq);
	fake_txq_free(&f->txq);
	if (f->bar)
		munmap(f->bar, E1000E_BAR0_LEN);
	f->bar = NULL;
}

static void fake_e1000e_unmap(struct unic_port *port)
{
	struct fake_e1000e *f = fake_priv(port);

	munmap(f->bar, E1000E_BAR0_LEN);
	f->bar = NULL;
}

static int fake_stats(struct unic_port *port, struct unic_port_stats *st)
{
	struct fake_e1000e *f = fake_priv(port);

	st->opackets = unic_counter_read(&f->txq.cnt.packets);
	st->ipackets = unic_counter_read(&f->rxq.cnt.packets);
	return 0;
}

/* The device: everything posted up to its tail register is sent (DD). */
static uint16_t fake_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct e1000e_txq *txq = q;
	uint32_t tail = *txq->tdt;

	for (uint16_t i = txq->next_to_clean; i != tail; i = (uint16_t)((i + 1) % txq->nb_desc))
		txq->ring[i].data.status_popts |= E1000E_TXD_STAT_DD;
	return e1000e_tx_burst(q, pkts, n);
}

static const struct unic_port_ops fake_ops = {
	.info_get = fake_info,
	.configure = fake_op_configure,
	.rx_queue_setup = fake_rxq_setup,
	.rx_queue_release = fake_rxq_release,
	.tx_queue_setup = fake_txq_setup,
	.tx_queue_release = fake_txq_release,
	.start = fake_start,
	.stop = fake_stop,
	.close = fake_close,
	.stats_get = fake_stats,
	.rx_burst = e1000e_rx_burst,
	.tx_burst = fake_tx_burst,
	.rx_pending = e1000e_rx_pending,
	.tx_reclaim = e1000e_tx_reclaim,
};

static void fake_setup(struct unic_port *port)
{
	port->ops = &fake_ops;
}

static struct unic_port *fake_e1000e_create(void)
{
	struct unic_port *port = unic_port_alloc(sizeof(struct fake_e1000e), "fake_e1000e%d", fake_setup);
	struct fake_e1000e *f;

	if (port == NULL)
		fail("fake e1000e: unic_port_alloc: %s", strerror(errno));
	f = fake_priv(port);
	f->bar = mmap(NULL, E1000E_BAR0_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->bar == MAP_FAILED)
		fail("fake e1000e: mmap: %s", strerror(errno));
	if (unic_port_register(port) != 0)
		fail("fake e1000e: cannot register the port");
	return port;
}

/* ---- the run --------------------------------------------------------------------- */

enum kind { K_NULL, K_RING, K_E1000E, K_MEMIF };
static const char *const kind_names[] = { "null", "ring", "e1000e (fake registers)", "memif (client)" };

/* One target port from its creation to its detach. */
struct inst {
	struct unic_port *port;           /* T */
	struct unic_port *peer;           /* ring: T's peer, else NULL */
	uint64_t tx_ok;                   /* the forwarder: packets T took (relaxed) */
};

static struct unic_mem *mem;
static struct unic_pool *pool;
static struct unic_port *src;
static struct unic_napi_ctx *ctx;
static struct inst *target;            /* atomic: the forwarder's target */
static bool stop_fwd;
static uint64_t fwd_in, fwd_refused, sunk;  /* the forwarder's */
static unsigned next_name;

static void cnt(uint64_t *c, uint64_t n)
{
	unic_store_relaxed(c, unic_load_relaxed(c) + n);
}

/* The source's packets go into T (as l2fwd's handler does); what T does not
 * take is freed and counted. */
static uint16_t fwd_handle(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			   void *arg)
{
	struct inst *in = __atomic_load_n(&target, __ATOMIC_ACQUIRE);
	uint16_t sent;

	(void)port;
	(void)q;
	(void)arg;
	cnt(&fwd_in, n);
	sent = unic_tx_burst(in->port, 0, pkts, n);
	cnt(&in->tx_ok, sent);
	if (sent < n) {
		unic_pkt_free_bulk(pkts + sent, (uint32_t)(n - sent));
		cnt(&fwd_refused, (uint64_t)(n - sent));
	}
	return n;
}

/* T's receive side (and anything else that ends here): counted, freed. */
static uint16_t sink_handle(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			    void *arg)
{
	(void)port;
	(void)q;
	(void)arg;
	cnt(&sunk, n);
	unic_pkt_free_bulk(pkts, n);
	return n;
}

/* Ring: what arrives at T's peer goes back into T's rx queue. */
static uint16_t bounce_handle(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			      void *arg)
{
	uint16_t sent = unic_tx_burst(port, q, pkts, n);

	(void)arg;
	if (sent < n)
		unic_pkt_free_bulk(pkts + sent, (uint32_t)(n - sent));
	return n;
}

static void *fwd_main(void *arg)
{
	int rc;

	(void)arg;
	rc = unic_napi_run(ctx, &stop_fwd);
	unic_pool_cache_flush(pool);
	if (rc != 0)
		fail("unic_napi_run: %s", strerror(-rc));
	return NULL;
}

static void port_bring_up(struct unic_port *p)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1,
				       .rx_mode = UNIC_RX_MODE_POLL };
	struct unic_rxq_conf rxc = { .sz = sizeof(rxc), .nb_desc = NB_DESC, .numa_node = -1, .pool = pool };
	struct unic_txq_conf txc = { .sz = sizeof(txc), .nb_desc = NB_DESC, .numa_node = -1 };
	int rc;

	if ((rc = unic_port_configure(p, &conf)) != 0 ||
	    (rc = unic_port_rx_queue_setup(p, 0, &rxc)) != 0 ||
	    (rc = unic_port_tx_queue_setup(p, 0, &txc)) != 0 ||
	    (rc = unic_port_start(p)) != 0)
		fail("%s: bring-up: %s", unic_port_name(p), strerror(-rc));
}

/* Claim T's queues (and the peer's) for the forwarder; every claim must
 * succeed. Returns once the context applied them (a round boundary). */
static void claim(struct inst *in, bool peer_too)
{
	int rc;

	if ((rc = unic_napi_txq_add(ctx, in->port, 0)) != 0 ||
	    (rc = unic_napi_queue_add(ctx, in->port, 0, BURST, sink_handle, in)) != 0)
		fail("%s: claiming its queues: %s", unic_port_name(in->port), strerror(-rc));
	if (peer_too && in->peer &&
	    ((rc = unic_napi_txq_add(ctx, in->peer, 0)) != 0 ||
	     (rc = unic_napi_queue_add(ctx, in->peer, 0, BURST, bounce_handle, in)) != 0))
		fail("%s: claiming its queues: %s", unic_port_name(in->peer), strerror(-rc));
}

/*
 * The forwarder's round hook: let the main thread in now and then. On a
 * loaded 2-core machine a poll-mode thread that never gives up its core
 * makes each of the main thread's waits for a round boundary last a time
 * slice (1000 cycles took a minute). Three rounds in four still run back to
 * back, so stops keep landing inside bursts (the run finds the old order's
 * races under TSan every time).
 */
static void yield_hook(struct unic_napi_ctx *c, void *arg)
{
	static unsigned rounds;  /* the forwarder's */

	(void)c;
	(void)arg;
	if ((++rounds & 3) == 0)
		sched_yield();
}

static struct inst *inst_new(enum kind k)
{
	struct inst *in = calloc(1, sizeof(*in));
	char spec[32];
	int rc;

	if (in == NULL)
		fail("out of memory");
	switch (k) {
	case K_NULL:
		snprintf(spec, sizeof(spec), "null%u", 100 + next_name++);
		if ((rc = unic_vdev_create(spec, &in->port)) != 0)
			fail("%s: %s", spec, strerror(-rc));
		break;
	case K_RING: {
		char peer[80];

		snprintf(spec, sizeof(spec), "ring%u", 100 + next_name++);
		if ((rc = unic_vdev_create(spec, &in->port)) != 0)
			fail("%s: %s", spec, strerror(-rc));
		snprintf(peer, sizeof(peer), "ring%u,peer=%s", 100 + next_name++, spec);
		if ((rc = unic_vdev_create(peer, &in->peer)) != 0)
			fail("%s: %s", peer, strerror(-rc));
		break;
	}
	case K_E1000E:
		in->port = fake_e1000e_create();
		break;
	case K_MEMIF: {
		char peer[128], sock[48];

		/* T is a client; its peer, a server of this process on its own
		 * abstract socket, sends what it receives back into T. */
		snprintf(sock, sizeof(sock), "unic-stress-%d-%u", (int)getpid(), next_name);
		snprintf(peer, sizeof(peer), "memif%u,role=server,rsize=8,socket=%s", 100 + next_name++, sock);
		if ((rc = unic_vdev_create(peer, &in->peer)) != 0)
			fail("%s: %s", peer, strerror(-rc));
		snprintf(spec, sizeof(spec), "memif%u,rsize=8,socket=", 100 + next_name++);
		{
			char full[128];

			snprintf(full, sizeof(full), "%s%s", spec, sock);
			if ((rc = unic_vdev_create(full, &in->port)) != 0)
				fail("%s: %s", full, strerror(-rc));
		}
		break;
	}
	}
	port_bring_up(in->port);
	if (in->peer)
		port_bring_up(in->peer);
	return in;
}

/* T's opackets against what the forwarder saw it take. After a stop no
 * burst can be inside T, so the two must agree exactly. */
static void check_opackets(struct inst *in, unsigned cycle, const char *op)
{
	struct unic_port_stats st;
	uint64_t seen = unic_load_relaxed(&in->tx_ok);
	int rc = unic_port_stats_get(in->port, &st);

	if (rc != 0)
		fail("cycle %u (%s): stats of %s: %s", cycle, op, unic_port_name(in->port), strerror(-rc));
	if (st.opackets != seen)
		fail("cycle %u (%s): %s counts %" PRIu64 " packets sent, the forwarder saw it take %" PRIu64,
		     cycle, op, unic_port_name(in->port), st.opackets, seen);
}

static void wait_progress(struct inst *in, uint64_t from, unsigned cycle)
{
	uint64_t t0 = unic_time_ns();

	while (unic_load_relaxed(&in->tx_ok) < from + BURST) {
		if (unic_time_ns() - t0 > PROGRESS_TIMEOUT_NS)
			fail("cycle %u: %s took %" PRIu64 " packets in 20 s (at least %u expected): forwarding stalled",
			     cycle, unic_port_name(in->port), unic_load_relaxed(&in->tx_ok) - from, BURST);
		sched_yield();
	}
}

/* Detach (after the stop or loss that left it stopped) and drop the ports
 * of @p in; the forwarder already looks at another target. */
static void inst_free(struct inst *in)
{
	unic_port_detach(in->port);
	unic_port_put(in->port);
	if (in->peer) {
		unic_port_detach(in->peer);
		unic_port_put(in->peer);
	}
	free(in);
}

/* Point the forwarder at @p next and make sure it no longer uses the old
 * target: the claims on the new one are applied at a round boundary, after
 * which every handler call loads the new pointer. */
static void retarget(struct inst *old, struct inst *next)
{
	__atomic_store_n(&target, next, __ATOMIC_RELEASE);
	claim(next, true);
	if (old)
		inst_free(old);
}

static void source_add(void)
{
	int rc = unic_napi_queue_add(ctx, src, 0, BURST, fwd_handle, NULL);

	if (rc != 0)
		fail("claiming the source's rx queue: %s", strerror(-rc));
}

static uint64_t run_kind(enum kind k, unsigned cycles)
{
	struct inst *in = inst_new(k);
	unsigned nstop = 0, nlost = 0, ndetach = 0;
	uint64_t total = 0;
	int rc;

	/* The target is in place before the source's handler first runs. */
	retarget(NULL, in);
	source_add();
	for (unsigned c = 0; c < cycles; c++) {
		uint64_t from = unic_load_relaxed(&in->tx_ok);
		struct inst *next;

		wait_progress(in, from, c);
		switch (c % 3) {
		case 0: /* stop, start, claim again */
			if ((rc = unic_port_stop(in->port)) != 0)
				fail("cycle %u: stop %s: %s", c, unic_port_name(in->port), strerror(-rc));
			check_opackets(in, c, "stop");
			if ((rc = unic_port_start(in->port)) != 0)
				fail("cycle %u: start %s again: %s", c, unic_port_name(in->port), strerror(-rc));
			claim(in, false);
			nstop++;
			break;
		case 1: /* the device is lost; the bus takes the registers */
			if ((rc = unic_port_device_lost(in->port, true)) != 0)
				fail("cycle %u: device_lost %s: %s", c, unic_port_name(in->port), strerror(-rc));
			if (unic_port_state(in->port) != UNIC_PORT_READY)
				fail("cycle %u: %s is %s after its device was lost (stopped expected)", c,
				     unic_port_name(in->port), unic_port_state_name(unic_port_state(in->port)));
			check_opackets(in, c, "device lost");
			if (k == K_E1000E)
				fake_e1000e_unmap(in->port);
			total += unic_load_relaxed(&in->tx_ok);
			next = inst_new(k);
			retarget(in, next);
			in = next;
			nlost++;
			break;
		default: /* detach while started */
			if ((rc = unic_port_detach(in->port)) != 0)
				fail("cycle %u: detach %s: %s", c, unic_port_name(in->port), strerror(-rc));
			total += unic_load_relaxed(&in->tx_ok);
			next = inst_new(k);
			retarget(in, next);
			in = next;
			ndetach++;
			break;
		}
	}
	/* The source leaves the context first: nothing sends into T after. */
	if ((rc = unic_napi_queue_remove(ctx, src, 0)) != 0)
		fail("removing the source's rx queue: %s", strerror(-rc));
	if ((rc = unic_port_stop(in->port)) != 0)
		fail("final stop of %s: %s", unic_port_name(in->port), strerror(-rc));
	check_opackets(in, cycles, "final stop");
	total += unic_load_relaxed(&in->tx_ok);
	__atomic_store_n(&target, NULL, __ATOMIC_RELEASE);
	inst_free(in);
	printf("stress_port_stop: %-24s %u cycles (%u stops, %u device losses, %u detaches under traffic), %" PRIu64 " packets forwarded into it\n",
	       kind_names[k], cycles, nstop, nlost, ndetach, total);
	fflush(stdout);
	return total;
}

int main(int argc, char **argv)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "stress", .count = 4096,
					  .cache_size = 64, .numa_node = -1 };
	struct unic_napi_conf nc = { .sz = sizeof(nc), .name = "fwd", .mode = UNIC_RX_MODE_POLL,
				     .budget = 4 * BURST };
	unsigned cycles = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000;
	uint64_t forwarded = 0, in_total, t0 = unic_time_ns();
	uint32_t base, now;
	pthread_t th;
	int rc;

	unic_log_set_level(-1, UNIC_LOG_ERR);
	mem = unic_mem_create(&mc);
	if (mem == NULL)
		fail("memory context: %s", strerror(errno));
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	if (pool == NULL)
		fail("packet pool: %s", strerror(errno));
	base = unic_pool_in_use_count(pool);
	if ((rc = unic_vdev_create("null99", &src)) != 0)
		fail("source port: %s", strerror(-rc));
	port_bring_up(src);
	ctx = unic_napi_ctx_create(&nc);
	if (ctx == NULL)
		fail("napi context: %s", strerror(errno));
	if (unic_napi_hooks_set(ctx, &(struct unic_napi_hooks){ .sz = sizeof(struct unic_napi_hooks),
								 .round = yield_hook }) != 0)
		fail("napi hooks");
	if (pthread_create(&th, NULL, fwd_main, NULL) != 0)
		fail("pthread_create");

	for (int k = K_NULL; k <= K_MEMIF; k++)
		forwarded += run_kind((enum kind)k, cycles);

	__atomic_store_n(&stop_fwd, true, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	unic_napi_ctx_destroy(ctx);
	unic_port_stop(src);
	unic_port_detach(src);
	unic_port_put(src);
	unic_pool_cache_flush(pool);

	/* What came in from the source went into a target or was refused. */
	in_total = unic_load_relaxed(&fwd_in);
	if (in_total != forwarded + unic_load_relaxed(&fwd_refused))
		fail("the source handed over %" PRIu64 " packets; %" PRIu64 " went into targets and %" PRIu64 " were refused",
		     in_total, forwarded, unic_load_relaxed(&fwd_refused));
	now = unic_pool_in_use_count(pool);
	if (now != base)
		fail("the pool has %u packets in use at the end, %u at the start: %s", now, base,
		     now > base ? "packets leaked" : "packets freed twice");
	printf("stress_port_stop: ok: %u cycles x 4 port kinds in %.1f s; %" PRIu64 " packets forwarded, %" PRIu64 " refused by stopped ports, %" PRIu64 " received and freed; pool back to %u in use\n",
	       cycles, (double)(unic_time_ns() - t0) / 1e9, forwarded, unic_load_relaxed(&fwd_refused),
	       unic_load_relaxed(&sunk), now);
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
	return 0;
}
