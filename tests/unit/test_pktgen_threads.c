/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen at scale: the options of the threads (--txq, --rxq, --quiet)
 * and what they refuse, a sequence per (stream, tx queue) and its merge
 * over receive threads, the generator-limit verdict, the line a second; and
 * the binary (UNIC_PKTGEN) with two tx queues over a ring pair, its line a
 * second on a pipe, and its generator-limit line on a null port (pktgen the
 * limit) and on a ring nobody drains (the port the limit).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "limit.h"
#include "live.h"
#include "pktgen_opts.h"
#include "pktgen_test_opts.h"
#include "rxstats.h"
#include "run_binary.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))

static char err[1024];

static int parse(struct pg_opts *o, const char *line)
{
	return pg_test_parse(o, line, err, sizeof(err));
}

/* ---- options ---- */

Test(pktgen_threads_opts, txq_rxq_and_quiet_are_taken_and_default_to_one_queue)
{
	struct pg_opts o;

	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1"), 0, "%s", err);
	cr_assert_eq(o.txq, 1);
	cr_assert_eq(o.rxq, 1);
	cr_assert(!o.quiet);
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --txq 4 --rxq=2 --quiet"), 0, "%s", err);
	cr_assert_eq(o.txq, 4);
	cr_assert_eq(o.rxq, 2);
	cr_assert(o.quiet);
	/* A sweep and a search run their trials on every thread. */
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --txq 2 --sweep 1kpps,2kpps"), 0, "%s", err);
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --rxq 2 --txq 2 --rfc2544 ndr"), 0, "%s", err);
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --txq 2 --csv -"), 0, "one stream's --csv: %s", err);
}

Test(pktgen_threads_opts, bad_queue_counts_and_one_thread_modes_are_refused_by_name)
{
	struct pg_opts o;
	struct {
		const char *line, *want[3];
	} cases[] = {
		{ "--tx-port 0 --rx-port 1 --txq 0", { "--txq", "'0'" } },
		{ "--tx-port 0 --rx-port 1 --txq 17", { "--txq", "17" } },
		{ "--tx-port 0 --rx-port 1 --rxq x", { "--rxq", "'x'" } },
		{ "--tx-port 0 --rx-port 1 --txq", { "--txq" } },
		{ "--tx-port 0 --rx-port 1 --rxq 2 --replay /tmp/x.pcap", { "--rxq 2", "--replay" } },
		{ "--tx-port 0 --rx-port 1 --txq 2 --write-tx /tmp/x.pcap", { "--txq 2", "--write-tx" } },
		{ "--tx-port 0 --rx-port 1 --txq 2 --csv - --stream tx=0,rx=1", { "--txq 2", "--csv and 2 streams" } },
		{ "--tx-port 0 --rx-port 1 --txq 3 --arp-reply", { "--txq 3", "--arp-reply" } },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(parse(&o, cases[i].line), -EINVAL, "accepted: %s", cases[i].line);
		for (unsigned k = 0; k < 3 && cases[i].want[k]; k++)
			HAS(err, cases[i].want[k]);
	}
}

/* ---- a sequence per (stream, tx queue) ---- */

