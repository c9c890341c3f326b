/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/event's control thread against control calls from other threads at
 * the same time: events posted for ports that are being detached and
 * replaced, callbacks registered and unregistered, one-shot and periodic
 * timers added and cancelled, a watched fd added, written and removed, and
 * the control thread itself stopped and started again.
 *
 * Checked:
 *  - callbacks, timers and handlers run one at a time;
 *  - a callback never runs after its unregister returned (nor is running
 *    when it returns), a timer never
 *    after its cancel returned 0, a handler never after its fd's removal;
 *    a cancel that finds the timer gone means it ran, exactly once;
 *  - every post is followed by a delivery for its port (posts for the
 *    same pending event coalesce), and every timer not cancelled runs
 *    exactly once;
 *  - a callback only sees ports that are still allocated (it reads the
 *    port's name: the sanitizers see a freed one).
 */
#include <unistd.h>
#include <sys/eventfd.h>

#include <unic/event.h>
#include <unic/port.h>

#include "stress.h"

/* Each thread's loop turns this often at least, whatever the deadline says:
 * on a loaded machine a thread may first run after it. */
#define MIN_ITERS 16

#define NSLOT     4
#define NEV       UNIC_EVENT_COUNT
#define NTIMER    4096
#define WAIT_S    10            /* a post, timer or write not served in this long is lost */

struct slot {
	struct unic_port *port;     /* reg_lock */
	uint64_t posted[NEV];       /* reg_lock: posts made for this port */
	uint64_t delivered[NEV];    /* reg_lock: posted[] as the last delivery saw it */
};

struct churn_cb {
	uint32_t live;              /* atomic: registered and not yet unregistered */
};

struct tmr {
	int id;
	uint32_t ran;               /* atomic */
	uint32_t cancelled;         /* atomic: cancel returned 0 */
	bool periodic;
};

static struct {
	pthread_mutex_t reg_lock;
	struct slot slots[NSLOT];
	unsigned next_name;
	uint64_t deadline;
	pthread_barrier_t start;
	uint32_t running;           /* atomic: callbacks, timers, handlers in progress */
	uint64_t late;              /* reg_lock: deliveries for ports already replaced */
	uint64_t deliveries, detaches, churns, restarts, fd_cycles, cancels_ok, cancels_gone;
	struct tmr timers[NTIMER];
	uint32_t nb_timers;
	uint32_t stop;              /* atomic */
} t = { .reg_lock = PTHREAD_MUTEX_INITIALIZER };

static void enter(const char *what)
{
	uint32_t r = __atomic_fetch_add(&t.running, 1, __ATOMIC_ACQ_REL);

	STRESS_CHECK(r == 0, "a %s started while %u other callback(s), timer(s) or handler(s) ran", what, r);
}

static void leave(void)
{
	__atomic_fetch_sub(&t.running, 1, __ATOMIC_ACQ_REL);
}

/* Registered for every port and event at start. */
static void global_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	const char *name;

	(void)arg;
	enter("callback");
	name = unic_port_name(port); /* a freed port: the sanitizers report it */
	STRESS_CHECK(name != NULL && strncmp(name, "null", 4) == 0,
		     "a callback got port '%s', expected one of this program's null ports",
		     name ? name : "(null)");
	STRESS_CHECK((unsigned)ev < NEV, "a callback got event %d", (int)ev);
	pthread_mutex_lock(&t.reg_lock);
	t.deliveries++;
	for (unsigned s = 0; s < NSLOT; s++) {
		if (t.slots[s].port == port) {
			t.slots[s].delivered[ev] = t.slots[s].posted[ev];
			port = NULL;
			break;
		}
	}
	if (port != NULL)
		t.late++;
	pthread_mutex_unlock(&t.reg_lock);
	leave();
}

static void churn_cb_fn(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	struct churn_cb *c = arg;

	(void)port;
	(void)ev;
	enter("callback");
	STRESS_CHECK(__atomic_load_n(&c->live, __ATOMIC_ACQUIRE),
		     "a callback ran after its unregister had returned");
	sched_yield(); /* a window for an unregister that would not wait */
	STRESS_CHECK(__atomic_load_n(&c->live, __ATOMIC_ACQUIRE),
		     "unic_event_callback_unregister returned while the callback was still running");
	leave();
}

static void timer_fn(void *arg)
{
	struct tmr *m = arg;

	enter("timer");
	STRESS_CHECK(!__atomic_load_n(&m->cancelled, __ATOMIC_ACQUIRE),
		     "timer %d ran after its cancel had returned 0", m->id);
	__atomic_fetch_add(&m->ran, 1, __ATOMIC_RELEASE);
	leave();
}

struct watched {
	int fd;
	uint64_t handled;           /* atomic */
	uint32_t removed;           /* atomic */
};

