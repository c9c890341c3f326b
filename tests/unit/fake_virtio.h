/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake virtio-net device (modern PCI transport, split virtqueues) for
 * tests without a NIC, written from the virtio 1.1/1.2 specification
 * (sections 2, 4.1 and 5.1), not from the driver: every layout here is the
 * specification's, declared again in this file, so a test judges the
 * driver by what the device sees.
 *
 * The BAR. BAR4 is 16 KiB laid out as QEMU 7.2 lays it out: common config
 * at 0x0000, ISR at 0x1000, device config at 0x2000, notify at 0x3000 with
 * a multiplier of 4 (queue n is notified at 0x3000 + 4n), described by the
 * vendor capabilities of a PCI configuration space the fake also makes
 * (fake_virtio_dev.pci_cfg). The BAR is plain memory, so the device acts
 * on the driver's register accesses through the driver's access hooks
 * (fake_virtio_hook_read/written): before a read and after a write the
 * device does what a device does: a write of 0 to device_status resets it
 * (or not, if told to hang), FEATURES_OK is cleared when the device
 * refuses the features, queue_select swaps in that queue's registers, ISR
 * clears on read, a notify write is a kick the device counts and judges.
 * An access that does not go through the hooks is one the device never
 * sees (a register read gives what the last hook left there).
 *
 * The rings. The driver gives the device IOVAs (queue_desc, queue_driver,
 * queue_device, descriptor addresses); the device finds them in the
 * struct unic_mem it was given (unic_mem_seg_walk), and an address outside
 * it, a misaligned ring, a descriptor chain that loops or a read-only
 * descriptor where the device must write is a driver error the device
 * records (fake_virtio_dev.err, the first one, as a sentence) and refuses
 * to act on. The device side of a split virtqueue is in this file: take
 * posted rx buffers and deliver a frame (with the 12-byte header, merged
 * over several buffers when VIRTIO_NET_F_MRG_RXBUF was negotiated), take
 * posted tx chains and complete them, send used-buffer notifications
 * (interrupts) only when the driver's suppression allows, and ask for
 * kicks (VIRTQ_USED_F_NO_NOTIFY, avail_event) as QEMU does: not while it
 * holds rx buffers, and after running out it waits for a kick before it
 * looks at the avail ring again.
 *
 * The control queue (the last queue when CTRL_VQ is offered: 2, or
 * 2 x max_pairs with MQ) is carried out at its kick, as QEMU 7.2 does:
 * receive mode, MAC table, MAC address and VLAN commands change
 * fake_virtio_dev.filter (QEMU's defaults after a reset: promiscuous,
 * empty tables), each acked VIRTIO_NET_OK or VIRTIO_NET_ERR; a command
 * sent without its feature negotiated is a driver error.
 * fake_virtio_filter_accepts() is QEMU's receive filter over that state.
 *
 * Malicious device: the raw rings are reachable (fake_virtio_ring()) and
 * fake_virtio_used_put() writes any used entry without checks; the
 * control queue can refuse, stay silent, or answer with a bad used id,
 * length or index (enum fv_ctrl_mode).
 *
 * No Criterion in here: errors are return values and the err sentence.
 */
#ifndef FAKE_VIRTIO_H
#define FAKE_VIRTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <unic/mem.h>

/* ---- the specification's numbers (virtio 1.1/1.2) ---------------------- */

/* 2.1 Device status field. */
#define FV_S_ACKNOWLEDGE 1u
#define FV_S_DRIVER 2u
#define FV_S_DRIVER_OK 4u
#define FV_S_FEATURES_OK 8u
#define FV_S_NEEDS_RESET 0x40u
#define FV_S_FAILED 0x80u

