/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdlib.h>

#include <unic/thread.h>
#include <unic/log.h>

__thread uint32_t unic_thread_slot;

static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t slot_used[UNIC_MAX_THREADS];
static uint32_t slots_in_use;
static pthread_key_t slot_key;
static pthread_once_t slot_key_once = PTHREAD_ONCE_INIT;

/* Thread exit: give the index back. The thread's pool caches stay with the
 * index, so the next thread to take it inherits them and nothing is lost. */
static void slot_release(void *v)
{
	uint32_t idx = (uint32_t)(uintptr_t)v - 1;

	pthread_mutex_lock(&slot_lock);
	if (idx < UNIC_MAX_THREADS && slot_used[idx]) {
		slot_used[idx] = 0;
		slots_in_use--;
	}
	pthread_mutex_unlock(&slot_lock);
}

static void slot_key_create(void)
{
	if (pthread_key_create(&slot_key, slot_release) != 0)
		UNIC_LOG(WARNING, ENV, "pthread_key_create failed: thread indices will not be recycled");
}

uint32_t unic_thread_index_assign(void)
{
	uint32_t i, idx = UNIC_THREAD_NONE;

	pthread_once(&slot_key_once, slot_key_create);
	pthread_mutex_lock(&slot_lock);
	for (i = 0; i < UNIC_MAX_THREADS; i++) {
		if (!slot_used[i]) {
			slot_used[i] = 1;
			slots_in_use++;
			idx = i;
			break;
		}
	}
	pthread_mutex_unlock(&slot_lock);

	if (idx == UNIC_THREAD_NONE) {
		UNIC_LOG(WARNING, ENV,
			 "more than %d threads use unic at once: this one runs without per-thread caches (raise -Dmax_threads)",
			 UNIC_MAX_THREADS);
	} else {
		pthread_setspecific(slot_key, (void *)(uintptr_t)(idx + 1));
	}
	unic_thread_slot = idx + 1;
	return idx;
}

uint32_t unic_thread_index_count(void)
{
	uint32_t n;

	pthread_mutex_lock(&slot_lock);
	n = slots_in_use;
	pthread_mutex_unlock(&slot_lock);
	return n;
}
