/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's options (opts.h): one table holds unic's options and every
 * option dpdk-testpmd 22.11 documents. Each entry says whether it takes a
 * value, how the value is checked, and what unic does with it: an action
 * of its own, a notice (unic does the thing another way, or has nothing to
 * turn off), or a refusal naming what unic lacks. docs/testpmd.md lists the
 * same states.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "app_opts.h"
#include "opts.h"

enum act {
	O_INTERACTIVE, O_FILE, O_CONTINUE, O_AUTO_START, O_HELP, O_TX_FIRST, O_STATS_PERIOD,
	O_NB_CORES, O_NB_PORTS, O_PORTMASK, O_PORTLIST, O_BURST, O_RXQ, O_TXQ, O_RXD, O_TXD,
	O_FWD_MODE, O_RX_MODE, O_TOPOLOGY, O_TXPKTS, O_TOTAL_MBUFS, O_MBUF_SIZE, O_MAX_PKT_LEN,
	O_RSS_IP, O_RSS_UDP, O_DISABLE_RSS, O_ETH_PEER, O_PEERS_FILE, O_NO_LSC, O_NO_DEV_START,
	O_RECORD_CYCLES, O_TX_RETRY, O_TX_DELAY, O_NOISY_BUFSZ, O_NOISY_FLUSH, O_NOISY_MEM,
	O_NOISY_WRITES, O_NOISY_READS, O_NOISY_RW, O_NUMA, O_NO_NUMA, O_SOCKET_NUM,
	O_NOTE,   /* accepted; one notice line says what unic does instead */
	O_REFUSE, /* refused; the reason names what unic lacks */
};

/* How a value is checked (O_NOTE and O_REFUSE entries: before the notice). */
enum vcheck { V_NONE, V_UINT, V_HEX, V_ANY, V_TUPLES };

struct opt_def {
	const char *name;  /* without the leading "--" */
	char shrt;         /* short form, or 0 */
	bool arg;          /* takes a value */
	enum act act;
	enum vcheck check;
	const char *why;   /* O_NOTE: what unic does instead; O_REFUSE: why not */
};

#define NOTE(n, a, c, w) { n, 0, a, O_NOTE, c, w }
#define REFUSE(n, a, c, w) { n, 0, a, O_REFUSE, c, w }

static const char thresholds[] =
	"unic's drivers set their descriptor thresholds themselves (no per-queue threshold setting); ignored";
static const char numa[] =
	"each port's pool and rings go on the port's NUMA node (--no-numa: none asked, node 0; "
	"--socket-num N: node N); the per-port and per-ring choice is ignored";
static const char no_split[] =
	"unic's ports have no buffer split (one pool per rx queue, packets in one or more whole buffers)";

