/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-l2fwd: forward every frame received on a port to its paired port,
 * rewriting the Ethernet addresses on the way. See docs/l2fwd.md.
 *
 * l2fwd_opts.c: the application's options and port pairing (pure functions,
 *               unit-tested).
 * fwd.c:        the worker threads: one napi context each, the handler.
 * main.c:       setup, periodic statistics, teardown.
 */
#ifndef L2FWD_H
#define L2FWD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <unic/common.h>
#include <unic/counter.h>

#include <unic/napi.h>
#include <unic/port.h>

/* Exit codes (docs/l2fwd.md). */
#define L2FWD_EXIT_OK    0 /* ran and stopped (duration, SIGINT, SIGTERM) */
#define L2FWD_EXIT_FAIL  1 /* setup or run-time failure: memory, ports, threads */
#define L2FWD_EXIT_USAGE 2 /* bad command line: option, value, port mask, port map */

#define L2FWD_MAX_PORTS 64 /* ports the mask can name: bits 0..63 */
#define L2FWD_TX_DRAIN_MAX_US 1000 /* --tx-drain-us: at most a millisecond */

/* --stats-format: how the periodic statistics look (docs/l2fwd.md). */
enum l2fwd_stats_format {
	L2FWD_STATS_TEXT = 0,       /* scrolling blocks (default) */
	L2FWD_STATS_JSON,           /* one JSON object per line (--json) */
	L2FWD_STATS_DPDK,           /* DPDK l2fwd's screen, for scripts that parse it */
};

struct l2fwd_opts {
	uint64_t portmask;          /* 0: not given */
	unsigned ports_per_thread;  /* -q, 1..L2FWD_MAX_THREAD_PORTS */
	bool ports_per_thread_set;  /* -q given: else the ports are shared out over the cores */
	uint16_t nb_queues;         /* --queues: rx and tx queues per port (RSS), 1..UNIC_PORT_MAX_QUEUES */
	double stats_period;        /* -T seconds; 0: no periodic stats */
	double duration;            /* -t seconds; 0: until SIGINT/SIGTERM */
	bool promisc;               /* -P */
	bool mac_updating;          /* default on */
	bool irq_affinity;          /* default on: rx IRQs to the polling thread's core */
	enum l2fwd_stats_format stats_format; /* --stats-format, --json */
	bool help;
	unsigned nb_pairs;          /* --portmap */
	uint16_t pairs[L2FWD_MAX_PORTS][2];
	enum unic_rx_mode mode;     /* --rx-mode */
	uint32_t budget;            /* 0: engine default */
	uint16_t weight;            /* per rx queue, packets per poll */
	uint32_t hybrid_empty_polls;
	uint32_t hybrid_idle_us;
	uint32_t latency_target_us; /* 0: none (the adaptive policy, docs/napi.md) */
	uint32_t cpu_budget;        /* percent; 0: the engine's default */
	uint32_t tx_drain_us;       /* --tx-drain-us: hold tx bursts while frames come this close; 0: never */
	bool moderation_fixed;      /* --moderation fixed: the policy leaves the devices' rx-usecs alone */
	bool stamp_age;             /* --stamp-age: time unic-pktgen's stamped frames from their send to here */
	uint32_t retry_us;
	uint32_t max_sleep_ms;
	uint16_t rxd, txd;          /* 0: the driver's default */
};

/* Fill @p o with the defaults. */
void l2fwd_opts_init(struct l2fwd_opts *o);

/*
 * Parse the application's options (argv[1..argc-1], what unic_env_parse left).
 * @return 0, or -EINVAL with a message in @p err naming the option, the value
 * and the accepted forms.
 */
int l2fwd_opts_parse(struct l2fwd_opts *o, int argc, char **argv, char *err, size_t errlen);

/* The napi configuration of every forwarding thread, from the options
 * (mode, budget, the hybrid and adaptive knobs, --moderation). */
void l2fwd_napi_conf(const struct l2fwd_opts *o, struct unic_napi_conf *c);

