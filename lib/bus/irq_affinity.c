/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which Linux IRQ carries an enabled vector of a device, and on which CPU
 * the kernel takes it (docs/napi.md, "Interrupt affinity").
 *
 * VFIO names the IRQ it requests for MSI-X vector i of device BDF
 * "vfio-msix[i](BDF)" ("vfio-msi[i](BDF)" for MSI, Linux
 * drivers/vfio/pci/vfio_pci_intrs.c); that name is an action on one line of
 * /proc/interrupts. INTx, through VFIO or uio_pci_generic, is the device's
 * legacy line, /sys/bus/pci/devices/BDF/irq. The affinity is
 * /proc/irq/N/smp_affinity_list, writable by root only.
 *
 * Every path is under the bus's sysfs_root, so the unit tests use a fake tree.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/log.h>

#include "bus_private.h"

/* Columns of the header ("CPU0 CPU1 ..."), or -EINVAL. */
static int header_cpus(const char *line, const char *end)
{
	int n = 0;

	for (const char *p = line; p + 3 <= end; p++)
		if (p[0] == 'C' && p[1] == 'P' && p[2] == 'U' && (p == line || isspace((unsigned char)p[-1])))
			n++;
	return n > 0 ? n : -EINVAL;
}

/*
 * Is @p name one of the actions in [s, end)? An action is printed after a
 * space (the first) or ", " (the others) and ends the line or comes before
 * ", ": a name must be a whole action, never a part of a longer one.
 */
static bool has_action(const char *s, const char *end, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = s; p + n <= end; p++) {
		if (memcmp(p, name, n) != 0)
			continue;
		if (p > s && !isspace((unsigned char)p[-1]) && p[-1] != ',')
			continue;
		if (p + n == end || p[n] == ',' || isspace((unsigned char)p[n]))
			return true;
	}
	return false;
}

int bus_proc_interrupts_find(const char *text, const char *name, int irq, uint64_t *counts,
			     unsigned max_counts, unsigned *nb_cpus)
{
	const char *line = text, *end;
	int cpus = -EINVAL;

	for (; *line != '\0'; line = *end ? end + 1 : end) {
		const char *p = line;
		char *q;
		long num;
		int i;

		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		if (cpus < 0) {
			/* The first line: one "CPUn" a column, online CPUs only. */
			cpus = header_cpus(line, end);
			if (cpus < 0)
				return cpus;
			continue;
		}
		while (p < end && isspace((unsigned char)*p))
			p++;
		if (p == end || !isdigit((unsigned char)*p))
			continue;         /* NMI:, LOC:, ERR: ... */
		num = strtol(p, &q, 10);
		if (q >= end || *q != ':' || num < 0 || num > INT32_MAX)
			continue;
		if (irq >= 0 && num != irq)
			continue;
		p = q + 1;
		for (i = 0; i < cpus; i++) {
			unsigned long long v;

			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (p == end || !isdigit((unsigned char)*p))
				break;
			v = strtoull(p, &q, 10);
			p = q;
			if (counts != NULL && (unsigned)i < max_counts)
				counts[i] = v;
		}
		if (i < cpus)
			continue;         /* not the usual layout: not ours */
		if (name != NULL && !has_action(p, end, name))
			continue;
		if (nb_cpus != NULL)
			*nb_cpus = (unsigned)cpus;
		return (int)num;
	}
	return cpus < 0 ? cpus : -ENOENT;
}

/* The whole of a proc or sysfs file, NUL-terminated (free it). -errno. */
static int slurp(const char *path, char **out)
{
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap);
	int fd, rc = 0;

	if (buf == NULL)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	for (;;) {
		ssize_t n;

		if (cap - len < 4096) {
			char *nb = realloc(buf, cap * 2);

			if (nb == NULL) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0) {
			rc = -errno;
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static const char *irq_type_name(int type)
{
	return type == UNIC_PCI_IRQ_MSIX ? "MSI-X" : type == UNIC_PCI_IRQ_MSI ? "MSI" : "INTx";
}

/* INTx: the legacy line sysfs gives the device. */
static int intx_irq(struct unic_pci_device *dev)
{
	char path[512], *text = NULL, *q;
	long v;
	int rc;

	rc = bus_dev_path(dev->bus, dev, path, sizeof(path), "irq");
	if (rc == 0)
		rc = slurp(path, &text);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: cannot read %s: %s", dev->info.bdf, path, strerror(-rc));
		return rc;
	}
	v = strtol(text, &q, 10);
	if (q == text || v < 0 || v > INT32_MAX) {
		UNIC_LOG(ERR, BUS, "%s: %s: expected an IRQ number, found \"%.32s\"", dev->info.bdf, path, text);
		free(text);
		return -EINVAL;
	}
	free(text);
	if (v == 0) {
		UNIC_LOG(ERR, BUS, "%s: %s is 0: the kernel gave the device no legacy interrupt line",
			 dev->info.bdf, path);
		return -ENOENT;
	}
	return (int)v;
}

int unic_pci_irq_kernel_num(struct unic_pci_device *dev, unsigned vector)
{
	char path[512], name[64], *text = NULL;
	int type, rc;
	unsigned nb;

	if (dev == NULL)
		return -EINVAL;
	if (dev->released) {
		UNIC_LOG(ERR, BUS, "%s was released (the kernel took it back, or it vanished); it has no interrupts",
			 dev->info.bdf);
		return -ENODEV;
	}
	pthread_mutex_lock(&dev->bus->lock);
	type = dev->irq_type;
	nb = type == UNIC_PCI_IRQ_INTX ? 1 : dev->nb_vec;
	pthread_mutex_unlock(&dev->bus->lock);
	if (type < 0) {
		UNIC_LOG(ERR, BUS, "%s: no interrupts are enabled (unic_pci_irq_enable; for a port: start it in interrupt or hybrid rx mode)",
			 dev->info.bdf);
		return -EINVAL;
	}
	if (vector >= nb) {
		UNIC_LOG(ERR, BUS, "%s: %s vector %u is not enabled (%u enabled: 0..%u)", dev->info.bdf,
			 irq_type_name(type), vector, nb, nb - 1);
		return -EINVAL;
	}
	if (type == UNIC_PCI_IRQ_INTX)
		return intx_irq(dev);

	snprintf(name, sizeof(name), "vfio-msi%s[%u](%s)", type == UNIC_PCI_IRQ_MSIX ? "x" : "",
		 vector, dev->info.bdf);
	rc = bus_path(dev->bus, path, sizeof(path), "%s/proc/interrupts", dev->bus->sysfs_root);
	if (rc == 0)
		rc = slurp(path, &text);
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: cannot read %s: %s", dev->info.bdf, path, strerror(-rc));
		return rc;
	}
	rc = bus_proc_interrupts_find(text, name, -1, NULL, 0, NULL);
	free(text);
	if (rc == -EINVAL)
		UNIC_LOG(ERR, BUS, "%s: %s does not start with the CPU header line the kernel writes",
			 dev->info.bdf, path);
	else if (rc < 0)
		UNIC_LOG(ERR, BUS, "%s: no line of %s names %s, the IRQ VFIO requests for %s vector %u (is vfio-pci the device's driver? grep vfio %s)",
			 dev->info.bdf, path, name, irq_type_name(type), vector, path);
	return rc;
}

