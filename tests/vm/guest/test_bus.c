/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PCI bus layer in the QEMU rig's guest (boots vfio-hub, vfio-aw48 and
 * uio): every NIC is opened through the library's bus API (lib/bus), not
 * with raw ioctls, and checked against what QEMU 7.2's models present
 * (docs/pci.md, docs/e1000e.md): BARs, config space, DMA
 * memory mapped through the IOMMU (or IOVA = PA over UIO), MSI-X counts,
 * both reset paths, and a device the kernel takes back while it is held.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/mem.h>

#include "guest_pci.h"
#include "log_capture.h"

#define E1000E_STATUS 0x8
#define E1000E_STATUS_LU (1u << 1)
#define E1000E_RDBAL0 0x2800	/* a ring register: 0 after a real reset */

/* virtio 1.x common configuration (virtio spec 4.1.4.3) at BAR4 offset 0. */
#define VIRTIO_DFSELECT 0x00
#define VIRTIO_DF 0x04
#define VIRTIO_F_VERSION_1_HI (1u << 0)	/* feature bit 32 */

#define PCI_COMMAND 0x04
#define PCI_COMMAND_MASTER 0x4

static struct unic_mem *mem;
static struct unic_bus *bus;

/* The library's last messages, quoted in failure messages: logtail. */

static const char *access_mode(void)
{
	const char *a = getenv("UNIC_VM_ACCESS");

	return a ? a : "";
}

static bool is_vfio(void)
{
	return strcmp(access_mode(), "vfio") == 0;
}

static const char *bound_driver(void)
{
	return is_vfio() ? "vfio-pci" : "uio_pci_generic";
}

static void setup(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc) };
	struct unic_bus_conf bc = { .sz = sizeof(bc) };

	if (access_mode()[0] == '\0')
		cr_skip_test("UNIC_VM_ACCESS is not set: not in the rig's guest");
	logtail_start(false);
	/* UIO has no IOMMU: the device sees physical addresses. */
	mc.iova_mode = is_vfio() ? UNIC_IOVA_VA : UNIC_IOVA_PA;
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem, "unic_mem_create (hugepages): %s", strerror(errno));
	bc.mem = mem;
	bus = unic_bus_create(&bc);
	cr_assert_not_null(bus, "unic_bus_create: %s", strerror(errno));
}

static void teardown(void)
{
	unic_bus_destroy(bus);
	unic_mem_destroy(mem);
	bus = NULL;
	mem = NULL;
}

static int find(const char *model, uint16_t vendor, uint16_t device, char bdf[][GUEST_BDF_LEN])
{
	int n;

	if (guest_nics_expected(model) <= 0)
		cr_skip_test("this guest has no %s", model);
	n = guest_pci_find(vendor, device, bound_driver(), bdf, GUEST_MAX_DEVICES);
	if (n == 0 && !is_vfio() && strcmp(model, "e1000e") != 0)
		cr_skip_test("no %s bound to %s", model, bound_driver());
	cr_assert_gt(n, 0, "no %s (%04x:%04x) bound to %s; did setup/bind run?", model, vendor,
		     device, bound_driver());
	return n;
}

#define FIND_E1000E(bdf) find("e1000e", 0x8086, 0x10d3, bdf)
#define FIND_VIRTIO(bdf) find("virtio-net", 0x1af4, 0x1041, bdf)

static struct unic_pci_device *open_dev(const char *bdf)
{
	struct unic_pci_device *dev = NULL;
	int rc = unic_pci_open(bus, bdf, &dev);

	cr_assert_eq(rc, 0, "unic_pci_open(%s): %s; log: %s", bdf, strerror(-rc), logtail);
	cr_assert_eq(unic_pci_access(dev), is_vfio() ? UNIC_PCI_ACCESS_VFIO : UNIC_PCI_ACCESS_UIO);
	cr_assert_str_eq(unic_pci_info(dev)->bdf, bdf);
	return dev;
}