/* Parse "(0,1)(2,3)" into o->pairs. @return 0 or -EINVAL (message in err). */
int l2fwd_portmap_parse(struct l2fwd_opts *o, const char *s, char *err, size_t errlen);

/*
 * Decide where each port forwards. @p nb_ports ports exist (0..nb_ports-1).
 * dst[p] is p's destination, or -1 for a port not used. Without --portmap:
 * the ports of the mask (all ports when none was given) pair in order, 0<->1,
 * 2<->3; an odd one out forwards to itself (a notice in @p note). With
 * --portmap: the map's pairs; without -p the mask is the map's ports, with -p
 * they must be the same set.
 * @return the number of ports used (>= 1), or -EINVAL (message in err).
 */
int l2fwd_pair_ports(const struct l2fwd_opts *o, unsigned nb_ports, int *dst,
		     char *err, size_t errlen, char *note, size_t notelen);

/* Where the forwarding runs (l2fwd_plan_threads). */
struct l2fwd_plan {
	unsigned nb_threads;        /* forwarding threads, >= 1 */
	unsigned per_thread;        /* ports per thread (the last may have fewer) */
	bool own_threads;           /* no -l: unpinned threads of the application's own */
	bool main_forwards;         /* the last thread is the main thread, on the main core */
};

/*
 * Share @p nb_used ports out over the cores. @p nb_cores: the cores -l gave
 * (0: none; the first is the main core, the others workers). Without -l the
 * application starts its own unpinned threads, -q ports each. With -l:
 * without -q the ports are shared out evenly over the worker cores; with -q,
 * one thread per -q ports, and, as in DPDK's l2fwd, the main core forwards
 * too when the worker cores are one short. With the main core alone, it
 * forwards every port and prints the statistics between bursts.
 * @return 0, or -EINVAL (message in err: ports, -q, cores and what to give);
 * @p note gets a one-line notice, or "".
 */
int l2fwd_plan_threads(const struct l2fwd_opts *o, unsigned nb_used, unsigned nb_cores,
		       struct l2fwd_plan *pl, char *err, size_t errlen, char *note, size_t notelen);

/* The --help text. */
void l2fwd_usage(FILE *f, const char *prog);

/* ---- forwarding (fwd.c) ------------------------------------------------- */

/* Counters of one port, each line written by one thread. */
/* --stamp-age: buckets of a frame's age in ns, 8 to a power of two (an
 * eighth of it wide: 12.5% resolution) up to 2^40 ns; the first 8 are
 * 0..7 ns, one each (l2fwd_age_bucket(), l2fwd_age_bucket_top()). */
#define L2FWD_AGE_SUB 8
#define L2FWD_AGE_BUCKETS (38 * L2FWD_AGE_SUB)

static inline unsigned l2fwd_age_bucket(uint64_t ns)
{
	unsigned msb, b;

	if (ns < L2FWD_AGE_SUB)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns);         /* >= 3 */
	b = (msb - 2) * L2FWD_AGE_SUB + (unsigned)((ns >> (msb - 3)) & (L2FWD_AGE_SUB - 1));
	return b < L2FWD_AGE_BUCKETS ? b : L2FWD_AGE_BUCKETS - 1;
}

/* The upper edge (exclusive) of bucket @p b, ns. */
static inline uint64_t l2fwd_age_bucket_top(unsigned b)
{
	unsigned oct = b / L2FWD_AGE_SUB, sub = b % L2FWD_AGE_SUB;

	if (oct == 0)
		return b + 1;
	return (uint64_t)(L2FWD_AGE_SUB + sub + 1) << (oct - 1);
}

