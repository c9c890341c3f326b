/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_packet port's control path: the spec, the sockets and their rings,
 * link, MAC, MTU, promiscuous mode, statistics and interrupt sources.
 * Layout and ownership in af_packet_priv.h; behaviour for users in
 * docs/ports.md ("af_packet").
 *
 * Spec: "af_packet0,iface=veth0[,qpairs=N][,blocksz=B][,framesz=F]
 * [,framecnt=C][,tov=MS][,qdisc_bypass=0|1]".
 *
 * The sockets live from start to stop: a stopped port receives nothing
 * and keeps nothing queued in the kernel, and every start begins with empty
 * rings. The control socket lives from creation to close.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/sockios.h>

#include "af_packet_priv.h"
#include "unic_pmds.h"

#define AFP_MTU_MIN 68

static const struct unic_port_ops afp_ops;

static struct afp_port *afp_priv(struct unic_port *port)
{
	return unic_port_priv(port);
}

/* ---- sockets and rings ---------------------------------------------------- */

static size_t afp_ring_bytes(const struct afp_port *ap)
{
	return (size_t)ap->frame_size * ap->frame_count;
}

/* Add what the kernel counted on @p s since the last read (the read resets
 * the kernel's counters). Under the port lock. */
static void afp_sock_stats(struct afp_sock *s)
{
	struct tpacket_stats_v3 st;
	socklen_t len = sizeof(st);

	if (s->fd < 0)
		return;
	memset(&st, 0, sizeof(st));
	if (getsockopt(s->fd, SOL_PACKET, PACKET_STATISTICS, &st, &len) != 0)
		return;
	s->k_packets += st.tp_packets;
	s->k_drops += st.tp_drops;
	s->k_freeze += st.tp_freeze_q_cnt;
}

static void afp_sock_close(struct afp_port *ap, uint16_t q)
{
	struct afp_sock *s = &ap->sock[q];

	if (s->fd < 0)
		return;
	afp_sock_stats(s);
	ap->k_packets += s->k_packets;
	ap->k_drops += s->k_drops;
	ap->k_freeze += s->k_freeze;
	if (s->map != NULL)
		munmap(s->map, s->map_len);
	close(s->fd);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	ap->rxq[q].ring = NULL;
	ap->rxq[q].fd = -1;
	ap->rxq[q].block_open = false;
	ap->txq[q].ring = NULL;
	ap->txq[q].fd = -1;
}

static int afp_setsockopt(struct unic_port *port, int fd, int opt, const void *val,
			  socklen_t len, const char *what)
{
	int err;

	if (setsockopt(fd, SOL_PACKET, opt, val, len) == 0)
		return 0;
	err = errno;
	UNIC_PORT_LOG(port, ERR, "%s: setsockopt %s: %s", ((struct afp_port *)unic_port_priv(port))->iface,
		      what, strerror(err));
	return -err;
}

/*
 * Open queue pair @p q's socket: TPACKET_V3, an rx ring and a tx ring in
 * one mapping, bound to the interface (receiving when @p rx), in the
 * port's fanout group when @p fanout.
 */
