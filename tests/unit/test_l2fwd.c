/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-l2fwd: option parsing and its errors, port pairing, the forwarding
 * handler over a ring pair (MAC rewriting, rx queue N -> tx queue N, every
 * unsent packet freed and counted), and the binary itself (UNIC_L2FWD) over
 * two null ports in each rx mode, for its JSON output, SIGINT and exit codes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/log.h>
#include <unic/mem.h>
#include <unic/pool.h>

#include "l2fwd.h"
#include "pkt_build.h"
#include "refusing_port.h"
#include "port_fixture.h"
#include "run_binary.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))
#define HASNT(s, sub) cr_assert(strstr((s), (sub)) == NULL, "'%s' in:\n%s", (sub), (s))

static char err[512];

/* Parse a command line given as one string (split on spaces). */
static int parse(struct l2fwd_opts *o, const char *line)
{
	static char buf[1024];
	char *argv[64];
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	argv[argc++] = (char *)"unic-l2fwd";
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = t;
	argv[argc] = NULL;
	l2fwd_opts_init(o);
	err[0] = '\0';
	return l2fwd_opts_parse(o, argc, argv, err, sizeof(err));
}

Test(l2fwd_opts, defaults_are_dpdks_with_hybrid_receive)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, ""), 0);
	cr_assert_eq(o.portmask, 0);
	cr_assert_eq(o.ports_per_thread, 1);
	cr_assert_float_eq(o.stats_period, 10.0, 1e-9);
	cr_assert(o.mac_updating);
	cr_assert(o.irq_affinity, "rx interrupts follow their thread by default");
	cr_assert(!o.promisc);
	cr_assert_eq(o.mode, UNIC_RX_MODE_HYBRID);
	cr_assert_eq(o.duration, 0);
	cr_assert_eq(o.nb_queues, 1);
	cr_assert(!o.ports_per_thread_set, "without -q the ports are shared out over the cores");
	cr_assert_eq(o.stats_format, L2FWD_STATS_TEXT);
}

Test(l2fwd_opts, stats_format_takes_text_json_and_dpdk_and_names_them_when_wrong)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, "--stats-format dpdk"), 0, "%s", err);
	cr_assert_eq(o.stats_format, L2FWD_STATS_DPDK);
	cr_assert_eq(parse(&o, "--stats-format=json"), 0, "%s", err);
	cr_assert_eq(o.stats_format, L2FWD_STATS_JSON);
	cr_assert_eq(parse(&o, "--json --stats-format text"), 0, "%s", err);
	cr_assert_eq(o.stats_format, L2FWD_STATS_TEXT, "the last one wins");
	cr_assert_eq(parse(&o, "--stats-format xml"), -EINVAL);
	HAS(err, "option --stats-format: unknown format 'xml'; expected text, json or dpdk");
}

/* DPDK's habit: EAL options, "--", then the application's; what the common
 * parser leaves is what l2fwd_opts_parse sees. */
Test(l2fwd_opts, dpdk_style_command_lines_parse_after_the_common_options)
{
	struct unic_env_options eo;
	struct l2fwd_opts o;
	char *v[] = { "unic-l2fwd", "-l", "0,1", "-n", "4", "--", "-p", "3", "-q", "1", "-T", "5", NULL };
	int n = unic_env_parse(&eo, 12, v);

	cr_assert_eq(n, 7);
	cr_assert_eq(eo.nb_cores, 2);
	l2fwd_opts_init(&o);
	cr_assert_eq(l2fwd_opts_parse(&o, n, v, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(o.portmask, 3);
	cr_assert_eq(o.ports_per_thread, 1);
	cr_assert(o.ports_per_thread_set);
	cr_assert_float_eq(o.stats_period, 5.0, 1e-9);
}

/* ---- threads and cores ------------------------------------------------------ */

static int plan(const char *line, unsigned nb_used, unsigned nb_cores, struct l2fwd_plan *pl)
{
	struct l2fwd_opts o;
	char note[256];

	cr_assert_eq(parse(&o, line), 0, "%s", err);
	return l2fwd_plan_threads(&o, nb_used, nb_cores, pl, err, sizeof(err), note, sizeof(note));
}

Test(l2fwd_plan, one_worker_core_serves_every_port_without_q)
{
	struct l2fwd_plan pl;

	cr_assert_eq(plan("-p 3", 2, 2, &pl), 0, "%s", err);  /* -l 0,1 -- -p 3 */
	cr_assert_eq(pl.nb_threads, 1);
	cr_assert_eq(pl.per_thread, 2);
	cr_assert(!pl.main_forwards && !pl.own_threads);
	cr_assert_eq(plan("", 5, 3, &pl), 0, "%s", err);      /* 5 ports, 2 workers */
	cr_assert_eq(pl.nb_threads, 2);
	cr_assert_eq(pl.per_thread, 3);
	cr_assert(!pl.main_forwards);
}

Test(l2fwd_plan, the_main_core_alone_forwards_every_port)
{
	struct l2fwd_plan pl;

	cr_assert_eq(plan("-p 3", 2, 1, &pl), 0, "%s", err);  /* -l 0 -- -p 3 */
	cr_assert_eq(pl.nb_threads, 1);
	cr_assert_eq(pl.per_thread, 2);
	cr_assert(pl.main_forwards);
	cr_assert(!pl.own_threads);
	cr_assert_eq(plan("-q 1", 2, 1, &pl), -EINVAL, "-q 1 asks for two threads, one core");
	HAS(err, "2 ports at 1 per thread (-q 1) need 2 forwarding cores, but -l gives 1");
	cr_assert_eq(plan("", 9, 1, &pl), -EINVAL);
	HAS(err, "9 ports over 1 forwarding core is 9 ports per thread, above the limit of 8");
}

Test(l2fwd_plan, with_q_the_main_core_forwards_when_the_workers_are_one_short_as_in_dpdk)
{
	struct l2fwd_plan pl;

	cr_assert_eq(plan("-q 1", 2, 2, &pl), 0, "%s", err);  /* -l 0,1 -- -p 3 -q 1 */
	cr_assert_eq(pl.nb_threads, 2);
	cr_assert(pl.main_forwards);
	cr_assert_eq(plan("-q 2", 2, 2, &pl), 0, "%s", err);
	cr_assert_eq(pl.nb_threads, 1);
	cr_assert(!pl.main_forwards, "the worker has them all; the main core keeps to statistics");
	cr_assert_eq(plan("-q 1", 4, 2, &pl), -EINVAL);
	HAS(err, "4 ports at 1 per thread (-q 1) need 4 forwarding cores, but -l gives 2");
	HAS(err, "leave -q out");
}

Test(l2fwd_plan, without_l_the_application_starts_its_own_threads_q_ports_each)
{
	struct l2fwd_plan pl;

	cr_assert_eq(plan("", 4, 0, &pl), 0, "%s", err);
	cr_assert(pl.own_threads);
	cr_assert(!pl.main_forwards);
	cr_assert_eq(pl.nb_threads, 4);
	cr_assert_eq(plan("-q 2", 3, 0, &pl), 0, "%s", err);
	cr_assert_eq(pl.nb_threads, 2);
}

Test(l2fwd_opts, every_option_is_taken_in_each_form)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, "-p 0x3 -q2 -T 0.5 -P --no-mac-updating --portmap=(0,1)(2,3) "
			       "--rx-mode poll --budget=64 --weight 16 --hybrid-empty-polls 8 "
			       "--hybrid-idle-us=20 --retry-us 50 --max-sleep-ms 10 --rxd 512 --txd=256 "
			       "--json -t 2 --queues=2"), 0, "%s", err);
	cr_assert_eq(o.portmask, 3);
	cr_assert_eq(o.nb_queues, 2);
	cr_assert_eq(o.ports_per_thread, 2);
	cr_assert_float_eq(o.stats_period, 0.5, 1e-9);
	cr_assert(o.promisc);
	cr_assert(!o.mac_updating);
	cr_assert_eq(o.nb_pairs, 2);
	cr_assert_eq(o.pairs[1][0], 2);
	cr_assert_eq(o.pairs[1][1], 3);
	cr_assert_eq(o.mode, UNIC_RX_MODE_POLL);
	cr_assert_eq(o.budget, 64);
	cr_assert_eq(o.weight, 16);
	cr_assert_eq(o.hybrid_empty_polls, 8);
	cr_assert_eq(o.hybrid_idle_us, 20);
	cr_assert_eq(o.retry_us, 50);
	cr_assert_eq(o.max_sleep_ms, 10);
	cr_assert_eq(o.rxd, 512);
	cr_assert_eq(o.txd, 256);
	cr_assert_eq(o.stats_format, L2FWD_STATS_JSON);
	cr_assert(o.ports_per_thread_set);
	cr_assert_float_eq(o.duration, 2.0, 1e-9);
	cr_assert(o.irq_affinity);
	cr_assert_eq(parse(&o, "--no-irq-affinity"), 0, "%s", err);
	cr_assert(!o.irq_affinity);
	cr_assert_eq(parse(&o, "--no-irq-affinity --irq-affinity"), 0, "%s", err);
	cr_assert(o.irq_affinity, "the last one wins");
	cr_assert_neq(parse(&o, "--no-irq-affinity=1"), 0);
	cr_assert_not_null(strstr(err, "takes no value"), "%s", err);
	cr_assert_eq(parse(&o, "-pff --rx-mode=interrupt -h"), 0, "%s", err);
	cr_assert_eq(o.portmask, 0xff);
	cr_assert_eq(o.mode, UNIC_RX_MODE_INTERRUPT);
	cr_assert(o.help);
}

