/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running an application binary from a unit test: meson passes its path in
 * an environment variable (UNIC_L2FWD, UNIC_PKTGEN, ...); the test runs a
 * shell command line and reads what it prints. Criterion assertions: a
 * missing variable or a binary killed by a signal fails the test.
 */
#ifndef TESTS_COMMON_RUN_BINARY_H
#define TESTS_COMMON_RUN_BINARY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/** The path in environment variable @p var; fails the test when it is unset. */
const char *binary_path(const char *var);

/**
 * Run @p cmdline with sh (it does its own redirections, e.g. "2>&1") and
 * read its standard output into @p buf, at most @p len - 1 bytes, always
 * terminated. Fails the test when the command does not exit (a signal).
 * @return its exit status.
 */
int binary_run(const char *cmdline, char *buf, size_t len);

/* Runs the binary named by the environment variable @p var (binary_path)
 * with @p args, stderr merged into stdout; as binary_run. */
int binary_run_args(const char *var, const char *args, char *buf, size_t len);

/* The number after "KEY": in a JSON text (the first such key); the test
 * fails when the key is missing. */
unsigned long long binary_json_u64(const char *json, const char *key);
double binary_json_dbl(const char *json, const char *key);

/**
 * Read what a terminal (the master side of a pty, @p fd) shows for @p ms
 * milliseconds, appended to @p buf (of @p size bytes) at *@p n, which
 * grows; @p buf stays terminated.
 */
void binary_tty_read(int fd, char *buf, size_t size, size_t *n, int ms);

/**
 * Start @p path with arguments @p argv (argv[0] included, NULL-terminated)
 * in a child process whose stdout and stderr go to a pipe, for a test that
 * signals it while it runs. Its stdin is @p input when not NULL (at most
 * 64 KiB, written up front; the child sees EOF after it), else the test's.
 * @return the child's pid; *@p fd is the read end of its output (close it).
 */
pid_t binary_spawn(const char *path, char *const argv[], const char *input, int *fd);

/**
 * Read the output of a binary_spawn() child from @p fd into @p buf (of
 * @p size bytes) at *@p n, which grows, until @p want appears (NULL: until
 * EOF) or @p ms milliseconds pass; @p buf stays terminated.
 * @return whether @p want was seen.
 */
bool binary_read_until(int fd, char *buf, size_t size, size_t *n, const char *want, int ms);

/**
 * Connect to a running app's telemetry socket @p path (SOCK_SEQPACKET) and
 * take its hello (asserts, 20 s).
 * @return the connected fd.
 */
int binary_telemetry_connect(const char *path);

/**
 * Send request @p req (@p len bytes) on @p fd and take the one answer into
 * @p buf (NUL-terminated; asserts, 20 s).
 * @return @p buf.
 */
const char *binary_telemetry_ask(int fd, const char *req, size_t len, char *buf, size_t size);

#endif /* TESTS_COMMON_RUN_BINARY_H */
