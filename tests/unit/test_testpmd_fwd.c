/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd, the binary (UNIC_TESTPMD), forwarding: io and the other
 * engines over a ring pair, forward and NIC statistics, rx modes and their
 * threads, ports attached and detached while forwarding, quit's totals.
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "testpmd_fixture.h"

Test(testpmd_binary, io_over_a_ring_pair_forward_and_nic_statistics_agree, .timeout = 60)
{
	uint64_t rx, tx, nic0, fwd0;

	cr_assert_eq(run(RING_PAIR, "start tx_first\nsleep 300\nstop\nshow port stats all\nquit\n", out,
			 sizeof(out)), 0, "%s", out);
	HAS(out, "io packet forwarding - ports=2 - cores=1 - streams=2");
	rx = num_after(out, "Accumulated forward statistics", "RX-packets:");
	tx = num_after(out, "Accumulated forward statistics", "TX-packets:");
	cr_assert_gt(rx, 1000, "only %" PRIu64 " packets forwarded", rx);
	/* 2 x 32 packets sent first circle; at a stop they sit in the rings. */
	cr_assert_eq(tx - rx, 64, "tx %" PRIu64 " rx %" PRIu64, tx, rx);
	cr_assert_eq(num_after(out, "Accumulated forward statistics", "TX-dropped:"), 0);
	fwd0 = num_after(out, "Forward statistics for port 0", "RX-packets:");
	nic0 = num_after(out, "NIC statistics for port 0", "RX-packets:");
	cr_assert_eq(nic0, fwd0, "every packet port 0 received went through the engine");
	cr_assert_eq(num_after(out, "NIC statistics for port 1", "TX-packets:"),
		     num_after(out, "Forward statistics for port 1", "TX-packets:"));
	cr_assert_gt(num_after(out, "NIC statistics for port 0", "Rx-pps:"), 1000,
		     "the first show gives the rate since the port started");
	HAS(out, "RX-missed:");
	HAS(out, "RX-bytes:");
	HAS(out, "RX-errors:");
	HAS(out, "RX-nombuf:");
	HAS(out, "TX-errors:");
	HAS(out, "TX-bytes:");
	HAS(out, "Rx-pps:");
	HAS(out, "Tx-pps:");
	HAS(out, "  ######################## NIC statistics for port 0  ########################");
	HAS(out, "Bye...");
}

Test(testpmd_binary, fwd_stats_show_while_running_and_clear_to_zero, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "start tx_first\nsleep 200\nshow fwd stats all\nstop\nclear fwd stats all\n"
			 "show fwd stats all\n", out, sizeof(out)), 0, "%s", out);
	const char *during = strstr(out, "testpmd> show fwd stats all"), *after;

	cr_assert_not_null(during);
	cr_assert_gt(num_after(during, "Accumulated forward statistics", "RX-packets:"), 1000);
	after = strstr(out, "forward statistics cleared");
	cr_assert_not_null(after, "%s", out);
	cr_assert_eq(num_after(after, "Accumulated forward statistics", "RX-packets:"), 0);
	cr_assert_eq(num_after(after, "Accumulated forward statistics", "TX-packets:"), 0);
}

Test(testpmd_binary, rxonly_counts_each_packet_sent_first_exactly_once, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "set fwd rxonly\nstart tx_first 2\nsleep 1000\nstop\n", out, sizeof(out)), 0,
		     "%s", out);
	cr_assert_eq(num_after(out, "Accumulated forward statistics", "RX-packets:"), 128, "%s", out);
	cr_assert_eq(num_after(out, "Accumulated forward statistics", "TX-packets:"), 128);
	cr_assert_eq(num_after(out, "Forward statistics for port 0", "RX-packets:"), 64);
}

Test(testpmd_binary, txonly_fills_the_peer_rings_and_counts_what_they_refuse, .timeout = 60)
{
	uint64_t tx, dropped;

	cr_assert_eq(run(RING_PAIR, "set fwd txonly\nset burst 64\nstart\nsleep 300\nstop\nshow port xstats 0\n",
			 out, sizeof(out)), 0, "%s", out);
	tx = num_after(out, "Accumulated forward statistics", "TX-packets:");
	dropped = num_after(out, "Accumulated forward statistics", "TX-dropped:");
	cr_assert_eq(num_after(out, "Accumulated forward statistics", "RX-packets:"), 0, "txonly never receives");
	cr_assert(tx >= 2000 && tx <= 2048, "two rings of 1024 fill up: %" PRIu64, tx);
	cr_assert_gt(dropped, 0);
	cr_assert_eq(num_after(out, "NIC extended statistics for port 0", "tx_ring_full:"),
		     num_after(out, "Forward statistics for port 0", "TX-dropped:"),
		     "what the ring refused is what testpmd dropped");
}

static void engine_forwards(const char *engine)
{
	char script[256];

	snprintf(script, sizeof(script), "set fwd %s\nstart tx_first\nsleep 300\nshow config fwd\nstop\n", engine);
	cr_assert_eq(run(RING_PAIR, script, out, sizeof(out)), 0, "%s", out);
	HAS(out, "RX P=0/Q=0 (socket 0) -> TX P=1/Q=0 (socket 0)");
	cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000, "%s: %s", engine, out);
}

