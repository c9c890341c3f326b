/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen streams: what one stream sends (ports, sizes, rate share,
 * VLAN, L3/L4 and their ranges, MACs), the --stream KEY=VALUE grammar and the
 * stream file (one stream a line), and the per-stream generator state (the
 * next size, the next flow). Pure functions, unit-tested and fuzzed
 * (tests/fuzz/fuzz_pktgen_streams.c). docs/pktgen.md, "Streams".
 */
#ifndef PG_STREAM_H
#define PG_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pkt_build.h"
#include "rate.h"

#define PG_MAX_SIZES 64
#define PG_MAX_STREAMS 64          /* streams a run; ids fit the stamp's 16 bits */
#define PG_STREAM_LINE_MAX 1024    /* a stream file's longest line */

/* An address range: lo..lo+count-1 on the last 32 bits (IPv6: the first 12
 * bytes are the same in both ends). */
struct pg_ip_range {
	uint8_t lo[16];
	uint32_t count;       /* addresses in the range, >= 1 */
	bool given;
};

struct pg_port_range {
	uint16_t lo;
	uint32_t count;
};

/* One stream as given. */
struct pg_stream_spec {
	int tx_port, rx_port;         /* -1: not given */
	unsigned sizes[PG_MAX_SIZES];
	unsigned nb_sizes;            /* a list, cycled; 0: the range below */
	unsigned size_lo, size_hi;
	bool imix;                    /* sizes is the IMIX cycle */
	double share;                 /* percent of --rate; 0: not given */
	bool ipv6, vlan;
	uint16_t vid;
	uint8_t proto;                /* PG_PROTO_UDP, _TCP, _ICMP */
	struct pg_ip_range src_ip, dst_ip;
	struct pg_port_range src_port, dst_port;
	bool src_mac_given, dst_mac_given;
	uint8_t src_mac[6], dst_mac[6];
	bool sizes_given;
};

/* The IMIX cycle: 7 x 64, 4 x 570, 1 x 1518 bytes (frame sizes without the
 * FCS, as every size here), interleaved. */
#define PG_IMIX_LEN 12
extern const unsigned pg_imix_sizes[PG_IMIX_LEN];

/* The defaults of a stream: sizes the minimum for its headers (set when
 * checked), IPv4, UDP, 10.0.0.1 -> 10.0.0.2, ports 1024, equal share. */
void pg_stream_spec_init(struct pg_stream_spec *s);

/*
 * Parse one stream, "KEY=VALUE[,KEY=VALUE...]" (keys: tx, rx, size, share,
 * proto, l3, vlan, src-ip, dst-ip, src-port, dst-port, src-mac, dst-mac),
 * into @p s (initialised here), then check it (pg_stream_check). @p where
 * prefixes every message ("option --stream", "stream file 'f' line 3").
 * @return 0, or -EINVAL with a message naming the key and the value.
 */
int pg_stream_parse(const char *spec, struct pg_stream_spec *s, const char *where, char *err,
		    size_t errlen);

/*
 * A whole stream file's text (@p len bytes, need not end in a NUL or a
 * newline): one stream a line in pg_stream_parse's grammar; blank lines and
 * everything from '#' on are ignored. Streams go to @p out[*nb..max-1];
 * *nb is advanced. @p name is the file's name for messages. @return 0, or
 * -EINVAL naming the file and line (a NUL byte, a line over
 * PG_STREAM_LINE_MAX, more than @p max streams, a bad stream).
 */
int pg_stream_file_parse(const char *text, size_t len, const char *name, struct pg_stream_spec *out,
			 unsigned max, unsigned *nb, char *err, size_t errlen);

/* Check a parsed stream as a whole: ports given, address families agree,
 * ports only for UDP/TCP, every size holds the headers and the stamp. Fills
 * in the default sizes. */
int pg_stream_check(struct pg_stream_spec *s, const char *where, char *err, size_t errlen);

/* Check a set of streams: shares all given and summing to 100 (within
 * 0.001), or none given (equal shares are filled in). */
int pg_streams_check_shares(struct pg_stream_spec *s, unsigned n, char *err, size_t errlen);

/* The smallest and largest size a stream sends, and the mean of one cycle. */
unsigned pg_stream_min_size(const struct pg_stream_spec *s);
unsigned pg_stream_max_size(const struct pg_stream_spec *s);
double pg_stream_mean_size(const struct pg_stream_spec *s);

/* "udp", "tcp", "icmp". */
const char *pg_proto_name(uint8_t proto);

/* Ranges: "a-b" or "a" (need_dash: only "a-b") into lo/hi within
 * [min, max]; an address or ADDR-ADDR (returns 4 or 6, the family). */
int pg_parse_urange(const char *opt, const char *v, uint64_t min, uint64_t max, bool need_dash,
		    uint64_t *lo, uint64_t *hi, char *err, size_t errlen);
int pg_parse_ip_range(const char *opt, const char *v, struct pg_ip_range *r, char *err, size_t errlen);
/* "02:00:00:00:00:01" (six hex pairs, ':' or '-'). @return 0 or -EINVAL. */
int pg_parse_mac(const char *v, uint8_t mac[6]);

/* The address with index @p i of range @p r (i < count). */
void pg_ip_at(const struct pg_ip_range *r, bool ipv6, uint32_t i, uint8_t out[16]);

/* A stream while it runs: its template, pacing, where it is in its cycles,
 * and what it sent. */
struct pg_stream_run {
	const struct pg_stream_spec *spec;
	uint16_t id;                  /* its stamp's stream id */
	struct pg_frame_tmpl tmpl;
	struct pg_rate rate;
	unsigned size_idx;
	uint32_t flow_k[4];           /* odometer over src ip, dst ip, src port, dst port */
	uint32_t seq;
	uint64_t sent, sent_bytes, refused;
};

void pg_stream_run_init(struct pg_stream_run *r, const struct pg_stream_spec *s, uint16_t id);
unsigned pg_stream_next_size(struct pg_stream_run *r);
void pg_stream_next_flow(struct pg_stream_run *r, struct pg_flow *f);
/* Move on @p n flows without building them (tx queue q of N starts q flows
 * on and moves N - 1 more after each frame: the queues take turns). */
void pg_stream_skip_flows(struct pg_stream_run *r, unsigned n);

#endif /* PG_STREAM_H */
