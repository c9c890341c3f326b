/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif port: its ops, its devargs and its table entry
 * (docs/ports.md, "memif").
 *
 * Spec: memif0,role=server,id=0,socket=/run/memif.sock,... with the keys of
 * DPDK's net_memif: role, id, socket, socket-abstract, secret, bsize, rsize,
 * mac, zero-copy (yes on a client only: memif_zc.c lends the rx pool).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "memif_priv.h"
#include "unic_pmds.h"

#define MEMIF_DESC_DEFAULT 256  /* unused (the ring size is rsize=): small, so the pool rule asks little */

static void memif_info_get(struct unic_port *port, struct unic_port_info *info)
{
	snprintf(info->driver, sizeof(info->driver), "memif");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "vdev");
	info->numa_node = -1;
	info->max_rxq = MEMIF_MAX_QUEUES;
	info->max_txq = MEMIF_MAX_QUEUES;
	info->rx_desc_min = 1;
	info->rx_desc_max = 32768;
	info->rx_desc_align = 1;
	info->rx_desc_default = MEMIF_DESC_DEFAULT;
	info->tx_desc_min = 1;
	info->tx_desc_max = 32768;
	info->tx_desc_align = 1;
	info->tx_desc_default = MEMIF_DESC_DEFAULT;
	info->min_mtu = 68;
	info->max_mtu = 9216;
	info->speed_capa_mbps = MEMIF_SPEED_MBPS;
	info->has_intr = true;
	info->rx_pool_shareable = memif_priv(port)->cfg.zc;
	if (memif_priv(port)->cfg.zc) {
		/* Zero-copy holds a pool packet in every slot of an rx ring
		 * (lent) and of a tx ring (until consumed): the pool rule
		 * must count rsize=, not the copy path's small default. */
		info->rx_desc_default = (uint16_t)(1u << memif_priv(port)->cfg.log2);
		info->tx_desc_default = info->rx_desc_default;
	}
}

static int memif_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	(void)port;
	(void)conf;
	return 0;
}

static int memif_rx_queue_setup(struct unic_port *port, uint16_t q,
				const struct unic_rxq_conf *conf, void **out)
{
	struct memif_queue *rxq = &memif_priv(port)->rxq[q];

	if (rxq->intr_epfd < 0) {
		/* The queue's interrupt as napi sees it: an epoll fd that holds
		 * the current connection's eventfd for this ring, so it stays
		 * the same fd across reconnects. */
		rxq->intr_epfd = epoll_create1(EPOLL_CLOEXEC);
		if (rxq->intr_epfd < 0) {
			int err = errno;

			UNIC_PORT_LOG(port, ERR, "rx queue %u: epoll_create1: %s", q, strerror(err));
			return -err;
		}
	}
	rxq->pool = conf->pool;
	rxq->port_id = unic_port_id(port);
	rxq->qid = q;
	unic_port_rxq_counters(port, q, &rxq->rxc);
	*out = rxq;
	return 0;
}

static void memif_rx_queue_release(struct unic_port *port, uint16_t q, void *rxq)
{
	struct memif_queue *mq = rxq;

	(void)port;
	(void)q;
	if (mq->intr_epfd >= 0)
		close(mq->intr_epfd);
	mq->intr_epfd = -1;
	mq->pool = NULL;
}

static int memif_tx_queue_setup(struct unic_port *port, uint16_t q,
				const struct unic_txq_conf *conf, void **out)
{
	struct memif_queue *txq = &memif_priv(port)->txq[q];

	(void)conf;
	txq->qid = q;
	unic_port_txq_counters(port, q, &txq->txc);
	*out = txq;
	return 0;
}

static void memif_tx_queue_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)port;
	(void)q;
	(void)txq;
}

static int memif_start(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);

	int rc;

	mp->cfg.nb_rxq = port->conf.nb_rxq;
	mp->cfg.nb_txq = port->conf.nb_txq;
	rc = memif_zc_prepare(port);
	if (rc < 0)
		return rc;
	return memif_ctrl_start(port);
}

static void memif_stop(struct unic_port *port)
{
	memif_ctrl_stop(port);
}

