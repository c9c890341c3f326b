/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio 1.x over PCI, the network device: the layouts the driver reads and
 * writes, from the OASIS virtio specification 1.1/1.2 (section numbers
 * given). Everything here is little-endian on the wire; the driver is built
 * for little-endian hosts only (checked below), so fields are used as they
 * are. Only what the driver uses is listed.
 */
#ifndef VIRTIO_REGS_H
#define VIRTIO_REGS_H

#include <assert.h>
#include <stdint.h>

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	      "pmd/virtio uses the device's little-endian fields as they are");

#define VIRTIO_PCI_VENDOR        0x1af4
#define VIRTIO_PCI_DEVICE_NET    0x1041 /* modern: 0x1040 + device type 1 (4.1.2.1) */
#define VIRTIO_PCI_DEVICE_NET_TR 0x1000 /* transitional network device */

/* ---- PCI capabilities (4.1.4) ------------------------------------------- */
#define VIRTIO_PCI_CAP_VNDR       0x09 /* PCI vendor-specific capability id */
#define VIRTIO_PCI_CAP_COMMON_CFG 1
#define VIRTIO_PCI_CAP_NOTIFY_CFG 2
#define VIRTIO_PCI_CAP_ISR_CFG    3
#define VIRTIO_PCI_CAP_DEVICE_CFG 4
#define VIRTIO_PCI_CAP_PCI_CFG    5

/* struct virtio_pci_cap, offsets from the capability's start */
#define VIRTIO_PCI_CAP_OFF_NEXT     1  /* u8 next capability */
#define VIRTIO_PCI_CAP_OFF_LEN      2  /* u8 length of this capability */
#define VIRTIO_PCI_CAP_OFF_TYPE     3  /* u8 cfg_type */
#define VIRTIO_PCI_CAP_OFF_BAR      4  /* u8 BAR 0..5 */
#define VIRTIO_PCI_CAP_OFF_OFFSET   8  /* le32 offset in the BAR */
#define VIRTIO_PCI_CAP_OFF_LENGTH   12 /* le32 length of the structure */
#define VIRTIO_PCI_CAP_OFF_NOTIFY_MULT 16 /* le32, notify cap only (4.1.4.4) */
#define VIRTIO_PCI_CAP_MIN_LEN      16
#define VIRTIO_PCI_NOTIFY_CAP_MIN_LEN 20

/* PCI config space header */
#define PCI_CFG_STATUS          0x06 /* u16 */
#define PCI_CFG_STATUS_CAP_LIST (1u << 4)
#define PCI_CFG_CAP_PTR         0x34 /* u8 */
#define PCI_CFG_SPACE_LEN       256  /* the capability list lives here */

/* ---- common configuration (4.1.4.3), offsets and access widths ---------- */
#define VIRTIO_COMMON_DFSELECT      0x00 /* RW le32 device_feature_select */
#define VIRTIO_COMMON_DF            0x04 /* RO le32 device_feature */
#define VIRTIO_COMMON_GFSELECT      0x08 /* RW le32 driver_feature_select */
#define VIRTIO_COMMON_GF            0x0c /* RW le32 driver_feature */
#define VIRTIO_COMMON_MSIX          0x10 /* RW le16 config_msix_vector */
#define VIRTIO_COMMON_NUMQ          0x12 /* RO le16 num_queues */
#define VIRTIO_COMMON_STATUS        0x14 /* RW u8   device_status */
#define VIRTIO_COMMON_CFGGEN        0x15 /* RO u8   config_generation */
#define VIRTIO_COMMON_Q_SELECT      0x16 /* RW le16 queue_select */
#define VIRTIO_COMMON_Q_SIZE        0x18 /* RW le16 queue_size */
#define VIRTIO_COMMON_Q_MSIX        0x1a /* RW le16 queue_msix_vector */
#define VIRTIO_COMMON_Q_ENABLE      0x1c /* RW le16 queue_enable */
#define VIRTIO_COMMON_Q_NOFF        0x1e /* RO le16 queue_notify_off */
#define VIRTIO_COMMON_Q_DESCLO      0x20 /* RW le64 queue_desc (two le32) */
#define VIRTIO_COMMON_Q_DESCHI      0x24
#define VIRTIO_COMMON_Q_AVAILLO     0x28 /* RW le64 queue_driver */
#define VIRTIO_COMMON_Q_AVAILHI     0x2c
#define VIRTIO_COMMON_Q_USEDLO      0x30 /* RW le64 queue_device */
#define VIRTIO_COMMON_Q_USEDHI      0x34
#define VIRTIO_COMMON_LEN           0x38 /* the 1.1 structure; 1.2 adds notify data, reset */