Test(pktgen_threads_seq, each_tx_queue_has_its_own_sequence_and_interleaving_is_no_reorder)
{
	static struct pg_rxstats rs;
	struct pg_stamp s = { .magic = PG_STAMP_MAGIC, .stream = 3 };
	struct pg_stream_stats *st;

	pg_rxstats_init(&rs, 3);
	cr_assert_eq(pg_rxstats_set_queues(&rs, 2), 0);
	/* Queue 0 sends 0..9, queue 1 sends 0..9 (skipping 5), interleaved. */
	for (uint32_t k = 0; k < 10; k++)
		for (unsigned q = 0; q < 2; q++) {
			if (q == 1 && k == 5)
				continue;
			s.stream = (uint16_t)(3 | q << PG_STAMP_QUEUE_SHIFT);
			s.seq = k;
			st = pg_rxstats_frame(&rs, 60, PG_PARSE_OK, &s);
			cr_assert_not_null(st);
			cr_assert_eq(rs.last, 0);
			cr_assert_eq(rs.last_q, q);
			pg_stream_seq_add(st, rs.last_q, s.seq);
		}
	st = rs.streams[0];
	cr_assert_eq(st->seq.received, 19);
	cr_assert_eq(st->seq.unique, 19);
	cr_assert_eq(st->seq.reordered, 0, "queues interleaving is not reordering");
	cr_assert_eq(st->seq.duplicated, 0, "the same number from two queues is no duplicate");
	cr_assert_eq(pg_seq_lost(&st->seq, 20), 1);
	cr_assert_eq(pg_seq_lost(&st->seq, 0), 1, "the gap of queue 1 (its 5)");
	/* A late frame of queue 1 is a reorder of queue 1 only, and fills its gap. */
	s.stream = 3 | 1 << PG_STAMP_QUEUE_SHIFT;
	s.seq = 5;
	cr_assert_eq(pg_rxstats_frame(&rs, 60, PG_PARSE_OK, &s), st);
	pg_stream_seq_add(st, rs.last_q, s.seq);
	cr_assert_eq(st->seq.reordered, 1);
	cr_assert_eq(pg_seq_lost(&st->seq, 20), 0);
	cr_assert_eq(pg_stream_qseq(st, 1)->reordered, 1);
	cr_assert_eq(pg_stream_qseq(st, 0)->reordered, 0);
	/* An id with a queue beyond those set up is another sender's. */
	s.stream = 3 | 2 << PG_STAMP_QUEUE_SHIFT;
	cr_assert_null(pg_rxstats_frame(&rs, 60, PG_PARSE_OK, &s));
	cr_assert_eq(rs.other_stream, 1);
	pg_rxstats_fini(&rs);
}

Test(pktgen_threads_seq, two_receive_threads_parts_merge_into_the_whole)
{
	static struct pg_rxstats a, b;
	struct pg_stamp s = { .magic = PG_STAMP_MAGIC };

	pg_rxstats_init(&a, 0);
	pg_rxstats_init(&b, 0);
	cr_assert_eq(pg_rxstats_set_queues(&a, 2), 0);
	cr_assert_eq(pg_rxstats_set_queues(&b, 2), 0);
	/* Each tx queue's frames split over two rx threads by flow: even
	 * numbers to a, odd to b; tx queue 1's 7 lost; a duplicate of 4. */
	for (unsigned q = 0; q < 2; q++)
		for (uint32_t k = 0; k < 10; k++) {
			struct pg_rxstats *r = k % 2 ? &b : &a;

			if (q == 1 && k == 7)
				continue;
			s.stream = (uint16_t)(q << PG_STAMP_QUEUE_SHIFT);
			s.seq = k;
			for (unsigned n = 0; n < (k == 4 ? 2u : 1u); n++) {
				struct pg_stream_stats *st = pg_rxstats_frame(r, 60, PG_PARSE_OK, &s);

				pg_stream_seq_add(st, r->last_q, k);
			}
		}
	pg_rxstats_merge(&a, &b);
	cr_assert_eq(a.frames, 21);
	cr_assert_eq(a.streams[0]->seq.received, 21);
	cr_assert_eq(a.streams[0]->seq.unique, 19);
	cr_assert_eq(a.streams[0]->seq.duplicated, 2);
	cr_assert_eq(pg_seq_lost(&a.streams[0]->seq, 20), 1);
	cr_assert_eq(pg_seq_lost(&a.streams[0]->seq, 0), 1);
	pg_rxstats_fini(&a);
	pg_rxstats_fini(&b);
}

Test(pktgen_threads_seq, queues_are_refused_for_ids_that_do_not_fit_below_the_queue_bits)
{
	static struct pg_rxstats rs;

	pg_rxstats_init(&rs, 300);
	cr_assert_eq(pg_rxstats_set_queues(&rs, 2), -EINVAL);
	pg_rxstats_init(&rs, 0);
	cr_assert_eq(pg_rxstats_set_queues(&rs, 1), -EINVAL);
	cr_assert_eq(pg_rxstats_set_queues(&rs, PG_MAX_TXQ + 1), -EINVAL);
}

/* ---- the verdict ---- */

static struct pg_thr_stat thr(double busy, double cpu, uint64_t bursts, uint64_t full)
{
	return (struct pg_thr_stat){ .q = 1, .tx = true, .port = 3, .tx_s = 2, .idle_s = 2 * (1 - busy),
				     .cpu_s = 2 * cpu, .bursts = bursts, .full_bursts = full };
}

