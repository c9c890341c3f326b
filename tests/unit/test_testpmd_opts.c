/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's command-line options (apps/testpmd/opts.c), parsed in this
 * process: DPDK's forms (--opt=value, --opt value, prefixes, -i -a -h),
 * the options unic honours and their values, the ones it takes with a
 * notice, the ones it refuses with the reason, and bad values naming the
 * option.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "opts.h"

static struct tp_opts o;
static char err[1024];
static char notes[8192];

/* Parse the words of @p line (split at spaces); notes into notes[]. */
static int parse(const char *line)
{
	static char buf[2048];
	char *argv[64] = { "unic-testpmd" };
	int argc = 1, rc;
	FILE *f = fmemopen(notes, sizeof(notes), "w");

	cr_assert_not_null(f);
	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok(buf, " "); t && argc < 63; t = strtok(NULL, " "))
		argv[argc++] = t;
	err[0] = '\0';
	memset(notes, 0, sizeof(notes));
	rc = tp_opts_parse(&o, argc, argv, f, err, sizeof(err));
	fclose(f);
	return rc;
}

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))
#define HASNT(s, sub) cr_assert(strstr((s), (sub)) == NULL, "'%s' unexpectedly in:\n%s", (sub), (s))

Test(testpmd_opts, both_getopt_forms_and_unique_prefixes_are_taken)
{
	cr_assert_eq(parse("--stats-period 2 --nb-cores=2 --burst 16"), 0, "%s", err);
	cr_assert_eq(o.stats_period, 2);
	cr_assert_eq(o.nbcore, 2);
	cr_assert_eq(o.burst, 16);
	cr_assert_eq(parse("--stats-p=3 --forward=mac"), 0, "%s", err);
	cr_assert_eq(o.stats_period, 3);
	cr_assert_eq(o.engine, 1);
	cr_assert_eq(parse("-i -a"), 0, "%s", err);
	cr_assert(o.interactive && o.auto_start);

	cr_assert_eq(parse("--nb=2"), -EINVAL);
	HAS(err, "option '--nb' is ambiguous; possibilities: --nb-cores --nb-ports");
	cr_assert_eq(parse("--bogus"), -EINVAL);
	HAS(err, "unknown option '--bogus'");
	cr_assert_eq(parse("--tx-first=1"), -EINVAL);
	HAS(err, "option --tx-first takes no value");
	cr_assert_eq(parse("--stats-period"), -EINVAL);
	HAS(err, "option --stats-period: missing value at the end of the command line");
}

Test(testpmd_opts, the_forwarding_options_unic_honours_keep_their_values)
{
	cr_assert_eq(parse("--tx-first --eth-peer=1,02:aa:bb:cc:dd:ee --port-topology=chained --portmask=0x5 "
			   "--nb-ports 2 --txpkts=64,128 --total-num-mbufs=4096 --mbuf-size=4096 --max-pkt-len=9018 "
			   "--rss-udp --no-lsc-interrupt"), 0, "%s", err);
	cr_assert(o.tx_first && o.no_lsc);
	cr_assert_eq(o.peer_set, 1ull << 1);
	cr_assert_eq(memcmp(o.peer[1], (uint8_t[]){ 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee }, 6), 0);
	cr_assert_eq(o.topology, TP_TOPO_CHAINED);
	cr_assert_eq(o.portmask, 0x5);
	cr_assert_eq(o.nb_ports, 2);
	cr_assert_eq(o.nb_txpkts, 2);
	cr_assert_eq(o.txpkts[1], 128);
	cr_assert_eq(o.total_mbufs, 4096);
	cr_assert_eq(o.mbuf_size, 4096);
	cr_assert_eq(o.max_pkt_len, 9018);
	cr_assert_eq(o.rss, TP_RSS_UDP);
	cr_assert_eq(parse("--portlist=0,2-3 --rss-ip --disable-rss --port-topology loop"), 0, "%s", err);
	cr_assert_eq(o.portmask, 0xd);
	cr_assert_eq(o.rss, TP_RSS_OFF, "the last one wins, as in DPDK");
	cr_assert_eq(o.topology, TP_TOPO_LOOP);
	cr_assert_str_empty(notes);
}

