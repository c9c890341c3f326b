/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * DMA memory: hugepage-backed, pinned, NUMA-placed, IOVA-contiguous zones.
 *
 * A struct unic_mem is one process's DMA memory context (no globals: a test
 * can create two). It maps memory in *segments*: a segment is a run of
 * virtual memory that is IOVA-contiguous and has one IOVA, kept per segment.
 *
 *  - VA mode (VFIO with an IOMMU): the bus layer DMA-maps each segment. The
 *    IOVA is the VA by default; after unic_mem_set_iova_window() a segment
 *    whose VA does not fit the window gets an IOVA allocated inside it
 *    (IOMMUs with 39-bit address limits cannot map 0x7f... addresses).
 *    Never assume iova == va.
 *  - PA mode (UIO, VFIO no-IOMMU): IOVA is the physical address read from
 *    /proc/self/pagemap; needs root (the kernel hides PFNs otherwise) and
 *    hugepages. Memory is contiguous only within one hugepage, so a mapping
 *    is split into one segment per run of physically contiguous pages and no
 *    zone crosses a segment boundary.
 *
 * Backing: 2 MiB hugepages through MAP_HUGETLB, or files in a hugetlbfs
 * mount (--huge-dir, or a mounted 1 GiB hugetlbfs when it has free pages)
 * unlinked right after mmap, so a crash leaks no pages. Memory is mlocked and
 * bound to a NUMA node with libnuma (node -1 is taken as 0 and logged).
 * With no_huge, ordinary pages are used (VA mode only) so tests run without
 * root or hugepages.
 *
 * Zones (unic_mem_alloc) are carved from segments; a segment is mapped when
 * no existing one has room and unmapped when its last zone is freed.
 * Listeners (unic_mem_listen) hear of every segment added and removed, and
 * are first told of every segment that already exists.
 *
 * Thread safety: every function takes the context's mutex; none is for the
 * fast path.
 */
#ifndef UNIC_MEM_H
#define UNIC_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

/** The addresses a device is given for DMA memory (docs/memory.md). */
enum unic_iova_mode {
	UNIC_IOVA_VA = 0, /**< IOVA chosen per segment; DMA-mapped by the bus */
	UNIC_IOVA_PA = 1, /**< IOVA = physical address from pagemap */
};

/** Options for unic_mem_create(). Zero-initialise, then set what you need. */
struct unic_mem_conf {
	size_t sz;                   /**< sizeof(struct unic_mem_conf) */
	enum unic_iova_mode iova_mode; /**< 0: VA */
	bool no_huge;                /**< ordinary pages; VA mode only */
	const char *huge_dir;        /**< hugetlbfs mount to use; NULL: MAP_HUGETLB
					  (or a mounted 1 GiB hugetlbfs) */
	/* Test hooks; NULL means the real file. */
	const char *pagemap_path;    /**< default /proc/self/pagemap; setting it
					  allows PA mode with no_huge (tests) */
	const char *sysfs_root;      /**< default "" (i.e. /sys/...) */
	const char *mounts_path;     /**< default /proc/mounts */
};

/** One IOVA-contiguous run of mapped memory. Read-only to users. */
struct unic_mem_seg {
	void *va;           /**< where the process sees it */
	uint64_t iova;      /**< where a device sees it */
	size_t len;         /**< bytes */
	size_t page_size;   /**< 4 KiB, 2 MiB or 1 GiB */
	int numa_node;      /**< the node its pages are on */
	uint32_t id;        /**< unique within its context */
	int fd;             /**< a shareable segment's memfd (owned by the
				 context, open for the segment's life), else -1;
				 the fd's bytes are the segment's, from offset 0 */
};

/** A zone handed out by unic_mem_alloc(): IOVA-contiguous over its length. */
struct unic_dma {
	void *va;           /**< where the process sees it */
	uint64_t iova;      /**< where a device sees it */
	size_t len;         /**< bytes */
	const struct unic_mem_seg *seg; /**< the segment that holds it */
};

struct unic_mem;

/**
 * Create a DMA memory context. Maps nothing yet, but checks that the mode can
 * work: PA mode needs pagemap PFNs (root) and hugepages; huge mode needs
 * hugepages reserved. Logs the chosen backing and IOVA mode.
 * @return the context, or NULL with errno: EINVAL (bad config, e.g. PA with
 *         no_huge), EACCES (PA mode without CAP_SYS_ADMIN), ENOMEM
 *         (no hugepages; the log names pages free per node and size, the
 *         hugetlbfs mounts, and the command that reserves pages).
 */
struct unic_mem *unic_mem_create(const struct unic_mem_conf *cfg);

/**
 * Destroy a context; NULL is accepted. Zones still allocated are reported
 * (count and bytes) and their segments unmapped, with remove events.
 */
void unic_mem_destroy(struct unic_mem *mem);

/** The context's IOVA mode. */
enum unic_iova_mode unic_mem_iova_mode(const struct unic_mem *mem);

/**
 * Largest zone that can be IOVA-contiguous: the hugepage size in PA mode,
 * SIZE_MAX otherwise. Pools use it so no object crosses a page in PA mode.
 */
