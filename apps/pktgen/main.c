/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: send stamped UDP frames on one port at a paced rate, receive
 * on another (or the same), and report what came back of the stream sent:
 * received, lost, reordered, duplicated, latency percentiles. docs/pktgen.md.
 *
 * One thread does both, so the transmit and receive timestamps come from the
 * same core's TSC (timestamps taken on different cores are not comparable).
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/log.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "app_telemetry.h"
#include "csv.h"
#include "pcap_io.h"
#include "pkt_build.h"
#include "pkt_parse.h"
#include "pktgen_opts.h"
#include "rate.h"
#include "rxstats.h"

#define BURST 32
#define TX_STALL_NS 2000000000ull /* the tx port taking nothing this long stops the run */
#define POOL_CACHE 256

/* The stamp's stream id is the tx port number, whole. */
static_assert(UNIC_PORT_MAX - 1 <= UINT16_MAX, "a port number must fit the stamp's 16-bit stream id");

/*
 * g_stop: stop sending (a signal, or a stalled tx port). g_signals: SIGINT
 * and SIGTERM received (2 at most). The first stops sending, and the run
 * then waits up to DRAIN_NS for frames in flight; a second ends that wait
 * at once. Neither skips stopping the ports. The handlers are installed
 * first thing, so a signal during set-up ends the run once the current
 * set-up step returns, before anything is sent.
 */
static volatile sig_atomic_t g_stop, g_signals;

static void on_signal(int sig)
{
	(void)sig;
	if (g_signals < 2)
		g_signals++;
	g_stop = 1;
}

static void signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;       /* a blocking read or open goes on */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time: g_signals counts both */
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* A signal came during set-up: say so; the caller stops and closes what is up. */
static bool setup_interrupted(const char *step)
{
	if (!g_signals)
		return false;
	fprintf(stderr, "unic-pktgen: interrupted (%s) during set-up, %s; nothing was sent\n",
		g_signals > 1 ? "two signals" : "a signal", step);
	return true;
}

struct pg_app {
	struct pg_opts o;
	struct unic_port *tx, *rx;
	struct pg_frame_tmpl tmpl;
	struct pg_rate rate;
	uint64_t hz;
	double ns_per_cycle;
	/* transmit */
	uint64_t sent, sent_bytes, tx_full, alloc_fail;
	uint64_t tx_dropped;       /* built, never taken by the port, freed at stop */
	uint64_t tx_refused;       /* built, refused by the port (unic_tx_prepare), freed */
	int tx_refused_err;        /* the reason of the last one (-errno) */
	uint32_t seq;
	unsigned size_idx;
	uint32_t flow_k[4];       /* odometer over src ip, dst ip, src port, dst port */
	uint64_t t_start_ns, t_tx_end_ns, t_end_ns;
	/* receive */
	struct pg_rxstats rs;
	uint32_t link_mbps;
	uint64_t last_take_ns;     /* the port last took a frame */
	bool stalled;
	/* --replay */
	struct pg_capture cap;
	uint32_t cap_idx;          /* next frame of the capture */
	/* --write-tx / --write-rx */
	struct pg_pcap_writer *wtx, *wrx;
	unsigned npend_written;    /* pending frames already recorded in wtx */
	int64_t pend_pos;          /* wtx offset of pend[0]'s record */
	uint8_t *scratch;          /* a chained received frame, made contiguous */
	/* --csv */
	FILE *csv;
	struct pg_csv_sample csv_prev;
	struct pg_hist lat_sec;    /* latency of this second's frames */
	FILE *out;                 /* the text report: stdout, or stderr with --csv - */
	/* The ports' own counters at the end of the run, to set beside ours. */
	struct port_counts {
		bool ok, hw_ok;            /* stats_get / the hardware counter answered */
		struct unic_port_stats st;
		uint64_t hw;               /* hw_tx_good_packets (tx port), hw_rx_good_packets (rx port) */
	} txc, rxc;
};

static void port_counts_get(struct unic_port *port, const char *hw_name, struct port_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->ok = unic_port_stats_get(port, &c->st) == 0;
	c->hw_ok = unic_port_xstat_by_name(port, hw_name, &c->hw) == 0;
}