Test(l2fwd_opts, a_bad_port_mask_names_the_option_the_value_and_the_forms)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, "-p 0x3g"), -EINVAL);
	HAS(err, "option -p: bad port mask '0x3g'");
	HAS(err, "e.g. -p 0x3");
	cr_assert_eq(parse(&o, "-p 0"), -EINVAL);
	HAS(err, "non-zero");
	cr_assert_eq(parse(&o, "-p 0x10000000000000000"), -EINVAL);
	cr_assert_eq(parse(&o, "-p"), -EINVAL);
	HAS(err, "option -p: missing value at the end of the command line");
	cr_assert_eq(parse(&o, "-p -P"), -EINVAL);
	HAS(err, "missing value, got the option '-P' instead");
}

Test(l2fwd_opts, bad_values_are_refused_with_the_accepted_range)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, "-q 0"), -EINVAL);
	HAS(err, "option -q: bad value '0'; expected a whole number from 1 to 8");
	cr_assert_eq(parse(&o, "--ports-per-thread=x"), -EINVAL);
	HAS(err, "option --ports-per-thread: bad value 'x'");
	cr_assert_eq(parse(&o, "-T -1"), -EINVAL);
	HAS(err, "option -T: missing value, got the option '-1'");
	cr_assert_eq(parse(&o, "-T=1"), -EINVAL);
	HAS(err, "option -T: bad value '=1'; expected seconds from 0 to 86400");
	cr_assert_eq(parse(&o, "-t 1e9"), -EINVAL);
	cr_assert_eq(parse(&o, "--budget 0"), -EINVAL);
	HAS(err, "from 1 to 65535");
	cr_assert_eq(parse(&o, "--weight 257"), -EINVAL);
	HAS(err, "from 1 to 256");
	cr_assert_eq(parse(&o, "--queues 17"), -EINVAL);
	HAS(err, "option --queues: bad value '17'; expected a whole number from 1 to 16");
	cr_assert_eq(parse(&o, "--queues 0"), -EINVAL);
	cr_assert_eq(parse(&o, "--rx-mode busy"), -EINVAL);
	HAS(err, "option --rx-mode: unknown mode 'busy'; expected poll, interrupt or hybrid");
	cr_assert_eq(parse(&o, "--rx-mode="), -EINVAL);
	HAS(err, "option --rx-mode: empty value");
	cr_assert_eq(parse(&o, "--tx-drain-us 1001"), -EINVAL);
	HAS(err, "option --tx-drain-us: bad value '1001'; expected a whole number from 0 to 1000");
	cr_assert_eq(parse(&o, "--tx-drain-us=20"), 0, "%s", err);
	cr_assert_eq(o.tx_drain_us, 20);
	cr_assert_eq(parse(&o, ""), 0, "%s", err);
	cr_assert_eq(o.tx_drain_us, 0, "off by default: every burst is sent at once");
}

Test(l2fwd_opts, the_adaptive_policy_options_are_taken_and_checked_against_the_mode)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, "--latency-target 20 --cpu-budget=30"), 0, "%s", err);
	cr_assert_eq(o.latency_target_us, 20);
	cr_assert_eq(o.cpu_budget, 30);
	cr_assert_eq(o.mode, UNIC_RX_MODE_HYBRID);
	cr_assert_eq(parse(&o, "--rx-mode=hybrid --cpu-budget 100"), 0, "%s", err);
	cr_assert_eq(o.latency_target_us, 0);
	cr_assert_eq(o.cpu_budget, 100);
	cr_assert_eq(parse(&o, "--cpu-budget 101"), -EINVAL);
	HAS(err, "option --cpu-budget: bad value '101'; expected a whole number from 1 to 100");
	cr_assert_eq(parse(&o, "--cpu-budget 0"), -EINVAL);
	cr_assert_eq(parse(&o, "--latency-target 0"), -EINVAL);
	HAS(err, "option --latency-target: bad value '0'; expected a whole number from 1 to 1000000");
	cr_assert_eq(parse(&o, "--latency-target 1000001"), -EINVAL);
	cr_assert_eq(parse(&o, "--latency-target=x"), -EINVAL);
	cr_assert_eq(parse(&o, "--latency-target"), -EINVAL);
	HAS(err, "option --latency-target: missing value");
	/* Hybrid's, in place of the fixed window. */
	cr_assert_eq(parse(&o, "--rx-mode poll --latency-target 20"), -EINVAL);
	HAS(err, "--rx-mode is poll: drop them or use --rx-mode hybrid");
	cr_assert_eq(parse(&o, "--cpu-budget 10 --rx-mode interrupt"), -EINVAL);
	HAS(err, "--rx-mode is interrupt");
	cr_assert_eq(parse(&o, "--hybrid-idle-us 20 --cpu-budget 10"), -EINVAL);
	HAS(err, "option --hybrid-idle-us sets the fixed polling window");
	cr_assert_eq(parse(&o, "--hybrid-empty-polls 8 --latency-target 5"), 0, "%s", err);
	/* Who sets the devices' moderation under the policy. */
	cr_assert_eq(parse(&o, "--cpu-budget 10"), 0, "%s", err);
	cr_assert(!o.moderation_fixed, "adaptive by default");
	cr_assert_eq(parse(&o, "--cpu-budget 10 --moderation fixed"), 0, "%s", err);
	cr_assert(o.moderation_fixed);
	cr_assert_eq(parse(&o, "--moderation=fixed --moderation=adaptive --cpu-budget 10"), 0, "%s", err);
	cr_assert(!o.moderation_fixed, "the last one given");
	cr_assert_eq(parse(&o, "--moderation off"), -EINVAL);
	HAS(err, "option --moderation: unknown value 'off'; expected adaptive");
	cr_assert_eq(parse(&o, "--moderation"), -EINVAL);
	HAS(err, "option --moderation: missing value");
	/* Timing unic-pktgen's stamped frames: off unless asked, in any mode. */
	cr_assert_eq(parse(&o, ""), 0, "%s", err);
	cr_assert(!o.stamp_age);
	cr_assert_eq(parse(&o, "--rx-mode poll --stamp-age"), 0, "%s", err);
	cr_assert(o.stamp_age);
	cr_assert_eq(parse(&o, "--stamp-age=1"), -EINVAL);
}

