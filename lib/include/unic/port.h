/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The port layer (ethdev): what an application sees of a NIC or a virtual
 * port.
 *
 * Lifecycle (each call refused with -EBUSY or -EINVAL, and a log line naming
 * the state it needs, when made in the wrong state):
 *
 *   allocated --configure--> configured --rx/tx_queue_setup (all)--> ready
 *   ready --start--> started --stop--> stopped (= ready: queues kept)
 *   stopped --configure--> configured (queues released; set them up again)
 *   any but started --close--> closed (queues released, ops never called again)
 *
 * Ports are refcounted. unic_port_get()/unic_port_put() keep a port's memory
 * alive; a reader holding a reference (a stats thread, the CLI) may keep
 * calling control functions after the port was closed or detached: they
 * return -ENODEV and touch nothing freed. The port's memory (and its driver's
 * private area, which lives in the same allocation) goes with the last
 * reference.
 *
 * Fast path: unic_rx_burst()/unic_tx_prepare()/unic_tx_burst() are inline calls through a
 * per-port, cache-aligned table; no locks, no allocation, no logging above
 * debug. On a port that is not started they return 0. One queue is used by
 * one thread at a time.
 *
 * Threads: control functions (everything else) take the port's lock and may
 * be called from any thread, but not from inside a burst call.
 */
#ifndef UNIC_PORT_H
#define UNIC_PORT_H

#include <unic/common.h>
#include <unic/net.h>
#include <unic/pkt.h>
#include <unic/pool.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

struct unic_pool;

#define UNIC_PORT_NAMESIZE 32    /**< bytes of a port name, NUL included */
#define UNIC_PORT_MAX_QUEUES 16  /**< most rx (and tx) queues a port has */
#define UNIC_PORT_MAX 64         /**< most ports registered at once */
#define UNIC_PORT_MAX_XSTATS 256 /**< most extended stats a port reports */
#define UNIC_XSTAT_NAMESIZE 64   /**< bytes of an extended stat's name, NUL included */
#define UNIC_ETHER_ADDR_LEN 6    /**< bytes of an Ethernet (MAC) address */

/* ---- offloads ----------------------------------------------------------- */

/* Receive offloads (struct unic_port_conf rx_offloads, info rx_offload_capa). */
#define UNIC_RX_OFFLOAD_VLAN_STRIP  (1ull << 0) /**< take the 802.1Q tag out of the frame into the packet */
#define UNIC_RX_OFFLOAD_VLAN_FILTER (1ull << 1) /**< drop tagged frames of VLANs not in the filter */
#define UNIC_RX_OFFLOAD_IPV4_CKSUM  (1ull << 2) /**< check IPv4 header checksums, result in the packet's flags */
#define UNIC_RX_OFFLOAD_UDP_CKSUM   (1ull << 3) /**< check UDP checksums */
#define UNIC_RX_OFFLOAD_TCP_CKSUM   (1ull << 4) /**< check TCP checksums */
#define UNIC_RX_OFFLOAD_RSS_HASH    (1ull << 5) /**< store the RSS hash in the packet */
#define UNIC_RX_OFFLOAD_SCATTER     (1ull << 6) /**< frames over one buffer, chained */
/** Take large TCP packets as one chained packet of up to 64 KiB
 *  (UNIC_PKT_RX_LRO, tso_segsz; virtio-net: the host's GSO frames). Needs
 *  UNIC_RX_OFFLOAD_SCATTER. */
#define UNIC_RX_OFFLOAD_TCP_LRO     (1ull << 7)
/* Transmit offloads (struct unic_port_conf tx_offloads, info tx_offload_capa). */
#define UNIC_TX_OFFLOAD_VLAN_INSERT (1ull << 16) /**< insert the packet's 802.1Q tag */
#define UNIC_TX_OFFLOAD_IPV4_CKSUM  (1ull << 17) /**< fill in IPv4 header checksums */
#define UNIC_TX_OFFLOAD_UDP_CKSUM   (1ull << 18) /**< fill in UDP checksums */
#define UNIC_TX_OFFLOAD_TCP_CKSUM   (1ull << 19) /**< fill in TCP checksums */
#define UNIC_TX_OFFLOAD_TCP_TSO     (1ull << 20) /**< cut large TCP segments to the MSS (TSO) */
#define UNIC_TX_OFFLOAD_MULTI_SEGS  (1ull << 21) /**< send chained (multi-segment) packets */

/** Name of one offload bit ("vlan_strip", "tcp_tso", ...), or NULL. */
const char *unic_offload_name(uint64_t flag);

/**
 * Parse an offload name (as unic_offload_name gives) into its bit.
 * @return 0 and sets @p flag, or -EINVAL (the log lists the known names).
 */
int unic_offload_from_name(const char *name, uint64_t *flag);

/**
 * Write the names of the bits in @p flags, comma-separated, into @p buf.
 * @return the length written, as snprintf.
 */
int unic_offload_names(uint64_t flags, char *buf, size_t len);

/* ---- configuration ---------------------------------------------------- */

/**
 * How rx queues are served: a port sets its interrupts up to match
 * (struct unic_port_conf rx_mode), a napi context polls and sleeps by it
 * (struct unic_napi_conf mode).
 */
enum unic_rx_mode {
	/** 0, a field left zero: the default of the struct it is in (a port
	 *  polls, a napi context is hybrid); never reported back. */
	UNIC_RX_MODE_DEFAULT = 0,
	UNIC_RX_MODE_POLL,      /**< busy-poll: never arm, never sleep */
	UNIC_RX_MODE_INTERRUPT, /**< sleep on the queue's interrupt after each drained poll */
	UNIC_RX_MODE_HYBRID,    /**< keep polling a drained queue for a while, then arm and sleep (lib/napi) */
};

/** "default", "poll", "interrupt", "hybrid"; "?" for another value. */
const char *unic_rx_mode_name(enum unic_rx_mode mode);