Test(testpmd_binary, mac_macswap_and_flowgen_forward_over_a_ring_pair, .timeout = 60)
{
	engine_forwards("mac");
	engine_forwards("macswap");
	engine_forwards("flowgen");
}

Test(testpmd_binary, each_rx_mode_forwards_and_shows_its_napi_figures, .timeout = 60)
{
	static const char *const modes[] = { "poll", "interrupt", "hybrid" };

	for (int i = 0; i < 3; i++) {
		char script[512], want[64];

		snprintf(script, sizeof(script),
			 "port stop all\nset rx-mode all %s budget=64 weight=32\nport start all\nstart tx_first\n"
			 "sleep 300\nshow port napi 0\nshow config fwd\nstop\n", modes[i]);
		cr_assert_eq(run(RING_PAIR, script, out, sizeof(out)), 0, "%s", out);
		snprintf(want, sizeof(want), "(%s): polls", modes[i]);
		HAS(out, want);
		HAS(out, "napi: budget 64 weight 32");
		cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000, "%s: %s",
			     modes[i], out);
	}
	/* Hybrid with the adaptive policy's knobs: forwards, and shows them. */
	cr_assert_eq(run(RING_PAIR, "port stop all\nset rx-mode all hybrid latency-target=20 cpu-budget=30\n"
			 "port start all\nstart tx_first\nsleep 300\nshow port napi 0\nstop\n", out, sizeof(out)),
		     0, "%s", out);
	HAS(out, "latency-target 20 cpu-budget 30");
	HAS(out, "(hybrid): polls");
	cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000, "adaptive: %s", out);
	/* ... which are the hybrid mode's, and not with its fixed window. */
	cr_assert_eq(run_ex(RING_PAIR, "port stop all\nset rx-mode all poll cpu-budget=30\n", true, out, sizeof(out)),
		     1, "%s", out);
	HAS(out, "set rx-mode: latency-target and cpu-budget set the hybrid mode's adaptive policy");
	cr_assert_eq(run_ex(RING_PAIR, "port stop all\nset rx-mode all hybrid idle-us=20 latency-target=5\n", true,
			    out, sizeof(out)), 1, "%s", out);
	HAS(out, "give one or the other");
	cr_assert_eq(run_ex(RING_PAIR, "port stop all\nset rx-mode all hybrid cpu-budget=101\n", true, out,
			    sizeof(out)), 1, "%s", out);
	HAS(out, "set rx-mode: cpu-budget=101: expected 1..100");
	/* A port without rx interrupts polls, and says so. */
	cr_assert_eq(run("--vdev null0", "port stop 0\nset rx-mode 0 interrupt\nport start 0\nshow port info 0\n",
			 out, sizeof(out)), 0, "%s", out);
	HAS(out, "note: port 0 (null) has no rx interrupts: it will poll");
	HAS(out, "Receive mode: poll");
}

Test(testpmd_binary, ports_in_different_modes_get_their_own_threads, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "port stop 0\nset rx-mode 0 poll\nport start 0\nstart tx_first\nsleep 200\n"
			 "show config fwd\nstop\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "need 2 threads (nbcore is 1)");
	HAS(out, "Thread 0 (not pinned, poll)");
	HAS(out, "Thread 1 (not pinned, hybrid)");
	cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000);
}

Test(testpmd_binary, attach_and_detach_while_the_other_ports_forward, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR " --continue",
			 "start tx_first\nsleep 100\nport attach null7\nport attach ring9,peer=ring8\n"
			 "port attach ring8\nport start 2\nsleep 100\nshow config fwd\nport detach 1\nsleep 200\n"
			 "show config fwd\nshow port stats 2\nstop\nport attach 00:1f.7\n",
			 out, sizeof(out)), 1, "%s", out);
	HAS(out, "Port 2 is attached (null7). Now total ports is 3");
	HAS(out, "port attach ring9,peer=ring8: Invalid argument");
	HAS(out, "Port 3 is attached (ring8)");
	const char *first = strstr(out, "show config fwd"), *second;

	cr_assert_not_null(first);
	second = strstr(first + 1, "show config fwd");
	cr_assert_not_null(second);
	HAS(first, "RX P=2/Q=0 (socket 0) -> TX P=2/Q=0 (socket 0)");
	HAS(first, "Port 1 is detached");
	HASNT(second, "RX P=1/Q=0");
	HAS(second, "RX P=0/Q=0 (socket 0) -> TX P=2/Q=0 (socket 0)");
	HAS(out, "Forward statistics for port 1  (detached)");
	cr_assert_gt(num_after(second, "NIC statistics for port 2", "RX-packets:"), 1000,
		     "the null port forwards after the detach");
	HAS(out, "port attach 00:1f.7: PCI is off (--no-pci)");
}

Test(testpmd_binary, quit_closes_every_port_and_prints_the_totals, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "start tx_first\nsleep 100\nquit\nshow port info 0\n", out, sizeof(out)), 0);
	HAS(out, "Telling cores to stop...");
	HAS(out, "Accumulated forward statistics");
	HAS(out, "Totals (NIC statistics)");
	HAS(out, "port 0: RX-packets:");
	HAS(out, "Closing ports...");
	HASNT(out, "Infos for port 0");
}
