/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bus context: open dispatch by the driver a device is bound to
 * (vfio-pci: vfio.c, uio_pci_generic: uio.c), the calls every access method
 * shares, device release (the kernel's request, or a device gone), and
 * probe: ids matched against the tables of the drivers it is given, each
 * opened device handed to its driver's probe callback.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/mem.h>

#include "bus_private.h"
#include "unic_bus_driver.h"

#define PCI_COMMAND 0x04
#define PCI_COMMAND_MASTER 0x4

/* ---- the real system calls ---- */

static int sys_open(void *ctx, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC);

	(void)ctx;
	return fd < 0 ? -errno : fd;
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd) < 0 ? -errno : 0;
}

static int sys_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	int rc = ioctl(fd, req, arg);

	(void)ctx;
	return rc < 0 ? -errno : rc;
}

static int sys_mmap(void *ctx, size_t len, int prot, int fd, off_t off, void **va)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, off);

	(void)ctx;
	if (p == MAP_FAILED)
		return -errno;
	*va = p;
	return 0;
}

static int sys_munmap(void *ctx, void *va, size_t len)
{
	(void)ctx;
	return munmap(va, len) < 0 ? -errno : 0;
}

static ssize_t sys_pread(void *ctx, int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);

	(void)ctx;
	return n < 0 ? -errno : n;
}

static ssize_t sys_pwrite(void *ctx, int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	(void)ctx;
	return n < 0 ? -errno : n;
}

static const struct bus_sys bus_sys_real = {
	.open = sys_open,
	.close = sys_close,
	.ioctl = sys_ioctl,
	.mmap = sys_mmap,
	.munmap = sys_munmap,
	.pread = sys_pread,
	.pwrite = sys_pwrite,
};

/* ---- context ---- */

struct unic_bus *unic_bus_create(const struct unic_bus_conf *ucfg)
{
	struct unic_bus_conf cfg = { .sz = sizeof(cfg) };
	struct unic_bus *bus;
	int rc;

