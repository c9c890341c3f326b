/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "thread_time.h"

uint64_t run_delay_ns(pid_t ktid)
{
	char path[64];
	unsigned long long cpu = 0, delay = 0;
	FILE *f;

	if (ktid == 0)
		ktid = (pid_t)syscall(SYS_gettid);
	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)ktid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu %llu", &cpu, &delay) != 2)
		delay = 0;
	fclose(f);
	return delay;
}

uint64_t thread_cpu_ns(pthread_t t)
{
	clockid_t cid;
	struct timespec ts;

	if (pthread_getcpuclockid(t, &cid) != 0 || clock_gettime(cid, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
