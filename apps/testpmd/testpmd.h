/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd: an interactive, scriptable control and forwarding CLI in the
 * manner of DPDK's testpmd. docs/testpmd.md.
 *
 * cmd.c:   the command table, parser, help and completion (pure; cmd.h).
 * exec.c:  what each command does.
 * show.c:  the "show" commands' output.
 * ports.c: each port's wanted configuration, applied at port start; pools;
 *          attach and detach.
 * fwd.c:   the forwarding engines and threads (one napi context each);
 *          noisy.c the noisy engine, dump.c set verbose's packet dump.
 * main.c:  options, the environment, the interactive (libedit) and batch
 *          loops.
 *
 * Threads: the main thread runs every command. Forwarding threads only run
 * their napi context; a command that changes which ports forward stops them
 * (a round boundary), changes the ports, and starts them again.
 */
#ifndef TESTPMD_H
#define TESTPMD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <unic/common.h>
#include <unic/counter.h>
#include <unic/napi.h>
#include <unic/port.h>

#include "cmd.h"
#include "opts.h"

#define TP_MAX_PORTS    64
#define TP_MAX_QUEUES   UNIC_PORT_MAX_QUEUES
#define TP_MAX_THREADS  64
#define TP_MAX_POOLS    256
#define TP_BURST_MAX    256
#define TP_POOL_CACHE   256
#define TP_NODE_PORT    (-2) /* tp_app.pool_node: each port's own node */
#define TP_MAX_MCAST    16
#define TP_MAX_MACS     16

/* Exit codes (docs/testpmd.md). */
#define TP_EXIT_OK    0
#define TP_EXIT_CMD   1 /* batch: a command failed (without --continue) */
#define TP_EXIT_FAIL  3 /* set-up failure: memory, devices */
#define TP_EXIT_USAGE 2 /* bad command line */

/* Order as in the "set fwd" syntax. */
enum tp_engine { TP_FWD_IO, TP_FWD_MAC, TP_FWD_MACSWAP, TP_FWD_RXONLY, TP_FWD_TXONLY,
		 TP_FWD_FLOWGEN, TP_FWD_CSUM, TP_FWD_ICMPECHO, TP_FWD_5TSWAP, TP_FWD_NOISY,
		 TP_FWD_COUNT };

const char *tp_engine_name(enum tp_engine e);

/* The napi engine's knobs of one port (0: the engine's default). */
struct tp_knobs {
	uint32_t budget, weight, empty_polls, idle_us, max_sleep_ms;
	uint32_t latency_target_us, cpu_budget; /* hybrid's adaptive policy (docs/napi.md) */
	/* The policy leaves the port's rx-usecs alone ("set rx-mode ...
	 * moderation=fixed", or a hand "port config N coalesce rx-usecs"):
	 * unic_napi_moderation_set(), at start and on running threads. */
	bool moderation_fixed;
};

/* The adaptive policy runs on the port (hybrid with a target or a budget). */
static inline bool tp_knobs_adaptive(enum unic_rx_mode mode, const struct tp_knobs *k)
{
	return mode == UNIC_RX_MODE_HYBRID && (k->latency_target_us || k->cpu_budget);
}

/* Counters of one (port, queue): rx by the thread polling it, tx/dropped by
 * the thread sending on it; each on its own line. */
struct tp_qcnt {
	struct unic_counter rx UNIC_CACHE_ALIGNED;
	/* csum engine, received packets (the rx thread's too): bad IPv4
	 * header checksum, bad TCP/UDP checksum, headers that do not parse
	 * (truncated, inconsistent lengths); whose checksums the NIC judged
	 * (rx checksum flags) or this engine did in software. */
	struct unic_counter bad_ip, bad_l4, bad_hdr, ck_nic, ck_sw;
	uint64_t rx_bursts[TP_BURST_MAX + 1];   /* set record-burst-stats: bursts of each size */
	uint64_t busy_cycles;                   /* set record-core-cycles: TSC cycles of the stream's work */
	struct unic_counter tx UNIC_CACHE_ALIGNED;
	struct unic_counter dropped;
	uint64_t tx_bursts[TP_BURST_MAX + 1];
	/* "set fwd X retry": tx bursts retried (not every packet taken at
	 * first), and the retries made; noisy: packets buffered in its FIFO. */
	struct unic_counter retried, retries;
};

/* The noisy engine's settings (--noisy-*, DPDK's names and units). */
struct tp_noisy_conf {
	uint32_t bufsz;       /* --noisy-tx-sw-buffer-size: FIFO packets per stream; 0: no FIFO */
	uint32_t flush_ms;    /* --noisy-tx-sw-buffer-flushtime: flush the FIFO after this idle time; 0: never */
	uint32_t lkup_mb;     /* --noisy-lkup-memory: the simulated lookup table, MiB */
	uint32_t writes, reads, rw; /* --noisy-lkup-num-*: per packet */
};

