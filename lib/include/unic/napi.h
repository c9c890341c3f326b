/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The hybrid receive engine (lib/napi): NAPI in userspace.
 *
 * A context owns a set of rx queues and belongs to the one thread that runs
 * it (unic_napi_run_once / unic_napi_run). Each round gives every active
 * queue at most min(weight, budget left) packets and hands them to the
 * queue's handler. A queue whose poll came back short (and whose handler
 * refused nothing) is complete: depending on the mode the engine arms its
 * interrupt, re-checks the ring, and, once every queue is armed, transmit
 * completions are reclaimed and the application has no work pending, sleeps
 * on the queues' interrupt sources. docs/napi.md has the state machine, the
 * race and how it is closed, the knobs and the metrics.
 *
 * Threads: the context's own thread runs rounds and may call every function
 * here, from a handler too. Other threads may call queue add/remove, inject,
 * wake and the metrics getters at any time; add and remove then wait until
 * the context reaches a round boundary (microseconds; a sleeping context is
 * woken). Two context threads must not wait on each other that way.
 *
 * Port teardown: stopping, detaching or losing a port switches its fast
 * path to stubs, then removes its queues from every context that claimed
 * one (rx or tx) and waits for that context's round boundary, and only then
 * stops the driver: no claimant is ever inside a burst call on a port being
 * torn down. A context's handlers may call a port's burst functions only on
 * queues the context claimed (unic_napi_queue_add, unic_napi_txq_add).
 * Claim the queues again after the port is started again.
 *
 * Fast path: no locks held long, no heap allocation, no logs above debug.
 */
#ifndef UNIC_NAPI_H
#define UNIC_NAPI_H

#include <unic/common.h>
#include <unic/pkt.h>
#include <unic/port.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

struct unic_napi_ctx;

/* Defaults for the fields of struct unic_napi_conf left 0. */
#define UNIC_NAPI_BUDGET_DEFAULT      256 /**< budget */
#define UNIC_NAPI_EMPTY_POLLS_DEFAULT 4   /**< hybrid_empty_polls */
#define UNIC_NAPI_IDLE_US_DEFAULT     50  /**< hybrid_idle_us */
#define UNIC_NAPI_RETRY_US_DEFAULT    100 /**< retry_us */
#define UNIC_NAPI_MAX_SLEEP_MS_DEFAULT 100 /**< max_sleep_ms */
#define UNIC_NAPI_MAX_QUEUES_DEFAULT  32  /**< max_queues */
#define UNIC_NAPI_INJECT_SIZE_DEFAULT 256 /**< inject_size */
#define UNIC_NAPI_WEIGHT_MAX          256 /**< largest weight of a queue (unic_napi_queue_add()) */
#define UNIC_NAPI_BUDGET_MAX          65535 /**< largest budget */
#define UNIC_NAPI_CPU_BUDGET_DEFAULT  25  /**< cpu_budget when only latency_target_us is set */
#define UNIC_NAPI_LATENCY_TARGET_MAX_US 1000000 /**< largest latency_target_us (1 s) */

