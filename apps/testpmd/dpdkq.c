/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-testpmd's remaining show, set, port and queue commands (the tpcmds2
 * block of cmd.c's table): queue information and descriptors, one queue's
 * ring size, the port's unicast and multicast lists, xstats clear, load,
 * the forwarding core and port lists; and the commands unic refuses, each
 * saying which capability is missing and what to use instead. testpmd.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/log.h>
#include <unic/pool.h>

#include "testpmd.h"

#define LOAD_DEPTH_MAX 8

static void usage(struct tp_app *app, const struct tp_cmd *cmd)
{
	fprintf(app->err, "usage: %s\n", cmd->def->syntax);
}

static int fwd_off(struct tp_app *app)
{
	if (!app->fwd_on)
		return 0;
	fprintf(app->err, "packet forwarding is running: run 'stop' first\n");
	return -EBUSY;
}

static int port_stopped(struct tp_app *app, uint16_t id)
{
	if (!tp_port_started(app, id))
		return 0;
	fprintf(app->err, "port %u must be stopped first: run 'port stop %u'\n", id, id);
	return -EBUSY;
}

/* A refusal that is unic's design, not one driver's: -ENOTSUP. */
static int refuse(struct tp_app *app, const char *what, const char *why)
{
	fprintf(app->err, "%s: not supported: %s (-ENOTSUP)\n", what, why);
	return -ENOTSUP;
}

/* A refusal naming the port's driver, which lacks the op, and why. */
static int refuse_drv(struct tp_app *app, uint64_t id, const char *what, const char *why)
{
	int rc = tp_port_check(app, id);

	return rc ? rc : tp_op_err_why(app, (uint16_t)id, what, -ENOTSUP, why);
}

/* Is queue @p q one the port is configured with? */
static int queue_check(struct tp_app *app, uint16_t id, bool tx, uint64_t q)
{
	unsigned nq = tx ? app->ports[id].conf.nb_txq : app->ports[id].conf.nb_rxq;

	if (q < nq)
		return 0;
	fprintf(app->err, "port %u: %s queue %" PRIu64 " does not exist: the port has %u (0..%u); 'port config %u %s N' sets more\n",
		id, tx ? "tx" : "rx", q, nq, nq ? nq - 1 : 0, id, tx ? "txq" : "rxq");
	return -EINVAL;
}

/* ---- queues ------------------------------------------------------------ */

static int show_qinfo(struct tp_app *app, bool tx, uint64_t port, uint64_t q)
{
	struct tp_port *p;
	struct unic_queue_info qi;
	struct unic_port_info info;
	uint16_t id = (uint16_t)port;
	int rc = tp_port_check(app, port);

	if (rc || (rc = queue_check(app, id, tx, q)) || (rc = tp_info_of(app, id, &info)))
		return rc;
	p = &app->ports[id];
	rc = unic_port_queue_info_get(p->port, tx, (uint16_t)q, &qi);
	if (rc && rc != -EINVAL)
		return tp_op_err(app, id, "queue info", rc);
	if (rc || !qi.setup) {
		/* Not set up yet: what the next 'port start' sets up. */
		uint16_t want = tx ? (p->q_txd[q] ? p->q_txd[q] : p->txd) : (p->q_rxd[q] ? p->q_rxd[q] : p->rxd);

		qi.nb_desc = want ? want : tx ? info.tx_desc_default : info.rx_desc_default;
		qi.pool = tx ? NULL : p->pool;
	}
	fprintf(app->out, "\n********************* Infos for port %-2u, %s queue %-2u *********************\n", id,
		tx ? "TX" : "RX", (unsigned)q);
	if (!tx) {
		fprintf(app->out, "Mempool: %s\n", qi.pool ? qi.pool->name : "(none yet)");
		fprintf(app->out, "RX drop packets: on\n");
		fprintf(app->out, "RX deferred start: off\n");
		fprintf(app->out, "RX scattered packets: %s\n",
			p->conf.rx_offloads & UNIC_RX_OFFLOAD_SCATTER ? "on" : "off");
	} else {
		fprintf(app->out, "TX deferred start: off\n");
	}
	fprintf(app->out, "%s queue state: %s\n", tx ? "TX" : "RX",
		tp_port_started(app, id) && qi.setup ? "started" : "stopped");
	fprintf(app->out, "Number of %s: %u%s\n", tx ? "TXDs" : "RXDs", qi.nb_desc,
		qi.setup ? "" : " (at the next 'port start')");
	return 0;
}

/* Descriptor commands read the driver's ring: forwarding threads are
 * paused around them so that no burst runs meanwhile. */
