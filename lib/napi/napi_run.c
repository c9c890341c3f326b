/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The napi engine's fast path: a round over the queues under a budget, the
 * arm / re-check / sleep sequence, and the wake. docs/napi.md draws the
 * state machine; napi_priv.h lists the fences.
 *
 * No locks (but a request's lock at a round boundary, when one is pending,
 * and a port's lock when the adaptive policy sets its moderation, at most
 * every 10 ms), no heap, no logs above debug.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/pool.h>
#include <unic/port.h>

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

/* ---- the adaptive policy (docs/napi.md, "The adaptive policy") ---------------- */

/* est += (sample - est) / 2^shift, in unsigned arithmetic. */
static inline uint64_t napi_ewma(uint64_t est, uint64_t sample, unsigned shift)
{
	return sample >= est ? est + ((sample - est) >> shift) : est - ((est - sample) >> shift);
}

/*
 * A cost estimate (the wake-up, a timer's lateness): follows a lower
 * sample at once by half, a higher one by an eighth, and a sample above
 * twice the estimate counts as twice the estimate. A busy machine that
 * keeps the thread off its CPU for a while stretches some wakes by
 * milliseconds; that is the scheduler's doing, not what a wake costs, and
 * an estimate pulled up by it would have the context busy-wait more and
 * make it worse.
 */
static inline uint64_t napi_cost_update(uint64_t est, uint64_t sample)
{
	if (sample < est)
		return napi_ewma(est, sample, 1);
	return napi_ewma(est, UNIC_MIN(sample, 2 * est + 1000), 3);
}

/* What a sleep costs in latency: the kernel's wake-up and our way from
 * epoll's return to the handler. */
static inline uint64_t napi_wake_cost(const struct unic_napi_ctx *ctx)
{
	return ctx->wake_kernel_ns + ctx->wake_user_ns;
}

static bool napi_busy_window(const struct unic_napi_ctx *ctx, const struct napi_queue *qs,
			     uint64_t *from, uint64_t *until);

/*
 * Packets came to a queue in this poll (round time @p now). Estimate when
 * they arrived: now if the queue was being polled (they came after its
 * previous poll), or, after its interrupt woke us, the wake minus the
 * kernel's part of the wake cost. The gap since the last arrival feeds the
 * queue's gap estimate: the time from one poll that finds packets to the
 * next, whatever their number (a burst of 32 every millisecond is a gap
 * of a millisecond: what matters is whether something comes before a
 * wake would), quick to follow denser traffic (1/2), slow to give it up
 * (1/8), so one long silence does not undo it; the window it opens is
 * bounded by the CPU budget anyway. Then the latency target: was it met?
 */
