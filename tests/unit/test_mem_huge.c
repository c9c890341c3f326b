/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/mem's configuration checks, the hugepage report against a fake sysfs
 * tree and mounts file, NUMA and mlock messages, and real hugepages: used
 * when some are free, else the error is checked.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <unic/log.h>
#include <unic/mem.h>

#include "mem/mem_private.h"  /* MEM_PA_MAP_MIN: how much PA mode maps */
#include "log_capture.h"
#include "mem_fixture.h"

/* ---- configuration ---- */

Test(mem, pa_mode_with_no_huge_and_no_pagemap_hook_is_refused)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg), .iova_mode = UNIC_IOVA_PA,
				       .no_huge = true };

	errno = 0;
	cr_assert_null(unic_mem_create(&cfg));
	cr_assert_eq(errno, EINVAL);
	cr_assert(logcap_has("PA mode cannot use --no-huge"), "log: %s", logcap_buf);
}

Test(mem, config_without_its_size_or_with_an_unknown_mode_is_refused)
{
	struct unic_mem_conf cfg = { .no_huge = true };

	errno = 0;
	cr_assert_null(unic_mem_create(&cfg));
	cr_assert_eq(errno, EINVAL);
	cr_assert(logcap_has("sizeof(struct unic_mem_conf)"), "log: %s", logcap_buf);
	cfg.sz = sizeof(cfg);
	cfg.iova_mode = (enum unic_iova_mode)7;
	cr_assert_null(unic_mem_create(&cfg));
	cr_assert_eq(errno, EINVAL);
}

Test(mem, huge_dir_that_is_not_hugetlbfs_is_refused)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg) };

	make_tmpdir();
	cfg.huge_dir = tmpdir;
	errno = 0;
	cr_assert_null(unic_mem_create(&cfg));
	cr_assert_eq(errno, EINVAL);
	cr_assert(logcap_has("is not a hugetlbfs mount"), "log: %s", logcap_buf);
	cr_assert(logcap_has("mount -t hugetlbfs"), "log: %s", logcap_buf);
}

/* ---- hugepage report ---- */

static void fake_pool(const char *dir, const char *size, const char *nfree,
		      const char *total)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/hugepages-%s/free_hugepages", dir, size);
	put_file(rel, nfree);
	snprintf(rel, sizeof(rel), "%s/hugepages-%s/nr_hugepages", dir, size);
	put_file(rel, total);
}

static void fake_sysfs(const char *free0, const char *free1)
{
	make_tmpdir();
	fake_pool("sys/devices/system/node/node0/hugepages", "2048kB", free0, "8\n");
	fake_pool("sys/devices/system/node/node0/hugepages", "1048576kB", "0\n", "0\n");
	fake_pool("sys/devices/system/node/node1/hugepages", "2048kB", free1, "8\n");
	fake_pool("sys/kernel/mm/hugepages", "2048kB", "0\n", "16\n");
	fake_pool("sys/kernel/mm/hugepages", "1048576kB", "0\n", "0\n");
	put_file("mounts.none", "proc /proc proc rw,nosuid 0 0\n"
		 "tmpfs /tmp tmpfs rw 0 0\n");
	put_file("mounts.huge", "proc /proc proc rw,nosuid 0 0\n"
		 "hugetlbfs /dev/hugepages hugetlbfs rw,relatime,pagesize=2M 0 0\n"
		 "nodev /mnt/huge\\0401G hugetlbfs rw,relatime,pagesize=1024M 0 0\n");
}

