/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_packet port without a kernel on the other side: its fast path
 * against rx and tx rings in ordinary memory that the test writes as a
 * lying or broken kernel would (block counts, offsets and lengths out of
 * the block, frames cut short, garbage statuses, random bytes), and the
 * errors a user meets when creating a port (no such interface, no
 * CAP_NET_RAW, too many queue pairs). Real sockets are the host suite's
 * (tests/host/test_af_packet.py; tests/unit/test_ports_root.c: the receive
 * interrupt).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/if_ether.h>

#include <unic/log.h>

#include "log_capture.h"
#include "port_fixture.h"
#include "../../pmd/af_packet/af_packet_priv.h"

#define BLK 4096u
#define NBLK 4u
#define FRAME 2048u
#define NFRAMES 8u

static struct unic_mem *mem;
static struct unic_pool *pool;
static uint8_t *ring;
static struct afp_rxq rxq;
static struct afp_txq txq;

static void setup(void)
{
	logcap_start(UNIC_LOG_WARNING, 0);
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	fixture_mem_pool(&mem, &pool, "afp", 256, 0);
	ring = aligned_alloc(4096, NBLK * BLK);
	cr_assert_not_null(ring);
	memset(ring, 0, NBLK * BLK);
	memset(&rxq, 0, sizeof(rxq));
	rxq.ring = ring;
	rxq.block_size = BLK;
	rxq.nb_blocks = NBLK;
	rxq.pool = pool;
	rxq.fd = -1;
	rxq.qid = 3;
	rxq.port_id = 7;
	memset(&txq, 0, sizeof(txq));
	txq.ring = aligned_alloc(4096, NFRAMES * FRAME);
	cr_assert_not_null(txq.ring);
	memset(txq.ring, 0, NFRAMES * FRAME);
	txq.frame_size = FRAME;
	txq.nb_frames = NFRAMES;
	txq.fd = -1; /* no kick: the test is the kernel */
}

static void teardown(void)
{
	free(ring);
	free(txq.ring);
	fixture_mem_pool_free(mem, pool);
	logcap_stop();
}

TestSuite(af_packet, .init = setup, .fini = teardown);

/* ---- a fake kernel: blocks as tpacket_rcv fills them -------------------- */

static struct tpacket_block_desc *blk(uint32_t i)
{
	return (struct tpacket_block_desc *)(ring + i * BLK);
}

/* Start block i: header only, kernel-owned until blk_close(). */
static uint32_t blk_begin(uint32_t i)
{
	struct tpacket_block_desc *b = blk(i);

	memset(b, 0, BLK);
	b->version = TPACKET_V3;
	b->hdr.bh1.offset_to_first_pkt = TPACKET_ALIGN(sizeof(*b));
	b->hdr.bh1.blk_len = TPACKET_ALIGN(sizeof(*b));
	return b->hdr.bh1.offset_to_first_pkt;
}

/* Append a frame of @p len bytes (byte k = seed + k) at offset @p off of
 * block i; @return the next packet's offset. */
static uint32_t blk_add(uint32_t i, uint32_t off, uint32_t len, uint8_t seed, uint32_t status,
			uint16_t tci)
{
	struct tpacket_block_desc *b = blk(i);
	struct tpacket3_hdr *h = (struct tpacket3_hdr *)((uint8_t *)b + off);
	uint32_t mac = TPACKET_ALIGN(sizeof(*h)) + TPACKET_ALIGN(sizeof(struct sockaddr_ll));
	uint32_t total = (mac + len + 7u) & ~7u;

	h->tp_mac = (uint16_t)mac;
	h->tp_snaplen = len;
	h->tp_len = len;
	h->tp_status = status;
	h->hv1.tp_vlan_tci = tci;
	h->tp_next_offset = total;
	for (uint32_t k = 0; k < len; k++)
		((uint8_t *)h)[mac + k] = (uint8_t)(seed + k);
	b->hdr.bh1.num_pkts++;
	b->hdr.bh1.blk_len = off + total;
	return off + total;
}

static void blk_close(uint32_t i)
{
	blk(i)->hdr.bh1.block_status = TP_STATUS_USER;
}

static uint64_t rd(const struct unic_counter *c)
{
	return unic_counter_read(c);
}

static void free_all(struct unic_pkt **p, uint16_t n)
{
	unic_pkt_free_bulk(p, n);
}

/* ---- receive -------------------------------------------------------------- */

