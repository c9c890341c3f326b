/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The null port: receive hands out freshly allocated packets of a fixed size,
 * transmit frees what it is given. Nothing is copied and nothing is stored,
 * so a benchmark over it measures the framework alone: the burst calls, the
 * pool and the application (docs/ports.md).
 *
 * Spec: "null0" or "null0,size=128". Up to UNIC_PORT_MAX_QUEUES queues each
 * way; no interrupts. With tx_max_len=N, transmit refuses a frame longer
 * than N bytes, as a NIC refuses one over its maximum frame (tx_prepare
 * says so, -EMSGSIZE; tx_burst frees it and counts it in oerrors): a port
 * that refuses, for testing how an application handles that.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <unic/pool.h>

#include "unic_port_driver.h"
#include "unic_pmds.h"

#define NULL_SIZE_DEFAULT 64
#define NULL_SIZE_MAX     9216  /* a jumbo frame; must also fit the rx pool's data room */
#define NULL_SPEED_MBPS   10000
#define NULL_DESC_MAX     4096
#define NULL_DESC_DEFAULT 32  /* holds nothing: small, so the pool rule asks little */

/* Counters: the driver kit's, summed by the core (nombuf: packets a burst
 * asked for and found no buffer for; tx errors: frames over max_len, freed). */
struct null_rxq {
	struct unic_pool *pool;
	uint32_t size;
	uint16_t port_id;
	uint16_t qid;
	struct unic_rxq_counters cnt;
} UNIC_CACHE_ALIGNED;

struct null_txq {
	struct unic_txq_counters cnt;
	uint32_t max_len;  /* tx_max_len; 0: no limit */
} UNIC_CACHE_ALIGNED;

struct null_port {
	uint32_t size;  /* bytes per received packet */
	uint32_t tx_max_len;  /* 0: no limit */
	bool link_down;       /* "set link down" (the link is up otherwise) */
	struct null_rxq rxq[UNIC_PORT_MAX_QUEUES];
	struct null_txq txq[UNIC_PORT_MAX_QUEUES];
};

static struct null_port *null_priv(struct unic_port *port)
{
	return unic_port_priv(port);
}

/* ---- fast path --------------------------------------------------------- */

static uint16_t null_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct null_rxq *rxq = q;
	uint16_t got = n, i;

	if (UNIC_UNLIKELY(n == 0))
		return 0;
	if (UNIC_UNLIKELY(unic_pkt_alloc_bulk(rxq->pool, pkts, n) != 0)) {
		/* Fewer than n left: hand out what there is, one by one, and
		 * count the rest (e1000e's "better luck next round"). */
		for (got = 0; got < n; got++) {
			pkts[got] = unic_pkt_alloc(rxq->pool);
			if (pkts[got] == NULL)
				break;
		}
		unic_counter_add(&rxq->cnt.nombuf, (uint64_t)(n - got));
	}
	for (i = 0; i < got; i++) {
		struct unic_pkt *p = pkts[i];

		/* The data is left as the pool had it: nothing is copied. */
		p->data_len = (uint16_t)rxq->size;
		p->pkt_len = rxq->size;
		p->port = rxq->port_id;
		p->queue = rxq->qid;
	}
	unic_counter_add(&rxq->cnt.packets, got);
	unic_counter_add(&rxq->cnt.bytes, (uint64_t)got * rxq->size);
	UNIC_LOG_DP(DEBUG, PMD, "null rx q%u: %u of %u", rxq->qid, got, n);
	return got;
}

static uint16_t null_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	struct null_txq *txq = q;
	uint64_t bytes = 0, refused = 0;
	uint16_t i;

	for (i = 0; i < n; i++) {
		if (UNIC_UNLIKELY(txq->max_len && pkts[i]->pkt_len > txq->max_len))
			refused++;
		else
			bytes += pkts[i]->pkt_len;
	}
	unic_pkt_free_bulk(pkts, n);
	unic_counter_add(&txq->cnt.packets, n - refused);
	unic_counter_add(&txq->cnt.bytes, bytes);
	if (UNIC_UNLIKELY(refused))
		unic_counter_add(&txq->cnt.errors, refused);
	return n;
}

static uint16_t null_tx_prepare(void *q, struct unic_pkt **pkts, uint16_t n, int *err)
{
	const struct null_txq *txq = q;

	*err = 0;
	if (txq->max_len == 0)
		return n;
	for (uint16_t i = 0; i < n; i++)
		if (pkts[i]->pkt_len > txq->max_len) {
			*err = -EMSGSIZE;
			return i;
		}
	return n;
}

/* There is always a packet to receive (while the pool lasts). */
static bool null_rx_pending(void *q)
{
	(void)q;
	return true;
}

/* ---- control ------------------------------------------------------------ */

static void null_info_get(struct unic_port *port, struct unic_port_info *info)
{
	(void)port;
	snprintf(info->driver, sizeof(info->driver), "null");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "vdev");
	info->numa_node = -1;
	info->max_rxq = UNIC_PORT_MAX_QUEUES;
	info->max_txq = UNIC_PORT_MAX_QUEUES;
	/* There is no ring: any count is accepted and none is used. */
	info->rx_desc_min = 1;
	info->rx_desc_max = NULL_DESC_MAX;
	info->rx_desc_align = 1;
	info->rx_desc_default = NULL_DESC_DEFAULT;
	info->tx_desc_min = 1;
	info->tx_desc_max = NULL_DESC_MAX;
	info->tx_desc_align = 1;
	info->tx_desc_default = NULL_DESC_DEFAULT;
	info->min_mtu = 68;
	info->max_mtu = NULL_SIZE_MAX;
	info->speed_capa_mbps = NULL_SPEED_MBPS;
	info->has_intr = false;
	info->rx_synthetic = true;  /* old buffers, not frames: see null_rx_burst */
}

