/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio transport over PCI (virtio 1.1 section 4.1): the vendor
 * capabilities, reset, the status handshake (3.1.1), feature negotiation,
 * consistent reads of the device configuration, virtqueue programming.
 *
 * Every wait is bounded; every value the device gives (capability
 * offsets, lengths, queue sizes) is checked before it is used.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "virtio_priv.h"

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* ---- capabilities (4.1.4) ------------------------------------------------- */

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const char *const region_names[VIRTIO_NB_REGIONS] = {
	"common configuration", "notification", "ISR", "device configuration",
};

int virtio_caps_parse(const uint8_t *cfg, size_t len, struct virtio_pci_caps *caps,
		      char *why, size_t why_len)
{
	uint8_t seen[PCI_CFG_SPACE_LEN / 4] = { 0 };
	unsigned pos, walked = 0;

	memset(caps, 0, sizeof(*caps));
	if (len < PCI_CFG_SPACE_LEN) {
		snprintf(why, why_len, "the PCI configuration space read was %zu bytes, not %u", len,
			 PCI_CFG_SPACE_LEN);
		return -ENODEV;
	}
	if (!((cfg[PCI_CFG_STATUS] | cfg[PCI_CFG_STATUS + 1] << 8) & PCI_CFG_STATUS_CAP_LIST)) {
		snprintf(why, why_len, "the device has no PCI capability list (a legacy-only virtio device?)");
		return -ENODEV;
	}
	/* Capabilities live in 0x40..0xff, dword-aligned (PCI 3.0 6.7); a
	 * pointer elsewhere, or one seen before (a loop), ends the walk. */
	for (pos = cfg[PCI_CFG_CAP_PTR] & 0xfcu; pos != 0; pos = cfg[pos + VIRTIO_PCI_CAP_OFF_NEXT] & 0xfcu) {
		unsigned clen, type, bar;

		if (pos < 0x40 || pos > PCI_CFG_SPACE_LEN - 4 || seen[pos / 4] || ++walked > 48)
			break;
		seen[pos / 4] = 1;
		if (cfg[pos] != VIRTIO_PCI_CAP_VNDR)
			continue;
		clen = cfg[pos + VIRTIO_PCI_CAP_OFF_LEN];
		if (clen < VIRTIO_PCI_CAP_MIN_LEN || pos + clen > PCI_CFG_SPACE_LEN)
			continue;
		type = cfg[pos + VIRTIO_PCI_CAP_OFF_TYPE];
		bar = cfg[pos + VIRTIO_PCI_CAP_OFF_BAR];
		if (type < VIRTIO_PCI_CAP_COMMON_CFG || type > VIRTIO_PCI_CAP_DEVICE_CFG || bar > 5)
			continue; /* PCI_CFG access, vendor data, reserved BARs: not used */
		if (type == VIRTIO_PCI_CAP_NOTIFY_CFG && clen < VIRTIO_PCI_NOTIFY_CAP_MIN_LEN)
			continue;
		/* The first of each type is the one to use (4.1.4). */
		if (caps->loc[type - 1].found)
			continue;
		caps->loc[type - 1] = (struct virtio_pci_cap_loc){
			.found = true,
			.bar = (uint8_t)bar,
			.offset = le32_at(cfg + pos + VIRTIO_PCI_CAP_OFF_OFFSET),
			.length = le32_at(cfg + pos + VIRTIO_PCI_CAP_OFF_LENGTH),
		};
		if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
			caps->notify_mult = le32_at(cfg + pos + VIRTIO_PCI_CAP_OFF_NOTIFY_MULT);
	}
	for (unsigned r = 0; r < VIRTIO_NB_REGIONS; r++) {
		if (!caps->loc[r].found) {
			snprintf(why, why_len, "no %s capability: not a modern (virtio 1.x) device; "
				 "give QEMU's virtio-net-pci disable-legacy=on or put it behind a pcie-root-port",
				 region_names[r]);
			return -ENODEV;
		}
	}
	if (caps->loc[VIRTIO_REGION_COMMON].length < VIRTIO_COMMON_LEN) {
		snprintf(why, why_len, "the common configuration is %" PRIu32 " bytes; virtio 1.x has %u",
			 caps->loc[VIRTIO_REGION_COMMON].length, VIRTIO_COMMON_LEN);
		return -ENODEV;
	}
	if (caps->loc[VIRTIO_REGION_ISR].length < 1) {
		snprintf(why, why_len, "the ISR structure is empty");
		return -ENODEV;
	}
	return 0;
}

