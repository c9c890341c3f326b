/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PCI discovery against a fake sysfs tree: ids, class, names from a pci.ids
 * file (ours, the installed one, a missing and a corrupt one), NUMA -1,
 * IOMMU groups and their members, bound drivers, interfaces (virtio-net's
 * one level down), up and routes; address order; errors.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/log.h>

#include "bus/bus_private.h"
#include "fake_sysfs.h"
#include "log_capture.h"

static char root[256];

static const char ids[] =
	"# a small pci.ids for the tests\n"
	"8086  Intel Corporation\n"
	"\t10d3  82574L Gigabit Network Connection\n"
	"1af4  Red Hat, Inc.\n"
	"\t1041  Virtio 1.0 network device\n";

static char ids_path[300];

/* Seven devices, made out of address order, and one entry that is not one. */
static void make_tree(void)
{
	static const struct fake_dev devs[] = {
		/* bound to vfio-pci, in group 4 with 00:03.1 */
		{ "0000:00:03.0", 0x8086, 0x10d3, 0x8086, 0x0000, 0x020000, 0, 4, "vfio-pci", NULL, NULL, false },
		/* a NUMA -1 e1000e with a down interface, no IOMMU */
		{ "0000:01:00.0", 0x8086, 0x10d3, 0x8086, 0x0000, 0x020000, -1, -1, "e1000e", "eth2", NULL, false },
		/* bound to e1000e, eth0 up with routes */
		{ "0000:00:02.0", 0x8086, 0x10d3, 0x8086, 0x0000, 0x020000, 0, 3, "e1000e", "eth0", NULL, true },
		/* an ISA bridge, not a network device */
		{ "0000:00:1f.0", 0x8086, 0x2918, 0x1af4, 0x1100, 0x060100, 0, 6, "lpc_ich", NULL, NULL, false },
		/* unbound, the other member of group 4 */
		{ "0000:00:03.1", 0x8086, 0x10d3, 0x8086, 0x0000, 0x020000, 0, 4, NULL, NULL, NULL, false },
		/* virtio-net: the interface is under virtio0/, up, link-local routes only */
		{ "0000:00:04.0", 0x1af4, 0x1041, 0x1af4, 0x1100, 0x020000, 1, 5, "virtio-pci", "eth1", "virtio0", true },
		/* a second domain */
		{ "0001:00:00.0", 0x1af4, 0x1041, 0x1af4, 0x1100, 0x020000, -1, -1, NULL, NULL, NULL, false },
	};
	unsigned i;

	fake_root_create(root, sizeof(root));
	for (i = 0; i < UNIC_ARRAY_SIZE(devs); i++)
		fake_add_dev(root, &devs[i]);
	fake_put(root, "sys/bus/pci/devices/not-a-device/vendor", "0x8086\n");
	fake_put(root, "proc/net/route",
		 "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
		 "eth0\t00000000\t0102A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
		 "eth0\t0002A8C0\t00000000\t0001\t0\t0\t100\t00FFFFFF\t0\t0\t0\n");
	fake_put(root, "proc/net/ipv6_route",
		 "fe800000000000000000000000000000 40 00000000000000000000000000000000 00 "
		 "00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth1\n"
		 "ff000000000000000000000000000000 08 00000000000000000000000000000000 00 "
		 "00000000000000000000000000000000 00000100 00000004 00000000 00000001     eth1\n"
		 "00000000000000000000000000000000 00 00000000000000000000000000000000 00 "
		 "00000000000000000000000000000000 ffffffff 00000001 00000000 00200200       lo\n");
	fake_put(root, "pci.ids", ids);
	snprintf(ids_path, sizeof(ids_path), "%s/pci.ids", root);
}

static void setup(void)
{
	root[0] = '\0';
	logcap_start(UNIC_LOG_DEBUG, 0);
	make_tree();
}

static void teardown(void)
{
	logcap_stop();
	fake_root_remove(root);
}

TestSuite(pci_scan, .init = setup, .fini = teardown);

static const struct unic_pci_info *find(const struct unic_pci_info *devs, unsigned nb,
					const char *bdf)
{
	unsigned i;

	for (i = 0; i < nb; i++)
		if (strcmp(devs[i].bdf, bdf) == 0)
			return &devs[i];
	cr_assert_fail("%s was not found by the scan", bdf);
	return NULL;
}

static void scan(struct unic_pci_info **devs, unsigned *nb)
{
	struct bus_scan_opts o = { .root = root, .ids_path = ids_path };

	cr_assert_eq(bus_pci_scan(&o, devs, nb), 0, "scan failed: %s", logcap_buf);
}

