/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ring port's control path: creating and linking a pair, queue setup and
 * release, statistics, link and interrupt sources. Layout and lifetimes are
 * described in ring_priv.h; behaviour for users in docs/ports.md.
 *
 * Spec: "ring0" creates a port on its own; "ring1,peer=ring0" creates a
 * second one and links it to ring0.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "ring_priv.h"
#include "unic_pmds.h"

/*
 * Links between ports (ring_port.pair and ring_pair.side/refcnt) change when
 * a port is created or closed, and creation must find its peer's pair while
 * that peer may be closing in another thread. One lock for the driver covers
 * that: it guards only who is linked to whom, is never held on the fast
 * path, and no port lock is taken while holding it.
 */
static pthread_mutex_t ring_link_lock = PTHREAD_MUTEX_INITIALIZER;

static const struct unic_port_ops ring_ops;

static struct ring_port *ring_priv(struct unic_port *port)
{
	return unic_port_priv(port);
}

/* ---- queues ------------------------------------------------------------- */

static void ring_drain(struct unic_ring *r)
{
	struct unic_pkt *pkts[64];
	uint32_t n;

	while ((n = unic_ring_sc_dequeue_burst(r, (void **)pkts, UNIC_ARRAY_SIZE(pkts))) > 0)
		unic_pkt_free_bulk(pkts, n);
}

/*
 * Unpublish rx queue q, wait until no sender is inside a burst that may have
 * seen it, then free what it owns. Packets still in the ring are freed.
 */
static void ring_rxq_release(struct ring_port *rp, uint16_t q)
{
	struct ring_rxq *rxq = &rp->rxq[q];
	struct ring_chan *chan = &rp->pair->chan[rp->side][q];
	unsigned spins = 0;

	if (rxq->ring == NULL)
		return;
	unic_store_relaxed(&chan->rxq, NULL);
	unic_smp_mb(); /* (B2): pairs with (B1) in ring_tx_burst */
	/* Acquire: pairs with the sender's release of tx_busy, so everything
	 * the burst did to this queue is done before we free it. */
	while (unic_load_acquire(&chan->tx_busy)) {
		if (++spins < 1000)
			unic_pause();
		else
			sched_yield(); /* the sender was preempted mid-burst */
	}
	ring_drain(rxq->ring);
	unic_ring_destroy(rxq->ring);
	rxq->ring = NULL;
	close(rxq->efd);
	rxq->efd = -1;
	rxq->intr_enabled = 0;
}

static int ring_rx_queue_setup(struct unic_port *port, uint16_t q,
			       const struct unic_rxq_conf *conf, void **out)
{
	struct ring_port *rp = ring_priv(port);
	struct ring_rxq *rxq = &rp->rxq[q];
	uint32_t nb = conf->nb_desc ? conf->nb_desc : RING_DESC_DEFAULT;
	char name[UNIC_RING_NAMESIZE];
	struct unic_ring *r;
	int efd, err;

	if (nb < RING_DESC_MIN || nb > RING_DESC_MAX) {
		UNIC_PORT_LOG(port, ERR,
			      "rx queue %u: nb_desc %u refused: the ring size must be from %u to %u; "
			      "0 gives %u",
			      q, nb, RING_DESC_MIN, RING_DESC_MAX, RING_DESC_DEFAULT);
		return -EINVAL;
	}
	ring_rxq_release(rp, q); /* a queue set up twice: start afresh */

	snprintf(name, sizeof(name), "%.20s_rx%u", port->name, q);
	/* unic_ring wants a power of two; the sender keeps at most nb in it. */
	r = unic_ring_create(name, unic_pow2_ceil32(nb), UNIC_RING_F_SP_ENQ | UNIC_RING_F_SC_DEQ);
	if (r == NULL) {
		err = errno;
		UNIC_PORT_LOG(port, ERR, "rx queue %u: cannot create a ring of %u slots: %s",
			      q, nb, strerror(err));
		return -err;
	}
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0) {
		err = errno;
		UNIC_PORT_LOG(port, ERR, "rx queue %u: eventfd for the doorbell: %s",
			      q, strerror(err));
		unic_ring_destroy(r);
		return -err;
	}
	rxq->ring = r;
	rxq->size = nb;
	rxq->efd = efd;
	rxq->intr_enabled = 0;
	rxq->port_id = unic_port_id(port);
	rxq->qid = q;
	unic_port_rxq_counters(port, q, &rxq->cnt);
	/* Release: the peer's sender that sees the pointer sees the ring and
	 * the eventfd initialised. */
	unic_store_release(&rp->pair->chan[rp->side][q].rxq, rxq);
	*out = rxq;
	return 0;
}

