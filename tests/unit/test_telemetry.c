/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/telemetry: the server in this process, in a temporary runtime folder.
 * Its commands against a null port, a pool and a napi context; malformed,
 * unknown and oversized requests; a peer of another uid refused; a stale
 * socket reclaimed; a second instance named apart; clients that never read
 * or never send; the request parser alone.
 */
#include <errno.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include <unic/napi.h>
#include <unic/pool.h>
#include <unic/port.h>
#include <unic/telemetry.h>

#include "port_fixture.h"
#include "../../lib/telemetry/tel_priv.h"

static char rundir[64];

static void rundir_make(void)
{
	snprintf(rundir, sizeof(rundir), "/tmp/unic-tel-XXXXXX");
	cr_assert_not_null(mkdtemp(rundir), "mkdtemp: %s", strerror(errno));
}

static void rundir_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", rundir);
	cr_assert_eq(system(cmd), 0);
}

static struct unic_telemetry *tel_start(const char *prefix, uint32_t max_clients, uint32_t idle_ms)
{
	struct unic_telemetry_conf c = { .sz = sizeof(c), .prefix = prefix, .runtime_dir = rundir,
					 .max_clients = max_clients, .idle_timeout_ms = idle_ms };
	struct unic_telemetry *tel = unic_telemetry_start(&c);

	cr_assert_not_null(tel, "unic_telemetry_start: %s", strerror(errno));
	return tel;
}

static int tel_connect_path(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	cr_assert_geq(fd, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		close(fd);
		return -errno;
	}
	return fd;
}

