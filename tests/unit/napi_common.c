/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the napi unit tests share: see napi_common.h.
 */
#include "napi_common.h"

struct unic_mem *mem;
struct unic_pool *pool;

void setup(void)
{
	logcap_start(UNIC_LOG_NOTICE, 0);
	unic_log_set_level(-1, UNIC_LOG_NOTICE);
	fixture_mem_pool(&mem, &pool, "napitest", 16384, 256);
}

void teardown(void)
{
	fixture_mem_pool_free(mem, pool);
	logcap_stop();
}

void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

bool wait_until(wait_cond_fn cond, void *arg, uint64_t period_ns, pid_t ktid, uint64_t limit_ns,
		uint64_t *waited_ns, uint64_t *cpu_wait_ns)
{
	uint64_t t0 = unic_time_ns(), rd0 = run_delay_ns(ktid) + run_delay_ns(0), el = 0, rd = 0;
	bool reached;

	while (!(reached = cond(arg))) {
		el = unic_time_ns() - t0;
		if (el >= limit_ns) {
			/* Past the limit by the wall clock: count out the time
			 * either thread was runnable but had no CPU. */
			rd = run_delay_ns(ktid) + run_delay_ns(0) - rd0;
			if (el - UNIC_MIN(el, rd) >= limit_ns || el >= 30000000000ull)
				break;
		}
		sleep_ns(el < limit_ns ? period_ns : UNIC_MAX(period_ns, 1000000ull));
	}
	*waited_ns = unic_time_ns() - t0;
	*cpu_wait_ns = run_delay_ns(ktid) + run_delay_ns(0) - rd0;
	return reached;
}

struct count_goal {
	const uint64_t *v;
	uint64_t target;
};

static bool count_reached(void *arg)
{
	const struct count_goal *g = arg;

	return __atomic_load_n(g->v, __ATOMIC_ACQUIRE) >= g->target;
}

bool wait_count(const uint64_t *v, uint64_t target, pid_t ktid, uint64_t limit_ns,
		uint64_t *waited_ns, uint64_t *cpu_wait_ns)
{
	struct count_goal g = { .v = v, .target = target };

	return wait_until(count_reached, &g, 10000, ktid, limit_ns, waited_ns, cpu_wait_ns);
}

/* @p nq queues, 1024 rx descriptors, hybrid rx mode. */
void port_up(struct unic_port *p, uint16_t nq)
{
	fixture_port_up(p, pool, nq, 1024, UNIC_RX_MODE_HYBRID);
}

/* NULL when the pool is dry (threads other than the test's may not assert). */
struct unic_pkt *pkt_make(uint32_t seq)
{
	struct unic_pkt *p = unic_pkt_alloc(pool);
	struct tpay *d;

	if (p == NULL)
		return NULL;
	d = unic_pkt_append(p, 64);
	d->seq = seq;
	d->sent_ns = 0;
	return p;
}

struct tpay *pkt_pay(struct unic_pkt *p)
{
	return unic_pkt_mtod(p, struct tpay *);
}

/* Send packets first..first+n-1 on queue @p q, one at a time. */
void send_seq(struct unic_port *tx, uint16_t q, uint32_t first, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct unic_pkt *p = pkt_make(first + i);

		cr_assert_not_null(p);
		cr_assert_eq(unic_tx_burst(tx, q, &p, 1), 1);
	}
}

/* Takes and frees everything. */
uint16_t drop_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
					 uint16_t n, void *arg)
{
	(void)port;
	(void)q;
	(void)arg;
	unic_pkt_free_bulk(pkts, n);
	return n;
}

struct unic_napi_ctx *ctx_make(enum unic_rx_mode mode, uint32_t budget)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .name = unic_rx_mode_name(mode),
				    .mode = mode, .budget = budget };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&c);

	cr_assert_not_null(ctx, "napi context: %s (%s)", strerror(errno), logbuf);
	return ctx;
}

static void *runner_main(void *arg)
{
	struct runner *r = arg;

	__atomic_store_n(&r->ktid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	r->rc = unic_napi_run(r->ctx, &r->stop);
	unic_pool_cache_flush(pool);
	return NULL;
}

void runner_start(struct runner *r, struct unic_napi_ctx *ctx)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	cr_assert_eq(pthread_create(&r->tid, NULL, runner_main, r), 0);
	while (__atomic_load_n(&r->ktid, __ATOMIC_ACQUIRE) == 0)
		sleep_ns(100000);
}

void runner_stop(struct runner *r)
{
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(r->ctx);
	pthread_join(r->tid, NULL);
	cr_assert_eq(r->rc, 0, "unic_napi_run: %s", strerror(-r->rc));
}

struct unic_napi_ctx_stats ctx_stats(struct unic_napi_ctx *ctx)
{
	struct unic_napi_ctx_stats st;

	cr_assert_eq(unic_napi_ctx_stats_get(ctx, &st), 0);
	return st;
}
