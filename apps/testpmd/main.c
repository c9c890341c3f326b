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
 * between batch lines, and while the prompt waits for a key (libedit reads
 * through ev_getc, which polls the terminal and the event fd).
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

#include "app_opts.h"
#include "app_telemetry.h"
#include "history.h"
#include "testpmd.h"

#define PROMPT "testpmd> "

struct tp_opts {
	bool interactive, cont, auto_start, help;
	const char *file;
	uint64_t nbcore, burst, rxq, txq, rxd, txd;
	int engine;        /* -1: io */
	int mode;          /* -1: hybrid */
};

static volatile sig_atomic_t got_signal;
static struct tp_app *g_app; /* for libedit's completion callback only */

static void on_signal(int sig)
{
	got_signal = sig;
}

static void usage_text(FILE *f)
{
	fprintf(f,
		"Usage: unic-testpmd [common options] [options]\n"
		"An interactive, scriptable control and forwarding CLI (DPDK testpmd's commands).\n\n"
		"Options:\n"
		"  -i, --interactive        the prompt, also after -f FILE (default when stdin is a terminal)\n"
		"  -f, --cmdline-file FILE  run the commands in FILE, then quit (unless -i)\n"
		"      --continue           batch: run every line even after a failure (exit status 1 if any failed)\n"
		"      --auto-start         start forwarding once the ports are up\n"
		"      --nb-cores N         forwarding threads, 1..64 (default: the worker cores of -l, else 1)\n"
		"      --burst N            packets per burst, 1..256 (default 32)\n"
		"      --rxq N, --txq N     queues per port, 1..16 (default 1)\n"
		"      --rxd N, --txd N     descriptors per queue (default: the driver's)\n"
		"      --forward-mode ENG   io, mac, macswap, rxonly, txonly, flowgen, csum (default io)\n"
		"      --rx-mode MODE       poll, interrupt or hybrid (default hybrid)\n"
		"  -h, --help               this text\n\n"
		"Batch mode: commands one per line, '#' comments; stops at the first failing\n"
		"command with exit status 1 (unless --continue). Type 'help' for the commands.\n"
		"Exit status: 0 ok, 1 a command failed (batch), 2 bad command line, 3 set-up failure.\n\n"
		"Common options:\n%s", unic_env_usage());
}

static int pick(const char *opt, const char *v, const char *const *names, unsigned n, int *out,
		char *err, size_t errlen)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(v, names[i]) == 0) {
			*out = (int)i;
			return 0;
		}
	snprintf(err, errlen, "option %s: unknown value '%s'", opt, v);
	return -EINVAL;
}

static int opts_parse(struct tp_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	static const char *const engines[] = { "io", "mac", "macswap", "rxonly", "txonly", "flowgen", "csum" };
	static const char *const modes[] = { "poll", "interrupt", "hybrid" };

	memset(o, 0, sizeof(*o));
	o->engine = -1;
	o->mode = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		char name[64];
		const char *eqs = strchr(a, '=');
		int rc = 0;

		if (a[0] == '-' && a[1] == '-' && eqs) {
			snprintf(name, sizeof(name), "%.*s", (int)(eqs - a), a);
			v = eqs + 1;
		} else if (strncmp(a, "-f", 2) == 0 && a[2] != '\0') { /* -fFILE */
			snprintf(name, sizeof(name), "-f");
			v = a + 2;
		} else {
			snprintf(name, sizeof(name), "%s", a);
		}
#define FLAG(s) (strcmp(name, s) == 0)
#define VALUE()                                                                           \
	do {                                                                              \
		if (v == NULL) {                                                          \
			if (i + 1 >= argc) {                                              \
				snprintf(err, errlen, "option %s: missing value at the end of the command line", name); \
				return -EINVAL;                                           \
			}                                                                 \
			if (argv[i + 1][0] == '-') {                                      \
				snprintf(err, errlen, "option %s: missing value, got the option '%s' instead (a value that starts with '-' needs the --opt=value form)", \
					 name, argv[i + 1]);                              \
				return -EINVAL;                                           \
			}                                                                 \
			v = argv[++i];                                                    \
		}                                                                         \
	} while (0)
		if ((FLAG("-i") || FLAG("--interactive") || FLAG("--continue") || FLAG("--auto-start") ||
		     FLAG("-h") || FLAG("--help")) && v != NULL) {
			snprintf(err, errlen, "option %s takes no value; got '%s'", name, a);
			return -EINVAL;
		}
		if (FLAG("-i") || FLAG("--interactive")) {
			o->interactive = true;
		} else if (FLAG("--continue")) {
			o->cont = true;
		} else if (FLAG("--auto-start")) {
			o->auto_start = true;
		} else if (FLAG("-h") || FLAG("--help")) {
			o->help = true;
		} else if (FLAG("-f") || FLAG("--cmdline-file")) {
			VALUE();
			o->file = v;
		} else if (FLAG("--nb-cores")) {
			VALUE();
			rc = app_parse_u64(name, v, 1, TP_MAX_THREADS, &o->nbcore, err, errlen);
		} else if (FLAG("--burst")) {
			VALUE();
			rc = app_parse_u64(name, v, 1, TP_BURST_MAX, &o->burst, err, errlen);
		} else if (FLAG("--rxq") || FLAG("--txq")) {
			VALUE();
			rc = app_parse_u64(name, v, 1, TP_MAX_QUEUES, FLAG("--rxq") ? &o->rxq : &o->txq, err,
					   errlen);
		} else if (FLAG("--rxd") || FLAG("--txd")) {
			VALUE();
			rc = app_parse_u64(name, v, 1, 32768, FLAG("--rxd") ? &o->rxd : &o->txd, err, errlen);
		} else if (FLAG("--forward-mode")) {
			VALUE();
			rc = pick(name, v, engines, 7, &o->engine, err, errlen);
		} else if (FLAG("--rx-mode")) {
			VALUE();
			rc = pick(name, v, modes, 3, &o->mode, err, errlen);
		} else {
			snprintf(err, errlen, "unknown option '%s'; see --help", a);
			return -EINVAL;
		}
		if (rc)
			return rc;
#undef FLAG
#undef VALUE
	}
	return 0;
}

