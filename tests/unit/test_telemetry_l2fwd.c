/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-l2fwd (UNIC_L2FWD) over null ports, queried through its telemetry
 * socket while it forwards: its counters move between two queries, bad
 * requests get errors while it keeps forwarding, and what telemetry said
 * agrees with the totals it prints at exit (they can only have grown
 * since). --no-telemetry and a runtime folder it cannot make.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "run_binary.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "expected «%s» in «%s»", (sub), (s))
#define HASNT(s, sub) cr_assert(strstr((s), (sub)) == NULL, "did not expect «%s» in «%s»", (sub), (s))

static char rundir[64];

static void rundir_make(void)
{
	snprintf(rundir, sizeof(rundir), "/tmp/unic-tell2-XXXXXX");
	cr_assert_not_null(mkdtemp(rundir));
	setenv("XDG_RUNTIME_DIR", rundir, 1);
}

static void rundir_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", rundir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(telemetry_l2fwd, .init = rundir_make, .fini = rundir_remove, .timeout = 120);

static char answer[128 * 1024];

static int sock_open(const char *path)
{
	return binary_telemetry_connect(path);
}

static const char *ask(int fd, const char *req, size_t len)
{
	return binary_telemetry_ask(fd, req, len, answer, sizeof(answer));
}

/* The number after "key": in the object that starts at @p anchor. */
static uint64_t num_after(const char *s, const char *anchor, const char *key)
{
	const char *a = strstr(s, anchor), *k;
	char pat[64];

	cr_assert_not_null(a, "no «%s» in «%s»", anchor, s);
	snprintf(pat, sizeof(pat), "\"%s\":", key);
	k = strstr(a, pat);
	cr_assert_not_null(k, "no «%s» after «%s» in «%s»", pat, anchor, s);
	return strtoull(k + strlen(pat), NULL, 10);
}

Test(telemetry_l2fwd, a_forwarding_l2fwd_answers_and_agrees_with_its_totals)
{
	char *const argv[] = { "unic-l2fwd", "--no-huge", "--no-pci", "--vdev", "null0", "--vdev",
			       "null1", "--file-prefix", "tl2", "-T", "0", "--json", NULL };
	static char buf[1 << 18];
	char path[256], huge[3000];
	const char *a, *p;
	uint64_t rx1, rx2, tx2, drop2, ipk, rxf, txf, dropf, ipkf;
	size_t n = 0;
	pid_t pid;
	int out, fd, st;

	pid = binary_spawn(binary_path("UNIC_L2FWD"), argv, NULL, &out);
	cr_assert(binary_read_until(out, buf, sizeof(buf), &n, "--no-telemetry turns it off)", 30000),
		  "no telemetry line: %s", buf);
	p = strstr(buf, "l2fwd: telemetry on ");
	cr_assert_not_null(p, "%s", buf);
	cr_assert_eq(sscanf(p, "l2fwd: telemetry on %255s", path), 1);
	HAS(path, "/unic/tl2/telemetry.sock");
	fd = sock_open(path);

	/* Values move between two queries (the first may come before any
	 * packet: ask until they do; a stuck forwarder fails on the suite's
	 * timeout, not on a clock here). */
	a = ask(fd, "/l2fwd/threads", 14);
	HAS(a, "{\"/l2fwd/threads\":{\"threads\":[{\"thread\":0,");
	rx1 = num_after(a, "\"ports\":[{\"port\":0,", "rx");
	do {
		usleep(50 * 1000);
		a = ask(fd, "/l2fwd/threads", 14);
		rx2 = num_after(a, "\"ports\":[{\"port\":0,", "rx");
	} while (rx2 == rx1);
	cr_assert_gt(rx2, rx1);

	/* The library's own commands, while it forwards. */
	a = ask(fd, "/napi/list", 10);
	HAS(a, "{\"/napi/list\":[0,1]}");
	a = ask(fd, "/napi/context,0", 15);
	HAS(a, "\"name\":\"l2fwd0\",\"mode\":\"hybrid\"");
	HAS(a, "\"queues\":[{\"port\":0,\"port_name\":\"null0\",\"queue\":0,");
	a = ask(fd, "/mem/pools", 10);
	/* One pool a port, named after it. */
	HAS(a, "{\"/mem/pools\":[{\"name\":\"l2fwd-null0\",\"size\":");
	HAS(a, "{\"name\":\"l2fwd-null1\",\"size\":");
	a = ask(fd, "/proc/cpu", 9);
	HAS(a, "\"name\":\"unic-telemetry\"");

	/* Bad requests: errors, and the forwarding goes on. */
	a = ask(fd, "/no/such", 8);
	HAS(a, "{\"error\":\"unknown command '/no/such'");
	a = ask(fd, "garbage\x07", 8);
	HAS(a, "{\"error\":\"byte 0x07 at offset 7");
	memset(huge, '/', sizeof(huge));
	a = ask(fd, huge, sizeof(huge));
	HAS(a, "{\"error\":\"request of 3000 bytes; the limit is 1024\"}");

	a = ask(fd, "/ports/stats,0", 14);
	ipk = num_after(a, "{\"/ports/stats\":", "ipackets");
	a = ask(fd, "/l2fwd/threads", 14);
	rx2 = num_after(a, "\"ports\":[{\"port\":0,", "rx");
	tx2 = num_after(a, "{\"port\":1,", "tx");
	drop2 = num_after(a, "{\"port\":1,", "dropped");
	cr_assert_gt(rx2, rx1, "forwarding stopped after the bad requests");
	close(fd);

	cr_assert_eq(kill(pid, SIGTERM), 0);
	binary_read_until(out, buf, sizeof(buf), &n, NULL, 60000);
	close(out);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s", buf);
	p = strstr(buf, "{\"type\":\"totals\"");
	cr_assert_not_null(p, "no totals: %s", buf);
	rxf = num_after(p, "{\"port\":0,", "rx");
	ipkf = num_after(p, "{\"port\":0,", "ipackets");
	txf = num_after(p, "{\"port\":1,", "tx");
	dropf = num_after(p, "{\"port\":1,", "dropped");
	/* What telemetry read last is what the totals had then: they only
	 * grew since, and the port layer's count agrees with l2fwd's. */
	cr_assert_geq(rxf, rx2, "final rx %" PRIu64 " < telemetry's %" PRIu64, rxf, rx2);
	cr_assert_geq(txf, tx2, "final tx %" PRIu64 " < telemetry's %" PRIu64, txf, tx2);
	cr_assert_geq(dropf, drop2);
	cr_assert_geq(ipkf, ipk);
	cr_assert_eq(ipkf, rxf, "the port's ipackets and l2fwd's rx disagree at exit");
	cr_assert_eq(access(path, F_OK), -1, "the socket is left after exit");
}