Test(pci_scan, addresses_parse_in_both_forms_and_format_in_the_long_one)
{
	struct unic_pci_addr a;
	char buf[UNIC_PCI_BDF_LEN];

	cr_assert_eq(unic_pci_addr_parse("03:1F.7", &a), 0);
	cr_assert_eq(a.domain, 0);
	cr_assert_eq(a.bus, 3);
	cr_assert_eq(a.dev, 0x1f);
	cr_assert_eq(a.func, 7);
	cr_assert_str_eq(unic_pci_addr_fmt(&a, buf, sizeof(buf)), "0000:03:1f.7");
	cr_assert_eq(unic_pci_addr_parse("ABCD:ff:00.0", &a), 0);
	cr_assert_str_eq(unic_pci_addr_fmt(&a, buf, sizeof(buf)), "abcd:ff:00.0");
	cr_assert_eq(unic_pci_addr_parse("3:00.0", &a), -EINVAL);
	cr_assert_eq(unic_pci_addr_parse("0000:03:20.0", &a), -EINVAL);
	cr_assert_eq(unic_pci_addr_parse("0000:03:00.8", &a), -EINVAL);
	cr_assert_eq(unic_pci_addr_parse("0000-03:00.0", &a), -EINVAL);
	cr_assert_eq(unic_pci_addr_parse("", &a), -EINVAL);
	cr_assert_eq(unic_pci_addr_parse(NULL, &a), -EINVAL);
}

Test(pci_scan, finds_every_device_in_address_order_and_skips_other_entries)
{
	static const char *const order[] = {
		"0000:00:02.0", "0000:00:03.0", "0000:00:03.1", "0000:00:04.0",
		"0000:00:1f.0", "0000:01:00.0", "0001:00:00.0",
	};
	struct unic_pci_info *devs;
	unsigned nb, i;

	scan(&devs, &nb);
	cr_assert_eq(nb, UNIC_ARRAY_SIZE(order));
	for (i = 0; i < nb; i++)
		cr_assert_str_eq(devs[i].bdf, order[i], "position %u", i);
	free(devs);
}

Test(pci_scan, reads_ids_class_names_numa_group_driver_and_an_interface_up_with_routes)
{
	struct unic_pci_info *devs;
	const struct unic_pci_info *d;
	unsigned nb;

	scan(&devs, &nb);
	d = find(devs, nb, "0000:00:02.0");
	cr_assert_eq(d->addr.domain, 0);
	cr_assert_eq(d->addr.bus, 0);
	cr_assert_eq(d->addr.dev, 2);
	cr_assert_eq(d->addr.func, 0);
	cr_assert_eq(d->vendor, 0x8086);
	cr_assert_eq(d->device, 0x10d3);
	cr_assert_eq(d->subsys_vendor, 0x8086);
	cr_assert_eq(d->subsys_device, 0x0000);
	cr_assert_eq(d->class_code, 0x020000);
	cr_assert_str_eq(d->vendor_name, "Intel Corporation");
	cr_assert_str_eq(d->device_name, "82574L Gigabit Network Connection");
	cr_assert_eq(d->numa_node, 0);
	cr_assert_eq(d->iommu_group, 3);
	cr_assert_eq(d->nb_group_members, 1);
	cr_assert_str_eq(d->group_members[0], "0000:00:02.0");
	cr_assert_str_eq(d->driver, "e1000e");
	cr_assert(d->is_net);
	cr_assert_str_eq(d->ifname, "eth0");
	cr_assert(d->if_up);
	cr_assert(d->if_has_routes);
	free(devs);
}

Test(pci_scan, lists_both_members_of_a_group_for_the_vfio_bound_and_the_unbound_device)
{
	struct unic_pci_info *devs;
	const struct unic_pci_info *d;
	unsigned nb;

	scan(&devs, &nb);
	d = find(devs, nb, "0000:00:03.0");
	cr_assert_str_eq(d->driver, "vfio-pci");
	cr_assert_eq(d->iommu_group, 4);
	cr_assert_eq(d->nb_group_members, 2);
	cr_assert_str_eq(d->group_members[0], "0000:00:03.0");
	cr_assert_str_eq(d->group_members[1], "0000:00:03.1");
	cr_assert_str_eq(d->ifname, "");
	cr_assert_not(d->if_up);
	cr_assert_not(d->if_has_routes);

	d = find(devs, nb, "0000:00:03.1");
	cr_assert_str_eq(d->driver, "", "an unbound device has driver \"\"");
	cr_assert_eq(d->iommu_group, 4);
	cr_assert_eq(d->nb_group_members, 2);
	cr_assert_str_eq(d->group_members[0], "0000:00:03.0");
	cr_assert_str_eq(d->group_members[1], "0000:00:03.1");
	free(devs);
}

