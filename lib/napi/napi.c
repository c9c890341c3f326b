/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The napi engine's control path: contexts, queue membership (add, remove,
 * the port's release at stop), requests applied at round boundaries,
 * injection, and metrics. The rounds and the sleep are in napi_run.c;
 * objects, locking and fences are described in napi_priv.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/pool.h>

#include "napi_priv.h"
#include "unic_conf.h"

const char napi_timer_tag;

/* ---- references ---------------------------------------------------------- */

static void napi_ctx_free(struct unic_napi_ctx *ctx)
{
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++)
		unic_ring_destroy(ctx->qs[i].inj);
	free(ctx->qs);
	free(ctx->srcs);
	free(ctx->txqs);
	free(ctx->puts);
	if (ctx->epfd >= 0)
		close(ctx->epfd);
	if (ctx->wake_fd >= 0)
		close(ctx->wake_fd);
	if (ctx->timer_fd >= 0)
		close(ctx->timer_fd);
	pthread_cond_destroy(&ctx->cond);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

static void napi_ctx_get(struct unic_napi_ctx *ctx)
{
	__atomic_fetch_add(&ctx->refcnt, 1, __ATOMIC_RELAXED);
}

static void napi_ctx_put(struct unic_napi_ctx *ctx)
{
	if (__atomic_sub_fetch(&ctx->refcnt, 1, __ATOMIC_ACQ_REL) == 0)
		napi_ctx_free(ctx);
}

/* ---- the registry ----------------------------------------------------------- */

/*
 * Every live context, for unic_napi_ctx_foreach() (a statistics or
 * telemetry thread). Linked at the end of create, unlinked at the start of
 * destroy, both under the lock, and foreach calls its callback under it: a
 * context it hands out is not destroyed until the callback returns. The
 * context threads never take this lock.
 */
static pthread_mutex_t napi_registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct unic_napi_ctx *napi_registry;
static uint32_t napi_next_id;

static void napi_registry_add(struct unic_napi_ctx *ctx)
{
	struct unic_napi_ctx **pp;

	pthread_mutex_lock(&napi_registry_lock);
	ctx->id = napi_next_id++;
	for (pp = &napi_registry; *pp; pp = &(*pp)->reg_next)
		;
	*pp = ctx;
	pthread_mutex_unlock(&napi_registry_lock);
}

static void napi_registry_del(struct unic_napi_ctx *ctx)
{
	pthread_mutex_lock(&napi_registry_lock);
	for (struct unic_napi_ctx **pp = &napi_registry; *pp; pp = &(*pp)->reg_next) {
		if (*pp == ctx) {
			*pp = ctx->reg_next;
			break;
		}
	}
	pthread_mutex_unlock(&napi_registry_lock);
}

int unic_napi_ctx_foreach(int (*fn)(struct unic_napi_ctx *ctx, void *arg), void *arg)
{
	int rc = 0;

	if (fn == NULL)
		return -EINVAL;
	pthread_mutex_lock(&napi_registry_lock);
	for (struct unic_napi_ctx *c = napi_registry; c && rc == 0; c = c->reg_next)
		rc = fn(c, arg);
	pthread_mutex_unlock(&napi_registry_lock);
	return rc;
}

uint32_t unic_napi_ctx_id(const struct unic_napi_ctx *ctx)
{
	return ctx->id;
}

/* ---- creation --------------------------------------------------------------- */

struct unic_napi_ctx *unic_napi_ctx_create(const struct unic_napi_conf *conf)
{
	struct unic_napi_ctx *ctx;
	struct unic_napi_conf c;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	int err;

	if (unic_conf_copy(&c, sizeof(c), conf) < 0) {
		UNIC_LOG(ERR, NAPI, "napi context: conf missing, or .sz %zu not in %zu..%zu: set .sz = sizeof(struct unic_napi_conf)",
			 conf ? conf->sz : 0, sizeof(size_t), sizeof(c));
		errno = EINVAL;
		return NULL;
	}
	if (c.mode == UNIC_RX_MODE_DEFAULT)
		c.mode = UNIC_RX_MODE_HYBRID;
	if ((unsigned)c.mode > UNIC_RX_MODE_HYBRID) {
		UNIC_LOG(ERR, NAPI, "napi context: unknown mode %d; expected UNIC_RX_MODE_HYBRID, _POLL or _INTERRUPT (or 0: hybrid)",
			 (int)c.mode);
		errno = EINVAL;
		return NULL;
	}
	if (c.budget == 0)
		c.budget = UNIC_NAPI_BUDGET_DEFAULT;
	if (c.budget > UNIC_NAPI_BUDGET_MAX) {
		UNIC_LOG(ERR, NAPI, "napi context: budget %u; expected 1..%u packets per round",
			 c.budget, UNIC_NAPI_BUDGET_MAX);
		errno = EINVAL;
		return NULL;
	}
	if ((c.latency_target_us || c.cpu_budget) && c.mode != UNIC_RX_MODE_HYBRID) {
		UNIC_LOG(ERR, NAPI, "napi context: latency_target_us %u and cpu_budget %u are the hybrid mode's adaptive policy; a %s context never decides when to sleep: leave them 0 or use UNIC_RX_MODE_HYBRID",
			 c.latency_target_us, c.cpu_budget, unic_rx_mode_name(c.mode));
		errno = EINVAL;
		return NULL;
	}
	if (c.cpu_budget > 100 || c.latency_target_us > UNIC_NAPI_LATENCY_TARGET_MAX_US) {
		UNIC_LOG(ERR, NAPI, "napi context: cpu_budget %u (expected a percentage of a core, 1..100) or latency_target_us %u (expected 1..%u us) out of range",
			 c.cpu_budget, c.latency_target_us, UNIC_NAPI_LATENCY_TARGET_MAX_US);
		errno = EINVAL;
		return NULL;
	}
	if ((c.latency_target_us || c.cpu_budget) && c.hybrid_idle_us != 0) {
		UNIC_LOG(ERR, NAPI, "napi context: hybrid_idle_us %u is the fixed polling window's; the adaptive policy (latency_target_us %u, cpu_budget %u) replaces it: leave hybrid_idle_us 0, or the adaptive knobs 0 to keep the window",
			 c.hybrid_idle_us, c.latency_target_us, c.cpu_budget);
		errno = EINVAL;
		return NULL;
	}
	if (c.latency_target_us && c.cpu_budget == 0)
		c.cpu_budget = UNIC_NAPI_CPU_BUDGET_DEFAULT;
	if (c.hybrid_empty_polls == 0)
		c.hybrid_empty_polls = UNIC_NAPI_EMPTY_POLLS_DEFAULT;
	if (c.hybrid_idle_us == 0)
		c.hybrid_idle_us = UNIC_NAPI_IDLE_US_DEFAULT;
	if (c.retry_us == 0)
		c.retry_us = UNIC_NAPI_RETRY_US_DEFAULT;
	if (c.max_sleep_ms == 0)
		c.max_sleep_ms = UNIC_NAPI_MAX_SLEEP_MS_DEFAULT;
	if (c.max_queues == 0)
		c.max_queues = UNIC_NAPI_MAX_QUEUES_DEFAULT;
	if (c.inject_size == 0)
		c.inject_size = UNIC_NAPI_INJECT_SIZE_DEFAULT;
	if (c.max_txqs == 0)
		c.max_txqs = c.max_queues;
	if (!unic_is_pow2(c.inject_size) || c.inject_size > 65536 || c.max_queues > 1024 ||
	    c.max_txqs > 1024) {
		UNIC_LOG(ERR, NAPI, "napi context: inject_size %u (a power of two up to 65536), max_queues %u or max_txqs %u (up to 1024) out of range",
			 c.inject_size, c.max_queues, c.max_txqs);
		errno = EINVAL;
		return NULL;
	}