static void ring_rx_queue_release(struct unic_port *port, uint16_t q, void *rxq)
{
	(void)rxq;
	ring_rxq_release(ring_priv(port), q);
}

static int ring_tx_queue_setup(struct unic_port *port, uint16_t q,
			       const struct unic_txq_conf *conf, void **out)
{
	struct ring_port *rp = ring_priv(port);
	struct ring_txq *txq = &rp->txq[q];

	/* The sender has no ring of its own: it fills the peer's rx ring, so
	 * nb_desc is accepted and not used. */
	(void)conf;
	txq->chan = &rp->pair->chan[!rp->side][q];
	unic_port_txq_counters(port, q, &txq->cnt);
	*out = txq;
	return 0;
}

static void ring_tx_queue_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)txq;
	ring_priv(port)->txq[q].chan = NULL;
}

/* ---- lifecycle ---------------------------------------------------------- */

static void ring_info_get(struct unic_port *port, struct unic_port_info *info)
{
	(void)port;
	snprintf(info->driver, sizeof(info->driver), "ring");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "vdev");
	info->numa_node = -1;
	info->max_rxq = UNIC_PORT_MAX_QUEUES;
	info->max_txq = UNIC_PORT_MAX_QUEUES;
	info->rx_desc_min = RING_DESC_MIN;
	info->rx_desc_max = RING_DESC_MAX;
	info->rx_desc_align = 1; /* any count: the sender keeps at most nb_desc queued */
	info->rx_desc_default = RING_DESC_DEFAULT;
	info->tx_desc_min = 1;
	info->tx_desc_max = RING_DESC_MAX;
	info->tx_desc_align = 1;
	info->tx_desc_default = RING_DESC_DEFAULT;
	info->min_mtu = 68;
	info->max_mtu = 9216;
	info->speed_capa_mbps = RING_SPEED_MBPS;
	info->has_intr = true;
}

static int ring_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	(void)port;
	(void)conf;
	return 0;
}

static int ring_start(struct unic_port *port)
{
	(void)port;
	return 0;
}

static void ring_stop(struct unic_port *port)
{
	struct ring_port *rp = ring_priv(port);
	unsigned q;

	/* Back to polling: the interrupts are armed again by the next poller.
	 * Packets stay in the rings and are received after the next start. */
	for (q = 0; q < UNIC_PORT_MAX_QUEUES; q++)
		unic_store_relaxed(&rp->rxq[q].intr_enabled, 0);
}

/* Unlink from the pair; the last port frees it. Under ring_link_lock. */
static void ring_unlink(struct unic_port *port)
{
	struct ring_port *rp = ring_priv(port);
	struct ring_pair *pair = rp->pair;

	if (pair == NULL)
		return;
	pair->side[rp->side] = NULL;
	rp->pair = NULL;
	if (--pair->refcnt == 0)
		free(pair);
}

static void ring_close(struct unic_port *port)
{
	struct ring_port *rp = ring_priv(port);
	uint16_t q;

	/* Whatever the core has not released yet: after this, the peer's
	 * senders find no rx queue here and take nothing. */
	for (q = 0; q < UNIC_PORT_MAX_QUEUES; q++) {
		ring_rxq_release(rp, q);
		rp->txq[q].chan = NULL;
	}
	pthread_mutex_lock(&ring_link_lock);
	ring_unlink(port);
	pthread_mutex_unlock(&ring_link_lock);
}

/* ---- statistics, link, interrupts --------------------------------------- */

static const char *const ring_xstat_names[] = {
	"tx_ring_full",       /* packets not taken: the peer's rx ring was full */
	"tx_no_peer",         /* packets not taken: no rx queue on the other side */
	"rx_doorbell_writes", /* eventfd writes into this port's rx queues */
};

static int ring_xstats_names(struct unic_port *port, struct unic_xstat_name *names,
			     unsigned max)
{
	(void)port;
	return unic_port_xstats_names_fill(names, max, ring_xstat_names, UNIC_ARRAY_SIZE(ring_xstat_names));
}

