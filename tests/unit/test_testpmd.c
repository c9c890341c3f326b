/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd: the command parser (table, values, errors, help,
 * completion); the engines in this process over a ring pair whose far side
 * the test drives (MAC rewriting, swapping, generated frames and their
 * checksums, flows); and the binary (UNIC_TESTPMD) running batch scripts
 * over null and ring ports: every command, forward and NIC statistics,
 * refusals in the wrong state, bad syntax, -ENOTSUP, attach/detach while
 * forwarding, rx modes, exit codes.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/pool.h>

#include "testpmd.h"
#include "refusing_port.h"
#include "run_binary.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))
#define HASNT(s, sub) cr_assert(strstr((s), (sub)) == NULL, "'%s' unexpectedly in:\n%s", (sub), (s))

static struct tp_cmd cmd;
static char err[2048];

static int parse(const char *line)
{
	return tp_cmd_parse(line, &cmd, err, sizeof(err));
}

/* ---- the parser ----------------------------------------------------------------- */

Test(testpmd_cmd, every_command_in_the_table_parses_from_a_sample_of_its_syntax)
{
	unsigned nb;
	const struct tp_cmd_def *t = tp_cmd_table(&nb);

	cr_assert_eq(nb, TP_CMD_COUNT, "one entry per command id");
	for (unsigned i = 0; i < nb; i++) {
		char line[512] = "";
		const char *s = t[i].syntax;

		cr_assert_eq(t[i].id, i, "table in id order");
		/* A sample: the first alternative of each literal, a value per placeholder. */
		while (*s) {
			size_t l = strcspn(s, " ");
			char w[256];

			snprintf(w, sizeof(w), "%.*s", (int)l, s);
			if (w[0] == '[')
				;
			else if (strcmp(w, "<mac>") == 0)
				strcat(line, "02:00:00:00:00:09 ");
			else if (strcmp(w, "<sizes>") == 0)
				strcat(line, "64,128 ");
			else if (strcmp(w, "<level>") == 0)
				strcat(line, "debug ");
			else if (strcmp(w, "<spec>") == 0 || strcmp(w, "<words...>") == 0)
				strcat(line, "ring5 ");
			else if (w[0] == '<')
				strcat(line, "1 ");
			else {
				w[strcspn(w, "|")] = '\0';
				strcat(line, w);
				strcat(line, " ");
			}
			s += l;
			while (*s == ' ')
				s++;
		}
		cr_assert_eq(parse(line), TP_PARSE_OK, "'%s' (%s): %s", line, t[i].syntax, err);
		cr_assert_eq(cmd.def->id, t[i].id, "'%s' parsed as %s", line, cmd.def->syntax);
	}
}

Test(testpmd_cmd, values_come_out_typed_in_their_syntax_positions)
{
	cr_assert_eq(parse("show port stats all"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.def->id, TP_CMD_SHOW_PORT);
	cr_assert_eq(cmd.arg[2].kw, 1, "stats is the second alternative");
	cr_assert_eq(cmd.arg[3].num, TP_CMD_PORT_ALL);

	cr_assert_eq(parse("  mac_addr add 3 02:aB:cd:EF:00:ff  # comment"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.def->id, TP_CMD_MAC_ADDR);
	cr_assert_eq(cmd.arg[1].kw, 1);
	cr_assert_eq(cmd.arg[2].num, 3);
	const uint8_t mac[6] = { 0x02, 0xab, 0xcd, 0xef, 0x00, 0xff };

	cr_assert_eq(memcmp(cmd.arg[3].mac, mac, 6), 0);

	cr_assert_eq(parse("set txpkts 64,128,2"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.arg[2].nb_sizes, 3);
	cr_assert_eq(cmd.arg[2].sizes[1], 128);

	cr_assert_eq(parse("set msglevel 2 warning"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.arg[3].num, 2);
	cr_assert_eq(parse("set msglevel 2 5"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.arg[3].num, 5);

	cr_assert_eq(parse("set rx-mode 1 interrupt weight=16 budget=64"), TP_PARSE_OK, "%s", err);
	cr_assert_eq(cmd.arg[3].kw, 1);
	int b = tp_cmd_knob(&cmd, "budget"), w = tp_cmd_knob(&cmd, "weight"), e = tp_cmd_knob(&cmd, "idle-us");

	cr_assert(b > 0 && w > 0 && e > 0);
	cr_assert(cmd.arg[b].set);
	cr_assert_eq(cmd.arg[b].num, 64);
	cr_assert_eq(cmd.arg[w].num, 16);
	cr_assert(!cmd.arg[e].set, "a knob not given is not set");
	cr_assert_eq(tp_cmd_knob(&cmd, "nope"), -1);

	cr_assert_eq(parse("help port config"), TP_PARSE_OK);
	cr_assert_eq(cmd.def->id, TP_CMD_HELP_TOPIC);
	cr_assert_str_eq(cmd.arg[1].str, "port config");

	/* DPDK's spellings land on the same actions. */
	cr_assert_eq(parse("vlan set strip on 0"), TP_PARSE_OK);
	cr_assert_eq(cmd.def->id, TP_CMD_VLAN_SET_DPDK);
	cr_assert_eq(parse("port config mtu 0 9000"), TP_PARSE_OK);
	cr_assert_eq(cmd.def->id, TP_CMD_PORT_MTU_DPDK);
	cr_assert_eq(parse("set link-down port 1"), TP_PARSE_OK);
	cr_assert_eq(cmd.def->id, TP_CMD_SET_LINK_DPDK);
}

Test(testpmd_cmd, blank_lines_and_comments_are_empty)
{
	cr_assert_eq(parse(""), TP_PARSE_EMPTY);
	cr_assert_eq(parse("   \t "), TP_PARSE_EMPTY);
	cr_assert_eq(parse("# start"), TP_PARSE_EMPTY);
}

Test(testpmd_cmd, errors_say_what_is_wrong_and_give_the_usage_lines)
{
	cr_assert_eq(parse("frobnicate 1"), TP_PARSE_ERROR);
	HAS(err, "unknown command 'frobnicate'; type 'help' for the list");

	cr_assert_eq(parse("port config 0 mtu"), TP_PARSE_ERROR);
	HAS(err, "missing argument <n>");
	HAS(err, "usage: port config <port> mtu <n>");

	cr_assert_eq(parse("show port stats 64"), TP_PARSE_ERROR);
	HAS(err, "bad value '64' for <port|all>; expected a port number (0..63) or 'all'");
	HAS(err, "usage: show port info|stats|xstats|link|regs|eeprom|napi <port|all>");

	cr_assert_eq(parse("show port bogus 0"), TP_PARSE_ERROR);
	HAS(err, "bad word 'bogus'; expected info|stats|xstats|link|regs|eeprom|napi|capabilities");

	cr_assert_eq(parse("set fwd warp"), TP_PARSE_ERROR);
	HAS(err, "expected io|mac|macswap|rxonly|txonly|flowgen");

	cr_assert_eq(parse("stop now"), TP_PARSE_ERROR);
	HAS(err, "unexpected 'now'");
	HAS(err, "usage: stop");

	cr_assert_eq(parse("mac_addr set 0 02:00:00:00:00"), TP_PARSE_ERROR);
	HAS(err, "expected a MAC address");
	cr_assert_eq(parse("rx_vlan add 4096 0"), TP_PARSE_ERROR);
	HAS(err, "a VLAN id (0..4095)");
	cr_assert_eq(parse("set txpkts 64,,1"), TP_PARSE_ERROR);
	cr_assert_eq(parse("set txpkts 1,2,3,4,5,6,7,8,9"), TP_PARSE_ERROR);
	HAS(err, "at most 8");
	cr_assert_eq(parse("set burst 99999999999"), TP_PARSE_ERROR);
	cr_assert_eq(parse("set burst -1"), TP_PARSE_ERROR);
	cr_assert_eq(parse("set msglevel 0 loud"), TP_PARSE_ERROR);
	HAS(err, "error, warning, notice, info, debug or 1..5");

	cr_assert_eq(parse("set rx-mode 0 poll budget=1 budget=2"), TP_PARSE_ERROR);
	HAS(err, "'budget=2' given twice");
	cr_assert_eq(parse("set rx-mode 0 poll budget"), TP_PARSE_ERROR);
	HAS(err, "bad value 'budget'");
	cr_assert_eq(parse("set rx-mode 0 poll speed=3"), TP_PARSE_ERROR);
	HAS(err, "unexpected 'speed=3'");
}

Test(testpmd_cmd, overlong_lines_and_too_many_words_are_refused)
{
	static char line[TP_CMD_LINE_MAX + 10];

	memset(line, 'a', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	cr_assert_eq(parse(line), TP_PARSE_ERROR);
	HAS(err, "line too long");
	line[0] = '\0';
	for (int i = 0; i < 40; i++)
		strcat(line, "x ");
	cr_assert_eq(parse(line), TP_PARSE_ERROR);
	HAS(err, "too many words");
}

static unsigned complete(const char *line, char (*c)[TP_CMD_CAND_LEN], size_t *start)
{
	static const uint16_t ports[] = { 0, 1, 12 };

	return tp_cmd_complete(line, strlen(line), ports, 3, c, 64, start);
}

static bool cand(char (*c)[TP_CMD_CAND_LEN], unsigned n, const char *s)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(c[i], s) == 0)
			return true;
	return false;
}

Test(testpmd_cmd, completion_offers_words_and_port_numbers)
{
	char c[64][TP_CMD_CAND_LEN];
	size_t start;
	unsigned n;

	n = complete("sh", c, &start);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(c[0], "show");
	cr_assert_eq(start, 0);

	n = complete("show port ", c, &start);
	cr_assert(cand(c, n, "info") && cand(c, n, "stats") && cand(c, n, "capabilities"));
	cr_assert_eq(start, 10);

	n = complete("show port info ", c, &start);
	cr_assert_eq(n, 4);
	cr_assert(cand(c, n, "0") && cand(c, n, "1") && cand(c, n, "12") && cand(c, n, "all"));

	n = complete("show port info 1", c, &start);
	cr_assert_eq(n, 2, "1 and 12");
	cr_assert_eq(start, 15);

	n = complete("port detach ", c, &start);
	cr_assert(!cand(c, n, "all"), "detach takes one port");
	cr_assert(cand(c, n, "12"));

	n = complete("set fwd mac", c, &start);
	cr_assert_eq(n, 2);
	cr_assert(cand(c, n, "mac") && cand(c, n, "macswap"));

	n = complete("set rx-mode 0 hybrid ", c, &start);
	cr_assert(cand(c, n, "budget=") && cand(c, n, "max-sleep-ms="));
	n = complete("set rx-mode 0 hybrid budget=3 we", c, &start);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(c[0], "weight=");

	n = complete("set msglevel all d", c, &start);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(c[0], "debug");

	n = complete("show config fwd ", c, &start);
	cr_assert_eq(n, 0, "nothing follows");
	n = complete("nonsense ", c, &start);
	cr_assert_eq(n, 0);
	/* The cursor may sit before the end: only what is before it counts. */
	n = tp_cmd_complete("sta 0 1", 3, NULL, 0, c, 64, &start);
	cr_assert(cand(c, n, "start"));
}

Test(testpmd_cmd, help_lists_everything_or_a_topic)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_eq(tp_cmd_help(f, NULL), 0);
	fflush(f);
	HAS(buf, "show port info|stats|xstats|link|regs|eeprom|napi <port|all>");
	HAS(buf, "port detach <port>");
	fclose(f);
	free(buf);

	buf = NULL;
	f = open_memstream(&buf, &len);
	cr_assert_eq(tp_cmd_help(f, "port config"), 0);
	fflush(f);
	HAS(buf, "port config <port> mtu <n>\n    MTU (port stopped)");
	HAS(buf, "port config <port> coalesce rx-usecs|tx-usecs <n>");
	HASNT(buf, "port detach");
	cr_assert_eq(tp_cmd_help(f, "warp drive"), -1);
	fflush(f);
	HAS(buf, "no command starts with 'warp drive'");
	fclose(f);
	free(buf);
}

/* ---- the engines, in this process --------------------------------------------- */

static struct unic_env *env;
static struct tp_app *app;
static struct unic_port *far;     /* ring41: the test's side of the pair */
static uint16_t near_id;          /* ring40: testpmd's port */
static struct unic_pool *far_pool;
static char *outbuf;
static size_t outlen;

static void eng_setup(void)
{
	struct unic_env_options o;
	struct unic_port *p = NULL;

	unic_log_set_level(-1, UNIC_LOG_ERR);
	memset(&o, 0, sizeof(o));
	o.no_huge = true;
	o.no_pci = true;
	env = unic_env_create(&o);
	cr_assert_not_null(env);
	app = calloc(1, sizeof(*app));
	app->out = open_memstream(&outbuf, &outlen);
	app->err = app->out;
	cr_assert_eq(tp_app_init(app, env), 0);
	app->engine = TP_FWD_IO;
	app->burst = 32;
	app->nbcore = 1;
	app->txpkts[0] = 64;
	app->nb_txpkts = 1;
	app->def_rxq = app->def_txq = 1;
	app->def_mode = UNIC_RX_MODE_HYBRID;
	cr_assert_eq(unic_vdev_create("ring40", &p), 0);
	cr_assert_eq(tp_port_add(app, p, true), 0);
	near_id = unic_port_id(p);
	unic_port_put(p);
	cr_assert_eq(tp_port_start(app, near_id), 0);

	/* The far side: ring41, driven by the test. */
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "far", .mem = unic_env_mem(env),
					  .count = 4096, .numa_node = -1 };
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 1024, .numa_node = -1 };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .numa_node = -1 };

	far_pool = unic_pktpool_create(&pc);
	cr_assert_not_null(far_pool);
	rc.pool = far_pool;
	cr_assert_eq(unic_vdev_create("ring41,peer=ring40", &far), 0);
	cr_assert_eq(unic_port_configure(far, &c), 0);
	cr_assert_eq(unic_port_rx_queue_setup(far, 0, &rc), 0);
	cr_assert_eq(unic_port_tx_queue_setup(far, 0, &tc), 0);
	cr_assert_eq(unic_port_start(far), 0);
}