static unsigned next_size(struct pg_app *a)
{
	unsigned s;

	if (a->o.nb_sizes) {
		s = a->o.sizes[a->size_idx];
		a->size_idx = (a->size_idx + 1) % a->o.nb_sizes;
	} else {
		s = a->o.size_lo + a->size_idx;
		a->size_idx = (a->size_idx + 1) % (a->o.size_hi - a->o.size_lo + 1);
	}
	return s;
}

static void next_flow(struct pg_app *a, struct pg_flow *f)
{
	const uint32_t n[4] = { a->o.src_ip.count, a->o.dst_ip.count, a->o.src_port.count,
				a->o.dst_port.count };

	pg_ip_at(&a->o.src_ip, a->o.ipv6, a->flow_k[0], f->src_ip);
	pg_ip_at(&a->o.dst_ip, a->o.ipv6, a->flow_k[1], f->dst_ip);
	f->src_port = (uint16_t)(a->o.src_port.lo + a->flow_k[2]);
	f->dst_port = (uint16_t)(a->o.dst_port.lo + a->flow_k[3]);
	for (unsigned i = 0; i < 4; i++) {
		if (++a->flow_k[i] < n[i])
			break;
		a->flow_k[i] = 0;
	}
}

static void rx_frame(struct pg_app *a, struct unic_pkt *p, uint64_t now_tsc)
{
	struct pg_stream_stats *st;
	struct pg_parsed pp;

	if (a->cap.nb) {  /* replayed frames carry whatever stamps the capture holds */
		a->rs.frames++;
		a->rs.bytes += p->pkt_len;
		return;
	}
	st = pg_rxstats_frame(&a->rs, p->pkt_len, pg_pkt_parse(p, a->scratch, PG_PCAP_SNAPLEN, &pp),
			      &pp.stamp);
	if (st == NULL)
		return;
	pg_seq_add(&st->seq, pp.stamp.seq);
	if (now_tsc >= pp.stamp.tsc) {
		uint64_t ns = (uint64_t)((double)(now_tsc - pp.stamp.tsc) * a->ns_per_cycle);

		pg_hist_add(&st->lat_ns, ns);
		if (a->csv)
			pg_hist_add(&a->lat_sec, ns);
	}
}

/* Record a received frame; a chain is copied into one piece first. */
static void write_rx(struct pg_app *a, const struct unic_pkt *p, uint64_t now_tsc)
{
	uint32_t n = 0;

	if (p->nb_segs <= 1 || p->next == NULL) {
		pg_pcap_write(a->wrx, unic_pkt_data(p), p->data_len, now_tsc);
		return;
	}
	for (const struct unic_pkt *s = p; s && n < PG_PCAP_SNAPLEN; s = s->next) {
		uint32_t k = s->data_len < PG_PCAP_SNAPLEN - n ? s->data_len : PG_PCAP_SNAPLEN - n;

		memcpy(a->scratch + n, unic_pkt_data(s), k);
		n += k;
	}
	pg_pcap_write(a->wrx, a->scratch, n, now_tsc);
}

static void poll_rx(struct pg_app *a)
{
	struct unic_pkt *pk[BURST];
	uint16_t n = unic_rx_burst(a->rx, 0, pk, BURST);
	uint64_t now = unic_rdtsc();

	for (uint16_t i = 0; i < n; i++) {
		if (a->wrx)
			write_rx(a, pk[i], now);
		rx_frame(a, pk[i], now);
	}
	if (n)
		unic_pkt_free_bulk(pk, n);
}

static bool tx_done(const struct pg_app *a, uint64_t now_ns)
{
	if (g_stop)
		return true;
	/* --count frames built: sent, or refused by the port (never retried). */
	if (a->o.count && a->sent + a->tx_refused >= a->o.count)
		return true;
	return a->o.duration > 0 && (double)(now_ns - a->t_start_ns) >= a->o.duration * 1e9;
}

