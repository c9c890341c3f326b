/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

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

static double mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *unbind_main(void *arg)
{
	struct guest_unbind *u = arg;
	double t0 = mono_s();
	int fd = open("/sys/bus/pci/drivers/vfio-pci/unbind", O_WRONLY);

	if (fd < 0) {
		u->err = errno;
	} else {
		/* Blocks until vfio-pci has the device back. */
		if (write(fd, u->bdf, strlen(u->bdf)) < 0)
			u->err = errno;
		close(fd);
	}
	u->took = mono_s() - t0;
	__atomic_store_n(&u->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

int guest_unbind_start(struct guest_unbind *u, const char *bdf)
{
	memset(u, 0, sizeof(*u));
	snprintf(u->bdf, sizeof(u->bdf), "%s", bdf);
	return -pthread_create(&u->thread, NULL, unbind_main, u);
}

int guest_rebind(const char *bdf)
{
	FILE *f = fopen("/sys/bus/pci/drivers_probe", "w");
	int rc = 0;

	if (f == NULL)
		return -errno;
	if (fprintf(f, "%s", bdf) < 0)
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}