static void napi_adaptive_arrival(struct unic_napi_ctx *ctx, struct napi_queue *qs, uint64_t now)
{
	uint64_t arrival = now, lat, from = 0, until = 0;
	bool window;

	if (qs->woken) {
		arrival = qs->wake_ns - UNIC_MIN(qs->wake_ns, ctx->wake_kernel_ns);
		lat = ctx->wake_kernel_ns + (unic_tsc_clock_ns(&ctx->clk) - qs->wake_ns);
	} else {
		lat = qs->prev_poll_ns ? now - qs->prev_poll_ns : 0;
	}
	if (arrival < qs->arrival_ns)
		arrival = qs->arrival_ns;
	/* Before the estimates move: its window, for the target's misses. */
	window = ctx->target_ns && napi_busy_window(ctx, qs, &from, &until);
	if (qs->arrival_ns) {
		uint64_t g = UNIC_MIN(arrival - qs->arrival_ns, NAPI_GAP_MAX_NS);
		uint64_t est = qs->gap_ns;
		bool catch_up = est > napi_wake_cost(ctx) && g < est / 4;

		if (catch_up && !qs->short_gap) {
			/* Sparse, and one gap far shorter than the estimate
			 * after a regular one: a pacer sending the packet it
			 * owes next to a late one. The arrival moves, the
			 * estimates do not (taken, the gap would halve and
			 * the deviation jump, and the next few packets, on
			 * time, would fall outside the window they open); a
			 * second short gap in a row is denser traffic. */
		} else {
			/* A deviation counts up to 3/4 of the gap: one stall
			 * of the sender (or of this thread) moves the
			 * regularity test by 3/16 of a gap, not shut it for
			 * the next several packets; irregular traffic
			 * deviates that much packet after packet. */
			if (est)
				qs->gap_dev_ns = napi_ewma(qs->gap_dev_ns,
							   UNIC_MIN(g > est ? g - est : est - g, est * 3 / 4), 2);
			est = est == 0 ? g : napi_ewma(est, g, g < est ? 1 : 3);
			__atomic_store_n(&qs->gap_ns, est, __ATOMIC_RELAXED);
		}
		qs->short_gap = catch_up;
	}
	qs->arrival_ns = arrival;
	qs->mod_arrivals++;
	if (qs->in_window) {
		/* Busy-waiting found it: a sleep and a wake saved. */
		unic_counter_add(&ctx->cnt.sleeps_avoided, 1);
		qs->in_window = false;
	}
	if (ctx->target_ns) {
		unic_counter_add(lat <= ctx->target_ns ? &ctx->cnt.target_met : &ctx->cnt.target_missed, 1);
		if (lat > ctx->target_ns && qs->woken)
			unic_counter_add(!window ? &ctx->cnt.target_no_window
				       : arrival < from ? &ctx->cnt.target_early
				       : arrival >= until ? &ctx->cnt.target_after_window
							  : &ctx->cnt.target_late_wake, 1);
	}
}

/*
 * The queue's busy-wait window after its last packet, [*from, *until): the
 * time in which the policy would rather poll than sleep. @return false:
 * none (sleep as soon as the queue is drained).
 *  - dense: the next packet is expected sooner than a wake would take
 *    (gap <= wake cost): poll from the last packet for two gaps, and at
 *    least a wake cost (a sender's jitter of that much costs no sleep);
 *  - sparse, with a latency target a sleep would miss (wake cost >
 *    target), and regular gaps (their mean deviation under a quarter of
 *    the gap): sleep, but poll around the next expected arrival, from a
 *    lead (what a timed wake overshoots, plus our way to the handler,
 *    plus twice the deviation and an eighth of the gap for jitter) before
 *    it to half a gap after (irregular gaps: the packet would seldom come
 *    inside, and the budget would go on waiting for it);
 *  - otherwise none: a sleep costs less than polling, and meets the target.
 * Every window ends within 2 x NAPI_GAP_MAX_NS of the last packet, so a
 * context whose traffic stopped sleeps within that.
 */
static bool napi_busy_window(const struct unic_napi_ctx *ctx, const struct napi_queue *qs,
			     uint64_t *from, uint64_t *until)
{
	uint64_t g = qs->gap_ns, w = napi_wake_cost(ctx), lead;

	if (g == 0 || qs->arrival_ns == 0)
		return false;
	if (g <= w) {
		*from = qs->arrival_ns;
		*until = qs->arrival_ns + UNIC_MAX(2 * g, w);
		return true;
	}
	if (ctx->target_ns && w > ctx->target_ns && qs->gap_dev_ns < g / 4) {
		lead = UNIC_MIN(ctx->timer_late_ns + ctx->wake_user_ns + 2 * qs->gap_dev_ns + g / 8, g);
		*from = qs->arrival_ns + g - lead;
		*until = qs->arrival_ns + g + g / 2;
		return true;
	}
	return false;
}

/*
 * Hybrid, adaptive: after the minimum of empty polls, keep polling the
 * drained queue? Yes inside its busy-wait window while the CPU budget has
 * time left; the rounds spent so are charged to it (napi_budget_tick).
 */
