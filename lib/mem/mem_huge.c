/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Backing memory: hugepages (MAP_HUGETLB or unlinked hugetlbfs files),
 * ordinary pages for --no-huge, sealed memfds for shareable zones; NUMA placement, mlock, and the hugepage
 * report that error messages and apps' preflight checks print.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <numa.h>
#include <numaif.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <unic/common.h>
#include <unic/log.h>

#include "mem_private.h"

#ifndef MFD_HUGE_SHIFT
#define MFD_HUGE_SHIFT 26
#endif

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

#define SZ_2M ((size_t)2 << 20)
#define SZ_1G ((size_t)1 << 30)
#define MAX_MOUNTS 16
#define MAX_SIZES 8
#define MAX_NODES 64
#define REPORT_MAX 4096

/* ---- small file helpers ---- */

static int read_u64(const char *path, uint64_t *val)
{
	char line[64];
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (f == NULL)
		return -errno;
	if (fgets(line, sizeof(line), f) == NULL || sscanf(line, "%" SCNu64, val) != 1)
		rc = -EINVAL;
	fclose(f);
	return rc;
}

static const char *sysfs_root_of(const struct unic_mem_conf *cfg)
{
	return cfg != NULL && cfg->sysfs_root != NULL ? cfg->sysfs_root : "";
}

static const char *mounts_path_of(const struct unic_mem_conf *cfg)
{
	return cfg != NULL && cfg->mounts_path != NULL ? cfg->mounts_path : "/proc/mounts";
}

/* Free hugepages of @p page_size system-wide; 0 when the kernel has none. */
static uint64_t free_hugepages(const char *root, size_t page_size)
{
	char path[PATH_MAX];
	uint64_t v = 0;

	snprintf(path, sizeof(path), "%s/sys/kernel/mm/hugepages/hugepages-%zukB/free_hugepages",
		 root, page_size >> 10);
	if (read_u64(path, &v) < 0)
		return 0;
	return v;
}

/* Parse "2M", "1G", "2048k", "1024M" (hugetlbfs pagesize= option). */
static size_t parse_size(const char *s)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 10);

	switch (*end) {
	case 'k': case 'K': return (size_t)v << 10;
	case 'm': case 'M': return (size_t)v << 20;
	case 'g': case 'G': return (size_t)v << 30;
	default: return (size_t)v;
	}
}

