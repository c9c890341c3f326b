/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VFIO access: one container per bus context (type1, or no-IOMMU when asked
 * for), groups opened on demand, the device fd and its regions, DMA mapping
 * of every memory segment through a lib/mem listener, reset, interrupts and
 * the device-request IRQ.
 *
 * The kernel's interface is linux/vfio.h and
 * Documentation/driver-api/vfio.rst; every call goes through bus->sys so the
 * unit tests can stand in for the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/vfio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <unic/log.h>
#include <unic/mem.h>

#include "bus_private.h"

/* The top of a 47-bit user address space: IOVA = VA needs a range up there. */
#define VFIO_USER_VA_TOP ((UINT64_C(1) << 47) - 1)

#define SYS(bus, call, ...) ((bus)->sys.call((bus)->sys.ctx, __VA_ARGS__))

static int vfio_ioctl(struct unic_bus *bus, int fd, unsigned long req, void *arg)
{
	return SYS(bus, ioctl, fd, req, arg);
}

static bool file_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* ---- the container ---- */

static int container_open(struct unic_bus *bus)
{
	char path[PATH_MAX];
	int fd, rc;

	if (bus->container >= 0)
		return 0;
	rc = bus_path(bus, path, sizeof(path), "%s/vfio/vfio", bus->dev_root);
	if (rc < 0)
		return rc;
	fd = SYS(bus, open, path, O_RDWR);
	if (fd == -ENOENT) {
		UNIC_LOG(ERR, BUS, "%s does not exist: expected the vfio module to be loaded; run: modprobe vfio-pci",
			 path);
		return -ENODEV;
	}
	if (fd < 0) {
		UNIC_LOG(ERR, BUS, "cannot open %s: %s", path, strerror(-fd));
		return fd;
	}
	rc = vfio_ioctl(bus, fd, VFIO_GET_API_VERSION, NULL);
	if (rc != VFIO_API_VERSION) {
		UNIC_LOG(ERR, BUS, "%s speaks VFIO API version %d, expected %d", path, rc,
			 VFIO_API_VERSION);
		SYS(bus, close, fd);
		return -ENOTSUP;
	}
	bus->container = fd;
	return 0;
}

/* ---- DMA: the memory listener ---- */

static void log_memlock(size_t len)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0) {
		UNIC_LOG(ERR, BUS, "pinning %zu bytes for DMA failed, as when the memlock limit (RLIMIT_MEMLOCK) is too low; raise it: ulimit -l unlimited",
			 len);
		return;
	}
	if (rl.rlim_cur == RLIM_INFINITY)
		UNIC_LOG(ERR, BUS, "pinning %zu bytes for DMA failed although RLIMIT_MEMLOCK is unlimited: the system is out of memory to pin",
			 len);
	else
		UNIC_LOG(ERR, BUS, "pinning %zu bytes for DMA failed: the memlock limit (RLIMIT_MEMLOCK) is %llu bytes (ulimit -l shows %llu KiB), expected room for every DMA segment; raise it: ulimit -l unlimited (root), or a memlock line in /etc/security/limits.conf for this user",
			 len, (unsigned long long)rl.rlim_cur, (unsigned long long)rl.rlim_cur / 1024);
}

static int dma_on_add(void *ctx, const struct unic_mem_seg *seg)
{
	struct unic_bus *bus = ctx;
	struct vfio_iommu_type1_dma_map map = {
		.argsz = sizeof(map),
		.flags = VFIO_DMA_MAP_FLAG_READ | VFIO_DMA_MAP_FLAG_WRITE,
		.vaddr = (uintptr_t)seg->va,
		.iova = seg->iova,
		.size = seg->len,
	};
	int rc = vfio_ioctl(bus, bus->container, VFIO_IOMMU_MAP_DMA, &map);

	if (rc == -ENOMEM || rc == -EPERM) {
		log_memlock(seg->len);
		return rc;
	}
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "VFIO_IOMMU_MAP_DMA of segment %u (%zu bytes at VA %p) at IOVA %#" PRIx64
			 " failed: %s; the usable IOVA window is [%#" PRIx64 ", %#" PRIx64 "]",
			 seg->id, seg->len, seg->va, seg->iova, strerror(-rc), bus->iova_lo,
			 bus->iova_hi);
		return rc;
	}
	bus->nb_dma_maps++;
	UNIC_LOG(DEBUG, BUS, "DMA map: segment %u, %zu bytes, VA %p -> IOVA %#" PRIx64, seg->id,
		 seg->len, seg->va, seg->iova);
	return 0;
}

