/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic_env_create and the workers: these need a working unic_mem_create
 * (with --no-huge, so no root and no hugepages). Listed in meson.build once
 * lib/mem is merged.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <unic/env.h>
#include <unic/port.h>
#include <unic/bus.h>
#include <unic/log.h>

#include "log_capture.h"

static void setup(void)
{
	logcap_start(UNIC_LOG_DEBUG, LOGCAP_COMP);
}

static void teardown(void)
{
	logcap_stop();
}

TestSuite(env_mem, .init = setup, .fini = teardown);

/* An environment from a command line; --no-huge is always added. */
static struct unic_env *env_from(const char *lcores)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge", "-l", (char *)lcores, NULL };
	struct unic_env *env;

	cr_assert_eq(unic_env_parse(&o, lcores ? 4 : 2, v), 1, "%s", logcap_buf);
	env = unic_env_create(&o);
	cr_assert_not_null(env, "unic_env_create: %s\n%s", strerror(errno), logcap_buf);
	return env;
}

static cpu_set_t affinity(void)
{
	cpu_set_t set;

	cr_assert_eq(sched_getaffinity(0, sizeof(set), &set), 0);
	return set;
}

struct probe {
	int cpu;
	int ret;
};

static int report_cpu(void *arg)
{
	struct probe *p = arg;

	p->cpu = sched_getcpu();
	return p->ret;
}

Test(env_mem, create_with_no_huge_gives_a_va_memory_context)
{
	struct unic_env *env = env_from(NULL);

	cr_assert_not_null(unic_env_mem(env));
	cr_assert_eq(unic_mem_iova_mode(unic_env_mem(env)), UNIC_IOVA_VA);
	cr_assert(unic_env_opts(env)->no_huge);
	cr_assert_eq(unic_env_worker_count(env), 0);
	cr_assert_eq(unic_env_launch(env, 0, report_cpu, NULL), -EINVAL,
		     "no -l: no workers");
	unic_env_destroy(env);
}

Test(env_mem, create_pins_the_main_thread_to_the_first_core)
{
	struct unic_env *env = env_from("0,1");
	cpu_set_t set = affinity();

	cr_assert_eq(CPU_COUNT(&set), 1);
	cr_assert(CPU_ISSET(0, &set));
	cr_assert_eq(unic_env_worker_count(env), 1);
	unic_env_destroy(env);
}

Test(env_mem, destroy_gives_the_main_thread_its_affinity_back)
{
	cpu_set_t before = affinity(), after;
	struct unic_env *env = env_from("1");

	unic_env_destroy(env);
	after = affinity();
	cr_assert(CPU_EQUAL(&before, &after));
}

Test(env_mem, worker_runs_on_core_1_and_returns_fn_value)
{
	struct unic_env *env = env_from("0,1");
	struct probe p = { .cpu = -1, .ret = 42 };

	cr_assert_eq(unic_env_launch(env, 0, report_cpu, &p), 0, "%s", logcap_buf);
	cr_assert_eq(unic_env_wait(env, 0), 42);
	cr_assert_eq(p.cpu, 1);
	unic_env_destroy(env);
}

Test(env_mem, worker_runs_on_core_0_and_returns_a_negative_value)
{
	struct unic_env *env = env_from("1,0");
	struct probe p = { .cpu = -1, .ret = -ENOENT };

	cr_assert_eq(unic_env_launch(env, 0, report_cpu, &p), 0, "%s", logcap_buf);
	cr_assert_eq(unic_env_wait(env, 0), -ENOENT);
	cr_assert_eq(p.cpu, 0);
	/* Launched again once waited for. */
	p.ret = 7;
	cr_assert_eq(unic_env_launch(env, 0, report_cpu, &p), 0);
	cr_assert_eq(unic_env_wait(env, 0), 7);
	unic_env_destroy(env);
}

static int wait_for_flag(void *arg)
{
	atomic_int *flag = arg;

	while (atomic_load_explicit(flag, memory_order_acquire) == 0)
		usleep(1000);
	return 5;
}

Test(env_mem, launch_while_running_is_busy)
{
	struct unic_env *env = env_from("0,1");
	atomic_int flag = 0;

	cr_assert_eq(unic_env_launch(env, 0, wait_for_flag, &flag), 0);
	cr_assert_eq(unic_env_launch(env, 0, wait_for_flag, &flag), -EBUSY);
	cr_assert(strstr(logcap_buf, "worker 0 (core 1) was launched and not waited for") != NULL,
		  "%s", logcap_buf);
	atomic_store_explicit(&flag, 1, memory_order_release);
	cr_assert_eq(unic_env_wait(env, 0), 5);
	unic_env_destroy(env);
}