/* Build and send the frames due now. */
static void do_tx(struct pg_app *a, struct unic_pool *pool, struct unic_pkt **pend, unsigned *npend,
		  unsigned *pend_size)
{
	uint64_t now = unic_rdtsc();
	unsigned n = *npend;
	uint16_t took;

	while (n < BURST && pg_rate_due(&a->rate, now) &&
	       !(a->o.count && a->sent + a->tx_refused + n >= a->o.count)) {
		struct unic_pkt *p = unic_pkt_alloc(pool);
		unsigned size = a->cap.nb ? a->cap.len[a->cap_idx] : next_size(a);
		uint8_t *d;

		if (p == NULL) {
			a->alloc_fail++;
			break;
		}
		d = unic_pkt_append(p, (uint16_t)size);
		if (d == NULL) {  /* cannot happen: the pool's data room fits the largest */
			unic_pkt_free(p);
			a->alloc_fail++;
			break;
		}
		if (a->cap.nb) {
			memcpy(d, a->cap.data + a->cap.off[a->cap_idx], size);
			a->cap_idx = a->cap_idx + 1 == a->cap.nb ? 0 : a->cap_idx + 1;
		} else {
			struct pg_flow f;
			struct pg_stamp s = { .magic = PG_STAMP_MAGIC, .stream = a->rs.stream_id };

			next_flow(a, &f);
			s.seq = a->seq++;
			s.tsc = unic_rdtsc();
			pg_frame_build(d, size, &a->tmpl, &f, &s);
		}
		pend[n] = p;
		pend_size[n] = size;
		n++;
		pg_rate_sent(&a->rate, size, now);
	}
	/* The new frames (the pending ones passed already) go through the
	 * port's checks once: a refused frame is freed and counted, never
	 * sent, recorded or retried; the frames after it go on. */
	for (unsigned i = *npend; i < n;) {
		int err;
		uint16_t ok = unic_tx_prepare(a->tx, 0, pend + i, (uint16_t)(n - i), &err);

		i += ok;
		if (UNIC_LIKELY(i == n))
			break;
		unic_pkt_free(pend[i]);
		a->tx_refused++;
		a->tx_refused_err = err;
		memmove(pend + i, pend + i + 1, (n - i - 1) * sizeof(*pend));
		memmove(pend_size + i, pend_size + i + 1, (n - i - 1) * sizeof(*pend_size));
		n--;
	}
	if (n == 0)
		return;
	/* Recorded before the port owns them (a port may free a frame at once);
	 * records of frames never taken are cut off at the end (pend_pos). */
	if (a->wtx && a->npend_written < n) {
		uint64_t t = unic_rdtsc();

		if (a->npend_written == 0)
			a->pend_pos = pg_pcap_writer_tell(a->wtx);
		for (unsigned i = a->npend_written; i < n; i++)
			pg_pcap_write(a->wtx, unic_pkt_data(pend[i]), pend[i]->data_len, t);
		a->npend_written = n;
	}
	took = unic_tx_burst(a->tx, 0, pend, (uint16_t)n);
	for (unsigned i = 0; i < took; i++) {
		a->sent++;
		a->sent_bytes += pg_link_bytes(pend_size[i]);
	}
	if (a->wtx) {  /* pend_pos moves past the records of the frames taken */
		for (unsigned i = 0; i < took; i++)
			a->pend_pos += 16 + (pend_size[i] < PG_PCAP_SNAPLEN ? pend_size[i] : PG_PCAP_SNAPLEN);
		a->npend_written = n - took;
	}
	if (took < n) {  /* ring full: kept for the next round, counted */
		a->tx_full += n - took;
		memmove(pend, pend + took, (n - took) * sizeof(*pend));
		memmove(pend_size, pend_size + took, (n - took) * sizeof(*pend_size));
	}
	*npend = n - took;
	if (took)
		a->last_take_ns = unic_time_ns();
}

static void status_line(struct pg_app *a, uint64_t now_ns, uint64_t *last_sent, uint64_t *last_rx,
			uint64_t *last_ns)
{
	double dt = (double)(now_ns - *last_ns) / 1e9;
	uint64_t rx = a->rs.frames;

	fprintf(stderr, "\r%.0fs tx %.3f Mpps rx %.3f Mpps | sent %" PRIu64 " received %" PRIu64
		" no-stamp %" PRIu64 " in flight/lost %" PRIu64 "   ",
		(double)(now_ns - a->t_start_ns) / 1e9, (double)(a->sent - *last_sent) / dt / 1e6,
		(double)(rx - *last_rx) / dt / 1e6, a->sent, rx, a->rs.no_stamp,
		a->sent > rx ? a->sent - rx : 0);
	fflush(stderr);
	*last_sent = a->sent;
	*last_rx = rx;
	*last_ns = now_ns;
}

