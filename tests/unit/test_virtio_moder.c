/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio-net's rx moderation through the event index (pmd/virtio,
 * virtio_coalesce_set; docs/napi.md "The device's moderation"), against
 * the fake device of fake_virtio.h, which honours the split ring's
 * used_event and the packed ring's driver event suppression (DESC with
 * an offset and wrap counter) as QEMU's virtio-net does (it interrupts
 * when its used index passes the event):
 *  - with rx_max_frames N the arm names the entry N - 1 past the next
 *    used one the driver reads (split: used_event; packed: off_wrap, lap
 *    after lap of the ring), and the device interrupts once, at the N-th
 *    frame, not before;
 *  - rx_max_frames counts frames: with mergeable buffers a frame of
 *    several buffers counts once (the arm waits for N x the buffers a
 *    frame took), on split and packed rings;
 *  - without moderation (N 0 or 1) an arm interrupts at the first frame;
 *  - a frame that came before the arm is still found by the re-check;
 *  - the settings read back, a count above the driver's most is rounded
 *    down, a count without a time bound and tx_usecs are refused;
 *  - a device without VIRTIO_F_EVENT_IDX (split or packed) has no
 *    moderation: -ENOTSUP, and its arms stay one interrupt per frame.
 * The op reads no device memory (it stores two numbers the arm reads; the
 * mean buffers a frame takes comes from num_buffers, checked by rx): the
 * malicious-device checks of the rings stay test_virtio*.c's and the fuzz
 * harness's.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/napi.h>
#include <unic/pkt.h>

#include "fake_virtio.h"
#include "fake_virtio_fixture.h"
#include "log_capture.h"

static struct fake_virtio fk;
static struct fake_virtio_dev *dev;

#define RXQ 0

static void attach_start_mtu(uint64_t features, uint16_t mtu)
{
	dev = &fk.dev;
	fake_virtio_attach_start(&fk, features, mtu);
	/* No PCI device, no vector: the queue's interrupt by hand (as
	 * test_virtio.c's virtio_intr), its notifications counted. */
	fk.vp->rxq[0].intr_on = true;
	fk.vp->rxq[0].irq_fd = -1;
}

static void attach_start(uint64_t features)
{
	attach_start_mtu(features, 1500);
}

static void setup_event_idx(void)
{
	attach_start(0);
	cr_assert(dev->accepted & FV_BIT(FV_F_EVENT_IDX), "EVENT_IDX offered and not taken");
}

static void teardown(void)
{
	fake_virtio_destroy(&fk);
	logcap_stop();
}

static struct virtio_rxq *rxq0(void)
{
	return &fk.vp->rxq[0];
}

static void deliver1(uint32_t seq)
{
	uint8_t f[60] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00 };
	int rc;

	memcpy(f + 20, &seq, sizeof(seq));
	rc = fake_virtio_rx(dev, RXQ, NULL, f, sizeof(f));
	cr_assert_geq(rc, 1, "the device could not deliver: %d; device error: %s", rc, dev->err);
}

/* Receive everything there is; @return how many. */
static unsigned drain(void)
{
	struct unic_pkt *p[64];
	unsigned got = 0;
	uint16_t n;

	while ((n = unic_rx_burst(fk.port, 0, p, 64)) > 0) {
		unic_pkt_free_bulk(p, n);
		got += n;
	}
	return got;
}

static void set_frames(uint32_t usecs, uint32_t frames)
{
	struct unic_coalesce c = { .rx_usecs = usecs, .rx_max_frames = frames };

	cr_assert_eq(unic_port_coalesce_set(fk.port, &c), 0, "%s", logcap_buf);
}

TestSuite(virtio_moder, .init = setup_event_idx, .fini = teardown);

Test(virtio_moder, an_arm_under_n_frames_writes_used_event_n_minus_one_past_the_next_used_index)
{
	struct fv_ring r;

	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	for (unsigned round = 0; round < 40; round++) { /* across the 16-bit index's wrap too */
		uint32_t n = 1 + round % 9;

		set_frames(100, n);
		cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
		cr_assert_eq(*(volatile uint16_t *)r.used_event, (uint16_t)(rxq0()->vq.used_idx + n - 1),
			     "N %u: used_event %u, next used index %u", n, *r.used_event, rxq0()->vq.used_idx);
		cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
		for (unsigned k = 0; k < 7; k++)
			deliver1(k);
		cr_assert_eq(drain(), 7);
	}
}

