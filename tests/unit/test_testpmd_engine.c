/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's engines in this process over a ring pair whose far side
 * the test drives (testpmd_fixture.h): MAC rewriting, swapping, generated
 * frames and their checksums, flows, a port that refuses packets, a device
 * removed while forwarding, tx queue claims.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/event.h>
#include <unic/pool.h>

#include "testpmd.h"
#include "refusing_port.h"
#include "testpmd_fixture.h"

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
	s.app = app;
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