/* 5.1.3 and 6: feature bits. */
#define FV_F_CSUM 0
#define FV_F_GUEST_CSUM 1
#define FV_F_MTU 3
#define FV_F_MAC 5
#define FV_F_GUEST_TSO4 7
#define FV_F_GUEST_TSO6 8
#define FV_F_HOST_TSO4 11
#define FV_F_HOST_TSO6 12
#define FV_F_MRG_RXBUF 15
#define FV_F_STATUS 16
#define FV_F_CTRL_VQ 17
#define FV_F_CTRL_RX 18
#define FV_F_CTRL_VLAN 19
#define FV_F_GUEST_ANNOUNCE 21
#define FV_F_MQ 22
#define FV_F_CTRL_MAC_ADDR 23
#define FV_F_INDIRECT_DESC 28
#define FV_F_EVENT_IDX 29
#define FV_F_VERSION_1 32
#define FV_F_ACCESS_PLATFORM 33
#define FV_F_RING_PACKED 34
#define FV_F_IN_ORDER 35
#define FV_F_RING_RESET 40
#define FV_F_HASH_REPORT 57
#define FV_F_RSS 60
#define FV_BIT(f) (1ull << (f))

/* What QEMU 7.2's virtio-net-pci offers behind a hub (no vnet header peer),
 * with iommu_platform=on: device features 0x0000010330bf8024 as read in the
 * rig's guest, less nothing. */
#define FV_FEATURES_QEMU_HUB 0x0000010330bf8024ull

/* 4.1.4.3 struct virtio_pci_common_cfg: offsets. */
#define FV_CC_DFSELECT 0x00
#define FV_CC_DF 0x04
#define FV_CC_GFSELECT 0x08
#define FV_CC_GF 0x0c
#define FV_CC_MSIX_CONFIG 0x10
#define FV_CC_NUM_QUEUES 0x12
#define FV_CC_STATUS 0x14
#define FV_CC_CFG_GEN 0x15
#define FV_CC_Q_SELECT 0x16
#define FV_CC_Q_SIZE 0x18
#define FV_CC_Q_MSIX 0x1a
#define FV_CC_Q_ENABLE 0x1c
#define FV_CC_Q_NOTIFY_OFF 0x1e
#define FV_CC_Q_DESC 0x20
#define FV_CC_Q_DRIVER 0x28
#define FV_CC_Q_DEVICE 0x30
#define FV_CC_LEN 0x38

/* 4.1.4.6: no vector. */
#define FV_NO_VECTOR 0xffffu

/* 5.1.4 struct virtio_net_config: offsets; status bits. */
#define FV_NC_MAC 0
#define FV_NC_STATUS 6
#define FV_NC_MAX_PAIRS 8
#define FV_NC_MTU 10
#define FV_NC_RSS_MAX_KEY 17     /* u8 rss_max_key_size */
#define FV_NC_RSS_MAX_TABLE 18   /* le16 rss_max_indirection_table_length */
#define FV_NC_HASH_TYPES 20      /* le32 supported_hash_types */
#define FV_NET_S_LINK_UP 1u
#define FV_NET_S_ANNOUNCE 2u

/* The BAR as QEMU 7.2 lays it out (16 KiB, four regions of 4 KiB). */
#define FV_BAR_LEN 0x4000u
#define FV_OFF_COMMON 0x0000u
#define FV_OFF_ISR 0x1000u
#define FV_OFF_DEVICE 0x2000u
#define FV_OFF_NOTIFY 0x3000u
#define FV_NOTIFY_MULT 4u

/* 2.7.5 (1.1: 2.6.5) split virtqueue descriptor. */
#define FV_DESC_F_NEXT 1u
#define FV_DESC_F_WRITE 2u
#define FV_DESC_F_INDIRECT 4u
struct fv_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

/* 2.7.6 avail ring: flags, idx, ring[size], used_event. */
#define FV_AVAIL_F_NO_INTERRUPT 1u
struct fv_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[];
};

/* 2.7.8 used ring: flags, idx, ring[size] of {id, len}, avail_event. */
#define FV_USED_F_NO_NOTIFY 1u
struct fv_used_elem {
	uint32_t id;
	uint32_t len;
};
struct fv_used {
	uint16_t flags;
	uint16_t idx;
	struct fv_used_elem ring[];
};