static void dma_on_remove(void *ctx, const struct unic_mem_seg *seg)
{
	struct unic_bus *bus = ctx;
	struct vfio_iommu_type1_dma_unmap unmap = {
		.argsz = sizeof(unmap),
		.iova = seg->iova,
		.size = seg->len,
	};
	int rc = vfio_ioctl(bus, bus->container, VFIO_IOMMU_UNMAP_DMA, &unmap);

	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "VFIO_IOMMU_UNMAP_DMA of segment %u at IOVA %#" PRIx64 " failed: %s",
			 seg->id, seg->iova, strerror(-rc));
		return;
	}
	bus->nb_dma_maps--;
	UNIC_LOG(DEBUG, BUS, "DMA unmap: segment %u at IOVA %#" PRIx64, seg->id, seg->iova);
}

/*
 * The usable IOVA ranges of the container (VFIO_IOMMU_GET_INFO, capability
 * VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE): the IOMMU's address width less the
 * reserved regions (the MSI window). Picks the largest range.
 * @return 1 and the range, 0 if the kernel reports none, -errno.
 */
static int iova_range(struct unic_bus *bus, uint64_t *lo, uint64_t *hi, unsigned *nb_ranges)
{
	struct vfio_iommu_type1_info *info;
	uint32_t argsz = sizeof(*info), off;
	int rc, found = 0;

	info = calloc(1, argsz);
	if (info == NULL)
		return -ENOMEM;
	info->argsz = argsz;
	rc = vfio_ioctl(bus, bus->container, VFIO_IOMMU_GET_INFO, info);
	if (rc == 0 && info->argsz > argsz) {
		/* Capabilities follow; ask again with room for them. */
		struct vfio_iommu_type1_info *big = realloc(info, info->argsz);

		if (big == NULL) {
			free(info);
			return -ENOMEM;
		}
		info = big;
		argsz = info->argsz;
		memset(info, 0, argsz);
		info->argsz = argsz;
		rc = vfio_ioctl(bus, bus->container, VFIO_IOMMU_GET_INFO, info);
	}
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "VFIO_IOMMU_GET_INFO: %s", strerror(-rc));
		free(info);
		return rc;
	}
	*nb_ranges = 0;
	if (!(info->flags & VFIO_IOMMU_INFO_CAPS))
		goto out;
	/* The chain: each header's next is an offset from the start of info;
	 * 0 ends it. Bounds are checked since the layout comes from outside. */
	for (off = info->cap_offset; off != 0;) {
		struct vfio_info_cap_header h;

		if (off < sizeof(*info) || off > argsz - sizeof(h))
			break;
		/* Copied out, not cast: nothing promises the offsets are
		 * aligned for 64-bit fields. */
		memcpy(&h, (char *)info + off, sizeof(h));
		if (h.id == VFIO_IOMMU_TYPE1_INFO_CAP_IOVA_RANGE) {
			struct vfio_iommu_type1_info_cap_iova_range cap;
			const char *ranges = (char *)info + off + sizeof(cap);

			if (off + sizeof(cap) > argsz)
				break;
			memcpy(&cap, (char *)info + off, sizeof(cap));
			if (off + sizeof(cap) + (uint64_t)cap.nr_iovas * sizeof(struct vfio_iova_range) > argsz)
				break;
			*nb_ranges = cap.nr_iovas;
			for (uint32_t i = 0; i < cap.nr_iovas; i++) {
				struct vfio_iova_range r;

				memcpy(&r, ranges + i * sizeof(r), sizeof(r));
				UNIC_LOG(DEBUG, BUS, "usable IOVA range %u: [%#llx, %#llx]", i,
					 (unsigned long long)r.start, (unsigned long long)r.end);
				if (r.end < r.start)
					continue;
				if (!found || r.end - r.start > *hi - *lo) {
					*lo = r.start;
					*hi = r.end;
					found = 1;
				}
			}
			break;
		}
		if (h.next <= off)
			break;  /* a loop, or the end */
		off = h.next;
	}
out:
	free(info);
	return found;
}

static unsigned width_bits(uint64_t hi)
{
	unsigned bits = 0;

	while (bits < 64 && (hi >> bits) != 0)
		bits++;
	return bits;
}

