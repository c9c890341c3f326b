/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fake driver and the fixtures the port core's tests share
 * (test_port_*.c, one binary test_port): the suite `port` with a memory and
 * a packet pool per test, a registered fake port, its queues set up.
 */
#ifndef TEST_PORT_FAKE_H
#define TEST_PORT_FAKE_H

#include <stdbool.h>
#include <stdint.h>

#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include "unic_port_driver.h"
#include "log_capture.h"

struct fake_q {
	struct unic_pool *pool;
	struct unic_pkt *held[4096]; /* rx: buffers "posted" to the NIC */
	uint16_t nb;
};

struct fake_priv {
	int configured, started, stopped, closed;
	uint64_t raw_ipackets;       /* grows on every stats read */
	uint64_t raw_x[2];
	struct fake_q rxq[UNIC_PORT_MAX_QUEUES], txq[UNIC_PORT_MAX_QUEUES];
	int filter_rc;               /* what promisc_set/allmulti_set return */
	int promisc_calls, allmulti_calls;
};

/* A port's setup for unic_port_alloc: the fake driver (mac 02:..:42). */
void fake_setup(struct unic_port *port);
/* The same with the receive filter ops (promisc_set, allmulti_set). */
void filter_setup(struct unic_port *port);
/* The same with rx interrupts whose kernel IRQ is 100 + queue (mac
 * 02:..:43): the op records what it was asked in intr_*. */
void fake_intr_setup(struct unic_port *port);
extern int intr_calls, intr_last_q, intr_last_cpu;

/* The suite's memory and pool (4096 packets), made per test. */
extern struct unic_mem *mem;
extern struct unic_pool *pool;
/* The shared capture under the tests' old name. */
#define last_err logcap_last

/* A registered fake port named by fmt. */
struct unic_port *new_port(const char *fmt);
/* Detach and drop the reference. */
void finish(struct unic_port *p);
/* Configure nq queue pairs of nb_desc descriptors each. */
void conf_port(struct unic_port *p, uint16_t nq, uint16_t nb_desc);

#endif
