/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/mem in --no-huge contexts: allocation, segments and zones, freeing,
 * va2iova, memory listeners, and the IOVA window.
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

/* ---- allocation ---- */

Test(mem, alloc_gives_aligned_zero_filled_zone_with_iova_equal_to_va)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma d;

	cr_assert_eq(unic_mem_iova_mode(mem), UNIC_IOVA_VA);
	cr_assert_eq(unic_mem_page_size(mem), (size_t)sysconf(_SC_PAGESIZE));
	cr_assert_eq(unic_mem_max_contig(mem), SIZE_MAX);

	cr_assert_eq(unic_mem_alloc(mem, 1000, 256, 0, &d), 0);
	cr_assert_not_null(d.va);
	cr_assert_eq(d.len, 1000);
	cr_assert_eq((uintptr_t)d.va % 256, 0);
	cr_assert_eq(d.iova, (uint64_t)(uintptr_t)d.va);
	cr_assert(all_zero(d.va, d.len));
	memset(d.va, 0x5a, d.len);  /* writable */
	cr_assert_eq(unic_mem_bytes_in_use(mem), 1000);
	cr_assert_not_null(d.seg);
	cr_assert_eq(d.seg->numa_node, 0);
	cr_assert_eq(d.seg->page_size, unic_mem_page_size(mem));
	unic_mem_free(mem, &d);
	cr_assert_null(d.va, "free clears the descriptor");
	cr_assert_eq(unic_mem_bytes_in_use(mem), 0);
	unic_mem_destroy(mem);
}

Test(mem, default_alignment_is_a_cache_line_and_large_alignment_is_honoured)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma a, b;

	cr_assert_eq(unic_mem_alloc(mem, 10, 0, 0, &a), 0);
	cr_assert_eq((uintptr_t)a.va % 64, 0);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64 * KB, 0, &b), 0);
	cr_assert_eq((uintptr_t)b.va % (64 * KB), 0);
	cr_assert_eq(b.iova % (64 * KB), 0);
	unic_mem_destroy(mem);
}

Test(mem, alloc_refuses_zero_length_and_non_power_of_two_alignment)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma d;

	cr_assert_eq(unic_mem_alloc(mem, 0, 64, 0, &d), -EINVAL);
	cr_assert_eq(unic_mem_alloc(mem, 64, 48, 0, &d), -EINVAL);
	cr_assert(logcap_has("power-of-two"), "log: %s", logcap_buf);
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	unic_mem_destroy(mem);
}

static int collect_ids(void *ctx, const struct unic_mem_seg *seg)
{
	uint32_t *ids = ctx;

	ids[++ids[0]] = seg->id;
	return 0;
}

Test(mem, zones_are_packed_into_one_segment_until_it_is_full)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma z[3], big;
	uint32_t ids[8] = { 0 };
	int i;

	for (i = 0; i < 3; i++)
		cr_assert_eq(unic_mem_alloc(mem, 1000, 64, 0, &z[i]), 0);
	cr_assert_eq(unic_mem_seg_count(mem), 1);
	cr_assert_eq(z[0].seg, z[1].seg);
	cr_assert_eq(z[1].seg, z[2].seg);
	cr_assert_eq(z[0].seg->len, unic_mem_page_size(mem), "rounded up to a page");
	/* No overlap: each zone starts past the end of the previous one. */
	cr_assert_geq((char *)z[1].va, (char *)z[0].va + 1000);
	cr_assert_geq((char *)z[2].va, (char *)z[1].va + 1000);

	/* A zone that cannot fit the rest maps a second segment. */
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &big), 0);
	cr_assert_eq(unic_mem_seg_count(mem), 2);
	cr_assert_neq(big.seg, z[0].seg);
	cr_assert_eq(unic_mem_bytes_in_use(mem), 3000 + 4096);
	for (i = 0; i < 3; i++)
		unic_mem_free(mem, &z[i]);
	cr_assert_eq(unic_mem_seg_walk(mem, collect_ids, ids), 0);
	cr_assert_eq(ids[0], 1, "only the second segment is left");
	cr_assert_eq(ids[1], big.seg->id);
	unic_mem_destroy(mem);
}

