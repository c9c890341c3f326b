/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dpdk-testpmd 22.11's commands that unic refuses by design (tpengines):
 * one row each, the syntax in DPDK's words (cmd.h's notation, so that the
 * word counts and keywords are DPDK's and a typo is still a parse error
 * pointing at the word), and the reason, which names the capability unic
 * lacks. The parser (cmd.c) takes these rows after its own table; the
 * command prints "port N (driver): REASON" (the first port the line names)
 * and fails with -ENOTSUP. Help shows them for a topic; completion does not
 * offer them. Pure, as cmd.c: the fuzz harness builds it too.
 */
#include "cmd.h"

#define VF   "no SR-IOV virtual functions: unic drives a whole device and creates no VFs"
#define TM   "no traffic manager (rte_tm): unic has no traffic management"
#define MTR  "no traffic metering and policing (rte_mtr): unic has no meters"
#define GRO  "no GRO (rte_gro): unic-testpmd's engines merge no TCP segments in software"
#define GSO  "no GSO (rte_gso): unic-testpmd's engines segment in software only through TSO ('tso set')"
#define TUN  "no tunnels: unic parses and offloads no VXLAN/GENEVE (no tunnel TSO, no tunnel ports)"
#define BPF  "no BPF (rte_bpf): unic runs no packet filter programs on its queues"
#define RAW  "no raw_encap/raw_decap buffers: unic's flow rules (rte_flow) push or strip no raw headers"
#define SMPL "no sample actions: unic's flow rules (rte_flow) neither sample nor mirror packets"
#define PFC  "no priority flow control (802.1Qbb): unic's ports pause whole links only ('set flow_ctrl')"
#define DCB  "no DCB: unic's ports have no traffic classes (multi-queue receive is RSS only)"
#define ETAG "no E-tag (802.1BR port extension): unic has no port extender and no VFs"

#define R(syntax, why) { TP_CMD_REFUSED, syntax, why }

