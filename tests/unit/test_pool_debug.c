/* SPDX-License-Identifier: BSD-3-Clause */
/* Built with the library compiled as by -Dpool_debug=true (see meson.build). */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>

#include "log_capture.h"

static struct unic_mem *mem;
static struct unic_pool *pool;

static void setup(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pool_conf pc = {
		.sz = sizeof(pc), .name = "dbg", .count = 64, .obj_size = 200, .cache_size = 8,
	};

	logcap_start(UNIC_LOG_ERR, 0);
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem);
	pc.mem = mem;
	pool = unic_pool_create(&pc);
	cr_assert_not_null(pool);
}

static void teardown(void)
{
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
	logcap_stop();
}

TestSuite(pool_debug, .init = setup, .fini = teardown);

Test(pool_debug, this_binary_has_pool_debug_on)
{
	cr_assert(unic_pool_debug_enabled());
}

Test(pool_debug, double_free_is_refused_and_counted)
{
	void *o;
	struct unic_pool_stats st;

	cr_assert_eq(unic_pool_get(pool, &o), 0);
	unic_pool_put(pool, o);
	cr_assert_eq(logcap_nb[UNIC_LOG_ERR], 0);
	unic_pool_put(pool, o);
	unic_pool_stats_get(pool, &st);
	cr_assert_eq(st.debug_double_free, 1);
	cr_assert(strstr(logcap_last, "double free"), "message: %s", logcap_last);
	/* The refused put did not add a second copy: the pool still holds 64. */
	cr_assert_eq(unic_pool_avail_count(pool), 64);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(pool_debug, write_after_free_is_caught_on_next_get)
{
	void *objs[64];
	struct unic_pool_stats st;

	cr_assert_eq(unic_pool_get(pool, &objs[0]), 0);
	memset(objs[0], 0x11, 200);
	unic_pool_put(pool, objs[0]);
	((uint8_t *)objs[0])[17] = 0x99; /* use after free */
	/* Take every object: the damaged one is among them. */
	cr_assert_eq(unic_pool_get_bulk(pool, objs, 64), 0);
	unic_pool_stats_get(pool, &st);
	cr_assert_eq(st.debug_corrupt, 1);
	cr_assert(strstr(logcap_last, "use after free"), "message: %s", logcap_last);
	unic_pool_put_bulk(pool, objs, 64);
}

Test(pool_debug, write_past_the_end_is_caught_on_put)
{
	void *o;
	struct unic_pool_stats st;

	cr_assert_eq(unic_pool_get(pool, &o), 0);
	memset(o, 0, 200 + 8); /* 8 bytes too many: over the trailer cookie */
	unic_pool_put(pool, o);
	unic_pool_stats_get(pool, &st);
	cr_assert_eq(st.debug_corrupt, 1);
	cr_assert(strstr(logcap_last, "past its end"), "message: %s", logcap_last);
}

Test(pool_debug, put_to_the_wrong_pool_is_refused)
{
	struct unic_pool_conf pc = {
		.sz = sizeof(pc), .name = "other", .mem = mem, .count = 8, .obj_size = 200,
	};
	struct unic_pool *other = unic_pool_create(&pc);
	struct unic_pool_stats st;
	void *o;

	cr_assert_eq(unic_pool_get(other, &o), 0);
	unic_pool_put(pool, o);
	unic_pool_stats_get(pool, &st);
	cr_assert_eq(st.debug_foreign, 1);
	cr_assert_eq(unic_pool_avail_count(pool), 64);
	unic_pool_put(other, o);
	cr_assert_eq(unic_pool_in_use_count(other), 0);
	unic_pool_destroy(other);
}
