/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-devbind: show network devices with their driver, NUMA node and IOMMU
 * group; bind them to vfio-pci, uio_pci_generic or a kernel driver; unbind
 * them; show and reserve hugepages. See docs/devbind.md.
 *
 * Binding goes through driver_override: write the driver's name there,
 * unbind from the current driver, then ask the kernel to probe
 * (drivers_probe); the device can then only go to that driver. Binding back
 * to a kernel driver clears driver_override afterwards, so the device
 * behaves as before. A bind that fails after the override is written is
 * undone (bind_undo): the device goes back to the driver it had.
 *
 * DRIVER and every BDF are checked before any use (check_driver(),
 * unic_pci_addr_parse()): they become parts of sysfs paths.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <net/if.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/mem.h>

#include "devbind.h"

#define DEVBIND_MAX_DEVS 64

enum devbind_cmd {
	CMD_STATUS,
	CMD_BIND,
	CMD_UNBIND,
	CMD_HUGEPAGES,
	CMD_RESERVE,
};

struct devbind {
	const struct devbind_env *env;
	const char *root;                  /* prefix of /sys, /proc, /dev */
	enum devbind_cmd cmd;
	bool cmd_given;
	const char *driver;                /* --bind DRIVER */
	bool force;
	char bdfs[DEVBIND_MAX_DEVS][UNIC_PCI_BDF_LEN];
	unsigned nb_bdfs;
	char ifnames[DEVBIND_MAX_DEVS][IF_NAMESIZE]; /* devices given by interface name */
	unsigned nb_ifnames;
	const char *status_dev;            /* --status-dev CLASS; NULL: net */
	bool noiommu;                      /* --noiommu-mode */
	long reserve;                      /* --reserve N */
	int node;                          /* --node n; -1: all nodes */
	bool giga;                         /* --size 1G */
	struct unic_pci_info *devs;        /* every PCI device */
	unsigned nb_devs;
};

static const char usage_text[] =
	"Usage: unic-devbind [--sysfs ROOT] COMMAND\n"
	"  -s, --status                   network devices by driver, with NUMA node,\n"
	"                                 IOMMU group, the drivers that could take them\n"
	"                                 (unused=), interface (the default)\n"
	"  --status-dev CLASS             net as --status; DPDK's other classes (baseband,\n"
	"                                 compress, crypto, dma, event, mempool, misc,\n"
	"                                 regex) have no unic driver: none is listed\n"
	"  -b, --bind DRIVER DEV...       bind to vfio-pci, uio_pci_generic or a kernel\n"
	"                                 driver (e1000e, virtio-pci, ...); -b none unbinds\n"
	"  -u, --unbind DEV...            unbind from the current driver\n"
	"  --noiommu-mode                 with --bind vfio-pci and no IOMMU: turn on VFIO's\n"
	"                                 unsafe no-IOMMU mode (the device can reach all\n"
	"                                 memory)\n"
	"  --force                        take an interface that is up with routes\n"
	"  --hugepages                    free/total hugepages per node and size, mounts\n"
	"  --reserve N [--node n] [--size 2M|1G]\n"
	"                                 reserve N hugepages (on node n), mount\n"
	"                                 hugetlbfs if none is mounted for that size\n"
	"  --sysfs ROOT                   read and write ROOT/sys, ROOT/proc, ROOT/dev\n"
	"                                 (a fake tree, for tests)\n"
	"DEV: a PCI address, DDDD:BB:DD.F or BB:DD.F, or the name of the device's network\n"
	"interface (eth1). Exit status: 0 done, 1 usage, 2 no such device, 3 refused\n"
	"(use --force, or --noiommu-mode), 4 an operation failed.\n";

