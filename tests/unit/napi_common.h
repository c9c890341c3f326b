/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the napi unit tests (test_napi.c, test_napi_idle.c): a ring pair
 * as the test vehicle (what port "tx" sends on queue q, port "rx" receives
 * on queue q, with an eventfd doorbell per rx queue), packets that carry a
 * sequence number and a send timestamp, and a thread that runs a context.
 */
#ifndef TEST_NAPI_COMMON_H
#define TEST_NAPI_COMMON_H

#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <unic/napi.h>
#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>
#include <unic/cycles.h>

static struct unic_mem *mem;
static struct unic_pool *pool;
static char logbuf[16384];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg)
{
	size_t len;

	(void)ctx;
	(void)comp;
	if (level > UNIC_LOG_NOTICE)
		return;
	pthread_mutex_lock(&log_lock);
	len = strlen(logbuf);
	if (len + 2 < sizeof(logbuf))
		snprintf(logbuf + len, sizeof(logbuf) - len, "%s\n", msg);
	pthread_mutex_unlock(&log_lock);
}

UNIC_UNUSED static bool log_has(const char *s)
{
	bool found;

	pthread_mutex_lock(&log_lock);
	found = strstr(logbuf, s) != NULL;
	pthread_mutex_unlock(&log_lock);
	return found;
}

static void setup(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = {
		.sz = sizeof(pc), .name = "napitest", .count = 16384, .cache_size = 256,
		.numa_node = -1,
	};

	unic_log_set_sink(sink, NULL);
	unic_log_set_level(-1, UNIC_LOG_NOTICE);
	logbuf[0] = '\0';
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem, "no-huge memory context: %s", strerror(errno));
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	cr_assert_not_null(pool, "packet pool: %s (%s)", strerror(errno), logbuf);
}

static void teardown(void)
{
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
	unic_log_set_sink(NULL, NULL);
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static struct unic_port *port_create(const char *spec)
{
	struct unic_port *p = NULL;
	int rc = unic_vdev_create(spec, &p);

	cr_assert_eq(rc, 0, "unic_vdev_create(\"%s\"): %s (%s)", spec, strerror(-rc), logbuf);
	return p;
}

static void port_up(struct unic_port *p, uint16_t nq)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = nq, .nb_txq = nq,
				       .rx_mode = UNIC_RX_MODE_HYBRID };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 1024, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .numa_node = -1 };
	int err;

	err = unic_port_configure(p, &conf);
	cr_assert_eq(err, 0, "configure %s: %s (%s)", unic_port_name(p), strerror(-err), logbuf);
	for (uint16_t q = 0; q < nq; q++) {
		err = unic_port_rx_queue_setup(p, q, &rc);
		cr_assert_eq(err, 0, "rx queue %u: %s (%s)", q, strerror(-err), logbuf);
		err = unic_port_tx_queue_setup(p, q, &tc);
		cr_assert_eq(err, 0, "tx queue %u: %s (%s)", q, strerror(-err), logbuf);
	}
	err = unic_port_start(p);
	cr_assert_eq(err, 0, "start %s: %s (%s)", unic_port_name(p), strerror(-err), logbuf);
}

static void port_down(struct unic_port *p)
{
	if (unic_port_state(p) == UNIC_PORT_STARTED)
		cr_assert_eq(unic_port_stop(p), 0);
	if (unic_port_state(p) != UNIC_PORT_DETACHED) {
		cr_assert_eq(unic_port_close(p), 0);
		cr_assert_eq(unic_port_detach(p), 0);
	}
	unic_port_put(p);
}

/* Payload: sequence number, then the send time (CLOCK_MONOTONIC ns). */
struct tpay {
	uint32_t seq;
	uint32_t pad;
	uint64_t sent_ns;
};

/* NULL when the pool is dry (threads other than the test's may not assert). */
UNIC_UNUSED static struct unic_pkt *pkt_make(uint32_t seq)
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

UNIC_UNUSED static struct tpay *pkt_pay(struct unic_pkt *p)
{
	return unic_pkt_mtod(p, struct tpay *);
}

/* Send packets first..first+n-1 on queue @p q, one at a time. */
UNIC_UNUSED static void send_seq(struct unic_port *tx, uint16_t q, uint32_t first, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct unic_pkt *p = pkt_make(first + i);

		cr_assert_not_null(p);
		cr_assert_eq(unic_tx_burst(tx, q, &p, 1), 1);
	}
}

/* Takes and frees everything. */
UNIC_UNUSED static uint16_t drop_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
					 uint16_t n, void *arg)
{
	(void)port;
	(void)q;
	(void)arg;
	unic_pkt_free_bulk(pkts, n);
	return n;
}

static struct unic_napi_ctx *ctx_make(enum unic_napi_mode mode, uint32_t budget)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .name = unic_napi_mode_name(mode),
				    .mode = mode, .budget = budget };
	struct unic_napi_ctx *ctx = unic_napi_ctx_create(&c);

	cr_assert_not_null(ctx, "napi context: %s (%s)", strerror(errno), logbuf);
	return ctx;
}

/* A thread that runs a context until told to stop. */
struct runner {
	struct unic_napi_ctx *ctx;
	pthread_t tid;
	pid_t ktid;     /* the kernel's id, for /proc/self/task/<ktid>/schedstat */
	bool stop;
	int rc;
};

static void *runner_main(void *arg)
{
	struct runner *r = arg;

	__atomic_store_n(&r->ktid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	r->rc = unic_napi_run(r->ctx, &r->stop);
	unic_pool_cache_flush(pool);
	return NULL;
}

UNIC_UNUSED static void runner_start(struct runner *r, struct unic_napi_ctx *ctx)
{
	memset(r, 0, sizeof(*r));
	r->ctx = ctx;
	cr_assert_eq(pthread_create(&r->tid, NULL, runner_main, r), 0);
	while (__atomic_load_n(&r->ktid, __ATOMIC_ACQUIRE) == 0)
		sleep_ns(100000);
}

/*
 * Time thread @p ktid (0: the caller) spent runnable but waiting for a CPU,
 * from /proc/self/task/<tid>/schedstat ("cpu_ns run_delay_ns slices").
 * A late packet whose delay this explains was not stranded: the machine was
 * busy. 0 if the kernel does not report it.
 */
UNIC_UNUSED static uint64_t run_delay_ns(pid_t ktid)
{
	char path[64];
	unsigned long long cpu = 0, delay = 0;
	FILE *f;

	if (ktid == 0)
		ktid = (pid_t)syscall(SYS_gettid);
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)ktid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu %llu", &cpu, &delay) != 2)
		delay = 0;
	fclose(f);
	return delay;
}

UNIC_UNUSED static void runner_stop(struct runner *r)
{
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(r->ctx);
	pthread_join(r->tid, NULL);
	cr_assert_eq(r->rc, 0, "unic_napi_run: %s", strerror(-r->rc));
}

UNIC_UNUSED static uint64_t thread_cpu_ns(pthread_t t)
{
	clockid_t cid;
	struct timespec ts;

	if (pthread_getcpuclockid(t, &cid) != 0 || clock_gettime(cid, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

UNIC_UNUSED static struct unic_napi_ctx_stats ctx_stats(struct unic_napi_ctx *ctx)
{
	struct unic_napi_ctx_stats st;

	cr_assert_eq(unic_napi_ctx_stats_get(ctx, &st), 0);
	return st;
}

#endif /* TEST_NAPI_COMMON_H */