/* Type1 set up: choose the IOVA window, then map every segment. */
static int dma_setup(struct unic_bus *bus)
{
	struct unic_mem_listener l = { .on_add = dma_on_add, .on_remove = dma_on_remove, .ctx = bus };
	uint64_t lo = 0, hi = UINT64_MAX;
	unsigned nb_ranges = 0;
	int rc;

	rc = iova_range(bus, &lo, &hi, &nb_ranges);
	if (rc < 0)
		return rc;
	if (unic_mem_iova_mode(bus->mem) == UNIC_IOVA_PA) {
		UNIC_LOG(INFO, BUS, "DMA: IOVA = PA (the memory is in PA mode); segments are mapped at their physical addresses");
	} else if (rc == 0) {
		UNIC_LOG(INFO, BUS, "DMA: the kernel reports no usable IOVA ranges (VFIO_IOMMU_GET_INFO has no IOVA-range capability); using IOVA = VA");
	} else {
		bus->iova_lo = lo;
		bus->iova_hi = hi;
		rc = unic_mem_set_iova_window(bus->mem, lo, hi);
		if (rc < 0) {
			UNIC_LOG(ERR, BUS, "DMA: the IOMMU can map IOVAs [%#" PRIx64 ", %#" PRIx64 "] only, and memory allocated earlier lies outside; open the device before allocating DMA memory",
				 lo, hi);
			return rc;
		}
		if (hi >= VFIO_USER_VA_TOP)
			UNIC_LOG(INFO, BUS, "DMA: IOVA = VA (the largest of %u usable IOVA ranges, [%#" PRIx64 ", %#" PRIx64 "], %u-bit, covers the process's addresses)",
				 nb_ranges, lo, hi, width_bits(hi));
		else
			UNIC_LOG(INFO, BUS, "DMA: IOVAs allocated inside [%#" PRIx64 ", %#" PRIx64 "] (the IOMMU's %u-bit address width is below the process's 47-bit addresses, so IOVA = VA does not fit)",
				 lo, hi, width_bits(hi));
	}
	rc = unic_mem_listen(bus->mem, &l);
	if (rc < 0)
		return rc;
	bus->listener = rc;
	bus->dma_listening = true;
	return 0;
}

/* Set the IOMMU model once the first group is in the container. */
static int container_set_iommu(struct unic_bus *bus, bool noiommu, const char *bdf)
{
	int type, rc;

	if (noiommu) {
		if (vfio_ioctl(bus, bus->container, VFIO_CHECK_EXTENSION,
			       (void *)(uintptr_t)VFIO_NOIOMMU_IOMMU) <= 0) {
			UNIC_LOG(ERR, BUS, "%s: the kernel offers no VFIO no-IOMMU container (VFIO_NOIOMMU_IOMMU); it needs CONFIG_VFIO_NOIOMMU and enable_unsafe_noiommu_mode=1; use UIO instead: unic-devbind --bind uio_pci_generic %s",
				 bdf, bdf);
			return -ENOTSUP;
		}
		if (unic_mem_iova_mode(bus->mem) != UNIC_IOVA_PA) {
			UNIC_LOG(ERR, BUS, "%s: VFIO no-IOMMU mode: the device sees physical addresses, so the memory must be in PA mode (found VA mode); create it with iova_mode = UNIC_IOVA_PA and hugepages (--iova-mode pa), as root",
				 bdf);
			return -EINVAL;
		}
		rc = vfio_ioctl(bus, bus->container, VFIO_SET_IOMMU, (void *)(uintptr_t)VFIO_NOIOMMU_IOMMU);
		if (rc < 0) {
			UNIC_LOG(ERR, BUS, "VFIO_SET_IOMMU(no-IOMMU): %s", strerror(-rc));
			return rc;
		}
		bus->ctype = BUS_CONTAINER_NOIOMMU;
		UNIC_LOG(WARNING, BUS, "VFIO no-IOMMU mode: UNSAFE, the device can DMA to any physical address and nothing checks it; DMA uses IOVA = PA");
		return 0;
	}
	if (vfio_ioctl(bus, bus->container, VFIO_CHECK_EXTENSION, (void *)(uintptr_t)VFIO_TYPE1v2_IOMMU) > 0)
		type = VFIO_TYPE1v2_IOMMU;
	else if (vfio_ioctl(bus, bus->container, VFIO_CHECK_EXTENSION, (void *)(uintptr_t)VFIO_TYPE1_IOMMU) > 0)
		type = VFIO_TYPE1_IOMMU;
	else {
		UNIC_LOG(ERR, BUS, "the VFIO container offers no type1 IOMMU: expected the vfio_iommu_type1 module; run: modprobe vfio_iommu_type1");
		return -ENOTSUP;
	}
	rc = vfio_ioctl(bus, bus->container, VFIO_SET_IOMMU, (void *)(uintptr_t)type);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "VFIO_SET_IOMMU(type1): %s", strerror(-rc));
		return rc;
	}
	bus->ctype = BUS_CONTAINER_TYPE1;
	rc = dma_setup(bus);
	if (rc < 0) {
		bus->ctype = BUS_CONTAINER_NONE;
		return rc;
	}
	return 0;
}

