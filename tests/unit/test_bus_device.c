/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bus layer's device calls through the fake VFIO of test_bus.c: BARs,
 * config space, bus mastering, interrupts, both resets, and the device's
 * release on the kernel's request, by its owner and when it is gone.
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

/* ---- the device ---- */

Test(bus, bars_config_bus_master_irqs_and_reset_through_vfio)
{
	struct unic_pci_device *dev;
	uint32_t status = 0;
	uint16_t cmd = 0;
	int fds[5];
	size_t len;
	void *va;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_access(dev), UNIC_PCI_ACCESS_VFIO);
	cr_assert_eq(unic_pci_bar_map(dev, 0, &va, &len), 0);
	cr_assert_eq(len, 128u << 10);
	cr_assert_eq(unic_pci_bar_read32(dev, 0, 8, &status), 0);
	cr_assert_eq(status, 0x80080783);
	cr_assert_eq(unic_pci_bar_map(dev, 2, &va, &len), -ENOTSUP, "BAR2 has no MMAP flag");
	cr_assert_eq(unic_pci_bar_map(dev, 1, &va, &len), -EINVAL, "BAR1 does not exist");
	cr_assert_eq(unic_pci_bus_master(dev, true), 0);
	cr_assert_eq(unic_pci_cfg_read(dev, 4, &cmd, 2), 2);
	cr_assert_eq(cmd & 4, 4);

	cr_assert_eq(unic_pci_irq_count(dev, UNIC_PCI_IRQ_MSIX), 5);
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, 6, fds), -EINVAL);
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, 5, fds), 0);
	cr_assert_eq(fk.last_irqs.index, VFIO_PCI_MSIX_IRQ_INDEX);
	cr_assert_eq(fk.last_irqs.count, 5);
	cr_assert_eq(fk.last_irqs.flags, VFIO_IRQ_SET_DATA_EVENTFD | VFIO_IRQ_SET_ACTION_TRIGGER);
	cr_assert_eq(unic_pci_irq_disable(dev), 0);
	cr_assert_eq(fk.last_irqs.count, 0);
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_INTX, 1, fds), 0);
	cr_assert_eq(unic_pci_intx_unmask(dev), 0);
	cr_assert_eq(fk.last_irqs.flags, VFIO_IRQ_SET_DATA_NONE | VFIO_IRQ_SET_ACTION_UNMASK);
	cr_assert_eq(unic_pci_irq_disable(dev), 0);

	cr_assert_eq(unic_pci_reset(dev), 0);
	cr_assert_eq(fk.resets, 1);
	cr_assert_eq(fk.hot_resets, 0);
	fk.dev_reset = false;
	unic_pci_close(dev);

	/* Without VFIO_DEVICE_FLAGS_RESET: a bus reset with the group's fd. */
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_reset(dev), 0);
	cr_assert_eq(fk.resets, 1);
	cr_assert_eq(fk.hot_resets, 1);
	cr_assert_eq(fk.hot_reset_groups, 1);
	/* ENOTTY: the kernel reset the bus but saw no link; the ids decide. */
	fk.hot_reset_err = ENOTTY;
	cr_assert_eq(unic_pci_reset(dev), -EIO, "config space reads 0: not back");
	fk.cfg[0] = 0x86;
	fk.cfg[1] = 0x80;
	fk.cfg[2] = 0xd3;
	fk.cfg[3] = 0x10;
	cr_assert_eq(unic_pci_reset(dev), 0);
	assert_logged("could not confirm the link");
	unic_pci_close(dev);
}

static int released;
static int release_rc;    /* what the owner answers */
static bool release_gone; /* unic_pci_is_gone() as the owner saw it */

static int on_release(struct unic_pci_device *dev, void *arg)
{
	cr_assert_eq(arg, &released);
	/* The owner is called before anything is released. */
	cr_assert(!unic_pci_is_released(dev));
	release_gone = unic_pci_is_gone(dev);
	released++;
	return release_rc;
}

static void dispatch_until_released(void)
{
	struct pollfd p = { .fd = unic_event_fd(), .events = POLLIN };

	for (int i = 0; i < 100 && released == 0; i++) {
		poll(&p, 1, 10);
		unic_event_dispatch();
	}
}

Test(bus, the_kernels_request_calls_on_release_and_releases_the_device)
{
	struct unic_pci_device *dev;
	uint64_t one = 1;
	uint32_t v;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	released = 0;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_geq(fk.req_fd, 0, "no eventfd registered on VFIO_PCI_REQ_IRQ_INDEX");
	cr_assert_eq(unic_pci_on_release(dev, on_release, &released), 0);
	/* The kernel signals the request eventfd. */
	cr_assert_eq(write(fk.req_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	dispatch_until_released();
	cr_assert_eq(released, 1);
	cr_assert(!release_gone, "a request is not a device gone");
	assert_logged("asks for the device back");
	assert_logged("released");
	cr_assert(unic_pci_is_released(dev));
	cr_assert_eq(unic_pci_bar_read32(dev, 0, 8, &v), -ENODEV);
	unic_pci_close(dev);
}

Test(bus, an_owner_that_is_closing_the_device_releases_it_itself)
{
	struct unic_pci_device *dev;
	uint64_t one = 1;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	released = 0;
	release_rc = -EBUSY;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_on_release(dev, on_release, &released), 0);
	cr_assert_eq(write(fk.req_fd, &one, sizeof(one)), (ssize_t)sizeof(one));
	dispatch_until_released();
	cr_assert_eq(released, 1);
	assert_logged("its owner is closing it");
	cr_assert(!unic_pci_is_released(dev), "the bus released a device its owner is closing");
	release_rc = 0;
	unic_pci_close(dev);
}

Test(bus, a_device_gone_takes_the_release_path)
{
	struct unic_pci_device *dev;

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	released = 0;
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	cr_assert_eq(unic_pci_on_release(dev, on_release, &released), 0);
	unic_pci_gone(dev);
	unic_pci_gone(dev);  /* twice: once is enough */
	dispatch_until_released();
	cr_assert_eq(released, 1);
	cr_assert(release_gone);
	assert_logged("reads as all-ones");
	cr_assert_eq(unic_pci_irq_count(dev, UNIC_PCI_IRQ_MSIX), -ENODEV);
	unic_pci_close(dev);
}