	ctx = aligned_alloc(UNIC_CACHE_LINE_SIZE, UNIC_ALIGN_CEIL(sizeof(*ctx), (size_t)UNIC_CACHE_LINE_SIZE));
	if (ctx == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	memset(ctx, 0, sizeof(*ctx));
	ctx->epfd = -1;
	ctx->wake_fd = -1;
	ctx->timer_fd = -1;
	ctx->refcnt = 1;
	unic_tsc_clock_init(&ctx->clk);
	pthread_mutex_init(&ctx->lock, NULL);
	pthread_cond_init(&ctx->cond, NULL);
	snprintf(ctx->name, sizeof(ctx->name), "%s", c.name ? c.name : "napi");
	c.name = NULL; /* the caller's string: not kept */
	ctx->conf = c;
	ctx->idle_ns = c.hybrid_idle_us == UINT32_MAX ? UINT64_MAX : (uint64_t)c.hybrid_idle_us * 1000;
	ctx->retry_ns = (uint64_t)c.retry_us * 1000;
	ctx->min_empty_polls = c.hybrid_empty_polls == UINT32_MAX ? 0 : c.hybrid_empty_polls;
	ctx->max_sleep_ns = (uint64_t)c.max_sleep_ms * 1000000;
	ctx->adaptive = c.cpu_budget != 0;
	if (ctx->adaptive) {
		ctx->idle_ns = UINT64_MAX; /* the fixed window is off */
		ctx->cpu_budget = c.cpu_budget;
		ctx->target_ns = (uint64_t)c.latency_target_us * 1000;
		ctx->tokens_cap_ns = NAPI_BUDGET_WINDOW_NS / 100 * c.cpu_budget;
		ctx->tokens_ns = ctx->tokens_cap_ns;
		ctx->refill_ns = unic_time_ns();
		ctx->wake_kernel_ns = NAPI_WAKE_KERNEL_SEED_NS;
		ctx->wake_user_ns = NAPI_WAKE_USER_SEED_NS;
		ctx->timer_late_ns = NAPI_TIMER_LATE_SEED_NS;
		ctx->moderate = true; /* for the ports whose switch says adaptive */
	}
	ctx->mod_fixed_want = c.moderation_fixed;

	ctx->qs = aligned_alloc(UNIC_CACHE_LINE_SIZE, sizeof(*ctx->qs) * c.max_queues);
	ctx->srcs = calloc(c.max_queues, sizeof(*ctx->srcs));
	ctx->txqs = calloc(c.max_txqs, sizeof(*ctx->txqs));
	ctx->puts = calloc(c.max_queues + c.max_txqs, sizeof(*ctx->puts));
	if (ctx->qs == NULL || ctx->srcs == NULL || ctx->txqs == NULL || ctx->puts == NULL) {
		err = ENOMEM;
		goto fail;
	}
	memset(ctx->qs, 0, sizeof(*ctx->qs) * c.max_queues);
	for (uint32_t i = 0; i < c.max_queues; i++)
		ctx->qs[i].mod_us = ctx->qs[i].mod_eff_us = -1;
	for (uint32_t i = 0; i < c.max_queues; i++) {
		char rname[UNIC_RING_NAMESIZE];

		snprintf(rname, sizeof(rname), "%.16s_inj%u", ctx->name, i);
		ctx->qs[i].src_idx = -1;
		ctx->qs[i].inj = unic_ring_create(rname, c.inject_size,
						  UNIC_RING_F_SP_ENQ | UNIC_RING_F_SC_DEQ);
		if (ctx->qs[i].inj == NULL) {
			err = errno;
			goto fail;
		}
	}
	ctx->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->wake_fd < 0 || ctx->epfd < 0 ||
	    epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->wake_fd, &ev) != 0) {
		err = errno;
		UNIC_LOG(ERR, NAPI, "%s: eventfd/epoll: %s", ctx->name, strerror(err));
		goto fail;
	}
	/* Every sleep is bounded by max_sleep: a periodic timer in the epoll
	 * set does it once for all, where a timeout on each epoll_pwait2 would
	 * arm and cancel a kernel timer on every sleep (about a tenth of the
	 * context's CPU at 10 000 wakes a second, docs/performance.md).
	 * Read when it fires: a periodic timerfd is re-armed by its read. */
	ctx->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	/* Absolute: its expiries are timer_t0 + k * max_sleep, so a wake by it
	 * measures the kernel's wake-up (the adaptive policy's wake cost). */
	ctx->timer_t0 = unic_time_ns() + ctx->max_sleep_ns;
	if (ctx->timer_fd < 0 ||
	    timerfd_settime(ctx->timer_fd, TFD_TIMER_ABSTIME,
			    &(struct itimerspec){ .it_interval = napi_ts(ctx->max_sleep_ns),
						  .it_value = napi_ts(ctx->timer_t0) },
			    NULL) != 0 ||
	    epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->timer_fd,
		      &(struct epoll_event){ .events = EPOLLIN, .data.ptr = NAPI_TIMER_TAG }) != 0) {
		err = errno;
		UNIC_LOG(ERR, NAPI, "%s: timerfd for max_sleep_ms: %s", ctx->name, strerror(err));
		goto fail;
	}
	UNIC_LOG(DEBUG, NAPI, "%s: created, mode %s, budget %u, adaptive %s (latency target %u us, cpu budget %u%%)",
		 ctx->name, unic_rx_mode_name(c.mode), c.budget, ctx->adaptive ? "on" : "off",
		 c.latency_target_us, c.cpu_budget);
	napi_registry_add(ctx);
	return ctx;
