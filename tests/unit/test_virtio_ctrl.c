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
#include <pthread.h>
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

/* ---- the receive filters through the port API ------------------------------------ */

static const uint8_t dev_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 }; /* the fake's default */
static const uint8_t other_uc[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x42 };
static const uint8_t mc1[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
static const uint8_t mc2[6] = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 };

/* Would the device take a frame to @p dst (tagged with @p vlan if >= 0)? */
static bool takes(const uint8_t *dst, int vlan)
{
	uint8_t f[64] = { 0 };

	memcpy(f, dst, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x09", 6);
	if (vlan >= 0) {
		f[12] = 0x81, f[13] = 0x00, f[14] = (uint8_t)(vlan >> 8), f[15] = (uint8_t)vlan;
		f[16] = 0x88, f[17] = 0xb5;
	} else {
		f[12] = 0x88, f[13] = 0xb5;
	}
	return fake_virtio_filter_accepts(dev, f, sizeof(f));
}

static bool mac_in(const uint8_t (*t)[6], unsigned n, const uint8_t *mac)
{
	for (unsigned i = 0; i < n; i++)
		if (memcmp(t[i], mac, 6) == 0)
			return true;
	return false;
}

static bool vlan_on(uint16_t id)
{
	return (dev->filter.vlans[id / 8] & (1u << (id % 8))) != 0;
}

static const struct unic_port_conf vlan_conf = { .sz = sizeof(vlan_conf), .nb_rxq = 1, .nb_txq = 1,
						  .mtu = 1500, .rx_mode = UNIC_RX_MODE_POLL,
						  .rx_offloads = UNIC_RX_OFFLOAD_VLAN_FILTER };

static void attach_and_start_vlan(void)
{
	attach(NULL);
	start_conf(&vlan_conf);
}

TestSuite(virtio_filter, .init = attach_and_start, .fini = teardown);

Test(virtio_filter, a_started_port_is_not_promiscuous_until_asked_as_with_dpdk)
{
	/* QEMU resets to promiscuous; the driver applies the port's mode. */
	cr_assert(!dev->filter.promisc, "the device was left promiscuous");
	cr_assert(!dev->filter.allmulti);
	cr_assert_eq(unic_port_promisc_get(fk.port), 0);
	cr_assert(takes(dev_mac, -1), "a frame to the port's MAC is filtered out");
	cr_assert(!takes(other_uc, -1), "a frame to a foreign MAC is taken");
	cr_assert(takes((const uint8_t *)"\xff\xff\xff\xff\xff\xff", -1), "broadcast filtered out");
	assert_device_happy();
}

Test(virtio_filter, promiscuous_mode_on_and_off_reaches_the_device)
{
	cr_assert_eq(unic_port_promisc_set(fk.port, true), 0, "log: %s", logcap_buf);
	cr_assert(dev->filter.promisc);
	cr_assert(takes(other_uc, -1));
	cr_assert_eq(unic_port_promisc_get(fk.port), 1);
	cr_assert_eq(unic_port_promisc_set(fk.port, false), 0, "log: %s", logcap_buf);
	cr_assert(!dev->filter.promisc);
	cr_assert(!takes(other_uc, -1));
	assert_device_happy();
}

Test(virtio_filter, all_multicast_takes_every_group_address_and_no_foreign_unicast)
{
	cr_assert(!takes(mc1, -1));
	cr_assert_eq(unic_port_allmulti_set(fk.port, true), 0, "log: %s", logcap_buf);
	cr_assert(dev->filter.allmulti);
	cr_assert(takes(mc1, -1) && takes(mc2, -1));
	cr_assert(!takes(other_uc, -1));
	cr_assert_eq(unic_port_allmulti_set(fk.port, false), 0, "log: %s", logcap_buf);
	cr_assert(!takes(mc1, -1));
	assert_device_happy();
}

Test(virtio_filter, a_refused_mode_change_is_eio_and_the_port_keeps_its_mode)
{
	dev->ctrl_mode = FV_CTRL_REFUSE;
	logcap_clear();
	cr_assert_eq(unic_port_promisc_set(fk.port, true), -EIO);
	cr_assert(logcap_has("promiscuous mode on"), "log: %s", logcap_buf);
	cr_assert_eq(unic_port_promisc_get(fk.port), 0, "the core counts a refused mode as set");
	/* Nor is it applied at the next start. */
	dev->ctrl_mode = FV_CTRL_ANSWER;
	cr_assert_eq(unic_port_stop(fk.port), 0);
	cr_assert_eq(unic_port_start(fk.port), 0, "log: %s", logcap_buf);
	cr_assert(!dev->filter.promisc);
}

Test(virtio_filter, mac_set_changes_the_address_the_device_takes)
{
	cr_assert_eq(unic_port_mac_set(fk.port, other_uc), 0, "log: %s", logcap_buf);
	cr_assert_eq(memcmp(dev->mac, other_uc, 6), 0, "the device's MAC did not change");
	cr_assert(takes(other_uc, -1));
	cr_assert(!takes(dev_mac, -1), "the old address is still taken");
	assert_device_happy();
}

Test(virtio_filter, mac_add_and_remove_send_the_whole_table_with_the_multicast_list)
{
	const uint8_t mcs[2][6] = { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 }, { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } };
	const uint8_t uc2[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x43 };

	cr_assert_eq(unic_port_mc_addr_list_set(fk.port, mcs, 2), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_mac_add(fk.port, other_uc), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_mac_add(fk.port, uc2), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_mac_add(fk.port, uc2), 0, "a second add of the same address");
	cr_assert_eq(dev->filter.nb_uc, 2);
	cr_assert_eq(dev->filter.nb_mc, 2, "the multicast list was lost by mac_add");
	cr_assert(takes(other_uc, -1) && takes(uc2, -1) && takes(mc1, -1) && takes(mc2, -1));
	cr_assert_eq(unic_port_mac_remove(fk.port, other_uc), 0, "log: %s", logcap_buf);
	cr_assert(!takes(other_uc, -1));
	cr_assert(takes(uc2, -1) && takes(mc2, -1));
	cr_assert_eq(unic_port_mac_remove(fk.port, other_uc), -ENOENT);
	assert_device_happy();
}