struct l2fwd_port_counters {
	struct unic_counter rx UNIC_CACHE_ALIGNED;  /* by the thread that polls this port */
	struct unic_counter tx UNIC_CACHE_ALIGNED;  /* by the thread that forwards to it */
	struct unic_counter dropped;                /* same thread: not taken by tx_burst */
	/* --stamp-age, by the thread that polls this port: frames received
	 * with unic-pktgen's stamp (their age: its send -> this handler, on
	 * the TSC both read), and frames without one. */
	struct unic_counter stamped UNIC_CACHE_ALIGNED, unstamped;
	struct unic_counter age_ns[L2FWD_AGE_BUCKETS];
	/* The same frames' ages once the thread's transmit call for them
	 * returned (the tail write done; with --tx-drain-us, held or sent). */
	struct unic_counter sent_age_ns[L2FWD_AGE_BUCKETS];
	/* How long the handler's forwarding of a burst with stamped frames
	 * took (the rewrite and the transmit call), one count a burst. */
	struct unic_counter tx_call_ns[L2FWD_AGE_BUCKETS];
};

/* What one rx queue forwards to. */
/*
 * --tx-drain-us: frames to send on one tx queue, held while the frames of
 * its route come less than the drain time apart (docs/l2fwd.md, "Transmit
 * batching"): at most L2FWD_TXB_MAX, and none longer than the drain time.
 * Written by the route's thread only.
 */
#define L2FWD_TXB_MAX 32
struct l2fwd_txbuf {
	struct unic_pkt *pkts[L2FWD_TXB_MAX];
	uint16_t n;
	uint64_t first_tsc;              /* when the oldest held frame came (TSC) */
	uint64_t last_tsc;               /* the route's last burst on this queue (TSC); 0: none */
};

struct l2fwd_route {
	struct unic_port *in, *out;
	uint16_t in_idx, out_idx;
	bool mac_updating;
	uint8_t hdr[12];                 /* new destination + source address */
	struct l2fwd_port_counters *in_cnt, *out_cnt;
	struct l2fwd_txbuf *txb;         /* [tx queues] with --tx-drain-us; NULL: each burst sent at once */
	uint64_t drain_tsc;              /* --tx-drain-us in TSC ticks */
	uint64_t stamp_hz;               /* --stamp-age: the TSC's rate; 0: off */
};

/* Ports one thread polls. */
#define L2FWD_MAX_THREAD_PORTS 8

struct l2fwd_worker {
	unsigned idx;
	struct unic_napi_ctx *ctx;
	struct l2fwd_route *routes[L2FWD_MAX_THREAD_PORTS];
	unsigned nb_routes;
	uint16_t nb_queues;              /* rx queues per port (and tx queues) */
	uint16_t weight;
	struct unic_pool *const *pools;  /* each port's pool, by port number (NULL: none) */
	unsigned nb_pools;
	const bool *stop;
	int core;                        /* -1: not pinned */
	FILE *err;                       /* setup errors; NULL: stderr */
	/* Set by the thread: its CPU clock while it runs, its CPU time at the end. */
	int cpu_clock_ok;
	clockid_t cpu_clock;
	uint64_t cpu_ns_final;
	int ret;
};

/* Create the worker's context and add its queues. @return 0 or -errno. */
int l2fwd_worker_setup(struct l2fwd_worker *w, const struct unic_napi_conf *conf);
/* The thread is done: send the frames it holds (--tx-drain-us), then
 * return its cache of every pool. */
void l2fwd_worker_flush(struct l2fwd_worker *w);
/* Thread body: run the context until *stop. */
int l2fwd_worker_main(void *arg);
/* The napi handler (exported for the unit tests). */
uint16_t l2fwd_handle(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
		      uint16_t n, void *arg);
/* --tx-drain-us: give @p r held frames (@p nb_queues buffers), drain
 * time @p drain_us; 0 leaves it sending at once. @return 0 or -ENOMEM. */
int l2fwd_route_txb_init(struct l2fwd_route *r, uint16_t nb_queues, uint32_t drain_us);
void l2fwd_route_txb_free(struct l2fwd_route *r);
/* Send the frames held on @p r's tx queue @p q now (every frame: what the
 * queue does not take is freed and counted dropped). */
