/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The napi engine's objects, shared by napi.c (control: create, add, remove,
 * requests, metrics) and napi_run.c (the rounds and the sleep).
 *
 * Who writes what:
 *
 *   ctx thread   the polling state of every slot (state, held packets,
 *                streaks), the source table's use, the counters. It runs
 *                rounds between run_once entry and exit, flagged by `online`.
 *   ctx->lock    guards membership: which port/queue a slot holds (port, q,
 *                weight, handler, req), the source table, the tx queue
 *                table, req_seq/done_seq. A change is a request (slot->req)
 *                that napi_apply() carries out under the lock, at a point
 *                where the context is inside no fast-path call: at a round
 *                boundary by the ctx thread, or by the requester itself when
 *                the context is offline (not in run_once) or when the
 *                requester is the ctx thread inside a handler or hook.
 *                Fences (R1)/(R2) below make "offline" safe to trust.
 *   injectors    another thread's unic_napi_inject() touches only a slot's
 *                inj ring, inj_busy and its own counter, bracketed by
 *                inj_busy (fences (I1)/(I2)); (N1)/(N2) decide who rings the
 *                wake fd.
 *
 * Fences (all unic_smp_mb):
 *  (R1) requester: req_seq++, fence, load online.
 *  (R2) ctx thread: store online (1 at entry, 0 at exit), fence, load req_seq.
 *       Either the requester sees the context online (and waits for it to
 *       apply at its next boundary), or the context sees the request before
 *       it polls (and applies it first, waiting for the lock if the requester
 *       is applying it itself). A context is never polling a queue that a
 *       requester believes it may release.
 *  (R3) when the requester applies a request itself (the context
 *       offline), the slot state it reads was written by the context's
 *       last round, and the next round reads what it wrote: its load of
 *       online is an acquire (pairs with the release store of online = 0
 *       at the end of run_once), and done_seq is stored with release and
 *       checked at round boundaries with acquire. The fences above order
 *       the flags; they do not carry the slots' contents.
 *  (I1) injector: inj_busy = 1, fence, load inj_live.
 *  (I2) removal: inj_live = 0, fence, load inj_busy (wait until 0), then
 *       drain the ring. As pmd/ring's (B1)/(B2).
 *  (N1) injector: enqueue (release of the ring's tail), fence, load sleeping.
 *  (N2) ctx thread: sleeping = 1, fence, check every injection ring. As
 *       pmd/ring's (D1)/(D2): the injector rings the wake fd or the context
 *       sees the packets and does not sleep.
 */
#ifndef NAPI_PRIV_H
#define NAPI_PRIV_H

#include <pthread.h>
#include <time.h>

#include <unic/cycles.h>
#include <unic/napi.h>
#include <unic/ring.h>
#include <unic/barrier.h>
#include <unic/counter.h>

#include "unic_port_driver.h"

#define NAPI_MAX_EVENTS 32

/* The adaptive policy (napi_run.c, docs/napi.md "The adaptive policy"). */
#define NAPI_BUDGET_WINDOW_NS   100000000ull /* cpu_budget holds over any 100 ms (+ its share) */
#define NAPI_GAP_MAX_NS         10000000ull  /* a gap sample is capped: windows end within 2x this */
#define NAPI_WAKE_KERNEL_SEED_NS 10000ull    /* wake cost estimates before the first samples */
#define NAPI_WAKE_USER_SEED_NS   2000ull
#define NAPI_TIMER_LATE_SEED_NS  60000ull    /* epoll's default timer slack is 50 us */
#define NAPI_ROUND_CHARGE_MAX_NS 100000ull   /* a busy round charged more was preempted */
#define NAPI_MOD_INTERVAL_NS    10000000ull  /* device moderation: decided at most every 10 ms */
#define NAPI_MOD_MAX_NS         250000ull    /* ... and never more than 250 us (4 000 interrupts/s) */
#define NAPI_MOD_CONFIRM        3u           /* ... and changed when that many decisions in a row want it */
/* epoll data of the max_sleep timer (the wake fd's is NULL, a source's its
 * struct napi_src). */
#define NAPI_TIMER_TAG ((void *)&napi_timer_tag)
extern const char napi_timer_tag;

static inline struct timespec napi_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / 1000000000ull),
				  .tv_nsec = (long)(ns % 1000000000ull) };
}

/*
 * A queue's counters, in the order of struct unic_napi_queue_stats (one
 * list, so the struct, the names and the copies cannot disagree). Written by
 * the context's thread (injected: by the queue's injector); the context's
 * totals of these are sums over the queues, made when read.
 */
#define NAPI_QCOUNTERS(X) \
	X(polls) X(empty_polls) X(packets) X(refused) X(injected) X(dropped) \
	X(arms) X(arm_failures) X(rechecks_caught) X(interrupts)

#define NAPI_COUNTER(name) struct unic_counter name;
struct napi_qcounters {
	NAPI_QCOUNTERS(NAPI_COUNTER)
};

