/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif port: two ports of this process talking over an abstract UNIX
 * socket (frames both ways, in order, interrupts), the errors users meet
 * (socket taken, another id, another secret, a peer that leaves), and a
 * malicious peer written here from the protocol (memif_proto.h) that
 * speaks the handshake badly and corrupts the rings: the port counts,
 * drops the connection with a message, and carries on.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <unic/port.h>
#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>

#include "log_capture.h"
#include "port_fixture.h"
#include "memif_proto.h"

static struct unic_mem *mem;
static struct unic_pool *pool;
static char sock[64];
static struct unic_pool *frame_pool; /* where frame() takes packets; NULL: pool */

static void setup(void)
{
	static unsigned seq;

	logcap_start(UNIC_LOG_DEBUG, 0);
	unic_log_set_level(-1, UNIC_LOG_INFO);
	fixture_mem_pool(&mem, &pool, "memiftest", 8192, 256);
	frame_pool = NULL;
	snprintf(sock, sizeof(sock), "unic-test-memif-%d-%u", (int)getpid(), seq++);
}

static void teardown(void)
{
	fixture_mem_pool_free(mem, pool);
	logcap_stop();
}

TestSuite(memif, .init = setup, .fini = teardown, .timeout = 120);

static struct unic_port *create(const char *fmt, ...)
{
	char spec[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(spec, sizeof(spec), fmt, ap);
	va_end(ap);
	return fixture_port_create(spec);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool link_up(struct unic_port *p)
{
	struct unic_link l;

	cr_assert_eq(unic_port_link_get(p, &l), 0);
	return l.up;
}

/* Wait until the link of @p p is @p up, at most @p ms. */
static bool wait_link(struct unic_port *p, bool up, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		if (link_up(p) == up)
			return true;
		usleep(2000);
	}
	return link_up(p) == up;
}

static bool wait_log(const char *needle, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		if (logcap_has(needle))
			return true;
		usleep(5000);
	}
	return logcap_has(needle);
}

static uint64_t xstat(struct unic_port *p, const char *name)
{
	uint64_t v = ~0ull;

	cr_assert_eq(unic_port_xstat_by_name(p, name, &v), 0, "xstat %s", name);
	return v;
}

static bool wait_xstat(struct unic_port *p, const char *name, uint64_t min, unsigned ms)
{
	uint64_t end = now_ms() + ms;

	while (now_ms() < end) {
		if (xstat(p, name) >= min)
			return true;
		usleep(2000);
	}
	return xstat(p, name) >= min;
}

/* Frames of 4 to 300 bytes, every length in turn, instead of 60 to 1514. */
static bool short_frames;

static uint16_t frame_len(uint32_t seq)
{
	if (short_frames)
		return (uint16_t)(4 + seq % (300 - 4 + 1));
	return (uint16_t)(60 + (seq * 97) % (1514 - 60 + 1));
}

static struct unic_pkt *frame(uint32_t seq)
{
	struct unic_pkt *p = unic_pkt_alloc(frame_pool != NULL ? frame_pool : pool);
	uint16_t len = frame_len(seq);
	uint8_t *d;

	cr_assert_not_null(p);
	d = unic_pkt_append(p, len);
	cr_assert_not_null(d);
	for (uint16_t i = 0; i < len; i++)
		d[i] = (uint8_t)(seq * 31 + i);
	memcpy(d, &seq, sizeof(seq));
	return p;
}

/* Frames asked of each rx_burst by exchange(), up to 128: more than 32
 * make the receiver take several of its batches in one call. */
static uint16_t rx_burst_n = 32;

/* Send @p n frames from @p tx and receive them on @p rx, checking order,
 * length and every byte. Up to rx_burst_n frames are sent (in bursts of
 * up to 32) before each receive. */
static void exchange(struct unic_port *tx, struct unic_port *rx, uint32_t n)
{
	uint32_t sent = 0, got = 0;
	uint64_t end = now_ms() + 10000;

	while (got < n && now_ms() < end) {
		struct unic_pkt *pkts[128];
		uint16_t r;

		do {
			uint16_t k = 0, s;

			while (sent + k < n && k < 32) {
				pkts[k] = frame(sent + k);
				k++;
			}
			if (k == 0)
				break;
			s = unic_tx_burst(tx, 0, pkts, k);
			unic_pkt_free_bulk(pkts + s, (uint32_t)(k - s));
			sent += s;
			if (s < k)
				break;
		} while (sent - got < rx_burst_n);
		r = unic_rx_burst(rx, 0, pkts, rx_burst_n);
		for (uint16_t i = 0; i < r; i++) {
			uint32_t seq;
			const uint8_t *d = unic_pkt_data(pkts[i]);

			memcpy(&seq, d, sizeof(seq));
			cr_assert_eq(seq, got, "frame %u arrived where %u was due", seq, got);
			cr_assert_eq(pkts[i]->pkt_len, frame_len(seq), "frame %u: %u bytes, sent %u",
				     seq, pkts[i]->pkt_len, frame_len(seq));
			for (uint16_t b = 4; b < frame_len(seq); b++)
				cr_assert_eq(d[b], (uint8_t)(seq * 31 + b), "frame %u byte %u", seq, b);
			got++;
		}
		unic_pkt_free_bulk(pkts, r);
	}
	cr_assert_eq(got, n, "received %u of %u frames (sent %u); links %d/%d, tx_ring_full %" PRIu64
		     ", tx_link_down %" PRIu64 ", rx errors: bad_desc %" PRIu64 " too_long %" PRIu64
		     "; log: %s", got, n, sent, link_up(tx), link_up(rx), xstat(tx, "tx_ring_full"),
		     xstat(tx, "tx_link_down"), xstat(rx, "rx_bad_desc"), xstat(rx, "rx_too_long"),
		     logcap_buf);
}

static void pair_up(struct unic_port **srv, struct unic_port **cli, const char *srv_extra,
		    const char *cli_extra, enum unic_rx_mode mode)
{
	*srv = create("memif0,role=server,socket=%s%s", sock, srv_extra);
	*cli = create("memif1,role=client,socket=%s%s", sock, cli_extra);
	fixture_port_up(*srv, pool, 1, 0, mode);
	fixture_port_up(*cli, pool, 1, 0, mode);
}

/* ---- two ports ---------------------------------------------------------- */