static bool behind_root_port(const char *bdf)
{
	char path[512], buf[64] = "";
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/reset_method", bdf);
	f = fopen(path, "r");
	if (f == NULL)
		return false;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	return strncmp(buf, "bus", 3) == 0;
}

TestSuite(bus, .init = setup, .fini = teardown);

Test(bus, e1000e_bar0_maps_and_status_shows_link_up)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n = FIND_E1000E(bdf);

	for (int i = 0; i < n; i++) {
		struct unic_pci_device *dev = open_dev(bdf[i]);
		volatile uint32_t *regs;
		uint32_t status, status2 = 0;
		size_t len;
		void *va;
		int rc;

		rc = unic_pci_bar_map(dev, 0, &va, &len);
		cr_assert_eq(rc, 0, "%s: BAR0 map: %s", bdf[i], strerror(-rc));
		cr_assert_eq(len, 128u << 10, "%s: BAR0 is %zu bytes, expected 128 KiB", bdf[i], len);
		regs = va;
		status = regs[E1000E_STATUS / 4];
		cr_assert_neq(status, 0xffffffffu, "%s: STATUS reads all-ones", bdf[i]);
		cr_assert(status & E1000E_STATUS_LU, "%s: STATUS %#x has no link up", bdf[i], status);
		cr_assert_eq(unic_pci_bar_read32(dev, 0, E1000E_STATUS, &status2), 0);
		cr_assert_eq(status2 & E1000E_STATUS_LU, E1000E_STATUS_LU);
		unic_pci_close(dev);
	}
}

Test(bus, e1000e_config_space_and_bus_master)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	struct unic_pci_device *dev;
	uint32_t ids = 0;
	uint16_t cmd = 0;

	FIND_E1000E(bdf);
	dev = open_dev(bdf[0]);
	cr_assert_eq(unic_pci_cfg_read(dev, 0, &ids, sizeof(ids)), (int)sizeof(ids));
	cr_assert_eq(ids, 0x10d38086u, "config space ids %#x", ids);
	cr_assert_eq(unic_pci_bus_master(dev, true), 0);
	cr_assert_eq(unic_pci_cfg_read(dev, PCI_COMMAND, &cmd, sizeof(cmd)), (int)sizeof(cmd));
	cr_assert(cmd & PCI_COMMAND_MASTER, "command %#x lacks bus master after enabling it", cmd);
	cr_assert_eq(unic_pci_bus_master(dev, false), 0);
	cr_assert_eq(unic_pci_cfg_read(dev, PCI_COMMAND, &cmd, sizeof(cmd)), (int)sizeof(cmd));
	cr_assert_not(cmd & PCI_COMMAND_MASTER, "command %#x keeps bus master after clearing it", cmd);
	unic_pci_close(dev);
}

Test(bus, virtio_net_bar4_offers_version_1)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n;

	if (!is_vfio())
		cr_skip_test("virtio-net is in the VFIO boots only");
	n = FIND_VIRTIO(bdf);
	for (int i = 0; i < n; i++) {
		struct unic_pci_device *dev = open_dev(bdf[i]);
		uint32_t lo = 0, hi = 0;
		size_t len;
		void *va;
		int rc;

		rc = unic_pci_bar_map(dev, 4, &va, &len);
		cr_assert_eq(rc, 0, "%s: BAR4 map: %s", bdf[i], strerror(-rc));
		cr_assert_eq(len, 16u << 10, "%s: BAR4 is %zu bytes, expected 16 KiB", bdf[i], len);
		cr_assert_eq(unic_pci_bar_write32(dev, 4, VIRTIO_DFSELECT, 0), 0);
		cr_assert_eq(unic_pci_bar_read32(dev, 4, VIRTIO_DF, &lo), 0);
		cr_assert_eq(unic_pci_bar_write32(dev, 4, VIRTIO_DFSELECT, 1), 0);
		cr_assert_eq(unic_pci_bar_read32(dev, 4, VIRTIO_DF, &hi), 0);
		cr_assert(hi & VIRTIO_F_VERSION_1_HI, "%s: device features %#x%08x lack VERSION_1",
			  bdf[i], hi, lo);
		cr_assert_neq(lo, 0, "%s: device features[31:0] are 0", bdf[i]);
		unic_pci_close(dev);
	}
}

