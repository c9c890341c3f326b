/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: send streams of stamped UDP, TCP or ICMP echo frames, each on
 * its tx port at its share of a paced rate, receive on their rx ports, and
 * report what came back of each stream: received, lost, reordered,
 * duplicated, latency percentiles. docs/pktgen.md.
 *
 * By default one thread does both, so the transmit and receive timestamps
 * come from the same core's TSC. With --txq/--rxq N, thread t (t = 0 is the
 * main thread) sends on tx queue t and receives on rx queue t of every port,
 * each a slice of the run (a copy of struct pg_app with its own streams'
 * sequence numbers, pacing at its share, counts); the main thread sums the
 * slices (published every 100 ms) for the screen, the line a second and
 * /pktgen/stats, and merges them at the end. Latency across cores needs an
 * invariant TSC (constant_tsc and nonstop_tsc); without one, a thread takes
 * latency only of the frames it sent itself.
 */
#include "pktgen.h"

/* pktgen.h says what these are. */
volatile sig_atomic_t pg_stop, pg_signals;
bool pg_key_quit;  /* the q key of the live screen stopped sending */

static void on_signal(int sig)
{
	(void)sig;
	if (pg_signals < 2)
		pg_signals++;
	pg_stop = 1;
}

static void signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;       /* a blocking read or open goes on */
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time: pg_signals counts both */
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGQUIT);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A Ctrl-\ or a closed terminal stops the run the same way, so the
	 * report is written and the terminal's mode restored (pg_term_restore). */
	sigaction(SIGQUIT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

/* A signal came during set-up: say so; the caller stops and closes what is up. */
static bool setup_interrupted(const char *step)
{
	if (!pg_signals)
		return false;
	fprintf(stderr, "unic-pktgen: interrupted (%s) during set-up, %s; nothing was sent\n",
		pg_signals > 1 ? "two signals" : "a signal", step);
	return true;
}

int main(int argc, char **argv)
{
	static struct pg_app a;
	struct unic_env_options eo;
	struct unic_env *env = NULL;
	struct unic_telemetry *tel = NULL;
	struct unic_port *ports[UNIC_PORT_MAX];
	unsigned nports, max_size = 0, mtu;
	char err[512];
	int n, ret = PG_EXIT_FAIL;

	signals_install();
	n = unic_env_parse(&eo, argc, argv);
	if (n < 0)
		return PG_EXIT_USAGE;
	pg_opts_init(&a.o);
	if (pg_opts_parse(&a.o, n, argv, err, sizeof(err)) != 0) {
		fprintf(stderr, "unic-pktgen: error: %s\n", err);
		return PG_EXIT_USAGE;
	}
	if (a.o.help) {
		pg_usage(stdout, "unic-pktgen");
		return PG_EXIT_OK;
	}
	a.out = a.o.csv && strcmp(a.o.csv, "-") == 0 ? stderr : stdout;
	if (a.o.replay) {
		if (pg_capture_load(&a.cap, a.o.replay, err, sizeof(err))) {
			fprintf(stderr, "unic-pktgen: error: option --replay: %s\n", err);
			return PG_EXIT_USAGE;
		}
		max_size = a.cap.max_len;
		mtu = a.cap.mtu_needed;
		if (a.o.count == 0 && a.o.duration == 0)
			a.o.count = a.cap.nb;   /* the capture once */
		if (setup_interrupted("after loading the capture"))
			goto out;
	} else {
		mtu = 0;
		for (unsigned i = 0; i < a.o.nb_streams; i++) {
			unsigned m = pg_stream_max_size(&a.o.streams[i]);
			unsigned l3 = m - PG_ETH_LEN - (a.o.streams[i].vlan ? PG_VLAN_LEN : 0);

			max_size = m > max_size ? m : max_size;
			mtu = l3 > mtu ? l3 : mtu;
		}
	}

	env = unic_env_create(&eo);
	if (env == NULL) {
		fprintf(stderr, "unic-pktgen: cannot set up the environment: %s (the message above says why)\n",
			strerror(errno));
		goto out;
	}
	/* Its line on stderr: stdout may carry --json or --csv. */
	pg_rate_req_init(&a.req);
	pthread_mutex_init(&a.snap.lock, NULL);
	if (app_telemetry_start(&eo, "pktgen", stderr, pg_tel_register, &a, &tel) < 0)
		goto out;
	if (setup_interrupted("after creating the ports"))
		goto out;
	nports = unic_env_ports(env, ports, UNIC_PORT_MAX);
	for (unsigned i = 0; i < a.o.nb_streams; i++) {
		const struct pg_stream_spec *sp = &a.o.streams[i];
		bool tx_bad = (unsigned)sp->tx_port >= nports;

		if (!tx_bad && (unsigned)sp->rx_port < nports)
			continue;
		if (a.o.legacy_stream && i == 0)
			fprintf(stderr, "unic-pktgen: error: option %s: port %d does not exist; %u port(s) were created (0..%d: PCI devices, then --vdev in order)\n",
				tx_bad ? "--tx-port" : "--rx-port", tx_bad ? sp->tx_port : sp->rx_port, nports,
				(int)nports - 1);
		else
			fprintf(stderr, "unic-pktgen: error: stream %u: key %s: port %d does not exist; %u port(s) were created (0..%d: PCI devices, then --vdev in order)\n",
				i, tx_bad ? "tx" : "rx", tx_bad ? sp->tx_port : sp->rx_port, nports, (int)nports - 1);
		ret = PG_EXIT_USAGE;
		goto out;
	}
	if (pg_setup_streams(&a, ports) != 0) {
		ret = PG_EXIT_USAGE;
		goto out;
	}
	a.tx = a.txp[0].port;
	a.rx = a.rxp[0].port;
	a.env = env;
	a.tx_role = a.rx_role = true;  /* thread 0: tx queue 0 and rx queue 0 */
	a.core = eo.nb_cores ? eo.cores[0] : -1;
	a.nb_thr = a.o.txq > a.o.rxq ? a.o.txq : a.o.rxq;
	if (a.nb_thr > 1) {
		const char *opt = a.o.txq >= a.o.rxq ? "--txq" : "--rxq";

		if (eo.nb_cores < a.nb_thr) {
			fprintf(stderr, "unic-pktgen: error: option %s %u: %u threads (one a queue) need %u cores in -l, the first the main thread's (e.g. -l 0-%u); %s\n",
				opt, a.nb_thr, a.nb_thr, a.nb_thr, a.nb_thr - 1,
				eo.nb_cores ? "-l gives fewer" : "no -l was given");
			ret = PG_EXIT_USAGE;
			goto out;
		}
		for (unsigned k = 0; k < a.nb_ports; k++) {
			struct unic_port_info pi = { 0 };

			unic_port_info_get(a.ports[k], &pi);
			if (pi.max_txq < a.o.txq || pi.max_rxq < a.o.rxq) {
				bool t = pi.max_txq < a.o.txq;

				fprintf(stderr, "unic-pktgen: error: option %s %u: port %d (%s, driver %s) has at most %u %s queue(s); give at most that\n",
					t ? "--txq" : "--rxq", t ? a.o.txq : a.o.rxq, a.port_idx[k],
					unic_port_name(a.ports[k]), pi.driver, t ? pi.max_txq : pi.max_rxq, t ? "tx" : "rx");
				ret = PG_EXIT_USAGE;
				goto out;
			}
		}
	} else {
		a.nb_thr = 1;
	}
	a.tsc_ok = pg_tsc_invariant(a.tsc_missing, sizeof(a.tsc_missing));

	{
		struct unic_port_info ti = { 0 }, ri = { 0 };

		unic_port_info_get(a.tx, &ti);
		unic_port_info_get(a.rx, &ri);
		for (unsigned k = 0; k < a.nb_rxp; k++) {
			struct unic_port_info xi = { 0 };

			unic_port_info_get(a.rxp[k].port, &xi);
			if (!xi.rx_synthetic)
				continue;
			fprintf(stderr, "unic-pktgen: error: option %s: port %d (%s) cannot receive what was sent: its driver (%s) makes received packets up (old buffers, which may still hold this run's stamps), so received, lost and latency would be nonsense; receive on a port the frames reach, e.g. a ring pair (--vdev ring0 --vdev ring1,peer=ring0 --tx-port 0 --rx-port 1) or a NIC\n",
				a.o.legacy_stream && a.rxp[k].idx == a.o.rx_port ? "--rx-port" : "--stream (key rx)",
				a.rxp[k].idx, unic_port_name(a.rxp[k].port), xi.driver);
			ret = PG_EXIT_USAGE;
			goto out;
		}
		if (a.cap.nb && (mtu > ti.max_mtu || mtu > ri.max_mtu)) {
			bool t = mtu > ti.max_mtu;

			fprintf(stderr, "unic-pktgen: error: option --replay: frame %u of '%s' is %u bytes (MTU %u); %s port %d (%s) allows an MTU of at most %u\n",
				a.cap.mtu_needed_idx + 1, a.o.replay, a.cap.len[a.cap.mtu_needed_idx], mtu,
				t ? "tx" : "rx", t ? a.o.tx_port : a.o.rx_port, unic_port_name(t ? a.tx : a.rx),
				t ? ti.max_mtu : ri.max_mtu);
			ret = PG_EXIT_USAGE;
			goto out;
		}
		/* Room for the MTU's frame as the port counts it (tag, FCS). */
		uint16_t dataroom = (uint16_t)(max_size + 64 > UNIC_PKT_DATAROOM_DEFAULT ? max_size + 64 : 0);

		if (pg_make_pools(&a, env, dataroom) != 0)
			goto out;
	}
	for (unsigned k = 0; k < a.nb_ports; k++)
		if (pg_setup_port(a.ports[k], a.port_idx[k], a.pools[k], mtu, a.o.rxd, a.o.rxq, a.o.txq))
			goto out;
	for (unsigned k = 0; a.o.promisc && k < a.nb_rxp; k++) {
		n = unic_port_promisc_set(a.rxp[k].port, true);
		if (n) {
			fprintf(stderr, "unic-pktgen: cannot make rx port %d (%s) promiscuous (-P): %s\n",
				a.rxp[k].idx, unic_port_name(a.rxp[k].port), strerror(-n));
			goto out;
		}
	}
	/* Every port's link, up to 3 s each, in slices a signal can end (a
	 * memif client still connecting: frames sent before it is up come
	 * back to no one). */
	for (unsigned k = 0; k < a.nb_ports; k++) {
		struct unic_link l = { 0 };

		for (int i = 0; i < 30 && !pg_signals && unic_port_link_get(a.ports[k], &l) == 0 && !l.up; i++)
			unic_port_link_wait(a.ports[k], 100, &l);
		for (unsigned t = 0; t < a.nb_txp; t++)
			if (a.txp[t].port == a.ports[k])
				a.txp[t].link_mbps = l.up ? l.speed_mbps : 0;
	}
	a.link_mbps = a.txp[0].link_mbps;
	a.hz = unic_tsc_hz();
	unic_tsc_clock_init(&a.clk);
	a.ns_per_cycle = 1e9 / (double)a.hz;
	if (pg_rate_init(&a.rate, &a.o.rate, a.hz, a.link_mbps, err, sizeof(err)) ||
	    pg_streams_rates_init(&a, err, sizeof(err))) {
		fprintf(stderr, "unic-pktgen: error: %s\n", err);
		ret = PG_EXIT_USAGE;
		goto out;
	}
	pg_streams_rates_split(&a);
	if (pg_streams_rx_init(&a, err, sizeof(err))) {
		fprintf(stderr, "unic-pktgen: error: %s\n", err);
		goto out;
	}
	pg_hist_init(&a.lat_sec);
	pg_hist_init(&a.lat_tot);
	/* A chained received frame is made contiguous here to be parsed (and written). */
	a.scratch = malloc(PG_PCAP_SNAPLEN);
	if (a.scratch == NULL) {
		fprintf(stderr, "unic-pktgen: error: out of memory (%u bytes for the receive buffer)\n",
			PG_PCAP_SNAPLEN);
		ret = PG_EXIT_FAIL;
		goto out;
	}
	if (a.o.write_tx || a.o.write_rx) {
		const char *opt = a.o.write_tx ? "--write-tx" : "--write-rx";

		if (a.o.write_tx)
			a.wtx = pg_pcap_writer_open(a.o.write_tx, a.hz, unic_rdtsc(), err, sizeof(err));
		if (a.o.write_rx && (a.o.write_tx == NULL || a.wtx)) {
			opt = "--write-rx";
			a.wrx = pg_pcap_writer_open(a.o.write_rx, a.hz, unic_rdtsc(), err, sizeof(err));
		}
		if ((a.o.write_tx && a.wtx == NULL) || (a.o.write_rx && a.wrx == NULL)) {
			fprintf(stderr, "unic-pktgen: error: option %s: %s\n", opt, err);
			ret = PG_EXIT_USAGE;
			goto out;
		}
	}
	if (a.o.csv) {
		a.csv = strcmp(a.o.csv, "-") == 0 ? stdout : fopen(a.o.csv, "w");
		if (a.csv == NULL) {
			fprintf(stderr, "unic-pktgen: error: option --csv: cannot create '%s': %s\n", a.o.csv,
				strerror(errno));
			ret = PG_EXIT_USAGE;
			goto out;
		}
		if (!a.o.bench.sweep_arg)  /* a sweep writes its rows instead */
			pg_csv_header_streams(a.csv, a.nb_sr > 1);
	}
	if (setup_interrupted("before the run"))
		goto out;
	if (!a.o.json && a.nb_sr == 1)
		fprintf(a.out, "unic-pktgen: tx port %d (%s) -> rx port %d (%s), TSC %.6f GHz, link %u Mbps\n",
			a.txp[0].idx, unic_port_name(a.tx), a.rxp[0].idx, unic_port_name(a.rx),
			(double)a.hz / 1e9, a.link_mbps);
	else if (!a.o.json)
		pg_streams_header(&a);
	if (!a.o.json && !a.o.bench.sweep_arg && a.o.bench.mode == PG_RFC2544_NONE)
		fprintf(a.out, "unic-pktgen: %s\n", PG_TIMESTAMP_NOTE);
	if (!a.o.json && a.nb_thr > 1) {
		fprintf(a.out, "unic-pktgen: %u threads: thread t sends on tx queue t (t < %u) and receives on rx queue t (t < %u) of each port; cores", 
			a.nb_thr, a.o.txq, a.o.rxq);
		for (unsigned t = 0; t < a.nb_thr; t++)
			fprintf(a.out, "%s%d", t ? "," : " ", eo.cores[t]);
		fprintf(a.out, " (thread 0 is the main thread: screen, telemetry, report)\n");
		if (a.tsc_ok)
			fprintf(a.out, "unic-pktgen: TSC invariant (constant_tsc, nonstop_tsc): a latency across cores subtracts two cores' TSCs, which the kernel keeps in step\n");
		else
			fprintf(a.out, "unic-pktgen: TSC NOT invariant (/proc/cpuinfo lacks %s): latency only of frames received by the thread that sent them; none across cores\n",
				a.tsc_missing);
	}
	if (!a.o.json && a.cap.nb)
		fprintf(a.out, "unic-pktgen: replay %s: %u frames, %" PRIu64 " bytes, largest %u; sending %" PRIu64 " frames%s\n",
			a.o.replay, a.cap.nb, a.cap.bytes, a.cap.max_len, a.o.count,
			a.o.count ? "" : " (until --duration)");
	fflush(a.out);  /* the run starts now: a reader of a pipe sees it */

	bool live = !a.o.json && !a.o.quiet && isatty(STDERR_FILENO);

	/* Not a terminal (a pipe, a file, CI): a line a second instead. */
	a.lines = !a.o.json && !a.o.quiet && !isatty(fileno(a.out));

	if (pg_threads_start(&a, &eo)) {
		pg_stop = 1;
		goto out;
	}
	if (a.o.bench.sweep_arg || a.o.bench.mode != PG_RFC2544_NONE) {
		struct pg_trial_ctx tc = { .a = &a, .warmup_s = a.o.bench.warmup_s };

		ret = a.o.bench.sweep_arg ? pg_run_sweep(&a, &tc) : pg_run_rfc2544(&a, &tc);
		goto out;
	}
	a.cur_rate = a.o.rate;
	if ((live || a.lines) && a.lat_sec_s == NULL && !a.cap.nb) {  /* the screen's latency of the last second */
		a.lat_sec_s = malloc(a.nb_sr * sizeof(*a.lat_sec_s));
		for (unsigned i = 0; a.lat_sec_s && i < a.nb_sr; i++)
			pg_hist_init(&a.lat_sec_s[i]);
	}
	a.keys = live && pg_term_raw();
	__atomic_store_n(&a.phase, 1, __ATOMIC_RELEASE);
	pg_run_loop(&a, live, false, 0);
	pg_threads_stop(&a);
	pg_threads_merge(&a);
	pg_snap_publish(&a, unic_tsc_clock_ns(&a.clk));
	__atomic_store_n(&a.phase, 2, __ATOMIC_RELEASE);
	pg_term_restore();
	a.t_end_ns = unic_tsc_clock_ns(&a.clk);
	for (unsigned k = 0; k < a.nb_txp; k++)
		pg_port_counts_get(a.txp[k].port, "hw_tx_good_packets", &a.txp[k].c);
	for (unsigned k = 0; k < a.nb_rxp; k++)
		pg_port_counts_get(a.rxp[k].port, "hw_rx_good_packets", &a.rxp[k].c);
	a.txc = a.txp[0].c;
	a.rxc = a.rxp[0].c;
	if (live)
		fprintf(stderr, "\n");
	if (a.csv)
		pg_csv_tick(&a, a.t_end_ns);  /* the part-second at the end */
	pg_report(&a);
	ret = a.stalled ? PG_EXIT_FAIL : PG_EXIT_OK;
	if (a.sent > 0 && (a.cap.nb ? a.rs.frames : pg_stream_frames_back(&a)) == 0) {
		/* Nothing measured: a wrong port or a missing -P, far more often
		 * than a path that really lost everything. */
		if (a.nb_rxp == 1)
			fprintf(stderr, "unic-pktgen: none of the %" PRIu64 " frames sent came back on rx port %d (%s)",
				a.sent, a.rxp[0].idx, unic_port_name(a.rx));
		else
			fprintf(stderr, "unic-pktgen: none of the %" PRIu64 " frames sent came back on the %u rx ports",
				a.sent, a.nb_rxp);
		if (a.rs.frames)
			fprintf(stderr, "; it received %" PRIu64 " other frames (%" PRIu64 " without a valid stamp, %" PRIu64
				" stamped by another sender)", a.rs.frames, a.rs.no_stamp, a.rs.other_stream);
		fprintf(stderr, ". Check that the rx port is where the tx port's frames arrive (the cabling or the ring's peer=; "
			"behind unic-l2fwd, which rewrites the destination address, give -P) and that its link is up\n");
		ret = PG_EXIT_FAIL;
	}
out:
	if (!a.merged && a.nb_thr > 1) {
		pg_threads_stop(&a);
		pg_threads_merge(&a);
	}
	unic_telemetry_stop(tel);
	pg_drop_all_pending(&a);
	{
		struct pg_pcap_writer *w[2] = { a.wtx, a.wrx };

		for (int i = 0; i < 2; i++)
			if (pg_pcap_writer_close(w[i], err, sizeof(err))) {
				fprintf(stderr, "unic-pktgen: error: option %s: %s\n",
					i ? "--write-rx" : "--write-tx", err);
				ret = PG_EXIT_FAIL;
			}
	}
	if (a.csv && a.csv != stdout && fclose(a.csv) != 0) {
		fprintf(stderr, "unic-pktgen: error: option --csv: writing '%s' failed: %s\n", a.o.csv,
			strerror(errno));
		ret = PG_EXIT_FAIL;
	}
	free(a.scratch);
	free(a.lat_sec_s);
	free(a.csv_prev_s);
	pg_rxstats_fini(&a.rs);
	pg_capture_free(&a.cap);
	for (unsigned k = 0; k < a.nb_ports; k++)
		if (unic_port_state(a.ports[k]) == UNIC_PORT_STARTED)
			unic_port_stop(a.ports[k]);
	for (unsigned k = 0; k < a.nb_ports; k++)
		unic_port_close(a.ports[k]);
	for (unsigned k = 0; k < a.nb_ports; k++)
		unic_pool_destroy(a.pools[k]);
	unic_env_destroy(env);
	return ret;
}
