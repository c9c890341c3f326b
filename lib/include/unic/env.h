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
 *       --no-pci           probe no PCI device (virtual devices only)
 *       --vfio-noiommu     allow VFIO's no-IOMMU mode (unsafe; IOVA = PA)
 *       --file-prefix NAME the instance's name in the runtime directory
 *                          (its telemetry socket's folder; default "unic")
 *       --telemetry        a telemetry socket that cannot start is an error
 *       --no-telemetry     no telemetry socket
 *
 * The environment does not start telemetry itself: an application does,
 * with unic_telemetry_start() (unic/telemetry.h), from these options.
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

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

struct unic_bus;
struct unic_port;

#define UNIC_ENV_MAX_ALLOW 64  /**< most -a options */
#define UNIC_ENV_MAX_VDEV 64   /**< most --vdev options */
#define UNIC_ENV_MAX_CORES 256 /**< most cores in -l */
/** Room for a normalised PCI address "DDDD:BB:DD.F" and its NUL. */
#define UNIC_ENV_BDF_LEN 13

/** Longest --file-prefix. */
#define UNIC_ENV_PREFIX_MAX 64

/** --telemetry / --no-telemetry. */
enum unic_env_telemetry {
	UNIC_ENV_TELEMETRY_DEFAULT = 0, /**< neither: the app's default (a failure is a warning) */
	UNIC_ENV_TELEMETRY_ON,          /**< --telemetry: a failure to start is an error */
	UNIC_ENV_TELEMETRY_OFF,         /**< --no-telemetry */
};

/** --iova-mode. */
enum unic_env_iova {
	UNIC_ENV_IOVA_AUTO = 0, /**< not given: chosen as unic_env_create() says */
	UNIC_ENV_IOVA_VA,       /**< --iova-mode va */
	UNIC_ENV_IOVA_PA,       /**< --iova-mode pa */
};

/**
 * Parsed common options. The PCI addresses are normalised copies
 * ("0000:03:00.0", lower-case hex), so the struct can be copied; the other
 * strings point into argv, which must outlive them.
 */
struct unic_env_options {
	char allow[UNIC_ENV_MAX_ALLOW][UNIC_ENV_BDF_LEN]; /**< -a: PCI addresses to probe */
	unsigned nb_allow;             /**< how many -a */
	const char *vdev[UNIC_ENV_MAX_VDEV]; /**< --vdev specs, in order */
	unsigned nb_vdev;              /**< how many --vdev */
	int cores[UNIC_ENV_MAX_CORES]; /**< in the order given; cores[0] is main */
	unsigned nb_cores;             /**< 0: not given */
	bool no_huge;                  /**< --no-huge */
	const char *huge_dir;          /**< --huge-dir, or NULL */
	enum unic_env_iova iova_mode;  /**< --iova-mode */
	const char *log_level;         /**< --log-level, or NULL (applied by unic_env_parse()) */
	bool no_pci;                   /**< --no-pci: probe no PCI device */
	bool vfio_noiommu;             /**< --vfio-noiommu: allow VFIO no-IOMMU */
	const char *file_prefix;       /**< --file-prefix, or NULL ("unic") */
	enum unic_env_telemetry telemetry; /**< --telemetry / --no-telemetry */
};

/**
 * Take the common options out of argv. Recognised options (and their
 * values) are removed; the rest keep their order, argv[0] included, and a
 * bare "--" is removed and ends the scan. argv[new argc] is set to NULL (as
 * for main's argv, the array must have argc + 1 entries). The log level is
 * applied at once. A value given as the next argument must not start with
 * '-' (it is reported as missing); use the "--opt=value" form for that.
 * An option given twice keeps its last value, except -a and --vdev, which
 * add up (a PCI address given twice is kept once, with a warning).
 * @p opts is zeroed first. On error argv is left as it was.
 * @return the new argc (>= 1), or -EINVAL for a bad option (logged: option,
 *         value given, accepted forms) or NULL arguments.
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

/**
 * Pin the calling thread to @p cpu.
 * @return 0 or -errno: EINVAL (negative, not online, or outside this
 *         process's cpuset; the message lists the online CPUs), ENOMEM.
 */
int unic_thread_pin_self(int cpu);

struct unic_env;

/**
 * Set up what the options ask for, in this order: pin the calling (main)
 * thread to the first core given (every core given must be online); choose
 * the IOVA mode (--iova-mode; else PA when --vfio-noiommu is given or a PCI
 * device to probe is bound to uio_pci_generic, VA otherwise); create the
 * memory context (hugepages, or --no-huge); unless --no-pci, create the PCI
 * bus and probe the devices the driver table matches (only those given with
 * -a, if any); create every --vdev port. The options are copied.
 * @return the environment, or NULL with errno set and a message logged:
 *         EINVAL (NULL, a core not online, a bad --vdev), an errno of
 *         unic_mem_create(), or of the probe of a device named with -a.
 */
struct unic_env *unic_env_create(const struct unic_env_options *opts);

/**
 * Wait for workers still running (a worker that never returns blocks this),
 * detach every port the environment created (the caller still puts any
 * reference it took), release the bus and the memory context, and give the
 * main thread back the CPU affinity it had before unic_env_create(). NULL is
 * accepted.
 */
void unic_env_destroy(struct unic_env *env);

/** The PCI bus context, or NULL with --no-pci. */
struct unic_bus *unic_env_bus(struct unic_env *env);

/**
 * The ports the environment created (probed PCI devices, then the --vdev
 * ones in order), without taking references. @return how many (<= max).
 */
unsigned unic_env_ports(const struct unic_env *env, struct unic_port **ports, unsigned max);

/** The DMA memory context (pools are created in it). */
struct unic_mem *unic_env_mem(struct unic_env *env);
/** The options the environment was created with (its copy). */
const struct unic_env_options *unic_env_opts(const struct unic_env *env);

/** Number of worker cores (cores given after the first). */
unsigned unic_env_worker_count(const struct unic_env *env);

/**
 * Start @p fn(arg) on worker @p idx (0-based, the (idx+1)-th core given), in
 * a thread pinned to that core. Launch and wait are for the main thread.
 * @return 0, -EINVAL (no such worker, or fn NULL), -EBUSY (launched and not
 *         yet waited for), or -errno from pthread_create.
 */
int unic_env_launch(struct unic_env *env, unsigned idx, int (*fn)(void *), void *arg);

/** Wait for worker @p idx. @return fn's return value, or -EINVAL if none ran. */
int unic_env_wait(struct unic_env *env, unsigned idx);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_ENV_H */
