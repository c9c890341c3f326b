/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The napi engine's fast path: a round over the queues under a budget, the
 * arm / re-check / sleep sequence, and the wake. docs/napi.md draws the
 * state machine; napi_priv.h lists the fences.
 *
 * No locks (but a request's lock at a round boundary, when one is pending),
 * no heap, no logs above debug.
 */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/pool.h>

#include "napi_priv.h"

/* Refresh the thread's CPU time every this many rounds while busy. */
#define NAPI_CPU_ROUNDS 4096

static inline bool napi_inj_pending(const struct napi_queue *qs)
{
	return !unic_ring_empty(qs->inj);
}

static inline void napi_latency(struct unic_napi_ctx *ctx, uint64_t ns)
{
	unsigned b = ns ? 63u - (unsigned)__builtin_clzll(ns) : 0;

	if (b >= UNIC_NAPI_HIST_BUCKETS)
		b = UNIC_NAPI_HIST_BUCKETS - 1;
	unic_counter_add(&ctx->cnt.wake_latency_ns[b], 1);
	unic_counter_add(&ctx->cnt.wake_latency_samples, 1);
}

/*
 * Poll one queue for at most @p quota packets: first those its handler
 * refused last time, then injected ones, then the rx ring. Hand them to the
 * handler. @return how many were handed over.
 */
static uint16_t napi_poll_queue(struct unic_napi_ctx *ctx, struct napi_queue *qs, uint16_t quota,
				uint64_t now)
{
	struct unic_pkt *batch[UNIC_NAPI_WEIGHT_MAX];
	uint16_t n = 0, rx = 0, inj = 0, c;

	if (qs->held_n) {
		n = UNIC_MIN(qs->held_n, quota);
		memcpy(batch, qs->held, n * sizeof(batch[0]));
		qs->held_n = (uint16_t)(qs->held_n - n);
		if (qs->held_n)
			memmove(qs->held, qs->held + n, qs->held_n * sizeof(qs->held[0]));
	}
	if (n < quota && napi_inj_pending(qs)) {
		inj = (uint16_t)unic_ring_sc_dequeue_burst(qs->inj, (void **)(batch + n),
							   (uint32_t)(quota - n));
		n = (uint16_t)(n + inj);
	}
	if (n < quota) {
		rx = unic_rx_burst(qs->port, qs->q, batch + n, (uint16_t)(quota - n));
		n = (uint16_t)(n + rx);
		unic_counter_add(&qs->cnt.polls, 1);
		if (rx == 0) {
			unic_counter_add(&qs->cnt.empty_polls, 1);
		}
	}
	if (rx == 0 && inj == 0) {
		qs->empty_streak++;
	} else {
		qs->empty_streak = 0;
		qs->last_pkt_ns = now;
		ctx->last_pkt_ns = now;
	}
	if (n == 0) {
		qs->woken = false; /* a wake that found nothing: no latency sample */
		qs->backoff = false;
		return 0;
	}
	if (qs->woken) {
		/* Interrupt source readable -> first packet handed over. */
		napi_latency(ctx, unic_time_ns() - qs->wake_ns);
		qs->woken = false;
	}
	c = qs->handler(qs->port, qs->q, batch, n, qs->arg);
	if (c > n)
		c = n;
	unic_counter_add(&qs->cnt.packets, c);
	qs->backoff = c < n;
	if (c < n) {
		uint16_t left = (uint16_t)(n - c);

		unic_counter_add(&qs->cnt.refused, left);
		if (qs->state == NAPI_Q_OFF) {
			/* The handler removed its own queue. */
			unic_pkt_free_bulk(batch + c, left);
			unic_counter_add(&qs->cnt.dropped, left);
		} else {
			/* Back in front of what is still held, in order. */
			if (qs->held_n)
				memmove(qs->held + left, qs->held, qs->held_n * sizeof(qs->held[0]));
			memcpy(qs->held, batch + c, left * sizeof(batch[0]));
			qs->held_n = (uint16_t)(qs->held_n + left);
		}
	}
	return n;
}

/*
 * A poll came back short with nothing refused. Arm the interrupt if the mode
 * says so, then re-check: a packet that landed between the poll and the arm
 * did not ring (the interrupt was off) and must not wait for the next one.
 */
static void napi_complete(struct unic_napi_ctx *ctx, struct napi_queue *qs, uint64_t now)
{
	int rc;

	if (qs->state != NAPI_Q_ACTIVE)
		return;
	switch (ctx->conf.mode) {
	case UNIC_RX_MODE_DEFAULT: /* resolved to hybrid at creation; not reached */
	case UNIC_RX_MODE_POLL:
		return;
	case UNIC_RX_MODE_HYBRID:
		/* N empty polls, then as long as the adaptive window says
		 * (0 after long sleeps, up to T when wakes come quickly). */
		if (qs->empty_streak < ctx->min_empty_polls || now - qs->last_pkt_ns < ctx->poll_window_ns)
			return;
		break;
	case UNIC_RX_MODE_INTERRUPT:
		break;
	}
	if (ctx->hooks.pre_arm) {
		ctx->hooks.pre_arm(ctx, qs->port, qs->q, ctx->hooks.arg);
		if (qs->state != NAPI_Q_ACTIVE)
			return; /* removed by the hook */
	}
	/* The driver stores "enabled" and fences, (D2) in pmd/ring: the load of
	 * the ring below is ordered after it, pairing with the sender's (D1). */
	rc = unic_rx_intr_enable(qs->port, qs->q);
	if (UNIC_UNLIKELY(rc == -ENETDOWN))
		return; /* the port is stopping: its release comes at our boundary */
	if (UNIC_UNLIKELY(rc < 0)) {
		qs->state = NAPI_Q_POLL_ONLY;
		unic_counter_add(&qs->cnt.arm_failures, 1);
		UNIC_LOG_DP(DEBUG, NAPI, "%s: arming %s rx %u failed (%d): polling it", ctx->name,
			    unic_port_name(qs->port), qs->q, rc);
		return;
	}
	if (unic_rx_pending(qs->port, qs->q) || napi_inj_pending(qs)) {
		unic_rx_intr_disable(qs->port, qs->q);
		unic_counter_add(&qs->cnt.rechecks_caught, 1);
		return;
	}
	qs->state = NAPI_Q_ARMED;
	unic_counter_add(&qs->cnt.arms, 1);
}

/* Has the queue anything to hand over: refused, injected or received? */
static inline bool napi_has_work(const struct napi_queue *qs)
{
	return qs->state != NAPI_Q_OFF &&
	       (qs->held_n || napi_inj_pending(qs) || unic_rx_pending(qs->port, qs->q));
}

/*
 * How many queues not yet visited this round (@p round) have work. Only
 * asked when a queue's quota would take the whole budget left.
 */
static uint32_t napi_waiting(const struct unic_napi_ctx *ctx, uint32_t n, uint64_t round)
{
	uint32_t w = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct napi_queue *qs = &ctx->qs[i];

		w += qs->seen_round != round && napi_has_work(qs);
	}
	return w;
}

