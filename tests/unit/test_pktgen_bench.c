/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen's sweep and RFC 2544 search: the sweep spec and the search's
 * options (every refusal names its option), the trial's sequence-number
 * epoch (a late frame of an earlier trial is never counted), the search
 * over fake devices (a threshold, random loss, loss everywhere, a
 * generator that falls short), and the binary (UNIC_PKTGEN) sweeping and
 * searching on a ring pair: structure and counts, no timed assertions.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pktgen_opts.h"
#include "pktgen_test_opts.h"
#include "rfc2544.h"
#include "rxstats.h"
#include "run_binary.h"
#include "sweep.h"
#include "trial.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))

static char err[1024];

/* ---- the sweep spec ---- */

Test(pktgen_sweep_spec, a_list_keeps_its_rates_and_units_in_order)
{
	struct pg_rate_spec r[8];
	unsigned n;

	cr_assert_eq(pg_sweep_parse("10kpps,50kpps,100Mbps,5%", r, 8, &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n, 4);
	cr_assert(r[0].unit == PG_RATE_PPS && r[0].value == 10e3);
	cr_assert(r[1].unit == PG_RATE_PPS && r[1].value == 50e3);
	cr_assert(r[2].unit == PG_RATE_BPS_L2 && r[2].value == 100e6);
	cr_assert(r[3].unit == PG_RATE_PCT && r[3].value == 5);
}

Test(pktgen_sweep_spec, a_linear_range_is_evenly_spaced_from_start_to_stop)
{
	struct pg_rate_spec r[8];
	unsigned n;

	cr_assert_eq(pg_sweep_parse("10kpps:50kpps:5", r, 8, &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n, 5);
	for (unsigned i = 0; i < 5; i++)
		cr_assert_float_eq(r[i].value, 10e3 + 10e3 * i, 1e-6, "step %u: %f", i, r[i].value);
	cr_assert_eq(pg_sweep_parse("10kpps:50kpps:5:lin", r, 8, &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_float_eq(r[2].value, 30e3, 1e-6);
}

Test(pktgen_sweep_spec, a_log_range_grows_by_a_constant_factor)
{
	struct pg_rate_spec r[8];
	unsigned n;

	cr_assert_eq(pg_sweep_parse("1kpps:1Mpps:7:log", r, 8, &n, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(n, 7);
	cr_assert_eq(r[0].value, 1e3);
	cr_assert_eq(r[6].value, 1e6, "the last step is exactly STOP");
	for (unsigned i = 1; i < 7; i++)
		cr_assert_float_eq(r[i].value / r[i - 1].value, sqrt(10), 1e-9, "step %u", i);
}

Test(pktgen_sweep_spec, malformed_specs_are_refused_naming_the_part)
{
	static const struct {
		const char *spec, *want[2];
	} cases[] = {
		{ "10kpps:50kpps:1", { "STEPS is 1", "2.." } },
		{ "10kpps:50kpps:0", { "STEPS is 0" } },
		{ "10kpps:50kpps:x", { "STEPS 'x'" } },
		{ "50kpps:10kpps:3", { "STOP '10kpps' is not above START" } },
		{ "10kpps:10kpps:3", { "not above START" } },
		{ "0pps:1Mpps:3:log", { "START" } },
		{ "1kpps:1Mpps:3:cubic", { "spacing 'cubic'", "lin or log" } },
		{ "1kpps:1Gbps:3", { "different units" } },
		{ "1kfoo:1Mpps:3", { "START '1kfoo' is not a rate" } },
		{ "10kpps,5furlongs", { "'5furlongs' is not a rate" } },
		{ "10kpps,,20kpps", { "empty rate" } },
		{ "10kpps,", { "empty rate" } },
		{ "1:2", { "START:STOP:STEPS" } },
		{ "1kpps:2kpps:3:log:x", { "START:STOP:STEPS" } },
		{ "", { "expected a list" } },
	};
	struct pg_rate_spec r[8];
	unsigned n;

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(pg_sweep_parse(cases[i].spec, r, 8, &n, err, sizeof(err)), -EINVAL, "accepted '%s'",
			     cases[i].spec);
		HAS(err, "option --sweep");
		for (unsigned k = 0; k < 2 && cases[i].want[k]; k++)
			HAS(err, cases[i].want[k]);
	}
	cr_assert_eq(pg_sweep_parse("1kpps:2kpps:9", r, 8, &n, err, sizeof(err)), -EINVAL, "more steps than room");
}

/* ---- the options ---- */

static int parse(struct pg_opts *o, const char *line)
{
	return pg_test_parse(o, line, err, sizeof(err));
}

Test(pktgen_bench_opts, the_sweep_and_search_options_are_taken_with_their_defaults)
{
	struct pg_opts o;
	static const unsigned rfc[] = PG_RFC2544_SIZES;

	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --sweep 1kpps:3kpps:3 --step-duration 1.5 --warmup 0 --label a-b --json-out x.json"),
		     0, "%s", err);
	cr_assert_eq(o.bench.nb_sweep, 3);
	cr_assert_eq(o.bench.step_s, 1.5);
	cr_assert_eq(o.bench.warmup_s, 0);
	cr_assert_str_eq(o.bench.label, "a-b");
	cr_assert_str_eq(o.bench.json_out, "x.json");

	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --rfc2544 ndr"), 0, "%s", err);
	cr_assert_eq(o.bench.mode, PG_RFC2544_NDR);
	cr_assert_eq(o.bench.loss_tol, 0);
	cr_assert_eq(o.bench.nb_frame_sizes, PG_RFC2544_NB_SIZES, "RFC 2544 section 9's sizes by default");
	cr_assert_arr_eq(o.bench.frame_sizes, rfc, sizeof(rfc));
	cr_assert_eq(o.bench.trial_s, PG_TRIAL_S_DEFAULT);
	cr_assert_eq(o.bench.resolution_pct, PG_RESOLUTION_PCT_DEFAULT);

	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --rfc2544 pdr --frame-sizes 64,1518 --trial-duration 2 --resolution 0.5%"),
		     0, "%s", err);
	cr_assert_eq(o.bench.mode, PG_RFC2544_PDR);
	cr_assert_float_eq(o.bench.loss_tol, 0.001, 1e-15, "PDR's default loss is 0.1%%");
	cr_assert_eq(o.bench.nb_frame_sizes, 2);
	cr_assert_eq(o.bench.frame_sizes[1], 1518);
	cr_assert_eq(o.bench.resolution_pct, 0.5);
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --rfc2544 pdr:0.5%"), 0, "%s", err);
	cr_assert_float_eq(o.bench.loss_tol, 0.005, 1e-15);
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --rfc2544 pdr:0.02 --rate 1Mpps"), 0, "%s", err);
	cr_assert_float_eq(o.bench.loss_tol, 0.02, 1e-15);
}

Test(pktgen_bench_opts, bad_values_and_combinations_are_refused_naming_the_option)
{
	static const struct {
		const char *line, *want[2];
	} cases[] = {
		{ "--rfc2544 ndx", { "--rfc2544", "'ndx'" } },
		{ "--rfc2544 pdr:0", { "--rfc2544", "above 0 and below 1" } },
		{ "--rfc2544 pdr:1", { "--rfc2544", "above 0 and below 1" } },
		{ "--rfc2544 pdr:150%", { "--rfc2544", "above 0 and below 1" } },
		{ "--rfc2544 pdr:-0.1", { "--rfc2544", "not a number" } },
		{ "--rfc2544 pdr:x", { "--rfc2544", "not a number" } },
		{ "--rfc2544 ndr --trial-duration 0", { "--trial-duration", "'0'" } },
		{ "--rfc2544 ndr --trial-duration -1", { "--trial-duration", "'-1'" } },
		{ "--sweep 1kpps,2kpps --step-duration 0", { "--step-duration", "'0'" } },
		{ "--sweep 1kpps,2kpps --warmup -0.5", { "--warmup", "'-0.5'" } },
		{ "--rfc2544 ndr --resolution 0", { "--resolution", "'0'" } },
		{ "--rfc2544 ndr --resolution 100", { "--resolution", "'100'" } },
		{ "--rfc2544 ndr --frame-sizes 63", { "--frame-sizes", "'63'" } },
		{ "--rfc2544 ndr --frame-sizes 64,,128", { "--frame-sizes", "64,,128" } },
		{ "--rfc2544 ndr --ipv6", { "--frame-sizes", "RFC 2544 frame size 64" } },
		{ "--rfc2544 ndr --sweep 1kpps,2kpps", { "--sweep and --rfc2544", "one or the other" } },
		{ "--sweep 1kpps,2kpps --rate 1Mpps", { "--rate and --sweep" } },
		{ "--sweep 1kpps,2kpps --duration 3", { "--count/--duration" } },
		{ "--rfc2544 ndr --count 3", { "--count/--duration" } },
		{ "--rfc2544 ndr --sizes 64,128", { "--frame-sizes" } },
		{ "--rfc2544 ndr --csv x.csv", { "--csv and --rfc2544" } },
		{ "--trial-duration 3", { "--trial-duration", "only with --rfc2544" } },
		{ "--step-duration 3", { "--step-duration", "only with --sweep" } },
		{ "--warmup 1", { "--warmup", "only with --sweep or --rfc2544" } },
		{ "--sweep 1kpps,2kpps --replay x.pcap", { "--replay and --sweep" } },
		{ "--sweep 1kpps,2kpps --label a\"b", { "--label" } },
	};
	struct pg_opts o;
	char line[512];

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(line, sizeof(line), "--tx-port 0 --rx-port 1 %s", cases[i].line);
		cr_assert_eq(parse(&o, line), -EINVAL, "accepted: %s", line);
		for (unsigned k = 0; k < 2 && cases[i].want[k]; k++)
			HAS(err, cases[i].want[k]);
	}
}

/* ---- the trial's epoch ---- */

Test(pktgen_trial, a_frame_counts_only_from_the_measured_parts_base_on_even_across_a_wrap)
{
	cr_assert(pg_trial_seq_counts(1000, 1000));
	cr_assert(pg_trial_seq_counts(1000, 1001));
	cr_assert_not(pg_trial_seq_counts(1000, 999));
	cr_assert_not(pg_trial_seq_counts(1000, 0));
	cr_assert(pg_trial_seq_counts(0xfffffff0u, 5), "after the wrap");
	cr_assert_not(pg_trial_seq_counts(0xfffffff0u, 0xffffffe0u));
	cr_assert_not(pg_trial_seq_counts(5, 0xfffffff0u), "before the wrap, an earlier trial");
}

/* Receive a frame numbered @p seq as main.c does: stale, or into rxstats. */
static void deliver(struct pg_rxstats *rs, uint32_t base, uint32_t seq, uint64_t *stale)
{
	struct pg_stamp s = { .magic = PG_STAMP_MAGIC, .stream = rs->stream_id, .seq = seq };
	struct pg_stream_stats *st;

	if (pg_trial_frame_stale(true, base, rs->stream_id, PG_PARSE_OK, &s)) {
		(*stale)++;
		return;
	}
	st = pg_rxstats_frame(rs, 60, PG_PARSE_OK, &s);
	cr_assert_not_null(st);
	pg_seq_add(&st->seq, seq);
}

Test(pktgen_trial, late_frames_of_an_earlier_trial_and_the_warmup_are_never_counted)
{
	struct pg_rxstats rs;
	uint64_t stale = 0;
	struct pg_stamp other = { .magic = PG_STAMP_MAGIC, .stream = 9, .seq = 1 };

	/* Trial 1 sent 0..999 (measured from 0); 900..999 are still in flight.
	 * Trial 2 warms up with 1000..1499 and measures from 1500: 1500..2499. */
	pg_rxstats_init(&rs, 3);
	for (uint32_t s = 1500; s < 2500; s++) {
		if (s % 10 == 0)  /* the stragglers arrive in between */
			deliver(&rs, 1500, 900 + (s - 1500) / 10, &stale);
		if (s % 7 == 0)   /* and late frames of the warm-up */
			deliver(&rs, 1500, 1000 + (s - 1500) / 7, &stale);
		deliver(&rs, 1500, s, &stale);
	}
	cr_assert_eq(rs.stream.seq.received, 1000, "only the measured frames: %lu",
		     (unsigned long)rs.stream.seq.received);
	cr_assert_eq(pg_seq_lost(&rs.stream.seq, 1000), 0);
	cr_assert_eq(rs.stream.seq.reordered, 0, "a straggler is not a reordered frame");
	cr_assert_eq(rs.stream.seq.duplicated, 0);
	cr_assert_eq(stale, 100 + 143, "every straggler counted apart: %lu", (unsigned long)stale);
	/* Another sender's frame is rxstats' business, stale or not. */
	cr_assert_not(pg_trial_frame_stale(true, 1500, 3, PG_PARSE_OK, &other));
	/* Outside a trial (a plain run) nothing is stale. */
	other.stream = 3;
	cr_assert_not(pg_trial_frame_stale(false, 1500, 3, PG_PARSE_OK, &other));
}

/* ---- the search, over fake devices ---- */

struct fake_dev {
	double loses_above;   /* pps; frames above it are lost */
	double loss_p;        /* random loss: the chance a trial loses a frame */
	double gen_max;       /* the generator's own limit (0: none) */
	bool loses_always;
	int fail_at;          /* the trial (1-based) that returns an error; 0: none */
	unsigned calls;
	unsigned seed;
};

static int fake_trial(void *ctx, double pps, struct pg_trial_result *r)
{
	struct fake_dev *d = ctx;
	double sent_pps = d->gen_max > 0 && pps > d->gen_max ? d->gen_max : pps;

	d->calls++;
	memset(r, 0, sizeof(*r));
	r->offered_pps = pps;
	if (d->fail_at && (int)d->calls == d->fail_at)
		return -EINTR;
	r->measured_s = 1;
	r->sent = (uint64_t)sent_pps;
	r->tx_pps = (double)r->sent;
	if (d->loses_always)
		r->lost = r->sent / 100 + 1;
	else if (d->loss_p > 0)
		r->lost = (double)rand_r(&d->seed) / RAND_MAX < d->loss_p ? 1 : 0;
	else if (sent_pps > d->loses_above)
		r->lost = (uint64_t)(sent_pps - d->loses_above);
	if (r->lost > r->sent)
		r->lost = r->sent;
	r->received = r->sent - r->lost;
	r->achieved_pps = (double)r->received;
	r->lat.samples = r->received;
	r->lat.p50 = 1000;
	r->lat.max = 5000;
	return 0;
}

Test(pktgen_search, a_device_that_loses_above_x_is_found_at_x_within_the_resolution)
{
	static const double xs[] = { 123456, 1e6, 14e6, 7 };
	static struct pg_search_result res;

	for (unsigned i = 0; i < sizeof(xs) / sizeof(xs[0]); i++) {
		struct fake_dev d = { .loses_above = xs[i] };
		struct pg_search s = { .max_pps = 14880952, .loss_tol = 0, .resolution_pct = 0.5 };

		cr_assert_eq(pg_rfc2544_search(&s, fake_trial, &d, &res), 0);
		if (xs[i] < s.max_pps * 0.005) {  /* below the resolution: nothing can pass */
			cr_assert_eq(res.best, -1);
			cr_assert_eq(res.rate_pps, 0);
			continue;
		}
		cr_assert_geq(res.best, 0, "x %f", xs[i]);
		cr_assert_leq(res.rate_pps, xs[i], "never above what the device takes: %f > %f", res.rate_pps, xs[i]);
		cr_assert_geq(res.rate_pps, xs[i] - s.max_pps * 0.005, "x %f found %f", xs[i], res.rate_pps);
		cr_assert_lt(res.hi_pps - res.lo_pps, s.max_pps * 0.005 + 1);
		cr_assert_leq(res.nb_trials, 9, "%u trials for a resolution of 0.5%%", res.nb_trials);
		cr_assert(res.has_latency, "a latency trial at the rate found");
		cr_assert_eq(res.latency.offered_pps, res.rate_pps);
		cr_assert_eq(d.calls, res.nb_trials + 1);
		cr_assert_not(res.generator_limited);
	}
}

Test(pktgen_search, pdr_passes_a_loss_within_its_tolerance)
{
	static struct pg_search_result res;
	/* Loses (rate - 1e6) frames a second: 0.1% of 1001001 pps is 1001. */
	struct fake_dev d = { .loses_above = 1e6 };
	struct pg_search s = { .max_pps = 2e6, .loss_tol = 0.001, .resolution_pct = 0.01 };

	cr_assert_eq(pg_rfc2544_search(&s, fake_trial, &d, &res), 0);
	cr_assert_gt(res.rate_pps, 1e6, "some loss was allowed: %f", res.rate_pps);
	cr_assert_leq(res.rate_pps, 1001001.1, "%f", res.rate_pps);
	cr_assert_geq(res.rate_pps, 1001001 - 2e6 * 0.0001, "%f", res.rate_pps);
}

Test(pktgen_search, the_line_rate_passing_takes_one_trial)
{
	static struct pg_search_result res;
	struct fake_dev d = { .loses_above = 1e9 };
	struct pg_search s = { .max_pps = 1e6, .loss_tol = 0, .resolution_pct = 1 };

	cr_assert_eq(pg_rfc2544_search(&s, fake_trial, &d, &res), 0);
	cr_assert_eq(res.nb_trials, 1);
	cr_assert_eq(res.rate_pps, 1e6);
}

Test(pktgen_search, random_loss_ends_in_bounded_trials_at_a_rate_that_passed)
{
	static struct pg_search_result res;

	for (unsigned seed = 1; seed < 50; seed++) {
		struct fake_dev d = { .loss_p = 0.5, .seed = seed };
		struct pg_search s = { .max_pps = 1e6, .loss_tol = 0, .resolution_pct = 1 };

		cr_assert_eq(pg_rfc2544_search(&s, fake_trial, &d, &res), 0);
		cr_assert_leq(res.nb_trials, 8, "1%% of the bound in at most 8 halvings: %u", res.nb_trials);
		if (res.best < 0) {
			cr_assert_eq(res.rate_pps, 0);
			continue;
		}
		cr_assert(res.pass[res.best]);
		cr_assert_eq(res.rate_pps, res.trials[res.best].offered_pps);
		for (unsigned k = 0; k < res.nb_trials; k++)
			if (res.pass[k])
				cr_assert_leq(res.trials[k].offered_pps, res.rate_pps, "the best is the highest pass");
	}
}

Test(pktgen_search, a_device_that_loses_at_every_rate_reports_rate_zero_clearly)
{
	static struct pg_search_result res;
	struct fake_dev d = { .loses_always = true };
	struct pg_search s = { .max_pps = 1488095, .loss_tol = 0.001, .resolution_pct = 1 };
	struct pg_rfc2544_info in = { .label = "x", .mode = PG_RFC2544_PDR, .loss_tol = 0.001, .link_mbps = 1000 };
	unsigned size = 64;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(pg_rfc2544_search(&s, fake_trial, &d, &res), 0);
	cr_assert_eq(res.best, -1);
	cr_assert_eq(res.rate_pps, 0);
	cr_assert_not(res.has_latency, "no latency trial at rate 0");
	cr_assert_eq(d.calls, res.nb_trials);
	cr_assert_leq(res.nb_trials, 8);
	f = open_memstream(&buf, &len);
	pg_rfc2544_text(f, &in, &size, &res, 1);
	fclose(f);
	HAS(buf, "NO RATE PASSED");
	free(buf);
	f = open_memstream(&buf, &len);
	pg_rfc2544_json(f, &in, &size, &res, 1);
	fclose(f);
	HAS(buf, "\"rate_pps\":0.000");
	HAS(buf, "\"found\":false");
	HAS(buf, "\"latency_us\":{\"p50\":null");
	free(buf);
}

Test(pktgen_search, a_generator_short_of_the_offered_rate_reports_what_it_sent)
{
	static struct pg_search_result res;
	struct fake_dev d = { .loses_above = 1e9, .gen_max = 300000 };
	struct pg_search s = { .max_pps = 1e6, .loss_tol = 0, .resolution_pct = 1 };

	cr_assert_eq(pg_rfc2544_search(&s, fake_trial, &d, &res), 0);
	cr_assert(res.generator_limited);
	cr_assert_eq(res.rate_pps, 300000, "what was really offered, not what was asked: %f", res.rate_pps);
}

Test(pktgen_search, an_error_from_a_trial_stops_the_search_keeping_the_trials_done)
{
	static struct pg_search_result res;
	struct fake_dev d = { .loses_above = 1000, .fail_at = 3 };
	struct pg_search s = { .max_pps = 1e6, .loss_tol = 0, .resolution_pct = 1 };

	cr_assert_eq(pg_rfc2544_search(&s, fake_trial, &d, &res), -EINTR);
	cr_assert_eq(res.nb_trials, 3);
	s.max_pps = 0;
	cr_assert_eq(pg_rfc2544_search(&s, fake_trial, &d, &res), -EINVAL, "no upper bound");
}

Test(pktgen_sweep, a_sweep_runs_every_rate_in_order_and_stops_at_an_error)
{
	static const double pps[] = { 10, 30, 20 };
	struct pg_trial_result rows[3];
	struct fake_dev d = { .loses_above = 25 };
	int e;

	cr_assert_eq(pg_sweep_run(pps, 3, fake_trial, &d, rows, &e), 3);
	cr_assert_eq(e, 0);
	for (unsigned i = 0; i < 3; i++)
		cr_assert_eq(rows[i].offered_pps, pps[i]);
	cr_assert_eq(rows[1].lost, 5);
	d = (struct fake_dev){ .loses_above = 25, .fail_at = 2 };
	cr_assert_eq(pg_sweep_run(pps, 3, fake_trial, &d, rows, &e), 1);
	cr_assert_eq(e, -EINTR);
}

/* ---- the binary on a ring pair ---- */

#define RING "--no-pci --no-huge --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1"

static int run(const char *args, char *out, size_t outlen)
{
	char cmd[1024];
	int len = snprintf(cmd, sizeof(cmd), "%s %s 2>&1", binary_path("UNIC_PKTGEN"), args);

	cr_assert_lt(len, (int)sizeof(cmd), "command line too long: %s", args);
	return binary_run(cmd, out, outlen);
}

/* Check @p file's JSON with Python's parser and the keys of the shared
 * format; prints one line a row ("sent received offered" for a sweep). */
static int json_check(const char *file, const char *kind, char *out, size_t outlen)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "python3 -c '\n"
		 "import json, sys\n"
		 "d = json.load(open(sys.argv[1]))\n"
		 "for k in (\"tool\", \"kind\", \"label\", \"timestamps\"): assert k in d, k\n"
		 "assert d[\"tool\"] == \"unic-pktgen\" and d[\"kind\"] == sys.argv[2] and d[\"timestamps\"] == \"software\"\n"
		 "lat = (\"p50\", \"p90\", \"p99\", \"p99_9\", \"max\")\n"
		 "if d[\"kind\"] == \"sweep\":\n"
		 "  for k in (\"frame_sizes\", \"tx_port\", \"rx_port\", \"step_s\", \"warmup_s\", \"steps\"): assert k in d, k\n"
		 "  for i, s in enumerate(d[\"steps\"]):\n"
		 "    assert s[\"step\"] == i\n"
		 "    for k in (\"start_time\", \"end_time\", \"offered_pps\", \"sent\", \"received\", \"lost\", \"loss_ratio\", \"achieved_pps\"): assert k in s, k\n"
		 "    assert all(k in s[\"latency_us\"] for k in lat)\n"
		 "    assert s[\"end_time\"] >= s[\"start_time\"]\n"
		 "    assert i == 0 or s[\"start_time\"] >= d[\"steps\"][i-1][\"end_time\"]\n"
		 "    print(s[\"sent\"], s[\"received\"], s[\"lost\"], s[\"offered_pps\"])\n"
		 "else:\n"
		 "  for k in (\"mode\", \"loss_tolerance\", \"trial_s\", \"resolution_pct\", \"results\"): assert k in d, k\n"
		 "  for r in d[\"results\"]:\n"
		 "    for k in (\"frame_size\", \"rate_pps\", \"rate_mbps\", \"line_pct\", \"trials\", \"latency_us\"): assert k in r, k\n"
		 "    assert all(k in r[\"latency_us\"] for k in lat)\n"
		 "    for t in r[\"trials\"]:\n"
		 "      for k in (\"offered_pps\", \"sent\", \"received\", \"loss_ratio\", \"pass\", \"start_time\", \"end_time\"): assert k in t, k\n"
		 "    lt = r[\"latency_trial\"]\n"
		 "    print(r[\"frame_size\"], r[\"rate_pps\"], len(r[\"trials\"]), lt[\"sent\"] if lt else -1, lt[\"lost\"] if lt else -1, int(r[\"latency_us\"][\"p50\"] is not None))\n"
		 "' %s %s 2>&1",
		 file, kind);
	return binary_run(cmd, out, outlen);
}

