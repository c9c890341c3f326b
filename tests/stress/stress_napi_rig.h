/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The set-up shared by the napi stress programs (stress_napi.c,
 * stress_napi_moder.c): a packet pool in ordinary pages, a ring port pair
 * (ring0 sends, ring1 its peer receives, hybrid), and a thread that runs
 * a context until told to stop. Static functions in a header, as stress.h's
 * own: each program's failures then carry its own stress_name.
 */
#ifndef TESTS_STRESS_NAPI_RIG_H
#define TESTS_STRESS_NAPI_RIG_H

#include <unic/mem.h>
#include <unic/napi.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "stress.h"
#include "vdev_port.h"

struct stress_napi_rig {
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *tx, *rx;   /* ring0, and ring1 (its peer) */
};

UNIC_UNUSED static struct unic_port *stress_napi_port_up(struct stress_napi_rig *r, const char *spec,
							 uint16_t nb_queues)
{
	const struct vdev_port_conf c = { .spec = spec, .pool = r->pool, .nb_queues = nb_queues, .nb_rxd = 512,
					  .numa_node = -1, .rx_mode = UNIC_RX_MODE_HYBRID };
	char why[256];
	struct unic_port *p = vdev_port_open(&c, why, sizeof(why));

	STRESS_CHECK(p != NULL, "%s", why);
	return p;
}

/* The memory (no hugepages), a pool of @p count packets (cache 128), and
 * ring0 -> ring1 with @p nb_queues queues each. */
UNIC_UNUSED static void stress_napi_rig_up(struct stress_napi_rig *r, uint32_t count, uint16_t nb_queues)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = {
		.sz = sizeof(pc), .name = "stress", .count = count, .cache_size = 128, .numa_node = -1,
	};

	r->mem = unic_mem_create(&mc);
	STRESS_CHECK(r->mem != NULL, "unic_mem_create (no hugepages): %s", strerror(errno));
	pc.mem = r->mem;
	r->pool = unic_pktpool_create(&pc);
	STRESS_CHECK(r->pool != NULL, "unic_pktpool_create: %s", strerror(errno));
	r->tx = stress_napi_port_up(r, "ring0", nb_queues);
	r->rx = stress_napi_port_up(r, "ring1,peer=ring0", nb_queues);
}

UNIC_UNUSED static void stress_napi_port_down(struct unic_port *p)
{
	char name[64];
	int err;

	snprintf(name, sizeof(name), "%s", unic_port_name(p));
	err = vdev_port_close(p);
	STRESS_CHECK(err == 0, "stopping %s failed: %s", name, strerror(-err));
}

/* Close both ports (the contexts destroyed first) and check that every
 * packet is back in the pool. */
UNIC_UNUSED static void stress_napi_rig_down(struct stress_napi_rig *r)
{
	stress_napi_port_down(r->rx);
	stress_napi_port_down(r->tx);
	STRESS_CHECK(unic_pool_in_use_count(r->pool) == 0, "%u packets still in use at the end",
		     unic_pool_in_use_count(r->pool));
}

/* Then free the pool and the memory. */
UNIC_UNUSED static void stress_napi_rig_free(struct stress_napi_rig *r)
{
	unic_pool_destroy(r->pool);
	unic_mem_destroy(r->mem);
}

/* A thread that runs a context (unic_napi_run) until stop. */
struct stress_napi_runner {
	struct unic_napi_ctx *ctx;
	bool stop;                   /* atomic */
	int rc;                      /* unic_napi_run()'s */
	pthread_t tid;
};

UNIC_UNUSED static void *stress_napi_runner_main(void *arg)
{
	struct stress_napi_runner *r = arg;

	r->rc = unic_napi_run(r->ctx, &r->stop);
	return NULL;
}

UNIC_UNUSED static void stress_napi_runner_start(struct stress_napi_runner *r, struct unic_napi_ctx *ctx)
{
	*r = (struct stress_napi_runner){ .ctx = ctx };
	STRESS_CHECK(pthread_create(&r->tid, NULL, stress_napi_runner_main, r) == 0, "pthread_create");
}

/* Stop the thread at its next round (woken if asleep), join it, check
 * that unic_napi_run() returned 0. */
UNIC_UNUSED static void stress_napi_runner_stop(struct stress_napi_runner *r)
{
	__atomic_store_n(&r->stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(r->ctx);
	pthread_join(r->tid, NULL);
	STRESS_CHECK(r->rc == 0, "unic_napi_run: %s", strerror(-r->rc));
}

#endif /* TESTS_STRESS_NAPI_RIG_H */