void l2fwd_txb_flush(struct l2fwd_route *r, uint16_t q);
/* The worker's napi hooks: send what waited its drain time (each round),
 * and sleep no longer than the oldest held frame may wait. */
void l2fwd_txb_round(struct l2fwd_worker *w, uint64_t now_tsc);
uint64_t l2fwd_txb_deadline_ns(const struct l2fwd_worker *w);

/* ---- the application (main.c, stats.c) -------------------------------------- */

struct l2fwd_app {
	struct l2fwd_opts opts;
	struct unic_port *ports[L2FWD_MAX_PORTS];   /* every port, by number */
	unsigned nb_ports;
	int dst[L2FWD_MAX_PORTS];                   /* -1: not used */
	struct l2fwd_port_counters *cnt;            /* [nb_ports] */
	struct l2fwd_route routes[L2FWD_MAX_PORTS];
	struct l2fwd_worker workers[L2FWD_MAX_PORTS];
	unsigned nb_workers;
	FILE *out;                                  /* stats: stdout */
	FILE *info;                                 /* set-up notes: stdout, stderr with --json */
	struct unic_pool *pools[L2FWD_MAX_PORTS];   /* each port's packet pool, by number; NULL: unused port */
};

/* --stamp-age: count @p n received frames' ages into @p c (fwd.c); each
 * frame's stamp (0: none) goes to tsc[i], for l2fwd_sent_ages.
 * @return the frames with a stamp. */
uint16_t l2fwd_stamp_ages(struct l2fwd_port_counters *c, uint64_t hz, struct unic_pkt **pkts, uint16_t n,
			  uint64_t *tsc);
/* --stamp-age: the ages now of the @p n stamps l2fwd_stamp_ages gave
 * (those not 0), into c->sent_age_ns: after their transmit call. */
void l2fwd_sent_ages(struct l2fwd_port_counters *c, uint64_t hz, const uint64_t *tsc, uint16_t n);
/* --stamp-age: a burst's forwarding took from TSC @p t0 to @p t1: into
 * c->tx_call_ns. */
void l2fwd_tx_call(struct l2fwd_port_counters *c, uint64_t hz, uint64_t t0, uint64_t t1);

/* A snapshot of every counter at one instant. */
struct l2fwd_snap {
	uint64_t t_ns;                              /* CLOCK_MONOTONIC */
	uint64_t rx[L2FWD_MAX_PORTS], tx[L2FWD_MAX_PORTS], dropped[L2FWD_MAX_PORTS];
	struct unic_port_stats port[L2FWD_MAX_PORTS];
	bool port_ok[L2FWD_MAX_PORTS];
	/* The hardware's good-packet counters (xstats), where the driver has them. */
	uint64_t hw_rx[L2FWD_MAX_PORTS], hw_tx[L2FWD_MAX_PORTS];
	bool hw_ok[L2FWD_MAX_PORTS];
	struct unic_napi_ctx_stats napi[L2FWD_MAX_PORTS];
	uint64_t cpu_ns[L2FWD_MAX_PORTS];
	/* The packet pools, every port's summed: their size, and packets taken
	 * and not returned (rx rings, tx descriptors not yet reclaimed, bursts
	 * in flight; not the threads' caches). */
	uint32_t pool_size, pool_in_use;
};

void l2fwd_snap(struct l2fwd_app *app, struct l2fwd_snap *s);

struct unic_telemetry;
/* Add /l2fwd/threads: each thread's figures (the counters the reports print). */
void l2fwd_telemetry_register(struct unic_telemetry *tel, void *app);
/* Print the figures between two snapshots; @p final: the totals at exit. */
void l2fwd_report(struct l2fwd_app *app, const struct l2fwd_snap *a, const struct l2fwd_snap *b,
		  bool final);
/* DPDK l2fwd's statistics screen from the counters of @p b, to @p f. */
void l2fwd_report_dpdk(FILE *f, const struct l2fwd_app *app, const struct l2fwd_snap *b);

#endif /* L2FWD_H */
