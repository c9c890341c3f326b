/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-l2fwd: options, set-up, the statistics loop and teardown. The
 * forwarding itself is in fwd.c. docs/l2fwd.md.
 *
 * Signals: SIGINT and SIGTERM are blocked in every thread before any is
 * created and taken synchronously by the main thread (sigtimedwait) between
 * statistics ticks, so no handler runs inside library code; except when the
 * main core forwards, where a handler only records the signal and wakes the
 * main thread's napi context (main_forward).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/pool.h>

#include "l2fwd.h"
#include "app_pool.h"
#include "app_telemetry.h"

#define POOL_CACHE 256

/*
 * Packets port @p p's pool must hold (app_pool.h): its rx rings, the tx
 * rings of the port it forwards to (its packets wait there until that
 * port's transmit completes), one poll (weight, at least 32) per rx queue,
 * with --tx-drain-us the frames a tx queue may hold too (its packets: they
 * came from this port), and a cache for each thread that may touch it (the
 * forwarding threads and the main thread).
 */
static uint32_t pool_size(struct l2fwd_app *app, unsigned p, unsigned nb_threads, uint32_t *why_rx,
			  uint32_t *why_tx)
{
	struct unic_port_info in = { 0 }, out = { 0 };
	uint32_t nq = app->opts.nb_queues;

	unic_port_info_get(app->ports[p], &in);
	unic_port_info_get(app->ports[app->dst[p]], &out);
	struct app_pool_need n = {
		.nb_rxq = nq, .nb_txq = nq,
		.rxd = app->opts.rxd ? app->opts.rxd : in.rx_desc_default,
		.txd = app->opts.txd ? app->opts.txd : out.tx_desc_default,
		.rx_burst = (app->opts.weight > 32 ? app->opts.weight : 32) + (app->opts.tx_drain_us ? L2FWD_TXB_MAX : 0),
		.nb_threads = nb_threads + 1, .cache_size = POOL_CACHE,
	};

	*why_rx = nq * n.rxd;
	*why_tx = nq * n.txd;
	return app_pool_need(&n);
}

/*
 * One pool per port used, named after it, on its NUMA node (app_pool.h: a
 * memif zero-copy client lends its whole pool to the server). @return 0, or
 * -1 with a message.
 */
static int make_pools(struct l2fwd_app *app, struct unic_env *env, const unsigned *used, unsigned nb_used)
{
	for (unsigned i = 0; i < nb_used; i++) {
		unsigned p = used[i];
		uint32_t prx, ptx, count = pool_size(app, p, app->nb_workers, &prx, &ptx);

		app->pools[p] = app_port_pool_create(unic_env_mem(env), app->ports[p], "l2fwd", count,
						     POOL_CACHE, 0);
		if (app->pools[p] == NULL) {
			fprintf(stderr, "unic-l2fwd: error: port %u (%s): cannot create its pool of %u packets: %s (the message above says why)\n",
				p, unic_port_name(app->ports[p]), count, strerror(errno));
			return -1;
		}
		fprintf(app->info, "l2fwd: port %u (%s): pool %s of %u packets: rx descriptors %u + tx descriptors %u of port %d + one poll per rx queue + caches of %u threads\n",
			p, unic_port_name(app->ports[p]), app->pools[p]->name, count, prx, ptx, app->dst[p],
			app->nb_workers + 1);
	}
	return 0;
}

static void link_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	struct unic_link l;

	(void)arg;
	if (ev == UNIC_EVENT_LINK) {
		if (unic_port_link_get(port, &l) == 0)
			UNIC_LOG(NOTICE, APP, "l2fwd: port %s: link %s%s", unic_port_name(port),
				 l.up ? "up" : "down", l.up ? "" : " (frames to it are dropped and counted)");
		return;
	}
	/* The device was taken away (unbind, hot-unplug): the library has
	 * already stopped the port (its queues left their context at a round
	 * boundary) and marked it removed. Frames forwarded to it from now on
	 * are dropped and counted; its stats stay readable; the other ports go
	 * on; it is closed at exit like the others. */
	UNIC_LOG(WARNING, APP, "l2fwd: port %s: %s: the port was stopped; frames to it are dropped and counted, the other ports keep forwarding",
		 unic_port_name(port), unic_event_name(ev));
}

