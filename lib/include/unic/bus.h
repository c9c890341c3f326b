/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The PCI bus layer: discovery from sysfs, and device access through VFIO
 * (type1 IOMMU, or no-IOMMU on request) or UIO (uio_pci_generic).
 *
 * Discovery (unic_pci_scan) reads a sysfs tree whose root is a parameter, so
 * tests point it at a fake tree. Access goes through a struct unic_bus: one
 * per process (it owns the VFIO container, shared by every device) — but an
 * explicit object, so a test can make two against two fake trees.
 *
 * DMA: the bus listens to its struct unic_mem (unic_mem_listen) and maps
 * every segment into the VFIO container as it appears, and unmaps it when it
 * is freed. It reads the IOMMU's usable IOVA ranges and address width and
 * sets the memory's IOVA window accordingly (IOVA = VA where it fits).
 *
 * Errors a person can cause say what was expected, what was found and what to
 * run next (the unic-devbind command, the ulimit).
 */
#ifndef UNIC_BUS_H
#define UNIC_BUS_H

#include <unic/common.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

struct unic_mem;

/* ---- addresses ----------------------------------------------------------- */

/** A PCI address, domain:bus:device.function. */
struct unic_pci_addr {
	uint32_t domain; /**< PCI segment (domain), usually 0 */
	uint8_t bus;     /**< bus number */
	uint8_t dev;     /**< device, 0..0x1f */
	uint8_t func;    /**< function, 0..7 */
};

#define UNIC_PCI_BDF_LEN 16 /**< "dddd:bb:dd.f" and its NUL, with room */

/**
 * Parse "DDDD:BB:DD.F" or "BB:DD.F" (hex, either case; device 00-1f,
 * function 0-7). The -a option of lib/env uses the same rules.
 * @return 0 or -EINVAL (nothing logged).
 */
int unic_pci_addr_parse(const char *s, struct unic_pci_addr *addr);
/** Format as "dddd:bb:dd.f". @return @p buf. */
char *unic_pci_addr_fmt(const struct unic_pci_addr *addr, char *buf, size_t len);

/* ---- discovery ----------------------------------------------------------- */

#define UNIC_PCI_MAX_GROUP 32 /**< most group members unic_pci_info lists */

/** What sysfs (and libpci's name database) says about one device. */
struct unic_pci_info {
	struct unic_pci_addr addr;    /**< its address */
	char bdf[UNIC_PCI_BDF_LEN];   /**< its address as "dddd:bb:dd.f" */
	/** @{ */
	/** Vendor and device ids. */
	uint16_t vendor, device;
	/** @} */
	/** @{ */
	/** Subsystem vendor and device ids. */
	uint16_t subsys_vendor, subsys_device;
	/** @} */
	uint32_t class_code;          /**< 24 bits: class, subclass, prog-if */
	char vendor_name[96];         /**< from libpci; "" if unknown */
	char device_name[128];        /**< from libpci; "" if unknown */
	int numa_node;                /**< as sysfs says: -1 when unknown */
	int iommu_group;              /**< -1: none */
	unsigned nb_group_members;    /**< devices in that group, this one included */
	char group_members[UNIC_PCI_MAX_GROUP][UNIC_PCI_BDF_LEN]; /**< their addresses (the first UNIC_PCI_MAX_GROUP) */
	char driver[32];              /**< bound kernel driver, "" if none */
	bool is_net;                  /**< class 0x02 */
	char ifname[32];              /**< kernel interface, "" if none */
	bool if_up;                   /**< that interface is up */
	bool if_has_routes;           /**< that interface has routes (in use: do not take it) */
};

/**
 * Scan every PCI device. @p sysfs_root is a prefix put in front of every
 * absolute path read, as lib/mem's sysfs_root: devices come from
 * ROOT/sys/bus/pci/devices, IOMMU groups from ROOT/sys/kernel/iommu_groups,
 * routes from ROOT/proc/net/route and ROOT/proc/net/ipv6_route. NULL or ""
 * is the real system; a test points it at a fake tree.
 *
 * For each device: ids, class, names from libpci's pci.ids ("" when the
 * database or the entry is missing: never an error), numa_node as sysfs has
 * it (-1 kept), the IOMMU group (-1: none) and its members in address order,
 * the bound driver. For class 0x02 also the interface (DEV/net/IF, or
 * DEV/virtioN/net/IF for virtio-net), up (IFF_UP in its flags, or operstate
 * "up") and whether any route uses it (IPv6 link-local and multicast routes,
 * which every up interface has, do not count).
 *
 * @return 0 and an array (free with free()) in address order, or -errno:
 *         ENOENT/EACCES (ROOT/sys/bus/pci/devices cannot be listed), EINVAL
 *         (a file does not hold what sysfs writes: the log names the file,
 *         what was expected and what was found), ENOMEM. A device that
 *         vanishes during the scan is left out.
 */
