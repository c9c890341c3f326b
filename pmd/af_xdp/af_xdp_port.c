/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_xdp port, control part: devargs, the interface (index, MAC, link,
 * MTU, flags, queue count), the sockets and their UMEMs (the rx pool, or a
 * zone of frames; opened at start, closed at stop), statistics, the ops.
 * The XDP program is af_xdp_prog.c's, the rings af_xdp_rxtx.c's
 * (docs/ports.md, "af_xdp").
 *
 * Spec: af_xdp0,iface=veth0[,start_queue=0][,queue_count=1][,busy_budget=0]
 *       [,force_copy=0][,xdp_mode=native|generic][,xdp_prog=FILE.o]
 *       [,xdp_prog_sec=SECTION][,pool_umem=1]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <unic/pool.h>

#include "af_xdp_priv.h"
#include "unic_pmds.h"
#include "unic_pool_span.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

#define AFXDP_MTU_MAX (AFXDP_FRAME_SIZE - XDP_PACKET_HEADROOM - 22)  /* Ethernet + VLAN tag + FCS room */
#define AFXDP_BUSY_POLL_US 20
#define AFXDP_BUSY_TRIES 100  /* 10 ms apart: the kernel's deferred socket release */
#define AFXDP_CHUNK_MIN 2048  /* the kernel's smallest UMEM chunk (XDP_UMEM_MIN_CHUNK_SIZE) */

static const char *const afxdp_rx_names[AFXDP_RX_NB] = {
	"rx_bad_addr", "rx_bad_len", "rx_too_long", "rx_bad_index", "rx_wakeups",
};
static const char *const afxdp_tx_names[AFXDP_TX_NB] = {
	"tx_bad_addr", "tx_bad_index", "tx_ring_full", "tx_too_long", "tx_wakeups", "tx_kick_errors",
};
static const char *const afxdp_k_names[AFXDP_K_NB] = {
	"xsk_rx_dropped", "xsk_rx_invalid_descs", "xsk_tx_invalid_descs",
	"xsk_rx_ring_full", "xsk_rx_fill_ring_empty", "xsk_tx_ring_empty",
};

/* ---- the interface ------------------------------------------------------ */

/* An ioctl on the interface through a throwaway socket. @return 0 or -errno. */
static int afxdp_ifreq(const char *ifname, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ifname);
	if (ioctl(fd, req, ifr) < 0)
		rc = -errno;
	close(fd);
	return rc;
}

/* Rx queues of the interface: ethtool's channels, else sysfs. *combined
 * says whether the driver counts them as combined channels (else rx and tx). */
static int afxdp_if_queues(const char *ifname, bool *combined)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr = { .ifr_data = (void *)&ch };
	char path[128];
	int n;

	*combined = true;
	if (afxdp_ifreq(ifname, SIOCETHTOOL, &ifr) == 0) {
		*combined = ch.max_combined > 0;
		n = (int)(ch.combined_count + ch.rx_count);
		if (n > 0)
			return n;
	}
	for (n = 0; n < 4096; n++) {
		snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-%d", ifname, n);
		if (access(path, F_OK) != 0)
			break;
	}
	return n;
}

static int afxdp_if_flags(const char *ifname, short set, short clear)
{
	struct ifreq ifr = { 0 };
	int rc = afxdp_ifreq(ifname, SIOCGIFFLAGS, &ifr);

	if (rc < 0 || (set == 0 && clear == 0))
		return rc < 0 ? rc : ifr.ifr_flags;
	ifr.ifr_flags = (short)((ifr.ifr_flags | set) & ~clear);
	return afxdp_ifreq(ifname, SIOCSIFFLAGS, &ifr);
}

/* ---- sockets ------------------------------------------------------------ */

