/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The e1000e driver without a NIC, on the shared fake device
 * (fake_e1000e.h, also the fuzz harness's): the hardware helpers against a
 * register window in plain memory (so nothing ever completes on its own),
 * the fast path against rings in ordinary memory, and the port ops that
 * must notice a vanished device. The real device is the rig's job
 * (tests/vm/guest/test_e1000e.c).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "bus/bus_private.h"
#include "port/port_private.h"
#include "fake_e1000e.h"

/* The fake device (fake_e1000e.h); each suite builds it afresh. */
static struct fake_e1000e fk;
static struct e1000e_hw *hw;
static uint32_t *regs;

static void reg_set(uint32_t off, uint32_t v)
{
	fake_e1000e_reg_set(&fk, off, v);
}

static void hw_setup(void)
{
	cr_assert_eq(fake_e1000e_create(&fk, NULL), 0);
	hw = &fk.ep->hw;
	regs = fk.regs;
}

static void hw_teardown(void)
{
	fake_e1000e_destroy(&fk);
}

TestSuite(e1000e_hw, .init = hw_setup, .fini = hw_teardown);

Test(e1000e_hw, descriptors_have_the_datasheet_layout)
{
	cr_assert_eq(offsetof(union e1000e_rx_desc, wb.status_error), 8);
	cr_assert_eq(offsetof(union e1000e_rx_desc, wb.length), 12);
	cr_assert_eq(offsetof(union e1000e_rx_desc, wb.vlan), 14);
	cr_assert_eq(offsetof(union e1000e_tx_desc, data.cmd_len), 8);
	cr_assert_eq(offsetof(union e1000e_tx_desc, ctx.tucss), 4);
	cr_assert_eq(offsetof(union e1000e_tx_desc, ctx.mss), 14);
}

Test(e1000e_hw, poll32_times_out_when_the_bit_never_comes)
{
	cr_assert_eq(poll32(hw, E1000E_EERD, E1000E_EERD_DONE, E1000E_EERD_DONE, 2000), -ETIMEDOUT);
}

Test(e1000e_hw, poll32_sees_a_vanished_device_as_enodev)
{
	reg_set(E1000E_STATUS, 0xffffffffu);
	reg_set(E1000E_EERD, 0xffffffffu);
	cr_assert_eq(poll32(hw, E1000E_EERD, E1000E_EERD_DONE, 0, 2000), -ENODEV);
	cr_assert(hw->gone);
}

Test(e1000e_hw, reset_times_out_when_rst_never_self_clears)
{
	/* Memory keeps CTRL.RST set: the bounded wait must end it. */
	cr_assert_eq(e1000e_hw_reset(hw), -ETIMEDOUT);
}

Test(e1000e_hw, reset_of_a_vanished_device_is_enodev)
{
	reg_set(E1000E_STATUS, 0xffffffffu);
	cr_assert_eq(e1000e_hw_reset(hw), -ENODEV);
}

Test(e1000e_hw, eeprom_read_writes_the_request_and_times_out_without_done)
{
	uint16_t w = 0;

	/* Plain memory never sets DONE: the bounded wait ends the read. */
	cr_assert_eq(e1000e_eeprom_read(hw, 3, &w), -ETIMEDOUT);
	cr_assert_eq(regs[E1000E_EERD / 4], (3u << E1000E_EERD_ADDR_SHIFT) | E1000E_EERD_START);
}

Test(e1000e_hw, mac_comes_from_ra0_when_it_is_valid)
{
	uint8_t mac[6];

	reg_set(E1000E_RAL(0), 0x12005452);
	reg_set(E1000E_RAH(0), 0x5634 | E1000E_RAH_AV);
	cr_assert_eq(e1000e_mac_read(hw, mac), 0);
	cr_assert_arr_eq(mac, ((uint8_t[]){ 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 }), 6);
}

Test(e1000e_hw, rar_set_writes_the_address_and_valid_bit)
{
	static const uint8_t mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

	e1000e_rar_set(hw, 5, mac);
	cr_assert_eq(regs[E1000E_RAL(5) / 4], 0x33221102u);
	cr_assert_eq(regs[E1000E_RAH(5) / 4], 0x5544u | E1000E_RAH_AV);
	e1000e_rar_set(hw, 5, NULL);
	cr_assert_eq(regs[E1000E_RAH(5) / 4], 0);
}

Test(e1000e_hw, link_is_decoded_from_status)
{
	struct unic_link l;

	reg_set(E1000E_STATUS, E1000E_STATUS_LU | E1000E_STATUS_FD | (2u << E1000E_STATUS_SPEED_SHIFT));
	cr_assert_eq(e1000e_link_read(hw, &l), 0);
	cr_assert(l.up && l.full_duplex);
	cr_assert_eq(l.speed_mbps, 1000);
	reg_set(E1000E_STATUS, E1000E_STATUS_LU | (1u << E1000E_STATUS_SPEED_SHIFT));
	cr_assert_eq(e1000e_link_read(hw, &l), 0);
	cr_assert_eq(l.speed_mbps, 100);
	cr_assert(!l.full_duplex);
	reg_set(E1000E_STATUS, 0);
	cr_assert_eq(e1000e_link_read(hw, &l), 0);
	cr_assert(!l.up);
	cr_assert_eq(l.speed_mbps, 0);
}

/* ---- a device that vanished: all-ones reads ---------------------------------- */

/*
 * A stand-in for the bus's device: unic_pci_gone() needs only its release
 * eventfd and its gone flag (the bus's own tests cover the release path
 * from there: tests/unit/test_bus.c).
 */
static struct unic_pci_device fake_dev;

static void gone_setup(void)
{
	hw_setup();
	memset(&fake_dev, 0, sizeof(fake_dev));
	snprintf(fake_dev.info.bdf, sizeof(fake_dev.info.bdf), "0000:00:03.0");
	fake_dev.release_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	cr_assert_geq(fake_dev.release_fd, 0);
	fk.ep->dev = &fake_dev;
	fk.ep->hw.dev = &fake_dev;
}

static void gone_teardown(void)
{
	close(fake_dev.release_fd);
	hw_teardown();
}

/* Surprise removal: every register of BAR0 reads all-ones from now on. */
static void vanish(void)
{
	memset(regs, 0xff, E1000E_BAR0_LEN);
}

/* The bus was told: unic_pci_gone() marked the device and signalled once. */
static void assert_bus_told(void)
{
	uint64_t count = 0;

	cr_assert(fk.ep->hw.gone, "hw.gone not set");
	cr_assert(unic_pci_is_gone(&fake_dev), "the bus was not told (unic_pci_gone)");
	cr_assert_eq(read(fake_dev.release_fd, &count, sizeof(count)), (ssize_t)sizeof(count),
		     "the bus's release eventfd was not signalled");
	cr_assert_eq(count, 1);
}

TestSuite(e1000e_gone, .init = gone_setup, .fini = gone_teardown);

Test(e1000e_gone, stats_of_a_vanished_device_are_enodev_and_the_sums_stay)
{
	struct unic_port_stats st;
	uint64_t sums[E1000E_NB_HW_STATS];

	reg_set(E1000E_STATUS, E1000E_STATUS_LU);
	reg_set(E1000E_MPC, 7);
	cr_assert_eq(unic_port_stats_get(fk.port, &st), 0);
	cr_assert_eq(st.imissed, 7);
	memcpy(sums, fk.ep->hw_stats, sizeof(sums));
	vanish();
	cr_assert_eq(unic_port_stats_get(fk.port, &st), -ENODEV);
	cr_assert_arr_eq(fk.ep->hw_stats, sums, sizeof(sums),
			 "all-ones were added to the sums (missed now %" PRIu64 ")", fk.ep->hw_stats[16]);
	assert_bus_told();
	/* From then on the sums as they were, no register read. */
	cr_assert_eq(unic_port_stats_get(fk.port, &st), 0);
	cr_assert_eq(st.imissed, 7);
}

Test(e1000e_gone, xstats_of_a_vanished_device_are_enodev_and_the_sums_stay)
{
	uint64_t v[128];
	int n;

	n = unic_port_xstats_get(fk.port, v, 128);
	cr_assert_gt(n, 0);
	vanish();
	cr_assert_eq(unic_port_xstats_get(fk.port, v, 128), -ENODEV);
	for (unsigned i = 0; i < E1000E_NB_HW_STATS; i++)
		cr_assert_eq(fk.ep->hw_stats[i], 0, "counter %u summed all-ones: %" PRIu64, i,
			     fk.ep->hw_stats[i]);
	cr_assert_eq(fk.ep->tsctc, 0);
	cr_assert_eq(fk.ep->iac, 0);
	assert_bus_told();
}

Test(e1000e_gone, link_of_a_vanished_device_is_enodev_not_up_at_1000)
{
	struct unic_link l;

	reg_set(E1000E_STATUS, E1000E_STATUS_LU | E1000E_STATUS_FD | (2u << E1000E_STATUS_SPEED_SHIFT));
	cr_assert_eq(unic_port_link_get(fk.port, &l), 0);
	cr_assert(l.up);
	vanish();
	cr_assert_eq(unic_port_link_get(fk.port, &l), -ENODEV, "a vanished device's link read as %s, %u Mb/s",
		     l.up ? "up" : "down", l.speed_mbps);
	cr_assert(!l.up);
	assert_bus_told();
}

/*
 * rx_usecs / tx_usecs (what napi's adaptive policy sets, docs/napi.md "The
 * device's moderation") go to the EITR of every rx / tx vector and ITR in
 * 256 ns units, rounded up, and are read back from EITR.
 */
Test(e1000e_gone, coalescing_writes_every_vectors_eitr_and_reads_it_back)
{
	struct unic_coalesce c = { .rx_usecs = 250, .tx_usecs = 7 };

	cr_assert_eq(unic_port_coalesce_set(fk.port, &c), 0);
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++) {
		cr_assert_eq(fake_e1000e_reg(&fk, E1000E_EITR(E1000E_VEC_RX(q))), 977, "rx vector %u", q);
		cr_assert_eq(fake_e1000e_reg(&fk, E1000E_EITR(E1000E_VEC_TX(q))), 28, "tx vector %u", q);
	}
	cr_assert_eq(fake_e1000e_reg(&fk, E1000E_ITR), 977);
	memset(&c, 0, sizeof(c));
	cr_assert_eq(unic_port_coalesce_get(fk.port, &c), 0);
	cr_assert_eq(c.rx_usecs, 250);
	cr_assert_eq(c.tx_usecs, 7);
	c.rx_usecs = 0;
	cr_assert_eq(unic_port_coalesce_set(fk.port, &c), 0);
	cr_assert_eq(fake_e1000e_reg(&fk, E1000E_EITR(E1000E_VEC_RX(0))), 0);
	cr_assert_eq(unic_port_coalesce_get(fk.port, &c), 0);
	cr_assert_eq(c.rx_usecs, 0);
}

