/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: while it runs: the live screen and its keys, the line a second,
 * /pktgen/stats and /pktgen/rate, rate changes.
 */
#include "pktgen.h"

/*
 * Can the run change to rate @p spec? Every stream's share of it is paced
 * as at start, and no tx port's streams go past its link. Reads only what
 * is fixed once the run starts (specs, ids, links): any thread may ask.
 */
static int rate_check(const struct pg_app *a, const struct pg_rate_spec *spec, char *err, size_t errlen)
{
	static __thread struct pg_stream_run tmp[PG_MAX_STREAMS];
	struct pg_rate r;

	if (pg_rate_init(&r, spec, a->hz, a->link_mbps, err, errlen))
		return -EINVAL;
	if (a->cap.nb)
		return 0;
	for (unsigned i = 0; i < a->nb_sr; i++) {
		struct pg_rate_spec s = pg_rate_share(spec, a->sr[i].spec->share);

		tmp[i].spec = a->sr[i].spec;
		tmp[i].id = a->sr[i].id;
		if (pg_rate_init(&tmp[i].rate, &s, a->hz, pg_stream_link(a, &a->sr[i]), err, errlen))
			return -EINVAL;
	}
	for (unsigned k = 0; spec->unit != PG_RATE_NONE && k < a->nb_txp; k++) {
		const struct pg_txp *t = &a->txp[k];

		if (pg_streams_link_check(tmp, t->streams, t->nb_streams, t->idx, unic_port_name(t->port),
					  t->link_mbps, err, errlen))
			return -EINVAL;
	}
	return 0;
}

/* The sending loop's side: every stream paced at its share of @p spec
 * from now on (checked by rate_check), and the change recorded. */
/* This thread's streams paced at their share of @p spec, split over the tx
 * queues (each thread paces its own share). */
void pg_rate_apply_slice(struct pg_app *a, const struct pg_rate_spec *spec)
{
	char err[256];
	uint64_t now = unic_rdtsc();

	pg_rate_init(&a->rate, spec, a->hz, a->link_mbps, err, sizeof(err));
	pg_rate_start(&a->rate, now);
	for (unsigned i = 0; i < a->nb_sr; i++) {
		struct pg_rate_spec s = pg_rate_share(spec, a->sr[i].spec->share / a->o.txq);

		pg_rate_init(&a->sr[i].rate, &s, a->hz, pg_stream_link(a, &a->sr[i]), err, sizeof(err));
		pg_rate_start(&a->sr[i].rate, now);
	}
	a->cur_rate = *spec;
}

void pg_rate_apply(struct pg_app *a, const struct pg_rate_spec *spec, uint64_t now_ns)
{
	pg_rate_apply_slice(a, spec);
	if (a->nb_thr > 1) {  /* every worker takes it at its next round */
		pthread_mutex_lock(&a->rate_lock);
		a->rate_now = *spec;
		pthread_mutex_unlock(&a->rate_lock);
		__atomic_add_fetch(&a->rate_gen, 1, __ATOMIC_RELEASE);
	}
	if (a->nb_changes < PG_RATE_CHANGES_MAX) {
		a->changes[a->nb_changes].t_s = (double)(now_ns - a->t_start_ns) / 1e9;
		pg_rate_spec_format(spec, a->changes[a->nb_changes].text, sizeof(a->changes[0].text));
	}
	a->nb_changes++;
}

static bool rate_owned(const struct pg_app *a)
{
	return a->o.bench.sweep_arg || a->o.bench.mode != PG_RFC2544_NONE;
}

