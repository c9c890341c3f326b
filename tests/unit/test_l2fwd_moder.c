/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What unic-l2fwd's --moderation adaptive|fixed does, at the level where
 * the option lands: the napi configuration l2fwd builds from its options
 * (l2fwd_napi_conf()) and a forwarding thread's context made from it
 * (l2fwd_worker_setup()), driven from the test's thread. The binary's
 * ports in the other l2fwd tests (null, ring) have no coalesce op, so the
 * port here is a ring port with the recording op of moder_rec.h: the
 * adaptive policy's writes of its moderation are what the test sees.
 *  - fixed: the policy never writes the device's moderation (napi counter
 *    moderation_set 0) and a value set by hand stays;
 *  - adaptive: it writes, for the same dense traffic.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/cycles.h>
#include <unic/log.h>
#include <unic/mem.h>
#include <unic/pool.h>

#include "l2fwd.h"
#include "moder_rec.h"
#include "port_fixture.h"

static struct unic_mem *mem;
static struct unic_pool *pool;

static void msetup(void)
{
	unic_log_set_level(-1, UNIC_LOG_ERR);
	fixture_mem_pool(&mem, &pool, "l2fwdmod", 4096, 0);
}

static void mteardown(void)
{
	fixture_mem_pool_free(mem, pool);
}

static void ring_down(struct unic_port *p)
{
	unic_port_stop(p);
	unic_port_close(p);
	unic_port_detach(p);
	unic_port_put(p);
}

struct mrun {
	struct unic_port *far, *near;      /* the test sends on far; l2fwd polls near */
	struct l2fwd_port_counters *cnt;
	struct l2fwd_route r;
	struct l2fwd_worker w;
	uint64_t moderation_set;
};

/*
 * unic-l2fwd's options @p args -> its napi conf -> a thread's context
 * polling near (which has the recording op; rx-usecs @p hand set by hand
 * first), forwarding back out of near to far. Then @p ms of dense traffic:
 * a frame, then six rounds (a few us: denser than a wake-up).
 */
static void mrun(struct mrun *m, const char *args, uint32_t hand, unsigned ms)
{
	static char buf[256];
	char *argv[32] = { "unic-l2fwd" };
	char err[512];
	int argc = 1;
	struct l2fwd_opts o;
	struct unic_napi_conf nc;
	struct unic_coalesce c = { .rx_usecs = hand, .tx_usecs = 7 };

	memset(m, 0, sizeof(*m));
	snprintf(buf, sizeof(buf), "%s", args);
	for (char *t = strtok(buf, " "); t && argc < 31; t = strtok(NULL, " "))
		argv[argc++] = t;
	l2fwd_opts_init(&o);
	cr_assert_eq(l2fwd_opts_parse(&o, argc, argv, err, sizeof(err)), 0, "%s", err);
	l2fwd_napi_conf(&o, &nc);

	m->far = fixture_port_create("ring60");
	m->near = fixture_port_create("ring61,peer=ring60");
	rec_attach(m->near);
	fixture_port_up(m->far, pool, 1, 1024, UNIC_RX_MODE_HYBRID);
	fixture_port_up(m->near, pool, 1, 1024, UNIC_RX_MODE_HYBRID);
	cr_assert_eq(unic_port_coalesce_set(m->near, &c), 0);
	cr_assert_eq(rec.sets, 1);

	m->cnt = aligned_alloc(64, sizeof(*m->cnt));
	cr_assert_not_null(m->cnt);
	memset(m->cnt, 0, sizeof(*m->cnt));
	m->r = (struct l2fwd_route){ .in = m->near, .out = m->near, .in_cnt = m->cnt, .out_cnt = m->cnt };
	m->w = (struct l2fwd_worker){ .routes = { &m->r }, .nb_routes = 1, .nb_queues = 1, .weight = o.weight };
	cr_assert_eq(l2fwd_worker_setup(&m->w, &nc), 0);

	uint64_t end = unic_time_ns() + (uint64_t)ms * 1000000;
	struct unic_pkt *p[32];
	uint16_t n;

	while (unic_time_ns() < end) {
		struct unic_pkt *f = unic_pkt_alloc(pool);

		cr_assert_not_null(f);
		cr_assert_not_null(unic_pkt_append(f, 64));
		memset(unic_pkt_data(f), 0, 64);
		while (unic_tx_burst(m->far, 0, &f, 1) != 1)
			;
		for (unsigned r = 0; r < 6; r++)
			cr_assert_geq(unic_napi_run_once(m->w.ctx, 0), 0);
		while ((n = unic_rx_burst(m->far, 0, p, 32)) > 0)
			unic_pkt_free_bulk(p, n);
	}
	struct unic_napi_ctx_stats st;

	cr_assert_eq(unic_napi_ctx_stats_get(m->w.ctx, &st), 0);
	m->moderation_set = st.moderation_set;
	fprintf(stderr, "# l2fwd %s: %" PRIu64 " forwarded, moderation_set %" PRIu64 ", %u sets (%s), rx_usecs %u\n",
		args, unic_counter_read(&m->cnt->tx), m->moderation_set, rec.sets, rec_list(), rec.rx_usecs);
	cr_assert_gt(unic_counter_read(&m->cnt->tx), 0, "nothing forwarded");
}

static void mrun_down(struct mrun *m)
{
	unic_napi_ctx_destroy(m->w.ctx);
	ring_down(m->near);
	ring_down(m->far);
	free(m->cnt);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/*
 * The same dense traffic for 150 ms (fifteen of the policy's 10 ms
 * decision intervals) under both switches: adaptive writes the moderation
 * (its first decision writes at once, whatever the traffic), fixed never,
 * and the hand value 77 stays. A --moderation that did not reach the
 * context would let the fixed run write too.
 */
Test(l2fwd_moder, fixed_leaves_the_hand_moderation_alone_and_adaptive_writes_it, .init = msetup,
     .fini = mteardown, .timeout = 60)
{
	struct mrun m;

	mrun(&m, "--rx-mode hybrid --cpu-budget 100 --moderation fixed", 77, 150);
	cr_expect_eq(m.moderation_set, 0, "fixed: the policy wrote %" PRIu64 " times (%s)", m.moderation_set,
		     rec_list());
	cr_expect_eq(rec.sets, 1, "fixed: %u writes (%s)", rec.sets, rec_list());
	cr_expect_eq(rec.rx_usecs, 77, "fixed: the hand value 77 became %u", rec.rx_usecs);
	cr_expect_eq(rec.tx_usecs, 7);
	mrun_down(&m);

	mrun(&m, "--rx-mode hybrid --cpu-budget 100 --moderation adaptive", 77, 150);
	cr_expect_gt(m.moderation_set, 0, "adaptive: the policy never wrote (%s)", rec_list());
	cr_expect_eq(rec.sets, 1 + m.moderation_set, "every write of the policy counted (%s)", rec_list());
	cr_expect_neq(rec.rx_usecs, 77, "adaptive: the hand value stayed (%s)", rec_list());
	mrun_down(&m);
}
