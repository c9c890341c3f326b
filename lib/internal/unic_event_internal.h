/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the port core needs from the event module and an application does not.
 *
 * The event queue stores port pointers without taking a reference: whoever
 * posts guarantees the port outlives the dispatch of its events. The port
 * core keeps that promise by calling unic_event_port_forget() when it frees a
 * port.
 */
#ifndef UNIC_EVENT_INTERNAL_H
#define UNIC_EVENT_INTERNAL_H

#include <unic/event.h>

/**
 * Forget @p port: drop its pending events and the callbacks registered for it
 * (callbacks registered for every port stay). If a dispatch in another thread
 * is delivering an event for @p port, wait until it has finished with it;
 * from inside a callback, the remaining callbacks for the event being
 * delivered are skipped. Call it without holding a lock a callback may take.
 * Does nothing for NULL or before the module was first used.
 */
void unic_event_port_forget(struct unic_port *port);

#endif /* UNIC_EVENT_INTERNAL_H */