static int desc_cmd(struct tp_app *app, uint64_t port, bool tx, uint64_t q, uint64_t d, int what)
{
	uint16_t id = (uint16_t)port;
	uint32_t w[8];
	int rc = tp_port_check(app, port);

	if (rc || (rc = queue_check(app, id, tx, q)))
		return rc;
	if (d > UINT16_MAX) {
		fprintf(app->err, "port %u: descriptor %" PRIu64 ": rings have at most 65535\n", id, d);
		return -EINVAL;
	}
	if (!tp_port_started(app, id)) {
		fprintf(app->err, "port %u is not started: its rings are not set up; run 'port start %u'\n", id, id);
		return -EINVAL;
	}
	tp_fwd_pause(app);
	if (what == 0)
		rc = unic_port_desc_status(app->ports[id].port, tx, (uint16_t)q, (uint16_t)d);
	else if (what == 1)
		rc = unic_port_rx_queue_count(app->ports[id].port, (uint16_t)q);
	else
		rc = unic_port_desc_read(app->ports[id].port, tx, (uint16_t)q, (uint16_t)d, w, 8);
	if (tp_fwd_resume(app) && rc >= 0)
		rc = -EIO;
	if (rc == -EINVAL) {
		struct unic_queue_info qi;

		if (unic_port_queue_info_get(app->ports[id].port, tx, (uint16_t)q, &qi) == 0 && d >= qi.nb_desc) {
			fprintf(app->err, "port %u: descriptor %" PRIu64 " of %s queue %" PRIu64 ": its ring has %u (0..%u)\n",
				id, d, tx ? "tx" : "rx", q, qi.nb_desc, qi.nb_desc ? qi.nb_desc - 1u : 0);
			return rc;
		}
	}
	if (rc < 0)
		return tp_op_err(app, id, what == 0 ? "descriptor status" : what == 1 ? "rx queue count" :
						     tx ? "read txd" : "read rxd", rc);
	if (what == 0) {
		static const char *const rx[] = { "AVAILABLE", "DONE", "UNAVAILABLE" };
		static const char *const txs[] = { "FULL", "DONE", "UNAVAILABLE" };

		fprintf(app->out, "Desc status = %s\n", rc <= 2 ? (tx ? txs : rx)[rc] : "?");
	} else if (what == 1) {
		fprintf(app->out, "Used desc count = %d\n", rc);
	} else if (rc == 4) {
		fprintf(app->out, "    0x%08X - 0x%08X / 0x%08X - 0x%08X\n", w[0], w[1], w[2], w[3]);
	} else {
		for (int i = 0; i < rc && i < 8; i++)
			fprintf(app->out, "%s0x%08X", i == 0 ? "    " : i % 2 ? " - " : " / ", w[i]);
		fprintf(app->out, "\n");
	}
	return 0;
}

static int port_qstate(struct tp_app *app, const struct tp_cmd *cmd)
{
	const struct tp_cmd_arg *a = cmd->arg;
	uint16_t id = (uint16_t)a[1].num;
	bool tx = a[2].kw == 1;
	int rc = tp_port_check(app, a[1].num);

	if (rc || (rc = queue_check(app, id, tx, a[3].num)))
		return rc;
	if (a[4].kw < 2)
		return refuse_drv(app, id, a[4].kw == 0 ? "queue start" : "queue stop",
				  "no driver op starts or stops one queue (the 82574 has no per-queue enable, a virtio-net would need VIRTIO_F_RING_RESET); use 'port stop N' and 'port start N'");
	if ((rc = port_stopped(app, id)))
		return rc;
	app->ports[id].need_config = true;
	fprintf(app->out, "Port %u: %s queue %" PRIu64 " is set up again at the next 'port start %u'\n", id,
		tx ? "tx" : "rx", a[3].num, id);
	return 0;
}

static int port_qring(struct tp_app *app, const struct tp_cmd *cmd)
{
	const struct tp_cmd_arg *a = cmd->arg;
	uint16_t id = (uint16_t)a[2].num;
	bool tx = a[3].kw == 1;
	struct unic_port_info info;
	uint16_t min, max, align;
	uint64_t n = a[6].num;
	int rc = tp_port_check(app, a[2].num);

	if (rc || (rc = queue_check(app, id, tx, a[4].num)) || (rc = port_stopped(app, id)) ||
	    (rc = tp_info_of(app, id, &info)))
		return rc;
	if (a[4].num >= TP_MAX_QUEUES)
		return -EINVAL;
	min = tx ? info.tx_desc_min : info.rx_desc_min;
	max = tx ? info.tx_desc_max : info.rx_desc_max;
	align = tx ? info.tx_desc_align : info.rx_desc_align;
	if (n < min || n > max || (align > 1 && n % align)) {
		fprintf(app->err, "port %u: ring_size %" PRIu64 ": the %s driver takes %u..%u%s%u\n", id, n,
			app->ports[id].driver, min, max, align > 1 ? " in multiples of " : "", align > 1 ? align : 0);
		return -EINVAL;
	}
	if (tx)
		app->ports[id].q_txd[a[4].num] = (uint16_t)n;
	else
		app->ports[id].q_rxd[a[4].num] = (uint16_t)n;
	app->ports[id].need_config = true;
	fprintf(app->out, "Port %u: %s queue %" PRIu64 " ring size %" PRIu64 " at the next 'port start %u'\n", id,
		tx ? "tx" : "rx", a[4].num, n, id);
	return 0;
}

