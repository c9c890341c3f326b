/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bus layer's access part without a kernel: a fake sysfs tree
 * (fake_sysfs.c) and a fake VFIO behind struct bus_sys, which records the
 * calls. Covers open refusals and their messages, group viability, the
 * no-IOMMU rules, the DMA listener with its IOVA window, the memlock
 * message, interrupts, reset, device release and probe.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/mem.h>

#include "bus/bus_private.h"
#include "fake_sysfs.h"
#include "log_capture.h"
#include "port/port_private.h"
#include "unic_bus_driver.h"

/* ---- a fake VFIO ---- */

#define FD_CONTAINER 1000
#define FD_GROUP 2000      /* + group id */
#define FD_DEVICE 3000     /* + n */
#define MAX_MAPS 64

struct fake_map {
	uint64_t iova, vaddr, size;
};

struct fake_vfio {
	bool not_viable;
	int noiommu_ext;          /* VFIO_CHECK_EXTENSION(VFIO_NOIOMMU_IOMMU) */
	int map_err;              /* MAP_DMA fails with it */
	bool no_caps;             /* GET_INFO without the IOVA-range capability */
	bool dev_reset;           /* VFIO_DEVICE_FLAGS_RESET */
	int hot_reset_err;        /* VFIO_DEVICE_PCI_HOT_RESET fails with it */
	int set_iommu;            /* the type asked for */
	unsigned nb_devices;
	struct fake_map maps[MAX_MAPS];
	unsigned nb_maps, nb_map_calls, nb_unmap_calls;
	unsigned resets, hot_resets, hot_reset_groups;
	struct vfio_irq_set last_irqs;
	int req_fd;               /* the eventfd registered on the request IRQ */
	uint8_t cfg[256];
	char opened[8][256];
	unsigned nb_opened;
};

static struct fake_vfio fk;

static int fk_open(void *ctx, const char *path, int flags)
{
	const char *base = strrchr(path, '/') + 1;
	int id;

	(void)ctx;
	(void)flags;
	if (fk.nb_opened < 8)
		snprintf(fk.opened[fk.nb_opened++], sizeof(fk.opened[0]), "%s", path);
	if (access(path, F_OK) != 0)
		return -ENOENT;
	/* The fake kernel applies the file's mode as if we were its owner
	 * without privileges, so the check means the same as root. */
	struct stat st;
	if (stat(path, &st) == 0 && !(st.st_mode & S_IWUSR))
		return -EACCES;
	if (strcmp(base, "vfio") == 0)
		return FD_CONTAINER;
	if (sscanf(base, "noiommu-%d", &id) == 1 || sscanf(base, "%d", &id) == 1)
		return FD_GROUP + id;
	return -ENOENT;
}

static int fk_close(void *ctx, int fd)
{
	(void)ctx;
	(void)fd;
	return 0;
}

/* GET_INFO: a DMA-avail capability first, then the IOVA ranges of a
 * 39-bit IOMMU less the MSI window, so the chain is walked. */
static int fk_iommu_info(struct vfio_iommu_type1_info *info)
{
	struct vfio_iommu_type1_info_dma_avail *avail;
	struct vfio_iommu_type1_info_cap_iova_range *cap;
	/* Capabilities start 8-byte aligned, as the kernel lays them out. */
	uint32_t off1 = sizeof(*info), off2 = UNIC_ALIGN_CEIL(off1 + (uint32_t)sizeof(*avail), 8u);
	uint32_t need = off2 + sizeof(*cap) + 2 * sizeof(struct vfio_iova_range);

	info->flags = VFIO_IOMMU_INFO_PGSIZES;
	info->iova_pgsizes = 0x40201000;
	if (fk.no_caps)
		return 0;
	info->flags |= VFIO_IOMMU_INFO_CAPS;
	if (info->argsz < need) {
		info->argsz = need;
		info->cap_offset = 0;
		return 0;
	}
	info->cap_offset = off1;
	avail = (void *)((char *)info + off1);
	avail->header.id = VFIO_IOMMU_TYPE1_INFO_DMA_AVAIL;
	avail->header.version = 1;
	avail->header.next = off2;
	avail->avail = 65535;
	cap = (void *)((char *)info + off2);
	cap->header.id = VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE;
	cap->header.version = 1;
	cap->header.next = 0;
	cap->nr_iovas = 2;
	cap->iova_ranges[0].start = 0;
	cap->iova_ranges[0].end = 0xfedfffff;
	cap->iova_ranges[1].start = 0xfef00000;
	cap->iova_ranges[1].end = (1ULL << 39) - 1;
	return 0;
}