void bus_vfio_teardown(struct unic_bus *bus)
{
	if (bus->dma_listening) {
		unic_mem_unlisten(bus->mem, bus->listener);
		bus->dma_listening = false;
	}
	if (bus->container >= 0) {
		SYS(bus, close, bus->container);
		bus->container = -1;
	}
	bus->ctype = BUS_CONTAINER_NONE;
}

/* ---- groups ---- */

static void log_not_viable(struct unic_pci_device *dev)
{
	const struct unic_pci_info *info = &dev->info;
	char list[UNIC_PCI_MAX_GROUP * 48] = "";
	size_t off = 0;

	for (unsigned i = 0; i < info->nb_group_members && i < UNIC_PCI_MAX_GROUP; i++) {
		struct unic_pci_info m;
		const char *drv = "?";

		if (unic_pci_scan_one(dev->bus->sysfs_root, info->group_members[i], &m) == 0)
			drv = m.driver[0] ? m.driver : "no driver";
		if (off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s (%s)",
						off ? ", " : "", info->group_members[i], drv);
	}
	UNIC_LOG(ERR, BUS, "%s: IOMMU group %d is not viable: every device in it must be bound to vfio-pci (or to no driver); members: %s; bind each with: unic-devbind --bind vfio-pci BDF",
		 info->bdf, info->iommu_group, list[0] ? list : "(unknown)");
}

/* Why there is no group file for a device, when no-IOMMU was asked for. */
static void log_no_noiommu(struct unic_pci_device *dev)
{
	char param[PATH_MAX];

	if (bus_path(dev->bus, param, sizeof(param),
		     "%s/sys/module/vfio/parameters/enable_unsafe_noiommu_mode", dev->bus->sysfs_root) == 0 &&
	    file_exists(param))
		UNIC_LOG(ERR, BUS, "%s: no IOMMU group and no no-IOMMU group: the kernel supports VFIO no-IOMMU but it is off; run: echo 1 > /sys/module/vfio/parameters/enable_unsafe_noiommu_mode, then bind the device again (or use UIO: unic-devbind --bind uio_pci_generic %s)",
			 dev->info.bdf, dev->info.bdf);
	else
		UNIC_LOG(ERR, BUS, "%s: no IOMMU group, and this kernel has no VFIO no-IOMMU mode (built without CONFIG_VFIO_NOIOMMU); use UIO instead: unic-devbind --bind uio_pci_generic %s",
			 dev->info.bdf, dev->info.bdf);
}

static int group_open(struct unic_pci_device *dev)
{
	struct unic_bus *bus = dev->bus;
	struct vfio_group_status st = { .argsz = sizeof(st) };
	char path[PATH_MAX], noiommu_path[PATH_MAX];
	struct bus_group *g;
	bool noiommu;
	int fd, rc;

	if (dev->info.iommu_group < 0) {
		if (bus->allow_noiommu)
			log_no_noiommu(dev);
		else
			UNIC_LOG(ERR, BUS, "%s is bound to vfio-pci but has no IOMMU group: expected an IOMMU (intel_iommu=on / amd_iommu=on on the kernel command line); without one use UIO: unic-devbind --bind uio_pci_generic %s",
				 dev->info.bdf, dev->info.bdf);
		return -ENODEV;
	}
	for (g = bus->groups; g != NULL; g = g->next) {
		if (g->id == dev->info.iommu_group) {
			g->users++;
			dev->group = g;
			return 0;
		}
	}
	rc = bus_path(bus, path, sizeof(path), "%s/vfio/%d", bus->dev_root, dev->info.iommu_group);
	if (rc == 0)
		rc = bus_path(bus, noiommu_path, sizeof(noiommu_path), "%s/vfio/noiommu-%d",
			      bus->dev_root, dev->info.iommu_group);
	if (rc < 0)
		return rc;
	noiommu = !file_exists(path) && file_exists(noiommu_path);
	if (noiommu) {
		if (!bus->allow_noiommu) {
			UNIC_LOG(ERR, BUS, "%s: only a no-IOMMU VFIO group (%s) exists: expected an IOMMU. No-IOMMU mode is unsafe (the device can write anywhere in memory) and is used only when asked for: set allow_noiommu in struct unic_bus_conf; or use UIO: unic-devbind --bind uio_pci_generic %s",
				 dev->info.bdf, noiommu_path, dev->info.bdf);
			return -ENOTSUP;
		}
		snprintf(path, sizeof(path), "%s", noiommu_path);
	}
	if (bus->ctype != BUS_CONTAINER_NONE &&
	    (bus->ctype == BUS_CONTAINER_NOIOMMU) != noiommu) {
		UNIC_LOG(ERR, BUS, "%s: its group is %s, but this bus's container is %s already; one container cannot mix them",
			 dev->info.bdf, noiommu ? "no-IOMMU" : "IOMMU-backed",
			 bus->ctype == BUS_CONTAINER_NOIOMMU ? "no-IOMMU" : "type1");
		return -EINVAL;
	}
	rc = container_open(bus);
	if (rc < 0)
		return rc;

	fd = SYS(bus, open, path, O_RDWR);
	if (fd == -EACCES || fd == -EPERM) {
		UNIC_LOG(ERR, BUS, "%s: cannot open %s: %s; give this user the group file: chown %s %s (or a udev rule), and check the memlock limit (ulimit -l); see docs/pci.md",
			 dev->info.bdf, path, strerror(-fd), getenv("USER") ? getenv("USER") : "USER", path);
		return fd;
	}
	if (fd == -EBUSY) {
		UNIC_LOG(ERR, BUS, "%s: %s is busy: another process holds IOMMU group %d (VFIO lets one process at a time)",
			 dev->info.bdf, path, dev->info.iommu_group);
		return fd;
	}
	if (fd < 0) {
		UNIC_LOG(ERR, BUS, "%s: cannot open %s: %s", dev->info.bdf, path, strerror(-fd));
		return fd;
	}
	rc = vfio_ioctl(bus, fd, VFIO_GROUP_GET_STATUS, &st);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: VFIO_GROUP_GET_STATUS: %s", path, strerror(-rc));
		goto close_fd;
	}
	if (!(st.flags & VFIO_GROUP_FLAGS_VIABLE)) {
		log_not_viable(dev);
		rc = -EINVAL;
		goto close_fd;
	}
	rc = vfio_ioctl(bus, fd, VFIO_GROUP_SET_CONTAINER, &bus->container);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: VFIO_GROUP_SET_CONTAINER: %s", path, strerror(-rc));
		goto close_fd;
	}
	if (bus->ctype == BUS_CONTAINER_NONE) {
		rc = container_set_iommu(bus, noiommu, dev->info.bdf);
		if (rc < 0)
			goto close_fd;
	}
	g = calloc(1, sizeof(*g));
	if (g == NULL) {
		rc = -ENOMEM;
		goto close_fd;
	}
	g->id = dev->info.iommu_group;
	g->noiommu = noiommu;
	g->fd = fd;
	g->users = 1;
	g->next = bus->groups;
	bus->groups = g;
	dev->group = g;
	return 0;

