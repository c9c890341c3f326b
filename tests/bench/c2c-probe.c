/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How long a cache line takes to go from CPU 0 to CPU 1 and back, now:
 * two threads pinned to the two CPUs pass a counter back and forth through
 * two cache lines, N times; prints the median round trip in nanoseconds
 * (the TSC, calibrated against CLOCK_MONOTONIC over the run) and the 10th
 * and 90th percentiles. A round trip the scheduler cut into is an outlier
 * the median ignores. compare-memif builds it (cc -O2 -pthread) and runs it
 * beside each measurement: on a virtual machine the host moves the vCPUs
 * between its cores, and a memif frame's cost follows this figure.
 *
 * usage: c2c-probe [CPU_A CPU_B]   (default 0 1)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 50000

static volatile uint64_t ping __attribute__((aligned(128)));
static volatile uint64_t pong __attribute__((aligned(128)));
static uint32_t rt[N];
static int cpu_b = 1;

static uint64_t tsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

static void *echo(void *arg)
{
	(void)arg;
	if (pin(cpu_b) != 0)
		return NULL;
	for (uint64_t i = 1; i <= N; i++) {
		while (ping != i)
			;
		pong = i;
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int cpu_a = argc > 2 ? atoi(argv[1]) : 0;
	pthread_t t;
	double t0, t1, ns_per_tick;
	uint64_t c0, c1;

	cpu_b = argc > 2 ? atoi(argv[2]) : 1;
	if (pin(cpu_a) != 0 || pthread_create(&t, NULL, echo, NULL) != 0) {
		fprintf(stderr, "c2c-probe: cannot pin to CPU %d or start the thread on CPU %d\n", cpu_a, cpu_b);
		return 1;
	}
	t0 = now_ns();
	c0 = tsc();
	for (uint64_t i = 1; i <= N; i++) {
		uint64_t s = tsc();

		ping = i;
		while (pong != i)
			;
		rt[i - 1] = (uint32_t)(tsc() - s);
	}
	c1 = tsc();
	t1 = now_ns();
	pthread_join(t, NULL);
	ns_per_tick = (t1 - t0) / (double)(c1 - c0);
	qsort(rt, N, sizeof(rt[0]), cmp);
	printf("{\"median_ns\": %.1f, \"p10_ns\": %.1f, \"p90_ns\": %.1f}\n", rt[N / 2] * ns_per_tick,
	       rt[N / 10] * ns_per_tick, rt[N * 9 / 10] * ns_per_tick);
	return 0;
}
