/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VFIO smoke test, run inside the QEMU rig's guest (boot vfio-hub): every
 * NIC bound to vfio-pci is opened the way a userspace driver opens it, with
 * raw VFIO ioctls (the project's bus layer does not exist yet), and the
 * result of each step is checked against what QEMU 7.2's models present
 * (their BARs, config space and MSI-X counts; docs/pci.md).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_pci.h"

#define SZ_2M (2UL << 20)
#define DMA_IOVA (1UL << 30)	/* 1 GiB: fits any IOMMU address width */

struct nic_kind {
	const char *model;
	uint16_t vendor, device;
	unsigned int bar;	/* the register BAR */
	uint64_t bar_size;
	uint32_t msix_vectors;
};

static const struct nic_kind e1000e = {
	.model = "e1000e", .vendor = 0x8086, .device = 0x10d3,
	.bar = VFIO_PCI_BAR0_REGION_INDEX, .bar_size = 128 << 10, .msix_vectors = 5,
};

/* Modern-only virtio-net: BAR0 is empty, the registers are in BAR4; 2 queues
 * + config = 4 vectors. */
static const struct nic_kind virtio_net = {
	.model = "virtio-net", .vendor = 0x1af4, .device = 0x1041,
	.bar = VFIO_PCI_BAR4_REGION_INDEX, .bar_size = 16 << 10, .msix_vectors = 4,
};

/* e1000e registers (82574 datasheet, 10.2.2). */
#define E1000E_STATUS 0x8
#define E1000E_STATUS_LU (1u << 1)

/* virtio 1.x common configuration (virtio spec 4.1.4.3), at offset 0 of BAR4
 * in QEMU's layout. */
#define VIRTIO_DFSELECT 0x00
#define VIRTIO_DF 0x04
#define VIRTIO_NUM_QUEUES 0x12
#define VIRTIO_F_VERSION_1_HI (1u << 0)		/* feature bit 32 */
#define VIRTIO_F_ACCESS_PLATFORM_HI (1u << 1)	/* feature bit 33 */

struct vfio_nic {
	char bdf[GUEST_BDF_LEN];
	int container, group, device;
};

static int find(const struct nic_kind *k, char bdf[][GUEST_BDF_LEN])
{
	int n;

	if (guest_nics_expected(k->model) == 0)
		cr_skip_test("this guest has no %s", k->model);
	n = guest_pci_find(k->vendor, k->device, "vfio-pci", bdf, GUEST_MAX_DEVICES);

	cr_assert_gt(n, 0, "no %s (%04x:%04x) bound to vfio-pci; did setup/bind run?",
		     k->model, k->vendor, k->device);
	return n;
}

/* Container, group, IOMMU type, device fd: each step asserted. */
static void nic_open(struct vfio_nic *nic, const char *bdf)
{
	struct vfio_group_status status = { .argsz = sizeof(status) };
	char group[32], path[64];
	int type;

	snprintf(nic->bdf, sizeof(nic->bdf), "%s", bdf);
	cr_assert_eq(guest_pci_link(bdf, "iommu_group", group, sizeof(group)), 0,
		     "%s has no IOMMU group (is intel_iommu=on?)", bdf);

	nic->container = open("/dev/vfio/vfio", O_RDWR);
	cr_assert_geq(nic->container, 0, "open /dev/vfio/vfio: %s", strerror(errno));
	cr_assert_eq(ioctl(nic->container, VFIO_GET_API_VERSION), VFIO_API_VERSION);

	snprintf(path, sizeof(path), "/dev/vfio/%s", group);
	nic->group = open(path, O_RDWR);
	cr_assert_geq(nic->group, 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(ioctl(nic->group, VFIO_GROUP_GET_STATUS, &status), 0);
	cr_assert(status.flags & VFIO_GROUP_FLAGS_VIABLE,
		  "group %s of %s is not viable: a device in it is bound elsewhere", group, bdf);
	cr_assert_eq(ioctl(nic->group, VFIO_GROUP_SET_CONTAINER, &nic->container), 0,
		     "VFIO_GROUP_SET_CONTAINER: %s", strerror(errno));

	type = ioctl(nic->container, VFIO_CHECK_EXTENSION, VFIO_TYPE1v2_IOMMU) ?
		VFIO_TYPE1v2_IOMMU : VFIO_TYPE1_IOMMU;
	cr_assert_eq(ioctl(nic->container, VFIO_SET_IOMMU, type), 0,
		     "VFIO_SET_IOMMU: %s", strerror(errno));

	nic->device = ioctl(nic->group, VFIO_GROUP_GET_DEVICE_FD, bdf);
	cr_assert_geq(nic->device, 0, "VFIO_GROUP_GET_DEVICE_FD %s: %s", bdf, strerror(errno));
}

static void nic_close(struct vfio_nic *nic)
{
	close(nic->device);
	close(nic->group);
	close(nic->container);
}

/* Maps the register BAR through its region offset; returns the mapping. */
static volatile uint32_t *map_bar(struct vfio_nic *nic, const struct nic_kind *k)
{
	struct vfio_region_info reg = { .argsz = sizeof(reg), .index = k->bar };
	void *p;

	cr_assert_eq(ioctl(nic->device, VFIO_DEVICE_GET_REGION_INFO, &reg), 0,
		     "%s: VFIO_DEVICE_GET_REGION_INFO(%u): %s", nic->bdf, k->bar, strerror(errno));
	cr_assert_eq(reg.size, k->bar_size, "%s: BAR%u is %llu bytes, expected %llu", nic->bdf,
		     k->bar, (unsigned long long)reg.size, (unsigned long long)k->bar_size);
	cr_assert(reg.flags & VFIO_REGION_INFO_FLAG_MMAP, "%s: BAR%u cannot be mmapped",
		  nic->bdf, k->bar);
	p = mmap(NULL, reg.size, PROT_READ | PROT_WRITE, MAP_SHARED, nic->device, reg.offset);
	cr_assert_neq(p, MAP_FAILED, "%s: mmap BAR%u: %s", nic->bdf, k->bar, strerror(errno));
	return p;
}

static void *hugepage(void)
{
	void *p = mmap(NULL, SZ_2M, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);

	cr_assert_neq(p, MAP_FAILED, "2 MiB hugepage: %s (is vm.nr_hugepages > 0?)",
		      strerror(errno));
	memset(p, 0, SZ_2M);
	return p;
}

static int dma_map(struct vfio_nic *nic, void *va, uint64_t iova)
{
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)va,
		.iova = iova,
		.size = SZ_2M,
	};

	return ioctl(nic->container, VFIO_IOMMU_MAP_DMA, &map) == 0 ? 0 : -errno;
}