static uint32_t afxdp_pow2(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static void afxdp_kstats(const struct afxdp_queue *xq, uint64_t v[AFXDP_K_NB])
{
	struct xdp_statistics st = { 0 };
	socklen_t len = sizeof(st);

	for (int i = 0; i < AFXDP_K_NB; i++)
		v[i] = xq->kstat_base[i];
	if (xq->fd < 0 || getsockopt(xq->fd, SOL_XDP, XDP_STATISTICS, &st, &len) != 0)
		return;
	v[AFXDP_K_RX_DROPPED] += st.rx_dropped;
	v[AFXDP_K_RX_INVALID] += st.rx_invalid_descs;
	v[AFXDP_K_TX_INVALID] += st.tx_invalid_descs;
	v[AFXDP_K_RX_RING_FULL] += st.rx_ring_full;
	v[AFXDP_K_RX_FILL_EMPTY] += st.rx_fill_ring_empty_descs;
	v[AFXDP_K_TX_RING_EMPTY] += st.tx_ring_empty_descs;
}

static void afxdp_queue_close(struct unic_port *port, struct afxdp_queue *xq)
{
	if (xq->xsk) {
		afxdp_kstats(xq, xq->kstat_base);
		xsk_socket__delete(xq->xsk);
		xq->xsk = NULL;
	}
	xq->fd = -1;
	if (xq->umem) {
		xsk_umem__delete(xq->umem);
		xq->umem = NULL;
	}
	if (xq->pool_umem)
		afxdp_release_pool(xq);
	free(xq->rx_owned);
	free(xq->tx_owned);
	xq->rx_owned = NULL;
	xq->tx_owned = NULL;
	xq->pool_umem = false;
	unic_port_dma_free(port, &xq->dma);
	xq->area = NULL;
	free(xq->owned);
	free(xq->fill_stash);
	free(xq->tx_free);
	xq->owned = NULL;
	xq->fill_stash = NULL;
	xq->tx_free = NULL;
}

/* One try at the socket with @p bind_flags; the UMEM is made afresh each
 * time (libxdp's first socket of a UMEM takes over its fd and rings). */
static int afxdp_socket_try(struct unic_port *port, struct afxdp_queue *xq, uint16_t q,
			    uint16_t bind_flags)
{
	struct afxdp_port *xp = afxdp_priv(port);
	struct xsk_umem_config ucfg = {
		.fill_size = afxdp_pow2(xq->nb_rx_frames),
		.comp_size = afxdp_pow2(xq->nb_tx_frames),
		.frame_size = xq->pool_umem ? xq->chunk : AFXDP_FRAME_SIZE,
		.frame_headroom = 0,
		.flags = xq->pool_umem ? XDP_UMEM_UNALIGNED_CHUNK_FLAG : 0,
	};
	struct xsk_socket_config scfg = {
		.rx_size = afxdp_pow2(xq->nb_rx_frames),
		.tx_size = afxdp_pow2(xq->nb_tx_frames),
		.libxdp_flags = xp->prog_path[0] ? XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD : 0,
		.xdp_flags = (uint32_t)xp->xdp_mode,
		.bind_flags = bind_flags,
	};
	size_t len = xq->pool_umem ? xq->umem_len :
		     (size_t)(xq->nb_rx_frames + xq->nb_tx_frames) * AFXDP_FRAME_SIZE;
	int rc;

	rc = xsk_umem__create(&xq->umem, xq->pool_umem ? xq->base : xq->area, len, &xq->fq, &xq->cq,
			      &ucfg);
	if (rc) {
		UNIC_PORT_LOG(port, ERR, "queue %u: cannot register the UMEM (%zu bytes): %s", q, len,
			      strerror(-rc));
		xq->umem = NULL;
		return rc;
	}
	rc = xsk_socket__create(&xq->xsk, xp->ifname, xp->start_queue + q, xq->umem, &xq->rx,
				&xq->tx, &scfg);
	if (rc) {
		xq->xsk = NULL;
		xsk_umem__delete(xq->umem);
		xq->umem = NULL;
	}
	return rc;
}

/*
 * The rx pool as the UMEM when it can be: its objects in one zone, buffers
 * of at least the kernel's smallest chunk (2048 bytes). Else the copy
 * layout. Describes the choice in @p layout for the log.
 */
static void afxdp_umem_choose(struct unic_port *port, struct afxdp_queue *xq, char *layout,
			      size_t size)
{
	struct afxdp_port *xp = afxdp_priv(port);
	const struct unic_pool *pool = xq->pool;
	uint32_t buf_len = (uint32_t)pool->pkt_headroom + pool->pkt_dataroom;
	struct unic_pool_span span;
	uintptr_t lo, hi;

	xq->pool_umem = false;
	if (!xp->pool_umem) {
		snprintf(layout, size, "copying between the UMEM and pool '%s' (pool_umem=0): %u rx + "
			 "%u tx frames of %u bytes", pool->name, xq->nb_rx_frames, xq->nb_tx_frames,
			 AFXDP_FRAME_SIZE);
		return;
	}
	if (unic_pool_span_get(pool, &span) != 0 || buf_len < AFXDP_CHUNK_MIN) {
		snprintf(layout, size, "copying between the UMEM and pool '%s' (%s): %u rx + %u tx "
			 "frames of %u bytes", pool->name,
			 buf_len < AFXDP_CHUNK_MIN ? "its buffers are under 2048 bytes" :
			 "its packets are in several memory zones", xq->nb_rx_frames, xq->nb_tx_frames,
			 AFXDP_FRAME_SIZE);
		return;
	}
	lo = (uintptr_t)span.zone & ~(uintptr_t)(AFXDP_FRAME_SIZE - 1);
	hi = ((uintptr_t)span.zone + span.zone_len + AFXDP_FRAME_SIZE - 1) & ~(uintptr_t)(AFXDP_FRAME_SIZE - 1);
	xq->pool_umem = true;
	xq->base = (uint8_t *)lo;
	xq->umem_len = hi - lo;
	xq->first = span.first;
	afxdp_stride_set(xq, (uint32_t)span.stride);
	xq->nb_objs = span.count;
	xq->buf0 = (uint64_t)((uint8_t *)span.first + sizeof(struct unic_pkt) - xq->base);
	xq->chunk = buf_len < AFXDP_FRAME_SIZE ? buf_len : AFXDP_FRAME_SIZE;
	snprintf(layout, size, "packets of pool '%s' are the UMEM frames (no copy): %u on the fill "
		 "ring, up to %u in flight on tx, frames up to %u bytes", pool->name, xq->nb_rx_frames,
		 xq->nb_tx_frames, xq->chunk - XDP_PACKET_HEADROOM);
}

static int afxdp_queue_open(struct unic_port *port, uint16_t q)
{
	struct afxdp_port *xp = afxdp_priv(port);
	struct afxdp_queue *xq = &xp->q[q];
	uint32_t total = xq->rx_desc + xq->tx_desc;
	struct xdp_options opts = { 0 };
	socklen_t olen = sizeof(opts);
	char what[64], why[160] = "", layout[200];
	struct xdp_multiprog *mp;
	enum xdp_attach_mode mode = XDP_MODE_UNSPEC;
	int rc;

	xq->nb_rx_frames = xq->rx_desc;
	xq->nb_tx_frames = xq->tx_desc;
	afxdp_umem_choose(port, xq, layout, sizeof(layout));
	if (xq->pool_umem) {
		xq->rx_owned = calloc(xq->nb_objs, 1);
		xq->tx_owned = calloc(xq->nb_objs, 1);
		if (!xq->rx_owned || !xq->tx_owned) {
			rc = -ENOMEM;
			goto err;
		}
	} else {
		snprintf(what, sizeof(what), "queue %u UMEM", q);
		rc = unic_port_dma_alloc(port, what, (size_t)total * AFXDP_FRAME_SIZE, AFXDP_FRAME_SIZE,
					 port->numa_node, &xq->dma);
		if (rc < 0)
			return rc;
		xq->area = xq->dma.va;
		xq->owned = calloc(total, 1);
		xq->fill_stash = calloc(xq->nb_rx_frames, sizeof(uint32_t));
		xq->tx_free = calloc(xq->nb_tx_frames, sizeof(uint32_t));
		if (!xq->owned || !xq->fill_stash || !xq->tx_free) {
			rc = -ENOMEM;
			goto err;
		}
	}
	/* A socket closed a moment ago (stop, then start) leaves the queue
	 * busy until the kernel's deferred release of its buffer pool has
	 * run: EBUSY for a few milliseconds. Wait for it, up to a second. */
	for (int tries = 0;; tries++) {
		rc = -EOPNOTSUPP;
		if (!xp->force_copy) {
			rc = afxdp_socket_try(port, xq, q, XDP_USE_NEED_WAKEUP | XDP_ZEROCOPY);
			if (rc)
				snprintf(why, sizeof(why), "zero-copy refused: %s%s", strerror(-rc),
					 rc == -EOPNOTSUPP ? " (the driver has no AF_XDP zero-copy, or XDP "
					 "runs in generic mode)" : "");
		} else {
			snprintf(why, sizeof(why), "force_copy=1");
		}
		if (rc)
			rc = afxdp_socket_try(port, xq, q, XDP_USE_NEED_WAKEUP | XDP_COPY);
		if (rc != -EBUSY || tries >= AFXDP_BUSY_TRIES)
			break;
		usleep(10000);
	}
	if (rc) {
		if (rc == -EPERM || rc == -EACCES)
			UNIC_PORT_LOG(port, ERR, "queue %u: cannot create the AF_XDP socket on %s: %s; it "
				      "needs CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF (run as root, or "
				      "setcap cap_net_raw,cap_net_admin,cap_bpf,cap_sys_admin+ep on the program)",
				      q, xp->ifname, strerror(-rc));
		else if (rc == -EBUSY)
			UNIC_PORT_LOG(port, ERR, "queue %u: %s queue %u is taken by another AF_XDP socket "
				      "(another process, or a port on the same queue range): %s", q,
				      xp->ifname, xp->start_queue + q, strerror(-rc));
		else
			UNIC_PORT_LOG(port, ERR, "queue %u: cannot bind an AF_XDP socket to %s queue %u: "
				      "%s (xdp_mode=native needs a driver with XDP; `ip link show %s` "
				      "shows what is attached)", q, xp->ifname, xp->start_queue + q,
				      strerror(-rc), xp->ifname);
		goto err;
	}
	xq->fd = xsk_socket__fd(xq->xsk);
	if (getsockopt(xq->fd, SOL_XDP, XDP_OPTIONS, &opts, &olen) == 0)
		xq->zero_copy = (opts.flags & XDP_OPTIONS_ZEROCOPY) != 0;
	if (xp->prog) {
		rc = xsk_socket__update_xskmap(xq->xsk, xp->xsks_map_fd);
		if (rc) {
			UNIC_PORT_LOG(port, ERR, "queue %u: cannot add the socket to xsks_map of %s: %s",
				      q, xp->prog_path, strerror(-rc));
			goto err;
		}
	}
	if (xp->busy_budget) {
		int one = 1, us = AFXDP_BUSY_POLL_US, budget = (int)xp->busy_budget;

		if (setsockopt(xq->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
		    setsockopt(xq->fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)) ||
		    setsockopt(xq->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget))) {
			UNIC_PORT_LOG(port, WARNING, "queue %u: busy polling not set (%s): the kernel "
				      "needs 5.11 or later and CAP_NET_ADMIN for a budget; going on without",
				      q, strerror(errno));
			xq->busy_poll = false;
		} else {
			xq->busy_poll = true;
		}
	}
	if (xq->pool_umem) {
		xq->tx_held = 0;
		xq->rx_held = 0;
		afxdp_fill_pool(xq);
	} else {
		afxdp_tx_frames_init(xq);
		afxdp_fill_all(xq);
	}
	mp = xdp_multiprog__get_from_ifindex(xp->ifindex);
	if (!libxdp_get_error(mp) && mp) {
		mode = xdp_multiprog__attach_mode(mp);
		xdp_multiprog__close(mp);
	}
	UNIC_PORT_LOG(port, INFO, "queue %u on %s queue %u: %s mode%s%s%s, XDP program %s in %s mode; "
		      "%s%s", q, xp->ifname, xp->start_queue + q,
		      xq->zero_copy ? "zero-copy" : "copy", why[0] && !xq->zero_copy ? " (" : "",
		      xq->zero_copy ? "" : why, why[0] && !xq->zero_copy ? ")" : "",
		      xp->prog ? xp->prog_path : "libxdp's default (xsk_def_prog)",
		      afxdp_mode_name(mode), layout, xq->busy_poll ? "; busy polling" : "");
	return 0;
err:
	afxdp_queue_close(port, xq);
	return rc;
}

