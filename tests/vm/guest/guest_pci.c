/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest_pci.h"

#define PCI_DEVICES "/sys/bus/pci/devices"

static long read_hex(const char *bdf, const char *attr)
{
	char path[PATH_MAX];
	long value = -1;
	FILE *f;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", bdf, attr);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (fscanf(f, "%lx", &value) != 1)
		value = -EINVAL;
	fclose(f);
	return value;
}

int guest_pci_link(const char *bdf, const char *attr, char *out, size_t size)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	snprintf(path, sizeof(path), PCI_DEVICES "/%s/%s", bdf, attr);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	snprintf(out, size, "%s", base ? base + 1 : target);
	return 0;
}

int guest_pci_find(uint16_t vendor, uint16_t device, const char *driver,
		   char bdf[][GUEST_BDF_LEN], int max)
{
	struct dirent *e;
	char bound[64];
	int n = 0;
	DIR *d;

	d = opendir(PCI_DEVICES);
	if (!d)
		return -errno;
	while ((e = readdir(d)) != NULL && n < max) {
		if (e->d_name[0] == '.' || strlen(e->d_name) >= GUEST_BDF_LEN)
			continue;
		if (read_hex(e->d_name, "vendor") != vendor ||
		    read_hex(e->d_name, "device") != device)
			continue;
		if (guest_pci_link(e->d_name, "driver", bound, sizeof(bound)) != 0 ||
		    strcmp(bound, driver) != 0)
			continue;
		snprintf(bdf[n++], GUEST_BDF_LEN, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

int guest_nics_expected(const char *model)
{
	char name[32], nic_model[32], rest[256];
	FILE *f;
	int n = 0;

	f = fopen("/etc/unic-vm/nics", "r");
	if (!f)
		return -errno;
	/* Lines: name model locator driver reset_method */
	while (fscanf(f, "%31s %31s %255[^\n]", name, nic_model, rest) == 3)
		n += strcmp(nic_model, model) == 0;
	fclose(f);
	return n;
}