static int null_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	(void)port;
	(void)conf;
	return 0;
}

static int null_rx_queue_setup(struct unic_port *port, uint16_t q,
			       const struct unic_rxq_conf *conf, void **rxq_out)
{
	struct null_port *np = null_priv(port);
	struct null_rxq *rxq = &np->rxq[q];
	struct unic_pool *pool = conf->pool;

	if (pool->pkt_dataroom < np->size) {
		UNIC_PORT_LOG(port, ERR,
			      "rx queue %u: pool '%s' has %u bytes of data room, but this port "
			      "receives %u-byte packets (size=%u); use a pool with a larger "
			      "dataroom or a smaller size=",
			      q, pool->name, pool->pkt_dataroom, np->size, np->size);
		return -EINVAL;
	}
	rxq->pool = pool;
	rxq->size = np->size;
	rxq->port_id = unic_port_id(port);
	rxq->qid = q;
	unic_port_rxq_counters(port, q, &rxq->cnt);
	*rxq_out = rxq;
	return 0;
}

static void null_rx_queue_release(struct unic_port *port, uint16_t q, void *rxq)
{
	(void)port;
	(void)q;
	((struct null_rxq *)rxq)->pool = NULL;
}

static int null_tx_queue_setup(struct unic_port *port, uint16_t q,
			       const struct unic_txq_conf *conf, void **txq_out)
{
	struct null_txq *txq = &null_priv(port)->txq[q];

	(void)conf;
	txq->max_len = null_priv(port)->tx_max_len;
	unic_port_txq_counters(port, q, &txq->cnt);
	*txq_out = txq;
	return 0;
}

static void null_tx_queue_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)port;
	(void)q;
	(void)txq;
}

static int null_start(struct unic_port *port)
{
	(void)port;
	return 0;
}

static void null_stop(struct unic_port *port)
{
	(void)port;
}

static void null_close(struct unic_port *port)
{
	(void)port;
}

static int null_link_get(struct unic_port *port, struct unic_link *link)
{
	link->up = !__atomic_load_n(&null_priv(port)->link_down, __ATOMIC_RELAXED);
	link->speed_mbps = link->up ? NULL_SPEED_MBPS : 0;
	link->full_duplex = true;
	link->autoneg = false;
	return 0;
}

/*
 * Link, address and receive filters: a null port has no wire and filters
 * nothing, so each setting is accepted and only reported back (the link
 * state by link_get, the filters and the address by the port layer), as
 * DPDK's net_null and net_ring take them.
 */
static int null_link_set(struct unic_port *port, bool up)
{
	__atomic_store_n(&null_priv(port)->link_down, !up, __ATOMIC_RELAXED);
	return 0;
}

static int null_mac_op(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	(void)port;
	(void)mac;
	return 0;
}

static int null_filter_set(struct unic_port *port, bool on)
{
	(void)port;
	(void)on;
	return 0;
}

static const struct unic_port_ops null_ops = {
	.info_get = null_info_get,
	.configure = null_configure,
	.rx_queue_setup = null_rx_queue_setup,
	.rx_queue_release = null_rx_queue_release,
	.tx_queue_setup = null_tx_queue_setup,
	.tx_queue_release = null_tx_queue_release,
	.start = null_start,
	.stop = null_stop,
	.close = null_close,
	.rx_burst = null_rx_burst,
	.tx_burst = null_tx_burst,
	.tx_prepare = null_tx_prepare,
	.rx_pending = null_rx_pending,
	.link_get = null_link_get,
	.link_set = null_link_set,
	.mac_set = null_mac_op,
	.mac_add = null_mac_op,
	.mac_remove = null_mac_op,
	.promisc_set = null_filter_set,
	.allmulti_set = null_filter_set,
};

/* ---- creation ----------------------------------------------------------- */

static void null_setup(struct unic_port *port)
{
	port->ops = &null_ops;
	port->drv = &unic_null_driver;
	port->numa_node = -1;
}

static int null_vdev_create(const char *name, const char *args, struct unic_port **out)
{
	static const char *const keys[] = { "size", "tx_max_len", NULL };
	uint32_t size = NULL_SIZE_DEFAULT, tx_max_len = 0;
	struct unic_port *port;
	int rc;

	if (args == NULL)
		args = "";
	rc = unic_kvargs_check("null", args, keys);
	if (rc < 0)
		return rc;
	rc = unic_kvargs_u32("null", args, "size", 1, NULL_SIZE_MAX, &size);
	if (rc < 0 && rc != -ENOENT)
		return rc;
	rc = unic_kvargs_u32("null", args, "tx_max_len", 1, UINT16_MAX, &tx_max_len);
	if (rc < 0 && rc != -ENOENT)
		return rc;

	port = unic_port_alloc(sizeof(struct null_port), name, null_setup);
	if (port == NULL)
		return -errno;
	null_priv(port)->size = size;
	null_priv(port)->tx_max_len = tx_max_len;
	rc = unic_port_register(port);
	if (rc < 0) {
		unic_port_put(port);
		return rc;
	}
	/* Locally administered, unique among live ports: 02:00:00:00:00:<id>. */
	unic_port_mac_init(port, (const uint8_t[]){ 0x02, 0, 0, 0, 0, (uint8_t)unic_port_id(port) });
	*out = port;
	return 0;
}

const struct unic_driver unic_null_driver = {
	.name = "null",
	.flow_why = "a virtual port has no filter hardware: it makes up or discards every frame",
	.vdev_create = null_vdev_create,
};