static const struct opt_def opt_table[] = {
	/* unic's own, and DPDK's that unic honours. */
	{ "interactive", 'i', false, O_INTERACTIVE, V_NONE, NULL },
	{ "cmdline-file", 'f', true, O_FILE, V_ANY, NULL },
	{ "continue", 0, false, O_CONTINUE, V_NONE, NULL },
	{ "auto-start", 'a', false, O_AUTO_START, V_NONE, NULL },
	{ "help", 'h', false, O_HELP, V_NONE, NULL },
	{ "tx-first", 0, false, O_TX_FIRST, V_NONE, NULL },
	{ "stats-period", 0, true, O_STATS_PERIOD, V_UINT, NULL },
	{ "nb-cores", 0, true, O_NB_CORES, V_UINT, NULL },
	{ "nb-ports", 0, true, O_NB_PORTS, V_UINT, NULL },
	{ "portmask", 0, true, O_PORTMASK, V_HEX, NULL },
	{ "portlist", 0, true, O_PORTLIST, V_ANY, NULL },
	{ "burst", 0, true, O_BURST, V_UINT, NULL },
	{ "rxq", 0, true, O_RXQ, V_UINT, NULL },
	{ "txq", 0, true, O_TXQ, V_UINT, NULL },
	{ "rxd", 0, true, O_RXD, V_UINT, NULL },
	{ "txd", 0, true, O_TXD, V_UINT, NULL },
	{ "forward-mode", 0, true, O_FWD_MODE, V_ANY, NULL },
	{ "rx-mode", 0, true, O_RX_MODE, V_ANY, NULL },
	{ "port-topology", 0, true, O_TOPOLOGY, V_ANY, NULL },
	{ "txpkts", 0, true, O_TXPKTS, V_ANY, NULL },
	{ "total-num-mbufs", 0, true, O_TOTAL_MBUFS, V_UINT, NULL },
	{ "mbuf-size", 0, true, O_MBUF_SIZE, V_ANY, NULL },
	{ "max-pkt-len", 0, true, O_MAX_PKT_LEN, V_UINT, NULL },
	{ "rss-ip", 0, false, O_RSS_IP, V_NONE, NULL },
	{ "rss-udp", 0, false, O_RSS_UDP, V_NONE, NULL },
	{ "disable-rss", 0, false, O_DISABLE_RSS, V_NONE, NULL },
	{ "eth-peer", 0, true, O_ETH_PEER, V_ANY, NULL },
	{ "eth-peers-configfile", 0, true, O_PEERS_FILE, V_ANY, NULL },
	{ "no-lsc-interrupt", 0, false, O_NO_LSC, V_NONE, NULL },
	{ "disable-device-start", 0, false, O_NO_DEV_START, V_NONE, NULL },
	/* tpengines: cycle recording, tx retry, the noisy engine */
	{ "record-core-cycles", 0, false, O_RECORD_CYCLES, V_NONE, NULL },
	{ "burst-tx-retry-num", 0, true, O_TX_RETRY, V_UINT, NULL },
	{ "burst-tx-delay-time", 0, true, O_TX_DELAY, V_UINT, NULL },
	{ "noisy-tx-sw-buffer-size", 0, true, O_NOISY_BUFSZ, V_UINT, NULL },
	{ "noisy-tx-sw-buffer-flushtime", 0, true, O_NOISY_FLUSH, V_UINT, NULL },
	{ "noisy-lkup-memory", 0, true, O_NOISY_MEM, V_UINT, NULL },
	{ "noisy-lkup-num-writes", 0, true, O_NOISY_WRITES, V_UINT, NULL },
	{ "noisy-lkup-num-reads", 0, true, O_NOISY_READS, V_UINT, NULL },
	{ "noisy-lkup-num-reads-writes", 0, true, O_NOISY_RW, V_UINT, NULL },
	/* where the pools and rings go (tp_port_node()) */
	{ "numa", 0, false, O_NUMA, V_NONE, NULL },
	{ "no-numa", 0, false, O_NO_NUMA, V_NONE, NULL },
	{ "socket-num", 0, true, O_SOCKET_NUM, V_UINT, NULL },

	/* DPDK's that unic takes another way: accepted with a notice. */
	NOTE("display-xstats", true, V_ANY, "the periodic statistics show the NIC counters; 'show port xstats N' shows every extended statistic; ignored"),
	NOTE("coremask", true, V_HEX, "the forwarding threads run on the cores of -l after the first (the main one); give the cores with -l; ignored"),
	NOTE("port-numa-config", true, V_TUPLES, numa),
	NOTE("ring-numa-config", true, V_TUPLES, numa),
	NOTE("mbcache", true, V_UINT, "each pool has a per-thread cache of 256 packets; ignored"),
	NOTE("rxpt", true, V_UINT, thresholds),
	NOTE("rxht", true, V_UINT, thresholds),
	NOTE("rxwt", true, V_UINT, thresholds),
	NOTE("rxfreet", true, V_UINT, thresholds),
	NOTE("txpt", true, V_UINT, thresholds),
	NOTE("txht", true, V_UINT, thresholds),
	NOTE("txwt", true, V_UINT, thresholds),
	NOTE("txfreet", true, V_UINT, thresholds),
	NOTE("txrst", true, V_UINT, thresholds),
	NOTE("no-flush-rx", false, V_NONE, "unic-testpmd does not flush the rx queues before forwarding; nothing to turn off"),
	NOTE("disable-link-check", false, V_NONE, "unic-testpmd does not wait for the links at start or stop; nothing to turn off"),
	NOTE("no-rmv-interrupt", false, V_NONE, "a device removal is always handled (the port is detached, the others go on)"),
	NOTE("hot-plug", false, V_NONE, "device removal is always watched; 'port attach' adds a device"),
	NOTE("record-burst-stats", false, V_NONE, "'show port napi N' reports each rx queue's polls, empty polls and packets instead of burst sizes"),
	NOTE("print-event", true, V_ANY, "link changes and device removals are always printed (--no-lsc-interrupt silences link changes); ignored"),
	NOTE("mask-event", true, V_ANY, "link changes and device removals are always printed (--no-lsc-interrupt silences link changes); ignored"),
	NOTE("mlockall", false, V_NONE, "packet memory is in hugepages, which are never swapped; the rest is not locked"),
	NOTE("no-mlockall", false, V_NONE, "unic-testpmd locks no memory but its hugepages"),
	NOTE("mp-alloc", true, V_ANY, "pools are always made in the environment's DMA memory (hugepages, or --no-huge); ignored"),
	NOTE("no-iova-contig", false, V_NONE, "pools are made in the environment's DMA memory, IOVA per segment; ignored"),
	NOTE("enable-drop-en", false, V_NONE, "a full rx queue always drops and counts the packet (RX-missed); nothing to turn on"),
	NOTE("rx-mq-mode", true, V_HEX, "multi-queue receive is RSS only (no DCB, no VMDq); --disable-rss turns it off; ignored"),
	NOTE("enable-scatter", false, V_NONE, "a port takes frames up to its MTU into one buffer or a chain, as its driver does; nothing to turn on"),
	NOTE("vxlan-gpe-port", true, V_UINT, "the csum engine parses no tunnels; ignored"),
	NOTE("geneve-parsed-port", true, V_UINT, "the csum engine parses no tunnels; ignored"),
	NOTE("enable-hw-vlan", false, V_NONE, "VLAN offloads are set port by port: 'vlan set strip|filter on N' (port stopped); ignored"),
	NOTE("enable-hw-vlan-filter", false, V_NONE, "VLAN offloads are set port by port: 'vlan set filter on N' (port stopped); ignored"),
	NOTE("enable-hw-vlan-strip", false, V_NONE, "VLAN offloads are set port by port: 'vlan set strip on N' (port stopped); ignored"),
	NOTE("enable-rx-cksum", false, V_NONE, "the csum engine reads the rx checksum flags of every port that sets them; nothing to turn on"),

	/* DPDK's that unic refuses: it lacks the capability. */
	REFUSE("num-procs", true, V_UINT, "unic has no multi-process mode (one process owns its ports)"),
	REFUSE("proc-id", true, V_UINT, "unic has no multi-process mode (one process owns its ports)"),
	REFUSE("max-lro-pkt-size", true, V_UINT, "no unic port offers LRO"),
	REFUSE("enable-lro", false, V_NONE, "no unic port offers LRO"),
	REFUSE("disable-crc-strip", false, V_NONE, "unic's ports always strip the Ethernet CRC"),
	REFUSE("enable-rx-timestamp", false, V_NONE, "no unic port timestamps received packets"),
	REFUSE("enable-hw-vlan-extend", false, V_NONE, "no unic port offers QinQ (extended VLAN)"),
	REFUSE("enable-hw-qinq-strip", false, V_NONE, "no unic port offers QinQ strip"),
	REFUSE("rss-level-inner", false, V_NONE, "unic's RSS hashes the outer headers only (no tunnel parsing)"),
	REFUSE("rss-level-outer", false, V_NONE, "unic's RSS has no hash levels (it hashes the outer headers)"),
	REFUSE("hairpinq", true, V_UINT, "no unic port has hairpin queues"),
	REFUSE("hairpin-mode", true, V_HEX, "no unic port has hairpin queues"),
	REFUSE("flowgen-clones", true, V_UINT, "the flowgen engine builds every packet (no clones)"),
	REFUSE("flowgen-flows", true, V_UINT, "the flowgen engine sends 1024 flows, a fixed number"),
	REFUSE("rxoffs", true, V_ANY, no_split),
	REFUSE("rxpkts", true, V_ANY, no_split),
	REFUSE("rxhdrs", true, V_ANY, no_split),
	REFUSE("multi-rx-mempool", false, V_NONE, no_split),
	REFUSE("txonly-multi-flow", false, V_NONE, "txonly sends one flow; --forward-mode=flowgen sends 1024"),
	REFUSE("tx-ip", true, V_ANY, "txonly sends from 198.18.0.1 to 198.18.0.2, fixed addresses"),
	REFUSE("tx-udp", true, V_ANY, "txonly sends from UDP port 9 to 9, fixed ports"),
	REFUSE("eth-link-speed", true, V_UINT, "unic-testpmd does not force link speeds (the link is what the driver negotiates)"),
	REFUSE("rxq-share", true, V_ANY, "no unic port has shared rx queues"),
	REFUSE("bitrate-stats", true, V_UINT, "unic has no bit-rate library; 'show port stats' prints Rx-bps and Tx-bps"),
	REFUSE("latencystats", true, V_UINT, "unic has no latency-statistics library; unic-pktgen measures latency"),
	REFUSE("flow-isolate-all", false, V_NONE, "unic has no flow API"),
	REFUSE("tx-offloads", true, V_HEX, "offloads are set by name, port by port ('csum set', 'tso set', 'tx_vlan set'), not as a DPDK bitmask"),
	REFUSE("rx-offloads", true, V_HEX, "offloads are set by name, port by port ('vlan set', ...), not as a DPDK bitmask"),
};