Test(pci_scan, finds_virtio_net_interfaces_under_virtioN_and_ignores_link_local_routes)
{
	struct unic_pci_info *devs;
	const struct unic_pci_info *d;
	unsigned nb;

	scan(&devs, &nb);
	d = find(devs, nb, "0000:00:04.0");
	cr_assert_eq(d->vendor, 0x1af4);
	cr_assert_eq(d->device, 0x1041);
	cr_assert_eq(d->subsys_vendor, 0x1af4);
	cr_assert_eq(d->subsys_device, 0x1100);
	cr_assert_str_eq(d->vendor_name, "Red Hat, Inc.");
	cr_assert_str_eq(d->device_name, "Virtio 1.0 network device");
	cr_assert_eq(d->numa_node, 1);
	cr_assert_str_eq(d->driver, "virtio-pci");
	cr_assert_str_eq(d->ifname, "eth1");
	cr_assert(d->if_up);
	cr_assert_not(d->if_has_routes, "fe80::/64 and ff00::/8 are not routes that show use");
	free(devs);
}

Test(pci_scan, keeps_numa_minus_one_and_no_group_and_reads_a_down_interface)
{
	struct unic_pci_info *devs;
	const struct unic_pci_info *d;
	unsigned nb;

	scan(&devs, &nb);
	d = find(devs, nb, "0000:01:00.0");
	cr_assert_eq(d->numa_node, -1);
	cr_assert_eq(d->iommu_group, -1);
	cr_assert_eq(d->nb_group_members, 0);
	cr_assert_str_eq(d->ifname, "eth2");
	cr_assert_not(d->if_up);
	cr_assert_not(d->if_has_routes);

	d = find(devs, nb, "0000:00:1f.0");
	cr_assert_not(d->is_net);
	cr_assert_eq(d->class_code, 0x060100);
	cr_assert_str_eq(d->vendor_name, "Intel Corporation");
	cr_assert_str_eq(d->device_name, "", "a device not in pci.ids has no name");

	d = find(devs, nb, "0001:00:00.0");
	cr_assert_eq(d->addr.domain, 1);
	cr_assert_eq(d->numa_node, -1);
	free(devs);
}

Test(pci_scan, a_global_ipv6_route_counts_as_a_route)
{
	struct unic_pci_info info;
	struct bus_scan_opts o = { .root = root, .ids_path = ids_path };

	fake_put(root, "proc/net/ipv6_route",
		 "20010db8000000000000000000000000 40 00000000000000000000000000000000 00 "
		 "00000000000000000000000000000000 00000100 00000001 00000000 00000001     eth1\n");
	cr_assert_eq(bus_pci_scan_one(&o, "00:04.0", &info), 0);
	cr_assert(info.if_has_routes);
}

Test(pci_scan, an_interface_up_by_operstate_alone_is_up)
{
	struct unic_pci_info info;
	struct bus_scan_opts o = { .root = root, .ids_path = ids_path };

	unlink(strcat(strcpy(logcap_buf, root), "/sys/devices/pci0000:00/0000:01:00.0/net/eth2/flags"));
	fake_put(root, "sys/devices/pci0000:00/0000:01:00.0/net/eth2/operstate", "up\n");
	cr_assert_eq(bus_pci_scan_one(&o, "0000:01:00.0", &info), 0);
	cr_assert(info.if_up);
}

Test(pci_scan, names_come_from_the_installed_pci_ids)
{
	struct unic_pci_info info;

	if (access("/usr/share/misc/pci.ids", R_OK) != 0 &&
	    access("/usr/share/hwdata/pci.ids", R_OK) != 0)
		cr_assert_fail("no pci.ids installed: run tools/install-deps (apt-get install pci.ids)");
	cr_assert_eq(unic_pci_scan_one(root, "0000:00:02.0", &info), 0, "%s", logcap_buf);
	cr_assert_str_eq(info.vendor_name, "Intel Corporation");
	cr_assert_str_eq(info.device_name, "82574L Gigabit Network Connection");
}

Test(pci_scan, names_are_empty_and_nothing_fails_without_a_names_database)
{
	struct bus_scan_opts o = { .root = root };
	char missing[320];
	struct unic_pci_info info;

	snprintf(missing, sizeof(missing), "%s/no-such-pci.ids", root);
	o.ids_path = missing;
	cr_assert_eq(bus_pci_scan_one(&o, "0000:00:02.0", &info), 0, "%s", logcap_buf);
	cr_assert_str_eq(info.vendor_name, "");
	cr_assert_str_eq(info.device_name, "");
	cr_assert_eq(info.vendor, 0x8086);
	cr_assert_str_eq(info.driver, "e1000e");
}

