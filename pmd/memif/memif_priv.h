/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif port (docs/ports.md, "memif"): structures and who owns what.
 *
 *   struct memif_conn    one connection's negotiated state: the regions
 *                        (mapped), the rings each side added, the eventfds.
 *                        Built and torn down by the control thread only
 *                        (memif_ctrl.c); its checks of what the peer sends
 *                        are in memif_msg.c, which does no socket I/O (the
 *                        fuzz harness drives it directly).
 *   struct memif_queue   one rx or tx queue in the port's private area. The
 *                        control thread publishes the queue's ring (ring !=
 *                        NULL) once the connection is up, and unpublishes it
 *                        before it unmaps anything: the fast path reaches
 *                        shared memory only between setting q->busy and
 *                        clearing it, and the control thread waits for busy
 *                        to clear after unpublishing (fences (B1)/(B2) in
 *                        memif_rxtx.c), as the ring port's senders do.
 *   one control thread   per started port: accepts (server) or connects
 *                        (client, retrying every second), runs the handshake,
 *                        drops a broken connection with a message, and is
 *                        joined by the port's stop.
 *
 * Everything in shared memory is written by the peer as well: head, tail,
 * flags, descriptors. The fast path reads each once into a local, checks it
 * against what the handshake agreed (ring size, regions and their sizes),
 * and uses only the checked copy.
 */
#ifndef PMD_MEMIF_PRIV_H
#define PMD_MEMIF_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include <unic/pool.h>
#include <unic/barrier.h>

#include "unic_port_driver.h"
#include "memif_proto.h"

#define MEMIF_MAX_QUEUES      UNIC_PORT_MAX_QUEUES
#define MEMIF_MAX_REGIONS     64
#define MEMIF_REGION_MAX_SIZE (UINT64_C(1) << 32)  /* offsets are 32 bits */
#define MEMIF_BSIZE_DEFAULT   2048
#define MEMIF_BSIZE_MIN       64
#define MEMIF_BSIZE_MAX       65535
#define MEMIF_LOG2_DEFAULT    10
#define MEMIF_SOCKET_DEFAULT  "/run/memif.sock"
#define MEMIF_SPEED_MBPS      10000
#define MEMIF_RETRY_MS        1000
#define MEMIF_HANDSHAKE_MS    5000

enum memif_role { MEMIF_CLIENT, MEMIF_SERVER };

/* Where the handshake stands (memif_msg.c). */
enum memif_cstate {
	MEMIF_C_IDLE = 0,       /* no connection */
	MEMIF_C_WAIT_HELLO,     /* client: connected the socket, waits for HELLO */
	MEMIF_C_WAIT_INIT,      /* server: sent HELLO, waits for INIT */
	MEMIF_C_ADDING,         /* server: INIT taken, takes regions and rings until CONNECT */
	MEMIF_C_WAIT_CONNECTED, /* client: sent INIT..CONNECT, waits for acks and CONNECTED */
	MEMIF_C_UP,             /* connected: rings published */
};

struct memif_region {
	uint8_t *addr;          /* NULL: not mapped */
	uint64_t size;          /* as agreed (ADD_REGION) */
	uint64_t map_len;       /* what was mapped (>= size: hugepage rounding) */
	int fd;                 /* -1: none */
	bool borrowed;          /* client zero-copy: a pool's memory, lib/mem's
				 * (its fd and mapping are not ours to close) */
};

/* Client zero-copy: a pool whose one zone is lent to the server as a region. */
struct memif_zc_pool {
	struct unic_pool *pool;
	uint16_t region;        /* 1.. (region 0 holds the rings) */
	uint8_t *base;          /* VA of the region's offset 0 */
	uint64_t size;          /* the region (the memfd's size) */
	int fd;                 /* lib/mem's memfd */
};

/* A ring as ADD_RING described it (dir 0: C2S, 1: S2C). */
struct memif_ring_desc {
	bool added;
	uint16_t region;
	uint32_t offset;
	uint8_t log2;
	int efd;                /* the ring's interrupt eventfd; -1: none */
};

/* What this side offers or asks for: the port's settings at start. */
struct memif_cfg {
	enum memif_role role;
	uint32_t id;
	char secret[MEMIF_SECRET_SZ + 1];
	uint8_t log2;           /* rsize= */
	uint32_t bsize;         /* bsize= */
	uint16_t nb_rxq, nb_txq;
	char if_name[MEMIF_NAME_SZ];
	bool zc;                /* zero-copy=yes (client only) */
	uint16_t nb_zc;         /* pools lent: regions 1..nb_zc */
	struct memif_zc_pool zcp[MEMIF_MAX_QUEUES];
};

