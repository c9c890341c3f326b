/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "show" commands: port details, NIC and extended statistics (DPDK
 * testpmd's line forms), link, register and EEPROM dumps, napi figures,
 * capabilities, and the forwarding configuration.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/log.h>

#include "testpmd.h"

#define REGS_MAX 4096
#define EEPROM_LEN 128

/* ---- show ------------------------------------------------------------------------- */

static int show_info(struct tp_app *app, uint16_t id)
{
	struct tp_port *p = &app->ports[id];
	struct unic_port_info info;
	struct unic_port_conf c;
	struct unic_coalesce co;
	struct unic_link l;
	uint8_t mac[6];
	char b[256];
	bool have_conf;
	int rc;

	fprintf(app->out, "\n********************* Infos for port %-2u *********************\n", id);
	if (unic_port_mac_get(p->port, mac) == 0) {
		tp_fmt_mac(b, sizeof(b), mac);
		fprintf(app->out, "MAC address: %s\n", b);
	}
	fprintf(app->out, "Device name: %s\n", unic_port_name(p->port));
	fprintf(app->out, "Driver name: %s\n", p->driver);
	fprintf(app->out, "State: %s\n", unic_port_state_name(unic_port_state(p->port)));
	rc = tp_info_of(app, id, &info);
	if (rc)
		return rc;
	fprintf(app->out, "Bus address: %s\n", info.bus_addr);
	if (info.fw_version[0])
		fprintf(app->out, "Firmware version: %s\n", info.fw_version);
	fprintf(app->out, "Connect to socket: %d\n", tp_port_socket(app, info.numa_node));
	if (unic_port_link_get(p->port, &l) == 0) {
		fprintf(app->out, "Link status: %s\n", l.up ? "up" : "down");
		fprintf(app->out, "Link speed: %s\n", tp_fmt_speed(b, sizeof(b), l.speed_mbps));
		fprintf(app->out, "Link duplex: %s\n", l.full_duplex ? "full-duplex" : "half-duplex");
		fprintf(app->out, "Autoneg status: %s\n", l.autoneg ? "On" : "Off");
	}
	have_conf = unic_port_conf_get(p->port, &c) == 0;
	fprintf(app->out, "MTU: %u\n", have_conf && c.mtu ? c.mtu : 1500);
	rc = unic_port_promisc_get(p->port);
	fprintf(app->out, "Promiscuous mode: %s\n", rc < 0 ? "unknown" : rc ? "enabled" : "disabled");
	rc = unic_port_allmulti_get(p->port);
	fprintf(app->out, "Allmulticast mode: %s\n", rc < 0 ? "unknown" : rc ? "enabled" : "disabled");
	fprintf(app->out, "Max possible RX queues: %u\n", info.max_rxq);
	fprintf(app->out, "Max possible number of RXDs per queue: %u\n", info.rx_desc_max);
	fprintf(app->out, "Min possible number of RXDs per queue: %u\n", info.rx_desc_min);
	fprintf(app->out, "RXDs number alignment: %u\n", info.rx_desc_align);
	fprintf(app->out, "Current number of RX queues: %u\n", have_conf ? c.nb_rxq : 0);
	fprintf(app->out, "Max possible TX queues: %u\n", info.max_txq);
	fprintf(app->out, "Max possible number of TXDs per queue: %u\n", info.tx_desc_max);
	fprintf(app->out, "Min possible number of TXDs per queue: %u\n", info.tx_desc_min);
	fprintf(app->out, "TXDs number alignment: %u\n", info.tx_desc_align);
	fprintf(app->out, "Current number of TX queues: %u\n", have_conf ? c.nb_txq : 0);
	fprintf(app->out, "Min/max MTU: %u/%u\n", info.min_mtu, info.max_mtu);
	fprintf(app->out, "Rx interrupts: %s\n", info.has_intr ? "yes" : "no");
	fprintf(app->out, "Receive mode: %s\n", have_conf ? unic_rx_mode_name(c.rx_mode) : "(not configured)");
	if (unic_port_coalesce_get(p->port, &co) == 0)
		fprintf(app->out, "Interrupt coalescing: rx-usecs %u tx-usecs %u\n", co.rx_usecs, co.tx_usecs);
	fprintf(app->out, "Message level: %s\n",
		unic_log_level_name((enum unic_log_level)unic_port_msglevel_get(p->port)));
	fprintf(app->out, "Wanted at the next start: rxq %u txq %u rxd %u txd %u mtu %u rx-mode %s%s\n",
		p->conf.nb_rxq, p->conf.nb_txq, p->rxd ? p->rxd : info.rx_desc_default,
		p->txd ? p->txd : info.tx_desc_default, p->conf.mtu ? p->conf.mtu : 1500,
		unic_rx_mode_name(p->conf.rx_mode), p->need_config ? " (pending)" : " (in effect)");
	return 0;
}

static int show_stats(struct tp_app *app, uint16_t id)
{
	struct tp_port *p = &app->ports[id];
	struct unic_port_stats st;
	uint64_t now = unic_time_ns(), rpps = 0, tpps = 0, rbps = 0, tbps = 0;
	int rc = unic_port_stats_get(p->port, &st);

	if (rc)
		return tp_op_err(app, id, "stats", rc);
	if (p->last_ns && now > p->last_ns) {
		double dt = (double)(now - p->last_ns) / 1e9;

		if (st.ipackets >= p->last_ipk)
			rpps = (uint64_t)((double)(st.ipackets - p->last_ipk) / dt);
		if (st.opackets >= p->last_opk)
			tpps = (uint64_t)((double)(st.opackets - p->last_opk) / dt);
		if (st.ibytes >= p->last_ib)
			rbps = (uint64_t)((double)(st.ibytes - p->last_ib) * 8 / dt);
		if (st.obytes >= p->last_ob)
			tbps = (uint64_t)((double)(st.obytes - p->last_ob) * 8 / dt);
	}
	p->last_ns = now;
	p->last_ipk = st.ipackets;
	p->last_opk = st.opackets;
	p->last_ib = st.ibytes;
	p->last_ob = st.obytes;
	fprintf(app->out, "\n  ######################## NIC statistics for port %-2u ########################\n", id);
	fprintf(app->out, "  RX-packets: %-10" PRIu64 " RX-missed: %-10" PRIu64 " RX-bytes:  %" PRIu64 "\n",
		st.ipackets, st.imissed, st.ibytes);
	fprintf(app->out, "  RX-errors: %" PRIu64 "\n", st.ierrors);
	fprintf(app->out, "  RX-nombuf:  %-10" PRIu64 "\n", st.rx_nombuf);
	fprintf(app->out, "  TX-packets: %-10" PRIu64 " TX-errors: %-10" PRIu64 " TX-bytes:  %" PRIu64 "\n",
		st.opackets, st.oerrors, st.obytes);
	fprintf(app->out, "\n  Throughput (since last show)\n");
	fprintf(app->out, "  Rx-pps: %12" PRIu64 "          Rx-bps: %12" PRIu64 "\n", rpps, rbps);
	fprintf(app->out, "  Tx-pps: %12" PRIu64 "          Tx-bps: %12" PRIu64 "\n", tpps, tbps);
	fprintf(app->out, "  ############################################################################\n");
	return 0;
}

static int show_xstats(struct tp_app *app, uint16_t id)
{
	struct unic_port *port = app->ports[id].port;
	struct unic_xstat_name *names = NULL;
	uint64_t *vals = NULL;
	int n, m, rc = 0;

	n = unic_port_xstats_names(port, NULL, 0);
	if (n < 0)
		return tp_op_err(app, id, "xstats", n);
	names = calloc((size_t)n + 1, sizeof(*names));
	vals = calloc((size_t)n + 1, sizeof(*vals));
	if (names == NULL || vals == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	n = unic_port_xstats_names(port, names, (unsigned)n);
	m = unic_port_xstats_get(port, vals, (unsigned)(n > 0 ? n : 0));
	if (n < 0 || m < 0) {
		rc = tp_op_err(app, id, "xstats", n < 0 ? n : m);
		goto out;
	}
	fprintf(app->out, "###### NIC extended statistics for port %-2u\n", id);
	for (int i = 0; i < n && i < m; i++)
		if (vals[i] || !app->xstats_hide_zero) /* "set xstats-hide-zero on" */
			fprintf(app->out, "%s: %" PRIu64 "\n", names[i].name, vals[i]);
out:
	free(names);
	free(vals);
	return rc;
}

static int show_link(struct tp_app *app, uint16_t id)
{
	struct unic_link l;
	char b[32];
	int rc = unic_port_link_get(app->ports[id].port, &l);

	if (rc)
		return tp_op_err(app, id, "link", rc);
	fprintf(app->out, "Port %u Link %s - speed %s - %s-duplex%s\n", id, l.up ? "up" : "down",
		tp_fmt_speed(b, sizeof(b), l.speed_mbps), l.full_duplex ? "full" : "half", l.autoneg ? " - autoneg" : "");
	return 0;
}

static int show_regs(struct tp_app *app, uint16_t id)
{
	uint32_t *off = calloc(REGS_MAX, sizeof(uint32_t)), *val = calloc(REGS_MAX, sizeof(uint32_t));
	struct unic_regs r = { .offset = off, .value = val, .count_max = REGS_MAX };
	int rc = -ENOMEM;

	if (off && val) {
		rc = unic_port_regs_get(app->ports[id].port, &r);
		if (rc)
			tp_op_err(app, id, "register dump", rc);
	}
	if (rc == 0) {
		fprintf(app->out, "Port %u registers (layout version %u, %u registers):\n", id, r.version,
			r.count);
		for (uint32_t i = 0; i < r.count && i < REGS_MAX; i++)
			fprintf(app->out, "  0x%05x: 0x%08x\n", off[i], val[i]);
	}
	free(off);
	free(val);
	return rc;
}

static int show_eeprom(struct tp_app *app, uint16_t id)
{
	uint8_t buf[EEPROM_LEN];
	int rc = unic_port_eeprom_get(app->ports[id].port, 0, sizeof(buf), buf);

	if (rc)
		return tp_op_err(app, id, "EEPROM dump", rc);
	fprintf(app->out, "Port %u EEPROM, %u bytes from 0:\n", id, EEPROM_LEN);
	for (unsigned i = 0; i < sizeof(buf); i += 16) {
		fprintf(app->out, "  %04x:", i);
		for (unsigned k = 0; k < 16; k++)
			fprintf(app->out, " %02x", buf[i + k]);
		fprintf(app->out, "\n");
	}
	return 0;
}

static int show_napi(struct tp_app *app, uint16_t id)
{
	struct tp_port *p = &app->ports[id];
	unsigned shown = 0;

	/* The values the engine uses: a knob left at 0 takes the engine's
	 * default, the weight the burst size (fwd.c); the adaptive policy's
	 * knobs are off at 0, and a target alone takes the default budget. */
	bool adaptive = p->knobs.latency_target_us || p->knobs.cpu_budget;
	char target[24], budget[32];

	if (p->knobs.latency_target_us)
		snprintf(target, sizeof(target), "%u", p->knobs.latency_target_us);
	else
		snprintf(target, sizeof(target), "off");
	if (p->knobs.cpu_budget)
		snprintf(budget, sizeof(budget), "%u", p->knobs.cpu_budget);
	else if (adaptive)
		snprintf(budget, sizeof(budget), "%u (default)", UNIC_NAPI_CPU_BUDGET_DEFAULT);
	else
		snprintf(budget, sizeof(budget), "off");
	/* Who sets rx-usecs: the adaptive policy, or whoever set it
	 * ("moderation=fixed", or a hand coalesce that switched it). While
	 * forwarding polls the port, the switch as the library has it
	 * (unic_napi_moderation_get() of a context that holds its queues);
	 * else what the next start sets. */
	int fixed = -ENOENT;

	for (unsigned t = 0; app->fwd_on && t < app->nb_threads && fixed < 0; t++)
		if (app->threads[t].ctx)
			fixed = unic_napi_moderation_get(app->threads[t].ctx, p->port);
	const char *when = fixed < 0 ? " at the next start" : "";

	if (fixed < 0)
		fixed = p->knobs.moderation_fixed;
	char moder[96];

	snprintf(moder, sizeof(moder), "%s%s",
		 !tp_knobs_adaptive(p->conf.rx_mode, &p->knobs) ? "fixed (no adaptive policy)" :
		 fixed ? "fixed (rx-usecs as set; 'moderation=adaptive' gives it back)" :
		 "adaptive (the policy sets rx-usecs)", when);

	fprintf(app->out, "Port %u napi: budget %u%s weight %u%s empty-polls %u%s idle-us %u%s max-sleep-ms %u%s latency-target %s cpu-budget %s moderation %s\n",
		id, p->knobs.budget ? p->knobs.budget : UNIC_NAPI_BUDGET_DEFAULT, p->knobs.budget ? "" : " (default)",
		p->knobs.weight ? p->knobs.weight : app->burst, p->knobs.weight ? "" : " (the burst)",
		p->knobs.empty_polls ? p->knobs.empty_polls : UNIC_NAPI_EMPTY_POLLS_DEFAULT,
		p->knobs.empty_polls ? "" : " (default)",
		p->knobs.idle_us ? p->knobs.idle_us : UNIC_NAPI_IDLE_US_DEFAULT,
		p->knobs.idle_us ? "" : adaptive ? " (default; unused: the adaptive policy decides)" : " (default)",
		p->knobs.max_sleep_ms ? p->knobs.max_sleep_ms : UNIC_NAPI_MAX_SLEEP_MS_DEFAULT,
		p->knobs.max_sleep_ms ? "" : " (default)", target, budget, moder);
	for (unsigned t = 0; t < app->nb_threads; t++) {
		struct tp_thread *th = &app->threads[t];

		for (unsigned i = 0; i < th->nb_streams; i++) {
			struct tp_stream *s = th->streams[i];
			struct unic_napi_queue_stats qs;

			if (s->rx_port != id || unic_napi_queue_stats_get(th->ctx, s->rxp, s->rx_q, &qs) != 0)
				continue;
			fprintf(app->out, "  rx queue %u: thread %u (%s): polls %" PRIu64 " empty %" PRIu64
				" packets %" PRIu64 " arms %" PRIu64 " arm-failures %" PRIu64
				" interrupts %" PRIu64 " rechecks-caught %" PRIu64 "\n",
				s->rx_q, t, unic_rx_mode_name(unic_napi_ctx_mode(th->ctx)), qs.polls,
				qs.empty_polls, qs.packets, qs.arms, qs.arm_failures, qs.interrupts,
				qs.rechecks_caught);
			shown++;
		}
	}
	for (unsigned t = 0; t < app->nb_threads && shown; t++) {
		struct unic_napi_ctx_stats cs;
		bool mine = false;

		for (unsigned i = 0; i < app->threads[t].nb_streams; i++)
			mine |= app->threads[t].streams[i]->rx_port == id;
		if (!mine || unic_napi_ctx_stats_get(app->threads[t].ctx, &cs) != 0)
			continue;
		fprintf(app->out, "  thread %u: rounds %" PRIu64 " sleeps %" PRIu64 " wakeups %" PRIu64
			" asleep %.3f s cpu %.3f s\n", t, cs.rounds, cs.sleeps, cs.wakeups,
			(double)cs.asleep_ns / 1e9, (double)cs.cpu_ns / 1e9);
	}
	if (shown == 0)
		fprintf(app->out, "  no rx queue of port %u is being polled (figures exist while forwarding runs with this port)\n",
			id);
	return 0;
}

/* One line a port (DPDK's "show port summary"); the header before the first. */
static int show_summary(struct tp_app *app, uint16_t id, int nb)
{
	struct unic_port_info info;
	struct unic_link l;
	uint8_t mac[6] = { 0 };
	char m[32], sp[32];
	int rc = tp_info_of(app, id, &info);

	if (rc)
		return rc;
	if (nb >= 0) {
		fprintf(app->out, "Number of available ports: %i\n", nb);
		fprintf(app->out, "%-4s %-17s %-12s %-14s %-8s %s\n", "Port", "MAC Address", "Name", "Driver",
			"Status", "Link");
	}
	unic_port_mac_get(app->ports[id].port, mac);
	tp_fmt_mac(m, sizeof(m), mac);
	if (unic_port_link_get(app->ports[id].port, &l) != 0)
		memset(&l, 0, sizeof(l));
	fprintf(app->out, "%-4u %-17s %-12s %-14s %-8s %s\n", id, m, unic_port_name(app->ports[id].port),
		app->ports[id].driver, l.up ? "up" : "down", tp_fmt_speed(sp, sizeof(sp), l.speed_mbps));
	return 0;
}

static int show_capa(struct tp_app *app, uint16_t id)
{
	struct unic_port_info info;
	struct unic_port_conf c;
	char b[512];
	int rc = tp_info_of(app, id, &info);

	if (rc)
		return rc;
	fprintf(app->out, "Port %u (%s):\n", id, app->ports[id].driver);
	fprintf(app->out, "  Rx offloads capabilities: %s\n", tp_offl(info.rx_offload_capa, b, sizeof(b)));
	fprintf(app->out, "  Tx offloads capabilities: %s\n", tp_offl(info.tx_offload_capa, b, sizeof(b)));
	if (unic_port_conf_get(app->ports[id].port, &c) == 0) {
		fprintf(app->out, "  Rx offloads configured: %s\n", tp_offl(c.rx_offloads, b, sizeof(b)));
		fprintf(app->out, "  Tx offloads configured: %s\n", tp_offl(c.tx_offloads, b, sizeof(b)));
	}
	fprintf(app->out, "  Rx interrupts: %s\n", info.has_intr ? "yes" : "no");
	fprintf(app->out, "  Max link speed: %s\n", tp_fmt_speed(b, sizeof(b), info.speed_capa_mbps));
	return 0;
}

/* "show port N link_capa": unic's drivers report their fastest speed only. */
static int show_link_capa(struct tp_app *app, uint16_t id)
{
	struct unic_port_info info;
	char b[32];
	int rc = tp_info_of(app, id, &info);

	if (rc)
		return rc;
	fprintf(app->out, "Port %u (%s) link capability:\n", id, app->ports[id].driver);
	if (info.speed_capa_mbps == 0)
		fprintf(app->out, "  Speeds: unknown (the driver reports none)\n");
	else
		fprintf(app->out, "  Speeds: up to %s (the driver reports its fastest only)\n",
			tp_fmt_speed(b, sizeof(b), info.speed_capa_mbps));
	fprintf(app->out, "  Forced speed: not offered (every unic driver negotiates; 'port config all speed auto duplex auto')\n");
	return 0;
}

int tp_show_fwd(struct tp_app *app)
{
	FILE *f = app->out;

	fprintf(f, "%s packet forwarding%s - burst=%u - nbcore=%u - txpkts=", tp_engine_name(app->engine),
		app->retry ? " with retry" : "", app->burst, app->nbcore);
	for (unsigned i = 0; i < app->nb_txpkts; i++)
		fprintf(f, "%s%u", i ? "," : "", app->txpkts[i]);
	fprintf(f, " - port-topology=%s", app->topology == TP_TOPO_LOOP ? "loop" :
		app->topology == TP_TOPO_CHAINED ? "chained" : "paired");
	if (app->portmask)
		fprintf(f, " - portmask=0x%" PRIx64, app->portmask);
	if (app->nb_fwd_ports)
		fprintf(f, " - nb-ports=%u", app->nb_fwd_ports);
	fprintf(f, "\n");
	if (app->retry)
		fprintf(f, "TX retry num: %u, delay between TX retries: %uus\n", app->tx_retry_num, app->tx_delay_us);
	if (app->engine == TP_FWD_NOISY)
		fprintf(f, "noisy: tx FIFO %u packets per stream, flushed after %u ms; lookups per packet in %u MB: "
			"%u writes, %u reads, %u reads-writes\n", app->noisy.bufsz, app->noisy.flush_ms,
			app->noisy.lkup_mb, app->noisy.writes, app->noisy.reads, app->noisy.rw);
	if (!app->fwd_on) {
		fprintf(f, "forwarding is stopped; 'start' makes streams from the started ports:");
		for (uint16_t id = 0; id < TP_MAX_PORTS; id++)
			if (tp_port_started(app, id))
				fprintf(f, " %u", id);
		fprintf(f, "\n");
		return 0;
	}
	fprintf(f, "streams=%u threads=%u\n", app->nb_streams, app->nb_threads);
	tp_show_streams(app);
	return 0;
}

/* The NUMA node of CPU @p cpu (sysfs), 0 when unknown. */
static int cpu_node(int cpu)
{
	for (int n = 0; n < 64; n++) {
		char path[96];

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/node%d", cpu, n);
		if (access(path, F_OK) == 0)
			return n;
	}
	return 0;
}

static int port_socket(struct tp_app *app, uint16_t id)
{
	struct unic_port_info info;

	if (app->ports[id].port == NULL || unic_port_info_get(app->ports[id].port, &info) != 0)
		return 0;
	return tp_port_socket(app, info.numa_node);
}

void tp_show_streams(struct tp_app *app)
{
	FILE *f = app->out;

	for (unsigned t = 0; t < app->nb_threads; t++) {
		struct tp_thread *th = &app->threads[t];

		if (th->core >= 0)
			fprintf(f, "Logical Core %d (socket %d) forwards packets on %u streams:\n", th->core,
				cpu_node(th->core), th->nb_streams);
		else /* more threads than -l's worker cores */
			fprintf(f, "Thread %u (not pinned, %s) forwards packets on %u streams:\n", t,
				unic_rx_mode_name(th->mode), th->nb_streams);
		for (unsigned i = 0; i < th->nb_streams; i++) {
			struct tp_stream *s = th->streams[i];
			char mac[32];

			tp_fmt_mac(mac, sizeof(mac), s->eth);
			fprintf(f, "  RX P=%u/Q=%u (socket %d) -> TX P=%u/Q=%u (socket %d) peer=%s\n", s->rx_port,
				s->rx_q, port_socket(app, s->rx_port), s->tx_port, s->tx_q,
				port_socket(app, s->tx_port), mac);
		}
	}
}

int tp_show_port(struct tp_app *app, const struct tp_cmd *cmd, unsigned what, const struct tp_cmd_arg *pa)
{
	uint16_t ids[TP_MAX_PORTS] = { 0 };
	int n = tp_ports_of(app, pa, ids), rc = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int r;

		switch (what) {
		case 0: r = show_info(app, ids[i]); break;
		case 1: r = show_stats(app, ids[i]); break;
		case 2: r = show_xstats(app, ids[i]); break;
		case 3: r = show_link(app, ids[i]); break;
		case 4: r = show_regs(app, ids[i]); break;
		case 5: r = show_eeprom(app, ids[i]); break;
		case 6: r = show_napi(app, ids[i]); break;
		case 7: r = show_summary(app, ids[i], i == 0 ? n : -1); break;
		case 9: r = show_link_capa(app, ids[i]); break;
		default: r = show_capa(app, ids[i]); break;
		}
		if (r && rc == 0)
			rc = r;
	}
	(void)cmd;
	return rc;
}


/* One direction of "show config rxtx" for port @p id: the queues as set up,
 * else as the next start sets them up. */
static void show_config_queues(struct tp_app *app, uint16_t id, bool tx)
{
	struct tp_port *p = &app->ports[id];
	uint16_t nq = tx ? p->conf.nb_txq : p->conf.nb_rxq;

	for (uint16_t q = 0; q < nq; q++) {
		struct unic_queue_info qi;
		unsigned want = q < TP_MAX_QUEUES ? (tx ? p->q_txd[q] : p->q_rxd[q]) : 0;

		if (want == 0)
			want = tx ? p->txd : p->rxd;
		fprintf(app->out, "    %s queue: %u\n", tx ? "TX" : "RX", q);
		if (unic_port_queue_info_get(p->port, tx, q, &qi) == 0 && qi.setup) {
			fprintf(app->out, "      %s desc=%u", tx ? "TX" : "RX", qi.nb_desc);
			if (want && want != qi.nb_desc)
				fprintf(app->out, " (%u at the next start)", want);
			fprintf(app->out, "\n");
		} else if (want)
			fprintf(app->out, "      %s desc=%u (at the next start)\n", tx ? "TX" : "RX", want);
		else
			fprintf(app->out, "      %s desc=the driver's default (at the next start)\n", tx ? "TX" : "RX");
	}
}

int tp_show_config(struct tp_app *app, unsigned what)
{
	FILE *f = app->out;
	const struct unic_env_options *eo = unic_env_opts(app->env);
	unsigned nw = unic_env_worker_count(app->env), nports = 0;

	switch (what) {
	case 1: /* rxtx */
		for (uint16_t id = 0; id < TP_MAX_PORTS; id++)
			nports += app->ports[id].port != NULL;
		fprintf(f, "  %s packet forwarding packets/burst=%u\n", tp_engine_name(app->engine), app->burst);
		fprintf(f, "  nb forwarding cores=%u - nb forwarding ports=%u\n", app->nbcore,
			app->nb_fwd_ports ? app->nb_fwd_ports : nports);
		for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
			struct tp_port *p = &app->ports[id];

			if (p->port == NULL)
				continue;
			fprintf(f, "  port %u: RX queue number: %u Tx queue number: %u\n", id, p->conf.nb_rxq,
				p->conf.nb_txq);
			show_config_queues(app, id, false);
			show_config_queues(app, id, true);
		}
		return 0;
	case 2: /* cores */
		fprintf(f, "List of forwarding cores:");
		for (unsigned t = 0; t < app->nbcore && t < TP_MAX_THREADS; t++) {
			unsigned w = t < app->nb_workers ? app->workers[t] : t;

			if (w < nw)
				fprintf(f, " %d", eo->cores[w + 1]);
			else
				fprintf(f, " (thread %u: not pinned)", t);
		}
		fprintf(f, "\n");
		return 0;
	case 3: /* txpkts */
		fprintf(f, "Number of segments: %u\nSegment sizes:", app->nb_txpkts);
		for (unsigned i = 0; i < app->nb_txpkts; i++)
			fprintf(f, " %u", app->txpkts[i]);
		fprintf(f, "\nSplit packet: off\n");
		return 0;
	case 7: /* txtimes */
		fprintf(f, "Tx times: none (unic does not schedule sends in time: 'set txtimes' is refused)\n");
		return 0;
	default: /* rxpkts, rxoffs, rxhdrs */
		fprintf(f, "Rx buffer split: none (no unic port splits received packets over buffers: 'set rxpkts' is refused)\n");
		return 0;
	}
}