Test(af_packet, an_open_block_is_not_read_and_a_handed_over_one_is_read_in_order)
{
	struct unic_pkt *p[8];
	uint32_t off = blk_begin(0);

	off = blk_add(0, off, 60, 1, TP_STATUS_USER, 0);
	off = blk_add(0, off, 1514, 2, TP_STATUS_USER, 0);
	blk_add(0, off, 100, 3, TP_STATUS_USER, 0);
	cr_assert_not(afp_rx_pending(&rxq));
	cr_assert_eq(afp_rx_burst(&rxq, p, 8), 0, "the kernel still owns the block");
	blk_close(0);
	cr_assert(afp_rx_pending(&rxq));
	cr_assert_eq(afp_rx_burst(&rxq, p, 8), 3);
	cr_assert_eq(p[0]->pkt_len, 60);
	cr_assert_eq(p[1]->pkt_len, 1514);
	cr_assert_eq(p[2]->pkt_len, 100);
	for (uint32_t k = 0; k < 1514; k++)
		cr_assert_eq(unic_pkt_mtod(p[1], uint8_t *)[k], (uint8_t)(2 + k));
	cr_assert_eq(p[0]->port, 7);
	cr_assert_eq(p[0]->queue, 3);
	cr_assert_eq(blk(0)->hdr.bh1.block_status, TP_STATUS_KERNEL, "the block went back");
	cr_assert_eq(rxq.cur, 1);
	cr_assert_eq(rd(&rxq.cnt.packets), 3);
	cr_assert_eq(rd(&rxq.cnt.bytes), 60 + 1514 + 100);
	cr_assert_eq(rd(&rxq.cnt.errors), 0);
	free_all(p, 3);
}

Test(af_packet, a_burst_smaller_than_the_block_resumes_where_it_stopped)
{
	struct unic_pkt *p[4];
	uint32_t off = blk_begin(0);

	for (uint8_t s = 0; s < 5; s++)
		off = blk_add(0, off, 64, (uint8_t)(s * 16), TP_STATUS_USER, 0);
	blk_close(0);
	cr_assert_eq(afp_rx_burst(&rxq, p, 2), 2);
	cr_assert_eq(unic_pkt_mtod(p[1], uint8_t *)[0], 16);
	free_all(p, 2);
	cr_assert(afp_rx_pending(&rxq), "three left in the open block");
	cr_assert_eq(afp_rx_burst(&rxq, p, 4), 3);
	cr_assert_eq(unic_pkt_mtod(p[0], uint8_t *)[0], 32);
	cr_assert_eq(unic_pkt_mtod(p[2], uint8_t *)[0], 64);
	free_all(p, 3);
	cr_assert_eq(blk(0)->hdr.bh1.block_status, TP_STATUS_KERNEL);
}

Test(af_packet, the_ring_wraps_after_the_last_block)
{
	struct unic_pkt *p[2];

	for (uint32_t round = 0; round < 3 * NBLK; round++) {
		uint32_t i = round % NBLK;

		blk_add(i, blk_begin(i), 60, (uint8_t)round, TP_STATUS_USER, 0);
		blk_close(i);
		cr_assert_eq(afp_rx_burst(&rxq, p, 2), 1, "round %u", round);
		cr_assert_eq(unic_pkt_mtod(p[0], uint8_t *)[0], (uint8_t)round);
		free_all(p, 1);
	}
}

Test(af_packet, a_vlan_tag_the_kernel_took_out_is_put_back_after_the_addresses)
{
	struct unic_pkt *p[1];
	uint8_t *d;

	blk_add(0, blk_begin(0), 60, 0, TP_STATUS_USER | TP_STATUS_VLAN_VALID, 0x2123);
	blk_close(0);
	cr_assert_eq(afp_rx_burst(&rxq, p, 1), 1);
	d = unic_pkt_mtod(p[0], uint8_t *);
	cr_assert_eq(p[0]->pkt_len, 64);
	cr_assert_eq(d[11], 11, "the addresses come first");
	cr_assert_eq(d[12], 0x81);
	cr_assert_eq(d[13], 0x00);
	cr_assert_eq(d[14], 0x21);
	cr_assert_eq(d[15], 0x23);
	cr_assert_eq(d[16], 12, "then the rest of the frame, from its ethertype");
	cr_assert_eq(d[63], 59);
	cr_assert_eq(rd(&rxq.xcnt.vlan_restored), 1);
	free_all(p, 1);
}