#define VIRTIO_MSI_NO_VECTOR        0xffff

/* device_status (2.1) */
#define VIRTIO_STATUS_ACKNOWLEDGE   0x01
#define VIRTIO_STATUS_DRIVER        0x02
#define VIRTIO_STATUS_DRIVER_OK     0x04
#define VIRTIO_STATUS_FEATURES_OK   0x08
#define VIRTIO_STATUS_NEEDS_RESET   0x40
#define VIRTIO_STATUS_FAILED        0x80

/* ISR status (4.1.4.5): reading clears it */
#define VIRTIO_ISR_QUEUE            0x01
#define VIRTIO_ISR_CONFIG           0x02

/* ---- feature bits (5.1.3, 6) --------------------------------------------- */
#define VIRTIO_NET_F_CSUM           0  /* device takes packets with a partial checksum */
#define VIRTIO_NET_F_GUEST_CSUM     1  /* driver takes packets with a partial checksum */
#define VIRTIO_NET_F_CTRL_GUEST_OFFLOADS 2
#define VIRTIO_NET_F_MTU            3
#define VIRTIO_NET_F_MAC            5
#define VIRTIO_NET_F_GUEST_TSO4     7
#define VIRTIO_NET_F_GUEST_TSO6     8
#define VIRTIO_NET_F_GUEST_ECN      9
#define VIRTIO_NET_F_GUEST_UFO      10
#define VIRTIO_NET_F_HOST_TSO4      11
#define VIRTIO_NET_F_HOST_TSO6      12
#define VIRTIO_NET_F_HOST_ECN       13
#define VIRTIO_NET_F_HOST_UFO       14
#define VIRTIO_NET_F_MRG_RXBUF      15
#define VIRTIO_NET_F_STATUS         16
#define VIRTIO_NET_F_CTRL_VQ        17
#define VIRTIO_NET_F_CTRL_RX        18
#define VIRTIO_NET_F_CTRL_VLAN      19
#define VIRTIO_NET_F_CTRL_RX_EXTRA  20
#define VIRTIO_NET_F_GUEST_ANNOUNCE 21
#define VIRTIO_NET_F_MQ             22
#define VIRTIO_NET_F_CTRL_MAC_ADDR  23
#define VIRTIO_F_INDIRECT_DESC      28
#define VIRTIO_F_EVENT_IDX          29
#define VIRTIO_F_VERSION_1          32
#define VIRTIO_F_ACCESS_PLATFORM    33
#define VIRTIO_F_RING_PACKED        34
#define VIRTIO_F_IN_ORDER           35
#define VIRTIO_F_ORDER_PLATFORM     36
#define VIRTIO_F_SR_IOV             37
#define VIRTIO_F_NOTIFICATION_DATA  38
#define VIRTIO_F_RING_RESET         40
#define VIRTIO_NET_F_HASH_REPORT    57
#define VIRTIO_NET_F_RSS            60
#define VIRTIO_NET_F_SPEED_DUPLEX   63

#define VIRTIO_BIT(f) (1ull << (f))