Test(pktgen_bench_bin, a_sweep_on_a_ring_pair_gives_a_row_a_step_every_frame_back, .timeout = 120)
{
	static char out[65536], chk[4096];
	char path[] = "/tmp/unic-pg-sweep-XXXXXX", args[512];
	int fd = mkstemp(path);
	unsigned long sent, recv, lost;
	double offered;
	static const double want[] = { 2000, 4000, 6000 };
	unsigned i = 0;
	const char *p;

	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(args, sizeof(args), RING " --sweep 2kpps:6kpps:3 --step-duration 0.3 --warmup 0.1 --label ring --json-out %s",
		 path);
	cr_assert_eq(run(args, out, sizeof(out)), 0, "%s", out);
	HAS(out, "timestamps: software (no hardware timestamps");
	HAS(out, "sweep ring: tx port 0 -> rx port 1, 3 step(s)");
	cr_assert_eq(json_check(path, "sweep", chk, sizeof(chk)), 0, "%s", chk);
	for (p = chk; sscanf(p, "%lu %lu %lu %lf", &sent, &recv, &lost, &offered) == 4; i++) {
		cr_assert_lt(i, 3, "%s", chk);
		cr_assert_gt(sent, 0, "step %u: %s", i, chk);
		cr_assert_eq(sent, recv, "step %u: a ring pair loses nothing at this rate: %s", i, chk);
		cr_assert_eq(lost, 0);
		cr_assert_float_eq(offered, want[i], 1e-6, "rows in the order given: %s", chk);
		p = strchr(p, '\n');
		if (p == NULL)
			break;
		p++;
	}
	cr_assert_eq(i + (p == NULL), 3, "three rows: %s", chk);
	unlink(path);
}