/* A frame of @p len bytes (the frame's sequence number in it); @return the buffers it took. */
static int deliver_len(uint32_t seq, size_t len)
{
	static uint8_t f[9014];
	int rc;

	memset(f, 0, sizeof(f));
	memcpy(f, "\x52\x54\x00\x12\x34\x56\x02\x00\x00\x00\x00\x01\x08\x00", 14);
	memcpy(f + 20, &seq, sizeof(seq));
	rc = fake_virtio_rx(dev, RXQ, NULL, f, len);
	cr_assert_geq(rc, 1, "the device could not deliver %zu bytes: %d; device error: %s", len, rc, dev->err);
	return rc;
}

/*
 * N frames of @p len bytes after the arm: no interrupt for the first
 * N - 1, one at the N-th, none at the one after; @p cycles times each N.
 * @p want_bufs: the buffers a frame must take. An arm waits for at most
 * half the ring of entries: N frames of that many buffers past it ring
 * at the frame that reaches it.
 */
static void nth_frame_interrupts(size_t len, int want_bufs, unsigned cycles)
{
	static const uint32_t counts[] = { 0, 1, 2, 3, 4, 8, 32 };
	uint32_t cap = (rxq0()->vq.size / 2 + (uint32_t)want_bufs - 1) / (uint32_t)want_bufs;

	for (unsigned i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		uint32_t n = counts[i], need = n ? UNIC_MIN(n, cap) : 1;
		uint64_t i0;

		set_frames(n > 1 ? 200 : 0, n);
		for (unsigned cycle = 0; cycle < cycles; cycle++) {
			cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
			cr_assert_eq(virtio_rx_pending(rxq0()), false);
			i0 = dev->q[RXQ].interrupts;
			for (uint32_t k = 1; k <= need + 1; k++) {
				int bufs = deliver_len(k, len);

				cr_assert_eq(bufs, want_bufs, "a %zu-byte frame took %d buffers", len, bufs);
				cr_assert_eq(dev->q[RXQ].interrupts, i0 + (k >= need),
					     "N %u, frames of %d buffer(s): %" PRIu64 " interrupt(s) after frame %u", n,
					     bufs, dev->q[RXQ].interrupts - i0, k);
			}
			cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
			cr_assert_eq(drain(), need + 1);
		}
	}
}

/* N frames after the arm: no interrupt for the first N - 1, one at the N-th. */
Test(virtio_moder, the_device_interrupts_once_at_the_nth_frame_after_the_arm)
{
	nth_frame_interrupts(60, 1, 5);
}

Test(virtio_moder, a_frame_before_the_arm_is_found_by_the_re_check_under_moderation)
{
	set_frames(200, 8);
	deliver1(1);
	cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
	cr_assert(virtio_rx_pending(rxq0()), "a frame in the used ring, and the re-check after the arm misses it");
	cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
	cr_assert_eq(drain(), 1);
}

Test(virtio_moder, the_settings_read_back_and_bad_ones_are_refused_naming_the_field)
{
	struct unic_coalesce c = { .rx_usecs = 40, .rx_max_frames = 6 };
	struct fv_ring r;

	cr_assert_eq(unic_port_coalesce_set(fk.port, &c), 0);
	memset(&c, 0xff, sizeof(c));
	cr_assert_eq(unic_port_coalesce_get(fk.port, &c), 0);
	cr_assert_eq(c.rx_usecs, 40);
	cr_assert_eq(c.rx_max_frames, 6);
	cr_assert_eq(c.tx_usecs, 0);

	c = (struct unic_coalesce){ .rx_usecs = 40, .rx_max_frames = 1000 };
	cr_assert_eq(unic_port_coalesce_set(fk.port, &c), 0);
	cr_assert_eq(unic_port_coalesce_get(fk.port, &c), 0);
	cr_assert_eq(c.rx_max_frames, VIRTIO_RX_FRAMES_MAX, "rx_max_frames 1000 read back as %u", c.rx_max_frames);
	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
	cr_assert_eq(*r.used_event, (uint16_t)(rxq0()->vq.used_idx + VIRTIO_RX_FRAMES_MAX - 1));
	virtio_rx_intr_disable(rxq0());

	logcap_clear();
	c = (struct unic_coalesce){ .rx_usecs = 0, .rx_max_frames = 4 };
	cr_assert_eq(unic_port_coalesce_set(fk.port, &c), -EINVAL);
	cr_assert_not_null(strstr(logcap_buf, "rx_usecs"), "log: %s", logcap_buf);
	c = (struct unic_coalesce){ .rx_usecs = 10, .tx_usecs = 10 };
	cr_assert_eq(unic_port_coalesce_set(fk.port, &c), -EINVAL);
	cr_assert_not_null(strstr(logcap_buf, "tx_usecs"), "log: %s", logcap_buf);
	/* Refused: what was set stays. */
	cr_assert_eq(unic_port_coalesce_get(fk.port, &c), 0);
	cr_assert_eq(c.rx_max_frames, VIRTIO_RX_FRAMES_MAX);
}

