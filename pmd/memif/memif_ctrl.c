/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif port's control thread: the UNIX socket (listen and accept as a
 * server; connect, and retry every second, as a client), the handshake
 * (memif_msg.c checks every message), bringing the queues up once connected
 * and down when the connection ends, and the log lines a user reads when it
 * does not connect. One thread per started port; the port's stop joins it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/membarrier.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "memif_priv.h"

static uint64_t memif_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static socklen_t memif_addr(const struct memif_port *mp, struct sockaddr_un *sa)
{
	size_t len = strlen(mp->socket);

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (mp->abstract) {
		/* Abstract: a leading NUL, then the name (no file). */
		memcpy(sa->sun_path + 1, mp->socket, len);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
	}
	memcpy(sa->sun_path, mp->socket, len);
	return (socklen_t)sizeof(*sa);
}

static const char *memif_kind(const struct memif_port *mp)
{
	return mp->abstract ? "abstract socket" : "socket";
}

int memif_listen(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);
	struct sockaddr_un sa;
	socklen_t len = memif_addr(mp, &sa);
	int fd, err;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		err = errno;
		UNIC_PORT_LOG(port, ERR, "socket(AF_UNIX, SOCK_SEQPACKET): %s", strerror(err));
		return -err;
	}
	if (bind(fd, (struct sockaddr *)&sa, len) != 0) {
		err = errno;
		if (err == EADDRINUSE) {
			int probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
			bool alive = probe >= 0 && connect(probe, (struct sockaddr *)&sa, len) == 0;

			if (probe >= 0)
				close(probe);
			if (alive || mp->abstract)
				UNIC_PORT_LOG(port, ERR, "memif %s '%s' is taken: another memif server "
					      "(another process, or another port of this one) listens "
					      "on it; give this port another socket=, or stop that server",
					      memif_kind(mp), mp->socket);
			else
				UNIC_PORT_LOG(port, ERR, "memif socket '%s' exists but nobody listens "
					      "on it (left over by a process that ended); remove it "
					      "(rm %s) and create the port again", mp->socket, mp->socket);
		} else if (err == ENOENT) {
			UNIC_PORT_LOG(port, ERR, "memif socket '%s': its directory does not exist; "
				      "create it (mkdir -p) or choose another socket=", mp->socket);
		} else {
			UNIC_PORT_LOG(port, ERR, "memif %s '%s': bind: %s%s", memif_kind(mp),
				      mp->socket, strerror(err),
				      err == EACCES ? "; choose a socket= in a directory you may write" : "");
		}
		close(fd);
		return -err;
	}
	if (listen(fd, 4) != 0) {
		err = errno;
		UNIC_PORT_LOG(port, ERR, "memif socket '%s': listen: %s", mp->socket, strerror(err));
		close(fd);
		if (!mp->abstract)
			unlink(mp->socket);
		return -err;
	}
	mp->listen_fd = fd;
	mp->unlink_at_close = !mp->abstract;
	return 0;
}

/* Log a connection failure once while it repeats (a client retries every
 * second); a different message, or a success, logs again. */
