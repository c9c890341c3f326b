/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd, the binary (UNIC_TESTPMD), its commands: refusals in the
 * wrong state, batches and --continue, bad syntax, -ENOTSUP, port settings
 * and reset, the csum commands, exit codes, SIGTERM, random commands, and
 * the terminal (libedit completion and history).
 */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <unic/cycles.h>

#include "testpmd.h"
#include "run_binary.h"
#include "testpmd_fixture.h"

Test(testpmd_binary, commands_that_need_a_stopped_port_say_how_to_stop_it, .timeout = 60)
{
	static const char *const cmds[] = {
		"port config 0 rxq 2", "port config all txd 512", "port config 0 mtu 9000",
		"port config mtu 0 9000", "set rx-mode 0 poll", "vlan set strip 0 on",
		"vlan set filter on 0", "tx_vlan set 0 5", "tx_vlan reset 0", "csum set ip sw 0",
		"tso set 0 0",
	};

	for (unsigned i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char script[128];

		snprintf(script, sizeof(script), "%s\n", cmds[i]);
		cr_assert_eq(run("--vdev null0", script, out, sizeof(out)), 1, "%s: %s", cmds[i], out);
		HAS(out, "port 0 must be stopped first: run 'port stop 0'");
	}
}

Test(testpmd_binary, forwarding_settings_wait_for_stop_and_start_stop_say_their_state, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR " --continue",
			 "stop\nstart\nstart\nset fwd mac\nset burst 8\nset nbcore 2\nset txpkts 64\nstop\n"
			 "set fwd mac\n", out, sizeof(out)), 1, "%s", out);
	HAS(out, "Packet forwarding not started");
	HAS(out, "Packet forwarding already started");
	cr_assert_eq(strstr(strstr(out, "set nbcore 2"), "packet forwarding is running: run 'stop' first") != NULL,
		     true, "%s", out);
	HAS(out, "Set mac packet forwarding mode");
}

Test(testpmd_binary, start_refuses_a_port_with_more_rx_queues_than_its_partner_has_tx_queues, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR, "port stop all\nport config 0 rxq 2\nport start all\nset fwd rxonly\n"
			 "start tx_first\n", out, sizeof(out)), 1, "%s", out);
	HAS(out, "port 0 has 2 rx queues but port 1, where it sends, has 1 tx queues; "
		 "give them as many ('port config all txq 2', then restart the ports)");
	HASNT(out, "packet forwarding - ports=");
}