static void eng_teardown(void)
{
	/* Close the far side first: its ring holds packets of testpmd's pools,
	 * which tp_app_fini frees; testpmd's ring holds packets of far_pool. */
	unic_port_stop(far);
	unic_port_close(far);
	tp_app_fini(app);
	unic_port_detach(far);
	unic_port_put(far);
	unic_pool_destroy(far_pool);
	fclose(app->out);
	free(outbuf);
	free(app);
	unic_env_destroy(env);
}

static int exec(const char *line)
{
	static struct tp_cmd c;
	char e[2048];

	cr_assert_eq(tp_cmd_parse(line, &c, e, sizeof(e)), TP_PARSE_OK, "%s: %s", line, e);
	return tp_exec(app, &c);
}

/* Send @p n frames from the far side: dst 0a:.., src 0b:.., byte 12 = index. */
static void far_send(unsigned n)
{
	struct unic_pkt *p[64];

	cr_assert_leq(n, 64);
	cr_assert_eq(unic_pkt_alloc_bulk(far_pool, p, n), 0);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *d = unic_pkt_data(p[i]);

		memset(d, 0x0a, 6);
		memset(d + 6, 0x0b, 6);
		memset(d + 12, (int)i, 52);
		p[i]->data_len = p[i]->pkt_len = 64;
	}
	cr_assert_eq(unic_tx_burst(far, 0, p, (uint16_t)n), n);
}

/* Receive at least @p n frames on the far side within 5 s. */
static unsigned far_recv(struct unic_pkt **p, unsigned n)
{
	unsigned got = 0;
	uint64_t end = unic_time_ns() + 5000000000ull;

	while (got < n && unic_time_ns() < end) {
		got += unic_rx_burst(far, 0, p + got, (uint16_t)(n - got));
		if (got < n)
			usleep(1000);
	}
	return got;
}