#define NB_OPTS (sizeof(opt_table) / sizeof(opt_table[0]))

static const char *const engines[] = { "io", "mac", "macswap", "rxonly", "txonly", "flowgen", "csum",
					"icmpecho", "5tswap", "noisy" };
/* DPDK's engines unic lacks, each with the capability it needs. */
static const struct { const char *name, *why; } dpdk_engines[] = {
	{ "ieee1588", "no unic port timestamps PTP frames" },
	{ "tm", "no traffic manager (rte_tm)" },
	{ "shared-rxq", "no unic port shares rx queues between ports" },
	{ "shared_rxq", "no unic port shares rx queues between ports" },
};
static const char *const modes[] = { "poll", "interrupt", "hybrid" };
static const char *const topologies[] = { "paired", "chained", "loop" };

/* ---- values ------------------------------------------------------------------ */

static int bad(char *err, size_t errlen, const char *opt, const char *v, const char *expected)
{
	snprintf(err, errlen, "option %s: bad value '%s'; expected %s", opt, v, expected);
	return -EINVAL;
}

static int parse_hex(const char *opt, const char *v, uint64_t *out, char *err, size_t errlen)
{
	const char *p = v;
	uint64_t x = 0;
	unsigned digits = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; *p; p++, digits++) {
		int d = isdigit((unsigned char)*p) ? *p - '0' :
			(*p >= 'a' && *p <= 'f') ? *p - 'a' + 10 : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10 : -1;

		if (d < 0 || digits == 16)
			return bad(err, errlen, opt, v, "a hexadecimal mask such as 0x3 (at most 16 digits)");
		x = x << 4 | (uint64_t)d;
	}
	if (digits == 0)
		return bad(err, errlen, opt, v, "a hexadecimal mask such as 0x3 (at most 16 digits)");
	*out = x;
	return 0;
}