Test(l2fwd_opts, unknown_options_and_stray_words_are_refused)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, "--bogus"), -EINVAL);
	HAS(err, "unknown option '--bogus'");
	cr_assert_eq(parse(&o, "-x"), -EINVAL);
	HAS(err, "unknown option '-x'");
	cr_assert_eq(parse(&o, "-p 3 extra"), -EINVAL);
	HAS(err, "unexpected argument 'extra'");
	cr_assert_eq(parse(&o, "--json=1"), -EINVAL);
	HAS(err, "option --json takes no value; got '--json=1'");
	cr_assert_eq(parse(&o, "-Px"), -EINVAL);
	HAS(err, "option -P takes no value");
}

Test(l2fwd_opts, a_bad_port_map_says_what_is_wrong)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, "--portmap (0,1)(1,2)"), -EINVAL);
	HAS(err, "port 1 is in two pairs");
	HAS(err, "e.g. --portmap \"(0,1)(2,3)\"");
	cr_assert_eq(parse(&o, "--portmap (0,0)"), -EINVAL);
	HAS(err, "names one port twice");
	cr_assert_eq(parse(&o, "--portmap (0,1"), -EINVAL);
	HAS(err, "expected ')' at 'the end'");
	cr_assert_eq(parse(&o, "--portmap 0,1"), -EINVAL);
	HAS(err, "expected '(' at '0,1'");
	cr_assert_eq(parse(&o, "--portmap (0,64)"), -EINVAL);
	HAS(err, "port 64 is out of range (0..63)");
	cr_assert_eq(parse(&o, "--portmap (a,1)"), -EINVAL);
	HAS(err, "expected a port number at 'a,1)'");
}

static int pair(const char *line, unsigned nb_ports, int *dst, char *note)
{
	struct l2fwd_opts o;

	cr_assert_eq(parse(&o, line), 0, "%s", err);
	return l2fwd_pair_ports(&o, nb_ports, dst, err, sizeof(err), note, 256);
}

Test(l2fwd_pairs, ports_pair_in_order_by_default)
{
	int dst[8];
	char note[256];

	cr_assert_eq(pair("", 4, dst, note), 4);
	cr_assert_eq(dst[0], 1);
	cr_assert_eq(dst[1], 0);
	cr_assert_eq(dst[2], 3);
	cr_assert_eq(dst[3], 2);
	cr_assert_str_empty(note);
}

Test(l2fwd_pairs, the_mask_picks_ports_and_pairs_them_in_order)
{
	int dst[8];
	char note[256];

	cr_assert_eq(pair("-p 0x1a", 5, dst, note), 3); /* ports 1, 3, 4 */
	cr_assert_eq(dst[0], -1);
	cr_assert_eq(dst[1], 3);
	cr_assert_eq(dst[3], 1);
	cr_assert_eq(dst[4], 4, "the odd one out forwards to itself");
	cr_assert_eq(dst[2], -1);
	HAS(note, "port 4 has no pair");
}

Test(l2fwd_pairs, a_port_map_pairs_as_given)
{
	int dst[8];
	char note[256];

	cr_assert_eq(pair("--portmap (0,2)(1,3)", 4, dst, note), 4);
	cr_assert_eq(dst[0], 2);
	cr_assert_eq(dst[2], 0);
	cr_assert_eq(dst[1], 3);
	cr_assert_eq(dst[3], 1);
	cr_assert_eq(pair("--portmap (3,0)", 4, dst, note), 2);
	cr_assert_eq(dst[3], 0);
	cr_assert_eq(dst[0], 3);
	cr_assert_eq(dst[1], -1);
	cr_assert_eq(pair("-p 9 --portmap (3,0)", 4, dst, note), 2, "%s", err);
}

Test(l2fwd_pairs, mask_and_map_must_agree_and_name_existing_ports)
{
	int dst[8];
	char note[256];

	cr_assert_eq(pair("-p 0xf --portmap (0,1)", 4, dst, note), -EINVAL);
	HAS(err, "port 2 is in the port mask but in no pair of --portmap");
	cr_assert_eq(pair("-p 0x1 --portmap (0,1)", 4, dst, note), -EINVAL);
	HAS(err, "port 1 is in --portmap but not in the port mask");
	cr_assert_eq(pair("--portmap (0,5)", 4, dst, note), -EINVAL);
	HAS(err, "port 5 does not exist; there are 4 ports (0..3)");
	cr_assert_eq(pair("-p 0x4", 2, dst, note), -EINVAL);
	HAS(err, "names port 2, but there are 2 ports (0..1)");
	cr_assert_eq(pair("", 0, dst, note), -EINVAL);
	HAS(err, "no ports to forward between");
}

/* ---- the handler, over a ring pair ------------------------------------- */

static struct unic_mem *mem;
static struct unic_pool *pool;

static void hsetup(void)
{
	unic_log_set_level(-1, UNIC_LOG_ERR);
	fixture_mem_pool(&mem, &pool, "l2fwdtest", 4096, 0);
}

static void hteardown(void)
{
	fixture_mem_pool_free(mem, pool);
}

/* The counts of an age histogram, each asserted to lie in a bucket whose
 * upper edge is in (@p lo, @p hi] ns. */
static uint64_t hist_within(const struct unic_counter *h, uint64_t lo, uint64_t hi, const char *what)
{
	uint64_t total = 0;

	for (unsigned i = 0; i < L2FWD_AGE_BUCKETS; i++) {
		uint64_t k = unic_counter_read(&h[i]);

		total += k;
		if (k)
			cr_assert(l2fwd_age_bucket_top(i) > lo && l2fwd_age_bucket_top(i) <= hi,
				  "%s in bucket %u, [%" PRIu64 ", %" PRIu64 ") ns", what, i,
				  i ? l2fwd_age_bucket_top(i - 1) : 0, l2fwd_age_bucket_top(i));
	}
	return total;
}

/*
 * --stamp-age: frames with unic-pktgen's stamp are timed from the TSC in
 * the stamp to now, into log2 buckets of ns; a frame without a stamp, or
 * with a stamp from the future (another machine's TSC), is counted
 * unstamped, not timed.
 */
Test(l2fwd_handler, stamp_age_times_stamped_frames_and_counts_the_rest, .init = hsetup, .fini = hteardown)
{
	static struct l2fwd_port_counters c;
	struct pg_frame_tmpl t = { .dst_mac = { 2, 0, 0, 0, 0, 1 }, .src_mac = { 2, 0, 0, 0, 0, 2 }, .ttl = 64 };
	struct pg_flow f = { .src_port = 1234, .dst_port = 5678, .src_ip = { 10, 0, 0, 1 },
			     .dst_ip = { 10, 0, 0, 2 } };
	uint64_t hz = unic_tsc_hz(), now = unic_rdtsc(), tsc[4];
	struct unic_pkt *pkts[4];

	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 4), 0);
	for (int i = 0; i < 4; i++) {
		/* 0, 1: sent 1 ms ago; 2: no stamp; 3: stamped 1 s ahead */
		struct pg_stamp st = { .magic = PG_STAMP_MAGIC, .stream = 0, .seq = (uint32_t)i,
				       .tsc = i == 3 ? now + hz : now - hz / 1000 };

		cr_assert_eq(pg_frame_build(unic_pkt_data(pkts[i]), 64, &t, &f, &st), 64u);
		if (i == 2)
			memset((uint8_t *)unic_pkt_data(pkts[i]) + 42, 0, 4);  /* the magic gone */
		pkts[i]->data_len = pkts[i]->pkt_len = 64;
	}
	cr_assert_eq(l2fwd_stamp_ages(&c, hz, pkts, 4, tsc), 2);
	cr_assert_eq(unic_counter_read(&c.stamped), 2);
	cr_assert_eq(unic_counter_read(&c.unstamped), 2);
	/* 1 ms and the test's own few microseconds (a slow machine: up to 3). */
	cr_assert_eq(hist_within(c.age_ns, 1000000, 4000000, "a 1 ms old frame"), 2);
	/* The stamps handed back: the two timed ones, 0 for the others. */
	cr_assert_eq(tsc[0], now - hz / 1000);
	cr_assert_eq(tsc[1], now - hz / 1000);
	cr_assert_eq(tsc[2], 0);
	cr_assert_eq(tsc[3], 0);
	/* Their ages once "sent", 9 ms later: both in a bucket of 10-13 ms
	 * (a slow machine: up to 3 ms more), none of the others. */
	tsc[0] -= 9 * (hz / 1000);
	tsc[1] -= 9 * (hz / 1000);
	tsc[2] = now + hz;  /* from the future: not counted either */
	l2fwd_sent_ages(&c, hz, tsc, 4);
	cr_assert_eq(hist_within(c.sent_age_ns, 10000000, 14000000, "a 10 ms old frame"), 2);
	/* A burst's forwarding of 5 us: one count, in a bucket of 5-6 us; a
	 * clock that went back: none. */
	l2fwd_tx_call(&c, hz, now, now + hz / 200000);
	l2fwd_tx_call(&c, hz, now, now - 1);
	cr_assert_eq(hist_within(c.tx_call_ns, 5000, 6000, "a 5 us forwarding"), 1);
	unic_pkt_free_bulk(pkts, 4);
}

