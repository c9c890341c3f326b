/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A vector's Linux IRQ and its affinity (lib/bus/irq_affinity.c): the
 * /proc/interrupts parser on canned text, the legacy line from sysfs, and
 * the errors that say why.
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

/* ---- a vector's Linux IRQ and its affinity (irq_affinity.c) ---- */

/* Two CPUs; vector 0 and 1 of 0000:00:03.0 on IRQs 24 and 25, and names
 * that contain ours but are other devices' or other vectors'. */
static const char interrupts_2cpu[] =
	"           CPU0       CPU1       \n"
	"  0:         36          0   IO-APIC   2-edge      timer\n"
	"  9:          0          0   IO-APIC   9-fasteoi   acpi\n"
	" 21:        120         17   IR-PCI-MSIX-0000:00:03.0    4-edge      vfio-msix[10](0000:00:03.0)\n"
	" 22:          5          6   IR-PCI-MSIX-10000:00:03.0    0-edge      vfio-msix[0](10000:00:03.0)\n"
	" 23:          1          2   IR-PCI-MSI-0000:00:03.0    0-edge      vfio-msi[0](0000:00:03.0)\n"
	" 24:        345        678   IR-PCI-MSIX-0000:00:03.0    0-edge      vfio-msix[0](0000:00:03.0)\n"
	" 25:          0         91   IR-PCI-MSIX-0000:00:03.0    1-edge      eth9, vfio-msix[1](0000:00:03.0)\n"
	"NMI:          0          0   Non-maskable interrupts\n"
	"LOC:      12345      23456   Local timer interrupts\n"
	"ERR:          0\n";

Test(bus, the_interrupts_parser_finds_a_whole_action_name_and_its_counts)
{
	uint64_t c[4] = { 0 };
	unsigned nb = 0;

	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[0](0000:00:03.0)", -1, c, 4, &nb), 24);
	cr_assert_eq(nb, 2);
	cr_assert_eq(c[0], 345);
	cr_assert_eq(c[1], 678);
	/* The second action of a shared line. */
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[1](0000:00:03.0)", -1, c, 4, &nb), 25);
	cr_assert_eq(c[1], 91);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[10](0000:00:03.0)", -1, NULL, 0, NULL), 21);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msi[0](0000:00:03.0)", -1, NULL, 0, NULL), 23);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[0](10000:00:03.0)", -1, NULL, 0, NULL), 22);
	/* Parts of names are not actions; nor is a BDF inside the chip column. */
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[1](0000:00:03.", -1, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "vfio-msix[2](0000:00:03.0)", -1, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "0000:00:03.0", -1, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "eth9", -1, NULL, 0, NULL), 25);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, "eth", -1, NULL, 0, NULL), -ENOENT);
	/* By number. */
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, NULL, 9, c, 4, &nb), 9);
	cr_assert_eq(c[0], 0);
	cr_assert_eq(bus_proc_interrupts_find(interrupts_2cpu, NULL, 26, NULL, 0, NULL), -ENOENT);
	cr_assert_eq(bus_proc_interrupts_find("", "x", -1, NULL, 0, NULL), -EINVAL, "no header");
	cr_assert_eq(bus_proc_interrupts_find("  0:  1  timer\n", "timer", -1, NULL, 0, NULL), -EINVAL);
}

/* One CPU, and eight with wide counts and an offline CPU left out of the
 * header (columns are online CPUs only). */
Test(bus, the_interrupts_parser_follows_the_header_for_any_number_of_cpus)
{
	static const char one[] =
		"           CPU0       \n"
		" 40:    4294967295   PCI-MSIX-0000:01:00.0    0-edge      vfio-msix[0](0000:01:00.0)\n";
	static const char eight[] =
		"            CPU0       CPU1       CPU2       CPU3       CPU5       CPU6       CPU7       CPU8       \n"
		"  1:          0          0          0          0          0          0          0          9  IR-IO-APIC    1-edge      i8042\n"
		"128: 1234567890          1          2          3          4          5          6 9876543210  IR-PCI-MSIX-0000:3b:00.1   3-edge      vfio-msix[3](0000:3b:00.1)\n"
		"129:          0          0          0          0          0          0          0          0  IR-PCI-MSIX-0000:3b:00.1   4-edge      vfio-msix[4](0000:3b:00.1)\n";
	uint64_t c[8] = { 0 };
	unsigned nb = 0;

	cr_assert_eq(bus_proc_interrupts_find(one, "vfio-msix[0](0000:01:00.0)", -1, c, 8, &nb), 40);
	cr_assert_eq(nb, 1);
	cr_assert_eq(c[0], 4294967295u);
	cr_assert_eq(bus_proc_interrupts_find(eight, "vfio-msix[3](0000:3b:00.1)", -1, c, 8, &nb), 128);
	cr_assert_eq(nb, 8);
	cr_assert_eq(c[0], 1234567890u);
	cr_assert_eq(c[6], 6);
	cr_assert_eq(c[7], 9876543210u);
	/* Fewer slots than CPUs: the first ones, and the count of columns. */
	cr_assert_eq(bus_proc_interrupts_find(eight, "vfio-msix[4](0000:3b:00.1)", -1, c, 2, &nb), 129);
	cr_assert_eq(nb, 8);
	cr_assert_eq(c[0], 0);
	cr_assert_eq(c[7], 9876543210u, "a slot past max_counts is left alone");
}

