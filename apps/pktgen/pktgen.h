/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen's own state and the functions its files share: main.c (the
 * options, set-up order, teardown), setup.c, tx.c, rx.c, loop.c, screen.c,
 * report.c, bench.c. docs/pktgen.md.
 */
#ifndef PG_PKTGEN_H
#define PG_PKTGEN_H

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


#define PG_BURST 32
#define PG_TX_STALL_NS 2000000000ull /* the tx port taking nothing this long stops the run */
#define PG_POOL_CACHE 256

/* The stamp's stream id is the tx port number, whole. */
static_assert(UNIC_PORT_MAX - 1 <= UINT16_MAX, "a port number must fit the stamp's 16-bit stream id");

/*
 * pg_stop: stop sending (a signal, or a stalled tx port). pg_signals: SIGINT
 * and SIGTERM received (2 at most). The first stops sending, and the run
 * then waits up to DRAIN_NS for frames in flight; a second ends that wait
 * at once. Neither skips stopping the ports. The handlers are installed
 * first thing, so a signal during set-up ends the run once the current
 * set-up step returns, before anything is sent.
 */
extern volatile sig_atomic_t pg_stop, pg_signals;
extern bool pg_key_quit;  /* the q key of the live screen stopped sending */

/* The ports' own counters at the end of the run, to set beside ours. */
struct pg_port_counts {
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
	struct unic_pkt *pend[PG_BURST];
	unsigned pend_size[PG_BURST];
	uint16_t pend_stream[PG_BURST];
	unsigned npend;
	uint64_t last_take_ns;     /* the port last took a frame */
	uint64_t full_bursts;      /* tx_burst calls it took fewer of than asked */
	unsigned streams[PG_MAX_STREAMS], nb_streams, rr;  /* its streams; the next to try */
	uint64_t sent, sent_bytes;
	struct pg_port_counts c;
};

/* A port the streams receive on. */
struct pg_rxp {
	int idx;
	struct unic_port *port;
	uint64_t frames, bytes;
	struct pg_port_counts c;
};

#define PG_RATE_CHANGES_MAX 16  /* rate changes the report lists (all are counted) */

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
	struct pg_port_counts txc, rxc;  /* stream 0's ports */
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
	struct pg_pub tot;         /* the sum of every thread's counts (pg_pub_total) */
	struct pg_hist lat_tot;    /* the workers' latency since the screen last took it */
	struct pg_thr_stat tst[PG_MAX_QUEUES];
	bool lines;                /* a line a second (not a terminal) */
	bool merged;               /* the workers' counts are in this app's own */
	struct unic_env *env;
};

/* What a trial callback (trial.h) needs of the run. */
struct pg_trial_ctx {
	struct pg_app *a;
	double measure_s, warmup_s;
};

/* Ports, pools and streams (setup.c) */
int pg_make_pools(struct pg_app *a, struct unic_env *env, uint16_t dataroom);
struct unic_pool *pg_port_pool(const struct pg_app *a, const struct unic_port *port);
int pg_setup_port(struct unic_port *port, int idx, struct unic_pool *pool, unsigned mtu,
		  uint16_t rxd, unsigned nb_rxq, unsigned nb_txq);
int pg_setup_streams(struct pg_app *a, struct unic_port **ports);
void pg_streams_header(const struct pg_app *a);
int pg_streams_rates_init(struct pg_app *a, char *err, size_t errlen);
void pg_streams_rates_split(struct pg_app *a);
int pg_streams_rx_init(struct pg_app *a, char *err, size_t errlen);
bool pg_tsc_invariant(char *missing, size_t len);

/* The transmit path (tx.c) */
void pg_do_tx(struct pg_app *a, struct pg_txp *t);
void pg_drop_all_pending(struct pg_app *a);
void pg_tx_clock_round(struct pg_app *a, uint64_t *prev_tsc);
void pg_tx_clock_start(struct pg_app *a);
void pg_tx_clock_stop(struct pg_app *a);
bool pg_tx_done(const struct pg_app *a, uint64_t now_ns);
void pg_tx_step(struct pg_app *a, uint64_t now_ns);

/* The receive path (rx.c) */
void pg_poll_rx(struct pg_app *a);
bool pg_trial_frame_stale_q(const struct pg_app *a, enum pg_parse_result r, const struct pg_stamp *s);

/* The run loop and the threads (loop.c) */
uint64_t pg_pub_lost(const struct pg_app *a, const struct pg_pub *p, unsigned i);
void pg_pub_total(struct pg_app *a);
void pg_run_loop(struct pg_app *a, bool live, bool trial, uint64_t warmup_ns);
uint32_t pg_stream_link(const struct pg_app *a, const struct pg_stream_run *sr);
void pg_threads_merge(struct pg_app *a);
int pg_threads_start(struct pg_app *a, const struct unic_env_options *eo);
void pg_threads_stop(struct pg_app *a);

/* The live screen, telemetry and rate changes (screen.c) */
void pg_keys_poll(struct pg_app *a, uint64_t now_ns);
void pg_rate_apply(struct pg_app *a, const struct pg_rate_spec *spec, uint64_t now_ns);
void pg_rate_apply_slice(struct pg_app *a, const struct pg_rate_spec *spec);
void pg_screen_draw(struct pg_app *a, uint64_t now_ns, double dt, bool live);
void pg_snap_publish(struct pg_app *a, uint64_t now_ns);
void pg_tel_register(struct unic_telemetry *tel, void *arg);
bool pg_term_raw(void);
void pg_term_restore(void);

/* Reports and the CSV (report.c) */
void pg_csv_tick(struct pg_app *a, uint64_t now_ns);
void pg_port_counts_get(struct unic_port *port, const char *hw_name, struct pg_port_counts *c);
void pg_report(struct pg_app *a);
uint64_t pg_stream_frames_back(const struct pg_app *a);

/* Sweeps and the RFC 2544 search (bench.c) */
int pg_run_rfc2544(struct pg_app *a, struct pg_trial_ctx *tc);
int pg_run_sweep(struct pg_app *a, struct pg_trial_ctx *tc);

#endif /* PG_PKTGEN_H */