/* 2.7.13 packed virtqueue descriptor; 2.7.1 flags; 2.7.14 event suppression. */
#define FV_PDESC_F_AVAIL (1u << 7)
#define FV_PDESC_F_USED (1u << 15)
struct fv_pdesc {
	uint64_t addr;
	uint32_t len;
	uint16_t id;
	uint16_t flags;
};
#define FV_PEVENT_ENABLE 0u
#define FV_PEVENT_DISABLE 1u
#define FV_PEVENT_DESC 2u
struct fv_pevent {
	uint16_t off_wrap;    /* offset bits 0..14, wrap counter bit 15 */
	uint16_t flags;
};

/* 5.1.6 struct virtio_net_hdr (12 bytes with VERSION_1). */
#define FV_HDR_F_NEEDS_CSUM 1u
#define FV_HDR_F_DATA_VALID 2u
#define FV_GSO_NONE 0u
#define FV_GSO_TCPV4 1u
#define FV_GSO_UDP 3u
#define FV_GSO_TCPV6 4u
#define FV_GSO_ECN 0x80u
struct fv_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers;
};
#define FV_NET_HDR_LEN 12u
/* With VIRTIO_NET_F_HASH_REPORT the header is 20 bytes both ways:
 * le32 hash_value, le16 hash_report, le16 padding after the 12. */
#define FV_NET_HDR_HASH_LEN 20u

/* 5.1.6.4.3.1: hash types (supported_hash_types, hash_types) and reports. */
#define FV_HASH_IPV4 (1u << 0)
#define FV_HASH_TCPV4 (1u << 1)
#define FV_HASH_UDPV4 (1u << 2)
#define FV_HASH_IPV6 (1u << 3)
#define FV_HASH_TCPV6 (1u << 4)
#define FV_HASH_UDPV6 (1u << 5)
#define FV_REPORT_NONE 0u
#define FV_REPORT_IPV4 1u
#define FV_REPORT_TCPV4 2u
#define FV_REPORT_UDPV4 3u
#define FV_REPORT_IPV6 4u
#define FV_REPORT_TCPV6 5u
#define FV_REPORT_UDPV6 6u

/* 5.1.6.5: control commands of class MQ (the acks: FV_NET_OK, FV_NET_ERR). */
#define FV_CTRL_MQ 4u
#define FV_CTRL_MQ_VQ_PAIRS_SET 0u
#define FV_CTRL_MQ_RSS_CONFIG 1u
#define FV_CTRL_MQ_HASH_CONFIG 2u
#define FV_RSS_TABLE_MAX 128u
#define FV_RSS_KEY_MAX 40u

/* 5.1.6.5 the control virtqueue: acks, classes, commands. */
#define FV_NET_OK 0u
#define FV_NET_ERR 1u
#define FV_CTRL_RX 0u
#define FV_CTRL_RX_PROMISC 0u
#define FV_CTRL_RX_ALLMULTI 1u
#define FV_CTRL_RX_ALLUNI 2u
#define FV_CTRL_RX_NOMULTI 3u
#define FV_CTRL_RX_NOUNI 4u
#define FV_CTRL_RX_NOBCAST 5u
#define FV_CTRL_MAC 1u
#define FV_CTRL_MAC_TABLE_SET 0u
#define FV_CTRL_MAC_ADDR_SET 1u
#define FV_CTRL_VLAN 2u
#define FV_CTRL_VLAN_ADD 0u
#define FV_CTRL_VLAN_DEL 1u
#define FV_F_CTRL_RX_EXTRA 20
#define FV_MAC_TABLE_ENTRIES 64 /* QEMU 7.2's MAC_TABLE_ENTRIES */

/* 2.7.10: does moving an index from old to new pass event? (vring_need_event) */
static inline bool fv_need_event(uint16_t event, uint16_t new_idx, uint16_t old)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old);
}

/* ---- the device ---------------------------------------------------------- */

#define FV_MAX_PAIRS 8
#define FV_MAX_QUEUES (2 * FV_MAX_PAIRS + 1) /* the pairs and the control queue */

