/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen trials and the options the sweep and the search share. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rfc2544.h"
#include "sweep.h"
#include "trial.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

void pg_lat_summarize(const struct pg_hist *h, struct pg_lat_summary *s)
{
	s->samples = h->count;
	s->p50 = pg_hist_percentile(h, 50);
	s->p90 = pg_hist_percentile(h, 90);
	s->p99 = pg_hist_percentile(h, 99);
	s->p999 = pg_hist_percentile(h, 99.9);
	s->max = h->count ? h->max : 0;
}

double pg_trial_loss_ratio(const struct pg_trial_result *r)
{
	return r->sent ? (double)r->lost / (double)r->sent : 0;
}

double pg_line_pps(double size, uint32_t link_mbps)
{
	if (link_mbps == 0 || size <= 0)
		return 0;
	return (double)link_mbps * 1e6 / ((size + 24) * 8);
}

double pg_rate_spec_pps(const struct pg_rate_spec *r, double size, uint32_t link_mbps)
{
	switch (r->unit) {
	case PG_RATE_PPS:
		return r->value;
	case PG_RATE_BPS_L2:
		return r->value / ((size + 4) * 8);
	case PG_RATE_BPS_WIRE:
		return r->value / ((size + 24) * 8);
	case PG_RATE_PCT:
		return pg_line_pps(size, link_mbps) * r->value / 100;
	default:
		return 0;
	}
}

void pg_bench_opts_init(struct pg_bench_opts *b)
{
	memset(b, 0, sizeof(*b));
	b->trial_s = PG_TRIAL_S_DEFAULT;
	b->resolution_pct = PG_RESOLUTION_PCT_DEFAULT;
	b->step_s = PG_STEP_S_DEFAULT;
	b->warmup_s = PG_WARMUP_S_DEFAULT;
	b->label = "";
}

int pg_parse_seconds(const char *opt, const char *v, bool zero_ok, double *out, char *err,
		     size_t errlen)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !isfinite(d) || d < 0 || (d == 0 && !zero_ok) || d > 86400 ||
	    ((v[0] < '0' || v[0] > '9') && v[0] != '.'))
		return ERR("option %s: bad value '%s'; expected seconds %s 0 and at most 86400, e.g. 2 or 0.5",
			   opt, v, zero_ok ? "from" : "above");
	*out = d;
	return 0;
}

static const char *const bench_with_value[] = {
	"--sweep", "--step-duration", "--warmup", "--rfc2544", "--frame-sizes", "--trial-duration",
	"--resolution", "--label", "--json-out", NULL,
};

bool pg_bench_opt_takes_value(const char *name)
{
	for (unsigned k = 0; bench_with_value[k]; k++)
		if (strcmp(name, bench_with_value[k]) == 0)
			return true;
	return false;
}