Test(memif, a_server_and_a_client_exchange_frames_of_60_to_1514_bytes_both_ways_in_order)
{
	struct unic_port *srv, *cli;
	struct unic_port_stats st;

	/* bsize=1024 on the client: longer frames take two descriptors. */
	pair_up(&srv, &cli, "", ",bsize=1024,rsize=8", UNIC_RX_MODE_POLL);
	cr_assert(wait_link(srv, true, 3000), "the server's link never came up");
	cr_assert(wait_link(cli, true, 3000), "the client's link never came up");
	exchange(cli, srv, 3000);
	exchange(srv, cli, 3000);
	cr_assert_eq(unic_port_stats_get(srv, &st), 0);
	cr_assert_eq(st.ipackets, 3000);
	cr_assert_eq(st.opackets, 3000);
	cr_assert_eq(st.ierrors, 0);
	cr_assert_eq(xstat(srv, "connects"), 1);
	cr_assert_eq(xstat(srv, "rx_bad_desc"), 0);
	fixture_port_down(cli);
	fixture_port_down(srv);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

/* The copies are inline from 16 to 128 bytes (two overlapping fixed-size
 * copies) and memcpy outside: every length on each side of those edges,
 * in one descriptor and, with 64-byte buffers, chained over several (a
 * burst that mixes both goes through both receive loops); received 32 and
 * then 100 at a time (the receiver's fast loop works in batches of 32:
 * a call of 100 takes several, the last one short). */
Test(memif, frames_of_every_length_from_4_to_300_bytes_arrive_intact_in_one_descriptor_or_chained)
{
	static const char *const client_args[] = { ",rsize=8", ",bsize=64,rsize=8" };

	short_frames = true;
	for (unsigned i = 0; i < 4; i++) {
		rx_burst_n = i < 2 ? 32 : 100;
		struct unic_port *srv, *cli;
		struct unic_port_stats st;

		pair_up(&srv, &cli, "", client_args[i % 2], UNIC_RX_MODE_POLL);
		cr_assert(wait_link(srv, true, 3000), "the server's link never came up");
		cr_assert(wait_link(cli, true, 3000), "the client's link never came up");
		exchange(cli, srv, 2 * 297);
		exchange(srv, cli, 2 * 297);
		cr_assert_eq(unic_port_stats_get(srv, &st), 0);
		cr_assert_eq(st.ierrors, 0, "client args '%s': %" PRIu64 " rx errors", client_args[i % 2],
			     st.ierrors);
		fixture_port_down(cli);
		fixture_port_down(srv);
	}
	rx_burst_n = 32;
	short_frames = false;
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(memif, an_armed_receiver_is_woken_through_its_interrupt_fd_by_the_peers_eventfd)
{
	struct unic_port *srv, *cli;
	struct unic_intr_source src[2];
	struct unic_pkt *p;
	struct pollfd pfd;

	pair_up(&srv, &cli, "", "", UNIC_RX_MODE_INTERRUPT);
	cr_assert_eq(unic_port_intr_sources(srv, src, 2), 1);
	cr_assert_eq(unic_port_intr_sources(cli, src + 1, 1), 1);
	cr_assert(wait_link(srv, true, 3000));
	cr_assert(wait_link(cli, true, 3000));
	for (int dir = 0; dir < 2; dir++) {
		struct unic_port *rx = dir ? cli : srv, *tx = dir ? srv : cli;

		cr_assert_eq(unic_rx_intr_enable(rx, 0), 0);
		cr_assert_not(unic_rx_pending(rx, 0));
		pfd = (struct pollfd){ .fd = src[dir].fd, .events = POLLIN };
		cr_assert_eq(poll(&pfd, 1, 50), 0, "woken with nothing sent");
		p = frame(0);
		cr_assert_eq(unic_tx_burst(tx, 0, &p, 1), 1);
		cr_assert_eq(poll(&pfd, 1, 2000), 1, "%s slept through a frame: no interrupt",
			     dir ? "the client" : "the server");
		cr_assert_eq(unic_rx_burst(rx, 0, &p, 1), 1);
		unic_pkt_free(p);
		cr_assert_eq(unic_rx_intr_disable(rx, 0), 0);
	}
	cr_assert_geq(xstat(cli, "tx_signals"), 1);
	cr_assert_geq(xstat(srv, "tx_signals"), 1);
	fixture_port_down(cli);
	fixture_port_down(srv);
}

/* ---- errors users meet -------------------------------------------------- */

Test(memif, a_server_on_a_socket_another_server_holds_is_refused_with_a_message_naming_the_fix)
{
	struct unic_port *srv = create("memif0,role=server,socket=%s", sock), *p = NULL;
	char spec[128];

	snprintf(spec, sizeof(spec), "memif1,role=server,socket=%s", sock);
	cr_assert_eq(unic_vdev_create(spec, &p), -EADDRINUSE);
	cr_assert_null(p);
	cr_assert(logcap_has("is taken: another memif server"), "log: %s", logcap_buf);
	cr_assert(logcap_has("give this port another socket="), "log: %s", logcap_buf);
	fixture_port_down(srv);
}

Test(memif, a_leftover_socket_file_is_refused_with_the_rm_command)
{
	char path[100], spec[200];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct unic_port *p = NULL;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(path, sizeof(path), "/tmp/%s.sock", sock);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd); /* the file stays, nobody listens: a crashed server's */
	snprintf(spec, sizeof(spec), "memif0,role=server,socket=%s,socket-abstract=no", path);
	cr_assert_eq(unic_vdev_create(spec, &p), -EADDRINUSE);
	cr_assert(logcap_has("nobody listens"), "log: %s", logcap_buf);
	cr_assert(logcap_has("rm /tmp/"), "log: %s", logcap_buf);
	unlink(path);
	p = create("memif0,role=server,socket=%s,socket-abstract=no", path);
	fixture_port_down(p);
	cr_assert_eq(access(path, F_OK), -1, "the port's close removes its socket file");
}

Test(memif, a_client_with_another_id_is_refused_and_both_sides_name_the_ids)
{
	struct unic_port *srv, *cli;

	pair_up(&srv, &cli, ",id=1", ",id=2", UNIC_RX_MODE_POLL);
	cr_assert(wait_log("has no interface with id=2", 3000), "client log: %s", logcap_buf);
	cr_assert(logcap_has("asked for id=2 but this server port has id=1"), "log: %s", logcap_buf);
	cr_assert_not(link_up(cli));
	cr_assert_not(link_up(srv));
	cr_assert_geq(xstat(srv, "proto_errors"), 1);
	fixture_port_down(cli);
	fixture_port_down(srv);
}

Test(memif, a_secret_mismatch_is_refused_and_both_sides_say_to_use_the_same_secret)
{
	struct unic_port *srv, *cli;

	pair_up(&srv, &cli, ",secret=abc", ",secret=abd", UNIC_RX_MODE_POLL);
	cr_assert(wait_log("refused this port's secret", 3000), "log: %s", logcap_buf);
	cr_assert(logcap_has("give both sides the same secret="), "log: %s", logcap_buf);
	cr_assert_not(link_up(cli));
	fixture_port_down(cli);
	fixture_port_down(srv);

	/* The same secret connects. */
	logcap_clear();
	pair_up(&srv, &cli, ",secret=abc", ",secret=abc", UNIC_RX_MODE_POLL);
	cr_assert(wait_link(cli, true, 3000), "log: %s", logcap_buf);
	fixture_port_down(cli);
	fixture_port_down(srv);
}

Test(memif, a_peer_that_leaves_takes_the_link_down_and_the_client_reconnects_when_it_is_back)
{
	struct unic_port *srv, *cli;
	struct unic_pkt *p;

	pair_up(&srv, &cli, "", "", UNIC_RX_MODE_POLL);
	cr_assert(wait_link(cli, true, 3000));
	exchange(cli, srv, 100);
	cr_assert_eq(unic_port_stop(srv), 0);
	cr_assert(wait_link(cli, false, 3000), "the client's link stayed up after the server left");
	cr_assert(wait_log("memif peer disconnected", 1000), "log: %s", logcap_buf);
	p = frame(0);
	cr_assert_eq(unic_tx_burst(cli, 0, &p, 1), 0, "a port without a peer takes nothing");
	unic_pkt_free(p);
	cr_assert_geq(xstat(cli, "tx_link_down"), 1);
	/* The client port keeps running; the server comes back. */
	cr_assert_eq(unic_port_start(srv), 0);
	cr_assert(wait_link(cli, true, 4000), "the client did not reconnect");
	cr_assert(wait_link(srv, true, 1000));
	exchange(cli, srv, 100);
	exchange(srv, cli, 100);
	cr_assert_eq(xstat(cli, "connects"), 2);
	cr_assert_eq(xstat(cli, "disconnects"), 1);
	fixture_port_down(cli);
	fixture_port_down(srv);
}

Test(memif, frames_left_unread_in_the_ring_when_the_peer_quits_are_counted_not_lost_silently)
{
	struct unic_port *srv, *cli;
	struct unic_pkt *pk[10];

	pair_up(&srv, &cli, "", "", UNIC_RX_MODE_POLL);
	cr_assert(wait_link(srv, true, 3000));
	cr_assert(wait_link(cli, true, 3000));
	for (uint32_t i = 0; i < 10; i++)
		pk[i] = frame(i);
	cr_assert_eq(unic_tx_burst(cli, 0, pk, 10), 10);
	/* The client quits before the server reads a frame. */
	fixture_port_down(cli);
	cr_assert(wait_link(srv, false, 3000), "the server's link stayed up after the client left");
	cr_assert_eq(xstat(srv, "rx_lost_at_disconnect"), 10, "log: %s", logcap_buf);
	cr_assert_eq(unic_rx_burst(srv, 0, pk, 10), 0);
	fixture_port_down(srv);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}

Test(memif, devargs_out_of_range_or_unknown_are_refused_by_name)
{
	static const char *const bad[] = {
		"memif0,role=master", "memif0,rsize=15", "memif0,bsize=10", "memif0,role=server,zero-copy=yes",
		"memif0,socket-abstract=maybe", "memif0,mac=zz:00:00:00:00:00", "memif0,colour=red",
		"memif0,secret=0123456789012345678901234",
	};
	struct unic_port *p = NULL;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		logcap_clear();
		cr_assert_lt(unic_vdev_create(bad[i], &p), 0, "%s was accepted", bad[i]);
		cr_assert_gt(logcap_nb[UNIC_LOG_ERR], 0, "%s: no message", bad[i]);
	}
}