	if (ucfg == NULL || ucfg->sz < sizeof(size_t) || ucfg->sz > sizeof(cfg)) {
		UNIC_LOG(ERR, BUS, "bus config: expected sz = sizeof(struct unic_bus_conf) = %zu, got %zu",
			 sizeof(cfg), ucfg ? ucfg->sz : 0);
		errno = EINVAL;
		return NULL;
	}
	memcpy(&cfg, ucfg, ucfg->sz);
	if (cfg.mem == NULL) {
		UNIC_LOG(ERR, BUS, "bus config: a DMA memory context (mem) is required; create one with unic_mem_create()");
		errno = EINVAL;
		return NULL;
	}
	bus = calloc(1, sizeof(*bus));
	if (bus == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = pthread_mutex_init(&bus->lock, NULL);
	if (rc != 0) {
		free(bus);
		errno = rc;
		return NULL;
	}
	bus->mem = cfg.mem;
	bus->allow_noiommu = cfg.allow_noiommu;
	bus->sys = bus_sys_real;
	bus->container = -1;
	bus->sysfs_root = strdup(cfg.sysfs_root ? cfg.sysfs_root : "");
	bus->dev_root = strdup(cfg.dev_root ? cfg.dev_root : "/dev");
	if (bus->sysfs_root == NULL || bus->dev_root == NULL) {
		free(bus->sysfs_root);
		free(bus->dev_root);
		pthread_mutex_destroy(&bus->lock);
		free(bus);
		errno = ENOMEM;
		return NULL;
	}
	return bus;
}

int bus_sys_set(struct unic_bus *bus, const struct bus_sys *sys)
{
	int rc = 0;

	pthread_mutex_lock(&bus->lock);
	if (bus->devs != NULL || bus->container >= 0)
		rc = -EBUSY;
	else
		bus->sys = *sys;
	pthread_mutex_unlock(&bus->lock);
	return rc;
}

void unic_bus_destroy(struct unic_bus *bus)
{
	if (bus == NULL)
		return;
	while (bus->devs != NULL) {
		UNIC_LOG(INFO, BUS, "%s: still open at bus destroy; closing it", bus->devs->info.bdf);
		unic_pci_close(bus->devs);
	}
	pthread_mutex_lock(&bus->lock);
	bus_vfio_teardown(bus);
	pthread_mutex_unlock(&bus->lock);
	pthread_mutex_destroy(&bus->lock);
	free(bus->sysfs_root);
	free(bus->dev_root);
	free(bus);
}

int bus_path(const struct unic_bus *bus, char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	(void)bus;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int bus_dev_path(const struct unic_bus *bus, const struct unic_pci_device *dev,
		 char *buf, size_t len, const char *attr)
{
	return bus_path(bus, buf, len, "%s/sys/bus/pci/devices/%s/%s", bus->sysfs_root,
			dev->info.bdf, attr);
}

/* ---- open and close ---- */

static const char *bind_hint(const struct unic_pci_info *info, char *buf, size_t len)
{
	snprintf(buf, len, "unic-devbind --bind vfio-pci %s (or --bind uio_pci_generic %s without an IOMMU)",
		 info->bdf, info->bdf);
	return buf;
}

/* Which access method the bound driver gives, or -EBUSY with the reason. */
static int pick_access(const struct unic_pci_info *info, const struct bus_access_ops **ops,
		       enum unic_pci_access *access)
{
	char hint[160];

	if (strcmp(info->driver, "vfio-pci") == 0) {
		*ops = &bus_vfio_ops;
		*access = UNIC_PCI_ACCESS_VFIO;
		return 0;
	}
	if (strcmp(info->driver, "uio_pci_generic") == 0) {
		*ops = &bus_uio_ops;
		*access = UNIC_PCI_ACCESS_UIO;
		return 0;
	}
	if (info->driver[0] == '\0')
		UNIC_LOG(ERR, BUS, "%s (%04x:%04x): expected a device bound to vfio-pci or uio_pci_generic, found it bound to no driver; run: %s",
			 info->bdf, info->vendor, info->device, bind_hint(info, hint, sizeof(hint)));
	else
		UNIC_LOG(ERR, BUS, "%s (%04x:%04x): expected a device bound to vfio-pci or uio_pci_generic, found it bound to the kernel driver %s%s%s; run: %s",
			 info->bdf, info->vendor, info->device, info->driver,
			 info->ifname[0] ? ", interface " : "", info->ifname,
			 bind_hint(info, hint, sizeof(hint)));
	return -EBUSY;
}

static void release_handler(int fd, void *arg);

int unic_pci_open(struct unic_bus *bus, const char *bdf, struct unic_pci_device **out)
{
	struct unic_pci_device *dev, *d;
	struct unic_pci_addr addr;
	char norm[UNIC_PCI_BDF_LEN];
	int rc;

	if (out != NULL)
		*out = NULL;
	if (bus == NULL || bdf == NULL || out == NULL)
		return -EINVAL;
	if (unic_pci_addr_parse(bdf, &addr) < 0) {
		UNIC_LOG(ERR, BUS, "'%s': expected a PCI address DDDD:BB:DD.F or BB:DD.F", bdf);
		return -EINVAL;
	}
	unic_pci_addr_fmt(&addr, norm, sizeof(norm));
	dev = calloc(1, sizeof(*dev));
	if (dev == NULL)
		return -ENOMEM;
	dev->bus = bus;
	dev->fd = -1;
	dev->irq_type = -1;
	dev->release_fd = -1;
	dev->cfg.fd = -1;
	for (unsigned i = 0; i < BUS_MAX_BARS; i++)
		dev->bars[i].fd = -1;

	rc = unic_pci_scan_one(bus->sysfs_root, norm, &dev->info);
	if (rc == -ENOENT) {
		UNIC_LOG(ERR, BUS, "%s: no such PCI device in %s/sys/bus/pci/devices; list devices with: unic-devbind --status",
			 norm, bus->sysfs_root);
		rc = -ENODEV;
		goto free_dev;
	}
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: cannot read its sysfs entries: %s", norm, strerror(-rc));
		goto free_dev;
	}
	rc = pick_access(&dev->info, &dev->ops, &dev->access);
	if (rc < 0)
		goto free_dev;

	/* One eventfd per device carries release requests: the kernel's
	 * (registered as the VFIO request IRQ by vfio.c) and unic_pci_gone(). */
	dev->release_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (dev->release_fd < 0) {
		rc = -errno;
		goto free_dev;
	}

	pthread_mutex_lock(&bus->lock);
	for (d = bus->devs; d != NULL; d = d->next) {
		if (strcmp(d->info.bdf, dev->info.bdf) == 0) {
			pthread_mutex_unlock(&bus->lock);
			UNIC_LOG(ERR, BUS, "%s is already open in this bus context; share the device, or close it first",
				 dev->info.bdf);
			rc = -EBUSY;
			goto close_release;
		}
	}
	rc = dev->ops->open(dev);
	if (rc < 0) {
		pthread_mutex_unlock(&bus->lock);
		goto close_release;
	}
	dev->next = bus->devs;
	bus->devs = dev;
	pthread_mutex_unlock(&bus->lock);

	rc = unic_event_fd_add(dev->release_fd, release_handler, dev);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: cannot watch its release eventfd: %s", dev->info.bdf, strerror(-rc));
		unic_pci_close(dev);
		return rc;
	}
	UNIC_LOG(INFO, BUS, "%s (%04x:%04x) opened through %s%s", dev->info.bdf, dev->info.vendor,
		 dev->info.device, dev->ops->name,
		 dev->req_irq ? "; the kernel's device requests are watched" : "");
	*out = dev;
	return 0;

close_release:
	close(dev->release_fd);
free_dev:
	free(dev);
	return rc;
}

