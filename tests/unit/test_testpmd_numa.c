/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where unic-testpmd puts its pools and rings (apps/testpmd/ports.c,
 * tp_port_node()): each port's pool on the node the port reports (ring
 * ports report -1: none), on none with --no-numa, on N with --socket-num N;
 * 'dump_mempool' says which node a pool lies on; 'show port info' and 'show
 * config fwd' say the port's socket (tp_port_socket()), 'show device info'
 * the device's own node. This machine may have one node: a node that does
 * not exist is how a test sees the asked node reach the pool.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "testpmd.h"
#include "testpmd_fixture.h"

Test(testpmd_numa, a_pool_goes_on_the_ports_node_unless_no_numa_or_socket_num_says_otherwise)
{
	struct tp_app a = { .pool_node = TP_NODE_PORT };

	cr_assert_eq(tp_port_node(&a, -1), -1);
	cr_assert_eq(tp_port_node(&a, 0), 0);
	cr_assert_eq(tp_port_node(&a, 1), 1);
	a.pool_node = -1; /* --no-numa */
	cr_assert_eq(tp_port_node(&a, 1), -1);
	a.pool_node = 3; /* --socket-num 3 */
	cr_assert_eq(tp_port_node(&a, -1), 3);
	cr_assert_eq(tp_port_node(&a, 1), 3);
}

Test(testpmd_numa, the_socket_shown_for_a_port_is_its_pools_node_and_0_for_none)
{
	struct tp_app a = { .pool_node = TP_NODE_PORT };

	cr_assert_eq(tp_port_socket(&a, -1), 0, "a ring port: no node, its pool on node 0");
	cr_assert_eq(tp_port_socket(&a, 1), 1);
	a.pool_node = -1; /* --no-numa */
	cr_assert_eq(tp_port_socket(&a, 1), 0);
	a.pool_node = 3; /* --socket-num 3 */
	cr_assert_eq(tp_port_socket(&a, -1), 3);
}

Test(testpmd_numa, the_ring_port_reports_no_node_and_its_pool_lands_on_node_0, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct unic_port_info info;
	const char *o;
	char want[64];

	cr_assert_eq(unic_port_info_get(app->ports[near_id].port, &info), 0);
	cr_assert_eq(info.numa_node, -1, "the ring driver reports no node");
	cr_assert_not_null(app->ports[near_id].pool);
	cr_assert_eq(unic_pool_numa_node(app->ports[near_id].pool), 0, "-1 is taken as node 0");
	printed();
	cr_assert_eq(exec("dump_mempool"), 0);
	o = printed();
	snprintf(want, sizeof(want), "mempool <%s>@", app->ports[near_id].pool->name);
	HAS(o, want);
	HAS(o, "\n  socket_id=0\n");
}

Test(testpmd_numa, show_port_info_says_the_ports_socket_and_show_device_info_the_devices_node,
     .init = eng_setup, .fini = eng_teardown, .timeout = 30)
{
	const char *o;

	/* The port's socket: where its pool lies (node 0 for a ring port), as
	 * the streams of 'show config fwd' say; DPDK testpmd's port->socket_id. */
	printed();
	cr_assert_eq(execf("show port info %u", near_id), 0);
	o = printed();
	HAS(o, "\nConnect to socket: 0\n");
	HASNT(o, "Connect to socket: -1");
	/* The device's own node: none (-1), as DPDK's rte_dev_numa_node() of a vdev. */
	cr_assert_eq(exec("show device info ring40"), 0);
	o = printed();
	HAS(o, "\nConnect to socket: -1\n");
}

Test(testpmd_numa, a_port_start_makes_its_pool_on_the_node_asked, .init = eng_setup, .fini = eng_teardown,
     .timeout = 30)
{
	struct unic_pool *old = app->ports[near_id].pool;

	/* A node this machine cannot have: the pool is asked for it, and refused. */
	app->pool_node = 1000;
	cr_assert_eq(execf("port stop %u", near_id), 0);
	app->pool_count = old->count + 1024; /* a bigger pool (--total-num-mbufs) */
	app->ports[near_id].need_config = true; /* as a "port config" command leaves it */
	printed();
	cr_assert_neq(execf("port start %u", near_id), 0);
	HAS(printed(), "on NUMA node 1000: Invalid argument (does --socket-num name a node of this machine?)");
	cr_assert_eq(app->ports[near_id].pool, old);
	/* Node 0, asked for, is where the new pool lies. */
	app->pool_node = 0;
	cr_assert_eq(execf("port start %u", near_id), 0, "%s", printed());
	cr_assert_neq(app->ports[near_id].pool, old, "a new, bigger pool");
	cr_assert_eq(unic_pool_numa_node(app->ports[near_id].pool), 0);
}

Test(testpmd_numa, no_numa_and_socket_num_place_the_binarys_pools, .timeout = 60)
{
	cr_assert_eq(run(RING_PAIR " -- --no-numa", "dump_mempool\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "mempool <tp0_0>@");
	HAS(out, "socket_id=0\n");
	HASNT(out, "note: --no-numa");
	cr_assert_eq(run(RING_PAIR " -- --socket-num=0", "dump_mempool\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "mempool <tp1_1>@");
	HAS(out, "socket_id=0\n");
	/* Node 1000 cannot exist: the start-up fails, naming it. */
	cr_assert_neq(run(RING_PAIR " -- --socket-num=1000", "dump_mempool\n", out, sizeof(out)), 0, "%s", out);
	HAS(out, "port 0: cannot create a pool of ");
	HAS(out, "on NUMA node 1000: Invalid argument");
}
