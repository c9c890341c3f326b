/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ops a test's fake driver has nothing to do in, once for every fake
 * (the unit tests' fake ports, the stress programs'): a configure and a
 * start that accept, a stop, a close and a queue release that do nothing.
 * Header-only and without Criterion, so the stress programs can use it.
 */
#ifndef TESTS_COMMON_FAKE_OPS_H
#define TESTS_COMMON_FAKE_OPS_H

#include <stdint.h>

#include "unic_port_driver.h"

/** configure: any configuration is fine. */
static inline int fake_op_configure(struct unic_port *port, const struct unic_port_conf *conf)
{
	(void)port;
	(void)conf;
	return 0;
}

/** start: nothing to start. */
static inline int fake_op_start(struct unic_port *port)
{
	(void)port;
	return 0;
}

/** stop and close: nothing to undo. */
static inline void fake_op_nop(struct unic_port *port)
{
	(void)port;
}

/** rx_queue_release and tx_queue_release: the queue object is not the fake's to free. */
static inline void fake_op_queue_release(struct unic_port *port, uint16_t q, void *queue)
{
	(void)port;
	(void)q;
	(void)queue;
}

#endif /* TESTS_COMMON_FAKE_OPS_H */
