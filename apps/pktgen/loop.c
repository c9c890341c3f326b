/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: the run: the main loop, the worker threads (--txq/--rxq) and their
 * published counts, a trial's measured part.
 */
#include "pktgen.h"

static double real_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A trial's measured part starts: the next frame built gets the base
 * sequence number; what was built before (the warm-up, including frames
 * still pending for the port) is not counted on either side. A trial runs
 * one stream (the options refuse --stream with --sweep or --rfc2544).
 */
static void trial_mark(struct pg_app *a, uint64_t now_ns)
{
	if (a->nb_thr > 1) {  /* this thread's queue: its base, then the mark (pg_trial_frame_stale_q) */
		struct pg_app *m = a->main_app ? a->main_app : a;

		a->sent_mark = a->sent + a->npend_all;
		m->qbase[a->q] = a->sr[0].seq;
		__atomic_store_n(&m->qmarked[a->q], 1, __ATOMIC_RELEASE);
		a->epoch = true;
		a->t_start_ns = now_ns;
		a->start_real = real_now();
		return;
	}
	a->sent_mark = a->sent + a->npend_all;
	a->bytes_mark = a->sent_bytes;
	for (unsigned k = 0; k < a->nb_txp; k++)
		for (unsigned i = 0; i < a->txp[k].npend; i++)
			a->bytes_mark += pg_link_bytes(a->txp[k].pend_size[i]);
	a->seq_base = a->sr[0].seq;
	a->epoch = true;
	a->stale = 0;
	pg_rxstats_init(&a->rs, a->rs.stream_id);
	a->t_start_ns = now_ns;
	a->start_real = real_now();
}

/* Every frame of the measured part is back (or, for a run, every frame). */
static bool all_back(const struct pg_app *a)
{
	if (a->epoch)
		return a->sent > a->sent_mark && a->rs.stream.seq.unique >= a->sent - a->sent_mark;
	return a->rs.frames >= a->sent && a->sent > 0;
}

/* The tx port of stream @p sr: its link speed. */
uint32_t pg_stream_link(const struct pg_app *a, const struct pg_stream_run *sr)
{
	for (unsigned k = 0; k < a->nb_txp; k++)
		if (a->txp[k].idx == sr->spec->tx_port)
			return a->txp[k].link_mbps;
	return 0;
}

/* This thread's counts into @p p (all but the latency). */
static void pub_fill(const struct pg_app *a, struct pg_pub *p)
{
	unsigned nq = a->o.txq;

	p->sent = a->sent;
	p->sent_bytes = a->sent_bytes;
	p->rx_frames = a->rs.frames;
	p->rx_frame_bytes = a->rs.bytes;
	p->no_stamp = a->rs.no_stamp;
	p->rx_bytes = 0;
	for (unsigned k = 0; k < a->nb_txp; k++) {
		p->txp_sent[k] = a->txp[k].sent;
		p->txp_bytes[k] = a->txp[k].sent_bytes;
	}
	for (unsigned k = 0; k < a->nb_rxp; k++) {
		p->rxp_frames[k] = a->rxp[k].frames;
		p->rxp_bytes[k] = a->rxp[k].bytes;
		p->rx_bytes += a->rxp[k].bytes;
	}
	for (unsigned i = 0; i < a->nb_sr && i < a->rs.nb_streams; i++) {
		const struct pg_stream_stats *st = a->rs.streams[i];

		p->st_sent[i] = a->sr[i].sent;
		p->st_bytes[i] = a->sr[i].sent_bytes;
		p->st_rx[i] = st->seq.received;
		p->st_rx_bytes[i] = st->bytes;
		for (unsigned q = 0; q < nq; q++) {
			const struct pg_seq *x = pg_stream_qseq(st, q);

			p->q_expect[i][q] = x->any ? x->highest + 1 : 0;
			p->q_unique[i][q] = x->unique;
		}
	}
	p->tx_over = __atomic_load_n(&a->tx_over, __ATOMIC_ACQUIRE);
}