int virtio_hw_map(struct virtio_hw *hw, const struct virtio_pci_caps *caps,
		  const struct virtio_attach *a, const char *name)
{
	for (unsigned r = 0; r < VIRTIO_NB_REGIONS; r++) {
		const struct virtio_pci_cap_loc *l = &caps->loc[r];
		uint64_t end = (uint64_t)l->offset + l->length;

		if (a->bar[l->bar].va == NULL) {
			UNIC_LOG(ERR, PMD, "%s: the %s is in BAR%u, which is not mapped", name, region_names[r],
				 l->bar);
			return -ENODEV;
		}
		if (end > a->bar[l->bar].len) {
			UNIC_LOG(ERR, PMD, "%s: the %s (offset 0x%" PRIx32 ", %" PRIu32 " bytes) lies past the end of BAR%u (%zu bytes)",
				 name, region_names[r], l->offset, l->length, l->bar, a->bar[l->bar].len);
			return -ENODEV;
		}
		hw->base[r] = (volatile uint8_t *)a->bar[l->bar].va + l->offset;
		hw->len[r] = l->length;
	}
	hw->notify_mult = caps->notify_mult;
	return 0;
}

/* ---- status and reset (2.1, 3.1.1, 4.1.4.3.2) ---------------------------- */

uint8_t virtio_hw_status(const struct virtio_hw *hw)
{
	return vio_read8(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_STATUS);
}

/* Add @p bits to device_status (the driver never clears a bit but by reset). */
void virtio_hw_status_set(struct virtio_hw *hw, uint8_t bits)
{
	vio_write8(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_STATUS,
		   (uint8_t)(virtio_hw_status(hw) | bits));
}

/*
 * device_status all-ones: a status a device never reports (bits 4 and 5
 * are reserved), so the device is gone (surprise removal, dead link).
 */
bool virtio_hw_check_gone(struct virtio_hw *hw)
{
	if (hw->gone)
		return true;
	if (virtio_hw_status(hw) != 0xff)
		return false;
	if (!__atomic_exchange_n(&hw->gone, true, __ATOMIC_ACQ_REL)) {
		UNIC_PORT_LOG(hw->port, WARNING, "the device reads all-ones (device_status 0xff): surprise removal or a dead PCIe link; its port is stopped and then only stats, close and detach work on it");
		if (hw->dev)
			unic_pci_gone(hw->dev);
	}
	return true;
}

int virtio_hw_reset(struct virtio_hw *hw)
{
	uint64_t end;

	if (virtio_hw_check_gone(hw))
		return -ENODEV;
	vio_write8(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_STATUS, 0);
	/* 4.1.4.3.2: the reset is done when device_status reads 0 again. */
	end = now_us() + VIRTIO_RESET_TIMEOUT_US;
	for (;;) {
		uint8_t st = virtio_hw_status(hw);

		if (st == 0)
			return 0;
		if (st == 0xff && virtio_hw_check_gone(hw))
			return -ENODEV;
		if (now_us() >= end) {
			UNIC_PORT_LOG(hw->port, ERR, "reset: device_status still reads 0x%02x after %u ms (expected 0); the device is stuck: reset it from the host (unic-devbind unbind/bind) or restart the VM",
				      st, VIRTIO_RESET_TIMEOUT_US / 1000);
			return -ETIMEDOUT;
		}
		usleep(10);
	}
}

/* ---- features (2.2, 6) -------------------------------------------------------- */

uint64_t virtio_hw_dev_features(const struct virtio_hw *hw)
{
	uint32_t lo, hi;

	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_DFSELECT, 0);
	lo = vio_read32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_DF);
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_DFSELECT, 1);
	hi = vio_read32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_DF);
	return (uint64_t)hi << 32 | lo;
}

static void hw_driver_features_set(const struct virtio_hw *hw, uint64_t f)
{
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_GFSELECT, 0);
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_GF, (uint32_t)f);
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_GFSELECT, 1);
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_GF, (uint32_t)(f >> 32));
}

/*
 * What the driver takes when the device offers it. MQ, RSS and
 * HASH_REPORT go through the control queue: taken only with CTRL_VQ
 * (5.1.3.1). Not taken (yet): GUEST_ANNOUNCE, UFO and ECN.
 * RING_PACKED, INDIRECT_DESC and IN_ORDER are taken when offered. GUEST_TSO4/6 are in the set, and left out at
 * a start whose configuration does not ask for LRO (hw->features_off), as
 * CTRL_VLAN is without the VLAN filter offload.
 */