/* ---- ops ---------------------------------------------------------------- */

static void afxdp_info_get(struct unic_port *port, struct unic_port_info *info)
{
	struct afxdp_port *xp = afxdp_priv(port);

	snprintf(info->driver, sizeof(info->driver), "af_xdp");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "%s", xp->ifname);
	info->numa_node = -1;
	info->max_rxq = (uint16_t)xp->queue_count;
	/* Queue q is the interface's queue start_queue + q: the kernel fills it. */
	info->rx_spread_by_device = true;
	info->max_txq = (uint16_t)xp->queue_count;
	info->rx_desc_min = AFXDP_DESC_MIN;
	info->rx_desc_max = AFXDP_DESC_MAX;
	info->rx_desc_align = 1;
	info->rx_desc_default = AFXDP_DESC_DEFAULT;
	info->tx_desc_min = AFXDP_DESC_MIN;
	info->tx_desc_max = AFXDP_DESC_MAX;
	info->tx_desc_align = 1;
	info->tx_desc_default = AFXDP_DESC_DEFAULT;
	info->min_mtu = 68;
	info->max_mtu = AFXDP_MTU_MAX;
	info->speed_capa_mbps = 0;
	info->has_intr = true;
}

static int afxdp_mtu_apply(struct unic_port *port, uint16_t mtu);