/* RSS hash types (struct unic_port_conf rss_hash_types, info rss_hash_capa). */
#define UNIC_RSS_IPV4     (1ull << 0) /**< hash IPv4 source and destination addresses */
#define UNIC_RSS_IPV4_TCP (1ull << 1) /**< ... and TCP ports */
#define UNIC_RSS_IPV4_UDP (1ull << 2) /**< ... and UDP ports */
#define UNIC_RSS_IPV6     (1ull << 3) /**< hash IPv6 source and destination addresses */
#define UNIC_RSS_IPV6_TCP (1ull << 4) /**< ... and TCP ports */
#define UNIC_RSS_IPV6_UDP (1ull << 5) /**< ... and UDP ports */

#define UNIC_RSS_KEY_MAX 40 /**< longest RSS hash key, bytes */
#define UNIC_RETA_SIZE_MAX 512 /**< largest RSS redirection table, entries */

/**
 * Write the names of the UNIC_RSS_* bits in @p types ("ipv4", "ipv4-tcp",
 * "ipv4-udp", "ipv6", "ipv6-tcp", "ipv6-udp", DPDK's names), space-separated,
 * into @p buf; "none" for 0. @return the length written, as snprintf.
 */
int unic_rss_type_names(uint64_t types, char *buf, size_t len);

/** Options for unic_port_configure(). Zero-initialise, then set. */
struct unic_port_conf {
	size_t sz;                 /**< sizeof(struct unic_port_conf) */
	uint16_t nb_rxq;           /**< 1..info.max_rxq */
	uint16_t nb_txq;           /**< 1..info.max_txq */
	uint64_t rx_offloads;      /**< UNIC_RX_OFFLOAD_* */
	uint64_t tx_offloads;      /**< UNIC_TX_OFFLOAD_* */
	enum unic_rx_mode rx_mode; /**< 0 (UNIC_RX_MODE_DEFAULT): poll; a port without rx interrupts polls (with a warning) */
	uint16_t mtu;              /**< 0: 1500 */
	uint64_t rss_hash_types;   /**< UNIC_RSS_*; 0: no RSS */
	uint8_t rss_key[UNIC_RSS_KEY_MAX]; /**< the RSS hash key, rss_key_len bytes of it */
	uint8_t rss_key_len;       /**< 0: the driver's default key */
	bool link_intr;            /**< report link changes through events */
};

/** Options for unic_port_rx_queue_setup(). */
struct unic_rxq_conf {
	size_t sz;                 /**< sizeof(struct unic_rxq_conf) */
	uint16_t nb_desc;          /**< 0: the driver's default */
	int numa_node;             /**< -1: the port's node */
	struct unic_pool *pool;    /**< packet pool to receive into (required) */
};

/** Options for unic_port_tx_queue_setup(). */
struct unic_txq_conf {
	size_t sz;                 /**< sizeof(struct unic_txq_conf) */
	uint16_t nb_desc;          /**< 0: the driver's default */
	int numa_node;             /**< -1: the port's node */
};

/* ---- information ------------------------------------------------------- */

/** What a port can do (unic_port_info_get()): limits and capabilities. */
struct unic_port_info {
	char driver[32];           /**< "null", "ring", "e1000e" */
	char bus_addr[32];         /**< PCI address, or "vdev" */
	char fw_version[32];       /**< where known, else "" */
	int numa_node;             /**< the device's NUMA node, -1 when unknown */
	/** @{ */
	/** Most rx queues, most tx queues (unic_port_conf nb_rxq, nb_txq). */
	uint16_t max_rxq, max_txq;
	/** @} */
	/** @{ */
	/** Rx descriptor counts: least, most, the multiple a count must be, the default. */
	uint16_t rx_desc_min, rx_desc_max, rx_desc_align, rx_desc_default;
	/** @} */
	/** @{ */
	/** Tx descriptor counts: least, most, the multiple a count must be, the default. */
	uint16_t tx_desc_min, tx_desc_max, tx_desc_align, tx_desc_default;
	/** @} */
	/** @{ */
	/** Smallest and largest MTU (unic_port_mtu_set()). */
	uint16_t min_mtu, max_mtu;
	/** @} */
	/** @{ */
	/** UNIC_RX_OFFLOAD_* and UNIC_TX_OFFLOAD_* bits the port offers. */
	uint64_t rx_offload_capa, tx_offload_capa;
	/** @} */
	uint64_t rss_hash_capa;    /**< UNIC_RSS_* types the port can hash; 0: no RSS */
	uint16_t reta_size;        /**< entries of the RSS redirection table; 0: no RSS */
	uint8_t rss_key_size;      /**< bytes of the RSS key; 0: no RSS */
	uint32_t speed_capa_mbps;  /**< fastest link speed */
	bool has_intr;             /**< rx interrupts (interrupt/hybrid modes) */
	/**
	 * Receive makes packets up (the null port: pool buffers with whatever
	 * bytes they held): nothing received comes from a link or from a
	 * transmit on any port, so an application that measures what comes
	 * back (unic-pktgen) must not count it.
	 */
	bool rx_synthetic;
	/**
	 * The port lends its rx pool's buffers to a peer (memif with
	 * zero-copy=yes): its rx pool must be made with
	 * unic_pktpool_conf.shareable = true, and the peer can read and
	 * write every packet of that pool.
	 */
	bool rx_pool_shareable;
	/**
	 * The device, not the port, spreads received frames over the rx
	 * queues (af_xdp: each queue is one of the interface's own, filled
	 * by the kernel's RSS or, on veth, by the queue the peer sent on).
	 * rss_hash_capa is then 0, as the port configures no hashing, yet
	 * every rx queue receives: an application may use several.
	 */
	bool rx_spread_by_device;
};

/** Link state (unic_port_link_get()). */
struct unic_link {
	uint32_t speed_mbps;       /**< 0 when down or unknown */
	bool full_duplex;          /**< full duplex (false: half, or down) */
	bool up;                   /**< the link is up */
	bool autoneg;              /**< speed and duplex were auto-negotiated */
};

