/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A receiver in hybrid mode (lib/napi): poll port 0's rx queue while
 * packets come, arm its interrupt and sleep when they stop. Counts what it
 * receives and, at SIGINT or SIGTERM (or -t SECONDS), prints the packets,
 * the engine's counters and its CPU use. Copy it and put your packet
 * handling in on_packets().
 *
 * With a second port, a sender thread sends 64-byte frames on it at
 * -r PPS (default 1000), so that two linked ring ports make a whole test:
 *
 *   hybrid_rx --no-huge --no-pci --vdev ring0 --vdev ring1,peer=ring0 -t 1
 *   hybrid_rx -a 0000:03:00.0                  (a NIC on vfio-pci; traffic from outside)
 *
 * Build: cc -O2 hybrid_rx.c -o hybrid_rx $(pkg-config --cflags --libs libunic)
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/napi.h>
#include <unic/port.h>
#include <unic/pool.h>

static bool stop;                    /* read by unic_napi_run with acquire */
static struct unic_napi_ctx *ctx;    /* for the signal handler's wake */

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(ctx);             /* async-signal-safe: a sleeping context sees stop at once */
}

/* The queue's handler, in the context's thread: consume every packet. */
static uint16_t on_packets(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			   void *arg)
{
	uint64_t *count = arg;

	(void)port;
	(void)q;
	*count += n;                     /* your packet handling goes here */
	unic_pkt_free_bulk(pkts, n);
	return n;
}

struct sender {
	struct unic_port *port;
	struct unic_pool *pool;
	unsigned pps;
	uint64_t sent;
};

/* Traffic for trying it out: one 64-byte frame every 1/pps s on tx queue 0. */
static void *send_loop(void *arg)
{
	struct sender *s = arg;
	struct timespec gap = { .tv_sec = 0, .tv_nsec = 1000000000L / s->pps };

	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		struct unic_pkt *p = unic_pkt_alloc(s->pool);
		uint16_t lost;

		if (p != NULL) {
			memset(unic_pkt_append(p, 64), 0xff, 6);   /* broadcast destination */
			s->sent += unic_tx_burst_or_free(s->port, 0, &p, 1, &lost);
		}
		nanosleep(&gap, NULL);
	}
	unic_pool_cache_flush(s->pool);
	return NULL;
}

