/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The event module is process-wide; Criterion runs each test in its own
 * process, so every test starts with no callbacks, timers or pending events.
 * Ports are fake pointers: the module never dereferences them.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <unic/event.h>
#include <unic/log.h>
#include "unic_event_internal.h"
#include "log_capture.h"

static char port_a_mem, port_b_mem;
#define PORT_A ((struct unic_port *)&port_a_mem)
#define PORT_B ((struct unic_port *)&port_b_mem)

struct seen {
	int calls;
	struct unic_port *port;
	enum unic_event_type ev;
};

static void record(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	struct seen *s = arg;

	s->calls++;
	s->port = port;
	s->ev = ev;
}

/* The library's messages are not this suite's subject: none is kept. */
static void setup(void)
{
	logcap_start(0, 0);
}

TestSuite(event, .init = setup);

static bool fd_readable(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Wait for the fd and dispatch, for @p ms; returns how many ran. */
static int dispatch_for(int ms)
{
	uint64_t end = now_ms() + (uint64_t)ms;
	int fd = unic_event_fd(), n = 0;
	uint64_t t;

	while ((t = now_ms()) < end) {
		int r;

		fd_readable(fd, (int)(end - t));
		r = unic_event_dispatch();
		cr_assert_geq(r, 0);
		n += r;
	}
	return n;
}

#define MS 1000000ull

Test(event, names_are_short_words_and_unknown_is_a_question_mark)
{
	cr_assert_str_eq(unic_event_name(UNIC_EVENT_LINK), "link");
	cr_assert_str_eq(unic_event_name(UNIC_EVENT_DEV_REQUEST), "dev_request");
	cr_assert_str_eq(unic_event_name(UNIC_EVENT_DEV_GONE), "dev_gone");
	cr_assert_str_eq(unic_event_name(UNIC_EVENT_COUNT), "?");
	cr_assert_str_eq(unic_event_name((enum unic_event_type)-1), "?");
}

Test(event, callback_runs_on_dispatch_and_not_on_post)
{
	struct seen s = { 0 };

	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, record, &s), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert_eq(s.calls, 0, "the callback ran at post time");
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(s.calls, 1);
	cr_assert_eq(s.port, PORT_A);
	cr_assert_eq(s.ev, UNIC_EVENT_LINK);
	cr_assert_eq(unic_event_dispatch(), 0, "the event was delivered twice");
	cr_assert_eq(s.calls, 1);
}

Test(event, callback_for_one_port_ignores_other_ports_and_other_types)
{
	struct seen s = { 0 };

	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, record, &s), 0);
	cr_assert_eq(unic_port_event_post(PORT_B, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_DEV_GONE), 0);
	cr_assert_eq(unic_event_dispatch(), 0);
	cr_assert_eq(s.calls, 0);
}

Test(event, callback_for_null_port_sees_every_port)
{
	struct seen s = { 0 }, only_b = { 0 };

	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_DEV_REQUEST, record, &s), 0);
	cr_assert_eq(unic_event_callback_register(PORT_B, UNIC_EVENT_DEV_REQUEST, record, &only_b), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_DEV_REQUEST), 0);
	cr_assert_eq(unic_port_event_post(PORT_B, UNIC_EVENT_DEV_REQUEST), 0);
	cr_assert_eq(unic_event_dispatch(), 3);
	cr_assert_eq(s.calls, 2);
	cr_assert_eq(s.port, PORT_B, "events were delivered out of order");
	cr_assert_eq(only_b.calls, 1);
	cr_assert_eq(only_b.port, PORT_B);
}

Test(event, fd_is_readable_after_post_and_not_after_dispatch)
{
	int fd = unic_event_fd();

	cr_assert_geq(fd, 0);
	cr_assert_not(fd_readable(fd, 0), "readable with nothing pending");
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert(fd_readable(fd, 0), "not readable after a post");
	cr_assert_eq(unic_event_dispatch(), 0);
	cr_assert_not(fd_readable(fd, 0), "still readable after dispatch");
}