/** RSS hashing (unic_port_rss_hash_get(), unic_port_rss_hash_update()). */
struct unic_rss_conf {
	uint64_t types;                  /**< UNIC_RSS_* hashed; 0: every packet to rx queue 0 */
	uint8_t key[UNIC_RSS_KEY_MAX];   /**< the hash key, key_len bytes of it */
	uint8_t key_len;                 /**< get: the port's key size; update: 0 keeps the key */
};

/** 802.3x flow control (unic_port_flow_ctrl_get(), unic_port_flow_ctrl_set()). */
struct unic_flow_ctrl {
	bool rx_pause;            /**< obey pause frames received (hold transmission) */
	bool tx_pause;            /**< send pause frames when the receive buffer fills */
	uint32_t high_water;      /**< bytes of receive buffer in use: send XOFF above */
	uint32_t low_water;       /**< ... and XON below (with send_xon) */
	uint16_t pause_time;      /**< in the pause frames sent, in 512-bit-time quanta */
	bool send_xon;            /**< send XON when the buffer drains below low_water */
	bool mac_ctrl_frame_fwd;  /**< pass MAC control frames up (else the NIC drops them) */
	bool autoneg;             /**< pause negotiated with the link partner (get), asked (set) */
};

/** Interrupt coalescing (unic_port_coalesce_get(), unic_port_coalesce_set()). */
struct unic_coalesce {
	uint32_t rx_usecs;         /**< interrupt delay; 0: off */
	uint32_t tx_usecs;         /**< transmit completion interrupt delay; 0: off */
	/**
	 * Receive frames one interrupt may wait for (0 or 1: one each), for a
	 * device that counts frames instead of time: virtio-net's event index
	 * (VIRTIO_F_EVENT_IDX). Such a device has no timer: with more than
	 * one, a frame waits for the next ones until its poller looks, and
	 * the poller must look within rx_usecs (lib/napi's adaptive policy,
	 * which sets both, does). Frames, not buffers: virtio-net's event
	 * counts used buffers, and its driver turns N frames into N x the
	 * mean buffers a frame took (mergeable buffers; docs/virtio.md). A
	 * timer-based device (e1000e) ignores it and reads back 0.
	 */
	uint32_t rx_max_frames;
};

/**
 * Basic statistics. Every counter is 64-bit and only grows, except after
 * unic_port_stats_reset(). Per-queue figures for the first
 * UNIC_PORT_MAX_QUEUES queues.
 */
struct unic_port_stats {
	/** @{ */
	/** Packets received, packets sent, bytes received, bytes sent (no FCS). */
	uint64_t ipackets, opackets, ibytes, obytes;
	/** @} */
	uint64_t imissed;    /**< dropped by the NIC: no descriptor (app too slow) */
	uint64_t ierrors;    /**< bad frames (CRC, length, descriptor errors) */
	uint64_t oerrors;    /**< transmit failures */
	uint64_t rx_nombuf;  /**< refills that found the pool empty */
	uint64_t q_ipackets[UNIC_PORT_MAX_QUEUES]; /**< packets received, per rx queue */
	uint64_t q_ibytes[UNIC_PORT_MAX_QUEUES];   /**< bytes received, per rx queue */
	uint64_t q_opackets[UNIC_PORT_MAX_QUEUES]; /**< packets sent, per tx queue */
	uint64_t q_obytes[UNIC_PORT_MAX_QUEUES];   /**< bytes sent, per tx queue */
	uint64_t q_errors[UNIC_PORT_MAX_QUEUES];   /**< errors, per queue (where the driver counts them) */
};

/** The name of one extended stat (unic_port_xstats_names()). */
struct unic_xstat_name {
	char name[UNIC_XSTAT_NAMESIZE]; /**< NUL-terminated, e.g. "rx_good_packets" */
};

/** One rx/tx register dump (ethtool -d). */
struct unic_regs {
	uint32_t version;       /**< driver's layout version */
	uint32_t count;         /**< entries filled */
	uint32_t *offset;       /**< caller's arrays, count_max entries each */
	uint32_t *value;        /**< register values, in the order of offset */
	uint32_t count_max;     /**< room in the caller's arrays */
};

/* ---- ports ------------------------------------------------------------ */

struct unic_port;

/* A driver's fast-path functions, called through struct unic_port_fastpath
 * with the driver's queue object; the inline calls below document them. */
/** A driver's rx burst (unic_rx_burst()). */
typedef uint16_t (*unic_rx_burst_fn)(void *rxq, struct unic_pkt **pkts, uint16_t n);
/** A driver's tx burst (unic_tx_burst()). */
typedef uint16_t (*unic_tx_burst_fn)(void *txq, struct unic_pkt **pkts, uint16_t n);
/** A driver's tx prepare (unic_tx_prepare()). */
typedef uint16_t (*unic_tx_prepare_fn)(void *txq, struct unic_pkt **pkts, uint16_t n, int *err);
/** A driver's rx pending check (unic_rx_pending()). */
typedef bool (*unic_rx_pending_fn)(void *rxq);
/** A driver's rx interrupt arm or disarm (unic_rx_intr_enable(), unic_rx_intr_disable()). */
typedef int (*unic_rxq_intr_fn)(void *rxq);
/** A driver's tx reclaim (unic_tx_reclaim()). */
typedef int (*unic_tx_reclaim_fn)(void *txq);

/**
 * The fast-path view of a port; first member of struct unic_port, alone on
 * its cache lines. Written only by the control path: start stores the
 * driver's functions, stop, detach and device loss store stubs while other
 * threads may be reading. Every member is therefore read and written with
 * atomic accesses: a function pointer with acquire here and release there
 * (a thread that loads the driver's burst sees the queue it was started
 * with), a queue object relaxed (it is only used through the function
 * loaded before it). See docs/napi.md, "Who may call a port's burst
 * functions".
 */