/* Device ioctls share numbers with container ones (VFIO_BASE + 12, + 13). */
static int fk_dev_ioctl(unsigned long req, void *arg)
{
	switch (req) {
	case VFIO_DEVICE_GET_INFO: {
		struct vfio_device_info *di = arg;

		di->flags = VFIO_DEVICE_FLAGS_PCI | (fk.dev_reset ? VFIO_DEVICE_FLAGS_RESET : 0);
		di->num_regions = VFIO_PCI_NUM_REGIONS;
		di->num_irqs = VFIO_PCI_NUM_IRQS;
		return 0;
	}
	case VFIO_DEVICE_GET_REGION_INFO: {
		struct vfio_region_info *ri = arg;

		ri->offset = (uint64_t)ri->index << 40;
		ri->size = ri->index == 0 ? 128 << 10 : ri->index == 2 ? 32 :
			   ri->index == VFIO_PCI_CONFIG_REGION_INDEX ? 256 : 0;
		ri->flags = ri->size ? VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE : 0;
		if (ri->index == 0)
			ri->flags |= VFIO_REGION_INFO_FLAG_MMAP;
		return 0;
	}
	case VFIO_DEVICE_GET_IRQ_INFO: {
		struct vfio_irq_info *ii = arg;
		static const unsigned counts[] = { 1, 1, 5, 1, 1 };

		ii->count = ii->index < 5 ? counts[ii->index] : 0;
		return 0;
	}
	case VFIO_DEVICE_SET_IRQS: {
		struct vfio_irq_set *s = arg;

		fk.last_irqs = *s;
		if (s->index == VFIO_PCI_REQ_IRQ_INDEX && (s->flags & VFIO_IRQ_SET_DATA_EVENTFD))
			memcpy(&fk.req_fd, s->data, sizeof(int));
		return 0;
	}
	case VFIO_DEVICE_RESET:
		fk.resets++;
		return 0;
	case VFIO_DEVICE_GET_PCI_HOT_RESET_INFO: {
		struct vfio_pci_hot_reset_info *hi = arg;

		if (hi->argsz < sizeof(*hi) + sizeof(hi->devices[0])) {
			hi->count = 1;
			return -ENOSPC;
		}
		hi->count = 1;
		hi->devices[0] = (struct vfio_pci_dependent_device){ .group_id = 7, .bus = 3 };
		return 0;
	}
	case VFIO_DEVICE_PCI_HOT_RESET: {
		struct vfio_pci_hot_reset *hr = arg;

		fk.hot_resets++;
		fk.hot_reset_groups = hr->count;
		if (fk.hot_reset_err)
			return -fk.hot_reset_err;
		return hr->count == 1 && hr->group_fds[0] == FD_GROUP + 7 ? 0 : -EINVAL;
	}
	}
	return -ENOTTY;
}

static int fk_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	(void)ctx;
	if (fd >= FD_DEVICE)
		return fk_dev_ioctl(req, arg);
	switch (req) {
	case VFIO_GET_API_VERSION:
		return VFIO_API_VERSION;
	case VFIO_CHECK_EXTENSION:
		if ((uintptr_t)arg == VFIO_NOIOMMU_IOMMU)
			return fk.noiommu_ext;
		return (uintptr_t)arg == VFIO_TYPE1v2_IOMMU || (uintptr_t)arg == VFIO_TYPE1_IOMMU;
	case VFIO_SET_IOMMU:
		fk.set_iommu = (int)(uintptr_t)arg;
		return 0;
	case VFIO_GROUP_GET_STATUS: {
		struct vfio_group_status *st = arg;

		st->flags = fk.not_viable ? 0 : VFIO_GROUP_FLAGS_VIABLE;
		return 0;
	}
	case VFIO_GROUP_SET_CONTAINER:
		return *(int *)arg == FD_CONTAINER ? 0 : -EINVAL;
	case VFIO_IOMMU_GET_INFO:
		return fk_iommu_info(arg);
	case VFIO_IOMMU_MAP_DMA: {
		struct vfio_iommu_type1_dma_map *m = arg;

		fk.nb_map_calls++;
		if (fk.map_err)
			return -fk.map_err;
		cr_assert_lt(fk.nb_maps, MAX_MAPS);
		fk.maps[fk.nb_maps++] = (struct fake_map){ m->iova, m->vaddr, m->size };
		return 0;
	}
	case VFIO_IOMMU_UNMAP_DMA: {
		struct vfio_iommu_type1_dma_unmap *u = arg;

		fk.nb_unmap_calls++;
		for (unsigned i = 0; i < fk.nb_maps; i++) {
			if (fk.maps[i].iova == u->iova && fk.maps[i].size == u->size) {
				fk.maps[i] = fk.maps[--fk.nb_maps];
				return 0;
			}
		}
		return -EINVAL;
	}
	case VFIO_GROUP_GET_DEVICE_FD:
		return FD_DEVICE + (int)fk.nb_devices++;
	}
	(void)fd;
	return -ENOTTY;
}

static int fk_mmap(void *ctx, size_t len, int prot, int fd, off_t off, void **va)
{
	void *p = mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)ctx;
	(void)fd;
	(void)off;
	if (p == MAP_FAILED)
		return -errno;
	((uint32_t *)p)[2] = 0x80080783;  /* e1000e STATUS, link up */
	*va = p;
	return 0;
}

static int fk_munmap(void *ctx, void *va, size_t len)
{
	(void)ctx;
	return munmap(va, len) < 0 ? -errno : 0;
}

static ssize_t fk_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
	uint64_t o = (uint64_t)off & ((1ULL << 40) - 1);

	(void)ctx;
	(void)fd;
	if (((uint64_t)off >> 40) != VFIO_PCI_CONFIG_REGION_INDEX || o + len > sizeof(fk.cfg))
		return -EINVAL;
	memcpy(buf, fk.cfg + o, len);
	return (ssize_t)len;
}

static ssize_t fk_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
	uint64_t o = (uint64_t)off & ((1ULL << 40) - 1);

	(void)ctx;
	(void)fd;
	if (((uint64_t)off >> 40) != VFIO_PCI_CONFIG_REGION_INDEX || o + len > sizeof(fk.cfg))
		return -EINVAL;
	memcpy(fk.cfg + o, buf, len);
	return (ssize_t)len;
}

static const struct bus_sys fake_sys = {
	.open = fk_open, .close = fk_close, .ioctl = fk_ioctl, .mmap = fk_mmap,
	.munmap = fk_munmap, .pread = fk_pread, .pwrite = fk_pwrite,
};

/* ---- the log, captured ---- */

/* The shared capture under this file's old name. */
#define logbuf logcap_buf