/*
 * One round, in two passes over the queues in round-robin order: first the
 * light ones (their last poll drained them: trickles, idle queues), then the
 * heavy ones (their last poll took the whole quota). Fairness:
 *  - a light queue is served before any flood, so what it holds when the
 *    round starts is handled in this round;
 *  - a queue whose quota would take all the budget left shares it with the
 *    queues still waiting that have work (an equal part each), so a flood
 *    that comes first cannot starve them either;
 *  - the queue that used up the budget goes last in the next round.
 * @return packets handed to handlers.
 */
static unsigned napi_round(struct unic_napi_ctx *ctx, uint64_t now)
{
	uint32_t n = unic_load_relaxed(&ctx->nb_slots);
	uint32_t start = ctx->rr_start < n ? ctx->rr_start : 0;
	uint32_t next_start = UINT32_MAX;
	uint32_t budget = ctx->conf.budget;
	uint64_t round = unic_counter_read(&ctx->cnt.rounds);
	unsigned handled = 0;

	for (unsigned pass = 0; pass < 2; pass++) {
		for (uint32_t k = 0; k < n; k++) {
			uint32_t i = start + k < n ? start + k : start + k - n;
			struct napi_queue *qs = &ctx->qs[i];
			uint16_t quota, got;

			if (qs->seen_round == round || (pass == 0 && qs->heavy))
				continue;
			qs->seen_round = round;
			if (qs->state == NAPI_Q_OFF)
				continue;
			if (qs->state == NAPI_Q_ARMED) {
				/* Awake anyway: look at armed queues without waiting
				 * for their interrupt (a load, no system call). A
				 * doorbell that rang meanwhile is a spurious wake. */
				if (!unic_rx_pending(qs->port, qs->q) && !napi_inj_pending(qs))
					continue;
				unic_rx_intr_disable(qs->port, qs->q);
				qs->state = NAPI_Q_ACTIVE;
			}
			if (budget == 0)
				continue; /* out of budget: first next round (below) */
			quota = (uint16_t)UNIC_MIN((uint32_t)qs->weight, budget);
			if (UNIC_UNLIKELY(quota == budget) && budget > 1) {
				uint32_t w = napi_waiting(ctx, n, round);

				if (w)
					quota = (uint16_t)UNIC_MAX(budget / (w + 1), 1u);
			}
			got = napi_poll_queue(ctx, qs, quota, now);
			qs->heavy = got == quota; /* it would have taken more */
			budget -= got;
			/* The queue that used up the budget goes last next round,
			 * so the ones it starved this round go first. */
			if (budget == 0 && next_start == UINT32_MAX)
				next_start = i + 1 < n ? i + 1 : 0;
			handled += got;
			if (got < quota && !qs->backoff && qs->held_n == 0)
				napi_complete(ctx, qs, now);
		}
	}
	if (next_start != UINT32_MAX)
		ctx->rr_start = next_start;
	return handled;
}

