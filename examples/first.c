/* A port pair, one burst each way. Build: cc first.c $(pkg-config --cflags --libs libunic) */
#include <stdio.h>
#include <unic/env.h>
#include <unic/port.h>

int main(int argc, char **argv)
{
	struct unic_env_options opts;
	struct unic_port *port[2];
	struct unic_pkt *pkts[32];

	if (unic_env_parse(&opts, argc, argv) < 0) return 2;   /* -a BDF, --vdev SPEC, --no-huge, ... */
	struct unic_env *env = unic_env_create(&opts);
	if (env == NULL || unic_env_ports(env, port, 2) != 2) return 1;
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "pkts", .mem = unic_env_mem(env),
					  .count = 4096, .cache_size = 64, .numa_node = -1 };
	struct unic_pool *pool = unic_pktpool_create(&pc);
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rxc = { .sz = sizeof(rxc), .numa_node = -1, .pool = pool };
	struct unic_txq_conf txc = { .sz = sizeof(txc), .numa_node = -1 };
	for (int i = 0; i < 2; i++)
		if (pool == NULL || unic_port_configure(port[i], &c) || unic_port_rx_queue_setup(port[i], 0, &rxc) ||
		    unic_port_tx_queue_setup(port[i], 0, &txc) || unic_port_start(port[i])) return 1;
	for (int i = 0; i < 2; i++) {   /* receive on port i, send on the other */
		uint16_t dropped, n = unic_rx_burst(port[i], 0, pkts, 32);
		uint16_t sent = unic_tx_burst_or_free(port[1 - i], 0, pkts, n, &dropped);
		printf("%s -> %s: %u received, %u sent, %u dropped\n", unic_port_name(port[i]),
		       unic_port_name(port[1 - i]), n, sent, dropped);
	}
	for (int i = 0; i < 2; i++) { unic_port_stop(port[i]); unic_port_close(port[i]); }
	unic_pool_destroy(pool);
	unic_env_destroy(env);
	return 0;
}
