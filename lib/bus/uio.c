/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * UIO access (uio_pci_generic): BARs mmapped from sysfs resourceN, config
 * space through sysfs config, INTx through /dev/uioN. There is no IOMMU, so
 * DMA uses physical addresses: the memory must be in PA mode.
 *
 * uio_pci_generic masks INTx (the INTx-disable bit, PCI command bit 10) when
 * the interrupt fires and counts it in /dev/uioN (a 4-byte read); the driver
 * re-arms by clearing the bit again (unic_pci_intx_unmask).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <unic/log.h>
#include <unic/mem.h>

#include "bus_private.h"

#define SYS(bus, call, ...) ((bus)->sys.call((bus)->sys.ctx, __VA_ARGS__))

#define PCI_COMMAND 0x04
#define PCI_COMMAND_INTX_DISABLE 0x400
#define PCI_INTERRUPT_PIN 0x3d
/* include/linux/ioport.h: the flags column of sysfs "resource" */
#define UIO_IORESOURCE_IO 0x100

/* N of the uioN entry under the device's sysfs uio/ directory. */
static int find_uio(struct unic_pci_device *dev)
{
	char path[PATH_MAX];
	struct dirent *e;
	int n = -1, rc;
	DIR *d;

	rc = bus_dev_path(dev->bus, dev, path, sizeof(path), "uio");
	if (rc < 0)
		return rc;
	d = opendir(path);
	if (d == NULL) {
		UNIC_LOG(ERR, BUS, "%s is bound to uio_pci_generic but %s cannot be read: %s",
			 dev->info.bdf, path, strerror(errno));
		return -ENODEV;
	}
	while ((e = readdir(d)) != NULL)
		if (sscanf(e->d_name, "uio%d", &n) == 1)
			break;
	closedir(d);
	if (n < 0) {
		UNIC_LOG(ERR, BUS, "%s: no uioN entry in %s", dev->info.bdf, path);
		return -ENODEV;
	}
	return n;
}

/* BAR sizes and kinds from sysfs "resource": "start end flags" a line. */
static int read_resources(struct unic_pci_device *dev)
{
	char path[PATH_MAX];
	unsigned long long start, end, flags;
	FILE *f;
	int rc;

	rc = bus_dev_path(dev->bus, dev, path, sizeof(path), "resource");
	if (rc < 0)
		return rc;
	f = fopen(path, "re");
	if (f == NULL) {
		UNIC_LOG(ERR, BUS, "%s: cannot read %s: %s", dev->info.bdf, path, strerror(errno));
		return -errno;
	}
	for (unsigned i = 0; i < BUS_MAX_BARS; i++) {
		if (fscanf(f, "%llx %llx %llx", &start, &end, &flags) != 3)
			break;
		if (end > start) {
			dev->bars[i].size = end - start + 1;
			dev->bars[i].flags = (uint32_t)flags;
			dev->bars[i].is_io = (flags & UIO_IORESOURCE_IO) != 0;
		}
	}
	fclose(f);
	return 0;
}

static int open_sysfs(struct unic_pci_device *dev, const char *attr, int flags)
{
	char path[PATH_MAX];
	int fd, rc;

	rc = bus_dev_path(dev->bus, dev, path, sizeof(path), attr);
	if (rc < 0)
		return rc;
	fd = SYS(dev->bus, open, path, flags);
	if (fd == -EACCES || fd == -EPERM)
		UNIC_LOG(ERR, BUS, "%s: cannot open %s: %s; UIO needs root (sysfs resource files and physical addresses)",
			 dev->info.bdf, path, strerror(-fd));
	else if (fd < 0)
		UNIC_LOG(ERR, BUS, "%s: cannot open %s: %s", dev->info.bdf, path, strerror(-fd));
	return fd;
}

