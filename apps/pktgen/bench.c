/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: the sweep and the RFC 2544 search: their trials and reports.
 */
#include "pktgen.h"

static int trial_cb(void *ctx, double pps, struct pg_trial_result *r)
{
	struct pg_trial_ctx *c = ctx;
	struct pg_app *a = c->a;
	struct pg_rate_spec spec = { .unit = PG_RATE_PPS, .value = pps };
	struct pg_stream_stats *st = &a->rs.stream;
	char err[256];
	double end_real;

	memset(r, 0, sizeof(*r));
	r->offered_pps = pps;
	if (pg_stop)
		return a->stalled ? -EIO : -EINTR;
	if (spec.value < PG_RATE_PPS_MIN)
		spec.value = PG_RATE_PPS_MIN;
	/* The one stream is paced by its own rate (pg_do_tx), --rate's by a->rate. */
	if (pg_rate_init(&a->rate, &spec, a->hz, a->link_mbps, err, sizeof(err)) ||
	    pg_rate_init(&a->sr[0].rate, &spec, a->hz, a->link_mbps, err, sizeof(err))) {
		fprintf(stderr, "unic-pktgen: error: a trial at %.3f pps: %s\n", pps, err);
		return -EINVAL;
	}
	a->o.count = 0;
	a->o.duration = c->measure_s;
	if (a->nb_thr > 1) {  /* each thread paces its share; the workers take it at their start */
		pthread_mutex_lock(&a->rate_lock);
		a->rate_now = spec;
		pthread_mutex_unlock(&a->rate_lock);
		pg_rate_apply_slice(a, &spec);
	}
	pg_run_loop(a, false, true, (uint64_t)(c->warmup_s * 1e9));
	r->sent = a->sent - a->sent_mark;
	for (unsigned t = 1; t < a->nb_thr; t++) {  /* every thread's part of the trial */
		const struct pg_app *w = a->thr[t].a;

		pg_rxstats_merge(&a->rs, &w->rs);
		r->sent += w->sent - w->sent_mark;
		a->stale += w->stale;
		if (w->t_tx_end_ns > a->t_tx_end_ns)
			a->t_tx_end_ns = w->t_tx_end_ns;
	}
	end_real = a->start_real + (double)(a->t_tx_end_ns > a->t_start_ns ? a->t_tx_end_ns - a->t_start_ns : 0) / 1e9;
	r->received = st->seq.received;
	r->lost = pg_seq_lost(&st->seq, r->sent);
	r->reordered = st->seq.reordered;
	r->duplicated = st->seq.duplicated;
	r->stale = a->stale;
	r->measured_s = end_real - a->start_real;
	r->tx_pps = r->measured_s > 0 ? (double)r->sent / r->measured_s : 0;
	r->achieved_pps = r->measured_s > 0 ? (double)r->received / r->measured_s : 0;
	r->start_time = a->start_real;
	r->end_time = end_real;
	pg_lat_summarize(&st->lat_ns, &r->lat);
	if (pg_stop)
		return a->stalled ? -EIO : -EINTR;
	return 0;
}

/* The mean frame size (no FCS) of the sizes sent in turn. */
static double mean_size(const struct pg_opts *o)
{
	double sum = 0;

	if (o->nb_sizes == 0)
		return (o->size_lo + o->size_hi) / 2.0;
	for (unsigned i = 0; i < o->nb_sizes; i++)
		sum += o->sizes[i];
	return sum / o->nb_sizes;
}

/* --json-out FILE, opened before any traffic. */
static int json_out_open(const struct pg_app *a, FILE **f)
{
	*f = NULL;
	if (a->o.bench.json_out == NULL)
		return 0;
	*f = fopen(a->o.bench.json_out, "w");
	if (*f == NULL) {
		fprintf(stderr, "unic-pktgen: error: option --json-out: cannot create '%s': %s\n",
			a->o.bench.json_out, strerror(errno));
		return PG_EXIT_USAGE;
	}
	return 0;
}

static int json_out_close(const struct pg_app *a, FILE *f)
{
	if (f && fclose(f) != 0) {
		fprintf(stderr, "unic-pktgen: error: option --json-out: writing '%s' failed: %s\n",
			a->o.bench.json_out, strerror(errno));
		return PG_EXIT_FAIL;
	}
	return 0;
}

