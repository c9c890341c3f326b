/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen while it runs (apps/pktgen/live.c): the rate request handed
 * from another thread to the sending loop, every stream's rate scaled with
 * its share kept, the live screen formatted into a buffer; and the binary
 * (UNIC_PKTGEN) on a ring pair: its rate changed through its telemetry
 * socket mid-run and at a terminal with the + key, both recorded in the
 * final report. No assertion on time: the binary's checks wait for what
 * it prints, the suite's timeout bounds a stuck one.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "live.h"
#include "rate.h"
#include "run_binary.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "expected «%s» in «%s»", (sub), (s))
#define HASNT(s, sub) cr_assert(strstr((s), (sub)) == NULL, "did not expect «%s» in «%s»", (sub), (s))

/* ---- the rate: shares and scaling ------------------------------------------------ */

Test(pktgen_live, a_scaled_rate_keeps_every_streams_share)
{
	struct pg_rate_spec total = { .unit = PG_RATE_PPS, .value = 1e6 }, up, s1, s2;
	char err[256];

	s1 = pg_rate_share(&total, 25);
	s2 = pg_rate_share(&total, 75);
	cr_assert_eq(s1.unit, PG_RATE_PPS);
	cr_assert_float_eq(s1.value, 250e3, 1e-6);
	cr_assert_float_eq(s2.value, 750e3, 1e-6);
	cr_assert_eq(pg_rate_scale(&total, 1.1, &up, err, sizeof(err)), 0, "%s", err);
	cr_assert_float_eq(up.value, 1.1e6, 1e-3);
	s1 = pg_rate_share(&up, 25);
	s2 = pg_rate_share(&up, 75);
	cr_assert_float_eq(s1.value, 275e3, 1e-3);
	cr_assert_float_eq(s2.value, 825e3, 1e-3);
	cr_assert_float_eq(s2.value / s1.value, 3.0, 1e-12);
	/* Bit rates and percentages keep their unit. */
	total = (struct pg_rate_spec){ .unit = PG_RATE_BPS_WIRE, .value = 100e6 };
	cr_assert_eq(pg_rate_scale(&total, 0.9, &up, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(up.unit, PG_RATE_BPS_WIRE);
	cr_assert_float_eq(pg_rate_share(&up, 50).value, 45e6, 1e-3);
	/* Unlimited stays unlimited, whatever the share. */
	total = (struct pg_rate_spec){ .unit = PG_RATE_NONE };
	cr_assert_eq(pg_rate_share(&total, 30).unit, PG_RATE_NONE);
}

Test(pktgen_live, scaling_refuses_an_unlimited_rate_and_stops_at_the_limits)
{
	struct pg_rate_spec r = { .unit = PG_RATE_NONE }, out;
	char err[256];

	cr_assert_eq(pg_rate_scale(&r, 1.1, &out, err, sizeof(err)), -EINVAL);
	HAS(err, "unlimited");
	r = (struct pg_rate_spec){ .unit = PG_RATE_PCT, .value = 95 };
	cr_assert_eq(pg_rate_scale(&r, 1.1, &out, err, sizeof(err)), 0, "%s", err);
	cr_assert_float_eq(out.value, 100, 1e-9);  /* clamped */
	r = out;
	cr_assert_eq(pg_rate_scale(&r, 1.1, &out, err, sizeof(err)), -EINVAL);
	HAS(err, "100%");
	cr_assert_eq(pg_rate_scale(&r, 0.9, &out, err, sizeof(err)), 0, "%s", err);
	cr_assert_float_eq(out.value, 90, 1e-9);
	r = (struct pg_rate_spec){ .unit = PG_RATE_PPS, .value = PG_RATE_PPS_MIN };
	cr_assert_eq(pg_rate_scale(&r, 0.9, &out, err, sizeof(err)), -EINVAL);
	HAS(err, "0.001pps");
}

Test(pktgen_live, a_rate_is_written_back_in_the_form_rate_parses)
{
	static const char *const forms[] = { "50kpps", "1.5Mpps", "100Mbps", "10Gbps-wire", "10%", "7pps" };
	struct pg_rate_spec r, back;
	char buf[32], err[256];

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		cr_assert_eq(pg_rate_parse(forms[i], &r, err, sizeof(err)), 0, "%s", err);
		pg_rate_spec_format(&r, buf, sizeof(buf));
		cr_assert_str_eq(buf, forms[i]);
		cr_assert_eq(pg_rate_parse(buf, &back, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(back.unit, r.unit);
		cr_assert_float_eq(back.value, r.value, r.value * 1e-9);
	}
	r = (struct pg_rate_spec){ .unit = PG_RATE_NONE };
	pg_rate_spec_format(&r, buf, sizeof(buf));
	cr_assert_str_eq(buf, "unlimited");
}

/* ---- the request handed to the loop ---------------------------------------------- */

Test(pktgen_live, the_loop_takes_the_last_request_once)
{
	struct pg_rate_req q;
	struct pg_rate_spec a = { .unit = PG_RATE_PPS, .value = 1000 }, b = { .unit = PG_RATE_PCT, .value = 5 }, got;
	char text[32];

	pg_rate_req_init(&q);
	cr_assert_not(pg_rate_req_take(&q, &got, text), "nothing was asked");
	pg_rate_req_put(&q, &a, "1kpps");
	pg_rate_req_put(&q, &b, "5%");
	cr_assert(pg_rate_req_take(&q, &got, text));
	cr_assert_eq(got.unit, PG_RATE_PCT);
	cr_assert_float_eq(got.value, 5, 1e-12);
	cr_assert_str_eq(text, "5%");
	cr_assert_not(pg_rate_req_take(&q, &got, text), "taken twice");
}

struct putter {
	struct pg_rate_req *q;
	unsigned n;
};

static void *put_many(void *arg)
{
	struct putter *p = arg;

	for (unsigned i = 1; i <= p->n; i++) {
		struct pg_rate_spec s = { .unit = PG_RATE_PPS, .value = i };
		char t[32];

		snprintf(t, sizeof(t), "%upps", i);
		pg_rate_req_put(p->q, &s, t);
	}
	return NULL;
}

/* Another thread stores while the loop takes: every taken request is whole
 * (its value and text agree), they come in order, and the last one arrives. */
Test(pktgen_live, requests_from_another_thread_arrive_whole_and_in_order)
{
	struct pg_rate_req q;
	struct putter p = { .q = &q, .n = 20000 };
	struct pg_rate_spec got;
	double last = 0;
	char text[32], want[32];
	pthread_t th;
	bool done = false;

	pg_rate_req_init(&q);
	cr_assert_eq(pthread_create(&th, NULL, put_many, &p), 0);
	while (!done) {
		if (!pg_rate_req_take(&q, &got, text))
			continue;
		snprintf(want, sizeof(want), "%.0fpps", got.value);
		cr_assert_str_eq(text, want);
		cr_assert_gt(got.value, last);
		last = got.value;
		done = got.value == p.n;
	}
	pthread_join(th, NULL);
	cr_assert_not(pg_rate_req_take(&q, &got, text));
}

/* ---- the screen ------------------------------------------------------------------- */

static void screen_example(struct pg_screen *s)
{
	memset(s, 0, sizeof(*s));
	s->elapsed_s = 7;
	snprintf(s->rate, sizeof(s->rate), "50kpps");
	s->nb_txp = 1;
	s->txp[0] = (struct pg_screen_row){ .id = 0, .has_tx = true, .tx_pps = 50000, .tx_mbps = 25.6,
					    .sent = 350000 };
	s->nb_rxp = 1;
	s->rxp[0] = (struct pg_screen_row){ .id = 1, .has_rx = true, .rx_pps = 49990, .rx_mbps = 25.595,
					    .received = 349990 };
	s->nb_st = 2;
	s->st[0] = (struct pg_screen_row){ .id = 0, .has_tx = true, .has_rx = true, .has_lat = true,
					   .tx_pps = 12500, .rx_pps = 12500, .sent = 87500, .received = 87500,
					   .lost = 0, .p50_ns = 211, .p99_ns = 4095 };
	s->st[1] = (struct pg_screen_row){ .id = 1, .has_tx = true, .has_rx = true, .has_lat = true,
					   .tx_pps = 37500, .rx_pps = 37490, .sent = 262500, .received = 262490,
					   .lost = 10, .p50_ns = 199, .p99_ns = 8191 };
	s->total = (struct pg_screen_row){ .id = -1, .has_tx = true, .has_rx = true, .has_lat = true,
					   .tx_pps = 50000, .rx_pps = 49990, .sent = 350000, .received = 349990,
					   .lost = 10, .p50_ns = 203, .p99_ns = 8191 };
	snprintf(s->msg, sizeof(s->msg), "+: rate now 55kpps");
	s->keys = true;
}

/* The line of @p buf that starts with @p start (after any escape). */
static const char *line_of(const char *buf, const char *start, char *line, size_t len)
{
	const char *p = strstr(buf, start), *e;

	cr_assert_not_null(p, "no line «%s» in «%s»", start, buf);
	e = strstr(p, "\033[K");
	cr_assert_not_null(e);
	snprintf(line, len, "%.*s", (int)(e - p), p);
	return line;
}

Test(pktgen_live, the_screen_has_a_row_per_port_and_stream_a_total_and_the_keys)
{
	struct pg_screen s;
	char buf[8192], line[256];
	size_t n;

	screen_example(&s);
	n = pg_screen_format(&s, true, buf, sizeof(buf));
	cr_assert_eq(n, strlen(buf));
	cr_assert_eq(strncmp(buf, "\033[H", 3), 0, "the redraw starts at the top left");
	HAS(buf, "unic-pktgen  7 s  rate 50kpps\033[K\n");
	line_of(buf, "tx port 0", line, sizeof(line));
	cr_assert_eq(sscanf(line, "tx port 0 %*f %*f - - %" SCNu64, &(uint64_t){ 0 }), 1, "%s", line);
	HAS(line, " 50000 ");
	HAS(line, "25.600");
	HAS(line, "350000");
	line_of(buf, "rx port 1", line, sizeof(line));
	HAS(line, "49990");
	HAS(line, "349990");
	line_of(buf, "stream 1", line, sizeof(line));
	HAS(line, "262490");
	HAS(line, " 10 ");
	HAS(line, "8191");
	line_of(buf, "total", line, sizeof(line));
	HAS(line, "350000");
	HAS(line, "203");
	HAS(buf, "+: rate now 55kpps\033[K\n");
	HAS(buf, "keys: + rate +10%   - rate -10%   q stop");
	cr_assert(n >= 3 && strcmp(buf + n - 3, "\033[J") == 0, "the rest of the screen is cleared");
	/* Every line ends by clearing what a longer one left. */
	for (const char *p = strchr(buf, '\n'); p; p = strchr(p + 1, '\n'))
		cr_assert_eq(strncmp(p - 3, "\033[K", 3), 0, "a line without an erase at %zu", (size_t)(p - buf));
	s.keys = false;
	pg_screen_format(&s, false, buf, sizeof(buf));
	cr_assert_neq(strncmp(buf, "\033[H", 3), 0);
	HAS(buf, "stdin is not a terminal");
}

Test(pktgen_live, a_short_buffer_is_cut_terminated_and_the_length_needed_returned)
{
	struct pg_screen s;
	char full[8192], small[64];
	size_t need;

	screen_example(&s);
	need = pg_screen_format(&s, true, full, sizeof(full));
	memset(small, 'x', sizeof(small));
	cr_assert_eq(pg_screen_format(&s, true, small, sizeof(small)), need);
	cr_assert_eq(small[sizeof(small) - 1], '\0');
	cr_assert_eq(strncmp(small, full, sizeof(small) - 1), 0);
}

/* ---- /pktgen/stats ----------------------------------------------------------------- */

/*
 * The answer comes from the loop's last copy. Before the first copy the run
 * may already say it sends (it sets its phase just before its loop starts):
 * the answer is then "not yet" (-EAGAIN), not a run with no rate and no
 * streams, which a client would take for a run that sends nothing.
 */
Test(pktgen_live, stats_wait_for_the_loops_first_copy_then_give_every_stream)
{
	struct pg_live_snap s;
	char buf[2048], small[40];
	int need;

	memset(&s, 0, sizeof(s));
	pthread_mutex_init(&s.lock, NULL);
	memset(buf, 'x', sizeof(buf));
	cr_assert_eq(pg_live_stats_json(&s, buf, sizeof(buf)), -EAGAIN);
	cr_assert_eq(buf[0], '\0', "nothing written before the first copy: «%.40s»", buf);

	/* The loop's copy (pg_snap_publish), by hand: two streams. */
	pthread_mutex_lock(&s.lock);
	s.t_s = 1.25;
	snprintf(s.rate, sizeof(s.rate), "50kpps");
	s.nb = 2;
	s.id[0] = 7;
	s.id[1] = 9;
	s.sent[0] = 100;
	s.received[0] = 98;
	s.lost[0] = 2;
	s.sent[1] = 50;
	s.received[1] = 50;
	s.sent_all = 150;
	s.rx_frames = 148;
	s.nb_changes = 1;
	s.published = true;
	pthread_mutex_unlock(&s.lock);

	need = pg_live_stats_json(&s, buf, sizeof(buf));
	cr_assert_gt(need, 0);
	cr_assert_eq((size_t)need, strlen(buf));
	cr_assert_str_eq(buf, "{\"seconds\":1.250,\"rate\":\"50kpps\",\"rate_changes\":1,\"sent\":150,"
			 "\"rx_frames\":148,\"streams\":[{\"stream\":7,\"sent\":100,\"received\":98,"
			 "\"lost\":2},{\"stream\":9,\"sent\":50,\"received\":50,\"lost\":0}]}");
	/* Cut short, terminated, the length needed returned. */
	cr_assert_eq(pg_live_stats_json(&s, small, sizeof(small)), need);
	cr_assert_eq(strncmp(small, buf, sizeof(small) - 1), 0);
	cr_assert_eq(small[sizeof(small) - 1], '\0');

	/* The widest answer fits the buffer the telemetry command uses. */
	pthread_mutex_lock(&s.lock);
	s.t_s = 1e9;
	memset(s.rate, '9', sizeof(s.rate) - 1);
	s.rate[sizeof(s.rate) - 1] = '\0';
	s.nb = PG_MAX_STREAMS;
	s.sent_all = s.rx_frames = UINT64_MAX;
	s.nb_changes = UINT32_MAX;
	for (unsigned i = 0; i < PG_MAX_STREAMS; i++) {
		s.id[i] = UINT16_MAX;
		s.sent[i] = s.received[i] = s.lost[i] = UINT64_MAX;
	}
	pthread_mutex_unlock(&s.lock);
	need = pg_live_stats_json(&s, NULL, 0);
	cr_assert_lt(need, PG_LIVE_STATS_JSON_MAX, "the widest /pktgen/stats answer needs %d bytes", need);
	pthread_mutex_destroy(&s.lock);
}

/* ---- the binary ------------------------------------------------------------------- */

static char rundir[64];

static void rundir_make(void)
{
	snprintf(rundir, sizeof(rundir), "/tmp/unic-pglive-XXXXXX");
	cr_assert_not_null(mkdtemp(rundir));
	setenv("XDG_RUNTIME_DIR", rundir, 1);
}

static void rundir_remove(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", rundir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(pktgen_live_binary, .init = rundir_make, .fini = rundir_remove, .timeout = 120);

static char answer[64 * 1024];

static int sock_open(const char *path)
{
	return binary_telemetry_connect(path);
}

static const char *ask(int fd, const char *req)
{
	return binary_telemetry_ask(fd, req, strlen(req), answer, sizeof(answer));
}

/* The telemetry socket of a spawned pktgen, from the line it prints. */
static int pktgen_sock(int out, char *buf, size_t size, size_t *n)
{
	char path[256];
	const char *p;

	cr_assert(binary_read_until(out, buf, size, n, "--no-telemetry turns it off)", 60000),
		  "no telemetry line: %s", buf);
	p = strstr(buf, "pktgen: telemetry on ");
	cr_assert_not_null(p, "%s", buf);
	cr_assert_eq(sscanf(p, "pktgen: telemetry on %255s", path), 1);
	return sock_open(path);
}

/* Ask /pktgen/stats until the run sends (it answers an error while it sets up). */
static void wait_sending(int fd)
{
	const char *a;

	while (strstr(a = ask(fd, "/pktgen/stats"), "\"error\""))
		usleep(20 * 1000);
	HAS(a, "{\"/pktgen/stats\":{\"seconds\":");
	HAS(a, "\"streams\":[{\"stream\":0,\"sent\":");
}

Test(pktgen_live_binary, the_rate_changes_through_telemetry_and_the_report_says_when)
{
	char *const argv[] = { "unic-pktgen", "--no-huge", "--no-pci", "--file-prefix", "pgl", "--vdev", "ring0",
			       "--vdev", "ring1,peer=ring0", "--tx-port", "0", "--rx-port", "1", "--rate", "10kpps",
			       "--duration", "6", NULL };
	static char buf[1 << 16];
	const char *a;
	size_t n = 0;
	pid_t pid;
	int out, fd, st;

	pid = binary_spawn(binary_path("UNIC_PKTGEN"), argv, NULL, &out);
	fd = pktgen_sock(out, buf, sizeof(buf), &n);
	wait_sending(fd);
	a = ask(fd, "/pktgen/rate,fast");
	HAS(a, "{\"error\":\"/pktgen/rate,fast: bad value 'fast'; accepted forms:");
	a = ask(fd, "/pktgen/rate,20Gbps");  /* past the ring's 10 Gbit/s link */
	HAS(a, "{\"error\":\"/pktgen/rate,20Gbps: the streams on tx port 0");
	a = ask(fd, "/pktgen/rate");
	HAS(a, "give the new rate after a comma");
	a = ask(fd, "/pktgen/rate,20kpps");
	cr_assert_str_eq(a, "{\"/pktgen/rate\":{\"rate\":\"20kpps\"}}");
	/* The loop takes it: /pktgen/stats shows the new rate (copied every 100 ms). */
	while (!strstr(a = ask(fd, "/pktgen/stats"), "\"rate\":\"20kpps\",\"rate_changes\":1,"))
		usleep(20 * 1000);
	close(fd);
	binary_read_until(out, buf, sizeof(buf), &n, NULL, 60000);
	close(out);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, buf);
	HAS(buf, "rate: requested 20000.0, achieved ");
	HAS(buf, "(the rate changed: the achieved figure averages the whole run)");
	HAS(buf, "rate changed 1 time(s) while sending: at ");
	HAS(buf, " s to 20kpps\n");
	HASNT(buf, "MISSED");
}

Test(pktgen_live_binary, a_sweep_refuses_a_rate_change)
{
	char *const argv[] = { "unic-pktgen", "--no-huge", "--no-pci", "--file-prefix", "pgs", "--vdev", "ring0",
			       "--vdev", "ring1,peer=ring0", "--tx-port", "0", "--rx-port", "1", "--sweep",
			       "1kpps,2kpps", "--step-duration", "30", NULL };
	static char buf[1 << 16];
	const char *a;
	size_t n = 0;
	pid_t pid;
	int out, fd, st;

	pid = binary_spawn(binary_path("UNIC_PKTGEN"), argv, NULL, &out);
	fd = pktgen_sock(out, buf, sizeof(buf), &n);
	a = ask(fd, "/pktgen/rate,50kpps");
	cr_assert_str_eq(a, "{\"error\":\"/pktgen/rate: this run is a --sweep, which sets the rate of each trial itself; the rate cannot be changed\"}");
	a = ask(fd, "/pktgen/stats");
	HAS(a, "{\"error\":\"/pktgen/stats: this run is a --sweep;");
	close(fd);
	kill(pid, SIGINT);
	binary_read_until(out, buf, sizeof(buf), &n, NULL, 60000);
	close(out);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st), "%s", buf);
}

/* At a terminal: the screen, redrawn in place; + raises the rate 10 %; q stops. */
Test(pktgen_live_binary, at_a_terminal_the_screen_shows_and_the_keys_change_the_rate_and_stop)
{
	static char out[1 << 18];
	size_t n = 0, mark;
	int fd, st;
	pid_t pid = forkpty(&fd, NULL, NULL, NULL);

	cr_assert_neq(pid, -1);
	if (pid == 0) {
		execl(binary_path("UNIC_PKTGEN"), "unic-pktgen", "--no-huge", "--no-pci", "--no-telemetry", "--vdev",
		      "ring0", "--vdev", "ring1,peer=ring0", "--tx-port", "0", "--rx-port", "1", "--rate", "10kpps",
		      "--duration", "60", (char *)NULL);
		_exit(127);
	}
	while (!strstr(out, "keys: + rate +10%") && n < sizeof(out) - 4096)
		binary_tty_read(fd, out, sizeof(out), &n, 500);
	HAS(out, "\033[H");
	HAS(out, "rate 10kpps");
	HAS(out, "tx port 0");
	HAS(out, "rx port 1");
	HAS(out, "stream 0");
	HAS(out, "total");
	cr_assert_eq(write(fd, "+", 1), 1);
	mark = n;
	while (!strstr(out + mark, "rate now 11kpps") && n < sizeof(out) - 4096)
		binary_tty_read(fd, out, sizeof(out), &n, 500);
	HAS(out + mark, "rate 11kpps");
	cr_assert_eq(write(fd, "q", 1), 1);
	while (!strstr(out, "latency (ns,") && n < sizeof(out) - 4096)
		binary_tty_read(fd, out, sizeof(out), &n, 500);
	binary_tty_read(fd, out, sizeof(out), &n, 300);
	close(fd);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, out);
	HAS(out, "stopped by the q key after ");
	HAS(out, "rate changed 1 time(s) while sending: at ");
	HAS(out, " s to 11kpps");
}