static int ring_xstats_get(struct unic_port *port, uint64_t *values, unsigned max)
{
	struct ring_port *rp = ring_priv(port);
	uint64_t v[UNIC_ARRAY_SIZE(ring_xstat_names)] = { 0 };

	for (unsigned q = 0; q < UNIC_PORT_MAX_QUEUES; q++) {
		v[0] += unic_counter_read(&rp->txq[q].ring_full);
		v[1] += unic_counter_read(&rp->txq[q].no_peer);
		v[2] += __atomic_load_n(&rp->rxq[q].doorbell_writes, __ATOMIC_RELAXED);
	}
	return unic_port_xstats_values_fill(values, max, v, UNIC_ARRAY_SIZE(v));
}

static int ring_link_get(struct unic_port *port, struct unic_link *link)
{
	link->up = !__atomic_load_n(&ring_priv(port)->link_down, __ATOMIC_RELAXED);
	link->speed_mbps = link->up ? RING_SPEED_MBPS : 0;
	link->full_duplex = true;
	link->autoneg = false;
	return 0;
}

/*
 * Link, address and receive filters: a ring port delivers every packet to
 * its peer and filters nothing, so each setting is accepted and only
 * reported back (the link state by link_get, the filters and the address
 * by the port layer), as DPDK's net_ring takes them. Packets still flow
 * with the link set down, as there.
 */
static int ring_link_set(struct unic_port *port, bool up)
{
	__atomic_store_n(&ring_priv(port)->link_down, !up, __ATOMIC_RELAXED);
	return 0;
}

static int ring_mac_op(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	(void)port;
	(void)mac;
	return 0;
}

static int ring_filter_set(struct unic_port *port, bool on)
{
	(void)port;
	(void)on;
	return 0;
}

/* One eventfd per rx queue, as MSI-X gives one vector per queue. */
static int ring_intr_sources(struct unic_port *port, struct unic_intr_source *src,
			     unsigned max)
{
	struct ring_port *rp = ring_priv(port);
	unsigned n = 0;
	uint16_t q;

	for (q = 0; q < UNIC_PORT_MAX_QUEUES; q++) {
		if (rp->rxq[q].ring == NULL)
			continue;
		if (n < max)
			src[n] = (struct unic_intr_source){
				.fd = rp->rxq[q].efd,
				.kind = UNIC_INTR_EVENTFD,
				.queue_mask = 1u << q,
				.index = q,
			};
		n++;
	}
	return (int)n;
}

static const struct unic_port_ops ring_ops = {
	.info_get = ring_info_get,
	.configure = ring_configure,
	.rx_queue_setup = ring_rx_queue_setup,
	.rx_queue_release = ring_rx_queue_release,
	.tx_queue_setup = ring_tx_queue_setup,
	.tx_queue_release = ring_tx_queue_release,
	.start = ring_start,
	.stop = ring_stop,
	.close = ring_close,
	.rx_burst = ring_rx_burst,
	.tx_burst = ring_tx_burst,
	.rx_pending = ring_rx_pending,
	.rx_intr_enable = ring_rx_intr_enable,
	.rx_intr_disable = ring_rx_intr_disable,
	.link_get = ring_link_get,
	.link_set = ring_link_set,
	.mac_set = ring_mac_op,
	.mac_add = ring_mac_op,
	.mac_remove = ring_mac_op,
	.promisc_set = ring_filter_set,
	.allmulti_set = ring_filter_set,
	.xstats_names = ring_xstats_names,
	.xstats_get = ring_xstats_get,
	.intr_sources = ring_intr_sources,
};

/* ---- creation and linking ----------------------------------------------- */

static void ring_setup(struct unic_port *port)
{
	struct ring_port *rp = ring_priv(port);
	unsigned q;

	port->ops = &ring_ops;
	port->drv = &unic_ring_driver;
	port->numa_node = -1;
	for (q = 0; q < UNIC_PORT_MAX_QUEUES; q++)
		rp->rxq[q].efd = -1;
}

/*
 * Link @p port into a new pair (no peer), or into the free side of @p peer's
 * pair. @return 0 or -errno, with the message logged.
 */