static struct unic_pci_device *open_with_msix(unsigned nvec)
{
	struct unic_pci_device *dev;
	int fds[5];

	fake_add_dev(root, &nic_vfio);
	dev_file("7");
	cr_assert_eq(unic_pci_open(bus, "0000:00:03.0", &dev), 0);
	if (nvec)
		cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, nvec, fds), 0);
	return dev;
}

Test(bus, a_vectors_irq_comes_from_proc_interrupts_and_its_affinity_is_written_and_read_back)
{
	struct unic_pci_device *dev = open_with_msix(2);
	char buf[64];

	fake_put(root, "proc/interrupts", interrupts_2cpu);
	fake_put(root, "proc/irq/25/smp_affinity_list", "0-1\n");
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), 24);
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 1), 25);
	cr_assert_eq(unic_pci_irq_affinity_set(dev, 1, 1), 25);
	cr_assert_str_eq(fake_get(root, "proc/irq/25/smp_affinity_list", buf, sizeof(buf)), "1\n");
	/* Vector 2 is not enabled; a negative CPU is refused. */
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 2), -EINVAL);
	assert_logged("vector 2 is not enabled");
	cr_assert_eq(unic_pci_irq_affinity_set(dev, 0, -1), -EINVAL);
	unic_pci_close(dev);
}

Test(bus, a_vector_without_its_line_or_without_interrupts_is_an_error_that_says_why)
{
	struct unic_pci_device *dev = open_with_msix(0);
	int fds[5];

	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), -EINVAL);
	assert_logged("no interrupts are enabled");
	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_MSIX, 2, fds), 0);
	/* Only a similarly named device's line. */
	fake_put(root, "proc/interrupts",
		 "           CPU0       CPU1\n"
		 " 22:  5  6   IR-PCI-MSIX-10000:00:03.0    0-edge      vfio-msix[0](10000:00:03.0)\n");
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), -ENOENT);
	assert_logged("names vfio-msix[0](0000:00:03.0)");
	/* The affinity file missing (no such IRQ directory): an error, not 0. */
	fake_put(root, "proc/interrupts", interrupts_2cpu);
	cr_assert_eq(unic_pci_irq_affinity_set(dev, 0, 1), -ENOENT);
	assert_logged("proc/irq/24/smp_affinity_list");
	unic_pci_close(dev);
}

Test(bus, intx_is_the_devices_legacy_line_from_sysfs)
{
	struct unic_pci_device *dev = open_with_msix(0);
	char buf[64];
	int fds[1];

	cr_assert_eq(unic_pci_irq_enable(dev, UNIC_PCI_IRQ_INTX, 1, fds), 0);
	fake_put(root, "sys/bus/pci/devices/0000:00:03.0/irq", "0\n");
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), -ENOENT, "0: no legacy line");
	fake_put(root, "sys/bus/pci/devices/0000:00:03.0/irq", "17\n");
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 0), 17);
	cr_assert_eq(unic_pci_irq_kernel_num(dev, 1), -EINVAL, "INTx has vector 0 only");
	fake_put(root, "proc/irq/17/smp_affinity_list", "0-1\n");
	cr_assert_eq(unic_pci_irq_affinity_set(dev, 0, 0), 17);
	cr_assert_str_eq(fake_get(root, "proc/irq/17/smp_affinity_list", buf, sizeof(buf)), "0\n");
	unic_pci_close(dev);
}

/*
 * A user who is not root cannot write smp_affinity_list (0644, root's):
 * the error says so and gives the command to run as root. As root, the
 * call is made in a child that has become nobody; the file is 0444 so that
 * a run of the test by a user who owns it is refused too.
 */
Test(bus, moving_an_interrupt_as_another_user_than_root_says_to_run_as_root)
{
	struct unic_pci_device *dev = open_with_msix(2);
	char path[512], msg[sizeof(logbuf)];
	int fds[2], rc = 0, st;
	ssize_t n;
	pid_t pid;

	fake_put(root, "proc/interrupts", interrupts_2cpu);
	fake_put(root, "proc/irq/24/smp_affinity_list", "0-1\n");
	snprintf(path, sizeof(path), "%s/proc/irq/24/smp_affinity_list", root);
	cr_assert_eq(chmod(path, 0444), 0);
	cr_assert_eq(chmod(root, 0755), 0, "nobody must reach the file to be refused by its mode");
	cr_assert_eq(pipe(fds), 0);
	logbuf[0] = '\0';
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		close(fds[0]);
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		rc = unic_pci_irq_affinity_set(dev, 0, 1);
		if (write(fds[1], &rc, sizeof(rc)) != (ssize_t)sizeof(rc) ||
		    write(fds[1], logbuf, strlen(logbuf) + 1) < 0)
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	cr_assert_eq(read(fds[0], &rc, sizeof(rc)), (ssize_t)sizeof(rc));
	n = read(fds[0], msg, sizeof(msg) - 1);
	msg[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
	cr_assert_eq(rc, -EACCES, "rc %d; log: %s", rc, msg);
	cr_assert_not_null(strstr(msg, "only root can move an interrupt"), "%s", msg);
	cr_assert_not_null(strstr(msg, "echo 1 > "), "%s", msg);
	cr_assert_not_null(strstr(msg, "proc/irq/24/smp_affinity_list"), "%s", msg);
	unic_pci_close(dev);
}
