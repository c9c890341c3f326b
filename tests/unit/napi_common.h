/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the napi unit tests (test_napi_*.c, test_napi_idle.c,
 * test_napi_xstats.c; defined in napi_common.c): a ring pair
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

/* The suite's memory and pool (16384 packets, cache 256), made per test by
 * setup (which also captures notices, warnings and errors) and freed by
 * teardown: a test suite's .init and .fini. */
extern struct unic_mem *mem;
extern struct unic_pool *pool;
void setup(void);
void teardown(void);
/* Notices, warnings and errors: the shared capture under the old names. */
#define logbuf logcap_buf
#define log_has logcap_has

/* Sleep @p ns nanoseconds (again after a signal). */
void sleep_ns(uint64_t ns);

/* What wait_until() waits for: true once it holds. */
typedef bool (*wait_cond_fn)(void *arg);

/*
 * Sleep-wait, looking every @p period_ns, until @p cond(@p arg) holds, or
 * until @p limit_ns have passed that thread @p ktid (a context's runner) and
 * the caller did not spend waiting for a CPU (run_delay_ns), or 30 s by the
 * wall clock. A packet left behind is not handled however long the wait, and
 * the stranded thread sleeps, so it is caught after @p limit_ns; a busy
 * machine that keeps the context off its CPU only makes the wait longer.
 * @return true when it held; *@p waited_ns: the wall-clock wait;
 * *@p cpu_wait_ns: the run delay within it (both threads').
 */
bool wait_until(wait_cond_fn cond, void *arg, uint64_t period_ns, pid_t ktid, uint64_t limit_ns,
		uint64_t *waited_ns, uint64_t *cpu_wait_ns);

/* wait_until() *@p v (an atomic counter) reaches @p target, looking every
 * 10 us. */
bool wait_count(const uint64_t *v, uint64_t target, pid_t ktid, uint64_t limit_ns,
		uint64_t *waited_ns, uint64_t *cpu_wait_ns);

#define port_create fixture_port_create
/* @p nq queues, 1024 rx descriptors, hybrid rx mode. */
void port_up(struct unic_port *p, uint16_t nq);
#define port_down fixture_port_down

/* Payload: sequence number, then the send time (CLOCK_MONOTONIC ns). */
struct tpay {
	uint32_t seq;
	uint32_t pad;
	uint64_t sent_ns;
};

/* A 64-byte packet carrying @p seq; NULL when the pool is dry (threads
 * other than the test's may not assert). */
struct unic_pkt *pkt_make(uint32_t seq);
/* The payload of @p p. */
struct tpay *pkt_pay(struct unic_pkt *p);
/* Send packets first..first+n-1 on queue @p q, one at a time. */
void send_seq(struct unic_port *tx, uint16_t q, uint32_t first, uint32_t n);
/* A handler that takes and frees everything. */
uint16_t drop_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n, void *arg);

/* A context in rx mode @p mode with @p budget (0: the default), named after
 * the mode; asserts. */
struct unic_napi_ctx *ctx_make(enum unic_rx_mode mode, uint32_t budget);

/* A thread that runs a context until told to stop. */
struct runner {
	struct unic_napi_ctx *ctx;
	pthread_t tid;
	pid_t ktid;     /* the kernel's id, for run_delay_ns() (thread_time.h) */
	bool stop;
	int rc;
};

/* Start a thread running @p ctx; returns once its kernel id is known. */
void runner_start(struct runner *r, struct unic_napi_ctx *ctx);
/* Stop it (wakes the context) and join; asserts unic_napi_run returned 0. */
void runner_stop(struct runner *r);
/* The context's statistics; asserts. */
struct unic_napi_ctx_stats ctx_stats(struct unic_napi_ctx *ctx);

#endif /* TEST_NAPI_COMMON_H */
