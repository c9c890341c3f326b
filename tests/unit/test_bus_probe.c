/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Probe against the fake sysfs tree and fake VFIO of test_bus.c: the bus's
 * part (ids and a callback) and the port layer's (lib/port/probe.c) with
 * fake driver tables.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/vfio.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/mem.h>

#include "bus/bus_private.h"
#include "fake_sysfs.h"
#include "log_capture.h"
#include "port/port_private.h"
#include "unic_bus_driver.h"
#include "bus_fixture.h"

/* ---- probe: the bus's part (ids and a callback) ---- */

static int probed;
static void *probe_arg;

static const struct unic_pci_id fake_ids[] = { { 0x8086, 0x10d3 }, { 0, 0 } };

static int fake_probe(const struct unic_pci_driver *drv, struct unic_pci_device *dev, void *arg)
{
	(void)drv;
	probed++;
	probe_arg = arg;
	/* The driver owns the device now; this one closes it at once. */
	unic_pci_close(dev);
	return 0;
}

static const struct unic_pci_driver fake_drv = {
	.name = "fake", .id_table = fake_ids, .probe = fake_probe,
};
static const struct unic_pci_driver *const fake_table[] = { &fake_drv, NULL };

/* 00:03.0 an e1000e on vfio-pci, 00:04.0 one on the kernel's e1000e,
 * 00:05.0 a device no driver takes. */
static void fake_add_three(void)
{
	struct fake_dev kern = nic_vfio, other = nic_vfio;

	kern.bdf = "0000:00:04.0";
	kern.driver = "e1000e";
	kern.iommu_group = 8;
	other.bdf = "0000:00:05.0";
	other.device = 0x1234;
	other.iommu_group = 9;
	fake_add_dev(root, &nic_vfio);
	fake_add_dev(root, &kern);
	fake_add_dev(root, &other);
	dev_file("7");
}

Test(bus, probe_opens_matching_devices_and_reports_kernel_bound_ones)
{
	const char *allow[] = { "00:04.0" };
	int cookie;

	fake_add_three();
	probed = 0;
	cr_assert_eq(unic_pci_probe(bus, fake_table, NULL, 0, &cookie), 1);
	cr_assert_eq(probed, 1, "only the vfio-pci e1000e is probed");
	cr_assert_eq(probe_arg, &cookie, "the probe gets the caller's argument");
	assert_logged("unic-devbind --bind vfio-pci 0000:00:04.0");
	/* Asked for by name, a kernel-bound device is an error. */
	cr_assert_eq(unic_pci_probe(bus, fake_table, allow, 1, NULL), -EBUSY);
	cr_assert_eq(probed, 1);
	allow[0] = "00:0a.0";
	cr_assert_eq(unic_pci_probe(bus, fake_table, allow, 1, NULL), -ENODEV);
	allow[0] = "00:05.0";
	cr_assert_eq(unic_pci_probe(bus, fake_table, allow, 1, NULL), -ENODEV);
	assert_logged("no driver in this build drives it");
}

Test(bus, id_match_reads_a_zero_terminated_table)
{
	struct unic_pci_info info = { .vendor = 0x8086, .device = 0x10d3 };

	cr_assert(unic_pci_id_match(fake_ids, &info));
	info.device = 0x10d4;
	cr_assert_not(unic_pci_id_match(fake_ids, &info));
	cr_assert_not(unic_pci_id_match(NULL, &info), "no table matches nothing");
}

/* ---- probe: the port layer's part (lib/port/probe.c) ---- */

static void nop_info(struct unic_port *port, struct unic_port_info *info)
{
	(void)port;
	snprintf(info->driver, sizeof(info->driver), "fakeport");
}

static void nop_close(struct unic_port *port)
{
	struct unic_pci_device **dev = unic_port_priv(port);

	unic_pci_close(*dev);
	*dev = NULL;
}

static const struct unic_port_ops fake_port_ops = {
	.info_get = nop_info,
	.close = nop_close,
};

static int port_probe_err;

/* A PCI driver that makes a registered port of every device, or fails. */
static int fake_port_probe(struct unic_bus *b, struct unic_pci_device *dev, struct unic_port **out)
{
	struct unic_port *port;
	int rc;

	(void)b;
	if (port_probe_err)
		return port_probe_err;
	port = unic_port_alloc(sizeof(dev), "fakeport%d", NULL);
	cr_assert_not_null(port);
	port->ops = &fake_port_ops;
	*(struct unic_pci_device **)unic_port_priv(port) = dev;
	rc = unic_port_register(port);
	cr_assert_eq(rc, 0);
	*out = port;
	return 0;
}

static const struct unic_driver fake_port_drv = {
	.name = "fakeport", .pci_ids = fake_ids, .pci_probe = fake_port_probe,
};
static const struct unic_driver *const fake_port_table[] = { &fake_port_drv, NULL };

static unsigned registered_ports(void)
{
	uint16_t ids[UNIC_PORT_MAX];

	return unic_port_list(ids, UNIC_PORT_MAX);
}

Test(bus, port_probe_returns_the_ports_it_created_with_a_reference_each)
{
	struct unic_port *ports[4] = { NULL };
	unsigned nb, before = registered_ports();
	struct unic_port *p;

	fake_add_three();
	port_probe_err = 0;
	cr_assert_eq(port_probe_table(bus, fake_port_table, NULL, 0, ports, 4, &nb), 1);
	cr_assert_eq(nb, 1);
	cr_assert_not_null(ports[0]);
	cr_assert_eq(registered_ports(), before + 1);
	assert_logged("driver fakeport created port fakeport");
	p = unic_port_get_by_name(unic_port_name(ports[0]));
	cr_assert_eq(p, ports[0], "the port returned is the one registered");
	unic_port_put(p);
	cr_assert_eq(unic_port_detach(ports[0]), 0);
	unic_port_put(ports[0]);
	cr_assert_eq(registered_ports(), before);
}

Test(bus, a_failed_port_probe_leaves_no_port_behind)
{
	/* 00:03.0 makes a port; 00:04.0 is listed but kernel-bound: -EBUSY. */
	const char *allow[] = { "00:03.0", "00:04.0" };
	struct unic_port *ports[4] = { NULL };
	unsigned before = registered_ports();

	fake_add_three();
	port_probe_err = 0;
	cr_assert_eq(port_probe_pci_table(bus, fake_port_table, allow, 2, ports, 4), -EBUSY);
	cr_assert_eq(registered_ports(), before, "the port of 00:03.0 was detached");
	cr_assert_null(ports[0], "no reference is handed out on an error");
	assert_logged("detaching the 1 port(s) it created");
}

Test(bus, port_probe_with_no_room_fails_and_says_how_much_room_there_was)
{
	unsigned nb;

	fake_add_three();
	port_probe_err = 0;
	cr_assert_eq(port_probe_table(bus, fake_port_table, NULL, 0, NULL, 0, &nb), -ENOSPC);
	cr_assert_eq(nb, 0);
	assert_logged("there is room for 0 only");
}

Test(bus, port_probe_names_the_driver_whose_probe_failed)
{
	const char *allow[] = { "0000:00:03.0" };
	struct unic_port *ports[1];
	unsigned nb = 99;

	fake_add_three();
	port_probe_err = -EIO;
	cr_assert_eq(port_probe_table(bus, fake_port_table, allow, 1, ports, 1, &nb), -EIO);
	cr_assert_eq(nb, 0);
	assert_logged("0000:00:03.0: driver fakeport could not create its port");
	port_probe_err = 0;
}
