/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-devbind against a fake sysfs tree. The command logic runs in this
 * process with hooks that record every write and play the kernel's part
 * (an unbind removes the driver link; drivers_probe binds to the
 * driver_override, as the kernel does only to that driver; a driver's bind
 * file binds, unless the override names another driver); the last tests
 * run the real binary (UNIC_DEVBIND) for its exit codes and output.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <unic/log.h>

#include "devbind.h"
#include "fake_sysfs.h"
#include "run_binary.h"

static char root[256];

struct fake_kernel {
	char writes[8192];     /* "REL=VALUE\n" per write, paths relative to root */
	char calls[1024];      /* "modprobe X\n", "mount DIR OPTS\n" */
	bool probe_ignored;    /* drivers_probe and bind do nothing */
	const char *refuse;    /* this driver takes no device: its probe fails */
	bool modprobe_works;
	const char *deny;      /* writes to paths containing this fail (EACCES) */
	const char *nr_gets;   /* what nr_hugepages reads back after a write */
};

static struct fake_kernel fk;
static char *out, *err;
static size_t out_len, err_len;

static void dev_rel(const char *bdf, const char *attr, char *rel, size_t len)
{
	snprintf(rel, len, "sys/devices/pci0000:00/%s/%s", bdf, attr);
}

static int fk_write(void *ctx, const char *path, const char *val)
{
	struct fake_kernel *k = ctx;
	const char *rel = path + strlen(root) + 1;
	char buf[600], link[256], target[256];
	size_t n = strlen(k->writes);

	cr_assert(strncmp(path, root, strlen(root)) == 0, "a write outside the tree: %s", path);
	snprintf(k->writes + n, sizeof(k->writes) - n, "%s=%s%s", rel, val,
		 val[strlen(val) - 1] == '\n' ? "" : "\n");
	if (k->deny != NULL && strstr(rel, k->deny) != NULL)
		return -EACCES;
	if (strstr(rel, "nr_hugepages") != NULL) {
		fake_put(root, rel, k->nr_gets != NULL ? k->nr_gets : val);
		return 0;
	}
	if (strstr(rel, "/driver_override") != NULL) {
		fake_put(root, rel, val);
	} else if (strstr(rel, "/unbind") != NULL) {
		dev_rel(val, "driver", link, sizeof(link));
		snprintf(buf, sizeof(buf), "%s/%s", root, link);
		cr_assert_eq(unlink(buf), 0, "unbind of %s, which has no driver", val);
	} else if (strcmp(rel, "sys/bus/pci/drivers_probe") == 0 ||
		   strstr(rel, "/bind") != NULL) {
		char drv[64] = "";

		if (k->probe_ignored)
			return 0;
		char ovr[64];

		dev_rel(val, "driver_override", link, sizeof(link));
		fake_get(root, link, ovr, sizeof(ovr));
		ovr[strcspn(ovr, "\n")] = '\0';
		if (strcmp(ovr, "(null)") == 0)
			ovr[0] = '\0';
		if (strstr(rel, "/bind") != NULL) {
			sscanf(rel, "sys/bus/pci/drivers/%63[^/]", drv);
			/* The kernel: no match (another override) or a failed probe. */
			if ((ovr[0] != '\0' && strcmp(ovr, drv) != 0) ||
			    (k->refuse != NULL && strcmp(drv, k->refuse) == 0))
				return -ENODEV;
		} else {
			snprintf(drv, sizeof(drv), "%s", ovr);
		}
		if (drv[0] == '\0' || (k->refuse != NULL && strcmp(drv, k->refuse) == 0))
			return 0;
		dev_rel(val, "driver", link, sizeof(link));
		snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", drv);
		fake_link(root, link, target);
	}
	return 0;
}

static int fk_modprobe(void *ctx, const char *module)
{
	struct fake_kernel *k = ctx;
	size_t n = strlen(k->calls);

	snprintf(k->calls + n, sizeof(k->calls) - n, "modprobe %s\n", module);
	if (!k->modprobe_works)
		return -ENOENT;
	fake_add_driver(root, module);
	return 0;
}

static int fk_mount(void *ctx, const char *dir, const char *opts)
{
	struct fake_kernel *k = ctx;
	size_t n = strlen(k->calls);

	snprintf(k->calls + n, sizeof(k->calls) - n, "mount %s %s\n", dir + strlen(root), opts);
	return 0;
}

/* Run "unic-devbind --sysfs ROOT ARGS...": returns the exit code. */
#define DEVBIND(...) devbind(__VA_ARGS__, NULL)