static int port_cleanup(struct tp_app *app, const struct tp_cmd *cmd)
{
	const struct tp_cmd_arg *a = cmd->arg;
	uint16_t id = (uint16_t)a[2].num;
	int rc = tp_port_check(app, a[2].num);

	if (rc || (rc = queue_check(app, id, true, a[4].num)) || (rc = fwd_off(app)))
		return rc;
	if (!tp_port_started(app, id)) {
		fprintf(app->err, "port %u is not started: nothing was sent; run 'port start %u'\n", id, id);
		return -EINVAL;
	}
	/* unic_tx_reclaim frees every buffer the device is done with: the
	 * count DPDK takes as a limit is an upper bound here. */
	rc = unic_tx_reclaim(app->ports[id].port, (uint16_t)a[4].num);
	if (rc < 0)
		return tp_op_err(app, id, "tx reclaim", rc);
	fprintf(app->out, "Cleanup txq mbufs for port %u queue %" PRIu64 ": %d freed\n", id, a[4].num, rc);
	return 0;
}

/* ---- show and clear --------------------------------------------------- */

static int show_more(struct tp_app *app, uint64_t port, unsigned what)
{
	struct tp_port *p;
	uint8_t mac[6];
	char b[32];
	int rc = tp_port_check(app, port);

	if (rc)
		return rc;
	p = &app->ports[port];
	switch (what) {
	case 0: /* macs */
		rc = unic_port_mac_get(p->port, mac);
		if (rc)
			return tp_op_err(app, (uint16_t)port, "MAC address", rc);
		fprintf(app->out, "Number of MAC address added: %u\n", 1 + p->nb_macs);
		tp_fmt_mac(b, sizeof(b), mac);
		fprintf(app->out, "  %s\n", b);
		for (unsigned i = 0; i < p->nb_macs; i++) {
			tp_fmt_mac(b, sizeof(b), p->macs[i]);
			fprintf(app->out, "  %s\n", b);
		}
		return 0;
	case 1: /* mcast_macs */
		fprintf(app->out, "Number of Multicast MAC address added: %u\n", p->nb_mcast);
		for (unsigned i = 0; i < p->nb_mcast; i++) {
			tp_fmt_mac(b, sizeof(b), p->mcast[i]);
			fprintf(app->out, "  %s\n", b);
		}
		return 0;
	case 2:
		return refuse_drv(app, port, "packet types",
				  "no unic driver reports packet types (struct unic_pkt has no ptype; the csum engine parses the headers)");
	case 3:
		return refuse(app, "tx_metadata", "unic packets have no metadata field (no rte_flow to match it)");
	default:
		return refuse_drv(app, port, "FEC mode", "no driver has forward error correction (e1000e is 1G copper)");
	}
}

static int clear_xstats(struct tp_app *app, const struct tp_cmd_arg *pa)
{
	uint16_t ids[TP_MAX_PORTS] = { 0 };
	int n = tp_ports_of(app, pa, ids), rc = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct tp_port *p = &app->ports[ids[i]];
		int r = unic_port_stats_reset(p->port);

		if (r) {
			rc = rc ? rc : tp_op_err(app, ids[i], "clear xstats", r);
			continue;
		}
		/* unic zeroes the basic and the extended statistics together. */
		p->last_ns = unic_time_ns();
		p->last_ipk = p->last_opk = p->last_ib = p->last_ob = 0;
		fprintf(app->out, "\n  NIC extended statistics for port %u cleared (the NIC statistics too)\n", ids[i]);
	}
	return rc;
}

/* ---- load ------------------------------------------------------------- */