Test(event, identical_pending_events_are_coalesced_and_different_ones_are_not)
{
	struct seen s = { 0 };

	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_LINK, record, &s), 0);
	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_DEV_GONE, record, &s), 0);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_port_event_post(PORT_B, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_DEV_GONE), 0);
	cr_assert_eq(unic_event_dispatch(), 3);
	cr_assert_eq(s.calls, 3);
}

Test(event, full_queue_refuses_a_new_event_but_still_coalesces)
{
	static char ports[1025];
	struct seen s = { 0 };

	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_LINK, record, &s), 0);
	for (int i = 0; i < 1024; i++)
		cr_assert_eq(unic_port_event_post((struct unic_port *)&ports[i], UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_port_event_post((struct unic_port *)&ports[1024], UNIC_EVENT_LINK), -ENOSPC);
	cr_assert_eq(unic_port_event_post((struct unic_port *)&ports[7], UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_event_dispatch(), 1024);
	cr_assert_eq(unic_port_event_post((struct unic_port *)&ports[1024], UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_event_dispatch(), 1);
}

static void post_b(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	(void)ev;
	record(port, ev, arg);
	if (port == PORT_A)
		cr_assert_eq(unic_port_event_post(PORT_B, UNIC_EVENT_LINK), 0);
}

Test(event, event_posted_by_a_callback_waits_for_the_next_dispatch)
{
	struct seen s = { 0 };
	int fd = unic_event_fd();

	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_LINK, post_b, &s), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert(fd_readable(fd, 0), "the event posted by the callback left no trace on the fd");
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(s.port, PORT_B);
	cr_assert_not(fd_readable(fd, 0));
}

static void unregister_self(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	record(port, ev, arg);
	cr_assert_eq(unic_event_callback_unregister(PORT_A, ev, unregister_self, arg), 0);
}

Test(event, callback_can_unregister_itself)
{
	struct seen s = { 0 };

	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, unregister_self, &s), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_event_dispatch(), 0);
	cr_assert_eq(s.calls, 1);
	cr_assert_eq(unic_event_callback_unregister(PORT_A, UNIC_EVENT_LINK, unregister_self, &s),
		     -ENOENT);
}

static void try_dispatch(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	(void)port;
	(void)ev;
	*(int *)arg = unic_event_dispatch();
}

Test(event, dispatch_from_inside_a_callback_is_ebusy)
{
	int r = 0;

	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, try_dispatch, &r), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(r, -EBUSY);
}

Test(event, port_forget_drops_pending_events_and_callbacks_of_that_port)
{
	struct seen all = { 0 }, only_a = { 0 };

	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_LINK, record, &all), 0);
	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, record, &only_a), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_port_event_post(PORT_B, UNIC_EVENT_LINK), 0);
	unic_event_port_forget(PORT_A);
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(all.calls, 1);
	cr_assert_eq(all.port, PORT_B);
	cr_assert_eq(only_a.calls, 0);
	cr_assert_eq(unic_event_callback_unregister(PORT_A, UNIC_EVENT_LINK, record, &only_a), -ENOENT);
	cr_assert_eq(unic_event_callback_unregister(NULL, UNIC_EVENT_LINK, record, &all), 0);
}

static void forget_port(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	record(port, ev, arg);
	unic_event_port_forget(port);
}

Test(event, port_forgotten_by_its_callback_gets_no_more_callbacks_for_that_event)
{
	struct seen first = { 0 }, second = { 0 };

	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_DEV_GONE, forget_port, &first), 0);
	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_DEV_GONE, record, &second), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_DEV_GONE), 0);
	cr_assert_eq(unic_port_event_post(PORT_B, UNIC_EVENT_DEV_GONE), 0);
	cr_assert_eq(unic_event_dispatch(), 2);
	cr_assert_eq(first.calls, 2);
	cr_assert_eq(second.calls, 0);
}