Test(mem, hugepage_report_names_free_pages_per_node_the_mounts_and_the_reserve_command)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg) };
	char buf[4096], small[32];
	int n;

	fake_sysfs("3\n", "5\n");
	cfg.sysfs_root = tmpdir;
	cfg.mounts_path = tmp_path("mounts.huge");
	n = unic_mem_hugepage_report(&cfg, buf, sizeof(buf));
	cr_assert_eq(n, (int)strlen(buf));
	cr_assert(strstr(buf, "node0: 2048kB 3 free of 8, 1048576kB 0 free of 0"), "%s", buf);
	cr_assert(strstr(buf, "node1: 2048kB 5 free of 8"), "%s", buf);
	cr_assert(strstr(buf, "all nodes: 2048kB 0 free of 16"), "%s", buf);
	cr_assert(strstr(buf, "/dev/hugepages (pagesize 2048kB)"), "%s", buf);
	cr_assert(strstr(buf, "/mnt/huge 1G (pagesize 1048576kB)"), "%s", buf);
	cr_assert(strstr(buf, "echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"),
		  "%s", buf);
	cr_assert(strstr(buf, "hugeadm --pool-pages-min 2MB:512"), "%s", buf);

	/* Like snprintf: truncated, terminated, full length returned. */
	cr_assert_eq(unic_mem_hugepage_report(&cfg, small, sizeof(small)), n);
	cr_assert_eq(strlen(small), sizeof(small) - 1);
	cr_assert_eq(unic_mem_hugepage_report(&cfg, NULL, 0), n);
}

Test(mem, hugepage_report_says_when_no_hugetlbfs_is_mounted)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg) };
	char buf[4096];

	fake_sysfs("0\n", "0\n");
	cfg.sysfs_root = tmpdir;
	cfg.mounts_path = tmp_path("mounts.none");
	unic_mem_hugepage_report(&cfg, buf, sizeof(buf));
	cr_assert(strstr(buf, "hugetlbfs: not mounted"), "%s", buf);
	cr_assert(strstr(buf, "mount -t hugetlbfs -o pagesize=1G"), "%s", buf);
}

Test(mem, huge_mode_without_free_hugepages_fails_with_enomem_and_the_report)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg) };

	fake_sysfs("0\n", "0\n");
	cfg.sysfs_root = tmpdir;
	cfg.mounts_path = tmp_path("mounts.none");
	errno = 0;
	cr_assert_null(unic_mem_create(&cfg));
	cr_assert_eq(errno, ENOMEM);
	cr_assert(logcap_has("no free 2048kB hugepages"), "log: %s", logcap_buf);
	cr_assert(logcap_has("node0: 2048kB 0 free of 8"), "log: %s", logcap_buf);
	cr_assert(logcap_has("hugetlbfs: not mounted"), "log: %s", logcap_buf);
	cr_assert(logcap_has("echo 512 > /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"),
		  "log: %s", logcap_buf);
}

/* ---- NUMA and mlock ---- */

Test(mem, numa_node_minus_one_is_taken_as_node_zero_and_logged_once)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma a, b, c;

	cr_assert_eq(unic_mem_alloc(mem, 100, 64, -1, &a), 0);
	cr_assert_eq(a.seg->numa_node, 0);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, -1, &b), 0);
	cr_assert_eq(b.seg, a.seg, "node 0 memory serves node -1");
	cr_assert_eq(logcap_count("NUMA node -1"), 1, "log: %s", logcap_buf);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 4096, &c), -EINVAL);
	cr_assert(logcap_has("NUMA node 4096 does not exist"), "log: %s", logcap_buf);
	unic_mem_destroy(mem);
}

Test(mem, mlock_failure_in_no_huge_mode_is_a_warning_logged_once)
{
	struct unic_mem *mem;
	struct unic_dma a, b;

	drop_ipc_lock(0);
	mem = no_huge_mem();
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &b), 0);
	cr_assert_eq(unic_mem_seg_count(mem), 2);
	cr_assert_eq(logcap_count("RLIMIT_MEMLOCK"), 1, "log: %s", logcap_buf);
	cr_assert_eq(logcap_nb[UNIC_LOG_WARNING], 1);
	unic_mem_destroy(mem);
}

/* ---- real hugepages ---- */

static const char huge_free_path[] = "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages";

/* KernelPageSize of the mapping that holds @p va, from /proc/self/smaps. */
static unsigned long kernel_page_kb(const void *va)
{
	char line[512];
	unsigned long lo, hi, kb = 0;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	cr_assert_not_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)va >= lo && (uintptr_t)va < hi;
		else if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

/* Real 2 MiB pages; the empty mounts file keeps a 1 GiB mount out of it. */
static struct unic_mem *real_huge_mem(enum unic_iova_mode mode)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg), .iova_mode = mode };

	make_tmpdir();
	put_file("mounts.none", "");
	cfg.mounts_path = tmp_path("mounts.none");
	return unic_mem_create(&cfg);
}

