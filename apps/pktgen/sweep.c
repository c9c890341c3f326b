/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen --sweep: the spec, the run over a trial callback, the reports. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_opts.h"
#include "sweep.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

static int one_rate(const char *whole, const char *what, const char *v, struct pg_rate_spec *r,
		    char *err, size_t errlen)
{
	char why[256];

	if (pg_rate_parse(v, r, why, sizeof(why)) == 0 && r->unit != PG_RATE_NONE)
		return 0;
	return ERR("option --sweep: '%s': %s '%s' is not a rate (%s)", whole, what, v,
		   r->unit == PG_RATE_NONE ? "empty" : why);
}

int pg_sweep_parse(const char *s, struct pg_rate_spec *out, unsigned max, unsigned *n, char *err,
		   size_t errlen)
{
	char buf[1024], *save = NULL, *t, *part[5];
	unsigned np = 0;
	uint64_t steps;

	*n = 0;
	if (s[0] == '\0' || strlen(s) >= sizeof(buf))
		return ERR("option --sweep: bad value '%s'; expected a list of rates (10kpps,50kpps,100kpps) or START:STOP:STEPS[:lin|log] (1kpps:1Mpps:7:log)",
			   s);
	snprintf(buf, sizeof(buf), "%s", s);
	if (strchr(buf, ':') == NULL) {
		for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (*n == max)
				return ERR("option --sweep: '%s' lists more than %u rates", s, max);
			if (one_rate(s, "the rate", t, &out[*n], err, errlen))
				return -EINVAL;
			(*n)++;
		}
		/* strtok_r skips empty fields: "10kpps,,20kpps" or a trailing comma */
		if (*n == 0 || strstr(s, ",,") || s[0] == ',' || s[strlen(s) - 1] == ',')
			return ERR("option --sweep: '%s': an empty rate in the list; expected rates separated by commas, e.g. 10kpps,50kpps,100kpps",
				   s);
		return 0;
	}
	for (t = buf; np < 5; ) {
		part[np++] = t;
		t = strchr(t, ':');
		if (t == NULL)
			break;
		*t++ = '\0';
	}
	if (np < 3 || np > 4 || t != NULL)
		return ERR("option --sweep: '%s': expected START:STOP:STEPS or START:STOP:STEPS:lin|log (e.g. 1kpps:1Mpps:7:log)",
			   s);
	struct pg_rate_spec a, b;

	if (one_rate(s, "START", part[0], &a, err, errlen) || one_rate(s, "STOP", part[1], &b, err, errlen))
		return -EINVAL;
	if (app_parse_u64("--sweep", part[2], 0, UINT32_MAX, &steps, err, errlen))
		return ERR("option --sweep: '%s': STEPS '%s' is not a whole number", s, part[2]);
	if (steps < 2 || steps > max)
		return ERR("option --sweep: '%s': STEPS is %" PRIu64 "; expected 2..%u (the first step is START, the last STOP)",
			   s, steps, max);
	bool lg = false;

	if (np == 4) {
		if (strcmp(part[3], "log") == 0)
			lg = true;
		else if (strcmp(part[3], "lin") != 0)
			return ERR("option --sweep: '%s': spacing '%s'; expected lin or log", s, part[3]);
	}
	if (a.unit != b.unit)
		return ERR("option --sweep: '%s': START '%s' and STOP '%s' are in different units; give both in one (pps, bps, bps-wire or %%)",
			   s, part[0], part[1]);
	if (!(b.value > a.value))
		return ERR("option --sweep: '%s': STOP '%s' is not above START '%s'", s, part[1], part[0]);
	if (lg && a.value <= 0)
		return ERR("option --sweep: '%s': log spacing needs START above 0", s);
	for (unsigned i = 0; i < steps; i++) {
		double f = (double)i / (double)(steps - 1);

		out[i].unit = a.unit;
		if (i == steps - 1)
			out[i].value = b.value;  /* exactly STOP, whatever the rounding */
		else
			out[i].value = lg ? a.value * pow(b.value / a.value, f) : a.value + (b.value - a.value) * f;
	}
	*n = (unsigned)steps;
	return 0;
}

unsigned pg_sweep_run(const double *pps, unsigned n, pg_trial_fn fn, void *ctx,
		      struct pg_trial_result *rows, int *err_out)
{
	*err_out = 0;
	for (unsigned i = 0; i < n; i++) {
		memset(&rows[i], 0, sizeof(rows[i]));
		int r = fn(ctx, pps[i], &rows[i]);

		if (r) {
			*err_out = r;
			return i;
		}
	}
	return n;
}

static void lat_us_text(FILE *f, uint64_t ns, bool any)
{
	if (any)
		fprintf(f, " %9.1f", (double)ns / 1e3);
	else
		fprintf(f, " %9s", "-");
}

