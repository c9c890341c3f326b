/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/bus internals shared between its files and its unit tests:
 *   pci_addr.c, pci_scan.c   discovery
 *   bus.c    the bus context, open dispatch by bound driver, the generic
 *            device calls, device release, probe (unic_bus_driver.h)
 *   vfio.c   VFIO: container (type1 or no-IOMMU), groups, device fd,
 *            regions, DMA listener, reset, interrupts, request IRQ
 *   uio.c    uio_pci_generic: sysfs resourceN and config, /dev/uioN INTx
 *
 * Every system call that touches a device goes through struct bus_sys, so
 * the unit tests replace the kernel with a fake (tests/unit/test_bus.c).
 */
#ifndef UNIC_BUS_PRIVATE_H
#define UNIC_BUS_PRIVATE_H

#include <unic/bus.h>

/*
 * Where discovery reads from. @root is a prefix put in front of every
 * absolute path: ROOT/sys/bus/pci/devices, ROOT/sys/kernel/iommu_groups,
 * ROOT/proc/net/route (NULL or "" is the real system). @ids_path is the
 * pci.ids file libpci reads names from (NULL: libpci's default); when it is
 * set, udev's hwdb is not asked either, so a test controls the names fully.
 */
struct bus_scan_opts {
	const char *root;
	const char *ids_path;
};

int bus_pci_scan(const struct bus_scan_opts *o, struct unic_pci_info **devs,
		 unsigned *nb);
int bus_pci_scan_one(const struct bus_scan_opts *o, const char *bdf,
		     struct unic_pci_info *info);

/* Order of two addresses, for qsort and lookups. */
int bus_pci_addr_cmp(const struct unic_pci_addr *a, const struct unic_pci_addr *b);

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>


/*
 * The system calls the bus makes on devices and their files. Each returns
 * what the call returns, or -errno (never -1 with errno). The defaults are
 * the real calls; a test installs its own with bus_sys_set().
 */
struct bus_sys {
	int (*open)(void *ctx, const char *path, int flags);
	int (*close)(void *ctx, int fd);
	int (*ioctl)(void *ctx, int fd, unsigned long req, void *arg);
	/* *va is set on success */
	int (*mmap)(void *ctx, size_t len, int prot, int fd, off_t off, void **va);
	int (*munmap)(void *ctx, void *va, size_t len);
	ssize_t (*pread)(void *ctx, int fd, void *buf, size_t len, off_t off);
	ssize_t (*pwrite)(void *ctx, int fd, const void *buf, size_t len, off_t off);
	void *ctx;
};

/* Install @p sys (copied) in a bus that has no device open yet. */
int bus_sys_set(struct unic_bus *bus, const struct bus_sys *sys);

#define BUS_MAX_BARS 6
#define BUS_MAX_VECTORS 64

enum bus_container_type {
	BUS_CONTAINER_NONE = 0,   /* not opened yet */
	BUS_CONTAINER_TYPE1,
	BUS_CONTAINER_NOIOMMU,
};

/* A VFIO group this bus opened; shared by its devices. */
struct bus_group {
	int id;
	bool noiommu;             /* /dev/vfio/noiommu-N */
	int fd;
	unsigned users;           /* devices open in it */
	struct bus_group *next;
};

struct bus_region {
	uint64_t offset;          /* VFIO: region offset in the device fd */
	uint64_t size;            /* 0: no such BAR */
	uint32_t flags;           /* VFIO_REGION_INFO_FLAG_*; UIO: see uio.c */
	bool is_io;               /* an I/O port BAR */
	int fd;                   /* UIO: sysfs resourceN, -1 until used */
	void *va;                 /* mapped, or NULL */
};

struct unic_pci_device;

