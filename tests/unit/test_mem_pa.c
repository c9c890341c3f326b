/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/mem's PA mode without root: a fake pagemap gives the physical frames;
 * IOVAs, zones within a page, segments split by contiguous runs.
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

/* ---- PA mode against a fake pagemap ---- */

#define PM_PRESENT (1ULL << 63)
#define PM_MARGIN_PAGES 64

typedef uint64_t (*pfn_fn)(size_t page);

static uintptr_t pm_window;  /* VA of page 0 of the fake pagemap */
static size_t pm_pages;

/*
 * Write a fake pagemap for where the library's next PA-mode mmap will land:
 * map and unmap a region of the same size (the kernel hands the same hole
 * out again), and describe it plus a margin on either side.
 */
static struct unic_mem *pa_mem(pfn_fn pfn)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg), .iova_mode = UNIC_IOVA_PA,
				       .no_huge = true };
	size_t map_len = MEM_PA_MAP_MIN, i;
	struct unic_mem *mem;
	void *probe;
	int fd;

	make_tmpdir();
	cfg.pagemap_path = tmp_path("pagemap");
	put_file("pagemap", "");
	mem = unic_mem_create(&cfg);
	cr_assert_not_null(mem, "PA + no_huge with a pagemap hook: %s", strerror(errno));

	probe = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(probe, MAP_FAILED);
	pm_window = (uintptr_t)probe - PM_MARGIN_PAGES * 4096;
	pm_pages = map_len / 4096 + 2 * PM_MARGIN_PAGES;
	fd = open(cfg.pagemap_path, O_WRONLY);
	cr_assert_geq(fd, 0);
	for (i = 0; i < pm_pages; i++) {
		uint64_t e = PM_PRESENT | pfn(i);
		off_t off = (off_t)((pm_window / 4096 + i) * 8);

		cr_assert_eq(pwrite(fd, &e, sizeof(e), off), (ssize_t)sizeof(e));
	}
	close(fd);
	munmap(probe, map_len);
	return mem;
}

static uint64_t pfn_of_va(pfn_fn pfn, uintptr_t va)
{
	cr_assert(va >= pm_window && va < pm_window + pm_pages * 4096,
		  "VA %#lx is outside the fake pagemap [%#lx, +%zu pages): the "
		  "mapping did not land where the probe did", (unsigned long)va,
		  (unsigned long)pm_window, pm_pages);
	return pfn((va - pm_window) / 4096);
}

/* Scattered: no two neighbouring pages are physically adjacent. */
static uint64_t pfn_scattered(size_t page)
{
	return 0x80000 - 7 * (uint64_t)page;
}

/* Runs of four physically contiguous pages, the runs far apart. */
static uint64_t pfn_runs_of_four(size_t page)
{
	return 0x20000 + (page / 4) * 1000 + page % 4;
}

Test(mem, pa_mode_iova_is_pfn_times_4096_plus_offset)
{
	struct unic_mem *mem = pa_mem(pfn_scattered);
	struct unic_dma d;
	uintptr_t va;

	cr_assert_eq(unic_mem_iova_mode(mem), UNIC_IOVA_PA);
	cr_assert_eq(unic_mem_max_contig(mem), 4096);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &d), 0);
	va = (uintptr_t)d.va;
	cr_assert_eq(d.iova, pfn_of_va(pfn_scattered, va) * 4096 + va % 4096);
	cr_assert_eq(d.seg->iova, pfn_of_va(pfn_scattered, (uintptr_t)d.seg->va) * 4096);
	unic_mem_destroy(mem);
}

