/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Statistics: snapshots of every counter, and the figures between two of
 * them. Rates are Δcount / Δmeasured time (CLOCK_MONOTONIC between the two
 * snapshots), never Δcount / the period asked for: a timer that fires late
 * would otherwise show a rate that traffic never had. CPU use is
 * Δthread CPU time / Δmeasured time. Counters are never reset.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <unic/cycles.h>
#include <unic/pool.h>
#include <unic/telemetry.h>

#include "l2fwd.h"

/* --stamp-age: percentiles p50, p90, p99 (ns; the buckets' upper edges)
 * of an age histogram; @return the frames in it. */
static uint64_t age_pct(const struct unic_counter *h, uint64_t pct[3])
{
	static const double at[3] = { 0.50, 0.90, 0.99 };
	uint64_t n = 0, seen = 0;
	unsigned k = 0;

	for (unsigned i = 0; i < L2FWD_AGE_BUCKETS; i++)
		n += unic_counter_read(&h[i]);
	for (unsigned i = 0; i < 3; i++)
		pct[i] = 0;
	for (unsigned i = 0; i < L2FWD_AGE_BUCKETS && n && k < 3; i++) {
		seen += unic_counter_read(&h[i]);
		while (k < 3 && (double)seen >= at[k] * (double)n)
			pct[k++] = l2fwd_age_bucket_top(i);
	}
	return n;
}

/* --stamp-age: port @p p's frames' ages so far, at the handler (@p pct) and
 * after their transmit call (@p sent), and how long the forwarding of
 * their bursts took (@p call); @return the stamped frames. */
static uint64_t stamp_age(const struct l2fwd_app *app, unsigned p, uint64_t *unstamped, uint64_t pct[3],
			  uint64_t sent[3], uint64_t call[3])
{
	age_pct(app->cnt[p].age_ns, pct);
	age_pct(app->cnt[p].sent_age_ns, sent);
	age_pct(app->cnt[p].tx_call_ns, call);
	*unstamped = unic_counter_read(&app->cnt[p].unstamped);
	return unic_counter_read(&app->cnt[p].stamped);
}

static uint64_t worker_cpu_ns(struct l2fwd_worker *w)
{
	struct timespec ts;
	uint64_t fin = __atomic_load_n(&w->cpu_ns_final, __ATOMIC_ACQUIRE);

	if (fin)
		return fin;
	if (__atomic_load_n(&w->cpu_clock_ok, __ATOMIC_ACQUIRE) &&
	    clock_gettime(w->cpu_clock, &ts) == 0)
		return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	return 0;
}

void l2fwd_snap(struct l2fwd_app *app, struct l2fwd_snap *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned p = 0; p < app->nb_ports; p++) {
		if (app->dst[p] < 0)
			continue;
		s->rx[p] = unic_counter_read(&app->cnt[p].rx);
		s->tx[p] = unic_counter_read(&app->cnt[p].tx);
		s->dropped[p] = unic_counter_read(&app->cnt[p].dropped);
		s->port_ok[p] = unic_port_stats_get(app->ports[p], &s->port[p]) == 0;
		s->hw_ok[p] = s->port_ok[p] &&
			      unic_port_xstat_by_name(app->ports[p], "hw_rx_good_packets", &s->hw_rx[p]) == 0 &&
			      unic_port_xstat_by_name(app->ports[p], "hw_tx_good_packets", &s->hw_tx[p]) == 0;
	}
	for (unsigned w = 0; w < app->nb_workers; w++) {
		unic_napi_ctx_stats_get(app->workers[w].ctx, &s->napi[w]);
		s->cpu_ns[w] = worker_cpu_ns(&app->workers[w]);
	}
	s->pool_in_use = s->pool_size = 0;
	for (unsigned p = 0; p < app->nb_ports; p++) {
		if (app->pools[p] == NULL)
			continue;
		s->pool_in_use += unic_pool_in_use_count(app->pools[p]);
		s->pool_size += app->pools[p]->count;
	}
	s->t_ns = unic_time_ns();
}

