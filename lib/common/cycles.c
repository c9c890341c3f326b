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

/* ns per cycle << 32 over @p cycles taking @p ns; 1 << 32 when unknown. */
static uint64_t tsc_mult(uint64_t ns, uint64_t cycles)
{
	if (cycles == 0 || ns == 0)
		return 1ull << 32;
	return (uint64_t)(((unsigned __int128)ns << 32) / cycles);
}

void unic_tsc_clock_init(struct unic_tsc_clock *c)
{
	uint64_t hz = unic_tsc_hz();

	c->ns0 = c->base_ns = unic_time_ns();
	c->tsc0 = c->base_tsc = unic_rdtsc();
	c->mult = tsc_mult(1000000000ull, hz);
	c->span = (uint64_t)(((unsigned __int128)UNIC_TSC_CLOCK_SPAN_NS * hz) / 1000000000ull);
	if (c->span == 0)
		c->span = 1;
	c->anchors = 1;
}

uint64_t unic_tsc_clock_anchor(struct unic_tsc_clock *c, uint64_t tsc)
{
	uint64_t real = unic_time_ns(), d = tsc - c->tsc0, pred, ahead, rate;

	/* The counter went back (another CPU's lags): no prediction. */
	pred = (int64_t)d < 0 ? c->ns0 : c->ns0 + (uint64_t)(((unsigned __int128)d * c->mult) >> 32);
	/* The rate over the clock's life: better than the 50 ms calibration. */
	rate = tsc > c->base_tsc && real > c->base_ns + 10000000ull ?
		tsc_mult(real - c->base_ns, tsc - c->base_tsc) : c->mult;
	if (tsc <= c->base_tsc) { /* a counter behind the baseline's: start over from here */
		c->base_tsc = tsc;
		c->base_ns = real;
	}
	c->ns0 = pred > real ? pred : real; /* never back */
	c->tsc0 = tsc;
	/* Ahead of the kernel's clock: slow the next span to absorb it (by
	 * half a span at most). */
	ahead = c->ns0 - real;
	if (ahead > UNIC_TSC_CLOCK_SPAN_NS / 2)
		ahead = UNIC_TSC_CLOCK_SPAN_NS / 2;
	c->mult = (uint64_t)(((unsigned __int128)rate * (UNIC_TSC_CLOCK_SPAN_NS - ahead)) / UNIC_TSC_CLOCK_SPAN_NS);
	c->anchors++;
	return c->ns0;
}