static int pick(const char *opt, const char *v, const char *const *names, unsigned n, int *out,
		char *err, size_t errlen)
{
	size_t l = 0;

	for (unsigned i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	l = (size_t)snprintf(err, errlen, "option %s: unknown value '%s'; expected ", opt, v);
	for (unsigned i = 0; i < n && l < errlen; i++)
		l += (size_t)snprintf(err + l, errlen - l, "%s%s", i ? ", " : "", names[i]);
	return -EINVAL;
}

/* (a,b)[,(a,b)...] of whole numbers, as --port-numa-config and --ring-numa-config take. */
static int check_tuples(const char *opt, const char *v, char *err, size_t errlen)
{
	const char *p = v;

	do {
		unsigned nums = 0;

		if (*p++ != '(')
			goto bad;
		for (;;) {
			if (!isdigit((unsigned char)*p))
				goto bad;
			while (isdigit((unsigned char)*p))
				p++;
			nums++;
			if (*p == ')')
				break;
			if (*p++ != ',')
				goto bad;
		}
		p++;
		if (nums < 2 || nums > 3)
			goto bad;
	} while (*p == ',' && *++p);
	if (*p == '\0')
		return 0;
bad:
	return bad(err, errlen, opt, v, "(port,socket)[,(port,socket)...] or (port,flag,socket)[,...]");
}

static int parse_portlist(const char *opt, const char *v, uint64_t *mask, FILE *notes, char *err,
			  size_t errlen)
{
	const char *p = v;
	int last = -1;
	bool ordered = true;

	*mask = 0;
	while (*p) {
		unsigned long a, b;
		char *e;

		if (!isdigit((unsigned char)*p))
			goto bad;
		a = strtoul(p, &e, 10);
		b = a;
		p = e;
		if (*p == '-') {
			if (!isdigit((unsigned char)*++p))
				goto bad;
			b = strtoul(p, &e, 10);
			p = e;
		}
		if (a > b || b >= TP_OPTS_MAX_PORTS)
			goto bad;
		if ((int)a <= last)
			ordered = false;
		last = (int)b;
		for (unsigned long i = a; i <= b; i++)
			*mask |= 1ull << i;
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (*mask == 0)
		goto bad;
	if (!ordered && notes)
		fprintf(notes, "unic-testpmd: note: --portlist=%s: the ports forward in id order\n", v);
	return 0;
bad:
	return bad(err, errlen, opt, v, "port ids 0..63 and ranges, such as 0,1 or 0-2");
}

static int parse_txpkts(const char *opt, const char *v, struct tp_opts *o, char *err, size_t errlen)
{
	struct tp_cmd cmd;
	char line[TP_CMD_LINE_MAX], e[256];

	/* The same grammar as the command "set txpkts". */
	if (snprintf(line, sizeof(line), "set txpkts %s", v) >= (int)sizeof(line) || strchr(v, ' ') ||
	    tp_cmd_parse(line, &cmd, e, sizeof(e)) != TP_PARSE_OK || cmd.def->id != TP_CMD_SET_TXPKTS)
		return bad(err, errlen, opt, v, "segment sizes 1..65535, comma-separated, at most 8 (64 or 64,128)");
	if (cmd.arg[2].sizes[0] < 42)
		return bad(err, errlen, opt, v, "a first segment of 42 bytes at least (Ethernet, IPv4 and UDP headers)");
	memcpy(o->txpkts, cmd.arg[2].sizes, sizeof(o->txpkts));
	o->nb_txpkts = cmd.arg[2].nb_sizes;
	return 0;
}

static int parse_peer(const char *opt, const char *v, struct tp_opts *o, char *err, size_t errlen)
{
	const char *comma = strchr(v, ',');
	char num[8];
	uint64_t port;

	if (comma == NULL || comma == v || (size_t)(comma - v) >= sizeof(num))
		return bad(err, errlen, opt, v, "PORT,MAC such as 1,02:00:00:00:00:01");
	snprintf(num, sizeof(num), "%.*s", (int)(comma - v), v);
	if (app_parse_u64(opt, num, 0, TP_OPTS_MAX_PORTS - 1, &port, err, errlen) != 0)
		return bad(err, errlen, opt, v, "PORT,MAC with PORT 0..63");
	if (app_parse_mac(comma + 1, o->peer[port]) != 0)
		return bad(err, errlen, opt, v, "PORT,MAC with MAC as xx:xx:xx:xx:xx:xx");
	o->peer_set |= 1ull << port;
	return 0;
}

/* One address a line, for ports 0, 1, 2... (DPDK's format). */
static int parse_peers_file(const char *opt, const char *path, struct tp_opts *o, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[256];
	unsigned n = 0;

	if (f == NULL) {
		snprintf(err, errlen, "option %s: cannot open %s: %s", opt, path, strerror(errno));
		return -EINVAL;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);

		while (l && isspace((unsigned char)line[l - 1]))
			line[--l] = '\0';
		if (n == TP_OPTS_MAX_PORTS) {
			snprintf(err, errlen, "option %s: %s: line %u: more addresses than ports (at most %d)", opt,
				 path, n + 1, TP_OPTS_MAX_PORTS);
			fclose(f);
			return -EINVAL;
		}
		if (app_parse_mac(line, o->peer[n]) != 0) {
			snprintf(err, errlen, "option %s: %s: line %u: bad address '%.40s'; expected xx:xx:xx:xx:xx:xx, one a line for ports 0, 1, ...",
				 opt, path, n + 1, line);
			fclose(f);
			return -EINVAL;
		}
		o->peer_set |= 1ull << n;
		n++;
	}
	fclose(f);
	if (n == 0) {
		snprintf(err, errlen, "option %s: %s holds no address; expected xx:xx:xx:xx:xx:xx, one a line", opt,
			 path);
		return -EINVAL;
	}
	return 0;
}

/* ---- matching ---------------------------------------------------------------- */

/* The entry for long name @p name (@p len bytes): exact, else a unique prefix. */
static const struct opt_def *find_long(const char *name, size_t len, char *err, size_t errlen)
{
	const struct opt_def *hit = NULL;
	unsigned hits = 0;

	for (unsigned i = 0; i < NB_OPTS; i++)
		if (strlen(opt_table[i].name) == len && memcmp(opt_table[i].name, name, len) == 0)
			return &opt_table[i];
	for (unsigned i = 0; i < NB_OPTS; i++)
		if (len && strncmp(opt_table[i].name, name, len) == 0) {
			hit = &opt_table[i];
			hits++;
		}
	if (hits == 1)
		return hit;
	if (hits == 0) {
		snprintf(err, errlen, "unknown option '--%.*s'; see --help", (int)len, name);
		return NULL;
	}
	size_t l = (size_t)snprintf(err, errlen, "option '--%.*s' is ambiguous; possibilities:", (int)len, name);

	for (unsigned i = 0; i < NB_OPTS && l < errlen; i++)
		if (strncmp(opt_table[i].name, name, len) == 0)
			l += (size_t)snprintf(err + l, errlen - l, " --%s", opt_table[i].name);
	return NULL;
}

static const struct opt_def *find_short(char c)
{
	for (unsigned i = 0; i < NB_OPTS; i++)
		if (opt_table[i].shrt == c)
			return &opt_table[i];
	return NULL;
}

static int check_value(const struct opt_def *d, const char *opt, const char *v, char *err, size_t errlen)
{
	uint64_t x;

	switch (d->check) {
	case V_UINT:
		return app_parse_u64(opt, v, 0, UINT32_MAX, &x, err, errlen);
	case V_HEX:
		return parse_hex(opt, v, &x, err, errlen);
	case V_TUPLES:
		return check_tuples(opt, v, err, errlen);
	case V_ANY:
		if (v[0] == '\0')
			return bad(err, errlen, opt, v, "a value");
		return 0;
	case V_NONE:
		break;
	}
	return 0;
}

static int apply(struct tp_opts *o, const struct opt_def *d, const char *opt, const char *v, FILE *notes,
		 char *err, size_t errlen)
{
	int rc = check_value(d, opt, v, err, errlen), k;

	if (rc)
		return rc;
	switch (d->act) {
	case O_INTERACTIVE:
		o->interactive = true;
		return 0;
	case O_FILE:
		o->file = v;
		return 0;
	case O_CONTINUE:
		o->cont = true;
		return 0;
	case O_AUTO_START:
		o->auto_start = true;
		return 0;
	case O_HELP:
		o->help = true;
		return 0;
	case O_TX_FIRST:
		o->tx_first = true;
		return 0;
	case O_STATS_PERIOD:
		return app_parse_u64(opt, v, 0, 86400, &o->stats_period, err, errlen);
	case O_NB_CORES:
		return app_parse_u64(opt, v, 1, 64, &o->nbcore, err, errlen);
	case O_NB_PORTS:
		return app_parse_u64(opt, v, 1, TP_OPTS_MAX_PORTS, &o->nb_ports, err, errlen);
	case O_PORTMASK:
		rc = parse_hex(opt, v, &o->portmask, err, errlen);
		if (rc == 0 && o->portmask == 0)
			return bad(err, errlen, opt, v, "a mask with one port at least, such as 0x3");
		return rc;
	case O_PORTLIST:
		return parse_portlist(opt, v, &o->portmask, notes, err, errlen);
	case O_BURST:
		return app_parse_u64(opt, v, 1, 256, &o->burst, err, errlen);
	case O_RXQ:
		return app_parse_u64(opt, v, 1, 16, &o->rxq, err, errlen);
	case O_TXQ:
		return app_parse_u64(opt, v, 1, 16, &o->txq, err, errlen);
	case O_RXD:
		return app_parse_u64(opt, v, 1, 32768, &o->rxd, err, errlen);
	case O_TXD:
		return app_parse_u64(opt, v, 1, 32768, &o->txd, err, errlen);
	case O_FWD_MODE:
		for (unsigned i = 0; i < sizeof(dpdk_engines) / sizeof(dpdk_engines[0]); i++)
			if (strcmp(v, dpdk_engines[i].name) == 0) {
				snprintf(err, errlen, "option %s: '%s' is a DPDK engine unic-testpmd does not have (%s); "
					 "its engines: io, mac, macswap, rxonly, txonly, flowgen, csum, icmpecho, 5tswap, noisy",
					 opt, v, dpdk_engines[i].why);
				return -EINVAL;
			}
		return pick(opt, v, engines, 10, &o->engine, err, errlen);
	case O_RX_MODE:
		return pick(opt, v, modes, 3, &o->mode, err, errlen);
	case O_TOPOLOGY:
		rc = pick(opt, v, topologies, 3, &k, err, errlen);
		if (rc == 0)
			o->topology = (enum tp_topology)k;
		return rc;
	case O_TXPKTS:
		return parse_txpkts(opt, v, o, err, errlen);
	case O_TOTAL_MBUFS:
		/* DPDK takes N > 1024. */
		return app_parse_u64(opt, v, 1025, UINT32_MAX / 2, &o->total_mbufs, err, errlen);
	case O_MBUF_SIZE:
		if (strchr(v, ','))
			return bad(err, errlen, opt, v, "one size: unic's ports have no buffer split, so no extra pools");
		/* Headroom (128) included, as DPDK's: 192 leaves 64 bytes of data. */
		return app_parse_u64(opt, v, 192, 65535, &o->mbuf_size, err, errlen);
	case O_MAX_PKT_LEN:
		/* DPDK takes N >= 64; the MTU is N - 18 (Ethernet header and CRC). */
		return app_parse_u64(opt, v, 64, 65535, &o->max_pkt_len, err, errlen);
	case O_RSS_IP:
		o->rss = TP_RSS_IP;
		return 0;
	case O_RSS_UDP:
		o->rss = TP_RSS_UDP;
		return 0;
	case O_DISABLE_RSS:
		o->rss = TP_RSS_OFF;
		return 0;
	case O_ETH_PEER:
		return parse_peer(opt, v, o, err, errlen);
	case O_PEERS_FILE:
		return parse_peers_file(opt, v, o, err, errlen);
	case O_NO_LSC:
		o->no_lsc = true;
		return 0;
	case O_NO_DEV_START:
		o->no_dev_start = true;
		return 0;
	case O_NUMA:
		o->no_numa = false;
		return 0;
	case O_NO_NUMA:
		o->no_numa = true;
		return 0;
	case O_SOCKET_NUM:
		/* Whether node N exists is the pool's check (at port start). */
		o->socket_set = true;
		return app_parse_u64(opt, v, 0, 1023, &o->socket_num, err, errlen);
	case O_RECORD_CYCLES:
		o->record_cycles = true;
		return 0;
	case O_TX_RETRY:
		o->tx_retry_set = true;
		return app_parse_u64(opt, v, 0, UINT32_MAX, &o->tx_retry_num, err, errlen);
	case O_TX_DELAY:
		o->tx_delay_set = true;
		/* At most a second between retries: a thread retrying longer
		 * would not see 'stop' for minutes. */
		return app_parse_u64(opt, v, 0, 1000000, &o->tx_delay_us, err, errlen);
	case O_NOISY_BUFSZ:
		return app_parse_u64(opt, v, 0, 1u << 20, &o->noisy_bufsz, err, errlen);
	case O_NOISY_FLUSH:
		return app_parse_u64(opt, v, 0, 86400000, &o->noisy_flush_ms, err, errlen);
	case O_NOISY_MEM:
		return app_parse_u64(opt, v, 0, 65536, &o->noisy_lkup_mb, err, errlen);
	case O_NOISY_WRITES:
		return app_parse_u64(opt, v, 0, UINT32_MAX, &o->noisy_writes, err, errlen);
	case O_NOISY_READS:
		return app_parse_u64(opt, v, 0, UINT32_MAX, &o->noisy_reads, err, errlen);
	case O_NOISY_RW:
		return app_parse_u64(opt, v, 0, UINT32_MAX, &o->noisy_rw, err, errlen);
	case O_NOTE:
		if (notes)
			fprintf(notes, "unic-testpmd: note: %s%s%s: %s\n", opt, v ? "=" : "", v ? v : "", d->why);
		return 0;
	case O_REFUSE:
		snprintf(err, errlen, "option %s: not supported: %s", opt, d->why);
		return -ENOTSUP;
	}
	return 0;
}

int tp_opts_parse(struct tp_opts *o, int argc, char **argv, FILE *notes, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->engine = -1;
	o->mode = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		const struct opt_def *d;
		char opt[64];
		int rc;

		if (a[0] == '-' && a[1] == '-' && a[2] != '\0') {
			const char *eqs = strchr(a, '=');
			size_t len = eqs ? (size_t)(eqs - a - 2) : strlen(a + 2);

			d = find_long(a + 2, len, err, errlen);
			if (d == NULL)
				return -EINVAL;
			if (eqs)
				v = eqs + 1;
		} else if (a[0] == '-' && a[1] != '-' && a[1] != '\0') {
			d = find_short(a[1]);
			if (d == NULL) {
				snprintf(err, errlen, "unknown option '%s'; see --help", a);
				return -EINVAL;
			}
			if (a[2] != '\0') {
				if (!d->arg) {
					snprintf(err, errlen, "option -%c takes no value; got '%s'", a[1], a);
					return -EINVAL;
				}
				v = a + 2;
			}
		} else {
			snprintf(err, errlen, "unexpected argument '%s' (options start with '-'); see --help", a);
			return -EINVAL;
		}
		snprintf(opt, sizeof(opt), "--%s", d->name);
		if (!d->arg && v != NULL) {
			snprintf(err, errlen, "option %s takes no value; got '%s'", opt, a);
			return -EINVAL;
		}
		if (d->arg && v == NULL) {
			if (i + 1 >= argc) {
				snprintf(err, errlen, "option %s: missing value at the end of the command line", opt);
				return -EINVAL;
			}
			if (argv[i + 1][0] == '-' && argv[i + 1][1] != '\0') {
				snprintf(err, errlen, "option %s: missing value, got the option '%s' instead "
					 "(a value that starts with '-' needs the --opt=value form)", opt, argv[i + 1]);
				return -EINVAL;
			}
			v = argv[++i];
		}
		rc = apply(o, d, opt, v, notes, err, errlen);
		if (rc)
			return rc == -ENOTSUP ? -EINVAL : rc;
	}
	if (o->tx_first && o->interactive && !o->auto_start && notes)
		fprintf(notes, "unic-testpmd: note: --tx-first: applies to the start made at start-up "
			"(without -i, or with --auto-start); at the prompt, 'start tx_first' does it\n");
	if (o->stats_period && o->interactive && notes)
		fprintf(notes, "unic-testpmd: note: --stats-period: applies without -i (as in DPDK); "
			"at the prompt, 'show port stats all' shows them\n");
	return 0;
}