Test(pktgen_threads_limit, the_verdict_names_the_ring_the_thread_or_neither)
{
	char line[640];
	struct pg_thr_stat t[2];

	t[0] = thr(0.2, 1, 1000, 0);
	t[1] = thr(0.3, 1, 1000, 0);
	cr_assert_eq(pg_limit_judge(true, false, t, 2, line, sizeof(line)), PG_LIMIT_NONE);
	HAS(line, "generator limit: none");
	/* Missed, a ring full in 60 % of its bursts (and so busy): the port. */
	t[1] = thr(1, 1, 1000, 600);
	cr_assert_eq(pg_limit_judge(true, true, t, 2, line, sizeof(line)), PG_LIMIT_PORT);
	HAS(line, "generator limit: the port, not pktgen");
	HAS(line, "tx port 3 queue 1");
	HAS(line, "60.0%");
	/* Busy all the time, its ring taking every burst: pktgen. */
	t[1] = thr(0.99, 1, 1000, 0);
	cr_assert_eq(pg_limit_judge(false, true, t, 2, line, sizeof(line)), PG_LIMIT_PKTGEN);
	HAS(line, "generator limit: pktgen");
	HAS(line, "tx thread 1 was busy 99.0%");
	/* On its CPU half the time: the machine held pktgen back. */
	t[1] = thr(0.5, 0.5, 1000, 0);
	cr_assert_eq(pg_limit_judge(true, true, t, 2, line, sizeof(line)), PG_LIMIT_PKTGEN);
	HAS(line, "had a CPU only 50.0%");
	/* Missed, none of these. */
	t[1] = thr(0.5, 1, 1000, 50);
	cr_assert_eq(pg_limit_judge(true, true, t, 2, line, sizeof(line)), PG_LIMIT_NEITHER);
	HAS(line, "generator limit: neither");
	/* A thread that only receives is not judged. */
	t[1] = thr(1, 0.1, 1000, 1000);
	t[1].tx = false;
	cr_assert_eq(pg_limit_judge(true, true, t, 2, line, sizeof(line)), PG_LIMIT_NEITHER);
}

/* ---- the line a second ---- */

Test(pktgen_threads_line, the_line_has_the_totals_the_ports_and_the_latency)
{
	struct pg_screen s = { .elapsed_s = 2.0, .rate = "10kpps", .nb_txp = 2, .nb_rxp = 1 };
	char buf[1024];

	s.txp[0] = (struct pg_screen_row){ .id = 0, .tx_pps = 5000 };
	s.txp[1] = (struct pg_screen_row){ .id = 2, .tx_pps = 4999 };
	s.rxp[0] = (struct pg_screen_row){ .id = 1, .rx_pps = 9999 };
	s.total = (struct pg_screen_row){ .id = -1, .has_tx = true, .has_rx = true, .has_lat = true,
					  .tx_pps = 9999, .rx_pps = 9999, .tx_mbps = 5.12, .sent = 20000,
					  .received = 19998, .lost = 2, .p50_ns = 1500 };
	cr_assert_lt(pg_screen_line(&s, buf, sizeof(buf)), sizeof(buf));
	cr_assert_str_eq(buf, "unic-pktgen: 2.0 s: tx 9999 pps 5.120 Mbit/s, rx 9999 pps 0.000 Mbit/s, sent 20000, "
			      "received 19998, lost 2, p50 1500 ns; tx 0 5000 pps, tx 2 4999 pps, rx 1 9999 pps, rate 10kpps\n");
	s.nb_txp = 1;
	s.total.p50_ns = 0;
	pg_screen_line(&s, buf, sizeof(buf));
	HAS(buf, "lost 2, p50 -, rate 10kpps\n");
	cr_assert_null(strstr(buf, "tx 0 5000"), "one port each: the total only: %s", buf);
}

/* ---- the binary ---- */

static int run(const char *args, char *out, size_t outlen)
{
	return binary_run_args("UNIC_PKTGEN", args, out, outlen);
}


/* The object of thread @p t in the report's "threads" array. */
static const char *thread_obj(const char *j, unsigned t)
{
	char k[32];
	const char *p;

	snprintf(k, sizeof(k), "{\"thread\":%u,", t);
	p = strstr(j, k);
	cr_assert_not_null(p, "thread %u not in %s", t, j);
	return p;
}