/* ---- devices without it ------------------------------------------------------------------ */

TestSuite(virtio_moder_none, .fini = teardown);

static void no_moderation(void)
{
	struct unic_coalesce c = { .rx_usecs = 100, .rx_max_frames = 8 };
	uint64_t i0;

	cr_assert_eq(unic_port_coalesce_get(fk.port, &c), -ENOTSUP);
	cr_assert_eq(unic_port_coalesce_set(fk.port, &c), -ENOTSUP);
	/* One interrupt per armed wait, as before. */
	cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
	i0 = dev->q[RXQ].interrupts;
	deliver1(1);
	cr_assert_eq(dev->q[RXQ].interrupts, i0 + 1, "armed, a frame, and no interrupt");
	virtio_rx_intr_disable(rxq0());
	cr_assert_eq(drain(), 1);
}

Test(virtio_moder_none, without_event_idx_there_is_no_moderation_and_one_interrupt_per_arm)
{
	attach_start(FV_FEATURES_QEMU_HUB & ~FV_BIT(FV_F_EVENT_IDX));
	cr_assert_eq(dev->accepted & FV_BIT(FV_F_EVENT_IDX), 0);
	no_moderation();
}

Test(virtio_moder_none, a_packed_ring_without_event_idx_has_no_moderation_and_one_interrupt_per_arm)
{
	attach_start((FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_RING_PACKED)) & ~FV_BIT(FV_F_EVENT_IDX));
	cr_assert(dev->accepted & FV_BIT(FV_F_RING_PACKED), "RING_PACKED offered and not taken");
	no_moderation();
}

/* ---- mergeable buffers: a frame of several buffers counts once ---------------------------- */

/*
 * With MRG_RXBUF (QEMU offers it) and an MTU of 9000, a frame of 5000
 * bytes takes three 2 KiB buffers, and the device writes their used
 * entries together, then checks the event once (QEMU: virtio_net_receive
 * flushes a frame's buffers and notifies once). An arm under N frames
 * must wait for 3N entries: counting entries, it would ring at frame
 * N / 3.
 */
static void setup_mrg_split(void)
{
	attach_start_mtu(0, 9000);
	cr_assert(dev->accepted & FV_BIT(FV_F_MRG_RXBUF), "MRG_RXBUF offered and not taken");
}

static void setup_mrg_packed(void)
{
	attach_start_mtu(FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_RING_PACKED), 9000);
	cr_assert(dev->accepted & FV_BIT(FV_F_RING_PACKED), "RING_PACKED offered and not taken");
	cr_assert(dev->accepted & FV_BIT(FV_F_MRG_RXBUF), "MRG_RXBUF offered and not taken");
}

/* The driver learns the buffers a frame takes from the frames it takes. */
static void learn(size_t len, unsigned frames)
{
	for (unsigned k = 0; k < frames; k++) {
		deliver_len(k, len);
		cr_assert_eq(drain(), 1);
	}
}

TestSuite(virtio_moder_mrg, .fini = teardown);

Test(virtio_moder_mrg, split_frames_of_three_buffers_interrupt_once_at_the_nth_frame, .init = setup_mrg_split)
{
	learn(5000, 40);
	nth_frame_interrupts(5000, 3, 3);
}

Test(virtio_moder_mrg, packed_frames_of_three_buffers_interrupt_once_at_the_nth_frame, .init = setup_mrg_packed)
{
	learn(5000, 40);
	nth_frame_interrupts(5000, 3, 3);
}

/* Sizes that change: the arm follows the mean of the last frames. */
Test(virtio_moder_mrg, the_count_follows_frames_whose_size_changes, .init = setup_mrg_split)
{
	static const size_t lens[] = { 60, 9014, 3000, 60 };
	static const int bufs[] = { 1, 5, 2, 1 };

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(lens); i++) {
		learn(lens[i], 40);
		nth_frame_interrupts(lens[i], bufs[i], 1);
	}
}