int unic_pci_scan(const char *sysfs_root, struct unic_pci_info **devs, unsigned *nb);

/**
 * Scan one device (@p bdf in either form unic_pci_addr_parse() takes).
 * @return 0, -ENOENT (no such device; logged at debug level only, the
 *         caller says what it wanted it for), -EINVAL (bad address, or a
 *         malformed file as above), -errno.
 */
int unic_pci_scan_one(const char *sysfs_root, const char *bdf, struct unic_pci_info *info);

/* ---- access ---------------------------------------------------------------- */

/** Options for unic_bus_create(). */
struct unic_bus_conf {
	size_t sz;                 /**< sizeof(struct unic_bus_conf) */
	struct unic_mem *mem;      /**< DMA memory to map (required) */
	const char *sysfs_root;    /**< prefix of /sys paths, as for unic_pci_scan(); NULL: "" */
	const char *dev_root;      /**< NULL: /dev (vfio/, uioN) */
	bool allow_noiommu;        /**< VFIO no-IOMMU mode, only if asked */
};

struct unic_bus;
struct unic_pci_device;

/**
 * Create the bus context. Opens nothing until the first device.
 * @return the bus, or NULL with errno (EINVAL).
 */
struct unic_bus *unic_bus_create(const struct unic_bus_conf *cfg);
/** Close every device and the container; NULL is accepted. */
void unic_bus_destroy(struct unic_bus *bus);

/** How a device is reached (unic_pci_access()). */
enum unic_pci_access {
	UNIC_PCI_ACCESS_VFIO = 1,     /**< VFIO, type1 IOMMU */
	UNIC_PCI_ACCESS_VFIO_NOIOMMU, /**< VFIO no-IOMMU (unsafe; IOVA = PA) */
	UNIC_PCI_ACCESS_UIO,          /**< uio_pci_generic (IOVA = PA) */
};

/**
 * Open a device bound to vfio-pci or uio_pci_generic.
 * @return 0 and the device, or: -ENODEV (no such device), -EPERM/-EACCES
 *         (names the file and how to give access), -EBUSY (bound to a kernel
 *         driver or to nothing: the message names the driver and the exact
 *         unic-devbind command), -EINVAL (VFIO group not viable: the message
 *         lists every member of the group with its driver; or the memory
 *         is in the wrong IOVA mode for the access: UIO and no-IOMMU need PA
 *         mode), -ENOTSUP (a no-IOMMU group without cfg.allow_noiommu, or a
 *         kernel without no-IOMMU support: the message points to UIO),
 *         -ERANGE (DMA memory allocated before the first open lies outside
 *         the IOMMU's usable IOVA range: open devices first).
 */
int unic_pci_open(struct unic_bus *bus, const char *bdf, struct unic_pci_device **out);
/** Release a device (disable its interrupts, unmap its BARs). NULL is accepted. */
void unic_pci_close(struct unic_pci_device *dev);

/** What the scan found about the device (valid while it is open). */
const struct unic_pci_info *unic_pci_info(const struct unic_pci_device *dev);
/** How the device is reached: VFIO, VFIO no-IOMMU or UIO. */
enum unic_pci_access unic_pci_access(const struct unic_pci_device *dev);
/**
 * The DMA memory the bus maps for @p dev (its unic_bus_conf.mem): every
 * zone allocated from it is reachable by the device at its IOVA (VFIO: mapped
 * into the container as its segment appears; UIO: IOVA = physical address).
 * Drivers allocate their rings from it (unic_port_dma_alloc).
 */
struct unic_mem *unic_pci_dma_mem(const struct unic_pci_device *dev);

/**
 * Map BAR @p bar. @return 0 with *va and *len, -ENOTSUP when the region
 * cannot be mmapped (use unic_pci_bar_read32/write32), -EINVAL (no such BAR).
 */
int unic_pci_bar_map(struct unic_pci_device *dev, unsigned bar, void **va, size_t *len);
/** Read 32 bits at @p off of BAR @p bar through the device fd (a BAR that cannot be mapped). @return 0 or -errno. */
int unic_pci_bar_read32(struct unic_pci_device *dev, unsigned bar, uint64_t off, uint32_t *val);
/** Write 32 bits at @p off of BAR @p bar through the device fd. @return 0 or -errno. */
int unic_pci_bar_write32(struct unic_pci_device *dev, unsigned bar, uint64_t off, uint32_t val);

/** Config space access. @return bytes moved, or -errno. */
int unic_pci_cfg_read(struct unic_pci_device *dev, unsigned off, void *buf, unsigned len);
/** Config space write. @return bytes moved, or -errno. */
int unic_pci_cfg_write(struct unic_pci_device *dev, unsigned off, const void *buf, unsigned len);

/** Set or clear bus mastering in the command register. */
int unic_pci_bus_master(struct unic_pci_device *dev, bool on);