/* How the device asks for kicks on a queue (what it writes in
 * used->flags, or avail_event with EVENT_IDX). */
enum fv_kick_policy {
	FV_KICK_QEMU = 0,  /* rx: none while it holds buffers, then wait for one; tx: always */
	FV_KICK_ALWAYS,    /* flags 0 / avail_event = the next index */
	FV_KICK_NEVER,     /* NO_NOTIFY / avail_event far away */
};

struct fake_virtio_config {
	uint64_t features;        /* offered; 0: FV_FEATURES_QEMU_HUB */
	uint64_t require;         /* refuse FEATURES_OK unless all these are accepted;
				     0: VERSION_1 and, if offered, ACCESS_PLATFORM */
	uint16_t nb_queues;       /* num_queues; 0: 3 (rx, tx, ctrl) */
	uint16_t queue_size;      /* maximum of each data queue; 0: 256 */
	uint16_t ctrl_size;       /* maximum of the last queue when CTRL_VQ; 0: 64 */
	uint16_t nb_vectors;      /* MSI-X vectors; 0: 4 */
	uint8_t mac[6];           /* 0: 52:54:00:12:34:56 */
	uint16_t net_status;      /* 0: LINK_UP */
	uint16_t mtu;             /* 0: 1500 */
	uint16_t max_pairs;       /* 0: 1 */
	uint8_t rss_max_key;      /* 0: 40 (with RSS or HASH_REPORT offered) */
	uint16_t rss_max_table;   /* 0: 128 */
	uint32_t hash_types;      /* 0: IPv4, TCPv4, UDPv4, IPv6, TCPv6, UDPv6 */
};

/* What the MQ class of control commands set (5.1.6.5.5 to 5.1.6.5.7). */
struct fv_rss {
	bool rss;                 /* an RSS_CONFIG with hash types is in force */
	bool hash;                /* hashes are computed (RSS or HASH_CONFIG with types) */
	uint32_t hash_types;
	uint16_t table_len;       /* mask + 1 */
	uint16_t table[FV_RSS_TABLE_MAX];
	uint16_t unclassified;
	uint16_t max_tx_vq;
	uint8_t key_len;
	uint8_t key[FV_RSS_KEY_MAX];
	uint8_t raw[8 + 2 * FV_RSS_TABLE_MAX + 3 + FV_RSS_KEY_MAX]; /* the last command's bytes */
	size_t raw_len;
	unsigned nb_rss_config, nb_hash_config, nb_pairs_set;
};

struct fv_queue {
	/* Registers (what queue_select shows). */
	uint16_t size_max, size, msix, enable, notify_off;
	uint64_t desc, driver, device;
	/* The device's side of the ring. */
	uint16_t last_avail;      /* next avail entry the device takes */
	uint16_t used_idx;        /* next used entry it writes */
	uint16_t kicked_at;       /* avail idx at the last kick */
	bool waiting;             /* ran out of buffers: looks again only after a kick */
	/* Packed rings (2.7.1): the next descriptor the device reads and the
	 * next it writes used, each with its wrap counter (1 at reset). */
	uint16_t pk_avail, pk_used;
	bool pk_avail_wrap, pk_used_wrap;
	enum fv_kick_policy kick_policy;
	uint64_t kicks;
	uint64_t kicks_unasked;   /* a kick the device had not asked for (a SHOULD NOT) */
	uint64_t interrupts;      /* used-buffer notifications sent */
	uint64_t suppressed;      /* ... and not sent because the driver suppressed them */
	int irq_fd;               /* written on a notification if >= 0 (not owned) */
	/* IN_ORDER: the batch being gathered (buffers used, not yet reported). */
	uint16_t io_open;         /* buffers in it */
	uint16_t io_ndesc;        /* packed: the positions they took */
	uint16_t io_id;           /* the last one's id (split: its head) */
	uint32_t io_len;          /* ... and length */
	uint32_t io_batches;      /* batches reported (picks the next size) */
	uint16_t io_next_desc;    /* split: where the driver's next chain must start */
};