/* ---- a malicious peer --------------------------------------------------- */

static int raw_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	size_t len = strlen(sock);

	memcpy(sa.sun_path + 1, sock, len);
	cr_assert_eq(connect(fd, (struct sockaddr *)&sa,
			     (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)), 0,
		     "connect: %s", strerror(errno));
	return fd;
}

static int raw_listen(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	size_t len = strlen(sock);

	memcpy(sa.sun_path + 1, sock, len);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)), 0);
	cr_assert_eq(listen(fd, 1), 0);
	return fd;
}

static void raw_send_len(int s, const void *m, size_t len, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = (void *)(uintptr_t)m, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *cm;

		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	(void)sendmsg(s, &mh, MSG_NOSIGNAL);
}

static void raw_send(int s, const struct memif_msg *m, int fd)
{
	raw_send_len(s, m, sizeof(*m), fd);
}

/* Receive one message (its fd in *fd if wanted, else closed). @return its
 * type, or -1 (closed, timeout). */
static int raw_recv(int s, struct memif_msg *m, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl,
			     .msg_controllen = sizeof(ctl) };
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	ssize_t n;

	if (fd)
		*fd = -1;
	if (poll(&pfd, 1, 3000) != 1)
		return -1;
	n = recvmsg(s, &mh, 0);
	if (n != (ssize_t)sizeof(*m))
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		int f;

		memcpy(&f, CMSG_DATA(cm), sizeof(f));
		if (fd)
			*fd = f;
		else
			close(f);
	}
	return m->type;
}

/* A client's memory, as the protocol lays it out: rings, then buffers. */
struct raw_mem {
	int fd;
	uint8_t *addr;
	size_t size;
	unsigned log2, bsize;
	int efd[2];
};

static struct memif_ring *raw_ring(struct raw_mem *rm, unsigned idx)
{
	return (struct memif_ring *)(rm->addr + idx * memif_ring_bytes(rm->log2));
}

