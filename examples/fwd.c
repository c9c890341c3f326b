/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A skeleton forwarder: two ports, what port 0 receives goes out on port 1
 * and the other way round, in one polling thread, until SIGINT or SIGTERM
 * (or -t SECONDS). Copy it and put your packet handling where it says.
 *
 *   fwd [common options] [-t SECONDS]
 *   fwd --no-huge --no-pci --vdev null0 --vdev null1 -t 1   (no NIC needed)
 *   fwd -a 0000:03:00.0 -a 0000:03:00.1                     (two NICs on vfio-pci)
 *
 * Build: cc -O2 fwd.c -o fwd $(pkg-config --cflags --libs libunic)
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/env.h>
#include <unic/port.h>
#include <unic/pool.h>

#define BURST 32

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int port_setup(struct unic_port *port, struct unic_pool *pool)
{
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rxc = { .sz = sizeof(rxc), .numa_node = -1, .pool = pool };
	struct unic_txq_conf txc = { .sz = sizeof(txc), .numa_node = -1 };
	struct unic_link link;
	int rc;

	if ((rc = unic_port_configure(port, &c)) || (rc = unic_port_rx_queue_setup(port, 0, &rxc)) ||
	    (rc = unic_port_tx_queue_setup(port, 0, &txc)) || (rc = unic_port_start(port)))
		return rc;
	/* A NIC's link may take a few seconds to come up; virtual ports are up at once. */
	if (unic_port_link_wait(port, 3000, &link) != 0)
		fprintf(stderr, "fwd: %s: link down; forwarding anyway\n", unic_port_name(port));
	return 0;
}

int main(int argc, char **argv)
{
	struct unic_env_options opts;
	struct unic_env *env;
	struct unic_port *port[2];
	struct unic_pool *pool = NULL;
	uint64_t fwd[2] = { 0 }, dropped[2] = { 0 };
	unsigned seconds = 0;
	int n, ret = 1, started = 0;

	/* The options every unic program takes (-a, --vdev, --no-huge, ...);
	 * what is left is ours. */
	n = unic_env_parse(&opts, argc, argv);
	if (n < 0)
		return 2;
	if (n == 3 && strcmp(argv[1], "-t") == 0)
		seconds = (unsigned)strtoul(argv[2], NULL, 10);
	else if (n != 1) {
		fprintf(stderr, "usage: %s [common options] [-t SECONDS]\n%s", argv[0], unic_env_usage());
		return 2;
	}
	env = unic_env_create(&opts);
	if (env == NULL) {
		fprintf(stderr, "fwd: cannot set up: %s (the message above says why)\n", strerror(errno));
		return 1;
	}
	if (unic_env_ports(env, port, 2) != 2) {
		fprintf(stderr, "fwd: two ports needed (-a BDF twice, or --vdev null0 --vdev null1)\n");
		goto out;
	}
	/* Packets for both rx queues (descriptors), both tx queues and one burst
	 * in flight; 8191 covers the default descriptor counts of every driver. */
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "fwd", .mem = unic_env_mem(env),
					  .count = 8191, .cache_size = 256, .numa_node = -1 };
	pool = unic_pktpool_create(&pc);
	if (pool == NULL) {
		fprintf(stderr, "fwd: cannot create the packet pool: %s\n", strerror(errno));
		goto out;
	}
	for (; started < 2; started++) {
		int rc = port_setup(port[started], pool);

		if (rc) {
			fprintf(stderr, "fwd: cannot start %s: %s (the message above says why)\n",
				unic_port_name(port[started]), strerror(-rc));
			goto out;
		}
	}

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGALRM, on_signal);
	alarm(seconds);
	printf("fwd: %s <-> %s, until SIGINT%s\n", unic_port_name(port[0]), unic_port_name(port[1]),
	       seconds ? " or -t" : "");
	fflush(stdout);

	while (!stop) {
		for (int i = 0; i < 2; i++) {
			struct unic_pkt *pkts[BURST];
			uint16_t nb = unic_rx_burst(port[i], 0, pkts, BURST), lost;

			if (nb == 0)
				continue;
			/* Your packet handling goes here (unic_pkt_data(pkts[k]),
			 * pkts[k]->data_len). Then send, and free what is not sent. */
			fwd[i] += unic_tx_burst_or_free(port[1 - i], 0, pkts, nb, &lost);
			dropped[i] += lost;
		}
	}
	ret = 0;
	for (int i = 0; i < 2; i++) {
		struct unic_port_stats st;

		printf("fwd: %s -> %s: %" PRIu64 " forwarded, %" PRIu64 " dropped\n", unic_port_name(port[i]),
		       unic_port_name(port[1 - i]), fwd[i], dropped[i]);
		if (unic_port_stats_get(port[i], &st) == 0)
			printf("fwd: %s counters: ipackets %" PRIu64 " opackets %" PRIu64 " imissed %" PRIu64
			       " rx_nombuf %" PRIu64 "\n", unic_port_name(port[i]), st.ipackets, st.opackets,
			       st.imissed, st.rx_nombuf);
	}
out:
	/* Stop and close the ports before the pool goes: closing returns
	 * the buffers their queues hold. */
	for (int i = 0; i < started; i++) {
		unic_port_stop(port[i]);
		unic_port_close(port[i]);
	}
	unic_pool_destroy(pool);
	unic_env_destroy(env);
	return ret;
}