static int devbind(const char *first, ...)
{
	char *argv[32] = { "unic-devbind", "--sysfs", root };
	int argc = 3, code;
	FILE *fo, *fe;
	va_list ap;
	const char *a;

	va_start(ap, first);
	for (a = first; a != NULL; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	free(out);
	free(err);
	fo = open_memstream(&out, &out_len);
	fe = open_memstream(&err, &err_len);
	struct devbind_env env = {
		.out = fo, .err = fe, .write = fk_write, .modprobe = fk_modprobe,
		.mount_hugetlbfs = fk_mount, .ctx = &fk,
	};
	code = devbind_run(&env, argc, argv);
	fclose(fo);
	fclose(fe);
	return code;
}

static const char *driver_of(const char *bdf)
{
	static char drv[64];
	char link[256], path[512], target[256];
	ssize_t n;

	dev_rel(bdf, "driver", link, sizeof(link));
	snprintf(path, sizeof(path), "%s/%s", root, link);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return "";
	target[n] = '\0';
	snprintf(drv, sizeof(drv), "%s", strrchr(target, '/') + 1);
	return drv;
}

/* DEV/driver_override as the kernel shows it: "" for none ("(null)" or cleared). */
static const char *override_of(const char *bdf)
{
	static char ovr[64];
	char link[256];

	dev_rel(bdf, "driver_override", link, sizeof(link));
	fake_get(root, link, ovr, sizeof(ovr));
	ovr[strcspn(ovr, "\n")] = '\0';
	if (strcmp(ovr, "(null)") == 0)
		ovr[0] = '\0';
	return ovr;
}

/* The tree, without the devices bound to @p skip (NULL: all of them). */
static void setup_without(const char *skip)
{
	static const struct fake_dev devs[] = {
		{ "0000:00:02.0", 0x8086, 0x10d3, 0x8086, 0, 0x020000, 0, 3, "e1000e", "eth0", NULL, true },
		{ "0000:00:03.0", 0x8086, 0x10d3, 0x8086, 0, 0x020000, 0, 4, "vfio-pci", NULL, NULL, false },
		{ "0000:00:03.1", 0x8086, 0x10d3, 0x8086, 0, 0x020000, 0, 4, NULL, NULL, NULL, false },
		{ "0000:00:04.0", 0x1af4, 0x1041, 0x1af4, 0x1100, 0x020000, -1, 5, "virtio-pci", "eth1", "virtio0", true },
		{ "0000:00:05.0", 0x8086, 0x10d3, 0x8086, 0, 0x020000, 0, -1, "uio_pci_generic", NULL, NULL, false },
		{ "0000:00:07.0", 0x8086, 0x10d3, 0x8086, 0, 0x020000, 0, 8, NULL, NULL, NULL, false },
		{ "0000:00:07.1", 0x8086, 0x10d3, 0x8086, 0, 0x020000, 0, 8, "e1000e", "eth2", NULL, false },
		{ "0000:00:1f.0", 0x8086, 0x2918, 0x8086, 0, 0x060100, 0, 6, "lpc_ich", NULL, NULL, false },
	};
	unsigned i;

	memset(&fk, 0, sizeof(fk));
	fk.modprobe_works = true;
	fake_root_create(root, sizeof(root));
	for (i = 0; i < UNIC_ARRAY_SIZE(devs); i++)
		if (skip == NULL || devs[i].driver == NULL || strcmp(devs[i].driver, skip) != 0)
			fake_add_dev(root, &devs[i]);
	fake_put(root, "sys/bus/pci/drivers_probe", "");
	fake_put(root, "proc/net/route",
		 "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
		 "eth0\t0002A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n");
	fake_put(root, "proc/net/ipv6_route", "");
	fake_put(root, "proc/mounts", "proc /proc proc rw 0 0\n");
	fake_put(root, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages", "0\n");
	fake_put(root, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/free_hugepages", "0\n");
	fake_put(root, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "0\n");
	fake_put(root, "sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "0\n");
}

static void setup(void)
{
	out = err = NULL;
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	setup_without(NULL);
}

static void teardown(void)
{
	free(out);
	free(err);
	fake_root_remove(root);
}

TestSuite(devbind, .init = setup, .fini = teardown);

#define HAS(buf, s) cr_assert(strstr((buf), (s)) != NULL, "want '%s' in:\n%s", (s), (buf))

Test(devbind, status_groups_network_devices_by_driver_with_numa_group_and_interface)
{
	const char *vfio, *uio, *kern, *none;

	cr_assert_eq(DEVBIND("--status"), DEVBIND_OK, "%s", err);
	vfio = strstr(out, "Network devices bound to vfio-pci\n=================================\n");
	uio = strstr(out, "Network devices bound to uio_pci_generic\n");
	kern = strstr(out, "Network devices bound to kernel drivers\n");
	none = strstr(out, "Network devices bound to no driver\n");
	cr_assert(vfio && uio && kern && none && vfio < uio && uio < kern && kern < none, "%s", out);
	HAS(vfio, "0000:00:03.0 'Intel Corporation 82574L Gigabit Network Connection' [8086:10d3] "
	    "numa=0 iommu_group=4 with 0000:00:03.1 (no driver) drv=vfio-pci unused=uio_pci_generic\n");
	HAS(uio, "0000:00:05.0 'Intel Corporation 82574L Gigabit Network Connection' [8086:10d3] "
	    "numa=0 iommu_group=none drv=uio_pci_generic unused=vfio-pci\n");
	HAS(kern, "0000:00:02.0 'Intel Corporation 82574L Gigabit Network Connection' [8086:10d3] "
	    "numa=0 iommu_group=3 (alone) drv=e1000e unused=vfio-pci,uio_pci_generic if=eth0 up *Active: has routes*\n");
	HAS(kern, "[1af4:1041] numa=-1 iommu_group=5 (alone) drv=virtio-pci unused=vfio-pci,uio_pci_generic if=eth1 up\n");
	HAS(kern, "0000:00:07.1 'Intel Corporation 82574L Gigabit Network Connection' [8086:10d3] "
	    "numa=0 iommu_group=8 with 0000:00:07.0 (no driver) drv=e1000e unused=vfio-pci,uio_pci_generic if=eth2 down\n");
	HAS(none, "0000:00:03.1 ");
	HAS(none, "0000:00:07.0 ");
	cr_assert(strstr(none, "0000:00:02.0") == NULL);
	cr_assert(strstr(out, "0000:00:1f.0") == NULL, "not a network device: not shown");
	cr_assert_eq(DEVBIND(NULL), DEVBIND_OK, "--status is the default");
	cr_assert_str_empty(fk.writes);
}

Test(devbind, binds_an_unbound_device_through_driver_override_and_drivers_probe)
{
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "00:03.1"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(fk.writes,
			 "sys/bus/pci/devices/0000:00:03.1/driver_override=vfio-pci\n"
			 "sys/bus/pci/drivers_probe=0000:00:03.1\n");
	cr_assert_str_eq(driver_of("0000:00:03.1"), "vfio-pci");
	cr_assert_str_eq(out, "0000:00:03.1: no driver -> vfio-pci (/dev/vfio/4)\n");
	cr_assert_str_empty(err, "group 4's other member is on vfio-pci: no warning");
	cr_assert_str_empty(fk.calls, "vfio-pci is loaded: no modprobe");
}

Test(devbind, refuses_an_interface_up_with_routes_and_changes_nothing)
{
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "0000:00:07.0", "0000:00:02.0"), DEVBIND_REFUSED);
	cr_assert_str_eq(err, "unic-devbind: 0000:00:02.0: refused: its interface eth0 is up and "
			 "has routes, so this machine may be using it; nothing was changed; use "
			 "--force to take it anyway\n");
	cr_assert_str_empty(fk.writes);
	cr_assert_str_eq(driver_of("0000:00:02.0"), "e1000e");
	cr_assert_eq(DEVBIND("--unbind", "0000:00:02.0"), DEVBIND_REFUSED);
	cr_assert_str_empty(fk.writes);
}

Test(devbind, force_takes_an_interface_up_with_routes_with_a_warning)
{
	cr_assert_eq(DEVBIND("--force", "--bind", "vfio-pci", "0000:00:02.0"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(fk.writes,
			 "sys/bus/pci/devices/0000:00:02.0/driver_override=vfio-pci\n"
			 "sys/bus/pci/drivers/e1000e/unbind=0000:00:02.0\n"
			 "sys/bus/pci/drivers_probe=0000:00:02.0\n");
	cr_assert_str_eq(driver_of("0000:00:02.0"), "vfio-pci");
	HAS(err, "warning: 0000:00:02.0: interface eth0 is up and has routes; taking it anyway (--force)");
	cr_assert_str_eq(out, "0000:00:02.0: e1000e -> vfio-pci (/dev/vfio/3)\n");
}

Test(devbind, an_up_interface_without_routes_is_taken)
{
	cr_assert_eq(DEVBIND("--bind", "uio_pci_generic", "0000:00:04.0"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(driver_of("0000:00:04.0"), "uio_pci_generic");
}

Test(devbind, binding_back_to_a_kernel_driver_clears_driver_override)
{
	cr_assert_eq(DEVBIND("--bind", "e1000e", "0000:00:03.0"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(fk.writes,
			 "sys/bus/pci/devices/0000:00:03.0/driver_override=e1000e\n"
			 "sys/bus/pci/drivers/vfio-pci/unbind=0000:00:03.0\n"
			 "sys/bus/pci/drivers_probe=0000:00:03.0\n"
			 "sys/bus/pci/devices/0000:00:03.0/driver_override=\n");
	cr_assert_str_eq(driver_of("0000:00:03.0"), "e1000e");
	cr_assert_str_eq(out, "0000:00:03.0: vfio-pci -> e1000e\n");
}

Test(devbind, a_device_already_on_the_driver_is_left_alone)
{
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "0000:00:03.0"), DEVBIND_OK);
	cr_assert_str_eq(out, "0000:00:03.0: already bound to vfio-pci\n");
	cr_assert_str_empty(fk.writes);
}

Test(devbind, a_missing_device_is_exit_2_and_nothing_is_changed)
{
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "0000:00:03.1", "0000:00:09.0"),
		     DEVBIND_NOT_FOUND);
	HAS(err, "unic-devbind: 0000:00:09.0: no such PCI device (not in ");
	HAS(err, "nothing was changed; list the network devices with: unic-devbind --status\n");
	cr_assert_str_empty(fk.writes);
}

Test(devbind, usage_errors_are_exit_1_with_one_line)
{
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "3:00.0"), DEVBIND_USAGE);
	cr_assert_str_eq(err, "unic-devbind: '3:00.0' is not a PCI address or an interface name; "
			 "expected DDDD:BB:DD.F or BB:DD.F in hex, e.g. 0000:03:00.0, or the name of the "
			 "device's interface, e.g. eth1\n");
	cr_assert_eq(DEVBIND("--bind", "vfio-pci"), DEVBIND_USAGE);
	HAS(err, "--bind DRIVER: expected one or more PCI addresses or interface names");
	cr_assert_eq(DEVBIND("--status-dev", "gpu"), DEVBIND_USAGE);
	HAS(err, "--status-dev: expected net, baseband, compress, crypto, dma, event, mempool, misc or regex, found 'gpu'");
	cr_assert_eq(DEVBIND("--noiommu-mode", "--bind", "e1000e", "00:03.1"), DEVBIND_USAGE);
	HAS(err, "--noiommu-mode goes with --bind vfio-pci");
	cr_assert_eq(DEVBIND("--bind"), DEVBIND_USAGE);
	cr_assert_eq(DEVBIND("--frobnicate"), DEVBIND_USAGE);
	HAS(err, "unknown option '--frobnicate'");
	cr_assert_eq(DEVBIND("--status", "--unbind", "00:03.0"), DEVBIND_USAGE);
	HAS(err, "one command at a time");
	cr_assert_eq(DEVBIND("--reserve", "many"), DEVBIND_USAGE);
	cr_assert_eq(DEVBIND("--reserve", "+4"), DEVBIND_USAGE);
	HAS(err, "--reserve: expected a number from 0 to 16777216, found '+4'");
	cr_assert_eq(DEVBIND("--reserve", " 4"), DEVBIND_USAGE);
	cr_assert_eq(DEVBIND("--reserve", "4", "--node", "-0"), DEVBIND_USAGE);
	cr_assert_eq(DEVBIND("--reserve", "4", "--size", "4M"), DEVBIND_USAGE);
	HAS(err, "--size: expected 2M or 1G, found '4M'");
	cr_assert_eq(DEVBIND("--status", "00:03.0"), DEVBIND_USAGE);
	cr_assert_eq(DEVBIND("--help"), DEVBIND_OK);
	HAS(out, "Usage: unic-devbind");
	cr_assert_str_empty(fk.writes);
}

Test(devbind, warns_when_the_iommu_group_has_a_member_on_another_driver)
{
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "0000:00:07.0"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(err, "unic-devbind: warning: 0000:00:07.0: IOMMU group 8 also holds "
			 "0000:00:07.1 (e1000e); VFIO needs every member bound to vfio-pci (or to "
			 "no driver), so the group is not viable until you run: unic-devbind --bind "
			 "vfio-pci 0000:00:07.1\n");
}

Test(devbind, no_group_warning_when_the_whole_group_is_bound_at_once)
{
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "0000:00:07.0", "0000:00:07.1"), DEVBIND_OK,
		     "%s", err);
	cr_assert_str_empty(err);
	cr_assert_str_eq(driver_of("0000:00:07.0"), "vfio-pci");
	cr_assert_str_eq(driver_of("0000:00:07.1"), "vfio-pci");
}

