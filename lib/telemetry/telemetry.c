/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The telemetry server: the runtime folder, the socket and its instance
 * name, the thread that answers, the command table. unic/telemetry.h has
 * the contract; docs/telemetry.md the protocol.
 *
 * One thread, one poll() over the listening socket, the clients and a stop
 * eventfd. Every client socket is non-blocking: a request is read whole
 * (SOCK_SEQPACKET keeps message boundaries; MSG_TRUNC tells the length of
 * one too long for the buffer), and an answer is sent with MSG_DONTWAIT: a
 * client that does not read fills its socket and is dropped, never waited
 * for.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <unic/log.h>
#include <unic/telemetry.h>
#include <unic/unic_config.h>

#include "tel_priv.h"
#include "unic_conf.h"

struct tel_cmd {
	char name[UNIC_TELEMETRY_CMD_MAX + 1];
	char help[128];
	unic_telemetry_cb cb;
	void *arg;
};

struct tel_client {
	int fd;                  /* -1: free */
	uint64_t last_ns;        /* last request (or the connect) */
};

struct unic_telemetry {
	struct unic_telemetry_conf conf;
	char prefix[UNIC_TELEMETRY_CMD_MAX + 16];
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	unsigned instance;
	int lfd;                 /* listening socket */
	int stop_fd;             /* eventfd: stop the thread */
	pthread_t thread;
	bool thread_started;
	uid_t owner;

	pthread_mutex_t lock;    /* the command table */
	struct tel_cmd cmds[UNIC_TELEMETRY_CMDS_MAX];
	unsigned nb_cmds;

	struct tel_client *clients; /* [max_clients] */
	char *out;               /* max_output_len + 1 */
	char *ans;               /* the framed answer: max_output_len + room for the key */
	size_t ans_cap;
};

static uint64_t tel_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the command table ------------------------------------------------------ */

int unic_telemetry_register(struct unic_telemetry *tel, const char *cmd, unic_telemetry_cb cb,
			    void *arg, const char *help)
{
	int rc = 0;

	if (tel == NULL || cmd == NULL || cb == NULL || !tel_cmd_valid(cmd)) {
		UNIC_LOG(ERR, TELEMETRY, "telemetry: cannot register command '%s': expected '/' then letters, digits, '_' and '/', up to %u bytes, and a callback",
			 cmd ? cmd : "(null)", UNIC_TELEMETRY_CMD_MAX);
		return -EINVAL;
	}
	pthread_mutex_lock(&tel->lock);
	for (unsigned i = 0; i < tel->nb_cmds; i++)
		if (strcmp(tel->cmds[i].name, cmd) == 0)
			rc = -EEXIST;
	if (rc == 0 && tel->nb_cmds == UNIC_TELEMETRY_CMDS_MAX)
		rc = -ENOSPC;
	if (rc == 0) {
		struct tel_cmd *c = &tel->cmds[tel->nb_cmds];

		snprintf(c->name, sizeof(c->name), "%s", cmd);
		snprintf(c->help, sizeof(c->help), "%s", help ? help : "");
		c->cb = cb;
		c->arg = arg;
		tel->nb_cmds++;
	}
	pthread_mutex_unlock(&tel->lock);
	if (rc == -EEXIST)
		UNIC_LOG(ERR, TELEMETRY, "telemetry: command %s is registered already", cmd);
	else if (rc == -ENOSPC)
		UNIC_LOG(ERR, TELEMETRY, "telemetry: cannot register %s: all %u command slots are taken",
			 cmd, UNIC_TELEMETRY_CMDS_MAX);
	return rc;
}

/* "/": the commands. "/help[,CMD]": their help. */
static int tel_cmd_list(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct unic_telemetry *tel = arg;
	bool help = strcmp(cmd, "/help") == 0, found = false, first = true;

	pthread_mutex_lock(&tel->lock);
	unic_tel_out_printf(out, help ? "{" : "[");
	for (unsigned i = 0; i < tel->nb_cmds; i++) {
		const struct tel_cmd *c = &tel->cmds[i];

		if (help && param[0] && strcmp(param, c->name) != 0)
			continue;
		found = true;
		unic_tel_out_printf(out, first ? "" : ",");
		first = false;
		unic_tel_out_str(out, c->name);
		if (help) {
			unic_tel_out_printf(out, ":");
			unic_tel_out_str(out, c->help);
		}
	}
	unic_tel_out_printf(out, help ? "}" : "]");
	pthread_mutex_unlock(&tel->lock);
	if (help && param[0] && !found) {
		unic_tel_out_error(out, "/help: no command '%.64s' ('/' lists them)", param);
		return -ENOENT;
	}
	return 0;
}