static int uio_open(struct unic_pci_device *dev)
{
	struct unic_bus *bus = dev->bus;
	char path[PATH_MAX];
	int n, fd, rc;

	if (unic_mem_iova_mode(bus->mem) != UNIC_IOVA_PA) {
		UNIC_LOG(ERR, BUS, "%s is bound to uio_pci_generic, which has no IOMMU: the device sees physical addresses, so the memory must be in PA mode with hugepages (found VA mode); create it with iova_mode = UNIC_IOVA_PA (--iova-mode pa, not --no-huge) as root, or bind the device to VFIO: unic-devbind --bind vfio-pci %s",
			 dev->info.bdf, dev->info.bdf);
		return -EINVAL;
	}
	n = find_uio(dev);
	if (n < 0)
		return n;
	rc = read_resources(dev);
	if (rc < 0)
		return rc;
	rc = bus_path(bus, path, sizeof(path), "%s/uio%d", bus->dev_root, n);
	if (rc < 0)
		return rc;
	fd = SYS(bus, open, path, O_RDWR | O_NONBLOCK);
	if (fd < 0) {
		UNIC_LOG(ERR, BUS, "%s: cannot open %s: %s%s", dev->info.bdf, path, strerror(-fd),
			 fd == -EACCES || fd == -EPERM ? "; UIO needs root" : "");
		return fd;
	}
	dev->fd = fd;
	dev->uio_num = n;
	dev->cfg.fd = open_sysfs(dev, "config", O_RDWR);
	if (dev->cfg.fd < 0) {
		rc = dev->cfg.fd;
		SYS(bus, close, fd);
		dev->fd = -1;
		return rc;
	}
	UNIC_LOG(INFO, BUS, "%s: UIO through %s; DMA uses IOVA = PA", dev->info.bdf, path);
	return 0;
}

static int uio_command(struct unic_pci_device *dev, uint16_t set, uint16_t clear)
{
	uint16_t cmd;
	ssize_t n;

	n = SYS(dev->bus, pread, dev->cfg.fd, &cmd, sizeof(cmd), PCI_COMMAND);
	if (n != (ssize_t)sizeof(cmd))
		return n < 0 ? (int)n : -EIO;
	cmd = (uint16_t)((cmd | set) & ~clear);
	n = SYS(dev->bus, pwrite, dev->cfg.fd, &cmd, sizeof(cmd), PCI_COMMAND);
	if (n != (ssize_t)sizeof(cmd))
		return n < 0 ? (int)n : -EIO;
	return 0;
}

static int uio_irq_disable(struct unic_pci_device *dev)
{
	dev->irq_type = -1;
	dev->nb_vec = 0;
	return uio_command(dev, PCI_COMMAND_INTX_DISABLE, 0);
}

static void uio_release(struct unic_pci_device *dev)
{
	struct unic_bus *bus = dev->bus;

	if (dev->irq_type >= 0)
		uio_irq_disable(dev);
	for (unsigned i = 0; i < BUS_MAX_BARS; i++) {
		struct bus_region *r = &dev->bars[i];

		if (r->va != NULL)
			SYS(bus, munmap, r->va, (size_t)r->size);
		r->va = NULL;
		if (r->fd >= 0)
			SYS(bus, close, r->fd);
		r->fd = -1;
	}
	if (dev->cfg.fd >= 0)
		SYS(bus, close, dev->cfg.fd);
	dev->cfg.fd = -1;
	if (dev->fd >= 0)
		SYS(bus, close, dev->fd);
	dev->fd = -1;
}

static int resource_fd(struct unic_pci_device *dev, unsigned bar)
{
	char attr[16];

	if (dev->bars[bar].fd < 0) {
		snprintf(attr, sizeof(attr), "resource%u", bar);
		dev->bars[bar].fd = open_sysfs(dev, attr, O_RDWR | O_SYNC);
	}
	return dev->bars[bar].fd;
}

static int uio_bar_map(struct unic_pci_device *dev, unsigned bar)
{
	struct bus_region *r = &dev->bars[bar];
	void *va;
	int fd, rc;

	if (r->is_io) {
		UNIC_LOG(INFO, BUS, "%s: BAR%u is an I/O port BAR and cannot be mmapped; use unic_pci_bar_read32/write32",
			 dev->info.bdf, bar);
		return -ENOTSUP;
	}
	fd = resource_fd(dev, bar);
	if (fd < 0)
		return fd;
	rc = SYS(dev->bus, mmap, (size_t)r->size, PROT_READ | PROT_WRITE, fd, 0, &va);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: mmap of resource%u (%llu bytes): %s", dev->info.bdf, bar,
			 (unsigned long long)r->size, strerror(-rc));
		return rc;
	}
	r->va = va;
	return 0;
}