Test(pktgen_threads_bin, two_tx_queues_send_exactly_the_count_every_frame_accounted, .timeout = 120)
{
	static char out[32768];
	const char *j, *s0, *s1;

	/* Two streams on tx port 0, two queues (thread 0 and 1 on cores 0 and
	 * 1); ring0's tx queue q lands in ring1's rx queue q. */
	cr_assert_eq(run("--no-pci --no-huge -l 0-1 --vdev ring0 --vdev ring1,peer=ring0 "
			 "--stream tx=0,rx=1,dst-port=1-8 --stream tx=0,rx=1,proto=tcp,size=128 "
			 "--txq 2 --rxq 2 --rate 20kpps --count 4001 --json", out, sizeof(out)), 0, "%s", out);
	j = strstr(out, "{\"tsc_hz\"");
	cr_assert_not_null(j, "%s", out);
	cr_assert_eq(binary_json_u64(j, "sent"), 4001, "%s", j);
	cr_assert_eq(binary_json_u64(j, "received"), 4001, "%s", j);
	cr_assert_eq(binary_json_u64(j, "lost"), 0, "%s", j);
	cr_assert_eq(binary_json_u64(j, "reordered"), 0, "%s", j);
	cr_assert_eq(binary_json_u64(j, "duplicated"), 0, "%s", j);
	cr_assert_eq(binary_json_u64(j, "no_stamp"), 0, "%s", j);
	cr_assert_eq(binary_json_u64(j, "other_stream"), 0, "%s", j);
	/* The count and the rate split over the two threads. */
	s0 = thread_obj(j, 0);
	s1 = thread_obj(j, 1);
	cr_assert_eq(binary_json_u64(s0, "sent"), 2001, "%s", j);
	cr_assert_eq(binary_json_u64(s1, "sent"), 2000, "%s", j);
	cr_assert_float_eq(binary_json_dbl(s0, "asked"), 10000.0, 0.1, "%s", j);
	cr_assert_float_eq(binary_json_dbl(s1, "asked"), 10000.0, 0.1, "%s", j);
	cr_assert_eq(binary_json_u64(s0, "rx_frames") + binary_json_u64(s1, "rx_frames"), 4001, "%s", j);
	cr_assert_gt(binary_json_u64(s1, "rx_frames"), 0, "thread 1 received on its queue: %s", j);
	/* Per stream: what each sent came back, none lost, none duplicated. */
	const char *st0 = strstr(j, "{\"id\":0,"), *st1 = strstr(j, "{\"id\":1,");

	cr_assert_not_null(st0, "%s", j);
	cr_assert_not_null(st1, "%s", j);
	cr_assert_eq(binary_json_u64(st0, "sent") + binary_json_u64(st1, "sent"), 4001, "%s", j);
	cr_assert_gt(binary_json_u64(st0, "sent"), 1500, "%s", j);
	cr_assert_gt(binary_json_u64(st1, "sent"), 1500, "%s", j);
	cr_assert_eq(binary_json_u64(st0, "received"), binary_json_u64(st0, "sent"), "%s", j);
	cr_assert_eq(binary_json_u64(st1, "received"), binary_json_u64(st1, "sent"), "%s", j);
	cr_assert_eq(binary_json_u64(st0, "lost"), 0, "%s", j);
	cr_assert_eq(binary_json_u64(st1, "duplicated"), 0, "%s", j);
	cr_assert_float_eq(binary_json_dbl(st0, "rate_requested"), 10000.0, 0.1, "the stream's whole rate: %s", j);
	/* Each stream's frames in a sequence per tx queue (the stamp's id
	 * carries the queue): both queues' numbered from 0, none missing. */
	for (const char *st = st0; st; st = st == st0 ? st1 : NULL) {
		const char *q0 = strstr(st, "{\"queue\":0,"), *q1 = strstr(st, "{\"queue\":1,");
		uint64_t r0, r1;

		cr_assert_not_null(q0, "%s", st);
		cr_assert_not_null(q1, "%s", st);
		r0 = binary_json_u64(q0, "received");
		r1 = binary_json_u64(q1, "received");
		cr_assert_gt(r1, 0, "queue 1's frames in its own sequence: %s", st);
		cr_assert_eq(r0 + r1, binary_json_u64(st, "received"), "%s", st);
		cr_assert_eq(binary_json_u64(q0, "highest") + 1, r0, "queue 0 numbered 0..n-1: %s", st);
		cr_assert_eq(binary_json_u64(q1, "highest") + 1, r1, "queue 1 numbered 0..n-1: %s", st);
	}
}

