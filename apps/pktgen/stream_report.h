/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: the per-stream rows of the report (text and JSON), and the
 * check that the streams of one tx port fit its link. docs/pktgen.md,
 * "Streams".
 */
#ifndef PG_STREAM_REPORT_H
#define PG_STREAM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rxstats.h"
#include "stream.h"

/* "tx 0 -> rx 1, ipv4/udp/vlan, imix" */
void pg_stream_label(const struct pg_stream_run *sr, char *buf, size_t len);

/* One line a stream ("stream N: received ..."); stream i's receive side is
 * rs->streams[i]. */
void pg_streams_report_text(FILE *o, const struct pg_stream_run *sr, unsigned n,
			    const struct pg_rxstats *rs);

/* ,"streams":[{...},...] */
void pg_streams_report_json(FILE *o, const struct pg_stream_run *sr, unsigned n,
			    const struct pg_rxstats *rs);

/*
 * The streams sr[idx[0..n-1]] (those of tx port @p port, named @p name, of
 * @p link_mbps; 0: unknown, nothing checked), their rates initialised: do
 * they ask for more than the link on the wire? A bit rate at L2 counts 20
 * bytes a frame more (preamble and gap), a frame rate the mean of the
 * stream's size cycle. @return 0, or -EINVAL with a message naming the
 * port, each stream's part and the link.
 */
int pg_streams_link_check(const struct pg_stream_run *sr, const unsigned *idx, unsigned n, int port,
			  const char *name, uint32_t link_mbps, char *err, size_t errlen);

#endif /* PG_STREAM_REPORT_H */
