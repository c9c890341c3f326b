/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-devbind's command logic, apart from main() so the unit tests can run
 * it against a fake sysfs tree. Every change to the system goes through the
 * hooks below: the tests record the writes and play the kernel's part
 * (unbind removes the driver link, a probe makes it).
 */
#ifndef UNIC_DEVBIND_H
#define UNIC_DEVBIND_H

#include <stdio.h>

/* Exit codes: documented in docs/devbind.md; scripts rely on them. */
enum devbind_exit {
	DEVBIND_OK = 0,
	DEVBIND_USAGE = 1,     /* bad option or address; nothing was done */
	DEVBIND_NOT_FOUND = 2, /* no such PCI device; nothing was done */
	DEVBIND_REFUSED = 3,   /* an interface is up with routes; use --force */
	DEVBIND_FAILED = 4,    /* a write, modprobe, mount or reservation failed */
};

struct devbind_env {
	FILE *out;             /* the report */
	FILE *err;             /* one line per failure, and warnings */
	/* Write @p val to the sysfs file @p path. @return 0 or -errno. */
	int (*write)(void *ctx, const char *path, const char *val);
	/* Run modprobe @p module. @return 0 or -errno (-ENOENT: no module). */
	int (*modprobe)(void *ctx, const char *module);
	/* Mount hugetlbfs with @p opts at @p dir (made if missing). */
	int (*mount_hugetlbfs)(void *ctx, const char *dir, const char *opts);
	void *ctx;
};

/* Run one command line (argv[0] is the program name). @return an exit code. */
int devbind_run(const struct devbind_env *env, int argc, char **argv);

#endif /* UNIC_DEVBIND_H */
