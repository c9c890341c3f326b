/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI discovery from sysfs: ids, class, NUMA node, IOMMU group and its
 * members, the bound driver, and for network devices the kernel interface,
 * whether it is up and whether it carries routes. Names come from libpci's
 * pci.ids lookup; a missing database gives empty names, never an error.
 *
 * Every path is ROOT + the real path (ROOT/sys/bus/pci/devices/...,
 * ROOT/proc/net/route), the same convention as lib/mem's sysfs_root, so one
 * fake tree serves a test for both.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>

#include <unic/bus.h>
#include <unic/log.h>

#include "bus_private.h"

/* Where one scan reads from, and its libpci handle (names only). */
struct pci_scan {
	char devices[PATH_MAX];      /* ROOT/sys/bus/pci/devices */
	char groups[PATH_MAX];       /* ROOT/sys/kernel/iommu_groups */
	char proc_net[PATH_MAX];     /* ROOT/proc/net */
	const char *ids_path;
	struct pci_access *pacc;     /* NULL: no names */
	bool names_failed;           /* libpci gave up: no more lookups */
};

/*
 * libpci reports a fatal error (no access method, a corrupt pci.ids) through
 * a->error, which must not return and by default exits the process. lib/
 * never exits, so while libpci runs on this thread its error handler jumps
 * back to the caller, which then gives up on names. The jump target is per
 * thread and set only around libpci calls: libpci's callback takes no
 * context argument, so there is no other place to keep it.
 */
static __thread jmp_buf *pci_names_jmp;

static void __attribute__((noreturn)) pci_names_error(char *msg, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, msg);
	vsnprintf(text, sizeof(text), msg, ap);
	va_end(ap);
	UNIC_LOG(WARNING, BUS, "libpci: %s; device names will be empty "
		 "(the names come from pci.ids: apt-get install pci.ids)", text);
	if (pci_names_jmp != NULL)
		longjmp(*pci_names_jmp, 1);
	abort(); /* not reached: every libpci call below sets the jump */
}

static void pci_names_warning(char *msg, ...)
{
	char text[256];
	va_list ap;

	va_start(ap, msg);
	vsnprintf(text, sizeof(text), msg, ap);
	va_end(ap);
	UNIC_LOG(DEBUG, BUS, "libpci: %s", text);
}

static void pci_names_open(struct pci_scan *s)
{
	jmp_buf jb;

	s->pacc = pci_alloc();
	if (s->pacc == NULL)
		return;
	s->pacc->error = pci_names_error;
	s->pacc->warning = pci_names_warning;
	s->pacc->debug = pci_names_warning;
	if (s->ids_path != NULL)
		pci_set_name_list_path(s->pacc, (char *)s->ids_path, 0);
	pci_names_jmp = &jb;
	if (setjmp(jb) != 0) {
		pci_names_jmp = NULL;
		s->names_failed = true;
		return;
	}
	pci_init(s->pacc);
	pci_names_jmp = NULL;
}

static void pci_names_close(struct pci_scan *s)
{
	jmp_buf jb;

	if (s->pacc == NULL)
		return;
	pci_names_jmp = &jb;
	if (setjmp(jb) == 0)
		pci_cleanup(s->pacc);
	pci_names_jmp = NULL;
	s->pacc = NULL;
}

/* One name from pci.ids into @p out ("" when unknown or unavailable). */
static void pci_names_lookup(struct pci_scan *s, char *out, size_t len, int what,
			     unsigned vendor, unsigned device)
{
	const int flags = what | PCI_LOOKUP_NO_NUMBERS |
			  (s->ids_path != NULL ? PCI_LOOKUP_NO_HWDB : 0);
	char buf[256];
	char *name;
	jmp_buf jb;

	out[0] = '\0';
	if (s->pacc == NULL || s->names_failed)
		return;
	pci_names_jmp = &jb;
	if (setjmp(jb) != 0) {
		/* pci.ids is corrupt: what was parsed is freed by pci_cleanup(). */
		pci_names_jmp = NULL;
		s->names_failed = true;
		return;
	}
	name = pci_lookup_name(s->pacc, buf, (int)sizeof(buf), flags, vendor, device);
	pci_names_jmp = NULL;
	if (name != NULL)
		snprintf(out, len, "%s", name);
}