static void raw_mem_make(struct raw_mem *rm, unsigned log2, bool seal)
{
	unsigned n = 1u << log2;

	rm->log2 = log2;
	rm->bsize = 2048;
	rm->size = 2 * memif_ring_bytes(log2) + 2 * (size_t)n * rm->bsize;
	rm->fd = memfd_create("raw", MFD_ALLOW_SEALING);
	cr_assert_geq(rm->fd, 0);
	cr_assert_eq(ftruncate(rm->fd, (off_t)rm->size), 0);
	if (seal)
		cr_assert_eq(fcntl(rm->fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	rm->addr = mmap(NULL, rm->size, PROT_READ | PROT_WRITE, MAP_SHARED, rm->fd, 0);
	cr_assert_neq(rm->addr, MAP_FAILED);
	for (unsigned r = 0; r < 2; r++) {
		struct memif_ring *ring = raw_ring(rm, r);

		ring->cookie = MEMIF_COOKIE;
		for (unsigned j = 0; j < n; j++) {
			ring->desc[j].offset = (uint32_t)(2 * memif_ring_bytes(log2) + (r * n + j) * rm->bsize);
			ring->desc[j].length = rm->bsize;
		}
		rm->efd[r] = eventfd(0, EFD_NONBLOCK);
	}
}

static void raw_mem_free(struct raw_mem *rm)
{
	munmap(rm->addr, rm->size);
	close(rm->fd);
	close(rm->efd[0]);
	close(rm->efd[1]);
}

static struct memif_msg msg(uint16_t type)
{
	struct memif_msg m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	return m;
}

/* The client's half of a good handshake up to (not including) CONNECT. */
static void raw_client_adds(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_INIT), r;

	m.init.version = MEMIF_VERSION;
	raw_send(s, &m, -1);
	cr_assert_eq(raw_recv(s, &r, NULL), MEMIF_MSG_ACK);
	m = msg(MEMIF_MSG_ADD_REGION);
	m.add_region.size = rm->size;
	raw_send(s, &m, rm->fd);
	cr_assert_eq(raw_recv(s, &r, NULL), MEMIF_MSG_ACK);
	for (unsigned d = 0; d < 2; d++) {
		m = msg(MEMIF_MSG_ADD_RING);
		m.add_ring.flags = d == 0 ? MEMIF_ADD_RING_C2S : 0;
		m.add_ring.offset = (uint32_t)(d * memif_ring_bytes(rm->log2));
		m.add_ring.log2_ring_size = (uint8_t)rm->log2;
		raw_send(s, &m, rm->efd[d]);
		cr_assert_eq(raw_recv(s, &r, NULL), MEMIF_MSG_ACK);
	}
}

/* One bad handshake against our server: what the raw client does after
 * HELLO; the server must answer DISCONNECT and log @p expect. */
struct bad_case {
	const char *what;
	const char *expect;  /* in the server's log */
	void (*run)(int s, struct raw_mem *rm);
};

static void bad_size(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_INIT);

	(void)rm;
	raw_send_len(s, &m, 64, -1);
}

static void bad_version(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_INIT);

	(void)rm;
	m.init.version = 0x0100;
	raw_send(s, &m, -1);
}

static void bad_type(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(77);

	(void)rm;
	raw_send(s, &m, -1);
}

static void connect_first(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_CONNECT);

	(void)rm;
	raw_send(s, &m, -1);
}

static void region_index(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_INIT), r;

	m.init.version = MEMIF_VERSION;
	raw_send(s, &m, -1);
	cr_assert_eq(raw_recv(s, &r, NULL), MEMIF_MSG_ACK);
	m = msg(MEMIF_MSG_ADD_REGION);
	m.add_region.index = 5;
	m.add_region.size = rm->size;
	raw_send(s, &m, rm->fd);
}

static void region_no_fd(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_INIT), r;

	m.init.version = MEMIF_VERSION;
	raw_send(s, &m, -1);
	cr_assert_eq(raw_recv(s, &r, NULL), MEMIF_MSG_ACK);
	m = msg(MEMIF_MSG_ADD_REGION);
	m.add_region.size = rm->size;
	raw_send(s, &m, -1);
}

static void ring_index(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_INIT), r;

	m.init.version = MEMIF_VERSION;
	raw_send(s, &m, -1);
	cr_assert_eq(raw_recv(s, &r, NULL), MEMIF_MSG_ACK);
	m = msg(MEMIF_MSG_ADD_RING);
	m.add_ring.flags = MEMIF_ADD_RING_C2S;
	m.add_ring.index = 99;
	m.add_ring.log2_ring_size = 4;
	raw_send(s, &m, rm->efd[0]);
}

static void region_too_big(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_CONNECT);

	rm->size *= 4; /* announce more than the file has */
	raw_client_adds(s, rm);
	rm->size /= 4;
	raw_send(s, &m, -1);
}

static void ring_outside(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_CONNECT);
	size_t size = rm->size;

	rm->size = memif_ring_bytes(rm->log2) + 64; /* the S2C ring does not fit */
	raw_client_adds(s, rm);
	rm->size = size;
	raw_send(s, &m, -1);
}

static void bad_cookie(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_CONNECT);

	raw_ring(rm, 1)->cookie = 0xdead;
	raw_client_adds(s, rm);
	raw_send(s, &m, -1);
}

static void not_an_eventfd(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_CONNECT);
	int p[2];

	cr_assert_eq(pipe(p), 0);
	close(rm->efd[1]);
	rm->efd[1] = p[0];
	raw_client_adds(s, rm);
	raw_send(s, &m, -1);
	close(p[1]);
}

static void good_connect(int s, struct raw_mem *rm)
{
	struct memif_msg m = msg(MEMIF_MSG_CONNECT);

	raw_client_adds(s, rm);
	raw_send(s, &m, -1);
}