Test(pktgen_threads_bin, the_text_report_shows_each_threads_share, .timeout = 120)
{
	static char out[32768];

	cr_assert_eq(run("--no-pci --no-huge -l 0-1 --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--txq 2 --rxq 2 --rate 10kpps --count 2000 --quiet", out, sizeof(out)), 0, "%s", out);
	HAS(out, "unic-pktgen: 2 threads: thread t sends on tx queue t");
	HAS(out, "cores 0,1");
	HAS(out, "tx thread 0 (tx queue 0, core 0): sent 1000 frames");
	HAS(out, "tx thread 1 (tx queue 1, core 1): sent 1000 frames");
	HAS(out, "asked 5000.0, achieved");
	HAS(out, "generator limit: ");
	HAS(out, "stream 0: received 2000, lost 0, reordered 0, duplicated 0");
	HAS(out, "timestamps: software (no hardware timestamps on these NICs)");
	cr_assert_null(strstr(out, " s: tx "), "--quiet: no line a second: %s", out);
}

Test(pktgen_threads_bin, more_threads_than_cores_given_is_refused_before_any_traffic)
{
	static char out[16384];

	cr_assert_eq(run("--no-pci --no-huge --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--txq 2 --count 100", out, sizeof(out)), 2, "%s", out);
	HAS(out, "option --txq 2: 2 threads (one a queue) need 2 cores in -l");
	HAS(out, "no -l was given");
	cr_assert_null(strstr(out, "sent"), "nothing sent: %s", out);
	cr_assert_eq(run("--no-pci --no-huge -l 0 --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--rxq 2 --count 100", out, sizeof(out)), 2, "%s", out);
	HAS(out, "option --rxq 2: 2 threads");
	HAS(out, "-l gives fewer");
}

/* The value after @p key in @p line, or -1. */
static long long field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	return p ? strtoll(p + strlen(key), NULL, 10) : -1;
}

Test(pktgen_threads_bin, on_a_pipe_a_line_a_second_whose_counts_move, .timeout = 120)
{
	static char out[32768];
	long long sent[8], rx[8];
	unsigned n = 0;

	cr_assert_eq(run("--no-pci --no-huge --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--rate 2kpps --duration 3.5", out, sizeof(out)), 0, "%s", out);
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		if (strncmp(l, "unic-pktgen: ", 13) != 0 || strstr(l, " s: tx ") == NULL || n == 8)
			continue;
		cr_assert_neq(strstr(l, "pps"), NULL, "%s", l);
		cr_assert_neq(strstr(l, ", lost "), NULL, "%s", l);
		cr_assert_neq(strstr(l, ", rate 2kpps"), NULL, "%s", l);
		sent[n] = field(l, ", sent ");
		rx[n] = field(l, ", received ");
		n++;
	}
	cr_assert_geq(n, 2, "at least two lines in 3.5 s");
	cr_assert_gt(sent[n - 1], sent[0], "sent moves");
	cr_assert_gt(rx[n - 1], rx[0], "received moves");
}

Test(pktgen_threads_bin, an_unpaced_run_on_a_null_port_names_pktgen_the_limit, .timeout = 120)
{
	static char out[32768];
	const char *j;

	/* null0 takes every frame at once: nothing but pktgen (or the CPU it
	 * gets) limits the rate. Nothing comes back (ring1 has no peer). */
	cr_assert_eq(run("--no-pci --no-huge --vdev null0 --vdev ring1 --tx-port 0 --rx-port 1 "
			 "--count 300000 --json", out, sizeof(out)), 1, "%s", out);
	j = strstr(out, "{\"tsc_hz\"");
	cr_assert_not_null(j, "%s", out);
	HAS(j, "\"limit\":{\"by\":\"pktgen\"");
	cr_assert_eq(binary_json_u64(thread_obj(j, 0), "ring_full_bursts"), 0, "%s", j);
}

Test(pktgen_threads_bin, a_ring_nobody_drains_names_the_port_the_limit, .timeout = 120)
{
	static char out[32768];

	/* Stream 0: ring0 -> ring1's rx queue, which nobody polls (ring1 only
	 * sends, stream 1, to ring0): ring0's tx fills and stays full. */
	cr_assert_eq(run("--no-pci --no-huge --vdev ring0 --vdev ring1,peer=ring0 "
			 "--stream tx=0,rx=0 --stream tx=1,rx=0 --count 100000", out, sizeof(out)), 1, "%s", out);
	HAS(out, "took no frame for 2 s");
	HAS(out, "generator limit: the port, not pktgen");
	HAS(out, "tx port 0 queue 0");
}