/* How the device answers its control queue. */
enum fv_ctrl_mode {
	FV_CTRL_ANSWER = 0,  /* carry out each command at its kick, as QEMU does */
	FV_CTRL_SILENT,      /* take nothing, answer nothing */
	FV_CTRL_REFUSE,      /* answer every command VIRTIO_NET_ERR */
	FV_CTRL_BAD_ID,      /* carry it out, answer with used id ctrl_bad */
	FV_CTRL_BAD_LEN,     /* carry it out, answer with used len ctrl_bad */
	FV_CTRL_JUMP,        /* carry it out, move used->idx by ctrl_bad */
};

/* The receive filter QEMU 7.2's virtio-net keeps (virtio_net_reset,
 * receive_filter): what the control queue changes. */
struct fv_filter {
	bool promisc, allmulti, alluni, nomulti, nouni, nobcast;
	unsigned nb_uc, nb_mc;
	uint8_t uc[FV_MAC_TABLE_ENTRIES][6];
	uint8_t mc[FV_MAC_TABLE_ENTRIES][6];
	bool uc_overflow, mc_overflow;
	uint8_t vlans[4096 / 8];
};

struct fake_virtio_dev {
	struct fake_virtio_config cfg;
	uint8_t *bar;             /* BAR4, FV_BAR_LEN bytes */
	uint8_t pci_cfg[256];     /* the PCI configuration space: header and capabilities */
	int tear_config_reads;    /* the next N reads of the MAC see it change half-way */
	bool pending_mac0;        /* ... whose first byte changes at the next access */
	struct unic_mem *mem;     /* where IOVAs are looked up (not owned) */

	uint64_t offered, accepted;   /* accepted: frozen at FEATURES_OK, 0 after a reset */
	uint64_t last_accepted;       /* at the last FEATURES_OK the device took (kept) */
	unsigned nb_features_ok;      /* FEATURES_OK the device took */
	unsigned nb_driver_ok;        /* DRIVER_OK set */
	uint32_t drv_features[2];     /* driver_feature words as written */
	uint8_t status;               /* as the device holds it */
	bool features_ok, driver_ok, failed, gone;
	bool refuse_features;         /* clear FEATURES_OK whatever was accepted */
	bool reset_hangs;             /* a write of 0 never completes */
	bool needs_reset_at_driver_ok; /* DRIVER_OK answered with DEVICE_NEEDS_RESET */
	uint16_t q_select;
	uint16_t msix_config;
	struct fv_queue q[FV_MAX_QUEUES];
	int config_irq_fd;            /* written on a config change if >= 0 */
	uint8_t isr;                  /* ISR as the device holds it (4.1.4.5): bit 0 a used
				       * buffer, bit 1 a config change; a read returns it
				       * and clears it, 0 after a reset */
	uint64_t isr_reads;           /* reads of ISR the driver made */

	/* Multi-queue (MQ, RSS, HASH_REPORT). */
	uint16_t vq_pairs;            /* queue pairs in use: 1 after a reset (5.1.6.5.5) */
	struct fv_rss rss;
	bool mq_answer_err;           /* malicious: answer every MQ command with ERR */
	uint32_t rx_hash_value;       /* the next fake_virtio_rx's hash fields (HASH_REPORT) */
	uint16_t rx_hash_report;