static int setup_port(struct l2fwd_app *app, unsigned p)
{
	struct unic_port *port = app->ports[p];
	uint16_t nq = app->opts.nb_queues;
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = nq, .nb_txq = nq,
				    .rx_mode = app->opts.mode, .link_intr = true };
	struct unic_port_info info = { 0 };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = app->opts.rxd, .numa_node = -1,
				    .pool = app->pools[p] };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = app->opts.txd, .numa_node = -1 };
	const char *name = unic_port_name(port);
	struct unic_link link;
	int rc2;

	unic_port_info_get(port, &info);
	if (nq > info.max_rxq || nq > info.max_txq) {
		fprintf(stderr, "l2fwd: cannot set up port %u (%s): --queues %u, but the %s driver has %u rx and %u tx queues\n",
			p, name, nq, info.driver, info.max_rxq, info.max_txq);
		return -EINVAL;
	}
	if (nq > 1) {
		/* Spread flows over the rx queues with every hash the port has,
		 * unless the device spreads them itself (af_xdp: the
		 * interface's queues). */
		c.rss_hash_types = info.rss_hash_capa;
		if (c.rss_hash_types == 0 && !info.rx_spread_by_device) {
			fprintf(stderr, "l2fwd: cannot set up port %u (%s): --queues %u needs RSS, which the %s driver does not offer\n",
				p, name, nq, info.driver);
			return -ENOTSUP;
		}
		if (c.rss_hash_types == 0)
			fprintf(app->info, "l2fwd: port %u (%s): %u rx queues filled by the device itself (no RSS configured)\n",
				p, name, nq);
	}
	rc2 = unic_port_configure(port, &c);
	/* Transmit queues first: the rx queue's pool check counts a transmit
	 * queue not set up yet at the driver's default size, which --txd may
	 * make smaller (af_xdp: 4096). */
	for (uint16_t q = 0; rc2 == 0 && q < nq; q++)
		rc2 = unic_port_tx_queue_setup(port, q, &tc);
	for (uint16_t q = 0; rc2 == 0 && q < nq; q++)
		rc2 = unic_port_rx_queue_setup(port, q, &rc);
	if (rc2 == 0)
		rc2 = unic_port_start(port);
	if (rc2) {
		fprintf(stderr, "l2fwd: cannot set up port %u (%s): %s (the message above says why)\n",
			p, name, strerror(-rc2));
		return rc2;
	}
	if (app->opts.promisc) {
		rc2 = unic_port_promisc_set(port, true);
		if (rc2)
			fprintf(stderr, "l2fwd: warning: port %u (%s): promiscuous mode not set: %s; going on\n",
				p, name, strerror(-rc2));
	}
	if (unic_port_link_get(port, &link) == 0 && !link.up)
		unic_port_link_wait(port, 3000, &link);
	fprintf(app->info, "l2fwd: port %u (%s) -> port %d (%s), link %s", p, name, app->dst[p],
		unic_port_name(app->ports[app->dst[p]]), link.up ? "up" : "down");
	if (link.up)
		fprintf(app->info, " %u Mbps", link.speed_mbps);
	fprintf(app->info, "\n");
	return 0;
}