/* The context's own counters (its thread's), in the order of struct
 * unic_napi_ctx_stats without the sums over the queues. */
struct napi_ctx_counters {
	struct unic_counter rounds, interrupts, wakeups, sleeps, asleep_ns, sleeps_retry;
	struct unic_counter tx_reclaimed, cpu_ns, wake_latency_samples;
	/* The adaptive policy's, then its estimates (gauges, set by the ctx
	 * thread before each sleep and every NAPI_CPU_ROUNDS rounds). */
	struct unic_counter busy_polls_kept, sleeps_avoided, busy_wait_ns, budget_arms, prewakes;
	struct unic_counter target_met, target_missed, target_early, target_late_wake, target_after_window,
		target_no_window;
	struct unic_counter est_wake_ns, est_gap_ns, budget_left_ns;
	struct unic_counter moderation_set;
	struct unic_counter wake_latency_ns[UNIC_NAPI_HIST_BUCKETS];
};

enum napi_qstate {
	NAPI_Q_OFF = 0,     /* not polled (slot free, or an add not applied yet) */
	NAPI_Q_ACTIVE,      /* polled every round */
	NAPI_Q_ARMED,       /* interrupt armed: peeked, not polled, until it fires */
	NAPI_Q_POLL_ONLY,   /* cannot arm: polled every round, the context never sleeps */
};

enum napi_req {
	NAPI_REQ_NONE = 0,
	NAPI_REQ_ADD,
	NAPI_REQ_REMOVE,
};

/* One interrupt source in the context's epoll set, shared by the queues it
 * wakes (MSI-X: one queue; INTx: all of a port's). */
struct napi_src {
	struct unic_intr_source src;
	struct unic_port *port;      /* NULL: entry free */
	/* An eventfd whose read only clears its counter (MSI-X, MSI, the ring
	 * port's doorbell): registered edge-triggered, and the edge epoll
	 * consumes is its acknowledgment, one read() per wake saved. */
	bool edge;
	uint16_t nb_slots;
	uint16_t slots[UNIC_PORT_MAX_QUEUES];
};

struct napi_queue {
	/* Membership (ctx->lock). port != NULL: the slot holds a port
	 * reference and the port's claim (or the claim was taken back and the
	 * release is under way). */
	struct unic_port *port;      /* atomic: read by injectors */
	uint16_t q;                  /* atomic: read by injectors */
	uint16_t weight;
	uint8_t req;
	bool has_src;
	unic_napi_handler_fn handler;
	void *arg;
	struct unic_intr_source src; /* as the port reported it at add */
	int src_idx;                 /* in ctx->srcs, -1: none */

	/* Polling state: the ctx thread's. */
	uint8_t state;
	bool backoff;                /* the handler refused packets in its last call */
	bool woken;                  /* woken by its source, first packet not yet handed over */
	bool heavy;                  /* its last poll took its whole quota: polled after the light ones */
	uint64_t seen_round;         /* the round that last visited it */
	uint32_t empty_streak;
	uint64_t last_pkt_ns;
	uint64_t wake_ns;
	/* The adaptive policy's (docs/napi.md, "The adaptive policy"). */
	uint64_t gap_ns;             /* EWMA of the gap between its packets; 0: none yet (atomic: read by getters) */
	uint64_t gap_dev_ns;         /* EWMA of |gap - estimate|: how regular the gaps are */
	uint64_t arrival_ns;         /* estimated arrival of its last packet; 0: none yet */
	uint64_t prev_poll_ns;       /* round time of its last poll (a packet found now came after it) */
	uint64_t prewake_for;        /* arrival_ns a pre-wake was taken for (one per gap) */
	bool in_window;              /* the policy kept polling it since its last packet */
	bool short_gap;              /* its last gap was far under the estimate, sparse (napi_adaptive_arrival) */
	bool mod_seen;               /* napi_moderate: its port decided this pass */
	uint32_t mod_arrivals;       /* polls that found packets since napi_moderate's last decision */
	uint32_t mod_streak;         /* decisions in a row that wanted another value for its port */
	uint64_t mod_pkts;           /* cnt.packets at napi_moderate's last decision */
	uint32_t mod_frames;         /* rx_max_frames last set on its port (0: none) */
	uint32_t mod_frames_eff;     /* ... as the port read it back: > 1, its arms wait for that many
				      * frames and no timer (virtio): a sleep is bounded by mod_eff_us */
	bool mod_none;               /* its port has no moderation (coalesce refused): not asked again */
	/* Adaptive or fixed moderation for its port (unic_napi_moderation_set),
	 * in force: napi_apply copies it from mod_fixed_want (below) at a round
	 * boundary; the ctx thread's, as the other mod_ fields. */
	bool mod_fixed;
	int64_t mod_us;              /* rx_usecs last set on its port; -1: none (atomic: read by getters) */
	int64_t mod_eff_us;          /* ... as the port read it back; -1: none (atomic: read by getters) */
	uint16_t held_n;
	struct unic_pkt *held[UNIC_NAPI_WEIGHT_MAX];

