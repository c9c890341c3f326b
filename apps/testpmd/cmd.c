/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's command table and its parser, help and completion (cmd.h).
 * Everything works from the syntax strings; nothing here allocates.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app_opts.h"
#include "cmd.h"

#define ENGINES "io|mac|macswap|rxonly|txonly|flowgen|csum|icmpecho|5tswap|noisy|shared-rxq"

static const struct tp_cmd_def cmd_table[] = {
	{ TP_CMD_HELP, "help", "list every command" },
	{ TP_CMD_HELP_TOPIC, "help <words...>", "the commands that start with these words, with what they do" },
	{ TP_CMD_QUIT, "quit", "stop forwarding, stop and close every port, print the totals, exit" },
	{ TP_CMD_SLEEP, "sleep <ms>", "wait (scripts; unic extension)" },
	{ TP_CMD_SHOW_PORT, "show port info|stats|xstats|link|regs|eeprom|napi|summary <port|all>",
	  "port details, NIC statistics (with rates since the last show), extended statistics, link, register and EEPROM dumps, the napi engine's figures, one line a port" },
	{ TP_CMD_SHOW_CAPA, "show port capabilities|cap <port|all>", "offloads the port supports and those configured, by name" },
	{ TP_CMD_SHOW_EEPROM_DPDK, "show port <port> eeprom|module_eeprom", "DPDK's order: the NIC's EEPROM (first 128 bytes); a plug-in module's EEPROM" },
	{ TP_CMD_SHOW_LINK_CAPA, "show port <port> link_capa", "the link speeds the port can run at" },
	{ TP_CMD_SHOW_FWD, "show config fwd|rxtx|cores|txpkts|rxpkts|rxoffs|rxhdrs|txtimes",
	  "forwarding engine, threads and streams; queues and descriptors; forwarding cores; generated packet sizes; rx split, tx times (none)" },
	{ TP_CMD_CLEAR_STATS, "clear port stats <port|all>", "zero the NIC statistics" },
	{ TP_CMD_START, "start", "start forwarding on every started port" },
	{ TP_CMD_START_TXFIRST, "start tx_first", "send one burst on each stream first, then forward" },
	{ TP_CMD_START_TXFIRST_N, "start tx_first <bursts>", "send this many bursts (1..10000) on each stream first, then forward" },
	{ TP_CMD_STOP, "stop", "stop forwarding and print the forward statistics" },
	{ TP_CMD_SHOW_FWD_STATS, "show fwd stats all", "the forward statistics since 'start', while forwarding runs" },
	{ TP_CMD_CLEAR_FWD_STATS, "clear fwd stats all", "zero the forward statistics" },
	{ TP_CMD_SET_FWD, "set fwd " ENGINES, "the forwarding engine" },
	{ TP_CMD_SET_BURST, "set burst <n>", "packets per burst (1..256)" },
	{ TP_CMD_SET_NBCORE, "set nbcore <n>", "forwarding threads (1..64)" },
	{ TP_CMD_SET_TXPKTS, "set txpkts <sizes>", "txonly/flowgen packet: segment sizes, e.g. 64 or 64,128 (first >= 42)" },
	{ TP_CMD_SET_PROMISC, "set promisc|allmulti <port|all> on|off", "promiscuous or all-multicast receive" },
	{ TP_CMD_MAC_ADDR, "mac_addr set|add|remove <port> <mac>", "the port's address, or an extra unicast address" },
	{ TP_CMD_SET_LINK, "set link up|down <port>", "bring the link up or down" },
	{ TP_CMD_SET_LINK_DPDK, "set link-up|link-down port <port>", "the same, DPDK's spelling" },
	{ TP_CMD_PORT_OP, "port stop|start|close|reset <port|all>",
	  "stop or start (applying pending configuration), close (for good), reset (back to the start-up configuration)" },
	{ TP_CMD_PORT_QCFG, "port config <port|all> rxq|txq|rxd|txd <n>", "queues (1..16) or descriptors per queue (port stopped)" },
	{ TP_CMD_PORT_MTU, "port config <port> mtu <n>", "MTU (port stopped)" },
	{ TP_CMD_PORT_MTU_DPDK, "port config mtu <port> <n>", "the same, DPDK's spelling" },
	{ TP_CMD_PORT_COALESCE, "port config <port> coalesce rx-usecs|tx-usecs <n>", "interrupt coalescing" },
	{ TP_CMD_SET_RXMODE,
	  "set rx-mode <port|all> poll|interrupt|hybrid [budget=<n>] [weight=<n>] [empty-polls=<n>] [idle-us=<n>] [max-sleep-ms=<n>] [latency-target=<n>] [cpu-budget=<n>] [moderation=adaptive|fixed]",
	  "receive mode and the napi engine's knobs (port stopped; moderation= alone, with the port's mode, at once)" },
	{ TP_CMD_VLAN_SET, "vlan set strip|filter|insert <port> on|off", "VLAN offloads (port stopped)" },
	{ TP_CMD_VLAN_SET_DPDK, "vlan set strip|filter|insert on|off <port>", "the same, DPDK's order" },
	{ TP_CMD_RX_VLAN, "rx_vlan add|rm <vid> <port>", "add or remove a VLAN id in the port's filter" },
	{ TP_CMD_TX_VLAN_SET, "tx_vlan set <port> <vid>", "insert this VLAN tag in every packet sent on the port (port stopped)" },
	{ TP_CMD_TX_VLAN_RESET, "tx_vlan reset <port>", "stop inserting a VLAN tag (port stopped)" },
	{ TP_CMD_CSUM_SET, "csum set ip|udp|tcp|sctp|outer-ip|outer-udp hw|sw <port>",
	  "checksums the csum engine (and generated packets) leave to the NIC or compute in software; sctp and outer-* are refused (port stopped)" },
	{ TP_CMD_CSUM_SHOW, "csum show <port>", "the port's checksum settings for the csum engine" },
	{ TP_CMD_CSUM_TUNNEL, "csum parse-tunnel on|off <port>", "tunnels are not parsed: 'on' is refused" },
	{ TP_CMD_TSO_SET, "tso set <mss> <port>", "TCP segmentation offload segment size for the csum engine; 0: off (port stopped)" },
	{ TP_CMD_TSO_SHOW, "tso show <port>", "the port's TSO segment size" },
	{ TP_CMD_SET_MSGLEVEL, "set msglevel <port|all> <level>", "driver log level: error, warning, notice, info, debug or 1..5" },
	{ TP_CMD_PORT_ATTACH, "port attach <spec>", "a PCI device (BDF) or a virtual one (vdev spec, e.g. ring2,peer=ring1)" },
	{ TP_CMD_PORT_DETACH, "port detach <port>", "stop, close and remove a port; the others keep forwarding" },
	{ TP_CMD_SET_ETH_PEER, "set eth-peer <port> <mac>",
	  "the destination address the mac and csum engines write on packets sent on this port, from the next 'start' (default 02:00:00:00:00:<port>)" },
	{ TP_CMD_SHOW_RSS_HASH, "show port <port> rss-hash", "the RSS hash types in effect" },
	{ TP_CMD_SHOW_RSS_KEY, "show port <port> rss-hash key", "the RSS hash types and key in effect" },
	{ TP_CMD_SHOW_RSS_RETA, "show port <port> rss reta <size> <masks>",
	  "the RSS redirection table entries the masks select (hex, 64 entries each, comma-separated)" },
	{ TP_CMD_PORT_RSS, "port config <port|all> rss <types>",
	  "RSS hash types: all, default, ip, tcp, udp, none, ipv4, ipv4-tcp, ipv4-udp, ipv6, ipv6-tcp, ipv6-udp (at once and at the next start)" },
	{ TP_CMD_PORT_RSS_RETA, "port config <port> rss reta <entries>",
	  "RSS redirection table entries: (entry,queue)[,(entry,queue)...], at once" },
	{ TP_CMD_PORT_RSS_KEY, "port config <port> rss-hash-key <type> <hexkey>",
	  "the RSS hash key (hex, the port's key size) with a hash type; at once and at the next start" },
	{ TP_CMD_SHOW_OFFLOAD, "show port <port> rx_offload|tx_offload capabilities|configuration",
	  "offloads the port offers, or those configured, as DPDK names them" },
	{ TP_CMD_PORT_OFFLOAD, "port config <port> rx_offload|tx_offload <offload> on|off",
	  "turn an offload on or off by DPDK's name (port stopped; next start)" },
	/* tpcmds2: dpdk-testpmd's remaining show, set, port and queue commands (dpdkq.c) */
	{ TP_CMD_SHOW_QINFO, "show rxq|txq info <port> <queue>", "one queue's set-up: ring size, pool, offloads, state" },
	{ TP_CMD_SHOW_QINFO_PORT, "show port rxq|txq info <port> <queue>", "the same" },
	{ TP_CMD_SHOW_DESC_STATUS, "show port <port> rxq|txq <queue> desc <offset> status",
	  "the status of the descriptor this far past the queue's next one: available, done, unavailable (driver op)" },
	{ TP_CMD_SHOW_DESC_USED, "show port <port> rxq <queue> desc used count", "descriptors holding received packets not yet taken (driver op)" },
	{ TP_CMD_READ_DESC, "read rxd|txd <port> <queue> <desc>", "the raw words of one descriptor of the queue's ring (driver op)" },
	{ TP_CMD_PORT_QSTATE, "port <port> rxq|txq <queue> start|stop|setup",
	  "one queue: start and stop are refused (unic starts a port's queues together); setup: again at the next 'port start'" },
	{ TP_CMD_PORT_QDEFER, "port <port> rxq|txq <queue> deferred_start on|off", "start the queue with the port (off) or later (on: refused)" },
	{ TP_CMD_PORT_QRING, "port config <port> rxq|txq <queue> ring_size <n>", "one queue's descriptors (port stopped; next start)" },
	{ TP_CMD_PORT_QOFFLOAD, "port <port> rxq|txq <queue> rx_offload|tx_offload <offload> on|off",
	  "per-queue offloads: unic's are per port ('port config <port> rx_offload ...')" },
	{ TP_CMD_PORT_CLEANUP, "port cleanup <port> txq <queue> <count>", "free the buffers of packets the tx queue has sent (forwarding stopped)" },
	{ TP_CMD_SHOW_PORT_MORE, "show port <port> macs|mcast_macs|ptypes|tx_metadata|fec_mode",
	  "the port's unicast addresses, its multicast list; packet types, tx metadata and FEC (refused with the reason)" },
	{ TP_CMD_SHOW_FEC_CAPA, "show port <port> fec capabilities", "forward error correction modes (refused: no driver has FEC)" },
	{ TP_CMD_SHOW_PROXY, "show port <port> flow transfer proxy", "the transfer proxy port (refused: no flow rules)" },
	{ TP_CMD_CLEAR_XSTATS, "clear port xstats <port|all>", "zero the extended statistics (the NIC statistics with them)" },
	{ TP_CMD_LOAD, "load <file>", "run the commands of a file, one a line, stopping at the first that fails" },
	{ TP_CMD_SET_LIST, "set corelist|portlist <list>", "forwarding cores (their count is nbcore) or ports, e.g. 1,3 or 0-2 (forwarding stopped)" },
	{ TP_CMD_SET_MASK, "set coremask|portmask <mask>", "the same as a hex mask, e.g. 0x6" },
	{ TP_CMD_SET_NBPORT, "set nbport <n>", "forward on the first n ports of the port list" },
	{ TP_CMD_SET_TXSPLIT, "set txsplit off|on|rand", "txonly/flowgen segments: as 'set txpkts' (off); split on send is refused" },
	{ TP_CMD_SET_SPLIT, "set rxpkts|rxoffs|rxhdrs|txtimes <list>", "rx buffer split and tx send times: refused (no such offload)" },
	{ TP_CMD_SET_DEFAULT, "set default", "forwarding back to every port, the start-up cores and ports" },
	{ TP_CMD_SET_LOG, "set log <name> <lvl>", "log level (DPDK's 1..8) of 'global' or a unic component (dump_log_types)" },
	{ TP_CMD_SET_SWITCH, "set xstats-hide-zero|flush_rx on|off", "'show port xstats' without the zero counters; drain the rx queues at 'start'" },
	{ TP_CMD_SET_PTYPES, "set port <port> ptypes_mask <mask>", "packet types to classify (refused: unic's drivers do not classify)" },
	{ TP_CMD_SET_FEC, "set port <port> fec_mode auto|off|rs|baser|llrs", "forward error correction (refused: no driver has FEC)" },
	{ TP_CMD_SET_QRATE, "set port <port> queue <queue> rate <rate>", "a tx queue's rate limit in Mbps (refused: no driver limits a queue)" },
	{ TP_CMD_SET_TX_LOOPBACK, "set tx loopback <port> on|off", "NIC-internal loopback of sent packets (refused: no driver op)" },
	{ TP_CMD_SET_ALL_DROP, "set all queues drop <port> on|off", "drop when an rx queue is full: what unic's queues always do ('off' refused)" },
	{ TP_CMD_SET_UTA, "set port <port> uta <addr> on|off", "unicast hash table (refused: use 'mac_addr add')" },
	{ TP_CMD_SET_STAT_QMAP, "set stat_qmap tx|rx <port> <queue> <counter>",
	  "queue to statistics counter mapping: unic counts each of 16 queues itself (identity only)" },
	{ TP_CMD_SET_AVAIL, "set port <port> rxq <queue> avail_thresh <percent>", "rx queue fill threshold event (refused: no driver op)" },
	{ TP_CMD_SET_PORT_SETUP, "set port setup on iterator|event", "how attached ports are set up: unic at 'port start' (iterator)" },
	{ TP_CMD_VLAN_STRIPQ, "vlan set stripq on|off <port,queue>", "VLAN strip on one queue (refused: strip is per port, 'vlan set strip')" },
	{ TP_CMD_VLAN_QINQ, "vlan set qinq_strip|extend on|off <port>", "QinQ (refused: no double VLAN offloads; 'off' is what unic does)" },
	{ TP_CMD_VLAN_TPID, "vlan set inner|outer tpid <tpid> <port>", "the VLAN EtherType (refused: unic uses 0x8100)" },
	{ TP_CMD_RX_VLAN_ALL, "rx_vlan add|rm all <port>", "every VLAN id (0..4095) in or out of the port's filter" },
	{ TP_CMD_TX_VLAN_PVID, "tx_vlan set pvid <port> <vid> on|off", "port VLAN id insertion (refused: no driver op; 'tx_vlan set')" },
	{ TP_CMD_PORT_PKTLEN, "port config <port|all> max-pkt-len|max-lro-pkt-size <n>",
	  "the largest frame (MTU + 18; port stopped, next start); LRO is refused" },
	{ TP_CMD_PORT_DROP_EN, "port config <port|all> drop-en on|off", "drop when an rx queue is full: what unic's queues always do ('off' refused)" },
	{ TP_CMD_PORT_BURST, "port config <port|all> burst <n>", "packets per burst (as 'set burst')" },
	{ TP_CMD_PORT_THRESH, "port config <port|all> txpt|txht|txwt|txfreet|txrst|rxpt|rxht|rxwt|rxfreet <n>",
	  "descriptor thresholds (refused: each driver sets its own)" },
	{ TP_CMD_PORT_SPEED, "port config <port|all> speed <speed> duplex half|full|auto", "link speed (auto only: no driver forces a speed)" },
	{ TP_CMD_PORT_PCTYPE, "port config <port> pctype <words...>", "flow type mapping and input sets (refused: i40e's, no unic driver)" },
	{ TP_CMD_PORT_TX_METADATA, "port config <port> tx_metadata <value>", "tx metadata (refused: unic packets have no metadata field)" },
	{ TP_CMD_PORT_DYNF, "port config <port> dynf <name> set|clear", "dynamic packet flags (refused: unic packets have none)" },
	{ TP_CMD_DEVICE_DETACH, "device detach <device>", "detach every port of a device (a BDF or a port name)" },
	/* end of tpcmds2 */
	{ TP_CMD_SHOW_DEVICE, "show device info <device>", "every port's device: name, driver, bus address, ports" },
	{ TP_CMD_DUMP, "dump_physmem|dump_memzone|dump_socket_mem|dump_struct_sizes|dump_ring|dump_mempool|dump_devargs|dump_log_types",
	  "DPDK's EAL dumps, each mapped to unic's equivalent or refused with the reason" },
	{ TP_CMD_DUMP_NAME, "dump_ring|dump_mempool <name>", "one ring or pool (unic: one packet pool)" },
	{ TP_CMD_SET_VERBOSE, "set verbose <verbosity>",
	  "0: quiet; 1: a line per received packet; 2: per sent packet; 3..255: both (slow: for debugging)" },
	{ TP_CMD_SET_RECORD, "set record-core-cycles|record-burst-stats on|off",
	  "forward statistics: cycles per packet of each thread, or the burst sizes seen" },
	{ TP_CMD_MCAST_ADDR, "mcast_addr add|remove <port> <mac>", "a multicast address in the port's list" },
	{ TP_CMD_SHOW_FLOW_CTRL, "show port <port> flow_ctrl", "802.3x flow control (pause frames)" },
	{ TP_CMD_SET_FLOW_CTRL,
	  "set flow_ctrl rx on|off tx on|off <high_water> <low_water> <pause_time> <send_xon> mac_ctrl_frame_fwd on|off autoneg on|off <port>",
	  "802.3x flow control: obey pause frames, send them above high_water bytes of rx buffer (XON below low_water with send_xon 1), their pause time, pass MAC control frames up; autoneg on is refused where the driver does not negotiate pause" },
	{ TP_CMD_SET_FLOW_CTRL_ONE, "set flow_ctrl rx|tx|mac_ctrl_frame_fwd|autoneg on|off <port>", "one flow control setting, the others kept" },
	{ TP_CMD_SET_FLOW_CTRL_NUM, "set flow_ctrl high_water|low_water|pause_time|send_xon <n> <port>", "one flow control value, the others kept" },
	/* tpengines: set fwd X retry (the commands refused by design: cmd_refused.c) */
	{ TP_CMD_SET_FWD_RETRY, "set fwd " ENGINES " retry",
	  "the forwarding engine; a tx burst the queue does not take whole is sent again (--burst-tx-retry-num times, --burst-tx-delay-time us apart)" },
	{ TP_CMD_SET_BURST_TX, "set burst tx delay <us> retry <num>",
	  "with retry: the wait between tries of a tx burst (0..1000000 us) and the tries (forwarding stopped)" },
	{ TP_CMD_UDP_TUNNEL, "port config <port> udp_tunnel_port add|rm vxlan|geneve|vxlan-gpe|ecpri <udp-port>",
	  "UDP tunnel ports: refused (unic has no tunnel offloads)" },
	/* flow: DPDK's flow rule commands, parsed by flowparse.c (the words are
	 * too many and too free for the table's syntax strings). */
	{ TP_CMD_FLOW, "flow validate|create|list|destroy|flush|isolate|query|aged <words...>",
	  "flow rules in DPDK's grammar ('help flow' prints it); DPDK's other flow commands (indirect_action, flex_item, queue, "
	  "templates, ...) are refused with the reason" },
};

