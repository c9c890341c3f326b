/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net driver's private state, shared by its files:
 *   virtio_regs.h  the specification's layouts (virtio 1.1/1.2)
 *   virtio_hw.c    the transport: PCI capabilities, register access, reset,
 *                  status handshake, feature negotiation, device config
 *   virtio_port.c  the port ops (control path), the PCI probe and
 *                  virtio_port_attach()
 *   virtio_rxtx.c  the fast path: split virtqueues, rx/tx burst, refill,
 *                  reclaim, rx interrupt arm/disarm
 *   virtio_packed.c the fast path over packed virtqueues (RING_PACKED),
 *                  reached from virtio_rxtx.c by one branch a call
 *   virtio_intr.c  interrupts: MSI-X vectors or INTx, config changes
 *   virtio_ctrl.c  the control virtqueue: one synchronous command at a time
 *
 * Ownership: the port owns the PCI device from probe on (closed in the close
 * op); each queue owns its virtqueue memory (a DMA zone of the port's, from
 * queue setup to queue release) and its software ring; a packet in a
 * software ring belongs to the queue until received or reclaimed.
 *
 * Everything the device writes (used ids, lengths, the used index, the
 * header's fields, the device configuration) is checked before use and a
 * bad value is counted, never trusted.
 */
#ifndef VIRTIO_PRIV_H
#define VIRTIO_PRIV_H

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <unic/barrier.h>
#include <unic/bus.h>
#include <unic/mem.h>
#include <unic/pool.h>

#include "virtio_regs.h"
#include "unic_port_driver.h"

#define VIRTIO_MAX_PAIRS      8     /* rx/tx queue pairs driven (the device may offer more) */
#define VIRTIO_HDR_MAX        ((uint32_t)sizeof(struct virtio_net_hdr_hash)) /* the header's largest size */
#define VIRTIO_DESC_MIN       64
#define VIRTIO_DESC_DEFAULT   256   /* or the device's maximum when smaller */
#define VIRTIO_RX_FREE_THRESH 32    /* refill in batches of this many */
#define VIRTIO_RX_FRAMES_MAX  32    /* rx moderation: an arm waits for at most this many frames
				     * (half the smallest ring; an arm's used entries are at most
				     * half its ring) */
#define VIRTIO_RX_BPF_ONE     4096u /* rx: one buffer a frame, in rxq->bufs_per_frame's units
				     * (x ring size 32768: 2^27, no overflow) */
#define VIRTIO_MIN_MTU        68
#define VIRTIO_MAX_MTU        9000  /* without VIRTIO_NET_F_MTU: what the driver chains */
#define VIRTIO_RESET_TIMEOUT_US 1000000 /* device_status reads 0 after a reset */
#define VIRTIO_TX_MAX_SEGS    64    /* segments of one packet (a descriptor each) */
#define VIRTIO_CTRL_TIMEOUT_US 1000000 /* a control command's answer (QEMU: at the kick) */
#define VIRTIO_CTRL_DATA_MAX  2048  /* bytes of one command's data */
#define VIRTIO_UC_MAX         32    /* unicast addresses added besides the port's own */
#define VIRTIO_LRO_MAX_FRAME  (65535 + 18) /* a GSO frame: IP's 64 KiB, Ethernet header and a tag */
#define VIRTIO_TX_INDIR_LEN   ((VIRTIO_TX_MAX_SEGS + 1) * 16u) /* an indirect table: header and segments */

/* ---- register access ------------------------------------------------------ */

/* The four structures the device exposes through its vendor capabilities. */
enum virtio_region {
	VIRTIO_REGION_COMMON = 0,  /* struct virtio_pci_common_cfg */
	VIRTIO_REGION_NOTIFY,      /* the notification area */
	VIRTIO_REGION_ISR,         /* one byte, read to clear */
	VIRTIO_REGION_DEVICE,      /* struct virtio_net_config */
	VIRTIO_NB_REGIONS,
};

/*
 * Observers of register access, for a device that is not a device: the
 * unit tests' fake virtio-net keeps its "registers" in plain memory and
 * plays the device from these calls (the common configuration is a window
 * multiplexed by queue_select and device_feature_select, and a status write
 * of 0 resets, which plain memory cannot do by itself). NULL for a real
 * device. Each is called on the thread making the access.
 *   read:    before the driver reads @p width bytes at @p off of region @p r:
 *            the fake puts the value there (and clears ISR, which reads clear);
 *   written: after the driver wrote @p width bytes at @p off of region @p r
 *            (the notification area included: a kick).
 */
struct virtio_hw_hooks {
	void (*read)(void *ctx, enum virtio_region r, uint32_t off, unsigned width);
	void (*written)(void *ctx, enum virtio_region r, uint32_t off, unsigned width);
};

struct virtio_hw {
	volatile uint8_t *base[VIRTIO_NB_REGIONS]; /* each region, mapped */
	uint32_t len[VIRTIO_NB_REGIONS];           /* its length (capability length, within the BAR) */
	uint32_t notify_mult;                      /* notify_off_multiplier (4.1.4.4) */
	const struct virtio_hw_hooks *hooks;       /* NULL: a real device */
	void *hooks_ctx;
	bool gone;                                 /* the device reads all-ones */
	struct unic_port *port;                    /* for logs */
	struct unic_pci_device *dev;               /* told when the device reads all-ones (NULL: nobody) */
	uint64_t dev_features;                     /* what the device offers */
	uint64_t features;                         /* what was negotiated (FEATURES_OK read back) */
	uint16_t num_queues;                       /* virtqueues the device has */
	uint64_t features_off;                     /* offered features left out of the next negotiation
						    * (by the configuration: CTRL_VLAN, GUEST_TSO4/6) */
	struct virtio_ctrlq *ctrl;                 /* the control virtqueue (virtio_ctrl.c), NULL until set up */
};

static inline uint8_t vio_read8(const struct virtio_hw *hw, enum virtio_region r, uint32_t off)
{
	if (UNIC_UNLIKELY(hw->hooks != NULL))
		hw->hooks->read(hw->hooks_ctx, r, off, 1);
	return *(const volatile uint8_t *)(hw->base[r] + off);
}

static inline uint16_t vio_read16(const struct virtio_hw *hw, enum virtio_region r, uint32_t off)
{
	if (UNIC_UNLIKELY(hw->hooks != NULL))
		hw->hooks->read(hw->hooks_ctx, r, off, 2);
	return *(const volatile uint16_t *)(hw->base[r] + off);
}

static inline uint32_t vio_read32(const struct virtio_hw *hw, enum virtio_region r, uint32_t off)
{
	if (UNIC_UNLIKELY(hw->hooks != NULL))
		hw->hooks->read(hw->hooks_ctx, r, off, 4);
	return *(const volatile uint32_t *)(hw->base[r] + off);
}

static inline void vio_write8(const struct virtio_hw *hw, enum virtio_region r, uint32_t off, uint8_t v)
{
	*(volatile uint8_t *)(hw->base[r] + off) = v;
	if (UNIC_UNLIKELY(hw->hooks != NULL))
		hw->hooks->written(hw->hooks_ctx, r, off, 1);
}

static inline void vio_write16(const struct virtio_hw *hw, enum virtio_region r, uint32_t off, uint16_t v)
{
	*(volatile uint16_t *)(hw->base[r] + off) = v;
	if (UNIC_UNLIKELY(hw->hooks != NULL))
		hw->hooks->written(hw->hooks_ctx, r, off, 2);
}

static inline void vio_write32(const struct virtio_hw *hw, enum virtio_region r, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(hw->base[r] + off) = v;
	if (UNIC_UNLIKELY(hw->hooks != NULL))
		hw->hooks->written(hw->hooks_ctx, r, off, 4);
}

/* ---- PCI capabilities ------------------------------------------------------ */

/* Where one structure is: BAR, offset and length (4.1.4). */
struct virtio_pci_cap_loc {
	bool found;
	uint8_t bar;
	uint32_t offset;
	uint32_t length;
};

struct virtio_pci_caps {
	struct virtio_pci_cap_loc loc[VIRTIO_NB_REGIONS];
	uint32_t notify_mult;
};

/**
 * Find the common, notify, ISR and device structures in a copy of the
 * device's PCI configuration space (@p len bytes, at least the 256 of the
 * header and capability list): walks the capability list, bounded (a loop
 * or a pointer out of the space ends the walk), and takes the first
 * capability of each type whose BAR is 0..5, as 4.1.4 asks.
 * @return 0, or -ENODEV with the reason in @p why (no capability list, a
 *         structure missing, a common structure shorter than the 1.1 one).
 */
int virtio_caps_parse(const uint8_t *cfg, size_t len, struct virtio_pci_caps *caps,
		      char *why, size_t why_len);

/* ---- attaching the driver to a device ---------------------------------------- */

/*
 * A virtio-net device as virtio_port_attach() takes it: its PCI
 * configuration space (a copy) and its mapped BARs. The PCI probe fills it
 * from the bus; the unit tests' fake device fills it with plain memory and
 * its hooks.
 */
struct virtio_attach {
	const uint8_t *cfg;            /* PCI configuration space, cfg_len bytes */
	size_t cfg_len;                /* >= PCI_CFG_SPACE_LEN */
	struct {
		void *va;              /* NULL: not mapped */
		size_t len;
	} bar[6];
	const struct virtio_hw_hooks *hooks; /* NULL: a real device */
	void *hooks_ctx;
	struct unic_mem *dma_mem;      /* the rings' memory (unic_pci_dma_mem()) */
	struct unic_pci_device *dev;   /* NULL: no PCI device (no interrupts, no reset) */
	bool iommu;                    /* DMA is translated by an IOMMU (VFIO type1):
					* VIRTIO_F_ACCESS_PLATFORM is required */
	const char *bus_addr;          /* for info and logs; NULL: "fake" */
	int numa_node;
};

/**
 * Attach the driver to the device @p a describes: find its structures
 * (virtio_caps_parse()), reset it, run the status handshake and feature
 * negotiation (virtio_hw_init()), read its MAC address, then create and
 * register a port "virtio%d" whose ops are the driver's. On success the
 * port owns a->dev (its close closes it). The PCI probe's last step; the
 * unit tests' fake device calls it directly.
 * @return 0 and *out (one reference, the caller's), or -errno, logged:
 *         -ENODEV (the structures are missing or out of their BARs; the
 *         device reads all-ones), -ETIMEDOUT (the reset did not complete),
 *         -ENOTSUP (a feature the driver needs is not offered, or the
 *         device refused FEATURES_OK), -ENOMEM, unic_port_register()'s error.
 */
int virtio_port_attach(const struct virtio_attach *a, struct unic_port **out);

/* ---- virtqueues -------------------------------------------------------------- */

/*
 * A split virtqueue (2.6) as the driver keeps it. Indexes are free-running
 * 16-bit counters (masked with size - 1 to index a ring). The driver never
 * reads back what it wrote into the rings the device can write
 * (descriptors, avail): it keeps its own copies (next[], avail_idx).
 */
struct virtio_vq {
	volatile struct virtq_desc *desc;
	volatile uint16_t *avail;          /* flags, idx, ring[size], used_event */
	volatile uint16_t *used;           /* flags, idx, then used_ring */
	volatile struct virtq_used_elem *used_ring;
	volatile uint16_t *used_event;     /* &avail[2 + size] (VIRTIO_F_EVENT_IDX) */
	volatile uint16_t *avail_event;    /* after used_ring[size] */
	volatile uint16_t *notify;         /* this queue's notification address */
	uint16_t *next;                    /* the free list: next[id] (heap, driver-only) */
	const struct virtio_hw *hw;        /* for the notify hook */
	uint16_t size;                     /* entries, a power of two */
	uint16_t mask;                     /* size - 1 */
	uint16_t index;                    /* the virtqueue's number (rx 2q, tx 2q+1) */
	uint16_t avail_idx;                /* the next avail index to publish */
	uint16_t kicked_idx;               /* avail_idx when the device was last told */
	uint16_t used_idx;                 /* the next used entry to read */
	uint16_t free_head;                /* first free descriptor */
	uint16_t nb_free;                  /* descriptors on the free list */
	bool event_idx;                    /* VIRTIO_F_EVENT_IDX negotiated */
	/* VIRTIO_F_IN_ORDER (2.6.9, 2.7.9): set at start when negotiated,
	 * cleared until the next start at the first used entry that is not
	 * a batch the driver can check (virtio_rxtx.c, virtio_packed.c). While set, descriptors (packed: buffer ids) are taken
	 * in ring order and given back in that order without touching the
	 * free list: the free ones are free_head.. (free_head + nb_free)
	 * (packed: nb_free_ids), linked by next[i] = i + 1, and the oldest
	 * outstanding chain starts right after them. A used entry names
	 * the last chain of a batch: batch_left chains from the oldest are
	 * still to be taken, the last one with batch_len bytes, the others
	 * whole (written completely, as the specification assumes). */
	bool in_order;
	uint16_t batch_left;
	uint32_t batch_len;
	uint32_t notify_off;               /* queue_notify_off x multiplier, read at setup */
	struct unic_dma dma;               /* desc, avail, used (and tx headers) */
	/* A packed virtqueue (2.7, virtio_packed.c) keeps avail_idx and
	 * used_idx as free-running ring positions: slot idx & mask, wrap
	 * counter (idx & size) == 0. avail and used then point at the driver
	 * and device event suppression structures (queue_driver/device). */
	bool packed;                       /* VIRTIO_F_RING_PACKED negotiated */
	uint16_t nb_free_ids;              /* buffer ids free (packed: a chain takes one id) */
	uint16_t bad_flags_at;             /* 1 + the position whose garbage flags were counted */
	volatile struct vring_packed_desc *pdesc;
	volatile struct vring_packed_event *drv_event; /* driver area: notifications we want */
	volatile struct vring_packed_event *dev_event; /* device area: kicks the device wants */
	/* counters (one writer: the queue's thread) */
	struct unic_counter kicks;         /* notifications sent */
	struct unic_counter kicks_suppressed; /* the device did not want one */
	struct unic_counter bad_used;      /* used entries with a bad id or length, skipped */
	struct unic_counter used_jumps;    /* the used index moved by more than was posted */
};

struct virtio_port;

struct virtio_rxq {
	struct virtio_vq vq;
	struct unic_pkt **sw_ring;         /* the buffer posted at each descriptor (by id) */
	struct unic_pool *pool;
	uint32_t buf_len;                  /* bytes the device may write per buffer */
	uint32_t max_frame;                /* longest frame kept: MTU + 14 + 4 (one tag) */
	uint16_t headroom;                 /* pool headroom: data starts here, the header before */
	uint16_t hdr_len;                  /* 12, or 20 with VIRTIO_NET_F_HASH_REPORT */
	uint16_t port_id;
	uint16_t qid;
	bool mrg;                          /* VIRTIO_NET_F_MRG_RXBUF: num_buffers is read */
	bool csum;                         /* VIRTIO_NET_F_GUEST_CSUM: the header's flags are read */
	bool csum_flags;                   /* rx checksum offload asked: flags, no software completion */
	bool lro;                          /* GUEST_TSO4/6 negotiated (LRO asked): GSO frames taken */
	bool hash;                         /* HASH_REPORT and UNIC_RX_OFFLOAD_RSS_HASH: the hash is kept */
	bool vlan_strip;                   /* software strip */
	/* a frame spread over several buffers (mergeable) */
	struct unic_pkt *chain_head;
	struct unic_pkt *chain_tail;
	uint16_t chain_left;               /* buffers it still needs */
	uint16_t chain_skip;               /* buffers of a dropped frame still to come */
	/* Mergeable buffers: the mean buffers a frame took (num_buffers of
	 * the frames' first buffers, a moving average, x VIRTIO_RX_BPF_ONE),
	 * so that the moderation's count of frames becomes the used entries
	 * an arm waits for (virtio_rx_arm_entries). Without MRG_RXBUF one. */
	uint32_t bufs_per_frame;
	/* counters: the driver kit's (errors: frames dropped) and the driver's */
	struct unic_rxq_counters cnt;
	struct unic_counter len_errors;    /* used length under the header or over the buffer */
	struct unic_counter oversize;      /* frames over max_frame or with a bad num_buffers */
	struct unic_counter csum_partial;  /* frames with NEEDS_CSUM (a partial checksum) */
	struct unic_counter lro_pkts;      /* GSO frames delivered as LRO packets */
	struct unic_counter gso_errors;    /* GSO frames dropped: not negotiated, bad type or size */
	struct unic_counter intr;          /* interrupts armed (rx_intr_enable) */
	struct unic_counter hash_bad;      /* hash_report values the specification does not have */
	/* interrupts */
	struct virtio_port *vp;
	bool intr_on;                      /* the port's interrupts are on (start) */
	int irq_fd;                        /* its MSI-X eventfd when the vector is its own, else -1
					    * (INTx, or a shared vector: nothing is dropped at the arm) */
	uint16_t vector;                   /* MSI-X vector, VIRTIO_MSI_NO_VECTOR if none */
	bool intr_armed;
} UNIC_CACHE_ALIGNED;

struct virtio_txq {
	struct virtio_vq vq;
	struct unic_pkt **sw_ring;         /* the packet, at its head descriptor */
	uint16_t *chain_len;               /* descriptors in the chain at each head */
	volatile struct virtio_net_hdr_hash *hdrs; /* one header slot per descriptor id (in vq.dma) */
	uint64_t hdrs_iova;
	uint16_t hdr_len;                  /* bytes of the header sent: 12, or 20 with HASH_REPORT */
	uint8_t *indir;                    /* indirect tables, VIRTIO_TX_INDIR_LEN a descriptor id (NULL: none) */
	uint64_t indir_iova;
	bool indirect;                     /* VIRTIO_F_INDIRECT_DESC negotiated and tables allocated */
	uint16_t qid;
	bool csum;                         /* VIRTIO_NET_F_CSUM negotiated */
	bool tso4, tso6;                   /* VIRTIO_NET_F_HOST_TSO4/6 negotiated */
	bool vlan_insert;                  /* software insert */
	struct unic_txq_counters cnt;      /* errors: packets refused */
	struct unic_counter ring_full;     /* bursts that stopped for want of descriptors */
	struct unic_counter tso;           /* TSO packets handed to the device */
	struct unic_counter csum_req;      /* checksum requests handed to the device */
} UNIC_CACHE_ALIGNED;

/*
 * Which MSI-X vector each interrupt takes (virtio_vec_plan()), from the
 * vectors the device has (@p nvec) and the rx queues in use:
 *   nvec >= nb_rxq + 1: vector 0 for configuration changes, 1 + q for rx
 *                       queue q, each its own;
 *   2 <= nvec <= nb_rxq: vector 0 for configuration changes, the rx queues
 *                       round-robin over the rest: queue q on 1 + q % (nvec - 1);
 *   nvec == 1:          every rx queue on vector 0, no vector for
 *                       configuration changes (no link events);
 *   nvec == 0:          no MSI-X (INTx).
 * Transmit and control queues never take one: the driver reclaims tx
 * descriptors and waits for control answers by polling.
 */
struct virtio_vec_plan {
	unsigned nb_vec;                   /* vectors to enable (0: INTx) */
	uint16_t config;                   /* VIRTIO_MSI_NO_VECTOR: none */
	uint16_t rx[VIRTIO_MAX_PAIRS];     /* rx queue q's vector */
	bool shared;                       /* some vector carries more than one rx queue */
};
struct virtio_port {
	struct virtio_hw hw;
	struct unic_pci_device *dev;
	char bus_addr[32];
	struct unic_mem *dma_mem;
	bool iommu;
	uint16_t max_pairs;                /* queue pairs the device offers (1 without MQ); the
					    * control queue is virtqueue 2 * max_pairs */
	uint16_t pairs_max;                /* queue pairs the driver takes: max_pairs, at most
					    * VIRTIO_MAX_PAIRS */
	uint16_t nb_pairs;                 /* queue pairs in use (set at start) */
	uint16_t hdr_len;                  /* the network header: 12, or 20 (HASH_REPORT) */
	uint8_t rss_key_max;               /* RSS/HASH_REPORT: the device's longest key */
	uint16_t rss_table_max;            /* RSS: the device's longest indirection table */
	uint32_t hash_types;               /* RSS/HASH_REPORT: VIRTIO_NET_RSS_HASH_TYPE_* it hashes */
	bool rss_on;                       /* the last start configured RSS */
	/* RSS indirection table once set (unic_port_rss_reta_update), sent in
	 * every RSS_CONFIG; else the queues round-robin. */
	bool reta_set;
	uint16_t reta[VIRTIO_NET_RSS_TABLE_MAX];
	uint16_t max_queue_size;           /* of virtqueue 0 (the rx queue's maximum) */
	uint16_t dev_mtu;                  /* VIRTIO_NET_F_MTU, else 0 */
	struct virtio_rxq rxq[VIRTIO_MAX_PAIRS];
	struct virtio_txq txq[VIRTIO_MAX_PAIRS];
	/* interrupts */
	bool intr_on;
	bool intx;
	bool config_watched;
	bool intx_demux;                   /* INTx with link events: the event thread owns the
					    * line and relays rx causes to intx_rx_fd */
	int intx_rx_fd;                    /* that eventfd (the rx queues' source), else -1 */
	uint8_t cfg_gen_last;              /* config_generation at the last configuration cause */
	int irq_fds[2 * VIRTIO_MAX_PAIRS + 2];
	unsigned nb_irq;
	struct virtio_vec_plan plan;       /* the MSI-X vectors of the last start */
	uint16_t config_vector;
	/* rx moderation through the event index (virtio_intr.c,
	 * virtio_coalesce_set): set under the port's lock, read by the
	 * pollers' arms (atomic). */
	uint32_t rx_usecs;                 /* the poller's time bound, read back only */
	uint32_t rx_frames;                /* used entries an arm waits for; 0: one */
	uint64_t link_events;              /* config-change interrupts with a status change */
	uint64_t config_changes;           /* config-change interrupts */
	bool link_up_last;
	/* receive filters, sent at every start (virtio_ctrl.c) */
	uint8_t dev_mac[UNIC_ETHER_ADDR_LEN]; /* the device's own (configuration) MAC */
	bool promisc, allmulti;
	unsigned nb_uc, nb_mc;
	uint8_t uc[VIRTIO_UC_MAX][UNIC_ETHER_ADDR_LEN];
	uint8_t mc[UNIC_PORT_MC_ADDR_MAX][UNIC_ETHER_ADDR_LEN];
	uint8_t vlans[4096 / 8];           /* VLAN ids to let through (the VLAN filter offload) */
};

static inline struct virtio_port *virtio_priv(struct unic_port *port)
{
	return unic_port_priv(port);
}

/* No register access: the device vanished, or the bus took it back. */
static inline bool virtio_hw_off(const struct virtio_port *vp)
{
	return __atomic_load_n(&vp->hw.gone, __ATOMIC_ACQUIRE) || unic_port_is_removed(vp->hw.port);
}

/* virtio_port.c: the ops table. */
extern const struct unic_port_ops virtio_ops;

/* ---- virtio_hw.c ------------------------------------------------------------- */

/**
 * Locate the regions @p caps names in the mapped BARs of @p a.
 * @return 0, or -ENODEV with the reason logged (a BAR not mapped, a
 *         structure past its BAR's end, a notify area too short).
 */
int virtio_hw_map(struct virtio_hw *hw, const struct virtio_pci_caps *caps,
		  const struct virtio_attach *a, const char *name);
/** device_status reads all-ones: mark the device gone (and tell the bus). */
bool virtio_hw_check_gone(struct virtio_hw *hw);
/**
 * Reset (write 0 to device_status) and wait until it reads 0 (4.1.4.3.2).
 * @return 0, -ETIMEDOUT (logged), -ENODEV (gone).
 */
int virtio_hw_reset(struct virtio_hw *hw);
uint8_t virtio_hw_status(const struct virtio_hw *hw);
void virtio_hw_status_set(struct virtio_hw *hw, uint8_t bits);
/** The device's feature bits (both 32-bit halves). */
uint64_t virtio_hw_dev_features(const struct virtio_hw *hw);
/**
 * The features the driver accepts out of @p offered: pure, so unit tests
 * check the table. @p iommu: DMA goes through an IOMMU.
 */
uint64_t virtio_features_wanted(uint64_t offered, bool iommu);
/**
 * Reset, ACKNOWLEDGE, DRIVER, negotiate (VERSION_1 required; under an IOMMU
 * ACCESS_PLATFORM required), FEATURES_OK written and read back (3.1.1).
 * Sets hw->features. On an error FAILED is set. @return 0 or -errno, logged.
 */
int virtio_hw_init(struct virtio_hw *hw, bool iommu);
/**
 * Read @p len bytes of the device configuration at @p off consistently:
 * config_generation before and after must match (4.1.4.3.1), retried.
 * @return 0, -EIO (it kept changing), -ENODEV.
 */
int virtio_hw_cfg_read(struct virtio_hw *hw, uint32_t off, void *buf, uint32_t len);
/** The features negotiated as names, comma-separated, into @p buf. */
int virtio_features_names(uint64_t f, char *buf, size_t len);
/** Program virtqueue @p vq into the device (queue_select, size, addresses, enable). */
int virtio_hw_queue_setup(struct virtio_hw *hw, struct virtio_vq *vq, uint16_t msix_vector);
/** The maximum size the device gives virtqueue @p index (0: no such queue). */
uint16_t virtio_hw_queue_max(struct virtio_hw *hw, uint16_t index);

/* ---- RSS (virtio_port.c) ------------------------------------------------------ */

/** The device's hash types (VIRTIO_NET_RSS_HASH_TYPE_*) for UNIC_RSS_* @p t. */
uint32_t virtio_rss_types(uint64_t t);
/** The UNIC_RSS_* types a device that hashes @p dev_types can give. */
uint64_t virtio_rss_capa(uint32_t dev_types);
/**
 * Lay out a struct virtio_net_rss_config (5.1.6.5.7.1) in @p buf: hash
 * types @p types, an indirection table of @p tbl_len entries (a power of
 * two) spreading over @p nb_rxq receive queues round-robin (entry i is
 * queue i % nb_rxq), unclassified frames to queue 0, max_tx_vq
 * @p max_tx_vq, then the key. Pure (unit-tested).
 * @return the bytes written, or 0 if @p len is too short.
 */
size_t virtio_rss_config_build(uint8_t *buf, size_t len, uint32_t types, uint16_t tbl_len, uint16_t nb_rxq,
			       uint16_t max_tx_vq, const uint8_t *key, uint8_t key_len);
/** The key used when the configuration gives none (40 bytes). */
extern const uint8_t virtio_rss_default_key[VIRTIO_NET_RSS_KEY_LEN];

/* ---- virtio_rxtx.c ----------------------------------------------------------- */

/* Lay a split virtqueue of vq->size entries out in vq->dma (zeroed) and
 * reset the driver's state: every descriptor free. */
void virtio_vq_init(struct virtio_vq *vq);
/* Bytes of DMA memory a virtqueue of @p size entries needs, with
 * @p extra bytes after it (tx headers). */
size_t virtio_vq_bytes(uint16_t size, size_t extra);

uint16_t virtio_rx_burst(void *rxq, struct unic_pkt **pkts, uint16_t n);
uint16_t virtio_tx_burst(void *txq, struct unic_pkt **pkts, uint16_t n);
uint16_t virtio_tx_prepare(void *txq, struct unic_pkt **pkts, uint16_t n, int *err);
bool virtio_rx_pending(void *rxq);
/* Descriptor ops (unic_port_desc_status, rx_queue_count, desc_read): split
 * and packed rings (a split ring's tx status is refused). */
int virtio_desc_status(struct unic_port *port, bool tx, uint16_t q, uint16_t offset);
int virtio_rx_queue_count(struct unic_port *port, uint16_t q);
int virtio_desc_read(struct unic_port *port, bool tx, uint16_t q, uint16_t desc, uint32_t *words, unsigned max);
int virtio_rx_intr_enable(void *rxq);
/* The used entries (split) or positions (packed: one a rx buffer) the
 * next arm waits for: the port's moderation (frames) times the mean
 * buffers a frame takes, plus what the frame in progress still needs;
 * at least 1, at most half the ring. */
uint16_t virtio_rx_arm_entries(const struct virtio_rxq *rxq);
int virtio_rx_intr_disable(void *rxq);
int virtio_tx_reclaim(void *txq);
/* Post a buffer at every free descriptor (start) and tell the device.
 * @return 0, or -ENOBUFS (the pool ran out before one was posted). */
int virtio_rxq_fill(struct virtio_rxq *rxq);
/* Free every buffer the queues hold (stop). */
void virtio_rxq_drain(struct virtio_rxq *rxq);
void virtio_txq_drain(struct virtio_txq *txq);

/* ---- virtio_ctrl.c ----------------------------------------------------------- */

/*
 * The control virtqueue (5.1.6.5): one command at a time, posted as a
 * device-readable header (class, command), a device-readable data
 * descriptor (when there is data) and a device-writable ack byte, kicked,
 * and waited for. It has no interrupt: the driver polls its used ring.
 */
struct virtio_ctrlq {
	struct virtio_vq vq;
	pthread_mutex_t lock;              /* one command at a time, from any thread */
	volatile uint8_t *buf;             /* header, ack and data, in vq.dma after the rings */
	uint64_t buf_iova;
	bool live;                         /* set up on the started device */
	bool broken;                       /* a command timed out or got a bad used entry:
					    * no command until the next start resets the device */
	char broken_by[48];                /* the command that left it broken */
	struct unic_counter cmds;          /* commands acknowledged VIRTIO_NET_OK */
	struct unic_counter errors;        /* commands the device answered with another ack */
	struct unic_counter timeouts;      /* commands never answered */
};

/** One piece of a command's data; the pieces are sent one after another. */
struct virtio_ctrl_seg {
	const void *data;
	size_t len;
};

/**
 * Send command @p cmd of class @p cls (VIRTIO_NET_CTRL_*) with @p len bytes
 * of @p data (may be 0 and NULL) on the control queue and wait for the
 * device's answer, at most VIRTIO_CTRL_TIMEOUT_US. Serialised by the
 * queue's lock: callable from any thread while the port is started.
 * @p what names the command in messages ("promiscuous mode on").
 * @return 0 (acknowledged VIRTIO_NET_OK), or -errno, logged:
 *         -ENOTSUP (VIRTIO_NET_F_CTRL_VQ not negotiated), -EIO (answered
 *         with an ack other than VIRTIO_NET_OK; a used entry with a bad id
 *         or length, counted and not trusted; the queue not set up or out
 *         of service since an earlier failure), -ETIMEDOUT (no answer),
 *         -ENODEV (the device reads all-ones), -EINVAL (data over
 *         VIRTIO_CTRL_DATA_MAX).
 */
int virtio_ctrl_cmd(struct virtio_hw *hw, uint8_t cls, uint8_t cmd, const void *data, size_t len,
		    const char *what);
/** virtio_ctrl_cmd() with the data in @p nb pieces (the MAC table: two). */
int virtio_ctrl_cmdv(struct virtio_hw *hw, uint8_t cls, uint8_t cmd, const struct virtio_ctrl_seg *segs,
		     unsigned nb, const char *what);
/**
 * When VIRTIO_NET_F_CTRL_VQ was negotiated: allocate (first time) and
 * program the control virtqueue (number 2 x max_virtqueue_pairs with MQ,
 * else 2). Between FEATURES_OK and DRIVER_OK. @return 0 or -errno, logged.
 */
int virtio_ctrl_setup(struct virtio_hw *hw);
/** The device was reset: no command until the next setup. */
void virtio_ctrl_stop(struct virtio_hw *hw);
/** Free the control queue (close). */
void virtio_ctrl_free(struct virtio_hw *hw);
/* Port ops behind the control queue: kept by the driver, sent when started. */
int virtio_promisc_set(struct unic_port *port, bool on);
int virtio_allmulti_set(struct unic_port *port, bool on);
int virtio_mac_set(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
int virtio_mac_add(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
int virtio_mac_remove(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN]);
int virtio_mc_addr_list_set(struct unic_port *port, const uint8_t (*addrs)[UNIC_ETHER_ADDR_LEN], unsigned nb);
int virtio_vlan_filter_set(struct unic_port *port, uint16_t vlan_id, bool on);
/**
 * At start, after DRIVER_OK and before the rx buffers: send the port's
 * filter settings (MAC address, promiscuous and all-multicast, the MAC
 * table, the VLAN ids) to the device a reset took back to its defaults.
 * @return 0 or the first command's error (logged).
 */
int virtio_ctrl_restore(struct unic_port *port);
/** Publish the avail index and notify the device if it asked (virtio_rxtx.c). */
void virtio_vq_publish(struct virtio_vq *vq);
/* The common steps the packed ring shares with the split one (virtio_rxtx.c). */
/* Take one used rx buffer @p seg of @p len bytes into the frame being
 * assembled; @return true and *out when a frame is complete. */
bool virtio_rx_seg(struct virtio_rxq *rxq, struct unic_pkt *seg, uint32_t len, struct unic_pkt **out);
/* tx_prepare's checks: the descriptors the packet needs (header + segments), or 0 and *err. */
uint16_t virtio_tx_check(const struct virtio_txq *txq, const struct unic_pkt *p, bool hdrs, int *err);
/* Software VLAN insert if asked, then the header at descriptor id @p id. */
void virtio_tx_hdr(struct virtio_txq *txq, struct unic_pkt *p, uint16_t id);
/* Tell the device through the notification area (counted). */
void virtio_vq_kick(struct virtio_vq *vq, bool kick);

/* ---- virtio_packed.c: packed virtqueues (2.7) ------------------------------------ */

void virtio_packed_vq_init(struct virtio_vq *vq);
uint16_t virtio_packed_rx_burst(struct virtio_rxq *rxq, struct unic_pkt **pkts, uint16_t n);
uint16_t virtio_packed_tx_burst(struct virtio_txq *txq, struct unic_pkt **pkts, uint16_t n);
void virtio_packed_rx_refill(struct virtio_rxq *rxq, uint16_t thresh);
bool virtio_packed_rx_pending(struct virtio_rxq *rxq);
/* Arm (@p entries: the used positions to wait for, >= 1) or disarm. */
void virtio_packed_intr_arm(struct virtio_vq *vq, bool on, uint16_t entries);
/* Descriptor ops on a packed ring (the control path; no burst runs):
 * rx buffers the device used ahead of the driver (at most @p limit); tx
 * positions it used from the oldest outstanding one. Read-only: flags,
 * and ids checked as the bursts check them. */
uint16_t virtio_packed_rx_done(const struct virtio_rxq *rxq, uint16_t limit);
uint16_t virtio_packed_tx_done(const struct virtio_txq *txq);
int virtio_packed_tx_reclaim(struct virtio_txq *txq);

/* One request at a time on a packed virtqueue (a control queue: its
 * command, data and ack buffers), buffer id 0. */
struct virtio_req_seg {
	uint64_t iova;
	uint32_t len;
	bool write;                        /* device-writable (the ack) */
};
/* Make the chain of @p n buffers available and notify the device if it
 * asks. @return 0, -EINVAL (n is 0 or over the ring), -EBUSY (one is
 * still outstanding). */
int virtio_packed_request(struct virtio_vq *vq, const struct virtio_req_seg *segs, unsigned n);
/* Its used descriptor: @return 1 and *len (bytes the device wrote) once
 * used, 0 not yet, -EPROTO when the device named another id (counted in
 * bad_used; the request is over either way). */
int virtio_packed_request_done(struct virtio_vq *vq, uint32_t *len);

/* ---- virtio_intr.c ----------------------------------------------------------- */

/** Fill @p p for @p nvec device vectors, @p nb_rxq rx queues and, if @p config,
 * a vector for configuration changes. Pure (unit-tested). */
void virtio_vec_plan(unsigned nvec, uint16_t nb_rxq, bool config, struct virtio_vec_plan *p);

bool virtio_intr_wanted(const struct unic_port *port);
int virtio_intr_on(struct unic_port *port);
void virtio_intr_off(struct unic_port *port);
int virtio_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max);
/*
 * INTx with link events (the event thread's handler, after the line fired
 * and before it is unmasked): read ISR once, which clears both causes, and
 * hand each to its consumer: the queue cause to intx_rx_fd (the rx queues'
 * source), the configuration cause to the link handler. Exposed for the
 * unit tests (no PCI device there). @return the ISR value read (0 when
 * the device is off or gone).
 */
uint8_t virtio_intx_demux(struct unic_port *port);
int virtio_rx_intr_affinity(struct unic_port *port, uint16_t q, int cpu);
int virtio_coalesce_get(struct unic_port *port, struct unic_coalesce *c);
int virtio_coalesce_set(struct unic_port *port, const struct unic_coalesce *c);

#endif /* VIRTIO_PRIV_H */