static double rate(uint64_t a, uint64_t b, double dt)
{
	return dt > 0 ? (double)(b - a) / dt : 0;
}

/* "12.345 Mpps"-style, three significant decimals. */
static const char *fmt_pps(double pps, char *buf, size_t len)
{
	if (pps >= 1e6)
		snprintf(buf, len, "%.3f Mpps", pps / 1e6);
	else if (pps >= 1e3)
		snprintf(buf, len, "%.3f kpps", pps / 1e3);
	else
		snprintf(buf, len, "%.0f pps", pps);
	return buf;
}

static void report_text(struct l2fwd_app *app, const struct l2fwd_snap *a,
			const struct l2fwd_snap *b, bool final, double dt)
{
	FILE *f = app->out;
	uint64_t trx = 0, ttx = 0, tdr = 0, arx = 0, atx = 0, adr = 0;
	char r1[32], r2[32], r3[32];

	fprintf(f, "\n%s over %.3f s %s\n", final ? "Totals" : "Statistics", dt,
		"=====================================");
	for (unsigned p = 0; p < app->nb_ports; p++) {
		if (app->dst[p] < 0)
			continue;
		fprintf(f, "port %u (%s) -> port %d\n", p, unic_port_name(app->ports[p]), app->dst[p]);
		fprintf(f, "  received %15" PRIu64 "  %s\n", b->rx[p], fmt_pps(rate(a->rx[p], b->rx[p], dt), r1, sizeof(r1)));
		fprintf(f, "  sent     %15" PRIu64 "  %s\n", b->tx[p], fmt_pps(rate(a->tx[p], b->tx[p], dt), r2, sizeof(r2)));
		fprintf(f, "  dropped  %15" PRIu64 "  %s\n", b->dropped[p],
			fmt_pps(rate(a->dropped[p], b->dropped[p], dt), r3, sizeof(r3)));
		if (b->port_ok[p]) {
			fprintf(f, "  port: ipackets %" PRIu64 " opackets %" PRIu64, b->port[p].ipackets,
				b->port[p].opackets);
			if (b->hw_ok[p])
				fprintf(f, " (hardware: rx %" PRIu64 " tx %" PRIu64 ")", b->hw_rx[p], b->hw_tx[p]);
			fprintf(f, " imissed %" PRIu64 " ierrors %" PRIu64 " rx_nombuf %" PRIu64
				" oerrors %" PRIu64 "\n", b->port[p].imissed, b->port[p].ierrors,
				b->port[p].rx_nombuf, b->port[p].oerrors);
			if (app->opts.nb_queues > 1) {
				fprintf(f, "  queues:");
				for (unsigned q = 0; q < app->opts.nb_queues && q < UNIC_PORT_MAX_QUEUES; q++)
					fprintf(f, " rx%u %" PRIu64 " tx%u %" PRIu64, q, b->port[p].q_ipackets[q], q,
						b->port[p].q_opackets[q]);
				fprintf(f, "\n");
			}
		} else
			fprintf(f, "  port: gone (detached)\n");
		if (app->opts.stamp_age) {
			uint64_t un, pct[3], sent[3], call[3], n = stamp_age(app, p, &un, pct, sent, call);

			fprintf(f, "  stamp age (unic-pktgen's send -> here): %" PRIu64 " frames, p50 < %.1f us, "
				"p90 < %.1f us, p99 < %.1f us; %" PRIu64 " without a stamp\n", n, pct[0] / 1e3,
				pct[1] / 1e3, pct[2] / 1e3, un);
			fprintf(f, "  stamp age once sent on (after the transmit call): p50 < %.1f us, "
				"p90 < %.1f us, p99 < %.1f us; the forwarding a burst: p50 < %.1f us, p90 < %.1f us\n",
				sent[0] / 1e3, sent[1] / 1e3, sent[2] / 1e3, call[0] / 1e3, call[1] / 1e3);
		}
		trx += b->rx[p], ttx += b->tx[p], tdr += b->dropped[p];
		arx += a->rx[p], atx += a->tx[p], adr += a->dropped[p];
	}
	for (unsigned w = 0; w < app->nb_workers; w++) {
		const struct unic_napi_ctx_stats *x = &a->napi[w], *y = &b->napi[w];
		const struct l2fwd_worker *wk = &app->workers[w];
		char core[16];

		if (wk->core >= 0)
			snprintf(core, sizeof(core), "core %d", wk->core);
		else
			snprintf(core, sizeof(core), "unpinned");
		fprintf(f, "thread %u (%s, %s): polls %" PRIu64 " empty %" PRIu64 " interrupts %" PRIu64
			" sleeps %" PRIu64 " (%.1f%% of the time asleep) cpu %.1f%%\n",
			w, core, unic_rx_mode_name(unic_napi_ctx_mode(wk->ctx)), y->polls,
			y->empty_polls, y->interrupts,
			y->sleeps,
			dt > 0 ? 100.0 * (double)(y->asleep_ns - x->asleep_ns) / (dt * 1e9) : 0,
			dt > 0 ? 100.0 * (double)(b->cpu_ns[w] - a->cpu_ns[w]) / (dt * 1e9) : 0);
	}
	fprintf(f, "pool: %" PRIu32 " packets, %" PRIu32 " in use\n", b->pool_size, b->pool_in_use);
	fprintf(f, "total: received %" PRIu64 " (%s) sent %" PRIu64 " (%s) dropped %" PRIu64 " (%s)\n",
		trx, fmt_pps(rate(arx, trx, dt), r1, sizeof(r1)), ttx, fmt_pps(rate(atx, ttx, dt), r2, sizeof(r2)),
		tdr, fmt_pps(rate(adr, tdr, dt), r3, sizeof(r3)));
	fflush(f);
}

