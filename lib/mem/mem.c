/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The DMA memory context: segment registry and its listeners, IOVA choice,
 * and the zone allocator (a first-fit free list per segment).
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/common.h>
#include <unic/log.h>
#include <unic/mem.h>

#include "mem_private.h"

/* Cast away const to take the lock in const getters; only the lock changes. */
static void mem_lock(const struct unic_mem *mem)
{
	pthread_mutex_lock(&((struct unic_mem *)(uintptr_t)mem)->lock);
}

static void mem_unlock(const struct unic_mem *mem)
{
	pthread_mutex_unlock(&((struct unic_mem *)(uintptr_t)mem)->lock);
}

/* ---- create / destroy ---- */

static int copy_str(char **dst, const char *src)
{
	*dst = NULL;
	if (src == NULL)
		return 0;
	*dst = strdup(src);
	return *dst != NULL ? 0 : -ENOMEM;
}

static int check_config(const struct unic_mem_conf *cfg)
{
	if (cfg->sz < sizeof(size_t) || cfg->sz > sizeof(*cfg)) {
		UNIC_LOG(ERR, MEM, "memory config: sz is %zu, expected "
			 "sizeof(struct unic_mem_conf) = %zu", cfg->sz, sizeof(*cfg));
		return -EINVAL;
	}
	if (cfg->iova_mode != UNIC_IOVA_VA && cfg->iova_mode != UNIC_IOVA_PA) {
		UNIC_LOG(ERR, MEM, "memory config: unknown IOVA mode %d (expected "
			 "UNIC_IOVA_VA or UNIC_IOVA_PA)", (int)cfg->iova_mode);
		return -EINVAL;
	}
	if (cfg->iova_mode == UNIC_IOVA_PA && cfg->no_huge && cfg->pagemap_path == NULL) {
		UNIC_LOG(ERR, MEM, "PA mode cannot use --no-huge: ordinary pages are "
			 "physically contiguous only 4 KiB at a time. Use hugepages "
			 "for UIO / VFIO no-IOMMU, or VFIO with an IOMMU (VA mode)");
		return -EINVAL;
	}
	if (cfg->no_huge && cfg->huge_dir != NULL) {
		UNIC_LOG(ERR, MEM, "memory config: --no-huge and --huge-dir %s exclude "
			 "each other; drop one", cfg->huge_dir);
		return -EINVAL;
	}
	return 0;
}

struct unic_mem *unic_mem_create(const struct unic_mem_conf *ucfg)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg) };
	struct unic_mem *mem;
	char name[PATH_MAX + 64];
	int rc;

	if (ucfg != NULL) {
		rc = check_config(ucfg);
		if (rc < 0)
			goto out_errno;
		memcpy(&cfg, ucfg, ucfg->sz);
	}
	mem = calloc(1, sizeof(*mem));
	if (mem == NULL) {
		rc = -ENOMEM;
		goto out_errno;
	}
	rc = pthread_mutex_init(&mem->lock, NULL);
	if (rc != 0) {
		rc = -rc;
		goto free_mem;
	}
	mem->iova_mode = cfg.iova_mode;
	mem->no_huge = cfg.no_huge;
	mem->next_handle = 1;
	if (copy_str(&mem->pagemap_path, cfg.pagemap_path) < 0 ||
	    copy_str(&mem->sysfs_root, cfg.sysfs_root ? cfg.sysfs_root : "") < 0 ||
	    copy_str(&mem->mounts_path, cfg.mounts_path) < 0) {
		rc = -ENOMEM;
		goto free_strings;
	}
	rc = mem_backing_init(mem, &cfg);
	if (rc < 0)
		goto free_strings;
	if (mem->iova_mode == UNIC_IOVA_PA) {
		rc = mem_pagemap_check(mem);
		if (rc < 0)
			goto free_strings;
	}
	UNIC_LOG(INFO, MEM, "DMA memory: %s IOVA mode, %s",
		 mem->iova_mode == UNIC_IOVA_PA ? "PA" : "VA",
		 mem_backing_name(mem, name, sizeof(name)));
	return mem;

