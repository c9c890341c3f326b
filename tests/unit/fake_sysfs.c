/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fake_sysfs.h"

void fake_root_create(char *root, size_t len)
{
	snprintf(root, len, "/tmp/unic-test-sysfs-XXXXXX");
	cr_assert_not_null(mkdtemp(root));
}

static int fake_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fake_root_remove(const char *root)
{
	if (root[0] != '\0')
		nftw(root, fake_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void fake_mkdirs(char *path)
{
	char *p;

	for (p = strchr(path + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0755) < 0)
			cr_assert_eq(errno, EEXIST, "mkdir %s: %s", path, strerror(errno));
		*p = '/';
	}
}

void fake_put(const char *root, const char *rel, const char *text)
{
	char path[1024];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fake_mkdirs(path);
	f = fopen(path, "w");
	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
}

const char *fake_get(const char *root, const char *rel, char *buf, size_t len)
{
	char path[1024];
	size_t n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (f != NULL) {
		n = fread(buf, 1, len - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

void fake_link(const char *root, const char *rel, const char *target)
{
	char path[1024];

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	fake_mkdirs(path);
	unlink(path);
	cr_assert_eq(symlink(target, path), 0, "symlink %s: %s", path, strerror(errno));
}

void fake_add_driver(const char *root, const char *name)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/%s/bind", name);
	fake_put(root, rel, "");
	snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/%s/unbind", name);
	fake_put(root, rel, "");
	snprintf(rel, sizeof(rel), "sys/bus/pci/drivers/%s/new_id", name);
	fake_put(root, rel, "");
}

void fake_add_dev(const char *root, const struct fake_dev *d)
{
	char dev[256], rel[512], text[64], target[512];

	snprintf(dev, sizeof(dev), "sys/devices/pci0000:00/%s", d->bdf);
#define PUT(attr, fmt, val) do {					\
		snprintf(rel, sizeof(rel), "%s/" attr, dev);		\
		snprintf(text, sizeof(text), fmt "\n", val);		\
		fake_put(root, rel, text);				\
	} while (0)
	PUT("vendor", "0x%04x", d->vendor);
	PUT("device", "0x%04x", d->device);
	PUT("subsystem_vendor", "0x%04x", d->subsys_vendor);
	PUT("subsystem_device", "0x%04x", d->subsys_device);
	PUT("class", "0x%06x", d->class_code);
	PUT("numa_node", "%d", d->numa_node);
	PUT("driver_override", "%s", "(null)");
	snprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", d->bdf);
	snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", d->bdf);
	fake_link(root, rel, target);
	if (d->driver != NULL) {
		fake_add_driver(root, d->driver);
		snprintf(rel, sizeof(rel), "%s/driver", dev);
		snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", d->driver);
		fake_link(root, rel, target);
	}
	if (d->iommu_group >= 0) {
		snprintf(rel, sizeof(rel), "%s/iommu_group", dev);
		snprintf(target, sizeof(target), "../../../kernel/iommu_groups/%d",
			 d->iommu_group);
		fake_link(root, rel, target);
		snprintf(rel, sizeof(rel), "sys/kernel/iommu_groups/%d/devices/%s",
			 d->iommu_group, d->bdf);
		snprintf(target, sizeof(target), "../../../../devices/pci0000:00/%s", d->bdf);
		fake_link(root, rel, target);
	}
	if (d->ifname != NULL) {
		if (d->virtio != NULL)
			snprintf(rel, sizeof(rel), "%s/%s/net/%s/", dev, d->virtio, d->ifname);
		else
			snprintf(rel, sizeof(rel), "%s/net/%s/", dev, d->ifname);
		char *end = rel + strlen(rel);

		strcpy(end, "flags");
		fake_put(root, rel, d->up ? "0x1003\n" : "0x1002\n");
		strcpy(end, "operstate");
		fake_put(root, rel, d->up ? "up\n" : "down\n");
	}
#undef PUT
}