static void make_route(struct l2fwd_app *app, unsigned p)
{
	struct l2fwd_route *r = &app->routes[p];
	unsigned d = (unsigned)app->dst[p];
	uint8_t mac[UNIC_ETHER_ADDR_LEN] = { 0 };

	r->in = app->ports[p];
	r->out = app->ports[d];
	r->in_idx = (uint16_t)p;
	r->out_idx = (uint16_t)d;
	r->mac_updating = app->opts.mac_updating;
	r->in_cnt = &app->cnt[p];
	r->out_cnt = &app->cnt[d];
	r->stamp_hz = app->opts.stamp_age ? unic_tsc_hz() : 0;
	/* Destination 02:00:00:00:00:<out port>; source: the out port's MAC. */
	r->hdr[0] = 0x02;
	r->hdr[5] = (uint8_t)d;
	if (unic_port_mac_get(r->out, mac) != 0)
		fprintf(stderr, "l2fwd: warning: port %u: cannot read its MAC; source address 00:00:00:00:00:00\n", d);
	memcpy(r->hdr + 6, mac, sizeof(mac));
}

/*
 * Interrupt and hybrid modes: have the kernel take each rx queue's
 * interrupt on the core of the thread that sleeps on it, as Linux's NAPI
 * runs where the IRQ came (a wake-up from another CPU costs tens of us:
 * docs/napi.md, "Interrupt affinity"). A queue that cannot be steered is a
 * warning, never a failure. One line per queue in the set-up notes.
 */
static void steer_irqs(struct l2fwd_app *app, const struct l2fwd_worker *wk)
{
	if (app->opts.mode == UNIC_RX_MODE_POLL)
		return;
	if (!app->opts.irq_affinity) {
		fprintf(app->info, "l2fwd: thread %u: rx interrupts left where the kernel put them (--no-irq-affinity)\n",
			wk->idx);
		return;
	}
	if (wk->core < 0) {
		fprintf(app->info, "l2fwd: thread %u is not pinned: rx interrupts left where the kernel put them (pin the threads with -l to steer them)\n",
			wk->idx);
		return;
	}
	for (unsigned i = 0; i < wk->nb_routes; i++) {
		const struct l2fwd_route *r = wk->routes[i];
		const char *name = unic_port_name(r->in);

		for (uint16_t q = 0; q < wk->nb_queues; q++) {
			int irq = unic_port_rx_intr_irq(r->in, q), rc;

			if (irq == -ENOTSUP) {
				struct unic_port_info info = { 0 };

				unic_port_info_get(r->in, &info);
				fprintf(app->info, "l2fwd: port %u (%s): no kernel IRQ to steer (the %s driver's rx queues have none)\n",
					r->in_idx, name, info.driver);
				break;
			}
			if (irq < 0) {
				fprintf(stderr, "l2fwd: warning: port %u (%s) rx queue %u: its IRQ is unknown (%s; the message above says why): not steered to core %d; going on\n",
					r->in_idx, name, q, strerror(-irq), wk->core);
				continue;
			}
			rc = unic_port_rx_intr_affinity_set(r->in, q, wk->core);
			if (rc < 0)
				fprintf(stderr, "l2fwd: warning: port %u (%s) rx queue %u: IRQ %d not steered to core %d: %s (the message above says why); it stays where it was, going on\n",
					r->in_idx, name, q, irq, wk->core, strerror(-rc));
			else
				fprintf(app->info, "l2fwd: port %u (%s) rx queue %u: IRQ %d steered to core %d (thread %u)\n",
					r->in_idx, name, q, rc, wk->core, wk->idx);
		}
	}
}

static void *thread_tramp(void *arg)
{
	l2fwd_worker_main(arg);
	return NULL;
}

/* Wait for SIGINT/SIGTERM until @p deadline_ns. @return the signal, or 0. */
static int wait_signal(const sigset_t *set, uint64_t deadline_ns)
{
	uint64_t now = unic_time_ns();
	struct timespec ts;
	int sig;

	if (deadline_ns <= now)
		return 0;
	uint64_t d = deadline_ns - now;

	ts.tv_sec = (time_t)(d / 1000000000ull);
	ts.tv_nsec = (long)(d % 1000000000ull);
	sig = sigtimedwait(set, NULL, &ts);
	return sig > 0 ? sig : 0;
}