Test(testpmd_engine, mac_sets_the_peer_destination_and_the_tx_port_source, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[64];
	uint8_t mac[6];

	cr_assert_eq(exec("set fwd mac"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(16);
	cr_assert_eq(far_recv(p, 16), 16);
	cr_assert_eq(unic_port_mac_get(app->ports[near_id].port, mac), 0);
	for (unsigned i = 0; i < 16; i++) {
		const uint8_t *d = unic_pkt_data(p[i]);
		const uint8_t dst[6] = { 2, 0, 0, 0, 0, (uint8_t)near_id };

		cr_assert_eq(memcmp(d, dst, 6), 0, "destination 02:00:00:00:00:<tx port>");
		cr_assert_eq(memcmp(d + 6, mac, 6), 0, "source: the tx port's MAC");
		cr_assert_eq(d[12], i, "order and payload kept");
	}
	unic_pkt_free_bulk(p, 16);
	cr_assert_eq(exec("stop"), 0);
	fflush(app->out);
	HAS(outbuf, "RX-packets: 16 ");
}

Test(testpmd_engine, macswap_swaps_and_io_leaves_the_frame_alone, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[64];

	cr_assert_eq(exec("set fwd macswap"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(8);
	cr_assert_eq(far_recv(p, 8), 8);
	for (unsigned i = 0; i < 8; i++) {
		const uint8_t *d = unic_pkt_data(p[i]);

		cr_assert_eq(d[0], 0x0b);
		cr_assert_eq(d[5], 0x0b);
		cr_assert_eq(d[6], 0x0a);
		cr_assert_eq(d[11], 0x0a);
	}
	unic_pkt_free_bulk(p, 8);
	cr_assert_eq(exec("stop"), 0);
	cr_assert_eq(exec("set fwd io"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(8);
	cr_assert_eq(far_recv(p, 8), 8);
	for (unsigned i = 0; i < 8; i++) {
		const uint8_t *d = unic_pkt_data(p[i]);

		cr_assert_eq(d[0], 0x0a);
		cr_assert_eq(d[6], 0x0b);
	}
	unic_pkt_free_bulk(p, 8);
	cr_assert_eq(exec("stop"), 0);
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint16_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += be16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

Test(testpmd_engine, txonly_frames_are_ipv4_udp_with_good_checksums_over_every_segment,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[64];
	uint8_t flat[512];

	cr_assert_eq(exec("set fwd txonly"), 0);
	cr_assert_eq(exec("set txpkts 64,100,21"), 0);
	cr_assert_eq(exec("set burst 4"), 0);
	cr_assert_eq(exec("start"), 0);
	cr_assert_eq(far_recv(p, 4), 4);
	cr_assert_eq(exec("stop"), 0);
	for (unsigned i = 0; i < 4; i++) {
		size_t off = 0;

		cr_assert_eq(p[i]->pkt_len, 185);
		cr_assert_eq(p[i]->nb_segs, 3);
		for (struct unic_pkt *s = p[i]; s; s = s->next) {
			memcpy(flat + off, unic_pkt_data(s), s->data_len);
			off += s->data_len;
		}
		cr_assert_eq(off, 185);
		cr_assert_eq(be16(flat + 12), 0x0800, "IPv4");
		cr_assert_eq(flat[14], 0x45);
		cr_assert_eq(be16(flat + 16), 185 - 14, "IP total length");
		cr_assert_eq(flat[23], 17, "UDP");
		cr_assert_eq(sum16(0, flat + 14, 20), 0xffff, "IP header checksum");
		cr_assert_eq(be16(flat + 38), 185 - 34, "UDP length");
		/* UDP checksum over the pseudo-header and the whole datagram. */
		uint32_t ph = sum16(0, flat + 26, 8) + 17 + (185 - 34);

		cr_assert_eq(sum16(ph, flat + 34, 185 - 34), 0xffff, "UDP checksum");
		unic_pkt_free(p[i]);
	}
	/* The pool gets every segment back. */
	cr_assert_eq(exec("port stop all"), 0);
}

Test(testpmd_engine, flowgen_spreads_destinations_and_frees_what_it_receives, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[64];
	bool seen[64] = { false };
	unsigned distinct = 0;

	cr_assert_eq(exec("set fwd flowgen"), 0);
	cr_assert_eq(exec("set burst 16"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(10);
	cr_assert_eq(far_recv(p, 64), 64);
	for (unsigned i = 0; i < 64; i++) {
		const uint8_t *d = unic_pkt_data(p[i]);

		cr_assert_eq(d[30], 198);
		cr_assert_eq(d[31], 18);
		if (!seen[d[33] % 64]) {
			seen[d[33] % 64] = true;
			distinct++;
		}
	}
	unic_pkt_free_bulk(p, 64);
	cr_assert_geq(distinct, 32, "consecutive frames go to different addresses");
	/* What flowgen received from the far side it counted and freed. */
	uint64_t end = unic_time_ns() + 5000000000ull;

	while (unic_counter_read(&tp_cnt(app, near_id, 0)->rx) < 10 && unic_time_ns() < end)
		usleep(1000);
	cr_assert_eq(unic_counter_read(&tp_cnt(app, near_id, 0)->rx), 10);
	cr_assert_eq(exec("stop"), 0);
}

Test(testpmd_engine, a_packet_the_port_refuses_is_dropped_not_sent_and_the_rest_of_the_burst_goes_out,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	/* Every engine that transmits (io, mac, macswap, csum, txonly,
	 * flowgen) sends through tp_tx_send. */
	struct unic_port *b = refusing_port_up(far_pool);
	struct tp_qcnt *cnt = aligned_alloc(64, sizeof(*cnt));
	struct tp_stream s;
	struct unic_pkt *pkts[6];
	struct unic_port_stats st;

	cr_assert_not_null(b);
	memset(cnt, 0, sizeof(*cnt));
	memset(&s, 0, sizeof(s));
	s.txp = b;
	s.tx_q = 0;
	s.txc = cnt;
	uint32_t before = unic_pool_in_use_count(far_pool);

	cr_assert_eq(unic_pkt_alloc_bulk(far_pool, pkts, 6), 0);
	for (int i = 0; i < 6; i++) {
		memset(unic_pkt_data(pkts[i]), 0, 64);
		((uint8_t *)unic_pkt_data(pkts[i]))[12] = (uint8_t)i;
		pkts[i]->data_len = pkts[i]->pkt_len = 64;
	}
	refusing_mark_bad(pkts[1]);
	refusing_mark_bad(pkts[2]);
	refusing_mark_bad(pkts[5]);
	tp_tx_send(&s, pkts, 6);
	cr_assert_eq(unic_counter_read(&cnt->tx), 3, "sent: only the packets the port accepts (got %" PRIu64 ")", unic_counter_read(&cnt->tx));
	cr_assert_eq(unic_counter_read(&cnt->dropped), 3, "the refused ones are dropped (got %" PRIu64 ")", unic_counter_read(&cnt->dropped));
	cr_assert_eq(refusing_priv(b)->sent, 3, "the others in the burst are sent");
	cr_assert_eq(refusing_priv(b)->sent_mark[0], 0);
	cr_assert_eq(refusing_priv(b)->sent_mark[1], 3);
	cr_assert_eq(refusing_priv(b)->sent_mark[2], 4);
	cr_assert_eq(unic_port_stats_get(b, &st), 0);
	cr_assert_eq(st.oerrors, 0, "a refused packet never reaches the port's tx_burst");
	cr_assert_eq(unic_pool_in_use_count(far_pool), before, "every packet freed");
	refusing_port_down(b);
	free(cnt);
}

/* ---- the csum engine ------------------------------------------------------------- */

/*
 * A frame with deliberately wrong checksums (0xdead): Ethernet [802.1Q 7],
 * IPv4 (10.0.0.1 -> 10.0.0.2) or IPv6 (fd00::1 -> fd00::2), TCP (20-byte
 * header) or UDP, @p pay payload bytes. @return its length.
 */
static size_t make_frame(uint8_t *f, bool v6, uint8_t proto, bool vlan, size_t pay)
{
	size_t l2 = vlan ? 18 : 14, l3 = v6 ? 40 : 20, l4 = proto == 6 ? 20 : 8, n = l2 + l3 + l4 + pay;
	uint8_t *ip = f + l2, *t = ip + l3;

	memset(f, 0, n);
	memset(f, 0x0a, 6);
	memset(f + 6, 0x0b, 6);
	if (vlan) {
		f[12] = 0x81;
		f[15] = 7;
	}
	f[l2 - 2] = v6 ? 0x86 : 0x08;
	f[l2 - 1] = v6 ? 0xdd : 0x00;
	if (v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)((l4 + pay) >> 8);
		ip[5] = (uint8_t)(l4 + pay);
		ip[6] = proto;
		ip[7] = 64;
		ip[8] = ip[24] = 0xfd;
		ip[23] = 1;
		ip[39] = 2;
	} else {
		ip[0] = 0x45;
		ip[2] = (uint8_t)((l3 + l4 + pay) >> 8);
		ip[3] = (uint8_t)(l3 + l4 + pay);
		ip[8] = 64;
		ip[9] = proto;
		ip[10] = 0xde; /* wrong header checksum */
		ip[11] = 0xad;
		ip[12] = ip[16] = 10;
		ip[15] = 1;
		ip[19] = 2;
	}
	t[0] = 0x30; /* ports 12345 -> 80 */
	t[1] = 0x39;
	t[3] = 80;
	if (proto == 6) {
		t[12] = 0x50;  /* 20-byte header */
		t[13] = 0x18;  /* PSH ACK */
		t[14] = 0xff;
		t[16] = 0xde;  /* wrong checksum */
		t[17] = 0xad;
	} else {
		t[4] = (uint8_t)((8 + pay) >> 8);
		t[5] = (uint8_t)(8 + pay);
		t[6] = 0xde;
		t[7] = 0xad;
	}
	for (size_t i = 0; i < pay; i++)
		t[l4 + i] = (uint8_t)(i * 7 + 3);
	return n;
}

/* The pseudo-header sum of the frame at @p ip (not complemented), by hand. */
static uint32_t test_phdr(const uint8_t *ip, bool v6, uint8_t proto, uint32_t len)
{
	uint32_t s = v6 ? sum16(0, ip + 8, 32) : sum16(0, ip + 12, 8);

	return sum16(s + proto + (len >> 16) + (len & 0xffff), NULL, 0);
}

/* Do the frame's checksums hold? Checked with this file's own sum16. */
static void assert_good_checksums(const uint8_t *f, size_t n, bool v6, uint8_t proto, bool vlan)
{
	size_t l2 = vlan ? 18 : 14, l3 = v6 ? 40 : 20;
	uint32_t l4len = (uint32_t)(n - l2 - l3);

	if (!v6)
		cr_assert_eq(sum16(0, f + l2, 20), 0xffff, "IPv4 header checksum");
	cr_assert_eq(sum16(test_phdr(f + l2, v6, proto, l4len), f + l2 + l3, l4len), 0xffff,
		     "%s checksum (v6 %d, vlan %d)", proto == 6 ? "TCP" : "UDP", v6, vlan);
	cr_assert_neq(be16(f + l2 + l3 + (proto == 6 ? 16 : 6)), 0xdead, "the wrong value was replaced");
}

static void far_send_frame(const uint8_t *f, size_t n)
{
	struct unic_pkt *p = unic_pkt_alloc(far_pool);

	cr_assert_not_null(p);
	memcpy(unic_pkt_append(p, (uint16_t)n), f, n);
	cr_assert_eq(unic_tx_burst(far, 0, &p, 1), 1);
}

Test(testpmd_engine, csum_in_software_fixes_wrong_ipv4_ipv6_tcp_udp_checksums_vlan_too, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	static const struct { bool v6; uint8_t proto; bool vlan; size_t pay; } c[] = {
		{ false, 17, false, 100 }, { false, 6, false, 333 }, { true, 17, false, 64 },
		{ true, 6, false, 1001 }, { false, 6, true, 50 }, { true, 17, true, 7 },
	};
	const size_t nc = sizeof(c) / sizeof(c[0]);
	uint8_t f[2048], mac[6];
	struct unic_pkt *p[16];

	cr_assert_eq(exec("set fwd csum"), 0);
	cr_assert_eq(exec("start"), 0);
	for (size_t i = 0; i < nc; i++)
		far_send_frame(f, make_frame(f, c[i].v6, c[i].proto, c[i].vlan, c[i].pay));
	cr_assert_eq(far_recv(p, (unsigned)nc), nc);
	cr_assert_eq(unic_port_mac_get(app->ports[near_id].port, mac), 0);
	for (size_t i = 0; i < nc; i++) {
		const uint8_t *d = unic_pkt_data(p[i]);
		uint8_t want[2048];
		size_t n = make_frame(want, c[i].v6, c[i].proto, c[i].vlan, c[i].pay);
		const uint8_t dst[6] = { 2, 0, 0, 0, 0, (uint8_t)near_id };

		cr_assert_eq(p[i]->pkt_len, n);
		cr_assert_eq(memcmp(d, dst, 6), 0, "MAC forwarding: the peer's destination");
		cr_assert_eq(memcmp(d + 6, mac, 6), 0, "and the tx port's source");
		assert_good_checksums(d, n, c[i].v6, c[i].proto, c[i].vlan);
		/* Nothing else changed: only the checksum fields differ. */
		size_t l2 = c[i].vlan ? 18 : 14, l3 = c[i].v6 ? 40 : 20;
		size_t ck = l2 + l3 + (c[i].proto == 6 ? 16 : 6);

		for (size_t k = 12; k < n; k++)
			if (k != ck && k != ck + 1 && (c[i].v6 || (k != l2 + 10 && k != l2 + 11)))
				cr_assert_eq(d[k], want[k], "frame %zu byte %zu changed", i, k);
		cr_assert_eq(p[i]->ol_flags & (UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_CKSUM |
					       UNIC_PKT_TX_UDP_CKSUM | UNIC_PKT_TX_TCP_SEG), 0,
			     "software mode asks nothing of the NIC");
	}
	unic_pkt_free_bulk(p, (unsigned)nc);
	cr_assert_eq(exec("stop"), 0);
	fflush(app->out);
	/* Every frame came with a wrong L4 checksum, the 3 IPv4 ones with a
	 * wrong header checksum; the ring port reports none: software. */
	HAS(outbuf, "Bad-ipcsum: 3              Bad-l4csum: 6              Bad-headers: 0");
	HAS(outbuf, "Rx checksums checked by the NIC (rx flags): 0, in software: 6");
}

Test(testpmd_engine, csum_counts_a_truncated_or_inconsistent_packet_and_forwards_it_unchanged,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	uint8_t f[256];
	struct unic_pkt *p[8];
	size_t cut[4];

	cr_assert_eq(exec("set fwd csum"), 0);
	cr_assert_eq(exec("start"), 0);
	/* 1: cut inside the TCP header; 2: IPv4 total length past the frame;
	 * 3: 10 bytes of Ethernet; 4: VLAN tag without its ethertype;
	 * 5: a correct UDP frame after them all, to show the engine goes on. */
	cut[0] = make_frame(f, false, 6, false, 40) - 45;
	far_send_frame(f, cut[0]);
	cut[1] = make_frame(f, false, 17, false, 10);
	f[16] = 0x05; /* total length 1300 */
	far_send_frame(f, cut[1]);
	cut[2] = 10;
	far_send_frame(f, cut[2]);
	cut[3] = 16;
	make_frame(f, false, 17, true, 10);
	far_send_frame(f, cut[3]);
	far_send_frame(f, make_frame(f, true, 17, false, 10));
	cr_assert_eq(far_recv(p, 5), 5);
	for (unsigned i = 0; i < 4; i++) {
		const uint8_t *d = unic_pkt_data(p[i]);

		cr_assert_eq(p[i]->pkt_len, cut[i]);
		cr_assert_eq(d[0], 0x0a, "a bad packet is forwarded unchanged: its MAC too");
		cr_assert_eq(d[6 % cut[i]], 0x0b);
	}
	cr_assert_eq(((uint8_t *)unic_pkt_data(p[1]))[16], 0x05, "the bad length is left alone");
	assert_good_checksums(unic_pkt_data(p[4]), p[4]->pkt_len, true, 17, false);
	unic_pkt_free_bulk(p, 5);
	cr_assert_eq(exec("stop"), 0);
	fflush(app->out);
	HAS(outbuf, "Bad-headers: 4");
}

/* tp_csum_pkt on one packet of @p n bytes copied from @p f (in one or two segments). */
static struct unic_pkt *csum_one(const struct tp_csum_cfg *cfg, const uint8_t *f, size_t n, size_t seg1,
				 struct tp_qcnt *c)
{
	struct unic_pkt *p = unic_pkt_alloc(far_pool), *q;

	cr_assert_not_null(p);
	if (seg1 == 0 || seg1 >= n) {
		memcpy(unic_pkt_append(p, (uint16_t)n), f, n);
	} else {
		q = unic_pkt_alloc(far_pool);
		cr_assert_not_null(q);
		memcpy(unic_pkt_append(p, (uint16_t)seg1), f, seg1);
		memcpy(unic_pkt_append(q, (uint16_t)(n - seg1)), f + seg1, n - seg1);
		p->next = q;
		p->pkt_len = (uint32_t)n;
		p->nb_segs = 2;
	}
	tp_csum_pkt(cfg, p, c);
	return p;
}

Test(testpmd_engine, csum_in_hardware_sets_flags_lengths_and_the_offload_contract_fields, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	/* The ring port offers no tx offloads, so this drives the engine's
	 * per-packet step directly with a tx port that offers them (an
	 * e1000e); the rig's testpmd scenario runs it on one. */
	struct tp_csum_cfg cfg = { .hw_ip = true, .hw_udp = true, .hw_tcp = true };
	struct tp_qcnt c;
	uint8_t f[4096];
	struct unic_pkt *p;
	const uint8_t *d;
	size_t n;

	memset(&c, 0, sizeof(c));
	memset(cfg.eth, 0x22, 12);
	/* IPv4/UDP: IPv4 field zeroed, UDP field = pseudo-header sum (with the length). */
	n = make_frame(f, false, 17, false, 100);
	p = csum_one(&cfg, f, n, 0, &c);
	d = unic_pkt_data(p);
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_UDP_CKSUM);
	cr_assert_eq(p->l2_len, 14);
	cr_assert_eq(p->l3_len, 20);
	cr_assert_eq(p->l4_len, 8);
	cr_assert_eq(be16(d + 24), 0, "IPv4 checksum field zeroed for the NIC");
	cr_assert_eq(be16(d + 40), test_phdr(d + 14, false, 17, 108), "UDP seeded with the pseudo-header sum");
	cr_assert_eq(d[0], 0x22, "MAC forwarding");
	unic_pkt_free(p);

	/* IPv6/TCP behind a VLAN tag: l2_len 18, IPV6 (never IP_CKSUM). */
	n = make_frame(f, true, 6, true, 300);
	p = csum_one(&cfg, f, n, 0, &c);
	d = unic_pkt_data(p);
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV6 | UNIC_PKT_TX_TCP_CKSUM);
	cr_assert_eq(p->l2_len, 18);
	cr_assert_eq(p->l3_len, 40);
	cr_assert_eq(p->l4_len, 20);
	cr_assert_eq(be16(d + 18 + 40 + 16), test_phdr(d + 18, true, 6, 320));
	unic_pkt_free(p);

	/* IP in hardware, TCP in software: the TCP checksum is whole. */
	cfg.hw_tcp = false;
	n = make_frame(f, false, 6, false, 77);
	p = csum_one(&cfg, f, n, 60, &c); /* two segments */
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM);
	{
		uint8_t flat[256];

		memcpy(flat, unic_pkt_data(p), 60);
		memcpy(flat + 60, unic_pkt_data(p->next), n - 60);
		cr_assert_eq(sum16(test_phdr(flat + 14, false, 6, (uint32_t)(n - 34)), flat + 34, n - 34), 0xffff);
		cr_assert_eq(be16(flat + 24), 0);
	}
	unic_pkt_free(p);

	/* TSO: a TCP payload above the size asks for segmentation, seed without the length. */
	cfg.tso_mss = 1000;
	n = make_frame(f, false, 6, false, 3000);
	p = csum_one(&cfg, f, n, 1500, &c);
	d = unic_pkt_data(p);
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_SEG);
	cr_assert_eq(p->tso_segsz, 1000);
	cr_assert_eq(p->l4_len, 20);
	cr_assert_eq(be16(d + 50), test_phdr(d + 14, false, 6, 0), "TSO seed leaves the length out");
	unic_pkt_free(p);
	/* At or below the size: no TSO (TCP in software here). */
	n = make_frame(f, false, 6, false, 1000);
	p = csum_one(&cfg, f, n, 0, &c);
	cr_assert_eq(p->ol_flags & UNIC_PKT_TX_TCP_SEG, 0);
	unic_pkt_free(p);
	/* UDP is never segmented. */
	n = make_frame(f, false, 17, false, 3000);
	p = csum_one(&cfg, f, n, 1500, &c);
	cr_assert_eq(p->ol_flags & UNIC_PKT_TX_TCP_SEG, 0);
	unic_pkt_free(p);

	/* A short frame padded to 60 bytes: the padding goes before the NIC
	 * is asked to checksum to the end of the frame. */
	cfg.hw_tcp = true;
	n = make_frame(f, false, 6, false, 0);
	cr_assert_eq(n, 54);
	memset(f + 54, 0xee, 6);
	p = csum_one(&cfg, f, 60, 0, &c);
	cr_assert_eq(p->pkt_len, 54, "padding trimmed");
	cr_assert_eq(p->data_len, 54);
	cr_assert_eq(p->ol_flags, UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_CKSUM);
	unic_pkt_free(p);

	/* Rx verdicts: the NIC's flags when it set them, else software. */
	cr_assert_eq(unic_counter_read(&c.ck_sw), 7);
	cr_assert_eq(unic_counter_read(&c.ck_nic), 0);
	cr_assert_eq(unic_counter_read(&c.bad_l4), 7, "every frame came with 0xdead");
	n = make_frame(f, false, 17, false, 10);
	{
		struct unic_pkt *q = unic_pkt_alloc(far_pool);

		memcpy(unic_pkt_append(q, (uint16_t)n), f, n);
		q->ol_flags = UNIC_PKT_RX_IP_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_GOOD;
		tp_csum_pkt(&cfg, q, &c);
		cr_assert_eq(unic_counter_read(&c.ck_nic), 1);
		cr_assert_eq(unic_counter_read(&c.bad_l4), 7, "the NIC said good: believed");
		cr_assert_eq(q->ol_flags & (UNIC_PKT_RX_IP_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_GOOD), 0,
			     "rx flags do not go on to the tx side");
		unic_pkt_free(q);
	}
	cr_assert_eq(unic_pool_in_use_count(far_pool), 0);
}

Test(testpmd_engine, a_removed_device_is_detached_and_forwarding_goes_on_without_it, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	cr_assert_eq(tp_events_register(app), 0);
	cr_assert_eq(exec("start"), 0);
	cr_assert_eq(unic_port_event_post(app->ports[near_id].port, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_port_event_post(app->ports[near_id].port, UNIC_EVENT_DEV_GONE), 0);
	cr_assert_geq(unic_event_dispatch(), 2);
	fflush(app->out);
	HAS(outbuf, "link state change event: link up");
	HAS(outbuf, "device removal event (dev_gone): detaching it; the other ports keep forwarding");
	cr_assert_null(app->ports[near_id].port, "the port is gone from testpmd");
	cr_assert(app->fwd_on, "forwarding stays on");
	cr_assert_eq(app->nb_streams, 0);
	cr_assert_eq(exec("stop"), 0);
	fflush(app->out);
	HAS(outbuf, "(detached)");
	tp_events_unregister(app);
}

/* testpmd's port on @p nq queues each way, started again. */
static void near_queues(unsigned nq)
{
	char line[64];

	snprintf(line, sizeof(line), "port stop %u", near_id);
	cr_assert_eq(exec(line), 0);
	snprintf(line, sizeof(line), "port config %u rxq %u", near_id, nq);
	cr_assert_eq(exec(line), 0);
	snprintf(line, sizeof(line), "port config %u txq %u", near_id, nq);
	cr_assert_eq(exec(line), 0);
	snprintf(line, sizeof(line), "port start %u", near_id);
	fflush(app->out);
	cr_assert_eq(exec(line), 0, "%s", outbuf);
}

Test(testpmd_engine, a_thread_claims_every_tx_queue_its_streams_send_on_even_past_eight,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .mode = UNIC_RX_MODE_POLL };
	struct unic_napi_ctx *other = unic_napi_ctx_create(&nc);
	struct unic_port *near;

	cr_assert_not_null(other);
	near_queues(12);
	near = app->ports[near_id].port;
	fflush(app->out);
	cr_assert_eq(exec("start"), 0, "%s", outbuf);
	cr_assert_eq(app->nb_streams, 12);
	/* One thread, 12 streams: every tx queue is the thread's, so a stop
	 * of the port waits for it before the driver stops. */
	for (uint16_t q = 0; q < 12; q++)
		cr_assert_eq(unic_napi_txq_add(other, near, q), -EBUSY, "tx queue %u is not claimed", q);
	cr_assert_eq(exec("stop"), 0);
	unic_napi_ctx_destroy(other);
}

Test(testpmd_engine, start_refuses_a_tx_queue_it_cannot_claim_and_names_it, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .mode = UNIC_RX_MODE_POLL };
	struct unic_napi_ctx *other = unic_napi_ctx_create(&nc);
	char want[128];

	cr_assert_not_null(other);
	near_queues(4);
	cr_assert_eq(unic_napi_txq_add(other, app->ports[near_id].port, 3), 0);
	cr_assert_neq(exec("start"), 0, "forwarding started with a tx queue another context holds");
	cr_assert(!app->fwd_on);
	fflush(app->out);
	snprintf(want, sizeof(want), "cannot claim port %u tx queue 3 to send on: Device or resource busy",
		 near_id);
	HAS(outbuf, want);
	unic_napi_ctx_destroy(other);
}

/* ---- the binary ---------------------------------------------------------------------- */

static const char *binary(void)
{
	return binary_path("UNIC_TESTPMD");
}

/*
 * Run the binary with @p args and the script @p script (as -f FILE, or on
 * stdin with @p on_stdin); stdout and stderr into buf. @return exit status.
 */
static int run_ex(const char *args, const char *script, bool on_stdin, char *buf, size_t len)
{
	char path[] = "/tmp/test_testpmd_XXXXXX", cmdline[2048];
	int fd = mkstemp(path), st;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, script, strlen(script)), (ssize_t)strlen(script));
	close(fd);
	if (on_stdin)
		snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci %s < %s 2>&1", binary(), args, path);
	else
		snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci %s -f %s 2>&1 < /dev/null", binary(),
			 args, path);
	st = binary_run(cmdline, buf, len);
	unlink(path);
	return st;
}

