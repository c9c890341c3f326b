/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-testpmd's remaining show, set, port and queue commands on
 * unic-testpmd (apps/testpmd/dpdkq.c), in this process over the ring pair
 * of testpmd_fixture.h: queue information and ring sizes, descriptor
 * commands (refused by the ring driver), address lists, xstats clear,
 * load, the forwarding core and port lists, and the refusals with their
 * reasons.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <unic/log.h>

#include "testpmd.h"
#include "testpmd_fixture.h"

Test(testpmd_queues, queue_info_shows_the_ring_and_ring_size_takes_effect_at_the_next_start, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	const char *o;

	printed();
	cr_assert_eq(execf("show rxq info %u 0", near_id), 0);
	o = printed();
	HAS(o, "RX queue 0 ");
	HAS(o, "Mempool: ");
	HAS(o, "RX queue state: started");
	HAS(o, "Number of RXDs: ");
	cr_assert_eq(execf("show port txq info %u 0", near_id), 0);
	HAS(printed(), "TX queue state: started");
	cr_assert_eq(execf("show rxq info %u 1", near_id), -EINVAL);
	HAS(printed(), "rx queue 1 does not exist: the port has 1 (0..0)");
	/* Ring size: port stopped, in the driver's range, then applied. */
	cr_assert_eq(execf("port config %u rxq 0 ring_size 256", near_id), -EBUSY);
	HAS(printed(), "run 'port stop");
	cr_assert_eq(execf("port stop %u", near_id), 0);
	cr_assert_eq(execf("port config %u rxq 0 ring_size 0", near_id), -EINVAL);
	HAS(printed(), "the ring driver takes");
	cr_assert_eq(execf("port config %u rxq 0 ring_size 256", near_id), 0);
	cr_assert_eq(execf("port config %u txq 0 ring_size 128", near_id), 0);
	printed();
	cr_assert_eq(execf("port start %u", near_id), 0);
	cr_assert_eq(execf("show rxq info %u 0", near_id), 0);
	HAS(printed(), "Number of RXDs: 256\n");
	cr_assert_eq(execf("show txq info %u 0", near_id), 0);
	HAS(printed(), "Number of TXDs: 128\n");
	/* One queue's start and stop: refused with what to do. */
	cr_assert_eq(execf("port %u rxq 0 stop", near_id), -ENOTSUP);
	HAS(printed(), "'port stop N' and 'port start N'");
	cr_assert_eq(execf("port %u rxq 0 deferred_start off", near_id), 0);
	cr_assert_eq(execf("port %u rxq 0 deferred_start on", near_id), -ENOTSUP);
	cr_assert_eq(execf("port %u txq 0 setup", near_id), -EBUSY);
}

Test(testpmd_queues, descriptor_commands_name_the_driver_that_lacks_them, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	printed();
	cr_assert_eq(execf("show port %u rxq 0 desc 1 status", near_id), -ENOTSUP);
	HAS(printed(), "not supported by the ring driver (-ENOTSUP)");
	cr_assert_eq(execf("show port %u rxq 0 desc used count", near_id), -ENOTSUP);
	cr_assert_eq(execf("read txd %u 0 1", near_id), -ENOTSUP);
	HAS(printed(), "read txd: not supported by the ring driver");
	cr_assert_eq(execf("read rxd %u 3 1", near_id), -EINVAL);
	HAS(printed(), "rx queue 3 does not exist");
	cr_assert_eq(execf("port stop %u", near_id), 0);
	printed();
	cr_assert_eq(execf("read rxd %u 0 1", near_id), -EINVAL);
	HAS(printed(), "is not started");
}

Test(testpmd_queues, macs_and_mcast_macs_list_what_was_added, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	const char *o;

	printed();
	cr_assert_eq(execf("show port %u macs", near_id), 0);
	HAS(printed(), "Number of MAC address added: 1\n");
	if (execf("mac_addr add %u 02:00:00:00:00:07", near_id) == 0) {
		printed();
		cr_assert_eq(execf("show port %u macs", near_id), 0);
		o = printed();
		HAS(o, "Number of MAC address added: 2\n");
		HAS(o, "  02:00:00:00:00:07\n");
		cr_assert_eq(execf("mac_addr remove %u 02:00:00:00:00:07", near_id), 0);
		printed();
		cr_assert_eq(execf("show port %u macs", near_id), 0);
		HASNT(printed(), "02:00:00:00:00:07");
	}
	cr_assert_eq(execf("show port %u mcast_macs", near_id), 0);
	HAS(printed(), "Number of Multicast MAC address added: 0\n");
}

