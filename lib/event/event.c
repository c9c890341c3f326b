/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control events: port events, timers and watched fds, delivered through one
 * epoll fd.
 *
 * The module is process-wide, like the kernel's notifier chains and like
 * stderr: drivers and the bus post from wherever they notice something, and
 * there is one place that delivers. Its state is one static object, created
 * on first use (pthread_once) and guarded by one mutex.
 *
 * The epoll fd holds:
 *   - an eventfd, written by unic_port_event_post() (and by thread_stop);
 *   - a timerfd, armed (absolute, CLOCK_MONOTONIC) for the earliest timer;
 *   - every fd given to unic_event_fd_add(), level-triggered, EPOLLIN.
 *
 * One dispatch at a time: unic_event_dispatch() from the application, or the
 * control thread, never both. Callbacks, timers and handlers run with the
 * mutex released, so they may register, unregister, post, add timers or
 * cancel them. Only one runs at a time (ctl.running). Removing an object marks
 * it removed; when it is running in another thread the remover waits on
 * ctl.idle until it returns; from inside itself the mark is enough. Removed
 * objects stay linked while a dispatch walks the lists and are freed by the
 * sweep at its end, so a walk that drops the lock never follows a freed next
 * pointer.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#include <unic/event.h>
#include <unic/log.h>
#include "unic_event_internal.h"

/* Distinct pending {port, event} pairs; identical ones coalesce. */
#define EVENT_QUEUE_SIZE 1024
/* Watched fds handled per dispatch; more stay readable for the next one. */
#define EVENT_EPOLL_BATCH 32

/* epoll data of the two internal fds; a watched fd's data is its number. */
#define EVENT_TAG_WAKE  UINT64_MAX
#define EVENT_TAG_TIMER (UINT64_MAX - 1)

struct event_cb {
	struct event_cb *next;
	struct unic_port *port;         /* NULL: every port */
	enum unic_event_type ev;
	unic_port_event_cb fn;
	void *arg;
	bool removed;
};

struct event_fd {
	struct event_fd *next;
	int fd;
	unic_fd_handler fn;
	void *arg;
	bool removed;
};

struct event_timer {
	struct event_timer *next;
	int id;
	uint64_t deadline_ns;           /* CLOCK_MONOTONIC */
	uint64_t period_ns;             /* 0: once */
	unic_timer_fn fn;
	void *arg;
	bool removed;
};

struct event_pending {
	struct unic_port *port;
	enum unic_event_type ev;
	uint64_t seq;                   /* order of posting; see event_deliver */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t idle;            /* broadcast when running or cur_port changes */
	int init_err;                   /* set once, by event_init_once */
	bool ready;

	int epfd;
	int wakefd;
	int timerfd;

	/* Pending events, a ring of q_len entries from q_head. */
	struct event_pending queue[EVENT_QUEUE_SIZE];
	uint32_t q_head;
	uint32_t q_len;
	uint64_t post_seq;
	uint64_t dropped;               /* posts refused because the queue was full */
	uint64_t dropped_reported;

	struct event_cb *cbs;           /* in registration order */
	struct event_fd *fds;
	struct event_timer *timers;
	int next_timer_id;

	bool dispatching;
	pthread_t dispatcher;           /* valid while dispatching */
	const void *running;            /* the cb, fd or timer being called */
	struct unic_port *cur_port;     /* port whose event is being delivered */
	bool cur_port_gone;             /* forgotten by one of its callbacks */

	bool thread_running;
	bool thread_stop;
	bool busy_logged;
	pthread_t thread;
} ctl = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
	.epfd = -1,
	.wakefd = -1,
	.timerfd = -1,
	.next_timer_id = 1,
};

static pthread_once_t event_once = PTHREAD_ONCE_INIT;

static const char *const event_names[UNIC_EVENT_COUNT] = {
	[UNIC_EVENT_LINK] = "link",
	[UNIC_EVENT_DEV_REQUEST] = "dev_request",
	[UNIC_EVENT_DEV_GONE] = "dev_gone",
};

const char *unic_event_name(enum unic_event_type ev)
{
	if ((unsigned)ev >= UNIC_EVENT_COUNT)
		return "?";
	return event_names[ev];
}