free_strings:
	free(mem->huge_dir);
	free(mem->pagemap_path);
	free(mem->sysfs_root);
	free(mem->mounts_path);
	pthread_mutex_destroy(&mem->lock);
free_mem:
	free(mem);
out_errno:
	errno = -rc;
	return NULL;
}

/* ---- segment registry ---- */

static void seg_free(struct mem_seg *seg)
{
	struct mem_free *f, *next;

	for (f = seg->free; f != NULL; f = next) {
		next = f->next;
		free(f);
	}
	free(seg);
}

static int norm_err(int rc)
{
	return rc > 0 ? -rc : rc;
}

/* Tell listeners [0, upto) that @p seg is gone, last registered first. */
static void seg_notify_remove(struct unic_mem *mem, struct mem_seg *seg, int upto)
{
	int i;

	for (i = upto - 1; i >= 0; i--) {
		struct mem_listener *ml = &mem->listeners[i];

		if (ml->handle != 0 && ml->l.on_remove != NULL)
			ml->l.on_remove(ml->l.ctx, &seg->pub);
	}
}

/*
 * Offer a new segment to every listener. If one refuses, those that had
 * accepted it hear it removed again, and the refusal is returned.
 */
static int seg_notify_add(struct unic_mem *mem, struct mem_seg *seg)
{
	int i, rc;

	for (i = 0; i < MEM_MAX_LISTENERS; i++) {
		struct mem_listener *ml = &mem->listeners[i];

		if (ml->handle == 0 || ml->l.on_add == NULL)
			continue;
		rc = ml->l.on_add(ml->l.ctx, &seg->pub);
		if (rc != 0) {
			rc = norm_err(rc);
			UNIC_LOG(ERR, MEM, "segment %u (%zu bytes at VA %p, IOVA %#" PRIx64
				 ") refused by listener %d: %s", seg->pub.id, seg->pub.len,
				 seg->pub.va, seg->pub.iova, ml->handle, strerror(-rc));
			seg_notify_remove(mem, seg, i);
			return rc;
		}
	}
	return 0;
}

/* Unlink @p seg, tell the listeners, unmap it. */
static void seg_remove(struct unic_mem *mem, struct mem_seg *seg)
{
	struct mem_seg **pp;

	for (pp = &mem->segs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == seg) {
			*pp = seg->next;
			break;
		}
	}
	mem->nb_segs--;
	seg_notify_remove(mem, seg, MEM_MAX_LISTENERS);
	UNIC_LOG(DEBUG, MEM, "segment %u unmapped (%zu bytes at VA %p)", seg->pub.id,
		 seg->pub.len, seg->pub.va);
	mem_backing_unmap(mem, seg->pub.va, seg->pub.len, seg->pub.fd);
	seg_free(seg);
}

static void seg_append(struct unic_mem *mem, struct mem_seg *seg)
{
	struct mem_seg **pp = &mem->segs;

	while (*pp != NULL)
		pp = &(*pp)->next;
	seg->next = NULL;
	*pp = seg;
	mem->nb_segs++;
}

void unic_mem_destroy(struct unic_mem *mem)
{
	if (mem == NULL)
		return;
	mem_lock(mem);
	if (mem->nb_zones > 0)
		UNIC_LOG(WARNING, MEM, "destroying DMA memory with %u zone(s), %zu bytes, "
			 "still allocated; unmapping their segments", mem->nb_zones,
			 mem->bytes_in_use);
	while (mem->segs != NULL)
		seg_remove(mem, mem->segs);
	mem_unlock(mem);
	pthread_mutex_destroy(&mem->lock);
	free(mem->huge_dir);
	free(mem->pagemap_path);
	free(mem->sysfs_root);
	free(mem->mounts_path);
	free(mem);
}