void pg_sweep_text(FILE *f, const struct pg_sweep_info *in, const struct pg_trial_result *rows,
		   unsigned n)
{
	fprintf(f, "sweep%s%s: tx port %d -> rx port %d, %u step(s) of %.3g s after a %.3g s warm-up, frame size",
		in->label[0] ? " " : "", in->label, in->tx_port, in->rx_port, n, in->step_s, in->warmup_s);
	for (unsigned i = 0; i < in->nb_sizes; i++)
		fprintf(f, "%s%u", i == 0 ? " " : in->size_range ? "-" : ",", in->sizes[i]);
	fprintf(f, " (no FCS)\n%s\n", PG_TIMESTAMP_NOTE);
	fprintf(f, "%4s %13s %13s %10s %10s %9s %9s %9s %9s %9s %9s %9s\n", "step", "offered_pps",
		"achieved_pps", "sent", "received", "loss%", "p50_us", "p90_us", "p99_us", "p99.9_us",
		"max_us", "stale");
	for (unsigned i = 0; i < n; i++) {
		const struct pg_trial_result *r = &rows[i];
		bool any = r->lat.samples > 0;

		fprintf(f, "%4u %13.1f %13.1f %10" PRIu64 " %10" PRIu64 " %9.4f", i, r->offered_pps,
			r->achieved_pps, r->sent, r->received, 100 * pg_trial_loss_ratio(r));
		lat_us_text(f, r->lat.p50, any);
		lat_us_text(f, r->lat.p90, any);
		lat_us_text(f, r->lat.p99, any);
		lat_us_text(f, r->lat.p999, any);
		lat_us_text(f, r->lat.max, any);
		fprintf(f, " %9" PRIu64 "%s\n", r->stale,
			r->tx_pps < 0.99 * r->offered_pps ? "  (sent below the offered rate: the generator was the limit)" : "");
	}
	if (in->interrupted)
		fprintf(f, "sweep stopped early: %u step(s) done\n", n);
}

static void csv_us(FILE *f, uint64_t ns, bool any)
{
	if (any)
		fprintf(f, ",%.3f", (double)ns / 1e3);
	else
		fputc(',', f);
}

void pg_sweep_csv(FILE *f, const struct pg_trial_result *rows, unsigned n)
{
	fprintf(f, "step,start_time,end_time,offered_pps,sent,received,lost,loss_ratio,achieved_pps,"
		   "tx_pps,reordered,duplicated,stale,lat_samples,lat_p50_us,lat_p90_us,lat_p99_us,"
		   "lat_p99_9_us,lat_max_us\n");
	for (unsigned i = 0; i < n; i++) {
		const struct pg_trial_result *r = &rows[i];
		bool any = r->lat.samples > 0;

		fprintf(f, "%u,%.6f,%.6f,%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.9g,%.3f,%.3f,%" PRIu64
			   ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, i, r->start_time, r->end_time, r->offered_pps,
			r->sent, r->received, r->lost, pg_trial_loss_ratio(r), r->achieved_pps, r->tx_pps,
			r->reordered, r->duplicated, r->stale, r->lat.samples);
		csv_us(f, r->lat.p50, any);
		csv_us(f, r->lat.p90, any);
		csv_us(f, r->lat.p99, any);
		csv_us(f, r->lat.p999, any);
		csv_us(f, r->lat.max, any);
		fputc('\n', f);
	}
}

void pg_sweep_json(FILE *f, const struct pg_sweep_info *in, const struct pg_trial_result *rows,
		   unsigned n)
{
	fprintf(f, "{\"tool\":\"unic-pktgen\",\"kind\":\"sweep\",\"label\":\"%s\",\"timestamps\":\"software\","
		   "\"frame_sizes\":[", in->label);
	for (unsigned i = 0; i < in->nb_sizes; i++)
		fprintf(f, "%s%u", i ? "," : "", in->sizes[i]);
	fprintf(f, "],\"tx_port\":%d,\"rx_port\":%d,\"step_s\":%.6g,\"warmup_s\":%.6g,\"link_mbps\":",
		in->tx_port, in->rx_port, in->step_s, in->warmup_s);
	if (in->link_mbps)
		fprintf(f, "%u", in->link_mbps);
	else
		fprintf(f, "null");
	fprintf(f, ",\"interrupted\":%s,\"steps\":[", in->interrupted ? "true" : "false");
	for (unsigned i = 0; i < n; i++) {
		const struct pg_trial_result *r = &rows[i];

		fprintf(f, "%s{\"step\":%u,\"start_time\":%.6f,\"end_time\":%.6f,\"offered_pps\":%.3f,"
			   "\"sent\":%" PRIu64 ",\"received\":%" PRIu64 ",\"lost\":%" PRIu64
			   ",\"loss_ratio\":%.9g,\"achieved_pps\":%.3f,\"tx_pps\":%.3f,\"reordered\":%" PRIu64
			   ",\"duplicated\":%" PRIu64 ",\"stale\":%" PRIu64 ",\"latency_us\":",
			i ? "," : "", i, r->start_time, r->end_time, r->offered_pps, r->sent, r->received,
			r->lost, pg_trial_loss_ratio(r), r->achieved_pps, r->tx_pps, r->reordered,
			r->duplicated, r->stale);
		pg_lat_json(f, &r->lat);
		fputc('}', f);
	}
	fprintf(f, "]}\n");
}