Test(testpmd_queues, clear_xstats_zeroes_them_and_hide_zero_leaves_the_zeros_out, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[8];
	const char *o;

	cr_assert_eq(exec("set fwd rxonly"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(8);
	for (int i = 0; i < 500 && app->ports[near_id].port; i++) {
		uint64_t v = 0;

		if (unic_port_xstat_by_name(app->ports[near_id].port, "rx_good_packets", &v) == 0 && v >= 8)
			break;
		usleep(10000);
	}
	cr_assert_eq(exec("stop"), 0);
	(void)p;
	printed();
	cr_assert_eq(execf("show port xstats %u", near_id), 0);
	HAS(printed(), "rx_good_packets: 8\n");
	cr_assert_eq(exec("set xstats-hide-zero on"), 0);
	cr_assert_eq(execf("show port xstats %u", near_id), 0);
	o = printed();
	HAS(o, "rx_good_packets: 8\n");
	HASNT(o, ": 0\n");
	cr_assert_eq(execf("clear port xstats %u", near_id), 0);
	HAS(printed(), "NIC extended statistics for port");
	cr_assert_eq(execf("show port xstats %u", near_id), 0);
	HASNT(printed(), "rx_good_packets");
	cr_assert_eq(exec("set xstats-hide-zero off"), 0);
	cr_assert_eq(execf("show port xstats %u", near_id), 0);
	HAS(printed(), "rx_good_packets: 0\n");
}

Test(testpmd_queues, load_runs_a_file_and_stops_at_the_first_failure, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	char path[] = "/tmp/tpcmds2-load-XXXXXX", self[64];
	int fd = mkstemp(path);
	FILE *f;
	const char *o;

	cr_assert_geq(fd, 0);
	f = fdopen(fd, "w");
	fprintf(f, "# a comment\nset burst 16\n\nset nbcore 9999\nset burst 8\n");
	fclose(f);
	printed();
	cr_assert_eq(execf("load %s", path), -EINVAL);
	o = printed();
	HAS(o, ":4: the command failed");
	cr_assert_eq(app->burst, 16, "line 2 ran, line 5 did not");
	/* A file that loads itself is stopped, not followed forever. */
	f = fopen(path, "w");
	snprintf(self, sizeof(self), "load %s\n", path);
	fprintf(f, "%s", self);
	fclose(f);
	cr_assert_eq(execf("load %s", path), -ELOOP);
	HAS(printed(), "more than 8 deep");
	unlink(path);
	cr_assert_eq(execf("load %s", path), -ENOENT);
	HAS(printed(), "cannot open it");
}

Test(testpmd_queues, core_and_port_lists_check_their_members, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	printed();
	/* No -l: no forwarding cores to choose from. */
	cr_assert_eq(exec("set corelist 1"), -EINVAL);
	HAS(printed(), "core 1 is not a forwarding core");
	cr_assert_eq(exec("set coremask zz"), -EINVAL);
	HAS(printed(), "not a non-zero hex mask");
	cr_assert_eq(execf("set portlist %u", near_id), 0);
	cr_assert_eq(app->portmask, 1ull << near_id);
	cr_assert_eq(exec("set portlist 63"), -ENODEV);
	HAS(printed(), "port 63 does not exist");
	cr_assert_eq(exec("set portlist 1,"), -EINVAL);
	cr_assert_eq(exec("set nbport 1"), 0);
	cr_assert_eq(app->nb_fwd_ports, 1);
	cr_assert_eq(exec("set nbport 2"), -EINVAL);
	cr_assert_eq(exec("set default"), 0);
	cr_assert_eq(app->portmask, 0);
	cr_assert_eq(app->nb_fwd_ports, 0);
	cr_assert_eq(exec("set portmask 0x0"), -EINVAL);
	/* Forwarding still works on the list. */
	cr_assert_eq(execf("set portmask %llx", 1ull << near_id), 0);
	cr_assert_eq(exec("start"), 0);
	cr_assert_eq(exec("set portlist 0"), -EBUSY);
	cr_assert_eq(exec("stop"), 0);
}

Test(testpmd_queues, port_settings_check_ranges_and_apply_at_start, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	cr_assert_eq(exec("port config all burst 300"), -EINVAL);
	cr_assert_eq(exec("port config all burst 16"), 0);
	cr_assert_eq(app->burst, 16);
	cr_assert_eq(exec("port config all max-pkt-len 1518"), -EBUSY);
	cr_assert_eq(execf("port stop %u", near_id), 0);
	printed();
	cr_assert_eq(exec("port config all max-pkt-len 10"), -EINVAL);
	HAS(printed(), "this port takes");
	cr_assert_eq(exec("port config all max-pkt-len 1518"), 0);
	cr_assert_eq(app->ports[near_id].conf.mtu, 1500);
	cr_assert_eq(exec("port config all speed auto duplex auto"), 0);
	cr_assert_eq(exec("port config all drop-en on"), 0);
	cr_assert_eq(execf("set all queues drop %u on", near_id), 0);
	cr_assert_eq(exec("set log global 8"), 0);
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_PORT), UNIC_LOG_DEBUG);
	cr_assert_eq(exec("set log unic.port 4"), 0);
	cr_assert_eq(unic_log_get_level(UNIC_LOGC_PORT), UNIC_LOG_ERR);
	cr_assert_eq(exec("set log bogus 4"), -EINVAL);
	cr_assert_eq(exec("set log global 9"), -EINVAL);
	unic_log_set_level(-1, UNIC_LOG_ERR);
	cr_assert_eq(execf("port %u txq 0 setup", near_id), 0);
	cr_assert_eq(execf("port start %u", near_id), 0);
}