static int load(struct tp_app *app, const char *path)
{
	struct tp_cmd *cmd;
	char err[4096], *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	ssize_t len;
	int rc = 0;
	FILE *f;

	if (app->load_depth >= LOAD_DEPTH_MAX) {
		fprintf(app->err, "load %s: files load each other more than %d deep; stopping\n", path, LOAD_DEPTH_MAX);
		return -ELOOP;
	}
	f = fopen(path, "r");
	if (f == NULL) {
		rc = -errno;
		fprintf(app->err, "load %s: cannot open it: %s\n", path, strerror(-rc));
		return rc;
	}
	cmd = malloc(sizeof(*cmd));
	if (cmd == NULL) {
		fclose(f);
		return -ENOMEM;
	}
	app->load_depth++;
	while ((len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (strlen(line) != (size_t)len) {
			fprintf(app->err, "%s:%u: a NUL byte in the line\n", path, lineno);
			rc = -EINVAL;
			break;
		}
		rc = tp_cmd_parse(line, cmd, err, sizeof(err));
		if (rc == TP_PARSE_EMPTY) {
			rc = 0;
			continue;
		}
		if (rc != TP_PARSE_OK) {
			fprintf(app->err, "%s:%u: %s\n", path, lineno, err);
			rc = -EINVAL;
			break;
		}
		rc = tp_exec(app, cmd);
		if (rc == TP_EXEC_QUIT)
			break;
		if (rc < 0) {
			fprintf(app->err, "%s:%u: the command failed; the rest of the file is not run\n", path, lineno);
			break;
		}
	}
	app->load_depth--;
	free(line);
	free(cmd);
	fclose(f);
	if (rc == 0)
		fprintf(app->out, "Read CLI commands from %s\n", path);
	return rc;
}

/* ---- forwarding cores and ports -------------------------------------- */

/* "1,3,5-7" or a hex mask ("0x6", "6") into bits. @return 0 or -1. */
static int parse_list(const char *s, uint64_t *bits)
{
	*bits = 0;
	while (*s) {
		char *e;
		unsigned long a = strtoul(s, &e, 10), b = a;

		if (e == s || a > 63)
			return -1;
		if (*e == '-') {
			s = e + 1;
			b = strtoul(s, &e, 10);
			if (e == s || b > 63 || b < a)
				return -1;
		}
		for (unsigned long i = a; i <= b; i++)
			*bits |= 1ull << i;
		if (*e == '\0')
			break;
		if (*e != ',')
			return -1;
		s = e + 1;
		if (*s == '\0')
			return -1;
	}
	return *bits ? 0 : -1;
}

static int parse_mask(const char *s, uint64_t *bits)
{
	char *e;

	if (s[0] == '-' || s[0] == '+')
		return -1;
	errno = 0;
	*bits = strtoull(s, &e, 16);
	return e == s || *e || errno || *bits == 0 ? -1 : 0;
}

static int set_cores(struct tp_app *app, uint64_t bits, const char *as)
{
	const struct unic_env_options *eo = unic_env_opts(app->env);
	unsigned nw = unic_env_worker_count(app->env), n = 0;
	unsigned sel[TP_MAX_THREADS];

	for (unsigned c = 0; c < 64; c++) {
		unsigned w;

		if (!(bits >> c & 1))
			continue;
		for (w = 0; w < nw && eo->cores[w + 1] != (int)c; w++)
			;
		if (w == nw) {
			fprintf(app->err, "set %s: core %u is not a forwarding core; those -l gave:", as, c);
			for (w = 0; w < nw; w++)
				fprintf(app->err, " %d", eo->cores[w + 1]);
			fprintf(app->err, "%s (core %d runs the commands)\n", nw ? "" : " none", eo->nb_cores ? eo->cores[0] : 0);
			return -EINVAL;
		}
		sel[n++] = w;
	}
	memcpy(app->workers, sel, n * sizeof(sel[0]));
	app->nb_workers = n;
	app->nbcore = n;
	fprintf(app->out, "List of forwarding cores:");
	for (unsigned i = 0; i < n; i++)
		fprintf(app->out, " %d", eo->cores[sel[i] + 1]);
	fprintf(app->out, " (nbcore %u)\n", n);
	return 0;
}

static int set_ports(struct tp_app *app, uint64_t bits)
{
	for (unsigned id = 0; id < 64; id++)
		if (bits >> id & 1 && (id >= TP_MAX_PORTS || app->ports[id].port == NULL))
			return tp_port_check(app, id);
	app->portmask = bits;
	app->nb_fwd_ports = 0;
	fprintf(app->out, "List of forwarding ports:");
	for (unsigned id = 0; id < 64; id++)
		if (bits >> id & 1)
			fprintf(app->out, " %u", id);
	fprintf(app->out, "\n");
	return 0;
}

static int set_list(struct tp_app *app, const struct tp_cmd *cmd, bool mask)
{
	const struct tp_cmd_arg *a = cmd->arg;
	bool cores = a[1].kw == 0;
	uint64_t bits;
	int rc = fwd_off(app);

	if (rc)
		return rc;
	if ((mask ? parse_mask(a[2].str, &bits) : parse_list(a[2].str, &bits)) != 0) {
		fprintf(app->err, "set %s: '%s' is not %s\n", a[1].str, a[2].str,
			mask ? "a non-zero hex mask (e.g. 0x6)" : "a list of numbers 0..63 (e.g. 1,3 or 0-2)");
		usage(app, cmd);
		return -EINVAL;
	}
	return cores ? set_cores(app, bits, a[1].str) : set_ports(app, bits);
}

static int set_nbport(struct tp_app *app, uint64_t n)
{
	uint16_t ids[TP_MAX_PORTS];
	unsigned np = tp_port_ids(app, ids, TP_MAX_PORTS);
	int rc = fwd_off(app);

	if (rc)
		return rc;
	if (n < 1 || n > np) {
		fprintf(app->err, "set nbport: %" PRIu64 "; there are %u ports (1..%u)\n", n, np, np);
		return -EINVAL;
	}
	app->nb_fwd_ports = (unsigned)n;
	fprintf(app->out, "Number of forwarding ports set to %u\n", app->nb_fwd_ports);
	return 0;
}

static int set_default(struct tp_app *app)
{
	int rc = fwd_off(app);

	if (rc)
		return rc;
	app->portmask = 0;
	app->nb_fwd_ports = 0;
	app->nb_workers = 0;
	fprintf(app->out, "Forwarding on every port, threads on the -l cores in order (nbcore %u)\n", app->nbcore);
	return 0;
}

/* DPDK's levels 1..8 (emerg .. debug) on unic's 1..5. */
static int set_log(struct tp_app *app, const char *type, uint64_t lvl)
{
	static const int map[9] = { 0, UNIC_LOG_ERR, UNIC_LOG_ERR, UNIC_LOG_ERR, UNIC_LOG_ERR,
				    UNIC_LOG_WARNING, UNIC_LOG_NOTICE, UNIC_LOG_INFO, UNIC_LOG_DEBUG };
	const char *name = strncmp(type, "unic.", 5) == 0 ? type + 5 : type;
	int comp = -1;

	if (lvl < 1 || lvl > 8) {
		fprintf(app->err, "set log: level %" PRIu64 "; DPDK's levels are 1 (emergency) .. 8 (debug)\n", lvl);
		return -EINVAL;
	}
	if (strcmp(type, "global") != 0) {
		for (int c = 0; c < UNIC_LOGC_COUNT && comp < 0; c++)
			if (strcmp(name, unic_log_comp_name((enum unic_log_comp)c)) == 0)
				comp = c;
		if (comp < 0) {
			fprintf(app->err, "set log: no log type '%s'; 'global' or one of:", type);
			for (int c = 0; c < UNIC_LOGC_COUNT; c++)
				fprintf(app->err, " unic.%s", unic_log_comp_name((enum unic_log_comp)c));
			fprintf(app->err, "\n");
			return -EINVAL;
		}
	}
	unic_log_set_level(comp, map[lvl]);
	fprintf(app->out, "Log level of %s set to %s\n", comp < 0 ? "every type" : type,
		unic_log_level_name((enum unic_log_level)map[lvl]));
	return 0;
}

void tp_flush_rx(struct tp_app *app)
{
	struct unic_pkt *pkts[64];

	for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
		struct tp_port *p = &app->ports[id];

		if (p->port == NULL || !tp_port_started(app, id))
			continue;
		for (uint16_t q = 0; q < p->conf.nb_rxq; q++) {
			/* Bounded: a port receiving at line rate never empties. */
			for (unsigned round = 0; round < 1024; round++) {
				uint16_t n = unic_rx_burst(p->port, q, pkts, 64);

				if (n == 0)
					break;
				unic_pkt_free_bulk(pkts, n);
			}
		}
	}
}