#define assert_logged(s) cr_assert_not_null(strstr(logbuf, s), "the log lacks \"%s\":\n%s", s, logbuf)

/* ---- fixtures ---- */

static char root[256];
static struct unic_mem *mem;
static struct unic_bus *bus;

static const struct fake_dev nic_vfio = {
	.bdf = "0000:00:03.0", .vendor = 0x8086, .device = 0x10d3, .class_code = 0x020000,
	.numa_node = -1, .iommu_group = 7, .driver = "vfio-pci",
};

static void dev_file(const char *name)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "dev/vfio/%s", name);
	fake_put(root, rel, "");
}

static struct unic_bus *make_bus(bool noiommu_ok)
{
	struct unic_bus_conf bc = { .sz = sizeof(bc) };
	char devroot[300];
	struct unic_bus *b;

	snprintf(devroot, sizeof(devroot), "%s/dev", root);
	bc.mem = mem;
	bc.sysfs_root = root;
	bc.dev_root = devroot;
	bc.allow_noiommu = noiommu_ok;
	b = unic_bus_create(&bc);
	cr_assert_not_null(b);
	cr_assert_eq(bus_sys_set(b, &fake_sys), 0);
	return b;
}

static void setup_va(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };

	memset(&fk, 0, sizeof(fk));
	fk.dev_reset = true;
	fk.req_fd = -1;
	logcap_start(UNIC_LOG_DEBUG, 0);
	fake_root_create(root, sizeof(root));
	dev_file("vfio");
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem);
	bus = make_bus(false);
}

static void teardown(void)
{
	unic_bus_destroy(bus);
	unic_mem_destroy(mem);
	bus = NULL;
	mem = NULL;
	logcap_stop();
	fake_root_remove(root);
}

TestSuite(bus, .init = setup_va, .fini = teardown);

/* ---- open refusals ---- */

Test(bus, open_of_a_kernel_bound_device_is_busy_and_names_driver_and_command)
{
	struct fake_dev d = nic_vfio;
	struct unic_pci_device *dev;

	d.driver = "e1000e";
	d.ifname = "eth0";
	fake_add_dev(root, &d);
	cr_assert_eq(unic_pci_open(bus, "00:03.0", &dev), -EBUSY);
	cr_assert_null(dev);
	assert_logged("bound to the kernel driver e1000e");
	assert_logged("interface eth0");
	assert_logged("unic-devbind --bind vfio-pci 0000:00:03.0");
}

Test(bus, open_of_an_unbound_device_is_busy_and_names_the_command)
{
	struct fake_dev d = nic_vfio;
	struct unic_pci_device *dev;

	d.driver = NULL;
	fake_add_dev(root, &d);
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), -EBUSY);
	assert_logged("bound to no driver");
	assert_logged("unic-devbind --bind vfio-pci 0000:00:03.0");
}

Test(bus, open_of_a_missing_device_is_enodev)
{
	struct unic_pci_device *dev;

	fake_add_dev(root, &nic_vfio);
	cr_assert_eq(unic_pci_open(bus, "0000:00:09.0", &dev), -ENODEV);
	assert_logged("no such PCI device");
}

Test(bus, a_group_that_is_not_viable_lists_every_member_with_its_driver)
{
	struct fake_dev other = nic_vfio, bridge = nic_vfio;
	struct unic_pci_device *dev;

	other.bdf = "0000:00:03.1";
	other.driver = "e1000e";
	bridge.bdf = "0000:00:03.2";
	bridge.driver = NULL;
	fake_add_dev(root, &nic_vfio);
	fake_add_dev(root, &other);
	fake_add_dev(root, &bridge);
	dev_file("7");
	fk.not_viable = true;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), -EINVAL);
	assert_logged("IOMMU group 7 is not viable");
	assert_logged("0000:00:03.0 (vfio-pci)");
	assert_logged("0000:00:03.1 (e1000e)");
	assert_logged("0000:00:03.2 (no driver)");
}

Test(bus, a_group_file_without_permission_names_the_file_and_chown)
{
	char path[300];
	struct unic_pci_device *dev;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	snprintf(path, sizeof(path), "%s/dev/vfio/7", root);
	chmod(path, 0400);
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), -EACCES);
	assert_logged("dev/vfio/7");
	assert_logged("chown");
}

/* ---- no-IOMMU ---- */

static void setup_noiommu_dev(void)
{
	fake_add_dev(root, &nic_vfio);
	dev_file("noiommu-7");
}

Test(bus, noiommu_is_refused_unless_asked_for)
{
	struct unic_pci_device *dev;

	setup_noiommu_dev();
	fk.noiommu_ext = 1;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), -ENOTSUP);
	assert_logged("allow_noiommu");
	assert_logged("uio_pci_generic");
	cr_assert_eq(fk.set_iommu, 0, "no container type may be set");
}

static struct unic_mem *pa_mem(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true,
				      .iova_mode = UNIC_IOVA_PA };
	char pm[300];
	struct unic_mem *m;

	fake_put(root, "pagemap", "");
	snprintf(pm, sizeof(pm), "%s/pagemap", root);
	mc.pagemap_path = pm;
	m = unic_mem_create(&mc);
	cr_assert_not_null(m, "PA mode with a fake pagemap: %s", strerror(errno));
	return m;
}

Test(bus, noiommu_without_kernel_support_says_so_and_points_to_uio)
{
	struct unic_pci_device *dev;
	struct unic_mem *va_mem = mem;

	setup_noiommu_dev();
	unic_bus_destroy(bus);
	mem = pa_mem();
	bus = make_bus(true);
	fk.noiommu_ext = 0;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), -ENOTSUP);
	assert_logged("CONFIG_VFIO_NOIOMMU");
	assert_logged("unic-devbind --bind uio_pci_generic 0000:00:03.0");
	unic_mem_destroy(va_mem);
}