Test(mem, segment_is_unmapped_when_its_last_zone_is_freed)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma a, b;
	unsigned char vec;
	void *va;

	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &b), 0);
	va = a.seg->va;
	unic_mem_free(mem, &a);
	cr_assert_eq(unic_mem_seg_count(mem), 1, "b still holds the segment");
	unic_mem_free(mem, &b);
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	/* mincore fails with ENOMEM on an address that is no longer mapped. */
	cr_assert_eq(mincore(va, 1, &vec), -1);
	cr_assert_eq(errno, ENOMEM);
	unic_mem_destroy(mem);
}

Test(mem, freed_space_is_reused_and_zero_filled_again)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma a, keep, again;
	void *va;

	cr_assert_eq(unic_mem_alloc(mem, 512, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 512, 64, 0, &keep), 0);
	memset(a.va, 0xab, a.len);
	va = a.va;
	unic_mem_free(mem, &a);
	cr_assert_eq(unic_mem_alloc(mem, 512, 64, 0, &again), 0);
	cr_assert_eq(again.va, va, "first fit takes the freed range");
	cr_assert(all_zero(again.va, again.len));
	unic_mem_destroy(mem);
}

Test(mem, free_of_a_foreign_or_freed_zone_is_refused_with_a_message)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma a, keep, copy, bogus = { .va = &bogus, .len = 8 };

	cr_assert_eq(unic_mem_alloc(mem, 256, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 256, 64, 0, &keep), 0);
	copy = a;
	unic_mem_free(mem, &a);
	unic_mem_free(mem, &copy);
	cr_assert(logcap_has("already free"), "log: %s", logcap_buf);
	unic_mem_free(mem, &bogus);
	cr_assert(logcap_has("not a zone of this context"), "log: %s", logcap_buf);
	cr_assert_eq(unic_mem_bytes_in_use(mem), 256);
	cr_assert_eq(unic_mem_seg_count(mem), 1);
	unic_mem_free(mem, &keep);
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	unic_mem_destroy(mem);
}

Test(mem, va2iova_finds_addresses_inside_zones_and_refuses_others)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma d;
	uint64_t iova = 0;
	int on_stack;

	cr_assert_eq(unic_mem_alloc(mem, 3000, 64, 0, &d), 0);
	cr_assert_eq(unic_mem_va2iova(mem, d.va, &iova), 0);
	cr_assert_eq(iova, d.iova);
	cr_assert_eq(unic_mem_va2iova(mem, (char *)d.va + 1234, &iova), 0);
	cr_assert_eq(iova, d.iova + 1234);
	cr_assert_eq(unic_mem_va2iova(mem, (char *)d.va + d.len - 1, &iova), 0);
	cr_assert_eq(iova, d.iova + d.len - 1);
	cr_assert_eq(unic_mem_va2iova(mem, &on_stack, &iova), -ENOENT);
	unic_mem_free(mem, &d);
	cr_assert_eq(unic_mem_va2iova(mem, &on_stack, &iova), -ENOENT);
	unic_mem_destroy(mem);
}

/* ---- listeners ---- */

Test(mem, listener_hears_each_segment_added_and_removed)
{
	struct unic_mem *mem = no_huge_mem();
	struct counter c = { 0 };
	struct unic_mem_listener l = listener_for(&c);
	struct unic_dma a, b, c2;
	int h;

	h = unic_mem_listen(mem, &l);
	cr_assert_gt(h, 0);
	cr_assert_eq(c.adds, 0, "no segment yet");
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &b), 0);
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &c2), 0);
	cr_assert_eq(c.adds, 3);
	cr_assert_eq(c.add_ids[0], a.seg->id);
	cr_assert_eq(c.add_ids[2], c2.seg->id);
	unic_mem_free(mem, &b);
	cr_assert_eq(c.removes, 1);
	unic_mem_unlisten(mem, h);
	cr_assert_eq(c.removes, 3, "unlisten removes the two that remain");
	unic_mem_free(mem, &a);
	cr_assert_eq(c.removes, 3, "no events after unlisten");
	unic_mem_destroy(mem);
}