/* ---- events ------------------------------------------------------------------------ */

static void events_dispatch(void)
{
	if (unic_event_fd() >= 0)
		unic_event_dispatch();
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
			unic_event_dispatch();
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

/*
 * Telemetry's /testpmd/streams reads the forwarding streams from its own
 * thread; commands (start and stop free and make them) run under this lock,
 * and so does the read.
 */
static pthread_mutex_t tel_lock = PTHREAD_MUTEX_INITIALIZER;

static int exec_locked(struct tp_app *app, const struct tp_cmd *cmd)
{
	int rc;

	if (cmd->def->id == TP_CMD_SLEEP)
		return tp_exec(app, cmd);    /* touches no stream: telemetry goes on */
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
	char err[2048];
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
	bool interactive;
	struct unic_telemetry *tel = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	n = unic_env_parse(&eo, argc, argv);
	if (n < 0)
		return TP_EXIT_USAGE;
	if (opts_parse(&o, n, argv, err, sizeof(err)) != 0) {
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
	app.engine = o.engine >= 0 ? (enum tp_engine)o.engine : TP_FWD_IO;
	app.burst = o.burst ? (uint16_t)o.burst : 32;
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

	/* Every port the environment made, configured and started (as DPDK). */
	n = (int)unic_env_ports(env, ports, UNIC_PORT_MAX);
	for (int i = 0; i < n; i++)
		tp_port_add(&app, ports[i], false);
	for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
		if (app.ports[id].port == NULL)
			continue;
		fprintf(app.out, "Configuring Port %u (%s)\n", id, unic_port_name(app.ports[id].port));
		if (tp_port_start(&app, id) != 0)
			status = TP_EXIT_FAIL;
	}
	if (status != TP_EXIT_OK)
		goto out;
	fprintf(app.out, "Done: %d port%s\n", n, n == 1 ? "" : "s");
	if (app_telemetry_start(&eo, "testpmd", app.out, tel_register, &app, &tel) < 0) {
		status = TP_EXIT_FAIL;
		goto out;
	}
	if (tp_events_register(&app) != 0)
		fprintf(stderr, "unic-testpmd: warning: port events (link, device removal) will not be shown\n");
	if (o.auto_start) {
		static struct tp_cmd cmd;
		char e[256];

		if (tp_cmd_parse("start", &cmd, e, sizeof(e)) != TP_PARSE_OK || exec_locked(&app, &cmd) < 0) {
			status = TP_EXIT_CMD;
			goto out;
		}
	}

	interactive = o.interactive || (o.file == NULL && isatty(STDIN_FILENO));
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
	if (interactive && !got_signal)
		run_interactive(&app);
	else if (o.file == NULL && !got_signal && run_batch(&app, stdin, "stdin", o.cont) == BATCH_FAILED)
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