struct memif_conn {
	struct memif_cfg cfg;
	enum memif_cstate state;
	uint16_t nb_c2s, nb_s2c;     /* rings in use */
	uint8_t log2;                /* client: the negotiated ring size */
	uint32_t acks_due;           /* client: acks still expected */
	uint16_t nb_regions;
	struct memif_region regions[MEMIF_MAX_REGIONS];
	struct memif_ring_desc rings[2][MEMIF_MAX_QUEUES];
	uint32_t buf_off;            /* client: where the buffers start in region 0 */
	char peer_name[MEMIF_NAME_SZ + 1];
	char peer_if[MEMIF_NAME_SZ + 1];
	char reason[160];            /* why the connection failed (ours, for the log) */
	char peer_reason[MEMIF_REASON_SZ + 1]; /* a DISCONNECT's reason */
};

/* Results of memif_conn_input(). */
#define MEMIF_IN_NONE      0    /* nothing to send */
#define MEMIF_IN_REPLY     1    /* send *reply */
#define MEMIF_IN_HELLO     2    /* client: build the memory, send INIT..CONNECT */
#define MEMIF_IN_UP        3    /* connected (server: send *reply, CONNECTED, first) */
#define MEMIF_IN_PEER_GONE 4    /* the peer sent DISCONNECT (peer_reason) */

void memif_conn_init(struct memif_conn *c, const struct memif_cfg *cfg);
/* Close every fd and unmap every region the connection holds; back to IDLE
 * (the configuration stays). */
void memif_conn_reset(struct memif_conn *c);
/* The server's first message. */
void memif_conn_hello(struct memif_conn *c, struct memif_msg *out);
/*
 * Take one received message: @p len bytes (a message is MEMIF_MSG_SIZE),
 * with @p fd from SCM_RIGHTS (-1: none; the connection owns it from here:
 * kept or closed). @return MEMIF_IN_* or -EPROTO (c->reason says why;
 * *reply holds a DISCONNECT for the peer).
 */
int memif_conn_input(struct memif_conn *c, const void *buf, size_t len, int fd,
		     struct memif_msg *reply);
/* Client, after MEMIF_IN_HELLO: create the region and the eventfds, fill
 * @p msgs (INIT, ADD_REGION..., ADD_RING..., CONNECT) and their fds.
 * @return the message count, or -errno (c->reason). */
int memif_conn_client_build(struct memif_conn *c, struct memif_msg *msgs, int *fds,
			    unsigned max);
void memif_msg_disconnect(struct memif_msg *m, const char *reason);
/* The ring of direction @p dir (0 C2S, 1 S2C) index @p q, once mapped. */
struct memif_ring *memif_conn_ring(const struct memif_conn *c, unsigned dir, uint16_t q);

/* ---- queues ---------------------------------------------------------- */

struct memif_qregion {
	uint8_t *addr;
	uint64_t size;
};

struct memif_queue {
	/* Published by the control thread, read by the queue's thread. */
	struct memif_ring *ring;         /* NULL: not connected */
	uint32_t busy;                   /* the queue's thread is inside a call */
	uint32_t intr_enabled;           /* rx: armed by the poller */
	uint32_t broken;                 /* set by the fast path: the peer broke the ring */

	/* Valid while ring != NULL (set before it is published). */
	bool we_own_head;                /* we write head (client), else tail (server) */
	uint16_t size, mask;
	uint16_t last;                   /* rx: the next slot to read (free-running) */
	uint16_t own;                    /* the index we write (head or tail): our copy,
					  * never read back from shared memory */
	uint16_t tx_free;                /* tx: slots known free at the last read of the
					  * peer's index (0 at connect); read again only
					  * when a burst needs more */
	uint16_t nb_regions;
	const struct memif_region *regions;
	uint32_t bsize;                  /* client: our buffers' size */
	uint32_t buf_off;                /* client: our buffers for this ring start here */
	int efd;                         /* tx: the peer's interrupt; -1: none */
	int wake_fd;                     /* the control thread's wake-up eventfd */

	/* rx */
	struct unic_pool *pool;
	uint16_t port_id, qid;
	int intr_epfd;                   /* rx: stable interrupt fd handed to napi */
	int intr_member;                 /* rx: the eventfd inside intr_epfd; -1: none */