Test(mem, listener_is_told_of_existing_segments_on_register_in_creation_order)
{
	struct unic_mem *mem = no_huge_mem();
	struct counter c = { 0 };
	struct unic_mem_listener l = listener_for(&c);
	struct unic_dma a, b;

	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &b), 0);
	cr_assert_gt(unic_mem_listen(mem, &l), 0);
	cr_assert_eq(c.adds, 2);
	cr_assert_eq(c.add_ids[0], a.seg->id);
	cr_assert_eq(c.add_ids[1], b.seg->id);
	cr_assert_lt(a.seg->id, b.seg->id);
	unic_mem_destroy(mem);
	cr_assert_eq(c.removes, 2, "destroy sends remove events");
}

Test(mem, failing_on_add_refuses_the_allocation_and_rolls_back)
{
	struct unic_mem *mem = no_huge_mem();
	struct counter ok = { 0 }, bad = { .fail_add_at = 1, .fail_rc = -EIO };
	struct unic_mem_listener lok = listener_for(&ok), lbad = listener_for(&bad);
	struct unic_dma d;
	int hbad;

	cr_assert_gt(unic_mem_listen(mem, &lok), 0);
	hbad = unic_mem_listen(mem, &lbad);
	cr_assert_gt(hbad, 0);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &d), -EIO, "the listener's error as is");
	cr_assert_eq(ok.adds, 1);
	cr_assert_eq(ok.removes, 1, "the listener that accepted hears it removed");
	cr_assert_eq(bad.removes, 0, "the one that refused is not told");
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	cr_assert_eq(unic_mem_bytes_in_use(mem), 0);
	cr_assert(logcap_has("refused by listener"), "log: %s", logcap_buf);

	unic_mem_unlisten(mem, hbad);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &d), 0);
	cr_assert_eq(ok.adds, 2);
	unic_mem_destroy(mem);
}

Test(mem, listener_that_refuses_a_replayed_segment_is_not_registered)
{
	struct unic_mem *mem = no_huge_mem();
	struct counter c = { .fail_add_at = 2, .fail_rc = -EFAULT };
	struct unic_mem_listener l = listener_for(&c);
	struct unic_dma a, b, x;

	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &b), 0);
	cr_assert_eq(unic_mem_listen(mem, &l), -EFAULT);
	cr_assert_eq(c.adds, 1);
	cr_assert_eq(c.removes, 1, "the segment replayed before the failure is removed");
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &x), 0);
	cr_assert_eq(c.adds, 1, "not registered: hears nothing more");
	cr_assert_eq(unic_mem_seg_count(mem), 3);
	unic_mem_destroy(mem);
	cr_assert_eq(c.removes, 1);
}

Test(mem, too_many_listeners_are_refused_with_enospc)
{
	struct unic_mem *mem = no_huge_mem();
	struct counter c = { 0 };
	struct unic_mem_listener l = listener_for(&c);
	int i, h, last = 0;

	for (i = 0; i < MEM_MAX_LISTENERS; i++) {
		h = unic_mem_listen(mem, &l);
		cr_assert_gt(h, last, "handles are positive and distinct");
		last = h;
	}
	cr_assert_eq(unic_mem_listen(mem, &l), -ENOSPC);
	unic_mem_unlisten(mem, last);
	cr_assert_gt(unic_mem_listen(mem, &l), 0, "a freed slot is reused");
	unic_mem_destroy(mem);
}

Test(mem, destroy_reports_leaked_zones_and_removes_their_segments)
{
	struct unic_mem *mem = no_huge_mem();
	struct counter c = { 0 };
	struct unic_mem_listener l = listener_for(&c);
	struct unic_dma a, b;

	cr_assert_gt(unic_mem_listen(mem, &l), 0);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 8192, 64, 0, &b), 0);
	unic_mem_destroy(mem);
	cr_assert(logcap_has("2 zone(s), 8292 bytes"), "log: %s", logcap_buf);
	cr_assert_eq(c.removes, 2);
	unic_mem_destroy(NULL);  /* accepted */
}

/* ---- IOVA window ---- */