static bool napi_adaptive_keep(struct unic_napi_ctx *ctx, struct napi_queue *qs, uint64_t now)
{
	uint64_t from, until;

	if (!napi_busy_window(ctx, qs, &from, &until) || now < from || now >= until) {
		qs->in_window = false;
		return false;
	}
	if (ctx->tokens_ns == 0) {
		unic_counter_add(&ctx->cnt.budget_arms, 1);
		qs->in_window = false;
		return false;
	}
	unic_counter_add(&ctx->cnt.busy_polls_kept, 1);
	qs->in_window = true;
	ctx->busy_round = true;
	return true;
}

/*
 * At a round's start: refill the budget (cpu_budget percent of the time
 * since the last refill, up to that share of NAPI_BUDGET_WINDOW_NS) and
 * charge it the last round if the policy kept it polling and it handled
 * nothing: from that round's start to this one's, the time of its empty
 * polls.
 */
static void napi_budget_tick(struct unic_napi_ctx *ctx, uint64_t now)
{
	/* refill_ns may come from the kernel's clock (the context's start),
	 * a little ahead of the rounds' clock. */
	uint64_t t = ctx->tokens_ns + (now > ctx->refill_ns ? now - ctx->refill_ns : 0) * ctx->cpu_budget / 100;

	ctx->refill_ns = now;
	if (t > ctx->tokens_cap_ns)
		t = ctx->tokens_cap_ns;
	if (ctx->busy_prev) {
		/* A round of empty polls takes a microsecond or so; longer,
		 * the thread was off its CPU (not our time): charged up to
		 * NAPI_ROUND_CHARGE_MAX_NS. */
		uint64_t busy = UNIC_MIN(now - ctx->prev_round_ns, NAPI_ROUND_CHARGE_MAX_NS);

		unic_counter_add(&ctx->cnt.busy_wait_ns, busy);
		t = t > busy ? t - busy : 0;
	}
	ctx->tokens_ns = t;
	ctx->prev_round_ns = now;
	ctx->busy_round = false;
}

/* The estimates, for the metrics (gauges; before sleeps, and now and then). */
static void napi_adaptive_publish(struct unic_napi_ctx *ctx)
{
	uint32_t n = unic_load_relaxed(&ctx->nb_slots);
	uint64_t gap = 0;

	for (uint32_t i = 0; i < n; i++) {
		const struct napi_queue *qs = &ctx->qs[i];

		if (qs->state != NAPI_Q_OFF && qs->gap_ns && (gap == 0 || qs->gap_ns < gap))
			gap = qs->gap_ns;
	}
	unic_counter_set(&ctx->cnt.est_wake_ns, napi_wake_cost(ctx));
	unic_counter_set(&ctx->cnt.est_gap_ns, gap);
	unic_counter_set(&ctx->cnt.budget_left_ns, ctx->tokens_ns);
}

/*
 * The device's moderation one queue asks for (ns), from the same estimates:
 * how long the device may hold an interrupt back after a packet so that
 * one interrupt serves several. @p cur_ns is what its port has now. The
 * gap is the smaller of the estimate and the mean gap over the last
 * decision's interval (@p span ns: its polls that found packets): one
 * stall of the thread moves the estimate by an eighth of its length, and
 * the mean hardly; with no packet in the interval, the traffic stopped
 * and the gap is at least the interval (a packet after a silence is not
 * held back). The moderation itself stretches the gaps a woken context sees
 * by up to its value, so the comparisons add it to the wake cost, and between
 * "dense" and "sparse" the value is kept (hysteresis):
 *  - dense (gap <= wake cost + moderation): twice the wake cost, at most
 *    NAPI_MOD_MAX_NS: a packet waits at most about two wake-ups more,
 *    and an interrupt serves the packets of that time instead of one;
 *  - sparse (gap > 2 x (wake cost + moderation)): 0: each packet has its
 *    own interrupt anyway, a delay would only add latency;
 *  - with a latency target, never more than the target leaves after a
 *    wake-up (target - wake cost, 0 when a wake alone misses it).
 * @return UINT64_MAX: no opinion (no estimate yet).
 */