/* One frame whose buffers came before the arm is no frame of the N: the
 * arm after it waits for N new ones. And a used_event that names a buffer
 * inside the N-th frame: 3N - 1 past the next entry, exactly. */
Test(virtio_moder_mrg, the_event_names_the_last_buffer_of_the_nth_frame, .init = setup_mrg_split)
{
	struct fv_ring r;

	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	learn(5000, 40);
	for (uint32_t n = 2; n <= 10; n++) {
		set_frames(100, n);
		cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
		cr_assert_eq(*(volatile uint16_t *)r.used_event, (uint16_t)(rxq0()->vq.used_idx + 3 * n - 1),
			     "N %u: used_event %u, next used index %u", n, *r.used_event, rxq0()->vq.used_idx);
		cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
	}
	set_frames(100, VIRTIO_RX_FRAMES_MAX);
	cr_assert_eq(virtio_rx_arm_entries(rxq0()), 3 * VIRTIO_RX_FRAMES_MAX);
	/* At most half the ring of entries: 32 frames of five buffers. */
	learn(9014, 40);
	cr_assert_eq(virtio_rx_arm_entries(rxq0()), rxq0()->vq.size / 2);
}

/* A frame whose first buffers came (num_buffers said more) is one of the
 * N: the arm waits for its missing buffers and N - 1 frames more; the
 * rest of a dropped frame likewise. (The fake device writes a frame's
 * buffers at once, so the state is set by hand.) */
Test(virtio_moder_mrg, a_frame_in_progress_is_one_of_the_n, .init = setup_mrg_split)
{
	struct virtio_rxq *q = rxq0();

	learn(5000, 40);
	set_frames(100, 4);
	cr_assert_eq(virtio_rx_arm_entries(q), 12, "4 frames of 3 buffers");
	q->chain_left = 2;
	cr_assert_eq(virtio_rx_arm_entries(q), 2 + 3 * 3, "2 buffers of the frame in progress, then 3 frames");
	q->chain_left = 0;
	q->chain_skip = 1;
	cr_assert_eq(virtio_rx_arm_entries(q), 1 + 3 * 3, "1 buffer of a dropped frame, then 3 frames");
	q->chain_skip = 0;
	set_frames(0, 1);
	q->chain_left = 2;
	cr_assert_eq(virtio_rx_arm_entries(q), 1, "no moderation: the next entry");
	q->chain_left = 0;
}

/* ---- packed rings: the driver event suppression structure ------------------------------- */

static void setup_packed(void)
{
	attach_start(FV_FEATURES_QEMU_HUB | FV_BIT(FV_F_RING_PACKED));
	cr_assert(dev->accepted & FV_BIT(FV_F_RING_PACKED), "RING_PACKED offered and not taken");
	cr_assert(dev->accepted & FV_BIT(FV_F_EVENT_IDX), "EVENT_IDX offered and not taken");
}

TestSuite(virtio_moder_packed, .init = setup_packed, .fini = teardown);

/* DESC at the position N - 1 past the next the driver reads, its wrap
 * counter the lap that position is in: lap after lap (7 frames a round,
 * 120 rounds: over three laps of 256). */
Test(virtio_moder_packed, an_arm_under_n_frames_names_the_position_n_minus_one_on_with_its_wrap_counter)
{
	struct fv_ring r;

	cr_assert_eq(fake_virtio_ring(dev, RXQ, &r), 0);
	cr_assert(r.packed);
	for (unsigned round = 0; round < 120; round++) {
		uint32_t n = 1 + round % 9;
		uint16_t pos = (uint16_t)(dev->q[RXQ].pk_used + n - 1), wrap = dev->q[RXQ].pk_used_wrap;

		if (pos >= r.size) { /* the next lap: the wrap counter flips */
			pos = (uint16_t)(pos - r.size);
			wrap = !wrap;
		}
		set_frames(100, n);
		cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
		cr_assert_eq(*(volatile uint16_t *)&r.drv_event->flags, FV_PEVENT_DESC);
		cr_assert_eq(*(volatile uint16_t *)&r.drv_event->off_wrap, (uint16_t)(pos | wrap << 15),
			     "round %u, N %u: off_wrap 0x%04x, the device's next used position %u (wrap %u)", round, n,
			     *(volatile uint16_t *)&r.drv_event->off_wrap, dev->q[RXQ].pk_used, dev->q[RXQ].pk_used_wrap);
		cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
		cr_assert_eq(*(volatile uint16_t *)&r.drv_event->flags, FV_PEVENT_DISABLE);
		for (unsigned k = 0; k < 7; k++)
			deliver1(k);
		cr_assert_eq(drain(), 7);
	}
}

