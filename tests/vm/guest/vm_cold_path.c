/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a sleep costs the code that runs after it, with no NIC and no unic:
 *
 *   vm-cold-path [ROUNDS [GAP_US]]
 *
 * times one fixed piece of user-space work (a chain of 64 calls, each to
 * its own function touching its own page) right after each of six ways of
 * passing GAP_US microseconds (default 1000; ROUNDS default 2000, the ways
 * interleaved round by round):
 *
 *   spin          busy-waiting on the TSC: nothing else runs
 *   syscall       busy-waiting, then one system call (getppid)
 *   sleep         clock_nanosleep for the whole gap
 *   sleep+spin    sleeping, then busy-waiting the last 100 us (as a
 *                 context woken ahead of its traffic does)
 *   sleep+half    sleeping half the gap, busy-waiting the other half (a
 *                 context allowed half a core)
 *   spin+warm     busy-waiting, the work run once 100 us before the end
 *                 (the work's own footprint, freshly warmed)
 *
 * and prints, per way, the work's p50, p90 and p99 in nanoseconds (TSC
 * counts, calibrated against CLOCK_MONOTONIC).  Under QEMU's TCG a guest's
 * translated code and its lookup caches are per virtual CPU and the host's
 * caches are shared with QEMU itself, so what the guest kernel runs while a
 * thread sleeps can make the next run of the same user code dearer; on a
 * CPU that executes the code itself the difference is cache misses.  Pin it
 * with taskset.  Exit status 0, or 1 on bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#define NB_FN 64
#define PAGE 4096

static uint8_t pages[NB_FN][PAGE] __attribute__((aligned(PAGE)));
static volatile uint64_t sink;

/* NB_FN functions, each on its own code page, each touching its own data
 * page: what a cold path through several layers looks like. */
#define FN(name, i)                                                           \
	__attribute__((noinline, aligned(PAGE))) static uint64_t fn##name(uint64_t x) \
	{                                                                     \
		uint8_t *p = pages[i];                                        \
		p[(x * 64u) % PAGE]++;                                        \
		return x * 31u + p[((x + 1u) * 64u) % PAGE] + (i);            \
	}
#define FN8(b) FN(b##0, b * 8 + 0) FN(b##1, b * 8 + 1) FN(b##2, b * 8 + 2) FN(b##3, b * 8 + 3) \
	FN(b##4, b * 8 + 4) FN(b##5, b * 8 + 5) FN(b##6, b * 8 + 6) FN(b##7, b * 8 + 7)
FN8(0) FN8(1) FN8(2) FN8(3) FN8(4) FN8(5) FN8(6) FN8(7)

#define REF8(b) fn##b##0, fn##b##1, fn##b##2, fn##b##3, fn##b##4, fn##b##5, fn##b##6, fn##b##7
static uint64_t (*const chain[NB_FN])(uint64_t) = {
	REF8(0), REF8(1), REF8(2), REF8(3), REF8(4), REF8(5), REF8(6), REF8(7)
};

static void work(void)
{
	uint64_t x = sink;

	for (unsigned i = 0; i < NB_FN; i++)
		x = chain[i](x);
	sink = x;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void spin_until(uint64_t tsc)
{
	while (__rdtsc() < tsc)
		_mm_pause();
}

static void nap_us(unsigned us)
{
	struct timespec ts = { .tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000 };

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR) {
	}
}

enum way { SPIN, SYSCALL, SLEEP, SLEEP_SPIN, SLEEP_HALF, SPIN_WARM, NB_WAY };
static const char *const way_name[NB_WAY] = { "spin", "syscall", "sleep", "sleep+spin", "sleep+half",
					      "spin+warm" };

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int parse_uint(const char *s, unsigned lo, unsigned hi, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = (unsigned)v;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned rounds = 2000, gap_us = 1000;
	uint64_t *t[NB_WAY];
	double hz, t0;
	uint64_t c0;

	if (argc > 3 || (argc > 1 && parse_uint(argv[1], 1, 1000000, &rounds) < 0) ||
	    (argc > 2 && parse_uint(argv[2], 200, 1000000, &gap_us) < 0)) {
		fprintf(stderr, "usage: vm-cold-path [ROUNDS [GAP_US]] (ROUNDS 1-1000000, GAP_US 200-1000000)\n");
		return 1;
	}
	for (unsigned w = 0; w < NB_WAY; w++) {
		t[w] = calloc(rounds, sizeof(*t[w]));
		if (!t[w]) {
			fprintf(stderr, "vm-cold-path: out of memory for %u rounds\n", rounds);
			return 1;
		}
	}
	t0 = now_s();
	c0 = __rdtsc();
	nap_us(100000);
	hz = (double)(__rdtsc() - c0) / (now_s() - t0);
	work(); /* first touch: page faults out of the way */

	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned w = 0; w < NB_WAY; w++) {
			uint64_t gap = (uint64_t)(hz * gap_us * 1e-6), tail = (uint64_t)(hz * 100e-6), a, b;

			switch (w) {
			case SPIN:
				spin_until(__rdtsc() + gap);
				break;
			case SYSCALL:
				spin_until(__rdtsc() + gap);
				sink += (uint64_t)syscall(SYS_getppid);
				break;
			case SLEEP:
				nap_us(gap_us);
				break;
			case SLEEP_SPIN:
				nap_us(gap_us - 100);
				spin_until(__rdtsc() + tail);
				break;
			case SLEEP_HALF:
				nap_us(gap_us / 2);
				spin_until(__rdtsc() + gap / 2);
				break;
			case SPIN_WARM:
				spin_until(__rdtsc() + gap - tail);
				work();
				spin_until(__rdtsc() + tail);
				break;
			}
			a = __rdtsc();
			work();
			b = __rdtsc();
			t[w][r] = b - a;
		}
	}
	printf("vm-cold-path: %u rounds, gap %u us, TSC %.0f MHz; the work (%d calls) after each way, ns\n",
	       rounds, gap_us, hz / 1e6, NB_FN);
	printf("%-11s %8s %8s %8s\n", "way", "p50", "p90", "p99");
	for (unsigned w = 0; w < NB_WAY; w++) {
		qsort(t[w], rounds, sizeof(*t[w]), cmp_u64);
		printf("%-11s %8.0f %8.0f %8.0f\n", way_name[w], (double)t[w][rounds / 2] * 1e9 / hz,
		       (double)t[w][rounds * 9 / 10] * 1e9 / hz, (double)t[w][rounds * 99 / 100] * 1e9 / hz);
		free(t[w]);
	}
	return 0;
}