Test(e1000e_gone, coalescing_of_a_vanished_device_is_enodev)
{
	struct unic_coalesce c;

	vanish();
	cr_assert_eq(unic_port_coalesce_get(fk.port, &c), -ENODEV, "read %u/%u us", c.rx_usecs, c.tx_usecs);
	assert_bus_told();
}

Test(e1000e_gone, control_ops_on_a_vanished_device_are_enodev_not_all_ones)
{
	static const uint8_t mac[UNIC_ETHER_ADDR_LEN] = { 0x02, 0, 0, 0, 0, 0x42 };
	uint32_t off[64], val[64];
	struct unic_regs r = { .offset = off, .value = val, .count_max = 64 };

	vanish();
	cr_assert_eq(e1000e_ops.regs_get(fk.port, &r), -ENODEV, "a register dump of %u all-ones values", r.count);
	assert_bus_told();
	cr_assert_eq(e1000e_ops.mac_set(fk.port, mac), -ENODEV);
	cr_assert_eq(e1000e_ops.vlan_filter_set(fk.port, 5, true), -ENODEV);
	cr_assert_eq(e1000e_ops.promisc_set(fk.port, true), -ENODEV);
	cr_assert_eq(e1000e_ops.allmulti_set(fk.port, true), -ENODEV);
	cr_assert_eq(e1000e_ops.mtu_set(fk.port, 1500), -ENODEV);
}

/* ---- fast path on rings in ordinary memory ---------------------------------- */

static struct unic_pool *pool;
static struct e1000e_txq *txq;
static struct e1000e_rxq *rxq;
static volatile union e1000e_tx_desc *tx_ring;
static volatile union e1000e_rx_desc *rx_ring;

/* The tail registers, as the driver wrote them. */
#define TDT() fake_e1000e_reg(&fk, E1000E_TDT(0))
#define RDT() fake_e1000e_reg(&fk, E1000E_RDT(0))

static void fp_setup(void)
{
	hw_setup();
	pool = fk.pool;
	txq = fk.txq;
	rxq = fk.rxq;
	tx_ring = fk.tx_ring;
	rx_ring = fk.rx_ring;
}

static void fp_teardown(void)
{
	hw_teardown();
}

TestSuite(e1000e_fp, .init = fp_setup, .fini = fp_teardown);

static struct unic_pkt *pkt(uint16_t len)
{
	struct unic_pkt *p = unic_pkt_alloc(pool);

	cr_assert_not_null(p);
	memset(unic_pkt_append(p, len), 0xab, len);
	return p;
}

Test(e1000e_fp, a_buffer_crossing_4k_is_split_and_the_tail_moves)
{
	struct unic_pkt *spare[64], *p = NULL;
	unsigned nb_spare = 0;
	uint64_t iova;

	/* A packet whose buffer holds a 4 KiB boundary; data from 100 bytes
	 * before it. */
	while (p == NULL && nb_spare < 64) {
		struct unic_pkt *c = unic_pkt_alloc(pool);
		uint64_t b, off;

		cr_assert_not_null(c);
		b = c->buf_iova;
		off = (b / 4096 + 1) * 4096 - 100 - b;
		if (off + 1000 <= c->buf_len) {
			c->data_off = (uint16_t)off;
			c->data_len = 1000;
			c->pkt_len = 1000;
			p = c;
		} else {
			spare[nb_spare++] = c;
		}
	}
	unic_pkt_free_bulk(spare, nb_spare);
	cr_assert_not_null(p, "no buffer holds a 4 KiB boundary");
	iova = unic_pkt_data_iova(p);
	cr_assert_eq(e1000e_tx_burst(txq, &p, 1), 1);
	cr_assert_eq(TDT(), 2, "a crossing buffer takes two descriptors");
	cr_assert_eq(tx_ring[0].data.buffer_addr, iova);
	cr_assert_eq((tx_ring[0].data.cmd_len & E1000E_TXD_LEN_MASK), 100);
	cr_assert_eq(tx_ring[1].data.buffer_addr, iova + 100);
	cr_assert_eq((tx_ring[1].data.cmd_len & E1000E_TXD_LEN_MASK), 900);
	cr_assert(tx_ring[1].data.cmd_len & E1000E_TXD_CMD_EOP);
	cr_assert(!(tx_ring[0].data.cmd_len & E1000E_TXD_CMD_EOP));
}