/* What an access method does; one static const table per method. */
struct bus_access_ops {
	const char *name;
	int (*open)(struct unic_pci_device *dev);
	/* Interrupts off, BARs unmapped, fds closed. Bus lock held. */
	void (*release)(struct unic_pci_device *dev);
	int (*bar_map)(struct unic_pci_device *dev, unsigned bar);
	int (*bar_rw)(struct unic_pci_device *dev, unsigned bar, uint64_t off,
		      void *buf, unsigned len, bool write);
	int (*cfg_rw)(struct unic_pci_device *dev, unsigned off, void *buf,
		      unsigned len, bool write);
	int (*reset)(struct unic_pci_device *dev);
	int (*irq_count)(struct unic_pci_device *dev, enum unic_pci_irq type);
	int (*irq_enable)(struct unic_pci_device *dev, enum unic_pci_irq type,
			  unsigned nvec, int *fds);
	int (*irq_disable)(struct unic_pci_device *dev);
	int (*intx_unmask)(struct unic_pci_device *dev);
};

extern const struct bus_access_ops bus_vfio_ops;
extern const struct bus_access_ops bus_uio_ops;

struct unic_pci_device {
	struct unic_bus *bus;
	struct unic_pci_info info;
	enum unic_pci_access access;
	const struct bus_access_ops *ops;

	int fd;                        /* VFIO device fd; UIO /dev/uioN */
	struct bus_group *group;       /* VFIO */
	uint32_t dev_flags;            /* VFIO_DEVICE_FLAGS_* */
	unsigned num_irqs;             /* VFIO irq indexes */
	struct bus_region bars[BUS_MAX_BARS];
	struct bus_region cfg;         /* VFIO: the config region; UIO: fd */
	int uio_num;                   /* UIO: N of /dev/uioN */

	int irq_type;                  /* -1: none enabled */
	unsigned nb_vec;
	int irq_fds[BUS_MAX_VECTORS];

	/* Device request: the kernel (VFIO request IRQ) or a driver
	 * (unic_pci_gone) asks for the device; dispatch releases it. */
	int release_fd;                /* eventfd, watched by lib/event */
	bool req_irq;                  /* VFIO: release_fd is the request IRQ */
	unic_pci_release_fn release_fn;
	void *release_arg;
	bool gone;                     /* unic_pci_gone() was called (atomic) */
	bool released;                 /* nothing is left but this struct */

	struct unic_pci_device *next;
};

struct unic_bus {
	pthread_mutex_t lock;          /* the device list, groups, container */
	struct unic_mem *mem;
	char *sysfs_root;              /* "" for the real /sys */
	char *dev_root;                /* "/dev" */
	bool allow_noiommu;
	struct bus_sys sys;

	/* VFIO */
	int container;                 /* -1 until the first VFIO device */
	enum bus_container_type ctype;
	bool dma_listening;
	int listener;                  /* unic_mem_listen handle */
	uint64_t iova_lo, iova_hi;     /* usable IOVA window chosen */
	unsigned nb_dma_maps;          /* segments mapped into the container */

	struct bus_group *groups;
	struct unic_pci_device *devs;
};

/* bus.c */
int bus_path(const struct unic_bus *bus, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* sysfs path of the device directory, with @p attr appended. */
int bus_dev_path(const struct unic_bus *bus, const struct unic_pci_device *dev,
		 char *buf, size_t len, const char *attr);
/* Release what the device holds (the request/gone path and close). Lock held. */
void bus_dev_release_locked(struct unic_pci_device *dev);

/*
 * irq_affinity.c: find a line of /proc/interrupts (@p text, NUL-terminated):
 * the one whose IRQ number is @p irq (>= 0), or any, and that has @p name as
 * one of its actions (a whole action: "vfio-msix[1](0000:00:03.0)" does not
 * match "vfio-msix[1](10000:00:03.0)"), or any. The header line gives the
 * number of CPU columns (online CPUs). @p counts gets up to @p max_counts
 * per-CPU counts, *nb_cpus the number of columns.
 * @return the IRQ number, -ENOENT (no such line), -EINVAL (no header).
 */
int bus_proc_interrupts_find(const char *text, const char *name, int irq, uint64_t *counts,
			     unsigned max_counts, unsigned *nb_cpus);

/* vfio.c: close the container (no device left). Lock held. */
void bus_vfio_teardown(struct unic_bus *bus);

#endif /* UNIC_BUS_PRIVATE_H */