static int aw_bits(void)
{
	const char *aw = getenv("UNIC_VM_AW_BITS");

	return aw ? atoi(aw) : 0;
}

/* The physical address of @p va, from /proc/self/pagemap (root). */
static uint64_t phys_addr(const void *va)
{
	uint64_t entry = 0, page = (uint64_t)sysconf(_SC_PAGESIZE);
	int fd = open("/proc/self/pagemap", O_RDONLY);

	cr_assert_geq(fd, 0);
	cr_assert_eq(pread(fd, &entry, sizeof(entry), (off_t)((uintptr_t)va / page * 8)),
		     (ssize_t)sizeof(entry));
	close(fd);
	cr_assert(entry & (1ULL << 63), "page of %p is not present", va);
	return (entry & ((1ULL << 55) - 1)) * page + (uintptr_t)va % page;
}

Test(bus, dma_memory_is_mapped_for_the_device)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	struct unic_pci_device *dev;
	struct unic_dma z = { 0 }, z2 = { 0 };
	uint64_t iova;
	int rc, bits = aw_bits();

	FIND_E1000E(bdf);
	dev = open_dev(bdf[0]);
	rc = unic_mem_alloc(mem, 4096, 0, -1, &z);
	cr_assert_eq(rc, 0, "unic_mem_alloc with the bus listening: %s", strerror(-rc));
	cr_assert_eq(unic_mem_va2iova(mem, z.va, &iova), 0);
	cr_assert_eq(iova, z.iova);
	if (!is_vfio()) {
		cr_assert_eq(z.iova, phys_addr(z.va), "UIO: IOVA %#llx is not the physical address %#llx",
			     (unsigned long long)z.iova, (unsigned long long)phys_addr(z.va));
	} else if (bits < 48) {
		/* A 47-bit VA does not fit a 39-bit IOMMU: the IOVA is inside it. */
		cr_assert_neq((uintptr_t)z.va, z.iova, "IOVA = VA %p with a %d-bit IOMMU", z.va, bits);
		cr_assert_lt(z.iova + z.len, 1ULL << bits, "IOVA %#llx outside the %d-bit window",
			     (unsigned long long)z.iova, bits);
	} else {
		cr_assert_eq((uintptr_t)z.va, z.iova, "a %d-bit IOMMU fits IOVA = VA (%p), got %#llx",
			     bits, z.va, (unsigned long long)z.iova);
	}
	/* A second segment: a zone larger than a hugepage needs a new one. */
	rc = unic_mem_alloc(mem, 3u << 20, 0, -1, &z2);
	if (is_vfio()) {
		cr_assert_eq(rc, 0, "a 3 MiB zone: %s", strerror(-rc));
		cr_assert_geq(unic_mem_seg_count(mem), 2u);
		unic_mem_free(mem, &z2);
	} else {
		cr_assert_eq(rc, -EINVAL, "PA mode: a zone larger than a page is refused");
	}
	unic_mem_free(mem, &z);
	unic_pci_close(dev);
}