/* ---- network device configuration (5.1.4), offsets ----------------------- */
#define VIRTIO_NET_CFG_MAC          0  /* u8[6], with VIRTIO_NET_F_MAC */
#define VIRTIO_NET_CFG_STATUS       6  /* le16, with VIRTIO_NET_F_STATUS */
#define VIRTIO_NET_CFG_MAX_PAIRS    8  /* le16, with VIRTIO_NET_F_MQ */
#define VIRTIO_NET_CFG_MTU          10 /* le16, with VIRTIO_NET_F_MTU */
#define VIRTIO_NET_CFG_SPEED        12 /* le32, with VIRTIO_NET_F_SPEED_DUPLEX */
#define VIRTIO_NET_CFG_DUPLEX       16 /* u8 */
#define VIRTIO_NET_CFG_RSS_KEY_MAX  17 /* u8, with VIRTIO_NET_F_RSS or HASH_REPORT */
#define VIRTIO_NET_CFG_RSS_TBL_MAX  18 /* le16 rss_max_indirection_table_length (RSS) */
#define VIRTIO_NET_CFG_HASH_TYPES   20 /* le32 supported_hash_types (RSS or HASH_REPORT) */
#define VIRTIO_NET_CFG_LEN_RSS      24 /* the structure up to supported_hash_types */
#define VIRTIO_NET_CFG_LEN_MIN      12 /* MAC, status, pairs, MTU */

#define VIRTIO_NET_S_LINK_UP        1
#define VIRTIO_NET_S_ANNOUNCE       2

/* ---- the network header (5.1.6) ----------------------------------------- */
#define VIRTIO_NET_HDR_F_NEEDS_CSUM 1 /* csum_start/csum_offset: fill in the checksum */
#define VIRTIO_NET_HDR_F_DATA_VALID 2 /* the checksum was checked (rx) */
#define VIRTIO_NET_HDR_GSO_NONE     0
#define VIRTIO_NET_HDR_GSO_TCPV4    1
#define VIRTIO_NET_HDR_GSO_UDP      3
#define VIRTIO_NET_HDR_GSO_TCPV6    4
#define VIRTIO_NET_HDR_GSO_ECN      0x80

/* With VIRTIO_F_VERSION_1 the header is always this one, 12 bytes. */
struct virtio_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;      /* bytes of headers (a hint) */
	uint16_t gso_size;     /* bytes of payload per segment */
	uint16_t csum_start;   /* from the frame's start */
	uint16_t csum_offset;  /* from csum_start */
	uint16_t num_buffers;  /* rx, VIRTIO_NET_F_MRG_RXBUF: buffers the frame took */
};
static_assert(sizeof(struct virtio_net_hdr) == 12, "virtio_net_hdr (mrg_rxbuf) is 12 bytes");

/* ---- the control virtqueue (5.1.6.5) ------------------------------------ */
#define VIRTIO_NET_OK               0 /* the ack of a command carried out */
#define VIRTIO_NET_ERR              1
#define VIRTIO_NET_CTRL_RX          0 /* data: u8 on (VIRTIO_NET_F_CTRL_RX) */
#define VIRTIO_NET_CTRL_RX_PROMISC  0
#define VIRTIO_NET_CTRL_RX_ALLMULTI 1
#define VIRTIO_NET_CTRL_RX_ALLUNI   2 /* VIRTIO_NET_F_CTRL_RX_EXTRA */
#define VIRTIO_NET_CTRL_RX_NOMULTI  3
#define VIRTIO_NET_CTRL_RX_NOUNI    4
#define VIRTIO_NET_CTRL_RX_NOBCAST  5
#define VIRTIO_NET_CTRL_MAC         1
#define VIRTIO_NET_CTRL_MAC_TABLE_SET 0 /* le32 n, n unicast addresses, le32 m, m multicast */
#define VIRTIO_NET_CTRL_MAC_ADDR_SET  1 /* u8[6] (VIRTIO_NET_F_CTRL_MAC_ADDR) */
#define VIRTIO_NET_CTRL_VLAN        2 /* data: le16 id (VIRTIO_NET_F_CTRL_VLAN) */
#define VIRTIO_NET_CTRL_VLAN_ADD    0
#define VIRTIO_NET_CTRL_VLAN_DEL    1
#define VIRTIO_NET_CTRL_ANNOUNCE    3
#define VIRTIO_NET_CTRL_MQ          4