static int afxdp_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	int rc;

	if (conf->nb_rxq != conf->nb_txq) {
		UNIC_PORT_LOG(port, ERR, "%u rx and %u tx queues: an AF_XDP socket carries rx queue q "
			      "and tx queue q together; configure as many of each", conf->nb_rxq,
			      conf->nb_txq);
		return -EINVAL;
	}
	/* The configured MTU is the interface's (put back at close). */
	rc = afxdp_mtu_apply(port, conf->mtu);
	return rc < 0 ? rc : 0;
}

static int afxdp_rx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *conf,
				void **out)
{
	struct afxdp_queue *xq = &afxdp_priv(port)->q[q];

	if (conf->pool->pkt_dataroom < 60) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: pool '%s' has %u bytes of data room; expected "
			      "at least a minimum frame (60)", q, conf->pool->name, conf->pool->pkt_dataroom);
		return -EINVAL;
	}
	/* The UMEM is carved from the rx pool's memory context: the
	 * application's DMA memory, on hugepages where it has them. */
	unic_port_dma_mem_set(port, conf->pool->mem);
	xq->pool = conf->pool;
	xq->rx_desc = conf->nb_desc;
	xq->port_id = unic_port_id(port);
	xq->qid = q;
	xq->rx_setup = true;
	unic_port_rxq_counters(port, q, &xq->rcnt);
	*out = xq;
	return 0;
}

