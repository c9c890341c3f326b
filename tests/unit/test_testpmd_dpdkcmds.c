/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-testpmd's commands on unic-testpmd, in this process over the ring
 * pair of testpmd_fixture.h: RSS and offload commands, the show/dump
 * family, set verbose, record-burst-stats, the multicast list, flow
 * control, tunnels, and the icmpecho and 5tswap engines.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "testpmd.h"
#include "refusing_port.h"
#include "testpmd_fixture.h"

Test(testpmd_dpdkcmds, rss_commands_on_a_ring_port_are_refused_naming_the_missing_rss, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	char key[81];

	printed();
	cr_assert_eq(execf("show port %u rss-hash", near_id), -ENOTSUP);
	HAS(printed(), "(ring) has no RSS");
	cr_assert_eq(execf("show port %u rss-hash key", near_id), -ENOTSUP);
	cr_assert_eq(execf("port config %u rss ip", near_id), -ENOTSUP);
	HAS(printed(), "has no RSS");
	cr_assert_eq(exec("port config all rss udp"), -ENOTSUP);
	cr_assert_eq(execf("port config %u rss reta (0,1),(1,0)", near_id), -ENOTSUP);
	cr_assert_eq(execf("show port %u rss reta 128 0xffffffffffffffff,0xffffffffffffffff", near_id), -ENOTSUP);
	memset(key, 'a', 80);
	key[80] = '\0';
	cr_assert_eq(execf("port config %u rss-hash-key ipv4 %s", near_id, key), -ENOTSUP);
	HAS(printed(), "has no RSS");
	/* What unic cannot hash is refused before the port is asked. */
	cr_assert_eq(execf("port config %u rss sctp", near_id), -EINVAL);
	HAS(printed(), "RSS type 'sctp' is not one unic hashes");
	cr_assert_eq(execf("port config %u rss-hash-key l2-payload %s", near_id, key), -EINVAL);
	HAS(printed(), "use one of ipv4, ipv4-tcp");
}

Test(testpmd_dpdkcmds, offload_capabilities_and_configuration_print_as_dpdk, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	const char *o;

	printed();
	cr_assert_eq(execf("show port %u rx_offload capabilities", near_id), 0);
	o = printed();
	HAS(o, "Rx Offloading Capabilities of port");
	HAS(o, "  Per Queue :\n  Per Port  :");
	cr_assert_eq(execf("show port %u tx_offload configuration", near_id), 0);
	o = printed();
	HAS(o, "Tx Offloading Configuration of port");
	HAS(o, "  Port :");
	HAS(o, "  Queue[ 0] :");
	/* Ring ports offer no VLAN stripping: refused with what they offer. */
	cr_assert_eq(execf("port config %u rx_offload vlan_strip on", near_id), -ENOTSUP);
	HAS(printed(), "has no rx_offload offload vlan_strip (it offers: ");
	cr_assert_eq(execf("port config %u rx_offload bogus on", near_id), -EINVAL);
	o = printed();
	HAS(o, "unknown offload 'bogus'; DPDK's names:");
	HAS(o, " vlan_strip");
	/* A DPDK offload unic has not: off is what it is. */
	cr_assert_eq(execf("port config %u tx_offload qinq_insert off", near_id), 0);
	HAS(printed(), "unic has no such offload");
	cr_assert_eq(execf("port config %u tx_offload qinq_insert on", near_id), -ENOTSUP);
}

Test(testpmd_dpdkcmds, an_offload_the_port_offers_is_taken_for_the_next_start, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	/* The refusing port offers TSO (tx_offload tcp_tso). */
	struct unic_port *b = refusing_port_up(far_pool);
	uint16_t id;
	const char *o;

	cr_assert_not_null(b);
	id = unic_port_id(b);
	cr_assert_eq(tp_port_add(app, b, false), 0);
	printed();
	cr_assert_eq(execf("show port %u tx_offload capabilities", id), 0);
	HAS(printed(), "  Per Port  : TCP_TSO\n");
	cr_assert_eq(execf("port config %u tx_offload tcp_tso on", id), -EBUSY);
	HAS(printed(), "must be stopped first");
	cr_assert_eq(execf("port stop %u", id), 0);
	/* TSO needs a segment size: the command says which one gives it. */
	cr_assert_eq(execf("port config %u tx_offload tcp_tso on", id), -EINVAL);
	HAS(printed(), "use 'tso set MSS");
	cr_assert_eq(execf("tso set 1400 %u", id), 0);
	printed();
	cr_assert_eq(execf("show port %u tx_offload configuration", id), 0);
	o = printed();
	HAS(o, "  Port : TCP_TSO\n");
	HAS(o, "'port start");
	cr_assert_eq(execf("port config %u tx_offload tcp_tso off", id), 0);
	HAS(printed(), "tx_offload tcp_tso off at the next 'port start");
	cr_assert_eq(execf("show port %u tx_offload configuration", id), 0);
	HASNT(printed(), "TCP_TSO");
	cr_assert_eq(execf("port detach %u", id), 0);
	unic_port_put(b); /* testpmd took its own reference (tp_port_add) */
}