static uint64_t napi_mod_want(const struct unic_napi_ctx *ctx, const struct napi_queue *qs,
			      uint64_t cur_ns, uint64_t span)
{
	uint64_t g = qs->gap_ns, w = napi_wake_cost(ctx), want;

	if (g == 0 || qs->arrival_ns == 0)
		return UINT64_MAX;
	if (qs->mod_arrivals == 0)
		g = UNIC_MAX(g, span);
	else
		g = UNIC_MIN(g, span / qs->mod_arrivals);
	if (g <= w + cur_ns)
		want = UNIC_MIN(2 * w, NAPI_MOD_MAX_NS);
	else if (g > 2 * (w + cur_ns))
		want = 0;
	else
		want = cur_ns;
	if (ctx->target_ns)
		want = UNIC_MIN(want, ctx->target_ns > w ? ctx->target_ns - w : 0);
	return want;
}

/* Worth a register write: on <-> off, or a change of more than a quarter. */
static inline bool napi_mod_differs(uint64_t cur_us, uint64_t want_us)
{
	uint64_t d = cur_us > want_us ? cur_us - want_us : want_us - cur_us;

	return (cur_us == 0) != (want_us == 0) || d * 4 > cur_us;
}

/*
 * For a device that counts frames instead of time (virtio's event index:
 * rx_max_frames): the frames that arrive in the moderation time at the
 * rate of the last decision interval, want x @p pkts / @p span (@p pkts:
 * the packets the sparsest of the port's queues with an opinion handed
 * over in it; the gap estimate is per poll that found packets, a burst
 * counting once, so it cannot give a frame rate), at least 1; 0 with no
 * moderation.
 */
static inline uint32_t napi_mod_frames(uint64_t want_ns, uint64_t pkts, uint64_t span)
{
	uint64_t f;

	if (want_ns == 0)
		return 0;
	f = span ? want_ns * UNIC_MIN(pkts, (uint64_t)UINT32_MAX) / span : 1;
	return (uint32_t)UNIC_MAX(UNIC_MIN(f, (uint64_t)UINT16_MAX), 1ull);
}

/*
 * A port whose arms now wait for several frames (read back > 1), or did:
 * disarm its armed queues so that the next round polls them and arms them
 * again with the new count. A queue armed under the old count keeps it
 * until then, and a frame under a lowered count could wait for the next
 * ones without the sleep bound (napi_mod_sleep_bound) that the old one had.
 */
static void napi_mod_rearm(struct unic_napi_ctx *ctx, uint32_t from, uint32_t n, struct unic_port *port)
{
	for (uint32_t j = from; j < n; j++) {
		struct napi_queue *o = &ctx->qs[j];

		if (o->port != port || o->state != NAPI_Q_ARMED)
			continue;
		unic_rx_intr_disable(o->port, o->q);
		o->state = NAPI_Q_ACTIVE;
	}
}

/*
 * Before a sleep: a queue armed to wait for several frames (its port's
 * moderation counts frames, rx_max_frames > 1: virtio) gets no interrupt
 * for a frame until the others come; the device has no timer, so the
 * context keeps the time bound itself: it sleeps at most the port's
 * rx_usecs. A frame under such an arm then waits at most rx_usecs and a
 * wake-up, as under a timer's moderation (the round after the wake looks
 * at armed queues). @return the bound (ns), UINT64_MAX: none.
 */
static uint64_t napi_mod_sleep_bound(const struct unic_napi_ctx *ctx, uint32_t n)
{
	uint64_t b = UINT64_MAX;

	for (uint32_t i = 0; i < n; i++) {
		const struct napi_queue *qs = &ctx->qs[i];
		int64_t us = qs->mod_eff_us;

		if (qs->state != NAPI_Q_ARMED || qs->mod_frames_eff <= 1 || us < 0)
			continue;
		b = UNIC_MIN(b, (uint64_t)UNIC_MAX(us, (int64_t)1) * 1000);
	}
	return b;
}

