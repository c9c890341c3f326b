/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's command-line options (after the common ones): unic's own
 * and every option dpdk-testpmd 22.11 documents, each honoured, accepted
 * with a notice saying what unic does instead, or refused with the reason
 * (docs/testpmd.md, "DPDK testpmd options"). Pure: no libunic; the unit
 * tests and the fuzz harness call tp_opts_parse() directly.
 *
 * Forms, as getopt_long takes them: --opt=value, --opt value, a unique
 * prefix of a long name (--stats-p for --stats-period; --nb is ambiguous
 * and refused naming --nb-cores and --nb-ports), -i, -a, -h, -f FILE, -fFILE.
 */
#ifndef TP_OPTS_H
#define TP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd.h"

#define TP_OPTS_MAX_PORTS (TP_CMD_MAX_PORT + 1)

enum tp_topology { TP_TOPO_PAIRED, TP_TOPO_CHAINED, TP_TOPO_LOOP };

/* RSS hash types asked for (--rss-ip, --rss-udp, --disable-rss). */
enum tp_rss { TP_RSS_DEFAULT, TP_RSS_IP, TP_RSS_UDP, TP_RSS_OFF };

struct tp_opts {
	bool interactive, cont, auto_start, help;
	bool tx_first;            /* --tx-first: the start made without -i sends a burst first */
	bool no_lsc;              /* --no-lsc-interrupt: link change events are not printed */
	bool no_dev_start;        /* --disable-device-start: ports left stopped at start-up */
	bool no_numa;             /* --no-numa (the last of --numa and --no-numa counts) */
	bool socket_set;          /* --socket-num given: socket_num is the node of every pool */
	uint64_t socket_num;
	const char *file;
	uint64_t nbcore, burst, rxq, txq, rxd, txd;
	int engine;               /* -1: io */
	int mode;                 /* -1: hybrid */
	uint64_t stats_period;    /* seconds; 0: none */
	enum tp_topology topology;
	uint64_t portmask;        /* ports that forward; 0: every port */
	uint64_t nb_ports;        /* forward on the first N of them; 0: all */
	uint16_t txpkts[TP_CMD_MAX_SIZES];
	unsigned nb_txpkts;       /* 0: not given */
	uint64_t total_mbufs;     /* packets in each port's pool; 0: as needed */
	uint64_t mbuf_size;       /* buffer size, headroom included (DPDK's); 0: default */
	uint64_t max_pkt_len;     /* largest frame; sets the MTU (N - 18); 0: default */
	enum tp_rss rss;
	uint64_t peer_set;        /* bit p: peer[p] given */
	/* tpengines: --record-core-cycles, --burst-tx-*, --noisy-* (DPDK's units) */
	bool record_cycles;
	bool tx_retry_set, tx_delay_set;
	uint64_t tx_retry_num, tx_delay_us;
	uint64_t noisy_bufsz, noisy_flush_ms, noisy_lkup_mb, noisy_writes, noisy_reads, noisy_rw;
	uint8_t peer[TP_OPTS_MAX_PORTS][6];
};

/*
 * Parse argv[1..argc-1] (the common options already taken out) into @p o.
 * Options unic takes in another way print one line each to @p notes.
 * @return 0, or -EINVAL with a message naming the option in @p err.
 * A file named by --eth-peers-configfile is read here.
 */
int tp_opts_parse(struct tp_opts *o, int argc, char **argv, FILE *notes, char *err, size_t errlen);

/* The options' help text (unic's own and the DPDK ones it honours). */
void tp_opts_usage(FILE *f);

#endif /* TP_OPTS_H */