int pg_bench_opt(struct pg_bench_opts *b, const char *name, const char *v, char *err, size_t errlen)
{
	int rc;

	if (!pg_bench_opt_takes_value(name))
		return 0;
	if (strcmp(name, "--sweep") == 0) {
		rc = pg_sweep_parse(v, b->sweep, PG_SWEEP_MAX, &b->nb_sweep, err, errlen);
		b->sweep_arg = v;
	} else if (strcmp(name, "--step-duration") == 0) {
		rc = pg_parse_seconds(name, v, false, &b->step_s, err, errlen);
		b->step_given = true;
	} else if (strcmp(name, "--warmup") == 0) {
		rc = pg_parse_seconds(name, v, true, &b->warmup_s, err, errlen);
		b->warmup_given = true;
	} else if (strcmp(name, "--trial-duration") == 0) {
		rc = pg_parse_seconds(name, v, false, &b->trial_s, err, errlen);
		b->trial_given = true;
	} else if (strcmp(name, "--rfc2544") == 0) {
		rc = pg_rfc2544_mode_parse(v, &b->mode, &b->loss_tol, err, errlen);
	} else if (strcmp(name, "--frame-sizes") == 0) {
		rc = pg_frame_sizes_parse(v, b->frame_sizes, PG_RFC2544_MAX_SIZES, &b->nb_frame_sizes,
					  err, errlen);
		b->frame_sizes_given = true;
	} else if (strcmp(name, "--resolution") == 0) {
		char *end;
		double d;

		errno = 0;
		d = strtod(v, &end);
		if (errno || end == v || (*end && strcmp(end, "%") != 0) || !isfinite(d) || d <= 0 ||
		    d >= 100)
			return ERR("option --resolution: bad value '%s'; expected a percentage of the upper bound above 0 and below 100, e.g. 1 or 0.5%%",
				   v);
		b->resolution_pct = d;
		b->resolution_given = true;
		rc = 0;
	} else if (strcmp(name, "--label") == 0) {
		for (const char *c = v; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == '"' || *c == '\\' || *c == ',')
				return ERR("option --label: '%s' holds a quote, backslash, comma or control character; use letters, digits, spaces and - _ . : /",
					   v);
		b->label = v;
		b->label_given = true;
		rc = 0;
	} else {  /* --json-out */
		if (v[0] == '\0')
			return ERR("option --json-out: empty file name");
		b->json_out = v;
		rc = 0;
	}
	return rc ? -EINVAL : 1;
}

int pg_bench_opts_check(const struct pg_bench_opts *b, bool has_rate, bool has_count_or_duration,
			bool has_sizes, bool replay, char *err, size_t errlen)
{
	bool sweep = b->sweep_arg != NULL, search = b->mode != PG_RFC2544_NONE;
	const char *which = sweep ? "--sweep" : "--rfc2544";

	if (sweep && search)
		return ERR("options --sweep and --rfc2544: one or the other (a sweep measures the rates given, the search finds one)");
	if (!sweep && b->step_given)
		return ERR("option --step-duration: only with --sweep (--rfc2544 takes --trial-duration)");
	if (!search && (b->trial_given || b->resolution_given || b->frame_sizes_given))
		return ERR("option %s: only with --rfc2544",
			   b->trial_given ? "--trial-duration" : b->resolution_given ? "--resolution" : "--frame-sizes");
	if (!sweep && !search && (b->warmup_given || b->label_given || b->json_out))
		return ERR("option %s: only with --sweep or --rfc2544",
			   b->warmup_given ? "--warmup" : b->label_given ? "--label" : "--json-out");
	if (!sweep && !search)
		return 0;
	if (replay)
		return ERR("options --replay and %s: a replayed capture carries no stamps of this run to measure; build the frames (--size, --sizes)",
			   which);
	if (has_count_or_duration)
		return ERR("options --count/--duration and %s: the %s sets its own length (%s)", which,
			   sweep ? "sweep" : "search", sweep ? "--step-duration, --warmup" : "--trial-duration, --warmup");
	if (sweep && has_rate)
		return ERR("options --rate and --sweep: the sweep gives the rates; drop --rate");
	if (search && has_sizes)
		return ERR("options --size/--sizes/--size-range and --rfc2544: the search takes --frame-sizes (RFC 2544 sizes, FCS included)");
	return 0;
}

static void json_us(FILE *f, const char *key, uint64_t ns, bool any, bool comma)
{
	if (any)
		fprintf(f, "\"%s\":%.3f%s", key, (double)ns / 1e3, comma ? "," : "");
	else
		fprintf(f, "\"%s\":null%s", key, comma ? "," : "");
}

void pg_lat_json(FILE *f, const struct pg_lat_summary *s)
{
	bool any = s->samples > 0;

	fputc('{', f);
	json_us(f, "p50", s->p50, any, true);
	json_us(f, "p90", s->p90, any, true);
	json_us(f, "p99", s->p99, any, true);
	json_us(f, "p99_9", s->p999, any, true);
	json_us(f, "max", s->max, any, true);
	fprintf(f, "\"samples\":%llu}", (unsigned long long)s->samples);
}
