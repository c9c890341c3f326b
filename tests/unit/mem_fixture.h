/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fixtures and helpers of lib/mem's tests (test_mem_*.c, one binary
 * test_mem), defined in mem_fixture.c: the suite `mem` with the log
 * captured and a temporary directory removed after each test.
 */
#ifndef TEST_MEM_FIXTURE_H
#define TEST_MEM_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include <unic/mem.h>

#define KB 1024UL
#define MB (1024UL * 1024UL)

/* The test's temporary directory; empty until make_tmpdir(). */
extern char tmpdir[256];
void make_tmpdir(void);
/* Write @p text to tmpdir/@p rel, creating directories on the way. */
void put_file(const char *rel, const char *text);
/* tmpdir/@p rel, in a buffer the next call reuses. */
const char *tmp_path(const char *rel);

/* A --no-huge context; the test fails if there is none. */
struct unic_mem *no_huge_mem(void);
bool all_zero(const void *p, size_t len);
/* Drop CAP_IPC_LOCK so RLIMIT_MEMLOCK applies even to root (this process only). */
void drop_ipc_lock(rlim_t limit);
/* The number in a sysfs file, 0 if it cannot be read. */
uint64_t read_sys_u64(const char *path);

/* A memory listener that counts, and can refuse, what it hears. */
struct counter {
	int adds, removes;
	int fail_add_at;      /* refuse the n-th add (1-based); 0: never */
	int fail_rc;
	uint32_t add_ids[16];
};
struct unic_mem_listener listener_for(struct counter *c);

#endif