static int afp_sock_open(struct unic_port *port, uint16_t q, bool rx, bool fanout)
{
	struct afp_port *ap = afp_priv(port);
	struct afp_sock *s = &ap->sock[q];
	uint32_t fpb = ap->block_size / ap->frame_size;
	uint32_t nb_blocks = ap->frame_count / fpb;
	struct tpacket_req3 req;
	struct sockaddr_ll sll;
	int fd, rc, one = 1, ver = TPACKET_V3;

	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		rc = -errno;
		UNIC_PORT_LOG(port, ERR, "queue pair %u: AF_PACKET socket: %s%s", q, strerror(-rc),
			      rc == -EPERM ? "; it needs CAP_NET_RAW: run as root or "
					     "setcap cap_net_raw,cap_net_admin+ep on the binary" : "");
		return rc;
	}
	s->fd = fd;
	rc = afp_setsockopt(port, fd, PACKET_VERSION, &ver, sizeof(ver), "PACKET_VERSION (TPACKET_V3)");
	if (rc < 0)
		goto fail;
	/* A frame the kernel refuses is skipped, not left at the head of the
	 * tx ring where it would hold every frame behind it (packet_mmap.rst,
	 * PACKET_LOSS). tx_prepare refuses such frames first (max_len), so
	 * this is only for an MTU lowered behind our back. */
	rc = afp_setsockopt(port, fd, PACKET_LOSS, &one, sizeof(one), "PACKET_LOSS");
	if (rc < 0)
		goto fail;
	/* What the host itself sends on the interface is not ours to receive
	 * (Linux >= 4.20); without it the fast path filters on sll_pkttype. */
	ap->rxq[q].filter_outgoing =
		setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one)) != 0;
	if (ap->qdisc_bypass) {
		rc = afp_setsockopt(port, fd, PACKET_QDISC_BYPASS, &one, sizeof(one),
				    "PACKET_QDISC_BYPASS");
		if (rc < 0)
			goto fail;
	}
	memset(&req, 0, sizeof(req));
	req.tp_block_size = ap->block_size;
	req.tp_block_nr = nb_blocks;
	req.tp_frame_size = ap->frame_size;
	req.tp_frame_nr = nb_blocks * fpb;
	req.tp_retire_blk_tov = ap->tov_ms;
	req.tp_feature_req_word = TP_FT_REQ_FILL_RXHASH; /* the flow hash in each header */
	rc = afp_setsockopt(port, fd, PACKET_RX_RING, &req, sizeof(req), "PACKET_RX_RING");
	if (rc < 0)
		goto fail;
	/* The tx ring takes frames only: no timer, no private area. */
	req.tp_retire_blk_tov = 0;
	req.tp_feature_req_word = 0;
	rc = afp_setsockopt(port, fd, PACKET_TX_RING, &req, sizeof(req), "PACKET_TX_RING");
	if (rc < 0)
		goto fail;
	s->map_len = 2 * afp_ring_bytes(ap);
	s->map = mmap(NULL, s->map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (s->map == MAP_FAILED) {
		rc = -errno;
		s->map = NULL;
		UNIC_PORT_LOG(port, ERR, "queue pair %u: mmap of %zu bytes of rings: %s; try a smaller "
			      "framecnt= or framesz=", q, s->map_len, strerror(-rc));
		goto fail;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = ap->ifindex;
	sll.sll_protocol = rx ? htons(ETH_P_ALL) : 0;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
		rc = -errno;
		UNIC_PORT_LOG(port, ERR, "queue pair %u: bind to %s: %s%s", q, ap->iface, strerror(-rc),
			      rc == -ENODEV ? "; the interface is gone (ip link)" :
			      rc == -ENETDOWN ? "; bring it up: ip link set dev IFACE up" : "");
		goto fail;
	}
	if (fanout) {
		/* The first socket asks the kernel for an id no other group in
		 * this namespace has; the others join it. */
		int arg = ap->fanout_id | (PACKET_FANOUT_HASH << 16);
		socklen_t len = sizeof(arg);

		if (q == 0)
			arg = (PACKET_FANOUT_HASH | PACKET_FANOUT_FLAG_UNIQUEID) << 16;
		rc = afp_setsockopt(port, fd, PACKET_FANOUT, &arg, sizeof(arg), "PACKET_FANOUT");
		if (rc < 0)
			goto fail;
		if (q == 0) {
			if (getsockopt(fd, SOL_PACKET, PACKET_FANOUT, &arg, &len) != 0) {
				rc = -errno;
				UNIC_PORT_LOG(port, ERR, "getsockopt PACKET_FANOUT: %s", strerror(-rc));
				goto fail;
			}
			ap->fanout_id = (uint16_t)arg;
		}
	}

	ap->rxq[q].ring = s->map;
	ap->rxq[q].block_size = ap->block_size;
	ap->rxq[q].nb_blocks = nb_blocks;
	ap->rxq[q].fd = fd;
	afp_rxq_reset(&ap->rxq[q]);
	ap->txq[q].ring = (uint8_t *)s->map + afp_ring_bytes(ap);
	ap->txq[q].frame_size = ap->frame_size;
	ap->txq[q].nb_frames = nb_blocks * fpb;
	ap->txq[q].next = 0;
	ap->txq[q].fd = fd;
	return 0;

fail:
	afp_sock_close(ap, q);
	return rc;
}