Test(event, port_forget_before_any_use_does_nothing)
{
	unic_event_port_forget(PORT_A);
	unic_event_port_forget(NULL);
	cr_assert_eq(unic_event_dispatch(), 0);
}

static void count_timer(void *arg)
{
	atomic_fetch_add((atomic_int *)arg, 1);
}

Test(event, one_shot_timer_runs_once_and_its_id_is_then_unknown)
{
	atomic_int runs = 0;
	int id = unic_timer_add(10 * MS, 0, count_timer, &runs);

	cr_assert_gt(id, 0);
	cr_assert_eq(unic_event_dispatch(), 0, "the timer ran before its delay");
	dispatch_for(100);
	cr_assert_eq(runs, 1);
	cr_assert_eq(unic_timer_cancel(id), -ENOENT);
	cr_assert_not(fd_readable(unic_event_fd(), 0));
}

Test(event, timer_with_zero_delay_runs_on_the_next_dispatch)
{
	atomic_int runs = 0;

	cr_assert_gt(unic_timer_add(0, 0, count_timer, &runs), 0);
	cr_assert(fd_readable(unic_event_fd(), 1000));
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(runs, 1);
}

Test(event, periodic_timer_runs_repeatedly_until_cancelled)
{
	atomic_int runs = 0;
	int id = unic_timer_add(10 * MS, 10 * MS, count_timer, &runs), after;

	cr_assert_gt(id, 0);
	dispatch_for(100);
	/* About 10; generous bounds, timing on a loaded machine is loose. */
	cr_assert_geq(runs, 2, "ran %d times in 100 ms", (int)runs);
	cr_assert_leq(runs, 11, "ran %d times in 100 ms", (int)runs);
	cr_assert_eq(unic_timer_cancel(id), 0);
	after = runs;
	dispatch_for(50);
	cr_assert_eq(runs, after, "ran after it was cancelled");
	cr_assert_eq(unic_timer_cancel(id), -ENOENT);
}

Test(event, periodic_timer_skips_missed_periods_instead_of_bursting)
{
	atomic_int runs = 0;

	cr_assert_gt(unic_timer_add(5 * MS, 5 * MS, count_timer, &runs), 0);
	sleep_ms(60);
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(runs, 1);
	/* The next deadline is in the future, not twelve periods in the past. */
	cr_assert_eq(unic_event_dispatch(), 0);
}

Test(event, cancelled_timer_never_runs)
{
	atomic_int runs = 0;
	int id = unic_timer_add(5 * MS, 0, count_timer, &runs);

	cr_assert_gt(id, 0);
	cr_assert_eq(unic_timer_cancel(id), 0);
	dispatch_for(40);
	cr_assert_eq(runs, 0);
}

struct self_cancel {
	int id;
	int runs;
};

static void cancel_self(void *arg)
{
	struct self_cancel *sc = arg;

	sc->runs++;
	cr_assert_eq(unic_timer_cancel(sc->id), 0);
}

Test(event, periodic_timer_can_cancel_itself_from_its_function)
{
	struct self_cancel sc = { 0 };

	sc.id = unic_timer_add(1 * MS, 1 * MS, cancel_self, &sc);
	cr_assert_gt(sc.id, 0);
	dispatch_for(50);
	cr_assert_eq(sc.runs, 1);
}

Test(event, timer_ids_are_distinct)
{
	atomic_int runs = 0;
	int a = unic_timer_add(1000 * MS, 0, count_timer, &runs);
	int b = unic_timer_add(1000 * MS, 0, count_timer, &runs);

	cr_assert_gt(a, 0);
	cr_assert_gt(b, 0);
	cr_assert_neq(a, b);
	cr_assert_eq(unic_timer_cancel(a), 0);
	cr_assert_eq(unic_timer_cancel(b), 0);
}