/* A statistics report when one is due; the next one is a period later. */
static void stats_tick(struct l2fwd_app *app, struct l2fwd_snap *s1, struct l2fwd_snap *s2,
		       uint64_t *next, uint64_t period, uint64_t now)
{
	l2fwd_snap(app, s2);
	l2fwd_report(app, s1, s2, false);
	*s1 = *s2;
	*next += period;
	if (*next <= now)
		*next = now + period;
}

/*
 * When the main core forwards, SIGINT/SIGTERM must end its sleeps at once
 * without a timer waking it to look (that would cost an idle port wake-ups
 * the worker threads never pay). So, for that loop only, the main thread
 * takes them with a handler that records the signal and wakes its napi
 * context (unic_napi_wake is async-signal-safe: an eventfd write, which a
 * sleep about to start sees too). A signal handler can reach nothing but
 * globals: these two, set before the handler is installed.
 */
static volatile sig_atomic_t main_sig;
static struct unic_napi_ctx *main_sig_ctx;

static void main_sig_handler(int sig)
{
	main_sig = sig;
	unic_napi_wake(main_sig_ctx);
}

/*
 * The main core forwards (-l with the main core alone, or workers one
 * short): rounds of its napi context, with the statistics between them when
 * due, as DPDK's l2fwd prints its statistics from the main lcore's
 * forwarding loop. A sleep (interrupt and hybrid modes) lasts at most until
 * the next report or the end of the duration (and the engine's own
 * max_sleep_ms). @return the signal that stopped it, or 0 at the end of
 * the duration.
 */
static int main_forward(struct l2fwd_app *app, struct l2fwd_worker *wk, const sigset_t *set,
			struct l2fwd_snap *s1, struct l2fwd_snap *s2, uint64_t next, uint64_t period,
			uint64_t end)
{
	struct sigaction sa, old_int, old_term;
	struct timespec ts;

	main_sig = 0;
	main_sig_ctx = wk->ctx;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = main_sig_handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* A signal that came while they were blocked is handled here. */
	pthread_sigmask(SIG_UNBLOCK, set, NULL);
	/* The rounds' time from the TSC (unic_tsc_clock), in every mode: in
	 * a guest on the HPET clocksource a kernel clock read a round is an
	 * exit into QEMU a round (docs/napi.md, "Poll mode in the rig: the
	 * clock"). */
	struct unic_tsc_clock clk;
	uint64_t now;

	unic_tsc_clock_init(&clk);
	while (main_sig == 0) {
		uint64_t deadline;
		int rc;

		now = unic_tsc_clock_ns(&clk);
		if (now >= next)
			stats_tick(app, s1, s2, &next, period, now);
		if (now >= end)
			break;
		deadline = next < end ? next : end;
		rc = unic_napi_run_once(wk->ctx, deadline == UINT64_MAX ? -1 :
					(int64_t)((deadline - now + 999) / 1000));
		if (rc < 0) {
			fprintf(stderr, "unic-l2fwd: error: main core: its napi context: %s\n", strerror(-rc));
			wk->ret = rc;
			break;
		}
	}
	pthread_sigmask(SIG_BLOCK, set, NULL);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	l2fwd_worker_flush(wk);
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		__atomic_store_n(&wk->cpu_ns_final, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
				 __ATOMIC_RELEASE);
	return main_sig;
}