static void fd_handler(int fd, void *arg)
{
	struct watched *w = arg;
	uint64_t v;

	enter("fd handler");
	STRESS_CHECK(!__atomic_load_n(&w->removed, __ATOMIC_ACQUIRE),
		     "the handler of fd %d ran after unic_event_fd_remove had returned", fd);
	if (read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		__atomic_fetch_add(&w->handled, v, __ATOMIC_RELEASE);
	leave();
}

static struct unic_port *port_new(void)
{
	struct unic_port *p = NULL;
	char name[32];
	int rc;

	snprintf(name, sizeof(name), "null%u", t.next_name++);
	rc = unic_vdev_create(name, &p);
	STRESS_CHECK(rc == 0, "unic_vdev_create(\"%s\"): %s", name, strerror(-rc));
	return p;
}

/* A port of a random slot, with a reference, and the slot; NULL if empty. */
static struct unic_port *port_pick(uint64_t *rng, unsigned *slot)
{
	struct unic_port *p;

	pthread_mutex_lock(&t.reg_lock);
	*slot = stress_rand(rng) % NSLOT;
	p = t.slots[*slot].port;
	if (p != NULL)
		unic_port_get(p);
	pthread_mutex_unlock(&t.reg_lock);
	return p;
}

static void *poster_main(void *arg)
{
	uint64_t rng = (uintptr_t)arg * 0x9E3779B97F4A7C15ull + 1;

	pthread_barrier_wait(&t.start);
	for (unsigned it = 0; it < MIN_ITERS || !stress_past(t.deadline); it++) {
		enum unic_event_type ev = (enum unic_event_type)(stress_rand(&rng) % NEV);
		unsigned s;
		struct unic_port *p = port_pick(&rng, &s);
		int rc;

		if (p == NULL)
			continue;
		pthread_mutex_lock(&t.reg_lock);
		if (t.slots[s].port == p)
			t.slots[s].posted[ev]++;
		pthread_mutex_unlock(&t.reg_lock);
		rc = unic_port_event_post(p, ev);
		STRESS_CHECK(rc == 0, "unic_port_event_post(%s, %s): %s", unic_port_name(p),
			     unic_event_name(ev), strerror(-rc));
		unic_port_put(p);
		if (stress_rand(&rng) % 4 == 0)
			stress_sleep_us(20);
	}
	return NULL;
}

/* Registers a callback for one port, lets it run a little, unregisters it. */
static void *churn_main(void *arg)
{
	static struct churn_cb cbs[2];
	uint64_t rng = 0xABCDEFull;
	unsigned i = 0;

	(void)arg;
	pthread_barrier_wait(&t.start);
	for (unsigned it = 0; it < MIN_ITERS || !stress_past(t.deadline); it++) {
		struct churn_cb *c = &cbs[i++ % 2];
		enum unic_event_type ev = (enum unic_event_type)(stress_rand(&rng) % NEV);
		unsigned s;
		struct unic_port *p = port_pick(&rng, &s);
		int rc;

		if (p == NULL)
			continue;
		__atomic_store_n(&c->live, 1, __ATOMIC_RELEASE);
		rc = unic_event_callback_register(p, ev, churn_cb_fn, c);
		STRESS_CHECK(rc == 0, "unic_event_callback_register: %s", strerror(-rc));
		rc = unic_event_callback_register(p, ev, churn_cb_fn, c);
		STRESS_CHECK(rc == -EEXIST, "registering the same callback twice: %d, expected -EEXIST", rc);
		stress_sleep_us(stress_rand(&rng) % 200);
		/* We hold a reference: the port is not freed, so the callback
		 * is still registered. */
		rc = unic_event_callback_unregister(p, ev, churn_cb_fn, c);
		STRESS_CHECK(rc == 0, "unic_event_callback_unregister: %s", strerror(-rc));
		__atomic_store_n(&c->live, 0, __ATOMIC_RELEASE);
		unic_port_put(p);
		t.churns++;
	}
	return NULL;
}

/* Detaches ports and puts new ones in their slots; stops and starts the
 * control thread now and then. */
static void *lifecycle_main(void *arg)
{
	uint64_t rng = 0x5EEDull;

	(void)arg;
	pthread_barrier_wait(&t.start);
	for (unsigned it = 0; it < MIN_ITERS || !stress_past(t.deadline); it++) {
		unsigned s = stress_rand(&rng) % NSLOT;
		struct unic_port *old, *p = port_new();
		int rc;

		pthread_mutex_lock(&t.reg_lock);
		old = t.slots[s].port;
		memset(&t.slots[s], 0, sizeof(t.slots[s]));
		t.slots[s].port = p;
		pthread_mutex_unlock(&t.reg_lock);
		/* Not under reg_lock: the free waits for a callback that takes it. */
		rc = unic_port_detach(old);
		STRESS_CHECK(rc == 0, "unic_port_detach(%s): %s", unic_port_name(old), strerror(-rc));
		unic_port_put(old);
		t.detaches++;
		if (stress_rand(&rng) % 8 == 0) {
			rc = unic_event_thread_stop();
			STRESS_CHECK(rc == 0, "unic_event_thread_stop: %s", strerror(-rc));
			stress_sleep_us(100);
			rc = unic_event_thread_start();
			STRESS_CHECK(rc == 0, "unic_event_thread_start: %s", strerror(-rc));
			t.restarts++;
		}
		stress_sleep_us(200 + stress_rand(&rng) % 800);
	}
	return NULL;
}

static void *timer_main(void *arg)
{
	uint64_t rng = 0x7133ull;

	(void)arg;
	pthread_barrier_wait(&t.start);
	for (unsigned it = 0; (it < MIN_ITERS || !stress_past(t.deadline)) && t.nb_timers < NTIMER; it++) {
		struct tmr *m = &t.timers[t.nb_timers];
		bool cancel = stress_rand(&rng) % 2;
		int rc;

		m->periodic = stress_rand(&rng) % 16 == 0;
		rc = unic_timer_add(stress_rand(&rng) % 300000, m->periodic ? 100000 : 0, timer_fn, m);
		STRESS_CHECK(rc > 0, "unic_timer_add: %s", strerror(-rc));
		m->id = rc;
		__atomic_store_n(&t.nb_timers, t.nb_timers + 1, __ATOMIC_RELEASE);
		if (!cancel && !m->periodic)
			continue;
		stress_sleep_us(stress_rand(&rng) % (m->periodic ? 2000 : 300));
		rc = unic_timer_cancel(m->id);
		if (rc == 0) {
			/* It may have been running during the cancel (which waited
			 * for it); it must not run again. */
			__atomic_store_n(&m->cancelled, 1, __ATOMIC_RELEASE);
			STRESS_CHECK(m->periodic || __atomic_load_n(&m->ran, __ATOMIC_ACQUIRE) <= 1,
				     "one-shot timer %d ran %u times", m->id, m->ran);
			t.cancels_ok++;
		} else {
			uint32_t ran = __atomic_load_n(&m->ran, __ATOMIC_ACQUIRE);

			STRESS_CHECK(rc == -ENOENT, "unic_timer_cancel: %s", strerror(-rc));
			STRESS_CHECK(!m->periodic && ran == 1,
				     "cancel of %s timer %d found it gone, but it ran %u times",
				     m->periodic ? "periodic" : "one-shot", m->id, ran);
			t.cancels_gone++;
		}
	}
	return NULL;
}

static void wait_for(const char *what, bool (*done)(void *), void *arg)
{
	uint64_t until = stress_now_ns() + WAIT_S * 1000000000ull;

	while (!done(arg)) {
		STRESS_CHECK(stress_now_ns() < until, "%s: not after %d s", what, WAIT_S);
		stress_sleep_us(100);
	}
}

static bool fd_done(void *arg)
{
	struct watched *w = arg;

	return __atomic_load_n(&w->handled, __ATOMIC_ACQUIRE) > 0;
}

static void *fd_main(void *arg)
{
	uint64_t rng = 0xFDull;

	(void)arg;
	pthread_barrier_wait(&t.start);
	for (unsigned it = 0; it < MIN_ITERS || !stress_past(t.deadline); it++) {
		struct watched *w = calloc(1, sizeof(*w));
		uint64_t one = 1;
		int rc;

		STRESS_CHECK(w != NULL, "out of memory");
		w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		STRESS_CHECK(w->fd >= 0, "eventfd: %s", strerror(errno));
		rc = unic_event_fd_add(w->fd, fd_handler, w);
		STRESS_CHECK(rc == 0, "unic_event_fd_add: %s", strerror(-rc));
		STRESS_CHECK(write(w->fd, &one, sizeof(one)) == (ssize_t)sizeof(one), "write");
		if (stress_rand(&rng) % 2)
			wait_for("a write to a watched fd was handled", fd_done, w);
		else
			stress_sleep_us(stress_rand(&rng) % 100);
		rc = unic_event_fd_remove(w->fd);
		STRESS_CHECK(rc == 0, "unic_event_fd_remove: %s", strerror(-rc));
		__atomic_store_n(&w->removed, 1, __ATOMIC_RELEASE);
		close(w->fd);
		/* Freed: a handler that ran later would touch freed memory. */
		free(w);
		t.fd_cycles++;
	}
	return NULL;
}

static bool all_delivered(void *arg)
{
	bool ok = true;

	(void)arg;
	pthread_mutex_lock(&t.reg_lock);
	for (unsigned s = 0; s < NSLOT; s++)
		for (unsigned e = 0; e < NEV; e++)
			ok &= t.slots[s].delivered[e] == t.slots[s].posted[e];
	pthread_mutex_unlock(&t.reg_lock);
	return ok;
}

static bool timers_ran(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < t.nb_timers; i++) {
		struct tmr *m = &t.timers[i];

		if (!m->periodic && !m->cancelled && __atomic_load_n(&m->ran, __ATOMIC_ACQUIRE) == 0)
			return false;
	}
	return true;
}

