/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: send streams of stamped UDP, TCP or ICMP echo frames, each on
 * its tx port at its share of a paced rate, receive on their rx ports, and
 * report what came back of each stream: received, lost, reordered,
 * duplicated, latency percentiles. docs/pktgen.md.
 *
 * By default one thread does both, so the transmit and receive timestamps
 * come from the same core's TSC. With --txq/--rxq N, thread t (t = 0 is the
 * main thread) sends on tx queue t and receives on rx queue t of every port,
 * each a slice of the run (a copy of struct pg_app with its own streams'
 * sequence numbers, pacing at its share, counts); the main thread sums the
 * slices (published every 100 ms) for the screen, the line a second and
 * /pktgen/stats, and merges them at the end. Latency across cores needs an
 * invariant TSC (constant_tsc and nonstop_tsc); without one, a thread takes
 * latency only of the frames it sent itself.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <stdio.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/log.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "app_pool.h"
#include "arp.h"
#include "limit.h"
#include "app_telemetry.h"
#include "csv.h"
#include "live.h"
#include "pcap_io.h"
#include "pkt_build.h"
#include "pkt_parse.h"
#include "pktgen_opts.h"
#include "rate.h"
#include "rfc2544.h"
#include "rxstats.h"
#include "stream.h"
#include "stream_report.h"
#include "sweep.h"
#include "trial.h"

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
static bool g_key_quit;  /* the q key of the live screen stopped sending */

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
	sigaddset(&sa.sa_mask, SIGQUIT);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A Ctrl-\ or a closed terminal stops the run the same way, so the
	 * report is written and the terminal's mode restored (term_restore). */
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
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

/* The ports' own counters at the end of the run, to set beside ours. */
struct port_counts {
	bool ok, hw_ok;            /* stats_get / the hardware counter answered */
	struct unic_port_stats st;
	uint64_t hw;               /* hw_tx_good_packets (tx port), hw_rx_good_packets (rx port) */
};

/* A port the streams send on: its frames waiting for the port, and counts. */
struct pg_txp {
	int idx;
	struct unic_port *port;
	struct unic_pool *pool;    /* the port's own: frames to send are taken from it */
	uint32_t link_mbps;
	struct unic_pkt *pend[BURST];
	unsigned pend_size[BURST];
	uint16_t pend_stream[BURST];
	unsigned npend;
	uint64_t last_take_ns;     /* the port last took a frame */
	uint64_t full_bursts;      /* tx_burst calls it took fewer of than asked */
	unsigned streams[PG_MAX_STREAMS], nb_streams, rr;  /* its streams; the next to try */
	uint64_t sent, sent_bytes;
	struct port_counts c;
};

/* A port the streams receive on. */
struct pg_rxp {
	int idx;
	struct unic_port *port;
	uint64_t frames, bytes;
	struct port_counts c;
};

#define PG_RATE_CHANGES_MAX 16  /* rate changes the report lists (all are counted) */

/* What /pktgen/stats answers: the loop's counts, copied every 100 ms. */
struct pg_live_snap {
	pthread_mutex_t lock;
	double t_s;
	char rate[32];
	unsigned nb;
	uint64_t sent[PG_MAX_STREAMS], received[PG_MAX_STREAMS], lost[PG_MAX_STREAMS];
	uint64_t sent_all, rx_frames;
	unsigned nb_changes;
};

/*
 * A thread's counts as the main thread reads them while the run goes on
 * (pub_fill, every 100 ms under its lock) and their sum over the threads
 * (pub_add): the screen, the line a second, /pktgen/stats, the end of the
 * drain. q_expect/q_unique: per stream and tx queue, the highest sequence
 * number + 1 received and the distinct numbers received (lost so far is
 * their difference, summed; the highest over every rx thread).
 */
struct pg_pub {
	uint64_t sent, sent_bytes, rx_frames, rx_bytes;
	uint64_t rx_frame_bytes, no_stamp;  /* rxstats' bytes (frame lengths), frames without a stamp */
	uint64_t txp_sent[PG_MAX_STREAMS], txp_bytes[PG_MAX_STREAMS];
	uint64_t rxp_frames[PG_MAX_STREAMS], rxp_bytes[PG_MAX_STREAMS];
	uint64_t st_sent[PG_MAX_STREAMS], st_bytes[PG_MAX_STREAMS];
	uint64_t st_rx[PG_MAX_STREAMS], st_rx_bytes[PG_MAX_STREAMS];
	uint64_t q_expect[PG_MAX_STREAMS][PG_MAX_TXQ], q_unique[PG_MAX_STREAMS][PG_MAX_TXQ];
	struct pg_hist lat;        /* a worker's latency since the main thread took it */
	bool tx_over;
};

/* A worker thread (thread t >= 1) and its slice of the run. */
struct pg_thr {
	struct pg_app *a;
	pthread_mutex_t lock;
	struct pg_pub pub;
	bool launched;
};

/* The live screen's counts a second ago, for its rates. */
struct pg_screen_prev {
	uint64_t txp_sent[PG_MAX_STREAMS], txp_bytes[PG_MAX_STREAMS];
	uint64_t rxp_frames[PG_MAX_STREAMS], rxp_bytes[PG_MAX_STREAMS];
	uint64_t st_sent[PG_MAX_STREAMS], st_bytes[PG_MAX_STREAMS];
	uint64_t st_rx[PG_MAX_STREAMS], st_rx_bytes[PG_MAX_STREAMS];
	uint64_t sent, sent_bytes, rx, rx_bytes;
};

struct pg_app {
	struct pg_opts o;
	struct unic_port *tx, *rx;  /* stream 0's */
	struct pg_rate rate;        /* the whole --rate (stream 0's link for a percentage) */
	struct pg_stream_run sr[PG_MAX_STREAMS];
	unsigned nb_sr;
	struct pg_txp txp[PG_MAX_STREAMS];
	unsigned nb_txp;
	struct pg_rxp rxp[PG_MAX_STREAMS];
	unsigned nb_rxp;
	struct pg_hist *lat_sec_s; /* --csv with several streams: this second's latency, per stream */
	struct pg_csv_sample *csv_prev_s;
	struct pg_arp arp;          /* --arp-reply */
	uint64_t arp_frames;        /* ARP and neighbour discovery frames taken off the stream counts */
	uint64_t other_port_frames; /* --arp-reply: frames on a tx-only port that were no request */
	struct unic_port *ports[PG_MAX_PORTS];  /* every port a stream uses, once */
	struct unic_pool *pools[PG_MAX_PORTS];  /* each one's packet pool, as ports[] */
	int port_idx[PG_MAX_PORTS];
	unsigned nb_ports;
	uint64_t hz;
	double ns_per_cycle;
	/* transmit */
	uint64_t sent, sent_bytes, tx_full, alloc_fail;
	uint64_t tx_dropped;       /* built, never taken by the port, freed at stop */
	unsigned npend_all;        /* frames waiting for their ports, all tx ports */
	uint64_t tx_refused;       /* built, refused by the port (unic_tx_prepare), freed */
	int tx_refused_err;        /* the reason of the last one (-errno) */
	uint64_t t_start_ns, t_tx_end_ns, t_end_ns;
	/* The loops' clock: CLOCK_MONOTONIC ns from the TSC, the kernel's
	 * read about 10 times a second (in a guest on the HPET each kernel
	 * read is an exit into the hypervisor: docs/napi.md, "Poll mode in the
	 * rig: the clock"). Every _ns time of a session is on it. */
	struct unic_tsc_clock clk;
	/* receive */
	struct pg_rxstats rs;
	uint32_t link_mbps;
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
	/* A trial (trial.h; one stream): its measured part starts at sequence
	 * number seq_base; frames numbered below are not counted (stale). */
	bool epoch;
	uint32_t seq_base;
	uint64_t sent_mark, bytes_mark, stale;
	double start_real;         /* unix time of the measured part's start */
	struct port_counts txc, rxc;  /* stream 0's ports */
	/* While it runs: rate changes (live.h), the screen, /pktgen/stats. */
	int phase;                 /* atomic: 0 setting up, 1 sending (rates may change), 2 over */
	struct pg_rate_spec cur_rate; /* the whole rate now (--rate until changed) */
	struct pg_rate_req req;
	unsigned nb_changes;
	struct { double t_s; char text[32]; } changes[PG_RATE_CHANGES_MAX];
	struct pg_live_snap snap;
	struct pg_screen_prev prev;
	struct pg_screen scr;
	char msg[160];             /* the screen's message line */
	bool keys;                 /* stdin is a terminal in raw mode */
	/* Threads (--txq, --rxq; main.c's header). Thread q of nb_thr: this
	 * slice sends on tx queue q when tx_role, receives on rx queue q when
	 * rx_role. A worker's main_app is the main thread's app. */
	unsigned q, nb_thr;
	bool tx_role, rx_role;
	struct pg_app *main_app;
	struct pg_thr thr[PG_MAX_QUEUES];  /* the main's: [1..nb_thr-1] */
	int core;
	bool tsc_ok;               /* invariant TSC: latency across cores holds */
	char tsc_missing[48];      /* the flags /proc/cpuinfo lacks */
	uint64_t lat_skipped;      /* frames whose latency was not taken (another core, TSC not invariant) */
	/* This thread's sending: the generator-limit figures. */
	uint64_t bursts, full_bursts;  /* tx_burst calls; those that took fewer than asked */
	uint64_t idle_cycles;      /* loop time with nothing due (waiting for the pacer) */
	uint64_t tsc_tx0, tsc_tx1, cpu_tx0_ns, cpu_tx1_ns;
	bool worked;               /* this loop round built or sent a frame */
	int tx_over;               /* atomic: this thread's sending is over */
	/* The main's: rate changes for the workers (rate_gen bumps; workers
	 * read rate_now under rate_lock), their stop and start. */
	unsigned rate_gen;
	pthread_mutex_t rate_lock;
	struct pg_rate_spec rate_now;
	int wstop, wgo, wquit;     /* session generations (wgo starts one, wstop = wgo ends it); thread exit */
	int done_gen;              /* a worker's: the last session it finished */
	/* A trial with threads: tx queue q's measured part starts at its
	 * sequence number qbase[q] once qmarked[q] (docs: the sweep). */
	bool trial;
	uint64_t warmup_ns;
	uint32_t qbase[PG_MAX_QUEUES];
	int qmarked[PG_MAX_QUEUES];
	struct pg_pub tot;         /* the sum of every thread's counts (pub_total) */
	struct pg_hist lat_tot;    /* the workers' latency since the screen last took it */
	struct pg_thr_stat tst[PG_MAX_QUEUES];
	bool lines;                /* a line a second (not a terminal) */
	bool merged;               /* the workers' counts are in this app's own */
	struct unic_env *env;
};

static uint32_t stream_link(const struct pg_app *a, const struct pg_stream_run *sr);
static int worker_main(void *arg);
static void pub_fill(const struct pg_app *a, struct pg_pub *p);
static void pub_total(struct pg_app *a);
static uint64_t pub_lost(const struct pg_app *a, const struct pg_pub *p, unsigned i);

/*
 * A trial with threads: a frame of stream 0 from tx queue q counts once q's
 * thread has marked the start of its measured part and the frame is
 * numbered from that mark on (warm-up frames and late ones of an earlier
 * trial are below it). Every thread's counts were reset when the trial
 * started, so which thread marks first does not matter.
 */
static bool trial_frame_stale_q(const struct pg_app *a, enum pg_parse_result r, const struct pg_stamp *s)
{
	const struct pg_app *m = a->main_app ? a->main_app : a;
	unsigned q = a->o.txq > 1 ? s->stream >> PG_STAMP_QUEUE_SHIFT : 0;

	if (!m->trial || r != PG_PARSE_OK || (s->stream & ((1u << PG_STAMP_QUEUE_SHIFT) - 1)) != a->rs.stream_id ||
	    q >= a->o.txq)
		return false;
	if (!__atomic_load_n(&m->qmarked[q], __ATOMIC_ACQUIRE))
		return true;
	return !pg_trial_seq_counts(m->qbase[q], s->seq);
}