Test(testpmd_dpdkcmds, dumps_map_to_unic_or_say_why_not, .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	const char *o;

	printed();
	cr_assert_eq(exec("dump_physmem"), -ENOTSUP);
	HAS(printed(), "no EAL memory segment list");
	cr_assert_eq(exec("dump_memzone"), -ENOTSUP);
	HAS(printed(), "no named memzones");
	cr_assert_eq(exec("dump_ring"), -ENOTSUP);
	cr_assert_eq(exec("dump_socket_mem"), -ENOTSUP);
	cr_assert_eq(exec("dump_mempool"), 0);
	o = printed();
	HAS(o, "mempool <");
	HAS(o, "avail_count=");
	cr_assert_eq(exec("dump_mempool no-such-pool"), -ENOENT);
	HAS(printed(), "no pool 'no-such-pool'");
	cr_assert_eq(exec("dump_struct_sizes"), 0);
	HAS(printed(), "struct unic_pkt: ");
	cr_assert_eq(exec("dump_devargs"), 0);
	HAS(printed(), "vdev: ring40");
	cr_assert_eq(exec("dump_log_types"), 0);
	o = printed();
	HAS(o, "id 6: unic.port, level is ");
	cr_assert_eq(exec("show device info all"), 0);
	o = printed();
	HAS(o, "Infos for device ring40");
	HAS(o, "Driver name: ring");
	cr_assert_eq(exec("show device info ring40"), 0);
	cr_assert_eq(exec("show device info 0000:99:00.0"), -ENODEV);
	HAS(printed(), "no port's device is '0000:99:00.0'");
}