static void read_efd(int fd, void *arg)
{
	uint64_t v;

	cr_assert_eq(read(fd, &v, sizeof(v)), (ssize_t)sizeof(v));
	(*(int *)arg)++;
}

Test(event, fd_handler_runs_when_its_fd_is_readable_and_not_after_remove)
{
	int efd = eventfd(0, EFD_NONBLOCK), runs = 0;
	uint64_t one = 1;

	cr_assert_geq(efd, 0);
	cr_assert_eq(unic_event_fd_add(efd, read_efd, &runs), 0);
	cr_assert_eq(unic_event_dispatch(), 0);
	cr_assert_eq(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
	cr_assert(fd_readable(unic_event_fd(), 0), "a readable watched fd left the event fd quiet");
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(runs, 1);
	cr_assert_not(fd_readable(unic_event_fd(), 0));
	cr_assert_eq(unic_event_fd_remove(efd), 0);
	cr_assert_eq(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
	cr_assert_eq(unic_event_dispatch(), 0);
	cr_assert_eq(runs, 1);
	close(efd);
}

static void remove_self(int fd, void *arg)
{
	read_efd(fd, arg);
	cr_assert_eq(unic_event_fd_remove(fd), 0);
}

Test(event, fd_handler_can_remove_its_own_fd)
{
	int efd = eventfd(0, EFD_NONBLOCK), runs = 0;
	uint64_t one = 1;

	cr_assert_eq(unic_event_fd_add(efd, remove_self, &runs), 0);
	cr_assert_eq(write(efd, &one, sizeof(one)), (ssize_t)sizeof(one));
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(unic_event_fd_remove(efd), -ENOENT);
	cr_assert_eq(unic_event_fd_add(efd, remove_self, &runs), 0, "the fd cannot be watched again");
	cr_assert_eq(unic_event_fd_remove(efd), 0);
	close(efd);
}

/* What a callback in the control thread saw, and a condition to wait on. */
struct waiter {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int calls;
	bool in_cb;
	bool done;
	pthread_t thread;
};

#define WAITER_INIT { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false, false, 0 }

static void waiter_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	struct waiter *w = arg;

	(void)port;
	(void)ev;
	pthread_mutex_lock(&w->lock);
	w->calls++;
	w->thread = pthread_self();
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* Wait up to 5 s for *flag (an int or bool read under w->lock) to hold. */
static bool waiter_wait(struct waiter *w, const int *calls, const bool *flag)
{
	struct timespec until;
	bool ok = true;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 5;
	pthread_mutex_lock(&w->lock);
	while ((calls != NULL && *calls == 0) || (flag != NULL && !*flag))
		if (pthread_cond_timedwait(&w->cond, &w->lock, &until) != 0) {
			ok = false;
			break;
		}
	pthread_mutex_unlock(&w->lock);
	return ok;
}

Test(event, control_thread_dispatches_posted_events)
{
	struct waiter w = WAITER_INIT;

	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, waiter_cb, &w), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert(waiter_wait(&w, &w.calls, NULL), "the control thread did not dispatch within 5 s");
	cr_assert_not(pthread_equal(w.thread, pthread_self()), "the callback ran in the test's thread");
	cr_assert_eq(unic_event_thread_stop(), 0);
	cr_assert_eq(w.calls, 1);
}

Test(event, control_thread_runs_timers)
{
	atomic_int runs = 0;

	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_gt(unic_timer_add(5 * MS, 5 * MS, count_timer, &runs), 0);
	for (int i = 0; i < 500 && runs < 3; i++)
		sleep_ms(10);
	cr_assert_geq(runs, 3, "the control thread ran the timer %d times in 5 s", (int)runs);
	cr_assert_eq(unic_event_thread_stop(), 0);
}

Test(event, dispatch_while_the_control_thread_runs_is_ebusy)
{
	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_eq(unic_event_dispatch(), -EBUSY);
	cr_assert_eq(unic_event_thread_stop(), 0);
	cr_assert_eq(unic_event_dispatch(), 0);
}

Test(event, starting_the_thread_twice_is_ealready_and_so_is_stopping_it_twice)
{
	cr_assert_eq(unic_event_thread_stop(), -EALREADY);
	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_eq(unic_event_thread_start(), -EALREADY);
	cr_assert_eq(unic_event_thread_stop(), 0);
	cr_assert_eq(unic_event_thread_stop(), -EALREADY);
	cr_assert_eq(unic_event_thread_start(), 0, "the thread cannot be started again");
	cr_assert_eq(unic_event_thread_stop(), 0);
}

Test(event, stopped_thread_leaves_the_fd_quiet_and_later_posts_for_dispatch)
{
	struct seen s = { 0 };

	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_eq(unic_event_thread_stop(), 0);
	cr_assert_not(fd_readable(unic_event_fd(), 0));
	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, record, &s), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert_eq(unic_event_dispatch(), 1);
	cr_assert_eq(s.calls, 1);
}