/* Drop the frames the port never took; their records leave the tx capture. */
static void drop_pending(struct pg_app *a, struct unic_pkt **pend, unsigned *npend)
{
	if (*npend == 0)
		return;
	if (a->wtx && a->npend_written) {
		int r = pg_pcap_writer_truncate(a->wtx, a->pend_pos, a->npend_written);

		if (r)
			fprintf(stderr, "unic-pktgen: --write-tx: could not remove the last %u records (frames never sent) from the capture: %s\n",
				a->npend_written, strerror(-r));
		a->npend_written = 0;
	}
	unic_pkt_free_bulk(pend, *npend);
	a->tx_dropped += *npend;
	*npend = 0;
}

static void csv_tick(struct pg_app *a, uint64_t now_ns)
{
	const struct pg_stream_stats *st = &a->rs.stream;
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
		s.lost = pg_seq_lost(&st->seq, 0);
	pg_csv_row(a->csv, &a->csv_prev, &s, &a->lat_sec);
	a->csv_prev = s;
	pg_hist_init(&a->lat_sec);
}

static void report(struct pg_app *a)
{
	double tx_s = (double)(a->t_tx_end_ns - a->t_start_ns) / 1e9;
	double req = pg_rate_requested(&a->rate);
	double ach = pg_rate_achieved(&a->rate, a->sent, a->sent_bytes, tx_s);
	bool miss = pg_rate_missed(req, ach);
	struct pg_stream_stats *st = &a->rs.stream;
	const struct pg_hist *h = &st->lat_ns;
	uint64_t lost = pg_seq_lost(&st->seq, a->sent);
	uint64_t received = st->seq.received;
	FILE *o = a->out;

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
		       a->hz, a->o.tx_port, a->o.rx_port, a->sent, received, lost,
		       st->seq.reordered, st->seq.duplicated, a->rs.no_stamp, a->rs.other_stream,
		       a->rs.frames, a->tx_full,
		       a->alloc_fail, a->tx_dropped, a->tx_refused, (int)g_signals, tx_s, pps, l2, wire);
		if (a->cap.nb)
			printf(",\"replay\":{\"frames\":%u,\"bytes\":%" PRIu64 "}", a->cap.nb, a->cap.bytes);
		if (a->wtx)
			printf(",\"write_tx_frames\":%" PRIu64, pg_pcap_writer_frames(a->wtx));
		if (a->wrx)
			printf(",\"write_rx_frames\":%" PRIu64, pg_pcap_writer_frames(a->wrx));
		if (req > 0)
			printf(",\"rate\":{\"unit\":\"%s\",\"requested\":%.1f,\"achieved\":%.1f,\"missed\":%s}",
			       pg_rate_unit_name(a->rate.spec.unit), req, ach, miss ? "true" : "false");
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
		       ",\"p99\":%" PRIu64 ",\"p999\":%" PRIu64 ",\"max\":%" PRIu64 "}}\n",
		       h->count, h->count ? h->min : 0, avg, pg_hist_percentile(h, 50),
		       pg_hist_percentile(h, 99), pg_hist_percentile(h, 99.9), h->max);
		return;
	}
	fprintf(o, "unic-pktgen: TSC %.6f GHz (calibrated against CLOCK_MONOTONIC)\n", (double)a->hz / 1e9);
	fprintf(o, "tx port %d: sent %" PRIu64 " frames, %" PRIu64 " bytes (no FCS) in %.3f s: %.3f Mpps, "
	       "%.3f Mbit/s L2 (+4 B FCS a frame), %.3f Mbit/s on the wire (+24 B)\n",
	       a->o.tx_port, a->sent, a->sent_bytes, tx_s, pps / 1e6, l2 / 1e6, wire / 1e6);
	fprintf(o, "          tx ring full (retried): %" PRIu64 ", no buffer: %" PRIu64, a->tx_full, a->alloc_fail);
	if (a->tx_dropped)
		fprintf(o, ", never taken by the port (dropped when the run stopped, not sent): %" PRIu64,
			a->tx_dropped);
	if (a->tx_refused)
		fprintf(o, ", refused by the port (freed, not sent): %" PRIu64 " (the last: %s)",
			a->tx_refused, strerror(-a->tx_refused_err));
	fprintf(o, "\n");
	if (a->txc.ok) {
		fprintf(o, "          port counters: opackets %" PRIu64 " oerrors %" PRIu64, a->txc.st.opackets,
		       a->txc.st.oerrors);
		if (a->txc.hw_ok)
			fprintf(o, ", hardware tx_good_packets %" PRIu64, a->txc.hw);
		fprintf(o, "\n");
	}
	if (g_signals)
		fprintf(o, "stopped by a signal after %.3f s of sending%s\n", tx_s,
			g_signals > 1 ? "; a second one ended the wait for frames in flight (those not back count as lost)" : "");
	if (req > 0)
		fprintf(o, "rate: requested %.1f, achieved %.1f %s%s\n", req, ach,
		       pg_rate_unit_name(a->rate.spec.unit),
		       miss ? "  ** MISSED by more than 1% **" : " (within 1%)");
	fprintf(o, "rx port %d: frames %" PRIu64 ", without a valid stamp %" PRIu64 "\n", a->o.rx_port,
	       a->rs.frames, a->rs.no_stamp);
	if (a->rxc.ok) {
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
	if (a->rs.other_stream)
		fprintf(o, "          stamped by another sender (stream id not %u): %" PRIu64 "\n",
			a->rs.stream_id, a->rs.other_stream);
	if (a->cap.nb) {
		fprintf(o, "replay %s: %u frames, %" PRIu64 " bytes in the capture; received %" PRIu64
			", not received %" PRIu64 " (frames are counted, stamps not read)\n", a->o.replay,
			a->cap.nb, a->cap.bytes, received, lost);
	} else {
		fprintf(o, "stream %d: received %" PRIu64 ", lost %" PRIu64 ", reordered %" PRIu64
			", duplicated %" PRIu64 "\n", a->o.tx_port, st->seq.received, lost,
			st->seq.reordered, st->seq.duplicated);
	}
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

static int setup_port(struct unic_port *port, int idx, struct unic_pool *pool, unsigned mtu,
		      uint16_t rxd)
{
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1,
				    .rx_mode = UNIC_RX_MODE_POLL };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = rxd, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .numa_node = -1 };
	int r;

	if (mtu > 1500)
		c.mtu = (uint16_t)mtu;
	if ((r = unic_port_configure(port, &c)) || (r = unic_port_rx_queue_setup(port, 0, &rc)) ||
	    (r = unic_port_tx_queue_setup(port, 0, &tc)) || (r = unic_port_start(port))) {
		fprintf(stderr, "unic-pktgen: cannot set up port %d (%s)%s: %s (the message above says why)\n",
			idx, unic_port_name(port), c.mtu ? " for jumbo frames" : "", strerror(-r));
		return r;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct pg_app a;
	struct unic_env_options eo;
	struct unic_env *env = NULL;
	struct unic_pool *pool = NULL;
	struct unic_telemetry *tel = NULL;
	struct unic_port *ports[UNIC_PORT_MAX];
	struct unic_pkt *pend[BURST];
	unsigned pend_size[BURST], npend = 0, nports, max_size = 0, mtu;
	char err[512];
	int n, ret = PG_EXIT_FAIL;

	signals_install();
	n = unic_env_parse(&eo, argc, argv);
	if (n < 0)
		return PG_EXIT_USAGE;
	pg_opts_init(&a.o);
	if (pg_opts_parse(&a.o, n, argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "unic-pktgen: error: %s\n", err);
		return PG_EXIT_USAGE;
	}
	if (a.o.help) {
		pg_usage(stdout, "unic-pktgen");
		return PG_EXIT_OK;
	}
	a.out = a.o.csv && strcmp(a.o.csv, "-") == 0 ? stderr : stdout;
	if (a.o.replay) {
		if (pg_capture_load(&a.cap, a.o.replay, err, sizeof(err))) {
			fprintf(stderr, "unic-pktgen: error: option --replay: %s\n", err);
			return PG_EXIT_USAGE;
		}
		max_size = a.cap.max_len;
		mtu = a.cap.mtu_needed;
		if (a.o.count == 0 && a.o.duration == 0)
			a.o.count = a.cap.nb;   /* the capture once */
		if (setup_interrupted("after loading the capture"))
			goto out;
	} else {
		if (a.o.nb_sizes)
			for (unsigned i = 0; i < a.o.nb_sizes; i++)
				max_size = a.o.sizes[i] > max_size ? a.o.sizes[i] : max_size;
		else
			max_size = a.o.size_hi;
		mtu = max_size - PG_ETH_LEN - (a.o.vlan ? PG_VLAN_LEN : 0);
	}

	env = unic_env_create(&eo);
	if (env == NULL) {
		fprintf(stderr, "unic-pktgen: cannot set up the environment: %s (the message above says why)\n",
			strerror(errno));
		goto out;
	}
	/* Its line on stderr: stdout may carry --json or --csv. */
	if (app_telemetry_start(&eo, "pktgen", stderr, NULL, NULL, &tel) < 0)
		goto out;
	if (setup_interrupted("after creating the ports"))
		goto out;
	nports = unic_env_ports(env, ports, UNIC_PORT_MAX);
	if ((unsigned)a.o.tx_port >= nports || (unsigned)a.o.rx_port >= nports) {
		fprintf(stderr, "unic-pktgen: error: option %s: port %d does not exist; %u port(s) were created (0..%d: PCI devices, then --vdev in order)\n",
			(unsigned)a.o.tx_port >= nports ? "--tx-port" : "--rx-port",
			(unsigned)a.o.tx_port >= nports ? a.o.tx_port : a.o.rx_port, nports, (int)nports - 1);
		ret = PG_EXIT_USAGE;
		goto out;
	}
	a.tx = ports[a.o.tx_port];
	a.rx = ports[a.o.rx_port];

	{
		struct unic_port_info ti = { 0 }, ri = { 0 };
		struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "pktgen", .mem = unic_env_mem(env),
						  .cache_size = POOL_CACHE, .numa_node = -1 };

		unic_port_info_get(a.tx, &ti);
		unic_port_info_get(a.rx, &ri);
		if (ri.rx_synthetic) {
			fprintf(stderr, "unic-pktgen: error: option --rx-port: port %d (%s) cannot receive what was sent: its driver (%s) makes received packets up (old buffers, which may still hold this run's stamps), so received, lost and latency would be nonsense; receive on a port the frames reach, e.g. a ring pair (--vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1) or a NIC\n",
				a.o.rx_port, unic_port_name(a.rx), ri.driver);
			ret = PG_EXIT_USAGE;
			goto out;
		}
		if (a.cap.nb && (mtu > ti.max_mtu || mtu > ri.max_mtu)) {
			bool t = mtu > ti.max_mtu;

			fprintf(stderr, "unic-pktgen: error: option --replay: frame %u of '%s' is %u bytes (MTU %u); %s port %d (%s) allows an MTU of at most %u\n",
				a.cap.mtu_needed_idx + 1, a.o.replay, a.cap.len[a.cap.mtu_needed_idx], mtu,
				t ? "tx" : "rx", t ? a.o.tx_port : a.o.rx_port, unic_port_name(t ? a.tx : a.rx),
				t ? ti.max_mtu : ri.max_mtu);
			ret = PG_EXIT_USAGE;
			goto out;
		}
		/* Both ports' rx rings (the tx port's is set up too), the tx ring. */
		pc.count = (uint32_t)ti.tx_desc_default + 2u * (a.o.rxd ? a.o.rxd : ri.rx_desc_default) +
			   4 * BURST + 2 * POOL_CACHE * 2;
		if (pc.count < 4096)
			pc.count = 4096;
		/* Room for the MTU's frame as the port counts it (tag, FCS). */
		pc.dataroom = (uint16_t)(max_size + 64 > UNIC_PKT_DATAROOM_DEFAULT ? max_size + 64 : 0);
		pool = unic_pktpool_create(&pc);
		if (pool == NULL) {
			fprintf(stderr, "unic-pktgen: cannot create a pool of %u buffers: %s\n", pc.count,
				strerror(errno));
			goto out;
		}
	}
	if (setup_port(a.tx, a.o.tx_port, pool, mtu, a.o.rxd))
		goto out;
	if (a.rx != a.tx && setup_port(a.rx, a.o.rx_port, pool, mtu, a.o.rxd))
		goto out;
	if (a.o.promisc) {
		n = unic_port_promisc_set(a.rx, true);
		if (n) {
			fprintf(stderr, "unic-pktgen: cannot make rx port %d (%s) promiscuous (-P): %s\n",
				a.o.rx_port, unic_port_name(a.rx), strerror(-n));
			goto out;
		}
	}
	{
		struct unic_link l = { 0 };

		/* Up to 3 s, in slices a signal can end. */
		for (int i = 0; i < 30 && !g_signals && unic_port_link_get(a.tx, &l) == 0 && !l.up; i++)
			unic_port_link_wait(a.tx, 100, &l);
		a.link_mbps = l.up ? l.speed_mbps : 0;
		/* And the rx port, when it is another (a memif client still
		 * connecting): frames sent before it is up come back to no one. */
		if (a.rx != a.tx) {
			struct unic_link rl = { 0 };

			for (int i = 0; i < 30 && !g_signals && unic_port_link_get(a.rx, &rl) == 0 && !rl.up; i++)
				unic_port_link_wait(a.rx, 100, &rl);
		}
	}

	memset(a.tmpl.dst_mac, 0xff, 6);
	unic_port_mac_get(a.rx, a.tmpl.dst_mac);
	unic_port_mac_get(a.tx, a.tmpl.src_mac);
	a.tmpl.ipv6 = a.o.ipv6;
	a.tmpl.vlan = a.o.vlan;
	a.tmpl.vlan_tci = a.o.vid;
	a.tmpl.ttl = 64;
	a.hz = unic_tsc_hz();
	a.ns_per_cycle = 1e9 / (double)a.hz;
	if (pg_rate_init(&a.rate, &a.o.rate, a.hz, a.link_mbps, err, sizeof(err))) {
		fprintf(stderr, "unic-pktgen: error: %s\n", err);
		ret = PG_EXIT_USAGE;
		goto out;
	}
	pg_rxstats_init(&a.rs, (uint16_t)a.o.tx_port);
	pg_hist_init(&a.lat_sec);
	/* A chained received frame is made contiguous here to be parsed (and written). */
	a.scratch = malloc(PG_PCAP_SNAPLEN);
	if (a.scratch == NULL) {
		fprintf(stderr, "unic-pktgen: error: out of memory (%u bytes for the receive buffer)\n",
			PG_PCAP_SNAPLEN);
		ret = PG_EXIT_FAIL;
		goto out;
	}
	if (a.o.write_tx || a.o.write_rx) {
		const char *opt = a.o.write_tx ? "--write-tx" : "--write-rx";

		if (a.o.write_tx)
			a.wtx = pg_pcap_writer_open(a.o.write_tx, a.hz, unic_rdtsc(), err, sizeof(err));
		if (a.o.write_rx && (a.o.write_tx == NULL || a.wtx)) {
			opt = "--write-rx";
			a.wrx = pg_pcap_writer_open(a.o.write_rx, a.hz, unic_rdtsc(), err, sizeof(err));
		}
		if ((a.o.write_tx && a.wtx == NULL) || (a.o.write_rx && a.wrx == NULL)) {
			fprintf(stderr, "unic-pktgen: error: option %s: %s\n", opt, err);
			ret = PG_EXIT_USAGE;
			goto out;
		}
	}
	if (a.o.csv) {
		a.csv = strcmp(a.o.csv, "-") == 0 ? stdout : fopen(a.o.csv, "w");
		if (a.csv == NULL) {
			fprintf(stderr, "unic-pktgen: error: option --csv: cannot create '%s': %s\n", a.o.csv,
				strerror(errno));
			ret = PG_EXIT_USAGE;
			goto out;
		}
		pg_csv_header(a.csv);
	}
	if (setup_interrupted("before the run"))
		goto out;
	if (!a.o.json)
		fprintf(a.out, "unic-pktgen: tx port %d (%s) -> rx port %d (%s), TSC %.6f GHz, link %u Mbps\n",
			a.o.tx_port, unic_port_name(a.tx), a.o.rx_port, unic_port_name(a.rx),
			(double)a.hz / 1e9, a.link_mbps);
	if (!a.o.json && a.cap.nb)
		fprintf(a.out, "unic-pktgen: replay %s: %u frames, %" PRIu64 " bytes, largest %u; sending %" PRIu64 " frames%s\n",
			a.o.replay, a.cap.nb, a.cap.bytes, a.cap.max_len, a.o.count,
			a.o.count ? "" : " (until --duration)");
	fflush(a.out);  /* the run starts now: a reader of a pipe sees it */

	bool live = !a.o.json && isatty(STDERR_FILENO);
	uint64_t last_sent = 0, last_rx = 0, last_ns, next_status, drain_until = 0;

	a.t_start_ns = last_ns = a.last_take_ns = unic_time_ns();
	next_status = a.t_start_ns + 1000000000ull;
	pg_rate_start(&a.rate, unic_rdtsc());
	for (;;) {
		uint64_t now_ns = unic_time_ns();

		if (a.t_tx_end_ns == 0) {
			if (tx_done(&a, now_ns) && npend == 0) {
				a.t_tx_end_ns = now_ns;
				drain_until = now_ns + (uint64_t)(a.o.drain * 1e9);
			} else if (!g_stop || npend) {
				do_tx(&a, pool, pend, &npend, pend_size);
				if (npend && now_ns - a.last_take_ns > TX_STALL_NS && !a.stalled) {
					fprintf(stderr, "\nunic-pktgen: tx port %d (%s) took no frame for %.0f s (link down, or no peer?); stopping\n",
						a.o.tx_port, unic_port_name(a.tx), TX_STALL_NS / 1e9);
					a.stalled = true;
					g_stop = 1;
				}
				if (g_stop && npend)  /* interrupted: drop what the port did not take */
					drop_pending(&a, pend, &npend);
			}
		}
		poll_rx(&a);
		if (a.t_tx_end_ns) {
			if (a.rs.frames >= a.sent && a.sent > 0)
				break;
			if (now_ns >= drain_until || g_signals > 1)
				break;
		}
		if (now_ns >= next_status) {
			if (live)
				status_line(&a, now_ns, &last_sent, &last_rx, &last_ns);
			if (a.csv)
				csv_tick(&a, now_ns);
			next_status += 1000000000ull;
		}
	}
	a.t_end_ns = unic_time_ns();
	port_counts_get(a.tx, "hw_tx_good_packets", &a.txc);
	port_counts_get(a.rx, "hw_rx_good_packets", &a.rxc);
	if (live)
		fprintf(stderr, "\n");
	if (a.csv)
		csv_tick(&a, a.t_end_ns);  /* the part-second at the end */
	report(&a);
	ret = a.stalled ? PG_EXIT_FAIL : PG_EXIT_OK;
	if (a.sent > 0 && (a.cap.nb ? a.rs.frames : a.rs.stream.seq.received) == 0) {
		/* Nothing measured: a wrong port or a missing -P, far more often
		 * than a path that really lost everything. */
		fprintf(stderr, "unic-pktgen: none of the %" PRIu64 " frames sent came back on rx port %d (%s)",
			a.sent, a.o.rx_port, unic_port_name(a.rx));
		if (a.rs.frames)
			fprintf(stderr, "; it received %" PRIu64 " other frames (%" PRIu64 " without a valid stamp, %" PRIu64
				" stamped by another sender)", a.rs.frames, a.rs.no_stamp, a.rs.other_stream);
		fprintf(stderr, ". Check that the rx port is where the tx port's frames arrive (the cabling or the ring's peer=; "
			"behind unic-l2fwd, which rewrites the destination address, give -P) and that its link is up\n");
		ret = PG_EXIT_FAIL;
	}
