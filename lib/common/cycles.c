/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <time.h>

#include <unic/cycles.h>

static uint64_t tsc_hz;
static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;

static void tsc_calibrate(void)
{
	struct timespec sleep_ts = { .tv_sec = 0, .tv_nsec = 50 * 1000 * 1000 };
	uint64_t t0, t1, c0, c1;

	t0 = unic_time_ns();
	c0 = unic_rdtsc();
	nanosleep(&sleep_ts, NULL);
	t1 = unic_time_ns();
	c1 = unic_rdtsc();
	/* Measured interval, not the requested one: nanosleep overshoots. */
	if (t1 > t0 && c1 > c0)
		tsc_hz = (uint64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0));
	if (tsc_hz == 0)
		tsc_hz = 1000000000ull;
}

uint64_t unic_time_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t unic_tsc_hz(void)
{
	pthread_once(&tsc_once, tsc_calibrate);
	return tsc_hz;
}