Test(bus, a_device_without_iommu_group_explains_the_missing_noiommu_kernel)
{
	struct fake_dev d = nic_vfio;
	struct unic_pci_device *dev;

	unic_bus_destroy(bus);
	bus = make_bus(true);
	d.iommu_group = -1;
	fake_add_dev(root, &d);
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), -ENODEV);
	assert_logged("built without CONFIG_VFIO_NOIOMMU");
	assert_logged("uio_pci_generic");
}

Test(bus, noiommu_needs_pa_mode_memory)
{
	struct unic_pci_device *dev;

	setup_noiommu_dev();
	unic_bus_destroy(bus);
	bus = make_bus(true);
	fk.noiommu_ext = 1;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), -EINVAL);
	assert_logged("PA mode");
}

Test(bus, noiommu_is_accepted_when_asked_for_with_a_warning)
{
	struct unic_pci_device *dev;
	struct unic_mem *va_mem = mem;

	setup_noiommu_dev();
	unic_bus_destroy(bus);
	mem = pa_mem();
	bus = make_bus(true);
	fk.noiommu_ext = 1;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_access(dev), UNIC_PCI_ACCESS_VFIO_NOIOMMU);
	cr_assert_eq(fk.set_iommu, VFIO_NOIOMMU_IOMMU);
	cr_assert_eq(fk.nb_map_calls, 0, "no-IOMMU has no DMA mapping");
	assert_logged("UNSAFE");
	cr_assert_str_eq(fk.opened[1] + strlen(fk.opened[1]) - 9, "noiommu-7");
	unic_pci_close(dev);
	unic_mem_destroy(va_mem);
}

/* ---- DMA ---- */

static bool mapped(const struct unic_dma *z)
{
	for (unsigned i = 0; i < fk.nb_maps; i++)
		if (fk.maps[i].vaddr == (uintptr_t)z->seg->va && fk.maps[i].iova == z->seg->iova &&
		    fk.maps[i].size == z->seg->len)
			return true;
	return false;
}

Test(bus, dma_listener_maps_existing_and_new_segments_in_the_iova_window_and_unmaps_them)
{
	struct unic_dma before = { 0 }, after = { 0 };
	struct unic_pci_device *dev;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	/* A segment made before the bus opens anything: replayed, and its
	 * IOVA (= VA, 47 bits) lies outside a 39-bit window. */
	cr_assert_eq(unic_mem_alloc(mem, 4096, 0, 0, &before), 0);
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), -ERANGE,
		     "memory outside the IOMMU's range must be refused");
	assert_logged("open the device before allocating DMA memory");
	unic_mem_free(mem, &before);

	logbuf[0] = '\0';
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(fk.set_iommu, VFIO_TYPE1v2_IOMMU);
	assert_logged("IOVAs allocated inside [0xfef00000, 0x7fffffffff]");
	assert_logged("39-bit");
	cr_assert_eq(unic_mem_alloc(mem, 4096, 0, 0, &after), 0);
	cr_assert(mapped(&after), "the new segment was not DMA-mapped");
	cr_assert_geq(after.iova, 0xfef00000ULL);
	cr_assert_lt(after.iova, 1ULL << 39);
	cr_assert_neq(after.iova, (uintptr_t)after.va);
	unic_mem_free(mem, &after);
	cr_assert_eq(fk.nb_maps, 0, "the freed segment is still mapped");
	cr_assert_eq(fk.nb_unmap_calls, 1);
	unic_pci_close(dev);
}

Test(bus, dma_listener_replays_segments_that_exist_when_the_container_is_set_up)
{
	struct unic_dma z[3] = { { 0 } };
	struct unic_pci_device *dev;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	/* Inside a window from the start: IOVA = VA where it fits. */
	fk.no_caps = true;
	for (int i = 0; i < 3; i++)
		cr_assert_eq(unic_mem_alloc(mem, 1 << 20, 0, 0, &z[i]), 0);
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	assert_logged("no usable IOVA ranges");
	cr_assert_eq(fk.nb_maps, unic_mem_seg_count(mem));
	for (int i = 0; i < 3; i++) {
		cr_assert(mapped(&z[i]), "segment of zone %d not replayed", i);
		cr_assert_eq(z[i].iova, (uintptr_t)z[i].va);
	}
	unic_pci_close(dev);
	/* The last group gone: the container goes, and so do the mappings. */
	cr_assert_eq(fk.nb_maps, 0, "%u mapping(s) left after the last close", fk.nb_maps);
	for (int i = 0; i < 3; i++)
		unic_mem_free(mem, &z[i]);
}

Test(bus, a_mapping_refused_for_memlock_names_the_limit_and_ulimit)
{
	struct unic_pci_device *dev;
	struct unic_dma z = { 0 };
	char want[96];
	struct rlimit rl;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	fk.map_err = ENOMEM;
	cr_assert_eq(unic_mem_alloc(mem, 4096, 0, 0, &z), -ENOMEM);
	assert_logged("RLIMIT_MEMLOCK");
	assert_logged("ulimit -l");
	cr_assert_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	if (rl.rlim_cur != RLIM_INFINITY) {
		snprintf(want, sizeof(want), "is %llu bytes", (unsigned long long)rl.rlim_cur);
		assert_logged(want);
	}
	unic_pci_close(dev);
}

/* ---- the device ---- */