/* ---- queues and lifecycle -------------------------------------------------- */

static void afp_info_get(struct unic_port *port, struct unic_port_info *info)
{
	struct afp_port *ap = afp_priv(port);
	uint32_t rx_max = ap->block_size - TPACKET_ALIGN(sizeof(struct tpacket_block_desc)) -
			  TPACKET_ALIGN(sizeof(struct tpacket3_hdr)) - sizeof(struct sockaddr_ll);
	uint32_t tx_max = ap->frame_size - AFP_TX_DATA_OFF;
	uint32_t frame_max = rx_max < tx_max ? rx_max : tx_max;

	snprintf(info->driver, sizeof(info->driver), "af_packet");
	snprintf(info->bus_addr, sizeof(info->bus_addr), "vdev");
	info->numa_node = -1;
	/* What the driver can do; configure takes at most qpairs= of them and
	 * says how to ask for more. */
	info->max_rxq = AFP_QPAIRS_MAX;
	info->max_txq = AFP_QPAIRS_MAX;
	/* The rings are sized by the devargs; descriptor counts are accepted
	 * and not used (no packet of the pool waits in the kernel). */
	info->rx_desc_min = 1;
	info->rx_desc_max = 32768;
	info->rx_desc_align = 1;
	info->rx_desc_default = 512;
	info->tx_desc_min = 1;
	info->tx_desc_max = 32768;
	info->tx_desc_align = 1;
	info->tx_desc_default = 512;
	info->min_mtu = AFP_MTU_MIN;
	/* A frame of MTU + Ethernet header + one VLAN tag fits both rings. */
	info->max_mtu = frame_max > 65535 + 18 ? 65535 : (uint16_t)(frame_max - 18);
	/* The fanout group spreads frames by the kernel's flow hash
	 * (skb_get_hash: addresses, and ports for TCP and UDP): no key, no
	 * table, and the fields hashed cannot be narrowed. */
	info->rss_hash_capa = UNIC_RSS_IPV4 | UNIC_RSS_IPV4_TCP | UNIC_RSS_IPV4_UDP | UNIC_RSS_IPV6 |
			      UNIC_RSS_IPV6_TCP | UNIC_RSS_IPV6_UDP;
	info->speed_capa_mbps = 0;
	info->has_intr = true;
}

static int afp_ifreq(struct unic_port *port, unsigned long req, struct ifreq *ifr, const char *what);

static int afp_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	struct afp_port *ap = afp_priv(port);
	uint16_t n = conf->nb_rxq > conf->nb_txq ? conf->nb_rxq : conf->nb_txq;
	struct ifreq ifr;
	int rc;

	/* One socket a queue pair: the count the spec asked for is the most. */
	if (n > ap->qpairs) {
		UNIC_PORT_LOG(port, ERR, "%u rx and %u tx queues asked, but the port was created with "
			      "qpairs=%u (one AF_PACKET socket a queue pair): create it with qpairs=%u "
			      "(--vdev %s,iface=%s,qpairs=%u), at most %u", conf->nb_rxq, conf->nb_txq,
			      ap->qpairs, n, port->name, ap->iface, n, AFP_QPAIRS_MAX);
		return -EINVAL;
	}
	/* The interface is shared with the host: an MTU the configuration
	 * needs is raised on it, a smaller one (the 1500 the core puts in an
	 * unset MTU) leaves it alone; unic_port_mtu_set sets it exactly. */
	memset(&ifr, 0, sizeof(ifr));
	rc = afp_ifreq(port, SIOCGIFMTU, &ifr, "SIOCGIFMTU");
	if (rc < 0)
		return rc;
	if (conf->mtu > ifr.ifr_mtu) {
		int old = ifr.ifr_mtu;

		ifr.ifr_mtu = conf->mtu;
		rc = afp_ifreq(port, SIOCSIFMTU, &ifr, "SIOCSIFMTU");
		if (rc < 0) {
			UNIC_PORT_LOG(port, ERR, "MTU %u asked, %s has %d: set it on the interface "
				      "(ip link set dev %s mtu %u; a veth's peer too)", conf->mtu,
				      ap->iface, old, ap->iface, conf->mtu);
			return rc;
		}
		UNIC_PORT_LOG(port, INFO, "%s: MTU raised from %d to %u", ap->iface, old, conf->mtu);
	}
	return 0;
}

