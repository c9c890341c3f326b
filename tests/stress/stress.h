/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared by the stress programs (tests/stress/stress_*.c): plain C, no
 * Criterion (it cannot start under ThreadSanitizer), so every check is
 * an if that prints what was expected and what was found, and exits 1.
 *
 * Each program does a fixed amount of work or stops at a deadline,
 * whichever comes first, so a slow build (ThreadSanitizer, a loaded
 * machine) stays bounded in time. UNIC_STRESS_SECONDS (default 2) is
 * the most a program spends in its timed loops, shared among its phases.
 */
#ifndef TESTS_STRESS_H
#define TESTS_STRESS_H

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <unic/common.h>

/* The program's name in messages; each program sets it first. */
static const char *stress_name = "stress";

UNIC_UNUSED static void stress_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
UNIC_UNUSED static void stress_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: FAIL: ", stress_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	exit(1);
}

/* A check that holds or ends the program (from any thread). */
#define STRESS_CHECK(cond, ...)                                 \
	do {                                                    \
		if (!(cond))                                    \
			stress_fail(__VA_ARGS__);               \
	} while (0)

UNIC_UNUSED static uint64_t stress_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

UNIC_UNUSED static void stress_sleep_us(uint64_t us)
{
	struct timespec ts = { .tv_sec = (time_t)(us / 1000000u),
			       .tv_nsec = (long)(us % 1000000u) * 1000 };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Seconds a phase may last: UNIC_STRESS_SECONDS, default 2. */
UNIC_UNUSED static double stress_seconds(void)
{
	const char *s = getenv("UNIC_STRESS_SECONDS");
	double v;
	char *end;

	if (s == NULL || *s == '\0')
		return 2.0;
	v = strtod(s, &end);
	if (*end != '\0' || !(v > 0) || v > 3600)
		stress_fail("UNIC_STRESS_SECONDS='%s': expected seconds, more than 0 and at most 3600", s);
	return v;
}

/* The CLOCK_MONOTONIC time a phase started now must end by, when the
 * program's time is shared among @p parts phases. */
UNIC_UNUSED static uint64_t stress_deadline(unsigned parts)
{
	return stress_now_ns() + (uint64_t)(stress_seconds() * 1e9 / (parts ? parts : 1));
}

/* A deadline for the next of @p left phases that should all end by @p end:
 * an equal share of the time left (a phase that ends early leaves its
 * time to the next), but never less than a tenth of the program's time
 * (a phase that ran long must not leave the next none). */
UNIC_UNUSED static uint64_t stress_share(uint64_t end, unsigned left)
{
	uint64_t now = stress_now_ns();
	uint64_t min = (uint64_t)(stress_seconds() * 1e8);
	uint64_t share = now >= end ? 0 : (end - now) / (left ? left : 1);

	return now + (share > min ? share : min);
}

UNIC_UNUSED static bool stress_past(uint64_t deadline)
{
	return stress_now_ns() >= deadline;
}

/*
 * Wait a little for another thread (a ring full or empty): spin first, then
 * give the CPU away, which matters on a machine with fewer cores than
 * threads. @p spins counts the calls since the last progress; reset it then.
 */
UNIC_UNUSED static void stress_backoff(unsigned *spins)
{
	if (++*spins < 64)
		unic_pause();
	else
		sched_yield();
}

/* xorshift64*: a thread's own random numbers, seeded per thread. */
UNIC_UNUSED static uint32_t stress_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

static void *stress_watchdog_main(void *arg)
{
	unsigned s = (unsigned)(uintptr_t)arg;

	stress_sleep_us((uint64_t)s * 1000000u);
	stress_fail("still running %u s after the start (its deadline is %.1f s): a thread is stuck",
		    s, stress_seconds());
	return NULL;
}

/* A hang is a failure with a message, not a test timeout: the program
 * ends with one if it runs a minute past its deadline. */
UNIC_UNUSED static void stress_watchdog(void)
{
	pthread_t tid;
	unsigned s = (unsigned)stress_seconds() + 60;
	int rc = pthread_create(&tid, NULL, stress_watchdog_main, (void *)(uintptr_t)s);

	STRESS_CHECK(rc == 0, "pthread_create: %s", strerror(rc));
	pthread_detach(tid);
}

/* Start @p n threads running @p fn(args + i * size). */
UNIC_UNUSED static void stress_spawn(pthread_t *tids, unsigned n, void *(*fn)(void *), void *args,
				     size_t size)
{
	for (unsigned i = 0; i < n; i++) {
		int rc = pthread_create(&tids[i], NULL, fn, (char *)args + i * size);

		STRESS_CHECK(rc == 0, "pthread_create: %s", strerror(rc));
	}
}

UNIC_UNUSED static void stress_join(pthread_t *tids, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pthread_join(tids[i], NULL);
}

#endif /* TESTS_STRESS_H */