static int pci_scan_init(struct pci_scan *s, const struct bus_scan_opts *o)
{
	const char *root = o != NULL && o->root != NULL ? o->root : "";

	memset(s, 0, sizeof(*s));
	if ((size_t)snprintf(s->devices, sizeof(s->devices), "%s/sys/bus/pci/devices",
			     root) >= sizeof(s->devices) ||
	    (size_t)snprintf(s->groups, sizeof(s->groups), "%s/sys/kernel/iommu_groups",
			     root) >= sizeof(s->groups) ||
	    (size_t)snprintf(s->proc_net, sizeof(s->proc_net), "%s/proc/net",
			     root) >= sizeof(s->proc_net)) {
		UNIC_LOG(ERR, BUS, "sysfs root '%.64s...' is too long; expected a path "
			 "shorter than %d bytes", root, PATH_MAX - 64);
		return -ENAMETOOLONG;
	}
	s->ids_path = o != NULL ? o->ids_path : NULL;
	pci_names_open(s);
	return 0;
}

/* ---- sysfs attributes -------------------------------------------------- */

/* Read a small attribute file, without its trailing newline. */
static int pci_read_attr(const char *dir, const char *attr, char *buf, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, attr);
	f = fopen(path, "re");
	if (f == NULL)
		return -errno;
	n = (ssize_t)fread(buf, 1, len - 1, f);
	if (ferror(f)) {
		int err = errno ? errno : EIO;

		fclose(f);
		return -err;
	}
	fclose(f);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* A hex attribute such as "0x8086" (the 0x is optional), at most @p max. */
static int pci_read_hex(const char *dir, const char *attr, unsigned long max,
			unsigned long *out)
{
	char buf[64], *end;
	unsigned long v;
	int ret;

	ret = pci_read_attr(dir, attr, buf, sizeof(buf));
	if (ret < 0) {
		if (ret != -ENOENT)
			UNIC_LOG(ERR, BUS, "cannot read %s/%s: %s", dir, attr, strerror(-ret));
		return ret;
	}
	errno = 0;
	v = strtoul(buf, &end, 16);
	if (buf[0] == '\0' || buf[0] == '-' || *end != '\0' || errno != 0 || v > max) {
		UNIC_LOG(ERR, BUS, "%s/%s: expected a hex number up to 0x%lx (such as "
			 "0x8086), found '%s'; is %s a sysfs tree?", dir, attr, max, buf, dir);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

/* The basename of the symlink @p dir/@p link, or "" if there is none. */
static int pci_read_link_base(const char *dir, const char *link, char *out, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", dir, link);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	target[n] = '\0';
	base = strrchr(target, '/');
	base = base != NULL ? base + 1 : target;
	if (strlen(base) >= len) {
		UNIC_LOG(ERR, BUS, "%s points to '%s'; expected a name shorter than %zu bytes",
			 path, target, len);
		return -EINVAL;
	}
	snprintf(out, len, "%s", base);
	return 0;
}

static int pci_read_numa(const char *dir, int *node)
{
	char buf[32], *end;
	long v;
	int ret;

	*node = -1;
	ret = pci_read_attr(dir, "numa_node", buf, sizeof(buf));
	if (ret == -ENOENT)
		return 0; /* a kernel without NUMA: unknown */
	if (ret < 0) {
		UNIC_LOG(ERR, BUS, "cannot read %s/numa_node: %s", dir, strerror(-ret));
		return ret;
	}
	errno = 0;
	v = strtol(buf, &end, 10);
	if (buf[0] == '\0' || *end != '\0' || errno != 0 || v < -1 || v > INT_MAX) {
		UNIC_LOG(ERR, BUS, "%s/numa_node: expected a node number or -1, found '%s'",
			 dir, buf);
		return -EINVAL;
	}
	*node = (int)v;
	return 0;
}

static int pci_member_cmp(const void *a, const void *b)
{
	struct unic_pci_addr x, y;

	/* Both were parsed before they were stored. */
	unic_pci_addr_parse(a, &x);
	unic_pci_addr_parse(b, &y);
	return bus_pci_addr_cmp(&x, &y);
}

/* The IOMMU group (basename of the iommu_group link) and its members. */
static int pci_read_group(struct pci_scan *s, const char *dir, struct unic_pci_info *info)
{
	char name[32], gdir[PATH_MAX + 64], *end;
	struct unic_pci_addr addr;
	struct dirent *de;
	unsigned total = 0;
	long g;
	DIR *d;
	int ret;

	info->iommu_group = -1;
	info->nb_group_members = 0;
	ret = pci_read_link_base(dir, "iommu_group", name, sizeof(name));
	if (ret < 0 || name[0] == '\0')
		return ret;
	errno = 0;
	g = strtol(name, &end, 10);
	if (*end != '\0' || errno != 0 || g < 0 || g > INT_MAX) {
		UNIC_LOG(ERR, BUS, "%s/iommu_group points to group '%s'; expected a number",
			 dir, name);
		return -EINVAL;
	}
	info->iommu_group = (int)g;

	snprintf(gdir, sizeof(gdir), "%s/%ld/devices", s->groups, g);
	d = opendir(gdir);
	if (d == NULL) {
		UNIC_LOG(WARNING, BUS, "%s: cannot list IOMMU group %ld in %s (%s); "
			 "taking the device as its only member", info->bdf, g, gdir,
			 strerror(errno));
		snprintf(info->group_members[0], UNIC_PCI_BDF_LEN, "%s", info->bdf);
		info->nb_group_members = 1;
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || unic_pci_addr_parse(de->d_name, &addr) < 0)
			continue;
		total++;
		if (info->nb_group_members < UNIC_PCI_MAX_GROUP)
			unic_pci_addr_fmt(&addr, info->group_members[info->nb_group_members++],
					  UNIC_PCI_BDF_LEN);
	}
	closedir(d);
	if (total > UNIC_PCI_MAX_GROUP)
		UNIC_LOG(WARNING, BUS, "IOMMU group %ld has %u devices; only the first %d "
			 "are listed", g, total, UNIC_PCI_MAX_GROUP);
	qsort(info->group_members, info->nb_group_members, UNIC_PCI_BDF_LEN,
	      pci_member_cmp);
	return 0;
}

/* ---- network interfaces ------------------------------------------------- */

/* The first (by name) entry of @p netdir, or "" if none. */
static void pci_first_entry(const char *netdir, char *out, size_t len)
{
	struct dirent *de;
	DIR *d;

	out[0] = '\0';
	d = opendir(netdir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strlen(de->d_name) >= len)
			continue;
		if (out[0] == '\0' || strcmp(de->d_name, out) < 0)
			snprintf(out, len, "%s", de->d_name);
	}
	closedir(d);
}