/* One stream's noisy state (fwd.c): the FIFO and the lookup table. */
struct tp_noisy {
	struct unic_pkt **fifo;   /* ring of bufsz packets */
	uint32_t head, count;
	uint64_t last_ns;         /* last flush, or the oldest packet's arrival */
	uint8_t *mem;             /* lkup_mb MiB */
	size_t mem_lines;         /* cache lines in mem */
	uint64_t rand;            /* xorshift state */
	uint64_t sink;            /* reads land here (kept) */
	/* Written by the stream's thread, read relaxed by "show fwd stats". */
	uint64_t buffered;        /* in the FIFO now */
	uint64_t flush_full, flush_time, flushed_at_stop; /* flushes: FIFO full, time up; packets at stop */
	uint64_t reads, writes;   /* simulated lookups done */
};

struct tp_port {
	struct unic_port *port;   /* NULL: no port with this id */
	bool ours;                /* attached here: detach is ours at exit */
	char driver[32];          /* for messages, also once the port is closed */
	bool need_config;         /* configure and set up queues at the next start */
	/* Wanted configuration (applied at the next "port start"). */
	struct unic_port_conf conf;
	uint16_t rxd, txd;        /* 0: the driver's default */
	struct tp_knobs knobs;
	bool tx_vlan_on;
	uint16_t tx_vlan;
	uint16_t tso_mss;
	bool csum_hw[3];          /* ip, udp, tcp */
	bool rss_set;             /* "port config rss": rss_types, not --rss-*'s */
	uint64_t rss_types;
	uint8_t mcast[TP_MAX_MCAST][6]; /* "mcast_addr add" */
	unsigned nb_mcast;
	uint8_t macs[TP_MAX_MACS][6];   /* "mac_addr add" (show port N macs) */
	unsigned nb_macs;
	uint16_t q_rxd[TP_MAX_QUEUES];  /* "port config N rxq Q ring_size": 0: rxd */
	uint16_t q_txd[TP_MAX_QUEUES];
	struct unic_pool *pool;   /* rx pool; old ones stay in app->pools */
	uint32_t pool_count;
	/* Forward statistics: the port took part since the last "start". */
	bool in_fwd;
	uint64_t fwd_imissed_base;
	/* "show port stats": the figures at the last show, for the rates. */
	uint64_t last_ns, last_ipk, last_opk, last_ib, last_ob;
};

struct tp_app;

/* What the csum engine does to the packets a stream sends (the tx port's
 * settings) and the addresses it writes (MAC forwarding). */
struct tp_csum_cfg {
	bool hw_ip, hw_udp, hw_tcp;  /* leave to the NIC (offload flags), else software */
	uint16_t tso_mss;            /* TCP payload above this: TSO; 0: off */
	uint8_t eth[12];             /* destination, source */
};

/* The csum engine on one received packet, in place (csum.c): MAC
 * forwarding, rx checksum verdicts counted in @p c, checksums computed or
 * offloaded per @p cfg. Reads only what the packet holds. */
void tp_csum_pkt(const struct tp_csum_cfg *cfg, struct unic_pkt *p, struct tp_qcnt *c);

struct tp_stream {
	struct tp_app *app;
	struct unic_port *rxp, *txp;
	uint16_t rx_port, rx_q, tx_port, tx_q;
	struct tp_qcnt *rxc, *txc;
	enum tp_engine engine;
	struct unic_pool *pool;   /* for generated packets */
	uint8_t eth[12];          /* mac engine: destination, source */
	uint8_t rx_mac[6];        /* icmpecho: the rx port's address */
	bool vlan_on;
	uint16_t vlan;
	uint64_t tx_flags;        /* UNIC_PKT_TX_* for generated packets */
	bool sw_ip_cksum, sw_udp_cksum;
	struct tp_csum_cfg csum;  /* csum engine */
	uint8_t tmpl[64];         /* generated frame's headers */
	uint32_t flow;
	uint16_t burst;
	uint16_t txpkts[TP_CMD_MAX_SIZES];
	unsigned nb_txpkts;
	unsigned tx_first;        /* bursts to send before forwarding */
	bool retry;               /* set fwd X retry */
	uint32_t retry_num, retry_us;
	struct tp_noisy noisy;    /* noisy engine */
	struct tp_noisy_conf nconf;
};