close_fd:
	SYS(bus, close, fd);
	if (bus->groups == NULL)
		bus_vfio_teardown(bus);
	return rc;
}

static void group_put(struct unic_pci_device *dev)
{
	struct unic_bus *bus = dev->bus;
	struct bus_group *g = dev->group, **pp;

	dev->group = NULL;
	if (g == NULL || --g->users > 0)
		return;
	for (pp = &bus->groups; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	}
	/* The last group leaving the container takes its IOMMU with it:
	 * unmap and close first; the next open sets it up again. */
	if (bus->groups == NULL)
		bus_vfio_teardown(bus);
	SYS(bus, close, g->fd);
	free(g);
}

/* ---- the device ---- */

static int region_info(struct unic_pci_device *dev, unsigned index, struct bus_region *r)
{
	struct vfio_region_info ri = { .argsz = sizeof(ri), .index = index };
	int rc = vfio_ioctl(dev->bus, dev->fd, VFIO_DEVICE_GET_REGION_INFO, &ri);

	if (rc < 0)
		return rc;
	r->offset = ri.offset;
	r->size = ri.size;
	r->flags = ri.flags;
	return 0;
}

static int set_irqs(struct unic_pci_device *dev, unsigned index, uint32_t flags,
		    unsigned start, unsigned count, const int *fds)
{
	size_t sz = sizeof(struct vfio_irq_set) + (fds ? count * sizeof(int32_t) : 0);
	struct vfio_irq_set *set = calloc(1, sz);
	int rc;

	if (set == NULL)
		return -ENOMEM;
	set->argsz = (uint32_t)sz;
	set->flags = flags;
	set->index = index;
	set->start = start;
	set->count = count;
	if (fds)
		memcpy(set->data, fds, count * sizeof(int32_t));
	rc = vfio_ioctl(dev->bus, dev->fd, VFIO_DEVICE_SET_IRQS, set);
	free(set);
	return rc;
}

static int irq_info_count(struct unic_pci_device *dev, unsigned index)
{
	struct vfio_irq_info ii = { .argsz = sizeof(ii), .index = index };
	int rc;

	if (index >= dev->num_irqs)
		return 0;
	rc = vfio_ioctl(dev->bus, dev->fd, VFIO_DEVICE_GET_IRQ_INFO, &ii);
	return rc < 0 ? rc : (int)ii.count;
}