/* ---- port config ------------------------------------------------------ */

static int port_pktlen(struct tp_app *app, const struct tp_cmd *cmd)
{
	const struct tp_cmd_arg *a = cmd->arg;
	uint16_t ids[TP_MAX_PORTS] = { 0 };
	uint64_t len = a[4].num;
	int n, rc;

	if (a[3].kw == 1)
		return refuse(app, "max-lro-pkt-size", "no unic driver does large receive offload (LRO)");
	n = tp_ports_of(app, &a[2], ids);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct unic_port_info info;
		uint16_t id = ids[i];

		if ((rc = port_stopped(app, id)) || (rc = tp_info_of(app, id, &info)))
			return rc;
		/* DPDK's frame length: the MTU plus the Ethernet header and CRC. */
		if (len < info.min_mtu + 18u || len > info.max_mtu + 18u) {
			fprintf(app->err, "port %u: max-pkt-len %" PRIu64 "; this port takes %u..%u (MTU %u..%u + 18)\n",
				id, len, info.min_mtu + 18u, info.max_mtu + 18u, info.min_mtu, info.max_mtu);
			return -EINVAL;
		}
	}
	for (int i = 0; i < n; i++) {
		app->ports[ids[i]].conf.mtu = (uint16_t)(len - 18);
		app->ports[ids[i]].need_config = true;
		fprintf(app->out, "Port %u: max-pkt-len %" PRIu64 " (MTU %" PRIu64 "); 'port start' applies it\n", ids[i],
			len, len - 18);
	}
	return 0;
}