/* ---- answering ------------------------------------------------------------- */

/* Frame an error as {"error":"..."} into tel->ans. */
static size_t tel_error(struct unic_telemetry *tel, const char *msg)
{
	struct unic_tel_out o;

	tel_out_init(&o, tel->ans, tel->ans_cap);
	unic_tel_out_printf(&o, "{\"error\":");
	unic_tel_out_str(&o, msg);
	unic_tel_out_printf(&o, "}");
	return o.len;
}

/* Answer one request of @p len bytes into tel->ans. @return its length. */
static size_t tel_answer(struct unic_telemetry *tel, const char *req, size_t len)
{
	char cmd[UNIC_TELEMETRY_CMD_MAX + 1], param[UNIC_TELEMETRY_REQ_MAX + 1], err[320];
	struct unic_tel_out o, a;
	unic_telemetry_cb cb = NULL;
	void *arg = NULL;
	int rc;

	if (tel_parse(req, len, cmd, param, err, sizeof(err)) < 0)
		return tel_error(tel, err);
	pthread_mutex_lock(&tel->lock);
	for (unsigned i = 0; i < tel->nb_cmds; i++) {
		if (strcmp(tel->cmds[i].name, cmd) == 0) {
			cb = tel->cmds[i].cb;
			arg = tel->cmds[i].arg;
			break;
		}
	}
	pthread_mutex_unlock(&tel->lock);
	if (cb == NULL) {
		snprintf(err, sizeof(err), "unknown command '%s' ('/' lists them)", cmd);
		return tel_error(tel, err);
	}
	tel_out_init(&o, tel->out, (size_t)tel->conf.max_output_len + 1);
	rc = cb(cmd, param, &o, arg);
	if (rc < 0) {
		if (o.has_err)
			return tel_error(tel, o.err);
		snprintf(err, sizeof(err), "%s: %s", cmd, strerror(-rc));
		return tel_error(tel, err);
	}
	if (o.overflow || o.len == 0) {
		snprintf(err, sizeof(err), o.len == 0 && !o.overflow ?
			 "%s wrote no answer" : "the answer to %s is longer than max_output_len (%u bytes)",
			 cmd, tel->conf.max_output_len);
		return tel_error(tel, err);
	}
	tel_out_init(&a, tel->ans, tel->ans_cap);
	unic_tel_out_printf(&a, "{");
	unic_tel_out_str(&a, cmd);
	unic_tel_out_printf(&a, ":%s}", tel->out);
	if (a.overflow) {
		snprintf(err, sizeof(err), "the answer to %s is longer than max_output_len (%u bytes)",
			 cmd, tel->conf.max_output_len);
		return tel_error(tel, err);
	}
	return a.len;
}

static void tel_client_drop(struct tel_client *c)
{
	close(c->fd);
	c->fd = -1;
}

/* Send without waiting; a client that cannot take it is dropped. */
static void tel_send(struct tel_client *c, const char *buf, size_t len)
{
	if (send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len) {
		UNIC_LOG(DEBUG, TELEMETRY, "telemetry: client dropped: cannot send (%s)", strerror(errno));
		tel_client_drop(c);
	}
}