fail:
	napi_ctx_free(ctx);
	errno = err;
	return NULL;
}

const char *unic_napi_ctx_name(const struct unic_napi_ctx *ctx)
{
	return ctx->name;
}

enum unic_rx_mode unic_napi_ctx_mode(const struct unic_napi_ctx *ctx)
{
	return ctx->conf.mode;
}

int unic_napi_hooks_set(struct unic_napi_ctx *ctx, const struct unic_napi_hooks *hooks)
{
	if (hooks == NULL) {
		memset(&ctx->hooks, 0, sizeof(ctx->hooks));
		return 0;
	}
	if (unic_conf_copy(&ctx->hooks, sizeof(ctx->hooks), hooks) < 0) {
		UNIC_LOG(ERR, NAPI, "%s: hooks: .sz %zu not in %zu..%zu: set .sz = sizeof(struct unic_napi_hooks)",
			 ctx->name, hooks->sz, sizeof(size_t), sizeof(ctx->hooks));
		return -EINVAL;
	}
	return 0;
}

void unic_napi_wake(struct unic_napi_ctx *ctx)
{
	uint64_t one = 1;

	/* Fails only when the counter would overflow: readable anyway. */
	if (write(ctx->wake_fd, &one, sizeof(one)) < 0)
		return;
}

/* ---- applying requests -------------------------------------------------------- */

static void napi_defer_put(struct unic_napi_ctx *ctx, struct unic_port *port)
{
	ctx->puts[ctx->nb_puts++] = port;
}

/* Drop the port references collected by napi_apply, outside the lock: the
 * last one frees the port, which may wait for an event callback that takes
 * this context's lock. */
void napi_puts_flush(struct unic_napi_ctx *ctx)
{
	for (;;) {
		struct unic_port *port;

		pthread_mutex_lock(&ctx->lock);
		if (ctx->nb_puts == 0) {
			pthread_mutex_unlock(&ctx->lock);
			return;
		}
		port = ctx->puts[--ctx->nb_puts];
		pthread_mutex_unlock(&ctx->lock);
		unic_port_put(port);
	}
}

static int napi_src_bind(struct unic_napi_ctx *ctx, struct napi_queue *qs, uint16_t slot)
{
	struct napi_src *free_src = NULL, *s = NULL;
	struct epoll_event ev = { .events = EPOLLIN };

	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		struct napi_src *e = &ctx->srcs[i];

		if (e->port == qs->port && e->src.fd == qs->src.fd) {
			s = e;
			break;
		}
		if (e->port == NULL && free_src == NULL)
			free_src = e;
	}
	if (s == NULL) {
		/* Registered once per source: a shared INTx line is one entry. */
		s = free_src;
		if (s == NULL)
			return -ENOSPC;
		ev.data.ptr = s;
		s->edge = qs->src.kind == UNIC_INTR_EVENTFD && qs->src.unmask == NULL;
		if (s->edge)
			ev.events |= EPOLLET;
		if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, qs->src.fd, &ev) != 0)
			return -errno;
		s->src = qs->src;
		s->port = qs->port;
		s->nb_slots = 0;
	}
	if (s->nb_slots >= UNIC_ARRAY_SIZE(s->slots))
		return -ENOSPC;
	s->slots[s->nb_slots++] = slot;
	qs->src_idx = (int)(s - ctx->srcs);
	return 0;
}

static void napi_src_unbind(struct unic_napi_ctx *ctx, struct napi_queue *qs, uint16_t slot)
{
	struct napi_src *s;

	if (qs->src_idx < 0)
		return;
	s = &ctx->srcs[qs->src_idx];
	qs->src_idx = -1;
	for (uint16_t i = 0; i < s->nb_slots; i++) {
		if (s->slots[i] == slot) {
			s->slots[i] = s->slots[--s->nb_slots];
			break;
		}
	}
	if (s->nb_slots == 0) {
		epoll_ctl(ctx->epfd, EPOLL_CTL_DEL, s->src.fd, NULL);
		memset(s, 0, sizeof(*s));
	}
}

static void napi_apply_add(struct unic_napi_ctx *ctx, struct napi_queue *qs, uint16_t slot)
{
	int rc = -ENOTSUP;

	qs->held_n = 0;
	qs->empty_streak = 0;
	qs->backoff = false;
	qs->woken = false;
	qs->last_pkt_ns = unic_time_ns();
	qs->gap_ns = 0;
	qs->gap_dev_ns = 0;
	qs->arrival_ns = 0;
	qs->prev_poll_ns = 0;
	qs->prewake_for = 0;
	qs->in_window = false;
	qs->short_gap = false;
	qs->mod_none = false;
	qs->mod_fixed = qs->mod_fixed_want;
	qs->mod_streak = 0;
	qs->mod_frames = qs->mod_frames_eff = 0;
	qs->mod_pkts = 0; /* its counters restart at the add */
	__atomic_store_n(&qs->mod_us, -1, __ATOMIC_RELAXED);
	__atomic_store_n(&qs->mod_eff_us, -1, __ATOMIC_RELAXED);
	/* A poll context never waits on its epoll set: a source in it would
	 * only make the kernel run the epoll wake-up on every doorbell (for a
	 * socket, on every receive flush, on the CPU that delivers). */
	if (qs->has_src && ctx->conf.mode != UNIC_RX_MODE_POLL)
		rc = napi_src_bind(ctx, qs, slot);
	if (rc == 0 || ctx->conf.mode == UNIC_RX_MODE_POLL) {
		qs->state = NAPI_Q_ACTIVE;
	} else {
		/* Degrade, don't fail: polled, and the context stays awake. */
		qs->state = NAPI_Q_POLL_ONLY;
		unic_counter_add(&qs->cnt.arm_failures, 1);
		if (qs->has_src)
			UNIC_LOG(WARNING, NAPI, "%s: %s rx queue %u: cannot watch its interrupt source (fd %d): %s; the queue is polled and the context will not sleep",
				 ctx->name, unic_port_name(qs->port), qs->q, qs->src.fd, strerror(-rc));
	}
	if ((uint32_t)slot + 1u > ctx->nb_slots)
		unic_store_release(&ctx->nb_slots, (uint32_t)slot + 1u);
	/* Release: an injector that sees inj_live sees port and q. */
	unic_store_release(&qs->inj_live, 1);
}

