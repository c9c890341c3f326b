/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen --csv rows (csv.h). */
#include <inttypes.h>

#include "csv.h"
#include "pkt_build.h"

void pg_csv_header_streams(FILE *f, bool streams)
{
	fputs("time_s,interval_s,tx_frames,tx_pps,tx_l2_bps,tx_wire_bps,rx_frames,rx_pps,rx_l2_bps,"
	      "lost,no_stamp,lat_samples,lat_min_ns,lat_p50_ns,lat_p99_ns,lat_max_ns", f);
	fputs(streams ? ",stream\n" : "\n", f);
	fflush(f);
}

void pg_csv_header(FILE *f)
{
	pg_csv_header_streams(f, false);
}

void pg_csv_row(FILE *f, const struct pg_csv_sample *prev, const struct pg_csv_sample *cur,
		const struct pg_hist *lat)
{
	pg_csv_row_stream(f, prev, cur, lat, NULL);
}

void pg_csv_row_stream(FILE *f, const struct pg_csv_sample *prev, const struct pg_csv_sample *cur,
		       const struct pg_hist *lat, const char *stream)
{
	double dt;
	uint64_t txf = cur->tx_frames - prev->tx_frames, txb = cur->tx_bytes - prev->tx_bytes;
	uint64_t rxf = cur->rx_frames - prev->rx_frames, rxb = cur->rx_bytes - prev->rx_bytes;

	if (cur->t_ns <= prev->t_ns)
		return;
	dt = (double)(cur->t_ns - prev->t_ns) / 1e9;
	fprintf(f, "%.6f,%.6f,%" PRIu64 ",%.1f,%.1f,%.1f,%" PRIu64 ",%.1f,%.1f,%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",", (double)cur->t_ns / 1e9, dt, txf, (double)txf / dt,
		(double)(txb + PG_FCS_LEN * txf) * 8 / dt,
		(double)(txb + (PG_FCS_LEN + PG_WIRE_EXTRA) * txf) * 8 / dt, rxf, (double)rxf / dt,
		(double)(rxb + PG_FCS_LEN * rxf) * 8 / dt, cur->lost, cur->no_stamp - prev->no_stamp,
		lat->count);
	if (lat->count)
		fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, lat->min,
			pg_hist_percentile(lat, 50), pg_hist_percentile(lat, 99), lat->max);
	else
		fputs(",,,", f);
	if (stream)
		fprintf(f, ",%s", stream);
	fputs("\n", f);
	fflush(f);
}
