/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/mem without root or hugepages: --no-huge contexts, a fake pagemap for
 * PA mode, a fake sysfs tree and mounts file for the hugepage report. One
 * test uses real hugepages when some are free and checks the error when not.
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

#define KB 1024UL
#define MB (1024UL * 1024UL)

/* ---- temporary files ---- */

static char tmpdir[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/unic-test-mem-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

/* Write @p text to tmpdir/@p rel, creating directories on the way. */
static void put_file(const char *rel, const char *text)
{
	char path[512], *p;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	for (p = path + strlen(tmpdir) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		mkdir(path, 0755);
		*p = '/';
	}
	f = fopen(path, "w");
	cr_assert_not_null(f, "cannot create %s", path);
	fputs(text, f);
	fclose(f);
}

static const char *tmp_path(const char *rel)
{
	static char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	return path;
}

static void setup(void)
{
	tmpdir[0] = '\0';
	unic_log_set_level(-1, UNIC_LOG_INFO);
	logcap_start(UNIC_LOG_DEBUG, 0);
}

static void teardown(void)
{
	logcap_stop();
	if (tmpdir[0] != '\0')
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TestSuite(mem, .init = setup, .fini = teardown);

/* ---- helpers ---- */

static struct unic_mem *no_huge_mem(void)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg), .no_huge = true };
	struct unic_mem *mem = unic_mem_create(&cfg);

	cr_assert_not_null(mem, "no-huge context: %s", strerror(errno));
	return mem;
}

static bool all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i] != 0)
			return false;
	return true;
}

/* Drop CAP_IPC_LOCK so RLIMIT_MEMLOCK applies even to root (this process only). */
static void drop_ipc_lock(rlim_t limit)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct rlimit rl = { .rlim_cur = limit, .rlim_max = limit };

	cr_assert_eq(syscall(SYS_capget, &hdr, data), 0);
	data[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	cr_assert_eq(syscall(SYS_capset, &hdr, data), 0);
	cr_assert_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
}

static uint64_t read_sys_u64(const char *path)
{
	unsigned long long v = 0;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

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

struct counter {
	int adds, removes;
	int fail_add_at;      /* refuse the n-th add (1-based); 0: never */
	int fail_rc;
	uint32_t add_ids[16];
};

static int count_add(void *ctx, const struct unic_mem_seg *seg)
{
	struct counter *c = ctx;

	if (c->fail_add_at != 0 && c->adds + 1 == c->fail_add_at)
		return c->fail_rc;
	if (c->adds < 16)
		c->add_ids[c->adds] = seg->id;
	c->adds++;
	return 0;
}

static void count_remove(void *ctx, const struct unic_mem_seg *seg)
{
	struct counter *c = ctx;

	(void)seg;
	c->removes++;
}

static struct unic_mem_listener listener_for(struct counter *c)
{
	return (struct unic_mem_listener){ .on_add = count_add,
					   .on_remove = count_remove, .ctx = c };
}

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
