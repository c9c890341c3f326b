/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A virtual port (ring, null) created and started in one call, for the
 * programs without Criterion (stress, bench): errors come back as NULL and
 * a sentence, for the caller to report its own way. Unit tests use
 * port_fixture.h, which asserts.
 */
#ifndef TESTS_COMMON_VDEV_PORT_H
#define TESTS_COMMON_VDEV_PORT_H

#include <stddef.h>
#include <stdint.h>

#include <unic/pool.h>
#include <unic/port.h>

struct vdev_port_conf {
	const char *spec;          /* unic_vdev_create()'s, e.g. "ring1,peer=ring0" */
	struct unic_pool *pool;    /* the rx queues' */
	uint16_t nb_queues;        /* rx and tx queues each */
	uint16_t nb_rxd;           /* rx descriptors a queue */
	uint16_t nb_txd;           /* tx descriptors a queue, 0: the driver's default */
	int numa_node;
	enum unic_rx_mode rx_mode;
};

/**
 * Create @p c->spec, configure it, set up every queue (rx, then tx, queue by
 * queue) and start it. @return the port, or NULL with what failed and why
 * in @p why (@p len bytes); a port that was created is detached and put.
 */
struct unic_port *vdev_port_open(const struct vdev_port_conf *c, char *why, size_t len);

/** Stop, close, detach and put @p p. @return 0 or the first error (-errno). */
int vdev_port_close(struct unic_port *p);

#endif /* TESTS_COMMON_VDEV_PORT_H */