/* /pktgen/rate,VALUE: check it here, hand it to the loop (live.h). */
static int tel_rate(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct pg_app *a = arg;
	struct pg_rate_spec spec;
	char err[512], text[32];
	const char *msg;
	int phase = __atomic_load_n(&a->phase, __ATOMIC_ACQUIRE);

	(void)cmd;
	if (rate_owned(a)) {
		unic_tel_out_error(out, "/pktgen/rate: this run is a %s, which sets the rate of each trial itself; the rate cannot be changed",
				   a->o.bench.sweep_arg ? "--sweep" : "--rfc2544 search");
		return -EBUSY;
	}
	if (param[0] == '\0') {
		unic_tel_out_error(out, "/pktgen/rate: give the new rate after a comma, in --rate's forms: /pktgen/rate,50kpps, /pktgen/rate,100Mbps, /pktgen/rate,10%%");
		return -EINVAL;
	}
	if (phase != 1) {
		unic_tel_out_error(out, "/pktgen/rate,%s: %s", param,
				   phase == 0 ? "the run is not sending yet (setting up); ask again once it sends"
					      : "the run has stopped sending");
		return -EAGAIN;
	}
	if (pg_rate_parse(param, &spec, err, sizeof(err)) || rate_check(a, &spec, err, sizeof(err))) {
		msg = strncmp(err, "option --rate: ", 15) == 0 ? err + 15 : err;
		unic_tel_out_error(out, "/pktgen/rate,%s: %s", param, msg);
		return -EINVAL;
	}
	pg_rate_spec_format(&spec, text, sizeof(text));
	pg_rate_req_put(&a->req, &spec, text);
	unic_tel_out_printf(out, "{\"rate\":");
	unic_tel_out_str(out, text);
	unic_tel_out_printf(out, "}");
	return 0;
}

/* /pktgen/stats: the counts of each stream as of the last copy (100 ms). */
static int tel_stats(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct pg_app *a = arg;
	struct pg_live_snap *s = &a->snap;
	char json[PG_LIVE_STATS_JSON_MAX];
	int n;

	(void)cmd;
	(void)param;
	if (rate_owned(a)) {
		unic_tel_out_error(out, "/pktgen/stats: this run is a %s; its trials are reported when each ends, /pktgen/stats covers a run at one rate",
				   a->o.bench.sweep_arg ? "--sweep" : "--rfc2544 search");
		return -EBUSY;
	}
	if (__atomic_load_n(&a->phase, __ATOMIC_ACQUIRE) == 0) {
		unic_tel_out_error(out, "/pktgen/stats: the run is not sending yet (setting up)");
		return -EAGAIN;
	}
	n = pg_live_stats_json(s, json, sizeof(json));
	if (n == -EAGAIN) {  /* sending, but the loop has not copied its counts yet */
		unic_tel_out_error(out, "/pktgen/stats: the run is not sending yet (setting up)");
		return -EAGAIN;
	}
	if ((size_t)n >= sizeof(json)) {  /* not reached: the buffer holds the widest answer */
		unic_tel_out_error(out, "/pktgen/stats: the answer needs %d bytes, more than its %zu", n, sizeof(json));
		return -EOVERFLOW;
	}
	unic_tel_out_printf(out, "%s", json);
	return 0;
}

void pg_tel_register(struct unic_telemetry *tel, void *arg)
{
	unic_telemetry_register(tel, "/pktgen/rate", tel_rate, arg,
				"Change the rate while it sends, in --rate's forms: /pktgen/rate,50kpps (streams keep their shares)");
	unic_telemetry_register(tel, "/pktgen/stats", tel_stats, arg,
				"Frames sent, received and lost so far, per stream (copied every 100 ms)");
}

/* The loop's counts for /pktgen/stats. */
void pg_snap_publish(struct pg_app *a, uint64_t now_ns)
{
	struct pg_live_snap *s = &a->snap;
	const struct pg_pub *T = &a->tot;

	pg_pub_total(a);
	pthread_mutex_lock(&s->lock);
	s->t_s = (double)(now_ns - a->t_start_ns) / 1e9;
	pg_rate_spec_format(&a->cur_rate, s->rate, sizeof(s->rate));
	s->nb = a->cap.nb ? 0 : a->nb_sr;
	for (unsigned i = 0; i < s->nb; i++) {
		s->id[i] = a->sr[i].id;
		s->sent[i] = T->st_sent[i];
		s->received[i] = T->st_rx[i];
		s->lost[i] = pg_pub_lost(a, T, i);
	}
	s->sent_all = T->sent;
	s->rx_frames = T->rx_frames;
	s->nb_changes = a->nb_changes;
	s->published = true;
	pthread_mutex_unlock(&s->lock);
}

/* Mbit/s at L2 (FCS included) of @p frames frames, @p bytes bytes in @p dt s. */
static double l2_mbps(uint64_t frames, uint64_t bytes, double dt)
{
	return dt > 0 ? (double)(bytes + 4 * frames) * 8 / dt / 1e6 : 0;
}