static int port_burst(struct tp_app *app, uint64_t n)
{
	int rc = fwd_off(app);

	if (rc)
		return rc;
	if (n < 1 || n > TP_BURST_MAX) {
		fprintf(app->err, "port config burst: %" PRIu64 "; expected 1..%d\n", n, TP_BURST_MAX);
		return -EINVAL;
	}
	app->burst = (uint16_t)n;
	fprintf(app->out, "Number of packets per burst set to %u\n", app->burst);
	return 0;
}

static int port_speed(struct tp_app *app, const struct tp_cmd *cmd)
{
	const struct tp_cmd_arg *a = cmd->arg;
	uint16_t ids[TP_MAX_PORTS] = { 0 };
	int n = tp_ports_of(app, &a[2], ids);

	if (n < 0)
		return n;
	if (strcmp(a[4].str, "auto") == 0 && a[6].kw == 2) {
		fprintf(app->out, "Link speed and duplex auto-negotiated (what every unic driver does)\n");
		return 0;
	}
	return refuse_drv(app, ids[0], "forced link speed",
			  "no driver op forces a speed or duplex; 'speed auto duplex auto' is what unic does");
}

/* ---- device ----------------------------------------------------------- */

static int device_detach(struct tp_app *app, const char *dev)
{
	uint16_t ids[TP_MAX_PORTS];
	unsigned n = 0;
	int rc = 0;

	for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
		struct unic_port_info info;
		struct tp_port *p = &app->ports[id];

		if (p->port == NULL || unic_port_info_get(p->port, &info) != 0)
			continue;
		if (strcmp(dev, info.bus_addr) == 0 || strcmp(dev, unic_port_name(p->port)) == 0)
			ids[n++] = id;
	}
	if (n == 0) {
		fprintf(app->err, "device detach: no port is on device '%s'; 'show device info all' lists them\n", dev);
		return -ENODEV;
	}
	fprintf(app->out, "Removing a device...\n");
	tp_fwd_pause(app);
	for (unsigned i = 0; i < n && rc == 0; i++)
		rc = tp_port_detach(app, ids[i]);
	if (tp_fwd_resume(app) && rc == 0)
		rc = -EIO;
	if (rc == 0)
		fprintf(app->out, "Device %s is detached (%u port%s)\nNow total ports is %u\nDone\n", dev, n,
			n == 1 ? "" : "s", tp_port_ids(app, ids, TP_MAX_PORTS));
	return rc;
}

/* ---- dispatch --------------------------------------------------------- */

void tp_mac_note(struct tp_port *p, unsigned op, const uint8_t *mac)
{
	unsigned i;

	if (op == 0)
		return;
	for (i = 0; i < p->nb_macs && memcmp(p->macs[i], mac, 6) != 0; i++)
		;
	if (op == 1 && i == p->nb_macs && p->nb_macs < TP_MAX_MACS)
		memcpy(p->macs[p->nb_macs++], mac, 6);
	else if (op == 2 && i < p->nb_macs)
		memmove(p->macs[i], p->macs[i + 1], (p->nb_macs-- - i - 1) * 6u);
}