static void memif_close(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);

	memif_ctrl_stop(port);
	for (unsigned q = 0; q < MEMIF_MAX_QUEUES; q++)
		if (mp->rxq[q].intr_epfd >= 0) {
			close(mp->rxq[q].intr_epfd);
			mp->rxq[q].intr_epfd = -1;
		}
	if (mp->listen_fd >= 0) {
		close(mp->listen_fd);
		mp->listen_fd = -1;
		if (mp->unlink_at_close)
			unlink(mp->socket);
	}
	if (mp->stop_fd >= 0)
		close(mp->stop_fd);
	if (mp->wake_fd >= 0)
		close(mp->wake_fd);
	mp->stop_fd = mp->wake_fd = -1;
}

static int memif_link_get(struct unic_port *port, struct unic_link *link)
{
	bool up = unic_load_acquire(&memif_priv(port)->link_up) != 0;

	link->up = up;
	link->speed_mbps = up ? MEMIF_SPEED_MBPS : 0;
	link->full_duplex = up;
	link->autoneg = false;
	return 0;
}

static const char *const memif_xstat_names[] = {
	"connects",          /* connections made */
	"disconnects",       /* connections lost (peer left, broke the protocol, stop) */
	"proto_errors",      /* connections dropped: a bad message, a broken ring, a timeout */
	"refused_peers",     /* server: a second client for the same id */
	"rx_bad_desc",       /* frames dropped: descriptor outside the agreed regions, or empty */
	"rx_too_long",       /* frames dropped: longer than the rx pool's data room */
	"rx_bad_index",      /* the peer's head/tail claimed more than the ring holds */
	"rx_lost_at_disconnect", /* frames the peer had put in a ring, unread when the connection ended */
	"tx_ring_full",      /* packets not taken: no free slot */
	"tx_link_down",      /* packets not taken: not connected */
	"tx_bad_index",      /* the peer's head/tail or buffer was out of range */
	"tx_signals",        /* eventfd writes to the peer */
	"rx_zc_bad_addr",    /* zero-copy: frames dropped, the descriptor was not the buffer lent */
	"tx_zc_copied",      /* zero-copy: frames copied (another pool, or a chain) */
	"tx_too_long",       /* zero-copy: frames dropped, a copy longer than bsize */
};

static int memif_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max)
{
	(void)port;
	return unic_port_xstats_names_fill(names, max, memif_xstat_names, UNIC_ARRAY_SIZE(memif_xstat_names));
}

static int memif_xstats_get(struct unic_port *port, uint64_t *values, unsigned max)
{
	struct memif_port *mp = memif_priv(port);
	uint64_t v[UNIC_ARRAY_SIZE(memif_xstat_names)] = {
		__atomic_load_n(&mp->connects, __ATOMIC_RELAXED),
		__atomic_load_n(&mp->disconnects, __ATOMIC_RELAXED),
		__atomic_load_n(&mp->proto_errors, __ATOMIC_RELAXED),
		__atomic_load_n(&mp->refused_peers, __ATOMIC_RELAXED),
	};

	for (unsigned q = 0; q < MEMIF_MAX_QUEUES; q++) {
		v[4] += unic_counter_read(&mp->rxq[q].bad_desc);
		v[5] += unic_counter_read(&mp->rxq[q].too_long);
		v[6] += unic_counter_read(&mp->rxq[q].bad_index);
		v[7] += unic_counter_read(&mp->rxq[q].lost_at_down);
		v[8] += unic_counter_read(&mp->txq[q].ring_full);
		v[9] += unic_counter_read(&mp->txq[q].link_down);
		v[10] += unic_counter_read(&mp->txq[q].bad_index);
		v[11] += __atomic_load_n(&mp->txq[q].signals, __ATOMIC_RELAXED);
		v[12] += unic_counter_read(&mp->rxq[q].zc_bad_addr);
		v[13] += unic_counter_read(&mp->txq[q].zc_copied);
		v[14] += unic_counter_read(&mp->txq[q].too_long);
	}
	return unic_port_xstats_values_fill(values, max, v, UNIC_ARRAY_SIZE(v));
}

/* One interrupt fd per rx queue (an epoll fd holding the ring's eventfd). */
static int memif_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max)
{
	struct memif_port *mp = memif_priv(port);
	unsigned n = 0;

	for (uint16_t q = 0; q < MEMIF_MAX_QUEUES; q++) {
		if (mp->rxq[q].intr_epfd < 0 || mp->rxq[q].pool == NULL)
			continue;
		if (n < max)
			src[n] = (struct unic_intr_source){
				.fd = mp->rxq[q].intr_epfd,
				.kind = UNIC_INTR_EVENTFD,
				.queue_mask = 1u << q,
				.index = q,
			};
		n++;
	}
	return (int)n;
}