Test(virtio_filter, a_multicast_address_is_taken_only_while_in_the_list)
{
	const uint8_t one[1][6] = { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } };

	cr_assert(!takes(mc1, -1));
	cr_assert_eq(unic_port_mc_addr_list_set(fk.port, one, 1), 0, "log: %s", logcap_buf);
	cr_assert(takes(mc1, -1));
	cr_assert(!takes(mc2, -1));
	cr_assert_eq(unic_port_mc_addr_list_set(fk.port, NULL, 0), 0, "log: %s", logcap_buf);
	cr_assert(!takes(mc1, -1));
	assert_device_happy();
}

Test(virtio_filter, the_largest_multicast_list_fits_one_command)
{
	static uint8_t many[UNIC_PORT_MC_ADDR_MAX][6];

	for (unsigned i = 0; i < UNIC_PORT_MC_ADDR_MAX; i++) {
		memcpy(many[i], mc1, 6);
		many[i][5] = (uint8_t)i;
		many[i][4] = (uint8_t)(i >> 8);
	}
	cr_assert_eq(unic_port_mc_addr_list_set(fk.port, (const uint8_t (*)[6])many, UNIC_PORT_MC_ADDR_MAX), 0,
		     "log: %s", logcap_buf);
	cr_assert(dev->filter.mc_overflow, "QEMU takes 64 entries; more is its overflow (all multicast)");
	assert_device_happy();
}

Test(virtio_filter, without_the_vlan_filter_offload_ctrl_vlan_is_not_negotiated_and_every_vlan_passes)
{
	cr_assert(!(dev->accepted & FV_BIT(FV_F_CTRL_VLAN)));
	cr_assert(takes(dev_mac, 100), "a tagged frame is filtered without the VLAN filter offload");
	/* Kept for a start with the offload on. */
	cr_assert_eq(unic_port_vlan_filter_set(fk.port, 100, true), 0, "log: %s", logcap_buf);
	assert_device_happy();
}