static void report_json(struct l2fwd_app *app, const struct l2fwd_snap *a,
			const struct l2fwd_snap *b, bool final, double dt)
{
	FILE *f = app->out;
	uint64_t trx = 0, ttx = 0, tdr = 0, arx = 0, atx = 0, adr = 0;
	bool first = true;

	fprintf(f, "{\"type\":\"%s\",\"interval_s\":%.6f,\"ports\":[", final ? "totals" : "stats", dt);
	for (unsigned p = 0; p < app->nb_ports; p++) {
		if (app->dst[p] < 0)
			continue;
		fprintf(f, "%s{\"port\":%u,\"name\":\"%s\",\"dst\":%d,\"rx\":%" PRIu64 ",\"tx\":%" PRIu64
			",\"dropped\":%" PRIu64 ",\"rx_pps\":%.1f,\"tx_pps\":%.1f,\"dropped_pps\":%.1f",
			first ? "" : ",", p, unic_port_name(app->ports[p]), app->dst[p], b->rx[p], b->tx[p],
			b->dropped[p], rate(a->rx[p], b->rx[p], dt), rate(a->tx[p], b->tx[p], dt),
			rate(a->dropped[p], b->dropped[p], dt));
		if (b->port_ok[p])
			fprintf(f, ",\"ipackets\":%" PRIu64 ",\"opackets\":%" PRIu64 ",\"imissed\":%" PRIu64
				",\"ierrors\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64 ",\"oerrors\":%" PRIu64,
				b->port[p].ipackets, b->port[p].opackets, b->port[p].imissed,
				b->port[p].ierrors, b->port[p].rx_nombuf, b->port[p].oerrors);
		if (b->hw_ok[p])
			fprintf(f, ",\"hw_rx_good_packets\":%" PRIu64 ",\"hw_tx_good_packets\":%" PRIu64,
				b->hw_rx[p], b->hw_tx[p]);
		if (app->opts.stamp_age) {
			uint64_t un, pct[3], sent[3], call[3], n = stamp_age(app, p, &un, pct, sent, call);

			fprintf(f, ",\"stamp_age_ns\":{\"stamped\":%" PRIu64 ",\"unstamped\":%" PRIu64
				",\"p50\":%" PRIu64 ",\"p90\":%" PRIu64 ",\"p99\":%" PRIu64 ",\"sent_p50\":%" PRIu64
				",\"sent_p90\":%" PRIu64 ",\"sent_p99\":%" PRIu64 ",\"tx_call_p50\":%" PRIu64
				",\"tx_call_p90\":%" PRIu64 ",\"tx_call_p99\":%" PRIu64 "}", n, un, pct[0], pct[1],
				pct[2], sent[0], sent[1], sent[2], call[0], call[1], call[2]);
		}
		if (b->port_ok[p] && app->opts.nb_queues > 1) {
			/* The port's own per-queue counts: rx queue q, tx queue q. */
			for (unsigned k = 0; k < 2; k++) {
				const uint64_t *v = k ? b->port[p].q_opackets : b->port[p].q_ipackets;

				fprintf(f, ",\"%s\":[", k ? "q_opackets" : "q_ipackets");
				for (unsigned q = 0; q < app->opts.nb_queues && q < UNIC_PORT_MAX_QUEUES; q++)
					fprintf(f, "%s%" PRIu64, q ? "," : "", v[q]);
				fprintf(f, "]");
			}
		}
		fprintf(f, "}");
		first = false;
		trx += b->rx[p], ttx += b->tx[p], tdr += b->dropped[p];
		arx += a->rx[p], atx += a->tx[p], adr += a->dropped[p];
	}
	fprintf(f, "],\"threads\":[");
	for (unsigned w = 0; w < app->nb_workers; w++) {
		const struct unic_napi_ctx_stats *y = &b->napi[w];
		const struct l2fwd_worker *wk = &app->workers[w];

		fprintf(f, "%s{\"thread\":%u,\"core\":%d,\"mode\":\"%s\",\"polls\":%" PRIu64
			",\"empty_polls\":%" PRIu64 ",\"interrupts\":%" PRIu64 ",\"sleeps\":%" PRIu64
			",\"wakeups\":%" PRIu64 ",\"asleep_ns\":%" PRIu64 ",\"cpu_ns\":%" PRIu64
			",\"cpu_util\":%.4f}",
			w ? "," : "", w, wk->core, unic_rx_mode_name(unic_napi_ctx_mode(wk->ctx)),
			y->polls, y->empty_polls, y->interrupts,
			y->sleeps, y->wakeups, y->asleep_ns, b->cpu_ns[w],
			dt > 0 ? (double)(b->cpu_ns[w] - a->cpu_ns[w]) / (dt * 1e9) : 0);
	}
	fprintf(f, "],\"pool\":{\"size\":%" PRIu32 ",\"in_use\":%" PRIu32 "}", b->pool_size, b->pool_in_use);
	fprintf(f, ",\"total\":{\"rx\":%" PRIu64 ",\"tx\":%" PRIu64 ",\"dropped\":%" PRIu64
		",\"rx_pps\":%.1f,\"tx_pps\":%.1f,\"dropped_pps\":%.1f}}\n",
		trx, ttx, tdr, rate(arx, trx, dt), rate(atx, ttx, dt), rate(adr, tdr, dt));
	fflush(f);
}