	/* IN_ORDER (offer FV_BIT(FV_F_IN_ORDER)): once accepted the device
	 * uses buffers in order and reports them in batches (2.6.9, 2.7.9):
	 * one used entry per batch (split: at the batch's first slot, the
	 * used index moved by the batch; packed: over the batch's first
	 * descriptor, the batch's positions skipped) naming its last buffer.
	 * Batch sizes cycle through io_batch[0 .. nb_io_batch) (none, or 0:
	 * 1). An rx buffer not written completely ends its batch (only a used
	 * entry can say its length; skipped buffers count as written whole).
	 * A batch still open when fake_virtio_rx/tx returns is reported then,
	 * unless io_hold: then it waits until full or fake_virtio_flush().
	 * The driver's side is checked: split chains in ring order (each at
	 * the descriptor after the last one's, next = x + 1, indirect
	 * entries in sequence); a violation is a driver error (err). */
	uint16_t io_batch[16];
	unsigned nb_io_batch;
	bool io_hold;
	bool io_lax;                  /* the driver's ring order not checked (a harness that
				       * rewrites the avail ring itself) */
	uint16_t walk_main;           /* descriptors of the table the last split chain took */

	/* What the device saw. */
	uint64_t resets;              /* completed (status 0 written) */
	uint8_t status_log[32];       /* every status value written, in order */
	unsigned nb_status;
	uint64_t config_changes;
	uint64_t bad_notify;          /* a notify write with the wrong queue index */
	char err[256];                /* the first driver error the device saw, "" */
	uint64_t nb_err;

	/* The control queue (the last queue when CTRL_VQ is offered). */
	enum fv_ctrl_mode ctrl_mode;
	uint32_t ctrl_bad;            /* the bad id / len / jump of the modes above */
	struct fv_filter filter;      /* back to QEMU's defaults at reset: promiscuous */
	uint8_t mac[6];               /* the MAC now (MAC_ADDR_SET; cfg.mac after a reset) */
	uint64_t ctrl_cmds;           /* commands carried out (acked OK) */
	uint64_t ctrl_refused;        /* answered VIRTIO_NET_ERR */
	struct { uint8_t cls, cmd; } ctrl_log[64]; /* the last commands, oldest first */
	unsigned nb_ctrl_log;
};

/**
 * Build a device over @p mem (where the driver's DMA memory is); @p c may
 * be NULL (the defaults). @return 0, or -ENOMEM.
 */
int fake_virtio_dev_create(struct fake_virtio_dev *d, const struct fake_virtio_config *c,
			   struct unic_mem *mem);
void fake_virtio_dev_destroy(struct fake_virtio_dev *d);

/** Every register to its reset value (as a write of 0 would), the config too. */
void fake_virtio_dev_reset(struct fake_virtio_dev *d);

/** Would QEMU 7.2's receive filter take this frame now (receive_filter)? */
bool fake_virtio_filter_accepts(const struct fake_virtio_dev *d, const uint8_t *frame, size_t len);
/** The control queue's number: 2 x max_pairs with MQ, else 2. */
uint16_t fake_virtio_ctrl_queue(const struct fake_virtio_dev *d);

/** Change the device config (status, MAC): bump config_generation, set ISR bit 1,
 * notify the config vector. */
void fake_virtio_set_net_status(struct fake_virtio_dev *d, uint16_t status);
void fake_virtio_set_mac(struct fake_virtio_dev *d, const uint8_t mac[6]);

/** The device is gone: every byte of the BAR reads 0xff from now on, writes are lost. */
void fake_virtio_vanish(struct fake_virtio_dev *d);

/** Set DEVICE_NEEDS_RESET (and ISR bit 1, a config notification). */
void fake_virtio_needs_reset(struct fake_virtio_dev *d);

/* The rings of queue @p q as the device reaches them (NULL: not set up or
 * outside DMA memory). A packed ring (RING_PACKED accepted) has pdesc and
 * the two event suppression structures instead of desc/avail/used. */
struct fv_ring {
	uint16_t size;
	bool packed;
	struct fv_pdesc *pdesc;
	struct fv_pevent *drv_event;  /* driver area: the driver's notification wishes */
	struct fv_pevent *dev_event;  /* device area: the device's kick wishes */
	struct fv_desc *desc;
	struct fv_avail *avail;
	struct fv_used *used;
	uint16_t *used_event;     /* in the avail ring, after ring[size] */
	uint16_t *avail_event;    /* in the used ring, after ring[size] */
};
int fake_virtio_ring(struct fake_virtio_dev *d, uint16_t q, struct fv_ring *r);

