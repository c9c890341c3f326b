/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports as testpmd sees them: the configuration a user asks for is kept
 * here and applied at the next "port start" (configure, queue set-up, with a
 * pool large enough for it), as DPDK's testpmd does; attach and detach.
 * Every function prints its own error, naming the port and what to do.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <unic/bus.h>
#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/pool.h>

#include "app_pool.h"
#include "testpmd.h"

void tp_port_defaults(struct tp_app *app, uint16_t id)
{
	struct tp_port *p = &app->ports[id];

	memset(&p->conf, 0, sizeof(p->conf));
	p->conf.sz = sizeof(p->conf);
	p->conf.nb_rxq = app->def_rxq;
	p->conf.nb_txq = app->def_txq;
	p->conf.rx_mode = app->def_mode;
	p->conf.link_intr = true; /* link changes come as events, as DPDK testpmd's lsc interrupts */
	p->conf.mtu = app->def_mtu;
	p->rxd = app->def_rxd;
	p->txd = app->def_txd;
	memset(p->q_rxd, 0, sizeof(p->q_rxd));
	memset(p->q_txd, 0, sizeof(p->q_txd));
	memset(&p->knobs, 0, sizeof(p->knobs));
	p->tx_vlan_on = false;
	p->tx_vlan = 0;
	p->tso_mss = 0;
	memset(p->csum_hw, 0, sizeof(p->csum_hw));
	p->rss_set = false;
	p->rss_types = 0;
	p->need_config = true;
}

int tp_port_add(struct tp_app *app, struct unic_port *port, bool ours)
{
	uint16_t id = unic_port_id(port);
	struct tp_port *p;

	if (id >= TP_MAX_PORTS) {
		fprintf(app->err, "port %u (%s): testpmd handles ports 0..%d only; ignored\n", id,
			unic_port_name(port), TP_MAX_PORTS - 1);
		return -ERANGE;
	}
	p = &app->ports[id];
	p->port = unic_port_get(port);
	p->ours = ours;
	p->pool = NULL;
	p->pool_count = 0;
	p->last_ns = 0;
	p->in_fwd = false;
	{
		struct unic_port_info info;

		snprintf(p->driver, sizeof(p->driver), "%s",
			 unic_port_info_get(port, &info) == 0 ? info.driver : "?");
	}
	tp_port_defaults(app, id);
	for (unsigned q = 0; q < TP_MAX_QUEUES; q++)
		memset(tp_cnt(app, id, q), 0, sizeof(struct tp_qcnt));
	return 0;
}

bool tp_port_started(const struct tp_app *app, uint16_t id)
{
	return app->ports[id].port && unic_port_state(app->ports[id].port) == UNIC_PORT_STARTED;
}

/*
 * Packets the port's rx pool must hold: the port layer's own rule
 * (docs/port-layer.md, "Pool sizing"; app_pool.h), plus a burst per tx queue
 * for generated packets of up to 8 segments, plus a cache per thread that
 * may touch the pool.
 */
static uint32_t pool_need(struct tp_app *app, struct tp_port *p, const struct unic_port_info *info)
{
	struct app_pool_need n = {
		.nb_rxq = p->conf.nb_rxq, .nb_txq = p->conf.nb_txq,
		.rxd = p->rxd ? p->rxd : info->rx_desc_default,
		.txd = p->txd ? p->txd : info->tx_desc_default,
		.rx_burst = TP_BURST_MAX, .tx_burst = TP_BURST_MAX * 8,
		.nb_threads = app->nbcore + 1, .cache_size = TP_POOL_CACHE,
	};

	return app_pool_need(&n);
}

int tp_port_node(const struct tp_app *app, int port_node)
{
	return app->pool_node == TP_NODE_PORT ? port_node : app->pool_node;
}

int tp_port_socket(const struct tp_app *app, int port_node)
{
	int node = tp_port_node(app, port_node);

	return node < 0 ? 0 : node;
}

/*
 * A pool per port, as unic-l2fwd and unic-pktgen make (app_pool.h), rather
 * than DPDK testpmd's one per socket: a memif port with zero-copy=yes lends
 * its whole pool to its peer, which must not reach the other ports' packets.
 * It lies on the port's NUMA node (tp_port_node()).
 */