Test(bus, bars_config_bus_master_irqs_and_reset_through_vfio)
{
	struct unic_pci_device *dev;
	uint32_t status = 0;
	uint16_t cmd = 0;
	int fds[5];
	size_t len;
	void *va;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_access(dev), UNIC_PCI_ACCESS_VFIO);
	cr_assert_eq(unic_pci_bar_map(dev, 0, &va, &len), 0);
	cr_assert_eq(len, 128u << 10);
	cr_assert_eq(unic_pci_bar_read32(dev, 0, 8, &status), 0);
	cr_assert_eq(status, 0x80080783);
	cr_assert_eq(unic_pci_bar_map(dev, 2, &va, &len), -ENOTSUP, "BAR2 has no MMAP flag");
	cr_assert_eq(unic_pci_bar_map(dev, 1, &va, &len), -EINVAL, "BAR1 does not exist");
	cr_assert_eq(unic_pci_bus_master(dev, true), 0);
	cr_assert_eq(unic_pci_cfg_read(dev, 4, &cmd, 2), 2);
	cr_assert_eq(cmd & 4, 4);

	cr_assert_eq(unic_pci_irq_count(dev, UNIC_PCI_IRQ_MSIX), 5);
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, 6, fds), -EINVAL);
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, 5, fds), 0);
	cr_assert_eq(fk.last_irqs.index, VFIO_PCI_MSIX_IRQ_INDEX);
	cr_assert_eq(fk.last_irqs.count, 5);
	cr_assert_eq(fk.last_irqs.flags, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER);
	cr_assert_eq(unic_pci_irq_disable(dev), 0);
	cr_assert_eq(fk.last_irqs.count, 0);
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_INTX, 1, fds), 0);
	cr_assert_eq(unic_pci_intx_unmask(dev), 0);
	cr_assert_eq(fk.last_irqs.flags, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK);
	cr_assert_eq(unic_pci_irq_disable(dev), 0);

	cr_assert_eq(unic_pci_reset(dev), 0);
	cr_assert_eq(fk.resets, 1);
	cr_assert_eq(fk.hot_resets, 0);
	fk.dev_reset = false;
	unic_pci_close(dev);

	/* Without VFIO_DEVICE_FLAGS_RESET: a bus reset with the group's fd. */
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_reset(dev), 0);
	cr_assert_eq(fk.resets, 1);
	cr_assert_eq(fk.hot_resets, 1);
	cr_assert_eq(fk.hot_reset_groups, 1);
	/* ENOTTY: the kernel reset the bus but saw no link; the ids decide. */
	fk.hot_reset_err = ENOTTY;
	cr_assert_eq(unic_pci_reset(dev), -EIO, "config space reads 0: not back");
	fk.cfg[0] = 0x86;
	fk.cfg[1] = 0x80;
	fk.cfg[2] = 0xd3;
	fk.cfg[3] = 0x10;
	cr_assert_eq(unic_pci_reset(dev), 0);
	assert_logged("could not confirm the link");
	unic_pci_close(dev);
}

static int released;
static int release_rc;    /* what the owner answers */
static bool release_gone; /* unic_pci_is_gone() as the owner saw it */

static int on_release(struct unic_pci_device *dev, void *arg)
{
	cr_assert_eq(arg, &released);
	/* The owner is called before anything is released. */
	cr_assert(!unic_pci_is_released(dev));
	release_gone = unic_pci_is_gone(dev);
	released++;
	return release_rc;
}

static void dispatch_until_released(void)
{
	struct pollfd p = { .fd = unic_event_fd(), .events = POLLIN };

	for (int i = 0; i < 100 && released == 0; i++) {
		poll(&p, 1, 10);
		unic_event_dispatch();
	}
}