Test(testpmd_opts, an_eth_peers_configfile_gives_ports_in_line_order)
{
	char path[] = "/tmp/unic-tp-peers-XXXXXX", line[160];
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_gt(write(fd, "02:00:00:00:00:0a\n02:00:00:00:00:0b\n", 36), 0);
	close(fd);
	snprintf(line, sizeof(line), "--eth-peers-configfile=%s", path);
	cr_assert_eq(parse(line), 0, "%s", err);
	cr_assert_eq(o.peer_set, 3);
	cr_assert_eq(o.peer[1][5], 0x0b);

	fd = open(path, O_WRONLY | O_TRUNC);
	cr_assert_gt(write(fd, "02:00:00:00:00:0a\nnot-a-mac\n", 28), 0);
	close(fd);
	cr_assert_eq(parse(line), -EINVAL);
	HAS(err, "option --eth-peers-configfile: ");
	HAS(err, "line 2: bad address 'not-a-mac'");
	unlink(path);
	cr_assert_eq(parse(line), -EINVAL);
	HAS(err, "cannot open");
}

Test(testpmd_opts, bad_values_are_refused_naming_the_option)
{
	static const struct { const char *line, *want; } cases[] = {
		{ "--stats-period=x", "option --stats-period: bad value 'x'" },
		{ "--eth-peer=1", "option --eth-peer: bad value '1'; expected PORT,MAC" },
		{ "--eth-peer=64,02:00:00:00:00:01", "option --eth-peer: bad value '64,02:00:00:00:00:01'; expected PORT,MAC with PORT 0..63" },
		{ "--eth-peer=1,02:00:00", "expected PORT,MAC with MAC as xx:xx:xx:xx:xx:xx" },
		{ "--port-topology=ring", "option --port-topology: unknown value 'ring'; expected paired, chained, loop" },
		{ "--portmask=0xg", "option --portmask: bad value '0xg'" },
		{ "--portmask=0", "a mask with one port at least" },
		{ "--portlist=3-1", "option --portlist: bad value '3-1'" },
		{ "--txpkts=20", "option --txpkts: bad value '20'; expected a first segment of 42 bytes" },
		{ "--txpkts=64,,64", "option --txpkts: bad value '64,,64'" },
		{ "--total-num-mbufs=1024", "option --total-num-mbufs: bad value '1024'; expected a whole number from 1025" },
		{ "--mbuf-size=2048,4096", "one size: unic's ports have no buffer split" },
		{ "--max-pkt-len=63", "option --max-pkt-len: bad value '63'" },
		{ "--nb-ports=0", "option --nb-ports: bad value '0'" },
		{ "--rxfreet=-1", "option --rxfreet: bad value '-1'" },
		{ "--port-numa-config=(0,0", "option --port-numa-config: bad value '(0,0'" },
		{ "--forward-mode=shared-rxq", "option --forward-mode: 'shared-rxq' is a DPDK engine unic-testpmd does not have" },
		{ "--burst-tx-delay-time=1000001", "option --burst-tx-delay-time: bad value '1000001'" },
		{ "--noisy-tx-sw-buffer-size=x", "option --noisy-tx-sw-buffer-size: bad value 'x'" },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(parse(cases[i].line), -EINVAL, "%s", cases[i].line);
		HAS(err, cases[i].want);
	}
}

Test(testpmd_opts, options_unic_takes_another_way_print_one_notice_each)
{
	cr_assert_eq(parse("--rxfreet=32 --txfreet 32 --txrst=32 --no-flush-rx "
			   "--record-burst-stats --numa --no-numa --port-numa-config=(0,0),(1,0) "
			   "--ring-numa-config=(0,3,0)"), 0, "%s", err);
	HAS(notes, "unic-testpmd: note: --rxfreet=32: unic's drivers set their descriptor thresholds themselves");
	HAS(notes, "unic-testpmd: note: --txfreet=32: ");
	HAS(notes, "unic-testpmd: note: --no-flush-rx: unic-testpmd does not flush the rx queues");
	HAS(notes, "unic-testpmd: note: --port-numa-config=(0,0),(1,0): each port's pool and rings go on the port's NUMA node");
	unsigned lines = 0;

	for (const char *p = notes; (p = strchr(p, '\n')); p++)
		lines++;
	cr_assert_eq(lines, 7, "one line per option (--numa and --no-numa are honoured):\n%s", notes);
}

