/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/bus internals shared between its files and its unit tests.
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

#endif /* UNIC_BUS_PRIVATE_H */