static void port_counts_get(struct unic_port *port, const char *hw_name, struct port_counts *c)
{
	memset(c, 0, sizeof(*c));
	c->ok = unic_port_stats_get(port, &c->st) == 0;
	c->hw_ok = unic_port_xstat_by_name(port, hw_name, &c->hw) == 0;
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
	enum pg_parse_result r = pg_pkt_parse(p, a->scratch, PG_PCAP_SNAPLEN, &pp);

	/* A trial's warm-up, or a late frame of an earlier trial: not counted. */
	if (a->nb_thr > 1 ? trial_frame_stale_q(a, r, &pp.stamp)
			  : pg_trial_frame_stale(a->epoch, a->seq_base, a->rs.stream_id, r, &pp.stamp)) {
		a->stale++;
		return;
	}
	st = pg_rxstats_frame(&a->rs, p->pkt_len, r, &pp.stamp);
	if (st == NULL)
		return;
	pg_stream_seq_add(st, a->rs.last_q, pp.stamp.seq);
	st->bytes += p->pkt_len;
	if (a->nb_thr > 1 && !a->tsc_ok && a->rs.last_q != a->q) {
		/* Sent by another thread, on another core, whose TSC need not
		 * agree with ours: no latency (docs/pktgen.md, "Threads"). */
		a->lat_skipped++;
		return;
	}
	if (now_tsc >= pp.stamp.tsc) {
		uint64_t ns = (uint64_t)((double)(now_tsc - pp.stamp.tsc) * a->ns_per_cycle);

		pg_hist_add(&st->lat_ns, ns);
		if (a->csv || a->main_app)
			pg_hist_add(&a->lat_sec, ns);
		if (a->lat_sec_s)
			pg_hist_add(&a->lat_sec_s[a->rs.last], ns);
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

/* @p port's packet pool. */
static struct unic_pool *port_pool(const struct pg_app *a, const struct unic_port *port)
{
	for (unsigned k = 0; k < a->nb_ports; k++)
		if (a->ports[k] == port)
			return a->pools[k];
	return NULL;
}

/* --arp-reply: an ARP or neighbour discovery frame (answered if ours, from
 * the port's own pool) is not stream traffic. */
static bool arp_frame(struct pg_app *a, struct unic_port *port, int idx, const struct unic_pkt *p)
{
	if (!a->o.arp_reply || !pg_arp_handle(&a->arp, port, idx, p, port_pool(a, port)))
		return false;
	a->arp_frames++;
	return true;
}

static void poll_rx(struct pg_app *a)
{
	for (unsigned r = 0; r < a->nb_rxp; r++) {
		struct unic_pkt *pk[BURST];
		uint16_t n = a->rx_role ? unic_rx_burst(a->rxp[r].port, (uint16_t)a->q, pk, BURST) : 0;
		uint64_t now = unic_rdtsc();

		for (uint16_t i = 0; i < n; i++) {
			if (a->wrx)
				write_rx(a, pk[i], now);
			if (arp_frame(a, a->rxp[r].port, a->rxp[r].idx, pk[i]))
				continue;
			a->rxp[r].frames++;
			a->rxp[r].bytes += pg_link_bytes(pk[i]->pkt_len);
			rx_frame(a, pk[i], now);
		}
		if (n)
			unic_pkt_free_bulk(pk, n);
	}
	/* --arp-reply: the ports that only send hear requests too. */
	for (unsigned k = 0; a->o.arp_reply && k < a->nb_ports; k++) {
		struct unic_pkt *pk[BURST];
		bool rx = false;
		uint16_t n;

		for (unsigned r = 0; r < a->nb_rxp; r++)
			rx |= a->rxp[r].port == a->ports[k];
		if (rx)
			continue;
		n = unic_rx_burst(a->ports[k], 0, pk, BURST);
		for (uint16_t i = 0; i < n; i++)
			if (!arp_frame(a, a->ports[k], a->port_idx[k], pk[i]))
				a->other_port_frames++;
		if (n)
			unic_pkt_free_bulk(pk, n);
	}
}

static bool tx_done(const struct pg_app *a, uint64_t now_ns)
{
	if (g_stop)
		return true;
	/* --count frames built: sent, or refused by the port (never retried). */
	if (!a->tx_role || (a->o.count && a->sent + a->tx_refused >= a->o.count))
		return true;
	return a->o.duration > 0 && (double)(now_ns - a->t_start_ns) >= a->o.duration * 1e9;
}

/* The stream of tx port @p t due next (its streams in turn), or NULL. */
static struct pg_stream_run *next_due(struct pg_app *a, struct pg_txp *t, uint64_t now)
{
	for (unsigned k = 0; k < t->nb_streams; k++) {
		unsigned pos = (t->rr + k) % t->nb_streams;
		struct pg_stream_run *sr = &a->sr[t->streams[pos]];

		if (pg_rate_due(&sr->rate, now)) {
			t->rr = (pos + 1) % t->nb_streams;
			return sr;
		}
	}
	return NULL;
}

/* Build and send the frames due now on tx port @p t. */
static void do_tx(struct pg_app *a, struct pg_txp *t)
{
	struct unic_pkt **pend = t->pend;
	unsigned *pend_size = t->pend_size, *npend = &t->npend;
	uint64_t now = unic_rdtsc();
	unsigned n = *npend;
	uint16_t took;

	while (n < BURST && !(a->o.count && a->sent + a->tx_refused + a->npend_all + n - *npend >= a->o.count)) {
		struct pg_stream_run *sr = a->cap.nb ? &a->sr[0] : next_due(a, t, now);
		struct unic_pkt *p;
		unsigned size;
		uint8_t *d;

		if (sr == NULL || (a->cap.nb && !pg_rate_due(&a->rate, now)))
			break;
		p = unic_pkt_alloc(t->pool);
		if (p == NULL) {
			a->alloc_fail++;
			break;
		}
		size = a->cap.nb ? a->cap.len[a->cap_idx] : pg_stream_next_size(sr);
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
			struct pg_stamp s = { .magic = PG_STAMP_MAGIC, .stream = sr->id };

			pg_stream_next_flow(sr, &f);
			if (a->o.txq > 1) {  /* the queues take turns over the flows */
				pg_stream_skip_flows(sr, a->o.txq - 1);
				s.stream = (uint16_t)(sr->id | a->q << PG_STAMP_QUEUE_SHIFT);
			}
			s.seq = sr->seq++;
			s.tsc = unic_rdtsc();
			pg_frame_build(d, size, &sr->tmpl, &f, &s);
		}
		pend[n] = p;
		pend_size[n] = size;
		t->pend_stream[n] = (uint16_t)(sr - a->sr);
		n++;
		pg_rate_sent(a->cap.nb ? &a->rate : &sr->rate, size, now);
	}
	/* The new frames (the pending ones passed already) go through the
	 * port's checks once: a refused frame is freed and counted, never
	 * sent, recorded or retried; the frames after it go on. */
	for (unsigned i = *npend; i < n;) {
		int err;
		uint16_t ok = unic_tx_prepare(t->port, (uint16_t)a->q, pend + i, (uint16_t)(n - i), &err);

		i += ok;
		if (UNIC_LIKELY(i == n))
			break;
		unic_pkt_free(pend[i]);
		a->tx_refused++;
		a->sr[t->pend_stream[i]].refused++;
		a->tx_refused_err = err;
		memmove(pend + i, pend + i + 1, (n - i - 1) * sizeof(*pend));
		memmove(pend_size + i, pend_size + i + 1, (n - i - 1) * sizeof(*pend_size));
		memmove(t->pend_stream + i, t->pend_stream + i + 1, (n - i - 1) * sizeof(*t->pend_stream));
		n--;
	}
	a->npend_all += n - *npend;
	if (n == 0) {
		*npend = 0;
		return;
	}
	/* Recorded before the port owns them (a port may free a frame at once);
	 * records of frames never taken are cut off at the end (pend_pos). */
	if (a->wtx && a->npend_written < n) {
		uint64_t tsc = unic_rdtsc();

		if (a->npend_written == 0)
			a->pend_pos = pg_pcap_writer_tell(a->wtx);
		for (unsigned i = a->npend_written; i < n; i++)
			pg_pcap_write(a->wtx, unic_pkt_data(pend[i]), pend[i]->data_len, tsc);
		a->npend_written = n;
	}
	took = unic_tx_burst(t->port, (uint16_t)a->q, pend, (uint16_t)n);
	a->worked = true;
	a->bursts++;
	if (took < n) {
		a->full_bursts++;
		t->full_bursts++;
	}
	for (unsigned i = 0; i < took; i++) {
		struct pg_stream_run *sr = &a->sr[t->pend_stream[i]];
		uint64_t b = pg_link_bytes(pend_size[i]);

		a->sent++;
		a->sent_bytes += b;
		t->sent++;
		t->sent_bytes += b;
		sr->sent++;
		sr->sent_bytes += b;
	}
	a->npend_all -= took;
	if (a->wtx) {  /* pend_pos moves past the records of the frames taken */
		for (unsigned i = 0; i < took; i++)
			a->pend_pos += 16 + (pend_size[i] < PG_PCAP_SNAPLEN ? pend_size[i] : PG_PCAP_SNAPLEN);
		a->npend_written = n - took;
	}
	if (took < n) {  /* ring full: kept for the next round, counted */
		a->tx_full += n - took;
		memmove(pend, pend + took, (n - took) * sizeof(*pend));
		memmove(pend_size, pend_size + took, (n - took) * sizeof(*pend_size));
		memmove(t->pend_stream, t->pend_stream + took, (n - took) * sizeof(*t->pend_stream));
	}
	*npend = n - took;
	if (took)
		t->last_take_ns = unic_tsc_clock_ns(&a->clk);
}

/* Drop the frames the port never took; their records leave the tx capture. */
static void drop_pending(struct pg_app *a, struct pg_txp *t)
{
	struct unic_pkt **pend = t->pend;
	unsigned *npend = &t->npend;

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
	a->npend_all -= *npend;
	*npend = 0;
}

static void drop_all_pending(struct pg_app *a)
{
	for (unsigned k = 0; k < a->nb_txp; k++)
		drop_pending(a, &a->txp[k]);
}

/* Lost so far over every stream: gaps below each one's highest number. */
static uint64_t lost_so_far(const struct pg_app *a)
{
	uint64_t lost = 0;

	for (unsigned i = 0; i < a->rs.nb_streams; i++)
		lost += pg_seq_lost(&a->rs.streams[i]->seq, 0);
	return lost;
}

static void csv_tick(struct pg_app *a, uint64_t now_ns)
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
			pub_total(a);
			s.tx_frames = T->sent;
			s.tx_bytes = T->sent_bytes;
			s.rx_frames = T->rx_frames;
			s.rx_bytes = T->rx_frame_bytes;
			s.no_stamp = T->no_stamp;
			s.lost = pub_lost(a, T, 0);
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

static void report(struct pg_app *a)
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
		       a->alloc_fail, a->tx_dropped, a->tx_refused, (int)g_signals, tx_s, pps, l2, wire);
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
	if (g_key_quit && !g_signals)
		fprintf(o, "stopped by the q key after %.3f s of sending\n", tx_s);
	if (g_signals)
		fprintf(o, "stopped by a signal after %.3f s of sending%s\n", tx_s,
			g_signals > 1 ? "; a second one ended the wait for frames in flight (those not back count as lost)" : "");
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
static uint64_t stream_frames_back(const struct pg_app *a)
{
	uint64_t n = 0;

	for (unsigned i = 0; i < a->rs.nb_streams; i++)
		n += a->rs.streams[i]->seq.received;
	return n;
}

static void add_port(struct pg_app *a, struct unic_port *p, int idx)
{
	for (unsigned k = 0; k < a->nb_ports; k++)
		if (a->ports[k] == p)
			return;
	a->ports[a->nb_ports] = p;
	a->port_idx[a->nb_ports++] = idx;
}

/* The streams' generators, their tx and rx ports (each once), their MACs. */
static int setup_streams(struct pg_app *a, struct unic_port **ports)
{
	a->nb_sr = a->o.nb_streams;
	for (unsigned i = 0; i < a->nb_sr; i++) {
		const struct pg_stream_spec *sp = &a->o.streams[i];
		struct pg_stream_run *sr = &a->sr[i];
		struct pg_txp *t = NULL;
		unsigned k;

		/* The single-stream run's id is its tx port (as before streams);
		 * with --stream, the stream's index. */
		pg_stream_run_init(sr, sp, a->nb_sr == 1 && a->o.legacy_stream ? (uint16_t)sp->tx_port
									     : (uint16_t)i);
		for (k = 0; k < a->nb_txp && a->txp[k].idx != sp->tx_port; k++)
			;
		t = &a->txp[k];
		if (k == a->nb_txp) {
			a->nb_txp++;
			t->idx = sp->tx_port;
			t->port = ports[sp->tx_port];
		}
		t->streams[t->nb_streams++] = i;
		for (k = 0; k < a->nb_rxp && a->rxp[k].idx != sp->rx_port; k++)
			;
		if (k == a->nb_rxp) {
			a->rxp[k].idx = sp->rx_port;
			a->rxp[k].port = ports[sp->rx_port];
			a->nb_rxp++;
		}
		add_port(a, ports[sp->tx_port], sp->tx_port);
		add_port(a, ports[sp->rx_port], sp->rx_port);
		/* MACs: the stream's own, else --src-mac/--dst-mac of its tx port,
		 * else the tx port's address and the rx port's. */
		memset(sr->tmpl.dst_mac, 0xff, 6);
		if (sp->src_mac_given)
			memcpy(sr->tmpl.src_mac, sp->src_mac, 6);
		else if (a->o.src_mac_set & (1ull << sp->tx_port))
			memcpy(sr->tmpl.src_mac, a->o.src_mac[sp->tx_port], 6);
		else
			unic_port_mac_get(ports[sp->tx_port], sr->tmpl.src_mac);
		if (sp->dst_mac_given)
			memcpy(sr->tmpl.dst_mac, sp->dst_mac, 6);
		else if (a->o.dst_mac_set & (1ull << sp->tx_port))
			memcpy(sr->tmpl.dst_mac, a->o.dst_mac[sp->tx_port], 6);
		else
			unic_port_mac_get(ports[sp->rx_port], sr->tmpl.dst_mac);
	}
	pg_arp_init(&a->arp);
	for (unsigned i = 0; a->o.arp_reply && i < a->nb_sr; i++) {
		const struct pg_stream_spec *sp = a->sr[i].spec;
		uint8_t rx_mac[6];

		unic_port_mac_get(ports[sp->rx_port], rx_mac);
		if (pg_arp_add(&a->arp, sp->tx_port, sp->ipv6, &sp->src_ip, a->sr[i].tmpl.src_mac) ||
		    pg_arp_add(&a->arp, sp->rx_port, sp->ipv6, &sp->dst_ip, rx_mac)) {
			fprintf(stderr, "unic-pktgen: error: option --arp-reply: more than %d address ranges to answer for\n",
				PG_ARP_MAX);
			return -ENOSPC;
		}
	}
	if (a->nb_txp > 1 && a->o.write_tx) {
		fprintf(stderr, "unic-pktgen: error: option --write-tx: the streams send on %u tx ports; --write-tx records one (give streams on one tx port, or --write-rx)\n",
			a->nb_txp);
		return -EINVAL;
	}
	return 0;
}