static void UNIC_PRINTF(3, 4) memif_log_fail(struct unic_port *port, int level, const char *fmt, ...)
{
	struct memif_port *mp = memif_priv(port);
	char buf[512];
	uint32_t h = 2166136261u;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	for (const char *s = buf; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	if (mp->warned && mp->last_err == (int)h)
		return;
	mp->warned = true;
	mp->last_err = (int)h;
	if (level <= port->msglevel)
		unic_log((enum unic_log_level)level, UNIC_LOGC_PMD, "%s: %s", port->name, buf);
}

static int memif_send(struct memif_port *mp, const struct memif_msg *m, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = (void *)(uintptr_t)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *cm;

		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	/* Non-blocking: a peer that does not read its socket cannot stall us. */
	n = sendmsg(mp->conn_fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	return n == (ssize_t)sizeof(*m) ? 0 : -(n < 0 ? errno : EIO);
}

/* ---- queues up and down ------------------------------------------------- */

static void memif_queue_up(struct memif_port *mp, struct memif_queue *q, bool rx, uint16_t idx)
{
	struct memif_conn *c = &mp->conn;
	bool client = mp->cfg.role == MEMIF_CLIENT;
	unsigned dir = (rx == client) ? 1 : 0;  /* client rx and server tx: S2C */
	uint16_t nb = dir ? c->nb_s2c : c->nb_c2s;
	const struct memif_ring_desc *rd = &c->rings[dir][idx];
	struct memif_ring *ring;

	if (idx >= nb)
		return;
	ring = memif_conn_ring(c, dir, idx);
	q->we_own_head = client;
	q->size = (uint16_t)(1u << rd->log2);
	q->mask = (uint16_t)(q->size - 1);
	q->last = 0;
	q->own = 0;
	q->tx_free = 0;
	q->regions = c->regions;
	q->nb_regions = c->nb_regions;
	q->bsize = c->cfg.bsize;
	q->buf_off = c->buf_off + (uint32_t)((dir ? c->nb_c2s + idx : idx) * ((uint64_t)q->bsize << rd->log2));
	q->efd = rx ? -1 : rd->efd;
	q->wake_fd = mp->wake_fd;
	unic_store_relaxed(&q->broken, 0);
	/* Both sides start a connection at 0, as the protocol's peers do. */
	unic_store_relaxed(&ring->head, 0);
	unic_store_relaxed(&ring->tail, 0);
	if (rx) {
		struct epoll_event ev = { .events = EPOLLIN };

		/* The ring's eventfd joins the queue's stable interrupt fd: napi
		 * keeps waiting on one fd across reconnects. */
		if (q->intr_epfd >= 0 && rd->efd >= 0 &&
		    epoll_ctl(q->intr_epfd, EPOLL_CTL_ADD, rd->efd, &ev) == 0)
			q->intr_member = rd->efd;
		unic_store_relaxed(&ring->flags,
				   unic_load_relaxed(&q->intr_enabled) ? 0 : MEMIF_RING_FLAG_MASK_INT);
		if (client && q->zc) {
			/* Zero-copy: lend a pool packet in every slot (memif_zc.c). */
			if (memif_zc_queue_up(q, ring, true) < 0)
				return; /* not published; memif_zc.c said why */
		} else if (client) {
			/* Hand the server every buffer before the ring goes live:
			 * a sleeping poller would not refill it. */
			for (uint16_t s = 0; s < q->size; s++) {
				ring->desc[s].flags = 0;
				ring->desc[s].region = 0;
				ring->desc[s].offset = q->buf_off + (uint32_t)s * q->bsize;
				ring->desc[s].length = q->bsize;
			}
			q->own = q->size;
			unic_store_release(&ring->head, q->own);
		}
	}
	if (!rx && q->zc && memif_zc_queue_up(q, ring, false) < 0)
		return;
	unic_store_release(&q->ring, ring);
	unic_smp_mb(); /* pairs with memif_rx_intr_enable's (B1): one sees the other */
	if (rx && unic_load_relaxed(&q->intr_enabled))
		__atomic_and_fetch(&ring->flags, (uint16_t)~MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
}

/* The frames the peer had put in an rx ring that the queue never read: a
 * connection that ends takes them with it (the memory is the client's),
 * so they are counted, not lost silently. The ring is still mapped and
 * the queue's thread is out. Counted by descriptors that end a frame; an
 * index the peer broke counts nothing (the ring was already refused). */
static void memif_count_left(struct memif_queue *q, struct memif_ring *ring)
{
	uint16_t prod, avail, max_avail, frames = 0;

	if (q->we_own_head) {
		prod = unic_load_acquire(&ring->tail);
		max_avail = (uint16_t)(q->own - q->last);
	} else {
		prod = unic_load_acquire(&ring->head);
		max_avail = q->size;
	}
	avail = (uint16_t)(prod - q->last);
	if (avail > max_avail || unic_load_relaxed(&q->broken))
		return;
	for (uint16_t i = 0; i < avail; i++) {
		uint16_t fl = unic_load_relaxed(&ring->desc[(uint16_t)(q->last + i) & q->mask].flags);

		if (!(fl & MEMIF_DESC_FLAG_NEXT))
			frames++;
	}
	if (frames)
		unic_counter_add(&q->lost_at_down, frames);
}

static void memif_queue_down(struct memif_queue *q, bool rx)
{
	struct memif_ring *ring = q->ring;

	if (ring == NULL && q->intr_member < 0)
		return;
	unic_store_relaxed(&q->ring, NULL);
	/* (B2): pairs with (B1) in memif_rxtx.c. membarrier() runs a full
	 * fence on every running thread of the process (and returns after
	 * it), so a fast path that entered without one is covered; it fails
	 * only if no thread ever registered, and then every entry fences. */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		unic_smp_mb();
	while (unic_load_acquire(&q->busy))
		sched_yield();
	if (rx && ring != NULL)
		memif_count_left(q, ring);
	if (q->zc)
		memif_zc_queue_down(q); /* the packets it lent or sent: ours again */
	if (q->intr_member >= 0 && q->intr_epfd >= 0)
		epoll_ctl(q->intr_epfd, EPOLL_CTL_DEL, q->intr_member, NULL);
	q->intr_member = -1;
	q->efd = -1;
	q->regions = NULL;
	q->nb_regions = 0;
}

static void memif_up(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);
	struct memif_conn *c = &mp->conn;
	uint16_t q;

	for (q = 0; q < mp->cfg.nb_rxq; q++)
		memif_queue_up(mp, &mp->rxq[q], true, q);
	for (q = 0; q < mp->cfg.nb_txq; q++)
		memif_queue_up(mp, &mp->txq[q], false, q);
	__atomic_fetch_add(&mp->connects, 1, __ATOMIC_RELAXED);
	unic_store_release(&mp->link_up, 1);
	mp->warned = false;
	UNIC_PORT_LOG(port, INFO, "memif connected (%s, id %u) to '%s' interface '%s': %u C2S and "
		      "%u S2C rings", mp->cfg.role == MEMIF_SERVER ? "server" : "client",
		      mp->cfg.id, c->peer_name, c->peer_if, c->nb_c2s, c->nb_s2c);
	unic_port_event_post(port, UNIC_EVENT_LINK);
}

/* Read what the peer sent and we will not handle (closing the fds it
 * passed), so that our close is an orderly end and not a reset that hides
 * our DISCONNECT from the peer. */
static void memif_drain(int fd)
{
	for (int i = 0; i < 64; i++) {
		char ctl[CMSG_SPACE(4 * sizeof(int))];
		struct memif_msg m;
		struct iovec iov = { .iov_base = &m, .iov_len = sizeof(m) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
				     .msg_controllen = sizeof(ctl) };

		if (recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) <= 0)
			return;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
				for (size_t k = 0; k < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++) {
					int f;

					memcpy(&f, CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
					close(f);
				}
	}
}

/* End the connection: queues unpublished (and waited for), then unmapped
 * and closed. @p reason (NULL: none) goes to the peer in a DISCONNECT. */
static void memif_down(struct unic_port *port, const char *reason)
{
	struct memif_port *mp = memif_priv(port);
	bool was_up = mp->conn.state == MEMIF_C_UP;
	uint16_t q;

	for (q = 0; q < MEMIF_MAX_QUEUES; q++) {
		memif_queue_down(&mp->rxq[q], true);
		memif_queue_down(&mp->txq[q], false);
	}
	if (mp->conn_fd >= 0) {
		if (reason != NULL) {
			struct memif_msg m;

			memif_msg_disconnect(&m, reason);
			(void)memif_send(mp, &m, -1);
		}
		memif_drain(mp->conn_fd);
		close(mp->conn_fd);
		mp->conn_fd = -1;
	}
	memif_conn_reset(&mp->conn);
	mp->state_since_ms = memif_now_ms();
	if (was_up) {
		__atomic_fetch_add(&mp->disconnects, 1, __ATOMIC_RELAXED);
		unic_store_release(&mp->link_up, 0);
		unic_port_event_post(port, UNIC_EVENT_LINK);
	}
}

/* ---- the connection ------------------------------------------------------ */

static void memif_peer_gone(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);
	const char *r = mp->conn.peer_reason;
	bool client = mp->cfg.role == MEMIF_CLIENT;

	if (strstr(r, "ID not found") != NULL)
		memif_log_fail(port, UNIC_LOG_ERR, "the memif server on %s '%s' has no interface "
			       "with id=%u (it said: %s); start this port with the server's id=, "
			       "or give the server an interface with id=%u", memif_kind(mp),
			       mp->socket, mp->cfg.id, r, mp->cfg.id);
	else if (strstr(r, "ecret") != NULL)
		memif_log_fail(port, UNIC_LOG_ERR, "the memif server refused this port's secret "
			       "(it said: %s); give both sides the same secret=", r);
	else if (strstr(r, "lready connected") != NULL)
		memif_log_fail(port, UNIC_LOG_ERR, "the memif server's interface id=%u already "
			       "has a client (it said: %s); one client per id: use another id= "
			       "on both sides, or stop the other client", mp->cfg.id, r);
	else
		memif_log_fail(port, mp->conn.state == MEMIF_C_UP ? UNIC_LOG_NOTICE : UNIC_LOG_ERR,
			       "memif peer disconnected%s%s%s; link down, %s", r[0] ? " (it said: " : "",
			       r, r[0] ? ")" : "",
			       client ? "reconnecting every second" : "waiting for a client");
	memif_down(port, NULL);
}

static void memif_handle_input(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);
	char ctl[CMSG_SPACE(4 * sizeof(int))];
	uint8_t buf[MEMIF_MSG_SIZE + 1];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			     .msg_controllen = sizeof(ctl) };
	struct memif_msg reply, msgs[3 + 3 * MEMIF_MAX_QUEUES];
	int fds[3 + 3 * MEMIF_MAX_QUEUES];
	int fd = -1, rc, nmsg;
	ssize_t n;

	n = recvmsg(mp->conn_fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && errno == ECONNRESET) {
		/* A peer that closed with our messages unread: the socket
		 * reports the reset before the messages the peer sent first
		 * (its DISCONNECT and reason); the error is consumed, read on. */
		mh.msg_controllen = sizeof(ctl);
		n = recvmsg(mp->conn_fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		if (n < 0 && errno == EAGAIN)
			n = 0;
	}
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	/* Every fd that came along is ours now: keep the first, close extras. */
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		for (size_t i = 0; i < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int f;

			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (fd < 0)
				fd = f;
			else
				close(f);
		}
	}
	if (n <= 0) {
		if (fd >= 0)
			close(fd);
		mp->conn.peer_reason[0] = '\0';
		if (mp->conn.state == MEMIF_C_UP)
			snprintf(mp->conn.peer_reason, sizeof(mp->conn.peer_reason),
				 "closed the control socket");
		memif_peer_gone(port);
		return;
	}
	if (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))
		n = (ssize_t)sizeof(buf); /* refused below as the wrong size */
	rc = memif_conn_input(&mp->conn, buf, (size_t)n, fd, &reply);
	switch (rc) {
	case MEMIF_IN_NONE:
		return;
	case MEMIF_IN_REPLY:
		if (memif_send(mp, &reply, -1) != 0)
			memif_down(port, NULL);
		return;
	case MEMIF_IN_HELLO:
		nmsg = memif_conn_client_build(&mp->conn, msgs, fds, UNIC_ARRAY_SIZE(msgs));
		if (nmsg < 0) {
			memif_log_fail(port, UNIC_LOG_ERR, "memif: %s", mp->conn.reason);
			memif_down(port, "Client failed to set up its memory");
			return;
		}
		for (int i = 0; i < nmsg; i++) {
			/* A server that refuses us (another id, another secret)
			 * says why and closes while we are still sending: stop
			 * here and read its DISCONNECT next (or the end of the
			 * stream, which drops the connection). */
			if (memif_send(mp, &msgs[i], fds[i]) != 0)
				return;
		}
		return;
	case MEMIF_IN_UP:
		/* The server resets the rings before it says CONNECTED: after
		 * that the client writes them (hands its rx buffers over). */
		memif_up(port);
		if (mp->cfg.role == MEMIF_SERVER && memif_send(mp, &reply, -1) != 0)
			memif_down(port, NULL);
		return;
	case MEMIF_IN_PEER_GONE:
		memif_peer_gone(port);
		return;
	default:
		__atomic_fetch_add(&mp->proto_errors, 1, __ATOMIC_RELAXED);
		memif_log_fail(port, UNIC_LOG_ERR, "memif peer broke the protocol: %s; connection "
			       "dropped", mp->conn.reason);
		(void)memif_send(mp, &reply, -1);
		memif_down(port, NULL);
	}
}