static int run(const char *args, const char *script, char *buf, size_t len)
{
	return run_ex(args, script, false, buf, len);
}

#define RING_PAIR "--vdev ring0 --vdev ring1,peer=ring0"

/* The number after @p key, in the text after @p anchor (which must be there). */
static uint64_t num_after(const char *s, const char *anchor, const char *key)
{
	const char *a = strstr(s, anchor), *k;

	cr_assert_not_null(a, "'%s' not in:\n%s", anchor, s);
	k = strstr(a, key);
	cr_assert_not_null(k, "'%s' not after '%s' in:\n%s", key, anchor, s);
	return strtoull(k + strlen(key), NULL, 10);
}

static char out[1 << 18];

Test(testpmd_binary, io_over_a_ring_pair_forward_and_nic_statistics_agree, .timeout = 60)
{
	uint64_t rx, tx, nic0, fwd0;

	cr_assert_eq(run(RING_PAIR, "start tx_first\nsleep 300\nstop\nshow port stats all\nquit\n", out,
			 sizeof(out)), 0, "%s", out);
	HAS(out, "io packet forwarding - ports=2 - cores=1 - streams=2");
	rx = num_after(out, "Accumulated forward statistics", "RX-packets:");
	tx = num_after(out, "Accumulated forward statistics", "TX-packets:");
	cr_assert_gt(rx, 1000, "only %" PRIu64 " packets forwarded", rx);
	/* 2 x 32 packets sent first circle; at a stop they sit in the rings. */
	cr_assert_eq(tx - rx, 64, "tx %" PRIu64 " rx %" PRIu64, tx, rx);
	cr_assert_eq(num_after(out, "Accumulated forward statistics", "TX-dropped:"), 0);
	fwd0 = num_after(out, "Forward statistics for port 0", "RX-packets:");
	nic0 = num_after(out, "NIC statistics for port 0", "RX-packets:");
	cr_assert_eq(nic0, fwd0, "every packet port 0 received went through the engine");
	cr_assert_eq(num_after(out, "NIC statistics for port 1", "TX-packets:"),
		     num_after(out, "Forward statistics for port 1", "TX-packets:"));
	cr_assert_gt(num_after(out, "NIC statistics for port 0", "Rx-pps:"), 1000,
		     "the first show gives the rate since the port started");
	HAS(out, "RX-missed:");
	HAS(out, "RX-bytes:");
	HAS(out, "RX-errors:");
	HAS(out, "RX-nombuf:");
	HAS(out, "TX-errors:");
	HAS(out, "TX-bytes:");
	HAS(out, "Rx-pps:");
	HAS(out, "Tx-pps:");
	HAS(out, "  ######################## NIC statistics for port 0  ########################");
	HAS(out, "Bye...");
}