/* The age buckets: every ns value lies in its bucket, [top of the one
 * before, top), and a bucket is at most an eighth of its lower edge wide
 * (1 ns below 8). */
Test(l2fwd_handler, stamp_age_buckets_are_an_eighth_of_a_power_of_two_wide)
{
	static const uint64_t v[] = { 0, 1, 7, 8, 9, 15, 16, 17, 100, 1000, 4095, 4096, 4097, 8191, 999999,
				      1000000, 123456789, 1ull << 38, (1ull << 39) + 12345 };

	cr_assert_eq(l2fwd_age_bucket_top(0), 1);
	for (unsigned i = 1; i < L2FWD_AGE_BUCKETS; i++) {
		uint64_t lo = l2fwd_age_bucket_top(i - 1), hi = l2fwd_age_bucket_top(i);

		cr_assert_gt(hi, lo, "bucket %u", i);
		cr_assert(lo < 8 ? hi - lo == 1 : (hi - lo) * 8 <= lo, "bucket %u: [%" PRIu64 ", %" PRIu64 ")", i, lo,
			  hi);
		cr_assert_eq(l2fwd_age_bucket(lo), i, "%" PRIu64 " ns", lo);
	}
	for (unsigned k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		unsigned b = l2fwd_age_bucket(v[k]);

		cr_assert_gt(l2fwd_age_bucket_top(b), v[k], "%" PRIu64 " ns in bucket %u", v[k], b);
		cr_assert(b == 0 || l2fwd_age_bucket_top(b - 1) <= v[k], "%" PRIu64 " ns in bucket %u", v[k], b);
	}
	cr_assert_eq(l2fwd_age_bucket(UINT64_MAX), L2FWD_AGE_BUCKETS - 1, "beyond the last: the last");
}

static struct unic_port *ring_up(const char *spec, uint16_t nq)
{
	struct unic_port *p = fixture_port_create(spec);

	fixture_port_up(p, pool, nq, 32, UNIC_RX_MODE_DEFAULT);
	return p;
}

static void ring_down(struct unic_port *p)
{
	unic_port_stop(p);
	unic_port_close(p);
	unic_port_detach(p);
	unic_port_put(p);
}

Test(l2fwd_handler, rewrites_macs_sends_on_the_same_queue_and_counts_every_drop,
     .init = hsetup, .fini = hteardown)
{
	struct unic_port *a, *b;
	struct l2fwd_port_counters *cnt = aligned_alloc(64, 2 * sizeof(*cnt));
	struct l2fwd_route r = { 0 };
	struct unic_pkt *pkts[40], *got[64];
	uint8_t mac[6];

	a = ring_up("ring90", 2);
	b = ring_up("ring91,peer=ring90", 2);
	memset(cnt, 0, 2 * sizeof(*cnt));
	r.in = a;
	r.out = b;
	r.in_idx = 0;
	r.out_idx = 1;
	r.mac_updating = true;
	r.in_cnt = &cnt[0];
	r.out_cnt = &cnt[1];
	cr_assert_eq(unic_port_mac_get(b, mac), 0);
	r.hdr[0] = 0x02;
	r.hdr[5] = 1;
	memcpy(r.hdr + 6, mac, 6);

	/* 40 packets on rx queue 1; the peer's rx ring holds 32 - 1 or 32. */
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 40), 0);
	for (int i = 0; i < 40; i++) {
		uint8_t *d = unic_pkt_data(pkts[i]);

		memset(d, 0xee, 64);
		d[12] = (uint8_t)i;
		pkts[i]->data_len = pkts[i]->pkt_len = 64;
	}
	uint32_t before = unic_pool_in_use_count(pool);

	cr_assert_eq(l2fwd_handle(a, 1, pkts, 40, &r), 40, "the handler consumes every packet");
	uint16_t n = unic_rx_burst(a, 1, got, 64); /* b sends on its tx 1 -> a's rx 1 */

	cr_assert_eq(unic_rx_burst(a, 0, got + n, 64), 0, "nothing on queue 0: rx queue N -> tx queue N");
	cr_assert_gt(n, 0);
	cr_assert_lt(n, 40);
	cr_assert_eq(unic_counter_read(&cnt[0].rx), 40);
	cr_assert_eq(unic_counter_read(&cnt[1].tx), n);
	cr_assert_eq(unic_counter_read(&cnt[1].dropped), 40 - n, "every unsent packet is counted");
	cr_assert_eq(unic_pool_in_use_count(pool), before - (40 - n), "and freed");
	for (uint16_t i = 0; i < n; i++) {
		uint8_t *d = unic_pkt_data(got[i]);
		const uint8_t want_dst[6] = { 2, 0, 0, 0, 0, 1 };

		cr_assert_eq(memcmp(d, want_dst, 6), 0);
		cr_assert_eq(memcmp(d + 6, mac, 6), 0, "source: the out port's MAC");
		cr_assert_eq(d[12], i, "order kept");
		cr_assert_eq(d[13], 0xee, "the rest untouched");
	}
	unic_pkt_free_bulk(got, n);

	/* --no-mac-updating leaves the frame alone. */
	r.mac_updating = false;
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 4), 0);
	for (int i = 0; i < 4; i++) {
		memset(unic_pkt_data(pkts[i]), 0xab, 64);
		pkts[i]->data_len = pkts[i]->pkt_len = 64;
	}
	cr_assert_eq(l2fwd_handle(a, 0, pkts, 4, &r), 4);
	cr_assert_eq(unic_rx_burst(a, 0, got, 64), 4);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(((uint8_t *)unic_pkt_data(got[i]))[0], 0xab);
	unic_pkt_free_bulk(got, 4);
	ring_down(b);
	ring_down(a);
	free(cnt);
}

Test(l2fwd_handler, a_packet_the_port_refuses_is_dropped_not_sent_and_the_rest_of_the_burst_goes_out,
     .init = hsetup, .fini = hteardown)
{
	struct unic_port *a = ring_up("ring92", 1), *b = refusing_port_up(pool);
	struct l2fwd_port_counters *cnt = aligned_alloc(64, 2 * sizeof(*cnt));
	struct l2fwd_route r = { 0 };
	struct unic_pkt *pkts[8];
	struct unic_port_stats st;

	cr_assert_not_null(b);
	memset(cnt, 0, 2 * sizeof(*cnt));
	r.in = a;
	r.out = b;
	r.out_idx = 1;
	r.in_cnt = &cnt[0];
	r.out_cnt = &cnt[1];
	uint32_t before = unic_pool_in_use_count(pool);

	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 8), 0);
	for (int i = 0; i < 8; i++) {
		memset(unic_pkt_data(pkts[i]), 0, 64);
		((uint8_t *)unic_pkt_data(pkts[i]))[12] = (uint8_t)i;
		pkts[i]->data_len = pkts[i]->pkt_len = 64;
	}
	/* The first, two in the middle and the last are refused. */
	refusing_mark_bad(pkts[0]);
	refusing_mark_bad(pkts[3]);
	refusing_mark_bad(pkts[4]);
	refusing_mark_bad(pkts[7]);
	cr_assert_eq(l2fwd_handle(a, 0, pkts, 8, &r), 8);
	cr_assert_eq(unic_counter_read(&cnt[1].tx), 4, "sent: only the packets the port accepts (got %" PRIu64 ")", unic_counter_read(&cnt[1].tx));
	cr_assert_eq(unic_counter_read(&cnt[1].dropped), 4, "the refused ones are dropped (got %" PRIu64 ")", unic_counter_read(&cnt[1].dropped));
	cr_assert_eq(refusing_priv(b)->sent, 4, "the others in the burst are sent");
	cr_assert_eq(refusing_priv(b)->sent_mark[0], 1);
	cr_assert_eq(refusing_priv(b)->sent_mark[1], 2);
	cr_assert_eq(refusing_priv(b)->sent_mark[2], 5);
	cr_assert_eq(refusing_priv(b)->sent_mark[3], 6);
	cr_assert_eq(unic_port_stats_get(b, &st), 0);
	cr_assert_eq(st.oerrors, 0, "a refused packet never reaches the port's tx_burst");
	cr_assert_eq(unic_pool_in_use_count(pool), before, "every packet freed");
	refusing_port_down(b);
	ring_down(a);
	free(cnt);
}

