/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen's own options (the env options -a, --vdev, -l ... are taken
 * first by unic_env_parse). Pure functions, unit-tested.
 */
#ifndef PG_OPTS_H
#define PG_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pkt_build.h"
#include "rate.h"
#include "trial.h"
#include "stream.h"

#define PG_EXIT_OK 0
#define PG_EXIT_FAIL 1
#define PG_EXIT_USAGE 2

#define PG_MAX_PORTS 64             /* UNIC_PORT_MAX */
#define PG_STREAM_FILE_MAX (1u << 20) /* a stream file's largest size */

struct pg_opts {
	int tx_port, rx_port;       /* -1: not given */
	unsigned sizes[PG_MAX_SIZES];
	unsigned nb_sizes;          /* a list, cycled */
	unsigned size_lo, size_hi;  /* --size-range: cycled lo..hi; nb_sizes 0 */
	bool ipv6;
	bool vlan;
	uint16_t vid;
	struct pg_ip_range src_ip, dst_ip;
	struct pg_port_range src_port, dst_port;
	struct pg_rate_spec rate;
	uint64_t count;             /* 0: no limit */
	double duration;            /* 0: no limit */
	double drain;               /* seconds to wait for stragglers after the last frame */
	uint16_t rxd;               /* rx descriptors; 0: the driver's default */
	bool promisc;               /* the rx port accepts every unicast address */
	bool json;
	bool help;
	const char *write_tx;       /* --write-tx FILE: pcap of what was sent */
	const char *write_rx;       /* --write-rx FILE: pcap of what was received */
	const char *replay;         /* --replay FILE: send this capture's frames */
	const char *csv;            /* --csv FILE, "-" for stdout */
	const char *gen_opt;        /* the first frame-building option given (none with --replay) */
	struct pg_bench_opts bench; /* --sweep, --rfc2544 and their options (trial.h) */
	/* Streams: stream 0 from --tx-port/--rx-port and the options above
	 * (when given), then each --stream and --stream-file line in order. */
	struct pg_stream_spec streams[PG_MAX_STREAMS + 1];
	unsigned nb_streams;
	bool legacy_stream;         /* streams[0] is the single-stream options' */
	const char *stream_opt;     /* the first --stream / --stream-file given, or NULL */
	uint64_t src_mac_set, dst_mac_set;  /* bit p: --src-mac / --dst-mac for port p */
	uint8_t src_mac[PG_MAX_PORTS][6], dst_mac[PG_MAX_PORTS][6];
	bool arp_reply;             /* answer ARP / neighbour solicitations for our addresses */
	/* Threads: thread t sends on tx queue t and receives on rx queue t of
	 * every port (t < txq, t < rxq); max(txq, rxq) threads, on the cores of
	 * -l in order (the first is the main thread's). */
	unsigned txq, rxq;          /* --txq, --rxq: queues a port (default 1) */
	bool quiet;                 /* --quiet: no screen, no line a second; the report only */
};

#define PG_MAX_QUEUES 16            /* UNIC_PORT_MAX_QUEUES */

void pg_opts_init(struct pg_opts *o);

/*
 * Parse argv[1..argc-1] (what unic_env_parse left), then check the whole:
 * address families, frame sizes against the headers and stamp.
 * @return 0, or -EINVAL with a message naming the option, the value given
 * and the accepted forms.
 */
int pg_opts_parse(struct pg_opts *o, int argc, char **argv, char *err, size_t errlen);


void pg_usage(FILE *f, const char *prog);

#endif /* PG_OPTS_H */