/* The screen's state from the counts now and a second ago. */
static void screen_fill(struct pg_app *a, uint64_t now_ns, double dt)
{
	struct pg_screen *s = &a->scr;
	struct pg_screen_prev *p = &a->prev;
	const struct pg_pub *T = &a->tot;
	uint64_t rx_bytes_all = 0, lost_all = 0;

	memset(s, 0, sizeof(*s));
	s->elapsed_s = (double)(now_ns - a->t_start_ns) / 1e9;
	pg_rate_spec_format(&a->cur_rate, s->rate, sizeof(s->rate));
	s->keys = a->keys;
	snprintf(s->msg, sizeof(s->msg), "%s", a->msg);
	s->nb_txp = a->nb_txp;
	for (unsigned k = 0; k < a->nb_txp; k++) {
		uint64_t sent = T->txp_sent[k], bytes = T->txp_bytes[k];
		struct pg_screen_row *r = &s->txp[k];

		*r = (struct pg_screen_row){ .id = a->txp[k].idx, .has_tx = true, .sent = sent };
		r->tx_pps = (double)(sent - p->txp_sent[k]) / dt;
		r->tx_mbps = l2_mbps(sent - p->txp_sent[k], bytes - p->txp_bytes[k], dt);
		p->txp_sent[k] = sent;
		p->txp_bytes[k] = bytes;
	}
	s->nb_rxp = a->nb_rxp;
	for (unsigned k = 0; k < a->nb_rxp; k++) {
		uint64_t frames = T->rxp_frames[k], bytes = T->rxp_bytes[k];
		struct pg_screen_row *r = &s->rxp[k];

		*r = (struct pg_screen_row){ .id = a->rxp[k].idx, .has_rx = true, .received = frames };
		r->rx_pps = (double)(frames - p->rxp_frames[k]) / dt;
		r->rx_mbps = l2_mbps(frames - p->rxp_frames[k], bytes - p->rxp_bytes[k], dt);
		p->rxp_frames[k] = frames;
		p->rxp_bytes[k] = bytes;
		rx_bytes_all += bytes;
	}
	s->nb_st = a->cap.nb ? 0 : a->nb_sr;
	for (unsigned i = 0; i < s->nb_st; i++) {
		const struct pg_stream_run *sr = &a->sr[i];
		uint64_t sent = T->st_sent[i], bytes = T->st_bytes[i], rx = T->st_rx[i], rxb = T->st_rx_bytes[i];
		struct pg_screen_row *r = &s->st[i];

		/* The latency of a stream's last second: the main thread's own
		 * frames only, so none with several threads (the total has it). */
		*r = (struct pg_screen_row){ .id = sr->id, .has_tx = true, .has_rx = true, .has_lat = true,
					     .sent = sent, .received = rx, .lost = pg_pub_lost(a, T, i) };
		lost_all += r->lost;
		r->tx_pps = (double)(sent - p->st_sent[i]) / dt;
		r->tx_mbps = l2_mbps(sent - p->st_sent[i], bytes - p->st_bytes[i], dt);
		r->rx_pps = (double)(rx - p->st_rx[i]) / dt;
		r->rx_mbps = l2_mbps(rx - p->st_rx[i], rxb - p->st_rx_bytes[i], dt);
		if (a->nb_thr == 1 && a->lat_sec_s && a->lat_sec_s[i].count) {
			r->p50_ns = pg_hist_percentile(&a->lat_sec_s[i], 50);
			r->p99_ns = pg_hist_percentile(&a->lat_sec_s[i], 99);
		}
		p->st_sent[i] = sent;
		p->st_bytes[i] = bytes;
		p->st_rx[i] = rx;
		p->st_rx_bytes[i] = rxb;
	}
	s->total = (struct pg_screen_row){ .id = -1, .has_tx = true, .has_rx = true, .has_lat = !a->cap.nb,
					   .sent = T->sent, .received = T->rx_frames,
					   .lost = a->cap.nb ? 0 : lost_all };
	s->total.tx_pps = (double)(T->sent - p->sent) / dt;
	s->total.tx_mbps = l2_mbps(T->sent - p->sent, T->sent_bytes - p->sent_bytes, dt);
	s->total.rx_pps = (double)(T->rx_frames - p->rx) / dt;
	s->total.rx_mbps = l2_mbps(T->rx_frames - p->rx, rx_bytes_all - p->rx_bytes, dt);
	if (a->csv) {  /* this second's latency over every stream */
		s->total.p50_ns = pg_hist_percentile(&a->lat_sec, 50);
		s->total.p99_ns = pg_hist_percentile(&a->lat_sec, 99);
	} else if (a->lat_sec_s) {
		static struct pg_hist all;

		pg_hist_init(&all);
		for (unsigned i = 0; i < s->nb_st; i++)
			pg_hist_merge(&all, &a->lat_sec_s[i]);
		pg_hist_merge(&all, &a->lat_tot);  /* the workers' */
		s->total.p50_ns = all.count ? pg_hist_percentile(&all, 50) : 0;
		s->total.p99_ns = all.count ? pg_hist_percentile(&all, 99) : 0;
	}
	p->sent = T->sent;
	p->sent_bytes = T->sent_bytes;
	p->rx = T->rx_frames;
	p->rx_bytes = rx_bytes_all;
}