/* Wake by a source: drain (acknowledge) it, disarm every queue bound to it;
 * they are polled in the next round. Acknowledging before polling means a
 * packet that lands after the polls raises the source again. */
static void napi_source_fired(struct unic_napi_ctx *ctx, struct napi_src *s, uint64_t t_wake)
{
	unic_counter_add(&ctx->cnt.interrupts, 1);
	/* An edge-triggered eventfd was acknowledged by the edge epoll_pwait2
	 * consumed: a write after it is a new edge. Others are read (UIO
	 * and VFIO INTx also unmask); -EAGAIN: a spurious wake. */
	if (!s->edge)
		unic_intr_source_ack(&s->src);
	for (uint16_t i = 0; i < s->nb_slots; i++) {
		struct napi_queue *qs = &ctx->qs[s->slots[i]];

		if (qs->state == NAPI_Q_ARMED) {
			unic_rx_intr_disable(qs->port, qs->q);
			qs->state = NAPI_Q_ACTIVE;
		}
		qs->woken = true;
		qs->wake_ns = t_wake;
		unic_counter_add(&qs->cnt.interrupts, 1);
	}
}

/*
 * Sleep if every queue is armed (or holds refused packets: then at most the
 * retry interval), transmit completions are reclaimed and the application
 * has no work; bounded by its next timer, max_sleep and @p timeout_ns.
 */
