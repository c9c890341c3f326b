/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control set (link, MAC, filters, MTU, coalescing, message level,
 * register and EEPROM dumps) and statistics.
 *
 * Every optional op goes through PORT_OP, the one place that turns a NULL op
 * into -ENOTSUP.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <unic/pool.h>

#include "port_private.h"

/*
 * Call optional op @p op with the port locked, alive and its device not
 * taken back (-ENODEV); a NULL op is
 * -ENOTSUP, logged at debug so a probing caller is not noisy. PORT_OP_IF
 * first evaluates @p check (0 or -errno) under the lock, after those tests.
 */
#define PORT_OP_IF(port, op, check, ...)                                         \
	({                                                                        \
		int rc_ = port_lock_alive((port), #op);                             \
		if (rc_ == 0) {                                                   \
			rc_ = port_check_removed((port), #op);                      \
			if (rc_ == 0 && (port)->ops->op == NULL) {                  \
				UNIC_LOG(DEBUG, PORT, "%s: %s is not supported by this driver", \
					 (port)->name, #op);                            \
				rc_ = -ENOTSUP;                                     \
			} else if (rc_ == 0 && (rc_ = (check)) == 0) {            \
				rc_ = (port)->ops->op((port), ##__VA_ARGS__);        \
			}                                                         \
			port_unlock(port);                                        \
		}                                                                 \
		rc_;                                                              \
	})
#define PORT_OP(port, op, ...) PORT_OP_IF(port, op, 0, ##__VA_ARGS__)

int unic_port_link_get(struct unic_port *port, struct unic_link *link)
{
	memset(link, 0, sizeof(*link));
	return PORT_OP(port, link_get, link);
}

int unic_port_link_wait(struct unic_port *port, unsigned timeout_ms, struct unic_link *link)
{
	uint64_t waited_ms = 0;

	for (;;) {
		int rc = unic_port_link_get(port, link);

		if (rc)
			return rc;
		if (link->up)
			return 0;
		if (waited_ms >= timeout_ms) {
			UNIC_LOG(INFO, PORT, "%s: link still down after %u ms", port->name, timeout_ms);
			return -ETIMEDOUT;
		}
		struct timespec ts = { .tv_sec = 0, .tv_nsec = 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		waited_ms += 10;
	}
}

int unic_port_link_set(struct unic_port *port, bool up)
{
	return PORT_OP(port, link_set, up);
}

static bool mac_valid_unicast(const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	static const uint8_t zero[UNIC_ETHER_ADDR_LEN];

	return !(mac[0] & 1) && memcmp(mac, zero, UNIC_ETHER_ADDR_LEN) != 0;
}

int unic_port_mac_get(struct unic_port *port, uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	int rc = port_lock_alive(port, "mac_get");

	if (rc)
		return rc;
	memcpy(mac, port->mac, UNIC_ETHER_ADDR_LEN);
	port_unlock(port);
	return 0;
}

int unic_port_mac_set(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	int rc;

	if (!mac_valid_unicast(mac)) {
		UNIC_LOG(ERR, PORT, "%s: %02x:%02x:%02x:%02x:%02x:%02x is not a unicast address",
			 port->name, mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
		return -EINVAL;
	}
	rc = PORT_OP(port, mac_set, mac);
	if (rc == 0) {
		pthread_mutex_lock(&port_core(port)->lock);
		memcpy(port->mac, mac, UNIC_ETHER_ADDR_LEN);
		pthread_mutex_unlock(&port_core(port)->lock);
	}
	return rc;
}

int unic_port_mac_add(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	if (!mac_valid_unicast(mac)) {
		UNIC_LOG(ERR, PORT, "%s: mac_add needs a unicast address", port->name);
		return -EINVAL;
	}
	return PORT_OP(port, mac_add, mac);
}

int unic_port_mac_remove(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	return PORT_OP(port, mac_remove, mac);
}

int unic_port_promisc_set(struct unic_port *port, bool on)
{
	int rc = PORT_OP(port, promisc_set, on);

	if (rc == 0)
		__atomic_store_n(&port_core(port)->promisc, on, __ATOMIC_RELAXED);
	return rc;
}

/*
 * A driver with a filter op reports what was last set through it (the
 * drivers apply it again at every start, so it is what the device does); a
 * driver without one filters nothing, so every frame gets in: 1.
 */
static int rx_filter_get(struct unic_port *port, bool allmulti)
{
	int rc = port_lock_alive(port, allmulti ? "allmulti_get" : "promisc_get");

	if (rc)
		return rc;
	if (allmulti)
		rc = port->ops->allmulti_set ? port_core(port)->allmulti : 1;
	else
		rc = port->ops->promisc_set ? port_core(port)->promisc : 1;
	port_unlock(port);
	return rc;
}

int unic_port_promisc_get(struct unic_port *port)
{
	return rx_filter_get(port, false);
}

int unic_port_allmulti_get(struct unic_port *port)
{
	return rx_filter_get(port, true);
}

int unic_port_vlan_filter_set(struct unic_port *port, uint16_t vlan_id, bool on)
{
	if (vlan_id > 4095) {
		UNIC_LOG(ERR, PORT, "%s: VLAN id %u; ids are 0..4095", port->name, vlan_id);
		return -EINVAL;
	}
	return PORT_OP(port, vlan_filter_set, vlan_id, on);
}

int unic_port_allmulti_set(struct unic_port *port, bool on)
{
	int rc = PORT_OP(port, allmulti_set, on);

	if (rc == 0)
		__atomic_store_n(&port_core(port)->allmulti, on, __ATOMIC_RELAXED);
	return rc;
}

int unic_port_mc_addr_list_set(struct unic_port *port, const uint8_t (*addrs)[UNIC_ETHER_ADDR_LEN],
			       unsigned nb)
{
	if (nb > UNIC_PORT_MC_ADDR_MAX || (nb > 0 && addrs == NULL)) {
		UNIC_LOG(ERR, PORT, "%s: multicast list of %u addresses; at most %u", port->name, nb,
			 UNIC_PORT_MC_ADDR_MAX);
		return -EINVAL;
	}
	for (unsigned i = 0; i < nb; i++) {
		if (!(addrs[i][0] & 1)) {
			UNIC_LOG(ERR, PORT, "%s: multicast list entry %u (%02x:%02x:%02x:%02x:%02x:%02x) is not a group address",
				 port->name, i, addrs[i][0], addrs[i][1], addrs[i][2], addrs[i][3], addrs[i][4],
				 addrs[i][5]);
			return -EINVAL;
		}
	}
	return PORT_OP(port, mc_addr_list_set, addrs, nb);
}

int unic_port_mtu_set(struct unic_port *port, uint16_t mtu)
{
	struct unic_port_info info;
	int rc = port_lock_alive(port, "mtu_set");

	if (rc)
		return rc;
	rc = port_check_removed(port, "mtu_set");
	if (rc) {
		port_unlock(port);
		return rc;
	}
	if (port_core(port)->state == UNIC_PORT_STARTED) {
		UNIC_LOG(ERR, PORT, "%s: changing the MTU needs the port stopped", port->name);
		rc = -EBUSY;
		goto out;
	}
	memset(&info, 0, sizeof(info));
	port->ops->info_get(port, &info);
	if (mtu < info.min_mtu || mtu > info.max_mtu) {
		UNIC_LOG(ERR, PORT, "%s: MTU %u; this port takes %u..%u%s%s", port->name, mtu,
			 info.min_mtu, info.max_mtu, port_mtu_why(port) ? ": " : "",
			 port_mtu_why(port) ? port_mtu_why(port) : "");
		rc = -EINVAL;
		goto out;
	}
	/* The rx queues already set up must hold such a frame (queue setup's
	 * rule): MTU + Ethernet header, CRC and one VLAN tag in one buffer,
	 * unless the port chains buffers. */
	for (unsigned q = 0; q < port->conf.nb_rxq && q < UNIC_PORT_MAX_QUEUES; q++) {
		const struct unic_pool *pool = port->rxq[q].pool;

		if (port->rxq[q].q && pool && (uint32_t)mtu + 22 > pool->pkt_dataroom &&
		    !(port->conf.rx_offloads & UNIC_RX_OFFLOAD_SCATTER)) {
			UNIC_LOG(ERR, PORT, "%s: MTU %u needs %u-byte buffers but rx queue %u's pool %s has %u; enable the scatter rx offload (configure) or set the queue up again with a pool of a larger data room",
				 port->name, mtu, mtu + 22, q, pool->name, pool->pkt_dataroom);
			rc = -EINVAL;
			goto out;
		}
	}
	rc = port->ops->mtu_set ? port->ops->mtu_set(port, mtu) : 0;
	if (rc == 0)
		port->conf.mtu = mtu;
out:
	port_unlock(port);
	return rc;
}

int unic_port_coalesce_get(struct unic_port *port, struct unic_coalesce *c)
{
	memset(c, 0, sizeof(*c));
	return PORT_OP(port, coalesce_get, c);
}

int unic_port_coalesce_set(struct unic_port *port, const struct unic_coalesce *c)
{
	return PORT_OP(port, coalesce_set, c);
}

int unic_port_msglevel_set(struct unic_port *port, int level)
{
	if (level < UNIC_LOG_ERR || level > UNIC_LOG_DEBUG) {
		UNIC_LOG(ERR, PORT, "%s: message level %d; expected %d (error) .. %d (debug)",
			 port->name, level, UNIC_LOG_ERR, UNIC_LOG_DEBUG);
		return -EINVAL;
	}
	__atomic_store_n(&port->msglevel, level, __ATOMIC_RELAXED);
	return 0;
}

int unic_port_msglevel_get(const struct unic_port *port)
{
	return __atomic_load_n(&port->msglevel, __ATOMIC_RELAXED);
}

int unic_port_regs_get(struct unic_port *port, struct unic_regs *regs)
{
	regs->count = 0;
	return PORT_OP(port, regs_get, regs);
}

int unic_port_eeprom_get(struct unic_port *port, uint32_t offset, uint32_t len, uint8_t *buf)
{
	return PORT_OP(port, eeprom_get, offset, len, buf);
}

int unic_port_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max)
{
	int rc = port_lock_alive(port, "intr_sources");

	if (rc)
		return rc;
	rc = port_check_removed(port, "intr_sources");
	if (rc) {
		port_unlock(port);
		return rc;
	}
	if (port->ops->intr_sources == NULL) {
		rc = -ENOTSUP;
	} else if (port_core(port)->state != UNIC_PORT_STARTED) {
		UNIC_LOG(ERR, PORT, "%s: interrupt sources exist only while the port is started", port->name);
		rc = -EINVAL;
	} else if (port->conf.rx_mode == UNIC_RX_MODE_POLL) {
		/* Not an error: the napi engine asks for every queue it is
		 * given, and keeps a queue without a source polled. */
		UNIC_LOG(DEBUG, PORT, "%s: no interrupt sources in poll rx mode (configure the port in interrupt or hybrid mode for them)",
			 port->name);
		rc = -ENOTSUP;
	} else {
		rc = port->ops->intr_sources(port, src, max);
	}
	port_unlock(port);
	return rc;
}

/* A queue's interrupt exists only while the port is started in interrupt
 * or hybrid mode (the driver enables its vectors at start). Lock held. */
static int rx_intr_check(struct unic_port *port, uint16_t q, const char *what)
{
	if (q >= port->conf.nb_rxq || port->rxq[q].q == NULL) {
		UNIC_LOG(ERR, PORT, "%s: %s: rx queue %u is not set up (the port has %u)", port->name, what,
			 q, port->conf.nb_rxq);
		return -EINVAL;
	}
	if (port_core(port)->state != UNIC_PORT_STARTED || port->conf.rx_mode == UNIC_RX_MODE_POLL) {
		UNIC_LOG(ERR, PORT, "%s: %s: rx queue %u has an interrupt only while the port is started in interrupt or hybrid rx mode (state %s, rx mode %s)",
			 port->name, what, q, unic_port_state_name(port_core(port)->state),
			 port->conf.rx_mode == UNIC_RX_MODE_POLL ? "poll" : "interrupt/hybrid");
		return -EINVAL;
	}
	return 0;
}

int unic_port_rx_intr_irq(struct unic_port *port, uint16_t q)
{
	return PORT_OP_IF(port, rx_intr_affinity, rx_intr_check(port, q, "rx_intr_irq"), q, -1);
}

int unic_port_rx_intr_affinity_set(struct unic_port *port, uint16_t q, int cpu)
{
	if (cpu < 0) {
		UNIC_LOG(ERR, PORT, "%s: rx queue %u: CPU %d: expected a CPU number (0 or more)",
			 port ? port->name : "?", q, cpu);
		return -EINVAL;
	}
	return PORT_OP_IF(port, rx_intr_affinity, rx_intr_check(port, q, "rx_intr_affinity_set"), q, cpu);
}

/* ---- statistics ------------------------------------------------------------ */

static void stats_sub(struct unic_port_stats *a, const struct unic_port_stats *b)
{
	uint64_t *x = (uint64_t *)a;
	const uint64_t *y = (const uint64_t *)b;

	for (size_t i = 0; i < sizeof(*a) / sizeof(uint64_t); i++)
		x[i] -= y[i];
}

/* The queues' counters (counters.c), then what the driver adds. */
static int stats_raw(struct unic_port *port, struct unic_port_stats *st)
{
	port_stats_sum(port, st);
	return port->ops->stats_get ? port->ops->stats_get(port, st) : 0;
}

int unic_port_stats_get(struct unic_port *port, struct unic_port_stats *st)
{
	int rc = port_lock_alive(port, "stats_get");

	if (rc)
		return rc;
	rc = stats_raw(port, st);
	if (rc == 0)
		stats_sub(st, &port_core(port)->stats_base);
	port_unlock(port);
	return rc;
}

static int xstats_raw_driver(struct unic_port *port, uint64_t **vals)
{
	int n;

	*vals = NULL;
	if (port->ops->xstats_get == NULL)
		return 0;
	n = port->ops->xstats_get(port, NULL, 0);
	if (n <= 0)
		return n;
	*vals = calloc((size_t)n, sizeof(uint64_t));
	if (*vals == NULL)
		return -ENOMEM;
	return port->ops->xstats_get(port, *vals, (unsigned)n);
}

/* A poller's published counter @p k, as the poller wrote it. */
static uint64_t poller_stat(const struct unic_port_poller *p, unsigned k)
{
	return unic_counter_read(&p->stats->values[k]);
}

int unic_port_stats_reset(struct unic_port *port)
{
	struct port_core *pc = port_core(port);
	uint64_t *vals;
	int rc = port_lock_alive(port, "stats_reset"), n;

	if (rc)
		return rc;
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(pc->pollers); i++) {
		struct unic_port_poller *p = &pc->pollers[i];

		for (unsigned k = 0; p->stats && k < p->stats->nb; k++)
			p->stats_base[k] = poller_stat(p, k);
	}
	rc = stats_raw(port, &pc->stats_base);
	if (rc == 0) {
		n = xstats_raw_driver(port, &vals);
		if (n < 0) {
			rc = n;
		} else {
			free(pc->xstats_base);
			pc->xstats_base = vals;
			pc->nb_xstats_base = (unsigned)n;
		}
	}
	port_unlock(port);
	return rc;
}

/* The generic xstats, from the basic counters, with DPDK's names. */
static const struct {
	const char *name;
	size_t off;
} gen_xstats[] = {
	{ "rx_good_packets", offsetof(struct unic_port_stats, ipackets) },
	{ "tx_good_packets", offsetof(struct unic_port_stats, opackets) },
	{ "rx_good_bytes", offsetof(struct unic_port_stats, ibytes) },
	{ "tx_good_bytes", offsetof(struct unic_port_stats, obytes) },
	{ "rx_missed_errors", offsetof(struct unic_port_stats, imissed) },
	{ "rx_errors", offsetof(struct unic_port_stats, ierrors) },
	{ "tx_errors", offsetof(struct unic_port_stats, oerrors) },
	{ "rx_mbuf_allocation_errors", offsetof(struct unic_port_stats, rx_nombuf) },
};

static const struct {
	const char *fmt;
	size_t off;
	bool rx;
} q_xstats[] = {
	{ "rx_q%u_packets", offsetof(struct unic_port_stats, q_ipackets), true },
	{ "rx_q%u_bytes", offsetof(struct unic_port_stats, q_ibytes), true },
	{ "rx_q%u_errors", offsetof(struct unic_port_stats, q_errors), true },
	{ "tx_q%u_packets", offsetof(struct unic_port_stats, q_opackets), false },
	{ "tx_q%u_bytes", offsetof(struct unic_port_stats, q_obytes), false },
};

int unic_port_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max)
{
	unsigned i = 0;
	int rc = port_lock_alive(port, "xstats_names"), nd = 0;

	if (rc)
		return rc;
	for (size_t k = 0; k < UNIC_ARRAY_SIZE(gen_xstats); k++, i++)
		if (i < max)
			snprintf(names[i].name, sizeof(names[i].name), "%s", gen_xstats[k].name);
	for (size_t k = 0; k < UNIC_ARRAY_SIZE(q_xstats); k++) {
		unsigned nq = q_xstats[k].rx ? port->conf.nb_rxq : port->conf.nb_txq;

		for (unsigned q = 0; q < nq; q++, i++)
			if (i < max)
				snprintf(names[i].name, sizeof(names[i].name), q_xstats[k].fmt, q);
	}
	if (port->ops->xstats_names) {
		nd = port->ops->xstats_names(port, i < max ? names + i : NULL, i < max ? max - i : 0);
		if (nd < 0) {
			rc = nd;
			goto out;
		}
	}
	i += (unsigned)nd;
	/* Last, so the indices of the port's own never move: the counters
	 * of the queues' pollers (lib/napi: "napi_rx_q0_polls", ...). */
	for (unsigned k = 0; k < UNIC_ARRAY_SIZE(port_core(port)->pollers); k++) {
		const struct unic_port_poller *p = &port_core(port)->pollers[k];

		for (unsigned c = 0; p->stats && c < p->stats->nb; c++, i++)
			if (i < max)
				snprintf(names[i].name, sizeof(names[i].name), "%s_%s_q%u_%s",
					 p->stats->prefix, k < UNIC_PORT_MAX_QUEUES ? "rx" : "tx",
					 k % UNIC_PORT_MAX_QUEUES, p->stats->names[c]);
	}
	rc = (int)i;
out:
	port_unlock(port);
	return rc;
}

int unic_port_xstats_get(struct unic_port *port, uint64_t *values, unsigned max)
{
	struct port_core *pc = port_core(port);
	struct unic_port_stats st;
	uint64_t *dv = NULL;
	unsigned i = 0;
	int rc = port_lock_alive(port, "xstats_get"), nd;

	if (rc)
		return rc;
	rc = stats_raw(port, &st);
	if (rc)
		goto out;
	stats_sub(&st, &pc->stats_base);
	for (size_t k = 0; k < UNIC_ARRAY_SIZE(gen_xstats); k++, i++)
		if (i < max)
			values[i] = *(const uint64_t *)((const uint8_t *)&st + gen_xstats[k].off);
	for (size_t k = 0; k < UNIC_ARRAY_SIZE(q_xstats); k++) {
		unsigned nq = q_xstats[k].rx ? port->conf.nb_rxq : port->conf.nb_txq;
		const uint64_t *arr = (const uint64_t *)((const uint8_t *)&st + q_xstats[k].off);

		for (unsigned q = 0; q < nq; q++, i++)
			if (i < max)
				values[i] = q < UNIC_PORT_MAX_QUEUES ? arr[q] : 0;
	}
	nd = xstats_raw_driver(port, &dv);
	if (nd < 0) {
		rc = nd;
		goto out;
	}
	for (int k = 0; k < nd; k++, i++) {
		if (i >= max)
			continue;
		values[i] = dv[k];
		if ((unsigned)k < pc->nb_xstats_base)
			values[i] -= pc->xstats_base[k];
	}
	free(dv);
	for (unsigned k = 0; k < UNIC_ARRAY_SIZE(pc->pollers); k++) {
		const struct unic_port_poller *p = &pc->pollers[k];

		for (unsigned c = 0; p->stats && c < p->stats->nb; c++, i++)
			if (i < max)
				values[i] = poller_stat(p, c) - p->stats_base[c];
	}
	rc = (int)i;
out:
	port_unlock(port);
	return rc;
}

int unic_port_xstat_by_name(struct unic_port *port, const char *name, uint64_t *value)
{
	struct unic_xstat_name *names;
	uint64_t *vals;
	int n, rc = -ENOENT;

	n = unic_port_xstats_names(port, NULL, 0);
	if (n < 0)
		return n;
	names = calloc((size_t)n + 1, sizeof(*names));
	vals = calloc((size_t)n + 1, sizeof(*vals));
	if (names == NULL || vals == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	/* Counts can change between calls only if the port was reconfigured;
	 * take the smaller. */
	int nn = unic_port_xstats_names(port, names, (unsigned)n);
	int nv = unic_port_xstats_get(port, vals, (unsigned)n);

	if (nn < 0 || nv < 0) {
		rc = nn < 0 ? nn : nv;
		goto out;
	}
	for (int i = 0; i < UNIC_MIN(UNIC_MIN(nn, nv), n); i++) {
		if (strcmp(names[i].name, name) == 0) {
			*value = vals[i];
			rc = 0;
			break;
		}
	}
out:
	free(names);
	free(vals);
	return rc;
}

int unic_intr_source_ack(const struct unic_intr_source *src)
{
	uint64_t buf = 0;
	ssize_t n;

	if (src->kind == UNIC_INTR_SOCKET)
		return 0;  /* level-triggered: readable until the ring is drained */
	if (src->kind != UNIC_INTR_EVENTFD && src->kind != UNIC_INTR_UIO)
		return -EINVAL;
	/* Non-blocking fds: nothing pending reads as EAGAIN. */
	n = read(src->fd, &buf, (size_t)src->kind);
	if (n < 0)
		return errno == EAGAIN ? -EAGAIN : -errno;
	if (n != (ssize_t)src->kind)
		return -EIO;
	if (src->kind == UNIC_INTR_UIO && src->unmask == NULL) {
		uint32_t one = 1;

		/* A UIO driver with irqcontrol unmasks when userspace writes 1.
		 * uio_pci_generic has none (the write fails with EIO): it masks
		 * INTx in the command register, and the source's unmask
		 * callback clears that bit (unic_pci_intx_unmask). */
		if (write(src->fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
			return -errno;
	}
	if (src->unmask)
		return src->unmask(src->unmask_ctx);
	return 0;
}

/* ---- RSS ------------------------------------------------------------------------ */

/* Lock the port for an RSS call: alive, not removed, the driver has @p op
 * and the port has RSS. @return 0 with the lock held and *info filled, or
 * -errno without it. */
static int rss_lock(struct unic_port *port, const char *what, bool has_op,
		    struct unic_port_info *info)
{
	int rc = port_lock_alive(port, what);

	if (rc)
		return rc;
	rc = port_check_removed(port, what);
	if (rc == 0) {
		memset(info, 0, sizeof(*info));
		port->ops->info_get(port, info);
		if (!has_op || info->reta_size == 0) {
			UNIC_LOG(DEBUG, PORT, "%s: %s: this port has no RSS", port->name, what);
			rc = -ENOTSUP;
		}
	}
	if (rc)
		port_unlock(port);
	return rc;
}

int unic_port_rss_hash_get(struct unic_port *port, struct unic_rss_conf *rss)
{
	struct unic_port_info info;
	int rc;

	memset(rss, 0, sizeof(*rss));
	rc = rss_lock(port, "rss_hash_get", port->ops->rss_hash_get != NULL, &info);
	if (rc)
		return rc;
	rc = port->ops->rss_hash_get(port, rss);
	port_unlock(port);
	return rc;
}

int unic_port_rss_hash_update(struct unic_port *port, const struct unic_rss_conf *rss)
{
	struct unic_port_info info;
	int rc = rss_lock(port, "rss_hash_update", port->ops->rss_hash_update != NULL, &info);

	if (rc)
		return rc;
	if (rss->types & ~info.rss_hash_capa) {
		char want[128], can[128];

		unic_rss_type_names(rss->types & ~info.rss_hash_capa, want, sizeof(want));
		unic_rss_type_names(info.rss_hash_capa, can, sizeof(can));
		UNIC_LOG(ERR, PORT, "%s: RSS cannot hash %s; this port hashes %s", port->name, want, can);
		rc = -EINVAL;
	} else if (rss->key_len != 0 && rss->key_len != info.rss_key_size) {
		UNIC_LOG(ERR, PORT, "%s: an RSS key of %u bytes; this port takes %u-byte keys", port->name,
			 rss->key_len, info.rss_key_size);
		rc = -EINVAL;
	} else {
		rc = port->ops->rss_hash_update(port, rss);
	}
	if (rc == 0) {
		port->conf.rss_hash_types = rss->types;
		if (rss->key_len) {
			memcpy(port->conf.rss_key, rss->key, rss->key_len);
			port->conf.rss_key_len = rss->key_len;
		}
	}
	port_unlock(port);
	return rc;
}

int unic_port_rss_reta_query(struct unic_port *port, uint16_t *reta, uint16_t size)
{
	struct unic_port_info info;
	int rc = rss_lock(port, "rss_reta_query", port->ops->rss_reta_query != NULL, &info);

	if (rc)
		return rc;
	if (size != info.reta_size) {
		UNIC_LOG(ERR, PORT, "%s: a redirection table of %u entries; this port's has %u", port->name,
			 size, info.reta_size);
		rc = -EINVAL;
	} else {
		rc = port->ops->rss_reta_query(port, reta);
	}
	port_unlock(port);
	return rc;
}

int unic_port_rss_reta_update(struct unic_port *port, const uint16_t *reta, const uint64_t *mask,
			      uint16_t size)
{
	struct unic_port_info info;
	uint16_t table[UNIC_RETA_SIZE_MAX];
	int rc = rss_lock(port, "rss_reta_update", port->ops->rss_reta_update != NULL &&
			  port->ops->rss_reta_query != NULL, &info);

	if (rc)
		return rc;
	if (size != info.reta_size || size > UNIC_RETA_SIZE_MAX) {
		UNIC_LOG(ERR, PORT, "%s: a redirection table of %u entries; this port's has %u", port->name,
			 size, info.reta_size);
		rc = -EINVAL;
		goto out;
	}
	rc = port->ops->rss_reta_query(port, table);
	if (rc)
		goto out;
	for (uint16_t i = 0; i < size; i++) {
		if (!(mask[i / 64] & (1ull << (i % 64))))
			continue;
		if (reta[i] >= port->conf.nb_rxq) {
			UNIC_LOG(ERR, PORT, "%s: redirection entry %u to rx queue %u; the port has %u rx queue%s (0..%u)",
				 port->name, i, reta[i], port->conf.nb_rxq, port->conf.nb_rxq == 1 ? "" : "s",
				 port->conf.nb_rxq ? port->conf.nb_rxq - 1 : 0);
			rc = -EINVAL;
			goto out;
		}
		table[i] = reta[i];
	}
	rc = port->ops->rss_reta_update(port, table);
out:
	port_unlock(port);
	return rc;
}

/* ---- flow control ----------------------------------------------------------------- */

int unic_port_flow_ctrl_get(struct unic_port *port, struct unic_flow_ctrl *fc)
{
	memset(fc, 0, sizeof(*fc));
	return PORT_OP(port, flow_ctrl_get, fc);
}

int unic_port_flow_ctrl_set(struct unic_port *port, const struct unic_flow_ctrl *fc)
{
	return PORT_OP(port, flow_ctrl_set, fc);
}

/* ---- queues and descriptors ------------------------------------------ */

int unic_port_queue_info_get(struct unic_port *port, bool tx, uint16_t q, struct unic_queue_info *qi)
{
	int rc = port_lock_alive(port, "queue_info_get");

	memset(qi, 0, sizeof(*qi));
	if (rc)
		return rc;
	if (port_core(port)->state == UNIC_PORT_ALLOCATED || q >= (tx ? port->conf.nb_txq : port->conf.nb_rxq)) {
		UNIC_LOG(DEBUG, PORT, "%s: %s queue %u: the port has %u", port->name, tx ? "tx" : "rx", q,
			 tx ? port->conf.nb_txq : port->conf.nb_rxq);
		rc = -EINVAL;
	} else {
		const struct unic_port_queue_info *i = tx ? &port->txq[q] : &port->rxq[q];

		qi->setup = i->q != NULL;
		qi->nb_desc = i->q ? i->nb_desc : 0;
		qi->pool = tx ? NULL : i->pool;
	}
	port_unlock(port);
	return rc;
}

/* Lock held: queue @p q is set up and @p idx (an offset or an index) is
 * below its ring size. */
static int desc_check(struct unic_port *port, bool tx, uint16_t q, uint32_t idx, const char *what)
{
	const struct unic_port_queue_info *i;

	if (q >= UNIC_PORT_MAX_QUEUES || q >= (tx ? port->conf.nb_txq : port->conf.nb_rxq) ||
	    (i = tx ? &port->txq[q] : &port->rxq[q])->q == NULL) {
		UNIC_LOG(ERR, PORT, "%s: %s: %s queue %u is not set up (configure and start the port first)",
			 port->name, what, tx ? "tx" : "rx", q);
		return -EINVAL;
	}
	if (idx >= i->nb_desc) {
		UNIC_LOG(ERR, PORT, "%s: %s: descriptor %u of %s queue %u; its ring has %u (0..%u)", port->name,
			 what, idx, tx ? "tx" : "rx", q, i->nb_desc, i->nb_desc - 1u);
		return -EINVAL;
	}
	return 0;
}

int unic_port_desc_status(struct unic_port *port, bool tx, uint16_t q, uint16_t offset)
{
	return PORT_OP_IF(port, desc_status, desc_check(port, tx, q, offset, "desc_status"), tx, q, offset);
}

int unic_port_rx_queue_count(struct unic_port *port, uint16_t q)
{
	return PORT_OP_IF(port, rx_queue_count, desc_check(port, false, q, 0, "rx_queue_count"), q);
}

int unic_port_desc_read(struct unic_port *port, bool tx, uint16_t q, uint16_t desc, uint32_t *words,
			unsigned max)
{
	return PORT_OP_IF(port, desc_read, desc_check(port, tx, q, desc, "desc_read"), tx, q, desc, words, max);
}