/* A second is over: the screen (@p live) and the line (a->lines). */
void pg_screen_draw(struct pg_app *a, uint64_t now_ns, double dt, bool live)
{
	static char buf[64 * 1024];

	pg_pub_total(a);
	screen_fill(a, now_ns, dt);
	if (live) {
		pg_screen_format(&a->scr, true, buf, sizeof(buf));
		fputs(buf, stderr);
		fflush(stderr);
	}
	if (a->lines) {
		pg_screen_line(&a->scr, buf, sizeof(buf));
		fputs(buf, a->out);
		fflush(a->out);
	}
	/* The next second's latency (--csv with several streams resets them itself). */
	for (unsigned i = 0; a->lat_sec_s && !(a->csv && a->nb_sr > 1) && i < a->nb_sr; i++)
		pg_hist_init(&a->lat_sec_s[i]);
	if (!a->csv)  /* else pg_csv_tick, next, takes the workers' latency */
		pg_hist_init(&a->lat_tot);
}

/* The terminal's settings before the screen made stdin raw (keys). */
static struct termios g_tio;

static volatile sig_atomic_t g_tio_raw;

void pg_term_restore(void)
{
	if (g_tio_raw) {
		tcsetattr(STDIN_FILENO, TCSANOW, &g_tio);
		g_tio_raw = 0;
	}
}

/* Keys without Enter and without echo, while the screen is up; Ctrl-C still
 * signals. Restored at the end of the run (and at exit, whatever the path). */
bool pg_term_raw(void)
{
	struct termios t;

	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &g_tio))
		return false;
	t = g_tio;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
		return false;
	g_tio_raw = 1;
	atexit(pg_term_restore);
	return true;
}

/* The keys typed since the last look: + and - change the rate by 10 %, q stops. */
void pg_keys_poll(struct pg_app *a, uint64_t now_ns)
{
	char k[16], err[512], text[32];
	ssize_t n = read(STDIN_FILENO, k, sizeof(k));

	for (ssize_t i = 0; i < n; i++) {
		struct pg_rate_spec spec;

		if (k[i] == 'q') {
			pg_key_quit = true;
			pg_stop = 1;
			snprintf(a->msg, sizeof(a->msg), "q: stopping");
			continue;
		}
		if (k[i] != '+' && k[i] != '-' && k[i] != '=')
			continue;
		if (a->t_tx_end_ns)
			continue;
		if (pg_rate_scale(&a->cur_rate, k[i] == '-' ? 0.9 : 1.1, &spec, err, sizeof(err)) ||
		    rate_check(a, &spec, err, sizeof(err))) {
			snprintf(a->msg, sizeof(a->msg), "%c: %.150s", k[i],
				 strncmp(err, "option --rate: ", 15) == 0 ? err + 15 : err);
			continue;
		}
		pg_rate_apply(a, &spec, now_ns);
		pg_rate_spec_format(&spec, text, sizeof(text));
		snprintf(a->msg, sizeof(a->msg), "%c: rate now %s", k[i], text);
	}
}