static void napi_sleep(struct unic_napi_ctx *ctx, uint64_t timeout_ns)
{
	struct epoll_event evs[NAPI_MAX_EVENTS];
	uint32_t n = unic_load_relaxed(&ctx->nb_slots);
	bool retry = false, reclaimed = false, bounded, woken = false;
	uint64_t now, t_wake;
	struct timespec ts;
	int nev;

	if (ctx->conf.mode == UNIC_RX_MODE_POLL || timeout_ns == 0)
		return;
	for (uint32_t i = 0; i < n; i++) {
		const struct napi_queue *qs = &ctx->qs[i];

		if (qs->state == NAPI_Q_ACTIVE) {
			if (!qs->backoff)
				return;
			retry = true;
		} else if (qs->state == NAPI_Q_POLL_ONLY) {
			return;
		}
	}
	for (uint32_t i = 0, nt = unic_load_relaxed(&ctx->nb_txqs); i < nt; i++) {
		int r;

		if (!ctx->txqs[i].live)
			continue;
		r = unic_tx_reclaim(ctx->txqs[i].port, ctx->txqs[i].q);
		if (r > 0) {
			unic_counter_add(&ctx->cnt.tx_reclaimed, (uint64_t)r);
			reclaimed = true;
		}
	}
	if (reclaimed)
		return; /* completions were coming in: look again next round */
	if (ctx->hooks.work_pending && ctx->hooks.work_pending(ctx, ctx->hooks.arg))
		return;
	now = unic_time_ns();
	if (retry && timeout_ns > ctx->retry_ns)
		timeout_ns = ctx->retry_ns;
	if (timeout_ns > ctx->max_sleep_ns)
		timeout_ns = ctx->max_sleep_ns;
	if (ctx->hooks.next_deadline) {
		uint64_t d = ctx->hooks.next_deadline(ctx, ctx->hooks.arg);

		if (d <= now)
			return;
		if (d - now < timeout_ns)
			timeout_ns = d - now;
	}

	unic_store_relaxed(&ctx->sleeping, 1);
	unic_smp_mb(); /* (N2): pairs with (N1) in unic_napi_inject */
	for (uint32_t i = 0; i < n; i++) {
		if (ctx->qs[i].state != NAPI_Q_OFF && napi_inj_pending(&ctx->qs[i])) {
			unic_store_relaxed(&ctx->sleeping, 0);
			return;
		}
	}
	if (unic_load_relaxed(&ctx->req_seq) != unic_load_relaxed(&ctx->done_seq)) {
		unic_store_relaxed(&ctx->sleeping, 0);
		return; /* a request waits for our round boundary */
	}
	if (now - ctx->cpu_checked_ns > 1000000) { /* a system call: at most every ms */
		ctx->cpu_checked_ns = now;
		napi_update_cpu(ctx);
	}
	unic_counter_add(&ctx->cnt.sleeps, 1);
	if (retry)
		unic_counter_add(&ctx->cnt.sleeps_retry, 1);
	/* Bounded by max_sleep alone: the periodic timer in the epoll set ends
	 * the sleep, no timeout (and so no kernel timer) of its own. */
	bounded = timeout_ns < ctx->max_sleep_ns;
	ts = napi_ts(timeout_ns);
	nev = epoll_pwait2(ctx->epfd, evs, NAPI_MAX_EVENTS, bounded ? &ts : NULL, NULL);
	if (nev < 0 && errno == ENOSYS) /* before Linux 5.11: milliseconds, rounded up */
		nev = epoll_wait(ctx->epfd, evs, NAPI_MAX_EVENTS,
				 bounded ? (int)((timeout_ns + 999999) / 1000000) : -1);
	t_wake = unic_time_ns(); /* eventfd readable: the wake latency starts here */
	unic_store_relaxed(&ctx->sleeping, 0);
	unic_counter_add(&ctx->cnt.asleep_ns, t_wake - now);
	unic_counter_add(&ctx->cnt.wakeups, 1);
	ctx->last_sleep_start = now;
	ctx->last_sleep_end = t_wake;
	for (int i = 0; i < nev; i++) {
		struct napi_src *s = evs[i].data.ptr;

		if (s == NAPI_TIMER_TAG || s == NULL) {
			uint64_t v;

			/* max_sleep's timer (its read re-arms it), or the wake fd:
			 * injection, a request, unic_napi_wake. */
			woken |= s == NULL;
			if (read(s == NULL ? ctx->wake_fd : ctx->timer_fd, &v, sizeof(v)) < 0) {
				/* EAGAIN: another event already drained it */
			}
			continue;
		}
		woken = true;
		napi_source_fired(ctx, s, t_wake);
	}
	/* Hybrid: polling longer would have saved this sleep only if what
	 * woke us came within T of the last packet (dense traffic): then keep
	 * polling longer next time (fewer interrupts per packet). Otherwise no
	 * window up to T could have bridged the gap and polling is CPU spent
	 * for nothing: shrink it. (Judging by the sleep alone, a window near T
	 * kept itself there under traffic whose gaps were just over T: the
	 * sleep was short because the window was long.) */
	if (ctx->idle_ns != UINT64_MAX) {
		if (woken && t_wake - ctx->last_pkt_ns < ctx->idle_ns)
			ctx->poll_window_ns = UNIC_MIN(ctx->poll_window_ns * 2 + 1000, ctx->idle_ns);
		else
			ctx->poll_window_ns /= 2;
	}
}

int unic_napi_run_once(struct unic_napi_ctx *ctx, int64_t timeout_us)
{
	uint32_t off = 0;
	uint64_t now;
	unsigned handled;

	if (!__atomic_compare_exchange_n(&ctx->online, &off, 1, false, __ATOMIC_SEQ_CST,
					 __ATOMIC_RELAXED))
		return -EBUSY;
	__atomic_store_n(&ctx->thread, pthread_self(), __ATOMIC_RELAXED);
	/* Counted before the fence: a sender that loads `rounds` after its
	 * own fenced enqueue and reads k knows round k+1 will see its packet. */
	unic_counter_add(&ctx->cnt.rounds, 1);
	unic_smp_mb(); /* (R2): pairs with (R1) in napi_post_and_wait */
	napi_check_requests(ctx);

	now = unic_time_ns();
	handled = napi_round(ctx, now);
	if (ctx->hooks.round)
		ctx->hooks.round(ctx, ctx->hooks.arg);
	napi_sleep(ctx, timeout_us < 0 ? UINT64_MAX : (uint64_t)timeout_us * 1000);
	if (UNIC_UNLIKELY(unic_counter_read(&ctx->cnt.rounds) >= ctx->cpu_check_round)) {
		ctx->cpu_check_round = unic_counter_read(&ctx->cnt.rounds) + NAPI_CPU_ROUNDS;
		napi_update_cpu(ctx);
	}

	unic_store_release(&ctx->online, 0);
	unic_smp_mb(); /* (R2) again: a requester that saw us online is served */
	napi_check_requests(ctx);
	return (int)handled;
}

int unic_napi_run(struct unic_napi_ctx *ctx, const bool *stop)
{
	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE)) {
		int rc = unic_napi_run_once(ctx, -1);

		if (rc < 0)
			return rc;
	}
	napi_update_cpu(ctx);
	return 0;
}