static void run_bad_case(const struct bad_case *bc, bool seal)
{
	struct unic_port *srv = create("memif0,role=server,socket=%s,rsize=4", sock);
	struct raw_mem rm;
	struct memif_msg m;
	int s, t;
	uint64_t before;

	fixture_port_up(srv, pool, 1, 0, UNIC_RX_MODE_POLL);
	raw_mem_make(&rm, 4, seal);
	s = raw_connect();
	cr_assert_eq(raw_recv(s, &m, NULL), MEMIF_MSG_HELLO, "%s: no HELLO", bc->what);
	cr_assert_eq(m.hello.max_c2s_ring, 0);
	cr_assert_eq(m.hello.min_version, MEMIF_VERSION);
	before = xstat(srv, "proto_errors");
	bc->run(s, &rm);
	do
		t = raw_recv(s, &m, NULL);
	while (t == MEMIF_MSG_ACK);
	cr_assert_eq(t, MEMIF_MSG_DISCONNECT, "%s: the server answered %d, not DISCONNECT", bc->what, t);
	cr_assert(wait_log(bc->expect, 2000), "%s: no '%s' in the log: %s", bc->what, bc->expect,
		  logcap_buf);
	cr_assert(wait_xstat(srv, "proto_errors", before + 1, 2000), "%s: not counted", bc->what);
	cr_assert_not(link_up(srv));
	close(s);
	raw_mem_free(&rm);

	/* The server carries on: a good client connects. */
	raw_mem_make(&rm, 4, true);
	s = raw_connect();
	cr_assert_eq(raw_recv(s, &m, NULL), MEMIF_MSG_HELLO);
	raw_client_adds(s, &rm);
	m = msg(MEMIF_MSG_CONNECT);
	raw_send(s, &m, -1);
	cr_assert_eq(raw_recv(s, &m, NULL), MEMIF_MSG_CONNECTED, "%s: the next client failed", bc->what);
	cr_assert(wait_link(srv, true, 2000));
	close(s);
	raw_mem_free(&rm);
	fixture_port_down(srv);
}

Test(memif, a_client_that_breaks_the_handshake_is_dropped_with_a_message_and_the_server_carries_on)
{
	static const struct bad_case cases[] = {
		{ "a short message", "every memif message is 128", bad_size },
		{ "version 1.0", "memif version 1.0", bad_version },
		{ "an unknown type", "unexpected unknown message (type 77)", bad_type },
		{ "CONNECT before INIT", "unexpected CONNECT", connect_first },
		{ "region index 5 first", "ADD_REGION index 5, expected 0", region_index },
		{ "a region without its fd", "came without its memory fd", region_no_fd },
		{ "ring index 99", "ADD_RING C2S index 99", ring_index },
		{ "a region larger than its file", "region 0: announced", region_too_big },
		{ "a ring outside its region", "S2C ring 0", ring_outside },
		{ "a ring without the cookie", "no memif cookie", bad_cookie },
		{ "a pipe for an eventfd", "not an eventfd", not_an_eventfd },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		logcap_clear();
		run_bad_case(&cases[i], true);
	}
}

Test(memif, a_region_the_peer_could_shrink_is_refused)
{
	static const struct bad_case c = { "an unsealed region", "not sealed with F_SEAL_SHRINK",
					   good_connect };

	run_bad_case(&c, false);
}

/* A good raw client, connected to our server, for the ring tests. */
static int raw_client_up(struct unic_port *srv, struct raw_mem *rm)
{
	struct memif_msg m;
	int s;

	raw_mem_make(rm, 4, true);
	s = raw_connect();
	cr_assert_eq(raw_recv(s, &m, NULL), MEMIF_MSG_HELLO);
	good_connect(s, rm);
	cr_assert_eq(raw_recv(s, &m, NULL), MEMIF_MSG_CONNECTED);
	cr_assert(wait_link(srv, true, 2000));
	return s;
}

/* Put a frame of @p len bytes at C2S slot @p slot with descriptor fields
 * as given. */
static void raw_c2s_desc(struct raw_mem *rm, uint16_t slot, uint16_t region, uint32_t offset,
			 uint32_t length, uint16_t flags)
{
	struct memif_desc *d = &raw_ring(rm, 0)->desc[slot & ((1u << rm->log2) - 1)];

	d->region = region;
	d->offset = offset;
	d->length = length;
	d->flags = flags;
}

Test(memif, a_client_that_corrupts_descriptors_and_indexes_is_counted_then_dropped_and_the_server_carries_on)
{
	struct unic_port *srv = create("memif0,role=server,socket=%s", sock);
	struct raw_mem rm;
	struct memif_ring *c2s;
	struct unic_pkt *pkts[32];
	struct unic_port_stats st;
	uint32_t good_off;
	uint16_t n;
	int s;

	fixture_port_up(srv, pool, 1, 0, UNIC_RX_MODE_POLL);
	s = raw_client_up(srv, &rm);
	c2s = raw_ring(&rm, 0);
	good_off = c2s->desc[0].offset;
	/* Slot 0: good. 1: region 7. 2: past the region's end. 3: a length
	 * of 4 GiB - 1. 4: longer than the pool's data room. 5+6: a good
	 * two-descriptor frame. 7: zero length. 8: good. */
	memset(rm.addr + good_off, 0xab, 100);
	raw_c2s_desc(&rm, 0, 0, good_off, 100, 0);
	raw_c2s_desc(&rm, 1, 7, good_off, 100, 0);
	raw_c2s_desc(&rm, 2, 0, (uint32_t)rm.size - 10, 100, 0);
	raw_c2s_desc(&rm, 3, 0, good_off, UINT32_MAX, 0);
	raw_c2s_desc(&rm, 4, 0, 0, (uint32_t)rm.size, 0);
	raw_c2s_desc(&rm, 5, 0, good_off, 60, MEMIF_DESC_FLAG_NEXT);
	raw_c2s_desc(&rm, 6, 0, good_off, 40, 0);
	raw_c2s_desc(&rm, 7, 0, good_off, 0, 0);
	raw_c2s_desc(&rm, 8, 0, good_off, 64, 0);
	__atomic_store_n(&c2s->head, 9, __ATOMIC_RELEASE);
	n = unic_rx_burst(srv, 0, pkts, 32);
	cr_assert_eq(n, 3, "3 good frames of 9 slots, got %u", n);
	cr_assert_eq(pkts[0]->pkt_len, 100);
	cr_assert_eq(((uint8_t *)unic_pkt_data(pkts[0]))[99], 0xab);
	cr_assert_eq(pkts[1]->pkt_len, 100, "the chained frame is 60 + 40 bytes");
	cr_assert_eq(pkts[2]->pkt_len, 64);
	unic_pkt_free_bulk(pkts, n);
	cr_assert_eq(__atomic_load_n(&c2s->tail, __ATOMIC_ACQUIRE), 9, "every slot given back");
	cr_assert_eq(xstat(srv, "rx_bad_desc"), 4);
	cr_assert_eq(xstat(srv, "rx_too_long"), 1);
	cr_assert_eq(unic_port_stats_get(srv, &st), 0);
	cr_assert_eq(st.ierrors, 5);
	cr_assert(link_up(srv), "bad descriptors cost their frames, not the link");

	/* A head that claims more than the ring holds. */
	__atomic_store_n(&c2s->head, (uint16_t)(9 + 17), __ATOMIC_RELEASE);
	cr_assert_eq(unic_rx_burst(srv, 0, pkts, 32), 0);
	cr_assert_eq(xstat(srv, "rx_bad_index"), 1);
	cr_assert(wait_link(srv, false, 2000), "the broken connection was not dropped");
	cr_assert(wait_log("ring index outside its ring", 1000), "log: %s", logcap_buf);
	cr_assert_eq(unic_rx_burst(srv, 0, pkts, 32), 0);
	close(s);
	raw_mem_free(&rm);

	/* A good client afterwards is served. */
	s = raw_client_up(srv, &rm);
	raw_c2s_desc(&rm, 0, 0, raw_ring(&rm, 0)->desc[0].offset, 70, 0);
	__atomic_store_n(&raw_ring(&rm, 0)->head, 1, __ATOMIC_RELEASE);
	cr_assert_eq(unic_rx_burst(srv, 0, pkts, 32), 1);
	unic_pkt_free(pkts[0]);
	close(s);
	raw_mem_free(&rm);
	fixture_port_down(srv);
}

