/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd, the binary (UNIC_TESTPMD), used with dpdk-testpmd's habits:
 * its command-line options after "--" (honoured, noted or refused), the
 * headless --stats-period mode until SIGTERM, start's stream table, link
 * speeds as DPDK writes them, port topologies, peers and masks, show port
 * napi's values in effect, and promisc/allmulti/link/mac on null and ring
 * ports.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_binary.h"
#include "testpmd_fixture.h"

#define FOUR_RINGS "--vdev ring0 --vdev ring1,peer=ring0 --vdev ring2 --vdev ring3,peer=ring2"

/* How many times @p sub occurs in @p s. */
static unsigned count(const char *s, const char *sub)
{
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, sub)); p += strlen(sub))
		n++;
	return n;
}

Test(testpmd_dpdk, stats_period_forwards_headless_and_prints_until_sigterm, .timeout = 60)
{
	char *const argv[] = { "unic-testpmd", "--no-huge", "--no-pci", "--vdev", "ring0", "--vdev",
			       "ring1,peer=ring0", "--", "--stats-period", "1", "--tx-first", NULL };
	size_t n = 0;
	int fd, st;
	pid_t pid = binary_spawn(binary(), argv, "", &fd);

	/* Two blocks of statistics: it runs on by itself, reading no command. */
	for (int i = 0; i < 30 && count(out, "NIC statistics for port 1") < 2; i++)
		binary_read_until(fd, out, sizeof(out), &n, NULL, 1000);
	cr_assert_geq(count(out, "Port statistics ===================================="), 2, "%s", out);
	cr_assert_eq(kill(pid, SIGTERM), 0);
	binary_read_until(fd, out, sizeof(out), &n, NULL, 30000);
	close(fd);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d:\n%s", st, out);
	HAS(out, "io packet forwarding - ports=2 - cores=1 - streams=2");
	HAS(out, "NIC statistics for port 0");
	HAS(out, "NIC statistics for port 1");
	HASNT(out, "testpmd>");
	HASNT(out, "\033[2J"); /* not a terminal: no screen clearing in a log */
	HAS(out, "SIGTERM: quitting");
	/* tx_first put packets in flight: the io engine kept them going. */
	cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 0, "%s", out);
	HAS(out, "Bye...");
}