static int afp_rx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *conf,
			      void **out)
{
	struct afp_rxq *rxq = &afp_priv(port)->rxq[q];

	rxq->pool = conf->pool;
	rxq->port_id = unic_port_id(port);
	rxq->qid = q;
	unic_port_rxq_counters(port, q, &rxq->cnt);
	*out = rxq;
	return 0;
}

static void afp_rx_queue_release(struct unic_port *port, uint16_t q, void *rxq)
{
	(void)rxq;
	afp_priv(port)->rxq[q].pool = NULL;
}

static int afp_tx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_txq_conf *conf,
			      void **out)
{
	struct afp_txq *txq = &afp_priv(port)->txq[q];

	(void)conf;
	txq->qid = q;
	unic_port_txq_counters(port, q, &txq->cnt);
	*out = txq;
	return 0;
}

static void afp_tx_queue_release(struct unic_port *port, uint16_t q, void *txq)
{
	(void)port;
	(void)q;
	(void)txq;
}

/* The kernel sends frames of at most MTU + header + one VLAN tag. */
static void afp_tx_max_len_set(struct afp_port *ap, uint32_t mtu)
{
	for (uint16_t q = 0; q < AFP_QPAIRS_MAX; q++)
		unic_store_relaxed(&ap->txq[q].max_len, mtu + ETH_HLEN + 4);
}

static int afp_start(struct unic_port *port)
{
	struct afp_port *ap = afp_priv(port);
	uint16_t nrx = port->conf.nb_rxq, ntx = port->conf.nb_txq;
	uint16_t n = nrx > ntx ? nrx : ntx, q;
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	rc = afp_ifreq(port, SIOCGIFMTU, &ifr, "SIOCGIFMTU");
	if (rc < 0)
		return rc;
	afp_tx_max_len_set(ap, (uint32_t)ifr.ifr_mtu);

	for (q = 0; q < n; q++) {
		/* A pair past the rx queues only sends: it is bound without a
		 * protocol, so it takes no share of the received frames. */
		rc = afp_sock_open(port, q, q < nrx, nrx > 1 && q < nrx);
		if (rc < 0)
			goto fail;
	}
	return 0;
fail:
	while (q-- > 0)
		afp_sock_close(ap, q);
	return rc;
}

static void afp_stop(struct unic_port *port)
{
	struct afp_port *ap = afp_priv(port);

	for (uint16_t q = 0; q < AFP_QPAIRS_MAX; q++) {
		afp_sock_close(ap, q);
		ap->rxq[q].intr_enabled = 0;
	}
}

static void afp_close(struct unic_port *port)
{
	struct afp_port *ap = afp_priv(port);

	afp_stop(port);
	if (ap->ctl_fd >= 0)
		close(ap->ctl_fd); /* drops the promiscuous and allmulti memberships */
	ap->ctl_fd = -1;
}

/* ---- link, MAC, MTU, receive filters -------------------------------------- */