Test(devbind, loads_vfio_pci_or_uio_pci_generic_with_modprobe_or_says_how)
{
	fake_root_remove(root);
	setup_without("uio_pci_generic");
	cr_assert_eq(DEVBIND("--bind", "uio_pci_generic", "0000:00:07.0"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(fk.calls, "modprobe uio_pci_generic\n");
	HAS(out, "loaded module uio_pci_generic\n");
	cr_assert_str_eq(driver_of("0000:00:07.0"), "uio_pci_generic");

	fake_root_remove(root);
	setup_without("uio_pci_generic");
	fk.modprobe_works = false;
	cr_assert_eq(DEVBIND("--bind", "uio_pci_generic", "0000:00:03.1"), DEVBIND_FAILED);
	HAS(err, "driver uio_pci_generic is not loaded");
	HAS(err, "and 'modprobe uio_pci_generic' failed; load it by hand (modprobe uio_pci_generic)");
	cr_assert_str_empty(fk.writes);
}

Test(devbind, a_write_that_fails_is_exit_4_and_says_to_run_as_root)
{
	fk.deny = "driver_override";
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "0000:00:03.1"), DEVBIND_FAILED);
	HAS(err, "cannot write 'vfio-pci' to ");
	HAS(err, "/sys/bus/pci/devices/0000:00:03.1/driver_override: Permission denied; run as root\n");
}