/* Undo the octal escapes (\040 for a space) of /proc/mounts fields. */
static void unescape_mount(char *s)
{
	char *w = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

struct huge_mount {
	char dir[PATH_MAX];
	size_t page_size;  /* 0: the default hugepage size */
};

/* hugetlbfs mounts listed in @p path; -errno if it cannot be read. */
static int find_hugetlbfs(const char *path, struct huge_mount *m, int max)
{
	char line[PATH_MAX + 256];
	FILE *f = fopen(path, "re");
	int n = 0;

	if (f == NULL)
		return -errno;
	while (n < max && fgets(line, sizeof(line), f) != NULL) {
		char dev[256], dir[PATH_MAX], type[64], opts[512];
		char *p;

		if (sscanf(line, "%255s %4095s %63s %511s", dev, dir, type, opts) != 4 ||
		    strcmp(type, "hugetlbfs") != 0)
			continue;
		unescape_mount(dir);
		snprintf(m[n].dir, sizeof(m[n].dir), "%s", dir);
		m[n].page_size = 0;
		for (p = strtok(opts, ","); p != NULL; p = strtok(NULL, ","))
			if (strncmp(p, "pagesize=", 9) == 0)
				m[n].page_size = parse_size(p + 9);
		n++;
	}
	fclose(f);
	return n;
}

/* ---- the hugepage report ---- */

struct report {
	char *buf;
	size_t cap;
	size_t n;   /* length the whole text needs, as snprintf counts */
};

static void UNIC_PRINTF(2, 3) rep(struct report *r, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(r->n < r->cap ? r->buf + r->n : NULL,
		      r->n < r->cap ? r->cap - r->n : 0, fmt, ap);
	va_end(ap);
	if (k > 0)
		r->n += (size_t)k;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

/* Page sizes (bytes) that have a hugepages-<N>kB directory under @p dir. */
static int list_sizes(const char *dir, size_t *sizes, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while (n < max && (e = readdir(d)) != NULL) {
		unsigned long kb;
		char tail;

		if (sscanf(e->d_name, "hugepages-%lukB%c", &kb, &tail) == 1)
			sizes[n++] = (size_t)kb << 10;
	}
	closedir(d);
	qsort(sizes, (size_t)n, sizeof(*sizes), cmp_size);
	return n;
}

/* "<size>kB F free of T" for each size under @p dir; false if none. */
static bool report_pools(struct report *r, const char *dir)
{
	size_t sizes[MAX_SIZES];
	int i, n = list_sizes(dir, sizes, MAX_SIZES);

	for (i = 0; i < n; i++) {
		char path[PATH_MAX];
		uint64_t nfree = 0, total = 0;

		snprintf(path, sizeof(path), "%s/hugepages-%zukB/free_hugepages", dir,
			 sizes[i] >> 10);
		read_u64(path, &nfree);
		snprintf(path, sizeof(path), "%s/hugepages-%zukB/nr_hugepages", dir,
			 sizes[i] >> 10);
		read_u64(path, &total);
		rep(r, "%s%zukB %" PRIu64 " free of %" PRIu64, i ? ", " : "",
		    sizes[i] >> 10, nfree, total);
	}
	return n > 0;
}

static int list_nodes(const char *dir, int *nodes, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while (n < max && (e = readdir(d)) != NULL) {
		int node;
		char tail;

		if (sscanf(e->d_name, "node%d%c", &node, &tail) == 1)
			nodes[n++] = node;
	}
	closedir(d);
	qsort(nodes, (size_t)n, sizeof(*nodes), cmp_int);
	return n;
}

static void report_reserve(struct report *r, size_t page_size)
{
	bool giga = page_size >= SZ_1G;
	unsigned count = giga ? 4 : 512;
	size_t kb = (giga ? SZ_1G : SZ_2M) >> 10;

	rep(r, "reserve hugepages with: echo %u > /sys/kernel/mm/hugepages/hugepages-%zukB/"
	    "nr_hugepages (or on one node: echo %u > /sys/devices/system/node/node0/"
	    "hugepages/hugepages-%zukB/nr_hugepages), or: hugeadm --pool-pages-min %s:%u "
	    "(package libhugetlbfs-bin)%s\n", count, kb, count, kb, giga ? "1GB" : "2MB",
	    count, giga ? "; 1 GiB pages may need the boot options hugepagesz=1G "
	    "hugepages=4 once memory is fragmented" : "");
}

static int report_write(const struct unic_mem_conf *cfg, size_t page_size,
			char *buf, size_t len)
{
	struct report r = { .buf = buf, .cap = len, .n = 0 };
	const char *root = sysfs_root_of(cfg);
	struct huge_mount mounts[MAX_MOUNTS];
	int nodes[MAX_NODES];
	char dir[PATH_MAX];
	int i, nb;

	if (len > 0)
		buf[0] = '\0';

	snprintf(dir, sizeof(dir), "%s/sys/devices/system/node", root);
	nb = list_nodes(dir, nodes, MAX_NODES);
	for (i = 0; i < nb; i++) {
		char ndir[PATH_MAX + 64];

		snprintf(ndir, sizeof(ndir), "%s/node%d/hugepages", dir, nodes[i]);
		rep(&r, "hugepages on node%d: ", nodes[i]);
		if (!report_pools(&r, ndir))
			rep(&r, "none (no %s)", ndir);
		rep(&r, "\n");
	}
	if (nb == 0)
		rep(&r, "hugepages per node: unknown (no NUMA nodes in %s)\n", dir);

	snprintf(dir, sizeof(dir), "%s/sys/kernel/mm/hugepages", root);
	rep(&r, "hugepages, all nodes: ");
	if (!report_pools(&r, dir))
		rep(&r, "none (no %s: kernel built without hugetlbfs?)", dir);
	rep(&r, "\n");

	nb = find_hugetlbfs(mounts_path_of(cfg), mounts, MAX_MOUNTS);
	if (nb < 0) {
		rep(&r, "hugetlbfs mounts: unknown (cannot read %s: %s)\n",
		    mounts_path_of(cfg), strerror(-nb));
	} else if (nb == 0) {
		rep(&r, "hugetlbfs: not mounted (none in %s); 2 MiB pages need no mount "
		    "(MAP_HUGETLB), 1 GiB pages do: mkdir -p /mnt/huge-1G && mount -t "
		    "hugetlbfs -o pagesize=1G nodev /mnt/huge-1G\n", mounts_path_of(cfg));
	} else {
		rep(&r, "hugetlbfs mounted at: ");
		for (i = 0; i < nb; i++) {
			if (mounts[i].page_size != 0)
				rep(&r, "%s%s (pagesize %zukB)", i ? ", " : "",
				    mounts[i].dir, mounts[i].page_size >> 10);
			else
				rep(&r, "%s%s (default pagesize)", i ? ", " : "",
				    mounts[i].dir);
		}
		rep(&r, "\n");
	}
	report_reserve(&r, page_size);

	/* Drop the final newline so the text ends like snprintf's. */
	if (r.n > 0) {
		r.n--;
		if (r.n < len)
			buf[r.n] = '\0';
	}
	return (int)UNIC_MIN(r.n, (size_t)INT_MAX);
}

int unic_mem_hugepage_report(const struct unic_mem_conf *cfg, char *buf, size_t len)
{
	if (buf == NULL)
		len = 0;
	return report_write(cfg, SZ_2M, buf, len);
}

void mem_log_hugepage_report(const struct unic_mem *mem)
{
	struct unic_mem_conf cfg = {
		.sz = sizeof(cfg),
		.sysfs_root = mem->sysfs_root,
		.mounts_path = mem->mounts_path,
	};
	char *text = malloc(REPORT_MAX), *line, *save = NULL;

	if (text == NULL)
		return;
	report_write(&cfg, mem->no_huge ? SZ_2M : mem->page_size, text, REPORT_MAX);
	/* One log message a line, so each carries the "unic mem: error:" prefix. */
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		UNIC_LOG(ERR, MEM, "%s", line);
	free(text);
}

/* ---- choosing the backing ---- */

const char *mem_backing_name(const struct unic_mem *mem, char *buf, size_t len)
{
	switch (mem->backing) {
	case MEM_BACKING_ANON:
		snprintf(buf, len, "ordinary %zu KiB pages (no-huge)", mem->page_size >> 10);
		break;
	case MEM_BACKING_HUGETLB:
		snprintf(buf, len, "%zukB hugepages (MAP_HUGETLB)", mem->page_size >> 10);
		break;
	case MEM_BACKING_HUGETLBFS:
		snprintf(buf, len, "%zukB hugepages (hugetlbfs %s)", mem->page_size >> 10,
			 mem->huge_dir);
		break;
	}
	return buf;
}

static int no_free_pages(struct unic_mem *mem, size_t page_size)
{
	UNIC_LOG(ERR, MEM, "no free %zukB hugepages: DMA memory needs hugepages "
		 "reserved (or use --no-huge for tests)", page_size >> 10);
	mem->page_size = page_size;
	mem_log_hugepage_report(mem);
	return -ENOMEM;
}

static int use_huge_dir(struct unic_mem *mem, const char *dir)
{
	struct statfs st;

	if (statfs(dir, &st) < 0) {
		int err = errno;

		UNIC_LOG(ERR, MEM, "hugepage directory %s: %s; expected a hugetlbfs "
			 "mount (mount -t hugetlbfs nodev %s)", dir, strerror(err), dir);
		return -EINVAL;
	}
	if ((unsigned long)st.f_type != (unsigned long)HUGETLBFS_MAGIC) {
		UNIC_LOG(ERR, MEM, "hugepage directory %s is not a hugetlbfs mount "
			 "(filesystem type %#lx); mount one with: mount -t hugetlbfs "
			 "nodev %s", dir, (unsigned long)st.f_type, dir);
		return -EINVAL;
	}
	mem->huge_dir = strdup(dir);
	if (mem->huge_dir == NULL)
		return -ENOMEM;
	mem->backing = MEM_BACKING_HUGETLBFS;
	mem->page_size = (size_t)st.f_bsize;
	return 0;
}

int mem_backing_init(struct unic_mem *mem, const struct unic_mem_conf *cfg)
{
	struct huge_mount mounts[MAX_MOUNTS];
	long sys_page = sysconf(_SC_PAGESIZE);
	int i, nb, rc;

	if (cfg->no_huge) {
		mem->backing = MEM_BACKING_ANON;
		mem->page_size = sys_page > 0 ? (size_t)sys_page : 4096;
		return 0;
	}
	if (cfg->huge_dir != NULL) {
		rc = use_huge_dir(mem, cfg->huge_dir);
		if (rc < 0)
			return rc;
		if (free_hugepages(mem->sysfs_root, mem->page_size) == 0)
			return no_free_pages(mem, mem->page_size);
		return 0;
	}
	/* A mounted 1 GiB hugetlbfs with free pages is preferred. */
	nb = find_hugetlbfs(mounts_path_of(cfg), mounts, MAX_MOUNTS);
	for (i = 0; i < nb; i++) {
		if (mounts[i].page_size != SZ_1G ||
		    free_hugepages(mem->sysfs_root, SZ_1G) == 0)
			continue;
		if (use_huge_dir(mem, mounts[i].dir) == 0 && mem->page_size == SZ_1G)
			return 0;
		free(mem->huge_dir);
		mem->huge_dir = NULL;
	}
	mem->backing = MEM_BACKING_HUGETLB;
	mem->page_size = SZ_2M;
	if (free_hugepages(mem->sysfs_root, SZ_2M) == 0)
		return no_free_pages(mem, SZ_2M);
	return 0;
}

/* ---- mapping ---- */

static void *map_hugetlbfs(struct unic_mem *mem, size_t len)
{
	char path[PATH_MAX];
	void *va;
	int fd, err;

	snprintf(path, sizeof(path), "%s/unic-%d-%u", mem->huge_dir, (int)getpid(),
		 mem->file_seq++);
	fd = open(path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return MAP_FAILED;
	va = MAP_FAILED;
	if (ftruncate(fd, (off_t)len) == 0)
		va = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = errno;
	/* The mapping keeps the pages; with the name gone a crash leaks none. */
	unlink(path);
	close(fd);
	errno = err;
	return va;
}

/*
 * Prefer @p node for the pages about to be faulted in. MPOL_PREFERRED rather
 * than MPOL_BIND: a hugepage fault on a node whose pool is empty would be
 * SIGBUS under BIND; we would rather take another node and say so.
 */
static void bind_node(void *va, size_t len, int node)
{
	unsigned long mask[MAX_NODES / (8 * sizeof(unsigned long)) + 1] = { 0 };

	if (numa_available() < 0 || node < 0 || node >= MAX_NODES)
		return;
	mask[node / (8 * sizeof(unsigned long))] |= 1UL << (node % (8 * sizeof(unsigned long)));
	if (mbind(va, len, MPOL_PREFERRED, mask, sizeof(mask) * 8, 0) < 0)
		UNIC_LOG(DEBUG, MEM, "mbind to node %d: %s", node, strerror(errno));
}

static void check_node(struct unic_mem *mem, void *va, int node)
{
	int actual = -1;

	if (numa_available() < 0 || mem->warned_numa_place)
		return;
	if (get_mempolicy(&actual, NULL, 0, va, MPOL_F_NODE | MPOL_F_ADDR) < 0)
		return;
	if (actual != node) {
		UNIC_LOG(WARNING, MEM, "memory for NUMA node %d landed on node %d (no "
			 "free pages there?); DMA will cross the interconnect", node, actual);
		mem->warned_numa_place = true;
	}
}

static int lock_pages(struct unic_mem *mem, void *va, size_t len, bool ordinary)
{
	struct rlimit rl;
	char limit[32] = "unknown";
	int err;

	/*
	 * The raw system call, not mlock(): sanitizer runtimes replace mlock()
	 * with a no-op, which would hide a real failure in ASan builds.
	 */
	if (syscall(SYS_mlock, va, len) == 0)
		return 0;
	err = errno;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(limit, sizeof(limit), "unlimited");
		else
			snprintf(limit, sizeof(limit), "%llu bytes",
				 (unsigned long long)rl.rlim_cur);
	}
	if (ordinary) {
		/* Unprivileged RLIMIT_MEMLOCK is small; tests must still run. */
		if (!mem->warned_mlock)
			UNIC_LOG(WARNING, MEM, "cannot lock no-huge memory (mlock: %s; "
				 "RLIMIT_MEMLOCK %s): pages may move, which is harmless "
				 "for tests but not for DMA", strerror(err), limit);
		mem->warned_mlock = true;
		return 0;
	}
	UNIC_LOG(ERR, MEM, "cannot lock %zu bytes of hugepages (mlock: %s); "
		 "RLIMIT_MEMLOCK is %s: raise it with `ulimit -l unlimited` (or "
		 "LimitMEMLOCK=infinity in a systemd unit), or run as root",
		 len, strerror(err), limit);
	return -err;
}

/*
 * A shareable mapping: a sealed memfd mapped MAP_SHARED, so its fd can be
 * passed to another process (memif regions) and the bytes are the same on
 * both sides. Hugepages when the context uses them and some are free,
 * else ordinary pages (said in a log line) in VA mode; PA mode needs
 * hugepages for contiguity and refuses. Sets *@p page_size to the pages used.
 */
static int map_memfd(struct unic_mem *mem, size_t len, void **va, int *fd_out,
		     size_t *page_size)
{
	unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING;
	long sys_page = sysconf(_SC_PAGESIZE);
	size_t ps = sys_page > 0 ? (size_t)sys_page : 4096;
	uint64_t nfree = 0;
	int fd, err;

	if (mem->backing != MEM_BACKING_ANON) {
		nfree = free_hugepages(mem->sysfs_root, mem->page_size);
		if (nfree >= len / mem->page_size) {
			fd = memfd_create("unic-shm", flags | MFD_HUGETLB |
					  ((unsigned)__builtin_ctzl(mem->page_size) << MFD_HUGE_SHIFT));
			if (fd >= 0) {
				ps = mem->page_size;
				goto have_fd;
			}
			UNIC_LOG(DEBUG, MEM, "memfd_create(MFD_HUGETLB): %s", strerror(errno));
		}
		if (mem->iova_mode == UNIC_IOVA_PA) {
			UNIC_LOG(ERR, MEM, "shareable memory of %zu bytes: %" PRIu64 " free "
				 "%zukB hugepages, and PA mode cannot fall back to ordinary "
				 "pages (not physically contiguous); reserve more hugepages",
				 len, nfree, mem->page_size >> 10);
			mem_log_hugepage_report(mem);
			return -ENOMEM;
		}
		UNIC_LOG(WARNING, MEM, "shareable memory of %zu bytes: %" PRIu64 " free "
			 "%zukB hugepages, using ordinary %zu KiB pages (memfd) instead; "
			 "reserve hugepages to keep it on hugepages", len, nfree,
			 mem->page_size >> 10, ps >> 10);
		len = UNIC_ALIGN_CEIL(len, ps);
	}
	fd = memfd_create("unic-shm", flags);
	if (fd < 0) {
		err = errno;
		UNIC_LOG(ERR, MEM, "memfd_create for %zu bytes of shareable memory: %s",
			 len, strerror(err));
		return -err;
	}
have_fd:
	if (ftruncate(fd, (off_t)len) < 0) {
		err = errno;
		UNIC_LOG(ERR, MEM, "cannot size shareable memory to %zu bytes (ftruncate "
			 "of a memfd): %s", len, strerror(err));
		goto close_fd;
	}
	/* The size is fixed for the zone's life: a peer cannot shrink it under us. */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) < 0) {
		err = errno;
		UNIC_LOG(ERR, MEM, "cannot seal shareable memory (F_ADD_SEALS): %s",
			 strerror(err));
		goto close_fd;
	}
	*va = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*va == MAP_FAILED) {
		err = errno;
		UNIC_LOG(ERR, MEM, "cannot map %zu bytes of shareable memory (%zu KiB "
			 "pages): %s", len, ps >> 10, strerror(err));
		if (ps != mem->page_size || mem->backing == MEM_BACKING_ANON)
			goto close_fd;
		mem_log_hugepage_report(mem);
		err = ENOMEM;
		goto close_fd;
	}
	*fd_out = fd;
	*page_size = ps;
	return 0;