Test(af_packet, a_block_longer_than_the_ring_block_is_counted_and_given_back_unread)
{
	struct unic_pkt *p[4];

	blk_add(0, blk_begin(0), 60, 0, TP_STATUS_USER, 0);
	blk(0)->hdr.bh1.blk_len = BLK + 1;
	blk_close(0);
	blk_add(1, blk_begin(1), 60, 9, TP_STATUS_USER, 0);
	blk_close(1);
	cr_assert_eq(afp_rx_burst(&rxq, p, 4), 1, "the next block is still read");
	cr_assert_eq(unic_pkt_mtod(p[0], uint8_t *)[0], 9);
	cr_assert_eq(rd(&rxq.xcnt.ring_errors), 1);
	cr_assert_eq(rd(&rxq.cnt.errors), 1);
	cr_assert_eq(blk(0)->hdr.bh1.block_status, TP_STATUS_KERNEL);
	free_all(p, 1);
}

Test(af_packet, a_first_offset_outside_the_block_or_misaligned_is_counted)
{
	struct unic_pkt *p[4];
	const uint32_t bad[] = { 0, 8, BLK - 8, BLK * 2, 0xffffffffu, 51 };

	for (unsigned k = 0; k < UNIC_ARRAY_SIZE(bad); k++) {
		uint32_t i = k % NBLK;

		blk_add(i, blk_begin(i), 60, 0, TP_STATUS_USER, 0);
		blk(i)->hdr.bh1.offset_to_first_pkt = bad[k];
		blk_close(i);
		cr_assert_eq(afp_rx_burst(&rxq, p, 4), 0, "offset %u", bad[k]);
	}
	cr_assert_eq(rd(&rxq.xcnt.ring_errors), UNIC_ARRAY_SIZE(bad));
}

Test(af_packet, a_packet_whose_data_runs_past_the_block_is_counted_not_read)
{
	struct unic_pkt *p[4];
	uint32_t off = blk_begin(0);
	struct tpacket3_hdr *h = (struct tpacket3_hdr *)((uint8_t *)blk(0) + off);

	off = blk_add(0, off, 60, 0, TP_STATUS_USER, 0);
	h->tp_snaplen = BLK;  /* runs past blk_len and past the block */
	h->tp_len = BLK;
	blk_close(0);
	cr_assert_eq(afp_rx_burst(&rxq, p, 4), 0);
	cr_assert_eq(rd(&rxq.xcnt.ring_errors), 1);

	off = blk_begin(1);
	h = (struct tpacket3_hdr *)((uint8_t *)blk(1) + off);
	blk_add(1, off, 60, 0, TP_STATUS_USER, 0);
	h->tp_mac = 4; /* inside the header */
	blk_close(1);
	cr_assert_eq(afp_rx_burst(&rxq, p, 4), 0);
	cr_assert_eq(rd(&rxq.xcnt.ring_errors), 2);
	cr_assert_eq(rd(&rxq.cnt.errors), 2);
}

Test(af_packet, a_next_offset_that_loops_or_leaves_the_block_ends_the_block_counted)
{
	struct unic_pkt *p[8];
	const uint32_t bad[] = { 0, 4, 12, BLK, 0x80000000u };

	for (unsigned k = 0; k < UNIC_ARRAY_SIZE(bad); k++) {
		uint32_t i = k % NBLK, off = blk_begin(i);
		struct tpacket3_hdr *h = (struct tpacket3_hdr *)((uint8_t *)blk(i) + off);

		off = blk_add(i, off, 60, 1, TP_STATUS_USER, 0);
		blk_add(i, off, 60, 2, TP_STATUS_USER, 0);
		blk(i)->hdr.bh1.num_pkts = 1000000; /* and a count that lies */
		h->tp_next_offset = bad[k];
		blk_close(i);
		cr_assert_eq(afp_rx_burst(&rxq, p, 8), 1, "next offset %u: the first frame is good", bad[k]);
		free_all(p, 1);
		cr_assert_eq(blk(i)->hdr.bh1.block_status, TP_STATUS_KERNEL);
	}
	cr_assert_eq(rd(&rxq.xcnt.ring_errors), UNIC_ARRAY_SIZE(bad));
}

Test(af_packet, a_frame_the_kernel_cut_short_is_dropped_and_counted)
{
	struct unic_pkt *p[4];
	uint32_t off = blk_begin(0);
	struct tpacket3_hdr *h = (struct tpacket3_hdr *)((uint8_t *)blk(0) + off);

	off = blk_add(0, off, 100, 0, TP_STATUS_USER, 0);
	h->tp_len = 65000; /* a GSO frame cut to the block */
	blk_add(0, off, 60, 5, TP_STATUS_USER, 0);
	blk_close(0);
	cr_assert_eq(afp_rx_burst(&rxq, p, 4), 1);
	cr_assert_eq(unic_pkt_mtod(p[0], uint8_t *)[0], 5);
	cr_assert_eq(rd(&rxq.xcnt.truncated), 1);
	cr_assert_eq(rd(&rxq.cnt.errors), 1);
	free_all(p, 1);
}