void bus_dev_release_locked(struct unic_pci_device *dev)
{
	if (dev->released)
		return;
	dev->ops->release(dev);
	__atomic_store_n(&dev->released, true, __ATOMIC_RELEASE);
}

void unic_pci_close(struct unic_pci_device *dev)
{
	struct unic_pci_device **pp;
	struct unic_bus *bus;

	if (dev == NULL)
		return;
	bus = dev->bus;
	/* Before the lock: this waits for a handler running in the control
	 * thread, which takes the lock itself. */
	unic_event_fd_remove(dev->release_fd);
	pthread_mutex_lock(&bus->lock);
	for (pp = &bus->devs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == dev) {
			*pp = dev->next;
			break;
		}
	}
	bus_dev_release_locked(dev);
	pthread_mutex_unlock(&bus->lock);
	close(dev->release_fd);
	UNIC_LOG(DEBUG, BUS, "%s closed", dev->info.bdf);
	free(dev);
}

const struct unic_pci_info *unic_pci_info(const struct unic_pci_device *dev)
{
	return &dev->info;
}

enum unic_pci_access unic_pci_access(const struct unic_pci_device *dev)
{
	return dev->access;
}

struct unic_mem *unic_pci_dma_mem(const struct unic_pci_device *dev)
{
	return dev->bus->mem;
}

/* ---- device release: the kernel's request, or a device gone ---- */

static void release_handler(int fd, void *arg)
{
	struct unic_pci_device *dev = arg;
	struct unic_bus *bus = dev->bus;
	bool gone = __atomic_load_n(&dev->gone, __ATOMIC_ACQUIRE);
	uint64_t count;

	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count))
		return;
	if (dev->released)
		return;
	if (gone)
		UNIC_LOG(WARNING, BUS, "%s: the device reads as all-ones (surprise removal or a dead link); stopping its user and releasing it",
			 dev->info.bdf);
	else
		UNIC_LOG(WARNING, BUS, "%s: the kernel asks for the device back (unbind or removal); stopping its user and releasing it",
			 dev->info.bdf);
	/* The owner stops its port first: nothing may touch the BARs after. */
	if (dev->release_fn != NULL && dev->release_fn(dev, dev->release_arg) == -EBUSY) {
		UNIC_LOG(WARNING, BUS, "%s: its owner is closing it; the close releases it",
			 dev->info.bdf);
		unic_event_fd_remove(fd);
		return;
	}
	pthread_mutex_lock(&bus->lock);
	bus_dev_release_locked(dev);
	pthread_mutex_unlock(&bus->lock);
	unic_event_fd_remove(fd);
	UNIC_LOG(WARNING, BUS, "%s released (interrupts off, BARs unmapped, device closed); the process goes on without it; unic_pci_close() frees what is left",
		 dev->info.bdf);
}