/* CPU time of the calling thread, ns. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int port_setup(struct unic_port *port, struct unic_pool *pool, enum unic_rx_mode mode)
{
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1, .rx_mode = mode };
	struct unic_rxq_conf rxc = { .sz = sizeof(rxc), .numa_node = -1, .pool = pool };
	struct unic_txq_conf txc = { .sz = sizeof(txc), .numa_node = -1 };
	struct unic_link link;
	int rc;

	if ((rc = unic_port_configure(port, &c)) || (rc = unic_port_rx_queue_setup(port, 0, &rxc)) ||
	    (rc = unic_port_tx_queue_setup(port, 0, &txc)) || (rc = unic_port_start(port)))
		return rc;
	if (unic_port_link_wait(port, 3000, &link) != 0)
		fprintf(stderr, "hybrid_rx: %s: link down; going on\n", unic_port_name(port));
	return 0;
}

int main(int argc, char **argv)
{
	struct unic_env_options opts;
	struct unic_env *env;
	struct unic_port *port[2];
	struct unic_pool *pool = NULL;
	struct sender snd = { .pps = 1000 };
	pthread_t thr;
	bool sending = false;
	uint64_t received = 0, t0, t1, cpu0, cpu1;
	unsigned seconds = 0, nb_ports, started = 0;
	int n, ret = 1, opt;

	n = unic_env_parse(&opts, argc, argv);
	if (n < 0)
		return 2;
	while ((opt = getopt(n, argv, "t:r:")) != -1) {
		if (opt == 't')
			seconds = (unsigned)strtoul(optarg, NULL, 10);
		else if (opt == 'r' && strtoul(optarg, NULL, 10) > 0 && strtoul(optarg, NULL, 10) <= 1000000)
			snd.pps = (unsigned)strtoul(optarg, NULL, 10);
		else {
			fprintf(stderr, "usage: %s [common options] [-t SECONDS] [-r PPS (1..1000000)]\n%s",
				argv[0], unic_env_usage());
			return 2;
		}
	}
	env = unic_env_create(&opts);
	if (env == NULL) {
		fprintf(stderr, "hybrid_rx: cannot set up: %s (the message above says why)\n", strerror(errno));
		return 1;
	}
	nb_ports = unic_env_ports(env, port, 2);
	if (nb_ports == 0) {
		fprintf(stderr, "hybrid_rx: no port (-a BDF, or --vdev ring0 --vdev ring1,peer=ring0)\n");
		goto out;
	}
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "rx", .mem = unic_env_mem(env),
					  .count = 8191, .cache_size = 256, .numa_node = -1 };
	pool = unic_pktpool_create(&pc);
	if (pool == NULL) {
		fprintf(stderr, "hybrid_rx: cannot create the packet pool: %s\n", strerror(errno));
		goto out;
	}
	/* Port 0 receives in hybrid mode (a port without rx interrupts falls
	 * back to polling, with a warning); port 1, if any, only sends. */
	for (; started < nb_ports; started++) {
		int rc = port_setup(port[started], pool, started == 0 ? UNIC_RX_MODE_HYBRID : UNIC_RX_MODE_POLL);

		if (rc) {
			fprintf(stderr, "hybrid_rx: cannot start %s: %s (the message above says why)\n",
				unic_port_name(port[started]), strerror(-rc));
			goto out;
		}
	}
	struct unic_napi_conf nc = { .sz = sizeof(nc), .name = "rx", .mode = UNIC_RX_MODE_HYBRID };
	ctx = unic_napi_ctx_create(&nc);
	if (ctx == NULL || unic_napi_queue_add(ctx, port[0], 0, 64, on_packets, &received) != 0) {
		fprintf(stderr, "hybrid_rx: cannot set up the receive engine (the message above says why)\n");
		goto out;
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);
	if (nb_ports == 2) {
		snd.port = port[1];
		snd.pool = pool;
		sending = pthread_create(&thr, NULL, send_loop, &snd) == 0;
	}
	printf("hybrid_rx: receiving on %s in hybrid mode%s%s, until SIGINT%s\n", unic_port_name(port[0]),
	       sending ? "; sending on " : "", sending ? unic_port_name(port[1]) : "", seconds ? " or -t" : "");
	fflush(stdout);
	alarm(seconds);
	t0 = unic_time_ns();
	cpu0 = thread_cpu_ns();
	unic_napi_run(ctx, &stop);      /* rounds until stop; sleeps when the queue is idle */
	cpu1 = thread_cpu_ns();
	t1 = unic_time_ns();
	if (sending)
		pthread_join(thr, NULL);

	struct unic_napi_ctx_stats st;

	unic_napi_ctx_stats_get(ctx, &st);
	if (sending)
		printf("hybrid_rx: sent %" PRIu64 " on %s (asked: %u a second, one frame per nanosleep)\n",
		       snd.sent, unic_port_name(port[1]), snd.pps);
	printf("hybrid_rx: received %" PRIu64 " on %s in %.2f s\n", received, unic_port_name(port[0]),
	       (double)(t1 - t0) / 1e9);
	printf("hybrid_rx: polls %" PRIu64 " (empty %" PRIu64 "), sleeps %" PRIu64 ", interrupts %" PRIu64
	       ", arm failures %" PRIu64 "\n", st.polls, st.empty_polls, st.sleeps, st.interrupts, st.arm_failures);
	printf("hybrid_rx: CPU use of the receiving thread %.2f%% of one core (%.1f ms over %.2f s)\n",
	       t1 > t0 ? 100.0 * (double)(cpu1 - cpu0) / (double)(t1 - t0) : 0.0, (double)(cpu1 - cpu0) / 1e6,
	       (double)(t1 - t0) / 1e9);
	ret = 0;
out:
	unic_napi_ctx_destroy(ctx);     /* releases the queue before the port stops */
	for (unsigned i = 0; i < started; i++) {
		unic_port_stop(port[i]);
		unic_port_close(port[i]);
	}
	unic_pool_destroy(pool);
	unic_env_destroy(env);
	return ret;
}