static int afp_ifreq(struct unic_port *port, unsigned long req, struct ifreq *ifr, const char *what)
{
	struct afp_port *ap = afp_priv(port);
	int err;

	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", ap->iface);
	if (ioctl(ap->ctl_fd, req, ifr) == 0)
		return 0;
	err = errno;
	UNIC_PORT_LOG(port, ERR, "%s: %s: %s%s", ap->iface, what, strerror(err),
		      err == ENODEV ? "; the interface is gone (ip link)" :
		      err == EPERM ? "; this needs CAP_NET_ADMIN (run as root)" : "");
	return -err;
}

static int afp_link_get(struct unic_port *port, struct unic_link *link)
{
	struct ethtool_cmd ecmd;
	struct ifreq ifr;
	int rc;

	memset(&ifr, 0, sizeof(ifr));
	rc = afp_ifreq(port, SIOCGIFFLAGS, &ifr, "SIOCGIFFLAGS");
	if (rc < 0)
		return rc;
	memset(link, 0, sizeof(*link));
	/* IFF_RUNNING: the carrier (a veth whose peer is up). */
	link->up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	if (!link->up)
		return 0;
	memset(&ecmd, 0, sizeof(ecmd));
	ecmd.cmd = ETHTOOL_GSET;
	ifr.ifr_data = (void *)&ecmd;
	if (ioctl(afp_priv(port)->ctl_fd, SIOCETHTOOL, &ifr) == 0) {
		uint32_t speed = ethtool_cmd_speed(&ecmd);

		link->speed_mbps = speed == (uint32_t)SPEED_UNKNOWN ? 0 : speed;
		link->full_duplex = ecmd.duplex == DUPLEX_FULL;
		link->autoneg = ecmd.autoneg == AUTONEG_ENABLE;
	} else {
		link->full_duplex = true; /* no ethtool (a tun, lo): unknown speed */
	}
	return 0;
}

static int afp_mtu_set(struct unic_port *port, uint16_t mtu)
{
	struct ifreq ifr;

	int rc;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_mtu = mtu;
	rc = afp_ifreq(port, SIOCSIFMTU, &ifr, "SIOCSIFMTU");
	if (rc == 0)
		afp_tx_max_len_set(afp_priv(port), mtu);
	return rc;
}

/* The kernel counts each membership: add or drop it once per change. */
static int afp_membership(struct unic_port *port, unsigned short type, bool *state, bool on)
{
	struct afp_port *ap = afp_priv(port);
	struct packet_mreq mr;
	int err;

	if (*state == on)
		return 0;
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = ap->ifindex;
	mr.mr_type = type;
	if (setsockopt(ap->ctl_fd, SOL_PACKET, on ? PACKET_ADD_MEMBERSHIP : PACKET_DROP_MEMBERSHIP,
		       &mr, sizeof(mr)) != 0) {
		err = errno;
		UNIC_PORT_LOG(port, ERR, "%s: %s %s: %s", ap->iface, on ? "add" : "drop",
			      type == PACKET_MR_PROMISC ? "PACKET_MR_PROMISC" : "PACKET_MR_ALLMULTI",
			      strerror(err));
		return -err;
	}
	*state = on;
	return 0;
}

static int afp_promisc_set(struct unic_port *port, bool on)
{
	return afp_membership(port, PACKET_MR_PROMISC, &afp_priv(port)->promisc, on);
}

static int afp_allmulti_set(struct unic_port *port, bool on)
{
	return afp_membership(port, PACKET_MR_ALLMULTI, &afp_priv(port)->allmulti, on);
}

/* ---- statistics and interrupts --------------------------------------------- */

static void afp_kernel_counts(struct afp_port *ap, uint64_t *packets, uint64_t *drops,
			      uint64_t *freeze)
{
	*packets = ap->k_packets;
	*drops = ap->k_drops;
	*freeze = ap->k_freeze;
	for (uint16_t q = 0; q < AFP_QPAIRS_MAX; q++) {
		afp_sock_stats(&ap->sock[q]);
		*packets += ap->sock[q].k_packets;
		*drops += ap->sock[q].k_drops;
		*freeze += ap->sock[q].k_freeze;
	}
}

