/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The napi engine on a ring pair: for each mode (hybrid, interrupt, poll,
 * and adaptive: hybrid with the adaptive policy, docs/napi.md)
 * and offered load (1k, 10k, 100k, 1M packets/s), a paced producer thread
 * stamps each packet with its send time (CLOCK_MONOTONIC) and sends it; the
 * context's handler takes the time again. Prints, per mode and load:
 *
 *   cpu        the context thread's CPU time / wall time, %
 *   intr_per_pkt   interrupt wake-ups / packets
 *   wake_p50, wake_p90, wake_p99, wake_p999   send -> handler, us, over the
 *                  packets that arrived
 *                  while the context slept (sent inside its last sleep)
 *   slept_pkts     how many packets that is
 *   all_p50, all_p99   send -> handler, us, over every packet
 *   (adaptive only) prewakes_per_pkt, polled_per_pkt (found by busy-waiting),
 *                  budget_arms, busy_wait (% of the wall time), est_wake,
 *                  est_gap (us): the policy's decisions and estimates
 *   engine_wake_p99    the engine's own histogram (epoll returned -> first
 *                  packet handed over), us (bucket upper edge)
 *   achieved_pps   what the producer managed (a software producer may not
 *                  reach 1M on a small machine)
 *   run_delay_per_wake   the context thread's wait for a CPU (schedstat)
 *                  over the run, per wake-up, us: the machine's share
 *   load1          the 1-minute load average when the run began
 *
 * One line per figure, or --json. --scale multiplies the run times.
 * BENCH_NAPI_MODES (hybrid,interrupt,poll,adaptive) and BENCH_NAPI_LOADS
 * (1000,10000,100000,1000000) pick the runs; unset: all.
 * BENCH_NAPI_EMPTY_POLLS and BENCH_NAPI_IDLE_US set hybrid_empty_polls and
 * hybrid_idle_us (unset: the defaults); BENCH_NAPI_LATENCY_TARGET_US and
 * BENCH_NAPI_CPU_BUDGET the adaptive mode's knobs (unset: 10 us and the
 * engine's default budget); BENCH_NAPI_PIN=P,C pins the
 * producer to CPU P and the context's thread to CPU C.
 */
#include <errno.h>
#include <inttypes.h>
#include <unistd.h>
#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>

#include <unic/napi.h>
#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>
#include "bench.h"
#include "thread_time.h"
#include "vdev_port.h"

#define POOL_PKTS 16384
#define MAX_SAMPLES (1u << 21)

struct run {
	struct unic_napi_ctx *ctx;
	struct unic_port *tx;
	uint64_t pps;
	uint64_t duration_ns;
	bool stop;
	uint64_t sent;
	uint64_t handled;
	uint32_t nb_slept;
	uint64_t *slept_lat;     /* ns, packets sent while the context slept */
	uint32_t nb_all;
	uint64_t *all_lat;       /* ns, every packet */
};

static uint16_t handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			void *arg)
{
	struct run *r = arg;
	uint64_t now = unic_time_ns(), s0, s1;

	(void)port;
	(void)q;
	unic_napi_last_sleep(r->ctx, &s0, &s1);
	for (uint16_t i = 0; i < n; i++) {
		uint64_t sent = *unic_pkt_mtod(pkts[i], uint64_t *);

		if (sent >= s0 && sent <= s1 && r->nb_slept < MAX_SAMPLES)
			r->slept_lat[r->nb_slept++] = now - sent;
		if (r->nb_all < MAX_SAMPLES)
			r->all_lat[r->nb_all++] = now - sent;
	}
	unic_pkt_free_bulk(pkts, n);
	__atomic_store_n(&r->handled, r->handled + n, __ATOMIC_RELEASE);
	return n;
}

static struct unic_pool *pool;

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ull), .tv_nsec = (long)(t % 1000000000ull) };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* Paced sender: packet i is due at start + i / pps; it sends what is due,
 * up to 32 at once, stamped just before the send. Up to 50 000 pps it
 * sleeps until the next one is due (timer slack 1 ns), as an interrupt
 * source would: a sender that spun through the gap would hold the CPU the
 * context wakes on whenever the two share one, and its spin would be
 * counted as wake latency. Above, it sleeps far from the next packet and
 * spins close to it. */
/* BENCH_NAPI_PIN=P,C: the producer on CPU P, the context on CPU C (unset:
 * wherever the scheduler puts them). */