static void napi_apply_remove(struct unic_napi_ctx *ctx, struct napi_queue *qs, uint16_t slot)
{
	struct unic_pkt *pkts[64];
	uint64_t dropped = 0;
	unsigned spins = 0;
	uint32_t n;

	if (qs->state == NAPI_Q_ARMED)
		unic_rx_intr_disable(qs->port, qs->q);
	napi_src_unbind(ctx, qs, slot);
	unic_store_relaxed(&qs->inj_live, 0);
	unic_smp_mb(); /* (I2): pairs with (I1) in unic_napi_inject */
	while (unic_load_acquire(&qs->inj_busy)) {
		if (++spins < 1000)
			unic_pause();
		else
			sched_yield(); /* the injector was preempted mid-call */
	}
	while ((n = unic_ring_sc_dequeue_burst(qs->inj, (void **)pkts, UNIC_ARRAY_SIZE(pkts))) > 0) {
		unic_pkt_free_bulk(pkts, n);
		dropped += n;
	}
	if (qs->held_n) {
		unic_pkt_free_bulk(qs->held, qs->held_n);
		dropped += qs->held_n;
		qs->held_n = 0;
	}
	unic_counter_add(&qs->cnt.dropped, dropped);
	qs->state = NAPI_Q_OFF;
	qs->woken = false;
	qs->backoff = false;
	/* The claim: ours to drop, unless the port took it back (then its
	 * release is running or ran, and drops the context reference). */
	if (unic_port_poller_drop(qs->port, false, qs->q, ctx) == 0)
		__atomic_fetch_sub(&ctx->refcnt, 1, __ATOMIC_RELEASE); /* never the last: see destroy */
	napi_defer_put(ctx, qs->port);
	unic_store_relaxed(&qs->port, NULL);
	qs->handler = NULL;
}

/*
 * The moderation switch (unic_napi_moderation_set) taken into force: the
 * policy's state of a slot is the ctx thread's, changed here where the
 * context is at a boundary. Back to adaptive, the policy forgets what it
 * last wrote (someone else may have written since): its next decision
 * writes what it wants at once, and a port it found without moderation
 * is asked again. To fixed, the rest stays: a sleep bound for a frame
 * count the policy set stays while the device may still have that count.
 */
static void napi_apply_moderation(struct unic_napi_ctx *ctx)
{
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		struct napi_queue *qs = &ctx->qs[i];

		if (qs->port == NULL || qs->mod_fixed == qs->mod_fixed_want)
			continue;
		qs->mod_fixed = qs->mod_fixed_want;
		if (qs->mod_fixed)
			continue;
		qs->mod_none = false;
		qs->mod_streak = 0;
		__atomic_store_n(&qs->mod_us, -1, __ATOMIC_RELAXED);
	}
}

/* Carry out every pending request. Lock held; the context is inside no
 * fast-path call (round boundary, offline, or its own handler). */
void napi_apply(struct unic_napi_ctx *ctx)
{
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		struct napi_queue *qs = &ctx->qs[i];

		if (qs->req == NAPI_REQ_ADD)
			napi_apply_add(ctx, qs, (uint16_t)i);
		else if (qs->req == NAPI_REQ_REMOVE && qs->port != NULL)
			napi_apply_remove(ctx, qs, (uint16_t)i);
		qs->req = NAPI_REQ_NONE;
	}
	for (uint32_t i = 0; i < ctx->conf.max_txqs; i++) {
		struct napi_txq *t = &ctx->txqs[i];

		if (t->req == NAPI_REQ_ADD) {
			t->live = true;
			if (i + 1 > ctx->nb_txqs)
				unic_store_relaxed(&ctx->nb_txqs, i + 1);
		} else if (t->req == NAPI_REQ_REMOVE && t->port != NULL) {
			t->live = false;
			if (unic_port_poller_drop(t->port, true, t->q, ctx) == 0)
				__atomic_fetch_sub(&ctx->refcnt, 1, __ATOMIC_RELEASE);
			napi_defer_put(ctx, t->port);
			t->port = NULL;
		}
		t->req = NAPI_REQ_NONE;
	}
	napi_apply_moderation(ctx);
	/* (R3): release, pairs with the acquire in napi_check_requests: a
	 * context that comes online after a requester applied its own request
	 * sees what the apply did (and what the requester did before, such as
	 * a port's stubs). */
	unic_store_release(&ctx->done_seq, unic_load_relaxed(&ctx->req_seq));
	pthread_cond_broadcast(&ctx->cond);
}

/* The ctx thread, at a round boundary. */
void napi_check_requests(struct unic_napi_ctx *ctx)
{
	/* (R3): acquire, so a request that a requester applied itself while
	 * the context was offline is seen whole by the round that follows. */
	if (UNIC_LIKELY(unic_load_relaxed(&ctx->req_seq) == unic_load_acquire(&ctx->done_seq)))
		return;
	pthread_mutex_lock(&ctx->lock);
	napi_apply(ctx);
	pthread_mutex_unlock(&ctx->lock);
	napi_puts_flush(ctx);
}

/*
 * Post the requests set in the slots and wait until they are applied. Lock
 * held (cond_wait drops it while waiting).
 */
static void napi_post_and_wait(struct unic_napi_ctx *ctx)
{
	uint32_t seq = unic_load_relaxed(&ctx->req_seq) + 1;

	unic_store_relaxed(&ctx->req_seq, seq);
	unic_smp_mb(); /* (R1): pairs with (R2) in unic_napi_run_once */
	/* (R3): acquire, pairs with the release of online at the end of
	 * run_once: applying here, we see everything the last round wrote. */
	if (!unic_load_acquire(&ctx->online) ||
	    pthread_equal(__atomic_load_n(&ctx->thread, __ATOMIC_RELAXED), pthread_self())) {
		/* Offline, or we are the ctx thread inside a handler or hook:
		 * no fast-path call is under way. */
		napi_apply(ctx);
		return;
	}
	unic_napi_wake(ctx);
	while ((int32_t)(unic_load_relaxed(&ctx->done_seq) - seq) < 0)
		pthread_cond_wait(&ctx->cond, &ctx->lock);
}