Test(testpmd_binary, fwd_stats_show_while_running_and_clear_to_zero, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "start tx_first\nsleep 200\nshow fwd stats all\nstop\nclear fwd stats all\n"
			 "show fwd stats all\n", out, sizeof(out)), 0, "%s", out);
	const char *during = strstr(out, "testpmd> show fwd stats all"), *after;

	cr_assert_not_null(during);
	cr_assert_gt(num_after(during, "Accumulated forward statistics", "RX-packets:"), 1000);
	after = strstr(out, "forward statistics cleared");
	cr_assert_not_null(after, "%s", out);
	cr_assert_eq(num_after(after, "Accumulated forward statistics", "RX-packets:"), 0);
	cr_assert_eq(num_after(after, "Accumulated forward statistics", "TX-packets:"), 0);
}

Test(testpmd_binary, rxonly_counts_each_packet_sent_first_exactly_once, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "set fwd rxonly\nstart tx_first 2\nsleep 1000\nstop\n", out, sizeof(out)), 0,
		     "%s", out);
	cr_assert_eq(num_after(out, "Accumulated forward statistics", "RX-packets:"), 128, "%s", out);
	cr_assert_eq(num_after(out, "Accumulated forward statistics", "TX-packets:"), 128);
	cr_assert_eq(num_after(out, "Forward statistics for port 0", "RX-packets:"), 64);
}