/* Each stream's pacing: its share of --rate; and no tx port's streams past
 * its link (when the link speed is known). */
static int streams_rates_init(struct pg_app *a, char *err, size_t errlen)
{
	for (unsigned i = 0; i < a->nb_sr; i++) {
		struct pg_stream_run *sr = &a->sr[i];
		struct pg_rate_spec rs = a->o.rate;
		uint32_t link = 0;

		for (unsigned k = 0; k < a->nb_txp; k++)
			if (a->txp[k].idx == sr->spec->tx_port)
				link = a->txp[k].link_mbps;
		rs.value = rs.value * sr->spec->share / 100;
		if (pg_rate_init(&sr->rate, &rs, a->hz, link, err, errlen))
			return -EINVAL;
	}
	if (a->o.rate.unit == PG_RATE_NONE || a->cap.nb)
		return 0;
	for (unsigned k = 0; k < a->nb_txp; k++) {
		const struct pg_txp *t = &a->txp[k];

		if (pg_streams_link_check(a->sr, t->streams, t->nb_streams, t->idx, unic_port_name(t->port),
					  t->link_mbps, err, errlen))
			return -EINVAL;
	}
	return 0;
}

/* Several tx queues: each thread paces its stream's share over the queues
 * (the whole was checked against the link). */
static void streams_rates_split(struct pg_app *a)
{
	char err[256];

	for (unsigned i = 0; a->o.txq > 1 && i < a->nb_sr; i++) {
		struct pg_rate_spec rs = pg_rate_share(&a->o.rate, a->sr[i].spec->share / a->o.txq);

		pg_rate_init(&a->sr[i].rate, &rs, a->hz, stream_link(a, &a->sr[i]), err, sizeof(err));
	}
}

/* The receive side: a stream table entry per stream (the first is built
 * in), and the per-stream CSV state. */
static int streams_rx_init(struct pg_app *a, char *err, size_t errlen)
{
	pg_rxstats_init(&a->rs, a->sr[0].id);
	for (unsigned i = 1; i < a->nb_sr; i++) {
		int r = pg_rxstats_add_stream(&a->rs, a->sr[i].id);

		if (r < 0) {
			snprintf(err, errlen, "stream %u: cannot add its receive statistics: %s", i, strerror(-r));
			return r;
		}
	}
	if (a->o.txq > 1) {  /* a sequence per tx queue (rxstats.h) */
		int r = pg_rxstats_set_queues(&a->rs, a->o.txq);

		if (r < 0) {
			snprintf(err, errlen, "option --txq %u: cannot keep a sequence per queue: %s", a->o.txq,
				 strerror(-r));
			return r;
		}
	}
	if (a->o.csv && a->nb_sr > 1) {
		a->lat_sec_s = malloc(a->nb_sr * sizeof(*a->lat_sec_s));
		a->csv_prev_s = calloc(a->nb_sr, sizeof(*a->csv_prev_s));
		if (a->lat_sec_s == NULL || a->csv_prev_s == NULL) {
			snprintf(err, errlen, "out of memory for the per-stream --csv rows");
			return -ENOMEM;
		}
		for (unsigned i = 0; i < a->nb_sr; i++)
			pg_hist_init(&a->lat_sec_s[i]);
	}
	return 0;
}

static void streams_header(const struct pg_app *a)
{
	fprintf(a->out, "unic-pktgen: %u streams, TSC %.6f GHz\n", a->nb_sr, (double)a->hz / 1e9);
	for (unsigned i = 0; i < a->nb_sr; i++) {
		const struct pg_stream_run *sr = &a->sr[i];
		char label[128];
		uint32_t link = 0;

		for (unsigned k = 0; k < a->nb_txp; k++)
			if (a->txp[k].idx == sr->spec->tx_port)
				link = a->txp[k].link_mbps;
		pg_stream_label(sr, label, sizeof(label));
		fprintf(a->out, "unic-pktgen: stream %u: %s, share %.3g%%, link %u Mbps\n", sr->id, label,
			sr->spec->share, link);
	}
}

static double real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A trial's measured part starts: the next frame built gets the base
 * sequence number; what was built before (the warm-up, including frames
 * still pending for the port) is not counted on either side. A trial runs
 * one stream (the options refuse --stream with --sweep or --rfc2544).
 */
static void trial_mark(struct pg_app *a, uint64_t now_ns)
{
	if (a->nb_thr > 1) {  /* this thread's queue: its base, then the mark (trial_frame_stale_q) */
		struct pg_app *m = a->main_app ? a->main_app : a;

		a->sent_mark = a->sent + a->npend_all;
		m->qbase[a->q] = a->sr[0].seq;
		__atomic_store_n(&m->qmarked[a->q], 1, __ATOMIC_RELEASE);
		a->epoch = true;
		a->t_start_ns = now_ns;
		a->start_real = real_now();
		return;
	}
	a->sent_mark = a->sent + a->npend_all;
	a->bytes_mark = a->sent_bytes;
	for (unsigned k = 0; k < a->nb_txp; k++)
		for (unsigned i = 0; i < a->txp[k].npend; i++)
			a->bytes_mark += pg_link_bytes(a->txp[k].pend_size[i]);
	a->seq_base = a->sr[0].seq;
	a->epoch = true;
	a->stale = 0;
	pg_rxstats_init(&a->rs, a->rs.stream_id);
	a->t_start_ns = now_ns;
	a->start_real = real_now();
}

/* Every frame of the measured part is back (or, for a run, every frame). */
static bool all_back(const struct pg_app *a)
{
	if (a->epoch)
		return a->sent > a->sent_mark && a->rs.stream.seq.unique >= a->sent - a->sent_mark;
	return a->rs.frames >= a->sent && a->sent > 0;
}

/* The tx port of stream @p sr: its link speed. */
static uint32_t stream_link(const struct pg_app *a, const struct pg_stream_run *sr)
{
	for (unsigned k = 0; k < a->nb_txp; k++)
		if (a->txp[k].idx == sr->spec->tx_port)
			return a->txp[k].link_mbps;
	return 0;
}

/*
 * Can the run change to rate @p spec? Every stream's share of it is paced
 * as at start, and no tx port's streams go past its link. Reads only what
 * is fixed once the run starts (specs, ids, links): any thread may ask.
 */
static int rate_check(const struct pg_app *a, const struct pg_rate_spec *spec, char *err, size_t errlen)
{
	static __thread struct pg_stream_run tmp[PG_MAX_STREAMS];
	struct pg_rate r;

	if (pg_rate_init(&r, spec, a->hz, a->link_mbps, err, errlen))
		return -EINVAL;
	if (a->cap.nb)
		return 0;
	for (unsigned i = 0; i < a->nb_sr; i++) {
		struct pg_rate_spec s = pg_rate_share(spec, a->sr[i].spec->share);

		tmp[i].spec = a->sr[i].spec;
		tmp[i].id = a->sr[i].id;
		if (pg_rate_init(&tmp[i].rate, &s, a->hz, stream_link(a, &a->sr[i]), err, errlen))
			return -EINVAL;
	}
	for (unsigned k = 0; spec->unit != PG_RATE_NONE && k < a->nb_txp; k++) {
		const struct pg_txp *t = &a->txp[k];

		if (pg_streams_link_check(tmp, t->streams, t->nb_streams, t->idx, unic_port_name(t->port),
					  t->link_mbps, err, errlen))
			return -EINVAL;
	}
	return 0;
}

/* The sending loop's side: every stream paced at its share of @p spec
 * from now on (checked by rate_check), and the change recorded. */
/* This thread's streams paced at their share of @p spec, split over the tx
 * queues (each thread paces its own share). */
static void rate_apply_slice(struct pg_app *a, const struct pg_rate_spec *spec)
{
	char err[256];
	uint64_t now = unic_rdtsc();

	pg_rate_init(&a->rate, spec, a->hz, a->link_mbps, err, sizeof(err));
	pg_rate_start(&a->rate, now);
	for (unsigned i = 0; i < a->nb_sr; i++) {
		struct pg_rate_spec s = pg_rate_share(spec, a->sr[i].spec->share / a->o.txq);

		pg_rate_init(&a->sr[i].rate, &s, a->hz, stream_link(a, &a->sr[i]), err, sizeof(err));
		pg_rate_start(&a->sr[i].rate, now);
	}
	a->cur_rate = *spec;
}

static void rate_apply(struct pg_app *a, const struct pg_rate_spec *spec, uint64_t now_ns)
{
	rate_apply_slice(a, spec);
	if (a->nb_thr > 1) {  /* every worker takes it at its next round */
		pthread_mutex_lock(&a->rate_lock);
		a->rate_now = *spec;
		pthread_mutex_unlock(&a->rate_lock);
		__atomic_add_fetch(&a->rate_gen, 1, __ATOMIC_RELEASE);
	}
	if (a->nb_changes < PG_RATE_CHANGES_MAX) {
		a->changes[a->nb_changes].t_s = (double)(now_ns - a->t_start_ns) / 1e9;
		pg_rate_spec_format(spec, a->changes[a->nb_changes].text, sizeof(a->changes[0].text));
	}
	a->nb_changes++;
}

static bool rate_owned(const struct pg_app *a)
{
	return a->o.bench.sweep_arg || a->o.bench.mode != PG_RFC2544_NONE;
}

/* /pktgen/rate,VALUE: check it here, hand it to the loop (live.h). */
static int tel_rate(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct pg_app *a = arg;
	struct pg_rate_spec spec;
	char err[512], text[32];
	const char *msg;
	int phase = __atomic_load_n(&a->phase, __ATOMIC_ACQUIRE);

	(void)cmd;
	if (rate_owned(a)) {
		unic_tel_out_error(out, "/pktgen/rate: this run is a %s, which sets the rate of each trial itself; the rate cannot be changed",
				   a->o.bench.sweep_arg ? "--sweep" : "--rfc2544 search");
		return -EBUSY;
	}
	if (param[0] == '\0') {
		unic_tel_out_error(out, "/pktgen/rate: give the new rate after a comma, in --rate's forms: /pktgen/rate,50kpps, /pktgen/rate,100Mbps, /pktgen/rate,10%%");
		return -EINVAL;
	}
	if (phase != 1) {
		unic_tel_out_error(out, "/pktgen/rate,%s: %s", param,
				   phase == 0 ? "the run is not sending yet (setting up); ask again once it sends"
					      : "the run has stopped sending");
		return -EAGAIN;
	}
	if (pg_rate_parse(param, &spec, err, sizeof(err)) || rate_check(a, &spec, err, sizeof(err))) {
		msg = strncmp(err, "option --rate: ", 15) == 0 ? err + 15 : err;
		unic_tel_out_error(out, "/pktgen/rate,%s: %s", param, msg);
		return -EINVAL;
	}
	pg_rate_spec_format(&spec, text, sizeof(text));
	pg_rate_req_put(&a->req, &spec, text);
	unic_tel_out_printf(out, "{\"rate\":");
	unic_tel_out_str(out, text);
	unic_tel_out_printf(out, "}");
	return 0;
}

