/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port layer as drivers see it: struct unic_port, the ops table, the
 * driver table entry, and the calls a driver makes to create a port.
 *
 * A driver:
 *   - allocates its port with unic_port_alloc(sizeof(priv), "ring%d", setup):
 *     the private area is in the same allocation (unic_port_priv()), and the
 *     driver never frees it;
 *   - fills the private area, its MAC (port->mac) and NUMA node, and calls
 *     unic_port_register();
 *   - provides one static const struct unic_port_ops with designated
 *     initializers. Required ops are marked; an optional op left NULL makes
 *     the core return -ENOTSUP, from one place (port_ctrl.c: PORT_OP).
 *   - gets its ops called with the port's lock held, in states the core has
 *     already checked: a driver never re-checks the lifecycle;
 *   - counts packets, bytes and drops per queue in a struct unic_rxq_counters
 *     / unic_txq_counters embedded in its queue object, handed to the core
 *     at queue setup (unic_port_rxq_counters()): the core sums them for
 *     unic_port_stats_get, and the driver's stats_get adds only what the
 *     hardware counts.
 */
#ifndef UNIC_PORT_DRIVER_H
#define UNIC_PORT_DRIVER_H

#include <pthread.h>

#include <unic/port.h>
#include <unic/flow.h>
#include <unic/counter.h>
#include <unic/event.h>
#include <unic/log.h>

#include "unic_bus_driver.h"   /* struct unic_pci_id */

struct unic_port;
struct unic_bus;
struct unic_pci_device;

struct unic_port_ops {
	/* Required. */
	void (*info_get)(struct unic_port *port, struct unic_port_info *info);
	int (*configure)(struct unic_port *port, const struct unic_port_conf *conf);
	/** Set up rx queue @p q; store the driver's queue object in *rxq. */
	int (*rx_queue_setup)(struct unic_port *port, uint16_t q,
			      const struct unic_rxq_conf *conf, void **rxq);
	void (*rx_queue_release)(struct unic_port *port, uint16_t q, void *rxq);
	int (*tx_queue_setup)(struct unic_port *port, uint16_t q,
			      const struct unic_txq_conf *conf, void **txq);
	void (*tx_queue_release)(struct unic_port *port, uint16_t q, void *txq);
	int (*start)(struct unic_port *port);
	void (*stop)(struct unic_port *port);
	/** Release everything but the port memory; no op is called after. */
	void (*close)(struct unic_port *port);
	/** Optional. Add what the core cannot sum from the queues' counters
	 * (struct unic_rxq_counters) to @p st, which holds that sum: the
	 * hardware's counts (imissed, ierrors from registers, ...), since the
	 * port was created (the core handles reset). Add or set only fields
	 * the queue counters leave alone; never clear @p st. */
	int (*stats_get)(struct unic_port *port, struct unic_port_stats *st);

	/* Fast path, copied into port->fp at start (required: rx/tx burst). */
	unic_rx_burst_fn rx_burst;
	unic_tx_burst_fn tx_burst;
	/* NULL: every packet is accepted. Else the checks tx_burst makes
	 * before it refuses a packet (same function, no copy): returns how
	 * many leading packets tx_burst would not refuse, and when fewer
	 * than n, the reason for pkts[ret] in *err (never NULL here), else
	 * 0 in *err. Reads the queue's fixed settings only (nb_desc, ...),
	 * never its ring state; changes nothing; counts nothing. */
	unic_tx_prepare_fn tx_prepare;
	unic_rx_pending_fn rx_pending;
	unic_rxq_intr_fn rx_intr_enable;    /* NULL: no rx interrupts */
	unic_rxq_intr_fn rx_intr_disable;
	unic_tx_reclaim_fn tx_reclaim;      /* NULL: nothing to reclaim (returns 0) */

