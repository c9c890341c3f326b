/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lib/mem internals shared by its files:
 *   mem.c          context, segment registry, listeners, zone allocator
 *   mem_huge.c     backing memory (hugepages, hugetlbfs, no-huge), NUMA,
 *                  mlock, and the hugepage report
 *   mem_pagemap.c  physical addresses from /proc/self/pagemap (PA mode)
 */
#ifndef UNIC_MEM_PRIVATE_H
#define UNIC_MEM_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <unic/mem.h>

#define MEM_MAX_LISTENERS 8

/*
 * PA mode maps at least this much at a time, so small zones share one
 * mapping. With hugepages this is one page; with the 4 KiB pages of the
 * pagemap test mode it is several, and the mapping is split into segments
 * by runs of physically contiguous pages.
 */
#define MEM_PA_MAP_MIN ((size_t)64 * 1024)

/* Pagemap entries describe 4 KiB base pages whatever the backing page size. */
#define MEM_PAGEMAP_PAGE ((uint64_t)4096)

/* A free range inside a segment, as an offset from the segment's start. */
struct mem_free {
	size_t off;
	size_t len;
	struct mem_free *next;  /* sorted by offset, never adjacent */
};

struct mem_seg {
	struct unic_mem_seg pub;  /* what listeners and unic_dma.seg see */
	struct mem_free *free;    /* first-fit free list */
	unsigned nb_zones;
	struct mem_seg *next;     /* creation order */
};

struct mem_listener {
	struct unic_mem_listener l;
	int handle;               /* 0: slot unused */
};

enum mem_backing {
	MEM_BACKING_ANON,         /* ordinary pages (no_huge) */
	MEM_BACKING_HUGETLB,      /* MAP_HUGETLB anonymous hugepages */
	MEM_BACKING_HUGETLBFS,    /* unlinked files in a hugetlbfs mount */
};

struct unic_mem {
	/* Callbacks run with this lock held: a listener or walk function
	 * must not call back into the same context. */
	pthread_mutex_t lock;

	enum unic_iova_mode iova_mode;
	bool no_huge;
	enum mem_backing backing;
	size_t page_size;
	char *huge_dir;           /* owned; set for MEM_BACKING_HUGETLBFS */
	char *pagemap_path;       /* owned; NULL: /proc/self/pagemap */
	char *sysfs_root;         /* owned; "" for the real /sys */
	char *mounts_path;        /* owned; NULL: /proc/mounts */
	unsigned file_seq;        /* names hugetlbfs files */

	struct mem_seg *segs;     /* creation order */
	uint32_t next_seg_id;
	unsigned nb_segs;
	unsigned nb_zones;
	size_t bytes_in_use;

	struct mem_listener listeners[MEM_MAX_LISTENERS];
	int next_handle;

	bool window;              /* VA mode IOVAs restricted to [lo, hi] */
	uint64_t window_lo;
	uint64_t window_hi;

	bool warned_numa_default; /* node -1 taken as 0: logged once */
	bool warned_mlock;        /* no-huge mlock failure: logged once */
	bool warned_numa_place;   /* pages landed off-node: logged once */
};

/* mem_huge.c */

/* Choose the backing and page size for @p cfg; checks hugepages are free. */
int mem_backing_init(struct unic_mem *mem, const struct unic_mem_conf *cfg);
/*
 * Map @p len bytes (a page multiple) on @p node: bound, locked, touched.
 * With @p fd, a sealed memfd mapped MAP_SHARED whose fd is returned there
 * (hugepages if free, else ordinary pages in VA mode: @p page_size says).
 */
int mem_backing_map(struct unic_mem *mem, size_t len, int node, void **va,
		    int *fd, size_t *page_size);
/* Unmap, and close @p fd when >= 0. */
void mem_backing_unmap(struct unic_mem *mem, void *va, size_t len, int fd);
/* Log the hugepage report line by line at error level. */
void mem_log_hugepage_report(const struct unic_mem *mem);
/* Human name of the backing, e.g. "2048kB hugepages (MAP_HUGETLB)". */
const char *mem_backing_name(const struct unic_mem *mem, char *buf, size_t len);

/* mem_pagemap.c */

/* PA mode preflight: the pagemap can be read and shows PFNs. */
int mem_pagemap_check(const struct unic_mem *mem);
/*
 * Physical address of the first byte of each of the @p nb_pages pages of
 * @p page_size starting at @p va (which must be touched and locked).
 */
int mem_pagemap_lookup(const struct unic_mem *mem, const void *va,
		       size_t page_size, size_t nb_pages, uint64_t *pa);

#endif /* UNIC_MEM_PRIVATE_H */