static const struct unic_port_ops memif_ops = {
	.info_get = memif_info_get,
	.configure = memif_configure,
	.rx_queue_setup = memif_rx_queue_setup,
	.rx_queue_release = memif_rx_queue_release,
	.tx_queue_setup = memif_tx_queue_setup,
	.tx_queue_release = memif_tx_queue_release,
	.start = memif_start,
	.stop = memif_stop,
	.close = memif_close,
	.rx_burst = memif_rx_burst,
	.tx_burst = memif_tx_burst,
	.rx_pending = memif_rx_pending,
	.rx_intr_enable = memif_rx_intr_enable,
	.rx_intr_disable = memif_rx_intr_disable,
	.link_get = memif_link_get,
	.xstats_names = memif_xstats_names,
	.xstats_get = memif_xstats_get,
	.intr_sources = memif_intr_sources,
};

/* ---- creation ----------------------------------------------------------- */

static void memif_setup(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);

	port->ops = &memif_ops;
	port->drv = &unic_memif_driver;
	port->numa_node = -1;
	mp->listen_fd = mp->conn_fd = mp->stop_fd = mp->wake_fd = -1;
	for (unsigned q = 0; q < MEMIF_MAX_QUEUES; q++) {
		mp->rxq[q].intr_epfd = mp->rxq[q].intr_member = -1;
		mp->txq[q].intr_epfd = mp->txq[q].intr_member = -1;
		mp->rxq[q].efd = mp->txq[q].efd = -1;
	}
}

/* Copy string @p key's value into @p dst (at most @p max - 1 bytes). @return
 * 0, -ENOENT, or -EINVAL (too long, logged). */
static int memif_arg_str(const char *name, const char *args, const char *key, char *dst,
			 size_t max)
{
	const char *v;
	int len = unic_kvargs_get(args, key, &v);

	if (len < 0)
		return len;
	if ((size_t)len >= max) {
		UNIC_LOG(ERR, PMD, "%s: %s= takes at most %zu characters, got %d", name, key,
			 max - 1, len);
		return -EINVAL;
	}
	memcpy(dst, v, (size_t)len);
	dst[len] = '\0';
	return 0;
}

static int memif_arg_bool(const char *name, const char *args, const char *key, bool *out)
{
	char v[8];
	int rc = memif_arg_str(name, args, key, v, sizeof(v));

	if (rc < 0)
		return rc == -ENOENT ? 0 : rc;
	if (strcmp(v, "yes") == 0)
		*out = true;
	else if (strcmp(v, "no") == 0)
		*out = false;
	else {
		UNIC_LOG(ERR, PMD, "%s: %s=%s: expected yes or no", name, key, v);
		return -EINVAL;
	}
	return 0;
}