static int fail(struct devbind *b, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* One line on stderr per failure. */
static int fail(struct devbind *b, int code, const char *fmt, ...)
{
	va_list ap;

	fputs("unic-devbind: ", b->env->err);
	va_start(ap, fmt);
	vfprintf(b->env->err, fmt, ap);
	va_end(ap);
	fputc('\n', b->env->err);
	return code;
}

static void warn(struct devbind *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void warn(struct devbind *b, const char *fmt, ...)
{
	va_list ap;

	fputs("unic-devbind: warning: ", b->env->err);
	va_start(ap, fmt);
	vfprintf(b->env->err, fmt, ap);
	va_end(ap);
	fputc('\n', b->env->err);
}

/* ---- command line ---------------------------------------------------------- */

/* "--opt VAL" or "--opt=VAL"; advances *i past the value. NULL if missing. */
static const char *opt_value(int argc, char **argv, int *i, const char *name)
{
	size_t n = strlen(name);

	if (strncmp(argv[*i], name, n) == 0 && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (*i + 1 < argc) {
		(*i)++;
		return argv[*i];
	}
	return NULL;
}

static bool opt_is(const char *arg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(arg, name, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static int set_cmd(struct devbind *b, enum devbind_cmd cmd, const char *arg)
{
	if (b->cmd_given && b->cmd != cmd)
		return fail(b, DEVBIND_USAGE, "%s: one command at a time (--status, --bind, "
			    "--unbind, --hugepages or --reserve); see --help", arg);
	b->cmd = cmd;
	b->cmd_given = true;
	return 0;
}

static int parse_long(struct devbind *b, const char *opt, const char *val, long min,
		      long max, long *out)
{
	char *end;
	long v = 0;

	/* Digits only: strtol would also take a sign and leading spaces. */
	errno = 0;
	v = val != NULL && val[0] >= '0' && val[0] <= '9' ? strtol(val, &end, 10) : 0;
	if (val == NULL || val[0] < '0' || val[0] > '9' || *end != '\0' || errno != 0 || v < min ||
	    v > max)
		return fail(b, DEVBIND_USAGE, "%s: expected a number from %ld to %ld, found '%s'",
			    opt, min, max, val != NULL ? val : "(nothing)");
	*out = v;
	return 0;
}

/* A Linux interface name: 1..IF_NAMESIZE-1 characters, no '/' or space, not . or ... */
static bool is_ifname(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n < IF_NAMESIZE && strcspn(s, "/ \t\n") == n && strcmp(s, ".") != 0 &&
	       strcmp(s, "..") != 0;
}

static int parse_args(struct devbind *b, int argc, char **argv)
{
	int i, ret;
	long v = 0;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val;
		struct unic_pci_addr addr;

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			fputs(usage_text, b->env->out);
			return -1;
		} else if (strcmp(a, "--status") == 0 || strcmp(a, "-s") == 0) {
			ret = set_cmd(b, CMD_STATUS, a);
		} else if (opt_is(a, "--bind") || strcmp(a, "-b") == 0) {
			ret = set_cmd(b, CMD_BIND, a);
			val = opt_value(argc, argv, &i, a[1] == 'b' ? "-b" : "--bind");
			if (ret == 0 && (val == NULL || val[0] == '\0' || val[0] == '-'))
				return fail(b, DEVBIND_USAGE, "--bind: expected a driver name "
					    "(vfio-pci, uio_pci_generic or a kernel driver), found '%s'",
					    val != NULL ? val : "(nothing)");
			b->driver = val;
			/* dpdk-devbind's -b none: unbind. */
			if (ret == 0 && (strcmp(val, "none") == 0 || strcmp(val, "None") == 0))
				b->cmd = CMD_UNBIND;
		} else if (strcmp(a, "--unbind") == 0 || strcmp(a, "-u") == 0) {
			ret = set_cmd(b, CMD_UNBIND, a);
		} else if (opt_is(a, "--status-dev")) {
			static const char *const classes[] = { "net", "baseband", "compress", "crypto", "dma",
							       "event", "mempool", "misc", "regex" };
			bool known = false;

			ret = set_cmd(b, CMD_STATUS, a);
			val = opt_value(argc, argv, &i, "--status-dev");
			for (unsigned k = 0; val != NULL && k < UNIC_ARRAY_SIZE(classes); k++)
				known |= strcmp(val, classes[k]) == 0;
			if (ret == 0 && !known)
				return fail(b, DEVBIND_USAGE, "--status-dev: expected net, baseband, compress, "
					    "crypto, dma, event, mempool, misc or regex, found '%s'",
					    val != NULL ? val : "(nothing)");
			b->status_dev = val;
		} else if (strcmp(a, "--noiommu-mode") == 0) {
			b->noiommu = true;
			ret = 0;
		} else if (strcmp(a, "--force") == 0) {
			b->force = true;
			ret = 0;
		} else if (strcmp(a, "--hugepages") == 0) {
			ret = set_cmd(b, CMD_HUGEPAGES, a);
		} else if (opt_is(a, "--reserve")) {
			ret = set_cmd(b, CMD_RESERVE, a);
			if (ret == 0)
				ret = parse_long(b, "--reserve", opt_value(argc, argv, &i, "--reserve"),
						 0, 1L << 24, &b->reserve);
		} else if (opt_is(a, "--node")) {
			ret = parse_long(b, "--node", opt_value(argc, argv, &i, "--node"), 0, 4095, &v);
			b->node = (int)v;
		} else if (opt_is(a, "--size")) {
			val = opt_value(argc, argv, &i, "--size");
			ret = 0;
			if (val != NULL && (strcmp(val, "2M") == 0 || strcmp(val, "2m") == 0))
				b->giga = false;
			else if (val != NULL && (strcmp(val, "1G") == 0 || strcmp(val, "1g") == 0))
				b->giga = true;
			else
				return fail(b, DEVBIND_USAGE, "--size: expected 2M or 1G, found '%s'",
					    val != NULL ? val : "(nothing)");
		} else if (opt_is(a, "--sysfs")) {
			val = opt_value(argc, argv, &i, "--sysfs");
			if (val == NULL)
				return fail(b, DEVBIND_USAGE, "--sysfs: expected a directory");
			b->root = val;
			ret = 0;
		} else if (a[0] == '-') {
			return fail(b, DEVBIND_USAGE, "unknown option '%s'; see --help", a);
		} else if (unic_pci_addr_parse(a, &addr) == 0) {
			if (b->nb_bdfs == DEVBIND_MAX_DEVS)
				return fail(b, DEVBIND_USAGE, "too many devices: at most %d at once",
					    DEVBIND_MAX_DEVS);
			unic_pci_addr_fmt(&addr, b->bdfs[b->nb_bdfs++], UNIC_PCI_BDF_LEN);
			ret = 0;
		} else if (is_ifname(a) && strchr(a, ':') == NULL) {
			/* An interface name, resolved once the devices are read. */
			if (b->nb_bdfs + b->nb_ifnames == DEVBIND_MAX_DEVS)
				return fail(b, DEVBIND_USAGE, "too many devices: at most %d at once",
					    DEVBIND_MAX_DEVS);
			snprintf(b->ifnames[b->nb_ifnames++], IF_NAMESIZE, "%s", a);
			ret = 0;
		} else {
			return fail(b, DEVBIND_USAGE, "'%s' is not a PCI address or an interface name; "
				    "expected DDDD:BB:DD.F or BB:DD.F in hex, e.g. 0000:03:00.0, or the "
				    "name of the device's interface, e.g. eth1", a);
		}
		if (ret != 0)
			return ret;
	}
	if (b->nb_bdfs + b->nb_ifnames > 0 && b->cmd != CMD_BIND && b->cmd != CMD_UNBIND)
		return fail(b, DEVBIND_USAGE, "%s: devices go with --bind or --unbind",
			    b->nb_bdfs ? b->bdfs[0] : b->ifnames[0]);
	if ((b->cmd == CMD_BIND || b->cmd == CMD_UNBIND) && b->nb_bdfs + b->nb_ifnames == 0)
		return fail(b, DEVBIND_USAGE, "%s: expected one or more PCI addresses or interface names",
			    b->cmd == CMD_BIND ? "--bind DRIVER" : "--unbind");
	if (b->noiommu && (b->cmd != CMD_BIND || strcmp(b->driver, "vfio-pci") != 0))
		return fail(b, DEVBIND_USAGE, "--noiommu-mode goes with --bind vfio-pci");
	if ((b->node >= 0 || b->giga) && b->cmd != CMD_RESERVE)
		return fail(b, DEVBIND_USAGE, "--node and --size go with --reserve N");
	return 0;
}

/* ---- devices ---------------------------------------------------------------- */

static const struct unic_pci_info *find_dev(const struct devbind *b, const char *bdf)
{
	unsigned i;

	for (i = 0; i < b->nb_devs; i++)
		if (strcmp(b->devs[i].bdf, bdf) == 0)
			return &b->devs[i];
	return NULL;
}

static bool is_user_driver(const char *drv)
{
	return strcmp(drv, "vfio-pci") == 0 || strcmp(drv, "uio_pci_generic") == 0;
}

static const char *drv_or_none(const char *drv)
{
	return drv[0] != '\0' ? drv : "no driver";
}

static void pci_names(const struct unic_pci_info *d, char *buf, size_t len)
{
	if (d->vendor_name[0] != '\0' && d->device_name[0] != '\0')
		snprintf(buf, len, "%s %s", d->vendor_name, d->device_name);
	else if (d->vendor_name[0] != '\0')
		snprintf(buf, len, "%s Device %04x", d->vendor_name, d->device);
	else
		snprintf(buf, len, "Device %04x:%04x", d->vendor, d->device);
}

static bool driver_present(struct devbind *b, const char *drv);

/* Driver names compare with '-' and '_' alike: module virtio_pci is driver virtio-pci. */
static bool same_driver(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
			return false;
	return *a == *b;
}

/* Add @p name to the comma-separated @p list unless it is there or is @p skip. */
static void list_add(char *list, size_t len, const char *name, const char *skip)
{
	const char *p = list;
	size_t n = strlen(list);

	if (same_driver(name, skip))
		return;
	while (*p) {
		size_t l = strcspn(p, ",");
		char item[64];

		snprintf(item, sizeof(item), "%.*s", (int)l, p);
		if (same_driver(item, name))
			return;
		p += l + (p[l] == ',');
	}
	if (n + strlen(name) + 2 < len)
		snprintf(list + n, len - n, "%s%s", n ? "," : "", name);
}

/*
 * dpdk-devbind's unused= column: the drivers that could take the device and
 * do not have it. The kernel modules whose PCI alias matches the device's
 * modalias (ROOT/lib/modules/RELEASE/modules.alias, as lspci -k finds them),
 * then vfio-pci and uio_pci_generic when they are loaded; never the driver
 * it is on.
 */
static void print_unused(struct devbind *b, const struct unic_pci_info *d)
{
	static const char *const user[] = { "vfio-pci", "uio_pci_generic" };
	char path[PATH_MAX], modalias[256] = "", line[512], list[512] = "";
	struct utsname u;
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/modalias", b->root, d->bdf);
	f = fopen(path, "re");
	if (f != NULL) {
		if (fgets(modalias, sizeof(modalias), f) == NULL)
			modalias[0] = '\0';
		modalias[strcspn(modalias, "\n")] = '\0';
		fclose(f);
	}
	if (modalias[0] != '\0' && uname(&u) == 0) {
		snprintf(path, sizeof(path), "%s/lib/modules/%s/modules.alias", b->root, u.release);
		f = fopen(path, "re");
		while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
			char pat[256], mod[64];

			if (sscanf(line, "alias %255s %63s", pat, mod) == 2 &&
			    strncmp(pat, "pci:", 4) == 0 && fnmatch(pat, modalias, 0) == 0)
				list_add(list, sizeof(list), mod, d->driver);
		}
		if (f != NULL)
			fclose(f);
	}
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(user); i++)
		if (driver_present(b, user[i]))
			list_add(list, sizeof(list), user[i], d->driver);
	fprintf(b->env->out, " unused=%s", list);
}

static void print_dev(struct devbind *b, const struct unic_pci_info *d)
{
	FILE *out = b->env->out;
	char names[256];
	unsigned i, others = 0;

	pci_names(d, names, sizeof(names));
	fprintf(out, "%s '%s' [%04x:%04x] numa=%d", d->bdf, names, d->vendor, d->device,
		d->numa_node);
	if (d->iommu_group < 0) {
		fprintf(out, " iommu_group=none");
	} else {
		fprintf(out, " iommu_group=%d", d->iommu_group);
		for (i = 0; i < d->nb_group_members; i++) {
			const struct unic_pci_info *m;

			if (strcmp(d->group_members[i], d->bdf) == 0)
				continue;
			m = find_dev(b, d->group_members[i]);
			fprintf(out, "%s%s (%s)", others++ ? ", " : " with ", d->group_members[i],
				m != NULL ? drv_or_none(m->driver) : "?");
		}
		if (others == 0)
			fprintf(out, " (alone)");
	}
	if (d->driver[0] != '\0')
		fprintf(out, " drv=%s", d->driver);
	print_unused(b, d);
	if (d->ifname[0] != '\0')
		fprintf(out, " if=%s %s%s", d->ifname, d->if_up ? "up" : "down",
			d->if_has_routes ? " *Active: has routes*" : "");
	fputc('\n', out);
}

static void print_group(struct devbind *b, const char *title, int which)
{
	FILE *out = b->env->out;
	unsigned i, n = 0;
	size_t len = strlen(title);

	fprintf(out, "%s%s\n", which == 0 ? "" : "\n", title);
	while (len--)
		fputc('=', out);
	fputc('\n', out);
	for (i = 0; i < b->nb_devs; i++) {
		const struct unic_pci_info *d = &b->devs[i];
		int kind;

		if (!d->is_net)
			continue;
		if (strcmp(d->driver, "vfio-pci") == 0)
			kind = 0;
		else if (strcmp(d->driver, "uio_pci_generic") == 0)
			kind = 1;
		else if (d->driver[0] != '\0')
			kind = 2;
		else
			kind = 3;
		if (kind == which) {
			print_dev(b, d);
			n++;
		}
	}
	if (n == 0)
		fprintf(out, "<none>\n");
}

static int cmd_status(struct devbind *b)
{
	if (b->status_dev != NULL && strcmp(b->status_dev, "net") != 0) {
		char title[128];
		size_t len;

		/* dpdk-devbind's form for an empty class, saying why it is empty. */
		len = (size_t)snprintf(title, sizeof(title), "No '%s' devices: unic drives network devices only",
				       b->status_dev);
		fprintf(b->env->out, "\n%s\n", title);
		while (len--)
			fputc('=', b->env->out);
		fputc('\n', b->env->out);
		return DEVBIND_OK;
	}
	print_group(b, "Network devices bound to vfio-pci", 0);
	print_group(b, "Network devices bound to uio_pci_generic", 1);
	print_group(b, "Network devices bound to kernel drivers", 2);
	print_group(b, "Network devices bound to no driver", 3);
	return DEVBIND_OK;
}

/* ---- sysfs writes -------------------------------------------------------------- */

static int sys_write(struct devbind *b, const char *val, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Write @p val to ROOT + the formatted path; a failure is one line. */
static int sys_write(struct devbind *b, const char *val, const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX * 2];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s%s", b->root, rel);
	ret = b->env->write(b->env->ctx, path, val);
	if (ret < 0)
		fail(b, DEVBIND_FAILED, "cannot write '%s' to %s: %s%s", val, path, strerror(-ret),
		     ret == -EACCES || ret == -EPERM ? "; run as root" : "");
	return ret;
}

static bool driver_present(struct devbind *b, const char *drv)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/drivers/%s", b->root, drv);
	return stat(path, &st) == 0;
}

