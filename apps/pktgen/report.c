/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: the final report (text or JSON) and the per-second CSV.
 */
#include "pktgen.h"

void pg_port_counts_get(struct unic_port *port, const char *hw_name, struct pg_port_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->ok = unic_port_stats_get(port, &c->st) == 0;
	c->hw_ok = unic_port_xstat_by_name(port, hw_name, &c->hw) == 0;
}

/* Lost so far over every stream: gaps below each one's highest number. */
static uint64_t lost_so_far(const struct pg_app *a)
{
	uint64_t lost = 0;

	for (unsigned i = 0; i < a->rs.nb_streams; i++)
		lost += pg_seq_lost(&a->rs.streams[i]->seq, 0);
	return lost;
}

void pg_csv_tick(struct pg_app *a, uint64_t now_ns)
{
	struct pg_csv_sample s = {
		.t_ns = now_ns - a->t_start_ns,
		.tx_frames = a->sent, .tx_bytes = a->sent_bytes,
		.rx_frames = a->rs.frames, .rx_bytes = a->rs.bytes,
		.no_stamp = a->rs.no_stamp,
	};

	/* Replayed frames: not yet received (in flight or lost). Stamped: gaps
	 * below the highest sequence number received. */
	if (a->cap.nb)
		s.lost = a->sent > a->rs.frames ? a->sent - a->rs.frames : 0;
	else
		s.lost = lost_so_far(a);
	if (a->nb_thr > 1) {  /* every thread's counts (one stream: the options refuse more) */
		const struct pg_pub *T = &a->tot;

		if (!a->merged) {
			pg_pub_total(a);
			s.tx_frames = T->sent;
			s.tx_bytes = T->sent_bytes;
			s.rx_frames = T->rx_frames;
			s.rx_bytes = T->rx_frame_bytes;
			s.no_stamp = T->no_stamp;
			s.lost = pg_pub_lost(a, T, 0);
		}
		pg_hist_merge(&a->lat_sec, &a->lat_tot);  /* the workers' latency of this second */
		pg_hist_init(&a->lat_tot);
	}
	if (a->nb_sr < 2) {
		pg_csv_row(a->csv, &a->csv_prev, &s, &a->lat_sec);
	} else {
		pg_csv_row_stream(a->csv, &a->csv_prev, &s, &a->lat_sec, "total");
		for (unsigned i = 0; i < a->nb_sr; i++) {
			const struct pg_stream_stats *st = a->rs.streams[i];
			struct pg_csv_sample ss = {
				.t_ns = s.t_ns, .tx_frames = a->sr[i].sent, .tx_bytes = a->sr[i].sent_bytes,
				.rx_frames = st->seq.received, .rx_bytes = st->bytes,
				.lost = pg_seq_lost(&st->seq, 0),
			};
			char id[8];

			snprintf(id, sizeof(id), "%u", a->sr[i].id);
			pg_csv_row_stream(a->csv, &a->csv_prev_s[i], &ss, &a->lat_sec_s[i], id);
			a->csv_prev_s[i] = ss;
			pg_hist_init(&a->lat_sec_s[i]);
		}
	}
	a->csv_prev = s;
	pg_hist_init(&a->lat_sec);
}

/* Every tx and rx port: ours and the port's own counts. */
static void report_ports_json(const struct pg_app *a)
{
	printf(",\"tx_ports\":[");
	for (unsigned k = 0; k < a->nb_txp; k++) {
		const struct pg_txp *t = &a->txp[k];

		printf("%s{\"port\":%d,\"link_mbps\":%u,\"sent\":%" PRIu64 ",\"sent_bytes\":%" PRIu64
		       ",\"opackets\":%" PRIu64 ",\"oerrors\":%" PRIu64 "}", k ? "," : "", t->idx, t->link_mbps,
		       t->sent, t->sent_bytes, t->c.st.opackets, t->c.st.oerrors);
	}
	printf("],\"rx_ports\":[");
	for (unsigned k = 0; k < a->nb_rxp; k++) {
		const struct pg_rxp *r = &a->rxp[k];

		printf("%s{\"port\":%d,\"frames\":%" PRIu64 ",\"ipackets\":%" PRIu64 ",\"imissed\":%" PRIu64
		       ",\"ierrors\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64 "}", k ? "," : "", r->idx, r->frames,
		       r->c.st.ipackets, r->c.st.imissed, r->c.st.ierrors, r->c.st.rx_nombuf);
	}
	printf("]");
}