/*
 * A port that takes part of a burst and then nothing is stalled 2 s after
 * the last frame it took, not at once: the stall check compared a clock read
 * at the top of the loop with the take's later one, and the unsigned
 * difference wrapped (a false stall at 1 Mpps into a memif forwarder that
 * fell behind for a moment). Ring1's rx queue of 100 descriptors takes 3
 * whole bursts of 32, then 4 of the next.
 */
Test(pktgen_threads_bin, a_port_that_took_part_of_a_burst_is_stalled_only_2_s_after, .timeout = 120)
{
	static char out[32768];
	const char *p;
	double secs;

	cr_assert_eq(run("--no-pci --no-huge --no-telemetry --vdev ring0 --vdev ring1,peer=ring0 --rxd 100 "
			 "--stream tx=0,rx=0 --stream tx=1,rx=0 --count 100000", out, sizeof(out)), 1, "%s", out);
	HAS(out, "took no frame for 2 s");
	p = strstr(out, "tx port 0: sent 100 frames");
	cr_assert_not_null(p, "%s", out);
	p = strstr(p, " in ");
	cr_assert_not_null(p, "%s", out);
	secs = strtod(p + 4, NULL);
	cr_assert_geq(secs, 1.99, "tx port 0 was called stalled after %.3f s of sending:\n%s", secs, out);
}

Test(pktgen_threads_bin, a_sweep_on_two_threads_counts_every_frame_of_each_step_once, .timeout = 180)
{
	static char out[32768];
	unsigned rows = 0;

	/* Each step starts both threads and stops both; the warm-up's frames
	 * (of either queue) are stale, never counted. */
	cr_assert_eq(run("--no-pci --no-huge -l 0-1 --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--txq 2 --rxq 2 --sweep 1kpps,3kpps --step-duration 0.5 --warmup 0.3 --json", out, sizeof(out)),
		     0, "%s", out);
	const char *j = strstr(out, "\"steps\":[");

	cr_assert_not_null(j, "%s", out);
	for (const char *p = strstr(j, "{\"step\":"); p; p = strstr(p + 1, "{\"step\":")) {
		uint64_t sent = binary_json_u64(p, "sent");

		cr_assert_gt(sent, 0, "%s", p);
		cr_assert_eq(binary_json_u64(p, "received"), sent, "%s", p);
		cr_assert_eq(binary_json_u64(p, "lost"), 0, "%s", p);
		cr_assert_eq(binary_json_u64(p, "duplicated"), 0, "%s", p);
		cr_assert_gt(binary_json_u64(p, "stale"), 0, "the warm-up's frames, apart: %s", p);
		rows++;
	}
	cr_assert_eq(rows, 2, "%s", out);
}

Test(pktgen_threads_bin, an_rfc2544_search_on_two_threads_loses_nothing_over_a_ring_pair, .timeout = 180)
{
	static char out[32768];
	unsigned trials = 0;

	cr_assert_eq(run("--no-pci --no-huge -l 0-1 --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--txq 2 --rxq 2 --rfc2544 ndr --frame-sizes 64 --rate 2kpps --trial-duration 0.5 "
			 "--warmup 0.2 --resolution 10 --json", out, sizeof(out)), 0, "%s", out);
	HAS(out, "\"found\":true");
	for (const char *p = strstr(out, "{\"offered_pps\":"); p; p = strstr(p + 1, "{\"offered_pps\":")) {
		uint64_t sent = binary_json_u64(p, "sent");

		cr_assert_gt(sent, 0, "%s", p);
		cr_assert_eq(binary_json_u64(p, "received"), sent, "%s", p);
		cr_assert_eq(binary_json_u64(p, "lost"), 0, "%s", p);
		trials++;
	}
	cr_assert_geq(trials, 2, "a trial and the latency trial: %s", out);
}