void tp_opts_usage(FILE *f)
{
	fprintf(f,
		"Options (as dpdk-testpmd's; before or after '--'):\n"
		"  -i, --interactive        the prompt, also after -f FILE (default when stdin is a terminal)\n"
		"  -f, --cmdline-file FILE  run the commands in FILE, then quit (unless -i)\n"
		"      --continue           batch: run every line even after a failure (exit status 1 if any failed)\n"
		"  -a, --auto-start         start forwarding once the ports are up\n"
		"      --tx-first           the start made at start-up sends a burst on each stream first\n"
		"      --stats-period N     headless: start forwarding, print the port statistics every N\n"
		"                           seconds until SIGINT or SIGTERM (without -i)\n"
		"      --nb-cores N         forwarding threads, 1..64 (default: the worker cores of -l, else 1)\n"
		"      --nb-ports N         forward on the first N ports (of --portmask's)\n"
		"      --portmask MASK      ports that forward, hexadecimal (0x3); --portlist 0,1 or 0-2 the same\n"
		"      --port-topology T    paired (0<->1, 2<->3; default), chained (0->1->2->0) or loop (each to itself)\n"
		"      --eth-peer N,MAC     the mac/csum engines' destination address on port N's packets\n"
		"      --eth-peers-configfile FILE  one address a line, for ports 0, 1, ...\n"
		"      --burst N            packets per burst, 1..256 (default 32)\n"
		"      --rxq N, --txq N     queues per port, 1..16 (default 1)\n"
		"      --rxd N, --txd N     descriptors per queue (default: the driver's)\n"
		"      --forward-mode ENG   io, mac, macswap, rxonly, txonly, flowgen, csum,\n"
		"                           icmpecho, 5tswap, noisy (default io)\n"
		"      --burst-tx-retry-num N, --burst-tx-delay-time US  'set fwd ENG retry': tries of a tx\n"
		"                           burst and the wait between them (default 64, 1 us)\n"
		"      --noisy-tx-sw-buffer-size N, --noisy-tx-sw-buffer-flushtime MS  the noisy engine's\n"
		"                           tx FIFO per stream and when it is flushed (default none)\n"
		"      --noisy-lkup-memory MB, --noisy-lkup-num-writes|-reads|-reads-writes N  its\n"
		"                           simulated lookups per packet in a table of MB (default none)\n"
		"      --record-core-cycles CPU cycles per packet in the forward statistics\n"
		"      --rx-mode MODE       poll, interrupt or hybrid (default hybrid)\n"
		"      --txpkts SIZES       txonly/flowgen segment sizes, e.g. 64 or 64,128\n"
		"      --total-num-mbufs N  packets in each port's pool (default: what its queues need)\n"
		"      --no-numa, --socket-num N  each port's pool and rings on no node in particular (node 0),\n"
		"                           or on node N (default, --numa: on the port's node)\n"
		"      --mbuf-size N        buffer size, 128 bytes of headroom included (default 2176)\n"
		"      --max-pkt-len N      largest frame; the ports' MTU is N - 18 (default 1518)\n"
		"      --rss-ip, --rss-udp, --disable-rss  RSS hash over several rx queues (default: IP)\n"
		"      --no-lsc-interrupt   do not print link state changes\n"
		"      --disable-device-start  configure the ports at start-up but leave them stopped\n"
		"  -h, --help               this text\n"
		"Every other dpdk-testpmd option is accepted with a note of what unic does instead,\n"
		"or refused naming what unic lacks (docs/testpmd.md).\n");
}
