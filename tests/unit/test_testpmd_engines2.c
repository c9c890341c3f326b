/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's noisy engine, tx retry, cycle recording, set verbose on
 * generated bursts and the commands refused by design, in this process
 * over the ring pair of testpmd_fixture.h.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/pool.h>

#include "testpmd.h"
#include "testpmd_fixture.h"

/* Receive on the far side for @p ms milliseconds (or until @p max). */
static unsigned far_recv_for(struct unic_pkt **p, unsigned max, unsigned ms)
{
	unsigned got = 0;
	uint64_t end = unic_time_ns() + (uint64_t)ms * 1000000;

	while (got < max && unic_time_ns() < end) {
		got += unic_rx_burst(far, 0, p + got, (uint16_t)(max - got > 64 ? 64 : max - got));
		usleep(200);
	}
	return got;
}

/* ---- noisy ---------------------------------------------------------------------- */

Test(testpmd_noisy, the_fifo_holds_packets_until_full_then_sends_the_oldest_and_stop_sends_the_rest,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[64];
	const char *o;

	app->noisy.bufsz = 16; /* --noisy-tx-sw-buffer-size=16, no flush time */
	cr_assert_eq(exec("set fwd noisy"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(10);
	cr_assert_eq(far_recv_for(p, 64, 200), 0, "10 packets fit in the FIFO: none sent yet");
	far_send(10);
	/* 20 > 16: the 4 oldest go out, in order. */
	cr_assert_eq(far_recv_for(p, 4, 5000), 4);
	cr_assert_eq(far_recv_for(p + 4, 60, 100), 0, "only the overflow is sent");
	for (unsigned i = 0; i < 4; i++)
		cr_assert_eq(((uint8_t *)unic_pkt_data(p[i]))[12], i, "the oldest first");
	unic_pkt_free_bulk(p, 4);
	printed();
	cr_assert_eq(exec("show fwd stats all"), 0);
	HAS(printed(), "Noisy FIFO: buffered 16 - flushes full 1, timed 0");
	cr_assert_eq(exec("stop"), 0);
	o = printed();
	/* Stop sends what the FIFO holds: nothing stranded, nothing lost. */
	cr_assert_eq(far_recv_for(p, 16, 5000), 16);
	for (unsigned i = 0; i < 16; i++)
		cr_assert_eq(((uint8_t *)unic_pkt_data(p[i]))[12], (i + 4) % 10, "order kept");
	unic_pkt_free_bulk(p, 16);
	HAS(o, "sent at stop 16");
	HAS(o, "RX-packets: 20             RX-dropped: 0              RX-total: 20");
	HAS(o, "TX-packets: 20             TX-dropped: 0");
}

Test(testpmd_noisy, the_fifo_is_flushed_after_the_flush_time, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	struct unic_pkt *p[64];
	uint64_t t0;

	app->noisy.bufsz = 64;
	app->noisy.flush_ms = 100;
	cr_assert_eq(exec("set fwd noisy"), 0);
	cr_assert_eq(exec("start"), 0);
	t0 = unic_time_ns();
	far_send(5);
	cr_assert_eq(far_recv_for(p, 5, 5000), 5, "flushed by time, without more traffic");
	cr_assert_geq(unic_time_ns() - t0, 100000000ull, "not before the flush time");
	unic_pkt_free_bulk(p, 5);
	printed();
	cr_assert_eq(exec("stop"), 0);
	HAS(printed(), "timed 1 - sent at stop 0");
}

Test(testpmd_noisy, lookups_are_done_per_packet_in_the_table, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	struct unic_pkt *p[64];

	app->noisy.writes = 2;
	app->noisy.reads = 3;
	app->noisy.rw = 1;
	cr_assert_eq(exec("set fwd noisy"), 0);
	printed();
	cr_assert_eq(exec("start"), -EINVAL, "lookups without a table are refused");
	HAS(printed(), "--noisy-lkup-memory MB, which is 0");
	app->noisy.lkup_mb = 1;
	cr_assert_eq(exec("start"), 0);
	far_send(10);
	cr_assert_eq(far_recv(p, 10), 10, "no FIFO: forwarded at once");
	unic_pkt_free_bulk(p, 10);
	cr_assert_eq(exec("stop"), 0);
	/* Per packet: reads 3 + read-writes 1, writes 2 + read-writes 1. */
	HAS(printed(), "lookups: reads 40, writes 30");
}

/* ---- retry ---------------------------------------------------------------------- */

/* Fill ring41's receive ring from ring40's tx queue (forwarding stopped). */
static unsigned fill_far(void)
{
	struct unic_pkt *p[32];
	unsigned total = 0;

	for (;;) {
		uint16_t n;

		cr_assert_eq(unic_pkt_alloc_bulk(far_pool, p, 32), 0);
		for (unsigned i = 0; i < 32; i++) {
			memset(unic_pkt_data(p[i]), 0xee, 64);
			p[i]->data_len = p[i]->pkt_len = 64;
		}
		n = unic_tx_burst(app->ports[near_id].port, 0, p, 32);
		total += n;
		if (n < 32) {
			unic_pkt_free_bulk(p + n, 32u - n);
			return total;
		}
	}
}

/* Drain the far side: @return the frames that are not filler. */
static unsigned drain_far(unsigned want, unsigned ms)
{
	struct unic_pkt *p[64];
	unsigned ours = 0;
	uint64_t end = unic_time_ns() + (uint64_t)ms * 1000000;

	while (ours < want && unic_time_ns() < end) {
		uint16_t n = unic_rx_burst(far, 0, p, 64);

		for (uint16_t i = 0; i < n; i++)
			ours += ((uint8_t *)unic_pkt_data(p[i]))[0] != 0xee;
		unic_pkt_free_bulk(p, n);
		if (n == 0)
			usleep(500);
	}
	return ours;
}

Test(testpmd_retry, a_full_queue_drops_without_retry_and_delivers_with_it, .init = eng_setup,
     .fini = eng_teardown, .timeout = 60)
{
	const char *o;

	/* Without retry: the queue is full, the burst is dropped. */
	cr_assert_gt(fill_far(), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(8);
	usleep(200000);
	cr_assert_eq(drain_far(8, 300), 0);
	printed();
	cr_assert_eq(exec("stop"), 0);
	HAS(printed(), "TX-packets: 0              TX-dropped: 8 ");

	/* With retry: 2000 tries 1 ms apart; the far side drains within. */
	cr_assert_eq(exec("set burst tx delay 1000 retry 2000"), 0);
	cr_assert_eq(app->tx_delay_us, 1000);
	cr_assert_eq(app->tx_retry_num, 2000);
	cr_assert_gt(fill_far(), 0);
	cr_assert_eq(exec("set fwd io retry"), 0);
	HAS(printed(), "Set io packet forwarding mode with retry");
	cr_assert_eq(exec("show config fwd"), 0);
	HAS(printed(), "TX retry num: 2000, delay between TX retries: 1000us");
	cr_assert_eq(exec("start"), 0);
	far_send(8);
	usleep(200000);
	cr_assert_eq(drain_far(8, 5000), 8, "the retried burst arrives");
	cr_assert_eq(exec("stop"), 0);
	o = printed();
	HAS(o, "TX-packets: 8              TX-dropped: 0 ");
	HAS(o, "TX-retried bursts: 1");
	cr_assert_eq(exec("set fwd io"), 0);
	HAS(printed(), "Set io packet forwarding mode\n");
}

/* ---- record-core-cycles ------------------------------------------------------------ */

Test(testpmd_cycles, record_core_cycles_prints_cycles_per_packet_per_thread, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[64];
	const char *o;

	cr_assert_eq(exec("start"), 0);
	cr_assert_eq(exec("set record-core-cycles on"), -EBUSY, "forwarding stopped first");
	far_send(16);
	cr_assert_eq(far_recv(p, 16), 16);
	unic_pkt_free_bulk(p, 16);
	printed();
	cr_assert_eq(exec("stop"), 0);
	HASNT(printed(), "CPU cycles/packet");

	cr_assert_eq(exec("set record-core-cycles on"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(16);
	cr_assert_eq(far_recv(p, 16), 16);
	unic_pkt_free_bulk(p, 16);
	printed();
	cr_assert_eq(exec("stop"), 0);
	o = printed();
	HAS(o, "  CPU cycles/packet=");
	HAS(o, " / total io packets=16) at ");
	HAS(o, " MHz Clock\n");
	HAS(o, "  thread 0 (");
	/* The busy cycles are real: more than zero. */
	const char *b = strstr(o, "(busy cycles=");

	cr_assert_not_null(b);
	cr_assert_gt(strtoull(b + strlen("(busy cycles="), NULL, 10), 0);
	/* After stop: the total still (the counters stay), no threads. */
	cr_assert_eq(exec("show fwd stats all"), 0);
	o = printed();
	HAS(o, " / total io packets=16) at ");
	HASNT(o, "  thread 0 (");
}

/* ---- set verbose ---------------------------------------------------------------- */

Test(testpmd_verbose, generated_bursts_are_printed_with_dpdks_fields, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	struct unic_pkt *p[64];
	const char *o;
	char want[64];

	cr_assert_eq(exec("set fwd rxonly"), 0);
	cr_assert_eq(exec("set burst 4"), 0);
	cr_assert_eq(exec("set verbose 1"), 0);
	printed();
	cr_assert_eq(exec("start tx_first"), 0);
	cr_assert_eq(far_recv(p, 4), 4);
	unic_pkt_free_bulk(p, 4);
	cr_assert_eq(exec("stop"), 0);
	HASNT(printed(), "sent 4 packets");
	cr_assert_eq(exec("set verbose 2"), 0);
	printed();
	cr_assert_eq(exec("start tx_first"), 0);
	cr_assert_eq(far_recv(p, 4), 4);
	unic_pkt_free_bulk(p, 4);
	cr_assert_eq(exec("stop"), 0);
	o = printed();
	snprintf(want, sizeof(want), "port %u/queue 0: sent 4 packets\n", near_id);
	HAS(o, want);
	HAS(o, " - type=0x0800 - length=64 - nb_segs=1 - sw ptype: L2_ETHER L3_IPV4 L4_UDP  - l2_len=14"
	       " - l3_len=20 - l4_len=8 - Send queue=0x0\n  ol_flags: RTE_MBUF_F_TX_L4_NO_CKSUM \n");
}

Test(testpmd_verbose, rss_hash_vlan_and_offload_flags_are_named)
{
	static uint8_t mem[2048] __attribute__((aligned(64)));
	struct unic_pkt *p = (struct unic_pkt *)mem;
	struct unic_pool pool = { .name = "mb_pool_0" };
	uint8_t *d;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	memset(mem, 0, sizeof(mem));
	p->pool = &pool;
	p->data_off = 128;
	p->buf_len = 2048 - sizeof(*p);
	d = unic_pkt_data(p);
	/* Ethernet, IPv4 with options (24 bytes), TCP with a 32-byte header. */
	d[12] = 0x08;
	d[14] = 0x46;
	d[23] = 6;
	d[14 + 24 + 12] = 0x80;
	p->data_len = p->pkt_len = 14 + 24 + 32 + 10;
	p->nb_segs = 1;
	p->ol_flags = UNIC_PKT_RX_RSS_HASH | UNIC_PKT_RX_VLAN | UNIC_PKT_RX_VLAN_STRIPPED |
		      UNIC_PKT_RX_IP_CKSUM_GOOD | UNIC_PKT_RX_L4_CKSUM_BAD;
	p->rss_hash = 0x1234abcd;
	p->vlan_tci = 100;
	tp_verbose_dump(f, 3, 2, "received", &p, 1);
	p->ol_flags = UNIC_PKT_TX_VLAN | UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM | UNIC_PKT_TX_TCP_CKSUM;
	tp_verbose_dump(f, 1, 0, "sent", &p, 1);
	fclose(f);
	HAS(buf, "port 3/queue 2: received 1 packets\n"
		 "  src=00:00:00:00:00:00 - dst=00:00:00:00:00:00 - pool=mb_pool_0 - type=0x0800 - length=80 - nb_segs=1"
		 " - RSS hash=0x1234abcd - RSS queue=0x2 - VLAN tci=0x64 - sw ptype: L2_ETHER L3_IPV4_EXT L4_TCP "
		 " - l2_len=14 - l3_len=24 - l4_len=32 - Receive queue=0x2\n"
		 "  ol_flags: RTE_MBUF_F_RX_VLAN RTE_MBUF_F_RX_RSS_HASH RTE_MBUF_F_RX_L4_CKSUM_BAD "
		 "RTE_MBUF_F_RX_IP_CKSUM_GOOD RTE_MBUF_F_RX_VLAN_STRIPPED RTE_MBUF_F_RX_OUTER_L4_CKSUM_UNKNOWN \n");
	HAS(buf, "port 1/queue 0: sent 1 packets\n");
	HAS(buf, " - VLAN tci=0x64 - sw ptype: L2_ETHER L3_IPV4_EXT L4_TCP  - l2_len=14 - l3_len=24 - l4_len=32"
		 " - Send queue=0x0\n  ol_flags: RTE_MBUF_F_TX_VLAN RTE_MBUF_F_TX_IP_CKSUM RTE_MBUF_F_TX_TCP_CKSUM "
		 "RTE_MBUF_F_TX_IPV4 \n");
	free(buf);
}

/* ---- refused by design ---------------------------------------------------------------- */

/* A line from @p syntax: the first alternative of each literal, a value
 * per placeholder. */
static void sample_of(const char *s, char *line, size_t len)
{
	line[0] = '\0';
	while (*s) {
		size_t l = strcspn(s, " ");
		char w[256];

		snprintf(w, sizeof(w), "%.*s", (int)l, s);
		if (strcmp(w, "<mac>") == 0)
			strncat(line, "02:00:00:00:00:09 ", len - strlen(line) - 1);
		else if (strcmp(w, "<words...>") == 0 || strcmp(w, "<file>") == 0 || strcmp(w, "<flags>") == 0 ||
			 strstr(w, "_mask>"))
			strncat(line, "0x3 ", len - strlen(line) - 1);
		else if (w[0] == '<')
			strncat(line, "1 ", len - strlen(line) - 1);
		else {
			w[strcspn(w, "|")] = '\0';
			strncat(line, w, len - strlen(line) - 1);
			strncat(line, " ", len - strlen(line) - 1);
		}
		s += l;
		while (*s == ' ')
			s++;
	}
}

Test(testpmd_refused, every_refused_row_parses_from_a_sample_of_its_syntax_to_itself)
{
	static struct tp_cmd c;
	unsigned nr;
	const struct tp_cmd_def *r = tp_cmd_refused_table(&nr);
	char line[512], e[2048];

	cr_assert_geq(nr, 60, "the refused-by-design rows");
	for (unsigned i = 0; i < nr; i++) {
		cr_assert_eq(r[i].id, TP_CMD_REFUSED);
		cr_assert(strstr(r[i].help, ": ") != NULL, "a reason names the capability: %s", r[i].help);
		sample_of(r[i].syntax, line, sizeof(line));
		cr_assert_eq(tp_cmd_parse(line, &c, e, sizeof(e)), TP_PARSE_OK, "'%s' (%s): %s", line, r[i].syntax, e);
		cr_assert_eq(c.def, &r[i], "'%s' parsed as %s", line, c.def->syntax);
	}
}

/* ---- refused by design, run ---------------------------------------------------------------- */

Test(testpmd_refused, refused_commands_parse_as_dpdk_and_name_the_capability_and_the_driver,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	static struct tp_cmd c;
	char e[2048];

	printed();
	cr_assert_eq(execf("show port tm cap %u", near_id), -ENOTSUP);
	HAS(printed(), "(ring): no traffic manager (rte_tm): unic has no traffic management (-ENOTSUP)\n");
	cr_assert_eq(execf("add port meter profile srtcm_rfc2697 %u 1 1 1 1 0", near_id), -ENOTSUP);
	HAS(printed(), "no traffic metering and policing (rte_mtr)");
	cr_assert_eq(execf("set vf mac addr %u 1 00:11:22:33:44:55", near_id), -ENOTSUP);
	HAS(printed(), "no SR-IOV virtual functions");
	cr_assert_eq(exec("set port 9 gro on"), -ENOTSUP);
	HAS(printed(), "port 9 (no such port): no GRO (rte_gro)");
	cr_assert_eq(exec("set gso segsz 1400"), -ENOTSUP);
	HAS(printed(), "no GSO");
	cr_assert_eq(exec("bpf-load rx 0 0 J ./t1.o"), -ENOTSUP);
	cr_assert_eq(exec("set raw_encap 0 eth / ipv4 / end_set"), -ENOTSUP);
	cr_assert_eq(exec("set pfc_ctrl rx on tx on 1 1 1 1 0"), -ENOTSUP);
	HAS(printed(), "no priority flow control (802.1Qbb)");
	cr_assert_eq(exec("E-tag set stripping on port 0"), -ENOTSUP);

	/* A typo is still a parse error at the word. */
	cr_assert_eq(tp_cmd_parse("show port tm cpa 0", &c, e, sizeof(e)), TP_PARSE_ERROR);
	HAS(e, "bad word 'cpa'");
	cr_assert_eq(tp_cmd_parse("add port meter profile srtcm_rfc2697 0 1 1 1 1", &c, e, sizeof(e)), TP_PARSE_ERROR);
	HAS(e, "missing argument <packet_mode>");
	cr_assert_eq(tp_cmd_parse("bpf-load rx 0 0 J", &c, e, sizeof(e)), TP_PARSE_ERROR);
	HAS(e, "missing argument <file>");
	cr_assert_eq(tp_cmd_parse("E-tag set stripping maybe port 0", &c, e, sizeof(e)), TP_PARSE_ERROR);
	HAS(e, "bad word 'maybe'; expected on|off");
	cr_assert_eq(tp_cmd_parse("set vf mac addr 0 1 00:11", &c, e, sizeof(e)), TP_PARSE_ERROR);
	HAS(e, "MAC address");
	/* Help finds them, with the reason; the full list leaves them out. */
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		cr_assert_eq(tp_cmd_help(f, "show port tm"), 0);
		fflush(f);
		HAS(buf, "refused: no traffic manager (rte_tm)");
		fclose(f);
		free(buf);
	}
}