/**
 * Reset the device: VFIO_DEVICE_RESET where offered, else a bus reset
 * (VFIO_DEVICE_PCI_HOT_RESET) when the device is alone on its bus.
 * A bus reset that the kernel reports as ENOTTY (it reset the bus but saw
 * no link come back in time) counts as done when the device's config space
 * reads its ids again (docs/pci.md).
 * @return 0, or -ENOTSUP (no reset available; the driver must reprogram
 *         everything, which it does anyway), -EBUSY (a bus reset would touch
 *         a device this bus does not hold), -EIO (the device did not come
 *         back).
 */
int unic_pci_reset(struct unic_pci_device *dev);

/** Interrupt types of a PCI device. */
enum unic_pci_irq {
	UNIC_PCI_IRQ_INTX = 0, /**< the legacy line (shared, level-triggered) */
	UNIC_PCI_IRQ_MSI = 1,  /**< MSI */
	UNIC_PCI_IRQ_MSIX = 2, /**< MSI-X: a vector per queue */
};

/** Vectors the device offers for @p type (0 if none). */
int unic_pci_irq_count(struct unic_pci_device *dev, enum unic_pci_irq type);

/**
 * Enable @p nvec vectors of @p type, each signalling its own eventfd
 * (non-blocking), returned in @p fds (UIO: INTx only, the /dev/uioX fd).
 * @return 0, -EINVAL (more than the device offers), -errno.
 */
int unic_pci_irq_enable(struct unic_pci_device *dev, enum unic_pci_irq type,
			unsigned nvec, int *fds);
/** Disable the interrupts enabled above and close their eventfds. */
int unic_pci_irq_disable(struct unic_pci_device *dev);
/** INTx: unmask after handling (VFIO: IRQ unmask; UIO: clear INTx-disable). */
int unic_pci_intx_unmask(struct unic_pci_device *dev);

/**
 * The Linux IRQ number of enabled vector @p vector: for MSI-X and MSI
 * (VFIO) the line of /proc/interrupts whose action is the name VFIO gives
 * it, "vfio-msix[VECTOR](BDF)" ("vfio-msi[...]"); for INTx (VFIO or
 * uio_pci_generic, vector 0 only) the device's legacy line,
 * /sys/bus/pci/devices/BDF/irq. Paths are under the bus's sysfs_root.
 * @return the IRQ number (> 0 for INTx, >= 0 otherwise), or -EINVAL (no
 *         interrupts enabled, or @p vector is not one of them), -ENOENT
 *         (no such line; no legacy line), -ENODEV (device released),
 *         -errno (reading the file). Each error is logged.
 */
int unic_pci_irq_kernel_num(struct unic_pci_device *dev, unsigned vector);

/**
 * Have the kernel take enabled vector @p vector on CPU @p cpu: writes the
 * CPU to /proc/irq/N/smp_affinity_list and reads it back. Needs root. The
 * setting lasts as long as the vector: disabling the interrupts (a port
 * stop) frees the IRQ, and the next enable starts from the default.
 * @return the IRQ number moved, or -errno, logged with what to do: -EACCES/
 *         -EPERM (not root: the command to run as root), -EIO (the kernel
 *         refused to move this interrupt: its chip or interrupt remapping
 *         cannot; it stays where it is), -EINVAL (no such vector, a
 *         negative CPU, or the kernel refused the CPU or read back another
 *         set: not online), and those of unic_pci_irq_kernel_num().
 */
int unic_pci_irq_affinity_set(struct unic_pci_device *dev, unsigned vector, int cpu);

/**
 * Called (from the library's event dispatch) when the kernel asks for the
 * device back (VFIO request IRQ), or a driver saw it vanish (all-ones reads,
 * unic_pci_gone(); unic_pci_is_gone() tells which). The callback stops the
 * owning port (drivers: unic_port_device_lost) and returns 0; the bus then
 * releases the device (interrupts off, BARs unmapped, device fd closed) and
 * unic_pci_close() later frees what is left. -EBUSY: the owner is closing
 * the device right now; its unic_pci_close() releases it.
 */
typedef int (*unic_pci_release_fn)(struct unic_pci_device *dev, void *arg);
/** Set the device's release callback (one per device; NULL removes it). @return 0 or -EINVAL. */
int unic_pci_on_release(struct unic_pci_device *dev, unic_pci_release_fn fn, void *arg);
/** Was the device reported gone (all-ones reads), rather than requested? */
bool unic_pci_is_gone(const struct unic_pci_device *dev);
/** Was the device released (request or gone)? No BAR access works after. */
bool unic_pci_is_released(const struct unic_pci_device *dev);
/** A driver reports that the device reads as all-ones. */
void unic_pci_gone(struct unic_pci_device *dev);

/*
 * Probing (which driver takes a device, and the port it makes) is the port
 * layer's: unic_port_probe_pci() in unic/port.h. The bus only scans, opens,
 * maps and gives interrupts and DMA.
 */

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_BUS_H */