struct unic_port_fastpath {
	unic_rx_burst_fn rx_burst;        /**< the driver's rx burst, or a stub returning 0 */
	unic_tx_burst_fn tx_burst;        /**< the driver's tx burst, or a stub returning 0 */
	unic_tx_prepare_fn tx_prepare;    /**< the driver's tx prepare, or a stub accepting all */
	unic_rx_pending_fn rx_pending;    /**< the driver's pending check, or a stub */
	unic_rxq_intr_fn rx_intr_enable;  /**< arm an rx queue's interrupt, or a stub */
	unic_rxq_intr_fn rx_intr_disable; /**< disarm it, or a stub */
	unic_tx_reclaim_fn tx_reclaim;    /**< reclaim sent buffers, or a stub */
	/** unic_tx_prepare() checks offload requests against the headers
	 * (unic_tx_offload_check()) first: started, with a checksum or TSO
	 * offload offered. */
	bool tx_offload_check;
	void *rxq[UNIC_PORT_MAX_QUEUES];  /**< the driver's rx queue objects */
	void *txq[UNIC_PORT_MAX_QUEUES];  /**< the driver's tx queue objects */
} UNIC_CACHE_ALIGNED;

/** The port as the inline fast-path calls see it. @internal Only the
 * fast-path table is visible; the rest of the port is private. */
struct unic_port_head {
	struct unic_port_fastpath fp; /**< the fast-path table */
};

/**
 * Receive up to @p n packets from queue @p q. @return how many (0..n).
 * The caller owns them; each has port and queue set.
 */
static inline uint16_t unic_rx_burst(struct unic_port *port, uint16_t q,
				     struct unic_pkt **pkts, uint16_t n)
{
	const struct unic_port_fastpath *fp = &((struct unic_port_head *)(void *)port)->fp;

	return __atomic_load_n(&fp->rx_burst, __ATOMIC_ACQUIRE)(
		__atomic_load_n(&fp->rxq[q], __ATOMIC_RELAXED), pkts, n);
}

/**
 * Send up to @p n packets on queue @p q. @return how many the port took;
 * the caller still owns pkts[ret..n-1] (free or retry them).
 */
static inline uint16_t unic_tx_burst(struct unic_port *port, uint16_t q,
				     struct unic_pkt **pkts, uint16_t n)
{
	const struct unic_port_fastpath *fp = &((struct unic_port_head *)(void *)port)->fp;

	return __atomic_load_n(&fp->tx_burst, __ATOMIC_ACQUIRE)(
		__atomic_load_n(&fp->txq[q], __ATOMIC_RELAXED), pkts, n);
}

/**
 * Check packets before unic_tx_burst(), as DPDK's rte_eth_tx_prepare: how
 * many of pkts[0..n-1], from the first, tx queue @p q would send rather
 * than refuse (a driver refuses, frees and counts in oerrors a packet it
 * cannot send as asked: an offload request that does not match the
 * packet's headers, a malformed chain, more descriptors than the queue
 * has). Nothing is sent, freed or changed; one call through the port's
 * fast-path table, no allocation, no logging.
 *
 * Two steps: on a port that offers a checksum or TSO offload, each offload
 * request is first checked against the packet's headers
 * (unic_tx_offload_check(), unic/net.h); then the driver checks what its
 * ring needs (segments, descriptors).
 *
 * @param port a port (started, or nothing is checked)
 * @param q the tx queue the packets are for
 * @param pkts the packets, in the order they would be sent
 * @param n how many
 *
 * When the return value is less than @p n, pkts[ret] is refused: the
 * caller frees it and counts it as dropped, and may prepare the packets
 * after it (pkts + ret + 1). A driver without checks and without checksum
 * or TSO offloads (null, ring) accepts every packet. On a port that is not
 * started every packet is accepted and the driver is not called
 * (unic_tx_burst() then takes none).
 *
 * @param err where the reason goes (may be NULL): 0 when every packet is
 *        accepted, else the refusal of pkts[ret] as a negative errno:
 *        -EINVAL (offload flags or lengths that do not match the headers,
 *        a malformed chain, more data descriptors than the driver allows),
 *        -EMSGSIZE (more descriptors than the queue holds).
 * @return the number of leading packets the queue accepts (0..n).
 */
static inline uint16_t unic_tx_prepare(struct unic_port *port, uint16_t q,
				       struct unic_pkt **pkts, uint16_t n, int *err)
{
	const struct unic_port_fastpath *fp = &((struct unic_port_head *)(void *)port)->fp;
	unic_tx_prepare_fn drv = __atomic_load_n(&fp->tx_prepare, __ATOMIC_ACQUIRE);
	void *txq = __atomic_load_n(&fp->txq[q], __ATOMIC_RELAXED);
	int e, drv_err;
	uint16_t ok, drv_ok;

	if (err == NULL)
		err = &e;
	if (!__atomic_load_n(&fp->tx_offload_check, __ATOMIC_RELAXED))
		return drv(txq, pkts, n, err);
	ok = unic_tx_offload_prepare(pkts, n, err);
	drv_ok = ok ? drv(txq, pkts, ok, &drv_err) : 0;
	if (drv_ok < ok) {
		*err = drv_err;
		return drv_ok;
	}
	return ok;
}

/**
 * Prepare and send pkts[0..n-1] on tx queue @p q, and free what is not sent:
 * a packet the queue refuses (unic_tx_prepare()) is freed and the packets
 * after it are still tried; when the queue is full the rest is freed.
 * For forwarders that drop rather than retry (unic-l2fwd, unic-testpmd).
 *
 * @param port the port to send on
 * @param q its tx queue (used by this thread only)
 * @param pkts the packets; every one is sent or freed (the caller owns none after)
 * @param n how many
 * @param dropped set to the number of packets freed unsent (refused or no
 *        room); the caller counts them as dropped.
 * @return the number of packets sent (taken by the queue).
 */
static inline uint16_t unic_tx_burst_or_free(struct unic_port *port, uint16_t q,
					     struct unic_pkt **pkts, uint16_t n, uint16_t *dropped)
{
	uint16_t done = 0, sent = 0, lost = 0;