Test(devbind, a_bind_the_kernel_does_not_take_is_exit_4_after_trying_the_bind_file)
{
	fk.probe_ignored = true;
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "0000:00:03.1"), DEVBIND_FAILED);
	HAS(fk.writes, "sys/bus/pci/drivers/vfio-pci/bind=0000:00:03.1\n");
	HAS(err, "0000:00:03.1: expected it bound to vfio-pci, found no driver after "
	    "driver_override, unbind and drivers_probe; it stays unbound, driver_override "
	    "cleared; the kernel log says why vfio-pci did not take it (dmesg | tail)");
	cr_assert_str_empty(override_of("0000:00:03.1"));
}

Test(devbind, a_driver_that_refuses_the_device_leaves_it_back_on_its_own_driver)
{
	fake_add_driver(root, "e1000");
	fk.refuse = "e1000";
	cr_assert_eq(DEVBIND("--bind", "e1000", "0000:00:07.1"), DEVBIND_FAILED);
	cr_assert_str_eq(driver_of("0000:00:07.1"), "e1000e", "writes:\n%s", fk.writes);
	cr_assert_str_empty(override_of("0000:00:07.1"));
	cr_assert_str_eq(fk.writes,
			 "sys/bus/pci/devices/0000:00:07.1/driver_override=e1000\n"
			 "sys/bus/pci/drivers/e1000e/unbind=0000:00:07.1\n"
			 "sys/bus/pci/drivers_probe=0000:00:07.1\n"
			 "sys/bus/pci/drivers/e1000/bind=0000:00:07.1\n"
			 "sys/bus/pci/devices/0000:00:07.1/driver_override=\n"
			 "sys/bus/pci/drivers/e1000e/bind=0000:00:07.1\n");
	HAS(err, "0000:00:07.1: expected it bound to e1000, found no driver after "
	    "driver_override, unbind and drivers_probe; put it back on e1000e, driver_override "
	    "cleared; the kernel "
	    "log says why e1000 did not take it (dmesg | tail)\n");
	cr_assert_str_empty(out);
}