Test(af_packet, a_frame_larger_than_the_pool_buffer_or_smaller_than_a_header_is_dropped_and_counted)
{
	struct unic_pkt *p[4];
	uint32_t off = blk_begin(0);

	off = blk_add(0, off, 3000, 0, TP_STATUS_USER, 0); /* the pool's buffers hold 2048 */
	off = blk_add(0, off, 10, 0, TP_STATUS_USER, 0);
	blk_add(0, off, 60, 5, TP_STATUS_USER, 0);
	blk_close(0);
	cr_assert_eq(afp_rx_burst(&rxq, p, 4), 1);
	cr_assert_eq(rd(&rxq.xcnt.too_long), 1);
	cr_assert_eq(rd(&rxq.xcnt.ring_errors), 1);
	cr_assert_eq(rd(&rxq.cnt.errors), 2);
	cr_assert_eq(unic_pool_in_use_count(pool), 1, "the dropped frames' buffers went back");
	free_all(p, 1);
}

Test(af_packet, an_empty_pool_leaves_the_frame_in_the_block_for_the_next_burst)
{
	struct unic_pkt *held[256], *p[2];
	uint32_t n = 0;

	while (n < 256 && (held[n] = unic_pkt_alloc(pool)) != NULL)
		n++;
	blk_add(0, blk_begin(0), 60, 4, TP_STATUS_USER, 0);
	blk_close(0);
	cr_assert_eq(afp_rx_burst(&rxq, p, 2), 0);
	cr_assert_eq(rd(&rxq.cnt.nombuf), 1);
	cr_assert(afp_rx_pending(&rxq));
	unic_pkt_free(held[--n]);
	cr_assert_eq(afp_rx_burst(&rxq, p, 2), 1);
	cr_assert_eq(unic_pkt_mtod(p[0], uint8_t *)[0], 4);
	free_all(p, 1);
	free_all(held, (uint16_t)n);
}

Test(af_packet, a_frame_whose_checksum_was_left_to_a_device_is_received_and_counted)
{
	struct unic_pkt *p[2];

	blk_add(0, blk_begin(0), 60, 0, TP_STATUS_USER | TP_STATUS_CSUMNOTREADY, 0);
	blk_close(0);
	cr_assert_eq(afp_rx_burst(&rxq, p, 2), 1);
	cr_assert_eq(rd(&rxq.xcnt.csum_not_ready), 1);
	free_all(p, 1);
}

Test(af_packet, the_hosts_own_transmits_are_skipped_when_the_kernel_cannot_filter_them)
{
	struct unic_pkt *p[4];
	uint32_t off = blk_begin(0);
	struct sockaddr_ll *sll = (struct sockaddr_ll *)((uint8_t *)blk(0) + off +
							 TPACKET_ALIGN(sizeof(struct tpacket3_hdr)));

	rxq.filter_outgoing = true;
	off = blk_add(0, off, 60, 0, TP_STATUS_USER, 0);
	sll->sll_pkttype = PACKET_OUTGOING;
	blk_add(0, off, 60, 1, TP_STATUS_USER, 0);
	blk_close(0);
	cr_assert_eq(afp_rx_burst(&rxq, p, 4), 1);
	cr_assert_eq(unic_pkt_mtod(p[0], uint8_t *)[0], 1);
	cr_assert_eq(rd(&rxq.xcnt.outgoing), 1);
	free_all(p, 1);
}

/* A kernel that writes random bytes into every block it hands over: the
 * fast path reads nothing outside the block (a ring of one block in an
 * allocation of exactly its size, so the ASan build catches any read past
 * it), hands out only frames that fit their buffer, gives every block back
 * and counts. */