static int port_pool(struct tp_app *app, uint16_t id, const struct unic_port_info *info)
{
	struct tp_port *p = &app->ports[id];
	uint32_t need = app->pool_count ? app->pool_count : pool_need(app, p, info);
	uint32_t mtu = p->conf.mtu ? p->conf.mtu : 1500;
	uint32_t want = app->dataroom ? app->dataroom : UNIC_PKT_DATAROOM_DEFAULT;
	uint32_t room = mtu + 26 > want ? mtu + 26 : want;
	char name[UNIC_POOL_NAMESIZE];

	if (p->pool && p->pool_count >= need && p->pool->pkt_dataroom >= room)
		return 0;
	if (app->pool_count && app->pool_count < pool_need(app, p, info))
		fprintf(app->out, "note: port %u: --total-num-mbufs=%u is fewer than the %u packets its queues, "
			"bursts and caches may hold; receive may run short (RX-nombuf)\n", id, app->pool_count,
			pool_need(app, p, info));
	if (app->dataroom && room > app->dataroom)
		fprintf(app->out, "note: port %u: --mbuf-size: a buffer holds a whole frame of MTU %u here: "
			"%u bytes of data room, not %u\n", id, mtu, room, app->dataroom);
	if (app->nb_pools == TP_MAX_POOLS) {
		fprintf(app->err, "port %u: too many pools made already (%d); restart testpmd\n", id,
			TP_MAX_POOLS);
		return -ENOSPC;
	}
	if (room > 65535 - UNIC_PKT_HEADROOM_DEFAULT)
		room = 65535 - UNIC_PKT_HEADROOM_DEFAULT;
	snprintf(name, sizeof(name), "tp%u_%u", id, app->nb_pools);
	int node = tp_port_node(app, info->numa_node);
	struct unic_pool *pool = app_pool_create(unic_env_mem(app->env), p->port, name, need, TP_POOL_CACHE,
						 (uint16_t)room, node);

	if (pool == NULL) {
		int e = errno;

		fprintf(app->err, "port %u: cannot create a pool of %u packets of %u bytes on NUMA node %d: %s%s\n",
			id, need, room, node, strerror(e),
			e == EINVAL && app->pool_node >= 0 ? " (does --socket-num name a node of this machine?)" : "");
		return e == EINVAL ? -EINVAL : -ENOMEM;
	}
	/* The old pool stays: its packets may still sit in other ports' rings. */
	app->pools[app->nb_pools++] = pool;
	p->pool = pool;
	p->pool_count = need;
	return 0;
}

/* Configure and set up every queue with the wanted configuration. */
static int port_apply(struct tp_app *app, uint16_t id)
{
	struct tp_port *p = &app->ports[id];
	struct unic_port_conf c = p->conf;
	struct unic_port_info info;
	int rc;

	rc = unic_port_info_get(p->port, &info);
	if (rc)
		return rc;
	c.sz = sizeof(c);
	c.tx_offloads &= ~(UNIC_TX_OFFLOAD_VLAN_INSERT | UNIC_TX_OFFLOAD_TCP_TSO |
			   UNIC_TX_OFFLOAD_IPV4_CKSUM | UNIC_TX_OFFLOAD_UDP_CKSUM | UNIC_TX_OFFLOAD_TCP_CKSUM);
	if (p->tx_vlan_on)
		c.tx_offloads |= UNIC_TX_OFFLOAD_VLAN_INSERT;
	if (p->tso_mss)
		c.tx_offloads |= UNIC_TX_OFFLOAD_TCP_TSO;
	if (p->csum_hw[0])
		c.tx_offloads |= UNIC_TX_OFFLOAD_IPV4_CKSUM;
	if (p->csum_hw[1])
		c.tx_offloads |= UNIC_TX_OFFLOAD_UDP_CKSUM;
	if (p->csum_hw[2])
		c.tx_offloads |= UNIC_TX_OFFLOAD_TCP_CKSUM;
	/* RSS over several rx queues, as DPDK's testpmd: IP unless told
	 * otherwise, the types the port can hash. */
	c.rss_hash_types = 0;
	if (p->rss_set) {
		c.rss_hash_types = p->rss_types & info.rss_hash_capa;
	} else if (c.nb_rxq > 1 && app->rss != TP_RSS_OFF) {
		uint64_t t = UNIC_RSS_IPV4 | UNIC_RSS_IPV6;

		if (app->rss == TP_RSS_UDP)
			t |= UNIC_RSS_IPV4_UDP | UNIC_RSS_IPV6_UDP;
		c.rss_hash_types = t & info.rss_hash_capa;
	}
	if (app->nb_txpkts > 1 && (info.tx_offload_capa & UNIC_TX_OFFLOAD_MULTI_SEGS))
		c.tx_offloads |= UNIC_TX_OFFLOAD_MULTI_SEGS;
	rc = port_pool(app, id, &info);
	if (rc)
		return rc;
	rc = unic_port_configure(p->port, &c);
	if (rc)
		return rc;
	/* Transmit queues first: the rx queue's pool check counts a transmit
	 * queue not set up yet at the driver's default size, which --txd may
	 * make smaller (af_xdp: 4096). */
	for (uint16_t q = 0; q < c.nb_txq; q++) {
		struct unic_txq_conf tq = { .sz = sizeof(tq), .nb_desc = p->q_txd[q] ? p->q_txd[q] : p->txd,
					    .numa_node = tp_port_node(app, info.numa_node) };

		rc = unic_port_tx_queue_setup(p->port, q, &tq);
		if (rc)
			return rc;
	}
	for (uint16_t q = 0; q < c.nb_rxq; q++) {
		struct unic_rxq_conf rq = { .sz = sizeof(rq), .nb_desc = p->q_rxd[q] ? p->q_rxd[q] : p->rxd,
					    .numa_node = tp_port_node(app, info.numa_node),
					    .pool = p->pool };

		rc = unic_port_rx_queue_setup(p->port, q, &rq);
		if (rc)
			return rc;
	}
	p->need_config = false;
	return 0;
}