/* ---- membership ----------------------------------------------------------------- */

/* Counter names, in the order of the stats structs (xstats: napi_xstats
 * below, and the port's, "napi_rx_q<q>_<name>"). */
static const char *const ctx_xstat_names[] = {
	"rounds", "polls", "empty_polls", "packets", "refused", "injected", "dropped", "arms",
	"arm_failures", "rechecks_caught", "interrupts", "wakeups", "sleeps", "asleep_ns",
	"sleeps_retry", "tx_reclaimed", "cpu_ns", "wake_latency_samples", "busy_polls_kept",
	"sleeps_avoided", "busy_wait_ns", "budget_arms", "prewakes", "target_met", "target_missed",
	"target_early", "target_late_wake", "target_after_window", "target_no_window",
	"est_wake_ns", "est_gap_ns", "budget_left_ns", "moderation_set",
};
#define NAPI_QNAME(name) #name,
static const char *const q_xstat_names[] = { NAPI_QCOUNTERS(NAPI_QNAME) };

/* Add a queue's counters @p c to @p sum; with @p restart, restart them at 0
 * (lock held, the slot free: nobody counts into it). */
static void napi_qcounters_take(struct unic_napi_queue_stats *sum, struct napi_qcounters *c,
				bool restart)
{
#define NAPI_QTAKE(name)                                   \
	sum->name += unic_counter_read(&c->name);          \
	if (restart)                                       \
		unic_counter_set(&c->name, 0);
	NAPI_QCOUNTERS(NAPI_QTAKE)
#undef NAPI_QTAKE
}


static struct napi_queue *napi_find(struct unic_napi_ctx *ctx, const struct unic_port *port,
				    uint16_t q)
{
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		struct napi_queue *qs = &ctx->qs[i];

		if (qs->port == port && qs->q == q && qs->req != NAPI_REQ_REMOVE)
			return qs;
	}
	return NULL;
}

/*
 * The port is stopping (or being detached, or lost its device): called by
 * lib/port with no port lock held, after it switched the port's fast path to
 * stubs and took this claim back. Every queue of the port this context
 * holds, rx and tx, leaves in one request: the port is taking them all back
 * anyway, and one round boundary then covers them all (the claims the port
 * has not taken back yet are dropped by the apply, so it does not call us
 * for them). Returns once the context applied it: past its boundary, every
 * burst call the context makes on the port reaches the stubs.
 */
static void napi_port_release(struct unic_port *port, bool tx, uint16_t q, void *owner)
{
	struct unic_napi_ctx *ctx = owner;
	bool found = false;

	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->conf.max_txqs; i++) {
		if (ctx->txqs[i].port == port) {
			ctx->txqs[i].req = NAPI_REQ_REMOVE;
			found = true;
		}
	}
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		if (ctx->qs[i].port == port) {
			ctx->qs[i].req = NAPI_REQ_REMOVE;
			found = true;
		}
	}
	if (found)
		napi_post_and_wait(ctx);
	pthread_mutex_unlock(&ctx->lock);
	napi_puts_flush(ctx);
	UNIC_LOG(DEBUG, NAPI, "%s: %s %s queue %u released (port stopping)", ctx->name,
		 unic_port_name(port), tx ? "tx" : "rx", q);
	napi_ctx_put(ctx); /* the claim's reference */
}

static int napi_claim(struct unic_napi_ctx *ctx, struct unic_port *port, bool tx, uint16_t q,
		      const struct unic_port_poller_stats *xst)
{
	const char *dir = tx ? "tx" : "rx";
	int rc;

	napi_ctx_get(ctx);
	rc = unic_port_poller_claim(port, tx, q, napi_port_release, ctx, xst);
	if (rc == 0)
		return 0;
	napi_ctx_put(ctx);
	switch (rc) {
	case -EEXIST:
		UNIC_LOG(ERR, NAPI, "%s: %s %s queue %u is being removed from this context; add it again after unic_napi_%sremove returns",
			 ctx->name, unic_port_name(port), dir, q, tx ? "txq_" : "queue_");
		break;
	case -EBUSY:
		if (unic_port_state(port) == UNIC_PORT_STARTED)
			UNIC_LOG(ERR, NAPI, "%s: %s %s queue %u is polled by another context (a queue belongs to one context; remove it there first) or the port is being stopped",
				 ctx->name, unic_port_name(port), dir, q);
		break;
	case -EINVAL:
		UNIC_LOG(ERR, NAPI, "%s: %s %s queue %u: the port must be started and the queue configured (%s is %s)",
			 ctx->name, unic_port_name(port), dir, q, unic_port_name(port),
			 unic_port_state_name(unic_port_state(port)));
		break;
	default:
		UNIC_LOG(ERR, NAPI, "%s: %s %s queue %u: %s", ctx->name, unic_port_name(port), dir, q,
			 strerror(-rc));
	}
	return rc;
}

/* The source bound to rx queue q, as the port reports it. @return true if
 * there is one; logs why not (once per add). */
static bool napi_find_source(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q,
			     struct unic_intr_source *out)
{
	struct unic_intr_source src[UNIC_PORT_MAX_QUEUES];
	int n = unic_port_intr_sources(port, src, UNIC_ARRAY_SIZE(src));

	for (int i = 0; i < n && i < (int)UNIC_ARRAY_SIZE(src); i++) {
		if (src[i].queue_mask & (1u << q)) {
			*out = src[i];
			return true;
		}
	}
	if (ctx->conf.mode != UNIC_RX_MODE_POLL)
		UNIC_LOG(NOTICE, NAPI, "%s: %s rx queue %u has no rx interrupt (%s): it stays in poll mode and context %s will not sleep while it holds it",
			 ctx->name, unic_port_name(port), q,
			 n < 0 ? strerror(-n) : "no source binds it", ctx->name);
	return false;
}