static int memif_parse(const char *name, const char *args, struct memif_port *mp, uint8_t mac[6],
		       bool *has_mac)
{
	static const char *const keys[] = { "role", "id", "socket", "socket-abstract", "secret",
					    "bsize", "rsize", "mac", "zero-copy", NULL };
	char v[32];
	uint32_t u;
	bool zc = false;
	int rc;

	rc = unic_kvargs_check("memif", args, keys);
	if (rc < 0)
		return rc;
	mp->cfg.role = MEMIF_CLIENT;
	rc = memif_arg_str(name, args, "role", v, sizeof(v));
	if (rc == 0) {
		if (strcmp(v, "server") == 0)
			mp->cfg.role = MEMIF_SERVER;
		else if (strcmp(v, "client") != 0) {
			UNIC_LOG(ERR, PMD, "%s: role=%s: expected server or client", name, v);
			return -EINVAL;
		}
	} else if (rc != -ENOENT)
		return rc;
	rc = unic_kvargs_u32("memif", args, "id", 0, UINT32_MAX, &mp->cfg.id);
	if (rc < 0 && rc != -ENOENT)
		return rc;
	snprintf(mp->socket, sizeof(mp->socket), "%s", MEMIF_SOCKET_DEFAULT);
	rc = memif_arg_str(name, args, "socket", mp->socket, sizeof(mp->socket) - 1);
	if (rc < 0 && rc != -ENOENT)
		return rc;
	if (mp->socket[0] == '\0') {
		UNIC_LOG(ERR, PMD, "%s: socket= is empty; give a path such as /run/memif.sock", name);
		return -EINVAL;
	}
	mp->abstract = true; /* DPDK 22.11's net_memif default */
	rc = memif_arg_bool(name, args, "socket-abstract", &mp->abstract);
	if (rc < 0)
		return rc;
	rc = memif_arg_str(name, args, "secret", mp->cfg.secret, sizeof(mp->cfg.secret));
	if (rc < 0 && rc != -ENOENT)
		return rc;
	mp->cfg.bsize = MEMIF_BSIZE_DEFAULT;
	rc = unic_kvargs_u32("memif", args, "bsize", MEMIF_BSIZE_MIN, MEMIF_BSIZE_MAX, &mp->cfg.bsize);
	if (rc < 0 && rc != -ENOENT)
		return rc;
	u = MEMIF_LOG2_DEFAULT;
	rc = unic_kvargs_u32("memif", args, "rsize", 1, MEMIF_LOG2_RING_MAX, &u);
	if (rc < 0 && rc != -ENOENT)
		return rc;
	mp->cfg.log2 = (uint8_t)u;
	rc = memif_arg_bool(name, args, "zero-copy", &zc);
	if (rc < 0)
		return rc;
	if (zc && mp->cfg.role == MEMIF_SERVER) {
		UNIC_LOG(ERR, PMD, "%s: zero-copy=yes with role=server: in memif only the client "
			 "creates the shared memory (the server maps it), so only a client can lend "
			 "its buffers; use zero-copy=yes on the client, or leave it out here", name);
		return -ENOTSUP;
	}
	mp->cfg.zc = zc;
	rc = memif_arg_str(name, args, "mac", v, sizeof(v));
	if (rc == 0) {
		unsigned b[6];
		char end;

		if (sscanf(v, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
			   &end) != 6) {
			UNIC_LOG(ERR, PMD, "%s: mac=%s: expected six hex bytes, 02:00:00:00:00:01", name, v);
			return -EINVAL;
		}
		for (int i = 0; i < 6; i++)
			mac[i] = (uint8_t)b[i];
		*has_mac = true;
	} else if (rc != -ENOENT)
		return rc;
	return 0;
}

static int memif_vdev_create(const char *name, const char *args, struct unic_port **out)
{
	struct unic_port *port;
	struct memif_port *mp;
	uint8_t mac[6];
	bool has_mac = false;
	int rc;

	if (args == NULL)
		args = "";
	port = unic_port_alloc(sizeof(struct memif_port), name, memif_setup);
	if (port == NULL)
		return -errno;
	mp = memif_priv(port);
	rc = memif_parse(name, args, mp, mac, &has_mac);
	if (rc < 0)
		goto put;
	snprintf(mp->cfg.if_name, sizeof(mp->cfg.if_name), "%s", name);
	mp->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	mp->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (mp->stop_fd < 0 || mp->wake_fd < 0) {
		rc = -errno;
		UNIC_LOG(ERR, PMD, "%s: eventfd: %s", name, strerror(errno));
		goto close;
	}
	if (mp->cfg.role == MEMIF_SERVER) {
		rc = memif_listen(port);
		if (rc < 0)
			goto close;
	}
	rc = unic_port_register(port);
	if (rc < 0)
		goto close;
	if (!has_mac) {
		/* Locally administered; the process and the port id make it
		 * differ between the two ends of a link. */
		uint32_t pid = (uint32_t)getpid();

		mac[0] = 0x02;
		mac[1] = 0x6d;  /* 'm' */
		mac[2] = (uint8_t)(pid >> 16);
		mac[3] = (uint8_t)(pid >> 8);
		mac[4] = (uint8_t)pid;
		mac[5] = (uint8_t)unic_port_id(port);
	}
	unic_port_mac_init(port, mac);
	*out = port;
	return 0;

close:
	memif_close(port);
put:
	unic_port_put(port);
	return rc;
}

const struct unic_driver unic_memif_driver = {
	.name = "memif",
	.flow_why = "a virtual port has no filter hardware: the peer's rings deliver every frame",
	.vdev_create = memif_vdev_create,
};