static void slow_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	struct waiter *w = arg;

	(void)port;
	(void)ev;
	pthread_mutex_lock(&w->lock);
	w->in_cb = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
	sleep_ms(50);
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_mutex_unlock(&w->lock);
}

Test(event, unregister_waits_for_the_callback_running_in_another_thread)
{
	struct waiter w = WAITER_INIT;
	bool done;

	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, slow_cb, &w), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert(waiter_wait(&w, NULL, &w.in_cb), "the callback did not start within 5 s");
	cr_assert_eq(unic_event_callback_unregister(PORT_A, UNIC_EVENT_LINK, slow_cb, &w), 0);
	pthread_mutex_lock(&w.lock);
	done = w.done;
	pthread_mutex_unlock(&w.lock);
	cr_assert(done, "unregister returned while the callback was still running");
	cr_assert_eq(unic_event_thread_stop(), 0);
}

Test(event, port_forget_waits_for_callbacks_running_with_that_port)
{
	struct waiter w = WAITER_INIT;
	bool done;

	cr_assert_eq(unic_event_callback_register(NULL, UNIC_EVENT_DEV_GONE, slow_cb, &w), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_DEV_GONE), 0);
	cr_assert(waiter_wait(&w, NULL, &w.in_cb), "the callback did not start within 5 s");
	unic_event_port_forget(PORT_A);
	pthread_mutex_lock(&w.lock);
	done = w.done;
	pthread_mutex_unlock(&w.lock);
	cr_assert(done, "forget returned while a callback still had the port");
	cr_assert_eq(unic_event_thread_stop(), 0);
}

static void stop_from_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	struct waiter *w = arg;

	(void)port;
	(void)ev;
	pthread_mutex_lock(&w->lock);
	w->calls = unic_event_thread_stop();
	w->done = true;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

Test(event, stopping_the_thread_from_its_own_callback_is_edeadlk)
{
	struct waiter w = WAITER_INIT;

	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, stop_from_cb, &w), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_LINK), 0);
	cr_assert(waiter_wait(&w, NULL, &w.done));
	cr_assert_eq(w.calls, -EDEADLK);
	cr_assert_eq(unic_event_thread_stop(), 0);
}

static void *poster(void *arg)
{
	struct unic_port *port = arg;

	for (int i = 0; i < 2000; i++)
		if (unic_port_event_post(port, (enum unic_event_type)(i % UNIC_EVENT_COUNT)) != 0)
			return (void *)1;
	return NULL;
}

