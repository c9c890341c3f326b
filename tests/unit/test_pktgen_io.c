/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen's files: pcap writing and loading (round trip, truncation of
 * records never sent, bad captures), pacing of replayed frames by their own
 * sizes, --csv rows, the new options, the fuzz seed corpus; and the binary
 * (UNIC_PKTGEN) over a ring pair: a capture written on both sides, replayed,
 * compared byte for byte.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "csv.h"
#include "pcap_io.h"
#include "pkt_build.h"
#include "pkt_parse.h"
#include "pktgen_opts.h"
#include "pktgen_test_opts.h"
#include "rate.h"
#include "rxstats.h"
#include "../fuzz/pktgen_seeds.h"
#include "run_binary.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))

static char dir[64];
static char err[1024];

static void mkdir_tmp(void)
{
	snprintf(dir, sizeof(dir), "/tmp/unic-pktgen-io-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
}

static void rm_tmp(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

static const char *path(const char *name)
{
	static char p[4][128];
	static unsigned k;

	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", dir, name);
	return p[k];
}

/* A stamped frame of @p size with sequence number @p seq. */
static void frame(uint8_t *buf, unsigned size, uint32_t seq, bool v6, bool vlan)
{
	struct pg_frame_tmpl t = { .dst_mac = { 2, 0, 0, 0, 0, 1 }, .src_mac = { 2, 0, 0, 0, 0, 2 },
				   .ipv6 = v6, .vlan = vlan, .vlan_tci = 5, .ttl = 64 };
	struct pg_flow f = { .src_ip = { 10, 0, 0, 1 }, .dst_ip = { 10, 0, 0, 2 }, .src_port = 7,
			     .dst_port = 9 };
	struct pg_stamp s = { PG_STAMP_MAGIC, 3, seq, 1000 + seq };

	if (v6) {
		f.src_ip[0] = f.dst_ip[0] = 0xfd;
	}
	cr_assert_eq(pg_frame_build(buf, size, &t, &f, &s), size);
}

/* Write a capture by hand through libpcap: linktype, and records whose
 * caplen/len the test chooses. */
static void write_raw(const char *file, int dlt, const uint32_t *caplen, const uint32_t *len, unsigned n)
{
	static uint8_t data[20000];
	pcap_t *d = pcap_open_dead(dlt, 65535);
	pcap_dumper_t *w = pcap_dump_open(d, file);

	cr_assert_not_null(w, "%s", pcap_geterr(d));
	memset(data, 0xab, sizeof(data));
	for (unsigned i = 0; i < n; i++) {
		struct pcap_pkthdr h = { .caplen = caplen[i], .len = len[i] };

		pcap_dump((u_char *)w, &h, data);
	}
	pcap_dump_close(w);
	pcap_close(d);
}

/* ---- pcap writer and loader ---- */

Test(pcap_io, frames_written_load_back_byte_for_byte_with_nanosecond_times, .init = mkdir_tmp,
     .fini = rm_tmp)
{
	static uint8_t buf[PG_SIZE_MAX];
	static uint8_t want[40][PG_SIZE_MAX];
	unsigned sizes[40];
	struct pg_capture c;
	struct pg_pcap_writer *w;

	/* 1 GHz "TSC": a cycle is a nanosecond. */
	w = pg_pcap_writer_open(path("a.pcap"), 1000000000ull, 5000, err, sizeof(err));
	cr_assert_not_null(w, "%s", err);
	for (unsigned i = 0; i < 40; i++) {
		sizes[i] = i == 0 ? 60 : i == 1 ? PG_SIZE_MAX : 84 + 211 * i;
		frame(buf, sizes[i], i, i & 1, i & 2);
		memcpy(want[i], buf, sizes[i]);
		pg_pcap_write(w, buf, sizes[i], 5000 + 1234 * i);
	}
	cr_assert_eq(pg_pcap_writer_frames(w), 40);
	cr_assert_eq(pg_pcap_writer_close(w, err, sizeof(err)), 0, "%s", err);

	cr_assert_eq(pg_capture_load(&c, path("a.pcap"), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.nb, 40);
	cr_assert_eq(c.max_len, PG_SIZE_MAX);
	cr_assert_eq(c.max_len_idx, 1);
	for (unsigned i = 0; i < 40; i++) {
		cr_assert_eq(c.len[i], sizes[i]);
		cr_assert_eq(memcmp(c.data + c.off[i], want[i], sizes[i]), 0, "frame %u differs", i);
	}
	/* The largest L3 size: frame 1 (IPv6, untagged), 9000 - 14. */
	cr_assert_eq(c.mtu_needed, PG_SIZE_MAX - 14);
	pg_capture_free(&c);

	/* The file says nanoseconds, and the times step by the TSC deltas. */
	char e[PCAP_ERRBUF_SIZE];
	pcap_t *p = pcap_open_offline_with_tstamp_precision(path("a.pcap"), PCAP_TSTAMP_PRECISION_NANO, e);
	struct pcap_pkthdr *h;
	const u_char *d;
	uint64_t prev = 0;

	cr_assert_not_null(p, "%s", e);
	cr_assert_eq(pcap_get_tstamp_precision(p), PCAP_TSTAMP_PRECISION_NANO);
	cr_assert_eq(pcap_datalink(p), DLT_EN10MB);
	for (unsigned i = 0; pcap_next_ex(p, &h, &d) == 1; i++) {
		uint64_t ns = (uint64_t)h->ts.tv_sec * 1000000000ull + (uint64_t)h->ts.tv_usec;

		if (i)
			cr_assert_eq(ns - prev, 1234, "frame %u: %" PRIu64 " ns after the one before", i, ns - prev);
		prev = ns;
	}
	pcap_close(p);
}

Test(pcap_io, truncation_removes_the_records_of_frames_never_sent, .init = mkdir_tmp, .fini = rm_tmp)
{
	uint8_t buf[200];
	struct pg_capture c;
	struct pg_pcap_writer *w = pg_pcap_writer_open(path("t.pcap"), 1000000000ull, 0, err, sizeof(err));
	int64_t off = 0;

	cr_assert_not_null(w, "%s", err);
	for (unsigned i = 0; i < 10; i++) {
		if (i == 7)
			off = pg_pcap_writer_tell(w);
		frame(buf, 100 + i, i, false, false);
		pg_pcap_write(w, buf, 100 + i, i);
	}
	cr_assert_eq(off, 24 + 7 * 16 + (100 + 101 + 102 + 103 + 104 + 105 + 106));
	cr_assert_eq(pg_pcap_writer_truncate(w, off, 3), 0);
	cr_assert_eq(pg_pcap_writer_frames(w), 7);
	/* Writing goes on after the cut. */
	frame(buf, 150, 99, false, false);
	pg_pcap_write(w, buf, 150, 20);
	cr_assert_eq(pg_pcap_writer_close(w, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(pg_capture_load(&c, path("t.pcap"), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.nb, 8);
	for (unsigned i = 0; i < 7; i++)
		cr_assert_eq(c.len[i], 100 + i);
	cr_assert_eq(c.len[7], 150);
	pg_capture_free(&c);
}

Test(pcap_io, a_file_that_cannot_be_created_is_refused_with_the_reason)
{
	cr_assert_null(pg_pcap_writer_open("/nonexistent-dir/x.pcap", 1000, 0, err, sizeof(err)));
	cr_assert_eq(errno, ENOENT);
	HAS(err, "/nonexistent-dir/x.pcap");
	HAS(err, "No such file or directory");
}

Test(pcap_io, a_write_that_fails_is_reported_when_the_file_is_closed)
{
	uint8_t buf[1500];
	struct pg_pcap_writer *w = pg_pcap_writer_open("/dev/full", 1000000000ull, 0, err, sizeof(err));

	cr_assert_not_null(w, "%s", err);
	frame(buf, sizeof(buf), 1, false, false);
	for (unsigned i = 0; i < 1000; i++)  /* more than the 1 MiB buffer */
		pg_pcap_write(w, buf, sizeof(buf), i);
	err[0] = '\0';
	cr_assert_eq(pg_pcap_writer_close(w, err, sizeof(err)), -EIO);
	HAS(err, "writing '/dev/full' failed: No space left on device");
}

Test(pcap_io, bad_captures_are_refused_with_the_file_and_the_reason, .init = mkdir_tmp, .fini = rm_tmp)
{
	struct pg_capture c;
	FILE *f;

	/* Missing. */
	cr_assert_eq(pg_capture_load(&c, path("missing.pcap"), err, sizeof(err)), -EINVAL);
	HAS(err, "missing.pcap");
	HAS(err, "No such file");
	/* Not a capture. */
	f = fopen(path("text"), "w");
	fputs("this is not a capture file at all, just some text\n", f);
	fclose(f);
	cr_assert_eq(pg_capture_load(&c, path("text"), err, sizeof(err)), -EINVAL);
	HAS(err, "cannot read capture");
	/* Not Ethernet. */
	uint32_t l60[1] = { 60 };
	write_raw(path("raw.pcap"), DLT_RAW, l60, l60, 1);
	cr_assert_eq(pg_capture_load(&c, path("raw.pcap"), err, sizeof(err)), -EINVAL);
	HAS(err, "raw.pcap");
	HAS(err, "linktype");
	HAS(err, "RAW");
	HAS(err, "only Ethernet");
	/* A frame captured cut short (snap length below the frame). */
	uint32_t cap3[3] = { 60, 60, 60 }, len3[3] = { 60, 100, 60 };
	write_raw(path("cut.pcap"), DLT_EN10MB, cap3, len3, 3);
	cr_assert_eq(pg_capture_load(&c, path("cut.pcap"), err, sizeof(err)), -EINVAL);
	HAS(err, "frame 2 was captured cut short (60 of its 100 bytes");
	/* Too big for any port, and too small to be Ethernet. */
	uint32_t big[2] = { 64, PG_REPLAY_FRAME_MAX + 1 };
	write_raw(path("big.pcap"), DLT_EN10MB, big, big, 2);
	cr_assert_eq(pg_capture_load(&c, path("big.pcap"), err, sizeof(err)), -EINVAL);
	HAS(err, "frame 2 is 16001 bytes");
	uint32_t tiny[1] = { 13 };
	write_raw(path("tiny.pcap"), DLT_EN10MB, tiny, tiny, 1);
	cr_assert_eq(pg_capture_load(&c, path("tiny.pcap"), err, sizeof(err)), -EINVAL);
	HAS(err, "frame 1 is 13 bytes");
	/* No frames. */
	write_raw(path("empty.pcap"), DLT_EN10MB, NULL, NULL, 0);
	cr_assert_eq(pg_capture_load(&c, path("empty.pcap"), err, sizeof(err)), -EINVAL);
	HAS(err, "holds no frames");
	/* Cut off in the middle of its second record. */
	uint32_t two[2] = { 100, 100 };
	write_raw(path("trunc.pcap"), DLT_EN10MB, two, two, 2);
	cr_assert_eq(truncate(path("trunc.pcap"), 24 + 116 + 50), 0);
	cr_assert_eq(pg_capture_load(&c, path("trunc.pcap"), err, sizeof(err)), -EINVAL);
	HAS(err, "unreadable after frame 1");
	/* A tagged frame needs 4 bytes less MTU. */
	uint32_t ok[1] = { 1518 };
	write_raw(path("ok.pcap"), DLT_EN10MB, ok, ok, 1);
	cr_assert_eq(pg_capture_load(&c, path("ok.pcap"), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.mtu_needed, 1504);  /* 0xab bytes: no tag */
	pg_capture_free(&c);
}

/* ---- pacing by each frame's own size ---- */

Test(pcap_io, a_capture_of_more_frames_than_the_limit_is_refused_naming_it, .init = mkdir_tmp, .fini = rm_tmp)
{
	struct pg_capture c;
	struct pg_pcap_writer *w = pg_pcap_writer_open(path("many.pcap"), 1000000000ull, 0, err, sizeof(err));
	uint8_t f[60];
	FILE *in;

	cr_assert_not_null(w, "%s", err);
	frame(f, sizeof(f), 0, false, false);
	for (unsigned i = 0; i < 11; i++)
		pg_pcap_write(w, f, sizeof(f), i);
	cr_assert_eq(pg_pcap_writer_close(w, err, sizeof(err)), 0, "%s", err);
	/* Eleven frames against a limit of ten: refused, nothing kept. */
	in = fopen(path("many.pcap"), "rb");
	cr_assert_not_null(in);
	cr_assert_eq(pg_capture_load_file_limit(&c, in, "many.pcap", 10, err, sizeof(err)), -EINVAL,
		     "loaded %u frames past a limit of 10", c.nb);
	HAS(err, "capture 'many.pcap' holds more than 10 frames");
	HAS(err, "at most 10");
	cr_assert_eq(c.nb, 0);
	cr_assert_null(c.data);
	/* Exactly at the limit: loaded whole. */
	in = fopen(path("many.pcap"), "rb");
	cr_assert_not_null(in);
	cr_assert_eq(pg_capture_load_file_limit(&c, in, "many.pcap", 11, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(c.nb, 11);
	pg_capture_free(&c);
	/* The limit of --replay keeps every frame number and the index's
	 * doubling far from 32-bit wrap-around. */
	cr_assert_leq((uint64_t)PG_REPLAY_FRAMES_MAX * 2, UINT32_MAX);
}

Test(replay_pacing, each_frame_advances_the_deadline_by_its_own_bits)
{
	const unsigned sizes[] = { 60, 1514, 60, 42, 9000, 200, 1514 };
	const uint64_t hz = 3000000000ull;
	struct pg_rate r;
	struct pg_rate_spec l2 = { PG_RATE_BPS_L2, 1e9 }, wire = { PG_RATE_BPS_WIRE, 1e9 };
	double want = 0;

	cr_assert_eq(pg_rate_init(&r, &l2, hz, 0, err, sizeof(err)), 0);
	pg_rate_start(&r, 0);
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		/* 1 Gbit/s at L2: (size, at least 60, + 4) * 8 ns, 3 cycles a ns. */
		unsigned link = sizes[i] < 60 ? 60 : sizes[i];

		pg_rate_sent(&r, sizes[i], (uint64_t)want);   /* sent exactly when due */
		want += (link + 4) * 8 * 3.0;
		cr_assert_float_eq(r.next, want, 1e-6, "after frame %u (%u bytes): deadline %f, want %f",
				   i, sizes[i], r.next, want);
	}
	/* The 9000-byte frame holds the line 9004/64 times as long as a 60-byte one. */
	cr_assert_float_eq(pg_rate_frame_cycles(&r, 9000) / pg_rate_frame_cycles(&r, 60), 9004.0 / 64,
			   1e-9);
	/* A 42-byte frame is padded to 60 on the link: same bits. */
	cr_assert_eq(pg_l2_bits(42), pg_l2_bits(60));
	cr_assert_eq(pg_wire_bits(42), 84 * 8);
	cr_assert_eq(pg_link_bytes(42), 60);
	cr_assert_eq(pg_link_bytes(61), 61);
	/* On the wire each frame counts 20 bytes more. */
	pg_rate_init(&r, &wire, hz, 0, err, sizeof(err));
	cr_assert_float_eq(pg_rate_frame_cycles(&r, 1514), (1514 + 24) * 8 * 3.0, 1e-6);
	cr_assert_float_eq(pg_rate_frame_cycles(&r, 60), 84 * 8 * 3.0, 1e-6);
}

Test(replay_pacing, a_mix_of_sizes_is_not_paced_as_its_average)
{
	/* Two big frames then two small ones, in simulated time: the small ones
	 * follow at their own spacing, not at the average's. */
	const uint64_t hz = 1000000000ull;  /* a cycle is a ns */
	struct pg_rate r;
	struct pg_rate_spec s = { PG_RATE_BPS_L2, 1e9 };
	unsigned sizes[4] = { 1496, 1496, 60, 60 };
	uint64_t due[4], now = 0;

	pg_rate_init(&r, &s, hz, 0, err, sizeof(err));
	pg_rate_start(&r, 0);
	for (unsigned i = 0; i < 4; i++) {
		while (!pg_rate_due(&r, now))
			now++;
		due[i] = now;
		pg_rate_sent(&r, sizes[i], now);
	}
	cr_assert_eq(due[0], 0);
	cr_assert_eq(due[1], 1500 * 8);             /* 12000 ns after the first */
	cr_assert_eq(due[2], 2 * 1500 * 8);
	cr_assert_eq(due[3] - due[2], 64 * 8, "the small frame waited %" PRIu64 " ns", due[3] - due[2]);
}

/* ---- csv ---- */

static char *csv_of(void (*fn)(FILE *))
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	cr_assert_not_null(f);
	fn(f);
	fclose(f);
	return buf;
}

static void csv_header_only(FILE *f)
{
	pg_csv_header(f);
}

static void csv_two_rows(FILE *f)
{
	static struct pg_hist h;
	struct pg_csv_sample a = { .t_ns = 1000000000ull, .tx_frames = 100, .tx_bytes = 6000,
				   .rx_frames = 90, .rx_bytes = 5400, .lost = 1, .no_stamp = 2 };
	struct pg_csv_sample b = { .t_ns = 1500000000ull, .tx_frames = 1100, .tx_bytes = 66000,
				   .rx_frames = 1090, .rx_bytes = 65400, .lost = 3, .no_stamp = 7 };

	pg_hist_init(&h);
	for (uint64_t v = 1; v <= 100; v++)
		pg_hist_add(&h, v * 10);
	pg_csv_row(f, &a, &b, &h);
	pg_hist_init(&h);
	pg_csv_row(f, &b, &b, &h);   /* empty interval: no row */
	b.t_ns += 250000000ull;
	pg_csv_row(f, &a, &b, &h);   /* no latency samples: blank columns */
}

Test(csv, header_names_every_column)
{
	const char *s = csv_of(csv_header_only);

	cr_assert_str_eq(s, "time_s,interval_s,tx_frames,tx_pps,tx_l2_bps,tx_wire_bps,rx_frames,rx_pps,"
			    "rx_l2_bps,lost,no_stamp,lat_samples,lat_min_ns,lat_p50_ns,lat_p99_ns,lat_max_ns\n");
}

Test(csv, a_row_is_the_interval_delta_over_measured_time)
{
	const char *s = csv_of(csv_two_rows);
	char want[512];

	/* 1000 frames of 60 bytes in 0.5 s: 2000 pps; (60000 + 4*1000)*8/0.5;
	 * (60000 + 24*1000)*8/0.5. Latency 10..1000: p50 500, p99 990 (within
	 * their buckets: 500 is in [496, 511], 990 in [960, 991]). */
	snprintf(want, sizeof(want), "1.500000,0.500000,1000,2000.0,1024000.0,1344000.0,1000,2000.0,1024000.0,3,5,100,10,");
	cr_assert_eq(strncmp(s, want, strlen(want)), 0, "got:\n%s\nwant prefix:\n%s", s, want);
	uint64_t p50, p99, max;

	cr_assert_eq(sscanf(s + strlen(want), "%" SCNu64 ",%" SCNu64 ",%" SCNu64 "\n", &p50, &p99, &max), 3, "%s", s);
	cr_assert(p50 >= 500 && p50 <= 511, "p50 %" PRIu64, p50);
	cr_assert(p99 >= 990 && p99 <= 991, "p99 %" PRIu64, p99);
	cr_assert_eq(max, 1000);
	/* The second row (0.75 s, no samples). */
	const char *r2 = strchr(s, '\n') + 1;

	cr_assert_str_eq(r2, "1.750000,0.750000,1000,1333.3,682666.7,896000.0,1000,1333.3,682666.7,3,5,0,,,,\n");
}

/* ---- options ---- */

static int parse(struct pg_opts *o, const char *line)
{
	return pg_test_parse(o, line, err, sizeof(err));
}

Test(pktgen_opts, file_options_are_taken_and_conflicts_refused)
{
	struct pg_opts o;

	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --write-tx a.pcap --write-rx=b.pcap --csv - --rate 1Gbps"), 0, "%s", err);
	cr_assert_str_eq(o.write_tx, "a.pcap");
	cr_assert_str_eq(o.write_rx, "b.pcap");
	cr_assert_str_eq(o.csv, "-");
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --replay in.pcap --count 5 --rate 10Mbps-wire"), 0, "%s", err);
	cr_assert_str_eq(o.replay, "in.pcap");
	cr_assert_null(o.gen_opt);

	struct {
		const char *line, *want[2];
	} bad[] = {
		{ "--tx-port 0 --rx-port 1 --replay in.pcap --sizes 64,128", { "--sizes", "no effect with --replay" } },
		{ "--tx-port 0 --rx-port 1 --vlan 3 --replay in.pcap", { "--vlan", "no effect with --replay" } },
		{ "--tx-port 0 --rx-port 1 --csv - --json", { "--csv -", "stdout" } },
		{ "--tx-port 0 --rx-port 1 --replay x.pcap --write-tx x.pcap", { "--write-tx and --replay", "'x.pcap'" } },
		{ "--tx-port 0 --rx-port 1 --write-tx y --write-rx y", { "--write-tx and --write-rx", "own file" } },
		{ "--tx-port 0 --rx-port 1 --replay z --csv z", { "--replay and --csv", "own file" } },
		{ "--tx-port 0 --rx-port 1 --csv=", { "--csv", "empty file name" } },
		{ "--tx-port 0 --rx-port 1 --replay", { "--replay", "missing value" } },
	};

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(parse(&o, bad[i].line), -EINVAL, "accepted: %s", bad[i].line);
		HAS(err, bad[i].want[0]);
		HAS(err, bad[i].want[1]);
	}
}

Test(pktgen_opts, two_spellings_of_one_file_are_refused, .init = mkdir_tmp, .fini = rm_tmp)
{
	char line[512], a[160], b[160];
	struct pg_opts o;
	FILE *f;

	/* Not there yet: ./x and x, and a name through a directory and back. */
	cr_assert_eq(mkdir(path("sub"), 0700), 0);
	snprintf(a, sizeof(a), "%s/./new.pcap", dir);
	snprintf(b, sizeof(b), "%s/sub/../new.pcap", dir);
	snprintf(line, sizeof(line), "--tx-port 0 --rx-port 1 --write-tx %s --write-rx %s", a, b);
	cr_assert_eq(parse(&o, line), -EINVAL, "accepted: %s", line);
	HAS(err, "options --write-tx and --write-rx");
	HAS(err, "name the same file");
	HAS(err, a);
	HAS(err, b);
	/* A relative and an absolute spelling of a file in the working directory. */
	cr_assert_eq(chdir(dir), 0);
	snprintf(line, sizeof(line), "--tx-port 0 --rx-port 1 --write-tx ./rel.pcap --csv %s/rel.pcap", dir);
	cr_assert_eq(parse(&o, line), -EINVAL, "accepted: %s", line);
	HAS(err, "--write-tx and --csv");
	cr_assert_eq(chdir("/"), 0);
	/* An existing capture through a hard link and through a symbolic link:
	 * writing either would truncate what --replay reads. */
	f = fopen(path("in.pcap"), "w");
	cr_assert_not_null(f);
	fclose(f);
	cr_assert_eq(link(path("in.pcap"), path("hard.pcap")), 0);
	cr_assert_eq(symlink(path("in.pcap"), path("soft.pcap")), 0);
	snprintf(line, sizeof(line), "--tx-port 0 --rx-port 1 --replay %s --write-rx %s", path("in.pcap"),
		 path("hard.pcap"));
	cr_assert_eq(parse(&o, line), -EINVAL, "accepted: %s", line);
	HAS(err, "--write-rx and --replay");
	snprintf(line, sizeof(line), "--tx-port 0 --rx-port 1 --replay %s --write-tx %s", path("soft.pcap"),
		 path("in.pcap"));
	cr_assert_eq(parse(&o, line), -EINVAL, "accepted: %s", line);
	/* A dangling link: writing through it creates its target. */
	cr_assert_eq(symlink("target.pcap", path("dangling.pcap")), 0);
	snprintf(line, sizeof(line), "--tx-port 0 --rx-port 1 --write-tx %s --write-rx %s", path("dangling.pcap"),
		 path("target.pcap"));
	cr_assert_eq(parse(&o, line), -EINVAL, "accepted: %s", line);
	/* Different files, and devices (both to /dev/null is fine), are fine. */
	snprintf(line, sizeof(line), "--tx-port 0 --rx-port 1 --write-tx %s --write-rx %s --csv %s", path("new.pcap"),
		 path("sub/new.pcap"), path("hard"));
	cr_assert_eq(parse(&o, line), 0, "%s", err);
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --write-tx /dev/null --write-rx /dev/null"), 0, "%s", err);
}

/* ---- the fuzz seed corpus ---- */

Test(fuzz_seeds, seed_corpus_is_what_the_builder_makes_and_parses)
{
	const char *src = getenv("UNIC_FUZZ_CORPUS");

	cr_assert_not_null(src, "UNIC_FUZZ_CORPUS is not set: run this test through meson test");
	for (unsigned i = 0; i < sizeof(pg_seeds) / sizeof(pg_seeds[0]); i++) {
		static uint8_t want[2000], got[2100];
		char p[512];
		unsigned n = pg_seed_build(&pg_seeds[i], want);
		FILE *f;
		size_t k;
		struct pg_parsed pp;

		snprintf(p, sizeof(p), "%s/%s", src, pg_seeds[i].name);
		f = fopen(p, "rb");
		cr_assert_not_null(f, "%s: %s", p, strerror(errno));
		k = fread(got, 1, sizeof(got), f);
		fclose(f);
		cr_assert_eq(k, n, "%s: %zu bytes, the builder makes %u", p, k, n);
		cr_assert_eq(memcmp(got, want, n), 0, "%s differs from what the builder makes", p);
		cr_assert_eq(pg_frame_parse(got, k, &pp), PG_PARSE_OK, "%s", p);
		cr_assert_eq(pp.stamp.seq, 41);
	}
}

Test(fuzz_seeds, capture_seeds_load_as_pcap_and_pcapng_with_the_frame_seeds)
{
	const char *src = getenv("UNIC_FUZZ_CORPUS");
	struct {
		const char *file;
		unsigned nb;
		const char *frames[2];
	} caps[] = {
		{ "usec-ipv4-vlan.pcap", 2, { "ipv4-60", "ipv4-vlan-64" } },
		{ "nsec-ipv6.pcap", 1, { "ipv6-80" } },
		{ "pcapng-vlan.pcapng", 1, { "ipv4-vlan-64" } },
	};

	cr_assert_not_null(src, "UNIC_FUZZ_CORPUS is not set: run this test through meson test");
	for (unsigned i = 0; i < sizeof(caps) / sizeof(caps[0]); i++) {
		char p[512];
		struct pg_capture c;

		snprintf(p, sizeof(p), "%s/../fuzz_pktgen_pcap/%s", src, caps[i].file);
		cr_assert_eq(pg_capture_load(&c, p, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(c.nb, caps[i].nb, "%s", p);
		for (unsigned k = 0; k < c.nb; k++) {
			static uint8_t want[2000];
			unsigned n = 0;

			for (unsigned j = 0; j < sizeof(pg_seeds) / sizeof(pg_seeds[0]); j++)
				if (strcmp(pg_seeds[j].name, caps[i].frames[k]) == 0)
					n = pg_seed_build(&pg_seeds[j], want);
			cr_assert_eq(c.len[k], n, "%s frame %u", p, k);
			cr_assert_eq(memcmp(c.data + c.off[k], want, n), 0, "%s frame %u", p, k);
		}
		pg_capture_free(&c);
	}
}

/* ---- the binary ---- */

static char out[65536];

static int run(const char *args)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "%s %s", binary_path("UNIC_PKTGEN"), args);
	return binary_run(cmd, out, sizeof(out));
}

#define RING2 "--no-pci --no-huge --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "

static void load(struct pg_capture *c, const char *file)
{
	cr_assert_eq(pg_capture_load(c, file, err, sizeof(err)), 0, "%s", err);
}

static void same_frames(const struct pg_capture *a, const struct pg_capture *b, uint32_t nb)
{
	cr_assert_eq(b->nb, nb);
	for (uint32_t i = 0; i < nb; i++) {
		uint32_t k = i % a->nb;

		cr_assert_eq(b->len[i], a->len[k], "frame %u: %u bytes, want %u", i, b->len[i], a->len[k]);
		cr_assert_eq(memcmp(b->data + b->off[i], a->data + a->off[k], a->len[k]), 0,
			     "frame %u differs", i);
	}
}

Test(pktgen_bin_io, frames_written_on_both_sides_and_replayed_match_byte_for_byte, .init = mkdir_tmp,
     .fini = rm_tmp)
{
	char args[1024];
	struct pg_capture tx, rx, re;

	snprintf(args, sizeof(args), RING2 "--count 3000 --sizes 64,1500,333,9000 --vlan 5 --src-ip 10.0.0.1-10.0.0.7 "
		 "--write-tx %s --write-rx %s --json 2>&1", path("tx.pcap"), path("rx.pcap"));
	cr_assert_eq(run(args), 0, "%s", out);
	HAS(out, "\"sent\":3000");
	HAS(out, "\"received\":3000");
	HAS(out, "\"write_tx_frames\":3000");
	HAS(out, "\"write_rx_frames\":3000");
	load(&tx, path("tx.pcap"));
	load(&rx, path("rx.pcap"));
	same_frames(&tx, &rx, 3000);
	/* What was written is what was built: stamped, in order, the sizes cycled. */
	for (uint32_t i = 0; i < tx.nb; i++) {
		struct pg_parsed p;
		const unsigned sz[4] = { 64, 1500, 333, 9000 };

		cr_assert_eq(tx.len[i], sz[i % 4]);
		cr_assert_eq(pg_frame_parse(tx.data + tx.off[i], tx.len[i], &p), PG_PARSE_OK, "frame %u", i);
		cr_assert_eq(p.stamp.seq, i);
		cr_assert(p.vlan);
	}
	/* Replayed at a rate, through the ring pair, written on the rx side. */
	snprintf(args, sizeof(args), RING2 "--replay %s --rate 2Gbps --write-rx %s --json 2>&1", path("tx.pcap"),
		 path("re.pcap"));
	cr_assert_eq(run(args), 0, "%s", out);
	HAS(out, "\"sent\":3000");
	HAS(out, "\"received\":3000");
	HAS(out, "\"replay\":{\"frames\":3000");
	load(&re, path("re.pcap"));
	same_frames(&tx, &re, 3000);
	pg_capture_free(&tx);
	pg_capture_free(&rx);
	pg_capture_free(&re);
}

Test(pktgen_bin_io, count_beyond_the_capture_loops_over_it, .init = mkdir_tmp, .fini = rm_tmp)
{
	char args[1024];
	struct pg_capture a, b;

	snprintf(args, sizeof(args), RING2 "--count 7 --size-range 60-66 --write-tx %s --json 2>&1", path("a.pcap"));
	cr_assert_eq(run(args), 0, "%s", out);
	snprintf(args, sizeof(args), RING2 "--replay %s --count 25 --write-rx %s --json 2>&1", path("a.pcap"),
		 path("b.pcap"));
	cr_assert_eq(run(args), 0, "%s", out);
	HAS(out, "\"sent\":25");
	HAS(out, "\"received\":25");
	HAS(out, "\"lost\":0");
	load(&a, path("a.pcap"));
	load(&b, path("b.pcap"));
	same_frames(&a, &b, 25);
	pg_capture_free(&a);
	pg_capture_free(&b);
}

Test(pktgen_bin_io, replay_errors_are_messages_with_exit_2, .init = mkdir_tmp, .fini = rm_tmp)
{
	char args[1024];
	uint32_t big[2] = { 1500, 9300 };

	snprintf(args, sizeof(args), RING2 "--replay %s 2>&1", path("nope.pcap"));
	cr_assert_eq(run(args), 2, "%s", out);
	HAS(out, "option --replay");
	HAS(out, "nope.pcap");
	HAS(out, "No such file");
	/* 9300 bytes is more than the ring port's MTU 9216 allows (9286 untagged). */
	write_raw(path("big.pcap"), DLT_EN10MB, big, big, 2);
	snprintf(args, sizeof(args), RING2 "--replay %s 2>&1", path("big.pcap"));
	cr_assert_eq(run(args), 2, "%s", out);
	HAS(out, "frame 2 of");
	HAS(out, "is 9300 bytes (MTU 9286)");
	HAS(out, "port 0 (ring0) allows an MTU of at most 9216");
	cr_assert_null(strstr(out, "sent "), "%s", out);
	/* A file that cannot be created, one that cannot be written. */
	cr_assert_eq(run(RING2 "--count 1 --write-rx /nonexistent-dir/x.pcap 2>&1"), 2, "%s", out);
	HAS(out, "option --write-rx: cannot create '/nonexistent-dir/x.pcap'");
	cr_assert_eq(run(RING2 "--count 1000 --size 1500 --write-tx /dev/full 2>&1"), 1, "%s", out);
	HAS(out, "stream 0: received 1000, lost 0");
	HAS(out, "option --write-tx: writing '/dev/full' failed: No space left on device");
}

Test(pktgen_bin_io, a_stalled_port_leaves_no_record_of_frames_it_never_took, .init = mkdir_tmp,
     .fini = rm_tmp)
{
	char args[1024];
	struct pg_capture c;

	/* A ring port without a peer takes nothing: the 10 frames were built and
	 * recorded, never sent; the run stops and cuts their records off. */
	snprintf(args, sizeof(args), "--no-pci --no-huge --vdev ring0 --tx-port 0 --rx-port 0 --count 10 --write-tx %s 2>&1",
		 path("s.pcap"));
	cr_assert_eq(run(args), 1, "%s", out);
	HAS(out, "took no frame");
	HAS(out, "pcap: 0 frames sent written to");
	cr_assert_eq(pg_capture_load(&c, path("s.pcap"), err, sizeof(err)), -EINVAL);
	HAS(err, "holds no frames");
}

Test(pktgen_bin_io, csv_rows_add_up_to_the_report, .init = mkdir_tmp, .fini = rm_tmp)
{
	char args[1024], line[512];
	uint64_t sent = 0, rx = 0, rows = 0, lat = 0;
	FILE *f;

	snprintf(args, sizeof(args), RING2 "--duration 2.2 --rate 20kpps --csv %s --json 2>&1", path("s.csv"));
	cr_assert_eq(run(args), 0, "%s", out);
	f = fopen(path("s.csv"), "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof(line), f));
	HAS(line, "time_s,interval_s,tx_frames,");
	while (fgets(line, sizeof(line), f)) {
		uint64_t txf, rxf, lost, nostamp, samples;
		double t, dt, pps, l2, wire, rpps, rl2;
		unsigned commas = 0;

		for (char *c = line; *c; c++)
			commas += *c == ',';
		cr_assert_eq(commas, 15, "%s", line);
		cr_assert_eq(sscanf(line, "%lf,%lf,%" SCNu64 ",%lf,%lf,%lf,%" SCNu64 ",%lf,%lf,%" SCNu64 ",%" SCNu64 ",%" SCNu64,
				    &t, &dt, &txf, &pps, &l2, &wire, &rxf, &rpps, &rl2, &lost, &nostamp, &samples), 12, "%s", line);
		cr_assert(dt > 0 && dt < 1.5, "%s", line);
		cr_assert_float_eq(pps, txf / dt, 0.06 + pps * 1e-5 / dt, "%s", line);  /* dt printed to 1 us */
		cr_assert_eq(lost, 0, "%s", line);
		cr_assert_eq(samples, rxf, "%s", line);   /* every frame stamped */
		sent += txf;
		rx += rxf;
		lat += samples;
		rows++;
	}
	fclose(f);
	cr_assert(rows >= 3, "%" PRIu64 " rows: 2.2 s is two whole seconds and a part", rows);
	cr_assert_eq(sent, strtoull(strstr(out, "\"sent\":") + 7, NULL, 10), "%s", out);
	cr_assert_eq(rx, strtoull(strstr(out, "\"received\":") + 11, NULL, 10), "%s", out);
	cr_assert_eq(lat, rx);
	/* With "-", stdout is the CSV alone; the report goes to stderr. */
	cr_assert_eq(run(RING2 "--count 100 --csv - 2>/dev/null"), 0, "%s", out);
	cr_assert_eq(strncmp(out, "time_s,", 7), 0, "%s", out);
	cr_assert_null(strstr(out, "tx port"), "%s", out);
	cr_assert_eq(run(RING2 "--count 100 --csv - 2>&1 >/dev/null"), 0, "%s", out);
	HAS(out, "stream 0: received 100, lost 0");
}
