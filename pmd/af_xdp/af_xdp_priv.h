/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_xdp port: structures shared by the control part (af_xdp_port.c)
 * and the fast path (af_xdp_rxtx.c), and who owns what.
 *
 * One AF_XDP socket (XSK) per queue pair: rx queue q and tx queue q of the
 * port are the rx and tx rings of the socket bound to queue start_queue + q
 * of the interface. Each socket has its own UMEM, a zone of the port's DMA
 * memory (the rx pool's memory context: hugepages where the application
 * has them), cut into frames of AFXDP_FRAME_SIZE bytes:
 *
 *   frames [0, nb_rx_frames)                          receive: the fill ring
 *                                                     and the rx ring
 *   frames [nb_rx_frames, nb_rx_frames + nb_tx_frames) transmit: the tx ring
 *                                                     and the completion ring
 *
 * owned[f] is 1 while frame f is the kernel's (put on the fill or tx ring
 * and not yet handed back on the rx or completion ring), 0 while it is ours.
 * Everything the kernel writes (descriptor addresses and lengths, ring
 * producer indexes) is checked against that before use: a frame that is
 * not the kernel's, an address outside the frames of the ring's side, a
 * length past the frame or a producer more than a ring ahead is counted
 * and skipped (the malicious-peer test, tests/unit/test_af_xdp.c).
 *
 * That is the copy layout, used when the rx pool cannot be the UMEM:
 * receive copies each frame into a packet of the rx pool and gives the
 * frame straight back to the fill ring; transmit copies each packet into a
 * free tx frame and frees the packet. Normally the rx pool itself is the
 * UMEM (pool_umem, unaligned chunks): the fill ring gets packets of the
 * pool, a received descriptor is a packet, and a packet of that pool is
 * transmitted in place and freed when the completion ring returns it
 * (docs/ports.md, "af_xdp").
 */
#ifndef AF_XDP_PRIV_H
#define AF_XDP_PRIV_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <xdp/libxdp.h>
#include <xdp/xsk.h>

#include <unic/mem.h>

#include "unic_port_driver.h"

#define AFXDP_FRAME_SIZE  4096u  /* one page: aligned chunk mode */
#define AFXDP_FRAME_SHIFT 12
#define AFXDP_DESC_MIN    64
#define AFXDP_DESC_MAX    4096
/* The deepest ring (DPDK's net_af_xdp takes libxdp's 2048): when the
 * kernel's receive shares the forwarder's CPU (a NIC's interrupt, veth's
 * NAPI thread), it fills the rx ring while the forwarder is off the CPU,
 * and what does not fit was work done for nothing
 * (docs/performance-notebook.md: 1024, 2048, 4096 counted). */
#define AFXDP_DESC_DEFAULT 4096

/* The driver's own counters of a queue, in xstats order (af_xdp_port.c:
 * afxdp_qstat_names). One writer each: the rx side's by the rx burst's
 * thread, the tx side's by the tx burst's. */
enum {
	AFXDP_RX_BAD_ADDR,     /* rx descriptor: not a receive frame the kernel had */
	AFXDP_RX_BAD_LEN,      /* rx descriptor: length 0 or past the frame */
	AFXDP_RX_TOO_LONG,     /* frame longer than the rx pool's data room */
	AFXDP_RX_BAD_INDEX,    /* rx ring producer more than a ring ahead */
	AFXDP_RX_WAKEUPS,      /* fill ring kicks (need_wakeup) */
	AFXDP_RX_NB
};

enum {
	AFXDP_TX_BAD_ADDR,     /* completion: not a transmit frame the kernel had */
	AFXDP_TX_BAD_INDEX,    /* completion ring producer more than a ring ahead */
	AFXDP_TX_RING_FULL,    /* packets a burst did not take: no free frame */
	AFXDP_TX_TOO_LONG,     /* packets refused: longer than a frame (freed) */
	AFXDP_TX_WAKEUPS,      /* tx kicks (sendto) */
	AFXDP_TX_KICK_ERRORS,  /* kicks that failed with other than EAGAIN/EBUSY/ENOBUFS */
	AFXDP_TX_NB
};

/* The kernel's XDP_STATISTICS, summed over sockets that were closed. */
enum {
	AFXDP_K_RX_DROPPED,
	AFXDP_K_RX_INVALID,
	AFXDP_K_TX_INVALID,
	AFXDP_K_RX_RING_FULL,
	AFXDP_K_RX_FILL_EMPTY,
	AFXDP_K_TX_RING_EMPTY,
	AFXDP_K_NB
};

struct afxdp_queue {
	/* ---- receive side: the rx burst's thread ---- */
	struct xsk_ring_cons rx;
	struct xsk_ring_prod fq;
	uint8_t *area;            /* the UMEM: frames of AFXDP_FRAME_SIZE */
	uint8_t *owned;           /* [nb_rx_frames + nb_tx_frames]: 1 = the kernel's */
	uint32_t nb_rx_frames;
	uint32_t nb_tx_frames;
	struct unic_pool *pool;
	uint16_t port_id;
	uint16_t qid;
	int fd;                   /* the socket; -1: none (tests, a stopped port) */
	bool busy_poll;           /* busy_budget > 0: recvfrom on an empty rx ring */
	int intr_enabled;         /* rx interrupt armed (informational: the fd is level-triggered) */
	uint32_t *fill_stash;     /* receive frames back from the kernel, not yet on the fill ring */
	uint32_t fill_stash_n;
	struct unic_rxq_counters rcnt;
	struct unic_counter rx_x[AFXDP_RX_NB];

