/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: was the generator the limit? From each tx thread's figures
 * (its CPU time, the share of its loop spent building and sending rather
 * than waiting for the pacer, the share of its tx bursts the port took only
 * in part), one verdict and the line that says it. Pure, unit-tested.
 * docs/pktgen.md, "Threads and the generator limit".
 */
#ifndef PG_LIMIT_H
#define PG_LIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the report says of one thread. */
struct pg_thr_stat {
	unsigned q;                /* its queue (and thread) number */
	int core;                  /* -1: not pinned */
	bool tx, rx;               /* it sends / receives */
	int port;                  /* the tx port of its fullest ring (-1: none full) */
	uint64_t sent, sent_bytes, rx_frames, bursts, full_bursts;
	double tx_s;               /* its sending time (s) */
	double cpu_s;              /* its CPU time over it (CLOCK_THREAD_CPUTIME_ID) */
	double idle_s;             /* of which waiting for the pacer, nothing to send */
	double asked;              /* its share of the rate, in the rate's unit; 0: unlimited */
	double achieved;           /* in the same unit */
};

/* A ring counts as full when the port took only part of this share of the
 * thread's bursts; a thread is busy above this share of its time. */
#define PG_LIMIT_FULL_RATIO 0.10
#define PG_LIMIT_BUSY_RATIO 0.95
/* A thread had a CPU less than this share of its sending time: the kernel
 * ran something else on its core (a poll-mode thread never sleeps). */
#define PG_LIMIT_CPU_RATIO 0.80

enum pg_limit {
	PG_LIMIT_NONE,     /* the asked rate was reached */
	PG_LIMIT_PORT,     /* a tx ring was full: the port, link or DUT */
	PG_LIMIT_PKTGEN,   /* a tx thread was busy all the time or short of CPU, its ring not full */
	PG_LIMIT_NEITHER,  /* missed, but neither: the line says what else to look at */
};

double pg_thr_busy(const struct pg_thr_stat *t);
double pg_thr_full(const struct pg_thr_stat *t);
double pg_thr_cpu(const struct pg_thr_stat *t);  /* CPU time over sending time (1 when unknown) */

/*
 * Judge a run: @p paced (a rate was asked) and @p missed (achieved more
 * than 1 % below it); the tx threads @p t[0..n-1]. The line (without a
 * newline, starting "generator limit: ") goes to @p buf. @return the verdict.
 */
enum pg_limit pg_limit_judge(bool paced, bool missed, const struct pg_thr_stat *t, unsigned n,
			     char *buf, size_t len);

/* "none", "port", "pktgen", "neither". */
const char *pg_limit_name(enum pg_limit l);

#endif /* PG_LIMIT_H */