	while (done < n) {
		uint16_t ok = unic_tx_prepare(port, q, pkts + done, (uint16_t)(n - done), NULL);
		uint16_t took = ok ? unic_tx_burst(port, q, pkts + done, ok) : 0;

		sent = (uint16_t)(sent + took);
		if (UNIC_UNLIKELY(took < ok)) {
			/* The queue is full: the rest is dropped. */
			unic_pkt_free_bulk(pkts + done + took, (uint32_t)(n - done - took));
			lost = (uint16_t)(lost + n - done - took);
			break;
		}
		done = (uint16_t)(done + ok);
		if (UNIC_UNLIKELY(done < n)) {
			/* pkts[done] is refused: freed, never sent. */
			unic_pkt_free(pkts[done]);
			lost++;
			done++;
		}
	}
	*dropped = lost;
	return sent;
}

/** Cheap check: does rx queue @p q hold a received packet? */
static inline bool unic_rx_pending(struct unic_port *port, uint16_t q)
{
	const struct unic_port_fastpath *fp = &((struct unic_port_head *)(void *)port)->fp;

	return __atomic_load_n(&fp->rx_pending, __ATOMIC_ACQUIRE)(
		__atomic_load_n(&fp->rxq[q], __ATOMIC_RELAXED));
}

/**
 * Arm rx queue @p q's interrupt: from now on a packet arriving on the queue
 * makes its interrupt source readable. Called by the queue's poller only;
 * lock-free. The caller re-checks the ring afterwards (unic_rx_pending) to
 * catch a packet that arrived just before arming.
 * @return 0, or -ENOTSUP (the port has no rx interrupts), -EIO.
 */
static inline int unic_rx_intr_enable(struct unic_port *port, uint16_t q)
{
	const struct unic_port_fastpath *fp = &((struct unic_port_head *)(void *)port)->fp;

	return __atomic_load_n(&fp->rx_intr_enable, __ATOMIC_ACQUIRE)(
		__atomic_load_n(&fp->rxq[q], __ATOMIC_RELAXED));
}

/** Disarm rx queue @p q's interrupt (back to polling). */
static inline int unic_rx_intr_disable(struct unic_port *port, uint16_t q)
{
	const struct unic_port_fastpath *fp = &((struct unic_port_head *)(void *)port)->fp;

	return __atomic_load_n(&fp->rx_intr_disable, __ATOMIC_ACQUIRE)(
		__atomic_load_n(&fp->rxq[q], __ATOMIC_RELAXED));
}

/**
 * Reclaim what tx queue @p q has sent (free the buffers). Called by the
 * queue's user, e.g. the napi engine before it sleeps.
 * @return how many buffers were freed (>= 0), or -errno.
 */
static inline int unic_tx_reclaim(struct unic_port *port, uint16_t q)
{
	const struct unic_port_fastpath *fp = &((struct unic_port_head *)(void *)port)->fp;

	return __atomic_load_n(&fp->tx_reclaim, __ATOMIC_ACQUIRE)(
		__atomic_load_n(&fp->txq[q], __ATOMIC_RELAXED));
}

/* Lookup and references. */

/** Take a reference. @return @p port. */
struct unic_port *unic_port_get(struct unic_port *port);
/** Drop a reference; the last one frees the port. NULL is accepted. */
void unic_port_put(struct unic_port *port);
/** The port with this id, with a reference taken, or NULL. */
struct unic_port *unic_port_get_by_id(uint16_t id);
/** The port with this name, with a reference taken, or NULL. */
struct unic_port *unic_port_get_by_name(const char *name);
/** Ids of the registered ports, in id order. @return how many (<= max). */
unsigned unic_port_list(uint16_t *ids, unsigned max);

/** The port's id (unic_port_get_by_id(), unic_port_list()): stable while it lives. */
uint16_t unic_port_id(const struct unic_port *port);
/** The port's name ("ring0", "e1000e0", ...); valid as long as a reference is held. */
const char *unic_port_name(const struct unic_port *port);

/**
 * Create a virtual port from a spec such as "ring0", "ring1,peer=ring0" or
 * "null0,size=64" (docs/ports.md). The driver is the name without its
 * trailing digits.
 * @return 0 and a port (one reference, the caller's), or -EINVAL (bad spec,
 *         unknown driver: the message lists the drivers), -EEXIST (name in
 *         use), -ENOMEM.
 */
int unic_vdev_create(const char *spec, struct unic_port **out);

struct unic_bus;
struct unic_pci_info;

/**
 * Probe PCI devices for ports: scan @p bus and hand every device (or only
 * those in @p allow, PCI addresses DDDD:BB:DD.F or BB:DD.F) that a driver of
 * this build drives and that is bound to vfio-pci or uio_pci_generic to its
 * driver, which creates and registers a port. A matching device bound to a
 * kernel driver is reported with the unic-devbind command that binds it (an
 * error only when it is listed in @p allow).
 * @param bus      the bus to scan (unic_bus_create(); unic_env_bus()).
 * @param allow    PCI addresses to probe, or NULL for every device.
 * @param nb_allow entries in @p allow (0 with NULL).
 * @param ports gets the ports created, each with one reference the caller
 *        owns (unic_port_put; the registry holds its own); NULL if @p max is 0.
 * @param max   room in @p ports.
 * @return how many ports were created, or -errno: -EINVAL (a malformed
 *         address in @p allow), -ENODEV (a device in @p allow does not exist
 *         or no driver drives it), -EBUSY (a device in @p allow is not bound
 *         for userspace), -ENOSPC (more than @p max ports), the open's or the
 *         driver's error for a device in @p allow. On an error no port of
 *         this call is left: the ports it created are detached.
 */
int unic_port_probe_pci(struct unic_bus *bus, const char *const *allow, unsigned nb_allow,
			struct unic_port **ports, unsigned max);