#define VIRTIO_FEATURES_SUPPORTED                                                   \
	(VIRTIO_BIT(VIRTIO_F_VERSION_1) | VIRTIO_BIT(VIRTIO_F_ACCESS_PLATFORM) |     \
	 VIRTIO_BIT(VIRTIO_NET_F_MAC) | VIRTIO_BIT(VIRTIO_NET_F_STATUS) |            \
	 VIRTIO_BIT(VIRTIO_NET_F_MTU) | VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF) |         \
	 VIRTIO_BIT(VIRTIO_F_EVENT_IDX) | VIRTIO_BIT(VIRTIO_NET_F_CSUM) |            \
	 VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM) | VIRTIO_BIT(VIRTIO_NET_F_HOST_TSO4) |  \
	 VIRTIO_BIT(VIRTIO_NET_F_HOST_TSO6) | VIRTIO_BIT(VIRTIO_NET_F_SPEED_DUPLEX) | \
	 VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4) | VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6) | \
	 VIRTIO_BIT(VIRTIO_F_RING_PACKED) | VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC) |       \
	 VIRTIO_BIT(VIRTIO_F_IN_ORDER) | VIRTIO_FEATURES_CTRL | VIRTIO_FEATURES_MQ)
/* The control queue (virtio_ctrl.c). */
#define VIRTIO_FEATURES_CTRL                                                         \
	(VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ) | VIRTIO_BIT(VIRTIO_NET_F_CTRL_RX) |         \
	 VIRTIO_BIT(VIRTIO_NET_F_CTRL_VLAN) | VIRTIO_BIT(VIRTIO_NET_F_CTRL_MAC_ADDR))
/* Multi-queue, RSS and hash reports, set up by control commands. */
#define VIRTIO_FEATURES_MQ                                                          \
	(VIRTIO_BIT(VIRTIO_NET_F_MQ) | VIRTIO_BIT(VIRTIO_NET_F_RSS) | VIRTIO_BIT(VIRTIO_NET_F_HASH_REPORT))

uint64_t virtio_features_wanted(uint64_t offered, bool iommu)
{
	uint64_t f = offered & VIRTIO_FEATURES_SUPPORTED;

	(void)iommu; /* ACCESS_PLATFORM is taken when offered either way (6.1) */
	/* What needs the control queue comes with it (5.1.3.1). */
	if (!(f & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ)))
		f &= ~(VIRTIO_FEATURES_CTRL);
	/* TSO needs the checksum offload it rides on (5.1.3.1). */
	if (!(f & VIRTIO_BIT(VIRTIO_NET_F_CSUM)))
		f &= ~(VIRTIO_BIT(VIRTIO_NET_F_HOST_TSO4) | VIRTIO_BIT(VIRTIO_NET_F_HOST_TSO6));
	/* Receive GSO needs GUEST_CSUM (5.1.3.1) and, in this driver,
	 * mergeable buffers: a 64 KiB frame over many 2 KiB buffers, never
	 * the 64 KiB buffers a device without them would need (5.1.6.3.1). */
	if (!(f & VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM)) || !(f & VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF)))
		f &= ~(VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4) | VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6));
	/* Multi-queue, RSS and hash reports are set up by control commands. */
	if (!(f & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ)))
		f &= ~VIRTIO_FEATURES_MQ;
	return f;
}