Test(env_mem, unknown_worker_and_wait_without_launch_are_einval)
{
	struct unic_env *env = env_from("0,1");

	cr_assert_eq(unic_env_launch(env, 1, report_cpu, NULL), -EINVAL);
	cr_assert(strstr(logcap_buf, "no worker 1: there are 1") != NULL, "%s", logcap_buf);
	cr_assert_eq(unic_env_launch(env, 0, NULL, NULL), -EINVAL);
	cr_assert_eq(unic_env_wait(env, 0), -EINVAL);
	cr_assert_eq(unic_env_wait(env, 1), -EINVAL);
	unic_env_destroy(env);
}

static int slow_set(void *arg)
{
	atomic_int *done = arg;

	usleep(50 * 1000);
	atomic_store(done, 1);
	return 0;
}

Test(env_mem, destroy_waits_for_running_workers)
{
	struct unic_env *env = env_from("0,1");
	atomic_int done = 0;

	cr_assert_eq(unic_env_launch(env, 0, slow_set, &done), 0);
	unic_env_destroy(env);
	cr_assert_eq(atomic_load(&done), 1);
}

Test(env_mem, options_are_copied_into_the_environment)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge", "--no-pci", "--vdev", "null7", NULL };
	struct unic_env *env;

	cr_assert_eq(unic_env_parse(&o, 5, v), 1);
	env = unic_env_create(&o);
	cr_assert_not_null(env, "%s", logcap_buf);
	memset(&o, 0, sizeof(o));
	cr_assert_eq(unic_env_opts(env)->nb_vdev, 1);
	cr_assert_str_eq(unic_env_opts(env)->vdev[0], "null7");
	cr_assert(unic_env_opts(env)->no_pci);
	cr_assert_null(unic_env_bus(env), "--no-pci: no bus");
	unic_env_destroy(env);
}

Test(env_mem, vdev_ports_are_created_in_order_and_detached_at_destroy)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge", "--vdev", "ring5", "--vdev", "ring6,peer=ring5", NULL };
	struct unic_port *ports[4], *p;
	struct unic_env *env;

	cr_assert_eq(unic_env_parse(&o, 6, v), 1);
	env = unic_env_create(&o);
	cr_assert_not_null(env, "%s", logcap_buf);
	cr_assert_not_null(unic_env_bus(env), "PCI is probed unless --no-pci");
	cr_assert_eq(unic_env_ports(env, ports, 4), 2);
	cr_assert_str_eq(unic_port_name(ports[0]), "ring5");
	cr_assert_str_eq(unic_port_name(ports[1]), "ring6");
	p = unic_port_get(ports[1]);
	unic_env_destroy(env);
	cr_assert_eq(unic_port_state(p), UNIC_PORT_DETACHED);
	cr_assert_null(unic_port_get_by_name("ring5"));
	unic_port_put(p);
}

Test(env_mem, a_bad_vdev_fails_creation_and_leaves_nothing_behind)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge", "--no-pci", "--vdev", "null8", "--vdev", "bogus0", NULL };

	cr_assert_eq(unic_env_parse(&o, 7, v), 1);
	cr_assert_null(unic_env_create(&o));
	cr_assert_eq(errno, EINVAL);
	cr_assert(strstr(logcap_buf, "no virtual driver 'bogus'"), "%s", logcap_buf);
	cr_assert_null(unic_port_get_by_name("null8"), "ports made before the failure are detached");
}

Test(env_mem, a_vdev_spec_with_empty_items_fails_creation_naming_the_spec)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge", "--no-pci", "--vdev", "null6,,,bogus=1", NULL };

	cr_assert_eq(unic_env_parse(&o, 5, v), 1);
	cr_assert_null(unic_env_create(&o));
	cr_assert_eq(errno, EINVAL);
	cr_assert(strstr(logcap_buf, "virtual device 'null6,,,bogus=1': argument 1 is empty"), "%s", logcap_buf);
	cr_assert_null(unic_port_get_by_name("null6"));
}

Test(env_mem, a_named_device_that_does_not_exist_fails_creation_with_the_next_step)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-huge", "-a", "7f:1f.7", NULL };

	cr_assert_eq(unic_env_parse(&o, 4, v), 1);
	cr_assert_null(unic_env_create(&o));
	cr_assert(strstr(logcap_buf, "0000:7f:1f.7") && strstr(logcap_buf, "unic-devbind --status"), "%s", logcap_buf);
}

Test(env_mem, no_pci_with_allow_is_refused)
{
	struct unic_env_options o;
	char *v[] = { "app", "--no-pci", "-a", "03:00.0", NULL };

	cr_assert_eq(unic_env_parse(&o, 4, v), -EINVAL);
	cr_assert(strstr(logcap_buf, "--no-pci and -a"), "%s", logcap_buf);
}