/* Nothing came back at all: far more often a wrong port or a missing -P. */
static void nothing_back_hint(const struct pg_app *a, uint64_t sent)
{
	fprintf(stderr, "unic-pktgen: none of the %" PRIu64 " frames sent in the measured parts came back on rx port %d (%s). "
		"Check that the rx port is where the tx port's frames arrive (the cabling or the ring's peer=; "
		"behind unic-l2fwd, which rewrites the destination address, give -P) and that its link is up\n",
		sent, a->o.rx_port, unic_port_name(a->rx));
}

int pg_run_sweep(struct pg_app *a, struct pg_trial_ctx *tc)
{
	const struct pg_bench_opts *b = &a->o.bench;
	double pps[PG_SWEEP_MAX], size = mean_size(&a->o);
	double line = pg_line_pps(size, a->link_mbps);
	struct pg_trial_result *rows;
	uint64_t sent = 0, received = 0;
	FILE *jf;
	int err, ret;
	unsigned n;

	/* Every step checked before the first frame is sent. */
	for (unsigned i = 0; i < b->nb_sweep; i++) {
		pps[i] = pg_rate_spec_pps(&b->sweep[i], size, a->link_mbps);
		if (b->sweep[i].unit == PG_RATE_PCT && a->link_mbps == 0) {
			fprintf(stderr, "unic-pktgen: error: option --sweep: step %u is %.6g%% of the line rate, but tx port %d (%s) does not know its link speed; give rates in pps or bps\n",
				i, b->sweep[i].value, a->o.tx_port, unic_port_name(a->tx));
			return PG_EXIT_USAGE;
		}
		if (line > 0 && pps[i] > line * (1 + 1e-9)) {
			fprintf(stderr, "unic-pktgen: error: option --sweep: step %u (%.1f pps of %.0f-byte frames) is beyond tx port %d's link: %u Mbps carries at most %.1f pps of them\n",
				i, pps[i], size, a->o.tx_port, a->link_mbps, line);
			return PG_EXIT_USAGE;
		}
		if (!(pps[i] >= PG_RATE_PPS_MIN) || pps[i] > PG_RATE_PPS_MAX) {
			fprintf(stderr, "unic-pktgen: error: option --sweep: step %u comes to %.6g pps; rates go from %g to %g pps\n",
				i, pps[i], PG_RATE_PPS_MIN, PG_RATE_PPS_MAX);
			return PG_EXIT_USAGE;
		}
	}
	if ((ret = json_out_open(a, &jf)))
		return ret;
	rows = calloc(b->nb_sweep, sizeof(*rows));
	if (rows == NULL) {
		fprintf(stderr, "unic-pktgen: error: out of memory for %u sweep rows\n", b->nb_sweep);
		json_out_close(a, jf);
		return PG_EXIT_FAIL;
	}
	tc->measure_s = b->step_s;
	n = pg_sweep_run(pps, b->nb_sweep, trial_cb, tc, rows, &err);

	struct pg_sweep_info in = {
		.label = b->label, .sizes = a->o.nb_sizes ? a->o.sizes : NULL, .nb_sizes = a->o.nb_sizes,
		.tx_port = a->o.tx_port, .rx_port = a->o.rx_port, .step_s = b->step_s,
		.warmup_s = b->warmup_s, .link_mbps = a->link_mbps, .interrupted = n < b->nb_sweep,
	};
	unsigned range[2] = { a->o.size_lo, a->o.size_hi };

	if (a->o.nb_sizes == 0) {  /* --size-range: its ends */
		in.sizes = range;
		in.nb_sizes = 2;
		in.size_range = true;
	}
	if (a->o.json)
		pg_sweep_json(stdout, &in, rows, n);
	else
		pg_sweep_text(a->out, &in, rows, n);
	if (jf)
		pg_sweep_json(jf, &in, rows, n);
	if (a->csv)
		pg_sweep_csv(a->csv, rows, n);
	for (unsigned i = 0; i < n; i++) {
		sent += rows[i].sent;
		received += rows[i].received;
	}
	free(rows);
	ret = json_out_close(a, jf);
	if (sent > 0 && received == 0) {
		nothing_back_hint(a, sent);
		ret = PG_EXIT_FAIL;
	}
	return a->stalled ? PG_EXIT_FAIL : ret;
}