Test(mem, zone_never_crosses_a_page_in_pa_mode)
{
	struct unic_mem *mem = pa_mem(pfn_scattered);
	struct unic_dma d[12];
	uint64_t iova;
	int i;

	cr_assert_eq(unic_mem_seg_count(mem), 0);
	for (i = 0; i < 12; i++) {
		uintptr_t va;

		cr_assert_eq(unic_mem_alloc(mem, 1500, 64, 0, &d[i]), 0);
		va = (uintptr_t)d[i].va;
		cr_assert_eq(va / 4096, (va + d[i].len - 1) / 4096,
			     "zone %d [%#lx, +%zu) crosses a page", i, (unsigned long)va,
			     d[i].len);
		cr_assert_eq(d[i].iova, pfn_of_va(pfn_scattered, va) * 4096 + va % 4096);
		cr_assert_eq(unic_mem_va2iova(mem, (char *)d[i].va + d[i].len - 1, &iova), 0);
		cr_assert_eq(iova, d[i].iova + d[i].len - 1);
	}
	/* 16 scattered pages give 16 one-page segments; two zones fit a page. */
	cr_assert_eq(unic_mem_seg_count(mem), MEM_PA_MAP_MIN / 4096);
	cr_assert_eq(d[0].seg->len, 4096);
	cr_assert_eq(d[0].seg, d[1].seg);
	cr_assert_neq(d[1].seg, d[2].seg);
	unic_mem_destroy(mem);
}

static int check_run(void *ctx, const struct unic_mem_seg *seg)
{
	int *n = ctx;

	cr_assert_eq(seg->len, 4 * 4096, "one segment per run of four pages");
	cr_assert_eq(seg->iova, pfn_of_va(pfn_runs_of_four, (uintptr_t)seg->va) * 4096);
	(*n)++;
	return 0;
}

Test(mem, pa_mapping_is_split_into_segments_by_contiguous_runs)
{
	struct unic_mem *mem = pa_mem(pfn_runs_of_four);
	struct counter c = { 0 };
	struct unic_mem_listener l = listener_for(&c);
	struct unic_dma d[6];
	int i, n = 0;

	cr_assert_gt(unic_mem_listen(mem, &l), 0);
	/* 3000-byte zones: two fit a 4-page run only if they may cross a page
	 * boundary inside it, which is fine: the run is contiguous. */
	for (i = 0; i < 6; i++) {
		uintptr_t va, last;

		cr_assert_eq(unic_mem_alloc(mem, 3000, 64, 0, &d[i]), 0);
		va = (uintptr_t)d[i].va;
		last = va + d[i].len - 1;
		cr_assert_eq(d[i].iova + d[i].len - 1,
			     pfn_of_va(pfn_runs_of_four, last) * 4096 + last % 4096,
			     "zone %d is not physically contiguous", i);
		cr_assert_geq(va, (uintptr_t)d[i].seg->va);
		cr_assert_leq(last, (uintptr_t)d[i].seg->va + d[i].seg->len - 1,
			      "zone %d crosses its segment", i);
	}
	cr_assert_eq(unic_mem_seg_count(mem), MEM_PA_MAP_MIN / (4 * 4096));
	cr_assert_eq(c.adds, (int)(MEM_PA_MAP_MIN / (4 * 4096)));
	cr_assert_eq(unic_mem_seg_walk(mem, check_run, &n), 0);
	cr_assert_eq(n, (int)(MEM_PA_MAP_MIN / (4 * 4096)));
	unic_mem_destroy(mem);
}

Test(mem, zone_larger_than_a_page_is_refused_in_pa_mode)
{
	struct unic_mem *mem = pa_mem(pfn_scattered);
	struct unic_dma d;

	cr_assert_eq(unic_mem_alloc(mem, 4097, 64, 0, &d), -EINVAL);
	cr_assert(logcap_has("physically contiguous only within a page"), "log: %s", logcap_buf);
	cr_assert_eq(unic_mem_alloc(mem, 64, 8192, 0, &d), -EINVAL);
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	unic_mem_destroy(mem);
}

Test(mem, iova_window_is_refused_in_pa_mode)
{
	struct unic_mem *mem = pa_mem(pfn_scattered);

	cr_assert_eq(unic_mem_set_iova_window(mem, 0, 1UL << 40), -EINVAL);
	cr_assert(logcap_has("VA mode (VFIO with an IOMMU) only"), "log: %s", logcap_buf);
	unic_mem_destroy(mem);
}
