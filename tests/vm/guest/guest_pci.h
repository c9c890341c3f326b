/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers for the tests that run inside the QEMU rig's guest: find PCI
 * devices in sysfs by ID and bound driver.  Guest-only; not part of libunic.
 */
#ifndef UNIC_TESTS_VM_GUEST_PCI_H
#define UNIC_TESTS_VM_GUEST_PCI_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define GUEST_BDF_LEN 16	/* "0000:00:03.0" and its NUL */
#define GUEST_MAX_DEVICES 16

/*
 * Fills bdf[] with the devices that have this vendor:device ID and are bound
 * to driver, in sysfs order; returns how many (at most max), or -errno.
 */
int guest_pci_find(uint16_t vendor, uint16_t device, const char *driver,
		   char bdf[][GUEST_BDF_LEN], int max);

/*
 * How many NICs of this model ("e1000e", "virtio-net") the host put in the
 * guest, from /etc/unic-vm/nics; -errno when the file cannot be read.
 */
int guest_nics_expected(const char *model);

/* A sysfs attribute of a PCI device ("iommu_group", "driver") as the basename
 * of its symlink target; 0 or -errno. */
int guest_pci_link(const char *bdf, const char *attr, char *out, size_t size);

/*
 * Unbind a device from vfio-pci in a thread (the write blocks until the
 * driver has the device back) and time it; done is set (release) at the end.
 */
struct guest_unbind {
	char bdf[GUEST_BDF_LEN];
	int done;
	int err;      /* errno of the open or write, 0 */
	double took;  /* seconds the write took */
	pthread_t thread;
};

/* Start unbinding @p bdf; 0 or -errno (no thread). */
int guest_unbind_start(struct guest_unbind *u, const char *bdf);
/* Bind it again through drivers_probe (its driver_override stays); 0 or
 * -errno; the caller checks the driver. */
int guest_rebind(const char *bdf);

#endif
