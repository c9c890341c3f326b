/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net driver's control virtqueue (pmd/virtio/virtio_ctrl.c and
 * the port ops behind it) against the fake device of fake_virtio.h, whose
 * control queue carries the commands out as QEMU 7.2 does and keeps the
 * receive filter they set (struct fv_filter): the command primitive
 * (acknowledged, refused, never answered, a device gone), the
 * malicious-device harness for the control queue's used ring (suite
 * virtio_ctrl_malicious: a bogus id, length or index is counted and
 * refused, never trusted), and the filter state the port ops leave.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unic/port.h>

#include "fake_virtio.h"
#include "log_capture.h"

static struct fake_virtio fk;
static struct fake_virtio_dev *dev;

static void attach(const struct fake_virtio_config *c)
{
	int rc;

	logcap_start(UNIC_LOG_WARNING, 0);
	rc = fake_virtio_create(&fk, c, true, NULL);
	dev = &fk.dev;
	cr_assert_eq(rc, 0, "attach: %d (%s); device error: %s; log: %s", rc, strerror(-rc), dev->err,
		     logcap_buf);
}

static void start_conf(const struct unic_port_conf *pc)
{
	int rc = fake_virtio_start(&fk, 256, pc);

	cr_assert_eq(rc, 0, "configure/setup/start: %d (%s); device error: %s; log: %s", rc, strerror(-rc),
		     dev->err, logcap_buf);
}

static void attach_and_start(void)
{
	attach(NULL);
	start_conf(NULL);
}

static void teardown(void)
{
	fake_virtio_destroy(&fk);
	logcap_stop();
}

static void assert_device_happy(void)
{
	cr_assert_eq(dev->nb_err, 0, "the device saw %" PRIu64 " driver error(s), the first: %s", dev->nb_err,
		     dev->err);
}

static uint64_t xstat(const char *name)
{
	uint64_t v = 0;
	int rc = unic_port_xstat_by_name(fk.port, name, &v);

	cr_assert_eq(rc, 0, "no xstat %s (%d)", name, rc);
	return v;
}

static int cmd_promisc(bool on)
{
	uint8_t b = on;

	return virtio_ctrl_cmd(&fk.vp->hw, VIRTIO_NET_CTRL_RX, VIRTIO_NET_CTRL_RX_PROMISC, &b, 1,
			       on ? "promiscuous mode on" : "promiscuous mode off");
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* ---- the primitive ------------------------------------------------------------- */

TestSuite(virtio_ctrl, .init = attach_and_start, .fini = teardown);

Test(virtio_ctrl, the_control_queue_is_negotiated_and_set_up_after_the_data_queues)
{
	cr_assert(dev->accepted & FV_BIT(FV_F_CTRL_VQ), "CTRL_VQ offered and not accepted: 0x%llx",
		  (unsigned long long)dev->accepted);
	cr_assert_eq(fake_virtio_ctrl_queue(dev), 2);
	cr_assert(dev->q[2].enable, "virtqueue 2 (the control queue) not enabled");
	cr_assert_eq(dev->q[2].msix, FV_NO_VECTOR, "the control queue is polled: no vector");
	assert_device_happy();
}

Test(virtio_ctrl, a_command_is_carried_out_and_acknowledged)
{
	cr_assert_eq(cmd_promisc(true), 0, "log: %s", logcap_buf);
	cr_assert(dev->filter.promisc);
	cr_assert_eq(cmd_promisc(false), 0, "log: %s", logcap_buf);
	cr_assert(!dev->filter.promisc, "the device is still promiscuous");
	cr_assert_eq(xstat("ctrl_commands"), dev->ctrl_cmds);
	cr_assert_geq(dev->ctrl_cmds, 2);
	assert_device_happy();
}

Test(virtio_ctrl, a_hundred_commands_in_a_row_each_get_their_answer)
{
	uint64_t before = dev->ctrl_cmds;

	for (unsigned i = 0; i < 100; i++)
		cr_assert_eq(cmd_promisc(i & 1), 0, "command %u: log: %s", i, logcap_buf);
	cr_assert_eq(dev->ctrl_cmds - before, 100);
	cr_assert_eq(dev->q[2].kicks_unasked, 0, "kicks the device had not asked for");
	assert_device_happy();
}

Test(virtio_ctrl, a_command_in_two_pieces_reaches_the_device_as_one)
{
	uint8_t uc[4 + 6] = { 1, 0, 0, 0, 0x02, 0, 0, 0, 0, 0x42 };
	uint8_t mc[4 + 12] = { 2, 0, 0, 0, 0x01, 0, 0x5e, 0, 0, 1, 0x33, 0x33, 0, 0, 0, 1 };
	struct virtio_ctrl_seg segs[2] = { { uc, sizeof(uc) }, { mc, sizeof(mc) } };

	cr_assert_eq(virtio_ctrl_cmdv(&fk.vp->hw, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, segs, 2,
				      "MAC table"), 0, "log: %s", logcap_buf);
	cr_assert_eq(dev->filter.nb_uc, 1);
	cr_assert_eq(dev->filter.nb_mc, 2);
	cr_assert_eq(memcmp(dev->filter.mc[1], mc + 10, 6), 0);
	assert_device_happy();
}

Test(virtio_ctrl, a_refused_command_is_eio_naming_the_command)
{
	dev->ctrl_mode = FV_CTRL_REFUSE;
	logcap_clear();
	cr_assert_eq(cmd_promisc(false), -EIO);
	cr_assert(logcap_has("promiscuous mode off"), "log: %s", logcap_buf);
	cr_assert(logcap_has("VIRTIO_NET_ERR"), "log: %s", logcap_buf);
	cr_assert_eq(xstat("ctrl_errors"), 1);
	/* A refusal is an answer: the queue goes on. */
	dev->ctrl_mode = FV_CTRL_ANSWER;
	cr_assert_eq(cmd_promisc(false), 0, "log: %s", logcap_buf);
}

Test(virtio_ctrl, a_device_that_never_answers_times_out_and_does_not_hang, .timeout = 10)
{
	uint64_t t0;

	dev->ctrl_mode = FV_CTRL_SILENT;
	logcap_clear();
	t0 = now_ms();
	cr_assert_eq(cmd_promisc(false), -ETIMEDOUT);
	cr_assert_lt(now_ms() - t0, 3000, "took %" PRIu64 " ms", now_ms() - t0);
	cr_assert(logcap_has("no answer"), "log: %s", logcap_buf);
	cr_assert_eq(xstat("ctrl_timeouts"), 1);
	/* Out of service (the chain may still be the device's) until a
	 * restart resets the device; then it works again. */
	dev->ctrl_mode = FV_CTRL_ANSWER;
	cr_assert_eq(cmd_promisc(false), -EIO);
	cr_assert(logcap_has("out of service"), "log: %s", logcap_buf);
	cr_assert_eq(unic_port_stop(fk.port), 0);
	cr_assert_eq(unic_port_start(fk.port), 0, "log: %s", logcap_buf);
	cr_assert_eq(cmd_promisc(false), 0, "log: %s", logcap_buf);
}

Test(virtio_ctrl, a_device_gone_is_enodev)
{
	fake_virtio_vanish(dev);
	cr_assert_eq(cmd_promisc(false), -ENODEV);
}

Test(virtio_ctrl, a_stopped_port_sends_no_command)
{
	cr_assert_eq(unic_port_stop(fk.port), 0);
	logcap_clear();
	cr_assert_eq(cmd_promisc(false), -EIO);
	cr_assert(logcap_has("not started"), "log: %s", logcap_buf);
}

static void attach_no_ctrl(void)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB & ~(FV_BIT(FV_F_CTRL_VQ) |
		FV_BIT(FV_F_CTRL_RX) | FV_BIT(FV_F_CTRL_VLAN) | FV_BIT(FV_F_CTRL_RX_EXTRA) |
		FV_BIT(FV_F_CTRL_MAC_ADDR) | FV_BIT(FV_F_GUEST_ANNOUNCE)), .nb_queues = 2 };

	attach(&c);
	start_conf(NULL);
}