static void tel_accept(struct unic_telemetry *tel)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct tel_client *slot = NULL;
	char hello[160];
	int fd, n, sndbuf = (int)tel->ans_cap * 2;

	fd = accept4(tel->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0 ||
	    (cred.uid != tel->owner && cred.uid != 0)) {
		static const char refuse[] = "{\"error\":\"permission denied: this socket answers its owner and root only\"}";

		UNIC_LOG(WARNING, TELEMETRY, "telemetry: refused a client of uid %ld (pid %ld): only uid %ld and root may connect",
			 (long)cred.uid, (long)cred.pid, (long)tel->owner);
		send(fd, refuse, sizeof(refuse) - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
		close(fd);
		return;
	}
	for (uint32_t i = 0; i < tel->conf.max_clients; i++) {
		if (tel->clients[i].fd < 0) {
			slot = &tel->clients[i];
			break;
		}
	}
	if (slot == NULL) {
		n = snprintf(hello, sizeof(hello),
			     "{\"error\":\"too many clients: %u are connected; close one and retry\"}",
			     tel->conf.max_clients);
		send(fd, hello, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
		close(fd);
		return;
	}
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	slot->fd = fd;
	slot->last_ns = tel_now_ns();
	n = snprintf(hello, sizeof(hello), "{\"version\":\"unic %s\",\"pid\":%ld,\"max_output_len\":%u}",
		     UNIC_VERSION, (long)getpid(), tel->conf.max_output_len);
	tel_send(slot, hello, (size_t)n);
}

static void tel_serve(struct unic_telemetry *tel, struct tel_client *c)
{
	char req[UNIC_TELEMETRY_REQ_MAX + 1];
	char err[128];
	ssize_t n;
	size_t len;

	n = recv(c->fd, req, sizeof(req), MSG_TRUNC | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {           /* closed (0: a SEQPACKET EOF) or broken */
		tel_client_drop(c);
		return;
	}
	c->last_ns = tel_now_ns();
	if ((size_t)n > UNIC_TELEMETRY_REQ_MAX) {
		snprintf(err, sizeof(err), "request of %zd bytes; the limit is %u", n,
			 UNIC_TELEMETRY_REQ_MAX);
		len = tel_error(tel, err);
	} else {
		len = tel_answer(tel, req, (size_t)n);
	}
	tel_send(c, tel->ans, len);
}

static void *tel_thread(void *arg)
{
	struct unic_telemetry *tel = arg;
	uint32_t nc = tel->conf.max_clients;
	struct pollfd *pfd = calloc(nc + 2, sizeof(*pfd));

	if (pfd == NULL) {
		UNIC_LOG(ERR, TELEMETRY, "telemetry: out of memory; the server stops");
		return NULL;
	}
	pthread_setname_np(pthread_self(), "unic-telemetry");
	for (;;) {
		uint64_t now, idle = (uint64_t)tel->conf.idle_timeout_ms * 1000000ull;
		int n;

		pfd[0] = (struct pollfd){ .fd = tel->stop_fd, .events = POLLIN };
		pfd[1] = (struct pollfd){ .fd = tel->lfd, .events = POLLIN };
		for (uint32_t i = 0; i < nc; i++)
			pfd[2 + i] = (struct pollfd){ .fd = tel->clients[i].fd, .events = POLLIN };
		/* Wake at least once a second to drop idle clients. */
		n = poll(pfd, nc + 2, 1000);
		if (n < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		for (uint32_t i = 0; n > 0 && i < nc; i++) {
			struct tel_client *c = &tel->clients[i];

			if (c->fd < 0 || pfd[2 + i].revents == 0)
				continue;
			if (pfd[2 + i].revents & POLLIN)
				tel_serve(tel, c);
			else    /* POLLHUP, POLLERR without data */
				tel_client_drop(c);
		}
		if (n > 0 && (pfd[1].revents & POLLIN))
			tel_accept(tel);
		now = tel_now_ns();
		for (uint32_t i = 0; i < nc; i++) {
			struct tel_client *c = &tel->clients[i];

			if (c->fd >= 0 && now - c->last_ns > idle) {
				UNIC_LOG(DEBUG, TELEMETRY, "telemetry: client dropped: idle for %u ms",
					 tel->conf.idle_timeout_ms);
				tel_client_drop(c);
			}
		}
	}
	free(pfd);
	return NULL;
}

/* ---- the folder and the socket ------------------------------------------------ */

/* Make @p dir (0700) unless it exists; check it is ours, a folder, 0700. */
static int tel_mkdir(const char *dir, uid_t owner)
{
	struct stat st;

	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int err = errno;

		UNIC_LOG(ERR, TELEMETRY, "telemetry: cannot make folder %s: %s; set XDG_RUNTIME_DIR to a folder of yours, or run without --telemetry",
			 dir, strerror(err));
		return -err;
	}
	if (lstat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != owner) {
		UNIC_LOG(ERR, TELEMETRY, "telemetry: %s is %s of uid %ld, not a folder of uid %ld: remove it or use another --file-prefix",
			 dir, S_ISDIR(st.st_mode) ? "a folder" : "not a folder", (long)st.st_uid, (long)owner);
		return -EPERM;
	}
	if ((st.st_mode & 0777) != 0700 && chmod(dir, 0700) < 0)
		return -errno;
	return 0;
}

static int tel_dirs(struct unic_telemetry *tel)
{
	const char *base = tel->conf.runtime_dir;
	char top[sizeof(tel->dir)];
	int rc;

	if (base == NULL)
		base = getenv("XDG_RUNTIME_DIR");
	if (base == NULL || base[0] == '\0')
		base = "/run";
	if ((size_t)snprintf(top, sizeof(top), "%s/unic", base) >= sizeof(top) ||
	    (size_t)snprintf(tel->dir, sizeof(tel->dir), "%s/%s", top, tel->prefix) + 24 >= sizeof(tel->dir)) {
		UNIC_LOG(ERR, TELEMETRY, "telemetry: runtime folder %s/unic/%s is too long for a socket path (%zu bytes)",
			 base, tel->prefix, sizeof(tel->dir));
		return -ENAMETOOLONG;
	}
	rc = tel_mkdir(top, tel->owner);
	if (rc == 0)
		rc = tel_mkdir(tel->dir, tel->owner);
	return rc;
}

/* Is something listening on @p path? 1 yes, 0 no (refused: stale), -errno. */
static int tel_probe(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0), rc;

	if (fd < 0)
		return -errno;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	rc = rc == 0 ? 1 : (errno == ECONNREFUSED || errno == ENOENT) ? 0 : -errno;
	close(fd);
	return rc;
}

static int tel_bind_names(struct unic_telemetry *tel);

/*
 * Choose the name under a lock on the folder's telemetry.lock: two
 * instances starting at once could otherwise both take a stale socket for
 * theirs, the second unlinking the first's fresh one.
 */
static int tel_bind(struct unic_telemetry *tel)
{
	char lock[sizeof(tel->dir) + 16];
	int lfd, rc;

	if ((size_t)snprintf(lock, sizeof(lock), "%s/telemetry.lock", tel->dir) >= sizeof(lock))
		return -ENAMETOOLONG;
	lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (lfd >= 0)
		flock(lfd, LOCK_EX);
	rc = tel_bind_names(tel);
	if (lfd >= 0)
		close(lfd);     /* releases the lock; the file stays, empty */
	return rc;
}

static int tel_bind_names(struct unic_telemetry *tel)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int rc;

	tel->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (tel->lfd < 0)
		return -errno;
	for (unsigned i = 0; i < UNIC_TELEMETRY_INSTANCES_MAX; i++) {
		int len = i == 0 ?
			  snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/telemetry.sock", tel->dir) :
			  snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/telemetry.%u.sock", tel->dir, i);

		if (len < 0 || (size_t)len >= sizeof(sun.sun_path))
			return -ENAMETOOLONG;    /* tel_dirs() left room: not reached */
		if (bind(tel->lfd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
			if (errno != EADDRINUSE)
				return -errno;
			rc = tel_probe(sun.sun_path);
			if (rc != 0)
				continue;    /* a live instance (or unknown): the next name */
			UNIC_LOG(INFO, TELEMETRY, "telemetry: %s was left by a process that is gone: reclaimed",
				 sun.sun_path);
			unlink(sun.sun_path);
			if (bind(tel->lfd, (struct sockaddr *)&sun, sizeof(sun)) < 0)
				continue;    /* someone else took it meanwhile */
		}
		if (chmod(sun.sun_path, 0600) < 0 || listen(tel->lfd, 16) < 0) {
			rc = -errno;
			unlink(sun.sun_path);
			return rc;
		}
		snprintf(tel->path, sizeof(tel->path), "%s", sun.sun_path);
		tel->instance = i;
		if (i > 0)
			UNIC_LOG(NOTICE, TELEMETRY, "telemetry: %u other instance%s of prefix %s run%s: this one is %s",
				 i, i == 1 ? "" : "s", tel->prefix, i == 1 ? "s" : "", tel->path);
		return 0;
	}
	UNIC_LOG(ERR, TELEMETRY, "telemetry: %u instances of prefix %s run already (%s/telemetry*.sock); give this one another --file-prefix",
		 UNIC_TELEMETRY_INSTANCES_MAX, tel->prefix, tel->dir);
	return -EADDRINUSE;
}

/* ---- start and stop ----------------------------------------------------------- */

void unic_telemetry_stop(struct unic_telemetry *tel)
{
	if (tel == NULL)
		return;
	if (tel->thread_started) {
		uint64_t one = 1;

		if (write(tel->stop_fd, &one, sizeof(one)) != sizeof(one))
			UNIC_LOG(WARNING, TELEMETRY, "telemetry: cannot signal the thread to stop: %s",
				 strerror(errno));
		pthread_join(tel->thread, NULL);
	}
	for (uint32_t i = 0; tel->clients && i < tel->conf.max_clients; i++)
		if (tel->clients[i].fd >= 0)
			close(tel->clients[i].fd);
	if (tel->lfd >= 0) {
		close(tel->lfd);
		if (tel->path[0])
			unlink(tel->path);
	}
	if (tel->stop_fd >= 0)
		close(tel->stop_fd);
	pthread_mutex_destroy(&tel->lock);
	free(tel->clients);
	free(tel->out);
	free(tel->ans);
	free(tel);
}

struct unic_telemetry *unic_telemetry_start(const struct unic_telemetry_conf *conf)
{
	struct unic_telemetry *tel;
	struct unic_telemetry_conf c;
	const char *prefix;
	int rc;

	if (unic_conf_copy(&c, sizeof(c), conf) < 0) {
		UNIC_LOG(ERR, TELEMETRY, "telemetry: conf missing, or .sz %zu not in %zu..%zu: set .sz = sizeof(struct unic_telemetry_conf)",
			 conf ? conf->sz : 0, sizeof(size_t), sizeof(c));
		errno = EINVAL;
		return NULL;
	}
	prefix = c.prefix ? c.prefix : UNIC_TELEMETRY_PREFIX_DEFAULT;
	bool ok = prefix[0] && strlen(prefix) <= 64 && strcmp(prefix, ".") && strcmp(prefix, "..");

	for (const char *p = prefix; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		     *p == '.' || *p == '_' || *p == '-';
	if (!ok) {
		UNIC_LOG(ERR, TELEMETRY, "telemetry: bad prefix '%s'; expected up to 64 letters, digits, '.', '_' or '-'",
			 prefix);
		errno = EINVAL;
		return NULL;
	}
	if (c.max_output_len == 0)
		c.max_output_len = UNIC_TELEMETRY_OUT_DEFAULT;
	if (c.max_output_len < 1024)
		c.max_output_len = 1024;
	if (c.max_clients == 0)
		c.max_clients = UNIC_TELEMETRY_CLIENTS_DEFAULT;
	if (c.idle_timeout_ms == 0)
		c.idle_timeout_ms = UNIC_TELEMETRY_IDLE_MS_DEFAULT;
	c.prefix = NULL;         /* the caller's strings are not kept */

	tel = calloc(1, sizeof(*tel));
	if (tel == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	tel->lfd = tel->stop_fd = -1;
	pthread_mutex_init(&tel->lock, NULL);
	tel->conf = c;
	snprintf(tel->prefix, sizeof(tel->prefix), "%s", prefix);
	tel->owner = geteuid();
	tel->ans_cap = (size_t)c.max_output_len + UNIC_TELEMETRY_CMD_MAX + 16;
	tel->clients = calloc(c.max_clients, sizeof(*tel->clients));
	tel->out = malloc((size_t)c.max_output_len + 1);
	tel->ans = malloc(tel->ans_cap);
	if (tel->clients == NULL || tel->out == NULL || tel->ans == NULL) {
		rc = -ENOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < c.max_clients; i++)
		tel->clients[i].fd = -1;
	rc = tel_dirs(tel);
	if (rc < 0)
		goto fail;
	tel->conf.runtime_dir = NULL;
	rc = tel_bind(tel);
	if (rc < 0) {
		if (rc != -EADDRINUSE)
			UNIC_LOG(ERR, TELEMETRY, "telemetry: cannot listen in %s: %s", tel->dir,
				 strerror(-rc));
		goto fail;
	}
	if (unic_telemetry_register(tel, "/", tel_cmd_list, tel, "the commands") < 0 ||
	    unic_telemetry_register(tel, "/help", tel_cmd_list, tel,
				    "a line of help for each command, or for one: /help,/ports/stats") < 0 ||
	    tel_cmds_register(tel) < 0) {
		rc = -ENOMEM;
		goto fail;
	}
	tel->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (tel->stop_fd < 0) {
		rc = -errno;
		goto fail;
	}
	rc = -pthread_create(&tel->thread, NULL, tel_thread, tel);
	if (rc < 0) {
		UNIC_LOG(ERR, TELEMETRY, "telemetry: cannot start its thread: %s", strerror(-rc));
		goto fail;
	}
	tel->thread_started = true;
	UNIC_LOG(DEBUG, TELEMETRY, "telemetry: listening on %s", tel->path);
	return tel;

fail:
	unic_telemetry_stop(tel);
	errno = -rc;
	return NULL;
}

const char *unic_telemetry_path(const struct unic_telemetry *tel)
{
	return tel->path;
}

unsigned unic_telemetry_instance(const struct unic_telemetry *tel)
{
	return tel->instance;
}