/* Ask the kernel to signal release_fd when it wants the device back. */
static void req_irq_register(struct unic_pci_device *dev)
{
	int rc;

	if (irq_info_count(dev, VFIO_PCI_REQ_IRQ_INDEX) <= 0) {
		UNIC_LOG(NOTICE, BUS, "%s: the device offers no request IRQ: an unbind will wait until this process closes it",
			 dev->info.bdf);
		return;
	}
	rc = set_irqs(dev, VFIO_PCI_REQ_IRQ_INDEX, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
		      0, 1, &dev->release_fd);
	if (rc < 0) {
		UNIC_LOG(WARNING, BUS, "%s: cannot register the device-request eventfd: %s; an unbind will wait until this process closes the device",
			 dev->info.bdf, strerror(-rc));
		return;
	}
	dev->req_irq = true;
}

static int vfio_open(struct unic_pci_device *dev)
{
	struct vfio_device_info di = { .argsz = sizeof(di) };
	struct unic_bus *bus = dev->bus;
	int fd, rc;

	rc = group_open(dev);
	if (rc < 0)
		return rc;
	fd = vfio_ioctl(bus, dev->group->fd, VFIO_GROUP_GET_DEVICE_FD, dev->info.bdf);
	if (fd < 0) {
		UNIC_LOG(ERR, BUS, "%s: VFIO_GROUP_GET_DEVICE_FD: %s%s", dev->info.bdf, strerror(-fd),
			 fd == -EBUSY ? " (another process, or this one, has it open)" : "");
		rc = fd;
		goto put_group;
	}
	dev->fd = fd;
	rc = vfio_ioctl(bus, fd, VFIO_DEVICE_GET_INFO, &di);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: VFIO_DEVICE_GET_INFO: %s", dev->info.bdf, strerror(-rc));
		goto close_fd;
	}
	if (!(di.flags & VFIO_DEVICE_FLAGS_PCI) || di.num_regions <= VFIO_PCI_CONFIG_REGION_INDEX) {
		UNIC_LOG(ERR, BUS, "%s: VFIO says it is not a PCI device (flags %#x, %u regions)",
			 dev->info.bdf, di.flags, di.num_regions);
		rc = -ENODEV;
		goto close_fd;
	}
	dev->dev_flags = di.flags;
	dev->num_irqs = di.num_irqs;
	for (unsigned i = 0; i < BUS_MAX_BARS; i++) {
		rc = region_info(dev, VFIO_PCI_BAR0_REGION_INDEX + i, &dev->bars[i]);
		if (rc < 0) {
			UNIC_LOG(ERR, BUS, "%s: VFIO_DEVICE_GET_REGION_INFO(BAR%u): %s", dev->info.bdf,
				 i, strerror(-rc));
			goto close_fd;
		}
	}
	rc = region_info(dev, VFIO_PCI_CONFIG_REGION_INDEX, &dev->cfg);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: VFIO_DEVICE_GET_REGION_INFO(config): %s", dev->info.bdf,
			 strerror(-rc));
		goto close_fd;
	}
	if (bus->ctype == BUS_CONTAINER_NOIOMMU)
		dev->access = UNIC_PCI_ACCESS_VFIO_NOIOMMU;
	req_irq_register(dev);
	return 0;

close_fd:
	SYS(bus, close, fd);
	dev->fd = -1;
put_group:
	group_put(dev);
	return rc;
}

static int vfio_irq_disable(struct unic_pci_device *dev)
{
	int rc = set_irqs(dev, (unsigned)dev->irq_type,
			  VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0, NULL);

	if (rc < 0)
		UNIC_LOG(WARNING, BUS, "%s: disabling interrupts: %s", dev->info.bdf, strerror(-rc));
	for (unsigned i = 0; i < dev->nb_vec; i++)
		close(dev->irq_fds[i]);
	dev->nb_vec = 0;
	dev->irq_type = -1;
	return rc < 0 ? rc : 0;
}

static void vfio_release(struct unic_pci_device *dev)
{
	struct unic_bus *bus = dev->bus;

	if (dev->irq_type >= 0)
		vfio_irq_disable(dev);
	if (dev->req_irq) {
		set_irqs(dev, VFIO_PCI_REQ_IRQ_INDEX,
			 VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_TRIGGER, 0, 0, NULL);
		dev->req_irq = false;
	}
	for (unsigned i = 0; i < BUS_MAX_BARS; i++) {
		if (dev->bars[i].va != NULL) {
			SYS(bus, munmap, dev->bars[i].va, (size_t)dev->bars[i].size);
			dev->bars[i].va = NULL;
		}
	}
	if (dev->fd >= 0) {
		SYS(bus, close, dev->fd);
		dev->fd = -1;
	}
	group_put(dev);
}