Test(pktgen_live_binary, with_two_threads_a_rate_change_reaches_both)
{
	char *const argv[] = { "unic-pktgen", "--no-huge", "--no-pci", "-l", "0-1", "--file-prefix", "pgt",
			       "--vdev", "ring0", "--vdev", "ring1,peer=ring0", "--tx-port", "0", "--rx-port", "1",
			       "--txq", "2", "--rxq", "2", "--rate", "4kpps", "--duration", "4", NULL };
	static char buf[1 << 16];
	const char *a;
	size_t n = 0;
	pid_t pid;
	int out, fd, st;

	pid = binary_spawn(binary_path("UNIC_PKTGEN"), argv, NULL, &out);
	fd = pktgen_sock(out, buf, sizeof(buf), &n);
	wait_sending(fd);
	a = ask(fd, "/pktgen/rate,20kpps");
	cr_assert_str_eq(a, "{\"/pktgen/rate\":{\"rate\":\"20kpps\"}}");
	while (!strstr(a = ask(fd, "/pktgen/stats"), "\"rate\":\"20kpps\",\"rate_changes\":1,"))
		usleep(20 * 1000);
	close(fd);
	binary_read_until(out, buf, sizeof(buf), &n, NULL, 60000);
	close(out);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d: %s", st, buf);
	/* Each thread paces half of the new rate (a worker that missed the
	 * change would still ask 2000.0). */
	HAS(buf, "tx thread 0 (tx queue 0, core 0): sent ");
	HAS(buf, "tx thread 1 (tx queue 1, core 1): sent ");
	cr_assert_null(strstr(buf, "asked 2000.0"), "a thread kept the old rate: %s", buf);
	HAS(strstr(buf, "tx thread 0 ("), "asked 10000.0, achieved ");
	HAS(strstr(buf, "tx thread 1 ("), "asked 10000.0, achieved ");
	HAS(buf, "rate changed 1 time(s) while sending: at ");
}