static void afxdp_rx_queue_release(struct unic_port *port, uint16_t q, void *rxq)
{
	(void)port;
	(void)q;
	((struct afxdp_queue *)rxq)->rx_setup = false;
}

static int afxdp_tx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_txq_conf *conf,
				void **out)
{
	struct afxdp_queue *xq = &afxdp_priv(port)->q[q];

	xq->tx_desc = conf->nb_desc;
	xq->tx_setup = true;
	unic_port_txq_counters(port, q, &xq->tcnt);
	*out = xq;
	return 0;
}

static void afxdp_tx_queue_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)port;
	(void)q;
	((struct afxdp_queue *)txq)->tx_setup = false;
}

static void afxdp_stop(struct unic_port *port)
{
	struct afxdp_port *xp = afxdp_priv(port);

	for (uint16_t q = 0; q < UNIC_PORT_MAX_QUEUES; q++)
		afxdp_queue_close(port, &xp->q[q]);
	afxdp_prog_unload(port);
	afxdp_adopted_detach(port);
}

static int afxdp_start(struct unic_port *port)
{
	struct afxdp_port *xp = afxdp_priv(port);
	int rc;

	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		if (!xp->q[q].rx_setup || !xp->q[q].tx_setup) {
			UNIC_PORT_LOG(port, ERR, "queue %u: set up both rx queue %u and tx queue %u "
				      "before start (one AF_XDP socket carries both)", q, q, q);
			return -EINVAL;
		}
	}
	rc = afxdp_check_attached(port);
	if (rc < 0)
		return rc;
	if (xp->prog_path[0]) {
		rc = afxdp_prog_load(port);
		if (rc < 0)
			return rc;
	}
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		rc = afxdp_queue_open(port, q);
		if (rc < 0) {
			afxdp_stop(port);
			return rc;
		}
	}
	return 0;
}

static void afxdp_close(struct unic_port *port)
{
	struct afxdp_port *xp = afxdp_priv(port);

	afxdp_stop(port);
	/* Leave the interface as we found it: promiscuous and all-multicast
	 * only if they were on before this port turned them on. */
	if (xp->flags_set)
		afxdp_if_flags(xp->ifname, 0, xp->flags_set);
	if (xp->orig_mtu) {
		struct ifreq ifr = { .ifr_mtu = xp->orig_mtu };

		afxdp_ifreq(xp->ifname, SIOCSIFMTU, &ifr);
	}
}

static int afxdp_link_get(struct unic_port *port, struct unic_link *link)
{
	struct afxdp_port *xp = afxdp_priv(port);
	struct ethtool_cmd ec = { .cmd = ETHTOOL_GSET };
	struct ifreq ifr = { .ifr_data = (void *)&ec };
	int flags = afxdp_if_flags(xp->ifname, 0, 0);

	if (flags < 0) {
		UNIC_PORT_LOG(port, ERR, "interface %s: %s (was it removed? `ip link show %s`)",
			      xp->ifname, strerror(-flags), xp->ifname);
		return flags;
	}
	memset(link, 0, sizeof(*link));
	link->up = (flags & IFF_UP) && (flags & IFF_RUNNING);
	if (link->up && afxdp_ifreq(xp->ifname, SIOCETHTOOL, &ifr) == 0) {
		uint32_t speed = ethtool_cmd_speed(&ec);

		link->speed_mbps = speed == (uint32_t)SPEED_UNKNOWN ? 0 : speed;
		link->full_duplex = ec.duplex == DUPLEX_FULL;
		link->autoneg = ec.autoneg == AUTONEG_ENABLE;
	}
	return 0;
}

static int afxdp_link_set(struct unic_port *port, bool up)
{
	struct afxdp_port *xp = afxdp_priv(port);

	return afxdp_if_flags(xp->ifname, up ? IFF_UP : 0, up ? 0 : IFF_UP);
}

/* Turn an interface flag on or off, remembering what this port turned on. */
static int afxdp_flag_set(struct afxdp_port *xp, short flag, bool on)
{
	int flags = afxdp_if_flags(xp->ifname, 0, 0), rc;

	if (flags < 0)
		return flags;
	if (on && (flags & flag))
		return 0;  /* on already: not ours to turn off at close */
	rc = afxdp_if_flags(xp->ifname, on ? flag : 0, on ? 0 : flag);
	if (rc == 0)
		xp->flags_set = (short)(on ? xp->flags_set | flag : xp->flags_set & ~flag);
	return rc;
}

static int afxdp_promisc_set(struct unic_port *port, bool on)
{
	struct afxdp_port *xp = afxdp_priv(port);

	return afxdp_flag_set(xp, IFF_PROMISC, on);
}

static int afxdp_allmulti_set(struct unic_port *port, bool on)
{
	struct afxdp_port *xp = afxdp_priv(port);

	return afxdp_flag_set(xp, IFF_ALLMULTI, on);
}

/* Set the interface's MTU if it differs, remembering the first one it had
 * so that close puts it back. */