/* The server's rx gives slots back through the C2S tail, which the sending
 * client reads on every burst: a poll that found nothing must not store
 * it (a store takes the cache line from the sender even when the value is
 * the same). The client's own scribble in it shows whether it was stored. */
Test(memif, an_empty_server_rx_poll_leaves_the_tail_alone_and_a_frame_moves_it)
{
	struct unic_port *srv = create("memif0,role=server,socket=%s", sock);
	struct raw_mem rm;
	struct memif_ring *c2s;
	struct unic_pkt *pkts[32];
	int s;

	fixture_port_up(srv, pool, 1, 0, UNIC_RX_MODE_POLL);
	s = raw_client_up(srv, &rm);
	c2s = raw_ring(&rm, 0);
	__atomic_store_n(&c2s->tail, 0x5a5a, __ATOMIC_RELEASE);
	cr_assert_eq(unic_rx_burst(srv, 0, pkts, 32), 0);
	cr_assert_eq(__atomic_load_n(&c2s->tail, __ATOMIC_ACQUIRE), 0x5a5a,
		     "an empty poll stored the tail");
	raw_c2s_desc(&rm, 0, 0, c2s->desc[0].offset, 60, 0);
	__atomic_store_n(&c2s->head, 1, __ATOMIC_RELEASE);
	cr_assert_eq(unic_rx_burst(srv, 0, pkts, 32), 1);
	unic_pkt_free(pkts[0]);
	cr_assert_eq(__atomic_load_n(&c2s->tail, __ATOMIC_ACQUIRE), 1, "the slot was not given back");
	close(s);
	raw_mem_free(&rm);
	fixture_port_down(srv);
}

Test(memif, a_client_that_hands_the_server_bad_buffers_is_dropped_and_nothing_is_written_outside)
{
	struct unic_port *srv = create("memif0,role=server,socket=%s", sock);
	struct raw_mem rm;
	struct memif_ring *s2c;
	struct unic_pkt *p;
	int s;

	fixture_port_up(srv, pool, 1, 0, UNIC_RX_MODE_POLL);
	s = raw_client_up(srv, &rm);
	s2c = raw_ring(&rm, 1);
	/* One buffer in region 3: the server must not write it anywhere. */
	s2c->desc[0].region = 3;
	__atomic_store_n(&s2c->head, 1, __ATOMIC_RELEASE);
	p = frame(1);
	cr_assert_eq(unic_tx_burst(srv, 0, &p, 1), 0);
	unic_pkt_free(p);
	cr_assert_eq(__atomic_load_n(&s2c->tail, __ATOMIC_ACQUIRE), 0, "nothing was published");
	cr_assert(wait_link(srv, false, 2000));
	close(s);
	raw_mem_free(&rm);

	/* A head 40 slots ahead of a 16-slot ring. */
	s = raw_client_up(srv, &rm);
	__atomic_store_n(&raw_ring(&rm, 1)->head, 40, __ATOMIC_RELEASE);
	p = frame(1);
	cr_assert_eq(unic_tx_burst(srv, 0, &p, 1), 0);
	unic_pkt_free(p);
	cr_assert_geq(xstat(srv, "tx_bad_index"), 2);
	cr_assert(wait_link(srv, false, 2000));
	close(s);
	raw_mem_free(&rm);
	fixture_port_down(srv);
}

/* A raw server for our client: HELLO, then whatever the test says. */
struct raw_server {
	int ls, s;
	uint8_t *addr;
	size_t size;
	uint8_t *zaddr;         /* region 1 (a zero-copy client's pool), if sent */
	size_t zsize;
	struct memif_msg init;
	uint16_t s2c_off, c2s_off;
	unsigned log2;
};

/* Accept our client, send @p hello, take its INIT..CONNECT, map its region,
 * ack all and answer CONNECTED. */