/*
 * DPDK l2fwd's screen (its print_stats): clear the terminal, then per port
 * in the mask the packets sent, received and dropped since the start, then
 * the totals. Counted as DPDK counts them: received on the port that
 * received, sent and dropped on the port sent to. The field widths keep the
 * numbers' right edges in one column, as there.
 */
void l2fwd_report_dpdk(FILE *f, const struct l2fwd_app *app, const struct l2fwd_snap *b)
{
	uint64_t trx = 0, ttx = 0, tdr = 0;

	fprintf(f, "\033[2J\033[1;1H");
	fprintf(f, "\nPort statistics ====================================");
	for (unsigned p = 0; p < app->nb_ports; p++) {
		if (app->dst[p] < 0)
			continue;
		fprintf(f, "\nStatistics for port %u ------------------------------"
			"\nPackets sent: %24" PRIu64 "\nPackets received: %20" PRIu64
			"\nPackets dropped: %21" PRIu64, p, b->tx[p], b->rx[p], b->dropped[p]);
		trx += b->rx[p], ttx += b->tx[p], tdr += b->dropped[p];
	}
	fprintf(f, "\nAggregate statistics ==============================="
		"\nTotal packets sent: %18" PRIu64 "\nTotal packets received: %14" PRIu64
		"\nTotal packets dropped: %15" PRIu64, ttx, trx, tdr);
	fprintf(f, "\n====================================================\n");
	fflush(f);
}