Test(virtio_filter, with_the_vlan_filter_offload_a_vlan_is_taken_only_once_added, .init = attach_and_start_vlan)
{
	cr_assert(dev->accepted & FV_BIT(FV_F_CTRL_VLAN));
	cr_assert(!takes(dev_mac, 100));
	cr_assert_eq(unic_port_vlan_filter_set(fk.port, 100, true), 0, "log: %s", logcap_buf);
	cr_assert(vlan_on(100));
	cr_assert(takes(dev_mac, 100));
	cr_assert(!takes(dev_mac, 101));
	cr_assert_eq(unic_port_vlan_filter_set(fk.port, 100, false), 0, "log: %s", logcap_buf);
	cr_assert(!takes(dev_mac, 100));
	assert_device_happy();
}

/* Every filter setting, then the checks that the device holds them. */
static void set_everything(void)
{
	const uint8_t mcs[1][6] = { { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } };
	const uint8_t mine[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x77 };

	cr_assert_eq(unic_port_promisc_set(fk.port, true), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_allmulti_set(fk.port, true), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_mac_set(fk.port, mine), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_mac_add(fk.port, other_uc), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_mc_addr_list_set(fk.port, mcs, 1), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_vlan_filter_set(fk.port, 7, true), 0, "log: %s", logcap_buf);
	cr_assert_eq(unic_port_vlan_filter_set(fk.port, 4095, true), 0, "log: %s", logcap_buf);
}

static void assert_everything(const char *when)
{
	const uint8_t mine[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x77 };

	cr_assert(dev->filter.promisc, "%s: promiscuous mode lost", when);
	cr_assert(dev->filter.allmulti, "%s: all-multicast lost", when);
	cr_assert_eq(memcmp(dev->mac, mine, 6), 0, "%s: the MAC address lost", when);
	cr_assert_eq(dev->filter.nb_uc, 1, "%s: unicast table of %u", when, dev->filter.nb_uc);
	cr_assert(mac_in((const uint8_t (*)[6])dev->filter.uc, dev->filter.nb_uc, other_uc), "%s", when);
	cr_assert_eq(dev->filter.nb_mc, 1, "%s: multicast table of %u", when, dev->filter.nb_mc);
	cr_assert(mac_in((const uint8_t (*)[6])dev->filter.mc, dev->filter.nb_mc, mc2), "%s", when);
	cr_assert(vlan_on(7) && vlan_on(4095) && !vlan_on(8), "%s: VLAN filter lost", when);
	assert_device_happy();
}

Test(virtio_filter, every_setting_is_restored_after_stop_and_start, .init = attach_and_start_vlan)
{
	set_everything();
	assert_everything("set");
	cr_assert_eq(unic_port_stop(fk.port), 0);
	cr_assert(dev->filter.promisc && dev->filter.nb_uc == 0, "the fake did not reset its filter");
	cr_assert_eq(unic_port_start(fk.port), 0, "log: %s", logcap_buf);
	assert_everything("after stop and start");
}

Test(virtio_filter, every_setting_is_restored_after_a_reconfigure, .init = attach_and_start_vlan)
{
	set_everything();
	cr_assert_eq(unic_port_stop(fk.port), 0);
	cr_assert_eq(fake_virtio_start(&fk, 128, &vlan_conf), 0, "log: %s", logcap_buf);
	assert_everything("after a reconfigure");
}

Test(virtio_filter, settings_made_while_stopped_are_applied_at_start, .init = attach_and_start_vlan)
{
	uint64_t before;

	cr_assert_eq(unic_port_stop(fk.port), 0);
	before = dev->ctrl_cmds + dev->ctrl_refused;
	set_everything();
	cr_assert_eq(dev->ctrl_cmds + dev->ctrl_refused, before, "a command reached a stopped device");
	cr_assert_eq(unic_port_start(fk.port), 0, "log: %s", logcap_buf);
	assert_everything("set while stopped");
}

Test(virtio_filter, a_device_that_refuses_the_filters_at_start_fails_the_start_naming_the_command)
{
	cr_assert_eq(unic_port_stop(fk.port), 0);
	dev->ctrl_mode = FV_CTRL_REFUSE;
	logcap_clear();
	cr_assert_eq(unic_port_start(fk.port), -EIO);
	cr_assert(logcap_has("promiscuous mode off"), "log: %s", logcap_buf);
}