/* Receive one message (the test's safety net: 20 s, never a timing claim). */
static ssize_t tel_recv(int fd, char *buf, size_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	cr_assert_eq(poll(&p, 1, 20000), 1, "no answer within 20 s");
	n = recv(fd, buf, len - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Connect and read the hello. */
static int tel_connect(struct unic_telemetry *tel)
{
	char buf[256];
	int fd = tel_connect_path(unic_telemetry_path(tel));

	cr_assert_geq(fd, 0, "connect %s: %s", unic_telemetry_path(tel), strerror(-fd));
	cr_assert_gt(tel_recv(fd, buf, sizeof(buf)), 0);
	cr_assert(strstr(buf, "\"version\":\"unic ") != NULL, "hello: %s", buf);
	return fd;
}

static char answer[128 * 1024];

static const char *tel_ask(int fd, const char *req)
{
	cr_assert_eq(send(fd, req, strlen(req), 0), (ssize_t)strlen(req));
	cr_assert_gt(tel_recv(fd, answer, sizeof(answer)), 0, "%s: no answer", req);
	return answer;
}

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "expected «%s» in «%s»", (sub), (s))
#define HASNT(s, sub) cr_assert(strstr((s), (sub)) == NULL, "did not expect «%s» in «%s»", (sub), (s))

TestSuite(telemetry, .init = rundir_make, .fini = rundir_remove);

Test(telemetry, hello_names_the_version_pid_and_max_output_length)
{
	struct unic_telemetry *tel = tel_start("hello", 0, 0);
	char buf[256], want[64];
	int fd = tel_connect_path(unic_telemetry_path(tel));

	cr_assert_geq(fd, 0);
	cr_assert_gt(tel_recv(fd, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "\"pid\":%ld", (long)getpid());
	HAS(buf, want);
	HAS(buf, "\"max_output_len\":65536");
	HAS(unic_telemetry_path(tel), "/unic/hello/telemetry.sock");
	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, folder_is_0700_socket_0600_and_removed_at_stop)
{
	struct unic_telemetry *tel = tel_start("modes", 0, 0);
	char path[128], dir[128];
	struct stat st;

	snprintf(path, sizeof(path), "%s", unic_telemetry_path(tel));
	snprintf(dir, sizeof(dir), "%s/unic/modes", rundir);
	cr_assert_eq(stat(dir, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0700, "folder mode %o", st.st_mode & 0777);
	cr_assert_eq(st.st_uid, geteuid());
	cr_assert_eq(stat(path, &st), 0);
	cr_assert(S_ISSOCK(st.st_mode));
	cr_assert_eq(st.st_mode & 0777, 0600, "socket mode %o", st.st_mode & 0777);
	unic_telemetry_stop(tel);
	cr_assert_eq(stat(path, &st), -1, "the socket is left after stop");
}

Test(telemetry, slash_lists_the_commands_and_help_explains_them)
{
	struct unic_telemetry *tel = tel_start("list", 0, 0);
	int fd = tel_connect(tel);
	const char *a;

	a = tel_ask(fd, "/");
	HAS(a, "{\"/\":[\"/\",\"/help\",\"/ports/list\",\"/ports/info\",\"/ports/stats\",\"/ports/xstats\"");
	HAS(a, "\"/napi/list\",\"/napi/context\",\"/mem/pools\",\"/proc/cpu\"]}");
	a = tel_ask(fd, "/help");
	HAS(a, "\"/ports/stats\":\"a port's counters");
	a = tel_ask(fd, "/help,/proc/cpu");
	HAS(a, "{\"/help\":{\"/proc/cpu\":\"CPU seconds");
	HASNT(a, "/ports/stats");
	a = tel_ask(fd, "/help,/nothing");
	HAS(a, "{\"error\":\"/help: no command '/nothing'");
	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, port_commands_answer_for_a_null_port_and_refuse_an_unknown_one)
{
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *port;
	struct unic_pkt *pkts[8];
	struct unic_telemetry *tel = tel_start("ports", 0, 0);
	char req[64], want[64];
	int fd = tel_connect(tel), n;
	const char *a;

	fixture_mem_pool(&mem, &pool, "telpool", 1024, 32);
	port = fixture_port_create("null70");
	fixture_port_up(port, pool, 1, 64, UNIC_RX_MODE_POLL);
	n = unic_rx_burst(port, 0, pkts, 8);
	cr_assert_eq(n, 8);
	unic_pkt_free_bulk(pkts, 8);

	a = tel_ask(fd, "/ports/list");
	snprintf(want, sizeof(want), "%u", unic_port_id(port));
	HAS(a, "{\"/ports/list\":[");
	HAS(a, want);
	snprintf(req, sizeof(req), "/ports/info,%u", unic_port_id(port));
	a = tel_ask(fd, req);
	HAS(a, "\"name\":\"null70\",\"driver\":\"null\"");
	HAS(a, "\"state\":\"started\"");
	HAS(a, "\"nb_rxq\":1");
	/* A null port has no node; unic-telemetry's unic_port_numa_node reads this. */
	HAS(a, "\"numa_node\":-1,");
	snprintf(req, sizeof(req), "/ports/stats,%u", unic_port_id(port));
	a = tel_ask(fd, req);
	HAS(a, "{\"/ports/stats\":{\"ipackets\":8,");
	HAS(a, "\"q_ipackets\":[8]");
	snprintf(req, sizeof(req), "/ports/xstats,%u", unic_port_id(port));
	a = tel_ask(fd, req);
	HAS(a, "{\"/ports/xstats\":{\"");
	HAS(a, "\"rx_q0_packets\":8");

	a = tel_ask(fd, "/ports/stats,999");
	HAS(a, "{\"error\":\"/ports/stats: no port 999 (/ports/list lists them)\"}");
	a = tel_ask(fd, "/ports/stats");
	HAS(a, "{\"error\":\"/ports/stats needs a number: /ports/stats,N (got '')\"}");
	a = tel_ask(fd, "/ports/stats,1x");
	HAS(a, "{\"error\":\"/ports/stats: bad number '1x'; expected 0 to 65535\"}");

	/* Detached while a client holds its id: an error, not freed memory. */
	struct unic_port *ref = unic_port_get(port);

	fixture_port_down(port);
	a = tel_ask(fd, req);
	HAS(a, "{\"error\":");
	unic_port_put(ref);
	close(fd);
	unic_telemetry_stop(tel);
	fixture_mem_pool_free(mem, pool);
}

Test(telemetry, mem_pools_lists_each_pool_with_its_use)
{
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_pkt *p;
	struct unic_telemetry *tel = tel_start("pools", 0, 0);
	int fd = tel_connect(tel);
	const char *a;

	fixture_mem_pool(&mem, &pool, "telpool2", 512, 0);
	p = unic_pkt_alloc(pool);
	cr_assert_not_null(p);
	a = tel_ask(fd, "/mem/pools");
	HAS(a, "{\"name\":\"telpool2\",\"size\":512,\"in_use\":1,\"avail\":511,\"cache\":0,\"cache_size\":0");
	HAS(a, "\"packet_pool\":true,\"numa_node\":0,\"get_fail\":0}");
	unic_pkt_free(p);
	fixture_mem_pool_free(mem, pool);
	a = tel_ask(fd, "/mem/pools");
	HASNT(a, "telpool2");
	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, napi_commands_show_a_context_until_it_is_destroyed)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .name = "telctx", .mode = UNIC_RX_MODE_POLL };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&nc);
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *port;
	struct unic_telemetry *tel = tel_start("napi", 0, 0);
	char req[64], want[64];
	int fd = tel_connect(tel);
	const char *a;

	cr_assert_not_null(ctx);
	fixture_mem_pool(&mem, &pool, "telnapi", 1024, 32);
	port = fixture_port_create("null71");
	fixture_port_up(port, pool, 1, 64, UNIC_RX_MODE_POLL);
	cr_assert_eq(unic_napi_queue_add(ctx, port, 0, 32, NULL, NULL),
		     -EINVAL); /* a NULL handler is refused: the queue is not there */
	a = tel_ask(fd, "/napi/list");
	snprintf(want, sizeof(want), "%u", unic_napi_ctx_id(ctx));
	HAS(a, want);
	snprintf(req, sizeof(req), "/napi/context,%u", unic_napi_ctx_id(ctx));
	a = tel_ask(fd, req);
	HAS(a, "\"name\":\"telctx\",\"mode\":\"poll\"");
	HAS(a, "\"wake_latency_ns\":{\"p50\":0,\"p90\":0,\"p99\":0,\"p99_9\":0,\"max\":0}");
	HAS(a, "\"queues\":[]");
	unic_napi_ctx_destroy(ctx);
	a = tel_ask(fd, req);
	HAS(a, "{\"error\":\"/napi/context: no napi context");
	fixture_port_down(port);
	fixture_mem_pool_free(mem, pool);
	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, napi_context_shows_the_adaptive_policy_counters_and_estimates)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .name = "teladapt", .latency_target_us = 10 };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&nc);
	struct unic_telemetry *tel = tel_start("napia", 0, 0);
	char req[64];
	int fd = tel_connect(tel);
	const char *a;

	cr_assert_not_null(ctx);
	/* A round and a sleep publish the estimates: the wake cost's seeds
	 * (10 + 2 us, no wake measured yet) and the whole budget (the
	 * default 25% of 100 ms). */
	cr_assert_geq(unic_napi_run_once(ctx, 1000), 0);
	snprintf(req, sizeof(req), "/napi/context,%u", unic_napi_ctx_id(ctx));
	a = tel_ask(fd, req);
	HAS(a, "\"mode\":\"hybrid\"");
	HAS(a, "\"adaptive\":{\"busy_polls_kept\":0,\"sleeps_avoided\":0,\"busy_wait_ns\":0,"
	       "\"budget_arms\":0,\"prewakes\":0,\"target_met\":0,\"target_missed\":0,\"target_early\":0,\"target_late_wake\":0,\"target_after_window\":0,\"target_no_window\":0,"
	       "\"est_wake_ns\":12000,\"est_gap_ns\":0,\"budget_left_ns\":25000000,\"moderation_set\":0}");
	unic_napi_ctx_destroy(ctx);
	close(fd);
	unic_telemetry_stop(tel);
}