	/* Optional: NULL means -ENOTSUP. */
	int (*link_get)(struct unic_port *port, struct unic_link *link);
	int (*link_set)(struct unic_port *port, bool up);
	int (*mac_set)(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
	int (*mac_add)(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
	int (*mac_remove)(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
	int (*promisc_set)(struct unic_port *port, bool on);
	int (*allmulti_set)(struct unic_port *port, bool on);
	/** Replace the multicast list (addresses checked by the core: group
	 * addresses, at most UNIC_PORT_MC_ADDR_MAX; @p nb 0 empties it). */
	int (*mc_addr_list_set)(struct unic_port *port, const uint8_t (*addrs)[UNIC_ETHER_ADDR_LEN],
				unsigned nb);
	int (*mtu_set)(struct unic_port *port, uint16_t mtu);
	int (*coalesce_get)(struct unic_port *port, struct unic_coalesce *c);
	int (*coalesce_set)(struct unic_port *port, const struct unic_coalesce *c);
	int (*regs_get)(struct unic_port *port, struct unic_regs *regs);
	int (*eeprom_get)(struct unic_port *port, uint32_t offset, uint32_t len, uint8_t *buf);
	/** Names of the driver's own counters. @return count (may exceed max). */
	int (*xstats_names)(struct unic_port *port, struct unic_xstat_name *names, unsigned max);
	/** Raw values since creation, same order. @return count. */
	int (*xstats_get)(struct unic_port *port, uint64_t *values, unsigned max);
	int (*intr_sources)(struct unic_port *port, struct unic_intr_source *src, unsigned max);
	/** The Linux IRQ of rx queue @p q's interrupt (started, interrupt or
	 * hybrid mode, queue set up: checked by the core); with @p cpu >= 0
	 * also have the kernel take it on that CPU. @return the IRQ, or -errno. */
	int (*rx_intr_affinity)(struct unic_port *port, uint16_t q, int cpu);
	/** Accept (on) or stop accepting frames of VLAN @p vlan_id when the
	 * VLAN filter offload is on. */
	int (*vlan_filter_set)(struct unic_port *port, uint16_t vlan_id, bool on);
	/** RSS (the core checked the arguments against info: types within
	 * rss_hash_capa, key_len 0 or rss_key_size, info.reta_size entries each
	 * below nb_rxq). hash_get fills the types and key in effect (the
	 * driver's default key when none was set); hash_update sets them (key_len
	 * 0: the key stays) and the core then keeps them in port->conf.
	 * reta_query/update read or write the whole table. */
	int (*rss_hash_get)(struct unic_port *port, struct unic_rss_conf *rss);
	int (*rss_hash_update)(struct unic_port *port, const struct unic_rss_conf *rss);
	int (*rss_reta_query)(struct unic_port *port, uint16_t *reta);
	int (*rss_reta_update)(struct unic_port *port, const uint16_t *reta);
	/** 802.3x flow control: the settings in effect; set them (the driver
	 * checks the thresholds against its buffer). */
	int (*flow_ctrl_get)(struct unic_port *port, struct unic_flow_ctrl *fc);
	int (*flow_ctrl_set)(struct unic_port *port, const struct unic_flow_ctrl *fc);
	/** Descriptors of a queue set up (the core checked q, offset and
	 * desc against nb_desc; no burst runs meanwhile): the status of the
	 * one @p offset past the next used (enum unic_desc_status); rx
	 * descriptors holding frames not taken; a descriptor's raw words
	 * (return: words of a descriptor, at most @p max copied). */
	int (*desc_status)(struct unic_port *port, bool tx, uint16_t q, uint16_t offset);
	int (*rx_queue_count)(struct unic_port *port, uint16_t q);
	int (*desc_read)(struct unic_port *port, bool tx, uint16_t q, uint16_t desc, uint32_t *words,
			 unsigned max);
	/** Flow rules (unic/flow.h). The core checked the rule's shape first:
	 * ingress only, at least one action, at most one fate (queue, rss,
	 * drop, passthru), queues below nb_rxq. validate: could the rule be
	 * created now; create: program it, keep the driver's state in *handle;
	 * destroy: undo it (never fails on a handle create gave). Each refusal
	 * fills @p err naming the item or action the filters cannot do and
	 * returns -ENOTSUP (-EINVAL: a value; -ENOSPC: a full table).
	 * flow_validate NULL: the port has no flow rules at all (the core says
	 * so, with unic_driver flow_why). flow_isolate NULL: -ENOTSUP. */
	int (*flow_validate)(struct unic_port *port, const struct unic_flow_rule *rule,
			     struct unic_flow_error *err);
	int (*flow_create)(struct unic_port *port, const struct unic_flow_rule *rule, void **handle,
			   struct unic_flow_error *err);
	void (*flow_destroy)(struct unic_port *port, void *handle);
	int (*flow_isolate)(struct unic_port *port, bool on, struct unic_flow_error *err);
};

/*
 * A queue's counters, kept by the driver in its queue object (one writer:
 * the thread that calls the queue's bursts) and summed by the core into
 * struct unic_port_stats: packets, bytes and errors into q_ipackets,
 * q_ibytes, q_errors and their totals; nombuf into rx_nombuf; a tx queue's
 * errors into oerrors. A driver with a reason of its own for a drop (ring
 * full, a refused offload) keeps another struct unic_counter for its xstats.
 */
struct unic_rxq_counters {
	struct unic_counter packets;  /* handed to the application */
	struct unic_counter bytes;    /* their pkt_len */
	struct unic_counter errors;   /* frames received and dropped (bad descriptor, length) */
	struct unic_counter nombuf;   /* buffers a refill or a burst found no packet for */
};

struct unic_txq_counters {
	struct unic_counter packets;  /* taken by the queue */
	struct unic_counter bytes;
	struct unic_counter errors;   /* taken and dropped: refused, freed, counted */
};

/**
 * Have the core sum @p cnt as rx queue @p q's counters, from now until the
 * queue is released (the core keeps what it counted: the totals never go
 * back when a queue is released or set up again, and the driver may zero
 * or keep the struct across setups: only what it counts from now on is
 * added). Called by the driver's rx_queue_setup op before it returns 0 (if
 * the op fails, the core forgets @p cnt without reading it); @p cnt must
 * stay valid until the queue's release op is called.
 */
void unic_port_rxq_counters(struct unic_port *port, uint16_t q, struct unic_rxq_counters *cnt);
/** The same for tx queue @p q, from the driver's tx_queue_setup op. */
void unic_port_txq_counters(struct unic_port *port, uint16_t q, struct unic_txq_counters *cnt);

/**
 * For xstats_names ops whose names are a fixed table: copy the @p nb names
 * of @p table into @p names, at most @p max of them (the op's contract).
 * @return @p nb, the count (which may exceed @p max).
 */
int unic_port_xstats_names_fill(struct unic_xstat_name *names, unsigned max, const char *const *table,
				unsigned nb);
/** For xstats_get ops: copy @p nb values of @p v, at most @p max. @return @p nb. */
int unic_port_xstats_values_fill(uint64_t *values, unsigned max, const uint64_t *v, unsigned nb);

struct unic_port_queue_info {
	void *q;                  /* the driver's queue object, NULL if not set up */
	uint16_t nb_desc;
	struct unic_pool *pool;   /* rx queues */
	union {                   /* the driver's counters (NULL: none handed over) */
		struct unic_rxq_counters *rx_cnt;
		struct unic_txq_counters *tx_cnt;
	};
	uint64_t cnt_origin[4];   /* their values when handed over, in field order */
};

struct unic_port_cb;

/*
 * A poller of one queue (lib/napi): the core calls release(port, tx, q, owner)
 * when the port stops, is detached or loses its device: after its fast path
 * switched to stubs, before the driver's stop op runs and before anything is
 * freed or unmapped. release returns once the owner has passed a point
 * (lib/napi: a round boundary) after which it is inside no burst call on the
 * port it started before the switch: its later calls reach the stubs. It is
 * called with no port lock held, from the thread that stops the port. The
 * claim is gone before the call: the owner must not drop it again.
 */
typedef void (*unic_port_poller_fn)(struct unic_port *port, bool tx, uint16_t q, void *owner);

/* Most counters a poller may publish for one queue. */
#define UNIC_PORT_POLLER_STATS_MAX 16

/*
 * Counters a poller publishes through the port's xstats while it holds the
 * claim (lib/napi's per-queue metrics): named "<prefix>_rx_q<q>_<name>" (or
 * tx), after the driver's own. The values are single-writer 64-bit counters
 * the core reads with relaxed loads under the port lock, never calling into
 * the poller (whose locks are taken before the port's: no inversion). The
 * object and the counters must stay valid until the claim is dropped or
 * released.
 */
struct unic_port_poller_stats {
	const char *prefix;                /* "napi" */
	unsigned nb;                       /* 1..UNIC_PORT_POLLER_STATS_MAX */
	const char *const *names;          /* nb names */
	const struct unic_counter *values; /* nb counters */
};

/*
 * A port as its driver sees it. The core's own bookkeeping (the lock, the
 * reference count, the id, the lifecycle state, the removed flag, the
 * pollers, the stats bases) wraps it in lib/port/port_private.h, where no
 * driver can name it: a driver reads what it needs through the calls below
 * (unic_port_is_removed(), unic_port_state(), unic_port_id()). The driver's
 * private area follows the struct in the same allocation (unic_port_priv()).
 */
struct unic_port {
	struct unic_port_fastpath fp;     /* first: unic_rx_burst reads it */

	/* Set by the driver at allocation (its setup and probe), before
	 * unic_port_register(); read-only afterwards except under an op. */
	char name[UNIC_PORT_NAMESIZE];
	const struct unic_port_ops *ops;
	const struct unic_driver *drv;
	int numa_node;
	int msglevel;
	uint8_t mac[UNIC_ETHER_ADDR_LEN];
	/* Kept by the core, read by the driver's ops (called under the lock). */
	struct unic_port_conf conf;
	struct unic_port_queue_info rxq[UNIC_PORT_MAX_QUEUES];
	struct unic_port_queue_info txq[UNIC_PORT_MAX_QUEUES];
};

/* The private area starts right after the struct, on a cache line. */
static_assert(sizeof(struct unic_port) % UNIC_CACHE_LINE_SIZE == 0,
	      "struct unic_port must end on a cache line: the private area follows it");

static inline void *unic_port_priv(struct unic_port *port)
{
	return port + 1;
}

/** The port whose private area is @p priv. */
static inline struct unic_port *unic_port_from_priv(void *priv)
{
	return (struct unic_port *)priv - 1;
}

/**
 * Has the bus taken the port's device back (unic_port_device_lost())? From
 * then on the driver must not touch the device's registers. An acquire load:
 * a driver may call it without the port lock (it pairs with the release
 * store made under the lock).
 */
bool unic_port_is_removed(const struct unic_port *port);

/**
 * Set the port's MAC address under the port's lock: for a driver that
 * chooses it after unic_port_register() (when other threads may read it).
 */
void unic_port_mac_init(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);

/**
 * Allocate a port with @p priv_size bytes of zeroed private area. The name
 * may contain one "%d", replaced at unic_port_register() by the lowest number
 * that makes it unique ("ring%d" -> "ring0", "ring1", ...). @p setup, if not
 * NULL, is called on the new port (to set ops and defaults).
 * @return the port with one reference, or NULL with errno (EINVAL: bad name,
 *         ENOMEM).
 */
struct unic_port *unic_port_alloc(size_t priv_size, const char *name_fmt,
				  void (*setup)(struct unic_port *port));

/**
 * Give the port its id and final name and list it. The registry takes its
 * own reference. @return 0, -EEXIST (the name is taken), -ENOSPC (too many
 * ports).
 */
int unic_port_register(struct unic_port *port);

/**
 * Claim rx (tx false) or tx queue @p q of a started port for @p owner: the
 * core calls @p release before the port stops (see unic_port_poller_fn).
 * With @p stats (may be NULL), the port's xstats show the poller's counters
 * of the queue while the claim lasts (struct unic_port_poller_stats).
 * Never blocks beyond the port lock.
 * @return 0, -EEXIST (@p owner has it already), -EBUSY (another owner has
 *         it, or the port is being stopped), -EINVAL (port not started, q out
 *         of range, stats with 0 or more than UNIC_PORT_POLLER_STATS_MAX
 *         counters), -ENODEV (closed or detached).
 */
int unic_port_poller_claim(struct unic_port *port, bool tx, uint16_t q,
			   unic_port_poller_fn release, void *owner,
			   const struct unic_port_poller_stats *stats);
/**
 * Give a claim back. @return 0, or -ENOENT (not @p owner's: the port already
 * took it back and is calling, or has called, release).
 */
int unic_port_poller_drop(struct unic_port *port, bool tx, uint16_t q, void *owner);

/**
 * The device under @p port was taken back by the kernel (VFIO device
 * request) or vanished (@p gone: reads of all-ones). Called by the driver
 * from its bus release callback, before the bus unmaps anything: posts
 * UNIC_EVENT_DEV_REQUEST (or UNIC_EVENT_DEV_GONE) for the application,
 * stops the port if it is started (its pollers are released first, as
 * unic_port_stop does, so no poller is inside a burst call), and marks it
 * removed: from then on only info, stats, xstats, close and detach work;
 * the rest returns -ENODEV with a message saying what to do.
 * @return 0: the driver may let the bus release the device; -EBUSY: the
 *         port is being closed by another thread, whose close releases it.
 */
int unic_port_device_lost(struct unic_port *port, bool gone);

/* ---- driver kit: DMA memory ------------------------------------------- */

struct unic_mem;
struct unic_dma;

/**
 * Give @p port the DMA memory its device reaches: for a PCI device,
 * unic_pci_dma_mem() (the memory its bus maps). A PCI driver calls it at
 * probe, after unic_port_alloc(); virtual ports have none.
 */
void unic_port_dma_mem_set(struct unic_port *port, struct unic_mem *mem);

/**
 * Allocate @p len bytes of the port's DMA memory (zeroed, IOVA-contiguous,
 * aligned to @p align, on @p numa_node) for a descriptor ring or the like;
 * @p what names it in the error message ("tx queue 1 descriptor ring").
 * The zone is the port's: unic_port_dma_free() gives it back, and the port's
 * close frees what is left.
 * @return 0 and *out, or -ENODEV (the port has no DMA memory: a driver bug,
 *         logged), -ENOMEM, or unic_mem_alloc()'s error (logged with the
 *         size).
 */
int unic_port_dma_alloc(struct unic_port *port, const char *what, size_t len, size_t align,
			int numa_node, struct unic_dma *out);

/** Free a zone from unic_port_dma_alloc() and zero *d; a zeroed @p d is accepted. */
void unic_port_dma_free(struct unic_port *port, struct unic_dma *d);

/* Driver logs that honour the port's message level. */
#define UNIC_PORT_LOG(port, level, fmt, ...)                                   \
	do {                                                                  \
		if ((int)(UNIC_LOG_##level) <= (port)->msglevel)              \
			unic_log(UNIC_LOG_##level, UNIC_LOGC_PMD, "%s: " fmt, \
				 (port)->name, ##__VA_ARGS__);                 \
	} while (0)

/* ---- the driver table (lib/port/drivers.c) ---------------------------- */

struct unic_driver {
	const char *name;
	/* Virtual drivers: create a port from "name,key=value,...". */
	int (*vdev_create)(const char *name, const char *args, struct unic_port **out);
	/* PCI drivers: the ids they drive (zero-terminated), and the probe
	 * called with a device the bus opened for it (lib/port/probe.c,
	 * unic_port_probe_pci). A probe registers its port and hands back its
	 * own reference in *out, which goes to the prober's caller; on an error
	 * it leaves the device open (the bus closes it). */
	const struct unic_pci_id *pci_ids;
	int (*pci_probe)(struct unic_bus *bus, struct unic_pci_device *dev, struct unic_port **out);
	/* Optional: why the largest MTU (unic_port_info max_mtu) is what it
	 * is and what to use instead; appended to the core's refusal of a
	 * larger one. NULL: the limits alone. */
	const char *mtu_max_why;
	/* Optional: why the driver has no flow rules (no flow ops), appended
	 * to the core's -ENOTSUP. */
	const char *flow_why;
};

/** The explicit table of every driver, NULL-terminated. */
extern const struct unic_driver *const unic_drivers[];

/*
 * Small helpers for driver argument parsing: "key=value,key=value". The
 * grammar is strict: no empty item, every item key=value, each key once;
 * numbers decimal, hexadecimal only with 0x, no sign, nothing after them.
 */

/**
 * Check the grammar of @p args, the part of virtual device @p spec after
 * the name's comma (NULL: the spec has no comma). unic_vdev_create() runs
 * it before the driver sees @p args; errors name @p spec.
 * @return 0 or -EINVAL (an empty item, one without '=', a key twice).
 */
int unic_kvargs_syntax(const char *spec, const char *args);
/**
 * Find @p key in @p args. @return the value's length and sets *val to its
 * start, or -ENOENT.
 */
int unic_kvargs_get(const char *args, const char *key, const char **val);
/**
 * Check that every item of @p args is key=value with a key of @p keys
 * (NULL-terminated). @return 0 or -EINVAL (named in the log).
 */
int unic_kvargs_check(const char *drv, const char *args, const char *const *keys);
/**
 * Parse the value of @p key: decimal ("010" is 10) or 0x and hexadecimal,
 * in [min, max]. @return 0, -ENOENT (no such key), -EINVAL (a sign, a
 * space, trailing characters, out of range; named in the log).
 */
int unic_kvargs_u32(const char *drv, const char *args, const char *key,
		    uint32_t min, uint32_t max, uint32_t *out);
/**
 * DPDK's virtual device names: net_null, net_ring, net_af_xdp,
 * net_af_packet and net_memif stand for unic's null, ring, af_xdp,
 * af_packet and memif drivers. If @p drv (a spec's name without its number)
 * is one of them, *@p unic_drv gets unic's driver name and @p out (of
 * @p outlen bytes) the arguments @p args for unic's driver: the keys DPDK
 * has and unic does not are dropped when their value asks for what unic
 * does anyway (net_null's copy=0, no-rx=0; net_af_xdp's shared_umem=0) and
 * refused otherwise, with the reason (net_ring's nodeaction=); every other
 * item is copied in order. @p spec names the device in messages.
 * @return 1 (an alias), 0 (not one; nothing written), -EINVAL (refused,
 * logged).
 */
int unic_vdev_alias(const char *spec, const char *drv, const char *args, const char **unic_drv,
		    char *out, size_t outlen);

#endif /* UNIC_PORT_DRIVER_H */