Test(testpmd_binary, a_batch_stops_at_the_first_failure_unless_continue, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0", "show port link 0\nset burst 0\nshow port info 0\n", out, sizeof(out)), 1);
	HAS(out, "set burst: 0; expected 1..256");
	HAS(out, "usage: set burst <n>");
	HAS(out, ":2: the command failed; stopping (--continue runs on)");
	HASNT(out, "Infos for port 0");
	HAS(out, "Bye..."); /* ports are closed even so */

	cr_assert_eq(run("--vdev null0 --continue", "set burst 0\nshow port info 0\n", out, sizeof(out)), 1);
	HAS(out, "Infos for port 0");
	/* Each failed line is named, so a judge of the output knows which one. */
	HAS(out, ":1: the command failed; going on (--continue)");
	HASNT(out, ":2: the command failed");

	cr_assert_eq(run("--vdev null0", "show port link 0\n# done\n\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Port 0 Link up - speed 10 Gbps - full-duplex");
}

Test(testpmd_binary, stdin_that_is_not_a_terminal_is_a_batch, .timeout = 60)
{
	cr_assert_eq(run_ex("--vdev null0", "show port link 0\nquit\nshow port info 0\n", true, out, sizeof(out)), 0,
		     "%s", out);
	HAS(out, "Port 0 Link up");
	HASNT(out, "Infos for port 0");
	cr_assert_eq(run_ex("--vdev null0", "bogus\n", true, out, sizeof(out)), 1);
	HAS(out, "unknown command 'bogus'");
}

Test(testpmd_binary, bad_syntax_prints_the_usage_line, .timeout = 60)
{
	cr_assert_eq(run("--vdev null0 --continue",
			 "port config 0 mtu\nshow port stats 99\nset rx-mode 0 poll budget=0\nmac_addr set 0 zz\n"
			 "help nothing\n", out, sizeof(out)), 1);
	HAS(out, "missing argument <n>\nusage: port config <port> mtu <n>");
	HAS(out, "bad value '99' for <port|all>");
	HAS(out, "set rx-mode: budget=0: expected 1..65535");
	HAS(out, "bad value 'zz' for <mac>");
	HAS(out, "no command starts with 'nothing'");
}

Test(testpmd_binary, ops_a_driver_lacks_come_back_as_enotsup, .timeout = 60)
{
	/* (promisc, allmulti, link and mac are taken by null ports, as by
	 * DPDK's net_null: test_testpmd_dpdk.c.) */
	cr_assert_eq(run("--vdev null0 --continue",
			 "port config 0 coalesce tx-usecs 4\n"
			 "rx_vlan add 5 0\nshow port regs 0\nshow port eeprom 0\nport stop 0\n"
			 "csum set udp hw 0\ntso set 1460 0\nvlan set strip 0 on\ntx_vlan set 0 7\n",
			 out, sizeof(out)), 1);
	static const char *const what[] = { "coalesce", "rx_vlan add", "register dump", "EEPROM dump" };

	for (unsigned i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		char want[128];

		snprintf(want, sizeof(want), "port 0: %s: not supported by the null driver (-ENOTSUP)", what[i]);
		HAS(out, want);
	}
	HAS(out, "port 0 (null) has no tx_udp_cksum offload (it supports: none); use 'csum set udp sw 0' (-ENOTSUP)");
	HAS(out, "has no tcp_tso offload");
	HAS(out, "has no vlan_strip offload");
	HAS(out, "has no vlan_insert offload");
}

Test(testpmd_binary, port_settings_apply_at_the_next_start_and_reset_undoes_them, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR,
			 "port stop all\nport config all rxq 2\nport config all txq 2\nport config 0 rxd 512\n"
			 "port config 0 mtu 9000\ncsum set ip sw 0\ntso set 0 0\nset msglevel 0 debug\n"
			 "show port info 0\nport start all\nshow port info 0\nshow port capabilities 0\n"
			 "start tx_first\nsleep 200\nstop\n"
			 "port reset 0\nport start 0\nshow port info 0\nclear port stats all\nshow port stats 0\n",
			 out, sizeof(out)), 0, "%s", out);
	HAS(out, "rxq 2 txq 2 rxd 512 txd 1024 mtu 9000 rx-mode hybrid (pending)");
	HAS(out, "Current number of RX queues: 2");
	HAS(out, "MTU: 9000");
	HAS(out, "Message level: debug");
	/* The port layer's getters: off until set (a ring port takes the
	 * setting and reports it back). */
	HAS(out, "Promiscuous mode: disabled");
	HAS(out, "Allmulticast mode: disabled");
	HAS(out, "RXDs number alignment: 1");
	HAS(out, "Rx offloads capabilities: none");
	/* Two queues per port: four streams, each with its own line. */
	HAS(out, "Forward Stats for RX Port= 0/Queue= 1 -> TX Port= 1/Queue= 1");
	HAS(out, "Port 0: reset to the start-up configuration");
	const char *after = strstr(out, "port reset 0");

	cr_assert_not_null(after);
	HAS(after, "Current number of RX queues: 1");
	HAS(after, "MTU: 1500");
	HAS(after, "NIC statistics for port 1 cleared");
	cr_assert_eq(num_after(after, "NIC statistics for port 0", "RX-packets:"), 0);
	/* Out-of-range queue and descriptor counts are refused with what the port has. */
	cr_assert_eq(run(RING_PAIR " --continue", "port stop 0\nport config 0 rxq 17\nport config 0 rxd 16\n"
			 "port config 0 mtu 10\n", out, sizeof(out)), 1);
	HAS(out, "port 0: rxq 17: the ring device has 16 rx queues (-ENOTSUP)");
	HAS(out, "port 0: rxd 16: this port takes 32..32768");
	HAS(out, "MTU 10; this port takes 68..9216");
}