Test(testpmd_binary, txonly_fills_the_peer_rings_and_counts_what_they_refuse, .timeout = 60)
{
	uint64_t tx, dropped;

	cr_assert_eq(run(RING_PAIR, "set fwd txonly\nset burst 64\nstart\nsleep 300\nstop\nshow port xstats 0\n",
			 out, sizeof(out)), 0, "%s", out);
	tx = num_after(out, "Accumulated forward statistics", "TX-packets:");
	dropped = num_after(out, "Accumulated forward statistics", "TX-dropped:");
	cr_assert_eq(num_after(out, "Accumulated forward statistics", "RX-packets:"), 0, "txonly never receives");
	cr_assert(tx >= 2000 && tx <= 2048, "two rings of 1024 fill up: %" PRIu64, tx);
	cr_assert_gt(dropped, 0);
	cr_assert_eq(num_after(out, "NIC extended statistics for port 0", "tx_ring_full:"),
		     num_after(out, "Forward statistics for port 0", "TX-dropped:"),
		     "what the ring refused is what testpmd dropped");
}

static void engine_forwards(const char *engine)
{
	char script[256];

	snprintf(script, sizeof(script), "set fwd %s\nstart tx_first\nsleep 300\nshow config fwd\nstop\n", engine);
	cr_assert_eq(run(RING_PAIR, script, out, sizeof(out)), 0, "%s", out);
	HAS(out, "RX P=0/Q=0 -> TX P=1/Q=0");
	cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000, "%s: %s", engine, out);
}

Test(testpmd_binary, mac_macswap_and_flowgen_forward_over_a_ring_pair, .timeout = 60)
{
	engine_forwards("mac");
	engine_forwards("macswap");
	engine_forwards("flowgen");
}

Test(testpmd_binary, each_rx_mode_forwards_and_shows_its_napi_figures, .timeout = 60)
{
	static const char *const modes[] = { "poll", "interrupt", "hybrid" };

	for (int i = 0; i < 3; i++) {
		char script[512], want[64];

		snprintf(script, sizeof(script),
			 "port stop all\nset rx-mode all %s budget=64 weight=32\nport start all\nstart tx_first\n"
			 "sleep 300\nshow port napi 0\nshow config fwd\nstop\n", modes[i]);
		cr_assert_eq(run(RING_PAIR, script, out, sizeof(out)), 0, "%s", out);
		snprintf(want, sizeof(want), "(%s): polls", modes[i]);
		HAS(out, want);
		HAS(out, "knobs budget 64 weight 32");
		cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000, "%s: %s",
			     modes[i], out);
	}
	/* A port without rx interrupts polls, and says so. */
	cr_assert_eq(run("--vdev null0", "port stop 0\nset rx-mode 0 interrupt\nport start 0\nshow port info 0\n",
			 out, sizeof(out)), 0, "%s", out);
	HAS(out, "note: port 0 (null) has no rx interrupts: it will poll");
	HAS(out, "Receive mode: poll");
}

Test(testpmd_binary, ports_in_different_modes_get_their_own_threads, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "port stop 0\nset rx-mode 0 poll\nport start 0\nstart tx_first\nsleep 200\n"
			 "show config fwd\nstop\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "need 2 threads (nbcore is 1)");
	HAS(out, "Thread 0 (not pinned, poll)");
	HAS(out, "Thread 1 (not pinned, hybrid)");
	cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000);
}

Test(testpmd_binary, commands_that_need_a_stopped_port_say_how_to_stop_it, .timeout = 60)
{
	static const char *const cmds[] = {
		"port config 0 rxq 2", "port config all txd 512", "port config 0 mtu 9000",
		"port config mtu 0 9000", "set rx-mode 0 poll", "vlan set strip 0 on",
		"vlan set filter on 0", "tx_vlan set 0 5", "tx_vlan reset 0", "csum set ip sw 0",
		"tso set 0 0",
	};

	for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char script[128];

		snprintf(script, sizeof(script), "%s\n", cmds[i]);
		cr_assert_eq(run("--vdev null0", script, out, sizeof(out)), 1, "%s: %s", cmds[i], out);
		HAS(out, "port 0 must be stopped first: run 'port stop 0'");
	}
}

Test(testpmd_binary, forwarding_settings_wait_for_stop_and_start_stop_say_their_state, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR " --continue",
			 "stop\nstart\nstart\nset fwd mac\nset burst 8\nset nbcore 2\nset txpkts 64\nstop\n"
			 "set fwd mac\n", out, sizeof(out)), 1, "%s", out);
	HAS(out, "Packet forwarding not started");
	HAS(out, "Packet forwarding already started");
	cr_assert_eq(strstr(strstr(out, "set nbcore 2"), "packet forwarding is running: run 'stop' first") != NULL,
		     true, "%s", out);
	HAS(out, "Set mac packet forwarding mode");
}

Test(testpmd_binary, start_refuses_a_port_with_more_rx_queues_than_its_partner_has_tx_queues, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "port stop all\nport config 0 rxq 2\nport start all\nset fwd rxonly\n"
			 "start tx_first\n", out, sizeof(out)), 1, "%s", out);
	HAS(out, "port 0 has 2 rx queues but port 1, where it sends, has 1 tx queues; "
		 "give them as many ('port config all txq 2', then restart the ports)");
	HASNT(out, "packet forwarding - ports=");
}