int main(int argc, char **argv)
{
	static struct l2fwd_app app;
	struct unic_env_options eo;
	struct unic_env *env = NULL;
	struct l2fwd_snap *s0 = NULL, *s1 = NULL, *s2 = NULL;
	pthread_t threads[L2FWD_MAX_PORTS];
	bool launched[L2FWD_MAX_PORTS] = { false };
	bool own_threads = false, stop = false;
	struct unic_telemetry *tel = NULL;
	char err[512], note[256];
	unsigned used_list[L2FWD_MAX_PORTS], nb_used = 0, nb_cores;
	struct l2fwd_plan plan;
	int n, ret = L2FWD_EXIT_FAIL, sig = 0;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	n = unic_env_parse(&eo, argc, argv);
	if (n < 0)
		return L2FWD_EXIT_USAGE;
	l2fwd_opts_init(&app.opts);
	if (l2fwd_opts_parse(&app.opts, n, argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "unic-l2fwd: error: %s\n", err);
		return L2FWD_EXIT_USAGE;
	}
	if (app.opts.help) {
		l2fwd_usage(stdout, "unic-l2fwd");
		return L2FWD_EXIT_OK;
	}
	app.out = stdout;
	app.info = app.opts.stats_format == L2FWD_STATS_JSON ? stderr : stdout;

	env = unic_env_create(&eo);
	if (env == NULL) {
		fprintf(stderr, "unic-l2fwd: error: cannot set up the environment: %s (the message above says why)\n",
			strerror(errno));
		return L2FWD_EXIT_FAIL;
	}
	app.nb_ports = unic_env_ports(env, app.ports, L2FWD_MAX_PORTS);
	n = l2fwd_pair_ports(&app.opts, app.nb_ports, app.dst, err, sizeof(err), note, sizeof(note));
	if (n < 0) {
		fprintf(stderr, "unic-l2fwd: error: %s\n", err);
		ret = L2FWD_EXIT_USAGE;
		goto out_env;
	}
	if (note[0])
		fprintf(app.info, "l2fwd: notice: %s\n", note);
	for (unsigned p = 0; p < app.nb_ports; p++)
		if (app.dst[p] >= 0)
			used_list[nb_used++] = p;

	/* Ports to threads, in port order (l2fwd_plan_threads). */
	nb_cores = eo.nb_cores;
	if (l2fwd_plan_threads(&app.opts, nb_used, nb_cores, &plan, err, sizeof(err), note,
			       sizeof(note)) != 0) {
		fprintf(stderr, "unic-l2fwd: error: %s\n", err);
		ret = L2FWD_EXIT_USAGE;
		goto out_env;
	}
	app.nb_workers = plan.nb_threads;
	own_threads = plan.own_threads;
	if (own_threads)
		fprintf(app.info, "l2fwd: notice: no cores given (-l MAIN,WORKER,...): %u forwarding thread%s, not pinned\n",
			app.nb_workers, app.nb_workers == 1 ? "" : "s");
	else if (note[0])
		fprintf(app.info, "l2fwd: notice: %s\n", note);

	app.cnt = aligned_alloc(UNIC_CACHE_LINE_SIZE, sizeof(*app.cnt) * L2FWD_MAX_PORTS);
	s0 = calloc(1, sizeof(*s0));
	s1 = calloc(1, sizeof(*s1));
	s2 = calloc(1, sizeof(*s2));
	if (app.cnt == NULL || s0 == NULL || s1 == NULL || s2 == NULL) {
		fprintf(stderr, "unic-l2fwd: error: out of memory\n");
		goto out_env;
	}
	memset(app.cnt, 0, sizeof(*app.cnt) * L2FWD_MAX_PORTS);

	if (make_pools(&app, env, used_list, nb_used) != 0)
		goto out_pools;
	if (app.opts.nb_queues > 1)
		fprintf(app.info, "l2fwd: %u rx and tx queues per port, RSS on where the port has it; rx queue N sends on tx queue N\n",
			app.opts.nb_queues);

	for (unsigned i = 0; i < nb_used; i++)
		if (setup_port(&app, used_list[i]) != 0)
			goto out_ports;
	for (unsigned i = 0; i < nb_used; i++) {
		make_route(&app, used_list[i]);
		if (l2fwd_route_txb_init(&app.routes[used_list[i]], app.opts.nb_queues, app.opts.tx_drain_us) != 0) {
			fprintf(stderr, "l2fwd: error: no memory for port %u's held tx frames (--tx-drain-us); run without it, or with fewer --queues\n",
				used_list[i]);
			goto out_ports;
		}
	}
	if (app.opts.tx_drain_us)
		fprintf(app.info, "l2fwd: tx bursts that come less than %u us apart are held up to %u us (at most %u frames) before they are sent (--tx-drain-us)\n",
			app.opts.tx_drain_us, app.opts.tx_drain_us, L2FWD_TXB_MAX);

	struct unic_napi_conf nc;

	l2fwd_napi_conf(&app.opts, &nc);
	const struct unic_env_options *eopts = unic_env_opts(env);

	for (unsigned w = 0; w < app.nb_workers; w++) {
		struct l2fwd_worker *wk = &app.workers[w];
		char name[32];

		wk->idx = w;
		wk->weight = app.opts.weight;
		wk->nb_queues = app.opts.nb_queues;
		wk->pools = app.pools;
		wk->nb_pools = app.nb_ports;
		wk->stop = &stop;
		if (own_threads)
			wk->core = -1;
		else if (plan.main_forwards && w == app.nb_workers - 1)
			wk->core = eopts->cores[0];
		else
			wk->core = eopts->cores[w + 1];
		for (unsigned i = w * plan.per_thread; i < nb_used && i < (w + 1) * plan.per_thread; i++)
			wk->routes[wk->nb_routes++] = &app.routes[used_list[i]];
		snprintf(name, sizeof(name), "l2fwd%u", w);
		nc.name = name;
		n = l2fwd_worker_setup(wk, &nc);
		if (n) {
			fprintf(stderr, "unic-l2fwd: error: thread %u: cannot set up its napi context: %s (the message above says why)\n",
				w, strerror(-n));
			goto out_workers;
		}
		if (plan.main_forwards && w == app.nb_workers - 1)
			fprintf(app.info, "l2fwd: thread %u (main core %d, %s mode, with the statistics): ports",
				w, wk->core, unic_rx_mode_name(app.opts.mode));
		else if (wk->core >= 0)
			fprintf(app.info, "l2fwd: thread %u (core %d, %s mode): ports", w, wk->core,
				unic_rx_mode_name(app.opts.mode));
		else
			fprintf(app.info, "l2fwd: thread %u (not pinned, %s mode): ports", w,
				unic_rx_mode_name(app.opts.mode));
		for (unsigned i = 0; i < wk->nb_routes; i++)
			fprintf(app.info, " %u", wk->routes[i]->in_idx);
		fprintf(app.info, "\n");
		steer_irqs(&app, wk);
	}
	if (unic_event_callback_register(NULL, UNIC_EVENT_LINK, link_cb, &app) == 0 &&
	    unic_event_callback_register(NULL, UNIC_EVENT_DEV_REQUEST, link_cb, &app) == 0 &&
	    unic_event_callback_register(NULL, UNIC_EVENT_DEV_GONE, link_cb, &app) == 0)
		unic_event_thread_start();
	fprintf(app.info, "l2fwd: MAC updating %s; statistics every %g s%s; SIGINT or SIGTERM stops\n",
		app.opts.mac_updating ? "on" : "off", app.opts.stats_period,
		app.opts.stats_period == 0 ? " (off)" : "");
	if (app_telemetry_start(&eo, "l2fwd", app.info, l2fwd_telemetry_register, &app, &tel) < 0)
		goto out_workers;
	fflush(app.info);

	if (plan.main_forwards) {
		/* Its CPU clock from the first snapshot on, as a worker's is
		 * from its start: the set-up above is not forwarding. */
		struct l2fwd_worker *mw = &app.workers[app.nb_workers - 1];
		clockid_t cid;

		if (pthread_getcpuclockid(pthread_self(), &cid) == 0) {
			mw->cpu_clock = cid;
			__atomic_store_n(&mw->cpu_clock_ok, 1, __ATOMIC_RELEASE);
		}
	}
	l2fwd_snap(&app, s0);
	for (unsigned w = 0; w < app.nb_workers - (plan.main_forwards ? 1 : 0); w++) {
		if (own_threads)
			n = -pthread_create(&threads[w], NULL, thread_tramp, &app.workers[w]);
		else
			n = unic_env_launch(env, w, l2fwd_worker_main, &app.workers[w]);
		if (n) {
			fprintf(stderr, "unic-l2fwd: error: cannot start thread %u: %s\n", w, strerror(-n));
			goto out_stop;
		}
		launched[w] = true;
	}

	/* The statistics loop. */
	uint64_t start = unic_time_ns();
	uint64_t period = (uint64_t)(app.opts.stats_period * 1e9);
	uint64_t end = app.opts.duration > 0 ? start + (uint64_t)(app.opts.duration * 1e9) : UINT64_MAX;
	uint64_t next = period ? start + period : UINT64_MAX;

	*s1 = *s0;
	if (plan.main_forwards) {
		sig = main_forward(&app, &app.workers[app.nb_workers - 1], &set, s1, s2, next, period, end);
	} else {
		for (;;) {
			uint64_t deadline = next < end ? next : end, now;

			if (deadline == UINT64_MAX)
				deadline = unic_time_ns() + 1000000000ull;
			sig = wait_signal(&set, deadline);
			if (sig)
				break;
			now = unic_time_ns();
			if (now >= next)
				stats_tick(&app, s1, s2, &next, period, now);
			if (now >= end)
				break;
		}
	}
	ret = plan.main_forwards && app.workers[app.nb_workers - 1].ret < 0 ? L2FWD_EXIT_FAIL : L2FWD_EXIT_OK;
	if (sig)
		fprintf(app.info, "\nl2fwd: %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");

out_stop:
	__atomic_store_n(&stop, true, __ATOMIC_RELEASE);
	for (unsigned w = 0; w < app.nb_workers; w++)
		if (app.workers[w].ctx)
			unic_napi_wake(app.workers[w].ctx);
	for (unsigned w = 0; w < app.nb_workers; w++) {
		if (!launched[w])
			continue;
		if (own_threads)
			pthread_join(threads[w], NULL);
		else
			unic_env_wait(env, w);
	}
	if (ret == L2FWD_EXIT_OK) {
		l2fwd_snap(&app, s2);
		l2fwd_report(&app, s0, s2, true);
	}
	/* Before the contexts go: its /l2fwd/threads reads them. */
	unic_telemetry_stop(tel);
	tel = NULL;
	unic_event_callback_unregister(NULL, UNIC_EVENT_LINK, link_cb, &app);
	unic_event_callback_unregister(NULL, UNIC_EVENT_DEV_REQUEST, link_cb, &app);
	unic_event_callback_unregister(NULL, UNIC_EVENT_DEV_GONE, link_cb, &app);
	unic_event_thread_stop();
out_workers:
	unic_telemetry_stop(tel);
	for (unsigned w = 0; w < app.nb_workers; w++)
		unic_napi_ctx_destroy(app.workers[w].ctx);
out_ports:
	/* Stop and close before the pool goes: closing returns the buffers. */
	for (unsigned i = 0; i < nb_used; i++) {
		if (unic_port_state(app.ports[used_list[i]]) == UNIC_PORT_STARTED)
			unic_port_stop(app.ports[used_list[i]]);
		unic_port_close(app.ports[used_list[i]]);
		l2fwd_route_txb_free(&app.routes[used_list[i]]);
	}
out_pools:
	for (unsigned p = 0; p < app.nb_ports; p++)
		unic_pool_destroy(app.pools[p]);
out_env:
	unic_env_destroy(env);
	free(s0);
	free(s1);
	free(s2);
	free(app.cnt);
	return ret;
}