Test(mem, real_hugepages_back_a_zone_when_free_else_creation_names_the_reserve_command)
{
	uint64_t nfree = read_sys_u64(huge_free_path);
	struct unic_mem *mem = real_huge_mem(UNIC_IOVA_VA);
	struct unic_dma d;
	int rc;

	if (nfree == 0) {
		cr_assert_null(mem, "no free 2 MiB hugepages, yet creation succeeded");
		cr_assert_eq(errno, ENOMEM);
		cr_assert(logcap_has("nr_hugepages"), "log: %s", logcap_buf);
		return;
	}
	cr_assert_not_null(mem, "%lu hugepages free: %s; log: %s", (unsigned long)nfree,
			   strerror(errno), logcap_buf);
	cr_assert_eq(unic_mem_page_size(mem), 2 * MB);
	rc = unic_mem_alloc(mem, 4096, 64, 0, &d);
	if (rc == -ENOMEM && read_sys_u64(huge_free_path) == 0) {
		/* Someone else took the last pages meanwhile. */
		cr_assert(logcap_has("echo 512 >"), "log: %s", logcap_buf);
		unic_mem_destroy(mem);
		return;
	}
	if (rc < 0) {
		/* Unprivileged with a small RLIMIT_MEMLOCK: the error says so. */
		cr_assert(logcap_has("ulimit -l"), "rc %d; log: %s", rc, logcap_buf);
		unic_mem_destroy(mem);
		return;
	}
	cr_assert_eq(d.seg->len, 2 * MB);
	cr_assert_eq((uintptr_t)d.seg->va % (2 * MB), 0);
	cr_assert_eq(kernel_page_kb(d.va), 2048, "the zone is on a 2 MiB page");
	cr_assert(all_zero(d.va, d.len));
	memset(d.va, 1, d.len);
	unic_mem_free(mem, &d);
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	unic_mem_destroy(mem);
}

Test(mem, hugepage_mlock_failure_is_an_error_naming_rlimit_memlock)
{
	uint64_t nfree = read_sys_u64(huge_free_path);
	struct unic_mem *mem;
	struct unic_dma d;

	drop_ipc_lock(4096);
	mem = real_huge_mem(UNIC_IOVA_VA);
	if (nfree == 0) {
		cr_assert_null(mem);
		cr_assert_eq(errno, ENOMEM);
		cr_assert(logcap_has("hugeadm --pool-pages-min"), "log: %s", logcap_buf);
		return;
	}
	cr_assert_not_null(mem, "log: %s", logcap_buf);
	cr_assert_lt(unic_mem_alloc(mem, 4096, 64, 0, &d), 0);
	if (read_sys_u64(huge_free_path) > 0) {
		cr_assert(logcap_has("RLIMIT_MEMLOCK is 4096 bytes"), "log: %s", logcap_buf);
		cr_assert(logcap_has("ulimit -l"), "log: %s", logcap_buf);
	}
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	unic_mem_destroy(mem);
}

Test(mem, pa_mode_on_real_hugepages_needs_root_and_gives_physical_addresses)
{
	uint64_t nfree = read_sys_u64(huge_free_path);
	struct unic_mem *mem = real_huge_mem(UNIC_IOVA_PA);
	struct unic_dma d;

	if (nfree == 0) {
		cr_assert_null(mem);
		cr_assert_eq(errno, ENOMEM);
		cr_assert(logcap_has("nr_hugepages"), "log: %s", logcap_buf);
		return;
	}
	if (geteuid() != 0) {
		cr_assert_null(mem);
		cr_assert_eq(errno, EACCES);
		cr_assert(logcap_has("needs root"), "log: %s", logcap_buf);
		return;
	}
	cr_assert_not_null(mem, "log: %s", logcap_buf);
	cr_assert_eq(unic_mem_max_contig(mem), 2 * MB);
	cr_assert_eq(unic_mem_alloc(mem, 4096, 4096, 0, &d), 0, "log: %s", logcap_buf);
	cr_assert_neq(d.iova, (uint64_t)(uintptr_t)d.va, "a physical address, not the VA");
	cr_assert_eq(d.seg->iova % (2 * MB), 0, "hugepages are physically aligned");
	cr_assert_eq(d.iova % 4096, 0);
	unic_mem_destroy(mem);
}