Test(testpmd_queues, flush_rx_drains_what_arrived_before_start, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	cr_assert_eq(exec("set fwd rxonly"), 0);
	far_send(8);
	usleep(20000);
	cr_assert_eq(exec("set flush_rx on"), 0);
	cr_assert_eq(exec("start"), 0);
	usleep(50000);
	printed();
	cr_assert_eq(exec("stop"), 0);
	HAS(printed(), "RX-packets: 0 ");
}

Test(testpmd_queues, cleanup_reclaims_sent_buffers_with_forwarding_stopped, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	printed();
	cr_assert_eq(execf("port cleanup %u txq 0 64", near_id), 0);
	HAS(printed(), "Cleanup txq mbufs for port");
	cr_assert_eq(exec("start"), 0);
	cr_assert_eq(execf("port cleanup %u txq 0 64", near_id), -EBUSY);
	cr_assert_eq(exec("stop"), 0);
	cr_assert_eq(execf("port cleanup %u txq 1 64", near_id), -EINVAL);
}

/* Each refused command fails with -ENOTSUP and says why (a word of it). */
Test(testpmd_queues, commands_unic_lacks_are_refused_with_the_reason, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	static const struct {
		const char *fmt;
		const char *why;
	} r[] = {
		{ "show port %u ptypes", "packet types" },
		{ "set port %u ptypes_mask 0x1", "packet types" },
		{ "show port %u tx_metadata", "metadata" },
		{ "port config %u tx_metadata 1", "metadata" },
		{ "port config %u dynf foo set", "dynamic flags" },
		{ "show port %u fec capabilities", "forward error correction" },
		{ "show port %u fec_mode", "forward error correction" },
		{ "set port %u fec_mode auto", "forward error correction" },
		{ "show port %u flow transfer proxy", "no flow rules" },
		{ "set port %u queue 0 rate 100", "rate" },
		{ "set tx loopback %u on", "loops sent packets" },
		{ "set all queues drop %u off", "always drop" },
		{ "port config %u drop-en off", "always drop" },
		{ "set port %u uta all on", "mac_addr add" },
		{ "set port %u rxq 0 avail_thresh 50", "no driver op" },
		{ "vlan set stripq on %u,0", "per port" },
		{ "vlan set qinq_strip on %u", "QinQ" },
		{ "vlan set extend on %u", "QinQ" },
		{ "vlan set inner tpid 0x88a8 %u", "0x8100" },
		{ "tx_vlan set pvid %u 1 on", "tx_vlan set" },
		{ "port %u rxq 0 rx_offload vlan_strip on", "per port" },
		{ "port %u txq 0 tx_offload udp_cksum on", "per port" },
		{ "port config %u max-lro-pkt-size 9000", "LRO" },
		{ "port config %u rxfreet 32", "thresholds" },
		{ "port config %u speed 10 duplex half", "speed auto duplex auto" },
		{ "port config %u pctype mapping reset", "i40e" },
		{ "set rxpkts 64,128 # %u", "buffer split" },
		{ "set rxoffs 0,64 # %u", "buffer split" },
		{ "set rxhdrs ipv4 # %u", "buffer split" },
		{ "set txtimes 1,1 # %u", "timestamp" },
		{ "set txsplit on # %u", "txpkts" },
		{ "set stat_qmap rx %u 0 1", "own counter" },
		{ "set port setup on event # %u", "port start" },
	};

	for (unsigned i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		const char *o;

		printed();
		cr_assert_eq(execf(r[i].fmt, near_id), -ENOTSUP, "%s", r[i].fmt);
		o = printed();
		HAS(o, r[i].why);
		/* DPDK scripts' judges read a refusal's last words (tests/compat). */
		HAS(o, "(-ENOTSUP)\n");
	}
	/* What unic does anyway is accepted. */
	cr_assert_eq(exec("set txsplit off"), 0);
	cr_assert_eq(execf("set stat_qmap rx %u 0 0", near_id), 0);
	cr_assert_eq(execf("vlan set qinq_strip off %u", near_id), 0);
	cr_assert_eq(exec("set port setup on iterator"), 0);
}

