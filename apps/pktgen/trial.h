/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen trials: what the sweep (sweep.c) and the RFC 2544 search
 * (rfc2544.c) are made of. A trial sends at one rate for a warm-up that is
 * not counted, then for the measured time, then waits (the drain) for the
 * frames in flight. Its frames are told from every earlier frame by their
 * sequence number: the measured part starts at a base, and a frame numbered
 * below it (the warm-up's, or a late one of an earlier trial) is never
 * counted. The options the sweep and the search share live here too.
 * Pure functions, unit-tested; main.c runs the trial itself.
 */
#ifndef PG_TRIAL_H
#define PG_TRIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rate.h"
#include "rxstats.h"

/* The statement every sweep and search report starts with. */
#define PG_TIMESTAMP_NOTE \
	"timestamps: software (no hardware timestamps on these NICs): TSC when a frame is built for " \
	"tx_burst, TSC when rx_burst returns it; error bound in docs/pktgen.md"

/* Latency of a trial's frames, in ns (from the histogram of rxstats.h). */
struct pg_lat_summary {
	uint64_t samples;
	uint64_t p50, p90, p99, p999, max;
};

void pg_lat_summarize(const struct pg_hist *h, struct pg_lat_summary *s);

/* What one trial measured (its measured part only). */
struct pg_trial_result {
	double offered_pps;        /* asked */
	uint64_t sent, received;   /* received: the trial's frames, duplicates included */
	uint64_t lost, reordered, duplicated;
	uint64_t stale;            /* frames of before the measured part, not counted */
	double measured_s;         /* from the first measured frame built to the last taken */
	double tx_pps;             /* sent / measured_s */
	double achieved_pps;       /* received / measured_s */
	double start_time, end_time; /* unix seconds (CLOCK_REALTIME) of the measured part */
	struct pg_lat_summary lat;
};

/* lost / sent (0 when nothing was sent). */
double pg_trial_loss_ratio(const struct pg_trial_result *r);

/*
 * Does a frame numbered @p seq belong to the measured part that starts at
 * sequence number @p base? Numbers are 32 bits and wrap: a frame counts when
 * it is at most 2^31 - 1 numbers after the base, so a frame of an earlier
 * trial (numbered below the base, even across a wrap) never does.
 */
static inline bool pg_trial_seq_counts(uint32_t base, uint32_t seq)
{
	return (int32_t)(seq - base) >= 0;
}

/*
 * Is a received frame (parse result @p r, stamp @p s) stale: a frame of the
 * stream @p stream_id numbered before the measured part that starts at
 * @p base (only while a trial runs, @p epoch)? A stale frame is counted
 * apart, never as received. Frames of other streams and without a stamp
 * are left to rxstats.
 */
static inline bool pg_trial_frame_stale(bool epoch, uint32_t base, uint16_t stream_id,
					enum pg_parse_result r, const struct pg_stamp *s)
{
	return epoch && r == PG_PARSE_OK && s->stream == stream_id && !pg_trial_seq_counts(base, s->seq);
}

/*
 * A rate as frames per second for frames of @p size bytes (no FCS), on a
 * link of @p link_mbps (0: unknown; a percentage then gives 0).
 */
double pg_rate_spec_pps(const struct pg_rate_spec *r, double size, uint32_t link_mbps);

/* The line rate in frames per second of @p size-byte frames (no FCS): the
 * link's bits over (size + 4 FCS + 20 preamble and gap) * 8. 0: unknown. */
double pg_line_pps(double size, uint32_t link_mbps);

/*
 * A trial at @p pps frames per second; the callback fills @p r. @return 0,
 * or a negative errno to stop the sweep or the search (a signal, a stalled
 * port).
 */
typedef int (*pg_trial_fn)(void *ctx, double pps, struct pg_trial_result *r);

/* --- the options the sweep and the search share --------------------- */

#define PG_SWEEP_MAX 256
#define PG_RFC2544_MAX_SIZES 16

enum pg_rfc2544_mode { PG_RFC2544_NONE = 0, PG_RFC2544_NDR, PG_RFC2544_PDR };

struct pg_bench_opts {
	/* --sweep */
	const char *sweep_arg;         /* as given (NULL: no sweep) */
	struct pg_rate_spec sweep[PG_SWEEP_MAX];
	unsigned nb_sweep;
	/* --rfc2544 */
	enum pg_rfc2544_mode mode;
	double loss_tol;               /* PDR's loss ratio; 0 for NDR */
	unsigned frame_sizes[PG_RFC2544_MAX_SIZES]; /* with the 4-byte FCS, as the RFC counts */
	unsigned nb_frame_sizes;
	bool frame_sizes_given;
	double trial_s;                /* --trial-duration */
	double resolution_pct;         /* --resolution */
	/* both */
	double step_s;                 /* --step-duration */
	double warmup_s;               /* --warmup */
	const char *label;             /* --label */
	const char *json_out;          /* --json-out FILE */
	/* which were given, for the checks of pg_bench_opts_check */
	bool step_given, warmup_given, trial_given, resolution_given, label_given;
};

#define PG_STEP_S_DEFAULT 2.0
#define PG_WARMUP_S_DEFAULT 0.5
#define PG_TRIAL_S_DEFAULT 10.0
#define PG_RESOLUTION_PCT_DEFAULT 1.0
#define PG_PDR_LOSS_DEFAULT 0.001

void pg_bench_opts_init(struct pg_bench_opts *b);

/*
 * Option @p name with value @p v (NULL for an option without one), if it is
 * one of the sweep's or the search's. @return 1 taken, 0 not one of these,
 * -EINVAL with a message naming the option.
 */
int pg_bench_opt(struct pg_bench_opts *b, const char *name, const char *v, char *err, size_t errlen);

/* Does option @p name take a value? (for the options parser) */
bool pg_bench_opt_takes_value(const char *name);

/*
 * The options together, once all are parsed: the sweep's and the search's
 * options only with them, not both, nothing they replace (@p has_rate
 * --rate with --sweep, @p has_count_or_duration, @p has_sizes --size/--sizes
 * with --rfc2544, @p replay). @return 0, or -EINVAL naming the options.
 */
int pg_bench_opts_check(const struct pg_bench_opts *b, bool has_rate, bool has_count_or_duration,
			bool has_sizes, bool replay, char *err, size_t errlen);

/* Parse a duration in seconds: > 0 (or >= 0 with @p zero_ok), at most a day. */
int pg_parse_seconds(const char *opt, const char *v, bool zero_ok, double *out, char *err,
		     size_t errlen);

/* Print @p s as {"p50":x,...} in µs (null values when it has no samples). */
void pg_lat_json(FILE *f, const struct pg_lat_summary *s);

#endif /* PG_TRIAL_H */
