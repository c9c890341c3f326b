/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen --rfc2544: the throughput search of RFC 2544 (section 26.1),
 * a binary search on the rate for the highest rate a trial passes at: no
 * frame lost (NDR), or at most a loss ratio (PDR); then a trial at the rate
 * found for its latency (section 26.2). The search is a pure function over a
 * trial callback (trial.h), unit-tested with fake devices; main.c runs the
 * trials on the ports.
 *
 * Frame sizes are the RFC's, the 4-byte FCS included (section 9: 64, 128,
 * 256, 512, 1024, 1280, 1518 for Ethernet): a 64-byte RFC frame is built as
 * 60 bytes, the NIC appends the FCS.
 */
#ifndef PG_RFC2544_H
#define PG_RFC2544_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trial.h"

/* RFC 2544 section 9's frame sizes for Ethernet, FCS included. */
#define PG_RFC2544_SIZES { 64, 128, 256, 512, 1024, 1280, 1518 }
#define PG_RFC2544_NB_SIZES 7
#define PG_FCS_LEN 4

/* Trials of one search at most (a resolution of 1% takes 8). */
#define PG_SEARCH_MAX_TRIALS 64

/*
 * "ndr", "pdr" (loss ratio 0.001, i.e. 0.1%), "pdr:LOSS" with LOSS a
 * ratio in (0, 1) ("0.001") or a percentage in (0%, 100%) ("0.1%").
 * @return 0, or -EINVAL naming --rfc2544.
 */
int pg_rfc2544_mode_parse(const char *s, enum pg_rfc2544_mode *mode, double *loss_tol, char *err,
			  size_t errlen);

/* "64,128,1518": RFC frame sizes, FCS included, 64..9004, at most @p max. */
int pg_frame_sizes_parse(const char *s, unsigned *out, unsigned max, unsigned *n, char *err,
			 size_t errlen);

struct pg_search {
	double max_pps;          /* the upper bound: the line rate, or --rate */
	double loss_tol;         /* a trial passes with loss ratio <= this (0: none lost) */
	double resolution_pct;   /* stop when the interval is below this % of max_pps */
};

struct pg_search_result {
	unsigned nb_trials;
	struct pg_trial_result trials[PG_SEARCH_MAX_TRIALS];
	bool pass[PG_SEARCH_MAX_TRIALS];
	int best;                /* the passing trial at the highest rate; -1: none passed */
	double rate_pps;         /* what was found: 0 when no trial passed */
	bool generator_limited;  /* the best trial sent below its offered rate (rate_pps is what it sent) */
	double lo_pps, hi_pps;   /* the last interval: passed at lo (0: none), failed at hi */
	bool has_latency;        /* the latency trial at rate_pps ran */
	struct pg_trial_result latency;
};

/* Does trial @p r pass with loss tolerance @p tol? Nothing sent never does. */
bool pg_search_pass(const struct pg_trial_result *r, double tol);

/*
 * Search (s->max_pps first: if it passes, that is the rate; else halve the
 * interval between the highest pass and the lowest fail until it is below
 * the resolution), then run the latency trial at the rate found (none when
 * nothing passed). @return 0, or the callback's error (the trials so far are
 * in @p out), or -EINVAL for a bound or resolution that is not positive.
 */
int pg_rfc2544_search(const struct pg_search *s, pg_trial_fn fn, void *ctx,
		      struct pg_search_result *out);

/* What the reports show besides the results. */
struct pg_rfc2544_info {
	const char *label;
	enum pg_rfc2544_mode mode;
	double loss_tol, trial_s, warmup_s, resolution_pct;
	int tx_port, rx_port;
	uint32_t link_mbps;      /* 0: unknown (no % of line) */
	bool interrupted;
};

/* Mb/s of @p pps frames of @p frame_size bytes (FCS included) at L2. */
static inline double pg_rfc2544_mbps(double pps, unsigned frame_size)
{
	return pps * frame_size * 8 / 1e6;
}

void pg_rfc2544_text(FILE *f, const struct pg_rfc2544_info *in, const unsigned *sizes,
		     const struct pg_search_result *res, unsigned n);
void pg_rfc2544_json(FILE *f, const struct pg_rfc2544_info *in, const unsigned *sizes,
		     const struct pg_search_result *res, unsigned n);

#endif /* PG_RFC2544_H */
