/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd: options, the environment, and the command loops: interactive
 * (libedit: line editing, history, completion of commands and port numbers)
 * or batch (-f FILE, or stdin when it is not a terminal). docs/testpmd.md.
 *
 * Signals: SIGINT and SIGTERM set a flag the loops check between commands
 * (and "sleep" returns early); forwarding threads block them.
 *
 * Port events (link changes, device removal) are dispatched in this thread:
 * between batch lines, while "sleep" waits, and while the prompt waits for a
 * key (libedit reads through ev_getc, which polls the terminal and the event
 * fd).
 */
#include <inttypes.h>
#include <pthread.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include <unic/env.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/cycles.h>
#include <unic/pkt.h>

#include "app_opts.h"
#include "app_telemetry.h"
#include "history.h"
#include "testpmd.h"

#define PROMPT "testpmd> "

/* opts.c checks values against these limits as numbers of its own. */
_Static_assert(TP_OPTS_MAX_PORTS == TP_MAX_PORTS, "--eth-peer and --portmask take testpmd's ports");
_Static_assert(TP_MAX_THREADS == 64 && TP_BURST_MAX == 256 && TP_MAX_QUEUES == 16,
	       "opts.c's ranges of --nb-cores, --burst, --rxq and --txq");

static volatile sig_atomic_t got_signal;
static struct tp_app *g_app; /* for libedit's completion callback only */

static void on_signal(int sig)
{
	got_signal = sig;
}

static void usage_text(FILE *f)
{
	fprintf(f,
		"Usage: unic-testpmd [common options] [--] [options]\n"
		"An interactive, scriptable control and forwarding CLI (DPDK testpmd's commands).\n\n");
	tp_opts_usage(f);
	fprintf(f, "\n"
		"Batch mode: commands one per line, '#' comments; stops at the first failing\n"
		"command with exit status 1 (unless --continue). Type 'help' for the commands.\n"
		"Exit status: 0 ok, 1 a command failed (batch), 2 bad command line, 3 set-up failure.\n\n"
		"%s", unic_env_usage());
}

/*
 * Telemetry's /testpmd/streams reads the forwarding streams from its own
 * thread; commands (start and stop free and make them) and port events (a
 * removed device's port is detached) run under this lock, and so does the
 * read.
 */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- events ------------------------------------------------------------------------ */

static void events_dispatch(void)
{
	if (unic_event_fd() < 0)
		return;
	pthread_mutex_lock(&tel_lock);
	unic_event_dispatch();
	pthread_mutex_unlock(&tel_lock);
}

/* app->events_dispatch: while "sleep" waits (it runs outside the lock). */
static void events_dispatch_app(struct tp_app *app)
{
	(void)app;
	events_dispatch();
}

/* libedit's character source: wait for a key, dispatching events meanwhile. */
static int ev_getc(FILE *f)
{
	int efd = unic_event_fd();

	for (;;) {
		struct pollfd p[2] = { { .fd = fileno(f), .events = POLLIN }, { .fd = efd, .events = POLLIN } };
		unsigned char c;
		int n = poll(p, efd >= 0 ? 2 : 1, -1);

		if (got_signal)
			return EOF;
		if (n < 0)
			continue;
		if (efd >= 0 && p[1].revents) {
			events_dispatch();
			fflush(stdout);
		}
		if (p[0].revents) {
			ssize_t r = read(fileno(f), &c, 1);

			if (r == 1)
				return c;
			if (r == 0 || errno != EINTR)
				return EOF;
		}
	}
}

/* ---- completion (libedit's readline interface) ---------------------------------- */

static char cands[64][TP_CMD_CAND_LEN];
static unsigned nb_cands, cand_next;

static char *cand_gen(const char *text, int state)
{
	(void)text;
	if (state == 0)
		cand_next = 0;
	while (cand_next < nb_cands)
		return strdup(cands[cand_next++]);
	return NULL;
}

static char **complete(const char *text, int start, int end)
{
	uint16_t ids[TP_MAX_PORTS] = { 0 };
	unsigned n = g_app ? tp_port_ids(g_app, ids, TP_MAX_PORTS) : 0;
	size_t wstart;

	(void)start;
	rl_attempted_completion_over = 1; /* no file names */
	nb_cands = tp_cmd_complete(rl_line_buffer, (size_t)end, ids, n, cands, 64, &wstart);
	if (nb_cands == 0)
		return NULL;
	/* "key=" waits for its value: no space after it. */
	rl_completion_append_character =
		nb_cands == 1 && cands[0][strlen(cands[0]) - 1] == '=' ? '\0' : ' ';
	return rl_completion_matches(text, cand_gen);
}

/* ---- the loops ------------------------------------------------------------------- */