/* Words the parser takes so that the command can say why it refuses them,
 * but that are always refused: completion does not offer them. */
static const struct {
	enum tp_cmd_id id;
	unsigned at;      /* word position in the syntax */
	const char *word;
} never_offered[] = {
	{ TP_CMD_CSUM_SET, 2, "sctp" },
	{ TP_CMD_CSUM_SET, 2, "outer-ip" },
	{ TP_CMD_CSUM_SET, 2, "outer-udp" },
	{ TP_CMD_CSUM_TUNNEL, 2, "on" },
};

static bool offered(enum tp_cmd_id id, unsigned at, const char *w, size_t len)
{
	for (unsigned i = 0; i < sizeof(never_offered) / sizeof(never_offered[0]); i++)
		if (never_offered[i].id == id && never_offered[i].at == at &&
		    strlen(never_offered[i].word) == len && memcmp(never_offered[i].word, w, len) == 0)
			return false;
	return true;
}

/* The parser's rows: cmd_table, then the refused-by-design ones. */
static const struct tp_cmd_def *row(unsigned i)
{
	unsigned nr;
	const struct tp_cmd_def *r = tp_cmd_refused_table(&nr);
	const unsigned nm = sizeof(cmd_table) / sizeof(cmd_table[0]);

	return i < nm ? &cmd_table[i] : i - nm < nr ? &r[i - nm] : NULL;
}