struct tp_thread {
	struct tp_app *app;
	unsigned idx;
	struct unic_napi_ctx *ctx;
	enum unic_rx_mode mode;
	struct tp_stream **streams;
	unsigned nb_streams;
	bool gen;                 /* txonly/flowgen: generate every round */
	int core;                 /* -1: not pinned */
	unsigned worker;          /* the env worker it runs on (not own) */
	bool launched, own;
	unsigned long tid;        /* pthread_t when own */
	int ret;
};

struct tp_app {
	struct unic_env *env;
	struct tp_port ports[TP_MAX_PORTS];
	struct tp_qcnt *cnt;                  /* [TP_MAX_PORTS * TP_MAX_QUEUES] */
	/* Forwarding configuration. */
	enum tp_engine engine;
	uint16_t burst;
	unsigned nbcore;
	uint16_t txpkts[TP_CMD_MAX_SIZES];
	unsigned nb_txpkts;
	/* Start-up port configuration ("port reset" goes back to it). */
	uint16_t def_rxq, def_txq, def_rxd, def_txd;
	enum unic_rx_mode def_mode;
	uint16_t def_mtu;                     /* --max-pkt-len - 18; 0: 1500 */
	enum tp_rss rss;                      /* hash types with several rx queues */
	uint32_t pool_count;                  /* --total-num-mbufs; 0: what the queues need */
	uint16_t dataroom;                    /* --mbuf-size less the headroom; 0: default */
	int pool_node;                        /* where pools and rings go: TP_NODE_PORT (the port's
					       * node, --numa), -1 (none: --no-numa), N (--socket-num) */
	/* Which ports forward to which (--portmask, --nb-ports, --port-topology). */
	uint64_t portmask;                    /* 0: every port */
	unsigned nb_fwd_ports;                /* 0: every port of the mask */
	enum tp_topology topology;
	uint64_t peer_set;                    /* bit p: peer[p] given (--eth-peer, "set eth-peer") */
	uint8_t peer[TP_MAX_PORTS][6];        /* else 02:00:00:00:00:<p> */
	bool no_lsc;                          /* link change events are not printed */
	/* tpengines: retry, the noisy engine, cycle recording */
	bool retry;                           /* "set fwd X retry" */
	uint32_t tx_retry_num;                /* --burst-tx-retry-num (DPDK's default 64) */
	uint32_t tx_delay_us;                 /* --burst-tx-delay-time (DPDK's default 1 us) */
	struct tp_noisy_conf noisy;           /* --noisy-* */
	bool record_cycles;                   /* "set record-core-cycles" (forwarding stopped) */
	unsigned verbose;                     /* "set verbose": 1 rx, 2 tx, 3 both (atomic) */
	bool record_bursts;                   /* "set record-burst-stats" (forwarding stopped) */
	bool xstats_hide_zero;                /* "set xstats-hide-zero on" */
	bool flush_rx;                        /* "set flush_rx on": drain rx queues at start */
	unsigned load_depth;                  /* "load" inside "load" */
	unsigned workers[TP_MAX_THREADS];     /* "set corelist": thread t on worker workers[t] */
	unsigned nb_workers;                  /* 0: thread t on worker t */
	/* Forwarding state. */
	bool fwd_on;
	bool stop;                            /* threads: stop at the next round */
	struct tp_stream *streams;
	unsigned nb_streams;
	struct tp_thread threads[TP_MAX_THREADS];
	unsigned nb_threads;
	uint64_t fwd_start_ns;
	struct unic_pool *pools[TP_MAX_POOLS];
	unsigned nb_pools;
	FILE *out;                            /* results */
	FILE *err;                            /* errors and refusals */
	/* Port events, where "sleep" waits (main.c: unic_event_dispatch()
	 * under its telemetry lock); NULL: unic_event_dispatch(). */
	void (*events_dispatch)(struct tp_app *app);
};

/* Return codes of tp_exec. */
#define TP_EXEC_QUIT 1

/* exec.c */
int tp_app_init(struct tp_app *app, struct unic_env *env);
/* Run one parsed command. @return 0, TP_EXEC_QUIT, or -errno (a message was printed). */
int tp_exec(struct tp_app *app, const struct tp_cmd *cmd);
/* Stop forwarding, stop and close every port, print the totals. */
void tp_app_quit(struct tp_app *app);
void tp_app_fini(struct tp_app *app);
/* Port events (link, device removal): the callbacks run where
 * unic_event_dispatch() is called, the main thread. */
int tp_events_register(struct tp_app *app);
void tp_events_unregister(struct tp_app *app);
/* Current port ids (for completion). */
unsigned tp_port_ids(const struct tp_app *app, uint16_t *ids, unsigned max);