Test(testpmd_binary, a_batch_stops_at_the_first_failure_unless_continue, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0", "show port link 0\nset burst 0\nshow port info 0\n", out, sizeof(out)), 1);
	HAS(out, "set burst: 0; expected 1..256");
	HAS(out, "usage: set burst <n>");
	HAS(out, ":2: the command failed; stopping (--continue runs on)");
	HASNT(out, "Infos for port 0");
	HAS(out, "Bye..."); /* ports are closed even so */

	cr_assert_eq(run("--vdev null0 --continue", "set burst 0\nshow port info 0\n", out, sizeof(out)), 1);
	HAS(out, "Infos for port 0");

	cr_assert_eq(run("--vdev null0", "show port link 0\n# done\n\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Port 0 Link up - speed 10000 Mbps - full-duplex");
}

Test(testpmd_binary, stdin_that_is_not_a_terminal_is_a_batch, .timeout = 60)
{
	cr_assert_eq(run_ex("--vdev null0", "show port link 0\nquit\nshow port info 0\n", true, out, sizeof(out)), 0,
		     "%s", out);
	HAS(out, "Port 0 Link up");
	HASNT(out, "Infos for port 0");
	cr_assert_eq(run_ex("--vdev null0", "bogus\n", true, out, sizeof(out)), 1);
	HAS(out, "unknown command 'bogus'");
}

Test(testpmd_binary, bad_syntax_prints_the_usage_line, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0 --continue",
			 "port config 0 mtu\nshow port stats 99\nset rx-mode 0 poll budget=0\nmac_addr set 0 zz\n"
			 "help nothing\n", out, sizeof(out)), 1);
	HAS(out, "missing argument <n>\nusage: port config <port> mtu <n>");
	HAS(out, "bad value '99' for <port|all>");
	HAS(out, "set rx-mode: budget=0: expected 1..65535");
	HAS(out, "bad value 'zz' for <mac>");
	HAS(out, "no command starts with 'nothing'");
}

Test(testpmd_binary, ops_a_driver_lacks_come_back_as_enotsup, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0 --continue",
			 "set promisc 0 on\nset allmulti all off\nmac_addr set 0 02:00:00:00:00:33\n"
			 "mac_addr add 0 02:00:00:00:00:34\nmac_addr remove 0 02:00:00:00:00:34\n"
			 "set link down 0\nset link-up port 0\nport config 0 coalesce tx-usecs 4\n"
			 "rx_vlan add 5 0\nshow port regs 0\nshow port eeprom 0\nport stop 0\n"
			 "csum set udp hw 0\ntso set 1460 0\nvlan set strip 0 on\ntx_vlan set 0 7\n",
			 out, sizeof(out)), 1);
	static const char *const what[] = { "promiscuous mode", "allmulticast mode", "mac_addr set",
		"mac_addr add", "mac_addr remove", "set link down", "set link up", "coalesce",
		"rx_vlan add", "register dump", "EEPROM dump" };

	for (unsigned i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		char want[128];

		snprintf(want, sizeof(want), "port 0: %s: not supported by the null driver (-ENOTSUP)", what[i]);
		HAS(out, want);
	}
	HAS(out, "port 0 (null) has no tx_udp_cksum offload (it supports: none); use 'csum set udp sw 0' (-ENOTSUP)");
	HAS(out, "has no tcp_tso offload");
	HAS(out, "has no vlan_strip offload");
	HAS(out, "has no vlan_insert offload");
}

Test(testpmd_binary, port_settings_apply_at_the_next_start_and_reset_undoes_them, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR,
			 "port stop all\nport config all rxq 2\nport config all txq 2\nport config 0 rxd 512\n"
			 "port config 0 mtu 9000\ncsum set ip sw 0\ntso set 0 0\nset msglevel 0 debug\n"
			 "show port info 0\nport start all\nshow port info 0\nshow port capabilities 0\n"
			 "start tx_first\nsleep 200\nstop\n"
			 "port reset 0\nport start 0\nshow port info 0\nclear port stats all\nshow port stats 0\n",
			 out, sizeof(out)), 0, "%s", out);
	HAS(out, "rxq 2 txq 2 rxd 512 txd 1024 mtu 9000 rx-mode hybrid (pending)");
	HAS(out, "Current number of RX queues: 2");
	HAS(out, "MTU: 9000");
	HAS(out, "Message level: debug");
	/* The port layer's getters: a ring port filters nothing. */
	HAS(out, "Promiscuous mode: enabled");
	HAS(out, "Allmulticast mode: enabled");
	HAS(out, "RXDs number alignment: 1");
	HAS(out, "Rx offloads capabilities: none");
	/* Two queues per port: four streams, each with its own line. */
	HAS(out, "Forward Stats for RX Port= 0/Queue= 1 -> TX Port= 1/Queue= 1");
	HAS(out, "Port 0: reset to the start-up configuration");
	const char *after = strstr(out, "port reset 0");

	cr_assert_not_null(after);
	HAS(after, "Current number of RX queues: 1");
	HAS(after, "MTU: 1500");
	HAS(after, "NIC statistics for port 1 cleared");
	cr_assert_eq(num_after(after, "NIC statistics for port 0", "RX-packets:"), 0);
	/* Out-of-range queue and descriptor counts are refused with the range. */
	cr_assert_eq(run(RING_PAIR " --continue", "port stop 0\nport config 0 rxq 17\nport config 0 rxd 16\n"
			 "port config 0 mtu 10\n", out, sizeof(out)), 1);
	HAS(out, "port 0: rxq 17: this port takes 1..16");
	HAS(out, "port 0: rxd 16: this port takes 32..32768");
	HAS(out, "MTU 10; this port takes 68..9216");
}

Test(testpmd_binary, csum_commands_show_settings_and_refuse_what_unic_does_not_do, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR " --continue",
			 "set fwd csum\ncsum show 0\ntso show 0\ncsum parse-tunnel off 0\ncsum parse-tunnel on 0\n"
			 "csum set sctp sw 0\ncsum set outer-udp hw 0\ncsum set tcp hw 0\nport stop 0\n"
			 "csum set tcp hw 0\ncsum set udp sw 0\ncsum show 0\ntso set 1460 0\n"
			 "port start 0\nstart tx_first\nsleep 200\nstop\n",
			 out, sizeof(out)), 1, "%s", out);
	HAS(out, "Set csum packet forwarding mode");
	HAS(out, "Parse tunnel is off (unic parses no tunnels)\nIP checksum offload is sw\n"
		 "UDP checksum offload is sw\nTCP checksum offload is sw\n");
	HAS(out, "TSO for non-tunneled packets is disabled");
	HAS(out, "Tx checksum offloads the port offers: none");
	HAS(out, "Rx checksums: this port reports none: the csum engine checks them in software");
	HAS(out, "Port 0: tunnels are not parsed");
	HAS(out, "csum parse-tunnel on: unic's csum engine parses no tunnels (VXLAN, GRE, ...): tunnels are out of scope");
	HAS(out, "csum set sctp: unic's csum engine handles IPv4, IPv6, UDP and TCP; SCTP is not parsed");
	HAS(out, "csum set outer-udp: unic's csum engine parses no tunnels");
	HAS(out, "port 0 must be stopped first: run 'port stop 0'");
	HAS(out, "port 0 (ring) has no tx_tcp_cksum offload (it supports: none); use 'csum set tcp sw 0' (-ENOTSUP)");
	HAS(out, "Port 0: udp checksum in software");
	HAS(out, "port 0 (ring) has no tcp_tso offload (it supports: none)");
	HAS(out, "csum packet forwarding - ports=2 - cores=1 - streams=2");
	/* tx_first's frames are IPv4/UDP with good checksums: none is bad. */
	HAS(out, "Bad-ipcsum: 0              Bad-l4csum: 0              Bad-headers: 0");
	cr_assert_gt(num_after(out, "Forward statistics for port 0", "in software: "), 1000);
	/* The same on a null port; its frames are zero bytes: not IP, not bad. */
	cr_assert_eq(run("--vdev null0", "set fwd csum\nstart\nsleep 100\nstop\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Bad-ipcsum: 0              Bad-l4csum: 0              Bad-headers: 0");
}

Test(testpmd_binary, attach_and_detach_while_the_other_ports_forward, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR " --continue",
			 "start tx_first\nsleep 100\nport attach null7\nport attach ring9,peer=ring8\n"
			 "port attach ring8\nport start 2\nsleep 100\nshow config fwd\nport detach 1\nsleep 200\n"
			 "show config fwd\nshow port stats 2\nstop\nport attach 00:1f.7\n",
			 out, sizeof(out)), 1, "%s", out);
	HAS(out, "Port 2 is attached (null7). Now total ports is 3");
	HAS(out, "port attach ring9,peer=ring8: Invalid argument");
	HAS(out, "Port 3 is attached (ring8)");
	const char *first = strstr(out, "show config fwd"), *second;

	cr_assert_not_null(first);
	second = strstr(first + 1, "show config fwd");
	cr_assert_not_null(second);
	HAS(first, "RX P=2/Q=0 -> TX P=2/Q=0");
	HAS(first, "Port 1 is detached");
	HASNT(second, "RX P=1/Q=0");
	HAS(second, "RX P=0/Q=0 -> TX P=2/Q=0");
	HAS(out, "Forward statistics for port 1  (detached)");
	cr_assert_gt(num_after(second, "NIC statistics for port 2", "RX-packets:"), 1000,
		     "the null port forwards after the detach");
	HAS(out, "port attach 00:1f.7: PCI is off (--no-pci)");
}

Test(testpmd_binary, quit_closes_every_port_and_prints_the_totals, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "start tx_first\nsleep 100\nquit\nshow port info 0\n", out, sizeof(out)), 0);
	HAS(out, "Telling cores to stop...");
	HAS(out, "Accumulated forward statistics");
	HAS(out, "Totals (NIC statistics)");
	HAS(out, "port 0: RX-packets:");
	HAS(out, "Closing ports...");
	HASNT(out, "Infos for port 0");
}

