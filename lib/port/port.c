/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port objects: allocation, references, the registry, and the lifecycle
 * (configure, queue setup, start, stop, close, detach).
 *
 * Locking: reg_lock guards the registry (ids and names); a port's lock (in
 * its struct port_core) guards its state and every call into its driver.
 * reg_lock is never taken while a port lock is held, except in detach,
 * which takes them in the order port -> registry and holds no other port's
 * lock.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/pool.h>
#include <unic/barrier.h>

#include "port_private.h"
#include "unic_event_internal.h"
#include "unic_conf.h"

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct unic_port *registry[UNIC_PORT_MAX];

static const char *const state_names[] = {
	[UNIC_PORT_ALLOCATED] = "allocated",
	[UNIC_PORT_CONFIGURED] = "configured",
	[UNIC_PORT_READY] = "queues set up (stopped)",
	[UNIC_PORT_STARTED] = "started",
	[UNIC_PORT_CLOSED] = "closed",
	[UNIC_PORT_DETACHED] = "detached",
};

const char *unic_port_state_name(enum unic_port_state st)
{
	if ((unsigned)st >= UNIC_ARRAY_SIZE(state_names))
		return "?";
	return state_names[st];
}

const char *unic_rx_mode_name(enum unic_rx_mode mode)
{
	switch (mode) {
	case UNIC_RX_MODE_DEFAULT: return "default";
	case UNIC_RX_MODE_POLL: return "poll";
	case UNIC_RX_MODE_INTERRUPT: return "interrupt";
	case UNIC_RX_MODE_HYBRID: return "hybrid";
	}
	return "?";
}

/* ---- fast-path stubs for ports that are not started ------------------- */