static int vfio_bar_map(struct unic_pci_device *dev, unsigned bar)
{
	struct bus_region *r = &dev->bars[bar];
	void *va;
	int rc;

	if (!(r->flags & VFIO_REGION_INFO_FLAG_MMAP)) {
		UNIC_LOG(INFO, BUS, "%s: BAR%u cannot be mmapped (an I/O port BAR, or the kernel forbids it); use unic_pci_bar_read32/write32",
			 dev->info.bdf, bar);
		return -ENOTSUP;
	}
	rc = SYS(dev->bus, mmap, (size_t)r->size, PROT_READ | PROT_WRITE, dev->fd,
		 (off_t)r->offset, &va);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: mmap of BAR%u (%llu bytes): %s; use unic_pci_bar_read32/write32",
			 dev->info.bdf, bar, (unsigned long long)r->size, strerror(-rc));
		return rc == -EINVAL ? -ENOTSUP : rc;
	}
	r->va = va;
	return 0;
}

static int region_rw(struct unic_pci_device *dev, const struct bus_region *r, uint64_t off,
		     void *buf, unsigned len, bool write)
{
	ssize_t n;

	if (!(r->flags & (write ? VFIO_REGION_INFO_FLAG_WRITE : VFIO_REGION_INFO_FLAG_READ)))
		return -EACCES;
	if (write)
		n = SYS(dev->bus, pwrite, dev->fd, buf, len, (off_t)(r->offset + off));
	else
		n = SYS(dev->bus, pread, dev->fd, buf, len, (off_t)(r->offset + off));
	if (n < 0)
		return (int)n;
	return n == (ssize_t)len ? (int)n : -EIO;
}

static int vfio_bar_rw(struct unic_pci_device *dev, unsigned bar, uint64_t off, void *buf,
		       unsigned len, bool write)
{
	int rc = region_rw(dev, &dev->bars[bar], off, buf, len, write);

	return rc < 0 ? rc : 0;
}

static int vfio_cfg_rw(struct unic_pci_device *dev, unsigned off, void *buf, unsigned len,
		       bool write)
{
	if (off >= dev->cfg.size || len > dev->cfg.size - off)
		return -EINVAL;
	return region_rw(dev, &dev->cfg, off, buf, len, write);
}

static struct bus_group *group_by_id(struct unic_bus *bus, int id)
{
	struct bus_group *g;

	for (g = bus->groups; g != NULL; g = g->next)
		if (g->id == id)
			return g;
	return NULL;
}

/*
 * The kernel returns ENOTTY from a bus reset it did perform when the link
 * above does not report itself active within a second afterwards (it logs
 * "Data Link Layer Link Active not set in 1000 msec"); QEMU 7.2's
 * pcie-root-port under TCG does that every time. The device is back if its
 * config space reads its own ids again.
 */
static int hot_reset_check(struct unic_pci_device *dev)
{
	uint32_t ids = 0, want = (uint32_t)dev->info.device << 16 | dev->info.vendor;
	int rc = region_rw(dev, &dev->cfg, 0, &ids, sizeof(ids), false);

	if (rc < 0 || ids != want) {
		UNIC_LOG(ERR, BUS, "%s: after a bus reset the kernel could not confirm the link (ENOTTY) and config space reads %#x, expected %#x: the device did not come back",
			 dev->info.bdf, ids, want);
		return -EIO;
	}
	UNIC_LOG(WARNING, BUS, "%s: the kernel did the bus reset but could not confirm the link came back in time (ENOTTY); the device answers with its ids again, so it is taken as reset",
		 dev->info.bdf);
	return 0;
}