/**
 * The older form of unic_port_probe_pci(), kept for compatibility: returns
 * only how many ports were created, and on an error the ports created by
 * then stay registered (find them with unic_port_list()).
 */
int unic_bus_probe(struct unic_bus *bus, const char *const *allow, unsigned nb_allow);

/**
 * The name of the driver of this build that drives PCI device @p info (by
 * vendor and device id), or NULL.
 */
const char *unic_port_pci_driver(const struct unic_pci_info *info);

/**
 * Close (if needed) and unregister a port: it leaves the port list at once;
 * calls through existing references return -ENODEV. Drops nothing: the
 * caller still puts its own reference.
 */
int unic_port_detach(struct unic_port *port);

/* Lifecycle (the state machine is at the top of this file). Each call
 * made in the wrong state is refused with -EBUSY or -EINVAL and a log line
 * naming the state it needs; on a closed or detached port, -ENODEV. */
/** Fill @p info with the port's limits and capabilities. @return 0 or -ENODEV. */
int unic_port_info_get(struct unic_port *port, struct unic_port_info *info);
/**
 * Set the number of queues, offloads, rx mode, MTU and RSS (allocated or
 * stopped port; queues set up before are released). Values out of the
 * port's limits are refused, and the log names the limit.
 * @return 0, -EINVAL (sz unset, a value out of range, wrong state), -EBUSY
 *         (started), -ENODEV, or the driver's -errno.
 */
int unic_port_configure(struct unic_port *port, const struct unic_port_conf *conf);
/**
 * Set up rx queue @p q (configured or stopped port): its descriptors, on
 * @p conf's NUMA node, filled from @p conf's pool when the port starts.
 * @return 0, -EINVAL (q out of range, no pool, a descriptor count out of
 *         the port's limits), -EBUSY (started), -ENODEV, -ENOMEM.
 */
int unic_port_rx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_rxq_conf *conf);
/**
 * Set up tx queue @p q (configured or stopped port).
 * @return 0, -EINVAL (q out of range, a descriptor count out of the port's
 *         limits), -EBUSY (started), -ENODEV, -ENOMEM.
 */
int unic_port_tx_queue_setup(struct unic_port *port, uint16_t q, const struct unic_txq_conf *conf);
/**
 * Start the port once every queue is set up: the driver fills the rx
 * queues and the fast-path calls reach it from now on.
 * @return 0, -EINVAL (a queue not set up), -EBUSY (started already),
 *         -ENODEV, or the driver's -errno (the log says why).
 */
int unic_port_start(struct unic_port *port);
/**
 * Stop a started port: the fast path returns 0 again, every napi context
 * that claimed one of its queues lets go of it (at a round boundary), then
 * the driver stops. Queues and configuration are kept.
 * @return 0, -EINVAL (not started), -ENODEV.
 */
int unic_port_stop(struct unic_port *port);
/**
 * Close a port that is not started: its queues are released (their
 * buffers go back to their pools) and its driver is never called again.
 * @return 0, -EBUSY (started: stop it first), -ENODEV.
 */
int unic_port_close(struct unic_port *port);

/** Where a port is in its lifecycle (unic_port_state()). */
enum unic_port_state {
	UNIC_PORT_ALLOCATED,  /**< created, not configured */
	UNIC_PORT_CONFIGURED, /**< configured, queues not all set up */
	UNIC_PORT_READY,     /**< every queue set up (also: stopped) */
	UNIC_PORT_STARTED,    /**< started: the fast path reaches the driver */
	UNIC_PORT_CLOSED,     /**< closed: control calls return -ENODEV */
	UNIC_PORT_DETACHED,   /**< detached: out of the port list */
};

/** The port's state now (any thread). */
enum unic_port_state unic_port_state(const struct unic_port *port);
/** "allocated", "configured", ...; "?" for another value. */
const char *unic_port_state_name(enum unic_port_state st);
/** The configuration in effect (after configure). @return 0 or -EINVAL. */
int unic_port_conf_get(struct unic_port *port, struct unic_port_conf *conf);

/* Control: the ethtool set. Ops a driver lacks return -ENOTSUP; a closed
 * or detached port returns -ENODEV. */
