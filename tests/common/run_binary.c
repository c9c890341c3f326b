/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run_binary.h"

const char *binary_path(const char *var)
{
	const char *bin = getenv(var);

	if (bin == NULL)
		cr_assert_fail("%s is not set: run this test through meson test, which sets it", var);
	return bin;
}

int binary_run(const char *cmdline, char *buf, size_t len)
{
	size_t n;
	FILE *p;
	int st;

	p = popen(cmdline, "r");
	cr_assert_not_null(p, "cannot run %s", cmdline);
	n = fread(buf, 1, len - 1, p);
	buf[n] = '\0';
	st = pclose(p);
	cr_assert(WIFEXITED(st), "%s did not exit (signal %d)", cmdline, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return WEXITSTATUS(st);
}

static uint64_t binary_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void binary_tty_read(int fd, char *buf, size_t size, size_t *n, int ms)
{
	uint64_t end = binary_now_ms() + (uint64_t)ms;

	while (binary_now_ms() < end && *n < size - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 20) <= 0)
			continue;
		r = read(fd, buf + *n, size - 1 - *n);
		if (r <= 0)
			break;
		*n += (size_t)r;
	}
	buf[*n] = '\0';
}

pid_t binary_spawn(const char *path, char *const argv[], const char *input, int *fd)
{
	int outp[2], inp[2] = { -1, -1 };
	pid_t pid, parent;

	cr_assert_eq(pipe(outp), 0, "pipe: %s", strerror(errno));
	if (input != NULL) {
		size_t len = strlen(input);

		cr_assert_lt(len, 65536, "the input of %s must fit a pipe", path);
		cr_assert_eq(pipe(inp), 0, "pipe: %s", strerror(errno));
		cr_assert_eq(write(inp[1], input, len), (ssize_t)len);
		close(inp[1]);
	}
	parent = getpid();
	pid = fork();
	cr_assert_neq(pid, -1, "fork: %s", strerror(errno));
	if (pid == 0) {
		/* The binary dies with the test: a test that times out (Criterion
		 * kills its process) must not leave a forwarder running. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
			_exit(127);
		if (input != NULL) {
			dup2(inp[0], 0);
			close(inp[0]);
		}
		dup2(outp[1], 1);
		dup2(outp[1], 2);
		close(outp[0]);
		close(outp[1]);
		execv(path, argv);
		_exit(127);
	}
	if (input != NULL)
		close(inp[0]);
	close(outp[1]);
	*fd = outp[0];
	return pid;
}

bool binary_read_until(int fd, char *buf, size_t size, size_t *n, const char *want, int ms)
{
	uint64_t end = binary_now_ms() + (uint64_t)ms;

	buf[*n] = '\0';
	while (!(want != NULL && strstr(buf, want) != NULL) && binary_now_ms() < end && *n < size - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		r = read(fd, buf + *n, size - 1 - *n);
		if (r <= 0)
			break;
		*n += (size_t)r;
		buf[*n] = '\0';
	}
	return want != NULL && strstr(buf, want) != NULL;
}

int binary_telemetry_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char hello[256];

	cr_assert_geq(fd, 0, "socket: %s", strerror(errno));
	cr_assert_lt(strlen(path), sizeof(sun.sun_path));
	memcpy(sun.sun_path, path, strlen(path) + 1);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0, "connect %s: %s", path,
		     strerror(errno));
	cr_assert_eq(poll(&p, 1, 20000), 1, "%s: no hello", path);
	cr_assert_gt(recv(fd, hello, sizeof(hello), 0), 0);
	return fd;
}

const char *binary_telemetry_ask(int fd, const char *req, size_t len, char *buf, size_t size)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	cr_assert_eq(send(fd, req, len, 0), (ssize_t)len);
	cr_assert_eq(poll(&p, 1, 20000), 1, "%s: no answer", req);
	n = recv(fd, buf, size - 1, 0);
	cr_assert_gt(n, 0);
	buf[n] = '\0';
	return buf;
}

int binary_run_args(const char *var, const char *args, char *buf, size_t len)
{
	char cmd[1024];
	int n = snprintf(cmd, sizeof(cmd), "%s %s 2>&1", binary_path(var), args);

	cr_assert_lt(n, (int)sizeof(cmd), "command line too long: %s", args);
	return binary_run(cmd, buf, len);
}

static const char *json_value(const char *json, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	cr_assert_not_null(p, "%s not in %s", key, json);
	return p + strlen(k);
}

unsigned long long binary_json_u64(const char *json, const char *key)
{
	return strtoull(json_value(json, key), NULL, 10);
}

double binary_json_dbl(const char *json, const char *key)
{
	return strtod(json_value(json, key), NULL);
}
