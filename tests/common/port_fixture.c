/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "log_capture.h"
#include "port_fixture.h"

struct unic_mem *fixture_mem(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_mem *mem = unic_mem_create(&mc);

	cr_assert_not_null(mem, "no-huge memory context: %s", strerror(errno));
	return mem;
}

void fixture_mem_pool(struct unic_mem **mem, struct unic_pool **pool, const char *name, uint32_t count,
		      uint32_t cache_size)
{
	struct unic_pktpool_conf pc = {
		.sz = sizeof(pc), .name = name, .count = count, .cache_size = cache_size,
		.numa_node = -1,
	};

	*mem = fixture_mem();
	pc.mem = *mem;
	*pool = unic_pktpool_create(&pc);
	cr_assert_not_null(*pool, "packet pool: %s (%s)", strerror(errno), logcap_buf);
}

void fixture_mem_pool_free(struct unic_mem *mem, struct unic_pool *pool)
{
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
}

struct unic_port *fixture_port_create(const char *spec)
{
	struct unic_port *p = NULL;
	int rc = unic_vdev_create(spec, &p);

	cr_assert_eq(rc, 0, "unic_vdev_create(\"%s\"): %s (%s)", spec, strerror(-rc), logcap_buf);
	cr_assert_not_null(p);
	return p;
}

void fixture_port_configure(struct unic_port *p, struct unic_pool *pool, uint16_t nq, uint16_t nb_desc,
			    enum unic_rx_mode mode)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = nq, .nb_txq = nq,
				       .rx_mode = mode };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = nb_desc, .numa_node = -1,
				    .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .numa_node = -1 };
	int err;

	err = unic_port_configure(p, &conf);
	cr_assert_eq(err, 0, "configure %s: %s (%s)", unic_port_name(p), strerror(-err), logcap_buf);
	for (uint16_t q = 0; q < nq; q++) {
		err = unic_port_rx_queue_setup(p, q, &rc);
		cr_assert_eq(err, 0, "rx queue %u: %s (%s)", q, strerror(-err), logcap_buf);
		err = unic_port_tx_queue_setup(p, q, &tc);
		cr_assert_eq(err, 0, "tx queue %u: %s (%s)", q, strerror(-err), logcap_buf);
	}
}

void fixture_port_up(struct unic_port *p, struct unic_pool *pool, uint16_t nq, uint16_t nb_desc,
		     enum unic_rx_mode mode)
{
	int err;

	fixture_port_configure(p, pool, nq, nb_desc, mode);
	err = unic_port_start(p);
	cr_assert_eq(err, 0, "start %s: %s (%s)", unic_port_name(p), strerror(-err), logcap_buf);
}

void fixture_port_down(struct unic_port *p)
{
	if (unic_port_state(p) == UNIC_PORT_STARTED)
		cr_assert_eq(unic_port_stop(p), 0);
	if (unic_port_state(p) != UNIC_PORT_DETACHED) {
		cr_assert_eq(unic_port_close(p), 0);
		cr_assert_eq(unic_port_detach(p), 0);
	}
	unic_port_put(p);
}