Test(bus, msix_counts_and_eventfds)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	struct unic_pci_device *dev;
	int fds[8], n;

	FIND_E1000E(bdf);
	dev = open_dev(bdf[0]);
	if (!is_vfio()) {
		/* uio_pci_generic: one INTx, the /dev/uioN fd. */
		cr_assert_eq(unic_pci_irq_count(dev, UNIC_PCI_IRQ_MSIX), 0);
		cr_assert_eq(unic_pci_irq_count(dev, UNIC_PCI_IRQ_INTX), 1);
		cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_INTX, 1, fds), 0);
		cr_assert_geq(fds[0], 0);
		cr_assert_eq(unic_pci_intx_unmask(dev), 0);
		cr_assert_eq(unic_pci_irq_disable(dev), 0);
		unic_pci_close(dev);
		return;
	}
	n = unic_pci_irq_count(dev, UNIC_PCI_IRQ_MSIX);
	cr_assert_eq(n, 5, "%s: %d MSI-X vectors, expected 5", bdf[0], n);
	cr_assert_eq(unic_pci_irq_count(dev, UNIC_PCI_IRQ_MSI), 1);
	cr_assert_eq(unic_pci_irq_count(dev, UNIC_PCI_IRQ_INTX), 1);
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, 6, fds), -EINVAL,
		     "6 vectors of 5 must be refused");
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, 5, fds), 0);
	for (int i = 0; i < 5; i++) {
		cr_assert_geq(fds[i], 0);
		cr_assert_geq(fcntl(fds[i], F_GETFL) & O_NONBLOCK, 1, "vector %d fd blocks", i);
	}
	cr_assert_eq(unic_pci_irq_disable(dev), 0);
	/* INTx with unmask, through VFIO's mask/unmask. */
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_INTX, 1, fds), 0);
	cr_assert_eq(unic_pci_intx_unmask(dev), 0);
	cr_assert_eq(unic_pci_irq_disable(dev), 0);
	unic_pci_close(dev);

	/* QEMU's default for a virtio-net is 4 vectors (2 per queue pair plus
	 * config and control); the rig gives its multiqueue ones 10 and 3
	 * (fewer than its 4 rx queues: the driver shares them). */
	n = guest_nics_expected("virtio-net") > 0 ? FIND_VIRTIO(bdf) : 0;
	for (int i = 0; i < n; i++) {
		int v;

		dev = open_dev(bdf[i]);
		v = unic_pci_irq_count(dev, UNIC_PCI_IRQ_MSIX);
		cr_assert(v == 3 || v == 4 || v == 10, "%s: %d MSI-X vectors, expected 3, 4 or 10", bdf[i], v);
		unic_pci_close(dev);
	}
}

/*
 * Root bus: VFIO_DEVICE_RESET is offered (and QEMU ignores it); behind a
 * root port with reset_method=bus: only a bus reset, which really resets.
 */
Test(bus, e1000e_reset_by_function_reset_or_bus_reset)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n = FIND_E1000E(bdf), bus_reset = 0;

	if (!is_vfio())
		cr_skip_test("resets are tested through VFIO");
	for (int i = 0; i < n; i++) {
		struct unic_pci_device *dev = open_dev(bdf[i]);
		uint32_t v = 0;
		int rc;

		cr_assert_eq(unic_pci_bar_write32(dev, 0, E1000E_RDBAL0, 0x12345000), 0);
		cr_assert_eq(unic_pci_bar_read32(dev, 0, E1000E_RDBAL0, &v), 0);
		cr_assert_eq(v, 0x12345000, "%s: RDBAL0 reads %#x after writing it", bdf[i], v);
		rc = unic_pci_reset(dev);
		cr_assert_eq(rc, 0, "%s: reset: %s; log: %s", bdf[i], strerror(-rc), logtail);
		cr_assert_eq(unic_pci_bar_read32(dev, 0, E1000E_RDBAL0, &v), 0);
		if (behind_root_port(bdf[i])) {
			cr_assert_eq(v, 0, "%s: RDBAL0 %#x survived the bus reset", bdf[i], v);
			bus_reset++;
		}
		/* Clean up for the next user of the root-bus one, whose reset is a no-op. */
		unic_pci_bar_write32(dev, 0, E1000E_RDBAL0, 0);
		unic_pci_close(dev);
	}
	if (n > 1)
		cr_assert_eq(bus_reset, 1, "expected one e1000e behind a root port");
}

/* ---- device release ---- */

static int released;
static char log_seen[512];

static int on_release(struct unic_pci_device *dev, void *arg)
{
	(void)dev;
	(void)arg;
	__atomic_add_fetch(&released, 1, __ATOMIC_SEQ_CST);
	return 0;
}