/* Another thread's counts added: the highest sequence numbers the larger. */
static void pub_add(const struct pg_app *a, struct pg_pub *d, const struct pg_pub *x)
{
	d->sent += x->sent;
	d->sent_bytes += x->sent_bytes;
	d->rx_frames += x->rx_frames;
	d->rx_bytes += x->rx_bytes;
	d->rx_frame_bytes += x->rx_frame_bytes;
	d->no_stamp += x->no_stamp;
	for (unsigned k = 0; k < a->nb_txp; k++) {
		d->txp_sent[k] += x->txp_sent[k];
		d->txp_bytes[k] += x->txp_bytes[k];
	}
	for (unsigned k = 0; k < a->nb_rxp; k++) {
		d->rxp_frames[k] += x->rxp_frames[k];
		d->rxp_bytes[k] += x->rxp_bytes[k];
	}
	for (unsigned i = 0; i < a->nb_sr; i++) {
		d->st_sent[i] += x->st_sent[i];
		d->st_bytes[i] += x->st_bytes[i];
		d->st_rx[i] += x->st_rx[i];
		d->st_rx_bytes[i] += x->st_rx_bytes[i];
		for (unsigned q = 0; q < a->o.txq; q++) {
			if (x->q_expect[i][q] > d->q_expect[i][q])
				d->q_expect[i][q] = x->q_expect[i][q];
			d->q_unique[i][q] += x->q_unique[i][q];
		}
	}
	d->tx_over = d->tx_over && x->tx_over;
}

/* Stream @p i's frames lost so far: each tx queue's gaps. */
uint64_t pg_pub_lost(const struct pg_app *a, const struct pg_pub *p, unsigned i)
{
	uint64_t lost = 0;

	for (unsigned q = 0; q < a->o.txq; q++)
		if (p->q_expect[i][q] > p->q_unique[i][q])
			lost += p->q_expect[i][q] - p->q_unique[i][q];
	return lost;
}

/* a->tot: every thread's counts (the main's now, the workers' as last
 * published); the workers' latency goes into a->lat_tot. */
void pg_pub_total(struct pg_app *a)
{
	pub_fill(a, &a->tot);
	for (unsigned t = 1; !a->merged && t < a->nb_thr; t++) {
		struct pg_thr *th = &a->thr[t];

		pthread_mutex_lock(&th->lock);
		pub_add(a, &a->tot, &th->pub);
		pg_hist_merge(&a->lat_tot, &th->pub.lat);
		pg_hist_init(&th->pub.lat);
		pthread_mutex_unlock(&th->lock);
	}
}

/* A worker's counts for the main thread. */
static void pub_publish(struct pg_app *w, struct pg_thr *th)
{
	pthread_mutex_lock(&th->lock);
	pub_fill(w, &th->pub);
	pg_hist_merge(&th->pub.lat, &w->lat_sec);
	pthread_mutex_unlock(&th->lock);
	pg_hist_init(&w->lat_sec);
}