/*
 * With VIRTIO_NET_F_HASH_REPORT the header grows to 20 bytes, both ways
 * (5.1.6): the device reports the packet's hash and its type on receive;
 * on transmit the two fields are zero.
 */
struct virtio_net_hdr_hash {
	struct virtio_net_hdr hdr;
	uint32_t hash_value;
	uint16_t hash_report;  /* VIRTIO_NET_HASH_REPORT_* */
	uint16_t padding;
};
static_assert(sizeof(struct virtio_net_hdr_hash) == 20, "virtio_net_hdr_v1_hash is 20 bytes");

/* hash_report values (5.1.6.4.3.1): what the hash was computed over. */
#define VIRTIO_NET_HASH_REPORT_NONE     0
#define VIRTIO_NET_HASH_REPORT_IPV4     1
#define VIRTIO_NET_HASH_REPORT_TCPV4    2
#define VIRTIO_NET_HASH_REPORT_UDPV4    3
#define VIRTIO_NET_HASH_REPORT_IPV6     4
#define VIRTIO_NET_HASH_REPORT_TCPV6    5
#define VIRTIO_NET_HASH_REPORT_UDPV6    6
#define VIRTIO_NET_HASH_REPORT_IPV6_EX  7
#define VIRTIO_NET_HASH_REPORT_TCPV6_EX 8
#define VIRTIO_NET_HASH_REPORT_UDPV6_EX 9
#define VIRTIO_NET_HASH_REPORT_MAX      9

/* Hash types (5.1.6.4.3.1: supported_hash_types, hash_types). */
#define VIRTIO_NET_RSS_HASH_TYPE_IPV4   (1u << 0)
#define VIRTIO_NET_RSS_HASH_TYPE_TCPV4  (1u << 1)
#define VIRTIO_NET_RSS_HASH_TYPE_UDPV4  (1u << 2)
#define VIRTIO_NET_RSS_HASH_TYPE_IPV6   (1u << 3)
#define VIRTIO_NET_RSS_HASH_TYPE_TCPV6  (1u << 4)
#define VIRTIO_NET_RSS_HASH_TYPE_UDPV6  (1u << 5)
#define VIRTIO_NET_RSS_HASH_TYPE_IP_EX  (1u << 6)
#define VIRTIO_NET_RSS_HASH_TYPE_TCP_EX (1u << 7)
#define VIRTIO_NET_RSS_HASH_TYPE_UDP_EX (1u << 8)

/* ---- control queue: multi-queue class (5.1.6.5.5, 5.1.6.5.7) ------------- */
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_SET    0 /* le16 virtqueue_pairs */
#define VIRTIO_NET_CTRL_MQ_RSS_CONFIG      1 /* struct virtio_net_rss_config */
#define VIRTIO_NET_CTRL_MQ_HASH_CONFIG     2 /* hash report without steering */
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MIN    1
#define VIRTIO_NET_CTRL_MQ_VQ_PAIRS_MAX    0x8000

/*
 * struct virtio_net_rss_config (5.1.6.5.7.1), variable-length:
 *   le32 hash_types; le16 indirection_table_mask; le16 unclassified_queue;
 *   le16 indirection_table[mask + 1]; le16 max_tx_vq; u8 hash_key_length;
 *   u8 hash_key_data[hash_key_length].
 * Queue numbers in it count receive queues (0 is receiveq1), not virtqueues.
 * The hash config (HASH_CONFIG, 5.1.6.5.6.4) is the same with a table of
 * one zero entry and max_tx_vq zero.
 */