/* ---- a worker's claims ----------------------------------------------------- */

static struct unic_port *ring_up_small(const char *spec, uint16_t nq)
{
	struct unic_port *p = NULL;
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = nq, .nb_txq = nq };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 32, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 32, .numa_node = -1 };

	cr_assert_eq(unic_vdev_create(spec, &p), 0);
	cr_assert_eq(unic_port_configure(p, &c), 0);
	/* tx first: the pool rule counts a tx queue not set up at its default size. */
	for (uint16_t q = 0; q < nq; q++)
		cr_assert_eq(unic_port_tx_queue_setup(p, q, &tc), 0);
	for (uint16_t q = 0; q < nq; q++)
		cr_assert_eq(unic_port_rx_queue_setup(p, q, &rc), 0);
	cr_assert_eq(unic_port_start(p), 0);
	return p;
}

/* Two ports forwarding to each other on 12 queues each, in one thread. */
static void worker_two_routes(struct l2fwd_worker *w, struct l2fwd_route r[2], struct unic_port *a,
			      struct unic_port *b, uint16_t nq)
{
	memset(w, 0, sizeof(*w));
	memset(r, 0, 2 * sizeof(*r));
	r[0].in = a;
	r[0].out = b;
	r[1].in = b;
	r[1].out = a;
	w->routes[0] = &r[0];
	w->routes[1] = &r[1];
	w->nb_routes = 2;
	w->nb_queues = nq;
	w->weight = 32;
}

Test(l2fwd_worker, a_thread_claims_every_tx_queue_it_sends_on_even_past_eight, .init = hsetup,
     .fini = hteardown)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .mode = UNIC_RX_MODE_POLL };
	struct unic_port *a = ring_up_small("ring92", 12), *b = ring_up_small("ring93,peer=ring92", 12);
	struct unic_napi_ctx *other = unic_napi_ctx_create(&nc);
	struct l2fwd_route r[2];
	struct l2fwd_worker w;

	cr_assert_not_null(other);
	worker_two_routes(&w, r, a, b, 12);
	cr_assert_eq(l2fwd_worker_setup(&w, &nc), 0);
	/* 24 tx queues: every one is the worker's (another context is refused),
	 * so stopping either port waits for the worker before its driver stops. */
	for (uint16_t q = 0; q < 12; q++) {
		cr_assert_eq(unic_napi_txq_add(other, a, q), -EBUSY, "ring92 tx queue %u is not claimed", q);
		cr_assert_eq(unic_napi_txq_add(other, b, q), -EBUSY, "ring93 tx queue %u is not claimed", q);
	}
	unic_napi_ctx_destroy(w.ctx);
	unic_napi_ctx_destroy(other);
	ring_down(b);
	ring_down(a);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(l2fwd_worker, a_tx_queue_it_cannot_claim_is_refused_with_the_port_and_queue, .init = hsetup,
     .fini = hteardown)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .mode = UNIC_RX_MODE_POLL };
	struct unic_port *a = ring_up_small("ring94", 2), *b = ring_up_small("ring95,peer=ring94", 2);
	struct unic_napi_ctx *other = unic_napi_ctx_create(&nc);
	struct l2fwd_route r[2];
	struct l2fwd_worker w;
	char *msg = NULL;
	size_t len = 0;

	cr_assert_not_null(other);
	cr_assert_eq(unic_napi_txq_add(other, b, 1), 0);
	worker_two_routes(&w, r, a, b, 2);
	w.err = open_memstream(&msg, &len);
	cr_assert_eq(l2fwd_worker_setup(&w, &nc), -EBUSY);
	fclose(w.err);
	HAS(msg, "unic-l2fwd: error: thread 0: cannot claim ring95 tx queue 1 to send on: Device or resource busy");
	free(msg);
	unic_napi_ctx_destroy(w.ctx);
	unic_napi_ctx_destroy(other);
	ring_down(b);
	ring_down(a);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/* ---- --tx-drain-us: held tx bursts ------------------------------------------ */

static struct unic_pkt *seq_pkt(uint8_t seq)
{
	struct unic_pkt *p = unic_pkt_alloc(pool);

	cr_assert_not_null(p);
	memset(unic_pkt_data(p), 0, 64);
	((uint8_t *)unic_pkt_data(p))[12] = seq;
	p->data_len = p->pkt_len = 64;
	return p;
}

static uint16_t take(struct unic_port *rx, uint16_t q, uint8_t *next_seq)
{
	struct unic_pkt *got[64];
	uint16_t n = unic_rx_burst(rx, q, got, 64);

	for (uint16_t i = 0; i < n; i++) {
		cr_assert_eq(((uint8_t *)unic_pkt_data(got[i]))[12], *next_seq, "order kept");
		(*next_seq)++;
	}
	unic_pkt_free_bulk(got, n);
	return n;
}

static void send_seq(struct l2fwd_route *r, struct unic_port *in, uint16_t q, uint8_t *seq, uint16_t n)
{
	struct unic_pkt *pkts[64];

	for (uint16_t i = 0; i < n; i++)
		pkts[i] = seq_pkt((*seq)++);
	cr_assert_eq(l2fwd_handle(in, q, pkts, n, r), n);
}

/*
 * A burst after a quiet spell goes at once; one that follows the last
 * within the drain time is held, with those after it, until 32 are held
 * (sent then) or the oldest has waited the drain time (the round hook),
 * and the sleep deadline is the oldest's; nothing is reordered, counted
 * twice or lost.
 */