/* ---- IOVA choice (VA mode) ---- */

static bool iova_busy(const struct unic_mem *mem, uint64_t iova, size_t len,
		      uint64_t *busy_end)
{
	const struct mem_seg *s;

	for (s = mem->segs; s != NULL; s = s->next) {
		if (iova < s->pub.iova + s->pub.len && s->pub.iova < iova + len) {
			*busy_end = s->pub.iova + s->pub.len;
			return true;
		}
	}
	return false;
}

static bool in_window(const struct unic_mem *mem, uint64_t iova, size_t len)
{
	return iova >= mem->window_lo && len - 1 <= mem->window_hi - iova &&
	       iova <= mem->window_hi;
}

/*
 * IOVA for a new VA-mode segment: the VA itself unless a window excludes it
 * (or another segment already took those IOVAs); then the lowest free range
 * in the window with iova == va modulo @p align, so alignment inside the
 * segment holds for both addresses.
 */
static int pick_iova(struct unic_mem *mem, uintptr_t va, size_t len, size_t align,
		     uint64_t *iova)
{
	uint64_t cand, end, phase = va & (align - 1);

	if (!mem->window) {
		*iova = va;
		return 0;
	}
	if (in_window(mem, va, len) && !iova_busy(mem, va, len, &end)) {
		*iova = va;
		return 0;
	}
	cand = UNIC_ALIGN_CEIL(mem->window_lo, (uint64_t)align);
	if (cand < mem->window_lo)  /* wrapped */
		goto full;
	cand += phase;
	while (in_window(mem, cand, len)) {
		if (!iova_busy(mem, cand, len, &end)) {
			*iova = cand;
			return 0;
		}
		/* Next candidate at or past the busy range, same phase. */
		cand = UNIC_ALIGN_CEIL(end - phase, (uint64_t)align) + phase;
		if (cand < end)
			break;
	}
full:
	UNIC_LOG(ERR, MEM, "no free IOVA range of %zu bytes in the window [%#" PRIx64
		 ", %#" PRIx64 "] (%u segments mapped); free memory or widen the window",
		 len, mem->window_lo, mem->window_hi, mem->nb_segs);
	return -ENOMEM;
}

int unic_mem_set_iova_window(struct unic_mem *mem, uint64_t lo, uint64_t hi)
{
	struct mem_seg *s;
	int rc = 0;

	if (mem == NULL)
		return -EINVAL;
	if (mem->iova_mode == UNIC_IOVA_PA) {
		UNIC_LOG(ERR, MEM, "IOVA window: PA mode uses physical addresses; a "
			 "window applies to VA mode (VFIO with an IOMMU) only");
		return -EINVAL;
	}
	if (lo > hi) {
		UNIC_LOG(ERR, MEM, "IOVA window: low end %#" PRIx64 " is above high end %#"
			 PRIx64, lo, hi);
		return -EINVAL;
	}
	mem_lock(mem);
	for (s = mem->segs; s != NULL; s = s->next) {
		if (s->pub.iova < lo || s->pub.len - 1 > hi - s->pub.iova ||
		    s->pub.iova > hi) {
			UNIC_LOG(ERR, MEM, "IOVA window [%#" PRIx64 ", %#" PRIx64 "]: segment "
				 "%u (IOVA %#" PRIx64 ", %zu bytes) lies outside it; set the "
				 "window before allocating memory", lo, hi, s->pub.id,
				 s->pub.iova, s->pub.len);
			rc = -ERANGE;
			goto out;
		}
	}
	mem->window = true;
	mem->window_lo = lo;
	mem->window_hi = hi;
	UNIC_LOG(DEBUG, MEM, "IOVA window [%#" PRIx64 ", %#" PRIx64 "]", lo, hi);
out:
	mem_unlock(mem);
	return rc;
}

/* ---- growing: map new segments ---- */