int unic_pci_on_release(struct unic_pci_device *dev, unic_pci_release_fn fn, void *arg)
{
	if (dev == NULL)
		return -EINVAL;
	pthread_mutex_lock(&dev->bus->lock);
	dev->release_fn = fn;
	dev->release_arg = arg;
	pthread_mutex_unlock(&dev->bus->lock);
	return 0;
}

bool unic_pci_is_gone(const struct unic_pci_device *dev)
{
	return dev != NULL && __atomic_load_n(&dev->gone, __ATOMIC_ACQUIRE);
}

bool unic_pci_is_released(const struct unic_pci_device *dev)
{
	return dev != NULL && __atomic_load_n(&dev->released, __ATOMIC_ACQUIRE);
}

void unic_pci_gone(struct unic_pci_device *dev)
{
	uint64_t one = 1;

	if (dev == NULL || __atomic_exchange_n(&dev->gone, true, __ATOMIC_ACQ_REL))
		return;
	/* Any thread, the fast path included: dispatch does the rest. */
	if (write(dev->release_fd, &one, sizeof(one)) < 0)
		UNIC_LOG(ERR, BUS, "%s: cannot signal its release eventfd: %s", dev->info.bdf,
			 strerror(errno));
}

/* ---- the calls every access method shares ---- */

static int check_live(const struct unic_pci_device *dev)
{
	if (dev == NULL)
		return -EINVAL;
	if (dev->released) {
		UNIC_LOG(ERR, BUS, "%s was released (the kernel took it back, or it vanished); close it and open it again once it is bound",
			 dev->info.bdf);
		return -ENODEV;
	}
	return 0;
}

static int check_bar(const struct unic_pci_device *dev, unsigned bar)
{
	if (bar >= BUS_MAX_BARS || dev->bars[bar].size == 0) {
		UNIC_LOG(ERR, BUS, "%s: BAR%u does not exist (or is the upper half of a 64-bit BAR)",
			 dev->info.bdf, bar);
		return -EINVAL;
	}
	return 0;
}

int unic_pci_bar_map(struct unic_pci_device *dev, unsigned bar, void **va, size_t *len)
{
	int rc = check_live(dev);

	if (rc < 0)
		return rc;
	rc = check_bar(dev, bar);
	if (rc < 0)
		return rc;
	pthread_mutex_lock(&dev->bus->lock);
	if (dev->bars[bar].va == NULL)
		rc = dev->ops->bar_map(dev, bar);
	pthread_mutex_unlock(&dev->bus->lock);
	if (rc < 0)
		return rc;
	*va = dev->bars[bar].va;
	*len = (size_t)dev->bars[bar].size;
	return 0;
}

static int bar_access(struct unic_pci_device *dev, unsigned bar, uint64_t off,
		      uint32_t *val, bool write)
{
	const struct bus_region *r;
	int rc = check_live(dev);

	if (rc < 0)
		return rc;
	rc = check_bar(dev, bar);
	if (rc < 0)
		return rc;
	r = &dev->bars[bar];
	if (off > r->size || r->size - off < sizeof(*val) || (off & 3) != 0) {
		UNIC_LOG(ERR, BUS, "%s: BAR%u offset %#llx: expected a 4-byte aligned offset below %#llx",
			 dev->info.bdf, bar, (unsigned long long)off, (unsigned long long)r->size);
		return -EINVAL;
	}
	if (r->va != NULL) {
		volatile uint32_t *p = (volatile uint32_t *)((char *)r->va + off);

		if (write)
			*p = *val;
		else
			*val = *p;
		return 0;
	}
	return dev->ops->bar_rw(dev, bar, off, val, sizeof(*val), write);
}

int unic_pci_bar_read32(struct unic_pci_device *dev, unsigned bar, uint64_t off, uint32_t *val)
{
	return bar_access(dev, bar, off, val, false);
}

int unic_pci_bar_write32(struct unic_pci_device *dev, unsigned bar, uint64_t off, uint32_t val)
{
	return bar_access(dev, bar, off, &val, true);
}