static void check_device_info(const struct nic_kind *k)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n = find(k, bdf);

	for (int i = 0; i < n; i++) {
		struct vfio_device_info info = { .argsz = sizeof(info) };
		struct vfio_irq_info irq = { .argsz = sizeof(irq), .index = VFIO_PCI_MSIX_IRQ_INDEX };
		struct vfio_nic nic;

		nic_open(&nic, bdf[i]);
		cr_assert_eq(ioctl(nic.device, VFIO_DEVICE_GET_INFO, &info), 0);
		cr_assert(info.flags & VFIO_DEVICE_FLAGS_PCI, "%s is not a PCI device", bdf[i]);
		cr_assert_geq(info.num_regions, VFIO_PCI_CONFIG_REGION_INDEX + 1);
		cr_assert_geq(info.num_irqs, VFIO_PCI_MSIX_IRQ_INDEX + 1);
		cr_assert_eq(ioctl(nic.device, VFIO_DEVICE_GET_IRQ_INFO, &irq), 0);
		cr_assert_eq(irq.count, k->msix_vectors, "%s: %u MSI-X vectors, expected %u",
			     bdf[i], irq.count, k->msix_vectors);
		nic_close(&nic);
	}
}

static void check_dma_map(const struct nic_kind *k)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n = find(k, bdf);
	void *buf = hugepage();

	for (int i = 0; i < n; i++) {
		struct vfio_iommu_type1_dma_unmap unmap = {
			.argsz = sizeof(unmap), .iova = DMA_IOVA, .size = SZ_2M,
		};
		struct vfio_nic nic;
		int rc;

		nic_open(&nic, bdf[i]);
		rc = dma_map(&nic, buf, DMA_IOVA);
		cr_assert_eq(rc, 0, "%s: VFIO_IOMMU_MAP_DMA at IOVA 1 GiB: %s", bdf[i], strerror(-rc));
		cr_assert_eq(ioctl(nic.container, VFIO_IOMMU_UNMAP_DMA, &unmap), 0);
		cr_assert_eq(unmap.size, SZ_2M, "%s: unmapped %llu bytes", bdf[i],
			     (unsigned long long)unmap.size);
		nic_close(&nic);
	}
	munmap(buf, SZ_2M);
}

Test(vfio, container_speaks_the_api_version_and_type1)
{
	int c = open("/dev/vfio/vfio", O_RDWR);

	cr_assert_geq(c, 0, "open /dev/vfio/vfio: %s (is the vfio module loaded?)", strerror(errno));
	cr_assert_eq(ioctl(c, VFIO_GET_API_VERSION), VFIO_API_VERSION);
	cr_assert_eq(ioctl(c, VFIO_CHECK_EXTENSION, VFIO_TYPE1_IOMMU), 1,
		     "no type1 IOMMU (is vfio_iommu_type1 loaded?)");
	close(c);
}

Test(vfio, every_nic_the_host_added_is_bound_to_vfio_pci)
{
	const struct nic_kind *kinds[] = { &e1000e, &virtio_net };
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];

	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		int expected = guest_nics_expected(kinds[i]->model);
		int found = guest_pci_find(kinds[i]->vendor, kinds[i]->device, "vfio-pci",
					   bdf, GUEST_MAX_DEVICES);

		cr_assert_geq(expected, 0, "cannot read /etc/unic-vm/nics");
		cr_assert_eq(found, expected, "%d %s bound to vfio-pci, the host added %d",
			     found, kinds[i]->model, expected);
	}
}