static const struct {
	unsigned bit;
	const char *name;
} feature_names[] = {
	{ VIRTIO_NET_F_CSUM, "csum" },
	{ VIRTIO_NET_F_GUEST_CSUM, "guest_csum" },
	{ VIRTIO_NET_F_CTRL_GUEST_OFFLOADS, "ctrl_guest_offloads" },
	{ VIRTIO_NET_F_MTU, "mtu" },
	{ VIRTIO_NET_F_MAC, "mac" },
	{ VIRTIO_NET_F_GUEST_TSO4, "guest_tso4" },
	{ VIRTIO_NET_F_GUEST_TSO6, "guest_tso6" },
	{ VIRTIO_NET_F_GUEST_ECN, "guest_ecn" },
	{ VIRTIO_NET_F_GUEST_UFO, "guest_ufo" },
	{ VIRTIO_NET_F_HOST_TSO4, "host_tso4" },
	{ VIRTIO_NET_F_HOST_TSO6, "host_tso6" },
	{ VIRTIO_NET_F_HOST_ECN, "host_ecn" },
	{ VIRTIO_NET_F_HOST_UFO, "host_ufo" },
	{ VIRTIO_NET_F_MRG_RXBUF, "mrg_rxbuf" },
	{ VIRTIO_NET_F_STATUS, "status" },
	{ VIRTIO_NET_F_CTRL_VQ, "ctrl_vq" },
	{ VIRTIO_NET_F_CTRL_RX, "ctrl_rx" },
	{ VIRTIO_NET_F_CTRL_VLAN, "ctrl_vlan" },
	{ VIRTIO_NET_F_CTRL_RX_EXTRA, "ctrl_rx_extra" },
	{ VIRTIO_NET_F_GUEST_ANNOUNCE, "guest_announce" },
	{ VIRTIO_NET_F_MQ, "mq" },
	{ VIRTIO_NET_F_CTRL_MAC_ADDR, "ctrl_mac_addr" },
	{ VIRTIO_F_INDIRECT_DESC, "indirect_desc" },
	{ VIRTIO_F_EVENT_IDX, "event_idx" },
	{ VIRTIO_F_VERSION_1, "version_1" },
	{ VIRTIO_F_ACCESS_PLATFORM, "access_platform" },
	{ VIRTIO_F_RING_PACKED, "ring_packed" },
	{ VIRTIO_F_IN_ORDER, "in_order" },
	{ VIRTIO_F_ORDER_PLATFORM, "order_platform" },
	{ VIRTIO_F_SR_IOV, "sr_iov" },
	{ VIRTIO_F_NOTIFICATION_DATA, "notification_data" },
	{ VIRTIO_F_RING_RESET, "ring_reset" },
	{ VIRTIO_NET_F_HASH_REPORT, "hash_report" },
	{ VIRTIO_NET_F_RSS, "rss" },
	{ VIRTIO_NET_F_SPEED_DUPLEX, "speed_duplex" },
};

int virtio_features_names(uint64_t f, char *buf, size_t len)
{
	size_t off = 0;

	if (len == 0)
		return 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(feature_names); i++) {
		if (!(f & VIRTIO_BIT(feature_names[i].bit)))
			continue;
		f &= ~VIRTIO_BIT(feature_names[i].bit);
		if (off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? "," : "", feature_names[i].name);
	}
	for (unsigned b = 0; b < 64; b++)
		if ((f & VIRTIO_BIT(b)) && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%sbit%u", off ? "," : "", b);
	return (int)(off < len ? off : len - 1);
}

static int hw_fail(struct virtio_hw *hw, int rc)
{
	if (!hw->gone)
		virtio_hw_status_set(hw, VIRTIO_STATUS_FAILED);
	return rc;
}

int virtio_hw_init(struct virtio_hw *hw, bool iommu)
{
	uint64_t want;
	uint8_t st;
	int rc = virtio_hw_reset(hw);

	if (rc < 0)
		return rc;
	/* 3.1.1 steps 2 and 3. */
	virtio_hw_status_set(hw, VIRTIO_STATUS_ACKNOWLEDGE);
	virtio_hw_status_set(hw, VIRTIO_STATUS_DRIVER);
	hw->dev_features = virtio_hw_dev_features(hw);
	if (hw->dev_features == UINT64_MAX && virtio_hw_check_gone(hw))
		return -ENODEV;
	if (!(hw->dev_features & VIRTIO_BIT(VIRTIO_F_VERSION_1))) {
		UNIC_PORT_LOG(hw->port, ERR, "the device does not offer VIRTIO_F_VERSION_1 (features 0x%016" PRIx64 "): it is a legacy device, which this driver does not drive",
			      hw->dev_features);
		return hw_fail(hw, -ENOTSUP);
	}
	if (iommu && !(hw->dev_features & VIRTIO_BIT(VIRTIO_F_ACCESS_PLATFORM))) {
		UNIC_PORT_LOG(hw->port, ERR, "the device does not offer VIRTIO_F_ACCESS_PLATFORM: it bypasses the IOMMU and would read and write guest-physical addresses, not the IOVAs VFIO maps; give QEMU's virtio-net-pci iommu_platform=on (with disable-legacy=on), or bind it to uio_pci_generic in a guest without an IOMMU");
		return hw_fail(hw, -ENOTSUP);
	}
	/* Step 4: the subset the driver understands; step 5-6: FEATURES_OK,
	 * read back (the device clears it when it refuses the subset). */
	want = virtio_features_wanted(hw->dev_features, iommu) & ~hw->features_off;
	hw_driver_features_set(hw, want);
	virtio_hw_status_set(hw, VIRTIO_STATUS_FEATURES_OK);
	st = virtio_hw_status(hw);
	if (st == 0xff && virtio_hw_check_gone(hw))
		return -ENODEV;
	if (!(st & VIRTIO_STATUS_FEATURES_OK)) {
		char names[512];

		virtio_features_names(want, names, sizeof(names));
		UNIC_PORT_LOG(hw->port, ERR, "the device refused the features 0x%016" PRIx64 " (%s): FEATURES_OK reads back clear (device_status 0x%02x)",
			      want, names, st);
		return hw_fail(hw, -ENOTSUP);
	}
	hw->features = want;
	hw->num_queues = vio_read16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_NUMQ);
	return 0;
}