static int ring_link(struct unic_port *port, struct unic_port *peer)
{
	struct ring_port *rp = ring_priv(port);
	struct ring_pair *pair;
	int rc = 0;

	pthread_mutex_lock(&ring_link_lock);
	if (peer == NULL) {
		pair = calloc(1, sizeof(*pair));
		if (pair == NULL) {
			UNIC_LOG(ERR, PMD, "%s: cannot allocate the ring pair", port->name);
			rc = -ENOMEM;
			goto unlock;
		}
		rp->side = 0;
	} else {
		pair = ring_priv(peer)->pair;
		if (pair == NULL) {
			UNIC_LOG(ERR, PMD, "%s: peer '%s' is closed; create a new ring port "
				 "and link to it", port->name, peer->name);
			rc = -EINVAL;
			goto unlock;
		}
		if (pair->side[0] != NULL && pair->side[1] != NULL) {
			struct unic_port *other = pair->side[pair->side[0] == peer ? 1 : 0];

			UNIC_LOG(ERR, PMD, "%s: peer '%s' is already linked with '%s'; a ring "
				 "pair has two ports: close '%s' first or pick another peer",
				 port->name, peer->name, other->name, other->name);
			rc = -EBUSY;
			goto unlock;
		}
		rp->side = pair->side[0] == NULL ? 0 : 1;
	}
	pair->side[rp->side] = port;
	pair->refcnt++;
	rp->pair = pair;
unlock:
	pthread_mutex_unlock(&ring_link_lock);
	return rc;
}

/* Find the peer named in args, with a reference. @return 0 (*peer NULL if
 * none was named) or -EINVAL. */
static int ring_peer_find(const char *name, const char *args, struct unic_port **peer)
{
	char pname[UNIC_PORT_NAMESIZE];
	struct unic_port *p;
	const char *val;
	int len;

	*peer = NULL;
	len = unic_kvargs_get(args, "peer", &val);
	if (len == -ENOENT)
		return 0;
	if (len <= 0 || len >= (int)sizeof(pname)) {
		UNIC_LOG(ERR, PMD, "%s: peer= needs a port name of 1 to %zu characters, "
			 "as in %s,peer=ring0", name, sizeof(pname) - 1, name);
		return -EINVAL;
	}
	memcpy(pname, val, (size_t)len);
	pname[len] = '\0';
	if (strcmp(pname, name) == 0) {
		UNIC_LOG(ERR, PMD, "%s: a ring port cannot be its own peer; create the "
			 "other side first (ring0), then %s,peer=ring0", name, name);
		return -EINVAL;
	}
	p = unic_port_get_by_name(pname);
	if (p == NULL) {
		UNIC_LOG(ERR, PMD, "%s: peer '%s' does not exist; create it first "
			 "(the spec %s, then %s,peer=%s)", name, pname, pname, name, pname);
		return -EINVAL;
	}
	if (p->ops != &ring_ops) {
		UNIC_LOG(ERR, PMD, "%s: peer '%s' is not a ring port (driver %s); a ring "
			 "port links only with another ring port", name, pname,
			 p->drv != NULL ? p->drv->name : "?");
		unic_port_put(p);
		return -EINVAL;
	}
	*peer = p;
	return 0;
}

static int ring_vdev_create(const char *name, const char *args, struct unic_port **out)
{
	static const char *const keys[] = { "peer", NULL };
	struct unic_port *port, *peer;
	int rc;

	if (args == NULL)
		args = "";
	rc = unic_kvargs_check("ring", args, keys);
	if (rc < 0)
		return rc;
	rc = ring_peer_find(name, args, &peer);
	if (rc < 0)
		return rc;

	port = unic_port_alloc(sizeof(struct ring_port), name, ring_setup);
	if (port == NULL) {
		rc = -errno;
		goto put_peer;
	}
	rc = ring_link(port, peer);
	if (rc < 0)
		goto put_port;
	rc = unic_port_register(port);
	if (rc < 0)
		goto unlink;
	/* Locally administered, unique among live ports: 02:00:00:00:00:<id>. */
	unic_port_mac_init(port, (const uint8_t[]){ 0x02, 0, 0, 0, 0, (uint8_t)unic_port_id(port) });
	unic_port_put(peer);
	*out = port;
	return 0;

unlink:
	pthread_mutex_lock(&ring_link_lock);
	ring_unlink(port);
	pthread_mutex_unlock(&ring_link_lock);
put_port:
	unic_port_put(port);
put_peer:
	unic_port_put(peer);
	return rc;
}

const struct unic_driver unic_ring_driver = {
	.name = "ring",
	.flow_why = "a virtual port has no filter hardware: every frame its peer sends arrives",
	.vdev_create = ring_vdev_create,
};
