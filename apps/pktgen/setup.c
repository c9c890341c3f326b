/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: set-up: the ports the streams use, one packet pool per port, the
 * streams' rates and receive side, the TSC check.
 */
#include "pktgen.h"

/* @p port's packet pool. */
struct unic_pool *pg_port_pool(const struct pg_app *a, const struct unic_port *port)
{
	for (unsigned k = 0; k < a->nb_ports; k++)
		if (a->ports[k] == port)
			return a->pools[k];
	return NULL;
}

static void add_port(struct pg_app *a, struct unic_port *p, int idx)
{
	for (unsigned k = 0; k < a->nb_ports; k++)
		if (a->ports[k] == p)
			return;
	a->ports[a->nb_ports] = p;
	a->port_idx[a->nb_ports++] = idx;
}

/* The streams' generators, their tx and rx ports (each once), their MACs. */
int pg_setup_streams(struct pg_app *a, struct unic_port **ports)
{
	a->nb_sr = a->o.nb_streams;
	for (unsigned i = 0; i < a->nb_sr; i++) {
		const struct pg_stream_spec *sp = &a->o.streams[i];
		struct pg_stream_run *sr = &a->sr[i];
		struct pg_txp *t = NULL;
		unsigned k;

		/* The single-stream run's id is its tx port (as before streams);
		 * with --stream, the stream's index. */
		pg_stream_run_init(sr, sp, a->nb_sr == 1 && a->o.legacy_stream ? (uint16_t)sp->tx_port
									     : (uint16_t)i);
		for (k = 0; k < a->nb_txp && a->txp[k].idx != sp->tx_port; k++)
			;
		t = &a->txp[k];
		if (k == a->nb_txp) {
			a->nb_txp++;
			t->idx = sp->tx_port;
			t->port = ports[sp->tx_port];
		}
		t->streams[t->nb_streams++] = i;
		for (k = 0; k < a->nb_rxp && a->rxp[k].idx != sp->rx_port; k++)
			;
		if (k == a->nb_rxp) {
			a->rxp[k].idx = sp->rx_port;
			a->rxp[k].port = ports[sp->rx_port];
			a->nb_rxp++;
		}
		add_port(a, ports[sp->tx_port], sp->tx_port);
		add_port(a, ports[sp->rx_port], sp->rx_port);
		/* MACs: the stream's own, else --src-mac/--dst-mac of its tx port,
		 * else the tx port's address and the rx port's. */
		memset(sr->tmpl.dst_mac, 0xff, 6);
		if (sp->src_mac_given)
			memcpy(sr->tmpl.src_mac, sp->src_mac, 6);
		else if (a->o.src_mac_set & (1ull << sp->tx_port))
			memcpy(sr->tmpl.src_mac, a->o.src_mac[sp->tx_port], 6);
		else
			unic_port_mac_get(ports[sp->tx_port], sr->tmpl.src_mac);
		if (sp->dst_mac_given)
			memcpy(sr->tmpl.dst_mac, sp->dst_mac, 6);
		else if (a->o.dst_mac_set & (1ull << sp->tx_port))
			memcpy(sr->tmpl.dst_mac, a->o.dst_mac[sp->tx_port], 6);
		else
			unic_port_mac_get(ports[sp->rx_port], sr->tmpl.dst_mac);
	}
	pg_arp_init(&a->arp);
	for (unsigned i = 0; a->o.arp_reply && i < a->nb_sr; i++) {
		const struct pg_stream_spec *sp = a->sr[i].spec;
		uint8_t rx_mac[6];

		unic_port_mac_get(ports[sp->rx_port], rx_mac);
		if (pg_arp_add(&a->arp, sp->tx_port, sp->ipv6, &sp->src_ip, a->sr[i].tmpl.src_mac) ||
		    pg_arp_add(&a->arp, sp->rx_port, sp->ipv6, &sp->dst_ip, rx_mac)) {
			fprintf(stderr, "unic-pktgen: error: option --arp-reply: more than %d address ranges to answer for\n",
				PG_ARP_MAX);
			return -ENOSPC;
		}
	}
	if (a->nb_txp > 1 && a->o.write_tx) {
		fprintf(stderr, "unic-pktgen: error: option --write-tx: the streams send on %u tx ports; --write-tx records one (give streams on one tx port, or --write-rx)\n",
			a->nb_txp);
		return -EINVAL;
	}
	return 0;
}