Test(event, posting_from_many_threads_while_the_control_thread_runs_loses_no_meaning)
{
	static char ports[4];
	struct seen s[UNIC_EVENT_COUNT] = { { 0 } };
	pthread_t th[4];
	void *ret;

	for (int e = 0; e < UNIC_EVENT_COUNT; e++)
		cr_assert_eq(unic_event_callback_register(NULL, (enum unic_event_type)e, record, &s[e]), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, poster, &ports[i]), 0);
	for (int i = 0; i < 4; i++) {
		cr_assert_eq(pthread_join(th[i], &ret), 0);
		cr_assert_null(ret, "a post failed");
	}
	cr_assert_eq(unic_event_thread_stop(), 0);
	/* Whatever the control thread left pending is still there. */
	cr_assert_geq(unic_event_dispatch(), 0);
	cr_assert_eq(unic_event_dispatch(), 0);
	for (int e = 0; e < UNIC_EVENT_COUNT; e++)
		cr_assert_geq(s[e].calls, 1, "no %s event was delivered", unic_event_name((enum unic_event_type)e));
}

static void noop_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	(void)port;
	(void)ev;
	(void)arg;
}

static void noop_fd(int fd, void *arg)
{
	(void)fd;
	(void)arg;
}

Test(event, bad_arguments_are_einval)
{
	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_COUNT, noop_cb, NULL), -EINVAL);
	cr_assert_eq(unic_event_callback_register(PORT_A, (enum unic_event_type)-1, noop_cb, NULL), -EINVAL);
	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, NULL, NULL), -EINVAL);
	cr_assert_eq(unic_port_event_post(PORT_A, UNIC_EVENT_COUNT), -EINVAL);
	cr_assert_eq(unic_port_event_post(NULL, UNIC_EVENT_LINK), -EINVAL);
	cr_assert_eq(unic_timer_add(0, 0, NULL, NULL), -EINVAL);
	cr_assert_eq(unic_event_fd_add(-1, noop_fd, NULL), -EINVAL);
	cr_assert_eq(unic_event_fd_add(0, NULL, NULL), -EINVAL);
	cr_assert_eq(unic_event_fd_add(unic_event_fd(), noop_fd, NULL), -EINVAL);
}

Test(event, duplicates_are_eexist)
{
	int efd = eventfd(0, EFD_NONBLOCK);
	int other;

	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, noop_cb, &other), 0);
	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, noop_cb, &other), -EEXIST);
	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, noop_cb, NULL), 0,
		     "another arg is another registration");
	cr_assert_eq(unic_event_callback_register(PORT_B, UNIC_EVENT_LINK, noop_cb, &other), 0);
	cr_assert_eq(unic_event_fd_add(efd, noop_fd, NULL), 0);
	cr_assert_eq(unic_event_fd_add(efd, noop_fd, &other), -EEXIST);
	cr_assert_eq(unic_event_fd_remove(efd), 0);
	close(efd);
}

Test(event, unknown_things_are_enoent)
{
	cr_assert_eq(unic_event_callback_unregister(PORT_A, UNIC_EVENT_LINK, noop_cb, NULL), -ENOENT);
	cr_assert_eq(unic_event_callback_register(PORT_A, UNIC_EVENT_LINK, noop_cb, NULL), 0);
	cr_assert_eq(unic_event_callback_unregister(PORT_B, UNIC_EVENT_LINK, noop_cb, NULL), -ENOENT);
	cr_assert_eq(unic_event_callback_unregister(PORT_A, UNIC_EVENT_DEV_GONE, noop_cb, NULL), -ENOENT);
	cr_assert_eq(unic_event_callback_unregister(PORT_A, UNIC_EVENT_LINK, noop_cb, NULL), 0);
	cr_assert_eq(unic_event_callback_unregister(PORT_A, UNIC_EVENT_LINK, noop_cb, NULL), -ENOENT);
	cr_assert_eq(unic_timer_cancel(12345), -ENOENT);
	cr_assert_eq(unic_timer_cancel(0), -ENOENT);
	cr_assert_eq(unic_event_fd_remove(0), -ENOENT);
}

Test(event, regular_file_cannot_be_watched)
{
	FILE *f = tmpfile();

	cr_assert_not_null(f);
	cr_assert_eq(unic_event_fd_add(fileno(f), noop_fd, NULL), -EPERM);
	fclose(f);
}