static int exec_locked(struct tp_app *app, const struct tp_cmd *cmd)
{
	int rc;

	if (cmd->def->id == TP_CMD_SLEEP)
		return tp_exec(app, cmd);    /* telemetry goes on; the events it handles take the lock */
	pthread_mutex_lock(&tel_lock);
	rc = tp_exec(app, cmd);
	pthread_mutex_unlock(&tel_lock);
	return rc;
}

/* /testpmd/streams: each forwarding stream and its queues' counters. */
static int tel_streams(const char *c, const char *param, struct unic_tel_out *out, void *arg)
{
	struct tp_app *app = arg;

	(void)c, (void)param;
	pthread_mutex_lock(&tel_lock);
	unic_tel_out_printf(out, "{\"forwarding\":%s,\"engine\":\"%s\",\"streams\":[",
			    app->fwd_on ? "true" : "false", tp_engine_name(app->engine));
	for (unsigned i = 0; app->fwd_on && i < app->nb_streams; i++) {
		const struct tp_stream *s = &app->streams[i];

		unic_tel_out_printf(out, "%s{\"stream\":%u,\"rx_port\":%u,\"rx_queue\":%u,\"tx_port\":%u"
				    ",\"tx_queue\":%u,\"rx\":%" PRIu64 ",\"tx\":%" PRIu64
				    ",\"dropped\":%" PRIu64 "}",
				    i ? "," : "", i, s->rx_port, s->rx_q, s->tx_port, s->tx_q,
				    s->rxc ? unic_counter_read(&s->rxc->rx) : 0,
				    s->txc ? unic_counter_read(&s->txc->tx) : 0,
				    s->txc ? unic_counter_read(&s->txc->dropped) : 0);
	}
	unic_tel_out_printf(out, "]}");
	pthread_mutex_unlock(&tel_lock);
	return 0;
}

static void tel_register(struct unic_telemetry *tel, void *app)
{
	unic_telemetry_register(tel, "/testpmd/streams", tel_streams, app,
				"unic-testpmd's forwarding streams: ports, queues, rx, tx, dropped");
}

/* Parse and run one line. @return 0, TP_EXEC_QUIT, or < 0 (it failed). */
static int run_line(struct tp_app *app, const char *line)
{
	static struct tp_cmd cmd;
	char err[8192];
	int rc = tp_cmd_parse(line, &cmd, err, sizeof(err));

	if (rc == TP_PARSE_EMPTY)
		return 0;
	if (rc != TP_PARSE_OK) {
		fprintf(app->err, "%s\n", err);
		return -EINVAL;
	}
	return exec_locked(app, &cmd);
}

#define BATCH_OK     0
#define BATCH_FAILED 1 /* a line failed (and, without --continue, the batch stopped there) */
#define BATCH_QUIT   2 /* "quit", every line before it went well */

/* @return BATCH_OK (end of input), BATCH_FAILED or BATCH_QUIT. */
static int run_batch(struct tp_app *app, FILE *in, const char *name, bool cont)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int status = 0;
	ssize_t len;

	while (!got_signal && (len = getline(&line, &cap, in)) >= 0) {
		int rc;

		lineno++;
		events_dispatch();
		while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (strlen(line) != (size_t)len) {
			fprintf(app->err, "%s:%u: a NUL byte in the line; skipped\n", name, lineno);
			rc = -EINVAL;
		} else {
			fprintf(app->out, PROMPT "%s\n", line);
			rc = run_line(app, line);
		}
		fflush(app->out);
		if (got_signal)
			break; /* not the command's failure: quit as asked */
		if (rc == TP_EXEC_QUIT) {
			free(line);
			return status ? status : BATCH_QUIT;
		}
		if (rc < 0) {
			status = BATCH_FAILED;
			if (!cont) {
				fprintf(app->err, "%s:%u: the command failed; stopping (--continue runs on)\n", name,
					lineno);
				break;
			}
			/* One line a failure, so a judge of the output knows which line it was. */
			fprintf(app->err, "%s:%u: the command failed; going on (--continue)\n", name, lineno);
		}
	}
	free(line);
	return status;
}

static int run_interactive(struct tp_app *app)
{
	char why[512];
	int hist;

	g_app = app;
	rl_getc_function = ev_getc;
	rl_attempted_completion_function = complete;
	rl_completer_word_break_characters = (char *)" \t";
	using_history();
	/* Only a file that is the effective user's own: see history.c. */
	hist = tp_history_open(getenv("HOME"), geteuid(), why, sizeof(why));
	if (hist < 0)
		fprintf(app->err, "unic-testpmd: note: no command history kept: %s\n", why);
	else if (tp_history_load(hist) < 0)
		fprintf(app->err, "unic-testpmd: note: the history in ~/%s could not be read; "
			"it starts empty\n", TP_HISTORY_FILE);
	while (!got_signal) {
		char *line = readline(PROMPT);
		int rc;

		if (line == NULL) { /* end of input: as quit */
			fprintf(app->out, "\n");
			break;
		}
		if (line[0])
			add_history(line);
		rc = run_line(app, line);
		free(line);
		fflush(app->out);
		if (rc == TP_EXEC_QUIT)
			break;
	}
	if (hist >= 0) {
		int rc = tp_history_save(hist);

		if (rc < 0)
			fprintf(app->err, "unic-testpmd: note: cannot save the history in ~/%s: %s\n",
				TP_HISTORY_FILE, strerror(-rc));
		close(hist);
	}
	g_app = NULL;
	return 0;
}