static void log_sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg)
{
	(void)ctx;
	(void)comp;
	logtail_sink(ctx, level, comp, msg);
	if (strstr(msg, "released") != NULL || strstr(msg, "asks for the device back") != NULL)
		snprintf(log_seen, sizeof(log_seen), "%s", msg);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Dispatch the library's events until @p done is set or @p secs pass. */
static void dispatch_until(const int *done, double secs)
{
	struct pollfd p = { .fd = unic_event_fd(), .events = POLLIN };
	double end = now() + secs;

	while (!__atomic_load_n(done, __ATOMIC_SEQ_CST) && now() < end) {
		poll(&p, 1, 50);
		unic_event_dispatch();
	}
}

Test(bus, a_device_gone_is_released_and_the_process_goes_on)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	struct unic_pci_device *dev;
	uint32_t v;

	FIND_E1000E(bdf);
	dev = open_dev(bdf[0]);
	released = 0;
	cr_assert_eq(unic_pci_on_release(dev, on_release, NULL), 0);
	unic_pci_gone(dev);
	dispatch_until(&released, 5);
	cr_assert_eq(released, 1, "on_release was not called");
	cr_assert_eq(unic_pci_bar_read32(dev, 0, E1000E_STATUS, &v), -ENODEV);
	unic_pci_close(dev);
	/* And it opens again. */
	dev = open_dev(bdf[0]);
	unic_pci_close(dev);
}

static void rebind(const char *bdf)
{
	char drv[64] = "";

	cr_assert_eq(guest_rebind(bdf), 0);
	cr_assert_eq(guest_pci_link(bdf, "driver", drv, sizeof(drv)), 0, "%s not bound again", bdf);
	cr_assert_str_eq(drv, "vfio-pci");
}

Test(bus, the_kernel_takes_a_held_device_back_within_5_seconds)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN], drv[64];
	struct unic_pci_device *dev;
	struct guest_unbind u;
	size_t len;
	void *va;
	uint32_t v;

	if (!is_vfio())
		cr_skip_test("the kernel's device request is a VFIO feature");
	FIND_E1000E(bdf);
	dev = open_dev(bdf[0]);
	cr_assert_eq(unic_pci_bar_map(dev, 0, &va, &len), 0);
	released = 0;
	log_seen[0] = '\0';
	unic_log_set_sink(log_sink, NULL);
	cr_assert_eq(unic_pci_on_release(dev, on_release, NULL), 0);
	cr_assert_eq(guest_unbind_start(&u, bdf[0]), 0);
	dispatch_until(&u.done, 8);
	unic_log_set_sink(logtail_sink, NULL);
	cr_assert(u.done, "the unbind of %s did not complete within 8 s", bdf[0]);
	pthread_join(u.thread, NULL);
	cr_assert_eq(u.err, 0, "unbind: %s", strerror(u.err));
	cr_assert_lt(u.took, 5.0, "the unbind took %.1f s", u.took);
	cr_assert_eq(released, 1, "on_release was called %d times", released);
	cr_assert_neq(log_seen[0], '\0', "the library logged nothing about the release");
	cr_assert_neq(guest_pci_link(bdf[0], "driver", drv, sizeof(drv)), 0,
		      "%s is still bound (to %s)", bdf[0], drv);
	cr_assert_eq(unic_pci_bar_read32(dev, 0, E1000E_STATUS, &v), -ENODEV);
	unic_pci_close(dev);
	rebind(bdf[0]);
	/* The process is alive and the device opens again. */
	dev = open_dev(bdf[0]);
	unic_pci_close(dev);
}

Test(bus, a_device_bound_elsewhere_is_refused_with_the_bind_command)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	struct unic_pci_device *dev;
	int n;

	if (is_vfio())
		cr_skip_test("the uio boot has an e1000e bound to the kernel's e1000e driver");
	n = guest_pci_find(0x8086, 0x10d3, "e1000e", bdf, GUEST_MAX_DEVICES);
	if (n <= 0)
		cr_skip_test("no e1000e bound to the kernel driver");
	cr_assert_eq(unic_pci_open(bus, bdf[0], &dev), -EBUSY);
}