Test(bus, the_kernels_request_calls_on_release_and_releases_the_device)
{
	struct unic_pci_device *dev;
	uint64_t one = 1;
	uint32_t v;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	released = 0;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_geq(fk.req_fd, 0, "no eventfd registered on VFIO_PCI_REQ_IRQ_INDEX");
	cr_assert_eq(unic_pci_on_release(dev, on_release, &released), 0);
	/* The kernel signals the request eventfd. */
	cr_assert_eq(write(fk.req_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	dispatch_until_released();
	cr_assert_eq(released, 1);
	cr_assert(!release_gone, "a request is not a device gone");
	assert_logged("asks for the device back");
	assert_logged("released");
	cr_assert(unic_pci_is_released(dev));
	cr_assert_eq(unic_pci_bar_read32(dev, 0, 8, &v), -ENODEV);
	unic_pci_close(dev);
}

Test(bus, an_owner_that_is_closing_the_device_releases_it_itself)
{
	struct unic_pci_device *dev;
	uint64_t one = 1;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	released = 0;
	release_rc = -EBUSY;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_on_release(dev, on_release, &released), 0);
	cr_assert_eq(write(fk.req_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	dispatch_until_released();
	cr_assert_eq(released, 1);
	assert_logged("its owner is closing it");
	cr_assert(!unic_pci_is_released(dev), "the bus released a device its owner is closing");
	release_rc = 0;
	unic_pci_close(dev);
}

Test(bus, a_device_gone_takes_the_release_path)
{
	struct unic_pci_device *dev;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	released = 0;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_on_release(dev, on_release, &released), 0);
	unic_pci_gone(dev);
	unic_pci_gone(dev);  /* twice: once is enough */
	dispatch_until_released();
	cr_assert_eq(released, 1);
	cr_assert(release_gone);
	assert_logged("reads as all-ones");
	cr_assert_eq(unic_pci_irq_count(dev, UNIC_PCI_IRQ_MSIX), -ENODEV);
	unic_pci_close(dev);
}

/* ---- probe: the bus's part (ids and a callback) ---- */

static int probed;
static void *probe_arg;

static const struct unic_pci_id fake_ids[] = { { 0x8086, 0x10d3 }, { 0, 0 } };

static int fake_probe(const struct unic_pci_driver *drv, struct unic_pci_device *dev, void *arg)
{
	(void)drv;
	probed++;
	probe_arg = arg;
	/* The driver owns the device now; this one closes it at once. */
	unic_pci_close(dev);
	return 0;
}

static const struct unic_pci_driver fake_drv = {
	.name = "fake", .id_table = fake_ids, .probe = fake_probe,
};
static const struct unic_pci_driver *const fake_table[] = { &fake_drv, NULL };

/* 00:03.0 an e1000e on vfio-pci, 00:04.0 one on the kernel's e1000e,
 * 00:05.0 a device no driver takes. */
static void fake_add_three(void)
{
	struct fake_dev kern = nic_vfio, other = nic_vfio;

	kern.bdf = "0000:00:04.0";
	kern.driver = "e1000e";
	kern.iommu_group = 8;
	other.bdf = "0000:00:05.0";
	other.device = 0x1234;
	other.iommu_group = 9;
	fake_add_dev(root, &nic_vfio);
	fake_add_dev(root, &kern);
	fake_add_dev(root, &other);
	dev_file("7");
}

Test(bus, probe_opens_matching_devices_and_reports_kernel_bound_ones)
{
	const char *allow[] = { "00:04.0" };
	int cookie;

	fake_add_three();
	probed = 0;
	cr_assert_eq(unic_pci_probe(bus, fake_table, NULL, 0, &cookie), 1);
	cr_assert_eq(probed, 1, "only the vfio-pci e1000e is probed");
	cr_assert_eq(probe_arg, &cookie, "the probe gets the caller's argument");
	assert_logged("unic-devbind --bind vfio-pci 0000:00:04.0");
	/* Asked for by name, a kernel-bound device is an error. */
	cr_assert_eq(unic_pci_probe(bus, fake_table, allow, 1, NULL), -EBUSY);
	cr_assert_eq(probed, 1);
	allow[0] = "00:0a.0";
	cr_assert_eq(unic_pci_probe(bus, fake_table, allow, 1, NULL), -ENODEV);
	allow[0] = "00:05.0";
	cr_assert_eq(unic_pci_probe(bus, fake_table, allow, 1, NULL), -ENODEV);
	assert_logged("no driver in this build drives it");
}

Test(bus, id_match_reads_a_zero_terminated_table)
{
	struct unic_pci_info info = { .vendor = 0x8086, .device = 0x10d3 };

	cr_assert(unic_pci_id_match(fake_ids, &info));
	info.device = 0x10d4;
	cr_assert_not(unic_pci_id_match(fake_ids, &info));
	cr_assert_not(unic_pci_id_match(NULL, &info), "no table matches nothing");
}

/* ---- probe: the port layer's part (lib/port/probe.c) ---- */

static void nop_info(struct unic_port *port, struct unic_port_info *info)
{
	(void)port;
	snprintf(info->driver, sizeof(info->driver), "fakeport");
}

static void nop_close(struct unic_port *port)
{
	struct unic_pci_device **dev = unic_port_priv(port);

	unic_pci_close(*dev);
	*dev = NULL;
}

static const struct unic_port_ops fake_port_ops = {
	.info_get = nop_info,
	.close = nop_close,
};

static int port_probe_err;

/* A PCI driver that makes a registered port of every device, or fails. */
static int fake_port_probe(struct unic_bus *b, struct unic_pci_device *dev, struct unic_port **out)
{
	struct unic_port *port;
	int rc;

	(void)b;
	if (port_probe_err)
		return port_probe_err;
	port = unic_port_alloc(sizeof(dev), "fakeport%d", NULL);
	cr_assert_not_null(port);
	port->ops = &fake_port_ops;
	*(struct unic_pci_device **)unic_port_priv(port) = dev;
	rc = unic_port_register(port);
	cr_assert_eq(rc, 0);
	*out = port;
	return 0;
}

static const struct unic_driver fake_port_drv = {
	.name = "fakeport", .pci_ids = fake_ids, .pci_probe = fake_port_probe,
};
static const struct unic_driver *const fake_port_table[] = { &fake_port_drv, NULL };

static unsigned registered_ports(void)
{
	uint16_t ids[UNIC_PORT_MAX];

	return unic_port_list(ids, UNIC_PORT_MAX);
}

Test(bus, port_probe_returns_the_ports_it_created_with_a_reference_each)
{
	struct unic_port *ports[4] = { NULL };
	unsigned nb, before = registered_ports();
	struct unic_port *p;

	fake_add_three();
	port_probe_err = 0;
	cr_assert_eq(port_probe_table(bus, fake_port_table, NULL, 0, ports, 4, &nb), 1);
	cr_assert_eq(nb, 1);
	cr_assert_not_null(ports[0]);
	cr_assert_eq(registered_ports(), before + 1);
	assert_logged("driver fakeport created port fakeport");
	p = unic_port_get_by_name(unic_port_name(ports[0]));
	cr_assert_eq(p, ports[0], "the port returned is the one registered");
	unic_port_put(p);
	cr_assert_eq(unic_port_detach(ports[0]), 0);
	unic_port_put(ports[0]);
	cr_assert_eq(registered_ports(), before);
}

Test(bus, a_failed_port_probe_leaves_no_port_behind)
{
	/* 00:03.0 makes a port; 00:04.0 is listed but kernel-bound: -EBUSY. */
	const char *allow[] = { "00:03.0", "00:04.0" };
	struct unic_port *ports[4] = { NULL };
	unsigned before = registered_ports();

	fake_add_three();
	port_probe_err = 0;
	cr_assert_eq(port_probe_pci_table(bus, fake_port_table, allow, 2, ports, 4), -EBUSY);
	cr_assert_eq(registered_ports(), before, "the port of 00:03.0 was detached");
	cr_assert_null(ports[0], "no reference is handed out on an error");
	assert_logged("detaching the 1 port(s) it created");
}

Test(bus, port_probe_with_no_room_fails_and_says_how_much_room_there_was)
{
	unsigned nb;

	fake_add_three();
	port_probe_err = 0;
	cr_assert_eq(port_probe_table(bus, fake_port_table, NULL, 0, NULL, 0, &nb), -ENOSPC);
	cr_assert_eq(nb, 0);
	assert_logged("there is room for 0 only");
}

Test(bus, port_probe_names_the_driver_whose_probe_failed)
{
	const char *allow[] = { "0000:00:03.0" };
	struct unic_port *ports[1];
	unsigned nb = 99;

	fake_add_three();
	port_probe_err = -EIO;
	cr_assert_eq(port_probe_table(bus, fake_port_table, allow, 1, ports, 1, &nb), -EIO);
	cr_assert_eq(nb, 0);
	assert_logged("0000:00:03.0: driver fakeport could not create its port");
	port_probe_err = 0;
}

/* ---- a vector's Linux IRQ and its affinity (irq_affinity.c) ---- */

/* Two CPUs; vector 0 and 1 of 0000:00:03.0 on IRQs 24 and 25, and names
 * that contain ours but are other devices' or other vectors'. */
static const char interrupts_2cpu[] =
	"           CPU0       CPU1       \n"
	"  0:         36          0   IO-APIC   2-edge      timer\n"
	"  9:          0          0   IO-APIC   9-fasteoi   acpi\n"
	" 21:        120         17   IR-PCI-MSIX-0000:00:03.0    4-edge      vfio-msix[10](0000:00:03.0)\n"
	" 22:          5          6   IR-PCI-MSIX-10000:00:03.0    0-edge      vfio-msix[0](10000:00:03.0)\n"
	" 23:          1          2   IR-PCI-MSI-0000:00:03.0    0-edge      vfio-msi[0](0000:00:03.0)\n"
	" 24:        345        678   IR-PCI-MSIX-0000:00:03.0    0-edge      vfio-msix[0](0000:00:03.0)\n"
	" 25:          0         91   IR-PCI-MSIX-0000:00:03.0    1-edge      eth9, vfio-msix[1](0000:00:03.0)\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"LOC:      12345      23456   Local timer interrupts\n"
	"ERR:          0\n";

Test(bus, the_interrupts_parser_finds_a_whole_action_name_and_its_counts)
{
	uint64_t c[4] = { 0 };
	unsigned nb = 0;

	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[0](0000:00:03.0)", -1, c, 4, &nb), 24);
	cr_assert_eq(nb, 2);
	cr_assert_eq(c[0], 345);
	cr_assert_eq(c[1], 678);
	/* The second action of a shared line. */
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[1](0000:00:03.0)", -1, c, 4, &nb), 25);
	cr_assert_eq(c[1], 91);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[10](0000:00:03.0)", -1, NULL, 0, NULL), 21);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msi[0](0000:00:03.0)", -1, NULL, 0, NULL), 23);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[0](10000:00:03.0)", -1, NULL, 0, NULL), 22);
	/* Parts of names are not actions; nor is a BDF inside the chip column. */
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[1](0000:00:03.", -1, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[2](0000:00:03.0)", -1, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "0000:00:03.0", -1, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "eth9", -1, NULL, 0, NULL), 25);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "eth", -1, NULL, 0, NULL), -ENOENT);
	/* By number. */
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, NULL, 9, c, 4, &nb), 9);
	cr_assert_eq(c[0], 0);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, NULL, 26, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(bus_proc_interrupts_find("", "x", -1, NULL, 0, NULL), -EINVAL, "no header");
	cr_assert_eq(bus_proc_interrupts_find("  0:  1  timer\n", "timer", -1, NULL, 0, NULL), -EINVAL);
}