	/* Injection (SPSC ring, made at create). */
	struct unic_ring *inj;
	uint32_t inj_live;
	uint32_t inj_busy;
	/* The wanted moderation switch (ctx->lock; the same on every slot of
	 * a port). Not among the polling state's flags: the compiler may read
	 * neighbouring flags the ctx thread tests together in one wider load,
	 * which would take in this byte while a requester writes it. */
	uint32_t mod_fixed_want;

	struct napi_qcounters cnt;
	/* cnt as the port's xstats show it while the queue is claimed
	 * ("napi_rx_q<q>_<counter>"); set at add, before the claim. */
	struct unic_port_poller_stats xst;
} UNIC_CACHE_ALIGNED;

struct napi_txq {
	struct unic_port *port;      /* ctx->lock; NULL: free */
	uint16_t q;
	uint8_t req;
	bool live;                   /* the ctx thread reclaims it */
};

struct unic_napi_ctx {
	/* Read by other threads. */
	uint32_t online;             /* the ctx thread is in run_once */
	uint32_t sleeping;           /* (N2) */
	uint32_t req_seq;            /* under lock; read by the ctx thread */
	uint32_t done_seq;           /* under lock; read by the ctx thread */
	uint32_t refcnt;             /* creator + one per port claim */
	int wake_fd;
	int epfd;
	int timer_fd;                /* periodic, max_sleep: bounds every sleep */
	pthread_t thread;            /* the ctx thread (valid while online) */

	pthread_mutex_t lock;
	pthread_cond_t cond;         /* done_seq moved */

	char name[32];
	uint32_t id;                 /* unic_napi_ctx_id(): from the registry */
	struct unic_napi_ctx *reg_next; /* napi_registry (its lock) */
	struct unic_napi_conf conf;
	struct unic_napi_hooks hooks;
	uint64_t idle_ns, retry_ns, max_sleep_ns;

	uint32_t nb_slots;           /* high-water mark of used slots */
	struct napi_queue *qs;       /* conf.max_queues */
	struct napi_src *srcs;       /* conf.max_queues */
	struct napi_txq *txqs;       /* conf.max_txqs */
	uint32_t nb_txqs;            /* high-water mark of used tx slots (set at apply) */
	struct unic_port **puts;     /* references to drop after unlock (max_queues + max_txqs) */
	unsigned nb_puts;
	/* Under lock: the moderation switch for ports added from now on
	 * (conf.moderation_fixed, unic_napi_moderation_set with no port). */
	uint32_t mod_fixed_want;
	/* What the queues that have left since counted (a slot's counters
	 * restart at the next add): keeps the context's sums from going
	 * back. Under lock. */
	struct unic_napi_queue_stats gone;

	/* The ctx thread's. */
	uint32_t rr_start;
	uint64_t last_sleep_start, last_sleep_end;
	uint64_t cpu_check_round;
	uint64_t cpu_checked_ns;
	/* The rounds' clock: CLOCK_MONOTONIC ns from the TSC, the kernel's
	 * clock read about 10 times a second and at each wake-up
	 * (docs/napi.md, "Poll mode in the rig: the clock"). */
	struct unic_tsc_clock clk;
	uint32_t min_empty_polls;    /* hybrid: N (0 if only the time counts) */
	uint64_t poll_window_ns;     /* hybrid: adaptive, 0..T */
	uint64_t last_pkt_ns;        /* round start of the last poll that found packets */
	/* The adaptive policy (hybrid with latency_target_us or cpu_budget). */
	bool adaptive;
	bool busy_round;             /* this round, the policy kept a drained queue polling */
	bool busy_prev;              /* ... and the last round did, and handled nothing */
	uint32_t cpu_budget;         /* percent of a core for busy-waiting */
	uint64_t target_ns;          /* latency target; 0: none */
	uint64_t wake_kernel_ns;     /* EWMA: timer expiry -> epoll returned (the periodic timerfd) */
	uint64_t wake_user_ns;       /* EWMA: epoll returned -> first packet handed (wake latency) */
	uint64_t timer_late_ns;      /* EWMA: a sleep's timeout -> epoll returned (slack included) */
	uint64_t timer_t0;           /* CLOCK_MONOTONIC ns of the periodic timer's first expiry */
	uint64_t tokens_ns, tokens_cap_ns; /* busy-wait time the budget allows, and its most */
	uint64_t refill_ns;          /* when the tokens were last refilled */
	uint64_t prev_round_ns;      /* start of the last round */
	bool moderate;               /* the policy runs: it sets the rx_usecs of ports whose slots are not mod_fixed */
	uint64_t mod_checked_ns;     /* when napi_moderate last decided */
	struct napi_ctx_counters cnt;
};

/* napi.c */
void napi_apply(struct unic_napi_ctx *ctx);
void napi_puts_flush(struct unic_napi_ctx *ctx);
void napi_check_requests(struct unic_napi_ctx *ctx);
void napi_update_cpu(struct unic_napi_ctx *ctx);

#endif /* NAPI_PRIV_H */