/* smp_affinity_list as the kernel reads it back, without the newline. */
static int affinity_read(const char *path, char *buf, size_t len)
{
	char *text = NULL;
	int rc = slurp(path, &text);

	if (rc < 0)
		return rc;
	text[strcspn(text, "\n")] = '\0';
	snprintf(buf, len, "%s", text);
	free(text);
	return 0;
}

int unic_pci_irq_affinity_set(struct unic_pci_device *dev, unsigned vector, int cpu)
{
	char path[512], want[16], got[256];
	ssize_t n;
	int irq, fd, rc;

	if (cpu < 0) {
		UNIC_LOG(ERR, BUS, "%s: CPU %d: expected a CPU number (0 or more)", dev ? dev->info.bdf : "?", cpu);
		return -EINVAL;
	}
	irq = unic_pci_irq_kernel_num(dev, vector);
	if (irq < 0)
		return irq;
	rc = bus_path(dev->bus, path, sizeof(path), "%s/proc/irq/%d/smp_affinity_list",
		      dev->bus->sysfs_root, irq);
	if (rc < 0)
		return rc;
	snprintf(want, sizeof(want), "%d\n", cpu);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC); /* as the shell's echo >: procfs ignores the truncation */
	if (fd < 0) {
		rc = -errno;
		if (rc == -EACCES || rc == -EPERM)
			UNIC_LOG(ERR, BUS, "%s: IRQ %d (vector %u): cannot open %s for writing: %s; only root can move an interrupt: run as root, or have root run: echo %d > %s",
				 dev->info.bdf, irq, vector, path, strerror(-rc), cpu, path);
		else
			UNIC_LOG(ERR, BUS, "%s: IRQ %d (vector %u): cannot open %s: %s", dev->info.bdf, irq,
				 vector, path, strerror(-rc));
		return rc;
	}
	n = write(fd, want, strlen(want));
	rc = n < 0 ? -errno : n == (ssize_t)strlen(want) ? 0 : -EIO;
	close(fd);
	if (rc == -EIO) {
		UNIC_LOG(ERR, BUS, "%s: IRQ %d (vector %u): the kernel refused to move it to CPU %d (writing %s: %s): its interrupt chip or the IOMMU's interrupt remapping cannot set its affinity. It stays where it is; a wake-up across CPUs costs about 30 us more at p50 than one on the same CPU (docs/performance.md, \"Second pass\")",
			 dev->info.bdf, irq, vector, cpu, path, strerror(-rc));
		return rc;
	}
	if (rc == -EINVAL || rc == -ERANGE || rc == -EOVERFLOW) {
		UNIC_LOG(ERR, BUS, "%s: IRQ %d (vector %u): the kernel refused CPU %d (writing %s: %s): is it a CPU number this machine has (cat /sys/devices/system/cpu/online)?",
			 dev->info.bdf, irq, vector, cpu, path, strerror(-rc));
		return rc;
	}
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: IRQ %d (vector %u): writing %d to %s: %s", dev->info.bdf, irq, vector,
			 cpu, path, strerror(-rc));
		return rc;
	}
	/* A CPU that is not online is not refused: the kernel picks its
	 * default affinity instead. Read back what it did. */
	rc = affinity_read(path, got, sizeof(got));
	if (rc < 0) {
		UNIC_LOG(ERR, BUS, "%s: IRQ %d (vector %u): cannot read %s back: %s", dev->info.bdf, irq,
			 vector, path, strerror(-rc));
		return rc;
	}
	want[strcspn(want, "\n")] = '\0';
	if (strcmp(got, want) != 0) {
		UNIC_LOG(ERR, BUS, "%s: IRQ %d (vector %u): asked for CPU %d, the kernel set \"%s\" (is CPU %d online? cat /sys/devices/system/cpu/online)",
			 dev->info.bdf, irq, vector, cpu, got, cpu);
		return -EINVAL;
	}
	UNIC_LOG(INFO, BUS, "%s: interrupt vector %u (IRQ %d) now goes to CPU %d", dev->info.bdf,
		 vector, irq, cpu);
	return irq;
}