Test(mem, segment_outside_the_iova_window_gets_an_aligned_iova_inside_it)
{
	struct unic_mem *mem = no_huge_mem();
	uint64_t lo = 1UL << 30, hi = (2UL << 30) - 1, iova;
	struct unic_dma d, big;

	cr_assert_eq(unic_mem_set_iova_window(mem, lo, hi), 0);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &d), 0);
	cr_assert_gt((uintptr_t)d.va, hi, "test assumes mmap hands out high VAs");
	cr_assert_eq(d.seg->iova, lo, "lowest free range in the window");
	cr_assert_eq(d.seg->iova % unic_mem_page_size(mem), 0);
	cr_assert_eq(d.iova, d.seg->iova + ((char *)d.va - (char *)d.seg->va));
	cr_assert_eq(unic_mem_va2iova(mem, (char *)d.va + 10, &iova), 0);
	cr_assert_eq(iova, d.iova + 10);

	/* Alignment larger than a page holds for the IOVA too. */
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64 * KB, 0, &big), 0);
	cr_assert_eq((uintptr_t)big.va % (64 * KB), 0);
	cr_assert_eq(big.iova % (64 * KB), 0);
	cr_assert_geq(big.seg->iova, lo);
	cr_assert_leq(big.seg->iova + big.seg->len - 1, hi);
	unic_mem_destroy(mem);
}

Test(mem, segment_inside_the_iova_window_keeps_iova_equal_to_va)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma d;

	cr_assert_eq(unic_mem_set_iova_window(mem, 0, (1ULL << 57) - 1), 0);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &d), 0);
	cr_assert_eq(d.iova, (uint64_t)(uintptr_t)d.va);
	unic_mem_destroy(mem);
}

Test(mem, distinct_segments_get_non_overlapping_iovas_in_the_window)
{
	struct unic_mem *mem = no_huge_mem();
	uint64_t lo = 0x10000000, hi = 0x1fffffff;
	struct unic_dma d[4];
	int i, j;

	cr_assert_eq(unic_mem_set_iova_window(mem, lo, hi), 0);
	for (i = 0; i < 4; i++)
		cr_assert_eq(unic_mem_alloc(mem, 4096 * (size_t)(i + 1), 64, 0, &d[i]), 0);
	cr_assert_eq(unic_mem_seg_count(mem), 4);
	for (i = 0; i < 4; i++) {
		cr_assert_geq(d[i].seg->iova, lo);
		cr_assert_leq(d[i].seg->iova + d[i].seg->len - 1, hi);
		for (j = 0; j < i; j++)
			cr_assert(d[i].seg->iova >= d[j].seg->iova + d[j].seg->len ||
				  d[j].seg->iova >= d[i].seg->iova + d[i].seg->len,
				  "segments %d and %d overlap in IOVA space", i, j);
	}
	/* A freed range is handed out again. */
	unic_mem_free(mem, &d[0]);
	cr_assert_eq(unic_mem_alloc(mem, 4096, 64, 0, &d[0]), 0);
	cr_assert_eq(d[0].seg->iova, lo);
	unic_mem_destroy(mem);
}

Test(mem, iova_window_is_refused_when_reversed_or_a_segment_lies_outside)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma d;

	cr_assert_eq(unic_mem_set_iova_window(mem, 2, 1), -EINVAL);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &d), 0);
	cr_assert_eq(unic_mem_set_iova_window(mem, 1UL << 30, (2UL << 30) - 1), -ERANGE);
	cr_assert(logcap_has("lies outside it"), "log: %s", logcap_buf);
	unic_mem_destroy(mem);
}

Test(mem, iova_window_that_is_full_makes_allocation_fail)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma a, b;

	cr_assert_eq(unic_mem_set_iova_window(mem, 0x100000, 0x100000 + 8191), 0);
	cr_assert_eq(unic_mem_alloc(mem, 8192, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc(mem, 100, 64, 0, &b), -ENOMEM);
	cr_assert(logcap_has("no free IOVA range"), "log: %s", logcap_buf);
	cr_assert_eq(unic_mem_seg_count(mem), 1, "the failed segment was unmapped");
	unic_mem_destroy(mem);
}
