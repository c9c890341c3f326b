/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen --sweep: one trial (trial.h) a rate, in the order given, one
 * row a step: offered, achieved, loss, latency percentiles; as text, CSV
 * and JSON. The spec parser and the reports are pure, unit-tested.
 */
#ifndef PG_SWEEP_H
#define PG_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trial.h"

/*
 * Parse a sweep: a list "10kpps,50kpps,100kpps" (any form --rate takes), or
 * "START:STOP:STEPS[:lin|log]" (START and STOP in one unit, STOP above
 * START, 2 <= STEPS <= @p max; lin spaces the rates evenly, log by a
 * constant factor). Fills @p out[0..*n-1]. @return 0, or -EINVAL with a
 * message naming --sweep and the part that is wrong.
 */
int pg_sweep_parse(const char *s, struct pg_rate_spec *out, unsigned max, unsigned *n, char *err,
		   size_t errlen);

/* What a sweep report shows besides its rows. */
struct pg_sweep_info {
	const char *label;
	const unsigned *sizes;      /* frame sizes sent, no FCS */
	unsigned nb_sizes;
	bool size_range;            /* sizes[0]..sizes[1], every size between (--size-range) */
	int tx_port, rx_port;
	double step_s, warmup_s;
	uint32_t link_mbps;         /* 0: unknown */
	bool interrupted;           /* a signal or a stalled port ended it early */
};

/*
 * Run the sweep: a trial at each of @p pps[0..n-1], in order, through @p fn.
 * @return the number of steps done (fewer than @p n when a trial returned
 * an error, which goes to *err_out).
 */
unsigned pg_sweep_run(const double *pps, unsigned n, pg_trial_fn fn, void *ctx,
		      struct pg_trial_result *rows, int *err_out);

void pg_sweep_text(FILE *f, const struct pg_sweep_info *in, const struct pg_trial_result *rows,
		   unsigned n);
void pg_sweep_csv(FILE *f, const struct pg_trial_result *rows, unsigned n);
void pg_sweep_json(FILE *f, const struct pg_sweep_info *in, const struct pg_trial_result *rows,
		   unsigned n);

#endif /* PG_SWEEP_H */