Test(devbind, a_failed_bind_sets_driver_override_back_to_what_it_was)
{
	fake_put(root, "sys/devices/pci0000:00/0000:00:03.0/driver_override", "vfio-pci\n");
	fk.refuse = "e1000e";
	cr_assert_eq(DEVBIND("--bind", "e1000e", "0000:00:03.0"), DEVBIND_FAILED);
	cr_assert_str_eq(driver_of("0000:00:03.0"), "vfio-pci", "writes:\n%s", fk.writes);
	cr_assert_str_eq(override_of("0000:00:03.0"), "vfio-pci");
	HAS(err, "; put it back on vfio-pci, driver_override back to vfio-pci; the kernel log "
	    "says why e1000e did not take it (dmesg | tail)\n");
}

Test(devbind, a_failed_unbind_clears_driver_override_and_leaves_the_device_on_its_driver)
{
	fk.deny = "/unbind";
	cr_assert_eq(DEVBIND("--bind", "vfio-pci", "0000:00:07.1"), DEVBIND_FAILED);
	cr_assert_str_eq(driver_of("0000:00:07.1"), "e1000e");
	cr_assert_str_empty(override_of("0000:00:07.1"), "writes:\n%s", fk.writes);
	HAS(err, "cannot write '0000:00:07.1' to ");
	HAS(err, "/sys/bus/pci/drivers/e1000e/unbind: Permission denied; run as root\n");
	HAS(err, "0000:00:07.1: not bound to vfio-pci: the unbind from e1000e failed (the line "
	    "above says why); it stays on e1000e, driver_override cleared\n");
}

