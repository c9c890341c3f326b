/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen --rfc2544: the options, the search over a trial callback, the reports. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_opts.h"
#include "pktgen_opts.h"
#include "rfc2544.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

int pg_rfc2544_mode_parse(const char *s, enum pg_rfc2544_mode *mode, double *loss_tol, char *err,
			  size_t errlen)
{
	const char *v;
	char *end;
	double d;

	if (strcmp(s, "ndr") == 0) {
		*mode = PG_RFC2544_NDR;
		*loss_tol = 0;
		return 0;
	}
	if (strcmp(s, "pdr") == 0) {
		*mode = PG_RFC2544_PDR;
		*loss_tol = PG_PDR_LOSS_DEFAULT;
		return 0;
	}
	if (strncmp(s, "pdr:", 4) != 0)
		return ERR("option --rfc2544: bad value '%s'; expected ndr (no loss), pdr (loss up to 0.1%%) or pdr:LOSS (a ratio such as 0.001, or a percentage such as 0.1%%)",
			   s);
	v = s + 4;
	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || (*end && strcmp(end, "%") != 0) || !isfinite(d) ||
	    ((v[0] < '0' || v[0] > '9') && v[0] != '.'))
		return ERR("option --rfc2544: '%s': loss '%s' is not a number; expected a ratio in (0, 1) such as 0.001, or a percentage such as 0.1%%",
			   s, v);
	if (*end == '%')
		d /= 100;
	if (!(d > 0 && d < 1))
		return ERR("option --rfc2544: '%s': the loss ratio must be above 0 and below 1 (0.1%% is 0.001); for no loss at all give ndr",
			   s);
	*mode = PG_RFC2544_PDR;
	*loss_tol = d;
	return 0;
}

int pg_frame_sizes_parse(const char *s, unsigned *out, unsigned max, unsigned *n, char *err,
			 size_t errlen)
{
	char buf[512], *save = NULL, *t;
	uint64_t x;
	char why[256];

	*n = 0;
	if (s[0] == '\0' || strlen(s) >= sizeof(buf) || s[0] == ',' || s[strlen(s) - 1] == ',' ||
	    strstr(s, ",,"))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", s);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return ERR("option --frame-sizes: '%s' lists more than %u sizes", s, max);
		if (app_parse_u64("--frame-sizes", t, PG_SIZE_MIN + PG_FCS_LEN, PG_SIZE_MAX + PG_FCS_LEN, &x,
				  why, sizeof(why)))
			goto bad;
		out[(*n)++] = (unsigned)x;
	}
	return 0;
bad:
	return ERR("option --frame-sizes: bad value '%s'; expected sizes %d..%d with the 4-byte FCS (as RFC 2544 counts them) separated by commas, e.g. 64,128,256,512,1024,1280,1518",
		   s, PG_SIZE_MIN + PG_FCS_LEN, PG_SIZE_MAX + PG_FCS_LEN);
}

bool pg_search_pass(const struct pg_trial_result *r, double tol)
{
	return r->sent > 0 && pg_trial_loss_ratio(r) <= tol;
}

int pg_rfc2544_search(const struct pg_search *s, pg_trial_fn fn, void *ctx,
		      struct pg_search_result *out)
{
	double lo = 0, hi, rate, stop;
	int rc;

	memset(out, 0, sizeof(*out));
	out->best = -1;
	if (!(s->max_pps > 0) || !isfinite(s->max_pps) || !(s->resolution_pct > 0) ||
	    !(s->resolution_pct < 100))
		return -EINVAL;
	hi = rate = s->max_pps;
	stop = s->max_pps * s->resolution_pct / 100;
	while (out->nb_trials < PG_SEARCH_MAX_TRIALS) {
		unsigned i = out->nb_trials;
		struct pg_trial_result *r = &out->trials[i];

		r->offered_pps = rate;
		rc = fn(ctx, rate, r);
		out->nb_trials++;
		if (rc) {
			out->lo_pps = lo;
			out->hi_pps = hi;
			return rc;
		}
		out->pass[i] = pg_search_pass(r, s->loss_tol);
		if (out->pass[i]) {
			lo = rate;
			out->best = (int)i;
		} else {
			hi = rate;
		}
		if (out->pass[i] && rate >= s->max_pps)
			break;  /* the upper bound passes: nothing above it to find */
		if (hi - lo <= stop)
			break;
		rate = (lo + hi) / 2;
	}
	out->lo_pps = lo;
	out->hi_pps = hi;
	if (out->best < 0)
		return 0;
	{
		const struct pg_trial_result *b = &out->trials[out->best];

		out->rate_pps = b->offered_pps;
		/* Never report more than was really offered. */
		if (b->tx_pps > 0 && b->tx_pps < 0.99 * b->offered_pps) {
			out->generator_limited = true;
			out->rate_pps = b->tx_pps;
		}
	}
	out->latency.offered_pps = out->rate_pps;
	rc = fn(ctx, out->rate_pps, &out->latency);
	if (rc)
		return rc;
	out->has_latency = true;
	return 0;
}

static const char *mode_name(enum pg_rfc2544_mode m)
{
	return m == PG_RFC2544_NDR ? "ndr" : "pdr";
}