#define VIRTIO_NET_RSS_TABLE_MAX  128 /* entries this driver writes at most */
#define VIRTIO_NET_RSS_KEY_LEN    40  /* the key length this driver uses */
#define VIRTIO_NET_RSS_CONFIG_LEN(tbl, key) (8u + 2u * (tbl) + 3u + (key))

/* ---- split virtqueues (2.6) ---------------------------------------------- */
#define VRING_DESC_F_NEXT           1 /* the chain goes on in next */
#define VRING_DESC_F_WRITE          2 /* device-writable buffer */
#define VRING_DESC_F_INDIRECT       4
#define VRING_AVAIL_F_NO_INTERRUPT  1 /* driver: no used-buffer notification wanted */
#define VRING_USED_F_NO_NOTIFY      1 /* device: no available-buffer notification wanted */
#define VIRTQ_SIZE_MAX              32768

struct virtq_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};
static_assert(sizeof(struct virtq_desc) == 16, "virtq_desc is 16 bytes");

struct virtq_used_elem {
	uint32_t id;   /* head of the chain the device used */
	uint32_t len;  /* bytes it wrote into the chain */
};
static_assert(sizeof(struct virtq_used_elem) == 8, "virtq_used_elem is 8 bytes");

/*
 * The three parts of a split virtqueue of @p n entries (2.6): descriptor
 * table (16-byte aligned), driver area = avail ring (flags, idx, ring[n],
 * used_event; 2-byte aligned), device area = used ring (flags, idx,
 * ring[n], avail_event; 4-byte aligned).
 */
static inline uint32_t virtq_desc_bytes(uint32_t n)
{
	return 16u * n;
}

static inline uint32_t virtq_avail_bytes(uint32_t n)
{
	return 2u * (3u + n);
}

static inline uint32_t virtq_used_bytes(uint32_t n)
{
	return 2u * 3u + 8u * n;
}

/*
 * Event index (2.6.7.2, 2.6.10.1): should the side that moved its index
 * from @p old to @p new_idx notify the other, which asked to be told once
 * the index passes @p event? Free-running 16-bit arithmetic.
 */
static inline int vring_need_event(uint16_t event, uint16_t new_idx, uint16_t old)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old);
}

/* ---- packed virtqueues (2.7) --------------------------------------------- */
/* Descriptor flags besides NEXT, WRITE and INDIRECT (2.7.1): the driver
 * makes a descriptor available with AVAIL = its wrap counter and USED = the
 * inverse; the device marks it used with both = its wrap counter. */
#define VRING_PACKED_DESC_F_AVAIL   (1u << 7)
#define VRING_PACKED_DESC_F_USED    (1u << 15)
/* Event suppression flags (2.7.10): in the driver area (used-buffer
 * notifications the driver wants) and the device area (available-buffer
 * notifications the device wants). DESC needs VIRTIO_F_EVENT_IDX. */
#define VRING_PACKED_EVENT_FLAG_ENABLE  0
#define VRING_PACKED_EVENT_FLAG_DISABLE 1
#define VRING_PACKED_EVENT_FLAG_DESC    2
#define VRING_PACKED_EVENT_WRAP_SHIFT   15 /* off_wrap: offset in bits 0..14, wrap counter bit 15 */

struct vring_packed_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t id;     /* buffer id (the driver's choice; in the last descriptor of a chain) */
	uint16_t flags;
};
static_assert(sizeof(struct vring_packed_desc) == 16, "vring_packed_desc is 16 bytes");

struct vring_packed_event {
	uint16_t off_wrap; /* a ring position and its wrap counter (EVENT_IDX) */
	uint16_t flags;    /* ENABLE, DISABLE or DESC */
};
static_assert(sizeof(struct vring_packed_event) == 4, "vring_packed_desc_event is 4 bytes");

#endif /* VIRTIO_REGS_H */
