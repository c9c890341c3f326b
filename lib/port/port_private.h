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

/* dma.c: free every DMA zone the driver still holds (close, last put). */
void port_dma_free_all(struct unic_port *port);

#endif /* UNIC_PORT_PRIVATE_H */