static int cfg_access(struct unic_pci_device *dev, unsigned off, void *buf, unsigned len,
		      bool write)
{
	int rc = check_live(dev);

	if (rc < 0)
		return rc;
	if (buf == NULL || len == 0 || off >= 4096 || len > 4096 - off)
		return -EINVAL;
	return dev->ops->cfg_rw(dev, off, buf, len, write);
}

int unic_pci_cfg_read(struct unic_pci_device *dev, unsigned off, void *buf, unsigned len)
{
	return cfg_access(dev, off, buf, len, false);
}

int unic_pci_cfg_write(struct unic_pci_device *dev, unsigned off, const void *buf, unsigned len)
{
	return cfg_access(dev, off, (void *)(uintptr_t)buf, len, true);
}

int unic_pci_bus_master(struct unic_pci_device *dev, bool on)
{
	uint16_t cmd;
	int rc;

	rc = unic_pci_cfg_read(dev, PCI_COMMAND, &cmd, sizeof(cmd));
	if (rc < 0)
		return rc;
	if (on)
		cmd |= PCI_COMMAND_MASTER;
	else
		cmd &= (uint16_t)~PCI_COMMAND_MASTER;
	rc = unic_pci_cfg_write(dev, PCI_COMMAND, &cmd, sizeof(cmd));
	return rc < 0 ? rc : 0;
}

int unic_pci_reset(struct unic_pci_device *dev)
{
	int rc = check_live(dev);

	if (rc < 0)
		return rc;
	pthread_mutex_lock(&dev->bus->lock);
	rc = dev->ops->reset(dev);
	pthread_mutex_unlock(&dev->bus->lock);
	return rc;
}

int unic_pci_irq_count(struct unic_pci_device *dev, enum unic_pci_irq type)
{
	int rc = check_live(dev);

	if (rc < 0)
		return rc;
	if (type != UNIC_PCI_IRQ_INTX && type != UNIC_PCI_IRQ_MSI && type != UNIC_PCI_IRQ_MSIX)
		return -EINVAL;
	return dev->ops->irq_count(dev, type);
}

int unic_pci_irq_enable(struct unic_pci_device *dev, enum unic_pci_irq type,
			unsigned nvec, int *fds)
{
	int rc = check_live(dev), max;

	if (rc < 0)
		return rc;
	if (fds == NULL || nvec == 0 || nvec > BUS_MAX_VECTORS)
		return -EINVAL;
	max = unic_pci_irq_count(dev, type);
	if (max < 0)
		return max;
	if (nvec > (unsigned)max) {
		UNIC_LOG(ERR, BUS, "%s: %u %s vector(s) asked for, the device offers %d",
			 dev->info.bdf, nvec,
			 type == UNIC_PCI_IRQ_MSIX ? "MSI-X" : type == UNIC_PCI_IRQ_MSI ? "MSI" : "INTx",
			 max);
		return -EINVAL;
	}
	pthread_mutex_lock(&dev->bus->lock);
	if (dev->irq_type >= 0) {
		UNIC_LOG(ERR, BUS, "%s: interrupts are enabled already; disable them first", dev->info.bdf);
		rc = -EBUSY;
	} else {
		rc = dev->ops->irq_enable(dev, type, nvec, fds);
	}
	pthread_mutex_unlock(&dev->bus->lock);
	return rc;
}

int unic_pci_irq_disable(struct unic_pci_device *dev)
{
	int rc = check_live(dev);

	if (rc < 0)
		return rc;
	pthread_mutex_lock(&dev->bus->lock);
	rc = dev->irq_type < 0 ? 0 : dev->ops->irq_disable(dev);
	pthread_mutex_unlock(&dev->bus->lock);
	return rc;
}

int unic_pci_intx_unmask(struct unic_pci_device *dev)
{
	int rc = check_live(dev);

	if (rc < 0)
		return rc;
	if (dev->irq_type != UNIC_PCI_IRQ_INTX)
		return -EINVAL;
	return dev->ops->intx_unmask(dev);
}

/* ---- probe ---- */

bool unic_pci_id_match(const struct unic_pci_id *ids, const struct unic_pci_info *info)
{
	for (; ids != NULL && ids->vendor != 0; ids++)
		if (ids->vendor == info->vendor && ids->device == info->device)
			return true;
	return false;
}