static void pin_self(int which)
{
	const char *v = getenv("BENCH_NAPI_PIN");
	int cpu[2];
	cpu_set_t set;

	if (v == NULL || sscanf(v, "%d,%d", &cpu[0], &cpu[1]) != 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu[which], &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) != 0)
		fprintf(stderr, "BENCH_NAPI_PIN: cannot pin to CPU %d\n", cpu[which]);
}

static void *producer(void *arg)
{
	struct run *r = arg;
	uint64_t period = 1000000000ull / r->pps;
	uint64_t start, end;
	uint64_t i = 0;

	pin_self(0);
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	start = unic_time_ns() + 1000000;
	end = start + r->duration_ns;

	for (;;) {
		struct unic_pkt *pkts[32];
		uint64_t now = unic_time_ns(), due = start + i * period;
		uint16_t k = 0, sent = 0;

		if (now >= end)
			break;
		if (now < due) {
			if (period >= 20000)
				sleep_until(due);
			else if (due - now > 60000)
				sleep_until(due - 50000);
			else
				unic_pause();
			continue;
		}
		while (k < 32 && start + (i + k) * period <= now) {
			pkts[k] = unic_pkt_alloc(pool);
			if (pkts[k] == NULL)
				break;
			unic_pkt_append(pkts[k], 64);
			k++;
		}
		now = unic_time_ns();
		for (uint16_t j = 0; j < k; j++)
			*unic_pkt_mtod(pkts[j], uint64_t *) = now;
		while (sent < k) {
			uint16_t m = unic_tx_burst(r->tx, 0, pkts + sent, (uint16_t)(k - sent));

			if (m == 0) {
				/* The receiver's ring is full: dropped, as a NIC would. */
				unic_pkt_free_bulk(pkts + sent, (uint32_t)(k - sent));
				break;
			}
			sent = (uint16_t)(sent + m);
		}
		r->sent += sent;
		i += k ? k : 1;
	}
	unic_pool_cache_flush(pool);
	return NULL;
}

struct ctx_thread {
	struct unic_napi_ctx *ctx;
	bool stop;
	pid_t ktid;              /* for its schedstat */
};

static void *ctx_main(void *arg)
{
	struct ctx_thread *t = arg;

	pin_self(1);
	__atomic_store_n(&t->ktid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);

	unic_napi_run(t->ctx, &t->stop);
	unic_pool_cache_flush(pool);
	return NULL;
}