static const struct tp_cmd_def refused[] = {
	/* SR-IOV virtual functions */
	R("show vf stats <port> <vf_id>", VF),
	R("clear vf stats <port> <vf_id>", VF),
	R("set vf mac antispoof <port> <vf_id> on|off", VF),
	R("set vf vlan stripq <port> <vf_id> on|off", VF),
	R("set vf vlan insert <port> <vf_id> <vid>", VF),
	R("set vf vlan antispoof <port> <vf_id> on|off", VF),
	R("rx_vlan add|rm <vid> port <port> vf <vf_mask>", VF),
	R("mac_addr add port <port> vf <vf_id> <mac>", VF),
	R("set vf mac addr <port> <vf_id> <mac>", VF),
	R("set port <port> vf <vf_id> rx|tx on|off", VF),
	R("set port <port> vf <vf_id> rxmode AUPE|ROPE|BAM|MPE on|off", VF),
	R("set port <port> vf <vf_id> rate <rate> queue_mask <queue_mask>", VF),
	/* E-tag */
	R("E-tag set insertion on port-tag-id <value> port <port> vf <vf_id>", ETAG),
	R("E-tag set insertion off port <port> vf <vf_id>", ETAG),
	R("E-tag set stripping|forwarding on|off port <port>", ETAG),
	/* GRO, GSO, tunnels */
	R("rx_vxlan_port add|rm <udp_port> <port>", TUN),
	R("tunnel_tso set <tso_segsz> <port>", TUN),
	R("tunnel_tso show <port>", TUN),
	R("set port <port> gro on|off", GRO),
	R("show port <port> gro", GRO),
	R("set gro flush <cycles>", GRO),
	R("set port <port> gso on|off", GSO),
	R("set gso segsz <length>", GSO),
	R("show port <port> gso", GSO),
	/* BPF */
	R("bpf-load rx|tx <port> <queue> <flags> <file>", BPF),
	R("bpf-unload rx|tx <port> <queue>", BPF),
	/* raw encap/decap, sample actions (flow rule buffers) */
	R("set raw_encap|raw_decap <words...>", RAW),
	R("show raw_encap|raw_decap <index>", RAW),
	R("show raw_encap|raw_decap all", RAW),
	R("set sample_actions <index> <words...>", SMPL),
	/* priority flow control, DCB */
	R("set pfc_ctrl rx on|off tx on|off <high_water> <low_water> <pause_time> <priority> <port>", PFC),
	R("set pfc_queue_ctrl <port> rx on|off <tx_qid> <tx_tc> tx on|off <rx_qid> <rx_tc> <pause_time>", PFC),
	R("port config <port> dcb vt on|off <num_tcs> pfc on|off", DCB),
	/* metering (rte_mtr) */
	R("show port meter cap <port>", MTR),
	R("add port meter profile srtcm_rfc2697 <port> <profile_id> <cir> <cbs> <ebs> <packet_mode>", MTR),
	R("add port meter profile trtcm_rfc2698 <port> <profile_id> <cir> <pir> <cbs> <pbs> <packet_mode>", MTR),
	R("add port meter profile trtcm_rfc4115 <port> <profile_id> <cir> <eir> <cbs> <ebs> <packet_mode>", MTR),
	R("del port meter profile <port> <profile_id>", MTR),
	R("add port meter policy <port> <policy_id> g_actions <words...>", MTR),
	R("del port meter policy <port> <policy_id>", MTR),
	R("create port meter <port> <mtr_id> <profile_id> <policy_id> yes|no <stats_mask> <shared> <words...>", MTR),
	R("enable|disable port meter <port> <mtr_id>", MTR),
	R("del port meter <port> <mtr_id>", MTR),
	R("set port meter profile <port> <mtr_id> <profile_id>", MTR),
	R("set port meter dscp|vlan table <port> <mtr_id> <words...>", MTR),
	R("set port meter proto <port> <mtr_id> <proto> <prio>", MTR),
	R("get port meter proto <port> <mtr_id>", MTR),
	R("get port meter proto_prio <port> <mtr_id> <proto>", MTR),
	R("set port meter stats mask <port> <mtr_id> <stats_mask>", MTR),
	R("show port meter stats <port> <mtr_id> yes|no", MTR),
	/* traffic management (rte_tm) */
	R("show port tm cap <port>", TM),
	R("show port tm level cap <port> <level_id>", TM),
	R("show port tm node cap|type <port> <node_id>", TM),
	R("show port tm node stats <port> <node_id> <clear>", TM),
	R("add port tm node shaper profile <port> <shaper_profile_id> <cmit_tb_rate> <cmit_tb_size> <peak_tb_rate> <peak_tb_size> <packet_length_adjust> <packet_mode>", TM),
	R("del port tm node shaper profile <port> <shaper_profile_id>", TM),
	R("add|set port tm node shared shaper <port> <shared_shaper_id> <shaper_profile_id>", TM),
	R("del port tm node shared shaper <port> <shared_shaper_id>", TM),
	R("set port tm node shaper profile <port> <node_id> <shaper_profile_id>", TM),
	R("add port tm node wred profile <port> <wred_profile_id> <words...>", TM),
	R("del port tm node wred profile <port> <wred_profile_id>", TM),
	R("add port tm nonleaf node <port> <node_id> <parent_node_id> <priority> <weight> <level_id> <shaper_profile_id> <n_sp_priorities> <stats_mask> <words...>", TM),
	R("add port tm nonleaf node pktmode <port> <node_id> <parent_node_id> <priority> <weight> <level_id> <shaper_profile_id> <n_sp_priorities> <stats_mask> <words...>", TM),
	R("add port tm leaf node <port> <node_id> <parent_node_id> <priority> <weight> <level_id> <shaper_profile_id> <cman_mode> <wred_profile_id> <stats_mask> <words...>", TM),
	R("del port tm node <port> <node_id>", TM),
	R("set port tm node parent <port> <node_id> <parent_node_id> <priority> <weight>", TM),
	R("suspend|resume port tm node <port> <node_id>", TM),
	R("port tm hierarchy commit <port> yes|no", TM),
	R("set port tm mark vlan_dei|ip_dscp|ip_ecn <port> <green> <yellow> <red>", TM),
};

const struct tp_cmd_def *tp_cmd_refused_table(unsigned *nb)
{
	*nb = sizeof(refused) / sizeof(refused[0]);
	return refused;
}