Test(telemetry_l2fwd, no_telemetry_starts_none_and_an_unusable_folder_is_a_warning)
{
	static char buf[1 << 16];
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "%s --no-huge --no-pci --vdev null0 --vdev null1 -T 0 -t 0.2 --no-telemetry 2>&1",
		 binary_path("UNIC_L2FWD"));
	cr_assert_eq(binary_run(cmd, buf, sizeof(buf)), 0, "%s", buf);
	HASNT(buf, "telemetry");
	HAS(buf, "Totals over");
	/* XDG_RUNTIME_DIR a file: the folder cannot be made. */
	snprintf(cmd, sizeof(cmd), "XDG_RUNTIME_DIR=/dev/null %s --no-huge --no-pci --vdev null0 --vdev null1 -T 0 -t 0.2 2>&1",
		 binary_path("UNIC_L2FWD"));
	cr_assert_eq(binary_run(cmd, buf, sizeof(buf)), 0, "%s", buf);
	HAS(buf, "l2fwd: warning: no telemetry: ");
	HAS(buf, "Totals over");
	/* ... unless asked for: then it is an error. */
	snprintf(cmd, sizeof(cmd), "XDG_RUNTIME_DIR=/dev/null %s --no-huge --no-pci --vdev null0 --vdev null1 -T 0 -t 0.2 --telemetry 2>&1",
		 binary_path("UNIC_L2FWD"));
	cr_assert_eq(binary_run(cmd, buf, sizeof(buf)), 1, "%s", buf);
	HAS(buf, "l2fwd: error: --telemetry: cannot start the telemetry socket");
}

TestSuite(telemetry_testpmd, .init = rundir_make, .fini = rundir_remove, .timeout = 120);

Test(telemetry_testpmd, a_forwarding_testpmd_answers_its_streams_and_a_sleep_blocks_nothing)
{
	char *const argv[] = { "unic-testpmd", "--no-huge", "--no-pci", "--vdev", "null0", "--vdev",
			       "null1", "--file-prefix", "ttp", NULL };
	static char buf[1 << 16];
	char path[256];
	const char *a, *p;
	uint64_t rx1, rx2;
	size_t n = 0;
	pid_t pid;
	int out, fd, st;

	/* The script sleeps (a signal ends it): telemetry answers meanwhile. */
	pid = binary_spawn(binary_path("UNIC_TESTPMD"), argv, "start\nsleep 600000\nstop\nquit\n", &out);
	cr_assert(binary_read_until(out, buf, sizeof(buf), &n, "io packet forwarding", 30000),
		  "not forwarding: %s", buf);
	p = strstr(buf, "testpmd: telemetry on ");
	cr_assert_not_null(p, "%s", buf);
	cr_assert_eq(sscanf(p, "testpmd: telemetry on %255s", path), 1);
	fd = sock_open(path);
	a = ask(fd, "/testpmd/streams", 16);
	HAS(a, "{\"/testpmd/streams\":{\"forwarding\":true,\"engine\":\"io\",\"streams\":[{\"stream\":0,\"rx_port\":0,\"rx_queue\":0,\"tx_port\":1,\"tx_queue\":0,");
	rx1 = num_after(a, "{\"stream\":0,", "rx");
	do {
		usleep(50 * 1000);
		a = ask(fd, "/testpmd/streams", 16);
		rx2 = num_after(a, "{\"stream\":0,", "rx");
	} while (rx2 == rx1);
	cr_assert_gt(rx2, rx1);
	close(fd);
	cr_assert_eq(kill(pid, SIGTERM), 0);
	binary_read_until(out, buf, sizeof(buf), &n, NULL, 60000);
	close(out);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "%s", buf);
	cr_assert_eq(access(path, F_OK), -1, "the socket is left after exit");
}