/* Run one command line made here (it must parse). */
static int run_made(struct tp_app *app, const char *line)
{
	static struct tp_cmd cmd;
	char e[512];

	if (tp_cmd_parse(line, &cmd, e, sizeof(e)) != TP_PARSE_OK) {
		fprintf(app->err, "internal: '%s': %s\n", line, e);
		return -EINVAL;
	}
	return exec_locked(app, &cmd);
}

/* "start", or "start tx_first" (--tx-first). */
static int start_fwd(struct tp_app *app, bool tx_first)
{
	return run_made(app, tx_first ? "start tx_first" : "start");
}

/*
 * --stats-period without -i, as DPDK's non-interactive mode: forward, print
 * the forwarding ports' statistics every @p period seconds until SIGINT or
 * SIGTERM. On a terminal the screen is cleared first, as DPDK does; in a
 * log (CI) the blocks follow one another.
 */
static int run_headless(struct tp_app *app, uint64_t period, bool tx_first)
{
	bool tty = isatty(fileno(app->out));
	int efd = unic_event_fd();

	if (!app->fwd_on && start_fwd(app, tx_first) < 0)
		return -EIO;
	fprintf(app->out, "Printing the port statistics every %" PRIu64 " s; SIGINT or SIGTERM stops\n", period);
	fflush(app->out);
	while (!got_signal) {
		uint64_t end = unic_time_ns() + period * 1000000000ull;

		for (uint64_t now = unic_time_ns(); !got_signal && now < end; now = unic_time_ns()) {
			struct pollfd p = { .fd = efd, .events = POLLIN };
			uint64_t ms = (end - now + 999999) / 1000000;

			if (poll(&p, efd >= 0 ? 1 : 0, (int)(ms > 1000 ? 1000 : ms)) > 0)
				events_dispatch();
		}
		if (got_signal)
			break;
		if (tty)
			fprintf(app->out, "\033[2J\033[1;1H");
		fprintf(app->out, "\nPort statistics ====================================");
		for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
			char line[64];

			if (!app->ports[id].in_fwd || app->ports[id].port == NULL)
				continue;
			snprintf(line, sizeof(line), "show port stats %u", id);
			run_made(app, line);
		}
		fflush(app->out);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct tp_app app;
	struct unic_env_options eo;
	struct unic_env *env;
	struct unic_port *ports[UNIC_PORT_MAX];
	struct tp_opts o;
	struct sigaction sa;
	char err[512];
	int n, status = TP_EXIT_OK;
	bool interactive, headless;
	struct unic_telemetry *tel = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	n = unic_env_parse(&eo, argc, argv);
	if (n < 0)
		return TP_EXIT_USAGE;
	if (tp_opts_parse(&o, n, argv, stdout, err, sizeof(err)) != 0) {
		fprintf(stderr, "unic-testpmd: error: %s\n", err);
		return TP_EXIT_USAGE;
	}
	if (o.help) {
		usage_text(stdout);
		return TP_EXIT_OK;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	env = unic_env_create(&eo);
	if (env == NULL) {
		fprintf(stderr, "unic-testpmd: error: cannot set up the environment: %s (the message above says why)\n",
			strerror(errno));
		return TP_EXIT_FAIL;
	}
	if (tp_app_init(&app, env) != 0) {
		fprintf(stderr, "unic-testpmd: error: out of memory\n");
		unic_env_destroy(env);
		return TP_EXIT_FAIL;
	}
	app.events_dispatch = events_dispatch_app;
	app.engine = o.engine >= 0 ? (enum tp_engine)o.engine : TP_FWD_IO;
	app.burst = o.burst ? (uint16_t)o.burst : 32;
	app.record_cycles = o.record_cycles;
	if (o.tx_retry_set)
		app.tx_retry_num = (uint32_t)o.tx_retry_num;
	if (o.tx_delay_set)
		app.tx_delay_us = (uint32_t)o.tx_delay_us;
	app.noisy = (struct tp_noisy_conf){ .bufsz = (uint32_t)o.noisy_bufsz, .flush_ms = (uint32_t)o.noisy_flush_ms,
					    .lkup_mb = (uint32_t)o.noisy_lkup_mb, .writes = (uint32_t)o.noisy_writes,
					    .reads = (uint32_t)o.noisy_reads, .rw = (uint32_t)o.noisy_rw };
	app.nbcore = o.nbcore ? (unsigned)o.nbcore :
		     unic_env_worker_count(env) ? unic_env_worker_count(env) : 1;
	app.txpkts[0] = 64;
	app.nb_txpkts = 1;
	app.def_rxq = o.rxq ? (uint16_t)o.rxq : 1;
	app.def_txq = o.txq ? (uint16_t)o.txq : 1;
	app.def_rxd = (uint16_t)o.rxd;
	app.def_txd = (uint16_t)o.txd;
	app.def_mode = o.mode == 0 ? UNIC_RX_MODE_POLL : o.mode == 1 ? UNIC_RX_MODE_INTERRUPT :
		       UNIC_RX_MODE_HYBRID;
	if (o.nb_txpkts) {
		memcpy(app.txpkts, o.txpkts, sizeof(app.txpkts));
		app.nb_txpkts = o.nb_txpkts;
	}
	app.def_mtu = o.max_pkt_len ? (uint16_t)(o.max_pkt_len - 18) : 0;
	app.rss = o.rss;
	app.pool_count = (uint32_t)o.total_mbufs;
	app.pool_node = o.socket_set ? (int)o.socket_num : o.no_numa ? -1 : TP_NODE_PORT;
	app.dataroom = o.mbuf_size ? (uint16_t)(o.mbuf_size - UNIC_PKT_HEADROOM_DEFAULT) : 0;
	app.portmask = o.portmask;
	app.nb_fwd_ports = (unsigned)o.nb_ports;
	app.topology = o.topology;
	app.peer_set = o.peer_set;
	memcpy(app.peer, o.peer, sizeof(app.peer));
	app.no_lsc = o.no_lsc;

	/* Every port the environment made, configured and started (as DPDK). */
	n = (int)unic_env_ports(env, ports, UNIC_PORT_MAX);
	for (int i = 0; i < n; i++)
		tp_port_add(&app, ports[i], false);
	for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
		if (app.ports[id].port == NULL)
			continue;
		if (o.no_dev_start) /* 'port start' configures and starts it */
			continue;
		fprintf(app.out, "Configuring Port %u (%s)\n", id, unic_port_name(app.ports[id].port));
		if (tp_port_start(&app, id) != 0)
			status = TP_EXIT_FAIL;
	}
	if (status != TP_EXIT_OK)
		goto out;
	fprintf(app.out, "Done: %d port%s\n", n, n == 1 ? "" : "s");
	n = BATCH_OK;
	if (app_telemetry_start(&eo, "testpmd", app.out, tel_register, &app, &tel) < 0) {
		status = TP_EXIT_FAIL;
		goto out;
	}
	if (tp_events_register(&app) != 0)
		fprintf(stderr, "unic-testpmd: warning: port events (link, device removal) will not be shown\n");
	headless = o.stats_period && !o.interactive;
	if (o.auto_start && !headless && start_fwd(&app, o.tx_first) < 0) {
		status = TP_EXIT_CMD;
		goto out;
	}

	interactive = !headless && (o.interactive || (o.file == NULL && isatty(STDIN_FILENO)));
	if (o.file) {
		FILE *f = fopen(o.file, "r");

		if (f == NULL) {
			fprintf(stderr, "unic-testpmd: error: cannot open %s: %s\n", o.file, strerror(errno));
			status = TP_EXIT_USAGE;
			goto out;
		}
		fprintf(app.out, "Read CLI commands from %s\n", o.file);
		n = run_batch(&app, f, o.file, o.cont);
		fclose(f);
		if (n == BATCH_FAILED)
			status = TP_EXIT_CMD;
		if (n != BATCH_OK)
			interactive = false;
	}
	if (headless && !got_signal && status == TP_EXIT_OK && n != BATCH_QUIT) {
		if (run_headless(&app, o.stats_period, o.tx_first) < 0)
			status = TP_EXIT_CMD;
	} else if (interactive && !got_signal)
		run_interactive(&app);
	else if (o.file == NULL && !headless && !got_signal && run_batch(&app, stdin, "stdin", o.cont) == BATCH_FAILED)
		status = TP_EXIT_CMD;
	if (got_signal)
		fprintf(app.out, "\n%s: quitting\n", got_signal == SIGINT ? "SIGINT" : "SIGTERM");
out:
	unic_telemetry_stop(tel);   /* before the streams and ports go */
	events_dispatch();
	tp_events_unregister(&app);
	tp_app_quit(&app);
	tp_app_fini(&app);
	unic_env_destroy(env);
	return status;
}