/* Each stream's pacing: its share of --rate; and no tx port's streams past
 * its link (when the link speed is known). */
int pg_streams_rates_init(struct pg_app *a, char *err, size_t errlen)
{
	for (unsigned i = 0; i < a->nb_sr; i++) {
		struct pg_stream_run *sr = &a->sr[i];
		struct pg_rate_spec rs = a->o.rate;
		uint32_t link = 0;

		for (unsigned k = 0; k < a->nb_txp; k++)
			if (a->txp[k].idx == sr->spec->tx_port)
				link = a->txp[k].link_mbps;
		rs.value = rs.value * sr->spec->share / 100;
		if (pg_rate_init(&sr->rate, &rs, a->hz, link, err, errlen))
			return -EINVAL;
	}
	if (a->o.rate.unit == PG_RATE_NONE || a->cap.nb)
		return 0;
	for (unsigned k = 0; k < a->nb_txp; k++) {
		const struct pg_txp *t = &a->txp[k];

		if (pg_streams_link_check(a->sr, t->streams, t->nb_streams, t->idx, unic_port_name(t->port),
					  t->link_mbps, err, errlen))
			return -EINVAL;
	}
	return 0;
}

/* Several tx queues: each thread paces its stream's share over the queues
 * (the whole was checked against the link). */
void pg_streams_rates_split(struct pg_app *a)
{
	char err[256];

	for (unsigned i = 0; a->o.txq > 1 && i < a->nb_sr; i++) {
		struct pg_rate_spec rs = pg_rate_share(&a->o.rate, a->sr[i].spec->share / a->o.txq);

		pg_rate_init(&a->sr[i].rate, &rs, a->hz, pg_stream_link(a, &a->sr[i]), err, sizeof(err));
	}
}

/* The receive side: a stream table entry per stream (the first is built
 * in), and the per-stream CSV state. */
int pg_streams_rx_init(struct pg_app *a, char *err, size_t errlen)
{
	pg_rxstats_init(&a->rs, a->sr[0].id);
	for (unsigned i = 1; i < a->nb_sr; i++) {
		int r = pg_rxstats_add_stream(&a->rs, a->sr[i].id);

		if (r < 0) {
			snprintf(err, errlen, "stream %u: cannot add its receive statistics: %s", i, strerror(-r));
			return r;
		}
	}
	if (a->o.txq > 1) {  /* a sequence per tx queue (rxstats.h) */
		int r = pg_rxstats_set_queues(&a->rs, a->o.txq);

		if (r < 0) {
			snprintf(err, errlen, "option --txq %u: cannot keep a sequence per queue: %s", a->o.txq,
				 strerror(-r));
			return r;
		}
	}
	if (a->o.csv && a->nb_sr > 1) {
		a->lat_sec_s = malloc(a->nb_sr * sizeof(*a->lat_sec_s));
		a->csv_prev_s = calloc(a->nb_sr, sizeof(*a->csv_prev_s));
		if (a->lat_sec_s == NULL || a->csv_prev_s == NULL) {
			snprintf(err, errlen, "out of memory for the per-stream --csv rows");
			return -ENOMEM;
		}
		for (unsigned i = 0; i < a->nb_sr; i++)
			pg_hist_init(&a->lat_sec_s[i]);
	}
	return 0;
}

void pg_streams_header(const struct pg_app *a)
{
	fprintf(a->out, "unic-pktgen: %u streams, TSC %.6f GHz\n", a->nb_sr, (double)a->hz / 1e9);
	for (unsigned i = 0; i < a->nb_sr; i++) {
		const struct pg_stream_run *sr = &a->sr[i];
		char label[128];
		uint32_t link = 0;

		for (unsigned k = 0; k < a->nb_txp; k++)
			if (a->txp[k].idx == sr->spec->tx_port)
				link = a->txp[k].link_mbps;
		pg_stream_label(sr, label, sizeof(label));
		fprintf(a->out, "unic-pktgen: stream %u: %s, share %.3g%%, link %u Mbps\n", sr->id, label,
			sr->spec->share, link);
	}
}