Test(virtio_ctrl, without_ctrl_vq_a_command_is_enotsup, .init = attach_no_ctrl)
{
	cr_assert_eq(cmd_promisc(false), -ENOTSUP);
	cr_assert(logcap_has("VIRTIO_NET_F_CTRL_VQ"), "log: %s", logcap_buf);
	assert_device_happy();
}

/* ---- the malicious device: the control queue's used ring ------------------------- */

TestSuite(virtio_ctrl_malicious, .init = attach_and_start, .fini = teardown);

static void bad_answer(enum fv_ctrl_mode mode, uint32_t bad, const char *expect)
{
	dev->ctrl_mode = mode;
	dev->ctrl_bad = bad;
	logcap_clear();
	cr_assert_eq(cmd_promisc(false), -EIO, "a bad answer taken");
	cr_assert(logcap_has(expect), "log: %s", logcap_buf);
	cr_assert_eq(xstat("ctrl_bad_used"), 1);
	/* Never trusted again until the device is reset by a restart. */
	dev->ctrl_mode = FV_CTRL_ANSWER;
	cr_assert_eq(cmd_promisc(false), -EIO);
	cr_assert_eq(unic_port_stop(fk.port), 0);
	cr_assert_eq(unic_port_start(fk.port), 0, "log: %s", logcap_buf);
	cr_assert_eq(cmd_promisc(false), 0, "log: %s", logcap_buf);
}

Test(virtio_ctrl_malicious, a_used_id_that_is_not_the_command_is_refused_and_counted)
{
	bad_answer(FV_CTRL_BAD_ID, 7, "used id 7");
}

Test(virtio_ctrl_malicious, an_out_of_range_used_id_is_refused_and_counted)
{
	bad_answer(FV_CTRL_BAD_ID, 0xffffffffu, "used id 4294967295");
}

Test(virtio_ctrl_malicious, a_used_length_past_the_ack_is_refused_and_counted)
{
	bad_answer(FV_CTRL_BAD_LEN, 4096, "length 4096");
}

Test(virtio_ctrl_malicious, a_used_index_that_jumps_is_refused_and_counted)
{
	bad_answer(FV_CTRL_JUMP, 5, "moved the used index by 5");
}

Test(virtio_ctrl_malicious, a_used_index_that_jumps_a_whole_ring_is_refused_and_counted)
{
	bad_answer(FV_CTRL_JUMP, 0x8001, "moved the used index by 32769");
}