/*
 * The interface is in DEV/net/IF for most drivers; virtio-net puts it one
 * level down, in DEV/virtioN/net/IF. Fills @p netdir with the net/ directory.
 */
static void pci_find_ifname(const char *dir, struct unic_pci_info *info,
			    char *netdir, size_t len)
{
	struct dirent *de;
	DIR *d;

	snprintf(netdir, len, "%s/net", dir);
	pci_first_entry(netdir, info->ifname, sizeof(info->ifname));
	if (info->ifname[0] != '\0')
		return;
	d = opendir(dir);
	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL && info->ifname[0] == '\0') {
		if (strncmp(de->d_name, "virtio", 6) != 0 ||
		    (size_t)snprintf(netdir, len, "%s/%s/net", dir, de->d_name) >= len)
			continue;
		pci_first_entry(netdir, info->ifname, sizeof(info->ifname));
	}
	closedir(d);
}

/*
 * IPv6 destinations that every up interface gets by itself: link-local
 * fe80::/10 and multicast ff00::/8. They say nothing about the interface
 * being in use, so they do not count as routes.
 */
static bool pci_ipv6_automatic(const char *dst)
{
	return strncmp(dst, "ff", 2) == 0 ||
	       (strncmp(dst, "fe", 2) == 0 && strchr("89abAB", dst[2]) != NULL);
}

/*
 * Whether @p ifname appears in ROOT/proc/net/route (first column) or in
 * ROOT/proc/net/ipv6_route (last column; automatic routes excepted). A
 * missing file counts as no routes (a test tree without /proc, a kernel
 * without IPv6).
 */