/* A bus reset: every device it touches must be in a group this bus holds. */
static int hot_reset(struct unic_pci_device *dev)
{
	struct vfio_pci_hot_reset_info *info;
	struct vfio_pci_hot_reset *req = NULL;
	struct unic_bus *bus = dev->bus;
	uint32_t count, n = 0;
	int rc;

	info = calloc(1, sizeof(*info));
	if (info == NULL)
		return -ENOMEM;
	info->argsz = sizeof(*info);
	rc = vfio_ioctl(bus, dev->fd, VFIO_DEVICE_GET_PCI_HOT_RESET_INFO, info);
	if (rc < 0 && rc != -ENOSPC) {
		UNIC_LOG(WARNING, BUS, "%s: no reset available: the device offers no function reset and no bus reset (VFIO_DEVICE_GET_PCI_HOT_RESET_INFO: %s); the driver reprograms every register itself",
			 dev->info.bdf, strerror(-rc));
		free(info);
		return -ENOTSUP;
	}
	count = info->count;
	free(info);
	info = calloc(1, sizeof(*info) + count * sizeof(info->devices[0]));
	req = calloc(1, sizeof(*req) + count * sizeof(req->group_fds[0]));
	if (info == NULL || req == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	info->argsz = (uint32_t)(sizeof(*info) + count * sizeof(info->devices[0]));
	rc = vfio_ioctl(bus, dev->fd, VFIO_DEVICE_GET_PCI_HOT_RESET_INFO, info);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: VFIO_DEVICE_GET_PCI_HOT_RESET_INFO: %s", dev->info.bdf, strerror(-rc));
		goto out;
	}
	for (uint32_t i = 0; i < info->count && i < count; i++) {
		const struct vfio_pci_dependent_device *d = &info->devices[i];
		struct bus_group *g = group_by_id(bus, (int)d->group_id);
		bool dup = false;

		if (g == NULL) {
			UNIC_LOG(ERR, BUS, "%s: a bus reset would also reset %04x:%02x:%02x.%x (IOMMU group %u), which this process does not hold; open it too, or do without a reset",
				 dev->info.bdf, d->segment, d->bus, d->devfn >> 3, d->devfn & 7,
				 d->group_id);
			rc = -EBUSY;
			goto out;
		}
		for (uint32_t j = 0; j < n; j++)
			dup |= req->group_fds[j] == g->fd;
		if (!dup)
			req->group_fds[n++] = g->fd;
	}
	req->argsz = (uint32_t)(sizeof(*req) + n * sizeof(req->group_fds[0]));
	req->count = n;
	rc = vfio_ioctl(bus, dev->fd, VFIO_DEVICE_PCI_HOT_RESET, req);
	if (rc == -ENOTTY)
		rc = hot_reset_check(dev);
	if (rc < 0)
		UNIC_LOG(ERR, BUS, "%s: VFIO_DEVICE_PCI_HOT_RESET: %s", dev->info.bdf, strerror(-rc));
	else
		UNIC_LOG(INFO, BUS, "%s: reset by a bus reset (VFIO_DEVICE_PCI_HOT_RESET, %u device(s) on the bus)",
			 dev->info.bdf, info->count);
out:
	free(info);
	free(req);
	return rc < 0 ? rc : 0;
}

static int vfio_reset(struct unic_pci_device *dev)
{
	int rc;

	if (!(dev->dev_flags & VFIO_DEVICE_FLAGS_RESET))
		return hot_reset(dev);
	rc = vfio_ioctl(dev->bus, dev->fd, VFIO_DEVICE_RESET, NULL);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: VFIO_DEVICE_RESET: %s", dev->info.bdf, strerror(-rc));
		return rc;
	}
	UNIC_LOG(INFO, BUS, "%s: reset by VFIO_DEVICE_RESET (a function reset; some devices, QEMU's e1000e among them, ignore it)",
		 dev->info.bdf);
	return 0;
}

static int vfio_irq_count(struct unic_pci_device *dev, enum unic_pci_irq type)
{
	/* unic_pci_irq matches VFIO_PCI_{INTX,MSI,MSIX}_IRQ_INDEX. */
	return irq_info_count(dev, (unsigned)type);
}

static int vfio_irq_enable(struct unic_pci_device *dev, enum unic_pci_irq type,
			   unsigned nvec, int *fds)
{
	unsigned i;
	int rc;

	for (i = 0; i < nvec; i++) {
		dev->irq_fds[i] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (dev->irq_fds[i] < 0) {
			rc = -errno;
			goto close_fds;
		}
	}
	rc = set_irqs(dev, (unsigned)type, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER,
		      0, nvec, dev->irq_fds);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: VFIO_DEVICE_SET_IRQS (%u vector(s) of index %d): %s",
			 dev->info.bdf, nvec, (int)type, strerror(-rc));
		goto close_fds;
	}
	dev->irq_type = (int)type;
	dev->nb_vec = nvec;
	memcpy(fds, dev->irq_fds, nvec * sizeof(int));
	return 0;

close_fds:
	while (i-- > 0)
		close(dev->irq_fds[i]);
	return rc;
}

static int vfio_intx_unmask(struct unic_pci_device *dev)
{
	return set_irqs(dev, VFIO_PCI_INTX_IRQ_INDEX,
			VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK, 0, 1, NULL);
}

const struct bus_access_ops bus_vfio_ops = {
	.name = "VFIO",
	.open = vfio_open,
	.release = vfio_release,
	.bar_map = vfio_bar_map,
	.bar_rw = vfio_bar_rw,
	.cfg_rw = vfio_cfg_rw,
	.reset = vfio_reset,
	.irq_count = vfio_irq_count,
	.irq_enable = vfio_irq_enable,
	.irq_disable = vfio_irq_disable,
	.intx_unmask = vfio_intx_unmask,
};
