/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd's command history file, ~/.unic_testpmd_history, opened so
 * that it cannot be turned against the user who runs testpmd (often root):
 * no symbolic link is followed, no file of someone else's is read or
 * written. docs/testpmd.md, "History".
 */
#ifndef TP_HISTORY_H
#define TP_HISTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#define TP_HISTORY_FILE ".unic_testpmd_history"
#define TP_HISTORY_MAX  1000 /* lines kept in the file */

/**
 * Open (creating it, mode 0600) TP_HISTORY_FILE in @p home for the user
 * @p uid (the effective user). @p home must be set, a directory owned by
 * @p uid and not writable by its group or others; the file must not be a
 * symbolic link (O_NOFOLLOW), must be a regular file owned by @p uid with
 * one link.
 * @return the file's descriptor, or a negative errno with @p why saying
 * why there is no history (-ENOENT: HOME is not set).
 */
int tp_history_open(const char *home, uid_t uid, char *why, size_t whylen);

/**
 * The rule for @p st, the HOME directory (@p dir) or the history file at
 * @p path: a directory owned by @p uid and not writable by group or others;
 * a regular file owned by @p uid with one link. @return 0 or -EPERM with
 * @p why set.
 */
int tp_history_check(const char *path, const struct stat *st, bool dir, uid_t uid, char *why,
		     size_t whylen);

/** Load the history in @p fd into libedit's list. @return 0 or -errno. */
int tp_history_load(int fd);

/**
 * Replace the contents of @p fd with libedit's list (its last
 * TP_HISTORY_MAX lines). @return the lines written or -errno.
 */
int tp_history_save(int fd);

#endif /* TP_HISTORY_H */