static uint16_t tel_eat(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n, void *arg)
{
	(void)port, (void)q, (void)arg;
	unic_pkt_free_bulk(pkts, n);
	return n;
}

Test(telemetry, napi_context_shows_its_queues_counters_and_moderation_switch, .timeout = 30)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .name = "telq", .mode = UNIC_RX_MODE_POLL };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&nc);
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *port;
	struct unic_telemetry *tel = tel_start("napiq", 0, 0);
	char req[64], want[96];
	int fd = tel_connect(tel);
	const char *a;

	cr_assert_not_null(ctx);
	fixture_mem_pool(&mem, &pool, "telq", 1024, 32);
	port = fixture_port_create("null72");
	fixture_port_up(port, pool, 1, 64, UNIC_RX_MODE_POLL);
	cr_assert_eq(unic_napi_queue_add(ctx, port, 0, 16, tel_eat, NULL), 0);
	for (int i = 0; i < 3; i++)
		cr_assert_geq(unic_napi_run_once(ctx, 0), 0);
	snprintf(req, sizeof(req), "/napi/context,%u", unic_napi_ctx_id(ctx));
	a = tel_ask(fd, req);
	snprintf(want, sizeof(want), "\"queues\":[{\"port\":%u,\"port_name\":\"null72\",\"queue\":0,\"weight\":16,\"polls\":3,",
		 unic_port_id(port));
	HAS(a, want);
	HAS(a, "\"rounds\":3,\"polls\":3,\"empty_polls\":0,\"packets\":48");
	/* The moderation switch, as unic_napi_moderation_get() has it. */
	HAS(a, "\"gap_ns\":0,\"moderation\":\"adaptive\",\"moderation_us\":-1,\"moderation_effect_us\":-1}]");
	cr_assert_eq(unic_napi_moderation_set(ctx, port, true), 0);
	cr_assert_eq(unic_napi_moderation_get(ctx, port), 1);
	a = tel_ask(fd, req);
	HAS(a, "\"gap_ns\":0,\"moderation\":\"fixed\",\"moderation_us\":-1,\"moderation_effect_us\":-1}]");
	unic_napi_ctx_destroy(ctx);
	fixture_port_down(port);
	fixture_mem_pool_free(mem, pool);
	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, proc_cpu_gives_the_process_and_its_threads)
{
	struct unic_telemetry *tel = tel_start("cpu", 0, 0);
	int fd = tel_connect(tel);
	char want[64];
	const char *a;

	a = tel_ask(fd, "/proc/cpu");
	snprintf(want, sizeof(want), "{\"/proc/cpu\":{\"pid\":%ld,\"cpu_seconds\":", (long)getpid());
	HAS(a, want);
	HAS(a, "\"name\":\"unic-telemetry\",\"cpu_seconds\":");
	snprintf(want, sizeof(want), "{\"tid\":%ld,", (long)getpid());
	HAS(a, want);
	close(fd);
	unic_telemetry_stop(tel);
}