static int uio_bar_rw(struct unic_pci_device *dev, unsigned bar, uint64_t off, void *buf,
		      unsigned len, bool write)
{
	int fd = resource_fd(dev, bar);
	ssize_t n;

	if (fd < 0)
		return fd;
	if (write)
		n = SYS(dev->bus, pwrite, fd, buf, len, (off_t)off);
	else
		n = SYS(dev->bus, pread, fd, buf, len, (off_t)off);
	if (n < 0)
		return (int)n;
	return n == (ssize_t)len ? 0 : -EIO;
}

static int uio_cfg_rw(struct unic_pci_device *dev, unsigned off, void *buf, unsigned len,
		      bool write)
{
	ssize_t n;

	if (write)
		n = SYS(dev->bus, pwrite, dev->cfg.fd, buf, len, (off_t)off);
	else
		n = SYS(dev->bus, pread, dev->cfg.fd, buf, len, (off_t)off);
	if (n < 0)
		return (int)n;
	return (int)n;
}

static int uio_reset(struct unic_pci_device *dev)
{
	int fd = open_sysfs(dev, "reset", O_WRONLY);
	ssize_t n;

	if (fd < 0) {
		UNIC_LOG(WARNING, BUS, "%s: no reset available through sysfs; the driver reprograms every register itself",
			 dev->info.bdf);
		return -ENOTSUP;
	}
	n = SYS(dev->bus, pwrite, fd, "1", 1, 0);
	SYS(dev->bus, close, fd);
	if (n != 1) {
		UNIC_LOG(ERR, BUS, "%s: writing sysfs reset: %s", dev->info.bdf,
			 n < 0 ? strerror((int)-n) : "short write");
		return n < 0 ? (int)n : -EIO;
	}
	UNIC_LOG(INFO, BUS, "%s: reset through sysfs reset (the kernel's reset method)", dev->info.bdf);
	return 0;
}

static int uio_irq_count(struct unic_pci_device *dev, enum unic_pci_irq type)
{
	uint8_t pin = 0;
	ssize_t n;

	/* uio_pci_generic drives INTx only. */
	if (type != UNIC_PCI_IRQ_INTX)
		return 0;
	n = SYS(dev->bus, pread, dev->cfg.fd, &pin, 1, PCI_INTERRUPT_PIN);
	if (n < 0)
		return (int)n;
	return pin != 0 ? 1 : 0;
}

static int uio_irq_enable(struct unic_pci_device *dev, enum unic_pci_irq type,
			  unsigned nvec, int *fds)
{
	int rc;

	if (type != UNIC_PCI_IRQ_INTX || nvec != 1) {
		UNIC_LOG(ERR, BUS, "%s: uio_pci_generic offers one INTx interrupt only; bind to vfio-pci for MSI/MSI-X",
			 dev->info.bdf);
		return -ENOTSUP;
	}
	rc = uio_command(dev, 0, PCI_COMMAND_INTX_DISABLE);
	if (rc < 0)
		return rc;
	dev->irq_type = UNIC_PCI_IRQ_INTX;
	dev->nb_vec = 0;  /* the uio fd is not ours to close */
	fds[0] = dev->fd;
	return 0;
}

static int uio_intx_unmask(struct unic_pci_device *dev)
{
	return uio_command(dev, 0, PCI_COMMAND_INTX_DISABLE);
}

const struct bus_access_ops bus_uio_ops = {
	.name = "UIO",
	.open = uio_open,
	.release = uio_release,
	.bar_map = uio_bar_map,
	.bar_rw = uio_bar_rw,
	.cfg_rw = uio_cfg_rw,
	.reset = uio_reset,
	.irq_count = uio_irq_count,
	.irq_enable = uio_irq_enable,
	.irq_disable = uio_irq_disable,
	.intx_unmask = uio_intx_unmask,
};