/** Options for unic_napi_ctx_create(). Zero-initialise, then set: 0 means the default. */
struct unic_napi_conf {
	size_t sz;                 /**< sizeof(struct unic_napi_conf) */
	const char *name;          /**< for logs and xstats; NULL: "napi" */
	/** How the queues are served (docs/napi.md): UNIC_RX_MODE_HYBRID,
	 *  _POLL or _INTERRUPT; 0 (UNIC_RX_MODE_DEFAULT): hybrid. */
	enum unic_rx_mode mode;
	uint32_t budget;           /**< packets per round over all queues; 0: 256 */
	/** Hybrid: arm a queue after at least this many empty polls in a row ... */
	uint32_t hybrid_empty_polls;  /**< 0: 4; UINT32_MAX: none (only the time counts) */
	/** ... and, when wakes come less than this after the last packet
	 *  (dense traffic), after up to this long without a packet: the
	 *  polling window doubles (+1 us) on each such wake, halves on any
	 *  other, and never exceeds this. */
	uint32_t hybrid_idle_us;      /**< 0: 50; UINT32_MAX: no window (only the count counts) */
	/** Longest sleep while a handler holds refused packets. */
	uint32_t retry_us;            /**< 0: 100 */
	/** Every sleep is bounded, so a missed wake costs at most this long; a
	 *  timer hook bounds it more. */
	uint32_t max_sleep_ms;        /**< 0: 100 */
	uint32_t max_queues;          /**< rx queue slots; 0: 32 */
	uint32_t inject_size;         /**< per-queue injection ring (power of two); 0: 256 */
	/** tx queue slots (unic_napi_txq_add): one per tx queue the context's
	 *  handlers send on; 0: as many as max_queues. Up to 1024. */
	uint32_t max_txqs;
	/** Hybrid, adaptive policy (docs/napi.md, "The adaptive policy"):
	 *  keep the median latency of a queue's packets under this many us
	 *  when the CPU budget allows (the context busy-waits where a sleep's
	 *  wake-up would take longer, and wakes itself just before a packet
	 *  that arrives regularly). 0: no target. 1..1000000. Setting this or
	 *  cpu_budget turns the adaptive policy on, in place of the fixed
	 *  window (hybrid_idle_us must then be left 0); poll and interrupt
	 *  modes refuse both. */
	uint32_t latency_target_us;
	/** Hybrid, adaptive policy: the percentage of a core (1..100) the
	 *  context may spend busy-waiting on drained queues (empty polls),
	 *  over any 100 ms plus that share of 100 ms. 0: 25 when
	 *  latency_target_us is set, else the adaptive policy is off. */
	uint32_t cpu_budget;
	/** Hybrid, adaptive policy: true leaves the devices' interrupt
	 *  moderation (unic_port_coalesce_set()'s rx_usecs) as the
	 *  application set it. false (default): the policy sets the rx_usecs
	 *  (and rx_max_frames, for a device that counts frames: virtio-net)
	 *  of each port whose queues it polls from its estimates (docs/napi.md,
	 *  "The device's moderation"), at most every 10 ms, and bounds its
	 *  sleeps by rx_usecs while a queue is armed under a frame count.
	 *  The start value of the switch unic_napi_moderation_set() turns
	 *  at run time, per port or for the whole context. */
	bool moderation_fixed;
};

/**
 * Handler of one queue's packets, called in the context's thread.
 * @return how many of pkts[0..n-1] it consumed, from the front (the handler
 * now owns those). The engine keeps pkts[ret..n-1] and hands them back first,
 * in order, next round; a handler that consumed fewer than @p n gets nothing
 * more this round (back-pressure).
 */
typedef uint16_t (*unic_napi_handler_fn)(struct unic_port *port, uint16_t q,
					 struct unic_pkt **pkts, uint16_t n, void *arg);

/**
 * Application hooks, all optional, all called in the context's thread.
 */
struct unic_napi_hooks {
	size_t sz;                 /**< sizeof(struct unic_napi_hooks) */
	/** Once per round, after the queues: the application's own work. */
	void (*round)(struct unic_napi_ctx *ctx, void *arg);
	/** True when the application has work: the context does not sleep. */
	bool (*work_pending)(struct unic_napi_ctx *ctx, void *arg);
	/** CLOCK_MONOTONIC ns of the next application timer, or UINT64_MAX:
	 *  no sleep lasts past it. */
	uint64_t (*next_deadline)(struct unic_napi_ctx *ctx, void *arg);
	/** After a drained poll, just before the queue's interrupt is armed
	 *  (tests, tracing). */
	void (*pre_arm)(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q, void *arg);
	void *arg;                 /**< last argument of every hook */
};