Test(testpmd_dpdkcmds, verbose_prints_a_line_per_packet_received_and_sent, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[8];
	const char *o;
	char want[64];

	cr_assert_eq(exec("set verbose 256"), -EINVAL);
	cr_assert_eq(exec("set verbose 7"), 0); /* DPDK: 3 and above, both */
	printed();
	cr_assert_eq(exec("start"), 0);
	far_send(4);
	cr_assert_eq(far_recv(p, 4), 4);
	unic_pkt_free_bulk(p, 4);
	cr_assert_eq(exec("stop"), 0);
	o = printed();
	snprintf(want, sizeof(want), "port %u/queue 0: received 4 packets\n", near_id);
	HAS(o, want);
	snprintf(want, sizeof(want), "port %u/queue 0: sent 4 packets\n", near_id);
	HAS(o, want);
	/* DPDK's fields: the frame's EtherType is 0 (byte 12 is the index),
	 * so the software packet type is Ethernet alone. */
	HAS(o, "  src=0B:0B:0B:0B:0B:0B - dst=0A:0A:0A:0A:0A:0A - pool=far - type=0x0000 - length=64 - nb_segs=1"
	       " - sw ptype: L2_ETHER  - l2_len=14 - Receive queue=0x0\n"
	       "  ol_flags: RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN RTE_MBUF_F_RX_OUTER_L4_CKSUM_UNKNOWN \n");
	HAS(o, " - sw ptype: L2_ETHER  - l2_len=14 - Send queue=0x0\n  ol_flags: RTE_MBUF_F_TX_L4_NO_CKSUM \n");
	cr_assert_eq(exec("set verbose 0"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(2);
	cr_assert_eq(far_recv(p, 2), 2);
	unic_pkt_free_bulk(p, 2);
	cr_assert_eq(exec("stop"), 0);
	HASNT(printed(), "received 2 packets");
}

Test(testpmd_dpdkcmds, record_burst_stats_adds_the_burst_sizes_to_the_forward_statistics, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_pkt *p[8];
	const char *o;

	cr_assert_eq(exec("set record-burst-stats on"), 0);
	cr_assert_eq(exec("start"), 0);
	cr_assert_eq(exec("set record-burst-stats off"), -EBUSY);
	far_send(5);
	cr_assert_eq(far_recv(p, 5), 5);
	unic_pkt_free_bulk(p, 5);
	printed();
	cr_assert_eq(exec("stop"), 0);
	o = printed();
	/* One burst of 5 is the likely case; several smaller ones are possible. */
	HAS(o, "  RX-bursts : ");
	HAS(o, "  TX-bursts : ");
	HAS(o, "% of ");
	cr_assert_eq(exec("set record-burst-stats off"), 0);
	cr_assert_eq(exec("start"), 0);
	cr_assert_eq(exec("stop"), 0);
	HASNT(printed(), "RX-bursts");
}

Test(testpmd_dpdkcmds, mcast_flow_ctrl_tunnels_and_missing_engines_are_refused_with_a_reason,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	printed();
	cr_assert_eq(execf("mcast_addr add %u 01:00:5e:00:00:01", near_id), -ENOTSUP);
	HAS(printed(), "not supported by the ring driver");
	cr_assert_eq(execf("mcast_addr add %u 02:00:5e:00:00:01", near_id), -EINVAL);
	HAS(printed(), "is not a multicast address");
	cr_assert_eq(execf("mcast_addr remove %u 01:00:5e:00:00:01", near_id), -ENOENT);
	cr_assert_eq(execf("show port %u flow_ctrl", near_id), -ENOTSUP);
	HAS(printed(), "(ring) has no 802.3x flow control");
	cr_assert_eq(execf("set flow_ctrl rx on tx on 300 50 10 1 mac_ctrl_frame_fwd off autoneg on %u", near_id),
		     -ENOTSUP);
	HAS(printed(), "has no 802.3x flow control");
	cr_assert_eq(execf("set flow_ctrl tx off %u", near_id), -ENOTSUP);
	cr_assert_eq(execf("set flow_ctrl pause_time 100 %u", near_id), -ENOTSUP);
	cr_assert_eq(execf("port config %u udp_tunnel_port add vxlan 4789", near_id), -ENOTSUP);
	HAS(printed(), "no tunnel offloads");
	cr_assert_eq(exec("set fwd shared-rxq"), -ENOTSUP);
	HAS(printed(), "no shared rx queues");
}

/* ---- engines ---- */

static void far_send_frame(const uint8_t *f, size_t len)
{
	struct unic_pkt *p;

	cr_assert_eq(unic_pkt_alloc_bulk(far_pool, &p, 1), 0);
	memcpy(unic_pkt_data(p), f, len);
	p->data_len = p->pkt_len = (uint32_t)len;
	cr_assert_eq(unic_tx_burst(far, 0, &p, 1), 1);
}

/* Ethernet 0a.. <- 0b.., IPv4 10.0.0.2 -> 10.0.0.1, then @p l4 (proto) */
static size_t ipv4_frame(uint8_t *f, uint8_t proto, const uint8_t *l4, size_t l4len)
{
	static const uint8_t eth_ip[34] = {
		0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0a, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x08, 0x00,
		0x45, 0, 0, 0, 0, 1, 0, 0, 64, 0, 0, 0, 10, 0, 0, 2, 10, 0, 0, 1,
	};

	memcpy(f, eth_ip, 34);
	f[17] = (uint8_t)(20 + l4len);
	f[23] = proto;
	memcpy(f + 34, l4, l4len);
	return 34 + l4len;
}

Test(testpmd_dpdkcmds, icmpecho_answers_arp_and_echo_requests_and_drops_the_rest, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	static const uint8_t arp[42] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x08, 0x06,
		0, 1, 0x08, 0, 6, 4, 0, 1, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 0x0b, 10, 0, 0, 2,
		0, 0, 0, 0, 0, 0, 10, 0, 0, 1,
	};
	/* echo request, id 0x1234, seq 1, "hi"; checksum over the 10 bytes */
	uint8_t icmp[10] = { 8, 0, 0, 0, 0x12, 0x34, 0, 1, 'h', 'i' };
	uint8_t f[128], mac[6];
	struct unic_pkt *p[4];
	uint16_t ck;
	size_t len;

	ck = (uint16_t)~sum16(0, icmp, sizeof(icmp));
	icmp[2] = (uint8_t)(ck >> 8);
	icmp[3] = (uint8_t)ck;
	cr_assert_eq(unic_port_mac_get(app->ports[near_id].port, mac), 0);
	cr_assert_eq(exec("set fwd icmpecho"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send(1); /* not ARP, not IPv4: dropped */
	len = ipv4_frame(f, 17, icmp, sizeof(icmp)); /* UDP: dropped */
	far_send_frame(f, len);
	far_send_frame(arp, sizeof(arp));
	len = ipv4_frame(f, 1, icmp, sizeof(icmp));
	far_send_frame(f, len);
	cr_assert_eq(far_recv(p, 2), 2);
	usleep(50000);
	cr_assert_eq(unic_rx_burst(far, 0, p + 2, 2), 0, "the other frames are dropped");
	cr_assert_eq(exec("stop"), 0);
	{
		const uint8_t *d = unic_pkt_data(p[0]);

		cr_assert_eq(be16(d + 12), 0x0806);
		cr_assert_eq(be16(d + 20), 2, "an ARP reply");
		cr_assert_arr_eq(d, arp + 6, 6, "to the asker");
		cr_assert_arr_eq(d + 6, mac, 6, "from the port");
		cr_assert_arr_eq(d + 22, mac, 6, "sender: the port's address");
		cr_assert_arr_eq(d + 28, arp + 38, 4, "for the address asked");
		cr_assert_arr_eq(d + 32, arp + 6, 6, "target: the asker");
		cr_assert_arr_eq(d + 38, arp + 28, 4);
	}
	{
		const uint8_t *d = unic_pkt_data(p[1]);

		cr_assert_arr_eq(d, f + 6, 6);
		cr_assert_arr_eq(d + 6, mac, 6);
		cr_assert_arr_eq(d + 26, f + 30, 4, "source: the address pinged");
		cr_assert_arr_eq(d + 30, f + 26, 4);
		cr_assert_eq(d[34], 0, "an echo reply");
		cr_assert_eq(sum16(0, d + 34, sizeof(icmp)), 0xffff, "the ICMP checksum is right");
		cr_assert_arr_eq(d + 38, icmp + 4, 6, "id, sequence and data kept");
	}
	unic_pkt_free_bulk(p, 2);
}

Test(testpmd_dpdkcmds, fivetswap_swaps_addresses_and_ports_and_keeps_the_checksums_right, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	uint8_t udp[12] = { 0x12, 0x34, 0x00, 0x35, 0, 12, 0, 0, 'a', 'b', 'c', 'd' };
	uint8_t f[128];
	struct unic_pkt *p;
	const uint8_t *d;
	size_t len = ipv4_frame(f, 17, udp, sizeof(udp));

	cr_assert_eq(exec("set fwd 5tswap"), 0);
	cr_assert_eq(exec("start"), 0);
	far_send_frame(f, len);
	cr_assert_eq(far_recv(&p, 1), 1);
	cr_assert_eq(exec("stop"), 0);
	d = unic_pkt_data(p);
	cr_assert_arr_eq(d, f + 6, 6);
	cr_assert_arr_eq(d + 6, f, 6);
	cr_assert_arr_eq(d + 26, f + 30, 4);
	cr_assert_arr_eq(d + 30, f + 26, 4);
	cr_assert_eq(be16(d + 34), 0x0035);
	cr_assert_eq(be16(d + 36), 0x1234);
	cr_assert_arr_eq(d + 38, f + 38, 8, "length, checksum and payload kept");
	unic_pkt_free(p);
}

Test(testpmd_binary, icmpecho_answers_on_the_receiving_port_whatever_the_topology, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "set fwd icmpecho\nstart\nstop\nset fwd io\nstart\nstop\nquit\n", out, sizeof(out)),
		     0, "%s", out);
	HAS(out, "icmpecho packet forwarding");
	HAS(out, "RX P=0/Q=0 (socket 0) -> TX P=0/Q=0");
	HAS(out, "RX P=1/Q=0 (socket 0) -> TX P=1/Q=0");
	HAS(out, "RX P=0/Q=0 (socket 0) -> TX P=1/Q=0"); /* io: paired */
}