/* /pktgen/stats: the counts of each stream as of the last copy (100 ms). */
static int tel_stats(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct pg_app *a = arg;
	struct pg_live_snap *s = &a->snap;

	(void)cmd;
	(void)param;
	if (rate_owned(a)) {
		unic_tel_out_error(out, "/pktgen/stats: this run is a %s; its trials are reported when each ends, /pktgen/stats covers a run at one rate",
				   a->o.bench.sweep_arg ? "--sweep" : "--rfc2544 search");
		return -EBUSY;
	}
	if (__atomic_load_n(&a->phase, __ATOMIC_ACQUIRE) == 0) {
		unic_tel_out_error(out, "/pktgen/stats: the run is not sending yet (setting up)");
		return -EAGAIN;
	}
	pthread_mutex_lock(&s->lock);
	unic_tel_out_printf(out, "{\"seconds\":%.3f,\"rate\":", s->t_s);
	unic_tel_out_str(out, s->rate);
	unic_tel_out_printf(out, ",\"rate_changes\":%u,\"sent\":%" PRIu64 ",\"rx_frames\":%" PRIu64 ",\"streams\":[",
			    s->nb_changes, s->sent_all, s->rx_frames);
	for (unsigned i = 0; i < s->nb; i++)
		unic_tel_out_printf(out, "%s{\"stream\":%u,\"sent\":%" PRIu64 ",\"received\":%" PRIu64
				    ",\"lost\":%" PRIu64 "}", i ? "," : "", a->sr[i].id, s->sent[i],
				    s->received[i], s->lost[i]);
	unic_tel_out_printf(out, "]}");
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static void tel_register(struct unic_telemetry *tel, void *arg)
{
	unic_telemetry_register(tel, "/pktgen/rate", tel_rate, arg,
				"Change the rate while it sends, in --rate's forms: /pktgen/rate,50kpps (streams keep their shares)");
	unic_telemetry_register(tel, "/pktgen/stats", tel_stats, arg,
				"Frames sent, received and lost so far, per stream (copied every 100 ms)");
}

/* This thread's counts into @p p (all but the latency). */
static void pub_fill(const struct pg_app *a, struct pg_pub *p)
{
	unsigned nq = a->o.txq;

	p->sent = a->sent;
	p->sent_bytes = a->sent_bytes;
	p->rx_frames = a->rs.frames;
	p->rx_frame_bytes = a->rs.bytes;
	p->no_stamp = a->rs.no_stamp;
	p->rx_bytes = 0;
	for (unsigned k = 0; k < a->nb_txp; k++) {
		p->txp_sent[k] = a->txp[k].sent;
		p->txp_bytes[k] = a->txp[k].sent_bytes;
	}
	for (unsigned k = 0; k < a->nb_rxp; k++) {
		p->rxp_frames[k] = a->rxp[k].frames;
		p->rxp_bytes[k] = a->rxp[k].bytes;
		p->rx_bytes += a->rxp[k].bytes;
	}
	for (unsigned i = 0; i < a->nb_sr && i < a->rs.nb_streams; i++) {
		const struct pg_stream_stats *st = a->rs.streams[i];

		p->st_sent[i] = a->sr[i].sent;
		p->st_bytes[i] = a->sr[i].sent_bytes;
		p->st_rx[i] = st->seq.received;
		p->st_rx_bytes[i] = st->bytes;
		for (unsigned q = 0; q < nq; q++) {
			const struct pg_seq *x = pg_stream_qseq(st, q);

			p->q_expect[i][q] = x->any ? x->highest + 1 : 0;
			p->q_unique[i][q] = x->unique;
		}
	}
	p->tx_over = __atomic_load_n(&a->tx_over, __ATOMIC_ACQUIRE);
}

/* Another thread's counts added: the highest sequence numbers the larger. */
static void pub_add(const struct pg_app *a, struct pg_pub *d, const struct pg_pub *x)
{
	d->sent += x->sent;
	d->sent_bytes += x->sent_bytes;
	d->rx_frames += x->rx_frames;
	d->rx_bytes += x->rx_bytes;
	d->rx_frame_bytes += x->rx_frame_bytes;
	d->no_stamp += x->no_stamp;
	for (unsigned k = 0; k < a->nb_txp; k++) {
		d->txp_sent[k] += x->txp_sent[k];
		d->txp_bytes[k] += x->txp_bytes[k];
	}
	for (unsigned k = 0; k < a->nb_rxp; k++) {
		d->rxp_frames[k] += x->rxp_frames[k];
		d->rxp_bytes[k] += x->rxp_bytes[k];
	}
	for (unsigned i = 0; i < a->nb_sr; i++) {
		d->st_sent[i] += x->st_sent[i];
		d->st_bytes[i] += x->st_bytes[i];
		d->st_rx[i] += x->st_rx[i];
		d->st_rx_bytes[i] += x->st_rx_bytes[i];
		for (unsigned q = 0; q < a->o.txq; q++) {
			if (x->q_expect[i][q] > d->q_expect[i][q])
				d->q_expect[i][q] = x->q_expect[i][q];
			d->q_unique[i][q] += x->q_unique[i][q];
		}
	}
	d->tx_over = d->tx_over && x->tx_over;
}

/* Stream @p i's frames lost so far: each tx queue's gaps. */
static uint64_t pub_lost(const struct pg_app *a, const struct pg_pub *p, unsigned i)
{
	uint64_t lost = 0;

	for (unsigned q = 0; q < a->o.txq; q++)
		if (p->q_expect[i][q] > p->q_unique[i][q])
			lost += p->q_expect[i][q] - p->q_unique[i][q];
	return lost;
}

/* a->tot: every thread's counts (the main's now, the workers' as last
 * published); the workers' latency goes into a->lat_tot. */
static void pub_total(struct pg_app *a)
{
	pub_fill(a, &a->tot);
	for (unsigned t = 1; !a->merged && t < a->nb_thr; t++) {
		struct pg_thr *th = &a->thr[t];

		pthread_mutex_lock(&th->lock);
		pub_add(a, &a->tot, &th->pub);
		pg_hist_merge(&a->lat_tot, &th->pub.lat);
		pg_hist_init(&th->pub.lat);
		pthread_mutex_unlock(&th->lock);
	}
}

/* A worker's counts for the main thread. */
static void pub_publish(struct pg_app *w, struct pg_thr *th)
{
	pthread_mutex_lock(&th->lock);
	pub_fill(w, &th->pub);
	pg_hist_merge(&th->pub.lat, &w->lat_sec);
	pthread_mutex_unlock(&th->lock);
	pg_hist_init(&w->lat_sec);
}

/* The loop's counts for /pktgen/stats. */
static void snap_publish(struct pg_app *a, uint64_t now_ns)
{
	struct pg_live_snap *s = &a->snap;
	const struct pg_pub *T = &a->tot;

	pub_total(a);
	pthread_mutex_lock(&s->lock);
	s->t_s = (double)(now_ns - a->t_start_ns) / 1e9;
	pg_rate_spec_format(&a->cur_rate, s->rate, sizeof(s->rate));
	s->nb = a->cap.nb ? 0 : a->nb_sr;
	for (unsigned i = 0; i < s->nb; i++) {
		s->sent[i] = T->st_sent[i];
		s->received[i] = T->st_rx[i];
		s->lost[i] = pub_lost(a, T, i);
	}
	s->sent_all = T->sent;
	s->rx_frames = T->rx_frames;
	s->nb_changes = a->nb_changes;
	pthread_mutex_unlock(&s->lock);
}

/* Mbit/s at L2 (FCS included) of @p frames frames, @p bytes bytes in @p dt s. */
static double l2_mbps(uint64_t frames, uint64_t bytes, double dt)
{
	return dt > 0 ? (double)(bytes + 4 * frames) * 8 / dt / 1e6 : 0;
}

/* The screen's state from the counts now and a second ago. */
static void screen_fill(struct pg_app *a, uint64_t now_ns, double dt)
{
	struct pg_screen *s = &a->scr;
	struct pg_screen_prev *p = &a->prev;
	const struct pg_pub *T = &a->tot;
	uint64_t rx_bytes_all = 0, lost_all = 0;

	memset(s, 0, sizeof(*s));
	s->elapsed_s = (double)(now_ns - a->t_start_ns) / 1e9;
	pg_rate_spec_format(&a->cur_rate, s->rate, sizeof(s->rate));
	s->keys = a->keys;
	snprintf(s->msg, sizeof(s->msg), "%s", a->msg);
	s->nb_txp = a->nb_txp;
	for (unsigned k = 0; k < a->nb_txp; k++) {
		uint64_t sent = T->txp_sent[k], bytes = T->txp_bytes[k];
		struct pg_screen_row *r = &s->txp[k];

		*r = (struct pg_screen_row){ .id = a->txp[k].idx, .has_tx = true, .sent = sent };
		r->tx_pps = (double)(sent - p->txp_sent[k]) / dt;
		r->tx_mbps = l2_mbps(sent - p->txp_sent[k], bytes - p->txp_bytes[k], dt);
		p->txp_sent[k] = sent;
		p->txp_bytes[k] = bytes;
	}
	s->nb_rxp = a->nb_rxp;
	for (unsigned k = 0; k < a->nb_rxp; k++) {
		uint64_t frames = T->rxp_frames[k], bytes = T->rxp_bytes[k];
		struct pg_screen_row *r = &s->rxp[k];

		*r = (struct pg_screen_row){ .id = a->rxp[k].idx, .has_rx = true, .received = frames };
		r->rx_pps = (double)(frames - p->rxp_frames[k]) / dt;
		r->rx_mbps = l2_mbps(frames - p->rxp_frames[k], bytes - p->rxp_bytes[k], dt);
		p->rxp_frames[k] = frames;
		p->rxp_bytes[k] = bytes;
		rx_bytes_all += bytes;
	}
	s->nb_st = a->cap.nb ? 0 : a->nb_sr;
	for (unsigned i = 0; i < s->nb_st; i++) {
		const struct pg_stream_run *sr = &a->sr[i];
		uint64_t sent = T->st_sent[i], bytes = T->st_bytes[i], rx = T->st_rx[i], rxb = T->st_rx_bytes[i];
		struct pg_screen_row *r = &s->st[i];

		/* The latency of a stream's last second: the main thread's own
		 * frames only, so none with several threads (the total has it). */
		*r = (struct pg_screen_row){ .id = sr->id, .has_tx = true, .has_rx = true, .has_lat = true,
					     .sent = sent, .received = rx, .lost = pub_lost(a, T, i) };
		lost_all += r->lost;
		r->tx_pps = (double)(sent - p->st_sent[i]) / dt;
		r->tx_mbps = l2_mbps(sent - p->st_sent[i], bytes - p->st_bytes[i], dt);
		r->rx_pps = (double)(rx - p->st_rx[i]) / dt;
		r->rx_mbps = l2_mbps(rx - p->st_rx[i], rxb - p->st_rx_bytes[i], dt);
		if (a->nb_thr == 1 && a->lat_sec_s && a->lat_sec_s[i].count) {
			r->p50_ns = pg_hist_percentile(&a->lat_sec_s[i], 50);
			r->p99_ns = pg_hist_percentile(&a->lat_sec_s[i], 99);
		}
		p->st_sent[i] = sent;
		p->st_bytes[i] = bytes;
		p->st_rx[i] = rx;
		p->st_rx_bytes[i] = rxb;
	}
	s->total = (struct pg_screen_row){ .id = -1, .has_tx = true, .has_rx = true, .has_lat = !a->cap.nb,
					   .sent = T->sent, .received = T->rx_frames,
					   .lost = a->cap.nb ? 0 : lost_all };
	s->total.tx_pps = (double)(T->sent - p->sent) / dt;
	s->total.tx_mbps = l2_mbps(T->sent - p->sent, T->sent_bytes - p->sent_bytes, dt);
	s->total.rx_pps = (double)(T->rx_frames - p->rx) / dt;
	s->total.rx_mbps = l2_mbps(T->rx_frames - p->rx, rx_bytes_all - p->rx_bytes, dt);
	if (a->csv) {  /* this second's latency over every stream */
		s->total.p50_ns = pg_hist_percentile(&a->lat_sec, 50);
		s->total.p99_ns = pg_hist_percentile(&a->lat_sec, 99);
	} else if (a->lat_sec_s) {
		static struct pg_hist all;

		pg_hist_init(&all);
		for (unsigned i = 0; i < s->nb_st; i++)
			pg_hist_merge(&all, &a->lat_sec_s[i]);
		pg_hist_merge(&all, &a->lat_tot);  /* the workers' */
		s->total.p50_ns = all.count ? pg_hist_percentile(&all, 50) : 0;
		s->total.p99_ns = all.count ? pg_hist_percentile(&all, 99) : 0;
	}
	p->sent = T->sent;
	p->sent_bytes = T->sent_bytes;
	p->rx = T->rx_frames;
	p->rx_bytes = rx_bytes_all;
}

/* A second is over: the screen (@p live) and the line (a->lines). */
static void screen_draw(struct pg_app *a, uint64_t now_ns, double dt, bool live)
{
	static char buf[64 * 1024];

	pub_total(a);
	screen_fill(a, now_ns, dt);
	if (live) {
		pg_screen_format(&a->scr, true, buf, sizeof(buf));
		fputs(buf, stderr);
		fflush(stderr);
	}
	if (a->lines) {
		pg_screen_line(&a->scr, buf, sizeof(buf));
		fputs(buf, a->out);
		fflush(a->out);
	}
	/* The next second's latency (--csv with several streams resets them itself). */
	for (unsigned i = 0; a->lat_sec_s && !(a->csv && a->nb_sr > 1) && i < a->nb_sr; i++)
		pg_hist_init(&a->lat_sec_s[i]);
	if (!a->csv)  /* else csv_tick, next, takes the workers' latency */
		pg_hist_init(&a->lat_tot);
}

/* The terminal's settings before the screen made stdin raw (keys). */
static struct termios g_tio;
static volatile sig_atomic_t g_tio_raw;

static void term_restore(void)
{
	if (g_tio_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &g_tio);
		g_tio_raw = 0;
	}
}

/* Keys without Enter and without echo, while the screen is up; Ctrl-C still
 * signals. Restored at the end of the run (and at exit, whatever the path). */