/**
 * Create a context. @return it, or NULL with errno EINVAL (sz unset, unknown
 * mode, budget or inject_size out of range; latency_target_us or cpu_budget
 * out of range, set in a mode other than hybrid, or set with
 * hybrid_idle_us: the log says which), ENOMEM, or epoll/eventfd/timerfd's
 * errno.
 */
struct unic_napi_ctx *unic_napi_ctx_create(const struct unic_napi_conf *conf);

/**
 * Remove every queue (as unic_napi_queue_remove) and free the context.
 * Not from inside a round. NULL is accepted.
 */
void unic_napi_ctx_destroy(struct unic_napi_ctx *ctx);

/** The context's name (conf name, or "napi"). */
const char *unic_napi_ctx_name(const struct unic_napi_ctx *ctx);
/** The context's mode: hybrid, poll or interrupt (never UNIC_RX_MODE_DEFAULT). */
enum unic_rx_mode unic_napi_ctx_mode(const struct unic_napi_ctx *ctx);

/** Set the hooks (copied). From the context's thread or before it runs.
 *  @return 0 or -EINVAL (sz unset). */
int unic_napi_hooks_set(struct unic_napi_ctx *ctx, const struct unic_napi_hooks *hooks);

/**
 * Add rx queue @p q of a started port, with its weight and handler. Takes a
 * reference on the port until the queue leaves. The queue starts in polling.
 * @return 0, or
 *   -EINVAL: weight 0 (nothing would ever be polled) or above
 *            UNIC_NAPI_WEIGHT_MAX, handler NULL, q not an rx queue, port not
 *            started;
 *   -EEXIST: the queue is in this context already;
 *   -EBUSY:  the queue is in another context (or the port is being stopped);
 *   -ENOSPC: max_queues slots in use;
 *   -ENODEV: the port is closed or detached.
 * Each error is logged with what to do.
 * A port without rx interrupts is accepted: its queue stays in poll mode,
 * counted in arm_failures and logged once, and the context never sleeps.
 */
int unic_napi_queue_add(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q,
			uint16_t weight, unic_napi_handler_fn handler, void *arg);

/**
 * Remove rx queue @p q of @p port; returns once the context no longer touches
 * it. Packets its handler refused and packets injected but not handled are
 * freed (counted in dropped). @return 0 or -ENOENT.
 */
int unic_napi_queue_remove(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q);

/**
 * Switch the adaptive policy's device moderation (conf.moderation_fixed)
 * at run time, as ethtool's `-C adaptive-rx on|off`: @p fixed true leaves
 * the moderation of @p port as the application sets it, false gives it
 * back to the policy, whose next decision (at most 10 ms on) writes what
 * it wants at once, whatever was set by hand meanwhile. The switch is a
 * port's: it holds for every rx queue of @p port in the context, and for
 * the port's queues added later while one stays. @p port NULL: every port
 * the context holds, and the start value for ports added later.
 * Any thread, also the context's own (a handler or hook); the context
 * takes it at its next round boundary and the call returns after that,
 * as unic_napi_queue_remove() waits (a sleeping context is woken): once
 * it returns with @p fixed true, no decision of the policy writes the
 * port's moderation, so a value written next is the one that stays.
 * Without the adaptive policy (conf.latency_target_us and cpu_budget 0)
 * the switch is kept and changes nothing.
 * @return 0, -ENOENT (@p port has no rx queue in the context; logged),
 *         or -EINVAL (@p ctx NULL).
 */
int unic_napi_moderation_set(struct unic_napi_ctx *ctx, struct unic_port *port, bool fixed);

/**
 * The switch of unic_napi_moderation_set() for @p port (NULL: the
 * context's start value for ports added later).
 * @return 1 fixed, 0 adaptive, -ENOENT (@p port has no rx queue in the
 *         context) or -EINVAL. Any thread.
 */
