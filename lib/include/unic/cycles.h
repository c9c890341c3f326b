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

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

/**
 * Nanoseconds from CLOCK_MONOTONIC. Out of line so that this header needs
 * no POSIX feature macro (clock_gettime is not ISO C): a program built
 * with -std=c11 includes it as it is.
 */
uint64_t unic_time_ns(void);

/** The CPU's cycle counter (on other than x86, unic_time_ns()). */
static inline uint64_t unic_rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	return unic_time_ns();
#endif
}

/**
 * Cycle-counter frequency in Hz, measured once against CLOCK_MONOTONIC over
 * about 50 ms and cached (thread-safe). Never returns 0.
 */
uint64_t unic_tsc_hz(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_CYCLES_H */