Test(e1000e_fp, report_status_every_32_descriptors_and_reclaim_after_dd)
{
	struct unic_pkt *p[40];
	uint32_t in_use;

	for (int i = 0; i < 40; i++)
		p[i] = pkt(60);
	cr_assert_eq(e1000e_tx_burst(txq, p, 40), 40);
	cr_assert(tx_ring[31].data.cmd_len & E1000E_TXD_CMD_RS);
	cr_assert(!(tx_ring[30].data.cmd_len & E1000E_TXD_CMD_RS));
	in_use = unic_pool_in_use_count(pool);
	cr_assert_eq(e1000e_tx_reclaim(txq), 0, "nothing done before DD");
	tx_ring[31].data.status_popts |= E1000E_TXD_STAT_DD;
	cr_assert_eq(e1000e_tx_reclaim(txq), 32);
	cr_assert_eq(unic_pool_in_use_count(pool), in_use - 32);
}

Test(e1000e_fp, a_malformed_chain_is_refused_and_counted)
{
	struct unic_pkt *p = pkt(100);

	p->nb_segs = 2; /* but no second segment */
	cr_assert_eq(e1000e_tx_burst(txq, &p, 1), 1, "taken (freed), not left to the caller");
	cr_assert_eq(unic_counter_read(&txq->cnt.errors), 1);
	cr_assert_eq(TDT(), 0, "nothing sent");
}

Test(e1000e_fp, a_full_ring_takes_what_fits)
{
	struct unic_pkt *p[80];
	uint16_t took;

	for (int i = 0; i < 80; i++)
		p[i] = pkt(60);
	took = e1000e_tx_burst(txq, p, 80);
	cr_assert_eq(took, 63, "a 64-descriptor ring takes 63");
	cr_assert_eq(unic_counter_read(&txq->ring_full), 1);
	unic_pkt_free_bulk(p + took, 80 - took);
}

Test(e1000e_fp, rx_fill_leaves_one_descriptor_and_a_length_over_the_buffer_is_dropped)
{
	struct unic_pkt *got[4];

	cr_assert_eq(e1000e_rxq_fill(rxq), 0);
	cr_assert_eq(RDT(), 63, "tail one short of the head: the ring is never full");
	cr_assert_eq(rxq->nb_filled, 63);
	/* The device's write-back: a bad length, then a good frame. */
	rx_ring[0].wb.length = 4000;
	rx_ring[0].wb.status_error = E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP;
	rx_ring[1].wb.length = 100;
	rx_ring[1].wb.status_error = E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP | E1000E_RXD_STAT_IPCS |
				     E1000E_RXD_ERR_IPE;
	cr_assert_eq(e1000e_rx_burst(rxq, got, 4), 1);
	cr_assert_eq(got[0]->pkt_len, 100);
	cr_assert(got[0]->ol_flags & UNIC_PKT_RX_IP_CKSUM_BAD);
	cr_assert_eq(unic_counter_read(&rxq->len_errors), 1);
	cr_assert_eq(unic_counter_read(&rxq->cnt.errors), 1);
	unic_pkt_free(got[0]);
}

Test(e1000e_fp, a_frame_over_three_buffers_is_one_chain)
{
	struct unic_pkt *got[4];

	cr_assert_eq(e1000e_rxq_fill(rxq), 0);
	for (int i = 0; i < 3; i++) {
		rx_ring[i].wb.length = i < 2 ? 2048 : 100;
		rx_ring[i].wb.status_error = E1000E_RXD_STAT_DD | (i == 2 ? E1000E_RXD_STAT_EOP : 0);
	}
	cr_assert_eq(e1000e_rx_burst(rxq, got, 4), 1);
	cr_assert_eq(got[0]->nb_segs, 3);
	cr_assert_eq(got[0]->pkt_len, 2048 * 2 + 100);
	cr_assert_eq(got[0]->next->next->data_len, 100);
	unic_pkt_free(got[0]);
}

/* The device's write-back of rx descriptor @p i. */
static void rx_wb(uint16_t i, uint16_t len, uint32_t status)
{
	fake_e1000e_rx_wb(&fk, i, len, status);
}