int unic_napi_queue_add(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q,
			uint16_t weight, unic_napi_handler_fn handler, void *arg)
{
	struct unic_intr_source src;
	struct napi_queue *qs = NULL;
	bool has_src;
	int rc;

	if (weight == 0 || weight > UNIC_NAPI_WEIGHT_MAX) {
		UNIC_LOG(ERR, NAPI, "%s: %s rx queue %u: weight %u refused: a queue with weight 0 would never be polled; give 1..%u (64 is usual)",
			 ctx->name, unic_port_name(port), q, weight, UNIC_NAPI_WEIGHT_MAX);
		return -EINVAL;
	}
	if (handler == NULL || q >= UNIC_PORT_MAX_QUEUES) {
		UNIC_LOG(ERR, NAPI, "%s: %s rx queue %u: %s", ctx->name, unic_port_name(port), q,
			 handler == NULL ? "a handler is required" : "no such queue");
		return -EINVAL;
	}
	if (unic_port_state(port) == UNIC_PORT_CLOSED || unic_port_state(port) == UNIC_PORT_DETACHED) {
		UNIC_LOG(ERR, NAPI, "%s: %s is %s", ctx->name, unic_port_name(port),
			 unic_port_state_name(unic_port_state(port)));
		return -ENODEV;
	}
	has_src = napi_find_source(ctx, port, q, &src);

	pthread_mutex_lock(&ctx->lock);
	if (napi_find(ctx, port, q) != NULL) {
		UNIC_LOG(ERR, NAPI, "%s: %s rx queue %u is in this context already", ctx->name,
			 unic_port_name(port), q);
		rc = -EEXIST;
		goto unlock;
	}
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		if (ctx->qs[i].port == NULL && ctx->qs[i].req == NAPI_REQ_NONE) {
			qs = &ctx->qs[i];
			break;
		}
	}
	if (qs == NULL) {
		UNIC_LOG(ERR, NAPI, "%s: all %u queue slots are in use; create the context with a larger max_queues",
			 ctx->name, ctx->conf.max_queues);
		rc = -ENOSPC;
		goto unlock;
	}
	/* Zeroed before the claim publishes them through the port's xstats;
	 * the slot is free, so the context thread does not count into it.
	 * What its last queue injected stays in the context's sum. */
	napi_qcounters_take(&ctx->gone, &qs->cnt, true);
	qs->xst = (struct unic_port_poller_stats){
		.prefix = "napi",
		.nb = UNIC_ARRAY_SIZE(q_xstat_names),
		.names = q_xstat_names,
		.values = (const struct unic_counter *)&qs->cnt,
	};
	rc = napi_claim(ctx, port, false, q, &qs->xst);
	if (rc)
		goto unlock;
	unic_port_get(port);
	unic_store_relaxed(&qs->q, q);
	unic_store_relaxed(&qs->port, port);
	qs->weight = weight;
	qs->handler = handler;
	qs->arg = arg;
	qs->has_src = has_src;
	if (has_src)
		qs->src = src;
	qs->src_idx = -1;
	/* The moderation switch is a port's: as its other queues here have it. */
	qs->mod_fixed_want = ctx->mod_fixed_want;
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		const struct napi_queue *o = &ctx->qs[i];

		if (o != qs && o->port == port && o->req != NAPI_REQ_REMOVE) {
			qs->mod_fixed_want = o->mod_fixed_want;
			break;
		}
	}
	qs->req = NAPI_REQ_ADD;
	napi_post_and_wait(ctx);
unlock:
	pthread_mutex_unlock(&ctx->lock);
	napi_puts_flush(ctx);
	return rc;
}

int unic_napi_queue_remove(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q)
{
	struct napi_queue *qs;
	int rc = 0;

	pthread_mutex_lock(&ctx->lock);
	qs = napi_find(ctx, port, q);
	if (qs == NULL)
		rc = -ENOENT;
	else if (qs->req == NAPI_REQ_ADD)
		qs->req = NAPI_REQ_REMOVE; /* never applied: removed as it is added */
	else
		qs->req = NAPI_REQ_REMOVE;
	if (rc == 0)
		napi_post_and_wait(ctx);
	pthread_mutex_unlock(&ctx->lock);
	napi_puts_flush(ctx);
	return rc;
}

int unic_napi_moderation_set(struct unic_napi_ctx *ctx, struct unic_port *port, bool fixed)
{
	bool found = port == NULL;

	if (ctx == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	if (port == NULL)
		ctx->mod_fixed_want = fixed;
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		struct napi_queue *qs = &ctx->qs[i];

		if (qs->port == NULL || qs->req == NAPI_REQ_REMOVE || (port != NULL && qs->port != port))
			continue;
		qs->mod_fixed_want = fixed;
		found = true;
	}
	if (!found) {
		pthread_mutex_unlock(&ctx->lock);
		UNIC_LOG(ERR, NAPI, "%s: %s has no rx queue in this context: its moderation is not this context's to switch (add a queue first, or pass no port for the context's default)",
			 ctx->name, unic_port_name(port));
		return -ENOENT;
	}
	/* Taken at the next round boundary, and waited for: after it, no
	 * decision of the policy made under the old switch is still to come. */
	napi_post_and_wait(ctx);
	pthread_mutex_unlock(&ctx->lock);
	napi_puts_flush(ctx);
	UNIC_LOG(DEBUG, NAPI, "%s: %s: moderation %s%s", ctx->name, port ? unic_port_name(port) : "every port",
		 fixed ? "fixed" : "adaptive", ctx->adaptive ? "" : " (no adaptive policy here: nothing changes)");
	return 0;
}