/* Each thread's line: what it sent at what share, its CPU, its ring. */
static void report_threads_text(const struct pg_app *a, FILE *o)
{
	const char *unit = pg_rate_unit_name(a->rate.spec.unit);

	for (unsigned t = 0; t < a->nb_thr; t++) {
		const struct pg_thr_stat *s = &a->tst[t];
		char core[16];

		if (s->core >= 0)
			snprintf(core, sizeof(core), "core %d", s->core);
		else
			snprintf(core, sizeof(core), "not pinned");
		if (!s->tx) {
			fprintf(o, "rx thread %u (rx queue %u, %s): received %" PRIu64 " frames\n", s->q, s->q, core,
				s->rx_frames);
			continue;
		}
		fprintf(o, "tx thread %u (tx queue %u, %s): sent %" PRIu64 " frames in %.3f s, ", s->q, s->q, core,
			s->sent, s->tx_s);
		if (s->asked > 0)
			fprintf(o, "asked %.1f, achieved %.1f %s", s->asked, s->achieved, unit);
		else
			fprintf(o, "unpaced, achieved %.1f pps", s->tx_s > 0 ? (double)s->sent / s->tx_s : 0);
		fprintf(o, "; CPU %.1f%%, busy %.1f%% (the rest waiting for the pacer), ring full in %" PRIu64 " of %" PRIu64
			" bursts (%.1f%%)", s->tx_s > 0 ? 100 * s->cpu_s / s->tx_s : 0, 100 * pg_thr_busy(s),
			s->full_bursts, s->bursts, 100 * pg_thr_full(s));
		if (s->rx && a->nb_thr > 1)
			fprintf(o, "; received %" PRIu64 " frames on rx queue %u", s->rx_frames, s->q);
		fprintf(o, "\n");
	}
}

static void report_threads_json(const struct pg_app *a, const char *lim, enum pg_limit l)
{
	printf(",\"timestamps\":\"software\",\"tsc_invariant\":%s,\"latency_skipped\":%" PRIu64 ",\"threads\":[",
	       a->tsc_ok ? "true" : "false", a->lat_skipped);
	for (unsigned t = 0; t < a->nb_thr; t++) {
		const struct pg_thr_stat *s = &a->tst[t];

		printf("%s{\"thread\":%u,\"core\":%d,\"tx\":%s,\"rx\":%s,\"sent\":%" PRIu64 ",\"rx_frames\":%" PRIu64
		       ",\"tx_seconds\":%.6f,\"asked\":%.1f,\"achieved\":%.1f,\"cpu_pct\":%.1f,\"busy_pct\":%.1f"
		       ",\"bursts\":%" PRIu64 ",\"ring_full_bursts\":%" PRIu64 "}",
		       t ? "," : "", s->q, s->core, s->tx ? "true" : "false", s->rx ? "true" : "false", s->sent,
		       s->rx_frames, s->tx_s, s->asked, s->achieved, s->tx_s > 0 ? 100 * s->cpu_s / s->tx_s : 0,
		       100 * pg_thr_busy(s), s->bursts, s->full_bursts);
	}
	printf("],\"limit\":{\"by\":\"%s\",\"line\":\"%s\"}", pg_limit_name(l), lim);
}