/* The 1-minute load average: how busy the machine was. */
static double loadavg(void)
{
	double l = -1;
	FILE *f = fopen("/proc/loadavg", "r");

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct unic_port *make_port(const char *spec)
{
	const struct vdev_port_conf c = { .spec = spec, .pool = pool, .nb_queues = 1, .nb_rxd = 4096,
					  .numa_node = -1, .rx_mode = UNIC_RX_MODE_HYBRID };
	char why[256];
	struct unic_port *p = vdev_port_open(&c, why, sizeof(why));

	if (p == NULL)
		fprintf(stderr, "%s\n", why);
	return p;
}

/* The adaptive policy is hybrid's: a mode of this benchmark, not of the engine. */
#define BENCH_MODE_ADAPTIVE ((enum unic_rx_mode)100)

static const char *mode_name(enum unic_rx_mode mode)
{
	return mode == BENCH_MODE_ADAPTIVE ? "adaptive" : unic_rx_mode_name(mode);
}

static int one(struct bench *b, struct unic_port *tx, struct unic_port *rx, enum unic_rx_mode mode,
	       uint64_t pps, uint64_t duration_ns)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .name = "bench",
				    .mode = mode == BENCH_MODE_ADAPTIVE ? UNIC_RX_MODE_HYBRID : mode };
	const char *lt = getenv("BENCH_NAPI_LATENCY_TARGET_US"), *cb = getenv("BENCH_NAPI_CPU_BUDGET");
	const char *ep = getenv("BENCH_NAPI_EMPTY_POLLS"), *iu = getenv("BENCH_NAPI_IDLE_US");
	struct unic_napi_ctx_stats st0, st1;
	struct run r = { .tx = tx, .pps = pps, .duration_ns = duration_ns };
	struct ctx_thread ct;
	pthread_t ctid, ptid;
	uint64_t t0, t1, cpu0, cpu1, p50 = 0, p90 = 0, p99 = 0, p999 = 0, rd0, rd1, all50 = 0, all99 = 0;
	double load0;
	char name[64], tag[32];
	int rc;

	/* Knobs to compare (unset: the defaults). */
	if (ep && *ep)
		c.hybrid_empty_polls = (uint32_t)strtoul(ep, NULL, 0);
	if (iu && *iu && mode != BENCH_MODE_ADAPTIVE)
		c.hybrid_idle_us = (uint32_t)strtoul(iu, NULL, 0);
	if (mode == BENCH_MODE_ADAPTIVE) {
		c.latency_target_us = lt && *lt ? (uint32_t)strtoul(lt, NULL, 0) : 10;
		c.cpu_budget = cb && *cb ? (uint32_t)strtoul(cb, NULL, 0) : 0;
	}
	r.slept_lat = malloc(MAX_SAMPLES * sizeof(uint64_t));
	r.all_lat = malloc(MAX_SAMPLES * sizeof(uint64_t));
	r.ctx = unic_napi_ctx_create(&c);
	if (r.ctx == NULL || r.slept_lat == NULL || r.all_lat == NULL)
		return -ENOMEM;
	rc = unic_napi_queue_add(r.ctx, rx, 0, 64, handler, &r);
	if (rc)
		return rc;
	ct.ctx = r.ctx;
	ct.stop = false;
	ct.ktid = 0;
	pthread_create(&ctid, NULL, ctx_main, &ct);
	usleep(20000); /* let it settle (and, but for poll, fall asleep) */
	load0 = loadavg();
	unic_napi_ctx_stats_get(r.ctx, &st0);
	cpu0 = thread_cpu_ns(ctid);
	rd0 = run_delay_ns(__atomic_load_n(&ct.ktid, __ATOMIC_ACQUIRE));
	t0 = unic_time_ns();
	pthread_create(&ptid, NULL, producer, &r);
	pthread_join(ptid, NULL);
	/* Let the last packets drain. */
	for (unsigned i = 0; i < 1000 && __atomic_load_n(&r.handled, __ATOMIC_ACQUIRE) < r.sent; i++)
		usleep(1000);
	t1 = unic_time_ns();
	cpu1 = thread_cpu_ns(ctid);
	rd1 = run_delay_ns(ct.ktid);
	unic_napi_ctx_stats_get(r.ctx, &st1);
	__atomic_store_n(&ct.stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(r.ctx);
	pthread_join(ctid, NULL);

	if (r.nb_slept) {
		qsort(r.slept_lat, r.nb_slept, sizeof(uint64_t), cmp_u64);
		p50 = r.slept_lat[r.nb_slept / 2];
		p90 = r.slept_lat[(uint64_t)r.nb_slept * 90 / 100];
		p99 = r.slept_lat[(uint64_t)r.nb_slept * 99 / 100];
		p999 = r.slept_lat[(uint64_t)r.nb_slept * 999 / 1000];
	}
	if (r.nb_all) {
		qsort(r.all_lat, r.nb_all, sizeof(uint64_t), cmp_u64);
		all50 = r.all_lat[r.nb_all / 2];
		all99 = r.all_lat[(uint64_t)r.nb_all * 99 / 100];
	}
	for (unsigned i = 0; i < UNIC_NAPI_HIST_BUCKETS; i++)
		st1.wake_latency_ns[i] -= st0.wake_latency_ns[i];
	snprintf(tag, sizeof(tag), "%s_%s", mode_name(mode),
		 pps >= 1000000 ? "1M" : pps >= 100000 ? "100k" : pps >= 10000 ? "10k" : "1k");
#define FIG(suffix, val, unit)                                              \
	do {                                                                \
		snprintf(name, sizeof(name), "napi_%s_%s", tag, suffix);      \
		bench_add(b, name, (val), (unit));                          \
	} while (0)
	FIG("achieved_pps", (double)r.handled * 1e9 / (double)duration_ns, "pps");
	FIG("cpu", 100.0 * (double)(cpu1 - cpu0) / (double)(t1 - t0), "%");
	FIG("intr_per_pkt", r.handled ? (double)(st1.interrupts - st0.interrupts) / (double)r.handled : 0, "ratio");
	FIG("slept_pkts", (double)r.nb_slept, "packets");
	FIG("wake_p50", (double)p50 / 1e3, "us");
	FIG("wake_p90", (double)p90 / 1e3, "us");
	FIG("wake_p99", (double)p99 / 1e3, "us");
	FIG("wake_p999", (double)p999 / 1e3, "us");
	FIG("all_p50", (double)all50 / 1e3, "us");
	FIG("all_p99", (double)all99 / 1e3, "us");
	FIG("engine_wake_p99", (double)unic_napi_hist_percentile(st1.wake_latency_ns,
								 UNIC_NAPI_HIST_BUCKETS, 0.99) / 1e3, "us");
	FIG("lost", (double)(r.sent - r.handled), "packets");
	if (mode == BENCH_MODE_ADAPTIVE) {
		/* The policy's decisions (docs/napi.md, "The adaptive policy"). */
		FIG("prewakes_per_pkt", r.handled ? (double)(st1.prewakes - st0.prewakes) / (double)r.handled : 0,
		    "ratio");
		FIG("polled_per_pkt", r.handled ? (double)(st1.sleeps_avoided - st0.sleeps_avoided) /
		    (double)r.handled : 0, "ratio");
		FIG("budget_arms", (double)(st1.budget_arms - st0.budget_arms), "arms");
		FIG("busy_wait", 100.0 * (double)(st1.busy_wait_ns - st0.busy_wait_ns) / (double)(t1 - t0), "%");
		FIG("est_wake", (double)st1.est_wake_ns / 1e3, "us");
		FIG("est_gap", (double)st1.est_gap_ns / 1e3, "us");
	}
	/* The machine's part: how long the context thread waited for a CPU
	 * per wake-up (it is runnable from the wake until it runs), and the
	 * load average when the run began. */
	FIG("run_delay_per_wake", st1.wakeups > st0.wakeups ?
	    (double)(rd1 - rd0) / 1e3 / (double)(st1.wakeups - st0.wakeups) : 0, "us");
	FIG("load1", load0, "loadavg");
#undef FIG
	unic_napi_ctx_destroy(r.ctx);
	free(r.slept_lat);
	free(r.all_lat);
	return 0;
}

