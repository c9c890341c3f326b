/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The library's control events: link changes, device requests (the bus asks
 * for a device back: hot-unplug), device interrupts the drivers handle off the
 * fast path, and timers.
 *
 * Everything is delivered through one file descriptor, unic_event_fd(): an
 * application adds it to its own epoll/poll loop and calls
 * unic_event_dispatch() when it is readable; callbacks then run in that
 * thread. Or it calls unic_event_thread_start() and callbacks run in the
 * library's control thread. Never both at once.
 *
 * Posting (unic_port_event_post) is safe from any thread, fast-path threads
 * included: it takes a short internal lock and writes an eventfd.
 *
 * One dispatch runs at a time, and callbacks, handlers and timers run one
 * after another with no internal lock held: from inside one, any function of
 * this file may be called except unic_event_dispatch() (-EBUSY) and
 * unic_event_thread_stop() from the control thread (-EDEADLK).
 *
 * The module is process-wide, like the kernel's notifier chains; it is set up
 * on first use, and its fds stay open until the process exits.
 */
#ifndef UNIC_EVENT_H
#define UNIC_EVENT_H

#include <unic/common.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

struct unic_port;

/** Control events of a port, delivered to callbacks by unic_event_dispatch(). */
enum unic_event_type {
	UNIC_EVENT_LINK = 0,     /**< link went up or down: read unic_port_link_get */
	UNIC_EVENT_DEV_REQUEST,  /**< the bus wants the device back: stop and detach it */
	UNIC_EVENT_DEV_GONE,     /**< the device vanished (reads of all-ones) */
	UNIC_EVENT_COUNT         /**< number of event types */
};

/** "link", "dev_request", "dev_gone"; "?" for anything else. */
const char *unic_event_name(enum unic_event_type ev);

/** An event callback: @p ev happened on @p port; @p arg as registered. Runs in the dispatching thread. */
typedef void (*unic_port_event_cb)(struct unic_port *port, enum unic_event_type ev, void *arg);

/**
 * Call @p cb(port, ev, arg) for each event @p ev on @p port (port NULL: every
 * port). @return 0, -EINVAL, -ENOMEM, -EEXIST (same cb and arg twice).
 */
int unic_event_callback_register(struct unic_port *port, enum unic_event_type ev,
				 unic_port_event_cb cb, void *arg);
/** @return 0 or -ENOENT. Waits if the callback is running in another thread. */
int unic_event_callback_unregister(struct unic_port *port, enum unic_event_type ev,
				   unic_port_event_cb cb, void *arg);

/**
 * Queue an event for the callbacks (drivers and the bus). The same event for
 * the same port, already pending, is not queued twice (callbacks read the
 * port's current state). The port is stored, not referenced: the poster
 * guarantees it outlives the dispatch (the port core drops a freed port's
 * events). @return 0, -EINVAL (port NULL, unknown ev), -ENOSPC (1024
 * different events pending: the post is counted and dispatch logs it).
 */
int unic_port_event_post(struct unic_port *port, enum unic_event_type ev);

/** Readable when events or timers are due. @return the fd, or -errno. */
int unic_event_fd(void);

/**
 * Run the callbacks of every pending event and every due timer, in this
 * thread, then the handlers of readable watched fds. Never blocks. Events
 * posted meanwhile (by a callback, say) wait for the next call; the fd stays
 * readable for them. @return how many callbacks, timers and handlers ran, or
 * -EBUSY (the control thread runs, or a dispatch is under way: in another
 * thread, or this is a callback).
 */
int unic_event_dispatch(void);

/**
 * Start/stop the library's control thread that dispatches. Start: 0,
 * -EALREADY (running), -EBUSY (a dispatch is under way), -EAGAIN. Stop wakes
 * it, lets its dispatch finish, and joins it: 0, -EALREADY (not running),
 * -EDEADLK (called from the control thread itself).
 */
int unic_event_thread_start(void);
/** Stop the control thread (see unic_event_thread_start()). */
int unic_event_thread_stop(void);

/* Device interrupts handled in the control context (link change vector, VFIO
 * device request eventfd, UIO INTx demux). */
/** A watched fd's handler: @p fd is readable (or has an error or hang-up). */
typedef void (*unic_fd_handler)(int fd, void *arg);
/**
 * Watch @p fd; @p fn(fd, arg) runs from dispatch when it is readable (or has
 * an error or hang-up). Level-triggered: the handler must consume what made
 * it readable. @return 0, -EINVAL, -EEXIST (already watched), -ENOMEM, or
 * epoll_ctl's -errno (-EPERM for a regular file).
 */
int unic_event_fd_add(int fd, unic_fd_handler fn, void *arg);
/**
 * Stop watching @p fd; waits if its handler is running in another thread.
 * @return 0 or -ENOENT.
 */
int unic_event_fd_remove(int fd);

/* Timers. */
/** A timer's function, called from dispatch with the timer's argument. */
typedef void (*unic_timer_fn)(void *arg);
/**
 * Run @p fn(arg) after @p delay_ns, then every @p period_ns (0: once).
 * Periods missed because dispatch came late are skipped, not run in a burst.
 * A one-shot timer's id is free again once it ran.
 * @return a timer id > 0, or -EINVAL (fn NULL), -ENOMEM.
 */
int unic_timer_add(uint64_t delay_ns, uint64_t period_ns, unic_timer_fn fn, void *arg);
/** Cancel a timer; waits if it is running in another thread. @return 0 or -ENOENT. */
int unic_timer_cancel(int id);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_EVENT_H */