/* One CPU, and eight with wide counts and an offline CPU left out of the
 * header (columns are online CPUs only). */
Test(bus, the_interrupts_parser_follows_the_header_for_any_number_of_cpus)
{
	static const char one[] =
		"           CPU0       \n"
		" 40:    4294967295   PCI-MSIX-0000:01:00.0    0-edge      vfio-msix[0](0000:01:00.0)\n";
	static const char eight[] =
		"            CPU0       CPU1       CPU2       CPU3       CPU5       CPU6       CPU7       CPU8       \n"
		"  1:          0          0          0          0          0          0          0          9  IR-IO-APIC    1-edge      i8042\n"
		"128: 1234567890          1          2          3          4          5          6 9876543210  IR-PCI-MSIX-0000:3b:00.1   3-edge      vfio-msix[3](0000:3b:00.1)\n"
		"129:          0          0          0          0          0          0          0          0  IR-PCI-MSIX-0000:3b:00.1   4-edge      vfio-msix[4](0000:3b:00.1)\n";
	uint64_t c[8] = { 0 };
	unsigned nb = 0;

	cr_assert_eq(bus_proc_interrupts_find(one, "vfio-msix[0](0000:01:00.0)", -1, c, 8, &nb), 40);
	cr_assert_eq(nb, 1);
	cr_assert_eq(c[0], 4294967295u);
	cr_assert_eq(bus_proc_interrupts_find(eight, "vfio-msix[3](0000:3b:00.1)", -1, c, 8, &nb), 128);
	cr_assert_eq(nb, 8);
	cr_assert_eq(c[0], 1234567890u);
	cr_assert_eq(c[6], 6);
	cr_assert_eq(c[7], 9876543210u);
	/* Fewer slots than CPUs: the first ones, and the count of columns. */
	cr_assert_eq(bus_proc_interrupts_find(eight, "vfio-msix[4](0000:3b:00.1)", -1, c, 2, &nb), 129);
	cr_assert_eq(nb, 8);
	cr_assert_eq(c[0], 0);
	cr_assert_eq(c[7], 9876543210u, "a slot past max_counts is left alone");
}