/* The driver is registered, or modprobe makes it so. */
static int load_driver(struct devbind *b, const char *drv)
{
	int ret;

	if (driver_present(b, drv))
		return 0;
	ret = b->env->modprobe(b->env->ctx, drv);
	if (ret == 0 && driver_present(b, drv)) {
		fprintf(b->env->out, "loaded module %s\n", drv);
		return 0;
	}
	return fail(b, DEVBIND_FAILED, "driver %s is not loaded (no %s/sys/bus/pci/drivers/%s) "
		    "and 'modprobe %s' %s; load it by hand (modprobe %s) or install its module "
		    "(apt-get install linux-image-$(uname -r))", drv, b->root, drv, drv,
		    ret == 0 ? "did not register it" : "failed", drv);
}

/*
 * VFIO opens a group only when no member is bound to a driver that does
 * DMA on its own (anything but vfio-pci, pci-stub, pcieport, or none).
 */
static void warn_group(struct devbind *b, const struct unic_pci_info *d)
{
	char blocking[1024] = "", unbound[1024] = "", cmd[1024] = "";
	size_t nbl = 0, nun = 0, nc = 0;
	unsigned i, j;

	for (i = 0; i < d->nb_group_members; i++) {
		const char *m = d->group_members[i];
		const struct unic_pci_info *md = find_dev(b, m);
		const char *drv = md != NULL ? md->driver : "";
		bool in_cmd = false;

		for (j = 0; j < b->nb_bdfs; j++)
			in_cmd |= strcmp(b->bdfs[j], m) == 0;
		if (in_cmd || strcmp(drv, "vfio-pci") == 0 || strcmp(drv, "pcieport") == 0 ||
		    strcmp(drv, "pci-stub") == 0)
			continue;
		if (drv[0] != '\0')
			nbl += (size_t)snprintf(blocking + nbl, sizeof(blocking) - UNIC_MIN(nbl, sizeof(blocking)),
						"%s%s (%s)", nbl ? ", " : "", m, drv);
		else
			nun += (size_t)snprintf(unbound + nun, sizeof(unbound) - UNIC_MIN(nun, sizeof(unbound)),
						"%s%s (no driver)", nun ? ", " : "", m);
		nc += (size_t)snprintf(cmd + nc, sizeof(cmd) - UNIC_MIN(nc, sizeof(cmd)), " %s", m);
	}
	if (nbl > 0)
		warn(b, "%s: IOMMU group %d also holds %s; VFIO needs every member bound to "
		     "vfio-pci (or to no driver), so the group is not viable until you run: "
		     "unic-devbind --bind vfio-pci%s", d->bdf, d->iommu_group, blocking, cmd);
	else if (nun > 0)
		warn(b, "%s: IOMMU group %d also holds %s; the group is viable while they stay "
		     "unbound; to keep a driver from claiming them: unic-devbind --bind vfio-pci%s",
		     d->bdf, d->iommu_group, unbound, cmd);
}

