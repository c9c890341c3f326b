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

#include "log_capture.h"
#include "port_fixture.h"
#include "thread_time.h"

static struct unic_mem *mem;
static struct unic_pool *pool;
/* Notices, warnings and errors: the shared capture under the old names. */
#define logbuf logcap_buf
#define log_has logcap_has

static void setup(void)
{
	logcap_start(UNIC_LOG_NOTICE, 0);
	unic_log_set_level(-1, UNIC_LOG_NOTICE);
	fixture_mem_pool(&mem, &pool, "napitest", 16384, 256);
}

static void teardown(void)
{
	fixture_mem_pool_free(mem, pool);
	logcap_stop();
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

#define port_create fixture_port_create

/* @p nq queues, 1024 rx descriptors, hybrid rx mode. */
static void port_up(struct unic_port *p, uint16_t nq)
{
	fixture_port_up(p, pool, nq, 1024, UNIC_RX_MODE_HYBRID);
}

#define port_down fixture_port_down

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

static struct unic_napi_ctx *ctx_make(enum unic_rx_mode mode, uint32_t budget)
{
	struct unic_napi_conf c = { .sz = sizeof(c), .name = unic_rx_mode_name(mode),
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

UNIC_UNUSED static void runner_stop(struct runner *r)
{
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(r->ctx);
	pthread_join(r->tid, NULL);
	cr_assert_eq(r->rc, 0, "unic_napi_run: %s", strerror(-r->rc));
}

UNIC_UNUSED static struct unic_napi_ctx_stats ctx_stats(struct unic_napi_ctx *ctx)
{
	struct unic_napi_ctx_stats st;

	cr_assert_eq(unic_napi_ctx_stats_get(ctx, &st), 0);
	return st;
}

#endif /* TEST_NAPI_COMMON_H */