/*
 * The adaptive policy sets the device's interrupt moderation (rx_usecs,
 * unic_port_coalesce_set: e1000e's EITR) from its estimates, at a round's
 * end and at most every NAPI_MOD_INTERVAL_NS: a control op (the port's
 * lock, a register write), never inside a burst. rx_usecs is the port's,
 * shared by its queues: a port gets the smallest value its queues in the
 * context ask for (a sparse queue with a target is not delayed for a busy
 * one). A port whose driver has no moderation (-ENOTSUP: ring, null,
 * memif, ...), refuses it, or is going (-ENODEV: its queues leave at the
 * next boundary) is not asked again while its queues stay.
 * The port's lock is safe to take here: the port layer never waits for
 * a context while it holds it (a stop releases it around each release).
 */
static void napi_moderate(struct unic_napi_ctx *ctx, uint64_t now)
{
	uint32_t n = unic_load_relaxed(&ctx->nb_slots);
	uint64_t span = now - ctx->mod_checked_ns;
	bool first = ctx->mod_checked_ns == 0;

	ctx->mod_checked_ns = now;
	for (uint32_t i = 0; i < n; i++)
		ctx->qs[i].mod_seen = first; /* the first call starts the interval */
	for (uint32_t i = 0; i < n; i++) {
		struct napi_queue *qs = &ctx->qs[i];
		struct unic_port *port = qs->port;
		int64_t cur = qs->mod_us, eff;
		uint64_t want = UINT64_MAX, w, want_us, pkmin = UINT64_MAX;
		uint32_t frames, eff_frames = 0, old_frames = qs->mod_frames_eff;
		struct unic_coalesce c;
		int rc;

		if (qs->state == NAPI_Q_OFF || qs->mod_seen || qs->mod_none || qs->mod_fixed)
			continue;
		for (uint32_t j = i; j < n; j++) {
			struct napi_queue *o = &ctx->qs[j];

			if (o->port != port || o->state == NAPI_Q_OFF || o->mod_fixed)
				continue;
			o->mod_seen = true;
			w = napi_mod_want(ctx, o, cur > 0 ? (uint64_t)cur * 1000 : 0, span);
			want = UNIC_MIN(want, w);
			if (w != UINT64_MAX)
				pkmin = UNIC_MIN(pkmin, unic_counter_read(&o->cnt.packets) - o->mod_pkts);
		}
		if (want == UINT64_MAX)
			continue;
		want_us = want / 1000;
		frames = napi_mod_frames(want_us * 1000, pkmin, span);
		/* A counting port's frames are rewritten when the count
		 * they would be doubles or halves (the rate of one interval
		 * moves by more than a quarter all the time).
		 * No toggling: a value in force is changed only when
		 * NAPI_MOD_CONFIRM decisions in a row (30 ms) want another
		 * one. A sender that stalls for a decision interval or two
		 * and comes back (pktgen's stalls, bursts with short
		 * silences) keeps the moderation it had; traffic that
		 * really stopped loses it 30 ms later. The first value is
		 * written at once. */
		if (cur >= 0 && !napi_mod_differs((uint64_t)cur, want_us) &&
		    !(want_us && qs->mod_frames_eff > 1 &&
		      (frames > 2 * qs->mod_frames || 2 * frames < qs->mod_frames))) {
			qs->mod_streak = 0;
			continue;
		}
		if (cur >= 0 && ++qs->mod_streak < NAPI_MOD_CONFIRM)
			continue;
		qs->mod_streak = 0;
		/* Keep the transmit side's setting as it is. */
		rc = unic_port_coalesce_get(port, &c);
		if (rc == 0) {
			c.rx_usecs = (uint32_t)want_us;
			c.rx_max_frames = frames;
			rc = unic_port_coalesce_set(port, &c);
		}
		/* What the device took (it may round, or have a floor). */
		eff = -1;
		if (rc == 0 && unic_port_coalesce_get(port, &c) == 0) {
			eff = (int64_t)c.rx_usecs;
			eff_frames = c.rx_max_frames;
		}
		for (uint32_t j = i; j < n; j++) {
			struct napi_queue *o = &ctx->qs[j];

			if (o->port != port || o->state == NAPI_Q_OFF)
				continue;
			if (rc == 0) {
				__atomic_store_n(&o->mod_us, (int64_t)want_us, __ATOMIC_RELAXED);
				__atomic_store_n(&o->mod_eff_us, eff, __ATOMIC_RELAXED);
				o->mod_frames = frames;
				o->mod_frames_eff = eff_frames;
			} else {
				o->mod_none = true; /* not asked again (no log every 10 ms) */
			}
		}
		if (rc == 0 && (old_frames > 1 || eff_frames > 1))
			napi_mod_rearm(ctx, i, n, port);
		if (rc == 0)
			unic_counter_add(&ctx->cnt.moderation_set, 1);
		else
			UNIC_LOG_DP(DEBUG, NAPI, "%s: %s: rx_usecs %" PRIu64 " not set (%d): %s", ctx->name,
				    unic_port_name(port), want_us, rc,
				    rc == -ENODEV ? "the port is going" : "its moderation is left alone");
	}
	for (uint32_t i = 0; i < n; i++) {
		ctx->qs[i].mod_arrivals = 0;
		ctx->qs[i].mod_pkts = unic_counter_read(&ctx->qs[i].cnt.packets);
	}
}