/* ---- device configuration (4.1.4.3.1: config_generation) ----------------- */

int virtio_hw_cfg_read(struct virtio_hw *hw, uint32_t off, void *buf, uint32_t len)
{
	uint8_t *out = buf;

	if ((uint64_t)off + len > hw->len[VIRTIO_REGION_DEVICE])
		return -EINVAL;
	for (unsigned tries = 0; tries < 16; tries++) {
		uint8_t gen = vio_read8(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_CFGGEN);
		uint8_t gen2;

		for (uint32_t i = 0; i < len; i++)
			out[i] = vio_read8(hw, VIRTIO_REGION_DEVICE, off + i);
		gen2 = vio_read8(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_CFGGEN);
		if (gen == gen2)
			return virtio_hw_check_gone(hw) ? -ENODEV : 0;
	}
	if (virtio_hw_check_gone(hw))
		return -ENODEV;
	UNIC_PORT_LOG(hw->port, ERR, "device configuration: config_generation kept changing over 16 reads of %u bytes at %u",
		      len, off);
	return -EIO;
}

/* ---- virtqueues (4.1.5.1.3) ------------------------------------------------- */

uint16_t virtio_hw_queue_max(struct virtio_hw *hw, uint16_t index)
{
	if (index >= hw->num_queues)
		return 0;
	vio_write16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_SELECT, index);
	return vio_read16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_SIZE);
}

int virtio_hw_queue_setup(struct virtio_hw *hw, struct virtio_vq *vq, uint16_t msix_vector)
{
	uint64_t desc = vq->dma.iova;
	uint64_t avail = desc + ((uintptr_t)vq->avail - (uintptr_t)vq->desc);
	uint64_t used = desc + ((uintptr_t)vq->used - (uintptr_t)vq->desc);
	uint16_t max, noff, vec;
	uint64_t notify_at;

	max = virtio_hw_queue_max(hw, vq->index);
	if (max == 0 || vq->size > max) {
		UNIC_PORT_LOG(hw->port, ERR, "virtqueue %u: the device takes at most %u entries, asked for %u",
			      vq->index, max, vq->size);
		return -EINVAL;
	}
	vio_write16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_SIZE, vq->size);
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_DESCLO, (uint32_t)desc);
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_DESCHI, (uint32_t)(desc >> 32));
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_AVAILLO, (uint32_t)avail);
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_AVAILHI, (uint32_t)(avail >> 32));
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_USEDLO, (uint32_t)used);
	vio_write32(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_USEDHI, (uint32_t)(used >> 32));
	vio_write16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_MSIX, msix_vector);
	vec = vio_read16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_MSIX);
	if (msix_vector != VIRTIO_MSI_NO_VECTOR && vec != msix_vector) {
		/* 4.1.5.1.2: NO_VECTOR read back means the device could not
		 * give the queue that vector. */
		UNIC_PORT_LOG(hw->port, ERR, "%s queue %u (virtqueue %u) lost its interrupt: the device did not take MSI-X vector %u (reads back %u%s); give the device more vectors (QEMU: vectors=2N+2 for N pairs) or use rx mode poll",
			      vq->index % 2 ? "tx" : "rx", vq->index / 2, vq->index, msix_vector, vec,
			      vec == VIRTIO_MSI_NO_VECTOR ? ", NO_VECTOR" : "");
		return -EIO;
	}
	noff = vio_read16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_NOFF);
	notify_at = (uint64_t)noff * hw->notify_mult;
	if (notify_at + 2 > hw->len[VIRTIO_REGION_NOTIFY]) {
		UNIC_PORT_LOG(hw->port, ERR, "virtqueue %u: its notification address (offset %u x multiplier %u) lies past the %u-byte notification area",
			      vq->index, noff, hw->notify_mult, hw->len[VIRTIO_REGION_NOTIFY]);
		return -EIO;
	}
	vq->notify_off = (uint16_t)notify_at;
	vq->notify = (volatile uint16_t *)(hw->base[VIRTIO_REGION_NOTIFY] + notify_at);
	vq->hw = hw;
	vio_write16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_Q_ENABLE, 1);
	return 0;
}