static int app_cmd(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	int *calls = arg;

	(*calls)++;
	if (strcmp(param, "fail") == 0) {
		unic_tel_out_error(out, "%s: asked to fail", cmd);
		return -EIO;
	}
	if (strcmp(param, "big") == 0) {
		for (int i = 0; i < 20000; i++)
			unic_tel_out_printf(out, "0123456789");
		return 0;
	}
	unic_tel_out_printf(out, "{\"calls\":%d,\"param\":", *calls);
	unic_tel_out_str(out, param);
	unic_tel_out_printf(out, "}");
	return 0;
}

Test(telemetry, an_app_command_answers_and_its_errors_reach_the_client)
{
	struct unic_telemetry *tel = tel_start("app", 0, 0);
	int calls = 0, fd = tel_connect(tel);
	const char *a;

	cr_assert_eq(unic_telemetry_register(tel, "/app/figures", app_cmd, &calls, "the app's"), 0);
	cr_assert_eq(unic_telemetry_register(tel, "/app/figures", app_cmd, &calls, "again"), -EEXIST);
	cr_assert_eq(unic_telemetry_register(tel, "app/bad", app_cmd, &calls, "no slash"), -EINVAL);
	cr_assert_eq(unic_telemetry_register(tel, "/app/b d", app_cmd, &calls, "space"), -EINVAL);
	a = tel_ask(fd, "/app/figures,x\"y");
	cr_assert_str_eq(a, "{\"/app/figures\":{\"calls\":1,\"param\":\"x\\\"y\"}}");
	a = tel_ask(fd, "/app/figures,fail");
	cr_assert_str_eq(a, "{\"error\":\"/app/figures: asked to fail\"}");
	a = tel_ask(fd, "/app/figures,big");
	HAS(a, "{\"error\":\"the answer to /app/figures is longer than max_output_len (65536 bytes)\"}");
	a = tel_ask(fd, "/app/figures");
	HAS(a, "\"calls\":4");
	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, bad_requests_get_an_error_naming_the_fault_and_the_connection_stays)
{
	struct unic_telemetry *tel = tel_start("bad", 0, 0);
	int fd = tel_connect(tel);
	char huge[4000];
	const char *a;

	a = tel_ask(fd, "/nothing/here");
	cr_assert_str_eq(a, "{\"error\":\"unknown command '/nothing/here' ('/' lists them)\"}");
	a = tel_ask(fd, "ports/list");
	HAS(a, "{\"error\":\"bad command 'ports/list'; a command starts with '/'");
	a = tel_ask(fd, "/ports/list\x01");
	HAS(a, "{\"error\":\"byte 0x01 at offset 11 of the request; expected printable ASCII\"}");
	a = tel_ask(fd, "\n");
	HAS(a, "{\"error\":\"empty request");
	memset(huge, 'a', sizeof(huge));
	huge[0] = '/';
	cr_assert_eq(send(fd, huge, sizeof(huge), 0), (ssize_t)sizeof(huge));
	cr_assert_gt(tel_recv(fd, answer, sizeof(answer)), 0);
	cr_assert_str_eq(answer, "{\"error\":\"request of 4000 bytes; the limit is 1024\"}");
	a = tel_ask(fd, "/ports/list\n");
	HAS(a, "{\"/ports/list\":[");
	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, a_peer_of_another_uid_is_refused)
{
	struct unic_telemetry *tel;
	char dir[128], path[128];
	pid_t pid;
	int st;

	if (geteuid() != 0)
		cr_skip_test("needs root: the child changes its uid to nobody's");
	tel = tel_start("uid", 0, 0);
	snprintf(path, sizeof(path), "%s", unic_telemetry_path(tel));
	/* Open the way on the filesystem (as a careless chmod would): the
	 * server's own uid check must still refuse the stranger. */
	snprintf(dir, sizeof(dir), "%s/unic/uid", rundir);
	cr_assert_eq(chmod(rundir, 0755), 0);
	cr_assert_eq(chmod(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/unic", rundir);
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_eq(chmod(path, 0666), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		char buf[512];
		int fd;
		ssize_t n;

		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(10);
		fd = tel_connect_path(path);
		if (fd < 0)
			_exit(11);                 /* could not even connect */
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		if (n <= 0)
			_exit(12);
		buf[n] = '\0';
		if (strstr(buf, "{\"error\":\"permission denied") == NULL)
			_exit(13);                 /* a hello: let in */
		n = recv(fd, buf, sizeof(buf) - 1, 0);
		_exit(n == 0 ? 0 : 14);        /* then closed */
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st));
	cr_assert_eq(WEXITSTATUS(st), 0, "child exit %d (11: no connect, 13: let in, 14: not closed)",
		     WEXITSTATUS(st));
	/* The owner still gets in. */
	int fd = tel_connect(tel);

	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, a_stale_socket_of_a_dead_process_is_reclaimed)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct unic_telemetry *tel;
	char dir[80];
	int fd;

	snprintf(dir, sizeof(dir), "%s/unic", rundir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	snprintf(dir, sizeof(dir), "%s/unic/stale", rundir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	/* Bound and closed without unlink: what a killed process leaves. */
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/telemetry.sock", dir);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(fd);
	cr_assert_eq(tel_connect_path(sun.sun_path), -ECONNREFUSED);

	tel = tel_start("stale", 0, 0);
	cr_assert_str_eq(unic_telemetry_path(tel), sun.sun_path);
	cr_assert_eq(unic_telemetry_instance(tel), 0);
	fd = tel_connect(tel);
	close(fd);
	unic_telemetry_stop(tel);
}

Test(telemetry, a_second_instance_of_a_prefix_gets_its_own_socket)
{
	struct unic_telemetry *a = tel_start("twice", 0, 0);
	struct unic_telemetry *b = tel_start("twice", 0, 0);
	struct unic_telemetry *c;
	int fa, fb;

	HAS(unic_telemetry_path(a), "/unic/twice/telemetry.sock");
	HAS(unic_telemetry_path(b), "/unic/twice/telemetry.1.sock");
	cr_assert_eq(unic_telemetry_instance(b), 1);
	fa = tel_connect(a);
	fb = tel_connect(b);
	close(fa);
	close(fb);
	/* The first goes: its name is free for the next one. */
	unic_telemetry_stop(a);
	c = tel_start("twice", 0, 0);
	HAS(unic_telemetry_path(c), "/unic/twice/telemetry.sock");
	unic_telemetry_stop(b);
	unic_telemetry_stop(c);
}

Test(telemetry, a_bad_prefix_or_a_folder_of_another_user_is_refused)
{
	struct unic_telemetry_conf c = { .sz = sizeof(c), .prefix = "../x", .runtime_dir = rundir };
	char dir[128];

	cr_assert_null(unic_telemetry_start(&c));
	cr_assert_eq(errno, EINVAL);
	if (geteuid() != 0)
		return;
	snprintf(dir, sizeof(dir), "%s/unic", rundir);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(chown(dir, 65534, 65534), 0);
	c.prefix = "theirs";
	cr_assert_null(unic_telemetry_start(&c));
	cr_assert_eq(errno, EPERM);
}

Test(telemetry, a_client_that_never_reads_is_dropped_and_others_are_served)
{
	struct unic_telemetry *tel = tel_start("noread", 0, 0);
	int lazy = tel_connect(tel), fd;
	const char *a;
	int sent = 0;

	/* Ask and never read: its socket fills and the server drops it
	 * rather than wait. */
	for (int i = 0; i < 100000; i++) {
		if (send(lazy, "/proc/cpu", 9, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			break;
		sent++;
	}
	cr_assert_gt(sent, 0);
	fd = tel_connect(tel);
	a = tel_ask(fd, "/ports/list");
	HAS(a, "{\"/ports/list\":[");
	close(fd);
	close(lazy);
	unic_telemetry_stop(tel);
}

Test(telemetry, an_idle_client_is_dropped_and_the_client_count_is_bounded)
{
	struct unic_telemetry *tel = tel_start("idle", 2, 200);
	int a = tel_connect(tel), b = tel_connect(tel), c;
	char buf[256];

	/* A third one while two are connected: refused with a reason. */
	c = tel_connect_path(unic_telemetry_path(tel));
	cr_assert_geq(c, 0);
	cr_assert_gt(tel_recv(c, buf, sizeof(buf)), 0);
	HAS(buf, "{\"error\":\"too many clients: 2 are connected");
	close(c);
	/* Silent past the idle timeout: closed by the server (EOF). */
	cr_assert_eq(tel_recv(a, buf, sizeof(buf)), 0);
	cr_assert_eq(tel_recv(b, buf, sizeof(buf)), 0);
	close(a);
	close(b);
	c = tel_connect(tel);
	close(c);
	unic_telemetry_stop(tel);
}

/* ---- the parser alone ----------------------------------------------------------- */

Test(telemetry_parse, splits_the_command_from_its_parameter)
{
	char cmd[UNIC_TELEMETRY_CMD_MAX + 1], param[UNIC_TELEMETRY_REQ_MAX + 1], err[256];

	cr_assert_eq(tel_parse("/ports/stats,3", 14, cmd, param, err, sizeof(err)), 0);
	cr_assert_str_eq(cmd, "/ports/stats");
	cr_assert_str_eq(param, "3");
	cr_assert_eq(tel_parse("/\r\n", 3, cmd, param, err, sizeof(err)), 0);
	cr_assert_str_eq(cmd, "/");
	cr_assert_str_eq(param, "");
	cr_assert_eq(tel_parse("/a,b,c", 6, cmd, param, err, sizeof(err)), 0);
	cr_assert_str_eq(param, "b,c");
}

Test(telemetry_parse, refuses_a_command_too_long_or_with_a_bad_character)
{
	char cmd[UNIC_TELEMETRY_CMD_MAX + 1], param[UNIC_TELEMETRY_REQ_MAX + 1], err[256];
	char longcmd[80];

	memset(longcmd, 'a', sizeof(longcmd));
	longcmd[0] = '/';
	cr_assert_eq(tel_parse(longcmd, sizeof(longcmd), cmd, param, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "command of 80 bytes; the longest is 56");
	cr_assert_eq(tel_parse("/a-b", 4, cmd, param, err, sizeof(err)), -EINVAL);
	HAS(err, "bad command '/a-b'");
	cr_assert_eq(tel_parse("/a\0b", 4, cmd, param, err, sizeof(err)), -EINVAL);
	HAS(err, "byte 0x00 at offset 2");
	cr_assert_eq(tel_parse("", 0, cmd, param, err, sizeof(err)), -EINVAL);
	HAS(err, "empty request");
}
