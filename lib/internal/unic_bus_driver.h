/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bus as a layer above it sees it when it probes: a PCI driver is a name,
 * the ids it drives and a probe callback; the bus scans, matches ids, opens
 * the devices bound for userspace and hands each one to its driver. The bus
 * knows nothing of what a driver makes of a device (lib/port/probe.c makes
 * ports).
 */
#ifndef UNIC_BUS_DRIVER_H
#define UNIC_BUS_DRIVER_H

#include <unic/bus.h>

/** A vendor/device pair a driver drives; tables end with a zero vendor. */
struct unic_pci_id {
	uint16_t vendor;
	uint16_t device;
};

/**
 * Does the zero-terminated table @p ids (NULL: an empty one) list the vendor
 * and device of @p info? The one id matcher: the bus's probe and the layers
 * above (which driver would take a device) both use it.
 */
bool unic_pci_id_match(const struct unic_pci_id *ids, const struct unic_pci_info *info);

struct unic_pci_driver;

/**
 * Called by unic_pci_probe() with a device it opened for @p drv. @return 0:
 * the callee owns @p dev now (it closes it); -errno: it refused the device,
 * which the bus closes.
 */
typedef int (*unic_pci_probe_fn)(const struct unic_pci_driver *drv, struct unic_pci_device *dev,
				 void *arg);

/** A PCI driver as the bus sees it. */
struct unic_pci_driver {
	const char *name;
	const struct unic_pci_id *id_table;  /* zero-terminated */
	unic_pci_probe_fn probe;
};

/**
 * Scan @p bus, and hand every device (or only those in @p allow: PCI
 * addresses as unic_pci_addr_parse() takes them) that a driver of @p drivers
 * (NULL-terminated; the first that matches) drives and that is bound to
 * vfio-pci or uio_pci_generic, opened, to that driver's probe with @p arg.
 * A matching device bound to a kernel driver is reported with the
 * unic-devbind command that binds it, and skipped (an error only when it is
 * listed in @p allow).
 * @return how many probes returned 0, or the first error of a device in
 *         @p allow: -EINVAL (an address in @p allow is malformed), -ENODEV (no
 *         such device, or no driver for it), -EBUSY (not bound for
 *         userspace), the open's or the probe's error. Later devices are
 *         still probed after an error; what was probed stays probed.
 */
int unic_pci_probe(struct unic_bus *bus, const struct unic_pci_driver *const *drivers,
		   const char *const *allow, unsigned nb_allow, void *arg);

#endif /* UNIC_BUS_DRIVER_H */