static void event_init_once(void)
{
	struct epoll_event e = { .events = EPOLLIN };
	int epfd, wakefd, timerfd, err;
	const char *what;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0) {
		err = -errno;
		what = "epoll_create1";
		goto err;
	}
	wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (wakefd < 0) {
		err = -errno;
		what = "eventfd";
		goto err_close_epfd;
	}
	timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (timerfd < 0) {
		err = -errno;
		what = "timerfd_create";
		goto err_close_wakefd;
	}
	e.data.u64 = EVENT_TAG_WAKE;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, wakefd, &e) < 0) {
		err = -errno;
		what = "epoll_ctl";
		goto err_close_timerfd;
	}
	e.data.u64 = EVENT_TAG_TIMER;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, timerfd, &e) < 0) {
		err = -errno;
		what = "epoll_ctl";
		goto err_close_timerfd;
	}

	pthread_mutex_lock(&ctl.lock);
	ctl.epfd = epfd;
	ctl.wakefd = wakefd;
	ctl.timerfd = timerfd;
	ctl.ready = true;
	pthread_mutex_unlock(&ctl.lock);
	return;

err_close_timerfd:
	close(timerfd);
err_close_wakefd:
	close(wakefd);
err_close_epfd:
	close(epfd);
err:
	ctl.init_err = err;
	UNIC_LOG(ERR, PORT, "control events unavailable: %s failed: %s (check the fd limit, ulimit -n)",
		 what, strerror(-err));
}

/* @return 0, or the -errno that made the first use fail (for good). */
static int event_init(void)
{
	pthread_once(&event_once, event_init_once);
	return ctl.init_err;
}

static uint64_t event_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t event_add_sat(uint64_t a, uint64_t b)
{
	uint64_t r;

	return __builtin_add_overflow(a, b, &r) ? UINT64_MAX : r;
}

static void event_wake(void)
{
	uint64_t one = 1;
	ssize_t r;

	/* Fails only with EAGAIN when the counter is near 2^64: readable anyway. */
	r = write(ctl.wakefd, &one, sizeof(one));
	(void)r;
}

static void event_drain(int fd)
{
	uint64_t v;
	ssize_t r;

	/* Non-blocking: EAGAIN when nothing is pending. */
	r = read(fd, &v, sizeof(v));
	(void)r;
}

/* Lock held. Free every object marked removed; only when no dispatch walks
 * the lists. */
static void event_sweep(void)
{
	struct event_cb **pc = &ctl.cbs, *c;
	struct event_fd **pf = &ctl.fds, *f;
	struct event_timer **pt = &ctl.timers, *t;

	while ((c = *pc) != NULL) {
		if (c->removed) {
			*pc = c->next;
			free(c);
		} else {
			pc = &c->next;
		}
	}
	while ((f = *pf) != NULL) {
		if (f->removed) {
			*pf = f->next;
			free(f);
		} else {
			pf = &f->next;
		}
	}
	while ((t = *pt) != NULL) {
		if (t->removed) {
			*pt = t->next;
			free(t);
		} else {
			pt = &t->next;
		}
	}
}

/*
 * Lock held; @p obj was just marked removed. Wait while it runs in another
 * thread (from inside itself the mark is enough: it is not called again),
 * then free it now or leave it to the sweep of the dispatch under way. Never
 * touches @p obj after waiting: that dispatch may have freed it.
 */
static void event_retire(const void *obj)
{
	if (ctl.dispatching && !pthread_equal(ctl.dispatcher, pthread_self()))
		while (ctl.running == obj)
			pthread_cond_wait(&ctl.idle, &ctl.lock);
	if (!ctl.dispatching)
		event_sweep();
}