Test(testpmd_binary, exit_status_names_the_failure, .timeout = 60)
{
	char cmdline[512];
	int st;

	snprintf(cmdline, sizeof(cmdline), "%s --help > /dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 0);
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci --burst 0 2>/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 2);
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci --burst --continue 2>/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 2, "a missing value is not taken from the next option");
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci --frob 2>/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 2);
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci --vdev bogus0 < /dev/null 2>/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 3);
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci -f /nonexistent 2>/dev/null >/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 2);
	cr_assert_eq(run("--vdev null0 --forward-mode rxonly --nb-cores 2 --burst 16 --rxq 2 --txq 2",
			 "show config fwd\nshow port info 0\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "rxonly packet forwarding - burst=16 - nbcore=2");
	HAS(out, "Current number of RX queues: 2");
	/* -fFILE, as l2fwd's -p3: run() adds its own -f, which comes last and wins. */
	cr_assert_eq(run("--vdev null0 -f/nonexistent", "show port link 0\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Port 0 Link up");
	cr_assert_eq(run("--vdev null0 --vdev null1 --auto-start --rx-mode poll", "sleep 200\nstop\n", out,
			 sizeof(out)), 0, "%s", out);
	HAS(out, "io packet forwarding - ports=2");
	cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000);
}

Test(testpmd_binary, sigterm_during_a_sleep_quits_cleanly, .timeout = 60)
{
	int fds[2], st;
	pid_t pid;
	size_t n = 0;
	ssize_t r;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		int in[2];

		if (pipe(in) != 0 || write(in[1], "start tx_first\nsleep 20000\nshow port info 0\n", 44) != 44)
			_exit(127);
		close(in[1]);
		dup2(in[0], 0);
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		execl(binary(), "unic-testpmd", "--no-huge", "--no-pci", "--vdev", "ring0", "--vdev",
		      "ring1,peer=ring0", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	/* Wait until it sleeps (its handlers are in place by then), then signal. */
	for (uint64_t end = unic_time_ns() + 20000000000ull;
	     (out[n] = '\0', strstr(out, "testpmd> sleep 20000") == NULL) && unic_time_ns() < end;) {
		r = read(fds[0], out + n, sizeof(out) - 1 - n);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	HAS(out, "testpmd> sleep 20000");
	usleep(100 * 1000);
	cr_assert_eq(kill(pid, SIGTERM), 0);
	while ((r = read(fds[0], out + n, sizeof(out) - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "killed instead of quitting");
	HAS(out, "SIGTERM: quitting");
	HAS(out, "Accumulated forward statistics");
	HAS(out, "Bye...");
	HASNT(out, "Infos for port 0");
}

/*
 * Random commands, valid and not: every table entry instantiated with
 * values drawn from good, edge and bad ones, in a random order, run with
 * --continue over ring and null ports while ports come and go. The program
 * must survive all of it (exit 0 or 1, never a signal, no sanitizer report)
 * and still close down cleanly.
 */
static void random_line(char *line, size_t len, unsigned *seed)
{
	static const char *const ports[] = { "0", "1", "2", "3", "7", "all", "all", "63" };
	static const char *const nums[] = { "0", "1", "2", "16", "32", "64", "256", "1024", "9000",
					    "4294967295", "70000", "17" };
	static const char *const specs[] = { "null4", "ring5,peer=ring0", "ring6", "ring7,peer=ring6",
					     "bogus0", "03:00.0" };
	unsigned nb;
	const struct tp_cmd_def *t = tp_cmd_table(&nb);
	const char *s = t[rand_r(seed) % nb].syntax;
	size_t off = 0;

	if (rand_r(seed) % 8 == 0)
		s = "start tx_first"; /* keep traffic going often */
	line[0] = '\0';
	while (*s && off + 64 < len) {
		size_t l = strcspn(s, " ");
		char w[256];
		const char *v;

		snprintf(w, sizeof(w), "%.*s", (int)l, s);
		if (w[0] == '[') {
			v = rand_r(seed) % 3 ? "" : "budget=64";
		} else if (strcmp(w, "<port>") == 0 || strcmp(w, "<port|all>") == 0) {
			v = ports[rand_r(seed) % 8];
		} else if (strcmp(w, "<mac>") == 0) {
			v = rand_r(seed) % 2 ? "02:00:00:00:00:42" : "01:00:5e:00:00:01";
		} else if (strcmp(w, "<spec>") == 0) {
			v = specs[rand_r(seed) % 6];
		} else if (strcmp(w, "<sizes>") == 0) {
			v = rand_r(seed) % 2 ? "64,64,30" : "42";
		} else if (strcmp(w, "<level>") == 0) {
			v = rand_r(seed) % 2 ? "debug" : "error";
		} else if (strcmp(w, "<words...>") == 0) {
			v = "port";
		} else if (strcmp(w, "<ms>") == 0) {
			v = "5";
		} else if (w[0] == '<') {
			v = nums[rand_r(seed) % 12];
		} else {
			unsigned n = 1, k;
			char *p = w;

			for (char *c = w; *c; c++)
				n += *c == '|';
			k = rand_r(seed) % n;
			while (k--)
				p = strchr(p, '|') + 1;
			p[strcspn(p, "|")] = '\0';
			v = p;
		}
		off += (size_t)snprintf(line + off, len - off, "%s%s", off ? " " : "", v);
		s += l;
		while (*s == ' ')
			s++;
	}
	if (strncmp(line, "quit", 4) == 0 || strncmp(line, "sleep", 5) == 0)
		snprintf(line, len, "show config fwd");
	/* Now and then a word too many, or one missing. */
	if (rand_r(seed) % 10 == 0 && off + 8 < len)
		strcat(line, " extra");
	else if (rand_r(seed) % 10 == 0 && strrchr(line, ' '))
		*strrchr(line, ' ') = '\0';
}

Test(testpmd_binary, random_commands_never_crash_it, .timeout = 240)
{
	static char script[1 << 16];
	size_t off = 0;

	setenv("ASAN_OPTIONS", "exitcode=99", 1);
	for (unsigned round = 0; round < 3; round++) {
		unsigned seed = 1234 + round;

		off = 0;
		for (int i = 0; i < 250; i++) {
			char line[256];

			random_line(line, sizeof(line), &seed);
			off += (size_t)snprintf(script + off, sizeof(script) - off, "%s\n", line);
		}
		int st = run("--vdev ring0 --vdev ring1,peer=ring0 --vdev null0 --continue", script, out, sizeof(out));

		cr_assert(st == 0 || st == 1, "seed %u: exit status %d:\n%s", seed, st, out);
		if (getenv("TESTPMD_RANDOM_DUMP"))
			fprintf(stderr, "%s", out);
		HASNT(out, "Sanitizer");
		HASNT(out, "runtime error");
		HASNT(out, "internal:");
		HAS(out, "Bye...");
	}
}

/* ---- the binary at a terminal (libedit) -------------------------------------------- */

#include <poll.h>
#include <pty.h>

/* Read what the terminal shows for @p ms milliseconds, appended to out. */
static void tty_read(int fd, size_t *n, int ms)
{
	binary_tty_read(fd, out, sizeof(out), n, ms);
}

Test(testpmd_binary, at_a_terminal_tab_completes_commands_and_port_numbers_and_history_recalls,
     .timeout = 60)
{
	int fd, st;
	size_t n = 0;
	pid_t pid = forkpty(&fd, NULL, NULL, NULL);

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		setenv("HOME", "/tmp", 1);
		execl(binary(), "unic-testpmd", "--no-huge", "--no-pci", "--vdev", "null0", "--vdev", "null1",
		      (char *)NULL);
		_exit(127);
	}
	tty_read(fd, &n, 1500);
	HAS(out, "testpmd> ");
	cr_assert_eq(write(fd, "sh\t", 3), 3);
	tty_read(fd, &n, 300);
	HAS(out, "ow ");                       /* "sh" became "show " */
	cr_assert_eq(write(fd, "port li\t", 8), 8);
	tty_read(fd, &n, 300);
	cr_assert_eq(write(fd, "\t\t", 2), 2);  /* list the candidates: the ports and all */
	tty_read(fd, &n, 300);
	HAS(out, "0    1    all");
	cr_assert_eq(write(fd, "1\n", 2), 2);
	tty_read(fd, &n, 500);
	HAS(out, "Port 1 Link up");
	size_t before = n;

	cr_assert_eq(write(fd, "\033[A\n", 4), 4); /* up arrow: the last line again */
	tty_read(fd, &n, 500);
	HAS(out + before, "Port 1 Link up");
	cr_assert_eq(write(fd, "quit\n", 5), 5);
	tty_read(fd, &n, 1000);
	HAS(out, "Bye...");
	close(fd);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 0);
}
