/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Cycle counter and monotonic time, for benchmarks and rate control.
 * unic_tsc_hz() is calibrated against CLOCK_MONOTONIC (never read from a
 * CPU model string, which VMs truncate).
 */
#ifndef UNIC_CYCLES_H
#define UNIC_CYCLES_H

#include <stdint.h>
#include <time.h>

/** The CPU's time-stamp counter (x86 rdtsc); unic_tsc_hz() ticks a second. */
static inline uint64_t unic_rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

/** Nanoseconds from CLOCK_MONOTONIC. */
static inline uint64_t unic_time_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/**
 * Cycle-counter frequency in Hz, measured once against CLOCK_MONOTONIC over
 * about 50 ms and cached (thread-safe). Never returns 0.
 */
uint64_t unic_tsc_hz(void);

#endif /* UNIC_CYCLES_H */