Test(e1000e_fp, a_device_that_never_writes_eop_loses_one_frame_not_the_ring)
{
	struct unic_pkt *got[64];
	uint32_t in_use;

	cr_assert_eq(e1000e_rxq_fill(rxq), 0);
	in_use = unic_pool_in_use_count(pool);
	/* Every descriptor given, each done, none the end of a frame. */
	for (unsigned i = 0; i < 63; i++)
		rx_wb(i, 60, E1000E_RXD_STAT_DD);
	cr_assert_eq(e1000e_rx_burst(rxq, got, 64), 0);
	cr_assert_eq(unic_counter_read(&rxq->oversize), 1, "the endless frame was not counted as too long (%" PRIu64 ")",
		     unic_counter_read(&rxq->oversize));
	cr_assert_eq(unic_counter_read(&rxq->cnt.errors), 1, "ierrors: %" PRIu64, unic_counter_read(&rxq->cnt.errors));
	cr_assert_eq(rxq->nb_filled, 63, "the ring was not refilled: %u descriptors given", rxq->nb_filled);
	cr_assert_eq(unic_pool_in_use_count(pool), in_use,
		     "the dropped frame still holds buffers: %u in use, %u before",
		     unic_pool_in_use_count(pool), in_use);
	/* The frame's end, then the device behaves again: a frame of its own. */
	rx_wb(63, 60, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	rx_wb(0, 100, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	cr_assert_eq(e1000e_rx_burst(rxq, got, 64), 1);
	cr_assert_eq(got[0]->nb_segs, 1);
	cr_assert_eq(got[0]->pkt_len, 100);
	cr_assert_eq(unic_counter_read(&rxq->cnt.errors), 1, "the end of the dropped frame was counted twice");
	unic_pkt_free(got[0]);
}

Test(e1000e_fp, a_frame_longer_than_the_max_frame_is_dropped_and_counted)
{
	struct unic_pkt *got[8];

	rxq->max_frame = 1500 + 22;
	cr_assert_eq(e1000e_rxq_fill(rxq), 0);
	/* 2048 + 2048 + 100: over 1522 from its first segment on. */
	rx_wb(0, 2048, E1000E_RXD_STAT_DD);
	rx_wb(1, 2048, E1000E_RXD_STAT_DD);
	rx_wb(2, 100, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	rx_wb(3, 1522, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	cr_assert_eq(e1000e_rx_burst(rxq, got, 8), 1);
	cr_assert_eq(got[0]->pkt_len, 1522, "a frame of exactly the max frame is taken");
	cr_assert_eq(unic_counter_read(&rxq->oversize), 1);
	cr_assert_eq(unic_counter_read(&rxq->cnt.errors), 1);
	unic_pkt_free(got[0]);
}

Test(e1000e_fp, an_empty_last_segment_is_trimmed_and_the_frame_can_be_sent)
{
	struct unic_pkt *got[4];
	uint32_t in_use;

	cr_assert_eq(e1000e_rxq_fill(rxq), 0);
	in_use = unic_pool_in_use_count(pool);
	rx_wb(0, 2048, E1000E_RXD_STAT_DD);
	rx_wb(1, 0, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	cr_assert_eq(e1000e_rx_burst(rxq, got, 4), 1);
	cr_assert_eq(got[0]->nb_segs, 1, "the empty segment is still in the chain");
	cr_assert_eq(got[0]->pkt_len, 2048);
	cr_assert_null(got[0]->next);
	cr_assert_eq(unic_counter_read(&rxq->empty_segs), 1);
	cr_assert_eq(unic_counter_read(&rxq->cnt.errors), 0, "a trimmed frame is not an error");
	/* Two buffers left the ring (no refill under 32), one is the frame. */
	cr_assert_eq(unic_pool_in_use_count(pool), in_use - 1, "the empty segment's buffer was not freed");
	/* The other way: tx takes it. */
	cr_assert_eq(e1000e_tx_burst(txq, got, 1), 1);
	cr_assert_eq(unic_counter_read(&txq->cnt.errors), 0, "tx refused the received frame");
	cr_assert_eq(unic_counter_read(&txq->cnt.packets), 1);
}

Test(e1000e_fp, an_empty_middle_segment_is_dropped_from_the_chain_and_the_frame_can_be_sent)
{
	struct unic_pkt *got[4];

	cr_assert_eq(e1000e_rxq_fill(rxq), 0);
	rx_wb(0, 2048, E1000E_RXD_STAT_DD);
	rx_wb(1, 0, E1000E_RXD_STAT_DD);
	rx_wb(2, 100, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	cr_assert_eq(e1000e_rx_burst(rxq, got, 4), 1);
	cr_assert_eq(got[0]->nb_segs, 2);
	cr_assert_eq(got[0]->pkt_len, 2148);
	cr_assert_eq(got[0]->data_len, 2048);
	cr_assert_not_null(got[0]->next);
	cr_assert_eq(got[0]->next->data_len, 100);
	cr_assert_null(got[0]->next->next);
	cr_assert_eq(unic_counter_read(&rxq->empty_segs), 1);
	cr_assert_eq(e1000e_tx_burst(txq, got, 1), 1);
	cr_assert_eq(unic_counter_read(&txq->cnt.errors), 0, "tx refused the received frame");
	cr_assert_eq(unic_counter_read(&txq->cnt.packets), 1);
}

Test(e1000e_fp, a_frame_of_only_empty_segments_is_dropped_and_counted)
{
	struct unic_pkt *got[4];

	cr_assert_eq(e1000e_rxq_fill(rxq), 0);
	rx_wb(0, 0, E1000E_RXD_STAT_DD);
	rx_wb(1, 0, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	rx_wb(2, 64, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	cr_assert_eq(e1000e_rx_burst(rxq, got, 4), 1);
	cr_assert_eq(got[0]->pkt_len, 64);
	cr_assert_eq(unic_counter_read(&rxq->cnt.errors), 1);
	cr_assert_eq(unic_counter_read(&rxq->empty_segs), 2);
	unic_pkt_free(got[0]);
}

/* ---- multicast hash (MTA) ---------------------------------------------------- */

/*
 * The datasheet's rule (82574: MTA, RCTL.MO), computed here another
 * way than the driver does: the destination address as one 48-bit number
 * with the first byte on the wire least significant; MO 00 hashes bits
 * 47:36, 01 bits 46:35, 10 bits 45:34, 11 bits 43:32.
 */
static unsigned datasheet_hash(const uint8_t mac[6], unsigned mo)
{
	static const unsigned low_bit[4] = { 36, 35, 34, 32 };
	uint64_t a = 0;

	for (int i = 5; i >= 0; i--)
		a = a << 8 | mac[i];
	return (unsigned)(a >> low_bit[mo]) & 0xfffu;
}

Test(e1000e_hw, mta_hash_takes_the_address_bits_rctl_mo_selects)
{
	/* Intel's worked example: 01:AA:00:12:34:56 hashes to 0x563, 0xAC6,
	 * 0x58D and 0x634 under MO 0..3. */
	static const uint8_t ex[6] = { 0x01, 0xaa, 0x00, 0x12, 0x34, 0x56 };
	static const unsigned want[4] = { 0x563, 0xac6, 0x58d, 0x634 };
	uint8_t mac[6] = { 0x01, 0x00, 0x5e, 0, 0, 0 };

	for (unsigned mo = 0; mo < 4; mo++) {
		cr_assert_eq(datasheet_hash(ex, mo), want[mo], "the test's own rule, MO %u", mo);
		cr_assert_eq(e1000e_mta_hash(ex, mo), want[mo], "MO %u: 0x%x", mo, e1000e_mta_hash(ex, mo));
	}
	/* Every value of the two bytes that carry the hash, every MO. */
	for (unsigned v = 0; v < 65536; v++) {
		mac[4] = (uint8_t)v;
		mac[5] = (uint8_t)(v >> 8);
		for (unsigned mo = 0; mo < 4; mo++)
			cr_assert_eq(e1000e_mta_hash(mac, mo), datasheet_hash(mac, mo),
				     "%02x:%02x MO %u: driver 0x%x, datasheet 0x%x", mac[4], mac[5], mo,
				     e1000e_mta_hash(mac, mo), datasheet_hash(mac, mo));
	}
}

Test(e1000e_hw, mta_image_sets_one_bit_per_listed_address_and_nothing_else)
{
	static const uint8_t addrs[3][6] = {
		{ 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 },
		{ 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 },
		{ 0x01, 0xaa, 0x00, 0x12, 0x34, 0x56 },
	};
	uint32_t mta[E1000E_MTA_SIZE];
	unsigned bits = 0;

	memset(mta, 0xff, sizeof(mta));
	e1000e_mta_build(addrs, 3, 0, mta);
	for (unsigned i = 0; i < 3; i++) {
		unsigned h = datasheet_hash(addrs[i], 0);

		/* Register h[11:5], bit h[4:0] (datasheet, MTA). */
		cr_assert(mta[h / 32] & (1u << (h % 32)), "address %u: hash 0x%x not set", i, h);
	}
	for (unsigned i = 0; i < E1000E_MTA_SIZE; i++)
		bits += (unsigned)__builtin_popcount(mta[i]);
	cr_assert_eq(bits, 3, "%u bits set for three addresses with distinct hashes", bits);
	e1000e_mta_build(addrs, 0, 0, mta);
	for (unsigned i = 0; i < E1000E_MTA_SIZE; i++)
		cr_assert_eq(mta[i], 0, "an empty list clears the table");
}

/* ---- tx offload contexts ----------------------------------------------------- */

/* Ethernet + IPv6 + TCP headers, then @p pay payload bytes in one segment. */
static struct unic_pkt *tcp6_pkt(uint16_t pay)
{
	struct unic_pkt *p = unic_pkt_alloc(pool);
	uint8_t *f;

	cr_assert_not_null(p);
	f = unic_pkt_append(p, (uint16_t)(74 + pay));
	memset(f, 0, 74 + pay);
	f[12] = 0x86;
	f[13] = 0xdd;
	f[14] = 0x60;
	f[14 + 4] = (uint8_t)((20 + pay) >> 8);
	f[14 + 5] = (uint8_t)(20 + pay);
	f[14 + 6] = 6;
	f[14 + 7] = 64;
	f[54 + 12] = 5 << 4;
	p->ol_flags = UNIC_PKT_TX_IPV6 | UNIC_PKT_TX_TCP_SEG;
	p->l2_len = 14;
	p->l3_len = 40;
	p->l4_len = 20;
	p->tso_segsz = 500;
	return p;
}

Test(e1000e_fp, ipv6_tso_writes_a_tcp_ipv6_context_and_tse_data_descriptors)
{
	struct unic_pkt *p = tcp6_pkt(1500);
	volatile union e1000e_tx_desc *c = &tx_ring[0];

	cr_assert_eq(e1000e_tx_burst(txq, &p, 1), 1);
	cr_assert_eq(unic_counter_read(&txq->cnt.errors), 0, "an IPv6 TSO packet was refused");
	cr_assert_eq(unic_counter_read(&txq->tso), 1);
	/* Context descriptor (datasheet, TCP/IP context): DEXT, DTYP context, TUCMD TCP and TSE,
	 * IP clear (IPv6), payload length 1500; MSS and header length. */
	cr_assert(c->ctx.cmd_len & E1000E_TXD_CMD_DEXT);
	cr_assert_eq(c->ctx.cmd_len & (0xfu << 20), E1000E_TXD_DTYP_C);
	cr_assert(c->ctx.cmd_len & E1000E_TXD_TUCMD_TCP);
	cr_assert(c->ctx.cmd_len & E1000E_TXD_CMD_TSE);
	cr_assert(!(c->ctx.cmd_len & E1000E_TXD_TUCMD_IP), "IPv6 context marked IPv4");
	cr_assert_eq(c->ctx.cmd_len & 0xfffffu, 1500);
	cr_assert_eq(c->ctx.mss, 500);
	cr_assert_eq(c->ctx.hdr_len, 74);
	cr_assert_eq(c->ctx.ipcss, 14);
	cr_assert_eq(c->ctx.ipcso, 0, "no IPv4 header checksum in an IPv6 context");
	cr_assert_eq(c->ctx.tucss, 54);
	cr_assert_eq(c->ctx.tucso, 54 + 16);
	/* Data: TSE on every descriptor, TXSM (TCP checksum) but no IXSM. */
	for (unsigned i = 1; i < TDT(); i++) {
		cr_assert(tx_ring[i].data.cmd_len & E1000E_TXD_CMD_TSE, "descriptor %u without TSE", i);
		cr_assert(tx_ring[i].data.status_popts & E1000E_TXD_POPTS_TXSM);
		cr_assert(!(tx_ring[i].data.status_popts & E1000E_TXD_POPTS_IXSM));
	}
	cr_assert(tx_ring[TDT() - 1].data.cmd_len & E1000E_TXD_CMD_EOP);
}

Test(e1000e_fp, ipv6_tso_with_an_extension_header_length_is_refused)
{
	struct unic_pkt *p = tcp6_pkt(1000);

	p->l3_len = 48; /* not what the header says (no extension headers) */
	cr_assert_eq(e1000e_tx_burst(txq, &p, 1), 1);
	cr_assert_eq(unic_counter_read(&txq->cnt.errors), 1);
	cr_assert_eq(TDT(), 0, "nothing sent");
}

Test(e1000e_fp, a_packet_needing_over_64_data_descriptors_is_refused)
{
	/* 65 segments of 60 bytes: a 65-descriptor chain (QEMU drops it). */
	struct e1000e_txq big = *txq;
	static union e1000e_tx_desc ring[256];
	static struct unic_pkt *sw[256];
	static uint16_t rs[256];
	struct unic_pkt *head = pkt(60), *tail = head;

	big.ring = ring;
	big.sw_ring = sw;
	big.rs_idx = rs;
	big.nb_desc = 256;
	for (int i = 1; i < 64; i++) {
		tail->next = pkt(60);
		tail = tail->next;
		head->nb_segs++;
		head->pkt_len += 60;
	}
	/* 64 segments, 64 descriptors: taken. */
	cr_assert_eq(e1000e_tx_burst(&big, &head, 1), 1);
	cr_assert_eq(unic_counter_read(&big.cnt.errors), 0);
	cr_assert_eq(TDT(), 64);
	e1000e_txq_drain(&big);
	/* One segment that crosses 4 KiB more: 65 descriptors, refused. */
	head = pkt(60);
	tail = head;
	for (int i = 1; i < 63; i++) {
		tail->next = pkt(60);
		tail = tail->next;
		head->nb_segs++;
		head->pkt_len += 60;
	}
	{
		struct unic_pkt *spare[64], *c = NULL;
		unsigned nb = 0;

		while (c == NULL && nb < 64) {
			struct unic_pkt *x = unic_pkt_alloc(pool);
			uint64_t off;

			cr_assert_not_null(x);
			off = (x->buf_iova / 4096 + 1) * 4096 - 30 - x->buf_iova;
			if (off + 60 <= x->buf_len) {
				x->data_off = (uint16_t)off;
				x->data_len = 60;
				x->pkt_len = 60;
				c = x;
			} else {
				spare[nb++] = x;
			}
		}
		unic_pkt_free_bulk(spare, nb);
		cr_assert_not_null(c, "no buffer holds a 4 KiB boundary");
		tail->next = c;
		head->nb_segs++;
		head->pkt_len += 60;
	}
	reg_set(E1000E_TDT(0), 0);
	cr_assert_eq(e1000e_tx_burst(&big, &head, 1), 1, "taken (freed), not left to the caller");
	cr_assert_eq(unic_counter_read(&big.cnt.errors), 1, "64 segments needing 65 descriptors were not refused");
	cr_assert_eq(TDT(), 0, "nothing sent");
}

/* Ethernet + IPv4 + the first 8 bytes of a TCP header, asking for the TCP
 * checksum with l4_len 0: the frame ends before the TCP data offset. */
static void tcp4_short(uint8_t *f, struct unic_pkt *p)
{
	memset(f, 0, 42);
	f[12] = 0x08;
	f[14] = 0x45;
	f[14 + 9] = 6;
	p->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_TCP_CKSUM;
	p->l2_len = 14;
	p->l3_len = 20;
	p->l4_len = 0;
}

Test(e1000e_fp, a_tcp_offload_with_l4_len_0_is_refused)
{
	struct unic_pkt *p = pkt(42);

	/* What lies past the data decides nothing: make it what a wrong
	 * check would accept (a TCP data offset of 0 matches l4_len 0). */
	memset((uint8_t *)unic_pkt_data(p) + 42, 0, 32);
	tcp4_short(unic_pkt_data(p), p);
	cr_assert_eq(e1000e_tx_burst(txq, &p, 1), 1);
	cr_assert_eq(unic_counter_read(&txq->cnt.errors), 1, "a TCP checksum request without a TCP header length was sent");
	cr_assert_eq(TDT(), 0, "nothing sent");
}

Test(e1000e_fp, the_tcp_offload_check_reads_nothing_past_the_data)
{
	/* The packet and exactly its 42 bytes of data: under ASan a read
	 * past data_len is a heap-buffer-overflow. */
	struct unic_pkt *p = malloc(sizeof(*p) + 42);

	cr_assert_not_null(p);
	memset(p, 0, sizeof(*p));
	p->data_len = 42;
	p->pkt_len = 42;
	p->nb_segs = 1;
	tcp4_short(unic_pkt_data(p), p);
	cr_assert_eq(unic_tx_offload_check(p), UNIC_TX_OFFLOAD_ERR_L4_LEN);
	/* A real TCP header length with too little data: refused as well. */
	p->l4_len = 20;
	cr_assert_eq(unic_tx_offload_check(p), UNIC_TX_OFFLOAD_ERR_SHORT);
	free(p);
}

/* A chain of @p nb segments of 10 bytes each (no offload). */
static struct unic_pkt *chain(unsigned nb)
{
	struct unic_pkt *head = pkt(10), *prev = head;

	for (unsigned i = 1; i < nb; i++) {
		prev->next = pkt(10);
		prev = prev->next;
	}
	head->nb_segs = (uint16_t)nb;
	head->pkt_len = 10 * nb;
	return head;
}

/*
 * The port's fast path as unic_port_start() leaves it for e1000e, which
 * offers checksum and TSO offloads: unic_tx_prepare() checks the headers
 * (lib/net), then calls the driver's tx_prepare.
 */
static void fp_started(void)
{
	fk.port->fp.tx_prepare = e1000e_ops.tx_prepare;
	fk.port->fp.txq[0] = txq;
	fk.port->fp.tx_offload_check = true;
}

Test(e1000e_fp, tx_prepare_refuses_exactly_what_tx_burst_refuses_and_says_why)
{
	struct {
		const char *what;
		struct unic_pkt *p;
		int err;  /* 0: accepted */
	} c[] = {
		{ "a plain frame", pkt(100), 0 },
		{ "an IPv6 TSO packet", tcp6_pkt(1500), 0 },
		{ "an IPv4 checksum offload without l2/l3 lengths", pkt(100), -EINVAL },
		{ "a TSO request whose l3_len is not the header's", tcp6_pkt(1000), -EINVAL },
		{ "a chain whose nb_segs says 2 but holds 1", pkt(100), -EINVAL },
		{ "63 segments: 63 descriptors, what the ring holds", chain(63), 0 },
		{ "64 segments: 64 descriptors, one more than the ring holds", chain(64), -EMSGSIZE },
	};

	c[2].p->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM;
	c[3].p->l3_len = 48;
	c[4].p->nb_segs = 2;
	fp_started();
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(c); i++) {
		int err = 1;
		uint64_t refused = unic_counter_read(&txq->cnt.errors);

		e1000e_txq_drain(txq); /* an empty ring for each */
		reg_set(E1000E_TDT(0), 0);
		cr_assert_eq(unic_tx_prepare(fk.port, 0, &c[i].p, 1, &err), c[i].err ? 0 : 1,
			     "%s: prepare %s it", c[i].what, c[i].err ? "accepted" : "refused");
		cr_assert_eq(err, c[i].err, "%s: err %d, want %d", c[i].what, err, c[i].err);
		cr_assert_eq(e1000e_tx_burst(txq, &c[i].p, 1), 1, "%s: taken", c[i].what);
		cr_assert_eq(unic_counter_read(&txq->cnt.errors) - refused, c[i].err ? 1u : 0u, "%s: tx_burst %s it", c[i].what,
			     c[i].err ? "sent" : "refused");
		cr_assert_eq(TDT() != 0, c[i].err == 0, "%s: descriptors written iff accepted", c[i].what);
	}

	/* In a burst: the leading packets prepare accepts, then the refused one. */
	struct unic_pkt *b[3] = { pkt(60), pkt(60), pkt(60) };
	int err = 0;

	b[1]->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM;
	cr_assert_eq(unic_tx_prepare(fk.port, 0, b, 3, &err), 1);
	cr_assert_eq(err, -EINVAL);
	cr_assert_eq(unic_tx_prepare(fk.port, 0, b + 2, 1, &err), 1);
	cr_assert_eq(err, 0);
	unic_pkt_free_bulk(b, 3);
}

/* ---- descriptor rings from the port's DMA memory ------------------------------ */

static struct unic_mem *ring_mem;
static struct unic_port *ring_port;
static uint32_t *ring_regs;

static void ring_port_setup(struct unic_port *port)
{
	port->ops = &e1000e_ops;
	e1000e_priv(port)->intx_rx_fd = -1;
}

/* A port with the driver's ops on registers in memory, and the DMA memory
 * its probe would give it (unic_pci_dma_mem), here ordinary pages. */
static void rings_setup(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };

	ring_mem = unic_mem_create(&mc);
	ring_regs = calloc(E1000E_BAR0_LEN / 4, 4);
	ring_port = unic_port_alloc(sizeof(struct e1000e_port), "rings%d", ring_port_setup);
	cr_assert(ring_mem && ring_regs && ring_port);
	e1000e_priv(ring_port)->hw.regs = (volatile uint8_t *)ring_regs;
	e1000e_priv(ring_port)->hw.port = ring_port;
	unic_port_dma_mem_set(ring_port, ring_mem);
}

static void rings_teardown(void)
{
	unic_port_put(ring_port);
	unic_mem_destroy(ring_mem);
	free(ring_regs);
}

TestSuite(e1000e_rings, .init = rings_setup, .fini = rings_teardown);

static int txq_setup(uint16_t q, uint16_t nb, void **obj)
{
	struct unic_txq_conf c = { .sz = sizeof(c), .nb_desc = nb, .numa_node = 0 };

	return e1000e_ops.tx_queue_setup(ring_port, q, &c, obj);
}

Test(e1000e_rings, tx_queue_setup_allocates_the_ring_and_release_frees_it)
{
	struct e1000e_txq *tq = &e1000e_priv(ring_port)->txq[1];
	void *obj = NULL;
	uint64_t iova;

	cr_assert_eq(txq_setup(1, 256, &obj), 0);
	cr_assert_eq(obj, tq);
	cr_assert_not_null(tq->ring, "no descriptor ring after tx queue setup");
	cr_assert_eq((void *)tq->ring, tq->dma.va);
	cr_assert_geq(tq->dma.len, 256 * sizeof(union e1000e_tx_desc));
	cr_assert_eq((uintptr_t)tq->dma.va % 128, 0, "TDBAL wants 16 bytes, the ring is 128-aligned");
	cr_assert_eq(unic_mem_va2iova(ring_mem, tq->dma.va, &iova), 0, "the ring is not in the port's DMA memory");
	cr_assert_eq(iova, tq->dma.iova);
	cr_assert_geq(unic_mem_bytes_in_use(ring_mem), 256 * sizeof(union e1000e_tx_desc));
	e1000e_ops.tx_queue_release(ring_port, 1, obj);
	cr_assert_null(tq->ring);
	cr_assert_eq(unic_mem_bytes_in_use(ring_mem), 0, "the ring outlived its queue");
}

Test(e1000e_rings, start_programs_the_ring_set_up_at_queue_setup)
{
	struct e1000e_port *ep = e1000e_priv(ring_port);
	void *obj;

	cr_assert_eq(txq_setup(0, 128, &obj), 0);
	memset(ep->txq[0].dma.va, 0xee, ep->txq[0].dma.len);
	ring_port->conf.nb_txq = 1;
	e1000e_init_tx(ep, ring_port);
	cr_assert_eq(ring_regs[E1000E_TDBAL(0) / 4], (uint32_t)ep->txq[0].dma.iova);
	cr_assert_eq(ring_regs[E1000E_TDBAH(0) / 4], (uint32_t)(ep->txq[0].dma.iova >> 32));
	cr_assert_eq(ring_regs[E1000E_TDLEN(0) / 4], 128 * sizeof(union e1000e_tx_desc));
	cr_assert_eq(ring_regs[E1000E_TDLEN(1) / 4], 0, "a queue not in use has no ring");
	cr_assert_eq(((volatile uint8_t *)ep->txq[0].ring)[7], 0, "start leaves old descriptors");
	e1000e_ops.tx_queue_release(ring_port, 0, obj);
}

Test(e1000e_rings, setup_release_setup_cycles_leave_nothing_behind)
{
	void *obj;

	for (unsigned i = 0; i < 32; i++) {
		uint16_t nb = (uint16_t)(E1000E_DESC_MIN << (i % 4));

		cr_assert_eq(txq_setup(0, nb, &obj), 0);
		cr_assert_eq(txq_setup(1, nb, &obj), 0);
		/* Set up again without a release: the old ring goes first. */
		cr_assert_eq(txq_setup(0, E1000E_DESC_MAX, &obj), 0);
		cr_assert_eq(e1000e_priv(ring_port)->txq[0].nb_desc, E1000E_DESC_MAX);
		e1000e_ops.tx_queue_release(ring_port, 0, NULL);
		e1000e_ops.tx_queue_release(ring_port, 1, NULL);
		e1000e_ops.tx_queue_release(ring_port, 1, NULL); /* twice: harmless */
		cr_assert_eq(unic_mem_bytes_in_use(ring_mem), 0, "cycle %u left %zu bytes", i,
			     unic_mem_bytes_in_use(ring_mem));
	}
}

Test(e1000e_rings, a_port_without_dma_memory_refuses_tx_queue_setup)
{
	struct e1000e_txq *tq = &e1000e_priv(ring_port)->txq[0];
	void *obj = NULL;

	unic_port_dma_mem_set(ring_port, NULL);
	cr_assert_eq(txq_setup(0, 64, &obj), -ENODEV);
	cr_assert_null(obj);
	cr_assert_null(tq->sw_ring, "a failed setup kept its software ring");
	cr_assert_null(tq->ring);
}

Test(e1000e_rings, close_frees_the_rings_and_any_zone_the_driver_kept)
{
	struct unic_dma kept;
	void *obj;

	cr_assert_eq(txq_setup(0, 512, &obj), 0);
	cr_assert_eq(txq_setup(1, 512, &obj), 0);
	cr_assert_eq(unic_port_dma_alloc(ring_port, "test zone", 4096, 128, 0, &kept), 0);
	cr_assert_eq(unic_port_close(ring_port), 0);
	cr_assert_eq(unic_mem_bytes_in_use(ring_mem), 0, "close left %zu bytes", unic_mem_bytes_in_use(ring_mem));
}

/* ---- RSS through the port layer (unic_port_rss_*) ------------------------------ */

Test(e1000e_hw, reta_update_writes_the_masked_entries_as_bit_7_of_each_reta_byte)
{
	uint16_t reta[E1000E_RETA_SIZE] = { 0 }, back[E1000E_RETA_SIZE];
	uint64_t mask[2] = { 0, 0 };

	fk.port->conf.nb_rxq = 2;
	/* Untouched: every other entry to queue 1, as start programs it. */
	cr_assert_eq(unic_port_rss_reta_query(fk.port, back, E1000E_RETA_SIZE), 0);
	cr_assert_eq(back[0], 0);
	cr_assert_eq(back[1], 1);
	/* Entries 0..3 to queue 1, entry 5 to queue 0; the others unmasked. */
	for (unsigned i = 0; i < 4; i++) {
		reta[i] = 1;
		mask[0] |= 1ull << i;
	}
	reta[5] = 0;
	mask[0] |= 1ull << 5;
	reta[127] = 1; /* not in the mask: stays */
	cr_assert_eq(unic_port_rss_reta_update(fk.port, reta, mask, E1000E_RETA_SIZE), 0);
	cr_assert_eq(regs[E1000E_RETA(0) / 4], 0x80808080u);
	cr_assert_eq(regs[E1000E_RETA(1) / 4], 0x80000000u, "entry 5 to 0, 7 still 1: 0x%08x",
		     regs[E1000E_RETA(1) / 4]);
	cr_assert_eq(regs[E1000E_RETA(31) / 4], 0x80008000u);
	cr_assert_eq(unic_port_rss_reta_query(fk.port, back, E1000E_RETA_SIZE), 0);
	cr_assert_eq(back[2], 1);
	cr_assert_eq(back[5], 0);
	cr_assert_eq(back[126], 0);
	cr_assert_eq(back[127], 1);
}

Test(e1000e_hw, reta_update_refuses_a_queue_past_nb_rxq_and_another_table_size)
{
	uint16_t reta[E1000E_RETA_SIZE] = { 0 };
	uint64_t mask[2] = { 1, 0 };

	fk.port->conf.nb_rxq = 1;
	reta[0] = 1;
	cr_assert_eq(unic_port_rss_reta_update(fk.port, reta, mask, E1000E_RETA_SIZE), -EINVAL);
	cr_assert_eq(regs[E1000E_RETA(0) / 4], 0, "nothing written");
	cr_assert_eq(unic_port_rss_reta_query(fk.port, reta, 64), -EINVAL);
}

Test(e1000e_hw, rss_hash_get_gives_the_default_key_and_update_keeps_types_and_key)
{
	struct unic_rss_conf r;

	fk.port->conf.rss_hash_types = UNIC_RSS_IPV4;
	cr_assert_eq(unic_port_rss_hash_get(fk.port, &r), 0);
	cr_assert_eq(r.types, UNIC_RSS_IPV4);
	cr_assert_eq(r.key_len, E1000E_RSS_KEY_LEN);
	cr_assert_eq(r.key[0], 0x6d);
	cr_assert_eq(r.key[39], 0xfa);
	/* UDP: the 82574 does not hash UDP ports. */
	r.types = UNIC_RSS_IPV4_UDP;
	r.key_len = 0;
	cr_assert_eq(unic_port_rss_hash_update(fk.port, &r), -EINVAL);
	r.key_len = 16;
	r.types = UNIC_RSS_IPV4;
	cr_assert_eq(unic_port_rss_hash_update(fk.port, &r), -EINVAL);
	memset(r.key, 0xab, sizeof(r.key));
	r.key_len = E1000E_RSS_KEY_LEN;
	r.types = UNIC_RSS_IPV4_TCP | UNIC_RSS_IPV6;
	cr_assert_eq(unic_port_rss_hash_update(fk.port, &r), 0);
	memset(&r, 0, sizeof(r));
	cr_assert_eq(unic_port_rss_hash_get(fk.port, &r), 0);
	cr_assert_eq(r.types, UNIC_RSS_IPV4_TCP | UNIC_RSS_IPV6);
	cr_assert_eq(r.key[0], 0xab);
	cr_assert_eq(r.key[39], 0xab);
}

Test(e1000e_hw, rss_hash_update_on_a_port_started_with_rss_writes_rssrk_and_mrqc)
{
	struct e1000e_port *ep = fk.ep;
	struct unic_rss_conf r = { .types = UNIC_RSS_IPV4, .key_len = E1000E_RSS_KEY_LEN };

	/* What start leaves: RSS on. The port layer writes the registers only then. */
	ep->rss_on = true;
	fk.port->conf.nb_rxq = 2;
	enum unic_port_state was = port_core(fk.port)->state;

	port_core(fk.port)->state = UNIC_PORT_STARTED;
	for (unsigned i = 0; i < E1000E_RSS_KEY_LEN; i++)
		r.key[i] = (uint8_t)i;
	cr_assert_eq(unic_port_rss_hash_update(fk.port, &r), 0);
	cr_assert_eq(regs[E1000E_RSSRK(0) / 4], 0x03020100u);
	cr_assert_eq(regs[E1000E_RSSRK(9) / 4], 0x27262524u);
	cr_assert_eq(regs[E1000E_MRQC / 4], E1000E_MRQC_IPV4 | E1000E_MRQC_RSS_EN);
	r.types = 0;
	r.key_len = 0;
	cr_assert_eq(unic_port_rss_hash_update(fk.port, &r), 0);
	cr_assert_eq(regs[E1000E_MRQC / 4], 0, "types none: every packet to queue 0");
	port_core(fk.port)->state = was;
}

/* ---- 802.3x flow control through the port layer ---------------------------------- */

Test(e1000e_hw, flow_ctrl_set_programs_ctrl_thresholds_and_pause_frame_and_get_reads_them_back)
{
	struct unic_flow_ctrl fc = { .rx_pause = true, .tx_pause = true, .high_water = 16384,
				     .low_water = 12000, .pause_time = 0x680, .send_xon = true };
	struct unic_flow_ctrl back;

	cr_assert_eq(unic_port_flow_ctrl_set(fk.port, &fc), 0);
	cr_assert(regs[E1000E_CTRL / 4] & E1000E_CTRL_RFCE);
	cr_assert(regs[E1000E_CTRL / 4] & E1000E_CTRL_TFCE);
	cr_assert_eq(regs[E1000E_FCRTH / 4], 16384);
	cr_assert_eq(regs[E1000E_FCRTL / 4], 12000 | E1000E_FCRTL_XONE);
	cr_assert_eq(regs[E1000E_FCTTV / 4], 0x680);
	cr_assert_eq(regs[E1000E_FCAL / 4], 0x00C28001u);
	cr_assert_eq(regs[E1000E_FCT / 4], 0x8808u);
	cr_assert_eq(unic_port_flow_ctrl_get(fk.port, &back), 0);
	cr_assert(back.rx_pause && back.tx_pause && back.send_xon);
	cr_assert_eq(back.high_water, 16384);
	cr_assert_eq(back.low_water, 12000);
	cr_assert_eq(back.pause_time, 0x680);
	/* Off: both CTRL bits clear, the other CTRL bits kept. */
	reg_set(E1000E_CTRL, regs[E1000E_CTRL / 4] | E1000E_CTRL_SLU);
	fc.rx_pause = fc.tx_pause = false;
	cr_assert_eq(unic_port_flow_ctrl_set(fk.port, &fc), 0);
	cr_assert_eq(regs[E1000E_CTRL / 4] & (E1000E_CTRL_RFCE | E1000E_CTRL_TFCE), 0);
	cr_assert(regs[E1000E_CTRL / 4] & E1000E_CTRL_SLU);
}

Test(e1000e_hw, flow_ctrl_refuses_thresholds_past_the_rx_buffer_and_pause_autoneg)
{
	struct unic_flow_ctrl fc = { .tx_pause = true, .high_water = 30000, .low_water = 1000 };

	cr_assert_eq(unic_port_flow_ctrl_set(fk.port, &fc), -EINVAL);
	fc.high_water = 1000;
	fc.low_water = 1000;
	cr_assert_eq(unic_port_flow_ctrl_set(fk.port, &fc), -EINVAL);
	fc.low_water = 500;
	fc.autoneg = true;
	cr_assert_eq(unic_port_flow_ctrl_set(fk.port, &fc), -EINVAL);
	cr_assert_eq(regs[E1000E_FCRTH / 4], 0, "nothing written");
	fc.autoneg = false;
	cr_assert_eq(unic_port_flow_ctrl_set(fk.port, &fc), 0);
	cr_assert_eq(regs[E1000E_FCRTH / 4], 1000);
}

/* The port layer's descriptor calls reach the rings of the queues the core
 * knows: the fake builds them without the core, so tell it. */
static void expose_queues(void)
{
	fk.port->rxq[0].q = rxq;
	fk.port->rxq[0].nb_desc = rxq->nb_desc;
	fk.port->txq[0].q = txq;
	fk.port->txq[0].nb_desc = txq->nb_desc;
}

Test(e1000e_fp, rx_descriptor_status_and_used_count_follow_the_devices_write_backs)
{
	struct unic_pkt *p[4];
	uint32_t w[4];

	cr_assert_eq(fake_e1000e_start(&fk), 0);
	expose_queues();
	/* Start gave every descriptor but one a buffer: none done yet. */
	cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 0);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 0), UNIC_DESC_AVAIL);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 62), UNIC_DESC_AVAIL);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 63), UNIC_DESC_UNAVAIL, "the one without a buffer");
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 64), -EINVAL, "past the ring");
	cr_assert_eq(unic_port_rx_queue_count(fk.port, 1), -EINVAL, "no queue 1");
	/* The device writes two frames back. */
	fake_e1000e_rx_wb(&fk, 0, 60, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	fake_e1000e_rx_wb(&fk, 1, 70, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 2);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 1), UNIC_DESC_DONE);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 2), UNIC_DESC_AVAIL);
	/* The raw words as the device wrote them: status, then length. */
	cr_assert_eq(unic_port_desc_read(fk.port, false, 0, 1, w, 4), 4);
	cr_assert_eq(w[2], E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	cr_assert_eq(w[3] & 0xffff, 70);
	cr_assert_eq(unic_port_desc_read(fk.port, false, 0, 64, w, 4), -EINVAL);
	/* Taken: the count is back to 0, counted from the next descriptor. */
	cr_assert_eq(e1000e_rx_burst(rxq, p, 4), 2);
	unic_pkt_free_bulk(p, 2);
	cr_assert_eq(unic_port_rx_queue_count(fk.port, 0), 0);
	cr_assert_eq(unic_port_desc_status(fk.port, false, 0, 0), UNIC_DESC_AVAIL);
}

