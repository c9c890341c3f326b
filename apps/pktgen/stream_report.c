/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen: the per-stream report rows and the link check (stream_report.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "stream_report.h"

void pg_stream_label(const struct pg_stream_run *sr, char *buf, size_t len)
{
	const struct pg_stream_spec *s = sr->spec;
	char sizes[64];

	if (s->imix)
		snprintf(sizes, sizeof(sizes), "imix");
	else if (s->nb_sizes == 1)
		snprintf(sizes, sizeof(sizes), "%u B", s->sizes[0]);
	else
		snprintf(sizes, sizeof(sizes), "%u..%u B", pg_stream_min_size(s), pg_stream_max_size(s));
	snprintf(buf, len, "tx %d -> rx %d, %s/%s%s, %s", s->tx_port, s->rx_port,
		 s->ipv6 ? "ipv6" : "ipv4", pg_proto_name(s->proto), s->vlan ? "/vlan" : "", sizes);
}

void pg_streams_report_text(FILE *o, const struct pg_stream_run *srs, unsigned n,
			    const struct pg_rxstats *rs)
{
	for (unsigned i = 0; i < n; i++) {
		const struct pg_stream_run *sr = &srs[i];
		const struct pg_stream_stats *st = rs->streams[i];
		const struct pg_hist *h = &st->lat_ns;
		char label[128];

		pg_stream_label(sr, label, sizeof(label));
		fprintf(o, "stream %u: received %" PRIu64 ", lost %" PRIu64 ", reordered %" PRIu64
			", duplicated %" PRIu64 " (sent %" PRIu64 ", %s", sr->id, st->seq.received,
			pg_seq_lost(&st->seq, sr->sent), st->seq.reordered, st->seq.duplicated, sr->sent, label);
		if (sr->refused)
			fprintf(o, ", refused by the port %" PRIu64, sr->refused);
		fprintf(o, "); latency ns p50 %" PRIu64 " p99 %" PRIu64 " max %" PRIu64 "\n",
			pg_hist_percentile(h, 50), pg_hist_percentile(h, 99), h->max);
	}
}

void pg_streams_report_json(FILE *o, const struct pg_stream_run *srs, unsigned n,
			    const struct pg_rxstats *rs)
{
	fprintf(o, ",\"streams\":[");
	for (unsigned i = 0; i < n; i++) {
		const struct pg_stream_run *sr = &srs[i];
		const struct pg_stream_spec *s = sr->spec;
		const struct pg_stream_stats *st = rs->streams[i];
		const struct pg_hist *h = &st->lat_ns;

		fprintf(o, "%s{\"id\":%u,\"tx_port\":%d,\"rx_port\":%d,\"proto\":\"%s\",\"l3\":\"%s\","
		       "\"share\":%.3f,\"sent\":%" PRIu64 ",\"sent_bytes\":%" PRIu64 ",\"tx_refused\":%" PRIu64
		       ",\"received\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"reordered\":%" PRIu64
		       ",\"duplicated\":%" PRIu64,
		       i ? "," : "", sr->id, s->tx_port, s->rx_port, pg_proto_name(s->proto),
		       s->ipv6 ? "ipv6" : "ipv4", s->share, sr->sent, sr->sent_bytes, sr->refused,
		       st->seq.received, pg_seq_lost(&st->seq, sr->sent), st->seq.reordered,
		       st->seq.duplicated);
		if (sr->rate.spec.unit != PG_RATE_NONE)
			fprintf(o, ",\"rate_requested\":%.1f", pg_rate_requested(&sr->rate));
		for (unsigned q = 0; st->nq > 1 && q < st->nq; q++) {  /* a sequence per tx queue */
			const struct pg_seq *x = &st->qseq[q];

			fprintf(o, "%s{\"queue\":%u,\"received\":%" PRIu64 ",\"unique\":%" PRIu64 ",\"highest\":%" PRId64
				",\"reordered\":%" PRIu64 ",\"duplicated\":%" PRIu64 "}%s", q ? "," : ",\"tx_queues\":[", q,
				x->received, x->unique, x->any ? (int64_t)x->highest : -1, x->reordered, x->duplicated,
				q + 1 == st->nq ? "]" : "");
		}
		fprintf(o, ",\"latency_ns\":{\"samples\":%" PRIu64 ",\"min\":%" PRIu64 ",\"avg\":%.0f,\"p50\":%" PRIu64
		       ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64 ",\"max\":%" PRIu64 "}}",
		       h->count, h->count ? h->min : 0, h->count ? (double)h->sum / (double)h->count : 0,
		       pg_hist_percentile(h, 50), pg_hist_percentile(h, 99), pg_hist_percentile(h, 99.9),
		       h->max);
	}
	fprintf(o, "]");
}

int pg_streams_link_check(const struct pg_stream_run *srs, const unsigned *idx, unsigned n, int port,
			  const char *name, uint32_t link_mbps, char *err, size_t errlen)
{
	double wire = 0, link = (double)link_mbps * 1e6;
	char parts[512];
	int len = 0;

	if (link_mbps == 0)
		return 0;
	parts[0] = '\0';
	for (unsigned j = 0; j < n; j++) {
		const struct pg_stream_run *sr = &srs[idx[j]];
		double mean = pg_stream_mean_size(sr->spec), w;

		switch (sr->rate.spec.unit) {
		case PG_RATE_NONE:
			continue;
		case PG_RATE_PPS:
			w = sr->rate.spec.value * (mean + PG_FCS_LEN + PG_WIRE_EXTRA) * 8;
			break;
		case PG_RATE_BPS_L2:
			w = sr->rate.bps * (mean + PG_FCS_LEN + PG_WIRE_EXTRA) / (mean + PG_FCS_LEN);
			break;
		default:
			w = sr->rate.bps;
			break;
		}
		wire += w;
		if (len < (int)sizeof(parts) - 1)
			len += snprintf(parts + len, sizeof(parts) - (size_t)len, "%sstream %u %.1f",
					len ? ", " : "", sr->id, w / 1e6);
	}
	if (wire > link * (1 + 1e-9)) {
		snprintf(err, errlen, "option --rate: the streams on tx port %d (%s) come to %.1f Mbit/s on the wire (%s; sizes' mean for a frame rate), above its link's %u Mbit/s; lower --rate or move streams to another port",
			 port, name, wire / 1e6, parts, link_mbps);
		return -EINVAL;
	}
	return 0;
}