Test(pktgen_bench_bin, the_csv_of_a_sweep_has_a_row_a_step, .timeout = 120)
{
	static char out[65536];
	char path[] = "/tmp/unic-pg-sweepcsv-XXXXXX", args[512], line[1024];
	int fd = mkstemp(path);
	unsigned rows = 0;
	FILE *f;

	cr_assert_geq(fd, 0);
	close(fd);
	snprintf(args, sizeof(args), RING " --sweep 1kpps,3kpps --step-duration 0.2 --warmup 0 --csv %s", path);
	cr_assert_eq(run(args, out, sizeof(out)), 0, "%s", out);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof(line), f));
	HAS(line, "step,start_time,end_time,offered_pps,sent,received,lost,loss_ratio,achieved_pps,");
	while (fgets(line, sizeof(line), f)) {
		unsigned step;
		unsigned long sent, recv;
		double t0, t1, off;

		cr_assert_eq(sscanf(line, "%u,%lf,%lf,%lf,%lu,%lu", &step, &t0, &t1, &off, &sent, &recv), 6, "%s", line);
		cr_assert_eq(step, rows);
		cr_assert_eq(sent, recv, "%s", line);
		rows++;
	}
	fclose(f);
	cr_assert_eq(rows, 2);
	unlink(path);
}