/* Every thread's sending is over (the main's own included). */
static bool all_tx_over(const struct pg_app *a)
{
	if (!__atomic_load_n(&a->tx_over, __ATOMIC_ACQUIRE))
		return false;
	for (unsigned t = 1; t < a->nb_thr; t++)
		if (!__atomic_load_n(&a->thr[t].a->tx_over, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* A trial with threads starts (every thread, the main's too): its counts
 * from zero; the measured part is marked per tx queue (trial_mark). */
static void trial_session_start(struct pg_app *a)
{
	const struct pg_app *m = a->main_app ? a->main_app : a;

	pg_rxstats_reset(&a->rs);
	a->stale = 0;
	a->epoch = false;
	a->sent_mark = a->sent;
	a->o.count = 0;
	a->o.duration = m->o.duration;
	if (a->main_app)
		pg_rate_apply_slice(a, &m->rate_now);
}

/* One session of a worker: a plain run, or a trial. */
static void worker_session(struct pg_thr *th, int gen)
{
	struct pg_app *w = th->a, *m = w->main_app;
	uint64_t next_pub, prev_tsc, warm_end;
	bool warming = m->trial;

	if (m->trial)
		trial_session_start(w);
	w->t_tx_end_ns = 0;
	unic_tsc_clock_init(&w->clk);
	w->t_start_ns = unic_tsc_clock_ns(&w->clk);
	warm_end = w->t_start_ns + m->warmup_ns;
	next_pub = w->t_start_ns + 100000000ull;
	for (unsigned k = 0; k < w->nb_txp; k++)
		w->txp[k].last_take_ns = w->t_start_ns;
	for (unsigned i = 0; i < w->nb_sr; i++)
		pg_rate_start(&w->sr[i].rate, unic_rdtsc());
	pg_rate_start(&w->rate, unic_rdtsc());
	pg_tx_clock_start(w);
	prev_tsc = w->tsc_tx0;
	for (;;) {
		uint64_t now_ns = unic_tsc_clock_ns(&w->clk);
		unsigned rgen = __atomic_load_n(&m->rate_gen, __ATOMIC_ACQUIRE);

		if (warming && now_ns >= warm_end) {
			trial_mark(w, now_ns);
			warming = false;
		}
		if (w->t_tx_end_ns == 0) {
			pg_tx_clock_round(w, &prev_tsc);
			if (!m->trial && rgen != w->rate_gen) {  /* a rate change (keys, /pktgen/rate) */
				struct pg_rate_spec spec;

				pthread_mutex_lock(&m->rate_lock);
				spec = m->rate_now;
				pthread_mutex_unlock(&m->rate_lock);
				w->rate_gen = rgen;
				pg_rate_apply_slice(w, &spec);
			}
			if ((!warming || pg_stop) && pg_tx_done(w, now_ns) && w->npend_all == 0) {
				w->t_tx_end_ns = now_ns;
				pg_tx_clock_stop(w);
				pub_publish(w, th);
			} else if (!pg_stop || w->npend_all) {
				pg_tx_step(w, now_ns);
			}
		}
		pg_poll_rx(w);
		if (__atomic_load_n(&m->wstop, __ATOMIC_ACQUIRE) == gen)
			break;
		if (now_ns >= next_pub) {
			pub_publish(w, th);
			next_pub = now_ns + (w->t_tx_end_ns ? 10000000ull : 100000000ull);
		}
	}
	if (warming)
		trial_mark(w, unic_tsc_clock_ns(&w->clk));
	if (w->t_tx_end_ns == 0) {
		w->t_tx_end_ns = unic_tsc_clock_ns(&w->clk);
		pg_tx_clock_stop(w);
	}
	pg_drop_all_pending(w);
	pub_publish(w, th);
}

/*
 * A worker thread (--txq/--rxq): one session each time the main thread
 * starts one (wgo; a plain run has one, a sweep or a search one a trial):
 * it sends on its tx queue at its share until its part of --count,
 * --duration or a signal, receives on its rx queue until the main thread
 * ends the session (wstop, once every frame is back or the drain is over),
 * publishing its counts every 100 ms; then waits for the next, or wquit.
 */
static int worker_main(void *arg)
{
	struct pg_thr *th = arg;
	struct pg_app *w = th->a, *m = w->main_app;
	int gen = 0;

	for (;;) {
		int g;

		while ((g = __atomic_load_n(&m->wgo, __ATOMIC_ACQUIRE)) == gen &&
		       !__atomic_load_n(&m->wquit, __ATOMIC_ACQUIRE))
			sched_yield();
		if (g == gen)
			break;
		gen = g;
		worker_session(th, gen);
		__atomic_store_n(&w->done_gen, gen, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Every frame back, over every thread (a->tot, refreshed by the caller). */
static bool all_back_threads(const struct pg_app *a)
{
	return a->tot.sent > 0 && a->tot.rx_frames >= a->tot.sent;
}

/*
 * The run's loop: send at the streams' rates until pg_tx_done (--count,
 * --duration, a signal), then wait for the frames in flight, up to --drain.
 * A trial (@p trial) first sends for @p warmup_ns without counting, then
 * marks the start of its measured part (trial_mark) and counts from there.
 * With worker threads, this is thread 0's loop and the run's: it starts the
 * workers, waits for every thread's sending to end, then for the frames in
 * flight, and stops the workers.
 */
void pg_run_loop(struct pg_app *a, bool live, bool trial, uint64_t warmup_ns)
{
	uint64_t last_ns, next_status, next_snap, next_keys, drain_until = 0, warm_end, prev_tsc;
	bool warming = trial, draining = false;

	a->t_tx_end_ns = 0;
	a->t_start_ns = last_ns = unic_tsc_clock_ns(&a->clk);
	warm_end = a->t_start_ns + warmup_ns;
	for (unsigned k = 0; k < a->nb_txp; k++)
		a->txp[k].last_take_ns = a->t_start_ns;
	for (unsigned i = 0; i < a->nb_sr; i++)
		pg_rate_start(&a->sr[i].rate, unic_rdtsc());
	next_status = a->t_start_ns + 1000000000ull;
	next_snap = next_keys = a->t_start_ns;
	memset(&a->prev, 0, sizeof(a->prev));
	if (live)  /* the screen from the top, redrawn there every second */
		fprintf(stderr, "\033[H\033[2J");
	pg_rate_start(&a->rate, unic_rdtsc());
	if (a->nb_thr > 1) {  /* the workers' session starts with ours */
		a->trial = trial;
		a->warmup_ns = warmup_ns;
		for (unsigned q = 0; q < PG_MAX_QUEUES; q++)
			__atomic_store_n(&a->qmarked[q], 0, __ATOMIC_RELEASE);
		if (trial)
			trial_session_start(a);
		/* The workers wait for wgo: their last session's "over" is cleared
		 * now, so all_tx_over never sees it before they start again. */
		for (unsigned t = 1; t < a->nb_thr; t++)
			if (a->thr[t].a)
				__atomic_store_n(&a->thr[t].a->tx_over, 0, __ATOMIC_RELEASE);
		__atomic_add_fetch(&a->wgo, 1, __ATOMIC_RELEASE);
	}
	pg_tx_clock_start(a);
	prev_tsc = a->tsc_tx0;
	for (;;) {
		uint64_t now_ns = unic_tsc_clock_ns(&a->clk);

		if (a->t_tx_end_ns == 0)
			pg_tx_clock_round(a, &prev_tsc);
		if (warming && now_ns >= warm_end) {
			trial_mark(a, now_ns);
			warming = false;
		}
		if (!trial && a->t_tx_end_ns == 0) {
			struct pg_rate_spec spec;
			char text[32];

			if (a->keys && now_ns >= next_keys) {
				pg_keys_poll(a, now_ns);
				next_keys = now_ns + 20000000ull;
			}
			if (pg_rate_req_take(&a->req, &spec, text)) {  /* from /pktgen/rate */
				pg_rate_apply(a, &spec, now_ns);
				snprintf(a->msg, sizeof(a->msg), "/pktgen/rate: rate now %s", text);
			}
		}
		if (!trial && now_ns >= next_snap) {
			pg_snap_publish(a, now_ns);
			next_snap = now_ns + (draining && a->nb_thr > 1 ? 10000000ull : 100000000ull);
		}
		if (a->t_tx_end_ns == 0) {
			/* A signal ends a warm-up too (pg_tx_done is then true). */
			if ((!warming || pg_stop) && pg_tx_done(a, now_ns) && a->npend_all == 0) {
				a->t_tx_end_ns = now_ns;
				pg_tx_clock_stop(a);
			} else if (!pg_stop || a->npend_all) {
				pg_tx_step(a, now_ns);
			}
		}
		if (a->t_tx_end_ns && !draining && all_tx_over(a)) {
			draining = true;
			drain_until = now_ns + (uint64_t)(a->o.drain * 1e9);
		}
		pg_poll_rx(a);
		if (draining) {
			if (a->nb_thr > 1 ? !trial && all_back_threads(a) : all_back(a))
				break;
			if (now_ns >= drain_until || pg_signals > 1)
				break;
		} else if (a->t_tx_end_ns && pg_signals > 1) {
			break;
		}
		if (now_ns >= next_status) {
			if (live || (a->lines && !trial))
				pg_screen_draw(a, now_ns, (double)(now_ns - last_ns) / 1e9, live);
			last_ns = now_ns;
			if (a->csv && !trial)
				pg_csv_tick(a, now_ns);
			next_status += 1000000000ull;
		}
	}
	if (warming)  /* stopped during the warm-up: an empty measured part */
		trial_mark(a, unic_tsc_clock_ns(&a->clk));
	if (a->nb_thr > 1) {  /* the session ends for every worker */
		int gen = __atomic_load_n(&a->wgo, __ATOMIC_ACQUIRE);

		__atomic_store_n(&a->wstop, gen, __ATOMIC_RELEASE);
		for (unsigned t = 1; t < a->nb_thr; t++)
			while (a->thr[t].launched && __atomic_load_n(&a->thr[t].a->done_gen, __ATOMIC_ACQUIRE) != gen)
				sched_yield();
	}
}

/*
 * The worker threads' slices: a copy of the main app each, with its own
 * counts, streams (sequence numbers from 0, flows from its queue on,
 * pacing at the share already split), receive statistics and part of
 * --count; then launched on the cores of -l (they wait for pg_run_loop's go).
 */
int pg_threads_start(struct pg_app *a, const struct unic_env_options *eo)
{
	uint64_t count = a->o.count;

	a->q = 0;
	a->core = eo->nb_cores ? eo->cores[0] : -1;
	a->tx_role = true;
	a->rx_role = true;
	if (a->nb_thr == 1)
		return 0;
	pthread_mutex_init(&a->rate_lock, NULL);
	for (unsigned t = 0; t < a->nb_thr; t++) {
		struct pg_app *w;
		struct pg_thr *th = &a->thr[t];
		uint64_t share = count / a->o.txq + (t < count % a->o.txq);
		char err[256];

		if (t == 0) {
			a->o.count = share;
			a->tx_role = count == 0 || share > 0;
			continue;
		}
		w = malloc(sizeof(*w));
		if (w == NULL) {
			fprintf(stderr, "unic-pktgen: error: out of memory for thread %u\n", t);
			return -ENOMEM;
		}
		memcpy(w, a, sizeof(*w));
		pg_rxstats_init(&w->rs, a->sr[0].id);  /* not the main's streams: its own, below */
		w->main_app = a;
		w->q = t;
		w->core = eo->cores[t];
		w->tx_role = t < a->o.txq && (count == 0 || share > 0);
		w->rx_role = t < a->o.rxq;
		w->o.count = share;
		w->sent = w->sent_bytes = w->tx_full = w->alloc_fail = w->tx_dropped = w->tx_refused = 0;
		w->npend_all = 0;
		w->stalled = false;
		w->lat_skipped = 0;
		w->t_tx_end_ns = 0;
		for (unsigned k = 0; k < w->nb_txp; k++) {
			w->txp[k].npend = 0;
			w->txp[k].rr = 0;
			w->txp[k].sent = w->txp[k].sent_bytes = w->txp[k].full_bursts = 0;
		}
		for (unsigned k = 0; k < w->nb_rxp; k++)
			w->rxp[k].frames = w->rxp[k].bytes = 0;
		for (unsigned i = 0; i < w->nb_sr; i++) {
			w->sr[i].sent = w->sr[i].sent_bytes = w->sr[i].refused = 0;
			w->sr[i].seq = 0;
			pg_stream_skip_flows(&w->sr[i], t);
		}
		w->lat_sec_s = NULL;
		w->csv_prev_s = NULL;
		w->csv = NULL;
		w->wtx = w->wrx = NULL;
		pg_hist_init(&w->lat_sec);
		w->scratch = malloc(PG_PCAP_SNAPLEN);
		th->a = w;
		pthread_mutex_init(&th->lock, NULL);
		pg_hist_init(&th->pub.lat);
		if (w->scratch == NULL || pg_streams_rx_init(w, err, sizeof(err))) {
			fprintf(stderr, "unic-pktgen: error: thread %u: %s\n", t,
				w->scratch ? err : "out of memory for its receive buffer");
			return -ENOMEM;
		}
		pub_fill(w, &th->pub);
		int r = unic_env_launch(a->env, t - 1, worker_main, th);

		if (r) {
			fprintf(stderr, "unic-pktgen: error: cannot start thread %u on core %d: %s\n", t, w->core,
				strerror(-r));
			return r;
		}
		th->launched = true;
	}
	/* Thread 0 (this one) sends flows from 0 on, like the others from theirs. */
	return 0;
}

void pg_threads_stop(struct pg_app *a)
{
	__atomic_store_n(&a->wquit, 1, __ATOMIC_RELEASE);
	for (unsigned t = 1; t < a->nb_thr; t++)
		if (a->thr[t].launched) {
			unic_env_wait(a->env, t - 1);
			a->thr[t].launched = false;
		}
}

/* A thread's generator-limit figures for the report. */
static void thr_stat_of(const struct pg_app *s, struct pg_thr_stat *o)
{
	double hz = (double)s->hz;
	uint64_t most = 0;

	memset(o, 0, sizeof(*o));
	o->q = s->q;
	o->core = s->core;
	o->tx = s->tx_role;
	o->rx = s->rx_role;
	o->sent = s->sent;
	o->sent_bytes = s->sent_bytes;
	o->rx_frames = s->rs.frames;
	o->bursts = s->bursts;
	o->full_bursts = s->full_bursts;
	o->tx_s = s->tsc_tx1 > s->tsc_tx0 ? (double)(s->tsc_tx1 - s->tsc_tx0) / hz : 0;
	o->cpu_s = s->cpu_tx1_ns > s->cpu_tx0_ns ? (double)(s->cpu_tx1_ns - s->cpu_tx0_ns) / 1e9 : 0;
	o->idle_s = (double)s->idle_cycles / hz;
	o->port = -1;
	for (unsigned k = 0; k < s->nb_txp; k++)
		if (s->txp[k].full_bursts > most) {
			most = s->txp[k].full_bursts;
			o->port = s->txp[k].idx;
		}
	if (s->rate.spec.unit != PG_RATE_NONE && !s->cap.nb)
		for (unsigned i = 0; i < s->nb_sr; i++)
			o->asked += pg_rate_requested(&s->sr[i].rate);
	else if (s->rate.spec.unit != PG_RATE_NONE)
		o->asked = pg_rate_requested(&s->rate);
	o->achieved = pg_rate_achieved(&s->rate, s->sent, s->sent_bytes, o->tx_s);
}

/* The workers' counts added into the main app's (after pg_threads_stop). */
void pg_threads_merge(struct pg_app *a)
{
	char err[256];

	for (unsigned t = 0; t < a->nb_thr; t++)
		if (t == 0 || a->thr[t].a)
			thr_stat_of(t ? a->thr[t].a : a, &a->tst[t]);
	for (unsigned t = 1; t < a->nb_thr; t++) {
		struct pg_app *w = a->thr[t].a;

		if (w == NULL)
			continue;
		a->sent += w->sent;
		a->sent_bytes += w->sent_bytes;
		a->tx_full += w->tx_full;
		a->alloc_fail += w->alloc_fail;
		a->tx_dropped += w->tx_dropped;
		a->tx_refused += w->tx_refused;
		if (w->tx_refused)
			a->tx_refused_err = w->tx_refused_err;
		a->stalled |= w->stalled;
		a->lat_skipped += w->lat_skipped;
		if (w->t_tx_end_ns > a->t_tx_end_ns)
			a->t_tx_end_ns = w->t_tx_end_ns;
		for (unsigned k = 0; k < a->nb_txp; k++) {
			a->txp[k].sent += w->txp[k].sent;
			a->txp[k].sent_bytes += w->txp[k].sent_bytes;
			a->txp[k].full_bursts += w->txp[k].full_bursts;
		}
		for (unsigned k = 0; k < a->nb_rxp; k++) {
			a->rxp[k].frames += w->rxp[k].frames;
			a->rxp[k].bytes += w->rxp[k].bytes;
		}
		for (unsigned i = 0; i < a->nb_sr; i++) {
			a->sr[i].sent += w->sr[i].sent;
			a->sr[i].sent_bytes += w->sr[i].sent_bytes;
			a->sr[i].refused += w->sr[i].refused;
		}
		pg_rxstats_merge(&a->rs, &w->rs);
		pg_hist_merge(&a->lat_tot, &a->thr[t].pub.lat);  /* its last part-second, for --csv */
		pg_hist_init(&a->thr[t].pub.lat);
	}
	for (unsigned t = 1; t < a->nb_thr; t++) {
		struct pg_app *w = a->thr[t].a;

		if (w == NULL)
			continue;
		pg_rxstats_fini(&w->rs);
		free(w->scratch);
		free(w);
		a->thr[t].a = NULL;
	}
	a->merged = true;
	/* The report gives each stream's whole rate, not a thread's share. */
	for (unsigned i = 0; a->o.txq > 1 && i < a->nb_sr; i++) {
		struct pg_rate_spec rs = pg_rate_share(&a->cur_rate, a->sr[i].spec->share);

		pg_rate_init(&a->sr[i].rate, &rs, a->hz, pg_stream_link(a, &a->sr[i]), err, sizeof(err));
	}
}