/* 12 cycles of each N: the arms fall on every part of a lap, the events
 * past the ring's end included. */
Test(virtio_moder_packed, the_device_interrupts_once_at_the_nth_frame_lap_after_lap)
{
	nth_frame_interrupts(60, 1, 12);
}

Test(virtio_moder_packed, a_frame_before_the_arm_is_found_by_the_re_check_and_the_settings_read_back)
{
	struct unic_coalesce c;

	set_frames(200, 8);
	deliver1(1);
	cr_assert_eq(virtio_rx_intr_enable(rxq0()), 0);
	cr_assert(virtio_rx_pending(rxq0()), "a used descriptor, and the re-check after the arm misses it");
	cr_assert_eq(virtio_rx_intr_disable(rxq0()), 0);
	cr_assert_eq(drain(), 1);
	cr_assert_eq(unic_port_coalesce_get(fk.port, &c), 0);
	cr_assert_eq(c.rx_usecs, 200);
	cr_assert_eq(c.rx_max_frames, 8);
}

/* ---- interrupts per frame at a steady rate, on the host ------------------------------------- */

/*
 * The napi engine's adaptive policy on the fake virtio-net device, with
 * real interrupts: the device's notifications write an eventfd that the
 * context waits on (the MSI-X vector of a real device, set up by hand: the
 * fake has no PCI function). A producer thread delivers a frame every
 * period (the device never asks for kicks, so only the producer touches
 * the device's side); the context (hybrid, cpu_budget 5: it mostly
 * sleeps) runs in its own thread, once with the policy's moderation and
 * once with moderation_fixed, interleaved. Printed: interrupts per frame,
 * what the policy wrote; asserted: every frame handed over.
 */

struct mrun {
	struct unic_napi_ctx *ctx;
	bool stop;
	uint64_t handled;
};

static uint16_t mrun_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n, void *arg)
{
	(void)port;
	(void)q;
	unic_pkt_free_bulk(pkts, n);
	__atomic_fetch_add(&((struct mrun *)arg)->handled, n, __ATOMIC_RELEASE);
	return n;
}

static void *mrun_thread(void *arg)
{
	struct mrun *m = arg;

	unic_napi_run(m->ctx, &m->stop);
	return NULL;
}

struct mres {
	double ratio, wakes, pps;
	uint64_t mod_set;
	int64_t mod_us;
	uint64_t est_gap_ns, est_wake_ns;
};