/* Unbind @p d from its driver (if any). */
static int unbind_dev(struct devbind *b, const struct unic_pci_info *d)
{
	if (d->driver[0] == '\0')
		return 0;
	return sys_write(b, d->bdf, "/sys/bus/pci/drivers/%s/unbind", d->driver);
}

/* DEV/driver_override as it is now: "" for none (the kernel shows "(null)"). */
static void read_override(struct devbind *b, const char *bdf, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/driver_override", b->root, bdf);
	f = fopen(path, "re");
	if (f != NULL) {
		if (fgets(buf, (int)len, f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
	if (strcmp(buf, "(null)") == 0)
		buf[0] = '\0';
}

/*
 * A bind went wrong after driver_override was written: clear the override,
 * put the device back on the driver it had (@p d->driver, if any), then set
 * the override back to what it was (@p old_override). Writes @p what, for the
 * report: what became of the device. @return true if it is back as it was.
 */
static bool bind_undo(struct devbind *b, const struct unic_pci_info *d, const char *old_override,
		      char *what, size_t len)
{
	struct unic_pci_info now;
	size_t n;
	int ret;

	sys_write(b, "\n", "/sys/bus/pci/devices/%s/driver_override", d->bdf);
	ret = unic_pci_scan_one(b->root, d->bdf, &now);
	if (ret == 0 && strcmp(now.driver, d->driver) != 0) {
		if (now.driver[0] != '\0')
			sys_write(b, d->bdf, "/sys/bus/pci/drivers/%s/unbind", now.driver);
		if (d->driver[0] != '\0')
			sys_write(b, d->bdf, "/sys/bus/pci/drivers/%s/bind", d->driver);
		ret = unic_pci_scan_one(b->root, d->bdf, &now);
		n = d->driver[0] != '\0' ? (size_t)snprintf(what, len, "put it back on %s", d->driver) :
					    (size_t)snprintf(what, len, "unbound it again");
	} else if (d->driver[0] != '\0') {
		n = (size_t)snprintf(what, len, "it stays on %s", d->driver);
	} else {
		n = (size_t)snprintf(what, len, "it stays unbound");
	}
	if (ret < 0 || strcmp(now.driver, d->driver) != 0) {
		if (d->driver[0] != '\0')
			snprintf(what, len, "could not put it back on %s (found %s): see dmesg | tail, "
				 "then bind it by hand: echo %s > /sys/bus/pci/drivers/%s/bind", d->driver,
				 ret < 0 ? "nothing readable" : drv_or_none(now.driver), d->bdf, d->driver);
		else
			snprintf(what, len, "it is now on %s, not unbound as before: unbind it with: "
				 "unic-devbind --unbind %s", ret < 0 ? "?" : drv_or_none(now.driver), d->bdf);
		return false;
	}
	if (old_override[0] != '\0') {
		sys_write(b, old_override, "/sys/bus/pci/devices/%s/driver_override", d->bdf);
		snprintf(what + n, len - UNIC_MIN(n, len), ", driver_override back to %s", old_override);
	} else {
		snprintf(what + n, len - UNIC_MIN(n, len), ", driver_override cleared");
	}
	return true;
}

/*
 * driver_override := DRIVER, unbind, drivers_probe (then DRIVER/bind). A
 * device must never be left on no driver by a bind that failed: on any
 * failure after the override is written, bind_undo() puts it back.
 */
static int bind_dev(struct devbind *b, const struct unic_pci_info *d)
{
	const char *drv = b->driver;
	char old_override[64], what[512];
	struct unic_pci_info now;
	bool kernel = !is_user_driver(drv);
	int ret;

	if (strcmp(drv, "vfio-pci") == 0)
		warn_group(b, d);
	if (strcmp(d->driver, drv) == 0) {
		fprintf(b->env->out, "%s: already bound to %s\n", d->bdf, drv);
		return DEVBIND_OK;
	}
	if (load_driver(b, drv) != 0)
		return DEVBIND_FAILED;
	read_override(b, d->bdf, old_override, sizeof(old_override));
	if (sys_write(b, drv, "/sys/bus/pci/devices/%s/driver_override", d->bdf) < 0)
		return DEVBIND_FAILED; /* nothing was changed */
	if (unbind_dev(b, d) < 0) {
		bind_undo(b, d, old_override, what, sizeof(what));
		return fail(b, DEVBIND_FAILED, "%s: not bound to %s: the unbind from %s failed (the "
			    "line above says why); %s", d->bdf, drv, d->driver, what);
	}
	/* A failed write says so itself; what counts is where the device ends up. */
	sys_write(b, d->bdf, "/sys/bus/pci/drivers_probe");
	ret = unic_pci_scan_one(b->root, d->bdf, &now);
	if (ret == 0 && strcmp(now.driver, drv) != 0) {
		/* drivers_probe found nothing: ask the driver itself. */
		sys_write(b, d->bdf, "/sys/bus/pci/drivers/%s/bind", drv);
		ret = unic_pci_scan_one(b->root, d->bdf, &now);
	}
	if (ret < 0 || strcmp(now.driver, drv) != 0) {
		bool undone = bind_undo(b, d, old_override, what, sizeof(what));

		if (ret < 0)
			return fail(b, DEVBIND_FAILED, "%s: cannot read it back after the bind: %s; %s",
				    d->bdf, strerror(-ret), what);
		return fail(b, DEVBIND_FAILED, "%s: expected it bound to %s, found %s after "
			    "driver_override, unbind and drivers_probe; %s%s%s%s", d->bdf, drv,
			    drv_or_none(now.driver), what,
			    undone ? "; the kernel log says why " : "", undone ? drv : "",
			    undone ? " did not take it (dmesg | tail)" : "");
	}
	/* A kernel driver needs no override; leaving one would pin the device. */
	if (kernel)
		sys_write(b, "\n", "/sys/bus/pci/devices/%s/driver_override", d->bdf);
	fprintf(b->env->out, "%s: %s -> %s", d->bdf, drv_or_none(d->driver), drv);
	if (d->iommu_group >= 0 && strcmp(drv, "vfio-pci") == 0)
		fprintf(b->env->out, " (/dev/vfio/%d)", d->iommu_group);
	fputc('\n', b->env->out);
	return DEVBIND_OK;
}

/*
 * --bind DRIVER becomes part of sysfs paths and is written to
 * driver_override: only the plain name of a registered driver is taken
 * (or vfio-pci / uio_pci_generic, which load_driver() may modprobe), and it
 * is checked before anything else is done.
 */
static int check_driver(struct devbind *b)
{
	const char *drv = b->driver;
	char path[PATH_MAX];
	struct stat st;
	size_t n = strspn(drv, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-");

	if (n == 0 || drv[n] != '\0' || n >= sizeof(((struct unic_pci_info *)0)->driver) ||
	    strspn(drv, ".") == n)
		return fail(b, DEVBIND_USAGE, "--bind: '%s' is not a driver name; expected the name "
			    "of a directory in /sys/bus/pci/drivers (letters, digits, '_', '.' and "
			    "'-'), e.g. vfio-pci; nothing was changed", drv);
	if (is_user_driver(drv))
		return 0;
	snprintf(path, sizeof(path), "%s/sys/bus/pci/drivers/%s", b->root, drv);
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return fail(b, DEVBIND_USAGE, "--bind: no driver '%s' in %s/sys/bus/pci/drivers; "
			    "unic-devbind loads vfio-pci and uio_pci_generic itself, any other driver "
			    "must be loaded first (modprobe %s); nothing was changed", drv, b->root, drv);
	return 0;
}

/*
 * An interface name to its PCI address: ROOT/sys/class/net/NAME/device
 * leads to the device (virtio-net's to DEV/virtioN, one level below it);
 * else an interface the scan found on a device. @return 0, or an exit code.
 */
static int resolve_ifname(struct devbind *b, const char *name, char bdf[UNIC_PCI_BDF_LEN])
{
	char path[PATH_MAX], real[PATH_MAX];
	struct unic_pci_addr addr;

	snprintf(path, sizeof(path), "%s/sys/class/net/%s/device", b->root, name);
	if (realpath(path, real) != NULL) {
		for (int up = 0; up < 2; up++) {
			char *base = strrchr(real, '/');

			if (base == NULL)
				break;
			if (unic_pci_addr_parse(base + 1, &addr) == 0) {
				unic_pci_addr_fmt(&addr, bdf, UNIC_PCI_BDF_LEN);
				return 0;
			}
			*base = '\0';
		}
		return fail(b, DEVBIND_NOT_FOUND, "%s: the interface is not on a PCI device (%s leads "
			    "to no PCI address); nothing was changed", name, path);
	}
	for (unsigned i = 0; i < b->nb_devs; i++) {
		if (strcmp(b->devs[i].ifname, name) == 0) {
			snprintf(bdf, UNIC_PCI_BDF_LEN, "%s", b->devs[i].bdf);
			return 0;
		}
	}
	struct stat st;

	snprintf(path, sizeof(path), "%s/sys/class/net/%s", b->root, name);
	if (stat(path, &st) == 0)
		return fail(b, DEVBIND_NOT_FOUND, "%s: a virtual interface, on no PCI device (no "
			    "%s/device); nothing was changed", name, path);
	return fail(b, DEVBIND_NOT_FOUND, "%s: no such network interface and not a PCI address; "
		    "nothing was changed; a device bound to vfio-pci or uio_pci_generic has no "
		    "interface: give its PCI address (unic-devbind --status lists them)", name);
}

/*
 * vfio-pci takes a device without an IOMMU group only in VFIO's unsafe
 * no-IOMMU mode. Without an IOMMU it is turned on with --noiommu-mode, as
 * dpdk-devbind does, and refused without it. @return 0 or an exit code.
 */
static int check_noiommu(struct devbind *b, const struct unic_pci_info *d, bool apply)
{
	const char *rel = "/sys/module/vfio/parameters/enable_unsafe_noiommu_mode";
	char path[PATH_MAX], v[8] = "";
	FILE *f;

	if (d->iommu_group >= 0 || strcmp(b->driver, "vfio-pci") != 0 ||
	    strcmp(d->driver, "vfio-pci") == 0)
		return 0;
	snprintf(path, sizeof(path), "%s%s", b->root, rel);
	f = fopen(path, "re");
	if (f != NULL) {
		if (fgets(v, sizeof(v), f) == NULL)
			v[0] = '\0';
		fclose(f);
	}
	if (v[0] == '1' || v[0] == 'Y' || v[0] == 'y')
		return 0;
	if (apply && b->noiommu) {
		if (load_driver(b, "vfio-pci") != 0)
			return DEVBIND_FAILED;
		if (sys_write(b, "1", "%s", rel) < 0)
			return DEVBIND_FAILED;
		warn(b, "enabled VFIO's unsafe no-IOMMU mode (%s): a device on vfio-pci can now reach "
		     "all memory", path);
		return 0;
	}
	if (!b->noiommu)
		return fail(b, DEVBIND_REFUSED, "%s: refused: it has no IOMMU group (no IOMMU, or it "
			    "is off) and VFIO's no-IOMMU mode is off, so vfio-pci cannot take it; "
			    "nothing was changed; add --noiommu-mode to turn that mode on (unsafe: "
			    "the device can then reach all memory; unic needs --vfio-noiommu too), "
			    "or bind it to uio_pci_generic", d->bdf);
	return 0;
}

static int cmd_bind_unbind(struct devbind *b)
{
	int worst = DEVBIND_OK;
	unsigned i;

	for (i = 0; i < b->nb_ifnames; i++) {
		int ret = resolve_ifname(b, b->ifnames[i], b->bdfs[b->nb_bdfs]);

		if (ret != 0)
			return ret;
		b->nb_bdfs++;
	}

	/* Check every device first: a refusal or a typo changes nothing. */
	for (i = 0; i < b->nb_bdfs; i++) {
		const struct unic_pci_info *d = find_dev(b, b->bdfs[i]);

		if (d == NULL)
			return fail(b, DEVBIND_NOT_FOUND, "%s: no such PCI device (not in "
				    "%s/sys/bus/pci/devices); nothing was changed; list the "
				    "network devices with: unic-devbind --status", b->bdfs[i], b->root);
		if (b->cmd == CMD_BIND && strcmp(d->driver, b->driver) == 0)
			continue;
		if (b->cmd == CMD_BIND) {
			int ret = check_noiommu(b, d, false);

			if (ret != 0)
				return ret;
		}
		if (d->ifname[0] != '\0' && d->if_up && d->if_has_routes) {
			if (!b->force)
				return fail(b, DEVBIND_REFUSED, "%s: refused: its interface %s is up "
					    "and has routes, so this machine may be using it; nothing was "
					    "changed; use --force to take it anyway", d->bdf, d->ifname);
			warn(b, "%s: interface %s is up and has routes; taking it anyway (--force)",
			     d->bdf, d->ifname);
		}
	}
	for (i = 0; i < b->nb_bdfs; i++) {
		const struct unic_pci_info *d = find_dev(b, b->bdfs[i]);
		int ret;

		if (b->cmd == CMD_BIND) {
			ret = check_noiommu(b, d, true);
			if (ret == 0)
				ret = bind_dev(b, d);
		} else if (d->driver[0] == '\0') {
			fprintf(b->env->out, "%s: not bound to a driver\n", d->bdf);
			ret = DEVBIND_OK;
		} else {
			ret = unbind_dev(b, d) < 0 ? DEVBIND_FAILED : DEVBIND_OK;
			if (ret == DEVBIND_OK)
				fprintf(b->env->out, "%s: unbound from %s\n", d->bdf, d->driver);
		}
		worst = UNIC_MAX(worst, ret);
	}
	return worst;
}

/* ---- hugepages --------------------------------------------------------------- */

static int cmd_hugepages(struct devbind *b)
{
	char mounts[PATH_MAX], report[8192];
	struct unic_mem_conf cfg = {
		.sz = sizeof(cfg), .sysfs_root = b->root, .mounts_path = mounts,
	};

	snprintf(mounts, sizeof(mounts), "%s/proc/mounts", b->root);
	unic_mem_hugepage_report(&cfg, report, sizeof(report));
	fprintf(b->env->out, "%s\n", report);
	return DEVBIND_OK;
}

/* A hugetlbfs mount that serves @p kb pages, from ROOT/proc/mounts. */
static bool hugetlbfs_mounted(struct devbind *b, unsigned long kb, char *dir, size_t len)
{
	char path[PATH_MAX], line[1024], mdir[512], fstype[64], opts[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/mounts", b->root);
	f = fopen(path, "re");
	if (f == NULL)
		return false;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		const char *ps;
		unsigned long size;
		char unit;

		if (sscanf(line, "%*s %511s %63s %511s", mdir, fstype, opts) != 3 ||
		    strcmp(fstype, "hugetlbfs") != 0)
			continue;
		ps = strstr(opts, "pagesize=");
		if (ps == NULL) {
			size = 2048; /* the default size on x86 */
		} else if (sscanf(ps + 9, "%lu%c", &size, &unit) == 2) {
			size *= unit == 'G' ? 1024 * 1024 : unit == 'M' ? 1024 : 1;
		} else {
			continue;
		}
		if (size == kb) {
			snprintf(dir, len, "%s", mdir);
			found = true;
		}
	}
	fclose(f);
	return found;
}

static int cmd_reserve(struct devbind *b)
{
	unsigned long kb = b->giga ? 1024 * 1024 : 2048;
	char rel[PATH_MAX], path[PATH_MAX * 2], val[32], dir[512];
	struct stat st;
	long got = -1;
	int ret, code = DEVBIND_OK;
	FILE *f;

	if (b->node >= 0)
		snprintf(rel, sizeof(rel), "/sys/devices/system/node/node%d/hugepages/"
			 "hugepages-%lukB/nr_hugepages", b->node, kb);
	else
		snprintf(rel, sizeof(rel), "/sys/kernel/mm/hugepages/hugepages-%lukB/nr_hugepages", kb);
	snprintf(path, sizeof(path), "%s%s", b->root, rel);
	if (stat(path, &st) < 0)
		return fail(b, DEVBIND_FAILED, "no %s: %s; see what exists with: unic-devbind "
			    "--hugepages", path, b->node >= 0 ? "no such NUMA node or page size" :
			    "the kernel has no hugepages of that size");
	snprintf(val, sizeof(val), "%ld", b->reserve);
	if (sys_write(b, val, "%s", rel) < 0)
		return DEVBIND_FAILED;
	f = fopen(path, "re");
	if (f != NULL) {
		if (fscanf(f, "%ld", &got) != 1)
			got = -1;
		fclose(f);
	}
	if (b->node >= 0)
		snprintf(dir, sizeof(dir), "on node %d", b->node);
	else
		snprintf(dir, sizeof(dir), "over all nodes");
	fprintf(b->env->out, "reserved %ld of %ld %s pages %s (%s)\n", got, b->reserve,
		b->giga ? "1 GiB" : "2 MiB", dir, path);
	if (got < b->reserve)
		code = fail(b, DEVBIND_FAILED, "reserved %ld %s pages, expected %ld: memory is "
			    "short or fragmented; free some, ask for fewer%s", got < 0 ? 0 : got,
			    b->giga ? "1 GiB" : "2 MiB", b->reserve,
			    b->giga ? ", or reserve 1 GiB pages at boot (hugepagesz=1G hugepages=N)" : "");

	if (hugetlbfs_mounted(b, kb, dir, sizeof(dir))) {
		fprintf(b->env->out, "hugetlbfs for %s pages: mounted at %s\n",
			b->giga ? "1 GiB" : "2 MiB", dir);
	} else if (b->reserve > 0) {
		snprintf(path, sizeof(path), "%s/dev/hugepages%s", b->root, b->giga ? "-1G" : "");
		ret = b->env->mount_hugetlbfs(b->env->ctx, path, b->giga ? "pagesize=1G" : "pagesize=2M");
		if (ret < 0)
			code = fail(b, DEVBIND_FAILED, "cannot mount hugetlbfs at %s: %s; by hand: "
				    "mkdir -p %s && mount -t hugetlbfs -o %s nodev %s", path,
				    strerror(-ret), path, b->giga ? "pagesize=1G" : "pagesize=2M", path);
		else
			fprintf(b->env->out, "mounted hugetlbfs (%s) at %s\n",
				b->giga ? "pagesize=1G" : "pagesize=2M", path);
	}
	return code;
}

/* ---- main ---------------------------------------------------------------------- */

int devbind_run(const struct devbind_env *env, int argc, char **argv)
{
	struct devbind b = { .env = env, .root = "", .cmd = CMD_STATUS, .node = -1 };
	int ret;

	ret = parse_args(&b, argc, argv);
	if (ret != 0)
		return ret < 0 ? DEVBIND_OK : ret;
	if (b.cmd == CMD_HUGEPAGES)
		return cmd_hugepages(&b);
	if (b.cmd == CMD_RESERVE)
		return cmd_reserve(&b);
	if (b.cmd == CMD_BIND && (ret = check_driver(&b)) != 0)
		return ret;

	ret = unic_pci_scan(b.root, &b.devs, &b.nb_devs);
	if (ret < 0)
		return fail(&b, DEVBIND_FAILED, "cannot scan PCI devices in %s/sys/bus/pci/devices: "
			    "%s (see the message above)", b.root, strerror(-ret));
	if (b.cmd == CMD_STATUS)
		ret = cmd_status(&b);
	else
		ret = cmd_bind_unbind(&b);
	free(b.devs);
	return ret;
}
