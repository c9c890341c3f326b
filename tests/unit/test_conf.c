/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Option structs carry their size (.sz = sizeof): one rule for every
 * create/configure call. A program built against older headers passes a
 * smaller struct, and the fields it does not know take their zero
 * defaults; sz 0 (not set) and a struct larger than the library knows are
 * refused with -EINVAL.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <criterion/criterion.h>

#include <unic/log.h>
#include <unic/mem.h>
#include <unic/napi.h>
#include <unic/pool.h>
#include <unic/port.h>

static struct unic_mem *mem;

static void setup(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };

	unic_log_set_level(-1, UNIC_LOG_ERR);
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem, "no-huge memory context: %s", strerror(errno));
}

static void teardown(void)
{
	unic_mem_destroy(mem);
}

TestSuite(conf, .init = setup, .fini = teardown);

Test(conf, a_pool_takes_an_older_smaller_config_and_refuses_sz_0_or_too_large)
{
	struct unic_pool_conf c = {
		.name = "old", .mem = mem, .count = 64, .obj_size = 64,
	};
	struct unic_pool *p;

	c.sz = offsetof(struct unic_pool_conf, obj_init); /* no init hook yet */
	p = unic_pool_create(&c);
	cr_assert_not_null(p, "older config: %s", strerror(errno));
	unic_pool_destroy(p);
	c.sz = 0;
	cr_assert_null(unic_pool_create(&c));
	cr_assert_eq(errno, EINVAL);
	c.sz = sizeof(c) + 8;
	cr_assert_null(unic_pool_create(&c));
	cr_assert_eq(errno, EINVAL);
}

Test(conf, a_packet_pool_takes_an_older_config_and_gives_the_rest_defaults)
{
	struct unic_pktpool_conf c = {
		.name = "old", .mem = mem, .count = 64, .numa_node = -1,
		.headroom = 1, .dataroom = 1, /* past sz: must not be read */
	};
	struct unic_pool *p;

	c.sz = offsetof(struct unic_pktpool_conf, headroom);
	p = unic_pktpool_create(&c);
	cr_assert_not_null(p, "older config: %s", strerror(errno));
	cr_assert_eq(p->obj_size,
		     sizeof(struct unic_pkt) + UNIC_PKT_HEADROOM_DEFAULT + UNIC_PKT_DATAROOM_DEFAULT);
	unic_pool_destroy(p);
	c.sz = sizeof(c) + 8;
	cr_assert_null(unic_pktpool_create(&c));
	cr_assert_eq(errno, EINVAL);
}

Test(conf, a_napi_context_takes_an_older_conf_and_its_defaults)
{
	struct unic_napi_conf c = { .name = "old", .max_txqs = 5000 /* past sz */ };
	struct unic_napi_ctx *ctx;

	c.sz = offsetof(struct unic_napi_conf, max_txqs);
	ctx = unic_napi_ctx_create(&c);
	cr_assert_not_null(ctx, "older conf: %s", strerror(errno));
	unic_napi_ctx_destroy(ctx);
	c.sz = sizeof(c) + 8;
	cr_assert_null(unic_napi_ctx_create(&c));
	cr_assert_eq(errno, EINVAL);
}

Test(conf, a_port_takes_older_port_and_queue_confs)
{
	struct unic_port *port = NULL;
	struct unic_pktpool_conf pc = {
		.sz = sizeof(pc), .name = "q", .mem = mem, .count = 256, .numa_node = -1,
	};
	struct unic_pool *pool = unic_pktpool_create(&pc);
	struct unic_port_conf conf = { .nb_rxq = 1, .nb_txq = 1 };
	struct unic_rxq_conf rxc = { .nb_desc = 1, .numa_node = -1, .pool = pool };
	struct unic_txq_conf txc = { .nb_desc = 1, .numa_node = 5 /* past sz */ };

	cr_assert_not_null(pool);
	cr_assert_eq(unic_vdev_create("null0", &port), 0);
	conf.sz = offsetof(struct unic_port_conf, rss_hash_types);
	cr_assert_eq(unic_port_configure(port, &conf), 0);
	rxc.sz = sizeof(rxc);
	cr_assert_eq(unic_port_rx_queue_setup(port, 0, &rxc), 0);
	txc.sz = offsetof(struct unic_txq_conf, numa_node);
	cr_assert_eq(unic_port_tx_queue_setup(port, 0, &txc), 0);
	conf.sz = sizeof(conf) + 8;
	cr_assert_eq(unic_port_configure(port, &conf), -EINVAL);
	conf.sz = 0;
	cr_assert_eq(unic_port_configure(port, &conf), -EINVAL);
	cr_assert_eq(unic_port_close(port), 0);
	unic_pool_destroy(pool);
}
