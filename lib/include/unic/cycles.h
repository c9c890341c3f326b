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

/**
 * A clock for hot loops: CLOCK_MONOTONIC's nanoseconds, read from the
 * cycle counter. unic_tsc_clock_ns() costs a rdtsc and a multiply; it
 * reads the kernel's clock (unic_time_ns()) only to re-anchor, when
 * UNIC_TSC_CLOCK_SPAN_NS has passed since the last anchor (or the counter
 * went back: a thread moved to a CPU whose counter lags), so about 10 times
 * a second in a loop that reads it constantly, and once after each sleep
 * longer than the span. In a guest whose clocksource is not the TSC
 * (QEMU TCG: the HPET) every kernel clock read is an exit into the
 * hypervisor; rdtsc is not (docs/napi.md, "Poll mode in the rig: the
 * clock"). Between anchors the time is the last anchor plus the cycles
 * since, at a rate measured over the clock's whole life; it never goes
 * back (an anchor that finds it ahead of the kernel's clock slows the
 * next span to catch up), and stays within a fraction of a millisecond of
 * CLOCK_MONOTONIC, so its values may be compared with unic_time_ns()'s
 * where that much does not matter. One thread at a time reads a clock
 * (it is written on every anchor): one per thread, or per owner of a
 * loop.
 */
struct unic_tsc_clock {
	uint64_t tsc0;      /**< the cycle counter at the last anchor */
	uint64_t ns0;       /**< the time at the last anchor */
	uint64_t mult;      /**< ns per cycle, << 32, for the current span */
	uint64_t span;      /**< cycles from an anchor to the next */
	uint64_t base_tsc;  /**< the first anchor's cycle count (the rate's baseline) */
	uint64_t base_ns;   /**< and its time */
	uint64_t anchors;   /**< kernel clock reads so far */
};

/** @cond internal */
__extension__ typedef unsigned __int128 unic__u128;
/** @endcond */

/** Anchors between two kernel clock reads at most this far apart. */
#define UNIC_TSC_CLOCK_SPAN_NS 100000000ull

/** Start @p c: one kernel clock read (and unic_tsc_hz()'s calibration
 *  the first time in the process). */
void unic_tsc_clock_init(struct unic_tsc_clock *c);

/** Re-anchor @p c at cycle count @p tsc (unic_tsc_clock_ns() calls it);
 *  @return the time. */
uint64_t unic_tsc_clock_anchor(struct unic_tsc_clock *c, uint64_t tsc);

/** Now, in CLOCK_MONOTONIC nanoseconds, from the cycle counter. */
static inline uint64_t unic_tsc_clock_ns(struct unic_tsc_clock *c)
{
	uint64_t tsc = unic_rdtsc();
	uint64_t d = tsc - c->tsc0;

	if (__builtin_expect(d >= c->span, 0))
		return unic_tsc_clock_anchor(c, tsc);
	return c->ns0 + (uint64_t)(((unic__u128)d * c->mult) >> 32);
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_CYCLES_H */