Test(testpmd_binary, csum_commands_show_settings_and_refuse_what_unic_does_not_do, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR " --continue",
			 "set fwd csum\ncsum show 0\ntso show 0\ncsum parse-tunnel off 0\ncsum parse-tunnel on 0\n"
			 "csum set sctp sw 0\ncsum set outer-udp hw 0\ncsum set tcp hw 0\nport stop 0\n"
			 "csum set tcp hw 0\ncsum set udp sw 0\ncsum show 0\ntso set 1460 0\n"
			 "port start 0\nstart tx_first\nsleep 200\nstop\n",
			 out, sizeof(out)), 1, "%s", out);
	HAS(out, "Set csum packet forwarding mode");
	HAS(out, "Parse tunnel is off (unic parses no tunnels)\nIP checksum offload is sw\n"
		 "UDP checksum offload is sw\nTCP checksum offload is sw\n");
	HAS(out, "TSO for non-tunneled packets is disabled");
	HAS(out, "Tx checksum offloads the port offers: none");
	HAS(out, "Rx checksums: this port reports none: the csum engine checks them in software");
	HAS(out, "Port 0: tunnels are not parsed");
	HAS(out, "csum parse-tunnel on: unic's csum engine parses no tunnels (VXLAN, GRE, ...): tunnels are out of scope");
	HAS(out, "csum set sctp: unic's csum engine handles IPv4, IPv6, UDP and TCP; SCTP is not parsed");
	HAS(out, "csum set outer-udp: unic's csum engine parses no tunnels");
	HAS(out, "port 0 must be stopped first: run 'port stop 0'");
	HAS(out, "port 0 (ring) has no tx_tcp_cksum offload (it supports: none); use 'csum set tcp sw 0' (-ENOTSUP)");
	HAS(out, "Port 0: udp checksum in software");
	HAS(out, "port 0 (ring) has no tcp_tso offload (it supports: none)");
	HAS(out, "csum packet forwarding - ports=2 - cores=1 - streams=2");
	/* tx_first's frames are IPv4/UDP with good checksums: none is bad. */
	HAS(out, "Bad-ipcsum: 0              Bad-l4csum: 0              Bad-headers: 0");
	cr_assert_gt(num_after(out, "Forward statistics for port 0", "in software: "), 1000);
	/* The same on a null port; its frames are zero bytes: not IP, not bad. */
	cr_assert_eq(run("--vdev null0", "set fwd csum\nstart\nsleep 100\nstop\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Bad-ipcsum: 0              Bad-l4csum: 0              Bad-headers: 0");
}