/* Does every CPU's TSC tick at one rate and on in deep sleep states, kept
 * in step by the kernel? (/proc/cpuinfo's constant_tsc and nonstop_tsc.)
 * @p missing gets the flags not found. */
bool pg_tsc_invariant(char *missing, size_t len)
{
	/* UNIC_PKTGEN_CPUINFO: another file in /proc/cpuinfo's form, for the
	 * tests of a CPU without the flags (docs/pktgen.md). */
	const char *path = getenv("UNIC_PKTGEN_CPUINFO");
	FILE *f = fopen(path && path[0] ? path : "/proc/cpuinfo", "r");
	static char line[8192];
	bool c = false, n = false;

	missing[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		c = strstr(line, " constant_tsc") != NULL;
		n = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	if (f)
		fclose(f);
	snprintf(missing, len, "%s%s%s", c ? "" : "constant_tsc", !c && !n ? " and " : "", n ? "" : "nonstop_tsc");
	return c && n;
}

/*
 * One packet pool per port, named after it, on its NUMA node (app_pool.h: a
 * memif zero-copy client lends its whole pool to the server): its rx rings
 * (a tx port's are set up too) and tx rings, a burst waiting for each tx
 * queue and one poll per rx queue, a cache per thread (one a queue:
 * each thread touches every port); at least 4096.
 * Frames to send come from the tx port's pool, an ARP reply from the pool
 * of the port that answers. @return 0, or -1 with a message.
 */
int pg_make_pools(struct pg_app *a, struct unic_env *env, uint16_t dataroom)
{
	unsigned nq = a->o.txq > a->o.rxq ? a->o.txq : a->o.rxq;

	for (unsigned k = 0; k < a->nb_ports; k++) {
		struct unic_port_info pi = { 0 };

		unic_port_info_get(a->ports[k], &pi);
		struct app_pool_need n = {
			.nb_rxq = nq, .nb_txq = nq,
			.rxd = a->o.rxd ? a->o.rxd : pi.rx_desc_default, .txd = pi.tx_desc_default,
			.rx_burst = PG_BURST, .tx_burst = PG_BURST,
			.nb_threads = nq, .cache_size = PG_POOL_CACHE,
		};
		uint32_t count = app_pool_need(&n);

		if (count < 4096)
			count = 4096;
		a->pools[k] = app_port_pool_create(unic_env_mem(env), a->ports[k], "pktgen", count,
						   PG_POOL_CACHE, dataroom);
		if (a->pools[k] == NULL) {
			fprintf(stderr, "unic-pktgen: error: port %d (%s): cannot create its pool of %u buffers: %s (the message above says why)\n",
				a->port_idx[k], unic_port_name(a->ports[k]), count, strerror(errno));
			return -1;
		}
	}
	for (unsigned t = 0; t < a->nb_txp; t++)
		a->txp[t].pool = pg_port_pool(a, a->txp[t].port);
	return 0;
}

int pg_setup_port(struct unic_port *port, int idx, struct unic_pool *pool, unsigned mtu,
		  uint16_t rxd, unsigned nb_rxq, unsigned nb_txq)
{
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = (uint16_t)nb_rxq, .nb_txq = (uint16_t)nb_txq,
				    .rx_mode = UNIC_RX_MODE_POLL };
	struct unic_port_info pi = { 0 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = rxd, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .numa_node = -1 };
	int r;

	if (mtu > 1500)
		c.mtu = (uint16_t)mtu;
	unic_port_info_get(port, &pi);
	if (nb_rxq > 1)  /* RSS spreads the flows over the rx queues */
		c.rss_hash_types = pi.rss_hash_capa;
	r = unic_port_configure(port, &c);
	for (unsigned q = 0; r == 0 && q < nb_rxq; q++)
		r = unic_port_rx_queue_setup(port, (uint16_t)q, &rc);
	for (unsigned q = 0; r == 0 && q < nb_txq; q++)
		r = unic_port_tx_queue_setup(port, (uint16_t)q, &tc);
	if (r || (r = unic_port_start(port))) {
		fprintf(stderr, "unic-pktgen: cannot set up port %d (%s)%s: %s (the message above says why)\n",
			idx, unic_port_name(port), c.mtu ? " for jumbo frames" : "", strerror(-r));
		return r;
	}
	return 0;
}