void l2fwd_report(struct l2fwd_app *app, const struct l2fwd_snap *a, const struct l2fwd_snap *b,
		  bool final)
{
	double dt = (double)(b->t_ns - a->t_ns) / 1e9;

	switch (app->opts.stats_format) {
	case L2FWD_STATS_JSON:
		report_json(app, a, b, final, dt);
		break;
	case L2FWD_STATS_DPDK:
		l2fwd_report_dpdk(app->out, app, b);
		break;
	case L2FWD_STATS_TEXT:
		report_text(app, a, b, final, dt);
		break;
	}
}

/*
 * /l2fwd/threads: per thread, what it polls and forwards, from the same
 * counters as the reports (rx of the port it polls, tx and dropped of the
 * port it sends to), its napi context's id and CPU time; then the totals
 * per port. Runs on the telemetry thread, which main() stops before the
 * contexts are destroyed.
 */
static int l2fwd_tel_threads(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct l2fwd_app *app = arg;

	(void)cmd, (void)param;
	unic_tel_out_printf(out, "{\"threads\":[");
	for (unsigned w = 0; w < app->nb_workers; w++) {
		struct l2fwd_worker *wk = &app->workers[w];

		unic_tel_out_printf(out, "%s{\"thread\":%u,\"core\":%d,\"napi_context\":%u,\"mode\":\"%s\""
				    ",\"cpu_ns\":%" PRIu64 ",\"routes\":[",
				    w ? "," : "", w, wk->core, unic_napi_ctx_id(wk->ctx),
				    unic_rx_mode_name(unic_napi_ctx_mode(wk->ctx)), worker_cpu_ns(wk));
		for (unsigned i = 0; i < wk->nb_routes; i++) {
			const struct l2fwd_route *r = wk->routes[i];

			unic_tel_out_printf(out, "%s{\"rx_port\":%u,\"tx_port\":%u,\"rx\":%" PRIu64
					    ",\"tx\":%" PRIu64 ",\"dropped\":%" PRIu64 "}",
					    i ? "," : "", r->in_idx, r->out_idx, unic_counter_read(&r->in_cnt->rx),
					    unic_counter_read(&r->out_cnt->tx),
					    unic_counter_read(&r->out_cnt->dropped));
		}
		unic_tel_out_printf(out, "]}");
	}
	unic_tel_out_printf(out, "],\"ports\":[");
	for (unsigned p = 0, first = 1; p < app->nb_ports; p++) {
		if (app->dst[p] < 0)
			continue;
		unic_tel_out_printf(out, "%s{\"port\":%u,\"name\":", first ? "" : ",", p);
		unic_tel_out_str(out, unic_port_name(app->ports[p]));
		unic_tel_out_printf(out, ",\"dst\":%d,\"rx\":%" PRIu64 ",\"tx\":%" PRIu64
				    ",\"dropped\":%" PRIu64 "}",
				    app->dst[p], unic_counter_read(&app->cnt[p].rx),
				    unic_counter_read(&app->cnt[p].tx), unic_counter_read(&app->cnt[p].dropped));
		first = 0;
	}
	unic_tel_out_printf(out, "]}");
	return 0;
}

void l2fwd_telemetry_register(struct unic_telemetry *tel, void *app)
{
	unic_telemetry_register(tel, "/l2fwd/threads", l2fwd_tel_threads, app,
				"unic-l2fwd's threads: received, sent and dropped per route, as its reports count them");
}