static void memif_try_connect(struct unic_port *port, int epfd)
{
	struct memif_port *mp = memif_priv(port);
	struct epoll_event ev = { .events = EPOLLIN };
	struct sockaddr_un sa;
	socklen_t len = memif_addr(mp, &sa);
	int fd;

	mp->state_since_ms = memif_now_ms();
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, len) != 0) {
		int err = errno;

		close(fd);
		memif_log_fail(port, UNIC_LOG_NOTICE, "no memif server on %s '%s' yet (%s); "
			       "retrying every second: start one with role=server, socket=%s%s",
			       memif_kind(mp), mp->socket, strerror(err), mp->socket,
			       mp->abstract ? "" : ", socket-abstract=no");
		return;
	}
	mp->conn_fd = fd;
	mp->conn.state = MEMIF_C_WAIT_HELLO;
	ev.data.fd = fd;
	epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void memif_accept(struct unic_port *port, int epfd)
{
	struct memif_port *mp = memif_priv(port);
	struct epoll_event ev = { .events = EPOLLIN };
	struct memif_msg m;
	int fd = accept4(mp->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	if (mp->conn_fd >= 0) {
		memif_msg_disconnect(&m, "Already connected");
		(void)!send(fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
		close(fd);
		__atomic_fetch_add(&mp->refused_peers, 1, __ATOMIC_RELAXED);
		UNIC_PORT_LOG(port, NOTICE, "memif: a second client on '%s' refused: id=%u has "
			      "its client already", mp->socket, mp->cfg.id);
		return;
	}
	mp->conn_fd = fd;
	memif_conn_hello(&mp->conn, &m);
	mp->state_since_ms = memif_now_ms();
	if (memif_send(mp, &m, -1) != 0) {
		memif_down(port, NULL);
		return;
	}
	ev.data.fd = fd;
	epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void *memif_ctrl_main(void *arg)
{
	struct unic_port *port = arg;
	struct memif_port *mp = memif_priv(port);
	struct epoll_event ev = { .events = EPOLLIN }, evs[4];
	bool client = mp->cfg.role == MEMIF_CLIENT;
	int epfd = epoll_create1(EPOLL_CLOEXEC);
	uint64_t next_try = 0;

	if (epfd < 0) {
		UNIC_PORT_LOG(port, ERR, "memif control thread: epoll_create1: %s", strerror(errno));
		return NULL;
	}
	ev.data.fd = mp->stop_fd;
	epoll_ctl(epfd, EPOLL_CTL_ADD, mp->stop_fd, &ev);
	ev.data.fd = mp->wake_fd;
	epoll_ctl(epfd, EPOLL_CTL_ADD, mp->wake_fd, &ev);
	if (!client) {
		ev.data.fd = mp->listen_fd;
		epoll_ctl(epfd, EPOLL_CTL_ADD, mp->listen_fd, &ev);
	}
	for (;;) {
		uint64_t now = memif_now_ms();
		int timeout = -1, n;

		if (client && mp->conn_fd < 0) {
			if (now >= next_try) {
				memif_try_connect(port, epfd);
				next_try = now + MEMIF_RETRY_MS;
			}
			if (mp->conn_fd < 0)
				timeout = (int)(next_try - now);
		}
		if (mp->conn_fd >= 0 && mp->conn.state != MEMIF_C_UP) {
			uint64_t deadline = mp->state_since_ms + MEMIF_HANDSHAKE_MS;

			if (now >= deadline) {
				__atomic_fetch_add(&mp->proto_errors, 1, __ATOMIC_RELAXED);
				memif_log_fail(port, UNIC_LOG_ERR, "memif peer did not finish the "
					       "handshake within %d ms; connection dropped",
					       MEMIF_HANDSHAKE_MS);
				memif_down(port, "Handshake timed out");
				next_try = now + MEMIF_RETRY_MS;
				continue;
			}
			timeout = (int)(deadline - now);
		}
		n = epoll_wait(epfd, evs, UNIC_ARRAY_SIZE(evs), timeout);
		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == mp->stop_fd)
				goto out;
			if (fd == mp->wake_fd) {
				uint64_t v;

				(void)!read(mp->wake_fd, &v, sizeof(v));
				__atomic_fetch_add(&mp->proto_errors, 1, __ATOMIC_RELAXED);
				UNIC_PORT_LOG(port, ERR, "memif peer wrote a ring index outside its "
					      "ring (a broken or hostile peer); connection dropped, "
					      "%s", client ? "reconnecting" : "waiting for a client");
				memif_down(port, "Ring index out of range");
				next_try = memif_now_ms() + MEMIF_RETRY_MS;
			} else if (fd == mp->listen_fd) {
				memif_accept(port, epfd);
			} else if (fd == mp->conn_fd) {
				memif_handle_input(port);
				if (mp->conn_fd < 0)
					next_try = memif_now_ms() + MEMIF_RETRY_MS;
			}
		}
	}
out:
	memif_down(port, "Interface stopped");
	close(epfd);
	return NULL;
}

int memif_ctrl_start(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);
	uint64_t v;
	int rc;

	/* Drain a stop left from the last run. */
	while (read(mp->stop_fd, &v, sizeof(v)) > 0)
		;
	memif_conn_init(&mp->conn, &mp->cfg);
	mp->conn_fd = -1;
	mp->warned = false;
	/* Before any ring is published: from here the fast path's entry may
	 * leave its fence to the control thread's membarrier(). A kernel
	 * without it (before 4.14) keeps the fence. */
	if (!unic_load_relaxed(&memif_membarrier_ok) &&
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		unic_store_relaxed(&memif_membarrier_ok, 1);
	rc = pthread_create(&mp->thread, NULL, memif_ctrl_main, port);
	if (rc != 0) {
		UNIC_PORT_LOG(port, ERR, "memif: cannot start the control thread: %s", strerror(rc));
		return -rc;
	}
	mp->thread_running = true;
	return 0;
}

void memif_ctrl_stop(struct unic_port *port)
{
	struct memif_port *mp = memif_priv(port);
	uint64_t one = 1;

	if (!mp->thread_running)
		return;
	if (write(mp->stop_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
		UNIC_PORT_LOG(port, ERR, "memif: cannot signal the control thread: %s", strerror(errno));
	pthread_join(mp->thread, NULL);
	mp->thread_running = false;
}