/* exec.c: helpers that print what went wrong (show.c uses them too) */
int tp_port_check(struct tp_app *app, uint64_t id);
int tp_ports_of(struct tp_app *app, const struct tp_cmd_arg *a, uint16_t *ids);
/* What went wrong with @p what on port @p id (rc -errno), in one line:
 * "port N: WHAT: not supported by the DRIVER driver (-ENOTSUP)", the
 * port closed or busy and what to run, or strerror; @p why (NULL: none)
 * is the reason, written before the code, which stays last for
 * -ENOTSUP. @return rc. */
int tp_op_err_why(struct tp_app *app, uint16_t id, const char *what, int rc, const char *why);
/* tp_op_err_why() without a reason. */
int tp_op_err(struct tp_app *app, uint16_t id, const char *what, int rc);
int tp_info_of(struct tp_app *app, uint16_t id, struct unic_port_info *info);
void tp_fmt_mac(char *b, size_t l, const uint8_t *m);
/* A link speed as DPDK writes it: "100 Mbps", "10 Gbps", "2.5 Gbps", "None". */
const char *tp_fmt_speed(char *b, size_t l, uint32_t mbps);
const char *tp_offl(uint64_t f, char *b, size_t l);

/* show.c: what 0..7 = info, stats, xstats, link, regs, eeprom, napi, summary; 8 capabilities */
int tp_show_port(struct tp_app *app, const struct tp_cmd *cmd, unsigned what, const struct tp_cmd_arg *pa);
int tp_show_fwd(struct tp_app *app);
/* "show config rxtx|cores|txpkts|rxpkts|rxoffs|rxhdrs|txtimes" (@p what: the
 * word's index in the command, 1..7). */
int tp_show_config(struct tp_app *app, unsigned what);
/* The stream table (DPDK's "Logical Core N (socket S) forwards packets on K streams:"). */
void tp_show_streams(struct tp_app *app);

/* portcfg.c: RSS, offloads by DPDK's names, multicast list, flow control, tunnels */
int tp_rss_show(struct tp_app *app, uint16_t id, bool key);
int tp_rss_set(struct tp_app *app, const struct tp_cmd_arg *pa, const char *word);
int tp_rss_key(struct tp_app *app, uint16_t id, const char *type, const char *hex);
int tp_rss_reta_set(struct tp_app *app, uint16_t id, const char *list);
int tp_rss_reta_show(struct tp_app *app, uint16_t id, uint64_t size, const char *masks);
int tp_offload_show(struct tp_app *app, uint16_t id, bool tx, bool conf);
int tp_offload_set(struct tp_app *app, uint16_t id, bool tx, const char *name, bool on);
int tp_mcast(struct tp_app *app, uint16_t id, bool add, const uint8_t *mac);
int tp_flow_ctrl_show(struct tp_app *app, uint16_t id);
int tp_flow_ctrl_set(struct tp_app *app, const struct tp_cmd *cmd);
int tp_udp_tunnel(struct tp_app *app, uint16_t id, const char *type);
/* flow.c: the flow commands (flowparse.h). */
int tp_flow_exec(struct tp_app *app, const struct tp_flow_cmd *fc);

/* dpdkq.c: dpdk-testpmd's remaining show, set, port and queue commands
 * (the tpcmds2 block of cmd.c's table). @return as tp_exec; -ENOSYS for a
 * command it does not handle. */
int tp_exec_more(struct tp_app *app, const struct tp_cmd *cmd);
/* "set flush_rx on": receive and free what every forwarding port's rx
 * queues hold (forwarding stopped). */
void tp_flush_rx(struct tp_app *app);
/* Keep the port's list of extra unicast addresses (show port N macs) after
 * a successful "mac_addr set|add|remove" (@p op 0, 1, 2). */
void tp_mac_note(struct tp_port *p, unsigned op, const uint8_t *mac);

/* misc.c: show device info, the dump_* commands, set verbose/record-* */
int tp_show_device(struct tp_app *app, const char *which);
/* what: the word's index in the TP_CMD_DUMP syntax; name: dump_ring|dump_mempool's, or NULL */
int tp_dump(struct tp_app *app, unsigned what, const char *name);
int tp_set_verbose(struct tp_app *app, uint64_t level);
int tp_set_record(struct tp_app *app, bool bursts, bool on);
/* A refused-by-design command (cmd_refused.c): one line, the reason. @return -ENOTSUP. */
int tp_refused(struct tp_app *app, const struct tp_cmd *cmd);

