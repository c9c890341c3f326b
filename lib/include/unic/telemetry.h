/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * Telemetry of a running application (lib/telemetry): a UNIX socket that
 * answers JSON requests about its ports, napi contexts, pools and CPU time,
 * and the application's own figures. docs/telemetry.md has the commands,
 * real answers and the client, unic-telemetry.
 *
 * The socket: SOCK_SEQPACKET, one request a message, one JSON answer a
 * message. On connect the server sends a hello,
 * {"version":"unic X.Y.Z","pid":N,"max_output_len":N}. A request is a
 * command and, after a comma, its parameter: "/ports/stats,0". "/" lists
 * the commands, "/help" gives a line of help for each ("/help,/ports/stats"
 * for one). An answer is {"COMMAND": VALUE}; a request that cannot be
 * answered gets {"error": "what was wrong"} and the connection stays open.
 *
 * Where: $XDG_RUNTIME_DIR/unic/PREFIX/ when XDG_RUNTIME_DIR is set, else
 * /run/unic/PREFIX/; the folders are made 0700, the socket 0600, owned by
 * the effective user. The first instance of a prefix listens on
 * telemetry.sock, a second one (its socket answers) on telemetry.1.sock and
 * so on; a socket left by a dead process (connect refused) is reclaimed.
 * A peer whose uid (SO_PEERCRED) is neither the owner's nor root's is
 * refused. The socket is removed by unic_telemetry_stop().
 *
 * Threads: the server runs on its own thread, which answers every request.
 * A client that neither sends nor reads never blocks it: answers are sent
 * without waiting (a client whose socket is full is dropped), idle clients
 * are dropped after idle_timeout_ms, and at most max_clients are served.
 *
 * Safety while the application forwards: the server reads counters (relaxed
 * atomic loads, unic/counter.h) and takes only control-path locks: a port's
 * lock (through a reference: a detached port answers an error, never freed
 * memory), the napi and pool registries' locks and a context's lock for the
 * microseconds a metrics getter holds them (unic_napi_ctx_foreach(),
 * unic_pool_foreach(): a context or pool is not freed while a request reads
 * it). The fast path takes none of them. An application's own command runs
 * on the server's thread: what it reads must stay valid until
 * unic_telemetry_stop() returns (stop telemetry before freeing it).
 */
#ifndef UNIC_TELEMETRY_H
#define UNIC_TELEMETRY_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <unic/common.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* the API, in a -fvisibility=hidden library */

struct unic_telemetry;
/** An answer being written (a command callback's output). */
struct unic_tel_out;

#define UNIC_TELEMETRY_PREFIX_DEFAULT "unic"  /**< prefix when none is given */
#define UNIC_TELEMETRY_CMD_MAX        56      /**< longest command name, bytes */
#define UNIC_TELEMETRY_REQ_MAX        1024    /**< longest request, bytes */
#define UNIC_TELEMETRY_OUT_DEFAULT    (64 * 1024) /**< max_output_len when 0 */
#define UNIC_TELEMETRY_CLIENTS_DEFAULT 16     /**< max_clients when 0 */
#define UNIC_TELEMETRY_IDLE_MS_DEFAULT 600000 /**< idle_timeout_ms when 0 (10 min) */
#define UNIC_TELEMETRY_INSTANCES_MAX  32      /**< instances of one prefix */
#define UNIC_TELEMETRY_CMDS_MAX       64      /**< commands, built-in ones included */

/** Options for unic_telemetry_start(). Zero-initialise, then set. */
struct unic_telemetry_conf {
	size_t sz;                  /**< sizeof(struct unic_telemetry_conf) */
	/** The instance's name (--file-prefix): letters, digits, '.', '_', '-';
	 *  NULL: "unic". */
	const char *prefix;
	/** The runtime directory to use instead of $XDG_RUNTIME_DIR or /run
	 *  (tests); the socket goes into RUNTIME_DIR/unic/PREFIX/. */
	const char *runtime_dir;
	uint32_t max_output_len;    /**< longest answer, bytes; 0: 64 KiB (at least 1024) */
	uint32_t max_clients;       /**< clients served at once; 0: 16 */
	uint32_t idle_timeout_ms;   /**< a client silent this long is dropped; 0: 10 min */
};

/**
 * Start the server: make the folders, bind the socket (with the instance
 * number the running ones leave free), and start its thread. The path is
 * logged at INFO and given by unic_telemetry_path().
 * @return the server, or NULL with errno: EINVAL (conf, prefix), EACCES or
 *         EPERM (the folder cannot be made or is another user's; the log
 *         says which and what to set), EADDRINUSE (every instance name is
 *         taken by a live process), or the errno of socket(), bind(),
 *         pthread_create().
 */
struct unic_telemetry *unic_telemetry_start(const struct unic_telemetry_conf *conf);

/**
 * Stop the thread, close every client, remove the socket. After it returns
 * no command callback runs. NULL is accepted.
 */
void unic_telemetry_stop(struct unic_telemetry *tel);

/** The socket's path. */
const char *unic_telemetry_path(const struct unic_telemetry *tel);

/** The instance number: 0 for telemetry.sock, N for telemetry.N.sock. */
unsigned unic_telemetry_instance(const struct unic_telemetry *tel);

/**
 * A command: write one JSON value into @p out (unic_tel_out_printf(),
 * unic_tel_out_str()). @p param is what followed the comma, or "" (never
 * NULL). Runs on the server's thread.
 * @return 0, or a negative errno: the client gets {"error":...} with
 *         unic_tel_out_error()'s message if one was set, else strerror.
 */
typedef int (*unic_telemetry_cb)(const char *cmd, const char *param, struct unic_tel_out *out,
				 void *arg);

/**
 * Add a command (from any thread, before or after start).
 * @p cmd starts with '/', then letters, digits, '_' and '/', at most
 * UNIC_TELEMETRY_CMD_MAX bytes; @p help is one line (copied).
 * @return 0, -EINVAL (bad name, cb NULL), -EEXIST (taken), -ENOSPC.
 */
int unic_telemetry_register(struct unic_telemetry *tel, const char *cmd, unic_telemetry_cb cb,
			    void *arg, const char *help);

/** Append to the answer, printf-style (JSON the caller formats). */
void unic_tel_out_printf(struct unic_tel_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/** Append @p s as a JSON string, quoted and escaped. */
void unic_tel_out_str(struct unic_tel_out *out, const char *s);
/** Set the error message a callback's negative return is answered with. */
void unic_tel_out_error(struct unic_tel_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif

#endif /* UNIC_TELEMETRY_H */