out:
	unic_telemetry_stop(tel);
	drop_pending(&a, pend, &npend);
	{
		struct pg_pcap_writer *w[2] = { a.wtx, a.wrx };

		for (int i = 0; i < 2; i++)
			if (pg_pcap_writer_close(w[i], err, sizeof(err))) {
				fprintf(stderr, "unic-pktgen: error: option %s: %s\n",
					i ? "--write-rx" : "--write-tx", err);
				ret = PG_EXIT_FAIL;
			}
	}
	if (a.csv && a.csv != stdout && fclose(a.csv) != 0) {
		fprintf(stderr, "unic-pktgen: error: option --csv: writing '%s' failed: %s\n", a.o.csv,
			strerror(errno));
		ret = PG_EXIT_FAIL;
	}
	free(a.scratch);
	pg_capture_free(&a.cap);
	if (a.tx && unic_port_state(a.tx) == UNIC_PORT_STARTED)
		unic_port_stop(a.tx);
	if (a.rx && a.rx != a.tx && unic_port_state(a.rx) == UNIC_PORT_STARTED)
		unic_port_stop(a.rx);
	if (a.tx)
		unic_port_close(a.tx);
	if (a.rx && a.rx != a.tx)
		unic_port_close(a.rx);
	unic_pool_destroy(pool);
	unic_env_destroy(env);
	return ret;
}
