/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen streams: the --stream grammar and the stream file (every key,
 * every refusal naming the key, the value and the line), the TCP and ICMP
 * echo builders against an independent RFC 1071 sum, the parser on them,
 * per-stream receive accounting, and the binary (UNIC_PKTGEN) running
 * several streams over ring pairs, each accounted apart, the totals their
 * sum, nothing lost.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "arp.h"
#include "pkt_build.h"
#include "pkt_parse.h"
#include "pktgen_opts.h"
#include "pktgen_test_opts.h"
#include "rxstats.h"
#include "stream.h"
#include "stream_report.h"
#include "port_fixture.h"
#include "run_binary.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))

static char err[1024];

/* ---- an independent checksum: RFC 1071 section 4.1, over parts ---- */

static uint16_t ref_cksum(const uint8_t *const *parts, const size_t *lens, unsigned n)
{
	uint32_t sum = 0;
	unsigned k;
	size_t i;
	uint8_t b[2];
	unsigned nb = 0;

	for (k = 0; k < n; k++)
		for (i = 0; i < lens[k]; i++) {
			b[nb++] = parts[k][i];
			if (nb == 2) {
				sum += (uint32_t)b[0] << 8 | b[1];
				nb = 0;
			}
		}
	if (nb)
		sum += (uint32_t)b[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The pseudo-header (RFC 768 / RFC 8200 8.1) for L4 @p len bytes, IP
 * protocol @p proto, under the IP header @p ip. @return its length. */
static size_t pseudo(uint8_t *ph, const uint8_t *ip, bool v6, uint8_t proto, size_t len)
{
	memset(ph, 0, 40);
	if (!v6) {
		memcpy(ph, ip + 12, 8);
		ph[9] = proto;
		ph[10] = (uint8_t)(len >> 8);
		ph[11] = (uint8_t)len;
		return 12;
	}
	memcpy(ph, ip + 8, 32);
	ph[34] = (uint8_t)(len >> 8);
	ph[35] = (uint8_t)len;
	ph[39] = proto;
	return 40;
}

static struct pg_frame_tmpl tmpl(bool v6, bool vlan, uint8_t proto)
{
	struct pg_frame_tmpl t = { .dst_mac = { 2, 0, 0, 0, 0, 1 }, .src_mac = { 2, 0, 0, 0, 0, 2 },
				   .ipv6 = v6, .vlan = vlan, .vlan_tci = 7, .ttl = 64, .proto = proto };
	return t;
}

static struct pg_flow flow(bool v6)
{
	struct pg_flow f = { .src_port = 4321, .dst_port = 80 };

	if (v6) {
		f.src_ip[0] = f.dst_ip[0] = 0xfd;
		f.src_ip[15] = 1;
		f.dst_ip[15] = 2;
	} else {
		memcpy(f.src_ip, (uint8_t[]){ 10, 0, 0, 1 }, 4);
		memcpy(f.dst_ip, (uint8_t[]){ 10, 9, 8, 7 }, 4);
	}
	return f;
}

static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
static uint32_t be32(const uint8_t *p) { return (uint32_t)be16(p) << 16 | be16(p + 2); }

/* ---- builders ---- */

Test(pkt_build_l4, tcp_segments_carry_the_stamp_after_a_20_byte_header_with_a_correct_checksum)
{
	static uint8_t buf[PG_SIZE_MAX], u[PG_SIZE_MAX];

	for (int v6 = 0; v6 < 2; v6++)
		for (int vlan = 0; vlan < 2; vlan++)
			for (unsigned size = pg_frame_min_size_proto(v6, vlan, PG_PROTO_TCP); size < 1600; size += 377) {
				struct pg_frame_tmpl t = tmpl(v6, vlan, PG_PROTO_TCP);
				struct pg_flow f = flow(v6);
				struct pg_stamp s = { PG_STAMP_MAGIC, 9, 0x01020304, 0x1122334455667788ull };
				unsigned l3 = 14 + (vlan ? 4 : 0), l4 = l3 + (v6 ? 40 : 20);
				const uint8_t *ip = buf + l3, *tcp = buf + l4;
				size_t len = size - l4, pl;
				uint8_t ph[40];
				struct pg_parsed pp;

				cr_assert_eq(pg_frame_build(buf, size, &t, &f, &s), size);
				cr_assert_eq(v6 ? ip[6] : ip[9], 6, "IP protocol TCP");
				cr_assert_eq(be16(tcp), 4321);
				cr_assert_eq(be16(tcp + 2), 80);
				cr_assert_eq(be32(tcp + 4), 0x01020304, "sequence number = the stamp's");
				cr_assert_eq(tcp[12] >> 4, 5, "data offset: 20 bytes, no options");
				cr_assert_eq(tcp[13], 0x18, "PSH|ACK");
				cr_assert_eq(be32(tcp + 20), PG_STAMP_MAGIC, "the stamp follows the header");
				cr_assert_eq(be16(tcp + 24), 9);
				cr_assert_eq(be32(tcp + 26), 0x01020304);
				pl = pseudo(ph, ip, v6, 6, len);
				memcpy(u, tcp, len);
				u[16] = u[17] = 0;
				{
					const uint8_t *parts[] = { ph, u };
					size_t lens[] = { pl, len };

					cr_assert_eq(be16(tcp + 16), ref_cksum(parts, lens, 2),
						     "TCP checksum size %u v6 %d vlan %d", size, v6, vlan);
				}
				cr_assert_eq(pg_frame_parse(buf, size, &pp), PG_PARSE_OK);
				cr_assert_eq(pp.proto, PG_PROTO_TCP);
				cr_assert_eq(pp.stamp.stream, 9);
				cr_assert_eq(pp.stamp.seq, 0x01020304);
				cr_assert_eq(pp.stamp.tsc, 0x1122334455667788ull);
				cr_assert_eq(pp.stamp_off, l4 + 20);
			}
}

Test(pkt_build_l4, icmp_echo_requests_carry_the_stamp_with_the_checksum_of_their_family)
{
	static uint8_t buf[PG_SIZE_MAX], u[PG_SIZE_MAX];

	for (int v6 = 0; v6 < 2; v6++)
		for (int vlan = 0; vlan < 2; vlan++)
			for (unsigned size = pg_frame_min_size_proto(v6, vlan, PG_PROTO_ICMP); size < 1600; size += 411) {
				struct pg_frame_tmpl t = tmpl(v6, vlan, PG_PROTO_ICMP);
				struct pg_flow f = flow(v6);
				struct pg_stamp s = { PG_STAMP_MAGIC, 0x4242, 0x10002, 77 };
				unsigned l3 = 14 + (vlan ? 4 : 0), l4 = l3 + (v6 ? 40 : 20);
				const uint8_t *ip = buf + l3, *ic = buf + l4;
				size_t len = size - l4, pl = 0;
				uint8_t ph[40];
				struct pg_parsed pp;

				cr_assert_eq(pg_frame_build(buf, size, &t, &f, &s), size);
				cr_assert_eq(v6 ? ip[6] : ip[9], v6 ? 58 : 1, "ICMPv6 / ICMP");
				cr_assert_eq(ic[0], v6 ? 128 : 8, "echo request");
				cr_assert_eq(ic[1], 0);
				cr_assert_eq(be16(ic + 4), 0x4242, "identifier = stream id");
				cr_assert_eq(be16(ic + 6), 0x0002, "sequence = low 16 bits");
				cr_assert_eq(be32(ic + 8), PG_STAMP_MAGIC);
				/* ICMPv4: the message alone (RFC 792); ICMPv6 with
				 * the pseudo-header (RFC 4443 2.3). */
				if (v6)
					pl = pseudo(ph, ip, true, 58, len);
				memcpy(u, ic, len);
				u[2] = u[3] = 0;
				{
					const uint8_t *parts[] = { ph, u };
					size_t lens[] = { pl, len };

					cr_assert_eq(be16(ic + 2), ref_cksum(parts, lens, 2),
						     "ICMP checksum size %u v6 %d vlan %d", size, v6, vlan);
				}
				cr_assert_eq(pg_frame_parse(buf, size, &pp), PG_PARSE_OK);
				cr_assert_eq(pp.proto, PG_PROTO_ICMP);
				cr_assert_eq(pp.stamp.stream, 0x4242);
				cr_assert_eq(pp.stamp.seq, 0x10002);
			}
}

Test(pkt_build_l4, smallest_sizes_follow_the_header_lengths)
{
	cr_assert_eq(pg_frame_min_size_proto(false, false, PG_PROTO_TCP), 72);
	cr_assert_eq(pg_frame_min_size_proto(false, true, PG_PROTO_TCP), 76);
	cr_assert_eq(pg_frame_min_size_proto(true, false, PG_PROTO_TCP), 92);
	cr_assert_eq(pg_frame_min_size_proto(false, false, PG_PROTO_ICMP), 60);
	cr_assert_eq(pg_frame_min_size_proto(true, true, PG_PROTO_ICMP), 84);
	cr_assert_eq(pg_frame_min_size_proto(false, false, PG_PROTO_UDP), 60);
}

Test(pkt_parse_l4, damaged_tcp_and_icmp_frames_are_told_apart)
{
	static uint8_t buf[256];
	struct pg_frame_tmpl t = tmpl(false, false, PG_PROTO_TCP);
	struct pg_flow f = flow(false);
	struct pg_stamp s = { PG_STAMP_MAGIC, 1, 2, 3 };
	struct pg_parsed pp;

	cr_assert_eq(pg_frame_build(buf, 100, &t, &f, &s), 100);
	buf[14 + 20 + 30] ^= 1;  /* a payload bit */
	cr_assert_eq(pg_frame_parse(buf, 100, &pp), PG_PARSE_BAD_CSUM);
	pg_frame_build(buf, 100, &t, &f, &s);
	buf[14 + 20 + 12] = 0xf0;  /* data offset 60 bytes: past the 66-byte segment? no: fits */
	cr_assert_eq(pg_frame_parse(buf, 100, &pp), PG_PARSE_BAD_CSUM);
	buf[14 + 20 + 12] = 0x40;  /* 16 bytes: under the minimum header */
	cr_assert_eq(pg_frame_parse(buf, 100, &pp), PG_PARSE_BAD_LEN);
	pg_frame_build(buf, 72, &t, &f, &s);
	buf[14 + 20 + 12] = 0xf0;  /* 60 bytes of header in a 38-byte segment */
	cr_assert_eq(pg_frame_parse(buf, 72, &pp), PG_PARSE_BAD_LEN);

	t.proto = PG_PROTO_ICMP;
	pg_frame_build(buf, 100, &t, &f, &s);
	buf[14 + 20] = 0;  /* an echo reply: not what pktgen sends */
	cr_assert_eq(pg_frame_parse(buf, 100, &pp), PG_PARSE_NOT_UDP);
	pg_frame_build(buf, 100, &t, &f, &s);
	buf[14 + 20 + 8] ^= 0xff;  /* the magic, checksum fixed up: no stamp */
	buf[14 + 20 + 2] = buf[14 + 20 + 3] = 0;
	{
		uint16_t c = pg_icmp_csum(buf + 14, false, buf + 34, 66);

		buf[14 + 20 + 2] = (uint8_t)(c >> 8);
		buf[14 + 20 + 3] = (uint8_t)c;
	}
	cr_assert_eq(pg_frame_parse(buf, 100, &pp), PG_PARSE_NO_STAMP);
	for (unsigned n = 0; n < 100; n++) {  /* truncated: never past the frame */
		pg_frame_build(buf, 100, &t, &f, &s);
		cr_assert_neq(pg_frame_parse(buf, n, &pp), PG_PARSE_OK, "cut at %u", n);
	}
}

/* ---- the grammar ---- */

Test(stream_spec, every_key_is_taken)
{
	struct pg_stream_spec s;
	uint8_t a[16];

	cr_assert_eq(pg_stream_parse("tx=0,rx=1,size=imix,share=30,proto=udp,vlan=5,src-ip=10.0.0.1-10.0.0.200,"
				     "dst-ip=192.168.1.1,src-port=7,dst-port=1000-1999,src-mac=02:00:00:00:00:0a,"
				     "dst-mac=02-00-00-00-00-0B", &s, "option --stream", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.tx_port, 0);
	cr_assert_eq(s.rx_port, 1);
	cr_assert(s.imix);
	cr_assert_eq(s.nb_sizes, 12);
	cr_assert_float_eq(s.share, 30.0, 1e-9);
	cr_assert(s.vlan);
	cr_assert_eq(s.vid, 5);
	cr_assert_eq(s.src_ip.count, 200);
	pg_ip_at(&s.src_ip, false, 199, a);
	cr_assert_eq(memcmp(a, (uint8_t[]){ 10, 0, 0, 200 }, 4), 0);
	cr_assert_eq(s.dst_port.lo, 1000);
	cr_assert_eq(s.dst_port.count, 1000);
	cr_assert_eq(s.src_port.lo, 7);
	cr_assert(s.src_mac_given && s.dst_mac_given);
	cr_assert_eq(s.dst_mac[5], 0x0b);
	/* IMIX is 7:4:1 of 64/570/1518. */
	unsigned n64 = 0, n570 = 0, n1518 = 0;

	for (unsigned i = 0; i < s.nb_sizes; i++) {
		n64 += s.sizes[i] == 64;
		n570 += s.sizes[i] == 570;
		n1518 += s.sizes[i] == 1518;
	}
	cr_assert(n64 == 7 && n570 == 4 && n1518 == 1);
	cr_assert_float_eq(pg_stream_mean_size(&s), (7 * 64 + 4 * 570 + 1518) / 12.0, 1e-9);

	cr_assert_eq(pg_stream_parse("rx=3,tx=2,proto=tcp,l3=ipv6,size=100/200/300", &s, "x", err, sizeof(err)), 0, "%s", err);
	cr_assert(s.ipv6);
	cr_assert_eq(s.proto, PG_PROTO_TCP);
	cr_assert_eq(s.nb_sizes, 3);
	cr_assert_eq(s.sizes[2], 300);
	cr_assert_eq(s.src_ip.lo[0], 0xfd, "the IPv6 default fd00::1");
	/* The family from an address; a default size of the minimum. */
	cr_assert_eq(pg_stream_parse("tx=0,rx=0,dst-ip=fd00::5-fd00::9,proto=icmp", &s, "x", err, sizeof(err)), 0, "%s", err);
	cr_assert(s.ipv6);
	cr_assert_eq(s.dst_ip.count, 5);
	cr_assert_eq(s.nb_sizes, 1);
	cr_assert_eq(s.sizes[0], 80);
	cr_assert_eq(pg_stream_parse("tx=0,rx=0,size=64-66", &s, "x", err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(s.nb_sizes, 0);
	cr_assert_eq(s.size_lo, 64);
	cr_assert_eq(s.size_hi, 66);
}

Test(stream_spec, malformed_streams_are_refused_naming_the_key_and_the_value)
{
	struct pg_stream_spec s;
	struct {
		const char *spec, *want[3];
	} cases[] = {
		{ "", { "empty stream" } },
		{ "tx=0", { "key rx missing" } },
		{ "rx=0", { "key tx missing" } },
		{ "tx=0,rx=1,colour=red", { "unknown key 'colour'" } },
		{ "tx=0,rx=1,size", { "'size' is not KEY=VALUE" } },
		{ "tx=0,rx=1,=5", { "'=5' is not KEY=VALUE" } },
		{ "tx=0,rx=1,tx=2", { "key tx given twice" } },
		{ "tx=0,rx=1,size=", { "key size", "empty value" } },
		{ "tx=64,rx=1", { "key tx", "'64'", "0 to 63" } },
		{ "tx=0,rx=1,size=59", { "key size", "'59'" } },
		{ "tx=0,rx=1,size=64//128", { "key size", "'64//128'" } },
		{ "tx=0,rx=1,size=300-200", { "key size", "'300-200'", "LO <= HI" } },
		{ "tx=0,rx=1,proto=tcp,vlan=5,size=imix", { "key size", "frame size 64", "minimum is 76" } },
		{ "tx=0,rx=1,proto=tcp,size=71", { "key size", "frame size 71", "IPv4/TCP" } },
		{ "tx=0,rx=1,l3=ipv6,size=79", { "key size", "minimum is 80" } },
		{ "tx=0,rx=1,share=0", { "key share", "'0'" } },
		{ "tx=0,rx=1,share=101", { "key share", "'101'" } },
		{ "tx=0,rx=1,share=x", { "key share", "'x'" } },
		{ "tx=0,rx=1,proto=sctp", { "key proto", "'sctp'", "udp, tcp or icmp" } },
		{ "tx=0,rx=1,l3=ipx", { "key l3", "'ipx'" } },
		{ "tx=0,rx=1,vlan=4096", { "key vlan", "'4096'" } },
		{ "tx=0,rx=1,src-ip=10.0.0.300", { "key src-ip", "'10.0.0.300'" } },
		{ "tx=0,rx=1,src-ip=10.0.0.1,dst-ip=fd00::1", { "key dst-ip", "IPv6 address in an IPv4 stream" } },
		{ "tx=0,rx=1,l3=ipv6,src-ip=10.0.0.1", { "key src-ip", "IPv4 address in an IPv6 stream" } },
		{ "tx=0,rx=1,dst-port=70000", { "key dst-port", "'70000'" } },
		{ "tx=0,rx=1,proto=icmp,dst-port=5", { "src-port/dst-port", "ICMP" } },
		{ "tx=0,rx=1,src-mac=02:00:00:00:00", { "key src-mac", "'02:00:00:00:00'" } },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		cr_assert_eq(pg_stream_parse(cases[i].spec, &s, "option --stream", err, sizeof(err)), -EINVAL,
			     "accepted: %s", cases[i].spec);
		HAS(err, "option --stream: ");
		for (unsigned k = 0; k < 3 && cases[i].want[k]; k++)
			HAS(err, cases[i].want[k]);
	}
}

Test(stream_spec, shares_sum_to_100_or_are_all_absent)
{
	struct pg_stream_spec s[3];

	for (unsigned i = 0; i < 3; i++)
		cr_assert_eq(pg_stream_parse("tx=0,rx=1", &s[i], "x", err, sizeof(err)), 0);
	cr_assert_eq(pg_streams_check_shares(s, 3, err, sizeof(err)), 0);
	cr_assert_float_eq(s[2].share, 100.0 / 3, 1e-9, "equal shares");
	s[0].share = 50;
	s[1].share = 30;
	s[2].share = 10;
	cr_assert_eq(pg_streams_check_shares(s, 3, err, sizeof(err)), -EINVAL);
	HAS(err, "key share");
	HAS(err, "sum to 90");
	s[2].share = 0;
	cr_assert_eq(pg_streams_check_shares(s, 3, err, sizeof(err)), -EINVAL);
	HAS(err, "stream 2: key share missing");
	s[2].share = 20;
	cr_assert_eq(pg_streams_check_shares(s, 3, err, sizeof(err)), 0, "%s", err);
}

Test(stream_file, lines_comments_and_blanks)
{
	static struct pg_stream_spec s[PG_MAX_STREAMS];
	const char *text = "# two streams\n"
			   "\n"
			   "  tx=0,rx=1,size=imix,share=70   # the bulk\r\n"
			   "tx=0,rx=1,proto=icmp,share=30\n"
			   "   \t\n"
			   "# the end, no newline after this";
	unsigned nb = 0;

	cr_assert_eq(pg_stream_file_parse(text, strlen(text), "s.txt", s, PG_MAX_STREAMS, &nb, err, sizeof(err)), 0,
		     "%s", err);
	cr_assert_eq(nb, 2);
	cr_assert(s[0].imix);
	cr_assert_float_eq(s[0].share, 70.0, 1e-9);
	cr_assert_eq(s[1].proto, PG_PROTO_ICMP);
}

Test(stream_file, errors_name_the_file_and_the_line)
{
	static struct pg_stream_spec s[PG_MAX_STREAMS];
	static char big[PG_STREAM_LINE_MAX + 64];
	unsigned nb = 0;

	cr_assert_eq(pg_stream_file_parse("tx=0,rx=1\n\n# c\ntx=0,rx=1,bogus=1\n", 33, "f.txt", s, PG_MAX_STREAMS, &nb,
					  err, sizeof(err)), -EINVAL);
	HAS(err, "stream file 'f.txt' line 4: unknown key 'bogus'");
	nb = 0;
	cr_assert_eq(pg_stream_file_parse("tx=0, rx=1\n", 11, "f.txt", s, PG_MAX_STREAMS, &nb, err, sizeof(err)), -EINVAL);
	HAS(err, "line 1: a blank inside the stream");
	nb = 0;
	cr_assert_eq(pg_stream_file_parse("tx=0,rx=1\ntx=0\0,rx=1\n", 21, "f.txt", s, PG_MAX_STREAMS, &nb, err, sizeof(err)),
		     -EINVAL);
	HAS(err, "line 2: a NUL byte");
	memset(big, 'a', sizeof(big) - 1);
	nb = 0;
	cr_assert_eq(pg_stream_file_parse(big, sizeof(big) - 1, "f.txt", s, PG_MAX_STREAMS, &nb, err, sizeof(err)), -EINVAL);
	HAS(err, "line 1:");
	HAS(err, "at most 1024 a line");
	/* More streams than room. */
	nb = 0;
	cr_assert_eq(pg_stream_file_parse("tx=0,rx=1\ntx=0,rx=1\ntx=0,rx=1\n", 30, "f.txt", s, 2, &nb, err, sizeof(err)),
		     -EINVAL);
	HAS(err, "line 3: more than 2 streams");
}

/* ---- options ---- */

static int parse(struct pg_opts *o, const char *line)
{
	return pg_test_parse(o, line, err, sizeof(err));
}

Test(stream_opts, single_stream_options_are_stream_0_and_streams_follow)
{
	static struct pg_opts o;

	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --vlan 3 --size 64 --stream tx=2,rx=3,proto=tcp --stream tx=0,rx=3"), 0, "%s", err);
	cr_assert_eq(o.nb_streams, 3);
	cr_assert(o.legacy_stream);
	cr_assert_eq(o.streams[0].tx_port, 0);
	cr_assert(o.streams[0].vlan);
	cr_assert_eq(o.streams[1].tx_port, 2);
	cr_assert_eq(o.streams[1].proto, PG_PROTO_TCP);
	cr_assert_eq(o.streams[2].rx_port, 3);
	cr_assert_float_eq(o.streams[1].share, 100.0 / 3, 1e-9);
	cr_assert_eq(parse(&o, "--stream tx=2,rx=3 --src-mac 02:00:00:00:00:01 --dst-mac 3=02:00:00:00:00:09 --arp-reply"), 0,
		     "%s", err);
	cr_assert_eq(o.nb_streams, 1);
	cr_assert(!o.legacy_stream);
	cr_assert_eq(o.src_mac_set, ~0ull);
	cr_assert_eq(o.dst_mac_set, 1ull << 3);
	cr_assert_eq(o.dst_mac[3][5], 9);
	cr_assert(o.arp_reply);
	/* Without streams, the old way alone. */
	cr_assert_eq(parse(&o, "--tx-port 4 --rx-port 5"), 0, "%s", err);
	cr_assert_eq(o.nb_streams, 1);
	cr_assert_eq(o.streams[0].tx_port, 4);
	cr_assert_eq(o.streams[0].nb_sizes, 1);
	cr_assert_eq(o.streams[0].sizes[0], 60);
}

Test(stream_opts, conflicts_are_refused_naming_the_options)
{
	static struct pg_opts o;

	cr_assert_eq(parse(&o, "--stream tx=0,rx=1 --vlan 5"), -EINVAL);
	HAS(err, "option --vlan");
	HAS(err, "stream 0 of --tx-port/--rx-port");
	cr_assert_eq(parse(&o, "--stream tx=0,rx=1 --tx-port 0"), -EINVAL);
	HAS(err, "option --tx-port: given alone");
	cr_assert_eq(parse(&o, "--tx-port 0 --rx-port 1 --stream tx=0,rx=1 --replay x.pcap"), -EINVAL);
	HAS(err, "--replay");
	cr_assert_eq(parse(&o, "--stream tx=0,rx=1,share=60 --stream tx=0,rx=1,share=30 --rate 1Mpps"), -EINVAL);
	HAS(err, "sum to 90");
	cr_assert_eq(parse(&o, "--stream tx=0,rx=1,share=60 --stream tx=0,rx=1,share=40"), -EINVAL);
	HAS(err, "shares split --rate, which is not given");
	cr_assert_eq(parse(&o, "--stream tx=0,rx=1 --src-mac 99=02:00:00:00:00:01"), -EINVAL);
	HAS(err, "--src-mac");
	cr_assert_eq(parse(&o, "--stream tx=0,rx=1 --dst-mac 02:00"), -EINVAL);
	HAS(err, "option --dst-mac: bad value '02:00'");
	cr_assert_eq(parse(&o, "--stream-file /nonexistent/s.txt"), -EINVAL);
	HAS(err, "option --stream-file: cannot read '/nonexistent/s.txt': No such file or directory");
	/* The limit: stream 0 and 64 more. */
	{
		static char *argv[2 * PG_MAX_STREAMS + 8];
		int argc = 0;

		argv[argc++] = (char *)"unic-pktgen";
		argv[argc++] = (char *)"--tx-port=0";
		argv[argc++] = (char *)"--rx-port=1";
		for (unsigned i = 0; i < PG_MAX_STREAMS; i++) {
			argv[argc++] = (char *)"--stream";
			argv[argc++] = (char *)"tx=0,rx=1";
		}
		pg_opts_init(&o);
		cr_assert_eq(pg_opts_parse(&o, argc, argv, err, sizeof(err)), -EINVAL, "65 streams accepted");
	}
	HAS(err, "65 streams; at most 64");
}

/* ---- the link check ---- */

Test(stream_link, streams_of_one_port_are_summed_on_the_wire_against_its_link)
{
	static struct pg_stream_spec sp[3];
	static struct pg_stream_run sr[3];
	const unsigned idx[3] = { 0, 1, 2 };
	struct pg_rate_spec pps = { PG_RATE_PPS, 0 }, l2 = { PG_RATE_BPS_L2, 0 };

	cr_assert_eq(pg_stream_parse("tx=0,rx=1,size=60", &sp[0], "x", err, sizeof(err)), 0);
	cr_assert_eq(pg_stream_parse("tx=0,rx=1,size=imix", &sp[1], "x", err, sizeof(err)), 0);
	cr_assert_eq(pg_stream_parse("tx=0,rx=1,size=1500", &sp[2], "x", err, sizeof(err)), 0);
	for (unsigned i = 0; i < 3; i++)
		pg_stream_run_init(&sr[i], &sp[i], (uint16_t)i);
	/* 1 Mpps of 60-byte frames: 84 bytes a frame on the wire, 672 Mbit/s. */
	pps.value = 1e6;
	cr_assert_eq(pg_rate_init(&sr[0].rate, &pps, 1000000000ull, 1000, err, sizeof(err)), 0);
	/* 300 Mbit/s at L2 of 1500-byte frames: 300 * 1524 / 1504 on the wire. */
	l2.value = 300e6;
	cr_assert_eq(pg_rate_init(&sr[2].rate, &l2, 1000000000ull, 1000, err, sizeof(err)), 0);
	cr_assert_eq(pg_streams_link_check(sr, (unsigned[]){ 0, 2 }, 2, 0, "p0", 1000, err, sizeof(err)), 0,
		     "672 + 304.0 Mbit/s fit 1000: %s", err);
	l2.value = 330e6;
	pg_rate_init(&sr[2].rate, &l2, 1000000000ull, 1000, err, sizeof(err));
	cr_assert_eq(pg_streams_link_check(sr, (unsigned[]){ 0, 2 }, 2, 0, "p0", 1000, err, sizeof(err)), -EINVAL);
	HAS(err, "tx port 0 (p0) come to 1006.4 Mbit/s on the wire (stream 0 672.0, stream 2 334.4;");
	HAS(err, "above its link's 1000 Mbit/s");
	cr_assert_eq(pg_streams_link_check(sr, (unsigned[]){ 0, 2 }, 2, 0, "p0", 0, err, sizeof(err)), 0,
		     "an unknown link speed is not checked");
	/* A frame rate of IMIX counts its mean size, 353.8 bytes. */
	pps.value = 400000;
	pg_rate_init(&sr[1].rate, &pps, 1000000000ull, 1000, err, sizeof(err));
	cr_assert_eq(pg_streams_link_check(sr, idx + 1, 1, 0, "p0", 1000, err, sizeof(err)), -EINVAL);
	HAS(err, "come to 1209.1 Mbit/s");
}

/* ---- receive accounting ---- */

Test(rxstats_streams, each_stream_is_counted_apart_and_other_ids_are_not)
{
	static struct pg_rxstats rs;
	struct pg_stamp st = { .magic = PG_STAMP_MAGIC };

	pg_rxstats_init(&rs, 0);
	cr_assert_eq(pg_rxstats_add_stream(&rs, 1), 1);
	cr_assert_eq(pg_rxstats_add_stream(&rs, 40), 2);
	cr_assert_eq(pg_rxstats_add_stream(&rs, 40), -EEXIST);
	for (uint32_t i = 0; i < 30; i++) {
		struct pg_stream_stats *s;

		st.stream = i % 3 == 2 ? 40 : (uint16_t)(i % 3);
		st.seq = i / 3;
		s = pg_rxstats_frame(&rs, 60, PG_PARSE_OK, &st);
		cr_assert_not_null(s);
		cr_assert_eq(rs.last, i % 3);
		pg_seq_add(&s->seq, st.seq);
	}
	st.stream = 2;
	cr_assert_null(pg_rxstats_frame(&rs, 60, PG_PARSE_OK, &st), "id 2 is none of the streams");
	cr_assert_eq(rs.other_stream, 1);
	for (unsigned k = 0; k < 3; k++) {
		cr_assert_eq(rs.streams[k]->seq.received, 10);
		cr_assert_eq(pg_seq_lost(&rs.streams[k]->seq, 10), 0);
	}
	cr_assert_eq(rs.frames, 31);
	for (unsigned i = 3; i < PG_MAX_STREAMS; i++)
		cr_assert_eq(pg_rxstats_add_stream(&rs, (uint16_t)(100 + i)), (int)i);
	cr_assert_eq(pg_rxstats_add_stream(&rs, 5000), -ENOSPC);
	pg_rxstats_fini(&rs);
}

Test(rxstats_streams, merged_histograms_hold_every_value)
{
	static struct pg_hist a, b;

	pg_hist_init(&a);
	pg_hist_init(&b);
	for (uint64_t v = 1; v <= 100; v++)
		pg_hist_add(v <= 50 ? &a : &b, v * 100);
	pg_hist_merge(&a, &b);
	cr_assert_eq(a.count, 100);
	cr_assert_eq(a.min, 100);
	cr_assert_eq(a.max, 10000);
	cr_assert_eq(a.sum, 100 * 5050);
	cr_assert(pg_hist_percentile(&a, 50) >= 5000 && pg_hist_percentile(&a, 50) <= 5119);
}

/* ---- the binary ---- */

static char out[131072];

static int run(const char *args)
{
	static char cmd[8192];
	int len = snprintf(cmd, sizeof(cmd), "%s %s 2>&1", binary_path("UNIC_PKTGEN"), args);

	cr_assert_lt(len, (int)sizeof(cmd));
	return binary_run(cmd, out, sizeof(out));
}

/* The value after "key": at or after @p from. */
static uint64_t ju64(const char *from, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(from, k);
	cr_assert_not_null(p, "%s not in %s", key, from);
	return strtoull(p + strlen(k), NULL, 10);
}

#define RINGS "--no-pci --no-huge --vdev ring0 --vdev ring1,peer=ring0 --vdev ring2 --vdev ring3,peer=ring2 "

Test(pktgen_streams_bin, several_streams_over_two_ring_pairs_are_each_accounted_and_lose_nothing)
{
	cr_assert_eq(run(RINGS "--stream tx=0,rx=1,size=imix,share=30,vlan=5,src-ip=10.0.0.1-10.0.0.200,dst-port=1000-1999 "
			 "--stream tx=0,rx=1,proto=icmp,size=128,share=20 "
			 "--stream tx=2,rx=3,l3=ipv6,proto=tcp,size=100-200,share=50 "
			 "--rate 1% --count 6000 --json"), 0, "%s", out);
	const char *j = strstr(out, "{\"tsc_hz\"");
	const char *ss;
	uint64_t sent = 0, rx = 0, samples = 0;

	cr_assert_not_null(j, "%s", out);
	ss = strstr(j, "\"streams\":[");
	cr_assert_not_null(ss, "%s", j);
	for (unsigned i = 0; i < 3; i++) {
		char key[16];
		const char *st, *lat;
		uint64_t s, r;

		snprintf(key, sizeof(key), "{\"id\":%u,", i);
		st = strstr(ss, key);
		cr_assert_not_null(st, "stream %u: %s", i, ss);
		s = ju64(st, "sent");
		r = ju64(st, "received");
		cr_assert_gt(s, 0, "stream %u sent nothing: %s", i, st);
		cr_assert_eq(r, s, "stream %u: %s", i, st);
		cr_assert_eq(ju64(st, "lost"), 0, "%s", st);
		cr_assert_eq(ju64(st, "reordered"), 0, "%s", st);
		cr_assert_eq(ju64(st, "duplicated"), 0, "%s", st);
		lat = strstr(st, "\"latency_ns\"");
		cr_assert_eq(ju64(lat, "samples"), r, "%s", st);
		sent += s;
		rx += r;
		samples += ju64(lat, "samples");
	}
	cr_assert_eq(strstr(ss, "{\"id\":3,"), NULL, "three streams: %s", ss);
	HAS(ss, "\"proto\":\"icmp\"");
	HAS(ss, "\"proto\":\"tcp\",\"l3\":\"ipv6\"");
	/* The totals are the sums. */
	cr_assert_eq(ju64(j, "sent"), 6000, "%s", j);
	cr_assert_eq(sent, 6000);
	cr_assert_eq(ju64(j, "received"), rx, "%s", j);
	cr_assert_eq(ju64(j, "lost"), 0, "%s", j);
	cr_assert_eq(ju64(j, "no_stamp"), 0, "%s", j);
	cr_assert_eq(ju64(j, "other_stream"), 0, "%s", j);
	cr_assert_eq(ju64(strstr(j, "\"latency_ns\""), "samples"), samples, "%s", j);
	/* Each port's own counters: what pktgen counted on it. */
	{
		const char *tp = strstr(j, "\"tx_ports\":[{\"port\":0,");
		const char *tp2 = strstr(j, "{\"port\":2,");
		const char *rp = strstr(j, "\"rx_ports\":[{\"port\":1,");

		cr_assert(tp && tp2 && rp, "%s", j);
		cr_assert_eq(ju64(tp, "sent") + ju64(tp2, "sent"), 6000, "%s", j);
		cr_assert_eq(ju64(tp, "opackets"), ju64(tp, "sent"), "%s", j);
		cr_assert_eq(ju64(tp2, "opackets"), ju64(tp2, "sent"), "%s", j);
		cr_assert_eq(ju64(rp, "frames"), ju64(rp, "ipackets"), "%s", j);
		cr_assert_eq(ju64(rp, "frames"), ju64(tp, "sent"), "ring1 gets what ring0 sent: %s", j);
	}
}

Test(pktgen_streams_bin, a_stream_port_that_takes_nothing_stops_the_run_naming_it)
{
	/* ring4 has no peer: its tx ring fills and stays full. */
	cr_assert_eq(run(RINGS "--vdev ring4 --stream tx=0,rx=1 --stream tx=4,rx=1 --count 100000"), 1, "%s", out);
	HAS(out, "tx port 4 (ring4) took no frame for 2 s");
	HAS(out, "never taken by the port (dropped when the run stopped, not sent)");
}

Test(pktgen_streams_bin, the_text_report_has_a_row_per_stream_and_a_total)
{
	unsigned long r[2], s[2];
	const char *p;

	cr_assert_eq(run(RINGS "--stream tx=0,rx=1 --stream tx=2,rx=3,proto=tcp --count 1000"), 0, "%s", out);
	/* Without --rate each port sends as fast as it takes frames: how the
	 * 1000 split between the ports is the machine's; each row's own
	 * numbers and the total are not. */
	p = strstr(out, "stream 0: received ");
	cr_assert_not_null(p, "%s", out);
	cr_assert_eq(sscanf(p, "stream 0: received %lu, lost 0, reordered 0, duplicated 0 (sent %lu, tx 0 -> rx 1, ipv4/udp, 60 B)",
			    &r[0], &s[0]), 2, "%s", out);
	p = strstr(out, "stream 1: received ");
	cr_assert_not_null(p, "%s", out);
	cr_assert_eq(sscanf(p, "stream 1: received %lu, lost 0, reordered 0, duplicated 0 (sent %lu, tx 2 -> rx 3, ipv4/tcp, 72 B)",
			    &r[1], &s[1]), 2, "%s", out);
	cr_assert(r[0] == s[0] && r[1] == s[1] && s[0] + s[1] == 1000, "%s", out);
	HAS(out, "total: received 1000, lost 0, reordered 0, duplicated 0 (sent 1000, 2 streams)");
	cr_assert_not_null(strstr(out, "tx port 0: sent "), "%s", out);
	cr_assert_not_null(strstr(out, "tx port 2: sent "), "%s", out);
	cr_assert_not_null(strstr(out, "rx port 3: frames "), "%s", out);
}

Test(pktgen_streams_bin, csv_has_a_row_per_stream_that_adds_up_to_the_total_row)
{
	char path[64], line[512];
	FILE *f;
	uint64_t tot_tx = 0, tot_rx = 0, st_tx = 0, st_rx = 0;

	snprintf(path, sizeof(path), "/tmp/unic-pgstreams-%d.csv", (int)getpid());
	snprintf(line, sizeof(line), RINGS "--stream tx=0,rx=1 --stream tx=2,rx=3,proto=icmp --stream tx=0,rx=3 "
		 "--count 3000 --csv %s", path);
	cr_assert_eq(run(line), 0, "%s", out);
	f = fopen(path, "r");
	cr_assert_not_null(f);
	cr_assert_not_null(fgets(line, sizeof(line), f));
	HAS(line, ",lat_max_ns,stream\n");
	while (fgets(line, sizeof(line), f)) {
		uint64_t txf, rxf;
		double d;
		char *last = strrchr(line, ',');

		cr_assert_eq(sscanf(line, "%lf,%lf,%" SCNu64 ",%lf,%lf,%lf,%" SCNu64, &d, &d, &txf, &d, &d, &d, &rxf), 7, "%s", line);
		if (strcmp(last, ",total\n") == 0) {
			tot_tx += txf;
			tot_rx += rxf;
		} else {
			st_tx += txf;
			st_rx += rxf;
		}
	}
	fclose(f);
	unlink(path);
	cr_assert_eq(tot_tx, 3000);
	cr_assert_eq(st_tx, tot_tx);
	cr_assert_eq(st_rx, tot_rx);
	cr_assert_eq(tot_rx, 3000);
}

Test(pktgen_streams_bin, bad_stream_sets_are_refused_before_any_traffic)
{
	cr_assert_eq(run(RINGS "--stream tx=0,rx=1 --stream tx=2,rx=7 --count 10"), 2, "%s", out);
	HAS(out, "stream 1: key rx: port 7 does not exist; 4 port(s) were created");
	cr_assert_null(strstr(out, "sent"), "%s", out);
	cr_assert_eq(run(RINGS "--stream tx=0,rx=1,share=80 --stream tx=0,rx=1,share=30 --rate 1Mpps --count 10"), 2, "%s", out);
	HAS(out, "the shares sum to 110");
	/* 8 Gbit/s + 4 Gbit/s on ring0's 10 Gbit/s link. */
	cr_assert_eq(run(RINGS "--stream tx=0,rx=1,share=40 --stream tx=0,rx=1,share=20 --stream tx=2,rx=3,share=40 "
			 "--rate 20Gbps-wire --count 10"), 2, "%s", out);
	HAS(out, "option --rate: the streams on tx port 0 (ring0) come to 12000.0 Mbit/s on the wire");
	HAS(out, "above its link's 10000 Mbit/s");
	cr_assert_null(strstr(out, "frames"), "%s", out);
	cr_assert_eq(run(RINGS "--tx-port 0 --rx-port 1 --rate 11Gbps --count 10"), 2, "%s", out);
	HAS(out, "above its link's 10000 Mbit/s");
	cr_assert_eq(run(RINGS "--stream tx=0,rx=1,proto=tcp,size=64 --count 10"), 2, "%s", out);
	HAS(out, "option --stream: key size: frame size 64 is too small for IPv4/TCP");
}

Test(pktgen_streams_bin, a_stream_file_runs_and_a_bad_line_is_refused_with_its_number)
{
	char path[64], args[256];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/unic-pgstreams-%d.txt", (int)getpid());
	f = fopen(path, "w");
	cr_assert_not_null(f);
	fputs("# bulk and pings\ntx=0,rx=1,size=imix,share=80\n\ntx=2,rx=3,proto=icmp,share=20  # pings\n", f);
	fclose(f);
	snprintf(args, sizeof(args), RINGS "--stream-file %s --rate 10Mbps --count 400 --json", path);
	cr_assert_eq(run(args), 0, "%s", out);
	HAS(out, "\"streams\":[{\"id\":0,\"tx_port\":0,\"rx_port\":1,\"proto\":\"udp\",\"l3\":\"ipv4\",\"share\":80.000");
	HAS(out, "{\"id\":1,\"tx_port\":2,\"rx_port\":3,\"proto\":\"icmp\",\"l3\":\"ipv4\",\"share\":20.000");
	cr_assert_eq(ju64(out, "received"), 400, "%s", out);
	f = fopen(path, "w");
	fputs("tx=0,rx=1\n# fine so far\ntx=0,rx=1,size=imix,vlan=4096\n", f);
	fclose(f);
	snprintf(args, sizeof(args), RINGS "--stream-file %s --count 10", path);
	cr_assert_eq(run(args), 2, "%s", out);
	HAS(out, "unic-pktgen: error: stream file '");
	HAS(out, "' line 3: key vlan: bad value '4096'; expected a whole number from 0 to 4095");
	unlink(path);
}

/* ---- ARP and NDP (--arp-reply) ---- */

static const uint8_t our_mac[6] = { 0x02, 0, 0, 0, 0, 0x10 };
static const uint8_t asker_mac[6] = { 0x52, 0x54, 0, 0x12, 0x34, 0x56 };

/* An ARP request from 10.0.0.254 for @p target, tagged with VID 5 if @p vlan. */
static size_t arp_request(uint8_t *f, const uint8_t target[4], bool vlan)
{
	size_t o = 12;

	memset(f, 0xff, 6);
	memcpy(f + 6, asker_mac, 6);
	if (vlan) {
		f[12] = 0x81; f[13] = 0; f[14] = 0; f[15] = 5;
		o = 16;
	}
	f[o] = 0x08; f[o + 1] = 0x06;
	o += 2;
	memcpy(f + o, (uint8_t[]){ 0, 1, 8, 0, 6, 4, 0, 1 }, 8);
	memcpy(f + o + 8, asker_mac, 6);
	memcpy(f + o + 14, (uint8_t[]){ 10, 0, 0, 254 }, 4);
	memset(f + o + 18, 0, 6);
	memcpy(f + o + 24, target, 4);
	memset(f + o + 28, 0, 18);   /* padding to 60 (64 with the tag) */
	return o + 28 + 18;
}

static void arp_table(struct pg_arp *a)
{
	struct pg_ip_range r4, r6;

	cr_assert_geq(pg_parse_ip_range("t", "10.0.0.1-10.0.0.200", &r4, err, sizeof(err)), 0);
	cr_assert_geq(pg_parse_ip_range("t", "fd00::1-fd00::10", &r6, err, sizeof(err)), 0);
	pg_arp_init(a);
	cr_assert_eq(pg_arp_add(a, 1, false, &r4, our_mac), 0);
	cr_assert_eq(pg_arp_add(a, 1, true, &r6, our_mac), 0);
	cr_assert_eq(pg_arp_add(a, 1, false, &r4, our_mac), 0, "the same range twice: one entry");
	cr_assert_eq(a->nb, 2);
}

Test(arp, an_arp_request_for_one_of_ours_gets_the_reply_bytes_a_router_expects)
{
	static struct pg_arp a;
	uint8_t req[80], rep[PG_ARP_REPLY_MAX];
	const uint8_t want[42] = {
		0x52, 0x54, 0, 0x12, 0x34, 0x56, 0x02, 0, 0, 0, 0, 0x10, 0x08, 0x06,  /* to the asker, from us */
		0, 1, 8, 0, 6, 4, 0, 2,                                               /* Ethernet/IPv4, reply */
		0x02, 0, 0, 0, 0, 0x10, 10, 0, 0, 200,                                /* sender: us, 10.0.0.200 */
		0x52, 0x54, 0, 0x12, 0x34, 0x56, 10, 0, 0, 254,                       /* target: the asker */
	};
	size_t n;

	arp_table(&a);
	n = arp_request(req, (uint8_t[]){ 10, 0, 0, 200 }, false);
	cr_assert_eq(pg_arp_answer(&a, 1, req, n, rep), 60, "a minimum frame");
	cr_assert_eq(memcmp(rep, want, sizeof(want)), 0);
	for (unsigned i = 42; i < 60; i++)
		cr_assert_eq(rep[i], 0);
	cr_assert_eq(a.arp_replies, 1);
	/* Tagged: answered with the tag. */
	n = arp_request(req, (uint8_t[]){ 10, 0, 0, 1 }, true);
	cr_assert_eq(pg_arp_answer(&a, 1, req, n, rep), 60);
	cr_assert_eq(memcmp(rep + 12, (uint8_t[]){ 0x81, 0, 0, 5, 0x08, 0x06 }, 6), 0);
	cr_assert_eq(memcmp(rep + 18 + 14, (uint8_t[]){ 10, 0, 0, 1 }, 4), 0, "the address asked for");
	/* Not ours: another address, another port, a reply, a cut frame. */
	n = arp_request(req, (uint8_t[]){ 10, 0, 0, 201 }, false);
	cr_assert_eq(pg_arp_answer(&a, 1, req, n, rep), 0);
	n = arp_request(req, (uint8_t[]){ 10, 0, 0, 7 }, false);
	cr_assert_eq(pg_arp_answer(&a, 0, req, n, rep), 0, "port 0 answers for nothing");
	req[21] = 2;
	cr_assert_eq(pg_arp_answer(&a, 1, req, n, rep), 0, "an ARP reply is not answered");
	req[21] = 1;
	for (size_t k = 0; k < 42; k++)
		cr_assert_eq(pg_arp_answer(&a, 1, req, k, rep), 0, "cut at %zu", k);
	cr_assert(pg_arp_is_nd(req, n));
	cr_assert_eq(a.arp_replies, 2);
}

Test(arp, a_neighbour_solicitation_for_one_of_ours_gets_an_advertisement)
{
	static struct pg_arp a;
	uint8_t f[128], rep[PG_ARP_REPLY_MAX], ph[40], na[32];
	uint8_t *ip = f + 14, *ns = f + 54;
	const uint8_t asker_ip[16] = { 0xfd, 0, [15] = 0x99 };
	const uint8_t target[16] = { 0xfd, 0, [15] = 0x10 };
	size_t n = 14 + 40 + 32;
	unsigned len;

	arp_table(&a);
	/* NS to the solicited-node address, from fd00::99, for fd00::10, with a
	 * source link-layer address option (RFC 4861 4.3). */
	memcpy(f, (uint8_t[]){ 0x33, 0x33, 0xff, 0, 0, 0x10 }, 6);
	memcpy(f + 6, asker_mac, 6);
	f[12] = 0x86; f[13] = 0xdd;
	memset(ip, 0, 40);
	ip[0] = 0x60;
	ip[5] = 32;
	ip[6] = 58;
	ip[7] = 255;
	memcpy(ip + 8, asker_ip, 16);
	memcpy(ip + 24, (uint8_t[]){ 0xff, 2, [11] = 1, [12] = 0xff, [15] = 0x10 }, 16);
	memset(ns, 0, 32);
	ns[0] = 135;
	memcpy(ns + 8, target, 16);
	ns[24] = 1;
	ns[25] = 1;
	memcpy(ns + 26, asker_mac, 6);
	{
		size_t pl = pseudo(ph, ip, true, 58, 32);
		const uint8_t *parts[] = { ph, ns };
		size_t lens[] = { pl, 32 };
		uint16_t c = ref_cksum(parts, lens, 2);

		ns[2] = (uint8_t)(c >> 8);
		ns[3] = (uint8_t)c;
	}
	len = pg_arp_answer(&a, 1, f, n, rep);
	cr_assert_eq(len, 14 + 40 + 32);
	cr_assert_eq(memcmp(rep, asker_mac, 6), 0);
	cr_assert_eq(memcmp(rep + 6, our_mac, 6), 0);
	cr_assert_eq(rep[14 + 6], 58);
	cr_assert_eq(rep[14 + 7], 255, "hop limit 255 (RFC 4861 7.1.2)");
	cr_assert_eq(memcmp(rep + 14 + 8, target, 16), 0, "from the target");
	cr_assert_eq(memcmp(rep + 14 + 24, asker_ip, 16), 0, "to the solicitor");
	cr_assert_eq(rep[54], 136);
	cr_assert_eq(rep[58], 0x60, "solicited, override");
	cr_assert_eq(memcmp(rep + 62, target, 16), 0);
	cr_assert_eq(memcmp(rep + 78, (uint8_t[]){ 2, 1, 0x02, 0, 0, 0, 0, 0x10 }, 8), 0, "target link-layer address");
	memcpy(na, rep + 54, 32);
	na[2] = na[3] = 0;
	{
		size_t pl = pseudo(ph, rep + 14, true, 58, 32);
		const uint8_t *parts[] = { ph, na };
		size_t lens[] = { pl, 32 };

		cr_assert_eq(be16(rep + 56), ref_cksum(parts, lens, 2), "ICMPv6 checksum");
	}
	cr_assert_eq(a.na_replies, 1);
	/* Refused: a bad checksum, a hop limit under 255, DAD from ::, not ours. */
	ns[3] ^= 1;
	cr_assert_eq(pg_arp_answer(&a, 1, f, n, rep), 0);
	ns[3] ^= 1;
	ip[7] = 64;
	cr_assert_eq(pg_arp_answer(&a, 1, f, n, rep), 0);
	ip[7] = 255;
	ns[8 + 15] = 0x11;
	cr_assert_eq(pg_arp_answer(&a, 1, f, n, rep), 0, "fd00::11 is past the range (checksum aside)");
	for (size_t k = 0; k < n; k++)
		cr_assert_eq(pg_arp_answer(&a, 1, f, k, rep), 0, "cut at %zu", k);
}

Test(arp, over_a_ring_pair_a_request_sent_in_comes_back_answered)
{
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *p0, *p1;
	struct unic_pkt *pk, *got[4];
	static struct pg_arp a;
	uint8_t req[80], want[PG_ARP_REPLY_MAX];
	size_t n;
	unsigned wn;
	uint16_t k;

	fixture_mem_pool(&mem, &pool, "pgarp", 4096, 0);
	p0 = fixture_port_create("ring0");
	p1 = fixture_port_create("ring1,peer=ring0");
	fixture_port_up(p0, pool, 1, 256, UNIC_RX_MODE_POLL);
	fixture_port_up(p1, pool, 1, 256, UNIC_RX_MODE_POLL);
	arp_table(&a);
	n = arp_request(req, (uint8_t[]){ 10, 0, 0, 42 }, false);
	wn = pg_arp_answer(&a, 1, req, n, want);  /* the bytes to expect */
	cr_assert_eq(wn, 60);
	/* The router asks on ring0; pktgen's port 1 (ring1) hears and answers. */
	pk = unic_pkt_alloc(pool);
	cr_assert_not_null(pk);
	memcpy(unic_pkt_append(pk, (uint16_t)n), req, n);
	cr_assert_eq(unic_tx_burst(p0, 0, &pk, 1), 1);
	k = unic_rx_burst(p1, 0, got, 4);
	cr_assert_eq(k, 1);
	cr_assert(pg_arp_handle(&a, p1, 1, got[0], pool));
	unic_pkt_free(got[0]);
	k = unic_rx_burst(p0, 0, got, 4);
	cr_assert_eq(k, 1, "the reply came back to the asker");
	cr_assert_eq(got[0]->data_len, 60);
	cr_assert_eq(memcmp(unic_pkt_data(got[0]), want, 60), 0);
	cr_assert_eq(memcmp((uint8_t *)unic_pkt_data(got[0]) + 28, (uint8_t[]){ 10, 0, 0, 42 }, 4), 0);
	unic_pkt_free(got[0]);
	cr_assert_eq(a.arp_replies, 2);
	cr_assert_eq(a.tx_fail, 0);
	/* Stream traffic is left to the caller. */
	{
		struct pg_frame_tmpl t = tmpl(false, false, PG_PROTO_UDP);
		struct pg_flow f = flow(false);
		struct pg_stamp s = { PG_STAMP_MAGIC, 0, 0, 0 };

		pk = unic_pkt_alloc(pool);
		pg_frame_build(unic_pkt_append(pk, 60), 60, &t, &f, &s);
		cr_assert(!pg_arp_handle(&a, p1, 1, pk, pool));
		unic_pkt_free(pk);
	}
	fixture_port_down(p0);
	fixture_port_down(p1);
	fixture_mem_pool_free(mem, pool);
}

Test(pktgen_streams_bin, arp_reply_answers_and_keeps_requests_out_of_the_stream_counts)
{
	/* A capture of one ARP request for 10.0.0.2 (the stream's destination,
	 * answered on the rx port) replayed from port 0: port 1 answers, the
	 * reply goes back to port 0 (a tx-only port, listened to). */
	char path[64], args[256];
	uint8_t req[80];
	FILE *f;
	size_t n = arp_request(req, (uint8_t[]){ 10, 0, 0, 2 }, false);
	uint32_t hdr[6] = { 0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1 };
	uint32_t rec[4] = { 0, 0, (uint32_t)n, (uint32_t)n };

	snprintf(path, sizeof(path), "/tmp/unic-pgarp-%d.pcap", (int)getpid());
	f = fopen(path, "wb");
	cr_assert_not_null(f);
	fwrite(hdr, 4, 6, f);
	fwrite(rec, 4, 4, f);
	fwrite(req, 1, n, f);
	fclose(f);
	snprintf(args, sizeof(args), "--no-pci --no-huge --vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1 "
		 "--replay %s --count 3 --arp-reply --drain 0.2 --json", path);
	run(args);
	unlink(path);
	HAS(out, "\"arp\":{\"frames\":6,\"arp_replies\":3,\"na_replies\":0,\"tx_fail\":0,\"other_port_frames\":0}");
	cr_assert_eq(ju64(out, "rx_frames"), 0, "requests are not stream traffic: %s", out);
}