/** The link state now (no wait). @return 0, -ENOTSUP, -ENODEV. */
int unic_port_link_get(struct unic_port *port, struct unic_link *link);
/** Wait until the link is up or @p timeout_ms passes (-ETIMEDOUT). */
int unic_port_link_wait(struct unic_port *port, unsigned timeout_ms, struct unic_link *link);
/** Bring the link up or down (administratively). @return 0, -ENOTSUP, -ENODEV. */
int unic_port_link_set(struct unic_port *port, bool up);
/** The port's primary MAC address. @return 0, -ENOTSUP, -ENODEV. */
int unic_port_mac_get(struct unic_port *port, uint8_t mac[UNIC_ETHER_ADDR_LEN]);
/** Replace the primary MAC address. @return 0, -EINVAL (multicast or all zeros), -ENOTSUP, -ENODEV. */
int unic_port_mac_set(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
/** Receive frames to one more unicast address. @return 0, -EINVAL (multicast or all zeros), -ENOSPC (filter full), -ENOTSUP, -ENODEV. */
int unic_port_mac_add(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
/** Stop receiving frames to an address added with unic_port_mac_add(). @return 0, -ENOENT, -ENOTSUP, -ENODEV. */
int unic_port_mac_remove(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
/** Promiscuous receive on or off (unic_port_promisc_get()). @return 0, -ENOTSUP, -ENODEV. */
int unic_port_promisc_set(struct unic_port *port, bool on);
/** All-multicast receive on or off (unic_port_allmulti_get()). @return 0, -ENOTSUP, -ENODEV. */
int unic_port_allmulti_set(struct unic_port *port, bool on);
/**
 * Is promiscuous (all-multicast) receive on? For a driver with the filter
 * (promisc_set/allmulti_set op): what the last successful
 * unic_port_promisc_set() (unic_port_allmulti_set()) made it, off until
 * then; drivers keep it across stop/start (null and ring ports, which
 * filter nothing, take the setting and report it back, as DPDK's net_null
 * and net_ring do). For a driver without the op: on, since such a port
 * receives every frame.
 * @return 1 (on), 0 (off), or -ENODEV (closed or detached port).
 */
int unic_port_promisc_get(struct unic_port *port);
/** Is all-multicast receive on? As unic_port_promisc_get(). */
int unic_port_allmulti_get(struct unic_port *port);
/** Most addresses unic_port_mc_addr_list_set() takes at once. */
#define UNIC_PORT_MC_ADDR_MAX 256
/**
 * Replace the port's multicast address list: with all-multicast and
 * promiscuous mode off, frames to a listed group address are received and
 * frames to other group addresses are dropped (a hash filter may let an
 * unlisted address through when it shares a hash bucket with a listed one).
 * @p nb 0 empties the list. The list is kept across stop/start.
 * @return 0, -EINVAL (an address is not multicast, or @p nb is over
 * UNIC_PORT_MC_ADDR_MAX), -ENOTSUP.
 */
int unic_port_mc_addr_list_set(struct unic_port *port, const uint8_t (*addrs)[UNIC_ETHER_ADDR_LEN],
			       unsigned nb);
/**
 * Add (@p on) or remove VLAN @p vlan_id in the port's VLAN filter, which
 * drops tagged frames of unlisted VLANs while UNIC_RX_OFFLOAD_VLAN_FILTER is
 * on. The list is kept across stop/start. @return 0, -EINVAL (id > 4095),
 * -ENOTSUP.
 */
int unic_port_vlan_filter_set(struct unic_port *port, uint16_t vlan_id, bool on);
/** Set the MTU (info min_mtu..max_mtu). @return 0, -EINVAL (out of range), -EBUSY, -ENOTSUP, -ENODEV. */
int unic_port_mtu_set(struct unic_port *port, uint16_t mtu);
/** The interrupt coalescing in effect (@p c zeroed first: what the driver does not set reads 0). @return 0, -ENOTSUP, -ENODEV. */
int unic_port_coalesce_get(struct unic_port *port, struct unic_coalesce *c);
/** Set interrupt coalescing (the driver rounds to what the device can). @return 0, -EINVAL, -ENOTSUP, -ENODEV. */
int unic_port_coalesce_set(struct unic_port *port, const struct unic_coalesce *c);
/**
 * RSS hash types and key in effect (the driver's default key when none was
 * set). @return 0, -ENOTSUP (the port has no RSS: ring, null, ...), -ENODEV.
 */
int unic_port_rss_hash_get(struct unic_port *port, struct unic_rss_conf *rss);
/**
 * Set the RSS hash types (within info rss_hash_capa) and key (key_len 0: kept;
 * else info rss_key_size bytes). Takes effect at once on a port started with
 * RSS (several rx queues), else from its next start; kept in the port's
 * configuration. @return 0, -EINVAL (a type the port cannot hash, a key of
 * another size: the log says which), -ENOTSUP, -ENODEV.
 */
int unic_port_rss_hash_update(struct unic_port *port, const struct unic_rss_conf *rss);
/**
 * Read the RSS redirection table: @p size must be info reta_size; entry i is
 * the rx queue of the packets whose hash's low bits are i.
 * @return 0, -EINVAL (another size), -ENOTSUP, -ENODEV.
 */
int unic_port_rss_reta_query(struct unic_port *port, uint16_t *reta, uint16_t size);
/**
 * Write the entries of the RSS redirection table whose bit is set in @p mask
 * (bit i % 64 of mask[i / 64]); @p size must be info reta_size, each entry
 * written below the configured number of rx queues. Takes effect at once.
 * @return 0, -EINVAL (size, a queue out of range: the log says which),
 * -ENOTSUP, -ENODEV.
 */
int unic_port_rss_reta_update(struct unic_port *port, const uint16_t *reta, const uint64_t *mask,
			      uint16_t size);
/** 802.3x flow control in effect. @return 0, -ENOTSUP (the driver has none: every virtual port), -ENODEV. */
int unic_port_flow_ctrl_get(struct unic_port *port, struct unic_flow_ctrl *fc);
/**
 * Set 802.3x flow control, at once and kept across stop/start.
 * @return 0, -EINVAL (thresholds the device cannot take, autoneg where the
 * driver does not negotiate pause: the log says which), -ENOTSUP, -ENODEV.
 */
int unic_port_flow_ctrl_set(struct unic_port *port, const struct unic_flow_ctrl *fc);
/** Message level for this port's driver logs (UNIC_LOG_ERR..DEBUG). */
int unic_port_msglevel_set(struct unic_port *port, int level);
/** The message level of this port's driver logs. */
int unic_port_msglevel_get(const struct unic_port *port);
/** Dump rx/tx registers into the caller's arrays (ethtool -d). @return 0, -ENOTSUP, -ENODEV, or the driver's -errno. */
int unic_port_regs_get(struct unic_port *port, struct unic_regs *regs);
/** Read @p len bytes of the device's EEPROM from byte @p offset (ethtool -e). @return 0, -EINVAL (out of the EEPROM), -ENOTSUP, -ENODEV, -EIO. */
int unic_port_eeprom_get(struct unic_port *port, uint32_t offset, uint32_t len, uint8_t *buf);

/* Statistics. */
/** The basic counters (any thread, also while the port runs). @return 0, -ENODEV. */
int unic_port_stats_get(struct unic_port *port, struct unic_port_stats *st);
/** Zero the figures unic_port_stats_get and xstats report (only on request). */
int unic_port_stats_reset(struct unic_port *port);
/** Names of the extended stats. @return the count (may exceed @p max), or -errno. */
int unic_port_xstats_names(struct unic_port *port, struct unic_xstat_name *names, unsigned max);
/** Values, in the order of the names. @return the count, or -errno. */
int unic_port_xstats_get(struct unic_port *port, uint64_t *values, unsigned max);
/** One extended stat by name. @return 0, -ENOENT (no such name), or -errno. */
int unic_port_xstat_by_name(struct unic_port *port, const char *name, uint64_t *value);

/* ---- queues and descriptors ------------------------------------------ */

/** One queue as set up (unic_port_queue_info_get()). */
struct unic_queue_info {
	bool setup;               /**< the queue is set up */
	uint16_t nb_desc;         /**< its ring's descriptors (0: not set up) */
	struct unic_pool *pool;   /**< rx: the pool it receives into */
};

/**
 * Rx (@p tx false) or tx queue @p q of @p port as set up.
 * @return 0; -EINVAL: @p q is past the configured queues or the port is
 *         not configured; -ENODEV: closed.
 */
int unic_port_queue_info_get(struct unic_port *port, bool tx, uint16_t q, struct unic_queue_info *qi);

/** A descriptor's state (unic_port_desc_status()), as DPDK's. */
enum unic_desc_status {
	UNIC_DESC_AVAIL = 0,       /**< rx: has a buffer, waiting for a frame; tx: queued, not sent yet (DPDK's FULL) */
	UNIC_DESC_DONE = 1,        /**< rx: holds a frame not yet taken; tx: sent, or free */
	UNIC_DESC_UNAVAIL = 2,     /**< rx: no buffer (not refilled yet) */
};

/**
 * The status of the descriptor @p offset past the next one queue @p q will
 * use (rx: receive; tx: fill). Control path: the port is started and no
 * thread is inside the queue's bursts (the caller stops them).
 * @return an enum unic_desc_status; -EINVAL: offset at or past the ring size,
 *         queue not set up; -ENOTSUP: the driver has no such op; -ENODEV.
 */
int unic_port_desc_status(struct unic_port *port, bool tx, uint16_t q, uint16_t offset);

/**
 * How many descriptors of rx queue @p q hold frames not yet taken (as
 * unic_port_desc_status()'s conditions). @return the count or -errno.
 */
int unic_port_rx_queue_count(struct unic_port *port, uint16_t q);

/**
 * The raw little-endian 32-bit words of descriptor @p desc (an index into
 * the ring, 0..nb_desc-1) of queue @p q, as the device sees them, into
 * @p words (at most @p max). Port set up, as unic_port_desc_status().
 * @return the number of words of a descriptor (may exceed @p max) or -errno
 *         (-ENOTSUP: the driver's ring is not a descriptor ring it can show).
 */
int unic_port_desc_read(struct unic_port *port, bool tx, uint16_t q, uint16_t desc, uint32_t *words,
			unsigned max);

/* Interrupts (for lib/napi and interrupt mode). */

/** How an interrupt source's fd is read (and unmasked). */
enum unic_intr_kind {
	UNIC_INTR_SOCKET = 0,  /**< read nothing: a socket readable while its
				    receive ring holds a frame (af_xdp,
				    af_packet);
				    level-triggered, acknowledging is a no-op */
	UNIC_INTR_EVENTFD = 8, /**< read 8 bytes (VFIO, ring doorbells) */
	UNIC_INTR_UIO = 4,     /**< read 4 bytes; write 1 (4 bytes) to unmask, or
				    call the source's unmask callback instead
				    when it has one (uio_pci_generic has no
				    irqcontrol: INTx is unmasked in config space) */
};

/** One interrupt source: one fd, the rx queues it wakes. */
struct unic_intr_source {
	int fd;                    /**< readable when the interrupt fires */
	enum unic_intr_kind kind;  /**< also the number of bytes to read */
	uint32_t queue_mask;       /**< bit q: rx queue q is bound here */
	uint16_t index;            /**< the driver's number for it */
	/** Optional: unmask after the read (VFIO INTx); NULL if not needed. */
	int (*unmask)(void *ctx);
	void *unmask_ctx;          /**< argument of unmask */
};

/**
 * The port's rx interrupt sources (started port in interrupt or hybrid mode).
 * With MSI-X each rx queue has its own; with INTx or one MSI vector all share
 * one. @return the count, or -ENOTSUP (no interrupts: the driver has none, or
 * the port is in poll mode), -EINVAL (not started).
 */
int unic_port_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max);
/**
 * Drain a source after a wake (read its fd) and unmask it where the kind
 * needs that (UIO). Lock-free; called by the poller that owns the source.
 * @return 0, -EAGAIN (nothing was pending), or -errno.
 */
int unic_intr_source_ack(const struct unic_intr_source *src);

/**
 * The Linux IRQ number that carries rx queue @p q's interrupt (e1000e over
 * VFIO: the queue's MSI-X vector; over uio_pci_generic or INTx: the
 * device's legacy line, shared by its queues). The port must be started in
 * interrupt or hybrid rx mode.
 * @return the IRQ number, or -ENOTSUP (the driver has no kernel interrupt:
 *         ring, null), -EINVAL (queue not set up, port not started or in
 *         poll mode), -ENOENT and others of unic_pci_irq_kernel_num().
 */
int unic_port_rx_intr_irq(struct unic_port *port, uint16_t q);

/**
 * Have the kernel take rx queue @p q's interrupt on CPU @p cpu, as the
 * Linux kernel's NAPI runs on the CPU that took the IRQ: a poller pinned to
 * that CPU is then woken without a cross-CPU wake-up (about 30 us at p50 on
 * a VM, docs/performance.md). Needs root; holds until the port stops (its
 * vectors are freed then): set it again after each start. With INTx the
 * line is shared by every queue of the port: the last call wins.
 * @return the IRQ number moved, or -errno as unic_port_rx_intr_irq(), and
 *         -EACCES/-EPERM (not root), -EIO (the kernel refused to move this
 *         interrupt), -EINVAL (a CPU that is not online); each is logged
 *         with what to do (unic_pci_irq_affinity_set()).
 */
int unic_port_rx_intr_affinity_set(struct unic_port *port, uint16_t q, int cpu);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_PORT_H */