int unic_napi_moderation_get(struct unic_napi_ctx *ctx, struct unic_port *port);

/**
 * Claim tx queue @p q of a started port for this context: its handlers and
 * hooks may then send on it (unic_tx_burst), and the context reclaims its
 * transmit completions before each sleep (the port's tx reclaim op). The
 * queue is then used by the context's thread only. A port's stop, detach or
 * device loss switches its fast path to stubs and then waits for every
 * context holding a claim on it to pass a round boundary before the driver
 * stops: a context may send only on queues it claimed (docs/napi.md). The
 * claim is released like an rx queue's when the port stops; claim it again
 * after the port is started again. Takes a reference on the port until the
 * queue leaves.
 * @return 0, or
 *   -EEXIST: the queue is in this context already (the claim holds);
 *   -EBUSY:  another context claimed it (or the port is being stopped);
 *   -EINVAL: the port is not started or q is not one of its tx queues;
 *   -ENOSPC: all max_txqs slots are in use (create the context with more);
 *   -ENODEV: the port is closed or detached.
 * Each error is logged with what to do; on any error but -EEXIST the
 * context holds no claim and must not send on the queue.
 */
int unic_napi_txq_add(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q);
/** @return 0 or -ENOENT. */
int unic_napi_txq_remove(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q);

/**
 * One round, then, if every queue is armed, nothing is pending and
 * @p timeout_us is not 0, one sleep of at most @p timeout_us (< 0: bounded
 * only by max_sleep_ms, the timer hook and the retry interval).
 * @return packets handled in the round (>= 0), or -EBUSY (another thread is
 * running the context, or this is called from one of its handlers).
 */
int unic_napi_run_once(struct unic_napi_ctx *ctx, int64_t timeout_us);

/**
 * Run rounds until *@p stop is true (read with acquire). Whoever sets it
 * calls unic_napi_wake() so a sleeping context sees it at once.
 * @return 0, or -EBUSY as unic_napi_run_once.
 */
int unic_napi_run(struct unic_napi_ctx *ctx, const bool *stop);

/** Wake the context if it sleeps (any thread; async-signal-safe). */
void unic_napi_wake(struct unic_napi_ctx *ctx);

/**
 * Process-context injection (the kernel's netif_rx_ni): hand @p n packets to
 * rx queue @p q's handler from any thread that is not the context's. One
 * thread injects into a given queue at a time (an SPSC ring). A sleeping
 * context wakes at once. The packets are handled in order with the queue's
 * own, in the queue's quota.
 * @return how many were taken (the caller keeps pkts[ret..n-1]: the ring was
 *         full), or -ENOENT (the queue is not in this context).
 */
int unic_napi_inject(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q,
		     struct unic_pkt **pkts, uint16_t n);

/* ---- metrics ------------------------------------------------------------ */

/** Wake latency histogram: bucket i counts latencies in [2^i, 2^(i+1)) ns. */
#define UNIC_NAPI_HIST_BUCKETS 40

/** One queue's counters in a context (unic_napi_queue_stats_get()). */
struct unic_napi_queue_stats {
	uint64_t polls;            /**< rx burst calls */
	uint64_t empty_polls;      /**< ... that returned nothing */
	uint64_t packets;          /**< consumed by the handler */
	uint64_t refused;          /**< handed back by the handler (each time) */
	uint64_t injected;         /**< taken by unic_napi_inject */
	uint64_t dropped;          /**< freed at removal: refused or injected, never handled */
	uint64_t arms;             /**< interrupt armed (and the re-check found nothing) */
	uint64_t arm_failures;     /**< arming refused: the queue polls */
	uint64_t rechecks_caught;  /**< armed, then the re-check found a packet: the race, caught */
	uint64_t interrupts;       /**< wake-ups by the queue's source */
};