static bool pci_if_has_routes(struct pci_scan *s, const char *ifname)
{
	char path[PATH_MAX + 16], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/route", s->proc_net);
	f = fopen(path, "re");
	if (f != NULL) {
		while (!found && fgets(line, sizeof(line), f) != NULL) {
			char dev[64];

			if (sscanf(line, "%63s", dev) == 1 && strcmp(dev, ifname) == 0)
				found = true;
		}
		fclose(f);
	} else {
		UNIC_LOG(DEBUG, BUS, "cannot read %s (%s): no IPv4 routes known",
			 path, strerror(errno));
	}

	snprintf(path, sizeof(path), "%s/ipv6_route", s->proc_net);
	f = fopen(path, "re");
	if (f != NULL) {
		while (!found && fgets(line, sizeof(line), f) != NULL) {
			char dst[64], dev[64];

			/* dst plen src plen next-hop metric refcnt use flags dev */
			if (sscanf(line, "%63s %*s %*s %*s %*s %*s %*s %*s %*s %63s",
				   dst, dev) == 2 &&
			    strcmp(dev, ifname) == 0 && !pci_ipv6_automatic(dst))
				found = true;
		}
		fclose(f);
	} else {
		UNIC_LOG(DEBUG, BUS, "cannot read %s (%s): no IPv6 routes known",
			 path, strerror(errno));
	}
	return found;
}

static int pci_read_netif(struct pci_scan *s, const char *dir, struct unic_pci_info *info)
{
	char netdir[PATH_MAX + 128], ifdir[PATH_MAX + 192], state[32];
	unsigned long flags = 0;

	pci_find_ifname(dir, info, netdir, sizeof(netdir));
	if (info->ifname[0] == '\0')
		return 0;
	snprintf(ifdir, sizeof(ifdir), "%s/%s", netdir, info->ifname);
	/* Up means administratively up (IFF_UP), or operstate "up" when the
	 * flags cannot be read. */
	if (pci_read_hex(ifdir, "flags", ULONG_MAX, &flags) == 0)
		info->if_up = (flags & IFF_UP) != 0;
	if (!info->if_up && pci_read_attr(ifdir, "operstate", state, sizeof(state)) == 0)
		info->if_up = strcmp(state, "up") == 0;
	info->if_has_routes = pci_if_has_routes(s, info->ifname);
	return 0;
}

/* ---- one device ---------------------------------------------------------- */

/* @p name is a directory entry of ROOT/sys/bus/pci/devices. */
static int pci_read_dev(struct pci_scan *s, const struct unic_pci_addr *addr,
			const char *name, struct unic_pci_info *info)
{
	unsigned long v = 0, d = 0, sv = 0, sd = 0, cls = 0;
	char dir[PATH_MAX + 32];
	int ret;

	memset(info, 0, sizeof(*info));
	info->addr = *addr;
	unic_pci_addr_fmt(addr, info->bdf, sizeof(info->bdf));
	snprintf(dir, sizeof(dir), "%s/%s", s->devices, name);

	ret = pci_read_hex(dir, "vendor", 0xffff, &v);
	if (ret == 0)
		ret = pci_read_hex(dir, "device", 0xffff, &d);
	if (ret == 0)
		ret = pci_read_hex(dir, "class", 0xffffff, &cls);
	if (ret == -ENOENT) {
		struct stat st;

		/* The directory itself gone: the device left during the scan. */
		if (stat(dir, &st) < 0)
			return -ENOENT;
		UNIC_LOG(ERR, BUS, "%s has no vendor, device or class file; expected a PCI "
			 "device directory in sysfs", dir);
		return -EINVAL;
	}
	if (ret < 0)
		return ret;
	/* Subsystem ids are absent on some bridges: 0 then. */
	ret = pci_read_hex(dir, "subsystem_vendor", 0xffff, &sv);
	if (ret == 0 || ret == -ENOENT)
		ret = pci_read_hex(dir, "subsystem_device", 0xffff, &sd);
	if (ret < 0 && ret != -ENOENT)
		return ret;
	info->vendor = (uint16_t)v;
	info->device = (uint16_t)d;
	info->subsys_vendor = (uint16_t)sv;
	info->subsys_device = (uint16_t)sd;
	info->class_code = (uint32_t)cls;
	info->is_net = (cls >> 16) == 0x02;

	pci_names_lookup(s, info->vendor_name, sizeof(info->vendor_name),
			 PCI_LOOKUP_VENDOR, v, 0);
	pci_names_lookup(s, info->device_name, sizeof(info->device_name),
			 PCI_LOOKUP_DEVICE, v, d);

	ret = pci_read_numa(dir, &info->numa_node);
	if (ret < 0)
		return ret;
	ret = pci_read_group(s, dir, info);
	if (ret < 0)
		return ret;
	ret = pci_read_link_base(dir, "driver", info->driver, sizeof(info->driver));
	if (ret < 0) {
		UNIC_LOG(ERR, BUS, "cannot read %s/driver: %s", dir, strerror(-ret));
		return ret;
	}
	if (info->is_net)
		return pci_read_netif(s, dir, info);
	return 0;
}