Test(af_packet, random_blocks_are_survived_counted_and_given_back)
{
	struct unic_pkt *p[32];
	uint8_t *one = malloc(BLK);
	uint64_t got = 0;

	cr_assert_not_null(one);
	rxq.ring = one;
	rxq.nb_blocks = 1;
	srand(17);
	for (uint32_t round = 0; round < 4000; round++) {
		struct tpacket_block_desc *bd = (struct tpacket_block_desc *)one;
		uint32_t len;

		for (uint32_t k = 0; k < BLK; k++)
			one[k] = (uint8_t)rand();
		/* Most rounds keep the header and the packets' offsets and
		 * lengths near the truth (a few bytes over the end), so the
		 * walk and the copy are reached; the rest are garbage. */
		if (round % 4 != 0) {
			uint32_t off = 48, n = 1 + (uint32_t)rand() % 8;

			bd->hdr.bh1.offset_to_first_pkt = off;
			bd->hdr.bh1.blk_len = BLK - 64 + (uint32_t)rand() % 128;
			bd->hdr.bh1.num_pkts = n;
			for (uint32_t k = 0; k < n && off + 48 <= BLK; k++) {
				struct tpacket3_hdr *h = (struct tpacket3_hdr *)(one + off);
				uint32_t snap = (uint32_t)rand() % BLK;

				h->tp_mac = 80;
				h->tp_snaplen = snap;
				h->tp_len = snap;
				h->tp_next_offset = (80 + snap + 7) & ~7u;
				off += h->tp_next_offset;
			}
		}
		bd->hdr.bh1.block_status = TP_STATUS_USER | ((uint32_t)rand() & ~TP_STATUS_USER);
		do {
			len = afp_rx_burst(&rxq, p, 32);
			for (uint32_t k = 0; k < len; k++) {
				cr_assert_leq(p[k]->pkt_len, p[k]->buf_len);
				cr_assert_eq(p[k]->data_len, p[k]->pkt_len);
			}
			got += len;
			free_all(p, (uint16_t)len);
		} while (rxq.block_open);
		cr_assert_eq(bd->hdr.bh1.block_status, TP_STATUS_KERNEL, "round %u", round);
	}
	cr_assert_gt(rd(&rxq.xcnt.ring_errors), 1000);
	cr_assert_gt(got, 100, "the plausible blocks gave frames");
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "no buffer leaked");
	rxq.ring = ring;
	free(one);
}

/* ---- transmit ---------------------------------------------------------------- */

static struct tpacket3_hdr *frame(uint32_t i)
{
	return (struct tpacket3_hdr *)(txq.ring + i * FRAME);
}

static struct unic_pkt *mkpkt(uint32_t len, uint8_t seed)
{
	struct unic_pkt *p = unic_pkt_alloc(pool);
	uint8_t *d;

	cr_assert_not_null(p);
	d = unic_pkt_append(p, (uint16_t)len);
	cr_assert_not_null(d);
	for (uint32_t k = 0; k < len; k++)
		d[k] = (uint8_t)(seed + k);
	return p;
}

Test(af_packet, transmit_fills_frames_in_order_and_requests_the_send)
{
	struct unic_pkt *p[2] = { mkpkt(60, 1), mkpkt(1514, 2) };

	cr_assert_eq(afp_tx_burst(&txq, p, 2), 2);
	cr_assert_eq(frame(0)->tp_status, TP_STATUS_SEND_REQUEST);
	cr_assert_eq(frame(0)->tp_len, 60);
	cr_assert_eq(frame(1)->tp_len, 1514);
	cr_assert_eq(((uint8_t *)frame(1))[AFP_TX_DATA_OFF + 1513], (uint8_t)(2 + 1513));
	cr_assert_eq(frame(2)->tp_status, TP_STATUS_AVAILABLE);
	cr_assert_eq(rd(&txq.cnt.packets), 2);
	cr_assert_eq(rd(&txq.cnt.bytes), 1574);
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "the packets were copied and freed");
}

Test(af_packet, a_full_tx_ring_takes_nothing_more_and_the_caller_keeps_the_rest)
{
	struct unic_pkt *p[NFRAMES + 2];

	for (uint32_t i = 0; i < NFRAMES + 2; i++)
		p[i] = mkpkt(60, (uint8_t)i);
	cr_assert_eq(afp_tx_burst(&txq, p, NFRAMES + 2), NFRAMES);
	cr_assert_eq(rd(&txq.ring_full), 2);
	cr_assert_eq(unic_pool_in_use_count(pool), 2, "the two not taken are still the caller's");
	/* The kernel sends frame 0 and gives it back, with a timestamp bit. */
	frame(0)->tp_status = TP_STATUS_AVAILABLE | TP_STATUS_TS_SOFTWARE;
	cr_assert_eq(afp_tx_burst(&txq, &p[NFRAMES], 2), 1);
	cr_assert_eq(((uint8_t *)frame(0))[AFP_TX_DATA_OFF], NFRAMES);
	unic_pkt_free(p[NFRAMES + 1]);
}