/** A context's counters (unic_napi_ctx_stats_get()): its queues' summed, and its own. */
struct unic_napi_ctx_stats {
	uint64_t rounds;           /**< rounds run */
	uint64_t polls;            /**< rx burst calls */
	uint64_t empty_polls;      /**< ... that returned nothing */
	uint64_t packets;          /**< consumed by the handlers */
	uint64_t refused;          /**< handed back by the handlers (each time) */
	uint64_t injected;         /**< taken by unic_napi_inject */
	uint64_t dropped;          /**< freed at removal: refused or injected, never handled */
	uint64_t arms;             /**< interrupts armed (and the re-check found nothing) */
	uint64_t arm_failures;     /**< arming refused: the queue polls */
	uint64_t rechecks_caught;  /**< armed, then the re-check found a packet */
	uint64_t interrupts;       /**< wake-ups by an interrupt source */
	uint64_t wakeups;          /**< every return from a sleep (interrupt, injection, wake, timeout) */
	uint64_t sleeps;           /**< sleeps begun */
	uint64_t asleep_ns;        /**< time spent in sleeps */
	uint64_t sleeps_retry;     /**< sleeps bounded by the retry interval (refused packets held) */
	uint64_t tx_reclaimed;     /**< buffers freed by tx reclaim */
	uint64_t cpu_ns;           /**< the context thread's CPU time (CLOCK_THREAD_CPUTIME_ID) */
	uint64_t wake_latency_samples; /**< wakes measured in wake_latency_ns */
	/* The adaptive policy (docs/napi.md): 0 when it is off. */
	uint64_t busy_polls_kept;  /**< drained polls after which the policy kept polling instead of arming */
	uint64_t sleeps_avoided;   /**< busy-wait windows that ended with a packet: a sleep and a wake saved */
	uint64_t busy_wait_ns;     /**< time in rounds of empty polls the policy kept (charged to cpu_budget) */
	uint64_t budget_arms;      /**< arms the CPU budget forced where the policy wanted to keep polling */
	uint64_t prewakes;         /**< sleeps ended early by the policy, just before an expected packet */
	uint64_t target_met;       /**< polls that found packets within latency_target_us (estimated) */
	uint64_t target_missed;    /**< ... later than latency_target_us (estimated) */
	uint64_t target_early;     /**< of those missed, packets that came (and woke the context) before the pre-wake window opened */
	uint64_t target_late_wake; /**< ... that woke the context inside their window: the pre-wake came after them */
	uint64_t target_after_window; /**< ... that came after their window had closed (later than 1.5 gaps) */
	uint64_t target_no_window; /**< ... that woke the context when their queue had no window (its gaps too irregular, or no estimate yet) */
	/* Estimates now (gauges, not counters). */
	uint64_t est_wake_ns;      /**< a sleep's wake cost: kernel wake-up + epoll return -> packet handed */
	uint64_t est_gap_ns;       /**< the smallest inter-arrival gap estimate over the queues (0: none yet) */
	uint64_t budget_left_ns;   /**< busy-wait time the CPU budget allows now */
	uint64_t moderation_set;   /**< device moderation changes the policy made (unic_port_coalesce_set() calls that succeeded) */
	/** interrupt source readable (epoll returned) -> first packet handed to the handler */
	uint64_t wake_latency_ns[UNIC_NAPI_HIST_BUCKETS];
};

/** Snapshot of the context's counters (any thread). @return 0 or -EINVAL. */
int unic_napi_ctx_stats_get(struct unic_napi_ctx *ctx, struct unic_napi_ctx_stats *st);
/** One queue's counters (any thread). @return 0 or -ENOENT. */
int unic_napi_queue_stats_get(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q,
			      struct unic_napi_queue_stats *st);