static int afp_stats_get(struct unic_port *port, struct unic_port_stats *st)
{
	uint64_t packets, drops, freeze;

	afp_kernel_counts(afp_priv(port), &packets, &drops, &freeze);
	/* The kernel dropped these for want of a free block: the app was slow. */
	st->imissed += drops;
	return 0;
}

static const char *const afp_xstat_names[] = {
	"rx_kernel_packets",  /* PACKET_STATISTICS tp_packets: frames the socket saw */
	"rx_kernel_drops",    /* tp_drops: no free block (also imissed) */
	"rx_kernel_freeze_q", /* tp_freeze_q_cnt: times the ring was full */
	"rx_ring_errors",     /* block or packet headers out of bounds, skipped */
	"rx_truncated",       /* frames cut by the kernel (snaplen < len), dropped */
	"rx_too_long",        /* frames longer than the pool's buffer, dropped */
	"rx_outgoing",        /* the host's own transmits, skipped */
	"rx_vlan_restored",   /* VLAN tags put back into frames */
	"rx_csum_not_ready",  /* frames with the L4 checksum left to a device */
	"tx_ring_full",       /* packets not taken: no free tx frame */
	"tx_wrong_format",    /* frames the kernel refused */
	"tx_ring_errors",     /* tx frames with a status the driver does not know */
	"tx_kick_errors",     /* send() kicks that failed */
};

static int afp_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max)
{
	(void)port;
	return unic_port_xstats_names_fill(names, max, afp_xstat_names, UNIC_ARRAY_SIZE(afp_xstat_names));
}

static int afp_xstats_get(struct unic_port *port, uint64_t *values, unsigned max)
{
	struct afp_port *ap = afp_priv(port);
	uint64_t v[UNIC_ARRAY_SIZE(afp_xstat_names)] = { 0 };

	afp_kernel_counts(ap, &v[0], &v[1], &v[2]);
	for (uint16_t q = 0; q < AFP_QPAIRS_MAX; q++) {
		const struct afp_rxq *rxq = &ap->rxq[q];
		const struct afp_txq *txq = &ap->txq[q];

		v[3] += unic_counter_read(&rxq->xcnt.ring_errors);
		v[4] += unic_counter_read(&rxq->xcnt.truncated);
		v[5] += unic_counter_read(&rxq->xcnt.too_long);
		v[6] += unic_counter_read(&rxq->xcnt.outgoing);
		v[7] += unic_counter_read(&rxq->xcnt.vlan_restored);
		v[8] += unic_counter_read(&rxq->xcnt.csum_not_ready);
		v[9] += unic_counter_read(&txq->ring_full);
		v[10] += unic_counter_read(&txq->wrong_format);
		v[11] += unic_counter_read(&txq->ring_errors);
		v[12] += unic_counter_read(&txq->kick_errors);
	}
	return unic_port_xstats_values_fill(values, max, v, UNIC_ARRAY_SIZE(v));
}

/*
 * One source per rx queue: its socket, of the socket kind (as af_xdp's).
 * The engine registers it level-triggered and reads nothing from it: a
 * packet socket is readable (POLLIN) while the block before the one the
 * kernel fills is handed over to us (packet_poll), and stops being readable
 * once the fast path gives its blocks back, so a drained queue's socket
 * ends no sleep. Its frames go to the ring: a read() of it finds nothing,
 * so a kind whose acknowledgement reads the fd would fail (EAGAIN).
 */
static int afp_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max)
{
	struct afp_port *ap = afp_priv(port);
	unsigned n = 0;

	for (uint16_t q = 0; q < port->conf.nb_rxq && q < AFP_QPAIRS_MAX; q++) {
		if (ap->rxq[q].fd < 0)
			continue;
		if (n < max)
			src[n] = (struct unic_intr_source){
				.fd = ap->rxq[q].fd,
				.kind = UNIC_INTR_SOCKET,
				.queue_mask = 1u << q,
				.index = q,
			};
		n++;
	}
	return (int)n;
}