static struct mem_seg *seg_new(struct unic_mem *mem, void *va, uint64_t iova,
			       size_t len, int node, size_t page_size)
{
	struct mem_seg *seg = calloc(1, sizeof(*seg));

	if (seg == NULL)
		return NULL;
	seg->free = calloc(1, sizeof(*seg->free));
	if (seg->free == NULL) {
		free(seg);
		return NULL;
	}
	seg->free->len = len;
	seg->pub.va = va;
	seg->pub.iova = iova;
	seg->pub.len = len;
	seg->pub.page_size = page_size;
	seg->pub.numa_node = node;
	seg->pub.fd = -1;
	(void)mem;
	return seg;
}

/*
 * Cut a PA-mode mapping into segments, one per run of physically contiguous
 * pages, in address order. Returns the number of segments in @p out.
 */
static int split_by_runs(struct unic_mem *mem, char *va, size_t len, int node,
			 struct mem_seg ***out)
{
	size_t ps = mem->page_size, nb_pages = len / ps, i, start;
	struct mem_seg **segs = NULL;
	uint64_t *pa;
	int n = 0, rc;

	pa = calloc(nb_pages, sizeof(*pa));
	segs = calloc(nb_pages, sizeof(*segs));
	if (pa == NULL || segs == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = mem_pagemap_lookup(mem, va, ps, nb_pages, pa);
	if (rc < 0)
		goto fail;
	for (start = 0, i = 1; i <= nb_pages; i++) {
		if (i < nb_pages && pa[i] == pa[i - 1] + ps)
			continue;
		segs[n] = seg_new(mem, va + start * ps, pa[start], (i - start) * ps, node, ps);
		if (segs[n] == NULL) {
			rc = -ENOMEM;
			goto fail;
		}
		n++;
		start = i;
	}
	free(pa);
	*out = segs;
	return n;

fail:
	while (n > 0)
		seg_free(segs[--n]);
	free(segs);
	free(pa);
	return rc;
}

/*
 * Map memory for a zone of @p len bytes aligned to @p align: one segment in
 * VA mode, one or more in PA mode. The segments are appended only once every
 * listener has accepted them; otherwise all is undone. With @p shared, one
 * segment of a memfd, for this zone alone, returned in @p shared.
 */
static int mem_grow(struct unic_mem *mem, size_t len, size_t align, int node,
		    struct mem_seg **shared)
{
	size_t ps = mem->page_size, map_len, slack;
	struct mem_seg **segs = NULL, *one = NULL;
	int i, n, rc, fd = -1;
	void *va;

	/* mmap aligns to the page size; anything more needs room to slide. */
	slack = align > ps ? align - ps : 0;
	if (len > SIZE_MAX / 2 - slack)
		return -ENOMEM;
	map_len = UNIC_ALIGN_CEIL(len + slack, ps);
	if (mem->iova_mode == UNIC_IOVA_PA && shared == NULL)
		map_len = UNIC_MAX(map_len, UNIC_ALIGN_CEIL(MEM_PA_MAP_MIN, ps));

	rc = mem_backing_map(mem, map_len, node, &va, shared ? &fd : NULL, &ps);
	if (rc < 0)
		return rc;
	map_len = UNIC_ALIGN_CEIL(map_len, ps);

	if (mem->iova_mode == UNIC_IOVA_PA) {
		/* A shared zone fits one page in PA mode (unic_mem_alloc checks). */
		n = split_by_runs(mem, va, map_len, node, &segs);
		if (n < 0) {
			rc = n;
			goto unmap;
		}
		if (shared != NULL && n != 1) {
			UNIC_LOG(ERR, MEM, "shareable zone of %zu bytes is not physically "
				 "contiguous (%d runs)", len, n);
			rc = -ENOMEM;
			for (i = 0; i < n; i++)
				seg_free(segs[i]);
			free(segs);
			goto unmap;
		}
	} else {
		uint64_t iova;

		rc = pick_iova(mem, (uintptr_t)va, map_len, UNIC_MAX(align, ps), &iova);
		if (rc < 0)
			goto unmap;
		one = seg_new(mem, va, iova, map_len, node, ps);
		if (one == NULL) {
			rc = -ENOMEM;
			goto unmap;
		}
		segs = &one;
		n = 1;
	}

