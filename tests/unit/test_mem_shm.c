/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/mem's shareable zones (unic_mem_alloc_shareable): a sealed memfd of
 * their own whose fd maps the same bytes, the fallback to ordinary pages
 * when no hugepage is free (said in a warning; refused in PA mode), and
 * the errors of the fd getter.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <unic/log.h>
#include <unic/mem.h>

#include "log_capture.h"
#include "mem_fixture.h"

static const char huge_free_path[] = "/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages";

/* Map @p fd a second time, as a peer process would, and check both views. */
static void check_same_bytes(const struct unic_dma *d)
{
	uint64_t off;
	size_t flen;
	int fd;
	unsigned char *peer;

	cr_assert_eq(unic_mem_zone_fd(d, &fd, &off, &flen), 0, "log: %s", logcap_buf);
	cr_assert_geq(fd, 0);
	cr_assert_eq(flen, d->seg->len);
	cr_assert_eq(off, (uint64_t)((char *)d->va - (char *)d->seg->va));
	cr_assert_leq(off + d->len, flen);
	peer = mmap(NULL, flen, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	cr_assert_neq(peer, MAP_FAILED, "mmap of the zone's fd: %s", strerror(errno));
	memset(d->va, 0xa5, d->len);
	cr_assert_eq(peer[off], 0xa5, "a write through the zone is seen through the fd");
	cr_assert_eq(peer[off + d->len - 1], 0xa5);
	peer[off + 7] = 0x3c;
	cr_assert_eq(((unsigned char *)d->va)[7], 0x3c, "and the other way round");
	munmap(peer, flen);
}

static void check_sealed(int fd, size_t flen)
{
	int seals = fcntl(fd, F_GET_SEALS);

	cr_assert_geq(seals, 0, "F_GET_SEALS: %s", strerror(errno));
	cr_assert_eq(seals & (F_SEAL_SHRINK | F_SEAL_GROW), F_SEAL_SHRINK | F_SEAL_GROW,
		     "seals %#x", seals);
	cr_assert_eq(ftruncate(fd, 0), -1, "shrinking a sealed memfd fails");
	cr_assert_eq(errno, EPERM);
	cr_assert_eq(ftruncate(fd, (off_t)flen * 2), -1, "growing it fails");
	cr_assert_eq(errno, EPERM);
}

Test(mem, shareable_zone_has_a_sealed_fd_that_maps_the_same_bytes)
{
	struct unic_mem *mem = no_huge_mem();
	struct counter c = { 0 };
	struct unic_mem_listener l = listener_for(&c);
	struct unic_dma d;
	uint64_t iova, off;
	size_t flen;
	int fd;

	cr_assert_gt(unic_mem_listen(mem, &l), 0);
	cr_assert_eq(unic_mem_alloc_shareable(mem, 100000, 4096, 0, &d), 0, "log: %s",
		     logcap_buf);
	cr_assert_eq(c.adds, 1, "listeners (VFIO) hear the shared segment");
	cr_assert(all_zero(d.va, d.len));
	cr_assert_eq((uintptr_t)d.va % 4096, 0);
	cr_assert_eq(unic_mem_va2iova(mem, (char *)d.va + 10, &iova), 0);
	cr_assert_eq(iova, d.iova + 10);
	check_same_bytes(&d);
	cr_assert_eq(unic_mem_zone_fd(&d, &fd, &off, &flen), 0);
	check_sealed(fd, flen);
	cr_assert_eq(logcap_nb[UNIC_LOG_WARNING], 0, "no-huge asked for ordinary pages: "
		     "no fallback to say; log: %s", logcap_buf);

	unic_mem_free(mem, &d);
	cr_assert_eq(c.removes, 1);
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	cr_assert_eq(fcntl(fd, F_GETFD), -1, "the fd is closed with its zone");
	cr_assert_eq(errno, EBADF);
	unic_mem_destroy(mem);
}

Test(mem, shareable_zone_shares_its_segment_with_no_other_zone)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma a, s, b, s2;

	cr_assert_eq(unic_mem_alloc(mem, 256, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_alloc_shareable(mem, 256, 64, 0, &s), 0);
	cr_assert_eq(unic_mem_alloc(mem, 256, 64, 0, &b), 0);
	cr_assert_eq(unic_mem_alloc_shareable(mem, 256, 64, 0, &s2), 0);
	cr_assert_eq(a.seg->fd, -1, "ordinary zones have no fd");
	cr_assert_eq(b.seg, a.seg, "ordinary zones still pack together");
	cr_assert_neq(s.seg, a.seg);
	cr_assert_neq(s2.seg, s.seg, "each shareable zone has its own memfd");
	cr_assert_neq(s2.seg->fd, s.seg->fd);
	cr_assert_eq(unic_mem_seg_count(mem), 3);
	unic_mem_free(mem, &s);
	unic_mem_free(mem, &s2);
	cr_assert_eq(unic_mem_seg_count(mem), 1);
	unic_mem_free(mem, &a);
	unic_mem_free(mem, &b);
	unic_mem_destroy(mem);
}

Test(mem, zone_fd_of_an_ordinary_zone_is_refused_with_what_to_use)
{
	struct unic_mem *mem = no_huge_mem();
	struct unic_dma a;
	uint64_t off;
	size_t flen;
	int fd = 42;

	cr_assert_eq(unic_mem_alloc(mem, 256, 64, 0, &a), 0);
	cr_assert_eq(unic_mem_zone_fd(&a, &fd, &off, &flen), -EINVAL);
	cr_assert_eq(fd, 42);
	cr_assert(logcap_has("unic_mem_alloc_shareable()"), "log: %s", logcap_buf);
	cr_assert(logcap_has(".shareable = true"), "log: %s", logcap_buf);
	cr_assert_eq(unic_mem_alloc_shareable(mem, 0, 64, 0, &a), -EINVAL);
	cr_assert_eq(unic_mem_alloc_shareable(mem, 64, 3, 0, &a), -EINVAL);
	cr_assert(logcap_has("power-of-two alignment"), "log: %s", logcap_buf);
	unic_mem_destroy(mem);
}

/* A hugepage context over a fake sysfs that says @p nfree pages are free. */
static struct unic_mem *fake_huge_mem(enum unic_iova_mode mode)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg), .iova_mode = mode };
	struct unic_mem *mem;

	make_tmpdir();
	put_file("sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "1\n");
	put_file("sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "1\n");
	put_file("mounts.none", "");
	cfg.sysfs_root = tmpdir;
	cfg.mounts_path = tmp_path("mounts.none");
	mem = unic_mem_create(&cfg);
	cr_assert_not_null(mem, "log: %s", logcap_buf);
	/* Taken since creation. */
	put_file("sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "0\n");
	return mem;
}

Test(mem, shareable_zone_without_free_hugepages_falls_back_to_ordinary_pages_and_says_so)
{
	struct unic_mem *mem = fake_huge_mem(UNIC_IOVA_VA);
	struct unic_dma d;
	uint64_t off;
	size_t flen;
	int fd;

	cr_assert_eq(unic_mem_alloc_shareable(mem, 8192, 64, 0, &d), 0, "log: %s", logcap_buf);
	cr_assert(logcap_has("0 free 2048kB hugepages, using ordinary 4 KiB pages (memfd)"),
		  "log: %s", logcap_buf);
	cr_assert(logcap_has("reserve hugepages"), "log: %s", logcap_buf);
	cr_assert_eq(d.seg->page_size, 4096, "the segment says which pages it is on");
	check_same_bytes(&d);
	cr_assert_eq(unic_mem_zone_fd(&d, &fd, &off, &flen), 0);
	check_sealed(fd, flen);
	unic_mem_free(mem, &d);
	unic_mem_destroy(mem);
}

Test(mem, shareable_zone_in_pa_mode_without_free_hugepages_is_refused)
{
	struct unic_mem *mem;
	struct unic_dma d;

	if (geteuid() != 0) {
		/* PA mode needs the pagemap's frame numbers: creation says so. */
		struct unic_mem_conf cfg = { .sz = sizeof(cfg), .iova_mode = UNIC_IOVA_PA };

		make_tmpdir();
		put_file("sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "1\n");
		cfg.sysfs_root = tmpdir;
		cr_assert_null(unic_mem_create(&cfg));
		return;
	}
	mem = fake_huge_mem(UNIC_IOVA_PA);
	cr_assert_eq(unic_mem_alloc_shareable(mem, 8192, 64, 0, &d), -ENOMEM);
	cr_assert(logcap_has("PA mode cannot fall back to ordinary pages"), "log: %s",
		  logcap_buf);
	cr_assert(logcap_has("echo 512 >"), "the hugepage report; log: %s", logcap_buf);
	cr_assert_eq(unic_mem_seg_count(mem), 0);
	unic_mem_destroy(mem);
}

Test(mem, shareable_zone_is_on_real_hugepages_when_they_are_free)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg) };
	struct unic_mem *mem;
	struct unic_dma d;
	uint64_t off;
	size_t flen;
	int fd, rc;

	make_tmpdir();
	put_file("mounts.none", "");
	cfg.mounts_path = tmp_path("mounts.none");
	mem = unic_mem_create(&cfg);
	if (mem == NULL) {
		cr_assert_eq(read_sys_u64(huge_free_path), 0, "log: %s", logcap_buf);
		return;
	}
	rc = unic_mem_alloc_shareable(mem, 300000, 64, 0, &d);
	if (rc < 0 || d.seg->page_size != 2 * MB) {
		/* The pages went to someone else meanwhile: the log says why. */
		cr_assert(logcap_has("hugepages") || logcap_has("ulimit -l"), "rc %d; log: %s",
			  rc, logcap_buf);
		if (rc == 0)
			unic_mem_free(mem, &d);
		unic_mem_destroy(mem);
		return;
	}
	cr_assert_eq(d.seg->len, 2 * MB);
	cr_assert_eq(logcap_nb[UNIC_LOG_WARNING], 0, "log: %s", logcap_buf);
	check_same_bytes(&d);
	cr_assert_eq(unic_mem_zone_fd(&d, &fd, &off, &flen), 0);
	check_sealed(fd, flen);
	unic_mem_free(mem, &d);
	unic_mem_destroy(mem);
}
