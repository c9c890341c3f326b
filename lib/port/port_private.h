/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared between the files of lib/port. */
#ifndef UNIC_PORT_PRIVATE_H
#define UNIC_PORT_PRIVATE_H

#include "unic_port_driver.h"

/* Lock the port and check it may still call its driver (not closed, not
 * detached). @return 0 with the lock held, or -ENODEV without it. */
int port_lock_alive(struct unic_port *port, const char *what);
void port_unlock(struct unic_port *port);
/* Lock held: -ENODEV (and the message) once the device was taken back. */
int port_check_removed(struct unic_port *port, const char *what);

/* Packets a port's queues may hold from @p pool, as queue setup counts it. */
uint64_t port_pool_need(const struct unic_port *port, const struct unic_pool *pool,
			uint16_t q, uint16_t nb_desc, char *why, size_t why_len);

/* counters.c, lock held. Release rx (tx: tx) queue @p q if it is set up
 * (the driver's release op) and clear port->rxq[q] (txq[q]), keeping what
 * its counters counted in the sums. */
void port_queue_release(struct unic_port *port, bool tx, unsigned q);
/* The sum of the queues' counters since the port was created, into @p st
 * (every field written). */
void port_stats_sum(struct unic_port *port, struct unic_port_stats *st);

#endif /* UNIC_PORT_PRIVATE_H */
