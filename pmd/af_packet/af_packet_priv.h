/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_packet port: a unic port over Linux AF_PACKET sockets bound to a
 * network interface (docs/ports.md, "af_packet").
 *
 * Objects and who owns them:
 *
 *   struct afp_port   the private area. Holds the control socket (created at
 *                     vdev creation, closed at close: link, MAC and MTU
 *                     ioctls, and the PACKET_MR_PROMISC/ALLMULTI memberships,
 *                     which the kernel drops when the socket closes, also
 *                     after a crash), the devargs, and one queue pair per
 *                     qpairs=.
 *   struct afp_rxq /  one AF_PACKET socket per queue pair, created at start
 *   struct afp_txq    and closed at stop: TPACKET_V3, an rx ring (blocks the
 *                     kernel fills and hands over whole) and a tx ring
 *                     (frames), both in one mmap of the socket. With more
 *                     than one pair the sockets join one PACKET_FANOUT_HASH
 *                     group, so the kernel spreads flows over the queues.
 *                     The rx and tx queue objects point into the same
 *                     mapping; the pair (struct afp_sock) owns it.
 *
 * What the kernel writes into the rings (block status, packet count,
 * offsets, lengths; frame status on tx) is checked before use and anything
 * out of bounds is counted (xstats) and skipped: the fast path never reads
 * or writes outside the mapping whatever the ring holds (the harness
 * tests/unit/test_af_packet.c feeds it crafted rings).
 */
#ifndef PMD_AF_PACKET_PRIV_H
#define PMD_AF_PACKET_PRIV_H

#include <net/if.h>
#include <linux/if_packet.h>

#include <unic/pool.h>
#include <unic/barrier.h>

#include "unic_port_driver.h"

#define AFP_QPAIRS_MAX        UNIC_PORT_MAX_QUEUES
#define AFP_BLOCKSZ_DEFAULT   65536u
#define AFP_FRAMESZ_DEFAULT   2048u
#define AFP_FRAMECNT_DEFAULT  512u
#define AFP_TOV_DEFAULT_MS    1u
#define AFP_TOV_MAX_MS        1000u
#define AFP_RING_MAX_BYTES    (256u << 20)   /* one ring, rx or tx */

/* Where a TPACKET_V3 tx frame's data starts (the kernel's tp_hdrlen minus
 * the sockaddr_ll it reserves after the header: packet_mmap.rst, "TX ring"). */
#define AFP_TX_DATA_OFF       TPACKET_ALIGN(sizeof(struct tpacket3_hdr))

/* The counters of one rx queue; the poller is the one writer. */
struct afp_rx_cnt {
	struct unic_counter ring_errors; /* blocks or packet headers out of bounds: skipped */
	struct unic_counter truncated;   /* frames the kernel cut (snaplen < len): dropped */
	struct unic_counter too_long;    /* frames longer than the pool's buffer: dropped */
	struct unic_counter outgoing;    /* our own host's transmits seen on rx: skipped */
	struct unic_counter vlan_restored; /* tags put back into the frame */
	struct unic_counter csum_not_ready; /* frames whose L4 checksum the sender left
					     * to a device (TP_STATUS_CSUMNOTREADY) */
};

struct afp_rxq {
	uint8_t *ring;            /* rx ring: nb_blocks blocks of block_size; NULL: stopped */
	uint32_t block_size;
	uint32_t nb_blocks;
	uint32_t cur;             /* the block read next */
	/* Within the current block (block_open): the next packet. */
	uint32_t pkt_off;         /* its offset in the block */
	uint32_t pkts_left;       /* packets of the block not yet read */
	uint32_t blk_len;         /* the block's checked length */
	bool block_open;
	bool filter_outgoing;     /* the kernel has no PACKET_IGNORE_OUTGOING */
	uint16_t port_id;
	uint16_t qid;
	int fd;                   /* the pair's socket; -1: stopped */
	uint32_t intr_enabled;    /* informational: the socket is always in the epoll set */
	struct unic_pool *pool;
	struct unic_rxq_counters cnt;
	struct afp_rx_cnt xcnt;
} UNIC_CACHE_ALIGNED;

struct afp_txq {
	uint8_t *ring;            /* tx ring: nb_frames frames of frame_size; NULL: stopped */
	uint32_t frame_size;
	uint32_t nb_frames;
	uint32_t next;            /* the frame written next */
	uint32_t max_len;         /* longest frame: the frame's room, or the
				   * interface's MTU + header + VLAN tag, the
				   * lesser (the kernel drops longer ones) */
	int fd;
	uint16_t qid;
	struct unic_txq_counters cnt;
	struct unic_counter ring_full;    /* packets not taken: no free frame */
	struct unic_counter wrong_format; /* frames the kernel refused (TP_STATUS_WRONG_FORMAT) */
	struct unic_counter ring_errors;  /* frame status the driver does not know: frame skipped */
	struct unic_counter kick_errors;  /* send() kicks that failed other than with EAGAIN/ENOBUFS */
} UNIC_CACHE_ALIGNED;

/* One queue pair's socket and its mapping (rx ring, then tx ring). */
struct afp_sock {
	int fd;                   /* -1: none */
	void *map;
	size_t map_len;
	/* PACKET_STATISTICS resets the kernel's counters when read: the sums
	 * so far (read under the port lock). */
	uint64_t k_packets, k_drops, k_freeze;
};

struct afp_port {
	char iface[IF_NAMESIZE];
	int ifindex;
	int ctl_fd;               /* control socket (AF_PACKET, unbound) */
	uint32_t qpairs;
	uint32_t block_size, frame_size, frame_count, tov_ms;
	bool qdisc_bypass;
	bool promisc, allmulti;
	uint16_t fanout_id;
	struct afp_sock sock[AFP_QPAIRS_MAX];
	struct afp_rxq rxq[AFP_QPAIRS_MAX];
	struct afp_txq txq[AFP_QPAIRS_MAX];
	/* Kernel counts of sockets already closed (stop), in the port's life. */
	uint64_t k_packets, k_drops, k_freeze;
};

/* Fast path (af_packet_rxtx.c). */
uint16_t afp_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n);
uint16_t afp_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n);
uint16_t afp_tx_prepare(void *q, struct unic_pkt **pkts, uint16_t n, int *err);
bool afp_rx_pending(void *q);
int afp_rx_intr_enable(void *q);
int afp_rx_intr_disable(void *q);
/* Give every block of @p rxq back to the kernel (start: a fresh ring). */
void afp_rxq_reset(struct afp_rxq *rxq);

#endif /* PMD_AF_PACKET_PRIV_H */