static unsigned nb_rows(void)
{
	unsigned nr;

	tp_cmd_refused_table(&nr);
	return (unsigned)(sizeof(cmd_table) / sizeof(cmd_table[0])) + nr;
}

const struct tp_cmd_def *tp_cmd_table(unsigned *nb)
{
	*nb = sizeof(cmd_table) / sizeof(cmd_table[0]);
	return cmd_table;
}

/* ---- syntax words ---------------------------------------------------------- */

enum word_kind { W_LIT, W_PORT, W_PORT_ALL, W_MAC, W_VID, W_LEVEL, W_SIZES, W_SPEC, W_REST, W_NUM, W_KNOB };

struct word {
	const char *s;  /* the word in the syntax string */
	size_t len;
	enum word_kind kind;
	const char *key; /* knob: the key, keylen bytes */
	size_t keylen;
	const char *val; /* knob: what follows '=' (<n>, or words a|b), vallen bytes */
	size_t vallen;
};

static bool eq(const char *a, size_t alen, const char *b)
{
	return strlen(b) == alen && memcmp(a, b, alen) == 0;
}

/* Split a syntax string into words. @return how many (<= max). */
static unsigned syntax_words(const char *syn, struct word *w, unsigned max)
{
	unsigned n = 0;

	while (*syn && n < max) {
		const char *e = strchr(syn, ' ');
		size_t len = e ? (size_t)(e - syn) : strlen(syn);
		struct word *x = &w[n++];

		x->s = syn;
		x->len = len;
		x->key = NULL;
		x->keylen = 0;
		x->val = NULL;
		x->vallen = 0;
		if (syn[0] == '[') {
			const char *eqs = memchr(syn, '=', len);

			x->kind = W_KNOB;
			x->key = syn + 1;
			x->keylen = eqs ? (size_t)(eqs - syn - 1) : len - 2;
			if (eqs) {
				x->val = eqs + 1;
				x->vallen = (size_t)(syn + len - 1 - x->val);
			}
		} else if (syn[0] == '<') {
			const char *in = syn + 1;
			size_t il = len - 2;

			if (eq(in, il, "port"))
				x->kind = W_PORT;
			else if (eq(in, il, "port|all"))
				x->kind = W_PORT_ALL;
			else if (eq(in, il, "mac"))
				x->kind = W_MAC;
			else if (eq(in, il, "vid"))
				x->kind = W_VID;
			else if (eq(in, il, "level"))
				x->kind = W_LEVEL;
			else if (eq(in, il, "sizes"))
				x->kind = W_SIZES;
			else if (eq(in, il, "spec") || eq(in, il, "masks") || eq(in, il, "types") ||
				 eq(in, il, "entries") || eq(in, il, "type") || eq(in, il, "hexkey") ||
				 eq(in, il, "offload") || eq(in, il, "name") || eq(in, il, "device") ||
				 eq(in, il, "file") || eq(in, il, "list") || eq(in, il, "mask") || eq(in, il, "addr") ||
				 eq(in, il, "port,queue") || eq(in, il, "speed") || eq(in, il, "tpid"))
				x->kind = W_SPEC;
			else if (eq(in, il, "file") || eq(in, il, "flags") || eq(in, il, "vf_mask") ||
				 eq(in, il, "queue_mask") || eq(in, il, "stats_mask")) /* cmd_refused.c's */
				x->kind = W_SPEC;
			else if (il > 3 && memcmp(in + il - 3, "...", 3) == 0)
				x->kind = W_REST;
			else
				x->kind = W_NUM;
		} else {
			x->kind = W_LIT;
		}
		syn += len;
		while (*syn == ' ')
			syn++;
	}
	return n;
}