/* ---- scans ----------------------------------------------------------------- */

static int pci_info_cmp(const void *a, const void *b)
{
	return bus_pci_addr_cmp(&((const struct unic_pci_info *)a)->addr,
				&((const struct unic_pci_info *)b)->addr);
}

int bus_pci_scan(const struct bus_scan_opts *o, struct unic_pci_info **devs,
		 unsigned *nb)
{
	struct unic_pci_info *arr = NULL, *grown;
	unsigned n = 0, cap = 0;
	struct unic_pci_addr addr;
	struct pci_scan s;
	struct dirent *de;
	DIR *d;
	int ret;

	if (devs == NULL || nb == NULL)
		return -EINVAL;
	*devs = NULL;
	*nb = 0;
	ret = pci_scan_init(&s, o);
	if (ret < 0)
		return ret;
	d = opendir(s.devices);
	if (d == NULL) {
		ret = -errno;
		UNIC_LOG(ERR, BUS, "cannot list PCI devices in %s: %s; expected sysfs "
			 "there (mount -t sysfs sysfs /sys)", s.devices, strerror(-ret));
		goto close_names;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (unic_pci_addr_parse(de->d_name, &addr) < 0) {
			UNIC_LOG(DEBUG, BUS, "%s/%s: not a PCI address, skipped",
				 s.devices, de->d_name);
			continue;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(arr, cap * sizeof(*arr));
			if (grown == NULL) {
				ret = -ENOMEM;
				goto free_arr;
			}
			arr = grown;
		}
		ret = pci_read_dev(&s, &addr, de->d_name, &arr[n]);
		if (ret == -ENOENT)
			continue; /* removed while we looked */
		if (ret < 0)
			goto free_arr;
		n++;
	}
	closedir(d);
	pci_names_close(&s);
	qsort(arr, n, sizeof(*arr), pci_info_cmp);
	*devs = arr;
	*nb = n;
	return 0;

free_arr:
	free(arr);
	closedir(d);
close_names:
	pci_names_close(&s);
	return ret;
}

int bus_pci_scan_one(const struct bus_scan_opts *o, const char *bdf,
		     struct unic_pci_info *info)
{
	struct unic_pci_addr addr;
	char name[UNIC_PCI_BDF_LEN];
	struct pci_scan s;
	int ret;

	if (bdf == NULL || info == NULL)
		return -EINVAL;
	if (unic_pci_addr_parse(bdf, &addr) < 0) {
		UNIC_LOG(ERR, BUS, "bad PCI address '%s'; expected DDDD:BB:DD.F or BB:DD.F "
			 "in hex, e.g. 0000:03:00.0", bdf);
		return -EINVAL;
	}
	ret = pci_scan_init(&s, o);
	if (ret < 0)
		return ret;
	unic_pci_addr_fmt(&addr, name, sizeof(name));
	ret = pci_read_dev(&s, &addr, name, info);
	if (ret == -ENOENT)
		UNIC_LOG(DEBUG, BUS, "no PCI device %s in %s", name, s.devices);
	pci_names_close(&s);
	return ret;
}

int unic_pci_scan(const char *sysfs_root, struct unic_pci_info **devs, unsigned *nb)
{
	struct bus_scan_opts o = { .root = sysfs_root };

	return bus_pci_scan(&o, devs, nb);
}

int unic_pci_scan_one(const char *sysfs_root, const char *bdf, struct unic_pci_info *info)
{
	struct bus_scan_opts o = { .root = sysfs_root };

	return bus_pci_scan_one(&o, bdf, info);
}