	struct unic_rxq_counters rxc;
	struct unic_txq_counters txc;
	struct unic_counter bad_desc;    /* rx: descriptors out of the agreed regions */
	struct unic_counter too_long;    /* rx: frames longer than the pool's data room; tx: than the peer's buffers */
	struct unic_counter ring_full;   /* tx: packets not taken, the ring was full */
	struct unic_counter link_down;   /* tx: packets not taken, not connected */
	struct unic_counter bad_index;   /* the peer wrote a head/tail outside the ring */
	struct unic_counter lost_at_down; /* rx: frames left in the ring when the connection
					   * ended (written by the control thread, the
					   * queue's thread being out: busy 0, ring NULL) */
	uint64_t signals;                /* tx: eventfd writes (atomic add) */

	/* Client zero-copy (memif_zc.c); zc_pkts valid while ring != NULL. */
	bool zc;
	const struct memif_zc_pool *zcp; /* rx: its pool's; tx: the port's array */
	uint16_t nb_zcp;
	uint16_t zc_done;                /* tx: the next slot whose packet to free */
	struct unic_pkt **zc_pkts;       /* [size]: rx: the packet lent in the slot;
					  * tx: the packet the slot carries (NULL: a copy) */
	struct unic_counter zc_bad_addr; /* rx: a descriptor that is not the buffer lent */
	struct unic_counter zc_copied;   /* tx: frames copied (another pool, a chain) */
} UNIC_CACHE_ALIGNED;

struct memif_port {
	struct memif_cfg cfg;
	char socket[sizeof(((struct sockaddr_un *)0)->sun_path)];
	bool abstract;
	bool unlink_at_close;
	int listen_fd;                   /* server: bound at creation; -1 */

	pthread_t thread;
	bool thread_running;
	int stop_fd;                     /* eventfd: stop the control thread */
	int wake_fd;                     /* eventfd: the fast path found a broken ring */
	int conn_fd;                     /* the control connection; -1 */
	uint64_t state_since_ms;
	bool warned;                     /* client: the last connect failure was logged */
	int last_err;

	struct memif_conn conn;
	uint32_t link_up;                /* atomic */

	/* Counters of the control thread (atomic reads from xstats). */
	uint64_t connects, disconnects, proto_errors, refused_peers;

	struct memif_queue rxq[MEMIF_MAX_QUEUES];
	struct memif_queue txq[MEMIF_MAX_QUEUES];
};

static inline struct memif_port *memif_priv(struct unic_port *port)
{
	return unic_port_priv(port);
}

/* memif_ctrl.c */
int memif_ctrl_start(struct unic_port *port);
void memif_ctrl_stop(struct unic_port *port);
int memif_listen(struct unic_port *port);

/*
 * 1 once this process is registered for MEMBARRIER_CMD_PRIVATE_EXPEDITED
 * (memif_ctrl_start): the fast path's entry then needs no fence of its own,
 * the control thread's membarrier() before it reads busy being one on
 * every thread (see (B1)/(B2) in memif_rxtx.c). Never goes back to 0.
 */
extern uint32_t memif_membarrier_ok;

/* memif_zc.c: client zero-copy */
/* Port start: the rx queues' pools as regions (cfg->zcp); -errno with a message. */
int memif_zc_prepare(struct unic_port *port);
/* Control thread: the queue goes up (rx: every slot lent) or down (every
 * packet the queue holds freed; the queue's thread is out). */
int memif_zc_queue_up(struct memif_queue *q, struct memif_ring *ring, bool rx);
void memif_zc_queue_down(struct memif_queue *q);
uint16_t memif_zc_rx_burst(struct memif_queue *q, struct memif_ring *ring,
			   struct unic_pkt **pkts, uint16_t n);
uint16_t memif_zc_tx_burst(struct memif_queue *q, struct memif_ring *ring,
			   struct unic_pkt **pkts, uint16_t n);

/* memif_rxtx.c */
uint16_t memif_rx_burst(void *q, struct unic_pkt **pkts, uint16_t n);
uint16_t memif_tx_burst(void *q, struct unic_pkt **pkts, uint16_t n);
bool memif_rx_pending(void *q);
int memif_rx_intr_enable(void *q);
int memif_rx_intr_disable(void *q);

#endif /* PMD_MEMIF_PRIV_H */