Test(pktgen_bench_bin, an_ndr_search_on_a_ring_pair_finds_a_rate_and_its_latency_trial_loses_nothing, .timeout = 180)
{
	static char out[65536], chk[4096];
	char path[] = "/tmp/unic-pg-ndr-XXXXXX", args[512];
	int fd = mkstemp(path);
	unsigned fs[2], nt[2], lat[2];
	double rate[2];
	long lsent[2], llost[2];

	cr_assert_geq(fd, 0);
	close(fd);
	/* --rate: the bound (the ring's 10 Gbit/s would be the generator's
	 * limit on a loaded machine, which is a pass too, but slower). */
	snprintf(args, sizeof(args), RING " --rfc2544 ndr --frame-sizes 64,1518 --rate 5kpps --trial-duration 0.2 --warmup 0.05 --resolution 25 --json-out %s",
		 path);
	cr_assert_eq(run(args, out, sizeof(out)), 0, "%s", out);
	HAS(out, "RFC 2544 throughput: NDR");
	HAS(out, "timestamps: software (no hardware timestamps");
	HAS(out, "frame sizes include the 4-byte FCS");
	cr_assert_eq(json_check(path, "rfc2544", chk, sizeof(chk)), 0, "%s", chk);
	cr_assert_eq(sscanf(chk, "%u %lf %u %ld %ld %u\n%u %lf %u %ld %ld %u", &fs[0], &rate[0], &nt[0], &lsent[0],
			    &llost[0], &lat[0], &fs[1], &rate[1], &nt[1], &lsent[1], &llost[1], &lat[1]), 12,
		     "%s", chk);
	cr_assert_eq(fs[0], 64);
	cr_assert_eq(fs[1], 1518);
	for (int i = 0; i < 2; i++) {
		cr_assert_gt(rate[i], 0, "%s", chk);
		cr_assert_leq(rate[i], 5000 + 1e-6, "%s", chk);
		cr_assert_geq(nt[i], 1);
		cr_assert_gt(lsent[i], 0, "a latency trial ran: %s", chk);
		cr_assert_eq(llost[i], 0, "and lost nothing: %s", chk);
		cr_assert_eq(lat[i], 1, "with latency percentiles: %s", chk);
	}
	unlink(path);
}

Test(pktgen_bench_bin, rates_beyond_the_link_are_refused_before_any_traffic)
{
	static char out[16384];

	cr_assert_eq(run(RING " --sweep 1kpps,20Mpps --step-duration 0.1", out, sizeof(out)), 2, "%s", out);
	HAS(out, "option --sweep: step 1");
	HAS(out, "beyond tx port 0's link");
	cr_assert_null(strstr(out, "sweep: tx port"), "nothing ran: %s", out);
	cr_assert_eq(run(RING " --rfc2544 ndr --frame-sizes 64 --rate 11Gbps-wire", out, sizeof(out)), 2, "%s", out);
	HAS(out, "option --rate");
	/* The streams' link check (every run) comes before the search's own. */
	cr_assert(strstr(out, "above its link's 10000 Mbit/s") || strstr(out, "beyond tx port 0's link"),
		  "refused for the link: %s", out);
}
