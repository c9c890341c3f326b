/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The environment object: the memory context, the main thread pinned to the
 * first core, and one worker slot per further core.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include <unic/env.h>
#include <unic/log.h>

#include "env_priv.h"

struct env_worker {
	pthread_t tid;
	int core;
	bool launched;          /* launched and not yet waited for */
	int (*fn)(void *arg);
	void *arg;
	int ret;
};

struct unic_env {
	struct unic_env_options opts;
	struct unic_mem *mem;
	cpu_set_t main_affinity;  /* the main thread's, before we pinned it */
	bool restore_affinity;
	unsigned nb_workers;
	struct env_worker workers[UNIC_ENV_MAX_CORES - 1];
};

static int env_cores_check(const struct unic_env_options *o)
{
	char online[256];
	unsigned i;

	if (o->nb_cores > UNIC_ENV_MAX_CORES) {
		UNIC_LOG(ERR, ENV, "%u cores given; the limit is %d",
			 o->nb_cores, UNIC_ENV_MAX_CORES);
		return -EINVAL;
	}
	for (i = 0; i < o->nb_cores; i++) {
		/* An unreadable online list: let pinning find out. */
		if (env_cpu_online(o->cores[i], online, sizeof(online)) == 0) {
			UNIC_LOG(ERR, ENV, "core %d (from -l) is not online; online CPUs: %s",
				 o->cores[i], online);
			return -EINVAL;
		}
	}
	return 0;
}

static struct unic_mem *env_mem_create(const struct unic_env_options *o)
{
	struct unic_mem_config cfg = {
		.sz = sizeof(cfg),
		/* AUTO means VA until the bus layer chooses (it knows about
		 * no-IOMMU and UIO). */
		.iova_mode = o->iova_mode == UNIC_ENV_IOVA_PA ? UNIC_IOVA_PA : UNIC_IOVA_VA,
		.no_huge = o->no_huge,
		.huge_dir = o->no_huge ? NULL : o->huge_dir,
	};
	struct unic_mem *mem;

	mem = unic_mem_create(&cfg);
	if (mem == NULL) {
		int err = errno;

		UNIC_LOG(ERR, ENV, "cannot set up DMA memory: %s%s", strerror(err),
			 o->no_huge ? "" : " (for a test run without hugepages, add --no-huge)");
		errno = err;
	}
	return mem;
}

struct unic_env *unic_env_create(const struct unic_env_options *opts)
{
	struct unic_env *env;
	unsigned i;
	int err;

	if (opts == NULL) {
		errno = EINVAL;
		return NULL;
	}
	err = -env_cores_check(opts);
	if (err != 0)
		goto fail;
	env = calloc(1, sizeof(*env));
	if (env == NULL) {
		err = ENOMEM;
		goto fail;
	}
	env->opts = *opts;

	env->mem = env_mem_create(opts);
	if (env->mem == NULL) {
		err = errno;
		goto free_env;
	}

	if (opts->nb_cores > 0) {
		env->restore_affinity =
			pthread_getaffinity_np(pthread_self(), sizeof(env->main_affinity),
					       &env->main_affinity) == 0;
		err = -unic_thread_pin_self(opts->cores[0]);
		if (err != 0)
			goto destroy_mem;
		env->nb_workers = opts->nb_cores - 1;
		for (i = 0; i < env->nb_workers; i++)
			env->workers[i].core = opts->cores[i + 1];
		UNIC_LOG(INFO, ENV, "main thread on core %d, %u worker(s)",
			 opts->cores[0], env->nb_workers);
	}
	return env;

destroy_mem:
	unic_mem_destroy(env->mem);
free_env:
	free(env);
fail:
	errno = err;
	return NULL;
}

void unic_env_destroy(struct unic_env *env)
{
	unsigned i;

	if (env == NULL)
		return;
	for (i = 0; i < env->nb_workers; i++) {
		if (env->workers[i].launched) {
			UNIC_LOG(NOTICE, ENV, "waiting for worker %u (core %d) to return",
				 i, env->workers[i].core);
			unic_env_wait(env, i);
		}
	}
	unic_mem_destroy(env->mem);
	if (env->restore_affinity)
		pthread_setaffinity_np(pthread_self(), sizeof(env->main_affinity),
				       &env->main_affinity);
	free(env);
}

struct unic_mem *unic_env_mem(struct unic_env *env)
{
	return env ? env->mem : NULL;
}

const struct unic_env_options *unic_env_opts(const struct unic_env *env)
{
	return env ? &env->opts : NULL;
}

unsigned unic_env_worker_count(const struct unic_env *env)
{
	return env ? env->nb_workers : 0;
}

static void *env_worker_main(void *p)
{
	struct env_worker *w = p;

	w->ret = w->fn(w->arg);
	return NULL;
}

int unic_env_launch(struct unic_env *env, unsigned idx, int (*fn)(void *), void *arg)
{
	struct env_worker *w;
	pthread_attr_t attr;
	cpu_set_t *set;
	size_t sz;
	int rc;

	if (env == NULL || fn == NULL)
		return -EINVAL;
	if (idx >= env->nb_workers) {
		UNIC_LOG(ERR, ENV, "no worker %u: there are %u (one per core after the first in -l)",
			 idx, env->nb_workers);
		return -EINVAL;
	}
	w = &env->workers[idx];
	if (w->launched) {
		UNIC_LOG(ERR, ENV, "worker %u (core %d) was launched and not waited for; call unic_env_wait first",
			 idx, w->core);
		return -EBUSY;
	}
	w->fn = fn;
	w->arg = arg;
	w->ret = 0;

	/* The thread starts on its core, so fn never runs anywhere else. */
	set = CPU_ALLOC(w->core + 1);
	if (set == NULL)
		return -ENOMEM;
	sz = CPU_ALLOC_SIZE(w->core + 1);
	CPU_ZERO_S(sz, set);
	CPU_SET_S(w->core, sz, set);
	rc = pthread_attr_init(&attr);
	if (rc != 0)
		goto free_set;
	rc = pthread_attr_setaffinity_np(&attr, sz, set);
	if (rc == 0)
		rc = pthread_create(&w->tid, &attr, env_worker_main, w);
	pthread_attr_destroy(&attr);
free_set:
	CPU_FREE(set);
	if (rc != 0) {
		UNIC_LOG(ERR, ENV, "cannot start worker %u on core %d: %s",
			 idx, w->core, strerror(rc));
		return -rc;
	}
	w->launched = true;
	return 0;
}

int unic_env_wait(struct unic_env *env, unsigned idx)
{
	struct env_worker *w;
	int rc;

	if (env == NULL || idx >= env->nb_workers || !env->workers[idx].launched)
		return -EINVAL;
	w = &env->workers[idx];
	rc = pthread_join(w->tid, NULL);
	if (rc != 0) {
		UNIC_LOG(ERR, ENV, "cannot join worker %u: %s", idx, strerror(rc));
		return -rc;
	}
	w->launched = false;
	return w->ret;
}