size_t unic_mem_max_contig(const struct unic_mem *mem);

/** Page size of the backing memory (4 KiB with no_huge). */
size_t unic_mem_page_size(const struct unic_mem *mem);

/**
 * Allocate a zone of @p len bytes aligned to @p align (power of two, 0 means
 * cache line), IOVA-contiguous, zero-filled, on NUMA node @p numa_node (-1 is
 * taken as 0 and logged once).
 * @return 0 and fills @p out, or -EINVAL (len 0, bad align, len larger than
 *         unic_mem_max_contig() in PA mode: the message says so), -ENOMEM (no
 *         hugepages left: the message gives free pages per node and the
 *         reserve command), or an error from a listener that refused the new
 *         segment (for example a failed DMA map), which is returned as is.
 */
int unic_mem_alloc(struct unic_mem *mem, size_t len, size_t align,
		   int numa_node, struct unic_dma *out);

/**
 * Allocate a shareable zone: as unic_mem_alloc(), but in a segment of its
 * own backed by a memfd (sealed F_SEAL_SHRINK | F_SEAL_GROW, mapped
 * MAP_SHARED) whose fd another process can map (passed over a Unix socket)
 * to see the same bytes: @p out->seg->fd, the zone at offset
 * unic_mem_zone_fd() gives. Hugepages when the context uses them and
 * enough are free; otherwise, in VA mode, ordinary pages, said in a
 * warning. IOVA lookup and memory listeners (VFIO) see it as any segment.
 * Freeing the zone unmaps the segment and closes the fd.
 * @return 0, or as unic_mem_alloc(); -ENOMEM in PA mode without free
 *         hugepages (the message gives the hugepage report).
 */
int unic_mem_alloc_shareable(struct unic_mem *mem, size_t len, size_t align,
			     int numa_node, struct unic_dma *out);

/**
 * Where a shareable zone lies in its fd: @p fd (owned by the context: do
 * not close it), @p off of the zone's first byte in it, and @p file_len,
 * the fd's size (what a peer maps).
 * @return 0, or -EINVAL (the zone is not from unic_mem_alloc_shareable():
 *         the message says so).
 */
int unic_mem_zone_fd(const struct unic_dma *zone, int *fd, uint64_t *off,
		     size_t *file_len);

/** Free a zone from unic_mem_alloc(); a zeroed @p d is accepted. */
void unic_mem_free(struct unic_mem *mem, struct unic_dma *d);

/**
 * IOVA of an address inside any zone of this context.
 * @return 0 and sets @p iova, or -ENOENT if @p va is in no segment.
 */
int unic_mem_va2iova(const struct unic_mem *mem, const void *va, uint64_t *iova);

/**
 * Restrict VA-mode IOVAs to [lo, hi] (inclusive) from now on: a new segment
 * keeps IOVA = VA when it fits, otherwise gets the lowest free range inside
 * the window (aligned to its page size). Existing segments keep their IOVA.
 * @return 0, -EINVAL in PA mode or for lo > hi, -ERANGE if an existing segment
 *         lies outside the window (the message names it).
 */
int unic_mem_set_iova_window(struct unic_mem *mem, uint64_t lo, uint64_t hi);

/** Segment events. A non-zero return from on_add refuses the segment. */
struct unic_mem_listener {
	int (*on_add)(void *ctx, const struct unic_mem_seg *seg);     /**< a segment was mapped: map it for DMA; non-zero refuses it */
	void (*on_remove)(void *ctx, const struct unic_mem_seg *seg); /**< a segment is about to be unmapped */
	void *ctx;                                                     /**< first argument of both */
};

/**
 * Register a listener. on_add is first called for every existing segment
 * (in creation order); if one fails, the segments already replayed get
 * on_remove, the listener is not registered and the error is returned.
 * @return a handle > 0, or a negative errno (-ENOSPC: too many listeners).
 */
int unic_mem_listen(struct unic_mem *mem, const struct unic_mem_listener *l);

/** Unregister; on_remove is called for every existing segment first. */
void unic_mem_unlisten(struct unic_mem *mem, int handle);

/** Number of segments currently mapped, and bytes in zones in use. */
unsigned unic_mem_seg_count(const struct unic_mem *mem);
/** Bytes in zones allocated and not yet freed. */
size_t unic_mem_bytes_in_use(const struct unic_mem *mem);

/**
 * Call @p fn for each segment in creation order; stops at the first non-zero
 * return and returns it.
 */
int unic_mem_seg_walk(const struct unic_mem *mem,
		      int (*fn)(void *ctx, const struct unic_mem_seg *seg),
		      void *ctx);

/**
 * Write a human-readable hugepage report to @p buf: free/total pages per
 * NUMA node and page size, the hugetlbfs mounts (or that none is mounted) and
 * the command that reserves pages. Used in error messages and by apps as a
 * preflight check.
 * @return the length written (as snprintf).
 */
int unic_mem_hugepage_report(const struct unic_mem_conf *cfg, char *buf,
			     size_t len);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_MEM_H */