/*
 * Before a sleep: the earliest start of an armed queue's busy-wait window
 * that is still ahead (one pre-wake per gap, only with budget left), or 0.
 */
static uint64_t napi_prewake_at(struct unic_napi_ctx *ctx, uint32_t n, uint64_t now)
{
	uint64_t at = 0, from, until;

	if (ctx->target_ns == 0 || ctx->tokens_ns == 0)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		const struct napi_queue *qs = &ctx->qs[i];

		if (qs->state != NAPI_Q_ARMED || qs->prewake_for == qs->arrival_ns ||
		    !napi_busy_window(ctx, qs, &from, &until) || from <= now)
			continue;
		if (at == 0 || from < at)
			at = from;
	}
	return at;
}

/* After a sleep the pre-wake ended: disarm the queues whose window is
 * open, so the rounds poll them. */
static void napi_prewake(struct unic_napi_ctx *ctx, uint32_t n, uint64_t t)
{
	bool any = false;
	uint64_t from, until;

	for (uint32_t i = 0; i < n; i++) {
		struct napi_queue *qs = &ctx->qs[i];

		if (qs->state != NAPI_Q_ARMED || qs->prewake_for == qs->arrival_ns ||
		    !napi_busy_window(ctx, qs, &from, &until) || t < from || t >= until)
			continue;
		qs->prewake_for = qs->arrival_ns;
		unic_rx_intr_disable(qs->port, qs->q);
		qs->state = NAPI_Q_ACTIVE;
		qs->in_window = true; /* a packet found now needed no interrupt */
		any = true;
	}
	if (any)
		unic_counter_add(&ctx->cnt.prewakes, 1);
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
		if (ctx->adaptive)
			napi_adaptive_arrival(ctx, qs, now);
	}
	qs->prev_poll_ns = now;
	if (n == 0) {
		qs->woken = false; /* a wake that found nothing: no latency sample */
		qs->backoff = false;
		return 0;
	}
	if (qs->woken) {
		/* Interrupt source readable -> first packet handed over. */
		uint64_t lat = unic_tsc_clock_ns(&ctx->clk) - qs->wake_ns;

		napi_latency(ctx, lat);
		if (ctx->adaptive)
			ctx->wake_user_ns = napi_cost_update(ctx->wake_user_ns, lat);
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
		if (qs->empty_streak < ctx->min_empty_polls)
			return;
		/* Adaptive: as long as the estimates and the CPU budget say. */
		if (ctx->adaptive) {
			if (napi_adaptive_keep(ctx, qs, now))
				return;
			break;
		}
		/* Else N empty polls, then as long as the window says
		 * (0 after long sleeps, up to T when wakes come quickly). */
		if (now - qs->last_pkt_ns < ctx->poll_window_ns)
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
	bool retry = false, reclaimed = false, bounded, woken = false, timer = false;
	uint64_t now, t_wake, prewake = 0;
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
	now = unic_tsc_clock_ns(&ctx->clk);
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
	if (ctx->adaptive) {
		/* No longer than a frame-counting moderation allows (virtio). */
		timeout_ns = UNIC_MIN(timeout_ns, napi_mod_sleep_bound(ctx, n));
		/* Wake just before a queue's next packet is due (its
		 * busy-wait window), when the latency target needs it. */
		prewake = napi_prewake_at(ctx, n, now);
		if (prewake && prewake - now < timeout_ns)
			timeout_ns = prewake - now;
		else
			prewake = 0;
		napi_adaptive_publish(ctx);
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
	/* eventfd readable: the wake latency starts here. The kernel's clock
	 * (a wake is a system call anyway): the timerfd's expiries are on it. */
	t_wake = unic_tsc_clock_anchor(&ctx->clk, unic_rdtsc());
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
			timer |= s != NULL;
			if (read(s == NULL ? ctx->wake_fd : ctx->timer_fd, &v, sizeof(v)) < 0) {
				/* EAGAIN: another event already drained it */
			}
			continue;
		}
		woken = true;
		napi_source_fired(ctx, s, t_wake);
	}
	if (ctx->adaptive) {
		if (nev == 0 && bounded) {
			/* The timeout ended it: how late (the timer slack and
			 * the wake-up), for the pre-wake's lead. */
			uint64_t due = now + timeout_ns;

			if (t_wake > due && t_wake - due < NAPI_GAP_MAX_NS)
				ctx->timer_late_ns = napi_cost_update(ctx->timer_late_ns, t_wake - due);
		} else if (timer && !woken && t_wake > ctx->timer_t0) {
			/* The periodic timer alone (no slack: a timerfd): its
			 * last expiry -> here is the kernel's wake-up, if it
			 * expired while we slept (not a stale expiry). */
			uint64_t late = (t_wake - ctx->timer_t0) % ctx->max_sleep_ns;

			if (t_wake - late > now && late < NAPI_GAP_MAX_NS)
				ctx->wake_kernel_ns = napi_cost_update(ctx->wake_kernel_ns, late);
		}
		if (prewake && t_wake >= prewake)
			napi_prewake(ctx, n, t_wake);
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

	/* The round's time from the TSC, in every mode: a kernel clock read a
	 * round is not always cheap. In a guest whose clocksource is not the
	 * TSC (QEMU TCG: the kernel marks it unstable and takes the HPET) each
	 * is a system call and an exit into QEMU's device model under its
	 * global lock, the lock the other vCPU's MMIO and the NICs' emulation
	 * need: one a round made a spinning forwarder cost hundreds of
	 * thousands of exits a second (docs/napi.md, "Poll mode in the rig:
	 * the clock"). The TSC clock reads the kernel's about 10 times a
	 * second, and at each wake-up. */
	now = unic_tsc_clock_ns(&ctx->clk);
	if (ctx->adaptive)
		napi_budget_tick(ctx, now);
	handled = napi_round(ctx, now);
	if (ctx->moderate && now - ctx->mod_checked_ns >= NAPI_MOD_INTERVAL_NS)
		napi_moderate(ctx, now);
	if (ctx->hooks.round)
		ctx->hooks.round(ctx, ctx->hooks.arg);
	ctx->busy_prev = ctx->busy_round && handled == 0;
	napi_sleep(ctx, timeout_us < 0 ? UINT64_MAX : (uint64_t)timeout_us * 1000);
	if (UNIC_UNLIKELY(unic_counter_read(&ctx->cnt.rounds) >= ctx->cpu_check_round)) {
		ctx->cpu_check_round = unic_counter_read(&ctx->cnt.rounds) + NAPI_CPU_ROUNDS;
		napi_update_cpu(ctx);
		if (ctx->adaptive)
			napi_adaptive_publish(ctx);
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