close_fd:
	close(fd);
	return -err;
}

int mem_backing_map(struct unic_mem *mem, size_t len, int node, void **out,
		    int *fd, size_t *page_size)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS;
	char name[PATH_MAX + 64];
	size_t off, ps = mem->page_size;
	void *va;
	int rc;

	if (fd != NULL) {
		rc = map_memfd(mem, len, &va, fd, &ps);
		if (rc < 0)
			return rc;
		len = UNIC_ALIGN_CEIL(len, ps);
		goto mapped;
	}
	switch (mem->backing) {
	case MEM_BACKING_ANON:
		va = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
		break;
	case MEM_BACKING_HUGETLB:
		flags |= MAP_HUGETLB | (__builtin_ctzl(mem->page_size) << MAP_HUGE_SHIFT);
		va = mmap(NULL, len, PROT_READ | PROT_WRITE, flags, -1, 0);
		break;
	case MEM_BACKING_HUGETLBFS:
	default:
		va = map_hugetlbfs(mem, len);
		break;
	}
	if (va == MAP_FAILED) {
		int err = errno;

		UNIC_LOG(ERR, MEM, "cannot map %zu bytes of %s: %s", len,
			 mem_backing_name(mem, name, sizeof(name)), strerror(err));
		if (mem->backing != MEM_BACKING_ANON && (err == ENOMEM || err == ENOSPC)) {
			mem_log_hugepage_report(mem);
			return -ENOMEM;
		}
		return -err;
	}
mapped:
	bind_node(va, len, node);
	rc = lock_pages(mem, va, len, mem->no_huge || ps != mem->page_size);
	if (rc < 0) {
		munmap(va, len);
		if (fd != NULL)
			close(*fd);
		return rc;
	}
	/*
	 * Fault every page in by writing it: a read would map the shared zero
	 * page, whose frame is not ours (mlock has done this already when it
	 * succeeded, writing is cheap either way).
	 */
	for (off = 0; off < len; off += ps)
		*(volatile char *)((char *)va + off) = 0;
	check_node(mem, va, node);
	*out = va;
	if (page_size != NULL)
		*page_size = ps;
	return 0;
}

void mem_backing_unmap(struct unic_mem *mem, void *va, size_t len, int fd)
{
	if (munmap(va, len) < 0)
		UNIC_LOG(ERR, MEM, "munmap(%p, %zu): %s", va, len, strerror(errno));
	if (fd >= 0)
		close(fd);
	(void)mem;
}