Test(testpmd_binary, exit_status_names_the_failure, .timeout = 60)
{
	char cmdline[512];
	int st;

	snprintf(cmdline, sizeof(cmdline), "%s --help > /dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 0);
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci --burst 0 2>/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 2);
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci --burst --continue 2>/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 2, "a missing value is not taken from the next option");
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci --frob 2>/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 2);
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci --vdev bogus0 < /dev/null 2>/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 3);
	snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci -f /nonexistent 2>/dev/null >/dev/null", binary());
	st = system(cmdline);
	cr_assert_eq(WEXITSTATUS(st), 2);
	cr_assert_eq(run("--vdev null0 --forward-mode rxonly --nb-cores 2 --burst 16 --rxq 2 --txq 2",
			 "show config fwd\nshow port info 0\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "rxonly packet forwarding - burst=16 - nbcore=2");
	HAS(out, "Current number of RX queues: 2");
	/* -fFILE, as l2fwd's -p3: run() adds its own -f, which comes last and wins. */
	cr_assert_eq(run("--vdev null0 -f/nonexistent", "show port link 0\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "Port 0 Link up");
	cr_assert_eq(run("--vdev null0 --vdev null1 --auto-start --rx-mode poll", "sleep 200\nstop\n", out,
			 sizeof(out)), 0, "%s", out);
	HAS(out, "io packet forwarding - ports=2");
	cr_assert_gt(num_after(out, "Accumulated forward statistics", "RX-packets:"), 1000);
}

Test(testpmd_binary, sigterm_during_a_sleep_quits_cleanly, .timeout = 60)
{
	char *const argv[] = { "unic-testpmd", "--no-huge", "--no-pci", "--vdev", "ring0", "--vdev",
			       "ring1,peer=ring0", NULL };
	int fd, st;
	pid_t pid;
	size_t n = 0;

	pid = binary_spawn(binary(), argv, "start tx_first\nsleep 20000\nshow port info 0\n", &fd);
	/* Wait until it sleeps (its handlers are in place by then), then signal. */
	binary_read_until(fd, out, sizeof(out), &n, "testpmd> sleep 20000", 20000);
	HAS(out, "testpmd> sleep 20000");
	usleep(100 * 1000);
	cr_assert_eq(kill(pid, SIGTERM), 0);
	binary_read_until(fd, out, sizeof(out), &n, NULL, 30000);
	close(fd);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "killed instead of quitting");
	HAS(out, "SIGTERM: quitting");
	HAS(out, "Accumulated forward statistics");
	HAS(out, "Bye...");
	HASNT(out, "Infos for port 0");
}

/*
 * Random commands, valid and not: every table entry instantiated with
 * values drawn from good, edge and bad ones, in a random order, run with
 * --continue over ring and null ports while ports come and go. The program
 * must survive all of it (exit 0 or 1, never a signal, no sanitizer report)
 * and still close down cleanly.
 */
static void random_line(char *line, size_t len, unsigned *seed)
{
	static const char *const ports[] = { "0", "1", "2", "3", "7", "all", "all", "63" };
	static const char *const nums[] = { "0", "1", "2", "16", "32", "64", "256", "1024", "9000",
					    "4294967295", "70000", "17" };
	static const char *const specs[] = { "null4", "ring5,peer=ring0", "ring6", "ring7,peer=ring6",
					     "bogus0", "03:00.0" };
	unsigned nb;
	const struct tp_cmd_def *t = tp_cmd_table(&nb);
	const char *s = t[rand_r(seed) % nb].syntax;
	size_t off = 0;

	if (rand_r(seed) % 8 == 0)
		s = "start tx_first"; /* keep traffic going often */
	line[0] = '\0';
	while (*s && off + 64 < len) {
		size_t l = strcspn(s, " ");
		char w[256];
		const char *v;

		snprintf(w, sizeof(w), "%.*s", (int)l, s);
		if (w[0] == '[') {
			v = rand_r(seed) % 3 ? "" : "budget=64";
		} else if (strcmp(w, "<port>") == 0 || strcmp(w, "<port|all>") == 0) {
			v = ports[rand_r(seed) % 8];
		} else if (strcmp(w, "<mac>") == 0) {
			v = rand_r(seed) % 2 ? "02:00:00:00:00:42" : "01:00:5e:00:00:01";
		} else if (strcmp(w, "<spec>") == 0) {
			v = specs[rand_r(seed) % 6];
		} else if (strcmp(w, "<sizes>") == 0) {
			v = rand_r(seed) % 2 ? "64,64,30" : "42";
		} else if (strcmp(w, "<level>") == 0) {
			v = rand_r(seed) % 2 ? "debug" : "error";
		} else if (strcmp(w, "<words...>") == 0) {
			v = "port";
		} else if (strcmp(w, "<ms>") == 0) {
			v = "5";
		} else if (strcmp(w, "<verbosity>") == 0) {
			/* Quiet or refused: a verbose level would print every
			 * packet and bury the output this test reads (set verbose
			 * has its own test, test_testpmd_dpdkcmds.c). */
			v = rand_r(seed) % 2 ? "0" : "300";
		} else if (w[0] == '<') {
			v = nums[rand_r(seed) % 12];
		} else {
			unsigned n = 1, k;
			char *p = w;

			for (char *c = w; *c; c++)
				n += *c == '|';
			k = rand_r(seed) % n;
			while (k--)
				p = strchr(p, '|') + 1;
			p[strcspn(p, "|")] = '\0';
			v = p;
		}
		off += (size_t)snprintf(line + off, len - off, "%s%s", off ? " " : "", v);
		s += l;
		while (*s == ' ')
			s++;
	}
	if (strncmp(line, "quit", 4) == 0 || strncmp(line, "sleep", 5) == 0)
		snprintf(line, len, "show config fwd");
	/* Now and then a word too many, or one missing. */
	if (rand_r(seed) % 10 == 0 && off + 8 < len)
		strcat(line, " extra");
	else if (rand_r(seed) % 10 == 0 && strrchr(line, ' '))
		*strrchr(line, ' ') = '\0';
}

Test(testpmd_binary, random_commands_never_crash_it, .timeout = 240)
{
	static char script[1 << 16];
	size_t off = 0;

	setenv("ASAN_OPTIONS", "exitcode=99", 1);
	for (unsigned round = 0; round < 3; round++) {
		unsigned seed = 1234 + round;

		off = 0;
		for (int i = 0; i < 250; i++) {
			char line[256];

			random_line(line, sizeof(line), &seed);
			off += (size_t)snprintf(script + off, sizeof(script) - off, "%s\n", line);
		}
		int st = run("--vdev ring0 --vdev ring1,peer=ring0 --vdev null0 --continue", script, out, sizeof(out));

		cr_assert(st == 0 || st == 1, "seed %u: exit status %d:\n%s", seed, st, out);
		if (getenv("TESTPMD_RANDOM_DUMP"))
			fprintf(stderr, "%s", out);
		HASNT(out, "Sanitizer");
		HASNT(out, "runtime error");
		HASNT(out, "internal:");
		HAS(out, "Bye...");
	}
}

/* ---- the binary at a terminal (libedit) -------------------------------------------- */

/* Read what the terminal shows for @p ms milliseconds, appended to out. */
static void tty_read(int fd, size_t *n, int ms)
{
	binary_tty_read(fd, out, sizeof(out), n, ms);
}

Test(testpmd_binary, at_a_terminal_tab_completes_commands_and_port_numbers_and_history_recalls,
     .timeout = 60)
{
	int fd, st;
	size_t n = 0;
	pid_t pid = forkpty(&fd, NULL, NULL, NULL);

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		setenv("HOME", "/tmp", 1);
		execl(binary(), "unic-testpmd", "--no-huge", "--no-pci", "--vdev", "null0", "--vdev", "null1",
		      (char *)NULL);
		_exit(127);
	}
	tty_read(fd, &n, 1500);
	HAS(out, "testpmd> ");
	cr_assert_eq(write(fd, "sh\t", 3), 3);
	tty_read(fd, &n, 300);
	HAS(out, "ow ");                       /* "sh" became "show " */
	cr_assert_eq(write(fd, "port li\t", 8), 8);
	tty_read(fd, &n, 300);
	cr_assert_eq(write(fd, "\t\t", 2), 2);  /* list the candidates: the ports and all */
	tty_read(fd, &n, 300);
	HAS(out, "0    1    all");
	cr_assert_eq(write(fd, "1\n", 2), 2);
	tty_read(fd, &n, 500);
	HAS(out, "Port 1 Link up");
	size_t before = n;

	cr_assert_eq(write(fd, "\033[A\n", 4), 4); /* up arrow: the last line again */
	tty_read(fd, &n, 500);
	HAS(out + before, "Port 1 Link up");
	cr_assert_eq(write(fd, "quit\n", 5), 5);
	tty_read(fd, &n, 1000);
	HAS(out, "Bye...");
	close(fd);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 0);
}