static const struct unic_port_ops afp_ops = {
	.info_get = afp_info_get,
	.configure = afp_configure,
	.rx_queue_setup = afp_rx_queue_setup,
	.rx_queue_release = afp_rx_queue_release,
	.tx_queue_setup = afp_tx_queue_setup,
	.tx_queue_release = afp_tx_queue_release,
	.start = afp_start,
	.stop = afp_stop,
	.close = afp_close,
	.stats_get = afp_stats_get,
	.rx_burst = afp_rx_burst,
	.tx_burst = afp_tx_burst,
	.tx_prepare = afp_tx_prepare,
	.rx_pending = afp_rx_pending,
	.rx_intr_enable = afp_rx_intr_enable,
	.rx_intr_disable = afp_rx_intr_disable,
	.link_get = afp_link_get,
	.promisc_set = afp_promisc_set,
	.allmulti_set = afp_allmulti_set,
	.mtu_set = afp_mtu_set,
	.xstats_names = afp_xstats_names,
	.xstats_get = afp_xstats_get,
	.intr_sources = afp_intr_sources,
};

/* ---- creation ---------------------------------------------------------------- */

static void afp_setup(struct unic_port *port)
{
	struct afp_port *ap = afp_priv(port);

	port->ops = &afp_ops;
	port->drv = &unic_af_packet_driver;
	port->numa_node = -1;
	ap->ctl_fd = -1;
	for (unsigned q = 0; q < AFP_QPAIRS_MAX; q++) {
		ap->sock[q].fd = -1;
		ap->rxq[q].fd = -1;
		ap->txq[q].fd = -1;
	}
}

struct afp_args {
	char iface[IF_NAMESIZE];
	uint32_t qpairs, block_size, frame_size, frame_count, tov_ms, qdisc_bypass;
};

static int afp_args_parse(const char *name, const char *args, struct afp_args *a)
{
	static const char *const keys[] = { "iface", "qpairs", "blocksz", "framesz", "framecnt",
					    "tov", "qdisc_bypass", NULL };
	long page = sysconf(_SC_PAGESIZE);
	const char *val;
	uint32_t fpb;
	int rc, len;

	rc = unic_kvargs_check("af_packet", args, keys);
	if (rc < 0)
		return rc;
	len = unic_kvargs_get(args, "iface", &val);
	if (len <= 0 || len >= IF_NAMESIZE) {
		UNIC_LOG(ERR, PMD, "%s: iface= is required and names a network interface of 1..%d "
			 "characters, as in %s,iface=veth0", name, IF_NAMESIZE - 1, name);
		return -EINVAL;
	}
	memcpy(a->iface, val, (size_t)len);
	a->iface[len] = '\0';
	a->qpairs = 1;
	a->block_size = AFP_BLOCKSZ_DEFAULT;
	a->frame_size = AFP_FRAMESZ_DEFAULT;
	a->frame_count = AFP_FRAMECNT_DEFAULT;
	a->tov_ms = AFP_TOV_DEFAULT_MS;
	a->qdisc_bypass = 0;
#define AFP_U32(key, lo, hi, dst)                                                   \
	do {                                                                         \
		rc = unic_kvargs_u32("af_packet", args, key, lo, hi, dst);           \
		if (rc < 0 && rc != -ENOENT)                                         \
			return rc;                                                   \
	} while (0)
	AFP_U32("qpairs", 1, AFP_QPAIRS_MAX, &a->qpairs);
	AFP_U32("blocksz", (uint32_t)page, 1u << 22, &a->block_size);
	AFP_U32("framesz", 128, 1u << 22, &a->frame_size);
	AFP_U32("framecnt", 1, 1u << 20, &a->frame_count);
	AFP_U32("tov", 0, AFP_TOV_MAX_MS, &a->tov_ms);
	AFP_U32("qdisc_bypass", 0, 1, &a->qdisc_bypass);
#undef AFP_U32
	if (a->block_size % (uint32_t)page != 0) {
		UNIC_LOG(ERR, PMD, "%s: blocksz=%u must be a multiple of the page size (%ld)", name,
			 a->block_size, page);
		return -EINVAL;
	}
	if (a->frame_size % TPACKET_ALIGNMENT != 0 || a->frame_size > a->block_size ||
	    a->block_size % a->frame_size != 0) {
		UNIC_LOG(ERR, PMD, "%s: framesz=%u must be a multiple of %u that divides blocksz=%u "
			 "(e.g. 2048 or 4096)", name, a->frame_size, TPACKET_ALIGNMENT, a->block_size);
		return -EINVAL;
	}
	fpb = a->block_size / a->frame_size;
	if (a->frame_count % fpb != 0 || (uint64_t)a->frame_count * a->frame_size > AFP_RING_MAX_BYTES) {
		UNIC_LOG(ERR, PMD, "%s: framecnt=%u must be a multiple of blocksz/framesz = %u (whole "
			 "blocks), and framecnt * framesz at most %u bytes", name, a->frame_count,
			 fpb, AFP_RING_MAX_BYTES);
		return -EINVAL;
	}
	return 0;
}