Test(l2fwd_txb, dense_bursts_are_held_up_to_the_drain_time_or_32_frames_and_sparse_ones_go_at_once,
     .init = hsetup, .fini = hteardown)
{
	struct unic_port *a = ring_up("ring94", 2), *b = ring_up("ring95,peer=ring94", 2);
	struct l2fwd_port_counters *cnt = aligned_alloc(64, 2 * sizeof(*cnt));
	struct l2fwd_route r[2];
	struct l2fwd_worker w;
	uint8_t seq = 0, next = 0;
	uint64_t t0;

	memset(cnt, 0, 2 * sizeof(*cnt));
	worker_two_routes(&w, r, a, b, 2);
	r[0].in_cnt = &cnt[0];
	r[0].out_cnt = &cnt[1];
	cr_assert_eq(l2fwd_route_txb_init(&r[0], 2, 200000), 0); /* 200 ms: a loaded machine keeps to it */
	cr_assert_not_null(r[0].txb);
	cr_assert_eq(l2fwd_txb_deadline_ns(&w), UINT64_MAX, "nothing held: no deadline");

	send_seq(&r[0], a, 1, &seq, 4);                 /* the first: at once */
	cr_assert_eq(take(a, 1, &next), 4, "a burst after a quiet spell is sent at once");
	t0 = unic_time_ns();
	send_seq(&r[0], a, 1, &seq, 4);                 /* dense: held */
	cr_assert_eq(take(a, 1, &next), 0, "a burst right after the last is held");
	cr_assert_eq(unic_counter_read(&cnt[1].tx), 4, "held frames are not counted sent");
	uint64_t d = l2fwd_txb_deadline_ns(&w);

	cr_assert(d >= t0 && d <= unic_time_ns() + 200000000, "the deadline is the oldest held frame's drain "
		  "time: %" PRIu64 " ns after the hold", d - t0);
	l2fwd_txb_round(&w, unic_rdtsc());              /* not yet due */
	cr_assert_eq(take(a, 1, &next), 0, "held until its drain time");
	send_seq(&r[0], a, 1, &seq, 30);                /* 34 held: 32 go */
	cr_assert_eq(take(a, 1, &next), 32, "32 held frames are sent without waiting");
	cr_assert_eq(take(a, 0, &next), 0, "on the queue of their rx queue only");
	l2fwd_txb_round(&w, unic_rdtsc() + 2 * r[0].drain_tsc);
	cr_assert_eq(take(a, 1, &next), 2, "the rest leave at their drain time (the round hook)");
	cr_assert_eq(l2fwd_txb_deadline_ns(&w), UINT64_MAX);

	usleep(250000);                                 /* a quiet spell */
	send_seq(&r[0], a, 1, &seq, 1);
	cr_assert_eq(take(a, 1, &next), 1, "after a quiet spell a frame is sent at once again");
	send_seq(&r[0], a, 1, &seq, 3);                 /* held ... */
	l2fwd_txb_flush(&r[0], 1);                      /* ... and flushed as at the thread's end */
	cr_assert_eq(take(a, 1, &next), 3);
	cr_assert_eq(unic_counter_read(&cnt[1].tx), 42);
	cr_assert_eq(unic_counter_read(&cnt[1].dropped), 0);
	l2fwd_route_txb_free(&r[0]);
	ring_down(b);
	ring_down(a);
	free(cnt);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/*
 * In a running thread, frames held when the traffic stops leave at their
 * drain time although no round finds a packet (a sleeping context wakes
 * for them: its next deadline), and those held when the thread stops
 * leave before it returns.
 */
static void *worker_thread(void *arg)
{
	l2fwd_worker_main(arg);
	return NULL;
}

static void held_frames_leave(enum unic_rx_mode mode)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .mode = mode };
	/* x -> a [the route] b -> y: x and y are a's and b's peers. */
	struct unic_port *a = ring_up("ring96", 1), *x = ring_up("ring97,peer=ring96", 1);
	struct unic_port *b = ring_up("ring98", 1), *y = ring_up("ring99,peer=ring98", 1);
	struct l2fwd_port_counters *cnt = aligned_alloc(64, 2 * sizeof(*cnt));
	struct l2fwd_route r = { .in = a, .out = b };
	struct l2fwd_worker w = { .nb_routes = 1, .nb_queues = 1, .weight = 32 };
	bool stop = false;
	pthread_t th;
	uint8_t seq = 0, next = 0;
	uint16_t got = 0;
	struct unic_pkt *pkts[8];

	memset(cnt, 0, 2 * sizeof(*cnt));
	r.in_cnt = &cnt[0];
	r.out_cnt = &cnt[1];
	w.routes[0] = &r;
	cr_assert_eq(l2fwd_route_txb_init(&r, 1, 200000), 0); /* 200 ms: a loaded machine keeps to it */
	w.stop = &stop;
	cr_assert_eq(l2fwd_worker_setup(&w, &nc), 0);
	cr_assert_eq(pthread_create(&th, NULL, worker_thread, &w), 0);
	/* A burst, and when it has come through, another: the second comes
	 * less than the drain time (200 ms) after the first, so it is held,
	 * then nothing more comes. */
	uint64_t t_second, t_all;

	for (int i = 0; i < 4; i++)
		pkts[i] = seq_pkt(seq++);
	cr_assert_eq(unic_tx_burst(x, 0, pkts, 4), 4);
	for (uint64_t t = unic_time_ns(); got < 4 && unic_time_ns() - t < 2000000000ull;)
		got = (uint16_t)(got + take(y, 0, &next));
	for (int i = 0; i < 4; i++)
		pkts[i] = seq_pkt(seq++);
	t_second = unic_time_ns();
	cr_assert_eq(unic_tx_burst(x, 0, pkts, 4), 4);
	for (uint64_t t = unic_time_ns(); got < 8 && unic_time_ns() - t < 2000000000ull;)
		got = (uint16_t)(got + take(y, 0, &next));
	t_all = unic_time_ns();
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(w.ctx);
	pthread_join(th, NULL);
	cr_assert_eq(got, 8, "%s: %u of 8 frames came through: held frames were stranded",
		     unic_rx_mode_name(mode), got);
	cr_assert_geq(t_all - t_second, 160000000ull, "%s: the second burst came through %.1f ms after it was "
		      "sent: it was not held for its drain time (200 ms)", unic_rx_mode_name(mode),
		      (t_all - t_second) / 1e6);
	/* Held when the thread stops: sent before it returns (here the test's
	 * thread is the route's only one). */
	usleep(250000); /* a quiet spell: the first goes at once, the second is held */
	send_seq(&r, a, 0, &seq, 1);
	send_seq(&r, a, 0, &seq, 3);
	cr_assert_eq(take(y, 0, &next), 1);
	l2fwd_worker_main(&w);
	cr_assert_eq(take(y, 0, &next), 3, "%s: frames held at the stop are sent", unic_rx_mode_name(mode));
	cr_assert_eq(unic_counter_read(&cnt[1].tx), 12);
	unic_napi_ctx_destroy(w.ctx);
	l2fwd_route_txb_free(&r);
	ring_down(y);
	ring_down(b);
	ring_down(x);
	ring_down(a);
	free(cnt);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(l2fwd_txb, held_frames_leave_at_their_drain_time_and_at_the_stop_in_poll_mode, .init = hsetup,
     .fini = hteardown)
{
	held_frames_leave(UNIC_RX_MODE_POLL);
}

Test(l2fwd_txb, held_frames_leave_at_their_drain_time_and_at_the_stop_in_hybrid_mode, .init = hsetup,
     .fini = hteardown)
{
	held_frames_leave(UNIC_RX_MODE_HYBRID);
}

Test(l2fwd_txb, held_frames_leave_at_their_drain_time_and_at_the_stop_in_interrupt_mode, .init = hsetup,
     .fini = hteardown)
{
	held_frames_leave(UNIC_RX_MODE_INTERRUPT);
}

/* ---- the binary ---------------------------------------------------------- */

static const char *binary(void)
{
	return binary_path("UNIC_L2FWD");
}

/* Run the binary; stdout into buf (stderr too with @p merge). @return exit status. */
static int run(const char *args, bool merge, char *buf, size_t len)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s %s %s", binary(), args, merge ? "2>&1" : "2>/dev/null");
	return binary_run(cmd, buf, len);
}

/* The value of "key": in the object of port @p port in a JSON line. */
static uint64_t jport(const char *line, int port, const char *key)
{
	char pat[64], kp[64];
	const char *s, *v;

	snprintf(pat, sizeof(pat), "{\"port\":%d,", port);
	s = strstr(line, pat);
	cr_assert_not_null(s, "no port %d in %s", port, line);
	snprintf(kp, sizeof(kp), "\"%s\":", key);
	v = strstr(s, kp);
	cr_assert_not_null(v);
	return strtoull(v + strlen(kp), NULL, 10);
}