/* Is @p item in the comma-separated list in environment variable @p var
 * (unset or empty: everything)? BENCH_NAPI_MODES=hybrid,poll,
 * BENCH_NAPI_LOADS=1000,10000 pick runs. */
static bool wanted(const char *var, const char *item)
{
	const char *v = getenv(var), *p;
	size_t n = strlen(item);

	if (v == NULL || *v == '\0')
		return true;
	for (p = v; (p = strstr(p, item)) != NULL; p += n)
		if ((p == v || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	static const uint64_t loads[] = { 1000, 10000, 100000, 1000000 };
	static const enum unic_rx_mode modes[] = { UNIC_RX_MODE_HYBRID, UNIC_RX_MODE_INTERRUPT, UNIC_RX_MODE_POLL,
						   BENCH_MODE_ADAPTIVE };
	struct bench b;
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "napib", .count = POOL_PKTS,
					  .cache_size = 256, .numa_node = -1 };
	struct unic_mem *mem;
	struct unic_port *tx, *rx;
	int rc = bench_init(&b, "napi", argc, argv);

	if (rc)
		return rc;
	mem = bench_mem(&b);
	if (mem == NULL)
		return 1;
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	tx = pool ? make_port("ring0") : NULL;
	rx = tx ? make_port("ring1,peer=ring0") : NULL;
	if (rx == NULL) {
		fprintf(stderr, "cannot set up the ring pair (see the messages above)\n");
		return 1;
	}
	for (unsigned m = 0; m < UNIC_ARRAY_SIZE(modes); m++) {
		if (!wanted("BENCH_NAPI_MODES", mode_name(modes[m])))
			continue;
		for (unsigned l = 0; l < UNIC_ARRAY_SIZE(loads); l++) {
			char lname[16];
			/* Enough packets for a p99 at low rates, seconds at most. */
			uint64_t dur = loads[l] <= 1000 ? 3000000000ull : loads[l] <= 10000 ? 1000000000ull : 500000000ull;

			snprintf(lname, sizeof(lname), "%" PRIu64, loads[l]);
			if (!wanted("BENCH_NAPI_LOADS", lname))
				continue;
			rc = one(&b, tx, rx, modes[m], loads[l], (uint64_t)((double)dur * b.scale));
			if (rc) {
				fprintf(stderr, "run %s at %" PRIu64 " pps: %s\n", mode_name(modes[m]),
					loads[l], strerror(-rc));
				return 1;
			}
		}
	}
	bench_finish(&b);
	unic_port_stop(rx);
	unic_port_stop(tx);
	unic_port_detach(rx);
	unic_port_detach(tx);
	unic_port_put(rx);
	unic_port_put(tx);
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
	return 0;
}
