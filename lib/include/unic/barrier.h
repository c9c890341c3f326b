/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Every memory barrier unic uses lives here, in one header. Three families:
 *
 *  - unic_smp_*: ordering between CPUs on ordinary cacheable memory (rings,
 *    pools, the napi engine). On x86 (TSO) only a store followed by a load
 *    needs a real fence; the others stop the compiler from reordering.
 *  - unic_io_*: ordering between the CPU and a device through coherent DMA
 *    memory and uncached MMIO (descriptors and doorbells). On x86, writes to
 *    WB memory and to UC MMIO are not reordered with each other, so a compiler
 *    barrier suffices; on weaker CPUs a real fence is needed.
 *  - unic_mb/rmb/wmb: the strongest form, for write-combining mappings or
 *    when in doubt.
 *
 * Callers comment each use with the barrier it pairs with.
 */
#ifndef UNIC_BARRIER_H
#define UNIC_BARRIER_H

/** Stop the compiler from moving memory accesses across this point (no CPU fence). */
#define unic_compiler_barrier() __asm__ volatile("" ::: "memory")

#if defined(__x86_64__) || defined(__i386__)

/** Full fence: loads and stores, also to write-combining and MMIO mappings. */
#define unic_mb()  __asm__ volatile("mfence" ::: "memory")
/** Load fence, the strongest form. */
#define unic_rmb() __asm__ volatile("lfence" ::: "memory")
/** Store fence, the strongest form (write-combining mappings). */
#define unic_wmb() __asm__ volatile("sfence" ::: "memory")

/** Full fence between CPUs on cacheable memory: orders a store before a
 *  later load. (A locked add to the stack orders store->load like mfence,
 *  at lower cost.) */
#define unic_smp_mb() \
	__asm__ volatile("lock addl $0, -128(%%rsp)" ::: "memory", "cc")
/** Loads before it complete before loads after it (between CPUs). */
#define unic_smp_rmb() unic_compiler_barrier()
/** Stores before it are seen before stores after it (between CPUs). */
#define unic_smp_wmb() unic_compiler_barrier()

/** Full fence between the CPU and a device (DMA memory and MMIO). */
#define unic_io_mb()  unic_mb()
/** Read a descriptor the device wrote only after reading its done bit. */
#define unic_io_rmb() unic_compiler_barrier()
/** Descriptor writes reach memory before the doorbell (MMIO) write after it. */
#define unic_io_wmb() unic_compiler_barrier()

#else

#define unic_mb()  __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define unic_rmb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define unic_wmb() __atomic_thread_fence(__ATOMIC_SEQ_CST)

#define unic_smp_mb()  __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define unic_smp_rmb() __atomic_thread_fence(__ATOMIC_ACQUIRE)
#define unic_smp_wmb() __atomic_thread_fence(__ATOMIC_RELEASE)

#define unic_io_mb()  __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define unic_io_rmb() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define unic_io_wmb() __atomic_thread_fence(__ATOMIC_SEQ_CST)

#endif

/* Acquire/release accessors for indices shared between threads. */
/** Load *p; later accesses are not moved before it (pairs with a release store). */
#define unic_load_acquire(p)     __atomic_load_n((p), __ATOMIC_ACQUIRE)
/** Load *p atomically, with no ordering (a counter read by another thread). */
#define unic_load_relaxed(p)     __atomic_load_n((p), __ATOMIC_RELAXED)
/** Store v to *p; earlier accesses are not moved after it (pairs with an acquire load). */
#define unic_store_release(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
/** Store v to *p atomically, with no ordering (a single writer's counter). */
#define unic_store_relaxed(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)

#endif /* UNIC_BARRIER_H */