static void attach_rx_only(void)
{
	struct fake_virtio_config c = { .features = FV_FEATURES_QEMU_HUB & ~FV_BIT(FV_F_CTRL_MAC_ADDR) };

	attach(&c);
	start_conf(NULL);
}

Test(virtio_filter, without_ctrl_mac_addr_mac_set_is_enotsup_saying_why, .init = attach_rx_only)
{
	logcap_clear();
	cr_assert_eq(unic_port_mac_set(fk.port, other_uc), -ENOTSUP);
	cr_assert(logcap_has("VIRTIO_NET_F_CTRL_MAC_ADDR"), "log: %s", logcap_buf);
	cr_assert(takes(dev_mac, -1));
	assert_device_happy();
}

Test(virtio_filter, without_ctrl_rx_promiscuous_on_is_what_the_device_does_and_off_is_enotsup,
     .init = attach_no_ctrl)
{
	cr_assert_eq(unic_port_promisc_set(fk.port, true), 0, "log: %s", logcap_buf);
	logcap_clear();
	cr_assert_eq(unic_port_promisc_set(fk.port, false), -ENOTSUP);
	cr_assert(logcap_has("VIRTIO_NET_F_CTRL_RX"), "log: %s", logcap_buf);
	cr_assert_eq(unic_port_mac_add(fk.port, other_uc), -ENOTSUP);
	cr_assert_eq(unic_port_vlan_filter_set(fk.port, 1, true), -ENOTSUP);
	cr_assert(dev->filter.promisc, "QEMU's default stays");
	assert_device_happy();
}

/* ---- reporting and threads --------------------------------------------------------- */

Test(virtio_filter, the_negotiated_control_features_show_in_the_port_info)
{
	struct unic_port_info info;
	unsigned long long f = 0;

	memset(&info, 0, sizeof(info));
	cr_assert_eq(unic_port_info_get(fk.port, &info), 0);
	cr_assert_eq(sscanf(info.fw_version, "virtio1 f=%llx", &f), 1, "fw_version %s", info.fw_version);
	cr_assert_eq(f, (unsigned long long)dev->accepted, "fw_version %s, the device accepted 0x%llx",
		     info.fw_version, (unsigned long long)dev->accepted);
	cr_assert_eq(f & (FV_BIT(FV_F_CTRL_VQ) | FV_BIT(FV_F_CTRL_RX) | FV_BIT(FV_F_CTRL_MAC_ADDR)),
		     FV_BIT(FV_F_CTRL_VQ) | FV_BIT(FV_F_CTRL_RX) | FV_BIT(FV_F_CTRL_MAC_ADDR), "%s", info.fw_version);
	cr_assert(info.rx_offload_capa & UNIC_RX_OFFLOAD_VLAN_FILTER, "the VLAN filter offload is not offered");
	cr_log_info("QEMU 7.2's hub offer gives %s", info.fw_version);
}

struct cmd_thread {
	unsigned n;
	int rc;
	pthread_barrier_t *go;
};

static void *cmd_thread(void *arg)
{
	struct cmd_thread *t = arg;

	pthread_barrier_wait(t->go);
	for (unsigned i = 0; i < t->n && t->rc == 0; i++)
		t->rc = cmd_promisc(i & 1);
	return NULL;
}

Test(virtio_ctrl, commands_from_several_threads_at_once_each_get_their_own_answer)
{
	pthread_barrier_t go;
	struct cmd_thread t[4] = { { .n = 3000, .go = &go }, { .n = 3000, .go = &go }, { .n = 3000, .go = &go },
				   { .n = 3000, .go = &go } };
	pthread_t th[4];
	uint64_t before = dev->ctrl_cmds;

	pthread_barrier_init(&go, NULL, 4);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, cmd_thread, &t[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		cr_assert_eq(t[i].rc, 0, "thread %d: %d; log: %s", i, t[i].rc, logcap_buf);
	}
	pthread_barrier_destroy(&go);
	cr_assert_eq(dev->ctrl_cmds - before, 12000);
	cr_assert_eq(xstat("ctrl_bad_used"), 0);
	assert_device_happy();
}