/* Index of @p tok among the '|'-separated alternatives of a literal, or -1. */
static int lit_index(const struct word *w, const char *tok)
{
	const char *p = w->s, *end = w->s + w->len;
	int i = 0;

	while (p < end) {
		const char *bar = memchr(p, '|', (size_t)(end - p));
		size_t l = bar ? (size_t)(bar - p) : (size_t)(end - p);

		if (eq(p, l, tok))
			return i;
		i++;
		p += l + 1;
	}
	return -1;
}

/* ---- values -------------------------------------------------------------------- */

static int parse_num(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0')
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return -1;
	}
	*out = v;
	return 0;
}

static int parse_mac(const char *s, uint8_t mac[6])
{
	return app_parse_mac(s, mac) ? -1 : 0;
}

static int parse_level(const char *s, uint64_t *out)
{
	static const char *const names[] = { "error", "warning", "notice", "info", "debug" };

	for (unsigned i = 0; i < 5; i++)
		if (strcmp(s, names[i]) == 0) {
			*out = i + 1;
			return 0;
		}
	if (parse_num(s, 5, out) == 0 && *out >= 1)
		return 0;
	return -1;
}

static int parse_sizes(const char *s, struct tp_cmd_arg *a)
{
	a->nb_sizes = 0;
	for (;;) {
		uint64_t v = 0;
		unsigned digits = 0;

		while (*s >= '0' && *s <= '9') {
			v = v * 10 + (uint64_t)(*s++ - '0');
			if (++digits > 5)
				return -1;
		}
		if (digits == 0 || v < 1 || v > 65535 || a->nb_sizes == TP_CMD_MAX_SIZES)
			return -1;
		a->sizes[a->nb_sizes++] = (uint16_t)v;
		if (*s == '\0')
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

/* What a placeholder expects, for messages. */
static const char *expects(const struct word *w)
{
	switch (w->kind) {
	case W_PORT:
		return "a port number (0..63)";
	case W_PORT_ALL:
		return "a port number (0..63) or 'all'";
	case W_MAC:
		return "a MAC address xx:xx:xx:xx:xx:xx";
	case W_VID:
		return "a VLAN id (0..4095)";
	case W_LEVEL:
		return "error, warning, notice, info, debug or 1..5";
	case W_SIZES:
		return "sizes 1..65535, comma-separated, at most 8";
	case W_KNOB:
		return w->val && w->val[0] != '<' ? "key=WORD with one of the words after '='" :
		       "key=N with N a whole number";
	case W_NUM:
		return "a whole number (0..4294967295)";
	default:
		return "one word";
	}
}

/* Check one typed word against one syntax word and fill @p a. @return 0 or -1. */
static int take(const struct word *w, const char *tok, struct tp_cmd_arg *a)
{
	int i;

	a->str = tok;
	switch (w->kind) {
	case W_LIT:
		i = lit_index(w, tok);
		if (i < 0)
			return -1;
		a->kw = (unsigned)i;
		return 0;
	case W_PORT_ALL:
		if (strcmp(tok, "all") == 0) {
			a->num = TP_CMD_PORT_ALL;
			return 0;
		}
		/* fall through */
	case W_PORT:
		return parse_num(tok, TP_CMD_MAX_PORT, &a->num);
	case W_MAC:
		return parse_mac(tok, a->mac);
	case W_VID:
		return parse_num(tok, 4095, &a->num);
	case W_LEVEL:
		return parse_level(tok, &a->num);
	case W_SIZES:
		return parse_sizes(tok, a);
	case W_SPEC:
	case W_REST:
		return 0;
	case W_NUM:
		return parse_num(tok, UINT32_MAX, &a->num);
	case W_KNOB:
		break;
	}
	return -1;
}

/* ---- matching ----------------------------------------------------------------- */

enum fail_kind { F_NONE, F_MISSING, F_BAD, F_EXTRA, F_DUP };

struct match {
	unsigned score;      /* typed words accepted before the failure */
	enum fail_kind fail;
	unsigned at_word;    /* syntax word of the failure */
	const char *tok;     /* the word that failed (bad, extra, duplicate) */
};

/* Split @p line into words in @p buf. @return the count, or -1: too many. */
static int split(const char *line, char *buf, size_t buflen, char **tok, unsigned max)
{
	size_t n = strnlen(line, buflen);
	unsigned nt = 0;
	char *p;

	if (n >= buflen)
		return -2;
	memcpy(buf, line, n + 1);
	p = buf;
	for (;;) {
		while (*p && isspace((unsigned char)*p))
			p++;
		if (*p == '\0' || *p == '#')
			break;
		if (nt == max)
			return -1;
		tok[nt++] = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		if (*p == '\0')
			break;
		*p++ = '\0';
	}
	*p = '\0';
	return (int)nt;
}

static void match_def(const struct tp_cmd_def *d, char **tok, unsigned nt, struct tp_cmd *cmd,
		      char *rest, size_t restlen, struct match *m)
{
	struct word w[TP_CMD_MAX_TOKENS];
	unsigned nw = syntax_words(d->syntax, w, TP_CMD_MAX_TOKENS), si = 0, ti = 0;

	memset(m, 0, sizeof(*m));
	memset(cmd->arg, 0, sizeof(cmd->arg[0]) * nw);
	cmd->nb_args = nw;
	for (; si < nw && w[si].kind != W_KNOB; si++) {
		if (ti >= nt) {
			m->fail = F_MISSING;
			m->at_word = si;
			m->score = ti;
			return;
		}
		if (w[si].kind == W_REST) {
			size_t off = 0;

			rest[0] = '\0';
			cmd->arg[si].str = rest;
			for (; ti < nt && off + 1 < restlen; ti++) {
				int l = snprintf(rest + off, restlen - off, "%s%s", off ? " " : "", tok[ti]);

				off = l > 0 && (size_t)l < restlen - off ? off + (size_t)l : restlen - 1;
			}
			ti = nt;
			continue;
		}
		if (take(&w[si], tok[ti], &cmd->arg[si]) != 0) {
			m->fail = F_BAD;
			m->at_word = si;
			m->tok = tok[ti];
			m->score = ti;
			return;
		}
		ti++;
	}
	/* Knobs: key=value, any order, each once. */
	for (; ti < nt; ti++) {
		const char *eqs = strchr(tok[ti], '=');
		size_t kl = eqs ? (size_t)(eqs - tok[ti]) : strlen(tok[ti]);
		unsigned k;

		for (k = si; k < nw; k++)
			if (w[k].keylen == kl && memcmp(w[k].key, tok[ti], kl) == 0)
				break;
		m->tok = tok[ti];
		m->score = ti;
		if (k == nw) {
			m->fail = F_EXTRA;
			m->at_word = si < nw ? si : nw;
			return;
		}
		m->at_word = k;
		if (cmd->arg[k].set) {
			m->fail = F_DUP;
			return;
		}
		if (w[k].val && w[k].val[0] != '<') {
			/* A knob of words (moderation=adaptive|fixed): the index
			 * of the word, in kw and num. */
			struct word v = { .s = w[k].val, .len = w[k].vallen, .kind = W_LIT };
			int i = eqs ? lit_index(&v, eqs + 1) : -1;

			if (i < 0) {
				m->fail = F_BAD;
				return;
			}
			cmd->arg[k].kw = (unsigned)i;
			cmd->arg[k].num = (uint64_t)i;
		} else if (eqs == NULL || parse_num(eqs + 1, UINT32_MAX, &cmd->arg[k].num) != 0) {
			m->fail = F_BAD;
			return;
		}
		cmd->arg[k].set = true;
		cmd->arg[k].str = tok[ti];
	}
	m->score = ti;
	m->fail = F_NONE;
}

/* Append to err. */
static void errcat(char *err, size_t errlen, const char *fmt, ...)
{
	size_t l = strnlen(err, errlen);
	va_list ap;

	if (l + 1 >= errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err + l, errlen - l, fmt, ap);
	va_end(ap);
}

/* Do these commands all have a word (a literal or a placeholder) at @p at? */
static bool words_at(const struct tp_cmd_def *const *defs, unsigned n, unsigned at)
{
	for (unsigned i = 0; i < n; i++) {
		struct word w[TP_CMD_MAX_TOKENS];
		unsigned nw = syntax_words(defs[i]->syntax, w, TP_CMD_MAX_TOKENS);

		if (at >= nw || w[at].kind == W_KNOB || w[at].kind == W_REST)
			return false;
	}
	return true;
}

/* Do these commands all have the same syntax word at @p at (e.g. <vid>)? */
static bool same_word_at(const struct tp_cmd_def *const *defs, unsigned n, unsigned at)
{
	struct word v[TP_CMD_MAX_TOKENS];
	unsigned nv = syntax_words(defs[0]->syntax, v, TP_CMD_MAX_TOKENS);

	if (at >= nv)
		return false;
	for (unsigned i = 1; i < n; i++) {
		struct word w[TP_CMD_MAX_TOKENS];
		unsigned nw = syntax_words(defs[i]->syntax, w, TP_CMD_MAX_TOKENS);

		if (at >= nw || w[at].len != v[at].len || memcmp(w[at].s, v[at].s, v[at].len) != 0)
			return false;
	}
	return true;
}

int tp_cmd_parse(const char *line, struct tp_cmd *cmd, char *err, size_t errlen)
{
	char *tok[TP_CMD_MAX_TOKENS];
	unsigned nb = nb_rows(), best = 0, nbest = 0;
	const struct tp_cmd_def *bestdef[TP_CMD_MAX_ROWS];
	struct match bm = { 0 };
	int nt;

	if (errlen)
		err[0] = '\0';
	cmd->def = NULL;
	/* flow: its own parser, on the whole line. */
	{
		const char *p = line;

		while (isspace((unsigned char)*p))
			p++;
		if (strncmp(p, "flow", 4) == 0 && (p[4] == '\0' || isspace((unsigned char)p[4]))) {
			size_t n = strnlen(line, sizeof(cmd->buf));

			if (tp_flow_parse(line, &cmd->flow, err, errlen) != 0)
				return TP_PARSE_ERROR;
			if (n >= sizeof(cmd->buf))
				return TP_PARSE_ERROR; /* the flow parser refused it already */
			memcpy(cmd->buf, line, n + 1);
			memset(cmd->arg, 0, sizeof(cmd->arg[0]));
			cmd->arg[0].str = cmd->buf;
			cmd->nb_args = 1;
			for (unsigned i = 0; i < nb; i++)
				if (row(i)->id == TP_CMD_FLOW)
					cmd->def = row(i);
			return TP_PARSE_OK;
		}
	}
	nt = split(line, cmd->buf, sizeof(cmd->buf), tok, TP_CMD_MAX_TOKENS);
	if (nt == -2) {
		errcat(err, errlen, "line too long (the limit is %d characters)", TP_CMD_LINE_MAX - 1);
		return TP_PARSE_ERROR;
	}
	if (nt == -1) {
		errcat(err, errlen, "too many words (the limit is %d)", TP_CMD_MAX_TOKENS);
		return TP_PARSE_ERROR;
	}
	if (nt == 0)
		return TP_PARSE_EMPTY;

	for (unsigned i = 0; i < nb; i++) {
		const struct tp_cmd_def *d = row(i);
		struct match m;

		match_def(d, tok, (unsigned)nt, cmd, cmd->rest, sizeof(cmd->rest), &m);
		if (m.fail == F_NONE) {
			cmd->def = d;
			return TP_PARSE_OK;
		}
		if (m.score == 0)
			continue;
		if (m.score > best) {
			best = m.score;
			nbest = 0;
			bm = m;
		}
		if (m.score == best && nbest < TP_CMD_MAX_ROWS)
			bestdef[nbest++] = d;
	}
	if (nbest == 0) {
		errcat(err, errlen, "unknown command '%s'; type 'help' for the list", tok[0]);
		return TP_PARSE_ERROR;
	}
	/* Say what is wrong when the closest commands agree on it. */
	if (nbest == 1 || bm.fail == F_EXTRA || bm.fail == F_MISSING ||
	    (bm.fail == F_BAD && same_word_at(bestdef, nbest, bm.at_word))) {
		struct word w[TP_CMD_MAX_TOKENS];
		unsigned nw = syntax_words(bestdef[0]->syntax, w, TP_CMD_MAX_TOKENS);

		switch (bm.fail) {
		case F_MISSING:
			errcat(err, errlen, "missing argument");
			if (nbest == 1 && bm.at_word < nw)
				errcat(err, errlen, " %.*s", (int)w[bm.at_word].len, w[bm.at_word].s);
			break;
		case F_EXTRA:
			errcat(err, errlen, "unexpected '%s'", bm.tok);
			break;
		case F_DUP:
			errcat(err, errlen, "'%s' given twice", bm.tok);
			break;
		case F_BAD:
			if (bm.at_word < nw && w[bm.at_word].kind == W_LIT)
				errcat(err, errlen, "bad word '%s'; expected %.*s", bm.tok,
				       (int)w[bm.at_word].len, w[bm.at_word].s);
			else if (bm.at_word < nw)
				errcat(err, errlen, "bad value '%s' for %.*s; expected %s", bm.tok,
				       (int)w[bm.at_word].len, w[bm.at_word].s, expects(&w[bm.at_word]));
			break;
		case F_NONE:
			break;
		}
	} else if (bm.fail == F_BAD && words_at(bestdef, nbest, bm.at_word)) {
		/* Several commands differ in this word: list every word they take
		 * (literals, then placeholders such as <port>). */
		errcat(err, errlen, "bad word '%s'; expected ", bm.tok);
		char seen[TP_CMD_LINE_MAX] = "|"; /* each word listed once: |a|b| */
		bool first = true;

		for (unsigned i = 0; i < nbest; i++) {
			struct word w[TP_CMD_MAX_TOKENS];
			const char *a, *end;

			syntax_words(bestdef[i]->syntax, w, TP_CMD_MAX_TOKENS);
			end = w[bm.at_word].s + w[bm.at_word].len;
			for (a = w[bm.at_word].s; a < end;) {
				const char *bar = memchr(a, '|', (size_t)(end - a));
				int l = (int)((bar ? bar : end) - a);
				char key[TP_CMD_CAND_LEN + 2];

				snprintf(key, sizeof(key), "|%.*s|", l, a);
				if (strstr(seen, key) == NULL && strlen(seen) + (size_t)l + 1 < sizeof(seen)) {
					errcat(err, errlen, "%s%.*s", first ? "" : "|", l, a);
					strncat(seen, key + 1, sizeof(seen) - strlen(seen) - 1);
					first = false;
				}
				a += l + 1;
			}
		}
		/* What a placeholder among them takes (rx_vlan add <vid>|all). */
		for (unsigned i = 0; i < nbest; i++) {
			struct word w[TP_CMD_MAX_TOKENS];

			syntax_words(bestdef[i]->syntax, w, TP_CMD_MAX_TOKENS);
			char tag[TP_CMD_CAND_LEN];

			snprintf(tag, sizeof(tag), "; %.*s:", (int)w[bm.at_word].len, w[bm.at_word].s);
			if (w[bm.at_word].kind != W_LIT && w[bm.at_word].kind != W_SPEC && strstr(err, tag) == NULL)
				errcat(err, errlen, "; %.*s: %s", (int)w[bm.at_word].len, w[bm.at_word].s,
				       expects(&w[bm.at_word]));
		}
	} else {
		errcat(err, errlen, "bad arguments for '%s'", tok[0]);
	}
	/* Usage lines: the commands unic refuses by design only when the
	 * line came closest to nothing else (help WORDS lists them). */
	unsigned refused = 0;

	for (unsigned i = 0; i < nbest; i++)
		refused += bestdef[i]->id == TP_CMD_REFUSED;
	for (unsigned i = 0; i < nbest; i++)
		if (refused == nbest || bestdef[i]->id != TP_CMD_REFUSED)
			errcat(err, errlen, "\nusage: %s", bestdef[i]->syntax);
	if (refused && refused < nbest)
		errcat(err, errlen, "\n(and %u command%s unic refuses by design: 'help %s' shows them)", refused,
		       refused == 1 ? "" : "s", tok[0]);
	return TP_PARSE_ERROR;
}

int tp_cmd_port_word(const struct tp_cmd *cmd)
{
	struct word w[TP_CMD_MAX_TOKENS];
	unsigned nw;

	if (cmd->def == NULL)
		return -1;
	nw = syntax_words(cmd->def->syntax, w, TP_CMD_MAX_TOKENS);
	for (unsigned i = 0; i < nw; i++)
		if (w[i].kind == W_PORT || w[i].kind == W_PORT_ALL)
			return (int)i;
	return -1;
}

int tp_cmd_knob(const struct tp_cmd *cmd, const char *key)
{
	struct word w[TP_CMD_MAX_TOKENS];
	unsigned nw;

	if (cmd->def == NULL)
		return -1;
	nw = syntax_words(cmd->def->syntax, w, TP_CMD_MAX_TOKENS);
	for (unsigned i = 0; i < nw; i++)
		if (w[i].kind == W_KNOB && eq(w[i].key, w[i].keylen, key))
			return (int)i;
	return -1;
}

/* ---- help ------------------------------------------------------------------------ */

int tp_cmd_help(FILE *f, const char *topic)
{
	char buf[TP_CMD_LINE_MAX];
	char *tok[TP_CMD_MAX_TOKENS];
	unsigned nb, shown = 0;
	const struct tp_cmd_def *t = tp_cmd_table(&nb);
	int nt = topic ? split(topic, buf, sizeof(buf), tok, TP_CMD_MAX_TOKENS) : 0;

	/* A topic also finds the refused-by-design rows (with their reason);
	 * the full list leaves them out. */
	if (nt > 0) {
		t = NULL;
		nb = nb_rows();
	}

	if (nt < 0) {
		fprintf(f, "help: topic too long\n");
		return -1;
	}
	if (nt == 0)
		fprintf(f, "Commands (type 'help WORD' for details; <port|all> takes a port number or 'all'):\n");
	for (unsigned i = 0; i < nb; i++) {
		const struct tp_cmd_def *d = t ? &t[i] : row(i);
		struct word w[TP_CMD_MAX_TOKENS];
		unsigned nw = syntax_words(d->syntax, w, TP_CMD_MAX_TOKENS);
		bool ok = (unsigned)nt <= nw;

		for (int k = 0; ok && k < nt; k++) {
			struct tp_cmd_arg a;

			memset(&a, 0, sizeof(a));
			if (w[k].kind == W_KNOB)
				ok = false;
			else if (w[k].kind != W_REST)
				ok = take(&w[k], tok[k], &a) == 0;
		}
		if (!ok)
			continue;
		if (nt == 0)
			fprintf(f, "  %s\n", d->syntax);
		else
			fprintf(f, "%s\n    %s%s\n", d->syntax, d->id == TP_CMD_REFUSED ? "refused: " : "", d->help);
		shown++;
	}
	if (shown == 0) {
		fprintf(f, "no command starts with '%s'; type 'help' for the list\n", topic);
		return -1;
	}
	if (nt > 0 && strcmp(tok[0], "flow") == 0)
		fprintf(f, "%s\n", tp_flow_usage());
	return 0;
}

/* ---- completion ---------------------------------------------------------------- */

static void cand_add(char (*out)[TP_CMD_CAND_LEN], unsigned max, unsigned *n, const char *s,
		     size_t len)
{
	if (len >= TP_CMD_CAND_LEN || *n >= max)
		return;
	for (unsigned i = 0; i < *n; i++)
		if (strlen(out[i]) == len && memcmp(out[i], s, len) == 0)
			return;
	memcpy(out[*n], s, len);
	out[*n][len] = '\0';
	(*n)++;
}

unsigned tp_cmd_complete(const char *line, size_t len, const uint16_t *ports, unsigned nb_ports,
			 char (*out)[TP_CMD_CAND_LEN], unsigned max, size_t *start)
{
	char buf[TP_CMD_LINE_MAX], partial[TP_CMD_LINE_MAX];
	char *tok[TP_CMD_MAX_TOKENS];
	unsigned nb, n = 0;
	const struct tp_cmd_def *t = tp_cmd_table(&nb);
	size_t plen = 0;
	int nt;

	if (len >= sizeof(buf))
		return 0;
	len = strnlen(line, len);
	/* The word under the cursor: from the last space before it. */
	while (plen < len && !isspace((unsigned char)line[len - plen - 1]))
		plen++;
	*start = len - plen;
	memcpy(partial, line + *start, plen);
	partial[plen] = '\0';
	memcpy(buf, line, *start);
	buf[*start] = '\0';
	{
		char tmp[TP_CMD_LINE_MAX];

		memcpy(tmp, buf, *start + 1);
		nt = split(tmp, buf, sizeof(buf), tok, TP_CMD_MAX_TOKENS);
	}
	if (nt < 0 || nt >= TP_CMD_MAX_TOKENS || strchr(partial, '#'))
		return 0;
	for (unsigned i = 0; i < nb; i++) {
		struct word w[TP_CMD_MAX_TOKENS];
		unsigned nw = syntax_words(t[i].syntax, w, TP_CMD_MAX_TOKENS);
		bool ok = true;
		int k;

		for (k = 0; ok && k < nt; k++) {
			struct tp_cmd_arg a;

			memset(&a, 0, sizeof(a));
			if ((unsigned)k >= nw)
				ok = false;
			else if (w[k].kind == W_KNOB)
				break; /* knobs: any order; offer the rest below */
			else
				ok = w[k].kind == W_REST || take(&w[k], tok[k], &a) == 0;
		}
		if (!ok)
			continue;
		if ((unsigned)k < nw && w[k].kind == W_KNOB) {
			for (unsigned j = (unsigned)k; j < nw; j++) {
				char kb[TP_CMD_CAND_LEN];
				int kl = snprintf(kb, sizeof(kb), "%.*s=", (int)w[j].keylen, w[j].key);

				if (kl > 0 && strncmp(kb, partial, plen) == 0)
					cand_add(out, max, &n, kb, (size_t)kl);
			}
			continue;
		}
		if ((unsigned)nt >= nw)
			continue;
		const struct word *x = &w[nt];

		if (x->kind == W_LIT) {
			const char *p = x->s, *end = x->s + x->len;

			while (p < end) {
				const char *bar = memchr(p, '|', (size_t)(end - p));
				size_t l = bar ? (size_t)(bar - p) : (size_t)(end - p);

				if (l >= plen && memcmp(p, partial, plen) == 0 && offered(t[i].id, (unsigned)nt, p, l))
					cand_add(out, max, &n, p, l);
				p += l + 1;
			}
		} else if (x->kind == W_PORT || x->kind == W_PORT_ALL) {
			for (unsigned j = 0; j < nb_ports; j++) {
				char pb[8];
				int l = snprintf(pb, sizeof(pb), "%u", ports[j]);

				if (l > 0 && strncmp(pb, partial, plen) == 0)
					cand_add(out, max, &n, pb, (size_t)l);
			}
			if (x->kind == W_PORT_ALL && strncmp("all", partial, plen) == 0)
				cand_add(out, max, &n, "all", 3);
		} else if (x->kind == W_LEVEL) {
			static const char *const lv[] = { "error", "warning", "notice", "info", "debug" };

			for (unsigned j = 0; j < 5; j++)
				if (strncmp(lv[j], partial, plen) == 0)
					cand_add(out, max, &n, lv[j], strlen(lv[j]));
		}
	}
	return n;
}

/* ---- RSS arguments ---------------------------------------------------------------- */

/* A decimal number at *p, up to @p max; *p moves past it. */
static int dec_at(const char **p, unsigned long max, unsigned long *v)
{
	const char *s = *p;

	*v = 0;
	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		*v = *v * 10 + (unsigned long)(*s - '0');
		if (*v > max)
			return -1;
	}
	*p = s;
	return 0;
}

int tp_cmd_parse_reta(const char *s, uint16_t size, uint16_t *reta, uint64_t *mask, char *err,
		      size_t errlen)
{
	const char *p = s;

	if (errlen)
		err[0] = '\0';
	if (*p == '\0')
		goto bad;
	while (*p) {
		unsigned long ent, q;

		if (*p++ != '(')
			goto bad;
		if (dec_at(&p, 0xffff, &ent) || *p++ != ',')
			goto bad;
		if (dec_at(&p, 0xffff, &q) || *p++ != ')')
			goto bad;
		if (ent >= size) {
			snprintf(err, errlen, "entry %lu; the port's table has %u (0..%u)", ent, size,
				 size ? size - 1 : 0);
			return -1;
		}
		reta[ent] = (uint16_t)q;
		mask[ent / 64] |= 1ull << (ent % 64);
		if (*p == ',' && p[1] != '\0')
			p++;
		else if (*p)
			goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad list '%s'; expected (entry,queue)[,(entry,queue)...], e.g. (0,1),(1,0)", s);
	return -1;
}

int tp_cmd_parse_masks(const char *s, uint64_t *mask, unsigned max, unsigned *nb, char *err,
		       size_t errlen)
{
	const char *p = s;
	bool paren = *p == '(';

	*nb = 0;
	if (paren)
		p++;
	while (*p && *p != ')') {
		uint64_t m = 0;
		unsigned digits = 0;

		if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		for (; app_hexval(*p) >= 0; p++) {
			if (++digits > 16)
				goto bad;
			m = m << 4 | (uint64_t)app_hexval(*p);
		}
		if (digits == 0 || *nb == max)
			goto bad;
		mask[(*nb)++] = m;
		if (*p == ',' && p[1] != '\0' && p[1] != ')')
			p++;
		else if (*p && *p != ')')
			goto bad;
	}
	if ((*p == ')') != paren || (*p == ')' && p[1] != '\0') || *nb == 0)
		goto bad;
	return 0;
bad:
	snprintf(err, errlen, "bad masks '%s'; expected %u hex mask%s (64 entries each, comma-separated), e.g. 0xffffffffffffffff",
		 s, max, max == 1 ? "" : "s");
	return -1;
}

int tp_cmd_parse_hexkey(const char *s, uint8_t *key, size_t len, char *err, size_t errlen)
{
	size_t n = strlen(s);

	if (n != 2 * len) {
		snprintf(err, errlen, "the key is %zu hex digits; this port takes %zu bytes, %zu hex digits", n, len,
			 2 * len);
		return -1;
	}
	for (size_t i = 0; i < n; i += 2) {
		int hi = app_hexval(s[i]), lo = app_hexval(s[i + 1]);

		if (hi < 0 || lo < 0) {
			snprintf(err, errlen, "'%c%c' at digit %zu is not hex (0-9, a-f)", s[i], s[i + 1], i);
			return -1;
		}
		key[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}