void pg_rfc2544_text(FILE *f, const struct pg_rfc2544_info *in, const unsigned *sizes,
		     const struct pg_search_result *res, unsigned n)
{
	fprintf(f, "RFC 2544 throughput%s%s: %s (%s), tx port %d -> rx port %d, trials of %.3g s after a %.3g s warm-up, resolution %.3g%% of the upper bound\n",
		in->label[0] ? " " : "", in->label, in->mode == PG_RFC2544_NDR ? "NDR" : "PDR",
		in->mode == PG_RFC2544_NDR ? "no frame lost" : "loss ratio at most", in->tx_port, in->rx_port,
		in->trial_s, in->warmup_s, in->resolution_pct);
	if (in->mode == PG_RFC2544_PDR)
		fprintf(f, "loss tolerance: %.6g (%.4g%%)\n", in->loss_tol, in->loss_tol * 100);
	fprintf(f, "frame sizes include the 4-byte FCS (a 64-byte frame is 60 bytes built); Mb/s at L2 (frame with FCS, no preamble or gap)\n");
	fprintf(f, "%s\n", PG_TIMESTAMP_NOTE);
	fprintf(f, "%10s %14s %12s %10s %7s %11s %11s %11s %11s\n", "frame size", "rate (pps)",
		"rate (Mb/s)", "% of line", "trials", "lat p50 us", "lat p99 us", "p99.9 us", "max us");
	for (unsigned i = 0; i < n; i++) {
		const struct pg_search_result *r = &res[i];
		double line = pg_line_pps(sizes[i] - PG_FCS_LEN, in->link_mbps);

		fprintf(f, "%10u %14.1f %12.3f ", sizes[i], r->rate_pps, pg_rfc2544_mbps(r->rate_pps, sizes[i]));
		if (line > 0)
			fprintf(f, "%10.2f", 100 * r->rate_pps / line);
		else
			fprintf(f, "%10s", "-");
		fprintf(f, " %7u", r->nb_trials);
		if (r->has_latency && r->latency.lat.samples)
			fprintf(f, " %11.1f %11.1f %11.1f %11.1f", r->latency.lat.p50 / 1e3,
				r->latency.lat.p99 / 1e3, r->latency.lat.p999 / 1e3, r->latency.lat.max / 1e3);
		else
			fprintf(f, " %11s %11s %11s %11s", "-", "-", "-", "-");
		if (r->best < 0 && r->nb_trials)
			fprintf(f, "  NO RATE PASSED: lost frames at every rate tried, down to %.1f pps",
				r->trials[r->nb_trials - 1].offered_pps);
		else if (r->generator_limited)
			fprintf(f, "  (the generator sent below the offered %.1f pps: the rate is what it sent)",
				r->trials[r->best].offered_pps);
		fputc('\n', f);
	}
	if (in->interrupted)
		fprintf(f, "search stopped early: %u frame size(s) reported, the last possibly unfinished\n", n);
}

static void trial_json(FILE *f, const struct pg_trial_result *t, bool pass)
{
	fprintf(f, "{\"offered_pps\":%.3f,\"sent\":%" PRIu64 ",\"received\":%" PRIu64 ",\"lost\":%" PRIu64
		   ",\"loss_ratio\":%.9g,\"pass\":%s,\"tx_pps\":%.3f,\"achieved_pps\":%.3f,\"stale\":%" PRIu64
		   ",\"start_time\":%.6f,\"end_time\":%.6f,\"latency_us\":",
		t->offered_pps, t->sent, t->received, t->lost, pg_trial_loss_ratio(t), pass ? "true" : "false",
		t->tx_pps, t->achieved_pps, t->stale, t->start_time, t->end_time);
	pg_lat_json(f, &t->lat);
	fputc('}', f);
}

void pg_rfc2544_json(FILE *f, const struct pg_rfc2544_info *in, const unsigned *sizes,
		     const struct pg_search_result *res, unsigned n)
{
	fprintf(f, "{\"tool\":\"unic-pktgen\",\"kind\":\"rfc2544\",\"label\":\"%s\",\"timestamps\":\"software\","
		   "\"mode\":\"%s\",\"loss_tolerance\":%.9g,\"trial_s\":%.6g,\"warmup_s\":%.6g,"
		   "\"resolution_pct\":%.6g,\"tx_port\":%d,\"rx_port\":%d,\"frame_sizes_include_fcs\":true,"
		   "\"link_mbps\":",
		in->label, mode_name(in->mode), in->loss_tol, in->trial_s, in->warmup_s, in->resolution_pct,
		in->tx_port, in->rx_port);
	if (in->link_mbps)
		fprintf(f, "%u", in->link_mbps);
	else
		fprintf(f, "null");
	fprintf(f, ",\"interrupted\":%s,\"results\":[", in->interrupted ? "true" : "false");
	for (unsigned i = 0; i < n; i++) {
		const struct pg_search_result *r = &res[i];
		double line = pg_line_pps(sizes[i] - PG_FCS_LEN, in->link_mbps);

		fprintf(f, "%s{\"frame_size\":%u,\"rate_pps\":%.3f,\"rate_mbps\":%.6f,\"line_pct\":", i ? "," : "",
			sizes[i], r->rate_pps, pg_rfc2544_mbps(r->rate_pps, sizes[i]));
		if (line > 0)
			fprintf(f, "%.4f", 100 * r->rate_pps / line);
		else
			fprintf(f, "null");
		fprintf(f, ",\"found\":%s,\"generator_limited\":%s,\"trials\":[", r->best >= 0 ? "true" : "false",
			r->generator_limited ? "true" : "false");
		for (unsigned k = 0; k < r->nb_trials; k++) {
			if (k)
				fputc(',', f);
			trial_json(f, &r->trials[k], r->pass[k]);
		}
		fprintf(f, "],\"latency_trial\":");
		if (r->has_latency)
			trial_json(f, &r->latency, pg_search_pass(&r->latency, in->loss_tol));
		else
			fprintf(f, "null");
		fprintf(f, ",\"latency_us\":");
		if (r->has_latency) {
			pg_lat_json(f, &r->latency.lat);
		} else {
			struct pg_lat_summary none = { 0 };

			pg_lat_json(f, &none);
		}
		fputc('}', f);
	}
	fprintf(f, "]}\n");
}