int main(void)
{
	pthread_t tids[6];
	uint64_t t0 = stress_now_ns();
	int rc;

	stress_name = "stress_event";
	stress_watchdog();
	for (unsigned s = 0; s < NSLOT; s++)
		t.slots[s].port = port_new();
	rc = unic_event_callback_register(NULL, UNIC_EVENT_LINK, global_cb, NULL);
	STRESS_CHECK(rc == 0, "unic_event_callback_register: %s", strerror(-rc));
	rc = unic_event_callback_register(NULL, UNIC_EVENT_DEV_REQUEST, global_cb, NULL);
	STRESS_CHECK(rc == 0, "unic_event_callback_register: %s", strerror(-rc));
	rc = unic_event_callback_register(NULL, UNIC_EVENT_DEV_GONE, global_cb, NULL);
	STRESS_CHECK(rc == 0, "unic_event_callback_register: %s", strerror(-rc));
	rc = unic_event_thread_start();
	STRESS_CHECK(rc == 0, "unic_event_thread_start: %s", strerror(-rc));

	pthread_barrier_init(&t.start, NULL, 7);
	STRESS_CHECK(pthread_create(&tids[0], NULL, poster_main, (void *)1) == 0, "pthread_create");
	STRESS_CHECK(pthread_create(&tids[1], NULL, poster_main, (void *)2) == 0, "pthread_create");
	STRESS_CHECK(pthread_create(&tids[2], NULL, churn_main, NULL) == 0, "pthread_create");
	STRESS_CHECK(pthread_create(&tids[3], NULL, lifecycle_main, NULL) == 0, "pthread_create");
	STRESS_CHECK(pthread_create(&tids[4], NULL, timer_main, NULL) == 0, "pthread_create");
	STRESS_CHECK(pthread_create(&tids[5], NULL, fd_main, NULL) == 0, "pthread_create");
	t.deadline = stress_deadline(1);
	pthread_barrier_wait(&t.start);
	stress_join(tids, 6);

	/* One more post of each event for each port: each must be delivered. */
	for (unsigned s = 0; s < NSLOT; s++) {
		for (unsigned e = 0; e < NEV; e++) {
			pthread_mutex_lock(&t.reg_lock);
			t.slots[s].posted[e]++;
			pthread_mutex_unlock(&t.reg_lock);
			rc = unic_port_event_post(t.slots[s].port, (enum unic_event_type)e);
			STRESS_CHECK(rc == 0, "unic_port_event_post: %s", strerror(-rc));
		}
	}
	wait_for("every post was followed by a delivery", all_delivered, NULL);
	wait_for("every timer not cancelled ran", timers_ran, NULL);
	for (uint32_t i = 0; i < t.nb_timers; i++) {
		struct tmr *m = &t.timers[i];

		STRESS_CHECK(m->periodic || m->cancelled || m->ran == 1, "one-shot timer %d ran %u times",
			     m->id, m->ran);
	}
	rc = unic_event_thread_stop();
	STRESS_CHECK(rc == 0, "unic_event_thread_stop: %s", strerror(-rc));
	for (unsigned s = 0; s < NSLOT; s++) {
		STRESS_CHECK(unic_port_detach(t.slots[s].port) == 0, "detach");
		unic_port_put(t.slots[s].port);
	}
	STRESS_CHECK(t.deliveries > 0 && t.detaches > 0 && t.churns > 0 && t.fd_cycles > 0 && t.nb_timers > 0,
		     "some thread did nothing before the deadline: %" PRIu64 " deliveries, %" PRIu64 " detaches, %" PRIu64 " callback cycles, %" PRIu64 " fd cycles, %u timers",
		     t.deliveries, t.detaches, t.churns, t.fd_cycles, t.nb_timers);
	printf("%s: %" PRIu64 " deliveries (%" PRIu64 " for replaced ports), %" PRIu64 " detaches, %" PRIu64 " control thread restarts, %" PRIu64 " callback cycles, %u timers (%" PRIu64 " cancelled, %" PRIu64 " cancels after they ran), %" PRIu64 " fd cycles, %.2f s\n",
	       stress_name, t.deliveries, t.late, t.detaches, t.restarts, t.churns, t.nb_timers,
	       t.cancels_ok, t.cancels_gone, t.fd_cycles, (stress_now_ns() - t0) / 1e9);
	pthread_barrier_destroy(&t.start);
	printf("%s: ok\n", stress_name);
	return 0;
}