static void raw_server_up(struct raw_server *rs, const struct memif_msg *hello)
{
	struct memif_msg m, a = msg(MEMIF_MSG_ACK);
	struct pollfd pfd = { .fd = rs->ls, .events = POLLIN };
	int fd, t;

	cr_assert_eq(poll(&pfd, 1, 3000), 1, "the client never connected");
	rs->s = accept(rs->ls, NULL, NULL);
	raw_send(rs->s, hello, -1);
	while ((t = raw_recv(rs->s, &m, &fd)) > 0 && t != MEMIF_MSG_CONNECT) {
		if (t == MEMIF_MSG_INIT)
			rs->init = m;
		if (t == MEMIF_MSG_ADD_REGION && m.add_region.index == 1) {
			rs->zsize = m.add_region.size;
			rs->zaddr = mmap(NULL, rs->zsize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			cr_assert_neq(rs->zaddr, MAP_FAILED);
		} else if (t == MEMIF_MSG_ADD_REGION) {
			rs->size = m.add_region.size;
			rs->addr = mmap(NULL, rs->size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			cr_assert_neq(rs->addr, MAP_FAILED);
		}
		if (t == MEMIF_MSG_ADD_RING) {
			if (m.add_ring.flags & MEMIF_ADD_RING_C2S)
				rs->c2s_off = (uint16_t)m.add_ring.offset;
			else
				rs->s2c_off = (uint16_t)m.add_ring.offset;
			rs->log2 = m.add_ring.log2_ring_size;
		}
		if (fd >= 0)
			close(fd);
		raw_send(rs->s, &a, -1);
	}
	cr_assert_eq(t, MEMIF_MSG_CONNECT);
	m = msg(MEMIF_MSG_CONNECTED);
	raw_send(rs->s, &m, -1);
}

static struct memif_msg good_hello(void)
{
	struct memif_msg h = msg(MEMIF_MSG_HELLO);

	h.hello.min_version = h.hello.max_version = MEMIF_VERSION;
	h.hello.max_log2_ring_size = 4;
	return h;
}

Test(memif, a_server_that_corrupts_the_rx_ring_is_counted_then_dropped_and_the_client_reconnects)
{
	struct raw_server rs = { 0 };
	struct memif_msg h = good_hello();
	struct unic_port *cli;
	struct memif_ring *s2c;
	struct unic_pkt *pkts[8];
	uint16_t n;

	rs.ls = raw_listen();
	cli = create("memif1,role=client,socket=%s,id=9,secret=pssst", sock);
	fixture_port_up(cli, pool, 1, 0, UNIC_RX_MODE_POLL);
	raw_server_up(&rs, &h);
	cr_assert_eq(rs.init.init.id, 9);
	cr_assert_str_eq((const char *)rs.init.init.secret, "pssst");
	cr_assert(wait_link(cli, true, 2000));
	s2c = (struct memif_ring *)(rs.addr + rs.s2c_off);
	cr_assert_eq(rs.log2, 4, "the client took the server's smaller ring");
	cr_assert_eq(__atomic_load_n(&s2c->head, __ATOMIC_ACQUIRE), 16,
		     "the client handed every buffer before the first burst");
	/* Slot 0: good, 1: offset past the region, 2: region 2. */
	s2c->desc[0].length = 80;
	s2c->desc[1].offset = (uint32_t)rs.size;
	s2c->desc[1].length = 80;
	s2c->desc[2].region = 2;
	__atomic_store_n(&s2c->tail, 3, __ATOMIC_RELEASE);
	n = unic_rx_burst(cli, 0, pkts, 8);
	cr_assert_eq(n, 1);
	cr_assert_eq(pkts[0]->pkt_len, 80);
	unic_pkt_free(pkts[0]);
	cr_assert_eq(xstat(cli, "rx_bad_desc"), 2);
	cr_assert_eq(s2c->desc[1].offset != (uint32_t)rs.size, true, "the client rewrote its descriptor");
	/* A tail beyond what the client handed over. */
	__atomic_store_n(&s2c->tail, 3 + 17, __ATOMIC_RELEASE);
	cr_assert_eq(unic_rx_burst(cli, 0, pkts, 8), 0);
	cr_assert(wait_link(cli, false, 2000));
	cr_assert(wait_log("ring index outside its ring", 1000), "log: %s", logcap_buf);
	munmap(rs.addr, rs.size);
	close(rs.s);

	/* A bad HELLO next time: refused with a message, then a good one. */
	h.hello.min_version = 0x0300;
	h.hello.max_version = 0x0300;
	{
		struct pollfd pfd = { .fd = rs.ls, .events = POLLIN };
		struct memif_msg m;
		int s;

		cr_assert_eq(poll(&pfd, 1, 3000), 1);
		s = accept(rs.ls, NULL, NULL);
		raw_send(s, &h, -1);
		cr_assert_eq(raw_recv(s, &m, NULL), MEMIF_MSG_DISCONNECT);
		cr_assert(wait_log("speaks memif versions 0x0300..0x0300", 1000), "log: %s", logcap_buf);
		close(s);
	}
	h = good_hello();
	raw_server_up(&rs, &h);
	cr_assert(wait_link(cli, true, 2000), "the client did not reconnect");
	cr_assert_geq(xstat(cli, "proto_errors"), 2);
	munmap(rs.addr, rs.size);
	close(rs.s);
	close(rs.ls);
	fixture_port_down(cli);
}

Test(memif, a_server_that_never_finishes_the_handshake_is_dropped_after_a_timeout)
{
	int ls = raw_listen(), s;
	struct unic_port *cli = create("memif1,role=client,socket=%s", sock);
	struct pollfd pfd = { .fd = ls, .events = POLLIN };

	fixture_port_up(cli, pool, 1, 0, UNIC_RX_MODE_POLL);
	cr_assert_eq(poll(&pfd, 1, 3000), 1);
	s = accept(ls, NULL, NULL); /* and say nothing */
	cr_assert(wait_log("did not finish the handshake", 8000), "log: %s", logcap_buf);
	close(s);
	close(ls);
	fixture_port_down(cli);
}

/* ---- client zero-copy (memif_zc.c) ---------------------------------------- */

static struct unic_pool *shareable_pool(void)
{
	struct unic_pktpool_conf c = { .sz = sizeof(c), .name = "memifzc", .mem = mem, .count = 4096,
					 .cache_size = 256, .numa_node = -1, .shareable = true };
	struct unic_pool *zp = unic_pktpool_create(&c);

	cr_assert_not_null(zp, "%s; log: %s", strerror(errno), logcap_buf);
	return zp;
}

Test(memif, a_zero_copy_client_and_a_server_exchange_frames_both_ways_in_order_lending_its_pool)
{
	struct unic_pool *zp = shareable_pool();
	struct unic_port *srv, *cli;
	struct unic_pkt *pkts[4];

	srv = create("memif0,role=server,socket=%s", sock);
	cli = create("memif1,role=client,socket=%s,zero-copy=yes,rsize=8", sock);
	fixture_port_up(srv, pool, 1, 0, UNIC_RX_MODE_POLL);
	fixture_port_up(cli, zp, 1, 0, UNIC_RX_MODE_POLL);
	cr_assert(logcap_has("the server can read and write every packet of this pool"),
		  "log: %s", logcap_buf);
	cr_assert(wait_link(srv, true, 3000) && wait_link(cli, true, 3000), "log: %s", logcap_buf);
	/* Client tx from the lent pool: the descriptors name the packets. */
	frame_pool = zp;
	exchange(cli, srv, 3000);
	cr_assert_eq(xstat(cli, "tx_zc_copied"), 0);
	/* Client rx: the server writes into the packets the client lent. */
	frame_pool = NULL;
	exchange(srv, cli, 3000);
	cr_assert_eq(xstat(cli, "rx_zc_bad_addr"), 0);
	/* A packet of another pool is copied. */
	exchange(cli, srv, 500);
	cr_assert_eq(xstat(cli, "tx_zc_copied"), 500);
	/* What rx gives is the lent pool's. */
	frame_pool = NULL;
	pkts[0] = frame(1);
	cr_assert_eq(unic_tx_burst(srv, 0, pkts, 1), 1);
	for (int i = 0; i < 1000 && unic_rx_burst(cli, 0, pkts, 1) == 0; i++)
		usleep(1000);
	cr_assert_eq(pkts[0]->pool, zp, "the frame came in a packet of the lent pool");
	unic_pkt_free(pkts[0]);
	fixture_port_down(cli);
	fixture_port_down(srv);
	cr_assert_eq(unic_pool_in_use_count(zp), 0, "every packet lent or in flight came back");
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
	unic_pool_destroy(zp);
}

Test(memif, zero_copy_on_a_server_or_with_a_pool_the_server_cannot_map_is_refused_with_the_reason)
{
	struct unic_port *cli, *p = NULL;
	int rc;

	cr_assert_eq(unic_vdev_create("memif0,role=server,zero-copy=yes", &p), -ENOTSUP);
	cr_assert(logcap_has("only the client creates the shared memory"), "log: %s", logcap_buf);
	cli = create("memif1,role=client,socket=%s,zero-copy=yes", sock);
	fixture_port_configure(cli, pool, 1, 0, UNIC_RX_MODE_POLL);
	rc = unic_port_start(cli);
	cr_assert_eq(rc, -EINVAL, "start: %d", rc);
	cr_assert(logcap_has("is not in shareable memory"), "log: %s", logcap_buf);
	cr_assert(logcap_has(".shareable = true"), "log: %s", logcap_buf);
	fixture_port_down(cli);
}

Test(memif, a_server_that_hands_back_a_descriptor_naming_another_buffer_is_counted_not_followed_and_sent_packets_wait_for_its_tail)
{
	struct unic_pool *zp = shareable_pool();
	struct raw_server rs = { 0 };
	struct memif_msg h = good_hello();
	struct unic_port *cli;
	struct memif_ring *s2c;
	struct unic_pkt *pkts[8];
	uint32_t off0, off1, off2;
	uint16_t n;

	rs.ls = raw_listen();
	cli = create("memif1,role=client,socket=%s,zero-copy=yes", sock);
	fixture_port_up(cli, zp, 1, 0, UNIC_RX_MODE_POLL);
	raw_server_up(&rs, &h);
	cr_assert(wait_link(cli, true, 2000));
	cr_assert_not_null(rs.zaddr, "the client sent its pool as region 1");
	s2c = (struct memif_ring *)(rs.addr + rs.s2c_off);
	cr_assert_eq(__atomic_load_n(&s2c->head, __ATOMIC_ACQUIRE), 16, "every slot lent");
	cr_assert_eq(s2c->desc[0].region, 1, "slot 0 lends a buffer of the pool's region");
	off0 = s2c->desc[0].offset;
	off1 = s2c->desc[1].offset;
	off2 = s2c->desc[2].offset;
	cr_assert_leq((uint64_t)off0 + s2c->desc[0].length, rs.zsize);
	/* Slot 0: good. 1: names slot 2's buffer (lent, but not in that
	 * slot). 2: region 0 (the rings). 3: its own buffer, too long. */
	memset(rs.zaddr + off0, 0x11, 80);
	memset(rs.zaddr + off2, 0x22, 80);
	s2c->desc[0].length = 80;
	s2c->desc[1].offset = off2;
	s2c->desc[1].length = 80;
	s2c->desc[2].region = 0;
	s2c->desc[2].length = 80;
	s2c->desc[3].length = s2c->desc[3].length + 1;
	__atomic_store_n(&s2c->tail, 4, __ATOMIC_RELEASE);
	n = unic_rx_burst(cli, 0, pkts, 8);
	cr_assert_eq(n, 1);
	cr_assert_eq(pkts[0]->pkt_len, 80);
	cr_assert_eq(pkts[0]->pool, zp);
	cr_assert_eq(((uint8_t *)unic_pkt_data(pkts[0]))[79], 0x11);
	unic_pkt_free(pkts[0]);
	cr_assert_eq(xstat(cli, "rx_zc_bad_addr"), 2);
	cr_assert_eq(xstat(cli, "rx_too_long"), 1);
	cr_assert_eq(s2c->desc[1].offset, off1, "slot 1 lends its own buffer again");
	cr_assert_eq(s2c->desc[2].region, 1);
	cr_assert_eq(__atomic_load_n(&s2c->head, __ATOMIC_ACQUIRE), 20, "four slots lent again");

	/* Transmit: the lent pool's packets go as they are and stay the
	 * port's until the server's tail passes them. */
	{
		struct memif_ring *c2s = (struct memif_ring *)(rs.addr + rs.c2s_off);
		uint32_t held;

		for (int i = 0; i < 3; i++) {
			pkts[i] = unic_pkt_alloc(zp);
			cr_assert_not_null(pkts[i]);
			memset(unic_pkt_append(pkts[i], 100), 0x40 + i, 100);
		}
		held = unic_pool_in_use_count(zp);
		cr_assert_eq(unic_tx_burst(cli, 0, pkts, 3), 3);
		cr_assert_eq(unic_pool_in_use_count(zp), held, "sent packets are not freed while "
			     "the server may still read them");
		cr_assert_eq(c2s->desc[2].region, 1);
		cr_assert_eq(c2s->desc[2].length, 100);
		cr_assert_leq((uint64_t)c2s->desc[2].offset + 100, rs.zsize);
		cr_assert_eq(rs.zaddr[c2s->desc[2].offset + 99], 0x42, "the server reads the packet itself");
		__atomic_store_n(&c2s->tail, 3, __ATOMIC_RELEASE);
		pkts[0] = unic_pkt_alloc(zp);
		memset(unic_pkt_append(pkts[0], 60), 0x50, 60);
		cr_assert_eq(unic_tx_burst(cli, 0, pkts, 1), 1);
		cr_assert_eq(unic_pool_in_use_count(zp), held - 3 + 1, "the three the server "
			     "consumed went back to the pool; the fourth is held");
		cr_assert_eq(xstat(cli, "tx_zc_copied"), 0);
	}
	munmap(rs.addr, rs.size);
	munmap(rs.zaddr, rs.zsize);
	close(rs.s);
	close(rs.ls);
	fixture_port_down(cli);
	cr_assert_eq(unic_pool_in_use_count(zp), 0);
	unic_pool_destroy(zp);
}