static struct unic_pci_device *open_with_msix(unsigned nvec)
{
	struct unic_pci_device *dev;
	int fds[5];

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	if (nvec)
		cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, nvec, fds), 0);
	return dev;
}

Test(bus, a_vectors_irq_comes_from_proc_interrupts_and_its_affinity_is_written_and_read_back)
{
	struct unic_pci_device *dev = open_with_msix(2);
	char buf[64];

	fake_put(root, "proc/interrupts", interrupts_2cpu);
	fake_put(root, "proc/irq/25/smp_affinity_list", "0-1\n");
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), 24);
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 1), 25);
	cr_assert_eq(unic_pci_irq_affinity_set(dev, 1, 1), 25);
	cr_assert_str_eq(fake_get(root, "proc/irq/25/smp_affinity_list", buf, sizeof(buf)), "1\n");
	/* Vector 2 is not enabled; a negative CPU is refused. */
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 2), -EINVAL);
	assert_logged("vector 2 is not enabled");
	cr_assert_eq(unic_pci_irq_affinity_set(dev, 0, -1), -EINVAL);
	unic_pci_close(dev);
}

Test(bus, a_vector_without_its_line_or_without_interrupts_is_an_error_that_says_why)
{
	struct unic_pci_device *dev = open_with_msix(0);
	int fds[5];

	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), -EINVAL);
	assert_logged("no interrupts are enabled");
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, 2, fds), 0);
	/* Only a similarly named device's line. */
	fake_put(root, "proc/interrupts",
		 "           CPU0       CPU1\n"
		 " 22:  5  6   IR-PCI-MSIX-10000:00:03.0    0-edge      vfio-msix[0](10000:00:03.0)\n");
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), -ENOENT);
	assert_logged("names vfio-msix[0](0000:00:03.0)");
	/* The affinity file missing (no such IRQ directory): an error, not 0. */
	fake_put(root, "proc/interrupts", interrupts_2cpu);
	cr_assert_eq(unic_pci_irq_affinity_set(dev, 0, 1), -ENOENT);
	assert_logged("proc/irq/24/smp_affinity_list");
	unic_pci_close(dev);
}

Test(bus, intx_is_the_devices_legacy_line_from_sysfs)
{
	struct unic_pci_device *dev = open_with_msix(0);
	char buf[64];
	int fds[1];

	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_INTX, 1, fds), 0);
	fake_put(root, "sys/bus/pci/devices/0000:00:03.0/irq", "0\n");
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), -ENOENT, "0: no legacy line");
	fake_put(root, "sys/bus/pci/devices/0000:00:03.0/irq", "17\n");
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), 17);
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 1), -EINVAL, "INTx has vector 0 only");
	fake_put(root, "proc/irq/17/smp_affinity_list", "0-1\n");
	cr_assert_eq(unic_pci_irq_affinity_set(dev, 0, 0), 17);
	cr_assert_str_eq(fake_get(root, "proc/irq/17/smp_affinity_list", buf, sizeof(buf)), "0\n");
	unic_pci_close(dev);
}

/*
 * A user who is not root cannot write smp_affinity_list (0644, root's):
 * the error says so and gives the command to run as root. As root, the
 * call is made in a child that has become nobody; the file is 0444 so that
 * a run of the test by a user who owns it is refused too.
 */
Test(bus, moving_an_interrupt_as_another_user_than_root_says_to_run_as_root)
{
	struct unic_pci_device *dev = open_with_msix(2);
	char path[512], msg[sizeof(logbuf)];
	int fds[2], rc = 0, st;
	ssize_t n;
	pid_t pid;

	fake_put(root, "proc/interrupts", interrupts_2cpu);
	fake_put(root, "proc/irq/24/smp_affinity_list", "0-1\n");
	snprintf(path, sizeof(path), "%s/proc/irq/24/smp_affinity_list", root);
	cr_assert_eq(chmod(path, 0444), 0);
	cr_assert_eq(chmod(root, 0755), 0, "nobody must reach the file to be refused by its mode");
	cr_assert_eq(pipe(fds), 0);
	logbuf[0] = '\0';
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		close(fds[0]);
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		rc = unic_pci_irq_affinity_set(dev, 0, 1);
		if (write(fds[1], &rc, sizeof(rc)) != (ssize_t)sizeof(rc) ||
		    write(fds[1], logbuf, strlen(logbuf) + 1) < 0)
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &rc, sizeof(rc)), (ssize_t)sizeof(rc));
	n = read(fds[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	cr_assert_eq(rc, -EACCES, "rc %d; log: %s", rc, msg);
	cr_assert_not_null(strstr(msg, "only root can move an interrupt"), "%s", msg);
	cr_assert_not_null(strstr(msg, "echo 1 > "), "%s", msg);
	cr_assert_not_null(strstr(msg, "proc/irq/24/smp_affinity_list"), "%s", msg);
	unic_pci_close(dev);
}
