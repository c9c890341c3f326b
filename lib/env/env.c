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
#include <unic/bus.h>
#include <unic/port.h>

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
	struct unic_bus *bus;                 /* NULL with --no-pci */
	struct unic_port *ports[UNIC_PORT_MAX]; /* one reference each */
	unsigned nb_ports;
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

static bool env_allowed(const struct unic_env_options *o, const char *bdf)
{
	for (unsigned i = 0; i < o->nb_allow; i++)
		if (strcmp(o->allow[i], bdf) == 0)
			return true;
	return false;
}

/*
 * AUTO: PA when a device that will be probed is on uio_pci_generic, or when
 * VFIO's no-IOMMU mode is allowed (both give the device physical addresses);
 * VA otherwise (VFIO with an IOMMU maps what we choose).
 */
static enum unic_iova_mode env_iova_mode(const struct unic_env_options *o)
{
	struct unic_pci_info *devs = NULL;
	enum unic_iova_mode mode = UNIC_IOVA_VA;
	unsigned nb = 0;

	if (o->iova_mode == UNIC_ENV_IOVA_PA)
		return UNIC_IOVA_PA;
	if (o->iova_mode == UNIC_ENV_IOVA_VA || o->no_pci || o->no_huge)
		return UNIC_IOVA_VA;
	if (o->vfio_noiommu) {
		UNIC_LOG(INFO, ENV, "IOVA mode PA: --vfio-noiommu gives devices physical addresses");
		return UNIC_IOVA_PA;
	}
	if (unic_pci_scan(NULL, &devs, &nb) < 0)
		return UNIC_IOVA_VA;
	for (unsigned i = 0; i < nb; i++) {
		bool probed = o->nb_allow ? env_allowed(o, devs[i].bdf) : unic_port_pci_driver(&devs[i]) != NULL;

		if (probed && strcmp(devs[i].driver, "uio_pci_generic") == 0) {
			UNIC_LOG(INFO, ENV, "IOVA mode PA: %s is bound to uio_pci_generic", devs[i].bdf);
			mode = UNIC_IOVA_PA;
			break;
		}
	}
	free(devs);
	return mode;
}

static struct unic_mem *env_mem_create(const struct unic_env_options *o)
{
	struct unic_mem_conf cfg = {
		.sz = sizeof(cfg),
		.iova_mode = env_iova_mode(o),
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

static int env_add_port(struct unic_env *env, struct unic_port *p)
{
	if (env->nb_ports == UNIC_ARRAY_SIZE(env->ports)) {
		unic_port_put(p);
		return -ENOSPC;
	}
	env->ports[env->nb_ports++] = p;
	return 0;
}

/* Create the bus and probe; keep the reference to every port created. */
static int env_probe(struct unic_env *env)
{
	const struct unic_env_options *o = &env->opts;
	struct unic_bus_conf bc = {
		.sz = sizeof(bc), .mem = env->mem, .allow_noiommu = o->vfio_noiommu,
	};
	const char *allow[UNIC_ENV_MAX_ALLOW];
	int rc;

	env->bus = unic_bus_create(&bc);
	if (env->bus == NULL)
		return -errno;
	for (unsigned i = 0; i < o->nb_allow; i++)
		allow[i] = o->allow[i];
	rc = unic_port_probe_pci(env->bus, allow, o->nb_allow, env->ports + env->nb_ports,
				 UNIC_ARRAY_SIZE(env->ports) - env->nb_ports);
	if (rc < 0)
		return rc;
	env->nb_ports += (unsigned)rc;
	UNIC_LOG(INFO, ENV, "PCI probe: %u port(s)", env->nb_ports);
	return 0;
}

static int env_vdevs(struct unic_env *env)
{
	for (unsigned i = 0; i < env->opts.nb_vdev; i++) {
		struct unic_port *p;
		int rc = unic_vdev_create(env->opts.vdev[i], &p);

		if (rc < 0) {
			UNIC_LOG(ERR, ENV, "--vdev %s: cannot create the virtual device (the message above says why)",
				 env->opts.vdev[i]);
			return rc;
		}
		rc = env_add_port(env, p);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static void env_release_ports(struct unic_env *env)
{
	while (env->nb_ports > 0) {
		struct unic_port *p = env->ports[--env->nb_ports];

		unic_port_detach(p);
		unic_port_put(p);
	}
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
	if (!opts->no_pci) {
		err = -env_probe(env);
		if (err != 0)
			goto release_ports;
	}
	err = -env_vdevs(env);
	if (err != 0)
		goto release_ports;
	return env;

release_ports:
	env_release_ports(env);
	unic_bus_destroy(env->bus);
	if (env->restore_affinity)
		pthread_setaffinity_np(pthread_self(), sizeof(env->main_affinity),
				       &env->main_affinity);
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
	env_release_ports(env);
	unic_bus_destroy(env->bus);
	unic_mem_destroy(env->mem);
	if (env->restore_affinity)
		pthread_setaffinity_np(pthread_self(), sizeof(env->main_affinity),
				       &env->main_affinity);
	free(env);
}

struct unic_bus *unic_env_bus(struct unic_env *env)
{
	return env ? env->bus : NULL;
}

unsigned unic_env_ports(const struct unic_env *env, struct unic_port **ports, unsigned max)
{
	unsigned n = 0;

	for (; env && n < env->nb_ports && n < max; n++)
		ports[n] = env->ports[n];
	return n;
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
