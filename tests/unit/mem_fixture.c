/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixtures and helpers shared by test_mem_*.c: see mem_fixture.h.
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

/* ---- temporary files ---- */

char tmpdir[256];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/unic-test-mem-XXXXXX");
	cr_assert_not_null(mkdtemp(tmpdir));
}

void put_file(const char *rel, const char *text)
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

const char *tmp_path(const char *rel)
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

struct unic_mem *no_huge_mem(void)
{
	struct unic_mem_conf cfg = { .sz = sizeof(cfg), .no_huge = true };
	struct unic_mem *mem = unic_mem_create(&cfg);

	cr_assert_not_null(mem, "no-huge context: %s", strerror(errno));
	return mem;
}

bool all_zero(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i] != 0)
			return false;
	return true;
}

void drop_ipc_lock(rlim_t limit)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct rlimit rl = { .rlim_cur = limit, .rlim_max = limit };

	cr_assert_eq(syscall(SYS_capget, &hdr, data), 0);
	data[CAP_IPC_LOCK / 32].effective &= ~(1u << (CAP_IPC_LOCK % 32));
	cr_assert_eq(syscall(SYS_capset, &hdr, data), 0);
	cr_assert_eq(setrlimit(RLIMIT_MEMLOCK, &rl), 0);
}

uint64_t read_sys_u64(const char *path)
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

/* ---- a listener that counts ---- */

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

struct unic_mem_listener listener_for(struct counter *c)
{
	return (struct unic_mem_listener){ .on_add = count_add,
					   .on_remove = count_remove, .ctx = c };
}