static int afxdp_mtu_apply(struct unic_port *port, uint16_t mtu)
{
	struct afxdp_port *xp = afxdp_priv(port);
	struct ifreq ifr = { 0 };
	int rc = afxdp_ifreq(xp->ifname, SIOCGIFMTU, &ifr);

	if (rc < 0 || mtu == 0 || ifr.ifr_mtu == mtu)
		return rc;
	if (xp->orig_mtu == 0)
		xp->orig_mtu = ifr.ifr_mtu;
	ifr.ifr_mtu = mtu;
	rc = afxdp_ifreq(xp->ifname, SIOCSIFMTU, &ifr);
	if (rc < 0)
		UNIC_PORT_LOG(port, ERR, "MTU %u on %s: %s (`ip link set dev %s mtu %u` says why)", mtu,
			      xp->ifname, strerror(-rc), xp->ifname, mtu);
	else
		UNIC_PORT_LOG(port, INFO, "MTU of %s set to %u (it was %d; put back at close)",
			      xp->ifname, mtu, xp->orig_mtu);
	return rc;
}

static int afxdp_mtu_set(struct unic_port *port, uint16_t mtu)
{
	return afxdp_mtu_apply(port, mtu);
}

static void afxdp_sum(struct unic_port *port, uint64_t rx[AFXDP_RX_NB], uint64_t tx[AFXDP_TX_NB],
		      uint64_t k[AFXDP_K_NB])
{
	struct afxdp_port *xp = afxdp_priv(port);

	memset(rx, 0, sizeof(uint64_t) * AFXDP_RX_NB);
	memset(tx, 0, sizeof(uint64_t) * AFXDP_TX_NB);
	memset(k, 0, sizeof(uint64_t) * AFXDP_K_NB);
	for (unsigned q = 0; q < UNIC_PORT_MAX_QUEUES; q++) {
		const struct afxdp_queue *xq = &xp->q[q];
		uint64_t kq[AFXDP_K_NB];

		for (int i = 0; i < AFXDP_RX_NB; i++)
			rx[i] += unic_counter_read(&xq->rx_x[i]);
		for (int i = 0; i < AFXDP_TX_NB; i++)
			tx[i] += unic_counter_read(&xq->tx_x[i]);
		afxdp_kstats(xq, kq);
		for (int i = 0; i < AFXDP_K_NB; i++)
			k[i] += kq[i];
	}
}

static int afxdp_stats_get(struct unic_port *port, struct unic_port_stats *st)
{
	uint64_t rx[AFXDP_RX_NB], tx[AFXDP_TX_NB], k[AFXDP_K_NB];

	afxdp_sum(port, rx, tx, k);
	/* Frames the kernel could not hand us: no fill buffer, rx ring full. */
	st->imissed += k[AFXDP_K_RX_DROPPED] + k[AFXDP_K_RX_RING_FULL];
	st->ierrors += k[AFXDP_K_RX_INVALID];
	return 0;
}

static int afxdp_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max)
{
	static const struct {
		const char *const *table;
		unsigned nb;
	} parts[] = { { afxdp_k_names, AFXDP_K_NB }, { afxdp_rx_names, AFXDP_RX_NB },
		      { afxdp_tx_names, AFXDP_TX_NB } };
	unsigned n = 0;

	(void)port;
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(parts); n += parts[i++].nb)
		if (max > n)
			unic_port_xstats_names_fill(names + n, max - n, parts[i].table, parts[i].nb);
	return (int)n;
}

static int afxdp_xstats_get(struct unic_port *port, uint64_t *values, unsigned max)
{
	uint64_t rx[AFXDP_RX_NB], tx[AFXDP_TX_NB], k[AFXDP_K_NB], all[AFXDP_K_NB + AFXDP_RX_NB + AFXDP_TX_NB];
	unsigned n = 0;

	afxdp_sum(port, rx, tx, k);
	for (int i = 0; i < AFXDP_K_NB; i++)
		all[n++] = k[i];
	for (int i = 0; i < AFXDP_RX_NB; i++)
		all[n++] = rx[i];
	for (int i = 0; i < AFXDP_TX_NB; i++)
		all[n++] = tx[i];
	return unic_port_xstats_values_fill(values, max, all, n);
}

static int afxdp_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max)
{
	struct afxdp_port *xp = afxdp_priv(port);
	unsigned n = 0;

	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		if (xp->q[q].fd < 0)
			continue;
		if (n < max)
			src[n] = (struct unic_intr_source){
				.fd = xp->q[q].fd,
				.kind = UNIC_INTR_SOCKET,
				.queue_mask = 1u << q,
				.index = q,
			};
		n++;
	}
	return (int)n;
}

