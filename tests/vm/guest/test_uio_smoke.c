/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UIO smoke test, run inside the QEMU rig's guest (boot uio, no
 * IOMMU): an e1000e bound to uio_pci_generic has a /dev/uioN, and its BAR0
 * reads through sysfs resource0 the way a UIO driver maps it.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest_pci.h"

#define E1000E_BAR0_SIZE (128 << 10)
#define E1000E_STATUS 0x8
#define E1000E_STATUS_LU (1u << 1)

static int find_e1000e(char bdf[][GUEST_BDF_LEN])
{
	int n = guest_pci_find(0x8086, 0x10d3, "uio_pci_generic", bdf, GUEST_MAX_DEVICES);

	cr_assert_gt(n, 0, "no e1000e (8086:10d3) bound to uio_pci_generic; did setup/bind run?");
	return n;
}

Test(uio, e1000e_has_a_uio_device_node)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n = find_e1000e(bdf);

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX], dev[NAME_MAX + 1] = "";
		struct dirent *e;
		DIR *d;
		int fd;

		/* /sys/bus/pci/devices/<bdf>/uio/ holds one entry: uioN */
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/uio", bdf[i]);
		d = opendir(path);
		cr_assert_not_null(d, "%s has no uio directory: %s", bdf[i], strerror(errno));
		while ((e = readdir(d)) != NULL)
			if (strncmp(e->d_name, "uio", 3) == 0)
				snprintf(dev, sizeof(dev), "%s", e->d_name);
		closedir(d);
		cr_assert_neq(dev[0], '\0', "%s has no uioN entry in sysfs", bdf[i]);
		snprintf(path, sizeof(path), "/dev/%s", dev);
		fd = open(path, O_RDWR);
		cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
		close(fd);
	}
}

Test(uio, e1000e_config_space_reads_its_ids)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN], path[PATH_MAX];
	uint32_t ids = 0;
	int fd;

	find_e1000e(bdf);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", bdf[0]);
	fd = open(path, O_RDONLY);
	cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
	cr_assert_eq(pread(fd, &ids, sizeof(ids), 0), (ssize_t)sizeof(ids));
	cr_assert_eq(ids, 0x10d38086u, "config space IDs %#x", ids);
	close(fd);
}

Test(uio, e1000e_bar0_maps_through_resource0_and_status_shows_link_up)
{
	char bdf[GUEST_MAX_DEVICES][GUEST_BDF_LEN];
	int n = find_e1000e(bdf);

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX];
		volatile uint32_t *bar;
		uint32_t status;
		int fd;

		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0", bdf[i]);
		fd = open(path, O_RDWR | O_SYNC);
		cr_assert_geq(fd, 0, "open %s: %s", path, strerror(errno));
		bar = mmap(NULL, E1000E_BAR0_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		cr_assert_neq((void *)bar, MAP_FAILED, "mmap %s: %s", path, strerror(errno));
		status = bar[E1000E_STATUS / 4];
		cr_assert_neq(status, 0xffffffffu, "%s: STATUS reads all-ones", bdf[i]);
		cr_assert(status & E1000E_STATUS_LU, "%s: STATUS %#x has no link up", bdf[i], status);
		munmap((void *)bar, E1000E_BAR0_SIZE);
		close(fd);
	}
}