Test(vfio, e1000e_reports_pci_info_and_five_msix_vectors)
{
	check_device_info(&e1000e);
}

Test(vfio, virtio_net_reports_pci_info_and_four_msix_vectors)
{
	check_device_info(&virtio_net);
}

Test(vfio, e1000e_bar0_maps_and_status_shows_link_up)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n = find(&e1000e, bdf);

	for (int i = 0; i < n; i++) {
		struct vfio_nic nic;
		volatile uint32_t *bar;
		uint32_t status;

		nic_open(&nic, bdf[i]);
		bar = map_bar(&nic, &e1000e);
		status = bar[E1000E_STATUS / 4];
		cr_assert_neq(status, 0xffffffffu, "%s: STATUS reads all-ones: BAR0 is not decoded",
			      bdf[i]);
		/* QEMU resets STATUS with LU set: the link is up from the start. */
		cr_assert(status & E1000E_STATUS_LU, "%s: STATUS %#x has no link up", bdf[i], status);
		munmap((void *)bar, e1000e.bar_size);
		nic_close(&nic);
	}
}

Test(vfio, virtio_net_bar4_maps_and_offers_version_1_and_access_platform)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n = find(&virtio_net, bdf);

	for (int i = 0; i < n; i++) {
		struct vfio_nic nic;
		volatile uint32_t *bar;
		uint32_t features_hi;
		uint16_t queues;

		nic_open(&nic, bdf[i]);
		bar = map_bar(&nic, &virtio_net);
		queues = ((volatile uint16_t *)bar)[VIRTIO_NUM_QUEUES / 2];
		/* rx, tx and the control queue */
		cr_assert_eq(queues, 3, "%s: %u queues, expected 3", bdf[i], queues);
		bar[VIRTIO_DFSELECT / 4] = 1;
		features_hi = bar[VIRTIO_DF / 4];
		cr_assert(features_hi & VIRTIO_F_VERSION_1_HI, "%s: features[63:32] %#x lack VERSION_1",
			  bdf[i], features_hi);
		cr_assert(features_hi & VIRTIO_F_ACCESS_PLATFORM_HI,
			  "%s: features[63:32] %#x lack ACCESS_PLATFORM (iommu_platform=on?)",
			  bdf[i], features_hi);
		munmap((void *)bar, virtio_net.bar_size);
		nic_close(&nic);
	}
}

Test(vfio, e1000e_maps_a_2mib_hugepage_for_dma_at_a_low_iova)
{
	check_dma_map(&e1000e);
}

Test(vfio, virtio_net_maps_a_2mib_hugepage_for_dma_at_a_low_iova)
{
	check_dma_map(&virtio_net);
}

static int aw_bits(void)
{
	const char *aw = getenv("UNIC_VM_AW_BITS");
	int bits = aw ? atoi(aw) : 0;

	if (bits <= 0 || bits >= 64)
		cr_skip_test("UNIC_VM_AW_BITS is not set: not in the rig's guest");
	return bits;
}

/*
 * QEMU 7.2's intel-iommu has a 39-bit address width unless aw-bits says
 * otherwise (real IOMMUs with 39 bits exist too); the host tells the guest
 * the width in UNIC_VM_AW_BITS.
 */
Test(vfio, dma_above_the_iommu_address_width_is_refused)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int bits = aw_bits();
	struct vfio_nic nic;
	void *buf;
	int rc;

	find(&e1000e, bdf);
	buf = hugepage();
	nic_open(&nic, bdf[0]);
	rc = dma_map(&nic, buf, 1ULL << bits);
	cr_assert_eq(rc, -EINVAL, "IOVA 2^%d with a %d-bit IOMMU: %s, expected EINVAL", bits,
		     bits, rc ? strerror(-rc) : "mapped");
	rc = dma_map(&nic, buf, (1ULL << bits) - SZ_2M);
	cr_assert_eq(rc, 0, "IOVA 2^%d - 2 MiB with a %d-bit IOMMU: %s", bits, bits, strerror(-rc));
	nic_close(&nic);
	munmap(buf, SZ_2M);
}

/* IOVA = VA (0x7f..., 47 bits) needs a 48-bit IOMMU; a driver that uses it
 * must fall back to its own IOVAs on a narrower one. */
Test(vfio, dma_at_iova_equal_to_va_needs_a_48_bit_iommu)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int bits = aw_bits();
	struct vfio_nic nic;
	void *buf;
	int rc;

	find(&e1000e, bdf);
	buf = hugepage();
	cr_assert_geq((uintptr_t)buf, 1ULL << 39, "the buffer's VA %p is below 2^39", buf);
	nic_open(&nic, bdf[0]);
	rc = dma_map(&nic, buf, (uintptr_t)buf);
	if (bits >= 48)
		cr_assert_eq(rc, 0, "IOVA = VA %p with a %d-bit IOMMU: %s", buf, bits, strerror(-rc));
	else
		cr_assert_eq(rc, -EINVAL, "IOVA = VA %p with a %d-bit IOMMU: %s, expected EINVAL",
			     buf, bits, rc ? strerror(-rc) : "mapped");
	nic_close(&nic);
	munmap(buf, SZ_2M);
}
