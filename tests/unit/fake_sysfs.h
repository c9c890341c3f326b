/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake sysfs (and /proc/net) tree in a temporary directory, laid out as
 * the kernel lays it out: device directories under sys/devices, symlinks to
 * them in sys/bus/pci/devices, driver and iommu_group symlinks, interfaces
 * in DEV/net/IF (or DEV/virtioN/net/IF). Paths are given relative to the
 * root. Used by the discovery and unic-devbind tests.
 */
#ifndef UNIC_TEST_FAKE_SYSFS_H
#define UNIC_TEST_FAKE_SYSFS_H

#include <stdbool.h>
#include <stddef.h>

struct fake_dev {
	const char *bdf;          /* "0000:00:02.0" */
	unsigned vendor, device, subsys_vendor, subsys_device, class_code;
	int numa_node;
	int iommu_group;          /* -1: no iommu_group link */
	const char *driver;       /* NULL: unbound */
	const char *ifname;       /* NULL: no interface */
	const char *virtio;       /* "virtio0": the interface sits under it */
	bool up;
};

/* Make the root (mkdtemp) into @p root. */
void fake_root_create(char *root, size_t len);
/* Remove the whole tree; "" is accepted. */
void fake_root_remove(const char *root);
/* Write @p text to ROOT/@p rel, creating directories on the way. */
void fake_put(const char *root, const char *rel, const char *text);
/* Read ROOT/@p rel into @p buf ("" if missing). */
const char *fake_get(const char *root, const char *rel, char *buf, size_t len);
/* Make ROOT/@p rel a symlink to @p target (relative or absolute). */
void fake_link(const char *root, const char *rel, const char *target);
/* A driver directory with bind, unbind and new_id files. */
void fake_add_driver(const char *root, const char *name);
/* A device; its driver's directory and IOMMU group are made as needed. */
void fake_add_dev(const char *root, const struct fake_dev *d);

#endif