/** One rx queue of a context (unic_napi_queues_get()). */
struct unic_napi_queue_info {
	uint16_t port_id;          /**< the port's id (unic_port_id()) */
	uint16_t q;                /**< the rx queue */
	uint16_t weight;           /**< packets per poll */
	char port_name[32];        /**< the port's name, truncated */
	struct unic_napi_queue_stats stats; /**< its counters */
	/** The adaptive policy's estimate of the gap between its packets
	 *  (ns; 0: none yet, or the policy is off). */
	uint64_t gap_ns;
	/** The rx_usecs the adaptive policy last set on the queue's port
	 *  (docs/napi.md, "The device's moderation"); -1: none set (policy
	 *  off, no estimate yet, or the port has no moderation). */
	int64_t moderation_us;
	/** ... and what the port reported in effect right after
	 *  (unic_port_coalesce_get(): e1000e reads EITR back, and QEMU 7.2
	 *  raises anything under 128 us); -1: none. */
	int64_t moderation_effect_us;
	/** The switch of unic_napi_moderation_set() for the queue's port, as
	 *  unic_napi_moderation_get() answers it: true fixed (the policy
	 *  leaves the moderation alone), false adaptive. Kept, and without
	 *  effect, when the context has no adaptive policy. */
	bool moderation_fixed;
};

/**
 * The rx queues the context holds now, with their counters (any thread; a
 * short hold of the context's lock, as the other getters).
 * @return how many it holds (may exceed @p max: only @p max are written),
 *         or -EINVAL.
 */
int unic_napi_queues_get(struct unic_napi_ctx *ctx, struct unic_napi_queue_info *info,
			 unsigned max);

/**
 * Call @p fn for every live context, in creation order, until it returns
 * non-zero (a statistics or telemetry thread enumerating contexts). The
 * callback runs under the contexts' registry lock: a context it is handed
 * is not destroyed until it returns (unic_napi_ctx_destroy() waits), so it
 * may call the metrics getters on it; it must not create or destroy a
 * context, nor run one. No context thread takes that lock.
 * @return 0, fn's first non-zero return, or -EINVAL (fn NULL).
 */
int unic_napi_ctx_foreach(int (*fn)(struct unic_napi_ctx *ctx, void *arg), void *arg);

/** The context's id: 0, 1, ... in creation order over the process's life. */
uint32_t unic_napi_ctx_id(const struct unic_napi_ctx *ctx);

/**
 * The value under which a fraction @p p (0..1) of the samples of a
 * histogram fall, as the upper edge of its bucket (ns). 0 with no samples.
 */
uint64_t unic_napi_hist_percentile(const uint64_t *hist, unsigned nb, double p);

/**
 * xstats-style names ("napi_rounds", ..., "napi_wake_latency_lt_2048ns", then
 * per queue "napi_<port>_q<q>_packets", ...). @return the count (may exceed
 * @p max). The per-queue counters are also in the port's own xstats
 * (unic_port_xstats_get: "napi_rx_q<q>_packets", ...) while the queue is in
 * a context.
 */
int unic_napi_xstats_names(struct unic_napi_ctx *ctx, struct unic_xstat_name *names, unsigned max);
/** Values in the order of the names. @return the count. */
int unic_napi_xstats_get(struct unic_napi_ctx *ctx, uint64_t *values, unsigned max);

/**
 * The context's last sleep: when it began and when it ended (CLOCK_MONOTONIC
 * ns; 0 before the first). From the context's thread (a handler): tells
 * which packets arrived while it slept.
 */
void unic_napi_last_sleep(const struct unic_napi_ctx *ctx, uint64_t *start_ns, uint64_t *end_ns);

/* ---- lower level: an application's own loop (DPDK style) ------------------ */
/*
 * Apps that run their own loop use the port layer directly:
 * unic_port_intr_sources() for the fds, unic_rx_intr_enable()/_disable() per
 * queue, unic_rx_pending() for the re-check and unic_intr_source_ack() after a
 * wake (port.h). The protocol is the one this engine follows: drained poll,
 * arm, re-check, sleep; on wake ack, disarm, poll.
 */

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_NAPI_H */