Test(testpmd_queues, rx_vlan_all_reaches_the_driver_and_device_detach_removes_the_port, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	uint16_t ids[TP_MAX_PORTS];

	printed();
	/* Ring ports have no VLAN filter: the first id is refused. */
	cr_assert_eq(execf("rx_vlan add all %u", near_id), -ENOTSUP);
	HAS(printed(), "rx_vlan add all: not supported by the ring driver");
	cr_assert_eq(exec("device detach nosuch"), -ENODEV);
	HAS(printed(), "no port is on device 'nosuch'");
	cr_assert_eq(exec("device detach ring40"), 0);
	HAS(printed(), "Device ring40 is detached (1 port)");
	cr_assert_eq(tp_port_ids(app, ids, TP_MAX_PORTS), 0);
}

Test(testpmd_queues, show_config_and_dpdk_word_orders_answer, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	const char *o;
	char want[64];

	printed();
	cr_assert_eq(execf("port config %u rxq 0 ring_size 256", near_id), -EBUSY);
	cr_assert_eq(execf("port stop %u", near_id), 0);
	cr_assert_eq(execf("port config %u rxq 0 ring_size 256", near_id), 0);
	/* More queues than the device has: refused as a capability, not a typo. */
	printed();
	cr_assert_eq(execf("port config %u rxq 999", near_id), -ENOTSUP);
	HAS(printed(), "rxq 999: the ring device has ");
	cr_assert_eq(execf("port config %u txq 0", near_id), -EINVAL);
	HAS(printed(), "a port needs at least one queue");
	printed();
	cr_assert_eq(exec("show config rxtx"), 0);
	o = printed();
	snprintf(want, sizeof(want), "  port %u: RX queue number: 1 Tx queue number: 1\n", near_id);
	HAS(o, want);
	HAS(o, "RX desc=1024 (256 at the next start)");
	HAS(o, "io packet forwarding packets/burst=32");
	cr_assert_eq(execf("port start %u", near_id), 0);
	printed();
	cr_assert_eq(exec("show config rxtx"), 0);
	o = printed();
	HAS(o, "RX desc=256\n");
	HASNT(o, "at the next start");
	cr_assert_eq(exec("set txpkts 64,128"), 0);
	printed();
	cr_assert_eq(exec("show config txpkts"), 0);
	o = printed();
	HAS(o, "Number of segments: 2\nSegment sizes: 64 128\n");
	cr_assert_eq(exec("show config cores"), 0);
	HAS(printed(), "List of forwarding cores:");
	cr_assert_eq(exec("show config rxpkts"), 0);
	HAS(printed(), "Rx buffer split: none");
	cr_assert_eq(execf("show port cap %u", near_id), 0);
	HAS(printed(), "Rx offloads capabilities:");
	cr_assert_eq(execf("show port %u link_capa", near_id), 0);
	HAS(printed(), "  Speeds: up to 10 Gbps (the driver reports its fastest only)");
	/* DPDK's word order for the EEPROMs: the ring driver has neither. */
	cr_assert_eq(execf("show port %u eeprom", near_id), -ENOTSUP);
	HAS(printed(), "EEPROM dump: not supported by the ring driver");
	cr_assert_eq(execf("show port %u module_eeprom", near_id), -ENOTSUP);
	HAS(printed(), "module EEPROM (a plug-in transceiver's): not supported by the ring driver");
	cr_assert_eq(exec("show port 63 module_eeprom"), -ENODEV);
}

/*
 * A refusal with a reason (dpdkq.c's) and one without (an op the driver
 * lacks) are one helper's wording: the reason comes after the driver and
 * before the code, and the code is the last word (tests/compat's judge
 * reads it).
 */
Test(testpmd_queues, refusals_with_and_without_a_reason_read_alike_and_end_with_the_code, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	char want[256];
	const char *o;

	printed();
	cr_assert_eq(execf("port %u rxq 0 stop", near_id), -ENOTSUP);
	o = printed();
	snprintf(want, sizeof(want), "port %u: queue stop: not supported by the ring driver: ", near_id);
	cr_assert(strncmp(o, want, strlen(want)) == 0, "'%s' does not start with '%s'", o, want);
	cr_assert(strlen(o) > 12 && strcmp(o + strlen(o) - 12, " (-ENOTSUP)\n") == 0, "'%s': not the last words", o);
	cr_assert_eq(execf("port config %u coalesce rx-usecs 5", near_id), -ENOTSUP);
	snprintf(want, sizeof(want), "port %u: coalesce: not supported by the ring driver (-ENOTSUP)\n", near_id);
	cr_assert_str_eq(printed(), want);
}
