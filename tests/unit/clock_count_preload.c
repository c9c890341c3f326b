/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * LD_PRELOAD'ed into an application binary by a unit test: counts the
 * process's clock_gettime(CLOCK_MONOTONIC) calls that go through the
 * dynamic linker (libunic's and the application's; glibc's own internal
 * reads do not) and writes the count to the file named by
 * UNIC_CLOCK_COUNT at exit. test_pktgen.c checks with it that
 * unic-pktgen's loops read the kernel's clock only now and then, not per
 * iteration (docs/napi.md, "Poll mode in the rig: the clock").
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long long mono_reads;

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (id == CLOCK_MONOTONIC)
		__atomic_add_fetch(&mono_reads, 1, __ATOMIC_RELAXED);
	return (int)syscall(SYS_clock_gettime, id, ts);
}

__attribute__((destructor)) static void clock_count_write(void)
{
	const char *path = getenv("UNIC_CLOCK_COUNT");
	FILE *f;

	if (!path || !(f = fopen(path, "w")))
		return;
	fprintf(f, "%llu\n", __atomic_load_n(&mono_reads, __ATOMIC_RELAXED));
	fclose(f);
}