Test(e1000e_fp, tx_descriptor_status_is_full_until_the_device_reports_its_batch_done)
{
	struct unic_pkt *p[40];
	uint32_t w[4];
	uint16_t free_from_tail;

	expose_queues();
	for (int i = 0; i < 40; i++)
		p[i] = pkt(60);
	cr_assert_eq(e1000e_tx_burst(txq, p, 40), 40);
	cr_assert_eq(txq->next_to_use, 40, "one descriptor a packet");
	free_from_tail = (uint16_t)(txq->nb_desc - 40);
	/* Offsets from the tail: the free ones are done; then the oldest in
	 * flight, not sent yet. */
	cr_assert_eq(unic_port_desc_status(fk.port, true, 0, 0), UNIC_DESC_DONE);
	cr_assert_eq(unic_port_desc_status(fk.port, true, 0, free_from_tail), UNIC_DESC_AVAIL);
	/* DD on the RS descriptor 31: 0..31 are done, 32..39 not. */
	tx_ring[31].data.status_popts |= E1000E_TXD_STAT_DD;
	cr_assert_eq(unic_port_desc_status(fk.port, true, 0, free_from_tail), UNIC_DESC_DONE);
	cr_assert_eq(unic_port_desc_status(fk.port, true, 0, (uint16_t)(free_from_tail + 31)), UNIC_DESC_DONE);
	cr_assert_eq(unic_port_desc_status(fk.port, true, 0, (uint16_t)(free_from_tail + 32)), UNIC_DESC_AVAIL);
	/* The raw words: the buffer address, then length and command. */
	cr_assert_eq(unic_port_desc_read(fk.port, true, 0, 5, w, 4), 4);
	cr_assert_eq(((uint64_t)w[1] << 32 | w[0]), tx_ring[5].data.buffer_addr);
	cr_assert_eq(w[2] & E1000E_TXD_LEN_MASK, 60);
}