Test(devbind, a_failed_probe_write_puts_the_device_back_on_its_driver)
{
	fk.deny = "drivers_probe";
	fk.refuse = "uio_pci_generic";
	cr_assert_eq(DEVBIND("--bind", "uio_pci_generic", "0000:00:07.1"), DEVBIND_FAILED);
	cr_assert_str_eq(driver_of("0000:00:07.1"), "e1000e", "writes:\n%s", fk.writes);
	cr_assert_str_empty(override_of("0000:00:07.1"));
	HAS(err, "put it back on e1000e");
}

Test(devbind, when_the_old_driver_will_not_take_it_back_the_message_says_how)
{
	fake_add_driver(root, "e1000");
	fk.probe_ignored = true;
	cr_assert_eq(DEVBIND("--bind", "e1000", "0000:00:07.1"), DEVBIND_FAILED);
	cr_assert_str_eq(driver_of("0000:00:07.1"), "");
	cr_assert_str_empty(override_of("0000:00:07.1"));
	HAS(err, "0000:00:07.1: expected it bound to e1000, found no driver after "
	    "driver_override, unbind and drivers_probe; could not put it back on e1000e "
	    "(found no driver): see dmesg | tail, then bind it by hand: echo 0000:00:07.1 > "
	    "/sys/bus/pci/drivers/e1000e/bind\n");
}

Test(devbind, a_driver_name_with_a_path_in_it_is_refused_and_nothing_is_written)
{
	/* An attacker's directory that looks like a driver, reached through ../ */
	fake_put(root, "tmp/x/bind", "");
	fk.modprobe_works = true;
	cr_assert_eq(DEVBIND("--bind", "../../../../tmp/x", "0000:00:07.0"), DEVBIND_USAGE);
	cr_assert_str_eq(err, "unic-devbind: --bind: '../../../../tmp/x' is not a driver name; "
			 "expected the name of a directory in /sys/bus/pci/drivers (letters, "
			 "digits, '_', '.' and '-'), e.g. vfio-pci; nothing was changed\n");
	cr_assert_str_empty(fk.writes);
	cr_assert_str_empty(fk.calls, "no modprobe of a path either");
	char buf[64];
	cr_assert_str_empty(fake_get(root, "tmp/x/bind", buf, sizeof(buf)));
	cr_assert_str_eq(driver_of("0000:00:07.0"), "");

	static const char *const bad[] = { "..", ".", "a/b", "vfio pci", "e1000e\n", "x*",
		"a_name_longer_than_the_kernel_keeps_it", NULL };
	for (unsigned i = 0; bad[i] != NULL; i++) {
		cr_assert_eq(DEVBIND("--bind", bad[i], "0000:00:07.0"), DEVBIND_USAGE, "'%s'", bad[i]);
		HAS(err, "is not a driver name");
	}
	cr_assert_str_empty(fk.writes);
	cr_assert_str_empty(fk.calls);
}

Test(devbind, a_driver_that_is_not_registered_is_refused_unless_modprobe_can_make_it)
{
	cr_assert_eq(DEVBIND("--bind", "igb", "0000:00:07.0"), DEVBIND_USAGE);
	HAS(err, "unic-devbind: --bind: no driver 'igb' in /tmp/");
	HAS(err, "/sys/bus/pci/drivers; unic-devbind loads vfio-pci and uio_pci_generic itself, any other driver "
	    "must be loaded first (modprobe igb); nothing was changed\n");
	cr_assert_str_empty(fk.writes);
	cr_assert_str_empty(fk.calls);
	/* A registered kernel driver is accepted as it is. */
	fake_add_driver(root, "igb");
	cr_assert_eq(DEVBIND("--bind", "igb", "0000:00:07.0"), DEVBIND_OK, "%s", err);
	cr_assert_str_empty(fk.calls);
	cr_assert_str_eq(driver_of("0000:00:07.0"), "igb");
}