int tp_port_start(struct tp_app *app, uint16_t id)
{
	struct tp_port *p = &app->ports[id];
	enum unic_port_state st = unic_port_state(p->port);
	int rc;

	if (st == UNIC_PORT_STARTED) {
		fprintf(app->out, "port %u is already started\n", id);
		return -EALREADY;
	}
	if (st == UNIC_PORT_CLOSED || st == UNIC_PORT_DETACHED) {
		fprintf(app->err, "port %u is closed; a closed port cannot start again: 'port detach %u', then 'port attach' it\n",
			id, id);
		return -ENODEV;
	}
	if (p->need_config || st != UNIC_PORT_READY) {
		rc = port_apply(app, id);
		if (rc) {
			p->need_config = true;
			fprintf(app->err, "port %u: cannot apply its configuration: %s (the message above says why)\n",
				id, strerror(-rc));
			return rc;
		}
	}
	rc = unic_port_start(p->port);
	if (rc) {
		fprintf(app->err, "port %u: cannot start: %s (the message above says why)\n", id,
			strerror(-rc));
		return rc;
	}
	/* The first "show port stats" gives the rates since this start. */
	struct unic_port_stats ps;

	if (unic_port_stats_get(p->port, &ps) == 0) {
		p->last_ns = unic_time_ns();
		p->last_ipk = ps.ipackets;
		p->last_opk = ps.opackets;
		p->last_ib = ps.ibytes;
		p->last_ob = ps.obytes;
	}
	return 0;
}

int tp_port_stop(struct tp_app *app, uint16_t id)
{
	int rc;

	if (!tp_port_started(app, id)) {
		fprintf(app->out, "port %u is already stopped\n", id);
		return -EALREADY;
	}
	rc = unic_port_stop(app->ports[id].port);
	if (rc)
		fprintf(app->err, "port %u: cannot stop: %s\n", id, strerror(-rc));
	return rc;
}

int tp_port_close(struct tp_app *app, uint16_t id)
{
	struct tp_port *p = &app->ports[id];
	enum unic_port_state st = unic_port_state(p->port);
	int rc;

	if (st == UNIC_PORT_CLOSED || st == UNIC_PORT_DETACHED) {
		fprintf(app->out, "port %u is already closed\n", id);
		return -EALREADY;
	}
	if (st == UNIC_PORT_STARTED && (rc = unic_port_stop(p->port)) != 0) {
		fprintf(app->err, "port %u: cannot stop: %s\n", id, strerror(-rc));
		return rc;
	}
	rc = unic_port_close(p->port);
	if (rc)
		fprintf(app->err, "port %u: cannot close: %s\n", id, strerror(-rc));
	return rc;
}

int tp_port_detach(struct tp_app *app, uint16_t id)
{
	struct tp_port *p = &app->ports[id];
	int rc;

	rc = unic_port_detach(p->port);
	if (rc && rc != -ENODEV) {
		fprintf(app->err, "port %u: cannot detach: %s\n", id, strerror(-rc));
		return rc;
	}
	unic_port_put(p->port);
	p->port = NULL;
	return 0;
}

static bool is_pci_addr(const char *s)
{
	struct unic_pci_addr a;

	return unic_pci_addr_parse(s, &a) == 0;
}

int tp_port_attach(struct tp_app *app, const char *spec, uint16_t *id)
{
	struct unic_port *port = NULL;
	int rc;

	if (is_pci_addr(spec)) {
		struct unic_bus *bus = unic_env_bus(app->env);

		if (bus == NULL) {
			fprintf(app->err, "port attach %s: PCI is off (--no-pci); restart without --no-pci to attach PCI devices\n",
				spec);
			return -ENOTSUP;
		}
		rc = unic_port_probe_pci(bus, &spec, 1, &port, 1);
		if (rc < 0) {
			fprintf(app->err, "port attach %s: %s (the message above says why)\n", spec,
				strerror(-rc));
			return rc;
		}
		if (rc == 0) {
			fprintf(app->err, "port attach %s: the probe made no new port (already attached?)\n", spec);
			return -ENODEV;
		}
	} else {
		rc = unic_vdev_create(spec, &port);
		if (rc) {
			fprintf(app->err, "port attach %s: %s (the message above says why)\n", spec,
				strerror(-rc));
			return rc;
		}
	}
	rc = tp_port_add(app, port, true);
	if (rc) {
		unic_port_detach(port);
		unic_port_put(port);
		return rc;
	}
	unic_port_put(port); /* tp_port_add took its own */
	*id = unic_port_id(port);
	return 0;
}

void tp_pools_free(struct tp_app *app)
{
	for (unsigned i = 0; i < app->nb_pools; i++)
		unic_pool_destroy(app->pools[i]);
	app->nb_pools = 0;
}
