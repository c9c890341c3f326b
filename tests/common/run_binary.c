/* SPDX-License-Identifier: BSD-3-Clause */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

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