static void forwards_in_mode(const char *mode)
{
	static char buf[1 << 16];
	char args[256];
	const char *tot;

	snprintf(args, sizeof(args),
		 "--no-huge --no-pci --vdev null0 --vdev null1 -q 2 -T 0.5 -t 2 --json --rx-mode %s", mode);
	cr_assert_eq(run(args, false, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "{\"type\":\"stats\"");
	tot = strstr(buf, "{\"type\":\"totals\"");
	cr_assert_not_null(tot, "no totals in %s", buf);
	for (int p = 0; p < 2; p++) {
		uint64_t rx = jport(tot, p, "rx");

		cr_assert_gt(rx, 10000, "port %d forwarded only %" PRIu64 " packets in %s mode", p, rx, mode);
		/* What port p received went out on the other port, or was dropped there. */
		cr_assert_eq(rx, jport(tot, 1 - p, "tx") + jport(tot, 1 - p, "dropped"), "%s", tot);
	}
	HAS(tot, "\"cpu_util\":");
	HAS(tot, "\"interrupts\":");
}

Test(l2fwd_binary, forwards_between_two_null_ports_in_poll_mode, .timeout = 60)
{
	forwards_in_mode("poll");
}

Test(l2fwd_binary, forwards_between_two_null_ports_in_interrupt_mode, .timeout = 60)
{
	forwards_in_mode("interrupt");
}

Test(l2fwd_binary, forwards_between_two_null_ports_in_hybrid_mode, .timeout = 60)
{
	forwards_in_mode("hybrid");
}

/* Pinned threads steer their rx queues' IRQs; ring ports have none, and
 * say so; --no-irq-affinity and poll mode leave them alone. */
Test(l2fwd_binary, pinned_threads_say_what_became_of_their_rx_interrupts, .timeout = 60)
{
	static char buf[1 << 16];
	const char *ring = "--no-huge --no-pci --vdev ring0 --vdev ring1,peer=ring0 -T 0 -t 0.3";
	char args[256];

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		cr_skip_test("one CPU: -l 0,1 needs two");
	snprintf(args, sizeof(args), "%s -l 0,1 -q 2", ring);
	cr_assert_eq(run(args, true, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "port 0 (ring0): no kernel IRQ to steer (the ring driver's rx queues have none)");
	HAS(buf, "port 1 (ring1): no kernel IRQ to steer");
	cr_assert_null(strstr(buf, "warning: port"), "%s", buf);
	snprintf(args, sizeof(args), "%s -l 0,1 -q 2 --no-irq-affinity", ring);
	cr_assert_eq(run(args, true, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "thread 0: rx interrupts left where the kernel put them (--no-irq-affinity)");
	cr_assert_null(strstr(buf, "IRQ"), "%s", buf);
	snprintf(args, sizeof(args), "%s -q 2", ring);
	cr_assert_eq(run(args, true, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "thread 0 is not pinned: rx interrupts left where the kernel put them");
	snprintf(args, sizeof(args), "%s -l 0,1 -q 2 --rx-mode poll", ring);
	cr_assert_eq(run(args, true, buf, sizeof(buf)), 0, "%s", buf);
	cr_assert_null(strstr(buf, "IRQ"), "poll mode sleeps on no interrupt: %s", buf);
	cr_assert_null(strstr(buf, "rx interrupts"), "%s", buf);
}

/* The pools' size and packets in use are in every statistics line and the
 * totals: the size is the sum of the start-up lines' (one pool a port); ring ports hold no rx buffers,
 * so with no traffic nothing is in use, in every line. */
Test(l2fwd_binary, reports_the_pool_size_and_packets_in_use_in_every_line, .timeout = 60)
{
	static char buf[1 << 16];
	const char *line = buf, *ru, *key = "\"pool\":{\"size\":", *start;
	long size0;
	int lines = 0;

	cr_assert_eq(run("--no-huge --no-pci --vdev ring0 --vdev ring1,peer=ring0 -q 2 -T 0.2 -t 1.2 --json",
			 true, buf, sizeof(buf)), 0, "%s", buf);
	/* One pool per port, each named after its port: the reports sum them. */
	start = strstr(buf, "l2fwd: port 0 (ring0): pool l2fwd-ring0 of ");
	cr_assert_not_null(start, "%s", buf);
	size0 = strtol(start + strlen("l2fwd: port 0 (ring0): pool l2fwd-ring0 of "), NULL, 10);
	start = strstr(buf, "l2fwd: port 1 (ring1): pool l2fwd-ring1 of ");
	cr_assert_not_null(start, "%s", buf);
	size0 += strtol(start + strlen("l2fwd: port 1 (ring1): pool l2fwd-ring1 of "), NULL, 10);
	while ((ru = strstr(line, key)) != NULL) {
		char *end;
		long size = strtol(ru + strlen(key), &end, 10);

		cr_assert_eq(size, size0, "the pools' size is the sum of the start-up lines': %s", ru);
		cr_assert(strncmp(end, ",\"in_use\":0}", 12) == 0, "idle ring ports hold no packet: %s", ru);
		lines++;
		line = end;
	}
	cr_assert_geq(lines, 4, "expected the pool in every stats line and the totals: %s", buf);
	HAS(buf, "{\"type\":\"totals\"");
	/* Under traffic (null ports) packets are in use, never more than the pool. */
	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -q 2 -T 0 -t 0.5", false, buf,
			 sizeof(buf)), 0, "%s", buf);
	start = strstr(buf, "\npool: ");
	cr_assert_not_null(start, "no pool line in the text totals: %s", buf);
	cr_assert_not_null(strstr(start, " packets, "), "%s", start);
	cr_assert_not_null(strstr(start, " in use\n"), "%s", start);
}

/* --stamp-age over null ports: their frames carry no unic-pktgen stamp,
 * so every frame received is counted unstamped and none is timed; the
 * figures are in the JSON totals per port and in the text totals. */
Test(l2fwd_binary, stamp_age_counts_frames_without_a_stamp, .timeout = 60)
{
	static char buf[1 << 16];
	const char *tot, *p0, *sa;
	unsigned long long rx, stamped, unstamped;

	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -q 2 -T 0 -t 0.5 --json --stamp-age", true,
			 buf, sizeof(buf)), 0, "%s", buf);
	tot = strstr(buf, "{\"type\":\"totals\"");
	cr_assert_not_null(tot, "%s", buf);
	p0 = strstr(tot, "{\"port\":0,");
	cr_assert_not_null(p0, "%s", tot);
	cr_assert_eq(sscanf(strstr(p0, "\"rx\":"), "\"rx\":%llu", &rx), 1, "%s", p0);
	sa = strstr(p0, "\"stamp_age_ns\":{");
	cr_assert_not_null(sa, "%s", p0);
	cr_assert_eq(sscanf(sa, "\"stamp_age_ns\":{\"stamped\":%llu,\"unstamped\":%llu", &stamped, &unstamped), 2,
		     "%s", sa);
	cr_assert_gt(rx, 0, "%s", p0);
	cr_assert_eq(stamped, 0, "%s", sa);
	cr_assert_eq(unstamped, rx, "every frame counted unstamped: %s", p0);
	HAS(sa, "\"p50\":0,\"p90\":0,\"p99\":0,\"sent_p50\":0,\"sent_p90\":0,\"sent_p99\":0,"
		"\"tx_call_p50\":0,\"tx_call_p90\":0,\"tx_call_p99\":0}");
	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -q 2 -T 0 -t 0.3 --stamp-age", false, buf,
			 sizeof(buf)), 0, "%s", buf);
	HAS(buf, "  stamp age (unic-pktgen's send -> here): 0 frames, ");
	/* Without the option, nothing of it. */
	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -q 2 -T 0 -t 0.3 --json", true, buf,
			 sizeof(buf)), 0, "%s", buf);
	HASNT(buf, "stamp_age");
}

Test(l2fwd_binary, sigint_stops_cleanly_with_totals, .timeout = 60)
{
	char *const argv[] = { "unic-l2fwd", "--no-huge", "--no-pci", "--vdev", "null0", "--vdev",
			       "null1", "-q", "2", "-T", "0", NULL };
	int fd, st;
	pid_t pid;
	static char buf[1 << 16];
	size_t n = 0;

	pid = binary_spawn(binary(), argv, NULL, &fd);
	usleep(1500 * 1000);
	cr_assert_eq(kill(pid, SIGINT), 0);
	binary_read_until(fd, buf, sizeof(buf), &n, NULL, 30000);
	close(fd);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "killed by a signal instead of stopping");
	cr_assert_eq(WEXITSTATUS(st), 0, "%s", buf);
	HAS(buf, "SIGINT: stopping");
	HAS(buf, "Totals over");
	HAS(buf, "total: received");
}