	if (shared != NULL) {
		segs[0]->pub.fd = fd;
		*shared = segs[0];
	}
	for (i = 0; i < n; i++) {
		segs[i]->pub.id = ++mem->next_seg_id;
		rc = seg_notify_add(mem, segs[i]);
		if (rc < 0)
			goto unannounce;
	}
	for (i = 0; i < n; i++) {
		seg_append(mem, segs[i]);
		UNIC_LOG(DEBUG, MEM, "segment %u: %zu bytes at VA %p, IOVA %#" PRIx64
			 ", node %d", segs[i]->pub.id, segs[i]->pub.len,
			 segs[i]->pub.va, segs[i]->pub.iova, node);
	}
	if (segs != &one)
		free(segs);
	return 0;

unannounce:
	while (i-- > 0)
		seg_notify_remove(mem, segs[i], MEM_MAX_LISTENERS);
	for (i = 0; i < n; i++)
		seg_free(segs[i]);
	if (segs != &one)
		free(segs);
unmap:
	mem_backing_unmap(mem, va, map_len, fd);
	return rc;
}

/* ---- zones ---- */

/* First fit in @p seg; the chosen range is taken off the free list. */
static int seg_take(struct mem_seg *seg, size_t len, size_t align, size_t *off_out)
{
	uintptr_t base = (uintptr_t)seg->pub.va;
	struct mem_free **pp, *f;

	/* Alignment must hold for the IOVA as well as the VA. */
	if (((base - seg->pub.iova) & (align - 1)) != 0)
		return -ENOSPC;
	for (pp = &seg->free; (f = *pp) != NULL; pp = &f->next) {
		size_t off = UNIC_ALIGN_CEIL(base + f->off, (uintptr_t)align) - base;
		size_t head = off - f->off;

		if (head > f->len || f->len - head < len)
			continue;
		if (head > 0 && f->len - head > len) {
			/* Both a head and a tail remain: split the block. */
			struct mem_free *tail = malloc(sizeof(*tail));

			if (tail == NULL)
				return -ENOMEM;
			tail->off = off + len;
			tail->len = f->len - head - len;
			tail->next = f->next;
			f->next = tail;
			f->len = head;
		} else if (head > 0) {
			f->len = head;
		} else if (f->len > len) {
			f->off += len;
			f->len -= len;
		} else {
			*pp = f->next;
			free(f);
		}
		*off_out = off;
		return 0;
	}
	return -ENOSPC;
}

/* Give [off, off + len) back, merging with its neighbours. */
static int seg_give(struct mem_seg *seg, size_t off, size_t len)
{
	struct mem_free **pp = &seg->free, *prev = NULL, *f;

	while (*pp != NULL && (*pp)->off < off) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	if ((prev != NULL && prev->off + prev->len > off) ||
	    (*pp != NULL && off + len > (*pp)->off))
		return -EINVAL;  /* overlaps free space: freed twice */
	if (prev != NULL && prev->off + prev->len == off) {
		prev->len += len;
		if (*pp != NULL && prev->off + prev->len == (*pp)->off) {
			f = *pp;
			prev->len += f->len;
			prev->next = f->next;
			free(f);
		}
		return 0;
	}
	if (*pp != NULL && off + len == (*pp)->off) {
		(*pp)->off = off;
		(*pp)->len += len;
		return 0;
	}
	f = malloc(sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	f->off = off;
	f->len = len;
	f->next = *pp;
	*pp = f;
	return 0;
}

/* Take a zone in @p s: 0, -ENOSPC (no room), -ENOMEM. */
static int zone_take(struct unic_mem *mem, struct mem_seg *s, size_t len,
		     size_t align, struct unic_dma *out)
{
	size_t off;
	int rc;

	rc = seg_take(s, len, align, &off);
	if (rc < 0)
		return rc;
	s->nb_zones++;
	mem->nb_zones++;
	mem->bytes_in_use += len;
	out->va = (char *)s->pub.va + off;
	out->iova = s->pub.iova + off;
	out->len = len;
	out->seg = &s->pub;
	/* Fresh pages are zero; reused space may not be. */
	memset(out->va, 0, len);
	return 0;
}

/* Shared segments hold one zone each: they are never offered here. */
static int zone_fit(struct unic_mem *mem, size_t len, size_t align, int node,
		    struct unic_dma *out)
{
	struct mem_seg *s;
	int rc;

	for (s = mem->segs; s != NULL; s = s->next) {
		if (s->pub.numa_node != node || s->pub.len < len || s->pub.fd >= 0)
			continue;
		rc = zone_take(mem, s, len, align, out);
		if (rc != -ENOSPC)
			return rc;
	}
	return -ENOSPC;
}

static int check_node_arg(struct unic_mem *mem, int *node)
{
	int max = numa_available() < 0 ? 0 : numa_max_node();

	if (*node == -1) {
		if (!mem->warned_numa_default)
			UNIC_LOG(INFO, MEM, "NUMA node -1 (the device reports none): "
				 "taking node 0");
		mem->warned_numa_default = true;
		*node = 0;
		return 0;
	}
	if (*node < 0 || *node > max) {
		UNIC_LOG(ERR, MEM, "NUMA node %d does not exist (nodes 0..%d, or -1 "
			 "for any)", *node, max);
		return -EINVAL;
	}
	return 0;
}

static int check_alloc_args(struct unic_mem *mem, size_t len, size_t *align)
{
	if (*align == 0)
		*align = UNIC_CACHE_LINE_SIZE;
	if (len == 0 || !unic_is_pow2(*align)) {
		UNIC_LOG(ERR, MEM, "zone of %zu bytes aligned to %zu: expected a length "
			 "above 0 and a power-of-two alignment", len, *align);
		return -EINVAL;
	}
	if (mem->iova_mode == UNIC_IOVA_PA &&
	    (len > mem->page_size || *align > mem->page_size)) {
		UNIC_LOG(ERR, MEM, "zone of %zu bytes aligned to %zu does not fit one "
			 "%zu KiB page: in PA mode memory is physically contiguous only "
			 "within a page (unic_mem_max_contig()); split the object, or use "
			 "VFIO with an IOMMU (VA mode)", len, *align, mem->page_size >> 10);
		return -EINVAL;
	}
	return 0;
}

/* The checks both allocators start with. On success the lock is held. */
static int alloc_begin(struct unic_mem *mem, size_t len, size_t *align,
		       int *numa_node, const struct unic_dma *out)
{
	int rc;

	if (mem == NULL || out == NULL)
		return -EINVAL;
	rc = check_alloc_args(mem, len, align);
	if (rc < 0)
		return rc;
	mem_lock(mem);
	rc = check_node_arg(mem, numa_node);
	if (rc < 0)
		mem_unlock(mem);
	return rc;
}

int unic_mem_alloc(struct unic_mem *mem, size_t len, size_t align,
		   int numa_node, struct unic_dma *out)
{
	int rc;

	rc = alloc_begin(mem, len, &align, &numa_node, out);
	if (rc < 0)
		return rc;
	rc = zone_fit(mem, len, align, numa_node, out);
	if (rc != -ENOSPC)
		goto out;
	rc = mem_grow(mem, len, align, numa_node, NULL);
	if (rc < 0)
		goto out;
	rc = zone_fit(mem, len, align, numa_node, out);
	if (rc == -ENOSPC) {
		/* Cannot happen: mem_grow mapped room for exactly this zone. */
		UNIC_LOG(ERR, MEM, "zone of %zu bytes does not fit the segment mapped "
			 "for it", len);
		rc = -ENOMEM;
	}
out:
	mem_unlock(mem);
	return rc;
}

int unic_mem_alloc_shareable(struct unic_mem *mem, size_t len, size_t align,
			     int numa_node, struct unic_dma *out)
{
	struct mem_seg *seg = NULL;
	int rc;

	rc = alloc_begin(mem, len, &align, &numa_node, out);
	if (rc < 0)
		return rc;
	rc = mem_grow(mem, len, align, numa_node, &seg);
	if (rc < 0)
		goto out;
	rc = zone_take(mem, seg, len, align, out);
	if (rc < 0) {
		UNIC_LOG(ERR, MEM, "shareable zone of %zu bytes does not fit the "
			 "segment mapped for it: %s", len, strerror(-rc));
		seg_remove(mem, seg);
		rc = -ENOMEM;
		goto out;
	}
	UNIC_LOG(DEBUG, MEM, "shareable zone: %zu bytes at offset %zu of memfd %d "
		 "(%zu bytes, %zu KiB pages)", len,
		 (size_t)((char *)out->va - (char *)seg->pub.va), seg->pub.fd,
		 seg->pub.len, seg->pub.page_size >> 10);
out:
	mem_unlock(mem);
	return rc;
}

int unic_mem_zone_fd(const struct unic_dma *zone, int *fd, uint64_t *off,
		     size_t *file_len)
{
	if (zone == NULL || zone->seg == NULL || zone->seg->fd < 0) {
		UNIC_LOG(ERR, MEM, "zone at VA %p has no file descriptor: only zones "
			 "from unic_mem_alloc_shareable() (pools created with "
			 ".shareable = true) can be shared with another process",
			 zone != NULL ? zone->va : NULL);
		return -EINVAL;
	}
	*fd = zone->seg->fd;
	*off = (uint64_t)((const char *)zone->va - (const char *)zone->seg->va);
	*file_len = zone->seg->len;
	return 0;
}

void unic_mem_free(struct unic_mem *mem, struct unic_dma *d)
{
	struct mem_seg *s;
	uintptr_t va;

	if (mem == NULL || d == NULL || d->va == NULL)
		return;
	va = (uintptr_t)d->va;
	mem_lock(mem);
	for (s = mem->segs; s != NULL; s = s->next)
		if (&s->pub == d->seg)
			break;
	if (s == NULL || va < (uintptr_t)s->pub.va || d->len == 0 ||
	    d->len > s->pub.len - (va - (uintptr_t)s->pub.va)) {
		UNIC_LOG(ERR, MEM, "free of zone VA %p (%zu bytes): not a zone of this "
			 "context; ignored", d->va, d->len);
		goto out;
	}
	if (seg_give(s, va - (uintptr_t)s->pub.va, d->len) < 0) {
		UNIC_LOG(ERR, MEM, "free of zone VA %p (%zu bytes): already free, or "
			 "out of memory for the free list; ignored", d->va, d->len);
		goto out;
	}
	s->nb_zones--;
	mem->nb_zones--;
	mem->bytes_in_use -= d->len;
	if (s->nb_zones == 0)
		seg_remove(mem, s);
	memset(d, 0, sizeof(*d));
out:
	mem_unlock(mem);
}

/* ---- queries ---- */

enum unic_iova_mode unic_mem_iova_mode(const struct unic_mem *mem)
{
	return mem->iova_mode;
}

size_t unic_mem_max_contig(const struct unic_mem *mem)
{
	return mem->iova_mode == UNIC_IOVA_PA ? mem->page_size : SIZE_MAX;
}

size_t unic_mem_page_size(const struct unic_mem *mem)
{
	return mem->page_size;
}

int unic_mem_va2iova(const struct unic_mem *mem, const void *va, uint64_t *iova)
{
	uintptr_t a = (uintptr_t)va;
	const struct mem_seg *s;
	int rc = -ENOENT;

	mem_lock(mem);
	for (s = mem->segs; s != NULL; s = s->next) {
		uintptr_t base = (uintptr_t)s->pub.va;

		if (a >= base && a - base < s->pub.len) {
			*iova = s->pub.iova + (a - base);
			rc = 0;
			break;
		}
	}
	mem_unlock(mem);
	return rc;
}

unsigned unic_mem_seg_count(const struct unic_mem *mem)
{
	unsigned n;

	mem_lock(mem);
	n = mem->nb_segs;
	mem_unlock(mem);
	return n;
}

size_t unic_mem_bytes_in_use(const struct unic_mem *mem)
{
	size_t n;

	mem_lock(mem);
	n = mem->bytes_in_use;
	mem_unlock(mem);
	return n;
}

int unic_mem_seg_walk(const struct unic_mem *mem,
		      int (*fn)(void *ctx, const struct unic_mem_seg *seg),
		      void *ctx)
{
	const struct mem_seg *s;
	int rc = 0;

	mem_lock(mem);
	for (s = mem->segs; s != NULL && rc == 0; s = s->next)
		rc = fn(ctx, &s->pub);
	mem_unlock(mem);
	return rc;
}

/* ---- listeners ---- */

int unic_mem_listen(struct unic_mem *mem, const struct unic_mem_listener *l)
{
	struct mem_listener *slot = NULL;
	struct mem_seg *s, *done;
	int i, rc = 0;

	if (mem == NULL || l == NULL)
		return -EINVAL;
	mem_lock(mem);
	for (i = 0; i < MEM_MAX_LISTENERS; i++) {
		if (mem->listeners[i].handle == 0) {
			slot = &mem->listeners[i];
			break;
		}
	}
	if (slot == NULL) {
		UNIC_LOG(ERR, MEM, "cannot add a memory listener: all %d slots in use",
			 MEM_MAX_LISTENERS);
		rc = -ENOSPC;
		goto out;
	}
	/* Replay what exists, so a late listener misses nothing. */
	for (s = mem->segs; s != NULL; s = s->next) {
		if (l->on_add == NULL)
			break;
		rc = l->on_add(l->ctx, &s->pub);
		if (rc == 0)
			continue;
		rc = norm_err(rc);
		UNIC_LOG(ERR, MEM, "memory listener refused existing segment %u (%zu "
			 "bytes at VA %p): %s; not registered", s->pub.id, s->pub.len,
			 s->pub.va, strerror(-rc));
		for (done = mem->segs; done != s; done = done->next)
			if (l->on_remove != NULL)
				l->on_remove(l->ctx, &done->pub);
		goto out;
	}
	slot->l = *l;
	slot->handle = mem->next_handle++;
	if (mem->next_handle <= 0)  /* keep handles positive */
		mem->next_handle = 1;
	rc = slot->handle;
out:
	mem_unlock(mem);
	return rc;
}

void unic_mem_unlisten(struct unic_mem *mem, int handle)
{
	struct mem_seg *s;
	int i;

	if (mem == NULL || handle <= 0)
		return;
	mem_lock(mem);
	for (i = 0; i < MEM_MAX_LISTENERS; i++) {
		struct mem_listener *ml = &mem->listeners[i];

		if (ml->handle != handle)
			continue;
		for (s = mem->segs; s != NULL; s = s->next)
			if (ml->l.on_remove != NULL)
				ml->l.on_remove(ml->l.ctx, &s->pub);
		memset(ml, 0, sizeof(*ml));
		goto out;
	}
	UNIC_LOG(WARNING, MEM, "unlisten: no memory listener with handle %d", handle);
out:
	mem_unlock(mem);
}