Test(pci_scan, a_corrupt_names_database_gives_empty_names_and_never_exits)
{
	struct bus_scan_opts o = { .root = root, .ids_path = ids_path };
	struct unic_pci_info *devs;
	unsigned nb;

	/* A device line before any vendor: libpci calls its fatal error hook. */
	fake_put(root, "pci.ids", "\t10d3  orphan device\nnot hex at all\n");
	cr_assert_eq(bus_pci_scan(&o, &devs, &nb), 0, "%s", logcap_buf);
	cr_assert_eq(nb, 7);
	cr_assert_str_eq(devs[0].vendor_name, "");
	cr_assert_str_eq(devs[0].device_name, "");
	cr_assert_str_eq(devs[0].driver, "e1000e");
	cr_assert(strstr(logcap_buf, "libpci:") != NULL, "the log says why: %s", logcap_buf);
	free(devs);
}

Test(pci_scan, scan_one_takes_the_short_form_and_reads_the_same_as_the_scan)
{
	struct bus_scan_opts o = { .root = root, .ids_path = ids_path };
	struct unic_pci_info *devs, one;
	unsigned nb;

	scan(&devs, &nb);
	cr_assert_eq(bus_pci_scan_one(&o, "00:03.1", &one), 0);
	cr_assert_eq(memcmp(&one, find(devs, nb, "0000:00:03.1"), sizeof(one)), 0);
	free(devs);
}

Test(pci_scan, scan_one_of_a_missing_device_is_enoent)
{
	struct unic_pci_info info;

	cr_assert_eq(unic_pci_scan_one(root, "0000:00:09.0", &info), -ENOENT);
	cr_assert_eq(unic_pci_scan_one(root, "not-a-bdf", &info), -EINVAL);
	cr_assert(strstr(logcap_buf, "bad PCI address 'not-a-bdf'; expected DDDD:BB:DD.F") != NULL,
		  "%s", logcap_buf);
}

Test(pci_scan, a_malformed_id_file_is_einval_naming_the_file_and_what_it_holds)
{
	struct unic_pci_info *devs = NULL, info;
	unsigned nb = 99;
	char want[512];

	fake_put(root, "sys/devices/pci0000:00/0000:00:03.1/vendor", "intel\n");
	cr_assert_eq(unic_pci_scan(root, &devs, &nb), -EINVAL);
	cr_assert_null(devs);
	cr_assert_eq(nb, 0);
	snprintf(want, sizeof(want), "%s/sys/bus/pci/devices/0000:00:03.1/vendor: expected a "
		 "hex number up to 0xffff (such as 0x8086), found 'intel'", root);
	cr_assert(strstr(logcap_buf, want) != NULL, "want '%s' in: %s", want, logcap_buf);
	cr_assert_eq(unic_pci_scan_one(root, "0000:00:03.1", &info), -EINVAL);
}

Test(pci_scan, a_malformed_numa_node_is_einval)
{
	struct unic_pci_info info;

	fake_put(root, "sys/devices/pci0000:00/0000:00:02.0/numa_node", "zero\n");
	cr_assert_eq(unic_pci_scan_one(root, "0000:00:02.0", &info), -EINVAL);
	cr_assert(strstr(logcap_buf, "numa_node: expected a node number or -1, found 'zero'") != NULL,
		  "%s", logcap_buf);
}

Test(pci_scan, a_directory_without_ids_is_einval_and_a_missing_sysfs_is_enoent)
{
	struct unic_pci_info *devs;
	unsigned nb;
	char other[300];

	fake_put(root, "sys/bus/pci/devices/0000:00:05.0/config", "");
	cr_assert_eq(unic_pci_scan(root, &devs, &nb), -EINVAL);
	cr_assert(strstr(logcap_buf, "0000:00:05.0 has no vendor, device or class file") != NULL,
		  "%s", logcap_buf);

	snprintf(other, sizeof(other), "%s/nothing-here", root);
	cr_assert_eq(unic_pci_scan(other, &devs, &nb), -ENOENT);
	cr_assert(strstr(logcap_buf, "cannot list PCI devices in") != NULL, "%s", logcap_buf);
	cr_assert(strstr(logcap_buf, "mount -t sysfs sysfs /sys") != NULL, "%s", logcap_buf);
}

Test(pci_scan, the_real_sys_scans_without_error)
{
	struct unic_pci_info *devs;
	unsigned nb, i;

	if (access("/sys/bus/pci/devices", R_OK) != 0)
		cr_skip_test("no /sys/bus/pci here");
	cr_assert_eq(unic_pci_scan(NULL, &devs, &nb), 0, "%s", logcap_buf);
	for (i = 1; i < nb; i++)
		cr_assert_lt(strcmp(devs[i - 1].bdf, devs[i].bdf), 0);
	free(devs);
}
