/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bus layer's access part without a kernel: a fake sysfs tree
 * (fake_sysfs.c) and a fake VFIO behind struct bus_sys, which records the
 * calls. Covers open refusals and their messages, group viability, the
 * no-IOMMU rules, the DMA listener with its IOVA window, the memlock
 * message; the fixtures shared by test_bus_*.c (bus_fixture.h). The device,
 * release, probe and IRQ affinity tests are in test_bus_device.c,
 * test_bus_probe.c and test_bus_irq.c.
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
#include "bus_fixture.h"

/* ---- a fake VFIO ---- */


struct fake_vfio fk;

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

/* ---- fixtures ---- */

char root[256];
struct unic_mem *mem;
struct unic_bus *bus;

const struct fake_dev nic_vfio = {
	.bdf = "0000:00:03.0", .vendor = 0x8086, .device = 0x10d3, .class_code = 0x020000,
	.numa_node = -1, .iommu_group = 7, .driver = "vfio-pci",
};

void dev_file(const char *name)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "dev/vfio/%s", name);
	fake_put(root, rel, "");
}

struct unic_bus *make_bus(bool noiommu_ok)
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