Test(pktgen_threads_bin, with_two_threads_the_line_a_second_sums_both, .timeout = 180)
{
	static char out[65536];
	long long most = 0;
	unsigned n = 0;

	/* 12000 frames, 6000 a thread, over 3 s or more: a line after 2 s
	 * shows more than one thread's 6000 only if it sums both. */
	cr_assert_eq(run("--no-pci --no-huge -l 0-1 --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--txq 2 --rxq 2 --rate 4kpps --count 12000", out, sizeof(out)), 0, "%s", out);
	HAS(out, "stream 0: received 12000, lost 0, reordered 0, duplicated 0");
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		long long sent;

		if (strncmp(l, "unic-pktgen: ", 13) != 0 || strstr(l, " s: tx ") == NULL)
			continue;
		sent = field(l, ", sent ");
		cr_assert_leq(sent, 12000, "%s", l);
		if (sent > most)
			most = sent;
		n++;
	}
	cr_assert_geq(n, 2, "at least two lines");
	cr_assert_gt(most, 6000, "the lines sum both threads (most %lld)", most);
}

Test(pktgen_threads_bin, without_an_invariant_tsc_a_thread_takes_latency_only_of_its_own_frames, .timeout = 120)
{
	static char out[32768];
	char path[] = "/tmp/unic-pgthr-cpuinfo-XXXXXX";
	int fd = mkstemp(path);
	const char *j;
	FILE *f;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	cr_assert_not_null(f);
	fprintf(f, "processor\t: 0\nflags\t\t: fpu tsc msr constant_tsc rep_good nopl\n");
	fclose(f);
	setenv("UNIC_PKTGEN_CPUINFO", path, 1);
	/* The ring pair hands tx queue q to rx queue q: each thread receives
	 * only what it sent, so every frame still has its latency. */
	cr_assert_eq(run("--no-pci --no-huge -l 0-1 --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--txq 2 --rxq 2 --rate 10kpps --count 2000 --json", out, sizeof(out)), 0, "%s", out);
	unsetenv("UNIC_PKTGEN_CPUINFO");
	unlink(path);
	j = strstr(out, "{\"tsc_hz\"");
	cr_assert_not_null(j, "%s", out);
	HAS(j, "\"tsc_invariant\":false");
	cr_assert_eq(binary_json_u64(j, "latency_skipped"), 0, "%s", j);
	cr_assert_eq(binary_json_u64(j, "received"), 2000, "%s", j);
	cr_assert_eq(binary_json_u64(j, "samples"), 2000, "a thread's own frames keep their latency: %s", j);
	/* The text header says so. */
	setenv("UNIC_PKTGEN_CPUINFO", "/dev/null", 1);
	cr_assert_eq(run("--no-pci --no-huge -l 0-1 --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--txq 2 --rxq 2 --rate 10kpps --count 200 --quiet", out, sizeof(out)), 0, "%s", out);
	unsetenv("UNIC_PKTGEN_CPUINFO");
	HAS(out, "TSC NOT invariant (/proc/cpuinfo lacks constant_tsc and nonstop_tsc): latency only of frames received by the thread that sent them");
}

Test(pktgen_threads_bin, with_two_threads_the_csv_rows_add_up_to_every_frame, .timeout = 120)
{
	static char out[32768];
	uint64_t tx = 0, rx = 0, lat = 0;
	unsigned rows = 0;

	cr_assert_eq(run("--no-pci --no-huge -l 0-1 --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
			 "--txq 2 --rxq 2 --rate 4kpps --count 6000 --csv - --quiet", out, sizeof(out)), 0, "%s", out);
	for (char *l = strtok(out, "\n"); l; l = strtok(NULL, "\n")) {
		unsigned long long f[16];
		double t, dt, pps;

		/* time_s,interval_s,tx_frames,tx_pps,...,rx_frames,...,lat_samples,... */
		if (sscanf(l, "%lf,%lf,%llu,%lf,", &t, &dt, &f[0], &pps) != 4)
			continue;
		const char *c = l;

		for (int k = 0; k < 6; k++)
			c = strchr(c, ',') + 1;
		rx += strtoull(c, NULL, 10);          /* rx_frames, the 7th column */
		for (int k = 0; k < 5; k++)
			c = strchr(c, ',') + 1;
		lat += strtoull(c, NULL, 10);         /* lat_samples, the 12th */
		tx += f[0];
		rows++;
	}
	cr_assert_geq(rows, 2, "%s", out);
	cr_assert_eq(tx, 6000, "the rows' tx_frames add up to both threads' frames: %s", out);
	cr_assert_eq(rx, 6000, "%s", out);
	cr_assert_eq(lat, 6000, "every frame's latency in some row: %s", out);
}
