/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's history file (apps/testpmd/history.c): the binary
 * (UNIC_TESTPMD) at a terminal with HOME pointing at a temporary directory,
 * and the ownership rule on its own. testpmd is often run as root: the
 * history file must never be a way to truncate or chmod another file.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "history.h"
#include "run_binary.h"

#define HAS(s, sub) cr_assert(strstr((s), (sub)) != NULL, "'%s' not in:\n%s", (sub), (s))
#define HASNT(s, sub) cr_assert(strstr((s), (sub)) == NULL, "'%s' unexpectedly in:\n%s", (sub), (s))

static char home[64], other[64], out[1 << 16];

static void rm_tree(const char *dir)
{
	char cmd[256];

	if (dir[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		cr_assert_eq(system(cmd), 0);
	}
}

static void setup(void)
{
	snprintf(home, sizeof(home), "/tmp/unic-test-home-XXXXXX");
	snprintf(other, sizeof(other), "/tmp/unic-test-other-XXXXXX");
	cr_assert_not_null(mkdtemp(home));
	cr_assert_not_null(mkdtemp(other));
}

static void teardown(void)
{
	rm_tree(home);
	rm_tree(other);
}

TestSuite(testpmd_history, .init = setup, .fini = teardown, .timeout = 60);

static void put(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	fputs(text, f);
	fclose(f);
	cr_assert_eq(chmod(path, mode), 0);
}

static const char *get(const char *path)
{
	static char buf[4096];
	size_t n = 0;
	FILE *f = fopen(path, "r");

	if (f != NULL) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	return buf;
}

/* Read what the terminal shows for @p ms milliseconds, appended to out. */
static void tty_read(int fd, size_t *n, int ms)
{
	binary_tty_read(fd, out, sizeof(out), n, ms);
}

/*
 * unic-testpmd at a terminal with HOME = @p h (NULL: unset), in directory
 * @p cwd: type @p keys, then quit. out holds what the terminal showed.
 */
static void session(const char *h, const char *cwd, const char *keys)
{
	const char *bin = binary_path("UNIC_TESTPMD");
	size_t n = 0;
	int fd, st;
	pid_t pid;

	pid = forkpty(&fd, NULL, NULL, NULL);
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		if (h != NULL)
			setenv("HOME", h, 1);
		else
			unsetenv("HOME");
		if (chdir(cwd) != 0)
			_exit(126);
		execl(bin, "unic-testpmd", "--no-huge", "--no-pci", "--vdev", "null0", (char *)NULL);
		_exit(127);
	}
	tty_read(fd, &n, 1500);
	HAS(out, "testpmd> ");
	cr_assert_eq(write(fd, keys, strlen(keys)), (ssize_t)strlen(keys));
	tty_read(fd, &n, 700);
	cr_assert_eq(write(fd, "quit\n", 5), 5);
	tty_read(fd, &n, 1500);
	HAS(out, "Bye...");
	close(fd);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %d:\n%s", st, out);
}

Test(testpmd_history, is_saved_and_recalled_in_the_next_session)
{
	char path[128];
	struct stat st;

	cr_assert_eq(chmod(home, 0700), 0);
	session(home, home, "show port info 0\n");
	snprintf(path, sizeof(path), "%s/%s", home, TP_HISTORY_FILE);
	cr_assert_eq(lstat(path, &st), 0, "the history file is made");
	cr_assert(S_ISREG(st.st_mode));
	cr_assert_eq(st.st_mode & 07777, 0600, "mode %o", st.st_mode & 07777);
	HAS(get(path), "show\\040port\\040info\\0400\n");
	HASNT(out, "no command history");

	/* Up arrow twice (past "quit"), Enter: the last session's command runs again. */
	session(home, home, "\033[A\033[A\n");
	HAS(out, "Infos for port 0");
}