/** Translate an IOVA of @p len bytes into the device's pointer; NULL if outside. */
void *fake_virtio_iova(struct fake_virtio_dev *d, uint64_t iova, size_t len);

/** Buffers the driver has posted and the device has not taken (avail idx - last_avail). */
int fake_virtio_avail_count(struct fake_virtio_dev *d, uint16_t q);

/**
 * Deliver a frame on rx queue @p q: header @p hdr (NULL: all zero;
 * num_buffers is the device's to set) then @p len bytes of @p frame, into
 * as many posted buffers as needed (several only with MRG_RXBUF), then a
 * used-buffer notification if allowed.
 * @return the buffers used (>= 1), -EAGAIN (no buffer posted, or waiting
 *         for a kick after running out: nothing delivered, as QEMU keeps
 *         it queued), -EMSGSIZE (does not fit), -EIO (queue not live:
 *         not DRIVER_OK, not enabled, gone), -EPROTO (a driver error, in err).
 */
int fake_virtio_rx(struct fake_virtio_dev *d, uint16_t q, const struct fv_net_hdr *hdr,
		   const void *frame, size_t len);

/* A frame the device took from a tx queue. */
struct fv_frame {
	struct fv_net_hdr hdr;
	uint8_t *data;            /* malloc'd, after the header */
	size_t len;
	unsigned nb_desc;         /* descriptors of its chain (an indirect table counts its entries) */
	bool indirect;
};
void fv_frame_free(struct fv_frame *f);

/**
 * Take up to @p max chains from tx queue @p q, copy each into @p out (NULL:
 * just complete them) and complete it (used entry, len 0), then a
 * notification if allowed.
 * @return how many, or -EIO / -EPROTO as fake_virtio_rx.
 */
int fake_virtio_tx(struct fake_virtio_dev *d, uint16_t q, struct fv_frame *out, unsigned max);

/** A used entry as a malicious device writes it: at the device's used_idx,
 * which then advances; @p publish also stores used->idx. No check at all. */
void fake_virtio_used_put(struct fake_virtio_dev *d, uint16_t q, uint32_t id, uint32_t len, bool publish);
/**
 * Packed ring, malicious: write the descriptor at ring slot @p slot of
 * queue @p q as given (id, len, flags: any AVAIL/USED combination), no
 * check, and move nothing. With @p advance, the device's used position
 * (and its wrap counter) moves past one descriptor afterwards, as after a
 * used descriptor it wrote there.
 */
void fake_virtio_packed_put(struct fake_virtio_dev *d, uint16_t q, uint16_t slot, uint16_t id, uint32_t len,
			    uint16_t flags, bool advance);
/** Packed ring: the device's next used slot and the USED|AVAIL flags it writes there. */
uint16_t fake_virtio_packed_used_slot(struct fake_virtio_dev *d, uint16_t q, uint16_t *used_flags);

/**
 * IN_ORDER: report the batch queue @p q holds open (io_hold) now, with a
 * notification if allowed. @return the buffers it held (0: none), or
 * -EIO (queue not live).
 */
int fake_virtio_flush(struct fake_virtio_dev *d, uint16_t q);

/** Store used->idx as given (any jump). */
void fake_virtio_used_idx_set(struct fake_virtio_dev *d, uint16_t q, uint16_t idx);

/**
 * Handle a control command of class MQ (5.1.6.5.5 to 5.1.6.5.7) with its
 * @p len bytes of @p data, as the device's control queue does: checks it
 * against the specification and what was negotiated, records it in d->rss
 * (the raw bytes too) and d->vq_pairs. A violation is recorded in err.
 * @return the ack, FV_NET_OK or FV_NET_ERR.
 */
uint8_t fake_virtio_ctrl_mq(struct fake_virtio_dev *d, uint8_t cmd, const uint8_t *data, size_t len);

/** The header length the device uses now: 12, or 20 with HASH_REPORT. */
size_t fake_virtio_hdr_len(const struct fake_virtio_dev *d);

