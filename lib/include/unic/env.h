/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * What every unic application shares: one option parser for the common
 * options, logging setup, the DMA memory context, and threads pinned to
 * cores.
 *
 * Common options (recognised anywhere before a bare "--"; everything else
 * is left in argv, in order, for the application's own parser, so users need
 * no "--" separator):
 *
 *   -a, --allow BDF        probe only this PCI device (repeatable)
 *       --vdev SPEC        add a virtual device, e.g. "ring0" (repeatable)
 *   -l, --lcores LIST      cores to run on, e.g. "0,2-3"; the first is the
 *                          main thread's
 *       --no-huge          ordinary pages instead of hugepages (VA mode only)
 *       --huge-dir DIR     hugetlbfs mount to take pages from
 *       --iova-mode va|pa  force the IOVA mode (default: chosen by the bus)
 *       --log-level SPEC   e.g. "debug" or "info,mem:debug"
 *
 * A bad option is reported with the option, what was given and the
 * accepted forms; parsing returns -EINVAL and never exits.
 */
#ifndef UNIC_ENV_H
#define UNIC_ENV_H

#include <sched.h>
#include <pthread.h>
#include <unic/common.h>
#include <unic/mem.h>

#define UNIC_ENV_MAX_ALLOW 64
#define UNIC_ENV_MAX_VDEV 64
#define UNIC_ENV_MAX_CORES 256

enum unic_env_iova {
	UNIC_ENV_IOVA_AUTO = 0,
	UNIC_ENV_IOVA_VA,
	UNIC_ENV_IOVA_PA,
};

/** Parsed common options. Strings point into argv. */
struct unic_env_options {
	const char *allow[UNIC_ENV_MAX_ALLOW];
	unsigned nb_allow;
	const char *vdev[UNIC_ENV_MAX_VDEV];
	unsigned nb_vdev;
	int cores[UNIC_ENV_MAX_CORES]; /**< in the order given; cores[0] is main */
	unsigned nb_cores;             /**< 0: not given */
	bool no_huge;
	const char *huge_dir;
	enum unic_env_iova iova_mode;
	const char *log_level;
};

/**
 * Take the common options out of argv. Recognised options (and their
 * values) are removed; the rest keep their order, argv[0] included, and a
 * bare "--" is removed and ends the scan. The log level is applied at once.
 * @return the new argc (>= 1), or -EINVAL for a bad option (logged: option,
 *         value given, accepted forms).
 */
int unic_env_parse(struct unic_env_options *opts, int argc, char **argv);

/** Usage text for the common options (for an app's --help). */
const char *unic_env_usage(void);

/**
 * Parse a core list such as "0,2-3" (also "0-3,8"). Order is kept,
 * duplicates are refused.
 * @return the number of cores (>= 1), or -EINVAL (the message says what was
 *         expected), -E2BIG above @p max.
 */
int unic_cpu_list_parse(const char *s, int *cores, unsigned max);

/** Pin the calling thread to @p cpu. @return 0 or -errno (EINVAL: not online). */
int unic_thread_pin_self(int cpu);

struct unic_env;

/**
 * Set up what the options ask for: the memory context (hugepages, or
 * --no-huge), and pin the calling (main) thread to the first core given.
 * @return the environment, or NULL with errno set and a message logged.
 */
struct unic_env *unic_env_create(const struct unic_env_options *opts);
void unic_env_destroy(struct unic_env *env);

struct unic_mem *unic_env_mem(struct unic_env *env);
const struct unic_env_options *unic_env_opts(const struct unic_env *env);

/** Number of worker cores (cores given after the first). */
unsigned unic_env_worker_count(const struct unic_env *env);

/**
 * Start @p fn(arg) on worker @p idx (0-based, the (idx+1)-th core given), in
 * a thread pinned to that core.
 * @return 0, -EINVAL (no such worker), -EBUSY (still running), or -errno.
 */
int unic_env_launch(struct unic_env *env, unsigned idx, int (*fn)(void *), void *arg);

/** Wait for worker @p idx. @return fn's return value, or -EINVAL if none ran. */
int unic_env_wait(struct unic_env *env, unsigned idx);

#endif /* UNIC_ENV_H */
