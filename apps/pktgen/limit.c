/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen: the generator-limit verdict (limit.h). */
#include <stdio.h>

#include "limit.h"

double pg_thr_busy(const struct pg_thr_stat *t)
{
	double b;

	if (!(t->tx_s > 0))
		return 0;
	b = 1 - t->idle_s / t->tx_s;
	return b < 0 ? 0 : b > 1 ? 1 : b;
}

double pg_thr_cpu(const struct pg_thr_stat *t)
{
	return t->tx_s > 0 ? t->cpu_s / t->tx_s : 1;
}

double pg_thr_full(const struct pg_thr_stat *t)
{
	return t->bursts ? (double)t->full_bursts / (double)t->bursts : 0;
}

const char *pg_limit_name(enum pg_limit l)
{
	switch (l) {
	case PG_LIMIT_NONE: return "none";
	case PG_LIMIT_PORT: return "port";
	case PG_LIMIT_PKTGEN: return "pktgen";
	default: return "neither";
	}
}

enum pg_limit pg_limit_judge(bool paced, bool missed, const struct pg_thr_stat *t, unsigned n,
			     char *buf, size_t len)
{
	const struct pg_thr_stat *full = NULL, *busy = NULL, *starved = NULL;

	for (unsigned i = 0; i < n; i++) {
		if (!t[i].tx)
			continue;
		if (pg_thr_full(&t[i]) >= PG_LIMIT_FULL_RATIO && (full == NULL || pg_thr_full(&t[i]) > pg_thr_full(full)))
			full = &t[i];
		if (pg_thr_busy(&t[i]) >= PG_LIMIT_BUSY_RATIO && (busy == NULL || pg_thr_busy(&t[i]) > pg_thr_busy(busy)))
			busy = &t[i];
		if (pg_thr_cpu(&t[i]) < PG_LIMIT_CPU_RATIO && (starved == NULL || pg_thr_cpu(&t[i]) < pg_thr_cpu(starved)))
			starved = &t[i];
	}
	if (paced && !missed) {
		snprintf(buf, len, "generator limit: none: the asked rate was reached (within 1%%)");
		return PG_LIMIT_NONE;
	}
	/* A full ring first: a thread whose ring is full retries, and so is
	 * busy too, but it waits for the port, not for itself. */
	if (full) {
		snprintf(buf, len, "generator limit: the port, not pktgen: %s; tx port %d queue %u took only part of %.1f%% of thread %u's bursts (%llu of %llu): the port, its link or what drains it (the DUT) took frames no faster",
			 paced ? "the rate was missed" : "as fast as the port takes frames", full->port, full->q,
			 100 * pg_thr_full(full), full->q, (unsigned long long)full->full_bursts,
			 (unsigned long long)full->bursts);
		return PG_LIMIT_PORT;
	}
	/* A poll-mode thread is on its CPU all the time unless the kernel
	 * gives the CPU to someone else: then the machine held pktgen back. */
	if (starved) {
		snprintf(buf, len, "generator limit: pktgen (its CPU): %s; tx thread %u had a CPU only %.1f%% of its sending time (other load on its core: give pktgen cores of its own with -l)",
			 paced ? "the rate was missed" : "as fast as it can", starved->q, 100 * pg_thr_cpu(starved));
		return PG_LIMIT_PKTGEN;
	}
	if (busy) {
		snprintf(buf, len, "generator limit: pktgen: %s; tx thread %u was busy %.1f%% of its time (building and sending, never waiting for the pacer) and its ring took every burst but %.1f%%: more tx queues (--txq, with a core each in -l) or a faster core would send more",
			 paced ? "the rate was missed" : "as fast as it can", busy->q, 100 * pg_thr_busy(busy),
			 100 * pg_thr_full(busy));
		return PG_LIMIT_PKTGEN;
	}
	snprintf(buf, len, "generator limit: neither: %s, but no tx thread was busy (%.0f%% of its time), short of CPU (below %.0f%%) or ring-bound (full in %.0f%% of its bursts); look at the no-buffer count",
		 paced ? "the rate was missed" : "as fast as the port takes frames", 100 * PG_LIMIT_BUSY_RATIO,
		 100 * PG_LIMIT_CPU_RATIO, 100 * PG_LIMIT_FULL_RATIO);
	return PG_LIMIT_NEITHER;
}