/* ports.c */
void tp_port_defaults(struct tp_app *app, uint16_t id);
int tp_port_add(struct tp_app *app, struct unic_port *port, bool ours);
int tp_port_start(struct tp_app *app, uint16_t id);
int tp_port_stop(struct tp_app *app, uint16_t id);
int tp_port_close(struct tp_app *app, uint16_t id);
int tp_port_detach(struct tp_app *app, uint16_t id);
int tp_port_attach(struct tp_app *app, const char *spec, uint16_t *id);
bool tp_port_started(const struct tp_app *app, uint16_t id);
void tp_pools_free(struct tp_app *app);
/* The NUMA node of a port's pool and rings: @p port_node (the node the port
 * reports, -1: none) unless --no-numa (-1) or --socket-num N (N). */
int tp_port_node(const struct tp_app *app, int port_node);
/* The socket testpmd shows for a port (show port info, show config fwd), as
 * DPDK testpmd's port socket: tp_port_node(), and 0 for none (-1), the node
 * a pool asked for none lies on. `show device info` shows @p port_node
 * itself, the device's own node. docs/testpmd.md "Pools and NUMA nodes". */
int tp_port_socket(const struct tp_app *app, int port_node);

/* fwd.c */
/* icmpecho on one packet, in place: an ARP request becomes its reply (from
 * @p mac), an ICMP echo request its echo reply. @return true to send it,
 * false to drop it (anything else). */
bool tp_icmpecho_pkt(struct unic_pkt *p, const uint8_t mac[6]);
/* 5tswap on one packet, in place: Ethernet, IPv4/IPv6 and TCP/UDP source and
 * destination swapped (what is there of them; one VLAN tag skipped). */
void tp_5tswap_pkt(struct unic_pkt *p);
/* set verbose: a line for the burst ("port 0/queue 0: received 4 packets"),
 * then DPDK's two a packet: addresses, pool, EtherType, length, segments,
 * RSS hash, VLAN tci, software packet type and header lengths, queue; the
 * offload flags by DPDK's names. One write. @p what: "received" or "sent". */
void tp_verbose_dump(FILE *f, uint16_t port, uint16_t q, const char *what, struct unic_pkt **pkts,
		     uint16_t n);
int tp_fwd_start(struct tp_app *app, unsigned tx_first, bool reset);
/* Stop the threads; with @p print, the forward statistics first. */
void tp_fwd_stop(struct tp_app *app, bool print);
/* Stop the threads around a change of the ports (quietly), and restart. */
void tp_fwd_pause(struct tp_app *app);
/* "show fwd stats all" (any time) and "clear fwd stats all". */
void tp_fwd_show(struct tp_app *app);
void tp_fwd_clear(struct tp_app *app);
int tp_fwd_resume(struct tp_app *app);
/* Switch port @p id's moderation between the adaptive policy's and fixed
 * on the forwarding threads that poll its rx queues (at once; none while
 * forwarding is off: the next start takes the port's knob). @return 0 or
 * the first error (printed). */
int tp_fwd_moderation(struct tp_app *app, uint16_t id, bool fixed);
struct tp_qcnt *tp_cnt(struct tp_app *app, uint16_t port, uint16_t q);
/*
 * Send pkts[0..n-1] on the stream's tx queue (every engine that transmits
 * does it here): each packet the port refuses (unic_tx_prepare) and each it
 * does not take is freed and counted in the stream's tx `dropped`, never as
 * sent; the packets after a refused one are still sent. One prepare and
 * one burst call when nothing is refused.
 */
void tp_tx_send(struct tp_stream *s, struct unic_pkt **pkts, uint16_t n);

/* A statistic with one writer (the stream's thread), read relaxed. */
static inline void tp_stat_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, *c + v, __ATOMIC_RELAXED);
}

/* noisy.c: the noisy engine, called by fwd.c in the stream's thread but
 * setup/free (forwarding start and teardown, the main thread). */
void tp_noisy_burst(struct tp_stream *s, struct unic_pkt **pkts, uint16_t n);
/* napi hooks of a thread whose FIFOs have a flush time (arg: the thread). */
void tp_noisy_round(struct unic_napi_ctx *ctx, void *arg);
uint64_t tp_noisy_deadline(struct unic_napi_ctx *ctx, void *arg);
/* Send what the stream's FIFO holds (its thread stops). */
void tp_noisy_drain(struct tp_stream *s);
/* FIFOs and tables of every stream. @return 0, -EINVAL or -ENOMEM (printed). */
int tp_noisy_setup(struct tp_app *app);
void tp_noisy_free(struct tp_app *app);
/* The "Noisy FIFO:" line of port @p id's forward statistics. */
void tp_noisy_line(struct tp_app *app, FILE *f, uint16_t id);

#endif /* TESTPMD_H */