int pg_run_rfc2544(struct pg_app *a, struct pg_trial_ctx *tc)
{
	const struct pg_bench_opts *b = &a->o.bench;
	struct pg_search_result *res;
	struct pg_search s = { .loss_tol = b->loss_tol, .resolution_pct = b->resolution_pct };
	double ub[PG_RFC2544_MAX_SIZES];
	uint64_t sent = 0, received = 0;
	unsigned n = 0;
	int ret = 0, rc = 0;
	FILE *jf;

	/* The upper bound of every size, checked before the first frame. */
	for (unsigned i = 0; i < b->nb_frame_sizes; i++) {
		double size = b->frame_sizes[i] - PG_FCS_LEN;
		double line = pg_line_pps(size, a->link_mbps);

		if (a->o.rate.unit == PG_RATE_NONE) {
			if (line <= 0) {
				fprintf(stderr, "unic-pktgen: error: option --rfc2544: tx port %d (%s) does not know its link speed, so there is no line rate to search down from; give the upper bound with --rate (e.g. --rate 1Mpps)\n",
					a->o.tx_port, unic_port_name(a->tx));
				return PG_EXIT_USAGE;
			}
			ub[i] = line;
			continue;
		}
		ub[i] = pg_rate_spec_pps(&a->o.rate, size, a->link_mbps);
		if (line > 0 && ub[i] > line * (1 + 1e-9)) {
			fprintf(stderr, "unic-pktgen: error: option --rate: %.1f pps of %u-byte frames is beyond tx port %d's link: %u Mbps carries at most %.1f pps of them\n",
				ub[i], b->frame_sizes[i], a->o.tx_port, a->link_mbps, line);
			return PG_EXIT_USAGE;
		}
		if (!(ub[i] >= PG_RATE_PPS_MIN)) {
			fprintf(stderr, "unic-pktgen: error: option --rate: the upper bound comes to %.6g pps of %u-byte frames; at least %g\n",
				ub[i], b->frame_sizes[i], PG_RATE_PPS_MIN);
			return PG_EXIT_USAGE;
		}
	}
	if ((ret = json_out_open(a, &jf)))
		return ret;
	res = calloc(b->nb_frame_sizes, sizeof(*res));
	if (res == NULL) {
		fprintf(stderr, "unic-pktgen: error: out of memory for %u search results\n", b->nb_frame_sizes);
		json_out_close(a, jf);
		return PG_EXIT_FAIL;
	}
	tc->measure_s = b->trial_s;
	for (; n < b->nb_frame_sizes && rc == 0; n++) {
		a->o.streams[0].sizes[0] = b->frame_sizes[n] - PG_FCS_LEN;  /* built without the FCS */
		a->o.streams[0].nb_sizes = 1;
		a->sr[0].size_idx = 0;
		s.max_pps = ub[n];
		rc = pg_rfc2544_search(&s, trial_cb, tc, &res[n]);
		if (!a->o.json)
			fprintf(stderr, "unic-pktgen: frame size %u: %u trial(s), %s %.1f pps\n", b->frame_sizes[n],
				res[n].nb_trials, res[n].best >= 0 ? "found" : "nothing passed, rate", res[n].rate_pps);
	}

	struct pg_rfc2544_info in = {
		.label = b->label, .mode = b->mode, .loss_tol = b->loss_tol, .trial_s = b->trial_s,
		.warmup_s = b->warmup_s, .resolution_pct = b->resolution_pct, .tx_port = a->o.tx_port,
		.rx_port = a->o.rx_port, .link_mbps = a->link_mbps, .interrupted = rc != 0,
	};

	if (a->o.json)
		pg_rfc2544_json(stdout, &in, b->frame_sizes, res, n);
	else
		pg_rfc2544_text(a->out, &in, b->frame_sizes, res, n);
	if (jf)
		pg_rfc2544_json(jf, &in, b->frame_sizes, res, n);
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < res[i].nb_trials; k++) {
			sent += res[i].trials[k].sent;
			received += res[i].trials[k].received;
		}
	free(res);
	ret = json_out_close(a, jf);
	if (sent > 0 && received == 0) {
		nothing_back_hint(a, sent);
		ret = PG_EXIT_FAIL;
	}
	return a->stalled ? PG_EXIT_FAIL : ret;
}
