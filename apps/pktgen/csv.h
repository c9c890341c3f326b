/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen --csv: the per-second time series, one row a second (and a last
 * row for the part-second at the end). Rates are Δcount / Δmeasured time over
 * the row's interval; latency percentiles are over the frames received in it.
 * docs/pktgen.md lists the columns.
 */
#ifndef PG_CSV_H
#define PG_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rxstats.h"

/* Totals at one instant. */
struct pg_csv_sample {
	uint64_t t_ns;          /* since the run started */
	uint64_t tx_frames, tx_bytes;   /* frame bytes, no FCS */
	uint64_t rx_frames, rx_bytes;
	uint64_t lost;          /* sequence numbers missing below the highest received */
	uint64_t no_stamp;
};

void pg_csv_header(FILE *f);
/* With @p streams, one more column, "stream": "total", or a stream's id. */
void pg_csv_header_streams(FILE *f, bool streams);

/*
 * One row for the interval from @p prev to @p cur; @p lat holds the latency
 * of the frames received in it (empty: the latency columns are left blank).
 * Nothing is written if the interval is empty (cur->t_ns <= prev->t_ns).
 */
void pg_csv_row(FILE *f, const struct pg_csv_sample *prev, const struct pg_csv_sample *cur,
		const struct pg_hist *lat);

/* The same, with the "stream" column's value @p stream (NULL: no column). */
void pg_csv_row_stream(FILE *f, const struct pg_csv_sample *prev, const struct pg_csv_sample *cur,
		       const struct pg_hist *lat, const char *stream);

#endif /* PG_CSV_H */