Test(testpmd_opts, numa_options_say_where_the_pools_go)
{
	cr_assert_eq(parse(""), 0, "%s", err);
	cr_assert(!o.no_numa && !o.socket_set);
	cr_assert_eq(parse("--no-numa"), 0, "%s", err);
	cr_assert(o.no_numa);
	HASNT(notes, "no-numa");
	cr_assert_eq(parse("--no-numa --numa"), 0, "%s", err);
	cr_assert(!o.no_numa, "the last of --numa and --no-numa counts");
	cr_assert_eq(parse("--socket-num=1"), 0, "%s", err);
	cr_assert(o.socket_set);
	cr_assert_eq(o.socket_num, 1);
	cr_assert_eq(parse("--socket-num=1024"), -EINVAL);
	HAS(err, "option --socket-num: bad value '1024'");
	cr_assert_eq(parse("--ring-numa-config=(0,3,0)"), 0, "%s", err);
	HAS(notes, "the per-port and per-ring choice is ignored");
}

Test(testpmd_opts, options_unic_lacks_are_refused_with_the_missing_capability)
{
	static const struct { const char *line, *want; } cases[] = {
		{ "--enable-lro", "option --enable-lro: not supported: no unic port offers LRO" },
		{ "--num-procs=2", "option --num-procs: not supported: unic has no multi-process mode" },
		{ "--hairpinq=1", "no unic port has hairpin queues" },
		{ "--rxpkts=64,64", "no buffer split" },
		{ "--flow-isolate-all", "unic has no flow API" },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(parse(cases[i].line), -EINVAL, "%s", cases[i].line);
		HAS(err, cases[i].want);
	}
}

/* Every option dpdk-testpmd 22.11's --help lists is known: honoured, noted
 * or refused with a reason, never "unknown option". */
Test(testpmd_opts, every_dpdk_testpmd_option_is_known)
{
	static const char *const dpdk[] = {
		"interactive", "cmdline-file", "auto-start", "help", "tx-first", "stats-period", "display-xstats",
		"num-procs", "proc-id", "nb-cores", "nb-ports", "coremask", "portmask", "portlist", "numa", "no-numa",
		"port-numa-config", "ring-numa-config", "socket-num", "mbuf-size", "total-num-mbufs", "max-pkt-len",
		"max-lro-pkt-size", "eth-peers-configfile", "eth-peer", "disable-crc-strip", "enable-scatter",
		"enable-lro", "enable-rx-cksum", "enable-rx-timestamp", "enable-hw-vlan", "enable-hw-vlan-filter",
		"enable-hw-vlan-strip", "enable-hw-vlan-extend", "enable-hw-qinq-strip", "enable-drop-en",
		"disable-rss", "port-topology", "forward-mode", "rss-ip", "rss-udp", "rss-level-inner",
		"rss-level-outer", "rxq", "rxd", "txq", "txd", "hairpinq", "burst", "flowgen-clones", "flowgen-flows",
		"mbcache", "rxpt", "rxht", "rxfreet", "rxwt", "txpt", "txht", "txwt", "txfreet", "txrst", "no-flush-rx",
		"rxoffs", "rxpkts", "rxhdrs", "txpkts", "multi-rx-mempool", "txonly-multi-flow", "tx-ip", "tx-udp",
		"eth-link-speed", "rxq-share", "disable-link-check", "disable-device-start", "no-lsc-interrupt",
		"no-rmv-interrupt", "bitrate-stats", "latencystats", "print-event", "mask-event", "flow-isolate-all",
		"tx-offloads", "rx-offloads", "hot-plug", "vxlan-gpe-port", "geneve-parsed-port", "mlockall",
		"no-mlockall", "mp-alloc", "noisy-tx-sw-buffer-size", "noisy-tx-sw-buffer-flushtime",
		"noisy-lkup-memory", "noisy-lkup-num-writes", "noisy-lkup-num-reads", "noisy-lkup-num-reads-writes",
		"no-iova-contig", "rx-mq-mode", "record-core-cycles", "record-burst-stats", "hairpin-mode",
	};

	for (unsigned i = 0; i < sizeof(dpdk) / sizeof(dpdk[0]); i++) {
		char line[96];

		snprintf(line, sizeof(line), "--%s", dpdk[i]);
		int rc = parse(line);

		/* A bare option that wants a value says so; one refused names why. */
		cr_assert(strstr(err, "unknown option") == NULL, "%s: %s", line, err);
		cr_assert(strstr(err, "ambiguous") == NULL, "%s: %s", line, err);
		cr_assert(rc == 0 || strstr(err, "missing value") || strstr(err, "not supported: "), "%s: %s",
			  line, err);
	}
	cr_assert_eq(sizeof(dpdk) / sizeof(dpdk[0]), 100, "dpdk-testpmd 22.11 --help: 100 long options");
}