/* Lock held. Arm the timerfd for the earliest live timer, or disarm it. */
static void event_timer_arm(void)
{
	struct itimerspec its = { 0 };
	struct event_timer *t;
	uint64_t first = UINT64_MAX;

	for (t = ctl.timers; t != NULL; t = t->next)
		if (!t->removed && t->deadline_ns < first)
			first = t->deadline_ns;
	if (first != UINT64_MAX) {
		if (first == 0)
			first = 1;      /* an it_value of zero would disarm */
		its.it_value.tv_sec = (time_t)(first / 1000000000u);
		its.it_value.tv_nsec = (long)(first % 1000000000u);
	}
	if (timerfd_settime(ctl.timerfd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		UNIC_LOG(ERR, PORT, "timerfd_settime: %s: timers may run late", strerror(errno));
}

int unic_event_callback_register(struct unic_port *port, enum unic_event_type ev,
				 unic_port_event_cb cb, void *arg)
{
	struct event_cb **tail, *c;
	int err;

	if ((unsigned)ev >= UNIC_EVENT_COUNT || cb == NULL) {
		UNIC_LOG(ERR, PORT, "event callback: expected an event type below %d and a function; got %d and %p",
			 UNIC_EVENT_COUNT, (int)ev, (void *)cb);
		return -EINVAL;
	}
	err = event_init();
	if (err < 0)
		return err;

	pthread_mutex_lock(&ctl.lock);
	for (tail = &ctl.cbs; *tail != NULL; tail = &(*tail)->next) {
		c = *tail;
		if (!c->removed && c->port == port && c->ev == ev && c->fn == cb && c->arg == arg) {
			pthread_mutex_unlock(&ctl.lock);
			return -EEXIST;
		}
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		pthread_mutex_unlock(&ctl.lock);
		return -ENOMEM;
	}
	c->port = port;
	c->ev = ev;
	c->fn = cb;
	c->arg = arg;
	*tail = c;
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

int unic_event_callback_unregister(struct unic_port *port, enum unic_event_type ev,
				   unic_port_event_cb cb, void *arg)
{
	struct event_cb *c;

	pthread_mutex_lock(&ctl.lock);
	for (c = ctl.cbs; c != NULL; c = c->next)
		if (!c->removed && c->port == port && c->ev == ev && c->fn == cb && c->arg == arg)
			break;
	if (c == NULL) {
		pthread_mutex_unlock(&ctl.lock);
		return -ENOENT;
	}
	c->removed = true;
	event_retire(c);
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

int unic_port_event_post(struct unic_port *port, enum unic_event_type ev)
{
	struct event_pending *p;
	uint32_t i;
	int err;

	if (port == NULL || (unsigned)ev >= UNIC_EVENT_COUNT)
		return -EINVAL;
	err = event_init();
	if (err < 0)
		return err;

	pthread_mutex_lock(&ctl.lock);
	/*
	 * Coalesce: the same event for the same port already pending is
	 * delivered after this post, and callbacks read the port's current
	 * state, so a second copy would tell them nothing new. Linear: events
	 * are rare and the queue is short.
	 */
	for (i = 0; i < ctl.q_len; i++) {
		p = &ctl.queue[(ctl.q_head + i) % EVENT_QUEUE_SIZE];
		if (p->port == port && p->ev == ev) {
			pthread_mutex_unlock(&ctl.lock);
			return 0;
		}
	}
	if (ctl.q_len == EVENT_QUEUE_SIZE) {
		/* No log here: posters may be fast-path threads. Dispatch reports it. */
		ctl.dropped++;
		pthread_mutex_unlock(&ctl.lock);
		return -ENOSPC;
	}
	p = &ctl.queue[(ctl.q_head + ctl.q_len) % EVENT_QUEUE_SIZE];
	p->port = port;
	p->ev = ev;
	p->seq = ctl.post_seq++;
	ctl.q_len++;
	pthread_mutex_unlock(&ctl.lock);
	/* After the insert, so a dispatch that drained the eventfd before it
	 * either sees the event or leaves the fd readable. */
	event_wake();
	return 0;
}

void unic_event_port_forget(struct unic_port *port)
{
	uint32_t i, kept = 0;
	struct event_cb *c;

	if (port == NULL)
		return;
	pthread_mutex_lock(&ctl.lock);
	if (!ctl.ready) {
		pthread_mutex_unlock(&ctl.lock);
		return;
	}
	for (i = 0; i < ctl.q_len; i++) {
		struct event_pending p = ctl.queue[(ctl.q_head + i) % EVENT_QUEUE_SIZE];

		if (p.port != port)
			ctl.queue[(ctl.q_head + kept++) % EVENT_QUEUE_SIZE] = p;
	}
	ctl.q_len = kept;
	for (c = ctl.cbs; c != NULL; c = c->next)
		if (c->port == port)
			c->removed = true;
	if (ctl.dispatching && ctl.cur_port == port) {
		if (pthread_equal(ctl.dispatcher, pthread_self()))
			ctl.cur_port_gone = true;
		else
			while (ctl.dispatching && ctl.cur_port == port)
				pthread_cond_wait(&ctl.idle, &ctl.lock);
	}
	if (!ctl.dispatching)
		event_sweep();
	pthread_mutex_unlock(&ctl.lock);
}

int unic_event_fd(void)
{
	int err = event_init();

	return err < 0 ? err : ctl.epfd;
}

/* Lock held; dropped around the call. */
#define EVENT_CALL(obj, call)                                   \
	do {                                                    \
		ctl.running = (obj);                            \
		pthread_mutex_unlock(&ctl.lock);                \
		call;                                           \
		pthread_mutex_lock(&ctl.lock);                  \
		ctl.running = NULL;                             \
		pthread_cond_broadcast(&ctl.idle);              \
	} while (0)

/*
 * Lock held. Deliver the events posted before @p limit (those the eventfd
 * read at the start of this dispatch stood for). Events posted meanwhile,
 * by a callback for instance, wait for the next dispatch: the fd stays
 * readable for them, and a callback that posts cannot keep one dispatch
 * going forever.
 */
static int event_deliver(uint64_t limit)
{
	int n = 0;

	while (ctl.q_len > 0 && ctl.queue[ctl.q_head].seq < limit) {
		struct event_pending p = ctl.queue[ctl.q_head];
		struct event_cb *c;

		ctl.q_head = (ctl.q_head + 1) % EVENT_QUEUE_SIZE;
		ctl.q_len--;
		ctl.cur_port = p.port;
		ctl.cur_port_gone = false;
		for (c = ctl.cbs; c != NULL && !ctl.cur_port_gone; c = c->next) {
			if (c->removed || c->ev != p.ev || (c->port != NULL && c->port != p.port))
				continue;
			EVENT_CALL(c, c->fn(p.port, p.ev, c->arg));
			n++;
		}
		ctl.cur_port = NULL;
		pthread_cond_broadcast(&ctl.idle);
	}
	return n;
}

/*
 * Lock held. Run each timer due now, once. A periodic timer's next deadline
 * is the first multiple of its period after the time it returned: periods
 * missed because the dispatch came late are skipped, not run in a burst.
 */
static int event_run_timers(void)
{
	uint64_t now = event_now_ns();
	struct event_timer *t;
	int n = 0;

	for (t = ctl.timers; t != NULL; t = t->next) {
		uint64_t after, missed;

		if (t->removed || t->deadline_ns > now)
			continue;
		EVENT_CALL(t, t->fn(t->arg));
		n++;
		if (t->removed)
			continue;               /* cancelled by itself */
		if (t->period_ns == 0) {
			t->removed = true;
			continue;
		}
		after = event_now_ns();
		missed = after >= t->deadline_ns ? (after - t->deadline_ns) / t->period_ns + 1 : 1;
		if (missed > UINT64_MAX / t->period_ns)
			t->deadline_ns = UINT64_MAX;
		else
			t->deadline_ns = event_add_sat(t->deadline_ns, missed * t->period_ns);
	}
	event_timer_arm();
	return n;
}

/* Lock held. Run the handler of each watched fd epoll reported. */
static int event_run_handlers(const struct epoll_event *evs, int nevs)
{
	int i, n = 0;

	for (i = 0; i < nevs; i++) {
		struct event_fd *f;
		int fd;

		if (evs[i].data.u64 > INT_MAX)
			continue;               /* the eventfd or the timerfd */
		fd = (int)evs[i].data.u64;
		for (f = ctl.fds; f != NULL; f = f->next)
			if (!f->removed && f->fd == fd)
				break;
		if (f == NULL)
			continue;               /* removed since epoll_wait */
		EVENT_CALL(f, f->fn(fd, f->arg));
		n++;
	}
	return n;
}

static int event_dispatch(bool control_thread)
{
	struct epoll_event evs[EVENT_EPOLL_BATCH];
	uint64_t limit;
	int n = 0, nevs;

	pthread_mutex_lock(&ctl.lock);
	if (ctl.dispatching || (ctl.thread_running && !control_thread)) {
		bool first = !ctl.busy_logged && ctl.thread_running && !control_thread;

		ctl.busy_logged |= first;
		pthread_mutex_unlock(&ctl.lock);
		if (first)
			UNIC_LOG(ERR, PORT, "unic_event_dispatch: the control thread dispatches; call unic_event_thread_stop() first, or do not dispatch");
		return -EBUSY;
	}
	ctl.dispatching = true;
	ctl.dispatcher = pthread_self();
	pthread_mutex_unlock(&ctl.lock);

	/* Before taking the limit: a post after this read writes the eventfd
	 * again, so no event is left pending behind a drained fd. */
	event_drain(ctl.wakefd);
	event_drain(ctl.timerfd);

	pthread_mutex_lock(&ctl.lock);
	limit = ctl.post_seq;
	n += event_deliver(limit);
	n += event_run_timers();
	pthread_mutex_unlock(&ctl.lock);

	nevs = epoll_wait(ctl.epfd, evs, EVENT_EPOLL_BATCH, 0);

	pthread_mutex_lock(&ctl.lock);
	if (nevs > 0)
		n += event_run_handlers(evs, nevs);
	if (ctl.dropped != ctl.dropped_reported) {
		uint64_t lost = ctl.dropped - ctl.dropped_reported;

		ctl.dropped_reported = ctl.dropped;
		UNIC_LOG(WARNING, PORT, "%llu port events were refused: %d different events were pending; dispatch more often",
			 (unsigned long long)lost, EVENT_QUEUE_SIZE);
	}
	event_sweep();
	ctl.dispatching = false;
	pthread_cond_broadcast(&ctl.idle);
	pthread_mutex_unlock(&ctl.lock);
	return n;
}

int unic_event_dispatch(void)
{
	int err = event_init();

	if (err < 0)
		return err;
	return event_dispatch(false);
}

static void *event_thread_main(void *unused)
{
	struct epoll_event e;

	(void)unused;
	for (;;) {
		bool stop;

		pthread_mutex_lock(&ctl.lock);
		stop = ctl.thread_stop;
		pthread_mutex_unlock(&ctl.lock);
		if (stop)
			break;
		if (epoll_wait(ctl.epfd, &e, 1, -1) < 0 && errno != EINTR) {
			UNIC_LOG(ERR, PORT, "control thread: epoll_wait: %s; events are no longer dispatched",
				 strerror(errno));
			break;
		}
		event_dispatch(true);
	}
	return NULL;
}

int unic_event_thread_start(void)
{
	int err = event_init();

	if (err < 0)
		return err;
	pthread_mutex_lock(&ctl.lock);
	if (ctl.thread_running) {
		pthread_mutex_unlock(&ctl.lock);
		return -EALREADY;
	}
	if (ctl.dispatching) {
		pthread_mutex_unlock(&ctl.lock);
		UNIC_LOG(ERR, PORT, "unic_event_thread_start: a dispatch is under way; start the control thread outside of unic_event_dispatch()");
		return -EBUSY;
	}
	ctl.thread_stop = false;
	err = pthread_create(&ctl.thread, NULL, event_thread_main, NULL);
	if (err != 0) {
		pthread_mutex_unlock(&ctl.lock);
		UNIC_LOG(ERR, PORT, "control thread: pthread_create: %s", strerror(err));
		return -err;
	}
	pthread_setname_np(ctl.thread, "unic-event");
	ctl.thread_running = true;
	ctl.busy_logged = false;
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

int unic_event_thread_stop(void)
{
	pthread_t t;

	pthread_mutex_lock(&ctl.lock);
	if (!ctl.thread_running || ctl.thread_stop) {
		pthread_mutex_unlock(&ctl.lock);
		return -EALREADY;
	}
	if (pthread_equal(ctl.thread, pthread_self())) {
		pthread_mutex_unlock(&ctl.lock);
		UNIC_LOG(ERR, PORT, "unic_event_thread_stop: called from the control thread itself (a callback); stop it from another thread");
		return -EDEADLK;
	}
	ctl.thread_stop = true;
	t = ctl.thread;
	pthread_mutex_unlock(&ctl.lock);

	event_wake();
	pthread_join(t, NULL);

	pthread_mutex_lock(&ctl.lock);
	ctl.thread_running = false;
	ctl.thread_stop = false;
	/* Take back the wake-up meant for the thread, unless events wait. */
	if (ctl.q_len == 0)
		event_drain(ctl.wakefd);
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

int unic_event_fd_add(int fd, unic_fd_handler fn, void *arg)
{
	struct epoll_event e = { .events = EPOLLIN };
	struct event_fd *f;
	int err;

	if (fd < 0 || fn == NULL) {
		UNIC_LOG(ERR, PORT, "unic_event_fd_add: expected an open fd and a handler; got fd %d and %p",
			 fd, (void *)fn);
		return -EINVAL;
	}
	err = event_init();
	if (err < 0)
		return err;

	pthread_mutex_lock(&ctl.lock);
	if (fd == ctl.epfd || fd == ctl.wakefd || fd == ctl.timerfd) {
		pthread_mutex_unlock(&ctl.lock);
		UNIC_LOG(ERR, PORT, "unic_event_fd_add: fd %d belongs to the event module itself", fd);
		return -EINVAL;
	}
	for (f = ctl.fds; f != NULL; f = f->next) {
		if (!f->removed && f->fd == fd) {
			pthread_mutex_unlock(&ctl.lock);
			return -EEXIST;
		}
	}
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		pthread_mutex_unlock(&ctl.lock);
		return -ENOMEM;
	}
	e.data.u64 = (uint64_t)fd;
	if (epoll_ctl(ctl.epfd, EPOLL_CTL_ADD, fd, &e) < 0) {
		err = -errno;
		pthread_mutex_unlock(&ctl.lock);
		free(f);
		UNIC_LOG(ERR, PORT, "unic_event_fd_add: fd %d cannot be watched: %s (expected an eventfd, pipe, socket or device fd; regular files are always readable)",
			 fd, strerror(-err));
		return err;
	}
	f->fd = fd;
	f->fn = fn;
	f->arg = arg;
	f->next = ctl.fds;
	ctl.fds = f;
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

int unic_event_fd_remove(int fd)
{
	struct event_fd *f;

	pthread_mutex_lock(&ctl.lock);
	for (f = ctl.fds; f != NULL; f = f->next)
		if (!f->removed && f->fd == fd)
			break;
	if (f == NULL) {
		pthread_mutex_unlock(&ctl.lock);
		return -ENOENT;
	}
	f->removed = true;
	/* Fails with EBADF if the fd was closed first; closing removed it. */
	epoll_ctl(ctl.epfd, EPOLL_CTL_DEL, fd, NULL);
	event_retire(f);
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}

/* Lock held. An id no live timer has; ids wrap after INT_MAX. */
static int event_timer_id(void)
{
	struct event_timer *t;
	int id;

	for (;;) {
		id = ctl.next_timer_id;
		ctl.next_timer_id = id == INT_MAX ? 1 : id + 1;
		for (t = ctl.timers; t != NULL; t = t->next)
			if (!t->removed && t->id == id)
				break;
		if (t == NULL)
			return id;
	}
}

int unic_timer_add(uint64_t delay_ns, uint64_t period_ns, unic_timer_fn fn, void *arg)
{
	struct event_timer *t, **tail;
	int err;

	if (fn == NULL) {
		UNIC_LOG(ERR, PORT, "unic_timer_add: expected a function; got NULL");
		return -EINVAL;
	}
	err = event_init();
	if (err < 0)
		return err;
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -ENOMEM;
	t->deadline_ns = event_add_sat(event_now_ns(), delay_ns);
	t->period_ns = period_ns;
	t->fn = fn;
	t->arg = arg;

	pthread_mutex_lock(&ctl.lock);
	t->id = event_timer_id();
	for (tail = &ctl.timers; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = t;
	event_timer_arm();
	err = t->id;
	pthread_mutex_unlock(&ctl.lock);
	return err;
}

int unic_timer_cancel(int id)
{
	struct event_timer *t;

	pthread_mutex_lock(&ctl.lock);
	for (t = ctl.timers; t != NULL; t = t->next)
		if (!t->removed && t->id == id)
			break;
	if (t == NULL) {
		pthread_mutex_unlock(&ctl.lock);
		return -ENOENT;
	}
	t->removed = true;
	event_timer_arm();
	event_retire(t);
	pthread_mutex_unlock(&ctl.lock);
	return 0;
}