Test(testpmd_history, a_symlink_at_the_history_path_is_not_followed)
{
	char link[128], victim[128], dangling[128];
	struct stat st;

	cr_assert_eq(chmod(home, 0700), 0);
	snprintf(victim, sizeof(victim), "%s/victim", other);
	put(victim, "precious\n", 0644);
	snprintf(link, sizeof(link), "%s/%s", home, TP_HISTORY_FILE);
	cr_assert_eq(symlink(victim, link), 0);
	session(home, home, "show port info 0\n");
	cr_assert_str_eq(get(victim), "precious\n", "the link's target is not truncated or written");
	cr_assert_eq(stat(victim, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644, "nor chmod-ed: mode %o", st.st_mode & 07777);
	HAS(out, "no command history kept: ");
	HAS(out, "is a symbolic link, which is not followed");

	/* A link to a file that does not exist yet is not followed either. */
	snprintf(dangling, sizeof(dangling), "%s/made", other);
	cr_assert_eq(unlink(link), 0);
	cr_assert_eq(symlink(dangling, link), 0);
	session(home, home, "show port info 0\n");
	cr_assert_neq(access(dangling, F_OK), 0, "nothing is made through the link");
}

Test(testpmd_history, without_home_no_history_is_kept_in_the_current_directory)
{
	char path[128];

	session(NULL, other, "show port info 0\n");
	snprintf(path, sizeof(path), "%s/%s", other, TP_HISTORY_FILE);
	cr_assert_neq(access(path, F_OK), 0, "no history file in the current directory");
	HAS(out, "no command history kept: HOME is not set");
}

Test(testpmd_history, a_home_of_someone_else_or_open_to_others_is_not_used)
{
	char path[128];

	cr_assert_eq(chmod(home, 0777), 0);
	session(home, home, "show port info 0\n");
	snprintf(path, sizeof(path), "%s/%s", home, TP_HISTORY_FILE);
	cr_assert_neq(access(path, F_OK), 0, "nothing made in a directory others can write");
	HAS(out, "is writable by its group or by others (mode 0777)");

	char why[512];

	cr_assert_eq(chmod(home, 0700), 0);
	cr_assert_eq(tp_history_open(home, geteuid() + 1, why, sizeof(why)), -EPERM);
	HAS(why, "belongs to uid");
	cr_assert_neq(access(path, F_OK), 0);
}

Test(testpmd_history, a_history_file_owned_by_someone_else_is_not_used)
{
	struct stat st = { .st_mode = S_IFREG | 0600, .st_uid = 4242, .st_nlink = 1 };
	char path[128], why[512];

	/* The rule itself, for any user. */
	cr_assert_eq(tp_history_check("/h/f", &st, false, 4243, why, sizeof(why)), -EPERM);
	HAS(why, "the history file (/h/f) belongs to uid 4242, not to the user running "
	    "unic-testpmd (uid 4243)");
	cr_assert_eq(tp_history_check("/h/f", &st, false, 4242, why, sizeof(why)), 0);
	st.st_nlink = 2;
	cr_assert_eq(tp_history_check("/h/f", &st, false, 4242, why, sizeof(why)), -EPERM);
	HAS(why, "has 2 hard links");
	st.st_mode = S_IFIFO | 0600;
	st.st_nlink = 1;
	cr_assert_eq(tp_history_check("/h/f", &st, false, 4242, why, sizeof(why)), -EPERM);
	HAS(why, "is not a regular file");

	/* And the binary, with a real file of someone else's (chown needs root). */
	cr_assert_eq(chmod(home, 0700), 0);
	snprintf(path, sizeof(path), "%s/%s", home, TP_HISTORY_FILE);
	put(path, "_HiStOrY_V2_\nshow\\040port\\040info\\0400\n", 0644);
	if (geteuid() != 0) {
		cr_log_warn("not root: the file-owner rule was checked on its own, not through the binary");
		return;
	}
	cr_assert_eq(chown(path, 65534, 65534), 0);
	session(home, home, "\033[A\nshow config fwd\n");
	HASNT(out, "Infos for port 0");
	HAS(out, "belongs to uid 65534");
	cr_assert_str_eq(get(path), "_HiStOrY_V2_\nshow\\040port\\040info\\0400\n",
			 "someone else's file is not rewritten");
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644);
	cr_assert_eq(st.st_uid, 65534);
}

Test(testpmd_history, a_hard_link_at_the_history_path_is_not_written)
{
	char path[128], victim[128];

	cr_assert_eq(chmod(home, 0700), 0);
	snprintf(victim, sizeof(victim), "%s/victim", other);
	put(victim, "precious\n", 0644);
	snprintf(path, sizeof(path), "%s/%s", home, TP_HISTORY_FILE);
	cr_assert_eq(link(victim, path), 0);
	session(home, home, "show port info 0\n");
	cr_assert_str_eq(get(victim), "precious\n");
	HAS(out, "has 2 hard links");
}