int unic_napi_moderation_get(struct unic_napi_ctx *ctx, struct unic_port *port)
{
	int rc = -ENOENT;

	if (ctx == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	if (port == NULL)
		rc = ctx->mod_fixed_want;
	for (uint32_t i = 0; port != NULL && i < ctx->conf.max_queues; i++) {
		const struct napi_queue *qs = &ctx->qs[i];

		if (qs->port == port && qs->req != NAPI_REQ_REMOVE) {
			rc = qs->mod_fixed_want;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	return rc;
}

int unic_napi_txq_add(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q)
{
	struct napi_txq *t = NULL;
	int rc;

	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->conf.max_txqs; i++) {
		if (ctx->txqs[i].port == port && ctx->txqs[i].q == q &&
		    ctx->txqs[i].req != NAPI_REQ_REMOVE) {
			rc = -EEXIST;
			UNIC_LOG(ERR, NAPI, "%s: %s tx queue %u is in this context already",
				 ctx->name, unic_port_name(port), q);
			goto unlock;
		}
		if (ctx->txqs[i].port == NULL && ctx->txqs[i].req == NAPI_REQ_NONE && t == NULL)
			t = &ctx->txqs[i];
	}
	if (t == NULL) {
		UNIC_LOG(ERR, NAPI, "%s: %s tx queue %u: all %u tx queue slots are in use; create the context with a larger max_txqs",
			 ctx->name, unic_port_name(port), q, ctx->conf.max_txqs);
		rc = -ENOSPC;
		goto unlock;
	}
	rc = napi_claim(ctx, port, true, q, NULL);
	if (rc)
		goto unlock;
	t->port = unic_port_get(port);
	t->q = q;
	t->req = NAPI_REQ_ADD;
	napi_post_and_wait(ctx);
unlock:
	pthread_mutex_unlock(&ctx->lock);
	napi_puts_flush(ctx);
	return rc;
}

int unic_napi_txq_remove(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->conf.max_txqs; i++) {
		if (ctx->txqs[i].port == port && ctx->txqs[i].q == q &&
		    ctx->txqs[i].req != NAPI_REQ_REMOVE) {
			ctx->txqs[i].req = NAPI_REQ_REMOVE;
			rc = 0;
		}
	}
	if (rc == 0)
		napi_post_and_wait(ctx);
	pthread_mutex_unlock(&ctx->lock);
	napi_puts_flush(ctx);
	return rc;
}

void unic_napi_ctx_destroy(struct unic_napi_ctx *ctx)
{
	if (ctx == NULL)
		return;
	if (unic_load_acquire(&ctx->online)) {
		UNIC_LOG(ERR, NAPI, "%s: destroy while the context runs; let unic_napi_run return first",
			 ctx->name);
		return;
	}
	napi_registry_del(ctx);
	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++)
		if (ctx->qs[i].port != NULL || ctx->qs[i].req == NAPI_REQ_ADD)
			ctx->qs[i].req = NAPI_REQ_REMOVE;
	for (uint32_t i = 0; i < ctx->conf.max_txqs; i++)
		if (ctx->txqs[i].port != NULL)
			ctx->txqs[i].req = NAPI_REQ_REMOVE;
	/* Offline: applied here. A claim the port already took back keeps
	 * its reference until its release returns; the memory goes then. */
	napi_post_and_wait(ctx);
	pthread_mutex_unlock(&ctx->lock);
	napi_puts_flush(ctx);
	napi_ctx_put(ctx);
}

/* ---- injection ---------------------------------------------------------------- */

int unic_napi_inject(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q,
		     struct unic_pkt **pkts, uint16_t n)
{
	uint32_t nb = unic_load_acquire(&ctx->nb_slots);

	for (uint32_t i = 0; i < nb; i++) {
		struct napi_queue *qs = &ctx->qs[i];
		uint32_t k;

		if (!unic_load_acquire(&qs->inj_live) || unic_load_relaxed(&qs->port) != port ||
		    unic_load_relaxed(&qs->q) != q)
			continue;
		unic_store_relaxed(&qs->inj_busy, 1);
		unic_smp_mb(); /* (I1): pairs with (I2) in napi_apply_remove */
		if (!unic_load_acquire(&qs->inj_live) || unic_load_relaxed(&qs->port) != port ||
		    unic_load_relaxed(&qs->q) != q) {
			unic_store_release(&qs->inj_busy, 0);
			continue;
		}
		k = unic_ring_sp_enqueue_burst(qs->inj, (void *const *)pkts, n);
		unic_counter_add(&qs->cnt.injected, k);
		if (k > 0) {
			unic_smp_mb(); /* (N1): pairs with (N2) in napi_sleep */
			if (unic_load_relaxed(&ctx->sleeping))
				unic_napi_wake(ctx);
		}
		unic_store_release(&qs->inj_busy, 0);
		return (int)k;
	}
	return -ENOENT;
}

/* ---- metrics ------------------------------------------------------------------ */

/* The ctx thread: refresh its CPU time (a system call; before sleeps and
 * every few thousand rounds). */
void napi_update_cpu(struct unic_napi_ctx *ctx)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		unic_counter_set(&ctx->cnt.cpu_ns,
				 (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
}

int unic_napi_ctx_stats_get(struct unic_napi_ctx *ctx, struct unic_napi_ctx_stats *st)
{
	const struct napi_ctx_counters *c;
	struct unic_napi_queue_stats sum;

	if (ctx == NULL || st == NULL)
		return -EINVAL;
	c = &ctx->cnt;
	/* The queues' counters, summed over every slot and over the queues
	 * that left: under the lock, as a slot's counters restart under it
	 * (unic_napi_queue_add). */
	pthread_mutex_lock(&ctx->lock);
	sum = ctx->gone;
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++)
		napi_qcounters_take(&sum, &ctx->qs[i].cnt, false);
	pthread_mutex_unlock(&ctx->lock);
	*st = (struct unic_napi_ctx_stats){
		.rounds = unic_counter_read(&c->rounds),
		.polls = sum.polls,
		.empty_polls = sum.empty_polls,
		.packets = sum.packets,
		.refused = sum.refused,
		.injected = sum.injected,
		.dropped = sum.dropped,
		.arms = sum.arms,
		.arm_failures = sum.arm_failures,
		.rechecks_caught = sum.rechecks_caught,
		.interrupts = unic_counter_read(&c->interrupts),
		.wakeups = unic_counter_read(&c->wakeups),
		.sleeps = unic_counter_read(&c->sleeps),
		.asleep_ns = unic_counter_read(&c->asleep_ns),
		.sleeps_retry = unic_counter_read(&c->sleeps_retry),
		.tx_reclaimed = unic_counter_read(&c->tx_reclaimed),
		.cpu_ns = unic_counter_read(&c->cpu_ns),
		.wake_latency_samples = unic_counter_read(&c->wake_latency_samples),
		.busy_polls_kept = unic_counter_read(&c->busy_polls_kept),
		.sleeps_avoided = unic_counter_read(&c->sleeps_avoided),
		.busy_wait_ns = unic_counter_read(&c->busy_wait_ns),
		.budget_arms = unic_counter_read(&c->budget_arms),
		.prewakes = unic_counter_read(&c->prewakes),
		.target_met = unic_counter_read(&c->target_met),
		.target_missed = unic_counter_read(&c->target_missed),
		.target_early = unic_counter_read(&c->target_early),
		.target_late_wake = unic_counter_read(&c->target_late_wake),
		.target_after_window = unic_counter_read(&c->target_after_window),
		.target_no_window = unic_counter_read(&c->target_no_window),
		.est_wake_ns = unic_counter_read(&c->est_wake_ns),
		.est_gap_ns = unic_counter_read(&c->est_gap_ns),
		.budget_left_ns = unic_counter_read(&c->budget_left_ns),
		.moderation_set = unic_counter_read(&c->moderation_set),
	};
	for (unsigned i = 0; i < UNIC_NAPI_HIST_BUCKETS; i++)
		st->wake_latency_ns[i] = unic_counter_read(&c->wake_latency_ns[i]);
	return 0;
}

