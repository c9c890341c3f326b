/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Physical addresses for PA mode (UIO, VFIO no-IOMMU), from the pagemap.
 *
 * /proc/self/pagemap holds one 64-bit entry per 4 KiB virtual page, at
 * offset (va / 4096) * 8: bit 63 says the page is present, bits 0-54 hold
 * its page frame number. Without CAP_SYS_ADMIN the kernel reports PFN 0
 * (Documentation/admin-guide/mm/pagemap.rst), which is how we tell that
 * PA mode cannot work here.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <unic/log.h>

#include "mem_private.h"

#define PM_PRESENT (UINT64_C(1) << 63)
#define PM_PFN_MASK ((UINT64_C(1) << 55) - 1)

static const char *pagemap_path(const struct unic_mem *mem)
{
	return mem->pagemap_path != NULL ? mem->pagemap_path : "/proc/self/pagemap";
}

static int pagemap_open(const struct unic_mem *mem)
{
	int fd = open(pagemap_path(mem), O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		int err = errno;

		UNIC_LOG(ERR, MEM, "PA mode: cannot open %s: %s; physical addresses "
			 "need root (CAP_SYS_ADMIN), or use VA mode (VFIO with an IOMMU)",
			 pagemap_path(mem), strerror(err));
		return -err;
	}
	return fd;
}

/* Read the entry of the 4 KiB page holding @p va. */
static int pagemap_entry(const struct unic_mem *mem, int fd, uintptr_t va,
			 uint64_t *entry)
{
	off_t off = (off_t)(va / MEM_PAGEMAP_PAGE) * (off_t)sizeof(*entry);
	ssize_t n = pread(fd, entry, sizeof(*entry), off);

	if (n == (ssize_t)sizeof(*entry))
		return 0;
	if (n < 0) {
		int err = errno;

		UNIC_LOG(ERR, MEM, "PA mode: cannot read %s at VA %#lx: %s",
			 pagemap_path(mem), (unsigned long)va, strerror(err));
		return -err;
	}
	/* A short read of a sparse test file is a page the file leaves out. */
	*entry = 0;
	return 0;
}

int mem_pagemap_check(const struct unic_mem *mem)
{
	volatile uint64_t probe = 1; /* on our stack, so present */
	uint64_t entry;
	int fd, rc;

	fd = pagemap_open(mem);
	if (fd < 0)
		return fd == -ENOENT ? -ENOENT : -EACCES;
	/* A test's fake pagemap describes only the pages it prepared. */
	if (mem->pagemap_path != NULL) {
		close(fd);
		return 0;
	}
	rc = pagemap_entry(mem, fd, (uintptr_t)&probe, &entry);
	close(fd);
	if (rc < 0)
		return rc;
	if ((entry & PM_PRESENT) == 0 || (entry & PM_PFN_MASK) == 0) {
		UNIC_LOG(ERR, MEM, "PA mode: %s shows no page frame numbers; reading "
			 "physical addresses needs root (CAP_SYS_ADMIN). Run as root, "
			 "or bind the device to vfio-pci with an IOMMU and use VA mode",
			 pagemap_path(mem));
		return -EACCES;
	}
	return 0;
}

int mem_pagemap_lookup(const struct unic_mem *mem, const void *va,
		       size_t page_size, size_t nb_pages, uint64_t *pa)
{
	uintptr_t addr = (uintptr_t)va;
	int fd, rc = 0;
	size_t i;

	fd = pagemap_open(mem);
	if (fd < 0)
		return fd;
	for (i = 0; i < nb_pages; i++, addr += page_size) {
		uint64_t entry;

		rc = pagemap_entry(mem, fd, addr, &entry);
		if (rc < 0)
			break;
		if ((entry & PM_PRESENT) == 0) {
			UNIC_LOG(ERR, MEM, "PA mode: %s says the page at VA %#lx is not "
				 "present although it was locked and touched",
				 pagemap_path(mem), (unsigned long)addr);
			rc = -EFAULT;
			break;
		}
		if ((entry & PM_PFN_MASK) == 0) {
			UNIC_LOG(ERR, MEM, "PA mode: %s hides the page frame number of VA "
				 "%#lx; reading physical addresses needs root (CAP_SYS_ADMIN)",
				 pagemap_path(mem), (unsigned long)addr);
			rc = -EACCES;
			break;
		}
		pa[i] = (entry & PM_PFN_MASK) * MEM_PAGEMAP_PAGE +
			(addr & (MEM_PAGEMAP_PAGE - 1));
	}
	close(fd);
	return rc;
}
