/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The history file, opened once with O_NOFOLLOW and checked with fstat;
 * everything after works on that descriptor, never on the path again, so
 * a link planted between a check and a use cannot redirect it.
 *
 * libedit reads and writes history through paths (read_history,
 * history(H_SAVE)) except for H_SAVE_FP, which takes a stream: saving
 * copies the readline list into a History of our own and saves it through
 * a stream on our descriptor. Loading has no stream form; it reads
 * /proc/self/fd/N, which is our open file itself, not a path lookup that a
 * link could divert.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>
#include <histedit.h>

#include "history.h"

int tp_history_check(const char *path, const struct stat *st, bool dir, uid_t uid, char *why,
		     size_t whylen)
{
	const char *what = dir ? "HOME" : "the history file";

	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		snprintf(why, whylen, "%s (%s) is not a %s", what, path, dir ? "directory" : "regular file");
	else if (st->st_uid != uid)
		snprintf(why, whylen, "%s (%s) belongs to uid %u, not to the user running unic-testpmd "
			 "(uid %u)", what, path, (unsigned)st->st_uid, (unsigned)uid);
	else if (dir && (st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
		snprintf(why, whylen, "HOME (%s) is writable by its group or by others (mode %04o)",
			 path, (unsigned)(st->st_mode & 07777));
	else if (!dir && st->st_nlink != 1)
		snprintf(why, whylen, "the history file (%s) has %u hard links; it should have one",
			 path, (unsigned)st->st_nlink);
	else
		return 0;
	return -EPERM;
}

int tp_history_open(const char *home, uid_t uid, char *why, size_t whylen)
{
	char path[4096];
	struct stat st;
	int dfd, fd, err;

	if (home == NULL || home[0] == '\0') {
		snprintf(why, whylen, "HOME is not set");
		return -ENOENT;
	}
	dfd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0 || fstat(dfd, &st) < 0) {
		err = errno;
		snprintf(why, whylen, "cannot open HOME (%s): %s", home, strerror(err));
		if (dfd >= 0)
			close(dfd);
		return -err;
	}
	err = tp_history_check(home, &st, true, uid, why, whylen);
	if (err < 0) {
		close(dfd);
		return err;
	}
	snprintf(path, sizeof(path), "%s/%s", home, TP_HISTORY_FILE);
	fd = openat(dfd, TP_HISTORY_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
		    O_CLOEXEC, 0600);
	err = errno;
	close(dfd);
	if (fd < 0) {
		snprintf(why, whylen, "%s %s", path,
			 err == ELOOP ? "is a symbolic link, which is not followed" : strerror(err));
		return -err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		snprintf(why, whylen, "%s: %s", path, strerror(-err));
	} else {
		err = tp_history_check(path, &st, false, uid, why, whylen);
	}
	if (err < 0) {
		close(fd);
		return err;
	}
	return fd;
}

int tp_history_load(int fd)
{
	char path[64];
	struct stat st;
	int rc;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size == 0)
		return 0; /* just made: nothing to load */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rc = read_history(path);
	return rc == 0 ? 0 : -(rc > 0 ? rc : EINVAL);
}

int tp_history_save(int fd)
{
	History *h;
	HistEvent ev;
	FILE *f;
	int wfd, rc, err;

	h = history_init();
	if (h == NULL)
		return -ENOMEM;
	history(h, &ev, H_SETSIZE, TP_HISTORY_MAX);
	for (int i = 0; i < history_length; i++) {
		HIST_ENTRY *e = history_get(history_base + i);

		if (e != NULL && e->line != NULL)
			history(h, &ev, H_ENTER, e->line);
	}
	wfd = dup(fd);
	if (wfd < 0 || lseek(wfd, 0, SEEK_SET) < 0 || ftruncate(wfd, 0) < 0 ||
	    (f = fdopen(wfd, "w")) == NULL) {
		err = errno;
		if (wfd >= 0)
			close(wfd);
		history_end(h);
		return -err;
	}
	/* H_SAVE_FP also sets the mode to 0600, on this stream's file. */
	rc = history(h, &ev, H_SAVE_FP, f);
	err = errno;
	if (fclose(f) != 0 && rc >= 0) {
		rc = -1;
		err = errno;
	}
	history_end(h);
	return rc >= 0 ? rc : -(err ? err : EIO);
}