int unic_napi_queue_stats_get(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q,
			      struct unic_napi_queue_stats *st)
{
	int rc = -ENOENT;

	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		struct napi_queue *qs = &ctx->qs[i];

		if (qs->port == port && qs->q == q) {
			memset(st, 0, sizeof(*st));
			napi_qcounters_take(st, &qs->cnt, false);
			rc = 0;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	return rc;
}

int unic_napi_queues_get(struct unic_napi_ctx *ctx, struct unic_napi_queue_info *info,
			 unsigned max)
{
	unsigned n = 0;

	if (ctx == NULL || (info == NULL && max))
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	for (uint32_t i = 0; i < ctx->conf.max_queues; i++) {
		struct napi_queue *qs = &ctx->qs[i];

		if (qs->port == NULL)
			continue;
		if (n < max) {
			memset(&info[n], 0, sizeof(info[n]));
			info[n].port_id = unic_port_id(qs->port);
			snprintf(info[n].port_name, sizeof(info[n].port_name), "%s",
				 unic_port_name(qs->port));
			info[n].q = qs->q;
			info[n].weight = qs->weight;
			info[n].gap_ns = __atomic_load_n(&qs->gap_ns, __ATOMIC_RELAXED);
			info[n].moderation_us = __atomic_load_n(&qs->mod_us, __ATOMIC_RELAXED);
			info[n].moderation_effect_us = __atomic_load_n(&qs->mod_eff_us, __ATOMIC_RELAXED);
			info[n].moderation_fixed = qs->mod_fixed_want; /* unic_napi_moderation_get()'s */
			napi_qcounters_take(&info[n].stats, &qs->cnt, false);
		}
		n++;
	}
	pthread_mutex_unlock(&ctx->lock);
	return (int)n;
}

uint64_t unic_napi_hist_percentile(const uint64_t *hist, unsigned nb, double p)
{
	uint64_t total = 0, seen = 0, want;

	for (unsigned i = 0; i < nb; i++)
		total += hist[i];
	if (total == 0)
		return 0;
	want = (uint64_t)(p * (double)total);
	if (want >= total)
		want = total - 1;
	for (unsigned i = 0; i < nb; i++) {
		seen += hist[i];
		if (seen > want)
			return 2ull << i; /* upper edge of [2^i, 2^(i+1)) */
	}
	return 2ull << (nb - 1);
}

void unic_napi_last_sleep(const struct unic_napi_ctx *ctx, uint64_t *start_ns, uint64_t *end_ns)
{
	*start_ns = ctx->last_sleep_start;
	*end_ns = ctx->last_sleep_end;
}

static_assert(UNIC_ARRAY_SIZE(ctx_xstat_names) ==
	      offsetof(struct unic_napi_ctx_stats, wake_latency_ns) / sizeof(uint64_t),
	      "one name per context counter");
static_assert(UNIC_ARRAY_SIZE(q_xstat_names) <= UNIC_PORT_POLLER_STATS_MAX, "the port publishes them all");
static_assert(UNIC_ARRAY_SIZE(q_xstat_names) == sizeof(struct unic_napi_queue_stats) / sizeof(uint64_t),
	      "one name per queue counter");
/* The port reads a queue's counters as an array (unic_port_poller_stats). */
static_assert(sizeof(struct napi_qcounters) ==
	      UNIC_ARRAY_SIZE(q_xstat_names) * sizeof(struct unic_counter), "counters only");

/* Walk the xstats: names into @p names, values into @p values (either NULL). */
static int napi_xstats(struct unic_napi_ctx *ctx, struct unic_xstat_name *names, uint64_t *values,
		       unsigned max)
{
	struct unic_napi_ctx_stats st;
	unsigned n = 0;

	unic_napi_ctx_stats_get(ctx, &st);
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(ctx_xstat_names); i++, n++) {
		if (n >= max)
			continue;
		if (names)
			snprintf(names[n].name, sizeof(names[n].name), "napi_%s", ctx_xstat_names[i]);
		if (values)
			values[n] = ((const uint64_t *)&st)[i];
	}
	for (unsigned i = 0; i < UNIC_NAPI_HIST_BUCKETS; i++, n++) {
		if (n >= max)
			continue;
		if (names)
			snprintf(names[n].name, sizeof(names[n].name), "napi_wake_latency_lt_%lluns",
				 2ull << i);
		if (values)
			values[n] = st.wake_latency_ns[i];
	}
	pthread_mutex_lock(&ctx->lock);
	for (uint32_t s = 0; s < ctx->conf.max_queues; s++) {
		const struct napi_queue *qs = &ctx->qs[s];

		if (qs->port == NULL)
			continue;
		for (unsigned i = 0; i < UNIC_ARRAY_SIZE(q_xstat_names); i++, n++) {
			if (n >= max)
				continue;
			if (names)
				snprintf(names[n].name, sizeof(names[n].name), "napi_%.24s_q%u_%s",
					 unic_port_name(qs->port), qs->q, q_xstat_names[i]);
			if (values)
				values[n] = unic_counter_read((const struct unic_counter *)&qs->cnt + i);
		}
	}
	pthread_mutex_unlock(&ctx->lock);
	return (int)n;
}

int unic_napi_xstats_names(struct unic_napi_ctx *ctx, struct unic_xstat_name *names, unsigned max)
{
	return napi_xstats(ctx, names, NULL, names ? max : 0);
}

int unic_napi_xstats_get(struct unic_napi_ctx *ctx, uint64_t *values, unsigned max)
{
	return napi_xstats(ctx, NULL, values, values ? max : 0);
}
