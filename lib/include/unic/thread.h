/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * A small dense index per thread, for per-thread state such as mempool
 * caches. The index is assigned on first use, is below UNIC_MAX_THREADS
 * (a build option), and is recycled when the thread exits. A thread that
 * finds every index taken gets UNIC_THREAD_NONE and simply runs without
 * per-thread caches.
 */
#ifndef UNIC_THREAD_H
#define UNIC_THREAD_H

#include <unic/common.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

/** The index of a thread that found every index taken. */
#define UNIC_THREAD_NONE ((uint32_t)UNIC_MAX_THREADS)

/** 0: not assigned yet; otherwise index + 1. */
extern __thread uint32_t unic_thread_slot;

/** Assign the calling thread its index (unic_thread_index() calls it on first use). @return the index, or UNIC_THREAD_NONE. */
uint32_t unic_thread_index_assign(void);

/** This thread's index, 0..UNIC_MAX_THREADS-1, or UNIC_THREAD_NONE. */
static inline uint32_t unic_thread_index(void)
{
	uint32_t s = unic_thread_slot;

	return UNIC_LIKELY(s != 0) ? s - 1 : unic_thread_index_assign();
}

/** Indices in use now (for tests and leak reports). */
uint32_t unic_thread_index_count(void);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_THREAD_H */