Test(devbind, unbind_writes_the_drivers_unbind_file)
{
	cr_assert_eq(DEVBIND("--unbind", "00:05.0", "00:03.1"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(fk.writes, "sys/bus/pci/drivers/uio_pci_generic/unbind=0000:00:05.0\n");
	cr_assert_str_eq(out, "0000:00:05.0: unbound from uio_pci_generic\n"
			 "0000:00:03.1: not bound to a driver\n");
	cr_assert_str_eq(driver_of("0000:00:05.0"), "");
}

Test(devbind, hugepages_reports_per_node_and_the_mounts)
{
	cr_assert_eq(DEVBIND("--hugepages"), DEVBIND_OK);
	HAS(out, "hugepages on node0: 2048kB 0 free of 0");
	HAS(out, "hugetlbfs: not mounted");
}

Test(devbind, reserve_writes_the_node_file_and_mounts_hugetlbfs_when_none_is_mounted)
{
	cr_assert_eq(DEVBIND("--reserve", "4", "--node", "0"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(fk.writes, "sys/devices/system/node/node0/hugepages/hugepages-2048kB/"
			 "nr_hugepages=4\n");
	cr_assert_str_eq(fk.calls, "mount /dev/hugepages pagesize=2M\n");
	HAS(out, "reserved 4 of 4 2 MiB pages on node 0");
	HAS(out, "mounted hugetlbfs (pagesize=2M) at ");

	fk.calls[0] = '\0';
	fk.writes[0] = '\0';
	fake_put(root, "proc/mounts", "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n");
	cr_assert_eq(DEVBIND("--reserve=8"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(fk.writes, "sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages=8\n");
	cr_assert_str_empty(fk.calls);
	HAS(out, "hugetlbfs for 2 MiB pages: mounted at /dev/hugepages");
}

Test(devbind, reserve_short_of_pages_or_of_a_pool_is_exit_4)
{
	fk.nr_gets = "2\n";
	cr_assert_eq(DEVBIND("--reserve", "4"), DEVBIND_FAILED);
	HAS(err, "reserved 2 2 MiB pages, expected 4: memory is short or fragmented");
	cr_assert_eq(DEVBIND("--reserve", "1", "--size", "1G"), DEVBIND_FAILED);
	HAS(err, "hugepages-1048576kB/nr_hugepages: the kernel has no hugepages of that size");
	cr_assert_eq(DEVBIND("--reserve", "1", "--node", "3"), DEVBIND_FAILED);
	HAS(err, "no such NUMA node or page size");
}

/* ---- dpdk-devbind's habits -------------------------------------------------- */

Test(devbind, an_interface_name_is_its_device)
{
	/* eth2 is 00:07.1's interface (the scan finds it). */
	cr_assert_eq(DEVBIND("-b", "vfio-pci", "eth2"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(driver_of("0000:00:07.1"), "vfio-pci");
	/* Through sys/class/net/NAME/device; virtio-net's leads to DEV/virtio0. */
	fake_link(root, "sys/class/net/ens4/device", "../../../devices/pci0000:00/0000:00:04.0/virtio0");
	fake_put(root, "sys/devices/pci0000:00/0000:00:04.0/virtio0/uevent", "");
	cr_assert_eq(DEVBIND("--bind=vfio-pci", "ens4"), DEVBIND_OK, "%s", err);
	HAS(out, "0000:00:04.0: virtio-pci -> vfio-pci (/dev/vfio/5)\n");
	/* An interface up with routes is refused by name as by address. */
	cr_assert_eq(DEVBIND("-b", "vfio-pci", "eth0"), DEVBIND_REFUSED);
	HAS(err, "0000:00:02.0: refused: its interface eth0 is up and has routes");
	cr_assert_eq(DEVBIND("-b", "vfio-pci", "eth9"), DEVBIND_NOT_FOUND);
	HAS(err, "eth9: no such network interface and not a PCI address; nothing was changed");
	fake_put(root, "sys/class/net/veth0/uevent", "");
	cr_assert_eq(DEVBIND("-u", "veth0"), DEVBIND_NOT_FOUND);
	HAS(err, "veth0: a virtual interface, on no PCI device");
	cr_assert_eq(DEVBIND("-b", "vfio-pci", "bad/name"), DEVBIND_USAGE);
}

Test(devbind, bind_none_unbinds_as_unbind_does)
{
	cr_assert_eq(DEVBIND("-b", "none", "00:05.0"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(fk.writes, "sys/bus/pci/drivers/uio_pci_generic/unbind=0000:00:05.0\n");
	HAS(out, "0000:00:05.0: unbound from uio_pci_generic\n");
	cr_assert_eq(DEVBIND("--bind=None", "00:03.0"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(driver_of("0000:00:03.0"), "");
	cr_assert_eq(DEVBIND("-u", "-b", "none", "00:03.1"), DEVBIND_USAGE, "one command at a time");
}

Test(devbind, status_dev_net_is_status_and_other_classes_say_unic_drives_none)
{
	char net[8192];

	cr_assert_eq(DEVBIND("--status"), DEVBIND_OK);
	snprintf(net, sizeof(net), "%s", out);
	cr_assert_eq(DEVBIND("--status-dev", "net"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(out, net);
	cr_assert_eq(DEVBIND("--status-dev=crypto"), DEVBIND_OK, "%s", err);
	cr_assert_str_eq(out, "\nNo 'crypto' devices: unic drives network devices only\n"
			      "=====================================================\n");
	cr_assert_str_empty(fk.writes);
}

Test(devbind, unused_lists_the_kernel_modules_whose_alias_matches_then_the_user_drivers)
{
	struct utsname u;
	char rel[256];

	cr_assert_eq(uname(&u), 0);
	snprintf(rel, sizeof(rel), "lib/modules/%s/modules.alias", u.release);
	fake_put(root, rel,
		 "# Aliases extracted from modules themselves.\n"
		 "alias pci:v00008086d000010D3sv*sd*bc*sc*i* e1000e\n"
		 "alias pci:v00001AF4d*sv*sd*bc*sc*i* virtio_pci\n"
		 "alias pci:v00008086d000010D3sv*sd*bc02sc*i* igb_test\n"
		 "alias usb:v*p*d*dc*dsc*dp*ic*isc*ip*in* usbcore\n");
	fake_put(root, "sys/devices/pci0000:00/0000:00:02.0/modalias",
		 "pci:v00008086d000010D3sv00008086sd00000000bc02sc00i00\n");
	fake_put(root, "sys/devices/pci0000:00/0000:00:04.0/modalias",
		 "pci:v00001AF4d00001041sv00001AF4sd00001100bc02sc00i00\n");
	fake_put(root, "sys/devices/pci0000:00/0000:00:03.1/modalias",
		 "pci:v00008086d000010D3sv00008086sd00000000bc02sc00i00\n");
	cr_assert_eq(DEVBIND("--status"), DEVBIND_OK, "%s", err);
	/* Its own driver is never unused (virtio_pci is virtio-pci). */
	HAS(out, "drv=e1000e unused=igb_test,vfio-pci,uio_pci_generic if=eth0");
	HAS(out, "drv=virtio-pci unused=vfio-pci,uio_pci_generic if=eth1");
	HAS(out, "0000:00:03.1 'Intel Corporation 82574L Gigabit Network Connection' [8086:10d3] "
		 "numa=0 iommu_group=4 with 0000:00:03.0 (vfio-pci) unused=e1000e,igb_test,vfio-pci,uio_pci_generic\n");
}

Test(devbind, without_an_iommu_vfio_pci_needs_noiommu_mode_which_turns_it_on)
{
	const char *param = "sys/module/vfio/parameters/enable_unsafe_noiommu_mode";

	fake_put(root, param, "N\n");
	/* 00:05.0 has no IOMMU group. */
	cr_assert_eq(DEVBIND("-b", "vfio-pci", "00:05.0"), DEVBIND_REFUSED);
	HAS(err, "0000:00:05.0: refused: it has no IOMMU group");
	HAS(err, "add --noiommu-mode");
	cr_assert_str_empty(fk.writes);
	cr_assert_eq(DEVBIND("--noiommu-mode", "-b", "vfio-pci", "00:05.0"), DEVBIND_OK, "%s", err);
	cr_assert_not_null(strstr(fk.writes, "sys/module/vfio/parameters/enable_unsafe_noiommu_mode=1\n"), "%s", fk.writes);
	cr_assert_lt(strstr(fk.writes, "enable_unsafe_noiommu_mode"), strstr(fk.writes, "driver_override"),
		     "the mode goes on before the bind: %s", fk.writes);
	HAS(err, "warning: enabled VFIO's unsafe no-IOMMU mode");
	cr_assert_str_eq(driver_of("0000:00:05.0"), "vfio-pci");
	/* Once on, no flag is needed; devices with a group never needed it. */
	setup_without("vfio-pci");
	fake_put(root, param, "Y\n");
	cr_assert_eq(DEVBIND("-b", "vfio-pci", "00:05.0"), DEVBIND_OK, "%s", err);
	cr_assert_null(strstr(fk.writes, "noiommu"), "%s", fk.writes);
}

/* ---- the real binary ---------------------------------------------------- */

static int run_binary(const char *args, char *buf, size_t len)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "%s --sysfs %s %s 2>&1", binary_path("UNIC_DEVBIND"), root, args);
	return binary_run(cmd, buf, len);
}

Test(devbind, the_binary_exits_with_the_documented_codes)
{
	char buf[8192];

	cr_assert_eq(run_binary("--status", buf, sizeof(buf)), 0);
	HAS(buf, "Network devices bound to vfio-pci\n");
	HAS(buf, "iommu_group=4 with 0000:00:03.1 (no driver) drv=vfio-pci");
	cr_assert_eq(run_binary("--bogus", buf, sizeof(buf)), 1);
	cr_assert_eq(run_binary("--bind vfio-pci 00:09.0", buf, sizeof(buf)), 2);
	cr_assert_eq(run_binary("--bind vfio-pci 00:02.0", buf, sizeof(buf)), 3);
	HAS(buf, "use --force");
}
