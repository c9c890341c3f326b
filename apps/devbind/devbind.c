/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-devbind's main(): the real hooks (file writes, modprobe, mount) around
 * devbind_run(). See docs/devbind.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "devbind.h"

extern char **environ;

static int real_write(void *ctx, const char *path, const char *val)
{
	size_t len = strlen(val);
	ssize_t n;
	int fd;

	(void)ctx;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	if (n < 0) {
		int err = errno;

		close(fd);
		return -err;
	}
	if (close(fd) < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

static int real_modprobe(void *ctx, const char *module)
{
	char *argv[] = { (char *)"modprobe", (char *)module, NULL };
	int status, ret;
	pid_t pid;

	(void)ctx;
	ret = posix_spawnp(&pid, "modprobe", NULL, NULL, argv, environ);
	if (ret != 0)
		return -ret;
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -ENOENT;
}

static int real_mount(void *ctx, const char *dir, const char *opts)
{
	(void)ctx;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	if (mount("nodev", dir, "hugetlbfs", 0, opts) < 0)
		return -errno;
	return 0;
}

int main(int argc, char **argv)
{
	struct devbind_env env = {
		.out = stdout,
		.err = stderr,
		.write = real_write,
		.modprobe = real_modprobe,
		.mount_hugetlbfs = real_mount,
	};

	return devbind_run(&env, argc, argv);
}