/**
 * Steer a frame as the device does: with RSS in force, the Toeplitz hash
 * of its IPv4/IPv6 addresses (and TCP/UDP ports when those types are on)
 * over the key, the queue from the indirection table (unclassified frames
 * to the unclassified queue); the hash in the header with HASH_REPORT.
 * Without RSS, queue 0. Then fake_virtio_rx on that queue's rx virtqueue.
 * @return the rx queue (pair) it went to, or fake_virtio_rx's error.
 */
int fake_virtio_rx_steer(struct fake_virtio_dev *d, const void *frame, size_t len);

/** Send a used-buffer notification for @p q whether or not the driver wants one. */
void fake_virtio_interrupt(struct fake_virtio_dev *d, uint16_t q);

/** Does the driver currently suppress notifications on @p q (flags or used_event
 * vs the device's used_idx)? */
bool fake_virtio_intr_suppressed(struct fake_virtio_dev *d, uint16_t q);

/** Set the kick policy of queue @p q (and write what it asks in the ring now). */
void fake_virtio_kick_policy(struct fake_virtio_dev *d, uint16_t q, enum fv_kick_policy p);

/* The device's side of the driver's register access hooks (virtio_priv.h,
 * struct virtio_hw_hooks): @p region is the driver's enum virtio_region
 * (0 common, 1 notify, 2 ISR, 3 device), @p off inside it. */
void fake_virtio_hook_read(void *ctx, int region, uint32_t off, unsigned width);
void fake_virtio_hook_written(void *ctx, int region, uint32_t off, unsigned width);

/* BAR fields as the device sees them (x86: little-endian). */
static inline uint8_t fv_bar8(const struct fake_virtio_dev *d, uint32_t off)
{
	return *(volatile uint8_t *)(d->bar + off);
}
static inline uint16_t fv_bar16(const struct fake_virtio_dev *d, uint32_t off)
{
	return *(volatile uint16_t *)(d->bar + off);
}
static inline uint32_t fv_bar32(const struct fake_virtio_dev *d, uint32_t off)
{
	return *(volatile uint32_t *)(d->bar + off);
}

#endif /* FAKE_VIRTIO_H */

/* ---- the driver on the fake device ---------------------------------------- */

#ifndef FAKE_VIRTIO_DRIVER_H
#define FAKE_VIRTIO_DRIVER_H

#include <unic/pool.h>
#include <unic/port.h>

#include "../../pmd/virtio/virtio_priv.h"

/* The driver (pmd/virtio) attached to a fake device through its attach
 * entry (virtio_port_attach), as its PCI probe would: the fake's PCI
 * configuration space, BAR4, the access hooks, a --no-huge DMA memory
 * context (IOVA = VA, so the device reaches it) and a packet pool. */
struct fake_virtio {
	struct fake_virtio_dev dev;
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *port;      /* NULL when the attach failed */
	struct virtio_port *vp;
	int attach_rc;
};

/**
 * Build the device, the memory and the pool, then attach the driver with
 * @p iommu (ACCESS_PLATFORM required). @p before, if not NULL, is called on
 * the device before the attach (to make it refuse, hang, tear...).
 * @return 0 (f->port set), the attach's error (f->port NULL, the fake
 *         kept for inspection), or -ENOMEM.
 */
int fake_virtio_create(struct fake_virtio *f, const struct fake_virtio_config *c, bool iommu,
		       void (*before)(struct fake_virtio_dev *d));

/**
 * Configure the port with @p pc (NULL: one rx and one tx queue, MTU 1500,
 * poll mode), set up its queues with @p nb_desc descriptors (0: the
 * driver's default) and start it, through the port API.
 * @return 0 or the first error.
 */
int fake_virtio_start(struct fake_virtio *f, uint16_t nb_desc, const struct unic_port_conf *pc);

/** Stop (if started), close and put the port; free the pool, memory and device. */
void fake_virtio_destroy(struct fake_virtio *f);

#endif /* FAKE_VIRTIO_DRIVER_H */