static const struct unic_pci_driver *match_driver(const struct unic_pci_driver *const *drivers,
						  const struct unic_pci_info *info)
{
	for (unsigned i = 0; drivers[i] != NULL; i++)
		if (drivers[i]->probe != NULL && unic_pci_id_match(drivers[i]->id_table, info))
			return drivers[i];
	return NULL;
}

static int allow_index(const struct unic_pci_info *info, const char *const *allow,
		       unsigned nb_allow)
{
	for (unsigned i = 0; i < nb_allow; i++) {
		struct unic_pci_addr a;

		if (unic_pci_addr_parse(allow[i], &a) == 0 && a.domain == info->addr.domain &&
		    a.bus == info->addr.bus && a.dev == info->addr.dev && a.func == info->addr.func)
			return (int)i;
	}
	return -1;
}

int unic_pci_probe(struct unic_bus *bus, const struct unic_pci_driver *const *drivers,
		   const char *const *allow, unsigned nb_allow, void *arg)
{
	struct unic_pci_info *devs = NULL;
	unsigned nb = 0, probed = 0;
	bool *seen = NULL;
	int rc, first_err = 0;

	if (bus == NULL || drivers == NULL || (nb_allow > 0 && allow == NULL))
		return -EINVAL;
	for (unsigned i = 0; i < nb_allow; i++) {
		struct unic_pci_addr a;

		if (unic_pci_addr_parse(allow[i], &a) < 0) {
			UNIC_LOG(ERR, BUS, "-a '%s': expected a PCI address DDDD:BB:DD.F or BB:DD.F", allow[i]);
			return -EINVAL;
		}
	}
	rc = unic_pci_scan(bus->sysfs_root, &devs, &nb);
	if (rc < 0)
		return rc;
	seen = calloc(nb_allow + 1, sizeof(*seen));
	if (seen == NULL) {
		free(devs);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < nb; i++) {
		const struct unic_pci_info *info = &devs[i];
		const struct unic_pci_driver *drv;
		struct unic_pci_device *dev;
		int idx = -1;

		if (nb_allow > 0) {
			idx = allow_index(info, allow, nb_allow);
			if (idx < 0)
				continue;
			seen[idx] = true;
		}
		drv = match_driver(drivers, info);
		if (drv == NULL) {
			if (idx >= 0) {
				UNIC_LOG(ERR, BUS, "-a %s (%04x:%04x): no driver in this build drives it",
					 info->bdf, info->vendor, info->device);
				if (first_err == 0)
					first_err = -ENODEV;
			}
			continue;
		}
		if (strcmp(info->driver, "vfio-pci") != 0 &&
		    strcmp(info->driver, "uio_pci_generic") != 0 && idx < 0) {
			char hint[160];

			/* Not asked for by name: a kernel NIC is left alone, said once. */
			UNIC_LOG(NOTICE, BUS, "%s (%04x:%04x, driver %s) is bound to %s; to use it run: %s",
				 info->bdf, info->vendor, info->device, drv->name,
				 info->driver[0] ? info->driver : "no driver",
				 bind_hint(info, hint, sizeof(hint)));
			continue;
		}
		rc = unic_pci_open(bus, info->bdf, &dev);
		if (rc < 0) {
			if (first_err == 0 && idx >= 0)
				first_err = rc;
			continue;
		}
		rc = drv->probe(drv, dev, arg);
		if (rc < 0) {
			UNIC_LOG(ERR, BUS, "%s: driver %s refused the device: %s", info->bdf, drv->name,
				 strerror(-rc));
			unic_pci_close(dev);
			if (first_err == 0 && idx >= 0)
				first_err = rc;
			continue;
		}
		probed++;
	}
	for (unsigned i = 0; i < nb_allow; i++) {
		if (!seen[i]) {
			UNIC_LOG(ERR, BUS, "-a %s: no such PCI device; list devices with: unic-devbind --status",
				 allow[i]);
			if (first_err == 0)
				first_err = -ENODEV;
		}
	}
	free(seen);
	free(devs);
	return first_err < 0 ? first_err : (int)probed;
}