static const struct unic_port_ops afxdp_ops = {
	.info_get = afxdp_info_get,
	.configure = afxdp_configure,
	.rx_queue_setup = afxdp_rx_queue_setup,
	.rx_queue_release = afxdp_rx_queue_release,
	.tx_queue_setup = afxdp_tx_queue_setup,
	.tx_queue_release = afxdp_tx_queue_release,
	.start = afxdp_start,
	.stop = afxdp_stop,
	.close = afxdp_close,
	.stats_get = afxdp_stats_get,
	.rx_burst = afxdp_rx_burst,
	.tx_burst = afxdp_tx_burst,
	.tx_prepare = afxdp_tx_prepare,
	.rx_pending = afxdp_rx_pending,
	.rx_intr_enable = afxdp_rx_intr_enable,
	.rx_intr_disable = afxdp_rx_intr_disable,
	.tx_reclaim = afxdp_tx_reclaim,
	.link_get = afxdp_link_get,
	.link_set = afxdp_link_set,
	.promisc_set = afxdp_promisc_set,
	.allmulti_set = afxdp_allmulti_set,
	.mtu_set = afxdp_mtu_set,
	.xstats_names = afxdp_xstats_names,
	.xstats_get = afxdp_xstats_get,
	.intr_sources = afxdp_intr_sources,
};

/* ---- creation ----------------------------------------------------------- */

static void afxdp_setup(struct unic_port *port)
{
	struct afxdp_port *xp = afxdp_priv(port);

	port->ops = &afxdp_ops;
	port->drv = &unic_af_xdp_driver;
	port->numa_node = -1;
	xp->xsks_map_fd = -1;
	for (unsigned q = 0; q < UNIC_PORT_MAX_QUEUES; q++)
		xp->q[q].fd = -1;
}

/* A string value into @p buf. @return 0, -ENOENT, -EINVAL (too long). */
static int afxdp_kv_str(const char *args, const char *key, char *buf, size_t size)
{
	const char *v;
	int len = unic_kvargs_get(args, key, &v);

	if (len < 0)
		return len;
	if (len == 0 || (size_t)len >= size) {
		UNIC_LOG(ERR, PMD, "af_xdp: %s= must be 1..%zu characters", key, size - 1);
		return -EINVAL;
	}
	memcpy(buf, v, (size_t)len);
	buf[len] = '\0';
	return 0;
}

static int afxdp_parse(const char *args, struct afxdp_port *xp)
{
	static const char *const keys[] = { "iface", "start_queue", "queue_count", "busy_budget",
					    "force_copy", "xdp_mode", "xdp_prog", "xdp_prog_sec", "pool_umem", NULL };
	char mode[16] = "";
	uint32_t force_copy = 0, pool_umem = 1;
	int rc;

	rc = unic_kvargs_check("af_xdp", args, keys);
	if (rc < 0)
		return rc;
	rc = afxdp_kv_str(args, "iface", xp->ifname, sizeof(xp->ifname));
	if (rc == -ENOENT)
		UNIC_LOG(ERR, PMD, "af_xdp: iface= is required: the Linux interface to use, "
			 "e.g. af_xdp0,iface=eth0 (`ip link` lists them)");
	if (rc < 0)
		return -EINVAL;
	xp->queue_count = 1;
#define AFXDP_U32(key, lo, hi, dst)                                         \
	do {                                                                 \
		rc = unic_kvargs_u32("af_xdp", args, key, lo, hi, dst);      \
		if (rc < 0 && rc != -ENOENT)                                 \
			return rc;                                           \
	} while (0)
	AFXDP_U32("start_queue", 0, 4095, &xp->start_queue);
	AFXDP_U32("queue_count", 1, UNIC_PORT_MAX_QUEUES, &xp->queue_count);
	AFXDP_U32("busy_budget", 0, 1024, &xp->busy_budget);
	AFXDP_U32("force_copy", 0, 1, &force_copy);
	AFXDP_U32("pool_umem", 0, 1, &pool_umem);
#undef AFXDP_U32
	xp->force_copy = force_copy != 0;
	xp->pool_umem = pool_umem != 0;
	rc = afxdp_kv_str(args, "xdp_mode", mode, sizeof(mode));
	if (rc == -EINVAL)
		return rc;
	if (rc == 0) {
		if (strcmp(mode, "native") == 0) {
			xp->xdp_mode = XDP_FLAGS_DRV_MODE;
		} else if (strcmp(mode, "generic") == 0) {
			xp->xdp_mode = XDP_FLAGS_SKB_MODE;
		} else {
			UNIC_LOG(ERR, PMD, "af_xdp: xdp_mode=%s; expected native or generic (default: "
				 "native where the driver has XDP, else generic)", mode);
			return -EINVAL;
		}
	}
	rc = afxdp_kv_str(args, "xdp_prog", xp->prog_path, sizeof(xp->prog_path));
	if (rc == -EINVAL)
		return rc;
	rc = afxdp_kv_str(args, "xdp_prog_sec", xp->prog_sec, sizeof(xp->prog_sec));
	if (rc == -EINVAL)
		return rc;
	if (xp->prog_sec[0] && !xp->prog_path[0]) {
		UNIC_LOG(ERR, PMD, "af_xdp: xdp_prog_sec= names a section of xdp_prog=, which is missing");
		return -EINVAL;
	}
	return 0;
}

