/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A thread's CPU time and its run delay (time runnable but waiting for a
 * CPU, from /proc/self/task/<tid>/schedstat: "cpu_ns run_delay_ns
 * slices"): what tells a late packet on a busy machine from one left behind.
 */
#ifndef TESTS_COMMON_THREAD_TIME_H
#define TESTS_COMMON_THREAD_TIME_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

/** Run delay of thread @p ktid (a kernel tid; 0: the caller), ns; 0 when
 * the kernel does not report it. */
uint64_t run_delay_ns(pid_t ktid);
/** CPU time thread @p t has used, ns; 0 when its clock cannot be read. */
uint64_t thread_cpu_ns(pthread_t t);

#endif /* TESTS_COMMON_THREAD_TIME_H */