	/* Pool UMEM (pool_umem): the rx pool's objects are the UMEM, so a
	 * received frame is a packet and a packet of that pool is sent as it
	 * is. Object k is first + k * stride; its buffer starts at UMEM offset
	 * buf0 + k * stride, and the kernel may use chunk bytes of it. */
	bool pool_umem;
	uint8_t *base;            /* the UMEM's first byte (page-aligned) */
	size_t umem_len;
	uint8_t *first;           /* object 0 */
	uint64_t buf0;
	uint32_t stride;
	uint64_t stride_inv;      /* afxdp_stride_set(): 2^64 / stride, rounded up */
	uint32_t nb_objs;
	uint32_t chunk;
	uint8_t *rx_owned;        /* [nb_objs] 1: on the fill ring or the rx ring */
	uint32_t rx_held;

	/* ---- transmit side: the tx burst's thread ---- */
	struct xsk_ring_prod tx UNIC_CACHE_ALIGNED;
	struct xsk_ring_cons cq;
	uint32_t *tx_free;        /* stack of free transmit frame numbers */
	uint32_t tx_free_n;
	struct unic_txq_counters tcnt;
	struct unic_counter tx_x[AFXDP_TX_NB];
	uint8_t *tx_owned;        /* pool UMEM: [nb_objs] 1: on the tx or completion ring */
	uint32_t tx_held;

	/* ---- control (under the port lock) ---- */
	bool rx_setup, tx_setup;
	uint16_t rx_desc, tx_desc;
	struct xsk_umem *umem;
	struct xsk_socket *xsk;
	struct unic_dma dma;
	bool zero_copy;           /* bound with XDP_ZEROCOPY */
	uint64_t kstat_base[AFXDP_K_NB];  /* XDP_STATISTICS of closed sockets */
} UNIC_CACHE_ALIGNED;

struct afxdp_port {
	char ifname[IF_NAMESIZE];
	int ifindex;
	uint32_t start_queue;
	uint32_t queue_count;
	uint32_t busy_budget;     /* 0: no busy polling */
	bool force_copy;
	bool pool_umem;           /* try the rx pool as the UMEM (devarg pool_umem, default 1) */
	int xdp_mode;             /* 0 auto, else XDP_FLAGS_SKB_MODE / XDP_FLAGS_DRV_MODE */
	char prog_path[256];      /* "": libxdp's default program */
	char prog_sec[64];
	struct xdp_program *prog; /* the user's program while started */
	int xsks_map_fd;
	uint32_t adopted_prog_id; /* libxdp's program found attached at start, detached at stop */
	short flags_set;          /* IFF_PROMISC / IFF_ALLMULTI this port turned on */
	int orig_mtu;             /* the interface's MTU before this port changed it; 0: unchanged */
	struct afxdp_queue q[UNIC_PORT_MAX_QUEUES];
};

/* Pool UMEM: set the object stride and its reciprocal, with which the fast
 * path turns a UMEM offset into an object index by a multiplication instead
 * of a division (three of them a frame: receive, refill, completion). */
static inline void afxdp_stride_set(struct afxdp_queue *xq, uint32_t stride)
{
	xq->stride = stride;
	xq->stride_inv = UINT64_MAX / stride + 1;
}

/* @p d / stride and @p d % stride. Exact for every d below 2^32 (a 64-bit
 * reciprocal rounded up: Lemire, Kaser and Kurz, "Faster remainder by
 * direct computation", 2019); a larger d divides. */
static inline uint64_t afxdp_stride_div(const struct afxdp_queue *xq, uint64_t d, uint64_t *rem)
{
	uint64_t k;

	if (UNIC_UNLIKELY(d > UINT32_MAX)) {
		*rem = d % xq->stride;
		return d / xq->stride;
	}
	k = (uint64_t)(((unsigned __int128)xq->stride_inv * d) >> 64);
	*rem = d - k * xq->stride;
	return k;
}

static inline struct afxdp_port *afxdp_priv(struct unic_port *port)
{
	return unic_port_priv(port);
}

/* The XDP program (af_xdp_prog.c). Control path, under the port lock. */
/* Route libxdp's and libbpf's messages to the debug log. */
void afxdp_lib_print_init(void);
/* "native", "generic (skb)", ... for a libxdp attach mode. */
const char *afxdp_mode_name(enum xdp_attach_mode m);
/* Before start: refuse a program libxdp cannot share (-EBUSY, logged). */
int afxdp_check_attached(struct unic_port *port);
/* Open and attach xdp_prog=, find its xsks_map. @return 0 or -errno (logged). */
int afxdp_prog_load(struct unic_port *port);
/* Detach and close the user's program, if any. */
void afxdp_prog_unload(struct unic_port *port);
/* Detach libxdp's program this port found attached at start, if still there. */
void afxdp_adopted_detach(struct unic_port *port);

/* Fast path (af_xdp_rxtx.c). The burst functions take a struct afxdp_queue. */
uint16_t afxdp_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n);
uint16_t afxdp_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n);
uint16_t afxdp_tx_prepare(void *q, struct unic_pkt **pkts, uint16_t n, int *err);
bool afxdp_rx_pending(void *q);
int afxdp_rx_intr_enable(void *q);
int afxdp_rx_intr_disable(void *q);
int afxdp_tx_reclaim(void *q);
/* Put every receive frame on the fill ring (start). @return frames put. */
uint32_t afxdp_fill_all(struct afxdp_queue *xq);
/* Make every transmit frame free (start). */
void afxdp_tx_frames_init(struct afxdp_queue *xq);
/* Pool UMEM: put packets on the fill ring up to nb_rx_frames (start, and
 * each rx burst). @return packets on it. */
uint32_t afxdp_fill_pool(struct afxdp_queue *xq);
/* Pool UMEM: free every packet the kernel still holds (stop, after the
 * socket is closed). */
void afxdp_release_pool(struct afxdp_queue *xq);

#endif /* AF_XDP_PRIV_H */