Test(testpmd_dpdk, start_prints_the_stream_table_as_dpdk, .timeout = 60)
{
	cr_assert_eq(run("-l 0,1 " RING_PAIR, "start\nshow config fwd\nstop\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "io packet forwarding - ports=2 - cores=1 - streams=2\n"
		 "Logical Core 1 (socket 0) forwards packets on 2 streams:\n"
		 "  RX P=0/Q=0 (socket 0) -> TX P=1/Q=0 (socket 0) peer=02:00:00:00:00:01\n"
		 "  RX P=1/Q=0 (socket 0) -> TX P=0/Q=0 (socket 0) peer=02:00:00:00:00:00\n");
	HAS(out, "port-topology=paired");
	/* More threads than -l's worker cores: not pinned, and said so. */
	cr_assert_eq(run(RING_PAIR " -- --nb-cores=2", "start\nstop\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Thread 0 (not pinned, hybrid) forwards packets on 1 streams:\n"
		 "  RX P=0/Q=0 (socket 0) -> TX P=1/Q=0 (socket 0) peer=02:00:00:00:00:01\n");
}

Test(testpmd_dpdk, link_speeds_read_as_dpdk_writes_them, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0", "show port info 0\nshow port link 0\nport stop 0\nport start 0\n"
			 "show port capabilities 0\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Link speed: 10 Gbps\n");
	HAS(out, "Port 0 Link up - speed 10 Gbps - full-duplex\n");
	HAS(out, "Port 0: started, link up 10 Gbps\n");
	HAS(out, "Max link speed: 10 Gbps\n");
	HASNT(out, "Mbps");
}

Test(testpmd_dpdk, topology_peers_and_masks_choose_the_streams, .timeout = 60)
{
	cr_assert_eq(run(FOUR_RINGS " -- --port-topology=chained --eth-peer=1,02:aa:00:00:00:01", "start\nstop\n",
			 out, sizeof(out)), 0, "%s", out);
	HAS(out, "RX P=0/Q=0 (socket 0) -> TX P=1/Q=0 (socket 0) peer=02:AA:00:00:00:01");
	HAS(out, "RX P=1/Q=0 (socket 0) -> TX P=2/Q=0 (socket 0) peer=02:00:00:00:00:02");
	HAS(out, "RX P=3/Q=0 (socket 0) -> TX P=0/Q=0 (socket 0) peer=02:00:00:00:00:00");

	cr_assert_eq(run(FOUR_RINGS " -- --port-topology loop --portmask=0xc", "start\nstop\n", out, sizeof(out)), 0,
		     "%s", out);
	HAS(out, "ports=2 - cores=1 - streams=2");
	HAS(out, "RX P=2/Q=0 (socket 0) -> TX P=2/Q=0 (socket 0) peer=02:00:00:00:00:02");
	HASNT(out, "RX P=0/Q=0");

	cr_assert_eq(run(FOUR_RINGS " -- --nb-ports=2", "set eth-peer 0 02:00:00:00:00:bb\nstart\nstop\n", out,
			 sizeof(out)), 0, "%s", out);
	HAS(out, "Port 0: peer address 02:00:00:00:00:BB");
	HAS(out, "RX P=1/Q=0 (socket 0) -> TX P=0/Q=0 (socket 0) peer=02:00:00:00:00:BB");
	HASNT(out, "RX P=2/Q=0");
}

Test(testpmd_dpdk, options_after_the_separator_are_honoured_noted_or_refused, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0 -- --rxfreet=32 --txpkts=64,128 --max-pkt-len=9018 --no-flush-rx",
			 "show port info 0\nshow config fwd\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "unic-testpmd: note: --rxfreet=32: unic's drivers set their descriptor thresholds themselves");
	HAS(out, "unic-testpmd: note: --no-flush-rx: ");
	HAS(out, "MTU: 9000\n");
	HAS(out, "txpkts=64,128");

	cr_assert_eq(run("--vdev null0 -- --enable-lro", "", out, sizeof(out)), 2, "%s", out);
	HAS(out, "unic-testpmd: error: option --enable-lro: not supported: no unic port offers LRO");
	cr_assert_eq(run("--vdev null0 -- --stats-period=soon", "", out, sizeof(out)), 2, "%s", out);
	HAS(out, "option --stats-period: bad value 'soon'");

	cr_assert_eq(run("--vdev null0 -- --disable-device-start", "show port info 0\nport start all\n"
			 "show port info 0\n", out, sizeof(out)), 0, "%s", out);
	HASNT(out, "Configuring Port 0");
	HAS(out, "State: allocated");
	cr_assert(strstr(out, "State: started") > strstr(out, "Port 0: started"), "started by 'port start all':\n%s", out);

	cr_assert_eq(run("--vdev null0 -- --total-num-mbufs=1100", "", out, sizeof(out)), 0, "%s", out);
	HAS(out, "note: port 0: --total-num-mbufs=1100 is fewer than the");
}

Test(testpmd_dpdk, show_port_napi_prints_the_values_in_effect, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0 -- --burst=16", "show port napi 0\nport stop 0\n"
			 "set rx-mode 0 hybrid budget=64 weight=8\nshow port napi 0\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Port 0 napi: budget 256 (default) weight 16 (the burst) empty-polls 4 (default) "
		 "idle-us 50 (default) max-sleep-ms 100 (default)");
	HAS(out, "Port 0 napi: budget 64 weight 8 empty-polls 4 (default)");
	HAS(out, "max-sleep-ms 100 (default) latency-target off cpu-budget off");
	HASNT(out, "(0: default)");
}

Test(testpmd_dpdk, null_and_ring_ports_take_promisc_link_and_mac_and_report_them, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0 --vdev ring1 --vdev ring2,peer=ring1",
			 "set promisc all off\nset allmulti all on\nset link-down port 0\nset link down 2\n"
			 "mac_addr set 1 02:00:00:00:00:33\nmac_addr add 2 02:00:00:00:00:34\n"
			 "show port info all\nshow port link all\nset link-up port 0\nshow port link 0\n", out,
			 sizeof(out)), 0, "%s", out);
	cr_assert_eq(count(out, "Promiscuous mode: disabled"), 3, "%s", out);
	cr_assert_eq(count(out, "Allmulticast mode: enabled"), 3, "%s", out);
	HAS(out, "MAC address: 02:00:00:00:00:33");
	HAS(out, "Port 0 Link down - speed None - full-duplex");
	HAS(out, "Port 2 Link down - speed None");
	HAS(out, "Port 1 Link up - speed 10 Gbps");
	HAS(out, "Port 0: link set up\ntestpmd> show port link 0\nPort 0 Link up - speed 10 Gbps");
	HASNT(out, "ENOTSUP");
}