/* DPDK's command line: the main core alone forwards both ports and prints
 * the statistics between bursts. */
Test(l2fwd_binary, the_main_core_alone_forwards_as_in_dpdk, .timeout = 60)
{
	static char buf[1 << 16];
	const char *tot;

	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -l 0 -- -p 3 -T 0.2 -t 1 --json",
			 true, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "l2fwd: thread 0 (main core 0, hybrid mode, with the statistics): ports 0 1");
	cr_assert_null(strstr(buf, "not pinned"), "%s", buf);
	HAS(buf, "{\"type\":\"stats\"");
	tot = strstr(buf, "{\"type\":\"totals\"");
	cr_assert_not_null(tot, "no totals in %s", buf);
	for (int p = 0; p < 2; p++) {
		uint64_t rx = jport(tot, p, "rx");

		cr_assert_gt(rx, 10000, "port %d forwarded only %" PRIu64 " packets", p, rx);
		cr_assert_eq(rx, jport(tot, 1 - p, "tx") + jport(tot, 1 - p, "dropped"), "%s", tot);
	}
	/* Two ring ports in poll mode: what one sends the other receives. */
	cr_assert_eq(run("--no-huge --no-pci --vdev ring0 --vdev ring1,peer=ring0 -l 0 -- -p 3 -T 0 -t 0.3 --rx-mode poll",
			 true, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "(main core 0, poll mode, with the statistics): ports 0 1");
}

Test(l2fwd_binary, one_worker_core_serves_both_ports_and_q_1_forwards_on_the_main_core_too, .timeout = 60)
{
	static char buf[1 << 16];

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		cr_skip_test("one CPU: -l 0,1 needs two");
	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -l 0,1 -- -p 3 -T 0 -t 0.3",
			 true, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "l2fwd: thread 0 (core 1, hybrid mode): ports 0 1");
	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -l 0,1 -- -p 3 -q 1 -T 0 -t 0.3",
			 true, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "l2fwd: thread 0 (core 1, hybrid mode): ports 0");
	HAS(buf, "l2fwd: thread 1 (main core 0, hybrid mode, with the statistics): ports 1");
	HAS(buf, "the main core forwards too");
	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 --vdev null2 -l 0,1 -- -q 1 -T 0 -t 0.3",
			 true, buf, sizeof(buf)), 2, "%s", buf);
	HAS(buf, "3 ports at 1 per thread (-q 1) need 3 forwarding cores, but -l gives 2");
}

/* --stats-format dpdk: DPDK l2fwd's screen, with its figures. */
Test(l2fwd_binary, stats_format_dpdk_prints_dpdks_screen, .timeout = 60)
{
	static char buf[1 << 16];
	const char *last, *p;
	unsigned long long sent[2], rcvd[2], drop[2], ts, tr, td;

	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -l 0 -- -p 3 -T 0.2 -t 1 --stats-format dpdk",
			 false, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "\033[2J\033[1;1H\nPort statistics ====================================\n"
		 "Statistics for port 0 ------------------------------\nPackets sent: ");
	last = buf;
	while ((p = strstr(last + 1, "\nPort statistics ====")) != NULL)
		last = p;
	for (int i = 0; i < 2; i++) {
		char pat[128];

		snprintf(pat, sizeof(pat), "\nStatistics for port %d ------------------------------\n", i);
		p = strstr(last, pat);
		cr_assert_not_null(p, "no port %d in %s", i, last);
		cr_assert_eq(sscanf(p + strlen(pat), "Packets sent: %llu\nPackets received: %llu\nPackets dropped: %llu",
				    &sent[i], &rcvd[i], &drop[i]), 3, "%s", p);
		/* The numbers end in one column, as DPDK's widths make them. */
		cr_assert_eq(strchr(p + strlen(pat), '\n') - (p + strlen(pat)), 38, "%s", p);
	}
	p = strstr(last, "\nAggregate statistics ===============================\n");
	cr_assert_not_null(p, "%s", last);
	cr_assert_eq(sscanf(p, "\nAggregate statistics ===============================\n"
			       "Total packets sent: %llu\nTotal packets received: %llu\nTotal packets dropped: %llu",
			    &ts, &tr, &td), 3, "%s", p);
	HAS(p, "\n====================================================\n");
	cr_assert_eq(ts, sent[0] + sent[1]);
	cr_assert_eq(tr, rcvd[0] + rcvd[1]);
	cr_assert_eq(td, drop[0] + drop[1]);
	cr_assert_gt(tr, 10000, "%s", last);
	cr_assert_eq(rcvd[0], sent[1] + drop[1], "what port 0 received went out on port 1: %s", last);
	cr_assert_null(strstr(buf, "Statistics over"), "no text blocks with --stats-format dpdk");
}

/* The main core forwarding two idle ring ports sleeps in hybrid mode; a
 * SIGINT ends the sleep at once and the totals follow. */
Test(l2fwd_binary, sigint_stops_the_main_core_in_its_sleep, .timeout = 60)
{
	char *const argv[] = { "unic-l2fwd", "--no-huge", "--no-pci", "--no-telemetry", "--vdev", "ring0",
			       "--vdev", "ring1,peer=ring0", "-l", "0", "--", "-p", "3", "-T", "0", "--json", NULL };
	static char buf[1 << 16];
	uint64_t t0, t1;
	size_t n = 0;
	int fd, st;
	pid_t pid;

	pid = binary_spawn(binary(), argv, NULL, &fd);
	binary_read_until(fd, buf, sizeof(buf), &n, "SIGINT or SIGTERM stops", 30000);
	HAS(buf, "(main core 0, hybrid mode, with the statistics): ports 0 1");
	usleep(300 * 1000);
	t0 = unic_time_ns();
	cr_assert_eq(kill(pid, SIGINT), 0);
	binary_read_until(fd, buf, sizeof(buf), &n, NULL, 30000);
	close(fd);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	t1 = unic_time_ns();
	cr_assert(WIFEXITED(st), "killed by a signal instead of stopping");
	cr_assert_eq(WEXITSTATUS(st), 0, "%s", buf);
	HAS(buf, "SIGINT: stopping");
	HAS(buf, "{\"type\":\"totals\"");
	/* The idle thread slept, and woke for the signal, not for a timer. */
	cr_assert_lt(t1 - t0, 5000000000ull, "took %.3f s to stop", (double)(t1 - t0) / 1e9);
	cr_assert_gt(strtoull(strstr(strstr(buf, "{\"type\":\"totals\""), "\"sleeps\":") + 9, NULL, 10), 0,
		     "%s", buf);
}

Test(l2fwd_binary, exits_2_on_a_bad_command_line_and_0_on_help, .timeout = 60)
{
	static char buf[1 << 16];

	cr_assert_eq(run("--help", false, buf, sizeof(buf)), 0);
	HAS(buf, "--rx-mode MODE");
	HAS(buf, "--vdev");
	HAS(buf, "Exit status");
	cr_assert_eq(run("--no-huge --no-pci --rx-mode busy", true, buf, sizeof(buf)), 2);
	HAS(buf, "unic-l2fwd: error: option --rx-mode: unknown mode 'busy'");
	cr_assert_eq(run("--no-huge --no-pci -l x", true, buf, sizeof(buf)), 2);
	HAS(buf, "option -l");
	cr_assert_eq(run("--no-huge --no-pci --vdev null0 --vdev null1 -p 0x4", true, buf, sizeof(buf)), 2);
	HAS(buf, "names port 2, but there are 2 ports");
	cr_assert_eq(run("--no-huge --no-pci", true, buf, sizeof(buf)), 2);
	HAS(buf, "no ports to forward between");
	cr_assert_eq(run("--no-huge --no-pci --vdev bogus0", true, buf, sizeof(buf)), 1);
}
