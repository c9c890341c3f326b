/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Small compiler and arithmetic helpers shared by every module.
 */
#ifndef UNIC_COMMON_H
#define UNIC_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <assert.h>

#include <unic/unic_config.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

/** Bytes of a cache line (x86). */
#define UNIC_CACHE_LINE_SIZE 64
/** Align a type or member on its own cache line. */
#define UNIC_CACHE_ALIGNED __attribute__((aligned(UNIC_CACHE_LINE_SIZE)))

/** Branch hint: @p x is usually true. */
#define UNIC_LIKELY(x)   __builtin_expect(!!(x), 1)
/** Branch hint: @p x is usually false. */
#define UNIC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/** Inline even when the compiler would not (the fast path). */
#define UNIC_ALWAYS_INLINE inline __attribute__((always_inline))
/** The variable or function may be unused. */
#define UNIC_UNUSED __attribute__((unused))
/** Check the arguments against a printf format: argument @p fmt is the format, @p args the first value. */
#define UNIC_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/** Number of elements of array @p a (an array, not a pointer). */
#define UNIC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/** Pointer to the structure that embeds @p ptr as its member @p member. */
#define UNIC_CONTAINER_OF(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/** Round @p v up to a multiple of @p a (a power of two). */
#define UNIC_ALIGN_CEIL(v, a) (((v) + ((a) - 1)) & ~((__typeof__(v))(a) - 1))
/** Round @p v down to a multiple of @p a (a power of two). */
#define UNIC_ALIGN_FLOOR(v, a) ((v) & ~((__typeof__(v))(a) - 1))

/** The smaller of @p a and @p b (each evaluated twice). */
#define UNIC_MIN(a, b) ((a) < (b) ? (a) : (b))
/** The larger of @p a and @p b (each evaluated twice). */
#define UNIC_MAX(a, b) ((a) > (b) ? (a) : (b))

/** Is @p v a power of two (0 is not)? */
static inline bool unic_is_pow2(uint64_t v)
{
	return v != 0 && (v & (v - 1)) == 0;
}

/** Smallest power of two >= @p v (v = 0 gives 1; v > 2^31 gives 0). */
static inline uint32_t unic_pow2_ceil32(uint32_t v)
{
	if (v <= 1)
		return 1;
	if (v > (1u << 31))
		return 0;
	return 1u << (32 - __builtin_clz(v - 1));
}

/** Hint to the CPU that this is a spin-wait loop. */
static inline void unic_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/** Prefetch the cache line at @p p for reading, into every cache level. */
static inline void unic_prefetch0(const void *p)
{
	__builtin_prefetch(p, 0, 3);
}

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_COMMON_H */