static uint16_t stub_burst(void *q, struct unic_pkt **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

/* Every packet acceptable: drivers without checks, and stopped ports
 * (whose stub tx_burst then takes none). */
static uint16_t stub_prepare_all(void *q, struct unic_pkt **pkts, uint16_t n, int *err)
{
	(void)q;
	(void)pkts;
	*err = 0;
	return n;
}

static bool stub_pending(void *q)
{
	(void)q;
	return false;
}

static int stub_down(void *q)
{
	(void)q;
	return -ENETDOWN;
}

static int stub_notsup(void *q)
{
	(void)q;
	return -ENOTSUP;
}

static int stub_reclaim_none(void *q)
{
	(void)q;
	return 0;
}

/*
 * The fast-path table is read by other threads at any time (port.h), so
 * every member is written with an atomic store: function pointers with
 * release (a reader that loads the driver's function with acquire sees the
 * queue object and what start did to it), queue objects relaxed.
 */
#define FP_SET(port, fn, v) __atomic_store_n(&(port)->fp.fn, (v), __ATOMIC_RELEASE)

static void fp_queue_set(struct unic_port *port, bool tx, uint16_t q, void *obj)
{
	__atomic_store_n(tx ? &port->fp.txq[q] : &port->fp.rxq[q], obj, __ATOMIC_RELAXED);
}

static void fp_set_stopped(struct unic_port *port)
{
	FP_SET(port, rx_burst, stub_burst);
	FP_SET(port, tx_burst, stub_burst);
	FP_SET(port, tx_prepare, stub_prepare_all);
	FP_SET(port, rx_pending, stub_pending);
	FP_SET(port, rx_intr_enable, stub_down);
	FP_SET(port, rx_intr_disable, stub_down);
	FP_SET(port, tx_reclaim, stub_down);
	__atomic_store_n(&port->fp.tx_offload_check, false, __ATOMIC_RELAXED);
}

static void fp_set_started(struct unic_port *port)
{
	const struct unic_port_ops *ops = port->ops;
	struct unic_port_info info = { .numa_node = port->numa_node };
	const uint64_t checked = UNIC_TX_OFFLOAD_IPV4_CKSUM | UNIC_TX_OFFLOAD_TCP_CKSUM |
				 UNIC_TX_OFFLOAD_UDP_CKSUM | UNIC_TX_OFFLOAD_TCP_TSO;

	ops->info_get(port, &info);
	/* Before the driver's prepare is stored (release below). */
	__atomic_store_n(&port->fp.tx_offload_check, (info.tx_offload_capa & checked) != 0,
			 __ATOMIC_RELAXED);

	FP_SET(port, rx_pending, ops->rx_pending ? ops->rx_pending : stub_pending);
	FP_SET(port, rx_intr_enable, ops->rx_intr_enable ? ops->rx_intr_enable : stub_notsup);
	FP_SET(port, rx_intr_disable, ops->rx_intr_disable ? ops->rx_intr_disable : stub_notsup);
	FP_SET(port, tx_reclaim, ops->tx_reclaim ? ops->tx_reclaim : stub_reclaim_none);
	FP_SET(port, tx_prepare, ops->tx_prepare ? ops->tx_prepare : stub_prepare_all);
	FP_SET(port, tx_burst, ops->tx_burst);
	/* rx last: a poller that sees the real rx_burst sees the rest too. */
	FP_SET(port, rx_burst, ops->rx_burst);
}

/* ---- allocation and references ---------------------------------------- */

/* Whatever else remembers the port is told it is going: the event module
 * drops its queued events and callbacks (no port lock is held here). */
static void port_free_hook(struct unic_port *port)
{
	unic_event_port_forget(port);
}

static bool name_fmt_ok(const char *fmt)
{
	const char *p = strchr(fmt, '%');

	if (p == NULL)
		return true;
	return p[1] == 'd' && strchr(p + 2, '%') == NULL;
}

struct unic_port *unic_port_alloc(size_t priv_size, const char *name_fmt,
				  void (*setup)(struct unic_port *port))
{
	struct unic_port *port;
	struct port_core *pc;
	size_t sz;

	if (name_fmt == NULL || *name_fmt == '\0' || strlen(name_fmt) >= UNIC_PORT_NAMESIZE - 4 ||
	    !name_fmt_ok(name_fmt)) {
		UNIC_LOG(ERR, PORT, "port name '%s': expected a non-empty name under %d characters with at most one %%d",
			 name_fmt ? name_fmt : "(null)", UNIC_PORT_NAMESIZE - 4);
		errno = EINVAL;
		return NULL;
	}
	/* The core's part, the driver's view, then its private area. */
	sz = UNIC_ALIGN_CEIL(sizeof(*pc) + priv_size, (size_t)UNIC_CACHE_LINE_SIZE);
	pc = aligned_alloc(UNIC_CACHE_LINE_SIZE, sz);
	if (pc == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(pc, 0, sz);
	pthread_mutex_init(&pc->lock, NULL);
	pc->refcnt = 1;
	pc->state = UNIC_PORT_ALLOCATED;
	pc->priv_size = priv_size;
	port = &pc->port;
	port->numa_node = -1;
	port->msglevel = UNIC_LOG_INFO;
	snprintf(port->name, sizeof(port->name), "%s", name_fmt);
	fp_set_stopped(port);
	if (setup)
		setup(port);
	return port;
}

struct unic_port *unic_port_get(struct unic_port *port)
{
	__atomic_fetch_add(&port_core(port)->refcnt, 1, __ATOMIC_RELAXED);
	return port;
}

void unic_port_put(struct unic_port *port)
{
	struct port_core *pc;

	if (port == NULL)
		return;
	pc = port_core(port);
	/* Release: our writes to the port happen before the free; acquire in
	 * the last put pairs with every other put's release. */
	if (__atomic_sub_fetch(&pc->refcnt, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	if (pc->state != UNIC_PORT_CLOSED && pc->state != UNIC_PORT_DETACHED &&
	    pc->state != UNIC_PORT_ALLOCATED && port->ops && port->ops->close)
		UNIC_LOG(WARNING, PORT, "%s: last reference dropped while %s; it should be closed first",
			 port->name, unic_port_state_name(pc->state));
	port_free_hook(port);
	port_dma_free_all(port);
	port_flow_free_all(port, false);
	free(pc->xstats_base);
	pthread_mutex_destroy(&pc->lock);
	free(pc);
}

/* ---- registry ----------------------------------------------------------- */

static bool name_taken(const char *name)
{
	for (unsigned i = 0; i < UNIC_PORT_MAX; i++)
		if (registry[i] && strcmp(registry[i]->name, name) == 0)
			return true;
	return false;
}

int unic_port_register(struct unic_port *port)
{
	char name[UNIC_PORT_NAMESIZE];
	int id = -1, rc = 0;

	pthread_mutex_lock(&reg_lock);
	for (unsigned i = 0; i < UNIC_PORT_MAX; i++) {
		if (registry[i] == NULL) {
			id = (int)i;
			break;
		}
	}
	if (id < 0) {
		UNIC_LOG(ERR, PORT, "%s: cannot register: all %d port slots are in use (detach a port first)",
			 port->name, UNIC_PORT_MAX);
		rc = -ENOSPC;
		goto out;
	}
	if (strstr(port->name, "%d") != NULL) {
		int n;

		for (n = 0; n < 100000; n++) {
			snprintf(name, sizeof(name), port->name, n);
			if (!name_taken(name))
				break;
		}
		snprintf(port->name, sizeof(port->name), "%s", name);
	} else if (name_taken(port->name)) {
		UNIC_LOG(ERR, PORT, "port name '%s' is already in use; choose another", port->name);
		rc = -EEXIST;
		goto out;
	}
	port_core(port)->id = (uint16_t)id;
	port_core(port)->registered = true;
	registry[id] = unic_port_get(port);
out:
	pthread_mutex_unlock(&reg_lock);
	return rc;
}

struct unic_port *unic_port_get_by_id(uint16_t id)
{
	struct unic_port *port = NULL;

	if (id >= UNIC_PORT_MAX)
		return NULL;
	pthread_mutex_lock(&reg_lock);
	if (registry[id])
		port = unic_port_get(registry[id]);
	pthread_mutex_unlock(&reg_lock);
	return port;
}

struct unic_port *unic_port_get_by_name(const char *name)
{
	struct unic_port *port = NULL;

	pthread_mutex_lock(&reg_lock);
	for (unsigned i = 0; i < UNIC_PORT_MAX && name; i++) {
		if (registry[i] && strcmp(registry[i]->name, name) == 0) {
			port = unic_port_get(registry[i]);
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	return port;
}

unsigned unic_port_list(uint16_t *ids, unsigned max)
{
	unsigned n = 0;

	pthread_mutex_lock(&reg_lock);
	for (unsigned i = 0; i < UNIC_PORT_MAX; i++)
		if (registry[i] && n < max)
			ids[n++] = (uint16_t)i;
	pthread_mutex_unlock(&reg_lock);
	return n;
}

uint16_t unic_port_id(const struct unic_port *port)
{
	return port_core(port)->id;
}

const char *unic_port_name(const struct unic_port *port)
{
	return port->name;
}

enum unic_port_state unic_port_state(const struct unic_port *port)
{
	return __atomic_load_n(&port_core(port)->state, __ATOMIC_ACQUIRE);
}

bool unic_port_is_removed(const struct unic_port *port)
{
	/* Acquire: pairs with the release store in unic_port_device_lost. */
	return __atomic_load_n(&port_core(port)->removed, __ATOMIC_ACQUIRE);
}

void unic_port_mac_init(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	pthread_mutex_lock(&port_core(port)->lock);
	memcpy(port->mac, mac, UNIC_ETHER_ADDR_LEN);
	pthread_mutex_unlock(&port_core(port)->lock);
}

/* ---- state checks -------------------------------------------------------- */

int port_lock_alive(struct unic_port *port, const char *what)
{
	struct port_core *pc = port_core(port);

	pthread_mutex_lock(&pc->lock);
	if (pc->state == UNIC_PORT_CLOSED || pc->state == UNIC_PORT_DETACHED) {
		UNIC_LOG(DEBUG, PORT, "%s: %s: the port is %s", port->name, what,
			 unic_port_state_name(pc->state));
		pthread_mutex_unlock(&pc->lock);
		return -ENODEV;
	}
	return 0;
}

void port_unlock(struct unic_port *port)
{
	pthread_mutex_unlock(&port_core(port)->lock);
}

/* Refuse @p what unless the state is one of @p allowed (bit per state). */
static int port_need_state(struct unic_port *port, unsigned allowed, const char *what,
			   const char *needed)
{
	enum unic_port_state st = port_core(port)->state;

	if (allowed & (1u << st))
		return 0;
	if (st == UNIC_PORT_CLOSED || st == UNIC_PORT_DETACHED) {
		UNIC_LOG(ERR, PORT, "%s: %s: the port is %s", port->name, what, unic_port_state_name(st));
		return -ENODEV;
	}
	UNIC_LOG(ERR, PORT, "%s: %s needs the port %s; it is %s", port->name, what, needed,
		 unic_port_state_name(st));
	return st == UNIC_PORT_STARTED ? -EBUSY : -EINVAL;
}

#define ST(s) (1u << UNIC_PORT_##s)

/* Lock held. -ENODEV with what to do when the bus took the device back. */
int port_check_removed(struct unic_port *port, const char *what)
{
	if (!port_core(port)->removed)
		return 0;
	UNIC_LOG(ERR, PORT, "%s: %s: its device was released (the kernel took it back, or it vanished); detach the port, bind the device again (unic-devbind --bind vfio-pci <BDF>) and probe it again",
		 port->name, what);
	return -ENODEV;
}

/* port_need_state for what needs the device: refused once it was removed. */
static int port_need_device(struct unic_port *port, unsigned allowed, const char *what,
			    const char *needed)
{
	int rc = port_check_removed(port, what);

	return rc ? rc : port_need_state(port, allowed, what, needed);
}

static void release_queues(struct unic_port *port)
{
	for (unsigned q = 0; q < UNIC_PORT_MAX_QUEUES; q++) {
		port_queue_release(port, false, q);
		port_queue_release(port, true, q);
		fp_queue_set(port, false, q, NULL);
		fp_queue_set(port, true, q, NULL);
	}
}

static bool all_queues_ready(const struct unic_port *port)
{
	for (unsigned q = 0; q < port->conf.nb_rxq; q++)
		if (!port->rxq[q].q)
			return false;
	for (unsigned q = 0; q < port->conf.nb_txq; q++)
		if (!port->txq[q].q)
			return false;
	return true;
}

/* ---- lifecycle ----------------------------------------------------------- */

int unic_port_info_get(struct unic_port *port, struct unic_port_info *info)
{
	int rc = port_lock_alive(port, "info");

	if (rc)
		return rc;
	memset(info, 0, sizeof(*info));
	info->numa_node = port->numa_node;
	port->ops->info_get(port, info);
	port_unlock(port);
	return 0;
}

static int check_offloads(struct unic_port *port, const char *dir, uint64_t want, uint64_t capa)
{
	char missing[256], have[256];

	if ((want & ~capa) == 0)
		return 0;
	unic_offload_names(want & ~capa, missing, sizeof(missing));
	unic_offload_names(capa, have, sizeof(have));
	UNIC_LOG(ERR, PORT, "%s: %s offloads not supported by this port: %s (it supports: %s)",
		 port->name, dir, missing, have[0] ? have : "none");
	return -EINVAL;
}

static int check_conf(struct unic_port *port, struct unic_port_conf *c,
		      const struct unic_port_info *info)
{
	int rc;

	if (c->nb_rxq == 0 || c->nb_rxq > info->max_rxq || c->nb_txq == 0 || c->nb_txq > info->max_txq) {
		UNIC_LOG(ERR, PORT, "%s: %u rx and %u tx queues asked; this port takes 1..%u rx and 1..%u tx",
			 port->name, c->nb_rxq, c->nb_txq, info->max_rxq, info->max_txq);
		return -EINVAL;
	}
	rc = check_offloads(port, "rx", c->rx_offloads, info->rx_offload_capa);
	if (rc)
		return rc;
	rc = check_offloads(port, "tx", c->tx_offloads, info->tx_offload_capa);
	if (rc)
		return rc;
	if (c->mtu == 0)
		c->mtu = 1500;
	if (c->mtu < info->min_mtu || c->mtu > info->max_mtu) {
		UNIC_LOG(ERR, PORT, "%s: MTU %u; this port takes %u..%u%s%s", port->name, c->mtu,
			 info->min_mtu, info->max_mtu, port_mtu_why(port) ? ": " : "",
			 port_mtu_why(port) ? port_mtu_why(port) : "");
		return -EINVAL;
	}
	if (c->rss_hash_types & ~info->rss_hash_capa) {
		UNIC_LOG(ERR, PORT, "%s: RSS hash types 0x%" PRIx64 " asked; this port hashes 0x%" PRIx64 " (see UNIC_RSS_* in port.h)",
			 port->name, c->rss_hash_types, info->rss_hash_capa);
		return -EINVAL;
	}
	if (c->rss_key_len > UNIC_RSS_KEY_MAX || (c->rss_key_len && c->rss_key_len != info->rss_key_size)) {
		UNIC_LOG(ERR, PORT, "%s: RSS key of %u bytes; this port takes %u", port->name,
			 c->rss_key_len, info->rss_key_size);
		return -EINVAL;
	}
	if (c->rx_mode == UNIC_RX_MODE_DEFAULT)
		c->rx_mode = UNIC_RX_MODE_POLL;
	if ((unsigned)c->rx_mode > UNIC_RX_MODE_HYBRID) {
		UNIC_LOG(ERR, PORT, "%s: unknown rx mode %d (poll, interrupt or hybrid)", port->name, (int)c->rx_mode);
		return -EINVAL;
	}
	if (c->rx_mode != UNIC_RX_MODE_POLL && !info->has_intr) {
		/* Degrade, do not fail: the port still works by polling. */
		UNIC_LOG(WARNING, PORT, "%s: %s mode asked but the %s driver has no rx interrupts; using poll mode",
			 port->name, unic_rx_mode_name(c->rx_mode), info->driver);
		c->rx_mode = UNIC_RX_MODE_POLL;
	}
	return 0;
}

int unic_port_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	struct port_core *pc = port_core(port);
	struct unic_port_info info;
	struct unic_port_conf c;
	int rc;

	if (unic_conf_copy(&c, sizeof(c), conf) < 0) {
		UNIC_LOG(ERR, PORT, "%s: configure: conf missing, or .sz %zu not in %zu..%zu: set .sz = sizeof(struct unic_port_conf)",
			 port->name, conf ? conf->sz : 0, sizeof(size_t), sizeof(c));
		return -EINVAL;
	}
	pthread_mutex_lock(&pc->lock);
	rc = port_need_device(port, ST(ALLOCATED) | ST(CONFIGURED) | ST(READY), "configure",
			     "allocated, configured or stopped");
	if (rc)
		goto out;
	memset(&info, 0, sizeof(info));
	info.numa_node = port->numa_node;
	port->ops->info_get(port, &info);
	rc = check_conf(port, &c, &info);
	if (rc)
		goto out;
	release_queues(port);
	rc = port->ops->configure(port, &c);
	if (rc) {
		UNIC_LOG(ERR, PORT, "%s: the %s driver refused the configuration: %s", port->name,
			 info.driver, strerror(-rc));
		pc->state = UNIC_PORT_ALLOCATED;
		goto out;
	}
	port->conf = c;
	pc->state = UNIC_PORT_CONFIGURED;
out:
	pthread_mutex_unlock(&pc->lock);
	return rc;
}

int unic_port_conf_get(struct unic_port *port, struct unic_port_conf *conf)
{
	int rc = port_lock_alive(port, "conf_get");

	if (rc)
		return rc;
	if (port_core(port)->state == UNIC_PORT_ALLOCATED)
		rc = -EINVAL;
	else
		*conf = port->conf;
	port_unlock(port);
	return rc;
}

static int check_desc(struct unic_port *port, const char *dir, uint16_t *nb, uint16_t min,
		      uint16_t max, uint16_t align, uint16_t def)
{
	if (*nb == 0)
		*nb = def;
	if (*nb < min || *nb > max || (align > 1 && *nb % align)) {
		UNIC_LOG(ERR, PORT, "%s: %u %s descriptors; this port takes %u..%u in multiples of %u",
			 port->name, *nb, dir, min, max, align ? align : 1);
		return -EINVAL;
	}
	return 0;
}

/* Burst a poller takes at once, counted in the pool sizing rule. */
#define PORT_POOL_BURST 32

uint64_t port_pool_need(const struct unic_port *port, const struct unic_pool *pool,
			uint16_t q, uint16_t nb_desc, char *why, size_t why_len)
{
	struct unic_port_info info;
	uint64_t rx = 0, tx = 0, queues = 0;

	memset(&info, 0, sizeof(info));
	port->ops->info_get((struct unic_port *)(uintptr_t)port, &info);
	for (unsigned i = 0; i < port->conf.nb_rxq; i++) {
		if (i == q) {
			rx += nb_desc;
			queues++;
		} else if (port->rxq[i].q && port->rxq[i].pool == pool) {
			rx += port->rxq[i].nb_desc;
			queues++;
		}
	}
	/* Transmit rings may hold these packets until sent; a queue not set up
	 * yet counts at the driver's default size. */
	for (unsigned i = 0; i < port->conf.nb_txq; i++)
		tx += port->txq[i].q ? port->txq[i].nb_desc : info.tx_desc_default;
	uint64_t bursts = queues * PORT_POOL_BURST;
	uint64_t caches = queues * (pool->cache_size ? pool->cache_flush_thresh : 0);

	snprintf(why, why_len,
		 "rx descriptors %" PRIu64 " + tx descriptors %" PRIu64 " + bursts %" PRIu64
		 " (%u per rx queue) + per-thread caches %" PRIu64 " (up to %u per polling thread)",
		 rx, tx, bursts, PORT_POOL_BURST, caches,
		 pool->cache_size ? pool->cache_flush_thresh : 0);
	return rx + tx + bursts + caches;
}

int unic_port_rx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *conf)
{
	struct port_core *pc = port_core(port);
	struct unic_port_info info;
	struct unic_rxq_conf c;
	char why[256];
	uint64_t need;
	void *qobj = NULL;
	int rc;

	if (unic_conf_copy(&c, sizeof(c), conf) < 0) {
		UNIC_LOG(ERR, PORT, "%s: rx queue setup: conf missing, or .sz %zu not in %zu..%zu: set .sz = sizeof(struct unic_rxq_conf)",
			 port->name, conf ? conf->sz : 0, sizeof(size_t), sizeof(c));
		return -EINVAL;
	}
	pthread_mutex_lock(&pc->lock);
	rc = port_need_device(port, ST(CONFIGURED) | ST(READY), "rx queue setup", "configured or stopped");
	if (rc)
		goto out;
	if (q >= port->conf.nb_rxq) {
		UNIC_LOG(ERR, PORT, "%s: rx queue %u does not exist: the port is configured with %u rx queues (0..%u)",
			 port->name, q, port->conf.nb_rxq, port->conf.nb_rxq - 1);
		rc = -EINVAL;
		goto out;
	}
	if (c.pool == NULL || !c.pool->is_pktpool) {
		UNIC_LOG(ERR, PORT, "%s: rx queue %u needs a packet pool (unic_pktpool_create)", port->name, q);
		rc = -EINVAL;
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.numa_node = port->numa_node;
	port->ops->info_get(port, &info);
	rc = check_desc(port, "rx", &c.nb_desc, info.rx_desc_min, info.rx_desc_max,
			info.rx_desc_align, info.rx_desc_default);
	if (rc)
		goto out;
	if (c.numa_node < 0)
		c.numa_node = port->numa_node < 0 ? 0 : port->numa_node;
	/* A frame of MTU + Ethernet header, CRC and one VLAN tag must fit one
	 * buffer unless the port chains buffers. */
	if ((uint32_t)port->conf.mtu + 22 > c.pool->pkt_dataroom &&
	    !(port->conf.rx_offloads & UNIC_RX_OFFLOAD_SCATTER)) {
		UNIC_LOG(ERR, PORT, "%s: MTU %u needs %u-byte buffers but pool %s has %u; enable the scatter rx offload or use a larger data room",
			 port->name, port->conf.mtu, port->conf.mtu + 22, c.pool->name, c.pool->pkt_dataroom);
		rc = -EINVAL;
		goto out;
	}
	need = port_pool_need(port, c.pool, q, c.nb_desc, why, sizeof(why));
	if (need > c.pool->count) {
		UNIC_LOG(ERR, PORT, "%s: pool %s has %u packets but the port's queues may hold %" PRIu64 ": %s; create the pool with at least %" PRIu64 " packets",
			 port->name, c.pool->name, c.pool->count, need, why, need);
		rc = -ENOBUFS;
		goto out;
	}
	if (port->rxq[q].q) {
		port_queue_release(port, false, q);
		fp_queue_set(port, false, q, NULL);
	}
	rc = port->ops->rx_queue_setup(port, q, &c, &qobj);
	if (rc) {
		UNIC_LOG(ERR, PORT, "%s: rx queue %u setup failed: %s", port->name, q, strerror(-rc));
		port->rxq[q].rx_cnt = NULL; /* not read: the driver failed */
		pc->state = UNIC_PORT_CONFIGURED;
		goto out;
	}
	port->rxq[q].q = qobj;
	port->rxq[q].nb_desc = c.nb_desc;
	port->rxq[q].pool = c.pool;
	fp_queue_set(port, false, q, qobj);
	pc->state = all_queues_ready(port) ? UNIC_PORT_READY : UNIC_PORT_CONFIGURED;
out:
	pthread_mutex_unlock(&pc->lock);
	return rc;
}

int unic_port_tx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_txq_conf *conf)
{
	struct port_core *pc = port_core(port);
	struct unic_port_info info;
	struct unic_txq_conf c;
	void *qobj = NULL;
	int rc;

	if (unic_conf_copy(&c, sizeof(c), conf) < 0) {
		UNIC_LOG(ERR, PORT, "%s: tx queue setup: conf missing, or .sz %zu not in %zu..%zu: set .sz = sizeof(struct unic_txq_conf)",
			 port->name, conf ? conf->sz : 0, sizeof(size_t), sizeof(c));
		return -EINVAL;
	}
	pthread_mutex_lock(&pc->lock);
	rc = port_need_device(port, ST(CONFIGURED) | ST(READY), "tx queue setup", "configured or stopped");
	if (rc)
		goto out;
	if (q >= port->conf.nb_txq) {
		UNIC_LOG(ERR, PORT, "%s: tx queue %u does not exist: the port is configured with %u tx queues (0..%u)",
			 port->name, q, port->conf.nb_txq, port->conf.nb_txq - 1);
		rc = -EINVAL;
		goto out;
	}
	memset(&info, 0, sizeof(info));
	info.numa_node = port->numa_node;
	port->ops->info_get(port, &info);
	rc = check_desc(port, "tx", &c.nb_desc, info.tx_desc_min, info.tx_desc_max,
			info.tx_desc_align, info.tx_desc_default);
	if (rc)
		goto out;
	if (c.numa_node < 0)
		c.numa_node = port->numa_node < 0 ? 0 : port->numa_node;
	if (port->txq[q].q) {
		port_queue_release(port, true, q);
		fp_queue_set(port, true, q, NULL);
	}
	rc = port->ops->tx_queue_setup(port, q, &c, &qobj);
	if (rc) {
		UNIC_LOG(ERR, PORT, "%s: tx queue %u setup failed: %s", port->name, q, strerror(-rc));
		port->txq[q].tx_cnt = NULL;
		pc->state = UNIC_PORT_CONFIGURED;
		goto out;
	}
	port->txq[q].q = qobj;
	port->txq[q].nb_desc = c.nb_desc;
	fp_queue_set(port, true, q, qobj);
	pc->state = all_queues_ready(port) ? UNIC_PORT_READY : UNIC_PORT_CONFIGURED;
out:
	pthread_mutex_unlock(&pc->lock);
	return rc;
}

int unic_port_start(struct unic_port *port)
{
	struct port_core *pc = port_core(port);
	int rc;

	pthread_mutex_lock(&pc->lock);
	if (pc->state == UNIC_PORT_CONFIGURED) {
		char missing[128] = "";
		size_t off = 0;

		for (unsigned q = 0; q < port->conf.nb_rxq; q++)
			if (!port->rxq[q].q && off < sizeof(missing))
				off += (size_t)snprintf(missing + off, sizeof(missing) - off, " rx%u", q);
		for (unsigned q = 0; q < port->conf.nb_txq; q++)
			if (!port->txq[q].q && off < sizeof(missing))
				off += (size_t)snprintf(missing + off, sizeof(missing) - off, " tx%u", q);
		UNIC_LOG(ERR, PORT, "%s: start needs every queue set up; missing:%s", port->name, missing);
		rc = -EINVAL;
		goto out;
	}
	rc = port_need_device(port, ST(READY), "start", "configured with every queue set up (or stopped)");
	if (rc)
		goto out;
	rc = port->ops->start(port);
	if (rc) {
		UNIC_LOG(ERR, PORT, "%s: start failed: %s", port->name, strerror(-rc));
		goto out;
	}
	fp_set_started(port);
	__atomic_store_n(&pc->state, UNIC_PORT_STARTED, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&pc->lock);
	return rc;
}

/* ---- pollers (lib/napi) and the grace period ------------------------------
 *
 * The napi engine claims the queues it polls and the tx queues it sends on.
 * Stop, detach and device loss (port_quiesce) first switch the fast path to
 * stubs, then take every claim back and call its release, which returns
 * once the claiming context has passed a round boundary: from then on that
 * context's burst calls on the port reach the stubs. Only then do they call
 * the driver's stop, free queues or let the bus unmap the device. The port
 * lock is dropped around each release so a poller may still call control
 * functions; meanwhile `stopping` refuses new claims and other stops.
 *
 * Ordering: the stubs are stored (release) and fenced, (G1), before the
 * claim is taken back and the release posts its request under the
 * context's lock. The context applies it under the same lock (or the
 * requester does, having seen the context outside run_once, fences (R1)/(R2)
 * in lib/napi/napi_priv.h), so every burst call the context starts after
 * its boundary loads the stubs.
 */

int unic_port_poller_claim(struct unic_port *port, bool tx, uint16_t q,
			   unic_port_poller_fn release, void *owner,
			   const struct unic_port_poller_stats *stats)
{
	struct port_core *pc = port_core(port);
	struct unic_port_poller *p;
	int rc = port_lock_alive(port, "poller claim");

	if (rc)
		return rc;
	rc = port_check_removed(port, "poller claim");
	if (rc)
		goto out;
	if (pc->state != UNIC_PORT_STARTED || pc->stopping) {
		rc = pc->stopping ? -EBUSY : -EINVAL;
		goto out;
	}
	if (q >= (tx ? port->conf.nb_txq : port->conf.nb_rxq) || release == NULL ||
	    (stats && (stats->nb == 0 || stats->nb > UNIC_PORT_POLLER_STATS_MAX))) {
		rc = -EINVAL;
		goto out;
	}
	p = &pc->pollers[(tx ? UNIC_PORT_MAX_QUEUES : 0) + q];
	if (p->release != NULL) {
		rc = p->owner == owner ? -EEXIST : -EBUSY;
		goto out;
	}
	memset(p, 0, sizeof(*p));
	p->release = release;
	p->owner = owner;
	p->stats = stats;
out:
	port_unlock(port);
	return rc;
}

int unic_port_poller_drop(struct unic_port *port, bool tx, uint16_t q, void *owner)
{
	struct port_core *pc = port_core(port);
	struct unic_port_poller *p;
	int rc = -ENOENT;

	if (q >= UNIC_PORT_MAX_QUEUES)
		return -EINVAL;
	pthread_mutex_lock(&pc->lock);
	p = &pc->pollers[(tx ? UNIC_PORT_MAX_QUEUES : 0) + q];
	if (p->release != NULL && p->owner == owner) {
		memset(p, 0, sizeof(*p));
		rc = 0;
	}
	pthread_mutex_unlock(&pc->lock);
	return rc;
}

/*
 * The grace period. Lock held, port started. Switch the fast path to stubs,
 * then take every claim back and call its release (the lock dropped around
 * each), which returns once its context passed a round boundary. @return 0:
 * no claimant can be inside a burst call on the port any more; -EBUSY:
 * another thread is stopping the port (nothing was done).
 */
static int port_quiesce(struct unic_port *port)
{
	struct port_core *pc = port_core(port);

	if (pc->stopping) {
		UNIC_LOG(ERR, PORT, "%s: another thread is stopping the port", port->name);
		return -EBUSY;
	}
	pc->stopping = true;
	fp_set_stopped(port);
	unic_smp_mb(); /* (G1): the stubs before any claim is taken back */
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(pc->pollers); i++) {
		struct unic_port_poller p = pc->pollers[i];

		if (p.release == NULL)
			continue;
		memset(&pc->pollers[i], 0, sizeof(pc->pollers[i]));
		pthread_mutex_unlock(&pc->lock);
		p.release(port, i >= UNIC_PORT_MAX_QUEUES, (uint16_t)(i % UNIC_PORT_MAX_QUEUES),
			  p.owner);
		pthread_mutex_lock(&pc->lock);
	}
	pc->stopping = false;
	return 0;
}

/* Lock held, port started: the grace period, then the driver's stop. */
static int port_stop_locked(struct unic_port *port)
{
	int rc = port_quiesce(port);

	if (rc)
		return rc;
	/* Still started: `stopping` kept other stops and detaches out. */
	port->ops->stop(port);
	__atomic_store_n(&port_core(port)->state, UNIC_PORT_READY, __ATOMIC_RELEASE);
	return 0;
}

int unic_port_stop(struct unic_port *port)
{
	int rc;

	pthread_mutex_lock(&port_core(port)->lock);
	rc = port_need_state(port, ST(STARTED), "stop", "started");
	if (rc == 0)
		rc = port_stop_locked(port);
	pthread_mutex_unlock(&port_core(port)->lock);
	return rc;
}

int unic_port_device_lost(struct unic_port *port, bool gone)
{
	struct port_core *pc = port_core(port);
	bool was_started = false;
	int rc = 0;

	unic_port_event_post(port, gone ? UNIC_EVENT_DEV_GONE : UNIC_EVENT_DEV_REQUEST);
	/* Not a plain lock: a thread closing the port holds the lock while
	 * the driver's close waits for the bus's release handler, which is
	 * the caller. That close releases the device itself. */
	while (pthread_mutex_trylock(&pc->lock) != 0) {
		if (__atomic_load_n(&pc->closing, __ATOMIC_ACQUIRE))
			return -EBUSY;
		usleep(100);
	}
	if (pc->state == UNIC_PORT_CLOSED || pc->state == UNIC_PORT_DETACHED) {
		pthread_mutex_unlock(&pc->lock);
		return 0;
	}
	if (pc->state == UNIC_PORT_STARTED) {
		/* Another thread stopping it waits for our pollers too; wait
		 * for it to finish rather than stop twice. */
		while (pc->stopping) {
			pthread_mutex_unlock(&pc->lock);
			usleep(100);
			pthread_mutex_lock(&pc->lock);
		}
		if (pc->state == UNIC_PORT_STARTED) {
			rc = port_stop_locked(port);
			was_started = rc == 0;
		}
	}
	/* Release: drivers read it without the lock (e1000e's hw_off). */
	__atomic_store_n(&pc->removed, true, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pc->lock);
	UNIC_LOG(WARNING, PORT, "%s: %s; %s, only stats, close and detach work on it now",
		 port->name, gone ? "its device vanished" : "the kernel asked for its device back",
		 was_started ? "port stopped (after its pollers passed a round boundary)" : "port was not started");
	return 0;
}

static void port_close_locked(struct unic_port *port)
{
	struct port_core *pc = port_core(port);

	__atomic_store_n(&pc->closing, true, __ATOMIC_RELEASE);
	release_queues(port);
	port_flow_free_all(port, !pc->removed);
	port->ops->close(port);
	port_dma_free_all(port);
	__atomic_store_n(&pc->closing, false, __ATOMIC_RELEASE);
	__atomic_store_n(&pc->state, UNIC_PORT_CLOSED, __ATOMIC_RELEASE);
}

int unic_port_close(struct unic_port *port)
{
	int rc;

	pthread_mutex_lock(&port_core(port)->lock);
	rc = port_need_state(port, ST(ALLOCATED) | ST(CONFIGURED) | ST(READY), "close",
			     "stopped (stop it first)");
	if (rc == 0)
		port_close_locked(port);
	pthread_mutex_unlock(&port_core(port)->lock);
	return rc;
}

int unic_port_detach(struct unic_port *port)
{
	struct port_core *pc = port_core(port);
	bool registered;

	pthread_mutex_lock(&pc->lock);
	if (pc->state == UNIC_PORT_DETACHED) {
		pthread_mutex_unlock(&pc->lock);
		return -ENODEV;
	}
	if (pc->state == UNIC_PORT_STARTED && port_stop_locked(port) != 0) {
		pthread_mutex_unlock(&pc->lock);
		return -EBUSY;
	}
	if (pc->state != UNIC_PORT_CLOSED)
		port_close_locked(port);
	__atomic_store_n(&pc->state, UNIC_PORT_DETACHED, __ATOMIC_RELEASE);
	registered = pc->registered;
	pc->registered = false;
	pthread_mutex_unlock(&pc->lock);

	if (registered) {
		pthread_mutex_lock(&reg_lock);
		if (registry[pc->id] == port)
			registry[pc->id] = NULL;
		pthread_mutex_unlock(&reg_lock);
		unic_port_put(port); /* the registry's reference */
	}
	return 0;
}