void pg_report(struct pg_app *a)
{
	char lim[640];
	enum pg_limit lim_by;
	double tx_s = (double)(a->t_tx_end_ns - a->t_start_ns) / 1e9;
	double req = pg_rate_requested(&a->rate);
	double ach = pg_rate_achieved(&a->rate, a->sent, a->sent_bytes, tx_s);
	bool miss;
	static struct pg_hist total;  /* every stream's latency */
	const struct pg_hist *h = &total;
	uint64_t lost = 0, received = 0, reordered = 0, duplicated = 0;
	FILE *o = a->out;

	pg_hist_init(&total);
	for (unsigned i = 0; i < a->rs.nb_streams; i++) {
		const struct pg_stream_stats *st = a->rs.streams[i];

		lost += pg_seq_lost(&st->seq, i < a->nb_sr ? a->sr[i].sent : 0);
		received += st->seq.received;
		reordered += st->seq.reordered;
		duplicated += st->seq.duplicated;
		pg_hist_merge(&total, &st->lat_ns);
	}
	if (a->nb_sr > 1 && req > 0) {  /* the sum of the streams' requests */
		req = 0;
		for (unsigned i = 0; i < a->nb_sr; i++)
			req += pg_rate_requested(&a->sr[i].rate);
	}
	miss = pg_rate_missed(req, ach) && a->nb_changes == 0;  /* changed: the average of several rates */
	lim_by = pg_limit_judge(req > 0, req > 0 && ach < req * 0.99, a->tst, a->nb_thr, lim, sizeof(lim));

	if (a->cap.nb) {  /* replayed: counted by frames, not stamps */
		received = a->rs.frames;
		lost = a->sent > received ? a->sent - received : 0;
	}
	double pps = tx_s > 0 ? (double)a->sent / tx_s : 0;
	double l2 = tx_s > 0 ? (double)(a->sent_bytes + 4 * a->sent) * 8 / tx_s : 0;
	double wire = tx_s > 0 ? (double)(a->sent_bytes + 24 * a->sent) * 8 / tx_s : 0;
	double avg = h->count ? (double)h->sum / (double)h->count : 0;

	if (a->o.json) {
		printf("{\"tsc_hz\":%" PRIu64 ",\"tx_port\":%d,\"rx_port\":%d,\"sent\":%" PRIu64
		       ",\"received\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"reordered\":%" PRIu64
		       ",\"duplicated\":%" PRIu64 ",\"no_stamp\":%" PRIu64 ",\"other_stream\":%" PRIu64
		       ",\"rx_frames\":%" PRIu64
		       ",\"tx_full_retries\":%" PRIu64 ",\"alloc_fail\":%" PRIu64 ",\"tx_dropped\":%" PRIu64
		       ",\"tx_refused\":%" PRIu64
		       ",\"signals\":%d"
		       ",\"tx_seconds\":%.6f,\"tx_pps\":%.1f,\"tx_l2_bps\":%.1f,\"tx_wire_bps\":%.1f",
		       a->hz, a->sr[0].spec->tx_port, a->sr[0].spec->rx_port, a->sent, received, lost,
		       reordered, duplicated, a->rs.no_stamp, a->rs.other_stream,
		       a->rs.frames, a->tx_full,
		       a->alloc_fail, a->tx_dropped, a->tx_refused, (int)pg_signals, tx_s, pps, l2, wire);
		report_threads_json(a, lim, lim_by);
		if (a->cap.nb)
			printf(",\"replay\":{\"frames\":%u,\"bytes\":%" PRIu64 "}", a->cap.nb, a->cap.bytes);
		if (a->wtx)
			printf(",\"write_tx_frames\":%" PRIu64, pg_pcap_writer_frames(a->wtx));
		if (a->wrx)
			printf(",\"write_rx_frames\":%" PRIu64, pg_pcap_writer_frames(a->wrx));
		if (req > 0)
			printf(",\"rate\":{\"unit\":\"%s\",\"requested\":%.1f,\"achieved\":%.1f,\"missed\":%s}",
			       pg_rate_unit_name(a->rate.spec.unit), req, ach, miss ? "true" : "false");
		if (a->nb_changes) {
			printf(",\"rate_changes\":{\"count\":%u,\"changes\":[", a->nb_changes);
			for (unsigned i = 0; i < a->nb_changes && i < PG_RATE_CHANGES_MAX; i++)
				printf("%s{\"seconds\":%.3f,\"rate\":\"%s\"}", i ? "," : "", a->changes[i].t_s,
				       a->changes[i].text);
			printf("]}");
		}
		printf(",\"tx_port_stats\":{\"ok\":%s,\"opackets\":%" PRIu64 ",\"obytes\":%" PRIu64
		       ",\"oerrors\":%" PRIu64 ",\"hw_tx_good_packets\":%" PRId64 "}",
		       a->txc.ok ? "true" : "false", a->txc.st.opackets, a->txc.st.obytes,
		       a->txc.st.oerrors, a->txc.hw_ok ? (int64_t)a->txc.hw : -1);
		printf(",\"rx_port_stats\":{\"ok\":%s,\"ipackets\":%" PRIu64 ",\"ibytes\":%" PRIu64
		       ",\"imissed\":%" PRIu64 ",\"ierrors\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64
		       ",\"hw_rx_good_packets\":%" PRId64 "}",
		       a->rxc.ok ? "true" : "false", a->rxc.st.ipackets, a->rxc.st.ibytes,
		       a->rxc.st.imissed, a->rxc.st.ierrors, a->rxc.st.rx_nombuf,
		       a->rxc.hw_ok ? (int64_t)a->rxc.hw : -1);
		printf(",\"latency_ns\":{\"samples\":%" PRIu64 ",\"min\":%" PRIu64 ",\"avg\":%.0f,\"p50\":%" PRIu64
		       ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64 ",\"max\":%" PRIu64 "}",
		       h->count, h->count ? h->min : 0, avg, pg_hist_percentile(h, 50),
		       pg_hist_percentile(h, 99), pg_hist_percentile(h, 99.9), h->max);
		if (a->o.arp_reply)
			printf(",\"arp\":{\"frames\":%" PRIu64 ",\"arp_replies\":%" PRIu64 ",\"na_replies\":%" PRIu64
			       ",\"tx_fail\":%" PRIu64 ",\"other_port_frames\":%" PRIu64 "}",
			       a->arp_frames, a->arp.arp_replies, a->arp.na_replies, a->arp.tx_fail,
			       a->other_port_frames);
		report_ports_json(a);
		if (!a->cap.nb)
			pg_streams_report_json(stdout, a->sr, a->nb_sr, &a->rs);
		printf("}\n");
		return;
	}
	fprintf(o, "unic-pktgen: TSC %.6f GHz (calibrated against CLOCK_MONOTONIC)\n", (double)a->hz / 1e9);
	for (unsigned k = 0; k < a->nb_txp; k++) {
		const struct pg_txp *t = &a->txp[k];
		double tp = tx_s > 0 ? (double)t->sent / tx_s : 0;

		fprintf(o, "tx port %d: sent %" PRIu64 " frames, %" PRIu64 " bytes (no FCS) in %.3f s: %.3f Mpps, "
		       "%.3f Mbit/s L2 (+4 B FCS a frame), %.3f Mbit/s on the wire (+24 B)\n",
		       t->idx, t->sent, t->sent_bytes, tx_s, tp / 1e6,
		       tx_s > 0 ? (double)(t->sent_bytes + 4 * t->sent) * 8 / tx_s / 1e6 : 0,
		       tx_s > 0 ? (double)(t->sent_bytes + 24 * t->sent) * 8 / tx_s / 1e6 : 0);
		if (a->nb_txp > 1 && t->c.ok) {
			fprintf(o, "          port counters: opackets %" PRIu64 " oerrors %" PRIu64, t->c.st.opackets,
				t->c.st.oerrors);
			if (t->c.hw_ok)
				fprintf(o, ", hardware tx_good_packets %" PRIu64, t->c.hw);
			fprintf(o, "\n");
		}
	}
	if (a->nb_txp > 1)
		fprintf(o, "tx total: sent %" PRIu64 " frames, %" PRIu64 " bytes: %.3f Mpps, %.3f Mbit/s L2, %.3f Mbit/s on the wire\n",
			a->sent, a->sent_bytes, pps / 1e6, l2 / 1e6, wire / 1e6);
	fprintf(o, "          tx ring full (retried): %" PRIu64 ", no buffer: %" PRIu64, a->tx_full, a->alloc_fail);
	if (a->tx_dropped)
		fprintf(o, ", never taken by the port (dropped when the run stopped, not sent): %" PRIu64,
			a->tx_dropped);
	if (a->tx_refused)
		fprintf(o, ", refused by the port (freed, not sent): %" PRIu64 " (the last: %s)",
			a->tx_refused, strerror(-a->tx_refused_err));
	fprintf(o, "\n");
	if (a->nb_txp == 1 && a->txc.ok) {
		fprintf(o, "          port counters: opackets %" PRIu64 " oerrors %" PRIu64, a->txc.st.opackets,
		       a->txc.st.oerrors);
		if (a->txc.hw_ok)
			fprintf(o, ", hardware tx_good_packets %" PRIu64, a->txc.hw);
		fprintf(o, "\n");
	}
	report_threads_text(a, o);
	fprintf(o, "%s\n", lim);
	if (a->lat_skipped)
		fprintf(o, "latency not taken of %" PRIu64 " frames received by another thread than their sender's (the TSC is not invariant: /proc/cpuinfo lacks %s)\n",
			a->lat_skipped, a->tsc_missing);
	if (pg_key_quit && !pg_signals)
		fprintf(o, "stopped by the q key after %.3f s of sending\n", tx_s);
	if (pg_signals)
		fprintf(o, "stopped by a signal after %.3f s of sending%s\n", tx_s,
			pg_signals > 1 ? "; a second one ended the wait for frames in flight (those not back count as lost)" : "");
	if (req > 0)
		fprintf(o, "rate: requested %.1f, achieved %.1f %s%s\n", req, ach,
		       pg_rate_unit_name(a->rate.spec.unit),
		       miss ? "  ** MISSED by more than 1% **" :
		       a->nb_changes ? " (the rate changed: the achieved figure averages the whole run)" : " (within 1%)");
	if (a->nb_changes) {
		fprintf(o, "rate changed %u time(s) while sending:", a->nb_changes);
		for (unsigned i = 0; i < a->nb_changes && i < PG_RATE_CHANGES_MAX; i++)
			fprintf(o, "%s at %.3f s to %s", i ? "," : "", a->changes[i].t_s, a->changes[i].text);
		if (a->nb_changes > PG_RATE_CHANGES_MAX)
			fprintf(o, ", and %u more", a->nb_changes - PG_RATE_CHANGES_MAX);
		fprintf(o, "\n");
	}
	for (unsigned k = 0; a->nb_rxp > 1 && k < a->nb_rxp; k++) {
		const struct pg_rxp *r = &a->rxp[k];

		fprintf(o, "rx port %d: frames %" PRIu64 "\n", r->idx, r->frames);
		if (r->c.ok)
			fprintf(o, "          port counters: ipackets %" PRIu64 " imissed %" PRIu64 " ierrors %" PRIu64
				" rx_nombuf %" PRIu64 "\n", r->c.st.ipackets, r->c.st.imissed, r->c.st.ierrors,
				r->c.st.rx_nombuf);
	}
	if (a->nb_rxp > 1)
		fprintf(o, "rx total: frames %" PRIu64 ", without a valid stamp %" PRIu64 "\n", a->rs.frames,
			a->rs.no_stamp);
	else
		fprintf(o, "rx port %d: frames %" PRIu64 ", without a valid stamp %" PRIu64 "\n",
			a->sr[0].spec->rx_port, a->rs.frames, a->rs.no_stamp);
	if (a->nb_rxp == 1 && a->rxc.ok) {
		fprintf(o, "          port counters: ipackets %" PRIu64 " imissed %" PRIu64 " ierrors %" PRIu64
		       " rx_nombuf %" PRIu64, a->rxc.st.ipackets, a->rxc.st.imissed, a->rxc.st.ierrors,
		       a->rxc.st.rx_nombuf);
		if (a->rxc.hw_ok)
			fprintf(o, ", hardware rx_good_packets %" PRIu64, a->rxc.hw);
		fprintf(o, "\n");
	}
	for (unsigned r = 1; r < PG_PARSE_NB; r++)
		if (a->rs.by_result[r])
			fprintf(o, "          %s: %" PRIu64 "\n", pg_parse_result_name(r), a->rs.by_result[r]);
	if (a->rs.other_stream && a->nb_sr == 1)
		fprintf(o, "          stamped by another sender (stream id not %u): %" PRIu64 "\n",
			a->rs.stream_id, a->rs.other_stream);
	else if (a->rs.other_stream)
		fprintf(o, "          stamped by another sender (a stream id not of this run): %" PRIu64 "\n",
			a->rs.other_stream);
	if (a->cap.nb) {
		fprintf(o, "replay %s: %u frames, %" PRIu64 " bytes in the capture; received %" PRIu64
			", not received %" PRIu64 " (frames are counted, stamps not read)\n", a->o.replay,
			a->cap.nb, a->cap.bytes, received, lost);
	} else if (a->nb_sr == 1) {
		fprintf(o, "stream %d: received %" PRIu64 ", lost %" PRIu64 ", reordered %" PRIu64
			", duplicated %" PRIu64 "\n", a->sr[0].id, received, lost, reordered, duplicated);
	} else {
		pg_streams_report_text(o, a->sr, a->nb_sr, &a->rs);
		fprintf(o, "total: received %" PRIu64 ", lost %" PRIu64 ", reordered %" PRIu64
			", duplicated %" PRIu64 " (sent %" PRIu64 ", %u streams)\n", received, lost, reordered,
			duplicated, a->sent, a->nb_sr);
	}
	if (a->o.arp_reply)
		fprintf(o, "arp/ndp (--arp-reply): %" PRIu64 " ARP or neighbour discovery frames received (not counted above), answered %" PRIu64
			" ARP requests and %" PRIu64 " neighbour solicitations; replies the port did not take: %" PRIu64
			"; other frames on tx-only ports: %" PRIu64 "\n", a->arp_frames, a->arp.arp_replies,
			a->arp.na_replies, a->arp.tx_fail, a->other_port_frames);
	if (a->wtx)
		fprintf(o, "pcap: %" PRIu64 " frames sent written to %s\n", pg_pcap_writer_frames(a->wtx),
			a->o.write_tx);
	if (a->wrx)
		fprintf(o, "pcap: %" PRIu64 " frames received written to %s\n", pg_pcap_writer_frames(a->wrx),
			a->o.write_rx);
	if (!a->cap.nb)
		fprintf(o, "latency (ns, %" PRIu64 " samples): min %" PRIu64 " avg %.0f p50 %" PRIu64 " p99 %" PRIu64
			   " p99.9 %" PRIu64 " max %" PRIu64 "\n", h->count, h->count ? h->min : 0, avg,
			   pg_hist_percentile(h, 50), pg_hist_percentile(h, 99), pg_hist_percentile(h, 99.9), h->max);
}

/* Frames of the streams received back. */
uint64_t pg_stream_frames_back(const struct pg_app *a)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < a->rs.nb_streams; i++)
		n += a->rs.streams[i]->seq.received;
	return n;
}