int tp_exec_more(struct tp_app *app, const struct tp_cmd *cmd)
{
	const struct tp_cmd_arg *a = cmd->arg;
	int rc;

	switch (cmd->def->id) {
	case TP_CMD_SHOW_QINFO:
		return show_qinfo(app, a[1].kw == 1, a[3].num, a[4].num);
	case TP_CMD_SHOW_QINFO_PORT:
		return show_qinfo(app, a[2].kw == 1, a[4].num, a[5].num);
	case TP_CMD_SHOW_DESC_STATUS:
		return desc_cmd(app, a[2].num, a[3].kw == 1, a[4].num, a[6].num, 0);
	case TP_CMD_SHOW_DESC_USED:
		return desc_cmd(app, a[2].num, false, a[4].num, 0, 1);
	case TP_CMD_READ_DESC:
		return desc_cmd(app, a[2].num, a[1].kw == 1, a[3].num, a[4].num, 2);
	case TP_CMD_PORT_QSTATE:
		return port_qstate(app, cmd);
	case TP_CMD_PORT_QDEFER:
		if ((rc = tp_port_check(app, a[1].num)) || (rc = queue_check(app, (uint16_t)a[1].num, a[2].kw == 1, a[3].num)))
			return rc;
		if (a[5].kw == 1) {
			fprintf(app->out, "Port %" PRIu64 ": %s queue %" PRIu64 " starts with the port (deferred_start off)\n",
				a[1].num, a[2].str, a[3].num);
			return 0;
		}
		return refuse_drv(app, a[1].num, "deferred_start on",
				  "no driver op starts one queue later (queues start with their port)");
	case TP_CMD_PORT_QRING:
		return port_qring(app, cmd);
	case TP_CMD_PORT_QOFFLOAD:
		if ((rc = tp_port_check(app, a[1].num)))
			return rc;
		return refuse(app, "per-queue offload",
			      "unic's offloads are per port: use 'port config N rx_offload NAME on|off' (or tx_offload)");
	case TP_CMD_PORT_CLEANUP:
		return port_cleanup(app, cmd);
	case TP_CMD_SHOW_PORT_MORE:
		return show_more(app, a[2].num, a[3].kw);
	case TP_CMD_SHOW_FEC_CAPA:
		return show_more(app, a[2].num, 4);
	case TP_CMD_SHOW_PROXY:
		if ((rc = tp_port_check(app, a[2].num)))
			return rc;
		return refuse(app, "flow transfer proxy", "unic has no flow rules and no switch domain (each port is its own)");
	case TP_CMD_CLEAR_XSTATS:
		return clear_xstats(app, &a[3]);
	case TP_CMD_LOAD:
		return load(app, a[1].str);
	case TP_CMD_SET_LIST:
		return set_list(app, cmd, false);
	case TP_CMD_SET_MASK:
		return set_list(app, cmd, true);
	case TP_CMD_SET_NBPORT:
		return set_nbport(app, a[2].num);
	case TP_CMD_SET_TXSPLIT:
		if (a[2].kw == 0) {
			fprintf(app->out, "Tx split off: packets are sent in the segments 'set txpkts' gives\n");
			return 0;
		}
		return refuse(app, "set txsplit on|rand",
			      "generated packets are not split on send; 'set txpkts 64,128' makes multi-segment packets");
	case TP_CMD_SET_SPLIT:
		if (a[1].kw == 3)
			return refuse(app, "set txtimes", "no unic driver sends at a given time (no Tx timestamp scheduling)");
		return refuse(app, a[1].kw == 0 ? "set rxpkts" : a[1].kw == 1 ? "set rxoffs" : "set rxhdrs",
			      "no unic driver splits a received frame over buffers (no buffer split offload); frames longer than a buffer are chained with rx_offload scatter");
	case TP_CMD_SET_DEFAULT:
		return set_default(app);
	case TP_CMD_SET_LOG:
		return set_log(app, a[2].str, a[3].num);
	case TP_CMD_SET_SWITCH:
		if (a[1].kw == 0) {
			app->xstats_hide_zero = a[2].kw == 0;
			fprintf(app->out, "'show port xstats' %s zero counters\n", app->xstats_hide_zero ? "hides" : "shows");
		} else {
			app->flush_rx = a[2].kw == 0;
			fprintf(app->out, "'start' %s the rx queues first\n", app->flush_rx ? "drains" : "does not drain");
		}
		return 0;
	case TP_CMD_SET_PTYPES:
		return show_more(app, a[2].num, 2);
	case TP_CMD_SET_FEC:
		return show_more(app, a[2].num, 4);
	case TP_CMD_SET_QRATE:
		if ((rc = tp_port_check(app, a[2].num)) || (rc = queue_check(app, (uint16_t)a[2].num, true, a[4].num)))
			return rc;
		return refuse_drv(app, a[2].num, "queue rate limit", "no driver op limits a tx queue's rate");
	case TP_CMD_SET_TX_LOOPBACK:
		return refuse_drv(app, a[3].num, "tx loopback", "no driver op loops sent packets back inside the NIC");
	case TP_CMD_SET_ALL_DROP:
	case TP_CMD_PORT_DROP_EN: {
		uint16_t ids[TP_MAX_PORTS] = { 0 };
		const struct tp_cmd_arg *pa = cmd->def->id == TP_CMD_SET_ALL_DROP ? &a[4] : &a[2];
		bool on = (cmd->def->id == TP_CMD_SET_ALL_DROP ? a[5].kw : a[4].kw) == 0;
		int n = tp_ports_of(app, pa, ids);

		if (n < 0)
			return n;
		if (on) {
			fprintf(app->out, "Drop when an rx queue is full: on (unic's queues always drop, counted in imissed)\n");
			return 0;
		}
		return refuse_drv(app, ids[0], "drop off",
				  "unic's rx queues always drop what does not fit (imissed counts it); no driver holds frames back");
	}
	case TP_CMD_SET_UTA:
		return refuse_drv(app, a[2].num, "unicast hash table", "no driver op; 'mac_addr add N MAC' adds an exact address");
	case TP_CMD_SET_STAT_QMAP:
		if ((rc = tp_port_check(app, a[3].num)) || (rc = queue_check(app, (uint16_t)a[3].num, a[2].kw == 0, a[4].num)))
			return rc;
		if (a[4].num == a[5].num) {
			fprintf(app->out, "Port %" PRIu64 ": %s queue %" PRIu64 " counts in counter %" PRIu64 " (unic's fixed mapping)\n",
				a[3].num, a[2].str, a[4].num, a[5].num);
			return 0;
		}
		return refuse(app, "set stat_qmap",
			      "unic counts each of the first 16 queues in its own counter ('show port stats'): only queue N to counter N");
	case TP_CMD_SET_AVAIL:
		if ((rc = tp_port_check(app, a[2].num)) || (rc = queue_check(app, (uint16_t)a[2].num, false, a[4].num)))
			return rc;
		return refuse_drv(app, a[2].num, "rx queue available threshold", "no driver op raises an event on rx queue fill");
	case TP_CMD_SET_PORT_SETUP:
		if (a[4].kw == 0) {
			fprintf(app->out, "Ports attached are set up at 'port start' (iterator)\n");
			return 0;
		}
		return refuse(app, "set port setup on event",
			      "unic sets up an attached port at 'port start N', not on a probe event");
	case TP_CMD_VLAN_STRIPQ:
		return refuse(app, "vlan set stripq", "VLAN stripping is per port in unic: 'vlan set strip on N'");
	case TP_CMD_VLAN_QINQ:
		if ((rc = tp_port_check(app, a[4].num)))
			return rc;
		if (a[3].kw == 1) {
			fprintf(app->out, "Port %" PRIu64 ": %s off (unic has no double VLAN offloads)\n", a[4].num, a[2].str);
			return 0;
		}
		return refuse_drv(app, a[4].num, a[2].kw == 0 ? "qinq_strip" : "extend", "no double VLAN (QinQ) offload");
	case TP_CMD_VLAN_TPID:
		return refuse_drv(app, a[5].num, "vlan tpid", "the drivers tag and strip with EtherType 0x8100 only");
	case TP_CMD_RX_VLAN_ALL: {
		uint16_t id = (uint16_t)a[3].num;
		bool add = a[1].kw == 0;

		if ((rc = tp_port_check(app, a[3].num)))
			return rc;
		for (uint16_t v = 0; v < 4096; v++) {
			rc = unic_port_vlan_filter_set(app->ports[id].port, v, add);
			if (rc)
				return tp_op_err(app, id, add ? "rx_vlan add all" : "rx_vlan rm all", rc);
		}
		fprintf(app->out, "Port %u: every VLAN id %s the filter\n", id, add ? "added to" : "removed from");
		return 0;
	}
	case TP_CMD_TX_VLAN_PVID:
		return refuse_drv(app, a[3].num, "tx_vlan set pvid",
				  "no port VLAN id insertion op; 'tx_vlan set N VID' tags every packet sent");
	case TP_CMD_PORT_PKTLEN:
		return port_pktlen(app, cmd);
	case TP_CMD_PORT_BURST:
		if (a[2].num != TP_CMD_PORT_ALL && (rc = tp_port_check(app, a[2].num)))
			return rc;
		return port_burst(app, a[4].num);
	case TP_CMD_PORT_THRESH: {
		uint16_t ids[TP_MAX_PORTS] = { 0 };
		int n = tp_ports_of(app, &a[2], ids);

		if (n < 0)
			return n;
		return refuse_drv(app, ids[0], a[3].str, "each driver sets its own descriptor thresholds (no op sets them)");
	}
	case TP_CMD_PORT_SPEED:
		return port_speed(app, cmd);
	case TP_CMD_PORT_PCTYPE:
		return refuse_drv(app, a[2].num, "pctype", "flow type mapping and hash input sets are i40e's; no unic driver has them");
	case TP_CMD_PORT_TX_METADATA:
	case TP_CMD_PORT_DYNF:
		if ((rc = tp_port_check(app, a[2].num)))
			return rc;
		return refuse(app, a[3].str, "unic packets have no metadata field and no dynamic flags");
	case TP_CMD_DEVICE_DETACH:
		return device_detach(app, a[2].str);
	default:
		break;
	}
	fprintf(app->err, "internal: command %d has no action\n", cmd->def->id);
	return -ENOSYS;
}