static void moder_host_run(bool fixed, uint64_t period_ns, uint64_t run_ns, struct mres *res)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .name = fixed ? "fixed" : "moder", .mode = UNIC_RX_MODE_HYBRID,
				    .cpu_budget = 5, .moderation_fixed = fixed };
	struct unic_napi_ctx_stats st0, st1;
	struct unic_napi_queue_info qi;
	struct unic_coalesce co = { 0 };
	struct mrun m = { 0 };
	uint8_t f[60] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00 };
	uint64_t sent = 0, t0, t1, w0;
	pthread_t th;
	int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	cr_assert_geq(efd, 0);
	cr_assert_eq(unic_port_coalesce_set(fk.port, &co), 0); /* each run starts from none */
	fake_virtio_kick_policy(dev, RXQ, FV_KICK_NEVER);
	fk.vp->intr_on = true;
	fk.vp->intx = false;
	fk.vp->plan.nb_vec = 1;
	fk.vp->plan.rx[0] = 0;
	fk.vp->irq_fds[0] = efd;
	rxq0()->intr_on = true;
	rxq0()->irq_fd = efd;
	dev->q[RXQ].irq_fd = efd;
	dev->q[RXQ].msix = 1;
	fk.port->conf.rx_mode = UNIC_RX_MODE_HYBRID;
	m.ctx = unic_napi_ctx_create(&c);
	cr_assert_not_null(m.ctx, "%s", logcap_buf);
	cr_assert_eq(unic_napi_queue_add(m.ctx, fk.port, 0, 64, mrun_handler, &m), 0, "%s", logcap_buf);
	cr_assert_eq(pthread_create(&th, NULL, mrun_thread, &m), 0);
	usleep(20000);
	cr_assert_eq(unic_napi_ctx_stats_get(m.ctx, &st0), 0);
	t0 = unic_time_ns();
	for (uint64_t due = t0; due < t0 + run_ns; due += period_ns) {
		while (unic_time_ns() < due)
			;
		memcpy(f + 20, &sent, sizeof(sent));
		/* No buffer: the driver has not refilled yet; try again. */
		w0 = unic_time_ns();
		while (fake_virtio_rx(dev, RXQ, NULL, f, sizeof(f)) == -EAGAIN)
			cr_assert(unic_time_ns() - w0 < 2000000000ull, "no rx buffer for 2 s: %" PRIu64 " of %" PRIu64
				  " handled; avail %d, the driver's free %u", m.handled, sent,
				  fake_virtio_avail_count(dev, RXQ), rxq0()->vq.nb_free);
		sent++;
	}
	t1 = unic_time_ns();
	while (__atomic_load_n(&m.handled, __ATOMIC_ACQUIRE) < sent && unic_time_ns() - t1 < 2000000000ull)
		usleep(1000);
	cr_assert_eq(unic_napi_ctx_stats_get(m.ctx, &st1), 0);
	cr_assert_eq(unic_napi_queues_get(m.ctx, &qi, 1), 1);
	__atomic_store_n(&m.stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(m.ctx);
	pthread_join(th, NULL);
	cr_expect_eq(m.handled, sent, "%s: %" PRIu64 " of %" PRIu64 " frames handled: stranded", c.name, m.handled,
		     sent);
	unic_napi_ctx_destroy(m.ctx);
	dev->q[RXQ].irq_fd = -1;
	dev->q[RXQ].msix = FV_NO_VECTOR;
	rxq0()->irq_fd = -1;
	rxq0()->intr_on = false;
	fk.vp->irq_fds[0] = -1;
	fk.vp->intr_on = false;
	fk.port->conf.rx_mode = UNIC_RX_MODE_POLL;
	close(efd);
	res->ratio = (double)(st1.interrupts - st0.interrupts) / (double)(sent ? sent : 1);
	res->wakes = (double)(st1.wakeups - st0.wakeups) / (double)(sent ? sent : 1);
	res->pps = (double)sent * 1e9 / (double)(t1 - t0);
	res->mod_set = st1.moderation_set;
	res->mod_us = qi.moderation_us;
	res->est_gap_ns = st1.est_gap_ns;
	res->est_wake_ns = st1.est_wake_ns;
}

TestSuite(virtio_moder_host, .init = setup_event_idx, .fini = teardown, .timeout = 120);

Test(virtio_moder_host, at_a_steady_rate_interrupts_per_frame_with_the_moderation_and_without_are_printed)
{
	static const uint64_t periods[] = { 4000, 20000 };
	double load[3] = { 0 };

	getloadavg(load, 3);
	for (unsigned p = 0; p < UNIC_ARRAY_SIZE(periods); p++) {
		double r[2] = { 0 }, wk[2] = { 0 };

		for (unsigned round = 0; round < 3; round++) {
			for (unsigned i = 0; i < 2; i++) {
				unsigned k = (round & 1) ? 1 - i : i; /* ABBA */
				struct mres res;

				moder_host_run(k != 0, periods[p], 500000000ull, &res);
				r[k] += res.ratio / 3;
				wk[k] += res.wakes / 3;
				fprintf(stderr, "# virtio moderation on the host, a frame every %.0f us, %s: %.0f frames/s, "
					"interrupts per frame %.4f, wake-ups per frame %.4f, moderation_set %" PRIu64 ", moderation_us %" PRId64
					", est_gap %.1f us, est_wake %.1f us\n", periods[p] / 1e3, k ? "fixed" : "policy",
					res.pps, res.ratio, res.wakes, res.mod_set, res.mod_us, res.est_gap_ns / 1e3,
					res.est_wake_ns / 1e3);
			}
		}
		fprintf(stderr, "# virtio moderation on the host, a frame every %.0f us, mean of 3 rounds: interrupts per "
			"frame %.4f with the policy's moderation, %.4f with moderation_fixed; wake-ups (interrupts and timeouts) "
			"per frame %.4f / %.4f (load average %.2f)\n", periods[p] / 1e3, r[0], r[1], wk[0], wk[1], load[0]);
	}
}