/* The interface: it exists, has the queues, and we may open AF_XDP sockets. */
static int afxdp_check_iface(const char *name, struct afxdp_port *xp)
{
	int nq, fd;
	bool combined;
	char fix[64];

	xp->ifindex = (int)if_nametoindex(xp->ifname);
	if (xp->ifindex == 0) {
		UNIC_LOG(ERR, PMD, "%s: no interface '%s' in this network namespace (`ip link` lists "
			 "them; run the program inside the interface's namespace with `ip netns exec`)",
			 name, xp->ifname);
		return -ENODEV;
	}
	nq = afxdp_if_queues(xp->ifname, &combined);
	if (nq > 0 && xp->start_queue + xp->queue_count > (uint32_t)nq) {
		uint32_t want = xp->start_queue + xp->queue_count;

		if (combined)
			snprintf(fix, sizeof(fix), "combined %u", want);
		else
			snprintf(fix, sizeof(fix), "rx %u tx %u", want, want);
		UNIC_LOG(ERR, PMD, "%s: queues %u..%u of %s asked (start_queue=%u, queue_count=%u) but "
			 "it has %d; lower them, or add queues with `ethtool -L %s %s` "
			 "(`ethtool -l %s` shows the most it takes)",
			 name, xp->start_queue, want - 1, xp->ifname, xp->start_queue, xp->queue_count,
			 nq, xp->ifname, fix, xp->ifname);
		return -EINVAL;
	}
	fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int err = errno;

		if (err == EPERM || err == EACCES)
			UNIC_LOG(ERR, PMD, "%s: cannot open an AF_XDP socket: %s; it needs CAP_NET_RAW "
				 "(and CAP_BPF, CAP_NET_ADMIN to load the XDP program): run as root, or "
				 "`setcap cap_net_raw,cap_net_admin,cap_bpf,cap_sys_admin+ep PROGRAM`",
				 name, strerror(err));
		else
			UNIC_LOG(ERR, PMD, "%s: cannot open an AF_XDP socket: %s (the kernel needs "
				 "CONFIG_XDP_SOCKETS)", name, strerror(err));
		return -err;
	}
	close(fd);
	return 0;
}

static int afxdp_vdev_create(const char *name, const char *args, struct unic_port **out)
{
	struct afxdp_port cfg = { 0 };
	struct unic_port *port;
	struct ifreq ifr = { 0 };
	int rc;

	afxdp_lib_print_init();
	rc = afxdp_parse(args ? args : "", &cfg);
	if (rc < 0)
		return rc;
	rc = afxdp_check_iface(name, &cfg);
	if (rc < 0)
		return rc;
	port = unic_port_alloc(sizeof(struct afxdp_port), name, afxdp_setup);
	if (port == NULL)
		return -errno;
	{
		struct afxdp_port *xp = afxdp_priv(port);

		memcpy(xp->ifname, cfg.ifname, sizeof(xp->ifname));
		xp->ifindex = cfg.ifindex;
		xp->start_queue = cfg.start_queue;
		xp->queue_count = cfg.queue_count;
		xp->busy_budget = cfg.busy_budget;
		xp->force_copy = cfg.force_copy;
		xp->pool_umem = cfg.pool_umem;
		xp->xdp_mode = cfg.xdp_mode;
		memcpy(xp->prog_path, cfg.prog_path, sizeof(xp->prog_path));
		memcpy(xp->prog_sec, cfg.prog_sec, sizeof(xp->prog_sec));
	}
	rc = unic_port_register(port);
	if (rc < 0) {
		unic_port_put(port);
		return rc;
	}
	/* The interface's own MAC: frames for it are what the kernel hands us. */
	if (afxdp_ifreq(cfg.ifname, SIOCGIFHWADDR, &ifr) == 0)
		unic_port_mac_init(port, (const uint8_t *)ifr.ifr_hwaddr.sa_data);
	*out = port;
	return 0;
}

const struct unic_driver unic_af_xdp_driver = {
	.name = "af_xdp",
	.flow_why = "the frames come through unic's own XDP program; steer them with the NIC's ntuple rules (ethtool -N) in the kernel",
	.vdev_create = afxdp_vdev_create,
	.mtu_max_why = "a frame is one 4096-byte UMEM chunk less the 256 bytes of XDP headroom and the "
		       "22 of an Ethernet header, a VLAN tag and the FCS, and the af_xdp port does not "
		       "chain chunks (AF_XDP multi-buffer, XDP_USE_SG); for larger frames use the "
		       "af_packet port (--vdev af_packet0,iface=IFACE)",
};