static int afp_vdev_create(const char *name, const char *args, struct unic_port **out)
{
	struct unic_port *port;
	struct afp_port *ap;
	struct afp_args a;
	struct ifreq ifr;
	int rc, ctl, ifindex;

	if (args == NULL)
		args = "";
	memset(&a, 0, sizeof(a));
	rc = afp_args_parse(name, args, &a);
	if (rc < 0)
		return rc;
	ifindex = (int)if_nametoindex(a.iface);
	if (ifindex == 0) {
		UNIC_LOG(ERR, PMD, "%s: interface '%s' does not exist in this network namespace; "
			 "list the interfaces with 'ip link', or run in the namespace that "
			 "holds it (ip netns exec NS ...)", name, a.iface);
		return -ENODEV;
	}
	ctl = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (ctl < 0) {
		rc = -errno;
		if (rc == -EPERM)
			UNIC_LOG(ERR, PMD, "%s: opening an AF_PACKET socket needs CAP_NET_RAW, which "
				 "this process lacks: run as root, or give the binary the capability "
				 "(setcap cap_net_raw,cap_net_admin+ep BINARY)", name);
		else
			UNIC_LOG(ERR, PMD, "%s: AF_PACKET socket: %s", name, strerror(-rc));
		return rc;
	}

	port = unic_port_alloc(sizeof(struct afp_port), name, afp_setup);
	if (port == NULL) {
		rc = -errno;
		goto close_ctl;
	}
	ap = afp_priv(port);
	memcpy(ap->iface, a.iface, sizeof(ap->iface));
	ap->ifindex = ifindex;
	ap->ctl_fd = ctl;
	ap->qpairs = a.qpairs;
	ap->block_size = a.block_size;
	ap->frame_size = a.frame_size;
	ap->frame_count = a.frame_count;
	ap->tov_ms = a.tov_ms;
	ap->qdisc_bypass = a.qdisc_bypass != 0;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", a.iface);
	if (ioctl(ctl, SIOCGIFHWADDR, &ifr) == 0)
		memcpy(port->mac, ifr.ifr_hwaddr.sa_data, UNIC_ETHER_ADDR_LEN);
	rc = unic_port_register(port);
	if (rc < 0) {
		unic_port_put(port); /* the close op is not called: the socket is ours */
		goto close_ctl;
	}
	*out = port;
	return 0;

close_ctl:
	close(ctl);
	return rc;
}

const struct unic_driver unic_af_packet_driver = {
	.name = "af_packet",
	.flow_why = "the kernel socket delivers every frame of the interface; filter in the kernel (tc, a BPF socket filter) or use e1000e",
	.vdev_create = afp_vdev_create,
};