Test(af_packet, a_frame_the_kernel_refused_or_a_status_it_never_writes_is_counted_and_reused)
{
	struct unic_pkt *p[2] = { mkpkt(60, 0), mkpkt(60, 1) };

	frame(0)->tp_status = TP_STATUS_WRONG_FORMAT;
	frame(1)->tp_status = 0x5a5a0000;
	cr_assert_eq(afp_tx_burst(&txq, p, 2), 2);
	cr_assert_eq(rd(&txq.wrong_format), 1);
	cr_assert_eq(rd(&txq.ring_errors), 1);
	cr_assert_eq(frame(1)->tp_status, TP_STATUS_SEND_REQUEST);
}

Test(af_packet, a_frame_over_the_tx_frame_is_refused_by_prepare_and_dropped_counted_by_transmit)
{
	struct unic_pkt *p[2] = { mkpkt(60, 0), mkpkt(FRAME - AFP_TX_DATA_OFF + 1, 1) };
	int err;

	cr_assert_eq(afp_tx_prepare(&txq, p, 2, &err), 1);
	cr_assert_eq(err, -EMSGSIZE);
	cr_assert_eq(afp_tx_burst(&txq, p, 2), 2, "taken: one sent, one dropped");
	cr_assert_eq(rd(&txq.cnt.packets), 1);
	cr_assert_eq(rd(&txq.cnt.errors), 1);
	cr_assert_eq(frame(1)->tp_status, TP_STATUS_AVAILABLE, "no frame was used for it");
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/* ---- errors a user meets at creation --------------------------------------- */

Test(af_packet, an_interface_that_does_not_exist_is_refused_naming_ip_link)
{
	struct unic_port *port = NULL;

	cr_assert_eq(unic_vdev_create("af_packet0,iface=nosuch0", &port), -ENODEV);
	cr_assert_null(port);
	cr_assert(logcap_has("interface 'nosuch0' does not exist"), "%s", logcap_buf);
	cr_assert(logcap_has("ip link"), "%s", logcap_buf);
}

Test(af_packet, without_cap_net_raw_creation_is_refused_naming_the_capability)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct unic_port *port = NULL;

	/* Criterion runs each test in its own process: drop the capability
	 * here (as root; a user without it is already there). */
	cr_assert_eq(syscall(SYS_capget, &hdr, data), 0);
	data[CAP_NET_RAW / 32].effective &= ~(1u << (CAP_NET_RAW % 32));
	data[CAP_NET_RAW / 32].permitted &= ~(1u << (CAP_NET_RAW % 32));
	cr_assert_eq(syscall(SYS_capset, &hdr, data), 0);
	cr_assert_eq(unic_vdev_create("af_packet0,iface=lo", &port), -EPERM);
	cr_assert_null(port);
	cr_assert(logcap_has("needs CAP_NET_RAW"), "%s", logcap_buf);
	cr_assert(logcap_has("run as root"), "%s", logcap_buf);
}

Test(af_packet, more_queue_pairs_than_the_port_takes_are_refused_naming_the_limit)
{
	struct unic_port *port = NULL;

	cr_assert_eq(unic_vdev_create("af_packet0,iface=lo,qpairs=17", &port), -EINVAL);
	cr_assert(logcap_has("qpairs"), "%s", logcap_buf);
	cr_assert(logcap_has("16"), "%s", logcap_buf);
}

Test(af_packet, ring_geometry_that_the_kernel_would_refuse_is_refused_with_what_fits)
{
	struct unic_port *port = NULL;

	cr_assert_eq(unic_vdev_create("af_packet0,iface=lo,framesz=3000", &port), -EINVAL);
	cr_assert(logcap_has("framesz=3000 must be a multiple of 16 that divides blocksz"), "%s", logcap_buf);
	cr_assert_eq(unic_vdev_create("af_packet0,iface=lo,blocksz=5000", &port), -EINVAL);
	cr_assert(logcap_has("multiple of the page size"), "%s", logcap_buf);
	cr_assert_eq(unic_vdev_create("af_packet0,iface=lo,framecnt=33", &port), -EINVAL);
	cr_assert(logcap_has("whole blocks"), "%s", logcap_buf);
	cr_assert_eq(unic_vdev_create("af_packet0,qpairs=2", &port), -EINVAL);
	cr_assert(logcap_has("iface= is required"), "%s", logcap_buf);
}