static bool term_raw(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &g_tio))
		return false;
	t = g_tio;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
		return false;
	g_tio_raw = 1;
	atexit(term_restore);
	return true;
}

/* The keys typed since the last look: + and - change the rate by 10 %, q stops. */
static void keys_poll(struct pg_app *a, uint64_t now_ns)
{
	char k[16], err[512], text[32];
	ssize_t n = read(STDIN_FILENO, k, sizeof(k));

	for (ssize_t i = 0; i < n; i++) {
		struct pg_rate_spec spec;

		if (k[i] == 'q') {
			g_key_quit = true;
			g_stop = 1;
			snprintf(a->msg, sizeof(a->msg), "q: stopping");
			continue;
		}
		if (k[i] != '+' && k[i] != '-' && k[i] != '=')
			continue;
		if (a->t_tx_end_ns)
			continue;
		if (pg_rate_scale(&a->cur_rate, k[i] == '-' ? 0.9 : 1.1, &spec, err, sizeof(err)) ||
		    rate_check(a, &spec, err, sizeof(err))) {
			snprintf(a->msg, sizeof(a->msg), "%c: %.150s", k[i],
				 strncmp(err, "option --rate: ", 15) == 0 ? err + 15 : err);
			continue;
		}
		rate_apply(a, &spec, now_ns);
		pg_rate_spec_format(&spec, text, sizeof(text));
		snprintf(a->msg, sizeof(a->msg), "%c: rate now %s", k[i], text);
	}
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* This thread's sending starts: the generator-limit clocks. */
static void tx_clock_start(struct pg_app *a)
{
	a->tsc_tx0 = unic_rdtsc();
	a->cpu_tx0_ns = thread_cpu_ns();
	a->idle_cycles = 0;
	a->bursts = a->full_bursts = 0;
	a->worked = true;
	__atomic_store_n(&a->tx_over, 0, __ATOMIC_RELEASE);
}

/* A loop round: the time since the last round was idle when the last
 * round built and sent nothing (waiting for the pacer). */
static void tx_clock_round(struct pg_app *a, uint64_t *prev_tsc)
{
	uint64_t t = unic_rdtsc();

	if (!a->worked)
		a->idle_cycles += t - *prev_tsc;
	*prev_tsc = t;
	a->worked = false;
}

static void tx_clock_stop(struct pg_app *a)
{
	a->tsc_tx1 = unic_rdtsc();
	a->cpu_tx1_ns = thread_cpu_ns();
	__atomic_store_n(&a->tx_over, 1, __ATOMIC_RELEASE);
}

/* One step of sending on every tx port of this thread; a port that takes
 * nothing for TX_STALL_NS stops the run. */
static void tx_step(struct pg_app *a, uint64_t now_ns)
{
	for (unsigned k = 0; k < a->nb_txp; k++) {
		struct pg_txp *t = &a->txp[k];

		do_tx(a, t);
		/* A take in do_tx stamps last_take_ns after now_ns was read:
		 * only a stamp before now_ns can be TX_STALL_NS old. */
		if (t->npend && now_ns > t->last_take_ns && now_ns - t->last_take_ns > TX_STALL_NS &&
		    !a->stalled) {
			char qn[24] = "";

			if (a->nb_thr > 1)
				snprintf(qn, sizeof(qn), " (queue %u)", a->q);
			fprintf(stderr, "\nunic-pktgen: tx port %d (%s) took no frame for %.0f s%s (link down, or no peer?); stopping\n",
				t->idx, unic_port_name(t->port), TX_STALL_NS / 1e9, qn);
			a->stalled = true;
			g_stop = 1;
		}
	}
	if (g_stop && a->npend_all)  /* interrupted: drop what the ports did not take */
		drop_all_pending(a);
}

/* Every thread's sending is over (the main's own included). */
static bool all_tx_over(const struct pg_app *a)
{
	if (!__atomic_load_n(&a->tx_over, __ATOMIC_ACQUIRE))
		return false;
	for (unsigned t = 1; t < a->nb_thr; t++)
		if (!__atomic_load_n(&a->thr[t].a->tx_over, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* A trial with threads starts (every thread, the main's too): its counts
 * from zero; the measured part is marked per tx queue (trial_mark). */
static void trial_session_start(struct pg_app *a)
{
	const struct pg_app *m = a->main_app ? a->main_app : a;

	pg_rxstats_reset(&a->rs);
	a->stale = 0;
	a->epoch = false;
	a->sent_mark = a->sent;
	a->o.count = 0;
	a->o.duration = m->o.duration;
	if (a->main_app)
		rate_apply_slice(a, &m->rate_now);
}

/* One session of a worker: a plain run, or a trial. */
static void worker_session(struct pg_thr *th, int gen)
{
	struct pg_app *w = th->a, *m = w->main_app;
	uint64_t next_pub, prev_tsc, warm_end;
	bool warming = m->trial;

	if (m->trial)
		trial_session_start(w);
	w->t_tx_end_ns = 0;
	unic_tsc_clock_init(&w->clk);
	w->t_start_ns = unic_tsc_clock_ns(&w->clk);
	warm_end = w->t_start_ns + m->warmup_ns;
	next_pub = w->t_start_ns + 100000000ull;
	for (unsigned k = 0; k < w->nb_txp; k++)
		w->txp[k].last_take_ns = w->t_start_ns;
	for (unsigned i = 0; i < w->nb_sr; i++)
		pg_rate_start(&w->sr[i].rate, unic_rdtsc());
	pg_rate_start(&w->rate, unic_rdtsc());
	tx_clock_start(w);
	prev_tsc = w->tsc_tx0;
	for (;;) {
		uint64_t now_ns = unic_tsc_clock_ns(&w->clk);
		unsigned rgen = __atomic_load_n(&m->rate_gen, __ATOMIC_ACQUIRE);

		if (warming && now_ns >= warm_end) {
			trial_mark(w, now_ns);
			warming = false;
		}
		if (w->t_tx_end_ns == 0) {
			tx_clock_round(w, &prev_tsc);
			if (!m->trial && rgen != w->rate_gen) {  /* a rate change (keys, /pktgen/rate) */
				struct pg_rate_spec spec;

				pthread_mutex_lock(&m->rate_lock);
				spec = m->rate_now;
				pthread_mutex_unlock(&m->rate_lock);
				w->rate_gen = rgen;
				rate_apply_slice(w, &spec);
			}
			if ((!warming || g_stop) && tx_done(w, now_ns) && w->npend_all == 0) {
				w->t_tx_end_ns = now_ns;
				tx_clock_stop(w);
				pub_publish(w, th);
			} else if (!g_stop || w->npend_all) {
				tx_step(w, now_ns);
			}
		}
		poll_rx(w);
		if (__atomic_load_n(&m->wstop, __ATOMIC_ACQUIRE) == gen)
			break;
		if (now_ns >= next_pub) {
			pub_publish(w, th);
			next_pub = now_ns + (w->t_tx_end_ns ? 10000000ull : 100000000ull);
		}
	}
	if (warming)
		trial_mark(w, unic_tsc_clock_ns(&w->clk));
	if (w->t_tx_end_ns == 0) {
		w->t_tx_end_ns = unic_tsc_clock_ns(&w->clk);
		tx_clock_stop(w);
	}
	drop_all_pending(w);
	pub_publish(w, th);
}

/*
 * A worker thread (--txq/--rxq): one session each time the main thread
 * starts one (wgo; a plain run has one, a sweep or a search one a trial):
 * it sends on its tx queue at its share until its part of --count,
 * --duration or a signal, receives on its rx queue until the main thread
 * ends the session (wstop, once every frame is back or the drain is over),
 * publishing its counts every 100 ms; then waits for the next, or wquit.
 */
static int worker_main(void *arg)
{
	struct pg_thr *th = arg;
	struct pg_app *w = th->a, *m = w->main_app;
	int gen = 0;

	for (;;) {
		int g;

		while ((g = __atomic_load_n(&m->wgo, __ATOMIC_ACQUIRE)) == gen &&
		       !__atomic_load_n(&m->wquit, __ATOMIC_ACQUIRE))
			sched_yield();
		if (g == gen)
			break;
		gen = g;
		worker_session(th, gen);
		__atomic_store_n(&w->done_gen, gen, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Every frame back, over every thread (a->tot, refreshed by the caller). */
static bool all_back_threads(const struct pg_app *a)
{
	return a->tot.sent > 0 && a->tot.rx_frames >= a->tot.sent;
}

/*
 * The run's loop: send at the streams' rates until tx_done (--count,
 * --duration, a signal), then wait for the frames in flight, up to --drain.
 * A trial (@p trial) first sends for @p warmup_ns without counting, then
 * marks the start of its measured part (trial_mark) and counts from there.
 * With worker threads, this is thread 0's loop and the run's: it starts the
 * workers, waits for every thread's sending to end, then for the frames in
 * flight, and stops the workers.
 */
static void run_loop(struct pg_app *a, bool live, bool trial, uint64_t warmup_ns)
{
	uint64_t last_ns, next_status, next_snap, next_keys, drain_until = 0, warm_end, prev_tsc;
	bool warming = trial, draining = false;

	a->t_tx_end_ns = 0;
	a->t_start_ns = last_ns = unic_tsc_clock_ns(&a->clk);
	warm_end = a->t_start_ns + warmup_ns;
	for (unsigned k = 0; k < a->nb_txp; k++)
		a->txp[k].last_take_ns = a->t_start_ns;
	for (unsigned i = 0; i < a->nb_sr; i++)
		pg_rate_start(&a->sr[i].rate, unic_rdtsc());
	next_status = a->t_start_ns + 1000000000ull;
	next_snap = next_keys = a->t_start_ns;
	memset(&a->prev, 0, sizeof(a->prev));
	if (live)  /* the screen from the top, redrawn there every second */
		fprintf(stderr, "\033[H\033[2J");
	pg_rate_start(&a->rate, unic_rdtsc());
	if (a->nb_thr > 1) {  /* the workers' session starts with ours */
		a->trial = trial;
		a->warmup_ns = warmup_ns;
		for (unsigned q = 0; q < PG_MAX_QUEUES; q++)
			__atomic_store_n(&a->qmarked[q], 0, __ATOMIC_RELEASE);
		if (trial)
			trial_session_start(a);
		/* The workers wait for wgo: their last session's "over" is cleared
		 * now, so all_tx_over never sees it before they start again. */
		for (unsigned t = 1; t < a->nb_thr; t++)
			if (a->thr[t].a)
				__atomic_store_n(&a->thr[t].a->tx_over, 0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&a->wgo, 1, __ATOMIC_RELEASE);
	}
	tx_clock_start(a);
	prev_tsc = a->tsc_tx0;
	for (;;) {
		uint64_t now_ns = unic_tsc_clock_ns(&a->clk);

		if (a->t_tx_end_ns == 0)
			tx_clock_round(a, &prev_tsc);
		if (warming && now_ns >= warm_end) {
			trial_mark(a, now_ns);
			warming = false;
		}
		if (!trial && a->t_tx_end_ns == 0) {
			struct pg_rate_spec spec;
			char text[32];

			if (a->keys && now_ns >= next_keys) {
				keys_poll(a, now_ns);
				next_keys = now_ns + 20000000ull;
			}
			if (pg_rate_req_take(&a->req, &spec, text)) {  /* from /pktgen/rate */
				rate_apply(a, &spec, now_ns);
				snprintf(a->msg, sizeof(a->msg), "/pktgen/rate: rate now %s", text);
			}
		}
		if (!trial && now_ns >= next_snap) {
			snap_publish(a, now_ns);
			next_snap = now_ns + (draining && a->nb_thr > 1 ? 10000000ull : 100000000ull);
		}
		if (a->t_tx_end_ns == 0) {
			/* A signal ends a warm-up too (tx_done is then true). */
			if ((!warming || g_stop) && tx_done(a, now_ns) && a->npend_all == 0) {
				a->t_tx_end_ns = now_ns;
				tx_clock_stop(a);
			} else if (!g_stop || a->npend_all) {
				tx_step(a, now_ns);
			}
		}
		if (a->t_tx_end_ns && !draining && all_tx_over(a)) {
			draining = true;
			drain_until = now_ns + (uint64_t)(a->o.drain * 1e9);
		}
		poll_rx(a);
		if (draining) {
			if (a->nb_thr > 1 ? !trial && all_back_threads(a) : all_back(a))
				break;
			if (now_ns >= drain_until || g_signals > 1)
				break;
		} else if (a->t_tx_end_ns && g_signals > 1) {
			break;
		}
		if (now_ns >= next_status) {
			if (live || (a->lines && !trial))
				screen_draw(a, now_ns, (double)(now_ns - last_ns) / 1e9, live);
			last_ns = now_ns;
			if (a->csv && !trial)
				csv_tick(a, now_ns);
			next_status += 1000000000ull;
		}
	}
	if (warming)  /* stopped during the warm-up: an empty measured part */
		trial_mark(a, unic_tsc_clock_ns(&a->clk));
	if (a->nb_thr > 1) {  /* the session ends for every worker */
		int gen = __atomic_load_n(&a->wgo, __ATOMIC_ACQUIRE);

		__atomic_store_n(&a->wstop, gen, __ATOMIC_RELEASE);
		for (unsigned t = 1; t < a->nb_thr; t++)
			while (a->thr[t].launched && __atomic_load_n(&a->thr[t].a->done_gen, __ATOMIC_ACQUIRE) != gen)
				sched_yield();
	}
}

/* Does every CPU's TSC tick at one rate and on in deep sleep states, kept
 * in step by the kernel? (/proc/cpuinfo's constant_tsc and nonstop_tsc.)
 * @p missing gets the flags not found. */
static bool tsc_invariant(char *missing, size_t len)
{
	/* UNIC_PKTGEN_CPUINFO: another file in /proc/cpuinfo's form, for the
	 * tests of a CPU without the flags (docs/pktgen.md). */
	const char *path = getenv("UNIC_PKTGEN_CPUINFO");
	FILE *f = fopen(path && path[0] ? path : "/proc/cpuinfo", "r");
	static char line[8192];
	bool c = false, n = false;

	missing[0] = '\0';
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5) != 0)
			continue;
		c = strstr(line, " constant_tsc") != NULL;
		n = strstr(line, " nonstop_tsc") != NULL;
		break;
	}
	if (f)
		fclose(f);
	snprintf(missing, len, "%s%s%s", c ? "" : "constant_tsc", !c && !n ? " and " : "", n ? "" : "nonstop_tsc");
	return c && n;
}

/*
 * The worker threads' slices: a copy of the main app each, with its own
 * counts, streams (sequence numbers from 0, flows from its queue on,
 * pacing at the share already split), receive statistics and part of
 * --count; then launched on the cores of -l (they wait for run_loop's go).
 */
static int threads_start(struct pg_app *a, const struct unic_env_options *eo)
{
	uint64_t count = a->o.count;

	a->q = 0;
	a->core = eo->nb_cores ? eo->cores[0] : -1;
	a->tx_role = true;
	a->rx_role = true;
	if (a->nb_thr == 1)
		return 0;
	pthread_mutex_init(&a->rate_lock, NULL);
	for (unsigned t = 0; t < a->nb_thr; t++) {
		struct pg_app *w;
		struct pg_thr *th = &a->thr[t];
		uint64_t share = count / a->o.txq + (t < count % a->o.txq);
		char err[256];

		if (t == 0) {
			a->o.count = share;
			a->tx_role = count == 0 || share > 0;
			continue;
		}
		w = malloc(sizeof(*w));
		if (w == NULL) {
			fprintf(stderr, "unic-pktgen: error: out of memory for thread %u\n", t);
			return -ENOMEM;
		}
		memcpy(w, a, sizeof(*w));
		pg_rxstats_init(&w->rs, a->sr[0].id);  /* not the main's streams: its own, below */
		w->main_app = a;
		w->q = t;
		w->core = eo->cores[t];
		w->tx_role = t < a->o.txq && (count == 0 || share > 0);
		w->rx_role = t < a->o.rxq;
		w->o.count = share;
		w->sent = w->sent_bytes = w->tx_full = w->alloc_fail = w->tx_dropped = w->tx_refused = 0;
		w->npend_all = 0;
		w->stalled = false;
		w->lat_skipped = 0;
		w->t_tx_end_ns = 0;
		for (unsigned k = 0; k < w->nb_txp; k++) {
			w->txp[k].npend = 0;
			w->txp[k].rr = 0;
			w->txp[k].sent = w->txp[k].sent_bytes = w->txp[k].full_bursts = 0;
		}
		for (unsigned k = 0; k < w->nb_rxp; k++)
			w->rxp[k].frames = w->rxp[k].bytes = 0;
		for (unsigned i = 0; i < w->nb_sr; i++) {
			w->sr[i].sent = w->sr[i].sent_bytes = w->sr[i].refused = 0;
			w->sr[i].seq = 0;
			pg_stream_skip_flows(&w->sr[i], t);
		}
		w->lat_sec_s = NULL;
		w->csv_prev_s = NULL;
		w->csv = NULL;
		w->wtx = w->wrx = NULL;
		pg_hist_init(&w->lat_sec);
		w->scratch = malloc(PG_PCAP_SNAPLEN);
		th->a = w;
		pthread_mutex_init(&th->lock, NULL);
		pg_hist_init(&th->pub.lat);
		if (w->scratch == NULL || streams_rx_init(w, err, sizeof(err))) {
			fprintf(stderr, "unic-pktgen: error: thread %u: %s\n", t,
				w->scratch ? err : "out of memory for its receive buffer");
			return -ENOMEM;
		}
		pub_fill(w, &th->pub);
		int r = unic_env_launch(a->env, t - 1, worker_main, th);

		if (r) {
			fprintf(stderr, "unic-pktgen: error: cannot start thread %u on core %d: %s\n", t, w->core,
				strerror(-r));
			return r;
		}
		th->launched = true;
	}
	/* Thread 0 (this one) sends flows from 0 on, like the others from theirs. */
	return 0;
}

static void threads_stop(struct pg_app *a)
{
	__atomic_store_n(&a->wquit, 1, __ATOMIC_RELEASE);
	for (unsigned t = 1; t < a->nb_thr; t++)
		if (a->thr[t].launched) {
			unic_env_wait(a->env, t - 1);
			a->thr[t].launched = false;
		}
}

/* A thread's generator-limit figures for the report. */
static void thr_stat_of(const struct pg_app *s, struct pg_thr_stat *o)
{
	double hz = (double)s->hz;
	uint64_t most = 0;

	memset(o, 0, sizeof(*o));
	o->q = s->q;
	o->core = s->core;
	o->tx = s->tx_role;
	o->rx = s->rx_role;
	o->sent = s->sent;
	o->sent_bytes = s->sent_bytes;
	o->rx_frames = s->rs.frames;
	o->bursts = s->bursts;
	o->full_bursts = s->full_bursts;
	o->tx_s = s->tsc_tx1 > s->tsc_tx0 ? (double)(s->tsc_tx1 - s->tsc_tx0) / hz : 0;
	o->cpu_s = s->cpu_tx1_ns > s->cpu_tx0_ns ? (double)(s->cpu_tx1_ns - s->cpu_tx0_ns) / 1e9 : 0;
	o->idle_s = (double)s->idle_cycles / hz;
	o->port = -1;
	for (unsigned k = 0; k < s->nb_txp; k++)
		if (s->txp[k].full_bursts > most) {
			most = s->txp[k].full_bursts;
			o->port = s->txp[k].idx;
		}
	if (s->rate.spec.unit != PG_RATE_NONE && !s->cap.nb)
		for (unsigned i = 0; i < s->nb_sr; i++)
			o->asked += pg_rate_requested(&s->sr[i].rate);
	else if (s->rate.spec.unit != PG_RATE_NONE)
		o->asked = pg_rate_requested(&s->rate);
	o->achieved = pg_rate_achieved(&s->rate, s->sent, s->sent_bytes, o->tx_s);
}

/* The workers' counts added into the main app's (after threads_stop). */
static void threads_merge(struct pg_app *a)
{
	char err[256];

	for (unsigned t = 0; t < a->nb_thr; t++)
		if (t == 0 || a->thr[t].a)
			thr_stat_of(t ? a->thr[t].a : a, &a->tst[t]);
	for (unsigned t = 1; t < a->nb_thr; t++) {
		struct pg_app *w = a->thr[t].a;

		if (w == NULL)
			continue;
		a->sent += w->sent;
		a->sent_bytes += w->sent_bytes;
		a->tx_full += w->tx_full;
		a->alloc_fail += w->alloc_fail;
		a->tx_dropped += w->tx_dropped;
		a->tx_refused += w->tx_refused;
		if (w->tx_refused)
			a->tx_refused_err = w->tx_refused_err;
		a->stalled |= w->stalled;
		a->lat_skipped += w->lat_skipped;
		if (w->t_tx_end_ns > a->t_tx_end_ns)
			a->t_tx_end_ns = w->t_tx_end_ns;
		for (unsigned k = 0; k < a->nb_txp; k++) {
			a->txp[k].sent += w->txp[k].sent;
			a->txp[k].sent_bytes += w->txp[k].sent_bytes;
			a->txp[k].full_bursts += w->txp[k].full_bursts;
		}
		for (unsigned k = 0; k < a->nb_rxp; k++) {
			a->rxp[k].frames += w->rxp[k].frames;
			a->rxp[k].bytes += w->rxp[k].bytes;
		}
		for (unsigned i = 0; i < a->nb_sr; i++) {
			a->sr[i].sent += w->sr[i].sent;
			a->sr[i].sent_bytes += w->sr[i].sent_bytes;
			a->sr[i].refused += w->sr[i].refused;
		}
		pg_rxstats_merge(&a->rs, &w->rs);
		pg_hist_merge(&a->lat_tot, &a->thr[t].pub.lat);  /* its last part-second, for --csv */
		pg_hist_init(&a->thr[t].pub.lat);
	}
	for (unsigned t = 1; t < a->nb_thr; t++) {
		struct pg_app *w = a->thr[t].a;

		if (w == NULL)
			continue;
		pg_rxstats_fini(&w->rs);
		free(w->scratch);
		free(w);
		a->thr[t].a = NULL;
	}
	a->merged = true;
	/* The report gives each stream's whole rate, not a thread's share. */
	for (unsigned i = 0; a->o.txq > 1 && i < a->nb_sr; i++) {
		struct pg_rate_spec rs = pg_rate_share(&a->cur_rate, a->sr[i].spec->share);

		pg_rate_init(&a->sr[i].rate, &rs, a->hz, stream_link(a, &a->sr[i]), err, sizeof(err));
	}
}

/* What a trial callback (trial.h) needs of the run. */
struct trial_ctx {
	struct pg_app *a;
	double measure_s, warmup_s;
};

static int trial_cb(void *ctx, double pps, struct pg_trial_result *r)
{
	struct trial_ctx *c = ctx;
	struct pg_app *a = c->a;
	struct pg_rate_spec spec = { .unit = PG_RATE_PPS, .value = pps };
	struct pg_stream_stats *st = &a->rs.stream;
	char err[256];
	double end_real;

	memset(r, 0, sizeof(*r));
	r->offered_pps = pps;
	if (g_stop)
		return a->stalled ? -EIO : -EINTR;
	if (spec.value < PG_RATE_PPS_MIN)
		spec.value = PG_RATE_PPS_MIN;
	/* The one stream is paced by its own rate (do_tx), --rate's by a->rate. */
	if (pg_rate_init(&a->rate, &spec, a->hz, a->link_mbps, err, sizeof(err)) ||
	    pg_rate_init(&a->sr[0].rate, &spec, a->hz, a->link_mbps, err, sizeof(err))) {
		fprintf(stderr, "unic-pktgen: error: a trial at %.3f pps: %s\n", pps, err);
		return -EINVAL;
	}
	a->o.count = 0;
	a->o.duration = c->measure_s;
	if (a->nb_thr > 1) {  /* each thread paces its share; the workers take it at their start */
		pthread_mutex_lock(&a->rate_lock);
		a->rate_now = spec;
		pthread_mutex_unlock(&a->rate_lock);
		rate_apply_slice(a, &spec);
	}
	run_loop(a, false, true, (uint64_t)(c->warmup_s * 1e9));
	r->sent = a->sent - a->sent_mark;
	for (unsigned t = 1; t < a->nb_thr; t++) {  /* every thread's part of the trial */
		const struct pg_app *w = a->thr[t].a;

		pg_rxstats_merge(&a->rs, &w->rs);
		r->sent += w->sent - w->sent_mark;
		a->stale += w->stale;
		if (w->t_tx_end_ns > a->t_tx_end_ns)
			a->t_tx_end_ns = w->t_tx_end_ns;
	}
	end_real = a->start_real + (double)(a->t_tx_end_ns > a->t_start_ns ? a->t_tx_end_ns - a->t_start_ns : 0) / 1e9;
	r->received = st->seq.received;
	r->lost = pg_seq_lost(&st->seq, r->sent);
	r->reordered = st->seq.reordered;
	r->duplicated = st->seq.duplicated;
	r->stale = a->stale;
	r->measured_s = end_real - a->start_real;
	r->tx_pps = r->measured_s > 0 ? (double)r->sent / r->measured_s : 0;
	r->achieved_pps = r->measured_s > 0 ? (double)r->received / r->measured_s : 0;
	r->start_time = a->start_real;
	r->end_time = end_real;
	pg_lat_summarize(&st->lat_ns, &r->lat);
	if (g_stop)
		return a->stalled ? -EIO : -EINTR;
	return 0;
}

/*
 * One packet pool per port, named after it, on its NUMA node (app_pool.h: a
 * memif zero-copy client lends its whole pool to the server): its rx rings
 * (a tx port's are set up too) and tx rings, a burst waiting for each tx
 * queue and one poll per rx queue, a cache per thread (one a queue:
 * each thread touches every port); at least 4096.
 * Frames to send come from the tx port's pool, an ARP reply from the pool
 * of the port that answers. @return 0, or -1 with a message.
 */
static int make_pools(struct pg_app *a, struct unic_env *env, uint16_t dataroom)
{
	unsigned nq = a->o.txq > a->o.rxq ? a->o.txq : a->o.rxq;

	for (unsigned k = 0; k < a->nb_ports; k++) {
		struct unic_port_info pi = { 0 };

		unic_port_info_get(a->ports[k], &pi);
		struct app_pool_need n = {
			.nb_rxq = nq, .nb_txq = nq,
			.rxd = a->o.rxd ? a->o.rxd : pi.rx_desc_default, .txd = pi.tx_desc_default,
			.rx_burst = BURST, .tx_burst = BURST,
			.nb_threads = nq, .cache_size = POOL_CACHE,
		};
		uint32_t count = app_pool_need(&n);

		if (count < 4096)
			count = 4096;
		a->pools[k] = app_port_pool_create(unic_env_mem(env), a->ports[k], "pktgen", count,
						   POOL_CACHE, dataroom);
		if (a->pools[k] == NULL) {
			fprintf(stderr, "unic-pktgen: error: port %d (%s): cannot create its pool of %u buffers: %s (the message above says why)\n",
				a->port_idx[k], unic_port_name(a->ports[k]), count, strerror(errno));
			return -1;
		}
	}
	for (unsigned t = 0; t < a->nb_txp; t++)
		a->txp[t].pool = port_pool(a, a->txp[t].port);
	return 0;
}

static int setup_port(struct unic_port *port, int idx, struct unic_pool *pool, unsigned mtu,
		      uint16_t rxd, unsigned nb_rxq, unsigned nb_txq)
{
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = (uint16_t)nb_rxq, .nb_txq = (uint16_t)nb_txq,
				    .rx_mode = UNIC_RX_MODE_POLL };
	struct unic_port_info pi = { 0 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = rxd, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .numa_node = -1 };
	int r;

	if (mtu > 1500)
		c.mtu = (uint16_t)mtu;
	unic_port_info_get(port, &pi);
	if (nb_rxq > 1)  /* RSS spreads the flows over the rx queues */
		c.rss_hash_types = pi.rss_hash_capa;
	r = unic_port_configure(port, &c);
	for (unsigned q = 0; r == 0 && q < nb_rxq; q++)
		r = unic_port_rx_queue_setup(port, (uint16_t)q, &rc);
	for (unsigned q = 0; r == 0 && q < nb_txq; q++)
		r = unic_port_tx_queue_setup(port, (uint16_t)q, &tc);
	if (r || (r = unic_port_start(port))) {
		fprintf(stderr, "unic-pktgen: cannot set up port %d (%s)%s: %s (the message above says why)\n",
			idx, unic_port_name(port), c.mtu ? " for jumbo frames" : "", strerror(-r));
		return r;
	}
	return 0;
}

/* The mean frame size (no FCS) of the sizes sent in turn. */
static double mean_size(const struct pg_opts *o)
{
	double sum = 0;

	if (o->nb_sizes == 0)
		return (o->size_lo + o->size_hi) / 2.0;
	for (unsigned i = 0; i < o->nb_sizes; i++)
		sum += o->sizes[i];
	return sum / o->nb_sizes;
}

/* --json-out FILE, opened before any traffic. */
static int json_out_open(const struct pg_app *a, FILE **f)
{
	*f = NULL;
	if (a->o.bench.json_out == NULL)
		return 0;
	*f = fopen(a->o.bench.json_out, "w");
	if (*f == NULL) {
		fprintf(stderr, "unic-pktgen: error: option --json-out: cannot create '%s': %s\n",
			a->o.bench.json_out, strerror(errno));
		return PG_EXIT_USAGE;
	}
	return 0;
}

static int json_out_close(const struct pg_app *a, FILE *f)
{
	if (f && fclose(f) != 0) {
		fprintf(stderr, "unic-pktgen: error: option --json-out: writing '%s' failed: %s\n",
			a->o.bench.json_out, strerror(errno));
		return PG_EXIT_FAIL;
	}
	return 0;
}

/* Nothing came back at all: far more often a wrong port or a missing -P. */
static void nothing_back_hint(const struct pg_app *a, uint64_t sent)
{
	fprintf(stderr, "unic-pktgen: none of the %" PRIu64 " frames sent in the measured parts came back on rx port %d (%s). "
		"Check that the rx port is where the tx port's frames arrive (the cabling or the ring's peer=; "
		"behind unic-l2fwd, which rewrites the destination address, give -P) and that its link is up\n",
		sent, a->o.rx_port, unic_port_name(a->rx));
}

static int run_sweep(struct pg_app *a, struct trial_ctx *tc)
{
	const struct pg_bench_opts *b = &a->o.bench;
	double pps[PG_SWEEP_MAX], size = mean_size(&a->o);
	double line = pg_line_pps(size, a->link_mbps);
	struct pg_trial_result *rows;
	uint64_t sent = 0, received = 0;
	FILE *jf;
	int err, ret;
	unsigned n;

	/* Every step checked before the first frame is sent. */
	for (unsigned i = 0; i < b->nb_sweep; i++) {
		pps[i] = pg_rate_spec_pps(&b->sweep[i], size, a->link_mbps);
		if (b->sweep[i].unit == PG_RATE_PCT && a->link_mbps == 0) {
			fprintf(stderr, "unic-pktgen: error: option --sweep: step %u is %.6g%% of the line rate, but tx port %d (%s) does not know its link speed; give rates in pps or bps\n",
				i, b->sweep[i].value, a->o.tx_port, unic_port_name(a->tx));
			return PG_EXIT_USAGE;
		}
		if (line > 0 && pps[i] > line * (1 + 1e-9)) {
			fprintf(stderr, "unic-pktgen: error: option --sweep: step %u (%.1f pps of %.0f-byte frames) is beyond tx port %d's link: %u Mbps carries at most %.1f pps of them\n",
				i, pps[i], size, a->o.tx_port, a->link_mbps, line);
			return PG_EXIT_USAGE;
		}
		if (!(pps[i] >= PG_RATE_PPS_MIN) || pps[i] > PG_RATE_PPS_MAX) {
			fprintf(stderr, "unic-pktgen: error: option --sweep: step %u comes to %.6g pps; rates go from %g to %g pps\n",
				i, pps[i], PG_RATE_PPS_MIN, PG_RATE_PPS_MAX);
			return PG_EXIT_USAGE;
		}
	}
	if ((ret = json_out_open(a, &jf)))
		return ret;
	rows = calloc(b->nb_sweep, sizeof(*rows));
	if (rows == NULL) {
		fprintf(stderr, "unic-pktgen: error: out of memory for %u sweep rows\n", b->nb_sweep);
		json_out_close(a, jf);
		return PG_EXIT_FAIL;
	}
	tc->measure_s = b->step_s;
	n = pg_sweep_run(pps, b->nb_sweep, trial_cb, tc, rows, &err);

	struct pg_sweep_info in = {
		.label = b->label, .sizes = a->o.nb_sizes ? a->o.sizes : NULL, .nb_sizes = a->o.nb_sizes,
		.tx_port = a->o.tx_port, .rx_port = a->o.rx_port, .step_s = b->step_s,
		.warmup_s = b->warmup_s, .link_mbps = a->link_mbps, .interrupted = n < b->nb_sweep,
	};
	unsigned range[2] = { a->o.size_lo, a->o.size_hi };

	if (a->o.nb_sizes == 0) {  /* --size-range: its ends */
		in.sizes = range;
		in.nb_sizes = 2;
		in.size_range = true;
	}
	if (a->o.json)
		pg_sweep_json(stdout, &in, rows, n);
	else
		pg_sweep_text(a->out, &in, rows, n);
	if (jf)
		pg_sweep_json(jf, &in, rows, n);
	if (a->csv)
		pg_sweep_csv(a->csv, rows, n);
	for (unsigned i = 0; i < n; i++) {
		sent += rows[i].sent;
		received += rows[i].received;
	}
	free(rows);
	ret = json_out_close(a, jf);
	if (sent > 0 && received == 0) {
		nothing_back_hint(a, sent);
		ret = PG_EXIT_FAIL;
	}
	return a->stalled ? PG_EXIT_FAIL : ret;
}

static int run_rfc2544(struct pg_app *a, struct trial_ctx *tc)
{
	const struct pg_bench_opts *b = &a->o.bench;
	struct pg_search_result *res;
	struct pg_search s = { .loss_tol = b->loss_tol, .resolution_pct = b->resolution_pct };
	double ub[PG_RFC2544_MAX_SIZES];
	uint64_t sent = 0, received = 0;
	unsigned n = 0;
	int ret = 0, rc = 0;
	FILE *jf;

	/* The upper bound of every size, checked before the first frame. */
	for (unsigned i = 0; i < b->nb_frame_sizes; i++) {
		double size = b->frame_sizes[i] - PG_FCS_LEN;
		double line = pg_line_pps(size, a->link_mbps);

		if (a->o.rate.unit == PG_RATE_NONE) {
			if (line <= 0) {
				fprintf(stderr, "unic-pktgen: error: option --rfc2544: tx port %d (%s) does not know its link speed, so there is no line rate to search down from; give the upper bound with --rate (e.g. --rate 1Mpps)\n",
					a->o.tx_port, unic_port_name(a->tx));
				return PG_EXIT_USAGE;
			}
			ub[i] = line;
			continue;
		}
		ub[i] = pg_rate_spec_pps(&a->o.rate, size, a->link_mbps);
		if (line > 0 && ub[i] > line * (1 + 1e-9)) {
			fprintf(stderr, "unic-pktgen: error: option --rate: %.1f pps of %u-byte frames is beyond tx port %d's link: %u Mbps carries at most %.1f pps of them\n",
				ub[i], b->frame_sizes[i], a->o.tx_port, a->link_mbps, line);
			return PG_EXIT_USAGE;
		}
		if (!(ub[i] >= PG_RATE_PPS_MIN)) {
			fprintf(stderr, "unic-pktgen: error: option --rate: the upper bound comes to %.6g pps of %u-byte frames; at least %g\n",
				ub[i], b->frame_sizes[i], PG_RATE_PPS_MIN);
			return PG_EXIT_USAGE;
		}
	}
	if ((ret = json_out_open(a, &jf)))
		return ret;
	res = calloc(b->nb_frame_sizes, sizeof(*res));
	if (res == NULL) {
		fprintf(stderr, "unic-pktgen: error: out of memory for %u search results\n", b->nb_frame_sizes);
		json_out_close(a, jf);
		return PG_EXIT_FAIL;
	}
	tc->measure_s = b->trial_s;
	for (; n < b->nb_frame_sizes && rc == 0; n++) {
		a->o.streams[0].sizes[0] = b->frame_sizes[n] - PG_FCS_LEN;  /* built without the FCS */
		a->o.streams[0].nb_sizes = 1;
		a->sr[0].size_idx = 0;
		s.max_pps = ub[n];
		rc = pg_rfc2544_search(&s, trial_cb, tc, &res[n]);
		if (!a->o.json)
			fprintf(stderr, "unic-pktgen: frame size %u: %u trial(s), %s %.1f pps\n", b->frame_sizes[n],
				res[n].nb_trials, res[n].best >= 0 ? "found" : "nothing passed, rate", res[n].rate_pps);
	}

	struct pg_rfc2544_info in = {
		.label = b->label, .mode = b->mode, .loss_tol = b->loss_tol, .trial_s = b->trial_s,
		.warmup_s = b->warmup_s, .resolution_pct = b->resolution_pct, .tx_port = a->o.tx_port,
		.rx_port = a->o.rx_port, .link_mbps = a->link_mbps, .interrupted = rc != 0,
	};

	if (a->o.json)
		pg_rfc2544_json(stdout, &in, b->frame_sizes, res, n);
	else
		pg_rfc2544_text(a->out, &in, b->frame_sizes, res, n);
	if (jf)
		pg_rfc2544_json(jf, &in, b->frame_sizes, res, n);
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < res[i].nb_trials; k++) {
			sent += res[i].trials[k].sent;
			received += res[i].trials[k].received;
		}
	free(res);
	ret = json_out_close(a, jf);
	if (sent > 0 && received == 0) {
		nothing_back_hint(a, sent);
		ret = PG_EXIT_FAIL;
	}
	return a->stalled ? PG_EXIT_FAIL : ret;
}

int main(int argc, char **argv)
{
	static struct pg_app a;
	struct unic_env_options eo;
	struct unic_env *env = NULL;
	struct unic_telemetry *tel = NULL;
	struct unic_port *ports[UNIC_PORT_MAX];
	unsigned nports, max_size = 0, mtu;
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
		mtu = 0;
		for (unsigned i = 0; i < a.o.nb_streams; i++) {
			unsigned m = pg_stream_max_size(&a.o.streams[i]);
			unsigned l3 = m - PG_ETH_LEN - (a.o.streams[i].vlan ? PG_VLAN_LEN : 0);

			max_size = m > max_size ? m : max_size;
			mtu = l3 > mtu ? l3 : mtu;
		}
	}

	env = unic_env_create(&eo);
	if (env == NULL) {
		fprintf(stderr, "unic-pktgen: cannot set up the environment: %s (the message above says why)\n",
			strerror(errno));
		goto out;
	}
	/* Its line on stderr: stdout may carry --json or --csv. */
	pg_rate_req_init(&a.req);
	pthread_mutex_init(&a.snap.lock, NULL);
	if (app_telemetry_start(&eo, "pktgen", stderr, tel_register, &a, &tel) < 0)
		goto out;
	if (setup_interrupted("after creating the ports"))
		goto out;
	nports = unic_env_ports(env, ports, UNIC_PORT_MAX);
	for (unsigned i = 0; i < a.o.nb_streams; i++) {
		const struct pg_stream_spec *sp = &a.o.streams[i];
		bool tx_bad = (unsigned)sp->tx_port >= nports;

		if (!tx_bad && (unsigned)sp->rx_port < nports)
			continue;
		if (a.o.legacy_stream && i == 0)
			fprintf(stderr, "unic-pktgen: error: option %s: port %d does not exist; %u port(s) were created (0..%d: PCI devices, then --vdev in order)\n",
				tx_bad ? "--tx-port" : "--rx-port", tx_bad ? sp->tx_port : sp->rx_port, nports,
				(int)nports - 1);
		else
			fprintf(stderr, "unic-pktgen: error: stream %u: key %s: port %d does not exist; %u port(s) were created (0..%d: PCI devices, then --vdev in order)\n",
				i, tx_bad ? "tx" : "rx", tx_bad ? sp->tx_port : sp->rx_port, nports, (int)nports - 1);
		ret = PG_EXIT_USAGE;
		goto out;
	}
	if (setup_streams(&a, ports) != 0) {
		ret = PG_EXIT_USAGE;
		goto out;
	}
	a.tx = a.txp[0].port;
	a.rx = a.rxp[0].port;
	a.env = env;
	a.tx_role = a.rx_role = true;  /* thread 0: tx queue 0 and rx queue 0 */
	a.core = eo.nb_cores ? eo.cores[0] : -1;
	a.nb_thr = a.o.txq > a.o.rxq ? a.o.txq : a.o.rxq;
	if (a.nb_thr > 1) {
		const char *opt = a.o.txq >= a.o.rxq ? "--txq" : "--rxq";

		if (eo.nb_cores < a.nb_thr) {
			fprintf(stderr, "unic-pktgen: error: option %s %u: %u threads (one a queue) need %u cores in -l, the first the main thread's (e.g. -l 0-%u); %s\n",
				opt, a.nb_thr, a.nb_thr, a.nb_thr, a.nb_thr - 1,
				eo.nb_cores ? "-l gives fewer" : "no -l was given");
			ret = PG_EXIT_USAGE;
			goto out;
		}
		for (unsigned k = 0; k < a.nb_ports; k++) {
			struct unic_port_info pi = { 0 };

			unic_port_info_get(a.ports[k], &pi);
			if (pi.max_txq < a.o.txq || pi.max_rxq < a.o.rxq) {
				bool t = pi.max_txq < a.o.txq;

				fprintf(stderr, "unic-pktgen: error: option %s %u: port %d (%s, driver %s) has at most %u %s queue(s); give at most that\n",
					t ? "--txq" : "--rxq", t ? a.o.txq : a.o.rxq, a.port_idx[k],
					unic_port_name(a.ports[k]), pi.driver, t ? pi.max_txq : pi.max_rxq, t ? "tx" : "rx");
				ret = PG_EXIT_USAGE;
				goto out;
			}
		}
	} else {
		a.nb_thr = 1;
	}
	a.tsc_ok = tsc_invariant(a.tsc_missing, sizeof(a.tsc_missing));

	{
		struct unic_port_info ti = { 0 }, ri = { 0 };

		unic_port_info_get(a.tx, &ti);
		unic_port_info_get(a.rx, &ri);
		for (unsigned k = 0; k < a.nb_rxp; k++) {
			struct unic_port_info xi = { 0 };

			unic_port_info_get(a.rxp[k].port, &xi);
			if (!xi.rx_synthetic)
				continue;
			fprintf(stderr, "unic-pktgen: error: option %s: port %d (%s) cannot receive what was sent: its driver (%s) makes received packets up (old buffers, which may still hold this run's stamps), so received, lost and latency would be nonsense; receive on a port the frames reach, e.g. a ring pair (--vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1) or a NIC\n",
				a.o.legacy_stream && a.rxp[k].idx == a.o.rx_port ? "--rx-port" : "--stream (key rx)",
				a.rxp[k].idx, unic_port_name(a.rxp[k].port), xi.driver);
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
		/* Room for the MTU's frame as the port counts it (tag, FCS). */
		uint16_t dataroom = (uint16_t)(max_size + 64 > UNIC_PKT_DATAROOM_DEFAULT ? max_size + 64 : 0);

		if (make_pools(&a, env, dataroom) != 0)
			goto out;
	}
	for (unsigned k = 0; k < a.nb_ports; k++)
		if (setup_port(a.ports[k], a.port_idx[k], a.pools[k], mtu, a.o.rxd, a.o.rxq, a.o.txq))
			goto out;
	for (unsigned k = 0; a.o.promisc && k < a.nb_rxp; k++) {
		n = unic_port_promisc_set(a.rxp[k].port, true);
		if (n) {
			fprintf(stderr, "unic-pktgen: cannot make rx port %d (%s) promiscuous (-P): %s\n",
				a.rxp[k].idx, unic_port_name(a.rxp[k].port), strerror(-n));
			goto out;
		}
	}
	/* Every port's link, up to 3 s each, in slices a signal can end (a
	 * memif client still connecting: frames sent before it is up come
	 * back to no one). */
	for (unsigned k = 0; k < a.nb_ports; k++) {
		struct unic_link l = { 0 };

		for (int i = 0; i < 30 && !g_signals && unic_port_link_get(a.ports[k], &l) == 0 && !l.up; i++)
			unic_port_link_wait(a.ports[k], 100, &l);
		for (unsigned t = 0; t < a.nb_txp; t++)
			if (a.txp[t].port == a.ports[k])
				a.txp[t].link_mbps = l.up ? l.speed_mbps : 0;
	}
	a.link_mbps = a.txp[0].link_mbps;
	a.hz = unic_tsc_hz();
	unic_tsc_clock_init(&a.clk);
	a.ns_per_cycle = 1e9 / (double)a.hz;
	if (pg_rate_init(&a.rate, &a.o.rate, a.hz, a.link_mbps, err, sizeof(err)) ||
	    streams_rates_init(&a, err, sizeof(err))) {
		fprintf(stderr, "unic-pktgen: error: %s\n", err);
		ret = PG_EXIT_USAGE;
		goto out;
	}
	streams_rates_split(&a);
	if (streams_rx_init(&a, err, sizeof(err))) {
		fprintf(stderr, "unic-pktgen: error: %s\n", err);
		goto out;
	}
	pg_hist_init(&a.lat_sec);
	pg_hist_init(&a.lat_tot);
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
		if (!a.o.bench.sweep_arg)  /* a sweep writes its rows instead */
			pg_csv_header_streams(a.csv, a.nb_sr > 1);
	}
	if (setup_interrupted("before the run"))
		goto out;
	if (!a.o.json && a.nb_sr == 1)
		fprintf(a.out, "unic-pktgen: tx port %d (%s) -> rx port %d (%s), TSC %.6f GHz, link %u Mbps\n",
			a.txp[0].idx, unic_port_name(a.tx), a.rxp[0].idx, unic_port_name(a.rx),
			(double)a.hz / 1e9, a.link_mbps);
	else if (!a.o.json)
		streams_header(&a);
	if (!a.o.json && !a.o.bench.sweep_arg && a.o.bench.mode == PG_RFC2544_NONE)
		fprintf(a.out, "unic-pktgen: %s\n", PG_TIMESTAMP_NOTE);
	if (!a.o.json && a.nb_thr > 1) {
		fprintf(a.out, "unic-pktgen: %u threads: thread t sends on tx queue t (t < %u) and receives on rx queue t (t < %u) of each port; cores", 
			a.nb_thr, a.o.txq, a.o.rxq);
		for (unsigned t = 0; t < a.nb_thr; t++)
			fprintf(a.out, "%s%d", t ? "," : " ", eo.cores[t]);
		fprintf(a.out, " (thread 0 is the main thread: screen, telemetry, report)\n");
		if (a.tsc_ok)
			fprintf(a.out, "unic-pktgen: TSC invariant (constant_tsc, nonstop_tsc): a latency across cores subtracts two cores' TSCs, which the kernel keeps in step\n");
		else
			fprintf(a.out, "unic-pktgen: TSC NOT invariant (/proc/cpuinfo lacks %s): latency only of frames received by the thread that sent them; none across cores\n",
				a.tsc_missing);
	}
	if (!a.o.json && a.cap.nb)
		fprintf(a.out, "unic-pktgen: replay %s: %u frames, %" PRIu64 " bytes, largest %u; sending %" PRIu64 " frames%s\n",
			a.o.replay, a.cap.nb, a.cap.bytes, a.cap.max_len, a.o.count,
			a.o.count ? "" : " (until --duration)");
	fflush(a.out);  /* the run starts now: a reader of a pipe sees it */

	bool live = !a.o.json && !a.o.quiet && isatty(STDERR_FILENO);

	/* Not a terminal (a pipe, a file, CI): a line a second instead. */
	a.lines = !a.o.json && !a.o.quiet && !isatty(fileno(a.out));

	if (threads_start(&a, &eo)) {
		g_stop = 1;
		goto out;
	}
	if (a.o.bench.sweep_arg || a.o.bench.mode != PG_RFC2544_NONE) {
		struct trial_ctx tc = { .a = &a, .warmup_s = a.o.bench.warmup_s };

		ret = a.o.bench.sweep_arg ? run_sweep(&a, &tc) : run_rfc2544(&a, &tc);
		goto out;
	}
	a.cur_rate = a.o.rate;
	if ((live || a.lines) && a.lat_sec_s == NULL && !a.cap.nb) {  /* the screen's latency of the last second */
		a.lat_sec_s = malloc(a.nb_sr * sizeof(*a.lat_sec_s));
		for (unsigned i = 0; a.lat_sec_s && i < a.nb_sr; i++)
			pg_hist_init(&a.lat_sec_s[i]);
	}
	a.keys = live && term_raw();
	__atomic_store_n(&a.phase, 1, __ATOMIC_RELEASE);
	run_loop(&a, live, false, 0);
	threads_stop(&a);
	threads_merge(&a);
	snap_publish(&a, unic_tsc_clock_ns(&a.clk));
	__atomic_store_n(&a.phase, 2, __ATOMIC_RELEASE);
	term_restore();
	a.t_end_ns = unic_tsc_clock_ns(&a.clk);
	for (unsigned k = 0; k < a.nb_txp; k++)
		port_counts_get(a.txp[k].port, "hw_tx_good_packets", &a.txp[k].c);
	for (unsigned k = 0; k < a.nb_rxp; k++)
		port_counts_get(a.rxp[k].port, "hw_rx_good_packets", &a.rxp[k].c);
	a.txc = a.txp[0].c;
	a.rxc = a.rxp[0].c;
	if (live)
		fprintf(stderr, "\n");
	if (a.csv)
		csv_tick(&a, a.t_end_ns);  /* the part-second at the end */
	report(&a);
	ret = a.stalled ? PG_EXIT_FAIL : PG_EXIT_OK;
	if (a.sent > 0 && (a.cap.nb ? a.rs.frames : stream_frames_back(&a)) == 0) {
		/* Nothing measured: a wrong port or a missing -P, far more often
		 * than a path that really lost everything. */
		if (a.nb_rxp == 1)
			fprintf(stderr, "unic-pktgen: none of the %" PRIu64 " frames sent came back on rx port %d (%s)",
				a.sent, a.rxp[0].idx, unic_port_name(a.rx));
		else
			fprintf(stderr, "unic-pktgen: none of the %" PRIu64 " frames sent came back on the %u rx ports",
				a.sent, a.nb_rxp);
		if (a.rs.frames)
			fprintf(stderr, "; it received %" PRIu64 " other frames (%" PRIu64 " without a valid stamp, %" PRIu64
				" stamped by another sender)", a.rs.frames, a.rs.no_stamp, a.rs.other_stream);
		fprintf(stderr, ". Check that the rx port is where the tx port's frames arrive (the cabling or the ring's peer=; "
			"behind unic-l2fwd, which rewrites the destination address, give -P) and that its link is up\n");
		ret = PG_EXIT_FAIL;
	}
out:
	if (!a.merged && a.nb_thr > 1) {
		threads_stop(&a);
		threads_merge(&a);
	}
	unic_telemetry_stop(tel);
	drop_all_pending(&a);
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
	free(a.lat_sec_s);
	free(a.csv_prev_s);
	pg_rxstats_fini(&a.rs);
	pg_capture_free(&a.cap);
	for (unsigned k = 0; k < a.nb_ports; k++)
		if (unic_port_state(a.ports[k]) == UNIC_PORT_STARTED)
			unic_port_stop(a.ports[k]);
	for (unsigned k = 0; k < a.nb_ports; k++)
		unic_port_close(a.ports[k]);
	for (unsigned k = 0; k < a.nb_ports; k++)
		unic_pool_destroy(a.pools[k]);
	unic_env_destroy(env);
	return ret;
}
